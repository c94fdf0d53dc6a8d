"""Benchmark: efficient sharp policy learning vs plug-in, DR, IPW, DM, Kallus-Zhou and econml's DRPolicyTree.

Data: validation DGP V1 (K = 2, d = 1) with the extremal full-data law at Gamma = 4, so the true value of every policy equals its sharp upper bound V^+
(computed in closed form on 200,000 fresh covariate draws). Regret = V(pi-hat) - V(uniform)
under that worst-case law (lower is better), and under the benign (unconfounded) law.
A second table times the whole efficient pipeline (5-fold cross-fitted default nuisances, score
matrix, softmax-linear policy, both bounds with standard errors) at n = 50,000, K = 2, d = 10
against econml's DRPolicyTree on the same data (full run only).

    python benchmarks/bench_causal.py [--quick]
    python benchmarks/bench_causal.py --timing                     # only the n = 50,000 timing against econml
    python benchmarks/bench_causal.py --n 1000000 [--profile] [--with-econml]   # the n = 10^6 target (K = 2, d = 10)
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from iclr26sci.causal import (KallusZhouLearner, SoftmaxLinearPolicy, cross_fit_nuisances, quantile_level,
                              score_matrix, sharp_value_bounds, simulate_v1, v1_capo_bound, v1_nuisances)

GAMMA = 4.0
D = 1


def truth_fn(n_eval=200_000, seed=12345):
    rng = np.random.default_rng(seed)
    Xe = rng.uniform(-2, 2, size=(n_eval, D))
    xb = Xe.mean(1)
    Qp = v1_capo_bound(xb, GAMMA)
    m, _, _ = v1_nuisances(xb)

    def value(proba_fn):
        P = proba_fn(Xe)
        return float(np.mean(np.sum(P * Qp, 1))), float(np.mean(np.sum(P * m, 1)))

    unif = value(lambda X: np.full((len(X), 2), 0.5))
    return value, unif


def run_one(n, seed, value, unif, with_econml=True):
    data, _ = simulate_v1(n, GAMMA, law="extremal", d=D, rng=seed)
    rows = []
    t0 = time.perf_counter()
    lv = quantile_level(GAMMA, "upper")
    nuis = cross_fit_nuisances(data.X, data.A, data.Y, 2, [lv], cv=5, rng=seed)
    t_nuis = time.perf_counter() - t0
    for est in ("efficient", "plugin", "dr", "ipw", "dm"):
        t1 = time.perf_counter()
        G = score_matrix(nuis, data.Y, data.A, GAMMA, "upper", est)
        pol = SoftmaxLinearPolicy(rng=seed).fit(data.X, G)
        t_pol = time.perf_counter() - t1
        row = {"n": n, "seed": seed, "method": est, "time_s": t_nuis + t_pol}
        if est == "efficient":
            t2 = time.perf_counter()
            b = sharp_value_bounds(data, pol, GAMMA, cv=5, rng=seed)
            row["time_s"] += time.perf_counter() - t2      # whole pipeline: nuisances, scores, policy, bounds
            row.update(width=b.width, se=b.upper.stderr)
        elif est == "plugin":
            b = sharp_value_bounds(data, pol, GAMMA, cv=5, rng=seed, estimator="plugin")
            row.update(width=b.width, se=b.upper.stderr)
        vw, vb = value(pol.predict_proba)
        row.update(regret_worst=vw - unif[0], regret_benign=vb - unif[1])
        rows.append(row)
    t1 = time.perf_counter()
    kz = KallusZhouLearner(GAMMA, cv=5, rng=seed).fit(data, propensity=nuis.e)
    vw, vb = value(kz.predict_proba)
    rows.append({"n": n, "seed": seed, "method": "kallus-zhou", "time_s": t_nuis + time.perf_counter() - t1,
                 "regret_worst": vw - unif[0], "regret_benign": vb - unif[1]})
    if with_econml:
        try:
            from econml.policy import DRPolicyTree
            from sklearn.linear_model import LogisticRegression, Ridge
            from sklearn.pipeline import make_pipeline

            from iclr26sci.causal._nuisance import AdaptiveSplineBasis
        except ImportError as exc:  # optional peer
            print(f"econml not available ({exc}); DRPolicyTree skipped")
        else:
            t1 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pt = DRPolicyTree(model_propensity=make_pipeline(AdaptiveSplineBasis(), LogisticRegression(C=1.0)),
                                  model_regression=make_pipeline(AdaptiveSplineBasis(), Ridge(alpha=1.0)),
                                  max_depth=2, min_samples_leaf=10, cv=5, random_state=seed)
                pt.fit(-data.Y, data.A, X=data.X)       # econml maximises a reward
            t_e = time.perf_counter() - t1

            def proba(X):
                a = pt.predict(X).astype(int)
                return np.eye(2)[a]

            vw, vb = value(proba)
            rows.append({"n": n, "seed": seed, "method": "econml DRPolicyTree", "time_s": t_e,
                         "regret_worst": vw - unif[0], "regret_benign": vb - unif[1]})
    return rows


def _econml_fit(data, seed):
    """econml's DRPolicyTree with the same nuisance model classes (spline + logistic, spline + ridge), 5 folds."""
    from econml.policy import DRPolicyTree
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline

    from iclr26sci.causal._nuisance import AdaptiveSplineBasis

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DRPolicyTree(model_propensity=make_pipeline(AdaptiveSplineBasis(), LogisticRegression(C=1.0)),
                            model_regression=make_pipeline(AdaptiveSplineBasis(), Ridge(alpha=1.0)),
                            max_depth=2, min_samples_leaf=10, cv=5, random_state=seed).fit(-data.Y, data.A, X=data.X)


