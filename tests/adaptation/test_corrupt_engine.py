"""The built-in corruption engine of CorruptedStream gives the same images as data_adapters.corruptions.

The method layer cannot import data_adapters, so the stream has its own engine; these tests hold the two to
bit-identical output for the same numpy Generator (every CIFAR-10-C corruption and severity, grey 28 px and
RGB 32 px; a sample of the imagecorruptions backend), and check the whole stream of the issue's user code.
"""
from __future__ import annotations

import functools
import sys

import numpy as np
import pytest

from data_adapters.corruptions import CIFAR_C_CORRUPTIONS, corrupt_images
from iclr26sci.adaptation import CorruptedStream
from iclr26sci.adaptation import _corrupt
from iclr26sci.core import InputError

GREY = [c for c in CIFAR_C_CORRUPTIONS if c != "saturate"]


@pytest.fixture(scope="module")
def images():
    g = np.random.default_rng(0)
    return {"grey": g.random((3, 1, 28, 28)).astype(np.float32), "rgb": g.random((2, 3, 32, 32)).astype(np.float32)}


@pytest.mark.parametrize("severity", [1, 3, 5])
@pytest.mark.parametrize("name", GREY)
def test_grey_engine_matches_data_adapters(images, name, severity):
    x = images["grey"]
    a = corrupt_images(x, name, severity, rng=np.random.default_rng(severity), backend="cifar-c")
    b = _corrupt.corrupt(x, name, severity, np.random.default_rng(severity), backend="cifar-c")
    assert b.dtype == np.float32 and b.shape == x.shape
    np.testing.assert_array_equal(a, b)
    if name not in ("contrast", "brightness") or severity > 0:
        assert not np.array_equal(b, x)   # it did corrupt


@pytest.mark.parametrize("name", ["gaussian_noise", "defocus_blur", "fog", "brightness", "saturate",
                                  "jpeg_compression", "elastic_transform", "zoom_blur"])
def test_rgb_engine_matches_data_adapters(images, name):
    x = images["rgb"]
    a = corrupt_images(x, name, 4, rng=np.random.default_rng(7), backend="cifar-c")
    b = _corrupt.corrupt(x, name, 4, np.random.default_rng(7), backend="cifar-c")
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["gaussian_noise", "impulse_noise", "contrast", "motion_blur"])
def test_imagenet_c_backend_matches_data_adapters(images, name):
    pytest.importorskip("imagecorruptions")
    x = images["rgb"]
    a = corrupt_images(x, name, 3, rng=np.random.default_rng(1), backend="imagenet-c")
    b = _corrupt.corrupt(x, name, 3, np.random.default_rng(1), backend="imagenet-c")
    np.testing.assert_array_equal(a, b)


def test_stream_as_the_issue_writes_it_equals_the_data_adapter_stream(images):
    from iclr26sci.nn import ImageSet

    g = np.random.default_rng(3)
    data = ImageSet(g.random((20, 1, 28, 28)).astype(np.float32), g.integers(0, 10, 20), tuple("abcdefghij"), "toy")
    st = CorruptedStream(data, corruptions="all", severity=5, order="continual", batch_size=16, rng=0)
    ref = CorruptedStream(data, corruptions="all", severity=5, order="continual", batch_size=16, rng=0,
                          corrupt=functools.partial(corrupt_images, backend="cifar-c"))
    assert len(st.domains) == 14 and len(st) == 28
    for a, b in zip(st, ref):
        assert a.domain == b.domain
        np.testing.assert_array_equal(a.images.numpy(), b.images.numpy())
        np.testing.assert_array_equal(a.labels.numpy(), b.labels.numpy())


def test_auto_backend_picks_imagecorruptions_from_32_px(images, monkeypatch):
    x = images["rgb"]
    y = np.zeros(len(x), np.int64)
    monkeypatch.setitem(sys.modules, "imagecorruptions", None)   # as if the extra were not installed
    with pytest.raises(ImportError, match="vision"):
        CorruptedStream((x, y), corruptions=["contrast"], severity=2)
    st = CorruptedStream((x, y), corruptions=["contrast"], severity=2, backend="cifar-c")   # numpy engine: fine
    assert tuple(next(iter(st)).images.shape) == x.shape


@pytest.mark.bad_input("adaptation.CorruptedStream")
def test_builtin_engine_bad_input(images):
    x = images["grey"]
    y = np.zeros(len(x), np.int64)
    with pytest.raises(InputError, match="corruptions"):
        CorruptedStream((x, y), corruptions=["snow"])
    with pytest.raises(InputError, match="backend"):
        CorruptedStream((x, y), backend=None)
