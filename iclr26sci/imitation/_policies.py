r"""Policies for finite-horizon tabular MDPs.

* :class:`MarkovPolicy`: :math:`\pi_h(a|s)`.
* :class:`ReturnAugmentedPolicy`: the class :math:`\Pi(r^\theta)` of the paper,
  :math:`\pi_h(a | s, y)` with :math:`y = \sum_{t<h} k_t(s_t,a_t)` the discretised cumulative
  past reward (:math:`k = \mathrm{rint}(r/\theta)`).
* :class:`HistoryPolicy`: any history-dependent policy; :class:`ProjectedHistoryPolicy` is the
  paper's random non-Markovian expert and :class:`TabularHistoryPolicy` an explicit table over
  histories (the unknown-reward oracle's output).

Stages are 0-based in code (``h = 0 .. H-1``). ``action_probs(h, states, actions)`` takes the
prefixes ``states[:, :h+1]`` and ``actions[:, :h]`` of ``n`` histories and returns ``(n, A)``
probabilities.
"""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, as_generator, check_array, check_bool, check_in_range, check_positive_int

from ._mdp import INDEX_DTYPE

__all__ = ["Policy", "MarkovPolicy", "ReturnAugmentedPolicy", "HistoryPolicy",
           "ProjectedHistoryPolicy", "TabularHistoryPolicy"]


