"""Public API: input errors, determinism, outcome flips, learner, certificates, confounding induction."""
import warnings

import numpy as np
import pytest

from iclr26sci.core import InputError, ObservationalData
from iclr26sci.causal import (
    KallusZhouLearner, NuisanceModels, SharpPolicyLearner, TreePolicy, breakdown_gamma, induce_confounding,
    policy_improvement, rct_policy_value, sensitivity_curve, sharp_value_bounds, simulate_paper_dgp, simulate_v1,
    split_rct, v1_true_value, zsb_apo_bound)


@pytest.fixture(scope="module")
def v1():
    data, truth = simulate_v1(1500, 2.0, rng=0)
    return data


def _thr(X):
    return (X[:, 0] < 0).astype(int)


def test_bounds_bracket_and_deterministic(v1):
    b1 = sharp_value_bounds(v1, _thr, 2.0, cv=2, rng=3)
    b2 = sharp_value_bounds(v1, _thr, 2.0, cv=2, rng=3)
    assert b1.upper.value == b2.upper.value and b1.lower.value == b2.lower.value
    assert b1.lower.value < b1.upper.value
    assert b1.upper.stderr > 0 and b1.upper.citation
    # close to the truth (within 4 SE)
    assert abs(b1.upper.value - v1_true_value(_thr, 2.0)) < 4 * b1.upper.stderr
    assert abs(b1.lower.value - v1_true_value(_thr, 2.0, "lower")) < 4 * b1.lower.stderr


def test_reward_flips_signs(v1):
    loss = sharp_value_bounds(v1, _thr, 2.0, cv=2, rng=1)
    neg = ObservationalData(v1.X, v1.A, -v1.Y)
    rew = sharp_value_bounds(neg, _thr, 2.0, cv=2, rng=1, outcome="reward")
    assert rew.upper.value == pytest.approx(-loss.lower.value, abs=1e-8)
    assert rew.lower.value == pytest.approx(-loss.upper.value, abs=1e-8)


def test_gamma_one_bounds_coincide_with_dr(v1):
    b = sharp_value_bounds(v1, _thr, 1.0, cv=2, rng=0)
    d = sharp_value_bounds(v1, _thr, 1.0, cv=2, rng=0, estimator="dr")
    assert b.upper.value == pytest.approx(b.lower.value, abs=1e-10)
    assert b.upper.value == pytest.approx(d.upper.value, abs=1e-10)


def test_multi_arm_and_tuple_input():
    rng = np.random.default_rng(0)
    n, K = 1200, 3
    X = rng.normal(size=(n, 2))
    A = rng.integers(0, K, n)
    Y = X[:, 0] * (A - 1) + rng.normal(size=n)
    b = sharp_value_bounds((X, A, Y), "uniform", 2.0, cv=2, rng=0)
    assert b.lower.value < b.upper.value
    L = SharpPolicyLearner(2.0, cv=2, rng=0).fit((X, A, Y))
    P = L.predict_proba(X)
    assert P.shape == (n, K) and np.allclose(P.sum(1), 1)
    Lt = SharpPolicyLearner(2.0, cv=2, rng=0, policy_class="tree").fit((X, A, Y))
    assert set(np.unique(Lt.predict(X))) <= {0, 1, 2}


def test_learner_beats_uniform_and_deterministic_option(v1):
    L = SharpPolicyLearner(2.0, cv=2, rng=0).fit(v1)
    assert v1_true_value(L.predict_proba, 2.0) < v1_true_value("uniform", 2.0) - 0.3
    Ld = SharpPolicyLearner(2.0, cv=2, rng=0, deterministic=True).fit(v1)
    P = Ld.predict_proba(v1.X)
    assert set(np.unique(P)) <= {0.0, 1.0}
    L2 = SharpPolicyLearner(2.0, cv=2, rng=0).fit(v1)
    np.testing.assert_array_equal(L.predict_proba(v1.X), L2.predict_proba(v1.X))
    assert L.value_bound_.value < 0
    Lp = SharpPolicyLearner(2.0, cv=2, rng=0, estimator="plugin").fit(v1)
    assert Lp.scores_.shape == (v1.n, 2)


