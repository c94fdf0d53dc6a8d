"""The validation checks P1-P10 pass on the real implementation and fail on the broken variants they name."""
from __future__ import annotations

import numpy as np
import pytest

from validation.registry import Profile
import validation.adaptation as va

CHEAP = [("p1_exact_moment_matching", "inverse"), ("p2_grouped_blocks", "full"),
         ("p3_mv_inverts_affine", "biased-variance"), ("p4_rotation_limitation", "procrustes"),
         ("p10_switch_and_reset", "no-smoothing")]
HEAVY = [("p5_backprop_free", "train-mode"), ("p6_cost", "leak"), ("p6_cost", "sample-loop"), ("p7_no_shift_safety", "wrong-source"),
         ("p8_gain_grows_with_severity", "no-alignment"), ("p9_small_batches", "image-level-stats")]


@pytest.mark.parametrize("name,variant", CHEAP)
def test_cheap_check_passes_and_catches_its_broken_variant(name, variant):
    f = getattr(va, name)
    assert f(Profile("quick"), np.random.default_rng(0)).passed
    assert not f(Profile("quick"), np.random.default_rng(0), variant=variant).passed


@pytest.mark.slow
@pytest.mark.parametrize("name,variant", HEAVY)
def test_heavy_check_catches_its_broken_variant(name, variant):
    f = getattr(va, name)
    assert not f(Profile("quick"), np.random.default_rng(0), variant=variant).passed


@pytest.fixture
def untrained_fashion_model(monkeypatch):
    """P5 on a seeded, untrained SmallResNet in place of the cached Fashion classifier: the check is about which
    tensors the stream touches, not about accuracy, and ``make test`` must not train the real model on a cold
    cache (about 100 s of CPU in CI)."""
    import torch

    from iclr26sci.nn import SmallResNet

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        net = SmallResNet().eval()
    va._setup.cache_clear()
    monkeypatch.setattr(va, "fashion_model", lambda: (net, "untrained SmallResNet"))
    yield net
    va._setup.cache_clear()


def test_p5_counts_only_the_grad_the_stream_creates(untrained_fashion_model):
    """A model fresh from training on a cold cache keeps its last ``.grad``: P5 must not count it against PEA, and
    must still count a ``.grad`` that the stream itself changes."""
    import torch

    model, _, _ = va._setup()
    assert model is untrained_fashion_model
    saved = [p.grad for p in model.parameters()]
    try:
        for p in model.parameters():
            p.grad = torch.ones_like(p)
        res = va.p5_backprop_free(Profile("quick"), np.random.default_rng(0))
        crit = {c.name: c for c in res.criteria}
        assert crit["parameters whose .grad the stream created or changed"].passed and res.passed
    finally:
        for p, g in zip(model.parameters(), saved):
            p.grad = g
