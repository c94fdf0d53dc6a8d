"""Simulation-based calibration (Talts et al. 2018): rank statistics and their uniformity test."""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from iclr26sci.core import InputError, check_positive_int, spawn

from ._assert import StatisticalAssertionError, spent_alpha

__all__ = ["sbc_ranks", "assert_sbc_uniform"]


def sbc_ranks(prior: Callable, simulate: Callable, posterior: Callable, n_sims: int = 200, n_draws: int = 99,
              rng: Any = None) -> np.ndarray:
    r"""Rank statistics of simulation-based calibration.

    For :math:`s = 1..S`: draw :math:`\theta_s \sim p(\theta)`, data :math:`y_s \sim p(y\mid\theta_s)`,
    and :math:`L` posterior draws :math:`\theta^{(l)} \sim p(\theta\mid y_s)`; the rank is
    :math:`r_s = \#\{l : \theta^{(l)} < \theta_s\} + U`, with :math:`U` uniform on
    :math:`\{0, .., \#\{l : \theta^{(l)} = \theta_s\}\}` (ties of discrete parameters broken at random).
    If the posterior is exact, each :math:`r_s` is uniform on :math:`\{0, \dots, L\}`.

    Parameters
    ----------
    prior : callable(rng) -> float or array (p,)
        One draw of the parameter(s) from the prior.
    simulate : callable(theta, rng) -> data
        One data set given the parameter(s).
    posterior : callable(data, n_draws, rng) -> array (n_draws,) or (n_draws, p)
        Draws from the posterior the inference method computes.
    n_sims : int >= 1
        S.
    n_draws : int >= 1
        L (draws per posterior; thin MCMC draws so that they are close to independent).
    rng : seed or Generator
        Each simulation gets its own child stream (SPEC 7).

    Returns
    -------
    ndarray of int, (n_sims, p)
        Ranks in ``0..n_draws``.

    References
    ----------
    Talts, Betancourt, Simpson, Vehtari & Gelman (2018), Validating Bayesian inference algorithms with
    simulation-based calibration, arXiv:1804.06788.

    Examples
    --------
    >>> import numpy as np
    >>> # conjugate normal: theta ~ N(0, 1), y | theta ~ N(theta, 1); posterior N(y/2, 1/2)
    >>> ranks = sbc_ranks(lambda r: r.standard_normal(), lambda t, r: t + r.standard_normal(),
    ...                   lambda y, L, r: y / 2 + np.sqrt(0.5) * r.standard_normal(L), n_sims=100, n_draws=19, rng=0)
    >>> ranks.shape, int(ranks.min()) >= 0, int(ranks.max()) <= 19
    ((100, 1), True, True)
    """
    for name, f in (("prior", prior), ("simulate", simulate), ("posterior", posterior)):
        if not callable(f):
            raise InputError(name, f"is a {type(f).__name__}", "a callable")
    S = check_positive_int(n_sims, "n_sims")
    L = check_positive_int(n_draws, "n_draws")
    out = []
    for ss in spawn(rng, S):
        g = np.random.default_rng(ss)
        theta = np.atleast_1d(np.asarray(prior(g), dtype=float))
        y = simulate(theta if theta.size > 1 else theta[0], g)
        draws = np.asarray(posterior(y, L, g), dtype=float).reshape(L, -1)
        if draws.shape[1] != theta.size:
            raise InputError("posterior", f"returned draws of shape {draws.shape}", f"({L}, {theta.size})")
        below = (draws < theta[None]).sum(0)
        ties = (draws == theta[None]).sum(0)
        out.append(below + np.floor(g.random(theta.size) * (ties + 1)).astype(int))
    return np.asarray(out, dtype=int)


def _bins(L1: int, target: int) -> int:
    best = 1
    for b in range(1, min(L1, max(target, 1)) + 1):
        if L1 % b == 0:
            best = b
    return best


def assert_sbc_uniform(ranks, n_draws: int, *, bins: int | None = None, alpha: float = 0.01, spend: str = "none",
                       n_examples: int | None = None, seed: Any = None, what: str = "SBC ranks") -> np.ndarray:
    r"""Assert that SBC ranks are uniform on :math:`\{0..L\}`: a chi-square test per parameter.

    The :math:`L+1` rank values are grouped into ``bins`` equal groups (``bins`` divides :math:`L+1`;
    by default the largest divisor giving at least 5 expected counts per bin, at most 20 bins); for each
    parameter :math:`X^2 = \sum_b (O_b - E)^2/E` is compared with :math:`\chi^2_{B-1}`, at the spent
    alpha divided by the number of parameters (Bonferroni), so a calibrated posterior fails with
    probability at most alpha (asymptotically in the number of simulations).

    Parameters
    ----------
    ranks : array (n_sims,) or (n_sims, p) of int in 0..n_draws
        From :func:`sbc_ranks`.
    n_draws : int
        L.
    bins : int, optional
        Must divide ``n_draws + 1``.
    alpha, spend, n_examples, seed, what
        As in :func:`assert_covers`.

    Returns
    -------
    ndarray (p,)
        The p-values.

    Examples
    --------
    >>> import numpy as np
    >>> ranks = np.random.default_rng(0).integers(0, 20, size=(200, 2))     # uniform on 0..19
    >>> bool(assert_sbc_uniform(ranks, 19).min() > 0.005)
    True
    """
    from scipy import stats

    L = check_positive_int(n_draws, "n_draws")
    R = np.asarray(ranks)
    if R.ndim == 1:
        R = R[:, None]
    if R.ndim != 2 or R.shape[0] < 2 or not np.issubdtype(R.dtype, np.integer):
        raise InputError("ranks", f"has shape {R.shape} and dtype {R.dtype}", "integer ranks (n_sims,) or (n_sims, p)")
    if R.min() < 0 or R.max() > L:
        raise InputError("ranks", f"has values in [{R.min()}, {R.max()}]", f"ranks in 0..{L}")
    S, p = R.shape
    if bins is None:
        B = _bins(L + 1, min(20, max(2, S // 5)))
    else:
        B = check_positive_int(bins, "bins")
        if (L + 1) % B or B < 2:
            raise InputError("bins", f"is {B}", f"a divisor >= 2 of n_draws + 1 = {L + 1}")
    if B < 2:
        raise InputError("n_draws", f"is {L}: n_draws + 1 has no divisor between 2 and the bin target",
                         "n_draws + 1 with a small divisor (e.g. n_draws = 99 or 19)")
    a = spent_alpha(alpha, spend, n_examples) / p
    width = (L + 1) // B
    pv = np.empty(p)
    X2 = np.empty(p)
    for j in range(p):
        counts = np.bincount(R[:, j] // width, minlength=B)
        E = S / B
        X2[j] = float(((counts - E) ** 2 / E).sum())
        pv[j] = float(stats.chi2.sf(X2[j], B - 1))
    j = int(np.argmin(pv))
    if pv[j] < a:
        raise StatisticalAssertionError(what, X2[j], f"the chi-square({B - 1}) acceptance region (p = {pv[j]:.3g} "
                                        f"for parameter {j}, {S} simulations)", a, seed)
    return pv
