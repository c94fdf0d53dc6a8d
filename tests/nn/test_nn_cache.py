"""The model cache's guarantees: build/factory mismatch refused, nothing left by a failed or cancelled build,
and a fresh build returned in the same state as a cache hit (tiny models only)."""
from __future__ import annotations

import os

import pytest
import torch

from iclr26sci.core import InputError
from iclr26sci.nn import cached_model


@pytest.fixture
def tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR26SCI_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _factory():
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))


def _trained_build():
    """A build that leaves the model as training leaves it: train mode, gradients held, one layer frozen."""
    torch.manual_seed(0)
    net = _factory()
    net[2].weight.requires_grad_(False)
    net.train()
    x = torch.randn(8, 3)
    net(x).pow(2).mean().backward()
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.1)
    return net, {"loss": 1.0}


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def _state(m):
    return (type(m), m.training, [(n, p.requires_grad, p.grad is None) for n, p in m.named_parameters()])


def test_fresh_build_is_in_the_state_of_a_cache_hit(tmp_cache):
    fresh, meta1 = cached_model("tiny", {"w": 4}, 0, _trained_build, _factory)
    hit, meta2 = cached_model("tiny", {"w": 4}, 0, _trained_build, _factory)
    assert not meta1["cached"] and meta2["cached"]
    assert _state(fresh) == _state(hit)
    assert all(p.grad is None for p in fresh.parameters()) and not fresh.training
    assert all(p.requires_grad for p in fresh.parameters())  # the factory's flags, as a cache hit has
    for a, b in zip(fresh.state_dict().values(), hit.state_dict().values()):
        assert torch.equal(a, b)
    x = torch.randn(5, 3)
    assert torch.equal(fresh(x), hit(x))
    # no lock or temporary file outlives the call
    folder = tmp_cache / "models" / os.path.basename(meta1["path"])
    assert sorted(p.name for p in folder.iterdir()) == ["meta.json", "weights.pt"]


@pytest.mark.parametrize("bad_build, what", [
    (lambda: (torch.nn.Linear(3, 2), {}), "class"),
    (lambda: (torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2)), {}), "shape"),
    (lambda: (torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2, bias=False)), {}),
     "keys"),
])
def test_build_factory_mismatch_is_refused_and_nothing_stored(tmp_cache, bad_build, what):
    with pytest.raises(InputError, match="build") as err:
        cached_model("tiny", {"w": 4}, 0, bad_build, _factory)
    assert err.value.argument == "build"
    assert _files(tmp_cache / "models") == []


@pytest.mark.parametrize("exc", [RuntimeError("out of memory"), KeyboardInterrupt()])
def test_failed_or_cancelled_build_leaves_no_folder_or_lock(tmp_cache, exc):
    def build():
        raise exc

    with pytest.raises(type(exc)):
        cached_model("tiny", {"w": 4}, 0, build, _factory)
    assert _files(tmp_cache / "models") == []
    # the next call builds normally
    _, meta = cached_model("tiny", {"w": 4}, 0, _trained_build, _factory)
    assert not meta["cached"]


def test_failed_rebuild_keeps_the_valid_entry(tmp_cache):
    cached_model("tiny", {"w": 4}, 0, _trained_build, _factory)

    def broken():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cached_model("tiny", {"w": 4}, 0, broken, _factory, rebuild=True)
    _, meta = cached_model("tiny", {"w": 4}, 0, broken, _factory)
    assert meta["cached"]


def test_bad_arguments_and_bad_factory_write_nothing(tmp_cache):
    calls = {"n": 0}

    def build():
        calls["n"] += 1
        return _trained_build()

    with pytest.raises(InputError, match="factory"):
        cached_model("tiny", {"w": 4}, 0, build, lambda: "not a module")
    with pytest.raises(InputError, match="seed"):
        cached_model("tiny", {"w": 4}, -1, build, _factory)
    assert calls["n"] == 0 and _files(tmp_cache / "models") == []
