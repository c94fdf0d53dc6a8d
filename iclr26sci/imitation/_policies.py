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

from iclr26sci.core import InputError, as_generator, check_array, check_positive_int

from ._mdp import INDEX_DTYPE

__all__ = ["Policy", "MarkovPolicy", "ReturnAugmentedPolicy", "HistoryPolicy",
           "ProjectedHistoryPolicy", "TabularHistoryPolicy"]


class Policy:
    """Base class: a (possibly history-dependent) policy with ``A`` actions and horizon ``H``."""

    n_states: int
    n_actions: int
    horizon: int

    def action_probs(self, h: int, states: np.ndarray, actions: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _check_compatible(self, mdp) -> None:
        if (self.n_states, self.n_actions, self.horizon) != (mdp.n_states, mdp.n_actions, mdp.horizon):
            raise InputError("policy", f"has (S, A, H) = {(self.n_states, self.n_actions, self.horizon)}",
                             f"the MDP's {(mdp.n_states, mdp.n_actions, mdp.horizon)}")


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
        Action probabilities for every stage, state and cumulative index ``y``.
    increments : array of int, shape (H, S, A)
        The per-step reward indices :math:`k_h(s,a)`; the policy's ``y`` at stage ``h`` is
        :math:`\sum_{t<h} k_t(s_t, a_t)` (clipped to ``Y - 1``).
    theta : float, optional
        The grid step the increments were made with (for display).

    Notes
    -----
    The return-augmented class is enough to match any expert's return law on :math:`r^\theta`
    (Lazzati and Metelli, 2026, Lemma on the averaged policy).
    """

    def __init__(self, probs, increments, theta: float | None = None):
        probs = check_array(probs, "probs", ndim=4)
        H, S, Y, A = probs.shape
        k = check_array(increments, "increments", shape=(H, S, A), dtype=int)
        if k.size and k.min() < 0:
            raise InputError("increments", "has negative entries", "non-negative reward indices")
        self.probs = _normalise_rows(probs, "probs")
        self.probs.flags.writeable = False
        self.increments = k.astype(INDEX_DTYPE)
        self.theta = theta
        self.horizon, self.n_states, self.n_y, self.n_actions = int(H), int(S), int(Y), int(A)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(S={self.n_states}, A={self.n_actions}, H={self.horizon}, "
                f"Y={self.n_y}, theta={self.theta})")

    def y_index(self, h: int, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Cumulative reward index of the prefixes (clipped to the table)."""
        if h == 0:
            return np.zeros(states.shape[0], dtype=INDEX_DTYPE)
        t = np.arange(h)
        y = self.increments[t[None, :], states[:, :h], actions[:, :h]].sum(axis=1)
        return np.minimum(y, self.n_y - 1)

    def action_probs(self, h, states, actions):
        y = self.y_index(h, states, actions)
        return self.probs[h, states[:, h], y]

    def table_probs(self, h: int, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:math:`\\pi_h(\\cdot | s, y)` for arrays of states and indices, shape (n, A)."""
        return self.probs[h, s, np.minimum(y, self.n_y - 1)]


class MarkovPolicy(ReturnAugmentedPolicy):
    r"""A Markovian policy :math:`\pi_h(a|s)`.

    Parameters
    ----------
    probs : array, shape (H, S, A) or (S, A)
        A 2-D array is used at every stage (then give ``horizon``).
    """

    def __init__(self, probs, horizon: int | None = None):
        probs = check_array(probs, "probs", ndim=(2, 3))
        if probs.ndim == 2:
            H = check_positive_int(horizon, "horizon")
            probs = np.broadcast_to(probs, (H,) + probs.shape)
        H, S, A = probs.shape
        super().__init__(probs[:, :, None, :], np.zeros((H, S, A), dtype=INDEX_DTYPE), None)

    @property
    def markov_probs(self) -> np.ndarray:
        """:math:`\\pi_h(a|s)`, shape (H, S, A)."""
        return self.probs[:, :, 0, :]

    def __repr__(self) -> str:
        return f"MarkovPolicy(S={self.n_states}, A={self.n_actions}, H={self.horizon})"


class HistoryPolicy(Policy):
    """A general history-dependent policy given by ``action_probs`` (subclass and implement it).

    Exact evaluation enumerates histories, so it is meant for small ``(S*A)**H``.
    """


class ProjectedHistoryPolicy(HistoryPolicy):
    r"""The paper's random non-Markovian expert.

    The history prefix :math:`(s_1, a_1, \dots, s_{h-1}, a_{h-1})`, as raw integer indices and
    zero-padded to length :math:`2H`, is projected by :math:`P \sim N(0,1)^{2H\times m}` to
    :math:`\phi`, and :math:`\pi_h(\cdot|\omega_h) = \mathrm{softmax}(\phi^\top W[s_h])` with
    :math:`W \sim N(0,1)^{S\times m\times A}` (``argmax`` when ``deterministic``).
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
        self.deterministic = bool(deterministic)

    def action_probs(self, h, states, actions):
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
    :func:`history_code` of the prefix :math:`(s_1, a_1, \\dots, s_{h+1})`."""

    def __init__(self, tables, n_states: int, n_actions: int):
        self.n_states = check_positive_int(n_states, "n_states")
        self.n_actions = check_positive_int(n_actions, "n_actions")
        S, A = self.n_states, self.n_actions
        self.tables = []
        for h, t in enumerate(tables):
            t = check_array(t, f"tables[{h}]", shape=(S ** (h + 1) * A ** h, A))
            self.tables.append(_normalise_rows(t, f"tables[{h}]"))
        self.horizon = len(self.tables)
        if self.horizon == 0:
            raise InputError("tables", "is empty", "one table per stage")

    def action_probs(self, h, states, actions):
        code = history_code(states, actions, h, self.n_states, self.n_actions)
        return self.tables[h][code]
