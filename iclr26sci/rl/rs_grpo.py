"""RS-GRPO: the risk-sensitive (entropic) group advantage for RL with verifiable rewards, its peers and pass@k.

Jiang, Huang, Yuan, Mao, Yue, Zhao and Yan, "Risk-Sensitive RL for Alleviating Exploration Dilemmas in Large
Language Models" (arXiv:2509.24261, ICLR 2026; official code ``Jackory/RS-GRPO``).

The objective of a prompt is the entropic risk ``J_beta = (1/beta) log E_y exp(beta r(y))``: the mean reward
at ``beta -> 0`` and the best reward in the support at ``beta -> +inf``. Its exact policy gradient has the
advantage ``A_beta(y) = (1/beta) (exp(beta r(y)) / E exp(beta r) - 1)``, and RS-GRPO estimates it inside a group
of ``G`` samples of one prompt by replacing the expectation with the group mean. Everything here takes the same
``(rewards, group_ids, ...)`` signature so the advantages can be swapped in one place.

This module imports numpy and scipy only; the TRL trainer (:class:`RSGRPOTrainer`) is loaded on first access.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np

from iclr26sci.core import InputError, as_generator, check_in_range, check_option, check_positive_int, spawn

__all__ = [
    "rs_advantage", "grpo_advantage", "dr_grpo_advantage", "pkpo_advantage", "passk_training_advantage",
    "group_advantage", "ADVANTAGES", "binary_rs_weight", "pass_at_k", "verl_rs_advantage",
    "optimal_arm_rate", "bandit_rewards", "bandit_experiment", "BanditResult", "linear_softmax_toy", "ToyResult",
    "RSGRPOTrainer",
]


# ------------------------------------------------------------------------------------------ input handling
def _is_torch(x) -> bool:
    mod = type(x).__module__
    return mod.startswith("torch") and hasattr(x, "detach")


def _as_rewards(rewards, lims: bool = False):
    """(float64 array, torch template or None) of the user's rewards; refuses NaN / inf / non-numeric.

    ``lims=True`` also returns the array's (min, max), from the same single pass as the finiteness check.
    """
    template = None
    if _is_torch(rewards):
        template = rewards
        rewards = rewards.detach().to("cpu").double().numpy()
    try:
        arr = np.asarray(rewards)
    except Exception as exc:  # ragged lists
        raise InputError("rewards", f"could not be read as an array ({exc})", "a 1-D or 2-D array of real rewards")
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise InputError("rewards", f"has dtype {arr.dtype}", "a 1-D or 2-D array of real rewards")
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim not in (1, 2):
        raise InputError("rewards", f"has {arr.ndim} dimensions (shape {arr.shape})",
                         "a 1-D array with group_ids, or a 2-D array (n_groups, group_size) whose rows are groups")
    if arr.size == 0:
        raise InputError("rewards", "is empty", "at least one reward")
    from ._rs_fast import bounds

    lo, hi = bounds(arr)                  # one read-only pass; NaN propagates into the min and the max
    if not (np.isfinite(lo) and np.isfinite(hi)):
        bad = int(np.sum(~np.isfinite(arr)))
        raise InputError("rewards", f"has {bad} non-finite entries (NaN or inf)",
                         "finite rewards (drop or score unscorable completions first)")
    return (arr, template, (lo, hi)) if lims else (arr, template)


def _back(a: np.ndarray, template):
    if template is None:
        return a
    import torch

    dtype = template.dtype if template.dtype.is_floating_point else torch.get_default_dtype()
    return torch.as_tensor(a, dtype=dtype, device=template.device)


@dataclass
class _Grouped:
    """Rewards laid out as a padded (n_groups, max_size) matrix; ``valid`` is None when all groups are full."""

    R: np.ndarray
    valid: np.ndarray | None
    scatter: Any  # None (2-D input: same layout) or (rows, cols) to read a flat array back
    shape: tuple

    @property
    def sizes(self) -> np.ndarray:
        if self.valid is None:
            return np.full(self.R.shape[0], self.R.shape[1])
        return self.valid.sum(1)

    def unpack(self, M: np.ndarray) -> np.ndarray:
        if self.scatter is None:
            return M
        rows, cols = self.scatter
        return M[rows, cols].reshape(self.shape)


def _group(rewards: np.ndarray, group_ids) -> _Grouped:
    if rewards.ndim == 2:
        if group_ids is not None:
            raise InputError("group_ids", "was given with 2-D rewards",
                             "None when rewards is (n_groups, group_size) (rows are groups), or 1-D rewards")
        return _Grouped(rewards, None, None, rewards.shape)
    n = rewards.shape[0]
    if group_ids is None:
        ids = np.zeros(n, dtype=np.int64)
    else:
        if _is_torch(group_ids):
            group_ids = group_ids.detach().cpu().numpy()
        ids = np.asarray(group_ids)
        if ids.ndim != 1:
            raise InputError("group_ids", f"has shape {ids.shape}", "a 1-D array with one group label per reward")
        if ids.shape[0] != n:
            raise InputError("group_ids", f"has length {ids.shape[0]} but rewards has length {n}",
                             "one group label per reward (same length as rewards)")
        if ids.dtype.kind == "f" and not np.all(np.isfinite(ids)):
            raise InputError("group_ids", "has NaN or infinite labels", "hashable, comparable group labels")
    try:
        _, inverse, counts = np.unique(ids, return_inverse=True, return_counts=True)
    except TypeError as exc:
        raise InputError("group_ids", f"could not be sorted ({exc})", "labels of one comparable type (ints or strings)")
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    g_sorted = inverse[order]
    col_sorted = np.arange(n) - starts[g_sorted]
    rows = np.empty(n, dtype=np.int64)
    cols = np.empty(n, dtype=np.int64)
    rows[order] = g_sorted
    cols[order] = col_sorted
    m = int(counts.max())
    R = np.zeros((counts.size, m))
    R[rows, cols] = rewards
    valid = None
    if not np.all(counts == m):
        valid = np.zeros((counts.size, m), dtype=bool)
        valid[rows, cols] = True
    return _Grouped(R, valid, (rows, cols), rewards.shape)


def _check_beta(beta) -> float:
    return check_in_range(beta, "beta")  # any finite real; 0 is the Dr.GRPO limit


def _check_binary(g: _Grouped, method: str):
    R = g.R if g.valid is None else g.R[g.valid]
    if not np.all((R == 0) | (R == 1)):
        raise InputError("rewards", f"has values other than 0 and 1 (e.g. {R[(R != 0) & (R != 1)][0]:g})",
                         f"binary rewards in {{0, 1}}: the {method} advantage is defined for pass/fail rewards")


def _check_k(k, g: _Grouped, method: str) -> int:
    k = check_positive_int(k, "k")
    small = int(g.sizes.min())
    if small <= k and not (small == 1):
        raise InputError("k", f"got k={k} with a group of {small} samples",
                         f"k < group size (the {method} advantage needs n > k samples per group)")
    return k


# -------------------------------------------------------------------------------------------- advantages
def _check_beta_range(g: _Grouped, beta):
    """beta times the spread of a group's rewards must be finite (else e^{beta r} overflows to inf/inf)."""
    R = g.R if g.valid is None else g.R[g.valid]
    span = float(R.max() - R.min()) if R.size else 0.0
    with np.errstate(over="ignore"):
        if not np.isfinite(beta * span) or not np.isfinite(beta * np.abs(R).max()):
            raise InputError("beta", f"got {beta:g}, which overflows beta * reward (reward spread {span:g})",
                             "|beta| * |reward| finite (about < 1e307)")


