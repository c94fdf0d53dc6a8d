"""The TempFlow-GRPO claim check at matched reward calls: its control passes and the claim is a powered null (a
declared known failure); the broken variant (uniform weighting and trajectories, i.e. Flow-GRPO in TempFlow's
place) cannot give a reproduced verdict and its control is not an effect of the method."""
from __future__ import annotations

import numpy as np

from validation.claims import evaluate_claim
from validation.registry import Profile
from validation.tempflow import _claim_tf_calls


def test_claim_control_passes_and_claim_is_a_powered_null():
    r = evaluate_claim(_claim_tf_calls(Profile("claims"), np.random.default_rng(0), seeds=3, calls=480))
    assert r["control_passed"]
    assert r["verdict"] == "not reproduced"        # Flow-GRPO gains more per reward call (docs/tempflow.md)


def test_broken_variant_uniform_weighting_fails():
    r = evaluate_claim(_claim_tf_calls(Profile("claims"), np.random.default_rng(0), method="flow_grpo", seeds=3,
                                       calls=480))
    assert r["verdict"] != "reproduced" and not r["passed"]
