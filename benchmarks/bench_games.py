"""Benchmark iclr26sci.games against the peers a user would otherwise pick.

    python benchmarks/bench_games.py [--quick]

1. 2-player zero-sum games: our LP vs nashpy (linear_program, support and
   vertex enumeration): same value, time ratio.
2. Small N-player games expanded to normal form: our LP (zero-sum) / Lemke
   (general-sum) vs pygambit (gnm_solve, logit_solve); skipped with a message
   when pygambit is absent.
3. Scale: the zero-sum solver (auto) at N = 1000 dense (N = 300 with --quick),
   the LP at N = 10^5 sparse, the largest N Lemke handles in about a minute,
   one DP round at N = 2^14 sparse, a 60-round DP run at N = 1024 dense.
4. Speed target: exact zero-sum equilibrium at N = 1000, A = 3, ER(0.5) in
   under 30 s with a certificate (max gap < 1e-6): the dense interior point
   ("ipm", the default) against the HiGHS LP ("lp") at N = 500 and 1000
   (N = 500 only with --quick). ``--target`` runs only this table.
5. Regime (``--regime``): N x epsilon -> DP-DARP's max gap against uniform play's, dense games.
6. Issue 44 (CPU time, one BLAS thread; every row prints ours, the peer, the ratio, the load
   average and the thread count):
   ``--curve``: the automatic route on dense zero-sum games (ER(0.5), A = 3) for N = 1000-5000 on
   a geometric grid (step 1.2, plus N = 2001, where the old size switch to HiGHS took 417.6 s);
   the peer is HiGHS's interior point (the old route) at N = 500, 1000.
   ``--crossover``: dense against sparse Newton steps at N = 1500 on graphs from a ring to ER(0.5),
   with the cost model's predictions and choice.
   ``--sparse``: zero-sum games on the ring lattice of degree 6 (A = 3) at N = 10^4 and 10^5
   (10^6 with ``--big``), certificate tol 1e-8, against HiGHS's interior point on the same game.
   ``--issue44``: the three tables.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from iclr26sci.games import PolymatrixGame, dp_equilibrium, solve_equilibrium  # noqa: E402


def timed(fn, *a, **k):
    t = time.perf_counter()
    out = fn(*a, **k)
    return out, time.perf_counter() - t


def two_player(quick: bool) -> pd.DataFrame:
    import nashpy

    rng = np.random.default_rng(0)
    rows = []
    sizes = (5, 10, 50, 200) if quick else (5, 10, 50, 200, 1000)
    for a in sizes:
        reps = 20 if a == 5 else (3 if a <= 200 else 1)
        ours_t, peer_t, diffs, found = 0.0, 0.0, [], 0
        se_fail = 0
        for _ in range(reps):
            m = rng.uniform(-1, 1, (a, a))
            g = PolymatrixGame.from_arrays(2, [[0, 1]], m[None], -m.T[None], normalize=False)
            res, t = timed(solve_equilibrium, g)
            ours_t += t
            x = np.asarray(res.strategies)
            v_ours = x[0] @ m @ x[1]
            game = nashpy.Game(m, -m)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                (sr, sc), t2 = timed(game.linear_program)
            peer_t += t2
            diffs.append(abs(v_ours - sr @ m @ sc))
            if a == 5:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    se_fail += len(list(game.support_enumeration())) == 0
        rows.append({"size": f"{a}x{a}", "games": reps, "max |value diff|": max(diffs),
                     "ours s/game": ours_t / reps, "nashpy.linear_program s/game": peer_t / reps,
                     "time ratio (nashpy/ours)": peer_t / ours_t,
                     "note": f"support_enumeration found no NE on {se_fail}/{reps}" if a == 5 else ""})
    return pd.DataFrame(rows)


def n_player(quick: bool) -> pd.DataFrame:
    try:
        import pygambit as gbt
    except ImportError:
        print("pygambit not installed: skipping the N-player comparison (pip install pygambit)")
        return pd.DataFrame()
    rows = []
    rng = np.random.default_rng(1)
    cases = [(4, 2, "zero_sum"), (4, 3, "uniform"), (5, 2, "uniform")]
    if not quick:
        cases += [(5, 3, "zero_sum"), (6, 2, "uniform")]
    for n, a, kind in cases:
        g = PolymatrixGame.random(n, a, p=1.0, payoffs=kind, rng=rng)
        res, t_ours = timed(solve_equilibrium, g)
        tens = g.to_normal_form()
        game = gbt.Game.from_arrays(*tens)
        for name, solver in (("gnm_solve", gbt.nash.gnm_solve), ("logit_solve", gbt.nash.logit_solve)):
            try:
                out, t_peer = timed(solver, game)
                eqs = out.equilibria
                regret = float(min(e.max_regret() for e in eqs)) if eqs else float("nan")
            except Exception as exc:  # pragma: no cover - solver failures are reported
                t_peer, regret = float("nan"), float("nan")
                name += f" ({type(exc).__name__})"
            rows.append({"game": f"N={n} A={a} {kind}", "ours": res.method, "ours max gap": res.max_gap,
                         "ours s": t_ours, "pygambit": name, "pygambit max regret": regret,
                         "pygambit s": t_peer, "time ratio (pygambit/ours)": t_peer / t_ours})
    return pd.DataFrame(rows)


def scale(quick: bool) -> pd.DataFrame:
    rows = []
    n_lp = 300 if quick else 1000
    g = PolymatrixGame.random(n_lp, 3, p=0.5, payoffs="zero_sum", rng=2)
    res, t = timed(solve_equilibrium, g)
    rows.append({"task": f"zero-sum exact (auto: {res.method}), N={n_lp} dense p=0.5", "seconds": t,
                 "quality": f"max gap {res.max_gap:.1e}", "note": res.info.get("solver", res.method)})
    n_sp = 10_000 if quick else 100_000
    g = PolymatrixGame.random(n_sp, 3, graph="circulant", degree=6, payoffs="zero_sum", rng=3)
    res, t = timed(solve_equilibrium, g)
    rows.append({"task": f"zero-sum LP, N={n_sp} sparse degree 6", "seconds": t,
                 "quality": f"max gap {res.max_gap:.1e}", "note": res.info.get("solver", res.method)})
    # Lemke: grow N until one solve takes more than a minute (quick: 20 s)
    budget = 20.0 if quick else 60.0
    largest = None
    for n in (10, 20, 30, 40, 50, 60, 80, 100):
        g = PolymatrixGame.random(n, 3, p=0.5, payoffs="uniform", rng=n)
        res, t = timed(solve_equilibrium, g, "lemke", max_pivots=200_000 if not quick else 40_000)
        if res.certified:
            largest = (n, t, res.info["pivots"], res.max_gap)
        if t > budget or not res.certified:
            break
    if largest:
        rows.append({"task": f"Lemke general-sum, largest N within {budget:.0f} s", "seconds": largest[1],
                     "quality": f"max gap {largest[3]:.1e}", "note": f"N={largest[0]}, {largest[2]} pivots"})
    g = PolymatrixGame.random(2 ** 14, 3, graph="circulant", degree=6, payoffs="uniform", rng=4)
    dp_equilibrium(g, rounds=1, track=False, rng=0)
    _, t = timed(dp_equilibrium, g, epsilon=1.0, rounds=1, track=False, rng=0)
    rows.append({"task": "one DP-DARP round, N=2^14 sparse degree 6", "seconds": t, "quality": "",
                 "note": f"payoff storage {g.nbytes / 1e6:.1f} MB"})
    g = PolymatrixGame.random(1024, 3, p=0.5, payoffs="uniform", rng=5)
    res, t = timed(dp_equilibrium, g, rounds=60, track=False, rng=0)
    rows.append({"task": "60-round DP-DARP, N=1024 dense p=0.5", "seconds": t,
                 "quality": f"max gap {res.max_gap:.3f}, eps {res.epsilon:.1f}", "note": "default schedule"})
    return pd.DataFrame(rows)


def target(quick: bool) -> pd.DataFrame:
    """Speed target: N = 1000, A = 3, ER(0.5) zero-sum, < 30 s, certificate max gap < 1e-6."""
    rows = []
    for n in ((500,) if quick else (500, 1000)):
        g = PolymatrixGame.random(n, 3, p=0.5, payoffs="zero_sum", rng=2)
        for method in ("ipm", "lp"):
            load = os.getloadavg()[0]
            res, t = timed(solve_equilibrium, g, method)
            rows.append({"N": n, "method": res.method, "seconds": t, "max gap": res.max_gap,
                         "certified": res.certified, "iterations": res.info.get("ipm_iterations", ""),
                         "polished": res.info.get("polished", ""), "load1 at start": load,
                         "target": "< 30 s, gap < 1e-6" if n == 1000 else ""})
        rows.append({"N": n, "method": "ratio lp/ipm", "seconds": rows[-1]["seconds"] / rows[-2]["seconds"],
                     "max gap": np.nan, "certified": "", "iterations": "", "polished": "", "load1 at start": np.nan,
                     "target": ""})
    return pd.DataFrame(rows)


def regime(quick: bool, payoff_families=("zero_sum", "uniform", "private_values")) -> pd.DataFrame:
    """Where is the private answer useful? N x epsilon -> DP-DARP's max gap against uniform play.

    Dense ER(0.5) games, A = 3, the default schedule (T = 60, eta = 1, lambda = 2 d^(-1/3)), one
    channel observed, delta = 1e-5; R independent runs per cell (one game per N and family)."""
    from iclr26sci.games import darp_dynamics, dp_accounting, regularization

    ns = (64, 128, 256, 512, 1024) if quick else (64, 128, 256, 512, 1024, 2048)
    epss = (1.0, 4.0, 16.0, 64.0)
    if os.environ.get("REGIME_FAMILIES"):
        payoff_families = tuple(os.environ["REGIME_FAMILIES"].split(","))
    runs = 4 if quick else 8
    rows = []
    for fam in payoff_families:
        for n in ns:
            g = PolymatrixGame.random(n, 3, p=0.5, payoffs=fam, rng=n)
            lam = regularization(g.degree)
            u = g.uniform_strategy()
            row = {"payoffs": fam, "N": n, "mean degree": float(g.degree.mean()),
                   "uniform max gap": float(g.nash_gap(u).max())}
            for eps in epss + (np.inf,):
                sigma = 0.0 if np.isinf(eps) else dp_accounting(rounds=60, epsilon=eps, delta=1e-5).sigma
                out = darp_dynamics(g, rounds=60, step_size=1.0, lam=lam, sigma=sigma, replicates=runs,
                                    track=False, rng=1000 + n)
                gaps = np.array([g.nash_gap(x).max() for x in out["x"]])
                key = "noiseless" if np.isinf(eps) else f"eps={eps:g}"
                row[key] = float(gaps.mean())
                row[key + " se"] = float(gaps.std(ddof=1) / np.sqrt(runs))
            rows.append(row)
            print(f"  regime: {fam} N={n} done", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- issue 44
def _env() -> dict:
    """Load average (1 min) and the BLAS/OpenMP thread counts, for every row."""
    try:
        from threadpoolctl import threadpool_info

        threads = max((i.get("num_threads", 1) for i in threadpool_info()), default=1)
    except ImportError:  # pragma: no cover
        threads = int(os.environ.get("OMP_NUM_THREADS", "0") or 0)
    return {"load1": round(os.getloadavg()[0], 2), "threads": threads}


def cpu_timed(fn, *a, **k):
    """(result, CPU seconds of this process, wall seconds)."""
    c, t = time.process_time(), time.perf_counter()
    out = fn(*a, **k)
    return out, time.process_time() - c, time.perf_counter() - t


def _highs(game, tol):
    """The old route of large games: HiGHS's interior point on the CCDP LP (crossover if uncertified)."""
    from iclr26sci.games._exact import zero_sum_lp

    x, _, _ = zero_sum_lp(game, method="ipm-nocrossover")
    gap = float(game.nash_gap(game._unpad(x)).max())
    if gap >= tol:
        x, _, _ = zero_sum_lp(game, method="highs-ipm")
        gap = float(game.nash_gap(game._unpad(x)).max())
    return gap


