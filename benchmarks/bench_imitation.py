"""Benchmark for iclr26sci.imitation (arXiv:2509.12026).

1. RS-KT solve time against problem size: our column generation (HiGHS master, DP pricing) and our
   one-piece sparse occupancy LP (HiGHS) against the occupancy LP through cvxpy + Clarabel (the
   official code's route), same data, same optimal value.
2. RS-BC fit time against N (and Markov BC).
3. Exact return-distribution evaluation against Monte-Carlo evaluation with 1e6 rollouts (the
   official evaluator), with the Monte-Carlo error measured against the exact law.
4. The methods side by side on the README's problem (a CVaR(0.2)-optimal expert on random (10, 3, 5)
   MDPs with Dirichlet transitions, N = 1000): W1, |dMean|, |dCVaR_0.2| and fit time, the spec's protocol.

Usage: python benchmarks/bench_imitation.py [--quick]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from iclr26sci.imitation import (TabularMDP, bc, build_rs_kt_lp, mimic_md, random_markov_expert,
                                 return_distribution, rs_bc, rs_kt, rs_kt_lp_size)


def _time(fn, repeat=1):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _cvxpy_clarabel(lp):
    import cvxpy as cp

    n = lp["c"].size
    x = cp.Variable(n)
    b = np.asarray(lp["bounds"])
    cons = [lp["A_eq"] @ x == lp["b_eq"], lp["A_ub"] @ x <= lp["b_ub"], x >= b[:, 0]]
    fin = np.isfinite(b[:, 1])
    cons.append(x[np.flatnonzero(fin)] <= b[fin, 1])
    prob = cp.Problem(cp.Minimize(lp["c"] @ x), cons)
    prob.solve(solver=cp.CLARABEL)
    return float(prob.value)


def bench_rskt(quick: bool):
    sizes = [(2, 2, 5, 0.05), (20, 3, 5, 0.05), (50, 5, 5, 0.05), (2, 2, 20, 0.1), (2, 2, 20, 0.05)]
    rows = []
    for S, A, H, theta in sizes:
        mdp = TabularMDP.random(S, A, H, reward_grid=theta, rng=0)
        expert = random_markov_expert(mdp, rng=1)
        demos = mdp.rollout(expert, 1000, rng=2)
        t_cg, (_, info) = _time(lambda: rs_kt(mdp, demos, theta, return_info=True))
        row = {"(S,A,H,theta)": f"({S},{A},{H},{theta})", "full-grid vars": sum(rs_kt_lp_size(S, A, H, theta)),
               "colgen s": t_cg, "colgen W": info["w_lp"], "columns": info["n_columns"]}
        if S * A <= 60:
            t_lp, (_, info_lp) = _time(lambda: rs_kt(mdp, demos, theta, method="lp", return_info=True))
            row.update({"HiGHS LP s": t_lp, "LP W": info_lp["w_lp"]})
        if (S * A <= 60 and not (quick and H > 5)) or (not quick and H == 5):
            t_b, lp = _time(lambda: build_rs_kt_lp(mdp, demos, theta))
            t_cv, val = _time(lambda: _cvxpy_clarabel(lp))
            row.update({"cvxpy+Clarabel s": t_b + t_cv, "cvxpy W": val,
                        "speed-up vs cvxpy": (t_b + t_cv) / t_cg})
        rows.append(row)
    return pd.DataFrame(rows)


def bench_rsbc(quick: bool):
    mdp = TabularMDP.random(50, 5, 5, reward_grid=0.05, rng=0)
    expert = random_markov_expert(mdp, rng=1)
    Ns = [100, 1000, 10_000] + ([] if quick else [100_000])
    big = mdp.rollout(expert, max(Ns), rng=2)
    rows = []
    for N in Ns:
        sub = big.subset(slice(0, N))
        t_rs, _ = _time(lambda: rs_bc(sub, mdp.reward, 0.05), repeat=5)
        t_bc, _ = _time(lambda: bc(sub), repeat=5)
        rows.append({"N": N, "RS-BC fit ms": 1e3 * t_rs, "BC fit ms": 1e3 * t_bc, "ratio RS-BC/BC": t_rs / t_bc})
    return pd.DataFrame(rows)


def bench_eval(quick: bool):
    rows = []
    M = 200_000 if quick else 1_000_000
    for S, A, H in [(20, 3, 5), (50, 5, 5)]:
        mdp = TabularMDP.random(S, A, H, reward_grid=0.05, rng=0)
        expert = random_markov_expert(mdp, rng=1)
        demos = mdp.rollout(expert, 1000, rng=2)
        pol = rs_bc(demos, mdp.reward, 0.05)
        t_ex, exact = _time(lambda: return_distribution(mdp, pol), repeat=3)
        t_mc, mc = _time(lambda: return_distribution(mdp, pol, method="mc", n_rollouts=M, rng=3))
        rows.append({"(S,A,H)": f"({S},{A},{H})", "exact ms": 1e3 * t_ex, f"MC {M:.0e} ms": 1e3 * t_mc,
                     "speed-up": t_mc / t_ex, "MC error W1": mc.wasserstein(exact), "exact atoms": exact.support.size})
    return pd.DataFrame(rows)


def bench_methods(quick: bool):
    rows = []
    for seed in range(3 if quick else 10):
        mdp = TabularMDP.random(10, 3, 5, reward_grid=0.05, sparsity=0.0, rng=seed)
        expert = mdp.risk_sensitive_expert(cvar_alpha=0.2)
        demos = mdp.rollout(expert, 1000, rng=seed)
        eta_e = return_distribution(mdp, expert)
        learners = {"RS-KT": lambda: rs_kt(mdp, demos, 0.05), "RS-BC": lambda: rs_bc(demos, mdp.reward, 0.05),
                    "BC": lambda: bc(demos), "MIMIC-MD": lambda: mimic_md(mdp, demos)}
        for name, fit in learners.items():
            t, pol = _time(fit)
            eta = return_distribution(mdp, pol)
            rows.append({"rng": seed, "method": name, "W1": eta.wasserstein(eta_e),
                         "|dMean|": abs(eta.mean() - eta_e.mean()), "|dCVaR_0.2|": abs(eta.cvar(0.2) - eta_e.cvar(0.2)),
                         "fit s": t})
    df = pd.DataFrame(rows)
    return df.groupby("method", sort=False)[["W1", "|dMean|", "|dCVaR_0.2|", "fit s"]].mean().reset_index()


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    pd.set_option("display.width", 200)
    pd.set_option("display.float_format", lambda v: f"{v:.4g}")
    print("== RS-KT: column generation vs one-piece HiGHS LP vs cvxpy+Clarabel (N = 1000) ==")
    print(bench_rskt(args.quick).to_string(index=False))
    print("\n== RS-BC fit time, (S,A,H) = (50,5,5) ==")
    print(bench_rsbc(args.quick).to_string(index=False))
    print("\n== Exact return-law evaluation vs Monte Carlo ==")
    print(bench_eval(args.quick).to_string(index=False))
    print("\n== Methods on the README problem (CVaR(0.2) expert, (10,3,5), sparsity 0, N = 1000; means over MDPs) ==")
    print(bench_methods(args.quick).to_string(index=False))


if __name__ == "__main__":
    main()
