"""Argument validators of the scene3d methods: label arrays and intrinsics here; devices and seeds are the
shared checks of :mod:`iclr26sci.core._argchecks` (a device is always named: ``allow_none=False``).

Each names the argument, says what was wrong and what is expected, and raises before any work.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from iclr26sci.core import InputError
from iclr26sci.core._argchecks import check_device as _check_device
from iclr26sci.core._argchecks import check_rng

__all__ = ["check_device", "check_rng", "check_labels", "check_intrinsics"]

check_device = partial(_check_device, allow_none=False)


def check_labels(x, name, n_classes, *, allow_empty=False):
    """An integer label array with values in [0, n_classes] (0 = free space / background)."""
    try:
        a = np.asarray(x)
    except (TypeError, ValueError):
        raise InputError(name, f"got {type(x).__name__}", "an array of integer labels") from None
    if a.dtype == bool or a.dtype.kind not in "iuf":
        raise InputError(name, f"has dtype {a.dtype}", f"integer labels in [0, {n_classes}]")
    if a.size == 0 and not allow_empty:
        raise InputError(name, "is empty", "at least one label")
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)):
            raise InputError(name, "contains NaN or infinite labels", f"integer labels in [0, {n_classes}]")
        if np.any(a != np.round(a)):
            raise InputError(name, "has non-integer labels", f"integer labels in [0, {n_classes}]")
    if a.size and (a.min() < 0 or a.max() > n_classes):
        raise InputError(name, f"has labels in [{a.min():g}, {a.max():g}]",
                         f"labels in [0, {n_classes}] (0 free, 1..{n_classes} the classes)")
    return a.astype(np.int64)


def check_intrinsics(K, name):
    """Pinhole intrinsics (..., 3, 3): finite, fx, fy > 0, no row-2 skew, last row (0, 0, 1)."""
    try:
        K = np.asarray(K, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, f"got {type(K).__name__}", "a numeric 3x3 pinhole matrix") from None
    if K.ndim < 2 or K.shape[-2:] != (3, 3) or not np.all(np.isfinite(K)):
        raise InputError(name, f"has shape {K.shape} or non-finite entries", "finite 3x3 pinhole matrices")
    if np.any(K[..., 0, 0] <= 0) or np.any(K[..., 1, 1] <= 0):
        raise InputError(name, "has a focal length <= 0", "fx, fy > 0")
    if np.abs(K[..., 2, :] - [0.0, 0.0, 1.0]).max() > 1e-9 or np.abs(K[..., 1, 0]).max() > 1e-9:
        raise InputError(name, "is not an upper-triangular pinhole matrix with last row (0, 0, 1)",
                         "[[fx, s, cx], [0, fy, cy], [0, 0, 1]]")
    return K
