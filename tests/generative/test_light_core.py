"""Tests of iclr26sci.generative.light: oracle, objects, mocap data, sampler, estimator, and bad input."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.generative.light import (LIGHT, HOIObject, HOISequences, LightDenoiser, LinearGaussianOracle,
                                        PaceGuidance, bootstrap_f1_difference, ddim_sample, hoi_dataset, hoi_metrics,
                                        motion_features, sample_object)
from iclr26sci.nn import DiffusionSchedule, ddim_levels

BAD_INPUT_EXEMPT = {
    "generative.HOIDataset": "a plain train/test container built by hoi_dataset (which validates its input)",
    "generative.HOIEvaluation": "a result container returned by LIGHT.evaluate",
}


@pytest.fixture(scope="module")
def small():
    return hoi_dataset("mocap", n=24, T=8, fps=10, rng=0)


@pytest.fixture(scope="module")
def tiny_model(small):
    return LIGHT(d_model=16, n_layers=1, n_heads=2, K=20, steps=8, text_encoder="bag-of-words", dropout=0.0,
                 batch_size=8, rng=0).fit(small, epochs=2)


# ---------------------------------------------------------------------------------------------- oracle
def test_oracle_posterior_mean_matches_regression():
    """E[x0 | y] is linear in y; least squares on many draws recovers the oracle's gain matrix."""
    orc = LinearGaussianOracle((4, 4, 2), K=100, rng=0)
    lv = (5, 95, 50)
    x0, y = orc.sample(200000, lv, rng=1)
    G_hat = np.linalg.lstsq(y, x0, rcond=None)[0].T
    G = orc.posterior_mean(np.eye(orc.d), lv).T
    assert np.abs(G_hat - G).max() < 0.02
    # posterior covariance = residual covariance of the regression
    resid = x0 - orc.posterior_mean(y, lv)
    np.testing.assert_allclose(np.cov(resid.T), orc.posterior_cov(lv), atol=0.01)
    # clean levels: the posterior mean is y itself
    np.testing.assert_allclose(orc.posterior_mean(y[:5], (-1, -1, -1)), y[:5], atol=1e-10)


@pytest.mark.bad_input("generative.LinearGaussianOracle")
def test_bad_oracle():
    with pytest.raises(InputError, match="dims"):
        LinearGaussianOracle(())
    with pytest.raises(InputError, match="cov"):
        LinearGaussianOracle((1, 1), cov=[[1, 2], [2, 1]])
    with pytest.raises(InputError, match="levels"):
        LinearGaussianOracle((2, 2), rng=0).posterior_cov((1, 2, 3))
    with pytest.raises(InputError, match="y"):
        LinearGaussianOracle((2, 2), rng=0).posterior_mean(np.zeros((3, 5)), (1, 2))


# ---------------------------------------------------------------------------------------------- objects
def test_object_sdfs():
    box = HOIObject("box", (0.1, 0.2, 0.3))
    assert box.sdf([0.0, 0.0, 0.0]) == pytest.approx(-0.1)
    assert box.sdf([0.5, 0.0, 0.0]) == pytest.approx(0.4)
    assert box.contact_offset() == pytest.approx(0.1, abs=1e-9)
    cyl = HOIObject("cylinder", (0.1, 0.2))
    assert cyl.sdf([0.0, 0.5, 0.0]) == pytest.approx(0.3)
    assert cyl.contact_offset() == pytest.approx(0.1, abs=1e-9)
    chair = sample_object("chair", rng=0)
    assert chair.sdf([0, 0, 0]) < 0 and chair.shape_code().shape == (33,)
    g = np.random.default_rng(0)
    V = g.standard_normal((200, 3))
    V /= np.linalg.norm(V, axis=1, keepdims=True) * 5        # a sphere of radius 0.2
    mesh = HOIObject("mesh", vertices=V)
    assert mesh.sdf([0, 0, 0]) < -0.15 and mesh.sdf([0.5, 0, 0]) == pytest.approx(0.3, abs=0.05)


