"""Validation of the microsim method (report section "microsim"): checks 1-10 of the MicroWorldBench spec.

Checks 1-8 measure a physical law on the simulators (and, for check 2, on rendered video through detection and
linking) and compare with the analytic value; check 9 measures the physics-violation detectors' power and false
alarms (including on real still microscopy from stardist and scikit-image); check 10 verifies the rubric-scoring
algebra and shows the released evaluator's two defects. Every check accepts ``variant=`` naming a broken
implementation it must catch; tests/microsim/test_microsim_validation.py runs them and sees them fail.
"""
from __future__ import annotations

import math
from unittest import mock

import numpy as np

from ._figstyle import readable, subplots
from .registry import CheckResult, Criterion, check

PAPER = "Wang et al. (2026) MicroVerse: A Preliminary Exploration Toward a Micro-World Simulation, ICLR (arXiv:2603.00585)"


def _seed(rng):
    return int(rng.integers(0, 2 ** 31 - 1))


# --------------------------------------------------------------------------------------------------- 1
@check(method="microsim", paper=PAPER, budget=2,
       guarantee="1: free Brownian motion (d = 2, D = 0.5 um^2/s, dt = 0.05 s, 200 particles x 400 steps) has "
                 "MSD(tau) = 2 d D tau: fitted alpha in [0.95, 1.05], D within 5 % and within 4 bootstrap SE, "
                 "increments Gaussian (KS p > 0.01) and uncorrelated (|lag-1 autocorrelation| < 0.05)")
def m1_brownian_msd(profile, rng, variant=None):
    from scipy import stats

    from iclr26sci.microsim import fit_msd, simulate

    D, dt = 0.5, 0.05
    tr = simulate("brownian", n_particles=200, D=D, dt=dt, steps=400, variant=variant, rng=_seed(rng))
    res = fit_msd(tr, n_lags=4, alpha_lags=(1, 40), fit_intercept=False, n_boot=200, rng=_seed(rng))
    inc = np.diff(tr.positions, axis=0)
    z = (inc[..., 0] / math.sqrt(2 * D * dt)).ravel()
    ks_p = stats.kstest(z, "norm").pvalue
    a, b = inc[:-1, :, 0].ravel(), inc[1:, :, 0].ravel()
    rho = float(np.corrcoef(a, b)[0, 1])
    crit = [Criterion("alpha (log-log MSD slope, lags 1-40)", res.alpha, (0.95, 1.05), "in"),
            Criterion("|D_hat / D - 1|", abs(res.D / D - 1), 0.05, "<="),
            Criterion("|D_hat - D| / SE_boot", abs(res.D - D) / res.D_se, 4.0, "<="),
            Criterion("KS p-value of increments / sqrt(2 D dt) vs N(0,1)", ks_p, 0.01, ">"),
            Criterion("|lag-1 autocorrelation of increments|", abs(rho), 0.05, "<")]
    return CheckResult(criteria=crit, table=[{"D_hat": res.D, "SE": res.D_se, "alpha": res.alpha, "ks_p": ks_p,
                                               "rho1": rho}],
                       details="Exact update x + sqrt(2 D dt) xi; MSD fit without offset on lags 1-4, alpha on lags "
                               "1-40; SE from resampling the 200 particles. Broken variants: 'half_variance' "
                               "(sqrt(D dt)), 'correlated' (AR(1) increments).")


# --------------------------------------------------------------------------------------------------- 2
def _sigma_loc(video, tr, psf_sigma):
    """Localisation error (um, per axis) of the video's detections against the true exposure-averaged positions
    (the quantity sigma_loc of the Savin-Doyle law: the error of the estimate of the time-averaged position)."""
    from scipy.spatial import cKDTree

    from iclr26sci.microsim import detect

    px = video.pixel_size
    err = []
    frames = np.arange(0, len(video) - 1, 5)
    dets = detect(video.frames[frames], psf_sigma=psf_sigma)
    for n, det in zip(frames, dets):
        truth = (tr.sub[n].mean(0) if tr.sub is not None else tr.positions[n]) / px
        d, j = cKDTree(truth).query(det[:, :2])
        ok = d < 1.5
        err.append(det[ok, :2] - truth[j[ok]])
    e = np.concatenate(err) * px
    return float(np.sqrt(np.mean(e ** 2))) if e.size else float("nan")


@check(method="microsim", paper=PAPER, budget=12,
       guarantee="2: rendered-video round trip (PSF sigma 1.5 px, SNR 10, exposure = dt, 0.1 um px): detection, "
                 "linking and the MSD fit recover D within 10 % and the offset within 30 % of "
                 "2 d sigma_loc^2 - 2 d D t_E/3 (Savin-Doyle), sigma_loc measured against the true exposure-averaged positions")
