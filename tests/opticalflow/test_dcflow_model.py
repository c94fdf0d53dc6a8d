"""DCFlow estimator, flow networks, data and metrics: shapes, conventions, decoupling, sklearn behaviour."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.base import clone

from iclr26sci.geom import backward_warp
from iclr26sci.opticalflow import (DCFlow, FlowNet, RAFTSmall, appearance_only, classical_flow, crossmodal_pairs,
                                   flow_metrics, motorcycle_pair, texture_images)


@pytest.fixture(scope="module")
def pairs():
    return crossmodal_pairs(n=6, size=32, rng=0)


def test_crossmodal_pairs_flow_is_exact_for_grey_modality():
    p = crossmodal_pairs(n=3, size=32, severity=0.0, rng=1)
    grey = p.image_a @ np.array([0.299, 0.587, 0.114])
    for k in range(3):
        w, _ = backward_warp(torch.as_tensor(grey[k][None, None], dtype=torch.float64),
                             torch.as_tensor(p.flow[k].transpose(2, 0, 1)[None].copy(), dtype=torch.float64))
        err = np.abs(w[0, 0].numpy() - p.image_b[k])[p.mask[k]]
        assert np.median(err) < 0.02
    assert "pairs" in p.summary() and len(p.subset([0])) == 1 and "n=3" in repr(p)


def test_motorcycle_gt_sign_convention():
    mp = motorcycle_pair(None, width=96)
    a = torch.as_tensor(mp.image_a.transpose(2, 0, 1)[None].copy())
    L = mp.image_b_rgb.transpose(2, 0, 1)
    good = np.abs(backward_warp(a, torch.as_tensor(mp.flow.transpose(2, 0, 1)[None].copy()))[0][0].numpy() - L)
    bad = np.abs(backward_warp(a, torch.as_tensor(-mp.flow.transpose(2, 0, 1)[None].copy()))[0][0].numpy() - L)
    assert good.mean(0)[mp.mask].mean() < 0.6 * bad.mean(0)[mp.mask].mean()
    assert (mp.flow[..., 0][mp.mask] < 0).all() and np.all(mp.flow[..., 1] == 0)


def test_texture_images_ship_offline():
    names = [n for n, _ in texture_images(64)]
    assert "astronaut" in names and len(names) >= 10


@pytest.mark.parametrize("arch", ["pwc_tiny", "raft_small"])
def test_flownet_shapes_and_padding(arch):
    net = FlowNet(arch) if arch == "pwc_tiny" else FlowNet(RAFTSmall(iters=2))
    out = net(torch.rand(2, 3, 20, 28), torch.rand(2, 3, 20, 28))
    assert out.shape == (2, 2, 20, 28)


def test_user_net_is_accepted():
    class Zero(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1))

        def forward(self, a, b):
            return torch.zeros(a.shape[0], 2, *a.shape[2:]) + self.w

    net = FlowNet(Zero())
    assert net.arch == "custom:Zero" and net(torch.rand(1, 3, 8, 8), torch.rand(1, 3, 8, 8)).shape == (1, 2, 8, 8)


def test_fit_predict_and_params_unmodified(pairs):
    user_net = FlowNet("pwc_tiny")
    before = {k: v.clone() for k, v in user_net.state_dict().items()}
    m = DCFlow(net=user_net, batch_size=2, consistency_start=0.0, rng=0).fit(pairs, steps=2)
    assert all(torch.equal(before[k], v) for k, v in user_net.state_dict().items())   # copied, not trained
    f = m.predict(pairs.image_a[0], pairs.image_b[0])
    assert f.shape == (32, 32, 2) and np.isfinite(f).all()
    assert len(m.history_["C"]) == 2 and len(m.history_["flow"]) == 2
    assert "DCFlow" in repr(m) and "final losses" in m.summary() and m.to_dict()["n_steps"] == 2
    assert clone(m).get_params()["batch_size"] == 2


def test_seeded_fit_is_reproducible(pairs):
    f1 = DCFlow(batch_size=2, rng=3).fit(pairs, steps=2).predict(pairs.image_a[1], pairs.image_b[1])
    f2 = DCFlow(batch_size=2, rng=3).fit(pairs, steps=2).predict(pairs.image_a[1], pairs.image_b[1])
    assert np.allclose(f1, f2)


def test_flow_loss_does_not_update_translator(pairs):
    """Decoupling: without consistency and with lambda_T = 0, the translator receives no gradient."""
    from iclr26sci.opticalflow import TinyUNet

    tr = TinyUNet()
    m = DCFlow(translator=tr, lambda_T=0.0, consistency=False, batch_size=2, rng=0, reinit=False).fit(pairs, steps=2)
    assert all(torch.equal(a, b) for a, b in zip(tr.state_dict().values(), m.translator_.state_dict().values()))


def test_translator_warmup_ignores_the_flow_net(pairs):
    """During the warm-up the translator's target is the identity warp, so its update does not depend on the
    flow net; after it (warm-up 0) two different flow nets give two different translators."""
    from iclr26sci.opticalflow import TinyPWC, TinyUNet

    tr = TinyUNet()
    torch.manual_seed(1)
    n1 = TinyPWC()
    torch.manual_seed(2)
    n2 = TinyPWC()

    def translator(net, warmup):
        m = DCFlow(net=net, translator=tr, consistency=False, translator_warmup=warmup, batch_size=2, lr=1e-2,
                   rng=0, reinit=False).fit(pairs, steps=2)          # keep the two nets' own weights
        return list(m.translator_.state_dict().values())

    same = translator(n1, 0.99), translator(n2, 0.99)
    assert all(torch.equal(a, b) for a, b in zip(*same))
    diff = translator(n1, 0.0), translator(n2, 0.0)
    assert not all(torch.equal(a, b) for a, b in zip(*diff))


def test_appearance_only_baseline_runs(pairs):
    m = appearance_only(batch_size=2).fit(pairs, steps=2)
    assert m.history_["appearance"] and not m.history_["flow"]


def test_oracle_depth_pairs_are_used(pairs):
    mp = motorcycle_pair(None, width=128)
    p = crossmodal_pairs(mp.image_b_rgb[None], n=2, size=32, depth=mp.depth_b[None], rng=0)
    assert p.depth_a is not None and (p.depth_a > 0).all()
    DCFlow(depth="pairs", batch_size=2).fit(p, steps=1)


def test_flow_metrics_and_classical_peers():
    mp = motorcycle_pair(None, width=96)
    zero = flow_metrics(classical_flow(mp.image_a, mp.image_b, "zero"), mp.flow, mp.mask)
    dis = flow_metrics(classical_flow(mp.image_a, mp.image_b, "dis"), mp.flow, mp.mask)
    assert dis["epe"] < 0.5 * zero["epe"]       # intra-modal (grey) pair: DIS recovers the disparity
    assert 0 <= dis["f1"] <= 1 and zero["n"] == int(mp.mask.sum())


def test_fit_is_reproducible_with_a_user_network():
    """rng seeds a user-supplied network too: two nets built under different torch states train identically."""
    from iclr26sci.opticalflow import DCFlow, FlowNet, crossmodal_pairs

    pairs = crossmodal_pairs(n=4, size=16, rng=0)
    hist = []
    for state in (1, 2):
        torch.manual_seed(state)
        m = DCFlow(net=FlowNet("pwc_tiny"), batch_size=2, rng=0).fit(pairs, steps=2)
        hist.append(m.history_["flow"])
    assert hist[0] == hist[1]
    net = FlowNet("pwc_tiny")                       # reinit=False keeps the supplied weights (fine-tuning)
    kept = DCFlow(net=net, batch_size=2, rng=0, reinit=False).fit(pairs, steps=1)
    assert kept.n_steps_ == 1 and kept.net_ is not net


@pytest.mark.parametrize("cls", ["TinyPWC", "TinyUNet", "FlowNet"])
def test_networks_take_rng(cls):
    """rng seeds the initial weights: the same rng gives the same weights, another rng other weights."""
    import iclr26sci.opticalflow as of

    state = torch.random.get_rng_state()
    a, b = getattr(of, cls)(rng=3), getattr(of, cls)(rng=3)
    c = getattr(of, cls)(rng=4)
    flat = [torch.cat([p.detach().flatten() for p in m.parameters()]) for m in (a, b, c)]
    assert torch.equal(flat[0], flat[1]) and not torch.equal(flat[0], flat[2])
    torch.random.set_rng_state(state)