@pytest.mark.bad_input("generative.HOIObject")
def test_bad_object():
    with pytest.raises(InputError, match="kind"):
        HOIObject("sphere")
    with pytest.raises(InputError, match="dims"):
        HOIObject("box", (0.1, 0.1))
    with pytest.raises(InputError, match="dims"):
        HOIObject("box", (0.1, -0.1, 0.1))
    with pytest.raises(InputError, match="vertices"):
        HOIObject("mesh", vertices=np.zeros((0, 3)))
    with pytest.raises(InputError, match="vertices"):
        HOIObject("mesh")
    with pytest.raises(InputError, match="points"):
        HOIObject("box").sdf([1.0, 2.0])


@pytest.mark.bad_input("generative.sample_object")
def test_bad_sample_object():
    with pytest.raises(InputError, match="kind"):
        sample_object("table")


# ---------------------------------------------------------------------------------------------- data
def test_mocap_dataset_is_real_motion_with_rule_contacts(small):
    tr = small.train
    assert tr.body.shape == (19, 8, 39) and tr.hands.shape == (19, 8, 6) and tr.object.shape == (19, 8, 9)
    # the root starts at the origin on the ground plane and stands at DeepMimic's pelvis height (0.85 m standing; up to ~1.2 m in jumps and flips)
    np.testing.assert_allclose(tr.body[:, 0, [0, 2]], 0.0, atol=1e-9)
    assert np.all((tr.body[:, 0, 1] > 0.3) & (tr.body[:, 0, 1] < 1.5))
    # bone lengths are constant over time (rigid skeleton played by forward kinematics)
    J = tr.joints()
    bone = np.linalg.norm(J[:, :, 4] - J[:, :, 3], axis=-1)             # right shoulder -> elbow
    np.testing.assert_allclose(bone, np.broadcast_to(bone[:, :1], bone.shape), atol=0.02)   # resampling interpolates positions: chords shorten by < 2 cm
    # the object moves only on contact frames (composed interaction), and contact happens in every sequence
    m = hoi_metrics(tr, tr)
    assert m["floating"] == 0.0 and m["contact_f1"] == 1.0
    assert tr.contact.any(1).all()
    assert all("holding the" in t for t in tr.text)


def test_hoi_dataset_object_families():
    d = hoi_dataset("mocap", objects="boxes", n=6, T=8, fps=10, rng=1)
    assert {o.kind for o in d.train.objects} == {"box"}
    assert motion_features(d.train).shape == (5, 3 * 8 + 15)


@pytest.mark.bad_input("generative.hoi_dataset")
def test_bad_hoi_dataset():
    with pytest.raises(InputError, match="source"):
        hoi_dataset("behave")
    with pytest.raises(InputError, match="objects"):
        hoi_dataset(objects="spheres")
    with pytest.raises(InputError, match="clips"):
        hoi_dataset(clips=("moonwalk",))
    with pytest.raises(InputError, match="T"):
        hoi_dataset(T=200, n=4)
    with pytest.raises(InputError, match="test_fraction"):
        hoi_dataset(test_fraction=1.0)


@pytest.mark.bad_input("generative.HOISequences")
def test_bad_sequences():
    ok = dict(body=np.zeros((2, 8, 39)), hands=np.zeros((2, 8, 6)), object=np.tile([0, 0, 0, 1, 0, 0, 0, 1, 0.], (2, 8, 1)),
              text=["lift the box"] * 2, objects=[HOIObject()] * 2)
    HOISequences.from_arrays(**ok)
    with pytest.raises(InputError, match="hands"):
        HOISequences.from_arrays(**{**ok, "hands": np.zeros((2, 7, 6))})          # inconsistent lengths
    with pytest.raises(InputError, match="body"):
        HOISequences.from_arrays(**{**ok, "body": np.zeros((2, 8, 42))})          # 14 joints, not 13
    with pytest.raises(InputError, match="text"):
        HOISequences.from_arrays(**{**ok, "text": ["lift the box", ""]})
    with pytest.raises(InputError, match="objects"):
        HOISequences.from_arrays(**{**ok, "objects": [HOIObject()]})


@pytest.mark.bad_input("generative.hoi_metrics")
def test_bad_metrics(small):
    with pytest.raises(InputError, match="gen"):
        hoi_metrics(small.train, small.test)
    with pytest.raises(InputError, match="eps"):
        hoi_metrics(small.test, small.test, eps=0.0)


@pytest.mark.bad_input("generative.motion_features")
def test_bad_motion_features():
    with pytest.raises(InputError, match="seqs"):
        motion_features(np.zeros((2, 8, 39)))


