"""Test-time adaptation baselines and the harness that runs them and PEA on one stream.

Methods (each a small class with ``predict(x) -> logits``, ``n_forward``, ``n_backward``, ``reset()``):

- ``"none"`` -- :class:`NoAdapt`, the source model;
- ``"bn"`` -- :class:`BNAdapt`, BatchNorm with the test batch's statistics (Schneider et al. 2020; Nado et al.);
- ``"tent"`` -- :class:`Tent`, one SGD step per batch on the mean prediction entropy over the normalisation
  layers' affine parameters, BatchNorm in batch-statistics mode (Wang et al., ICLR 2021);
- ``"t3a"`` -- :class:`T3A`, classifier prototypes from low-entropy test features (Iwasawa and Matsuo, NeurIPS 2021);
- ``"lame"`` -- :class:`LAME`, Laplacian-regularised output correction over a kNN graph (Boudiaf et al., CVPR 2022);
- ``"foa"`` -- :class:`FOALite`, CMA-ES over prompt tokens of a ViT with an entropy + activation-statistics
  fitness and a back-to-source shift of the final class token (Niu et al., ICML 2024); token models only;
- ``"neo"`` -- :class:`NEO`, re-centring of the head's input embedding on the source mean (arXiv 2510.05635);
- ``"pea"``, ``"pea-mv"``, ``"pea-switch"``, ``"pea-1pass"`` -- :class:`~iclr26sci.adaptation.PEAAdapter`
  with CORAL, mean-variance, the switching rule, or the one-pass variant.

:func:`compare` runs the chosen methods on the same stream, each from the same source model (deep copies
for the methods that change it), and reports accuracy and ECE per domain, wall and CPU time per batch, the
peak resident-memory increase, and forward / backward counts.
"""
from __future__ import annotations

import copy
import ctypes
import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn as tnn
import torch.nn.functional as F

from iclr26sci.core import (InputError, check_bool, check_in_range, check_positive_int, check_rng, progress as _bar,
                            resolve_progress)
from iclr26sci.nn._checks import check_labels, check_model_input, check_module, forward_errors

from ._pea import PEAAdapter, entropy
from ._stats import SourceStats, find_head, model_signature, to_batch

METHODS = ("none", "bn", "tent", "t3a", "lame", "foa", "neo", "pea", "pea-mv", "pea-switch", "pea-1pass")
_NORMS = (tnn.BatchNorm1d, tnn.BatchNorm2d, tnn.BatchNorm3d, tnn.LayerNorm, tnn.GroupNorm)
_BN = (tnn.BatchNorm1d, tnn.BatchNorm2d, tnn.BatchNorm3d)


def _check_stats(stats, model, *, required=True):
    """A fitted SourceStats of ``model`` (the same weights), or None when not required and not given."""
    if stats is None and not required:
        return None
    if not isinstance(stats, SourceStats):
        raise InputError("stats", f"got {type(stats).__name__}", "a SourceStats fitted on this model")
    if not hasattr(stats, "mean_"):
        raise InputError("stats", "is an unfitted SourceStats", "SourceStats.fit(model, clean_data) first")
    if model_signature(model) != stats.model_signature_:
        raise InputError("stats", "were fitted on another model (its weights differ from this model's)",
                         "SourceStats.fit(this_model, clean_data)")
    return stats


def _check_x(x, model, stats=None, name="x"):
    """One test batch, checked against the input shape of the statistics (or the model's first layer)."""
    x = to_batch(x, name)
    if stats is not None and getattr(stats, "input_shape_", None) is not None:
        want = tuple(stats.input_shape_)
        if tuple(x.shape[1:]) != want:
            raise InputError(name, f"has inputs of shape {tuple(x.shape[1:])}",
                             f"inputs of shape {want} (as in SourceStats.fit)")
    else:
        check_model_input(model, x, name)
    return x


def _forward(model, x, name="x"):
    with forward_errors(name, "the model"):
        return model(x)


