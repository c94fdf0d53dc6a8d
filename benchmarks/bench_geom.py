"""Benchmark of the pure-torch Gaussian rasterizer (iclr26sci.geom.rasterize_gaussians).

Forward and forward+backward wall time at 128^2 and 256^2 with 1k, 10k and 50k Gaussians, against
(i) the per-pixel reference loop (tiny sizes only) and (ii) a plain dense (pixels x Gaussians) torch
implementation (skipped where its tensors would exceed ``--dense-max-gb``), as ratios. Memory is the
number of bytes autograd saves for the backward pass (``torch.autograd.graph.saved_tensors_hooks``),
plus the process's peak RSS.

The scene: Gaussians centred on a unit sphere shell seen from distance 4, with the 3DGS initial scale
rule (RMS distance to the 3 nearest neighbours), opacity 0.5, random colours.

Run: ``python benchmarks/bench_geom.py [--quick] [--threads 2] [--device cpu|cuda]``. gsplat cannot run
here (no CUDA); on a GPU the same code runs with ``--device cuda`` (every tensor op is device-agnostic).
"""
from __future__ import annotations

import argparse

import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from _common import print_table  # noqa: E402
from iclr26sci.geom import Camera, init_log_scales, rasterize_gaussians, rasterize_gaussians_reference  # noqa: E402
from iclr26sci.geom._rasterize import ALPHA_MAX, ALPHA_MIN, T_MIN, _project  # noqa: E402


