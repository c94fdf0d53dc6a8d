"""The closedloop claim (pseudo-target guidance raises MindPilot's reward) passes with its smooth-brain control, and
catches its broken variant: guidance switched off in the 'with guidance' arm too (guidance_steps=0). The passing
run at the claims size costs about 20 CPU-s, so it is marked slow; the broken variant runs at a smaller size."""
from __future__ import annotations

import numpy as np
import pytest

from validation.claims import evaluate_claim
from validation.closedloop import _claim_guidance, c_pseudo_target_guidance
from validation.registry import Profile

P = Profile("claims")


@pytest.mark.slow
def test_guidance_claim_reproduced_with_its_control():
    r = evaluate_claim(c_pseudo_target_guidance(P, np.random.default_rng(0)))
    assert r["verdict"] == "reproduced" and r["control_passed"] and r["passed"]


def test_no_guidance_variant_fails():
    r = evaluate_claim(_claim_guidance(P, np.random.default_rng(0), steps=0, n_brains=4, n_targets=8))
    assert r["verdict"] != "reproduced" and not r["passed"] and not r["control_passed"]
    assert abs(r["effect"]["estimate"]) < 0.03