def _batch_stat_bn(model):
    """Put every BatchNorm in batch-statistics mode (no running statistics); returns how many."""
    k = 0
    for m in model.modules():
        if isinstance(m, _BN):
            m.train()
            m.track_running_stats = False
            m.running_mean = None
            m.running_var = None
            k += 1
    return k


class NoAdapt:
    """The source model, unchanged (one forward per batch)."""

    name = "none"

    def __init__(self, model, stats=None):
        self.model = check_module(model)
        self.stats = _check_stats(stats, model, required=False)
        self.n_forward = self.n_backward = 0

    def reset(self):
        pass

    def predict(self, x):
        x = _check_x(x, self.model, self.stats)
        with torch.no_grad():
            out = _forward(self.model, x)
            self.n_forward += 1
            return out


class BNAdapt(NoAdapt):
    """BatchNorm layers normalise with the test batch's statistics (no source prior); a copy of the model."""

    name = "bn"

    def __init__(self, model, stats=None):
        check_module(model)
        stats = _check_stats(stats, model, required=False)
        super().__init__(copy.deepcopy(model).eval())
        self.stats = stats
        self.n_bn = _batch_stat_bn(self.model)


class Tent:
    """Tent: SGD (lr, momentum 0.9) on the mean softmax entropy over the norm layers' affine parameters."""

    name = "tent"

    def __init__(self, model, stats=None, lr=1e-3, momentum=0.9):
        self._source = check_module(model)
        self.stats = _check_stats(stats, model, required=False)
        self.lr = check_in_range(lr, "lr", 0.0, None, low_open=True)
        self.momentum = check_in_range(momentum, "momentum", 0.0, 1.0, high_open=True)
        self.reset()

    def reset(self):
        self.model = copy.deepcopy(self._source).eval()
        _batch_stat_bn(self.model)
        params = []
        for p in self.model.parameters():
            p.requires_grad_(False)
        for m in self.model.modules():
            if isinstance(m, _NORMS):
                for p in (getattr(m, "weight", None), getattr(m, "bias", None)):
                    if isinstance(p, torch.Tensor) and p is not None:
                        p.requires_grad_(True)
                        params.append(p)
        if not params:
            raise InputError("model", "has no BatchNorm / LayerNorm / GroupNorm affine parameters", "a model with norm layers for Tent")
        self.opt = torch.optim.SGD(params, lr=self.lr, momentum=self.momentum)
        self.n_forward = getattr(self, "n_forward", 0)
        self.n_backward = getattr(self, "n_backward", 0)

    def predict(self, x):
        x = _check_x(x, self.model, self.stats)
        with torch.enable_grad():
            out = _forward(self.model, x)
            loss = entropy(out).mean()
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()
        self.n_forward += 1
        self.n_backward += 1
        return out.detach()


class _HeadTap:
    """Reads (and optionally replaces) the classifier head's input with a forward pre-hook."""

    def __init__(self, model):
        name, head = find_head(model)
        if head is None:
            raise InputError("model", "has no Linear classifier head", "a model whose last layer is an nn.Linear")
        self.head, self.z, self.shift = head, None, None

        def pre(_m, inp):
            z = inp[0]
            if self.shift is not None:
                z = z + self.shift.to(z.dtype)
            self.z = z.detach()
            return (z,) + tuple(inp[1:]) if self.shift is not None else None
        self.handle = head.register_forward_pre_hook(pre)


