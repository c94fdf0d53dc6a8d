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

from ._validate import (InputError, check_A, check_array, check_broadcast, check_direction, check_gamma,
                        check_matrix, check_nu, check_prob_matrix, check_sign, check_Y)

__all__ = [
    "CITATION", "quantile_level", "msm_weights", "sharp_capo_bound", "gaussian_capo_bound", "kappa",
    "efficient_scores", "plugin_scores", "dm_scores", "ipw_scores", "dr_scores", "paper_to_centered",
]

CITATION = ("Hess, Frauen, Melnychuk, Feuerriegel. Efficient and Sharp Off-Policy Learning under "
            "Unobserved Confounding. ICLR 2026, arXiv:2502.13022")

DIRECTIONS = ("upper", "lower")

_GAMMA_DOC = """gamma : float in [1, 1e8]
        Sensitivity parameter of the marginal sensitivity model MSM(Gamma): the odds of treatment given
        the unobserved confounder may differ from the nominal (observed) propensity odds by at most a
        factor Gamma, ``1/Gamma <= [P(A=a|x,u)/(1-P(A=a|x,u))] / [e_a(x)/(1-e_a(x))] <= Gamma``.
        ``gamma=1`` means no unobserved confounding (the bounds collapse to the point-identified value);
        larger values allow stronger hidden confounding and give wider bounds."""


def _ndtri(p):
    from scipy.special import ndtri

    return ndtri(p)


def _phi(z):
    return np.exp(-0.5 * np.square(z)) / np.sqrt(2.0 * np.pi)


def quantile_level(gamma: float, direction: str = "upper") -> float:
    """Quantile level of the sharp bound.

    .. math:: \\alpha^+ = \\frac{\\Gamma}{1+\\Gamma},\\qquad \\alpha^- = \\frac{1}{1+\\Gamma}.

    Parameters
    ----------
    gamma : float in [1, 1e8]
        MSM sensitivity parameter (bound on the odds ratio of the true to the nominal propensity;
        1 = no unobserved confounding).
    direction : {"upper", "lower"}
        Which sharp bound: ``"upper"`` bounds the conditional mean outcome from above, ``"lower"`` from below.

    Returns
    -------
    float
        The level at which the conditional quantile of the observed outcome splits the worst-case
        re-weighting.

    Examples
    --------
    >>> from iclr26sci.causal import quantile_level
    >>> quantile_level(2.0), quantile_level(2.0, "lower")
    (0.6666666666666666, 0.3333333333333333)
    """
    g = check_gamma(gamma)
    d = check_direction(direction)
    return g / (1.0 + g) if d == "upper" else 1.0 / (1.0 + g)


def msm_weights(gamma: float, direction: str = "upper") -> tuple[float, float]:
    """Weights ``(lambda_L, lambda_U)`` the worst case puts below and above the quantile.

    Upper bound: :math:`(1/\\Gamma, \\Gamma)`; lower bound: :math:`(\\Gamma, 1/\\Gamma)`.
    They satisfy :math:`\\lambda_L\\alpha + \\lambda_U(1-\\alpha) = 1`, so the re-weighted density of the
    unobserved potential outcome integrates to one.

    Parameters
    ----------
    gamma : float in [1, 1e8]
        MSM sensitivity parameter (bound on the odds ratio of the true to the nominal propensity;
        1 = no unobserved confounding, both weights 1).
    direction : {"upper", "lower"}
        Which sharp bound.

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> from iclr26sci.causal import msm_weights
    >>> msm_weights(4.0)
    (0.25, 4.0)
    >>> msm_weights(4.0, "lower")
    (4.0, 0.25)
    """
    g = check_gamma(gamma)
    d = check_direction(direction)
    return (1.0 / g, g) if d == "upper" else (g, 1.0 / g)


def kappa(gamma):
    """Gaussian bound factor :math:`\\kappa(\\Gamma)=\\varphi(\\Phi^{-1}(\\Gamma/(1+\\Gamma)))(\\Gamma-1/\\Gamma)`.

    When :math:`Y\\mid x,a\\sim N(m,s^2)` the sharp bounds are :math:`m\\pm(1-e)\\,s\\,\\kappa(\\Gamma)`
    (see :func:`gaussian_capo_bound`).

    Parameters
    ----------
    gamma : float or array of floats in [1, 1e8]
        MSM sensitivity parameter(s) (bound on the odds ratio of the true to the nominal propensity;
        ``kappa(1) = 0``: no confounding, no width).

    Returns
    -------
    float or ndarray (same shape as ``gamma``)

    Examples
    --------
    >>> from iclr26sci.causal import kappa
    >>> round(float(kappa(2.0)), 4), round(float(kappa(1.0)), 4)
    (0.5454, 0.0)
    """
    if isinstance(gamma, (str, bytes, bool)):
        raise InputError("gamma", f"got {gamma!r} of type {type(gamma).__name__}", "a real number >= 1")
    g = check_array(gamma, "gamma")
    if g.size and (np.any(g < 1) or np.any(g > 1e8)):
        raise InputError("gamma", f"has values outside [1, 1e8] (min {g.min():g}, max {g.max():g})",
                         "gamma in [1, 1e8]")
    out = _phi(_ndtri(g / (1.0 + g))) * (g - 1.0 / g)
    return float(out) if out.ndim == 0 else out


