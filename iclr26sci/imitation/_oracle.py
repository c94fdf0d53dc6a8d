r"""The unknown-reward variant: an exact robust return-distribution-matching oracle on tiny MDPs."""
from __future__ import annotations

import numpy as np
from scipy import sparse

from iclr26sci.core import InputError, check_array, check_bool, check_positive_int
from iclr26sci.optim import linprog

from ._evaluate import _check_mdp, _transitions
from ._mdp import INDEX_DTYPE, TabularMDP, as_demonstrations
from ._policies import TabularHistoryPolicy, history_code

__all__ = ["robust_rdm_oracle"]


def robust_rdm_oracle(mdp: TabularMDP, demos, rewards, *, max_histories: int = 200_000,
                      return_info: bool = False):
    r"""Exact robust RDM over a finite reward class (transitions known, reward unknown).

    .. math::
        \hat\pi \in \arg\min_{\pi} \max_{r \in \mathcal R} W_1\big(\eta^\pi_r, \hat\eta^E_r\big),

    where :math:`\hat\eta^E_r` is the empirical law of the demonstrations' returns under
    :math:`r`. Over full-history occupancies :math:`d(\omega)` every :math:`\eta^\pi_r(g) =
    \sum_\omega d(\omega)\mathbf 1\{G(\omega; r) = g\}` is linear, so the problem is one LP
    (an epigraph over the rewards, CDF gaps on the merged return grid). The number of
    histories grows like :math:`(SA)^H`: meant for tiny problems (the paper gives no practical
    algorithm for this setting; this is its oracle made exact).

    Parameters
    ----------
    mdp : TabularMDP
        Its transitions are used; its reward is ignored.
    demos : Demonstrations or (states, actions)
        Expert trajectories; the empirical return law under each candidate reward is the target.
    rewards : array, shape (K, H, S, A) or (K, S, A)
        The reward class :math:`\mathcal R` (finite), within the MDP's reward range.
    max_histories : int
        Refuse problems with more history-action leaves than this.
    return_info : bool
        Also return ``{"value", "per_reward", "n_variables"}``.

    Returns
    -------
    TabularHistoryPolicy, or (policy, info)

    References
    ----------
    F. Lazzati and A. M. Metelli. Imitation Learning as Return Distribution Matching. ICLR 2026,
    arXiv:2509.12026, Section 5.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.imitation import markov_insufficiency_instance
    >>> mdp, expert = markov_insufficiency_instance()
    >>> demos = mdp.rollout(expert, n=20, rng=0)
    >>> rewards = np.stack([mdp.reward, 1.0 - mdp.reward])         # two candidate rewards
    >>> pi, info = robust_rdm_oracle(mdp, demos, rewards, return_info=True)
    >>> round(info["value"], 12), pi
    (0.0, TabularHistoryPolicy(S=4, A=2, H=3))
    """
    _check_mdp(mdp)
    return_info = check_bool(return_info, "return_info")
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    d = as_demonstrations(demos, S, A, H)
    R = check_array(rewards, "rewards", ndim=(3, 4))
    if R.ndim == 3:
        R = np.broadcast_to(R[:, None], (R.shape[0], H) + R.shape[1:])
    if R.shape[1:] != (H, S, A) or R.shape[0] == 0:
        raise InputError("rewards", f"has shape {R.shape}", f"(K, {H}, {S}, {A}) or (K, {S}, {A}) with K >= 1")
    low, high = mdp.reward_range
    if np.any(R < low - 1e-12) or np.any(R > high + 1e-12):
        raise InputError("rewards", f"has values in [{R.min():g}, {R.max():g}]", f"rewards within [{low:g}, {high:g}]")
    max_histories = check_positive_int(max_histories, "max_histories")
    K = R.shape[0]
    if S ** H * A ** (H - 1) > 5_000_000:
        raise InputError("mdp", f"has S^H A^(H-1) = {S ** H * A ** (H - 1):,} history codes",
                         "a tiny problem (S^H A^(H-1) <= 5e6), e.g. S = A = 2, H <= 6")
    tr = _transitions(mdp)
    # enumerate history nodes stage by stage; variables x(node, a)
    s0 = np.flatnonzero(mdp.mu0).astype(INDEX_DTYPE)
    states = s0[:, None]
    actions = np.zeros((s0.size, 0), dtype=INDEX_DTYPE)
    rows, cols, vals, rhs = [], [], [], []
    nodes = []                         # (states, actions, first variable index)
    base = 0
    n_nodes = s0.size
    rows.append(np.repeat(np.arange(n_nodes), A)); cols.append(np.arange(n_nodes * A)); vals.append(np.ones(n_nodes * A))
    rhs.append(mdp.mu0[s0]); r0 = n_nodes
    for h in range(H):
        n = states.shape[0]
        nodes.append((states, actions, base))
        if n * A > max_histories:
            raise InputError("max_histories", f"the history tree has {n * A:,} leaves at stage {h + 1}",
                             f"at most {max_histories:,} (use smaller S, A, H)")
        if h == H - 1:
            break
        par = np.repeat(np.arange(n), A)
        aa = np.tile(np.arange(A, dtype=INDEX_DTYPE), n)
        parent, s2, pr = tr.expand(h, states[par, h] * A + aa)
        n_child = parent.size
        child_base = base + n * A
        # sum_a x(child, a) - p * x(node, a_parent) = 0
        rr = r0 + np.arange(n_child)
        rows.append(np.repeat(rr, A)); cols.append(child_base + np.arange(n_child * A)); vals.append(np.ones(n_child * A))
        rows.append(rr); cols.append(base + parent); vals.append(-pr)
        rhs.append(np.zeros(n_child)); r0 += n_child
        states = np.concatenate([states[par[parent]], s2[:, None]], axis=1)
        actions = np.concatenate([actions[par[parent]], aa[parent][:, None]], axis=1)
        base = child_base
    n_x = base + states.shape[0] * A
    # leaves: last stage nodes x actions
    st_H, ac_H, bH = nodes[-1]
    nL = st_H.shape[0]
    leaf_s = np.repeat(st_H, A, axis=0)                                               # (nL*A, H)
    leaf_a = np.concatenate([np.repeat(ac_H, A, axis=0), np.tile(np.arange(A), nL)[:, None]], axis=1)
    hh = np.arange(H)[None, :]
    ub_rows, ub_cols, ub_vals, b_ub = [], [], [], []
    t_base = n_x
    per_k = []
    u0 = 0
    for kk in range(K):
        g_leaf = np.round(R[kk][hh, leaf_s, leaf_a].sum(axis=1), 9)
        g_demo = np.round(d.returns(R[kk]), 9)
        z = np.unique(np.concatenate([g_leaf, g_demo]))
        J = z.size - 1
        per_k.append((z, g_leaf))
        if J == 0:
            continue
        Fhat = np.searchsorted(np.sort(g_demo), z[:J], side="right") / d.n
        # indicator G_leaf <= z_j : leaf contributes to rows j >= rank(leaf)
        rank = np.searchsorted(z, g_leaf)                                           # index of leaf value
        cnt = J - rank
        leaf_idx = np.repeat(np.arange(nL * A), np.clip(cnt, 0, None))
        jj = np.concatenate([np.arange(rk, J) for rk in rank]) if leaf_idx.size else np.zeros(0, int)
        tcols = t_base + np.arange(J)
        # F_j - t_j <= Fhat_j ; -F_j - t_j <= -Fhat_j
        ub_rows += [u0 + jj, u0 + np.arange(J), u0 + J + jj, u0 + J + np.arange(J)]
        ub_cols += [bH + leaf_idx, tcols, bH + leaf_idx, tcols]
        ub_vals += [np.ones(jj.size), -np.ones(J), -np.ones(jj.size), -np.ones(J)]
        b_ub += [Fhat, -Fhat]
        per_k[-1] = (z, rank, t_base, J, Fhat)
        u0 += 2 * J
        t_base += J
    zcol = t_base
    n_var = zcol + 1
    # epigraph rows: sum_j dz_j t_kj - z <= 0
    for item in per_k:
        if len(item) == 2:
            continue
        z, _, tb, J, _ = item
        ub_rows += [np.full(J, u0), np.array([u0])]
        ub_cols += [tb + np.arange(J), np.array([zcol])]
        ub_vals += [np.diff(z), -np.ones(1)]
        b_ub += [np.zeros(1)]
        u0 += 1
    A_eq = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r0, n_var))
    b_eq = np.concatenate(rhs)
    c = np.zeros(n_var)
    c[zcol] = 1.0
    if u0:
        A_ub = sparse.csr_matrix((np.concatenate(ub_vals), (np.concatenate(ub_rows), np.concatenate(ub_cols))),
                                 shape=(u0, n_var))
        res = linprog(c, A_ub=A_ub, b_ub=np.concatenate(b_ub), A_eq=A_eq, b_eq=b_eq, bounds=(0, None))
    else:
        res = linprog(c, A_eq=A_eq, b_eq=b_eq, bounds=(0, None))
    x = np.clip(res.x, 0, None)
    tables = []
    for h, (st, ac, b0) in enumerate(nodes):
        tab = np.full((S ** (h + 1) * A ** h, A), 1.0 / A)
        occ = x[b0:b0 + st.shape[0] * A].reshape(-1, A)
        tot = occ.sum(axis=1)
        code = history_code(st, ac, h, S, A)
        ok = tot > 1e-15
        tab[code[ok]] = occ[ok] / tot[ok, None]
        tables.append(tab)
    pol = TabularHistoryPolicy(tables, S, A)
    per_reward = []
    for item in per_k:
        if len(item) == 2:
            per_reward.append(0.0)
        else:
            z, rank, tb, J, Fhat = item
            F = np.cumsum(np.bincount(rank, weights=x[bH:bH + nL * A], minlength=J + 1))[:J]
            per_reward.append(float(np.diff(z) @ np.abs(F - Fhat)))
    info = {"value": float(res.fun), "per_reward": per_reward, "n_variables": n_var}
    pol.info = info
    return (pol, info) if return_info else pol
