"""The built-in corruption engine of :class:`CorruptedStream` (used when no ``corrupt=`` callable is given).

The method layer may not import ``data_adapters``, so the stream carries its own engine. It produces the
same images as ``data_adapters.corruptions.corrupt_images(x, name, severity, rng, backend=...)`` for the same
numpy ``Generator`` (``tests/adaptation/test_corrupt_engine.py`` checks every corruption and severity):

- ``"cifar-c"``: the CIFAR-10-C constants of Hendrycks' ``make_cifar_c.py``, in numpy / scipy (Pillow for JPEG
  and the box resampling of ``pixelate``, scikit-image for the HSV conversions of RGB ``brightness`` /
  ``saturate``), batched, for grey or RGB images of any size (the 28-px Fashion-MNIST images included);
- ``"imagenet-c"``: the ImageNet-C constants through the third-party ``imagecorruptions`` package (extra
  ``vision``; images of at least 32 px), with ``gaussian_blur``, ``glass_blur``, ``fog`` (which do not run with
  scikit-image 0.26 / numpy 2) and ``impulse_noise`` (unseeded there) on the numpy engine with its constants.

Randomness comes from the one ``Generator`` passed in, in a fixed order; images stay float between steps.
"""
from __future__ import annotations

import io
import math

import numpy as np

from iclr26sci.core import InputError

#: CIFAR-10-C constants by severity 1..5 (Hendrycks and Dietterich 2019, ``make_cifar_c.py``)
CIFAR_C = {
    "gaussian_noise": (0.04, 0.06, 0.08, 0.09, 0.10),
    "shot_noise": (500, 250, 100, 75, 50),
    "impulse_noise": (0.01, 0.02, 0.03, 0.05, 0.07),
    "speckle_noise": (0.06, 0.10, 0.12, 0.16, 0.20),
    "gaussian_blur": (0.4, 0.6, 0.7, 0.8, 1.0),
    "defocus_blur": ((0.3, 0.4), (0.4, 0.5), (0.5, 0.6), (1, 0.2), (1.5, 0.1)),
    "glass_blur": ((0.05, 1, 1), (0.25, 1, 1), (0.4, 1, 1), (0.25, 1, 2), (0.4, 1, 2)),
    "zoom_blur": (1.06, 1.11, 1.16, 1.21, 1.26),
    "fog": ((0.2, 3), (0.5, 3), (0.75, 2.5), (1, 2), (1.5, 1.75)),
    "brightness": (0.05, 0.10, 0.15, 0.20, 0.30),
    "contrast": (0.75, 0.5, 0.4, 0.3, 0.15),
    "saturate": ((0.3, 0), (0.1, 0), (1.5, 0), (2, 0.1), (2.5, 0.2)),
    "jpeg_compression": (80, 65, 58, 50, 40),
    "pixelate": (0.95, 0.90, 0.85, 0.75, 0.65),
    "elastic_transform": ((0, 0, 0.08), (0.05, 0.2, 0.07), (0.08, 0.06, 0.06), (0.1, 0.04, 0.05),
                          (0.1, 0.03, 0.03)),
}
#: ImageNet-C constants of the four corruptions the "imagenet-c" backend runs on the numpy engine
IMAGENET_C_NUMPY = {
    "impulse_noise": (0.03, 0.06, 0.09, 0.17, 0.27),
    "gaussian_blur": (1, 2, 3, 4, 6),
    "glass_blur": ((0.7, 1, 2), (0.9, 2, 1), (1, 2, 3), (1.1, 3, 2), (1.5, 4, 2)),
    "fog": ((1.5, 2), (2.0, 2), (2.5, 1.7), (2.5, 1.5), (3.0, 1.4)),
}
_VISION = 'pip install "iclr26sci[vision]"'


def _gauss_filter(x, sigma):
    from scipy.ndimage import gaussian_filter

    return gaussian_filter(x, sigma=(0, 0, sigma, sigma), mode="nearest", truncate=4.0)


