"""Validation of Value Matching (report section "value_matching"): the spec's checks B3-1 ... B3-6.

The base flows are exact (iclr26sci.nn.GaussianFlowOracle), so the optimal value and the tilted law are known:
for a Gaussian base and a linear or quadratic reward, the memoryless Euler-Maruyama chain is a linear-Gaussian
chain and its optimal cost-to-go V_k(x) = -log E[exp(lam r(X_K)) | X_k = x] is an exact quadratic in x, computed
here by backward recursion (``discrete_value``); the continuous-time tilt p* is closed form. Each check's
``details`` names the broken implementation it catches; tests/generative/test_value_matching_validation.py runs
those variants and shows the checks fail.
"""
from __future__ import annotations

import contextlib
import math

import numpy as np
from scipy import stats

from ._figstyle import readable, subplots
from .registry import CheckResult, Criterion, check

PAPER = ("Value Matching: Scalable and Gradient-Free Reward-Guided Flow Adaptation, ICLR 2026 (OpenReview "
         "7iXt44Actj); Domingo-Enrich et al. (2025) Adjoint Matching, arXiv:2409.08861")

M2 = np.array([0.5, -0.3])
S2 = 0.64
A_LIN = np.array([1.0, 0.5])
C_QUAD = np.array([1.5, 1.0])


def _seed(rng):
    return int(rng.integers(0, 2 ** 31 - 1))


def _reward(kind, vec):
    import torch

    v = torch.as_tensor(vec, dtype=torch.float64)
    if kind == "linear":
        return lambda x: x.double() @ v
    return lambda x: -0.5 * ((x.double() - v) ** 2).sum(1)


def discrete_value(orc, times, lam, a=None, c=None):
    r"""Exact cost-to-go of the memoryless Euler-Maruyama chain of an affine (single-Gaussian) oracle.

    Step k: :math:`X_{k+1} = A_k X_k + b_k + \sqrt{S_k}\,\xi`, :math:`S_k = \sigma_k^2 h`. With
    :math:`V_{k+1}(y) = \tfrac12 y^\top Q y + q^\top y`, :math:`M = (I + S Q)^{-1}`,
    :math:`V_k(x) = \tfrac12 \mu^\top Q M \mu + q^\top M \mu + \text{const}`, :math:`\mu = A_k x + b_k`.
    Returns lists (Q_k, q_k), k = 0..K (constants dropped: checks compare values up to a per-time constant).
    """
    d = len(orc.means[0])
    I = np.eye(d)
    K = len(times) - 1
    if a is not None:
        Q, q = np.zeros((d, d)), -lam * np.asarray(a, float)
    else:
        Q, q = lam * I, -lam * np.asarray(c, float)
    Qs, qs = [None] * (K + 1), [None] * (K + 1)
    Qs[K], qs[K] = Q, q
    for k in range(K - 1, -1, -1):
        t, h = times[k], times[k + 1] - times[k]
        te = t if t > 0 else h
        cvec, Mt = orc.affine(t)
        Ak = I + h * (Mt - (I - t * Mt) / te)
        bk = h * (cvec + (t / te) * cvec)
        S = 2.0 * (1 - t) / te * h
        Mi = np.linalg.inv(I + S * Q)
        QM = Q @ Mi
        Qn = Ak.T @ QM @ Ak
        qn = Ak.T @ (QM @ bk + Mi.T @ q)
        Qs[k], qs[k] = 0.5 * (Qn + Qn.T), qn
        Q, q = Qs[k], qs[k]
    return Qs, qs


