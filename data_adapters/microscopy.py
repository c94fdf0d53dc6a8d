"""Real microscopy images that ship inside installed packages (never downloaded).

- scikit-image's bundled ``cell`` (``skimage.data.cell()``): a 660 x 550 phase-contrast-like grey image of a cell
  culture (BSD-3, no pooch download needed);
- stardist 0.9.2's example data (BSD-3), read with ``tifffile`` (TensorFlow is not needed):
  ``img2d.tif``/``mask2d.tif`` (a 512 x 512 16-bit fluorescence nuclei image from the Data Science Bowl 2018 with
  its instance-label mask, 125 nuclei), ``img3d.tif``/``mask3d.tif`` (a 31 x 61 x 57 nuclei stack with labels) and
  ``histo.jpg`` (an H&E-stained tissue patch, 300 x 500 RGB, no mask).

The microsim method uses them as textures for rendered simulations, to test spot detection against real
nuclei masks, and to measure the physics judge's false-alarm rate on real still images.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from iclr26sci.core import InputError

from ._base import adapter, check_choice, package_file

__all__ = ["MicroscopyImage", "load_cell_image", "load_stardist_nuclei", "STARDIST_IMAGES"]

_MICRO_INSTALL = 'pip install "iclr26sci[micro]"'
#: stardist example names -> (image file, mask file or None)
STARDIST_IMAGES = {"2d": ("img2d.tif", "mask2d.tif"), "3d": ("img3d.tif", "mask3d.tif"), "he": ("histo.jpg", None)}


@dataclass(repr=False)
class MicroscopyImage:
    """A real microscopy image: ``image`` float64 scaled to [0, 1], optional integer instance ``mask``
    (0 = background, k > 0 = object k), its name, source package and licence.

    Examples
    --------
    >>> im = load_cell_image()
    >>> im.mask is None, float(im.image.max())
    (True, 1.0)
    """

    image: np.ndarray
    mask: object
    name: str
    source: str
    licence: str

    def __post_init__(self):
        try:
            img = np.asarray(self.image, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("image", f"got {type(self.image).__name__}", "a numeric 2-D or 3-D array") from None
        if img.ndim not in (2, 3) or img.size == 0:
            raise InputError("image", f"has shape {img.shape}", "a non-empty 2-D (grey) or 3-D (RGB / stack) array")
        if not np.all(np.isfinite(img)) or img.min() < 0 or img.max() > 1:
            raise InputError("image", "has NaN, infinite or out-of-range values", "intensities scaled to [0, 1]")
        if self.mask is not None:
            m = np.asarray(self.mask)
            if m.dtype.kind not in "iu" or m.shape != img.shape[:m.ndim] or m.ndim < 2 or (m.size and m.min() < 0):
                raise InputError("mask", f"has shape {m.shape} and dtype {m.dtype}",
                                 "non-negative integer instance labels of the image's shape (or None)")
        for name in ("name", "source", "licence"):
            if not isinstance(getattr(self, name), str):
                raise InputError(name, f"got {type(getattr(self, name)).__name__}", "a string")

    @property
    def n_objects(self) -> int:
        """Number of labelled objects in the mask (0 without a mask)."""
        return 0 if self.mask is None else int(len(np.unique(self.mask)) - (1 if np.any(self.mask == 0) else 0))

    def __repr__(self):
        return f"MicroscopyImage({self.name!r}, shape={self.image.shape}, objects={self.n_objects})"

    def summary(self) -> str:
        """Name, shape, objects, source and licence."""
        return f"{self!r}\n  source: {self.source} ({self.licence})"

    def to_dict(self) -> dict:
        """Metadata (not the pixels)."""
        return {"name": self.name, "shape": list(self.image.shape), "n_objects": self.n_objects,
                "source": self.source, "licence": self.licence}


def _scale(a):
    a = np.asarray(a, float)
    lo, hi = float(a.min()), float(a.max())
    return (a - lo) / (hi - lo) if hi > lo else np.zeros_like(a)


@adapter(returns="MicroscopyImage (660, 550), no mask", source="scikit-image: skimage/data/cell.png (bundled)",
         description="scikit-image's bundled cell-culture microscopy image")
def load_cell_image() -> MicroscopyImage:
    """scikit-image's bundled ``cell`` image, grey, scaled to [0, 1].

    Returns
    -------
    MicroscopyImage

    Examples
    --------
    >>> load_cell_image().image.shape
    (660, 550)
    """
    try:
        import skimage.data
    except ImportError as exc:  # pragma: no cover - scikit-image is a core dependency
        raise ImportError(f"load_cell_image needs scikit-image ({_MICRO_INSTALL})") from exc
    return MicroscopyImage(_scale(skimage.data.cell()), None, "cell", "scikit-image (skimage.data.cell)", "BSD-3-Clause")


@adapter(returns="MicroscopyImage: 2d (512, 512) + mask, 3d (31, 61, 57) + mask, he (300, 500, 3)",
         source="stardist 0.9.2: stardist/data/images/*.tif, histo.jpg",
         description="real nuclei images with instance masks (DSB 2018 2-D, a 3-D stack) and an H&E patch")
def load_stardist_nuclei(kind: str = "2d") -> MicroscopyImage:
    """stardist's bundled nuclei example: image scaled to [0, 1] and its instance-label mask.

    Parameters
    ----------
    kind : {"2d", "3d", "he"}
        ``"2d"``: Data Science Bowl 2018 fluorescence nuclei (512 x 512, 125 labelled nuclei); ``"3d"``: a nuclei
        stack (31, 61, 57) with labels; ``"he"``: an H&E RGB patch (no mask).

    Returns
    -------
    MicroscopyImage

    Examples
    --------
    >>> im = load_stardist_nuclei("2d")
    >>> im.image.shape, im.n_objects
    ((512, 512), 125)
    """
    kind = check_choice(kind, "kind", list(STARDIST_IMAGES))
    img_name, mask_name = STARDIST_IMAGES[kind]
    try:
        path = package_file("stardist", "data", "images", img_name)
    except ImportError as exc:
        raise ImportError(f"load_stardist_nuclei needs stardist 0.9.2 ({_MICRO_INSTALL})") from exc
    if img_name.endswith(".jpg"):
        from PIL import Image

        img = np.asarray(Image.open(path).convert("RGB"))
        mask = None
    else:
        try:
            import tifffile
        except ImportError as exc:
            raise ImportError(f"reading stardist's TIFF files needs tifffile ({_MICRO_INSTALL})") from exc
        img = tifffile.imread(path)
        mask = tifffile.imread(os.path.join(os.path.dirname(path), mask_name)).astype(np.int64)
        if mask.shape != img.shape:  # pragma: no cover - shipped files agree
            raise InputError("kind", f"{kind!r}: mask shape {mask.shape} differs from image {img.shape}",
                             "a consistent stardist installation")
    return MicroscopyImage(_scale(img), mask, f"stardist-{kind}", f"stardist 0.9.2 ({img_name})", "BSD-3-Clause")
