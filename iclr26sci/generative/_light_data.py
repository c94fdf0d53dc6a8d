r"""Human-object interaction sequences for LIGHT: real DeepMimic motion capture composed with procedural objects,
rule-based contact labels, captions, and the interaction metrics.

What is real and what is composed. The **body motion is real**: DeepMimic motion-capture clips (Peng et al.
2018, shipped in ``pybullet_data/data/motions``) played on the DeepMimic humanoid by forward kinematics
(:func:`iclr26sci.geom.deepmimic_forward_kinematics`), resampled to ``fps`` frames per second. The **object
interaction is composed**: an object from the shape spectrum is placed so that the chosen wrist touches its
surface at the grasp frame, moves rigidly with that wrist until the release frame, and rests (on an implied
support) before and after; no physics. The contact label is a geometric rule on the result (below).

Per frame three modality blocks (world frame, y up, metres):

- ``body``: the 13 non-wrist joints of the DeepMimic humanoid (39 numbers);
- ``hands``: the right and left wrist (6 numbers) -- the humanoid has no fingers;

(User data of another skeleton -- SMPL, SMPL-H, SMPL-X joint positions -- enters through
:meth:`HOISequences.from_joints`; its :class:`~iclr26sci.generative._light_skeleton.BodyLayout` decides which joints
form the body and hands tokens, and contact is measured on all hand joints.)
- ``object``: the object centre (3) and its 6-D rotation code (6), as in the paper.

Contact rule (generated and ground truth alike): frame t is a contact frame when the nearest wrist lies within
``eps`` of the object surface, :math:`\min_h \phi(R_t^\top(w_{h,t} - c_t)) < \varepsilon`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields

import numpy as np

from iclr26sci.core import InputError, as_generator, check_array, check_in_range, check_option, check_positive_int

from ._light_objects import OBJECT_KINDS, HOIObject, matrix_from_rot6d, rot6d_from_matrix, sample_object, yaw_matrix
from ._light_skeleton import BODY_LAYOUTS, BodyLayout, body_layout, layout_from_dims, merge_joints, split_joints

__all__ = ["HOISequences", "HOIDataset", "hoi_dataset", "hoi_metrics", "motion_features", "MODALITIES",
           "MOCAP_CLIPS", "CONTACT_EPS", "joint_surface_distance"]

#: the three modality blocks and their sizes
MODALITIES = {"body": 39, "hands": 6, "object": 9}
#: DeepMimic clips used (upright motions at least 1.25 s long) and their caption phrases
MOCAP_CLIPS = {"walk": "walk forward", "jump": "jump", "dance_a": "dance", "dance_b": "dance energetically",
               "kick": "kick", "punch": "punch", "spin": "spin around", "spinkick": "do a spin kick",
               "backflip": "do a backflip", "cartwheel": "do a cartwheel"}
#: contact distance, metres (wrist joint centre to object surface: about a hand's half thickness)
CONTACT_EPS = 0.05
_PEN_DEPTH = 0.02
_BODY = ("root", "chest", "neck", "right_shoulder", "right_elbow", "left_shoulder", "left_elbow",
         "right_hip", "right_knee", "right_ankle", "left_hip", "left_knee", "left_ankle")
_HANDS = ("right_wrist", "left_wrist")


class _SequenceSet:
    """What every set of interaction sequences shares: length, frames, modality features, shape codes,
    subsets and a plain-data dict. Subclasses are dataclasses whose array fields are indexed by sequence."""

    def __len__(self):
        return self.body.shape[0]

    @property
    def T(self) -> int:
        """Frames per sequence."""
        return self.body.shape[1]

    def __repr__(self):
        return f"{type(self).__name__}({len(self)} sequences of {self.T} frames)"

    def features(self) -> dict:
        """``{"body": ..., "hands": ..., "object": ...}``."""
        return {"body": self.body, "hands": self.hands, "object": self.object}

    def shape_codes(self) -> np.ndarray:
        """The BPS-lite shape code of every sequence's object, (N, 33)."""
        return np.stack([o.shape_code() for o in self.objects])

    def subset(self, idx):
        """The sequences at integer indices ``idx`` (per-sequence arrays and lists indexed, the rest kept)."""
        idx = np.asarray(idx, dtype=np.int64)
        n = len(self)
        kw = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                v = v[idx]
            elif isinstance(v, list) and len(v) == n:
                v = [v[i] for i in idx]
            kw[f.name] = v
        return type(self)(**kw)

    def to_dict(self) -> dict:
        """Arrays as lists, captions, objects (as dicts), contact labels, fps and any other fields."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                v = v.tolist()
            elif f.name == "objects":
                v = [o.to_dict() for o in v]
            elif isinstance(v, BodyLayout):
                v = v.to_dict()
            elif isinstance(v, list):
                v = list(v)
            out[f.name] = v
        return out


@dataclass(repr=False)  # the shared short repr of _SequenceSet
class HOISequences(_SequenceSet):
    """A set of interaction sequences: per-modality features, captions, objects and contact labels.

    Attributes
    ----------
    body, hands, object : ndarray (N, T, 3 J_body), (N, T, 3 J_hands), (N, T, 9)
        The modality features (world frame, metres; object = centre + 6-D rotation). DeepMimic data: 39 and 6.
    text : list of str
        One caption per sequence.
    objects : list of HOIObject
    contact : ndarray (N, T) of bool
        Rule-based contact labels.
    fps : float
    clips : list of str
        The motion-capture clip of each sequence ("" when given as arrays).
    layout : BodyLayout
        The skeleton: which joints form the body and hands tokens (``BODY_LAYOUTS["deepmimic"]`` for
        :func:`hoi_dataset`; SMPL-family layouts through :meth:`from_joints`).

    Examples
    --------
    >>> import numpy as np
    >>> s = HOISequences.from_arrays(np.zeros((2, 8, 39)), np.zeros((2, 8, 6)),
    ...                              np.tile([0, 0, 0, 1, 0, 0, 0, 1, 0.], (2, 8, 1)), ["lift the box"] * 2,
    ...                              [HOIObject("box", (0.1, 0.1, 0.1))] * 2)
    >>> s
    HOISequences(2 sequences of 8 frames)
    """

    body: np.ndarray
    hands: np.ndarray
    object: np.ndarray
    text: list
    objects: list
    contact: np.ndarray
    fps: float = 20.0
    clips: list = field(default_factory=list)
    layout: BodyLayout = BODY_LAYOUTS["deepmimic"]

    @property
    def dims(self) -> dict:
        """Token sizes ``{"body": 3 J_body, "hands": 3 J_hands, "object": 9}`` (39, 6, 9 for DeepMimic)."""
        return {"body": self.body.shape[2], "hands": self.hands.shape[2], "object": MODALITIES["object"]}

    @property
    def n_joints(self) -> int:
        """Joints per frame of the skeleton (15 DeepMimic, 22 SMPL body, 52 SMPL-H, 55 SMPL-X, ...)."""
        return self.layout.n_joints

    @classmethod
    def from_arrays(cls, body, hands, object, text, objects, contact=None, fps=20.0, layout=None):
        """Validate user arrays (consistent sequence counts, lengths and joint counts) and build the set.

        ``body`` and ``hands`` are the two tokens' joint positions, flat; ``layout`` (a name from
        :data:`BODY_LAYOUTS` or a :class:`BodyLayout`) is inferred from their widths when None (39 + 6: DeepMimic;
        60 + 6: SMPL body; 60 + 12: SMPL; 60 + 96: SMPL-H; 69 + 96: SMPL-X). For whole skeletons use
        :meth:`from_joints`. ``contact`` defaults to the contact rule applied to the arrays.
        """
        b = check_array(body, "body", ndim=3)
        h = check_array(hands, "hands", ndim=3)
        o = check_array(object, "object", ndim=3)
        if o.shape[2] != MODALITIES["object"]:
            raise InputError("object", f"has {o.shape[2]} features per frame", "9 (centre 3 + rot6d 6)")
        lay = layout_from_dims(b.shape[2], h.shape[2]) if layout is None else body_layout(layout)
        for name, arr in (("body", b), ("hands", h)):
            if arr.shape[2] != lay.dims[name]:
                k = len(lay.body_joints if name == "body" else lay.hand_joints)
                raise InputError(name, f"has {arr.shape[2]} features per frame",
                                 f"{lay.dims[name]} ({k} joints x 3 of layout {lay.name!r})")
        if not (b.shape[:2] == h.shape[:2] == o.shape[:2]):
            raise InputError("hands", f"sequence counts/lengths differ: body {b.shape[:2]}, hands {h.shape[:2]}, "
                             f"object {o.shape[:2]}", "the same (N, T) for body, hands and object")
        N, T = b.shape[:2]
        if N == 0 or T < 2:
            raise InputError("body", f"has shape {b.shape}", "at least one sequence of at least 2 frames")
        if isinstance(text, str) or len(text) != N:
            raise InputError("text", f"has {1 if isinstance(text, str) else len(text)} captions", f"a list of {N} captions")
        for t in text:
            if not isinstance(t, str) or not t.strip():
                raise InputError("text", f"has an empty or non-string caption {t!r}", "non-empty strings")
        if len(objects) != N or not all(isinstance(x, HOIObject) for x in objects):
            raise InputError("objects", f"has {len(objects)} entries", f"{N} HOIObject instances")
        fps = check_in_range(fps, "fps", 0.0, None, low_open=True)
        if contact is None:
            contact = contact_distance(h, o, objects) < CONTACT_EPS
        else:
            from ._checks import check_flags

            contact = check_flags(contact, "contact", (N, T))
        return cls(b, h, o, list(text), list(objects), contact, float(fps), [""] * N, lay)

    @classmethod
    def from_joints(cls, joints, object, text, objects, contact=None, fps=20.0, layout=None):
        """Build the set from whole-skeleton joint positions: SMPL, SMPL-H, SMPL-X or any :class:`BodyLayout`.

        ``joints``: ``(N, T, J, 3)`` or flat ``(N, T, 3 J)`` positions (world frame, y up, metres), e.g.
        ``(N, T, 52, 3)`` or ``(N, T, 156)`` for SMPL-H with hands, ``(N, T, 66)`` for the 22-joint SMPL body.
        ``layout``: a name from :data:`BODY_LAYOUTS`, a :class:`BodyLayout`, or None to infer it from J
        (15, 22, 24, 52, 55). The hand joints (wrists and fingers) form the ``hands`` token and carry the contact
        rule; the rest form ``body``.

        Examples
        --------
        >>> J = np.zeros((2, 8, 52, 3)); J[..., 1] = 1.0
        >>> box = HOIObject("box", (0.1, 0.1, 0.1))
        >>> obj = np.tile([0.5, 1, 0, 1, 0, 0, 0, 1, 0.], (2, 8, 1))
        >>> s = HOISequences.from_joints(J, obj, ["lift the box"] * 2, [box] * 2)
        >>> s.layout.name, s.dims, s.joints().shape
        ('smplh', {'body': 60, 'hands': 96, 'object': 9}, (2, 8, 52, 3))
        """
        body, hands, lay = split_joints(joints, layout)
        return cls.from_arrays(body, hands, object, text, objects, contact=contact, fps=fps, layout=lay)

    def joints(self) -> np.ndarray:
        """All joints per frame, (N, T, J, 3): the 15 DeepMimic joints in :data:`iclr26sci.geom` body order, or
        another layout's joints in its own order."""
        if self.layout != BODY_LAYOUTS["deepmimic"]:
            return merge_joints(self.body, self.hands, self.layout)
        from iclr26sci.geom import load_deepmimic_skeleton

        order = load_deepmimic_skeleton().bodies
        pos = {n: self.body[:, :, 3 * i:3 * i + 3] for i, n in enumerate(_BODY)}
        pos.update({n: self.hands[:, :, 3 * i:3 * i + 3] for i, n in enumerate(_HANDS)})
        return np.stack([pos[n] for n in order], 2)

    def summary(self) -> str:
        """One line: counts, frames, contact fraction and object kinds."""
        kinds = sorted({o.kind for o in self.objects})
        return (f"{len(self)} sequences x {self.T} frames at {self.fps:g} fps; contact on "
                f"{self.contact.mean():.1%} of frames; objects: {', '.join(kinds)}")


