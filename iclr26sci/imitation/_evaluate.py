r"""Exact return distributions and occupancies by forward dynamic programming.

For Markov and return-augmented policies the forward pass runs over atoms
:math:`(h, s, y, g)` (state, the policy's cumulative index, the return index on the
reward grid), merging equal atoms at every stage, so its size is
:math:`O(S \cdot |Y| \cdot |G|)` per stage. History-dependent policies are evaluated by
enumerating histories (small problems only); Monte Carlo is used only when asked for.
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

from iclr26sci.core import InputError, check_array, check_bool, check_in_range, check_memory, check_option, \
    check_positive_int
from iclr26sci.prob import DiscreteLaw

from ._mdp import INDEX_DTYPE, Demonstrations, TabularMDP, detect_reward_grid, discretise_reward
from ._policies import HistoryPolicy, Policy, ReturnAugmentedPolicy

__all__ = ["return_distribution", "occupancy", "averaged_policy", "empirical_return_distribution",
           "grid_wasserstein"]

_DENSE_LIMIT = 8_000_000
_FALLBACK_RESOLUTION = 1e-9


def _check_mdp(mdp, name="mdp") -> TabularMDP:
    if not isinstance(mdp, TabularMDP):
        raise InputError(name, f"got {type(mdp).__name__}", "a TabularMDP")
    return mdp


def _check_policy(policy, mdp) -> Policy:
    if not isinstance(policy, Policy):
        raise InputError("policy", f"got {type(policy).__name__}", "an iclr26sci.imitation Policy")
    policy._check_compatible(mdp)
    return policy


class _Transitions:
    """CSR form of each stage's ``P[h].reshape(S*A, S)`` for sparse expansion."""

    def __init__(self, mdp: TabularMDP):
        H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
        self.csr = []
        for h in range(H):
            m = sparse.csr_matrix(mdp.P[h].reshape(S * A, S))
            m.eliminate_zeros()
            self.csr.append(m)

    def expand(self, h: int, rows: np.ndarray):
        """For each row index (s*A + a), its non-zero next states: (parent index, next state, prob)."""
        m = self.csr[h]
        starts = m.indptr[rows]
        counts = m.indptr[rows + 1] - starts
        parent = np.repeat(np.arange(rows.size), counts)
        offs = np.arange(parent.size) - np.repeat(np.cumsum(counts) - counts, counts)
        pos = starts[parent] + offs
        return parent, m.indices[pos].astype(INDEX_DTYPE), m.data[pos]


def _transitions(mdp: TabularMDP) -> _Transitions:
    """Cached sparse transitions of an (immutable) MDP."""
    tr = mdp.__dict__.get("_tr_cache")
    if tr is None:
        tr = _Transitions(mdp)
        mdp.__dict__["_tr_cache"] = tr
    return tr


def _merge(cols: list[np.ndarray], spans: list[int], p: np.ndarray):
    """Sum ``p`` over equal rows of the integer columns ``cols`` (each in ``[0, span)``)."""
    total = 1
    for sp in spans:
        total *= int(sp)
    if total < 2 ** 62:
        key = np.zeros(p.size, dtype=np.int64)
        for c, sp in zip(cols, spans):
            key = key * int(sp) + c
        if total <= _DENSE_LIMIT:
            w = np.bincount(key, weights=p, minlength=total)
            uk = np.flatnonzero(w)
            w = w[uk]
        else:
            uk, inv = np.unique(key, return_inverse=True)
            w = np.bincount(inv.ravel(), weights=p)
        out = []
        for sp in reversed(spans):
            out.append(uk % sp)
            uk = uk // sp
        return out[::-1], w
    stacked = np.stack(cols, axis=1)
    uk, inv = np.unique(stacked, axis=0, return_inverse=True)
    w = np.bincount(inv.ravel(), weights=p)
    return [uk[:, j] for j in range(uk.shape[1])], w


def _reward_index(mdp: TabularMDP, reward):
    """Integer return increments on a grid of the evaluation reward, with (offset, step)."""
    if reward is None:
        rew, grid = mdp.r, mdp.reward_grid
    else:
        rew = mdp._check_reward(reward)
        grid = detect_reward_grid(rew, mdp.reward_range[0])
    low = mdp.reward_range[0]
    step = grid if grid is not None else _FALLBACK_RESOLUTION
    inc = np.rint((rew - low) / step).astype(INDEX_DTYPE)
    return inc, low * mdp.horizon, step


