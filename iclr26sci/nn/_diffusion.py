r"""Discrete-time Gaussian diffusion with per-token noise levels (diffusion forcing), and the DDIM step.

Convention (the DDPM one, unlike the flow time of :mod:`iclr26sci.nn._flow`): a *noise level* is an integer
:math:`\lambda \in \{0, \dots, K-1\}`; level :math:`\lambda` has signal fraction
:math:`\bar\alpha(\lambda) = \prod_{s \le \lambda} (1 - \beta_s)`, so level 0 is nearly clean and level
:math:`K-1` nearly pure noise. The extra level :math:`-1` means *clean*, :math:`\bar\alpha(-1) = 1` (the
target of the last sampling step). Every token of a sequence may carry its own level (diffusion forcing,
Chen et al. 2024): the forward process is

.. math::

    x_i(\lambda_i) = \sqrt{\bar\alpha(\lambda_i)}\, x_i(0) + \sqrt{1 - \bar\alpha(\lambda_i)}\, \varepsilon_i,
    \qquad \varepsilon_i \sim N(0, I),

and one deterministic DDIM step (Song et al. 2021, :math:`\eta = 0`) from level :math:`\lambda` to
:math:`\lambda' < \lambda`, given a prediction :math:`\tilde x_0` of the clean token, is

.. math::

    \tilde\varepsilon = \frac{x - \sqrt{\bar\alpha(\lambda)}\,\tilde x_0}{\sqrt{1 - \bar\alpha(\lambda)}},\qquad
    x' = \sqrt{\bar\alpha(\lambda')}\,\tilde x_0 + \sqrt{1 - \bar\alpha(\lambda') - \sigma^2}\,\tilde\varepsilon
    + \sigma z,

with :math:`\sigma = \eta \sqrt{(1-\bar\alpha(\lambda'))/(1-\bar\alpha(\lambda))}
\sqrt{1 - \bar\alpha(\lambda)/\bar\alpha(\lambda')}`. A token whose level does not decrease
(:math:`\lambda' \ge \lambda`) is copied unchanged, which is what lets tokens of one sequence move at
different paces.

References
----------
Ho, Jain, Abbeel (2020), Denoising diffusion probabilistic models, NeurIPS.
Nichol, Dhariwal (2021), Improved denoising diffusion probabilistic models, ICML (cosine schedule).
Song, Meng, Ermon (2021), Denoising diffusion implicit models, ICLR.
Chen, Martí Monsó, Du, Simchowitz, Tedrake, Sitzmann (2024), Diffusion forcing: next-token prediction meets
full-sequence diffusion, NeurIPS.
"""
from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from iclr26sci.core import InputError, check_in_range, check_option, check_positive_int

__all__ = ["DiffusionSchedule", "q_sample", "ddim_step", "sample_noise_levels", "ddim_levels"]


