r"""Private machinery of :mod:`iclr26sci.generative.value_matching`: the base-flow adapter (memoryless SDE of an
``nn`` flow model or of a diffusers scheduler), the value network, guided rollouts, the Monte-Carlo cost-to-go
targets, saved-tensor memory accounting and the closed-form Gaussian oracles.

Time convention of :mod:`iclr26sci.nn`: ``t = 0`` noise, ``t = 1`` data. The memoryless SDE of a linear-path flow
model is :math:`dX = b\,dt + \sigma\,dB`, :math:`b = 2v - x/t`, :math:`\sigma(t)^2 = 2(1 - t)/t`; a control
:math:`u` adds :math:`\sigma u` to the drift. torch is imported at module level: this module is only imported
from inside the public functions.
"""
from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np

from iclr26sci.core import InputError, check_positive_int

import torch
from torch import nn as tnn


#: grid of a base flow that has no scheduler of its own, when ``steps`` is None
DEFAULT_STEPS = 50


# ------------------------------------------------------------------------------------------- base adapters
class DiffusersBase:
    r"""A diffusers flow-matching model and its ``FlowMatchEulerDiscreteScheduler`` as a base flow.

    The scheduler runs :math:`\sigma` from 1 (noise) to 0 (data) and the model predicts
    :math:`u = dx/d\sigma`; in the ``nn`` convention :math:`t = 1 - \sigma`, :math:`v = -u`. The memoryless SDE is
    :class:`iclr26sci.nn.DiffusersFlowSDE` with noise level :math:`a = \sqrt 2` (then
    :math:`g(t)^2 = 2(1-t)/t`, Adjoint Matching's schedule) on the scheduler's own grid (shift included).

    Parameters
    ----------
    model : callable
        ``model(x, timestep, **model_kwargs)`` returning :math:`u` as a tensor or an object with ``.sample``
        (e.g. a ``diffusers`` ``UNet2DModel`` or ``SD3Transformer2DModel`` with its text embeddings in
        ``model_kwargs``). It is frozen: called under ``torch.no_grad()``.
    scheduler : diffusers.FlowMatchEulerDiscreteScheduler
        After ``set_timesteps(n)``; read, never changed.
    sample_shape : tuple of int
        Shape of one latent, e.g. ``(4, 8, 8)``.
    model_kwargs : dict, optional
        Extra keyword arguments of every model call.

    Examples
    --------
    >>> import torch
    >>> from diffusers import FlowMatchEulerDiscreteScheduler
    >>> from iclr26sci.generative.value_matching import DiffusersBase
    >>> sch = FlowMatchEulerDiscreteScheduler(shift=1.0)
    >>> sch.set_timesteps(8)
    >>> base = DiffusersBase(lambda x, ts: -x, sch, sample_shape=(2,))
    >>> base.steps, base.event_shape
    (8, (2,))
    """

    def __init__(self, model, scheduler, sample_shape, model_kwargs=None):
        from iclr26sci.nn import DiffusersFlowSDE

        if not callable(model):
            raise InputError("model", f"got {type(model).__name__}", "a callable model(x, timestep, **kwargs)")
        self.bridge = DiffusersFlowSDE(scheduler, noise_level=math.sqrt(2.0))
        if isinstance(sample_shape, (int, np.integer)):
            sample_shape = (int(sample_shape),)
        try:
            shp = tuple(int(s) for s in sample_shape)
        except TypeError:
            raise InputError("sample_shape", f"got {sample_shape!r}", "a tuple of positive ints") from None
        if not shp or min(shp) < 1:
            raise InputError("sample_shape", f"got {sample_shape!r}", "a tuple of positive ints")
        if model_kwargs is not None and not isinstance(model_kwargs, dict):
            raise InputError("model_kwargs", f"got {type(model_kwargs).__name__}", "a dict or None")
        self.model = model
        self.scheduler = scheduler
        self.event_shape = shp
        self.model_kwargs = dict(model_kwargs or {})
        self.steps = len(scheduler.timesteps)
        p = next(model.parameters(), None) if isinstance(model, tnn.Module) else None
        self.dtype = p.dtype if p is not None else torch.float32
        self.device = p.device if p is not None else torch.device("cpu")
        self.n_classes = None

    def __repr__(self):
        return f"DiffusersBase(steps={self.steps}, sample_shape={self.event_shape})"

    def with_steps(self, steps):
        """A copy of this base on a grid of ``steps`` timesteps (a deep copy of the scheduler, ``set_timesteps``
        called on the copy; the user's scheduler and the model are not changed or copied)."""
        import copy

        steps = check_positive_int(steps, "steps", minimum=2)
        sch = copy.deepcopy(self.scheduler)
        sch.set_timesteps(steps)
        return DiffusersBase(self.model, sch, self.event_shape, self.model_kwargs)