def _rs_kernel(R, valid, beta):
    n = R.shape[1] if valid is None else valid.sum(1)
    if beta == 0.0:
        A = _dr_kernel(R, valid)
    else:
        z = beta * R
        if valid is not None:
            z = np.where(valid, z, -np.inf)
        zmax = z.max(axis=1, keepdims=True)
        z -= zmax                                  # z <= 0: exp cannot overflow; the mean is >= 1/G
        if abs(beta) < 1e-3:                       # expm1 keeps the small-beta limit accurate
            e = np.exp(z)
            logs = np.log(e.sum(1, keepdims=True) / np.reshape(n, (-1, 1)))
            A = np.expm1(z - logs) / beta
        else:
            e = np.exp(z, out=z)
            s = e.sum(1, keepdims=True)
            s /= np.reshape(n, (-1, 1))
            e /= s
            e -= 1.0
            e /= beta
            A = e
    if valid is not None:
        A = np.where(valid, A, 0.0)
    single = np.reshape(n, -1) == 1
    if np.any(single):
        A[single] = 0.0
    return A


def _dr_kernel(R, valid):
    if valid is None:
        return R - R.mean(1, keepdims=True)
    n = valid.sum(1, keepdims=True)
    mean = np.where(valid, R, 0.0).sum(1, keepdims=True) / n
    return np.where(valid, R - mean, 0.0)


def _grpo_kernel(R, valid, eps, ddof):
    A = _dr_kernel(R, valid)
    n = R.shape[1] if valid is None else valid.sum(1, keepdims=True)
    dof = np.maximum(np.asarray(n) - ddof, 1)
    std = np.sqrt((A * A).sum(1, keepdims=True) / dof)
    return A / (std + eps)


def _finish(g: _Grouped, A: np.ndarray, template):
    return _back(g.unpack(A), template)


def rs_advantage(rewards, group_ids=None, *, beta: float = 2.0):
    r"""The RS-GRPO (risk-sensitive) group advantage, computed stably with logsumexp.

    For a group of ``G`` rewards of one prompt,

    .. math::

        \hat A_i = \frac{1}{\beta}\Big(\frac{e^{\beta r_i}}{\frac1G\sum_j e^{\beta r_j}} - 1\Big)
                 = \frac{1}{\beta}\big(e^{\beta (r_i - Z)} - 1\big),\qquad
        Z = \frac{1}{\beta}\Big(\operatorname{logsumexp}_j(\beta r_j) - \log G\Big),

    the plug-in estimate of the exact advantage of the entropic objective
    ``J = (1/beta) log E exp(beta r)`` (paper Eq. for the RS gradient; official ``risk_sensitive_adv.py``).
    It sums to 0 in every group, is 0 when all rewards tie, increases with ``r_i``, lies in
    ``(-1/beta, (G-1)/beta)`` for ``beta > 0``, and tends to ``r_i - mean(r)`` (the Dr.GRPO advantage, **not**
    the std-normalised GRPO one) as ``beta -> 0``. There is no std normalisation. The exponent is shifted by
    the group maximum, so no ``exp`` overflows for any ``beta`` and reward scale.

    Parameters
    ----------
    rewards : array-like or torch.Tensor
        Scalar rewards, 1-D (one per sampled completion, with ``group_ids``) or 2-D ``(n_groups, G)`` (each row
        one prompt's group; the fast path). Must be finite.
    group_ids : array-like, optional
        For 1-D rewards: the prompt (group) label of each reward; the groups may have different sizes and
        need not be contiguous. ``None`` with 1-D rewards means one group.
    beta : float, default 2.0
        Risk-seeking strength (the paper recommends 2). Larger values weight rare successes on hard prompts
        more; ``0`` gives the mean-centred limit exactly; negative values are risk-averse.

    Returns
    -------
    ndarray or torch.Tensor
        Advantages with the shape of ``rewards`` (a tensor of the input's dtype and device for tensor input;
        the arithmetic is done in float64).

    Notes
    -----
    **Singleton groups get advantage 0** (no within-group comparison is possible). The official code gives
    them ``(e^{beta r} - 1)/beta`` (baseline 0, verl's GRPO convention); see :func:`verl_rs_advantage`.
    For binary rewards the advantage is ``(r_i - p) w(p)`` with ``p`` the group accuracy and
    ``w(p) = (e^beta - 1)/(beta (1 - p + p e^beta))`` (:func:`binary_rs_weight`).

    References
    ----------
    Jiang et al. (2025), Risk-Sensitive RL for Alleviating Exploration Dilemmas in LLMs, arXiv:2509.24261.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.rl import rs_advantage
    >>> A = rs_advantage([1.0, 0.0, 0.0, 0.0, 1.0, 1.0], [0, 0, 0, 1, 1, 1], beta=2.0)
    >>> np.round(A, 4)
    array([ 0.6805, -0.3402, -0.3402, -0.4049,  0.2025,  0.2025])
    >>> float(abs(A[:3].sum()) < 1e-12)
    1.0
    """
    beta = _check_beta(beta)
    R, template, (lo, hi) = _as_rewards(rewards, lims=True)
    # fast paths (blocked in-cache sweep for 2-D, sort-free bincount for integer labels); they decline
    # (None) anything unusual, which then takes the reference path below
    from . import _rs_fast

    with np.errstate(over="ignore"):     # |beta| * 2 max|r| bounds every group's beta * spread: if it is not
        safe = bool(np.isfinite(abs(beta) * 2.0 * max(abs(lo), abs(hi))))   # finite, take the checked path
    if not safe:
        fast = None
    elif R.ndim == 2 and group_ids is None:
        fast = _rs_fast.rows(R, beta, (lo, hi))
    else:
        fast = _rs_fast.flat(R, group_ids, beta, (lo, hi)) if R.ndim == 1 else None
    if fast is not None:
        return _back(fast, template)
    g = _group(R, group_ids)
    _check_beta_range(g, beta)
    return _finish(g, _rs_kernel(g.R, g.valid, beta), template)


def grpo_advantage(rewards, group_ids=None, *, eps: float = 1e-6, ddof: int = 0):
    r"""The GRPO advantage: the reward minus its group mean, divided by the group standard deviation.

    .. math:: \hat A_i = \frac{r_i - \bar r}{\operatorname{std}(r) + \varepsilon}

    (Shao et al. 2024, DeepSeekMath). For binary rewards the weight on ``r - p`` is ``1/sqrt(p(1-p))``
    (``ddof=0``), U-shaped in the group accuracy ``p``. Groups with equal rewards get 0.

    Parameters
    ----------
    rewards, group_ids
        As in :func:`rs_advantage`.
    eps : float, default 1e-6
        Added to the std (verl uses 1e-6, TRL 1e-4).
    ddof : int, default 0
        0: population std; 1: the sample std of TRL and verl (``torch.std``).

    Returns
    -------
    ndarray or torch.Tensor

    References
    ----------
    Shao et al. (2024), DeepSeekMath, arXiv:2402.03300.

    Examples
    --------
    >>> from iclr26sci.rl import grpo_advantage
    >>> grpo_advantage([1.0, 0.0, 0.0, 1.0], eps=0.0)
    array([ 1., -1., -1.,  1.])
    """
    eps = check_in_range(eps, "eps", 0.0)
    if ddof not in (0, 1) or isinstance(ddof, bool):
        raise InputError("ddof", f"got {ddof!r}", "0 (population std) or 1 (sample std)")
    R, template = _as_rewards(rewards)
    g = _group(R, group_ids)
    A = _grpo_kernel(g.R, g.valid, eps, ddof)
    if g.valid is not None:
        A = np.where(g.valid, A, 0.0)
    A[g.sizes == 1] = 0.0
    return _finish(g, A, template)


