"""JOSH benchmark: JOSH, the sequential baseline and the ablations on the same synthetic sequences.

Columns: W-MPJPE, WA-MPJPE, foot sliding (mm), ATE (mm), focal error, scale error, seconds per keyframe (mean and
standard error over the sequences), and each method's time relative to JOSH. Goal (issue 24): JOSH beats the
sequential baseline on W-MPJPE with a paired one-sided Wilcoxon p < 0.05, and L_c1 anchors the scale. The fits are
exactly those of validation checks J4-J6 (``validation.josh.paired_rows``: the quick miniature, 8 keyframes at
64x48, 150 + 100 iterations, focal initialised at 0.8 or 1.2 x the truth, realistic noise), so one run gives both.

    python benchmarks/bench_josh.py [--n 10] [--seed 2026] [--json out.json]
"""
from __future__ import annotations

import argparse
import json

import numpy as np

LABELS = {"joint": "JOSH", "sequential": "sequential", "no_c1": "-L_c1", "no_c2": "-L_c2",
          "no_human_opt": "-human opt", "no_focal_opt": "-focal opt"}
COLS = ["w_mpjpe_mm", "wa_mpjpe_mm", "foot_sliding_mm", "ate_mm", "focal_error", "scale_error", "s_per_keyframe"]


def main(argv=None):
    import torch
    from scipy.stats import wilcoxon

    from validation.josh import PAIRED_SEED, VARIANTS, paired_rows

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--seed", type=int, default=PAIRED_SEED)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    print(f"torch threads: {torch.get_num_threads()}", flush=True)
    rows = paired_rows(a.n, tuple(VARIANTS), a.seed)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    t_ref = np.mean([r["joint"]["s_per_keyframe"] for r in rows])
    print(f"{a.n} sequences (seed {a.seed}); mean +/- standard error")
    print("| method | " + " | ".join(COLS) + " | time / JOSH |")
    print("|---" * (len(COLS) + 2) + "|")
    for name in VARIANTS:
        cells = []
        for c in COLS:
            x = np.array([r[name][c] for r in rows], dtype=float)
            se = x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float("nan")
            cells.append(f"{x.mean():.3g} +/- {se:.2g}")
        ratio = np.mean([r[name]["s_per_keyframe"] for r in rows]) / t_ref
        print(f"| {LABELS[name]} | " + " | ".join(cells) + f" | {ratio:.2f} |")

    def p_less(x, y, key):
        d = np.array([r[x][key] - r[y][key] for r in rows])
        return float(wilcoxon(d, alternative="less").pvalue) if len(d) >= 2 else float("nan"), int((d < 0).sum())

    for other, key, what in (("sequential", "w_mpjpe_mm", "W-MPJPE"), ("no_human_opt", "w_mpjpe_mm", "W-MPJPE"),
                             ("no_c2", "foot_sliding_mm", "foot sliding"), ("no_c1", "scale_error", "scale error"),
                             ("no_c1", "w_mpjpe_mm", "W-MPJPE")):
        p, wins = p_less("joint", other, key)
        print(f"JOSH vs {LABELS[other]} on {what}: JOSH lower in {wins}/{len(rows)}, paired one-sided Wilcoxon "
              f"p = {p:.3g}")


if __name__ == "__main__":
    main()
