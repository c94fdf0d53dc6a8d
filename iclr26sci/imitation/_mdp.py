"""Finite-horizon tabular MDPs and demonstration data sets.

States and actions are stored as ``int64`` everywhere: the official code
stored trajectories as ``int8``, which silently wraps state indices >= 128.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr26sci.core import (InputError, as_generator, check_array, check_in_range, check_memory,
                            check_positive_int)

__all__ = ["TabularMDP", "Demonstrations", "detect_reward_grid", "discretise_reward"]

INDEX_DTYPE = np.int64


def detect_reward_grid(reward: np.ndarray, low: float = 0.0, max_denominator: int = 1000,
                       atol: float = 1e-9) -> float | None:
    r"""The coarsest grid :math:`\{\text{low} + j/q\}` that holds every reward, or None.

    Searches :math:`q = 1, 2, \dots, \text{max\_denominator}` for the first with
    :math:`|q(r - \text{low}) - \mathrm{rint}(q(r - \text{low}))| \le \text{atol}\cdot\max(1, q)`
    for every entry, and returns the step :math:`1/q`. Exact evaluation of return laws
    works on this grid (returns become integer multiples of the step).

    Parameters
    ----------
    reward : array-like of float
        Per-step rewards :math:`r_h(s, a)` (any shape; finite).
    low : float, default 0.0
        The grid's origin (the lower end of the reward range).
    max_denominator : int, default 1000
        Largest :math:`q` tried: the finest step searched is ``1/max_denominator``.
    atol : float, default 1e-9
        Absolute tolerance (non-negative) for a scaled reward to count as an integer.

    Returns
    -------
    float or None
        The step :math:`1/q`, or None when no :math:`q \le` ``max_denominator`` fits
        (1.0 for an empty array).

    Examples
    --------
    >>> detect_reward_grid([0.0, 0.25, 0.75])
    0.25
    >>> detect_reward_grid([0.1, 0.3]) == 0.1
    True
    >>> detect_reward_grid([1 / 3, 2 ** -0.5]) is None
    True
    """
    x = check_array(reward, "reward").ravel()
    low = check_in_range(low, "low")
    max_denominator = check_positive_int(max_denominator, "max_denominator")
    atol = check_in_range(atol, "atol", 0.0, None)
    x = x - low
    if x.size == 0:
        return 1.0
    for q in range(1, max_denominator + 1):
        y = x * q
        if np.all(np.abs(y - np.rint(y)) <= atol * max(1.0, q)):
            return 1.0 / q
    return None


#: largest integer reward index allowed (cumulative sums over H steps must stay far from int64 overflow)
_MAX_INDEX = 2.0 ** 52


def discretise_reward(reward: np.ndarray, theta: float, low: float = 0.0) -> np.ndarray:
    r"""Integer reward increments :math:`k_h(s,a) = \mathrm{rint}((r_h(s,a) - \text{low})/\theta)`.

    The discretised reward is :math:`r^\theta = \text{low} + \theta k`; the
    cumulative index :math:`y_h = \sum_{t<h} k_t(s_t,a_t)` is a sum of rounded
    per-step rewards (round to nearest, as in the paper's code), not a rounding of the sum.

    Parameters
    ----------
    reward : array-like of float
        Per-step rewards :math:`r_h(s, a)`, each at least ``low`` (any shape).
    theta : float > 0
        The discretisation step :math:`\theta` of the return grid :math:`Y^\theta = \{0, \theta, 2\theta, \dots\}`.
        A smaller step is a finer, more faithful grid but a larger policy table.
    low : float, default 0.0
        The lower end of the reward range (the grid's origin).

    Returns
    -------
    ndarray of int64
        The increments :math:`k`, same shape as ``reward``.

    Raises
    ------
    InputError
        For a non-positive or non-finite ``theta``, rewards below ``low`` or not finite, or a
        ``theta`` so small that the indices would exceed :math:`2^{52}` (integer overflow).

    Examples
    --------
    >>> discretise_reward([0.0, 0.26, 0.5, 1.0], theta=0.25)
    array([0, 1, 2, 4])
    """
    theta = check_in_range(theta, "theta", 0.0, None, low_open=True)
    low = check_in_range(low, "low")
    r = check_array(reward, "reward")
    if r.size and np.any(r < low - 1e-12):
        raise InputError("reward", f"has entries below low = {low:g} (min {r.min():g})",
                         "rewards at least low (non-negative increments)")
    top = float(np.max(r - low, initial=0.0)) / theta
    if top > _MAX_INDEX:
        raise InputError("theta", f"= {theta:g} makes reward indices up to {top:.3g} (integer overflow)",
                         f"theta >= {float(np.max(r - low, initial=0.0)) / _MAX_INDEX:.3g}")
    k = np.rint((r - low) / theta)
    return np.maximum(k, 0).astype(INDEX_DTYPE)


@dataclass(frozen=True, repr=False)
class Demonstrations:
    r"""Expert trajectories :math:`\omega_i = (s_{i,1}, a_{i,1}, \dots, s_{i,H}, a_{i,H}, s_{i,H+1})`.

    The data set :math:`D_E` of the paper: ``N`` trajectories of horizon ``H``, stored as
    read-only ``int64`` arrays (the official code's ``int8`` storage wraps states >= 128).

    Parameters
    ----------
    states : array of int, shape (N, H+1)
        ``states[i, h]`` is the state of trajectory ``i`` at stage ``h`` (0-based), the last
        column the state reached after the final action.
    actions : array of int, shape (N, H)
        ``actions[i, h]`` is the action taken at stage ``h``.
    n_states, n_actions : int
        Sizes S and A of the state and action sets (indices must lie below them).

    Examples
    --------
    >>> import numpy as np
    >>> d = Demonstrations(np.array([[0, 1, 1], [0, 0, 1]]), np.array([[1, 0], [0, 1]]), 2, 2)
    >>> d
    Demonstrations(N=2, H=2, S=2, A=2)
    >>> d.returns(np.ones((2, 2, 2)))
    array([2., 2.])
    """

    states: np.ndarray
    actions: np.ndarray
    n_states: int
    n_actions: int

    def __post_init__(self):
        S = check_positive_int(self.n_states, "n_states")
        A = check_positive_int(self.n_actions, "n_actions")
        st = check_array(self.states, "states", ndim=2, dtype=int)
        ac = check_array(self.actions, "actions", ndim=2, dtype=int)
        if st.shape[0] == 0:
            raise InputError("states", "holds no trajectories (empty demonstration set)",
                             "at least one trajectory")
        if ac.shape[0] != st.shape[0] or st.shape[1] != ac.shape[1] + 1:
            raise InputError("actions", f"has shape {ac.shape} while states has shape {st.shape}",
                             "states of shape (N, H+1) and actions of shape (N, H)")
        if ac.shape[1] == 0:
            raise InputError("actions", "has horizon 0", "trajectories with at least one step")
        if st.min() < 0 or st.max() >= S:
            raise InputError("states", f"has indices in [{st.min()}, {st.max()}]", f"indices in [0, {S - 1}]")
        if ac.min() < 0 or ac.max() >= A:
            raise InputError("actions", f"has indices in [{ac.min()}, {ac.max()}]", f"indices in [0, {A - 1}]")
        object.__setattr__(self, "states", np.ascontiguousarray(st, dtype=INDEX_DTYPE))
        object.__setattr__(self, "actions", np.ascontiguousarray(ac, dtype=INDEX_DTYPE))
        object.__setattr__(self, "n_states", S)
        object.__setattr__(self, "n_actions", A)
        self.states.flags.writeable = False
        self.actions.flags.writeable = False

    @property
    def n(self) -> int:
        """Number of trajectories N."""
        return int(self.states.shape[0])

    @property
    def horizon(self) -> int:
        """Horizon H (number of actions per trajectory)."""
        return int(self.actions.shape[1])

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        return f"Demonstrations(N={self.n}, H={self.horizon}, S={self.n_states}, A={self.n_actions})"

    def summary(self) -> str:
        """A few lines: sizes and the number of distinct trajectories."""
        distinct = int(np.unique(np.concatenate([self.states, self.actions], axis=1), axis=0).shape[0])
        return (f"Demonstrations: N = {self.n} trajectories, horizon H = {self.horizon}\n"
                f"  states S = {self.n_states}, actions A = {self.n_actions}, "
                f"{distinct} distinct trajectories, {int(np.unique(self.states).size)} states visited")

    def to_dict(self) -> dict:
        """Plain-Python form (lists of ints), enough to rebuild with ``Demonstrations(**d)``."""
        return {"states": self.states.tolist(), "actions": self.actions.tolist(),
                "n_states": self.n_states, "n_actions": self.n_actions}

    def subset(self, idx) -> "Demonstrations":
        """The trajectories ``idx``: an index array (within ``[-N, N)``), a slice or a boolean mask
        of length N; the selection must not be empty."""
        if isinstance(idx, slice):
            sel = np.arange(self.n)[idx]
        else:
            arr = np.asarray(idx)
            if arr.dtype == bool:
                if arr.shape != (self.n,):
                    raise InputError("idx", f"is a boolean mask of shape {arr.shape}", f"shape ({self.n},)")
                sel = np.flatnonzero(arr)
            else:
                if arr.size == 0:
                    sel = np.zeros(0, dtype=INDEX_DTYPE)
                else:
                    arr = check_array(arr, "idx", ndim=(0, 1), dtype=int).ravel()
                    if arr.min() < -self.n or arr.max() >= self.n:
                        raise InputError("idx", f"has indices in [{arr.min()}, {arr.max()}]",
                                         f"indices in [{-self.n}, {self.n - 1}] (N = {self.n} trajectories)")
                    sel = arr
        if sel.size == 0:
            raise InputError("idx", "selects no trajectory", "a non-empty selection")
        return Demonstrations(self.states[sel], self.actions[sel], self.n_states, self.n_actions)

    def _check_reward(self, reward, name: str = "reward") -> np.ndarray:
        H, S, A = self.horizon, self.n_states, self.n_actions
        r = check_array(reward, name, ndim=(2, 3))
        if r.ndim == 2:
            if r.shape != (S, A):
                raise InputError(name, f"has shape {r.shape}", f"({H}, {S}, {A}) or stationary ({S}, {A})")
            r = np.broadcast_to(r, (H, S, A))
        if r.shape != (H, S, A):
            raise InputError(name, f"has shape {r.shape}", f"({H}, {S}, {A}) or stationary ({S}, {A})")
        return r

    def returns(self, reward) -> np.ndarray:
        """Returns :math:`G(\\omega_i; r) = \\sum_h r_h(s_{i,h}, a_{i,h})`, shape (N,).

        ``reward`` has shape (H, S, A), or (S, A) for a reward used at every stage; finite.
        """
        r = self._check_reward(reward)
        h = np.arange(self.horizon)
        return r[h[None, :], self.states[:, :-1], self.actions].sum(axis=1)


def as_demonstrations(demos: Any, n_states: int, n_actions: int, horizon: int,
                      name: str = "demos") -> Demonstrations:
    """Accept a :class:`Demonstrations` or a ``(states, actions)`` pair and check it against sizes."""
    if isinstance(demos, Demonstrations):
        d = demos
    elif isinstance(demos, (tuple, list)) and len(demos) == 2:
        d = Demonstrations(demos[0], demos[1], n_states, n_actions)
    else:
        raise InputError(name, f"got an object of type {type(demos).__name__}",
                         "a Demonstrations or a (states, actions) pair of integer arrays")
    if d.horizon != horizon:
        raise InputError(name, f"has trajectories of length {d.horizon}", f"length H = {horizon}")
    if d.states.max() >= n_states:
        raise InputError(name, f"has state index {d.states.max()}", f"states in [0, {n_states - 1}]")
    if d.actions.max() >= n_actions:
        raise InputError(name, f"has action index {d.actions.max()}", f"actions in [0, {n_actions - 1}]")
    return d


class TabularMDP:
    r"""A finite-horizon tabular MDP :math:`(S, A, H, p_h, r_h, \mu_0)`.

    Parameters
    ----------
    P : array, shape (H, S, A, S) or (S, A, S)
        Transition probabilities :math:`p_h(s' | s, a)`; a 3-D array is used at every stage.
    r : array, shape (H, S, A) or (S, A)
        Rewards :math:`r_h(s, a)` within ``reward_range``.
    s0 : int or array of shape (S,)
        Initial state, or an initial distribution :math:`\mu_0`.
    horizon : int, optional
        Needed when ``P`` and ``r`` are both stationary.
    reward_range : (float, float)
        Declared range of per-step rewards, default ``(0, 1)``.
    reward_grid : float, optional
        A step :math:`\rho` with all :math:`(r - \text{low})/\rho` integers; detected when omitted
        (rational steps ``1/q`` with ``q <= 1000``). Exact evaluation works on this grid.

    Notes
    -----
    The return of a trajectory is :math:`G(\omega; r) = \sum_{h=1}^H r_h(s_h, a_h)`.

    References
    ----------
    F. Lazzati and A. M. Metelli. Imitation Learning as Return Distribution Matching. ICLR 2026, arXiv:2509.12026.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.full((2, 2, 2), 0.5)                  # (S, A, S'): every action moves at random
    >>> r = np.array([[0.0, 1.0], [0.5, 0.5]])       # (S, A)
    >>> mdp = TabularMDP(P, r, s0=0, horizon=3)
    >>> mdp
    TabularMDP(S=2, A=2, H=3, reward_range=(0.0, 1.0), reward_grid=0.5)
    >>> mdp.increments(0.5)[0]
    array([[0, 2],
           [1, 1]])
    """

    def __init__(self, P, r, s0=0, horizon: int | None = None, reward_range=(0.0, 1.0),
                 reward_grid: float | None = None):
        P = check_array(P, "P", ndim=(3, 4))
        r = check_array(r, "r", ndim=(2, 3))
        if horizon is not None:
            horizon = check_positive_int(horizon, "horizon")
        H = horizon
        if P.ndim == 4:
            H = P.shape[0] if H is None else H
        if r.ndim == 3:
            if H is not None and r.shape[0] != H:
                raise InputError("r", f"has {r.shape[0]} stages", f"{H} stages (the horizon)")
            H = r.shape[0]
        if H is None:
            raise InputError("horizon", "is missing while P and r are stationary", "a positive integer")
        if P.ndim == 4 and P.shape[0] != H:
            raise InputError("P", f"has {P.shape[0]} stages", f"{H} stages (the horizon)")
        S, A = P.shape[-3], P.shape[-2]
        if S == 0 or A == 0:
            raise InputError("P", f"has shape {P.shape} (S = {S} states, A = {A} actions)",
                             "at least one state and one action")
        if P.shape[-1] != S:
            raise InputError("P", f"has shape {P.shape}", "(H, S, A, S) or (S, A, S)")
        if r.shape[-2:] != (S, A):
            raise InputError("r", f"has shape {r.shape}", f"(H, {S}, {A}) or ({S}, {A})")
        if np.any(P < -1e-12):
            raise InputError("P", f"has negative entries (min {P.min():g})", "probabilities in [0, 1]")
        dev = np.abs(P.sum(axis=-1) - 1.0)
        if np.any(dev > 1e-8):
            raise InputError("P", f"has transition rows not summing to 1 (largest deviation {dev.max():.3g})",
                             "each p_h(. | s, a) summing to 1")
        if not (isinstance(reward_range, (tuple, list)) and len(reward_range) == 2):
            raise InputError("reward_range", f"got {reward_range!r}", "a (low, high) pair")
        low = check_in_range(reward_range[0], "reward_range")
        high = check_in_range(reward_range[1], "reward_range")
        if not high > low:
            raise InputError("reward_range", f"got ({low:g}, {high:g})", "low < high")
        if np.any(r < low - 1e-12) or np.any(r > high + 1e-12):
            raise InputError("r", f"has rewards in [{r.min():g}, {r.max():g}]",
                             f"rewards within reward_range [{low:g}, {high:g}]")
        P = np.clip(P, 0.0, None)
        P = P / P.sum(axis=-1, keepdims=True)
        self.P = np.ascontiguousarray(np.broadcast_to(P, (H, S, A, S)), dtype=float)
        self.r = np.ascontiguousarray(np.broadcast_to(r, (H, S, A)), dtype=float)
        self.P.flags.writeable = False
        self.r.flags.writeable = False
        self.n_states, self.n_actions, self.horizon = int(S), int(A), int(H)
        self.reward_range = (low, high)
        if isinstance(s0, (int, np.integer)) and not isinstance(s0, bool):
            if not 0 <= int(s0) < S:
                raise InputError("s0", f"got state {int(s0)}", f"a state in [0, {S - 1}] or a distribution")
            mu = np.zeros(S)
            mu[int(s0)] = 1.0
        else:
            mu = check_array(s0, "s0", shape=(S,))
            if np.any(mu < -1e-12) or abs(mu.sum() - 1) > 1e-8:
                raise InputError("s0", "is not a probability vector", f"an int state or {S} probabilities summing to 1")
            mu = np.clip(mu, 0, None) / np.clip(mu, 0, None).sum()
        self.mu0 = mu
        self.mu0.flags.writeable = False
        if reward_grid is None:
            reward_grid = detect_reward_grid(self.r, low)
        else:
            reward_grid = check_in_range(reward_grid, "reward_grid", 0, None, low_open=True)
            k = (self.r - low) / reward_grid
            if np.any(np.abs(k - np.rint(k)) > 1e-8):
                raise InputError("reward_grid", f"{reward_grid:g} does not divide every reward",
                                 "a step with (r - low)/step integral, or None to detect it")
        self.reward_grid = reward_grid

    # ------------------------------------------------------------------ basics
    @property
    def reward(self) -> np.ndarray:
        """The reward table :math:`r_h(s,a)`, shape (H, S, A)."""
        return self.r

    @property
    def shape(self) -> tuple[int, int, int]:
        """(S, A, H)."""
        return self.n_states, self.n_actions, self.horizon

    def __repr__(self) -> str:
        return (f"TabularMDP(S={self.n_states}, A={self.n_actions}, H={self.horizon}, "
                f"reward_range={self.reward_range}, reward_grid={self.reward_grid})")

    def summary(self) -> str:
        """A few lines: sizes, reward range and grid, stochasticity of the transitions."""
        det = float(np.mean(self.P.max(axis=-1) > 1 - 1e-12))
        return (f"TabularMDP: S = {self.n_states} states, A = {self.n_actions} actions, horizon H = {self.horizon}\n"
                f"  rewards in {self.reward_range}, grid step {self.reward_grid}, returns in "
                f"[{self.horizon * self.reward_range[0]:g}, {self.horizon * self.reward_range[1]:g}]\n"
                f"  {det:.0%} of the transition rows p_h(.|s,a) are deterministic; "
                f"{int(np.count_nonzero(self.mu0))} initial state(s)")

    def to_dict(self) -> dict:
        """Plain-Python form (nested lists), enough to rebuild the MDP."""
        return {"P": self.P.tolist(), "r": self.r.tolist(), "s0": self.mu0.tolist(), "horizon": self.horizon,
                "reward_range": list(self.reward_range), "reward_grid": self.reward_grid}

    def check_theta(self, theta, name: str = "theta") -> float:
        """Validate a discretisation step :math:`0 < \\theta \\le` high - low."""
        low, high = self.reward_range
        return check_in_range(theta, name, 0.0, high - low, low_open=True)

    def increments(self, theta: float, reward: np.ndarray | None = None) -> np.ndarray:
        """Integer increments :math:`k_h(s,a)` of ``reward`` (default the MDP's) on the grid ``theta``."""
        theta = self.check_theta(theta)
        rew = self.r if reward is None else self._check_reward(reward)
        return discretise_reward(rew, theta, self.reward_range[0])

    def _check_reward(self, reward, name: str = "reward") -> np.ndarray:
        H, S, A = self.horizon, self.n_states, self.n_actions
        rew = check_array(reward, name, ndim=(2, 3))
        if rew.ndim == 2:
            rew = np.broadcast_to(rew, (H,) + rew.shape)
        if rew.shape != (H, S, A):
            raise InputError(name, f"has shape {rew.shape}", f"({H}, {S}, {A}) or ({S}, {A})")
        low, high = self.reward_range
        if np.any(rew < low - 1e-12) or np.any(rew > high + 1e-12):
            raise InputError(name, f"has rewards in [{rew.min():g}, {rew.max():g}]",
                             f"rewards within [{low:g}, {high:g}]")
        return rew

    # ------------------------------------------------------------ generators
    @classmethod
    def random(cls, n_states: int, n_actions: int, horizon: int, reward_grid: float = 0.05,
               sparsity: float = 0.7, rng=None) -> "TabularMDP":
        r"""A random instance as in the paper's generator.

        :math:`s_0 \sim \mathrm{Unif}(S)`; :math:`r_h(s,a) \sim \mathrm{Unif}\{0, \rho, 2\rho, \dots\} \cap [0, 1)`;
        :math:`p_h(\cdot|s,a) \sim \mathrm{Dirichlet}(1_S)`, each row replaced independently with
        probability ``sparsity`` by a point mass on a uniform next state.

        Parameters
        ----------
        n_states, n_actions, horizon : int
            S, A and H.
        reward_grid : float in (0, 1], default 0.05
            The reward step :math:`\rho`: rewards are multiples of it below 1.
        sparsity : float in [0, 1], default 0.7
            Probability that a transition row is deterministic (0.7 in the paper's code). With a
            high sparsity and a risk-averse expert, the expert can often follow a deterministic
            chain, so its return law is a single atom and every imitation method matches it
            trivially (at 0.7: 15 of 20 random (20, 3, 5) instances under a CVaR(0.2) expert, 0 of 20 at 0);
            use ``sparsity=0`` (all rows Dirichlet) for problems where return risk matters.
        rng : seed or numpy Generator, optional
            Randomness of the instance.

        Examples
        --------
        >>> mdp = TabularMDP.random(3, 2, 4, reward_grid=0.1, sparsity=0.0, rng=0)
        >>> mdp.shape, mdp.reward_grid
        ((3, 2, 4), 0.1)
        """
        S = check_positive_int(n_states, "n_states")
        A = check_positive_int(n_actions, "n_actions")
        H = check_positive_int(horizon, "horizon")
        rho = check_in_range(reward_grid, "reward_grid", 0.0, 1.0, low_open=True)
        sparsity = check_in_range(sparsity, "sparsity", 0.0, 1.0)
        g = as_generator(rng)
        s0 = int(g.integers(S))
        n_levels = int(np.ceil(1.0 / rho - 1e-9))
        r = g.integers(0, n_levels, size=(H, S, A)) * rho
        r = np.minimum(r, 1.0)
        P = g.dirichlet(np.ones(S), size=(H, S, A))
        sparse = g.random((H, S, A)) < sparsity
        nxt = g.integers(0, S, size=(H, S, A))
        P[sparse] = 0.0
        P[sparse, nxt[sparse]] = 1.0
        q = 1.0 / rho
        grid = rho if abs(q - round(q)) > 1e-9 else 1.0 / round(q)
        return cls(P, r, s0, reward_grid=grid)

    @classmethod
    def from_gymnasium(cls, env_id: str, horizon: int, reward_range=None, **make_kwargs) -> "TabularMDP":
        """A finite-horizon MDP from a gymnasium toy-text environment's explicit table ``env.unwrapped.P``.

        Terminal transitions become absorbing states with zero reward. Rewards are
        affinely rescaled to [0, 1] unless ``reward_range`` is given (then they must fit it).
        Needs the optional dependency ``gymnasium``.
        """
        H = check_positive_int(horizon, "horizon")
        try:
            import gymnasium
        except ImportError:
            raise ImportError("TabularMDP.from_gymnasium needs the optional package gymnasium "
                              "(pip install gymnasium); it is not a dependency of iclr26sci") from None
        try:
            env = gymnasium.make(env_id, **make_kwargs)
        except Exception as exc:
            raise InputError("env_id", f"gymnasium could not make {env_id!r} ({exc})",
                             "a toy-text environment id such as 'FrozenLake-v1'") from None
        u = env.unwrapped
        table = getattr(u, "P", None)
        if not isinstance(table, dict):
            raise InputError("env_id", f"{env_id!r} has no explicit transition table env.unwrapped.P",
                             "a toy-text environment (FrozenLake, CliffWalking, Taxi)")
        S = int(env.observation_space.n)
        A = int(env.action_space.n)
        P = np.zeros((S, A, S))
        R = np.zeros((S, A))
        for s in range(S):
            for a in range(A):
                for prob, s2, rew, done in table[s][a]:
                    P[s, a, s2] += prob
                    R[s, a] += prob * rew
        terminal = np.zeros(S, dtype=bool)
        for s in range(S):
            for a in range(A):
                for prob, s2, rew, done in table[s][a]:
                    if done and prob > 0:
                        terminal[s2] = True
        # a terminal state absorbs with zero reward (it is never left in the episodic task)
        P[terminal] = 0.0
        P[terminal, :, np.flatnonzero(terminal)] = 0.0
        for s in np.flatnonzero(terminal):
            P[s, :, s] = 1.0
            R[s, :] = 0.0
        lo, hi = float(R.min()), float(R.max())
        if reward_range is None:
            R = (R - lo) / (hi - lo) if hi > lo else np.zeros_like(R)
            reward_range = (0.0, 1.0)
        s0 = getattr(u, "initial_state_distrib", None)
        if s0 is None or np.size(s0) != S:
            s0 = np.zeros(S)
            s0[int(env.reset(seed=0)[0])] = 1.0
        env.close()
        return cls(P, R, np.asarray(s0, dtype=float), horizon=H, reward_range=reward_range)

    # -------------------------------------------------------------- sampling
    def rollout(self, policy, n: int, rng=None) -> Demonstrations:
        """Sample ``n`` trajectories of ``policy`` (vectorised over trajectories), stored as int64.

        Parameters
        ----------
        policy : Policy
            The policy to execute (its (S, A, H) must match the MDP's).
        n : int
            Number of trajectories N.
        rng : seed or numpy Generator, optional
            Randomness of the initial states, actions and transitions.

        Examples
        --------
        >>> from iclr26sci.imitation import random_markov_expert
        >>> mdp = TabularMDP.random(3, 2, 4, rng=0)
        >>> mdp.rollout(random_markov_expert(mdp, rng=1), n=5, rng=2)
        Demonstrations(N=5, H=4, S=3, A=2)
        """
        from ._policies import Policy

        n = check_positive_int(n, "n")
        if not isinstance(policy, Policy):
            raise InputError("policy", f"got {type(policy).__name__}", "an iclr26sci.imitation Policy")
        policy._check_compatible(self)
        H, S, A = self.horizon, self.n_states, self.n_actions
        # trajectories (int64) plus the per-stage probability rows and cumulative sums
        check_memory(8.0 * n * (2 * H + 1) + 8.0 * 3 * n * max(S, A), "n", f"{n:,} rollouts of horizon {H}")
        g = as_generator(rng)
        states = np.empty((n, H + 1), dtype=INDEX_DTYPE)
        actions = np.empty((n, H), dtype=INDEX_DTYPE)
        states[:, 0] = _sample_rows(np.broadcast_to(self.mu0, (n, S)), g)
        for h in range(H):
            pr = policy._probs(h, states[:, : h + 1], actions[:, :h])
            actions[:, h] = _sample_rows(pr, g)
            states[:, h + 1] = _sample_rows(self.P[h, states[:, h], actions[:, h]], g)
        return Demonstrations(states, actions, S, A)

    # ------------------------------------------------------- expert builders
    def risk_sensitive_expert(self, cvar_alpha: float = 0.2, theta: float | None = None):
        """CVaR-optimal expert by dynamic programming on (state, cumulative reward); see
        :func:`iclr26sci.imitation.risk_sensitive_expert`."""
        from ._expert import risk_sensitive_expert

        return risk_sensitive_expert(self, cvar_alpha=cvar_alpha, theta=theta)


def _sample_rows(probs: np.ndarray, g: np.random.Generator) -> np.ndarray:
    """One categorical draw per row of ``probs`` (inverse CDF, vectorised)."""
    c = np.cumsum(probs, axis=1)
    u = g.random(probs.shape[0]) * c[:, -1]
    idx = (c <= u[:, None]).sum(axis=1)
    return np.minimum(idx, probs.shape[1] - 1).astype(INDEX_DTYPE)
