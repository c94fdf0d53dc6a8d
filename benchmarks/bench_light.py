"""LIGHT side by side (issue 17): no guidance, text CFG only, pace guidance, and pace guidance with the released
code's double-counted text term (code_faithful), on the same cached model, test sequences and noise seeds; plus pace
guidance without text CFG (``text_weight=1``, the cheapest pace sampler) and a sampling-cost table.

Data: the spec's PlanarHOI toy (exact physics rule and contact labels), model validation.light.planar_model("full")
(d_model 64, 2 layers, K = 100, 20 DDIM steps, 30 epochs on 2400 sequences). ``--mocap`` runs the same table on the
composed DeepMimic data with validation.light.trained_model("full") instead. Test sequences: fresh (data seed 2026),
sampled at noise seeds 0..n_seeds-1. Columns: contact precision / recall / F1 (95% bootstrap CI over test
sequences, pooled over seeds), penetration, floating, Frechet distance of motion features, diversity, denoiser
evaluations per sequence (counted), sampling seconds per sequence in one batch of all test sequences, and that
time relative to unguided sampling (one thread, this process). Then the paired bootstrap CI of
F1(pace) - F1(baseline) per seed, and a latency table for one sequence at a time (batch 1), unfused and fused
(one stacked denoiser call per step: the two passes as one batched pass).

Goal (issue): pace guidance improves contact F1 over both baselines with a CI excluding 0, at <= 2x the cost of
unguided sampling (two passes).

Run: python benchmarks/bench_light.py [--quick] [--mocap] [--n N] [--seeds S]
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _common import print_table  # noqa: E402


def _arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main(quick: bool = False, mocap: bool = False, n=None, n_seeds=None):
    import numpy as np
    import torch

    from iclr26sci.generative.light import PaceGuidance, bootstrap_f1_difference, hoi_dataset, planar_hoi
    from validation.light import GUIDANCE, planar_model, trained_model

    torch.set_num_threads(1)
    n = n or (40 if quick else 400)
    n_seeds = n_seeds or (1 if quick else 3)
    if mocap:
        model, _ = trained_model("full")
        guide = dict(leaders=("body", "hands"), delta=5, weight=3.0, text_weight=1.5, upstop=12)
        test = hoi_dataset("mocap", n=2 * n, rng=2026, test_fraction=0.5).test
        what = "composed DeepMimic mocap"
    else:
        model, _ = planar_model("full")
        guide = GUIDANCE
        test = planar_hoi(n=2 * n, rng=2026, test_fraction=0.5).test
        what = "PlanarHOI"
    rows_seen = [0]
    model.model_.register_forward_pre_hook(lambda mod, args: rows_seen.__setitem__(0, rows_seen[0] + len(args[0][0])))
    runs = {
        "no guidance": dict(),
        "text CFG only (w = 1.5)": dict(text_weight=1.5),
        "pace guidance": dict(guidance=PaceGuidance(**guide)),
        "pace guidance, code_faithful": dict(guidance=PaceGuidance(**guide, code_faithful=True)),
        "pace guidance, no text CFG": dict(guidance=PaceGuidance(**{**guide, "text_weight": 1.0})),
    }
    model.sample(list(test.text[:2]), list(test.objects[:2]), rng=0)     # warm-up: text encoder load, first-call costs
    ev, nfe = {}, {}
    for k, kw in runs.items():
        rows_seen[0] = 0
        ev[k] = [model.evaluate(test, rng=s, n_boot=1000, **kw) for s in range(n_seeds)]
        nfe[k] = rows_seen[0] / (n_seeds * len(test))
    base_t = np.mean([e.metrics["seconds_per_sequence"] for e in ev["no guidance"]])
    rows = []
    for k, es in ev.items():
        mean = {m: float(np.mean([e.metrics[m] for e in es])) for m in es[0].metrics}
        counts = np.concatenate([e.counts for e in es])
        f1s = [e.metrics["contact_f1"] for e in es]
        g = np.random.default_rng(0)
        idx = g.integers(len(counts), size=(1000, len(counts)))
        c = counts[idx].sum(1).astype(float)
        P, R = c[:, 0] / np.maximum(c[:, 1], 1), c[:, 0] / np.maximum(c[:, 2], 1)
        lo, hi = np.quantile(2 * P * R / np.maximum(P + R, 1e-12), [0.025, 0.975])
        rows.append({"sampler": k, "C_P": f"{mean['contact_precision']:.3f}", "C_R": f"{mean['contact_recall']:.3f}",
                     "C_F1 [95% CI]": f"{np.mean(f1s):.4f} [{lo:.3f}, {hi:.3f}]",
                     "F1 per seed": " ".join(f"{f:.4f}" for f in f1s),
                     "pene": f"{mean['penetration']:.3f}", "float": f"{mean['floating']:.3f}",
                     "FID": f"{mean['fid']:.3f}", "div": f"{mean['diversity']:.3f}", "NFE/seq": f"{nfe[k]:.0f}",
                     "ms/seq": f"{1000 * mean['seconds_per_sequence']:.2f}",
                     "time / unguided": f"{mean['seconds_per_sequence'] / base_t:.2f}"})
    print_table(f"LIGHT on {len(test)} {what} test sequences x {n_seeds} noise seeds (guidance {guide})", rows)
    for b in ("no guidance", "text CFG only (w = 1.5)"):
        for s in range(n_seeds):
            d = bootstrap_f1_difference(ev["pace guidance"][s].counts, ev[b][s].counts, rng=s)
            print(f"seed {s}: F1(pace) - F1({b}) = {d[0]:+.4f}, 95% paired bootstrap CI [{d[1]:+.4f}, {d[2]:+.4f}]")
    # latency of one sequence at a time: the fused pass stacks all inputs of a step into one denoiser call
    k1 = min(20, len(test))
    lat = []
    for name, kw in runs.items():
        if name == "pace guidance, code_faithful":
            continue
        for fuse in (False, True):
            if fuse and name == "no guidance":
                continue
            best = np.inf
            for _ in range(2):
                t0 = time.perf_counter()
                for i in range(k1):
                    model.sample(test.text[i], test.objects[i], rng=i, fuse=fuse, **kw)
                best = min(best, (time.perf_counter() - t0) / k1)
            lat.append({"sampler": name, "fused": fuse, "ms/seq at batch 1": 1000 * best})
    b1 = lat[0]["ms/seq at batch 1"]
    for r in lat:
        r["time / unguided"] = round(r["ms/seq at batch 1"] / b1, 2)
        r["ms/seq at batch 1"] = round(r["ms/seq at batch 1"], 1)
    print_table(f"Latency, one sequence at a time (best of 2 runs over {k1} sequences, one thread)", lat)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv, mocap="--mocap" in sys.argv, n=_arg("--n", None), n_seeds=_arg("--seeds", None))
