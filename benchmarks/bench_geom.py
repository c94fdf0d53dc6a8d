"""Benchmark of the pure-torch Gaussian rasterizer (iclr26sci.geom.rasterize_gaussians).

Forward and forward+backward wall time at 128^2 and 256^2 with 1k, 10k and 50k Gaussians, against
(i) the per-pixel reference loop (tiny sizes only) and (ii) a plain dense (pixels x Gaussians) torch
implementation (skipped where its tensors would exceed ``--dense-max-gb``), as ratios. Memory is the
number of bytes autograd saves for the backward pass (``torch.autograd.graph.saved_tensors_hooks``),
plus the process's peak RSS.

The scene: Gaussians centred on a unit sphere shell seen from distance 4, with the 3DGS initial scale
rule (RMS distance to the 3 nearest neighbours), opacity 0.5, random colours.

First section: the hand-written backward (``_backward="manual"``, the default) against the autograd
path (``_backward="autograd"``) at 256^2 with 10k Gaussians, forward and forward+backward, as process
CPU time (``time.process_time``: robust to other processes on a loaded machine, though caches and
page faults still slow down under load), medians of alternating runs in this one process, their
ratio, and the distance to a FLOP lower bound (see :func:`flop_bound`).

Run: ``python benchmarks/bench_geom.py [--quick] [--threads 1] [--device cpu|cuda] [--pairs 9]``. gsplat
1.5.3 installs but has no CPU path (importing ``gsplat_cuda`` fails), so it is no CPU peer here; on a GPU
the same code runs with ``--device cuda`` (every tensor op is device-agnostic).
"""
from __future__ import annotations

import argparse

import os
import resource
import statistics
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


def matmul_gflops(dtype=torch.float32, n=1024, reps=5):
    """Best single-process float GFLOP/s of an n x n matmul (CPU time): the peak the FLOP bound divides by."""
    a, b = torch.rand(n, n, dtype=dtype), torch.rand(n, n, dtype=dtype)
    a @ b
    best = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        a @ b
        best = min(best, time.process_time() - t0)
    return 2 * n ** 3 / best / 1e9


def flop_bound(n_pair_pixels, C, gflops):
    """Seconds for the arithmetic any tiled rasterizer must do, at the measured matmul peak.

    Per (pixel, Gaussian) entry of the pair lists, with F = C + 2 composited features (colour, depth, 1):
    forward 12 (the quadratic exponent as 6 multiply-adds) + 1 (exp) + 2 (transmittance update) + 2
    (weight) + 2F (accumulation); backward 2F (dL/dw) + 2F (feature gradient) + 8 (suffix sum,
    dL/dalpha, dL/dlog alpha) + 12 (the six pixel moments). Counting exp as one flop and running at
    matmul speed makes this a lower bound, not an estimate.
    """
    F = C + 2
    per = (12 + 1 + 2 + 2 + 2 * F) + (2 * F + 2 * F + 8 + 12)
    return n_pair_pixels * per / (gflops * 1e9)


def compare_backward(size, n, device, pairs, load, threads):
    """Hand-written vs autograd backward: medians of alternating CPU-time runs in this process."""
    args, cam = scene(n, size, device)
    res = {"manual": [], "autograd": []}
    for i in range(pairs + 1):                                  # the first pair is a warm-up, dropped
        for mode in (("manual", "autograd") if i % 2 == 0 else ("autograd", "manual")):
            for t in args:
                t.grad = None
            t0 = time.process_time()
            out = rasterize_gaussians(*args, cam, _backward=mode)
            t1 = time.process_time()
            out.image.square().sum().backward()
            t2 = time.process_time()
            if i:
                res[mode].append((t1 - t0, t2 - t0))
    med = {m: (statistics.median(v[0] for v in r), statistics.median(v[1] for v in r)) for m, r in res.items()}
    gf = matmul_gflops()
    bound = flop_bound(out.n_intersections * 256, 3, gf)
    print(f"\n== hand-written backward vs autograd: {size}^2, {n} Gaussians, {threads} thread(s), load average "
          f"{load[0]:.1f} on {os.cpu_count()} cores, CPU time (process_time), median of {pairs} alternating pairs ==")
    rows = [{"backward": m, "fwd CPU s": med[m][0], "fwd+bwd CPU s": med[m][1],
             "x FLOP bound": med[m][1] / bound} for m in ("manual", "autograd")]
    print_table("ours (manual) vs autograd", rows)
    print(f"ratio autograd/manual: fwd {med['autograd'][0] / med['manual'][0]:.2f}x, "
          f"fwd+bwd {med['autograd'][1] / med['manual'][1]:.2f}x")
    print(f"FLOP bound: {out.n_intersections * 256 / 1e6:.1f}M pair-pixels x {flop_bound(1, 3, 1e-9):.0f} flops at "
          f"{gf:.0f} GFLOP/s (1024^2 float32 matmul, CPU time) = {bound * 1e3:.1f} ms; ours is "
          f"{med['manual'][1] / bound:.0f}x from it, autograd {med['autograd'][1] / bound:.0f}x")
    return med


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
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--pairs", type=int, default=9, help="alternating manual/autograd pairs in the comparison")
    ap.add_argument("--only-compare", action="store_true", help="stop after the manual-vs-autograd section")
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
    med = compare_backward(256, 10000, a.device, a.pairs, load, a.threads)
    print(f"goal (256^2, 10k Gaussians, fwd+bwd < 0.15 s at 1 thread): ours {med['manual'][1]:.3f} s CPU time at "
          f"load {load[0]:.1f}")
    if a.only_compare:
        return
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



if __name__ == "__main__":
    main()