class _Base:
    """Uniform access to a base flow: grid, diffusion coefficient, velocity and controlled memoryless step."""

    def __init__(self, base_flow, steps, cond=None, cfg=1.0, name="base_flow"):
        self.diffusers = isinstance(base_flow, DiffusersBase)
        if self.diffusers:
            if steps is not None and int(steps) != base_flow.steps:
                base_flow = base_flow.with_steps(int(steps))     # an explicit override: a copy on a new grid
            self.src = base_flow
            sig = base_flow.scheduler.sigmas.detach().double().cpu().numpy()
            self.times = 1.0 - sig
            self.event_shape = base_flow.event_shape
            self.dtype, self.device = base_flow.dtype, base_flow.device
            self.n_classes = None
            self.cond = None
        else:
            from iclr26sci.nn import GaussianFlowOracle, memoryless_sde
            from iclr26sci.nn._flow import FlowMatching

            if not (isinstance(base_flow, (FlowMatching, GaussianFlowOracle, tnn.Module)) or callable(base_flow)):
                raise InputError(name, f"got {type(base_flow).__name__}",
                                 "a FlowMatching, GaussianFlowOracle, velocity network or DiffusersBase")
            try:
                self.sde = memoryless_sde(base_flow)
            except InputError as exc:
                raise InputError(name, f"cannot be used: {exc.problem}", exc.expected) from None
            self.event_shape = tuple(self.sde.event_shape)
            self.dtype, self.device = self.sde.dtype, self.sde.device
            self.n_classes = self.sde.n_classes
            if cond is None and self.n_classes is not None:
                cond = int(self.n_classes)           # the null label: the unconditional model
            self.cond = cond
            self.times = np.linspace(0.0, 1.0, int(DEFAULT_STEPS if steps is None else steps) + 1)
        self.cfg = float(cfg)
        self.K = len(self.times) - 1
        self.dim = int(np.prod(self.event_shape))
        self.src_obj = base_flow

    # the diffusion coefficient sigma(t_k) used on step k (at t = 0 evaluated at the first grid point)
    def sigma(self, k):
        t, h = float(self.times[k]), float(self.times[k + 1] - self.times[k])
        te = t if t > 0 else h
        return math.sqrt(2.0 * (1.0 - t) / te)

    def h(self, k):
        return float(self.times[k + 1] - self.times[k])

    def noise(self, n, g):
        return torch.randn((n, *self.event_shape), generator=g, dtype=torch.float64).to(self.device, self.dtype)

    def _model_u(self, x, k):
        ts = self.src.scheduler.timesteps[k]
        out = self.src.model(x, ts.expand(x.shape[0]).to(x.device), **self.src.model_kwargs)
        out = getattr(out, "sample", out)
        if isinstance(out, (tuple, list)):
            out = out[0]
        return out

    def step(self, x, k, g):
        """The base memoryless Euler-Maruyama step from grid point k: (mean, sample, v), no gradient."""
        h = self.h(k)
        with torch.no_grad():
            if self.diffusers:
                st = self.src.bridge.step(self._model_u(x, k), self.src.scheduler.timesteps[k], x, generator=g)
            else:
                st = self.sde.step(x, float(self.times[k]), h, cond=self.cond, guidance=self.cfg, rng=g)
        return st.mean.to(self.dtype), st.sample.to(self.dtype), st.velocity

    def velocity(self, x, k):
        """Base velocity v(x, t_k) (no gradient), grid points k < K."""
        with torch.no_grad():
            if self.diffusers:
                return -self._model_u(x, k).to(x.dtype)
            st = self.sde.step(x, float(self.times[k]), self.h(k), cond=self.cond, guidance=self.cfg, rng=0)
            return st.velocity


