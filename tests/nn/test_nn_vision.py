"""Tests of iclr26sci.nn's small vision classifiers (SmallResNet, SmallViT) and the cached Fashion-MNIST classifier."""
from __future__ import annotations

import gzip

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.nn import ImageSet, SmallResNet, SmallViT, fashion_classifier
from iclr26sci.nn import _pretrained_cls


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


def _toy(n=96, size=8, channels=1, seed=0, n_classes=2):
    """Images whose class is which half (left / right) is brighter: learnable in one or two epochs."""
    g = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = g.random((n, channels, size, size), dtype=np.float32) * 0.3
    half = size // 2
    X[y == 0, :, :, :half] += 0.6
    X[y == 1, :, :, half:] += 0.6
    return np.clip(X, 0, 1), y.astype(np.int64)


def _resnet(**kw):
    return SmallResNet(n_classes=kw.pop("n_classes", 2), widths=(8, 16), stem_width=4, **kw)


def _vit(**kw):
    return SmallViT(n_classes=kw.pop("n_classes", 2), image_size=8, patch_size=4, dim=16, depth=2, heads=2, **kw)


def _same(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


MODELS = {"resnet": _resnet, "vit": _vit}


# --------------------------------------------------------------------------------------------- models
@pytest.mark.parametrize("kind", MODELS)
def test_fit_predict_learns(kind):
    X, y = _toy()
    clf = MODELS[kind]().fit(X, y, epochs=8, batch_size=16, lr=1e-2, rng=0, progress=False)
    assert clf is not None and clf.input_shape_ == (1, 8, 8)
    assert clf.score(X, y) >= 0.95
    proba = clf.predict_proba(X)
    assert proba.shape == (96, 2) and np.allclose(proba.sum(1), 1, atol=1e-5)
    assert np.array_equal(clf.predict(X), proba.argmax(1))
    f = clf.features(X[:7])
    assert f.shape == (7, clf.feature_dim)
    assert clf.fit_result_.epochs_run == 8
    assert "fitted" in repr(clf) and list(clf.classes_) == [0, 1]


@pytest.mark.parametrize("kind", MODELS)
def test_fit_is_deterministic_and_reinitialises(kind):
    X, y = _toy(48)
    a = MODELS[kind]().fit(X, y, epochs=2, batch_size=16, rng=3, progress=False, augment=True)
    b = MODELS[kind]().fit(X, y, epochs=2, batch_size=16, rng=3, progress=False, augment=True)
    assert _same(a, b)
    # refitting a fitted model from the same seed gives the same weights (fit re-initialises)
    a.fit(X, y, epochs=2, batch_size=16, rng=3, progress=False, augment=True)
    assert _same(a, b)
    c = MODELS[kind]().fit(X, y, epochs=2, batch_size=16, rng=4, progress=False, augment=True)
    assert not _same(a, c)
    # warm start continues from the current weights
    a.fit(X, y, epochs=1, batch_size=16, rng=3, progress=False, warm_start=True)
    assert not _same(a, b)


@given(seed=st.integers(0, 2**31 - 1), n=st.integers(4, 20))
@settings(max_examples=6)
def test_predict_shapes_property(seed, n):
    X, y = _toy(24, seed=1)
    clf = _resnet().fit(X, y, epochs=1, batch_size=8, rng=seed, progress=False)
    Z = np.random.default_rng(seed).random((n, 1, 8, 8), dtype=np.float32)
    assert clf.predict(Z).shape == (n,)
    p = clf.predict_proba(Z, batch_size=3)
    assert p.shape == (n, 2) and np.all(p >= 0)
    assert np.allclose(p, clf.predict_proba(Z, batch_size=n))  # batching does not change eval-mode outputs


@pytest.mark.parametrize("kind", MODELS)
def test_inputs_imageset_tuple_tensor(kind):
    X, y = _toy(32)
    s = ImageSet(X, y, ("left", "right"), "toy")
    a = MODELS[kind]().fit(s, epochs=1, batch_size=8, rng=0, progress=False)
    b = MODELS[kind]().fit((X, y), epochs=1, batch_size=8, rng=0, progress=False)
    c = MODELS[kind]().fit(torch.from_numpy(X), torch.from_numpy(y), epochs=1, batch_size=8, rng=0, progress=False)
    assert _same(a, b) and _same(a, c)
    assert a.score(s) == a.score(X, y) == a.score(torch.from_numpy(X), y)


@pytest.mark.parametrize("kind", MODELS)
def test_state_dict_carries_fitted_state(kind):
    X, y = _toy(32)
    a = MODELS[kind]().fit(X, y, epochs=1, batch_size=8, rng=0, progress=False)
    b = MODELS[kind]()
    with pytest.raises(NotFittedError):
        b.predict(X)
    b.load_state_dict(a.state_dict())
    assert b.input_shape_ == (1, 8, 8)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))