@dataclass
class HOIDataset:
    """A train/test split of :class:`HOISequences`.

    Examples
    --------
    >>> d = hoi_dataset("mocap", n=20, T=16, rng=0)
    >>> d
    HOIDataset(train=16, test=4, T=16, source='mocap')
    """

    train: HOISequences
    test: HOISequences
    source: str = "mocap"

    def __post_init__(self):
        for nm in ("train", "test"):
            if not isinstance(getattr(self, nm), _SequenceSet):
                raise InputError(nm, f"got {type(getattr(self, nm)).__name__}",
                                 "HOISequences or PlanarHOISequences (from_arrays, hoi_dataset, planar_hoi)")
        if type(self.train) is not type(self.test):
            raise InputError("test", f"is {type(self.test).__name__} but train is {type(self.train).__name__}",
                             "train and test sets of one kind")
        if self.train.T != self.test.T:
            raise InputError("test", f"has {self.test.T} frames per sequence, train {self.train.T}",
                             "train and test sequences of one length")
        if not isinstance(self.source, str):
            raise InputError("source", f"got {self.source!r}", "a string naming where the data came from")

    def __repr__(self):
        return f"HOIDataset(train={len(self.train)}, test={len(self.test)}, T={self.train.T}, source={self.source!r})"

    def summary(self) -> str:
        """Two lines: the train and test sets."""
        return f"train: {self.train.summary()}\ntest: {self.test.summary()}"

    def to_dict(self) -> dict:
        """``{"train": ..., "test": ..., "source": ...}``."""
        return {"train": self.train.to_dict(), "test": self.test.to_dict(), "source": self.source}