def m2_render_roundtrip(profile, rng, variant=None):
    from iclr26sci.microsim import analyse, render, simulate

    D, dt, s, snr, px = 0.5, 0.05, 1.5, 10.0, 0.1
    steps = profile.pick(300, 400)
    tr = simulate("brownian", n_particles=50, D=D, dt=dt, steps=steps, substeps=10, exposure=1.0, rng=_seed(rng))
    if variant == "no_exposure_blur":  # broken renderer: draws only the frame-start positions
        tr.sub = None
    v = render(tr, psf_sigma=s, snr=snr, pixel_size=px, rng=_seed(rng))
    est = analyse(v, kind="tracks", n_lags=4, rng=_seed(rng))
    sl = _sigma_loc(v, tr, s)
    d = 2
    a_th = 2 * d * sl ** 2 - 2 * d * D * tr.truth["blur_lag"]
    crit = [Criterion("|D_hat / D - 1|", abs(est.D / D - 1), 0.10, "<="),
            Criterion("|offset - theory| / |theory|", abs(est.intercept - a_th) / abs(a_th), 0.30, "<=")]
    return CheckResult(criteria=crit, table=[{"D_hat": est.D, "D_se": est.D_se, "offset": est.intercept,
                                               "offset_theory": a_th, "sigma_loc_um": sl, "n_tracks": est.n_tracks}],
                       details="t_E/3 (1 - 1/m^2) with m = 10 exposure sub-steps; tracks cut at the field edges bias "
                               "D low by ~2-3 % (conditioning on staying in view). Broken variant: "
                               "'no_exposure_blur' (renderer ignores the exposure window).")


# --------------------------------------------------------------------------------------------------- 3
@check(method="microsim", paper=PAPER, budget=2,
       guarantee="3: Stokes-Einstein D = k_B T / (6 pi eta a): simulating spheres of radius a and 2a at the same "
                 "T and eta, the estimated D ratio is 1/2 within 5 %, and D(a) matches k_B T/(6 pi eta a) within "
                 "4 SE; doubling T doubles D (ratio 2 within 5 %)")
def m3_stokes_einstein(profile, rng, variant=None):
    import iclr26sci.microsim._sim as sim
    from iclr26sci.microsim import fit_msd, simulate

    T, eta, a = 298.15, 8.9e-4, 0.5
    real = sim.stokes_einstein

    def broken(temperature, viscosity, radius):  # D proportional to 1 / a^2
        return real(temperature, viscosity, radius) * (0.5 / radius)

    with mock.patch.object(sim, "stokes_einstein", broken if variant == "radius_squared" else real):
        runs = {}
        for key, (t, r) in {"a": (T, a), "2a": (T, 2 * a), "2T": (2 * T, a)}.items():
            tr = simulate("brownian", n_particles=200, temperature=t, viscosity=eta, radius=r, dt=0.05, steps=400,
                          rng=_seed(rng))
            runs[key] = fit_msd(tr, fit_intercept=False, n_boot=100, rng=_seed(rng))
    D_th = real(T, eta, a)
    r_a = runs["2a"].D / runs["a"].D
    r_t = runs["2T"].D / runs["a"].D
    crit = [Criterion("|D(2a)/D(a) / 0.5 - 1|", abs(r_a / 0.5 - 1), 0.05, "<="),
            Criterion("|D(2T)/D(T) / 2 - 1|", abs(r_t / 2 - 1), 0.05, "<="),
            Criterion("|D(a) - kT/(6 pi eta a)| / SE", abs(runs["a"].D - D_th) / runs["a"].D_se, 4.0, "<=")]
    return CheckResult(criteria=crit, table=[{"D_theory": D_th, **{f"D_{k}": v.D for k, v in runs.items()}}],
                       details="Water at 25 C, a = 0.5 um. Broken variant: 'radius_squared' (D ~ 1/a^2).")


# --------------------------------------------------------------------------------------------------- 4
@check(method="microsim", paper=PAPER, budget=1,
       guarantee="4: optical trap (Ornstein-Uhlenbeck, exact update): stationary variance k_B T / kappa per axis "
                 "within 5 %, MSD plateau 2 d k_B T / kappa within 5 %, and MSD(tau) = 2 d (k_B T/kappa)"
                 "(1 - exp(-k tau)) within 5 % at every lag up to 3/k")
def m4_optical_trap(profile, rng, variant=None):
    from iclr26sci.microsim import msd, simulate

    method = "euler" if variant == "euler" else "exact"
    tr = simulate("trap", n_particles=200, D=0.5, stiffness=0.04, temperature=298.15, dt=0.05, steps=400,
                  method=method, rng=_seed(rng))
    var, k = tr.truth["variance"], tr.truth["k"]
    x = tr.positions - np.asarray(tr.truth["centres"])[None]  # displacement from the known trap centre
    v_hat = float(np.mean(x ** 2))
    n_pl = int(round(3 / (k * tr.dt)))
    lags, m, _ = msd(tr, max_lag=max(n_pl, int(round(2.0 / tr.dt))))
    theory = 4 * var * (1 - np.exp(-k * lags))
    plateau = float(np.mean(m[-10:]))
    pl_th = float(np.mean(theory[-10:]))
    dev = float(np.max(np.abs(m[:n_pl] / theory[:n_pl] - 1)))
    crit = [Criterion("|var_hat / (kT/kappa) - 1|", abs(v_hat / var - 1), 0.05, "<="),
            Criterion("|plateau / 2d kT/kappa(1-e^-k tau) - 1|", abs(plateau / pl_th - 1), 0.05, "<="),
            Criterion("max_tau<=3/k |MSD / theory - 1|", dev, 0.05, "<=")]
    return CheckResult(criteria=crit, table=[{"var_theory": var, "var_hat": v_hat, "k": k, "plateau": plateau,
                                               "plateau_theory": pl_th}],
                       details="kappa = 0.04 pN/um, D = 0.5 um^2/s: k dt = 0.24. Broken variant: 'euler' "
                               "(Euler-Maruyama, stationary variance biased by 1/(1 - k dt/2)).")


