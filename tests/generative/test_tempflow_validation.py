"""The tempflow validation checks pass on the library and FAIL on broken variants (their power)."""
import numpy as np
import pytest

from validation import tempflow as V
from validation.registry import Profile

Q = Profile("quick")


def _rng(seed=0):
    return np.random.default_rng(seed)


def test_weight_check_passes_and_catches_the_hard_coded_constant():
    from iclr26sci.generative import noise_aware_weights

    assert V.weight_normalisation(Q, _rng()).passed
    bad = V.weight_normalisation(Q, _rng(), _weights=lambda T, s, a: noise_aware_weights(T, s, a, "official"))
    assert not bad.passed and bad.criteria[0].statistic > 0.05


def test_logprob_kl_check_passes_and_catches_a_kl_without_its_half():
    assert V.logprob_and_kl(Q, _rng()).passed
    bad = V.logprob_and_kl(Q, _rng(), _kl_scale=2.0)
    assert not bad.passed and bad.criteria[1].statistic > 10


@pytest.mark.slow
def test_policy_gradient_check_power():
    assert V.policy_gradient_unbiased(Q, _rng()).passed
    bad = V.policy_gradient_unbiased(Q, _rng(), _std_scale=2.0)
    assert not bad.passed


@pytest.mark.slow
def test_credit_assignment_check_power():
    assert V.credit_assignment(Q, _rng()).passed
    bad = V.credit_assignment(Q, _rng(), _break="sde_branches")
    assert not bad.passed and bad.criteria[0].statistic < 0.95


@pytest.mark.slow
def test_marginal_check_power():
    import torch

    def widen(policy):
        step = policy.step

        def wide(*a, **k):
            st = step(*a, **k)
            object.__setattr__(st, "sample", st.mean + 1.2 * (st.sample - st.mean))
            return st

        policy.step = wide

    assert V.sde_marginal_preservation(Q, _rng()).passed
    assert not V.sde_marginal_preservation(Q, _rng(), _policy_hook=widen).passed
    _ = torch


@pytest.mark.slow
def test_kl_control_check_power():
    assert V.kl_control(Q, _rng()).passed
    assert not V.kl_control(Q, _rng(), _beta_scale=0.0).passed


@pytest.mark.slow
def test_learning_efficiency_check_power():
    assert V.learning_efficiency(Q, _rng()).passed
    assert not V.learning_efficiency(Q, _rng(), _tempflow_kw={"lr": 1e-7}).passed