def test_resnet_blocks_for_hooks():
    clf = SmallResNet()  # defaults: 28x28, stages of 16, 32 and 64 channels
    names = dict(clf.named_modules())
    assert clf.block_names == ("blocks.0", "blocks.1", "blocks.2")
    assert all(names[n] is clf.blocks[i] for i, n in enumerate(clf.block_names))
    shapes = []
    hooks = [b.register_forward_hook(lambda m, i, o: shapes.append(tuple(o.shape))) for b in clf.blocks]
    clf.eval()
    out = clf(torch.rand(3, 1, 28, 28))
    assert out.shape == (3, 10)
    assert shapes == [(3, 16, 14, 14), (3, 32, 7, 7), (3, 64, 4, 4)]
    for h in hooks:
        h.remove()
    # a hook's return value replaces the block output (what PEA's alignment does)
    x = torch.rand(2, 1, 28, 28)
    base = clf(x)
    h = clf.blocks[-1].register_forward_hook(lambda m, i, o: torch.zeros_like(o))
    z = clf(x)
    h.remove()
    assert torch.allclose(z, clf.head.bias.expand(2, -1)) and not torch.allclose(base, z)


def test_vit_blocks_for_hooks():
    vit = SmallViT()
    assert vit.block_names == ("blocks.0", "blocks.1", "blocks.2", "blocks.3")
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in vit.modules())
    assert sum(isinstance(m, torch.nn.LayerNorm) for m in vit.modules()) == 2 * 4 + 1
    shapes = []
    for b in vit.blocks:
        b.register_forward_hook(lambda m, i, o: shapes.append(tuple(o.shape)))
    vit.eval()
    assert vit(torch.rand(2, 1, 28, 28)).shape == (2, 10)
    assert shapes == [(2, 50, 64)] * 4  # class token + 7x7 patches


def test_vit_attention_is_permutation_equivariant_over_patches():
    """Without position embeddings a transformer block is equivariant to permuting the patch tokens."""
    torch.manual_seed(0)
    vit = _vit()
    vit.eval()
    z = torch.randn(2, 5, 16)
    perm = torch.tensor([0, 3, 1, 4, 2])  # keeps the class token first
    blk = vit.blocks[0]
    assert torch.allclose(blk(z)[:, perm], blk(z[:, perm]), atol=1e-5)


def test_resnet_other_sizes_and_channels():
    X, y = _toy(24, size=12, channels=3, n_classes=3)
    clf = SmallResNet(n_classes=3, in_channels=3, widths=(4, 8, 8), strides=(1, 2, 2), stem_width=4,
                      blocks_per_stage=2)
    assert len(clf.blocks) == 6
    clf.fit(X, y, epochs=1, batch_size=8, rng=0, progress=False)
    assert clf.predict_proba(X).shape == (24, 3)


