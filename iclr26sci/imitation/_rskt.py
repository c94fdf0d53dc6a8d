r"""RS-KT: return distribution matching with known transitions, as one sparse LP (HiGHS)."""
from __future__ import annotations

import time

import numpy as np
from scipy import sparse

from iclr26sci.core import (InputError, check_bool, check_in_range, check_memory, check_option, check_positive_int,
                            progress, progress_enabled)
from iclr26sci.optim import linprog
from iclr26sci.prob import DiscreteLaw

from ._bc import cumulative_indices
from ._evaluate import _check_mdp, _normalise_occupancy, _transitions
from ._mdp import INDEX_DTYPE, TabularMDP, as_demonstrations, discretise_reward
from ._policies import ReturnAugmentedPolicy

__all__ = ["rs_kt", "rs_kt_lp_size", "build_rs_kt_lp"]


def _reachable(mdp: TabularMDP, k: np.ndarray, tr: _Transitions):
    """Reachable (state, cumulative index) pairs per stage, sorted by key ``s*Yspan + y``."""
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    Yspan = int(k.max(axis=(1, 2)).sum()) + 1
    s = np.flatnonzero(mdp.mu0).astype(INDEX_DTYPE)
    y = np.zeros_like(s)
    out = [(s, y)]
    for h in range(H - 1):
        n = s.size
        ss = np.repeat(s, A)
        yy = np.repeat(y, A)
        aa = np.tile(np.arange(A, dtype=INDEX_DTYPE), n)
        parent, s2, _ = tr.expand(h, ss * A + aa)
        key = np.unique(s2 * Yspan + (yy + k[h, ss, aa])[parent])
        s, y = key // Yspan, key % Yspan
        out.append((s, y))
    return out, Yspan


def rs_kt_lp_size(n_states: int, n_actions: int, horizon: int, theta: float) -> tuple[int, int]:
    r"""Full-grid size of the paper's RS-KT LP: (#occupancy variables, #return variables).

    With rewards in [0, 1], stage :math:`h` (1-based) has :math:`y \in \{0, \dots, (h-1)/\theta\}`, so

    .. math:: n_d = \sum_{h=1}^{H} S\,A\,\big(\mathrm{round}((h-1)/\theta) + 1\big), \qquad
              n_\eta = \mathrm{round}(H/\theta) + 1.

    ``rs_kt`` creates variables only for reachable (s, y) pairs, usually far fewer.

    Parameters
    ----------
    n_states, n_actions, horizon : int
        S, A and H (positive).
    theta : float in (0, 1]
        Discretisation step.

    Examples
    --------
    >>> rs_kt_lp_size(2, 2, 5, 0.05)
    (820, 101)
    """
    S = check_positive_int(n_states, "n_states")
    A = check_positive_int(n_actions, "n_actions")
    H = check_positive_int(horizon, "horizon")
    theta = check_in_range(theta, "theta", 0.0, 1.0, low_open=True)
    if H / theta > 2.0 ** 52:
        raise InputError("theta", f"= {theta:g} gives {H / theta:.3g} return levels (integer overflow)",
                         f"theta >= {H / 2.0 ** 52:.3g}")
    per = [S * A * (int(round(h / theta)) + 1) for h in range(H)]
    return int(sum(per)), int(round(H / theta)) + 1


def _check_lp_memory(mdp: TabularMDP, k: np.ndarray, method: str) -> None:
    """Refuse an RS-KT problem whose tables would not fit in memory (estimated before allocating)."""
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    G = float(k.max(axis=(1, 2)).astype(float).sum()) + 1
    occ = 8.0 * H * S * A * G                                   # the final occupancy table (H, S, Y, A)
    if method == "colgen":
        need = occ + 8.0 * S * G * (H + 4 * A)                  # pricing DP: values, Q-tables, argmax tables
    else:
        span = np.concatenate([[0.0], np.cumsum(k.max(axis=(1, 2)).astype(float))])[:H]
        n0 = float(np.count_nonzero(mdp.mu0))
        pairs = sum(min(S * (span[h] + 1), n0 * float(S * A) ** h) for h in range(H))
        need = occ + 8.0 * 12 * A * pairs                        # sparse LP assembly (rows, cols, values, CSR)
    check_memory(need, "theta", f"the RS-KT {'column-generation' if method == 'colgen' else 'occupancy LP'} "
                                f"tables ({G:.3g} return levels)")


