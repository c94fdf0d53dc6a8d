"""Shared argument validators of the rl methods (devices, seeds).

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
