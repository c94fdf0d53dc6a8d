r"""LIGHT: text-conditioned human-object interaction generation by diffusion forcing over modalities, with
pace-induced guidance.

Wang, Xu, Guo, Zhou, Gong, Wang, Wang, Gui, "LIGHT: Unleashing Guidance Without Classifiers for Human-Object
Interaction Animation", ICLR 2026 (arXiv:2603.25734; official code github.com/wzyabcas/LIGHT).

The representation is factored into modality tokens per frame (body, hands, object). Training is diffusion
forcing at modality granularity: each modality of a sequence gets its own noise level
:math:`\lambda_m \sim U\{0..K-1\}`, :math:`x^m(\lambda_m) = \sqrt{\bar\alpha(\lambda_m)}x^m_0 + \sqrt{1-\bar\alpha(\lambda_m)}\varepsilon^m`,
and an x0-predicting transformer (:class:`LightDenoiser`; per-token noise-level AdaLN, RoPE over frames, text
cross-attention, object shape code in the AdaLN condition) minimises
:math:`\sum_m w_m \lVert G_\theta(x(\lambda), \lambda, d, P)^m - x^m_0\rVert^2` plus a contact term. Because the
denoiser has seen every combination of levels, at sampling time a cleaner modality can condition a noisier one:
**pace-induced guidance** (:class:`PaceGuidance`, :func:`ddim_sample`) extrapolates the followers' prediction
towards the one made with the leaders taken :math:`\delta` steps further along a unified DDIM pass,
:math:`\tilde x_0 = \hat x_{cur} + \omega_2(\hat x_{pace} - \hat x_{cur}) + \omega_1(\hat x_{cur} - \hat x_\varnothing)`.

Data: :func:`hoi_dataset` composes real DeepMimic motion capture (the body motion is real) with procedural
objects (the interaction is composed); see :mod:`iclr26sci.generative._light_data`. The linear-Gaussian
:class:`LinearGaussianOracle` gives exact posterior means for the checks. Runs on the CPU; every torch step takes
``device=`` (default ``"cpu"``).

Reconstructions (not in the paper text we could read, see docs/light.md): the loss has no foot-contact term;
the text encoder is MiniLM (the paper uses BERT/DistilBERT); the shape code is a 32-point BPS-lite; the default
guidance window is the released ``df_upstop = 470`` of 499 steps scaled to the step count.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import (InputError, as_generator, check_array, check_bool, check_in_range, check_is_fitted,
                            check_option, check_positive_int, resolve_rng)

from ._light_data import (CONTACT_EPS, MODALITIES, HOIDataset, HOISequences, _SequenceSet, contact_distance,  # noqa: F401
                          f1_from_counts, hoi_dataset,
                          hoi_metrics, joint_surface_distance, motion_features)
from ._light_skeleton import BODY_LAYOUTS, BodyLayout, body_layout, split_joints
from ._light_planar import (PLANAR_TASKS, PlanarHOISequences, planar_fingertip, planar_hoi, planar_metrics,
                            planar_shape_augment)
from ._light_objects import OBJECT_KINDS, HOIObject, mesh_object, sample_object
from ._light_oracle import LinearGaussianOracle
from ._light_sample import PaceGuidance, ddim_sample

__all__ = ["LIGHT", "PaceGuidance", "hoi_dataset", "HOISequences", "HOIDataset", "HOIObject", "sample_object", "mesh_object",
           "LinearGaussianOracle", "HOIEvaluation", "hoi_metrics", "motion_features", "ddim_sample",
           "LightDenoiser", "bootstrap_f1_difference", "planar_hoi", "PlanarHOISequences", "planar_metrics",
           "planar_fingertip", "planar_shape_augment", "PLANAR_TASKS", "BodyLayout", "BODY_LAYOUTS", "body_layout",
           "split_joints"]


def __getattr__(name):
    if name == "LightDenoiser":
        from ._light_model import LightDenoiser

        return LightDenoiser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_BOW_DIM = 64


def _bag_of_words(texts):
    """A fast deterministic text code: hashed word counts (64 buckets), unit norm."""
    out = np.zeros((len(texts), _BOW_DIM), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, int(hashlib.md5(w.encode()).hexdigest()[:8], 16) % _BOW_DIM] += 1.0
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def _check_texts(text, n=None):
    texts = [text] if isinstance(text, str) else text
    if not isinstance(texts, (list, tuple)) or not texts:
        raise InputError("text", f"got {type(text).__name__}", "a caption string or a list of captions")
    for t in texts:
        if not isinstance(t, str) or not t.strip():
            raise InputError("text", f"has an empty or non-string caption {t!r}", "non-empty caption strings")
    return list(texts)


def _parse_modalities(modalities):
    if isinstance(modalities, str) or not isinstance(modalities, (tuple, list)) or not modalities:
        raise InputError("modalities", f"got {modalities!r}",
                         "a tuple of token names from 'body', 'hands', 'object' (merge with '+', e.g. 'body+hands')")
    groups = []
    for g in modalities:
        if not isinstance(g, str):
            raise InputError("modalities", f"has a non-string entry {g!r}", "modality names")
        parts = tuple(g.split("+"))
        bad = [p for p in parts if p not in MODALITIES]
        if bad:
            raise InputError("modalities", f"has unknown modality names {bad}", f"names from {list(MODALITIES)}")
        groups.append(parts)
    flat = [p for g in groups for p in g]
    if sorted(flat) != sorted(MODALITIES):
        raise InputError("modalities", f"covers {flat}", f"each of {list(MODALITIES)} exactly once")
    return groups


@dataclass
class HOIEvaluation:
    """Interaction metrics of a model on a test set, with bootstrap confidence intervals.

    Attributes
    ----------
    metrics : dict
        ``contact_precision, contact_recall, contact_f1, penetration, floating, fid, diversity`` and
        ``seconds_per_sequence`` (sampling wall time).
    ci : dict
        ``name -> (low, high)`` percentile bootstrap intervals over test sequences (contact metrics).
    samples : HOISequences
        The generated sequences (one per test sequence).
    counts : ndarray (N, 3)
        Per-sequence (true positive, generated, reference) contact-frame counts.

    Examples
    --------
    >>> ev = HOIEvaluation({"contact_f1": 0.5}, {"contact_f1": (0.4, 0.6)}, None, np.zeros((1, 3)))
    >>> ev
    HOIEvaluation(contact F1 0.500 [0.400, 0.600])
    """

    metrics: dict
    ci: dict
    samples: HOISequences | None
    counts: np.ndarray = field(repr=False, default=None)

    def __post_init__(self):
        if not isinstance(self.metrics, dict) or "contact_f1" not in self.metrics:
            raise InputError("metrics", f"got {type(self.metrics).__name__}", "a dict of metrics with 'contact_f1'")
        if not isinstance(self.ci, dict) or not all(len(v) == 2 for v in self.ci.values()):
            raise InputError("ci", f"got {self.ci!r}", "a dict name -> (low, high)")
        if self.samples is not None and not isinstance(self.samples, _SequenceSet):
            raise InputError("samples", f"got {type(self.samples).__name__}", "HOISequences or None")

    def __repr__(self):
        lo, hi = self.ci.get("contact_f1", (float("nan"), float("nan")))
        return f"HOIEvaluation(contact F1 {self.metrics['contact_f1']:.3f} [{lo:.3f}, {hi:.3f}])"

    def summary(self) -> str:
        """The metrics, one per line, with intervals where computed."""
        lines = []
        for k, v in self.metrics.items():
            ci = self.ci.get(k)
            lines.append(f"{k}: {v:.4f}" + (f" [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else ""))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """``metrics`` and ``ci`` (lists)."""
        return {"metrics": dict(self.metrics), "ci": {k: list(v) for k, v in self.ci.items()}}


def _check_counts(c, name):
    """(N >= 1, 3) non-negative integer (true positive, generated, reference) counts with tp <= generated, reference."""
    a = check_array(c, name, ndim=2, dtype=int)
    if a.shape[1] != 3 or a.shape[0] == 0:
        raise InputError(name, f"has shape {a.shape}", "an (N, 3) array of counts with N >= 1")
    if np.any(a < 0):
        raise InputError(name, f"has negative counts (min {int(a.min())})", "counts >= 0")
    if np.any(a[:, 0] > np.minimum(a[:, 1], a[:, 2])):
        i = int(np.argmax(a[:, 0] > np.minimum(a[:, 1], a[:, 2])))
        raise InputError(name, f"row {i} has {a[i, 0]} true positives with {a[i, 1]} generated and {a[i, 2]} reference "
                         "contacts", "true positives <= min(generated, reference) in every row")
    return a.astype(float)


def bootstrap_f1_difference(counts_a, counts_b, *, n_boot=2000, level=0.95, rng=None):
    r"""Paired percentile-bootstrap interval of :math:`F1_a - F1_b` (pooled contact F1), resampling test sequences.

    ``counts_a``, ``counts_b``: (N, 3) per-sequence (true positive, generated, reference) counts of two samplers on
    the same N test sequences. Returns ``(difference, low, high)``.

    Examples
    --------
    >>> a = np.array([[5, 6, 6], [4, 5, 6], [6, 6, 6]]); b = np.array([[3, 6, 6], [2, 5, 6], [4, 6, 6]])
    >>> d, lo, hi = bootstrap_f1_difference(a, b, n_boot=200, rng=0)
    >>> round(d, 3), lo > 0
    (0.343, True)
    """
    a, b = _check_counts(counts_a, "counts_a"), _check_counts(counts_b, "counts_b")
    if a.shape != b.shape:
        raise InputError("counts_b", f"has shape {b.shape} against {a.shape}", "two (N, 3) count arrays of one shape")
    n_boot = check_positive_int(n_boot, "n_boot")
    level = check_in_range(level, "level", 0.0, 1.0, low_open=True, high_open=True)
    g = as_generator(rng)
    idx = g.integers(len(a), size=(n_boot, len(a)))

    def f1(c):
        s = c[idx].sum(1)
        P, R = s[:, 0] / np.maximum(s[:, 1], 1), s[:, 0] / np.maximum(s[:, 2], 1)
        return 2 * P * R / np.maximum(P + R, 1e-12)

    diff = f1(a) - f1(b)
    q = (1 - level) / 2
    return f1_from_counts(a) - f1_from_counts(b), float(np.quantile(diff, q)), float(np.quantile(diff, 1 - q))


def _planar_tip_torch(body, hands):
    """Differentiable PlanarHOI fingertip from (B, T, 2) body and (B, T, 3) hands tensors (see planar_fingertip)."""
    import torch

    from ._light_planar import _HIP, _L1, _L2, _TORSO

    x, a, t1, t2 = body[..., 0], body[..., 1], hands[..., 0], hands[..., 1]
    fx = x + _TORSO * torch.sin(a) + _L1 * torch.cos(t1) + _L2 * torch.cos(t1 + t2)
    fy = _HIP + _TORSO * torch.cos(a) + _L1 * torch.sin(t1) + _L2 * torch.sin(t1 + t2)
    return torch.stack([fx, fy], -1)


class LIGHT(BaseEstimator):
    r"""Text-to-HOI diffusion forcing over modality tokens, with pace-induced guidance (Wang et al., ICLR 2026).

    Parameters
    ----------
    d_model, n_layers, n_heads : int
        Transformer width, depth and heads (paper: 512, 8, -; CPU miniature: 64-128, 2-4).
    modalities : tuple of str
        The token types per frame; ``"body+hands"`` merges two modalities into one token with one noise level
        (the ablation without hand-body separation).
    K : int
        Number of training noise levels (cosine schedule; paper 500, miniature 100).
    steps : int, optional
        DDIM sampling steps S (default ``K - 1``, as the released code).
    noise_mode : {"independent", "synchronous"}
        Training noise levels: one per modality (diffusion forcing, LIGHT) or one per sequence (ordinary diffusion).
    text_encoder : {"minilm", "bag-of-words"}
        Caption embeddings: the packaged all-MiniLM-L6-v2 (:func:`iclr26sci.nn.embed_texts`) or hashed word counts.
    text_dropout : float in [0, 1)
        Probability of replacing the caption by the learned null embedding in training (CFG; paper 0.1).
    dropout : float
        Transformer dropout (paper 0.1).
    loss_weights : dict, optional
        Per-modality weights of the x0 loss (default body 1, hands 1, object 0.6, as in the released code).
    contact_weight : float
        Weight of the contact term (0.3 in the released code): on ground-truth contact frames the predicted
        wrist-minus-object-centre offset should equal the true one (errors in units of 10 cm).
    lr, batch_size : float, int
        AdamW learning rate and batch size.
    device : str
        Torch device (default "cpu").
    rng : int, optional
        Seed of initialisation, training noise and batches.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Attributes
    ----------
    model_ : LightDenoiser
    groups_ : list of tuple
    history_ : list of float
        Mean training loss per epoch.
    layout_ : BodyLayout or None
        The skeleton of the training data (None for PlanarHOI); samples come back in it.
    n_joints_ : int or None
        Its joint count, inferred from the data (15 DeepMimic; 22, 24, 52, 55 for SMPL body, SMPL, SMPL-H,
        SMPL-X joint positions built with :meth:`HOISequences.from_joints`).

    Examples
    --------
    >>> data = hoi_dataset("mocap", n=24, T=8, fps=10, rng=0)
    >>> m = LIGHT(d_model=16, n_layers=1, n_heads=2, K=20, text_encoder="bag-of-words", rng=0).fit(data, epochs=1)
    >>> seq = m.sample("walk forward holding the box in the right hand", HOIObject("box", (0.1, 0.1, 0.1)), rng=0)
    >>> seq.body.shape
    (1, 8, 39)
    """

    def __init__(self, d_model=128, n_layers=4, n_heads=4, modalities=("body", "hands", "object"), K=100,
                 steps=None, noise_mode="independent", text_encoder="minilm", text_dropout=0.1, dropout=0.1,
                 loss_weights=None, contact_weight=0.3, lr=1e-3, batch_size=64, device="cpu", rng=None,
                 random_state=None):
        self.d_model = d_model
        self.n_layers = n_layers
        self.n_heads = n_heads
        self.modalities = modalities
        self.K = K
        self.steps = steps
        self.noise_mode = noise_mode
        self.text_encoder = text_encoder
        self.text_dropout = text_dropout
        self.dropout = dropout
        self.loss_weights = loss_weights
        self.contact_weight = contact_weight
        self.lr = lr
        self.batch_size = batch_size
        self.device = device
        self.rng = rng
        self.random_state = random_state

    # ----------------------------------------------------------------------------------------- validation
    def _validate(self):
        d = check_positive_int(self.d_model, "d_model", minimum=2)
        h = check_positive_int(self.n_heads, "n_heads")
        if d % h or (d // h) % 2:
            raise InputError("n_heads", f"got {h} heads for d_model={d}", "a divisor of d_model with an even head size")
        check_positive_int(self.n_layers, "n_layers")
        groups = _parse_modalities(self.modalities)
        K = check_positive_int(self.K, "K", minimum=4)
        if self.steps is not None:
            S = check_positive_int(self.steps, "steps", minimum=2)
            if S > K:
                raise InputError("steps", f"got {S}", f"at most K = {K}")
        check_option(self.noise_mode, "noise_mode", ("independent", "synchronous"))
        check_option(self.text_encoder, "text_encoder", ("minilm", "bag-of-words"))
        check_in_range(self.text_dropout, "text_dropout", 0.0, 1.0, high_open=True)
        check_in_range(self.dropout, "dropout", 0.0, 1.0, high_open=True)
        check_in_range(self.contact_weight, "contact_weight", 0.0, None)
        check_in_range(self.lr, "lr", 0.0, None, low_open=True)
        check_positive_int(self.batch_size, "batch_size")
        w = {"body": 1.0, "hands": 1.0, "object": 0.6}
        if self.loss_weights is not None:
            if not isinstance(self.loss_weights, dict) or any(k not in MODALITIES for k in self.loss_weights):
                raise InputError("loss_weights", f"got {self.loss_weights!r}", f"a dict with keys among {list(MODALITIES)}")
            for k, v in self.loss_weights.items():
                w[k] = check_in_range(v, "loss_weights", 0.0, None)
        if not isinstance(self.device, str):
            raise InputError("device", f"got {self.device!r}", "a torch device string such as 'cpu' or 'cuda'")
        import torch

        try:
            dev = torch.device(self.device)
        except (RuntimeError, TypeError, ValueError):
            raise InputError("device", f"got {self.device!r}", "a torch device string such as 'cpu' or 'cuda'") from None
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise InputError("device", f"is {self.device!r} but no CUDA device is available", "'cpu' on this machine")
        return groups, w

    @property
    def names_(self):
        """Token names, e.g. ``("body", "hands", "object")`` or ``("body+hands", "object")``."""
        check_is_fitted(self, "model_", method="names_")
        return tuple("+".join(g) for g in self.groups_)

    # ----------------------------------------------------------------------------------------- features
    def _embed(self, texts):
        uniq = sorted(set(texts))
        if self.text_encoder == "minilm":
            from iclr26sci.nn import embed_texts

            E = embed_texts(uniq)
        else:
            E = _bag_of_words(uniq)
        table = dict(zip(uniq, E))
        return np.stack([table[t] for t in texts]).astype(np.float32)

    def _tokens(self, seqs):
        f = seqs.features()
        return [np.concatenate([(f[p] - self.mean_[p]) / self.std_[p] for p in g], -1).astype(np.float32)
                for g in self.groups_]

    def _shape(self, objects):
        S = np.stack([o.shape_code() for o in objects])
        return ((S - self.shape_mean_) / self.shape_std_).astype(np.float32)

    def _new_module(self):
        from ._light_model import LightDenoiser

        dims = tuple(sum(self.dims_[p] for p in g) for g in self.groups_)
        return LightDenoiser(dims, self.T_, self.K, self.text_dim_, len(self.shape_mean_), d_model=self.d_model,
                             n_layers=self.n_layers, n_heads=self.n_heads, dropout=self.dropout).to(self.device)

    def _prepare(self, data):
        groups, w = self._validate()
        seqs = data.train if isinstance(data, HOIDataset) else data
        if not isinstance(seqs, (HOISequences, PlanarHOISequences)):
            raise InputError("data", f"got {type(data).__name__}",
                             "an HOIDataset (its train split is used), HOISequences or PlanarHOISequences")
        self.planar_ = isinstance(seqs, PlanarHOISequences)
        self.layout_ = None if self.planar_ else seqs.layout
        self.n_joints_ = None if self.planar_ else seqs.layout.n_joints
        self.dims_ = dict(seqs.dims)
        if len(seqs) < 2:
            raise InputError("data", f"has {len(seqs)} sequence", "at least 2 training sequences")
        self.groups_, self.weights_ = groups, w
        f = seqs.features()
        self.mean_ = {k: v.reshape(-1, v.shape[-1]).mean(0) for k, v in f.items()}
        self.std_ = {k: np.maximum(v.reshape(-1, v.shape[-1]).std(0), 1e-3) for k, v in f.items()}
        S = seqs.shape_codes()
        self.shape_mean_, self.shape_std_ = S.mean(0), np.maximum(S.std(0), 1e-3)
        self.T_, self.fps_ = seqs.T, seqs.fps
        self.text_dim_ = 384 if self.text_encoder == "minilm" else _BOW_DIM
        from iclr26sci.nn import DiffusionSchedule

        self.schedule_ = DiffusionSchedule(self.K)
        return seqs

    def _fingerprint(self, seqs, epochs):
        h = hashlib.sha256()
        for a in (seqs.body, seqs.hands, seqs.object):
            h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
        h.update(json.dumps([seqs.text, [o.to_dict() for o in seqs.objects]], sort_keys=True).encode())
        lay = getattr(seqs, "layout", None)
        if lay is not None and lay != BODY_LAYOUTS["deepmimic"]:   # DeepMimic keys stay as they were
            h.update(json.dumps(lay.to_dict(), sort_keys=True).encode())
        p = {k: v for k, v in self.get_params().items() if k not in ("device", "steps")}
        p["modalities"] = list(p["modalities"])
        return {"params": p, "epochs": int(epochs), "data": h.hexdigest()[:16]}

    # ----------------------------------------------------------------------------------------- training
    def fit(self, data, epochs=50, *, cache=False, progress=None):
        """Train the denoiser by diffusion forcing over modalities.

        Parameters
        ----------
        data : HOIDataset or HOISequences
            Training sequences (an HOIDataset's ``train`` split).
        epochs : int
            Passes over the training sequences.
        cache : bool
            Train once and reuse: keep the trained weights in the user cache (:func:`iclr26sci.nn.cached_model`),
            keyed by the parameters, ``epochs`` and a hash of the data.
        progress : bool, optional
            Show a progress bar (default: on a terminal only).

        Returns
        -------
        self
        """
        seqs = self._prepare(data)
        epochs = check_positive_int(epochs, "epochs")
        check_bool(cache, "cache")
        rng = resolve_rng(self.rng, self.random_state)
        seed = 0 if rng is None else check_positive_int(rng, "rng", minimum=0)
        if cache:
            from iclr26sci.nn import cached_model

            def build():
                mod = self._train(seqs, epochs, seed, progress)
                return mod, {"final_loss": float(self.history_[-1])}

            mod, meta = cached_model("light", self._fingerprint(seqs, epochs), seed, build, self._new_module)
            self.model_ = mod.to(self.device).eval()
            self.history_ = getattr(self, "history_", None) or [meta["metrics"]["final_loss"]]
            self.cache_meta_ = meta
        else:
            self.model_ = self._train(seqs, epochs, seed, progress).eval()
        return self

    def _train(self, seqs, epochs, seed, progress):
        import torch

        from iclr26sci.core import progress as bar
        from iclr26sci.nn import q_sample, sample_noise_levels

        torch.manual_seed(seed)
        g = torch.Generator().manual_seed(seed)
        dev = self.device
        mod = self._new_module()
        toks = [torch.as_tensor(t, device=dev) for t in self._tokens(seqs)]
        text = torch.as_tensor(self._embed(seqs.text), device=dev)
        shape = torch.as_tensor(self._shape(seqs.objects), device=dev)
        # ground-truth contact per wrist, for the contact term
        N, T = len(seqs), seqs.T
        if self.planar_:       # one fingertip (forward kinematics of body + arm), planar box centre
            per = seqs.contact[..., None]
            raw_h = torch.as_tensor(planar_fingertip(seqs.body, seqs.hands), dtype=torch.float32, device=dev)
            raw_c = torch.as_tensor(seqs.object[..., :2], dtype=torch.float32, device=dev)
        else:                  # every hand joint (two wrists for DeepMimic; wrists and fingers for SMPL-H/X), 3-D centre
            per = joint_surface_distance(seqs.hands, seqs.object, seqs.objects) < CONTACT_EPS
            raw_h = torch.as_tensor(seqs.hands, dtype=torch.float32, device=dev)
            raw_c = torch.as_tensor(seqs.object[..., :3], dtype=torch.float32, device=dev)
        cw = torch.as_tensor(per, dtype=torch.float32, device=dev)
        nh, cd = cw.shape[-1], raw_c.shape[-1]
        loc = self._locate()
        opt = torch.optim.AdamW(mod.parameters(), lr=self.lr, weight_decay=0.0)
        bs = min(self.batch_size, N)
        n_batches = max(1, N // bs)
        total = epochs * n_batches
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min(1.0, (s + 1) / max(1, total // 20)) * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * s / total))))
        wsum = sum(self.weights_[p] for g_ in self.groups_ for p in g_)
        hist = []
        mod.train()
        for _ in bar(range(epochs), desc="LIGHT fit", total=epochs, enabled=progress):
            perm = torch.randperm(N, generator=g)
            tot = 0.0
            for bi in range(n_batches):
                idx = perm[bi * bs:(bi + 1) * bs].to(dev)
                B = len(idx)
                lv = sample_noise_levels((B, len(toks)), self.K, mode=self.noise_mode, generator=g).to(dev)
                x0 = [t[idx] for t in toks]
                xt = [q_sample(self.schedule_, x0[m], lv[:, m:m + 1],
                               torch.randn(x0[m].shape, generator=g).to(dev)) for m in range(len(toks))]
                null = (torch.rand(B, generator=g) < self.text_dropout).to(dev)
                pred = mod(xt, lv, text[idx], shape[idx], text_null=null)
                loss = 0.0
                for m, grp in enumerate(self.groups_):
                    o = 0
                    for p in grp:
                        D = self.dims_[p]
                        loss = loss + self.weights_[p] * ((pred[m][..., o:o + D] - x0[m][..., o:o + D]) ** 2).mean()
                        o += D
                loss = loss / wsum
                if self.contact_weight > 0:
                    hm, ho = loc["hands"]
                    om, oo = loc["object"]
                    Dh = self.dims_["hands"]
                    ph = pred[hm][..., ho:ho + Dh] * self._std_t("hands", dev) + self._mean_t("hands", dev)
                    pc = pred[om][..., oo:oo + cd] * self._std_t("object", dev)[:cd] + self._mean_t("object", dev)[:cd]
                    if self.planar_:
                        bm, bo = loc["body"]
                        pb = pred[bm][..., bo:bo + 2] * self._std_t("body", dev) + self._mean_t("body", dev)
                        ph = _planar_tip_torch(pb, ph)
                    err = ((ph.reshape(B, T, nh, cd) - pc[:, :, None])
                           - (raw_h[idx].reshape(B, T, nh, cd) - raw_c[idx][:, :, None]))
                    c = cw[idx]
                    lc = ((err / 0.1) ** 2).sum(-1).mul(c).sum() / (cd * c.sum()).clamp(min=1.0)
                    loss = loss + self.contact_weight * lc
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(mod.parameters(), 1.0)
                opt.step()
                sched.step()
                tot += float(loss.detach())
            hist.append(tot / n_batches)
        self.history_ = hist
        return mod.eval()

    def _locate(self):
        out = {}
        for m, grp in enumerate(self.groups_):
            o = 0
            for p in grp:
                out[p] = (m, o)
                o += self.dims_[p]
        return out

    def _mean_t(self, p, dev):
        import torch

        return torch.as_tensor(self.mean_[p], dtype=torch.float32, device=dev)

    def _std_t(self, p, dev):
        import torch

        return torch.as_tensor(self.std_[p], dtype=torch.float32, device=dev)

    # ----------------------------------------------------------------------------------------- sampling
    def _levels(self, steps):
        from iclr26sci.nn import ddim_levels

        S = self.steps if steps is None else steps
        S = self.K - 1 if S is None else check_positive_int(S, "steps", minimum=2)
        if S > self.K:
            raise InputError("steps", f"got {S}", f"at most K = {self.K}")
        return ddim_levels(self.K, S)

    def sample(self, text, obj, guidance=None, *, text_weight=1.0, n=1, steps=None, rng=None, fuse=False):
        r"""Generate interaction sequences for captions and objects.

        Parameters
        ----------
        text : str or list of str
            The caption(s); one string is used for all ``n`` samples.
        obj : HOIObject, str or list
            The object(s): an :class:`HOIObject`, a kind (``"box"``, ``"cylinder"``, ``"chair"``: default sizes) or
            one per sample.
        guidance : PaceGuidance, optional
            Pace-induced guidance (two passes); None samples one synchronous DDIM pass.
        text_weight : float >= 0
            Text CFG weight without ``guidance`` (1: no CFG; with ``guidance`` its ``text_weight`` is used).
        n : int
            Number of samples (when ``text`` and ``obj`` are single).
        steps : int, optional
            DDIM steps (default: the estimator's ``steps``).
        rng : int or Generator, optional
            Seed of the initial noise.
        fuse : bool
            Evaluate the denoiser once per step on all inputs of that step stacked (pass U, pass S, text-dropped
            and pace inputs; :func:`ddim_sample`). The same sampler up to float rounding; faster for a few
            sequences, no faster for a large batch.

        Returns
        -------
        HOISequences
            The generated features (body, hands, object) with contact labels from the contact rule.
        """
        check_is_fitted(self, "model_", method="sample")
        import torch

        texts = _check_texts(text)
        n = check_positive_int(n, "n")
        objs = obj if isinstance(obj, (list, tuple)) else [obj]
        objs = [HOIObject(o) if isinstance(o, str) and o in OBJECT_KINDS else o for o in objs]
        if not objs or not all(isinstance(o, HOIObject) for o in objs):
            raise InputError("obj", f"got {obj!r}", f"an HOIObject, a kind from {OBJECT_KINDS}, or a list of them")
        B = n if n > 1 else max(len(texts), len(objs))
        for what, v in (("text", texts), ("obj", objs)):
            if len(v) not in (1, B):
                raise InputError(what, f"has {len(v)} entries", f"1 or {B} (one per sample)")
        texts = texts * B if len(texts) == 1 else texts
        objs = objs * B if len(objs) == 1 else objs
        if guidance is not None and not isinstance(guidance, PaceGuidance):
            raise InputError("guidance", f"got {type(guidance).__name__}", "a PaceGuidance or None")
        text_weight = check_in_range(text_weight, "text_weight", 0.0, None)
        check_bool(fuse, "fuse")
        levels = self._levels(steps)
        if guidance is not None:
            guidance.resolve(self.names_, len(levels) - 1)
        seed = int(as_generator(rng).integers(2 ** 31 - 1))
        g = torch.Generator().manual_seed(seed)
        dev = self.device
        dims = [sum(self.dims_[p] for p in grp) for grp in self.groups_]
        x_init = [torch.randn((B, self.T_, D), generator=g).to(dev) for D in dims]
        tx = torch.as_tensor(self._embed(texts), device=dev)
        sh = torch.as_tensor(self._shape(objs), device=dev)
        null_on, null_off = torch.ones(B, dtype=torch.bool, device=dev), torch.zeros(B, dtype=torch.bool, device=dev)

        def denoise(xs, lv, null):
            if isinstance(null, bool):
                return self.model_(xs, lv, tx, sh, text_null=null_on if null else null_off)
            k = len(null) // B                                          # fused call: k stacked copies
            return self.model_(xs, lv, tx.repeat(k, 1), sh.repeat(k, 1), text_null=null)

        out = ddim_sample(denoise, x_init, levels, self.schedule_, text_weight=text_weight, guidance=guidance,
                          names=self.names_, fuse=fuse)
        return self._decode([o.cpu().numpy().astype(np.float64) for o in out], texts, objs)

    def _decode(self, toks, texts, objs):
        f = {}
        for m, grp in enumerate(self.groups_):
            o = 0
            for p in grp:
                D = self.dims_[p]
                f[p] = toks[m][..., o:o + D] * self.std_[p] + self.mean_[p]
                o += D
        if self.planar_:
            return PlanarHOISequences.from_arrays(f["body"], f["hands"], f["object"], texts, objs, fps=self.fps_)
        return HOISequences.from_arrays(f["body"], f["hands"], f["object"], texts, objs, fps=self.fps_,
                                        layout=self.layout_)

    def evaluate(self, test, guidance=None, *, text_weight=1.0, steps=None, rng=0, n_boot=1000, level=0.95,
                 fuse=False):
        """Sample one sequence per test caption and object and score it against the test sequence.

        Parameters
        ----------
        test : HOISequences or HOIDataset
            Reference sequences (an HOIDataset's ``test`` split).
        guidance, text_weight, steps, rng, fuse
            As in :meth:`sample`.
        n_boot : int
            Bootstrap resamples of the test sequences for the contact intervals.
        level : float in (0, 1)
            Confidence level.

        Returns
        -------
        HOIEvaluation
        """
        import time

        check_is_fitted(self, "model_", method="evaluate")
        ref = test.test if isinstance(test, HOIDataset) else test
        want = PlanarHOISequences if self.planar_ else HOISequences
        if not isinstance(ref, want):
            raise InputError("test", f"got {type(ref).__name__}", f"{want.__name__} (the kind the model was trained on) "
                             "or an HOIDataset of them")
        if not self.planar_ and ref.layout != self.layout_:
            raise InputError("test", f"has body layout {ref.layout.name!r} ({ref.layout.n_joints} joints)",
                             f"the layout the model was trained on, {self.layout_.name!r} ({self.n_joints_} joints)")
        if ref.T != self.T_:
            raise InputError("test", f"has {ref.T} frames per sequence", f"the {self.T_} frames the model was trained on")
        n_boot = check_positive_int(n_boot, "n_boot")
        level = check_in_range(level, "level", 0.0, 1.0, low_open=True, high_open=True)
        t0 = time.perf_counter()
        gen = self.sample(list(ref.text), list(ref.objects), guidance, text_weight=text_weight, steps=steps, rng=rng,
                          fuse=fuse)
        secs = (time.perf_counter() - t0) / len(ref)
        m = (planar_metrics if self.planar_ else hoi_metrics)(gen, ref)
        counts = m.pop("per_sequence")
        m["seconds_per_sequence"] = secs
        g = np.random.default_rng(0)
        idx = g.integers(len(ref), size=(n_boot, len(ref)))
        s = counts[idx].sum(1).astype(float)
        P, R = s[:, 0] / np.maximum(s[:, 1], 1), s[:, 0] / np.maximum(s[:, 2], 1)
        F = 2 * P * R / np.maximum(P + R, 1e-12)
        q = (1 - level) / 2
        ci = {k: (float(np.quantile(v, q)), float(np.quantile(v, 1 - q)))
              for k, v in (("contact_precision", P), ("contact_recall", R), ("contact_f1", F))}
        return HOIEvaluation(m, ci, gen, counts)
