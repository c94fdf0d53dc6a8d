"""Closed-loop stimulus optimisation side by side (MindPilot, arXiv:2602.10552) on the simulated EEG brain.

At query budgets 20, 50 and 100, over targets x seeds (default 10 x 5; ``--quick``: 4 x 2): MindPilot (the paper's
temperature 1 and a sharper 0.02), random pool sampling, greedy kNN retrieval, GP-UCB (ours, gpytorch) and BoTorch's
GP-UCB, CMA-ES. Columns: best and top-5 true (noise-free) reward of the best observed images, queries to a
threshold (the pool's 99th-percentile true reward), and the optimiser's own compute time per query. Each run
goes to the largest budget; a smaller budget's numbers are those of the first B queries (no method here
plans for its budget). Goal (issue 18): MindPilot beats BoTorch GP-UCB and CMA-ES at budgets <= 50 (paired
one-sided Wilcoxon over targets x seeds). DDPO-lite is not implemented.

Run: ``OMP_NUM_THREADS=1 python benchmarks/bench_closedloop.py [--quick]``.
"""
from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _common import print_table  # noqa: E402


def main(quick):
    from sklearn.datasets import load_digits

    from iclr26sci.closedloop import (CMAES, GPUCB, BoTorchUCB, GreedyRetrieval, MindPilot, PCAEmbedder,
                                      PCAGenerator, RandomPool, SimulatedEEGBrain, run_loop)

    warnings.filterwarnings("ignore")
    X = load_digits().images / 16.0
    budgets = [20, 50, 100]
    n_t, n_s = (4, 2) if quick else (10, 5)
    emb = PCAEmbedder(16).fit(X)
    gen = PCAGenerator(emb, noise=0.25)
    brain = SimulatedEEGBrain(images=X, snr_db=10, target="semantic", rng=2026)
    trng = np.random.default_rng(42)
    tidx = trng.choice(len(X), size=n_t, replace=False)
    methods = {
        "MindPilot": lambda pool, s: MindPilot(emb, gen, pool, rng=s),
        "MindPilot T=0.02": lambda pool, s: MindPilot(emb, gen, pool, temperature=0.02, rng=s),
        "Random": lambda pool, s: RandomPool(pool, rng=s),
        "Greedy kNN": lambda pool, s: GreedyRetrieval(emb, pool, rng=s),
        "GP-UCB (ours)": lambda pool, s: GPUCB(emb, pool, fit_every=5, rng=s),
        "GP-UCB (BoTorch)": lambda pool, s: BoTorchUCB(emb, pool, fit_every=10, fit_iters=50, rng=s),
        "CMA-ES": lambda pool, s: CMAES(emb, gen, pool, rng=s),
    }
    res = {m: [] for m in methods}
    t_all = time.perf_counter()
    for ti in tidx:
        b0 = brain.with_target(X[ti], rng=int(ti))
        pool = np.delete(X, ti, axis=0)
        thr = float(np.quantile(b0.true_reward(pool), 0.99))
        for s in range(n_s):
            for m, make in methods.items():
                b = brain.with_target(X[ti], rng=1000 * int(ti) + s)
                r = run_loop(make(pool, s), b, max(budgets))
                res[m].append((r, thr))
        print(f"target {ti} done ({time.perf_counter() - t_all:.0f} s)", flush=True)
    rows = []
    for B in budgets:
        for m in methods:
            best, top5, qt, ms = [], [], [], []
            for r, thr in res[m]:
                rr, tt = r.rewards[:B], r.true_rewards[:B]
                order = np.argsort(-rr, kind="stable")
                best.append(tt[order[0]])
                top5.append(tt[order[:5]].mean())
                hit = np.nonzero(tt >= thr)[0]
                qt.append(hit[0] + 1 if len(hit) else np.inf)
                ms.append(1e3 * r.optimizer_seconds / max(r.queries, 1))
            best, top5 = np.asarray(best), np.asarray(top5)
            rows.append({"budget": B, "method": m, "best true": best.mean(), "SE": best.std(ddof=1) / np.sqrt(len(best)),
                         "top-5 true": top5.mean(), "reached q99 (%)": 100 * np.mean(np.isfinite(qt)),
                         "median queries to q99": float(np.median(qt)), "ms/query": float(np.mean(ms))})
    print_table(f"Closed loop on the simulated EEG brain (10 dB), {n_t} targets x {n_s} seeds", rows)
    print("\nGoal: MindPilot > BoTorch GP-UCB and > CMA-ES at B <= 50 (paired one-sided Wilcoxon, p < 0.05)")
    for B in budgets:
        for mp in ("MindPilot", "MindPilot T=0.02"):
            a = np.array([r.true_rewards[:B][np.argmax(r.rewards[:B])] for r, _ in res[mp]])
            for peer in ("GP-UCB (BoTorch)", "CMA-ES"):
                c = np.array([r.true_rewards[:B][np.argmax(r.rewards[:B])] for r, _ in res[peer]])
                p = float(stats.wilcoxon(a, c, alternative="greater").pvalue) if np.any(a != c) else 1.0
                print(f"  B={B:3d} {mp:17s} vs {peer:17s}: mean diff {np.mean(a - c):+.4f}, p = {p:.3g} "
                      f"({'met' if p < 0.05 else 'NOT met'})")
    return rows


if __name__ == "__main__":
    main("--quick" in sys.argv)