# step 1.2 in N (the cubic cost of a dense LU then predicts 1.73x per step); the figures of 2026-12-05 in
# benchmarks/README.md were taken on the coarser grid 1000, 1260, 1587, 2000, 2001, 2520, 3175, 4000, 5000
CURVE_NS = (1000, 1200, 1440, 1728, 2000, 2001, 2400, 2880, 3456, 4147, 5000)


def curve(quick: bool, ns=None, peer_ns=(500, 1000)) -> pd.DataFrame:
    """Dense zero-sum ER(0.5), A = 3: the automatic route, N = 1000-5000; HiGHS at N = 500, 1000."""
    ns = ns or ((1000, 1200, 1440, 1728, 2000, 2001) if quick else CURVE_NS)
    rows, prev = [], None
    for n in peer_ns:
        g = PolymatrixGame.random(n, 3, p=0.5, payoffs="zero_sum", rng=2)
        ours, c_ours, _ = cpu_timed(solve_equilibrium, g)
        env = _env()
        gap, c_peer, _ = cpu_timed(_highs, g, 1e-6)
        rows.append({"N": n, "route": ours.info.get("solver", ours.method), "ours CPU s": c_ours,
                     "ours max gap": ours.max_gap, "peer": "HiGHS ipm (old route)", "peer CPU s": c_peer,
                     "peer max gap": gap, "ratio peer/ours": c_peer / c_ours, "step vs previous N": np.nan, **env})
        print(rows[-1], file=sys.stderr, flush=True)
    for n in ns:
        g = PolymatrixGame.random(n, 3, p=0.5, payoffs="zero_sum", rng=2)
        ours, c_ours, _ = cpu_timed(solve_equilibrium, g)
        peer = "old size switch to HiGHS (issue 44, not rerun)" if n == 2001 else "not run (too slow)"
        rows.append({"N": n, "route": ours.info.get("solver", ours.method), "ours CPU s": c_ours,
                     "ours max gap": ours.max_gap, "peer": peer, "peer CPU s": 417.6 if n == 2001 else np.nan,
                     "peer max gap": np.nan, "ratio peer/ours": 417.6 / c_ours if n == 2001 else np.nan,
                     "step vs previous N": c_ours / prev if prev else np.nan, **_env()})
        prev = c_ours
        print(rows[-1], file=sys.stderr, flush=True)
        del g
    return pd.DataFrame(rows)