def _forward_table(mdp, policy: ReturnAugmentedPolicy, accs: list[np.ndarray], record: bool = False):
    """Forward pass of a table policy carrying integer accumulators ``accs`` (each (H,S,A)).

    Returns the final atoms ``(s, y, acc_1..acc_J), p`` and, if ``record``, per stage the
    state-action atoms ``(s, y, accs, a), mass`` before the step's increments are added.
    """
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    tr = _transitions(mdp)
    Y = policy.n_y
    spans = [int(sum(int(acc[t].max(initial=0)) for t in range(H))) + 1 for acc in accs]
    s = np.flatnonzero(mdp.mu0).astype(INDEX_DTYPE)
    p = mdp.mu0[s].astype(float)
    y = np.zeros(s.size, dtype=INDEX_DTYPE)
    vals = [np.zeros(s.size, dtype=INDEX_DTYPE) for _ in accs]
    stages = []
    for h in range(H):
        pa = p[:, None] * policy._table_probs(h, s, y)              # (n, A)
        i, a = np.nonzero(pa > 0)
        m = pa[i, a]
        si, yi = s[i], y[i]
        vi = [v[i] for v in vals]
        if record:
            stages.append((si, yi, vi, a.astype(INDEX_DTYPE), m))
        ny = np.minimum(yi + policy.increments[h, si, a], Y - 1)
        nv = [v + acc[h, si, a] for v, acc in zip(vi, accs)]
        parent, s2, pr = tr.expand(h, si * A + a)
        cols = [s2, ny[parent]] + [v[parent] for v in nv]
        (s, y, *vals), p = _merge(cols, [S, Y] + spans, m[parent] * pr)
    return (s, y, vals, p), stages, spans


def _enumerate_histories(mdp, policy: Policy, accs: list[np.ndarray], max_histories: int, record: bool = False):
    """Enumerate all histories with positive probability (for general history-dependent policies)."""
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    tr = _transitions(mdp)
    s0 = np.flatnonzero(mdp.mu0).astype(INDEX_DTYPE)
    states = s0[:, None]
    actions = np.zeros((s0.size, 0), dtype=INDEX_DTYPE)
    p = mdp.mu0[s0].astype(float)
    vals = [np.zeros(s0.size, dtype=INDEX_DTYPE) for _ in accs]
    stages = []
    for h in range(H):
        pa = p[:, None] * policy._probs(h, states, actions)
        i, a = np.nonzero(pa > 0)
        m = pa[i, a]
        a = a.astype(INDEX_DTYPE)
        si = states[i, h]
        vi = [v[i] for v in vals]
        if record:
            stages.append((si, vi, a, m))
        nv = [v + acc[h, si, a] for v, acc in zip(vi, accs)]
        parent, s2, pr = tr.expand(h, si * A + a)
        if parent.size > max_histories:
            raise InputError("policy", f"is history-dependent and exact evaluation would enumerate "
                             f"more than {parent.size:,} histories (max_histories={max_histories:,})",
                             "method='mc' (Monte Carlo) or a Markov / return-augmented policy")
        states = np.concatenate([states[i][parent], s2[:, None]], axis=1)
        actions = np.concatenate([actions[i][parent], a[parent][:, None]], axis=1)
        vals = [v[parent] for v in nv]
        p = m[parent] * pr
    return (states, actions, vals, p), stages


