"""iclr26sci: ICLR 2026 methods as validated scientific-Python tools.

Sub-packages are imported on first use, so ``import iclr26sci`` stays fast::

    from iclr26sci.causal import SharpPolicyLearner
    from iclr26sci.games import PolymatrixGame
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

_SUBPACKAGES = ("core", "prob", "optim", "games", "causal", "kernels", "embeddings", "imitation")

__all__ = ["__version__", *_SUBPACKAGES]


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'iclr26sci' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
