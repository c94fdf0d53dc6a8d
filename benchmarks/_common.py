"""Shared helpers for the side-by-side benchmarks."""
from __future__ import annotations

import time


def timed(fn, *args, repeat: int = 3, **kwargs):
    """Best-of-``repeat`` wall time of ``fn(*args, **kwargs)`` and its last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t0)
    return best, out


def print_table(title: str, rows: list[dict]) -> None:
    """Print a side-by-side table (pandas formatting)."""
    import pandas as pd

    print(f"\n## {title}")
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.float_format", "{:.4g}".format):
        print(pd.DataFrame(rows).to_string(index=False))