@functools.lru_cache(maxsize=None)
def _clip_positions(name: str):
    from iclr26sci.geom import deepmimic_forward_kinematics

    m = deepmimic_forward_kinematics(name)
    idx = [m.bodies.index(b) for b in (*_BODY, *_HANDS)]
    return m.times.copy(), m.positions[:, idx].copy()


def _resample(times, pos, t):
    """Linear interpolation of (n, J, 3) positions at times ``t``."""
    k = np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)
    w = ((t - times[k]) / np.maximum(times[k + 1] - times[k], 1e-9))[:, None, None]
    return (1 - w) * pos[k] + w * pos[k + 1]


def _check_kinds(objects):
    if isinstance(objects, str):
        if objects == "shape_spectrum":
            return OBJECT_KINDS
        if objects == "boxes":
            return ("box",)
        if objects in OBJECT_KINDS:
            return (objects,)
        raise InputError("objects", f"got {objects!r}", f"'shape_spectrum', 'boxes' or a tuple of kinds from {OBJECT_KINDS}")
    if isinstance(objects, (tuple, list)) and objects and all(isinstance(k, str) and k in OBJECT_KINDS for k in objects):
        return tuple(objects)
    if isinstance(objects, (tuple, list)) and objects and all(isinstance(k, HOIObject) for k in objects):
        return tuple(objects)
    raise InputError("objects", f"got {objects!r}", f"'shape_spectrum', 'boxes' or a tuple of kinds from {OBJECT_KINDS}")


