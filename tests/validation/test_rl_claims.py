"""The RS-GRPO claim check (beta = 2 keeps pass@16 above beta = 0 on the shared-parameter toy; the bandit is its
positive control) passes, and fails when beta is ignored by the advantage kernel."""
from __future__ import annotations

import numpy as np

from validation.claims import evaluate_claim
from validation.registry import Profile
from validation.rl import c_rs_passk_beats_risk_neutral


def test_claim_reproduced_with_its_control():
    r = evaluate_claim(c_rs_passk_beats_risk_neutral(Profile("claims"), np.random.default_rng(0), seeds=8))
    assert r["verdict"] == "reproduced" and r["control_passed"] and r["passed"]


def test_broken_variant_beta_ignored_fails():
    r = evaluate_claim(c_rs_passk_beats_risk_neutral(Profile("claims"), np.random.default_rng(0),
                                                     variant="beta-ignored", seeds=4))
    assert r["verdict"] != "reproduced" and not r["passed"] and not r["control_passed"]
