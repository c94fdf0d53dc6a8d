"""Every sub-package imports lightly: importing it loads none of the heavy libraries.

What is asserted is *what* an import loads, never how long it takes (speed belongs in
``benchmarks/bench_imports.py``, which times the same imports in CPU and wall seconds). Heavy libraries
(torch, open3d, gpytorch, scikit-learn, transformers, ...) load inside the functions that need them, so a
scientist who only wants the causal or games methods never pays for them.
``python -X importtime -c "import <package>"`` shows which module is to blame when this fails.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

PACKAGES = ["iclr26sci", "iclr26sci.core", "iclr26sci.prob", "iclr26sci.optim", "iclr26sci.causal",
            "iclr26sci.games", "iclr26sci.kernels", "iclr26sci.embeddings", "iclr26sci.imitation", "iclr26sci.geom",
            "iclr26sci.nn", "iclr26sci.adaptation", "iclr26sci.rl", "iclr26sci.generative", "iclr26sci.microsim",
            "iclr26sci.closedloop", "iclr26sci.distill", "iclr26sci.scene3d", "iclr26sci.opticalflow",
            "iclr26sci.agents", "data_adapters"]
HEAVY = ("torch", "gpytorch", "open3d", "sklearn", "cvxpy", "transformers", "diffusers", "trl", "peft",
         "torch_geometric", "mujoco", "gymnasium", "stable_baselines3", "pyro", "botorch", "matplotlib", "pandas",
         "networkx", "scipy.optimize", "scipy.stats", "scipy.sparse")
#: heavy modules a package may load on import, with the reason
ALLOWED = {"iclr26sci.imitation": {"scipy.sparse": "the tabular MDP's transition tensors are sparse matrices"}}

_PROBE = "import json, sys; import {mod}; print(json.dumps(sorted(sys.modules)))"


@pytest.mark.parametrize("mod", PACKAGES)
def test_import_loads_no_heavy_library(mod):
    r = subprocess.run([sys.executable, "-c", _PROBE.format(mod=mod)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"import {mod} failed:\n{r.stderr[-3000:]}"
    loaded = set(json.loads(r.stdout.strip().splitlines()[-1]))
    heavy = sorted(h for h in HEAVY if h in loaded and h not in ALLOWED.get(mod, {}))
    assert not heavy, f"`import {mod}` loads {heavy}; import them inside the functions that need them"


def test_every_subpackage_is_a_lazy_attribute():
    """``import iclr26sci; iclr26sci.rl`` works for every sub-package, and ``dir()`` lists them all."""
    import pathlib

    import iclr26sci

    on_disk = sorted(p.parent.name for p in pathlib.Path(iclr26sci.__file__).parent.glob("*/__init__.py"))
    assert set(on_disk) <= set(dir(iclr26sci)), sorted(set(on_disk) - set(dir(iclr26sci)))
    code = ("import sys, iclr26sci; m = iclr26sci.rl; print(m.__name__, 'iclr26sci.rl' in sys.modules, "
            "'iclr26sci.opticalflow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["iclr26sci.rl", "True", "False"]
