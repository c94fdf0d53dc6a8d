"""Marginal sensitivity model: closed-form sharp CAPO bounds and per-unit, per-arm scores.

Conventions
-----------
The outcome ``Y`` is a *loss* (lower is better), as in the paper. All score
functions take ``(n, K)`` arrays of nuisance values evaluated at ``(X_i, a)``.

Internally the masked means are stored *centred at the quantile*:

.. math::

    \\nu_L(x,a) = E[(Y-q)\\,1\\{Y\\le q\\}\\mid x,a],\\qquad
    \\nu_U(x,a) = E[(Y-q)\\,1\\{Y>q\\}\\mid x,a],

which relate to the paper's masked means by
:math:`\\mu_L = \\nu_L + \\alpha q`, :math:`\\mu_U = \\nu_U + (1-\\alpha) q`
(continuous outcomes). In this form the sharp bound is
:math:`Q = q + c_L\\nu_L + c_U\\nu_U`, identical to the paper's
:math:`c_L\\mu_L + c_U\\mu_U` for continuous outcomes and still valid (and
conservative) when the outcome has atoms or the quantile is misestimated.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import norm

from iclr26sci.core import InputError, check_in_range, check_option

__all__ = [
    "CITATION", "quantile_level", "msm_weights", "sharp_capo_bound", "gaussian_capo_bound", "kappa",
    "efficient_scores", "plugin_scores", "dm_scores", "ipw_scores", "dr_scores", "paper_to_centered",
]

CITATION = ("Hess, Frauen, Melnychuk, Feuerriegel. Efficient and Sharp Off-Policy Learning under "
            "Unobserved Confounding. ICLR 2026, arXiv:2502.13022")

DIRECTIONS = ("upper", "lower")


def _check_gamma(gamma) -> float:
    return check_in_range(gamma, "gamma", 1.0, None)


def _check_direction(direction) -> str:
    return check_option(direction, "direction", DIRECTIONS)


def quantile_level(gamma: float, direction: str = "upper") -> float:
    """Quantile level of the sharp bound.

    .. math:: \\alpha^+ = \\frac{\\Gamma}{1+\\Gamma},\\qquad \\alpha^- = \\frac{1}{1+\\Gamma}.
    """
    g = _check_gamma(gamma)
    d = _check_direction(direction)
    return g / (1.0 + g) if d == "upper" else 1.0 / (1.0 + g)


def msm_weights(gamma: float, direction: str = "upper") -> tuple[float, float]:
    """Weights ``(lambda_L, lambda_U)`` the worst case puts below and above the quantile.

    Upper bound: :math:`(1/\\Gamma, \\Gamma)`; lower bound: :math:`(\\Gamma, 1/\\Gamma)`.
    They satisfy :math:`\\lambda_L\\alpha + \\lambda_U(1-\\alpha) = 1`.
    """
    g = _check_gamma(gamma)
    d = _check_direction(direction)
    return (1.0 / g, g) if d == "upper" else (g, 1.0 / g)


def kappa(gamma) -> np.ndarray:
    """Gaussian bound factor :math:`\\kappa(\\Gamma)=\\varphi(\\Phi^{-1}(\\Gamma/(1+\\Gamma)))(\\Gamma-1/\\Gamma)`."""
    g = np.asarray(gamma, dtype=float)
    if np.any(~np.isfinite(g)) or np.any(g < 1):
        raise InputError("gamma", "has values below 1 or non-finite", "gamma >= 1")
    return norm.pdf(norm.ppf(g / (1.0 + g))) * (g - 1.0 / g)


def gaussian_capo_bound(m, s, e, gamma: float, direction: str = "upper") -> np.ndarray:
    """Sharp CAPO bound when :math:`Y\\mid x,a \\sim N(m, s^2)`.

    .. math:: Q^{\\pm}(x,a) = m \\pm (1-e_a(x))\\, s\\, \\kappa(\\Gamma)

    Parameters
    ----------
    m, s, e : array-like
        Conditional mean, standard deviation and propensity of the arm.
    gamma : float
        Sensitivity parameter, >= 1.
    direction : {"upper", "lower"}
    """
    g = _check_gamma(gamma)
    sign = 1.0 if _check_direction(direction) == "upper" else -1.0
    m = np.asarray(m, float)
    s = np.asarray(s, float)
    e = np.asarray(e, float)
    return m + sign * (1.0 - e) * s * float(kappa(g))


def sharp_capo_bound(e, q, nu_L, nu_U, gamma: float, direction: str = "upper") -> np.ndarray:
    """Closed-form sharp CAPO bound under MSM(Gamma) (Prop. 4.1 of the paper).

    .. math::

        Q^\\beta(x,a) = c_L\\mu_L + c_U\\mu_U = q + c_L\\nu_L + c_U\\nu_U,\\qquad
        c_{L,U} = e_a(x) + (1-e_a(x))\\lambda_{L,U}

    Parameters
    ----------
    e : array
        Propensity of the arm, :math:`e_a(x)`.
    q : array
        Conditional quantile of the observed outcome at level :func:`quantile_level`.
    nu_L, nu_U : array
        Quantile-centred masked means (see module docstring; :func:`paper_to_centered`
        converts the paper's :math:`\\mu_L, \\mu_U`).
    gamma : float
    direction : {"upper", "lower"}

    References
    ----------
    Hess et al. (2026), arXiv:2502.13022, Prop. 4.1; Frauen et al. (2023), Dorn & Guo (2022).
    """
    lam_L, lam_U = msm_weights(gamma, direction)
    e = np.asarray(e, float)
    c_L = e + (1.0 - e) * lam_L
    c_U = e + (1.0 - e) * lam_U
    return np.asarray(q, float) + c_L * np.asarray(nu_L, float) + c_U * np.asarray(nu_U, float)


def paper_to_centered(q, mu_L, mu_U, gamma: float, direction: str = "upper"):
    """Convert the paper's masked means to quantile-centred ones.

    :math:`\\nu_L = \\mu_L - \\alpha q`, :math:`\\nu_U = \\mu_U - (1-\\alpha) q`.
    """
    a = quantile_level(gamma, direction)
    q = np.asarray(q, float)
    return np.asarray(mu_L, float) - a * q, np.asarray(mu_U, float) - (1.0 - a) * q


def _onehot(A: np.ndarray, K: int) -> np.ndarray:
    out = np.zeros((A.shape[0], K))
    out[np.arange(A.shape[0]), A] = 1.0
    return out


def efficient_scores(Y, A, e, q, nu_L, nu_U, gamma: float, direction: str = "upper",
                     quantile_term_sign: int = 1) -> np.ndarray:
    """One-step (efficient, Neyman-orthogonal) score matrix :math:`G_{ia}`.

    The estimator of the sharp bound on the value of any policy is
    :math:`\\hat V^\\beta(\\pi) = n^{-1}\\sum_i\\sum_a \\pi(a\\mid X_i) G_{ia}` with

    .. math::

        G_{ia} = \\hat Q^\\beta + (1\\{A_i=a\\}-\\hat e_a) D_i
            + \\frac{1\\{A_i=a\\}}{\\hat e_a}\\Big[c_L(Y_i 1\\{Y_i\\le\\hat q\\}-\\hat\\mu_L)
            + c_U(Y_i 1\\{Y_i>\\hat q\\}-\\hat\\mu_U)
            + s_q (c_U-c_L)\\,\\hat q\\,(1\\{Y_i\\le\\hat q\\}-\\alpha)\\Big],

    :math:`D = (1-\\lambda_L)\\mu_L + (1-\\lambda_U)\\mu_U`. With :math:`s_q=+1`
    (default, derived from the influence function of the quantile) the score
    is Neyman-orthogonal; :math:`s_q=-1` reproduces the sign of the official
    code / the paper's Eq. 15 and is first-order biased in the quantile error.
    In centred form (:math:`s_q=+1`) the bracket is
    :math:`c_L(W_L-\\hat\\nu_L)+c_U(W_U-\\hat\\nu_U)` with
    :math:`W_L=(Y-\\hat q)1\\{Y\\le\\hat q\\}`, :math:`W_U=(Y-\\hat q)1\\{Y>\\hat q\\}`.

    Parameters
    ----------
    Y : (n,) outcomes (losses); A : (n,) arms in 0..K-1
    e, q, nu_L, nu_U : (n, K) nuisance values at (X_i, a), cross-fitted.
    gamma : float; direction : {"upper", "lower"}
    quantile_term_sign : {1, -1}

    Returns
    -------
    G : ndarray of shape (n, K)

    References
    ----------
    Hess et al. (2026), arXiv:2502.13022, Sec. 4.2.
    """
    if quantile_term_sign not in (1, -1):
        raise InputError("quantile_term_sign", f"got {quantile_term_sign!r}", "+1 (orthogonal) or -1 (paper code)")
    lam_L, lam_U = msm_weights(gamma, direction)
    alpha = quantile_level(gamma, direction)
    Y = np.asarray(Y, float)[:, None]
    e = np.asarray(e, float)
    q = np.asarray(q, float)
    K = e.shape[1]
    ind = _onehot(np.asarray(A), K)
    c_L = e + (1.0 - e) * lam_L
    c_U = e + (1.0 - e) * lam_U
    Qh = q + c_L * nu_L + c_U * nu_U
    D = (1.0 - lam_L) * nu_L + (1.0 - lam_U) * nu_U
    below = (Y <= q)
    W_L = np.where(below, Y - q, 0.0)
    W_U = np.where(below, 0.0, Y - q)
    resid = c_L * (W_L - nu_L) + c_U * (W_U - nu_U)
    if quantile_term_sign == -1:
        resid = resid - 2.0 * (c_U - c_L) * q * (below - alpha)
    return Qh + (ind - e) * D + ind / e * resid


def plugin_scores(e, q, nu_L, nu_U, gamma: float, direction: str = "upper") -> np.ndarray:
    """Plug-in score matrix :math:`G_{ia} = \\hat Q^\\beta(X_i,a)` (no correction)."""
    return sharp_capo_bound(e, q, nu_L, nu_U, gamma, direction)


def dm_scores(mu) -> np.ndarray:
    """Direct method (Gamma = 1): :math:`G_{ia}=\\hat\\mu(X_i,a)`."""
    return np.asarray(mu, float).copy()


def ipw_scores(Y, A, e) -> np.ndarray:
    """Inverse propensity weighting: :math:`G_{ia}=1\\{A_i=a\\}Y_i/\\hat e_a(X_i)`."""
    e = np.asarray(e, float)
    ind = _onehot(np.asarray(A), e.shape[1])
    return ind * np.asarray(Y, float)[:, None] / e


def dr_scores(Y, A, e, mu) -> np.ndarray:
    """Doubly robust (AIPW) scores :math:`\\hat\\mu + 1\\{A=a\\}(Y-\\hat\\mu)/\\hat e_a`."""
    e = np.asarray(e, float)
    mu = np.asarray(mu, float)
    ind = _onehot(np.asarray(A), e.shape[1])
    return mu + ind * (np.asarray(Y, float)[:, None] - mu) / e
