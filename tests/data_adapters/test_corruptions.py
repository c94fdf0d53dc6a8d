"""Image corruptions: the numpy CIFAR-10-C engine against reference formulations (scikit-image, OpenCV,
Pillow, scipy, and the reference loops of make_cifar_c.py re-written here), its noise statistics, severity
ordering, seeding, vectorisation over the batch, the imagecorruptions (ImageNet-C) backend, and bad input."""
from __future__ import annotations

import functools
import importlib.util
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from data_adapters import corruptions as K
from data_adapters.corruptions import CIFAR_C_CONSTANTS, CIFAR_C_CORRUPTIONS, CORRUPTIONS, corrupt_images
from iclr26sci.core import InputError
from iclr26sci.nn._data import ImageSet

#: the numpy engine with the CIFAR-10-C constants at every size (32 px images would default to ImageNet-C)
cc = functools.partial(corrupt_images, backend="cifar-c")
needs_ic = pytest.mark.skipif(importlib.util.find_spec("imagecorruptions") is None,
                              reason='pip install "iclr26sci[vision]"')
RANDOM = {"gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise", "glass_blur", "fog", "elastic_transform"}
DETERMINISTIC = set(CIFAR_C_CORRUPTIONS) - RANDOM


def _raises(arg, f, *a, **k):
    with pytest.raises(InputError, match=f"`{arg}`"):
        f(*a, **k)