def test_improvement_tight_never_above_paper(v1):
    L = SharpPolicyLearner(2.0, cv=2, rng=0).fit(v1)
    t = policy_improvement(v1, L, None, 2.0, cv=2, rng=5)
    p = policy_improvement(v1, L, None, 2.0, cv=2, rng=5, form="paper")
    assert t.bound.value <= p.bound.value
    # population: with the exact bounds the tight form is never above the paper's, unit by unit
    from iclr26sci.causal import v1_capo_bound
    xs = np.linspace(-2, 2, 1001)
    P = L.predict_proba(xs[:, None])
    D = P - 0.5
    Qp, Qm = v1_capo_bound(xs, 2.0, "upper"), v1_capo_bound(xs, 2.0, "lower")
    tight = np.sum(np.clip(D, 0, None) * Qp - np.clip(-D, 0, None) * Qm, axis=1)
    paper = np.sum(P * Qp - 0.5 * Qm, axis=1)
    assert np.all(tight <= paper + 1e-12)
    same = policy_improvement(v1, "uniform", "uniform", 2.0, cv=2, rng=5)
    assert same.bound.value == pytest.approx(0.0, abs=1e-12)
    assert t.certified and "certified" in t.summary()


def test_sensitivity_curve_and_breakdown(v1):
    L = SharpPolicyLearner(2.0, cv=2, rng=0).fit(v1)
    curve = sensitivity_curve(v1, L, [1, 2, 4], cv=2, rng=0, baseline="uniform")
    assert list(curve.columns[:5]) == ["gamma", "lower", "lower_se", "upper", "upper_se"]
    assert np.all(np.diff(curve["upper"]) > 0) and np.all(np.diff(curve["lower"]) < 0)
    bd = breakdown_gamma(v1, L, "uniform", cv=2, rng=0, gamma_max=20, tol=0.1)
    assert bd.certified_at_1 and 1.0 < bd.gamma <= 20


def test_baselines_run(v1):
    kz = KallusZhouLearner(2.0, cv=2, rng=0, n_iter=100).fit(v1)
    assert kz.predict_proba(v1.X).shape == (v1.n, 2)
    assert kz.regret_bound_ < 0                           # a robust improvement over uniform exists on V1
    assert v1_true_value(kz.predict_proba, 2.0) < v1_true_value("uniform", 2.0)
    z = zsb_apo_bound(v1, 1, 2.0, cv=2, rng=0)
    s = sharp_value_bounds(v1, 1, 2.0, cv=2, rng=0)
    assert s.upper.value <= z.value + 3 * z.stderr


def test_hgb_and_custom_nuisances(v1):
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.linear_model import LogisticRegression, Ridge

    b = sharp_value_bounds(v1, _thr, 2.0, cv=2, rng=0, nuisance="hgb")
    assert np.isfinite(b.upper.value)
    nm = NuisanceModels(propensity=LogisticRegression(), quantile=GradientBoostingRegressor(loss="quantile",
                        n_estimators=30), regression=Ridge())
    b2 = sharp_value_bounds(v1, _thr, 2.0, cv=2, rng=0, nuisance=nm)
    assert abs(b2.upper.value - b.upper.value) < 0.5


def test_induced_confounding_and_rct_value():
    rng = np.random.default_rng(0)
    n = 4000
    X = rng.normal(size=(n, 2))
    A = rng.integers(0, 2, n)
    Y = X[:, 0] + A * (X[:, 1] > 0) + rng.normal(size=n)
    d = ObservationalData(X, A, Y, feature_names=["u", "x"])
    tr, te = split_rct(d, 0.5, rng=0)
    c = induce_confounding(tr, "u", 0.6, rng=0)
    assert c.feature_names == ["x"] and c.n < tr.n
    # confounding: among kept arm-1 rows, u is lower than among arm-0 rows
    u = tr.X[c.meta["kept_index"], 0]
    assert u[c.A == 0].mean() < u[c.A == 1].mean() - 0.3
    v = rct_policy_value(te, lambda X: (X[:, 0] > 0).astype(int), drop_columns=["u"])
    assert abs(v.value - np.mean(te.X[:, 0]) - 0.5) < 4 * v.stderr + 0.05


def test_paper_dgp_shapes():
    data, tr = simulate_paper_dgp(500, 2.0, rng=0)
    assert data.n == 500 and tr["Y_potential"].shape == (500, 2)


