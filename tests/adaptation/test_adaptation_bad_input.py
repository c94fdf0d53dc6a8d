"""Bad input to every public name of iclr26sci.adaptation: a clear InputError naming the argument, before any work."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn as nn

from iclr26sci.adaptation import CorruptedStream, PEAAdapter, SourceStats, coral_align, compare, mv_align
from iclr26sci.core import InputError, NotFittedError

BAD_INPUT_EXEMPT = {
    "adaptation.StreamBatch": "a NamedTuple container yielded by CorruptedStream; it takes no validated user input",
    "adaptation.CompareResult": "a frozen result dataclass built by compare(); users do not construct it",
}


def _net(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3)).eval()


def _stats(net, **kw):
    kw.setdefault("modules", [net[1], net[3]])
    kw.setdefault("group_size", 4)
    return SourceStats(**kw).fit(net, torch.randn(64, 6))


@pytest.mark.bad_input("adaptation.coral_align")
@pytest.mark.parametrize("kwargs,arg", [
    ({"X": np.zeros((5,))}, "X"), ({"X": np.full((5, 4), np.nan)}, "X"),
    ({"target_mean": np.zeros(3)}, "target_mean"), ({"source_cov": np.eye(3)}, "source_cov"),
    ({"group_size": 3}, "group_size"), ({"group_size": 0}, "group_size"), ({"eps": -1.0}, "eps"),
])
def test_coral_align_bad(kwargs, arg):
    base = dict(X=np.zeros((5, 4)), target_mean=np.zeros(4), target_cov=np.eye(4), source_mean=np.zeros(4),
                source_cov=np.eye(4))
    base.update(kwargs)
    g = base.pop("group_size", None)
    e = base.pop("eps", 1e-5)
    with pytest.raises(InputError, match=arg):
        coral_align(**base, group_size=g, eps=e)


@pytest.mark.bad_input("adaptation.mv_align")
@pytest.mark.parametrize("kwargs,arg", [
    ({"X": "abc"}, "X"), ({"target_var": -np.ones(4)}, "target_var"), ({"source_mean": np.zeros(2)}, "source_mean"),
    ({"target_var": np.zeros(4), "eps": 0.0}, "target_var"),
])
def test_mv_align_bad(kwargs, arg):
    base = dict(X=np.zeros((5, 4)), target_mean=np.zeros(4), target_var=np.ones(4), source_mean=np.zeros(4),
                source_var=np.ones(4))
    base.update(kwargs)
    e = base.pop("eps", 1e-5)
    with pytest.raises(InputError, match=arg):
        mv_align(**base, eps=e)


@pytest.mark.bad_input("adaptation.SourceStats")
def test_source_stats_bad():
    net, other = _net(), _net(1)
    with pytest.raises(InputError, match="modules"):  # a module of another model
        SourceStats(modules=[other[1]]).fit(net, torch.randn(8, 6))
    with pytest.raises(InputError, match="modules"):
        SourceStats(modules=["nope"]).fit(net, torch.randn(8, 6))
    with pytest.raises(InputError, match="modules"):
        SourceStats(modules=[]).fit(net, torch.randn(8, 6))
    with pytest.raises(InputError, match="modules"):  # no blocks to detect
        SourceStats(modules="auto").fit(net, torch.randn(8, 6))
    with pytest.raises(InputError, match="group_size"):  # does not divide 8
        SourceStats(modules=[net[1]], group_size=3).fit(net, torch.randn(8, 6))
    with pytest.raises(InputError, match="group_size"):
        SourceStats(modules=[net[1]], group_size=-2).fit(net, torch.randn(8, 6))
    with pytest.raises(InputError, match="data"):
        SourceStats(modules=[net[1]]).fit(net, torch.full((8, 6), float("nan")))
    with pytest.raises(InputError, match="data"):
        SourceStats(modules=[net[1]]).fit(net, torch.zeros(0, 6))
    with pytest.raises(InputError, match="data"):
        SourceStats(modules=[net[1]]).fit(net, 42)
    with pytest.raises(InputError, match="model"):
        SourceStats(modules=[net[1]]).fit("model", torch.randn(8, 6))
    with pytest.raises(InputError, match="reg"):
        SourceStats(modules=[net[1]], reg=-1).fit(net, torch.randn(8, 6))
    with pytest.raises(InputError, match="covariance"):
        SourceStats(modules=[net[1]], covariance="x").fit(net, torch.randn(8, 6))
    with pytest.raises(NotFittedError):
        SourceStats().to_dict()


def test_source_stats_warns_and_evals_a_train_mode_model():
    net = _net().train()
    with pytest.warns(UserWarning, match="eval mode"):
        SourceStats(modules=[net[1]]).fit(net, torch.randn(8, 6))
    assert not net.training


@pytest.mark.bad_input("adaptation.PEAAdapter")
def test_pea_adapter_bad():
    net = _net()
    st = _stats(net)
    with pytest.raises(InputError, match="stats"):  # statistics of another model
        PEAAdapter(_net(1), st)
    with pytest.raises(InputError, match="group_size"):  # another group size
        PEAAdapter(net, st, group_size=8)
    with pytest.raises(InputError, match="stats"):
        PEAAdapter(net, "stats")
    with pytest.raises(NotFittedError):
        PEAAdapter(net, SourceStats())
    with pytest.raises(InputError, match="alignment"):
        PEAAdapter(net, st, alignment="procrustes")
    with pytest.raises(InputError, match="momentum"):
        PEAAdapter(net, st, momentum=0.0)
    with pytest.raises(InputError, match="views"):
        PEAAdapter(net, st, views=("orig", "rotate"))
    with pytest.raises(InputError, match="one_pass"):
        PEAAdapter(net, st, one_pass="yes")
    pea = PEAAdapter(net, st, views=("orig",))
    with pytest.raises(InputError, match="X"):  # wrong shape
        pea.predict(torch.randn(4, 7))
    with pytest.raises(InputError, match="X"):  # NaNs
        pea.predict(torch.full((4, 6), float("nan")))
    with pytest.raises(InputError, match="X"):  # empty batch
        pea.predict(torch.zeros(0, 6))
    with pytest.raises(InputError, match="views"):  # crop of non-images
        PEAAdapter(net, st, views=("orig", "crop")).predict(torch.randn(4, 6))
    with pytest.raises(InputError, match="clear_history"):
        pea.reset(clear_history=1)
    assert pea.n_batches_ == 0  # nothing ran


def test_pea_adapter_warns_and_evals_a_train_mode_model():
    net = _net()
    st = _stats(net)
    net.train()
    with pytest.warns(UserWarning, match="eval mode"):
        PEAAdapter(net, st)
    assert not net.training


@pytest.mark.bad_input("adaptation.CorruptedStream")
def test_corrupted_stream_bad():
    X, y = np.zeros((4, 1, 8, 8), np.float32), np.zeros(4, np.int64)
    f = lambda x, c, s, rng: x  # noqa: E731
    with pytest.raises(InputError, match="data"):  # a stream of size 0
        CorruptedStream((X[:0], y[:0]), corrupt=f)
    with pytest.raises(InputError, match="data"):
        CorruptedStream(X, corrupt=f)
    with pytest.raises(InputError, match="corrupt"):
        CorruptedStream((X, y), corrupt="gaussian_noise")
    # the built-in engine (no corrupt=): names, backend, image size and range are checked up front
    with pytest.raises(InputError, match="corruptions"):
        CorruptedStream((X, y), corruptions=["gaussian"])
    with pytest.raises(InputError, match="corruptions"):
        CorruptedStream((X, y), corruptions=["saturate"])          # grey images
    with pytest.raises(InputError, match="corruptions"):
        CorruptedStream((X, y), corruptions=["motion_blur"])       # not in the CIFAR-10-C engine
    with pytest.raises(InputError, match="backend"):
        CorruptedStream((X, y), backend="cifar10")
    with pytest.raises(InputError, match="backend"):
        CorruptedStream((X, y), backend="imagenet-c")              # 8 px < 32 px
    with pytest.raises(InputError, match="data"):
        CorruptedStream((X + 2.0, y))                              # not in [0, 1]
    with pytest.raises(InputError, match="data"):
        CorruptedStream((np.zeros((4, 2, 8, 8), np.float32), y))   # 2 channels
    with pytest.raises(InputError, match="severity"):
        CorruptedStream((X, y), severity=6, corrupt=f)
    with pytest.raises(InputError, match="order"):
        CorruptedStream((X, y), order="random", corrupt=f)
    with pytest.raises(InputError, match="corruptions"):
        CorruptedStream((X, y), corruptions=[], corrupt=f)
    with pytest.raises(InputError, match="n_per_domain"):
        CorruptedStream((X, y), n_per_domain=10, corrupt=f)
    with pytest.raises(InputError, match="batch_size"):
        CorruptedStream((X, y), batch_size=0, corrupt=f)


@pytest.mark.bad_input("adaptation.compare")
def test_compare_bad():
    net = _net()
    st = _stats(net)
    batches = [(torch.randn(8, 6), torch.zeros(8, dtype=torch.long))]
    with pytest.raises(InputError, match="methods"):
        compare(net, st, batches, methods=["sar"])
    with pytest.raises(InputError, match="methods"):
        compare(net, st, batches, methods=[])
    with pytest.raises(InputError, match="stream"):  # a stream of size 0
        compare(net, st, [])
    with pytest.raises(InputError, match="stream"):
        compare(net, st, [(torch.randn(8, 6), torch.zeros(3, dtype=torch.long))], methods=["none"])
    with pytest.raises(InputError, match="stats"):
        compare(net, "stats", batches)
    with pytest.raises(InputError, match="pea_kwargs"):
        compare(net, st, batches, methods=["pea"], pea_kwargs=[1])
