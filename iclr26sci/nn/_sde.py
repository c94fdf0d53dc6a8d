r"""The ODE-to-SDE conversion of a flow model: Flow-GRPO's per-step Gaussian policy and Adjoint Matching's
memoryless SDE.

Time convention of :mod:`iclr26sci.nn`: :math:`t = 0` noise, :math:`t = 1` data, velocity
:math:`v = dx/dt`. On the linear path :math:`x_t = \beta_t x_0 + t x_1`,
:math:`\beta_t = 1 - (1 - \sigma_{\min}) t`, the noise prediction and the score follow from the velocity:

.. math::

    E[x_0 \mid x_t = x] = x - t\, v(x, t), \qquad \nabla_x \log p_t(x) = -\frac{x - t\, v(x, t)}{\beta_t}.

For any diffusion coefficient :math:`g(t)`, the SDE :math:`dX = [v + \tfrac{g^2}{2} \nabla \log p_t]\, dt + g\, dW`
has the same marginals :math:`p_t` as the ODE :math:`dX = v\, dt` (the Fokker-Planck equations agree).

*Flow-GRPO* (Liu et al. 2025) takes :math:`g(t) = a \sqrt{(1 - t)/t}` (noise level :math:`a`). Written in
SD3's time :math:`\sigma = 1 - t` (:math:`\sigma = 1` noise) with the network output :math:`u = dx/d\sigma = -v`
this is their :math:`\sigma_t = a\sqrt{\sigma/(1 - \sigma)}` and
:math:`x_{\sigma + \Delta\sigma} = x + \Delta\sigma\,[u + \tfrac{\sigma_t^2}{2\sigma}(x + (1 - \sigma) u)]
+ \sigma_t \sqrt{|\Delta\sigma|}\,\varepsilon`. One Euler-Maruyama step of length :math:`h > 0` from
:math:`t` is the Gaussian policy

.. math::

    \pi(x' \mid x) = N\bigl(\mu, s^2 I\bigr), \quad
    \mu = x + h\Bigl[v - \frac{a^2 (1 - t)}{2\, \tilde t\, \beta_t}\,(x - t\, v)\Bigr], \quad
    s = a \sqrt{\frac{1 - t}{\tilde t}}\,\sqrt{h},

with :math:`\tilde t = t` except at :math:`t = 0`, where :math:`\tilde t = t + h` (Flow-GRPO replaces
:math:`\sigma = 1` by the grid's second :math:`\sigma` there, which is the same point on the first step).

*Memoryless SDE* (Adjoint Matching, Domingo-Enrich et al. 2025): :math:`g(t)^2 = 2(1 - t)/t`, i.e. :math:`a = \sqrt 2`,
the drift becomes :math:`b(x, t) = 2 v(x, t) - x / t` and :math:`X_0` and :math:`X_1` are independent;
a control :math:`u` enters as :math:`dX = (b + g\, u)\, dt + g\, dW`.

Log-likelihoods default to Flow-GRPO's *mean* over the event dimensions (``reduce="mean"``); ``"sum"`` gives the
true log-density of the step. The KL between two steps is the closed form for Gaussians (for the same std it is
:math:`\|\mu_1 - \mu_2\|^2 / (2 s^2)`).

References
----------
Liu et al. (2025), Flow-GRPO: Training flow matching models via online RL, arXiv:2505.05470.
Domingo-Enrich, Drozdzal, Karrer, Chen (2025), Adjoint Matching: fine-tuning flow and diffusion generative
models with memoryless stochastic optimal control, ICLR, arXiv:2409.08861.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr26sci.core import InputError, check_in_range, check_option, check_positive_int, torch_generator

from ._flow import FlowMatching, SampleResult, _as_tensor_data, _check_cond, _check_times, _resolve_velocity

import torch

__all__ = ["flow_sde", "FlowSDE", "SDEStep", "memoryless_sde", "MemorylessSDE"]

_LOG2PI = math.log(2 * math.pi)
_REDUCE = ("mean", "sum", "none")


def _reduce(x, reduce):
    if reduce == "none":
        return x
    flat = x.reshape(x.shape[0], -1)
    return flat.mean(1) if reduce == "mean" else flat.sum(1)


@dataclass(frozen=True, repr=False)
class SDEStep:
    r"""One Gaussian transition :math:`N(\mu, s^2 I)` of a stochastic flow sampler, with its drawn sample.

    Attributes
    ----------
    mean : torch.Tensor (B, *event_shape)
        :math:`\mu`.
    std : torch.Tensor (B, 1, ..., 1)
        :math:`s` per row, shaped to broadcast against ``mean``.
    sample : torch.Tensor (B, *event_shape)
        The next state :math:`x' = \mu + s\,\varepsilon` (or the ``x_next`` given to ``step``).
    t, dt : torch.Tensor (B,)
        Start time and step length (``t + dt`` is the end time).
    velocity : torch.Tensor
        The velocity :math:`v(x_t, t)` the step used.

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.nn import GaussianFlowOracle, flow_sde
    >>> sde = flow_sde(GaussianFlowOracle(mean=[0.0, 1.0]), noise_level=0.7)
    >>> st = sde.step(torch.zeros(5, 2, dtype=torch.float64), t=0.5, dt=0.1, rng=0)
    >>> st.log_prob(st.sample, reduce="sum").shape, float(st.kl(st).max())
    (torch.Size([5]), 0.0)
    """

    mean: Any
    std: Any
    sample: Any
    t: Any
    dt: Any
    velocity: Any = None
    extra: dict = field(default_factory=dict)

    def __repr__(self):
        s = self.std.reshape(-1)
        return (f"SDEStep(B={self.mean.shape[0]}, shape={tuple(self.mean.shape[1:])}, "
                f"std in [{s.min().item():.4g}, {s.max().item():.4g}])")

    def summary(self) -> str:
        t = self.t.reshape(-1)
        return (f"Gaussian step from t={t.min().item():.4g} by dt={self.dt.reshape(-1).max().item():.4g} for "
                f"{self.mean.shape[0]} rows of shape {tuple(self.mean.shape[1:])}; "
                f"std {self.std.reshape(-1).mean().item():.4g} (mean over rows)")

    def to_dict(self) -> dict:
        return {"B": int(self.mean.shape[0]), "shape": list(self.mean.shape[1:]),
                "t": self.t.reshape(-1).tolist(), "dt": self.dt.reshape(-1).tolist(),
                "std": self.std.reshape(-1).tolist()}

    def log_prob(self, x_next, reduce="mean"):
        r"""Log-density of ``x_next`` under the step, elementwise then reduced over the event dimensions.

        .. math:: \ell = -\frac{(x' - \mu)^2}{2 s^2} - \log s - \tfrac12 \log 2\pi \quad (\text{per entry})

        Parameters
        ----------
        x_next : tensor shaped like ``mean``
            The next state.
        reduce : {"mean", "sum", "none"}, default "mean"
            ``"mean"``: Flow-GRPO's average over the event dimensions; ``"sum"``: the log-density;
            ``"none"``: per entry.
        """
        reduce = check_option(reduce, "reduce", list(_REDUCE))
        if not torch.is_tensor(x_next):
            x_next = torch.as_tensor(np.asarray(x_next, dtype=float), dtype=self.mean.dtype)
        if x_next.shape != self.mean.shape:
            raise InputError("x_next", f"has shape {tuple(x_next.shape)}", f"shape {tuple(self.mean.shape)}")
        s = self.std
        lp = -((x_next - self.mean) ** 2) / (2 * s * s) - torch.log(s) - 0.5 * _LOG2PI
        return _reduce(lp, reduce)

    def kl(self, other, reduce="mean"):
        r"""Closed-form :math:`KL(\text{self} \,\|\, \text{other})` between the two Gaussian steps.

        .. math:: \mathrm{KL} = \log\frac{s_2}{s_1} + \frac{s_1^2 + (\mu_1 - \mu_2)^2}{2 s_2^2} - \frac12
            \quad (\text{per entry; } = (\mu_1 - \mu_2)^2 / (2 s^2) \text{ for equal stds})

        Parameters
        ----------
        other : SDEStep
            The reference step (same shape), e.g. from a frozen reference model.
        reduce : {"mean", "sum", "none"}, default "mean"
        """
        reduce = check_option(reduce, "reduce", list(_REDUCE))
        if not isinstance(other, SDEStep):
            raise InputError("other", f"got {type(other).__name__}", "an SDEStep")
        if other.mean.shape != self.mean.shape:
            raise InputError("other", f"has shape {tuple(other.mean.shape)}", f"shape {tuple(self.mean.shape)}")
        s1, s2 = self.std, other.std
        kl = torch.log(s2 / s1) + (s1 * s1 + (self.mean - other.mean) ** 2) / (2 * s2 * s2) - 0.5
        return _reduce(kl, reduce)

    def entropy(self, reduce="mean"):
        r"""Differential entropy :math:`\tfrac12 \log(2\pi e s^2)` per entry, reduced over the event dimensions."""
        reduce = check_option(reduce, "reduce", list(_REDUCE))
        h = (0.5 * (1 + _LOG2PI) + torch.log(self.std)).expand_as(self.mean)
        return _reduce(h, reduce)


def _as_time(value, name, B, dtype, device, low, high, low_open=False):
    if torch.is_tensor(value):
        v = value.detach().to(device=device, dtype=dtype).reshape(-1)
        if v.numel() == 1:
            v = v.expand(B)
        if v.numel() != B:
            raise InputError(name, f"has {v.numel()} entries", f"a scalar or one value per row ({B})")
        vn = v.cpu().numpy()
        if not np.all(np.isfinite(vn)) or vn.min() < low or vn.max() > high or (low_open and vn.min() <= low):
            raise InputError(name, f"has values outside {'(' if low_open else '['}{low}, {high}]",
                             f"values in {'(' if low_open else '['}{low}, {high}]")
        return v
    v = check_in_range(value, name, low, high, low_open=low_open)
    return torch.full((B,), v, dtype=dtype, device=device)


def _torch_gen(rng, device):
    if isinstance(rng, torch.Generator):
        return rng
    return torch_generator(rng, device=str(device) if str(device).startswith("cuda") else "cpu")


def gaussian_step_moments(x, v, t, h, a2, sigma_min=0.0):
    r"""Mean and std of one Euler-Maruyama step of the marginal-preserving SDE with
    :math:`g(t)^2 = a^2 (1 - t)/\tilde t` (see the module docstring); torch, differentiable in ``x`` and ``v``.

    ``t`` and ``h`` are (B,) tensors; ``a2`` is a float or a tensor broadcastable to (B, 1, ..., 1).
    """
    shape = (-1,) + (1,) * (x.ndim - 1)
    tb, hb = t.reshape(shape), h.reshape(shape)
    te = torch.where(tb == 0, tb + hb, tb)             # Flow-GRPO's rule at t = 0 (sigma = 1)
    beta = 1 - (1 - sigma_min) * tb
    eps = x - tb * v                                   # E[x_0 | x_t], the noise prediction
    g2 = a2 * (1 - tb) / te                            # g(t)^2
    mean = x + hb * (v - g2 / (2 * beta) * eps)        # drift v + (g^2 / 2) * score, score = -eps / beta
    std = torch.sqrt(g2 * hb)
    return mean, std


class _GaussianFlowSDE:
    """Shared machinery: a velocity source and the Gaussian Euler-Maruyama step of an SDE with p_t marginals."""

    _kind = "sde"

    def __init__(self, fm, shape=None):
        from ._oracle import GaussianFlowOracle

        if isinstance(fm, FlowMatching):
            if getattr(fm, "path", "linear") != "linear":
                raise InputError("fm", f"was trained on path={fm.path!r}: OT pairing couples noise and data, so "
                                 "the score-from-velocity identity behind the SDE does not hold",
                                 "a FlowMatching trained with path='linear'")
            sigma_min = float(fm.sigma_min)
        elif isinstance(fm, GaussianFlowOracle):
            if fm.path != "linear":
                raise InputError("fm", "is an oracle of the OT path (coupled noise and data)", "path='linear'")
            sigma_min = fm.sigma_min
        else:
            sigma_min = 0.0
        self.fm = fm
        self.sigma_min = sigma_min
        try:
            (self._v, self.event_shape, self.n_classes, self.cond_dim, self.device,
             self.dtype) = _resolve_velocity(fm, shape)
        except InputError as exc:
            if exc.argument == "velocity":
                raise InputError("fm", exc.problem, exc.expected) from None
            raise

    # -- the schedule ---------------------------------------------------------------------------
    def _a2(self, t):
        """The squared noise level a(t)^2 in g(t)^2 = a^2 (1 - t) / t; FlowSDE and MemorylessSDE define it."""
        raise NotImplementedError(f"{type(self).__name__} must define its noise schedule _a2(t)")

    def diffusion(self, t, dt=None):
        r"""Diffusion coefficient :math:`g(t)` (at :math:`t = 0` evaluated at :math:`t + dt`, the first grid point)."""
        t = torch.as_tensor(t, dtype=torch.float64)
        te = torch.where(t == 0, torch.as_tensor(0.0 if dt is None else dt, dtype=torch.float64), t)
        return torch.sqrt(self._a2(t) * (1 - t) / te)

    # -- one step -------------------------------------------------------------------------------
    def _prepare(self, x_t, t, dt, cond, x_name="x_t"):
        if not torch.is_tensor(x_t):
            x_t = torch.as_tensor(_as_tensor_data(x_t, x_name, self.event_shape), device=self.device)
            x_t = x_t.to(self.dtype)
        if x_t.ndim < 2 or tuple(x_t.shape[1:]) != tuple(self.event_shape):
            raise InputError(x_name, f"has shape {tuple(x_t.shape)}",
                             f"shape (B, {', '.join(map(str, self.event_shape))})")
        if not torch.is_floating_point(x_t):
            raise InputError(x_name, f"has dtype {x_t.dtype}", "a floating-point tensor")
        if x_t.shape[0] == 0:
            raise InputError(x_name, "is empty (0 rows)", "at least one row")
        if not bool(torch.isfinite(x_t).all()):
            raise InputError(x_name, "contains NaN or infinite values", "finite numbers")
        B = x_t.shape[0]
        tt = _as_time(t, "t", B, x_t.dtype, x_t.device, 0.0, 1.0)
        if dt is None:
            c = _check_cond(cond, B, self.n_classes, self.cond_dim, x_t.device)
            return x_t, tt, None, c
        hh = _as_time(dt, "dt", B, x_t.dtype, x_t.device, 0.0, 1.0, low_open=True)
        if bool((tt + hh > 1 + 1e-9).any()):
            raise InputError("dt", "takes a step past t = 1", "t + dt <= 1")
        c = _check_cond(cond, B, self.n_classes, self.cond_dim, x_t.device)
        return x_t, tt, hh, c

    def _moments(self, x, v, t, h):
        """Mean and std of the Euler-Maruyama step (torch, differentiable in x and v)."""
        return gaussian_step_moments(x, v, t, h, self._a2(t), self.sigma_min)

    def step_from_velocity(self, x_t, v, t, dt, x_next=None, rng=None, control=None):
        """The step given an already computed velocity ``v`` (e.g. a diffusers model output, converted)."""
        x_t, tt, hh, _ = self._prepare(x_t, t, dt, None)
        if not torch.is_tensor(v) or v.shape != x_t.shape:
            raise InputError("v", f"has shape {None if not torch.is_tensor(v) else tuple(v.shape)}",
                             f"a tensor shaped like x_t {tuple(x_t.shape)}")
        return self._finish(x_t, v, tt, hh, x_next, rng, control)

    def _finish(self, x_t, v, tt, hh, x_next, rng, control):
        mean, std = self._moments(x_t, v, tt, hh)
        if control is not None:
            if not torch.is_tensor(control) or control.shape != x_t.shape:
                raise InputError("control", "has the wrong shape", f"a tensor shaped like x_t {tuple(x_t.shape)}")
            g = std / torch.sqrt(hh.reshape(std.shape))
            mean = mean + hh.reshape(std.shape) * g * control
        if x_next is None:
            g = _torch_gen(rng, x_t.device)
            noise = torch.randn(x_t.shape, generator=g, dtype=torch.float64,
                                device="cpu" if g.device.type == "cpu" else x_t.device).to(x_t.device, x_t.dtype)
            sample = mean + std * noise
        else:
            if not torch.is_tensor(x_next):
                x_next = torch.as_tensor(np.asarray(x_next, dtype=float), dtype=x_t.dtype, device=x_t.device)
            if x_next.shape != x_t.shape:
                raise InputError("x_next", f"has shape {tuple(x_next.shape)}", f"shape {tuple(x_t.shape)}")
            sample = x_next
        return SDEStep(mean=mean, std=std, sample=sample, t=tt, dt=hh, velocity=v)

    def step(self, x_t, t, dt, cond=None, guidance=1.0, rng=None, x_next=None, control=None):
        r"""One Gaussian transition from time ``t`` to ``t + dt``; see the module docstring for the formulas.

        Parameters
        ----------
        x_t : tensor (B, *event_shape)
            Current states.
        t : float or tensor (B,)
            Current times in [0, 1) (0 noise, 1 data).
        dt : float > 0 or tensor (B,)
            Step lengths, ``t + dt <= 1``.
        cond : int, array or tensor, optional
            Condition (labels / vectors) of the model.
        guidance : float, default 1
            Classifier-free guidance weight applied to the velocity.
        rng : seed, Generator or torch.Generator, optional
            Noise of the drawn ``sample`` (None: fresh entropy).
        x_next : tensor, optional
            A stored next state to evaluate instead of drawing one (recomputing log-probabilities).
        control : tensor, optional
            A control :math:`u` added to the drift as :math:`g(t)\, u` (stochastic optimal control).

        Returns
        -------
        SDEStep
        """
        x_t, tt, hh, c = self._prepare(x_t, t, dt, cond)
        w = check_in_range(guidance, "guidance")
        v = self._v(x_t, tt, c, w)
        return self._finish(x_t, v, tt, hh, x_next, rng, control)

    def sample(self, n=None, cond=None, steps=10, guidance=1.0, rng=0, x0=None, times=None, reduce="mean",
               return_trajectory=True):
        """Run the SDE from noise at ``times[0]`` to ``times[-1]``; returns a :class:`SampleResult` with
        ``trajectory`` (steps + 1, n, ...) and per-step ``log_prob`` (steps, n) of the drawn transitions.

        Parameters
        ----------
        n : int
            Number of trajectories (or give ``x0``).
        cond, guidance
            As in :meth:`step`.
        steps : int >= 1, default 10
            Uniform grid size (ignored when ``times`` is given).
        rng : seed, Generator or torch.Generator, default 0
        x0 : tensor (n, *event_shape), optional
            Initial states at ``times[0]``.
        times : array, optional
            Increasing grid.
        reduce : {"mean", "sum", "none"}, default "mean"
            Reduction of the stored per-step log-likelihoods.
        return_trajectory : bool, default True
        """
        t_start = time.perf_counter()
        steps = check_positive_int(steps, "steps")
        grid = _check_times(times, steps)
        reduce = check_option(reduce, "reduce", list(_REDUCE))
        g = _torch_gen(rng, self.device)
        if x0 is not None:
            x = torch.as_tensor(_as_tensor_data(x0, "x0", self.event_shape), device=self.device).to(self.dtype)
        else:
            if n is None:
                raise InputError("n", "is missing", "the number of trajectories (or x0)")
            n = check_positive_int(n, "n")
            x = torch.randn((n, *self.event_shape), generator=g, dtype=torch.float64).to(self.device, self.dtype)
        traj, lps = [x], []
        with torch.no_grad():
            for k in range(len(grid) - 1):
                st = self.step(x, float(grid[k]), float(grid[k + 1] - grid[k]), cond=cond, guidance=guidance, rng=g)
                lps.append(st.log_prob(st.sample, reduce=reduce))
                x = st.sample
                traj.append(x)
        return SampleResult(x=x, nfe=len(grid) - 1, steps=len(grid) - 1, solver=self._kind, guidance=guidance,
                            times=grid, trajectory=torch.stack(traj) if return_trajectory else None,
                            log_prob=torch.stack(lps), seconds=time.perf_counter() - t_start)


class FlowSDE(_GaussianFlowSDE):
    r"""Flow-GRPO's SDE of a flow model: :math:`g(t) = a\sqrt{(1 - t)/t}`, the same marginals as the ODE.

    Build it with :func:`flow_sde`. :meth:`step` returns the per-step Gaussian policy (:class:`SDEStep`).

    Parameters
    ----------
    fm : FlowMatching, GaussianFlowOracle or velocity network
        The flow model (linear path).
    noise_level : float >= 0, default 0.7
        :math:`a` (Flow-GRPO uses 0.7 for SD3.5-M, 0.9 for FLUX); 0 gives the ODE's Euler step.
    shape : tuple, optional
        Event shape of a network without an ``event_shape`` attribute.

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.nn import GaussianFlowOracle, flow_sde
    >>> sde = flow_sde(GaussianFlowOracle(mean=[1.0, -1.0], cov=[[1.0, 0.0], [0.0, 0.5]]), noise_level=0.7)
    >>> sde
    FlowSDE(noise_level=0.7, event_shape=(2,))
    >>> step = sde.step(torch.zeros(4, 2), 0.5, 0.1, rng=0)
    >>> step.log_prob(step.sample).shape
    torch.Size([4])
    """

    _kind = "flow-sde"

    def __init__(self, fm, noise_level=0.7, shape=None):
        self.noise_level = check_in_range(noise_level, "noise_level", 0.0)
        super().__init__(fm, shape)

    def _a2(self, t):
        return self.noise_level ** 2

    def __repr__(self):
        return f"FlowSDE(noise_level={self.noise_level:g}, event_shape={self.event_shape})"


class MemorylessSDE(_GaussianFlowSDE):
    r"""Adjoint Matching's memoryless SDE of a flow model: :math:`g(t)^2 = 2(1 - t)/t`, drift
    :math:`b(x, t) = 2v(x, t) - x/t`; :math:`X_0` and :math:`X_1` are independent and the marginals are the ODE's.

    Build it with :func:`memoryless_sde`. A control :math:`u(x, t)` enters :meth:`step` as ``control=u``
    (drift :math:`b + g\, u`), the form used by Adjoint Matching and value-function guidance.
    At :math:`t = 0` the step uses :math:`g(h)` (the first grid point), as :class:`FlowSDE` does.

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.nn import GaussianFlowOracle, memoryless_sde
    >>> sde = memoryless_sde(GaussianFlowOracle(mean=[1.0, -1.0], cov=[[1.0, 0.0], [0.0, 0.5]]))
    >>> sde
    MemorylessSDE(event_shape=(2,))
    >>> sde.step(torch.zeros(3, 2), 0.5, 0.1, rng=0).mean.shape
    torch.Size([3, 2])
    """

    _kind = "memoryless-sde"

    def __init__(self, fm, shape=None):
        super().__init__(fm, shape)
        if self.sigma_min != 0:
            raise InputError("fm", f"has sigma_min={self.sigma_min}", "a linear-path model with sigma_min=0")

    def _a2(self, t):
        return 2.0

    def drift(self, x, t, cond=None, guidance=1.0):
        r"""The memoryless drift :math:`b(x, t) = 2 v(x, t) - x / t` (t > 0)."""
        x, tt, _, c = self._prepare(x, t, None, cond, x_name="x")
        if bool((tt <= 0).any()):
            raise InputError("t", "is 0, where the drift -x/t is singular", "t > 0")
        v = self._v(x, tt, c, check_in_range(guidance, "guidance"))
        return 2 * v - x / tt.reshape((-1,) + (1,) * (x.ndim - 1))

    def __repr__(self):
        return f"MemorylessSDE(event_shape={self.event_shape})"


def flow_sde(fm, noise_level=0.7, shape=None) -> FlowSDE:
    r"""The Flow-GRPO ODE-to-SDE conversion of a flow model (same marginals as its ODE, for any noise level).

    Per step :math:`t \to t + h` the policy is :math:`N(\mu, s^2 I)` with
    :math:`\mu = x + h[v - \frac{a^2}{2t}(x - t v)]` and :math:`s = a\sqrt{(1 - t)/t}\sqrt h`
    (:math:`\sigma_{\min} = 0`; see :mod:`iclr26sci.nn._sde`), i.e. Flow-GRPO's
    :math:`\sigma_t = a\sqrt{\sigma/(1 - \sigma)}` in SD3's time :math:`\sigma = 1 - t`.

    Parameters
    ----------
    fm : FlowMatching, GaussianFlowOracle or velocity network
        A flow model on the linear path (OT-CFM models are refused: their noise and data are coupled).
    noise_level : float >= 0, default 0.7
        :math:`a`.
    shape : tuple, optional
        Event shape for a network without an ``event_shape`` attribute.

    Returns
    -------
    FlowSDE

    References
    ----------
    Liu et al. (2025), Flow-GRPO, arXiv:2505.05470, Sec. 4.1 and its code ``sd3_sde_with_logprob.py``.

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.nn import GaussianFlowOracle, flow_sde
    >>> sde = flow_sde(GaussianFlowOracle(mean=[1.0]), noise_level=0.7)
    >>> st = sde.step(torch.zeros(3, 1, dtype=torch.float64), t=0.5, dt=0.1, rng=0)
    >>> round(float(st.std[0]), 4)         # 0.7 * sqrt((1 - 0.5) / 0.5) * sqrt(0.1)
    0.2214
    """
    return FlowSDE(fm, noise_level=noise_level, shape=shape)


def memoryless_sde(fm, shape=None) -> MemorylessSDE:
    r"""Adjoint Matching's memoryless SDE of a linear-path flow model.

    :math:`dX = b\, dt + g\, dW` with :math:`b = 2v - x/t`, :math:`g(t) = \sqrt{2(1 - t)/t}`; its marginals are the
    ODE's and :math:`X_1` is independent of :math:`X_0`, so reward tilting of :math:`X_1` is exact.

    Parameters
    ----------
    fm : FlowMatching, GaussianFlowOracle or velocity network
        A linear-path model with :math:`\sigma_{\min} = 0`.
    shape : tuple, optional
        Event shape for a network without an ``event_shape`` attribute.

    References
    ----------
    Domingo-Enrich et al. (2025), Adjoint Matching, arXiv:2409.08861 (memoryless noise schedule).

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.nn import GaussianFlowOracle, memoryless_sde
    >>> sde = memoryless_sde(GaussianFlowOracle(mean=[1.0]))
    >>> round(float(sde.diffusion(0.5)), 4)     # sqrt(2 * 0.5 / 0.5)
    1.4142
    """
    return MemorylessSDE(fm, shape=shape)
