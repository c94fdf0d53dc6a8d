"""Bad input across the kernels API (beyond the audit rows): each call raises an InputError naming the argument.

Also: scikit-learn conventions (clone, get_params), NotFittedError on unfitted use, result objects' repr /
summary / to_dict, the thread-count determinism of meta-training, and the sub-package's import time.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch
from sklearn.base import clone

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.core import Estimate
from iclr26sci.kernels import (BayesFactor, EfficientCodingTheory, FixedFeatureGP, PixelRBFGP, ScratchDKL,
                               TheoryInformedKernel, TheoryMatch, TheoryTaskSampler, bayes_factor, extract_patches,
                               theory_match)

BAD_INPUT_EXEMPT = {"kernels.KernelCholeskyError": "an exception class: raised by the library, takes no user input"}

D = torch.float64


@pytest.fixture(scope="module")
def data(tiny_kernels):
    from iclr26sci.kernels import TheoryTaskSampler

    patches, theory, tasks, tik = tiny_kernels(6)
    t = TheoryTaskSampler(theory, patches, n_tasks=1, n_support=(30,), n_query=10, rng=2)[0]
    return patches, theory, tasks, tik, t


@pytest.mark.bad_input("kernels.PixelRBFGP")
@pytest.mark.parametrize("kw, arg", [({"ard": "no"}, "ard"), ({"response_transform": "log"}, "response_transform"),
                                     ({"prior_scale": -1.0}, "prior_scale"), ({"inner_iters": -2}, "inner_iters"),
                                     ({"n_threads": 0}, "n_threads")])
def test_pixel_rbf_settings(data, kw, arg):
    t = data[4]
    with pytest.raises(InputError, match=f"`{arg}`"):
        PixelRBFGP(**kw).fit(t.X_support, t.y_support)


@pytest.mark.bad_input("kernels.PixelRBFGP", "kernels.NeuronGP")
def test_pixel_rbf_data(data):
    t = data[4]
    m = PixelRBFGP()
    with pytest.raises(InputError, match="`stimuli`"):
        m.fit(t.X_support[0], t.y_support)  # one stimulus as a 1-D row
    gp = m.fit(t.X_support, t.y_support)
    with pytest.raises(InputError, match="`stimuli`"):
        gp.predict(t.X_query[:, :10])
    with pytest.raises(InputError, match="`responses`"):
        m.fit(t.X_support, t.y_support[:-1])
    with pytest.raises(InputError, match="`laplace`"):
        gp.log_evidence(laplace="yes")


@pytest.mark.bad_input("kernels.FixedFeatureGP")
def test_fixed_feature_gp(data):
    t = data[4]
    with pytest.raises(InputError, match="`filters`"):
        FixedFeatureGP(np.ones((3, 5))).fit(t.X_support, t.y_support)
    with pytest.raises(InputError, match="`filters`"):
        FixedFeatureGP(np.full((3, 36), np.nan)).fit(t.X_support, t.y_support)


@pytest.mark.bad_input("kernels.BayesFactor")
def test_bayes_factor_result():
    with pytest.raises(InputError, match="`prob_a`"):
        BayesFactor(1.0, 0.0, -1.0, 1.5)
    with pytest.raises(InputError, match="`log_bf`"):
        BayesFactor(5.0, 0.0, -1.0, 0.5)
    with pytest.raises(InputError, match="`log_evidence_b`"):
        BayesFactor(np.zeros(2), np.zeros(2), np.zeros(3), np.full(2, 0.5))
    bf = BayesFactor(np.array([1.0, 2.0]), np.array([0.0, 0.0]), np.array([-1.0, -2.0]), np.array([0.7, 0.9]))
    assert "n_neurons=2" in repr(bf) and len(repr(bf)) < 100
    assert bf.to_dict()["log_bf"] == 3.0 and "over 2 neuron" in bf.summary()


@pytest.mark.bad_input("kernels.TheoryMatch")
def test_theory_match_result():
    est = Estimate(0.5, 0.1, name="alpha")
    grid = np.linspace(0, 1, 3)
    with pytest.raises(InputError, match="`alpha`"):
        TheoryMatch(0.5, grid, np.zeros(3), np.full(3, 1 / 3), 0.0)
    with pytest.raises(InputError, match="`grid`"):
        TheoryMatch(est, grid[::-1], np.zeros(3), np.full(3, 1 / 3), 0.0)
    with pytest.raises(InputError, match="`posterior`"):
        TheoryMatch(est, grid, np.zeros(3), np.full(3, 0.5), 0.0)
    with pytest.raises(InputError, match="`log_evidence`"):
        TheoryMatch(est, grid, np.zeros(2), np.full(3, 1 / 3), 0.0)


@pytest.mark.bad_input("kernels.bayes_factor", "kernels.theory_match")
def test_model_selection_arguments(data):
    tik, t = data[3], data[4]
    with pytest.raises(InputError, match="`model_b`"):
        bayes_factor(tik, "rbf", t.X_support, t.y_support)
    with pytest.raises(InputError, match="`prior_odds`"):
        bayes_factor(tik, PixelRBFGP(), t.X_support, t.y_support, prior_odds=0.0)
    with pytest.raises(InputError, match="`refit`"):
        bayes_factor(tik, PixelRBFGP(), t.X_support, t.y_support, refit="no")
    with pytest.raises(InputError, match="`alpha_level`"):
        theory_match(tik, PixelRBFGP(), t.X_support, t.y_support, grid=3, alpha_level=1.5)
    with pytest.raises(InputError, match="`grid`"):
        theory_match(tik, PixelRBFGP(), t.X_support, t.y_support, grid=1)
    res = theory_match(tik, PixelRBFGP(), t.X_support, t.y_support, grid=5)
    assert res.alpha.value == pytest.approx(float(res.grid @ res.posterior))
    assert "alpha" in res.summary() and res.to_dict()["grid"] == list(res.grid) and len(repr(res)) < 120


@pytest.mark.bad_input("kernels.TheoryInformedKernel")
@pytest.mark.parametrize("kw, arg", [({"n_outer": -1}, "n_outer"), ({"lr": -0.1}, "lr"), ({"lr": float("nan")}, "lr"),
                                     ({"weight_decay": -1.0}, "weight_decay"), ({"tasks_per_step": 0}, "tasks_per_step"),
                                     ({"hypergradient": "approx"}, "hypergradient"), ({"init": "zeros"}, "init"),
                                     ({"feature_dtype": "float16"}, "feature_dtype"), ({"show_progress": "no"}, "show_progress"),
                                     ({"architecture": "rnn"}, "architecture"), ({"feature_dim": 0}, "feature_dim"),
                                     ({"early_stopping": "yes"}, "early_stopping"),
                                     ({"early_stopping": True, "validation_fraction": 1.0}, "validation_fraction"),
                                     ({"early_stopping": True, "validation_fraction": True}, "validation_fraction"),
                                     ({"early_stopping": True, "eval_every": 0}, "eval_every"),
                                     ({"early_stopping": True, "n_iter_no_change": 0}, "n_iter_no_change")])
def test_tik_settings(data, kw, arg):
    tasks = data[2]
    base = dict(feature_dim=3, channels=3, kernel_size=3, n_outer=2, tasks_per_step=2, progress=False)
    with pytest.raises(InputError, match=f"`{arg}`"):
        TheoryInformedKernel(**{**base, **kw}).meta_fit(tasks, rng=0)


@pytest.mark.bad_input("kernels.TheoryInformedKernel", "kernels.ScratchDKL")
def test_unfitted_estimators_raise_not_fitted(data):
    t = data[4]
    tik = TheoryInformedKernel()
    for call in (lambda: tik.fit(t.X_support, t.y_support), lambda: tik.features(t.X_support),
                 lambda: tik.preferred_stimuli(2), lambda: tik.meta_step(*(torch.zeros(1, 3, 36, dtype=D),) * 4)):
        with pytest.raises(NotFittedError):
            call()
    with pytest.raises(InputError, match="`n_iters`"):
        ScratchDKL(n_iters=0).fit(t.X_support, t.y_support)
    with pytest.raises(InputError, match="`responses`"):
        ScratchDKL(n_iters=2).fit(t.X_support, np.stack([t.y_support, t.y_support]))


def test_estimators_follow_sklearn_conventions():
    from sklearn.base import BaseEstimator

    for est in (TheoryInformedKernel(feature_dim=4, lr=0.01), PixelRBFGP(prior_scale=2.0),
                FixedFeatureGP(np.eye(4)), ScratchDKL(rng=3)):
        assert isinstance(est, BaseEstimator)
        c = clone(est)
        assert type(c) is type(est)
        for k, v in est.get_params().items():
            assert np.array_equal(np.asarray(v), np.asarray(c.get_params()[k])) if isinstance(v, np.ndarray) \
                else v == c.get_params()[k]
        assert len(repr(est)) < 200
    assert TheoryInformedKernel().set_params(n_outer=5).n_outer == 5


def test_neuron_gp_result_objects(data):
    t = data[4]
    gp = PixelRBFGP().fit(t.X_support, t.y_support)
    assert repr(gp).startswith("NeuronGP(model=PixelRBFGP") and len(repr(gp)) < 120
    d = gp.to_dict()
    assert d["n_train"] == 30 and len(d["log_evidence"]) == 1
    assert "log evidence" in gp.summary()


def _meta_features(threads):
    code = ("import numpy as np, torch\n"
            f"torch.set_num_threads({threads})\n"
            "from scipy.ndimage import gaussian_filter\n"
            "from iclr26sci.kernels import *\n"
            "g = np.random.default_rng(0)\n"
            "P = extract_patches([gaussian_filter(g.standard_normal((48, 48)), 1.2) for _ in range(3)], 6, 600, rng=0)\n"
            "th = EfficientCodingTheory(center_radius=1.0).fit(P)\n"
            "tasks = TheoryTaskSampler(th, P, n_tasks=40, n_support=(40,), n_query=20, rng=1)\n"
            "tik = TheoryInformedKernel(feature_dim=4, channels=4, kernel_size=3, n_outer=15, tasks_per_step=4, "
            "lr=0.02, progress=False).meta_fit(tasks, rng=0)\n"
            "print(repr(tik.features(P[:50]).tobytes().hex()[:4000]), tik.history_[-1].hex())\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


@pytest.mark.slow
def test_meta_training_is_bit_identical_at_1_and_2_threads():
    """n_threads=1 (default) fixes the reduction order: the process's thread setting does not matter."""
    assert _meta_features(1) == _meta_features(2)


def test_import_is_light():
    """What the import loads, not how long it takes (benchmarks/bench_imports.py times it)."""
    code = "import sys; import iclr26sci.kernels; print([m for m in ('torch', 'gpytorch') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