def scene(n, size, device, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    p = torch.randn(n, 3, generator=g)
    p = p / p.norm(dim=-1, keepdim=True)
    ls = init_log_scales(p)
    args = [p, torch.randn(n, 4, generator=g), ls, torch.zeros(n), torch.rand(n, 3, generator=g)]
    args = [a.to(device=device, dtype=dtype).requires_grad_() for a in args]
    cam = Camera.look_at(torch.tensor([0.0, -4.0, 0.5], dtype=dtype), [0.0, 0, 0], fx=1.2 * size, fy=1.2 * size,
                         width=size, height=size).to(device=device)
    return args, cam


def dense_rasterize(means, quats, log_scales, opacity_logits, colors, cam):
    """Plain dense rasterizer: every pixel against every Gaussian, one (H*W, N) tensor (same rules)."""
    p = _project(means, quats, log_scales, opacity_logits, cam, 0.3, False, 0.01, 1e10)
    dt, dev = means.dtype, means.device
    jj, ii = torch.meshgrid(torch.arange(cam.height, device=dev, dtype=dt) + 0.5,
                            torch.arange(cam.width, device=dev, dtype=dt) + 0.5, indexing="ij")
    dx = ii.reshape(-1, 1) - p.means2d[None, :, 0]
    dy = jj.reshape(-1, 1) - p.means2d[None, :, 1]
    a, b, c = p.conics.unbind(-1)
    sig = 0.5 * (a * dx * dx + c * dy * dy) + b * dx * dy
    alpha = torch.clamp(p.opacities * torch.exp(-sig), max=ALPHA_MAX)
    ok = (alpha >= ALPHA_MIN) & (dx * dx + dy * dy <= (p.radii * p.radii).to(dt))
    alpha = alpha * ok.to(dt)
    T_incl = torch.cumprod(1 - alpha, 1)
    T_excl = torch.cat([torch.ones_like(T_incl[:, :1]), T_incl[:, :-1]], 1)
    w = alpha * T_excl * (T_incl >= T_MIN).to(dt)
    img = w @ colors[p.ids]
    return img.reshape(cam.height, cam.width, -1)


def measure(fn, args, cam, backward, device):
    saved = [0]

    def pack(t):
        saved[0] += t.numel() * t.element_size()
        return t

    def sync():
        if device == "cuda":
            torch.cuda.synchronize()

    for t in args:
        t.grad = None
    sync()
    t0 = time.perf_counter()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn(*args, cam)
    img = out if isinstance(out, torch.Tensor) else out.image
    if backward:
        img.square().sum().backward()
    sync()
    return time.perf_counter() - t0, saved[0]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="only 128^2 and 256^2 with 1k and 10k")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dense-max-gb", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    load = os.getloadavg()
    print(f"torch {torch.__version__}, {a.threads} threads, device {a.device}, load average {load[0]:.1f} "
          f"(1 min) / {load[1]:.1f} (5 min) on {os.cpu_count()} cores: timings are inflated by the load")
    # load calibration: a 4M-element float32 multiply timed in this process (unloaded 2 cores: a few ms)
    x, y = torch.rand(4 * 2 ** 20, device=a.device), torch.rand(4 * 2 ** 20, device=a.device)
    tm = min(measure(lambda p, q, _c: p * q, [x, y], None, False, a.device)[0] for _ in range(5))
    print(f"calibration: one 4M-element multiply takes {tm * 1e3:.1f} ms here")
    sizes = [128, 256]
    counts = [1000, 10000] if a.quick else [1000, 10000, 50000]
    rows = []
    for size in sizes:
        for n in counts:
            args, cam = scene(n, size, a.device)
            row = {"image": f"{size}^2", "N": n}
            best_f = best_fb = float("inf")
            for _ in range(a.repeat):
                tf, _ = measure(rasterize_gaussians, args, cam, False, a.device)
                tfb, mem = measure(rasterize_gaussians, args, cam, True, a.device)
                best_f, best_fb = min(best_f, tf), min(best_fb, tfb)
            out = rasterize_gaussians(*args, cam)
            row.update({"tiled fwd s": best_f, "tiled fwd+bwd s": best_fb, "fwd+bwd / 4M-mul": best_fb / tm,
                        "saved MB": mem / 2 ** 20,
                        "pairs/px": out.n_intersections * 256 / (size * size), "mean alpha": float(out.alpha.detach().mean())})
            dense_bytes = size * size * n * 4 * 12
            if dense_bytes <= a.dense_max_gb * 2 ** 30:
                tdf, _ = measure(dense_rasterize, args, cam, False, a.device)
                tdfb, dmem = measure(dense_rasterize, args, cam, True, a.device)
                with torch.no_grad():
                    err = float((dense_rasterize(*args, cam) - out.image.detach()).abs().max())
                row.update({"dense fwd+bwd s": tdfb, "dense/tiled (fwd+bwd)": tdfb / best_fb,
                            "dense saved MB": dmem / 2 ** 20, "max |dense - tiled|": err})
            else:
                row.update({"dense fwd+bwd s": float("nan"), "dense/tiled (fwd+bwd)": float("nan"),
                            "dense saved MB": dense_bytes / 2 ** 20, "max |dense - tiled|": float("nan")})
            rows.append(row)
            print(row, flush=True)
    print_table("rasterize_gaussians (tiled) vs dense; dense skipped (nan) where > --dense-max-gb", rows)
    # the per-pixel reference is a Python loop over pixels and Gaussians: tiny sizes only
    ref_rows = []
    for size, n in ((16, 20), (24, 50)):
        args, cam = scene(n, size, a.device, dtype=torch.float64)
        tr, _ = measure(rasterize_gaussians_reference, args, cam, True, a.device)
        tt, _ = measure(rasterize_gaussians, args, cam, True, a.device)
        r = rasterize_gaussians_reference(*args, cam)
        t = rasterize_gaussians(*args, cam)
        ref_rows.append({"image": f"{size}^2", "N": n, "reference fwd+bwd s": tr, "tiled fwd+bwd s": tt,
                         "reference/tiled": tr / tt,
                         "max |diff| (float64)": float((r.image - t.image).detach().abs().max())})
    print_table("per-pixel reference vs tiled (float64)", ref_rows)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS of this process: {peak:.0f} MB")
    goal = [r for r in rows if r["image"] == "256^2" and r["N"] == 10000]
    if goal:
        print(f"goal (256^2, 10k Gaussians, fwd+bwd < 1 s on 2 cores): {goal[0]['tiled fwd+bwd s']:.2f} s "
              f"at load {load[0]:.1f}")



if __name__ == "__main__":
    main()
