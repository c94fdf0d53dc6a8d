"""The rasterizer's hand-written backward (``_raster_fn``) against finite differences and autograd."""
import torch
from hypothesis import given, strategies as st

from iclr26sci.core import InputError
from iclr26sci.geom import Camera, DefaultStrategy, rasterize_gaussians

D = torch.float64


def scene(n, C, seed, dtype=D, spread=0.7, scale=-2.0, opac=0.0, behind=0):
    g = torch.Generator().manual_seed(seed)
    means = torch.randn(n, 3, generator=g, dtype=dtype) * spread
    means[:behind, 2] = -6.0                                  # behind the camera at z = -4: culled
    return [means, torch.randn(n, 4, generator=g, dtype=dtype), torch.randn(n, 3, generator=g, dtype=dtype) * 0.3 + scale,
            torch.randn(n, generator=g, dtype=dtype) + opac, torch.rand(n, C, generator=g, dtype=dtype)]


def cam(w=12, h=10, f=12.0, dtype=D):
    return Camera.look_at(torch.tensor([0.3, -0.2, -4.0], dtype=dtype), [0.0, 0, 0], up=[0.0, -1, 0], fx=f,
                          fy=0.9 * f, width=w, height=h, cx=w / 2 + 0.7, cy=h / 2 - 0.4)


def run(args, bg, c, mode, weights=None, **kw):
    """Every output in one scalar loss with fixed random weights; returns outputs, input grads, means2d grad."""
    xs = [x.detach().clone().requires_grad_() for x in args]
    b = None if bg is None else bg.detach().clone().requires_grad_()
    out = rasterize_gaussians(*xs, c, b, _backward=mode, **kw)
    gen = torch.Generator().manual_seed(123)
    loss = sum((getattr(out, k) * torch.rand(getattr(out, k).shape, generator=gen, dtype=out.image.dtype)).sum()
               for k in ("image", "alpha", "depth", "expected_depth")) + out.image.square().sum()
    if loss.requires_grad:                                      # else: everything culled, no background
        loss.backward()
    grads = [x.grad for x in xs] + ([b.grad] if b is not None else [])
    return out, grads, out.means2d.grad


def _close(a, b, tol):
    scale = 1.0 + float(b.abs().max()) if b.numel() else 1.0
    return float((a - b).abs().max()) <= tol * scale if a.numel() else True


def test_gradcheck_float64_channels_background_culling_overlap():
    # C = 1, 2, 4 channels; a trainable background; 2 of 6 Gaussians behind the camera; opaque overlapping
    # footprints (alpha clamped at 0.99 and early termination in the high-opacity scene)
    for C, seed, kw, ts in ((1, 0, {}, 4), (2, 1, {"opac": 3.0, "scale": -1.5}, 8), (4, 2, {"behind": 2}, 4)):
        args = [x.requires_grad_() for x in scene(5, C, seed, **kw)]
        bg = torch.rand(C, dtype=D, generator=torch.Generator().manual_seed(seed)).requires_grad_()
        c = cam(6, 6, 6.0)

        def f(*xs):
            out = rasterize_gaussians(*xs[:5], c, xs[5], tile_size=ts)
            return out.image, out.alpha, out.depth

        assert torch.autograd.gradcheck(f, (*args, bg), atol=1e-6, rtol=1e-5)


def test_gradcheck_antialiased():
    args = [x.requires_grad_() for x in scene(5, 3, 3, scale=-1.8)]
    c = cam(6, 6, 6.0)
    assert torch.autograd.gradcheck(
        lambda *xs: rasterize_gaussians(*xs, c, antialiased=True, eps2d=0.5, tile_size=4).image, args,
        atol=1e-6, rtol=1e-5)


@given(seed=st.integers(0, 10_000), n=st.integers(1, 16), C=st.integers(1, 4), ts=st.sampled_from([2, 4, 8, 16]),
       opac=st.sampled_from([-1.0, 0.0, 3.0, 6.0]), behind=st.integers(0, 3), use_bg=st.booleans(),
       aa=st.booleans())
def test_manual_backward_equals_autograd(seed, n, C, ts, opac, behind, use_bg, aa):
    args = scene(n, C, seed, opac=opac, behind=min(behind, n), scale=-1.6)
    bg = torch.rand(C, dtype=D, generator=torch.Generator().manual_seed(seed)) if use_bg else None
    c = cam(9, 8, 9.0)
    oa, ga, ma = run(args, bg, c, "manual", tile_size=ts, antialiased=aa)
    ob, gb, mb = run(args, bg, c, "autograd", tile_size=ts, antialiased=aa)
    for k in ("image", "alpha", "depth", "expected_depth"):
        assert _close(getattr(oa, k).detach(), getattr(ob, k).detach(), 1e-12), k
    assert torch.equal(oa.radii, ob.radii) and oa.n_intersections == ob.n_intersections
    for x, y in zip(ga, gb):
        assert (x is None) == (y is None) and (x is None or _close(x, y, 1e-10))
    assert (ma is None) == (mb is None) and (ma is None or _close(ma, mb, 1e-10))    # densification statistic                                 # the densification statistic


