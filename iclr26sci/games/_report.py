"""Small helpers shared by the result objects: JSON-friendly values and aligned text tables."""
from __future__ import annotations

import math
from typing import Any

import numpy as np


def jsonable(v: Any) -> Any:
    """Numbers, strings, lists and dicts only (arrays become nested lists, inf/nan stay floats)."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if hasattr(v, "to_dict"):
        return v.to_dict()
    return v


def fmt(x: Any) -> str:
    """Short number format: 4 significant digits, ``inf``/``nan`` spelled out."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(f) or math.isinf(f):
        return str(f)
    return f"{f:.4g}"


def table(title: str, rows: list[tuple[str, Any]], note: str = "") -> str:
    """A two-column text table (label, value) under a title, with an optional closing note."""
    width = max(len(k) for k, _ in rows)
    lines = [title, "=" * max(len(title), width + 14)]
    lines += [f"{k:<{width}}  {v if isinstance(v, str) else fmt(v)}" for k, v in rows]
    if note:
        lines += ["-" * max(len(title), width + 14), note]
    return "\n".join(lines)