def gaussian_capo_bound(m, s, e, gamma: float, direction: str = "upper") -> np.ndarray:
    """Sharp CAPO bound when :math:`Y\\mid x,a \\sim N(m, s^2)`.

    .. math:: Q^{\\pm}(x,a) = m \\pm (1-e_a(x))\\, s\\, \\kappa(\\Gamma)

    Parameters
    ----------
    m : array-like
        Conditional mean of the observed outcome in the arm, :math:`E[Y\\mid x, A=a]`.
    s : array-like, >= 0
        Conditional standard deviation of the observed outcome in the arm.
    e : array-like, in [0, 1]
        Nominal propensity of the arm, :math:`P(A=a\\mid x)`; only the unobserved share ``1 - e`` of the
        population can be confounded, so the width shrinks to 0 as ``e -> 1``.
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true (confounded) to the nominal
        propensity; 1 = no unobserved confounding (the bound is ``m``).
    direction : {"upper", "lower"}
        Which sharp bound.

    Returns
    -------
    ndarray (broadcast shape of ``m, s, e``)

    Examples
    --------
    >>> from iclr26sci.causal import gaussian_capo_bound
    >>> round(float(gaussian_capo_bound(0.0, 1.0, 0.5, 2.0)), 4)
    0.2727
    >>> round(float(gaussian_capo_bound(0.0, 1.0, 0.5, 2.0, "lower")), 4)
    -0.2727
    """
    g = check_gamma(gamma)
    sign = 1.0 if check_direction(direction) == "upper" else -1.0
    m = check_array(m, "m")
    s = check_array(s, "s", nonnegative=True)
    e = _check_unit(e, "e")
    check_broadcast(m=m, s=s, e=e)
    return m + sign * (1.0 - e) * s * kappa(g)


def _check_unit(e, name):
    e = check_array(e, name)
    if e.size and (e.min() < 0 or e.max() > 1):
        raise InputError(name, f"has values outside [0, 1] (min {e.min():.3g}, max {e.max():.3g})",
                         "propensities in [0, 1]")
    return e


def sharp_capo_bound(e, q, nu_L, nu_U, gamma: float, direction: str = "upper") -> np.ndarray:
    """Closed-form sharp CAPO bound under MSM(Gamma) (Prop. 4.1 of the paper).

    .. math::

        Q^\\beta(x,a) = c_L\\mu_L + c_U\\mu_U = q + c_L\\nu_L + c_U\\nu_U,\\qquad
        c_{L,U} = e_a(x) + (1-e_a(x))\\lambda_{L,U}

    Parameters
    ----------
    e : array, in [0, 1]
        Nominal propensity of the arm, :math:`e_a(x) = P(A=a\\mid X=x)`.
    q : array
        Conditional quantile of the observed outcome in the arm at level :func:`quantile_level`.
    nu_L : array, <= 0
        Lower quantile-centred masked mean :math:`E[(Y-q)1\\{Y\\le q\\}\\mid x,a]` (non-positive);
        :func:`paper_to_centered` converts the paper's :math:`\\mu_L`.
    nu_U : array, >= 0
        Upper quantile-centred masked mean :math:`E[(Y-q)1\\{Y>q\\}\\mid x,a]` (non-negative).
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true to the nominal propensity;
        1 = no unobserved confounding (the bound is the conditional mean ``q + nu_L + nu_U``).
    direction : {"upper", "lower"}
        Which sharp bound.

    Returns
    -------
    ndarray (broadcast shape of the inputs)

    References
    ----------
    Hess et al. (2026), arXiv:2502.13022, Prop. 4.1; Frauen et al. (2023), Dorn & Guo (2022).

    Examples
    --------
    >>> from iclr26sci.causal import sharp_capo_bound
    >>> float(sharp_capo_bound(0.5, 0.0, -0.4, 0.4, 1.0))   # Gamma = 1: the mean q + nu_L + nu_U
    0.0
    >>> round(float(sharp_capo_bound(0.5, 0.0, -0.4, 0.4, 2.0)), 6)   # 0.75 * (-0.4) + 1.5 * 0.4
    0.3
    """
    lam_L, lam_U = msm_weights(gamma, direction)
    e = _check_unit(e, "e")
    q = check_array(q, "q")
    nu_L, nu_U = check_nu(nu_L, nu_U)
    check_broadcast(e=e, q=q, nu_L=nu_L, nu_U=nu_U)
    c_L = e + (1.0 - e) * lam_L
    c_U = e + (1.0 - e) * lam_U
    return q + c_L * nu_L + c_U * nu_U


