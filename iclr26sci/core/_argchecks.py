"""Argument checks shared by the method packages: lists of texts, seeds, torch device names, optional counts.

No heavy import at module level: :func:`check_device_name` is syntactic (no torch); :func:`check_device`
imports torch only when called and asks it whether the device can be used on this machine.
"""
from __future__ import annotations

import re
from numbers import Integral, Real

import numpy as np

from iclr26sci.core import InputError, as_generator

__all__ = ["check_texts", "check_rng", "check_device_name", "check_device", "check_int_or_none", "is_real"]

_DEVICE = re.compile(r"^(cpu|cuda|mps|xpu|meta|hip|hpu|ipu|mtia|privateuseone)(:\d+)?$")


def check_texts(value, name, *, n=None, min_len=1, allow_blank=True):
    """A list of strings (never one bare string, which would be read character by character)."""
    if isinstance(value, (str, bytes)):
        raise InputError(name, f"is a single string ({str(value)[:30]!r})",
                         "a list of strings (wrap one text in a list: [text])")
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if value is None or isinstance(value, dict) or not hasattr(value, "__iter__"):
        raise InputError(name, f"got {type(value).__name__}", "a list of strings")
    out = list(value)
    if n is not None and len(out) != n:
        raise InputError(name, f"has {len(out)} entries", f"{n} (one per question)")
    if len(out) < min_len:
        raise InputError(name, f"has {len(out)} entries", f"at least {min_len}")
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise InputError(name, f"entry {i} is {type(t).__name__}", "strings")
        if not allow_blank and not t.strip():
            raise InputError(name, f"entry {i} is empty", "non-empty text")
    return out


def check_rng(rng, name="rng"):
    """Refuse a seed that :func:`iclr26sci.core.as_generator` cannot use (the value itself is kept)."""
    if isinstance(rng, np.random.Generator):
        return rng
    try:
        as_generator(rng)
    except InputError as exc:
        raise InputError(name, exc.problem, exc.expected) from None
    return rng


def check_device_name(device, name="device", allow_none=True):
    """A syntactic check of a torch device (no torch import): None, a torch.device or e.g. 'cpu', 'cuda:0'."""
    if device is None and allow_none:
        return device
    if type(device).__name__ == "device" and type(device).__module__.startswith("torch"):
        return device
    if not isinstance(device, str) or not _DEVICE.match(device):
        raise InputError(name, f"got {device!r}", "a torch device such as 'cpu', 'cuda' or 'cuda:0'")
    return device


def check_device(device, name="device", allow_none=True):
    """The torch device named by ``device``, refused before any work unless torch can allocate on it here.

    ``None`` means the CPU when ``allow_none`` (and is refused otherwise). One implementation for every
    sub-package that runs torch (nn, rl, scene3d, agents, distill, closedloop).
    """
    import torch

    if device is None and allow_none:
        return torch.device("cpu")
    if not isinstance(device, (str, torch.device)):
        expected = "None or a torch device name" if allow_none else "a torch device name"
        raise InputError(name, f"got {type(device).__name__}", f"{expected} such as 'cpu' or 'cuda'")
    try:
        dev = torch.device(device)
        torch.empty(0, device=dev)
    except (RuntimeError, AssertionError, ValueError, TypeError) as exc:
        raise InputError(name, f"got {device!r}, which torch cannot use here ({str(exc).splitlines()[0][:80]})",
                         "an available torch device such as 'cpu'") from None
    return dev


def check_int_or_none(value, name, minimum=0):
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)) or int(value) < minimum:
        raise InputError(name, f"got {value!r}", f"None or an integer >= {minimum}")
    return int(value)


def is_real(x) -> bool:
    return isinstance(x, (Real, np.floating, np.integer)) and not isinstance(x, (bool, np.bool_))
