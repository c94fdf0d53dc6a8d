"""scikit-learn conventions of the causal estimators: BaseEstimator, clone, get/set_params, check_estimator.

Which of scikit-learn's estimator checks apply (see docs/causal.md, "scikit-learn conventions"):

* The nuisance models ``SmoothedQuantileRegressor``, ``MLPClassifier64`` and ``MLPRegressor64`` have the
  standard ``fit(X, y)`` contract: the full ``check_estimator`` suite runs on them, except the two checks in
  ``EXPECTED_FAILED`` (with the reason).
* The policy learners (``SoftmaxLinearPolicy``, ``TreePolicy``, ``MLPPolicy``, ``FixedPolicy``) take
  ``fit(X, G)`` with an (n, K) *score matrix* G, and ``SharpPolicyLearner`` / ``KallusZhouLearner`` take
  ``fit(data)`` with ``data = (X, A, Y)`` (and optional propensities): every check that calls ``fit(X, y)``
  with a 1-D target does not apply. The API checks that do not fit (no attributes set in ``__init__``,
  default-constructible parameters, ``get_params`` invariance, ``set_params``) run on them, and
  ``test_fit_contract`` checks the rest of the contract by hand (params unchanged by fit, fitted attributes end
  in ``_``, fit returns self, a clone is unfitted, a fixed seed gives the same fit).
"""
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.utils import estimator_checks as ec
from sklearn.utils.estimator_checks import parametrize_with_checks

from iclr26sci.core import NotFittedError
from iclr26sci.causal import (FixedPolicy, KallusZhouLearner, SharpPolicyLearner, SmoothedQuantileRegressor,
                              SoftmaxLinearPolicy, TreePolicy, simulate_v1)

_NOT_TYPEERROR = ("an object array with a non-numeric entry raises the library's InputError (a ValueError "
                  "naming the argument); scikit-learn expects a TypeError")
_NO_COLUMN_Y = ("a column-vector y of shape (n, 1) is refused with an InputError instead of being raveled with a "
                "DataConversionWarning: a 2-D target is ambiguous (multi-output) and bad input must fail loudly")
EXPECTED_FAILED = {"check_dtype_object": _NOT_TYPEERROR, "check_supervised_y_2d": _NO_COLUMN_Y}


def _nuisance_estimators():
    from iclr26sci.causal import MLPClassifier64, MLPRegressor64

    return [SmoothedQuantileRegressor(), MLPClassifier64(max_epochs=20), MLPRegressor64(max_epochs=60)]


@pytest.mark.filterwarnings("ignore")
@parametrize_with_checks(_nuisance_estimators(), expected_failed_checks=lambda est: EXPECTED_FAILED)
def test_check_estimator_nuisance_models(estimator, check):
    check(estimator)


API_CHECKS = ["check_no_attributes_set_in_init", "check_parameters_default_constructible",
              "check_get_params_invariance", "check_set_params"]


def _policy_estimators():
    from iclr26sci.causal import MLPPolicy

    return [SharpPolicyLearner(gamma=3.0, policy_class="tree", policy_params={"depth": 1}, cv=2),
            SoftmaxLinearPolicy(l2=1e-3), TreePolicy(depth=3), FixedPolicy(1, 2), KallusZhouLearner(gamma=2.0),
            MLPPolicy(hidden=(8,))]


@pytest.mark.parametrize("estimator", _policy_estimators(), ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("check_name", API_CHECKS)
def test_sklearn_api_checks_on_policy_learners(estimator, check_name):
    getattr(ec, check_name)(type(estimator).__name__, estimator)


def _all_estimators():
    return _nuisance_estimators() + _policy_estimators()


@pytest.mark.parametrize("estimator", _all_estimators(), ids=lambda e: type(e).__name__)
def test_clone_and_params(estimator):
    assert isinstance(estimator, BaseEstimator)
    c = clone(estimator)
    assert type(c) is type(estimator) and c is not estimator
    assert c.get_params() == estimator.get_params()
    assert len(repr(c)) < 200
    c.set_params(**estimator.get_params())


@pytest.fixture(scope="module")
def v1():
    return simulate_v1(400, 2.0, rng=0)[0]


def _fit(est, v1):
    if isinstance(est, (SharpPolicyLearner, KallusZhouLearner)):
        return est.fit(v1)
    rng = np.random.default_rng(0)
    G = np.column_stack([v1.X[:, 0], -v1.X[:, 0]]) + 0.1 * rng.normal(size=(v1.n, 2))
    return est.fit(v1.X, G)


@pytest.mark.parametrize("make", [
    lambda: SharpPolicyLearner(gamma=2.0, cv=2, rng=0),
    lambda: SharpPolicyLearner(gamma=2.0, cv=2, policy_class="tree", rng=0),
    lambda: KallusZhouLearner(gamma=2.0, cv=2, n_iter=10, n_restarts=0, rng=0),
    lambda: SoftmaxLinearPolicy(rng=0),
    lambda: TreePolicy(depth=2),
    lambda: __import__("iclr26sci.causal", fromlist=["x"]).MLPPolicy(max_epochs=5, rng=0),
], ids=["sharp-logistic", "sharp-tree", "kallus-zhou", "softmax", "tree", "mlp"])
def test_fit_contract(make, v1):
    est = make()
    params = {k: v for k, v in est.get_params(deep=False).items()}
    before = set(vars(est))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = _fit(est, v1)
        again = _fit(make(), v1)
    assert out is est
    assert est.get_params(deep=False).keys() == params.keys()
    for k, v in params.items():                       # params stored unmodified, not replaced by fit
        assert est.get_params(deep=False)[k] is v, k
    new = set(vars(est)) - before
    public = [a for a in new if not a.startswith("_")]
    assert public and all(a.endswith("_") for a in public), public
    P = est.predict_proba(v1.X)
    np.testing.assert_array_equal(P, again.predict_proba(v1.X))   # a fixed seed gives the same fit
    assert P.shape == (v1.n, 2) and np.allclose(P.sum(axis=1), 1)
    with pytest.raises(NotFittedError):
        clone(est).predict(v1.X)


def test_user_policy_object_is_cloned_not_fitted_in_place(v1):
    template = TreePolicy(depth=1)
    learner = SharpPolicyLearner(gamma=2.0, cv=2, policy_class=template, rng=0).fit(v1)
    assert learner.policy_ is not template and not hasattr(template, "tree_")
    assert learner.predict(v1.X[:3]).shape == (3,)
