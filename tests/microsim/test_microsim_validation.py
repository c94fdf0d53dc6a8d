"""The validation checks 1-10 pass on the real implementation and fail on the broken variants they name."""
from __future__ import annotations

import numpy as np
import pytest

import validation.microsim as vm
from validation.registry import Profile

CHEAP = [("m1_brownian_msd", "half_variance"), ("m1_brownian_msd", "correlated"),
         ("m3_stokes_einstein", "radius_squared"), ("m4_optical_trap", "euler"), ("m5_diffusion_pde", "dirichlet"),
         ("m7_cell_division", "exponential"), ("m8_poiseuille", "plug"), ("m10_rubric_algebra", "positional_scoring"),
         ("m10_rubric_algebra", "no_clamp")]
HEAVY = [("m2_render_roundtrip", "no_exposure_blur"), ("m6_chemotaxis", "no_drift"),
         ("m9_violation_detection", "blind_jumps")]


@pytest.mark.parametrize("name,variant", CHEAP)
def test_cheap_check_passes_and_catches_its_broken_variant(name, variant):
    f = getattr(vm, name)
    assert f(Profile("quick"), np.random.default_rng(0)).passed
    assert not f(Profile("quick"), np.random.default_rng(0), variant=variant).passed


@pytest.mark.slow
@pytest.mark.parametrize("name,variant", HEAVY)
def test_heavy_check_passes_and_catches_its_broken_variant(name, variant):
    f = getattr(vm, name)
    assert f(Profile("quick"), np.random.default_rng(0)).passed
    assert not f(Profile("quick"), np.random.default_rng(0), variant=variant).passed