# ------------------------------------------------------------------------------------------ value network
def _time_features(t, n_freq):
    t = t.reshape(-1, 1)
    if n_freq == 0:
        return t
    k = torch.arange(1, n_freq + 1, dtype=t.dtype, device=t.device)[None, :] * math.pi
    return torch.cat([t, torch.sin(k * t), torch.cos(k * t)], dim=1)


class ValueMLP(tnn.Module):
    r"""The value network :math:`V_\phi(x, t) = c_0 + c_1\, N_\phi([x, \mathrm{fourier}(t)])`.

    :math:`N_\phi` is an MLP (SiLU) on the flattened state and :math:`t, \sin(k\pi t), \cos(k\pi t)`; its last
    layer starts at zero, so the untrained network is constant and the first rollouts are the base model's.
    ``offset`` :math:`c_0` and ``scale`` :math:`c_1` are buffers set once from the first Monte-Carlo targets
    (target standardisation; the scale is at least 0.1 lam, since the first targets can be constant); they are not trained.
    """

    def __init__(self, dim, hidden=(256, 256, 256), n_freq=4, precondition=True):
        super().__init__()
        self.precondition = bool(precondition)
        from iclr26sci.nn import mlp

        self.dim = int(dim)
        self.n_freq = int(n_freq)
        self.net = mlp(self.dim + 1 + 2 * self.n_freq, 1, hidden=tuple(hidden), act="silu")
        last = [m for m in self.net.modules() if isinstance(m, tnn.Linear)][-1]
        tnn.init.zeros_(last.weight)
        tnn.init.zeros_(last.bias)
        self.register_buffer("offset", torch.zeros(()))
        self.register_buffer("scale", torch.ones(()))

    def forward(self, x, t):
        x = x.reshape(x.shape[0], -1)
        t = t.to(x.dtype)
        if self.precondition:          # z = E[X_1 | X_t = x] for N(0, I) data: t x / (t^2 + (1 - t)^2)
            x = x * (t / (t * t + (1 - t) ** 2)).reshape(-1, 1)
        f = _time_features(t, self.n_freq)
        return self.offset + self.scale * self.net(torch.cat([x, f], dim=1)).squeeze(-1)


def value_and_grad(vnet, x, t, create_graph=False):
    """V(x, t) and its gradient in x, differentiating only the value network."""
    with torch.enable_grad():
        xr = x.detach().requires_grad_(True)
        tt = torch.full((x.shape[0],), float(t), dtype=x.dtype, device=x.device) if not torch.is_tensor(t) else t
        V = vnet(xr, tt)
        (g,) = torch.autograd.grad(V.sum(), xr, create_graph=create_graph)
    return V.detach(), g.detach()


def control(sigma, grad, scale, clip):
    r"""The guidance control :math:`u = -\gamma\,\sigma(t)\,\nabla_x V`, each row's norm clipped to ``clip``.

    The drift correction it makes is :math:`\sigma u = -\gamma \sigma^2 \nabla_x V` (validation's broken
    variants patch this function).
    """
    u = -scale * sigma * grad
    if clip is not None and np.isfinite(clip):
        nrm = u.reshape(u.shape[0], -1).norm(dim=1).clamp_min(1e-30)
        fac = torch.clamp(clip / nrm, max=1.0).reshape((-1,) + (1,) * (u.ndim - 1))
        u = u * fac
    return u


# ------------------------------------------------------------------------------------------ rewards
def call_reward(reward_fn, x, name="reward_fn"):
    """Evaluate a black-box reward on a batch (no gradient); checks shape (n,) and finiteness."""
    n = x.shape[0]
    with torch.no_grad():
        r = reward_fn(x.detach())
    r = r.detach().cpu().double().numpy() if torch.is_tensor(r) else np.asarray(r, dtype=float)
    r = r.reshape(-1) if r.ndim == 2 and r.shape[1] == 1 else r
    if r.shape != (n,):
        raise InputError(name, f"returned shape {r.shape} for {n} samples", f"one reward per sample, shape ({n},)")
    if not np.all(np.isfinite(r)):
        raise InputError(name, "returned NaN or infinite rewards", "finite rewards")
    return r


