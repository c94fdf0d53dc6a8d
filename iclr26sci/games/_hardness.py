r"""Hardness witnesses: games on which no DP algorithm is accurate (generic forms).

Both witnesses use the *dominant-action flip*: a private player ``k`` whose
payoffs make action 0 strictly dominant in :math:`G` and action 1 in the
neighbouring :math:`G'` (they differ only in :math:`D_k`), and a follower
``f`` whose payoff :math:`c_0` for matching ``k``'s action makes its
equilibrium strategy copy ``k``'s. Equilibria are unique and pure.

(i) Distance. Any :math:`(\varepsilon,\delta)`-DP output :math:`O` whose
targets :math:`NE(G)`, :math:`NE(G')` are at distance :math:`D` satisfies

.. math:: \max\{E_G\,\mathrm{dist}(O,NE(G)),E_{G'}\,\mathrm{dist}(O,NE(G'))\}
          \ \ge\ \frac{D(1-\delta)}{2(1+e^{\varepsilon})}.

(ii) All channels observed. The follower's released strategy is then a
post-processing of the adversary's view, hence DP in :math:`D_k`; its gap
against the equilibrium play of ``k`` satisfies

.. math:: \max\{E_G\,\mathrm{gap}_f,E_{G'}\,\mathrm{gap}_f\}\ \ge\ \frac{c_0(1-\delta)}{1+e^{\varepsilon}}.

These are this library's testable forms of the paper's two impossibility
results (their exact statements and constants were not retrieved).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from iclr26sci.core import (
    InputError,
    check_array,
    check_bool,
    check_in_range,
    check_memory,
    check_option,
    check_positive_int,
)

from ._game import CITATION, PolymatrixGame
from ._report import fmt, jsonable, table

__all__ = ["HardnessWitness", "distance_lower_bound", "all_channels_lower_bound", "dominant_flip_witness"]


def distance_lower_bound(epsilon: float, delta: float, distance: float = 2.0) -> float:
    r"""Hardness (i): no :math:`(\varepsilon,\delta)`-DP output gets close to both of two distant equilibria.

    .. math:: \max\{E_G\,\mathrm{dist}(O,NE(G)),E_{G'}\,\mathrm{dist}(O,NE(G'))\}
              \ \ge\ \frac{D(1-\delta)}{2(1+e^{\varepsilon})}.

    Parameters
    ----------
    epsilon : float >= 0
        Privacy level of the output.
    delta : float in [0, 1)
        The :math:`\delta` of the guarantee.
    distance : float > 0
        :math:`D`, the distance between the equilibria of the two neighbouring games.

    Returns
    -------
    float

    Examples
    --------
    >>> from iclr26sci.games import distance_lower_bound
    >>> round(distance_lower_bound(0.0, 0.0, 2.0), 3)     # no privacy loss allowed: half of D/2
    0.5
    >>> round(distance_lower_bound(1.0, 1e-5, 2.0), 4)
    0.2689
    """
    eps = check_in_range(epsilon, "epsilon", 0.0)
    dl = check_in_range(delta, "delta", 0.0, 1.0, high_open=True)
    d = check_in_range(distance, "distance", 0.0, low_open=True)
    return d * (1.0 - dl) / (2.0 * (1.0 + math.exp(min(eps, 700.0))))


def all_channels_lower_bound(epsilon: float, delta: float, separation: float = 1.0) -> float:
    r"""Hardness (ii): with every channel observed, some player keeps a gap.

    .. math:: \max\{E_G\,\mathrm{gap}_f,E_{G'}\,\mathrm{gap}_f\}\ \ge\ \frac{c_0(1-\delta)}{1+e^\varepsilon}.

    Parameters
    ----------
    epsilon : float >= 0
        Privacy level of the follower's released strategy (a post-processing of the view).
    delta : float in [0, 1)
        The :math:`\delta` of the guarantee.
    separation : float > 0
        :math:`c_0`, the follower's payoff for matching the private player's dominant action.

    Returns
    -------
    float

    Examples
    --------
    >>> from iclr26sci.games import all_channels_lower_bound
    >>> round(all_channels_lower_bound(1.0, 1e-5), 4)
    0.2689
    """
    eps = check_in_range(epsilon, "epsilon", 0.0)
    dl = check_in_range(delta, "delta", 0.0, 1.0, high_open=True)
    c0 = check_in_range(separation, "separation", 0.0, low_open=True)
    return c0 * (1.0 - dl) / (1.0 + math.exp(min(eps, 700.0)))


def _check_follower_strategy(y: Any) -> np.ndarray:
    arr = check_array(y, "y", ndim=None)
    if arr.ndim == 0 or arr.shape[-1] != 2:
        raise InputError("y", f"has shape {arr.shape}", "follower strategies of shape (..., 2)")
    if np.any(arr < -1e-9) or np.any(np.abs(arr.sum(axis=-1) - 1.0) > 1e-6):
        raise InputError("y", "has rows off the simplex", "non-negative pairs summing to 1")
    return np.clip(arr, 0.0, None)


@dataclass(frozen=True, repr=False)
class HardnessWitness:
    """A pair of neighbouring games (differing in the private player's payoffs) and their equilibria.

    Built by :func:`dominant_flip_witness`.

    Attributes
    ----------
    game, neighbor : PolymatrixGame
        The neighbouring games :math:`G` and :math:`G'` (they differ only in the private
        player's payoffs).
    private_player, follower : int
        Indices of the private player ``k`` and of the follower ``f``.
    equilibrium, equilibrium_neighbor : ndarray (N, 2)
        The unique (pure) equilibria of the two games.
    distance : float
        Euclidean distance between the two equilibria restricted to the pair (k, f).
    follower_distance : float
        Distance between the follower's two equilibrium strategies.
    separation : float
        The follower's gap for not matching, in its (normalised) utility.

    Examples
    --------
    >>> from iclr26sci.games import dominant_flip_witness
    >>> w = dominant_flip_witness()
    >>> w
    HardnessWitness(n_players=2, private_player=0, follower=1, distance=2, separation=1)
    >>> round(w.gap_bound(1.0, 1e-5), 4)
    0.2689
    """

    game: PolymatrixGame
    neighbor: PolymatrixGame
    private_player: int
    follower: int
    equilibrium: np.ndarray
    equilibrium_neighbor: np.ndarray
    distance: float
    follower_distance: float
    separation: float
    citation: str = CITATION

    def __post_init__(self):
        for name in ("game", "neighbor"):
            if not isinstance(getattr(self, name), PolymatrixGame):
                raise InputError(name, f"got {type(getattr(self, name)).__name__}", "a PolymatrixGame")
        n = self.game.n_players
        if self.neighbor.n_players != n or not np.array_equal(self.game.edges, self.neighbor.edges):
            raise InputError("neighbor", "has a different graph than game", "the same players and edges")
        if not (np.all(self.game.n_actions == 2) and np.all(self.neighbor.n_actions == 2)):
            raise InputError("game", "has players with other than 2 actions", "2 actions per player")
        for name in ("private_player", "follower"):
            v = check_positive_int(getattr(self, name), name, minimum=0)
            if v >= n:
                raise InputError(name, f"got {v} with {n} players", f"a player index in 0..{n - 1}")
        if self.private_player == self.follower:
            raise InputError("follower", "equals private_player", "two different players")
        if not self.game.graph.has_edge(self.game.nodes[self.private_player], self.game.nodes[self.follower]):
            raise InputError("follower", "is not a neighbour of the private player", "an adjacent pair")
        for name in ("equilibrium", "equilibrium_neighbor"):
            arr = check_array(getattr(self, name), name, ndim=2, shape=(n, 2), nonnegative=True)
            if np.any(np.abs(arr.sum(axis=1) - 1.0) > 1e-6):
                raise InputError(name, "has rows off the simplex", "one mixed strategy per player")
            object.__setattr__(self, name, arr)
        for name in ("distance", "follower_distance", "separation"):
            object.__setattr__(self, name, check_in_range(getattr(self, name), name, 0.0, low_open=True))

    def __repr__(self) -> str:
        return (f"HardnessWitness(n_players={self.game.n_players}, private_player={self.private_player}, "
                f"follower={self.follower}, distance={fmt(self.distance)}, separation={fmt(self.separation)})")

    def to_dict(self) -> dict:
        """The pair's indices, equilibria and constants as plain Python values (games omitted)."""
        return jsonable({"n_players": self.game.n_players, "private_player": self.private_player,
                         "follower": self.follower, "equilibrium": self.equilibrium,
                         "equilibrium_neighbor": self.equilibrium_neighbor, "distance": self.distance,
                         "follower_distance": self.follower_distance, "separation": self.separation,
                         "citation": self.citation})

    def summary(self) -> str:
        """The witness and its two lower bounds at epsilon = 1, delta = 1e-5."""
        return table("Dominant-action flip hardness witness", [
            ("players", self.game.n_players), ("private player", self.private_player),
            ("follower", self.follower), ("distance of the equilibria D", self.distance),
            ("follower distance", self.follower_distance), ("separation c0", self.separation),
            ("bound (i) at eps=1", self.distance_bound(1.0, 1e-5, observable="all")),
            ("bound (ii) at eps=1", self.gap_bound(1.0, 1e-5))])

    def distance_bound(self, epsilon: float, delta: float, observable: str = "follower") -> float:
        """Lower bound (i) for the full profile of the pair (``observable="all"``) or the follower's strategy only.

        Parameters
        ----------
        epsilon, delta : float
            The output's privacy guarantee.
        observable : {"follower", "all"}
            Whose released strategy is measured.

        Examples
        --------
        >>> from iclr26sci.games import dominant_flip_witness
        >>> round(dominant_flip_witness().distance_bound(0.0, 0.0), 4)     # sqrt(2)/4
        0.3536
        """
        check_option(observable, "observable", ("follower", "all"))
        d = self.distance if observable == "all" else self.follower_distance
        return distance_lower_bound(epsilon, delta, d)

    def gap_bound(self, epsilon: float, delta: float) -> float:
        """Lower bound (ii) on the follower's gap (payoff scale ``separation``).

        Examples
        --------
        >>> from iclr26sci.games import dominant_flip_witness
        >>> dominant_flip_witness().gap_bound(0.0, 0.0)
        0.5
        """
        return all_channels_lower_bound(epsilon, delta, self.separation)

    def follower_gap(self, y: Any, neighbor: bool = False) -> np.ndarray:
        """Follower's gap when the private player plays its dominant action.

        Parameters
        ----------
        y : array (..., 2)
            Follower strategies (rows on the simplex).
        neighbor : bool
            Measure in :math:`G'` (private player's dominant action 1) instead of :math:`G`.

        Examples
        --------
        >>> from iclr26sci.games import dominant_flip_witness
        >>> float(dominant_flip_witness().follower_gap([0.25, 0.75]))
        0.75
        """
        y = _check_follower_strategy(y)
        a = 1 if check_bool(neighbor, "neighbor") else 0
        return self.separation * (1.0 - y[..., a])

    def follower_distance_to_ne(self, y: Any, neighbor: bool = False) -> np.ndarray:
        """Euclidean distance of the follower's strategy(ies) ``y`` (..., 2) to its equilibrium strategy.

        Parameters
        ----------
        y : array (..., 2)
            Follower strategies (rows on the simplex).
        neighbor : bool
            Distance to the follower's equilibrium strategy in :math:`G'` instead of :math:`G`.

        Examples
        --------
        >>> from iclr26sci.games import dominant_flip_witness
        >>> round(float(dominant_flip_witness().follower_distance_to_ne([0.0, 1.0])), 4)
        1.4142
        """
        y = _check_follower_strategy(y)
        tgt = self.equilibrium_neighbor[self.follower] if check_bool(neighbor, "neighbor") \
            else self.equilibrium[self.follower]
        return np.linalg.norm(y - tgt, axis=-1)


def dominant_flip_witness(separation: float = 1.0, dominance: float = 1.0, n_extra: int = 0,
                          normalize: bool = True) -> HardnessWitness:
    r"""Build the dominant-action-flip witness pair (player 0 private, player 1 follower).

    Player 0 gets ``dominance`` for its dominant action (0 in :math:`G`, 1 in
    :math:`G'`) whatever the follower does; player 1 gets ``separation`` for
    matching player 0. ``n_extra`` further players form a path attached to
    the follower (each copies its predecessor), to embed the pair in a larger game;
    they do not change the pair's equilibrium.
    The two equilibria are pure and unique, at distance 2 on the pair
    (:math:`\sqrt2` on the follower alone).

    Parameters
    ----------
    separation : float > 0
        :math:`c_0`, the follower's payoff for matching the private player.
    dominance : float > 0
        The private player's payoff for its dominant action (how strictly it dominates).
    n_extra : int >= 0
        Players appended as a path after the follower.
    normalize : bool
        Normalise utilities by the degree (as :class:`PolymatrixGame`).

    Returns
    -------
    HardnessWitness

    Examples
    --------
    >>> from iclr26sci.games import dominant_flip_witness
    >>> w = dominant_flip_witness(n_extra=2)
    >>> w.game.n_players, w.equilibrium[:2].tolist(), w.equilibrium_neighbor[:2].tolist()
    (4, [[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]])
    """
    c0 = check_in_range(separation, "separation", 0.0, low_open=True)
    dom = check_in_range(dominance, "dominance", 0.0, low_open=True)
    extra = check_positive_int(n_extra, "n_extra", minimum=0)
    normalize = check_bool(normalize, "normalize")
    check_memory(extra * 200.0, "n_extra", f"a path of {extra} extra players")
    import networkx as nx

    n = 2 + extra
    g = nx.path_graph(n)
    games = []
    for flip in (0, 1):
        m01 = np.zeros((2, 2))
        m01[flip, :] = dom
        pay = {(0, 1): m01, (1, 0): c0 * np.eye(2)}
        for k in range(1, n - 1):
            # the follower's downstream neighbours copy it; its payoff on these edges is 0
            pay[(k, k + 1)] = np.zeros((2, 2))
            pay[(k + 1, k)] = np.eye(2)
        games.append(PolymatrixGame(g, pay, normalize=normalize))
    ne = np.zeros((n, 2))
    ne[:, 0] = 1.0
    ne1 = np.zeros((n, 2))
    ne1[:, 1] = 1.0
    dist = float(np.linalg.norm(ne[:2] - ne1[:2]))
    # gap scale: follower's utility is normalised by its degree
    sep = c0 / (g.degree(1) if normalize else 1.0)
    return HardnessWitness(games[0], games[1], 0, 1, ne, ne1, dist, math.sqrt(2.0), sep)