class DiffusionSchedule:
    r"""A discrete noise schedule :math:`\bar\alpha(\lambda)`, :math:`\lambda = 0, \dots, K-1` (and -1 = clean).

    Parameters
    ----------
    K : int >= 2
        Number of training noise levels (the paper's ``diffusion_steps``: 500; 100 in the CPU miniature).
    kind : {"cosine", "linear"}, default "cosine"
        ``"cosine"`` is Nichol & Dhariwal's schedule,
        :math:`\bar\alpha(t) = f(t)/f(0)`, :math:`f(t) = \cos^2\!\big(\tfrac{t/K + s}{1 + s}\tfrac{\pi}{2}\big)`,
        with :math:`\beta_\lambda = \min(1 - \bar\alpha(\lambda+1)/\bar\alpha(\lambda), 0.999)`;
        ``"linear"`` is DDPM's :math:`\beta` from ``1e-4 * 1000/K`` to ``0.02 * 1000/K``.
    s : float, default 0.008
        The cosine schedule's offset (keeps :math:`\beta_0` away from 0).

    Attributes
    ----------
    betas : ndarray (K,)
    alphas_cumprod : ndarray (K,)
        :math:`\bar\alpha(\lambda)`, decreasing from near 1 to near 0.

    Examples
    --------
    >>> sch = DiffusionSchedule(100)
    >>> sch
    DiffusionSchedule(K=100, kind='cosine')
    >>> round(float(sch.alpha_bar(-1)), 3), round(float(sch.alpha_bar(0)), 3), float(sch.alpha_bar(99)) < 1e-3
    (1.0, 0.999, True)
    """

    def __init__(self, K: int = 500, kind: str = "cosine", s: float = 0.008):
        self.K = check_positive_int(K, "K", minimum=2)
        self.kind = check_option(kind, "kind", ("cosine", "linear"))
        self.s = check_in_range(s, "s", 0.0, 1.0)
        if self.kind == "cosine":
            t = np.arange(self.K + 1, dtype=np.float64) / self.K
            f = np.cos((t + self.s) / (1 + self.s) * math.pi / 2) ** 2
            betas = np.clip(1.0 - f[1:] / f[:-1], 0.0, 0.999)
        else:
            scale = 1000.0 / self.K
            betas = np.linspace(1e-4 * scale, min(0.02 * scale, 0.999), self.K)
        self.betas = betas
        self.alphas_cumprod = np.cumprod(1.0 - betas)

    def __repr__(self):
        return f"DiffusionSchedule(K={self.K}, kind={self.kind!r})"

    def _check_levels(self, levels, name="levels"):
        arr = np.asarray(levels.detach().cpu().numpy() if hasattr(levels, "detach") else levels)
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
                arr = arr.astype(np.int64)
            else:
                raise InputError(name, f"has dtype {arr.dtype}", f"integer noise levels in [-1, {self.K - 1}]")
        if arr.size and (arr.min() < -1 or arr.max() > self.K - 1):
            raise InputError(name, f"has levels in [{arr.min()}, {arr.max()}]", f"integers in [-1, {self.K - 1}]")
        return arr.astype(np.int64)

    def alpha_bar(self, levels):
        r"""The signal fraction :math:`\bar\alpha(\lambda)` of integer ``levels`` (numpy or torch; -1 gives 1).

        Returns the same kind of array as ``levels`` (float64 numpy, or a float torch tensor on its device).

        Examples
        --------
        >>> DiffusionSchedule(1000, kind="linear").alpha_bar([-1, 0, 999]).round(4)
        array([1.    , 0.9999, 0.    ])
        """
        arr = self._check_levels(levels)
        table = np.concatenate([[1.0], self.alphas_cumprod])
        out = table[arr + 1]
        if hasattr(levels, "detach"):
            import torch

            return torch.as_tensor(out, dtype=torch.get_default_dtype(), device=levels.device)
        return out

    def summary(self) -> str:
        """One line: K, kind and the signal fraction at the two ends."""
        return (f"{self.kind} schedule, K={self.K}: alpha_bar(0)={self.alphas_cumprod[0]:.4f}, "
                f"alpha_bar(K-1)={self.alphas_cumprod[-1]:.2e}")

    def to_dict(self) -> dict:
        """``K``, ``kind``, ``s`` and the ``alphas_cumprod`` list."""
        return {"K": self.K, "kind": self.kind, "s": self.s, "alphas_cumprod": self.alphas_cumprod.tolist()}


def _check_schedule(schedule):
    if not isinstance(schedule, DiffusionSchedule):
        raise InputError("schedule", f"got {type(schedule).__name__}", "a DiffusionSchedule")
    return schedule


def _check_finite(t, name):
    import torch

    if t.is_floating_point() and not bool(torch.isfinite(t).all()):
        raise InputError(name, "contains NaN or infinite values", "finite numbers")


def _coef(schedule, levels, like, name="levels"):
    """alpha_bar of ``levels`` as a tensor broadcastable against ``like`` (levels over the leading axes)."""
    import torch

    lv = torch.as_tensor(schedule._check_levels(levels, name), device=like.device)
    ab = torch.as_tensor(np.concatenate([[1.0], schedule.alphas_cumprod]), dtype=like.dtype,
                         device=like.device)[lv + 1]
    if ab.dim() > like.dim():
        raise InputError(name, f"has {ab.dim()} axes, more than the {like.dim()} of x",
                         "levels over the leading axes of x (e.g. (batch, tokens) for x of (batch, tokens, dim))")
    if tuple(ab.shape) != tuple(like.shape[:ab.dim()]) and ab.dim() > 0:
        try:
            torch.broadcast_shapes(tuple(ab.shape), tuple(like.shape[:ab.dim()]))
        except RuntimeError:
            raise InputError(name, f"has shape {tuple(ab.shape)}",
                             f"a shape broadcastable to the leading axes {tuple(like.shape[:ab.dim()])} of x") from None
    return ab.reshape(*ab.shape, *([1] * (like.dim() - ab.dim()))), lv