def reward_grad(reward_fn, x, name="reward_fn"):
    """(r, grad_x r) of a differentiable torch reward; InputError when it has no gradient."""
    with torch.enable_grad():
        xr = x.detach().requires_grad_(True)
        r = reward_fn(xr)
        if not torch.is_tensor(r) or not r.requires_grad:
            raise InputError(name, "returned no torch gradient (a black-box or detached reward)",
                             "a differentiable torch reward for this gradient-based method")
        if r.shape != (x.shape[0],):
            raise InputError(name, f"returned shape {tuple(r.shape)}", f"shape ({x.shape[0]},)")
        (g,) = torch.autograd.grad(r.sum(), xr)
    rd = r.detach()
    if not bool(torch.isfinite(rd).all()) or not bool(torch.isfinite(g).all()):
        raise InputError(name, "returned NaN or infinite rewards or gradients", "finite rewards")
    return rd.double().cpu().numpy(), g.detach()


# ------------------------------------------------------------------------------------------ rollouts
def guided_step(base, x, k, g, vnet=None, scale=1.0, clip=None):
    r"""One guided step: the base Euler-Maruyama step :math:`N(\mu_k, \sigma_k^2 h I)` tilted by the value of
    the *next* grid point, mean :math:`\mu_k + h\sigma_k u_k`, :math:`u_k = -\gamma\sigma_k\nabla V_\phi(\mu_k, t_{k+1})`.

    Tilting a Gaussian :math:`N(\mu, S)` by :math:`e^{-V(y)}` with :math:`V` linear near :math:`\mu` gives
    :math:`N(\mu - S\nabla V(\mu), S)`: this is the exact KL-optimal step of the discretised chain for the
    cost-to-go :math:`V(\cdot, t_{k+1})` (to first order), and the continuous drift correction
    :math:`-\sigma^2\nabla V` as :math:`h \to 0`. Evaluating :math:`\nabla V(x_k, t_k)` instead is biased at
    small t, where the memoryless step contracts x by :math:`1 - h/t_k` and the MC targets (the discrete chain's
    cost-to-go) carry that contraction. Returns (x_next, dB, u, mean).
    """
    mean, sample, _ = base.step(x, k, g)
    dB = (sample - mean) / base.sigma(k)
    u = None
    if vnet is not None and scale != 0:
        _, gr = value_and_grad(vnet, mean, float(base.times[k + 1]))
        u = control(base.sigma(k), gr, scale, clip).to(mean.dtype)
        shift = base.h(k) * base.sigma(k) * u
        mean, sample = mean + shift, sample + shift
    return sample, dB, u, mean


def rollout(base, n, g, vnet=None, scale=1.0, clip=None, keep=True):
    """Guided (or base, ``vnet=None``) memoryless trajectories.

    Returns dict with X (K+1, n, ...) if keep, x (n, ...), cost (K, n): 0.5 |u|^2 h, mart (K, n): u . dB.
    """
    K = base.K
    x = base.noise(n, g)
    xs = [x] if keep else None
    cost = np.zeros((K, n))
    mart = np.zeros((K, n))
    for k in range(K):
        x_next, dB, u, _ = guided_step(base, x, k, g, vnet, scale, clip)
        if u is not None:
            uf = u.reshape(n, -1).double()
            cost[k] = (0.5 * (uf ** 2).sum(1) * base.h(k)).cpu().numpy()
            mart[k] = (uf * dB.reshape(n, -1).double()).sum(1).cpu().numpy()
        x = x_next
        if keep:
            xs.append(x)
    return {"X": torch.stack(xs) if keep else None, "x": x, "cost": cost, "mart": mart}


def importance_resample(logw, n, g):
    """Systematic resampling of ``n`` indices by self-normalised weights ``exp(logw)``; returns (index, ESS)."""
    lw = np.asarray(logw, dtype=np.float64)
    w = np.exp(lw - lw.max())
    w /= w.sum()
    ess = float(1.0 / np.sum(w ** 2))
    u0 = float(torch.rand((), generator=g, dtype=torch.float64))
    pos = (u0 + np.arange(n)) / n
    idx = np.minimum(np.searchsorted(np.cumsum(w), pos, side="right"), len(w) - 1)
    return idx, ess