def hoi_dataset(source="mocap", *, objects="shape_spectrum", n=1000, T=16, fps=12.0, clips=None,
                test_fraction=0.2, rng=None) -> HOIDataset:
    r"""Interaction sequences: real DeepMimic motion capture with composed object carrying and contact labels.

    Each sequence: a clip window of ``T`` frames at ``fps`` (random start), centred on the ground and turned by a
    random yaw; a random hand (right/left) grasps an object of a random kind from ``objects`` at frame
    :math:`T/4 \pm 2` and releases it at :math:`3T/4 \pm 2`. The object is placed so that the wrist touches its
    surface (at the object's -x side, which faces the body) and translates rigidly with the wrist while held.
    Caption: ``"{action} holding the {object} in the {side} hand"``.

    Parameters
    ----------
    source : {"mocap"}
        The body-motion source (real DeepMimic clips from ``pybullet_data``; needs ``pip install pybullet``).
    objects : {"shape_spectrum", "boxes"}, tuple of kinds, or list of HOIObject
        Which object families to compose: all of box, cylinder and chair with random sizes (the shape
        spectrum), boxes only, the given kinds, or a fixed list of objects (e.g. :func:`mesh_object` meshes).
    n : int
        Number of sequences (train + test).
    T : int >= 8
        Frames per sequence.
    fps : float
        Frame rate after resampling (the clips are recorded at 30-60 fps).
    clips : sequence of str, optional
        DeepMimic clip names (default: :data:`MOCAP_CLIPS`).
    test_fraction : float in (0, 1)
        Share of sequences held out as ``test``.
    rng : seed or Generator

    Returns
    -------
    HOIDataset

    Examples
    --------
    >>> d = hoi_dataset("mocap", n=10, T=16, rng=0)
    >>> d.train.body.shape, d.train.text[0]
    ((8, 16, 39), 'do a backflip holding the box in the left hand')
    """
    check_option(source, "source", ("mocap",))
    kinds = _check_kinds(objects)
    n = check_positive_int(n, "n", minimum=2)
    T = check_positive_int(T, "T", minimum=8)
    fps = check_in_range(fps, "fps", 1.0, 240.0)
    test_fraction = check_in_range(test_fraction, "test_fraction", 0.0, 1.0, low_open=True, high_open=True)
    if clips is None:
        clips = tuple(MOCAP_CLIPS)
    if isinstance(clips, str) or not clips or any(c not in MOCAP_CLIPS for c in clips):
        raise InputError("clips", f"got {clips!r}", f"a non-empty sequence of clip names from {list(MOCAP_CLIPS)}")
    g = as_generator(rng)
    span = (T - 1) / fps
    for c in clips:
        if _clip_positions(c)[0][-1] < span:
            raise InputError("T", f"a window of {T} frames at {fps:g} fps ({span:.2f} s) is longer than clip {c!r} "
                             f"({_clip_positions(c)[0][-1]:.2f} s)", "a smaller T or a higher fps")
    B, H, O, texts, objs, used_clips = [], [], [], [], [], []
    for _ in range(n):
        c = clips[int(g.integers(len(clips)))]
        times, pos = _clip_positions(c)
        t0 = g.uniform(0, times[-1] - span)
        P = _resample(times, pos, t0 + np.arange(T) / fps)
        P = P - np.array([P[0, 0, 0], 0.0, P[0, 0, 2]])
        P = P @ yaw_matrix(g.uniform(-np.pi, np.pi)).T
        side = int(g.integers(2))
        hand = P[:, len(_BODY) + side]
        a = int(np.clip(round(T / 4) + g.integers(-2, 3), 1, T - 3))
        b = int(np.clip(round(3 * T / 4) + g.integers(-2, 3), a + 1, T - 1))
        pick = kinds[int(g.integers(len(kinds)))]
        obj = pick if isinstance(pick, HOIObject) else sample_object(pick, g)
        u = hand[a] - P[a, 0]
        u[1] = 0.0
        nu = np.linalg.norm(u)
        u = u / nu if nu > 1e-6 else np.array([1.0, 0.0, 0.0])
        R = yaw_matrix(np.arctan2(-u[2], u[0]))
        s = obj.contact_offset()
        centre = hand + s * u
        centre[:a] = centre[a]
        centre[b + 1:] = centre[b]
        B.append(P[:, :len(_BODY)].reshape(T, -1))
        H.append(P[:, len(_BODY):].reshape(T, -1))
        O.append(np.concatenate([centre, np.tile(rot6d_from_matrix(R), (T, 1))], 1))
        texts.append(f"{MOCAP_CLIPS[c]} holding the {obj.name} in the {('right', 'left')[side]} hand")
        objs.append(obj)
        used_clips.append(c)
    Bn, Hn, On = np.stack(B), np.stack(H), np.stack(O)
    contact = contact_distance(Hn, On, objs) < CONTACT_EPS
    full = HOISequences(Bn, Hn, On, texts, objs, contact, float(fps), used_clips)
    n_test = max(1, int(round(test_fraction * n)))
    perm = g.permutation(n)
    return HOIDataset(full.subset(np.sort(perm[n_test:])), full.subset(np.sort(perm[:n_test])), "mocap")


