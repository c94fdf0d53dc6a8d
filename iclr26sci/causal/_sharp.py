"""Sharp policy-value bounds, the confounding-robust policy learner and improvement certificates."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import Estimate, InputError, ObservationalData, as_generator, progress, resolve_rng

from ._msm import (CITATION, dm_scores, dr_scores, efficient_scores, ipw_scores, plugin_scores, quantile_level)
from ._nuisance import CrossFitNuisances, NuisanceModels, cross_fit_nuisances
from ._policy import as_policy_matrix, make_policy
from ._validate import (GAMMA_MAX, check_A, check_alpha, check_array, check_bool, check_clip,
                        check_consistent_length, check_cv, check_direction, check_fitted, check_gamma, check_in_range,
                        check_n_features, check_option, check_propensity, check_sign, check_Y)

__all__ = ["ValueBounds", "sharp_value_bounds", "score_matrix", "SharpPolicyLearner", "policy_improvement",
           "ImprovementCertificate", "sensitivity_curve", "breakdown_gamma", "BreakdownResult", "policy_value"]

ESTIMATORS = ("efficient", "plugin", "dm", "ipw", "dr")


# ------------------------------------------------------------------------------------------ input checks
def _ndim(d) -> int:
    """``np.ndim`` that reads a ragged nested list as 1-D (check_array then refuses it, naming the argument)."""
    try:
        return np.ndim(d)
    except (ValueError, TypeError):
        return 1


def _is_pandas(x) -> bool:
    return type(x).__module__.split(".")[0] == "pandas"


def _tabular(data) -> bool:
    """An (X, A, Y) tuple that needs the tabular path: pandas objects, bool features or labelled arms."""
    X, A, _ = data
    if any(_is_pandas(d) for d in data):
        return True
    try:
        a, x = np.asarray(A), np.asarray(X)
    except (ValueError, TypeError):
        return False
    return a.dtype.kind in "USb" or (a.dtype == object and any(isinstance(v, str) for v in a.ravel()[:50])) \
        or x.dtype == bool


def _fit_data(X, A, Y):
    """The training data of ``fit(X, A, Y)`` or ``fit(data)``, and whether the arms were given by label.

    ``fit(data)`` takes ObservationalData or an (X, A, Y) tuple as before; ``fit(X, A, Y)`` takes arrays or
    pandas objects (DataFrame X with bool columns, string or categorical treatments), as scikit-learn does.
    """
    if A is not None and Y is None and np.ndim(A) == 2 and np.shape(A)[1] == 2:
        # scikit-learn's fit(X, y) with y = [treatment, outcome] (e.g. df[["treat", "y"]]): what
        # cross_val_score and Pipeline pass through, since they route one target
        A, Y = (A.iloc[:, 0], A.iloc[:, 1]) if _is_pandas(A) else (np.asarray(A)[:, 0], np.asarray(A)[:, 1])
        if not _is_pandas(A) and np.asarray(A).dtype == object:
            try:
                A, Y = np.asarray(A).astype(float), np.asarray(Y).astype(float)
            except (TypeError, ValueError):
                Y = np.asarray(Y).astype(float)
    if A is None and Y is None:
        labelled = isinstance(X, (tuple, list)) and len(X) == 3 and _tabular(X) and \
            np.asarray(X[1] if not _is_pandas(X[1]) else X[1].to_numpy()).dtype.kind not in "iuf"
        return X, labelled
    if A is None or Y is None:
        raise InputError("A" if A is None else "Y", "is missing",
                         "fit(X, A, Y) with covariates, treatments and outcomes, fit(X, y) with y = [treatment, "
                         "outcome] as two columns, or fit(data) with ObservationalData or an (X, A, Y) tuple")
    if isinstance(X, ObservationalData):
        raise InputError("X", "is ObservationalData while A and Y are given too", "fit(data) or fit(X, A, Y)")
    a = A.to_numpy() if _is_pandas(A) else np.asarray(A)
    return (X, A, Y), a.dtype.kind not in "iuf"


def _arm_index(policy, data, name="policy"):
    """An arm given by its label (``"placebo"``) as its arm index, when the data's arms have labels."""
    if not isinstance(policy, str) or policy == "uniform":
        return policy
    names = None
    if isinstance(data, ObservationalData):
        names = data.arm_names
    elif isinstance(data, (tuple, list)) and len(data) == 3 and _tabular(data):
        from iclr26sci.core._data import encode_arms

        names = encode_arms(data[1], None, "A")[1]
    if names and policy in names:
        return list(names).index(policy)
    if names:
        raise InputError(name, f"got the label {policy!r}, which is not an arm", f"one of {list(names)} or 'uniform'")
    return policy


def _coerce_data(data, min_per_arm: int = 2):
    """(X, A, Y_as_given, K) from ObservationalData or an (X, A, Y) tuple, validated."""
    names = None
    if isinstance(data, (tuple, list)) and len(data) == 3 and _tabular(data):
        data = ObservationalData(*data)
    if isinstance(data, ObservationalData):
        X, A, Y = data.X, data.A, data.Y
        K = data.n_arms
        names = data.feature_names
    elif isinstance(data, (tuple, list)) and len(data) == 3 and all(_ndim(d) >= 1 for d in data):
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
        raise InputError("data", f"got {type(data).__name__}" + (f" of length {len(data)}" if isinstance(
            data, (tuple, list)) else ""), "ObservationalData or a tuple (X, A, Y) of arrays")
    if K < 2:
        raise InputError("A", f"has {K} arm(s)", "at least 2 arms (labels 0..K-1)")
    counts = np.bincount(A, minlength=K)
    if np.any(counts < 2):
        bad = [int(a) for a in np.flatnonzero(counts < 2)]
        raise InputError("A", f"arm(s) {bad} have fewer than 2 observations (counts {counts.tolist()})",
                         "every arm 0..K-1 observed at least twice")
    if np.any(counts < min_per_arm):
        bad = [int(a) for a in np.flatnonzero(counts < min_per_arm)]
        raise InputError("cv", f"is {min_per_arm} but arm(s) {bad} have fewer observations (counts "
                         f"{counts.tolist()})", "cv at most the smallest arm count, so that every arm is "
                         "observed in each cross-fitting fold")
    return X, A, Y, K, names


def _outcome_sign(outcome: str) -> float:
    return 1.0 if check_option(outcome, "outcome", ("loss", "reward")) == "loss" else -1.0