class T3A:
    """T3A: per-class supports (head weight rows, then the ``filter_K`` lowest-entropy test features)."""

    name = "t3a"

    def __init__(self, model, stats=None, filter_K=20):
        self.model = check_module(model)
        self.stats = _check_stats(stats, model, required=False)
        self.filter_K = check_positive_int(filter_K, "filter_K", minimum=0)
        self.tap = _HeadTap(model)
        self.n_forward = self.n_backward = 0
        self.reset()

    def reset(self):
        with torch.no_grad():
            W = self.tap.head.weight.detach().clone()
            p = F.linear(W, self.tap.head.weight, self.tap.head.bias)
        self.supports = W
        self.labels = F.one_hot(p.argmax(1), W.shape[0]).to(W.dtype)
        self.ent = entropy(p).to(W.dtype)

    def predict(self, x):
        x = _check_x(x, self.model, self.stats)
        with torch.no_grad():
            p = _forward(self.model, x)
            self.n_forward += 1
            z = self.tap.z.reshape(p.shape[0], -1)
            c = p.shape[1]
            self.supports = torch.cat([self.supports, z])
            self.labels = torch.cat([self.labels, F.one_hot(p.argmax(1), c).to(z.dtype)])
            self.ent = torch.cat([self.ent, entropy(p).to(z.dtype)])
            if self.filter_K > 0:  # keep the filter_K lowest-entropy supports of each class
                y = self.labels.argmax(1)
                keep = []
                for k in range(c):
                    idx = torch.nonzero(y == k).flatten()
                    keep.append(idx[torch.argsort(self.ent[idx])[:self.filter_K]])
                keep = torch.cat(keep)
                self.supports, self.labels, self.ent = self.supports[keep], self.labels[keep], self.ent[keep]
            w = F.normalize(self.supports, dim=1).T @ self.labels
            return z @ F.normalize(w, dim=0)


class LAME:
    """LAME: ``Y <- softmax(log p + W Y)`` (at most 100 iterations) over a k-NN graph of L2-normalised features."""

    name = "lame"

    def __init__(self, model, stats=None, knn=5, max_iter=100):
        self.model = check_module(model)
        self.stats = _check_stats(stats, model, required=False)
        self.knn = check_positive_int(knn, "knn")
        self.max_iter = check_positive_int(max_iter, "max_iter")
        self.tap = _HeadTap(model)
        self.n_forward = self.n_backward = 0

    def reset(self):
        pass

    def predict(self, x):
        x = _check_x(x, self.model, self.stats)
        with torch.no_grad():
            logits = _forward(self.model, x)
            self.n_forward += 1
            n = logits.shape[0]
            z = F.normalize(self.tap.z.reshape(n, -1).double(), dim=1)
            logp = torch.log_softmax(logits.double(), 1)
            if n < 2:
                return logits
            k = min(self.knn, n - 1)
            d = torch.cdist(z, z)
            d.fill_diagonal_(float("inf"))
            nn_idx = d.topk(k, dim=1, largest=False).indices
            W = torch.zeros(n, n, dtype=torch.float64).scatter_(1, nn_idx, 1.0)
            Y = logp.exp()
            old = None
            for _ in range(self.max_iter):
                Y = torch.softmax(logp + W @ Y, dim=1)
                energy = float(-(Y * logp).sum() - 0.5 * (Y * (W @ Y)).sum() + (Y * torch.log(Y.clamp_min(1e-30))).sum())
                if old is not None and abs(energy - old) <= 1e-8 * max(1.0, abs(old)):
                    break
                old = energy
            return torch.log(Y.clamp_min(1e-30)).to(logits.dtype)


class NEO:
    """NEO: the head's input ``z`` becomes ``z - mean_t + mean_s`` (running mean of all test embeddings so far)."""

    name = "neo"

    def __init__(self, model, stats):
        check_module(model)
        self.stats = _check_stats(stats, model)
        if stats.head_mean_ is None:
            raise InputError("stats", "have no head-input mean (no Linear head was found)", "a model with an nn.Linear head")
        self.model, self.mu_s = model, stats.head_mean_
        self.tap = _HeadTap(model)
        self.n_forward = self.n_backward = 0
        self.reset()

    def reset(self):
        self.sum, self.n = None, 0

    def predict(self, x):
        with torch.no_grad():
            self.tap.shift = None
            x = _check_x(x, self.model, self.stats)
            _forward(self.model, x)  # records z (the head's input); the head is linear, so the shift can be applied after
            self.n_forward += 1
            z = self.tap.z.reshape(x.shape[0], -1).double()
            self.sum = z.sum(0) if self.sum is None else self.sum + z.sum(0)
            self.n += z.shape[0]
            shift = self.mu_s - self.sum / self.n
            return F.linear((z + shift).to(self.tap.head.weight.dtype), self.tap.head.weight, self.tap.head.bias)