def build_rs_kt_lp(mdp: TabularMDP, demos, theta: float) -> dict:
    """The RS-KT occupancy LP as sparse matrices (``c, A_ub, b_ub, A_eq, b_eq, bounds``) plus the
    bookkeeping to map a solution back to occupancies; used by ``rs_kt(method="lp")`` and benchmarks.

    Parameters
    ----------
    mdp : TabularMDP
        Known transitions and reward.
    demos : Demonstrations or (states, actions)
        Expert trajectories (their empirical return CDF is the LP's target).
    theta : float in (0, high - low]
        Discretisation step.

    Returns
    -------
    dict
        ``c, A_ub, b_ub, A_eq, b_eq, bounds`` (for ``scipy.optimize.linprog`` / HiGHS), ``n_var``,
        ``n_d`` (occupancy variables), ``G`` (return levels) and the index bookkeeping.

    Examples
    --------
    >>> from iclr26sci.imitation import markov_insufficiency_instance
    >>> mdp, expert = markov_insufficiency_instance()
    >>> lp = build_rs_kt_lp(mdp, mdp.rollout(expert, n=10, rng=0), theta=1.0)
    >>> lp["n_d"], lp["G"], lp["A_eq"].shape
    (10, 3, (8, 15))
    """
    _check_mdp(mdp)
    theta = mdp.check_theta(theta)
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    d = as_demonstrations(demos, S, A, H)
    low = mdp.reward_range[0]
    k = discretise_reward(mdp.r, theta, low)
    _check_lp_memory(mdp, k, "lp")
    tr = _transitions(mdp)
    pairs, Yspan = _reachable(mdp, k, tr)
    G = Yspan  # return indices 0..G-1
    n_pairs = [p[0].size for p in pairs]
    base = np.concatenate([[0], np.cumsum([n * A for n in n_pairs])]).astype(INDEX_DTYPE)
    n_d = int(base[-1])
    iF = n_d                      # F_g, g = 0..G-1
    it = n_d + G                  # t_g, g = 0..G-2
    n_var = n_d + G + (G - 1)
    rows, cols, vals, rhs = [], [], [], []
    row0 = 0
    # initial stage: sum_a d_1(s, 0, a) = mu0(s)
    s_, y_ = pairs[0]
    j = np.arange(s_.size)
    rows.append(np.repeat(j, A)); cols.append(base[0] + np.arange(s_.size * A)); vals.append(np.ones(s_.size * A))
    rhs.append(mdp.mu0[s_])
    row0 += s_.size
    for h in range(H - 1):
        s_, y_ = pairs[h]
        s2_, y2_ = pairs[h + 1]
        n1, n2 = s_.size, s2_.size
        # outflow of stage h+1 pairs
        rows.append(row0 + np.repeat(np.arange(n2), A)); cols.append(base[h + 1] + np.arange(n2 * A))
        vals.append(np.ones(n2 * A))
        # inflow from stage h variables
        ss = np.repeat(s_, A); yy = np.repeat(y_, A); aa = np.tile(np.arange(A, dtype=INDEX_DTYPE), n1)
        parent, nxt, pr = tr.expand(h, ss * A + aa)
        key = nxt * Yspan + (yy + k[h, ss, aa])[parent]
        target = np.searchsorted(s2_ * Yspan + y2_, key)
        rows.append(row0 + target); cols.append(base[h] + parent); vals.append(-pr)
        rhs.append(np.zeros(n2))
        row0 += n2
    # terminal: F_g - F_{g-1} - sum_{y + k_H = g} d_H = 0
    s_, y_ = pairs[H - 1]
    nH = s_.size
    ss = np.repeat(s_, A); yy = np.repeat(y_, A); aa = np.tile(np.arange(A, dtype=INDEX_DTYPE), nH)
    g_of = yy + k[H - 1, ss, aa]
    gg = np.arange(G)
    rows.append(row0 + gg); cols.append(iF + gg); vals.append(np.ones(G))
    rows.append(row0 + gg[1:]); cols.append(iF + gg[:-1]); vals.append(-np.ones(G - 1))
    rows.append(row0 + g_of); cols.append(base[H - 1] + np.arange(nH * A)); vals.append(-np.ones(nH * A))
    rhs.append(np.zeros(G))
    row0 += G
    A_eq = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(row0, n_var))
    b_eq = np.concatenate(rhs)
    # empirical CDF of the experts' discretised return index
    gi = cumulative_indices(d, k)[:, H]
    hist = np.bincount(gi, minlength=G)[:G] / d.n
    Fhat = np.cumsum(hist)
    # |F_g - Fhat_g| <= t_g for g < G-1
    m = G - 1
    gm = np.arange(m)
    ub_rows = np.concatenate([gm, gm, m + gm, m + gm])
    ub_cols = np.concatenate([iF + gm, it + gm, iF + gm, it + gm])
    ub_vals = np.concatenate([np.ones(m), -np.ones(m), -np.ones(m), -np.ones(m)])
    A_ub = sparse.csr_matrix((ub_vals, (ub_rows, ub_cols)), shape=(2 * m, n_var))
    b_ub = np.concatenate([Fhat[:m], -Fhat[:m]])
    c = np.zeros(n_var)
    c[it:] = theta
    bounds = np.zeros((n_var, 2))
    bounds[:, 1] = np.inf
    bounds[iF:iF + G] = (0.0, 1.0)
    return dict(c=c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, pairs=pairs, base=base,
                n_d=n_d, n_var=n_var, G=G, hist=hist, k=k, m=m, n_rows=row0, low=low)


