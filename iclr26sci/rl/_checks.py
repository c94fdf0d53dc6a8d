"""Argument validators of the rl methods: the shared device and seed checks of :mod:`iclr26sci.core._argchecks`.

The rl methods take no ``device=None`` (a device is always named), hence ``allow_none=False``.
"""
from __future__ import annotations

from functools import partial

from iclr26sci.core._argchecks import check_device as _check_device
from iclr26sci.core._argchecks import check_rng

__all__ = ["check_device", "check_rng"]

check_device = partial(_check_device, allow_none=False)
