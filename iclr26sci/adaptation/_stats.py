"""Offline per-block source statistics, gathered with forward hooks on any torch classifier."""
from __future__ import annotations

import functools
import hashlib
import warnings

import numpy as np
import torch
import torch.nn as tnn
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, check_is_fitted, check_option, check_positive_int, progress

from iclr26sci.nn._checks import check_model_input, forward_errors

from ._linalg import diag_blocks, sym_sqrt


# ----------------------------------------------------------------------------------------- helpers
def features_2d(out: torch.Tensor):
    """Feature tensor -> ``(tokens, D)`` rows and its kind: (B,C,H,W) spatial, (B,N,D) tokens, (B,D) vector."""
    if out.ndim == 4:
        return out.permute(0, 2, 3, 1).reshape(-1, out.shape[1]), "spatial"
    if out.ndim == 3:
        return out.reshape(-1, out.shape[2]), "tokens"
    if out.ndim == 2:
        return out, "vector"
    raise InputError("modules", f"a hooked module returned a tensor of shape {tuple(out.shape)}",
                     "modules whose outputs are (B, C, H, W), (B, N, D) or (B, D) tensors")


def restore(Y: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """Inverse of :func:`features_2d` for a tensor shaped like ``like``."""
    if like.ndim == 4:
        b, c, h, w = like.shape
        return Y.reshape(b, h, w, c).permute(0, 3, 1, 2).contiguous()
    return Y.reshape(like.shape)


def model_signature(model: tnn.Module) -> str:
    """Hash of the model's state_dict names, shapes and values (a cheap float64 checksum per tensor)."""
    h = hashlib.sha256()
    with torch.no_grad():
        for k, v in model.state_dict().items():
            h.update(k.encode())
            h.update(str(tuple(v.shape)).encode())
            if v.numel():
                vv = v.detach().double()
                h.update(np.float64(vv.sum().item()).tobytes())
                h.update(np.float64(vv.abs().sum().item()).tobytes())
    return h.hexdigest()[:20]


def find_head(model: tnn.Module):
    """The classifier head: ``model.head`` / ``model.fc`` / ``model.classifier`` if it is a Linear, else the last Linear."""
    for name in ("head", "fc", "classifier"):
        m = getattr(model, name, None)
        if isinstance(m, tnn.Linear):
            return name, m
    last = None
    for name, m in model.named_modules():
        if isinstance(m, tnn.Linear):
            last = (name, m)
    return last if last is not None else (None, None)


def resolve_modules(model, modules):
    """Module list -> ``[(name, module)]`` in the model; ``"auto"`` detects the blocks."""
    if not isinstance(model, tnn.Module):
        raise InputError("model", f"got {type(model).__name__}", "a torch.nn.Module classifier")
    names = {id(m): n for n, m in model.named_modules()}
    by_name = dict(model.named_modules())
    if isinstance(modules, str):
        if modules != "auto":
            if modules in by_name:
                return [(modules, by_name[modules])]
            raise InputError("modules", f"got {modules!r}", "'auto', a list of modules of the model, or their names")
        blocks = getattr(model, "blocks", None)
        if blocks is not None and not isinstance(blocks, tnn.Module) and callable(blocks):
            blocks = blocks()
        if blocks is not None and len(list(blocks)) > 0 and all(isinstance(b, tnn.Module) for b in blocks):
            found = list(blocks)
        else:
            found = []
            for layer in ("layer1", "layer2", "layer3", "layer4"):  # timm / torchvision ResNets
                seq = getattr(model, layer, None)
                if isinstance(seq, tnn.Sequential):
                    found.extend(seq)
            if not found:  # the longest ModuleList of one block class (transformers)
                best = []
                for m in model.modules():
                    if isinstance(m, tnn.ModuleList) and len(m) >= 2 and len({type(c) for c in m}) == 1 \
                            and len(m) > len(best):
                        best = list(m)
                found = best
        if not found:
            raise InputError("modules", "is 'auto' but no blocks were found (no model.blocks, layer1..layer4 "
                             "or ModuleList of blocks)", "an explicit list of the model's modules to align after")
        out = []
        for m in found:
            if id(m) not in names:
                raise InputError("modules", "'auto' found model.blocks entries that are not submodules of the model",
                                 "an explicit list of the model's modules")
            out.append((names[id(m)], m))
        return out
    if isinstance(modules, tnn.Module):
        modules = [modules]
    try:
        modules = list(modules)
    except TypeError:
        raise InputError("modules", f"got {type(modules).__name__}", "'auto' or a list of modules / module names") from None
    if not modules:
        raise InputError("modules", "is empty", "at least one module of the model")
    out, seen = [], set()
    for m in modules:
        if isinstance(m, str):
            if m not in by_name or m == "":
                raise InputError("modules", f"name {m!r} is not a submodule of the model",
                                 "names as listed by model.named_modules()")
            m = by_name[m]
        if not isinstance(m, tnn.Module):
            raise InputError("modules", f"holds a {type(m).__name__}", "torch modules or their names")
        if id(m) not in names or m is model:
            raise InputError("modules", f"holds a {type(m).__name__} that does not belong to the model",
                             "submodules of the model (from model.named_modules())")
        if id(m) in seen:
            raise InputError("modules", f"lists {names[id(m)]!r} twice", "each module once")
        seen.add(id(m))
        out.append((names[id(m)], m))
    return out


def to_batch(x, name="X"):
    """A batch (tensor, ndarray, StreamBatch, or (x, y) tuple) -> float tensor, checked for NaNs."""
    if hasattr(x, "images") and not isinstance(x, (torch.Tensor, np.ndarray)):
        x = x.images
    if isinstance(x, (tuple, list)):
        if len(x) == 0:
            raise InputError(name, "is an empty tuple", "a batch tensor or an (images, labels) pair")
        x = x[0]
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "biuf":
            raise InputError(name, f"has dtype {x.dtype}", "a numeric image batch")
        x = torch.from_numpy(np.ascontiguousarray(x))
    if not isinstance(x, torch.Tensor):
        raise InputError(name, f"got {type(x).__name__}", "a torch tensor or numpy array batch (B, ...)")
    if x.ndim < 2 or x.shape[0] == 0:
        raise InputError(name, f"has shape {tuple(x.shape)}", "a non-empty batch (B, ...) with B >= 1")
    if not x.is_floating_point():
        x = x.float()
    if not bool(torch.isfinite(x).all()):
        raise InputError(name, "contains NaN or infinite values", "finite inputs")
    return x


def ensure_eval(model, who):
    if model.training:
        warnings.warn(f"{who}: the model was in train mode; it is put in eval mode (model.eval()) so that "
                      "BatchNorm uses its running statistics and dropout is off", UserWarning, stacklevel=3)
        model.eval()


def _batches(data, batch_size):
    """Iterate batches of ``data``: an iterable of batches, or one array / tensor / ImageSet to split."""
    if hasattr(data, "images") and hasattr(data, "labels") and not hasattr(data, "__next__") \
            and not hasattr(data, "corruptions"):
        data = data.images  # an ImageSet
    if isinstance(data, (np.ndarray, torch.Tensor)):
        if data.ndim < 2 or data.shape[0] == 0:
            raise InputError("data", f"has shape {tuple(data.shape)}", "a non-empty batch of inputs (n, ...)")
        return [data[i:i + batch_size] for i in range(0, data.shape[0], batch_size)]
    if not hasattr(data, "__iter__"):
        raise InputError("data", f"got {type(data).__name__}", "an iterable of batches (a DataLoader), an array, "
                         "a tensor or an ImageSet of clean source inputs")
    return data


class _hybrid:
    """``SourceStats.fit(model, data, **params)`` on the class builds and fits; on an instance it fits."""

    def __init__(self, f):
        self.f = f
        functools.update_wrapper(self, f)

    def __get__(self, obj, cls):
        if obj is None:
            @functools.wraps(self.f)
            def build_and_fit(model, data, **params):
                return self.f(cls(**params), model, data)
            return build_and_fit
        return functools.partial(self.f, obj)


# ------------------------------------------------------------------------------------ SourceStats
class SourceStats(BaseEstimator):
    r"""Offline per-block source statistics of a classifier on clean data (PEA's "source moments").

    Forward hooks on the chosen modules read each block's output on clean batches. A ``(B, C, H, W)``
    output contributes its ``B H W`` spatial positions as ``C``-dimensional tokens (ResNets), a
    ``(B, N, D)`` output its ``B N`` tokens (ViTs), a ``(B, D)`` output its ``B`` rows. From the ``n``
    tokens of all batches ``b`` it stores, per module,

    .. math::

        \mu_s = \frac1n \sum_i x_i, \qquad \sigma^2_s = \operatorname{diag}\Bigl(\frac{1}{n-1}\sum_i (x_i-\mu_s)
        (x_i-\mu_s)^\top\Bigr), \qquad
        \Sigma_s = \frac{1}{n-1}\sum_b \sum_{i \in b} (x_i - \bar x_b)(x_i - \bar x_b)^\top + \text{reg}\, I

    (``covariance="pooled"``, the official ViT estimator: batch-centred scatter summed over batches; or
    ``"batch-mean"``, the official ResNet estimator: the average of the per-batch covariances), and the
    symmetric square roots :math:`\Sigma_{s,gg}^{1/2}` of its diagonal ``group_size`` x ``group_size``
    blocks (block-diagonal groups; eigenvalues clamped at 0). For token outputs it also stores the class
    token's mean and variance (FOA-lite uses them), and the mean input of the classifier head (NEO).

    Parameters
    ----------
    modules : "auto", list of modules or of module names
        Where to align. ``"auto"``: ``model.blocks`` when the model has it (the library's SmallResNet /
        SmallViT / ported CIFAR CNN), else ``layer1..layer4`` (torchvision / timm ResNets), else the longest
        ``ModuleList`` of identical blocks.
    group_size : "auto", int or None, default "auto"
        Size of the block-diagonal covariance groups; must divide every module's feature dimension that it
        is smaller than (a module with at most ``group_size`` features gets one full group, as the official
        code's ragged grouping gives there; a group size that leaves a ragged last group is refused).
        ``"auto"``: 32 for spatial (CNN) features, the full dimension for token (ViT) features, as in the
        official scripts; None: full covariance everywhere; 1: per-dimension moments.
    n_samples : int, optional
        Use at most this many source inputs (default: all of ``data``; the scripts use 10k-50k).
    batch_size : int, default 256
        Batch size when ``data`` is one array / tensor / ImageSet.
    reg : float, default 1e-5
        Ridge added to the covariance.
    covariance : {"pooled", "batch-mean"}, default "pooled"
        The covariance estimator (see above).

    Attributes
    ----------
    module_names_ : tuple of str
    kinds_ : tuple of str ("spatial", "tokens" or "vector")
    dims_ : tuple of int
    group_sizes_ : tuple of int
    mean_, var_ : list of float64 tensors (D,)
    cov_ : list of float64 tensors (D, D)
    cov_sqrt_blocks_ : list of float64 tensors (D/g, g, g)
    cls_mean_, cls_var_ : list of tensors or None (token outputs only)
    head_name_ : str or None, and ``head_mean_`` (float64 tensor) the mean input of the classifier head
    input_shape_ : tuple, the shape of one input (without the batch axis)
    n_samples_, n_tokens_ : int
    model_signature_ : str, a hash of the model's weights (refuses stats from another model)

    References
    ----------
    Xiao, Kwon, Zhou and Ma, "Architecture-agnostic test-time adaptation via backprop-free embedding
    alignment", ICLR 2026 (official code TheMaXiao/PEA_TTA: ``compute_source_stats_resnet`` / ``_vit``).

    Examples
    --------
    >>> import torch, torch.nn as nn
    >>> torch.manual_seed(0) and None
    >>> net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 3)).eval()
    >>> st = SourceStats.fit(net, torch.randn(200, 6), modules=[net[1], net[3]], group_size=None)
    >>> st.module_names_, st.dims_, st.n_samples_
    (('1', '3'), (8, 4), 200)
    >>> st
    SourceStats(2 modules ['1', '3'], dims (8, 4), groups (8, 4), 200 samples)
    """

    def __init__(self, modules="auto", group_size="auto", n_samples=None, batch_size=256, reg=1e-5,
                 covariance="pooled"):
        self.modules = modules
        self.group_size = group_size
        self.n_samples = n_samples
        self.batch_size = batch_size
        self.reg = reg
        self.covariance = covariance

    def _check_params(self):
        g = self.group_size
        if not (g is None or g == "auto" or (isinstance(g, (int, np.integer)) and not isinstance(g, bool) and g >= 1)):
            raise InputError("group_size", f"got {g!r}", "'auto', None (full covariance) or a positive integer")
        if self.n_samples is not None:
            check_positive_int(self.n_samples, "n_samples")
        check_positive_int(self.batch_size, "batch_size")
        if isinstance(self.reg, bool) or not isinstance(self.reg, (int, float)) or not np.isfinite(self.reg) \
                or self.reg < 0:
            raise InputError("reg", f"got {self.reg!r}", "a non-negative float (ridge on the covariance)")
        check_option(self.covariance, "covariance", ("pooled", "batch-mean"))

    @_hybrid
    def fit(self, model, data):
        """Gather the statistics of ``model`` (a torch classifier) on clean source ``data``; returns ``self``.

        ``data`` is an iterable of batches (a DataLoader yielding tensors or ``(x, y)`` pairs), or one array /
        tensor / ImageSet. Called on the class, ``SourceStats.fit(model, data, **params)`` builds the estimator
        from ``params`` first.
        """
        self._check_params()
        mods = resolve_modules(model, self.modules)
        batches = _batches(data, int(self.batch_size))
        ensure_eval(model, "SourceStats.fit")
        head_name, head = find_head(model)
        k = len(mods)
        acc = [None] * k
        head_acc = {"sum": None, "n": 0}
        state = {"kinds": [None] * k, "dims": [None] * k}
        cap = None if self.n_samples is None else int(self.n_samples)

        def make_hook(i):
            def hook(_m, _inp, out):
                if not isinstance(out, torch.Tensor):
                    raise InputError("modules", f"module {mods[i][0]!r} returned a {type(out).__name__}",
                                     "modules that return one tensor")
                X, kind = features_2d(out.detach())
                X = X.double()
                d = X.shape[1]
                if acc[i] is None:
                    state["kinds"][i], state["dims"][i] = kind, d
                    acc[i] = {"n": 0, "sum": torch.zeros(d, dtype=torch.float64),
                              "gram": torch.zeros(d, d, dtype=torch.float64),
                              "within": torch.zeros(d, d, dtype=torch.float64), "covsum": torch.zeros(d, d, dtype=torch.float64),
                              "nb": 0, "cls_sum": None, "cls_sq": None, "cls_n": 0}
                a = acc[i]
                t = X.shape[0]
                mb = X.mean(0)
                Xc = X - mb
                sc = Xc.T @ Xc
                a["n"] += t
                a["sum"] += X.sum(0)
                a["gram"] += X.T @ X
                a["within"] += sc
                a["covsum"] += sc / max(t - 1, 1)
                a["nb"] += 1
                if kind == "tokens":
                    c = out.detach()[:, 0, :].double()
                    a["cls_sum"] = c.sum(0) if a["cls_sum"] is None else a["cls_sum"] + c.sum(0)
                    a["cls_sq"] = (c * c).sum(0) if a["cls_sq"] is None else a["cls_sq"] + (c * c).sum(0)
                    a["cls_n"] += c.shape[0]
            return hook

        def head_hook(_m, inp):
            z = inp[0].detach().double().reshape(-1, inp[0].shape[-1])
            head_acc["sum"] = z.sum(0) if head_acc["sum"] is None else head_acc["sum"] + z.sum(0)
            head_acc["n"] += z.shape[0]

        handles = [m.register_forward_hook(make_hook(i)) for i, (_, m) in enumerate(mods)]
        if head is not None:
            handles.append(head.register_forward_pre_hook(head_hook))
        seen, input_shape, checked = 0, None, False
        try:
            with torch.no_grad():
                for xb in progress(batches, desc="PEA source statistics"):
                    x = to_batch(xb, "data")
                    if cap is not None and seen + x.shape[0] > cap:
                        x = x[:cap - seen]
                    if input_shape is None:
                        input_shape = tuple(x.shape[1:])
                    elif tuple(x.shape[1:]) != input_shape:
                        raise InputError("data", f"has batches of shapes {input_shape} and {tuple(x.shape[1:])}",
                                         "batches of one input shape")
                    if not checked:  # probe one input first: dimensions and group sizes before any real work
                        check_model_input(model, x, "data")
                        with forward_errors("data", "the model"):
                            model(x[:1].to(_device(model)))
                        self._resolve_groups(mods, state)
                        for a in acc:
                            for key in ("sum", "gram", "within", "covsum"):
                                a[key].zero_()
                            a.update(n=0, nb=0, cls_sum=None, cls_sq=None, cls_n=0)
                        head_acc.update(sum=None, n=0)
                        checked = True
                    model(x.to(_device(model)))
                    seen += x.shape[0]
                    if cap is not None and seen >= cap:
                        break
        finally:
            for h in handles:
                h.remove()
        if seen == 0:
            raise InputError("data", "yielded no inputs", "at least one batch of clean source inputs")
        if any(a["n"] < 2 for a in acc):
            raise InputError("data", "gave fewer than 2 feature tokens at some module", "at least 2 source inputs")
        reg = float(self.reg)
        self.module_names_ = tuple(n for n, _ in mods)
        self.kinds_ = tuple(state["kinds"])
        self.dims_ = tuple(state["dims"])
        self.mean_, self.var_, self.cov_, self.cov_sqrt_blocks_, self.cls_mean_, self.cls_var_ = [], [], [], [], [], []
        for a, g in zip(acc, self.group_sizes_):
            n = a["n"]
            mu = a["sum"] / n
            scatter = a["gram"] - n * torch.outer(mu, mu)
            var = (scatter.diagonal() / (n - 1)).clamp_min(0.0)
            cov = a["within"] / (n - 1) if self.covariance == "pooled" else a["covsum"] / a["nb"]
            cov = 0.5 * (cov + cov.T) + reg * torch.eye(cov.shape[0], dtype=torch.float64)
            self.mean_.append(mu)
            self.var_.append(var)
            self.cov_.append(cov)
            self.cov_sqrt_blocks_.append(sym_sqrt(diag_blocks(cov, g)))
            if a["cls_n"] > 1:
                cm = a["cls_sum"] / a["cls_n"]
                self.cls_mean_.append(cm)
                self.cls_var_.append(((a["cls_sq"] - a["cls_n"] * cm * cm) / (a["cls_n"] - 1)).clamp_min(0.0))
            else:
                self.cls_mean_.append(None)
                self.cls_var_.append(None)
        self.head_name_ = head_name
        self.head_mean_ = None if head_acc["sum"] is None else head_acc["sum"] / head_acc["n"]
        self.input_shape_ = input_shape
        self.n_samples_ = int(seen)
        self.n_tokens_ = tuple(int(a["n"]) for a in acc)
        self.model_signature_ = model_signature(model)
        return self

    def _resolve_groups(self, mods, state):
        sizes = []
        for (name, _), kind, d in zip(mods, state["kinds"], state["dims"]):
            if kind is None:
                raise InputError("modules", f"module {name!r} was not called in the model's forward pass",
                                 "modules that the forward pass runs")
            g = self.group_size
            if g == "auto":
                g = d if kind != "spatial" else min(32, d)
            elif g is None:
                g = d
            g = min(int(g), d)  # a group at least as large as the dimension is one full group (official code)
            if d % g:
                raise InputError("group_size", f"{g} does not divide the feature dimension {d} of module {name!r}",
                                 f"a divisor of every module's feature dimension ({', '.join(map(str, state['dims']))}), "
                                 "or None for full covariance")
            sizes.append(g)
        self.group_sizes_ = tuple(sizes)

    def to_dict(self) -> dict:
        """Plain summary: modules, kinds, dims, group sizes, sample counts and the model signature."""
        check_is_fitted(self, "mean_", method="to_dict")
        return {"modules": list(self.module_names_), "kinds": list(self.kinds_), "dims": list(self.dims_),
                "group_sizes": list(self.group_sizes_), "n_samples": self.n_samples_, "n_tokens": list(self.n_tokens_),
                "input_shape": list(self.input_shape_), "model_signature": self.model_signature_,
                "head": self.head_name_}

    def summary(self) -> str:
        """One line per module: name, kind, dimension, group size, trace of the source covariance."""
        check_is_fitted(self, "mean_", method="summary")
        lines = [f"SourceStats on {self.n_samples_} inputs of shape {self.input_shape_}"]
        for n, k, d, g, c in zip(self.module_names_, self.kinds_, self.dims_, self.group_sizes_, self.cov_):
            lines.append(f"  {n:<20s} {k:<8s} D={d:<5d} group={g:<5d} tr(Sigma)={float(c.trace()):.4g}")
        return "\n".join(lines)

    def __repr__(self):
        if not hasattr(self, "mean_"):
            return f"SourceStats(modules={self.modules!r}, group_size={self.group_size!r}, unfitted)"
        names = list(self.module_names_)
        shown = names if len(names) <= 4 else names[:3] + ["..."]
        return (f"SourceStats({len(names)} modules {shown}, dims {self.dims_}, groups {self.group_sizes_}, "
                f"{self.n_samples_} samples)")


def _device(model):
    p = next(model.parameters(), None)
    return torch.device("cpu") if p is None else p.device


__all__ = ["SourceStats"]