def _photos(size, n=6, grey=False):
    """Real photographs (scikit-image) resized to size x size, channels first, floats in [0, 1]."""
    import skimage.data as skd
    from skimage.color import rgb2gray
    from skimage.transform import resize

    out = []
    for name in ("astronaut", "chelsea", "coffee", "rocket", "hubble_deep_field", "immunohistochemistry")[:n]:
        im = getattr(skd, name)()[..., :3]
        h, w = im.shape[:2]
        s = min(h, w)
        im = resize(im[(h - s) // 2:(h - s) // 2 + s, (w - s) // 2:(w - s) // 2 + s], (size, size), anti_aliasing=True)
        out.append(rgb2gray(im)[None] if grey else im.transpose(2, 0, 1))
    return np.clip(np.stack(out), 0, 1).astype(np.float32)


@pytest.fixture(scope="module")
def grey28():
    from data_adapters import vision as V

    if os.path.exists(os.path.join(V.FASHION_MNIST_DIR, "t10k-images-idx3-ubyte.gz")):
        return V.load_fashion_mnist("test", n=64, rng=0).images
    return _photos(28, grey=True)


@pytest.fixture(scope="module")
def digits():
    from data_adapters.vision import load_sklearn_digits

    return load_sklearn_digits(n=64, rng=0).images


@pytest.fixture(scope="module")
def rgb32():
    return _photos(32)


def test_constants_are_the_cifar10c_ones():
    # Hendrycks' make_cifar_c.py (hendrycks/robustness, ImageNet-C/create_c) = the PEA spec's section 4 table
    assert CIFAR_C_CONSTANTS["gaussian_noise"] == (0.04, 0.06, 0.08, 0.09, 0.10)
    assert CIFAR_C_CONSTANTS["shot_noise"] == (500, 250, 100, 75, 50)
    assert CIFAR_C_CONSTANTS["impulse_noise"] == (0.01, 0.02, 0.03, 0.05, 0.07)
    assert CIFAR_C_CONSTANTS["speckle_noise"] == (0.06, 0.10, 0.12, 0.16, 0.20)
    assert CIFAR_C_CONSTANTS["gaussian_blur"] == (0.4, 0.6, 0.7, 0.8, 1.0)
    assert CIFAR_C_CONSTANTS["defocus_blur"] == ((0.3, 0.4), (0.4, 0.5), (0.5, 0.6), (1, 0.2), (1.5, 0.1))
    assert CIFAR_C_CONSTANTS["contrast"] == (0.75, 0.5, 0.4, 0.3, 0.15)
    assert CIFAR_C_CONSTANTS["brightness"] == (0.05, 0.10, 0.15, 0.20, 0.30)
    assert CIFAR_C_CONSTANTS["jpeg_compression"] == (80, 65, 58, 50, 40)
    assert CIFAR_C_CONSTANTS["pixelate"] == (0.95, 0.90, 0.85, 0.75, 0.65)
    assert set(CIFAR_C_CORRUPTIONS) <= set(CORRUPTIONS) and set(CIFAR_C_CONSTANTS) == set(CIFAR_C_CORRUPTIONS)
    assert sorted(sum(K.CORRUPTION_FAMILIES.values(), ())) == sorted(CORRUPTIONS)


@pytest.mark.parametrize("name", CIFAR_C_CORRUPTIONS)
def test_every_corruption_shapes_range_seeding(name, grey28, digits, rgb32):
    sets = [rgb32, rgb32[:, :, :16, :16]] + ([] if name == "saturate" else [grey28, digits])
    for x in sets:
        for s in (1, 5):
            y = cc(x, name, s, rng=7)
            assert y.shape == x.shape and y.dtype == np.float32
            assert np.isfinite(y).all() and y.min() >= 0 and y.max() <= 1
            assert np.array_equal(y, cc(x, name, s, rng=7))         # same seed, same batch
            other = cc(x, name, s, rng=8)
            if name in RANDOM:
                assert not np.array_equal(y, other)
            else:
                assert np.array_equal(y, other)
    assert not np.array_equal(cc(rgb32, name, 5, rng=0), rgb32)


@pytest.mark.parametrize("name", sorted(DETERMINISTIC))
def test_batch_vectorisation_equals_one_image_at_a_time(name, rgb32, grey28):
    for x in ([rgb32] if name == "saturate" else [rgb32, grey28[:6]]):
        y = cc(x, name, 4)
        single = np.concatenate([cc(x[i:i + 1], name, 4) for i in range(len(x))])
        assert np.allclose(y, single, atol=1e-6)


MONOTONE = [n for n in CIFAR_C_CORRUPTIONS if n not in ("glass_blur", "elastic_transform", "saturate")]


@pytest.mark.parametrize("name", MONOTONE)
def test_distance_from_clean_grows_with_severity(name, grey28, rgb32):
    # for these corruptions the constants order the strength (more noise, wider blur, less contrast, lower
    # JPEG quality, coarser pixels, denser fog): the mean absolute change grows strictly with the severity
    for x in (grey28, rgb32):
        d = [np.abs(cc(x, name, s, rng=11) - x).mean() for s in range(1, 6)]
        assert np.all(np.diff(d) > 0), (name, np.round(d, 4))


def test_non_monotone_constants_behave_as_the_reference(grey28):
    # glass blur: severities 4 and 5 do two rounds of pixel swaps, 1-3 one round: 4 and 5 move pixels more
    d = [np.abs(cc(grey28, "glass_blur", s, rng=1) - grey28).mean() for s in range(1, 6)]
    assert min(d[3], d[4]) > max(d[:3])
    # elastic transform: severity 1 is a pure random affine map (no displacement field), 2..5 add a field
    x = grey28[:4]
    g = np.random.default_rng(0)
    from iclr26sci.adaptation import _corrupt as engine   # the one engine behind corrupt_images

    affine_only = engine._elastic(x.astype(np.float64), CIFAR_C_CONSTANTS["elastic_transform"][0], g)
    assert np.abs(affine_only - x).mean() > 0.01


# ------------------------------------------------------------------- reference formulations, one by one

def test_noise_statistics():
    x = np.full((64, 1, 28, 28), 0.5)
    n = x.size
    for s, c in enumerate(CIFAR_C_CONSTANTS["gaussian_noise"], 1):
        r = cc(x, "gaussian_noise", s, rng=s).astype(np.float64) - 0.5
        assert abs(r.std() - c) < 5 * c / np.sqrt(2 * n) + 1e-6 and abs(r.mean()) < 5 * c / np.sqrt(n)
    for s, c in enumerate(CIFAR_C_CONSTANTS["shot_noise"], 1):
        r = cc(x, "shot_noise", s, rng=s).astype(np.float64)
        var = 0.5 / c                                         # Var[Poisson(c x) / c] = x / c
        assert abs(r.var() - var) < 6 * var * np.sqrt(2 / n) + 1e-6 and abs(r.mean() - 0.5) < 5 * np.sqrt(var / n)
    for s, c in enumerate(CIFAR_C_CONSTANTS["impulse_noise"], 1):
        r = cc(x, "impulse_noise", s, rng=s)
        flipped = r != 0.5
        assert abs(flipped.mean() - c) < 5 * np.sqrt(c * (1 - c) / n)
        assert set(np.unique(r[flipped])) <= {0.0, 1.0} and abs((r[flipped] == 1).mean() - 0.5) < 0.05
    for s, c in enumerate(CIFAR_C_CONSTANTS["speckle_noise"], 1):
        r = (cc(x, "speckle_noise", s, rng=s).astype(np.float64) - 0.5) / 0.5
        assert abs(r.std() - c) < 5 * c / np.sqrt(2 * n) + 1e-6


def test_gaussian_blur_is_scikit_image_gaussian(rgb32, grey28):
    from skimage.filters import gaussian

    for x in (rgb32, grey28[:4]):
        for s, c in enumerate(CIFAR_C_CONSTANTS["gaussian_blur"], 1):
            ref = np.stack([gaussian(im.transpose(1, 2, 0).astype(np.float64), sigma=c, channel_axis=-1)
                            .transpose(2, 0, 1) for im in x])
            assert np.abs(cc(x, "gaussian_blur", s) - ref).max() < 1e-6


def test_defocus_blur_is_the_opencv_disk_filter(rgb32, grey28):
    cv2 = pytest.importorskip("cv2")

    def disk(radius, alias_blur):
        L = np.arange(-8, 8 + 1)
        X, Y = np.meshgrid(L, L)
        d = np.array((X ** 2 + Y ** 2) <= radius ** 2, dtype=np.float32)
        d /= d.sum()
        return cv2.GaussianBlur(d, ksize=(3, 3), sigmaX=alias_blur)

    for x in (rgb32, grey28[:4]):
        for s, c in enumerate(CIFAR_C_CONSTANTS["defocus_blur"], 1):
            ker = disk(*c)
            ref = np.stack([[cv2.filter2D(ch.astype(np.float32), -1, ker) for ch in im] for im in x])
            assert np.abs(cc(x, "defocus_blur", s) - np.clip(ref, 0, 1)).max() < 1e-5


def test_zoom_blur_is_the_reference_clipped_zoom(rgb32):
    from scipy.ndimage import zoom

    def clipped_zoom(img, z):  # make_cifar_c.py, for one H x W x C image
        h = img.shape[0]
        ch = int(np.ceil(h / z))
        top = (h - ch) // 2
        img = zoom(img[top:top + ch, top:top + ch], (z, z, 1), order=1)
        t = (img.shape[0] - h) // 2
        return img[t:t + h, t:t + h]

    for s, c in enumerate(CIFAR_C_CONSTANTS["zoom_blur"], 1):
        im = rgb32[2].transpose(1, 2, 0).astype(np.float64)
        factors = np.arange(1, c, 0.01)
        ref = (im + sum(clipped_zoom(im, z) for z in factors)) / (len(factors) + 1)
        assert np.abs(cc(rgb32[2:3], "zoom_blur", s)[0] - ref.transpose(2, 0, 1)).max() < 1e-6


def test_pixelate_is_pillow_box_resize(rgb32, digits):
    from PIL import Image

    for x in (rgb32, digits[:5]):
        H = x.shape[2]
        for s, c in enumerate(CIFAR_C_CONSTANTS["pixelate"], 1):
            m = int(H * c)
            ref = np.stack([[np.asarray(Image.fromarray(ch, mode="F").resize((m, m), Image.BOX)
                                        .resize((H, H), Image.BOX)) for ch in im] for im in x])
            assert np.abs(cc(x, "pixelate", s) - ref).max() < 1e-5


def test_brightness_and_contrast(rgb32, grey28):
    from skimage.color import hsv2rgb, rgb2hsv

    for s, c in enumerate(CIFAR_C_CONSTANTS["brightness"], 1):
        # grey images: the shortcut equals the HSV round trip of the grey image as RGB
        g3 = np.repeat(grey28[:4].transpose(0, 2, 3, 1), 3, axis=3).astype(np.float64)
        hsv = rgb2hsv(g3)
        hsv[..., 2] = np.clip(hsv[..., 2] + c, 0, 1)
        assert np.abs(cc(grey28[:4], "brightness", s)[:, 0] - hsv2rgb(hsv)[..., 0]).max() < 1e-6
    y = cc(rgb32, "contrast", 5)
    m = rgb32.mean(axis=(2, 3), keepdims=True)
    assert np.allclose(y, np.clip((rgb32 - m) * 0.15 + m, 0, 1), atol=1e-6)


def test_jpeg_quality_orders_the_file_error(rgb32):
    y80, y40 = cc(rgb32, "jpeg_compression", 1), cc(rgb32, "jpeg_compression", 5)
    assert 0 < np.abs(y80 - rgb32).mean() < np.abs(y40 - rgb32).mean()


def test_fog_single_image_equals_the_reference_fractal(rgb32):
    c = CIFAR_C_CONSTANTS["fog"][3]

    def plasma(mapsize, decay, g):  # make_cifar_c.py's diamond-square, drawing from g
        a = np.empty((mapsize, mapsize))
        a[0, 0] = 0
        step, wib = mapsize, 100.0

        def wm(v):
            return v / 4 + wib * g.uniform(-wib, wib, v.shape)

        while step >= 2:
            cr = a[0:mapsize:step, 0:mapsize:step]
            sq = cr + np.roll(cr, shift=-1, axis=0)
            sq += np.roll(sq, shift=-1, axis=1)
            a[step // 2:mapsize:step, step // 2:mapsize:step] = wm(sq)
            dr = a[step // 2:mapsize:step, step // 2:mapsize:step]
            ul = a[0:mapsize:step, 0:mapsize:step]
            a[0:mapsize:step, step // 2:mapsize:step] = wm(dr + np.roll(dr, 1, axis=0) + ul + np.roll(ul, -1, axis=1))
            a[step // 2:mapsize:step, 0:mapsize:step] = wm(dr + np.roll(dr, 1, axis=1) + ul + np.roll(ul, -1, axis=0))
            step //= 2
            wib /= decay
        a -= a.min()
        return a / a.max()

    x = rgb32[1].transpose(1, 2, 0).astype(np.float64)
    mx = x.max()
    ref = np.clip((x + c[0] * plasma(32, c[1], np.random.default_rng(5))[..., None]) * mx / (mx + c[0]), 0, 1)
    assert np.abs(cc(rgb32[1:2], "fog", 4, rng=5)[0] - ref.transpose(2, 0, 1)).max() < 1e-6


def test_glass_blur_single_image_equals_the_reference_loop(grey28):
    from skimage.filters import gaussian

    sigma, d, rounds = CIFAR_C_CONSTANTS["glass_blur"][4]
    g = np.random.default_rng(9)
    x = gaussian(grey28[0, 0].astype(np.float64), sigma=sigma)
    for _ in range(rounds):
        for h in range(28 - d, d, -1):
            for w in range(28 - d, d, -1):
                dx, dy = g.integers(-d, d, size=(2, 1))[:, 0]
                x[h, w], x[h + dy, w + dx] = x[h + dy, w + dx], x[h, w]
    ref = np.clip(gaussian(x, sigma=sigma), 0, 1)
    assert np.abs(cc(grey28[:1], "glass_blur", 5, rng=9)[0, 0] - ref).max() < 1e-6


def test_elastic_transform_single_image_against_opencv(rgb32):
    cv2 = pytest.importorskip("cv2")
    from scipy.ndimage import gaussian_filter, map_coordinates

    a, s, j = (v * 32 for v in CIFAR_C_CONSTANTS["elastic_transform"][2])
    g = np.random.default_rng(4)
    im = rgb32[0].transpose(1, 2, 0).astype(np.float32)
    cs, sq = 16, 32 // 3
    pts1 = np.float32([[cs + sq, cs + sq], [cs + sq, cs - sq], [cs - sq, cs - sq]])
    pts2 = (pts1 + g.uniform(-j, j, size=pts1.shape)).astype(np.float32)
    im = cv2.warpAffine(im, cv2.getAffineTransform(pts1, pts2), (32, 32), borderMode=cv2.BORDER_REFLECT_101)
    dx = gaussian_filter(g.uniform(-1, 1, size=(32, 32)), s, mode="reflect", truncate=3) * a
    dy = gaussian_filter(g.uniform(-1, 1, size=(32, 32)), s, mode="reflect", truncate=3) * a
    yy, xx, zz = np.meshgrid(np.arange(32), np.arange(32), np.arange(3), indexing="ij")
    ref = map_coordinates(im, [yy + dy[..., None], xx + dx[..., None], zz], order=1, mode="reflect")
    ours = cc(rgb32[:1], "elastic_transform", 3, rng=4)[0].transpose(1, 2, 0)
    # OpenCV interpolates with 1/32-pixel fixed-point weights: agreement to a few 1e-3 on average
    assert np.abs(ours - np.clip(ref, 0, 1)).mean() < 5e-3


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 3), c=st.sampled_from([1, 3]), h=st.integers(1, 12), w=st.integers(1, 12),
       name=st.sampled_from(CIFAR_C_CORRUPTIONS), severity=st.integers(1, 5), seed=st.integers(0, 2 ** 31))
def test_any_small_shape_gives_valid_images(n, c, h, w, name, severity, seed):
    # square or not, down to 1 px: the engine returns images of the same shape in [0, 1]
    if name == "saturate" and c == 1:
        c = 3
    x = np.random.default_rng(seed).random((n, c, h, w)).astype(np.float32)
    y = cc(x, name, severity, rng=seed)
    assert y.shape == x.shape and y.dtype == np.float32 and np.isfinite(y).all() and 0 <= y.min() <= y.max() <= 1


def test_imageset_in_imageset_out(digits):
    s = ImageSet(digits, np.arange(64) % 10, tuple("0123456789"), "digits")
    out = cc(s, "contrast", 2)
    assert isinstance(out, ImageSet) and np.array_equal(out.labels, s.labels) and out.name == "digits/contrast-2"


# ------------------------------------------------------------------------------ imagecorruptions backend

@needs_ic
def test_imagenet_c_backend_all_corruptions(rgb32):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # its pkg_resources deprecation warning
        import imagecorruptions

    x = np.concatenate([rgb32[:2], rgb32[:2, :, ::-1]])
    grey = rgb32[:2].mean(axis=1, keepdims=True)
    np.random.seed(123)
    state = np.random.get_state()[1].copy()
    for name in CORRUPTIONS:
        y = corrupt_images(x, name, 3, rng=0)                  # auto: 32 px -> imagecorruptions' constants
        assert y.shape == x.shape and y.dtype == np.float32 and 0 <= y.min() and y.max() <= 1
        assert np.array_equal(y, corrupt_images(x, name, 3, rng=0)), name
        assert not np.array_equal(y, x), name
        if name != "saturate":
            yg = corrupt_images(grey, name, 3, rng=0)
            assert yg.shape == grey.shape
    assert np.array_equal(np.random.get_state()[1], state)     # numpy's global random state is restored
    # deterministic corruptions equal a direct call of imagecorruptions on the uint8 image
    u8 = np.round(x[0].transpose(1, 2, 0) * 255).astype(np.uint8)
    for name in ("contrast", "pixelate", "defocus_blur"):
        direct = imagecorruptions.corrupt(u8, severity=4, corruption_name=name) / 255.0
        assert np.abs(corrupt_images(x[:1], name, 4)[0].transpose(1, 2, 0) - direct).max() < 1e-6
    # ImageNet-C constants are stronger than CIFAR-10-C's
    a = np.abs(corrupt_images(x, "gaussian_noise", 1, rng=0) - x).mean()
    b = np.abs(corrupt_images(x, "gaussian_noise", 1, rng=0, backend="cifar-c") - x).mean()
    assert a > 1.5 * b


@needs_ic
def test_imagenet_c_gaussian_blur_runs_on_the_numpy_engine(rgb32):
    from skimage.filters import gaussian

    for s, c in enumerate((1, 2, 3, 4, 6), 1):
        ref = gaussian(rgb32[0].transpose(1, 2, 0).astype(np.float64), sigma=c, channel_axis=-1)
        assert np.abs(corrupt_images(rgb32[:1], "gaussian_blur", s)[0] - ref.transpose(2, 0, 1)).max() < 1e-6


def test_missing_imagecorruptions_names_the_install(monkeypatch, rgb32):
    monkeypatch.setitem(sys.modules, "imagecorruptions", None)
    with pytest.raises(ImportError, match=r'pip install "iclr26sci\[vision\]"'):
        corrupt_images(rgb32, "snow", 2, rng=0)
    corrupt_images(rgb32, "gaussian_noise", 2, rng=0, backend="cifar-c")      # the numpy engine needs nothing


# ------------------------------------------------------------------------------------------ bad input

@pytest.mark.bad_input("data_adapters.corrupt_images")
def test_corrupt_images_bad_input(digits, rgb32):
    import torch

    _raises("corruption", corrupt_images, digits, "rain", 1)
    _raises("corruption", corrupt_images, digits, 3, 1)
    _raises("corruption", corrupt_images, digits, "motion_blur", 1)           # not in the small-image engine
    _raises("corruption", corrupt_images, digits, "saturate", 1)              # grey images
    _raises("corruption", corrupt_images, rgb32, "frost", 1, backend="cifar-c")
    for bad in (0, 6, 2.0, True, "3", None):
        _raises("severity", corrupt_images, digits, "contrast", bad)
    _raises("backend", corrupt_images, digits, "contrast", 1, backend="imagenet")
    _raises("backend", corrupt_images, digits, "contrast", 1, backend="imagenet-c")   # 8 px < 32 px
    _raises("images", corrupt_images, digits[0], "contrast", 1)                      # one image, 3-D
    _raises("images", corrupt_images, digits[:0], "contrast", 1)                     # empty
    _raises("images", corrupt_images, np.zeros((2, 2, 8, 8), np.float32), "contrast", 1)
    _raises("images", corrupt_images, (digits * 255).astype(np.uint8), "contrast", 1)
    _raises("images", corrupt_images, digits * 255, "contrast", 1)                   # values outside [0, 1]
    nan = digits.copy()
    nan[0, 0, 0, 0] = np.nan
    _raises("images", corrupt_images, nan, "contrast", 1)
    _raises("images", corrupt_images, digits.tolist(), "contrast", 1)
    _raises("images", corrupt_images, torch.zeros(2, 1, 8, 8), "contrast", 1)
    _raises("rng", corrupt_images, digits, "gaussian_noise", 1, rng="seed")
