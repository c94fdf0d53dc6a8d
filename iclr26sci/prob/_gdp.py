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

import numpy as np

from ..core import InputError, check_array, check_in_range, check_positive_int

__all__ = [
    "gdp_mu_gaussian", "gdp_compose", "gdp_delta", "gdp_epsilon", "gdp_mu", "gaussian_sigma",
    "zcdp_epsilon", "GaussianAccountant",
]


def gdp_mu_gaussian(sensitivity: float, sigma: float) -> float:
    """GDP parameter :math:`\\mu = \\Delta/\\sigma` of one Gaussian mechanism.

    Parameters
    ----------
    sensitivity : float >= 0
        L2 sensitivity :math:`\\Delta`: the most the released vector can move
        when one individual's data change.
    sigma : float > 0
        Standard deviation of the Gaussian noise added to each coordinate.

    Returns
    -------
    float
        :math:`\\mu`; smaller is more private.

    Examples
    --------
    >>> gdp_mu_gaussian(1.0, 4.0)
    0.25
    """
    s = check_in_range(sensitivity, "sensitivity", 0.0)
    g = check_in_range(sigma, "sigma", 0.0, low_open=True)
    return s / g


def gdp_compose(mus) -> float:
    """Exact composition: :math:`\\mu = \\sqrt{\\sum_i \\mu_i^2}`.

    Parameters
    ----------
    mus : array-like of float >= 0, shape (k,)
        GDP parameters of the k (possibly adaptively chosen) mechanisms run
        on the same data; an empty list composes to 0 (nothing released).

    Returns
    -------
    float
        The GDP parameter of running all of them.

    Examples
    --------
    >>> gdp_compose([0.3, 0.4])
    0.5
    """
    arr = check_array(mus, "mus", ndim=(0, 1))
    arr = arr.ravel()
    if arr.size and np.any(arr < 0):
        raise InputError("mus", f"has negative entries (min {arr.min():g})", "non-negative GDP parameters")
    scale = float(arr.max()) if arr.size else 0.0
    if scale == 0.0:
        return 0.0
    out = scale * float(np.sqrt(np.sum((arr / scale) ** 2)))
    if not math.isfinite(out):
        raise InputError("mus", "compose to a GDP parameter beyond the float64 range", "finite GDP parameters")
    return out


def gdp_delta(mu: float, epsilon: float) -> float:
    r"""Tight :math:`\delta(\varepsilon)` of a :math:`\mu`-GDP mechanism (see module docstring).

    Computed in log space so it stays accurate for large :math:`\varepsilon`.

    Parameters
    ----------
    mu : float >= 0
        GDP parameter of the (composed) mechanism.
    epsilon : float >= 0
        Privacy-loss level at which the failure probability is read.

    Returns
    -------
    float
        The smallest :math:`\delta` for which the mechanism is :math:`(\varepsilon, \delta)`-DP.

    Examples
    --------
    >>> round(gdp_delta(1.0, 1.0), 6)
    0.126937
    >>> gdp_delta(0.0, 1.0)
    0.0
    """
    mu = check_in_range(mu, "mu", 0.0)
    eps = check_in_range(epsilon, "epsilon", 0.0)
    if mu == 0.0:
        return 0.0
    a = -eps / mu + mu / 2.0
    b = -eps / mu - mu / 2.0
    from scipy.special import log_ndtr  # imported here: scipy.special costs ~0.3 s at package import

    la, lb = log_ndtr(a), eps + log_ndtr(b)
    if lb >= la:
        return 0.0
    return float(max(0.0, math.exp(la) * -math.expm1(lb - la)))