def test_fit_with_validation_and_early_stopping():
    X, y = _toy(64)
    clf = _resnet().fit(X, y, epochs=3, batch_size=16, rng=0, progress=False, val_fraction=0.25, patience=1)
    assert clf.fit_result_.val_loss is not None


# --------------------------------------------------------------------------------------------- bad input
@pytest.mark.bad_input("nn.SmallResNet")
@pytest.mark.parametrize("kwargs, arg", [
    (dict(n_classes=1), "n_classes"), (dict(n_classes=2.0), "n_classes"), (dict(in_channels=0), "in_channels"),
    (dict(widths=()), "widths"), (dict(widths=(8, 0)), "widths"), (dict(widths="32"), "widths"),
    (dict(strides=(2,)), "strides"), (dict(strides=(3, 2)), "strides"), (dict(stem_width=0), "stem_width"),
    (dict(blocks_per_stage=0), "blocks_per_stage"),
])
def test_resnet_bad_constructor(kwargs, arg):
    with pytest.raises(InputError, match=arg):
        SmallResNet(**kwargs)


@pytest.mark.bad_input("nn.SmallViT")
@pytest.mark.parametrize("kwargs, arg", [
    (dict(n_classes=0), "n_classes"), (dict(image_size=28, patch_size=5), "patch_size"),
    (dict(dim=30, heads=4), "heads"), (dict(depth=0), "depth"), (dict(mlp_ratio=0.0), "mlp_ratio"),
    (dict(dropout=1.0), "dropout"), (dict(image_size=-1), "image_size"), (dict(in_channels=1.5), "in_channels"),
])
def test_vit_bad_constructor(kwargs, arg):
    with pytest.raises(InputError, match=arg):
        SmallViT(**kwargs)


@pytest.mark.bad_input("nn.SmallResNet", "nn.SmallViT")
@pytest.mark.parametrize("kind", MODELS)
def test_fit_bad_input(kind):
    X, y = _toy(16)
    m = MODELS[kind]()
    cases = [
        (dict(X=X[0], y=y), "X"), (dict(X=X.astype(np.uint8), y=y), "X"), (dict(X=X[:0], y=y[:0]), "X"),
        (dict(X=np.where(X > 0.5, np.nan, X), y=y), "X"), (dict(X=[[1.0]], y=y), "X"),
        (dict(X=np.repeat(X, 3, axis=1), y=y), "X"), (dict(X=X, y=None), "y"), (dict(X=X, y=y[:5]), "y"),
        (dict(X=X, y=y + 5), "y"), (dict(X=X, y=y - 1), "y"), (dict(X=X, y=y + 0.5), "y"),
        (dict(X=(X, y, y)), "X"), (dict(X=X, y=y, epochs=0), "epochs"), (dict(X=X, y=y, lr=-1.0), "lr"),
        (dict(X=X, y=y, augment="yes"), "augment"), (dict(X=X, y=y, warm_start=1), "warm_start"),
        (dict(X=X, y=y, label_smoothing=1.0), "label_smoothing"), (dict(X=X, y=y, rng=-3), "rng"),
        (dict(X=X, y=y, optimizer="lbfgs"), "optimizer"),
    ]
    if kind == "vit":
        cases.append((dict(X=np.zeros((4, 1, 12, 12), np.float32), y=y[:4]), "X"))
    else:
        cases.append((dict(X=np.zeros((4, 1, 3, 3), np.float32), y=y[:4]), "X"))
    s = ImageSet(X, y, ("a", "b"), "toy")
    cases.append((dict(X=s, y=y), "y"))
    for kw, arg in cases:
        kw = dict(kw)
        Xa, ya = kw.pop("X"), kw.pop("y", None)
        kw.setdefault("progress", False)
        with pytest.raises(InputError, match=arg):
            m.fit(Xa, ya, **kw)
    assert m.input_shape_ is None  # nothing was fitted by the refused calls


