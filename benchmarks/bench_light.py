"""LIGHT side by side (issue 17): no guidance, text CFG only, pace guidance, and pace guidance with the released
code's double-counted text term (code_faithful), on the same cached model, test sequences and noise seeds.

Model: validation.light.trained_model("full") (d_model 64, 2 layers, K = 100, 20 DDIM steps, 40 epochs on 1600
real DeepMimic clips with composed shape-spectrum objects). Test: fresh sequences (data seed 2026). Columns: contact
precision / recall / F1 with 95% bootstrap CI, penetration, floating, Frechet distance of motion features, diversity,
sampling seconds per sequence (this process; the shared machine is loaded, so times are inflated, but their ratio
is measured in one process), and the paired bootstrap CI of F1(pace) - F1(baseline).

Goal (issue): pace guidance improves contact F1 over both baselines with a CI excluding 0, at <= 2x the cost of
unguided sampling (two passes; with text CFG the unguided baseline itself costs 2 forwards per step).

Run: python benchmarks/bench_light.py [--quick]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _common import print_table  # noqa: E402


def main(quick: bool = False):
    from iclr26sci.generative.light import PaceGuidance, bootstrap_f1_difference, hoi_dataset
    from validation.light import GUIDANCE, trained_model

    model, _ = trained_model("full")
    n = 40 if quick else 400
    test = hoi_dataset("mocap", n=2 * n, rng=2026, test_fraction=0.5).test
    runs = {
        "no guidance": dict(),
        "text CFG only (w = 1.5)": dict(text_weight=1.5),
        "pace guidance": dict(guidance=PaceGuidance(**GUIDANCE)),
        "pace guidance, code_faithful": dict(guidance=PaceGuidance(**GUIDANCE, code_faithful=True)),
    }
    ev = {k: model.evaluate(test, rng=0, n_boot=1000, **kw) for k, kw in runs.items()}
    base_t = ev["no guidance"].metrics["seconds_per_sequence"]
    rows = []
    for k, e in ev.items():
        m = e.metrics
        lo, hi = e.ci["contact_f1"]
        rows.append({"sampler": k, "C_P": f"{m['contact_precision']:.3f}", "C_R": f"{m['contact_recall']:.3f}",
                     "C_F1 [95% CI]": f"{m['contact_f1']:.3f} [{lo:.3f}, {hi:.3f}]",
                     "pene": f"{m['penetration']:.3f}", "float": f"{m['floating']:.3f}", "FID": f"{m['fid']:.3f}",
                     "div": f"{m['diversity']:.3f}", "s/seq": f"{m['seconds_per_sequence']:.3f}",
                     "cost / unguided": f"{m['seconds_per_sequence'] / base_t:.2f}"})
    print_table(f"LIGHT on {len(test)} test sequences (real DeepMimic motion, composed objects)", rows)
    for b in ("no guidance", "text CFG only (w = 1.5)"):
        d = bootstrap_f1_difference(ev["pace guidance"].counts, ev[b].counts, rng=0)
        print(f"F1(pace) - F1({b}) = {d[0]:+.4f}, 95% paired bootstrap CI [{d[1]:+.4f}, {d[2]:+.4f}]")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