def paper_to_centered(q, mu_L, mu_U, gamma: float, direction: str = "upper"):
    """Convert the paper's masked means to quantile-centred ones.

    :math:`\\nu_L = \\mu_L - \\alpha q`, :math:`\\nu_U = \\mu_U - (1-\\alpha) q`, with :math:`\\alpha` the
    bound's quantile level (exact for continuous outcomes, where :math:`P(Y\\le q)=\\alpha`).

    Parameters
    ----------
    q : array
        Conditional quantile of the observed outcome at level ``quantile_level(gamma, direction)``.
    mu_L, mu_U : array
        The paper's masked means :math:`E[Y1\\{Y\\le q\\}\\mid x,a]` and :math:`E[Y1\\{Y\\ge q\\}\\mid x,a]`.
    gamma : float in [1, 1e8]
        MSM sensitivity parameter (odds-ratio bound of the true to the nominal propensity; 1 = no
        confounding); it fixes the level :math:`\\alpha`.
    direction : {"upper", "lower"}
        Which bound's level.

    Returns
    -------
    (nu_L, nu_U) : tuple of ndarrays

    Examples
    --------
    >>> from iclr26sci.causal import paper_to_centered
    >>> nl, nu = paper_to_centered(1.5, -0.2, 1.4, 2.0)      # alpha = 2/3
    >>> round(float(nl), 6), round(float(nu), 6)
    (-1.2, 0.9)
    """
    a = quantile_level(gamma, direction)
    q = check_array(q, "q")
    mu_L = check_array(mu_L, "mu_L")
    mu_U = check_array(mu_U, "mu_U")
    check_broadcast(q=q, mu_L=mu_L, mu_U=mu_U)
    return mu_L - a * q, mu_U - (1.0 - a) * q


def _onehot(A: np.ndarray, K: int) -> np.ndarray:
    out = np.zeros((A.shape[0], K))
    out[np.arange(A.shape[0]), A] = 1.0
    return out


