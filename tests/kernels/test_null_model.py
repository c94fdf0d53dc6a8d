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