def rs_kt(mdp: TabularMDP, demos, theta: float, *, method: str = "colgen", return_info: bool = False,
          max_iter: int = 5000, tol: float = 1e-7):
    r"""RS-KT: the policy in :math:`\Pi(r^\theta)` whose :math:`r^\theta`-return law is
    closest in :math:`W_1` to the experts' empirical one (transitions known).

    Solves, over occupancies :math:`d_h(s,y,a) \ge 0`,

    .. math::
        \min_d\ \theta\sum_g \Big|F_d(g) - \hat F(g)\Big| \quad\text{s.t.}\quad
        \sum_a d_1(s,0,a) = \mu_0(s),\quad
        \sum_a d_{h+1}(s',y',a) = \sum_{s,a,y:\,y+k_h(s,a)=y'} d_h(s,y,a)\,p_h(s'|s,a),

    with :math:`F_d(g) = \sum_{s,a,y:\,y+k_H(s,a)\le g} d_H(s,y,a)` and :math:`\hat F` the
    empirical CDF of the experts' discretised return indices. Only (s, y) pairs reachable
    under the dynamics get variables; the LP is sparse and solved by HiGHS. The policy is
    :math:`\hat\pi_h(a|s,y) = d_h(s,y,a)/\sum_{a'} d_h(s,y,a')` (uniform where 0).

    Parameters
    ----------
    mdp : TabularMDP
        Known transitions and reward.
    demos : Demonstrations or (states, actions)
        Expert trajectories; only their empirical law of the discretised return is used.
    theta : float
        Discretisation step :math:`0 < \theta \le` high - low (the paper's bound takes
        :math:`\theta = \varepsilon/(7H)`); the LP has :math:`O(H/\theta)` return levels.
    method : {"colgen", "lp"}
        ``"lp"``: the occupancy LP above in one piece (sparse, HiGHS). ``"colgen"`` (default):
        the same LP by Dantzig-Wolfe column generation: the master LP mixes return-index laws
        of deterministic policies in :math:`\Pi(r^\theta)` and each pricing step is one backward
        dynamic program maximising :math:`\mathbb E[\Lambda(y_{H+1})]` for the master's dual
        prices :math:`\Lambda`; the policy is the normalised mixture occupancy. Both reach the
        same optimal value; column generation is much faster for large S.
    max_iter, tol : int, float
        Column-generation limits. It stops when the most negative reduced cost is above ``-tol``
        (then, as the mixture weights sum to one, the master value is within ``tol`` of the LP
        optimum) or when pricing returns a column already in the master (the duals are then
        exact up to the solver's tolerance).
    return_info : bool
        Also return a dict with the LP value (``w_lp``, in return units), the empirical law
        ``eta_hat`` of the :math:`r^\theta`-return, LP sizes and timings.

    Returns
    -------
    ReturnAugmentedPolicy, or (policy, info)

    References
    ----------
    F. Lazzati and A. M. Metelli. Imitation Learning as Return Distribution Matching. ICLR 2026, arXiv:2509.12026.

    Examples
    --------
    >>> from iclr26sci.imitation import markov_insufficiency_instance, return_distribution
    >>> mdp, expert = markov_insufficiency_instance()
    >>> pi, info = rs_kt(mdp, mdp.rollout(expert, n=20, rng=0), theta=1.0, return_info=True)
    >>> info["w_lp"], return_distribution(mdp, pi).wasserstein(return_distribution(mdp, expert))
    (0.0, 0.0)
    """
    _check_mdp(mdp)
    theta = mdp.check_theta(theta)
    method = check_option(method, "method", ("colgen", "lp"))
    return_info = check_bool(return_info, "return_info")
    max_iter = check_positive_int(max_iter, "max_iter")
    tol = check_in_range(tol, "tol", 0.0, None, low_open=True)
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    d = as_demonstrations(demos, S, A, H)
    _check_lp_memory(mdp, discretise_reward(mdp.r, theta, mdp.reward_range[0]), method)
    if method == "colgen":
        return _rs_kt_colgen(mdp, d, theta, return_info, max_iter, tol)
    t0 = time.perf_counter()
    lp = build_rs_kt_lp(mdp, d, theta)
    c, A_ub, b_ub, A_eq, b_eq, bounds = (lp[key] for key in ("c", "A_ub", "b_ub", "A_eq", "b_eq", "bounds"))
    pairs, base, n_d, n_var, G, hist, k, m, row0, low = (
        lp[key] for key in ("pairs", "base", "n_d", "n_var", "G", "hist", "k", "m", "n_rows", "low"))
    t_build = time.perf_counter() - t0
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds)
    t_solve = time.perf_counter() - t0 - t_build
    x = np.clip(res.x[:n_d], 0.0, None)
    Y = int(max(p[1].max() for p in pairs)) + 1
    occ = np.zeros((H, S, Y, A))
    for h in range(H):
        s_, y_ = pairs[h]
        occ[h, s_, y_] = x[base[h]:base[h + 1]].reshape(-1, A)
    pol = ReturnAugmentedPolicy(_normalise_occupancy(occ), k, theta)
    info = {"w_lp": float(res.fun), "eta_hat": DiscreteLaw(H * low + theta * np.arange(G), hist),
            "n_variables": n_var, "n_occupancy_variables": n_d, "n_constraints": int(row0 + 2 * m),
            "full_grid_size": rs_kt_lp_size(S, A, H, theta), "build_seconds": t_build,
            "solve_seconds": t_solve, "occupancy": occ, "method": "lp", "converged": True}
    pol.info = {key: v for key, v in info.items() if key != "occupancy"}
    return (pol, info) if return_info else pol