# --------------------------------------------------------------------------------------------------- 5
@check(method="microsim", paper=PAPER, budget=1,
       guarantee="5: diffusion PDE with no-flux walls (Crank-Nicolson): a Gaussian spreads as sigma^2(t) = "
                 "sigma_0^2 + 2 D t per axis within 2 %, mass is conserved to 1e-10, the maximum never increases, "
                 "FTCS above D dt/dx^2 = 1/(2d) is flagged unstable and blows up, and the L2 error against the "
                 "analytic Gaussian falls with observed order in [1.8, 2.2]")
def m5_diffusion_pde(profile, rng, variant=None):
    import iclr26sci.microsim._sim as sim
    from iclr26sci.microsim import simulate, solve_diffusion

    real_lap = sim._laplacian

    def leaky(shape):  # broken: Dirichlet (absorbing) walls, the ghost cell held at zero
        import scipy.sparse as sp

        L = real_lap(shape).tolil()
        n = L.shape[0]
        for i in range(n):
            L[i, i] = -2.0 * len(shape)
        return L.tocsr()

    with mock.patch.object(sim, "_laplacian", leaky if variant == "dirichlet" else real_lap):
        D, s0 = 0.5, 2.0
        sig0 = float(rng.uniform(1.8, 2.2))
        f = simulate("diffusion", grid=64, dx=0.5, D=D, sigma0=sig0, dt=0.1, steps=200, method="cn")
        var = f.variance()
        t = (f.n_frames - 1) * f.dt
        spread_err = float(np.max(np.abs((var[-1] - var[0]) / (2 * D * t) - 1)))
        mass = f.mass()
        mass_err = float(np.max(np.abs(mass / mass[0] - 1)))
        mx = f.c.reshape(f.n_frames, -1).max(1)
        max_incr = float(np.max(np.diff(mx)))
        # FTCS above the 2-D bound 1/4
        c0 = f.c[0]
        ft = solve_diffusion(c0, D, 0.5, 0.3 * 0.25 / D, 200, method="ftcs")
        blew = float(np.nanmax(np.abs(ft.c[-1])) / c0.max())
        # convergence order, 1-D, against the analytic Gaussian (free space; walls 10 sigma away)
        errs = []
        for dx in (0.2, 0.1, 0.05):
            x = (np.arange(int(round(20 / dx))) + 0.5) * dx
            g0 = np.exp(-(x - 10) ** 2 / 2) / math.sqrt(2 * math.pi)
            sol = solve_diffusion(g0, 1.0, dx, dx, int(round(1.0 / dx)), method="cn")
            exact = np.exp(-(x - 10) ** 2 / (2 * 3.0)) / math.sqrt(2 * math.pi * 3.0)
            errs.append(math.sqrt(np.sum((sol.c[-1] - exact) ** 2) * dx))
    orders = [math.log2(errs[0] / errs[1]), math.log2(errs[1] / errs[2])]
    crit = [Criterion("max_axis |(sigma^2(t) - sigma_0^2)/(2 D t) - 1|", spread_err, 0.02, "<="),
            Criterion("max_t |mass(t)/mass(0) - 1|", mass_err, 1e-10, "<="),
            Criterion("largest increase of max c between steps", max_incr, 1e-12, "<="),
            Criterion("FTCS flagged unstable at D dt/dx^2 = 0.3 (1 = yes)", float(not ft.stable), 0.5, ">"),
            Criterion("FTCS |c| growth factor after 200 steps", blew, 10.0, ">"),
            Criterion("observed order of accuracy (finest pair)", orders[1], (1.8, 2.2), "in")]
    return CheckResult(criteria=crit, table=[{"sigma0": sig0, "spread_err": spread_err, "mass_err": mass_err,
                                               "l2_errors": errs, "orders": orders, "ftcs_growth": blew}],
                       details="64^2 grid, dx = 0.5 um, 200 steps of 0.1 s; order from dx = 0.2, 0.1, 0.05 with dt = dx "
                               "(both second order). Broken variant: 'dirichlet' (absorbing walls).")


# --------------------------------------------------------------------------------------------------- 6
@check(method="microsim", paper=PAPER, budget=2,
       guarantee="6: chemotaxis -- Langevin drift in a linear attractant equals chi grad c within 5 % (and 4 SE); "
                 "run-and-tumble with beta = 0 has D_eff = v^2/(d lambda) within 10 % and zero drift (|z| < 4); "
                 "with beta > 0 the chemotactic index is positive (one-sided z > 2.33, p < 0.01)")