def contact_distance(hands, obj, objects) -> np.ndarray:
    r"""Distance from the nearest wrist to the object surface per frame, :math:`\min_h \phi(R_t^\top(w_{h,t}-c_t))`.

    ``hands`` (N, T, 6) (or (N, T, 3 H): the nearest of H hand joints), ``obj`` (N, T, 9), ``objects`` a list of N :class:`HOIObject`; returns (N, T) (negative:
    inside the object).
    """
    return joint_surface_distance(hands, obj, objects).min(-1)


def joint_surface_distance(hands, obj, objects) -> np.ndarray:
    r"""Signed distance of every hand joint to the object surface, (N, T, H) for ``hands`` (N, T, 3 H)."""
    hands = np.asarray(hands, dtype=np.float64)
    obj = np.asarray(obj, dtype=np.float64)
    N, T = hands.shape[:2]
    H = hands.shape[2] // 3
    c, R = obj[..., :3], matrix_from_rot6d(obj[..., 3:9])
    out = np.empty((N, T, H))
    for i in range(N):
        w = hands[i].reshape(T, H, 3) - c[i][:, None, :]
        local = np.einsum("tji,thj->thi", R[i], w)
        out[i] = objects[i].sdf(local)
    return out


def motion_features(seqs: HOISequences) -> np.ndarray:
    """Hand-crafted per-sequence features for the Frechet distance (the FID analogue) and diversity.

    Per sequence: the wrist-to-surface distance curve (T, clipped at 0.5 m), the object's displacement from its
    first frame (T), the root height (T) and the mean speed of each joint (15 for DeepMimic).

    Examples
    --------
    >>> motion_features(hoi_dataset("mocap", n=4, T=8, fps=10, rng=0).train).shape
    (3, 39)
    """
    if not isinstance(seqs, HOISequences):
        raise InputError("seqs", f"got {type(seqs).__name__}", "HOISequences")
    d = np.clip(contact_distance(seqs.hands, seqs.object, seqs.objects), -0.5, 0.5)
    disp = np.linalg.norm(seqs.object[..., :3] - seqs.object[:, :1, :3], axis=-1)
    r = seqs.layout.root_feature
    root_h = seqs.body[..., r + 1]
    J = np.concatenate([seqs.body, seqs.hands], -1).reshape(len(seqs), seqs.T, -1, 3)
    speed = np.linalg.norm(np.diff(J, axis=1), axis=-1).mean(1) * seqs.fps
    return np.concatenate([d, disp, root_h, speed], 1)


