"""Validation checks of the shared probabilistic primitives (iclr26sci.prob)."""
from __future__ import annotations

import numpy as np
from scipy import stats

from iclr26sci.prob import (
    DiscreteLaw,
    binomial_band,
    gdp_compose,
    gdp_delta,
    gdp_epsilon,
    gdp_mu_gaussian,
    truncated_normal_moments,
    wasserstein_distance,
    zcdp_epsilon,
)

from .registry import CheckResult, check

GDP_PAPER = "Dong, Roth & Su (2022) JRSS-B, arXiv:1905.02383; Balle & Wang (2018) arXiv:1805.06530"


def _random_law(rng, max_atoms=12, ties=False):
    m = int(rng.integers(1, max_atoms + 1))
    x = rng.normal(size=m) * rng.uniform(0.1, 5)
    if ties:
        x = np.round(x, 0)
    return x, rng.dirichlet(np.ones(m) * rng.uniform(0.2, 3))


@check(method="prob", paper="Villani (2009), Remark 2.19",
       guarantee="The exact 1-Wasserstein distance between discrete laws on the line agrees with two "
                 "independent implementations (scipy's CDF integral and POT's network-simplex transport) "
                 "to floating-point accuracy")
def w1_agrees_with_scipy_and_pot(profile, rng):
    import ot

    n_cases = profile.pick(300, 3000)
    rows, worst = [], 0.0
    for i in range(n_cases):
        x, a = _random_law(rng, ties=bool(i % 3 == 0))
        y, b = _random_law(rng, ties=bool(i % 3 == 0))
        ours = wasserstein_distance(x, y, a, b)
        sp = stats.wasserstein_distance(x, y, a, b)
        pot = float(ot.emd2(a, b, np.abs(x[:, None] - y[None, :])))
        scale = 1.0 + max(abs(x).max(), abs(y).max())
        err = max(abs(ours - sp), abs(ours - pot)) / scale
        worst = max(worst, err)
        if i < 8:
            rows.append({"case": i, "atoms": f"{x.size}x{y.size}", "ours": ours, "scipy": sp, "POT": pot})
    # both references are exact algorithms; only rounding separates them: a few ulps times the problem size
    thr = 1e-10
    return CheckResult(statistic=worst, threshold=thr, comparison="<=", table=rows,
                       details=f"{n_cases} random pairs of laws (1-12 atoms, a third with tied atoms); statistic "
                               "is the largest disagreement relative to (1 + largest |atom|). Exact algorithms "
                               "differ only by floating-point rounding, hence the 1e-10 threshold.")


@check(method="prob", paper="Villani (2009), Remark 2.19",
       guarantee="The exact p-Wasserstein distance (p = 2, 3) equals the optimal-transport value from a "
                 "linear program (POT), and W_p satisfies symmetry and the triangle inequality")
def wp_agrees_with_transport_lp(profile, rng):
    import ot

    n_cases = profile.pick(200, 2000)
    worst, tri_viol, sym = 0.0, 0.0, 0.0
    rows = []
    for i in range(n_cases):
        p = 2 if i % 2 == 0 else 3
        (x, a), (y, b), (z, c) = (_random_law(rng) for _ in range(3))
        ours = wasserstein_distance(x, y, a, b, p=p)
        ref = float(ot.emd2(a, b, np.abs(x[:, None] - y[None, :]) ** p)) ** (1 / p)
        worst = max(worst, abs(ours - ref) / (1 + ref))
        sym = max(sym, abs(ours - wasserstein_distance(y, x, b, a, p=p)))
        tri = ours - wasserstein_distance(x, z, a, c, p=p) - wasserstein_distance(z, y, c, b, p=p)
        tri_viol = max(tri_viol, tri)
        if i < 6:
            rows.append({"case": i, "p": p, "ours": ours, "POT LP": ref})
    stat = max(worst, sym, tri_viol)
    return CheckResult(statistic=stat, threshold=1e-8, comparison="<=", table=rows,
                       details="statistic = max(relative gap to the LP optimum, asymmetry, triangle-inequality "
                               "violation) over the cases; the LP is solved to ~1e-9 relative accuracy.")


def _mc_delta(mus, eps, n, rng):
    # privacy loss of the composed Gaussian mechanisms under the null: L = sum_i (mu_i Z_i + mu_i^2 / 2)
    mus = np.asarray(mus, float)
    L = rng.standard_normal((n, mus.size)) @ mus + 0.5 * np.sum(mus ** 2)
    g = np.clip(1.0 - np.exp(eps - L), 0.0, None)
    return g.mean(), g.std(ddof=1) / np.sqrt(n)


