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


def test_min_effect_from_theory_matches_simulated_oracle():
    from validation.embeddings import UEC_MIN_GAIN, UEC_ORACLE_GAIN, uec_gain_theory, uec_members_experiment

    assert UEC_MIN_GAIN == pytest.approx(0.5 * UEC_ORACLE_GAIN) and UEC_ORACLE_GAIN == pytest.approx(0.0392, abs=1e-4)
    assert uec_gain_theory(nodes=64)["oracle_gain"] == pytest.approx(UEC_ORACLE_GAIN, abs=1e-9)   # quadrature converged
    o = uec_members_experiment(np.random.default_rng(11), n_items=8000)
    d = o["oracle"] - o["baseline"]
    se = d.std(ddof=1) / np.sqrt(len(d))
    assert abs(d.mean() - UEC_ORACLE_GAIN) < 4 * se + 1e-3      # large-D theory vs D = 32 simulation
