"""Classical intra-modal flow peers (OpenCV Farneback and DIS) under the DCFlow protocol."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError

__all__ = ["classical_flow"]

_METHODS = ("farneback", "dis", "zero")


def _grey_u8(x, name):
    from ._validate import check_image

    # [0, 1] is checked: an 8-bit image passed as is would be clipped to white and give ~0 flow
    a = check_image(x, name, channels=(None, 3), min_side=12)
    if a.ndim == 3:
        a = a @ np.array([0.299, 0.587, 0.114])
    return np.clip(a * 255 + 0.5, 0, 255).astype(np.uint8)


def classical_flow(image_a, image_b, method="dis"):
    """OpenCV flow on ``image_b``'s grid pointing into ``image_a`` (both read as grey), or zero flow.

    Parameters
    ----------
    image_a, image_b : arrays (H, W) or (H, W, 3) in [0, 1], same size, at least 12 x 12
        Values outside [0, 1] (e.g. 8-bit images) are refused: divide by 255 first.
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
    if not isinstance(method, str) or method not in _METHODS:
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
