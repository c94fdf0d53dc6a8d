"""Validation checks of the shared probabilistic primitives (iclr26sci.prob).

Each check names, in its ``details``, the broken implementation it catches;
tests/prob/test_prob_validation_power.py runs those broken variants and shows the checks fail.
"""
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

from ._figstyle import readable
from .registry import CheckResult, Criterion, check

GDP_PAPER = "Dong, Roth & Su (2022) JRSS-B, arXiv:1905.02383; Balle & Wang (2018) arXiv:1805.06530"


def _random_law(rng, max_atoms=12, ties=False):
    m = int(rng.integers(1, max_atoms + 1))
    x = rng.normal(size=m) * rng.uniform(0.1, 5)
    if ties:
        x = np.round(x, 0)
    return x, rng.dirichlet(np.ones(m) * rng.uniform(0.2, 3))


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@check(method="prob", paper="Villani (2009), Remark 2.19", budget=5,
       guarantee="The exact 1-Wasserstein distance between discrete laws on the line agrees with two "
                 "independent implementations (scipy's CDF integral and POT's network-simplex transport) "
                 "to floating-point accuracy, and stays exact (no overflow) for atoms near 1e200")
def w1_agrees_with_scipy_and_pot(profile, rng):
    import ot

    n_cases = profile.pick(300, 3000)
    rows, err_sp, err_pot, err_scale = [], 0.0, 0.0, 0.0
    for i in range(n_cases):
        x, a = _random_law(rng, ties=bool(i % 3 == 0))
        y, b = _random_law(rng, ties=bool(i % 3 == 0))
        ours = wasserstein_distance(x, y, a, b)
        sp = stats.wasserstein_distance(x, y, a, b)
        pot = float(ot.emd2(a, b, np.abs(x[:, None] - y[None, :])))
        scale = 1.0 + max(abs(x).max(), abs(y).max())
        err_sp = max(err_sp, abs(ours - sp) / scale)
        err_pot = max(err_pot, abs(ours - pot) / scale)
        if i % 10 == 0:   # positive homogeneity W(s x, s y) = s W(x, y) at s = 1e200 (differences would overflow)
            for p in (1.0, 2.0):
                big = wasserstein_distance(1e200 * x, 1e200 * y, a, b, p=p)
                ref = wasserstein_distance(x, y, a, b, p=p)
                err_scale = max(err_scale, abs(big / 1e200 - ref) / (1.0 + ref) if np.isfinite(big) else np.inf)
        if i < 8:
            rows.append({"case": i, "atoms": f"{x.size}x{y.size}", "ours": ours, "scipy": sp, "POT": pot})
    # both references are exact algorithms; only rounding separates them: a few ulps times the problem size
    thr = 1e-10
    crit = [Criterion("max |W1 - scipy| / (1 + max|atom|)", err_sp, thr, "<="),
            Criterion("max |W1 - POT| / (1 + max|atom|)", err_pot, thr, "<="),
            Criterion("max rel. error of W_p(1e200 x, 1e200 y) / 1e200", err_scale, thr, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"{n_cases} random pairs of laws (1-12 atoms, a third with tied atoms). Exact "
                               "algorithms differ only by floating-point rounding, hence the 1e-10 thresholds. "
                               "Catches: an off-by-one CDF/quantile index (F evaluated at the right end of each "
                               "interval), mishandled ties, unnormalised weights, and |x - y|**p computed "
                               "without rescaling (inf at 1e200).")


@check(method="prob", paper="Villani (2009), Remark 2.19", budget=2,
       guarantee="The exact p-Wasserstein distance (p = 2, 3) equals the optimal-transport value from a "
                 "linear program (POT), and W_p satisfies symmetry and the triangle inequality")
def wp_agrees_with_transport_lp(profile, rng):
    import ot

    n_cases = profile.pick(200, 2000)
    worst, tri_viol, sym = 0.0, -np.inf, 0.0
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
    crit = [Criterion("max |W_p - LP optimum| / (1 + LP)", worst, 1e-8, "<="),
            Criterion("max asymmetry |W_p(P,Q) - W_p(Q,P)|", sym, 1e-12, "<="),
            Criterion("max triangle excess W(P,Q) - W(P,R) - W(R,Q)", tri_viol, 1e-10, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details="the network-simplex LP is exact up to ~1e-9 relative accuracy; symmetry and the "
                               "triangle inequality hold exactly, up to rounding. Catches: quantiles read at "
                               "the level ends instead of interval midpoints (an off-by-one quantile), a "
                               "missing 1/p root, or a p-th power applied to the CDF difference (the W1 formula "
                               "reused for p > 1).")


def _mc_delta(mus, eps, n, rng):
    # privacy loss of the composed Gaussian mechanisms under the null: L = sum_i (mu_i Z_i + mu_i^2 / 2)
    mus = np.asarray(mus, float)
    L = rng.standard_normal((n, mus.size)) @ mus + 0.5 * np.sum(mus ** 2)
    g = np.clip(1.0 - np.exp(eps - L), 0.0, None)
    return g.mean(), g.std(ddof=1) / np.sqrt(n)


@check(method="prob", paper=GDP_PAPER, budget=4,
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
    plt = _plt()
    fig, ax = plt.subplots(figsize=(11, 4.2))
    idx = np.arange(len(rows))
    rel = [(r["delta MC"] - r["delta exact"]) / r["delta exact"] for r in rows]
    ax.errorbar(idx, rel, yerr=[thr * r["MC se"] / r["delta exact"] for r in rows], fmt="o", capsize=3,
                label=f"Monte Carlo (n={n:,}), bars +-{thr:.2f} SE (the check's band)")
    ax.axhline(0.0, color="C3", ls="--", label="exact GDP profile")
    ax.set_xticks(idx, [f"k={r['mechanisms']}\neps={r['epsilon']:g}" for r in rows], fontsize=7)
    ax.set(xlabel="case (number of composed mechanisms k, epsilon)",
           ylabel="(delta_MC - delta_exact) / delta_exact")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    readable(fig)
    return CheckResult(statistic=max(zs), threshold=thr, comparison="<=", table=rows, figure=fig,
                       details=f"{n} Monte-Carlo draws per case; threshold is the two-sided Bonferroni z for a "
                               f"family-wise false-alarm rate of 0.001 over {len(cases)} cases. Catches: a sign "
                               "error in the profile (Phi(a) + e^eps Phi(b)), mu and eps swapped, and "
                               "composition by sum(mu_i) instead of sqrt(sum mu_i^2) (z > 100 for each).")


def _delta_by_quadrature(mu, eps):
    """delta(eps) = E[(1 - exp(eps - L))_+], L ~ N(mu^2/2, mu^2), by adaptive quadrature (independent of the closed form)."""
    from scipy.integrate import quad

    if mu == 0:
        return 0.0
    m, s = mu * mu / 2.0, mu
    f = lambda t: -np.expm1(eps - t) * stats.norm.pdf(t, m, s)   # noqa: E731
    lo = max(eps, m - 40 * s)
    val, _ = quad(f, lo, max(lo, m) + 40 * s, epsabs=0.0, epsrel=1e-12, limit=500, points=[max(lo, m)])
    return float(val)


@check(method="prob", paper=GDP_PAPER + "; Bun & Steinke (2016) arXiv:1605.02065", budget=3,
       guarantee="The tight GDP conversion never reports a larger epsilon than the zCDP bound, epsilon(delta) "
                 "inverts delta(epsilon), and the profile equals an independent quadrature of the privacy-loss "
                 "integral")
def gdp_tighter_than_zcdp_and_inverts(profile, rng):
    rows, worst_gap, worst_inv, worst_quad = [], np.inf, 0.0, 0.0
    for sigma in (0.5, 1.0, 2.0, 5.0, 20.0):
        for k in (1, 10, 100):
            for delta in (1e-3, 1e-5, 1e-8):
                mu = gdp_compose([gdp_mu_gaussian(1.0, sigma)] * k)
                e_g = gdp_epsilon(mu, delta)
                e_z = zcdp_epsilon(mu ** 2 / 2, delta)
                worst_gap = min(worst_gap, e_z - e_g)
                # the inversion: delta(eps(delta)) = delta when eps > 0; eps = 0 only if delta(0) <= delta
                inv = abs(gdp_delta(mu, e_g) - delta) / delta if e_g > 0 else max(0.0, gdp_delta(mu, 0.0) - delta) / delta
                worst_inv = max(worst_inv, inv)
                # an independent reference: the privacy-loss integral by quadrature, at the reported epsilon
                q = _delta_by_quadrature(mu, e_g)
                worst_quad = max(worst_quad, abs(q - gdp_delta(mu, e_g)) / max(delta, gdp_delta(mu, e_g)))
                if delta == 1e-5:
                    rows.append({"sigma": sigma, "compositions": k, "mu": mu, "eps GDP": e_g, "eps zCDP": e_z,
                                 "delta(eps GDP) by quadrature": q})
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ks = np.unique(np.logspace(0, 3, 25).astype(int))
    for j, sigma in enumerate((2.0, 10.0)):
        mus = np.sqrt(ks) / sigma
        ax.plot(ks, [gdp_epsilon(m, 1e-5) for m in mus], "-", color=f"C{j}", label=f"GDP (tight), sigma={sigma:g}")
        ax.plot(ks, [zcdp_epsilon(m ** 2 / 2, 1e-5) for m in mus], "--", color=f"C{j}",
                label=f"zCDP bound, sigma={sigma:g}")
    ax.set(xscale="log", yscale="log", xlabel="number of composed Gaussian releases k",
           ylabel="epsilon at delta = 1e-5 (nats)")
    ax.legend(fontsize=7)
    readable(fig)
    crit = [Criterion("max (eps_GDP - eps_zCDP)", -worst_gap, 0.0, "<="),
            Criterion("max |delta(eps(delta)) - delta| / delta", worst_inv, 1e-6, "<="),
            Criterion("max |closed form - quadrature| / delta", worst_quad, 1e-6, "<=")]
    return CheckResult(criteria=crit, table=rows, figure=fig,
                       details="45 settings (sigma x compositions x delta), deterministic. The quadrature "
                               "(scipy.integrate.quad, relative tolerance 1e-12) evaluates E[(1 - e^(eps - L))_+] "
                               "without the closed form, so 1e-6 leaves six orders of margin. Catches: a profile "
                               "with a sign error (quadrature and inversion criteria), an epsilon that is too "
                               "small or always 0 (inversion), a loose root finder (inversion), and a zCDP "
                               "conversion tighter than the exact profile (first criterion).")


@check(method="prob", paper="exact binomial test (Clopper & Pearson 1934)", budget=1,
       guarantee="A coverage check that uses binomial_band raises a false alarm no more often than its "
                 "nominal false-alarm rate when the procedure has exactly nominal coverage, and the band is "
                 "the tightest such band (one count narrower on either side would exceed the rate)")
def binomial_band_calibration(profile, rng):
    reps = profile.pick(20_000, 200_000)
    rows, worst, slack = [], -np.inf, -np.inf
    fa = 0.01
    for nominal in (0.5, 0.9, 0.95, 0.99):
        for n in (50, 200, 1000):
            lo, hi = binomial_band(nominal, n, fa)
            klo, khi = int(round(lo * n)), int(round(hi * n))
            k = rng.binomial(n, nominal, size=reps)
            rate = float(np.mean((k < klo) | (k > khi)))
            # exact false-alarm probability of the band, from the binomial law
            exact = float(stats.binom.cdf(klo - 1, n, nominal) + stats.binom.sf(khi, n, nominal))
            upper = stats.binom.ppf(1 - 1e-4, reps, fa) / reps
            worst = max(worst, rate - upper)
            # tightness: moving either end inward by one count puts at least fa/2 outside on that side
            lo_tail_in = float(stats.binom.cdf(klo, n, nominal)) if klo < n else 1.0
            hi_tail_in = float(stats.binom.sf(khi - 1, n, nominal)) if khi > 0 else 1.0
            slack = max(slack, fa / 2 - min(lo_tail_in, hi_tail_in))
            rows.append({"nominal": nominal, "n": n, "band": f"[{lo:.3f}, {hi:.3f}]", "false alarms": rate,
                         "MC se": float(np.sqrt(max(rate, 1e-12) * (1 - rate) / reps)), "exact": exact,
                         "allowed": upper})
    plt = _plt()
    fig, ax = plt.subplots(figsize=(12, 4.2))
    idx = np.arange(len(rows))
    ax.errorbar(idx, [r["false alarms"] for r in rows], yerr=[2 * r["MC se"] for r in rows], fmt="o", capsize=3,
                label=f"simulated false-alarm rate, +-2 SE ({reps:,} runs)")
    ax.plot(idx, [r["exact"] for r in rows], "x", color="C2", label="exact (binomial law)")
    ax.axhline(fa, color="C3", ls="--", label=f"nominal false-alarm rate {fa:g}")
    ax.set_xticks(idx, [f"{r['nominal']:g}\n{r['n']}" for r in rows], fontsize=6)
    ax.set(xlabel="nominal coverage / replicates n", ylabel="false-alarm probability", ylim=(0, 0.02))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    readable(fig)
    crit = [Criterion("max (simulated false-alarm rate - allowed)", worst, 0.0, "<="),
            Criterion("max (fa/2 - mass outside a one-count-narrower band)", slack, 0.0, "<=")]
    return CheckResult(criteria=crit, table=rows, figure=fig,
                       details=f"{reps} simulated coverage experiments per row at exactly nominal coverage; "
                               "allowed = 99.99% binomial upper quantile of the false-alarm count at rate 0.01 "
                               "(family-wise 0.12% over the 12 rows). The tightness criterion is exact. Catches: "
                               "a band that uses fa instead of fa/2 per side (rate ~0.02 > allowed), and an "
                               "over-wide band such as [0, 1] or one built at fa/10 (tightness).")


@check(method="prob", paper="Johnson, Kotz & Balakrishnan (1994), Ch. 13", budget=2,
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
    err_m = float(np.max(np.abs(mean[ok] - rm[ok]) / sigma[ok]))
    err_v = float(np.max(np.abs(var[ok] - rv[ok]) / sigma[ok] ** 2))
    tail = ok & (np.minimum(np.abs((a - mu) / sigma), np.abs((b - mu) / sigma)) > 5)
    rows = [{"mu": mu[i], "sigma": sigma[i], "a": a[i], "b": b[i], "mean": mean[i], "scipy mean": rm[i]}
            for i in range(5)]
    crit = [Criterion("max |mean - scipy| / sigma", err_m, 1e-6, "<="),
            Criterion("max |var - scipy| / sigma^2", err_v, 1e-6, "<="),
            Criterion("intervals more than 5 sd into a tail", int(tail.sum()), 20, ">=")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"{int(ok.sum())} random intervals (truncation points up to 8 sd into the tails, "
                               f"{int(tail.sum())} of them beyond 5 sd); errors in units of sigma (mean) and "
                               "sigma^2 (variance); both are exact formulas, so 1e-6 is rounding plus scipy's own "
                               "tail accuracy. Catches: the naive Z = Phi(b) - Phi(a) (cancellation in the far "
                               "tail), a sign error in the variance term, and a missing reflection of upper tails; "
                               "the third criterion makes sure the far tails were actually exercised.")


def _cvar_rockafellar_uryasev(x, w, alpha):
    """Lower-tail CVaR as sup_t { t - E[(t - X)_+] / alpha }, attained at an atom (an independent exact formula)."""
    t = x[:, None]
    vals = x - (w[None, :] * np.clip(t - x[None, :], 0.0, None)).sum(axis=1) / alpha
    return float(vals.max())


@check(method="prob", paper="Acerbi & Tasche (2002) J. Banking & Finance; Rockafellar & Uryasev (2002)", budget=2,
       guarantee="DiscreteLaw's CVaR is the average of the lowest alpha-fraction of mass (equal to the "
                 "Rockafellar-Uryasev variational formula and to a large-sample average), and "
                 "|CVaR_alpha(P) - CVaR_alpha(Q)| <= W1(P, Q) / alpha")
def cvar_lipschitz_in_w1(profile, rng):
    n_cases = profile.pick(500, 5000)
    worst, worst_ru = -np.inf, 0.0
    for _ in range(n_cases):
        (x, a), (y, b) = _random_law(rng), _random_law(rng)
        P, Q = DiscreteLaw(x, a), DiscreteLaw(y, b)
        alpha = float(rng.uniform(0.05, 1.0))
        gap = abs(P.cvar(alpha) - Q.cvar(alpha)) - P.wasserstein(Q) / alpha
        worst = max(worst, gap)
        ru = _cvar_rockafellar_uryasev(P.support, P.weights, alpha)
        worst_ru = max(worst_ru, abs(P.cvar(alpha) - ru) / (1.0 + np.abs(P.support).max()))
    # compare CVaR with a large-sample average of the lowest alpha-fraction
    x, a = _random_law(rng)
    while np.unique(x).size < 4:   # a law with several atoms, so that a sampler ignoring the weights is visible
        x, a = _random_law(rng)
    P = DiscreteLaw(x, a)
    # alpha in the middle of the second atom: the tail average mixes two atoms, one of them partially
    alpha_mc = float(P.weights[0] + 0.5 * P.weights[1])
    s = np.sort(P.sample(400_000, rng))
    tail = s[: int(alpha_mc * s.size)]
    emp = float(tail.mean())
    # while the alpha-quantile atom q is hit by the sample, the tail mean is exactly q - mean((q - X)_+) / alpha,
    # an i.i.d. average: its standard error is std((q - X)_+) / (alpha sqrt(n))
    q = P.quantile(alpha_mc)
    se = float(np.std(np.clip(q - s, 0.0, None)) / (alpha_mc * np.sqrt(s.size)))
    exact_mc = P.cvar(alpha_mc)
    # a constant tail has se ~ 1e-16 from rounding: compare on a floor of 1e-12 relative
    z = abs(emp - exact_mc) / max(se, 1e-12 * (1.0 + abs(exact_mc)))
    crit = [Criterion("max |CVaR - Rockafellar-Uryasev| / (1 + max|atom|)", worst_ru, 1e-10, "<="),
            Criterion("max (|dCVaR| - W1/alpha)", worst, 1e-10, "<="),
            Criterion("|sample CVaR - exact| / SE", z, 5.0, "<=")]
    return CheckResult(criteria=crit,
                       table=[{"alpha": alpha_mc, "CVaR exact": exact_mc, "CVaR of 400k samples": emp, "sample se": se}],
                       details=f"{n_cases} random pairs of laws with alpha ~ U(0.05, 1). The variational formula "
                               "and the Lipschitz bound are exact (rounding only); the sample check has a 5-SE "
                               "band (false alarm ~6e-7; the SE is that of the tail mean as the i.i.d. average q - mean((q - X)_+)/alpha). Catches: an off-by-one partial atom at the alpha "
                               "boundary, averaging the upper tail, dividing by the mass taken instead of alpha, "
                               "and a sampler that ignores the weights.")
