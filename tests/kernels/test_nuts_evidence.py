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


def test_hyper_sbc_ranks_and_figure():
    """hyper_sbc's ranks on 40 simulated neurons, and the figure N4 puts in the report."""
    from validation.kernels_bayes import _sbc_figure, hyper_sbc

    r = np.random.default_rng(0)
    patches = r.standard_normal((500, 16))
    ranks, not_pd = hyper_sbc(40, 19, r, patches, n_trials=30)
    assert ranks.shape == (40 - not_pd, 2) and ranks.min() >= 0 and ranks.max() <= 19
    fig = _sbc_figure(ranks, 19, ("a", "b"), "t", 10)
    assert len(fig.axes) == 2 and fig.axes[0].get_xlabel().startswith("rank")
