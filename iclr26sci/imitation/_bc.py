r"""RS-BC (risk-sensitive behavioural cloning) and the BC baseline: counting estimators."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, check_array, check_in_range, check_memory, check_positive_int

from ._mdp import INDEX_DTYPE, Demonstrations, as_demonstrations, discretise_reward
from ._policies import MarkovPolicy, ReturnAugmentedPolicy

__all__ = ["rs_bc", "bc", "cumulative_indices"]


def _check_reward_table(reward, reward_range, name="reward"):
    r = check_array(reward, name, ndim=3)
    if not (isinstance(reward_range, (tuple, list)) and len(reward_range) == 2):
        raise InputError("reward_range", f"got {reward_range!r}", "a (low, high) pair")
    low = check_in_range(reward_range[0], "reward_range")
    high = check_in_range(reward_range[1], "reward_range")
    if not high > low:
        raise InputError("reward_range", f"got ({low:g}, {high:g})", "low < high")
    if np.any(r < low - 1e-12) or np.any(r > high + 1e-12):
        raise InputError(name, f"has rewards in [{r.min():g}, {r.max():g}]", f"rewards within [{low:g}, {high:g}]")
    return r, low, high


def cumulative_indices(demos: Demonstrations, k: np.ndarray) -> np.ndarray:
    r"""Per-trajectory cumulative indices :math:`y_{i,h} = \sum_{t<h} k_t(s_{i,t}, a_{i,t})`, shape (N, H+1)."""
    H = demos.horizon
    steps = k[np.arange(H)[None, :], demos.states[:, :-1], demos.actions]
    y = np.zeros((demos.n, H + 1), dtype=INDEX_DTYPE)
    np.cumsum(steps, axis=1, out=y[:, 1:])
    return y


def _normalise_counts(counts: np.ndarray) -> np.ndarray:
    tot = counts.sum(axis=-1, keepdims=True)
    A = counts.shape[-1]
    safe = np.where(tot > 0, tot, 1.0)
    return np.where(tot > 0, counts / safe, 1.0 / A)


def rs_bc(demos, reward, theta: float, *, reward_range=(0.0, 1.0)) -> ReturnAugmentedPolicy:
    r"""RS-BC: behavioural cloning in the return-augmented class :math:`\Pi(r^\theta)`.

    With :math:`k_h(s,a) = \mathrm{rint}(r_h(s,a)/\theta)` and
    :math:`y_{i,h} = \sum_{t<h} k_t(s_{i,t}, a_{i,t})`,

    .. math::
        \hat\pi_h(a | s, y) = \frac{M_h(s,y,a)}{\sum_{a'} M_h(s,y,a')}, \qquad
        M_h(s,y,a) = \#\{i : s_{i,h}=s,\ y_{i,h}=y,\ a_{i,h}=a\},

    uniform where the denominator is 0. Transitions are not needed. Cost :math:`O(NH)`.

    Parameters
    ----------
    demos : Demonstrations or (states, actions)
        Expert trajectories :math:`D_E`, states (N, H+1), actions (N, H).
    reward : array, shape (H, S, A)
        The (known) expert reward :math:`r_E`, whose discretised running sum the policy conditions on.
    theta : float
        Discretisation step :math:`0 < \theta \le` high - low. The paper's bound takes
        :math:`\theta = \varepsilon/(4H)` for a target accuracy :math:`\varepsilon`; a smaller step
        is more faithful but splits the data over more (s, y) cells.
    reward_range : (float, float), default (0, 1)
        Declared range (low, high) of the per-step rewards.

    Returns
    -------
    ReturnAugmentedPolicy
        ``policy.info`` holds ``n_demos`` and ``visited`` (number of visited (h, s, y) cells).

    References
    ----------
    F. Lazzati and A. M. Metelli. Imitation Learning as Return Distribution Matching. ICLR 2026, arXiv:2509.12026.

    Examples
    --------
    >>> from iclr26sci.imitation import markov_insufficiency_instance, return_distribution
    >>> mdp, expert = markov_insufficiency_instance()
    >>> demos = mdp.rollout(expert, n=50, rng=0)
    >>> pi = rs_bc(demos, mdp.reward, theta=1.0)
    >>> return_distribution(mdp, pi).wasserstein(return_distribution(mdp, expert))   # BC: 0.5
    0.0
    """
    r, low, high = _check_reward_table(reward, reward_range)
    theta = check_in_range(theta, "theta", 0.0, high - low, low_open=True)
    H, S, A = r.shape
    d = as_demonstrations(demos, S, A, H)
    k = discretise_reward(r, theta, low)
    Yf = float(sum(float(k[t].max()) for t in range(H - 1))) + 1
    check_memory(8.0 * 3 * H * S * A * Yf, "theta",
                 f"the RS-BC count table (H, S, Y, A) = ({H}, {S}, {Yf:.3g}, {A})")
    Y = int(Yf)
    y = cumulative_indices(d, k)[:, :H]
    h = np.arange(H)[None, :]
    idx = ((h * S + d.states[:, :H]) * Y + y) * A + d.actions
    counts = np.bincount(idx.ravel(), minlength=H * S * Y * A).reshape(H, S, Y, A).astype(float)
    pol = ReturnAugmentedPolicy(_normalise_counts(counts), k, theta)
    pol.info = {"n_demos": d.n, "visited": int((counts.sum(-1) > 0).sum())}
    return pol


def bc(demos, n_states: int | None = None, n_actions: int | None = None) -> MarkovPolicy:
    r"""Behavioural cloning with a Markov policy (the paper's BC baseline).

    .. math:: \hat\pi_h(a|s) = \frac{M_h(s,a)}{\sum_{a'} M_h(s,a')} \quad(\text{uniform if unvisited})

    Parameters
    ----------
    demos : Demonstrations or (states, actions)
        Expert trajectories.
    n_states, n_actions : int, optional
        S and A, needed when ``demos`` is a pair of arrays.

    Returns
    -------
    MarkovPolicy

    Examples
    --------
    >>> from iclr26sci.imitation import markov_insufficiency_instance, return_distribution
    >>> mdp, expert = markov_insufficiency_instance()
    >>> pi = bc(mdp.rollout(expert, n=2000, rng=0))
    >>> round(return_distribution(mdp, pi).wasserstein(return_distribution(mdp, expert)), 2)   # Markov: 1/2
    0.5

    References
    ----------
    D. A. Pomerleau. Efficient training of artificial neural networks for autonomous navigation.
    Neural Computation 3 (1991); the tabular counting form as in Rajaraman et al., NeurIPS 2020.
    """
    if isinstance(demos, Demonstrations):
        d = demos
    else:
        if n_states is None or n_actions is None:
            raise InputError("n_states", "is needed with raw (states, actions) arrays", "the sizes S and A")
        n_states = check_positive_int(n_states, "n_states")
        n_actions = check_positive_int(n_actions, "n_actions")
        if not (isinstance(demos, (tuple, list)) and len(demos) == 2):
            raise InputError("demos", f"got {type(demos).__name__}", "a Demonstrations or (states, actions)")
        d = Demonstrations(demos[0], demos[1], n_states, n_actions)
    H, S, A = d.horizon, d.n_states, d.n_actions
    h = np.arange(H)[None, :]
    idx = (h * S + d.states[:, :H]) * A + d.actions
    counts = np.bincount(idx.ravel(), minlength=H * S * A).reshape(H, S, A).astype(float)
    return MarkovPolicy(_normalise_counts(counts))
