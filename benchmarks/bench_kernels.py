"""Benchmark: theory-informed kernel vs the GP / DKL / LN models a user would otherwise fit.

Same synthetic efficient-coding neurons and splits for every model; prints query Pearson r,
predictive NLL (per trial, on the sqrt-count scale), 90% interval coverage and fit+predict time,
with ratios to TIK.

    python benchmarks/bench_kernels.py [--quick] [--targets] [--threads T]
    python benchmarks/bench_kernels.py --families [--quick] [--tik-cache PATH] [--per K] [--sizes N ...] [--noises ...]
    python benchmarks/bench_kernels.py --issue-table [--tik-cache PATH] [--per K]

``--families`` (issue 28): held-out neuron families (the theory's own, centred and off-centre DoG,
Gabor at 4 orientations x 3 frequencies, DoG + Gabor mixtures) x Poisson / Gaussian noise x
n in 25..400, for TIK (default, with the pixel fallback), the theory kernel alone, PixelRBFGP,
scikit-learn GPR, the per-neuron DKL and the LN/Poisson GLM.

``--targets`` times only the issue's three speed targets (16x16 patches, default TIK settings):
meta-training on 2000 synthetic neurons (< 5 min), per-neuron adaptation + prediction at
n = 400 (< 1 s), evidence and Bayes factor of one neuron at n = 400 (< 0.1 s).
"""
from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
import torch
from scipy.stats import norm

from data_adapters import load_natural_images
from iclr26sci.kernels import (EfficientCodingTheory, PixelRBFGP, ScratchDKL, TheoryInformedKernel,
                               TheoryTaskSampler, bayes_factor, extract_patches)


def pearson(a, b):
    a, b = a - a.mean(), b - b.mean()
    return float(a @ b / np.sqrt((a @ a) * (b @ b) + 1e-300))


def gauss_scores(z, m, v):
    nll = float(np.mean(0.5 * np.log(2 * np.pi * v) + 0.5 * (z - m) ** 2 / v))
    cov = float(np.mean(np.abs(z - m) <= norm.ppf(0.95) * np.sqrt(v)))
    return nll, cov


def fit_gpytorch_rbf(X, z, Xq, iters=60):
    """RBF GP on pixels with gpytorch (Adam on the exact marginal likelihood, the tutorial recipe)."""
    import gpytorch

    Xt, zt, Xqt = (torch.as_tensor(a, dtype=torch.float64) for a in (X, z, Xq))
    mu, sd = zt.mean(), zt.std()
    zs = (zt - mu) / sd

    class GP(gpytorch.models.ExactGP):
        def __init__(self, x, y, lik):
            super().__init__(x, y, lik)
            self.mean_module = gpytorch.means.ConstantMean()
            self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))

    lik = gpytorch.likelihoods.GaussianLikelihood()
    model = GP(Xt, zs, lik).double()
    model.covar_module.base_kernel.lengthscale = float(torch.cdist(Xt, Xt).median())
    model.train()
    lik.train()
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(lik, model)
    for _ in range(iters):
        opt.zero_grad()
        loss = -mll(model(Xt), zs)
        loss.backward()
        opt.step()
    model.eval()
    lik.eval()
    with torch.no_grad():
        pred = lik(model(Xqt))
    return (pred.mean * sd + mu).numpy(), (pred.variance * sd ** 2).numpy()