# ---------------------------------------------------------------------------------------------- sampler
def _toy_denoiser():
    g = torch.Generator().manual_seed(0)
    W = [torch.randn(d, d, generator=g) * 0.3 for d in (3, 2)]

    def den(xs, lv, null):
        # couples the two modalities so the pace term is non-zero; depends on levels and on the null flag
        s = lv.float().mean(1)[:, None, None] / 10
        mix = xs[0].mean(-1, keepdim=True) + xs[1].mean(-1, keepdim=True)
        return [torch.tanh(x @ w) * (1 - s) + 0.1 * mix * (0.0 if null else 1.0) for x, w in zip(xs, W)]

    x = [torch.randn(2, 5, d, generator=g) for d in (3, 2)]
    return den, x


def test_pace_guidance_limits_and_window():
    den, x = _toy_denoiser()
    sch, lv = DiffusionSchedule(30), ddim_levels(30, 20)
    base = ddim_sample(den, x, lv, sch, text_weight=1.5)
    for gd in (PaceGuidance(("a",), delta=0, weight=4.0, upstop=10), PaceGuidance(("a",), delta=6, weight=1.0, upstop=10)):
        out = ddim_sample(den, x, lv, sch, guidance=gd, names=("a", "b"))
        assert all(torch.equal(o, b) for o, b in zip(out, base))
    out = ddim_sample(den, x, lv, sch, guidance=PaceGuidance(("a",), delta=6, weight=4.0, upstop=10), names=("a", "b"))
    assert not torch.equal(out[1], base[1])
    # the released window: begin <= m <= S + 1 - upstop, m % k_div == 0, m + delta <= S - 2
    g = PaceGuidance(("a",), delta=6, weight=4.0, upstop=10, k_div=2, begin=1)
    assert g.guided_steps(20).tolist() == [2, 4, 6, 8, 10]
    assert PaceGuidance(delta=250).guided_steps(499).tolist() == list(range(0, 31))


def _naive_pace(den, x, lv, sch, gd, names):
    """The two passes written out in full (pass U to the end, pass S from the initial noise)."""
    from iclr26sci.nn import ddim_step

    S, B = len(lv) - 1, x[0].shape[0]
    w1, w2, d = gd.text_weight - 1, gd.weight - 1, gd.delta
    lead, fol = gd.resolve(names, S)
    full = lambda v: torch.full((B, len(x)), int(v))  # noqa: E731

    def stp(xs, x0, m):
        return [ddim_step(sch, a, b, torch.full((B, 1), int(lv[m])), torch.full((B, 1), int(lv[m + 1])))
                for a, b in zip(xs, x0)]

    U, u = [x], x
    for m in range(S):
        c, n = den(u, full(lv[m]), False), den(u, full(lv[m]), True)
        u = stp(u, [ci + w1 * (ci - ni) for ci, ni in zip(c, n)], m)
        U.append(u)
    xs = x
    for m in range(S):
        c, n = den(xs, full(lv[m]), False), den(xs, full(lv[m]), True)
        x0 = [ci + w1 * (ci - ni) for ci, ni in zip(c, n)]
        if m in set(gd.guided_steps(S).tolist()):
            lvp = full(lv[m])
            lvp[:, lead] = int(lv[m + d])
            p = den([U[m + d][i] if i in lead else xs[i] for i in range(len(x))], lvp, False)
            for i in fol:
                x0[i] = c[i] + w2 * (p[i] - c[i]) + w1 * (c[i] - n[i])
                if gd.code_faithful:                                 # the released code's second text term
                    x0[i] = x0[i] + w1 * (c[i] - n[i])
        xs = stp(xs, x0, m)
    return xs


