"""The opticalflow validation checks pass on the real implementation and fail on the broken variants they name."""
from __future__ import annotations

import numpy as np
import pytest

import validation.opticalflow as vo
from validation.registry import Profile

CHEAP = [("d1_synthesis_correctness", "zbuffer_far"), ("d1_synthesis_correctness", "t_before_R"),
         ("d1_synthesis_correctness", "flow_sign"), ("d1_synthesis_correctness", "no_unproject_depth"),
         ("d2_geometry_identities", "flow_sign"), ("d2_geometry_identities", "divide_by_source_depth"),
         ("d3_affine_composition", "inverse_HA"), ("d3_affine_composition", "sample_at_y")]
HEAVY = [("d4_trimmed_loss", "no_trim"), ("d5_decoupled_beats_appearance", "appearance_as_dcflow"),
         ("d6_depth_robustness", "appearance_for_crude"), ("d7_network_agnostic", "no_training")]


@pytest.mark.parametrize("name", sorted({n for n, _ in CHEAP}))
@pytest.mark.parametrize("seed", [3])
def test_cheap_check_passes(name, seed):
    assert getattr(vo, name)(Profile("quick"), np.random.default_rng(seed)).passed


@pytest.mark.parametrize("name,variant", CHEAP)
def test_cheap_check_catches_its_broken_variant(name, variant):
    assert not getattr(vo, name)(Profile("quick"), np.random.default_rng(0), variant=variant).passed


@pytest.mark.slow
@pytest.mark.parametrize("name,variant", HEAVY)
def test_heavy_check_catches_its_broken_variant(name, variant):
    """The trained-model checks fail on their broken variant (trains and caches the models on first use)."""
    assert not getattr(vo, name)(Profile("quick"), np.random.default_rng(1), variant=variant).passed


def test_d4_seed_lower_bound():
    """D4's paired bound over training seeds: mean - t_{0.95, n-1} SE; identical arms (gap 0) never pass."""
    from scipy import stats

    d = np.array([0.3, 0.1, 0.5])
    want = d.mean() - stats.t.ppf(0.95, 2) * d.std(ddof=1) / np.sqrt(3)
    assert np.isclose(vo._lower_bound(d), want)
    assert not vo._lower_bound(np.zeros(3)) > 0
    assert vo._lower_bound([1.0]) == -np.inf           # one replicate gives no bound
