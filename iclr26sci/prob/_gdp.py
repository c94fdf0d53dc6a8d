r"""Gaussian differential privacy (mu-GDP) accounting.

A Gaussian mechanism with L2 sensitivity :math:`\Delta` and noise standard
deviation :math:`\sigma` is :math:`\mu`-GDP with :math:`\mu=\Delta/\sigma`
(Dong, Roth & Su 2022); :math:`k` adaptive compositions of
:math:`\mu_i`-GDP mechanisms are :math:`\sqrt{\sum_i\mu_i^2}`-GDP, exactly.
A :math:`\mu`-GDP mechanism is :math:`(\varepsilon,\delta(\varepsilon))`-DP
for every :math:`\varepsilon\ge0` with

.. math::

    \delta(\varepsilon) = \Phi\!\left(-\frac{\varepsilon}{\mu}+\frac{\mu}{2}\right)
    - e^{\varepsilon}\,\Phi\!\left(-\frac{\varepsilon}{\mu}-\frac{\mu}{2}\right),

which is the tight privacy profile of the Gaussian pair
:math:`N(0,1)` vs :math:`N(\mu,1)` (Balle & Wang 2018, Theorem 8).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import log_ndtr

from ..core import InputError, check_in_range, check_positive_int

__all__ = [
    "gdp_mu_gaussian", "gdp_compose", "gdp_delta", "gdp_epsilon", "gdp_mu", "gaussian_sigma",
    "zcdp_epsilon", "GaussianAccountant",
]


def gdp_mu_gaussian(sensitivity: float, sigma: float) -> float:
    """GDP parameter :math:`\\mu = \\Delta/\\sigma` of one Gaussian mechanism."""
    s = check_in_range(sensitivity, "sensitivity", 0.0)
    g = check_in_range(sigma, "sigma", 0.0, low_open=True)
    return s / g


def gdp_compose(mus) -> float:
    """Exact composition: :math:`\\mu = \\sqrt{\\sum_i \\mu_i^2}`."""
    arr = np.asarray(mus, dtype=float).ravel()
    if arr.size and (np.any(arr < 0) or not np.all(np.isfinite(arr))):
        raise InputError("mus", "has negative or non-finite entries", "non-negative GDP parameters")
    return float(np.sqrt(np.sum(arr ** 2)))


def gdp_delta(mu: float, epsilon: float) -> float:
    r"""Tight :math:`\delta(\varepsilon)` of a :math:`\mu`-GDP mechanism (see module docstring).

    Computed in log space so it stays accurate for large :math:`\varepsilon`.
    """
    mu = check_in_range(mu, "mu", 0.0)
    eps = check_in_range(epsilon, "epsilon", 0.0)
    if mu == 0.0:
        return 0.0
    a = -eps / mu + mu / 2.0
    b = -eps / mu - mu / 2.0
    la, lb = log_ndtr(a), eps + log_ndtr(b)
    if lb >= la:
        return 0.0
    return float(max(0.0, math.exp(la) * -math.expm1(lb - la)))


def gdp_epsilon(mu: float, delta: float) -> float:
    r"""Smallest :math:`\varepsilon\ge0` with :math:`\delta(\varepsilon)\le\delta` for a :math:`\mu`-GDP mechanism.

    :math:`\delta(\varepsilon)` is strictly decreasing, so bisection (Brent)
    on :math:`[0, \varepsilon_{\max}]` finds it to machine precision.
    """
    mu = check_in_range(mu, "mu", 0.0)
    delta = check_in_range(delta, "delta", 0.0, 1.0, low_open=True, high_open=True)
    if mu == 0.0 or gdp_delta(mu, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(mu, hi) > delta:
        hi *= 2.0
        if hi > 1e6:  # pragma: no cover - unreachable for finite mu, delta > 0
            raise InputError("delta", "is too small for this mu", "a larger delta")
    from scipy.optimize import brentq

    return float(brentq(lambda e: gdp_delta(mu, e) - delta, 0.0, hi, xtol=1e-13, rtol=1e-13))


def gdp_mu(epsilon: float, delta: float) -> float:
    r"""Largest :math:`\mu` whose privacy profile satisfies :math:`\delta(\varepsilon)\le\delta`."""
    eps = check_in_range(epsilon, "epsilon", 0.0)
    delta = check_in_range(delta, "delta", 0.0, 1.0, low_open=True, high_open=True)
    # delta(eps; mu) is increasing in mu
    hi = 1.0
    while gdp_delta(hi, eps) < delta:
        hi *= 2.0
        if hi > 1e6:  # pragma: no cover
            raise InputError("epsilon", "is too large to invert", "a finite privacy budget")
    from scipy.optimize import brentq

    return float(brentq(lambda m: gdp_delta(m, eps) - delta, 1e-12, hi, xtol=1e-14, rtol=1e-13))


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0, compositions: int = 1) -> float:
    r"""Noise scale :math:`\sigma` so that ``compositions`` Gaussian releases of the given
    L2 ``sensitivity`` are jointly :math:`(\varepsilon,\delta)`-DP (tight, via GDP):

    .. math:: \sigma = \Delta\sqrt{k}/\mu(\varepsilon,\delta).
    """
    sens = check_in_range(sensitivity, "sensitivity", 0.0, low_open=True)
    k = check_positive_int(compositions, "compositions")
    return sens * math.sqrt(k) / gdp_mu(epsilon, delta)


def zcdp_epsilon(rho: float, delta: float) -> float:
    r"""The standard zCDP conversion :math:`\varepsilon = \rho + 2\sqrt{\rho\log(1/\delta)}`
    (Bun & Steinke 2016, Prop. 1.3); a Gaussian mechanism is :math:`\rho=\mu^2/2`-zCDP.
    Looser than :func:`gdp_epsilon`; offered for comparison."""
    rho = check_in_range(rho, "rho", 0.0)
    delta = check_in_range(delta, "delta", 0.0, 1.0, low_open=True, high_open=True)
    return float(rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta)))


@dataclass
class GaussianAccountant:
    r"""Accumulates Gaussian mechanisms and reports their exact composed privacy.

    Examples
    --------
    >>> acc = GaussianAccountant()
    >>> acc.add(sensitivity=1.0, sigma=10.0, count=100)
    >>> round(acc.mu, 6)
    1.0
    >>> acc.epsilon(1e-5) < acc.epsilon_zcdp(1e-5)
    True
    """

    _sum_mu2: float = 0.0
    log: list = field(default_factory=list)

    def add(self, sensitivity: float, sigma: float, count: int = 1) -> "GaussianAccountant":
        """Record ``count`` releases of a Gaussian mechanism."""
        mu = gdp_mu_gaussian(sensitivity, sigma)
        count = check_positive_int(count, "count", minimum=0)
        self._sum_mu2 += count * mu * mu
        self.log.append((float(sensitivity), float(sigma), count))
        return self

    def add_mu(self, mu: float, count: int = 1) -> "GaussianAccountant":
        """Record ``count`` mechanisms that are each ``mu``-GDP."""
        mu = check_in_range(mu, "mu", 0.0)
        count = check_positive_int(count, "count", minimum=0)
        self._sum_mu2 += count * mu * mu
        self.log.append(("mu", float(mu), count))
        return self

    @property
    def mu(self) -> float:
        return math.sqrt(self._sum_mu2)

    @property
    def rho(self) -> float:
        """zCDP parameter :math:`\\mu^2/2`."""
        return self._sum_mu2 / 2.0

    def epsilon(self, delta: float) -> float:
        return gdp_epsilon(self.mu, delta)

    def delta(self, epsilon: float) -> float:
        return gdp_delta(self.mu, epsilon)

    def epsilon_zcdp(self, delta: float) -> float:
        return zcdp_epsilon(self.rho, delta)
