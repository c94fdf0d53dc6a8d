"""ImageSet: the labelled image container of the nn layer."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from iclr26sci.core import InputError
from iclr26sci.nn import ImageSet


def _set(n=6, classes=("a", "b", "c")):
    rng = np.random.default_rng(0)
    return ImageSet(rng.random((n, 1, 4, 4), dtype=np.float32), np.arange(n) % len(classes), classes, "toy")


def test_basic_properties_and_repr():
    s = _set()
    assert len(s) == 6 and s.shape == (1, 4, 4) and s.n_classes == 3
    assert repr(s) == "ImageSet('toy', n=6, shape=(1, 4, 4), classes=3)"
    assert s.images.dtype == np.float32 and s.labels.dtype == np.int64
    x, y = s.arrays()
    assert x is s.images and y is s.labels


def test_default_class_names_from_labels():
    s = ImageSet(np.zeros((3, 1, 2, 2)), np.array([0, 2, 1]))
    assert s.classes == ("0", "1", "2") and s.images.dtype == np.float32


@given(n=st.integers(2, 40), frac=st.floats(0.05, 0.95), seed=st.integers(0, 2**31 - 1))
def test_split_partitions_the_set(n, frac, seed):
    s = ImageSet(np.arange(n, dtype=np.float32).reshape(n, 1, 1, 1), np.zeros(n, int), ("x",))
    k = int(round(frac * n))
    if k < 1 or k >= n:
        with pytest.raises(InputError, match="fraction"):
            s.split(frac, rng=seed)
        return
    a, b = s.split(frac, rng=seed)
    vals = np.sort(np.concatenate([a.images.ravel(), b.images.ravel()]))
    assert len(b) == k and np.array_equal(vals, np.arange(n, dtype=np.float32))
    a2, b2 = s.split(frac, rng=seed)
    assert np.array_equal(b.images, b2.images)  # seeded


def test_subset_and_sample():
    s = _set()
    assert len(s.subset(slice(0, 2))) == 2
    assert len(s.subset(np.array([True, False] * 3))) == 3
    assert np.array_equal(s.subset(np.array([5, 0])).labels, s.labels[[5, 0]])
    smp = s.sample(4, rng=1)
    assert len(smp) == 4 and np.array_equal(smp.images, s.sample(4, rng=1).images)


@pytest.mark.bad_input("nn.ImageSet")
@pytest.mark.parametrize("kwargs, arg", [
    (dict(images=np.zeros((2, 4, 4)), labels=np.zeros(2, int)), "images"),           # 3-D
    (dict(images=np.zeros((0, 1, 4, 4)), labels=np.zeros(0, int)), "images"),        # empty
    (dict(images=np.zeros((2, 1, 4, 4), np.uint8), labels=np.zeros(2, int)), "images"),  # uint8 pixels
    (dict(images=np.full((2, 1, 4, 4), np.nan), labels=np.zeros(2, int)), "images"),  # NaN
    (dict(images=np.zeros((2, 1, 4, 4)), labels=np.zeros(3, int)), "labels"),         # length
    (dict(images=np.zeros((2, 1, 4, 4)), labels=np.zeros(2)), "labels"),              # float labels
    (dict(images=np.zeros((2, 1, 4, 4)), labels=np.array([0, 5]), classes=("a", "b")), "labels"),  # out of range
    (dict(images=np.zeros((2, 1, 4, 4)), labels=np.array([-1, 0])), "labels"),        # negative
])
def test_bad_construction(kwargs, arg):
    with pytest.raises(InputError, match=f"`{arg}`"):
        ImageSet(**kwargs)


@pytest.mark.bad_input("nn.ImageSet")
def test_bad_method_arguments():
    s = _set()
    with pytest.raises(InputError, match="`n`"):
        s.sample(7)
    with pytest.raises(InputError, match="`n`"):
        s.sample(0)
    with pytest.raises(InputError, match="`fraction`"):
        s.split(1.5)
    with pytest.raises(InputError, match="`fraction`"):
        s.split("half")
    with pytest.raises(InputError, match="`index`"):
        s.subset(np.array([True, False]))
    with pytest.raises(InputError, match="`index`"):
        s.subset(np.array([0.5]))
    with pytest.raises(InputError, match="`index`"):
        s.subset(np.array([10]))
    with pytest.raises(InputError, match="`index`"):
        s.subset(np.array([], int))
