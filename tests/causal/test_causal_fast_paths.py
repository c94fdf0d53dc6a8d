"""The causal pipeline's fast internals equal the straightforward computations they replace.

Each fast path (column-wise row reductions, the in-place spline design, the lean two-target ridge, the
syrk Hessian of the smoothed quantile Newton, the distinct-value shortcut) is checked against the plain
numpy / scikit-learn / scipy computation on the same input.
"""
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import norm

from iclr26sci.causal import SmoothedQuantileRegressor, cross_fit_nuisances, simulate_v1
from iclr26sci.causal._nuisance import (AdaptiveSplineBasis, _more_distinct, _multi_output_ridge, _preset,
                                        _ridge_fit_predict, _spline_design)
from iclr26sci.causal._policy import _rowmax, _rowsum, softmax


@pytest.mark.parametrize("K", [2, 3, 5, 7, 8, 11])
def test_row_reductions_and_softmax_are_bitwise_numpy(K):
    S = np.random.default_rng(K).normal(scale=5.0, size=(2000, K))
    assert np.array_equal(_rowsum(S), np.sum(S, axis=1))
    assert np.array_equal(_rowmax(S), np.max(S, axis=1))
    ref = np.exp(S - np.max(S, axis=1, keepdims=True))
    ref /= np.sum(ref, axis=1, keepdims=True)
    assert np.array_equal(softmax(S), ref)


def test_row_max_propagates_nan():
    S = np.array([[0.0, np.nan], [1.0, 2.0]])
    assert np.isnan(_rowmax(S)[0]) and _rowmax(S)[1] == 2.0


@pytest.mark.parametrize("extrapolation", ["constant", "linear"])
def test_in_place_design_equals_stacked_sklearn_pieces(extrapolation):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=3000), rng.integers(0, 2, 3000), rng.uniform(-1, 1, 3000)])
    Xt = np.column_stack([rng.normal(scale=1.5, size=500), rng.integers(0, 2, 500), rng.uniform(-2, 2, 500)])
    b = AdaptiveSplineBasis(extrapolation=extrapolation).fit(X)
    assert b.linear_ == [1] and b.smooth_ == [0, 2]
    lin = (Xt[:, b.linear_] - b.mean_[b.linear_]) / b.sd_[b.linear_]
    sm = (Xt[:, b.smooth_] - b.mean_[b.smooth_]) / b.sd_[b.smooth_]
    ref = np.hstack([lin, b.spl_.transform(Xt[:, b.smooth_]), sm])
    out = b.transform(Xt)
    assert out.shape == ref.shape and out.flags.c_contiguous
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-14)
    # the standalone design (no out=) is the same block
    np.testing.assert_array_equal(_spline_design(b.spl_, Xt[:, b.smooth_]), out[:, 1:-2])


def test_more_distinct_equals_unique_count():
    rng = np.random.default_rng(1)
    cols = [rng.normal(size=500), rng.integers(0, 3, 500).astype(float), np.r_[np.zeros(400), rng.normal(size=100)],
            np.ones(500), np.arange(10.0)]
    for x in cols:
        for m in (1, 2, 3, 5, 9, 12):
            assert _more_distinct(x, m) == (np.unique(x).size > m)


def test_lean_ridge_equals_sklearn_ridge():
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(2)
    B = rng.random((800, 12))
    W = rng.normal(size=(800, 2))
    Bte = rng.random((100, 12))
    for alpha, fi in [(1.0, True), (1e-3, True), (2.0, False)]:
        ref = Ridge(alpha=alpha, fit_intercept=fi).fit(B, W).predict(Bte)
        np.testing.assert_allclose(_ridge_fit_predict(B, W, Bte, alpha, fi), ref, rtol=0, atol=1e-12)
    assert _multi_output_ridge(_preset("basis", "regression"))
    assert not _multi_output_ridge(_preset("linear", "regression"))
    assert not _multi_output_ridge(_preset("hgb", "regression"))


