"""Validation of flow matching, its ODE samplers and its SDE conversion (report section "nn").

Every check runs on Gaussian data, where the marginal velocity, the marginals p_t and (for an affine field) the
law of every discretised sampler are known in closed form (iclr26sci.nn.GaussianFlowOracle). Each check's
``details`` names the broken implementation it catches; tests/nn/test_nn_flow.py::test_validation_power_*
run those variants and show the checks fail.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from .registry import CheckResult, Criterion, check

FLOW_PAPER = "Lipman et al. (2023) Flow Matching, ICLR; Liu et al. (2023) Rectified Flow, ICLR"
GRPO_PAPER = "Liu et al. (2025) Flow-GRPO, arXiv:2505.05470; Domingo-Enrich et al. (2025) Adjoint Matching, arXiv:2409.08861"


def _random_gaussian(rng, d):
    A = rng.normal(size=(d, d))
    S = A @ A.T / d + 0.25 * np.eye(d)
    m = rng.normal(size=d) * 1.5
    return m, S


def _sqrtm(S):
    w, V = np.linalg.eigh(S)
    return (V * np.sqrt(np.clip(w, 0, None))) @ V.T


def w2_gaussian(m1, S1, m2, S2) -> float:
    """Closed-form 2-Wasserstein distance between N(m1, S1) and N(m2, S2)."""
    r = _sqrtm(S2)
    cross = _sqrtm(r @ S1 @ r)
    return float(np.sqrt(max(np.sum((m1 - m2) ** 2) + np.trace(S1 + S2 - 2 * cross), 0.0)))


def _affine_of_map(fn, d):
    """(b, A) of an affine map R^d -> R^d evaluated on the d + 1 points 0, e_1, ..., e_d."""
    import torch

    pts = torch.cat([torch.zeros(1, d), torch.eye(d)]).double()
    out = fn(pts)
    b = out[0]
    return b, (out[1:] - b).T


def _torch_seed(rng):
    return int(rng.integers(0, 2 ** 31 - 1))


# ---------------------------------------------------------------------------------------------------------
def _train_gaussian_flow(rng, d, n_train, epochs, ignore_time=False):
    import torch

    from iclr26sci.nn import FlowMatching, GaussianFlowOracle, VelocityMLP

    m, S = _random_gaussian(rng, d)
    orc = GaussianFlowOracle(m, S)
    X = orc.sample_data(n_train, rng=rng)
    torch.manual_seed(_torch_seed(rng))
    net = VelocityMLP(d, hidden=(64, 64, 64))
    if ignore_time:   # broken variant: the net never sees t
        fwd = net.forward
        net.forward = lambda x, t, cond=None: fwd(x, torch.zeros_like(t), cond)
    fm = FlowMatching(net, path="linear").fit(X, epochs=epochs, batch_size=256, lr=2e-3, rng=rng,
                                              progress=False, schedule="cosine")
    return fm, orc, m, S


@check(method="nn", paper=FLOW_PAPER, budget=20,
       guarantee="On Gaussian data the velocity learned by conditional flow matching matches the exact marginal "
                 "velocity field: its mean squared error is under 5% of the field's variance, and the test "
                 "flow-matching loss exceeds the exact minimum L* by exactly E|v_theta - v*|^2 (the "
                 "decomposition that makes flow matching a regression onto v*), within Monte-Carlo error")
def velocity_matches_exact(profile, rng, _ignore_time=False):
    import torch

    d = 2
    n_train = profile.pick(4096, 16384)
    epochs = profile.pick(80, 200)
    fm, orc, m, S = _train_gaussian_flow(rng, d, n_train, epochs, ignore_time=_ignore_time)
    n_eval = profile.pick(20000, 100000)
    g = torch.Generator().manual_seed(_torch_seed(rng))
    x1 = torch.as_tensor(orc.sample_data(n_eval, rng=rng), dtype=torch.float32)
    x0 = torch.randn(n_eval, d, generator=g)
    t = torch.rand(n_eval, generator=g) * 0.9 + 0.05
    xt = (1 - t[:, None]) * x0 + t[:, None] * x1
    with torch.no_grad():
        vth = fm.velocity(xt, t).double()
    vstar = orc.velocity(xt.double(), t.double())
    target = (x1 - x0).double()
    err = ((vth - vstar) ** 2).sum(1)
    spread = ((vstar - torch.as_tensor(m)) ** 2).sum(1)
    rel = float(err.mean() / spread.mean())
    # decomposition: |v_th - target|^2 - |v* - target|^2 has mean E|v_th - v*|^2 (cross term vanishes)
    diff = ((vth - target) ** 2).sum(1) - ((vstar - target) ** 2).sum(1) - err
    z = float(diff.mean() / (diff.std() / np.sqrt(n_eval)))
    zcrit = float(stats.norm.ppf(1 - 0.001 / 2))
    # sample quality, reported: Heun 32 steps
    from iclr26sci.nn import ode_sample

    xs = ode_sample(fm, n=n_eval, steps=32, solver="heun", rng=int(rng.integers(1 << 30))).numpy()
    w2_model = w2_gaussian(xs.mean(0), np.cov(xs.T), m, S)
    Xtr = orc.sample_data(n_train, rng=rng)
    w2_data = w2_gaussian(Xtr.mean(0), np.cov(Xtr.T), m, S)
    crit = [Criterion("relative velocity MSE E|v_th-v*|^2 / E|v*-m|^2", rel, 0.05, "<="),
            Criterion("|z| of the FM-loss decomposition", abs(z), zcrit, "<=")]
    table = [{"quantity": "relative velocity MSE", "value": rel},
             {"quantity": "excess FM loss (MC)", "value": float(diff.mean() + err.mean())},
             {"quantity": "E|v_th - v*|^2", "value": float(err.mean())},
             {"quantity": "decomposition z", "value": z},
             {"quantity": "W2(model samples, target) [reported]", "value": w2_model},
             {"quantity": "W2(a training-size sample, target) [reported floor]", "value": w2_data},
             {"quantity": "train steps", "value": fm.fit_result_.n_steps}]
    return CheckResult(criteria=crit, table=table,
                       details=f"d={d}, random N(m, S) per seed, VelocityMLP 3x64 trained on {n_train} samples for "
                               f"{epochs} epochs; errors on {n_eval} fresh (t, x_t), t ~ U[0.05, 0.95]. The 5% bound "
                               "is the accuracy the check requires of the fit (a net that ignores t, trained the "
                               "same way, reaches ~20-40%); the decomposition test uses a two-sided alpha = 0.001 "
                               "normal bound. Catches: a time-blind net, a wrong training target or path (e.g. "
                               "t = 1 as noise), an oracle with a wrong velocity (the decomposition breaks).")


# ---------------------------------------------------------------------------------------------------------
def _solver_errors(orc, m, S, solver, steps_list, sampler=None):
    from iclr26sci.nn import ode_sample

    sampler = sampler or ode_sample
    d = len(m)
    errs = []
    for steps in steps_list:
        b, A = _affine_of_map(lambda p: sampler(orc, x0=p, steps=steps, solver=solver).x.double(), d)
        b, A = b.numpy(), A.numpy()
        errs.append(w2_gaussian(b, A @ A.T, m, S))
    return np.array(errs)


@check(method="nn", paper=FLOW_PAPER + "; Hairer, Norsett, Wanner (1993) Solving ODEs I", budget=3,
       guarantee="With the exact Gaussian velocity field, the sampler's output law is Gaussian and computed "
                 "exactly; its 2-Wasserstein distance to the target falls with the step size h at the solver's "
                 "order: slope 1 for Euler, 2 for Heun, and at least 2 for midpoint")
def ode_solver_order(profile, rng, _sampler=None):
    from iclr26sci.nn import GaussianFlowOracle

    d = 3
    m, S = _random_gaussian(rng, d)
    orc = GaussianFlowOracle(m, S)
    plan = {"euler": ([8, 16, 32, 64, 128], 1.0, "=="), "heun": ([8, 16, 32, 64, 128], 2.0, "=="),
            "midpoint": ([4, 8, 16, 32], 2.0, ">=")}
    crit, rows = [], []
    for solver, (steps_list, p, kind) in plan.items():
        e = _solver_errors(orc, m, S, solver, steps_list, _sampler)
        local = np.log2(e[:-1] / e[1:])           # slope between successive halvings of h
        p_hat = 2 * local[-1] - local[-2]         # Richardson: removes the O(h) drift of the local slope
        tol = abs(local[-1] - local[-2])          # size of the removed correction bounds what is left
        fit = float(np.polyfit(np.log(1.0 / np.array(steps_list)), np.log(e), 1)[0])
        if kind == "==":
            crit.append(Criterion(f"{solver}: |extrapolated slope - {p:g}| - tolerance", abs(p_hat - p) - tol,
                                  0.0, "<="))
        else:
            crit.append(Criterion(f"{solver}: extrapolated slope + tolerance - {p:g}", p_hat + tol - p, 0.0, ">="))
        rows.append({"solver": solver, "steps": str(steps_list), "W2": np.array2string(e, precision=3),
                     "local slopes": np.array2string(local, precision=3), "extrapolated": p_hat,
                     "tolerance": tol, "LS slope": fit})
    return CheckResult(criteria=crit, table=rows,
                       details="d=3, random N(m, S) per seed. The output of ode_sample run on the d+1 points "
                               "0, e_1..e_d gives its affine map x0 -> b + A x0, hence the exact output law "
                               "N(b, A A^T) and its closed-form W2 (no Monte-Carlo). The local slope "
                               "log2(W2(h)/W2(h/2)) = p + O(h); the Richardson extrapolate 2 s_K - s_(K-1) removes "
                               "the O(h) term and the removed amount is the tolerance. (On this problem midpoint's "
                               "W2 converges at order 3, so only >= 2 is claimed.) Catches: Heun without its "
                               "corrector or with unequal weights, midpoint evaluated at t instead of t + h/2, a "
                               "solver stepping with a stale velocity (all order <= 1).")


# ---------------------------------------------------------------------------------------------------------
def _propagate(sde, d, T, checks):
    """Exact mean/cov (and cross-cov with x0) of the discretised SDE, from the library's step mean and std."""
    mu, C, K = np.zeros(d), np.eye(d), np.eye(d)
    grid = np.linspace(0, 1, T + 1)
    out = {}
    import torch

    basis = torch.cat([torch.zeros(1, d), torch.eye(d)]).double()
    for k in range(T):
        st = sde.step(basis, float(grid[k]), float(grid[k + 1] - grid[k]), rng=0)
        mm = st.mean.detach().numpy()
        b, M = mm[0], (mm[1:] - mm[0]).T
        s = float(st.std.reshape(-1)[0])
        mu, C, K = M @ mu + b, M @ C @ M.T + s * s * np.eye(d), M @ K
        for tc in checks:
            if abs(grid[k + 1] - tc) < 1e-9:
                out[tc] = (mu.copy(), C.copy(), K.copy())
    return out


