"""Benchmark of the microsim analysis and solvers against the tools a microscopist would use.

Tables:

1. Tracking: the same rendered videos (50 Brownian beads, D = 0.5 um^2/s, dt = 0.05 s, 0.1 um px, PSF sigma 1.5 px,
   SNR 10, exposure = dt with 10 sub-steps) analysed by ``iclr26sci.microsim.analyse`` and by trackpy
   (``batch`` with diameter 7 and minmass from Otsu's threshold on the feature masses, ``link`` with the same
   10 px search range and no memory, ``filter_stubs(5)``, ``emsd``), both D estimates from the same straight-line
   fit MSD = a + 4 D tau on lags 1-4. Per video: D, error against the true D, wall time; then mean |error|, RMSE
   and mean time per tool. The D of the true trajectories (fit on the same lags) is shown as the floor set by
   the finite sample.
2. Diffusion solver: a 1-D Gaussian (sigma_0 = 1 um, D = 1 um^2/s, t = 1 s) on [0, 20] um with no-flux walls:
   FTCS (at D dt/dx^2 = 0.4) and Crank-Nicolson (dt = dx) against the analytic Gaussian: L2 error and time per
   grid; the observed orders of accuracy.

Run: ``python benchmarks/bench_microsim.py [--quick]`` (quick: 3 videos of 200 frames; full: 10 of 400). Times
depend on the machine's load; ratios measured in one process are the comparable numbers.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._common import print_table  # noqa: E402


def _line_D(tau, m, d=2):
    A = np.stack([np.ones_like(tau), tau], 1)
    a, b = np.linalg.lstsq(A, m, rcond=None)[0]
    return b / (2 * d), a


def trackpy_D(video, search_px=10.0, n_lags=4):
    import trackpy as tp
    from skimage.filters import threshold_otsu

    tp.quiet()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = tp.batch(video.frames, 7, processes=1)
        f = f[f["mass"] > threshold_otsu(f["mass"].values)]
        t = tp.filter_stubs(tp.link(f, search_range=search_px, memory=0), 5)
        em = tp.emsd(t, mpp=video.pixel_size, fps=1 / video.dt, max_lagtime=n_lags)
    return _line_D(em.index.values.astype(float), em.values.astype(float))[0]


def tracking_table(n_videos, steps, seed=0):
    from iclr26sci.microsim import analyse, fit_msd, render, simulate

    rows = []
    D = 0.5
    for k in range(n_videos):
        tr = simulate("brownian", n_particles=50, D=D, dt=0.05, steps=steps, substeps=10, rng=seed + k)
        v = render(tr, psf_sigma=1.5, snr=10, rng=seed + k)
        t0 = time.perf_counter()
        ours = analyse(v, "tracks", max_disp=1.0, n_boot=50).D
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        tpD = trackpy_D(v)
        t_tp = time.perf_counter() - t0
        truth = fit_msd(tr, n_lags=4, n_boot=10).D
        rows.append({"video": k, "D_true_traj": truth, "D_ours": ours, "err_ours": ours / D - 1, "time_ours_s": t_ours,
                     "D_trackpy": tpD, "err_trackpy": tpD / D - 1, "time_trackpy_s": t_tp})
    print_table("Tracking: D estimates on the same rendered videos (true D = 0.5 um^2/s)", rows)
    e_o = np.array([r["err_ours"] for r in rows])
    e_t = np.array([r["err_trackpy"] for r in rows])
    e_s = np.array([r["D_true_traj"] / D - 1 for r in rows])
    summary = [{"tool": "true trajectories (floor)", "mean|err|": np.mean(np.abs(e_s)), "rmse": np.sqrt(np.mean(e_s ** 2)),
                "mean time s": float("nan")},
               {"tool": "iclr26sci.microsim.analyse", "mean|err|": np.mean(np.abs(e_o)), "rmse": np.sqrt(np.mean(e_o ** 2)),
                "mean time s": np.mean([r["time_ours_s"] for r in rows])},
               {"tool": "trackpy 0.7 (batch/link/emsd)", "mean|err|": np.mean(np.abs(e_t)),
                "rmse": np.sqrt(np.mean(e_t ** 2)), "mean time s": np.mean([r["time_trackpy_s"] for r in rows])}]
    print_table("Tracking summary", summary)
    return summary


def solver_table():
    from iclr26sci.microsim import solve_diffusion

    rows = []
    for method in ("ftcs", "cn"):
        errs = []
        for dx in (0.2, 0.1, 0.05):
            x = (np.arange(int(round(20 / dx))) + 0.5) * dx
            g0 = np.exp(-(x - 10) ** 2 / 2) / math.sqrt(2 * math.pi)
            dt = 0.4 * dx * dx if method == "ftcs" else dx
            steps = int(round(1.0 / dt))
            t0 = time.perf_counter()
            sol = solve_diffusion(g0, 1.0, dx, dt, steps, method=method, save_every=steps)
            el = time.perf_counter() - t0
            T = steps * dt
            exact = np.exp(-(x - 10) ** 2 / (2 * (1 + 2 * T))) / math.sqrt(2 * math.pi * (1 + 2 * T))
            err = math.sqrt(np.sum((sol.c[-1] - exact) ** 2) * dx)
            errs.append(err)
            rows.append({"method": method, "dx": dx, "dt": dt, "steps": steps, "L2 error": err, "time s": el,
                         "order": math.log2(errs[-2] / err) if len(errs) > 1 else float("nan")})
    print_table("Diffusion solver vs the analytic Gaussian (sigma_0 = 1, D = 1, t = 1, no-flux walls at 0 and 20)", rows)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 videos of 200 frames (default: 10 of 400)")
    args = ap.parse_args(argv)
    n, steps = (3, 200) if args.quick else (10, 400)
    tracking_table(n, steps)
    solver_table()


if __name__ == "__main__":
    main()
