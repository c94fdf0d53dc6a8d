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

import numpy as np

from iclr26sci.core import InputError, check_in_range, check_positive_int

from ._game import CITATION, PolymatrixGame

__all__ = ["HardnessWitness", "distance_lower_bound", "all_channels_lower_bound", "dominant_flip_witness"]


def distance_lower_bound(epsilon: float, delta: float, distance: float = 2.0) -> float:
    r"""Hardness (i): :math:`D(1-\delta)/(2(1+e^\varepsilon))`."""
    eps = check_in_range(epsilon, "epsilon", 0.0)
    dl = check_in_range(delta, "delta", 0.0, 1.0, high_open=True)
    d = check_in_range(distance, "distance", 0.0, low_open=True)
    return d * (1.0 - dl) / (2.0 * (1.0 + math.exp(min(eps, 700.0))))


def all_channels_lower_bound(epsilon: float, delta: float, separation: float = 1.0) -> float:
    r"""Hardness (ii): :math:`c_0(1-\delta)/(1+e^\varepsilon)`."""
    eps = check_in_range(epsilon, "epsilon", 0.0)
    dl = check_in_range(delta, "delta", 0.0, 1.0, high_open=True)
    c0 = check_in_range(separation, "separation", 0.0, low_open=True)
    return c0 * (1.0 - dl) / (1.0 + math.exp(min(eps, 700.0)))


@dataclass(frozen=True)
class HardnessWitness:
    """A pair of neighbouring games (differing in the private player's payoffs) and their equilibria."""

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

    def distance_bound(self, epsilon: float, delta: float, observable: str = "follower") -> float:
        """Lower bound (i) for the full profile (``observable="all"``) or the follower's strategy only."""
        d = self.distance if observable == "all" else self.follower_distance
        return distance_lower_bound(epsilon, delta, d)

    def gap_bound(self, epsilon: float, delta: float) -> float:
        """Lower bound (ii) on the follower's gap (unnormalised payoff scale ``separation``)."""
        return all_channels_lower_bound(epsilon, delta, self.separation)

    def follower_gap(self, y: np.ndarray, neighbor: bool = False) -> np.ndarray:
        """Follower's gap when the private player plays its dominant action; ``y`` (..., 2)."""
        y = np.asarray(y, dtype=float)
        a = 1 if neighbor else 0
        return self.separation * (1.0 - y[..., a])

    def follower_distance_to_ne(self, y: np.ndarray, neighbor: bool = False) -> np.ndarray:
        """Euclidean distance of the follower's strategy(ies) ``y`` (..., 2) to its NE component."""
        tgt = self.equilibrium_neighbor[self.follower] if neighbor else self.equilibrium[self.follower]
        return np.linalg.norm(np.asarray(y, dtype=float) - tgt, axis=-1)


def dominant_flip_witness(separation: float = 1.0, dominance: float = 1.0, n_extra: int = 0,
                          normalize: bool = True) -> HardnessWitness:
    r"""Build the dominant-action-flip witness pair (player 0 private, player 1 follower).

    Player 0 gets ``dominance`` for its dominant action (0 in :math:`G`, 1 in
    :math:`G'`) whatever the follower does; player 1 gets ``separation`` for
    matching player 0. ``n_extra`` further players form a path attached to
    the follower (pure coordination with zero-sum-free payoffs), to embed the
    pair in a larger game; they do not change the pair's equilibrium.
    The two equilibria are pure and unique, at distance 2 on the pair
    (:math:`\sqrt2` on the follower alone).
    """
    c0 = check_in_range(separation, "separation", 0.0, low_open=True)
    dom = check_in_range(dominance, "dominance", 0.0, low_open=True)
    extra = check_positive_int(n_extra, "n_extra", minimum=0)
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