class Policy:
    """Base class: a (possibly history-dependent) policy with ``S`` states, ``A`` actions and horizon ``H``.

    Subclasses implement ``_action_probs(h, states, actions)`` (unchecked); the public
    :meth:`action_probs` validates its arguments first.

    Examples
    --------
    >>> import numpy as np
    >>> pi = MarkovPolicy(np.full((2, 3, 2), 0.5))        # every policy class is a Policy
    >>> isinstance(pi, Policy), pi.to_dict()["horizon"]
    (True, 2)
    """

    n_states: int
    n_actions: int
    horizon: int

    def action_probs(self, h: int, states, actions) -> np.ndarray:
        """Action probabilities :math:`\\pi_h(\\cdot | \\omega_h)` of ``n`` history prefixes.

        Parameters
        ----------
        h : int
            The stage, 0-based, in ``[0, H)``.
        states : array of int, shape (n, >= h+1)
            States of the prefixes; columns ``0..h`` are used.
        actions : array of int, shape (n, >= h)
            Actions of the prefixes; columns ``0..h-1`` are used.

        Returns
        -------
        ndarray, shape (n, A)
        """
        h, st, ac = self._check_prefix(h, states, actions)
        return self._probs(h, st, ac)

    def _action_probs(self, h: int, states: np.ndarray, actions: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _probs(self, h, states, actions):
        """Unchecked probabilities (internal fast path); honours subclasses that override action_probs."""
        if type(self).action_probs is not Policy.action_probs:
            return self.action_probs(h, states, actions)
        return self._action_probs(h, states, actions)

    def _check_prefix(self, h, states, actions):
        H, S, A = self.horizon, self.n_states, self.n_actions
        h = check_positive_int(h, "h", minimum=0)
        if h >= H:
            raise InputError("h", f"got stage {h}", f"a stage in [0, {H - 1}] (0-based, horizon {H})")
        st = check_array(states, "states", ndim=2, dtype=int)
        ac = check_array(actions, "actions", ndim=2, dtype=int)
        if st.shape[1] < h + 1:
            raise InputError("h", f"is stage {h} but `states` has {st.shape[1]} column(s)",
                             f"a stage the prefix reaches (h <= {st.shape[1] - 1}), or at least h + 1 = {h + 1} "
                             "state columns")
        if ac.shape[1] < h:
            raise InputError("h", f"is stage {h} but `actions` has {ac.shape[1]} column(s)",
                             f"a stage the prefix reaches (h <= {ac.shape[1]}), or at least h = {h} action columns")
        if ac.shape[0] != st.shape[0]:
            raise InputError("actions", f"has {ac.shape[0]} rows while states has {st.shape[0]}", "one row per history")
        if st.size and (st[:, :h + 1].min() < 0 or st[:, :h + 1].max() >= S):
            raise InputError("states", f"has indices in [{st[:, :h + 1].min()}, {st[:, :h + 1].max()}]",
                             f"states in [0, {S - 1}]")
        if h and ac.size and (ac[:, :h].min() < 0 or ac[:, :h].max() >= A):
            raise InputError("actions", f"has indices in [{ac[:, :h].min()}, {ac[:, :h].max()}]",
                             f"actions in [0, {A - 1}]")
        return h, st.astype(INDEX_DTYPE, copy=False), ac.astype(INDEX_DTYPE, copy=False)

    def _check_compatible(self, mdp) -> None:
        if (self.n_states, self.n_actions, self.horizon) != (mdp.n_states, mdp.n_actions, mdp.horizon):
            raise InputError("policy", f"has (S, A, H) = {(self.n_states, self.n_actions, self.horizon)}",
                             f"the MDP's {(mdp.n_states, mdp.n_actions, mdp.horizon)}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(S={self.n_states}, A={self.n_actions}, H={self.horizon})"

    def summary(self) -> str:
        """A few lines: the class, sizes and whatever the learner recorded in ``info``."""
        lines = [f"{type(self).__name__}: S = {self.n_states}, A = {self.n_actions}, H = {self.horizon}"]
        info = getattr(self, "info", None) or {}
        for k, v in info.items():
            if isinstance(v, (int, float, str, bool, np.integer, np.floating)):
                lines.append(f"  {k}: {v:.6g}" if isinstance(v, (float, np.floating)) else f"  {k}: {v}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain-Python form: class, sizes and the scalar entries of ``info``."""
        info = getattr(self, "info", None) or {}
        scal = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in info.items()
                if isinstance(v, (int, float, str, bool, np.integer, np.floating))}
        return {"class": type(self).__name__, "n_states": self.n_states, "n_actions": self.n_actions,
                "horizon": self.horizon, "info": scal}


def _normalise_rows(probs: np.ndarray, name: str) -> np.ndarray:
    if np.any(probs < -1e-12):
        raise InputError(name, f"has negative entries (min {probs.min():g})", "probabilities")
    s = probs.sum(axis=-1, keepdims=True)
    if np.any(np.abs(s - 1.0) > 1e-8):
        raise InputError(name, "has rows not summing to 1", "probability rows over actions")
    p = np.clip(probs, 0, None)
    return p / p.sum(axis=-1, keepdims=True)


class ReturnAugmentedPolicy(Policy):
    r"""A policy in :math:`\Pi(r^\theta)`: :math:`\pi_h(a | s, y)`.

    Parameters
    ----------
    probs : array, shape (H, S, Y, A)
        Action probabilities :math:`\pi_h(a | s, y)` for every stage, state and cumulative
        reward index ``y``; each row over actions sums to 1.
    increments : array of int, shape (H, S, A)
        The per-step reward indices :math:`k_h(s,a) = \mathrm{rint}(r_h(s,a)/\theta)` (non-negative);
        the policy's ``y`` at stage ``h`` is :math:`\sum_{t<h} k_t(s_t, a_t)` (clipped to ``Y - 1``).
    theta : float > 0, optional
        The grid step the increments were made with (for display).

    Notes
    -----
    The return-augmented class is enough to match any expert's return law on :math:`r^\theta`
    (Lazzati and Metelli, 2026, Lemma on the averaged policy).

    Examples
    --------
    >>> import numpy as np
    >>> probs = np.full((2, 1, 3, 2), 0.5)          # H=2, S=1, Y=3, A=2: uniform
    >>> probs[1, 0, 1] = [0.0, 1.0]                 # at stage 2, after one reward unit, play action 1
    >>> k = np.array([[[0, 1]], [[0, 1]]])          # action 1 earns one unit
    >>> pi = ReturnAugmentedPolicy(probs, k, theta=0.5)
    >>> pi
    ReturnAugmentedPolicy(S=1, A=2, H=2, Y=3, theta=0.5)
    >>> pi.action_probs(1, np.array([[0, 0]]), np.array([[1]]))
    array([[0., 1.]])
    """

    def __init__(self, probs, increments, theta: float | None = None):
        probs = check_array(probs, "probs", ndim=4)
        H, S, Y, A = probs.shape
        if min(H, S, Y, A) == 0:
            raise InputError("probs", f"has shape {probs.shape}", "(H, S, Y, A) with every size at least 1")
        k = check_array(increments, "increments", shape=(H, S, A), dtype=int)
        if k.size and k.min() < 0:
            raise InputError("increments", "has negative entries", "non-negative reward indices")
        if theta is not None:
            theta = check_in_range(theta, "theta", 0.0, None, low_open=True)
        self.probs = _normalise_rows(probs, "probs")
        self.probs.flags.writeable = False
        self.increments = k.astype(INDEX_DTYPE)
        self.increments.flags.writeable = False
        self.theta = theta
        self.horizon, self.n_states, self.n_y, self.n_actions = int(H), int(S), int(Y), int(A)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(S={self.n_states}, A={self.n_actions}, H={self.horizon}, "
                f"Y={self.n_y}, theta={self.theta})")

    def to_dict(self) -> dict:
        out = super().to_dict()
        out.update(n_y=self.n_y, theta=self.theta,
                   deterministic=bool(np.all(self.probs.max(axis=-1) > 1 - 1e-12)))
        return out

    def y_index(self, h: int, states, actions) -> np.ndarray:
        """Cumulative reward index :math:`y_h = \\sum_{t<h} k_t(s_t, a_t)` of the prefixes (clipped to ``Y - 1``).

        ``h`` in ``[0, H)``; ``states`` (n, >= h+1) and ``actions`` (n, >= h) as in :meth:`action_probs`.
        """
        h, st, ac = self._check_prefix(h, states, actions)
        return self._y_index(h, st, ac)

    def _y_index(self, h, states, actions):
        if h == 0:
            return np.zeros(states.shape[0], dtype=INDEX_DTYPE)
        t = np.arange(h)
        y = self.increments[t[None, :], states[:, :h], actions[:, :h]].sum(axis=1)
        return np.minimum(y, self.n_y - 1)

    def _action_probs(self, h, states, actions):
        y = self._y_index(h, states, actions)
        return self.probs[h, states[:, h], y]

    def table_probs(self, h: int, s, y) -> np.ndarray:
        """:math:`\\pi_h(\\cdot | s, y)` for arrays of states ``s`` in ``[0, S)`` and indices ``y >= 0``
        (clipped to ``Y - 1``), shape (n, A)."""
        H = self.horizon
        h = check_positive_int(h, "h", minimum=0)
        if h >= H:
            raise InputError("h", f"got stage {h}", f"a stage in [0, {H - 1}]")
        s = check_array(s, "s", ndim=1, dtype=int)
        y = check_array(y, "y", shape=s.shape, dtype=int)
        if s.size and (s.min() < 0 or s.max() >= self.n_states):
            raise InputError("s", f"has states in [{s.min()}, {s.max()}]", f"states in [0, {self.n_states - 1}]")
        if y.size and y.min() < 0:
            raise InputError("y", f"has negative indices (min {y.min()})", "cumulative reward indices >= 0")
        return self._table_probs(h, s, y)

    def _table_probs(self, h, s, y):
        return self.probs[h, s, np.minimum(y, self.n_y - 1)]


class MarkovPolicy(ReturnAugmentedPolicy):
    r"""A Markovian policy :math:`\pi_h(a|s)`.

    Parameters
    ----------
    probs : array, shape (H, S, A) or (S, A)
        Action probabilities per stage and state; a 2-D array is used at every stage (then
        give ``horizon``).
    horizon : int, optional
        H, needed with a stationary (S, A) table.

    Examples
    --------
    >>> import numpy as np
    >>> pi = MarkovPolicy(np.array([[0.2, 0.8], [1.0, 0.0]]), horizon=3)
    >>> pi
    MarkovPolicy(S=2, A=2, H=3)
    >>> pi.markov_probs[2, 0]
    array([0.2, 0.8])
    """

    def __init__(self, probs, horizon: int | None = None):
        probs = check_array(probs, "probs", ndim=(2, 3))
        if probs.ndim == 2:
            H = check_positive_int(horizon, "horizon")
            probs = np.broadcast_to(probs, (H,) + probs.shape)
        elif horizon is not None and check_positive_int(horizon, "horizon") != probs.shape[0]:
            raise InputError("horizon", f"got {horizon} while probs has {probs.shape[0]} stages",
                             "the number of stages of probs (or None)")
        H, S, A = probs.shape
        super().__init__(probs[:, :, None, :], np.zeros((H, S, A), dtype=INDEX_DTYPE), None)

    @property
    def markov_probs(self) -> np.ndarray:
        """:math:`\\pi_h(a|s)`, shape (H, S, A)."""
        return self.probs[:, :, 0, :]

    def __repr__(self) -> str:
        return f"MarkovPolicy(S={self.n_states}, A={self.n_actions}, H={self.horizon})"


class HistoryPolicy(Policy):
    """A general history-dependent policy (subclass it and implement ``_action_probs``, or ``action_probs``).

    Exact evaluation enumerates histories, so it is meant for small ``(S*A)**H``.

    Examples
    --------
    >>> import numpy as np
    >>> class Alternate(HistoryPolicy):          # play the action not played at the previous step
    ...     n_states, n_actions, horizon = 2, 2, 3
    ...     def _action_probs(self, h, states, actions):
    ...         last = actions[:, h - 1] if h else np.zeros(len(states), int)
    ...         return np.eye(2)[1 - last]
    >>> Alternate().action_probs(1, np.array([[0, 1]]), np.array([[1]]))
    array([[1., 0.]])
    """


class ProjectedHistoryPolicy(HistoryPolicy):
    r"""The paper's random non-Markovian expert.

    The history prefix :math:`(s_1, a_1, \dots, s_{h-1}, a_{h-1})`, as raw integer indices and
    zero-padded to length :math:`2H`, is projected by :math:`P \sim N(0,1)^{2H\times m}` to
    :math:`\phi`, and :math:`\pi_h(\cdot|\omega_h) = \mathrm{softmax}(\phi^\top W[s_h])` with
    :math:`W \sim N(0,1)^{S\times m\times A}` (``argmax`` when ``deterministic``).

    Parameters
    ----------
    n_states, n_actions, horizon : int
        S, A and H.
    n_features : int, default 16
        Dimension m of the random projection of the history.
    deterministic : bool, default False
        Play the arg-max action instead of sampling from the softmax.
    rng : seed or numpy Generator, optional
        Draws P and W.

    Examples
    --------
    >>> import numpy as np
    >>> pi = ProjectedHistoryPolicy(3, 2, 4, rng=0)
    >>> pi.action_probs(0, np.array([[1]]), np.zeros((1, 0), int))   # at h = 0 the features vanish
    array([[0.5, 0.5]])
    """

    def __init__(self, n_states: int, n_actions: int, horizon: int, n_features: int = 16,
                 deterministic: bool = False, rng=None):
        self.n_states = check_positive_int(n_states, "n_states")
        self.n_actions = check_positive_int(n_actions, "n_actions")
        self.horizon = check_positive_int(horizon, "horizon")
        m = check_positive_int(n_features, "n_features")
        g = as_generator(rng)
        self.projection = g.standard_normal((2 * self.horizon, m))
        self.weights = g.standard_normal((self.n_states, m, self.n_actions))
        self.deterministic = check_bool(deterministic, "deterministic")

    def _action_probs(self, h, states, actions):
        n = states.shape[0]
        prefix = np.zeros((n, 2 * self.horizon))
        if h > 0:
            prefix[:, 0:2 * h:2] = states[:, :h]
            prefix[:, 1:2 * h:2] = actions[:, :h]
        phi = prefix @ self.projection                       # (n, m)
        logits = np.einsum("nm,nma->na", phi, self.weights[states[:, h]])
        if self.deterministic:
            out = np.zeros_like(logits)
            out[np.arange(n), np.argmax(logits, axis=1)] = 1.0
            return out
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def __repr__(self) -> str:
        return (f"ProjectedHistoryPolicy(S={self.n_states}, A={self.n_actions}, H={self.horizon}, "
                f"deterministic={self.deterministic})")


def history_code(states: np.ndarray, actions: np.ndarray, h: int, S: int, A: int) -> np.ndarray:
    """Mixed-radix code of the prefix :math:`(s_1, a_1, \\dots, s_h)` (0-based ``h``)."""
    code = states[:, 0].astype(INDEX_DTYPE)
    for t in range(h):
        code = (code * A + actions[:, t]) * S + states[:, t + 1]
    return code


class TabularHistoryPolicy(HistoryPolicy):
    """A table over histories: ``tables[h]`` has shape ``(S**(h+1) * A**h, A)``, rows indexed by
    the mixed-radix code of the prefix :math:`(s_1, a_1, \\dots, s_{h+1})` (the unknown-reward oracle's output).

    Parameters
    ----------
    tables : sequence of arrays
        One table per stage ``h = 0..H-1``; row ``code`` is :math:`\\pi_h(\\cdot | \\omega_h)`, code
        :math:`((s_1 A + a_1) S + s_2) \\dots`.
    n_states, n_actions : int
        S and A.

    Examples
    --------
    >>> import numpy as np
    >>> pi = TabularHistoryPolicy([np.array([[1.0, 0.0], [0.0, 1.0]])], 2, 2)   # H = 1: a = s
    >>> pi.action_probs(0, np.array([[1]]), np.zeros((1, 0), int))
    array([[0., 1.]])
    """

    def __init__(self, tables, n_states: int, n_actions: int):
        self.n_states = check_positive_int(n_states, "n_states")
        self.n_actions = check_positive_int(n_actions, "n_actions")
        S, A = self.n_states, self.n_actions
        if isinstance(tables, (str, bytes)) or not hasattr(tables, "__len__"):
            raise InputError("tables", f"got {type(tables).__name__}", "a sequence of one table per stage")
        self.tables = []
        for h, t in enumerate(tables):
            t = check_array(t, f"tables[{h}]", shape=(S ** (h + 1) * A ** h, A))
            self.tables.append(_normalise_rows(t, f"tables[{h}]"))
        self.horizon = len(self.tables)
        if self.horizon == 0:
            raise InputError("tables", "is empty", "one table per stage")

    def _action_probs(self, h, states, actions):
        code = history_code(states, actions, h, self.n_states, self.n_actions)
        return self.tables[h][code]