def _noise(name, x, c, g):
    if name == "gaussian_noise":
        return x + g.normal(0.0, c, size=x.shape)
    if name == "shot_noise":
        return g.poisson(x * c) / c
    if name == "speckle_noise":
        return x + x * g.normal(0.0, c, size=x.shape)
    # impulse (salt and pepper): a value is hit with probability c, then set to 1 or 0 with equal odds
    hit = g.random(x.shape) <= c
    salt = g.random(x.shape) <= 0.5
    y = x.copy()
    y[hit & salt] = 1.0
    y[hit & ~salt] = 0.0
    return y


def _glass(x, c, g):
    sigma, d, rounds = c
    n, _, h_img, w_img = x.shape
    x = _gauss_filter(x, sigma)
    rows = np.arange(n)
    for _ in range(rounds):
        for h in range(h_img - d, d, -1):
            for w in range(w_img - d, d, -1):
                dx, dy = g.integers(-d, d, size=(2, n))   # one local swap per image, offsets in [-d, d-1]
                a = x[rows, :, h, w]
                x[rows, :, h, w] = x[rows, :, h + dy, w + dx]
                x[rows, :, h + dy, w + dx] = a
    return _gauss_filter(x, sigma)


def _defocus_kernel(radius, alias_blur):
    from scipy.ndimage import correlate1d

    half = 8 if radius <= 8 else math.ceil(radius)
    ax = np.arange(-half, half + 1)
    xx, yy = np.meshgrid(ax, ax)
    disk = (xx ** 2 + yy ** 2 <= radius ** 2).astype(np.float64)
    disk /= disk.sum()
    k = 3 if radius <= 8 else 5
    t = np.arange(k) - (k - 1) / 2
    g1 = np.exp(-t ** 2 / (2 * alias_blur ** 2))
    g1 /= g1.sum()
    ker = correlate1d(correlate1d(disk, g1, axis=0, mode="mirror"), g1, axis=1, mode="mirror")
    nz_r, nz_c = np.nonzero(ker > 0)
    r = max(np.abs(nz_r - half).max(), np.abs(nz_c - half).max())
    return ker[half - r:half + r + 1, half - r:half + r + 1]


def _defocus(x, c, g):
    from scipy.ndimage import correlate

    return correlate(x, _defocus_kernel(*c)[None, None], mode="mirror")


def _zoom_rows(n, z):
    from scipy.ndimage import zoom

    return zoom(np.eye(n), (z, 1), order=1)   # the linear map of a bilinear 1-D zoom, read off the identity


def _zoom(x, c, g):
    h, w = x.shape[2:]
    acc = np.zeros_like(x)
    factors = np.arange(1, c, 0.01)
    for z in factors:
        ch, cw = int(np.ceil(h / z)), int(np.ceil(w / z))
        top, left = (h - ch) // 2, (w - cw) // 2
        zh, zw = _zoom_rows(ch, z), _zoom_rows(cw, z)
        oh, ow = (zh.shape[0] - h) // 2, (zw.shape[0] - w) // 2
        acc += zh[oh:oh + h] @ x[:, :, top:top + ch, left:left + cw] @ zw[ow:ow + w].T
    return (x + acc) / (len(factors) + 1)


