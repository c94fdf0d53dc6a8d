"""Reusing cross-fitted nuisances (``reuse`` / ``nuisances=``): same numbers as a fresh fit on those folds."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special

from iclr26sci.causal import (SharpPolicyLearner, cross_fit_nuisances, quantile_level, sharp_value_bounds,
                              simulate_v1)
from iclr26sci.causal._policy import softmax
from iclr26sci.core import InputError


@pytest.fixture(scope="module")
def data():
    return simulate_v1(800, 4.0, d=2, rng=0)[0]


def test_reuse_fits_only_missing_levels_with_identical_numbers(data):
    up, lo = quantile_level(4.0, "upper"), quantile_level(4.0, "lower")
    first = cross_fit_nuisances(data.X, data.A, data.Y, 2, [up], cv=3, rng=7)
    both = cross_fit_nuisances(data.X, data.A, data.Y, 2, [up, lo], cv=3, rng=123, reuse=first)  # rng ignored
    fresh = cross_fit_nuisances(data.X, data.A, data.Y, 2, [up, lo], cv=3, rng=7)
    np.testing.assert_array_equal(both.folds, fresh.folds)
    np.testing.assert_array_equal(both.e, fresh.e)
    for lv in (up, lo):
        for a, b in zip(both.get(lv), fresh.get(lv)):
            np.testing.assert_array_equal(a, b)
    assert both.get(up)[0] is first.get(up)[0]          # copied, not refitted


def test_reuse_refuses_other_data_or_settings(data):
    up = quantile_level(4.0, "upper")
    first = cross_fit_nuisances(data.X, data.A, data.Y, 2, [up], cv=3, rng=0)
    with pytest.raises(InputError, match="reuse"):
        cross_fit_nuisances(data.X, data.A, data.Y + 1.0, 2, [up], cv=3, rng=0, reuse=first)
    with pytest.raises(InputError, match="reuse"):
        cross_fit_nuisances(data.X, data.A, data.Y, 2, [up], cv=3, rng=0, reuse=first, nuisance="linear")
    with pytest.raises(InputError, match="reuse"):
        cross_fit_nuisances(data.X, data.A, data.Y, 2, [up], cv=3, rng=0, reuse="not nuisances")


def test_bounds_with_the_learners_nuisances(data):
    learner = SharpPolicyLearner(4.0, cv=3, rng=0).fit(data)
    nu = learner.nuisances_
    b = sharp_value_bounds(data, learner, 4.0, cv=3, nuisances=nu)
    # the same as fitting both levels afresh on the learner's folds and seed
    both = cross_fit_nuisances(data.X, data.A, data.Y, 2, [quantile_level(4.0, "upper"),
                                                          quantile_level(4.0, "lower")], cv=3, reuse=nu)
    from iclr26sci.causal import score_matrix

    P = learner.predict_proba(data.X)
    up = np.mean(np.sum(P * score_matrix(both, data.Y, data.A, 4.0, "upper"), 1))
    assert b.upper.value == pytest.approx(up, abs=1e-12)
    assert b.lower.value <= b.upper.value
    # and within Monte-Carlo error (4 standard errors) of the bounds on freshly drawn folds
    b0 = sharp_value_bounds(data, learner, 4.0, cv=3, rng=0)
    assert abs(b.upper.value - b0.upper.value) < 4 * b0.upper.stderr


def test_policy_softmax_equals_scipy():
    S = np.random.default_rng(0).normal(size=(1000, 3)) * 30
    np.testing.assert_array_equal(softmax(S, axis=1), scipy.special.softmax(S, axis=1))


@pytest.mark.parametrize("extrapolation", ["constant", "linear"])
@pytest.mark.parametrize("n_knots", [3, 6, 10])
def test_fast_spline_design_equals_sklearn(extrapolation, n_knots):
    from sklearn.preprocessing import SplineTransformer

    from iclr26sci.causal._nuisance import _spline_design

    rng = np.random.default_rng(n_knots)
    Xtr = rng.uniform(-2, 2, (2000, 4))
    st = SplineTransformer(n_knots=n_knots, degree=3, knots="uniform", extrapolation=extrapolation,
                           include_bias=False).fit(Xtr)
    for X in (Xtr, rng.uniform(-2.5, 2.5, (500, 4)), np.vstack([Xtr.min(0), Xtr.max(0)])):
        np.testing.assert_allclose(_spline_design(st, X), st.transform(X), rtol=0, atol=1e-13)
