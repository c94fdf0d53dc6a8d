"""LIGHT side by side (issue 17): no guidance, text CFG only, pace guidance, and pace guidance with the released
code's double-counted text term (code_faithful), on the same cached model, test sequences and noise seeds.

Data: the spec's PlanarHOI toy (exact physics rule and contact labels), model validation.light.planar_model("full")
(d_model 64, 2 layers, K = 100, 20 DDIM steps, 30 epochs on 2400 sequences). ``--mocap`` runs the same table on the
composed DeepMimic data with validation.light.trained_model("full") instead. Test sequences: fresh (data seed 2026),
sampled at noise seeds 0..n_seeds-1. Columns: contact precision / recall / F1 (95% bootstrap CI over test
sequences, pooled over seeds), penetration, floating, Frechet distance of motion features, diversity, sampling
seconds per sequence, and the cost relative to unguided sampling (measured in this process, one thread). Then the
paired bootstrap CI of F1(pace) - F1(baseline) per seed.

Goal (issue): pace guidance improves contact F1 over both baselines with a CI excluding 0, at <= 2x the cost of
unguided sampling (two passes; with text CFG each pass costs 2 forwards per step, 3 at guided steps).

Run: python benchmarks/bench_light.py [--quick] [--mocap]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _common import print_table  # noqa: E402


def main(quick: bool = False, mocap: bool = False):
    import numpy as np
    import torch

    from iclr26sci.generative.light import PaceGuidance, bootstrap_f1_difference, hoi_dataset, planar_hoi
    from validation.light import GUIDANCE, planar_model, trained_model

    torch.set_num_threads(1)
    n = 40 if quick else 400
    n_seeds = 1 if quick else 3
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
    runs = {
        "no guidance": dict(),
        "text CFG only (w = 1.5)": dict(text_weight=1.5),
        "pace guidance": dict(guidance=PaceGuidance(**guide)),
        "pace guidance, code_faithful": dict(guidance=PaceGuidance(**guide, code_faithful=True)),
    }
    model.sample(list(test.text[:2]), list(test.objects[:2]), rng=0)     # warm-up: text encoder load, first-call costs
    ev = {k: [model.evaluate(test, rng=s, n_boot=1000, **kw) for s in range(n_seeds)] for k, kw in runs.items()}
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
                     "C_F1 [95% CI]": f"{np.mean(f1s):.3f} [{lo:.3f}, {hi:.3f}]",
                     "F1 per seed": " ".join(f"{f:.3f}" for f in f1s),
                     "pene": f"{mean['penetration']:.3f}", "float": f"{mean['floating']:.3f}",
                     "FID": f"{mean['fid']:.3f}", "div": f"{mean['diversity']:.3f}",
                     "ms/seq": f"{1000 * mean['seconds_per_sequence']:.2f}",
                     "cost / unguided": f"{mean['seconds_per_sequence'] / base_t:.2f}"})
    print_table(f"LIGHT on {len(test)} {what} test sequences x {n_seeds} noise seeds (guidance {guide})", rows)
    for b in ("no guidance", "text CFG only (w = 1.5)"):
        for s in range(n_seeds):
            d = bootstrap_f1_difference(ev["pace guidance"][s].counts, ev[b][s].counts, rng=s)
            print(f"seed {s}: F1(pace) - F1({b}) = {d[0]:+.4f}, 95% paired bootstrap CI [{d[1]:+.4f}, {d[2]:+.4f}]")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv, mocap="--mocap" in sys.argv)
