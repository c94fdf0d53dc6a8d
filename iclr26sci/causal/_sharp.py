"""Sharp policy-value bounds, the confounding-robust policy learner and improvement certificates."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iclr26sci.core import (Estimate, InputError, ObservationalData, as_generator, check_array,
                            check_consistent_length, check_in_range, check_option, check_positive_int)

from ._msm import (CITATION, dm_scores, dr_scores, efficient_scores, ipw_scores, plugin_scores, quantile_level)
from ._nuisance import CrossFitNuisances, NuisanceModels, cross_fit_nuisances
from ._policy import as_policy_matrix, make_policy

__all__ = ["ValueBounds", "sharp_value_bounds", "score_matrix", "SharpPolicyLearner", "policy_improvement",
           "ImprovementCertificate", "sensitivity_curve", "breakdown_gamma", "BreakdownResult", "policy_value"]

ESTIMATORS = ("efficient", "plugin", "dm", "ipw", "dr")


# ------------------------------------------------------------------------------------------ input checks
def _coerce_data(data, min_per_arm: int = 2):
    """(X, A, Y_as_given, K) from ObservationalData or an (X, A, Y) tuple, validated."""
    names = None
    if isinstance(data, ObservationalData):
        X, A, Y = data.X, data.A, data.Y
        K = data.n_arms
        names = data.feature_names
    elif isinstance(data, (tuple, list)) and len(data) == 3:
        X = check_array(data[0], "X", ndim=(1, 2))
        if X.ndim == 1:
            X = X[:, None]
        A_raw = np.asarray(data[1])
        if A_raw.dtype.kind == "f" and np.any(~np.isfinite(A_raw)):
            raise InputError("A", "has missing (NaN) treatment labels", "integer arm labels 0..K-1")
        A = check_array(data[1], "A", ndim=1, dtype=int)
        Y = check_array(data[2], "Y", ndim=1)
        check_consistent_length(X=X, A=A, Y=Y)
        if A.size and A.min() < 0:
            raise InputError("A", f"has negative arm label {A.min()}", "integer arm labels 0..K-1")
        K = int(A.max()) + 1 if A.size else 0
    else:
        raise InputError("data", f"got {type(data).__name__}", "ObservationalData or a tuple (X, A, Y)")
    if K < 2:
        raise InputError("A", f"has {K} arm(s)", "at least 2 arms (labels 0..K-1)")
    counts = np.bincount(A, minlength=K)
    if np.any(counts < min_per_arm):
        bad = [int(a) for a in np.flatnonzero(counts < min_per_arm)]
        raise InputError("A", f"arm(s) {bad} have fewer than {min_per_arm} observations (counts "
                         f"{counts.tolist()})", "every arm 0..K-1 observed in each cross-fitting fold")
    return X, A, Y, K, names


def _outcome_sign(outcome: str) -> float:
    return 1.0 if check_option(outcome, "outcome", ("loss", "reward")) == "loss" else -1.0


def _check_common(gamma, cv, estimator=None, quantile_term_sign=1):
    g = check_in_range(gamma, "gamma", 1.0, None)
    cv = check_positive_int(cv, "cv", minimum=1)
    if estimator is not None:
        check_option(estimator, "estimator", ESTIMATORS)
    if quantile_term_sign not in (1, -1):
        raise InputError("quantile_term_sign", f"got {quantile_term_sign!r}", "+1 (orthogonal) or -1 (paper code)")
    return g, cv


def _seed(rng) -> int:
    return int(as_generator(rng).integers(2**31 - 1))


def _fixed_seed(rng) -> int:
    """An int seed reused across repeated cross-fits (an int rng is kept as is)."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return int(rng)
    return _seed(rng)