@check(method="prob", paper=GDP_PAPER,
       guarantee="The Gaussian-DP privacy profile delta(epsilon) of composed Gaussian mechanisms equals the "
                 "Monte-Carlo expectation E[(1 - exp(epsilon - L))_+] of the privacy-loss variable L, "
                 "so composition by sqrt(sum mu_i^2) is exact")
def gdp_profile_matches_privacy_loss_mc(profile, rng):
    n = profile.pick(400_000, 4_000_000)
    cases = [([1.0], 0.5), ([1.0], 2.0), ([0.3] * 10, 1.0), ([0.5, 1.0, 0.2], 1.5), ([2.0], 3.0),
             (list(np.full(50, 0.1)), 0.3)]
    rows, zs = [], []
    for mus, eps in cases:
        exact = gdp_delta(gdp_compose(mus), eps)
        est, se = _mc_delta(mus, eps, n, rng)
        z = (est - exact) / se
        zs.append(abs(z))
        rows.append({"mechanisms": len(mus), "mu": gdp_compose(mus), "epsilon": eps, "delta exact": exact,
                     "delta MC": est, "MC se": se, "z": z})
    thr = float(stats.norm.ppf(1 - 0.001 / (2 * len(cases))))
    return CheckResult(statistic=max(zs), threshold=thr, comparison="<=", table=rows,
                       details=f"{n} Monte-Carlo draws per case; threshold is the two-sided Bonferroni z for a "
                               f"family-wise false-alarm rate of 0.001 over {len(cases)} cases.")


@check(method="prob", paper=GDP_PAPER + "; Bun & Steinke (2016) arXiv:1605.02065",
       guarantee="The tight GDP conversion never reports a larger epsilon than the zCDP bound, and "
                 "epsilon(delta) inverts delta(epsilon)")
def gdp_tighter_than_zcdp_and_inverts(profile, rng):
    rows, worst_gap, worst_inv = [], np.inf, 0.0
    for sigma in (0.5, 1.0, 2.0, 5.0, 20.0):
        for k in (1, 10, 100):
            for delta in (1e-3, 1e-5, 1e-8):
                mu = gdp_compose([gdp_mu_gaussian(1.0, sigma)] * k)
                e_g = gdp_epsilon(mu, delta)
                e_z = zcdp_epsilon(mu ** 2 / 2, delta)
                worst_gap = min(worst_gap, e_z - e_g)
                if e_g > 0:
                    worst_inv = max(worst_inv, abs(gdp_delta(mu, e_g) - delta) / delta)
                if delta == 1e-5:
                    rows.append({"sigma": sigma, "compositions": k, "eps GDP": e_g, "eps zCDP": e_z})
    stat = -worst_gap if worst_inv < 1e-6 else np.inf
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.2))
    ks = np.unique(np.logspace(0, 3, 25).astype(int))
    for sigma in (2.0, 10.0):
        mus = np.sqrt(ks) / sigma
        ax.plot(ks, [gdp_epsilon(m, 1e-5) for m in mus], label=f"GDP (tight), sigma={sigma:g}")
        ax.plot(ks, [zcdp_epsilon(m ** 2 / 2, 1e-5) for m in mus], "--", label=f"zCDP bound, sigma={sigma:g}")
    ax.set(xscale="log", yscale="log", xlabel="compositions k", ylabel="epsilon at delta = 1e-5")
    ax.legend(fontsize=7)
    return CheckResult(statistic=stat, threshold=0.0, comparison="<=", table=rows, figure=fig,
                       details="statistic = -min(eps_zCDP - eps_GDP) (must be <= 0), set to inf if the "
                               "inversion error |delta(eps(delta)) - delta|/delta exceeds 1e-6 "
                               f"(measured {worst_inv:.2e}).")


@check(method="prob", paper="exact binomial test (Clopper & Pearson 1934)",
       guarantee="A coverage check that uses binomial_band raises a false alarm no more often than its "
                 "nominal false-alarm rate when the procedure has exactly nominal coverage")