@pytest.mark.bad_input("nn.SmallResNet", "nn.SmallViT")
@pytest.mark.parametrize("kind", MODELS)
def test_predict_bad_input_and_unfitted(kind):
    X, y = _toy(16)
    m = MODELS[kind]()
    for method in ("predict", "predict_proba", "features"):
        with pytest.raises(NotFittedError, match=method):
            getattr(m, method)(X)
    with pytest.raises(NotFittedError):
        m.score(X, y)
    m.fit(X, y, epochs=1, batch_size=8, rng=0, progress=False)
    for method in ("predict", "predict_proba", "features"):
        f = getattr(m, method)
        with pytest.raises(InputError, match="X"):
            f(np.zeros((2, 1, 6, 6), np.float32))  # not the fitted shape
        with pytest.raises(InputError, match="X"):
            f(np.zeros((2, 8, 8), np.float32))
        with pytest.raises(InputError, match="X"):
            f(np.full((2, 1, 8, 8), np.inf, np.float32))
        with pytest.raises(InputError, match="batch_size"):
            f(X, batch_size=0)
    with pytest.raises(InputError, match="y"):
        m.score(X, y[:3])


# --------------------------------------------------------------------------------------- Fashion-MNIST
def test_idx_reader_matches_debian_files():
    d = _pretrained_cls._FASHION_DIR
    if not (d / "t10k-labels-idx1-ubyte.gz").exists():
        pytest.skip("dataset-fashion-mnist is not installed")
    s = _pretrained_cls._fashion("test")
    assert s.images.shape == (10000, 1, 28, 28) and s.images.dtype == np.float32
    assert 0.0 <= s.images.min() and s.images.max() <= 1.0
    assert np.array_equal(np.bincount(s.labels), np.full(10, 1000))  # balanced test split
    assert s.classes[9] == "Ankle boot"
    # the first label of the test split is 9 (Ankle boot), as in the original release
    assert s.labels[0] == 9


def test_idx_reader_refuses_corrupted(tmp_path):
    p = tmp_path / "x-labels-idx1-ubyte.gz"
    with gzip.open(p, "wb") as fh:
        fh.write((0x0801).to_bytes(4, "big") + (5).to_bytes(4, "big") + bytes([1, 2, 3]))
    with pytest.raises(ValueError, match="truncated"):
        _pretrained_cls._read_idx(p, 1)
    with gzip.open(p, "wb") as fh:
        fh.write((0x0803).to_bytes(4, "big") + bytes(8))
    with pytest.raises(ValueError, match="IDX"):
        _pretrained_cls._read_idx(p, 1)


def test_missing_debian_package_names_apt_get(tmp_path, monkeypatch, tmp_cache):
    monkeypatch.setattr(_pretrained_cls, "_FASHION_DIR", tmp_path / "none")
    with pytest.raises(FileNotFoundError, match="apt-get install dataset-fashion-mnist"):
        fashion_classifier(rng=0, progress=False)


def _small_fashion_like(n, seed):
    X, y = _toy(n, size=28, seed=seed, n_classes=2)
    y = y + 8 * (np.arange(n) % 3 == 0)  # use labels 0, 1, 8, 9 of the ten
    y[y == 8] = 8
    return ImageSet(X, y.astype(np.int64), tuple(str(i) for i in range(10)), "toy28")


def test_fashion_classifier_caches_and_stores_accuracy(tmp_cache):
    train, test = _small_fashion_like(64, 0), _small_fashion_like(32, 1)
    a = fashion_classifier(rng=0, train=train, test=test, epochs=1, progress=False)
    assert not a.meta_["cached"] and isinstance(a, SmallResNet)
    assert a.clean_accuracy_ == pytest.approx(a.score(test))
    se = np.sqrt(a.clean_accuracy_ * (1 - a.clean_accuracy_) / 32)
    assert a.clean_accuracy_se_ == pytest.approx(se)
    b = fashion_classifier(rng=0, train=train, test=test, epochs=1, progress=False)
    assert b.meta_["cached"] and _same(a, b) and b.clean_accuracy_ == a.clean_accuracy_
    assert b.meta_["metrics"]["train_seconds"] > 0
    c = fashion_classifier(rng=1, train=train, test=test, epochs=1, progress=False)
    assert not c.meta_["cached"] and not _same(a, c)
    other = _small_fashion_like(64, 5)  # other data: another entry
    d = fashion_classifier(rng=0, train=other, test=test, epochs=1, progress=False)
    assert not d.meta_["cached"]