def _price(mdp: TabularMDP, k: np.ndarray, lam: np.ndarray):
    """Deterministic policy in Pi(r^theta) maximising E[lam(y_{H+1})] by backward induction."""
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    Yt = lam.size
    V = np.broadcast_to(lam, (S, Yt)).copy()
    acts = np.empty((H, S, Yt), dtype=INDEX_DTYPE)
    ygrid = np.arange(Yt)[None, None, :]
    for h in range(H - 1, -1, -1):
        PV = (mdp.P[h].reshape(S * A, S) @ V).reshape(S, A, Yt)
        idx = np.minimum(ygrid + k[h][:, :, None], Yt - 1)
        Q = np.take_along_axis(PV, idx, axis=2)
        acts[h] = Q.argmax(axis=1)
        V = Q.max(axis=1)
    return acts, float(mdp.mu0 @ V[:, 0])


class _DetTable:
    """Light deterministic table policy (internal; used inside the forward pass only)."""

    def __init__(self, acts: np.ndarray, A: int, k: np.ndarray):
        self.acts, self.increments, self.n_y = acts, k, acts.shape[2]
        self._eye = np.eye(A)

    def _table_probs(self, h, s, y):
        return self._eye[self.acts[h, s, np.minimum(y, self.n_y - 1)]]


def _det_policy(acts: np.ndarray, A: int, k: np.ndarray, theta: float) -> _DetTable:
    return _DetTable(acts, A, k)


