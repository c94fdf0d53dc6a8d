"""Argument checks of the distill package: the shared ones of :mod:`iclr26sci.core._argchecks`, re-exported."""
from __future__ import annotations

from iclr26sci.core._argchecks import (check_device, check_device_name, check_int_or_none, check_rng, check_texts,
                                       is_real)

__all__ = ["check_texts", "check_rng", "check_device_name", "check_device", "check_int_or_none", "is_real"]
