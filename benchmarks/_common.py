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


def env_info() -> dict:
    """Load average (1 min), the BLAS thread count and torch's (when torch is imported): printed beside timings."""
    import os
    import sys

    try:
        from threadpoolctl import threadpool_info

        blas = max((i.get("num_threads", 1) for i in threadpool_info()), default=1)
    except ImportError:  # pragma: no cover
        blas = -1
    torch = sys.modules.get("torch")
    th = torch.get_num_threads() if torch is not None else "-"
    return {"load1": round(os.getloadavg()[0], 2), "threads (blas/torch)": f"{blas}/{th}"}