def q_sample(schedule, x0, levels, noise=None, *, generator=None):
    r"""Noise clean tokens to per-token levels: :math:`x = \sqrt{\bar\alpha(\lambda)}x_0 + \sqrt{1-\bar\alpha(\lambda)}\varepsilon`.

    Parameters
    ----------
    schedule : DiffusionSchedule
    x0 : torch.Tensor (..., D)
        Clean data; the leading axes index tokens (e.g. (batch, tokens, features)).
    levels : int tensor or array
        Noise level of each token, shaped like (a prefix of) the leading axes of ``x0``: ``(batch,)`` gives
        every token of a row one level (ordinary diffusion), ``(batch, tokens)`` one level per token
        (diffusion forcing). Level -1 leaves the token clean.
    noise : torch.Tensor like ``x0``, optional
        The Gaussian noise :math:`\varepsilon` (drawn with ``generator`` when None).
    generator : torch.Generator, optional

    Returns
    -------
    torch.Tensor like ``x0``

    Examples
    --------
    >>> import torch
    >>> sch = DiffusionSchedule(100)
    >>> x0 = torch.ones(2, 3, 4)
    >>> x = q_sample(sch, x0, torch.tensor([[-1, 50, 99], [0, 0, 0]]), torch.zeros(2, 3, 4))
    >>> [round(v, 3) for v in x[0, :, 0].tolist()]
    [1.0, 0.692, 0.0]
    """
    import torch

    schedule = _check_schedule(schedule)
    if not torch.is_tensor(x0):
        raise InputError("x0", f"got {type(x0).__name__}", "a torch tensor of clean tokens")
    _check_finite(x0, "x0")
    ab, _ = _coef(schedule, levels, x0)
    if noise is None:
        noise = torch.randn(x0.shape, generator=generator, dtype=x0.dtype, device=x0.device)
    elif not torch.is_tensor(noise) or noise.shape != x0.shape:
        raise InputError("noise", f"has shape {tuple(getattr(noise, 'shape', ()))}", f"a tensor of x0's shape {tuple(x0.shape)}")
    else:
        _check_finite(noise, "noise")
    return ab.sqrt() * x0 + (1 - ab).sqrt() * noise


def ddim_step(schedule, x, x0_hat, level, next_level, *, eta=0.0, generator=None):
    r"""One DDIM update of every token from its ``level`` to its ``next_level``, given the x0 prediction.

    :math:`\tilde\varepsilon = (x - \sqrt{\bar\alpha(\lambda)}\tilde x_0)/\sqrt{1-\bar\alpha(\lambda)}`,
    :math:`x' = \sqrt{\bar\alpha(\lambda')}\tilde x_0 + \sqrt{1-\bar\alpha(\lambda')-\sigma^2}\,\tilde\varepsilon + \sigma z`
    (``eta`` = 0: deterministic). Tokens with ``next_level == level`` (or ``level == -1``, already clean) are
    returned unchanged, bit for bit; a ``next_level`` above ``level`` (a step towards more noise, which DDIM
    does not define) is refused.

    Parameters
    ----------
    schedule : DiffusionSchedule
    x : torch.Tensor (..., D)
        Current noisy tokens.
    x0_hat : torch.Tensor like ``x``
        The denoiser's prediction of the clean tokens.
    level, next_level : int tensors or arrays
        Current and target level of each token (shaped like a prefix of ``x``'s leading axes); -1 is clean.
    eta : float >= 0, default 0
        DDIM stochasticity (0: the deterministic ODE-like sampler; 1: DDPM's ancestral variance).
    generator : torch.Generator, optional
        For the noise ``z`` when ``eta > 0``.

    Returns
    -------
    torch.Tensor like ``x``

    Examples
    --------
    >>> import torch
    >>> sch = DiffusionSchedule(100)
    >>> x, x0 = torch.randn(1, 2, 3), torch.zeros(1, 2, 3)
    >>> y = ddim_step(sch, x, x0, torch.tensor([[50, 50]]), torch.tensor([[-1, 50]]))
    >>> bool((y[0, 0] == 0).all()), bool((y[0, 1] == x[0, 1]).all())
    (True, True)
    """
    import torch

    schedule = _check_schedule(schedule)
    if not torch.is_tensor(x) or not torch.is_tensor(x0_hat) or x.shape != x0_hat.shape:
        raise InputError("x0_hat", f"has shape {tuple(getattr(x0_hat, 'shape', ()))}",
                         f"a torch tensor of x's shape {tuple(getattr(x, 'shape', ()))}")
    if not torch.is_tensor(x):
        raise InputError("x", f"got {type(x).__name__}", "a torch tensor of noisy tokens")
    _check_finite(x, "x")
    _check_finite(x0_hat, "x0_hat")
    eta = check_in_range(eta, "eta", 0.0, None)
    ab, lv = _coef(schedule, level, x, "level")
    abn, lvn = _coef(schedule, next_level, x, "next_level")
    try:
        up = bool((lvn > lv).any())
    except RuntimeError:
        raise InputError("next_level", f"has shape {tuple(lvn.shape)}, not broadcastable to level's "
                         f"{tuple(lv.shape)}", "levels of the shape of level") from None
    if up:
        raise InputError("next_level", "is above level for some tokens (a step towards more noise)",
                         "next_level <= level for every token (equal: the token is left as it is)")
    move = torch.broadcast_to((lvn < lv) & (lv >= 0), torch.broadcast_shapes(lv.shape, lvn.shape))
    move = move.reshape(*move.shape, *([1] * (x.dim() - move.dim())))
    one_m = torch.clamp(1 - ab, min=1e-20)
    eps = (x - ab.sqrt() * x0_hat) / one_m.sqrt()
    if eta > 0:
        sigma = eta * torch.sqrt((1 - abn) / one_m * torch.clamp(1 - ab / abn, min=0.0))
        z = torch.randn(x.shape, generator=generator, dtype=x.dtype, device=x.device)
    else:
        sigma, z = torch.zeros_like(abn), 0.0
    nxt = abn.sqrt() * x0_hat + torch.clamp(1 - abn - sigma ** 2, min=0.0).sqrt() * eps + sigma * z
    return torch.where(move, nxt, x)


