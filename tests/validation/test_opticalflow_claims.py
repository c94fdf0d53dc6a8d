"""The DCFlow claim check catches its broken variant at a cheap size.

Cheap size: both arms trained for a few steps into a temporary cache (never the user cache; the recipe's 600-step
artefacts are built by ``make report``), 8 test pairs. At this size the claim itself is not expected to pass, so
only the broken variant is asserted: with the decoupled training switched off (DCFlow's arm replaced by the
appearance-only model) the two arms are the same model, the paired difference is exactly 0 on every pair, and the
verdict cannot be "reproduced" whatever the training length.
"""
from __future__ import annotations

import numpy as np
import pytest

from validation.claims import evaluate_claim
from validation.opticalflow import _claim_dcflow, planted_crossmodal_pairs
from validation.registry import Profile


@pytest.fixture()
def tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR26SCI_CACHE", str(tmp_path))
    return tmp_path


def test_broken_variant_no_decoupling_fails(tmp_cache):
    res = _claim_dcflow(Profile("claims"), np.random.default_rng(0), "no_decoupling", n_test=8, steps=4)
    r = evaluate_claim(res)
    assert res.effect.estimate == 0.0 and r["verdict"] != "reproduced" and not r["passed"]


def test_claim_runs_at_cheap_size_and_reports_both_sets(tmp_cache):
    res = _claim_dcflow(Profile("claims"), np.random.default_rng(0), None, n_test=8, steps=4)
    assert {row["pair set"] for row in res.table} == {"claim", "control"}
    assert np.isfinite(res.effect.estimate) and res.effect.n == 8 and res.control.n == 8
    # min effect: half the paper's relative gain (1 - 3.46/21.23) / 2 of the pairs' mean |F_gt|
    row = res.table[0]
    assert row["min effect"] == pytest.approx(0.5 * (1 - 3.46 / 21.23) * row["EPE zero flow"])


def test_planted_pairs_are_inverted_and_textured():
    p = planted_crossmodal_pairs(4, 32, 0, texture=0.0)
    q = planted_crossmodal_pairs(4, 32, 0, texture=0.12)
    assert np.array_equal(p.flow, q.flow)                    # appearance only: the flow is the warp's
    # contrast inversion: B anti-correlates with A's luminance where the warp is near identity
    grey = p.image_a @ np.array([0.299, 0.587, 0.114])
    c = np.corrcoef(grey.ravel(), p.image_b.ravel())[0, 1]
    assert c < -0.3
    assert not np.allclose(p.image_b, q.image_b)
