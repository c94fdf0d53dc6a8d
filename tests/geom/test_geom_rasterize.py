"""The rasterizer: tiled vs per-pixel reference, gradcheck, compositing rules, culling."""
import torch
from hypothesis import given, settings, strategies as st

from iclr26sci.geom import Camera, project_gaussians, rasterize_gaussians, rasterize_gaussians_reference
from iclr26sci.geom._rasterize import T_MIN, composite_weights

D = torch.float64


def scene(n, seed, dtype=D, spread=0.7, scale=-2.0, opac=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(n, 3, generator=g, dtype=dtype) * spread, torch.randn(n, 4, generator=g, dtype=dtype),
            torch.randn(n, 3, generator=g, dtype=dtype) * 0.3 + scale,
            torch.randn(n, generator=g, dtype=dtype) + opac, torch.rand(n, 3, generator=g, dtype=dtype))


def cam(w=20, h=17, f=20.0, dtype=D, eye=(0.3, -0.2, -4.0)):
    return Camera.look_at(torch.tensor(eye, dtype=dtype), [0.0, 0, 0], up=[0.0, -1, 0], fx=f, fy=0.9 * f,
                          width=w, height=h, cx=w / 2 + 0.7, cy=h / 2 - 0.4)


def _agree(a, b, tol=1e-6):
    for k in ("image", "alpha", "depth"):
        assert (getattr(a, k) - getattr(b, k)).abs().max() <= tol, k
    assert torch.equal(a.radii, b.radii)


def test_tiled_equals_reference_float64():
    bg = torch.tensor([0.1, 0.2, 0.3], dtype=D)
    for seed, kw in ((0, {}), (1, {"opac": 3.0}), (2, {"scale": -1.2, "opac": 4.0})):
        args = scene(30, seed, **kw)
        c = cam(16, 13)
        ref = rasterize_gaussians_reference(*args, c, bg)
        for ts in (4, 16):
            _agree(rasterize_gaussians(*args, c, bg, tile_size=ts), ref)
    args = scene(20, 3)
    _agree(rasterize_gaussians(*args, cam(12, 10), bg, antialiased=True, eps2d=0.5),
           rasterize_gaussians_reference(*args, cam(12, 10), bg, antialiased=True, eps2d=0.5))


def test_early_termination_is_exercised_and_matches():
    # many opaque Gaussians stacked on the optical axis: T must stop at the 1e-4 rule
    n = 12
    means = torch.zeros(n, 3, dtype=D)
    means[:, 2] = torch.linspace(-1, 1, n, dtype=D)
    args = (means, torch.tensor([[1.0, 0, 0, 0]] * n, dtype=D), torch.full((n, 3), -1.0, dtype=D),
            torch.full((n,), 6.0, dtype=D), torch.rand(n, 3, dtype=D))
    c = cam(8, 8, 8.0, eye=(0.0, 0.0, -4.0))
    a, b = rasterize_gaussians(*args, c, tile_size=4), rasterize_gaussians_reference(*args, c)
    _agree(a, b)
    assert float(1 - a.alpha.max()) >= T_MIN * (1 - 1e-9)        # transmittance never below 1e-4
    assert float(1 - a.alpha.max()) < 1e-2


def test_gradients_against_reference_and_gradcheck():
    args = [x.clone().requires_grad_() for x in scene(4, 5, scale=-1.5)]
    bg = torch.tensor([0.2, 0.1, 0.4], dtype=D, requires_grad=True)
    c = cam(6, 5, 6.0)

    def f(impl):
        return lambda *xs: impl(*xs[:5], c, xs[5], tile_size=4).image if impl is rasterize_gaussians else \
            impl(*xs[:5], c, xs[5]).image

    assert torch.autograd.gradcheck(f(rasterize_gaussians), (*args, bg), atol=1e-6, rtol=1e-5)
    out = rasterize_gaussians(*args, c, bg, tile_size=4)
    ref = rasterize_gaussians_reference(*args, c, bg)
    ga = torch.autograd.grad(out.image.square().sum() + out.depth.sum(), [*args, bg])
    gb = torch.autograd.grad(ref.image.square().sum() + ref.depth.sum(), [*args, bg])
    for x, y in zip(ga, gb):
        assert torch.allclose(x, y, atol=1e-9)


def test_means2d_gradient_is_retained():
    args = [x.clone().requires_grad_() for x in scene(10, 7, dtype=torch.float32)]
    out = rasterize_gaussians(*args, cam(dtype=torch.float32))
    out.image.sum().backward()
    g = out.means2d.grad
    assert g.shape == (10, 2) and torch.isfinite(g).all()
    assert (g[out.radii == 0] == 0).all() and (g[out.radii > 0].abs().sum(1) > 0).any()


def test_all_behind_camera_gives_background():
    args = list(scene(5, 8))
    args[0] = args[0] + torch.tensor([0.0, 0.0, -10.0], dtype=D)         # all behind (camera at z=-4 looks at +z)
    bg = torch.tensor([0.3, 0.6, 0.9], dtype=D)
    out = rasterize_gaussians(*args, cam(), bg)
    assert out.n_visible == 0 and (out.radii == 0).all()
    assert torch.equal(out.image, bg.expand(17, 20, 3)) and (out.alpha == 0).all()
    empty = rasterize_gaussians(torch.zeros(0, 3), torch.zeros(0, 4), torch.zeros(0, 3), torch.zeros(0),
                                torch.zeros(0, 3), cam(dtype=torch.float32))
    assert (empty.image == 0).all()


