"""The null model (NullGP), the posterior over a model set, and the N1 null-neuron check and its broken variant."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from iclr26sci.core import InputError
from iclr26sci.kernels import FixedFeatureGP, ModelPosterior, NullGP, PixelRBFGP, bayes_factor, model_posterior


def test_null_laplace_matches_quadrature():
    """The Laplace evidence of the 1-parameter null agrees with quadrature over log sigma^2 (n = 200)."""
    r = np.random.default_rng(0)
    y = r.poisson(5.0, 200).astype(float)
    X = np.zeros((200, 3))
    m = NullGP(response_transform="none")
    lap = m.log_evidence(X, y, laplace=True)
    z = (y - y.mean()) / y.std()
    n = z.size

    def f(q):
        return math.exp(-0.5 * n * math.log(2 * math.pi) - 0.5 * n * q - 0.5 * n * math.exp(-q) - 200 +
                        (-0.5 * ((q - math.log(0.5)) / 3.0) ** 2 - math.log(3.0) - 0.5 * math.log(2 * math.pi)))
    val, _ = integrate.quad(f, -3, 3, points=[0.0])
    exact = math.log(val) + 200 - n * math.log(y.std())
    assert lap == pytest.approx(exact, abs=0.01)
    # maximised evidence: the iid Gaussian log likelihood at the MLE
    assert m.log_evidence(X, y) == pytest.approx(
        float(np.sum(-0.5 * np.log(2 * np.pi * y.var()) - 0.5 * (y - y.mean()) ** 2 / y.var())), abs=1e-9)


def test_null_in_bayes_factor_and_posterior():
    r = np.random.default_rng(1)
    X = r.standard_normal((60, 8))
    y_null = r.poisson(3.0, size=(3, 60))
    y_sig = r.poisson(np.exp(1.0 + 1.0 * X[:, 0]))
    bf = bayes_factor(FixedFeatureGP(np.eye(8)[:1]), NullGP(), X, y_sig, laplace=True)   # the true feature
    assert float(bf.log_bf) > 3
    mp = model_posterior({"pixel": PixelRBFGP(), "null": NullGP()}, X, y_null)
    assert list(mp.best()) == ["null"] * 3 and np.allclose(np.nansum(mp.prob, 0), 1)
    assert "null=" in repr(mp)


def test_n1_passes_and_its_broken_variant_fails():
    """N1 on 60 null neurons: with the null no structured model is preferred; without it one always is."""
    from validation.kernels_bayes import n1_null_neurons
    from validation.registry import Profile

    prof = Profile("quick")
    ok = n1_null_neurons(prof, np.random.default_rng(0), n_neurons=60)
    assert all(c.passed for c in ok.criteria)
    bad = n1_null_neurons(prof, np.random.default_rng(0), with_null=False, n_neurons=60)
    assert not all(c.passed for c in bad.criteria)


@pytest.mark.bad_input("kernels.NullGP", "kernels.model_posterior", "kernels.ModelPosterior")
def test_null_bad_input():
    X = np.zeros((10, 2))
    with pytest.raises(InputError, match="prior_scale"):
        NullGP(prior_scale=-1.0).log_evidence(X, np.arange(10.0))
    with pytest.raises(InputError, match="stimuli"):
        NullGP().log_evidence(np.zeros((9, 2)), np.arange(10.0))
    with pytest.raises(InputError, match="responses"):
        NullGP().log_evidence(X, np.ones(10))
    with pytest.raises(InputError, match="models"):
        model_posterior({"null": NullGP()}, X, np.arange(10.0))
    with pytest.raises(InputError, match="prior"):
        model_posterior({"a": NullGP(), "b": NullGP()}, X, np.arange(10.0), prior=[0.9, 0.9])
    with pytest.raises(InputError, match="models"):
        model_posterior({"a": NullGP(), "b": 3}, X, np.arange(10.0))
    assert ModelPosterior(("a",), np.zeros((1, 1)), np.ones((1, 1)), np.ones(1)).best().tolist() == ["a"]


def test_reliability_test_is_exact_under_calibration():
    """Labels drawn from the posterior itself: the one-sided reliability p-value is uniform (false alarms at alpha)."""
    from validation.kernels_bayes import reliability_test

    r = np.random.default_rng(3)
    pv = []
    for _ in range(200):
        P = r.dirichlet([0.5, 0.5, 0.5], size=150).T
        lab = (r.random(150)[None] > np.cumsum(P, 0)[:-1]).sum(0)
        pv.append(reliability_test(P, lab, (0, 1), n_rep=300, rng=r)["p"])
    pv = np.array(pv)
    # 200 repeats at alpha = 0.1: Bin(200, 0.1) has 99.9% of its mass below 35
    assert (pv <= 0.1).sum() <= 35
    # an over-claimed model (labels from a flattened posterior) is caught
    P = r.dirichlet([0.3, 0.3, 0.3], size=150).T
    lab = r.integers(0, 3, 150)
    assert reliability_test(P, lab, (0, 1), n_rep=500, rng=r)["p"] < 0.01


def test_n3_passes_and_catches_the_maximised_evidence():
    """N3 on 120 simulated neurons: the Laplace posterior passes; the maximised evidence (no Occam factor) is caught."""
    from validation.kernels_bayes import n3_model_posterior_calibration
    from validation.registry import Profile

    prof = Profile("quick")
    ok = n3_model_posterior_calibration(prof, np.random.default_rng(0), n_neurons=120, figure=False, n_reference=0)
    assert ok.passed, [(c.name, c.statistic, c.threshold) for c in ok.criteria]
    bad = n3_model_posterior_calibration(prof, np.random.default_rng(0), evidence="max", n_neurons=120, figure=False,
                                         n_reference=0)
    assert not bad.criteria[0].passed  # P(structured | y) over-claims structure


def test_simulated_neurons_follow_the_model_prior():
    """simulate_model_set: labels from the prior; a null neuron's variance is its drawn sigma^2."""
    from validation.kernels_bayes import simulate_model_set

    X = np.random.default_rng(0).standard_normal((40, 5))
    models = {"pixel": PixelRBFGP(response_transform="none"), "null": NullGP(response_transform="none")}
    lab, Z, q = simulate_model_set(models, X, 400, np.random.default_rng(1), return_params=True)
    assert Z.shape == (400, 40) and abs(lab.mean() - 0.5) < 4 * 0.025
    nul = np.flatnonzero(lab == 1)
    ratio = Z[nul].var(1) / np.exp([q[i][0] for i in nul])
    assert abs(np.mean(ratio) - 1) < 4 * np.sqrt(2 / 40 / nul.size)
    assert all(len(q[i]) == 3 for i in np.flatnonzero(lab == 0))  # log s^2, log l, log sigma^2
