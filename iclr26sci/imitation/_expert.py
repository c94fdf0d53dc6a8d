r"""Experts: a CVaR-optimal risk-sensitive expert, the paper's random experts, and the
Markov-insufficiency instance."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, as_generator, check_bool, check_in_range, check_memory, progress

from ._mdp import INDEX_DTYPE, TabularMDP, discretise_reward
from ._policies import MarkovPolicy, ProjectedHistoryPolicy, ReturnAugmentedPolicy

__all__ = ["risk_sensitive_expert", "random_markov_expert", "random_nonmarkov_expert",
           "markov_insufficiency_instance"]


def risk_sensitive_expert(mdp: TabularMDP, cvar_alpha: float = 0.2, theta: float | None = None,
                          ) -> ReturnAugmentedPolicy:
    r"""A CVaR-optimal expert by dynamic programming on (state, cumulative reward).

    Uses the Rockafellar-Uryasev form (Bäuerle and Ott, 2011):

    .. math::
        \mathrm{CVaR}_\alpha(G) = \max_b \Big\{ b - \tfrac1\alpha\, \mathbb E[(b - G)^+] \Big\},

    and for every level :math:`b` on the return grid solves
    :math:`V_h(s, y) = \min_a \sum_{s'} p_h(s'|s,a)\, V_{h+1}(s', y + k_h(s,a))` with
    :math:`V_{H+1}(s, y) = (b - y)^+`. The optimal policy for the best :math:`b` depends on
    the cumulative reward :math:`y`, so it is non-Markovian in general.

    Parameters
    ----------
    mdp : TabularMDP
        The MDP and the reward whose return's CVaR is maximised.
    cvar_alpha : float in (0, 1], default 0.2
        Level :math:`\alpha`: the expert maximises the mean of its worst :math:`\alpha`-fraction
        of returns; ``1`` gives a mean-optimal (risk-neutral) expert.
    theta : float, optional
        Grid of the cumulative reward; defaults to the MDP's reward grid (then the policy is
        exactly CVaR-optimal among all history-dependent policies), otherwise it optimises
        the CVaR of the :math:`r^\theta`-return.

    Returns
    -------
    ReturnAugmentedPolicy
        Deterministic; ``policy.info`` holds the optimal ``cvar`` (of the grid return) and ``var_level`` b.

    References
    ----------
    N. Bäuerle and J. Ott. Markov decision processes with average-value-at-risk criteria.
    Math. Methods Oper. Res. 74 (2011).

    Examples
    --------
    >>> from iclr26sci.imitation import TabularMDP, return_distribution
    >>> mdp = TabularMDP.random(3, 2, 3, reward_grid=0.25, sparsity=0.0, rng=0)
    >>> expert = risk_sensitive_expert(mdp, cvar_alpha=0.5)
    >>> eta = return_distribution(mdp, expert)
    >>> bool(abs(eta.cvar(0.5) - expert.info["cvar"]) < 1e-9)   # the DP's optimum is the exact CVaR
    True
    """
    if not isinstance(mdp, TabularMDP):
        raise InputError("mdp", f"got {type(mdp).__name__}", "a TabularMDP")
    alpha = check_in_range(cvar_alpha, "cvar_alpha", 0.0, 1.0, low_open=True)
    if theta is None:
        if mdp.reward_grid is None:
            raise InputError("theta", "is needed: the MDP's rewards lie on no detectable grid",
                             "a positive grid step")
        theta = mdp.reward_grid
    theta = mdp.check_theta(theta)
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    low = mdp.reward_range[0]
    k = discretise_reward(mdp.r, theta, low)
    Yt = int(sum(int(k[t].max()) for t in range(H))) + 1
    B = Yt
    work = float(B) * H * S * A * (S + 2) * Yt
    check_memory(8.0 * H * S * Yt * (A + 2) + 8.0 * 4 * min(2e7, S * A * Yt * B), "theta",
                 f"the CVaR dynamic program over {Yt:,} cumulative-reward levels")
    if work > 2e11:
        raise InputError("theta", f"gives {Yt} cumulative-reward levels; the CVaR dynamic program would need "
                         f"about {work:.1e} operations", "a coarser theta")
    yv = np.arange(Yt)
    ygrid = yv[None, None, :]

    def backward(bb, store):
        """Shortfall values V_1(s, 0) for the levels ``bb`` (and the argmin actions if ``store``)."""
        nb = bb.size
        V = np.maximum(bb[:, None] - yv[None, :], 0).astype(float)                # (nb, Yt)
        V = np.broadcast_to(V[:, None, :], (nb, S, Yt)).copy()                     # (nb, S, Yt)
        acts = np.zeros((H, nb, S, Yt), dtype=INDEX_DTYPE) if store else None
        for h in range(H - 1, -1, -1):
            # PV[s, a, b, y] = sum_s' p(s'|s,a) V[b, s', y]
            PV = (mdp.P[h].reshape(S * A, S) @ V.transpose(1, 0, 2).reshape(S, nb * Yt)).reshape(S, A, nb, Yt)
            idx = np.minimum(ygrid + k[h][:, :, None], Yt - 1)                     # (S, A, Yt)
            Q = np.take_along_axis(PV, np.broadcast_to(idx[:, :, None, :], PV.shape), axis=3)
            if store:
                acts[h] = np.argmin(Q, axis=1).transpose(1, 0, 2)
            V = Q.min(axis=1).transpose(1, 0, 2)                                   # (nb, S, Yt)
        return V[:, :, 0], acts

    b = np.arange(B)
    chunk = max(1, int(2e7 // (S * A * Yt)))
    V0 = np.concatenate([backward(b[lo:lo + chunk], False)[0]
                         for lo in progress(range(0, B, chunk), desc="CVaR levels", total=-(-B // chunk))])
    shortfall = V0 @ mdp.mu0                                             # E[(b - G)^+] in grid units
    cvar = b - shortfall / alpha
    best = int(np.argmax(cvar))
    _, acts = backward(b[best:best + 1], True)
    a_star = acts[:, 0]                                                  # (H, S, Yt)
    probs = np.zeros((H, S, Yt, A))
    np.put_along_axis(probs, a_star[..., None], 1.0, axis=3)
    pol = ReturnAugmentedPolicy(probs, k, theta)
    pol.info = {"cvar": float(H * low + theta * cvar[best]), "var_level": float(H * low + theta * best),
                "cvar_alpha": alpha}
    return pol


def _require_mdp(mdp):
    if not isinstance(mdp, TabularMDP):
        raise InputError("mdp", f"got {type(mdp).__name__}", "a TabularMDP")
    return mdp


def random_markov_expert(mdp: TabularMDP, deterministic: bool = False, rng=None) -> MarkovPolicy:
    r"""The paper's random Markov expert: :math:`\pi_h(\cdot|s) \sim \mathrm{Dirichlet}(1_A)`,
    or a uniformly random deterministic choice.

    Parameters
    ----------
    mdp : TabularMDP
        Gives S, A and H.
    deterministic : bool, default False
        One uniformly random action per (h, s) instead of Dirichlet probabilities.
    rng : seed or numpy Generator, optional

    Examples
    --------
    >>> from iclr26sci.imitation import TabularMDP
    >>> mdp = TabularMDP.random(3, 2, 4, rng=0)
    >>> float(random_markov_expert(mdp, deterministic=True, rng=0).markov_probs.max(axis=-1).min())
    1.0
    """
    _require_mdp(mdp)
    deterministic = check_bool(deterministic, "deterministic")
    g = as_generator(rng)
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    if deterministic:
        probs = np.zeros((H, S, A))
        np.put_along_axis(probs, g.integers(0, A, size=(H, S, 1)), 1.0, axis=2)
    else:
        probs = g.dirichlet(np.ones(A), size=(H, S))
    return MarkovPolicy(probs)


def random_nonmarkov_expert(mdp: TabularMDP, deterministic: bool = False, n_features: int = 16,
                            rng=None) -> ProjectedHistoryPolicy:
    """The paper's random non-Markovian expert (see :class:`ProjectedHistoryPolicy`).

    Parameters
    ----------
    mdp : TabularMDP
        Gives S, A and H.
    deterministic : bool, default False
        Arg-max instead of softmax actions.
    n_features : int, default 16
        Dimension of the random projection of the history.
    rng : seed or numpy Generator, optional

    Examples
    --------
    >>> from iclr26sci.imitation import TabularMDP
    >>> random_nonmarkov_expert(TabularMDP.random(3, 2, 4, rng=0), rng=1)
    ProjectedHistoryPolicy(S=3, A=2, H=4, deterministic=False)
    """
    _require_mdp(mdp)
    return ProjectedHistoryPolicy(mdp.n_states, mdp.n_actions, mdp.horizon, n_features=n_features,
                                  deterministic=deterministic, rng=rng)


def markov_insufficiency_instance() -> tuple[TabularMDP, ReturnAugmentedPolicy]:
    r"""A 4-state, 2-action, :math:`H=3` MDP where every Markov policy is at :math:`W_1 = 1/2`.

    From :math:`s_0` the first step goes to :math:`s_1` or :math:`s_2` with probability 1/2
    (reward 0); the second step pays 0 in :math:`s_1` and 1 in :math:`s_2` and leads to
    :math:`s_3`; the third pays :math:`r(s_3, a) = a`. The expert plays :math:`a=1` iff its
    cumulative reward is 0, so its return is always 1; a Markov policy with
    :math:`p = \pi_3(1|s_3)` has return law :math:`\{0: (1-p)/2, 1: 1/2, 2: p/2\}`, at
    :math:`W_1 = 1/2` from the expert's.

    Returns
    -------
    (TabularMDP, ReturnAugmentedPolicy)
        The MDP and its expert.

    Examples
    --------
    >>> mdp, expert = markov_insufficiency_instance()
    >>> mdp.shape
    (4, 2, 3)
    """
    S, A, H = 4, 2, 3
    P = np.zeros((H, S, A, S))
    P[:, :, :, 3] = 1.0
    P[0, 0, :, 3] = 0.0
    P[0, 0, :, 1] = 0.5
    P[0, 0, :, 2] = 0.5
    r = np.zeros((H, S, A))
    r[1, 2, :] = 1.0
    r[2, 3, 1] = 1.0
    mdp = TabularMDP(P, r, 0, reward_grid=1.0)
    probs = np.zeros((H, S, 3, A))
    probs[..., 0] = 1.0
    probs[2, 3, 0] = [0.0, 1.0]
    expert = ReturnAugmentedPolicy(probs, discretise_reward(r, 1.0), theta=1.0)
    return mdp, expert
