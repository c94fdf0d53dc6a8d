"""Simulators with closed-form ground truth (validation DGP V1) and the paper's synthetic DGP."""
from __future__ import annotations

import functools

import numpy as np
from scipy.stats import norm, truncnorm

from iclr26sci.core import ObservationalData, as_generator, check_option, check_positive_int

from ._msm import gaussian_capo_bound, quantile_level
from ._policy import as_policy_matrix
from ._validate import check_array, check_direction, check_gamma

__all__ = ["v1_nuisances", "v1_capo_bound", "v1_true_value", "simulate_v1", "simulate_paper_dgp"]


def v1_nuisances(x):
    """Observed-data law of V1 at covariate(s) ``x`` (1-D array, or x-bar for d > 1).

    Returns ``m, s, e`` of shape (n, 2): :math:`m(x,a)=(2a-1)(x+1)-2\\sin(2(2a-1)x)`,
    :math:`s=1+0.5|x|`, :math:`e_1=\\sigma(0.75x-0.5)`.

    Parameters
    ----------
    x : float or array (n,)
        Covariate value(s) (the row mean x-bar when d > 1), finite.

    Returns
    -------
    (m, s, e) : tuple of ndarrays (n, 2)
        Conditional mean and standard deviation of the outcome in each arm, and the nominal propensities.

    Examples
    --------
    >>> from iclr26sci.causal import v1_nuisances
    >>> m, s, e = v1_nuisances([0.0])
    >>> m.tolist(), s.tolist()
    ([[-1.0, 1.0]], [[1.0, 1.0]])
    """
    x = check_array(x, "x", ndim=(0, 1)).reshape(-1)
    sg = np.array([-1.0, 1.0])[None, :]
    m = sg * (x[:, None] + 1.0) - 2.0 * np.sin(2.0 * sg * x[:, None])
    s = np.repeat((1.0 + 0.5 * np.abs(x))[:, None], 2, axis=1)
    e1 = 1.0 / (1.0 + np.exp(-(0.75 * x - 0.5)))
    e = np.stack([1.0 - e1, e1], axis=1)
    return m, s, e


def v1_capo_bound(x, gamma: float, direction: str = "upper"):
    """True sharp CAPO bound of V1 at covariate(s) ``x``, (n, 2) (:func:`gaussian_capo_bound` of V1's law).

    Parameters
    ----------
    x : float or array (n,)
        Covariate value(s) (x-bar when d > 1).
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true to the nominal propensity;
        1 = no unobserved confounding (the bound is the conditional mean).
    direction : {"upper", "lower"}
        Which bound.

    Examples
    --------
    >>> from iclr26sci.causal import v1_capo_bound
    >>> v1_capo_bound([0.0], 1.0).tolist()
    [[-1.0, 1.0]]
    """
    gamma = check_gamma(gamma)
    check_direction(direction)
    m, s, e = v1_nuisances(x)
    return gaussian_capo_bound(m, s, e, gamma, direction)


@functools.lru_cache(maxsize=1)
def _gauss_legendre(n: int = 2000):
    """Gauss-Legendre nodes and weights on [-1, 1], computed on first use and cached.

    scipy's asymptotic root finder (about 0.2 s for n = 2000) agrees with numpy's Golub-Welsch ``leggauss``
    (about 1.6 s) to 1e-16 in the nodes and 3e-8 relative in the weights.
    """
    from scipy.special import roots_legendre

    return roots_legendre(n)


def v1_true_value(policy, gamma: float, direction: str = "upper"):
    """True :math:`V^\\beta(\\pi)` for V1 with d = 1, by Gauss-Legendre quadrature on [-2, 0] and [0, 2].

    Parameters
    ----------
    policy : policy object, callable of X (n, 1), int or "uniform"
        Anything :func:`as_policy_matrix` accepts as a function of ``x`` (n, 1).
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true to the nominal propensity;
        1 = no unobserved confounding (the true value of the policy).
    direction : {"upper", "lower"}
        Which bound.

    Returns
    -------
    float

    Examples
    --------
    >>> from iclr26sci.causal import v1_true_value
    >>> round(v1_true_value("uniform", 2.0), 4)
    0.409
    >>> v1_true_value(lambda X: (X[:, 0] < 0).astype(int), 2.0) < v1_true_value("uniform", 2.0)
    True
    """
    gamma = check_gamma(gamma)
    check_direction(direction)
    gl_x, gl_w = _gauss_legendre()
    xs = np.concatenate([gl_x - 1.0, gl_x + 1.0])
    ws = np.concatenate([gl_w, gl_w]) / 4.0          # density 1/4 on [-2, 2]
    P = as_policy_matrix(policy, xs[:, None], 2)
    Q = v1_capo_bound(xs, gamma, direction)
    return float(np.sum(ws * np.sum(P * Q, axis=1)))


