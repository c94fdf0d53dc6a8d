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

import contextlib
import contextvars
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin, clone

from iclr26sci.core import InputError, as_generator, progress

from ._validate import (check_A, check_clip, check_cv, check_fitted, check_in_range, check_levels, check_n_features,
                        check_option, check_positive_int, check_prob_matrix, check_propensity, check_X, check_Y)

_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)

__all__ = ["SmoothedQuantileRegressor", "NuisanceModels", "CrossFitNuisances", "cross_fit_nuisances",
           "make_folds"]


#: rows whose kernel weight phi(z) is below 1e-16 phi(0) (z^2 > 2 log 1e16) are left out of the Newton Hessian:
#: together they add at most 1e-16 phi(0) Z'Z / (n h) to it, below its rounding where rows of real weight remain
#: and far below its 1e-8 I regularisation otherwise; they are half the rows of a typical fit (a heavy-tailed
#: residual against a bandwidth of a tenth of its robust scale)
_HESS_Z2 = 2.0 * np.log(1e16)


def _sqr_newton(Z, y, tau: float, alpha: float, bandwidth, max_iter: int, gram=None):
    """The Newton iteration of :class:`SmoothedQuantileRegressor` on a design ``Z`` (n, p + 1) whose first
    column is the intercept's ones. ``gram`` is ``Z.T @ Z`` when the caller already has it (the same numbers
    as computed here). Returns the coefficients (intercept first) and the number of Newton steps."""
    n, p1 = Z.shape
    p = p1 - 1
    pen = np.full(p1, alpha)
    pen[0] = 0.0
    if gram is None:
        gram = Z.T @ Z                            # Z.T @ Z of one buffer: numpy calls BLAS syrk (half a GEMM)
    ZtZ = gram / n
    beta = np.linalg.solve(ZtZ + np.diag(pen) + 1e-10 * np.eye(p1), Z.T @ y / n)
    r = y - Z @ beta
    scale = 1.4826 * np.median(np.abs(r - np.median(r)))
    if not np.isfinite(scale) or scale <= 1e-12:
        scale = max(float(np.std(y)), 1e-6)
    bw = bandwidth if bandwidth is not None else max(0.05, ((p + np.log(n)) / n) ** 0.4)
    h = bw * scale
    # start at the shifted OLS fit: intercept moved to the residual quantile
    beta[0] += np.quantile(r, tau)

    def obj(b):
        """Objective at ``b``, with ``tau - Phi(-z)``, ``phi(z)`` and ``z = u / h`` (reused by Newton)."""
        u = y - Z @ b
        z = u / h
        phi = np.exp(-0.5 * z * z)
        phi *= _INV_SQRT_2PI                      # the standard normal density (scipy.stats.norm.pdf's formula)
        g = tau - ndtr(-z)
        val = np.mean(u * g + h * phi) + 0.5 * np.sum(pen * b * b)
        return val, g, phi, z

    f, g, phi, z = obj(beta)
    n_iter = 0
    S = np.empty_like(Z)
    for _ in range(max_iter):
        n_iter += 1
        grad = -Z.T @ g / n + pen * beta
        # Hessian Z' diag(phi(z) / h) Z / n as S'S with S = Z sqrt(w): one BLAS syrk instead of a GEMM, on the
        # rows whose weight is not negligible (gathered into the head of S) when they are fewer than 90%
        keep = np.flatnonzero(z * z < _HESS_Z2)
        if keep.shape[0] < 0.9 * n:
            m = keep.shape[0]
            Sk = np.take(Z, keep, axis=0, out=S[:m], mode="clip")   # in range; "raise" would buffer
            Sk *= np.sqrt(phi[keep] / (h * n))[:, None]
        else:
            Sk = np.multiply(Z, np.sqrt(phi / (h * n))[:, None], out=S)
        H = Sk.T @ Sk + np.diag(pen) + 1e-8 * np.eye(p1)
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:  # pragma: no cover
            step = np.linalg.lstsq(H, grad, rcond=None)[0]
        t = 1.0
        while True:
            nb = beta - t * step
            nf, ng, nphi, nz = obj(nb)
            if nf <= f - 1e-4 * t * grad @ step or t < 1e-6:
                break
            t *= 0.5
        beta, fold = nb, f
        f, g, phi, z = nf, ng, nphi, nz
        if abs(fold - f) <= 1e-10 * max(1.0, abs(f)) or np.max(np.abs(t * step)) < 1e-9:
            break
    return beta, n_iter