def m6_chemotaxis(profile, rng, variant=None):
    from iclr26sci.microsim import msd, simulate

    lv = simulate("chemotaxis", mode="langevin", n_particles=500, D=0.5, chi=1.0, gradient=(1.0, 0.0), dt=0.05,
                  steps=400, variant="no_drift" if variant == "no_drift" else None, rng=_seed(rng))
    disp = (lv.positions[-1] - lv.positions[0]) / (lv.dt * (lv.n_frames - 1))
    v_hat, v_se = float(disp[:, 0].mean()), float(disp[:, 0].std(ddof=1) / math.sqrt(disp.shape[0]))
    v_th = lv.truth["drift"][0]
    lam, sp = 1.0, 20.0
    rt = simulate("chemotaxis", mode="run_tumble", n_particles=400, speed=sp, tumble_rate=lam, beta=0.0,
                  gradient=(0.2, 0.0), dt=0.05, steps=profile.pick(400, 800), rng=_seed(rng))
    lags, m, _ = msd(rt, max_lag=200)
    shape = 4 * (lags - (1 - np.exp(-lam * lags)) / lam)
    D_eff = float(shape @ m / (shape @ shape))
    D_th = sp ** 2 / (2 * lam)
    d0 = (rt.positions[-1] - rt.positions[0])[:, 0]
    z0 = float(d0.mean() / (d0.std(ddof=1) / math.sqrt(d0.size)))
    rb = simulate("chemotaxis", mode="run_tumble", n_particles=400, speed=sp, tumble_rate=lam, beta=0.1,
                  gradient=(0.2, 0.0), dt=0.05, steps=400, rng=_seed(rng))
    T = rb.dt * (rb.n_frames - 1)
    ci = (rb.positions[-1] - rb.positions[0])[:, 0] / (sp * T)
    z_ci = float(ci.mean() / (ci.std(ddof=1) / math.sqrt(ci.size)))
    crit = [Criterion("|v_hat / (chi grad c) - 1|", abs(v_hat / v_th - 1), 0.05, "<="),
            Criterion("|v_hat - chi grad c| / SE", abs(v_hat - v_th) / v_se, 4.0, "<="),
            Criterion("|D_eff_hat / (v^2/(d lambda)) - 1|", abs(D_eff / D_th - 1), 0.10, "<="),
            Criterion("|drift z| at beta = 0", abs(z0), 4.0, "<"),
            Criterion("chemotactic index z at beta = 0.1", z_ci, 2.33, ">")]
    return CheckResult(criteria=crit, table=[{"v_hat": v_hat, "v_theory": v_th, "D_eff_hat": D_eff,
                                               "D_eff_theory": D_th, "CI_mean": float(ci.mean()), "CI_z": z_ci}],
                       details="Langevin: 500 particles x 20 s; run-and-tumble: v = 20 um/s, lambda = 1/s, MSD fitted "
                               "with the exact 2 v^2/lambda (tau - (1 - e^{-lambda tau})/lambda) shape up to 10 s. "
                               "Broken variant: 'no_drift' (the chemotactic drift term dropped).")


# --------------------------------------------------------------------------------------------------- 7
@check(method="microsim", paper=PAPER, budget=1,
       guarantee="7: cell division -- the slope of log N(t) (N >= 2000) equals the Euler-Lotka rate "
                 "r = (2^{1/kappa} - 1)/theta for Gamma(kappa, theta) cycle times within 3 % (ln 2 / T for "
                 "deterministic T); volume is conserved at every division; under the adder the mean birth size "
                 "tends to Delta (within 3 %)")
def m7_cell_division(profile, rng, variant=None):
    from iclr26sci.microsim import growth_rate, simulate

    n_max = profile.pick(16000, 64000)
    col = simulate("division", shape=4.0, mean_cycle=1.0, n_max=n_max, variant=variant, rng=_seed(rng))
    fit = growth_rate(col.times, col.counts, min_count=2000)
    det = simulate("division", deterministic=True, mean_cycle=1.0, n0=50, n_max=n_max, rng=_seed(rng))
    fd = growth_rate(det.times, det.counts, min_count=2000)
    ad = simulate("division", adder=1.0, growth_rate=math.log(2), adder_cv=0.1, n0=10, n_max=4000, rng=_seed(rng))
    mb = float(np.mean(ad.birth_sizes[-2000:]))
    r = col.truth["r"]
    crit = [Criterion("|slope / r_EL - 1| (Gamma kappa = 4)", abs(fit.rate / r - 1), 0.03, "<="),
            Criterion("|slope / (ln 2/T) - 1| (deterministic)", abs(fd.rate / math.log(2) - 1), 0.03, "<="),
            Criterion("max relative volume error at division", max(col.volume_error, det.volume_error), 1e-12, "<="),
            Criterion("|mean birth size / Delta - 1| (adder)", abs(mb - 1.0), 0.03, "<=")]
    return CheckResult(criteria=crit, table=[{"r_EL": r, "slope": fit.rate, "slope_det": fd.rate,
                                               "mean_birth_adder": mb}],
                       details="Bellman-Harris, symmetric fission, one founder (50 asynchronous founders for the "
                               "deterministic case, whose single-founder curve is a staircase). Broken variant: "
                               "'exponential' (cycle times exponential, ignoring the Gamma shape: slope 1 vs 0.757).")


# --------------------------------------------------------------------------------------------------- 8
@check(method="microsim", paper=PAPER, budget=1,
       guarantee="8: Poiseuille flow -- the binned mean tracer velocity against the transverse coordinate fits a "
                 "parabola with R^2 > 0.99, u_max within 5 % and the half-width within 5 %; the Reynolds number "
                 "rho u L / eta is far below 1 (< 1e-3)")
