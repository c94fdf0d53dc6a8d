"""Common image corruptions at five severities (Hendrycks and Dietterich 2019), for batches of images.

Two sets of constants, one engine per set:

- ``"cifar-c"``: the CIFAR-10-C constants of Hendrycks' ``make_cifar_c.py`` (the script that generated
  CIFAR-10-C), implemented here in numpy/scipy (Pillow for JPEG), vectorised over the batch where the
  corruption allows it, for grey or RGB images of **any** size (28x28 Fashion-MNIST, 8x8 digits, 32x32).
  Implemented: the noise family (``gaussian_noise``, ``shot_noise``, ``impulse_noise``, ``speckle_noise``),
  the blurs ``gaussian_blur``, ``defocus_blur``, ``glass_blur``, ``zoom_blur``, the weather corruptions
  ``fog`` and ``brightness``, and the digital ones ``contrast``, ``saturate`` (RGB only), ``jpeg_compression``,
  ``pixelate`` and ``elastic_transform``. Left out: ``motion_blur`` and ``snow`` (the reference blurs with
  ImageMagick's motion-blur operator, which is not available), ``frost`` (it crops frost photographs sized
  for 32 px images) and ``spatter`` (an OpenCV edge/distance-transform pipeline tuned to 32 px).
- ``"imagenet-c"``: the ImageNet-C constants through the ``imagecorruptions`` package (all 19 corruptions;
  images of at least 32 px). Its ``gaussian_blur``, ``glass_blur`` and ``fog`` do not run with the installed
  scikit-image 0.26 / numpy 2 (``multichannel=`` and ``np.float_`` were removed), and its ``impulse_noise``
  draws from an unseeded generator, so those four run on this module's numpy engine with
  ``imagecorruptions``' own constants.

``backend="auto"`` (the default) picks ``"cifar-c"`` for images smaller than 32 px and ``"imagenet-c"``
otherwise; pass ``backend="cifar-c"`` for CIFAR-like 32 px images to get CIFAR-10-C's milder constants.

Differences from the reference scripts, all deliberate: images stay float (the scripts round to uint8
after each corruption, and ``glass_blur`` also in between); randomness comes from one seeded numpy
``Generator`` (per image for ``imagecorruptions``, which draws from numpy's global state: that state is
saved and restored around the call); sizes that the CIFAR script hard-codes as 32 follow the image.
"""
from __future__ import annotations

import math

import numpy as np

from iclr26sci.core import InputError, as_generator, check_memory, check_option

__all__ = ["corrupt_images", "CORRUPTIONS", "CIFAR_C_CORRUPTIONS", "CORRUPTION_FAMILIES", "CIFAR_C_CONSTANTS"]

_VISION_INSTALL = 'pip install "iclr26sci[vision]"'

#: the 15 ImageNet-C / CIFAR-10-C benchmark corruptions followed by the 4 validation corruptions
CORRUPTIONS = ("gaussian_noise", "shot_noise", "impulse_noise", "defocus_blur", "glass_blur", "motion_blur",
               "zoom_blur", "snow", "frost", "fog", "brightness", "contrast", "elastic_transform", "pixelate",
               "jpeg_compression", "speckle_noise", "gaussian_blur", "spatter", "saturate")

#: the corruptions that the numpy engine implements (any image size; CIFAR-10-C constants)
CIFAR_C_CORRUPTIONS = ("gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise", "gaussian_blur",
                       "defocus_blur", "glass_blur", "zoom_blur", "fog", "brightness", "contrast", "saturate",
                       "jpeg_compression", "pixelate", "elastic_transform")

#: the families of Hendrycks and Dietterich (2019), with the validation corruptions placed by kind
CORRUPTION_FAMILIES = {
    "noise": ("gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise"),
    "blur": ("defocus_blur", "glass_blur", "motion_blur", "zoom_blur", "gaussian_blur"),
    "weather": ("snow", "frost", "fog", "brightness", "spatter"),
    "digital": ("contrast", "elastic_transform", "pixelate", "jpeg_compression", "saturate"),
}