class SmoothedQuantileRegressor(RegressorMixin, BaseEstimator):
    """Linear quantile regression with a Gaussian-smoothed pinball loss, solved by Newton.

    .. math::

        \\hat\\beta = \\arg\\min_\\beta \\frac1n\\sum_i \\ell_h(y_i - x_i^\\top\\beta)
            + \\frac{\\lambda}{2}\\|\\beta\\|^2,\\qquad
        \\ell_h(u) = E[\\rho_\\tau(u + hZ)] = u(\\tau - \\Phi(-u/h)) + h\\varphi(u/h)

    Parameters
    ----------
    quantile : float in (0, 1)
        Level :math:`\\tau` of the conditional quantile estimated (0.5 = median regression).
    bandwidth : float > 0, optional
        Width of the Gaussian smoothing of the pinball loss, in units of the robust (MAD) scale of the
        least-squares residuals; default :math:`\\max(0.05, ((p+\\log n)/n)^{0.4})` (conquer's rule).
        Smaller is closer to the exact (non-smooth) quantile regression, larger is better conditioned.
    alpha : float >= 0
        Ridge penalty :math:`\\lambda` on the slopes (not the intercept); 0 = unpenalised.
    max_iter : int >= 1
        Largest number of Newton steps (each with a backtracking line search).

    Attributes
    ----------
    coef_ : ndarray (p,)
        Slopes.
    intercept_ : float
    n_features_in_ : int
    n_iter_ : int
        Newton steps taken.

    References
    ----------
    He, Pan, Tan & Zhou (2023), Smoothed quantile regression with large-scale inference, J. Econometrics.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import SmoothedQuantileRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 1)); y = 2 * X[:, 0] + rng.normal(size=400)
    >>> m = SmoothedQuantileRegressor(quantile=0.9).fit(X, y)
    >>> bool(abs(m.coef_[0] - 2) < 0.2), bool(abs(m.intercept_ - 1.28) < 0.3)   # slope 2, intercept z_0.9
    (True, True)
    >>> float(np.mean(y <= m.predict(X))) > 0.85
    True
    """

    def __init__(self, quantile: float = 0.5, bandwidth: float | None = None, alpha: float = 1e-6,
                 max_iter: int = 50):
        self.quantile = quantile
        self.bandwidth = bandwidth
        self.alpha = alpha
        self.max_iter = max_iter

    def _validate_params(self):
        check_in_range(self.quantile, "quantile", 0.0, 1.0, low_open=True, high_open=True)
        if self.bandwidth is not None:
            check_in_range(self.bandwidth, "bandwidth", 0.0, None, low_open=True)
        check_in_range(self.alpha, "alpha", 0.0, None)
        check_positive_int(self.max_iter, "max_iter")

    def fit(self, X, y):
        """Fit the quantile regression of ``y`` on ``X`` ((n, p) and (n,), finite)."""
        self._validate_params()
        X = check_X(X, "X")
        y = check_Y(y, "y", X.shape[0])
        n, p = X.shape
        Z = np.empty((n, p + 1))
        Z[:, 0] = 1.0
        Z[:, 1:] = X
        beta, n_iter = _sqr_newton(Z, y, float(self.quantile), self.alpha, self.bandwidth, self.max_iter)
        self.coef_ = beta[1:]
        self.intercept_ = float(beta[0])
        self.n_features_in_ = p
        self.n_iter_ = n_iter
        return self

    def predict(self, X):
        """Estimated conditional quantile at the rows of ``X`` (n, p)."""
        check_fitted(self, "coef_", "predict")
        X = check_n_features(self, X, "predict")
        return X @ self.coef_ + self.intercept_


class _Constant:
    """A model for an arm with too few rows to fit: predicts a constant."""

    def __init__(self, value):
        self.value = float(value)

    def predict(self, X):
        return np.full(len(X), self.value)


#: inside :func:`cross_fit_nuisances`: a dict memo of spline bases fitted on, and applied to, the same arrays, so
#: the quantile model and the two masked-mean regressions of one arm and fold share one basis and its design
#: matrices (exactly the same numbers, computed once instead of seven times). None elsewhere.
_BASIS_MEMO: contextvars.ContextVar = contextvars.ContextVar("iclr26sci_causal_basis_memo", default=None)