def _ours_fit(data, seed):
    """The efficient pipeline: learner (cross-fitted nuisances at the upper level, scores, policy) + both bounds.
    The bounds reuse the learner's nuisances (folds, propensity, upper level): only the lower level is fitted."""
    from iclr26sci.causal import SharpPolicyLearner

    c0 = time.process_time()
    learner = SharpPolicyLearner(GAMMA, cv=5, rng=seed).fit(data)
    c_fit = time.process_time() - c0
    b = sharp_value_bounds(data, learner, GAMMA, cv=5, rng=seed, nuisances=learner.nuisances_)
    return learner, b, c_fit


def pipeline_timing(n=50_000, d=10, seed=0, with_econml=True, rounds=3):
    """CPU time (time.process_time) of our pipeline and of econml's DRPolicyTree on the same data, the median of
    ``rounds`` alternating runs after a small warm-up run of each (imports and first-call costs excluded)."""

    from _common import env_info

    try:
        import econml  # noqa: F401
    except ImportError as exc:
        if with_econml:
            print(f"econml not available ({exc}); DRPolicyTree skipped")
        with_econml = False
    warm, _ = simulate_v1(2000, GAMMA, law="extremal", d=d, rng=seed)
    _ours_fit(warm, seed)
    if with_econml:
        _econml_fit(warm, seed)
    data, _ = simulate_v1(n, GAMMA, law="extremal", d=d, rng=seed)
    ours, peer, fits, walls, wpeer = [], [], [], [], []
    for _ in range(rounds):
        t0, c0 = time.perf_counter(), time.process_time()
        _, b, c_fit = _ours_fit(data, seed)
        ours.append(time.process_time() - c0)
        walls.append(time.perf_counter() - t0)
        fits.append(c_fit)
        if with_econml:
            t0, c0 = time.perf_counter(), time.process_time()
            _econml_fit(data, seed)
            peer.append(time.process_time() - c0)
            wpeer.append(time.perf_counter() - t0)
    c_ours = float(np.median(ours))
    row = {"n": n, "d": d, "ours": "efficient pipeline (learner + bounds)", "ours CPU s": c_ours,
           "learner fit CPU s": float(np.median(fits)), "ours wall s": float(np.median(walls)),
           "peer": "econml DRPolicyTree (fit)", "peer CPU s": np.nan, "peer wall s": np.nan,
           "ratio ours/peer (CPU)": np.nan, "goal": "<= 2", "rounds": rounds,
           "upper": b.upper.value, "se": b.upper.stderr, **env_info(),
           "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset")}
    if with_econml:
        row.update({"peer CPU s": float(np.median(peer)), "peer wall s": float(np.median(wpeer)),
                    "ratio ours/peer (CPU)": c_ours / float(np.median(peer))})
    return pd.DataFrame([row])


