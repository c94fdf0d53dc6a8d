"""Rendering, detection (also against real nuclei masks), linking, MSD fits, flags and the judges."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.microsim import (KeywordJudge, OracleJudge, PhysicsJudge, RandomJudge, Rubric, Tracks, Video, analyse,
                                as_frames, detect, fit_msd, growth_rate, link, msd, physics_flags, render,
                                score_video, simulate, velocity_profile)

BAD_INPUT_EXEMPT = {
    "microsim.DIMENSIONS": "a constant tuple of the three rubric dimensions",
    "microsim.PHYSICS_RULES": "a constant dict of the physics judge's keyword rules",
    "microsim.SIMULATORS": "a constant dict kind -> simulator (the simulators are tested through simulate)",
    "microsim.KB": "Boltzmann's constant",
    "microsim.Judge": "a typing Protocol describing the judge callable; takes no input itself",
    "microsim.VideoScore": "a result record returned by score_verdicts / score_video",
    "microsim.BenchmarkScore": "a result record returned by aggregate",
    "microsim.TrackAnalysis": "a result record returned by fit_msd / analyse",
    "microsim.FieldAnalysis": "a result record returned by analyse(kind='field')",
    "microsim.ColonyAnalysis": "a result record returned by growth_rate / analyse(kind='colony')",
    "microsim.ProfileAnalysis": "a result record returned by velocity_profile",
    "microsim.PhysicsFlags": "a result record returned by physics_flags",
}


def _still(pos_px, shape=(64, 64), n=3, snr=float("inf")):
    tr = Tracks(np.repeat(np.asarray(pos_px, float)[None] * 0.1, n, 0), 0.05, "brownian", box=(6.4, 6.4))
    return render(tr, shape=shape, snr=snr, rng=0)


def test_render_spot_and_detection_subpixel():
    P = np.array([[20.3, 30.7], [45.5, 12.2]])
    v = _still(P)
    assert v.frames.dtype == np.uint8 and v.frames.shape == (3, 64, 64)
    d = detect(v)[0]
    d = d[np.argsort(d[:, 0])]
    np.testing.assert_allclose(d[:, :2], P, atol=0.08)


def test_render_noise_level_and_texture():
    from data_adapters.microscopy import load_cell_image

    tr = simulate("brownian", n_particles=10, D=0.5, steps=20, rng=0)
    v = render(tr, snr=10, rng=0)
    assert v.meta["noise_sigma"] == pytest.approx(255 * 0.05)
    bg = load_cell_image().image
    vt = render(tr, snr=10, background=bg, rng=0)
    assert vt.meta["background_texture"] and vt.frames.std() > v.frames.std()
    # the temporal median removes the real texture: the same particles are found
    n_plain = sum(len(x) for x in detect(v))
    n_text = sum(len(x) for x in detect(vt))
    assert abs(n_text - n_plain) <= 0.15 * n_plain


def test_detection_against_stardist_masks():
    from data_adapters.microscopy import load_stardist_nuclei

    im = load_stardist_nuclei("2d")
    d = detect((255 * im.image)[None], psf_sigma=3.0)[0]
    lab = im.mask[d[:, 1].astype(int), d[:, 0].astype(int)]
    precision = np.mean(lab > 0)
    recall = len(set(lab[lab > 0].tolist())) / im.n_objects
    assert precision >= 0.95 and recall >= 0.7


def test_link_hungarian_and_gaps():
    dets = [np.array([[0.0, 0.0], [10.0, 0.0]]), np.array([[10.4, 0.0], [0.3, 0.0]]), np.array([[30.0, 30.0]])]
    tr = link(dets, max_disp=2.0)
    assert tr.shape == (3, 3, 2)
    np.testing.assert_allclose(tr[1, :2], [[0.3, 0.0], [10.4, 0.0]])
    assert np.isnan(tr[2, 0]).all() and np.allclose(tr[2, 2], [30, 30])


def test_roundtrip_small_video():
    tr = simulate("brownian", n_particles=30, D=0.5, dt=0.05, steps=120, substeps=5, box=(19.2, 19.2), rng=1)
    est = analyse(render(tr, snr=10, rng=1), "tracks", n_boot=50)
    assert abs(est.D / 0.5 - 1) < 0.2 and est.intercept < 0   # blur makes the offset negative
    assert "TrackAnalysis(D=" in repr(est) and "D" in est.to_dict() and "alpha" in est.summary()


def test_field_and_colony_analysis():
    f = simulate("diffusion", grid=48, steps=40)
    fa = analyse(f, "field")
    assert fa.D == pytest.approx(0.5, rel=0.03)
    col = simulate("division", n0=2, spatial=True, n_max=24, frame_dt=0.1, rng=0)
    ca = analyse(render(col, rng=0), "colony")
    assert ca.rate > 0 and ca.counts[-1] > ca.counts[0]


def test_flags_frozen_flicker_ballistic():
    tr = simulate("brownian", n_particles=12, D=0.4, steps=60, box=(12.8, 12.8), rng=2)
    v = render(tr, rng=2)
    assert physics_flags(v).violations == []
    fr = v.frames.copy()
    fr[20:45] = fr[20]
    assert physics_flags(fr).frozen
    fr = v.frames.copy()
    fr[30] = np.clip(fr[30].astype(int) * 2 + 20, 0, 255).astype(np.uint8)
    assert physics_flags(fr).flicker
    bal = simulate("brownian", n_particles=10, D=0.01, steps=60, box=(12.8, 12.8), rng=3)
    bal.positions = bal.positions + np.arange(61)[:, None, None] * 0.05 * np.array([1.5, 1.0])
    assert physics_flags(render(bal, rng=3)).ballistic


def test_judges():
    r = Rubric.example()
    t = r.task("brownian_motion")
    v = np.zeros((8, 8, 8), np.uint8)
    assert score_video(v, t, OracleJudge({(1, d): [0] * 5 for d in ("scientific", "visual", "instruction")})).total == 0
    rnd = [score_video(v, t, RandomJudge(p=0.5, rng=s)).total for s in range(5)]
    assert len(set(rnd)) > 1
    assert score_video(v, t, RandomJudge(p=1.0, rng=0)).verdicts["scientific"] == [1] * 5
    kw = score_video(v, t, KeywordJudge())   # the task prompt as caption
    assert kw.verdicts["scientific"][0] == 1
    tr = simulate("brownian", n_particles=15, D=0.5, steps=60, box=(12.8, 12.8), rng=0)
    vid = render(tr, rng=0)
    pj = PhysicsJudge(fallback=OracleJudge())
    s = score_video(vid, t, pj)
    assert s.verdicts["scientific"][0] == 1 and s.verdicts["scientific"][4] == 0   # diffusive, no jumps
    assert s.verdicts["instruction"][4] == 0                                     # not frozen
    assert s.verdicts["visual"][2] == 1                                          # fallback (oracle)
    frozen = vid.frames.copy()
    frozen[10:] = frozen[10]
    s2 = score_video(frozen, t, PhysicsJudge())
    assert s2.verdicts["instruction"][4] == 1


@pytest.mark.bad_input("microsim.OracleJudge", "microsim.RandomJudge", "microsim.KeywordJudge", "microsim.PhysicsJudge")
def test_judges_bad_input():
    with pytest.raises(InputError, match="truth"):
        OracleJudge(truth=3)
    with pytest.raises(InputError, match="p"):
        RandomJudge(p=1.5)
    with pytest.raises(InputError, match="caption"):
        KeywordJudge(caption=5)
    with pytest.raises(InputError, match="threshold"):
        KeywordJudge(threshold=0)
    with pytest.raises(InputError, match="rules"):
        PhysicsJudge(rules={"magic": "x"})
    with pytest.raises(InputError, match="rules"):
        PhysicsJudge(rules={"frozen": "("})
    with pytest.raises(InputError, match="fallback"):
        PhysicsJudge(fallback=3)
    with pytest.raises(InputError, match="request"):
        OracleJudge()(np.zeros((8, 4, 4)), "request")
    with pytest.raises(InputError, match="truth"):
        score_video(np.zeros((8, 4, 4)), Rubric.example().task(1), OracleJudge({"visual": [1] * 5}))


@pytest.mark.bad_input("microsim.render", "microsim.as_frames", "microsim.Video", "microsim.detect",
                       "microsim.analyse", "microsim.physics_flags")
def test_video_bad_input():
    nan = np.zeros((12, 16, 16))
    nan[2, 3, 3] = np.nan
    for f in (as_frames, detect, physics_flags):
        with pytest.raises(InputError, match="video"):
            f(nan)
    with pytest.raises(InputError, match="data"):      # analyse names its own argument
        analyse(nan, "tracks")
    with pytest.raises(InputError, match="video"):
        as_frames(np.zeros((4, 4)))
    with pytest.raises(InputError, match="video"):
        as_frames(np.array([["a"]], dtype=object))
    with pytest.raises(InputError, match="video"):
        physics_flags(np.zeros((5, 16, 16)))
    with pytest.raises(InputError, match="data"):
        analyse(np.zeros((4, 16, 16)), "tracks")
    with pytest.raises(InputError, match="kind"):
        analyse(np.zeros((12, 16, 16)), "spectrum")
    tr = simulate("brownian", D=0.5, n_particles=3, steps=3, rng=0)
    with pytest.raises(InputError, match="sim"):
        render(np.zeros((3, 8, 8)))
    with pytest.raises(InputError, match="psf_sigma"):
        render(tr, psf_sigma=0)
    with pytest.raises(InputError, match="snr"):
        render(tr, snr=-1)
    with pytest.raises(InputError, match="pixel_size"):
        render(tr, pixel_size=0)
    with pytest.raises(InputError, match="background"):
        render(tr, background=np.full((20, 20), np.nan))
    with pytest.raises(InputError, match="sim"):
        render(simulate("division", n_max=5, rng=0))
    with pytest.raises(InputError, match="psf_sigma"):
        detect(np.zeros((2, 16, 16)), psf_sigma=-1)
    with pytest.raises(InputError, match="background"):
        detect(np.zeros((2, 16, 16)), background="mean")
    with pytest.raises(InputError, match="kind"):
        analyse(simulate("diffusion", grid=8, steps=2), "tracks")


@pytest.mark.bad_input("microsim.link", "microsim.msd", "microsim.fit_msd", "microsim.velocity_profile",
                       "microsim.growth_rate")
def test_track_analysis_bad_input():
    with pytest.raises(InputError, match="max_disp"):
        link([np.zeros((1, 2))], max_disp=0)
    with pytest.raises(InputError, match="detections"):
        link([])
    with pytest.raises(InputError, match="detections"):
        link([np.array([[np.nan, 0.0]])])
    with pytest.raises(InputError, match="positions"):
        msd(np.zeros((1, 3, 2)))
    with pytest.raises(InputError, match="max_lag"):
        msd(np.zeros((5, 3, 2)), max_lag=9)
    with pytest.raises(InputError, match="dt"):
        msd(np.zeros((5, 3, 2)), dt=0)
    with pytest.raises(InputError, match="n_lags"):
        fit_msd(np.zeros((5, 3, 2)), n_lags=1)
    with pytest.raises(InputError, match="alpha_lags"):
        fit_msd(np.random.default_rng(0).normal(size=(20, 3, 2)), alpha_lags=(5, 2))
    with pytest.raises(InputError, match="positions"):
        fit_msd(np.full((20, 3, 2), np.inf))
    with pytest.raises(InputError, match="n_bins"):
        velocity_profile(np.zeros((5, 3, 2)), n_bins=2)
    with pytest.raises(InputError, match="flow_axis"):
        velocity_profile(np.zeros((5, 3, 2)), flow_axis=2)
    with pytest.raises(InputError, match="counts"):
        growth_rate([0, 1, 2], [1, 0, 4])
    with pytest.raises(InputError, match="counts"):
        growth_rate([0, 1], [1, 2, 3])
    with pytest.raises(InputError, match="min_count"):
        growth_rate([0, 1, 2, 3], [1, 2, 4, 8], min_count=5)
