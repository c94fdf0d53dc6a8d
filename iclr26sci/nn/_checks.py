"""Shared argument checks of the neural layer: modules, devices, model/input sizes, labels, covariances.

Every check raises :class:`~iclr26sci.core.InputError` naming the argument before torch sees the input, so a
wrong feature count reads "`X` has 5 features but the model's first layer takes 6", not torch's
"mat1 and mat2 shapes cannot be multiplied". :func:`forward_errors` is the backstop for models whose first
layer cannot be read off (any ``nn.Module``): it turns torch's shape errors into the same ``InputError``.
"""
from __future__ import annotations

import contextlib
from numbers import Integral, Real

import numpy as np

from iclr26sci.core import InputError
from iclr26sci.core._argchecks import check_device as _core_check_device

__all__: list = []  # private helpers, shared by nn and the method layers


def check_module(model, name: str = "model"):
    """Refuse anything but a ``torch.nn.Module``."""
    import torch

    if not isinstance(model, torch.nn.Module):
        raise InputError(name, f"got {type(model).__name__}", "a torch.nn.Module")
    return model


def check_device(device, name: str = "device"):
    """The torch device named by ``device`` (None: the CPU), refused when torch cannot use it on this machine."""
    return _core_check_device(device, name, allow_none=True)


def first_layer(model):
    """The module that sees the input first, where that can be read off: the head of nested ``nn.Sequential``."""
    import torch.nn as nn

    m = model
    while isinstance(m, nn.Sequential) and len(m):
        m = m[0]
    return m


def check_model_input(model, x, name: str = "X", *, batched: bool = True) -> None:
    """Refuse an input whose size does not fit ``model``'s first layer (``Linear`` features, ``Conv`` channels).

    Only the layers that the input certainly reaches first are read (the head of nested ``nn.Sequential``);
    for other models nothing is checked here (see :func:`forward_errors`).
    """
    import torch.nn as nn

    m = first_layer(model)
    shape = tuple(x.shape)
    if isinstance(m, nn.Linear):
        lo = 2 if batched else 1
        if len(shape) < lo or len(shape) > lo + 1:
            raise InputError(name, f"has shape {shape}", f"rows of {m.in_features} features, shape (n, "
                             f"{m.in_features}) (the model's first layer is {m})")
        if shape[-1] != m.in_features:
            raise InputError(name, f"has {shape[-1]} features (shape {shape}) but the model's first layer takes "
                             f"{m.in_features}", f"inputs with {m.in_features} features")
    elif isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        k = len(m.kernel_size)
        want = k + 1 + (1 if batched else 0)
        if len(shape) != want:
            raise InputError(name, f"has shape {shape}", f"a {want}-D batch (n, {m.in_channels}, ...) for the "
                             f"model's first layer {m}")
        c = shape[1] if batched else shape[0]
        if c != m.in_channels:
            raise InputError(name, f"has {c} channels (shape {shape}) but the model's first layer takes "
                             f"{m.in_channels}", f"inputs with {m.in_channels} channels")
    elif isinstance(m, nn.Embedding):
        pass  # token indices: checked by check_labels-style range checks where they are used


_SHAPE_WORDS = ("shapes cannot be multiplied", "size mismatch", "must match the size", "Expected", "expected input",
                "channels", "dimension", "shape", "out of range", "out of bounds")


@contextlib.contextmanager
def forward_errors(name: str, what: str = "the model"):
    """Turn torch's shape / index errors raised inside the block into an ``InputError`` naming ``name``."""
    try:
        yield
    except InputError:
        raise
    except (RuntimeError, IndexError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, IndexError) or any(w in msg for w in _SHAPE_WORDS):
            raise InputError(name, f"does not fit {what} (torch: {msg[:200]})",
                             f"inputs of the shape and range {what} was built for") from None
        raise


def check_labels(y, name: str, *, n_classes: int | None = None, n: int | None = None) -> np.ndarray:
    """Integer class labels (numpy or torch) in ``[0, n_classes)``, one per input when ``n`` is given."""
    try:
        import torch

        if isinstance(y, torch.Tensor):
            y = y.detach().cpu().numpy()
    except ImportError:  # pragma: no cover
        pass
    try:
        arr = np.asarray(y)
    except (ValueError, TypeError):
        raise InputError(name, "has ragged or non-numeric labels", "integer class labels") from None
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise InputError(name, f"has labels of dtype {arr.dtype}", "integer class labels")
    if arr.ndim != 1:
        raise InputError(name, f"has labels of shape {arr.shape}", "a 1-D array of integer class labels")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise InputError(name, "has non-integer labels", "integer class labels")
    arr = arr.astype(np.int64)
    if n is not None and arr.shape[0] != n:
        raise InputError(name, f"has {arr.shape[0]} labels for {n} inputs", "one label per input")
    if arr.size and arr.min() < 0:
        raise InputError(name, f"has a negative label ({int(arr.min())})", "class labels 0..n_classes-1")
    if n_classes is not None and arr.size and arr.max() >= n_classes:
        raise InputError(name, f"has label {int(arr.max())} but the model has {n_classes} classes",
                         f"class labels in 0..{n_classes - 1}")
    return arr


def check_psd(cov, name: str, *, rtol: float = 1e-8) -> None:
    """Refuse a matrix (numpy or torch, 2-D) that is not symmetric positive semi-definite (to rounding)."""
    try:
        import torch

        if isinstance(cov, torch.Tensor):
            cov = cov.detach().cpu().double().numpy()
    except ImportError:  # pragma: no cover
        pass
    c = np.asarray(cov, dtype=np.float64)
    scale = max(float(np.max(np.abs(c))) if c.size else 0.0, np.finfo(float).tiny)
    asym = float(np.max(np.abs(c - c.T))) if c.size else 0.0
    if asym > 1e-8 * scale:
        raise InputError(name, f"is not symmetric (largest |C - C^T| entry {asym:.3g})",
                         "a symmetric positive semi-definite covariance matrix")
    lam = np.linalg.eigvalsh(0.5 * (c + c.T))
    if lam.size and lam[0] < -max(rtol * max(abs(lam[-1]), 1.0), 1e-10) * max(c.shape[0], 1):
        raise InputError(name, f"is not positive semi-definite (smallest eigenvalue {lam[0]:.3g})",
                         "a covariance matrix (symmetric, eigenvalues >= 0)")


def check_real(value, name: str, low=None, high=None, *, low_open=False, high_open=False) -> float:
    """A finite real scalar in an interval (``core.check_in_range``, numpy scalars included)."""
    from iclr26sci.core import check_in_range

    return check_in_range(value, name, low, high, low_open=low_open, high_open=high_open)


def check_count(value, name: str, minimum: int = 1) -> int:
    """An integer (not a bool or float) at least ``minimum``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
        raise InputError(name, f"got {value!r} of type {type(value).__name__}", f"an integer >= {minimum}")
    if int(value) < minimum:
        raise InputError(name, f"got {int(value)}", f"an integer >= {minimum}")
    return int(value)


def is_real(v) -> bool:
    return isinstance(v, (Real, np.floating, np.integer)) and not isinstance(v, (bool, np.bool_))