def sample_noise_levels(shape, K, *, mode="independent", low=0, high=None, generator=None):
    r"""Draw training noise levels for diffusion forcing.

    Parameters
    ----------
    shape : tuple of int
        ``(batch, groups)``: one level per row and group (a group is a modality: all its tokens share the
        level, the released LIGHT code's ``rand=1``).
    K : int
        Number of noise levels of the schedule.
    mode : {"independent", "synchronous"}, default "independent"
        ``"independent"``: every (row, group) level i.i.d. uniform on ``{low, ..., high}`` (diffusion forcing);
        ``"synchronous"``: one uniform level per row shared by all groups (ordinary diffusion).
    low, high : int, optional
        Inclusive range; default ``0 .. K-1``.
    generator : torch.Generator, optional

    Returns
    -------
    torch.LongTensor of ``shape``

    Examples
    --------
    >>> import torch
    >>> lv = sample_noise_levels((4, 3), 100, mode="synchronous", generator=torch.Generator().manual_seed(0))
    >>> bool((lv == lv[:, :1]).all()), lv.shape
    (True, torch.Size([4, 3]))
    """
    import torch

    if (not isinstance(shape, (tuple, list)) or len(shape) != 2
            or not all(isinstance(s, Integral) and not isinstance(s, bool) and s >= 1 for s in shape)):
        raise InputError("shape", f"got {shape!r}", "a (batch, groups) tuple of positive ints")
    K = check_positive_int(K, "K", minimum=2)
    mode = check_option(mode, "mode", ("independent", "synchronous"))
    high = K - 1 if high is None else high
    low = check_positive_int(low, "low", minimum=0)
    high = check_positive_int(high, "high", minimum=0)
    if not low <= high <= K - 1:
        raise InputError("high", f"got low={low}, high={high}", f"0 <= low <= high <= K-1 = {K - 1}")
    b, g = int(shape[0]), int(shape[1])
    if mode == "independent":
        return torch.randint(low, high + 1, (b, g), generator=generator)
    return torch.randint(low, high + 1, (b, 1), generator=generator).expand(b, g).clone()


def ddim_levels(K, steps=None):
    r"""The synchronous DDIM level sequence :math:`\lambda_m`, from ``K-1`` down to -1 (clean), ``steps + 1`` entries.

    The levels are ``steps + 1`` integers evenly spaced from ``K - 1`` down to 0, the last replaced by -1 so
    that the final step returns the clean prediction; with ``steps = K - 1`` (the released LIGHT code: 499
    steps for K = 500) they are ``K-1, K-2, ..., 1, -1``.

    Parameters
    ----------
    K : int >= 2
        Number of noise levels of the schedule.
    steps : int in [1, K], optional
        Number of sampling steps (default ``K - 1``).

    Returns
    -------
    ndarray of int64, shape (steps + 1,), strictly decreasing

    Examples
    --------
    >>> ddim_levels(10, 3).tolist()
    [9, 6, 3, -1]
    """
    K = check_positive_int(K, "K", minimum=2)
    steps = K - 1 if steps is None else check_positive_int(steps, "steps")
    if steps > K:
        raise InputError("steps", f"got {steps}", f"an int in [1, K={K}]")
    lv = np.round(np.linspace(K - 1, 0, steps + 1)).astype(np.int64)
    lv[-1] = -1
    if np.any(np.diff(lv) >= 0):
        lv = np.unique(lv)[::-1]
    return lv
