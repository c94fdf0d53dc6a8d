"""Nuisance models and K-fold cross-fitting for the sharp MSM bounds.

Nuisances at every unit and arm: propensity :math:`e_a(x)`, conditional
quantile :math:`q(x,a)` at the bound's level, and the quantile-centred
masked means :math:`\\nu_L, \\nu_U` (regressions of
:math:`(Y-\\hat q)1\\{Y\\le\\hat q\\}` and :math:`(Y-\\hat q)1\\{Y>\\hat q\\}`
on ``x`` within the arm). Outcome models are fitted per arm.

Defaults ("basis") are fast: an additive cubic-spline basis with a
multinomial logistic propensity, a convolution-smoothed linear quantile
regression (Newton, Gaussian kernel; He, Pan, Tan & Zhou 2023) and ridge
least squares. "hgb" uses scikit-learn's histogram gradient boosting, "mlp"
the paper's 64-32 torch network with early stopping. Any scikit-learn style
estimators can be passed instead.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import norm
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin, clone

from iclr26sci.core import InputError, as_generator

__all__ = ["SmoothedQuantileRegressor", "NuisanceModels", "CrossFitNuisances", "cross_fit_nuisances",
           "make_folds"]


class SmoothedQuantileRegressor(RegressorMixin, BaseEstimator):
    """Linear quantile regression with a Gaussian-smoothed pinball loss, solved by Newton.

    .. math::

        \\hat\\beta = \\arg\\min_\\beta \\frac1n\\sum_i \\ell_h(y_i - x_i^\\top\\beta)
            + \\frac{\\lambda}{2}\\|\\beta\\|^2,\\qquad
        \\ell_h(u) = E[\\rho_\\tau(u + hZ)] = u(\\tau - \\Phi(-u/h)) + h\\varphi(u/h)

    Parameters
    ----------
    quantile : float in (0, 1)
    bandwidth : float, optional
        Smoothing bandwidth in units of the residual scale; default
        :math:`\\max(0.05, ((p+\\log n)/n)^{0.4})` (conquer's rule).
    alpha : float
        Ridge penalty (not applied to the intercept).
    max_iter : int

    References
    ----------
    He, Pan, Tan & Zhou (2023), Smoothed quantile regression with large-scale inference, J. Econometrics.
    """

    def __init__(self, quantile: float = 0.5, bandwidth: float | None = None, alpha: float = 1e-6,
                 max_iter: int = 50):
        self.quantile = quantile
        self.bandwidth = bandwidth
        self.alpha = alpha
        self.max_iter = max_iter

    def fit(self, X, y):
        X = np.asarray(X, float)
        y = np.asarray(y, float)
        n, p = X.shape
        tau = float(self.quantile)
        Z = np.hstack([np.ones((n, 1)), X])
        pen = np.full(p + 1, self.alpha)
        pen[0] = 0.0
        ZtZ = Z.T @ Z / n
        beta = np.linalg.solve(ZtZ + np.diag(pen) + 1e-10 * np.eye(p + 1), Z.T @ y / n)
        r = y - Z @ beta
        scale = 1.4826 * np.median(np.abs(r - np.median(r)))
        if not np.isfinite(scale) or scale <= 1e-12:
            scale = max(float(np.std(y)), 1e-6)
        bw = self.bandwidth if self.bandwidth is not None else max(0.05, ((p + np.log(n)) / n) ** 0.4)
        h = bw * scale
        # start at the shifted OLS fit: intercept moved to the residual quantile
        beta[0] += np.quantile(r, tau)

        def obj(b):
            u = y - Z @ b
            return np.mean(u * (tau - norm.cdf(-u / h)) + h * norm.pdf(u / h)) + 0.5 * np.sum(pen * b * b)

        f = obj(beta)
        for _ in range(self.max_iter):
            u = y - Z @ beta
            w = norm.pdf(u / h) / h
            grad = -Z.T @ (tau - norm.cdf(-u / h)) / n + pen * beta
            H = (Z * w[:, None]).T @ Z / n + np.diag(pen) + 1e-8 * np.eye(p + 1)
            try:
                step = np.linalg.solve(H, grad)
            except np.linalg.LinAlgError:  # pragma: no cover
                step = np.linalg.lstsq(H, grad, rcond=None)[0]
            t = 1.0
            while True:
                nb = beta - t * step
                nf = obj(nb)
                if nf <= f - 1e-4 * t * grad @ step or t < 1e-6:
                    break
                t *= 0.5
            beta, fold = nb, f
            f = nf
            if abs(fold - f) <= 1e-10 * max(1.0, abs(f)) or np.max(np.abs(t * step)) < 1e-9:
                break
        self.coef_ = beta[1:]
        self.intercept_ = beta[0]
        return self

    def predict(self, X):
        return np.asarray(X, float) @ self.coef_ + self.intercept_


class _Constant:
    """A model for an arm with too few rows to fit: predicts a constant."""

    def __init__(self, value):
        self.value = float(value)

    def predict(self, X):
        return np.full(len(X), self.value)


class AdaptiveSplineBasis(TransformerMixin, BaseEstimator):
    """Additive cubic B-spline basis whose number of knots grows like ``n ** (1/5)``.

    ``n_knots = clip(round(scale * n ** 0.2), 3, max_knots)``; features with at most
    ``n_knots`` distinct values (binary, small counts) enter linearly. Outside the training
    range the basis is extended constantly (no wild linear extrapolation at the edges).
    """

    def __init__(self, scale: float = 1.5, max_knots: int = 10, extrapolation: str = "linear"):
        self.extrapolation = extrapolation
        self.scale = scale
        self.max_knots = max_knots

    def fit(self, X, y=None):
        from sklearn.preprocessing import SplineTransformer

        X = np.asarray(X, float)
        n, d = X.shape
        # knots grow like n^(1/5); with many features the per-feature basis shrinks (fast, additive model)
        k = int(np.clip(round(self.scale * n ** 0.2), 3, min(self.max_knots, max(4, 60 // max(d, 1)))))
        self.mean_ = X.mean(0)
        sd = X.std(0)
        self.sd_ = np.where(sd > 0, sd, 1.0)
        self.smooth_ = [j for j in range(d) if np.unique(X[:, j]).size > k + 1]
        self.linear_ = [j for j in range(d) if j not in self.smooth_]
        self.spl_ = None
        if self.smooth_:
            self.spl_ = SplineTransformer(n_knots=k, degree=3, knots="uniform", extrapolation=self.extrapolation,
                                          include_bias=False).fit(X[:, self.smooth_])
        return self

    def transform(self, X):
        X = np.asarray(X, float)
        parts = [(X[:, self.linear_] - self.mean_[self.linear_]) / self.sd_[self.linear_]] if self.linear_ else []
        if self.spl_ is not None:
            parts.append(self.spl_.transform(X[:, self.smooth_]))
            parts.append((X[:, self.smooth_] - self.mean_[self.smooth_]) / self.sd_[self.smooth_])
        return np.hstack(parts)


def _spline(extrapolation="constant"):
    return AdaptiveSplineBasis(extrapolation=extrapolation)


def _preset(kind: str, role: str, level: float | None = None, seed: int = 0):
    from sklearn.pipeline import make_pipeline

    if kind == "basis":
        if role == "propensity":
            from sklearn.linear_model import LogisticRegression

            return make_pipeline(_spline("constant"), LogisticRegression(C=1.0, max_iter=300))
        if role == "quantile":
            return make_pipeline(_spline(), SmoothedQuantileRegressor(quantile=level, alpha=1e-4))
        from sklearn.linear_model import Ridge

        return make_pipeline(_spline(), Ridge(alpha=1.0))
    if kind == "linear":
        from sklearn.preprocessing import StandardScaler

        if role == "propensity":
            from sklearn.linear_model import LogisticRegression

            return make_pipeline(StandardScaler(), LogisticRegression(C=100.0, max_iter=300))
        if role == "quantile":
            return make_pipeline(StandardScaler(), SmoothedQuantileRegressor(quantile=level))
        from sklearn.linear_model import Ridge

        return make_pipeline(StandardScaler(), Ridge(alpha=1e-6))
    if kind == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

        kw = dict(max_iter=100, early_stopping=True, random_state=seed)
        if role == "propensity":
            return HistGradientBoostingClassifier(**kw)
        if role == "quantile":
            return HistGradientBoostingRegressor(loss="quantile", quantile=level, **kw)
        return HistGradientBoostingRegressor(**kw)
    if kind == "mlp":
        from ._mlp import MLPClassifier64, MLPRegressor64

        if role == "propensity":
            return MLPClassifier64(random_state=seed)
        if role == "quantile":
            return MLPRegressor64(loss="pinball", quantile=level, random_state=seed)
        return MLPRegressor64(random_state=seed)
    raise InputError("nuisance", f"unknown preset {kind!r}", "'basis', 'linear', 'hgb' or 'mlp'")


PRESETS = ("basis", "linear", "hgb", "mlp")


@dataclass(frozen=True)
class NuisanceModels:
    """Which models estimate the nuisances.

    Each slot is a preset name (``"basis"``, ``"linear"``, ``"hgb"``, ``"mlp"``)
    or a scikit-learn style estimator (cloned before each fit):

    * ``propensity``: a classifier with ``predict_proba``;
    * ``quantile``: a regressor whose level is set through a ``quantile``
      (or, for ``loss="quantile"`` models, ``alpha``) parameter, or a callable
      ``level -> regressor``;
    * ``regression``: a regressor for the masked means.
    """

    propensity: object = "basis"
    quantile: object = "basis"
    regression: object = "basis"

    @classmethod
    def coerce(cls, nuisance) -> "NuisanceModels":
        if nuisance is None:
            return cls()
        if isinstance(nuisance, NuisanceModels):
            nm = nuisance
        elif isinstance(nuisance, str):
            if nuisance not in PRESETS:
                raise InputError("nuisance", f"unknown preset {nuisance!r}", "one of " + ", ".join(PRESETS))
            nm = cls(nuisance, nuisance, nuisance)
        elif isinstance(nuisance, dict):
            bad = set(nuisance) - {"propensity", "quantile", "regression"}
            if bad:
                raise InputError("nuisance", f"unknown keys {sorted(bad)}", "keys propensity, quantile, regression")
            nm = cls(**nuisance)
        else:
            raise InputError("nuisance", f"got {type(nuisance).__name__}",
                             "a preset name, a dict of models or NuisanceModels")
        for role in ("propensity", "quantile", "regression"):
            m = getattr(nm, role)
            if isinstance(m, str):
                if m not in PRESETS:
                    raise InputError("nuisance", f"{role} preset {m!r} unknown", "one of " + ", ".join(PRESETS))
            elif role == "quantile" and callable(m) and not hasattr(m, "fit"):
                pass
            elif not hasattr(m, "fit"):
                raise InputError("nuisance", f"{role} model has no fit method", "a scikit-learn style estimator")
            elif role == "propensity" and not hasattr(m, "predict_proba"):
                raise InputError("nuisance", "propensity model has no predict_proba", "a probabilistic classifier")
        return nm

    def make(self, role: str, level: float | None = None, seed: int = 0):
        m = getattr(self, role)
        if isinstance(m, str):
            return _preset(m, role, level, seed)
        if role == "quantile":
            if callable(m) and not hasattr(m, "fit"):
                return m(level)
            est = clone(m)
            params = est.get_params()
            if "quantile" in params:
                return est.set_params(quantile=level)
            if params.get("loss") == "quantile" and "alpha" in params:
                return est.set_params(alpha=level)
            raise InputError("nuisance", "quantile model has no `quantile` (or `alpha` with loss='quantile') "
                             "parameter", "a quantile regressor or a callable level -> regressor")
        return clone(m)


@dataclass
class CrossFitNuisances:
    """Cross-fitted nuisance values at every unit and arm.

    Attributes
    ----------
    e : (n, K) propensities (clipped)
    levels : dict mapping a quantile level to ``(q, nu_L, nu_U)``, each (n, K)
    folds : (n,) fold index of each unit
    """

    e: np.ndarray
    levels: dict = field(default_factory=dict)
    folds: np.ndarray | None = None
    n_clipped: int = 0

    def mu(self) -> np.ndarray:
        """Outcome regression :math:`\\hat\\mu = \\hat q + \\hat\\nu_L + \\hat\\nu_U` (first level)."""
        q, nl, nu = next(iter(self.levels.values()))
        return q + nl + nu

    def get(self, level: float):
        for k, v in self.levels.items():
            if abs(k - level) < 1e-12:
                return v
        raise KeyError(level)


def make_folds(A: np.ndarray, cv: int, rng) -> np.ndarray:
    """Fold index per unit, stratified by arm, random given ``rng``."""
    gen = as_generator(rng)
    folds = np.empty(A.shape[0], dtype=np.int64)
    for a in np.unique(A):
        idx = np.flatnonzero(A == a)
        perm = gen.permutation(idx)
        folds[perm] = np.arange(idx.shape[0]) % cv
    return folds


def _fit_predict_arm(model, Xtr, ytr, Xte, fallback):
    if Xtr.shape[0] < 5:
        m = _Constant(fallback(ytr) if ytr.size else 0.0)
        return m.predict(Xte), m.predict(Xtr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)
        model.fit(Xtr, ytr)
    return model.predict(Xte), model.predict(Xtr)


def cross_fit_nuisances(X, A, Y, n_arms: int, levels, cv: int = 5, nuisance=None, rng=None,
                        propensity_clip: float = 0.01, max_clipped_fraction: float = 0.2,
                        propensity=None) -> CrossFitNuisances:
    """Fit the nuisances with ``cv``-fold cross-fitting (``cv=1``: in-sample, no splitting).

    Parameters
    ----------
    X : (n, d); A : (n,) ints; Y : (n,)
    n_arms : int
    levels : iterable of quantile levels in (0, 1)
    cv : int
    nuisance : preset name, dict or :class:`NuisanceModels`
    rng : seed for the folds and stochastic models
    propensity_clip : float
        Propensities are clipped to ``[clip, 1 - clip]`` (with a warning).
    max_clipped_fraction : float
        If more than this fraction of the units have some arm's propensity below
        ``propensity_clip``, overlap fails and an :class:`InputError` is raised.
    propensity : (n, K) array, optional
        Known propensities (e.g. a randomised trial); the propensity model is skipped.
    """
    nm = NuisanceModels.coerce(nuisance)
    gen = as_generator(rng)
    n = X.shape[0]
    K = int(n_arms)
    levels = [float(a) for a in levels]
    folds = make_folds(A, cv, gen) if cv > 1 else np.zeros(n, dtype=np.int64)
    seed = int(gen.integers(2**31 - 1))
    e = np.zeros((n, K))
    out = {lv: (np.zeros((n, K)), np.zeros((n, K)), np.zeros((n, K))) for lv in levels}
    for f in range(max(cv, 1)):
        te = folds == f if cv > 1 else np.ones(n, bool)
        tr = ~te if cv > 1 else np.ones(n, bool)
        Xtr, Atr, Ytr, Xte = X[tr], A[tr], Y[tr], X[te]
        if propensity is None:
            present = np.unique(Atr)
            if present.shape[0] < K:
                raise InputError("A", f"an arm has no observations in a training fold (arms present: "
                                 f"{present.tolist()})", "every arm observed in every fold (reduce cv)")
            pm = nm.make("propensity", seed=seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pm.fit(Xtr, Atr)
            proba = pm.predict_proba(Xte)
            classes = list(getattr(pm, "classes_", range(K)))
            e_te = np.zeros((Xte.shape[0], K))
            for j, c in enumerate(classes):
                e_te[:, int(c)] = proba[:, j]
            e[te] = e_te
        for a in range(K):
            ma = Atr == a
            Xa, Ya = Xtr[ma], Ytr[ma]
            for lv in levels:
                qm = nm.make("quantile", level=lv, seed=seed)
                q_te, q_tr = _fit_predict_arm(qm, Xa, Ya, Xte, lambda y, lv=lv: np.quantile(y, lv))
                below = Ya <= q_tr
                WL = np.where(below, Ya - q_tr, 0.0)
                WU = np.where(below, 0.0, Ya - q_tr)
                nl_te, _ = _fit_predict_arm(nm.make("regression", seed=seed), Xa, WL, Xte, np.mean)
                nu_te, _ = _fit_predict_arm(nm.make("regression", seed=seed), Xa, WU, Xte, np.mean)
                q, nl, nu = out[lv]
                q[te, a] = q_te
                # masked means have known signs: nu_L <= 0 <= nu_U
                nl[te, a] = np.minimum(nl_te, 0.0)
                nu[te, a] = np.maximum(nu_te, 0.0)
    if propensity is not None:
        e = np.asarray(propensity, float)
    n_clip = 0
    if propensity_clip > 0:
        low_any = e.min(axis=1) < propensity_clip
        n_clip = int(np.sum((e < propensity_clip) | (e > 1 - propensity_clip)))
        if np.mean(low_any) > max_clipped_fraction:
            raise InputError("data", f"overlap fails: {np.mean(low_any):.0%} of the units have an estimated "
                             f"propensity below {propensity_clip} for some arm",
                             "treatment arms that overlap in covariates (or a smaller propensity_clip)")
        if n_clip:
            warnings.warn(f"{n_clip} propensity values outside [{propensity_clip}, {1 - propensity_clip}] "
                          "were clipped", RuntimeWarning, stacklevel=3)
            e = np.clip(e, propensity_clip, 1 - propensity_clip)
            e = e / e.sum(axis=1, keepdims=True)
            e = np.clip(e, propensity_clip * 0.5, 1.0)
    return CrossFitNuisances(e=e, levels=out, folds=folds, n_clipped=n_clip)