class _QuadValue:
    """A torch module V(x, t_k) = x^T Q_k x / 2 + q_k^T x on the grid (nearest grid point)."""

    def __new__(cls, times, Qs, qs):
        import torch

        class Mod(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.times = torch.as_tensor(times)
                self.Q = torch.as_tensor(np.stack(Qs))
                self.q = torch.as_tensor(np.stack(qs))

            def forward(self, x, t):
                k = (t.reshape(-1, 1).double() - self.times[None, :]).abs().argmin(1)
                x = x.double()
                return 0.5 * torch.einsum("bi,bij,bj->b", x, self.Q[k], x) + (self.q[k] * x).sum(1)

        return Mod()


def _rel_value_error(vm, states, times, Qs, qs, ks):
    """sqrt(sum_k E[(d_k - mean d_k)^2] / sum_k E[(V_k - mean V_k)^2]), d = V_phi - V_k (per-time constants out)."""
    num = den = 0.0
    for k in ks:
        X = states[k]
        Vt = 0.5 * np.einsum("bi,ij,bj->b", X, Qs[k], X) + X @ qs[k]
        Vh = vm.value(X, float(times[k]))
        d = Vh - Vt
        num += float(np.mean((d - d.mean()) ** 2))
        den += float(np.mean((Vt - Vt.mean()) ** 2))
    return math.sqrt(num / den)


def _exact_states(orc, times, Qs, qs, n, seed):
    """States of the optimally guided discrete chain (look-ahead control from the exact V_k)."""
    import torch

    from iclr26sci.generative._vm_core import _Base, rollout

    base = _Base(orc, len(times) - 1)
    out = rollout(base, n, torch.Generator().manual_seed(seed), vnet=_QuadValue(times, Qs, qs), clip=None)
    return out["X"].numpy(), out["x"].numpy()


def _fit_vm(orc, reward, lam, profile, rng, on_policy=True, n_iter=None, **kw):
    from iclr26sci.generative import ValueMatching

    params = dict(steps=profile.pick(25, 50), hidden=(64, 64, 64), rollouts=256, lr=2e-3, epochs=2,
                  rng=_seed(rng), on_policy=on_policy, control_variate=on_policy)
    params.update(kw)
    vm = ValueMatching(orc, reward, lam=lam, **params)
    return vm.fit(n_iter=n_iter or profile.pick(15, 40), progress=False)


def _tilt_check(profile, rng, kind, lam, _variant=None, steps=None, n_iter=None, epochs=2):
    from iclr26sci.generative import gaussian_tilt_value
    from iclr26sci.nn import GaussianFlowOracle

    vec = A_LIN if kind == "linear" else C_QUAD
    kw = {"a": vec} if kind == "linear" else {"c": vec}
    orc = GaussianFlowOracle(mean=M2, cov=S2 * np.eye(2))
    reward = _reward(kind, vec)
    _, tm, tv = gaussian_tilt_value(np.zeros((1, 2)), 0.0, M2, S2, lam, **kw)
    kw_fit = {"epochs": epochs} if steps is None else {"steps": steps, "epochs": epochs}
    vm = _fit_vm(orc, reward, lam, profile, rng, on_policy=_variant != "offline", n_iter=n_iter, **kw_fit)
    n = profile.pick(10000, 20000)
    res = vm.sample(n=n, rng=_seed(rng), return_trajectory=True)
    xs = res.x.numpy()
    Qs, qs = discrete_value(orc, vm.times_, lam, **kw)
    K = len(vm.times_) - 1
    ks = list(range(1, K + 1))
    X_exact, _ = _exact_states(orc, vm.times_, Qs, qs, 4000, _seed(rng))
    relv = _rel_value_error(vm, X_exact, vm.times_, Qs, qs, ks)
    mean_err = float(np.max(np.abs(xs.mean(0) - tm)))
    var_err = float(np.max(np.abs(xs.var(0) / tv - 1)))
    ode = vm.sample(n=n, rng=_seed(rng), sde=False).x.numpy()
    se_mean = math.sqrt(tv / n)
    crit = [Criterion("max |guided mean - tilt mean|", mean_err, 0.05, "<="),
            Criterion("max |guided var / tilt var - 1|", var_err, 0.05, "<="),
            Criterion("relative L2 error of V_phi vs the exact chain value (up to a t-constant)", relv, 0.10, "<=")]
    table = [{"quantity": "tilt mean (closed form)", "value": str(np.round(tm, 4))},
             {"quantity": "VM SDE sample mean", "value": str(np.round(xs.mean(0), 4))},
             {"quantity": "VM ODE sample mean [reported]", "value": str(np.round(ode.mean(0), 4))},
             {"quantity": "tilt var / VM SDE var", "value": f"{tv:.4f} / {np.round(xs.var(0), 4)}"},
             {"quantity": "MC SE of a sample mean", "value": se_mean},
             {"quantity": "final MC objective J (on-policy)", "value": vm.history_["objective"][-1]},
             {"quantity": "reward calls", "value": vm.n_reward_calls_}]
    return vm, crit, table, _tilt_figure(xs, ode, tm, tv, kind, vec, lam)


def _tilt_figure(xs, ode, tm, tv, kind, vec, lam):
    """Histogram of the guided samples projected on the tilt direction (95% binomial error bars) against the
    closed-form tilted density and the base density."""
    u = (vec if kind == "linear" else vec - M2) / np.linalg.norm(vec if kind == "linear" else vec - M2)
    proj, proj_ode = xs @ u, ode @ u
    lo, hi = min(M2 @ u, tm @ u) - 4 * math.sqrt(S2), max(M2 @ u, tm @ u) + 4 * math.sqrt(S2)
    edges = np.linspace(lo, hi, 41)
    w = edges[1] - edges[0]
    mid = 0.5 * (edges[1:] + edges[:-1])
    fig, ax = subplots(figsize=(11, 4.4))
    n = len(proj)
    cnt = np.histogram(proj, edges)[0]
    p = cnt / n
    ax.bar(mid, p / w, width=w, color="C0", alpha=0.35, label=f"VM guided SDE samples (n = {n})")
    ax.errorbar(mid, p / w, yerr=1.96 * np.sqrt(p * (1 - p) / n) / w, fmt="none", ecolor="C0", capsize=2,
                label="95% binomial error bar")
    ax.plot(mid, np.histogram(proj_ode, edges)[0] / n / w, drawstyle="steps-mid", color="C2", lw=1.2,
            label="VM ODE samples (reported)")
    grid = np.linspace(lo, hi, 400)
    for mu, var, lab, ls, col in ((tm @ u, tv, f"exact tilt (lam = {lam:g})", "-", "C3"),
                                  (M2 @ u, S2, "base N(m, s^2 I)", "--", "grey")):
        ax.plot(grid, np.exp(-(grid - mu) ** 2 / (2 * var)) / math.sqrt(2 * math.pi * var), ls, color=col, label=lab)
    ax.set_xlabel("sample projected on the tilt direction" + (" a/|a|" if kind == "linear" else " (c - m)/|c - m|"))
    ax.set_ylabel("density")
    ax.set_title(f"{kind} reward: guided samples vs the closed-form tilt")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return readable(fig)


@check(method="value_matching", paper=PAPER, budget=10,
       guarantee="B3-1: with a Gaussian base N(m, s^2 I) and a linear reward a.x, value matching learns the "
                 "optimal cost-to-go from reward values only, and the guided memoryless SDE samples the exact "
                 "tilt N(m + lam s^2 a, s^2 I): sample mean within 0.05 and variance within 5%, value error "
                 "under 10% of the value's spread")
def linear_tilt_recovery(profile, rng, _variant=None):
    vm, crit, table, fig = _tilt_check(profile, rng, "linear", 2.0, _variant)
    return CheckResult(criteria=crit, table=table, figure=fig,
                       details="d=2, m=(0.5,-0.3), s^2=0.64, a=(1,0.5), lam=2 (tilt shift (1.28, 0.64)); VM: 256 "
                               "rollouts x 15 iterations (quick), 3x64 value MLP; 10k guided samples (SE of a mean "
                               "0.008, so 0.05 is 6 SE; var SE 1.4%). The value is compared with the exact optimal "
                               "cost-to-go of the discretised chain (backward recursion) on states of the optimally "
                               "guided chain. Catches: the control evaluated at (x_k, t_k) instead of the look-ahead "
                               "(mean error 0.11 at seed 0), a control without the sigma factor (0.19), a flipped sign.")


@check(method="value_matching", paper=PAPER, budget=14,
       guarantee="B3-2: with a Gaussian base and the quadratic reward -|x - c|^2/2, the VM-guided SDE samples the "
                 "tilt N((m/s^2 + lam c)/(1/s^2 + lam), (1/s^2 + lam)^-1 I): mean within 0.05, variance within "
                 "5%, value error under 10%")
def quadratic_tilt_recovery(profile, rng, _variant=None):
    vm, crit, table, fig = _tilt_check(profile, rng, "quadratic", 2.0, _variant, steps=50, n_iter=profile.pick(20, 40),
                                       epochs=4)
    return CheckResult(criteria=crit, table=table, figure=fig,
                       details="c=(1.5,1.0), lam=2 (tilt variance 0.281); a 50-step grid in both profiles (the "
                               "exactly optimal 25-step chain is itself 0.025 off the continuous tilt mean, 0.018 at "
                               "50 steps), 20 iterations of 4 epochs (with 2, seeds 0 and 4 missed the variance / value "
                               "criteria: the quadratic value needs the longer fits); otherwise as B3-1. Classifier guidance "
                               "(offline) learns -lam E[r | X_t], whose gradient overshoots the optimal one by "
                               "(1 + lam/P_t): run with _variant='offline' it fails the mean and variance criteria.")


def _ring(radius=2.0, sd=0.3, K=8):
    from iclr26sci.nn import GaussianFlowOracle

    ang = 2 * np.pi * np.arange(K) / K
    means = radius * np.c_[np.cos(ang), np.sin(ang)]
    return GaussianFlowOracle(mean=means, cov=sd ** 2 * np.eye(2)), means


@check(method="value_matching", paper=PAPER, budget=12,
       guarantee="B3-3: with the non-differentiable reward 1{x in A} (A a half-plane) on an 8-Gaussian ring, VM "
                 "(reward values only) reaches the exact tilted mass P*(A) = e^lam P(A) / (e^lam P(A) + 1 - P(A)) "
                 "within 2 percentage points for lam in {1, 3}, and inside A the mode proportions are the base's "
                 "conditional ones (chi-square p > 0.01)")
def indicator_tilt_mass(profile, rng, _variant=None):
    import torch

    orc, means = _ring()
    thr = 0.5

    def reward(x):
        return (x[:, 0] > thr).to(torch.float64)

    import torch as _t

    from iclr26sci.generative._vm_core import _Base, rollout

    steps = profile.pick(25, 50)
    base_x = rollout(_Base(orc, steps), profile.pick(200000, 1000000), _t.Generator().manual_seed(_seed(rng)),
                     keep=False)["x"].numpy()
    inA = base_x[:, 0] > thr
    pA = float(inA.mean())
    modes = np.argmin(((base_x[:, None, :] - means[None]) ** 2).sum(-1), 1)
    cond_p = np.bincount(modes[inA], minlength=8) / inA.sum()
    crit, table = [], []
    n = profile.pick(10000, 20000)
    for lam in (1.0, 3.0):
        vm = _fit_vm(orc, reward, lam, profile, rng, on_policy=_variant != "offline")
        xs = vm.sample(n=n, rng=_seed(rng)).x.numpy()
        a = xs[:, 0] > thr
        frac = float(a.mean())
        pstar = math.exp(lam) * pA / (math.exp(lam) * pA + 1 - pA)
        m = np.argmin(((xs[a][:, None, :] - means[None]) ** 2).sum(-1), 1)
        obs = np.bincount(m, minlength=8)
        keep = cond_p * a.sum() >= 5
        exp_counts = cond_p[keep] / cond_p[keep].sum() * obs[keep].sum()
        p = float(stats.chisquare(obs[keep], exp_counts).pvalue)
        crit.append(Criterion(f"|fraction in A - P*(A)| at lam={lam:g}", abs(frac - pstar), 0.02, "<="))
        crit.append(Criterion(f"chi-square p of mode proportions in A at lam={lam:g}", p, 0.01, ">"))
        table.append({"lam": lam, "P(A) base": pA, "P*(A) exact": pstar, "VM fraction": frac,
                      "SE": math.sqrt(pstar * (1 - pstar) / n), "chi2 p": p, "reward calls": vm.n_reward_calls_})
    return CheckResult(criteria=crit, table=table,
                       details="Ring of 8 N(mu_j, 0.3^2 I), radius 2; A = {x_1 > 0.5}; P(A) and the mode proportions "
                               "within A from samples of the base model (its memoryless chain on the same grid, 2e5 "
                               "quick, 1e6 full: the law VM tilts); 10k guided samples (binomial SE <= 0.005, 2 pp = 4 SE). The reward "
                               "is a step, used only through its values. Catches: classifier guidance (offline, "
                               "_variant='offline') whose guidance under-tilts at lam=3, a value net that ignores the "
                               "reward (no tilt), a flipped control sign.")


def _indicator_setup(profile, rng, thr=0.5):
    """The B3-3 ring, its reward 1{x_1 > thr}, and the base chain's P(A), in-A mode proportions and in-A share of
    the boundary band thr < x_1 < thr + 0.3 (from base-chain samples on the VM grid)."""
    import torch

    from iclr26sci.generative._vm_core import _Base, rollout

    orc, means = _ring()
    steps = profile.pick(25, 50)
    base_x = rollout(_Base(orc, steps), profile.pick(200000, 1000000), torch.Generator().manual_seed(_seed(rng)),
                     keep=False)["x"].numpy()
    inA = base_x[:, 0] > thr
    modes = np.argmin(((base_x[:, None, :] - means[None]) ** 2).sum(-1), 1)
    return (orc, means, lambda x: (x[:, 0] > thr).to(torch.float64), float(inA.mean()),
            np.bincount(modes[inA], minlength=8) / inA.sum(), float((base_x[inA][:, 0] < thr + 0.3).mean()))


def _in_set(xs, means, cond_p, thr=0.5):
    """Fraction in A, the chi-square p of the in-A mode proportions against ``cond_p`` and the in-A share of
    the boundary band, for independent samples ``xs``."""
    a = xs[:, 0] > thr
    m = np.argmin(((xs[a][:, None, :] - means[None]) ** 2).sum(-1), 1)
    obs = np.bincount(m, minlength=8)
    keep = cond_p * a.sum() >= 5
    p = float(stats.chisquare(obs[keep], cond_p[keep] / cond_p[keep].sum() * obs[keep].sum()).pvalue)
    return float(a.mean()), p, float((xs[a][:, 0] < thr + 0.3).mean()), int(a.sum())


def _in_set_weighted(xs, logw, means, cond_p, thr=0.5):
    r"""The same quantities for a self-normalised importance sample (paths ``xs``, log-weights ``logw``), with
    delta-method standard errors: an estimate :math:`\hat\theta = \sum_i \bar w_i f_i / \sum_i \bar w_i g_i` has
    influence :math:`\psi_i = \bar w_i (f_i - \hat\theta g_i) / \sum_j \bar w_j g_j` and variance
    :math:`\sum_i \psi_i^2`. The mode proportions are tested by the Wald statistic
    :math:`d^\top \Sigma^{-1} d` on all but one kept mode (:math:`\Sigma = \sum_i \psi_i\psi_i^\top`), chi-square
    with (kept modes - 1) degrees of freedom; for equal weights it is Pearson's test. Returns (fraction in A, its
    SE, Wald p, band share, its SE)."""
    w = np.exp(logw - logw.max())
    w /= w.sum()
    a = (xs[:, 0] > thr).astype(float)
    pa = float(w @ a)
    se_pa = float(np.sqrt(np.sum(w ** 2 * (a - pa) ** 2)))
    band = a * (xs[:, 0] < thr + 0.3)
    b = float(w @ band) / pa
    se_b = float(np.sqrt(np.sum((w * (band - b * a)) ** 2)) / pa)
    modes = np.argmin(((xs[:, None, :] - means[None]) ** 2).sum(-1), 1)
    E = np.eye(8)[modes] * a[:, None]                                   # (n, 8) in-A mode indicators
    pi = (w @ E) / pa
    keep = np.flatnonzero(cond_p * a.sum() >= 5)[:-1]                   # drop one kept mode (proportions sum to 1)
    psi = w[:, None] * (E[:, keep] - pi[keep][None] * a[:, None]) / pa
    d = pi[keep] - cond_p[keep] / cond_p[np.flatnonzero(cond_p * a.sum() >= 5)].sum()
    W = float(d @ np.linalg.solve(psi.T @ psi, d))
    return pa, se_pa, float(stats.chi2.sf(W, len(keep))), b, se_b


@check(method="value_matching", paper=PAPER, budget=25,
       guarantee="B3-3 diagnosis: with the indicator reward 1{x_1 > 0.5} on the 8-Gaussian ring, the VM-guided samples "
                 "under-fill the band just inside A's hard boundary (0.5 < x_1 < 0.8) against the exact tilt "
                 "(which only reweights, so inside A it keeps the base's shape), by at least 3 SE at lam = 3; "
                 "importance correction of the final samples (ValueMatching.sample(importance_correct=True): "
                 "self-normalised discrete-Girsanov weights exp(lam r - sum(u.dB + |u|^2 h / 2)), then resampling) "
                 "restores it: tilted mass within 2 pp and band share within 3 SE (delta-method SEs of the weighted "
                 "estimates), effective sample size >= 10% of n, at lam in {1, 3}; the in-A mode proportions (B3-3's "
                 "own criterion) are reported, not required")
def indicator_importance_correction(profile, rng, _variant=None):
    from unittest import mock

    orc, means, reward, pA, cond_p, band_exact = _indicator_setup(profile, rng)
    n = profile.pick(10000, 20000)
    ctx = contextlib.nullcontext()
    if _variant == "no-weights":   # broken: resampling with equal weights, i.e. no correction at all
        ctx = mock.patch("iclr26sci.generative._vm_core.importance_resample",
                         lambda logw, n, g: (np.arange(n), float(n)))
    elif _variant is not None:
        raise ValueError(f"unknown variant {_variant!r}; known: ['no-weights']")
    crit, table = [], []
    for lam in (1.0, 3.0):
        vm = _fit_vm(orc, reward, lam, profile, rng)
        seed = _seed(rng)
        raw = vm.sample(n=n, rng=seed).x.numpy()                     # the guided paths (same seed, same draws)
        with ctx:
            res = vm.sample(n=n, rng=seed, importance_correct=True)
        ess = float(res.extra["ess"])
        logw = np.asarray(res.extra["log_weights"], dtype=float)
        if _variant == "no-weights":
            logw = np.zeros(n)
        if not np.array_equal(res.x.numpy(), raw[res.extra["index"]]):
            raise AssertionError("the corrected samples are not a resampling of the guided paths")
        pstar = math.exp(lam) * pA / (math.exp(lam) * pA + 1 - pA)
        f_raw, p_raw, b_raw, nA_raw = _in_set(raw, means, cond_p)
        f_ic, se_f, p_ic, b_ic, se_b = _in_set_weighted(raw, logw, means, cond_p)
        se_raw = math.sqrt(band_exact * (1 - band_exact) / nA_raw)     # binomial SE of the raw band share
        if lam == 3.0:
            crit.append(Criterion("raw VM: (exact band share - VM band share) / SE at lam=3 (the diagnosis)",
                                  (band_exact - b_raw) / se_raw, 3.0, ">="))
        crit += [Criterion(f"corrected: |fraction in A - P*(A)| at lam={lam:g}", abs(f_ic - pstar), 0.02, "<="),
                 Criterion(f"corrected: |band share - exact| / SE at lam={lam:g}", abs(b_ic - band_exact) / se_b,
                           3.0, "<="),
                 Criterion(f"corrected: ESS / n at lam={lam:g}", ess / n, 0.10, ">=")]
        table += [{"lam": lam, "sampler": "exact tilt", "fraction in A": pstar, "band share in A": band_exact,
                   "SE": float("nan"), "mode p": float("nan"), "ESS": float("nan")},
                  {"lam": lam, "sampler": "VM guided SDE", "fraction in A": f_raw, "band share in A": b_raw,
                   "SE": se_raw, "mode p": p_raw, "ESS": float(n)},
                  {"lam": lam, "sampler": "VM + importance correction (weighted)", "fraction in A": f_ic,
                   "band share in A": b_ic, "SE": se_b, "mode p": p_ic, "ESS": ess}]
    return CheckResult(criteria=crit, table=table,
                       details="The B3-3 setting (ring of 8 N(mu_j, 0.3^2 I), A = {x_1 > 0.5}, the same VM fit). The "
                               "exact tilt is e^lam 1_A p_base / Z: inside A it is the base law rescaled, so the in-A "
                               "band share and mode proportions are the base chain's (2e5 base samples, quick). The "
                               "learned value is smooth, so its drift -sigma^2 grad V pushes mass away from the step "
                               "instead of reweighting across it: the raw band share falls short. The correction "
                               "weights each guided path by the exact discrete Girsanov ratio of the base chain to the "
                               "guided one times e^{lam r}, consistent for any control. The criteria use the weighted "
                               "paths (the resampled ones returned to the user are a noisier copy of them): delta-method "
                               "SEs, 3 SE two-sided (a Kish-ESS binomial SE understated the spread, because the largest "
                               "weights sit in the boundary band that is measured). Positive control: the exact tilt's numbers (from the "
                               "base). The in-A mode proportions' Wald p is in the table but is not a criterion: at "
                               "master seed 4, lam = 3, it was 3e-4 after correction (the modes at x_1 = 0 reach A only in "
                               "their tails, where the guided sampler puts few paths with large weights), so the "
                               "correction does not reliably fix B3-3, which stays declared. Catches: resampling without weights (variant 'no-weights': the band deficit "
                               "and the mode proportions stay).")


@check(method="value_matching", paper=PAPER, budget=5,
       guarantee="B4: the true objective J(u_i) = E[sum 1/2|u|^2 h - lam r] of the VM policy, measured by Monte "
                 "Carlo on fresh rollouts, does not increase over policy-iteration steps (up to 2 standard errors) "
                 "and never goes below the optimum -log E_base[exp(lam r)] (up to 3 standard errors)")
def policy_iteration_monotone(profile, rng, _variant=None):
    from iclr26sci.generative import ValueMatching
    from iclr26sci.generative._vm_core import _Base, call_reward, rollout
    from iclr26sci.nn import GaussianFlowOracle
    import torch

    lam = 4.0
    orc = GaussianFlowOracle(mean=M2, cov=S2 * np.eye(2))
    reward = _reward("quadratic", C_QUAD)
    steps = profile.pick(25, 50)
    vm = ValueMatching(orc, reward, lam=lam, steps=steps, hidden=(64, 64, 64), rollouts=256, lr=2e-3, epochs=8,
                       replay=1, lr_decay=1.0, warm_start=True, rng=_seed(rng))
    if _variant == "flipped":
        vm_sample_scale = -1.0
    else:
        vm_sample_scale = 1.0
    checkpoints = profile.pick([1, 2, 4, 8], [1, 2, 4, 8, 16, 32])
    n_eval = profile.pick(10000, 100000)
    done, Js = 0, []
    for c in checkpoints:
        vm.fit(n_iter=c - done, progress=False)
        done = c
        Js.append(vm.objective(n=n_eval, guidance_scale=1.0, rng=_seed(rng)) if vm_sample_scale > 0 else
                  _flipped_objective(vm, n_eval, _seed(rng)))
    base = _Base(orc, steps)
    xb = rollout(base, n_eval * 4, torch.Generator().manual_seed(_seed(rng)), keep=False)["x"]
    w = lam * call_reward(reward, xb)
    wmax = w.max()
    jstar = -(wmax + math.log(np.mean(np.exp(w - wmax))))
    se_star = float(np.std(np.exp(w - wmax)) / np.mean(np.exp(w - wmax)) / math.sqrt(len(w)))
    incs = [(Js[i + 1]["objective"] - Js[i]["objective"]) / math.hypot(Js[i + 1]["se"], Js[i]["se"])
            for i in range(len(Js) - 1)]
    low = (Js[-1]["objective"] - jstar) / math.hypot(Js[-1]["se"], se_star)
    crit = [Criterion("max increase of J between checkpoints, in SE of the difference", max(incs), 2.0, "<="),
            Criterion("(J_final - J*) / SE (verification bound J >= J*)", low, -3.0, ">=")]
    table = [{"iterations": c, "J": J["objective"], "SE": J["se"], "KL": J["kl"], "E r": J["reward_mean"]}
             for c, J in zip(checkpoints, Js)]
    table.append({"iterations": "optimum", "J": jstar, "SE": se_star, "KL": float("nan"), "E r": float("nan")})
    return CheckResult(criteria=crit, table=table,
                       details=f"Quadratic reward, lam={lam:g}; J of the guided sampler at iteration checkpoints "
                               f"{checkpoints}, each on {n_eval} fresh rollouts (independent, so the SE of a "
                               "difference is the root sum of squares); J* = -log E[exp(lam r(X_K))] over 4x as many "
                               "base-chain rollouts (Donsker-Varadhan: J(u) = KL - lam E r >= J* for every control). "
                               "Policy iteration is monotone when each policy is evaluated on its own rollouts: "
                               "replay=1 and 8 epochs per iteration here (with replay=2 the buffer mixes two "
                               "policies' targets and J can overshoot at lam=4). Catches: a flipped control (J rises), "
                               "an undercounted control cost (J falls below J*).")


def _flipped_objective(vm, n, seed):
    """Broken variant: the guided sampler with the drift correction's sign flipped."""
    from unittest import mock

    from iclr26sci.generative import _vm_core

    orig = _vm_core.control
    with mock.patch.object(_vm_core, "control", lambda s, g, sc, c: orig(s, -g, sc, c)):
        return vm.objective(n=n, rng=seed)


def _wide_velocity(d, w):
    import torch

    from iclr26sci.nn import mlp

    class WideVelocity(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = mlp(d + 1, d, hidden=(w, w))
            self.event_shape = (d,)

        def forward(self, x, t, cond=None):
            return self.net(torch.cat([x, t.reshape(-1, 1).to(x.dtype)], 1))

    return WideVelocity()


@check(method="value_matching", paper=PAPER, budget=3,
       guarantee="B3-5: the training memory of value matching (tensors saved for backward plus the value "
                 "network's parameters, gradients and Adam moments) is flat in the frozen base network's width "
                 "(variation < 10%), while Adjoint Matching's grows at least linearly, and at the largest width VM "
                 "needs at most 5% of AM's training memory")
def memory_flat_in_base_width(profile, rng, _variant=None):
    import torch

    from iclr26sci.generative import ValueMatching, adjoint_matching

    widths = profile.pick([256, 1024, 4096], [256, 1024, 4096, 8192])
    d, B, steps = 2, 64, 4
    torch.manual_seed(_seed(rng))

    def reward(x):
        return x[:, 0].double()

    rows = []
    for w in widths:
        net = _wide_velocity(d, w)
        vm = ValueMatching(net, reward, lam=1.0, steps=steps, hidden=(256, 256, 256), rollouts=B, batch_size=B,
                           epochs=1, rng=_seed(rng))
        with _through_base() if _variant == "through_base" else contextlib.nullcontext():
            vm.fit(n_iter=1, progress=False)
        am = adjoint_matching(net, reward, lam=1.0, n_iter=1, rollouts=B, steps=steps, rng=_seed(rng))
        base_bytes = sum(p.numel() * p.element_size() for p in net.parameters())
        rows.append({"width": w, "VM bytes": vm.history_["train_memory_bytes"][0],
                     "AM bytes": am.history_["train_memory_bytes"][0], "base weights": base_bytes})
    vmb = np.array([r["VM bytes"] for r in rows], float)
    amb = np.array([r["AM bytes"] for r in rows], float)
    for r in rows:
        r["VM/AM"] = r["VM bytes"] / r["AM bytes"]
        r["VM/AM incl. base weights [reported]"] = (r["VM bytes"] + r["base weights"]) / \
            (r["AM bytes"] + r["base weights"])
    slope = float(np.polyfit(np.log(widths), np.log(amb), 1)[0])
    crit = [Criterion("VM memory variation (max - min) / min over widths", float((vmb.max() - vmb.min()) / vmb.min()),
                      0.10, "<"),
            Criterion("log-log slope of AM memory in width", slope, 0.9, ">="),
            Criterion("VM / AM training memory at the largest width", float(vmb[-1] / amb[-1]), 0.05, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"Frozen base: a velocity MLP 3 -> {widths} x 2 hidden -> 2; one training step each "
                               f"({B} states, {steps}-step grid); bytes counted exactly with "
                               "torch.autograd.graph.saved_tensors_hooks (no CUDA here), plus 4x the trainable "
                               "parameters (weights, gradients, Adam moments). The frozen base weights every method "
                               "holds are reported separately. Catches: a value step whose base forward is recorded "
                               "by autograd (_variant='through_base': VM memory grows with the base).")


def _through_base():
    """Broken variant: the guided step runs the base forward with autograd on (no torch.no_grad)."""
    from unittest import mock

    from iclr26sci.generative import _vm_core

    orig = _vm_core._Base.step

    def step(self, x, k, g):
        import torch

        with torch.enable_grad():        # the base forward recorded by autograd (its saved tensors), then dropped
            self.sde.fm(x, torch.full((x.shape[0],), float(self.times[k]), dtype=x.dtype))
        return orig(self, x, k, g)

    return mock.patch.object(_vm_core._Base, "step", step)


@check(method="value_matching", paper=PAPER, budget=6,
       guarantee="B3-6: trained on-policy, the value network is accurate where the guided sampler goes; classifier "
                 "guidance, trained offline on base states with the same reward calls, is not: on states of the "
                 "optimally guided chain at lam = 5 its value MSE (up to a t-constant) is at least 2x VM's")
def on_policy_vs_offline_shift(profile, rng, _variant=None):
    from iclr26sci.generative import classifier_guidance
    from iclr26sci.nn import GaussianFlowOracle

    lam = 5.0
    orc = GaussianFlowOracle(mean=M2, cov=S2 * np.eye(2))
    reward = _reward("quadratic", C_QUAD)
    steps = profile.pick(25, 50)
    n_iter = profile.pick(15, 40)
    vm = _fit_vm(orc, reward, lam, profile, rng, on_policy=_variant != "offline", n_iter=n_iter)
    cg = classifier_guidance(orc, reward, lam=lam, n_iter=n_iter, steps=steps, hidden=(64, 64, 64), rollouts=256,
                             lr=2e-3, epochs=2, rng=_seed(rng))
    Qs, qs = discrete_value(orc, vm.times_, lam, c=C_QUAD)
    X, _ = _exact_states(orc, vm.times_, Qs, qs, 4000, _seed(rng))
    ks = list(range(1, len(vm.times_)))

    def mse(est):
        tot = 0.0
        for k in ks:
            Vt = 0.5 * np.einsum("bi,ij,bj->b", X[k], Qs[k], X[k]) + X[k] @ qs[k]
            dd = est.value(X[k], float(vm.times_[k])) - Vt
            tot += float(np.mean((dd - dd.mean()) ** 2))
        return tot / len(ks)

    m_vm, m_cg = mse(vm), mse(cg)
    crit = [Criterion("value MSE ratio CG / VM on optimally guided states", m_cg / m_vm, 2.0, ">=")]
    table = [{"method": "VM (on-policy)", "value MSE": m_vm, "reward calls": vm.n_reward_calls_},
             {"method": "CG (offline)", "value MSE": m_cg, "reward calls": cg.n_reward_calls_}]
    return CheckResult(criteria=crit, table=table,
                       details=f"Quadratic reward, lam={lam:g}, {n_iter} iterations x 256 rollouts each; MSE against "
                               "the exact cost-to-go of the discretised chain, averaged over the grid, per-time "
                               "constants removed (only gradients guide). Catches: VM run offline "
                               "(_variant='offline' gives ratio 1.4 at seed 0).")


# ------------------------------------------------------------------------------------------------ claims tier
from .claims import ClaimResult, Effect, claim as _claim, paired_effect  # noqa: E402

_VC = {"m": 0.0, "s": 1.0, "thr": 1.0, "lam": 2.0}


def _step_reward(x):
    """r(x) = 1{x_1 > thr}, written as (sign(x_1 - thr) + 1)/2: autograd returns a zero gradient almost everywhere."""
    import torch

    return 0.5 * (torch.sign(x[:, 0].double() - _VC["thr"]) + 1.0)


def _exact_step_value():
    r"""The exact continuous-time optimal value of the 1-D Gaussian base under the step reward, as a torch module.

    Under the memoryless SDE, :math:`X_1 \mid X_t = x` is the interpolant's Gaussian posterior
    :math:`N(\mu_t(x), v_t)` with :math:`\mu_t = m + \frac{t s^2}{t^2 s^2 + (1-t)^2}(x - t m)`,
    :math:`v_t = s^2 - \frac{t^2 s^4}{t^2 s^2 + (1-t)^2}`, so
    :math:`V^*(x, t) = -\log\bigl(1 + (e^\lambda - 1)\,\Phi((\mu_t - \text{thr}) / \sqrt{v_t})\bigr)`.
    """
    import torch

    m, s, thr, lam = _VC["m"], _VC["s"], _VC["thr"], _VC["lam"]

    class ExactValue(torch.nn.Module):
        def forward(self, x, t):
            t = t.reshape(-1).double()
            x = x[:, 0].double()
            var_t = t ** 2 * s ** 2 + (1 - t) ** 2
            mu = m + t * s ** 2 / var_t * (x - t * m)
            v = (s ** 2 - t ** 2 * s ** 4 / var_t).clamp(min=1e-12)
            return -torch.log1p((math.exp(lam) - 1) * torch.special.ndtr((mu - thr) / v.sqrt()))

    return ExactValue()


def _tilt_w1(x):
    """W1 distance between the samples' law and the exact tilt p* ∝ N(m, s^2) e^{lam 1{x > thr}} (closed-form CDF)."""
    m, s, thr, lam = _VC["m"], _VC["s"], _VC["thr"], _VC["lam"]
    grid = np.linspace(m - 7 * s, m + 7 * s, 7001)
    c0, cg = stats.norm.cdf(thr, m, s), stats.norm.cdf(grid, m, s)
    Z = math.exp(lam) * (1 - c0) + c0
    F = np.where(grid <= thr, cg, c0 + math.exp(lam) * (cg - c0)) / Z
    xs = np.sort(np.asarray(x, dtype=float).ravel())
    Fn = np.searchsorted(xs, grid, side="right") / xs.size
    return float(np.trapezoid(np.abs(Fn - F), grid))


def _claim_vm_step(profile, rng, value="learned", reps=5, n_iter=10, n=4000, steps=25):
    import torch

    from iclr26sci.generative import ValueMatching, gradient_guidance
    from iclr26sci.generative._vm_core import _Base, rollout
    from iclr26sci.nn import GaussianFlowOracle

    m, s, thr, lam = _VC["m"], _VC["s"], _VC["thr"], _VC["lam"]
    orc = GaussianFlowOracle(mean=[m], cov=[[s ** 2]])
    base = _Base(orc, steps)
    pA = float(stats.norm.sf(thr, m, s))
    pstar = math.exp(lam) * pA / (math.exp(lam) * pA + 1 - pA)
    w_gg, w_vm, w_ex, rows = [], [], [], []
    calls = 0
    for r in range(reps):
        gg = gradient_guidance(orc, _step_reward, n=n, lam=lam, steps=steps, rng=_seed(rng))
        if value == "learned":
            vm = ValueMatching(orc, _step_reward, lam=lam, steps=steps, hidden=(64, 64, 64), rollouts=256, lr=2e-3,
                               epochs=2, rng=_seed(rng)).fit(n_iter=n_iter, progress=False)
            xv = vm.sample(n=n, rng=_seed(rng)).x.numpy()
            calls = vm.n_reward_calls_
        else:                                    # broken variant: a value network that was never trained (V = 0)
            xv = rollout(base, n, torch.Generator().manual_seed(_seed(rng)), vnet=None, keep=False)["x"].numpy()
        xe = rollout(base, n, torch.Generator().manual_seed(_seed(rng)), vnet=_exact_step_value(), clip=10.0,
                     keep=False)["x"].numpy()
        w_gg.append(_tilt_w1(gg.x.numpy()))
        w_vm.append(_tilt_w1(xv))
        w_ex.append(_tilt_w1(xe))
        rows.append({"replicate": r, "W1 gradient guidance": w_gg[-1], "W1 VM": w_vm[-1], "W1 exact-value control": w_ex[-1],
                     "P(A) GG": float((gg.x.numpy()[:, 0] > thr).mean()), "P(A) VM": float((xv[:, 0] > thr).mean()),
                     "P(A) exact-value": float((xe[:, 0] > thr).mean()), "P*(A) exact tilt": pstar})
    d_base = _tilt_w1(stats.norm.rvs(m, s, size=200000, random_state=0))   # W1(base, tilt): GG cannot move
    min_eff = 0.5 * d_base
    eff = paired_effect(w_gg, w_vm, min_eff, what="W1(GG, exact tilt) - W1(VM, exact tilt)")
    ctrl = paired_effect(w_gg, w_ex, min_eff, what="W1(GG, exact tilt) - W1(exact-value guidance, exact tilt)")
    rows.append({"replicate": "W1(base, exact tilt)", "W1 gradient guidance": d_base, "W1 VM": float("nan"),
                 "W1 exact-value control": float("nan"), "P(A) GG": pA, "P(A) VM": float("nan"),
                 "P(A) exact-value": float("nan"), "P*(A) exact tilt": pstar})
    return ClaimResult(effect=eff, control=ctrl, table=rows,
                       details=f"1-D base N({m:g}, {s:g}^2) (exact GaussianFlowOracle), reward 1{{x > {thr:g}}} written "
                               f"as (sign(x - {thr:g}) + 1)/2, lam = {lam:g}: the exact tilt moves P(A) from {pA:.3f} "
                               f"to {pstar:.3f}. {reps} replicates, each a fresh VM fit ({n_iter} iterations x 256 "
                               f"rollouts = {calls} reward calls, 3x64 MLP, {steps}-step memoryless SDE) and {n} "
                               "samples per sampler; W1 to the exact tilt from its closed-form CDF. Gradient guidance "
                               "(DPS/TFG style) gets a zero reward gradient, so it returns the base. The control guides "
                               "the same sampler with the exact optimal value V*(x, t) (closed form). min effect = half "
                               f"of W1(base, tilt) = {min_eff:.3f}. Broken variant value='zero' (an untrained value "
                               "network) must fail.")


@_claim(method="value_matching", paper=PAPER, budget=60,
        claim="Value matching supports non-differentiable rewards: learning the value from reward values alone, it "
              "samples the reward-tilted law where gradient guidance, which needs the reward's gradient, cannot",
        paper_setting="abstract: gradient-free, online value learning; supports non-differentiable rewards "
                      "(image and molecular rewards; full text not retrievable)",
        paper_number="qualitative: non-differentiable rewards are supported (no number given)",
        regime="The reward is a step whose gradient is zero almost everywhere, so gradient guidance stays at the base "
               "law (W1 0.75 from the exact tilt) by construction, while the tilted law is known in closed form.",
        control="Oracle value: the same guided sampler driven by the exact optimal value V*(x, t) in closed form",
        test="one-sided paired t over 5 replicates (fresh VM fit and sample batches each), alpha 0.05; min effect "
             "half of W1(base, exact tilt)")
def c_vm_nondifferentiable_reward(profile, rng, value="learned"):
    return _claim_vm_step(profile, rng, value=value)
