r"""Video-text scorers for MVR: the interface the real ViCLIP would plug into, and offline stand-ins (spec C5)."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, check_array, check_positive_int


def check_clip(clip, name="clip"):
    """Validate a multi-view clip (V, F, H, W, 3); returns it as float32 in [0, 1]."""
    a = np.asarray(clip)
    if a.ndim != 5 or a.shape[-1] != 3:
        raise InputError(name, f"has shape {a.shape}", "a multi-view clip of shape (V, F, H, W, 3)")
    if a.shape[1] < 2:
        raise InputError(name, f"has {a.shape[1]} frame(s) per view", "at least 2 frames (a clip shows motion)")
    if a.dtype == np.uint8:
        return a.astype(np.float32) / 255.0
    a = check_array(a, name, ndim=5).astype(np.float32)
    if a.min() < 0 or a.max() > 1:
        raise InputError(name, "is a float array outside [0, 1]", "uint8 pixels or floats in [0, 1]")
    return a


def _normalise(x, axis=-1):
    return x / np.maximum(np.linalg.norm(x, axis=axis, keepdims=True), 1e-12)


class VideoTextScorer:
    r"""Interface of a frozen video-text model scoring one clip per camera view against a prompt.

    Subclass it with ``encode_video(frames (F, H, W, 3) float in [0, 1]) -> (D,)`` and
    ``encode_text(prompt) -> (D,)`` (e.g. ViCLIP-L, where its weights can be had); :meth:`score` then gives
    per-view cosines :math:`S_v(c) = \langle e_v(c), g\rangle` with :math:`e_v = E_{vid}(\text{view } v)/\lVert
    \cdot\rVert`, :math:`g = E_{txt}(\ell)/\lVert\cdot\rVert`, and the normalised view embeddings (used by the
    alignment loss). A scorer may instead override :meth:`score` whole; MVR checks that it returns V scores in
    [-1, 1] and (V, D) embeddings. Only the ordering of the view-averaged score is used downstream.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.rl.mvr import VideoTextScorer
    >>> class Brightness(VideoTextScorer):
    ...     def encode_video(self, frames):
    ...         return np.array([frames.mean(), 1.0 - frames.mean()])
    ...     def encode_text(self, prompt):
    ...         return np.array([1.0, 0.0])
    >>> s, e = Brightness().score(np.ones((2, 3, 4, 4, 3), np.uint8) * 255, "a bright scene")
    >>> s.round(3).tolist(), e.shape
    ([1.0, 1.0], (2, 2))
    """

    def encode_video(self, frames):  # pragma: no cover - abstract
        raise NotImplementedError("a VideoTextScorer subclass implements encode_video(frames) -> (D,)")

    def encode_text(self, prompt):  # pragma: no cover - abstract
        raise NotImplementedError("a VideoTextScorer subclass implements encode_text(prompt) -> (D,)")

    def _text(self, prompt, n_views):
        g = np.asarray(self.encode_text(prompt), dtype=float)
        return np.broadcast_to(_normalise(g), (n_views, g.shape[-1])) if g.ndim == 1 else _normalise(g)

    def score(self, clip, prompt=None):
        """Per-view scores (V,) and normalised view embeddings (V, D) of one clip (V, F, H, W, 3)."""
        c = check_clip(clip)
        E = _normalise(np.stack([np.asarray(self.encode_video(c[v]), dtype=float) for v in range(c.shape[0])]))
        G = self._text(prompt, c.shape[0])
        if G.shape != E.shape:
            raise InputError("prompt", f"embeds to shape {G.shape}, the views to {E.shape}",
                             "text and video embeddings of one dimension (one per view or shared)")
        return np.clip((E * G).sum(-1), -1.0, 1.0), E

    def score_many(self, clips, prompt=None):
        """Scores (N, V) and embeddings (N, V, D) of a list of clips."""
        if isinstance(clips, (str, bytes)) or not hasattr(clips, "__iter__"):
            raise InputError("clips", f"got {type(clips).__name__}", "a list of (V, F, H, W, 3) clips")
        clips = list(clips)
        if not clips:
            raise InputError("clips", "is empty", "at least one clip")
        out = [self.score(c, prompt) for c in clips]
        return np.stack([o[0] for o in out]), np.stack([o[1] for o in out])


def _grey(frames, size):
    g = frames.mean(-1)  # (F, H, W)
    F, H, W = g.shape
    if H % size == 0 and W % size == 0:
        return g.reshape(F, size, H // size, size, W // size).mean((2, 4))
    ii = (np.arange(size) * H / size).astype(int)
    jj = (np.arange(size) * W / size).astype(int)
    return g[:, ii][:, :, jj]


class _Projection:
    def __init__(self, n_features, seed):
        self.n_features, self.seed, self._w = n_features, seed, {}

    def __call__(self, x):
        d = x.shape[-1]
        if d not in self._w:
            self._w[d] = np.random.default_rng([self.seed, d]).normal(size=(d, self.n_features)) / np.sqrt(d)
        return np.maximum(x @ self._w[d], 0.0)


class DemoPrototypeScorer(VideoTextScorer):
    r"""Stand-in video encoder with a demonstration prototype as its "text" (spec C5a, RoboCLIP-like).

    :math:`E_{vid}` is a frozen random-feature network on the clip: frames turned grey and area-downsampled
    to ``size`` x ``size``, the raw frames (centred) and their frame differences (x ``diff_gain``)
    concatenated and projected by a fixed Gaussian matrix to ``n_features`` with a ReLU. The target embedding
    of view v is the normalised mean embedding of reference clips of the target behaviour seen from that view
    (a scripted gait played back, an expert's rollout), so :math:`S_v(c)` is the cosine between the clip and
    the demonstration as the same camera sees them. With ``aggregate="max"`` (default) the score is the
    largest cosine to any single reference clip (a bank of demonstrations: a periodic motion seen at several
    phases averages to a blur that a still clip resembles as much as the motion does); ``"mean"`` uses the
    normalised mean embedding. With ``temporal=False`` the clip embedding is the mean of
    per-frame embeddings without differences: an image-level (single-frame, VLM-RM-like) scorer.

    Parameters
    ----------
    prototypes : array-like, shape (V, D) or (D,), optional
        Target embeddings; usually built by :meth:`from_reference`.
    size : int, default 32
    n_features : int, default 512
    diff_gain : float, default 4.0
    temporal : bool, default True
    seed : int, default 0
        Seed of the frozen projection (a fixed "pre-trained" model).
    aggregate : {"max", "mean"}, default "max"
        How the reference bank is compared with a clip (see above).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.rl.mvr import DemoPrototypeScorer
    >>> g = np.random.default_rng(0)
    >>> ref = g.integers(0, 255, size=(2, 4, 16, 16, 3), dtype=np.uint8)
    >>> sc = DemoPrototypeScorer.from_reference(None, ref, size=8, n_features=64)
    >>> s, e = sc.score(ref)
    >>> s.round(3).tolist(), e.shape
    ([1.0, 1.0], (2, 64))
    """

    def __init__(self, prototypes=None, size=32, n_features=512, diff_gain=4.0, temporal=True, seed=0,
                 aggregate="max"):
        if aggregate not in ("max", "mean"):
            raise InputError("aggregate", f"got {aggregate!r}", "'max' or 'mean'")
        self.aggregate = aggregate
        self.bank = None
        self.size = check_positive_int(size, "size")
        self.n_features = check_positive_int(n_features, "n_features")
        if not isinstance(diff_gain, (int, float)) or not np.isfinite(diff_gain) or diff_gain < 0:
            raise InputError("diff_gain", f"got {diff_gain!r}", "a finite number >= 0")
        self.diff_gain = float(diff_gain)
        if not isinstance(temporal, bool):
            raise InputError("temporal", f"got {temporal!r}", "True or False")
        self.temporal = temporal
        self.seed = check_positive_int(seed, "seed", minimum=0)
        self._proj = _Projection(self.n_features, self.seed)
        P = None if prototypes is None else check_array(prototypes, "prototypes", ndim=(1, 2))
        if P is not None and (P.size == 0 or np.any(np.linalg.norm(P, axis=-1) == 0)):
            raise InputError("prototypes", "is empty or has a zero vector", "non-zero prototype embeddings")
        self.prototypes = None if P is None else _normalise(P)
        if self.prototypes is not None and self.prototypes.shape[-1] != self.n_features:
            raise InputError("prototypes", f"has dimension {self.prototypes.shape[-1]}",
                             f"n_features={self.n_features}")

    def __repr__(self):
        v = "none" if self.prototypes is None else (self.prototypes.shape[0] if self.prototypes.ndim == 2 else 1)
        return (f"{type(self).__name__}(size={self.size}, n_features={self.n_features}, temporal={self.temporal}, "
                f"prototypes={v})")

    def encode_video(self, frames):
        g = _grey(np.asarray(frames, dtype=np.float32), self.size) - 0.5
        if not self.temporal:
            return self._proj(g.reshape(g.shape[0], -1)).mean(0)
        x = np.concatenate([g.ravel(), self.diff_gain * np.diff(g, axis=0).ravel()])
        return self._proj(x)

    def encode_text(self, prompt):
        if self.prototypes is None:
            raise InputError("prototypes", "are not set", "reference clips: use DemoPrototypeScorer.from_reference")
        return self.prototypes

    @classmethod
    def from_reference(cls, env, reference_clips, **kwargs):
        """Build the scorer with per-view prototypes from reference clips (V, F, H, W, 3) or (n, V, F, H, W, 3).

        ``env`` (a :class:`MultiViewEnv` or None) is used to check the clips' views and frame size; clips may
        also be a list of :class:`MultiViewClip`.
        """
        if isinstance(reference_clips, (list, tuple)) and reference_clips and hasattr(reference_clips[0], "frames"):
            reference_clips = np.stack([c.frames for c in reference_clips])
        R = np.asarray(reference_clips)
        if R.ndim == 5:
            R = R[None]
        if R.ndim != 6 or len(R) == 0:
            raise InputError("reference_clips", f"has shape {R.shape}",
                             "clips of shape (V, F, H, W, 3) or (n, V, F, H, W, 3), n >= 1")
        if env is not None and hasattr(env, "n_views"):
            if R.shape[1] != env.n_views or tuple(R.shape[3:5]) != tuple(env.size):
                raise InputError("reference_clips", f"have {R.shape[1]} views of {R.shape[3:5]} pixels",
                                 f"{env.n_views} views of {tuple(env.size)} pixels, as env renders")
        sc = cls(**kwargs)
        E = np.stack([sc.score_embeddings(c) for c in R])  # (n, V, D)
        sc.prototypes = _normalise(E.mean(0))
        sc.bank = E
        return sc

    def score(self, clip, prompt=None):
        """Per-view scores (V,) and view embeddings (V, D): cosine to the prototype (or the best bank clip)."""
        if self.aggregate == "mean" or self.bank is None:
            return super().score(clip, prompt)
        E = self.score_embeddings(clip)
        if E.shape[0] != self.bank.shape[1]:
            raise InputError("clip", f"has {E.shape[0]} views", f"{self.bank.shape[1]} views, as the reference")
        return np.clip(np.einsum("vd,nvd->nv", E, self.bank).max(0), -1.0, 1.0), E

    def score_embeddings(self, clip):
        """Normalised view embeddings (V, D) of a clip."""
        c = check_clip(clip)
        return _normalise(np.stack([self.encode_video(c[v]) for v in range(c.shape[0])]))


#: natural units of the pixel descriptor's features (displacement x, y, band power x, y, uprightness, motion)
PIXEL_DESCRIPTOR_SCALE = np.array([1.0, 1.0, 0.05, 0.05, 1.0, 0.05])


def _descriptor_pixels(frames, band):
    """Per-view temporal descriptor of a (F, H, W, 3) clip from its intensity-weighted centroid track."""
    g = np.asarray(frames, dtype=np.float64).mean(-1)
    F, H, W = g.shape
    w = g - np.median(g, axis=0, keepdims=True)
    w = np.abs(w) + 1e-3 * g  # moving pixels first; the static image when nothing moves
    tot = w.sum((1, 2)) + 1e-9
    ys, xs = np.arange(H) / H, np.arange(W) / W
    cx = (w.sum(1) * xs).sum(1) / tot
    cy = (w.sum(2) * ys).sum(1) / tot
    sx = np.sqrt(np.maximum((w.sum(1) * xs ** 2).sum(1) / tot - cx ** 2, 0))
    sy = np.sqrt(np.maximum((w.sum(2) * ys ** 2).sum(1) / tot - cy ** 2, 0))
    spec_x = np.abs(np.fft.rfft(cx - cx.mean())) / F
    spec_y = np.abs(np.fft.rfft(cy - cy.mean())) / F
    k = np.arange(len(spec_x))
    inb = (k >= band[0]) & (k <= band[1])
    motion = np.abs(np.diff(g, axis=0)).mean()
    return np.array([cx[-1] - cx[0], cy[-1] - cy[0], spec_x[inb].sum(), spec_y[inb].sum(),
                     float(np.mean(sy / (sx + 1e-6))), motion])


class MotionDescriptorScorer(VideoTextScorer):
    r"""Privileged hand-crafted motion scorer (spec C5b): cosine between temporal descriptors.

    For view v, :math:`\varphi_v(c)` is computed from that view's pixels: the track of the centroid of the
    moving pixels gives the displacement over the clip (horizontal, vertical), the band power of the
    centroid's oscillation in ``band`` (cycles per clip, by FFT over the F frames), the uprightness (vertical
    over horizontal spread) and the motion energy (mean absolute frame difference). The score is
    :math:`S_v = \cos([\varphi_v/\text{scale}, 1], [\varphi^*/\text{scale}, 1])`; the constant coordinate
    makes it sensitive to magnitude (an oscillation of twice the target amplitude scores lower). A
    ``descriptor`` callable may replace the pixel descriptor (e.g. projected joint positions).

    Parameters
    ----------
    target : array-like, shape (V, K) or (K,), optional
        Target descriptors; usually built by :meth:`from_reference`.
    scale : array-like, shape (K,), optional
        Per-feature scale. Default for the pixel descriptor: its natural units, 1 for the displacements
        (fractions of the frame) and the uprightness, 0.05 for the band powers and the motion energy; for a
        custom ``descriptor``: the absolute target values, floored at 0.1 x their largest.
    band : (int, int), default (1, 3)
        Frequency band in cycles per clip (1-3 Hz for 8 frames at the code's 16-step rendering of a 0.008 s
        MuJoCo step is about 1-3 cycles per clip).
    descriptor : callable, optional
        ``descriptor(frames (F, H, W, 3)) -> (K,)``.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.rl.mvr import MotionDescriptorScorer, OscillatorEnv, make_multiview_env
    >>> env = make_multiview_env(OscillatorEnv(), cameras=["side"], clip_len=8, every=10, size=(16, 16))
    >>> ref = env.rollout_clips(env.unwrapped.oscillate_policy(0.5), 200, seed=0)
    >>> sc = MotionDescriptorScorer.from_reference(env, ref[-1:])
    >>> float(sc.score(ref[-1].frames)[0][0].round(3))
    1.0
    """

    def __init__(self, target=None, scale=None, band=(1, 3), descriptor=None):
        if (not isinstance(band, (tuple, list)) or len(band) != 2
                or not all(isinstance(b, (int, np.integer)) and b >= 0 for b in band) or band[0] > band[1]):
            raise InputError("band", f"got {band!r}", "a pair (low, high) of non-negative integers, low <= high")
        self.band = (int(band[0]), int(band[1]))
        if descriptor is not None and not callable(descriptor):
            raise InputError("descriptor", f"got {type(descriptor).__name__}", "a callable frames -> (K,) or None")
        self.descriptor = descriptor
        self.target = None if target is None else check_array(target, "target", ndim=(1, 2))
        self.scale = None if scale is None else check_array(scale, "scale", ndim=1)
        if self.scale is not None and np.any(self.scale <= 0):
            raise InputError("scale", "has entries <= 0", "positive per-feature scales")
        if self.scale is not None and self.target is not None and self.scale.shape[0] != self.target.shape[-1]:
            raise InputError("scale", f"has {self.scale.shape[0]} entries for {self.target.shape[-1]}-dim targets",
                             "one scale per descriptor feature")

    def __repr__(self):
        return f"MotionDescriptorScorer(band={self.band}, target={'set' if self.target is not None else 'none'})"

    def describe(self, frames):
        """The descriptor of one view's frames (F, H, W, 3)."""
        a = np.asarray(frames)
        if a.ndim != 4 or a.shape[-1] != 3 or a.shape[0] < 2:
            raise InputError("frames", f"has shape {a.shape}", "one view's frames (F >= 2, H, W, 3)")
        if a.dtype != np.uint8:
            a = check_array(a, "frames", ndim=4)
        frames = a
        if self.descriptor is not None:
            return np.asarray(self.descriptor(frames), dtype=float).ravel()
        return _descriptor_pixels(frames, self.band)

    def _scale(self):
        if self.scale is not None:
            return self.scale
        if self.descriptor is None:
            return PIXEL_DESCRIPTOR_SCALE
        t = np.abs(self.target).reshape(-1, self.target.shape[-1]).mean(0)
        return np.maximum(t, 0.1 * max(float(t.max()), 1e-12))

    def encode_video(self, frames):
        return np.append(self.describe(frames) / self._scale(), 1.0)

    def encode_text(self, prompt):
        if self.target is None:
            raise InputError("target", "is not set", "target descriptors: use MotionDescriptorScorer.from_reference")
        t = self.target / self._scale()
        return np.concatenate([t, np.ones(t.shape[:-1] + (1,))], -1)

    @classmethod
    def from_reference(cls, env, reference_clips, **kwargs):
        """Target descriptors (per view) as the mean descriptor of reference clips (see DemoPrototypeScorer)."""
        if isinstance(reference_clips, (list, tuple)) and reference_clips and hasattr(reference_clips[0], "frames"):
            reference_clips = np.stack([c.frames for c in reference_clips])
        R = np.asarray(reference_clips)
        if R.ndim == 5:
            R = R[None]
        if R.ndim != 6 or len(R) == 0:
            raise InputError("reference_clips", f"has shape {R.shape}",
                             "clips of shape (V, F, H, W, 3) or (n, V, F, H, W, 3), n >= 1")
        if env is not None and hasattr(env, "n_views") and R.shape[1] != env.n_views:
            raise InputError("reference_clips", f"have {R.shape[1]} views", f"{env.n_views} views, as env renders")
        sc = cls(**kwargs)
        D = np.stack([[sc.describe(check_clip(c)[v]) for v in range(c.shape[0])] for c in R])  # (n, V, K)
        sc.target = D.mean(0)
        return sc
