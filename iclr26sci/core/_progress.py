"""tqdm progress bars that stay silent off-terminal and under CI."""
from __future__ import annotations

import os
import sys
from typing import Iterable

__all__ = ["progress", "progress_enabled"]


def progress_enabled() -> bool:
    """True when stderr is a terminal and neither ``CI`` nor ``ICLR26SCI_NO_PROGRESS`` is set."""
    if os.environ.get("CI") or os.environ.get("ICLR26SCI_NO_PROGRESS"):
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def progress(iterable: Iterable, *, desc: str = "", total: int | None = None, enabled: bool | None = None):
    """Wrap ``iterable`` in a tqdm bar when progress output is enabled."""
    if enabled is None:
        enabled = progress_enabled()
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False)
