"""scikit-learn's estimator checks for every estimator of the library that derives from ``BaseEstimator``.

Two tiers:

- estimators whose ``fit`` takes a tabular ``(X, y)``: scikit-learn's whole ``check_estimator`` suite
  (``parametrize_with_checks``), at tiny settings, with each expected failure declared with its reason;
- every other public estimator (its ``fit`` takes scenes, games, MDPs, texts, torch models...): the API checks
  that need no tabular data (cloning, ``get_params``/``set_params`` round trip, ``repr``, tags, defaults, no
  attribute set in ``__init__``). An estimator that cannot be built without domain objects (a velocity net,
  an image pool and its embedding, a torch classifier and its source statistics, text encoders) is built by a
  factory below from the smallest such objects; any without a factory is skipped with the objects it needs.

Every expected failure is strict: a check that starts to pass fails the test, so the list stays true.
"""
from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np

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
_PIXELS = ("transform checks the images' shape against the pool's with the library's InputError ('images: has "
           "shape (n, 3); expected images of the pool's shape (n, 4)'), not scikit-learn's n_features_in_ wording")

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
    "PCAEmbedder": {
        "check_do_not_raise_errors_in_init_or_set_params": _INIT,
        "check_n_features_in_after_fitting": _PIXELS,
        "check_complex_data": _INPUT_ERROR,
        "check_dtype_object": _INPUT_ERROR,
        "check_estimators_empty_data_messages": _INPUT_ERROR,
        "check_estimator_sparse_tag": _SPARSE,
        "check_estimator_sparse_array": _SPARSE,
        "check_estimator_sparse_matrix": _SPARSE,
        "check_fit2d_1sample": ("a pool of one image is refused with InputError ('pool: has 1 images; expected at "
                                "least 2 images'), not scikit-learn's wording"),
        "check_fit2d_predict1d": _INPUT_ERROR,
    },
}


def _tabular_estimators():
    from iclr26sci.causal import MLPClassifier64, MLPRegressor64, SmoothedQuantileRegressor
    from iclr26sci.closedloop import PCAEmbedder, PseudoModel
    from iclr26sci.kernels import NullGP

    # PCAEmbedder: one component, so that every data set of the suite (down to 2 features) has enough rank
    return [SmoothedQuantileRegressor(max_iter=50), MLPClassifier64(max_epochs=3, batch_size=32),
            MLPRegressor64(max_epochs=3, batch_size=32), PseudoModel(), NullGP(), PCAEmbedder(n_components=1)]


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
                    "Seq2SeqStudent", "DCFlow", "MultiViewWorkflowEncoder", "AgenticPredictor", "GraphBaseline",
                    "FlowMatching", "UEC", "ProbabilisticEncoder", "PEAAdapter", "MindPilot", "RandomPool",
                    "GreedyRetrieval", "GPUCB", "BoTorchUCB", "CMAES", "PCAGenerator", "FlowGenerator",
                    "FeatureEmbedder", "DDPOLite"}

_POOL_IN_INIT = ("the constructor validates the image pool and keeps the checked array as pool_, which propose() "
                 "reads (a closed-loop optimiser has no fit: it starts on its first proposal); scikit-learn "
                 "allows only the parameters in __init__")
#: (estimator, check) -> why the check fails, for the API tier
API_XFAIL = {
    **{(name, "check_no_attributes_set_in_init"): _POOL_IN_INIT
       for name in ("RandomPool", "GreedyRetrieval", "GPUCB", "BoTorchUCB", "CMAES", "DDPOLite")},
    ("PEAAdapter", "check_no_attributes_set_in_init"): (
        "the constructor calls reset(), which starts the adaptation record (history_ and the forward and backward "
        "counters) that predict() extends: PEA adapts online, batch by batch, and has no fit"),
}


# ---- factories: the smallest domain objects that build each estimator ------------------------------------------
def _pool():
    return np.random.default_rng(0).random((30, 3, 3))


def _embedder():
    from iclr26sci.closedloop import PCAEmbedder

    return PCAEmbedder(2).fit(_pool())


def _pca_generator():
    from iclr26sci.closedloop import PCAGenerator

    return PCAGenerator(_embedder())


def _flow_generator():
    from iclr26sci.closedloop import FlowGenerator

    return FlowGenerator(_embedder(), hidden=(8,), epochs=1, cache=False).fit(_pool())


def _velocity_net():
    from iclr26sci.nn import VelocityMLP

    return VelocityMLP(2, hidden=(8,))


def _first_coordinate(x, prompts=None):
    return x[:, 0]


def _probabilistic_encoder(seed=0):
    from iclr26sci.embeddings import LSAEncoder, ProbabilisticEncoder

    corpus = ["fire crews fought the blaze", "the fire spread", "shares fell", "markets fell on monday"]
    return ProbabilisticEncoder(LSAEncoder(corpus=corpus, n_components=2, rng=seed), dim=2, rng=seed)