#: CIFAR-10-C constants by severity 1..5, as in Hendrycks' ``make_cifar_c.py``
CIFAR_C_CONSTANTS = {
    "gaussian_noise": (0.04, 0.06, 0.08, 0.09, 0.10),            # noise std
    "shot_noise": (500, 250, 100, 75, 50),                      # photons per unit intensity
    "impulse_noise": (0.01, 0.02, 0.03, 0.05, 0.07),            # salt-and-pepper fraction
    "speckle_noise": (0.06, 0.10, 0.12, 0.16, 0.20),            # multiplicative noise std
    "gaussian_blur": (0.4, 0.6, 0.7, 0.8, 1.0),                 # sigma (px)
    "defocus_blur": ((0.3, 0.4), (0.4, 0.5), (0.5, 0.6), (1, 0.2), (1.5, 0.1)),   # disk radius, alias blur
    "glass_blur": ((0.05, 1, 1), (0.25, 1, 1), (0.4, 1, 1), (0.25, 1, 2), (0.4, 1, 2)),  # sigma, max shift, rounds
    "zoom_blur": (1.06, 1.11, 1.16, 1.21, 1.26),                # zoom factors 1, 1.01, ... below this
    "fog": ((0.2, 3), (0.5, 3), (0.75, 2.5), (1, 2), (1.5, 1.75)),  # fog strength, fractal wibble decay
    "brightness": (0.05, 0.10, 0.15, 0.20, 0.30),               # added to the HSV value
    "contrast": (0.75, 0.5, 0.4, 0.3, 0.15),                    # factor on the deviation from the mean
    "saturate": ((0.3, 0), (0.1, 0), (1.5, 0), (2, 0.1), (2.5, 0.2)),  # HSV saturation * a + b
    "jpeg_compression": (80, 65, 58, 50, 40),                   # JPEG quality
    "pixelate": (0.95, 0.90, 0.85, 0.75, 0.65),                 # box-downsampling factor
    "elastic_transform": ((0, 0, 0.08), (0.05, 0.2, 0.07), (0.08, 0.06, 0.06), (0.1, 0.04, 0.05),
                          (0.1, 0.03, 0.03)),                   # alpha, sigma, affine jitter (x image side)
}

# imagecorruptions' (ImageNet-C) constants for the corruptions run on the numpy engine in the "imagenet-c"
# backend: three it cannot run in this environment, and impulse_noise, whose scikit-image random_noise draws
# from a fresh unseeded generator (so it could not be made reproducible through numpy's global state)
_IMAGENET_C_CONSTANTS = {
    "impulse_noise": (0.03, 0.06, 0.09, 0.17, 0.27),
    "gaussian_blur": (1, 2, 3, 4, 6),
    "glass_blur": ((0.7, 1, 2), (0.9, 2, 1), (1, 2, 3), (1.1, 3, 2), (1.5, 4, 2)),
    "fog": ((1.5, 2), (2.0, 2), (2.5, 1.7), (2.5, 1.5), (3.0, 1.4)),
}
_NUMPY_IN_IMAGENET_C = tuple(_IMAGENET_C_CONSTANTS)


# --------------------------------------------------------------------------------------- numpy engine

def _loop(n, desc):
    """``range(n)`` for the per-image loops, with a progress bar at a terminal when the batch is large."""
    from iclr26sci.core import progress

    return progress(range(n), desc=desc, enabled=None if n >= 1000 else False)


def _gaussian_noise(x, c, g):
    return np.clip(x + g.normal(0.0, c, size=x.shape), 0, 1)


def _shot_noise(x, c, g):
    return np.clip(g.poisson(x * c) / c, 0, 1)


def _impulse_noise(x, c, g):
    # scikit-image's random_noise(mode="s&p", amount=c): each value flipped with probability c, half to 1, half to 0
    flip = g.random(x.shape) <= c
    salt = g.random(x.shape) <= 0.5
    out = x.copy()
    out[flip & salt] = 1.0
    out[flip & ~salt] = 0.0
    return out