def _whitened_errors(orc, t, mu, C):
    mt, Ct = orc.marginal_mean(t), orc.marginal_cov(t)
    L = np.linalg.cholesky(Ct)
    Li = np.linalg.inv(L)
    return float(np.linalg.norm(Li @ (mu - mt))), float(np.linalg.norm(Li @ C @ Li.T - np.eye(len(mt))))


@check(method="nn", paper=GRPO_PAPER, budget=15,
       guarantee="The ODE-to-SDE conversion (Flow-GRPO, noise levels a = 0.3, 0.7, 1.0, and the memoryless SDE of "
                 "Adjoint Matching) preserves the ODE's marginals: the discretised SDE's exact moments at "
                 "t = 0.25, 0.5, 0.75, 1 approach p_t as the step shrinks and meet the spec's 3% variance bound at "
                 "t = 1 with 200 steps; simulated paths match those moments within Monte-Carlo bands; the "
                 "memoryless SDE makes X_1 independent of X_0")
def sde_marginals(profile, rng, _factory=None):
    import torch

    from iclr26sci.nn import GaussianFlowOracle, flow_sde, memoryless_sde

    d = 2
    m, S = _random_gaussian(rng, d)
    orc = GaussianFlowOracle(m, S)
    checks = (0.25, 0.5, 0.75, 1.0)
    factory = _factory or (lambda o, a: memoryless_sde(o) if a == "memoryless" else flow_sde(o, noise_level=a))
    levels = (0.3, 0.7, 1.0, "memoryless")
    T1, T2 = 200, 800
    n_paths = profile.pick(20000, 100000)
    crit, rows = [], []
    n_tests = len(levels) * len(checks) * 2 * d
    zcrit = float(stats.norm.ppf(1 - 0.001 / (2 * n_tests)))
    zmax_all = 0.0
    for a in levels:
        sde = factory(orc, a)
        p1 = _propagate(sde, d, T1, checks)
        p2 = _propagate(sde, d, T2, checks)
        e1 = [sum(_whitened_errors(orc, t, *p1[t][:2])) for t in checks]
        e2 = [sum(_whitened_errors(orc, t, *p2[t][:2])) for t in checks]
        mu1, C1, K1 = p1[1.0]
        var_rel = float(np.max(np.abs(np.diag(C1) / np.diag(S) - 1)))
        mean_err = float(np.max(np.abs(mu1 - m) / np.sqrt(np.diag(S))))
        # Monte-Carlo: simulate paths with the step's own sampler, compare with the exact discrete moments
        g = torch.Generator().manual_seed(_torch_seed(rng))
        x = torch.randn(n_paths, d, generator=g, dtype=torch.float64)
        grid = np.linspace(0, 1, T1 + 1)
        zmax = 0.0
        for k in range(T1):
            x = sde.step(x, float(grid[k]), float(grid[k + 1] - grid[k]), rng=g).sample
            tc = float(grid[k + 1])
            if any(abs(tc - c) < 1e-9 for c in checks):
                c = min(checks, key=lambda q: abs(q - tc))
                mu_e, C_e, _ = p1[c]
                xn = x.numpy()
                zm = (xn.mean(0) - mu_e) / np.sqrt(np.diag(C_e) / n_paths)
                zv = (xn.var(0, ddof=1) - np.diag(C_e)) / (np.diag(C_e) * np.sqrt(2.0 / (n_paths - 1)))
                zmax = max(zmax, float(np.max(np.abs(zm))), float(np.max(np.abs(zv))))
        zmax_all = max(zmax_all, zmax)
        name = f"a={a}" if a != "memoryless" else "memoryless"
        crit.append(Criterion(f"{name}: max error at {T2} steps / at {T1} steps", max(e2) / max(e1), 1.0, "<"))
        crit.append(Criterion(f"{name}: relative variance error at t=1, {T1} steps", var_rel, 0.03, "<="))
        crit.append(Criterion(f"{name}: mean error at t=1 / data std, {T1} steps", mean_err, 0.02, "<="))
        if a == "memoryless":
            crit.append(Criterion("memoryless: max |Cov(X0, X1)|", float(np.max(np.abs(K1))), 1e-3, "<="))
        rows.append({"sde": name, f"err({T1}) by t": np.array2string(np.array(e1), precision=4),
                     f"err({T2}) by t": np.array2string(np.array(e2), precision=4), "var rel t=1": var_rel,
                     "mean err t=1": mean_err, "max|Cov(X0,X1)|": float(np.max(np.abs(K1))), "MC max|z|": zmax})
    crit.append(Criterion("MC: max |z| of simulated moments vs exact discrete moments", zmax_all, zcrit, "<="))
    return CheckResult(criteria=crit, table=rows,
                       details=f"d=2, random N(m, S) per seed, exact velocity. Exact moments come from the "
                               f"library's step mean (affine in x, read off on 0, e_1, e_2) and std; err = "
                               f"whitened mean error + Frobenius error of the whitened covariance. The 3%/0.02 "
                               f"bounds at {T1} steps are the spec's (tempflow-grpo.md A3.1); MC: {n_paths} paths, "
                               f"Bonferroni over {n_tests} z-tests at alpha = 0.001 (|z| <= {zcrit:.2f}). "
                               "Catches: the drift correction with g^2 instead of g^2/2 or with the wrong sign, a "
                               "std without sqrt(dt) or with dt, the score taken as -(x - v)/(1-t), a sampler "
                               "inconsistent with the reported std, a memoryless schedule g^2 = (1-t)/t.")