def dr_grpo_advantage(rewards, group_ids=None):
    r"""The Dr.GRPO advantage: the reward minus its group mean, with no std normalisation.

    .. math:: \hat A_i = r_i - \bar r

    (Liu et al. 2025, "Understanding R1-Zero-Like Training"); the ``beta -> 0`` limit of :func:`rs_advantage`.

    Parameters
    ----------
    rewards, group_ids
        As in :func:`rs_advantage`.

    Returns
    -------
    ndarray or torch.Tensor

    References
    ----------
    Liu et al. (2025), arXiv:2503.20783.

    Examples
    --------
    >>> from iclr26sci.rl import dr_grpo_advantage
    >>> dr_grpo_advantage([1.0, 0.0, 0.0, 0.0])
    array([ 0.75, -0.25, -0.25, -0.25])
    """
    R, template = _as_rewards(rewards)
    g = _group(R, group_ids)
    return _finish(g, _dr_kernel(g.R, g.valid), template)


def _rho(n, c, k):
    """Unbiased pass@k of a group of n samples with c correct: 1 - C(n-c, k)/C(n, k) (vectorised, float)."""
    n = np.asarray(n, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    out = np.ones(np.broadcast(n, c).shape)
    fail = n - c
    ok = fail >= k
    if np.any(ok):
        from scipy.special import gammaln

        nn, ff = np.broadcast_to(n, out.shape)[ok], np.broadcast_to(fail, out.shape)[ok]
        logr = gammaln(ff + 1) - gammaln(ff - k + 1) - gammaln(nn + 1) + gammaln(nn - k + 1)
        out[ok] = -np.expm1(logr)
    return out


def _binary_groups(rewards, group_ids, k, method: str):
    """Shared set-up of the pass@k advantages: grouped binary rewards, a checked ``k``, the group sizes
    ``n`` (column) and the validity mask ``V``."""
    R, template = _as_rewards(rewards)
    g = _group(R, group_ids)
    _check_binary(g, method)
    k = _check_k(k, g, method)
    n = g.sizes.astype(np.float64)[:, None]
    V = np.ones_like(g.R, dtype=bool) if g.valid is None else g.valid
    return g, template, k, n, V


def pkpo_advantage(rewards, group_ids=None, *, k: int = 4):
    r"""The PKPO advantage for pass@k (Walder and Karkhanis 2025), binary rewards, leave-one-out baseline.

    With ``n`` samples and ``c`` correct, the unbiased transformed reward of a sample is ``k/n`` if it is
    correct and ``(k/n) rho(n-1, c, k-1)`` otherwise, where ``rho(n, c, k) = 1 - C(n-c, k)/C(n, k)``; then
    ``E[sum_i s_i grad log pi(y_i)] = grad pass@k = k (1-q)^(k-1) grad q``. The baseline of sample ``i`` is the
    mean transformed reward of the other ``n-1`` samples computed on those samples alone (so it does not
    depend on ``y_i`` and the estimator stays unbiased): ``A_i = s_i - b_i``.

    Parameters
    ----------
    rewards, group_ids
        As in :func:`rs_advantage`; rewards must be 0/1.
    k : int, default 4
        The ``k`` of the pass@k objective; every group needs more than ``k`` samples (singletons get 0).

    Returns
    -------
    ndarray or torch.Tensor

    References
    ----------
    Walder and Karkhanis (2025), Pass@K Policy Optimization, arXiv:2505.15201.

    Examples
    --------
    >>> from iclr26sci.rl import pkpo_advantage
    >>> A = pkpo_advantage([1, 0, 0, 0, 0, 0, 0, 0], k=4)
    >>> bool(A[0] > 0 > A[1])
    True
    """
    g, template, k, n, V = _binary_groups(rewards, group_ids, k, "PKPO")
    c = np.where(V, g.R, 0.0).sum(1, keepdims=True)

    def s_of(r, n_, c_):  # transformed reward of a sample with reward r in a group (n_, c_)
        return np.where(r == 1, k / n_, (k / n_) * _rho(n_ - 1, c_, k - 1))

    s = s_of(g.R, n, c)
    m = n - 1                                      # the other samples
    cm = c - g.R
    with np.errstate(invalid="ignore", divide="ignore"):
        base = (cm * (k / m) + (m - cm) * (k / m) * _rho(m - 1, cm, k - 1)) / m
    A = np.where(V, s - base, 0.0)
    A[np.reshape(n, -1) == 1] = 0.0
    return _finish(g, A, template)


def passk_training_advantage(rewards, group_ids=None, *, k: int = 4):
    r"""The analytical Pass@k-Training group advantage (Chen et al. 2025), binary rewards.

    With ``N`` samples, ``N_neg`` of them wrong, ``R = 1 - C(N_neg, k)/C(N, k)`` (the group's unbiased pass@k)
    and ``sigma = sqrt(R (1 - R))``:

    .. math::

        A_{pos} = \frac{1 - R}{\sigma},\qquad
        A_{neg} = \frac{1 - R - C(N_{neg}-1, k-1)/C(N-1, k-1)}{\sigma},

    and 0 when ``sigma = 0`` (all correct, or too few wrong samples to fill a failing k-subset).

    Parameters
    ----------
    rewards, group_ids
        As in :func:`rs_advantage`; rewards must be 0/1.
    k : int, default 4
        The ``k`` of the pass@k objective (groups need more than ``k`` samples).

    Returns
    -------
    ndarray or torch.Tensor

    References
    ----------
    Chen et al. (2025), Pass@k Training for Adaptively Balancing Exploration and Exploitation, arXiv:2508.10751.

    Examples
    --------
    >>> from iclr26sci.rl import passk_training_advantage
    >>> A = passk_training_advantage([1, 0, 0, 0, 0, 0, 0, 0], k=4)
    >>> bool(A[0] > 0 > A[1])
    True
    """
    g, template, k, n, V = _binary_groups(rewards, group_ids, k, "Pass@k-Training")
    neg = n - np.where(V, g.R, 0.0).sum(1, keepdims=True)
    Rbar = _rho(n, n - neg, k)
    sigma = np.sqrt(np.clip(Rbar * (1 - Rbar), 0.0, None))
    # C(N_neg - 1, k - 1) / C(N - 1, k - 1) = 1 - rho(N - 1, N - N_neg, k - 1) (0 when N_neg - 1 < k - 1)
    ratio = 1.0 - _rho(n - 1, (n - 1) - (neg - 1), k - 1)
    ratio = np.where(neg >= 1, ratio, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        a_pos = np.where(sigma > 0, (1 - Rbar) / sigma, 0.0)
        a_neg = np.where(sigma > 0, (1 - Rbar - ratio) / sigma, 0.0)
    A = np.where(V, np.where(g.R == 1, a_pos, a_neg), 0.0)
    A[np.reshape(n, -1) == 1] = 0.0
    return _finish(g, A, template)


#: method name -> advantage function (all take ``(rewards, group_ids, **params)``)
ADVANTAGES = {
    "rs": rs_advantage, "grpo": grpo_advantage, "dr_grpo": dr_grpo_advantage,
    "pkpo": pkpo_advantage, "passk_training": passk_training_advantage,
}


def group_advantage(rewards, group_ids=None, *, method: str = "rs", **params):
    """Any of the group advantages by name, with one signature.

    Parameters
    ----------
    rewards, group_ids
        As in :func:`rs_advantage`.
    method : {"rs", "grpo", "dr_grpo", "pkpo", "passk_training"}
        Which advantage (see :data:`ADVANTAGES`).
    **params
        That function's keyword parameters (``beta`` for ``"rs"``, ``k`` for the pass@k methods, ...).

    Returns
    -------
    ndarray or torch.Tensor

    Examples
    --------
    >>> from iclr26sci.rl import group_advantage
    >>> group_advantage([1.0, 0.0], method="dr_grpo")
    array([ 0.5, -0.5])
    """
    method = check_option(method, "method", list(ADVANTAGES))
    _check_params(ADVANTAGES[method], params, f"{method}_advantage")
    return ADVANTAGES[method](rewards, group_ids, **params)


def _check_params(fn, params, label, name=None):
    """Refuse keyword parameters ``fn`` does not take, naming the first unknown one (or ``name``)."""
    import inspect

    ok = {p.name for p in inspect.signature(fn).parameters.values() if p.kind == p.KEYWORD_ONLY}
    bad = sorted(set(params) - ok)
    if bad:
        raise InputError(name or bad[0], f"{bad[0]!r} is not a parameter of {label}",
                         f"keywords among {sorted(ok)}" if ok else f"no keyword parameters for {label}")


def binary_rs_weight(p, beta: float = 2.0):
    r"""The weight ``w(p)`` with ``A = (r - p) w(p)`` for the RS advantage of a binary-reward group.

    .. math:: w_{RS}(p) = \frac{e^\beta - 1}{\beta\,(1 - p + p e^\beta)}

    monotone decreasing in the group accuracy ``p``: hard prompts get the larger weight (GRPO's
    ``1/sqrt(p(1-p))`` is U-shaped). ``beta = 0`` gives 1.

    Parameters
    ----------
    p : float or array-like
        Group accuracy ``c/G`` in [0, 1].
    beta : float, default 2.0
        The risk-seeking strength.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from iclr26sci.rl import binary_rs_weight
    >>> round(float(binary_rs_weight(0.5, 2.0)), 3)
    0.762
    """
    beta = _check_beta(beta)
    try:
        p_arr = np.asarray(p, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("p", f"got {p!r}", "group accuracies in [0, 1]") from None
    if not np.all(np.isfinite(p_arr)) or np.any((p_arr < 0) | (p_arr > 1)):
        raise InputError("p", "has entries outside [0, 1]", "group accuracies in [0, 1]")
    if beta == 0:
        w = np.ones_like(p_arr)
    else:
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            if beta > 0:   # divide by e^beta: no overflow for large beta
                w = -np.expm1(-beta) / (beta * (p_arr + (1 - p_arr) * np.exp(-beta)))
            else:
                w = np.expm1(beta) / (beta * (1 + p_arr * np.expm1(beta)))
        if not np.all(np.isfinite(w)):
            raise InputError("beta", f"got {beta:g}: the weight overflows at p = {float(p_arr.min()):g}",
                             "a smaller |beta| (the weight at p = 0 is (e^beta - 1) / beta)")
    return float(w) if w.ndim == 0 else w


# -------------------------------------------------------------------------------------------------- pass@k
def _as_counts(x, name) -> np.ndarray:
    if _is_torch(x):
        x = x.detach().cpu().numpy()
    arr = np.asarray(x)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise InputError(name, f"has dtype {arr.dtype}", "non-negative integer counts")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise InputError(name, "has NaN or infinite entries", "non-negative integer counts")
        if not np.all(arr == np.round(arr)):
            raise InputError(name, "has non-integer entries", "non-negative integer counts")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if np.any(arr < 0):
        raise InputError(name, f"has negative entries (min {arr.min():g})", "non-negative integer counts")
    return arr.astype(np.int64)


def pass_at_k(n_correct, n_samples, k=1, *, per_problem: bool = False):
    r"""The unbiased pass@k estimator (Chen et al. 2021), vectorised over problems and k.

    With ``n`` samples of a problem of which ``c`` are correct,

    .. math::

        \widehat{\text{pass@}k} = 1 - \frac{\binom{n-c}{k}}{\binom{n}{k}}
        = 1 - \prod_{i=n-c+1}^{n}\Big(1 - \frac{k}{i}\Big),

    which is 1 when ``n - c < k``; its expectation over the ``n`` samples is exactly ``1 - (1-q)^k``. The
    product form is evaluated as ``exp(sum log1p(-k/i))`` over cumulative sums (no factorial overflows). The
    plug-in ``1 - (1 - c/n)^k`` is biased low (see check B-7).

    Parameters
    ----------
    n_correct : int or array-like of int
        Number of correct samples per problem.
    n_samples : int or array-like of int
        Number of samples per problem (broadcast against ``n_correct``); needs ``n_correct <= n_samples``.
    k : int or sequence of int, default 1
        The number of attempts; every ``k`` must be between 1 and the smallest ``n_samples``.
    per_problem : bool, default False
        Return the per-problem estimates (shape ``(P,)`` or ``(P, len(k))``) instead of their mean.

    Returns
    -------
    float or ndarray
        The mean over problems (a float for a scalar ``k``, an array of ``len(k)`` values for a sequence).

    References
    ----------
    Chen et al. (2021), Evaluating Large Language Models Trained on Code, arXiv:2107.03374.

    Examples
    --------
    >>> from iclr26sci.rl import pass_at_k
    >>> pass_at_k([0, 2, 16], 16, k=[1, 4, 16]).round(4)
    array([0.375 , 0.4833, 0.6667])
    """
    from iclr26sci.core import check_bool

    per_problem = check_bool(per_problem, "per_problem")
    c = _as_counts(n_correct, "n_correct")
    n = _as_counts(n_samples, "n_samples")
    if c.size == 0 or n.size == 0:
        raise InputError("n_correct" if c.size == 0 else "n_samples", "is empty", "at least one problem")
    try:
        c, n = np.broadcast_arrays(np.atleast_1d(c), np.atleast_1d(n))
    except ValueError:
        raise InputError("n_samples", f"has shape {np.shape(n_samples)}, n_correct has {np.shape(n_correct)}",
                         "a scalar or one count per problem (broadcastable to n_correct)")
    if c.ndim != 1:
        raise InputError("n_correct", f"has shape {c.shape}", "a scalar or a 1-D array (one count per problem)")
    if np.any(c > n):
        i = int(np.argmax(c > n))
        raise InputError("n_correct", f"exceeds n_samples for problem {i} ({c[i]} > {n[i]})",
                         "0 <= n_correct <= n_samples")
    scalar_k = isinstance(k, (Integral, np.integer)) and not isinstance(k, (bool, np.bool_))
    ks = [k] if scalar_k else (list(np.asarray(k).reshape(-1)) if not isinstance(k, (str, bytes)) else [k])
    if len(ks) == 0:
        raise InputError("k", "is empty", "a positive integer or a non-empty sequence of them")
    ks = [check_positive_int(int(x) if isinstance(x, np.integer) else x, "k") for x in ks]
    nmin = int(n.min())
    if max(ks) > nmin:
        raise InputError("k", f"got k={max(ks)} but a problem has only n_samples={nmin}",
                         "1 <= k <= n_samples (pass@k needs at least k samples per problem)")
    nmax = int(n.max())
    i = np.arange(1, nmax + 1, dtype=np.float64)
    out = np.empty((c.shape[0], len(ks)))
    for j, kk in enumerate(ks):
        # T(m) = sum_{i=k+1}^{m} log1p(-k/i), T(m) = 0 for m <= k; fails ratio = exp(T(n) - T(n - c)) if n - c >= k
        terms = np.where(i > kk, np.log1p(-kk / np.maximum(i, kk + 1)), 0.0)
        T = np.concatenate([[0.0], np.cumsum(terms)])
        fail = n - c
        ok = fail >= kk
        val = np.ones(c.shape[0])
        val[ok] = -np.expm1(T[n[ok]] - T[fail[ok]])
        out[:, j] = val
    if per_problem:
        return out[:, 0] if scalar_k else out
    m = out.mean(0)
    return float(m[0]) if scalar_k else m


# ------------------------------------------------------------------------------------------------- verl
def verl_rs_advantage(token_level_rewards, response_mask, index, beta: float = 2.0, *, singleton: str = "zero"):
    """A verl-signature RS-GRPO advantage estimator (the official ``compute_rs_grpo_advantage``, fixed).

    Same inputs and outputs as verl's ``compute_grpo_outcome_advantage``: the sequence score is
    ``token_level_rewards.sum(-1)``, groups are the samples sharing an ``index`` (the prompt uid), and the
    sequence advantage of :func:`rs_advantage` is broadcast over the response tokens and multiplied by the
    mask. It returns ``(advantages, returns)`` with ``returns = advantages``, as verl's GRPO estimator does.
    The official function refers to an array ``pass_at_1_scores`` it never creates (a NameError); this one
    runs. To register it in verl::

        from verl.trainer.ppo.core_algos import register_adv_est
        register_adv_est("rs_grpo")(verl_rs_advantage)

    Parameters
    ----------
    token_level_rewards : torch.Tensor, shape (bs, response_length)
        Token-level rewards (the outcome reward sits on one token; the sum is the sequence reward).
    response_mask : torch.Tensor, shape (bs, response_length)
        1 on response tokens, 0 on padding.
    index : array-like, shape (bs,)
        The group label (prompt uid) of each row.
    beta : float, default 2.0
        Risk-seeking strength; 0 gives ``r - mean``.
    singleton : {"zero", "official"}, default "zero"
        Advantage of a group with one sample: 0, or the official/verl convention (baseline 0), which gives
        ``(e^{beta r} - 1)/beta`` (``r`` at ``beta = 0``).

    Returns
    -------
    advantages, returns : torch.Tensor, shape (bs, response_length)

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.rl import verl_rs_advantage
    >>> adv, ret = verl_rs_advantage(torch.tensor([[0., 1.], [0., 0.]]), torch.ones(2, 2), ["a", "a"])
    >>> adv.shape, bool(torch.equal(adv, ret))
    (torch.Size([2, 2]), True)
    """
    import torch

    singleton = check_option(singleton, "singleton", ["zero", "official"])
    beta = _check_beta(beta)
    if not isinstance(token_level_rewards, torch.Tensor) or token_level_rewards.ndim != 2:
        raise InputError("token_level_rewards", f"got {type(token_level_rewards).__name__}",
                         "a 2-D torch tensor (batch, response_length)")
    if not isinstance(response_mask, torch.Tensor) or tuple(response_mask.shape) != tuple(token_level_rewards.shape):
        raise InputError("response_mask", "is not a tensor of the shape of token_level_rewards",
                         f"a tensor of shape {tuple(token_level_rewards.shape)}")
    if not bool(torch.isfinite(token_level_rewards).all()):
        raise InputError("token_level_rewards", "has NaN or infinite entries", "finite token rewards")
    if not bool(((response_mask == 0) | (response_mask == 1)).all()):
        raise InputError("response_mask", "has values other than 0 and 1", "a 0/1 (or bool) mask of response tokens")
    scores = token_level_rewards.sum(dim=-1)
    idx = np.asarray(index)
    if idx.ndim != 1 or idx.shape[0] != scores.shape[0]:
        raise InputError("index", f"has shape {idx.shape} for {scores.shape[0]} rows",
                         "one group label (prompt uid) per row of token_level_rewards")
    with torch.no_grad():
        A = rs_advantage(scores.detach().double(), idx, beta=beta)
        if singleton == "official":
            _, inv, cnt = np.unique(idx, return_inverse=True, return_counts=True)
            single = torch.as_tensor(cnt[inv.reshape(-1)] == 1)
            s = scores.detach().double()
            off = torch.expm1(beta * s) / beta if beta != 0 else s
            A = torch.where(single, off, A)
        out = A.to(token_level_rewards.dtype).unsqueeze(-1) * response_mask
    return out, out


# --------------------------------------------------------------------------------------------- the lemmas
def _rs_population_advantage(pi, r, beta):
    """Exact A_beta(j) = (1/beta)(e^{beta r_j}/E_pi e^{beta r} - 1) (r_j - E_pi r at beta = 0), stable."""
    if beta == 0:
        return r - pi @ r
    z = beta * r
    zmax = z.max()
    e = np.exp(z - zmax)
    ratio = e / (pi @ e)
    return np.expm1(np.log(ratio)) / beta if abs(beta) < 1e-3 else (ratio - 1.0) / beta


def optimal_arm_rate(pi, rewards, beta: float = 0.0, *, scaled: bool = False) -> float:
    r"""Exact first-order change of the optimal arm's probability under one RS policy-gradient step.

    For a softmax policy ``pi_j ∝ e^{theta_j}`` on a K-armed bandit with rewards ``r``, the exact gradient of
    ``J_beta`` with respect to the logits is ``g_j = pi_j A_beta(j)``, and moving ``theta += eta g`` changes the
    optimal arm's probability at rate

    .. math:: \frac{d\pi_*}{d\eta} = \pi_*\Big(g_* - \sum_j \pi_j g_j\Big).

    At ``beta = 0`` this is the README's Lemma 1 expression ``pi*[pi*(r* - rbar) - sum_j pi_j^2 (r_j - rbar)]``,
    which can be negative; Lemma 2: for large ``beta`` it is positive, and ``beta dpi*/deta`` tends to
    ``pi*[(1 - pi*)^2 + sum_{j != *} pi_j^2]``.

    Parameters
    ----------
    pi : array-like, shape (K,)
        The policy (a probability vector).
    rewards : array-like, shape (K,)
        Deterministic arm rewards; the optimal arm is the argmax (it must be unique).
    beta : float, default 0.0
        Risk-seeking strength of the objective whose gradient is followed.
    scaled : bool, default False
        Return ``beta * dpi*/deta`` (the quantity with a finite ``beta -> inf`` limit).

    Returns
    -------
    float

    Examples
    --------
    >>> from iclr26sci.rl import optimal_arm_rate
    >>> pi, r = [0.05, 0.85, 0.04, 0.03, 0.03], [1, 0.8, 0.1, 0.1, 0.1]
    >>> optimal_arm_rate(pi, r, 0.0) < 0 < optimal_arm_rate(pi, r, 4.0)
    True
    """
    from iclr26sci.core import check_array, check_bool, check_probability_vector

    pi = check_probability_vector(pi, "pi")
    r = check_array(rewards, "rewards", ndim=1)
    if r.shape != pi.shape:
        raise InputError("rewards", f"has shape {r.shape} but pi has {pi.shape}", "one reward per arm")
    beta = _check_beta(beta)
    scaled = check_bool(scaled, "scaled")
    star = int(np.argmax(r))
    if np.sum(r == r[star]) > 1:
        raise InputError("rewards", "has several maximal arms", "a unique optimal arm")
    g = pi * _rs_population_advantage(pi, r, beta)
    rate = float(pi[star] * (g[star] - pi @ g))
    return rate * beta if scaled else rate


# ------------------------------------------------------------------------------------------- the bandit
def bandit_rewards(n_arms: int = 100) -> np.ndarray:
    r"""The deterministic arm rewards of the official 100-armed bandit (``codes/bandit.py``).

    .. math:: \mu(a) = 0.1 + 0.9\, e^{-(a-40)^2/50} + 0.5\, e^{-(a-75)^2/50}

    (global optimum 1.0 at arm 40, local optimum 0.6 at arm 75). Other ``n_arms`` rescale the peak positions
    (0.4 n, 0.75 n) and widths (0.05 n) proportionally.

    Parameters
    ----------
    n_arms : int, default 100
        Number of arms (at least 10).

    Returns
    -------
    ndarray, shape (n_arms,)

    Examples
    --------
    >>> from iclr26sci.rl import bandit_rewards
    >>> mu = bandit_rewards()
    >>> int(mu.argmax()), round(float(mu.max()), 3), round(float(mu[75]), 3)
    (40, 1.0, 0.6)
    """
    n = check_positive_int(n_arms, "n_arms", minimum=10)
    s = n / 100.0
    x = np.arange(n)
    return 0.1 + 0.9 * np.exp(-((x - 40 * s) ** 2) / (2 * (5 * s) ** 2)) + 0.5 * np.exp(-((x - 75 * s) ** 2) / (2 * (5 * s) ** 2))


def _rs_rows(r, betas):
    """RS advantages of groups r (B, S, G), with beta varying along the first axis (the bandit's layout)."""
    out = np.empty_like(r)
    zero = betas == 0
    if np.any(zero):
        out[zero] = _dr_kernel(r[zero].reshape(-1, r.shape[-1]), None).reshape(r[zero].shape)
    nz = ~zero
    if np.any(nz):
        if np.any(np.abs(betas[nz]) < 1e-3):
            for i in np.flatnonzero(nz):
                out[i] = _rs_kernel(r[i], None, float(betas[i]))
        else:
            b = betas[nz][:, None, None]
            z = b * r[nz]
            z -= z.max(-1, keepdims=True)
            e = np.exp(z)
            e /= e.mean(-1, keepdims=True)
            out[nz] = (e - 1.0) / b
    return out


def _bandit_init(n):
    s = n / 100.0
    x = np.arange(n)
    p = np.exp(-0.5 * ((x - 75 * s) / (5.0 * s)) ** 2) + 0.1
    p /= p.sum()
    th = np.log(p + 1e-8)
    return th - th.mean()


def _softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def _entropy(p, axis=-1):
    return -(p * np.log(p + 1e-300)).sum(axis)


@dataclass
class BanditResult:
    """Result of :func:`bandit_experiment`.

    Attributes
    ----------
    betas : ndarray (B,)
        The beta values (for ``method="rs"``; otherwise a single NaN).
    final_reward : ndarray (B, S)
        Expected reward ``E_pi[mu]`` of the final policy, per beta and seed.
    final_entropy : ndarray (B, S)
        Entropy (nats) of the final policy.
    steps : ndarray (T,)
        Update counts at which the curves were recorded.
    reward_curve, entropy_curve : ndarray (B, S, T)
        ``E_pi[mu]`` and entropy along training.
    final_policy : ndarray (B, S, n_arms)
    mean_abs_advantage : ndarray (B,)
        Mean |A| over all updates and seeds (the effective step size).
    method, params, wall_s
        What was run and its wall-clock time.

    Examples
    --------
    >>> from iclr26sci.rl import bandit_experiment
    >>> res = bandit_experiment(beta=[0, 4], steps=200, seeds=1, rng=0)
    >>> res.final_reward.shape, res.reward_curve.shape[-1]
    ((2, 1), 1)
    """

    betas: np.ndarray
    final_reward: np.ndarray
    final_entropy: np.ndarray
    steps: np.ndarray
    reward_curve: np.ndarray
    entropy_curve: np.ndarray
    final_policy: np.ndarray
    mean_abs_advantage: np.ndarray
    method: str = "rs"
    params: dict = field(default_factory=dict)
    wall_s: float = float("nan")

    def __repr__(self) -> str:
        fr = ", ".join(f"{b:g}: {v:.3f}" for b, v in zip(self.betas, self.final_reward.mean(1)))
        return f"BanditResult(method={self.method!r}, final E[r] by beta {{{fr}}}, seeds={self.final_reward.shape[1]})"

    def summary(self) -> str:
        """A small text table: beta, final expected reward and entropy (seed mean and range)."""
        lines = [f"100-armed bandit ({self.method}, {int(self.steps[-1])} updates, {self.final_reward.shape[1]} seeds)",
                 f"{'beta':>6} {'E[r] mean':>10} {'min':>7} {'max':>7} {'entropy':>8}"]
        for b, r, h in zip(self.betas, self.final_reward, self.final_entropy):
            lines.append(f"{b:>6g} {r.mean():>10.3f} {r.min():>7.3f} {r.max():>7.3f} {h.mean():>8.3f}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain-Python summary (no curves)."""
        return {"method": self.method, "params": dict(self.params), "betas": self.betas.tolist(),
                "final_reward": self.final_reward.tolist(), "final_entropy": self.final_entropy.tolist(),
                "mean_abs_advantage": self.mean_abs_advantage.tolist(), "wall_s": self.wall_s}


def _check_progress(progress):
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise InputError("progress", f"got {progress!r}", "True, False or None (a bar only on a terminal)")


def _check_betas(beta):
    if isinstance(beta, (Real, np.floating, np.integer)) and not isinstance(beta, (bool, np.bool_)):
        betas = [beta]
    else:
        try:
            betas = list(np.asarray(beta, dtype=object).reshape(-1))
        except Exception:
            raise InputError("beta", f"got {beta!r}", "a real number or a sequence of them")
        if not betas:
            raise InputError("beta", "is empty", "at least one beta")
    return np.array([_check_beta(b) for b in betas], dtype=np.float64)


def _method_adv(method, params, R, beta):
    """Advantages of a (rows, G) reward matrix for the named method (R rows are groups)."""
    if method == "rs":
        return _rs_kernel(R, None, beta)
    if method in ("grpo", "grpo_entropy"):
        A = _grpo_kernel(R, None, params.get("eps", 1e-6), params.get("ddof", 0))
        return A
    if method == "dr_grpo":
        return _dr_kernel(R, None)
    return ADVANTAGES[method](R, **{k: v for k, v in params.items() if k != "entropy_coef"})


def bandit_experiment(n_arms: int = 100, beta=(0, 2, 4, 8, 16, 32, 64), steps: int = 25_000, seeds: int = 3,
                      rng=0, *, group_size: int = 16, lr: float = 0.1, method: str = "rs",
                      entropy_coef: float = 0.0, record_every: int = 250, progress: bool | None = None) -> BanditResult:
    r"""The official 100-armed bandit: softmax policy gradient with group advantages, vectorised.

    Exactly the setup of ``codes/bandit.py``: rewards :func:`bandit_rewards` (deterministic), a softmax
    policy initialised on the local optimum (a ``N(75, 5^2)`` bump plus a 0.1 floor, as logits, mean-centred),
    and each update draws ``G`` arms and moves the logits by

    .. math:: \theta \leftarrow \theta + \frac{\alpha}{G} \sum_{i=1}^G \hat A_i \,(e_{a_i} - \pi).

    All ``(beta, seed)`` runs advance together; runs of the same seed share their uniforms (common random
    numbers across beta), and arms are drawn by inverting the CDF. The paper runs 4e5 samples = 25,000
    updates of 16 with seed 42 (a single seed); the RNG stream here is numpy's ``Generator``, not the
    official global ``np.random`` state, so individual trajectories differ.

    Parameters
    ----------
    n_arms : int, default 100
        Number of arms (see :func:`bandit_rewards`).
    beta : float or sequence of float, default (0, 2, 4, 8, 16, 32, 64)
        The beta values to run (``method="rs"`` only; ignored otherwise).
    steps : int, default 25000
        Number of updates per run.
    seeds : int, default 3
        Independent runs per beta.
    rng : int, Generator or SeedSequence, default 0
        Master seed.
    group_size : int, default 16
        Samples per update ``G``.
    lr : float, default 0.1
        Step size ``alpha``.
    method : {"rs", "grpo", "dr_grpo", "grpo_entropy"}, default "rs"
        The advantage (``"grpo_entropy"``: GRPO plus ``entropy_coef`` times the exact entropy gradient).
        The pass@k methods need binary rewards and do not apply to this graded bandit.
    entropy_coef : float, default 0.0
        Entropy-bonus coefficient for ``"grpo_entropy"``.
    record_every : int, default 250
        Curve resolution in updates.
    progress : bool, optional
        Show a progress bar (default: only on a terminal).

    Returns
    -------
    BanditResult

    References
    ----------
    Jiang et al. (2025), arXiv:2509.24261, the bandit experiment; official ``codes/bandit.py``.

    Examples
    --------
    >>> from iclr26sci.rl import bandit_experiment
    >>> res = bandit_experiment(beta=[0, 8], steps=300, seeds=1, rng=0)
    >>> res.final_reward.shape
    (2, 1)
    """
    import time

    from iclr26sci.core import progress as _progress

    n = check_positive_int(n_arms, "n_arms", minimum=10)
    method = check_option(method, "method", ["rs", "grpo", "dr_grpo", "grpo_entropy"])
    betas = _check_betas(beta) if method == "rs" else np.array([np.nan])
    steps = check_positive_int(steps, "steps")
    S = check_positive_int(seeds, "seeds")
    G = check_positive_int(group_size, "group_size", minimum=2)
    lr = check_in_range(lr, "lr", 0.0, low_open=True)
    ent = check_in_range(entropy_coef, "entropy_coef", 0.0)
    rec = check_positive_int(record_every, "record_every")
    _check_progress(progress)
    t0 = time.perf_counter()
    mu = bandit_rewards(n)
    B = betas.size
    theta = np.tile(_bandit_init(n), (B, S, 1))
    gens = [as_generator(s) for s in spawn(rng, S)]
    rec_steps = list(range(rec, steps + 1, rec))
    if not rec_steps or rec_steps[-1] != steps:
        rec_steps.append(steps)
    rcurve = np.empty((B, S, len(rec_steps)))
    hcurve = np.empty_like(rcurve)
    abs_sum = np.zeros(B)
    chunk = 1000
    j = 0
    row_off = (np.arange(B * S) * n).reshape(B, S, 1)
    it = range(0, steps, chunk)
    for c0 in _progress(it, desc="bandit", total=len(it), enabled=progress):
        m = min(chunk, steps - c0)
        U = np.stack([g.random((m, G)) for g in gens], axis=1)          # (m, S, G), shared over beta
        for t in range(m):
            pi = _softmax(theta)                                         # (B, S, n)
            cdf = np.cumsum(pi, -1)
            cdf[..., -1] = 1.0
            a = (U[t][None, :, :, None] > cdf[:, :, None, :]).sum(-1)    # (B, S, G)
            a = np.minimum(a, n - 1)
            r = mu[a]
            if method == "rs":
                A = _rs_rows(r, betas)
            else:
                A = _method_adv(method, {}, r.reshape(-1, G), 0.0).reshape(r.shape)
            abs_sum += np.abs(A).mean((1, 2))
            # sum_i A_i (e_{a_i} - pi) = (A summed per arm) - pi * sum_i A_i
            grad = np.bincount((row_off + a).reshape(-1), weights=A.reshape(-1), minlength=B * S * n)
            grad = grad.reshape(B, S, n)
            grad -= pi * A.sum(-1, keepdims=True)
            grad /= G
            if method == "grpo_entropy" and ent > 0:
                logp = np.log(pi + 1e-300)
                H = -(pi * logp).sum(-1, keepdims=True)
                grad += ent * (-pi * (logp + H))                         # exact dH/dtheta for a softmax
            theta += lr * grad
            step = c0 + t + 1
            if j < len(rec_steps) and step == rec_steps[j]:
                p = _softmax(theta)
                rcurve[..., j] = p @ mu
                hcurve[..., j] = _entropy(p)
                j += 1
    p = _softmax(theta)
    return BanditResult(betas=betas, final_reward=p @ mu, final_entropy=_entropy(p), steps=np.array(rec_steps),
                        reward_curve=rcurve, entropy_curve=hcurve, final_policy=p,
                        mean_abs_advantage=abs_sum / steps, method=method,
                        params={"n_arms": n, "group_size": G, "lr": lr, "steps": steps, "seeds": S,
                                "entropy_coef": ent},
                        wall_s=time.perf_counter() - t0)


# ------------------------------------------------------------------------------------ the linear-softmax toy
@dataclass
class ToyResult:
    """Result of :func:`linear_softmax_toy`.

    Attributes
    ----------
    ks : tuple of int
        The k of the reported pass@k.
    pass_at : dict
        Method label -> ndarray (S, len(ks)) of exact pass@k (mean over prompts) per seed; includes ``"base"``.
    entropy : dict
        Method label -> ndarray (S,) mean policy entropy over prompts (nats) at the end.
    mean_abs_advantage : dict
        Method label -> mean |A| over training (the effective step size).
    wall_s : dict
        Method label -> training time summed over seeds (s).
    params : dict

    Examples
    --------
    >>> from iclr26sci.rl import linear_softmax_toy
    >>> res = linear_softmax_toy(steps=10, seeds=1, rng=0)
    >>> res.ks, res.mean("base").shape
    ((1, 4, 16, 64, 256), (5,))
    """

    ks: tuple
    pass_at: dict
    entropy: dict
    mean_abs_advantage: dict
    wall_s: dict
    params: dict = field(default_factory=dict)

    def mean(self, label: str) -> np.ndarray:
        """Seed-averaged pass@k of one method (in the order of ``ks``)."""
        if label not in self.pass_at:
            raise InputError("label", f"got {label!r}", f"one of {list(self.pass_at)}")
        return self.pass_at[label].mean(0)

    def __repr__(self) -> str:
        return f"ToyResult(methods={list(self.pass_at)}, ks={self.ks}, seeds={next(iter(self.pass_at.values())).shape[0]})"

    def summary(self) -> str:
        """The seed-averaged pass@k table with entropy and mean |A|."""
        head = f"{'method':<22}" + "".join(f"{'p@' + str(k):>8}" for k in self.ks) + f"{'entropy':>9}{'mean|A|':>9}"
        lines = [head]
        for lab in self.pass_at:
            lines.append(f"{lab:<22}" + "".join(f"{v:>8.3f}" for v in self.mean(lab))
                         + f"{self.entropy[lab].mean():>9.3f}" + f"{self.mean_abs_advantage.get(lab, float('nan')):>9.3f}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain-Python copy of the tables."""
        return {"ks": list(self.ks), "pass_at": {k: v.tolist() for k, v in self.pass_at.items()},
                "entropy": {k: v.tolist() for k, v in self.entropy.items()},
                "mean_abs_advantage": dict(self.mean_abs_advantage), "wall_s": dict(self.wall_s),
                "params": dict(self.params)}


def _toy_instance(seq, P, D, K, n_popular, n_rare):
    g = as_generator(seq)
    phi = g.standard_normal((P, D)) / math.sqrt(D)
    W = g.standard_normal((K, D))
    b = np.full(K, -3.0)
    b[:n_popular] = 3.0
    correct = np.zeros((P, K), dtype=bool)
    easy = np.arange(P) < P // 2
    for x in range(P):
        if easy[x]:
            correct[x, g.integers(n_popular)] = True
        rare = g.choice(np.arange(n_popular, K), size=n_rare, replace=False)
        correct[x, rare] = True
    return phi, W, b, correct


def _exact_pass(W, b, phi, correct, ks):
    pi = _softmax(phi @ W.T + b)
    q = (pi * correct).sum(1)
    return np.array([np.mean(1 - (1 - q) ** k) for k in ks]), float(_entropy(pi).mean())


def _parse_methods(methods):
    if methods is None:
        methods = {"GRPO": ("grpo", {}), "RS (beta=2)": ("rs", {"beta": 2.0})}
    if not isinstance(methods, dict) or not methods:
        raise InputError("methods", f"got {type(methods).__name__}",
                         "a non-empty dict label -> (method, params), method in "
                         "{'rs', 'grpo', 'dr_grpo', 'pkpo', 'passk_training', 'grpo_entropy'}")
    out = {}
    for lab, spec in methods.items():
        if isinstance(spec, str):
            spec = (spec, {})
        if not (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], dict)):
            raise InputError("methods", f"entry {lab!r} is {spec!r}", "(method name, params dict)")
        m = check_option(spec[0], "methods", ["rs", "grpo", "dr_grpo", "pkpo", "passk_training", "grpo_entropy"])
        fn = ADVANTAGES["grpo" if m == "grpo_entropy" else m]
        extra = {"lr_scale", "entropy_coef"}
        _check_params(fn, {k: v for k, v in spec[1].items() if k not in extra}, f"method {m!r} (entry {lab!r})",
                      name="methods")
        out[str(lab)] = (m, dict(spec[1]))
    return out


def linear_softmax_toy(methods=None, *, steps: int = 1000, seeds: int = 3, rng=0, n_prompts: int = 256,
                       dim: int = 16, n_actions: int = 64, batch_prompts: int = 32, group_size: int = 16,
                       lr: float = 0.5, ks=(1, 4, 16, 64, 256), progress: bool | None = None) -> ToyResult:
    r"""The shared-parameter linear-softmax toy where GRPO trades pass@k for pass@1 and RS-GRPO does not.

    ``P`` prompts with features ``phi_x ~ N(0, I/d)``; a linear-softmax policy over ``K`` "solutions" with logits
    ``W phi_x + b`` shared by all prompts. The "pretrained" bias puts +3 on 4 popular actions and -3
    elsewhere, ``W_0 ~ N(0, 1)``. Half of the prompts are easy (one popular action is correct); every prompt
    also has 2 rare correct actions. Each step samples ``B`` prompts x ``G`` actions, computes the group
    advantages with the chosen method and takes the SGD step
    ``theta += lr/(B G) sum A_i grad log pi(a_i | x_i)``. The reported pass@k is exact,
    ``mean_x 1 - (1 - q_x)^k`` with ``q_x`` the policy's probability of a correct action.
    (Spec §B3 "B-8"; the layout is a reconstruction of the paper's qualitative claim, not a paper experiment.)

    Parameters
    ----------
    methods : dict, optional
        Label -> ``(method, params)`` with method in ``{"rs", "grpo", "dr_grpo", "pkpo", "passk_training",
        "grpo_entropy"}`` and params its keywords (``beta``, ``k``, ``entropy_coef``) plus an optional
        ``lr_scale`` multiplying the learning rate (for lr-matched comparisons). Default: GRPO and RS (beta=2).
    steps : int, default 1000
        SGD steps per run.
    seeds : int, default 3
        Independent instances (features, W_0, correct sets and sampling all change with the seed; every
        method sees the same instance and the same uniforms for a seed).
    rng : int, Generator or SeedSequence, default 0
        Master seed.
    n_prompts, dim, n_actions, batch_prompts, group_size : int
        ``P``, ``d``, ``K``, ``B``, ``G``.
    lr : float, default 0.5
        SGD learning rate.
    ks : sequence of int, default (1, 4, 16, 64, 256)
        The pass@k to report.
    progress : bool, optional
        Progress bar over seeds.

    Returns
    -------
    ToyResult

    Examples
    --------
    >>> from iclr26sci.rl import linear_softmax_toy
    >>> res = linear_softmax_toy(steps=20, seeds=1, rng=0)
    >>> sorted(res.pass_at)
    ['GRPO', 'RS (beta=2)', 'base']
    """
    import time

    from iclr26sci.core import progress as _progress

    meths = _parse_methods(methods)
    steps = check_positive_int(steps, "steps")
    S = check_positive_int(seeds, "seeds")
    P = check_positive_int(n_prompts, "n_prompts", minimum=2)
    D = check_positive_int(dim, "dim")
    K = check_positive_int(n_actions, "n_actions", minimum=8)
    Bp = check_positive_int(batch_prompts, "batch_prompts")
    if Bp > P:
        raise InputError("batch_prompts", f"got {Bp} > n_prompts={P}", "at most n_prompts")
    G = check_positive_int(group_size, "group_size", minimum=2)
    lr = check_in_range(lr, "lr", 0.0, low_open=True)
    if isinstance(ks, (str, bytes)):
        raise InputError("ks", f"got {ks!r}", "a sequence of positive integers")
    ks = tuple(check_positive_int(int(k) if isinstance(k, np.integer) else k, "ks") for k in np.atleast_1d(ks).tolist())
    _check_progress(progress)
    for lab, (m, prm) in meths.items():
        if m in ("pkpo", "passk_training") and prm.get("k", 4) >= G:
            raise InputError("methods", f"{lab!r} has k={prm.get('k', 4)} >= group_size={G}", "k < group_size")
    out = {"base": np.empty((S, len(ks)))}
    ent = {"base": np.empty(S)}
    absA = {lab: 0.0 for lab in meths}
    wall = {lab: 0.0 for lab in meths}
    for lab in meths:
        out[lab] = np.empty((S, len(ks)))
        ent[lab] = np.empty(S)
    for s, seq in enumerate(_progress(spawn(rng, S), desc="toy", total=S, enabled=progress)):
        inst_seq, samp_seq = seq.spawn(2)
        phi, W0, b0, correct = _toy_instance(inst_seq, P, D, K, 4, 2)
        out["base"][s], ent["base"][s] = _exact_pass(W0, b0, phi, correct, ks)
        for lab, (m, prm) in meths.items():
            t0 = time.perf_counter()
            g = as_generator(samp_seq)                   # same stream for every method of this seed
            W, b = W0.copy(), b0.copy()
            step_lr = lr * float(prm.get("lr_scale", 1.0))
            coef = float(prm.get("entropy_coef", 0.0 if m != "grpo_entropy" else 0.01))
            aparams = {k: v for k, v in prm.items() if k not in ("lr_scale", "entropy_coef")}
            tot = 0.0
            for _ in range(steps):
                xs = g.choice(P, size=Bp, replace=False)
                F = phi[xs]                                          # (B, D)
                pi = _softmax(F @ W.T + b)                           # (B, K)
                cdf = np.cumsum(pi, 1)
                cdf[:, -1] = 1.0
                u = g.random((Bp, G))
                a = np.minimum((u[:, :, None] > cdf[:, None, :]).sum(-1), K - 1)   # (B, G)
                r = correct[xs[:, None], a].astype(np.float64)
                if m == "rs":
                    A = _rs_kernel(r, None, float(aparams.get("beta", 2.0)))
                else:
                    A = _method_adv(m, aparams, r, 0.0)
                tot += float(np.abs(A).mean())
                # d logits = (1/(B G)) sum_i A_i (e_{a_i} - pi_x)
                dz = np.zeros((Bp, K))
                np.add.at(dz, (np.repeat(np.arange(Bp), G), a.reshape(-1)), A.reshape(-1))
                dz -= pi * A.sum(1, keepdims=True)
                dz /= (Bp * G)
                if coef > 0:
                    logp = np.log(pi + 1e-300)
                    H = -(pi * logp).sum(1, keepdims=True)
                    dz += coef * (-pi * (logp + H)) / Bp
                W += step_lr * dz.T @ F
                b += step_lr * dz.sum(0)
            out[lab][s], ent[lab][s] = _exact_pass(W, b, phi, correct, ks)
            absA[lab] += tot / steps / S
            wall[lab] += time.perf_counter() - t0
    return ToyResult(ks=ks, pass_at=out, entropy=ent, mean_abs_advantage=absA, wall_s=wall,
                     params={"steps": steps, "seeds": S, "n_prompts": P, "dim": D, "n_actions": K,
                             "batch_prompts": Bp, "group_size": G, "lr": lr,
                             "methods": {k: [v[0], v[1]] for k, v in meths.items()}})


def __getattr__(name):  # the TRL trainer imports torch/transformers/trl: load it on first access
    if name == "RSGRPOTrainer":
        from ._trl import RSGRPOTrainer

        return RSGRPOTrainer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