class FOALite:
    """FOA-lite: CMA-ES (``cma``) over ``n_prompts`` prompt tokens inserted after the class token of a ViT.

    Fitness of a candidate on the batch: the summed prediction entropy plus ``lam * B / 64`` times the sum over
    the hooked blocks of ``||std_b - std_s||^2 + ||mean_b - mean_s||^2`` of the class tokens; the prediction uses
    the generation's best candidate, with the final class token shifted by ``mean_s - EMA_t`` (EMA 0.9 / 0.1).
    """

    name = "foa"

    def __init__(self, model, stats, n_prompts=3, sigma0=0.1, lam=0.4, popsize=None, rng=0):
        check_module(model)
        stats = _check_stats(stats, model)
        n_prompts = check_positive_int(n_prompts, "n_prompts")
        sigma0 = check_in_range(sigma0, "sigma0", 0.0, None, low_open=True)
        lam = check_in_range(lam, "lam", 0.0, None)
        if popsize is not None:
            popsize = check_positive_int(popsize, "popsize", minimum=2)
        check_rng(rng)
        if not isinstance(rng, (int, np.integer)) or isinstance(rng, bool):
            raise InputError("rng", f"got {type(rng).__name__}", "a non-negative integer seed of CMA-ES")
        try:
            import cma
        except ImportError as exc:  # pragma: no cover
            raise ImportError('FOA-lite needs the cma package: pip install cma (in the "vision" extra)') from exc
        self._cma = cma
        tok = [i for i, k in enumerate(stats.kinds_) if k == "tokens"]
        if not tok:
            raise InputError("model", "has no token (B, N, D) blocks", "a ViT-like model for FOA-lite (token features)")
        if stats.head_mean_ is None:
            raise InputError("stats", "have no head-input mean", "a model with an nn.Linear head")
        self.model, self.stats = model, stats
        self.tok = tok
        named = dict(model.named_modules())
        self.blocks = [named[stats.module_names_[i]] for i in tok]
        self.d = stats.dims_[tok[0]]
        self.n_prompts, self.sigma0, self.lam = n_prompts, sigma0, lam
        self.dim = n_prompts * self.d
        self.popsize = int(4 + 3 * math.log(self.dim)) if popsize is None else popsize
        self.rng = rng
        self.tap = _HeadTap(model)
        self.n_forward = self.n_backward = 0
        self.prompt = None
        self._cls = []

        def insert(_m, inp):
            if self.prompt is None:
                return None
            z = inp[0]
            p = self.prompt.to(z.dtype).unsqueeze(0).expand(z.shape[0], -1, -1)
            return (torch.cat([z[:, :1], p, z[:, 1:]], dim=1),) + tuple(inp[1:])

        def record(_m, _inp, out):
            self._cls.append(out[:, 0, :].double())

        self.blocks[0].register_forward_pre_hook(insert)
        for b in self.blocks:
            b.register_forward_hook(record)
        self.reset()

    def reset(self):
        self.es = self._cma.CMAEvolutionStrategy(np.zeros(self.dim), self.sigma0,
                                                 {"popsize": self.popsize, "seed": int(self.rng) + 1, "verbose": -9})
        self.ema = None

    def _fitness(self, logits):
        b = logits.shape[0]
        ent = float(entropy(logits).sum())
        pen = 0.0
        for c, i in zip(self._cls, self.tok):
            mu_s, var_s = self.stats.cls_mean_[i], self.stats.cls_var_[i]
            pen += float(((c.std(0, unbiased=False) - var_s.sqrt()) ** 2).sum() + ((c.mean(0) - mu_s) ** 2).sum())
        return ent + self.lam * b / 64 * pen

    def predict(self, x):
        x = _check_x(x, self.model, self.stats)
        with torch.no_grad():
            self.tap.shift = None
            sols, fits, zs = self.es.ask(), [], []
            for s in sols:
                self.prompt = torch.as_tensor(np.asarray(s), dtype=torch.float32).reshape(self.n_prompts, self.d)
                self._cls = []
                out = self.model(x)
                self.n_forward += 1
                fits.append(self._fitness(out))
                zs.append(self.tap.z.reshape(x.shape[0], -1).double())
            self.es.tell(sols, fits)
            self.prompt = None
            z = zs[int(np.argmin(fits))]
            mb = z.mean(0)
            self.ema = mb if self.ema is None else 0.9 * self.ema + 0.1 * mb
            zs_ = z + (self.stats.head_mean_ - self.ema)
            return F.linear(zs_.to(self.tap.head.weight.dtype), self.tap.head.weight, self.tap.head.bias)


