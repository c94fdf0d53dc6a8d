"""Shared argument validators of the scene3d methods (devices, seeds, label arrays, intrinsics).

Each names the argument, says what was wrong and what is expected, and raises before any work.
"""
from __future__ import annotations

from numbers import Integral

import numpy as np

from iclr26sci.core import InputError


def check_device(device, name="device"):
    """The torch device named by ``device``, refused unless torch can allocate on it on this machine."""
    import torch

    if not isinstance(device, (str, torch.device)):
        raise InputError(name, f"got {type(device).__name__}", "a torch device name such as 'cpu' or 'cuda'")
    try:
        dev = torch.device(device)
        torch.empty(0, device=dev)
    except (RuntimeError, ValueError, AssertionError, TypeError) as exc:
        raise InputError(name, f"got {device!r}, which torch cannot use here ({str(exc).splitlines()[0][:80]})",
                         "an available torch device such as 'cpu'") from None
    return dev


def check_rng(rng, name="rng"):
    """Refuse anything but None, a non-negative int, a SeedSequence, a BitGenerator or a Generator (no state used)."""
    if rng is None or isinstance(rng, (np.random.SeedSequence, np.random.BitGenerator, np.random.Generator)):
        return rng
    if isinstance(rng, (Integral, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        if int(rng) < 0:
            raise InputError(name, f"got the negative integer {int(rng)}", "a non-negative integer seed")
        return rng
    raise InputError(name, f"got {rng!r} of type {type(rng).__name__}",
                     "None, a non-negative int, a numpy SeedSequence, BitGenerator or Generator")


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
