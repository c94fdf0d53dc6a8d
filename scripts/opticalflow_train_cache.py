"""Train (once) and cache the DCFlow-mini models of validation/opticalflow.py, printing each one's Middlebury EPE.

Run: ``OMP_NUM_THREADS=1 python scripts/opticalflow_train_cache.py [names...]`` where a name is
``<variant>:<arch>`` (e.g. ``full:pwc_tiny``) or ``d4`` (the six supervised D4 nets). Default: all, in the
order the checks need them. Models already in the user cache are read back, not retrained.
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ORDER = ["full:pwc_tiny", "appearance:pwc_tiny", "d4", "decoupled:pwc_tiny", "robust:pwc_tiny",
         "appearance:raft_small", "full:raft_small", "full_oracle_depth:pwc_tiny", "full_random_depth:pwc_tiny"]


def main(names):
    import torch

    import validation.opticalflow as vo

    torch.set_num_threads(1)
    for name in names or ORDER:
        t = time.process_time()
        if name == "d4":
            for p in (0.05, 0.10, 0.20):
                for trim in (p, 0.0):
                    net = vo._d4_train(p, trim, 0, vo.D4_RECIPE["steps"])
                    print(f"d4 p={p} trim={trim}: clean EPE {vo._d4_clean_epe(net, 0)[0]:.3f}", flush=True)
        else:
            variant, arch = name.split(":")
            m, meta = vo.trained_model(variant, arch)
            res = {mod: vo._eval_motorcycle(m.predict, mod) for mod in ("thermal_like", "nir_like", "lut")}
            print(f"{name}: cached={meta['cached']} metrics={meta['metrics']} " +
                  " ".join(f"{k} EPE {v['epe']:.3f} F1 {v['f1']:.3f}" for k, v in res.items()), flush=True)
        print(f"  {name}: {time.process_time() - t:.0f} CPU s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