class _PEA:
    def __init__(self, model, stats, **kw):
        self.a = PEAAdapter(model, stats, **kw)

    @property
    def n_forward(self):
        return self.a.n_forward_

    @property
    def n_backward(self):
        return self.a.n_backward_

    def reset(self):
        self.a.reset()

    def predict(self, x):
        return self.a.predict(x)


def _build(method, model, stats, pea_kwargs, rng):
    kw = dict(pea_kwargs or {})
    if method == "none":
        return NoAdapt(model)
    if method == "bn":
        return BNAdapt(model)
    if method == "tent":
        return Tent(model)
    if method == "t3a":
        return T3A(copy.deepcopy(model).eval())
    if method == "lame":
        return LAME(copy.deepcopy(model).eval())
    if method == "neo":
        return NEO(copy.deepcopy(model).eval(), stats)
    if method == "foa":
        return FOALite(copy.deepcopy(model).eval(), stats, rng=rng)
    if method == "pea":
        return _PEA(model, stats, **kw)
    if method == "pea-mv":
        return _PEA(model, stats, **{**kw, "alignment": "mv"})
    if method == "pea-switch":
        return _PEA(model, stats, **{**kw, "alignment": "switch"})
    if method == "pea-1pass":
        return _PEA(model, stats, **{**kw, "one_pass": True})
    raise AssertionError(method)


def ece(probs: np.ndarray, labels: np.ndarray, n_bins: int = 15) -> float:
    r"""Expected calibration error with ``n_bins`` equal-width confidence bins: :math:`\sum_b \frac{n_b}{n}|acc_b - conf_b|`.

    Examples
    --------
    >>> import numpy as np
    >>> round(ece(np.array([[0.9, 0.1], [0.8, 0.2]]), np.array([0, 1])), 3)
    0.45
    """
    from iclr26sci.core import check_probability_vector

    probs = check_probability_vector(probs, "probs", atol=1e-6)
    if probs.ndim != 2:
        raise InputError("probs", f"has shape {probs.shape}", "an (n, n_classes) matrix of probabilities")
    if probs.shape[0] == 0:
        raise InputError("probs", "has 0 rows", "at least one prediction")
    if np.any(probs > 1 + 1e-6):
        raise InputError("probs", f"has entries above 1 (max {probs.max():g})", "probabilities in [0, 1]")
    labels = check_labels(labels, "labels", n_classes=probs.shape[1], n=probs.shape[0])
    n_bins = check_positive_int(n_bins, "n_bins")
    conf = probs.max(1)
    pred = probs.argmax(1)
    correct = (pred == labels).astype(float)
    edges = np.linspace(0, 1, n_bins + 1)
    b = np.clip(np.digitize(conf, edges[1:-1], right=True), 0, n_bins - 1)
    tot = 0.0
    for k in range(n_bins):
        m = b == k
        if m.any():
            tot += m.mean() * abs(correct[m].mean() - conf[m].mean())
    return float(tot)


def _rss_mb(field_name):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:  # pragma: no cover
        return float("nan")
    return float("nan")


