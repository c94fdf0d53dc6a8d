"""The PEA claim checks: PEA beats NoAdapt at severity 5 (reproduced, with its planted-shift control), and the
broken variant with the statistics update disabled fails."""
from __future__ import annotations

import numpy as np
import pytest

from validation.adaptation import c_pea_beats_noadapt
from validation.claims import evaluate_claim
from validation.registry import Profile


def test_broken_variant_no_statistics_update_fails():
    # the target statistics stay at the source's: the alignment is the identity, PEA cannot undo the planted
    # shift (the control fails) and gains nothing over NoAdapt
    r = evaluate_claim(c_pea_beats_noadapt(Profile("claims"), np.random.default_rng(0), variant="no-update",
                                           n_per=32, streams=2))
    assert not r["passed"] and not r["control_passed"]


@pytest.mark.slow
def test_claim_reproduced_with_its_control():
    r = evaluate_claim(c_pea_beats_noadapt(Profile("claims"), np.random.default_rng(0)))
    assert r["verdict"] == "reproduced" and r["control_passed"] and r["passed"]