def _pea():
    import torch

    from iclr26sci.adaptation import PEAAdapter, SourceStats

    g = torch.Generator().manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).eval()
    stats = SourceStats.fit(net, torch.randn(40, 3, generator=g), modules=[net[1]], group_size=2)
    return PEAAdapter(net, stats, views=("orig",), layer_weights="ones")


def _factories():
    from iclr26sci import causal, closedloop as cl, embeddings, generative, kernels, nn

    return {
        "FlowMatching": lambda: nn.FlowMatching(_velocity_net()),
        "FixedPolicy": lambda: causal.FixedPolicy(1, 2),
        "FixedFeatureGP": lambda: kernels.FixedFeatureGP(np.eye(4)[:2]),
        "UEC": lambda: embeddings.UEC([_probabilistic_encoder(0), _probabilistic_encoder(1)]),
        "ProbabilisticEncoder": _probabilistic_encoder,
        "PEAAdapter": _pea,
        "FlowGRPOTrainer": lambda: generative.FlowGRPOTrainer(_velocity_net(), generative.target_reward([1.0, 1.0]),
                                                              progress=False),
        "ValueMatching": lambda: generative.ValueMatching(nn.GaussianFlowOracle(mean=[0.0, 0.0]), _first_coordinate,
                                                          hidden=(8,)),
        "MindPilot": lambda: cl.MindPilot(_embedder(), _pca_generator(), _pool()),
        "RandomPool": lambda: cl.RandomPool(_pool()),
        "GreedyRetrieval": lambda: cl.GreedyRetrieval(_embedder(), _pool()),
        "GPUCB": lambda: cl.GPUCB(_embedder(), _pool()),
        "BoTorchUCB": lambda: cl.BoTorchUCB(_embedder(), _pool()),
        "CMAES": lambda: cl.CMAES(_embedder(), _pca_generator(), _pool()),
        "PCAGenerator": _pca_generator,
        "FlowGenerator": lambda: cl.FlowGenerator(_embedder(), hidden=(8,), epochs=1, cache=False),
        "FeatureEmbedder": lambda: cl.FeatureEmbedder(np.tanh, n_components=2),
        "DDPOLite": lambda: cl.DDPOLite(_embedder(), _flow_generator(), _pool()),
    }


FACTORIES = _factories()


@functools.lru_cache(maxsize=None)
def _build(cls):
    """One instance per class for its API checks (each check clones it where it would change it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return FACTORIES[cls.__name__]() if cls.__name__ in FACTORIES else cls()


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
        need = [] if cls.__name__ in FACTORIES else _required(cls)
        for check in API_CHECKS:
            marks = []
            if need:
                marks.append(pytest.mark.skip(reason=f"{where} needs domain objects to be built: {', '.join(need)}"))
            elif check == "check_do_not_raise_errors_in_init_or_set_params" and cls.__name__ in VALIDATE_IN_INIT:
                marks.append(pytest.mark.xfail(strict=True, reason=_INIT))
            elif (cls.__name__, check) in API_XFAIL:
                marks.append(pytest.mark.xfail(strict=True, reason=API_XFAIL[cls.__name__, check]))
            yield pytest.param(cls, check, id=f"{where}-{check}", marks=marks)


def test_every_estimator_is_listed():
    # the tabular tier's classes are public estimators; at least the core families' estimators are found
    names = {cls.__name__ for cls in ESTIMATORS}
    assert set(TABULAR) <= names | {"PseudoModel"}, set(TABULAR) - names
    assert {"SharpPolicyLearner", "KallusZhouLearner", "RSBC", "RSKT", "BC", "MIMICMD"} <= names
    assert VALIDATE_IN_INIT <= names, VALIDATE_IN_INIT - names
    assert set(FACTORIES) <= names, set(FACTORIES) - names
    assert {k for k, _ in API_XFAIL} <= names


@pytest.mark.parametrize("cls, check", list(_api_cases()))
def test_estimator_passes_sklearn_api_checks(cls, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(ec, check)(cls.__name__, _build(cls))


def test_every_estimator_that_needs_domain_objects_has_a_factory():
    missing = {where for cls, where in ESTIMATORS.items() if _required(cls) and cls.__name__ not in FACTORIES}
    assert not missing, missing


def test_a_clone_keeps_the_fitted_components():
    # clone() would leave a fitted embedder, generator or source statistics unfitted, which these estimators
    # refuse: they share them instead (iclr26sci.core.clone_keeping_fitted), and clone every other parameter
    from sklearn.base import clone

    for name in ("MindPilot", "CMAES", "DDPOLite", "PCAGenerator", "PEAAdapter"):
        est = _build(next(c for c in ESTIMATORS if c.__name__ == name))
        twin = clone(est)
        assert type(twin) is type(est) and twin is not est
        for key, value in est.get_params(deep=False).items():
            if hasattr(value, "get_params") and hasattr(value, "fit") and key != "generator":
                assert getattr(twin, key) is value, (name, key)
