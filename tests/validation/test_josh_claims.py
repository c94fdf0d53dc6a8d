"""The JOSH claim (the contact term recovers the metric scale that the scene alone lacks) catches its broken variant,
JOSH with both contact terms off (w_c1 = w_c2 = 0), on a tiny instance (2 sequences, short schedules); the same tiny
instance with the terms on passes. The claims-size run (about 150 CPU-s) is marked slow."""
from __future__ import annotations

import numpy as np
import pytest

from validation.claims import evaluate_claim
from validation.josh import _claim_scale, contact_anchors_metric_scale
from validation.registry import Profile

P = Profile("claims")
TINY = dict(n_seq=2, n_iter=(60, 30), sequential=False, figure=False)


def test_contact_off_variant_fails_tiny():
    r = evaluate_claim(_claim_scale(P, np.random.default_rng(0), variant="no_contact", **TINY))
    assert not r["passed"] and not r["control_passed"] and r["verdict"] != "reproduced"
    assert abs(r["effect"]["estimate"]) < 0.05 and abs(r["control_effect"]["estimate"]) < 0.05


def test_contact_on_passes_tiny():
    r = evaluate_claim(_claim_scale(P, np.random.default_rng(0), **TINY))
    assert r["passed"] and r["effect"]["estimate"] > 0.5


@pytest.mark.slow
def test_claim_reproduced_with_its_control():
    r = evaluate_claim(contact_anchors_metric_scale(P, np.random.default_rng(0)))
    assert r["verdict"] == "reproduced" and r["control_passed"] and r["passed"]
