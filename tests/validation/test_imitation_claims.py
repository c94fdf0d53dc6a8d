"""The imitation claim check (RS-BC beats BC against a non-Markovian expert) passes, and catches its broken
variant: a learner that ignores the accumulated return (Markov BC in RS-BC's place)."""
from __future__ import annotations

import numpy as np

from validation.claims import evaluate_claim
from validation.imitation import c_rsbc_beats_bc
from validation.registry import Profile


def test_claim_reproduced_with_its_control():
    r = evaluate_claim(c_rsbc_beats_bc(Profile("claims"), np.random.default_rng(0)))
    assert r["verdict"] == "reproduced" and r["control_passed"] and r["passed"]


def test_broken_variant_markov_learner_fails():
    r = evaluate_claim(c_rsbc_beats_bc(Profile("claims"), np.random.default_rng(0), learner="markov"))
    assert r["verdict"] != "reproduced" and not r["passed"]
    assert r["control_passed"]          # the experiment still sees the oracle's gap: the learner is at fault
