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

import numpy as np

from iclr26sci.adaptation import _corrupt as _engine
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

#: CIFAR-10-C constants by severity 1..5, as in Hendrycks' ``make_cifar_c.py`` (noise std, photons per unit
#: intensity, salt-and-pepper fraction, blur sigmas, disk radius and alias blur, fog strength and fractal decay,
#: HSV shifts, JPEG quality, box factor, elastic alpha/sigma/affine jitter). One engine implements them for the
#: whole project, :mod:`iclr26sci.adaptation`'s (the method layer may not import this package; this adapter
#: adds the argument checks, ``ImageSet`` handling and the ``"auto"`` backend on top of it).
CIFAR_C_CONSTANTS = _engine.CIFAR_C


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
    out = _engine.corrupt(x, corruption, severity, g, backend=backend)
    if imageset is not None:
        from iclr26sci.nn._data import ImageSet

        return ImageSet(out, imageset.labels, imageset.classes, f"{imageset.name}/{corruption}-{severity}")
    return out
