"""scikit-learn's estimator checks for every estimator of the library that derives from ``BaseEstimator``.

Two tiers:

- estimators whose ``fit`` takes a tabular ``(X, y)``: scikit-learn's whole ``check_estimator`` suite
  (``parametrize_with_checks``), at tiny settings, with each expected failure declared with its reason;
- every other public estimator (its ``fit`` takes scenes, games, MDPs, texts, torch models...): the API checks
  that need no tabular data (cloning, ``get_params``/``set_params`` round trip, ``repr``, tags, defaults, no
  attribute set in ``__init__``). Estimators that cannot be built without domain objects are listed with the
  objects they need.

Every expected failure is strict: a check that starts to pass fails the test, so the list stays true.
"""
from __future__ import annotations

import inspect
import warnings

import pytest
from sklearn.base import BaseEstimator
from sklearn.utils import estimator_checks as ec
from sklearn.utils.estimator_checks import parametrize_with_checks

pytest.importorskip("torch")

import iclr26sci  # noqa: E402

# ---- tier 1: tabular estimators, the whole suite ---------------------------------------------------------------
_INPUT_ERROR = ("bad input raises the library's InputError, which names the argument and the fix, instead of "
                "the wording scikit-learn's check looks for")
_DTYPE_OBJECT = ("an object array holding a dict raises InputError (a ValueError naming the argument), not the "
                 "TypeError this check expects")
_Y_2D = ("a y of shape (n, 1) is refused with InputError rather than raveled with a warning (the library "
         "never reshapes input silently)")
_INIT = ("parameters are validated in __init__ and set_params, so a bad value fails at once with InputError "
         "(the library's rule); scikit-learn defers validation to fit")
_NFEAT = ("fit does not record n_features_in_, and predict checks its input's shape with the library's own "
          "InputError")
_SPARSE = "sparse input is refused with InputError ('has ragged or non-numeric entries'), not scikit-learn's words"

TABULAR = {
    "SmoothedQuantileRegressor": {
        "check_dtype_object": _DTYPE_OBJECT,
        "check_supervised_y_2d": _Y_2D,
    },
    "MLPClassifier64": {
        "check_dtype_object": _DTYPE_OBJECT,
        "check_supervised_y_2d": _Y_2D,
    },
    "MLPRegressor64": {
        "check_dtype_object": _DTYPE_OBJECT,
        "check_supervised_y_2d": _Y_2D,
        "check_regressors_train": ("at the test's max_epochs=3 the network underfits scikit-learn's toy "
                                   "regression (the check asks R^2 > 0.5); the default 300 epochs are too slow "
                                   "for this file"),
    },
    "PseudoModel": {
        "check_do_not_raise_errors_in_init_or_set_params": _INIT,
        "check_n_features_in_after_fitting": _NFEAT,
        "check_n_features_in": _NFEAT,
        "check_complex_data": _INPUT_ERROR,
        "check_dtype_object": _INPUT_ERROR,
        "check_estimators_empty_data_messages": _INPUT_ERROR,
        "check_estimator_sparse_tag": _SPARSE,
        "check_estimator_sparse_array": _SPARSE,
        "check_estimator_sparse_matrix": _SPARSE,
        "check_fit2d_predict1d": _INPUT_ERROR,
    },
    "NullGP": {
        "check_fit_score_takes_y": ("fit(stimuli, responses): the kernels package names the arguments after "
                                    "the experiment, as its docs do"),
        "check_n_features_in_after_fitting": _NFEAT,
        "check_n_features_in": _NFEAT,
        "check_complex_data": _INPUT_ERROR,
        "check_dtype_object": _INPUT_ERROR,
        "check_estimators_empty_data_messages": ("the null model ignores the stimuli (its prediction is the "
                                                 "responses' mean), so zero features is not an error for it"),
        "check_estimator_sparse_tag": _SPARSE,
        "check_estimator_sparse_array": _SPARSE,
        "check_estimator_sparse_matrix": _SPARSE,
        "check_fit2d_1sample": _INPUT_ERROR,
    },
}


def _tabular_estimators():
    from iclr26sci.causal import MLPClassifier64, MLPRegressor64, SmoothedQuantileRegressor
    from iclr26sci.closedloop import PseudoModel
    from iclr26sci.kernels import NullGP

    return [SmoothedQuantileRegressor(max_iter=50), MLPClassifier64(max_epochs=3, batch_size=32),
            MLPRegressor64(max_epochs=3, batch_size=32), PseudoModel(), NullGP()]


@parametrize_with_checks(_tabular_estimators(), expected_failed_checks=lambda est: TABULAR[type(est).__name__],
                         xfail_strict=True)
def test_tabular_estimator_passes_sklearn_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


# ---- tier 2: every public estimator, the API checks ------------------------------------------------------------
API_CHECKS = ("check_estimator_cloneable", "check_estimator_tags_renamed", "check_valid_tag_types",
              "check_estimator_repr", "check_no_attributes_set_in_init", "check_parameters_default_constructible",
              "check_get_params_invariance", "check_set_params", "check_do_not_raise_errors_in_init_or_set_params",
              "check_mixin_order")

#: estimators that validate their parameters in __init__ / set_params (see _INIT)
VALIDATE_IN_INIT = {"DefaultStrategy", "PseudoModel", "PCAEmbedder", "AggregationPurifier", "PlackettLuceRouter",
                    "ClassifierRouter", "SimilarityRouter", "RLTeacherSelector", "SingleTeacher", "RandomTeacher",
                    "Seq2SeqStudent", "DCFlow", "MultiViewWorkflowEncoder", "AgenticPredictor", "GraphBaseline"}


def _public_estimators():
    seen = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sub in iclr26sci._SUBPACKAGES:
            mod = getattr(iclr26sci, sub)
            for name in getattr(mod, "__all__", []):
                try:
                    value = getattr(mod, name)
                except ImportError:   # an extra that is not installed: that family's estimators are not checked
                    continue
                if inspect.isclass(value) and issubclass(value, BaseEstimator) and value not in seen:
                    seen[value] = f"{sub}.{name}"
    return seen


ESTIMATORS = _public_estimators()


def _required(cls):
    return [p for p, q in inspect.signature(cls).parameters.items()
            if q.default is inspect.Parameter.empty and q.kind not in (q.VAR_POSITIONAL, q.VAR_KEYWORD)]


def _api_cases():
    for cls, where in ESTIMATORS.items():
        need = _required(cls)
        for check in API_CHECKS:
            marks = []
            if need:
                marks.append(pytest.mark.skip(reason=f"{where} needs domain objects to be built: {', '.join(need)}"))
            elif check == "check_do_not_raise_errors_in_init_or_set_params" and cls.__name__ in VALIDATE_IN_INIT:
                marks.append(pytest.mark.xfail(strict=True, reason=_INIT))
            yield pytest.param(cls, check, id=f"{where}-{check}", marks=marks)


def test_every_estimator_is_listed():
    # the tabular tier's classes are public estimators; at least the core families' estimators are found
    names = {cls.__name__ for cls in ESTIMATORS}
    assert set(TABULAR) <= names | {"PseudoModel"}, set(TABULAR) - names
    assert {"SharpPolicyLearner", "KallusZhouLearner", "RSBC", "RSKT", "BC", "MIMICMD"} <= names
    assert VALIDATE_IN_INIT <= names, VALIDATE_IN_INIT - names


@pytest.mark.parametrize("cls, check", list(_api_cases()))
def test_estimator_passes_sklearn_api_checks(cls, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(ec, check)(cls.__name__, cls())
