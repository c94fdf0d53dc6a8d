"""The embeddings claim check (UEC beats its best member and the uniform ensemble on heteroscedastic members)
passes, and catches its broken variants: uniform weights (no uncertainty) and variances decoupled from noise."""
from __future__ import annotations

import numpy as np
import pytest

from validation.claims import evaluate_claim
from validation.embeddings import c_uec_beats_members
from validation.registry import Profile


def test_claim_reproduced_with_its_control():
    r = evaluate_claim(c_uec_beats_members(Profile("claims"), np.random.default_rng(0)))
    assert r["verdict"] == "reproduced" and r["control_passed"] and r["passed"]


@pytest.mark.parametrize("kw", [{"weights": "uniform"}, {"variances": "shuffled"}])
def test_broken_variants_fail(kw):
    r = evaluate_claim(c_uec_beats_members(Profile("claims"), np.random.default_rng(0), **kw))
    assert r["verdict"] != "reproduced" and not r["passed"]
    assert r["control_passed"]          # the oracle still shows the gain: the uncertainty is at fault