def test_pace_sampler_shortcuts_and_fused_pass():
    """Stopping pass U at U[last + delta] and starting pass S at its first guided step change no bit of the sample;
    the fused pass (one stacked call per step) agrees to float rounding; the call count is as documented."""
    den, x = _toy_denoiser()

    def den_fused(xs, lv, null):                                     # the toy denoiser, per-row text flag
        if isinstance(null, bool):
            return den(xs, lv, null)
        outs = [den([t[r:r + 1] for t in xs], lv[r:r + 1], bool(null[r])) for r in range(len(null))]
        return [torch.cat([o[i] for o in outs]) for i in range(len(xs))]

    calls = []

    def counted(xs, lv, null):
        calls.append(xs[0].shape[0])
        return den(xs, lv, null)

    sch, lv = DiffusionSchedule(30), ddim_levels(30, 20)
    for gd in (PaceGuidance(("a",), delta=6, weight=4.0, upstop=10),
               PaceGuidance(("a",), delta=3, weight=2.5, upstop=14, k_div=2, begin=3, code_faithful=True)):
        ref = _naive_pace(den, x, lv, sch, gd, ("a", "b"))
        calls.clear()
        out = ddim_sample(counted, x, lv, sch, guidance=gd, names=("a", "b"))
        assert all(torch.equal(o, r) for o, r in zip(out, ref))
        g = gd.guided_steps(20).tolist()
        assert len(calls) == 2 * (g[-1] + gd.delta) + 2 * (20 - g[0]) + len(g)
        fused = ddim_sample(den_fused, x, lv, sch, guidance=gd, names=("a", "b"), fuse=True)
        assert max(float((f - r).abs().max()) for f, r in zip(fused, ref)) < 1e-5


def test_light_fused_sampling_matches(tiny_model):
    g = PaceGuidance(("body", "hands"), delta=2, weight=3.0, upstop=4)
    a = tiny_model.sample(["walk forward holding the box in the right hand", "jump holding the box in the left hand"],
                          "box", guidance=g, rng=0)
    b = tiny_model.sample(["walk forward holding the box in the right hand", "jump holding the box in the left hand"],
                          "box", guidance=g, rng=0, fuse=True)
    for k in ("body", "hands", "object"):
        np.testing.assert_allclose(getattr(a, k), getattr(b, k), atol=1e-4)


@pytest.mark.bad_input("generative.PaceGuidance")
def test_bad_pace_guidance():
    with pytest.raises(InputError, match="weight"):
        PaceGuidance(weight=-1.0)
    with pytest.raises(InputError, match="delta"):
        PaceGuidance(delta=-2)
    with pytest.raises(InputError, match="leaders"):
        PaceGuidance(leaders=())
    with pytest.raises(InputError, match="code_faithful"):
        PaceGuidance(code_faithful="yes")
    with pytest.raises(InputError, match="delta"):
        PaceGuidance(delta=30).resolve(("body", "hands", "object"), 20)       # delta larger than the steps
    with pytest.raises(InputError, match="leaders"):
        PaceGuidance(leaders=("face",)).resolve(("body", "hands", "object"), 20)
    with pytest.raises(InputError, match="followers"):
        PaceGuidance(leaders=("body",), followers=("body",)).resolve(("body", "hands", "object"), 20)


@pytest.mark.bad_input("generative.ddim_sample")
def test_bad_ddim_sample():
    den, x = _toy_denoiser()
    sch = DiffusionSchedule(30)
    with pytest.raises(InputError, match="denoise"):
        ddim_sample(None, x, ddim_levels(30, 5), sch)
    with pytest.raises(InputError, match="levels"):
        ddim_sample(den, x, [3, 5, -1], sch)
    with pytest.raises(InputError, match="schedule"):
        ddim_sample(den, x, ddim_levels(40, 5), sch)
    with pytest.raises(InputError, match="names"):
        ddim_sample(den, x, ddim_levels(30, 5), sch, guidance=PaceGuidance(("a",), delta=1))
    with pytest.raises(InputError, match="fuse"):
        ddim_sample(den, x, ddim_levels(30, 5), sch, fuse="yes")


@pytest.mark.bad_input("generative.LightDenoiser")
def test_bad_denoiser():
    with pytest.raises(InputError, match="token_dims"):
        LightDenoiser((), T=8, K=10, text_dim=4, shape_dim=3)
    with pytest.raises(InputError, match="n_heads"):
        LightDenoiser((3,), T=8, K=10, text_dim=4, shape_dim=3, d_model=10, n_heads=3)