def simulate_v1(n: int, gamma: float = 2.0, law: str = "extremal", direction: str = "upper", d: int = 1,
                rng=None):
    """Draw from validation DGP V1 with its full-data law.

    ``law="benign"``: all potential outcomes :math:`N(m,s^2)` (no confounding).
    ``law="extremal"``: for the arms not taken, :math:`Y(a)` comes from the worst-case
    re-weighted density of MSM(gamma) for ``direction``, so that
    :math:`E[Y(a)\\mid x] = Q^\\beta(x,a)` exactly and the sharp bound is attained.

    Parameters
    ----------
    n : int >= 1
        Number of units.
    gamma : float in [1, 1e8]
        MSM sensitivity parameter of the extremal law: bound on the odds ratio of the true to the nominal
        propensity; 1 = no unobserved confounding (both laws coincide).
    law : {"extremal", "benign"}
        ``"extremal"`` attains the sharp bound; ``"benign"`` has no confounding.
    direction : {"upper", "lower"}
        Which bound the extremal law attains.
    d : int >= 1
        Number of covariates (the law depends on their mean).
    rng : None, int or numpy Generator
        Seed.

    Returns
    -------
    data : ObservationalData
    truth : dict with ``Y_potential`` (n, 2), ``m``, ``s``, ``e`` (n, 2), ``xbar``

    Examples
    --------
    >>> from iclr26sci.causal import simulate_v1
    >>> data, truth = simulate_v1(100, gamma=2.0, rng=0)
    >>> data
    ObservationalData(n=100, d=1, arms=2, source='simulated V1')
    >>> truth["Y_potential"].shape
    (100, 2)
    """
    n = check_positive_int(n, "n")
    gamma = check_gamma(gamma)
    check_option(law, "law", ("extremal", "benign"))
    check_option(direction, "direction", ("upper", "lower"))
    d = check_positive_int(d, "d")
    gen = as_generator(rng)
    X = gen.uniform(-2, 2, size=(n, d))
    xbar = X.mean(axis=1)
    m, s, e = v1_nuisances(xbar)
    A = (gen.uniform(size=n) < e[:, 1]).astype(np.int64)
    Yp = m + s * gen.standard_normal((n, 2))
    if law == "extremal" and gamma > 1:
        alpha = quantile_level(gamma, direction)
        z = norm.ppf(alpha)
        # upper: mass Gamma/(1+Gamma) above the alpha+ quantile; lower: 1/(1+Gamma) above the alpha- quantile
        p_up = gamma / (1 + gamma) if direction == "upper" else 1 / (1 + gamma)
        up = gen.uniform(size=(n, 2)) < p_up
        zu = truncnorm.rvs(z, np.inf, size=(n, 2), random_state=gen)
        zl = truncnorm.rvs(-np.inf, z, size=(n, 2), random_state=gen)
        Yw = m + s * np.where(up, zu, zl)
        other = np.arange(2)[None, :] != A[:, None]
        Yp = np.where(other, Yw, Yp)
    Y = Yp[np.arange(n), A]
    data = ObservationalData(X, A, Y, feature_names=[f"x{j}" for j in range(d)], source="simulated V1",
                             description=f"validation DGP V1, gamma={gamma:g}, law={law}")
    return data, {"Y_potential": Yp, "m": m, "s": s, "e": e, "xbar": xbar}


def simulate_paper_dgp(n: int, gamma_data: float = 2.0, d: int = 1, rng=None):
    """The official repository's synthetic DGP (binary U, confounded propensity).

    Note: the observed propensity is the U-mixture, so the MSM parameter relative to
    it is larger than ``gamma_data`` (spec pitfall 4); do not use for validity checks.

    Parameters
    ----------
    n : int >= 1
        Number of units.
    gamma_data : float in [1, 1e8]
        Odds-ratio factor by which the binary hidden confounder U moves the treatment propensity in the
        simulator (1 = no confounding).
    d : int >= 1
        Number of covariates.
    rng : None, int or numpy Generator
        Seed.

    Returns
    -------
    data : ObservationalData (unstandardised Y)
    truth : dict with noise-free potential outcomes ``Y_potential`` (n, 2) and ``U``

    Examples
    --------
    >>> from iclr26sci.causal import simulate_paper_dgp
    >>> data, truth = simulate_paper_dgp(50, gamma_data=2.0, rng=0)
    >>> data.n, sorted(truth)
    (50, ['U', 'Y_potential'])
    """
    n = check_positive_int(n, "n")
    g = check_gamma(gamma_data, "gamma_data")
    d = check_positive_int(d, "d")
    gen = as_generator(rng)
    X = gen.uniform(-2, 2, size=(n, d))
    xb = X.mean(axis=1)
    U = (gen.uniform(size=n) < 0.5).astype(float)
    p0 = 1.0 / (1.0 + np.exp(-(0.75 * xb - 0.5)))
    p = U / (1 + (1 / p0 - 1) / g) + (1 - U) / (1 + g * (1 / p0 - 1))
    A = (gen.uniform(size=n) < p).astype(np.int64)
    sg = np.array([-1.0, 1.0])[None, :]
    Yp = sg * (xb[:, None] + 1) - 2 * np.sin(2 * sg * xb[:, None]) - 2 * (2 * U[:, None] - 1) * (1 + 0.5 * xb[:, None])
    Y = Yp[np.arange(n), A] + gen.standard_normal(n)
    data = ObservationalData(X, A, Y, feature_names=[f"x{j}" for j in range(d)], source="simulated (paper DGP)")
    return data, {"Y_potential": Yp, "U": U}
