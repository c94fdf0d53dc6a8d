r"""MIMIC-MD (Rajaraman et al., 2020) in the LP form used as a baseline by the paper."""
from __future__ import annotations

import numpy as np
from scipy import sparse

from iclr26sci.core import InputError, as_generator, check_bool
from iclr26sci.optim import linprog

from ._evaluate import _check_mdp
from ._mdp import TabularMDP, as_demonstrations
from ._policies import MarkovPolicy

__all__ = ["mimic_md"]


def _counts(d, H, S, A):
    h = np.arange(H)[None, :]
    idx = (h * S + d.states[:, :H]) * A + d.actions
    return np.bincount(idx.ravel(), minlength=H * S * A).reshape(H, S, A).astype(float)


def mimic_md(mdp: TabularMDP, demos, *, shuffle: bool = False, rng=None) -> MarkovPolicy:
    r"""MIMIC-MD as an LP over Markov state-action occupancies (transitions known).

    The demonstrations are split in halves :math:`D_1, D_2`. With :math:`\hat\pi^{(1)}` the
    empirical policy on the (h, s) visited in :math:`D_1` and :math:`\hat M_h(s,a)` the empirical
    state-action frequencies of :math:`D_2`, solve

    .. math::
        \min_{d \ge 0} \sum_{h,s,a} |d_h(s,a) - \hat M_h(s,a)| \quad\text{s.t. flow},\
        \sum_a d_1(s,a) = \mu_0(s),\
        d_h(s,a) = \hat\pi^{(1)}_h(a|s) \textstyle\sum_{a'} d_h(s,a') \ \text{on visited } (h,s),

    and return :math:`\pi_h(a|s) \propto d_h(s,a)` (the empirical policy on visited states
    without mass, uniform elsewhere).

    Parameters
    ----------
    mdp : TabularMDP
        Known transitions (the flow constraints).
    demos : Demonstrations or (states, actions)
        Expert trajectories, at least 2 (they are split in halves).
    shuffle : bool, default False
        Split at random (with ``rng``) instead of first half / second half.
    rng : seed or numpy Generator, optional
        Used when ``shuffle`` is True.

    Returns
    -------
    MarkovPolicy
        ``policy.info["l1"]`` is the LP's optimal :math:`\ell_1` distance.

    References
    ----------
    N. Rajaraman, L. F. Yang, J. Jiao, K. Ramchandran. Toward the fundamental limits of
    imitation learning. NeurIPS 2020.

    Examples
    --------
    >>> from iclr26sci.imitation import markov_insufficiency_instance, return_distribution
    >>> mdp, expert = markov_insufficiency_instance()
    >>> pi = mimic_md(mdp, mdp.rollout(expert, n=2000, rng=0))
    >>> round(return_distribution(mdp, pi).wasserstein(return_distribution(mdp, expert)), 2)  # Markov
    0.5
    """
    _check_mdp(mdp)
    shuffle = check_bool(shuffle, "shuffle")
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    d = as_demonstrations(demos, S, A, H)
    if d.n < 2:
        raise InputError("demos", f"has {d.n} trajectory", "at least 2 trajectories (split in halves)")
    idx = np.arange(d.n)
    if shuffle:
        idx = as_generator(rng).permutation(d.n)
    n1 = d.n // 2
    c1 = _counts(d.subset(idx[:n1]), H, S, A)
    M = _counts(d.subset(idx[n1:]), H, S, A) / (d.n - n1)
    tot1 = c1.sum(-1, keepdims=True)
    visited = tot1[..., 0] > 0
    pi1 = np.where(tot1 > 0, c1 / np.where(tot1 > 0, tot1, 1), 1.0 / A)
    nd = H * S * A
    var = np.arange(nd).reshape(H, S, A)
    rows, cols, vals, rhs = [], [], [], []
    r0 = 0
    # initial
    rows.append(np.repeat(np.arange(S), A)); cols.append(var[0].ravel()); vals.append(np.ones(S * A))
    rhs.append(mdp.mu0.copy()); r0 += S
    for h in range(H - 1):
        rows.append(r0 + np.repeat(np.arange(S), A)); cols.append(var[h + 1].ravel()); vals.append(np.ones(S * A))
        Ph = mdp.P[h].reshape(S * A, S)
        sa, s2 = np.nonzero(Ph)
        rows.append(r0 + s2); cols.append(var[h].ravel()[sa]); vals.append(-Ph[sa, s2])
        rhs.append(np.zeros(S)); r0 += S
    # policy constraints on visited (h, s): d_h(s,a) - pi(a|s) sum_a' d_h(s,a') = 0
    hv, sv = np.nonzero(visited)
    nv = hv.size
    if nv:
        rr = r0 + np.arange(nv * A)
        rows.append(rr); cols.append(var[hv, sv].ravel()); vals.append(np.ones(nv * A))
        rows.append(np.repeat(rr, A)); cols.append(np.repeat(var[hv, sv], A, axis=0).ravel())
        vals.append(-np.repeat(pi1[hv, sv].ravel(), A))
        rhs.append(np.zeros(nv * A)); r0 += nv * A
    n_var = 2 * nd
    A_eq = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(r0, n_var))
    b_eq = np.concatenate(rhs)
    I = sparse.identity(nd, format="csr")
    A_ub = sparse.vstack([sparse.hstack([I, -I]), sparse.hstack([-I, -I])], format="csr")
    b_ub = np.concatenate([M.ravel(), -M.ravel()])
    c = np.concatenate([np.zeros(nd), np.ones(nd)])
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, None))
    occ = np.clip(res.x[:nd], 0, None).reshape(H, S, A)
    tot = occ.sum(-1, keepdims=True)
    fallback = np.where(visited[..., None], pi1, 1.0 / A)
    probs = np.where(tot > 1e-12, occ / np.where(tot > 1e-12, tot, 1), fallback)
    probs = np.where(visited[..., None], pi1, probs)
    pol = MarkovPolicy(probs)
    pol.info = {"l1": float(res.fun), "n_demos": d.n}
    return pol