def _reset_peak():
    """Return memory to the OS (``malloc_trim``) and reset the peak-RSS mark (``/proc/self/clear_refs`` = 5)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:  # pragma: no cover
        pass
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:  # pragma: no cover
        return False


@dataclass(frozen=True)
class CompareResult:
    """Per-method and per-domain results of :func:`compare`.

    ``rows``: one dict per (method, domain) with ``accuracy``, ``ece``, ``n``; ``methods``: one dict per method
    with the mean accuracy and ECE over domains (``accuracy``, ``ece``), the pooled accuracy, seconds of wall
    and CPU time per batch, ``peak_mb`` (peak resident-memory increase over the RSS before the run, MiB;
    NaN where the peak mark cannot be reset), ``forward_per_batch``, ``backward_per_batch``, and ``note``.

    Examples
    --------
    >>> r = CompareResult(rows=[], methods={"none": {"accuracy": 0.5, "ece": 0.1}}, n_batches=0, domains=[])
    >>> r
    CompareResult(1 methods, 0 domains, 0 batches)
    """

    rows: list
    methods: dict
    n_batches: int
    domains: list
    settings: dict = field(default_factory=dict)

    def __repr__(self):
        return f"CompareResult({len(self.methods)} methods, {len(self.domains)} domains, {self.n_batches} batches)"

    def to_dict(self) -> dict:
        """Plain-data copy (lists and dicts)."""
        return {"rows": list(self.rows), "methods": dict(self.methods), "n_batches": self.n_batches,
                "domains": list(self.domains), "settings": dict(self.settings)}

    def summary(self, reference=("none", "tent")) -> str:
        """A text table: per method accuracy, ECE, time per batch, peak memory, forwards / backwards, ratios."""
        lines = [f"{'method':<11s} {'acc %':>6s} {'ECE %':>6s} {'ms/batch':>9s} {'peak MiB':>9s} {'fwd':>5s} {'bwd':>4s}"
                 + "".join(f" {'t/' + r:>8s} {'mem/' + r:>8s}" for r in reference)]
        for m, s in self.methods.items():
            if s.get("accuracy") is None:
                lines.append(f"{m:<11s} n/a ({s.get('note', '')})")
                continue
            row = (f"{m:<11s} {100 * s['accuracy']:6.2f} {100 * s['ece']:6.2f} {1000 * s['sec_per_batch']:9.2f} "
                   f"{s['peak_mb']:9.1f} {s['forward_per_batch']:5.1f} {s['backward_per_batch']:4.1f}")
            for r in reference:
                ref = self.methods.get(r)
                if ref and ref.get("accuracy") is not None:
                    row += f" {s['sec_per_batch'] / ref['sec_per_batch']:8.2f} " \
                           f"{(s['peak_mb'] / ref['peak_mb'] if ref['peak_mb'] > 0 else float('nan')):8.2f}"
                else:
                    row += f" {'-':>8s} {'-':>8s}"
            lines.append(row)
        return "\n".join(lines)

    def domain_table(self, metric="accuracy") -> str:
        """Methods x domains table of ``metric`` (``"accuracy"`` or ``"ece"``), in %."""
        meths = [m for m in self.methods if self.methods[m].get("accuracy") is not None]
        head = f"{'domain':<22s}" + "".join(f" {m:>10s}" for m in meths)
        by = {(r["method"], r["domain"]): r for r in self.rows}
        lines = [head]
        for d in self.domains:
            lines.append(f"{d:<22s}" + "".join(f" {100 * by[(m, d)][metric]:10.2f}" for m in meths))
        return "\n".join(lines)


def compare(model, stats, stream, methods=("none", "bn", "tent", "t3a", "lame", "foa", "neo", "pea"), *,
            pea_kwargs=None, reset_each_domain=False, n_bins=15, rng=0, progress=None, progress_bar=None):
    r"""Run test-time adaptation methods on one stream and tabulate accuracy, calibration and cost.

    Every method starts from the same source model (methods that change weights or BatchNorm modes work on
    deep copies; hook-based ones remove their hooks' effects after each call) and sees the same batches in
    the same order. Per (method, domain): accuracy and expected calibration error (``n_bins`` equal-width
    bins). Per method: the mean over domains, wall and CPU seconds per batch, the peak resident-memory
    increase during its run (``malloc_trim`` then the kernel's peak mark reset through
    ``/proc/self/clear_refs``; MiB over the RSS at its start), and forward / backward passes per batch.

    Parameters
    ----------
    model : torch.nn.Module
        The source classifier (eval mode).
    stats : SourceStats
        Source statistics of ``model`` (PEA, NEO, FOA-lite use them).
    stream : iterable of batches
        E.g. a :class:`~iclr26sci.adaptation.CorruptedStream`; batches with labels (``StreamBatch`` or ``(x, y)``).
    methods : sequence of str
        Keys from ``baselines.METHODS``. ``"foa"`` needs token (ViT) blocks; on other models its row is "n/a".
    pea_kwargs : dict, optional
        Extra :class:`PEAAdapter` arguments for the PEA methods.
    reset_each_domain : bool, default False
        Reset every method when the domain changes (the "each_shift_reset" protocol); default continual.
    n_bins : int, default 15
    rng : int, default 0
        Seed of FOA-lite's CMA-ES.
    progress : bool, optional
        Show a progress bar (default None: only at a terminal or in a notebook, outside CI).
    progress_bar : bool, optional
        Deprecated spelling of ``progress``.

    Returns
    -------
    CompareResult

    Examples
    --------
    >>> import torch, torch.nn as nn
    >>> _ = torch.manual_seed(0)
    >>> net = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2)).eval()
    >>> st = SourceStats.fit(net, torch.randn(100, 4), modules=[net[2]], group_size=None)
    >>> batches = [(torch.randn(16, 4) + 1, torch.randint(0, 2, (16,))) for _ in range(3)]
    >>> r = compare(net, st, batches, methods=["none", "bn", "neo"], progress=False)
    >>> sorted(r.methods), r.methods["bn"]["forward_per_batch"]
    (['bn', 'neo', 'none'], 1.0)
    """
    if not isinstance(model, tnn.Module):
        raise InputError("model", f"got {type(model).__name__}", "a torch.nn.Module classifier")
    if not isinstance(stats, SourceStats) or not hasattr(stats, "mean_"):
        raise InputError("stats", f"got {type(stats).__name__}", "a fitted SourceStats of the model")
    if isinstance(methods, str):
        methods = [methods]
    methods = list(methods)
    if not methods:
        raise InputError("methods", "is empty", f"method keys from {METHODS}")
    for m in methods:
        if m not in METHODS:
            raise InputError("methods", f"holds {m!r}", f"keys from {METHODS}")
    if len(set(methods)) != len(methods):
        raise InputError("methods", "lists a method twice", "each method once")
    if pea_kwargs is not None and not isinstance(pea_kwargs, dict):
        raise InputError("pea_kwargs", f"got {type(pea_kwargs).__name__}", "a dict of PEAAdapter arguments or None")
    if pea_kwargs:
        import inspect

        known = set(inspect.signature(PEAAdapter).parameters) - {"model", "stats"}
        unknown = sorted(set(pea_kwargs) - known)
        if unknown:
            raise InputError("pea_kwargs", f"has {unknown}, which PEAAdapter does not take",
                             "PEAAdapter arguments: " + ", ".join(sorted(known)))
    _check_stats(stats, model)
    reset_each_domain = check_bool(reset_each_domain, "reset_each_domain")
    progress = resolve_progress(progress, progress_bar=progress_bar)
    n_bins = check_positive_int(n_bins, "n_bins")
    check_rng(rng)
    if not isinstance(rng, (int, np.integer)) or isinstance(rng, bool):
        raise InputError("rng", f"got {type(rng).__name__}", "a non-negative integer seed (of FOA-lite's CMA-ES)")
    _, head = find_head(model)
    n_classes = None if head is None else int(head.out_features)
    if not hasattr(stream, "__iter__"):
        raise InputError("stream", f"got {type(stream).__name__}", "an iterable of labelled batches")
    if hasattr(stream, "__len__") and len(stream) == 0:
        raise InputError("stream", "has 0 batches (a stream of size 0)", "at least one labelled batch")
    if model.training:
        import warnings

        warnings.warn("compare: the model was in train mode; it is put in eval mode", UserWarning, stacklevel=2)
        model.eval()
    # materialise the batches once (the same tensors for every method)
    batches = []
    for b in stream:
        if hasattr(b, "images"):
            x, y, dom = b.images, b.labels, [f"{c}-{s}" for c, s in zip(b.corruption, b.severity)]
        elif isinstance(b, (tuple, list)) and len(b) >= 2:
            x, y = b[0], b[1]
            dom = [str(b[2])] * len(y) if len(b) > 2 else ["stream"] * len(y)
        else:
            raise InputError("stream", f"yielded a {type(b).__name__}", "labelled batches: StreamBatch or (x, y[, domain])")
        x = _check_x(x, model, stats, "stream")
        y = torch.from_numpy(check_labels(y, "stream", n_classes=n_classes, n=x.shape[0]))
        batches.append((x, y, dom))
    if not batches:
        raise InputError("stream", "yielded no batches (a stream of size 0)", "at least one labelled batch")
    domains = list(dict.fromkeys(d for _, _, ds in batches for d in ds))
    rows, summ = [], {}
    for m in methods:
        try:
            meth = _build(m, model, stats, pea_kwargs, rng)
        except InputError as exc:
            if m in ("foa", "neo", "t3a", "lame", "tent"):
                summ[m] = {"accuracy": None, "note": f"not applicable: {exc.problem}"}
                continue
            raise
        probs_all, lab_all, dom_all = [], [], []
        _reset_peak()
        rss0 = _rss_mb("VmRSS")
        wall = cpu = 0.0
        last_dom = None
        for x, y, dom in _bar(batches, desc=f"TTA {m}", enabled=progress):
            if reset_each_domain and last_dom is not None and dom[0] != last_dom:
                meth.reset()
            last_dom = dom[0]
            t0, c0 = time.perf_counter(), time.process_time()
            logits = meth.predict(x)
            wall += time.perf_counter() - t0
            cpu += time.process_time() - c0
            if logits.ndim != 2 or int(y.max()) >= logits.shape[1]:
                raise InputError("stream", f"has label {int(y.max())} but the model gives logits of shape "
                                 f"{tuple(logits.shape)}", f"class labels in 0..{logits.shape[-1] - 1}")
            probs_all.append(torch.softmax(logits.double(), 1).numpy())
            lab_all.append(y.numpy())
            dom_all += dom
        peak = _rss_mb("VmHWM") - rss0
        P, Y, D = np.concatenate(probs_all), np.concatenate(lab_all), np.asarray(dom_all)
        accs, eces = [], []
        for d in domains:
            k = D == d
            a = float((P[k].argmax(1) == Y[k]).mean())
            e = ece(P[k], Y[k], n_bins)
            rows.append({"method": m, "domain": d, "accuracy": a, "ece": e, "n": int(k.sum())})
            accs.append(a)
            eces.append(e)
        nb = len(batches)
        summ[m] = {"accuracy": float(np.mean(accs)), "ece": float(np.mean(eces)),
                   "pooled_accuracy": float((P.argmax(1) == Y).mean()), "sec_per_batch": wall / nb,
                   "cpu_sec_per_batch": cpu / nb, "peak_mb": float(max(peak, 0.0)),
                   "forward_per_batch": meth.n_forward / nb, "backward_per_batch": meth.n_backward / nb, "note": ""}
    return CompareResult(rows=rows, methods=summ, n_batches=len(batches), domains=domains,
                         settings={"reset_each_domain": reset_each_domain, "n_bins": n_bins,
                                   "pea_kwargs": dict(pea_kwargs or {}), "threads": torch.get_num_threads()})


__all__ = ["compare", "CompareResult", "ece", "METHODS", "NoAdapt", "BNAdapt", "Tent", "T3A", "LAME", "FOALite", "NEO"]
