"""Warps, alignment, chains, metrics and the densification strategy."""
import math

import numpy as np
import torch

from iclr26sci.geom import (DefaultStrategy, backward_warp, chamfer_distance, charbonnier, compose_chain, epe,
                            flow_f1_all, forward_splat, geman_mcclure, huber, init_log_scales, kinematic_chain, psnr,
                            se3_exp, so3_exp, ssim, umeyama)

D = torch.float64


def test_backward_warp_integer_and_subpixel_shift():
    g = torch.Generator().manual_seed(0)
    img = torch.rand(2, 3, 9, 11, generator=g, dtype=D)
    flow = torch.zeros(2, 2, 9, 11, dtype=D)
    flow[:, 1] = 2.0
    out, valid = backward_warp(img, flow)
    assert torch.allclose(out[:, :, :7], img[:, :, 2:]) and not valid[:, :, 8:].any()
    flow[:, 1] = 0.0
    flow[:, 0] = 0.25
    out, _ = backward_warp(img, flow)
    assert torch.allclose(out[..., :-1], 0.75 * img[..., :-1] + 0.25 * img[..., 1:])


def test_forward_splat_z_test_and_inverse_of_backward_warp():
    g = torch.Generator().manual_seed(1)
    v = torch.rand(1, 2, 6, 6, generator=g, dtype=D, requires_grad=True)
    flow = torch.zeros(1, 2, 6, 6, dtype=D)
    flow[:, 0] = 1.0
    out, mask, _ = forward_splat(v, flow, torch.ones(1, 1, 6, 6, dtype=D))
    assert torch.equal(out[..., 1:], v[..., :-1]) and not mask[..., 0].any()
    out.sum().backward()
    assert v.grad[..., :-1].eq(1).all() and v.grad[..., -1].eq(0).all()
    # collisions: everything maps to pixel (0, 0); the nearest source wins
    d = torch.rand(1, 1, 6, 6, generator=g, dtype=D)
    ys, xs = torch.meshgrid(torch.arange(6.0), torch.arange(6.0), indexing="ij")
    f = -torch.stack([xs, ys])[None].to(D)
    out, mask, td = forward_splat(v.detach(), f, d)
    k = int(d.flatten().argmin())
    assert mask.sum() == 1 and torch.equal(out[0, :, 0, 0], v.detach().reshape(2, -1)[:, k])
    assert float(td[0, 0, 0, 0]) == float(d.min())


def test_umeyama_recovers_similarity_and_rigid():
    g = torch.Generator().manual_seed(2)
    x = torch.randn(3, 50, 3, generator=g, dtype=D)
    R = so3_exp(torch.randn(3, 3, generator=g, dtype=D))
    y = 1.7 * x @ R.transpose(-1, -2) + torch.tensor([1.0, -2.0, 0.5], dtype=D)
    T = umeyama(x, y)
    assert torch.allclose(T.scale, torch.full((3,), 1.7, dtype=D)) and torch.allclose(T.R, R, atol=1e-10)
    assert float(T.rmse.max()) < 1e-10 and torch.allclose(T.apply(x), y)
    rigid = umeyama(x, y, with_scale=False)
    assert torch.allclose(rigid.R, R, atol=1e-10) and torch.equal(rigid.scale, torch.ones(3, dtype=D))
    # a reflection in the data still returns a rotation
    refl = umeyama(x[0], x[0] * torch.tensor([-1.0, 1, 1], dtype=D))
    assert float(torch.linalg.det(refl.R)) > 0


def test_kinematic_chain_matches_brute_force_and_composes():
    rng = np.random.default_rng(3)
    pts = rng.normal(size=(7, 2))
    c = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    ch = kinematic_chain(c, root=2)
    assert ch.parent[2] == -1 and ch.order[0] == 2 and len(set(ch.order.tolist())) == 7
    for i in ch.order[1:]:
        assert list(ch.order).index(ch.parent[i]) < list(ch.order).index(i)
    from scipy.sparse.csgraph import minimum_spanning_tree
    assert math.isclose(ch.cost, float(minimum_spanning_tree(c).sum()))
    # compose: absolute poses from relative poses along the tree recover the truth
    g = torch.Generator().manual_seed(3)
    absT = se3_exp(torch.randn(7, 6, generator=g, dtype=D))
    rel = torch.stack([torch.linalg.inv(absT[max(p, 0)]) @ absT[i] for i, p in enumerate(ch.parent)])
    out = compose_chain(rel, ch, root_pose=absT[2])
    assert torch.allclose(out, absT, atol=1e-10)


