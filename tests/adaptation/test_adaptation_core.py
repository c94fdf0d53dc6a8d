"""PEA core: exact alignment maps, source statistics, the adapter's two passes, streams, the baselines harness."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn as nn
from hypothesis import given
from hypothesis import strategies as st

from iclr26sci.adaptation import CorruptedStream, PEAAdapter, SourceStats, coral_align, mv_align
from iclr26sci.adaptation import baselines
from iclr26sci.core import InputError
from iclr26sci.nn import SmallResNet, SmallViT


def _resnet():
    torch.manual_seed(0)
    m = SmallResNet(n_classes=3, widths=(8, 16), stem_width=4)
    with torch.no_grad():
        m.input_shape.copy_(torch.tensor([1, 12, 12]))
        for b in m.blocks:
            b.bn2.weight.fill_(1.0)
    return m.eval()


def _vit():
    torch.manual_seed(0)
    m = SmallViT(n_classes=3, image_size=8, patch_size=4, dim=16, depth=2, heads=2)
    with torch.no_grad():
        m.input_shape.copy_(torch.tensor([1, 8, 8]))
    return m.eval()


def _imgs(n, size=12, seed=0, shift=0.0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(n, 1, size, size, generator=g) * scale + shift).clamp(0, 1)


# ------------------------------------------------------------------------------------- alignment maps
def test_coral_full_group_matches_mean_and_covariance_exactly():
    g = torch.Generator().manual_seed(1)
    A = torch.randn(6, 6, generator=g, dtype=torch.float64)
    X = torch.randn(3000, 6, generator=g, dtype=torch.float64) @ A + 2
    B = torch.randn(6, 6, generator=g, dtype=torch.float64)
    Cs = B @ B.T + 0.1 * torch.eye(6, dtype=torch.float64)
    ms = torch.arange(6, dtype=torch.float64)
    Y = coral_align(X, X.mean(0), torch.cov(X.T), ms, Cs, eps=0.0)
    assert torch.allclose(Y.mean(0), ms, atol=1e-10)
    assert torch.allclose(torch.cov(Y.T), Cs, atol=1e-9)


def test_grouped_coral_matches_only_diagonal_blocks():
    g = torch.Generator().manual_seed(2)
    A = torch.randn(8, 8, generator=g, dtype=torch.float64)
    X = torch.randn(4000, 8, generator=g, dtype=torch.float64) @ A
    B = torch.randn(8, 8, generator=g, dtype=torch.float64)
    Cs = B @ B.T + 0.1 * torch.eye(8, dtype=torch.float64)
    Y = coral_align(X, X.mean(0), torch.cov(X.T), torch.zeros(8), Cs, group_size=4, eps=0.0)
    C = torch.cov(Y.T)
    assert torch.allclose(C[:4, :4], Cs[:4, :4], atol=1e-9) and torch.allclose(C[4:, 4:], Cs[4:, 4:], atol=1e-9)
    assert float((C[:4, 4:] - Cs[:4, 4:]).abs().max()) > 1e-3


@given(st.lists(st.floats(0.2, 5.0), min_size=3, max_size=3), st.lists(st.floats(-3, 3), min_size=3, max_size=3))
def test_mv_inverts_positive_affine_shifts(a, b):
    g = torch.Generator().manual_seed(3)
    Xs = torch.randn(200, 3, generator=g, dtype=torch.float64)
    Xt = Xs * torch.tensor(a, dtype=torch.float64) + torch.tensor(b, dtype=torch.float64)
    Y = mv_align(Xt, Xt.mean(0), Xt.var(0), Xs.mean(0), Xs.var(0), eps=0.0)
    assert torch.allclose(Y, Xs, atol=1e-9)


def test_coral_cannot_undo_rotation_of_isotropic_features():
    Q, _ = torch.linalg.qr(torch.randn(5, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(4)))
    I = torch.eye(5, dtype=torch.float64)
    Xs = torch.randn(100, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    Y = coral_align(Xs @ Q, torch.zeros(5), I, torch.zeros(5), I, eps=0.0)
    assert torch.allclose(Y, Xs @ Q, atol=1e-12)


# ------------------------------------------------------------------------------------- SourceStats
def test_source_stats_resnet_spatial_and_vit_tokens():
    r = _resnet()
    s = SourceStats.fit(r, _imgs(40), group_size=4, batch_size=16)
    assert s.kinds_ == ("spatial", "spatial") and s.dims_ == (8, 16) and s.group_sizes_ == (4, 4)
    assert s.n_tokens_ == (40 * 36, 40 * 9) and s.cov_sqrt_blocks_[1].shape == (4, 4, 4)
    # pooled within-batch covariance with one batch = the sample covariance of the positions
    with torch.no_grad():
        h = r.blocks[0](r.stem(r._normalise(_imgs(40))))
    X = h.permute(0, 2, 3, 1).reshape(-1, 8).double()
    s1 = SourceStats.fit(r, _imgs(40), group_size=None, batch_size=64, reg=0.0)
    assert torch.allclose(s1.cov_[0], torch.cov(X.T), atol=1e-8) and torch.allclose(s1.mean_[0], X.mean(0), atol=1e-10)
    v = _vit()
    sv = SourceStats.fit(v, _imgs(30, 8))
    assert sv.kinds_ == ("tokens", "tokens") and sv.group_sizes_ == (16, 16) and sv.cls_mean_[0].shape == (16,)
    assert sv.head_mean_.shape == (16,)


def test_group_size_larger_than_a_block_is_one_full_group():
    # the group_size=32 on a ResNet whose first block has 8 channels: full covariance there, 16 -> 2 x 8
    r = _resnet()
    s = SourceStats.fit(r, _imgs(40), group_size=8, batch_size=16)
    assert s.group_sizes_ == (8, 8)
    s = SourceStats.fit(r, _imgs(40), group_size=32, batch_size=16)
    assert s.group_sizes_ == (8, 16)
    PEAAdapter(r, s, group_size=32)            # the guard compares with the clipped sizes
    with pytest.raises(InputError, match="group_size"):
        PEAAdapter(r, s, group_size=8)


def test_user_module_list_and_names():
    r = _resnet()
    s = SourceStats(modules=["stem", r.blocks[1]], group_size=None).fit(r, _imgs(20))
    assert s.module_names_ == ("stem", "blocks.1") and s.dims_ == (4, 16)


# ------------------------------------------------------------------------------------- PEAAdapter
def test_pea_is_backprop_free_and_leaves_weights_bit_identical():
    r = _resnet()
    s = SourceStats.fit(r, _imgs(64), group_size=4)
    before = {k: v.clone() for k, v in r.state_dict().items()}
    pea = PEAAdapter(r, s)
    for i in range(4):
        out = pea.predict(_imgs(16, seed=10 + i, shift=0.3, scale=0.5))
        assert not out.requires_grad
    after = r.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert not any(p.requires_grad and p.grad is not None for p in r.parameters())
    assert pea.n_forward_ == 4 * 6 and pea.n_backward_ == 0
    assert not any(h["grad_enabled"] for h in pea.history_)
    assert not r._forward_hooks and all(not b._forward_hooks for b in r.blocks)  # hooks removed


def test_weights_are_min_max_and_second_batch_spikes():
    r = _resnet()
    s = SourceStats.fit(r, _imgs(64), group_size=4)
    pea = PEAAdapter(r, s, views=("orig",))
    pea.predict(_imgs(16, seed=1, shift=0.4, scale=0.4))
    w = pea.history_[0]["weights"]
    assert sorted(w.tolist()) == [0.0, 1.0]
    pea.predict(_imgs(16, seed=2, shift=0.4, scale=0.4))
    assert pea.history_[1]["spikes"] == [[int(np.argmax(w))]]  # s starts at 0 and gamma * alpha < 1


def test_one_pass_costs_half_and_mv_branch_reachable():
    r = _resnet()
    s = SourceStats.fit(r, _imgs(64), group_size=4)
    p1 = PEAAdapter(r, s, one_pass=True)
    p1.predict(_imgs(16, seed=3, shift=0.2))
    assert p1.n_forward_ == 3 and p1.history_[0]["alignment"] == ["coral", "coral"]
    pm = PEAAdapter(r, s, alignment="mv", views=("orig",))
    pm.predict(_imgs(16, seed=3, shift=0.2))
    assert "mv" in pm.history_[0]["alignment"]
    pc = PEAAdapter(r, s, views=("orig",))
    a, b = pc.predict(_imgs(16, seed=3, shift=0.2)), PEAAdapter(r, s, alignment="mv", views=("orig",)).predict(_imgs(16, seed=3, shift=0.2))
    assert not torch.allclose(a, b)


def test_microbatch_variants_one_forward_per_pass_one_update_per_batch():
    r = _resnet()
    s = SourceStats.fit(r, _imgs(64), group_size=4)
    x = _imgs(16, seed=3, shift=0.2)
    # one view: the two recipes are the same computation
    a = PEAAdapter(r, s, views=("orig",)).predict(x)
    b = PEAAdapter(r, s, views=("orig",), microbatch_variants=True).predict(x)
    assert torch.allclose(a, b, atol=1e-6)
    # three views: 2 network calls per batch (each of 3 x 16 images) and one statistics update per block
    pm = PEAAdapter(r, s, microbatch_variants=True)
    counts = []
    orig = PEAAdapter._update_target

    def counting(self, i, X):
        counts.append(X.shape[0])
        return orig(self, i, X)
    pm._update_target = counting.__get__(pm)
    out = pm.predict(x)
    assert out.shape == (16, 3) and pm.n_forward_ == 2 and len(pm.history_[0]["spikes"]) == 1
    assert counts and all(c == 48 for c in counts)
    pv = PEAAdapter(r, s)
    pv.predict(x)
    assert pv.n_forward_ == 6 and len(pv.history_[0]["spikes"]) == 3
    assert not torch.allclose(out, pv.predict(x))
    assert pm.to_dict()["microbatch_variants"] is True


def test_entropy_reset_and_manual_reset():
    r = _resnet()
    s = SourceStats.fit(r, _imgs(64), group_size=4)
    pea = PEAAdapter(r, s, views=("orig",), entropy_threshold=0.0)
    for i in range(6):
        pea.predict(_imgs(16, seed=20 + i, shift=0.1 * i))
    assert pea.n_resets_ == sum(h["entropy_reset"] for h in pea.history_)
    pea.reset()
    assert pea._targets == [None, None] and len(pea.history_) == 6
    pea.reset(clear_history=True)
    assert pea.history_ == [] and pea.n_forward_ == 0


def test_vit_adapter_runs_and_aligns_tokens():
    v = _vit()
    s = SourceStats.fit(v, _imgs(40, 8))
    pea = PEAAdapter(v, s, layer_weights="ones", views=("orig", "flip"))
    out = pea.predict(_imgs(8, 8, seed=5, shift=0.3))
    assert out.shape == (8, 3) and torch.isfinite(out).all() and pea.n_forward_ == 4


def test_identity_when_target_equals_source_single_batch():
    """With m = 1 and all weights 1, a batch equal to the source batch is mapped to itself (up to the ridge)."""
    r = _resnet()
    x = _imgs(32, seed=7)
    s = SourceStats.fit(r, x, group_size=None, reg=0.0, batch_size=32)
    pea = PEAAdapter(r, s, layer_weights="ones", views=("orig",), momentum=1.0, reg=0.0, eps=0.0)
    with torch.no_grad():
        base = r(x)
    assert torch.allclose(pea.predict(x), base, atol=1e-4)


# ------------------------------------------------------------------------------------- stream and harness
def _noise(x, c, s, rng):
    return np.clip(x + 0.08 * s * np.random.default_rng(rng).standard_normal(x.shape), 0, 1).astype(np.float32)


def test_stream_is_reproducible_and_orders_differ():
    X, y = _imgs(20).numpy(), np.arange(20) % 3
    a = CorruptedStream((X, y), corruptions=["n1", "n2"], severity=[1, 3], batch_size=8, corrupt=_noise, rng=1)
    b = CorruptedStream((X, y), corruptions=["n1", "n2"], severity=[1, 3], batch_size=8, corrupt=_noise, rng=1)
    assert all(torch.equal(p.images, q.images) for p, q in zip(a, b)) and len(a) == 12
    sh = CorruptedStream((X, y), corruptions=["n1", "n2"], severity=[1, 3], batch_size=8, corrupt=_noise, order="shuffled")
    doms = [set(zip(bb.corruption, bb.severity)) for bb in sh]
    assert len(sh) == 10 and any(len(d) > 1 for d in doms)
    clean = CorruptedStream((X, y), corruptions=["x"], severity=0, batch_size=8)
    assert [bb.domain for bb in clean] == ["clean-0"] * 3


def test_compare_harness_counts_and_tables():
    r = _resnet()
    s = SourceStats.fit(r, _imgs(64), group_size=4)
    X, y = _imgs(48, seed=9).numpy(), np.arange(48) % 3
    stream = CorruptedStream((X, y), corruptions=["n"], severity=[2, 5], batch_size=16, corrupt=_noise)
    res = baselines.compare(r, s, stream, methods=["none", "bn", "tent", "t3a", "lame", "foa", "neo", "pea", "pea-1pass"],
                            progress=False)
    m = res.methods
    assert m["none"]["forward_per_batch"] == 1 and m["tent"]["backward_per_batch"] == 1
    assert m["pea"]["forward_per_batch"] == 6 and m["pea"]["backward_per_batch"] == 0
    assert m["pea-1pass"]["forward_per_batch"] == 3 and m["foa"]["accuracy"] is None
    assert len(res.rows) == 8 * 2 and "pea" in res.summary() and "n-5" in res.domain_table("ece")
    before = {k: v.clone() for k, v in r.state_dict().items()}
    assert all(torch.equal(before[k], r.state_dict()[k]) for k in before)


def test_foa_lite_on_vit():
    v = _vit()
    s = SourceStats.fit(v, _imgs(40, 8))
    batches = [(_imgs(16, 8, seed=i, shift=0.2), torch.randint(0, 3, (16,))) for i in range(2)]
    res = baselines.compare(v, s, batches, methods=["foa", "tent"], progress=False)
    f = res.methods["foa"]
    assert f["forward_per_batch"] == int(4 + 3 * np.log(3 * 16)) and f["backward_per_batch"] == 0


def test_ece_perfect_calibration_is_zero():
    p = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert baselines.ece(p, np.array([0, 1])) == 0.0


def test_auto_detects_resnet_layers_and_transformer_modulelists():
    class TinyTV(nn.Module):  # torchvision-style layer1..layer4
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
            self.layer1 = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())
            self.layer2 = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1))
            self.fc = nn.Linear(8, 2)

        def forward(self, x):
            h = self.layer2(self.layer1(self.conv1(x)))
            return self.fc(h.mean((2, 3)))

    class Enc(nn.Module):  # a transformer-style ModuleList of identical blocks under another name
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
            self.out = nn.Linear(4, 2)

        def forward(self, x):
            for layer in self.layers:
                x = torch.tanh(layer(x))
            return self.out(x)

    t = TinyTV().eval()
    s = SourceStats.fit(t, torch.rand(6, 1, 6, 6), group_size=None)
    assert s.module_names_ == ("layer1.0", "layer1.1", "layer2.0") and s.head_name_ == "fc"
    e = Enc().eval()
    s2 = SourceStats.fit(e, torch.randn(10, 4), group_size=2)
    assert s2.module_names_ == ("layers.0", "layers.1", "layers.2")
    out = PEAAdapter(e, s2, views=("orig",)).predict(torch.randn(5, 4))
    assert out.shape == (5, 2)


@pytest.mark.parametrize("kind", ["resnet", "vit-cls", "vit-all"])
def test_batched_first_pass_gives_the_same_numbers(kind):
    """batch_views=True (one forward of all views in Pass 1, sums split per view) equals one forward per view."""
    if kind == "resnet":
        m, size = _resnet(), 12
        s = SourceStats.fit(m, _imgs(64), group_size=4)
        kw = {}
    else:
        m, size = _vit(), 8
        s = SourceStats.fit(m, _imgs(40, 8))
        kw = {"pass1_tokens": kind.split("-")[1]}
    a, b = PEAAdapter(m, s, **kw), PEAAdapter(m, s, batch_views=False, **kw)
    for i in range(3):
        x = _imgs(16, size, seed=10 + i, shift=0.3, scale=0.5)
        np.testing.assert_allclose(a.predict(x).numpy(), b.predict(x).numpy(), rtol=0, atol=1e-6)
        np.testing.assert_allclose(a.history_[-1]["weights"], b.history_[-1]["weights"], rtol=0, atol=1e-6)
    assert a.n_forward_ == b.n_forward_ == 3 * 6          # batch-sized forwards, batched or not