def mc_targets(cost, mart, r, lam, control_variate):
    r"""Cost-to-go :math:`G_k = \sum_{j \ge k} c_j - \lambda r(X_K)` (+ :math:`\sum_{j\ge k} u_j\cdot\Delta B_j`),
    shape (K+1, n); row K is the terminal condition :math:`-\lambda r`."""
    K, n = cost.shape
    tail = np.zeros((K + 1, n))
    tail[:K] = np.cumsum(cost[::-1], axis=0)[::-1]
    if control_variate:
        tail[:K] += np.cumsum(mart[::-1], axis=0)[::-1]
    return tail - lam * r[None, :]


# ------------------------------------------------------------------------------------------ memory
@contextlib.contextmanager
def saved_tensor_bytes():
    """Count the bytes of every tensor autograd saves for backward inside the block (``box[0]``)."""
    box = [0]

    def pack(t):
        box[0] += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        yield box


def param_bytes(module):
    return sum(p.numel() * p.element_size() for p in module.parameters() if p.requires_grad)


# ------------------------------------------------------------------------------------------ Gaussian oracles
def gaussian_posterior(x, t, mean, var):
    r"""Posterior of :math:`X_1 \sim N(m, s^2 I)` given :math:`X_t = x` on the linear path
    :math:`X_t = t X_1 + (1 - t) X_0`: precision :math:`P_t = 1/s^2 + t^2/(1-t)^2`, mean
    :math:`(m/s^2 + t x/(1-t)^2)/P_t` (numpy; t < 1)."""
    x = np.asarray(x, dtype=float)
    t = np.asarray(t, dtype=float).reshape(-1, 1)
    w = t * t / (1.0 - t) ** 2
    P = 1.0 / var + w
    mu = (np.asarray(mean, dtype=float)[None, :] / var + t * x / (1.0 - t) ** 2) / P
    return mu, 1.0 / P[:, 0]


def exact_value(x, t, mean, var, lam, a=None, c=None):
    r"""Closed-form :math:`V^*(x, t) = -\log E[e^{\lambda r(X_1)} \mid X_t = x]` for a Gaussian base.

    Linear :math:`r = a^\top x`: :math:`V^* = -\lambda a^\top\mu_{post} - \tfrac12 \lambda^2 \lVert a\rVert^2/P_t`.
    Quadratic :math:`r = -\lVert x - c\rVert^2/2`: :math:`V^* = \tfrac d2 \log(1 + \lambda\tau)
    + \lambda \lVert\mu_{post} - c\rVert^2 / (2(1 + \lambda\tau))`, :math:`\tau = 1/P_t`.
    At t = 1 both are :math:`-\lambda r(x)`.
    """
    x = np.asarray(x, dtype=float)
    t = np.broadcast_to(np.asarray(t, dtype=float), (x.shape[0],))
    out = np.empty(x.shape[0])
    one = t >= 1.0
    if a is not None:
        a = np.asarray(a, dtype=float)
        if one.any():
            out[one] = -lam * x[one] @ a
        if (~one).any():
            mu, tau = gaussian_posterior(x[~one], t[~one], mean, var)
            out[~one] = -lam * mu @ a - 0.5 * lam ** 2 * (a @ a) * tau
        return out
    c = np.asarray(c, dtype=float)
    d = x.shape[1]
    if one.any():
        out[one] = lam * 0.5 * ((x[one] - c) ** 2).sum(1)
    if (~one).any():
        mu, tau = gaussian_posterior(x[~one], t[~one], mean, var)
        out[~one] = 0.5 * d * np.log1p(lam * tau) + lam * ((mu - c) ** 2).sum(1) / (2 * (1 + lam * tau))
    return out


def exact_tilt(mean, var, lam, a=None, c=None):
    r"""Mean and (isotropic) variance of the tilt :math:`p^* \propto N(m, s^2 I)\, e^{\lambda r}`:
    linear: :math:`N(m + \lambda s^2 a, s^2 I)`; quadratic: :math:`N((m/s^2 + \lambda c)/(1/s^2 + \lambda),
    (1/s^2 + \lambda)^{-1} I)`."""
    m = np.asarray(mean, dtype=float)
    if a is not None:
        return m + lam * var * np.asarray(a, dtype=float), float(var)
    prec = 1.0 / var + lam
    return (m / var + lam * np.asarray(c, dtype=float)) / prec, float(1.0 / prec)


def check_int(v, name, minimum):
    return check_positive_int(v, name, minimum=minimum)


_ = Any