def test_densification_statistic_unchanged():
    args = scene(30, 3, 4, scale=-1.8)
    c = cam(16, 14, 16.0)
    stats = []
    for mode in ("manual", "autograd"):
        out, _, m2d = run(args, None, c, mode)
        params = {"means": torch.nn.Parameter(args[0].clone()), "quats": torch.nn.Parameter(args[1].clone()),
                  "log_scales": torch.nn.Parameter(args[2].clone()),
                  "opacity_logits": torch.nn.Parameter(args[3].clone()), "colors": torch.nn.Parameter(args[4].clone())}
        opts = {k: torch.optim.Adam([v], lr=1e-2) for k, v in params.items()}
        s = DefaultStrategy(refine_start_iter=1000, refine_every=100, rng=0)
        state = s.initialize_state()
        s.step_post_backward(params, opts, state, step=1, grad2d=m2d, radii=out.radii, width=16, height=14)
        stats.append((m2d, state))
    assert stats[0][0].abs().max() > 0
    assert _close(stats[0][0], stats[1][0], 1e-10)
    assert _close(stats[0][1]["grad2d"], stats[1][1]["grad2d"], 1e-10)
    assert torch.equal(stats[0][1]["count"], stats[1][1]["count"])


def test_float32_manual_close_to_autograd():
    args = [x.float() for x in scene(40, 3, 5, scale=-1.8)]
    c = cam(24, 20, 22.0, dtype=torch.float32)
    oa, ga, _ = run(args, None, c, "manual", tile_size=8)
    ob, gb, _ = run(args, None, c, "autograd", tile_size=8)
    assert _close(oa.image.detach(), ob.image.detach(), 1e-5)
    for x, y in zip(ga, gb):
        assert _close(x, y, 1e-3)


def test_partial_requires_grad_retain_graph_and_empty_scene():
    args = scene(12, 2, 6, scale=-1.8)
    c = cam()
    colors = args[4].clone().requires_grad_()
    out = rasterize_gaussians(*args[:4], colors, c)
    loss = out.image.square().sum()
    g1 = torch.autograd.grad(loss, colors, retain_graph=True)[0]
    g2 = torch.autograd.grad(loss, colors)[0]                       # saved tensors are not modified in place
    assert torch.equal(g1, g2) and g1.abs().max() > 0
    assert not out.means2d.requires_grad
    # every Gaussian behind the camera: the background image, with no graph to the inputs (as autograd's path)
    xs = [x.clone().requires_grad_() for x in scene(4, 2, 7, behind=4)]
    for mode in ("manual", "autograd"):
        out = rasterize_gaussians(*xs, c, torch.tensor([0.5, 0.25], dtype=D), _backward=mode)
        assert torch.equal(out.image, torch.tensor([0.5, 0.25], dtype=D).expand(10, 12, 2))
        assert not out.image.requires_grad


def test_manual_backward_saves_less_than_autograd():
    args = [x.requires_grad_() for x in scene(60, 3, 8, dtype=torch.float32, scale=-1.5)]
    c = cam(32, 32, 30.0, dtype=torch.float32)
    saved = {}
    for mode in ("manual", "autograd"):
        n = [0]

        def pack(t):
            n[0] += t.numel() * t.element_size()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            rasterize_gaussians(*args, c, _backward=mode)
        saved[mode] = n[0]
    assert 0 < saved["manual"] < saved["autograd"] / 2


def test_backward_option_is_checked():
    args = scene(2, 3, 0)
    try:
        rasterize_gaussians(*args, cam(), _backward="cuda")
    except InputError as e:
        assert "_backward" in str(e)
    else:
        raise AssertionError("no InputError")


def test_two_live_graphs_keep_their_saved_tensors():
    # the saved alpha/T arenas are reused only after their graph is freed: two renders before one backward
    args = scene(20, 3, 9, scale=-1.7)
    c = cam(16, 12, 14.0)
    grads = {}
    for mode in ("manual", "autograd"):
        xs = [x.clone().requires_grad_() for x in args]
        o1 = rasterize_gaussians(*xs, c, _backward=mode)
        o2 = rasterize_gaussians(xs[0], xs[1], xs[2], xs[3], xs[4].flip(0), c, _backward=mode)
        o3 = rasterize_gaussians(*xs, c, _backward=mode)              # o1's graph is alive: a fresh arena
        (o1.image.square().sum() + 2 * o2.image.sum() + o3.alpha.sum()).backward()
        grads[mode] = [x.grad for x in xs]
    for x, y in zip(grads["manual"], grads["autograd"]):
        assert _close(x, y, 1e-10)


def test_threads_do_not_share_saved_arenas():
    # each thread has its own arenas: renders in two threads at once give the gradients of a sequential run
    from concurrent.futures import ThreadPoolExecutor

    c = cam(16, 12, 14.0)
    scenes = [scene(30, 3, s, scale=-1.7) for s in range(6)]

    def grads(args):
        return run(args, None, c, "manual")[1]

    want = [grads(a) for a in scenes]
    with ThreadPoolExecutor(2) as ex:
        got = list(ex.map(grads, scenes))
    for gw, gg in zip(want, got):
        for x, y in zip(gg, gw):
            assert _close(x, y, 1e-12)
