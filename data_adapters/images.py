"""scikit-image's bundled natural photographs as grey-scale arrays and patches."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, as_generator, check_positive_int

from ._base import adapter

__all__ = ["load_natural_images", "load_natural_image_patches", "NATURAL_IMAGE_NAMES"]

#: photographs of natural or everyday scenes bundled with scikit-image (no synthetic test patterns)
NATURAL_IMAGE_NAMES = ("astronaut", "camera", "coffee", "chelsea", "grass", "gravel", "brick", "moon",
                       "rocket", "motorcycle_left", "horse", "coins", "hubble_deep_field", "retina")


@adapter(returns="list[np.ndarray]", source="skimage.data",
         description="natural grey-scale photographs in [0, 1] bundled with scikit-image")
def load_natural_images(names=None) -> list[np.ndarray]:
    """Grey-scale float images in [0, 1] from scikit-image's bundled data.

    Parameters
    ----------
    names : sequence of str, optional
        Which photographs: a non-empty subset of :data:`NATURAL_IMAGE_NAMES`
        (default: all of them that ship with the installed scikit-image).

    Returns
    -------
    list of ndarray
        One 2-D float64 array per image, values in [0, 1].

    Examples
    --------
    >>> [im.shape for im in load_natural_images(["camera", "coins"])]
    [(512, 512), (303, 384)]
    """
    import skimage.data as skd
    from skimage.color import rgb2gray, rgba2rgb
    from skimage.util import img_as_float

    if names is not None and (isinstance(names, (str, bytes)) or not hasattr(names, "__iter__")):
        raise InputError("names", f"got {names!r}", f"a list of names from {NATURAL_IMAGE_NAMES}")
    chosen = list(NATURAL_IMAGE_NAMES if names is None else names)
    if not chosen:
        raise InputError("names", "is empty", "at least one image name (or None for all)")
    unknown = [n for n in chosen if n not in NATURAL_IMAGE_NAMES]
    if unknown:
        raise InputError("names", f"contains unknown images {unknown}", f"names from {NATURAL_IMAGE_NAMES}")
    out = []
    for n in chosen:
        fetch = getattr(skd, n, None)
        if fetch is None:
            continue
        try:
            img = fetch()
        except Exception:  # an image that needs a download in this skimage version is skipped
            continue
        if img.ndim == 3 and img.shape[-1] == 4:
            img = rgba2rgb(img)
        if img.ndim == 3:
            img = rgb2gray(img)
        img = img_as_float(img).astype(np.float64)
        if img.ndim == 2 and min(img.shape) >= 32:
            out.append(img)
    if not out:
        raise FileNotFoundError("none of the requested scikit-image photographs is bundled with this install")
    return out


@adapter(returns="np.ndarray (n, size*size)", source="skimage.data",
         description="random mean-removed square patches from the natural photographs")
def load_natural_image_patches(size: int = 16, n: int = 50_000, rng=0, *, whiten: bool = False,
                               remove_mean: bool = True, names=None) -> np.ndarray:
    """Random square patches (flattened; by default each with its own mean removed).

    Patches are drawn uniformly over images (each image weighted by its
    number of valid positions) with a vectorised gather. Every image is
    first standardised to zero mean and unit variance so that no photograph
    dominates the second-order statistics.

    Parameters
    ----------
    size : int >= 2
        Patch side in pixels.
    n : int >= 1
        Number of patches (more than ``size**2`` when whitening, so that the
        patch covariance is estimable).
    rng : seed or numpy Generator, default 0
        Random source for the patch positions (SPEC 7).
    whiten : bool, default False
        If True, ZCA-whiten the patches (unit covariance on the non-degenerate directions).
    remove_mean : bool, default True
        Subtract each patch's own mean (its DC component). Keep the DC
        (``False``) when a model's filters must be able to respond to mean
        luminance, e.g. centre-surround receptive fields of efficient coding.
    names : sequence of str, optional
        Photographs to cut patches from (see :func:`load_natural_images`).

    Returns
    -------
    ndarray of shape (n, size * size)

    Examples
    --------
    >>> P = load_natural_image_patches(size=8, n=100, rng=0, names=["camera"])
    >>> P.shape, bool(abs(P.mean(axis=1)).max() < 1e-12)
    ((100, 64), True)
    """
    from iclr26sci.core import check_bool, check_memory

    size = check_positive_int(size, "size", minimum=2)
    n = check_positive_int(n, "n")
    whiten = check_bool(whiten, "whiten")
    remove_mean = check_bool(remove_mean, "remove_mean")
    if whiten and n <= size * size:
        raise InputError("n", f"got {n} patches to whiten {size * size}-pixel patches",
                         f"more patches than pixels per patch (n > {size * size}) so the covariance has full rank")
    check_memory(8.0 * n * size * size, "n", f"{n} patches of {size}x{size} pixels")
    g = as_generator(rng)
    imgs = [(im - im.mean()) / (im.std() + 1e-12) for im in load_natural_images(names)]
    imgs = [im for im in imgs if min(im.shape) > size]
    if not imgs:
        raise InputError("size", f"got {size}", "a patch size smaller than the images")
    counts = np.array([(im.shape[0] - size + 1) * (im.shape[1] - size + 1) for im in imgs], dtype=float)
    which = g.choice(len(imgs), size=n, p=counts / counts.sum())
    patches = np.empty((n, size * size))
    off = np.arange(size)
    for k, im in enumerate(imgs):
        idx = np.flatnonzero(which == k)
        if idx.size == 0:
            continue
        r = g.integers(0, im.shape[0] - size + 1, size=idx.size)
        c = g.integers(0, im.shape[1] - size + 1, size=idx.size)
        rows = (r[:, None] + off[None, :])[:, :, None]
        cols = (c[:, None] + off[None, :])[:, None, :]
        patches[idx] = im[rows, cols].reshape(idx.size, -1)
    if remove_mean:
        patches -= patches.mean(axis=1, keepdims=True)
    if whiten:
        cov = np.cov(patches, rowvar=False)
        vals, vecs = np.linalg.eigh(cov)
        W = vecs @ np.diag(1.0 / np.sqrt(np.maximum(vals, 1e-8 * vals.max()))) @ vecs.T
        patches = patches @ W
    return patches