# ---------------------------------------------------------------------------------------------------------
@check(method="nn", paper=GRPO_PAPER, budget=3,
       guarantee="The per-step Gaussian policy's log-likelihood equals scipy's normal log-density (mean over "
                 "dimensions for reduce='mean', sum for 'sum') to 1e-10, the mean log-likelihood of its own "
                 "samples equals minus its closed-form entropy, and its closed-form KL to a reference step equals "
                 "the Monte-Carlo mean of the log-likelihood ratio within 4 standard errors")
def step_logprob_kl(profile, rng, _factory=None):
    import torch

    from iclr26sci.nn import GaussianFlowOracle, flow_sde

    d = 4
    m, S = _random_gaussian(rng, d)
    m2, S2 = _random_gaussian(rng, d)
    factory = _factory or (lambda o, a: flow_sde(o, noise_level=a))
    pol = factory(GaussianFlowOracle(m, S), 0.7)
    ref = factory(GaussianFlowOracle(0.7 * m + 0.3 * m2, 0.5 * (S + S2)), 0.7)
    n = profile.pick(100000, 1000000)
    crit, rows = [], []
    worst_lp, worst_ent, worst_kl = 0.0, 0.0, 0.0
    for t, dt in ((0.0, 0.1), (0.3, 0.05), (0.8, 0.1)):
        g = torch.Generator().manual_seed(_torch_seed(rng))
        x = torch.randn(n, d, generator=g, dtype=torch.float64) * 1.3
        st = pol.step(x, t, dt, rng=g)
        sr = ref.step(x, t, dt, x_next=st.sample)
        y, mu, s = st.sample.numpy(), st.mean.detach().numpy(), st.std.detach().numpy()
        exact = stats.norm.logpdf(y, mu, s)
        for red, agg in (("mean", exact.mean(1)), ("sum", exact.sum(1))):
            worst_lp = max(worst_lp, float(np.max(np.abs(st.log_prob(st.sample, reduce=red).numpy() - agg))))
        lp = st.log_prob(st.sample, reduce="sum").numpy()
        ent = st.entropy(reduce="sum").numpy()
        z_ent = float((lp.mean() + ent.mean()) / (lp.std() / np.sqrt(n)))
        ratio = lp - sr.log_prob(st.sample, reduce="sum").numpy()
        kl = st.kl(sr, reduce="sum").numpy()
        z_kl = float((ratio - kl).mean() / ((ratio - kl).std() / np.sqrt(n)))
        kl_mean_ok = float(np.max(np.abs(st.kl(sr, reduce="mean").numpy() - kl / d)))
        worst_ent, worst_kl = max(worst_ent, abs(z_ent)), max(worst_kl, abs(z_kl))
        worst_lp = max(worst_lp, kl_mean_ok)
        rows.append({"t": t, "dt": dt, "mean KL (sum)": float(kl.mean()), "MC log-ratio": float(ratio.mean()),
                     "z KL": z_kl, "z entropy": z_ent})
    crit.append(Criterion("max |log_prob - scipy| (mean, sum; KL mean = sum/d)", worst_lp, 1e-10, "<="))
    crit.append(Criterion("max |z| entropy identity", worst_ent, 4.0, "<="))
    crit.append(Criterion("max |z| KL vs MC log-ratio", worst_kl, 4.0, "<="))
    return CheckResult(criteria=crit, table=rows,
                       details=f"d={d}, policy and reference steps from two exact Gaussian flows (a = 0.7) at "
                               f"t = 0 (first-step rule), 0.3, 0.8; {n} draws per step, float64. The MC bound is 4 "
                               "standard errors (6 tests; two-sided false-alarm rate ~4e-4). Catches: a log-density "
                               "without the -log s term or with s^2 for s, reduce='mean' summing, a KL missing its "
                               "1/2 or using the variance ratio the wrong way, a sample drawn with a std other "
                               "than the one reported.")
