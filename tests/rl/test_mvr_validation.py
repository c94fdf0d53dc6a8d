"""The mvr validation checks pass on the implementation and fail on the broken variants they name (power)."""
from __future__ import annotations

import numpy as np
import pytest

import validation.mvr as V
from validation.registry import Profile

QUICK = Profile("quick")


def _run(fn, variant=None, seed=0):
    return fn(QUICK, np.random.default_rng(fn.check_spec.seed(seed)), _variant=variant)


def _failed(res):
    return [c.name for c in res.criteria if not c.passed]


def test_c3_1_passes_and_catches_broken_shapings():
    assert not _failed(_run(V.c3_1_fade_monotonicity))
    flipped = _run(V.c3_1_fade_monotonicity, lambda d, w, t, c: np.clip(-w * np.logaddexp(0, d / t), -c, c))
    assert any("monotone" in n for n in _failed(flipped))
    linear = _run(V.c3_1_fade_monotonicity, lambda d, w, t, c: np.clip(w * d / t, -c, c))
    assert any("<= 0" in n for n in _failed(linear)) and any("fade" in n for n in _failed(linear))
    unclipped = _run(V.c3_1_fade_monotonicity, lambda d, w, t, c: w * -np.logaddexp(0, -d / t))
    assert any("clip" in n for n in _failed(unclipped))


def test_c3_5_pbrs_exact_and_broken_pbrs_fails():
    assert not _failed(_run(V.c3_5_policy_invariance))
    for variant in ("no_terminal_zero", "no_gamma"):
        assert any("PBRS" in n for n in _failed(_run(V.c3_5_policy_invariance, variant)))


@pytest.mark.slow
def test_c3_2_catches_flipped_labels():
    assert not _failed(_run(V.c3_2_bradley_terry_consistency))
    assert len(_failed(_run(V.c3_2_bradley_terry_consistency, "flipped_labels"))) == 4


@pytest.mark.slow
def test_c3_3_catches_an_image_scorer_in_place_of_video():
    assert not _failed(_run(V.c3_3_video_beats_image))
    assert _failed(_run(V.c3_3_video_beats_image, "image_for_both"))


@pytest.mark.slow
def test_c3_4_catches_dropped_view_averaging():
    assert not _failed(_run(V.c3_4_multiview_beats_single))
    assert _failed(_run(V.c3_4_multiview_beats_single, "first_view_only"))


@pytest.mark.slow
def test_c3_6_passes_and_catches_shapings_that_do_not_fade():
    assert not _failed(_run(V.c3_6_shaping_fades))
    # a linear term w D / tau and the non-positivity dropped (F = 0 at the reference, > 0 above it) do not fade
    # once the relevance rises above the reference: criterion (a) fails
    for variant in ("linear", "centred"):
        assert [n for n in _failed(_run(V.c3_6_shaping_fades, variant)) if n.startswith("(a)")], variant
    # the gap flipped: the shaping grows as the behaviour improves, (a) and (b) fail
    assert {n[:3] for n in _failed(_run(V.c3_6_shaping_fades, "flipped"))} >= {"(a)", "(b)"}


def test_c3_6_variants_are_the_named_shapings():
    import math

    from iclr26sci.rl.mvr import mvr_shaping

    d = np.array([-1.0, 0.0, 1.0])
    lin, flip, cen = (V._C3_6_VARIANTS[k](mvr_shaping) for k in ("linear", "flipped", "centred"))
    np.testing.assert_allclose(lin(d), [-1.0, 0.0, 1.0])
    np.testing.assert_allclose(flip(d), mvr_shaping(-d))
    np.testing.assert_allclose(cen(d), mvr_shaping(d) + 0.1 * math.log(2.0))
    assert cen(d)[1] == pytest.approx(0.0, abs=1e-12) and cen(d)[2] > 0