def _rs_kt_colgen(mdp, d, theta, return_info, max_iter, tol):
    from ._evaluate import _forward_table

    t0 = time.perf_counter()
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    low = mdp.reward_range[0]
    k = discretise_reward(mdp.r, theta, low)
    G = int(k.max(axis=(1, 2)).sum()) + 1
    gi = cumulative_indices(d, k)[:, H]
    hist = np.bincount(gi, minlength=G)[:G] / d.n
    Fhat = np.cumsum(hist)
    m = G - 1

    def column(acts):
        (_, y, _, p), _, _ = _forward_table(mdp, _det_policy(acts, A, k, theta), [])
        return np.cumsum(np.bincount(y, weights=p, minlength=G))[:m]

    cols_F, cols_acts = [], []
    seen = set()
    for lam in (np.arange(G, dtype=float), -np.arange(G, dtype=float)):
        acts, _ = _price(mdp, k, lam)
        seen.add(acts.tobytes())
        cols_acts.append(acts)
        cols_F.append(column(acts))
    converged, it, value = False, 0, 0.0
    if m == 0:
        w = np.r_[1.0, np.zeros(len(cols_F) - 1)]
        converged = True
    else:
        master = _Master(Fhat[:m], theta)
        for F in cols_F:
            master.add(F)
        bar = None
        if progress_enabled():
            from tqdm.auto import tqdm

            bar = tqdm(desc="RS-KT column generation", unit="column", leave=False)
        while True:
            if bar is not None:
                bar.update(1)
            value, w, u, lam_g = master.solve()
            lam = np.zeros(G)
            lam[:m] = np.cumsum(lam_g[::-1])[::-1]                    # Lambda(g') = sum_{g >= g'} lam_g
            acts, best = _price(mdp, k, lam)
            reduced = -u - best
            key = acts.tobytes()
            converged = reduced > -tol or key in seen
            if converged or it >= max_iter:
                break
            seen.add(key)
            cols_acts.append(acts)
            cols_F.append(column(acts))
            master.add(cols_F[-1])
            it += 1
        if bar is not None:
            bar.close()
    n_lp = it + 1
    t_solve = time.perf_counter() - t0
    Y = G
    occ = np.zeros((H, S, Y, A))
    for wi, acts in zip(w, cols_acts):
        if wi <= 1e-12:
            continue
        _, stages, _ = _forward_table(mdp, _det_policy(acts, A, k, theta), [], record=True)
        for h, (si, yi, _, a, mass) in enumerate(stages):
            np.add.at(occ[h], (si, yi, a), wi * mass)
    ymax = max(int(np.flatnonzero(occ.sum(axis=(0, 1, 3)))[-1]) + 1, 1)
    occ = occ[:, :, :ymax]
    pol = ReturnAugmentedPolicy(_normalise_occupancy(occ), k, theta)
    info = {"w_lp": float(value), "eta_hat": DiscreteLaw(H * low + theta * np.arange(G), hist),
            "n_columns": len(cols_F), "n_master_lps": n_lp, "converged": bool(converged),
            "reduced_cost": float(reduced) if m else 0.0,
            "n_variables": len(cols_F) + m, "full_grid_size": rs_kt_lp_size(S, A, H, theta),
            "build_seconds": 0.0, "solve_seconds": t_solve, "occupancy": occ, "method": "colgen"}
    pol.info = {key: v for key, v in info.items() if key != "occupancy"}
    return (pol, info) if return_info else pol


class _Master:
    """Column-generation master LP, kept warm in HiGHS between added columns.

    Columns: ``t_g`` (cost theta) and mixture weights ``w_i``. Rows: ``sum_i w_i = 1`` and
    ``+-(sum_i w_i F_i(g) - Fhat(g)) <= t_g``.
    """

    def __init__(self, Fhat: np.ndarray, theta: float):
        import highspy

        from iclr26sci.optim import quiet_highs

        m = Fhat.size
        self.m = m
        h = quiet_highs()                       # output off, start-up banner swallowed
        inf = highspy.kHighsInf
        self.inf = inf
        empty_i = np.zeros(0, dtype=np.int32)
        empty_v = np.zeros(0)
        h.addCols(m, np.full(m, theta), np.zeros(m), np.full(m, inf), 0,
                  np.zeros(m, dtype=np.int32), empty_i, empty_v)
        n_rows = 1 + 2 * m
        lower = np.concatenate([[1.0], np.full(2 * m, -inf)])
        upper = np.concatenate([[1.0], Fhat, -Fhat])
        starts = np.concatenate([[0], np.arange(2 * m)]).astype(np.int32)
        idx = np.concatenate([np.arange(m), np.arange(m)]).astype(np.int32)
        vals = -np.ones(2 * m)
        h.addRows(n_rows, lower, upper, 2 * m, starts, idx, vals)
        self.h = h
        self.n = 0
        self._rows = np.arange(n_rows, dtype=np.int32)

    def add(self, F: np.ndarray) -> None:
        vals = np.concatenate([[1.0], F, -F])
        self.h.addCol(0.0, 0.0, self.inf, vals.size, self._rows, vals)
        self.n += 1

    def solve(self):
        import highspy

        self.h.run()
        status = self.h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            from iclr26sci.optim import SolverError

            raise SolverError(str(status), "the RS-KT master LP was not solved to optimality", "HiGHS")
        sol = self.h.getSolution()
        x = np.asarray(sol.col_value)
        y = np.asarray(sol.row_dual)
        m = self.m
        value = float(self.h.getInfo().objective_function_value)
        return value, x[m:], float(y[0]), y[1:1 + m] - y[1 + m:]