# -------------------------------------------------------------------------------- input errors
def test_input_errors(v1):
    X, A, Y = v1.X, v1.A, v1.Y
    with pytest.raises(InputError, match="gamma"):
        sharp_value_bounds(v1, _thr, 0.5)
    with pytest.raises(InputError, match="outcome"):
        sharp_value_bounds(v1, _thr, 2.0, outcome="utility")
    with pytest.raises(InputError, match="A"):
        sharp_value_bounds((X, np.zeros(len(A), int), Y), _thr, 2.0)          # a single arm
    with pytest.raises(InputError, match="A"):
        sharp_value_bounds((X, np.where(A == 1, 2, 0), Y), _thr, 2.0)         # arm 1 has no observations
    with pytest.raises(InputError, match="A"):
        sharp_value_bounds((X, A + 0.5, Y), _thr, 2.0)                        # non-integer labels
    with pytest.raises(InputError, match="A"):
        sharp_value_bounds((X, np.where(A == 1, np.nan, 0.0), Y), _thr, 2.0)  # missing labels
    Yn = Y.copy()
    Yn[3] = np.nan
    with pytest.raises(InputError, match="Y"):
        sharp_value_bounds((X, A, Yn), _thr, 2.0)
    with pytest.raises(InputError, match="X"):
        sharp_value_bounds((X[:-1], A, Y), _thr, 2.0)
    with pytest.raises(InputError, match="policy"):
        sharp_value_bounds(v1, lambda Z: np.full((len(Z), 2), 0.7), 2.0)      # rows sum to 1.4
    with pytest.raises(InputError, match="policy"):
        sharp_value_bounds(v1, 5, 2.0)
    with pytest.raises(InputError, match="cv"):
        sharp_value_bounds(v1, _thr, 2.0, cv=0)
    with pytest.raises(InputError, match="estimator"):
        sharp_value_bounds(v1, _thr, 2.0, estimator="magic")
    with pytest.raises(InputError, match="quantile_term_sign"):
        sharp_value_bounds(v1, _thr, 2.0, quantile_term_sign=0)
    with pytest.raises(InputError, match="nuisance"):
        sharp_value_bounds(v1, _thr, 2.0, nuisance="forest")
    with pytest.raises(InputError, match="data"):
        sharp_value_bounds([1, 2], _thr, 2.0)
    with pytest.raises(InputError, match="policy_class"):
        SharpPolicyLearner(policy_class="svm").fit(v1)
    with pytest.raises(InputError, match="gamma"):
        SharpPolicyLearner(gamma=0.9).fit(v1)
    from iclr26sci.core import NotFittedError

    with pytest.raises(NotFittedError, match="SharpPolicyLearner"):
        SharpPolicyLearner().predict(X)
    with pytest.raises(InputError, match="form"):
        policy_improvement(v1, _thr, None, 2.0, form="loose")
    with pytest.raises(InputError, match="baseline"):
        policy_improvement(v1, _thr, np.full((v1.n, 2), 0.2), 2.0)
    with pytest.raises(InputError, match="gammas"):
        sensitivity_curve(v1, _thr, [0.5, 2])
    with pytest.raises(InputError, match="covariate"):
        induce_confounding(v1, "nope")


def test_overlap_failure_and_clipping():
    rng = np.random.default_rng(0)
    n = 2000
    X = rng.normal(size=(n, 1))
    A = (X[:, 0] > 0).astype(int)            # deterministic treatment: no overlap
    A[:10] = 1 - A[:10]
    Y = rng.normal(size=n)
    with pytest.raises(InputError, match="overlap"):
        sharp_value_bounds((X, A, Y), "uniform", 2.0, cv=2, rng=0, nuisance="linear")
    A2 = (rng.uniform(size=n) < 1 / (1 + np.exp(-2 * X[:, 0]))).astype(int)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        sharp_value_bounds((X, A2, Y), "uniform", 2.0, cv=2, rng=0, nuisance="linear", propensity_clip=0.05)
    assert any("clipped" in str(x.message) for x in w)


def test_tree_policy_min_leaf_respected():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    G = rng.normal(size=(300, 2))
    t = TreePolicy(depth=3, min_leaf=40).fit(X, G)
    assert t.predict_proba(X).sum() == 300


def test_mlp_policy_and_nuisances_small():
    from iclr26sci.causal import MLPClassifier64, MLPRegressor64

    data, _ = simulate_v1(600, 2.0, rng=1)
    L = SharpPolicyLearner(2.0, cv=2, rng=0, policy_class="mlp",
                           policy_params={"max_epochs": 15, "batch_size": 128}).fit(data)
    P = L.predict_proba(data.X)
    assert P.shape == (600, 2) and np.allclose(P.sum(1), 1)
    nm = NuisanceModels(propensity=MLPClassifier64(max_epochs=10, batch_size=128),
                        quantile=lambda lv: MLPRegressor64(loss="pinball", quantile=lv, max_epochs=10, batch_size=128),
                        regression=MLPRegressor64(max_epochs=10, batch_size=128))
    b = sharp_value_bounds(data, L, 2.0, cv=2, rng=0, nuisance=nm)
    assert b.lower.value < b.upper.value