def _check_common(gamma, cv, estimator=None, quantile_term_sign=1, estimators=ESTIMATORS):
    g = check_gamma(gamma)
    cv = check_cv(cv)
    if estimator is not None:
        check_option(estimator, "estimator", estimators)
    check_sign(quantile_term_sign)
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

    The value estimate of any policy is :math:`n^{-1}\\sum_i\\sum_a\\pi(a\\mid X_i)G_{ia}`.
    ``"efficient"`` (one-step, :func:`efficient_scores`) and ``"plugin"`` (:func:`plugin_scores`) bound the
    value under MSM(gamma); ``"dm"``, ``"ipw"``, ``"dr"`` estimate it under unconfoundedness (gamma ignored).

    Parameters
    ----------
    nuis : CrossFitNuisances
        Cross-fitted nuisances (:func:`cross_fit_nuisances`), fitted at ``quantile_level(gamma, direction)``
        for the sharp estimators.
    Y : array (n,)
        Outcomes on the loss scale (the same as used to fit ``nuis``).
    A : array (n,) of int
        Arms received, in 0..K-1.
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true to the nominal propensity;
        1 = no unobserved confounding.
    direction : {"upper", "lower"}
        Score of the upper or the lower bound.
    estimator : {"efficient", "plugin", "dm", "ipw", "dr"}
        Which estimator's scores.
    quantile_term_sign : {1, -1}
        Sign of the quantile-correction term of the efficient score (+1 orthogonal, -1 official code).

    Returns
    -------
    G : ndarray (n, K)

    Examples
    --------
    >>> from iclr26sci.causal import cross_fit_nuisances, quantile_level, score_matrix, simulate_v1
    >>> data, _ = simulate_v1(300, 2.0, rng=0)
    >>> nuis = cross_fit_nuisances(data.X, data.A, data.Y, 2, [quantile_level(2.0)], cv=2, rng=0)
    >>> G = score_matrix(nuis, data.Y, data.A, 2.0)
    >>> G.shape
    (300, 2)
    """
    if not isinstance(nuis, CrossFitNuisances):
        raise InputError("nuis", f"got {type(nuis).__name__}", "CrossFitNuisances (from cross_fit_nuisances)")
    gamma = check_gamma(gamma)
    direction = check_direction(direction)
    check_option(estimator, "estimator", ESTIMATORS)
    check_sign(quantile_term_sign)
    n, K = nuis.e.shape
    if estimator != "dm":
        Y = check_Y(Y, "Y", n)
        A = check_A(A, "A", n, K)
    if estimator in ("efficient", "plugin"):
        lv = quantile_level(gamma, direction)
        if not any(abs(k - lv) < 1e-12 for k in nuis.levels):
            raise InputError("gamma", f"{gamma:g} ({direction} bound) needs the quantile level {lv:.6g}, but the "
                             f"nuisances were fitted at {[round(float(k), 6) for k in nuis.levels]}",
                             "the gamma the nuisances were fitted for (or refit them at quantile_level(gamma))")
        q, nl, nu = nuis.get(lv)
        if estimator == "plugin":
            return plugin_scores(nuis.e, q, nl, nu, gamma, direction)
        return efficient_scores(Y, A, nuis.e, q, nl, nu, gamma, direction, quantile_term_sign)
    if estimator == "ipw":
        return ipw_scores(Y, A, nuis.e)
    if not nuis.levels:
        raise InputError("nuis", "has no outcome nuisances (fitted with levels=[])",
                         f"nuisances fitted at one quantile level at least for estimator={estimator!r}")
    if estimator == "dm":
        return dm_scores(nuis.mu())
    return dr_scores(Y, A, nuis.e, nuis.mu())


def _estimate(psi: np.ndarray, name: str) -> Estimate:
    n = psi.shape[0]
    return Estimate(float(psi.mean()), float(psi.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan"),
                    name=name, n=n, citation=CITATION)


def _fmt_est(e: Estimate) -> str:
    return f"{e.value:.4g} (se {e.stderr:.3g})"


def _check_result_fields(gamma, outcome, estimator=None):
    check_gamma(gamma)
    check_option(outcome, "outcome", ("loss", "reward"))
    if estimator is not None:
        check_option(estimator, "estimator", ESTIMATORS)


@dataclass(frozen=True, repr=False)
class ValueBounds:
    """Bounds on a policy's value under MSM(gamma), in the user's outcome units (from :func:`sharp_value_bounds`).

    Attributes
    ----------
    lower, upper : Estimate
        Estimated sharp lower / upper bound on the policy value, with standard errors from the
        efficient influence function.
    gamma : float
        The MSM sensitivity parameter the bounds assume.
    outcome : {"loss", "reward"}
        Units of the bounds.
    estimator : str
        Which estimator produced them ("efficient", "plugin", "dm", "ipw" or "dr").
    psi_lower, psi_upper : ndarray (n,)
        Per-unit contributions :math:`\\sum_a\\pi(a|X_i)G_{ia}` (user units); their means are the bounds.

    Examples
    --------
    >>> from iclr26sci.core import Estimate
    >>> from iclr26sci.causal import ValueBounds
    >>> b = ValueBounds(Estimate(0.2, 0.05, n=100), Estimate(0.9, 0.05, n=100), gamma=2.0, outcome="loss",
    ...                 estimator="efficient")
    >>> b
    ValueBounds(gamma=2, estimator='efficient', outcome='loss', lower=0.2 (se 0.05), upper=0.9 (se 0.05), n=100)
    >>> round(b.width, 6)
    0.7
    >>> [round(v, 4) for v in b.conf_int(0.05)]     # one-sided 95% bounds on each side
    [0.1178, 0.9822]
    """

    lower: Estimate
    upper: Estimate
    gamma: float
    outcome: str
    estimator: str
    psi_lower: np.ndarray = field(repr=False, compare=False, default=None)
    psi_upper: np.ndarray = field(repr=False, compare=False, default=None)
    citation: str = CITATION

    def __post_init__(self):
        for nm in ("lower", "upper"):
            if not isinstance(getattr(self, nm), Estimate):
                raise InputError(nm, f"got {type(getattr(self, nm)).__name__}", "an Estimate")
        _check_result_fields(self.gamma, self.outcome, self.estimator)

    @property
    def width(self) -> float:
        """Estimated width ``upper - lower`` of the identified set."""
        return self.upper.value - self.lower.value

    def conf_int(self, alpha: float = 0.05) -> tuple[float, float]:
        """Interval covering the identified set: the lower bound's one-sided lower ``1 - alpha`` confidence bound
        and the upper bound's one-sided upper one.

        Parameters
        ----------
        alpha : float in (0, 0.5)
            One-sided miscoverage level of each end (0.05: each end holds with probability 0.95).
        """
        alpha = check_alpha(alpha)
        return self.lower.lower_bound(alpha), self.upper.upper_bound(alpha)

    def summary(self) -> str:
        """One-line text summary."""
        return (f"MSM(Gamma={self.gamma:g}) {self.estimator} bounds on the policy {self.outcome}: "
                f"[{self.lower.value:.4g} (se {self.lower.stderr:.3g}), {self.upper.value:.4g} "
                f"(se {self.upper.stderr:.3g})]")

    def to_dict(self) -> dict:
        """JSON-serialisable form (without the per-unit arrays)."""
        lo, hi = self.conf_int()
        return {"gamma": self.gamma, "outcome": self.outcome, "estimator": self.estimator,
                "lower": self.lower.to_dict(), "upper": self.upper.to_dict(), "width": self.width,
                "conf_int95": [lo, hi], "citation": self.citation}

    def __repr__(self) -> str:
        return (f"ValueBounds(gamma={self.gamma:g}, estimator={self.estimator!r}, outcome={self.outcome!r}, "
                f"lower={_fmt_est(self.lower)}, upper={_fmt_est(self.upper)}, n={self.upper.n})")

    def __str__(self):
        return self.summary()


_DATA_DOC = """data : ObservationalData or tuple (X, A, Y)
        Observational data: covariates X (n, d), arms A (n,) in 0..K-1, outcomes Y (n,)."""


def sharp_value_bounds(data, policy, gamma: float = 2.0, *, outcome: str = "loss", cv: int = 5,
                       nuisance=None, estimator: str = "efficient", quantile_term_sign: int = 1,
                       propensity=None, propensity_clip: float = 0.01, rng=None,
                       nuisances=None) -> ValueBounds:
    """Sharp bounds on the value of ``policy`` under the marginal sensitivity model MSM(Gamma).

    .. math::

        V^\\pm(\\pi) = E\\Big[\\sum_a \\pi(a\\mid X)\\,Q^\\pm(X,a)\\Big],\\qquad
        \\hat V^\\pm(\\pi) = \\frac1n\\sum_i\\sum_a\\pi(a\\mid X_i)\\,G^\\pm_{ia}

    with the cross-fitted one-step scores :math:`G^\\pm` (:func:`efficient_scores`); the
    standard error is :math:`\\mathrm{sd}_i(\\sum_a\\pi G_{ia})/\\sqrt n`.

    Parameters
    ----------
    data : ObservationalData or tuple (X, A, Y)
        Observational data: covariates X (n, d), arms A (n,) in 0..K-1, outcomes Y (n,).
    policy : policy object, callable, (n, K) probabilities, (n,) arms, int, or "uniform"
        The policy to evaluate (see :func:`as_policy_matrix`): ``1`` means "everyone gets arm 1".
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: hidden confounding may move each arm's treatment odds away from the
        nominal (observed) propensity odds by at most a factor Gamma. ``gamma=1`` assumes no unobserved
        confounding (lower = upper = the doubly robust value estimate); larger values give wider bounds.
    outcome : {"loss", "reward"}
        Whether lower outcomes are better (``"loss"``) or higher (``"reward"``, computed on ``-Y`` and
        reported back in reward units). The bounds are on ``E[Y(pi)]`` in the outcome's units either way.
    cv : int >= 2
        Number of cross-fitting folds for the nuisances.
    nuisance : str, dict or NuisanceModels, optional
        Nuisance models: preset ``"basis"`` (default), ``"linear"``, ``"hgb"``, ``"mlp"``, or estimators.
    estimator : {"efficient", "plugin", "dm", "ipw", "dr"}
        ``"efficient"``: the one-step estimator (valid SE); ``"plugin"``: plug-in bound (no correction);
        ``"dm"``, ``"ipw"``, ``"dr"``: unconfounded point estimates (gamma ignored, lower = upper).
    quantile_term_sign : {1, -1}
        +1: Neyman-orthogonal (default); -1: the official code's sign (first-order biased; for replication).
    propensity : array (n, K), optional
        Known propensities (randomised data): rows of probabilities summing to 1.
    propensity_clip : float in (0, 0.5)
        Propensities are clipped to ``[clip, 1 - clip]``; overlap fails (InputError) when more than 20% of
        the units have a propensity below it.
    rng : None, int or numpy Generator
        Seed of the folds and of stochastic nuisance models.
    nuisances : CrossFitNuisances, optional
        Cross-fitted nuisances from an earlier fit on the same data and settings, e.g. a
        :class:`SharpPolicyLearner`'s ``nuisances_``: their folds, seed and propensities are reused and only the
        quantile level they lack is fitted (``cv`` and ``rng`` are then ignored); see ``reuse`` in
        :func:`cross_fit_nuisances`. The bounds then use the learner's folds.

    Returns
    -------
    ValueBounds

    References
    ----------
    Hess, Frauen, Melnychuk & Feuerriegel (2026), arXiv:2502.13022; Dorn & Guo (2022), JASA.

    Examples
    --------
    >>> from iclr26sci.causal import sharp_value_bounds, simulate_v1
    >>> data, _ = simulate_v1(400, gamma=2.0, rng=0)
    >>> b = sharp_value_bounds(data, 1, gamma=2.0, cv=2, rng=0)      # policy "everyone gets arm 1"
    >>> b.lower.value < b.upper.value
    True
    >>> b1 = sharp_value_bounds(data, 1, gamma=1.0, cv=2, rng=0)     # no confounding: a point
    >>> abs(b1.upper.value - b1.lower.value) < 1e-9
    True
    """
    gamma, cv = _check_common(gamma, cv, estimator, quantile_term_sign)
    sgn = _outcome_sign(outcome)
    propensity_clip = check_clip(propensity_clip)
    nm = NuisanceModels.coerce(nuisance)
    X, A, Y, K, _ = _coerce_data(data, min_per_arm=cv)
    P = as_policy_matrix(_arm_index(policy, data), X, K)
    propensity = check_propensity(propensity, X.shape[0], K)
    L = sgn * Y
    nuis = cross_fit_nuisances(X, A, L, K, [quantile_level(gamma, "upper"), quantile_level(gamma, "lower")],
                               cv=cv, nuisance=nm, rng=rng, propensity=propensity,
                               propensity_clip=propensity_clip, reuse=nuisances)
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
                 propensity=None, propensity_clip: float = 0.01, rng=None) -> Estimate:
    """Point estimate of a policy's value assuming no unobserved confounding (Gamma = 1).

    .. math:: \\hat V(\\pi) = \\frac1n\\sum_i\\sum_a \\pi(a\\mid X_i)\\,G_{ia}

    with the DM (:math:`\\hat\\mu`), IPW or DR (AIPW) scores on cross-fitted nuisances.

    Parameters
    ----------
    data : ObservationalData or tuple (X, A, Y)
        Observational data.
    policy : policy object, callable, (n, K) probabilities, (n,) arms, int, or "uniform"
        The policy to evaluate.
    outcome : {"loss", "reward"}
        Units of the outcome (the estimate is of ``E[Y(pi)]`` either way).
    estimator : {"dr", "dm", "ipw", "efficient", "plugin"}
        Score; "efficient" and "plugin" at Gamma = 1 equal DR and DM up to the quantile nuisances.
    cv : int >= 2
        Cross-fitting folds.
    nuisance : str, dict or NuisanceModels, optional
        Nuisance models.
    propensity : array (n, K), optional
        Known propensities.
    propensity_clip : float in (0, 0.5)
        Clipping level of the propensities.
    rng : None, int or numpy Generator
        Seed.

    Returns
    -------
    Estimate

    Examples
    --------
    >>> from iclr26sci.causal import policy_value, simulate_v1
    >>> data, _ = simulate_v1(400, gamma=1.0, law="benign", rng=0)
    >>> v = policy_value(data, 0, cv=2, rng=0)
    >>> v.name, v.n
    ('dr value of the policy loss', 400)
    """
    check_option(estimator, "estimator", ("dm", "ipw", "dr", "efficient", "plugin"))
    b = sharp_value_bounds(data, policy, 1.0, outcome=outcome, cv=cv, nuisance=nuisance, estimator=estimator,
                           propensity=propensity, propensity_clip=propensity_clip, rng=rng)
    return Estimate(b.upper.value, b.upper.stderr, name=f"{estimator} value of the policy {outcome}", n=b.upper.n,
                    citation=CITATION)


# ------------------------------------------------------------------------------------------ learner
class SharpPolicyLearner(BaseEstimator):
    """Confounding-robust policy learning: minimise the estimated sharp upper bound on the loss.

    .. math:: \\hat\\pi = \\arg\\min_{\\pi\\in\\Pi}\\ \\frac1n\\sum_i\\sum_a \\pi(a\\mid X_i)\\,G^+_{ia}

    where :math:`G^+` is the cross-fitted one-step score matrix of the sharp upper bound
    (Algorithm 1 of the paper with K-fold cross-fitting instead of a single split).
    With ``outcome="reward"`` the lower bound on the reward is maximised.

    Parameters
    ----------
    gamma : float in [1, 1e8]
        MSM sensitivity parameter the policy must be robust to: hidden confounding may move each arm's
        treatment odds by at most a factor Gamma relative to the nominal propensity. ``gamma=1`` is the
        standard (unconfounded) doubly robust policy learner.
    policy_class : {"logistic", "mlp", "tree"} or an object with fit(X, G) and predict_proba(X)
        The restricted policy class: softmax-linear, the paper's 64-32 softmax MLP, or a depth-2 policy tree.
    cv : int >= 2
        Cross-fitting folds for the nuisances.
    nuisance : str, dict or NuisanceModels, optional
        Nuisance models (see :class:`NuisanceModels`).
    estimator : {"efficient", "plugin", "dm", "ipw", "dr"}
        Score the policy minimises: the one-step ("efficient") or plug-in sharp bound; "dm", "ipw" and
        "dr" give the standard (unconfounded) learners on the same nuisances.
    quantile_term_sign : {1, -1}
        Sign of the quantile-correction term (+1 orthogonal, -1 the official code).
    outcome : {"loss", "reward"}
        Whether lower (``"loss"``) or higher (``"reward"``) outcomes are better.
    deterministic : bool
        If True the learned policy is the argmax of the softmax (one arm per x).
    policy_params : dict, optional
        Extra constructor parameters of the policy class (e.g. ``{"l2": 1e-3}`` for "logistic",
        ``{"depth": 3}`` for "tree").
    propensity_clip : float in (0, 0.5)
        Clipping level of the estimated propensities.
    rng : None, int or numpy Generator
        Seed of the folds, the nuisance models and the policy optimiser.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Attributes
    ----------
    policy_ : the fitted policy
    scores_ : ndarray (n, K)
        Score matrix on the loss scale that the policy minimised.
    nuisances_ : CrossFitNuisances
    value_bound_ : Estimate
        In-sample estimate of the bound at the learned policy (upper bound on the loss,
        or lower bound on the reward); optimistic because the policy was fitted on it.
    n_arms_ : int
    n_features_in_ : int

    References
    ----------
    Hess, Frauen, Melnychuk & Feuerriegel (2026), arXiv:2502.13022, Algorithm 1.

    Examples
    --------
    >>> from iclr26sci.causal import SharpPolicyLearner, simulate_v1
    >>> data, _ = simulate_v1(400, gamma=2.0, rng=0)
    >>> learner = SharpPolicyLearner(gamma=2.0, cv=2, rng=0).fit(data)
    >>> learner.predict(data.X[:5]).shape, learner.predict_proba(data.X[:5]).shape
    ((5,), (5, 2))
    >>> learner.value_bound_.value < 0.41     # better than the uniform policy's true bound (0.41)
    True
    """

    def __init__(self, gamma: float = 2.0, policy_class="logistic", cv: int = 5, nuisance=None,
                 estimator: str = "efficient", quantile_term_sign: int = 1, outcome: str = "loss",
                 deterministic: bool = False, policy_params=None, propensity_clip: float = 0.01, rng=None,
                 random_state=None):
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
        self.random_state = random_state

    def fit(self, X, A=None, Y=None, *, propensity=None):
        """Fit the nuisances, the score matrix and the policy.

        Parameters
        ----------
        X : array (n, d), pandas DataFrame, ObservationalData or tuple (X, A, Y)
            Covariates (bool columns count as numeric); or the whole training set, with ``A`` and ``Y`` omitted.
        A : array (n,) or pandas Series, optional
            Treatment of each unit: integer arms ``0..K-1``, or labels (strings, categories) that are mapped
            to arms in sorted (or category) order; ``predict`` then returns labels (``classes_``). Or the
            scikit-learn form ``y`` of shape (n, 2): treatment and outcome as two columns, with ``Y`` omitted
            (what ``cross_val_score`` and ``Pipeline`` pass).
        Y : array (n,) or pandas Series, optional
            Outcome of each unit.
        propensity : array (n, K), optional
            Known propensities (randomised data).

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from sklearn.model_selection import cross_val_score
        >>> from iclr26sci.causal import SharpPolicyLearner, simulate_v1
        >>> d, _ = simulate_v1(600, gamma=2.0, rng=0)
        >>> df = pd.DataFrame({"x": d.X[:, 0], "treat": np.where(d.A == 1, "drug", "placebo"), "y": d.Y})
        >>> m = SharpPolicyLearner(gamma=2.0, cv=2, rng=0).fit(df[["x"]], df["treat"], df["y"])
        >>> m.classes_.tolist(), m.predict(df[["x"]].iloc[:3]).tolist()
        (['drug', 'placebo'], ['placebo', 'placebo', 'drug'])
        >>> cross_val_score(SharpPolicyLearner(gamma=2.0, cv=2, rng=0), df[["x"]], df[["treat", "y"]], cv=3).round(3)
        array([...])
        """
        data, labelled = _fit_data(X, A, Y)
        gamma, cv = _check_common(self.gamma, self.cv, self.estimator, self.quantile_term_sign)
        sgn = _outcome_sign(self.outcome)
        deterministic = check_bool(self.deterministic, "deterministic")
        clip = check_clip(self.propensity_clip)
        nm = NuisanceModels.coerce(self.nuisance)
        if isinstance(data, (tuple, list)) and len(data) == 3 and _tabular(data):
            data = ObservationalData(*data)
        X, A, Y, K, names = _coerce_data(data, min_per_arm=cv)
        propensity = check_propensity(propensity, X.shape[0], K)
        gen = as_generator(resolve_rng(self.rng, self.random_state))
        pol = make_policy(self.policy_class, deterministic, self.policy_params, rng=_seed(gen))
        arm_names = data.arm_names if isinstance(data, ObservationalData) else None
        L = sgn * Y
        self.nuisances_ = cross_fit_nuisances(X, A, L, K, [quantile_level(gamma, "upper")], cv=cv,
                                              nuisance=nm, rng=gen, propensity=propensity,
                                              propensity_clip=clip)
        self.scores_ = score_matrix(self.nuisances_, L, A, gamma, "upper", self.estimator,
                                    self.quantile_term_sign)
        self.policy_ = pol.fit(X, self.scores_)
        self.n_arms_ = K
        self.n_features_in_ = X.shape[1]
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.arm_names_ = list(arm_names) if arm_names else [str(k) for k in range(K)]
        self.classes_ = np.asarray(self.arm_names_, dtype=object) if labelled else np.arange(K)
        psi = np.sum(self.predict_proba(X) * self.scores_, axis=1)
        what = "upper bound on the loss" if sgn > 0 else "lower bound on the reward"
        self.value_bound_ = _estimate(sgn * psi, f"in-sample {what} of the learned policy (Gamma={gamma:g})")
        return self

    def predict_proba(self, X) -> np.ndarray:
        """(n, K) action probabilities at the rows of ``X`` (n, d) (one-hot for deterministic policies)."""
        check_fitted(self, "policy_", "predict_proba")
        X = check_n_features(self, X, "predict_proba")
        return self.policy_.predict_proba(X)

    def predict(self, X) -> np.ndarray:
        """Most probable arm at each row of ``X`` (n, d): an arm index, or the arm's label when ``fit`` was
        given labelled treatments (``classes_``)."""
        check_fitted(self, "policy_", "predict")
        X = check_n_features(self, X, "predict")
        idx = self.policy_.predict(X)
        classes = getattr(self, "classes_", None)
        return idx if classes is None or classes.dtype != object else classes[np.asarray(idx, dtype=int)]

    def score(self, X, A=None, Y=None, *, propensity=None) -> float:
        r"""Held-out robust value of the learned policy (higher is better), for ``cross_val_score``.

        .. math:: \text{score} = -\hat V^+(\hat\pi) \ \text{(loss)}, \qquad \hat V^-(\hat\pi) \ \text{(reward)}

        the sharp bound at the learner's ``gamma`` estimated on the given data with its own cross-fitted
        nuisances (:func:`sharp_value_bounds`): the worst case the policy guarantees out of sample.
        ``cv`` is capped at the smallest arm count of the data (at least 2).

        Parameters
        ----------
        X, A, Y, propensity
            As in :meth:`fit`: held-out data, with treatments labelled as in training.

        Returns
        -------
        float
        """
        check_fitted(self, "policy_", "score")
        data, _ = _fit_data(X, A, Y)
        if isinstance(data, (tuple, list)) and len(data) == 3 and _tabular(data):
            names = getattr(self, "arm_names_", None) if getattr(self, "classes_", np.arange(1)).dtype == object \
                else None
            data = ObservationalData(*data, arm_names=names)
        Xc, Ac, _, K, _ = _coerce_data(data, min_per_arm=2)
        if K != self.n_arms_:
            raise InputError("A", f"has {K} arms", f"the {self.n_arms_} arms seen in fit")
        cv = int(min(check_cv(self.cv), np.bincount(Ac, minlength=K).min()))
        vb = sharp_value_bounds(data, self, self.gamma, outcome=self.outcome, cv=max(cv, 2), nuisance=self.nuisance,
                                estimator="efficient", propensity=propensity,
                                propensity_clip=self.propensity_clip,
                                rng=_fixed_seed(resolve_rng(self.rng, self.random_state)))
        return float(-vb.upper.value) if self.outcome == "loss" else float(vb.lower.value)


# ------------------------------------------------------------------------------------------ improvement
@dataclass(frozen=True, repr=False)
class ImprovementCertificate:
    """Certified improvement of ``policy`` over ``baseline`` under MSM(gamma) (from :func:`policy_improvement`).

    ``bound`` is in the user's units: for a loss, an upper bound on
    :math:`V(\\pi)-V(\\pi_0)` (negative = better); for a reward, a lower bound on
    the improvement :math:`V(\\pi)-V(\\pi_0)` (positive = better). ``certified`` is
    True when the one-sided ``1 - alpha`` confidence bound has the good sign.

    Attributes
    ----------
    bound : Estimate
        Estimated regret bound (loss) or improvement bound (reward), with its influence-function SE.
    certified : bool
        Whether ``confidence_bound`` is < 0 (loss) or > 0 (reward).
    gamma : float
        The MSM sensitivity parameter (odds-ratio bound of the true to the nominal propensity) assumed.
    form : {"tight", "paper"}
        Which regret bound.
    outcome : {"loss", "reward"}
        Units.
    alpha : float in (0, 0.5)
        One-sided level of the certificate.
    psi : ndarray (n,)
        Per-unit contributions (user units).

    Examples
    --------
    >>> from iclr26sci.core import Estimate
    >>> from iclr26sci.causal import ImprovementCertificate
    >>> c = ImprovementCertificate(Estimate(-0.3, 0.1, n=500), True, gamma=2.0, form="tight", outcome="loss",
    ...                            alpha=0.05)
    >>> c
    ImprovementCertificate(certified=True, bound=-0.3 (se 0.1), gamma=2, form='tight', outcome='loss', alpha=0.05)
    >>> c.to_dict()["confidence_bound"] < 0
    True
    """

    bound: Estimate
    certified: bool
    gamma: float
    form: str
    outcome: str
    alpha: float
    psi: np.ndarray = field(repr=False, compare=False, default=None)
    citation: str = CITATION

    def __post_init__(self):
        if not isinstance(self.bound, Estimate):
            raise InputError("bound", f"got {type(self.bound).__name__}", "an Estimate")
        check_bool(self.certified, "certified")
        _check_result_fields(self.gamma, self.outcome)
        check_option(self.form, "form", ("tight", "paper"))
        check_alpha(self.alpha)

    @property
    def confidence_bound(self) -> float:
        """The one-sided ``1 - alpha`` confidence bound that decides ``certified``."""
        return (self.bound.upper_bound(self.alpha) if self.outcome == "loss"
                else self.bound.lower_bound(self.alpha))

    def summary(self) -> str:
        """One-line text summary."""
        word = "certified" if self.certified else "not certified"
        return f"{self.bound.summary()} -> improvement {word} at Gamma={self.gamma:g} ({self.form} form)"

    def to_dict(self) -> dict:
        """JSON-serialisable form (without the per-unit array)."""
        return {"certified": bool(self.certified), "bound": self.bound.to_dict(), "gamma": self.gamma,
                "form": self.form, "outcome": self.outcome, "alpha": self.alpha,
                "confidence_bound": self.confidence_bound, "citation": self.citation}

    def __repr__(self) -> str:
        return (f"ImprovementCertificate(certified={bool(self.certified)}, bound={_fmt_est(self.bound)}, "
                f"gamma={self.gamma:g}, form={self.form!r}, outcome={self.outcome!r}, alpha={self.alpha:g})")

    def __str__(self):
        return self.summary()


def _regret_psi(P, P0, Gp, Gm, form):
    if form == "paper":
        return np.sum(P * Gp - P0 * Gm, axis=1)
    D = P - P0
    return np.sum(np.clip(D, 0, None) * Gp - np.clip(-D, 0, None) * Gm, axis=1)


def _certified(est: Estimate, sgn: float, alpha: float) -> bool:
    return bool(est.upper_bound(alpha) < 0) if sgn > 0 else bool(est.lower_bound(alpha) > 0)


def policy_improvement(data, policy, baseline=None, gamma: float = 2.0, *, form: str = "tight",
                       outcome: str = "loss", alpha: float = 0.05, cv: int = 5, nuisance=None,
                       propensity=None, estimator: str = "efficient", propensity_clip: float = 0.01,
                       rng=0) -> ImprovementCertificate:
    """Bound on the regret of ``policy`` against ``baseline`` under MSM(Gamma), with a certificate.

    Paper form (Cor. 4.5):

    .. math:: R^+_{\\pi_0}(\\pi) = E\\sum_a\\big[\\pi(a|X)Q^+(X,a) - \\pi_0(a|X)Q^-(X,a)\\big]

    Tight form (valid, zero at :math:`\\pi=\\pi_0`, never larger):

    .. math:: E\\sum_a\\big[(\\pi-\\pi_0)^+(a|X)\\,Q^+(X,a) - (\\pi-\\pi_0)^-(a|X)\\,Q^-(X,a)\\big]

    both estimated with the one-step scores. Evaluate on data not used to learn ``policy``
    for an honest certificate.

    Parameters
    ----------
    data : ObservationalData or tuple (X, A, Y)
        Observational data (preferably held out from the data ``policy`` was learned on).
    policy : policy object, callable, (n, K) probabilities, (n,) arms, int or "uniform"
        The candidate policy.
    baseline : same kinds, optional
        The policy to improve on (default: uniform random assignment).
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true to the nominal propensity under
        which the improvement must hold; 1 = no unobserved confounding.
    form : {"tight", "paper"}
        ``"tight"`` (default, never larger, 0 at ``policy == baseline``) or the paper's Cor. 4.5 bound.
    outcome : {"loss", "reward"}
        Whether lower or higher outcomes are better.
    alpha : float in (0, 0.5)
        One-sided level: certified means the ``1 - alpha`` confidence bound on the regret has the good sign.
    cv : int >= 2
        Cross-fitting folds.
    nuisance : str, dict or NuisanceModels, optional
        Nuisance models.
    propensity : array (n, K), optional
        Known propensities.
    estimator : {"efficient", "plugin"}
        Scores of the bounds.
    propensity_clip : float in (0, 0.5)
        Clipping level of the propensities.
    rng : None, int, SeedSequence or numpy Generator, default 0
        Seed of the cross-fitting folds and of the nuisance models. A certificate is a decision, so it
        defaults to a fixed seed (as the library's other reported statistics with resampling do, e.g.
        ``microsim.fit_msd``): two calls on the same data give the same bound and verdict. Pass ``None`` for
        fresh OS entropy, or other seeds to see how much the bound moves with the fold split.

    Returns
    -------
    ImprovementCertificate

    Examples
    --------
    >>> from iclr26sci.causal import policy_improvement, simulate_v1
    >>> data, _ = simulate_v1(400, gamma=2.0, rng=0)
    >>> cert = policy_improvement(data, 0, 0, gamma=2.0, cv=2, rng=0)   # a policy against itself
    >>> cert.bound.value, cert.certified
    (0.0, False)
    """
    gamma, cv = _check_common(gamma, cv, estimator, estimators=("efficient", "plugin"))
    check_option(form, "form", ("tight", "paper"))
    alpha = check_alpha(alpha)
    sgn = _outcome_sign(outcome)
    propensity_clip = check_clip(propensity_clip)
    nm = NuisanceModels.coerce(nuisance)
    X, A, Y, K, _ = _coerce_data(data, min_per_arm=cv)
    P = as_policy_matrix(_arm_index(policy, data), X, K, "policy")
    P0 = as_policy_matrix(_arm_index(baseline, data, "baseline"), X, K, "baseline")
    propensity = check_propensity(propensity, X.shape[0], K)
    L = sgn * Y
    nuis = cross_fit_nuisances(X, A, L, K, [quantile_level(gamma, "upper"), quantile_level(gamma, "lower")],
                               cv=cv, nuisance=nm, rng=rng, propensity=propensity, propensity_clip=propensity_clip)
    Gp = score_matrix(nuis, L, A, gamma, "upper", estimator)
    Gm = score_matrix(nuis, L, A, gamma, "lower", estimator)
    psi = _regret_psi(P, P0, Gp, Gm, form)
    est = _estimate(sgn * psi, ("upper bound on the loss regret" if sgn > 0 else
                                "lower bound on the reward improvement") + f" (Gamma={gamma:g}, {form})")
    return ImprovementCertificate(bound=est, certified=_certified(est, sgn, alpha), gamma=gamma, form=form,
                                  outcome=outcome, alpha=alpha, psi=sgn * psi)


# ------------------------------------------------------------------------------------------ sensitivity
def _check_gammas(gammas) -> np.ndarray:
    g = check_array(gammas, "gammas", ndim=1)
    if g.size == 0 or np.any(g < 1) or np.any(g > GAMMA_MAX):
        raise InputError("gammas", "is empty or has values outside [1, 1e8]", "a non-empty list of gammas >= 1")
    return g


def sensitivity_curve(data, policy, gammas, *, outcome: str = "loss", cv: int = 5, nuisance=None,
                      estimator: str = "efficient", baseline=None, form: str = "tight", alpha: float = 0.05,
                      propensity=None, propensity_clip: float = 0.01, rng=None):
    """Bounds on the policy value (and, if ``baseline`` is given, the improvement bound) against Gamma.

    Parameters
    ----------
    data : ObservationalData or tuple (X, A, Y)
        Observational data.
    policy : policy object, callable, (n, K) probabilities, (n,) arms, int or "uniform"
        The policy whose value is bounded.
    gammas : list of float in [1, 1e8]
        MSM sensitivity parameters (odds-ratio bounds of the true to the nominal propensity; 1 = no
        unobserved confounding) at which to compute the bounds.
    outcome : {"loss", "reward"}
        Whether lower or higher outcomes are better.
    cv : int >= 2
        Cross-fitting folds (the folds and the propensity fits are shared across gammas).
    nuisance : str, dict or NuisanceModels, optional
        Nuisance models.
    estimator : {"efficient", "plugin"}
        Scores of the bounds.
    baseline : policy, optional
        If given, also report the improvement bound of ``policy`` over it and whether it is certified.
    form : {"tight", "paper"}
        Form of the improvement bound (see :func:`policy_improvement`).
    alpha : float in (0, 0.5)
        One-sided level of the certificate.
    propensity : array (n, K), optional
        Known propensities.
    propensity_clip : float in (0, 0.5)
        Clipping level of the propensities.
    rng : None, int or numpy Generator
        Seed (an int seed gives the same folds at every gamma).

    Returns
    -------
    pandas.DataFrame
        One row per gamma: ``gamma``, ``lower``, ``lower_se``, ``upper``, ``upper_se`` and, with a baseline,
        ``improvement``, ``improvement_se``, ``certified``.

    Examples
    --------
    >>> from iclr26sci.causal import sensitivity_curve, simulate_v1
    >>> data, _ = simulate_v1(400, gamma=2.0, rng=0)
    >>> df = sensitivity_curve(data, 1, [1.0, 2.0, 4.0], cv=2, rng=0)
    >>> list(df.columns)
    ['gamma', 'lower', 'lower_se', 'upper', 'upper_se']
    >>> bool((df["upper"] - df["lower"]).is_monotonic_increasing)
    True
    """
    import pandas as pd

    gammas = _check_gammas(gammas)
    sgn = _outcome_sign(outcome)
    cv = check_cv(cv)
    check_option(estimator, "estimator", ("efficient", "plugin"))
    check_option(form, "form", ("tight", "paper"))
    alpha = check_alpha(alpha)
    propensity_clip = check_clip(propensity_clip)
    nm = NuisanceModels.coerce(nuisance)
    X, A, Y, K, _ = _coerce_data(data, min_per_arm=cv)
    P = as_policy_matrix(_arm_index(policy, data), X, K)
    P0 = as_policy_matrix(_arm_index(baseline, data, "baseline"), X, K, "baseline") if baseline is not None else None
    propensity = check_propensity(propensity, X.shape[0], K)
    seed = _fixed_seed(rng)
    L = sgn * Y
    if propensity is None:
        propensity = cross_fit_nuisances(X, A, L, K, [], cv=cv, nuisance=nm, rng=seed,
                                         propensity_clip=propensity_clip).e
    rows = []
    for g in progress(gammas, desc="sensitivity curve", total=len(gammas)):
        g = float(g)
        nuis = cross_fit_nuisances(X, A, L, K, [quantile_level(g, "upper"), quantile_level(g, "lower")], cv=cv,
                                   nuisance=nm, rng=seed, propensity=propensity, propensity_clip=propensity_clip)
        Gp = score_matrix(nuis, L, A, g, "upper", estimator)
        Gm = score_matrix(nuis, L, A, g, "lower", estimator)
        up, lo = np.sum(P * Gp, axis=1), np.sum(P * Gm, axis=1)
        if sgn < 0:
            up, lo = -lo, -up
        eu, el = _estimate(up, "upper"), _estimate(lo, "lower")
        row = {"gamma": g, "lower": el.value, "lower_se": el.stderr, "upper": eu.value, "upper_se": eu.stderr}
        if P0 is not None:
            imp = _estimate(sgn * _regret_psi(P, P0, Gp, Gm, form), "improvement")
            row.update(improvement=imp.value, improvement_se=imp.stderr, certified=_certified(imp, sgn, alpha))
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True, repr=False)
class BreakdownResult:
    """Largest Gamma at which ``policy`` is still certified better than ``baseline`` (from :func:`breakdown_gamma`).

    Attributes
    ----------
    gamma : float
        The breakdown Gamma; 1.0 with ``certified_at_1=False`` when there is no certified improvement
        even without confounding, and ``gamma_max`` (``censored=True``) if it never breaks down below it.
    certified_at_1 : bool
        Whether the improvement is certified at Gamma = 1 (no unobserved confounding).
    censored : bool
        True when the improvement was still certified at ``gamma_max`` (the true breakdown is larger).
    curve : pandas.DataFrame
        The sensitivity-curve rows evaluated during the search.

    Examples
    --------
    >>> from iclr26sci.causal import BreakdownResult
    >>> r = BreakdownResult(1.43, True, False)
    >>> r
    BreakdownResult(gamma=1.43, certified_at_1=True, censored=False)
    >>> r.summary()
    'certified improvement breaks down at Gamma = 1.43'
    """

    gamma: float
    certified_at_1: bool
    censored: bool
    curve: object = field(repr=False, compare=False, default=None)

    def __post_init__(self):
        check_gamma(self.gamma)
        check_bool(self.certified_at_1, "certified_at_1")
        check_bool(self.censored, "censored")

    def summary(self) -> str:
        """One-line text summary."""
        if not self.certified_at_1:
            return "no certified improvement even at Gamma = 1 (no unobserved confounding)"
        if self.censored:
            return f"certified improvement holds up to Gamma = {self.gamma:g} at least (censored)"
        return f"certified improvement breaks down at Gamma = {self.gamma:.3g}"

    def to_dict(self) -> dict:
        """JSON-serialisable form (the curve as a list of row dicts)."""
        curve = self.curve.to_dict(orient="records") if hasattr(self.curve, "to_dict") else None
        return {"gamma": self.gamma, "certified_at_1": bool(self.certified_at_1), "censored": bool(self.censored),
                "curve": curve}

    def __repr__(self) -> str:
        return (f"BreakdownResult(gamma={self.gamma:.4g}, certified_at_1={bool(self.certified_at_1)}, "
                f"censored={bool(self.censored)})")

    def __str__(self):
        return self.summary()


def breakdown_gamma(data, policy, baseline=None, *, form: str = "tight", outcome: str = "loss",
                    alpha: float = 0.05, gamma_max: float = 50.0, tol: float = 0.02, cv: int = 5, nuisance=None,
                    propensity_clip: float = 0.01, rng=None) -> BreakdownResult:
    """Breakdown Gamma: the largest Gamma at which the certified improvement survives.

    .. math:: \\Gamma^* = \\sup\\{\\Gamma\\ge1 : \\hat R^+_\\Gamma + z_{1-\\alpha}\\widehat{se} < 0\\}

    found by bisection on :math:`\\log\\Gamma` (the bound is monotone in Gamma in the population).

    Parameters
    ----------
    data : ObservationalData or tuple (X, A, Y)
        Observational data.
    policy : policy object, callable, (n, K) probabilities, (n,) arms, int or "uniform"
        The candidate policy.
    baseline : same kinds, optional
        The policy it should beat (default uniform).
    form : {"tight", "paper"}
        Form of the improvement bound.
    outcome : {"loss", "reward"}
        Whether lower or higher outcomes are better.
    alpha : float in (0, 0.5)
        One-sided level of the certificate at each Gamma.
    gamma_max : float in (1, 1e8]
        Upper end of the search; a result equal to it is censored.
    tol : float > 0
        Bisection tolerance on :math:`\\log\\Gamma`.
    cv : int >= 2
        Cross-fitting folds (shared across the Gammas tried).
    nuisance : str, dict or NuisanceModels, optional
        Nuisance models.
    propensity_clip : float in (0, 0.5)
        Clipping level of the propensities.
    rng : None, int or numpy Generator
        Seed.

    Returns
    -------
    BreakdownResult

    Examples
    --------
    >>> from iclr26sci.causal import breakdown_gamma, simulate_v1
    >>> data, _ = simulate_v1(300, gamma=2.0, rng=0)
    >>> r = breakdown_gamma(data, 0, 0, cv=2, rng=0)      # a policy never certifiably beats itself
    >>> r
    BreakdownResult(gamma=1, certified_at_1=False, censored=False)
    """
    gamma_max = check_in_range(gamma_max, "gamma_max", 1.0, GAMMA_MAX, low_open=True)
    tol = check_in_range(tol, "tol", 0.0, None, low_open=True)
    check_option(form, "form", ("tight", "paper"))
    alpha = check_alpha(alpha)
    sgn = _outcome_sign(outcome)
    cv = check_cv(cv)
    propensity_clip = check_clip(propensity_clip)
    nm = NuisanceModels.coerce(nuisance)
    X, A, Y, K, _ = _coerce_data(data, min_per_arm=cv)
    as_policy_matrix(_arm_index(policy, data), X, K, "policy")
    as_policy_matrix(_arm_index(baseline, data, "baseline") if baseline is not None else "uniform", X, K, "baseline")
    seed = _fixed_seed(rng)
    kw = dict(outcome=outcome, cv=cv, nuisance=nm, baseline=baseline if baseline is not None else "uniform",
              form=form, alpha=alpha, rng=seed, propensity_clip=propensity_clip)
    e = cross_fit_nuisances(X, A, sgn * Y, K, [], cv=cv, nuisance=nm, rng=seed, propensity_clip=propensity_clip).e
    kw["propensity"] = e
    rows = []

    def cert(g):
        df = sensitivity_curve(data, policy, [g], **kw)
        rows.append(df)
        return bool(df["certified"].iloc[0])

    import pandas as pd

    if not cert(1.0):
        return BreakdownResult(1.0, False, False, pd.concat(rows, ignore_index=True))
    lo, hi = 0.0, float(np.log(gamma_max))
    if cert(gamma_max):
        return BreakdownResult(gamma_max, True, True, pd.concat(rows, ignore_index=True))
    n_steps = max(0, math.ceil(math.log2((hi - lo) / tol))) if hi - lo > tol else 0
    for _ in progress(range(n_steps), desc="breakdown gamma (bisection)", total=n_steps):
        mid = 0.5 * (lo + hi)
        if cert(float(np.exp(mid))):
            lo = mid
        else:
            hi = mid
    curve = pd.concat(rows, ignore_index=True).sort_values("gamma").reset_index(drop=True)
    return BreakdownResult(float(np.exp(lo)), True, False, curve)