def hoi_metrics(gen: HOISequences, ref: HOISequences, *, eps: float = CONTACT_EPS) -> dict:
    r"""Interaction metrics of generated sequences against their references (same captions and objects).

    - contact precision / recall / F1: frames with the generated wrist within ``eps`` of the surface vs the
      reference's contact labels, pooled over all frames;
    - penetration: share of frames with a wrist more than 2 cm inside the object;
    - floating: share of frame steps where the object moves (faster than 0.1 m/s) with no contact;
    - FID: Frechet distance between :func:`motion_features` of generated and reference sequences;
    - diversity: mean distance between the motion features of two random generated sequences.

    Returns a dict of floats plus ``per_sequence``: (N, 3) counts (true positives, generated contacts,
    reference contacts) for bootstrapping.

    Examples
    --------
    >>> d = hoi_dataset("mocap", n=12, T=16, rng=0)
    >>> m = hoi_metrics(d.test, d.test)
    >>> round(m["contact_f1"], 3), round(m["floating"], 3)
    (1.0, 0.0)
    """
    _check_pair(gen, ref, HOISequences)
    if gen.layout != ref.layout:
        raise InputError("gen", f"has body layout {gen.layout.name!r}, the reference {ref.layout.name!r}",
                         "generated and reference sequences of one skeleton")
    eps = check_in_range(eps, "eps", 0.0, None, low_open=True)
    dist = contact_distance(gen.hands, gen.object, gen.objects)
    pred = dist < eps
    speed = np.linalg.norm(np.diff(gen.object[..., :3], axis=1), axis=-1) * gen.fps
    return _contact_metrics(pred, ref.contact, speed > 0.1, float((dist < -_PEN_DEPTH).mean()),
                            motion_features(gen), motion_features(ref))


