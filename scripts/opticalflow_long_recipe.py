"""Longer CPU recipe for D5/D7 (diagnostic): tiny PWC, appearance-only vs full DCFlow at ``steps`` steps.

Run: ``OMP_NUM_THREADS=1 nice -n 10 python scripts/opticalflow_long_recipe.py [steps] [variants...]``.
Same data, seed and recipe as validation/opticalflow.py:RECIPE except the step count (the consistency term
still switches on after 1/3 of the steps). Models are cached (``nn.cached_model``, keyed by the step count).
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(steps, variants):
    import torch

    import validation.opticalflow as vo

    torch.set_num_threads(1)
    for v in variants:
        t = time.process_time()
        m, meta = vo.trained_model(v, "pwc_tiny", steps=steps)
        res = {mod: vo._eval_motorcycle(m.predict, mod) for mod in ("thermal_like", "nir_like", "lut")}
        print(f"{v}:pwc_tiny steps={steps} cached={meta['cached']} metrics={meta['metrics']} " +
              " ".join(f"{k} EPE {r['epe']:.3f} F1 {r['f1']:.3f}" for k, r in res.items()), flush=True)
        print(f"  {v}: {time.process_time() - t:.0f} CPU s", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 1800, args[1:] or ["full", "appearance"])