def paper_table(gammas=(2.0, 6.0, 10.0), seeds=(0, 1, 2), n_train=5000, n_test=5000):
    """The paper's synthetic experiment (official repository DGP, d = 1): regret vs uniform on noise-free
    test potential outcomes, Gamma_model = Gamma_data, same nuisances for every method."""
    from iclr26sci.causal import simulate_paper_dgp

    rows = []
    for g in gammas:
        for seed in seeds:
            tr, _ = simulate_paper_dgp(n_train, g, rng=seed)
            te, truth = simulate_paper_dgp(n_test, g, rng=10_000 + seed)
            Yp = truth["Y_potential"]
            v_unif = float(np.mean(Yp.mean(1)))
            lv = quantile_level(g, "upper")
            nuis = cross_fit_nuisances(tr.X, tr.A, tr.Y, 2, [lv], cv=5, rng=seed)
            pols = {}
            for est in ("efficient", "plugin", "dr", "ipw"):
                G = score_matrix(nuis, tr.Y, tr.A, g, "upper", est)
                pols[est] = SoftmaxLinearPolicy(rng=seed).fit(tr.X, G)
            pols["kallus-zhou"] = KallusZhouLearner(g, cv=5, rng=seed).fit(tr, propensity=nuis.e)
            for name, pol in pols.items():
                P = pol.predict_proba(te.X)
                rows.append({"gamma": g, "seed": seed, "method": name,
                             "regret": float(np.mean(np.sum(P * Yp, 1))) - v_unif})
    df = pd.DataFrame(rows)
    return df.pivot_table(index="method", columns="gamma", values="regret", aggfunc="mean")


def large_n(n, profile=False, with_econml=False, seed=0):
    """Time the whole efficient pipeline (K = 2, d = 10, 5-fold cross-fitting) at one large n."""
    import os
    import resource

    load0 = os.getloadavg()
    print(f"efficient pipeline at n={n}, K=2, d=10 (load average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"{os.cpu_count()} CPUs, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')})", flush=True)
    if profile:
        import cProfile
        import pstats

        pr = cProfile.Profile(time.process_time)     # CPU time: meaningful on a loaded machine
        pr.enable()
        df = pipeline_timing(n=n, d=10, seed=seed, with_econml=with_econml, rounds=1)
        pr.disable()
        pstats.Stats(pr).sort_stats("cumulative").print_stats(45)
    else:
        df = pipeline_timing(n=n, d=10, seed=seed, with_econml=with_econml, rounds=1)
    load1 = os.getloadavg()
    print(df.T.to_string(header=False, float_format=lambda v: f"{v:.4f}"))
    print(f"load average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}; peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB", flush=True)
    return df


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--n", type=int, default=None,
                    help="only time the whole efficient pipeline at this n (K=2, d=10), e.g. --n 1000000")
    ap.add_argument("--profile", action="store_true", help="with --n: cProfile the pipeline, print the top calls")
    ap.add_argument("--with-econml", action="store_true", help="with --n: also time econml's DRPolicyTree")
    ap.add_argument("--timing", action="store_true", help="only the n = 50,000 pipeline timing against econml")
    args = ap.parse_args(argv)
    if args.timing:
        df = pipeline_timing()
        print(df.T.to_string(header=False, float_format=lambda v: f"{v:.4f}"))
        return df
    if args.n is not None:
        return large_n(args.n, profile=args.profile, with_econml=args.with_econml)
    ns = [1000, 5000] if args.quick else [1000, 5000, 50000]
    seeds = [0, 1] if args.quick else [0, 1, 2]
    value, unif = truth_fn()
    rows = []
    for n in ns:
        for s in seeds if n < 50000 else seeds[:1]:
            rows += run_one(n, s, value, unif)
    df = pd.DataFrame(rows)
    agg = df.groupby(["n", "method"], sort=False).mean(numeric_only=True).drop(columns="seed").reset_index()
    ref = agg[agg.method == "efficient"].set_index("n")
    agg["time_ratio_vs_efficient"] = agg.apply(lambda r: r.time_s / ref.loc[r.n, "time_s"], axis=1)
    agg["regret_worst_minus_efficient"] = agg.apply(lambda r: r.regret_worst - ref.loc[r.n, "regret_worst"], axis=1)
    pd.set_option("display.width", 200)
    print(f"V1 extremal law, Gamma={GAMMA}, d={D}, K=2; regret vs uniform (lower is better); "
          f"seeds per n: {len(seeds)} (1 at n=50000)")
    print(agg.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print("\nPaper's synthetic DGP (repository simulator, n_train=5000, softmax-linear policies, basis nuisances): "
          "mean regret vs uniform on noise-free test outcomes (lower is better; paper's table: efficient -1.12, "
          "-0.89, -0.64 at Gamma 2, 6, 10 with 64-32 MLPs; oracle -1.408)")
    pt = paper_table((2.0, 6.0), (0,)) if args.quick else paper_table()
    print(pt.to_string(float_format=lambda v: f"{v:.3f}"))
    if not args.quick:
        print("\nPipeline timing (default nuisances, 5-fold cross-fitting):")
        print(pipeline_timing().T.to_string(header=False, float_format=lambda v: f"{v:.4f}"))
    return agg


if __name__ == "__main__":
    main()