def binomial_band_calibration(profile, rng):
    reps = profile.pick(20_000, 200_000)
    rows, worst = [], -np.inf
    fa = 0.01
    for nominal in (0.5, 0.9, 0.95, 0.99):
        for n in (50, 200, 1000):
            lo, hi = binomial_band(nominal, n, fa)
            k = rng.binomial(n, nominal, size=reps) / n
            rate = float(np.mean((k < lo) | (k > hi)))
            # exact false-alarm probability of the band, from the binomial law
            exact = float(stats.binom.cdf(np.ceil(lo * n) - 1, n, nominal) + stats.binom.sf(np.floor(hi * n), n, nominal))
            upper = stats.binom.ppf(1 - 1e-4, reps, fa) / reps
            worst = max(worst, rate - upper)
            rows.append({"nominal": nominal, "n": n, "band": f"[{lo:.3f}, {hi:.3f}]", "false alarms": rate,
                         "exact": exact, "allowed": upper})
    return CheckResult(statistic=worst, threshold=0.0, comparison="<=", table=rows,
                       details=f"{reps} simulated coverage experiments per row at exactly nominal coverage; "
                               "allowed = 99.99% binomial upper quantile of the false-alarm count at rate 0.01. "
                               "Statistic = max(observed - allowed) over rows.")


@check(method="prob", paper="Johnson, Kotz & Balakrishnan (1994), Ch. 13",
       guarantee="Truncated-normal mean and variance agree with scipy.stats.truncnorm, including far tails")
def truncated_normal_vs_scipy(profile, rng):
    m = profile.pick(2000, 20000)
    mu = rng.normal(size=m)
    sigma = rng.uniform(0.2, 3, size=m)
    a = mu + sigma * rng.uniform(-8, 8, size=m)
    width = sigma * rng.exponential(2, size=m)
    b = np.where(rng.random(m) < 0.3, np.inf, a + width + 1e-3)
    a = np.where(rng.random(m) < 0.2, -np.inf, a)
    mean, var = truncated_normal_moments(mu, sigma, a, b)
    ref = stats.truncnorm((a - mu) / sigma, (b - mu) / sigma, loc=mu, scale=sigma)
    rm, rv = ref.mean(), ref.var()
    ok = np.isfinite(rm) & np.isfinite(rv)
    err = np.max(np.abs(mean[ok] - rm[ok]) / sigma[ok] + np.abs(var[ok] - rv[ok]) / sigma[ok] ** 2)
    rows = [{"mu": mu[i], "sigma": sigma[i], "a": a[i], "b": b[i], "mean": mean[i], "scipy mean": rm[i]}
            for i in range(5)]
    return CheckResult(statistic=float(err), threshold=1e-6, comparison="<=", table=rows,
                       details=f"{int(ok.sum())} random intervals (truncation points up to 8 sd into the tails); "
                               "errors in units of sigma (mean) and sigma^2 (variance).")


@check(method="prob", paper="Acerbi & Tasche (2002) J. Banking & Finance",
       guarantee="DiscreteLaw's CVaR is the average of the lowest alpha-fraction of mass, and "
                 "|CVaR_alpha(P) - CVaR_alpha(Q)| <= W1(P, Q) / alpha")
def cvar_lipschitz_in_w1(profile, rng):
    n_cases = profile.pick(500, 5000)
    worst = -np.inf
    for _ in range(n_cases):
        (x, a), (y, b) = _random_law(rng), _random_law(rng)
        P, Q = DiscreteLaw(x, a), DiscreteLaw(y, b)
        alpha = float(rng.uniform(0.05, 1.0))
        gap = abs(P.cvar(alpha) - Q.cvar(alpha)) - P.wasserstein(Q) / alpha
        worst = max(worst, gap)
    # also compare CVaR with a large-sample average of the lowest alpha-fraction
    x, a = _random_law(rng)
    P = DiscreteLaw(x, a)
    s = np.sort(P.sample(400_000, rng))
    emp = s[: int(0.2 * s.size)].mean()
    se = s[: int(0.2 * s.size)].std() / np.sqrt(0.2 * s.size)
    ok_mc = abs(emp - P.cvar(0.2)) <= 5 * se + 1e-12
    stat = worst if ok_mc else np.inf
    return CheckResult(statistic=stat, threshold=1e-10, comparison="<=",
                       table=[{"CVaR_0.2 exact": P.cvar(0.2), "CVaR_0.2 sample": emp, "sample se": se}],
                       details="statistic = max over random pairs of |dCVaR| - W1/alpha (must be <= 0 up to "
                               "rounding), set to inf if the 400k-sample CVaR differs by more than 5 SE.")
