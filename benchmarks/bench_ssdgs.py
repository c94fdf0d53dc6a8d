"""SSD-GS side by side: baselines, ablations A-F and schedules H-K on one synthetic OLAT scene, same budget.

    python benchmarks/bench_ssdgs.py [--quick] [--mesh bunny] [--steps N] [--device cpu]

Columns: test PSNR / SSIM on unseen lights, per-component MSE (diffuse, specular, subsurface, shadow), the
specular leak on Lambert-only objects, training time, render time per frame and the number of Gaussians.
All variants share the library's rasterizer and the same data, seed and step budget, so times are comparable.
Synthetic data only (the paper's OLAT datasets are not available offline).
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._common import print_table  # noqa: E402

VARIANTS = {
    "3DGS-SH": {"appearance": "sh"},
    "light-MLP (RNG-like)": {"appearance": "light_mlp"},
    "GS3-lite": {"appearance": "gs3"},
    "A diffuse": {"ablation": "A"},
    "B + specular": {"ablation": "B"},
    "C + scattering": {"ablation": "C"},
    "D full (I progressive)": {"ablation": "D"},
    "D full, code dipole": {"ablation": "D", "dipole": "code"},
    "E full - specular": {"ablation": "E"},
    "F full - scattering": {"ablation": "F"},
    "H joint": {"schedule": "joint"},
    "J swapped order": {"schedule": "swapped"},
    "K merged after warm-up": {"schedule": "merged"},
}


def main(argv=None):
    import torch

    from iclr26sci.scene3d.ssdgs import SSDGS, olat_scene

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="32 px, 6 cameras x 8 lights, 400 Gaussians, 300 steps")
    ap.add_argument("--mesh", default=None, help="main object (default: sphere when --quick, else bunny)")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--lr-scale", type=float, default=10.0, help="learning-rate multiplier (short runs need > 1)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--only", default=None, help="comma-separated variant names")
    a = ap.parse_args(argv)
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    if a.quick:
        sz = dict(size=32, cameras=6, train_lights=8, test_lights=4, n=400, steps=300, mesh="sphere")
    else:
        sz = dict(size=64, cameras=24, train_lights=16, test_lights=8, n=3000, steps=1500, mesh="bunny")
    if a.mesh:
        sz["mesh"] = a.mesh
    if a.steps:
        sz["steps"] = a.steps
    data = olat_scene(mesh=sz["mesh"], materials="mixed", cameras=sz["cameras"], train_lights=sz["train_lights"],
                      test_lights=sz["test_lights"], size=sz["size"], rng=0, light_samples=4)
    print(f"data: {data}; {sz}")
    names = a.only.split(",") if a.only else list(VARIANTS)
    rows = []
    for name in names:
        m = SSDGS(n_gaussians=sz["n"], n_steps=sz["steps"], lr_scale=a.lr_scale, device=a.device, rng=0,
                  **VARIANTS[name]).fit(data.train)
        s = m.evaluate(data.test)
        row = {"variant": name, "test PSNR": s.psnr, "test SSIM": s.ssim, "spec leak": s.specular_leak,
               **{f"MSE {k}": v for k, v in s.component_mse.items()}, "train s": m.train_seconds_,
               "s/it": m.train_seconds_ / max(1, sz["steps"]), "render ms": 1e3 * s.render_seconds,
               "Gaussians": m.n_gaussians_}
        rows.append(row)
        print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
    print_table(f"SSD-GS variants on unseen lights ({sz['mesh']}, {sz['size']} px, {sz['steps']} steps)", rows)


if __name__ == "__main__":
    main()
