"""The value_matching validation checks fail on the broken variants they name (power), and the exact references
they rely on are right."""
from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

import validation.value_matching as V
from iclr26sci.generative import _vm_core
from validation.registry import Profile

QUICK = Profile("quick")


def _rng(fn, seed=0):
    return np.random.default_rng(fn.check_spec.seed(seed))


def test_discrete_value_matches_monte_carlo():
    """The backward recursion is the exact cost-to-go of the base chain: compare with -log E exp(lam r) by MC."""
    import torch

    from iclr26sci.nn import GaussianFlowOracle

    orc = GaussianFlowOracle(mean=V.M2, cov=V.S2 * np.eye(2))
    times = np.linspace(0, 1, 11)
    lam = 1.0
    Qs, qs = V.discrete_value(orc, times, lam, c=V.C_QUAD)
    base = _vm_core._Base(orc, 10)
    k = 5
    vals = []
    for x0 in (np.array([0.0, 0.0]), np.array([0.8, -0.5])):
        x = torch.as_tensor(np.tile(x0, (200000, 1)))
        g = torch.Generator().manual_seed(0)
        for j in range(k, 10):
            _, x, _ = base.step(x, j, g)
        r = -0.5 * ((x.numpy() - V.C_QUAD) ** 2).sum(1)
        vals.append(-np.log(np.mean(np.exp(lam * r))))
    exact = [0.5 * x0 @ Qs[k] @ x0 + qs[k] @ x0 for x0 in (np.array([0.0, 0.0]), np.array([0.8, -0.5]))]
    assert abs((vals[1] - vals[0]) - (exact[1] - exact[0])) < 0.01     # constants dropped: compare differences


def test_memory_check_catches_a_base_forward_recorded_by_autograd():
    ok = V.memory_flat_in_base_width(QUICK, _rng(V.memory_flat_in_base_width))
    assert ok.passed
    bad = V.memory_flat_in_base_width(QUICK, _rng(V.memory_flat_in_base_width), _variant="through_base")
    assert not bad.passed and bad.criteria[0].statistic > 0.10


@pytest.mark.slow
def test_linear_check_catches_the_gradient_at_x_k():
    """Broken variant: the control from grad V(x_k, t_k) instead of the look-ahead grad V(mu_k, t_{k+1})."""
    orig = _vm_core.guided_step

    def at_xk(base, x, k, g, vnet=None, scale=1.0, clip=None):
        mean, sample, _ = base.step(x, k, g)
        dB = (sample - mean) / base.sigma(k)
        u = None
        if vnet is not None and scale != 0:
            _, gr = _vm_core.value_and_grad(vnet, x, float(base.times[k]))
            u = _vm_core.control(base.sigma(k), gr, scale, clip).to(mean.dtype)
            shift = base.h(k) * base.sigma(k) * u
            mean, sample = mean + shift, sample + shift
        return sample, dB, u, mean

    with mock.patch.object(_vm_core, "guided_step", at_xk):
        res = V.linear_tilt_recovery(QUICK, _rng(V.linear_tilt_recovery))
    assert orig is _vm_core.guided_step
    assert not res.passed


@pytest.mark.slow
def test_linear_check_catches_a_control_without_sigma():
    orig = _vm_core.control
    with mock.patch.object(_vm_core, "control", lambda s, g, sc, c: orig(1.0, g, sc, c)):
        res = V.linear_tilt_recovery(QUICK, _rng(V.linear_tilt_recovery))
    assert not res.passed


@pytest.mark.slow
def test_quadratic_check_catches_classifier_guidance():
    res = V.quadratic_tilt_recovery(QUICK, _rng(V.quadratic_tilt_recovery), _variant="offline")
    assert not res.passed


@pytest.mark.slow
def test_monotone_check_catches_a_flipped_control():
    res = V.policy_iteration_monotone(QUICK, _rng(V.policy_iteration_monotone), _variant="flipped")
    assert not res.passed and res.criteria[0].statistic > 2


@pytest.mark.slow
def test_monotone_check_catches_an_undercounted_control_cost():
    """Broken variant: the step cost 1/2 |u|^2 h counted at a quarter (e.g. h^2-type bookkeeping)."""
    orig = _vm_core.rollout

    def quarter_cost(*a, **k):
        out = orig(*a, **k)
        out["cost"] = out["cost"] * 0.25
        return out

    with mock.patch.object(_vm_core, "rollout", quarter_cost):
        res = V.policy_iteration_monotone(QUICK, _rng(V.policy_iteration_monotone))
    assert not res.passed


@pytest.mark.slow
def test_shift_check_catches_offline_training():
    res = V.on_policy_vs_offline_shift(QUICK, _rng(V.on_policy_vs_offline_shift), _variant="offline")
    assert not res.passed and res.criteria[0].statistic < 2


@pytest.mark.slow
def test_importance_correction_check_catches_unweighted_resampling():
    res = V.indicator_importance_correction(QUICK, _rng(V.indicator_importance_correction), _variant="no-weights")
    assert not res.passed
