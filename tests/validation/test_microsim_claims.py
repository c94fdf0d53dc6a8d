"""The microsim claim check (a physics-measuring judge scores physically flawed microscale clips below faithful
ones) passes with its ballistic control, and catches its broken variants: a random judge and a judge that approves
every criterion."""
from __future__ import annotations

import numpy as np
import pytest

from validation.claims import evaluate_claim
from validation.microsim import _claim_microsim
from validation.registry import Profile


def test_claim_reproduced_with_its_control():
    r = evaluate_claim(_claim_microsim(Profile("claims"), np.random.default_rng(0), n_pairs=8))
    assert r["verdict"] == "reproduced" and r["control_passed"] and r["passed"]


@pytest.mark.parametrize("judge", ["random", "constant"])
def test_broken_judge_fails(judge):
    r = evaluate_claim(_claim_microsim(Profile("claims"), np.random.default_rng(0), judge=judge, n_pairs=8))
    assert r["verdict"] != "reproduced" and not r["passed"]
