"""Classical intra-modal flow peers (OpenCV Farneback and DIS) under the DCFlow protocol."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError

__all__ = ["classical_flow"]

_METHODS = ("farneback", "dis", "zero")


def _grey_u8(x, name):
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 3 and a.shape[-1] == 3:
        a = a @ np.array([0.299, 0.587, 0.114])
    if a.ndim != 2 or not np.isfinite(a).all():
        raise InputError(name, f"has shape {a.shape}", "an (H, W) or (H, W, 3) finite image in [0, 1]")
    return np.clip(a * 255 + 0.5, 0, 255).astype(np.uint8)


def classical_flow(image_a, image_b, method="dis"):
    """OpenCV flow on ``image_b``'s grid pointing into ``image_a`` (both read as grey), or zero flow.

    Parameters
    ----------
    image_a, image_b : arrays (H, W) or (H, W, 3) in [0, 1], same size
    method : {"farneback", "dis", "zero"}
        ``cv2.calcOpticalFlowFarneback`` (pyramid 0.5, 3 levels, window 15), ``cv2.DISOpticalFlow``
        (preset MEDIUM), or the identity (zero flow).

    Returns
    -------
    ndarray (H, W, 2), float32

    Examples
    --------
    >>> a = np.random.default_rng(0).random((32, 32))
    >>> classical_flow(a, a, "farneback").shape
    (32, 32, 2)
    """
    if method not in _METHODS:
        raise InputError("method", f"got {method!r}", f"one of {_METHODS}")
    a, b = _grey_u8(image_a, "image_a"), _grey_u8(image_b, "image_b")
    if a.shape != b.shape:
        raise InputError("image_b", f"is {b.shape} but image_a is {a.shape}", "images of the same size")
    if method == "zero":
        return np.zeros((*a.shape, 2), np.float32)
    import cv2

    # OpenCV's flow(prev, next) lives on prev's grid: prev(x) ~ next(x + f); prev = B, next = A
    if method == "farneback":
        f = cv2.calcOpticalFlowFarneback(b, a, None, 0.5, 3, 15, 3, 5, 1.2, 0)
    else:
        f = cv2.DISOpticalFlow.create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM).calc(b, a, None)
    return np.asarray(f, np.float32)
