"""The rl validation checks pass on the real implementation and fail on the broken variants they name."""
from __future__ import annotations

import numpy as np
import pytest

import validation.rl as vr
from validation.registry import Profile

CHEAP = [("b1_advantage_identities", "std"), ("b1_advantage_identities", "naive"),
         ("b2_binary_closed_form", "transform"), ("b3_estimator_consistency", "std"),
         ("b4_lemma1_counterexample", "beta-ignored"), ("b5_lemma2_random", "beta-ignored"),
         ("b5_lemma2_random", "limit-off-by-pi"), ("b7_pass_at_k_unbiased", "plugin"),
         ("b9_reward_transform_insufficient", "transform")]
HEAVY = [("b6_bandit_reproduction", "beta-ignored"), ("b10_entropy_rises_with_beta", "beta-ignored"),
         ("b8_passk_tradeoff_toy", "rs-is-grpo")]


@pytest.mark.parametrize("name", sorted({n for n, _ in CHEAP}))
def test_cheap_check_passes(name):
    assert getattr(vr, name)(Profile("quick"), np.random.default_rng(0)).passed


@pytest.mark.parametrize("name,variant", CHEAP)
def test_cheap_check_catches_its_broken_variant(name, variant):
    assert not getattr(vr, name)(Profile("quick"), np.random.default_rng(0), variant=variant).passed


@pytest.mark.slow
@pytest.mark.parametrize("name,variant", HEAVY)
def test_heavy_check_passes_and_catches_its_broken_variant(name, variant):
    f = getattr(vr, name)
    assert f(Profile("quick"), np.random.default_rng(1)).passed
    assert not f(Profile("quick"), np.random.default_rng(1), variant=variant).passed

