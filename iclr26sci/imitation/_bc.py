r"""RS-BC (risk-sensitive behavioural cloning) and the BC baseline: counting estimators."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, check_array, check_in_range

from ._mdp import INDEX_DTYPE, Demonstrations, as_demonstrations, discretise_reward
from ._policies import MarkovPolicy, ReturnAugmentedPolicy

__all__ = ["rs_bc", "bc", "RSBC", "cumulative_indices"]


def _check_reward_table(reward, reward_range, name="reward"):
    r = check_array(reward, name, ndim=3)
    if not (isinstance(reward_range, (tuple, list)) and len(reward_range) == 2):
        raise InputError("reward_range", f"got {reward_range!r}", "a (low, high) pair")
    low, high = float(reward_range[0]), float(reward_range[1])
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
        Expert trajectories, states (N, H+1), actions (N, H).
    reward : array, shape (H, S, A)
        The (known) expert reward.
    theta : float
        Discretisation step, :math:`0 < \theta \le` high - low.
    reward_range : (float, float)
        Declared range of the rewards.

    Returns
    -------
    ReturnAugmentedPolicy

    References
    ----------
    F. Lazzati and A. M. Metelli. Imitation Learning as Return Distribution Matching. ICLR 2026, arXiv:2509.12026.
    """
    r, low, high = _check_reward_table(reward, reward_range)
    theta = check_in_range(theta, "theta", 0.0, high - low, low_open=True)
    H, S, A = r.shape
    d = as_demonstrations(demos, S, A, H)
    k = discretise_reward(r, theta, low)
    Y = int(sum(int(k[t].max()) for t in range(H - 1))) + 1
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
    n_states, n_actions : int, optional
        Needed when ``demos`` is a pair of arrays.

    Returns
    -------
    MarkovPolicy

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
        if not (isinstance(demos, (tuple, list)) and len(demos) == 2):
            raise InputError("demos", f"got {type(demos).__name__}", "a Demonstrations or (states, actions)")
        d = Demonstrations(demos[0], demos[1], n_states, n_actions)
    H, S, A = d.horizon, d.n_states, d.n_actions
    h = np.arange(H)[None, :]
    idx = (h * S + d.states[:, :H]) * A + d.actions
    counts = np.bincount(idx.ravel(), minlength=H * S * A).reshape(H, S, A).astype(float)
    return MarkovPolicy(_normalise_counts(counts))


class RSBC:
    """Estimator form of :func:`rs_bc`.

    Parameters
    ----------
    theta : float
    reward_range : (float, float)

    Attributes
    ----------
    policy_ : ReturnAugmentedPolicy
    counts_visited_ : int
        Number of visited (h, s, y) cells.
    """

    def __init__(self, theta: float = 0.05, reward_range=(0.0, 1.0)):
        self.theta = theta
        self.reward_range = reward_range

    def fit(self, demos, reward) -> "RSBC":
        self.policy_ = rs_bc(demos, reward, self.theta, reward_range=self.reward_range)
        self.counts_visited_ = self.policy_.info["visited"]
        return self
