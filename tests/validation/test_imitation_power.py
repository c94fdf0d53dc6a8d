"""The imitation checks have power: each broken variant below makes its check FAIL.

Each check function takes its component as an optional keyword (the registry calls it without), so the
exact check code runs with one deliberate defect substituted. The correct variants pass in the
validation report itself (``iclr26sci validate --only imitation``).
"""
import numpy as np
import pytest

from iclr26sci.imitation import (MarkovPolicy, bc, empirical_return_distribution, occupancy, return_distribution,
                                 rs_bc, rs_kt)
from validation import imitation as V
from validation.registry import Profile

QUICK = Profile("quick")


def _markov_averaged(mdp, expert, theta):
    """Broken averaged policy: conditions on (h, s) only (drops the cumulative reward y)."""
    d = occupancy(mdp, expert, theta).sum(axis=2)                       # (H, S, A)
    tot = d.sum(-1, keepdims=True)
    return MarkovPolicy(np.where(tot > 0, d / np.where(tot > 0, tot, 1), 1.0 / mdp.n_actions))


def test_b1_fails_when_the_averaged_policy_drops_y():
    res = V.b1_averaged_policy_exact(QUICK, np.random.default_rng(0), averaged=_markov_averaged)
    assert not res.passed and res.statistic > 1e-3


def test_b2_coupling_criterion_fails_when_the_averaged_policy_drops_y():
    res = V.b2_discretisation_error(QUICK, np.random.default_rng(0), averaged=_markov_averaged)
    crit = {c.name: c for c in res.criteria}
    assert not crit["max W - coupling bound (exact)"].passed
    assert not res.passed


def test_b4_fails_when_rs_bc_loses_the_return_index():
    res = V.b4_rsbc_rate_bc_plateau(QUICK, np.random.default_rng(0), rs_learner=lambda sub, mdp: bc(sub))
    assert not res.passed
    crit = {c.name: c for c in res.criteria}
    assert not crit["log-log slope of RS-BC mean W"].passed


def test_b6_fails_for_rs_kt_stopped_before_the_optimum():
    def truncated(mdp, demos):           # column generation stopped after one priced column
        return rs_kt(mdp, demos, 0.05, return_info=True, max_iter=1)

    res = V.b6_rskt_state_independence(QUICK, np.random.default_rng(0), learner=truncated)
    crit = {c.name: c for c in res.criteria}
    assert not res.passed
    assert not crit["max over instances of W - 2 W(eta_hat, eta_E)"].passed
    assert crit["max over instances of W - 2 W(eta_hat, eta_E)"].statistic > 0.05


@pytest.mark.slow
def test_b7_fails_for_an_evaluator_that_mixes_up_stages():
    def reversed_stages(mdp, pol):       # evaluates with the rewards of stage H-1-h at stage h
        return return_distribution(mdp, pol, reward=mdp.reward[::-1].copy())

    res = V.b7_dkw_bound(QUICK, np.random.default_rng(0), evaluator=reversed_stages)
    assert not res.passed


@pytest.mark.slow
def test_b11_fails_when_the_emulated_storage_does_not_wrap():
    res = V.b11_int8_storage_artifact(QUICK, np.random.default_rng(0), storage=lambda d: d)
    assert not res.passed and all(c.statistic > 0.9 for c in res.criteria)
