"""Benchmark of DCFlow-mini against the appearance-only baseline and classical flow under cross-modal shift.

Tables:

1. The real Middlebury 2014 motorcycle pair (scikit-image, 96 px wide, GT from the shipped disparity) under
   each synthetic modality shift (thermal-like, NIR-like, random LUT) and grey (intra-modal control).
2. ViSP Castle-simu view pairs (real rendered geometry: metric depth and poses; GT flow from
   ``geometric_flow`` with the relative pose, background masked), B modality-shifted. Views (i, i + 3):
   adjacent views move by 0.1-3 px, a gap of 3 gives mean flows of 4-9 px (the motorcycle pair's scale).

Methods: DCFlow-mini with the tiny PWC and with RAFT-small, the appearance-only baseline (NeMAR-mini, same
harness), OpenCV's Farneback and DIS on the raw cross-modal pair, and identity (zero flow). Columns: EPE
(px), F1-all (%) and inference time per pair (ms, CPU, one thread; load dependent). The trained models are
the cached ones of validation/opticalflow.py (trained on first use).

Run: ``python benchmarks/bench_dcflow.py [--quick] [--nets pwc_tiny,raft_small]`` (``--quick``: 3 Castle pairs instead of 6).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _methods(nets=("pwc_tiny", "raft_small"), pwc_steps=()):
    import validation.opticalflow as vo
    from iclr26sci.opticalflow import classical_flow

    out = {}
    for name, (v, arch) in {"DCFlow (pwc_tiny)": ("full", "pwc_tiny"), "DCFlow (raft_small)": ("full", "raft_small"),
                            "DCFlow decoupled only (pwc_tiny)": ("decoupled", "pwc_tiny"),
                            "appearance-only (pwc_tiny)": ("appearance", "pwc_tiny"),
                            "appearance-only (raft_small)": ("appearance", "raft_small")}.items():
        if arch in nets:
            out[name] = vo.trained_model(v, arch)[0].predict
    # the tiny PWC at longer recipes (same RECIPE, more steps; trained once and cached by the step count)
    for st in pwc_steps:
        for name, v in (("DCFlow", "full"), ("DCFlow decoupled only", "decoupled"), ("appearance-only", "appearance")):
            out[f"{name} (pwc_tiny, {st} steps)"] = vo.trained_model(v, "pwc_tiny", steps=st)[0].predict
    for meth in ("farneback", "dis", "zero"):
        out[{"zero": "identity", "farneback": "Farneback", "dis": "DIS"}[meth]] = \
            (lambda a, b, meth=meth: classical_flow(a, b, meth))
    return out


#: first views of the Castle-simu pairs (i, i + CASTLE_GAP); quick: the first three
CASTLE_STARTS = (10, 20, 30, 5, 15, 25)
CASTLE_GAP = 3


def _castle_pairs(n):
    from data_adapters import load_castle_simu
    from iclr26sci.opticalflow import geometric_flow, modality_transform

    starts = CASTLE_STARTS[:n]
    mv = load_castle_simu(views=list(starts) + [s + CASTLE_GAP for s in starts], downsample=4)
    out = []
    for k in range(n):
        i, j = k, n + k                                          # views s and s + CASTLE_GAP
        Ti, Tj = mv.poses[i], mv.poses[j]
        Trel = Tj @ np.linalg.inv(Ti)                            # camera i -> camera j
        D = mv.depths[i]
        fg = D > 0
        Dfill = np.where(fg, D, 10.0 * D[fg].max())
        flow = geometric_flow(Dfill, mv.K, Trel[:3, :3], Trel[:3, 3])
        mask = fg & np.isfinite(flow).all(-1)
        H, W = D.shape
        x = np.arange(W)[None] + flow[..., 0]
        y = np.arange(H)[:, None] + flow[..., 1]
        mask &= (x >= 0) & (x <= W - 1) & (y >= 0) & (y <= H - 1)
        # B = view i in the thermal-like modality (on its grid), A = view j (grey as RGB)
        B = modality_transform(mv.images[i], "thermal_like")
        A = np.repeat(mv.images[j][..., None], 3, -1)
        out.append((A, B, np.where(mask[..., None], flow, 0.0), mask))
    return out


def _run(methods, pairs):
    from iclr26sci.opticalflow import flow_metrics

    rows = {}
    for name, f in methods.items():
        epe, f1, ms = [], [], []
        for A, B, gt, mask in pairs:
            t = time.perf_counter()
            pred = f(A, B)
            ms.append(1e3 * (time.perf_counter() - t))
            r = flow_metrics(pred, gt, mask)
            epe.append(r["epe"])
            f1.append(r["f1"])
        se = float(np.std(epe, ddof=1) / np.sqrt(len(epe))) if len(epe) > 1 else float("nan")
        rows[name] = (float(np.mean(epe)), se, 100 * float(np.mean(f1)), float(np.median(ms)))
    return rows


def _print(title, rows):
    ref = rows.get("Farneback", (0, 0, 0, float("nan")))[3]
    print(f"\n{title}\n{'method':46s} {'EPE px':>8s} {'SE':>6s} {'F1 %':>7s} {'ms/pair':>8s} {'t/Farneback':>11s}")
    for k, (e, se, f, t) in rows.items():
        print(f"{k:46s} {e:8.3f} {se:6.3f} {f:7.1f} {t:8.1f} {t / ref:11.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--nets", default="pwc_tiny,raft_small", help="comma-separated flow networks to include")
    ap.add_argument("--pwc-steps", default="", help="comma-separated longer step counts of the tiny PWC to add "
                    "(e.g. 1800; models not yet cached are trained first, several CPU-min each)")
    args = ap.parse_args(argv)
    import torch

    from iclr26sci.opticalflow import motorcycle_pair

    torch.set_num_threads(1)
    methods = _methods(tuple(args.nets.split(",")), tuple(int(x) for x in args.pwc_steps.split(",") if x))
    for mod in ("thermal_like", "nir_like", "lut", None):
        mp = motorcycle_pair(mod, width=96)
        _print(f"Middlebury motorcycle, B = {mod or 'grey (intra-modal control)'} (96 x 65, {int(mp.mask.sum())} GT px)",
               _run(methods, [(mp.image_a, mp.image_b, mp.flow, mp.mask)]))
    try:
        pairs = _castle_pairs(3 if args.quick else len(CASTLE_STARTS))
        _print(f"ViSP Castle-simu, {len(pairs)} view pairs (i, i + {CASTLE_GAP}) (160 x 120), B = thermal-like; "
               "SE over pairs", _run(methods, pairs))
    except Exception as exc:                         # the ViSP data is a Debian package that may be absent
        print(f"\nViSP Castle-simu skipped: {exc}")


if __name__ == "__main__":
    main()
