"""Run closedloop checks at the full profile for given master seeds; print each verdict and its table.

Usage: OMP_NUM_THREADS=1 python scripts/closedloop_full_profile.py noise_robustness 0 1 2 3 4
"""
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
import validation.closedloop as V  # noqa: E402
from validation.registry import Profile  # noqa: E402

name, seeds = sys.argv[1], [int(s) for s in sys.argv[2:]]
spec = getattr(V, name).check_spec
for s in seeds:
    t0 = time.perf_counter()
    r = spec.func(Profile("full"), np.random.default_rng(spec.seed(s)))
    print(f"seed {s}: {r}  ({time.perf_counter() - t0:.0f} s)", flush=True)
    for row in (r.table or []):
        print("   ", row, flush=True)
