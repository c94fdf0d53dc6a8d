"""The closedloop validation checks fail on the broken variants they name (power)."""
from __future__ import annotations

import numpy as np
import pytest

import validation.closedloop as V
from validation.registry import Profile

QUICK = Profile("quick")


def _rng(fn, seed=0):
    return np.random.default_rng(fn.check_spec.seed(seed))


def test_d31_passes_and_catches_sign_and_alpha_errors():
    assert V.pseudo_target_ascent(QUICK, _rng(V.pseudo_target_ascent)).passed
    for variant in ("sign", "no_alpha"):
        res = V.pseudo_target_ascent(QUICK, _rng(V.pseudo_target_ascent), _variant=variant)
        assert not res.passed, variant


def test_d32_catches_noise_and_variance_errors():
    for variant in ("noise", "predictive_var"):
        assert not V.gp_interpolation(QUICK, _rng(V.gp_interpolation), _variant=variant).passed, variant


@pytest.mark.slow
def test_d32_passes():
    assert V.gp_interpolation(QUICK, _rng(V.gp_interpolation)).passed


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["current", "no_stop"])
def test_d33_catches_logging_and_stop_errors(variant):
    assert not V.best_so_far_and_stop(QUICK, _rng(V.best_so_far_and_stop), _variant=variant).passed


@pytest.mark.slow
def test_d35_catches_a_random_like_optimiser():
    assert not V.noise_robustness(QUICK, _rng(V.noise_robustness), _variant="random_like").passed


@pytest.mark.slow
def test_d36_catches_a_reversed_reward():
    assert not V.alpha_target(QUICK, _rng(V.alpha_target), _variant="reversed").passed
