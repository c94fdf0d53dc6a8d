"""The Value Matching claim check (non-differentiable reward: VM reaches the exact tilt where gradient guidance
cannot) passes, and catches its broken variant: a value network that was never trained."""
from __future__ import annotations

import numpy as np

from validation.claims import evaluate_claim
from validation.registry import Profile
from validation.value_matching import _claim_vm_step


def test_claim_reproduced_with_its_control():
    r = evaluate_claim(_claim_vm_step(Profile("claims"), np.random.default_rng(0), reps=3, n_iter=6, n=2000))
    assert r["verdict"] == "reproduced" and r["control_passed"] and r["passed"]


def test_broken_variant_untrained_value_fails():
    r = evaluate_claim(_claim_vm_step(Profile("claims"), np.random.default_rng(0), value="zero", reps=3, n=2000))
    assert r["verdict"] != "reproduced" and not r["passed"]
    assert r["control_passed"]          # the exact value still reaches the tilt: the value network is at fault