def test_metrics_values():
    g = torch.Generator().manual_seed(4)
    x = torch.rand(1, 3, 24, 24, generator=g, dtype=D)
    y = (x + 0.05 * torch.randn(1, 3, 24, 24, generator=g, dtype=D)).clamp(0, 1)
    s = ssim(x, y)
    assert 0 < float(s) < 1 and float(ssim(x, x)) == 1.0
    assert abs(float(ssim(x, y)) - float(ssim(y, x))) < 1e-12
    assert ssim(x[0], y[0], reduction="none").shape == (3, 24, 24)
    assert math.isclose(float(psnr(x, y)), -10 * math.log10(float(((x - y) ** 2).mean())), rel_tol=1e-12)
    t = torch.tensor([-2.0, 0.0, 0.5, 3.0], dtype=D)
    assert torch.allclose(charbonnier(t, eps=1e-3), (t * t + 1e-6).sqrt())
    assert torch.allclose(geman_mcclure(t, sigma=2.0), t * t / (t * t + 4))
    assert torch.allclose(huber(t, delta=1.0), torch.nn.functional.huber_loss(t, torch.zeros_like(t), reduction="none"))
    gt = torch.tensor([[10.0, 0.0], [100.0, 0.0], [1.0, 0.0]], dtype=D)
    pred = gt + torch.tensor([[4.0, 0.0], [4.0, 0.0], [0.5, 0.0]], dtype=D)
    assert math.isclose(float(epe(pred, gt)), 8.5 / 3) and math.isclose(float(flow_f1_all(pred, gt)), 1 / 3)
    assert math.isclose(float(flow_f1_all(pred, gt, valid=torch.tensor([True, False, False]))), 1.0)
    a = torch.tensor([[0.0, 0, 0], [1.0, 0, 0]])
    b = torch.tensor([[0.0, 0, 0.5]])
    assert math.isclose(float(chamfer_distance(a, b)), (0.25 + 1.25) / 2 + 0.25, rel_tol=1e-6)


def test_init_log_scales_and_strategy_clone_split_prune():
    g = torch.Generator().manual_seed(5)
    pts = torch.rand(30, 3, generator=g)
    ls = init_log_scales(pts)
    from scipy.spatial import cKDTree
    d, _ = cKDTree(pts.numpy()).query(pts.numpy(), k=4)
    assert np.allclose(ls[:, 0].numpy(), 0.5 * np.log((d[:, 1:] ** 2).mean(1)), atol=1e-6)
    n = 4
    params = {"means": torch.nn.Parameter(torch.zeros(n, 3)),
              "quats": torch.nn.Parameter(torch.tensor([[1.0, 0, 0, 0]] * n)),
              "log_scales": torch.nn.Parameter(torch.tensor([[-6.0] * 3, [-1.0] * 3, [-6.0] * 3, [-6.0] * 3])),
              "opacity_logits": torch.nn.Parameter(torch.tensor([0.0, 0.0, -9.0, 0.0])),
              "colors": torch.nn.Parameter(torch.rand(n, 3, generator=g))}
    opts = {k: torch.optim.Adam([v], lr=1e-2) for k, v in params.items()}
    for v in params.values():
        v.grad = torch.ones_like(v)
    for o in opts.values():
        o.step()
    s = DefaultStrategy(refine_start_iter=0, refine_every=1, rng=0)
    state = s.initialize_state()
    grad2d = torch.tensor([[1e-2, 0.0], [1e-2, 0.0], [0.0, 0.0], [0.0, 0.0]])
    info = s.step_post_backward(params, opts, state, step=1, grad2d=grad2d, radii=torch.tensor([2, 2, 2, 0]),
                                width=10, height=10)
    # 0 cloned (small), 1 split into 2 (large), 2 pruned (opacity 1e-4), 3 kept
    assert info == {"cloned": 1, "split": 1, "pruned": 1}
    assert params["means"].shape[0] == 4 + 1 + 1 - 1
    assert torch.allclose(params["log_scales"][-2:], torch.full((2, 3), -1.0 - 0.01 - math.log(1.6)), atol=1e-4)
    for k, o in opts.items():
        p = o.param_groups[0]["params"][0]
        assert p is params[k] and o.state[p]["exp_avg"].shape == p.shape
        assert (o.state[p]["exp_avg"][-3:] == 0).all()        # new entries start with zero moments
    loss = sum(v.sum() for v in params.values())
    loss.backward()
    for o in opts.values():
        o.step()
