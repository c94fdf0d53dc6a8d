"""Core behaviour of iclr26sci.scene3d.ssdgs: shading properties, the OLAT generator, fit / relight / decompose."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from iclr26sci.scene3d.ssdgs import (SSDGS, asg_lobe, dipole_profile, dipole_total_reflectance, light_space_visibility,
                                     olat_scene, schlick_fresnel)


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_fresnel_monotone_and_bounded(a, b):
    lo, hi = sorted((a, b))
    F = schlick_fresnel(torch.tensor([lo, hi], dtype=torch.float64))
    assert float(F[0]) >= float(F[1]) - 1e-15 and 0.04 - 1e-15 <= float(F[1]) <= 1.0 + 1e-15


@given(st.floats(0.05, 2.0), st.floats(0.05, 2.0), st.floats(0.0, 5.0), st.floats(0.0, 5.0))
def test_dipole_decreasing_in_r(ss, sa, r1, r2):
    lo, hi = sorted((r1, r2))
    R = dipole_profile(torch.tensor([lo, hi], dtype=torch.float64), ss, sa)
    assert float(R[0]) >= float(R[1]) - 1e-15 > -1


def test_dipole_variants_agree_only_at_unit_extinction():
    r = torch.linspace(0, 3, 7, dtype=torch.float64)
    assert torch.allclose(dipole_profile(r, 0.9, 0.1), dipole_profile(r, 0.9, 0.1, variant="code"))
    assert not torch.allclose(dipole_profile(r, 2.0, 0.05), dipole_profile(r, 2.0, 0.05, variant="code"))
    assert abs(float(dipole_total_reflectance(2.0, 0.05)) - 0.51780) < 1e-5       # spec's reference value


def test_asg_maximum_at_axis():
    h = torch.nn.functional.normalize(torch.randn(500, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0)),
                                      dim=1)
    g = asg_lobe(h, torch.eye(3, dtype=torch.float64), 2.0, 0.7, 0.4)[:, 0]
    top = asg_lobe(torch.tensor([[0.0, 0, 1]], dtype=torch.float64), torch.eye(3, dtype=torch.float64), 2.0, 0.7, 0.4)
    assert float(g.max()) <= float(top[0, 0])


def test_visibility_occluder_casts_shadow():
    means = torch.tensor([[0.0, 0, 0], [0.0, 0, 1.0], [2.0, 0, 0]])
    ls = torch.tensor([[-2.0] * 3, [-1.5] * 3, [-2.0] * 3])          # the occluder is wider than the receiver
    v = light_space_visibility(means, torch.tensor([[1.0, 0, 0, 0]] * 3), ls, torch.tensor([0.0, 6.0, 0.0]),
                               [0.0, 0.05, 4.0], width=48, height=48, focal=60.0)
    assert float(v[0]) < 0.1 and float(v[1]) > 0.99 and float(v[2]) > 0.99


@pytest.fixture(scope="module")
def data():
    return olat_scene(mesh="sphere", cameras=2, train_lights=3, test_lights=2, size=16, rng=1, light_samples=2)


def test_olat_components_sum_and_ranges(data):
    s = data.train
    assert s.images.shape == (6, 16, 16, 3) and len(s.cameras) == 6
    np.testing.assert_allclose(s.images, s.diffuse + s.specular + s.subsurface)
    assert s.shadow.min() >= 0 and s.shadow.max() <= 1 and (s.shadow < 1).any()       # the cylinder's shadow
    assert (s.subsurface > 0).any() and (s.specular > 0).any()
    assert np.all(s.specular[s.lambert_mask] == 0) and np.all(s.subsurface[s.lambert_mask] == 0)
    # test lights are drawn separately from the training lights
    assert not np.any(np.all(np.isclose(data.test.lights[:, None], s.lights[None]), -1))


def test_olat_is_seeded():
    a = olat_scene(mesh="sphere", cameras=1, train_lights=1, test_lights=1, size=8, rng=3, backend="numpy")
    b = olat_scene(mesh="sphere", cameras=1, train_lights=1, test_lights=1, size=8, rng=3, backend="numpy")
    np.testing.assert_array_equal(a.train.images, b.train.images)


def test_fit_relight_decompose(data):
    m = SSDGS(n_gaussians=150, n_steps=12, rng=0).fit(data.train)
    assert len(m.history_) == 12 and np.all(np.isfinite(m.history_)) and m.n_gaussians_ == 150
    cam, L = data.test.cameras[0], data.test.lights[0]
    dec = m.decompose(cam, L)
    img = m.relight(cam, L)
    np.testing.assert_allclose(img, dec.image)
    # light linearity: doubling the intensity doubles the image (no clipping); RGB intensity scales channels
    np.testing.assert_allclose(m.relight(cam, L, intensity=2 * m.reference_intensity_), 2 * img, rtol=1e-6, atol=1e-7)
    rgb = m.relight(cam, L, intensity=m.reference_intensity_ * np.array([1.0, 0.5, 0.25]))
    np.testing.assert_allclose(rgb, img * np.array([1.0, 0.5, 0.25]), rtol=1e-5, atol=1e-7)
    s = m.evaluate(data.test)
    assert s.n_images == len(data.test) and math.isfinite(s.psnr) and 0 <= s.specular_leak <= 1
    assert set(s.component_mse) == {"diffuse", "specular", "subsurface", "shadow"}


def test_evaluate_scores_an_overshooting_render(data):
    # a render far above [0, 1] (here: the test lights made brighter than the images, so that the first test
    # render peaks at 5) is scored, not refused: PSNR on the raw render, SSIM on the render clipped to [0, 1]
    import dataclasses

    m = SSDGS(n_gaussians=80, n_steps=3, rng=0).fit(data.train)
    peak = m.relight(data.test.cameras[0], data.test.lights[0], intensity=data.test.intensity[0]).max()
    hot = dataclasses.replace(data.test, intensity=(5 / peak) * np.asarray(data.test.intensity))
    assert m.relight(hot.cameras[0], hot.lights[0], intensity=hot.intensity[0]).max() > 2
    s, s0 = m.evaluate(hot), m.evaluate(data.test)
    assert math.isfinite(s.ssim) and -1 <= s.ssim <= 1 and s.psnr < s0.psnr


def test_without_shadow_image_is_sum_of_components(data):
    m = SSDGS(n_gaussians=80, n_steps=3, ablation="C", rng=0).fit(data.train)
    dec = m.decompose(data.test.cameras[0], data.test.lights[0])
    np.testing.assert_allclose(dec.image, dec.diffuse + dec.specular + dec.subsurface, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kw", [{"appearance": "sh"}, {"appearance": "light_mlp"}, {"appearance": "gs3"},
                                {"schedule": "joint"}, {"schedule": "swapped"}, {"schedule": "merged"},
                                {"dipole": "code"}, {"ablation": "E"}, {"normal_init": "identity"}])
def test_variants_fit(data, kw):
    m = SSDGS(n_gaussians=60, n_steps=3, rng=0, **kw).fit(data.train)
    assert np.all(np.isfinite(m.relight(data.test.cameras[0], data.test.lights[0])))


def test_schedule_order():
    m = SSDGS(n_steps=100)
    on = [m._stage(s, 100)[0] for s in (0, 6, 10, 17)]
    assert on[0] == {"diffuse"} and on[1] == {"diffuse", "shadow"} and "sss" in on[2] and "specular" not in on[2]
    assert on[3] == {"diffuse", "shadow", "sss", "specular"}
    assert SSDGS(schedule="joint")._stage(0, 100)[0] == {"diffuse", "shadow", "sss", "specular"}
    assert SSDGS(ablation="A", schedule="joint")._stage(0, 100)[0] == {"diffuse"}


def test_fit_is_deterministic(data):
    a = SSDGS(n_gaussians=60, n_steps=4, rng=5).fit(data.train).history_
    b = SSDGS(n_gaussians=60, n_steps=4, rng=5).fit(data.train).history_
    assert a == b


def test_training_ssim_accepts_an_overshooting_render():
    # the training loss's SSIM equals geom.ssim in range, and takes a render above 2 (which geom.ssim refuses as
    # an image on another scale): SSD-GS training must not stop when a render overshoots transiently
    import torch

    from iclr26sci.core import InputError
    from iclr26sci.geom import ssim
    from iclr26sci.geom._metrics import _ssim

    g = torch.Generator().manual_seed(0)
    x, y = torch.rand(1, 3, 16, 16, generator=g), torch.rand(1, 3, 16, 16, generator=g)
    assert abs(float(_ssim(x, y)) - float(ssim(x, y))) < 1e-12
    with pytest.raises(InputError):
        ssim(3 * x, y)
    assert math.isfinite(float(_ssim(3 * x, y)))