def _plasma(n, size, decay, g):
    """``n`` diamond-square height maps of side ``size`` (a power of two), scaled to [0, 1]."""
    m = np.zeros((n, size, size))
    step, wibble = size, 100.0
    while step >= 2:
        half = step // 2
        corner = m[:, 0:size:step, 0:size:step]
        square = corner + np.roll(corner, -1, axis=1)
        square = square + np.roll(square, -1, axis=2)
        m[:, half:size:step, half:size:step] = square / 4 + wibble * g.uniform(-wibble, wibble, square.shape)
        centre = m[:, half:size:step, half:size:step]
        corner = m[:, 0:size:step, 0:size:step]
        left = centre + np.roll(centre, 1, axis=1) + corner + np.roll(corner, -1, axis=2)
        m[:, 0:size:step, half:size:step] = left / 4 + wibble * g.uniform(-wibble, wibble, left.shape)
        top = centre + np.roll(centre, 1, axis=2) + corner + np.roll(corner, -1, axis=1)
        m[:, half:size:step, 0:size:step] = top / 4 + wibble * g.uniform(-wibble, wibble, top.shape)
        step //= 2
        wibble /= decay
    m -= m.min(axis=(1, 2), keepdims=True)
    peak = m.max(axis=(1, 2), keepdims=True)
    return m / np.where(peak > 0, peak, 1.0)


def _fog(x, c, g):
    strength, decay = c
    n, _, h, w = x.shape
    size = 1 << (max(h, w) - 1).bit_length()
    fog = _plasma(n, size, decay, g)[:, None, :h, :w]
    top = x.max(axis=(1, 2, 3), keepdims=True)
    return (x + strength * fog) * top / (top + strength)


def _hsv(x, channel, scale, shift):
    from skimage.color import hsv2rgb, rgb2hsv

    hsv = rgb2hsv(x, channel_axis=1)
    hsv[:, channel] = np.clip(hsv[:, channel] * scale + shift, 0, 1)
    return hsv2rgb(hsv, channel_axis=1)


def _brightness(x, c, g):
    return x + c if x.shape[1] == 1 else _hsv(x, 2, 1.0, c)   # grey: the HSV value is the intensity


def _contrast(x, c, g):
    mean = x.mean(axis=(2, 3), keepdims=True)
    return (x - mean) * c + mean


def _jpeg(x, c, g):
    from PIL import Image

    grey = x.shape[1] == 1
    mode = "L" if grey else "RGB"
    u8 = np.round(np.clip(x, 0, 1) * 255).astype(np.uint8)
    out = np.empty(x.shape, dtype=np.float64)
    for i in range(x.shape[0]):
        buf = io.BytesIO()
        Image.fromarray(u8[i, 0] if grey else u8[i].transpose(1, 2, 0), mode=mode).save(buf, format="JPEG",
                                                                                        quality=int(c))
        buf.seek(0)
        with Image.open(buf) as im:
            a = np.asarray(im.convert(mode), dtype=np.float64) / 255.0
        out[i] = a[None] if grey else a.transpose(2, 0, 1)
    return out


def _box(src, dst):
    """Pillow's BOX resampling of a length-``src`` signal to length ``dst``, as a (dst, src) matrix."""
    from PIL import Image

    im = Image.fromarray(np.eye(src, dtype=np.float32), mode="F").resize((dst, src), Image.BOX)
    return np.asarray(im, dtype=np.float64).T


def _pixelate(x, c, g):
    h, w = x.shape[2:]
    sh, sw = max(1, int(h * c)), max(1, int(w * c))
    return (_box(sh, h) @ _box(h, sh)) @ x @ (_box(sw, w) @ _box(w, sw)).T


def _elastic(x, c, g):
    from scipy.ndimage import gaussian_filter, map_coordinates

    n, ch, h, w = x.shape
    side = min(h, w)
    alpha, sigma, jitter = (v * side for v in c)
    rr, cc = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64), indexing="ij")
    cx, cy, s = w // 2, h // 2, max(1, side // 3)
    src_pts = np.array([[cx + s, cy + s], [cx + s, cy - s], [cx - s, cy - s]], dtype=np.float64)
    out = np.empty_like(x)
    for i in range(n):
        dst_pts = src_pts + g.uniform(-jitter, jitter, size=src_pts.shape)
        aff = np.linalg.solve(np.c_[src_pts, np.ones(3)], dst_pts).T   # dst = aff @ (x, y, 1)
        inv = np.linalg.inv(np.vstack([aff, [0.0, 0.0, 1.0]]))
        xs = inv[0, 0] * cc + inv[0, 1] * rr + inv[0, 2]
        ys = inv[1, 0] * cc + inv[1, 1] * rr + inv[1, 2]
        warped = [map_coordinates(x[i, k], [ys, xs], order=1, mode="mirror") for k in range(ch)]
        dx = gaussian_filter(g.uniform(-1, 1, size=(h, w)), sigma, mode="reflect", truncate=3) * alpha
        dy = gaussian_filter(g.uniform(-1, 1, size=(h, w)), sigma, mode="reflect", truncate=3) * alpha
        out[i] = np.stack([map_coordinates(wk, [rr + dy, cc + dx], order=1, mode="reflect") for wk in warped])
    return out


