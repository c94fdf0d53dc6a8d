"""Shared validators of the generative sub-package: class labels against a model's classes, sample batches,
and model calls whose size mismatches become an ``InputError`` naming the argument."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError


def check_labels(labels, name, *, n=None, n_classes=None, allow_null=False):
    """Integer class labels (1-D), optionally ``n`` of them, each in ``[0, n_classes)`` (``<= n_classes`` with the
    null label of classifier-free guidance when ``allow_null``); returns an int64 numpy array."""
    import torch

    if torch.is_tensor(labels):
        labels = labels.detach().cpu().numpy()
    if isinstance(labels, (str, bytes)):
        raise InputError(name, f"got the string {labels!r}", "a sequence of integer class labels")
    try:
        arr = np.asarray(labels)
    except (TypeError, ValueError):
        raise InputError(name, f"got {type(labels).__name__}", "a sequence of integer class labels") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise InputError(name, f"has shape {arr.shape}", "a 1-D sequence of integer class labels")
    if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.number)
                     or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))):
        raise InputError(name, f"has non-integer entries ({arr[:3].tolist()} ...)", "integer class labels")
    arr = arr.astype(np.int64)
    if n is not None and arr.size != n:
        raise InputError(name, f"has {arr.size} labels", f"{n} (one per sample)")
    if arr.size and arr.min() < 0:
        raise InputError(name, f"has a negative label ({int(arr.min())})", "labels >= 0")
    if n_classes is not None and arr.size:
        top = n_classes if allow_null else n_classes - 1
        if arr.max() > top:
            raise InputError(name, f"has label {int(arr.max())} but the model has {n_classes} classes",
                             f"labels in [0, {top}]")
    return arr


def check_samples(x, name="x", *, dim=None):
    """A batch of samples as a floating torch tensor with at least one row; ``dim`` checks the flattened size."""
    import torch

    if not torch.is_tensor(x):
        try:
            x = torch.as_tensor(np.asarray(x, dtype=np.float64))
        except (TypeError, ValueError):
            raise InputError(name, f"got {type(x).__name__}", "a numeric batch of samples") from None
    if x.ndim < 1 or x.shape[0] == 0:
        raise InputError(name, f"has shape {tuple(x.shape)}", "a non-empty batch (n, ...) of samples")
    if not (x.is_floating_point() or x.dtype in (torch.int32, torch.int64, torch.uint8)):
        raise InputError(name, f"has dtype {x.dtype}", "real-valued samples")
    if not bool(torch.isfinite(x.detach()).all()):
        raise InputError(name, "contains NaN or infinite values", "finite samples")
    if dim is not None:
        d = int(np.prod(x.shape[1:])) if x.ndim > 1 else 1
        if d != dim:
            raise InputError(name, f"has {d} features per sample (shape {tuple(x.shape)})", f"{dim} features per sample")
    return x


def call_model(fn, x, name="x", what="the model"):
    """``fn(x)``; a size or dtype mismatch raised inside torch becomes an ``InputError`` naming ``name``."""
    try:
        return fn(x)
    except (RuntimeError, IndexError) as exc:
        msg = str(exc).splitlines()[0][:200]
        raise InputError(name, f"does not fit {what} (torch: {msg})", f"inputs of the size {what} was built for") \
            from None


def check_flags(x, name, shape):
    """A boolean array of ``shape`` (0/1 numbers accepted; 2.0, NaN or -1 refused)."""
    try:
        a = np.asarray(x)
    except (TypeError, ValueError):
        raise InputError(name, f"got {type(x).__name__}", f"a boolean array of shape {shape}") from None
    if a.shape != tuple(shape):
        raise InputError(name, f"has shape {a.shape}", f"{shape} booleans")
    if a.dtype != bool:
        if not np.issubdtype(a.dtype, np.number) or not np.all((a == 0) | (a == 1)):
            raise InputError(name, "has entries other than True/False (or 0/1)", "a boolean array")
    return a.astype(bool)


def seed_from_rng(rng, name="rng", *, none=None):
    """An int seed from any SPEC-7 ``rng``: a non-negative int as is; a Generator, BitGenerator or SeedSequence
    gives one draw (so the caller's stream decides it); ``None`` gives ``none`` (a fresh seed when ``none`` is
    ``"fresh"``). Anything else raises ``InputError`` naming ``name``."""
    from numbers import Integral

    from iclr26sci.core import as_generator

    if rng is None:
        return int(as_generator(None).integers(2 ** 31 - 1)) if none == "fresh" else none
    if isinstance(rng, (bool, np.bool_)):
        raise InputError(name, f"got {rng!r}", "None, a non-negative int, a SeedSequence or a Generator")
    if isinstance(rng, (Integral, np.integer)):
        if int(rng) < 0:
            raise InputError(name, f"got the negative integer {int(rng)}", "a non-negative integer seed")
        return int(rng)
    if isinstance(rng, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)):
        return int(as_generator(rng).integers(2 ** 31 - 1))
    raise InputError(name, f"got {rng!r} of type {type(rng).__name__}",
                     "None, a non-negative int, a SeedSequence or a Generator")