def _check_pair(gen, ref, cls):
    """Generated and reference sets: both ``cls``, with the same number of sequences of the same length."""
    if not isinstance(gen, cls) or not isinstance(ref, cls):
        raise InputError("gen", f"got {type(gen).__name__} and {type(ref).__name__}", f"two {cls.__name__}")
    if len(gen) != len(ref) or gen.T != ref.T:
        raise InputError("gen", f"has {len(gen)} x {gen.T}, the reference {len(ref)} x {ref.T}",
                         "as many sequences of the same length as the reference")


def _contact_metrics(pred, gt, moving, penetration, fg, fr) -> dict:
    """Contact precision/recall/F1 of predicted against reference contact (N, T), floating (the object moves
    between frames t and t+1 with contact at neither), the given penetration rate, the Frechet distance and the
    mean pairwise distance (diversity) of the generated motion features ``fg`` against ``fr``."""
    from iclr26sci.nn import frechet_distance

    tp, npred, ngt = (pred & gt).sum(1), pred.sum(1), gt.sum(1)
    P = tp.sum() / max(npred.sum(), 1)
    R = tp.sum() / max(ngt.sum(), 1)
    F1 = 2 * P * R / max(P + R, 1e-12)
    floating = float((moving & ~(pred[:, 1:] | pred[:, :-1])).mean())
    fid = float(frechet_distance(fg, fr)) if len(fg) > 2 else float("nan")
    g = np.random.default_rng(0)
    i, j = g.integers(len(fg), size=(2, 200))
    keep = i != j
    div = float(np.linalg.norm(fg[i[keep]] - fg[j[keep]], axis=1).mean()) if keep.any() else 0.0
    return {"contact_precision": float(P), "contact_recall": float(R), "contact_f1": float(F1),
            "penetration": float(penetration), "floating": floating, "fid": fid, "diversity": div,
            "per_sequence": np.stack([tp, npred, ngt], 1)}


def f1_from_counts(counts) -> float:
    """Pooled contact F1 from per-sequence (tp, predicted, reference) counts."""
    c = np.asarray(counts).sum(0)
    P, R = c[0] / max(c[1], 1), c[0] / max(c[2], 1)
    return float(2 * P * R / max(P + R, 1e-12))