def _check_scores_inputs(Y, A, e, arrays: dict):
    """Validate (Y, A, e, nuisance matrices) of a score function: e an (n, K) positive propensity matrix."""
    e = check_prob_matrix(e, "e", positive=True)
    n, K = e.shape
    out = []
    for name, arr in arrays.items():
        out.append(check_matrix(arr, name, (n, K)))
    Yv = check_Y(Y, "Y", n) if Y is not None else None
    Av = check_A(A, "A", n, K) if A is not None else None
    return Yv, Av, e, out


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
    Y : array (n,)
        Observed outcomes, on the loss scale (lower is better).
    A : array (n,) of int
        Arm received by each unit, in 0..K-1.
    e : array (n, K)
        Cross-fitted nominal propensities :math:`\\hat e_a(X_i)`: rows are probability distributions over
        the arms, entries strictly positive (they are inverted).
    q : array (n, K)
        Cross-fitted conditional quantile of the outcome in each arm at level ``quantile_level(gamma, direction)``.
    nu_L, nu_U : array (n, K)
        Cross-fitted quantile-centred masked means (``nu_L <= 0 <= nu_U``).
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true to the nominal propensity;
        1 = no unobserved confounding, where the score is exactly the AIPW (doubly robust) score.
    direction : {"upper", "lower"}
        Score of the upper or the lower sharp bound.
    quantile_term_sign : {1, -1}
        Sign of the quantile-correction term: +1 is Neyman-orthogonal (default), -1 the official code's sign.

    Returns
    -------
    G : ndarray of shape (n, K)

    References
    ----------
    Hess et al. (2026), arXiv:2502.13022, Sec. 4.2.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import efficient_scores, dr_scores
    >>> Y, A = np.array([0.5, -1.0, 2.0]), np.array([0, 1, 1])
    >>> e = np.full((3, 2), 0.5)
    >>> q, nl, nu = np.zeros((3, 2)), np.full((3, 2), -0.4), np.full((3, 2), 0.4)
    >>> G = efficient_scores(Y, A, e, q, nl, nu, 1.0)          # Gamma = 1: the AIPW score
    >>> bool(np.allclose(G, dr_scores(Y, A, e, q + nl + nu)))
    True
    >>> efficient_scores(Y, A, e, q, nl, nu, 2.0).shape
    (3, 2)
    """
    lam_L, lam_U = msm_weights(gamma, direction)
    alpha = quantile_level(gamma, direction)
    check_sign(quantile_term_sign)
    Y, A, e, (q, nu_L, nu_U) = _check_scores_inputs(Y, A, e, {"q": q, "nu_L": nu_L, "nu_U": nu_U})
    check_nu(nu_L, nu_U)
    Y = Y[:, None]
    K = e.shape[1]
    ind = _onehot(A, K)
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
    """Plug-in score matrix :math:`G_{ia} = \\hat Q^\\beta(X_i,a)` (no correction).

    Parameters
    ----------
    e : array (n, K)
        Nominal propensities; rows are probability distributions over the arms.
    q, nu_L, nu_U : array (n, K)
        Conditional quantile and quantile-centred masked means (``nu_L <= 0 <= nu_U``) at every unit and arm.
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true to the nominal propensity;
        1 = no unobserved confounding.
    direction : {"upper", "lower"}
        Which sharp bound.

    Returns
    -------
    G : ndarray (n, K)

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import plugin_scores
    >>> G = plugin_scores(np.full((2, 2), 0.5), np.zeros((2, 2)), np.full((2, 2), -0.4), np.full((2, 2), 0.4), 2.0)
    >>> G.round(6)
    array([[0.3, 0.3],
           [0.3, 0.3]])
    """
    msm_weights(gamma, direction)
    e = check_prob_matrix(e, "e")
    n, K = e.shape
    q = check_matrix(q, "q", (n, K))
    nu_L = check_matrix(nu_L, "nu_L", (n, K))
    nu_U = check_matrix(nu_U, "nu_U", (n, K))
    return sharp_capo_bound(e, q, nu_L, nu_U, gamma, direction)


def dm_scores(mu) -> np.ndarray:
    """Direct method (Gamma = 1): :math:`G_{ia}=\\hat\\mu(X_i,a)`.

    Parameters
    ----------
    mu : array (n, K)
        Outcome regression :math:`\\hat\\mu(X_i, a) = \\hat E[Y\\mid X_i, A=a]` at every unit and arm.

    Returns
    -------
    G : ndarray (n, K), a copy of ``mu``

    Examples
    --------
    >>> from iclr26sci.causal import dm_scores
    >>> dm_scores([[1.0, 2.0]])
    array([[1., 2.]])
    """
    return check_matrix(mu, "mu").astype(float, copy=True)


def ipw_scores(Y, A, e) -> np.ndarray:
    """Inverse propensity weighting: :math:`G_{ia}=1\\{A_i=a\\}Y_i/\\hat e_a(X_i)`.

    Parameters
    ----------
    Y : array (n,)
        Observed outcomes (loss scale).
    A : array (n,) of int
        Arm received, in 0..K-1.
    e : array (n, K)
        Nominal propensities, rows summing to 1, entries strictly positive.

    Returns
    -------
    G : ndarray (n, K)

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import ipw_scores
    >>> ipw_scores([1.0, 2.0], [0, 1], np.full((2, 2), 0.5))
    array([[2., 0.],
           [0., 4.]])
    """
    Y, A, e, _ = _check_scores_inputs(Y, A, e, {})
    ind = _onehot(A, e.shape[1])
    return ind * Y[:, None] / e


def dr_scores(Y, A, e, mu) -> np.ndarray:
    """Doubly robust (AIPW) scores :math:`\\hat\\mu + 1\\{A=a\\}(Y-\\hat\\mu)/\\hat e_a`.

    Parameters
    ----------
    Y : array (n,)
        Observed outcomes (loss scale).
    A : array (n,) of int
        Arm received, in 0..K-1.
    e : array (n, K)
        Nominal propensities, rows summing to 1, entries strictly positive.
    mu : array (n, K)
        Outcome regression :math:`\\hat E[Y\\mid X_i, A=a]` at every unit and arm.

    Returns
    -------
    G : ndarray (n, K)

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import dr_scores
    >>> dr_scores([1.0, 2.0], [0, 1], np.full((2, 2), 0.5), np.ones((2, 2)))
    array([[1., 1.],
           [1., 3.]])
    """
    Y, A, e, (mu,) = _check_scores_inputs(Y, A, e, {"mu": mu})
    ind = _onehot(A, e.shape[1])
    return mu + ind * (Y[:, None] - mu) / e