def return_distribution(mdp: TabularMDP, policy: Policy, reward=None, *, method: str = "exact",
                        n_rollouts: int = 100_000, max_histories: int = 2_000_000, rng=None) -> DiscreteLaw:
    r"""The return distribution :math:`\eta^\pi_r = \mathrm{Law}_\pi\big(\sum_{h=1}^H r_h(s_h,a_h)\big)`.

    Parameters
    ----------
    mdp : TabularMDP
    policy : Policy
        Markov, return-augmented or history-dependent.
    reward : array (H, S, A) or (S, A), optional
        Evaluation reward (default the MDP's); it may differ from the reward the policy
        conditions on.
    method : {"exact", "mc"}
        ``"exact"``: forward dynamic programming over (stage, state, policy index, return index)
        for table policies, history enumeration (at most ``max_histories``) otherwise.
        ``"mc"``: the empirical law of ``n_rollouts`` rollouts.
    rng : seed, optional
        Used by ``"mc"`` only.

    Returns
    -------
    DiscreteLaw
        Exact when the rewards lie on a rational grid (detected, steps ``1/q``, ``q <= 1000``);
        otherwise returns are resolved to :math:`10^{-9}`.

    Notes
    -----
    .. math::
        \eta^\pi_r(g) = \sum_{\omega} \Pr_\pi(\omega)\, \mathbf 1\{G(\omega; r) = g\}.

    References
    ----------
    F. Lazzati and A. M. Metelli. Imitation Learning as Return Distribution Matching. ICLR 2026, arXiv:2509.12026.

    Examples
    --------
    >>> from iclr26sci.imitation import markov_insufficiency_instance
    >>> mdp, expert = markov_insufficiency_instance()
    >>> eta = return_distribution(mdp, expert)          # the expert's return is always 1
    >>> eta.support, eta.weights
    (array([1.]), array([1.]))
    """
    _check_mdp(mdp)
    _check_policy(policy, mdp)
    method = check_option(method, "method", ("exact", "mc"))
    if method == "mc":
        n = check_positive_int(n_rollouts, "n_rollouts")
        rew = mdp.r if reward is None else mdp._check_reward(reward)
        demos = mdp.rollout(policy, n, rng=rng)
        return DiscreteLaw(demos.returns(rew))
    max_histories = check_positive_int(max_histories, "max_histories")
    inc, offset, step = _reward_index(mdp, reward)
    if isinstance(policy, ReturnAugmentedPolicy):
        (_, _, vals, p), _, _ = _forward_table(mdp, policy, [inc])
    else:
        (_, _, vals, p), _ = _enumerate_histories(mdp, policy, [inc], max_histories)
    g, inv = np.unique(vals[0], return_inverse=True)
    w = np.bincount(inv.ravel(), weights=p)
    return DiscreteLaw(offset + g * step, w)


def occupancy(mdp: TabularMDP, policy: Policy, theta: float, *, max_histories: int = 2_000_000):
    r"""Occupancies :math:`d_h(s, y, a) = \Pr_\pi(s_h = s, y_h = y, a_h = a)` with
    :math:`y_h = \sum_{t<h} \mathrm{rint}(r_t(s_t,a_t)/\theta)`.

    Parameters
    ----------
    mdp : TabularMDP
        Transitions and the reward whose discretisation defines ``y``.
    policy : Policy
        Any policy (table policies by forward DP, history policies by enumeration).
    theta : float in (0, high - low]
        Discretisation step of the cumulative reward.
    max_histories : int, default 2_000_000
        Cap on the histories enumerated for a history-dependent policy.

    Returns
    -------
    d : array, shape (H, S, Y, A)
        ``Y`` is one plus the largest reachable index at stage ``H``; each stage sums to 1.

    Examples
    --------
    >>> from iclr26sci.imitation import markov_insufficiency_instance
    >>> mdp, expert = markov_insufficiency_instance()
    >>> d = occupancy(mdp, expert, theta=1.0)
    >>> d.shape, d[2, 3, :, 1]                  # stage 3: action 1 is played exactly when y = 0
    ((3, 4, 2, 2), array([0.5, 0. ]))
    """
    _check_mdp(mdp)
    _check_policy(policy, mdp)
    theta = mdp.check_theta(theta)
    max_histories = check_positive_int(max_histories, "max_histories")
    k = discretise_reward(mdp.r, theta, mdp.reward_range[0])
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    Yf = float(sum(float(k[t].max()) for t in range(H - 1))) + 1
    check_memory(8.0 * H * S * A * Yf, "theta", f"the occupancy table (H, S, Y, A) = ({H}, {S}, {Yf:.3g}, {A})")
    Y = int(Yf)
    d = np.zeros((H, S, Y, A))
    if isinstance(policy, ReturnAugmentedPolicy):
        _, stages, _ = _forward_table(mdp, policy, [k], record=True)
        for h, (si, yi, vi, a, m) in enumerate(stages):
            np.add.at(d[h], (si, vi[0], a), m)
    else:
        _, stages = _enumerate_histories(mdp, policy, [k], max_histories, record=True)
        for h, (si, vi, a, m) in enumerate(stages):
            np.add.at(d[h], (si, vi[0], a), m)
    return d