# ---------------------------------------------------------------------------------------------- estimator
def test_light_fit_sample_evaluate(tiny_model, small):
    m = tiny_model
    assert m.names_ == ("body", "hands", "object") and len(m.history_) == 2
    seq = m.sample("walk forward holding the box in the right hand", "box", n=3, rng=0)
    assert seq.body.shape == (3, 8, 39) and np.all(np.isfinite(seq.object))
    again = m.sample("walk forward holding the box in the right hand", "box", n=3, rng=0)
    np.testing.assert_array_equal(seq.body, again.body)                   # eta = 0, same seed
    g = PaceGuidance(leaders=("body", "hands"), delta=2, weight=3.0, upstop=4)
    ev = m.evaluate(small.test, guidance=g, rng=0, n_boot=50)
    assert set(ev.metrics) >= {"contact_f1", "penetration", "floating", "fid", "diversity"}
    lo, hi = ev.ci["contact_f1"]
    assert lo <= ev.metrics["contact_f1"] <= hi
    assert "contact_f1" in ev.summary() and "metrics" in ev.to_dict()


def test_light_merged_tokens(small):
    m = LIGHT(d_model=16, n_layers=1, n_heads=2, K=20, steps=6, modalities=("body+hands", "object"),
              text_encoder="bag-of-words", batch_size=8, rng=0).fit(small, epochs=1)
    assert m.model_.token_dims == (45, 9)
    with pytest.raises(InputError, match="leaders"):
        m.sample("jump holding the box in the left hand", "box", guidance=PaceGuidance(leaders=("body",)))
    out = m.sample("jump holding the box in the left hand", "box",
                   guidance=PaceGuidance(leaders=("body+hands",), delta=1, upstop=3), rng=0)
    assert out.hands.shape == (1, 8, 6)


@pytest.mark.bad_input("generative.LIGHT")
def test_bad_light(tiny_model, small):
    with pytest.raises(InputError, match="modalities"):
        LIGHT(modalities=("body", "hands", "face")).fit(small, epochs=1)
    with pytest.raises(InputError, match="modalities"):
        LIGHT(modalities=("body", "hands")).fit(small, epochs=1)
    with pytest.raises(InputError, match="data"):
        LIGHT().fit(np.zeros((3, 8, 39)), epochs=1)
    with pytest.raises(InputError, match="epochs"):
        LIGHT(K=20, text_encoder="bag-of-words").fit(small, epochs=0)
    with pytest.raises(InputError, match="steps"):
        LIGHT(K=20, steps=40).fit(small, epochs=1)
    with pytest.raises(NotFittedError):
        LIGHT().sample("walk forward holding the box in the right hand", "box")
    m = tiny_model
    with pytest.raises(InputError, match="text"):
        m.sample("", "box")
    with pytest.raises(InputError, match="text"):
        m.sample([], "box")
    with pytest.raises(InputError, match="obj"):
        m.sample("jump holding the box in the left hand", "sofa")
    with pytest.raises(InputError, match="delta"):
        m.sample("jump holding the box in the left hand", "box", guidance=PaceGuidance(delta=50))
    with pytest.raises(InputError, match="weight"):
        m.sample("jump holding the box in the left hand", "box", guidance=PaceGuidance(weight=-0.5))
    with pytest.raises(InputError, match="text_weight"):
        m.sample("jump holding the box in the left hand", "box", text_weight=-1.0)
    with pytest.raises(InputError, match="fuse"):
        m.sample("jump holding the box in the left hand", "box", fuse=1)
    with pytest.raises(InputError, match="test"):
        m.evaluate(hoi_dataset("mocap", n=4, T=10, fps=10, rng=0))


@pytest.mark.bad_input("generative.bootstrap_f1_difference")
def test_bootstrap_f1_difference():
    a = np.array([[5, 6, 6]] * 20)
    d, lo, hi = bootstrap_f1_difference(a, a, n_boot=100, rng=0)
    assert d == lo == hi == 0.0
    with pytest.raises(InputError, match="counts_b"):
        bootstrap_f1_difference(a, a[:3])
    with pytest.raises(InputError, match="level"):
        bootstrap_f1_difference(a, a, level=1.5)


@pytest.mark.bad_input("generative.mesh_object")
def test_mesh_object():
    from iclr26sci.generative.light import mesh_object

    duck = mesh_object("duck", size=0.2)
    assert duck.kind == "mesh" and duck.extent() == pytest.approx(0.2)
    with pytest.raises(InputError, match="name"):
        mesh_object("dragon")
    with pytest.raises(InputError, match="size"):
        mesh_object("duck", size=0.0)