def test_near_far_culling_and_radii():
    args = scene(6, 9)
    p = project_gaussians(*args[:4], cam())
    assert (p.depths[1:] >= p.depths[:-1]).all()                        # depth-sorted
    lam = torch.linalg.eigvalsh(p.cov2d)[:, -1]
    assert torch.equal(p.radii, torch.ceil(3 * lam.sqrt()).long())
    far = rasterize_gaussians(*args, cam(), far=1.0)
    assert far.n_visible == 0


@settings(max_examples=25)
@given(st.lists(st.floats(0.0, 0.99), min_size=1, max_size=12))
def test_compositing_rules(alphas):
    a = torch.tensor(alphas, dtype=D)
    w = composite_weights(a)
    T = 1.0
    expect = []
    done = False
    for al in alphas:                                  # the 3DGS kernel's loop, alpha already thresholded
        if done or T * (1 - al) < T_MIN:
            done = True
            expect.append(0.0)
            continue
        expect.append(al * T)
        T *= 1 - al
    assert torch.allclose(w, torch.tensor(expect, dtype=D), atol=1e-12)
    assert float(w.sum()) <= 1 - T_MIN + 1e-12                   # transmittance never below 1e-4


@settings(max_examples=15)
@given(st.floats(0.02, 0.9), st.floats(0.02, 0.9), st.floats(0.1, 0.9), st.floats(0.1, 0.9))
def test_front_to_back_order_on_a_pixel(o1, o2, c1, c2):
    """Two Gaussians on the axis: the nearer one's colour is weighted by alpha_1, the farther by alpha_2 (1 - alpha_1)."""
    logit = lambda o: torch.log(torch.tensor(o / (1 - o), dtype=D))  # noqa: E731
    means = torch.tensor([[0.0, 0, 1.0], [0.0, 0, -1.0]], dtype=D)     # second is nearer (camera at z = -4)
    args = (means, torch.tensor([[1.0, 0, 0, 0]] * 2, dtype=D), torch.full((2, 3), -1.0, dtype=D),
            torch.stack([logit(o1), logit(o2)]), torch.tensor([[c1], [c2]], dtype=D))
    c = Camera.look_at(torch.tensor([0.0, 0, -4.0], dtype=D), [0.0, 0, 0], up=[0.0, -1, 0], fx=4.0, fy=4.0,
                       width=2, height=2)
    out = rasterize_gaussians(*args, c, tile_size=2)
    p = project_gaussians(*args[:4], c)
    assert p.ids.tolist() == [1, 0]
    d = torch.tensor([1.5, 1.5], dtype=D) - p.means2d          # pixel (1, 1)
    al = [min(0.99, float(p.opacities[k] * torch.exp(-0.5 * (p.conics[k, 0] * d[k, 0] ** 2 + 2 * p.conics[k, 1]
                                                            * d[k, 0] * d[k, 1] + p.conics[k, 2] * d[k, 1] ** 2))))
          for k in range(2)]
    al = [a if a >= 1 / 255 else 0.0 for a in al]
    expect = c2 * al[0] + c1 * al[1] * (1 - al[0])
    assert abs(float(out.image[1, 1, 0]) - expect) < 1e-12


def test_float32_close_to_float64_and_tile_size_invariance():
    args64 = scene(40, 11)
    args32 = [x.float() for x in args64]
    a = rasterize_gaussians(*args64, cam())
    b = rasterize_gaussians(*args32, cam(dtype=torch.float32), tile_size=8)
    assert (a.image - b.image.double()).abs().max() < 1e-4


def test_issue_user_code_runs():
    from iclr26sci.geom import (BodyModel, Camera, RaycastScene, backward_warp, epe, forward_splat,  # noqa: F401
                                quat_to_rotmat, rasterize_gaussians, so3_exp, ssim, umeyama)
    eye, target = torch.tensor([0.0, -3.0, 0.5]), torch.zeros(3)
    cam = Camera.look_at(eye, target, fx=30, fy=30, width=24, height=24)
    g = torch.Generator().manual_seed(0)
    means = (torch.randn(50, 3, generator=g) * 0.4).requires_grad_()
    quats, log_scales = torch.randn(50, 4, generator=g), torch.full((50, 3), -2.5)
    opacity_logits, colors, bg = torch.zeros(50), torch.rand(50, 3, generator=g), torch.ones(3)
    out = rasterize_gaussians(means, quats, log_scales, opacity_logits, colors, cam, background=bg)
    assert out.image.shape == (24, 24, 3) and out.alpha.shape == out.depth.shape == (24, 24)
    (out.image.sum() + out.depth.sum()).backward()
    assert torch.isfinite(means.grad).all() and out.means2d.grad is not None
    assert "RasterResult" in repr(out) and "Gaussians visible" in out.summary()