# ------------------------------------------------------------------------------------------ scores
def score_matrix(nuis: CrossFitNuisances, Y, A, gamma: float, direction: str = "upper",
                 estimator: str = "efficient", quantile_term_sign: int = 1) -> np.ndarray:
    """Per-unit, per-arm score matrix ``G`` (loss scale) of the chosen estimator.

    ``"efficient"``/``"plugin"`` bound the value under MSM(gamma); ``"dm"``, ``"ipw"``,
    ``"dr"`` estimate it under unconfoundedness (gamma ignored).
    """
    if estimator in ("efficient", "plugin"):
        q, nl, nu = nuis.get(quantile_level(gamma, direction))
        if estimator == "plugin":
            return plugin_scores(nuis.e, q, nl, nu, gamma, direction)
        return efficient_scores(Y, A, nuis.e, q, nl, nu, gamma, direction, quantile_term_sign)
    if estimator == "ipw":
        return ipw_scores(Y, A, nuis.e)
    if estimator == "dm":
        return dm_scores(nuis.mu())
    return dr_scores(Y, A, nuis.e, nuis.mu())


def _estimate(psi: np.ndarray, name: str) -> Estimate:
    n = psi.shape[0]
    return Estimate(float(psi.mean()), float(psi.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan"),
                    name=name, n=n, citation=CITATION)


@dataclass(frozen=True)
class ValueBounds:
    """Bounds on a policy's value under MSM(gamma), in the user's outcome units.

    Attributes
    ----------
    lower, upper : Estimate
        Estimated sharp lower / upper bound with standard errors from the influence function.
    gamma : float
    outcome : {"loss", "reward"}
    estimator : str
    psi_lower, psi_upper : ndarray (n,)
        Per-unit contributions :math:`\\sum_a\\pi(a|X_i)G_{ia}` (user units).
    """

    lower: Estimate
    upper: Estimate
    gamma: float
    outcome: str
    estimator: str
    psi_lower: np.ndarray = field(repr=False, compare=False, default=None)
    psi_upper: np.ndarray = field(repr=False, compare=False, default=None)
    citation: str = CITATION

    @property
    def width(self) -> float:
        return self.upper.value - self.lower.value

    def conf_int(self, alpha: float = 0.05) -> tuple[float, float]:
        """Interval covering the identified set: lower's lower and upper's upper one-sided bounds."""
        return self.lower.lower_bound(alpha), self.upper.upper_bound(alpha)

    def summary(self) -> str:
        return (f"MSM(Gamma={self.gamma:g}) {self.estimator} bounds on the policy {self.outcome}: "
                f"[{self.lower.value:.4g} (se {self.lower.stderr:.3g}), {self.upper.value:.4g} "
                f"(se {self.upper.stderr:.3g})]")

    def __str__(self):
        return self.summary()


def sharp_value_bounds(data, policy, gamma: float = 2.0, *, outcome: str = "loss", cv: int = 5,
                       nuisance=None, estimator: str = "efficient", quantile_term_sign: int = 1,
                       propensity=None, propensity_clip: float = 0.01, rng=None) -> ValueBounds:
    """Sharp bounds on the value of ``policy`` under the marginal sensitivity model MSM(Gamma).

    .. math::

        V^\\pm(\\pi) = E\\Big[\\sum_a \\pi(a\\mid X)\\,Q^\\pm(X,a)\\Big],\\qquad
        \\hat V^\\pm(\\pi) = \\frac1n\\sum_i\\sum_a\\pi(a\\mid X_i)\\,G^\\pm_{ia}

    with the cross-fitted one-step scores :math:`G^\\pm` (:func:`efficient_scores`); the
    standard error is :math:`\\mathrm{sd}_i(\\sum_a\\pi G_{ia})/\\sqrt n`.

    Parameters
    ----------
    data : ObservationalData or (X, A, Y)
    policy : policy object, callable, (n, K) probabilities, (n,) arms, int, or "uniform"
    gamma : float >= 1
    outcome : {"loss", "reward"}
        With ``"reward"`` the bounds are computed on ``-Y`` and reported back in reward units.
    cv : int
        Number of cross-fitting folds (1: in-sample nuisances).
    nuisance : preset ("basis", "linear", "hgb", "mlp"), dict or NuisanceModels
    estimator : {"efficient", "plugin", "dm", "ipw", "dr"}
    quantile_term_sign : {1, -1}
        +1: Neyman-orthogonal (default); -1: the official code's sign.
    propensity : (n, K) array, optional
        Known propensities (randomised data).
    rng : seed

    Returns
    -------
    ValueBounds

    References
    ----------
    Hess, Frauen, Melnychuk & Feuerriegel (2026), arXiv:2502.13022; Dorn & Guo (2022), JASA.
    """
    gamma, cv = _check_common(gamma, cv, estimator, quantile_term_sign)
    sgn = _outcome_sign(outcome)
    X, A, Y, K, _ = _coerce_data(data, min_per_arm=max(cv, 2))
    P = as_policy_matrix(policy, X, K)
    if propensity is not None:
        propensity = check_array(propensity, "propensity", shape=(X.shape[0], K))
    L = sgn * Y
    nuis = cross_fit_nuisances(X, A, L, K, [quantile_level(gamma, "upper"), quantile_level(gamma, "lower")],
                               cv=cv, nuisance=nuisance, rng=rng, propensity=propensity,
                               propensity_clip=propensity_clip)
    psi = {}
    for d in ("upper", "lower"):
        G = score_matrix(nuis, L, A, gamma, d, estimator, quantile_term_sign)
        psi[d] = np.sum(P * G, axis=1)
    if sgn > 0:
        lo, up = psi["lower"], psi["upper"]
    else:
        lo, up = -psi["upper"], -psi["lower"]
    return ValueBounds(lower=_estimate(lo, f"lower bound on the policy {outcome} (Gamma={gamma:g})"),
                       upper=_estimate(up, f"upper bound on the policy {outcome} (Gamma={gamma:g})"),
                       gamma=gamma, outcome=outcome, estimator=estimator, psi_lower=lo, psi_upper=up)


def policy_value(data, policy, *, outcome: str = "loss", estimator: str = "dr", cv: int = 5, nuisance=None,
                 propensity=None, rng=None) -> Estimate:
    """Point estimate of a policy's value under unconfoundedness (DM, IPW or DR; Gamma = 1)."""
    check_option(estimator, "estimator", ("dm", "ipw", "dr", "efficient", "plugin"))
    b = sharp_value_bounds(data, policy, 1.0, outcome=outcome, cv=cv, nuisance=nuisance, estimator=estimator,
                           propensity=propensity, rng=rng)
    return Estimate(b.upper.value, b.upper.stderr, name=f"{estimator} value of the policy {outcome}", n=b.upper.n,
                    citation=CITATION)


# ------------------------------------------------------------------------------------------ learner
class SharpPolicyLearner:
    """Confounding-robust policy learning: minimise the estimated sharp upper bound on the loss.

    .. math:: \\hat\\pi = \\arg\\min_{\\pi\\in\\Pi}\\ \\frac1n\\sum_i\\sum_a \\pi(a\\mid X_i)\\,G^+_{ia}

    where :math:`G^+` is the cross-fitted one-step score matrix of the sharp upper bound
    (Algorithm 1 of the paper with K-fold cross-fitting instead of a single split).
    With ``outcome="reward"`` the lower bound on the reward is maximised.

    Parameters
    ----------
    gamma : float >= 1
    policy_class : {"logistic", "mlp", "tree"} or an object with fit(X, G), predict_proba(X)
    cv : int
    nuisance : nuisance models (see :class:`NuisanceModels`)
    estimator : {"efficient", "plugin", "dm", "ipw", "dr"}
        "dm", "ipw" and "dr" give the standard (unconfounded) learners on the same nuisances.
    quantile_term_sign : {1, -1}
    outcome : {"loss", "reward"}
    deterministic : bool
        Deterministic (argmax) instead of stochastic softmax policy.
    policy_params : dict, optional
        Passed to the policy class.
    rng : seed

    Attributes
    ----------
    policy_ : the fitted policy
    scores_ : (n, K) score matrix on the loss scale
    nuisances_ : CrossFitNuisances
    value_bound_ : Estimate
        In-sample estimate of the bound at the learned policy (upper bound on the loss,
        or lower bound on the reward); optimistic because the policy was fitted on it.
    n_arms_ : int

    References
    ----------
    Hess, Frauen, Melnychuk & Feuerriegel (2026), arXiv:2502.13022, Algorithm 1.
    """

    def __init__(self, gamma: float = 2.0, policy_class="logistic", cv: int = 5, nuisance=None,
                 estimator: str = "efficient", quantile_term_sign: int = 1, outcome: str = "loss",
                 deterministic: bool = False, policy_params=None, propensity_clip: float = 0.01, rng=None):
        self.gamma = gamma
        self.policy_class = policy_class
        self.cv = cv
        self.nuisance = nuisance
        self.estimator = estimator
        self.quantile_term_sign = quantile_term_sign
        self.outcome = outcome
        self.deterministic = deterministic
        self.policy_params = policy_params
        self.propensity_clip = propensity_clip
        self.rng = rng

    def fit(self, data, propensity=None):
        gamma, cv = _check_common(self.gamma, self.cv, self.estimator, self.quantile_term_sign)
        sgn = _outcome_sign(self.outcome)
        if not isinstance(self.deterministic, (bool, np.bool_)):
            raise InputError("deterministic", f"got {self.deterministic!r}", "True or False")
        X, A, Y, K, _ = _coerce_data(data, min_per_arm=max(cv, 2))
        NuisanceModels.coerce(self.nuisance)
        gen = as_generator(self.rng)
        pol = make_policy(self.policy_class, self.deterministic, self.policy_params, rng=_seed(gen))
        if propensity is not None:
            propensity = check_array(propensity, "propensity", shape=(X.shape[0], K))
        L = sgn * Y
        self.nuisances_ = cross_fit_nuisances(X, A, L, K, [quantile_level(gamma, "upper")], cv=cv,
                                              nuisance=self.nuisance, rng=gen, propensity=propensity,
                                              propensity_clip=self.propensity_clip)
        self.scores_ = score_matrix(self.nuisances_, L, A, gamma, "upper", self.estimator,
                                    self.quantile_term_sign)
        self.policy_ = pol.fit(X, self.scores_)
        self.n_arms_ = K
        psi = np.sum(self.predict_proba(X) * self.scores_, axis=1)
        what = "upper bound on the loss" if sgn > 0 else "lower bound on the reward"
        self.value_bound_ = _estimate(sgn * psi, f"in-sample {what} of the learned policy (Gamma={gamma:g})")
        return self

    def _check_fitted(self):
        if not hasattr(self, "policy_"):
            raise InputError("self", "is not fitted", "call fit(data) first")

    def predict_proba(self, X) -> np.ndarray:
        """(n, K) action probabilities (one-hot for deterministic policies)."""
        self._check_fitted()
        X = check_array(X, "X", ndim=(1, 2))
        return self.policy_.predict_proba(X.reshape(len(X), -1))

    def predict(self, X) -> np.ndarray:
        """Most probable action per row."""
        self._check_fitted()
        X = check_array(X, "X", ndim=(1, 2))
        return self.policy_.predict(X.reshape(len(X), -1))


# ------------------------------------------------------------------------------------------ improvement
@dataclass(frozen=True)
class ImprovementCertificate:
    """Certified improvement of ``policy`` over ``baseline`` under MSM(gamma).

    ``bound`` is in the user's units: for a loss, an upper bound on
    :math:`V(\\pi)-V(\\pi_0)` (negative = better); for a reward, a lower bound on
    the improvement :math:`V(\\pi)-V(\\pi_0)` (positive = better). ``certified`` is
    True when the one-sided ``1 - alpha`` confidence bound has the good sign.
    """

    bound: Estimate
    certified: bool
    gamma: float
    form: str
    outcome: str
    alpha: float
    psi: np.ndarray = field(repr=False, compare=False, default=None)
    citation: str = CITATION

    def summary(self) -> str:
        word = "certified" if self.certified else "not certified"
        return f"{self.bound.summary()} -> improvement {word} at Gamma={self.gamma:g} ({self.form} form)"


def _regret_psi(P, P0, Gp, Gm, form):
    if form == "paper":
        return np.sum(P * Gp - P0 * Gm, axis=1)
    D = P - P0
    return np.sum(np.clip(D, 0, None) * Gp - np.clip(-D, 0, None) * Gm, axis=1)


def policy_improvement(data, policy, baseline=None, gamma: float = 2.0, *, form: str = "tight",
                       outcome: str = "loss", alpha: float = 0.05, cv: int = 5, nuisance=None,
                       propensity=None, estimator: str = "efficient", rng=None) -> ImprovementCertificate:
    """Bound on the regret of ``policy`` against ``baseline`` under MSM(Gamma), with a certificate.

    Paper form (Cor. 4.5):

    .. math:: R^+_{\\pi_0}(\\pi) = E\\sum_a\\big[\\pi(a|X)Q^+(X,a) - \\pi_0(a|X)Q^-(X,a)\\big]

    Tight form (valid, zero at :math:`\\pi=\\pi_0`, never larger):

    .. math:: E\\sum_a\\big[(\\pi-\\pi_0)^+(a|X)\\,Q^+(X,a) - (\\pi-\\pi_0)^-(a|X)\\,Q^-(X,a)\\big]

    both estimated with the one-step scores. Evaluate on data not used to learn ``policy``
    for an honest certificate.

    Parameters
    ----------
    data, policy, baseline : as in :func:`sharp_value_bounds` (baseline None = uniform)
    gamma : float >= 1
    form : {"tight", "paper"}
    outcome : {"loss", "reward"}
    alpha : float
        One-sided level of the certificate.

    Returns
    -------
    ImprovementCertificate
    """
    gamma, cv = _check_common(gamma, cv, estimator)
    check_option(form, "form", ("tight", "paper"))
    check_option(estimator, "estimator", ("efficient", "plugin"))
    alpha = check_in_range(alpha, "alpha", 0.0, 0.5, low_open=True, high_open=True)
    sgn = _outcome_sign(outcome)
    X, A, Y, K, _ = _coerce_data(data, min_per_arm=max(cv, 2))
    P = as_policy_matrix(policy, X, K, "policy")
    P0 = as_policy_matrix(baseline, X, K, "baseline")
    if propensity is not None:
        propensity = check_array(propensity, "propensity", shape=(X.shape[0], K))
    L = sgn * Y
    nuis = cross_fit_nuisances(X, A, L, K, [quantile_level(gamma, "upper"), quantile_level(gamma, "lower")],
                               cv=cv, nuisance=nuisance, rng=rng, propensity=propensity)
    Gp = score_matrix(nuis, L, A, gamma, "upper", estimator)
    Gm = score_matrix(nuis, L, A, gamma, "lower", estimator)
    psi = _regret_psi(P, P0, Gp, Gm, form)
    est = _estimate(sgn * psi, ("upper bound on the loss regret" if sgn > 0 else
                                "lower bound on the reward improvement") + f" (Gamma={gamma:g}, {form})")
    certified = bool(est.upper_bound(alpha) < 0) if sgn > 0 else bool(est.lower_bound(alpha) > 0)
    return ImprovementCertificate(bound=est, certified=certified, gamma=gamma, form=form, outcome=outcome,
                                  alpha=alpha, psi=sgn * psi)


# ------------------------------------------------------------------------------------------ sensitivity
def sensitivity_curve(data, policy, gammas, *, outcome: str = "loss", cv: int = 5, nuisance=None,
                      estimator: str = "efficient", baseline=None, form: str = "tight", alpha: float = 0.05,
                      propensity=None, rng=None):
    """Bounds on the policy value (and, if ``baseline`` is given, the improvement bound) against Gamma.

    Returns a pandas DataFrame with one row per gamma: ``lower``, ``lower_se``, ``upper``,
    ``upper_se`` and, with a baseline, ``improvement``, ``improvement_se``, ``certified``.
    The cross-fitting folds and the propensity fits are shared across gammas.
    """
    import pandas as pd

    gammas = check_array(gammas, "gammas", ndim=1)
    if gammas.size == 0 or np.any(gammas < 1):
        raise InputError("gammas", "is empty or has values below 1", "values >= 1")
    sgn = _outcome_sign(outcome)
    cv = check_positive_int(cv, "cv")
    check_option(estimator, "estimator", ("efficient", "plugin"))
    X, A, Y, K, _ = _coerce_data(data, min_per_arm=max(cv, 2))
    P = as_policy_matrix(policy, X, K)
    P0 = as_policy_matrix(baseline, X, K, "baseline") if baseline is not None else None
    seed = _fixed_seed(rng)
    L = sgn * Y
    if propensity is None:
        propensity = cross_fit_nuisances(X, A, L, K, [], cv=cv, nuisance=nuisance, rng=seed).e
    rows = []
    for g in gammas:
        g = float(g)
        nuis = cross_fit_nuisances(X, A, L, K, [quantile_level(g, "upper"), quantile_level(g, "lower")], cv=cv,
                                   nuisance=nuisance, rng=seed, propensity=propensity)
        Gp = score_matrix(nuis, L, A, g, "upper", estimator)
        Gm = score_matrix(nuis, L, A, g, "lower", estimator)
        up, lo = np.sum(P * Gp, axis=1), np.sum(P * Gm, axis=1)
        if sgn < 0:
            up, lo = -lo, -up
        eu, el = _estimate(up, "upper"), _estimate(lo, "lower")
        row = {"gamma": g, "lower": el.value, "lower_se": el.stderr, "upper": eu.value, "upper_se": eu.stderr}
        if P0 is not None:
            imp = _estimate(sgn * _regret_psi(P, P0, Gp, Gm, form), "improvement")
            row.update(improvement=imp.value, improvement_se=imp.stderr,
                       certified=bool(imp.upper_bound(alpha) < 0) if sgn > 0 else bool(imp.lower_bound(alpha) > 0))
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class BreakdownResult:
    """Largest Gamma at which ``policy`` is still certified better than ``baseline``.

    ``gamma`` is 1.0 with ``certified_at_1=False`` when there is no certified improvement
    even without confounding, and ``gamma_max`` (``censored=True``) if it never breaks down there.
    """

    gamma: float
    certified_at_1: bool
    censored: bool
    curve: object = field(repr=False, compare=False, default=None)


def breakdown_gamma(data, policy, baseline=None, *, form: str = "tight", outcome: str = "loss",
                    alpha: float = 0.05, gamma_max: float = 50.0, tol: float = 0.02, cv: int = 5, nuisance=None,
                    rng=None) -> BreakdownResult:
    """Breakdown Gamma: the largest Gamma at which the certified improvement survives.

    .. math:: \\Gamma^* = \\sup\\{\\Gamma\\ge1 : \\hat R^+_\\Gamma + z_{1-\\alpha}\\widehat{se} < 0\\}

    found by bisection on :math:`\\log\\Gamma` (the bound is monotone in Gamma in the population).
    """
    gamma_max = check_in_range(gamma_max, "gamma_max", 1.0, None, low_open=True)
    tol = check_in_range(tol, "tol", 0.0, None, low_open=True)
    seed = _fixed_seed(rng)
    kw = dict(outcome=outcome, cv=cv, nuisance=nuisance, baseline=baseline if baseline is not None else "uniform",
              form=form, alpha=alpha, rng=seed)
    X, A, Y, K, _ = _coerce_data(data, min_per_arm=max(check_positive_int(cv, "cv"), 2))
    e = cross_fit_nuisances(X, A, _outcome_sign(outcome) * Y, K, [], cv=cv, nuisance=nuisance, rng=seed).e
    kw["propensity"] = e
    rows = []

    def cert(g):
        df = sensitivity_curve(data, policy, [g], **kw)
        rows.append(df)
        return bool(df["certified"].iloc[0])

    if not cert(1.0):
        import pandas as pd

        return BreakdownResult(1.0, False, False, pd.concat(rows, ignore_index=True))
    lo, hi = 0.0, float(np.log(gamma_max))
    if cert(gamma_max):
        import pandas as pd

        return BreakdownResult(gamma_max, True, True, pd.concat(rows, ignore_index=True))
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if cert(float(np.exp(mid))):
            lo = mid
        else:
            hi = mid
    import pandas as pd

    curve = pd.concat(rows, ignore_index=True).sort_values("gamma").reset_index(drop=True)
    return BreakdownResult(float(np.exp(lo)), True, False, curve)