def averaged_policy(mdp: TabularMDP, expert: Policy, theta: float) -> ReturnAugmentedPolicy:
    r"""The averaged policy in :math:`\Pi(r^\theta)` of an expert (exact, from its occupancies).

    .. math::
        \pi_h(a | s, y) = \frac{\Pr_{\pi_E}(s_h=s, y_h=y, a_h=a)}{\Pr_{\pi_E}(s_h=s, y_h=y)}
        \quad(\text{uniform where the denominator is } 0).

    It induces exactly the expert's law of the :math:`r^\theta`-return, and its
    :math:`r`-return law is within :math:`H\theta` of the expert's in :math:`W_1` (Lemma 4.2).

    Parameters
    ----------
    mdp : TabularMDP
    expert : Policy
        The (possibly non-Markovian) expert :math:`\pi_E`.
    theta : float in (0, high - low]
        Discretisation step of the cumulative reward the averaged policy conditions on.

    Returns
    -------
    ReturnAugmentedPolicy

    Examples
    --------
    >>> from iclr26sci.imitation import markov_insufficiency_instance, return_distribution
    >>> mdp, expert = markov_insufficiency_instance()
    >>> pi = averaged_policy(mdp, expert, theta=1.0)
    >>> return_distribution(mdp, pi).wasserstein(return_distribution(mdp, expert))
    0.0
    """
    d = occupancy(mdp, expert, theta)
    k = discretise_reward(mdp.r, theta, mdp.reward_range[0])
    return ReturnAugmentedPolicy(_normalise_occupancy(d), k, theta)


def _normalise_occupancy(d: np.ndarray) -> np.ndarray:
    tot = d.sum(axis=-1, keepdims=True)
    A = d.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(tot > 0, d / np.where(tot > 0, tot, 1.0), 1.0 / A)
    return out


def empirical_return_distribution(demos: Demonstrations, reward) -> DiscreteLaw:
    r"""The empirical return law :math:`\hat\eta = \frac1N\sum_i \delta_{G(\omega_i; r)}`.

    Parameters
    ----------
    demos : Demonstrations
        The trajectories :math:`\omega_i`.
    reward : array, shape (H, S, A) or (S, A)
        The reward :math:`r` the returns are computed with (finite).

    Returns
    -------
    DiscreteLaw

    Examples
    --------
    >>> import numpy as np
    >>> d = Demonstrations(np.array([[0, 1, 1], [0, 0, 1]]), np.array([[1, 0], [0, 1]]), 2, 2)
    >>> r = np.array([[0.0, 1.0], [0.5, 0.5]])     # stationary (S, A): returns 1 + 0.5 and 0 + 1
    >>> law = empirical_return_distribution(d, r)
    >>> law.support, law.weights
    (array([1. , 1.5]), array([0.5, 0.5]))
    """
    if not isinstance(demos, Demonstrations):
        raise InputError("demos", f"got {type(demos).__name__}", "a Demonstrations")
    return DiscreteLaw(demos.returns(reward))


def grid_wasserstein(p, q, step: float = 1.0) -> float:
    r"""1-Wasserstein distance between two histograms on the same grid of spacing ``step``.

    .. math:: W_1 = \text{step}\cdot\sum_k \Big|\sum_{j\le k} (p_j - q_j)\Big|

    (the paper's CDF formula; both histograms are normalised first).

    Parameters
    ----------
    p, q : array-like of shape (K,)
        Non-negative masses on the grid points ``0, step, ..., (K-1) step``; each with positive total.
    step : float > 0, default 1.0
        Grid spacing (the distance's unit).

    Examples
    --------
    >>> grid_wasserstein([1, 0, 0], [0, 0, 1], step=0.5)
    1.0
    """
    p = check_array(p, "p", ndim=1, nonnegative=True)
    q = check_array(q, "q", shape=p.shape, nonnegative=True)
    step = check_in_range(step, "step", 0.0, None, low_open=True)
    if p.size == 0:
        raise InputError("p", "is empty", "at least one grid point")
    for name, x in (("p", p), ("q", q)):
        if not x.sum() > 0:
            raise InputError(name, "has zero total mass", "a histogram with positive mass")
    return float(step * np.abs(np.cumsum(p / p.sum() - q / q.sum())[:-1]).sum())
