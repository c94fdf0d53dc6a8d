"""Argument checks of the closedloop package (shared ones live in :mod:`iclr26sci.core._argchecks`)."""
from __future__ import annotations

from iclr26sci.core import InputError
from iclr26sci.core._argchecks import check_device_name, check_int_or_none, check_rng, check_texts, is_real

__all__ = ["check_texts", "check_rng", "check_device_name", "check_device", "check_int_or_none", "is_real"]


def check_device(device, name="device"):
    """The torch device, refused before any work when torch cannot use it on this machine."""
    check_device_name(device, name)
    from iclr26sci.nn._train import _check_device

    try:
        return _check_device(device)
    except InputError as exc:
        raise InputError(name, exc.problem, exc.expected) from None
