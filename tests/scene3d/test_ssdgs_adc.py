"""Adaptive density control in SSD-GS: geom's 3DGS strategy (clone / split / prune / opacity reset) keeps every
per-Gaussian attribute and its Adam moments aligned, leaves the shared ASG lobes alone, respects the growth cap, and
gives an under-fitted scene more Gaussians and a lower training loss."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from iclr26sci.scene3d import _ssdgs_data as dat
from iclr26sci.scene3d._ssdgs_adc import SHARED, Densifier, camera_extent, scaled_schedule
from iclr26sci.scene3d._ssdgs_model import SSDGS


@pytest.fixture(scope="module")
def sphere():
    train, test, _, _ = dat.sphere_olat(cameras=2, train_lights=6, test_lights=2, size=16, rng=0, n_points=400)
    return train


def _model_and_optimizer(data, appearance="ssdgs", n=6):
    m = SSDGS(n_gaussians=n, n_steps=0, appearance=appearance, ablation="C", rng=0, progress=False).fit(data)
    opt = m._make_optimizer()
    g = torch.Generator().manual_seed(1)
    for _ in range(2):                              # distinct, non-zero Adam moments on every row
        opt.zero_grad()
        for grp in opt.param_groups:
            for q in grp["params"]:
                q.grad = torch.randn(q.shape, generator=g, dtype=q.dtype)
        opt.step()
    p = m.params_
    with torch.no_grad():
        p["log_scales"][:] = math.log(0.2)
        p["log_scales"][0] = math.log(0.005)          # small: cloned
        p["opacity"][:] = 1.0
        p["opacity"][2] = -9.0                         # transparent: pruned
    return m, opt


def _densifier(m, opt, **kw):
    sch = dict(densify_from=0, densify_until=100, densify_every=1, opacity_reset_every=1000)
    sch.update(kw.pop("schedule", {}))
    args = dict(schedule=sch, grow_grad2d=2e-4, percent_dense=0.01, prune_opacity=0.005, scene_scale=1.0,
                max_gaussians=None, seed=3)
    args.update(kw)
    return Densifier(m, opt, **args)


def _raster(n, grows, scale=1.0):
    g = torch.zeros(n, 2)
    g[list(grows)] = scale * torch.tensor([1.0, 1.0])
    return SimpleNamespace(means2d=SimpleNamespace(grad=g), radii=torch.full((n,), 3, dtype=torch.long))


def _moments(opt, q):
    st = opt.state.get(q, {})
    return st.get("exp_avg"), st.get("exp_avg_sq")


def _in_optimizer(opt, q):
    return sum(any(r is q for r in grp["params"]) for grp in opt.param_groups)


@pytest.mark.parametrize("appearance", ["ssdgs", "sh", "light_mlp"])
def test_clone_split_prune_keep_attributes_and_adam_state_aligned(sphere, appearance):
    m, opt = _model_and_optimizer(sphere, appearance)
    p0 = {k: v.detach().clone() for k, v in m.params_.items()}
    mom0 = {k: tuple(t.clone() for t in _moments(opt, v)) for k, v in m.params_.items()}
    shared0 = {k: m.params_[k] for k in SHARED if k in m.params_}
    n_group_params = sum(len(grp["params"]) for grp in opt.param_groups)
    d = _densifier(m, opt)
    # Gaussian 0 (small) is cloned, 1 (large) is split, 2 (transparent) is pruned, 3-5 are left alone
    info = d.after_step(1, _raster(6, (0, 1)), 8, 8)
    assert info == {"cloned": 1, "split": 1, "pruned": 1}
    p = m.params_
    order = [0, 3, 4, 5]                            # survivors in place, then the clone, then the two split halves
    per_gaussian = [k for k in p if k not in SHARED]
    assert {k: p[k].shape[0] for k in per_gaussian} == {k: 7 for k in per_gaussian}
    for k in per_gaussian:
        q = p[k]
        assert isinstance(q, torch.nn.Parameter) and _in_optimizer(opt, q) == 1
        torch.testing.assert_close(q.detach()[:4], p0[k][order])
        torch.testing.assert_close(q.detach()[4], p0[k][0])                       # the clone
        if k == "log_scales":
            torch.testing.assert_close(q.detach()[5:], (p0[k][1] - math.log(1.6)).expand(2, -1))
        elif k == "means":
            # two samples from the parent's Gaussian (isotropic sigma 0.2): different, within 6 sigma
            assert not torch.allclose(q.detach()[5], q.detach()[6])
            assert float((q.detach()[5:] - p0[k][1]).norm(dim=1).max()) < 6 * 0.2 * math.sqrt(3)
        else:
            torch.testing.assert_close(q.detach()[5:], p0[k][1].expand(2, *p0[k].shape[1:]))
        for t, t0 in zip(_moments(opt, q), mom0[k]):
            assert t.shape == q.shape
            torch.testing.assert_close(t[:4], t0[order])                         # moments travel with their rows
            assert float(t[4:].abs().max()) == 0.0                              # new Gaussians: zero moments
    for k, q in shared0.items():                    # the per-lobe ASG parameters are not per-Gaussian: untouched
        assert p[k] is q and _in_optimizer(opt, q) == 1
        torch.testing.assert_close(q.detach(), p0[k])
        for t, t0 in zip(_moments(opt, q), mom0[k]):
            torch.testing.assert_close(t, t0)
    assert sum(len(grp["params"]) for grp in opt.param_groups) == n_group_params
    assert d.history == [{"step": 1, "cloned": 1, "split": 1, "pruned": 1, "n": 7}]
    # the edited model still renders, back-propagates and steps
    out = m._render(m._cam(sphere.cameras[0]), sphere.lights[0], 1.0, m._components())
    opt.zero_grad()
    out.image[..., :3].sum().backward()
    opt.step()
    assert out.radii.shape == (7,) and all(bool(torch.isfinite(v).all()) for v in p.values())


def test_opacity_reset_caps_opacity_and_zeroes_only_its_moments(sphere):
    m, opt = _model_and_optimizer(sphere)
    mom0 = {k: tuple(t.clone() for t in _moments(opt, v)) for k, v in m.params_.items()}
    d = _densifier(m, opt, schedule=dict(densify_from=50, densify_until=100, opacity_reset_every=7))
    d.after_step(7, _raster(6, ()), 8, 8)                          # a reset step, not a refinement step
    p = m.params_
    assert p["opacity"].shape[0] == 6 and d.history == []
    assert float(torch.sigmoid(p["opacity"].detach()).max()) <= 2 * 0.005 + 1e-7
    for t in _moments(opt, p["opacity"]):
        assert float(t.abs().max()) == 0.0
    for t, t0 in zip(_moments(opt, p["kd"]), mom0["kd"]):
        torch.testing.assert_close(t, t0)


def test_growth_is_budgeted_to_the_largest_gradients(sphere):
    m, opt = _model_and_optimizer(sphere)
    with torch.no_grad():
        m.params_["opacity"][2] = 1.0                               # nothing to prune here
        m.params_["log_scales"][:] = math.log(0.005)                # all small: growth = cloning
    kd0 = m.params_["kd"].detach().clone()
    d = _densifier(m, opt, max_gaussians=8)
    r = _raster(6, (1, 3, 4))
    r.means2d.grad[3] *= 3.0                                        # Gaussians 3 and 1 have the largest gradients
    r.means2d.grad[1] *= 2.0
    info = d.after_step(1, r, 8, 8)
    assert info["cloned"] == 2 and m.params_["means"].shape[0] == 8
    torch.testing.assert_close(m.params_["kd"].detach()[6:], kd0[[1, 3]])
    info = d.after_step(2, _raster(8, range(8)), 8, 8)              # at the cap: nothing grows
    assert info["cloned"] + info["split"] == 0 and m.params_["means"].shape[0] == 8


def test_scaled_schedule_and_extent():
    assert scaled_schedule(30000) == dict(densify_from=500, densify_until=15000, densify_every=100,
                                          opacity_reset_every=3000)
    s = scaled_schedule(600, lr_scale=4.0)
    assert s == dict(densify_from=10, densify_until=300, densify_every=10, opacity_reset_every=750)
    assert scaled_schedule(3000, lr_scale=0.5)["opacity_reset_every"] == 6000
    assert scaled_schedule(600, densify_every=25)["densify_every"] == 25
    cams = [SimpleNamespace(centre=torch.tensor(c)) for c in ([2.0, 0, 0], [-2.0, 0, 0])]
    assert abs(camera_extent(cams) - 2.2) < 1e-12


def test_underfitted_scene_gets_more_gaussians_and_a_lower_training_loss():
    """16 Gaussians cannot draw a Lambertian sphere at 16 px (the shading model is exact for it, so the count is the
    only limit): with ADC the count grows to the cap and the training loss (all training images, after the same 300
    steps on the same image sequence) drops (measured 0.112 -> 0.075 at rng 0, 0.113 -> 0.082 at rng 1)."""
    from iclr26sci.geom import ssim

    lam, *_ = dat.sphere_olat(cameras=2, train_lights=6, test_lights=1, size=16, rng=0, n_points=400, specular=0.0,
                              subsurface=(0.0, 0.0, 0.0), albedo=0.7)

    def train_loss(m):
        tot = 0.0
        with torch.no_grad():
            for i in range(len(lam)):
                im = m._render(m._cam(lam.cameras[i]), lam.lights[i], 1.0, m._components()).image[..., :3]
                gt = torch.tensor(lam.images[i], dtype=im.dtype)
                tot += float(0.8 * (im - gt).abs().mean()
                             + 0.2 * (1 - ssim(im.permute(2, 0, 1)[None], gt.permute(2, 0, 1)[None])))
        return tot / len(lam)

    kw = dict(n_gaussians=16, n_steps=300, ablation="A", schedule="joint", lr_scale=4.0, rng=0, progress=False)
    off = SSDGS(densify=False, **kw).fit(lam)
    on = SSDGS(**kw).fit(lam)
    assert off.n_gaussians_ == 16 and off.densify_history_ == [] and on.n_gaussians_init_ == 16
    assert 16 < on.n_gaussians_ <= 64                               # grown, within the default cap 4 x 16
    assert sum(h["cloned"] + h["split"] for h in on.densify_history_) > 0
    assert on.densify_schedule_ == scaled_schedule(300, lr_scale=4.0)
    lo, lf = train_loss(on), train_loss(off)
    assert lo < 0.85 * lf, (lo, lf)
