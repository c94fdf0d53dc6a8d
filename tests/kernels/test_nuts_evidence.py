"""NUTS + bridge-sampling evidence (pyro) against Laplace, and bayes_factor(evidence="nuts")."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.kernels import NullGP, PixelRBFGP, bayes_factor, nuts_log_evidence


def test_bridge_recovers_a_gaussian_normaliser():
    from iclr26sci.kernels._nuts import _bridge

    r = np.random.default_rng(0)
    # unnormalised N(0, I_2) * e^{3}: log Z = 3 + log 2pi
    d, p = r.standard_normal((500, 2)), 1.2 * r.standard_normal((500, 2))

    def lq(x):
        return 3 - 0.5 * (x * x).sum(1)

    def lg(x):
        return -0.5 * (x * x).sum(1) / 1.44 - np.log(2 * np.pi * 1.44)
    assert _bridge(lq(d), lq(p), lg(d), lg(p)) == pytest.approx(3 + np.log(2 * np.pi), abs=0.05)


def test_nuts_agrees_with_laplace_on_a_small_problem():
    r = np.random.default_rng(0)
    X = r.standard_normal((30, 4))
    y = r.poisson(np.exp(0.8 * X[:, 0]))
    gp = PixelRBFGP().fit(X, y)
    le, se = nuts_log_evidence(gp, 150, 100, rng=0)
    assert abs(le - float(gp.log_evidence(laplace=True))) < 1.0
    bf = bayes_factor(PixelRBFGP(), NullGP(), X, y, evidence="nuts")
    assert np.isfinite(bf.log_bf)


@pytest.mark.bad_input("kernels.nuts_log_evidence")
def test_nuts_bad_input():
    with pytest.raises(InputError, match="gp"):
        nuts_log_evidence(PixelRBFGP())
    r = np.random.default_rng(0)
    X = r.standard_normal((20, 3))
    gp = PixelRBFGP().fit(X, r.poisson(2.0, (2, 20)))
    with pytest.raises(InputError, match="gp"):
        nuts_log_evidence(gp)
    with pytest.raises(InputError, match="num_samples"):
        nuts_log_evidence(PixelRBFGP().fit(X, r.poisson(2.0, 20)), num_samples=0)
    with pytest.raises(InputError, match="evidence"):
        bayes_factor(PixelRBFGP(), NullGP(), X, r.poisson(2.0, 20), evidence="exact")