def m8_poiseuille(profile, rng, variant=None):
    from iclr26sci.microsim import simulate, velocity_profile

    tr = simulate("poiseuille", n_particles=400, u_max=5.0, radius=10.0, D=0.05, dt=0.05, steps=200, variant=variant,
                  rng=_seed(rng))
    p = velocity_profile(tr, n_bins=20)
    R = tr.truth["radius"]
    crit = [Criterion("R^2 of the parabola fit", p.r_squared, 0.99, ">"),
            Criterion("|u_max_hat / u_max - 1|", abs(p.u_max / tr.truth["u_max"] - 1) if np.isfinite(p.u_max) else
                      float("nan"), 0.05, "<="),
            Criterion("|R_hat / R - 1|", abs(p.half_width / R - 1) if np.isfinite(p.half_width) else float("nan"),
                      0.05, "<="),
            Criterion("Reynolds number", p.reynolds if np.isfinite(p.reynolds) else tr.truth["reynolds"], 1e-3, "<")]
    return CheckResult(criteria=crit, table=[{"u_max_hat": p.u_max, "R_hat": p.half_width, "R2": p.r_squared,
                                               "Re": tr.truth["reynolds"]}],
                       details="Slit channel of half-width 10 um, reflecting walls, 400 tracers x 200 steps. Broken "
                               "variant: 'plug' (uniform velocity across the channel).")