_NUMPY = {
    "gaussian_noise": lambda x, c, g: _noise("gaussian_noise", x, c, g),
    "shot_noise": lambda x, c, g: _noise("shot_noise", x, c, g),
    "impulse_noise": lambda x, c, g: _noise("impulse_noise", x, c, g),
    "speckle_noise": lambda x, c, g: _noise("speckle_noise", x, c, g),
    "gaussian_blur": lambda x, c, g: _gauss_filter(x, c),
    "defocus_blur": _defocus, "glass_blur": _glass, "zoom_blur": _zoom, "fog": _fog, "brightness": _brightness,
    "contrast": _contrast, "saturate": lambda x, c, g: _hsv(x, 1, c[0], c[1]), "jpeg_compression": _jpeg,
    "pixelate": _pixelate, "elastic_transform": _elastic,
}


def _imagecorruptions(x, name, severity, g):
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # its pkg_resources deprecation warning
            import imagecorruptions
    except ImportError as exc:
        raise ImportError("CorruptedStream(backend='imagenet-c') needs the package 'imagecorruptions' (extra "
                          f"'vision': {_VISION}), or pass backend='cifar-c' or a corrupt= callable") from exc
    n, ch = x.shape[:2]
    seeds = g.integers(0, 2 ** 32, size=n, dtype=np.uint64)
    u8 = np.round(x * 255).astype(np.uint8)
    out = np.empty(x.shape, dtype=np.float64)
    luma = np.array([0.299, 0.587, 0.114])
    saved = np.random.get_state()   # the package draws from numpy's global state: seed it per image, restore
    try:
        for i in range(n):
            np.random.seed(int(seeds[i]))
            img = u8[i, 0] if ch == 1 else u8[i].transpose(1, 2, 0)
            r = np.asarray(imagecorruptions.corrupt(img, severity=severity, corruption_name=name), np.float64) / 255.0
            if r.ndim == 2:
                r = r[:, :, None]
            if ch == 1:   # the package returns RGB for grey input: back to grey with ITU-R 601 luma
                out[i, 0] = r @ luma if r.shape[2] == 3 else r[:, :, 0]
            else:
                out[i] = r.transpose(2, 0, 1)
    finally:
        np.random.set_state(saved)
    return out


def corrupt(images, name, severity, g, backend="cifar-c"):
    """Corrupt a float batch ``(n, C, H, W)`` in [0, 1]; returns float32 in [0, 1]. ``g``: a numpy Generator."""
    x = np.asarray(images, dtype=np.float64)
    n, ch, h, w = x.shape
    if backend == "imagenet-c":
        if min(h, w) < 32:
            raise InputError("backend", f"is 'imagenet-c' for {h}x{w} images",
                             "images of at least 32x32 px for imagecorruptions, or backend='cifar-c'")
        if name in IMAGENET_C_NUMPY:
            out = _NUMPY[name](x.copy(), IMAGENET_C_NUMPY[name][severity - 1], g)
        else:
            out = _imagecorruptions(x, name, severity, g)
    else:
        out = _NUMPY[name](x.copy(), CIFAR_C[name][severity - 1], g)
    return np.clip(np.clip(out, 0, 1), 0, 1).astype(np.float32)


__all__: list = []
