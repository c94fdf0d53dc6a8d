"""The LIGHT claim check (pace guidance raises contact F1): its planted-error control passes and the claim is a
powered null on the under-trained model (a declared known failure); the broken variant, guidance scale 0
(weight 1: pass S equals pass U), cannot give a reproduced verdict."""
from __future__ import annotations

import numpy as np

from validation.claims import evaluate_claim
from validation.light import _claim_pace
from validation.registry import Profile


def test_control_passes_and_claim_is_not_reproduced():
    r = evaluate_claim(_claim_pace(Profile("claims"), np.random.default_rng(0), n_test=60))
    assert r["control_passed"] and r["verdict"] != "reproduced"


def test_broken_variant_guidance_scale_zero_fails():
    r = evaluate_claim(_claim_pace(Profile("claims"), np.random.default_rng(0), weight=1.0, n_test=60))
    assert r["verdict"] != "reproduced" and not r["passed"]
    assert r["effect"]["estimate"] == 0.0          # weight 1 leaves the text-CFG sample unchanged