def crossover(quick: bool) -> pd.DataFrame:
    """Dense against sparse Newton steps at N = 1500, A = 3, from a ring of degree 6 to ER(0.5)."""
    from iclr26sci.games._exact import _ipm_route
    from iclr26sci.games._lcp_ipm import choose_backend, predicted_costs

    n = 600 if quick else 1500
    rows = []
    graphs = [("ring deg 6", dict(graph="circulant", degree=6)), ("ER p=0.005", dict(p=0.005)),
              ("ER p=0.02", dict(p=0.02)), ("ER p=0.1", dict(p=0.1)), ("ER p=0.5", dict(p=0.5))]
    for name, kw in graphs:
        g = PolymatrixGame.random(n, 3, payoffs="zero_sum", rng=4, **kw)
        pred = predicted_costs(g)
        row = {"graph": name, "mean degree": float(g.degree.mean()), "chosen": choose_backend(g),
               "pred dense s": pred["dense_s"], "pred sparse s": pred["sparse_s"]}
        for be in ("dense", "sparse"):
            (x, info), c, _ = cpu_timed(_ipm_route, g, 1e-6, backend=be)
            row[f"{be} CPU s"] = c
            row[f"{be} gap"] = float(g.nash_gap(g._unpad(x)).max()) if x is not None else np.nan
        row["ratio sparse/dense"] = row["sparse CPU s"] / row["dense CPU s"]
        rows.append({**row, **_env()})
        print(rows[-1], file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


HIGHS_1E5 = 299.0   # issue 44: highspy IPM (no crossover) on this very game (rng=3), CPU s, gap 2e-16


def sparse_games(quick: bool, big: bool = False, peer_max: int = 10_000) -> pd.DataFrame:
    """Ring lattice of degree 6, A = 3, zero-sum: ours (tol 1e-8) against HiGHS's interior point."""
    ns = (10_000,) if quick else ((10_000, 100_000, 1_000_000) if big else (10_000, 100_000))
    rows = []
    for n in ns:
        g = PolymatrixGame.random(n, 3, graph="circulant", degree=6, payoffs="zero_sum", rng=3)
        ours, c_ours, w_ours = cpu_timed(solve_equilibrium, g, tol=1e-8)
        row = {"N": n, "ours": ours.info.get("solver", ours.method), "ours CPU s": c_ours, "ours wall s": w_ours,
               "ours max gap": ours.max_gap, "iterations": ours.info.get("ipm_iterations"),
               "goal": "< 30 s, gap <= 1e-8" if n == 100_000 else ""}
        env = _env()
        if n <= peer_max:
            gap, c_peer, _ = cpu_timed(_highs, g, 1e-8)
            row.update({"peer": "HiGHS ipm, no crossover", "peer CPU s": c_peer, "peer max gap": gap,
                        "ratio peer/ours": c_peer / c_ours})
        elif n == 100_000:
            row.update({"peer": "HiGHS ipm, no crossover (issue 44 figure, not rerun)", "peer CPU s": HIGHS_1E5,
                        "peer max gap": 2e-16, "ratio peer/ours": HIGHS_1E5 / c_ours})
        else:
            row.update({"peer": "not run (too slow)", "peer CPU s": np.nan, "peer max gap": np.nan,
                        "ratio peer/ours": np.nan})
        rows.append({**row, **env})
        print(rows[-1], file=sys.stderr, flush=True)
        del g
    return pd.DataFrame(rows)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--target", action="store_true", help="only the N = 1000 speed-target table")
    ap.add_argument("--regime", action="store_true",
                    help="only the (N, epsilon) table: private max gap against uniform play")
    ap.add_argument("--curve", action="store_true", help="issue 44: the dense route, N = 1000-5000")
    ap.add_argument("--crossover", action="store_true", help="issue 44: dense against sparse Newton steps")
    ap.add_argument("--sparse", action="store_true", help="issue 44: sparse games at N = 1e4, 1e5")
    ap.add_argument("--big", action="store_true", help="with --sparse: also N = 1e6 (ours only)")
    ap.add_argument("--peer-max", type=int, default=10_000,
                    help="with --sparse: run HiGHS up to this N (10^5 costs about 300 s CPU)")
    ap.add_argument("--issue44", action="store_true", help="the three issue-44 tables")
    args = ap.parse_args(argv)
    pd.set_option("display.width", 250)
    fmt = {"float_format": lambda v: f"{v:.3g}", "index": False}
    if args.curve or args.crossover or args.sparse or args.issue44:
        if args.crossover or args.issue44:
            print("== issue 44: dense vs sparse Newton steps (CPU s, 1 BLAS thread) ==")
            print(crossover(args.quick).to_string(**fmt))
        if args.curve or args.issue44:
            print("== issue 44: dense zero-sum ER(0.5), A=3, automatic route (CPU s) ==")
            print(curve(args.quick).to_string(**fmt))
        if args.sparse or args.issue44:
            print("== issue 44: sparse zero-sum, ring degree 6, A=3, tol 1e-8 (CPU s) ==")
            print(sparse_games(args.quick, args.big, args.peer_max).to_string(**fmt))
        return
    if args.regime:
        print("== where DP-DARP beats uniform play: max gap, dense ER(0.5), A=3, T=60, 1 channel, delta=1e-5 ==")
        print(regime(args.quick).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
        return
    if args.target:
        print("== speed target: exact zero-sum equilibrium, A=3, ER(0.5) ==")
        print(target(args.quick).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
        return
    print("== 2-player zero-sum: iclr26sci LP vs nashpy ==")
    print(two_player(args.quick).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print("\n== N-player games on the expanded normal form: iclr26sci vs pygambit ==")
    print(n_player(args.quick).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print("\n== scale ==")
    print(scale(args.quick).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print("\n== speed target: exact zero-sum equilibrium, A=3, ER(0.5) ==")
    print(target(args.quick).to_string(index=False, float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