# --------------------------------------------------------------------------------------------------- 9
def _violation_video(kind, g, *, steps=80, size=128):
    """A sparse field (8-20 spots in 128^2 px) of Brownian particles, or one with a planted violation."""
    from iclr26sci.microsim import render, simulate

    n = int(g.integers(8, 21))
    D = float(g.uniform(0.2, 0.6))
    seed = int(g.integers(0, 2 ** 31 - 1))
    L = size * 0.1
    dt = 0.05
    if kind == "ballistic":
        tr = simulate("brownian", n_particles=n, D=0.02, dt=dt, steps=steps, box=(L, L), rng=seed)
        ang = g.uniform(0, 2 * np.pi, n)
        v = float(g.uniform(1.0, 3.0)) * np.stack([np.cos(ang), np.sin(ang)], 1)
        tr.positions = tr.positions + np.arange(steps + 1)[:, None, None] * dt * v[None]
    else:
        tr = simulate("brownian", n_particles=n, D=D, dt=dt, steps=steps, box=(L, L), rng=seed)
    if kind == "teleport":  # 3 % of steps jump 8-12 step standard deviations in a random direction
        P = tr.positions.copy()
        hit = g.random((steps, n)) < 0.03
        ang = g.uniform(0, 2 * np.pi, (steps, n))
        size_ = g.uniform(8, 12, (steps, n)) * math.sqrt(2 * D * dt)
        jumps = size_[..., None] * np.stack([np.cos(ang), np.sin(ang)], -1)
        P[1:] += np.cumsum(np.where(hit[..., None], jumps, 0.0), axis=0)
        tr.positions = P
    v = render(tr, psf_sigma=1.5, snr=float(g.uniform(8, 15)), shape=(size, size), rng=seed)
    fr = v.frames.copy()
    if kind == "frozen":
        start = int(g.integers(5, steps // 2))
        fr[start:start + steps // 3] = fr[start]
    if kind == "flicker":
        k = g.choice(np.arange(5, steps - 5), size=2, replace=False)
        fr[k] = np.clip(fr[k].astype(float) * float(g.uniform(1.4, 1.8)) + 10, 0, 255).astype(np.uint8)
    v.frames = fr
    return v


def _still_video(img, g, n_frames=20, size=128):
    """A real still microscopy image imaged n_frames times with fresh camera noise (a static specimen)."""
    from iclr26sci.microsim import Video

    H, W = img.shape[:2]
    y0, x0 = int(g.integers(0, H - size)), int(g.integers(0, W - size))
    crop = img[y0:y0 + size, x0:x0 + size]
    base = 20 + 200 * crop
    fr = base[None] + 4.0 * g.standard_normal((n_frames, size, size))
    return Video(np.clip(np.rint(fr), 0, 255).astype(np.uint8), 0.05, 0.1, {"psf_sigma": 1.5})


@check(method="microsim", paper=PAPER, budget=15,
       guarantee="9: physics-violation detection over random parameters -- ballistic motion, teleporting jumps, "
                 "frozen frames and flicker are each flagged in >= 75 % of trials; clean Brownian videos and real "
                 "still microscopy (stardist nuclei, scikit-image cell) with camera noise raise a false alarm in "
                 "<= 25 % of trials")
def m9_violation_detection(profile, rng, variant=None):
    from data_adapters.microscopy import load_cell_image, load_stardist_nuclei
    from iclr26sci.microsim import physics_flags

    n = profile.pick(8, 24)
    kw = {"jump_z": 1e9, "orphan_rate": 1e9} if variant == "blind_jumps" else {}
    flag_of = {"ballistic": "ballistic", "teleport": "teleport", "frozen": "frozen", "flicker": "flicker"}
    rates, table = {}, []
    for kind in ["clean", *flag_of]:
        hits = 0
        for _ in range(n):
            fl = physics_flags(_violation_video(kind, rng), **kw)
            hit = bool(fl.violations) if kind == "clean" else getattr(fl, flag_of[kind])
            hits += hit
        rates[kind] = hits / n
        table.append({"video": kind, "flagged": hits, "trials": n})
    stills = [load_stardist_nuclei("2d").image, load_cell_image().image]
    fa = 0
    for i in range(n):
        fl = physics_flags(_still_video(stills[i % 2], rng), **kw)
        fa += bool(fl.violations)
    rates["real_still"] = fa / n
    table.append({"video": "real still (stardist/cell)", "flagged": fa, "trials": n})
    crit = [Criterion(f"detection rate: {k}", rates[k], 0.75, ">=") for k in flag_of]
    crit += [Criterion("false-alarm rate: clean Brownian", rates["clean"], 0.25, "<="),
             Criterion("false-alarm rate: real still microscopy", rates["real_still"], 0.25, "<=")]
    return CheckResult(criteria=crit, table=table,
                       details=f"{n} trials per kind, random D in [0.2, 0.6], 8-20 particles, SNR 8-15, 128^2 px x 81 "
                               "frames; teleports: 3 % of steps jump 8-12 step SDs. With 8 trials a detector of true power >= 0.95 falls below 6/8 with "
                               "probability < 0.6 %, and one with false-alarm rate <= 0.02 exceeds 2/8 with "
                               "probability < 1.1 %. Broken variant: 'blind_jumps' (no jump test).")


# --------------------------------------------------------------------------------------------------- 10
def _random_task(g, n_per_dim=5):
    from iclr26sci.microsim import Criterion as C, TaskRubric

    crits = {}
    for d in ("scientific", "visual", "instruction"):
        k = int(g.integers(2, n_per_dim + 1))
        signs = np.where(g.random(k) < 0.25, -1, 1)
        signs[0] = 1
        crits[d] = tuple(C(i + 1, f"c{i}", int(signs[i]), float(g.choice([0.5, 1.0, 1.5, 2.0]))) for i in range(k))
    return TaskRubric(int(g.integers(1, 10 ** 6)), "t", "r", crits)


@check(method="microsim", paper=PAPER, budget=1,
       guarantee="10: rubric-scoring algebra -- D, T in [0, 100]; T = 100 iff every positive point is met and no "
                 "penalty applies; T non-decreasing in positive bits and non-increasing in penalty bits; invariant "
                 "to scaling a task's weights; reproduces hand-computed scores; the released evaluator's two "
                 "defects (empty task text, dropped criteria) show under faithful_to_release and are corrected "
                 "otherwise")
def m10_rubric_algebra(profile, rng, variant=None):
    import dataclasses

    import iclr26sci.microsim._rubric as rub
    from iclr26sci.microsim import OracleJudge, Rubric, aggregate, build_prompt, score_verdicts, score_video

    real_raw, real_norm = rub._dimension_raw, rub._norm
    patches = {}
    if variant == "positional_scoring":  # the release's positional matching used in corrected mode
        patches["_dimension_raw"] = lambda bits, crit, faithful: real_raw(bits, crit, faithful=True)
    if variant == "no_clamp":
        patches["_norm"] = lambda raw, mx: 0.0 if mx <= 0 else raw / mx * 100.0
    viol = {"range": 0, "iff": 0, "monotone": 0, "scale": 0}
    n_cases = profile.pick(300, 2000)
    with mock.patch.multiple(rub, **patches) if patches else _null():
        for _ in range(n_cases):
            t = _random_task(rng)
            bits = {d: [int(b) for b in rng.random(len(t.criteria[d])) < 0.6] for d in t.criteria}
            s = score_verdicts(t, bits)
            vals = [s.total, *s.dimension_scores.values()]
            viol["range"] += any(not (0 <= v <= 100) for v in vals)
            perfect = all(b == int(c.positive) for d in t.criteria for b, c in zip(bits[d], t.criteria[d]))
            viol["iff"] += (abs(s.total - 100) < 1e-9) != perfect
            d = str(rng.choice(list(t.criteria)))
            i = int(rng.integers(len(t.criteria[d])))
            up = {k: list(v) for k, v in bits.items()}
            up[d][i] = 1
            dn = {k: list(v) for k, v in bits.items()}
            dn[d][i] = 0
            s_up, s_dn = score_verdicts(t, up), score_verdicts(t, dn)
            if t.criteria[d][i].positive:
                viol["monotone"] += s_up.total < s_dn.total - 1e-9
            else:
                viol["monotone"] += s_up.total > s_dn.total + 1e-9
            c = float(rng.uniform(0.1, 10))
            ts = dataclasses.replace(t, criteria={k: tuple(dataclasses.replace(x, weight=x.weight * c) for x in v)
                                                  for k, v in t.criteria.items()})
            s2 = score_verdicts(ts, bits)
            viol["scale"] += abs(s2.total - s.total) > 1e-9 or any(
                abs(s2.dimension_scores[k] - s.dimension_scores[k]) > 1e-9 for k in s.dimension_scores)
        # hand-computed: synthetic brownian_motion task, scientific bits [1,1,0,1,1] (penalty present):
        # raw = 1 + 1 + 0.5 - 1 = 1.5, max = 1 + 1 + 0.5 + 0.5 = 3 -> D = 50; visual [1,0,0,1,1]: raw 0.5 + 0.2 -
        # 0 = 0.7, max 1.4 -> 50; instruction [0,0,0,0,1]: raw -0.5, max 1.4 -> D = 0 (clamped);
        # T = 100 * (1.5 + 0.7 - 0.5) / (3 + 1.4 + 1.4) = 29.31...
        r = Rubric.example()
        t1 = r.task("brownian_motion")
        hand = score_verdicts(t1, {"scientific": [1, 1, 0, 1, 1], "visual": [1, 0, 0, 1, 1],
                                   "instruction": [0, 0, 0, 0, 1]})
        hand_err = max(abs(hand.dimension_scores["scientific"] - 50), abs(hand.dimension_scores["visual"] - 50),
                       abs(hand.dimension_scores["instruction"] - 0), abs(hand.total - 100 * 1.7 / 5.8))
        # task 6 numbers its instruction criteria 11..55: with the perfect oracle the corrected scorer gives 100
        t6 = r.task("laminar_flow")
        vid = np.zeros((16, 8, 8), np.uint8)
        corr = [score_video(vid, t, OracleJudge()) for t in r]
        faith = [score_video(vid, t, OracleJudge(), faithful_to_release=True) for t in r]
        # a VLM-like judge that always answers five bits: released positional matching drops 11..55
        five = lambda frames, req: [1, 1, 1, 1, 0]  # noqa: E731
        f6 = score_video(vid, t6, five, faithful_to_release=True)
        c6 = score_video(vid, t6, five)
        empty_release = build_prompt(t1, "scientific", faithful_to_release=True)[0]
        empty_fixed = build_prompt(t1, "scientific")[0]
        agg_c, agg_f = aggregate(corr), aggregate(faith, faithful_to_release=True)
    defect = {
        "corrected: all tasks valid and 100": float(all(s.valid and abs(s.total - 100) < 1e-9 for s in corr)),
        "released: task 6 invalid (no criteria shown)": float(not faith[5].valid),
        "released: 5-bit judge scores task 6 instruction 0 (dropped)": float(f6.dimension_scores["instruction"] == 0
                                                                             and f6.max["instruction"] == 0),
        "corrected: 5-bit judge scores task 6 instruction 100": float(abs(c6.dimension_scores["instruction"] - 100)
                                                                      < 1e-9),
        "released prompt has empty task text": float(t1.task not in empty_release),
        "corrected prompt carries the task text": float(t1.task in empty_fixed),
    }
    crit = [Criterion(f"cases violating {k} (of {n_cases})", v, 0, "<=") for k, v in viol.items()]
    crit.append(Criterion("|hand-computed - scored| (brownian_motion example)", hand_err, 1e-9, "<="))
    crit += [Criterion(k, v, 0.5, ">") for k, v in defect.items()]
    table = [{"mode": "corrected", "overall": agg_c.overall, "valid": agg_c.valid, "coverage": agg_c.coverage},
             {"mode": "faithful_to_release", "overall": agg_f.overall, "valid": agg_f.valid,
              "coverage": agg_f.coverage}]
    return CheckResult(criteria=crit, table=table,
                       details="Random rubrics (2-5 criteria per dimension, 25 % penalties, weights 0.5-2). The "
                               "release's coverage divides by a hard-coded 459. Broken variants: "
                               "'positional_scoring', 'no_clamp'.")


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


# --------------------------------------------------------------------------------------------------- claims
def _score_pairs(kinds, g, judge, *, steps, size):
    """Paired rubric totals (brownian_motion task): a faithful Brownian clip and a flawed clip per entry of kinds."""
    from iclr26sci.microsim import PhysicsJudge, RandomJudge, Rubric, score_video

    task = Rubric.example().task("brownian_motion")
    if judge == "physics":
        j = PhysicsJudge()
    elif judge == "random":
        j = RandomJudge(rng=int(g.integers(0, 2 ** 31 - 1)))
    elif judge == "constant":
        j = lambda frames, req: [1] * len(req.criteria)  # noqa: E731  (a judge that approves everything)
    else:
        raise ValueError(f"judge must be 'physics', 'random' or 'constant', got {judge!r}")
    good, bad = [], []
    for k in kinds:
        good.append(score_video(_violation_video("clean", g, steps=steps, size=size), task, j).total)
        bad.append(score_video(_violation_video(k, g, steps=steps, size=size), task, j).total)
    return np.asarray(good), np.asarray(bad)


def _quantised_effect(good, bad, min_effect, quantum, what):
    """Paired mean of good - bad; SE adds the score quantum's rounding variance quantum^2/12 (Sheppard), so that a
    judge that separates every pair identically still has a finite SE and power."""
    from .claims import Effect

    d = good - bad
    n = d.size
    se = math.sqrt((d.var(ddof=1) + quantum ** 2 / 12) / n)
    return Effect(estimate=float(d.mean()), se=se, min_effect=min_effect, direction="greater", df=n - 1, n=n,
                  what=what)


def _score_figure(kinds, gd, bd, gc, bc, judge, min_effect, rng):
    """MicroWorldBench total score T of faithful and flawed clips (bars: mean with 95% CI; dots: single clips)."""
    kinds = np.asarray(kinds)
    groups = [("faithful\n(claim pairs)", gd, "C0"), ("teleport", bd[kinds == "teleport"], "C3"),
              ("frozen", bd[kinds == "frozen"], "C1"), ("faithful\n(control)", gc, "C0"),
              ("ballistic\n(control)", bc, "grey")]
    fig, ax = subplots(figsize=(9, 4.4))
    jit = np.random.default_rng(int(rng.integers(2 ** 31)))
    for j, (lab, v, col) in enumerate(groups):
        v = np.asarray(v, float)
        se = v.std(ddof=1) / math.sqrt(len(v)) if len(v) > 1 else 0.0
        ax.bar(j, v.mean(), color=col, alpha=0.45, width=0.7)
        ax.errorbar(j, v.mean(), yerr=1.96 * se, fmt="none", ecolor="k", capsize=6)
        ax.plot(j + jit.uniform(-0.2, 0.2, len(v)), v, "o", color=col, ms=4, mec="k", mew=0.4)
    ax.axvline(2.5, color="grey", lw=0.8, ls=":")
    ax.set_xticks(range(len(groups)), [g[0] for g in groups])
    ax.set_ylabel("rubric total score T (0-100)")
    ax.set_ylim(0, 105)
    ax.set_title(f"MicroWorldBench brownian_motion task, judge = {judge} (mean, 95% CI; dots: clips); "
                 f"min effect {min_effect:.1f}", fontsize=11)
    return readable(fig)


def _claim_microsim(profile, rng, judge="physics", n_pairs=16, steps=40, size=96):
    from .claims import ClaimResult

    g = np.random.default_rng(_seed(rng))
    # smallest effect of interest: one weight-1 scientific criterion of the brownian_motion task, as a share of the
    # task's positive weight (5.8): 100 * 1 / 5.8 = 17.2 points of T
    min_effect = 100 * 1.0 / 5.8
    quantum = 100 * 0.2 / 5.8    # the smallest criterion weight (0.2) moves T by 3.45 points
    kinds = ["teleport", "frozen"] * (n_pairs // 2)
    gd, bd = _score_pairs(kinds, g, judge, steps=steps, size=size)
    eff = _quantised_effect(gd, bd, min_effect, quantum, "T(faithful) - T(flawed), paired, points of 100")
    n_ctrl = max(n_pairs // 2, 8)
    gc, bc = _score_pairs(["ballistic"] * n_ctrl, g, judge, steps=steps, size=size)
    ctrl = _quantised_effect(gc, bc, min_effect, quantum,
                             "T(faithful) - T(ballistic, 1-3 um/s straight lines), paired, points of 100")
    table = [{"pair set": "claim: teleport / frozen", "pairs": int(gd.size), "T faithful (mean)": float(gd.mean()),
              "T flawed (mean)": float(bd.mean()), "flawed scored below faithful": int((gd > bd).sum())},
             {"pair set": "control: ballistic", "pairs": int(gc.size), "T faithful (mean)": float(gc.mean()),
              "T flawed (mean)": float(bc.mean()), "flawed scored below faithful": int((gc > bc).sum())}]
    return ClaimResult(effect=eff, control=ctrl, table=table,
                       figure=_score_figure(kinds, gd, bd, gc, bc, judge, min_effect, g),
                       details=f"judge={judge}; brownian_motion task of the shipped synthetic rubric; {n_pairs} pairs "
                               f"(half 3 % teleporting jumps of 8-12 step SDs, half a frozen third of the clip), "
                               f"{n_ctrl} control pairs; {size}^2 px x {steps + 1} frames, 8-20 particles, D in "
                               "[0.2, 0.6] um^2/s, SNR 8-15. SE adds the score quantum (3.45 points) as rounding "
                               "variance. Broken variants: judge='random' (Bernoulli(0.5) verdicts), "
                               "judge='constant' (approves every criterion).")


from .claims import claim  # noqa: E402


@claim(method="microsim", name="c_judge_separates_flawed_physics",
       claim="MicroWorldBench's rubric exposes microscale videos that violate physical laws: scored by a judge that "
             "checks the physics, a physically flawed clip scores below a faithful one",
       paper=PAPER,
       paper_number="qualitative: state-of-the-art video models are marked down for physical-law violations and "
                    "temporal inconsistency at microscale (the paper's numeric tables were not available)",
       paper_setting="MicroWorldBench, 459 tasks, expert rubrics (scientific / visual / instruction), GPT-4o judge on "
                     "8 sampled frames",
       regime="The flawed clips carry defects that the rubric's scientific and instruction criteria name (teleporting "
              "jumps break 'Brownian, no discontinuities'; a frozen third triggers the frozen-video penalty) while "
              "every frame still shows plausible diffraction-limited beads, so a judge scores them down only if it "
              "measures the physics across frames.",
       control="A large planted defect: straight-line ballistic motion at 1-3 um/s (the rubric's penalty point) in "
               "place of the subtle teleport / frozen defects, same judge and pairing",
       test="one-sided paired t over video pairs (SE with the score quantum's rounding variance), alpha 0.05; "
            "min_effect 17.2 points = one weight-1 scientific criterion of the task",
       budget=20)
def c_judge_separates_flawed_physics(profile, rng, judge="physics"):
    return _claim_microsim(profile, rng, judge)