def gdp_epsilon(mu: float, delta: float) -> float:
    r"""Smallest :math:`\varepsilon\ge0` with :math:`\delta(\varepsilon)\le\delta` for a :math:`\mu`-GDP mechanism.

    :math:`\delta(\varepsilon)` is strictly decreasing, so bisection (Brent)
    on :math:`[0, \varepsilon_{\max}]` finds it to machine precision.

    Parameters
    ----------
    mu : float >= 0
        GDP parameter of the (composed) mechanism.
    delta : float in (0, 1)
        Allowed probability of a privacy failure (typically below 1/n).

    Returns
    -------
    float
        The tight :math:`\varepsilon` at that :math:`\delta`.

    Examples
    --------
    >>> round(gdp_epsilon(1.0, 1e-5), 4)
    4.3772
    """
    mu = check_in_range(mu, "mu", 0.0)
    delta = check_in_range(delta, "delta", 0.0, 1.0, low_open=True, high_open=True)
    if mu == 0.0 or gdp_delta(mu, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(mu, hi) > delta:
        hi *= 2.0
        if hi > 1e15:  # pragma: no cover - only for absurdly large mu
            raise InputError("mu", f"got {mu:g}: the privacy loss is beyond any finite epsilon at this delta",
                             "a GDP parameter below about 1e7")
    from scipy.optimize import brentq

    return float(brentq(lambda e: gdp_delta(mu, e) - delta, 0.0, hi, xtol=1e-13, rtol=1e-13))


def gdp_mu(epsilon: float, delta: float) -> float:
    r"""Largest :math:`\mu` whose privacy profile satisfies :math:`\delta(\varepsilon)\le\delta`.

    Parameters
    ----------
    epsilon : float >= 0
        Target privacy-loss bound.
    delta : float in (0, 1)
        Target failure probability.

    Returns
    -------
    float
        The GDP budget that exactly meets :math:`(\varepsilon, \delta)`-DP.

    Examples
    --------
    >>> mu = gdp_mu(1.0, 1e-5)
    >>> round(mu, 4), round(gdp_epsilon(mu, 1e-5), 6)
    (0.2681, 1.0)
    """
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

    Parameters
    ----------
    epsilon : float >= 0
        Total privacy-loss budget of all releases together.
    delta : float in (0, 1)
        Total failure probability.
    sensitivity : float > 0, default 1
        L2 sensitivity of each release.
    compositions : int >= 1, default 1
        Number of releases sharing the budget.

    Returns
    -------
    float
        Noise standard deviation per release.

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 1e-5), 2)
    3.73
    """
    sens = check_in_range(sensitivity, "sensitivity", 0.0, low_open=True)
    k = check_positive_int(compositions, "compositions")
    return sens * math.sqrt(k) / gdp_mu(epsilon, delta)


def zcdp_epsilon(rho: float, delta: float) -> float:
    r"""The standard zCDP conversion :math:`\varepsilon = \rho + 2\sqrt{\rho\log(1/\delta)}`
    (Bun & Steinke 2016, Prop. 1.3); a Gaussian mechanism is :math:`\rho=\mu^2/2`-zCDP.
    Looser than :func:`gdp_epsilon`; offered for comparison.

    Parameters
    ----------
    rho : float >= 0
        zCDP parameter (:math:`\mu^2/2` for a :math:`\mu`-GDP Gaussian mechanism).
    delta : float in (0, 1)
        Failure probability.

    Examples
    --------
    >>> zcdp_epsilon(0.5, 1e-5) > gdp_epsilon(1.0, 1e-5)
    True
    """
    rho = check_in_range(rho, "rho", 0.0)
    delta = check_in_range(delta, "delta", 0.0, 1.0, low_open=True, high_open=True)
    return float(rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta)))


class GaussianAccountant:
    r"""Accumulates Gaussian mechanisms and reports their exact composed privacy.

    Every release adds :math:`\mu_i^2` to a running sum; the composition is
    :math:`\mu = \sqrt{\sum_i \mu_i^2}`-GDP (exact, Dong, Roth & Su 2022,
    Cor. 3.3), reported as :math:`(\varepsilon, \delta)` through the tight
    profile (:func:`gdp_epsilon`) or the looser zCDP conversion.

    Examples
    --------
    >>> acc = GaussianAccountant()
    >>> _ = acc.add(sensitivity=1.0, sigma=10.0, count=100)
    >>> round(acc.mu, 6)
    1.0
    >>> acc
    GaussianAccountant(releases=100, mu=1)
    >>> acc.epsilon(1e-5) < acc.epsilon_zcdp(1e-5)
    True
    """

    def __init__(self):
        self._sum_mu2 = 0.0
        self.log: list = []

    def add(self, sensitivity: float, sigma: float, count: int = 1) -> "GaussianAccountant":
        """Record ``count`` releases of a Gaussian mechanism.

        Parameters
        ----------
        sensitivity : float >= 0
            L2 sensitivity of each release.
        sigma : float > 0
            Noise standard deviation of each release.
        count : int >= 0, default 1
            How many such releases were made.
        """
        mu = gdp_mu_gaussian(sensitivity, sigma)
        count = check_positive_int(count, "count", minimum=0)
        self._accumulate(count * mu * mu, "sigma")
        self.log.append((float(sensitivity), float(sigma), count))
        return self

    def add_mu(self, mu: float, count: int = 1) -> "GaussianAccountant":
        """Record ``count`` mechanisms that are each ``mu``-GDP.

        Parameters
        ----------
        mu : float >= 0
            GDP parameter of each mechanism.
        count : int >= 0, default 1
            How many of them.
        """
        mu = check_in_range(mu, "mu", 0.0)
        count = check_positive_int(count, "count", minimum=0)
        self._accumulate(count * mu * mu, "mu")
        self.log.append(("mu", float(mu), count))
        return self

    def _accumulate(self, add, name):
        total = self._sum_mu2 + add
        if not math.isfinite(total):
            raise InputError(name, "makes the composed mu^2 overflow float64", "a smaller privacy loss per release")
        self._sum_mu2 = total

    @property
    def n_releases(self) -> int:
        """Number of mechanisms recorded."""
        return int(sum(c for *_, c in self.log))

    @property
    def mu(self) -> float:
        """GDP parameter of everything recorded so far."""
        return math.sqrt(self._sum_mu2)

    @property
    def rho(self) -> float:
        """zCDP parameter :math:`\\mu^2/2`."""
        return self._sum_mu2 / 2.0

    def epsilon(self, delta: float) -> float:
        """Tight :math:`\\varepsilon` at failure probability ``delta`` in (0, 1) (see :func:`gdp_epsilon`)."""
        return gdp_epsilon(self.mu, delta)

    def delta(self, epsilon: float) -> float:
        """Tight :math:`\\delta` at privacy loss ``epsilon >= 0`` (see :func:`gdp_delta`)."""
        return gdp_delta(self.mu, epsilon)

    def epsilon_zcdp(self, delta: float) -> float:
        """The looser zCDP :math:`\\varepsilon` at ``delta`` in (0, 1) (see :func:`zcdp_epsilon`)."""
        return zcdp_epsilon(self.rho, delta)

    def __repr__(self) -> str:
        return f"GaussianAccountant(releases={self.n_releases}, mu={self.mu:.4g})"

    def summary(self, delta: float = 1e-5) -> str:
        """Releases, mu, and the tight and zCDP epsilons at ``delta``."""
        return (f"GaussianAccountant: {self.n_releases} Gaussian releases, mu = {self.mu:.4g} (GDP)\n"
                f"  epsilon at delta={delta:g}: {self.epsilon(delta):.4g} (tight GDP), "
                f"{self.epsilon_zcdp(delta):.4g} (zCDP bound)")

    def to_dict(self, delta: float = 1e-5) -> dict:
        """Plain-dict form: mu, rho, the number of releases and the epsilons at ``delta``."""
        return {"n_releases": self.n_releases, "mu": self.mu, "rho": self.rho, "delta": float(delta),
                "epsilon": self.epsilon(delta), "epsilon_zcdp": self.epsilon_zcdp(delta)}