@pytest.mark.bad_input("nn.fashion_classifier")
@pytest.mark.parametrize("kwargs, arg", [
    (dict(rng=-1), "rng"), (dict(rng=1.5), "rng"), (dict(rng=None), "rng"), (dict(rng=True), "rng"),
    (dict(train="fashion"), "train"), (dict(epochs=0), "epochs"), (dict(rebuild="no"), "rebuild"),
    (dict(progress=None), "progress"),
])
def test_fashion_classifier_bad_input(kwargs, arg, tmp_cache):
    with pytest.raises(InputError, match=arg):
        fashion_classifier(**kwargs)
    assert not (tmp_cache / "models").exists()


@pytest.mark.bad_input("nn.fashion_classifier")
def test_fashion_classifier_bad_sets(tmp_cache):
    X, y = _toy(8, size=28, channels=3)
    rgb = ImageSet(X, y, tuple(str(i) for i in range(10)), "rgb")
    with pytest.raises(InputError, match="train"):
        fashion_classifier(train=rgb, test=rgb)
    grey2 = ImageSet(*_toy(8, size=28), ("a", "b"), "two")
    with pytest.raises(InputError, match="test"):
        fashion_classifier(train=_small_fashion_like(8, 0), test=grey2)


@pytest.mark.slow
def test_fashion_classifier_real_reaches_90_percent():
    clf = fashion_classifier(rng=0, progress=False)
    assert clf.clean_accuracy_ >= 0.90


# ------------------------------------------------------------------------------ validation check power
def _run_check(**kw):
    from validation.nn_vision import fashion_classifier_clean_accuracy
    from validation.registry import Profile

    return fashion_classifier_clean_accuracy(Profile("quick"), np.random.default_rng(0), **kw)


def _need_fashion():
    if not (_pretrained_cls._FASHION_DIR / "t10k-images-idx3-ubyte.gz").exists():
        pytest.skip("dataset-fashion-mnist is not installed")


def test_validation_power_untrained_with_false_stored_accuracy_fails(monkeypatch):
    """An untrained SmallResNet (random weights, fitted standardisation) served from the 'cache' with a stored
    accuracy of 0.95 that does not belong to it: both criteria fail (accuracy at chance; stored != measured)."""
    _need_fashion()
    import iclr26sci.nn as nnpkg
    from validation.nn_vision import _broken_model

    def fake(rng=0, progress=True):
        clf, _ = _broken_model("untrained", np.random.default_rng(0))
        clf.clean_accuracy_ = 0.95
        clf.meta_ = {"cached": True, "metrics": {}}
        return clf

    monkeypatch.setattr(nnpkg, "fashion_classifier", fake, raising=False)
    res = _run_check()
    assert not res.passed
    assert res.extra["accuracy"] < 0.3
    assert [c.passed for c in res.criteria] == [False, False]


@pytest.mark.slow
@pytest.mark.parametrize("variant, below", [("shuffled", 0.3), ("undertrained", 0.9)])
def test_validation_power_trained_variants_fail(variant, below):
    _need_fashion()
    res = _run_check(_variant=variant)
    assert not res.passed and res.extra["accuracy"] < below


@pytest.mark.slow
def test_validation_check_passes_on_the_cached_classifier():
    _need_fashion()
    res = _run_check()
    assert res.passed, res.criteria
