"""Is D3-5 (closedloop.noise_robustness) under-powered or a real failure? Cohen's d at 0 dB with many targets.

For each master seed the brain, the embedder and the target stream are drawn exactly as the check draws them
(``validation.closedloop.noise_robustness``: brain seed, then target-stream seed); only the number of targets
grows (the check's threshold, d > 0.5 with the pooled SD, is unchanged). Printed per seed: d with its
standard error (normal approximation, sqrt(2/n + d^2/(4n))), the paired mean difference and its SE, and the
same for MindPilot at the sharper softmax temperature 0.02 (not the paper's setting; for reference).

Usage: OMP_NUM_THREADS=1 python scripts/closedloop_noise_power.py N_TARGETS SEED [SEED ...]
"""
import math
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
import validation.closedloop as V  # noqa: E402
from iclr26sci.closedloop import RandomPool, run_loop  # noqa: E402

n_t, seeds = int(sys.argv[1]), [int(s) for s in sys.argv[2:]]
spec = V.noise_robustness.check_spec


def cohen(a, b):
    sp = math.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2)
    d = (a.mean() - b.mean()) / sp
    return d, math.sqrt(2 / len(a) + d * d / (4 * len(a)))


allrows = {"mp": [], "mp02": [], "rd": []}
for ms in seeds:
    t0 = time.perf_counter()
    rng = np.random.default_rng(spec.seed(ms))
    seed = V._seed(rng)
    tgt_seed = V._seed(rng)
    X, brain, emb, gen = V._setting(seed, snr_db=0.0)
    trng = np.random.default_rng(tgt_seed)
    mp, mp02, rd = [], [], []
    for (b, pool) in V._targets(X, brain, n_t, trng):
        s = V._seed(trng)
        mp.append(run_loop(V._mindpilot(emb, gen, pool, s), b, 50).true_best)
        mp02.append(run_loop(V._mindpilot(emb, gen, pool, s, temperature=0.02), b, 50).true_best)
        rd.append(run_loop(RandomPool(pool, rng=s), b, 50).true_best)
    mp, mp02, rd = map(np.asarray, (mp, mp02, rd))
    for k, v in (("mp", mp), ("mp02", mp02), ("rd", rd)):
        allrows[k].append(v)
    d, se = cohen(mp, rd)
    d40, _ = cohen(mp[:40], rd[:40])
    d2, se2 = cohen(mp02, rd)
    diff = mp - rd
    print(f"seed {ms}: n={n_t} MindPilot {mp.mean():.4f} random {rd.mean():.4f} paired diff {diff.mean():+.4f} "
          f"(SE {diff.std(ddof=1) / math.sqrt(n_t):.4f}); d = {d:.3f} (SE {se:.3f}); first 40: d = {d40:.3f}; "
          f"T=0.02: {mp02.mean():.4f}, d = {d2:.3f} (SE {se2:.3f})  ({time.perf_counter() - t0:.0f} s)", flush=True)
if len(seeds) > 1:
    mp, mp02, rd = (np.concatenate(allrows[k]) for k in ("mp", "mp02", "rd"))
    d, se = cohen(mp, rd)
    d2, se2 = cohen(mp02, rd)
    print(f"pooled over seeds {seeds} ({len(mp)} targets on {len(seeds)} brains): d = {d:.3f} (SE {se:.3f}); "
          f"T=0.02 d = {d2:.3f} (SE {se2:.3f})", flush=True)
