"""Benchmark of GaussianFusion against BEV fusion (BEVFusion-mini) across BEV resolutions, plus the ablations.

Tables:

1. Resolution sweep: GaussianFusion and BEVFusion-mini at BEV resolutions R (quick: 32, 64; full: 32, 64, 128,
   256), same synthetic scenes, same heads and training budget. Columns: occupancy mIoU and pole IoU (scored on
   the finest grid of the sweep, coarser predictions repeated nearest-neighbour), centre-distance AP, training
   memory (bytes autograd saves in one forward pass plus parameters), inference ms per scene, and the ratios of
   the Gaussian model at R to BEV fusion at 2R (the paper's claim: better on thin structures, less memory).
2. Modalities and ablations of GaussianFusion at the smallest R: camera-only, LiDAR-only, fusion; separate
   encoders, direct updates, box offsets, no positional embedding (one seed; the validation checks G6/G7 run
   three).

Run: ``python benchmarks/bench_gaussian_fusion.py [--quick] [--scenes N] [--epochs E]``. Times depend on the
machine's load; memory is machine-independent.
"""
from __future__ import annotations

import argparse
import os
import sys
import time


sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._common import print_table  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="R in {32, 64}, 30 scenes, 6 epochs")
    ap.add_argument("--scenes", type=int, default=None)
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-ablations", action="store_true")
    a = ap.parse_args(argv)
    import torch

    from iclr26sci.scene3d import BEVFusionBaseline, GaussianFusion, driving_scene

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    Rs = [32, 64] if a.quick else [32, 64, 128, 256]
    n_scenes = a.scenes or (30 if a.quick else 120)
    epochs = a.epochs or (6 if a.quick else 12)
    t0 = time.perf_counter()
    data = driving_scene(n_scenes=n_scenes, cameras=4, lidar_beams=32, lidar_azimuths=720, rng=a.seed)
    print(f"{data}: generated in {time.perf_counter() - t0:.1f} s")
    fine = max(Rs)
    rows, res = [], {}
    for R in Rs:
        for name, make in (("GaussianFusion", lambda R=R: GaussianFusion(bev=R, n_gaussians=1500,
                                                                          epochs=epochs, rng=a.seed)),
                           ("BEVFusion", lambda R=R: BEVFusionBaseline(bev=R, epochs=epochs, rng=a.seed))):
            t = time.perf_counter()
            m = make().fit(data.train)
            fit_s = time.perf_counter() - t
            ev = GaussianFusion.evaluate(m, data.test, eval_bev=fine)
            res[(name, R)] = ev
            rows.append(dict(model=name, R=R, miou=ev.miou, pole_iou=ev.pole_iou, ap=ev.ap,
                             memory_MiB=ev.memory_bytes / 2 ** 20, ms_per_scene=ev.ms_per_scene, fit_s=fit_s))
            print(f"  {name} R={R}: {ev}  (fit {fit_s:.0f} s)", flush=True)
    print_table(f"GaussianFusion vs BEV fusion, scored on the {fine}x{fine} grid ({len(data.test)} test scenes)", rows)
    ratio_rows = []
    for R in Rs:
        if 2 * R in Rs:
            g, b = res[("GaussianFusion", R)], res[("BEVFusion", 2 * R)]
            ratio_rows.append(dict(comparison=f"Gaussian R={R} vs BEV R={2 * R}", pole_iou_diff=g.pole_iou - b.pole_iou,
                                   miou_diff=g.miou - b.miou, ap_diff=g.ap - b.ap,
                                   memory_ratio=g.memory_bytes / b.memory_bytes, time_ratio=g.ms_per_scene / b.ms_per_scene))
    if ratio_rows:
        print_table("Gaussian model at R against BEV fusion at 2R", ratio_rows)
    if a.no_ablations:
        return
    R = min(Rs)
    abl = []
    for name, kw in (("fusion (full)", {}), ("camera only", dict(modalities=("camera",))),
                     ("LiDAR only", dict(modalities=("lidar",))), ("separate encoders", dict(shared_encoder=False)),
                     ("direct update", dict(refine="direct")), ("box offsets", dict(offsets="box")),
                     ("no positional embedding", dict(positional_embedding=False))):
        m = GaussianFusion(bev=R, n_gaussians=1500, epochs=epochs, rng=a.seed, **kw).fit(data.train)
        ev = GaussianFusion.evaluate(m, data.test)
        abl.append(dict(variant=name, miou=ev.miou, pole_iou=ev.pole_iou, ap=ev.ap, memory_MiB=ev.memory_bytes / 2 ** 20))
        print(f"  {name}: {ev}", flush=True)
    print_table(f"GaussianFusion variants at R={R} (seed {a.seed})", abl)


if __name__ == "__main__":
    main()
