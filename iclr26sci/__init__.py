"""iclr26sci: ICLR 2026 methods as validated scientific-Python tools.

Sub-packages are imported on first use, so ``import iclr26sci`` stays fast::

    from iclr26sci.causal import SharpPolicyLearner
    from iclr26sci.games import PolymatrixGame

The core install (``pip install iclr26sci``) runs the analytic methods (causal, games, imitation, prob, optim);
the others need their extra, e.g. ``pip install "iclr26sci[kernels]"``, and say so when it is missing.
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: every sub-package, imported on first attribute access (``iclr26sci.rl`` works after ``import iclr26sci``)
_SUBPACKAGES = ("core", "prob", "optim", "geom", "nn", "games", "causal", "kernels", "embeddings", "imitation",
                "adaptation", "rl", "generative", "microsim", "closedloop", "distill", "scene3d", "opticalflow",
                "agents", "testing")

__all__ = ["__version__", *_SUBPACKAGES]


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        try:
            mod = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:   # a sub-package that needs an extra at import (testing: hypothesis)
            from .core._lazy import missing_extra_error

            new = missing_extra_error(err, f"{__name__}.{name}")
            if new is err:
                raise
            raise new from err
        globals()[name] = mod
        return mod
    raise AttributeError(f"module 'iclr26sci' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
