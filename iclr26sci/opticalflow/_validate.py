"""Shared argument validators of the opticalflow package (images, tensors, sizes, pairs of numbers).

Every public function of the package runs its arguments through these before any work, so a bad image range,
a NaN, a wrong shape or channel count is refused with an :class:`~iclr26sci.core.InputError` naming the
argument instead of surfacing as a torch or OpenCV error (or, worse, as a plausible-looking flow).
"""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, check_in_range, check_positive_int

#: slack on the [0, 1] image range (resampling and float32 round-off)
RANGE_TOL = 1e-3


def check_image(x, name, *, channels=(None, 3), min_side=1, unit_range=True, fix_unit_range=False):
    """A finite numpy image (H, W) or (H, W, C) as float64.

    ``channels`` lists what the last axis may be: ``None`` allows a 2-D grey image, an int a (H, W, C) image
    with C channels, ``"any"`` any C. ``unit_range`` refuses values outside [0, 1] (with a hint to divide
    by 255 for 8-bit images).
    """
    if isinstance(x, (str, bytes)) or x is None:
        raise InputError(name, f"got {type(x).__name__}", "an image array (H, W) or (H, W, 3)")
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(name, "cannot be read as a numeric array", "an image array (H, W) or (H, W, 3)") from None
    want = " or ".join("(H, W)" if c is None else ("(H, W, C)" if c == "any" else f"(H, W, {c})") for c in channels)
    ok = (a.ndim == 2 and None in channels) or (a.ndim == 3 and (("any" in channels and a.shape[-1] >= 1)
                                                                  or a.shape[-1] in channels))
    if not ok:
        raise InputError(name, f"has shape {a.shape}", f"an image of shape {want}")
    if min(a.shape[:2]) < min_side:
        raise InputError(name, f"is {a.shape[0]}x{a.shape[1]} pixels", f"at least {min_side}x{min_side} pixels")
    if a.size and not np.isfinite(a).all():
        raise InputError(name, f"contains {int((~np.isfinite(a)).sum())} NaN or infinite values", "finite pixels")
    if unit_range:
        check_unit_range(a, name)
    return a


def check_unit_range(a, name):
    """Refuse values outside [0, 1] (beyond :data:`RANGE_TOL`)."""
    if a.size == 0:
        return a
    lo, hi = float(np.min(a)), float(np.max(a))
    if lo < -RANGE_TOL or hi > 1 + RANGE_TOL:
        hint = " (8-bit images: divide by 255)" if hi > 1 + RANGE_TOL and hi <= 255 and lo >= 0 else ""
        raise InputError(name, f"has values in [{lo:.4g}, {hi:.4g}]", f"an image in [0, 1]{hint}")
    return a


def check_tensor(x, name, *, ndim=4, channels=None, finite=True, unit_range=False, min_batch=1, min_side=1):
    """A torch tensor with ``ndim`` dimensions (``(B, C, H, W)`` by default), ``channels`` on axis 1 (int or
    tuple), finite, optionally in [0, 1]."""
    import torch

    if not isinstance(x, torch.Tensor):
        raise InputError(name, f"got {type(x).__name__}", f"a torch tensor with {ndim} dimensions (B, C, H, W)")
    if x.device.type == "meta":
        raise InputError(name, "is on the meta device (it holds no values)", "a tensor with data (cpu or cuda)")
    if x.ndim != ndim:
        raise InputError(name, f"has shape {tuple(x.shape)}", f"a tensor with {ndim} dimensions (B, C, H, W)")
    if not (x.is_floating_point() or x.dtype == torch.bool):
        raise InputError(name, f"has dtype {x.dtype}", "a floating-point tensor")
    if x.shape[0] < min_batch:
        raise InputError(name, f"has batch size {x.shape[0]}", f"at least {min_batch} sample(s)")
    if channels is not None:
        allowed = (channels,) if isinstance(channels, int) else tuple(channels)
        if x.shape[1] not in allowed:
            raise InputError(name, f"has {x.shape[1]} channels (shape {tuple(x.shape)})",
                             f"{' or '.join(map(str, allowed))} channels")
    if ndim >= 2 and min(x.shape[-2:]) < min_side:
        raise InputError(name, f"is {x.shape[-2]}x{x.shape[-1]} pixels", f"at least {min_side}x{min_side} pixels")
    if (finite or unit_range) and x.numel() and x.is_floating_point():
        lo, hi = (float(v) for v in torch.aminmax(x.detach()))       # NaN propagates: one device sync
        if finite and not (np.isfinite(lo) and np.isfinite(hi)):
            raise InputError(name, "contains NaN or infinite values", "finite values")
        if unit_range and (lo < -RANGE_TOL or hi > 1 + RANGE_TOL):
            raise InputError(name, f"has values in [{lo:.4g}, {hi:.4g}]", "images in [0, 1] (8-bit: divide by 255)")
    return x


def check_same_device(x, name, device, other):
    """Refuse a tensor on another device than ``device`` (that of ``other``: a tensor or the network)."""
    if device is not None and x.device != device:
        raise InputError(name, f"is on {x.device} but {other} is on {device}", f"tensors on {device} (use .to({str(device)!r}))")
    return x


def check_int(v, name, lo=1, hi=None):
    """An integer (not a bool or a float) in [lo, hi]."""
    v = check_positive_int(v, name, minimum=lo)
    if hi is not None and v > hi:
        raise InputError(name, f"got {v}", f"an integer in [{lo}, {hi}]")
    return v


def check_nonneg(v, name, *, positive=False, high=None):
    """A finite real number >= 0 (> 0 with ``positive``), at most ``high``."""
    return check_in_range(v, name, 0.0, high, low_open=positive)


def check_interval(v, name, *, positive=False):
    """A pair ``(low, high)`` of finite numbers with ``0 <= low <= high`` (``0 < low`` with ``positive``)."""
    try:
        lo, hi = v
    except (TypeError, ValueError):
        raise InputError(name, f"got {v!r}", "a pair (low, high)") from None
    lo = check_in_range(lo, name, 0.0, None, low_open=positive)
    hi = check_in_range(hi, name, 0.0, None, low_open=positive)
    if lo > hi:
        raise InputError(name, f"got ({lo:g}, {hi:g}), low above high", "a pair (low, high) with low <= high")
    return lo, hi


def check_point(v, name, d=2):
    """A finite point of ``d`` coordinates."""
    try:
        a = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(name, f"got {v!r}", f"{d} finite coordinates") from None
    if a.shape != (d,) or not np.isfinite(a).all():
        raise InputError(name, f"got {v!r}", f"{d} finite coordinates")
    return a


def torch_seed(rng):
    """An integer torch seed from a SPEC-7 ``rng``: a non-negative int is used as is, anything else (None, a
    SeedSequence, a Generator) gives a 63-bit seed drawn from its seed sequence."""
    from iclr26sci.core import seed_sequence

    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        seed_sequence(rng)                         # refuses a negative int
        return int(rng)
    ss = seed_sequence(rng)
    return int(ss.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def init_weights(module, rng):
    """Re-draw ``module``'s weights (``reset_parameters`` of every sub-module) from ``rng`` without touching
    torch's global random state; ``rng=None`` leaves the weights drawn from the global state at construction."""
    if rng is None:
        return module
    import torch

    seed = torch_seed(rng)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        for m in module.modules():
            fn = getattr(m, "reset_parameters", None)
            if callable(fn):
                fn()
    return module
