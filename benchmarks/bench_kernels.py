"""Benchmark: theory-informed kernel vs the GP / DKL / LN models a user would otherwise fit.

Same synthetic efficient-coding neurons and splits for every model; prints query Pearson r,
predictive NLL (per trial, on the sqrt-count scale), 90% interval coverage and fit+predict time,
with ratios to TIK.

    python benchmarks/bench_kernels.py [--quick] [--targets] [--threads T]

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
    tik = TheoryInformedKernel(show_progress=False, n_threads=torch.get_num_threads(), **settings).meta_fit(train, rng=0)
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


def speed_targets(n_neurons: int = 5):
    """Time exactly the issue's three speed targets and print them against the targets."""
    load = os.getloadavg()[0]
    P = extract_patches(load_natural_images(), 16, 50_000, rng=0)
    theory = EfficientCodingTheory(center_radius=2.0).fit(P)
    tasks = TheoryTaskSampler(theory, P, n_tasks=2000, rng=1)  # n_support (25, 50, 100, 200), n_query 100
    tik = TheoryInformedKernel(show_progress=False, n_threads=torch.get_num_threads())  # defaults: conv 16 ch 5x5, m = 16, 300 outer steps of 8 tasks
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
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.targets:
        speed_targets()
    else:
        main(args.quick)