def fit_sklearn_gp(X, z, Xq):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    k = ConstantKernel(1.0) * RBF(length_scale=float(np.median(np.linalg.norm(X[:, None] - X[None], axis=-1)))) \
        + WhiteKernel(0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gp = GaussianProcessRegressor(k, normalize_y=True, n_restarts_optimizer=0, random_state=0).fit(X, z)
    m, s = gp.predict(Xq, return_std=True)
    return m, s ** 2


def fit_glm(X, y, Xq, l2=1.0):
    """LN model: linear filter + softplus, Poisson likelihood, L-BFGS with an L2 penalty."""
    Xt = torch.as_tensor(X, dtype=torch.float64)
    yt = torch.as_tensor(y, dtype=torch.float64)
    w = torch.zeros(X.shape[1], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([float(np.log(np.expm1(max(y.mean(), 0.1))))], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=200, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        lam = torch.nn.functional.softplus(Xt @ w + b) + 1e-6
        loss = (lam - yt * torch.log(lam)).mean() + l2 * (w * w).sum() / len(y)
        loss.backward()
        return loss

    opt.step(closure)
    with torch.no_grad():
        lam = (torch.nn.functional.softplus(torch.as_tensor(Xq) @ w + b) + 1e-6).numpy()
    # sqrt-count predictive: mean sqrt(lam) (delta method), variance 1/4 (Poisson variance stabilised)
    return np.sqrt(lam), np.full_like(lam, 0.25)


def main(quick: bool):
    p = 8 if quick else 16
    imgs = load_natural_images()
    P = extract_patches(imgs, p, 20_000 if quick else 50_000, rng=0)
    theory = EfficientCodingTheory(center_radius=0.7 if quick else 2.0).fit(P)
    n_tasks = 400 if quick else 2000
    train = TheoryTaskSampler(theory, P, n_tasks=n_tasks, n_support=(25, 50) if quick else (25, 50, 100, 200),
                              n_query=50 if quick else 100, rng=1)
    settings = (dict(feature_dim=8, channels=8, kernel_size=3, n_outer=80, lr=0.01) if quick else
                dict(feature_dim=16, channels=16, kernel_size=5, n_outer=600, lr=3e-3))
    t0 = time.perf_counter()
    tik = TheoryInformedKernel(progress=False, n_threads=torch.get_num_threads(), **settings).meta_fit(train, rng=0)
    meta_s = time.perf_counter() - t0
    n_neurons = 12 if quick else 30
    sizes = [25, 100, 400]
    test = TheoryTaskSampler(theory, P, n_tasks=n_neurons, n_support=(max(sizes),), n_query=200, rng=2)
    models = {
        "TIK (ours)": lambda X, y, Xq: tik.fit(X, y).predict(Xq),
        "RBF-GP pixels (ours, exact)": lambda X, y, Xq: PixelRBFGP().fit(X, y).predict(Xq),
        "RBF-GP pixels (gpytorch)": lambda X, y, Xq: fit_gpytorch_rbf(X, np.sqrt(y), Xq),
        "sklearn GPR": lambda X, y, Xq: fit_sklearn_gp(X, np.sqrt(y), Xq),
        "per-neuron DKL": lambda X, y, Xq: ScratchDKL(feature_dim=8, channels=8, kernel_size=3,
                                                       n_iters=100 if quick else 200, rng=0).fit(X, y).predict(Xq),
        "LN / Poisson GLM": lambda X, y, Xq: fit_glm(X, y, Xq),
    }
    rows = []
    for n in sizes:
        for name, fn in models.items():
            r, nll, cov, secs = [], [], [], []
            for i in range(n_neurons):
                tk = test[i]
                X, y = tk.X_support[:n], tk.y_support[:n]
                z = np.sqrt(tk.y_query)
                t = time.perf_counter()
                m, v = fn(X, y, tk.X_query)
                secs.append(time.perf_counter() - t)
                r.append(pearson(np.asarray(m), z))
                a, b = gauss_scores(z, np.asarray(m), np.asarray(v))
                nll.append(a)
                cov.append(b)
            rows.append({"n_support": n, "model": name, "pearson r": np.mean(r), "NLL": np.mean(nll),
                         "coverage90": np.mean(cov), "fit+predict s": np.mean(secs)})
    df = pd.DataFrame(rows)
    for col in ("pearson r", "fit+predict s"):
        ref = df[df.model == "TIK (ours)"].set_index("n_support")[col]
        df[f"{col} / TIK"] = df.apply(lambda r: r[col] / ref[r.n_support], axis=1)
    tk = test[0]
    t = time.perf_counter()
    bf = bayes_factor(tik, PixelRBFGP(), tk.X_support[:400], tk.y_support[:400])
    bf_s = time.perf_counter() - t
    t = time.perf_counter()
    tik.log_evidence(tk.X_support[:400], tk.y_support[:400])
    ev_s = time.perf_counter() - t
    gp_a = tik.fit(tk.X_support[:400], tk.y_support[:400])
    gp_b = PixelRBFGP().fit(tk.X_support[:400], tk.y_support[:400])
    t = time.perf_counter()
    bayes_factor(gp_a, gp_b)
    bf_cached_s = time.perf_counter() - t
    pd.set_option("display.width", 200)
    print(f"patches {p}x{p}, {n_tasks} synthetic training neurons, meta-training {settings['n_outer']} outer steps: "
          f"{meta_s:.1f} s; {n_neurons} held-out neurons, query n = 200")
    print(df.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"\nevidence (fit + evaluate) of one neuron at n=400: {ev_s:.3f} s; Bayes factor TIK:RBF at n=400: "
          f"{bf_s:.3f} s (log BF = {float(bf):.2f}); Bayes factor of the two fitted models (no refit): {bf_cached_s:.4f} s")


# ----------------------------------------------------------------------------- held-out neuron families (issue 28)
def dog_filter(p, centre_sd, surround_sd, surround_weight, centre=None):
    """Difference-of-Gaussians (centre-surround) receptive field on a p x p grid, unit norm."""
    cy, cx = ((p - 1) / 2, (p - 1) / 2) if centre is None else centre
    yy, xx = np.mgrid[:p, :p]
    r2 = (xx - cx) ** 2 + (yy - cy) ** 2
    g1 = np.exp(-r2 / (2 * centre_sd ** 2))
    g2 = np.exp(-r2 / (2 * surround_sd ** 2))
    w = (g1 / g1.sum() - surround_weight * g2 / g2.sum()).ravel()
    return w / np.linalg.norm(w)


def gabor_filter(p, theta, freq, sigma, phase=0.0):
    """Gabor receptive field (orientation theta, spatial frequency freq in cycles/pixel), unit norm."""
    c = (p - 1) / 2
    yy, xx = np.mgrid[:p, :p]
    x, y = xx - c, yy - c
    xr = x * np.cos(theta) + y * np.sin(theta)
    w = (np.exp(-(x ** 2 + y ** 2) / (2 * sigma ** 2)) * np.cos(2 * np.pi * freq * xr + phase)).ravel()
    return w / np.linalg.norm(w)


def family_filter(family, p, gen, theory=None):
    """One random receptive field of a held-out family (drawn outside the theory sampler, except "theory")."""
    if family == "theory":
        return theory.sample_filters(1, rng=gen)[0]
    if family == "DoG centred":
        return dog_filter(p, gen.uniform(0.8, 1.6), gen.uniform(2.5, 4.0), gen.uniform(0.6, 1.0))
    if family == "DoG off-centre":
        off = gen.uniform(3.0, 5.0) * np.array([np.cos(a := gen.uniform(0, 2 * np.pi)), np.sin(a)])
        return dog_filter(p, gen.uniform(0.8, 1.6), gen.uniform(2.5, 4.0), gen.uniform(0.6, 1.0),
                          centre=((p - 1) / 2 + off[0], (p - 1) / 2 + off[1]))
    if family == "Gabor":
        return gabor_filter(p, gen.choice([0.0, np.pi / 4, np.pi / 2, 3 * np.pi / 4]), gen.choice([0.1, 0.2, 0.3]),
                            gen.uniform(2.0, 3.5), gen.uniform(0, 2 * np.pi))
    if family == "DoG + Gabor mixture":
        w = dog_filter(p, gen.uniform(0.8, 1.6), gen.uniform(2.5, 4.0), gen.uniform(0.6, 1.0)) + gabor_filter(
            p, gen.uniform(0, np.pi), gen.choice([0.1, 0.2, 0.3]), gen.uniform(2.0, 3.5), gen.uniform(0, 2 * np.pi))
        return w / np.linalg.norm(w)
    raise ValueError(family)


FAMILIES = ("theory", "DoG centred", "DoG off-centre", "Gabor", "DoG + Gabor mixture")


def fit_sklearn_gpr_issue(X, z, Xq):
    """scikit-learn GPR as in issue 28 (constant x RBF + WhiteKernel on standardised pixels, normalize_y, 2
    optimiser restarts): the same fit as validation check T9's."""
    from validation.kernels import _sklearn_gpr

    return _sklearn_gpr(X, z, Xq)


def fit_poisson_glm(X, y, Xq, gaussian: bool):
    """LN / Poisson GLM (scikit-learn PoissonRegressor, exponential link, alpha = 1/n), predictive on the sqrt scale.

    Poisson counts: the mean and variance of sqrt(y) under Poisson(lambda) are computed exactly (pmf
    sums). Gaussian responses (sqrt-rate + noise): fitted to the squared clipped responses, mean sqrt(lambda),
    variance from the training residuals."""
    from scipy.stats import poisson
    from sklearn.linear_model import PoissonRegressor

    target = np.clip(y, 0, None) ** 2 if gaussian else y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lbfgs iteration-limit warnings at small n
        glm = PoissonRegressor(alpha=1.0 / len(y), max_iter=1000).fit(X, target)
    lam = glm.predict(Xq)
    if gaussian:
        res = y - np.sqrt(glm.predict(X))
        return np.sqrt(lam), np.full_like(lam, max(float(np.var(res)), 1e-6))
    k = np.arange(int(lam.max() + 10 * np.sqrt(lam.max()) + 20))
    pmf = poisson.pmf(k[None], lam[:, None])
    m1 = pmf @ np.sqrt(k)
    return m1, np.clip(pmf @ k - m1 ** 2, 1e-6, None)


def issue_tik(cache: str | None):
    """The TIK of issue 28, with the defaults a user gets: EfficientCodingTheory(noise=0.1), a
    TheoryTaskSampler of 100 neurons and TheoryInformedKernel(feature_dim=8).meta_fit on 16x16 patches."""
    if cache and os.path.exists(cache):
        return torch.load(cache, weights_only=False)["tik"], float("nan")
    P = extract_patches(load_natural_images(), 16, 50_000, rng=0)
    theory = EfficientCodingTheory(noise=0.1).fit(P)
    tasks = TheoryTaskSampler(theory, P, n_tasks=100, rng=1)
    t = time.perf_counter()
    tik = TheoryInformedKernel(feature_dim=8, progress=False).meta_fit(tasks, rng=0)
    secs = time.perf_counter() - t
    if cache:
        torch.save({"tik": tik}, cache)
    return tik, secs


def neuron_families(quick: bool, cache: str | None = None, per: int | None = None, sizes=None, noises=None):
    """Held-out neuron families x noise x n: TIK (default, with the pixel fallback), TIK without it,
    PixelRBFGP, scikit-learn GPR, per-neuron DKL and the LN/Poisson GLM; r, NLL, coverage, time."""
    import copy

    tik, meta_s = issue_tik(cache)
    tik.pixel_fallback = True
    tik_theory = copy.copy(tik)
    tik_theory.pixel_fallback = False
    tik_theory._fit_cache = None
    P = extract_patches(load_natural_images(), 16, 50_000, rng=0)
    theory = EfficientCodingTheory(noise=0.1).fit(P)
    mean_x = P.mean(0)
    cov_x = np.cov(P[:20_000], rowvar=False)
    per = per or (4 if quick else 8)
    sizes = list(sizes or ([25, 200] if quick else [25, 50, 100, 200, 400]))
    noises = list(noises or (["poisson"] if quick else ["poisson", "gaussian"]))
    n_query = 400
    models = {
        "TIK (default: + pixel fallback)": lambda X, y, Xq, tr: tik.fit(X, y if tr == "sqrt" else y).predict(Xq),
        "TIK theory kernel only": lambda X, y, Xq, tr: tik_theory.fit(X, y).predict(Xq),
        "PixelRBFGP": lambda X, y, Xq, tr: PixelRBFGP(response_transform=tr).fit(X, y).predict(Xq),
        "sklearn GPR": lambda X, y, Xq, tr: fit_sklearn_gpr_issue(X, np.sqrt(y) if tr == "sqrt" else y, Xq),
        "per-neuron DKL": ((lambda X, y, Xq, tr: ScratchDKL(feature_dim=4, architecture="mlp", hidden=(16,), n_iters=60,
                                                            response_transform=tr, rng=0).fit(X, y).predict(Xq))
                           if quick else  # quick: T6's DKL; full: a conv DKL
                           (lambda X, y, Xq, tr: ScratchDKL(feature_dim=8, channels=8, kernel_size=3, n_iters=150,
                                                            response_transform=tr, rng=0).fit(X, y).predict(Xq))),
        "LN/Poisson GLM": lambda X, y, Xq, tr: fit_poisson_glm(X, y, Xq, tr == "none"),
    }
    gen = np.random.default_rng(28)
    rows, bf_rows = [], []
    for noise in noises:
        tr = "sqrt" if noise == "poisson" else "none"
        tik.response_transform = tik_theory.response_transform = tr
        for fam in FAMILIES:
            stats = {(n, mname): [] for n in sizes for mname in models}
            for i in range(per):
                w = family_filter(fam, 16, gen, theory)
                idx = gen.choice(len(P), max(sizes) + n_query, replace=False)
                X = P[idx]
                u = (X - mean_x) @ w / np.sqrt(w @ cov_x @ w)
                lam = np.exp(gen.uniform(np.log(2), np.log(20))) * np.logaddexp(
                    0.0, np.exp(gen.uniform(np.log(0.5), np.log(3.0))) * u + gen.uniform(-1, 1))
                y = gen.poisson(lam).astype(float) if noise == "poisson" else np.sqrt(lam) + 0.5 * gen.standard_normal(len(lam))
                Xq, yq = X[max(sizes):], y[max(sizes):]
                zq = np.sqrt(yq) if noise == "poisson" else yq
                for n in sizes:
                    Xs, ys = X[:n], y[:n]
                    if np.ptp(ys) == 0:
                        continue
                    for mname, fn in models.items():
                        t = time.perf_counter()
                        m, v = fn(Xs, ys, Xq, tr)
                        secs = time.perf_counter() - t
                        m, v = np.asarray(m), np.asarray(v)
                        nll, cov = gauss_scores(zq, m, v)
                        stats[(n, mname)].append((pearson(m, zq), nll, cov, secs))
                    gp = tik._fit_cache[2]
                    bf_rows.append({"noise": noise, "family": fam, "n": n,
                                    "log BF(theory:pixel)": float(gp.log_bf_theory_pixel_[0]),
                                    "theory share": float(gp.theory_fraction_[0])})
            for (n, mname), v in stats.items():
                a = np.asarray(v)
                ref = np.asarray(stats[(n, "sklearn GPR")])  # the same neurons (a neuron is skipped for every model)
                gap = a[:, 0] - ref[:, 0]
                rows.append({"noise": noise, "family": fam, "n": n, "model": mname, "r": a[:, 0].mean(),
                             "r gap vs sklearn": gap.mean(),
                             "se gap": gap.std(ddof=1) / np.sqrt(len(gap)) if len(gap) > 1 else float("nan"),
                             "NLL": a[:, 1].mean(), "coverage90": a[:, 2].mean(), "seconds": a[:, 3].mean(),
                             "time / sklearn": a[:, 3].sum() / ref[:, 3].sum(), "neurons": len(a)})
    df = pd.DataFrame(rows)
    pd.set_option("display.width", 250)
    print(f"issue-28 TIK (EfficientCodingTheory(noise=0.1), 100 training neurons, feature_dim=8, defaults otherwise; "
          f"meta-training {meta_s:.0f} s); {per} neurons per family, query n = {n_query}; load {os.getloadavg()[0]:.2f}")
    for (noise, n), d in df.groupby(["noise", "n"], sort=False):
        print(f"\n## {noise} noise, n = {n}")
        print(d.pivot_table(index="family", columns="model", values=["r", "coverage90"], sort=False)
              .to_string(float_format=lambda x: f"{x:.3f}"))
    print("\n## per model over all cells (mean over cells of r, paired r gap vs sklearn, NLL, coverage; total-time ratio)")
    tot = df.assign(wsec=df.seconds * df.neurons).groupby("model", sort=False).agg(
        r=("r", "mean"), gap=("r gap vs sklearn", "mean"), NLL=("NLL", "median"), coverage90=("coverage90", "mean"),
        wsec=("wsec", "sum"))
    tot["time / sklearn"] = tot.wsec / tot.loc["sklearn GPR", "wsec"]
    print(tot.drop(columns="wsec").rename(columns={"NLL": "NLL (median over cells)"})
          .to_string(float_format=lambda x: f"{x:.3f}"))
    print("\n## all rows (r, paired r gap vs sklearn GPR with its se, NLL per trial on the sqrt scale, 90% coverage, "
          "fit+predict seconds, time ratio vs sklearn)")
    print(df.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    b = pd.DataFrame(bf_rows).groupby(["noise", "family", "n"], sort=False).agg(["mean", "median"])
    print("\n## the evidence at work: log BF(theory kernel : pixel kernel) and the theory's share of the sum kernel's "
          "prior variance")
    print(b.to_string(float_format=lambda x: f"{x:.3f}"))
    return df


def issue_table(cache: str | None = None, per: int = 8):
    """Issue 28's own table, re-measured with the defaults: a centre-surround (centred DoG) and an oriented (Gabor)
    LN-Poisson neuron, square-root responses, 200 training and 400 held-out patches; TheoryInformedKernel (the
    issue's meta-training, defaults), PixelRBFGP and scikit-learn's GPR (the issue's recipe). The first neuron of
    each type is the issue's two-neuron table; ``per`` neurons of each type give the paired mean gap and its se."""
    tik, _ = issue_tik(cache)
    tik.pixel_fallback = True
    P = extract_patches(load_natural_images(), 16, 50_000, rng=0)
    mean_x = P.mean(0)
    cov_x = np.cov(P[:20_000], rowvar=False)
    gen = np.random.default_rng(2826)
    models = {"TheoryInformedKernel": lambda X, y, Xq: tik.fit(X, y).predict(Xq),
              "PixelRBFGP": lambda X, y, Xq: PixelRBFGP().fit(X, y).predict(Xq),
              "sklearn GPR": lambda X, y, Xq: fit_sklearn_gpr_issue(X, np.sqrt(y), Xq)}
    rows = []
    for fam in ("DoG centred", "Gabor"):
        for i in range(per):
            w = family_filter(fam, 16, gen)
            X = P[gen.choice(len(P), 600, replace=False)]
            u = (X - mean_x) @ w / np.sqrt(w @ cov_x @ w)
            lam = np.exp(gen.uniform(np.log(2), np.log(20))) * np.logaddexp(
                0.0, np.exp(gen.uniform(np.log(0.5), np.log(3.0))) * u + gen.uniform(-1, 1))
            y = gen.poisson(lam).astype(float)
            z = np.sqrt(y[200:])
            for name, fn in models.items():
                t = time.perf_counter()
                m, v = fn(X[:200], y[:200], X[200:])
                secs = time.perf_counter() - t
                nll, cov = gauss_scores(z, np.asarray(m), np.asarray(v))
                rows.append({"neuron type": fam, "neuron": i, "model": name, "coverage90": cov,
                             "r": pearson(np.asarray(m), z), "NLL": nll, "seconds": secs,
                             "held-out residual var": float(np.var(z - m)), "median predictive var": float(np.median(v))})
    df = pd.DataFrame(rows)
    sk = df[df.model == "sklearn GPR"].set_index(["neuron type", "neuron"])["r"]
    df["r gap vs sklearn"] = df.r.values - sk.loc[list(zip(df["neuron type"], df.neuron))].values
    pd.set_option("display.width", 250)
    print(f"issue 28's table re-measured (defaults; LN-Poisson, sqrt counts, n = 200, 400 held out); load "
          f"{os.getloadavg()[0]:.2f}")
    print("\n## the first neuron of each type (the issue's two-neuron table)")
    print(df[df.neuron == 0].drop(columns="neuron").to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    g = df.groupby(["neuron type", "model"], sort=False)
    summ = g.agg(coverage90=("coverage90", "mean"), r=("r", "mean"), gap=("r gap vs sklearn", "mean"),
                 NLL=("NLL", "mean"), seconds=("seconds", "mean"))
    summ["se gap"] = g["r gap vs sklearn"].std(ddof=1) / np.sqrt(per)
    print(f"\n## {per} neurons of each type: means, paired r gap vs sklearn GPR and its se")
    print(summ.to_string(float_format=lambda x: f"{x:.4f}"))
    return df


def causes(cache: str | None = None, extra: dict | None = None, per: int = 8, only=None):
    """Issue 28: the effect of each candidate cause on out-of-theory neurons (DoG off-centre and Gabor,
    LN-Poisson, n = 200, 400 query trials): coverage and r of the theory kernel with one setting changed.

    ``extra``: {label: path} of further meta-trained TIKs (e.g. feature_dim=16, 900 outer steps);
    ``only``: substrings of the variant labels to run (all by default)."""
    import copy

    from sklearn.preprocessing import StandardScaler

    base, _ = issue_tik(cache)
    base.pixel_fallback = False
    base.n_restarts = 0
    base._fit_cache = None
    P = extract_patches(load_natural_images(), 16, 50_000, rng=0)
    mean_x = P.mean(0)
    cov_x = np.cov(P[:20_000], rowvar=False)
    gen = np.random.default_rng(280)
    neurons = []
    for i in range(2 * per):
        fam = "DoG off-centre" if i % 2 == 0 else "Gabor"
        w = family_filter(fam, 16, gen)
        X = P[gen.choice(len(P), 600, replace=False)]
        u = (X - mean_x) @ w / np.sqrt(w @ cov_x @ w)
        lam = np.exp(gen.uniform(np.log(2), np.log(20))) * np.logaddexp(
            0.0, np.exp(gen.uniform(np.log(0.5), np.log(3.0))) * u + gen.uniform(-1, 1))
        neurons.append((fam, X, gen.poisson(lam).astype(float)))

    def variant(**kw):
        m = copy.copy(base)
        for k, v in kw.items():
            setattr(m, k, v)
        m._fit_cache = None
        return lambda X, y, Xq: m.fit(X, y).predict(Xq)

    def scaled(X, y, Xq):  # per-pixel standardised stimuli
        sc = StandardScaler().fit(X)
        return base.fit(sc.transform(X), y).predict(sc.transform(Xq))

    def anscombe(X, y, Xq):  # response scaling: Anscombe transform, scored back on the sqrt scale
        m = copy.copy(base)
        m.response_transform = "anscombe"
        m._fit_cache = None
        mu, v = m.fit(X, y).predict(Xq)
        # 2 sqrt(y + 3/8) -> sqrt(y): delta method
        return np.sqrt(np.clip((mu / 2) ** 2 - 0.375, 0, None)), v / 4

    models = {"theory kernel, old defaults": variant(),
              "hyper-prior sd 3 (was 1)": variant(prior_scale=3.0),
              "no hyper-prior": variant(prior_scale=None),
              "response scaling: Anscombe": anscombe,
              "input scaling: per-pixel standardised": scaled,
              "4 restarts of the type-II fit": variant(n_restarts=4),
              "start at the default psi (not the meta-learned)": variant(psi_start_=None)}
    for label, path in (extra or {}).items():
        if os.path.exists(path):
            other = torch.load(path, weights_only=False)["tik"]
            other.pixel_fallback, other.n_restarts, other._fit_cache = False, 0, None
            models[label] = (lambda o: lambda X, y, Xq: o.fit(X, y).predict(Xq))(other)
    from iclr26sci.kernels import _model

    def old_output_prior(X, y, Xq):  # the fallback before the fix: sd prior_scale (1) on the theory's log s_T^2 too
        orig = _model._sum_prior_scales
        _model._sum_prior_scales = lambda ps, m: None if ps is None else np.full(m + 2, float(ps))
        try:
            return variant(pixel_fallback=True)(X, y, Xq)
        finally:
            _model._sum_prior_scales = orig

    models["pixel fallback, theory output-scale prior sd 1 (before the fix)"] = old_output_prior
    models["pixel fallback (default)"] = variant(pixel_fallback=True)
    models["PixelRBFGP (new: 1 restart)"] = lambda X, y, Xq: PixelRBFGP().fit(X, y).predict(Xq)
    models["PixelRBFGP without restarts"] = lambda X, y, Xq: PixelRBFGP(n_restarts=0).fit(X, y).predict(Xq)
    models["sklearn GPR (issue 28)"] = lambda X, y, Xq: fit_sklearn_gpr_issue(X, np.sqrt(y), Xq)
    if only:
        models = {k: v for k, v in models.items() if any(o in k for o in only)}
    rows = []
    for name, fn in models.items():
        for fam in ("DoG off-centre", "Gabor"):
            r, cov, res, noise = [], [], [], []
            for f, X, y in neurons:
                if f != fam:
                    continue
                m, v = fn(X[:200], y[:200], X[200:])
                z = np.sqrt(y[200:])
                r.append(pearson(np.asarray(m), z))
                cov.append(gauss_scores(z, np.asarray(m), np.asarray(v))[1])
                res.append(float(np.var(z - m)))
                noise.append(float(np.median(v)))
            rows.append({"variant": name, "family": fam, "coverage90": np.mean(cov), "r": np.mean(r),
                         "held-out residual var": np.mean(res), "median predictive var": np.mean(noise)})
    df = pd.DataFrame(rows)
    pd.set_option("display.width", 250)
    print(f"issue-28 candidate causes: {per} neurons per family, n = 200, 400 query; load {os.getloadavg()[0]:.2f}")
    print(df.pivot_table(index="variant", columns="family", values=["coverage90", "r"], sort=False)
          .to_string(float_format=lambda x: f"{x:.3f}"))
    print(df.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    return df


def speed_targets(n_neurons: int = 5):
    """Time exactly the issue's three speed targets and print them against the targets."""
    load = os.getloadavg()[0]
    P = extract_patches(load_natural_images(), 16, 50_000, rng=0)
    theory = EfficientCodingTheory(center_radius=2.0).fit(P)
    tasks = TheoryTaskSampler(theory, P, n_tasks=2000, rng=1)  # n_support (25, 50, 100, 200), n_query 100
    tik = TheoryInformedKernel(progress=False, n_threads=torch.get_num_threads())  # defaults: conv 16 ch 5x5, m = 16, 300 outer steps of 8 tasks
    t = time.perf_counter()
    tik.meta_fit(tasks, rng=0)
    meta_s = time.perf_counter() - t
    test = TheoryTaskSampler(theory, P, n_tasks=n_neurons, n_support=(400,), n_query=200, rng=2)
    rbf = PixelRBFGP(n_threads=torch.get_num_threads())
    fit_s, ev_s, bf_s, evfit_s, bffit_s, same = [], [], [], [], [], True
    for i in range(n_neurons):
        tk = test[i]
        t = time.perf_counter()
        gp = tik.fit(tk.X_support, tk.y_support)
        gp.predict(tk.X_query)
        fit_s.append(time.perf_counter() - t)
        gp_rbf = rbf.fit(tk.X_support, tk.y_support)
        t = time.perf_counter()
        ev = gp.log_evidence()
        ev_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        bf = bayes_factor(gp, gp_rbf)  # fitted models: evidences at their type-II MAP, no refit
        bf_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        ev2 = tik.log_evidence(tk.X_support, tk.y_support)  # refit included (refit=True, the default)
        evfit_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        bf2 = bayes_factor(tik, rbf, tk.X_support, tk.y_support)  # both type-II fits included
        bffit_s.append(time.perf_counter() - t)
        same &= bool(np.allclose(ev, ev2, rtol=0, atol=1e-9) and np.allclose(bf.log_bf, bf2.log_bf, rtol=0, atol=1e-9))
    rows = [
        {"target": "meta-training, 2000 neurons 16x16, 300 steps x 8 tasks", "seconds": meta_s, "limit s": 300.0},
        {"target": "adaptation + prediction, n = 400 (mean)", "seconds": np.mean(fit_s), "limit s": 1.0},
        {"target": "  (worst neuron)", "seconds": np.max(fit_s), "limit s": 1.0},
        {"target": "evidence, n = 400, fitted model", "seconds": np.mean(ev_s), "limit s": 0.1},
        {"target": "Bayes factor TIK:RBF, n = 400, fitted models", "seconds": np.mean(bf_s), "limit s": 0.1},
        {"target": "evidence incl. type-II fit (refit=True)", "seconds": np.mean(evfit_s), "limit s": np.nan},
        {"target": "Bayes factor incl. both fits", "seconds": np.mean(bffit_s), "limit s": np.nan},
    ]
    df = pd.DataFrame(rows)
    df["met"] = np.where(df["limit s"].isna(), "-", np.where(df["seconds"] < df["limit s"], "yes", "NO"))
    print(f"speed targets: torch threads {torch.get_num_threads()}, load average at start {load:.2f}, "
          f"at end {os.getloadavg()[0]:.2f}; {n_neurons} held-out neurons; meta-training "
          f"{meta_s / tik.n_outer:.3f} s per outer step")
    print(df.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"cached and refitted evidences / log BFs identical: {same}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--targets", action="store_true", help="time only the issue's three speed targets")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    ap.add_argument("--families", action="store_true", help="issue 28: held-out neuron families x noise x n")
    ap.add_argument("--tik-cache", default=None, help="with --families: save/load the meta-trained TIK here")
    ap.add_argument("--per", type=int, default=None, help="with --families: neurons per family")
    ap.add_argument("--sizes", type=int, nargs="*", default=None, help="with --families: support-set sizes")
    ap.add_argument("--noises", nargs="*", default=None, choices=["poisson", "gaussian"],
                    help="with --families: response noise models")
    ap.add_argument("--issue-table", action="store_true", help="issue 28's own table (DoG and Gabor neuron), re-measured")
    ap.add_argument("--causes", action="store_true", help="issue 28: effect of each candidate cause")
    ap.add_argument("--extra", nargs="*", default=[], help="with --causes: LABEL=PATH of further cached TIKs")
    ap.add_argument("--only", nargs="*", default=None, help="with --causes: run only variants whose label contains one "
                                                             "of these strings")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.causes:
        causes(args.tik_cache, dict(e.split("=", 1) for e in args.extra), args.per or 8, args.only)
    elif args.issue_table:
        issue_table(args.tik_cache, args.per or 8)
    elif args.families:
        neuron_families(args.quick, args.tik_cache, args.per, args.sizes, args.noises)
    elif args.targets:
        speed_targets()
    else:
        main(args.quick)
