"""Tests of iclr26sci.nn's MLP constructor, training loop, checkpoints and model cache."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from iclr26sci.core import InputError
from iclr26sci.nn import FitResult, cache_dir, cached_model, fit, load_checkpoint, mlp, save_checkpoint

BAD_INPUT_EXEMPT = {"nn.FitResult": "a frozen result record that fit builds; users read it and never pass it input"}


@pytest.fixture(autouse=True)
def _one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture
def tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR26SCI_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _xy(n=240, seed=0):
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, 3)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    return X, y


def ce(m, x, y):
    return torch.nn.functional.cross_entropy(m(x), y)


def _net(seed=1, dropout=0.2):
    torch.manual_seed(seed)
    return mlp(3, 2, hidden=(16,), dropout=dropout)


def _same(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


# ------------------------------------------------------------------------------------------------ mlp
@given(in_dim=st.integers(1, 6), out_dim=st.integers(1, 5), hidden=st.lists(st.integers(1, 8), max_size=3),
       act=st.sampled_from(["silu", "relu", "gelu", "tanh"]), norm=st.sampled_from([None, "layer", "batch"]),
       batch=st.integers(2, 5))
@settings(max_examples=25)
def test_mlp_output_shape(in_dim, out_dim, hidden, act, norm, batch):
    net = mlp(in_dim, out_dim, hidden=tuple(hidden), act=act, norm=norm)
    out = net(torch.randn(batch, in_dim))
    assert out.shape == (batch, out_dim)
    n_linear = sum(isinstance(m, torch.nn.Linear) for m in net)
    assert n_linear == len(hidden) + 1


def test_mlp_layers_and_dropout():
    net = mlp(4, 2, hidden=(8, 8), act="relu", dropout=0.5, norm="layer")
    kinds = [type(m).__name__ for m in net]
    assert kinds == ["Linear", "LayerNorm", "ReLU", "Dropout"] * 2 + ["Linear"]
    net.eval()
    x = torch.randn(3, 4)
    assert torch.equal(net(x), net(x))  # dropout off in eval mode
    assert net.in_dim == 4 and net.out_dim == 2


@pytest.mark.bad_input("nn.mlp")
@pytest.mark.parametrize("kwargs, arg", [
    (dict(in_dim=0, out_dim=2), "in_dim"), (dict(in_dim=2.0, out_dim=2), "in_dim"),
    (dict(in_dim=2, out_dim=-1), "out_dim"), (dict(in_dim=2, out_dim=2, hidden=(4, 0)), "hidden"),
    (dict(in_dim=2, out_dim=2, hidden=4), "hidden"), (dict(in_dim=2, out_dim=2, hidden="64"), "hidden"),
    (dict(in_dim=2, out_dim=2, act="swish"), "act"), (dict(in_dim=2, out_dim=2, dropout=1.0), "dropout"),
    (dict(in_dim=2, out_dim=2, dropout=-0.1), "dropout"), (dict(in_dim=2, out_dim=2, norm="group"), "norm"),
])
def test_mlp_bad_input(kwargs, arg):
    with pytest.raises(InputError, match=arg):
        mlp(**kwargs)


# ------------------------------------------------------------------------------------------------ fit
def test_fit_learns_and_reports():
    X, y = _xy()
    net = _net(dropout=0.0)
    res = fit(net, ce, (X, y), epochs=15, batch_size=32, lr=1e-2, rng=0, progress=False)
    assert isinstance(res, FitResult)
    assert res.epochs_run == 15 and res.val_loss is None and res.best_epoch == 14 and not res.stopped_early
    assert res.n_steps == 15 * 8
    assert res.train_loss[-1] < 0.5 * res.train_loss[0]
    acc = (net(torch.from_numpy(X)).argmax(1).numpy() == y).mean()
    assert acc > 0.95
    assert not net.training  # left in eval mode
    assert "FitResult(epochs=15" in repr(res) and "train loss" in res.summary()
    d = res.to_dict()
    json.dumps(d)
    assert d["n_steps"] == res.n_steps and len(d["train_loss"]) == 15


def test_fit_deterministic_bitwise_with_dropout():
    X, y = _xy()
    a, b, c = _net(), _net(), _net()
    ra = fit(a, ce, (X, y), epochs=3, batch_size=32, lr=1e-2, rng=7, progress=False, val_fraction=0.25)
    rb = fit(b, ce, (X, y), epochs=3, batch_size=32, lr=1e-2, rng=7, progress=False, val_fraction=0.25)
    fit(c, ce, (X, y), epochs=3, batch_size=32, lr=1e-2, rng=8, progress=False, val_fraction=0.25)
    assert _same(a, b) and ra.train_loss == rb.train_loss and ra.val_loss == rb.val_loss
    assert not _same(a, c)


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=8)
def test_fit_same_seed_same_weights_property(seed):
    X, y = _xy(64)
    a, b = _net(), _net()
    fit(a, ce, (X, y), epochs=1, batch_size=16, lr=1e-2, rng=seed, progress=False)
    fit(b, ce, (X, y), epochs=1, batch_size=16, lr=1e-2, rng=seed, progress=False)
    assert _same(a, b)


def test_fit_leaves_global_torch_rng_alone():
    X, y = _xy(64)
    net = _net()
    torch.manual_seed(123)
    before = torch.get_rng_state()
    fit(net, ce, (X, y), epochs=1, batch_size=16, rng=0, progress=False)
    assert torch.equal(torch.get_rng_state(), before)


def test_fit_early_stopping_restores_best():
    X, y = _xy(200)
    Xv, yv = _xy(100, seed=1)
    yv = 1 - yv  # a validation set the training makes worse: best epoch is the first
    net = _net(dropout=0.0)
    res = fit(net, ce, (X, y), val=(Xv, yv), epochs=30, batch_size=20, lr=2e-2, patience=3, rng=0, progress=False)
    assert res.stopped_early and res.epochs_run < 30
    assert res.best_epoch == int(np.argmin(res.val_loss))
    assert res.epochs_run == res.best_epoch + 1 + 3
    with torch.no_grad():
        v = float(ce(net, torch.from_numpy(Xv), torch.from_numpy(yv)))
    assert v == pytest.approx(res.best_val_loss, rel=1e-5)


def test_fit_cosine_and_onecycle_and_sgd_run():
    X, y = _xy(96)
    for sch, opt in [("cosine", "sgd"), ("onecycle", "adamw"), (None, lambda p: torch.optim.RMSprop(p, lr=1e-3))]:
        res = fit(_net(), ce, (X, y), epochs=2, batch_size=32, lr=1e-2, schedule=sch, optimizer=opt, rng=0,
                  progress=False, grad_clip=1.0, weight_decay=1e-4)
        assert np.isfinite(res.train_loss).all()


def test_fit_trailing_singleton_batch_joins():
    X, y = _xy(33)
    torch.manual_seed(0)
    net = mlp(3, 2, hidden=(8,), norm="batch")  # BatchNorm would fail on a batch of one
    res = fit(net, ce, (X, y), epochs=2, batch_size=16, rng=0, progress=False)
    assert res.n_steps == 4


def test_fit_checkpoint_resume_equals_uninterrupted(tmp_path):
    X, y = _xy()
    ref = _net()
    rref = fit(ref, ce, (X, y), epochs=5, batch_size=32, lr=1e-2, rng=3, progress=False, val_fraction=0.2)

    class Interrupt(Exception):
        pass

    calls = {"n": 0}

    def flaky(m, x, yy):
        calls["n"] += 1
        if calls["n"] == 20 and m.training:
            raise Interrupt
        return ce(m, x, yy)

    ck = tmp_path / "run.pt"
    with pytest.raises(Interrupt):
        fit(_net(), flaky, (X, y), epochs=5, batch_size=32, lr=1e-2, rng=3, progress=False, val_fraction=0.2,
            checkpoint=ck)
    assert ck.exists()
    torch.manual_seed(999)
    net = mlp(3, 2, hidden=(16,), dropout=0.2)  # other initial weights: all overwritten by the checkpoint
    res = fit(net, ce, (X, y), epochs=5, batch_size=32, lr=1e-2, rng=3, progress=False, val_fraction=0.2,
              checkpoint=ck)
    assert res.resumed_epochs >= 1
    assert _same(net, ref) and res.val_loss == rref.val_loss and res.n_steps == rref.n_steps
    # a finished run's checkpoint loads without training
    again = _net(5)
    r2 = fit(again, ce, (X, y), epochs=5, batch_size=32, lr=1e-2, rng=3, progress=False, val_fraction=0.2,
             checkpoint=ck)
    assert r2.resumed_epochs == 5 and _same(again, ref)
    # other settings refuse the checkpoint
    with pytest.raises(InputError, match="checkpoint"):
        fit(_net(), ce, (X, y), epochs=6, batch_size=32, lr=1e-2, rng=3, progress=False, val_fraction=0.2,
            checkpoint=ck)


def test_fit_nonfinite_loss_raises():
    X, y = _xy(64)

    def bad(m, x, yy):
        return ce(m, x, yy) * float("nan")

    with pytest.raises(FloatingPointError, match="non-finite|nan"):
        fit(_net(), bad, (X, y), epochs=1, batch_size=16, rng=0, progress=False)


@pytest.mark.bad_input("nn.fit")
@pytest.mark.parametrize("change, arg", [
    (dict(model="net"), "model"), (dict(loss_fn=3), "loss_fn"), (dict(data=[]), "data"),
    (dict(data="xy"), "data"), (dict(data=(np.zeros((0, 3), np.float32),)), "data"),
    (dict(data=(np.zeros((4, 3), np.float32), np.zeros(5, np.int64))), "data"),
    (dict(data=(np.full((4, 3), np.nan, np.float32), np.zeros(4, np.int64))), "data"),
    (dict(data=(np.array(["a", "b"]),)), "data"),
    (dict(epochs=0), "epochs"), (dict(epochs=2.5), "epochs"), (dict(batch_size=0), "batch_size"),
    (dict(lr=0.0), "lr"), (dict(lr=float("nan")), "lr"), (dict(weight_decay=-1.0), "weight_decay"),
    (dict(optimizer="lbfgs"), "optimizer"), (dict(grad_clip=0.0), "grad_clip"),
    (dict(patience=3), "patience"), (dict(val_fraction=1.5), "val_fraction"),
    (dict(val_fraction=0.2, val="same"), "val_fraction"), (dict(val=(np.zeros((4, 3), np.float32),)), "val"),
    (dict(val=(np.zeros((4, 2), np.float32), np.zeros(4, np.int64))), "val"),
    (dict(schedule="step"), "schedule"), (dict(progress="yes"), "progress"), (dict(device="tpu9"), "device"),
    (dict(rng=-1), "rng"), (dict(checkpoint=""), "checkpoint"),
])
def test_fit_bad_input(change, arg, tmp_path):
    X, y = _xy(32)
    kw = dict(model=_net(), loss_fn=ce, data=(X, y), epochs=1, batch_size=8, rng=0, progress=False)
    if change.get("val") == "same":
        change = dict(change, val=(X, y))
    kw.update(change)
    model, loss_fn, data = kw.pop("model"), kw.pop("loss_fn"), kw.pop("data")
    before = {k: v.clone() for k, v in model.state_dict().items()} if isinstance(model, torch.nn.Module) else None
    with pytest.raises(InputError, match=arg):
        fit(model, loss_fn, data, **kw)
    if before is not None:  # refused before any work
        assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert not list(tmp_path.iterdir())


@pytest.mark.bad_input("nn.fit")
def test_fit_bad_loss_fn_output():
    X, y = _xy(32)
    with pytest.raises(InputError, match="loss_fn"):
        fit(_net(), lambda m, x, yy: m(x), (X, y), epochs=1, batch_size=8, rng=0, progress=False)
    with pytest.raises(InputError, match="loss_fn"):
        fit(_net(), lambda m, x, yy: torch.tensor(1.0), (X, y), epochs=1, batch_size=8, rng=0, progress=False)
    frozen = _net()
    for p in frozen.parameters():
        p.requires_grad_(False)
    with pytest.raises(InputError, match="model"):
        fit(frozen, ce, (X, y), epochs=1, batch_size=8, rng=0, progress=False)


# -------------------------------------------------------------------------------------------- FitResult
def test_fitresult_is_frozen_and_fields():
    r = FitResult(train_loss=(2.0, 1.0), val_loss=(1.5, 1.7), best_epoch=0, stopped_early=True, n_steps=4,
                  seconds=0.5, cpu_seconds=0.4)
    assert r.best_val_loss == 1.5 and r.epochs_run == 2
    assert "stopped_early" in repr(r) and "best weights restored" in r.summary()
    with pytest.raises(AttributeError):
        r.n_steps = 3


# ------------------------------------------------------------------------------------------- checkpoints
def test_checkpoint_roundtrip_with_optimizer(tmp_path):
    torch.manual_seed(0)
    net = mlp(3, 2, hidden=(8,), norm="batch")
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    net(torch.randn(8, 3)).sum().backward()
    opt.step()
    p = save_checkpoint(tmp_path / "sub" / "c.pt", net, opt, {"note": "x", "epoch": 2})
    other = mlp(3, 2, hidden=(8,), norm="batch")
    opt2 = torch.optim.Adam(other.parameters(), lr=1e-3)
    payload = load_checkpoint(p, other, opt2)
    assert payload["metadata"] == {"note": "x", "epoch": 2}
    assert _same(net, other)  # buffers (BatchNorm running stats) included
    assert opt2.state_dict()["state"][0]["step"] == opt.state_dict()["state"][0]["step"]
    assert not [f for f in p.parent.iterdir() if f.suffix == ".tmp"]


@pytest.mark.bad_input("nn.save_checkpoint")
def test_save_checkpoint_bad_input(tmp_path):
    net = torch.nn.Linear(2, 1)
    with pytest.raises(InputError, match="path"):
        save_checkpoint(tmp_path, net)  # a directory
    with pytest.raises(InputError, match="path"):
        save_checkpoint(3, net)
    with pytest.raises(InputError, match="model"):
        save_checkpoint(tmp_path / "a.pt", {"w": 1})
    with pytest.raises(InputError, match="optimizer"):
        save_checkpoint(tmp_path / "a.pt", net, optimizer="adam")
    with pytest.raises(InputError, match="metadata"):
        save_checkpoint(tmp_path / "a.pt", net, metadata={"t": torch.zeros(2)})
    assert not list(tmp_path.iterdir())


@pytest.mark.bad_input("nn.load_checkpoint")
def test_load_checkpoint_bad_input(tmp_path):
    net = torch.nn.Linear(2, 1)
    with pytest.raises(InputError, match="path"):
        load_checkpoint(tmp_path / "missing.pt", net)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(InputError, match="path"):
        load_checkpoint(junk, net)
    torch.save({"w": torch.zeros(1)}, tmp_path / "plain.pt")
    with pytest.raises(InputError, match="path"):
        load_checkpoint(tmp_path / "plain.pt", net)
    good = save_checkpoint(tmp_path / "good.pt", net)
    with pytest.raises(InputError, match="model"):
        load_checkpoint(good, torch.nn.Linear(3, 1))
    with pytest.raises(InputError, match="optimizer"):
        load_checkpoint(good, net, torch.optim.SGD(net.parameters(), lr=0.1))
    with pytest.raises(InputError, match="strict"):
        load_checkpoint(good, net, strict="no")


# ------------------------------------------------------------------------------------------------ cache
@pytest.mark.bad_input("nn.cache_dir")
def test_cache_dir_env_and_bad_env(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR26SCI_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c" and (tmp_path / "c").is_dir()
    f = tmp_path / "file"
    f.write_text("x")
    monkeypatch.setenv("ICLR26SCI_CACHE", str(f))
    with pytest.raises(InputError, match="ICLR26SCI_CACHE"):
        cache_dir()
    monkeypatch.setenv("ICLR26SCI_CACHE", "")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "iclr26sci"


def _toy_build(counter):
    def build():
        counter["n"] += 1
        X, y = _xy(64)
        net = _net(dropout=0.0)
        fit(net, ce, (X, y), epochs=2, batch_size=16, rng=0, progress=False)
        acc = float((net(torch.from_numpy(X)).argmax(1).numpy() == y).mean())
        return net, {"accuracy": acc}
    return build


def _factory():
    return mlp(3, 2, hidden=(16,), dropout=0.0)


def test_cached_model_builds_once_and_keys(tmp_cache):
    counter = {"n": 0}
    m1, meta1 = cached_model("toy", {"w": 16}, 0, _toy_build(counter), _factory)
    m2, meta2 = cached_model("toy", {"w": 16}, 0, _toy_build(counter), _factory)
    assert counter["n"] == 1 and not meta1["cached"] and meta2["cached"]
    assert _same(m1, m2) and not m2.training
    assert meta2["metrics"] == meta1["metrics"] and meta2["seed"] == 0 and meta2["settings"] == {"w": 16}
    assert meta2["torch_version"] == str(torch.__version__) and meta2["seconds"] >= 0
    # other settings / seed / name: other entries
    cached_model("toy", {"w": 16, "epochs": 3}, 0, _toy_build(counter), _factory)
    cached_model("toy", {"w": 16}, 1, _toy_build(counter), _factory)
    cached_model("toy2", {"w": 16}, 0, _toy_build(counter), _factory)
    assert counter["n"] == 4
    cached_model("toy", {"w": 16}, 0, _toy_build(counter), _factory, rebuild=True)
    assert counter["n"] == 5
    assert len(list((tmp_cache / "models").iterdir())) == 4


@pytest.mark.parametrize("damage", ["weights", "meta", "truncate", "missing-meta"])
def test_cached_model_rebuilds_corrupted_entry(tmp_cache, damage):
    counter = {"n": 0}
    _, meta = cached_model("toy", {"w": 16}, 0, _toy_build(counter), _factory)
    folder = tmp_cache / "models" / os.path.basename(meta["path"])
    w, m = folder / "weights.pt", folder / "meta.json"
    if damage == "weights":
        data = bytearray(w.read_bytes())
        data[len(data) // 2] ^= 0xFF
        w.write_bytes(bytes(data))
    elif damage == "meta":
        m.write_text("{not json")
    elif damage == "truncate":
        w.write_bytes(w.read_bytes()[:100])
    else:
        m.unlink()
    model, meta2 = cached_model("toy", {"w": 16}, 0, _toy_build(counter), _factory)
    assert counter["n"] == 2 and not meta2["cached"]
    _, meta3 = cached_model("toy", {"w": 16}, 0, _toy_build(counter), _factory)
    assert meta3["cached"] and counter["n"] == 2


def test_cached_model_architecture_change_rebuilds(tmp_cache):
    counter = {"n": 0}
    cached_model("toy", {"w": 16}, 0, _toy_build(counter), _factory)

    def build_wide():
        counter["n"] += 1
        return mlp(3, 2, hidden=(32,)), {}

    m, meta = cached_model("toy", {"w": 16}, 0, build_wide, lambda: mlp(3, 2, hidden=(32,)))
    assert counter["n"] == 2 and not meta["cached"] and m[0].out_features == 32


@pytest.mark.bad_input("nn.cached_model")
@pytest.mark.parametrize("change, arg", [
    (dict(name=""), "name"), (dict(name="a/b"), "name"), (dict(name=3), "name"),
    (dict(settings=[1]), "settings"), (dict(settings={"x": object()}), "settings"),
    (dict(settings={"x": float("nan")}), "settings"),
    (dict(seed=-1), "seed"), (dict(seed=1.5), "seed"), (dict(seed=True), "seed"),
    (dict(build=None), "build"), (dict(factory="mlp"), "factory"), (dict(rebuild=1), "rebuild"),
])
def test_cached_model_bad_input(tmp_cache, change, arg):
    counter = {"n": 0}
    kw = dict(name="toy", settings={"w": 16}, seed=0, build=_toy_build(counter), factory=_factory)
    kw.update(change)
    with pytest.raises(InputError, match=arg):
        cached_model(**kw)
    assert counter["n"] == 0 and not (tmp_cache / "models").exists()


@pytest.mark.bad_input("nn.cached_model")
def test_cached_model_bad_build_output(tmp_cache):
    with pytest.raises(InputError, match="build"):
        cached_model("toy", {}, 0, lambda: _factory(), _factory)
    with pytest.raises(InputError, match="build"):
        cached_model("toy", {}, 0, lambda: (_factory(), {"a": object()}), _factory)
    with pytest.raises(InputError, match="factory"):
        cached_model("toy", {}, 1, lambda: (_factory(), {}), lambda: None)  # built fine
        cached_model("toy", {}, 1, lambda: (_factory(), {}), lambda: None)  # read back: factory is checked