def _speckle_noise(x, c, g):
    return np.clip(x + x * g.normal(0.0, c, size=x.shape), 0, 1)


def _blur(x, sigma):
    from scipy.ndimage import gaussian_filter

    # scikit-image's gaussian(): mode "nearest", truncate 4; channels and images are not mixed
    return gaussian_filter(x, sigma=(0, 0, sigma, sigma), mode="nearest", truncate=4.0)


def _gaussian_blur(x, c, g):
    return np.clip(_blur(x, c), 0, 1)


def _glass_blur(x, c, g):
    sigma, d, rounds = c
    N, _, H, W = x.shape
    x = _blur(x, sigma)
    idx = np.arange(N)
    for _ in range(rounds):
        for h in range(H - d, d, -1):
            for w in range(W - d, d, -1):
                # as the reference: shifts drawn from randint(-d, d), i.e. in [-d, d - 1], one per image
                dx, dy = g.integers(-d, d, size=(2, N))
                hp, wp = h + dy, w + dx
                a = x[idx, :, h, w]
                b = x[idx, :, hp, wp]
                x[idx, :, h, w] = b
                x[idx, :, hp, wp] = a
    return np.clip(_blur(x, sigma), 0, 1)


def _disk_kernel(radius, alias_blur):
    L = np.arange(-8, 9) if radius <= 8 else np.arange(-math.ceil(radius), math.ceil(radius) + 1)
    k = 3 if radius <= 8 else 5
    X, Y = np.meshgrid(L, L)
    disk = ((X ** 2 + Y ** 2) <= radius ** 2).astype(np.float64)
    disk /= disk.sum()
    # OpenCV's GaussianBlur(ksize=k, sigmaX=alias_blur): separable sampled Gaussian, border reflect-101
    t = np.arange(k) - (k - 1) / 2
    g1 = np.exp(-t ** 2 / (2 * alias_blur ** 2))
    g1 /= g1.sum()
    from scipy.ndimage import correlate1d

    ker = correlate1d(correlate1d(disk, g1, axis=0, mode="mirror"), g1, axis=1, mode="mirror")
    rows, cols = np.nonzero(ker > 0)
    r = max(abs(rows - len(L) // 2).max(), abs(cols - len(L) // 2).max())
    mid = len(L) // 2
    return ker[mid - r:mid + r + 1, mid - r:mid + r + 1]


def _defocus_blur(x, c, g):
    from scipy.ndimage import correlate

    ker = _disk_kernel(*c)
    # OpenCV's filter2D: correlation with border reflect-101 (scipy's "mirror")
    return np.clip(correlate(x, ker[None, None], mode="mirror"), 0, 1)


def _zoom_matrix(n, z):
    """Rows: scipy.ndimage.zoom(order=1) of a length-``n`` signal by ``z`` (linear, so read off the identity)."""
    from scipy.ndimage import zoom

    return zoom(np.eye(n), (z, 1), order=1)


def _clipped_zoom(x, z):
    """Zoom the centre ``ceil(H / z) x ceil(W / z)`` crop by ``z`` (bilinear) and trim back to ``H x W``.

    Bilinear zooming is separable, so it is applied as ``Zh @ crop @ Zw.T`` for the whole batch at once.
    """
    H, W = x.shape[2:]
    ch, cw = int(np.ceil(H / z)), int(np.ceil(W / z))
    top, left = (H - ch) // 2, (W - cw) // 2
    Zh, Zw = _zoom_matrix(ch, z), _zoom_matrix(cw, z)
    th, tw = (Zh.shape[0] - H) // 2, (Zw.shape[0] - W) // 2
    Zh, Zw = Zh[th:th + H], Zw[tw:tw + W]
    return Zh @ x[:, :, top:top + ch, left:left + cw] @ Zw.T


def _zoom_blur(x, c, g):
    factors = np.arange(1, c, 0.01)
    out = np.zeros_like(x)
    for z in factors:
        out += _clipped_zoom(x, z)
    return np.clip((x + out) / (len(factors) + 1), 0, 1)


def _plasma_fractal(n, mapsize, wibbledecay, g):
    """Diamond-square height maps in [0, 1], ``n`` of them at once (side ``mapsize``, a power of two)."""
    m = np.zeros((n, mapsize, mapsize))
    step, wibble = mapsize, 100.0

    def wibbled_mean(a):
        return a / 4 + wibble * g.uniform(-wibble, wibble, a.shape)

    while step >= 2:
        half = step // 2
        corners = m[:, 0:mapsize:step, 0:mapsize:step]
        sq = corners + np.roll(corners, -1, axis=1)
        sq = sq + np.roll(sq, -1, axis=2)
        m[:, half:mapsize:step, half:mapsize:step] = wibbled_mean(sq)
        dr = m[:, half:mapsize:step, half:mapsize:step]
        ul = m[:, 0:mapsize:step, 0:mapsize:step]
        lt = dr + np.roll(dr, 1, axis=1) + ul + np.roll(ul, -1, axis=2)
        m[:, 0:mapsize:step, half:mapsize:step] = wibbled_mean(lt)
        tt = dr + np.roll(dr, 1, axis=2) + ul + np.roll(ul, -1, axis=1)
        m[:, half:mapsize:step, 0:mapsize:step] = wibbled_mean(tt)
        step //= 2
        wibble /= wibbledecay
    m -= m.min(axis=(1, 2), keepdims=True)
    top = m.max(axis=(1, 2), keepdims=True)
    return m / np.where(top > 0, top, 1.0)   # a flat map (1 px images) stays 0


def _fog(x, c, g):
    strength, decay = c
    N, _, H, W = x.shape
    size = 1 << (max(H, W) - 1).bit_length()
    fractal = _plasma_fractal(N, size, decay, g)[:, None, :H, :W]
    vmax = x.max(axis=(1, 2, 3), keepdims=True)
    return np.clip((x + strength * fractal) * vmax / (vmax + strength), 0, 1)


def _brightness(x, c, g):
    if x.shape[1] == 1:  # a grey pixel's HSV value is its intensity (saturation 0): add and clip
        return np.clip(x + c, 0, 1)
    from skimage.color import hsv2rgb, rgb2hsv

    hsv = rgb2hsv(x, channel_axis=1)
    hsv[:, 2] = np.clip(hsv[:, 2] + c, 0, 1)
    return np.clip(hsv2rgb(hsv, channel_axis=1), 0, 1)


def _saturate(x, c, g):
    from skimage.color import hsv2rgb, rgb2hsv

    hsv = rgb2hsv(x, channel_axis=1)
    hsv[:, 1] = np.clip(hsv[:, 1] * c[0] + c[1], 0, 1)
    return np.clip(hsv2rgb(hsv, channel_axis=1), 0, 1)


def _contrast(x, c, g):
    means = x.mean(axis=(2, 3), keepdims=True)
    return np.clip((x - means) * c + means, 0, 1)


def _jpeg_compression(x, c, g):
    import io

    from PIL import Image

    u8 = np.round(np.clip(x, 0, 1) * 255).astype(np.uint8)
    out = np.empty(x.shape, dtype=np.float64)
    grey = x.shape[1] == 1
    for i in _loop(x.shape[0], "jpeg_compression"):
        im = Image.fromarray(u8[i, 0] if grey else u8[i].transpose(1, 2, 0), mode="L" if grey else "RGB")
        buf = io.BytesIO()
        im.save(buf, format="JPEG", quality=int(c))
        buf.seek(0)
        with Image.open(buf) as dec:
            arr = np.asarray(dec.convert("L" if grey else "RGB"), dtype=np.float64) / 255.0
        out[i] = arr[None] if grey else arr.transpose(2, 0, 1)
    return out


def _pil_box_matrix(src, dst):
    """The linear operator (dst x src) of Pillow's BOX resampling of a 1-D signal, read off Pillow itself."""
    from PIL import Image

    eye = Image.fromarray(np.eye(src, dtype=np.float32), mode="F")
    return np.asarray(eye.resize((dst, src), Image.BOX), dtype=np.float64).T


def _pixelate(x, c, g):
    H, W = x.shape[2:]
    h, w = max(1, int(H * c)), max(1, int(W * c))
    Mh = _pil_box_matrix(h, H) @ _pil_box_matrix(H, h)
    Mw = _pil_box_matrix(w, W) @ _pil_box_matrix(W, w)
    return np.clip(Mh @ x @ Mw.T, 0, 1)


def _elastic_transform(x, c, g):
    from scipy.ndimage import gaussian_filter, map_coordinates

    N, C, H, W = x.shape
    side = min(H, W)
    alpha, sigma, jitter = c[0] * side, c[1] * side, c[2] * side
    out = np.empty_like(x)
    rows, cols = np.meshgrid(np.arange(H, dtype=np.float64), np.arange(W, dtype=np.float64), indexing="ij")
    cx, cy, s = W // 2, H // 2, max(1, side // 3)   # three non-collinear points
    pts1 = np.array([[cx + s, cy + s], [cx + s, cy - s], [cx - s, cy - s]], dtype=np.float64)  # (x, y)
    for i in _loop(N, "elastic_transform"):
        # random affine map fixed by three jittered points (OpenCV getAffineTransform + warpAffine, inverse map)
        pts2 = pts1 + g.uniform(-jitter, jitter, size=pts1.shape)
        A = np.linalg.solve(np.c_[pts1, np.ones(3)], pts2).T           # dst = A @ [x, y, 1]
        inv = np.linalg.inv(np.vstack([A, [0, 0, 1]]))
        xs = inv[0, 0] * cols + inv[0, 1] * rows + inv[0, 2]
        ys = inv[1, 0] * cols + inv[1, 1] * rows + inv[1, 2]
        warped = np.stack([map_coordinates(x[i, k], [ys, xs], order=1, mode="mirror") for k in range(C)])
        # smooth random displacement field
        dx = gaussian_filter(g.uniform(-1, 1, size=(H, W)), sigma, mode="reflect", truncate=3) * alpha
        dy = gaussian_filter(g.uniform(-1, 1, size=(H, W)), sigma, mode="reflect", truncate=3) * alpha
        out[i] = np.stack([map_coordinates(warped[k], [rows + dy, cols + dx], order=1, mode="reflect")
                           for k in range(C)])
    return np.clip(out, 0, 1)


_ENGINE = {
    "gaussian_noise": _gaussian_noise, "shot_noise": _shot_noise, "impulse_noise": _impulse_noise,
    "speckle_noise": _speckle_noise, "gaussian_blur": _gaussian_blur, "defocus_blur": _defocus_blur,
    "glass_blur": _glass_blur, "zoom_blur": _zoom_blur, "fog": _fog, "brightness": _brightness,
    "contrast": _contrast, "saturate": _saturate, "jpeg_compression": _jpeg_compression, "pixelate": _pixelate,
    "elastic_transform": _elastic_transform,
}


# ---------------------------------------------------------------------------- imagecorruptions engine

def _imagecorruptions():
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its pkg_resources deprecation warning
            import imagecorruptions
    except ImportError as exc:
        raise ImportError("ImageNet-C corruptions of images of 32 px or more need the package 'imagecorruptions' "
                          f"(and setuptools<81 for its pkg_resources): {_VISION_INSTALL} "
                          "(or pass backend='cifar-c')") from exc
    return imagecorruptions


def _run_imagecorruptions(x, name, severity, g):
    ic = _imagecorruptions()
    N, C = x.shape[:2]
    seeds = g.integers(0, 2 ** 32, size=N, dtype=np.uint64)
    u8 = np.round(x * 255).astype(np.uint8)
    out = np.empty(x.shape, dtype=np.float64)
    luma = np.array([0.299, 0.587, 0.114])
    state = np.random.get_state()
    try:
        for i in _loop(N, name):
            np.random.seed(int(seeds[i]))   # imagecorruptions draws from numpy's global random state
            img = u8[i, 0] if C == 1 else u8[i].transpose(1, 2, 0)
            res = np.asarray(ic.corrupt(img, severity=severity, corruption_name=name), dtype=np.float64) / 255.0
            if res.ndim == 2:
                res = res[:, :, None]
            if C == 1:   # it works on RGB: back to grey with ITU-R 601 luma (equal channels stay exact)
                res = res @ luma if res.shape[2] == 3 else res[:, :, 0]
                out[i, 0] = res
            else:
                out[i] = res.transpose(2, 0, 1)
    finally:
        np.random.set_state(state)
    return np.clip(out, 0, 1)


# ------------------------------------------------------------------------------------------ public

def _check_images(images):
    from iclr26sci.nn._data import ImageSet

    if isinstance(images, ImageSet):
        return images.images, images
    if not isinstance(images, np.ndarray):
        try:
            import torch

            if torch.is_tensor(images):
                raise InputError("images", "is a torch tensor", "a numpy array (n, channels, H, W) or an ImageSet "
                                 "(call .cpu().numpy() first)")
        except ImportError:  # pragma: no cover
            pass
        raise InputError("images", f"got {type(images).__name__}", "a numpy array (n, channels, H, W) or an ImageSet")
    if images.ndim != 4:
        raise InputError("images", f"has shape {images.shape}", "a 4-D batch (n, channels, height, width); "
                         "add a leading axis for one image")
    n, C, H, W = images.shape
    if n == 0:
        raise InputError("images", "is empty", "at least one image")
    if C not in (1, 3):
        raise InputError("images", f"has {C} channels (shape {images.shape})", "1 (grey) or 3 (RGB) channels first")
    if not np.issubdtype(images.dtype, np.floating):
        raise InputError("images", f"has dtype {images.dtype}", "floats in [0, 1] (divide uint8 pixels by 255)")
    if not np.all(np.isfinite(images)):
        raise InputError("images", "contains NaN or infinite values", "finite intensities in [0, 1]")
    if images.min() < 0 or images.max() > 1:
        raise InputError("images", f"has values in [{images.min():.3g}, {images.max():.3g}]", "intensities in [0, 1]")
    return images, None


def corrupt_images(images, corruption: str, severity: int, rng=None, *, backend: str = "auto"):
    """Apply one common corruption at one severity to a batch of images.

    Each corruption is a random or deterministic map of the clean image ``x`` (floats in [0, 1]) whose
    strength constant ``c`` grows with the severity ``s`` in 1..5, e.g.

    - ``gaussian_noise``: ``clip(x + N(0, c^2))``; ``shot_noise``: ``clip(Poisson(c x) / c)``;
      ``impulse_noise``: a fraction ``c`` of values set to 0 or 1; ``speckle_noise``: ``clip(x + x N(0, c^2))``;
    - ``gaussian_blur``: Gaussian filter of std ``c`` px; ``defocus_blur``: an anti-aliased disk kernel;
      ``glass_blur``: blur, local pixel swaps, blur; ``zoom_blur``: the mean of centre zooms 1, 1.01, ..., ``c``;
    - ``contrast``: ``clip((x - mean) c + mean)``; ``brightness``: HSV value ``+ c``; ``saturate``: HSV
      saturation ``a S + b``; ``jpeg_compression``: JPEG at quality ``c``; ``pixelate``: box resize to
      ``c`` times the size and back; ``fog``: ``clip((x + c diamond_square) max(x) / (max(x) + c))``;
      ``elastic_transform``: a random affine warp plus a smoothed random displacement field.

    The constants are those of CIFAR-10-C (:data:`CIFAR_C_CONSTANTS`) or of ImageNet-C (``imagecorruptions``),
    see ``backend``.

    Parameters
    ----------
    images : ndarray of shape (n, channels, H, W), or ImageSet
        Clean images, channels first (1 = grey or 3 = RGB), floats in [0, 1]. An ``ImageSet`` gives an
        ``ImageSet`` back with the same labels.
    corruption : str
        One of :data:`CORRUPTIONS` (``"cifar-c"`` implements :data:`CIFAR_C_CORRUPTIONS`).
    severity : int in 1..5
        Strength of the corruption (1 mildest).
    rng : seed or numpy Generator, optional
        Random source (noise, swaps, fog, warps, and the per-image seeds of ``imagecorruptions``); the same
        seed gives the same corrupted batch.
    backend : {"auto", "cifar-c", "imagenet-c"}
        Which constants and engine: ``"cifar-c"`` (this module's numpy engine, any size), ``"imagenet-c"``
        (``imagecorruptions``, images of at least 32 px), ``"auto"``: ``"cifar-c"`` below 32 px, else
        ``"imagenet-c"``.

    Returns
    -------
    ndarray (float32, same shape, values in [0, 1]) or ImageSet
        The corrupted images (an ``ImageSet`` named ``"<name>/<corruption>-<severity>"`` for an ``ImageSet``).

    References
    ----------
    D. Hendrycks and T. Dietterich, "Benchmarking neural network robustness to common corruptions and
    perturbations", ICLR 2019. M. Michaelis et al., "Benchmarking robustness in object detection:
    autonomous driving when winter is coming", arXiv:1907.07484, 2019 (the ``imagecorruptions`` package).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.full((2, 1, 8, 8), 0.5, dtype=np.float32)
    >>> y = corrupt_images(x, "gaussian_noise", 5, rng=0)
    >>> y.shape, y.dtype, bool(0 <= y.min() and y.max() <= 1)
    ((2, 1, 8, 8), dtype('float32'), True)
    >>> round(float(np.std(y - x)), 2)   # severity 5: noise std 0.10
    0.1
    >>> float(corrupt_images(x, "contrast", 3).max())   # constant images have no contrast to lose
    0.5
    """
    x, imageset = _check_images(images)
    corruption = check_option(corruption, "corruption", CORRUPTIONS)
    if isinstance(severity, (bool, np.bool_)) or not isinstance(severity, (int, np.integer)) \
            or not 1 <= int(severity) <= 5:
        raise InputError("severity", f"got {severity!r}", "an integer in 1..5")
    severity = int(severity)
    backend = check_option(backend, "backend", ("auto", "cifar-c", "imagenet-c"))
    n, C, H, W = x.shape
    if backend == "auto":
        backend = "cifar-c" if min(H, W) < 32 else "imagenet-c"
    if backend == "imagenet-c" and min(H, W) < 32:
        raise InputError("backend", f"is 'imagenet-c' for {H}x{W} images",
                         "images of at least 32x32 px for imagecorruptions, or backend='cifar-c'")
    if backend == "cifar-c" and corruption not in CIFAR_C_CORRUPTIONS:
        raise InputError("corruption", f"{corruption!r} is not implemented for the 'cifar-c' engine "
                         f"({'images under 32 px' if min(H, W) < 32 else 'requested'})",
                         "one of " + ", ".join(CIFAR_C_CORRUPTIONS) + " (or images of >= 32 px with backend 'imagenet-c')")
    if corruption == "saturate" and C != 3:
        raise InputError("corruption", "'saturate' changes colour saturation but the images are grey",
                         "RGB images (3 channels) for 'saturate'")
    check_memory(8.0 * x.size * 4, "images", f"corrupting {n} images of {C}x{H}x{W} in float64")
    g = as_generator(rng)
    xf = x.astype(np.float64)
    if backend == "imagenet-c" and corruption not in _NUMPY_IN_IMAGENET_C:
        out = _run_imagecorruptions(xf, corruption, severity, g)
    else:
        table = _IMAGENET_C_CONSTANTS if backend == "imagenet-c" else CIFAR_C_CONSTANTS
        out = _ENGINE[corruption](xf.copy(), table[corruption][severity - 1], g)
    out = np.clip(out, 0, 1).astype(np.float32)
    if imageset is not None:
        from iclr26sci.nn._data import ImageSet

        return ImageSet(out, imageset.labels, imageset.classes, f"{imageset.name}/{corruption}-{severity}")
    return out
