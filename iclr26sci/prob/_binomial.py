"""Binomial acceptance bands for Monte-Carlo coverage checks."""
from __future__ import annotations

from ..core import check_in_range, check_positive_int

__all__ = ["binomial_band"]


def binomial_band(nominal: float, n: int, false_alarm: float = 0.01) -> tuple[float, float]:
    r"""Acceptance interval for an observed proportion under :math:`\mathrm{Bin}(n, p)`.

    If a procedure's true coverage equals ``nominal`` and ``n`` independent
    replicates are run, the number of successes :math:`S` lands in
    :math:`[k_{lo}, k_{hi}]` with probability at least ``1 - false_alarm``,
    where

    .. math::

        k_{lo} = F^{-1}(\tfrac{a}{2}),\qquad k_{hi} = F^{-1}(1-\tfrac{a}{2})

    are quantiles of :math:`\mathrm{Bin}(n, \text{nominal})`. Returns the band
    as proportions :math:`(k_{lo}/n, k_{hi}/n)`; a coverage check passes when
    the observed proportion lies inside it.

    Parameters
    ----------
    nominal : float in [0, 1]
        The success probability the procedure claims (e.g. 0.95 for a 95% interval).
    n : int >= 1
        Number of independent Monte-Carlo replicates.
    false_alarm : float in (0, 1), default 0.01
        Probability that a procedure with exactly nominal coverage falls outside the band.

    Returns
    -------
    (low, high) : tuple of float
        Acceptance band for the observed proportion.

    Examples
    --------
    >>> binomial_band(0.95, 1000, 0.01)
    (0.931, 0.967)
    """
    from scipy.stats import binom

    p = check_in_range(nominal, "nominal", 0.0, 1.0)
    n = check_positive_int(n, "n")
    a = check_in_range(false_alarm, "false_alarm", 0.0, 1.0, low_open=True, high_open=True)
    lo = binom.ppf(a / 2.0, n, p)
    hi = binom.ppf(1.0 - a / 2.0, n, p)
    return float(lo) / n, float(hi) / n