@contextlib.contextmanager
def _shared_basis():
    token = _BASIS_MEMO.set({})
    try:
        yield
    finally:
        _BASIS_MEMO.reset(token)


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
        memo = _BASIS_MEMO.get()
        if memo is not None and isinstance(X, np.ndarray):   # inside cross-fitting: one basis per training set
            key = ("fit", id(X), self.scale, self.max_knots, self.extrapolation)
            hit = memo.get(key)
            if hit is not None and hit[0] is X:
                self.__dict__.update(hit[1])
                return self
            self._fit(X)
            memo[key] = (X, {k: v for k, v in self.__dict__.items() if k.endswith("_")})
            return self
        return self._fit(X)

    def _fit(self, X):
        from sklearn.preprocessing import SplineTransformer

        X = np.asarray(X, float)
        n, d = X.shape
        # knots grow like n^(1/5); with many features the per-feature basis shrinks (fast, additive model)
        k = int(np.clip(round(self.scale * n ** 0.2), 3, min(self.max_knots, max(4, 60 // max(d, 1)))))
        self.mean_ = X.mean(0)
        sd = X.std(0)
        self.sd_ = np.where(sd > 0, sd, 1.0)
        self.smooth_ = [j for j in range(d) if _more_distinct(X[:, j], k + 1)]
        self.linear_ = [j for j in range(d) if j not in self.smooth_]
        self.spl_ = None
        if self.smooth_:
            self.spl_ = SplineTransformer(n_knots=k, degree=3, knots="uniform", extrapolation=self.extrapolation,
                                          include_bias=False).fit(X[:, self.smooth_])
        return self

    def transform(self, X):
        memo = _BASIS_MEMO.get()
        if memo is not None and isinstance(X, np.ndarray):   # the same rows through the same fitted basis
            key = ("transform", id(X), id(self.spl_), tuple(self.smooth_), tuple(self.linear_))
            hit = memo.get(key)
            if hit is not None and hit[0] is X and hit[1] is self.spl_:
                return hit[2]
            out = self._transform(X)
            out.flags.writeable = False          # shared between the models of one arm: never written in place
            memo[key] = (X, self.spl_, out)
            return out
        return self._transform(X)

    def _transform(self, X, lead: int = 0):
        """The design of ``X``; with ``lead`` > 0 it is preceded by ``lead`` columns of ones (an intercept
        column written into the same buffer, so that ``out[:, lead:]`` is the plain design)."""
        X = np.asarray(X, float)
        n = X.shape[0]
        nl, ns = len(self.linear_), len(self.smooth_)
        if self.spl_ is not None and not _fast_spline(self.spl_):   # general configuration: sklearn's, stacked
            parts = [np.ones((n, lead))] if lead else []
            if self.linear_:
                parts.append((X[:, self.linear_] - self.mean_[self.linear_]) / self.sd_[self.linear_])
            parts.append(_spline_design(self.spl_, X[:, self.smooth_]))
            parts.append((X[:, self.smooth_] - self.mean_[self.smooth_]) / self.sd_[self.smooth_])
            return np.hstack(parts)
        w = self.spl_.bsplines_[0].c.shape[1] - 1 if self.spl_ is not None else 0
        # the columns written in place: [ones | linear | spline basis | smooth features linearly], no stacking
        out = np.zeros((n, lead + nl + ns * w + (ns if self.spl_ is not None else 0)))
        if lead:
            out[:, :lead] = 1.0
        if self.linear_:
            np.divide(X[:, self.linear_] - self.mean_[self.linear_], self.sd_[self.linear_],
                      out=out[:, lead:lead + nl])
        if self.spl_ is not None:
            Xs = X[:, self.smooth_]
            _spline_design(self.spl_, Xs, out=out, col=lead + nl)
            np.divide(Xs - self.mean_[self.smooth_], self.sd_[self.smooth_], out=out[:, lead + nl + ns * w:])
        return out


def _more_distinct(x, m: int) -> bool:
    """Whether ``x`` has more than ``m`` distinct values: decided on its first rows when they already have more
    (a subset never has more distinct values than the whole), otherwise by ``np.unique`` on all of it."""
    head = x[:max(64, 4 * m)]
    if np.unique(head).size > m:
        return True
    return np.unique(x).size > m


def _fast_spline(spl) -> bool:
    """Whether :func:`_spline_design` evaluates ``spl`` in closed form (uniform cubic, no bias, dense)."""
    return (spl.degree == 3 and spl.knots == "uniform" and not spl.include_bias
            and not getattr(spl, "sparse_output", False) and spl.extrapolation in ("constant", "linear"))


def _spline_design(spl, X, out=None, col=0):
    r"""``spl.transform(X)`` for a fitted cubic SplineTransformer with uniform knots and no bias column.

    On uniform knots ``t_j = lo + j h`` the four B-splines that are non-zero at ``x = lo + (j + u) h``,
    ``u in [0, 1)``, are the cardinal cubics :math:`(1-u)^3/6`, :math:`(3u^3-6u^2+4)/6`,
    :math:`(-3u^3+3u^2+3u+1)/6` and :math:`u^3/6` (de Boor, *A Practical Guide to Splines*, ch. IX), so the
    dense design is four vectorised polynomials and four scatters per feature instead of a general spline
    evaluation per feature. Rows with a coordinate outside the knot range are passed to ``spl.transform``
    (its constant / linear extrapolation). Equal to ``spl.transform`` up to rounding (about 1e-15); any other
    configuration goes to ``spl.transform``.

    With ``out`` (an (n, m) C-contiguous array of zeros) the design is written into ``out[:, col:col + D]`` and
    ``out`` is returned. For rows in the top interval the last (dropped) basis is written first onto the
    column of the first, which is then overwritten: no extra column is needed.
    """
    k = spl.degree
    if not _fast_spline(spl):
        res = spl.transform(X)
        if out is None:
            return res
        out[:, col:col + res.shape[1]] = res
        return out
    X = np.asarray(X, float)
    n, d = X.shape
    ns = spl.bsplines_[0].c.shape[1]               # n_knots + 2 basis functions per feature
    nk = ns - k + 1
    w = ns - 1                                      # columns per feature without the last (bias) basis
    D = d * w
    if out is None:
        out = np.zeros((n, D))
        col = 0
    m = out.shape[1]
    flat = out.reshape(-1)
    bad = None
    base = np.arange(n) * m + col
    for i, b in enumerate(spl.bsplines_):
        lo, hi = b.t[k], b.t[-k - 1]
        x = X[:, i]
        if not (x.min() >= lo and x.max() <= hi):  # rows outside (or NaN): placeholders now, spl.transform below
            o = ~((x >= lo) & (x <= hi))
            bad = o if bad is None else bad | o
            x = np.where(o, lo, x)
        s = x - lo
        s *= (nk - 1) / (hi - lo)
        j = s.astype(np.intp)
        np.minimum(j, nk - 2, out=j)
        u = s
        u -= j
        u2 = u * u
        u3 = u2 * u
        v = 1.0 - u
        top = j == nk - 2
        idx = j
        idx += base
        idx += i * w
        last = idx + 3
        np.copyto(last, idx, where=top)             # the dropped basis: overwritten by the first just below
        # np.put, not flat[idx] = ...: fancy assignment is about 3x slower here (indices are in range, so
        # mode="clip" only skips the bounds check)
        np.put(flat, last, u3 / 6.0, mode="clip")
        t = v * v
        t *= v
        t /= 6.0
        np.put(flat, idx, t, mode="clip")
        t = 3.0 * u3
        t -= 6.0 * u2
        t += 4.0
        t /= 6.0
        np.put(flat, idx + 1, t, mode="clip")
        t = -3.0 * u3
        t += 3.0 * u2
        t += 3.0 * u
        t += 1.0
        t /= 6.0
        np.put(flat, idx + 2, t, mode="clip")
    if bad is not None and bad.any():
        r = np.flatnonzero(bad)
        out[r, col:col + D] = spl.transform(X[r])
    return out


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


ROLES = ("propensity", "quantile", "regression")


def _check_role_model(role: str, m, name: str | None = None):
    name = name or role
    if isinstance(m, str):
        if m not in PRESETS:
            raise InputError(name, f"unknown preset {m!r}", "one of " + ", ".join(repr(p) for p in PRESETS)
                             + " or a scikit-learn style estimator")
    elif role == "quantile" and callable(m) and not hasattr(m, "fit"):
        pass
    elif not hasattr(m, "fit"):
        raise InputError(name, f"{type(m).__name__} has no fit method", "a preset name or a scikit-learn style "
                         "estimator")
    elif role == "propensity" and not hasattr(m, "predict_proba"):
        raise InputError(name, "the propensity model has no predict_proba", "a probabilistic classifier")


@dataclass(frozen=True)
class NuisanceModels:
    """Which models estimate the four nuisances of the sharp bounds.

    Each slot is a preset name or a scikit-learn style estimator (cloned before each fit). Presets:
    ``"basis"`` (default: additive cubic splines with logistic / smoothed-quantile / ridge fits, fast),
    ``"linear"`` (the same without splines), ``"hgb"`` (histogram gradient boosting), ``"mlp"`` (the
    paper's 64-32 torch network).

    Parameters
    ----------
    propensity : str or classifier
        Model of the nominal propensity :math:`e_a(x) = P(A=a\\mid x)`: a classifier with ``predict_proba``.
    quantile : str, regressor or callable
        Model of the conditional quantile of the outcome within an arm: a regressor whose level is set
        through a ``quantile`` parameter (or ``alpha`` for ``loss="quantile"`` models), or a callable
        ``level -> regressor``.
    regression : str or regressor
        Model of the two masked means (least-squares regressions within an arm).

    Examples
    --------
    >>> from iclr26sci.causal import NuisanceModels
    >>> nm = NuisanceModels(propensity="linear")
    >>> nm.quantile
    'basis'
    >>> type(nm.make("quantile", level=0.75)[-1]).__name__
    'SmoothedQuantileRegressor'
    """

    propensity: object = "basis"
    quantile: object = "basis"
    regression: object = "basis"

    def __post_init__(self):
        for role in ROLES:
            _check_role_model(role, getattr(self, role))

    @classmethod
    def coerce(cls, nuisance, name: str = "nuisance") -> "NuisanceModels":
        """A :class:`NuisanceModels` from ``None`` (defaults), a preset name, a dict of slots, or itself."""
        if nuisance is None:
            return cls()
        if isinstance(nuisance, NuisanceModels):
            return nuisance
        if isinstance(nuisance, str):
            if nuisance not in PRESETS:
                raise InputError(name, f"unknown preset {nuisance!r}", "one of " + ", ".join(repr(p) for p in PRESETS))
            return cls(nuisance, nuisance, nuisance)
        if isinstance(nuisance, dict):
            bad = set(nuisance) - set(ROLES)
            if bad:
                raise InputError(name, f"unknown keys {sorted(bad)}", "keys propensity, quantile, regression")
            for role, m in nuisance.items():
                _check_role_model(role, m, f"{name}[{role!r}]")
            return cls(**nuisance)
        raise InputError(name, f"got {type(nuisance).__name__}", "a preset name, a dict of models or NuisanceModels")

    def make(self, role: str, level: float | None = None, seed: int = 0):
        """A fresh (unfitted) model for ``role`` ("propensity", "quantile" or "regression").

        ``level`` (in (0, 1)) is required for the quantile model; ``seed`` seeds stochastic presets.
        """
        check_option(role, "role", ROLES)
        if role == "quantile":
            if level is None:
                raise InputError("level", "is required for the quantile model", "a quantile level in (0, 1)")
            level = check_in_range(level, "level", 0.0, 1.0, low_open=True, high_open=True)
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
    """Cross-fitted nuisance values at every unit and arm (the output of :func:`cross_fit_nuisances`).

    Parameters
    ----------
    e : ndarray (n, K)
        Out-of-fold nominal propensities :math:`\\hat e_a(X_i)` (clipped), rows summing to 1, entries > 0.
    levels : dict
        Maps a quantile level (the bound's :func:`quantile_level`) to ``(q, nu_L, nu_U)``, each (n, K):
        the out-of-fold conditional quantile and the quantile-centred masked means.
    folds : ndarray (n,), optional
        Cross-fitting fold of each unit.
    n_clipped : int
        Number of propensity values that were clipped.
    seed : int, optional
        Seed given to the nuisance models (set by :func:`cross_fit_nuisances`; lets ``reuse`` fit further
        levels with the same models and folds).
    fingerprint : str, optional
        Digest of the data and settings the nuisances were fitted on (set by :func:`cross_fit_nuisances`);
        ``reuse`` refuses nuisances fitted on other data.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import CrossFitNuisances
    >>> z = np.zeros((3, 2))
    >>> nuis = CrossFitNuisances(e=np.full((3, 2), 0.5), levels={0.5: (z, z - 1, z + 1)})
    >>> nuis
    CrossFitNuisances(n=3, n_arms=2, levels=[0.5], n_clipped=0)
    >>> nuis.mu().shape
    (3, 2)
    """

    e: np.ndarray
    levels: dict = field(default_factory=dict)
    folds: np.ndarray | None = None
    n_clipped: int = 0
    seed: int | None = None
    fingerprint: str | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        e = check_prob_matrix(self.e, "e", positive=True)
        n, K = e.shape
        if not isinstance(self.levels, dict):
            raise InputError("levels", f"got {type(self.levels).__name__}", "a dict level -> (q, nu_L, nu_U)")
        for lv, v in self.levels.items():
            check_in_range(lv, "levels", 0.0, 1.0, low_open=True, high_open=True)
            if not (isinstance(v, (tuple, list)) and len(v) == 3):
                raise InputError("levels", f"entry for level {lv} is not a (q, nu_L, nu_U) triple",
                                 "three (n, K) arrays per level")
            for arr, nm in zip(v, ("q", "nu_L", "nu_U")):
                a = np.asarray(arr, float)
                if a.shape != (n, K) or not np.all(np.isfinite(a)):
                    raise InputError("levels", f"{nm} at level {lv} has shape {a.shape} or non-finite values",
                                     f"finite arrays of shape ({n}, {K})")
        object.__setattr__(self, "e", e)

    @property
    def n(self) -> int:
        return int(self.e.shape[0])

    @property
    def n_arms(self) -> int:
        return int(self.e.shape[1])

    def mu(self) -> np.ndarray:
        """Outcome regression :math:`\\hat\\mu = \\hat q + \\hat\\nu_L + \\hat\\nu_U` (first level), (n, K)."""
        if not self.levels:
            raise InputError("levels", "is empty (no outcome nuisances were fitted)",
                             "cross_fit_nuisances(..., levels=[...]) with at least one quantile level")
        q, nl, nu = next(iter(self.levels.values()))
        return q + nl + nu

    def get(self, level: float):
        """``(q, nu_L, nu_U)`` at a fitted quantile ``level``."""
        level = check_in_range(level, "level", 0.0, 1.0, low_open=True, high_open=True)
        for k, v in self.levels.items():
            if abs(k - level) < 1e-12:
                return v
        raise InputError("level", f"{level:g} was not fitted (fitted levels: "
                         f"{[round(float(k), 6) for k in self.levels]})",
                         "one of the fitted levels (fit the nuisances at quantile_level(gamma, direction))")

    def __repr__(self) -> str:
        return (f"CrossFitNuisances(n={self.n}, n_arms={self.n_arms}, "
                f"levels={[round(float(k), 6) for k in self.levels]}, n_clipped={self.n_clipped})")

    def summary(self) -> str:
        """One-paragraph description: sizes, levels, propensity range, clipping."""
        return (f"cross-fitted nuisances: n={self.n}, K={self.n_arms}, folds="
                f"{int(np.max(self.folds)) + 1 if self.folds is not None and self.folds.size else 'n/a'}, "
                f"quantile levels {[round(float(k), 4) for k in self.levels]}, propensity range "
                f"[{self.e.min():.3g}, {self.e.max():.3g}], {self.n_clipped} value(s) clipped")

    def to_dict(self) -> dict:
        """JSON-serialisable summary (sizes, levels, propensity range; not the arrays)."""
        return {"n": self.n, "n_arms": self.n_arms, "levels": [float(k) for k in self.levels],
                "n_folds": int(np.max(self.folds)) + 1 if self.folds is not None and self.folds.size else None,
                "n_clipped": int(self.n_clipped), "propensity_min": float(self.e.min()),
                "propensity_max": float(self.e.max())}


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


def _multi_output_ridge(model) -> bool:
    """Whether ``model`` is the basis preset's regression (spline basis + scikit-learn ``Ridge``), which fits
    several targets at once with exactly the per-target solutions."""
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import Pipeline

    if not isinstance(model, Pipeline) or len(model.steps) != 2:
        return False
    basis, last = model.steps[0][1], model.steps[1][1]
    return (type(basis) is AdaptiveSplineBasis and type(last) is Ridge
            and np.ndim(last.alpha) == 0 and last.solver in ("auto", "cholesky"))


def _ridge_fit_predict(B, W, Bte, alpha: float, fit_intercept: bool = True):
    """scikit-learn ``Ridge(alpha).fit(B, W).predict(Bte)`` (dense, Cholesky solver) without its per-call
    validation: centre B and W, solve :math:`(B_c^\top B_c + \alpha I) w = B_c^\top W_c` (B_c' B_c by
    BLAS syrk), intercept :math:`\bar W - \bar B^\top w`. The same equations as scikit-learn's, equal to
    rounding (checked against it in the tests)."""
    from scipy import linalg

    if fit_intercept:
        b0 = B.mean(axis=0)
        w0 = W.mean(axis=0)
        Bc = B - b0
        Wc = W - w0
    else:
        Bc, Wc = B, W
    A = Bc.T @ Bc
    A.flat[::A.shape[0] + 1] += alpha
    coef = linalg.solve(A, Bc.T @ Wc, assume_a="pos", overwrite_a=True)
    pred = Bte @ coef
    if fit_intercept:
        pred += w0 - b0 @ coef
    return pred


def _basis_preset_pair(qm, rm) -> bool:
    """Whether the quantile model ``qm`` is the basis preset's (spline basis + :class:`SmoothedQuantileRegressor`)
    and the regression ``rm`` its spline + ``Ridge`` on an identically configured basis: then one design with an
    intercept column and one Gram matrix serve both (see :func:`_fit_arm_levels_basis`)."""
    from sklearn.pipeline import Pipeline

    if not (_multi_output_ridge(rm) and rm.steps[1][1].fit_intercept and isinstance(qm, Pipeline)
            and len(qm.steps) == 2):
        return False
    qb, qr = qm.steps[0][1], qm.steps[1][1]
    return (type(qb) is AdaptiveSplineBasis and type(qr) is SmoothedQuantileRegressor
            and qb.get_params() == rm.steps[0][1].get_params())


#: largest Gram matrix (entries) that cross-fitted nuisances keep for a later ``reuse`` call: p + 1 <= 1000
_GRAM_KEEP_MAX = 1_000_000


def _ridge_from_gram(G, Z, W, Zte, alpha: float):
    """``_ridge_fit_predict(Z[:, 1:], W, Zte[:, 1:], alpha)`` from the Gram matrix ``G = Z.T @ Z`` of a design
    whose first column is ones: the centred Gram is :math:`B^\top B - n\bar b\bar b^\top` (no centred copy of
    the design, no second syrk) and :math:`B_c^\top W_c = B^\top W_c`. The same equations, equal to rounding."""
    from scipy import linalg

    n = Z.shape[0]
    s = G[0, 1:]
    b0 = s / n
    w0 = W.mean(axis=0)
    A = G[1:, 1:] - np.outer(b0, s)
    A.flat[::A.shape[0] + 1] += alpha
    rhs = Z.T @ (W - w0)
    coef = linalg.solve(A, rhs[1:], assume_a="pos", overwrite_a=True)
    pred = Zte[:, 1:] @ coef
    pred += w0 - b0 @ coef
    return pred


def _fit_arm_levels_basis(qm, rm, levels, Xa, Ya, Xte, te, a, out, grams=None):
    """:func:`_fit_arm_levels` for the basis preset: the arm's design ``Z = [1 | B]`` and test design are
    computed once, and the Gram ``Z.T @ Z`` serves the quantile Newton's start at every level and the ridge of
    the masked means (``grams``, a dict, keeps it and the fitted basis for a later call on the same fold and
    arm). The quantile fits
    are :class:`SmoothedQuantileRegressor`'s Newton on the same design, so the numbers are its own."""
    params = qm.steps[0][1].get_params()
    kept = None if grams is None else grams.get(("basis", a))
    if kept is not None and kept[0] == params:        # the same basis fitted on the same rows earlier
        basis = kept[1]
    else:
        basis = clone(qm.steps[0][1])._fit(Xa)
        if grams is not None:
            grams[("basis", a)] = (params, basis)
    Z = basis._transform(Xa, lead=1)
    Zte = basis._transform(Xte, lead=1)
    G = None if grams is None else grams.get(a)
    if G is None or G.shape[0] != Z.shape[1]:
        G = Z.T @ Z                                   # BLAS syrk, once per arm and fold
        if grams is not None and G.size <= _GRAM_KEEP_MAX:
            grams[a] = G
    sq = qm.steps[1][1]
    sq._validate_params()
    alpha = float(rm.steps[1][1].alpha)
    for lv in levels:
        beta, _ = _sqr_newton(Z, Ya, float(lv), sq.alpha, sq.bandwidth, sq.max_iter, gram=G)
        coef, b0 = beta[1:], float(beta[0])
        q_te = Zte[:, 1:] @ coef + b0                 # SmoothedQuantileRegressor.predict's formula
        q_tr = Z[:, 1:] @ coef + b0
        below = Ya <= q_tr
        W = np.empty((Ya.shape[0], 2))
        np.subtract(Ya, q_tr, out=W[:, 0])
        W[:, 1] = W[:, 0]
        W[below, 1] = 0.0
        W[~below, 0] = 0.0
        both = _ridge_from_gram(G, Z, W, Zte, alpha)
        q, nl, nu = out[lv]
        q[te, a] = q_te
        nl[te, a] = np.minimum(both[:, 0], 0.0)
        nu[te, a] = np.maximum(both[:, 1], 0.0)


def _fit_arm_levels(nm, levels, seed, Xa, Ya, Xte, te, a, out, grams=None):
    """The quantile and masked-mean nuisances of one arm in one fold, at every level, written into ``out``."""
    if levels and Xa.shape[0] >= 5:
        qm, rm = nm.make("quantile", level=levels[0], seed=seed), nm.make("regression", seed=seed)
        if _basis_preset_pair(qm, rm):
            return _fit_arm_levels_basis(qm, rm, levels, Xa, Ya, Xte, te, a, out, grams)
    for lv in levels:
        qm = nm.make("quantile", level=lv, seed=seed)
        q_te, q_tr = _fit_predict_arm(qm, Xa, Ya, Xte, lambda y, lv=lv: np.quantile(y, lv))
        below = Ya <= q_tr
        WL = np.where(below, Ya - q_tr, 0.0)
        WU = np.where(below, 0.0, Ya - q_tr)
        rm = nm.make("regression", seed=seed)
        if Xa.shape[0] >= 5 and _multi_output_ridge(rm):
            # both masked means in one ridge fit with a two-column target: one Gram matrix and one
            # Cholesky factorisation serve both columns (each column's solution is the single-target one)
            basis = rm.steps[0][1].fit(Xa)               # the arm's shared basis and designs (memo hits)
            both = _ridge_fit_predict(basis.transform(Xa), np.column_stack([WL, WU]), basis.transform(Xte),
                                      float(rm.steps[1][1].alpha), rm.steps[1][1].fit_intercept)
            nl_te, nu_te = both[:, 0], both[:, 1]
        else:
            nl_te, _ = _fit_predict_arm(rm, Xa, WL, Xte, np.mean)
            nu_te, _ = _fit_predict_arm(nm.make("regression", seed=seed), Xa, WU, Xte, np.mean)
        q, nl, nu = out[lv]
        q[te, a] = q_te
        # masked means have known signs: nu_L <= 0 <= nu_U
        nl[te, a] = np.minimum(nl_te, 0.0)
        nu[te, a] = np.maximum(nu_te, 0.0)


def _fingerprint(X, A, Y, K, nm, clip, max_frac, propensity) -> str:
    """Digest of everything but the levels that determines cross-fitted nuisances (given folds and seed)."""
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    for arr in (X, A, Y) + (() if propensity is None else (propensity,)):
        a = np.ascontiguousarray(arr)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.view(np.uint8).reshape(-1))
    h.update(repr((int(K), repr(nm), float(clip), float(max_frac), propensity is None)).encode())
    return h.hexdigest()


def cross_fit_nuisances(X, A, Y, n_arms: int, levels, cv: int = 5, nuisance=None, rng=None,
                        propensity_clip: float = 0.01, max_clipped_fraction: float = 0.2,
                        propensity=None, reuse: CrossFitNuisances | None = None) -> CrossFitNuisances:
    """Fit the nuisances of the sharp bounds with ``cv``-fold cross-fitting.

    For each fold, the models are fitted on the other folds and evaluated on it (out-of-fold), per arm:
    the propensity :math:`e_a(x)`, and for every quantile level :math:`\\alpha` the conditional quantile
    :math:`q_\\alpha(x,a)` and the quantile-centred masked means
    :math:`\\nu_L = E[(Y-q)1\\{Y\\le q\\}\\mid x,a] \\le 0 \\le \\nu_U = E[(Y-q)1\\{Y>q\\}\\mid x,a]`.

    Parameters
    ----------
    X : array (n, d)
        Covariates (2-D; use ``X.reshape(-1, 1)`` for one covariate).
    A : array (n,) of int
        Arm received, in 0..n_arms-1.
    Y : array (n,)
        Outcomes, on the loss scale.
    n_arms : int >= 2
        Number of arms K (at least ``max(A) + 1``).
    levels : list of float in (0, 1)
        Quantile levels at which to fit the outcome nuisances: ``quantile_level(gamma, "upper")`` and/or
        ``quantile_level(gamma, "lower")``; an empty list fits the propensity only.
    cv : int >= 2
        Number of cross-fitting folds (stratified by arm); every arm needs at least ``cv`` units.
    nuisance : str, dict or NuisanceModels, optional
        Which models to use (see :class:`NuisanceModels`; default the ``"basis"`` preset).
    rng : None, int or numpy Generator
        Seed of the folds and of stochastic models.
    propensity_clip : float in (0, 0.5)
        Propensities are clipped to ``[clip, 1 - clip]`` and renormalised (with a warning), which bounds the
        inverse-propensity weights by ``1 / clip``.
    max_clipped_fraction : float in [0, 1]
        If more than this fraction of the units have some arm's propensity below ``propensity_clip``,
        overlap fails and an :class:`InputError` is raised rather than returning unstable bounds.
    propensity : array (n, K), optional
        Known propensities (a randomised trial): rows of probabilities; the propensity model is skipped.
    reuse : CrossFitNuisances, optional
        Nuisances fitted earlier by this function on the same ``X, A, Y`` with the same models and settings
        (e.g. ``SharpPolicyLearner.nuisances_``): their folds, model seed and propensities are kept, levels
        they already hold are copied, and only the missing levels are fitted, with exactly the same numbers
        as a fresh call on those folds would give. ``cv`` and ``rng`` are then ignored. Nuisances fitted on
        other data or settings raise :class:`InputError`.

    Returns
    -------
    CrossFitNuisances

    Examples
    --------
    >>> from iclr26sci.causal import cross_fit_nuisances, quantile_level, simulate_v1
    >>> data, _ = simulate_v1(300, 2.0, rng=0)
    >>> nuis = cross_fit_nuisances(data.X, data.A, data.Y, 2, [quantile_level(2.0)], cv=2, rng=0)
    >>> nuis
    CrossFitNuisances(n=300, n_arms=2, levels=[0.666667], n_clipped=0)
    >>> q, nu_L, nu_U = nuis.get(quantile_level(2.0))
    >>> bool((nu_L <= 0).all() and (nu_U >= 0).all())
    True
    """
    nm = NuisanceModels.coerce(nuisance)
    X = check_X(X, "X", min_rows=2)
    n = X.shape[0]
    A = check_A(A, "A", n)
    Y = check_Y(Y, "Y", n)
    K = check_positive_int(n_arms, "n_arms", minimum=2)
    if A.max() >= K:
        raise InputError("n_arms", f"is {K} but A has label {int(A.max())}", f"n_arms >= {int(A.max()) + 1}")
    levels = check_levels(levels)
    cv = check_cv(cv)
    propensity_clip = check_clip(propensity_clip)
    max_clipped_fraction = check_in_range(max_clipped_fraction, "max_clipped_fraction", 0.0, 1.0)
    propensity = check_propensity(propensity, n, K)
    counts = np.bincount(A, minlength=K)
    if counts.min() == 0:
        raise InputError("n_arms", f"is {K} but arm(s) {np.flatnonzero(counts == 0).tolist()} never occur in A "
                         f"(counts {counts.tolist()})", "n_arms equal to the number of arms observed in A")
    if propensity is None and counts.min() < cv:
        raise InputError("cv", f"is {cv} but arm(s) {np.flatnonzero(counts < cv).tolist()} have only "
                         f"{counts.min()} unit(s) (counts {counts.tolist()})",
                         "cv at most the smallest arm count, so every arm is observed in every fold")
    fp = _fingerprint(X, A, Y, K, nm, propensity_clip, max_clipped_fraction, propensity)
    done = {}
    if reuse is not None:
        if not isinstance(reuse, CrossFitNuisances):
            raise InputError("reuse", f"got {type(reuse).__name__}", "a CrossFitNuisances from cross_fit_nuisances")
        if reuse.fingerprint != fp or reuse.folds is None or reuse.seed is None:
            raise InputError("reuse", "was fitted on other data, models or settings (or not by cross_fit_nuisances)",
                             "nuisances from cross_fit_nuisances on the same X, A, Y, n_arms, nuisance and clipping")
        folds, seed = reuse.folds, int(reuse.seed)
        cv = int(folds.max()) + 1
        for lv in levels:
            for k, v in reuse.levels.items():
                if abs(k - lv) < 1e-12:
                    done[lv] = v
        if len(done) == len(levels):          # nothing to fit
            return CrossFitNuisances(e=reuse.e, levels={lv: done[lv] for lv in levels}, folds=folds,
                                     n_clipped=reuse.n_clipped, seed=seed, fingerprint=fp)
    else:
        gen = as_generator(rng)
        folds = make_folds(A, cv, gen)
        seed = int(gen.integers(2**31 - 1))
    e = np.zeros((n, K))
    todo = [lv for lv in levels if lv not in done]
    # Gram matrices and fitted spline bases of the basis preset's outcome designs per (fold, arm): a later
    # ``reuse`` call on the same folds fits its levels on the same designs, so it takes them instead of
    # recomputing (small: (p+1)^2 numbers and the knots each)
    grams = getattr(reuse, "_grams", None)
    grams = {} if grams is None else grams
    out = {lv: (np.zeros((n, K)), np.zeros((n, K)), np.zeros((n, K))) for lv in todo}
    for f in progress(range(cv), desc="cross-fitting nuisances", total=cv):
        te = folds == f
        tr = ~te
        Xtr, Atr, Ytr, Xte = X[tr], A[tr], Y[tr], X[te]
        if propensity is None and reuse is None:
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
            with _shared_basis():            # one spline basis per arm and fold, shared by its outcome models
                _fit_arm_levels(nm, todo, seed, Xa, Ya, Xte, te, a, out, grams.setdefault(f, {}))
    out = {lv: done[lv] if lv in done else out[lv] for lv in levels}
    if reuse is not None:                     # propensities (already checked and clipped) from the earlier fit
        res = CrossFitNuisances(e=reuse.e, levels=out, folds=folds, n_clipped=reuse.n_clipped, seed=seed,
                                fingerprint=fp)
        res._grams = grams
        return res
    if propensity is not None:
        e = propensity.astype(float, copy=True)
    low_any = e.min(axis=1) < propensity_clip
    n_clip = int(np.sum((e < propensity_clip) | (e > 1 - propensity_clip)))
    if np.mean(low_any) > max_clipped_fraction:
        who = "propensity" if propensity is not None else "data"
        raise InputError(who, f"overlap fails: {np.mean(low_any):.0%} of the units have "
                         f"{'a given' if propensity is not None else 'an estimated'} propensity below "
                         f"{propensity_clip} for some arm (more than max_clipped_fraction={max_clipped_fraction})",
                         "treatment arms that overlap in covariates (or a smaller propensity_clip)")
    if n_clip:
        warnings.warn(f"{n_clip} propensity values outside [{propensity_clip}, {1 - propensity_clip}] "
                      "were clipped", RuntimeWarning, stacklevel=3)
        e = np.clip(e, propensity_clip, 1 - propensity_clip)
        e = e / e.sum(axis=1, keepdims=True)
    res = CrossFitNuisances(e=e, levels=out, folds=folds, n_clipped=n_clip, seed=seed, fingerprint=fp)
    res._grams = grams
    return res
