r"""Conditional flow matching (linear and OT-CFM paths, classifier-free guidance) and ODE samplers.

Time convention: :math:`t \in [0, 1]`, :math:`t = 0` is the source (noise :math:`x_0 \sim N(0, I)`),
:math:`t = 1` is the data :math:`x_1`. The linear path is
:math:`x_t = (1 - (1 - \sigma_{\min}) t)\, x_0 + t\, x_1` with the conditional target velocity
:math:`\dot x_t = x_1 - (1 - \sigma_{\min}) x_0`; the network :math:`v_\theta(x, t, c)` is fitted by the
flow-matching loss

.. math::

    L(\theta) = E_{t \sim U[0,1],\, (x_0, x_1),\, c}\ \| v_\theta(x_t, t, c) - (x_1 - (1 - \sigma_{\min}) x_0) \|^2,

whose minimiser is the marginal velocity :math:`v(x, t, c) = E[\dot x_t \mid x_t = x, c]`. SD3, diffusers and
Flow-GRPO write :math:`\sigma = 1 - t` (:math:`\sigma = 1` noise) and predict :math:`dx/d\sigma = -v`; the
conversions live in :mod:`iclr26sci.nn._sde` and :mod:`iclr26sci.nn._diffusers`.

References
----------
Lipman et al. (2023), Flow matching for generative modeling, ICLR.
Liu, Gong, Liu (2023), Flow straight and fast: rectified flow, ICLR.
Tong et al. (2024), Improving and generalizing flow-based generative models with minibatch optimal transport, TMLR.
Ho, Salimans (2021), Classifier-free diffusion guidance, NeurIPS workshop.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import (InputError, check_bool, check_in_range, check_is_fitted, check_option,
                            check_positive_int, torch_generator)

__all__ = ["FlowMatching", "ode_sample", "SampleResult", "VelocityMLP"]

try:  # torch is a hard dependency of iclr26sci.nn; nn.Module must be the base class of VelocityMLP
    import torch
    from torch import nn
except ImportError as exc:  # pragma: no cover
    raise ImportError('iclr26sci.nn needs torch: pip install "iclr26sci[nn]"') from exc


_ACTS = {"silu": nn.SiLU, "relu": nn.ReLU, "gelu": nn.GELU, "tanh": nn.Tanh}


class VelocityMLP(nn.Module):
    r"""An MLP velocity network :math:`v_\theta(x, t, c)` following the nn velocity-network protocol.

    The input is the flattened sample, ``n_freq`` sine/cosine features of :math:`t`
    (:math:`\sin(2\pi 2^j t), \cos(2\pi 2^j t)` plus :math:`t` itself) and, when conditional, a learned class
    embedding (the label ``n_classes`` is the null label of classifier-free guidance) or a linear map of a
    float condition vector.

    Parameters
    ----------
    dim : int or tuple of int
        The event shape of one sample (an int ``d`` means ``(d,)``; ``(1, 8, 8)`` for 8x8 images).
    hidden : tuple of int, default (128, 128, 128)
        Widths of the hidden layers.
    n_classes : int, optional
        Number of classes of a class-conditional net (labels ``0..n_classes-1``, ``n_classes`` = no condition).
    cond_dim : int, optional
        Length of a float condition vector (vector conditioning); exclusive with ``n_classes``.
    n_freq : int, default 4
        Number of Fourier frequencies of the time embedding.
    emb_dim : int, default 32
        Size of the class (or condition) embedding.
    act : {"silu", "relu", "gelu", "tanh"}, default "silu"

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.nn import VelocityMLP
    >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
    <torch._C.Generator object at ...>
    >>> net = VelocityMLP(2, hidden=(16, 16), n_classes=3)
    >>> net(torch.zeros(4, 2), torch.rand(4), torch.tensor([0, 1, 2, 3])).shape
    torch.Size([4, 2])
    """

    def __init__(self, dim, hidden=(128, 128, 128), n_classes=None, cond_dim=None, n_freq=4, emb_dim=32,
                 act="silu"):
        super().__init__()
        if isinstance(dim, (Integral, np.integer)) and not isinstance(dim, bool):
            shape = (check_positive_int(dim, "dim"),)
        else:
            try:
                shape = tuple(dim)
            except TypeError:
                raise InputError("dim", f"got {dim!r}", "a positive int or a tuple of positive ints") from None
            if not shape:
                raise InputError("dim", "is empty", "a positive int or a tuple of positive ints")
            shape = tuple(check_positive_int(s, "dim") for s in shape)
        try:
            hidden = tuple(hidden)
        except TypeError:
            raise InputError("hidden", f"got {hidden!r}", "a tuple of positive layer widths") from None
        hidden = tuple(check_positive_int(h, "hidden") for h in hidden)
        if n_classes is not None and cond_dim is not None:
            raise InputError("cond_dim", "was given together with n_classes", "one kind of conditioning")
        self.event_shape = shape
        self.n_classes = None if n_classes is None else check_positive_int(n_classes, "n_classes")
        self.cond_dim = None if cond_dim is None else check_positive_int(cond_dim, "cond_dim")
        self.n_freq = check_positive_int(n_freq, "n_freq", minimum=0)
        emb_dim = check_positive_int(emb_dim, "emb_dim")
        act_cls = _ACTS[check_option(act, "act", list(_ACTS))]
        d = int(np.prod(shape))
        self.register_buffer("freqs", 2 * math.pi * (2.0 ** torch.arange(self.n_freq, dtype=torch.float32)),
                             persistent=False)
        in_dim = d + 1 + 2 * self.n_freq
        if self.n_classes is not None:
            self.embed = nn.Embedding(self.n_classes + 1, emb_dim)
            in_dim += emb_dim
        elif self.cond_dim is not None:
            self.embed = nn.Linear(self.cond_dim, emb_dim)
            in_dim += emb_dim
        else:
            self.embed = None
        layers: list = []
        for h in hidden:
            layers += [nn.Linear(in_dim, h), act_cls()]
            in_dim = h
        layers.append(nn.Linear(in_dim, d))
        self.net = nn.Sequential(*layers)

    def forward(self, x, t, cond=None):
        B = x.shape[0]
        if tuple(x.shape[1:]) != self.event_shape:
            raise InputError("x", f"has shape {tuple(x.shape)}", f"shape (B, {', '.join(map(str, self.event_shape))})")
        t = t.reshape(-1).to(x.dtype)
        if t.numel() == 1 and B != 1:
            t = t.expand(B)
        if t.numel() != B:
            raise InputError("t", f"has {t.numel()} entries", f"one time per row ({B})")
        tf = t[:, None] * self.freqs.to(x.dtype)[None, :]
        feats = [x.reshape(B, -1), t[:, None], torch.sin(tf), torch.cos(tf)]
        if self.n_classes is not None:
            if cond is None:
                cond = torch.full((B,), self.n_classes, dtype=torch.long, device=x.device)
            if cond.dtype != torch.long or cond.shape != (B,):
                raise InputError("cond", f"has dtype {cond.dtype} and shape {tuple(cond.shape)}",
                                 f"a LongTensor of shape ({B},)")
            if B and (int(cond.min()) < 0 or int(cond.max()) > self.n_classes):
                raise InputError("cond", f"has labels in [{int(cond.min())}, {int(cond.max())}]",
                                 f"labels in [0, {self.n_classes - 1}] (or {self.n_classes}: no condition)")
            feats.append(self.embed(cond))
        elif self.cond_dim is not None:
            if cond is None or cond.shape != (B, self.cond_dim):
                raise InputError("cond", f"has shape {None if cond is None else tuple(cond.shape)}",
                                 f"a float tensor of shape ({B}, {self.cond_dim})")
            feats.append(self.embed(cond.to(x.dtype)))
        elif cond is not None:
            raise InputError("cond", "was given to an unconditional net", "cond=None")
        return self.net(torch.cat(feats, dim=1)).reshape(x.shape)


# ---------------------------------------------------------------------------------------------- helpers
def _net_attrs(net):
    shape = getattr(net, "event_shape", None)
    return (tuple(shape) if shape is not None else None, getattr(net, "n_classes", None),
            getattr(net, "cond_dim", None))


def _resolve_velocity(velocity, shape):
    """Return (callable(x, t, cond, guidance) -> v, event_shape, n_classes, cond_dim, device, dtype)."""
    from ._oracle import GaussianFlowOracle

    if isinstance(velocity, FlowMatching):
        check_is_fitted(velocity, "event_shape_", method="sample")
        net = velocity.velocity_net
        p = next(net.parameters(), None)
        return (velocity.velocity, velocity.event_shape_, velocity.n_classes_, velocity.cond_dim_,
                p.device if p is not None else torch.device("cpu"), p.dtype if p is not None else torch.float32)
    if isinstance(velocity, GaussianFlowOracle):
        return velocity.velocity, velocity.event_shape, velocity.n_classes, None, torch.device("cpu"), torch.float64
    if isinstance(velocity, nn.Module) or callable(velocity):
        es, nc, cd = _net_attrs(velocity)
        es = es if shape is None else shape
        if es is None:
            raise InputError("shape", "is needed: the velocity has no event_shape attribute",
                             "the shape of one sample, e.g. shape=(2,)")
        p = next(velocity.parameters(), None) if isinstance(velocity, nn.Module) else None
        dev = p.device if p is not None else torch.device("cpu")
        dt = p.dtype if p is not None else torch.float32

        def call(x, t, cond=None, guidance=1.0):
            return _guided_call(velocity, x, t, cond, guidance, nc)

        return call, es, nc, cd, dev, dt
    raise InputError("velocity", f"got an object of type {type(velocity).__name__}",
                     "a FlowMatching, a GaussianFlowOracle or a velocity network net(x, t, cond)")


def _guided_call(net, x, t, cond, guidance, n_classes):
    B = x.shape[0]
    if not torch.is_tensor(t):
        t = torch.full((B,), float(t), dtype=x.dtype, device=x.device)
    t = t.reshape(-1).to(x.dtype)
    if t.numel() == 1 and B > 1:
        t = t.expand(B)
    if guidance == 1.0 or n_classes is None or cond is None:
        return net(x, t, cond)
    null = torch.full_like(cond, n_classes)
    v = net(torch.cat([x, x]), torch.cat([t, t]), torch.cat([cond, null]))
    vc, vu = v[:B], v[B:]
    return vu + guidance * (vc - vu)


def _check_cond(cond, n, n_classes, cond_dim, device, name="cond"):
    """Validate a condition for n rows; returns None, a LongTensor (n,) or a float tensor (n, cond_dim)."""
    if cond is None:
        return None
    if n_classes is None and cond_dim is None:
        raise InputError(name, "was given but the model is unconditional", "cond=None")
    if n_classes is not None:
        if isinstance(cond, (Integral, np.integer)) and not isinstance(cond, bool):
            c = np.full(n, int(cond))
        else:
            c = cond.detach().cpu().numpy() if torch.is_tensor(cond) else np.asarray(cond)
            if c.ndim == 0:
                c = np.full(n, c.item())
            if c.dtype == bool or not np.issubdtype(c.dtype, np.integer):
                if c.size and np.issubdtype(c.dtype, np.floating) and np.all(np.isfinite(c)) and np.all(c == np.round(c)):
                    c = c.astype(np.int64)
                else:
                    raise InputError(name, f"has dtype {c.dtype}", "integer class labels")
            if c.shape != (n,):
                raise InputError(name, f"has shape {c.shape}", f"one label per sample, shape ({n},)")
        if c.size and (c.min() < 0 or c.max() > n_classes):
            raise InputError(name, f"has labels in [{c.min()}, {c.max()}]",
                             f"labels in [0, {n_classes - 1}] (or {n_classes}: no condition)")
        return torch.as_tensor(c, dtype=torch.long, device=device)
    c = cond.detach().cpu().numpy() if torch.is_tensor(cond) else np.asarray(cond, dtype=float)
    if c.ndim == 1 and c.shape == (cond_dim,):
        c = np.broadcast_to(c, (n, cond_dim))
    if c.shape != (n, cond_dim):
        raise InputError(name, f"has shape {c.shape}", f"shape ({n}, {cond_dim}) or ({cond_dim},)")
    if not np.all(np.isfinite(c)):
        raise InputError(name, "contains NaN or infinite values", "finite numbers")
    return torch.as_tensor(np.ascontiguousarray(c), dtype=torch.float32, device=device)


def _as_tensor_data(X, name, event_shape=None):
    if torch.is_tensor(X):
        if not torch.is_floating_point(X):
            raise InputError(name, f"has dtype {X.dtype}", "floating-point values")
        arr = X.detach().cpu().numpy()
    else:
        try:
            arr = np.asarray(X)
        except (ValueError, TypeError):
            raise InputError(name, "has ragged or non-numeric entries", "a numeric array") from None
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number)) or np.iscomplexobj(arr):
            raise InputError(name, f"has dtype {arr.dtype}", "real numbers")
    if arr.ndim < 2:
        raise InputError(name, f"has shape {arr.shape}", "an array of shape (n, *event_shape) with n >= 1")
    if arr.shape[0] == 0:
        raise InputError(name, "is empty (0 rows)", "at least one sample")
    if event_shape is not None and tuple(arr.shape[1:]) != tuple(event_shape):
        raise InputError(name, f"has shape {arr.shape}", f"shape (n, {', '.join(map(str, event_shape))})")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, "contains NaN or infinite values", "finite numbers")
    return arr.astype(np.float32, copy=False)


def _check_times(times, steps):
    if times is None:
        return np.linspace(0.0, 1.0, steps + 1)
    tt = np.asarray(times, dtype=float).reshape(-1)
    if tt.size < 2 or not np.all(np.isfinite(tt)) or np.any(np.diff(tt) <= 0) or tt[0] < 0 or tt[-1] > 1:
        raise InputError("times", "is not an increasing grid inside [0, 1]", "an increasing array of times in [0, 1]")
    return tt


# ---------------------------------------------------------------------------------------------- FlowMatching
class FlowMatching(BaseEstimator):
    r"""Conditional flow matching on the linear (rectified) or minibatch-OT path, with classifier-free guidance.

    Training minimises :math:`E\|v_\theta(x_t, t, c) - (x_1 - (1 - \sigma_{\min}) x_0)\|^2` with
    :math:`x_t = (1 - (1 - \sigma_{\min}) t)\, x_0 + t\, x_1`, :math:`t \sim U[0, 1]`, through
    :func:`iclr26sci.nn.fit`. On ``path="linear"`` the noise :math:`x_0 \sim N(0, I)` is drawn independently of
    the data; on ``path="ot-cfm"`` each batch's noise is re-paired with its data by an exact optimal assignment
    (squared Euclidean cost, within each class when class-conditional), which straightens the paths.
    With class labels, a fraction ``p_uncond`` of each batch has its label replaced by the null label
    ``n_classes`` so that one network learns both :math:`v(x, t, c)` and :math:`v(x, t, \varnothing)`.

    Parameters
    ----------
    velocity_net : torch.nn.Module
        A velocity network ``net(x, t, cond)`` with attributes ``event_shape``, ``n_classes`` (or None) and
        ``cond_dim`` (or None), e.g. :class:`VelocityMLP` or :class:`UNetVelocity`. It is trained in place.
    path : {"linear", "ot-cfm"}, default "linear"
        The probability path (the coupling of noise and data).
    sigma_min : float in [0, 1), default 0
        Noise left at :math:`t = 1`.
    p_uncond : float in [0, 1], default 0.1
        Probability of dropping a class label during training (classifier-free guidance); ignored without labels.

    Attributes
    ----------
    event_shape_ : tuple
        Shape of one sample.
    n_classes_, cond_dim_ : int or None
        The conditioning of the fitted model.
    fit_result_ : FitResult
        Per-epoch losses and timing of the training loop.

    Examples
    --------
    >>> import numpy as np, torch
    >>> from iclr26sci.nn import FlowMatching, VelocityMLP, ode_sample
    >>> X = np.random.default_rng(0).normal([2.0, -1.0], 0.5, size=(512, 2))
    >>> _ = torch.manual_seed(0)
    >>> fm = FlowMatching(VelocityMLP(2, hidden=(32, 32))).fit(X, epochs=5, batch_size=128, rng=0, progress=False)
    >>> ode_sample(fm, n=4, steps=8, rng=0).x.shape
    torch.Size([4, 2])
    """

    def __init__(self, velocity_net, path="linear", sigma_min=0.0, p_uncond=0.1):
        self.velocity_net = velocity_net
        self.path = path
        self.sigma_min = sigma_min
        self.p_uncond = p_uncond
        self._validate_params()  # fail early; the parameters are stored unmodified (scikit-learn convention)

    def _validate_params(self):
        if not isinstance(self.velocity_net, nn.Module):
            raise InputError("velocity_net", f"got {type(self.velocity_net).__name__}",
                             "a torch.nn.Module net(x, t, cond) with an event_shape attribute")
        es, nc, cd = _net_attrs(self.velocity_net)
        if es is None:
            raise InputError("velocity_net", "has no event_shape attribute", "a net following the velocity protocol")
        check_option(self.path, "path", ["linear", "ot-cfm"])
        check_in_range(self.sigma_min, "sigma_min", 0.0, 1.0, high_open=True)
        check_in_range(self.p_uncond, "p_uncond", 0.0, 1.0)
        return es, nc, cd

    def fit(self, X, cond=None, *, epochs=50, batch_size=256, lr=1e-3, rng=None, val_fraction=None, device=None,
            progress=True, weight_decay=0.0, grad_clip=None, patience=None, checkpoint=None, schedule=None):
        """Train the velocity network by flow matching; returns ``self``.

        Parameters
        ----------
        X : array or tensor of shape (n, *event_shape)
            Data samples :math:`x_1`.
        cond : array of shape (n,) (int labels) or (n, cond_dim) (float vectors), optional
            The condition of each sample. A class-conditional net may also be fitted without labels: every
            row then carries the null label and the net learns only the unconditional field.
        epochs, batch_size, lr, val_fraction, weight_decay, grad_clip, patience, checkpoint, schedule
            Passed to :func:`iclr26sci.nn.fit` (the shared training loop).
        rng : seed or Generator
            Seeds the shuffles, the noise :math:`x_0`, the times :math:`t` and the label dropout.
        device : str, optional
            Device to train on (default: the net's).
        progress : bool, default True
            Show a progress bar on a terminal.
        """
        from ._train import fit as _fit

        es, nc, cd = self._validate_params()
        arr = _as_tensor_data(X, "X", es)
        n = arr.shape[0]
        check_bool(progress, "progress")
        if cond is not None and torch.is_tensor(cond) and torch.is_floating_point(cond) and nc is not None:
            raise InputError("cond", f"has dtype {cond.dtype}", "integer class labels")
        c = _check_cond(cond, n, nc, cd, "cpu")
        if c is not None and nc is not None and c.numel() and int(c.max()) == nc:
            raise InputError("cond", f"contains the null label {nc} in training data",
                             f"labels in [0, {nc - 1}] (the null label is added by p_uncond)")
        if self.path == "ot-cfm" and cd is not None and c is not None:
            raise InputError("path", "'ot-cfm' pairs noise and data within classes, not for vector conditions",
                             "path='linear' with cond_dim conditioning")
        sigma_min, p_uncond, path = float(self.sigma_min), float(self.p_uncond), self.path

        def loss_fn(model, x1, *rest):
            cb = rest[0] if rest else None
            B = x1.shape[0]
            x0 = torch.randn_like(x1)
            if path == "ot-cfm":
                x0 = _ot_pair(x0, x1, cb if (cb is not None and cb.dtype == torch.long) else None)
            t = torch.rand(B, device=x1.device, dtype=x1.dtype)
            tb = t.reshape(B, *([1] * (x1.ndim - 1)))
            xt = (1 - (1 - sigma_min) * tb) * x0 + tb * x1
            target = x1 - (1 - sigma_min) * x0
            if cb is not None and cb.dtype == torch.long and p_uncond > 0:
                drop = torch.rand(B, device=x1.device) < p_uncond
                cb = torch.where(drop, torch.full_like(cb, nc), cb)
            pred = model(xt, t, cb)
            return ((pred - target) ** 2).reshape(B, -1).sum(1).mean()

        data = (torch.from_numpy(arr),) if c is None else (torch.from_numpy(arr), c)
        self.fit_result_ = _fit(self.velocity_net, loss_fn, data, val_fraction=val_fraction, epochs=epochs,
                                batch_size=batch_size, lr=lr, weight_decay=weight_decay, grad_clip=grad_clip,
                                patience=patience, checkpoint=checkpoint, rng=rng, device=device,
                                progress=progress, schedule=schedule)
        self.velocity_net.eval()
        self.event_shape_ = es
        self.n_classes_ = nc
        self.cond_dim_ = cd
        self.n_train_ = n
        return self

    def velocity(self, x, t, cond=None, guidance=1.0):
        r"""The learned velocity :math:`v_\theta(x, t, c)`, with classifier-free guidance.

        .. math:: v_w = v_\theta(x, t, \varnothing) + w\,(v_\theta(x, t, c) - v_\theta(x, t, \varnothing))

        Gradients flow through (no ``torch.no_grad``), as policy-gradient methods need.

        Parameters
        ----------
        x : tensor of shape (B, *event_shape)
            Points.
        t : float or tensor of shape (B,)
            Times in [0, 1] (0 noise, 1 data).
        cond : int, array or tensor, optional
            Class labels (``n_classes`` = none) or condition vectors.
        guidance : float, default 1
            Guidance weight :math:`w` (1: the conditional field itself; 0: the unconditional one).
        """
        check_is_fitted(self, "event_shape_", method="velocity")
        p = next(self.velocity_net.parameters(), None)
        dev = p.device if p is not None else torch.device("cpu")
        if not torch.is_tensor(x):
            x = torch.as_tensor(np.asarray(x, dtype=np.float32), device=dev)
        if tuple(x.shape[1:]) != tuple(self.event_shape_) or x.ndim < 2:
            raise InputError("x", f"has shape {tuple(x.shape)}", f"shape (B, {', '.join(map(str, self.event_shape_))})")
        if not torch.is_floating_point(x):
            raise InputError("x", f"has dtype {x.dtype}", "a floating-point tensor")
        B = x.shape[0]
        if torch.is_tensor(t):
            tt = t.reshape(-1).to(x.dtype)
        else:
            tt = torch.full((B,), check_in_range(t, "t", 0.0, 1.0), dtype=x.dtype, device=x.device)
        if tt.numel() == 1:
            tt = tt.expand(B)
        if tt.numel() != B:
            raise InputError("t", f"has {tt.numel()} entries", f"a scalar or one time per row ({B})")
        w = check_in_range(guidance, "guidance")
        c = _check_cond(cond, B, self.n_classes_, self.cond_dim_, x.device)
        return _guided_call(self.velocity_net, x, tt, c, w, self.n_classes_)

    def sample(self, n, cond=None, steps=50, solver="euler", guidance=1.0, rng=0, **kwargs):
        """Draw ``n`` samples by integrating the learned ODE from noise (:func:`ode_sample`)."""
        return ode_sample(self, n, cond=cond, steps=steps, solver=solver, guidance=guidance, rng=rng, **kwargs)


def _ot_pair(x0, x1, labels=None):
    """Re-order the noise rows x0 to the optimal (squared-distance) assignment with x1 (within labels)."""
    from scipy.optimize import linear_sum_assignment

    B = x1.shape[0]
    a = x0.detach().reshape(B, -1).double().cpu()
    b = x1.detach().reshape(B, -1).double().cpu()
    out = torch.empty(B, dtype=torch.long)
    groups = [torch.arange(B)] if labels is None else [torch.nonzero(labels.cpu() == k).reshape(-1)
                                                       for k in torch.unique(labels.cpu())]
    for idx in groups:   # one assignment per class present in the batch
        cost = torch.cdist(b[idx], a[idx]) ** 2
        r, col = linear_sum_assignment(cost.numpy())
        out[idx[r]] = idx[col]
    return x0[out.to(x0.device)]


# ---------------------------------------------------------------------------------------------- sampling
@dataclass(frozen=True, repr=False)
class SampleResult:
    """Samples of an ODE (or SDE) sampler and what they cost.

    Attributes
    ----------
    x : torch.Tensor (n, *event_shape)
        The samples at :math:`t = 1`.
    nfe : int
        Number of velocity-field evaluations (each on the whole batch; classifier-free guidance runs the
        net on a doubled batch inside one evaluation).
    steps : int
        Number of solver steps.
    solver : str
    guidance : float
    times : ndarray (steps + 1,)
        The time grid.
    trajectory : torch.Tensor (steps + 1, n, *event_shape) or None
        The states on the grid, when asked for.
    log_prob : torch.Tensor (steps, n) or None
        Per-step log-likelihoods of the transitions (stochastic samplers only).
    seconds : float

    Examples
    --------
    >>> from iclr26sci.nn import GaussianFlowOracle, ode_sample
    >>> r = ode_sample(GaussianFlowOracle(mean=[1.0, -1.0], cov=[[1.0, 0.0], [0.0, 0.5]]), n=100, steps=10,
    ...                solver="heun", rng=0)
    >>> r
    SampleResult(n=100, shape=(2,), solver='heun', steps=10, nfe=20)
    >>> tuple(r.x.shape), r.nfe
    ((100, 2), 20)
    """

    x: Any
    nfe: int
    steps: int
    solver: str
    guidance: float = 1.0
    times: Any = None
    trajectory: Any = None
    log_prob: Any = None
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def __repr__(self):
        return (f"SampleResult(n={self.x.shape[0]}, shape={tuple(self.x.shape[1:])}, solver={self.solver!r}, "
                f"steps={self.steps}, nfe={self.nfe})")

    def summary(self) -> str:
        xs = self.x.detach().double()
        return (f"{self.x.shape[0]} samples of shape {tuple(self.x.shape[1:])} by {self.solver} in {self.steps} "
                f"steps ({self.nfe} velocity evaluations, guidance {self.guidance:g}, {self.seconds:.3g} s); "
                f"sample mean {xs.mean().item():.4g}, std {xs.std().item():.4g}")

    def to_dict(self) -> dict:
        return {"n": int(self.x.shape[0]), "shape": list(self.x.shape[1:]), "solver": self.solver,
                "steps": self.steps, "nfe": self.nfe, "guidance": self.guidance, "seconds": self.seconds,
                "times": None if self.times is None else np.asarray(self.times).tolist()}

    def numpy(self) -> np.ndarray:
        """The samples as a float64 numpy array."""
        return self.x.detach().cpu().double().numpy()


_SOLVERS = ("euler", "heun", "midpoint")


def ode_sample(velocity, n=None, cond=None, steps=50, solver="euler", guidance=1.0, rng=0, x0=None,
               return_trajectory=False, shape=None, times=None, device=None):
    r"""Integrate :math:`dx/dt = v(x, t, c)` from noise at :math:`t = 0` to data at :math:`t = 1`.

    On the grid :math:`0 = t_0 < \dots < t_K = 1` with :math:`h_k = t_{k+1} - t_k`:

    - Euler (order 1): :math:`x_{k+1} = x_k + h_k v(x_k, t_k)`;
    - Heun (order 2): :math:`\tilde x = x_k + h_k v_k`, :math:`x_{k+1} = x_k + \tfrac{h_k}{2}(v_k + v(\tilde x, t_{k+1}))`;
    - midpoint (order 2): :math:`x_{k+1} = x_k + h_k v(x_k + \tfrac{h_k}{2} v_k, t_k + \tfrac{h_k}{2})`.

    Parameters
    ----------
    velocity : FlowMatching, GaussianFlowOracle or velocity network
        The field; a network ``net(x, t, cond)`` needs an ``event_shape`` attribute or ``shape``.
    n : int
        Number of samples (may be omitted when ``x0`` is given).
    cond : int, array or tensor, optional
        Class label(s) (``n_classes`` = unconditional) or condition vectors.
    steps : int >= 1, default 50
        Number of solver steps on a uniform grid (ignored when ``times`` is given).
    solver : {"euler", "heun", "midpoint"}, default "euler"
    guidance : float, default 1
        Classifier-free guidance weight :math:`w` (:math:`v_u + w (v_c - v_u)`).
    rng : seed, Generator or torch.Generator, default 0
        Seed of the initial noise.
    x0 : tensor or array (n, *event_shape), optional
        The initial points (instead of drawing noise).
    return_trajectory : bool, default False
        Keep the states on the grid.
    shape : tuple, optional
        Event shape when ``velocity`` does not expose one.
    times : array, optional
        An increasing time grid from :math:`t_0` to :math:`t_K` (e.g. a shifted schedule).
    device : str, optional
        Device (default: the model's).

    Returns
    -------
    SampleResult
        ``x``, ``nfe`` (= steps for Euler, 2 steps for Heun and midpoint) and the grid.

    Examples
    --------
    >>> from iclr26sci.nn import GaussianFlowOracle, ode_sample
    >>> orc = GaussianFlowOracle(mean=[3.0, 0.0], cov=[[1.0, 0.0], [0.0, 0.25]])
    >>> res = ode_sample(orc, n=4000, steps=20, solver="heun", rng=0)
    >>> res.nfe, [round(v, 1) + 0.0 for v in res.x.mean(0).tolist()]
    (40, [3.0, 0.0])
    """
    t_start = time.perf_counter()
    if isinstance(shape, (Integral, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    if shape is not None:
        shape = tuple(check_positive_int(s, "shape") for s in shape)
    fn, es, nc, cd, dev, dtype = _resolve_velocity(velocity, shape)
    if device is not None:
        from ._checks import check_device

        dev = check_device(device)
    solver = check_option(solver, "solver", list(_SOLVERS))
    steps = check_positive_int(steps, "steps")
    w = check_in_range(guidance, "guidance")
    check_bool(return_trajectory, "return_trajectory")
    grid = _check_times(times, steps)
    steps = len(grid) - 1
    if x0 is not None:
        xin = _as_tensor_data(x0, "x0", es)
        if n is not None and check_positive_int(n, "n") != xin.shape[0]:
            raise InputError("n", f"is {n} but x0 has {xin.shape[0]} rows", "n equal to len(x0) or None")
        x = torch.as_tensor(xin, device=dev).to(dtype)
        n = x.shape[0]
    else:
        if n is None:
            raise InputError("n", "is missing", "the number of samples (or x0)")
        n = check_positive_int(n, "n")
        g = rng if isinstance(rng, torch.Generator) else torch_generator(rng)
        x = torch.randn((n, *es), generator=g, dtype=torch.float64).to(device=dev, dtype=dtype)
    c = _check_cond(cond, n, nc, cd, dev)
    if c is not None and c.dtype == torch.float32:
        c = c.to(dtype)
    traj = [x] if return_trajectory else None
    nfe = 0
    with torch.no_grad():
        for k in range(steps):
            t0, t1 = float(grid[k]), float(grid[k + 1])
            h = t1 - t0
            v0 = fn(x, torch.full((n,), t0, dtype=dtype, device=dev), c, w)
            nfe += 1
            if solver == "euler":
                x = x + h * v0
            elif solver == "heun":
                xe = x + h * v0
                v1 = fn(xe, torch.full((n,), t1, dtype=dtype, device=dev), c, w)
                nfe += 1
                x = x + 0.5 * h * (v0 + v1)
            else:
                xm = x + 0.5 * h * v0
                vm = fn(xm, torch.full((n,), t0 + 0.5 * h, dtype=dtype, device=dev), c, w)
                nfe += 1
                x = x + h * vm
            if traj is not None:
                traj.append(x)
    return SampleResult(x=x, nfe=nfe, steps=steps, solver=solver, guidance=w, times=grid,
                        trajectory=torch.stack(traj) if traj is not None else None,
                        seconds=time.perf_counter() - t_start)