def test_two_target_ridge_equals_two_single_fits_in_cross_fitting():
    """cross_fit_nuisances with the default (basis) regression equals the same run with each masked mean fitted
    by its own scikit-learn pipeline (a regression model the fast path does not recognise)."""
    from sklearn.base import BaseEstimator, RegressorMixin, clone

    class Wrapped(RegressorMixin, BaseEstimator):
        def __init__(self):
            pass

        def fit(self, X, y):
            self.m_ = clone(_preset("basis", "regression")).fit(X, y)
            return self

        def predict(self, X):
            return self.m_.predict(X)

    data, _ = simulate_v1(1500, 2.0, d=3, rng=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = cross_fit_nuisances(data.X, data.A, data.Y, 2, [0.7], cv=3, rng=0)
        slow = cross_fit_nuisances(data.X, data.A, data.Y, 2, [0.7], cv=3, rng=0,
                                   nuisance={"regression": Wrapped()})
    for a, b in zip(fast.get(0.7), slow.get(0.7)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_smoothed_quantile_newton_reaches_the_smoothed_objective_minimum():
    rng = np.random.default_rng(4)
    n = 600
    X = rng.normal(size=(n, 3))
    y = X @ [1.0, -0.5, 0.2] + rng.standard_t(4, size=n)
    m = SmoothedQuantileRegressor(quantile=0.8, bandwidth=0.3, alpha=1e-4).fit(X, y)
    Z = np.column_stack([np.ones(n), X])
    pen = np.r_[0.0, np.full(3, 1e-4)]
    b_ols = np.linalg.solve(Z.T @ Z / n + np.diag(pen) + 1e-10 * np.eye(4), Z.T @ y / n)   # the fit's start
    r = y - Z @ b_ols
    h = 0.3 * 1.4826 * np.median(np.abs(r - np.median(r)))     # its bandwidth: 0.3 x the residuals' MAD scale

    def obj(b):          # the convolution-smoothed pinball loss with scipy.stats.norm (the reference formula)
        u = y - Z @ b
        return np.mean(u * (0.8 - norm.cdf(-u / h)) + h * norm.pdf(u / h)) + 0.5 * np.sum(pen * b * b)

    b_fit = np.r_[m.intercept_, m.coef_]
    ref = minimize(obj, b_fit + 0.05, method="BFGS", options={"gtol": 1e-12})
    assert obj(b_fit) <= ref.fun + 1e-12
    np.testing.assert_allclose(b_fit, ref.x, atol=1e-5)


def test_quantile_hessian_without_negligible_rows_equals_the_full_hessian(monkeypatch):
    # heavy tails and a small bandwidth: most rows have a kernel weight below 1e-16 phi(0) and are left out
    import iclr26sci.causal._nuisance as nz

    rng = np.random.default_rng(5)
    n = 3000
    X = rng.normal(size=(n, 4))
    y = X @ [1.0, -0.5, 0.2, 0.0] + rng.standard_t(2, size=n)
    fast = SmoothedQuantileRegressor(quantile=0.8, bandwidth=0.05, alpha=1e-4).fit(X, y)
    monkeypatch.setattr(nz, "_HESS_Z2", np.inf)                     # every row in the Hessian
    full = SmoothedQuantileRegressor(quantile=0.8, bandwidth=0.05, alpha=1e-4).fit(X, y)
    assert fast.n_iter_ == full.n_iter_
    np.testing.assert_allclose(fast.coef_, full.coef_, rtol=0, atol=1e-12)
    assert abs(fast.intercept_ - full.intercept_) < 1e-12


def test_ridge_from_gram_equals_lean_ridge():
    from iclr26sci.causal._nuisance import _ridge_from_gram

    rng = np.random.default_rng(6)
    B = rng.uniform(size=(500, 7)) + 0.5
    Bte = rng.uniform(size=(40, 7)) + 0.5
    W = rng.normal(size=(500, 2))
    Z = np.column_stack([np.ones(500), B])
    Zte = np.column_stack([np.ones(40), Bte])
    np.testing.assert_allclose(_ridge_from_gram(Z.T @ Z, Z, W, Zte, 1.0), _ridge_fit_predict(B, W, Bte, 1.0),
                               rtol=0, atol=1e-12)


def test_basis_preset_shared_design_path_equals_the_pipelines(monkeypatch):
    # the basis preset's arm fits (one design with an intercept column, one Gram for the quantile start and the
    # ridge) against the generic path (scikit-learn pipelines: SmoothedQuantileRegressor.fit, the lean ridge)
    import iclr26sci.causal._nuisance as nz

    data, _ = simulate_v1(1500, 2.0, d=3, rng=3)
    levels = [0.3, 0.7]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = cross_fit_nuisances(data.X, data.A, data.Y, 2, levels, cv=3, rng=0)
        monkeypatch.setattr(nz, "_basis_preset_pair", lambda qm, rm: False)
        slow = cross_fit_nuisances(data.X, data.A, data.Y, 2, levels, cv=3, rng=0)
    for lv in levels:
        for a, b in zip(fast.get(lv), slow.get(lv)):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_reuse_with_kept_grams_equals_recomputed_grams():
    data, _ = simulate_v1(900, 2.0, d=2, rng=1)
    first = cross_fit_nuisances(data.X, data.A, data.Y, 2, [0.7], cv=3, rng=0)
    assert sum(len(g) for g in first._grams.values()) == 3 * 2 * 2  # a Gram and a basis per fold and arm
    kept = cross_fit_nuisances(data.X, data.A, data.Y, 2, [0.3], cv=3, reuse=first)
    first._grams = {}
    again = cross_fit_nuisances(data.X, data.A, data.Y, 2, [0.3], cv=3, reuse=first)
    for a, b in zip(kept.get(0.3), again.get(0.3)):
        np.testing.assert_array_equal(a, b)


def test_spline_design_nan_row_is_refused_not_scattered():
    # a NaN coordinate goes to SplineTransformer.transform with the out-of-range rows (which refuses it), never
    # into the scatter with a garbage index (out-of-range rows are checked against sklearn in test_causal_reuse)
    rng = np.random.default_rng(7)
    basis = AdaptiveSplineBasis(extrapolation="linear").fit(rng.uniform(-1, 1, size=(400, 2)))
    Xt = rng.uniform(-1, 1, size=(300, 2))
    Xt[5, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _spline_design(basis.spl_, Xt)
