"""Polymatrix games stored as edge lists (memory linear in the number of edges).

A polymatrix game on an undirected graph :math:`G=(V,E)` gives every ordered
pair :math:`(i, j)` with :math:`\\{i,j\\}\\in E` a payoff matrix
:math:`M_{ij}\\in\\mathbb R^{A_i\\times A_j}` holding player *i*'s payoffs on
that edge. Player *i* plays one mixed strategy :math:`x_i\\in\\Delta(A_i)` on
all its edges.
"""
from __future__ import annotations

from numbers import Integral
from typing import Any, Mapping

import numpy as np

from iclr26sci.core import (
    InputError,
    as_generator,
    check_bool,
    check_in_range,
    check_memory,
    check_option,
    check_positive_int,
)

__all__ = ["PolymatrixGame", "CITATION"]

CITATION = ("Liu, Farina & Ozdaglar, Differentially Private Equilibrium Finding in Polymatrix Games, "
            "ICLR 2026, arXiv:2503.09538")

_GRAPHS = ("erdos_renyi", "complete", "random_regular", "circulant")
_PAYOFFS = ("uniform", "zero_sum", "coordination", "private_values")


# ----------------------------------------------------------------------------- graph generators
def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _check_normalize(normalize: Any) -> bool | None:
    """``None`` (use the game's own setting) or a real bool."""
    return None if normalize is None else check_bool(normalize, "normalize")


def _er_edges(n: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """Edges (i < j) of G(n, p).

    Up to 2e8 pairs: drawn row by row (O(n^2) time, O(|E|) memory). Beyond, the exact two-stage
    draw: the number of edges ~ Binomial(n(n-1)/2, p), then that many distinct pairs uniformly
    (the edge set of G(n, p) given its size is a uniform subset), in O(|E|) time and memory."""
    pairs = n * (n - 1) // 2
    if p >= 1.0 or pairs <= 200_000_000:
        out = []
        for i in range(n - 1):
            m = n - 1 - i
            if p >= 1.0:
                js = np.arange(i + 1, n)
            else:
                js = i + 1 + np.flatnonzero(rng.random(m) < p)
            if js.size:
                out.append(np.column_stack([np.full(js.size, i), js]))
        return np.concatenate(out).astype(np.int64) if out else np.zeros((0, 2), np.int64)
    m = int(rng.binomial(pairs, p))
    lin = np.sort(rng.choice(pairs, size=m, replace=False)).astype(np.int64)
    return _pairs_from_linear(lin, n)


def _pairs_from_linear(lin: np.ndarray, n: int) -> np.ndarray:
    """Pairs (i, j), i < j, of the row-major enumeration 0..n(n-1)/2-1 of the upper triangle."""
    lin = np.asarray(lin, dtype=np.int64)
    # row i holds lin in [S(i), S(i+1)), S(i) = i(2n - i - 1)/2; float guess, then an exact fix-up
    i = np.floor(((2 * n - 1) - np.sqrt(np.maximum((2.0 * n - 1) ** 2 - 8.0 * lin, 0.0))) / 2).astype(np.int64)
    i = np.clip(i, 0, n - 2)
    for _ in range(2):
        start = i * (2 * n - i - 1) // 2
        i = np.where(start > lin, i - 1, i)
        nxt = (i + 1) * (2 * n - i - 2) // 2
        i = np.where(nxt <= lin, i + 1, i)
    start = i * (2 * n - i - 1) // 2
    j = lin - start + i + 1
    return np.column_stack([i, j]).astype(np.int64)


def _circulant_edges(n: int, degree: int) -> np.ndarray:
    """Ring lattice: i joined to i +- 1, ..., i +- degree/2 (a union of degree/2 'ring' matchings)."""
    k = degree // 2
    i = np.repeat(np.arange(n), k)
    j = (i + np.tile(np.arange(1, k + 1), n)) % n
    e = np.column_stack([np.minimum(i, j), np.maximum(i, j)])
    return np.unique(e, axis=0)


def _regular_edges(n: int, degree: int, rng: np.random.Generator) -> np.ndarray:
    import networkx as nx

    g = nx.random_regular_graph(degree, n, seed=int(rng.integers(2**31 - 1)))
    e = np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2)
    return np.unique(np.sort(e, axis=1), axis=0)


class PolymatrixGame:
    r"""A polymatrix game on any undirected graph, stored as an edge list.

    Player :math:`i` with degree :math:`d_i` has payoff vector and utility

    .. math::

        g_i(x) = \frac{1}{d_i}\sum_{j\in N(i)} M_{ij}\,x_j, \qquad
        u_i(x) = \langle x_i, g_i(x)\rangle ,

    (the factor :math:`1/d_i` is dropped with ``normalize=False``), and Nash gap
    :math:`\mathrm{gap}_i(x)=\max_a g_i(x)_a-\langle x_i,g_i(x)\rangle\ge 0`.
    Normalising by the degree does not change best responses, hence not the
    Nash equilibria; it keeps utilities bounded as the graph grows.

    Parameters
    ----------
    graph : networkx.Graph
        Who plays whom: an undirected graph without self-loops; its nodes are the players
        (any hashable labels, ordered as ``list(graph.nodes)``).
    payoffs : mapping
        ``{(i, j): M_ij}`` for every edge in both directions, ``M_ij`` of shape
        ``(A_i, A_j)`` (player *i*'s payoffs). With ``zero_sum=True`` a
        missing reverse block is filled with :math:`M_{ji}=-M_{ij}^\top`.
    n_actions : int or mapping, optional
        Actions per player; needed only for isolated players (default 2 for them
        when nothing else is known).
    normalize : bool
        Divide utilities by the degree (default ``True``), so that a player's utility stays
        in the range of its payoffs however many neighbours it has.
    zero_sum : bool, optional
        Declare the game zero-sum (:math:`\sum_i u_i(s)=0` for every pure
        profile); checked exactly, and an :class:`InputError` is raised if false.

    References
    ----------
    .. [1] Liu, Farina & Ozdaglar, "Differentially Private Equilibrium Finding in
       Polymatrix Games", ICLR 2026, arXiv:2503.09538.
    .. [2] Cai, Candogan, Daskalakis & Papadimitriou, "Zero-sum polymatrix games: a
       generalization of minmax", Math. Oper. Res. 41(2), 2016.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from iclr26sci.games import PolymatrixGame
    >>> pennies = np.array([[1.0, -1.0], [-1.0, 1.0]])
    >>> g = PolymatrixGame(nx.path_graph(3), {(0, 1): pennies, (1, 2): pennies}, zero_sum=True)
    >>> g.n_players, g.n_edges, g.is_zero_sum()
    (3, 2, True)
    >>> g.nash_gap(g.uniform_strategy())
    array([0., 0., 0.])
    """

    citation = CITATION

    def __init__(self, graph: Any, payoffs: Mapping, n_actions: Any = None, *, normalize: bool = True,
                 zero_sum: bool | None = None):
        try:
            import networkx as nx
        except ImportError:  # pragma: no cover
            raise
        if not isinstance(graph, nx.Graph):
            raise InputError("graph", f"got {type(graph).__name__}", "a networkx.Graph")
        if graph.is_directed():
            raise InputError("graph", "is directed", "an undirected networkx.Graph")
        if graph.is_multigraph():
            raise InputError("graph", "is a multigraph", "a simple undirected networkx.Graph")
        if graph.number_of_nodes() == 0:
            raise InputError("graph", "has no nodes", "at least one player")
        if nx.number_of_selfloops(graph):
            raise InputError("graph", "has self-loops", "a graph without self-loops")
        if not isinstance(payoffs, Mapping):
            raise InputError("payoffs", f"got {type(payoffs).__name__}", "a dict {(i, j): M_ij}")
        normalize = check_bool(normalize, "normalize")
        if zero_sum is not None:
            zero_sum = check_bool(zero_sum, "zero_sum")
        nodes = list(graph.nodes)
        index = {v: k for k, v in enumerate(nodes)}
        n = len(nodes)
        # -- validate blocks
        blocks: dict[tuple[int, int], np.ndarray] = {}
        for key, m in payoffs.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise InputError("payoffs", f"key {key!r} is not a pair (i, j)", "keys (i, j) of graph edges")
            i, j = key
            if not (_hashable(i) and _hashable(j)) or i not in index or j not in index:
                raise InputError("payoffs", f"key {key!r} names a node not in the graph", "keys (i, j) of graph edges")
            if not graph.has_edge(i, j):
                raise InputError("payoffs", f"({i!r}, {j!r}) is not an edge of the graph",
                                 "payoff blocks only for edges")
            try:
                arr = np.asarray(m, dtype=float) if not isinstance(m, np.ndarray) else m.astype(float, copy=False)
            except (TypeError, ValueError):
                raise InputError("payoffs", f"block ({i!r}, {j!r}) has ragged or non-numeric entries",
                                 "a rectangular (A_i, A_j) matrix of real numbers") from None
            if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
                raise InputError("payoffs", f"block ({i!r}, {j!r}) has shape {arr.shape}", "a 2-D (A_i, A_j) matrix")
            if not np.all(np.isfinite(arr)):
                raise InputError("payoffs", f"block ({i!r}, {j!r}) has NaN or infinite entries", "finite payoffs")
            blocks[(index[i], index[j])] = arr
        if zero_sum:
            for (a, b), m in list(blocks.items()):
                if (b, a) not in blocks:
                    blocks[(b, a)] = -m.T
        # -- actions per player
        acts = np.zeros(n, dtype=np.int64)
        for (a, b), m in blocks.items():
            for who, size, side in ((a, m.shape[0], "rows"), (b, m.shape[1], "columns")):
                if acts[who] == 0:
                    acts[who] = size
                elif acts[who] != size:
                    raise InputError("payoffs", f"block ({nodes[a]!r}, {nodes[b]!r}) has {size} {side} but "
                                     f"player {nodes[who]!r} has {acts[who]} actions elsewhere",
                                     "blocks of shape (A_i, A_j) consistent across edges")
        if n_actions is not None:
            if isinstance(n_actions, Mapping):
                unknown = [k for k in n_actions if not _hashable(k) or k not in index]
                if unknown:
                    raise InputError("n_actions", f"names {unknown[:3]!r}, not players of the graph",
                                     "keys that are node labels of the graph")
                req = {index[k]: check_positive_int(v, "n_actions") for k, v in n_actions.items()}
            else:
                a0 = check_positive_int(n_actions, "n_actions")
                req = {k: a0 for k in range(n)}
            for k, a0 in req.items():
                if acts[k] and acts[k] != a0:
                    raise InputError("n_actions", f"player {nodes[k]!r} has {acts[k]} actions in its payoff blocks, "
                                     f"not {a0}", "a count matching the blocks")
                acts[k] = a0
        acts[acts == 0] = 2 if not np.any(acts) else int(acts[acts > 0].max())
        # -- every edge in both directions
        missing = []
        for u, v in graph.edges():
            for a, b in ((index[u], index[v]), (index[v], index[u])):
                if (a, b) not in blocks:
                    missing.append((nodes[a], nodes[b]))
        if missing:
            raise InputError("payoffs", f"no block for {len(missing)} directed edge(s), e.g. {missing[:3]}",
                             "a block M_ij for every edge in both directions (or zero_sum=True)")
        amax = int(acts.max())
        keys = np.array(sorted(blocks), dtype=np.int64).reshape(-1, 2)
        barr = np.zeros((len(keys), amax, amax))
        for e, (a, b) in enumerate(keys):
            m = blocks[(int(a), int(b))]
            barr[e, : m.shape[0], : m.shape[1]] = m
        self._setup(nodes, acts, keys[:, 0], keys[:, 1], barr, normalize, graph=graph)
        if zero_sum is not None and bool(zero_sum) and not self.is_zero_sum():
            raise InputError("zero_sum", "was declared True but the payoffs are not zero-sum "
                             "(sum of utilities differs from 0 on some pure profile)",
                             "zero_sum=False/None, or payoffs with M_ji = -M_ij^T (or an equivalent)")

    # ------------------------------------------------------------------ construction helpers
    def _setup(self, nodes, acts, src, dst, blocks, normalize, graph=None):
        order = np.lexsort((dst, src))
        self._nodes = list(nodes)
        self._index = None
        self._n = len(self._nodes)
        self._acts = np.asarray(acts, dtype=np.int64)
        self._amax = int(self._acts.max())
        self._src = np.ascontiguousarray(src[order])
        self._dst = np.ascontiguousarray(dst[order])
        self._blocks = np.ascontiguousarray(blocks[order])
        self._deg = np.bincount(self._src, minlength=self._n).astype(np.int64)
        self._mask = np.arange(self._amax)[None, :] < self._acts[:, None]
        self.normalize = bool(normalize)
        # exact power-of-two scale of the payoffs, so that sums over edges cannot overflow
        # (payoffs near 1e308): every product with the scaled blocks is multiplied back at the end
        big = float(np.abs(self._blocks).max()) if self._blocks.size else 0.0
        self._pscale = 1.0 if big < 1e150 else float(2.0 ** (np.frexp(big)[1] - 2))
        self._graph = graph
        self._big = None
        self._rev = None

    @classmethod
    def from_arrays(cls, n_players: int, edges: Any, blocks_ij: Any, blocks_ji: Any, *, normalize: bool = True,
                    nodes: list | None = None, n_actions: int | None = None) -> "PolymatrixGame":
        r"""Fast constructor for games with equal action counts.

        Parameters
        ----------
        n_players : int >= 1
            Number of players N (indexed 0..N-1).
        edges : array (E, 2) of int
            Undirected edges ``(i, j)``, each listed once, no self-loops or duplicates.
        blocks_ij, blocks_ji : arrays (E, A, A)
            ``blocks_ij[e]`` is :math:`M_{ij}` (player i's payoffs against j) and
            ``blocks_ji[e]`` is :math:`M_{ji}` for ``edges[e] = (i, j)``.
        normalize : bool
            Divide each player's utility by its degree (default True).
        nodes : list, optional
            N distinct hashable player labels (default ``0..N-1``).
        n_actions : int, optional
            Actions per player when ``edges`` is empty (otherwise read from the blocks).

        Examples
        --------
        >>> import numpy as np
        >>> from iclr26sci.games import PolymatrixGame
        >>> m = np.array([[[1.0, -1.0], [-1.0, 1.0]]])          # matching pennies on one edge
        >>> g = PolymatrixGame.from_arrays(2, [[0, 1]], m, -m.transpose(0, 2, 1))
        >>> g, g.is_zero_sum()
        (PolymatrixGame(n_players=2, n_edges=1, n_actions=2, normalize=True), True)
        """
        n = check_positive_int(n_players, "n_players")
        normalize = check_bool(normalize, "normalize")
        if nodes is not None:
            try:
                nodes = list(nodes)
            except TypeError:
                raise InputError("nodes", f"got {type(nodes).__name__}", f"a list of {n} player labels") from None
            if len(nodes) != n:
                raise InputError("nodes", f"has {len(nodes)} labels for {n} players", f"exactly {n} labels")
            if not all(_hashable(v) for v in nodes):
                raise InputError("nodes", "contains unhashable labels", "hashable player labels")
            if len(set(nodes)) != n:
                raise InputError("nodes", "contains duplicate labels", "distinct player labels")
        try:
            e = np.asarray(edges)
        except (TypeError, ValueError):
            raise InputError("edges", "has ragged or non-numeric entries", "an (E, 2) integer array") from None
        if e.size == 0:
            e = e.reshape(0, 2)
        if e.ndim != 2 or e.shape[1] != 2 or (e.size and not np.issubdtype(e.dtype, np.integer)):
            raise InputError("edges", f"has shape {e.shape} / dtype {e.dtype}", "an (E, 2) integer array")
        e = e.astype(np.int64)
        if e.size and (e.min() < 0 or e.max() >= n):
            raise InputError("edges", "has node indices outside 0..n_players-1", "indices in range")
        if np.any(e[:, 0] == e[:, 1]):
            raise InputError("edges", "contains self-loops", "edges (i, j) with i != j")
        key = np.minimum(e[:, 0], e[:, 1]) * n + np.maximum(e[:, 0], e[:, 1])
        if np.unique(key).size != key.size:
            raise InputError("edges", "contains duplicate edges", "each undirected edge once")
        bs = []
        for name, b in (("blocks_ij", blocks_ij), ("blocks_ji", blocks_ji)):
            try:
                bs.append(np.asarray(b, dtype=float))
            except (TypeError, ValueError):
                raise InputError(name, "has ragged or non-numeric entries", f"a ({len(e)}, A, A) float array") from None
        bij, bji = bs
        for name, b in (("blocks_ij", bij), ("blocks_ji", bji)):
            if b.ndim != 3 or b.shape[0] != len(e) or b.shape[1] != b.shape[2]:
                raise InputError(name, f"has shape {b.shape}", f"({len(e)}, A, A) square blocks")
            if not np.all(np.isfinite(b)):
                raise InputError(name, "contains NaN or infinite values", "finite payoffs")
        if bij.shape != bji.shape:
            raise InputError("blocks_ji", f"has shape {bji.shape} but blocks_ij has {bij.shape}", "equal shapes")
        if n_actions is not None:
            a = check_positive_int(n_actions, "n_actions")
            if len(e) and a != bij.shape[1]:
                raise InputError("n_actions", f"got {a} but the blocks are {bij.shape[1]}x{bij.shape[1]}",
                                 "the blocks' size (or None)")
        else:
            a = bij.shape[1] if len(e) else 2
        g = cls.__new__(cls)
        src = np.concatenate([e[:, 0], e[:, 1]])
        dst = np.concatenate([e[:, 1], e[:, 0]])
        g._setup(list(range(n)) if nodes is None else list(nodes), np.full(n, a), src, dst,
                 np.concatenate([bij, bji]), normalize)
        return g

    @classmethod
    def random(cls, n_players: int, n_actions: int = 3, graph: Any = "erdos_renyi", *, p: float = 0.5,
               degree: int = 6, payoffs: str = "uniform", normalize: bool = True, rng: Any = None
               ) -> "PolymatrixGame":
        r"""A random polymatrix game.

        Parameters
        ----------
        n_players : int >= 1
            Number of players N.
        n_actions : int >= 2
            Actions per player A (the same for all).
        graph : {"erdos_renyi", "complete", "random_regular", "circulant"} or networkx.Graph
            ``"erdos_renyi"`` joins each pair with probability ``p`` (dense
            regime); ``"circulant"`` is the ring lattice of even ``degree``
            (union of ``degree/2`` ring matchings) and ``"random_regular"`` a
            random ``degree``-regular graph (sparse regime).
        payoffs : {"uniform", "zero_sum", "coordination", "private_values"}
            ``"uniform"``: independent :math:`U[0,1]` entries in both blocks;
            ``"zero_sum"``: :math:`M_{ij}\sim U[-1,1]`, :math:`M_{ji}=-M_{ij}^\top`;
            ``"coordination"``: :math:`M_{ij}\sim U[0,1]`, :math:`M_{ji}=M_{ij}^\top`
            (identical interests on every edge: a potential game);
            ``"private_values"``: every player has a private value :math:`v_{ia}\sim U[0,1]`
            for each action, earned against every neighbour, plus i.i.d. pairwise terms,
            :math:`M_{ij}[a,b]=(v_{ia}+U_{ab})/2`. With i.i.d. payoffs every profile's gap is
            :math:`O(1/\sqrt{d})` (uniform play is nearly an equilibrium of a dense game);
            with private values uniform play's gap stays about 0.3 however large the game,
            so this family shows whether an algorithm actually learns.
        p : float in [0, 1]
            Edge probability of ``"erdos_renyi"``.
        degree : int
            Degree of ``"circulant"`` (even) and ``"random_regular"`` graphs.
        normalize : bool
            Divide each player's utility by its degree (default True).
        rng : seed or Generator
            Source of the graph and payoffs (SPEC 7).

        Notes
        -----
        The estimated size of the payoff storage is checked before anything is drawn: a
        request beyond half the machine's memory (``random(10**7, graph="complete")``) raises
        an :class:`~iclr26sci.core.InputError` giving the size. Above 2e8 candidate pairs
        the Erdos-Renyi graph is drawn in O(|E|) (Binomial edge count, then uniform pairs).

        Examples
        --------
        >>> from iclr26sci.games import PolymatrixGame
        >>> g = PolymatrixGame.random(100, 3, graph="circulant", degree=6, payoffs="zero_sum", rng=0)
        >>> g.n_edges, int(g.degree.max()), g.is_pairwise_zero_sum()
        (300, 6, True)
        >>> pv = PolymatrixGame.random(400, 3, payoffs="private_values", rng=0)
        >>> round(float(pv.nash_gap(pv.uniform_strategy()).mean()), 2)     # uniform play is far off
        0.13
        """
        n = check_positive_int(n_players, "n_players")
        a = check_positive_int(n_actions, "n_actions", minimum=2)
        check_option(payoffs, "payoffs", _PAYOFFS)
        normalize = check_bool(normalize, "normalize")
        gen = as_generator(rng)
        nodes = None
        if isinstance(graph, str):
            check_option(graph, "graph", _GRAPHS)
            pairs = n * (n - 1) / 2.0
            if graph in ("erdos_renyi", "complete"):
                q = 1.0 if graph == "complete" else check_in_range(p, "p", 0.0, 1.0)
                m_est = q * pairs + 6.0 * np.sqrt(q * (1 - q) * pairs)
            else:
                d = check_positive_int(degree, "degree")
                if d >= n:
                    raise InputError("degree", f"got {d} with {n} players", "degree < n_players")
                m_est = n * d / 2.0
            # two payoff blocks per edge, drawn, concatenated and sorted (about 3 copies), plus indices
            check_memory(m_est * (6.0 * a * a * 8 + 64), "n_players",
                         f"the payoff blocks of a {graph} game with {n} players and {a} actions "
                         f"(about {m_est:.3g} edges)")
            if graph == "erdos_renyi":
                edges = _er_edges(n, q, gen)
            elif graph == "complete":
                edges = _er_edges(n, 1.0, gen)
            else:
                if graph == "circulant":
                    if d % 2:
                        raise InputError("degree", f"got odd degree {d} for a circulant graph", "an even degree")
                    edges = _circulant_edges(n, d)
                else:
                    if (n * d) % 2:
                        raise InputError("degree", f"n_players*degree = {n * d} is odd", "an even product")
                    edges = _regular_edges(n, d, gen)
        else:
            import networkx as nx

            if not isinstance(graph, nx.Graph) or graph.is_directed():
                raise InputError("graph", f"got {graph!r}", f"one of {_GRAPHS} or an undirected networkx.Graph")
            nodes = list(graph.nodes)
            if len(nodes) != n:
                raise InputError("n_players", f"got {n} but the graph has {len(nodes)} nodes", "equal counts")
            check_memory(graph.number_of_edges() * (6.0 * a * a * 8 + 64), "graph",
                         f"the payoff blocks of {graph.number_of_edges()} edges with {a} actions")
            idx = {v: k for k, v in enumerate(nodes)}
            edges = np.array([(idx[u], idx[v]) for u, v in graph.edges() if u != v], dtype=np.int64).reshape(-1, 2)
        m = len(edges)
        if payoffs == "uniform":
            bij = gen.random((m, a, a))
            bji = gen.random((m, a, a))
        elif payoffs == "zero_sum":
            bij = gen.uniform(-1.0, 1.0, (m, a, a))
            bji = -np.transpose(bij, (0, 2, 1))
        elif payoffs == "coordination":
            bij = gen.random((m, a, a))
            bji = np.transpose(bij, (0, 2, 1)).copy()
        else:
            val = gen.random((n, a))
            bij = (gen.random((m, a, a)) + val[edges[:, 0]][:, :, None]) / 2.0
            bji = (gen.random((m, a, a)) + val[edges[:, 1]][:, :, None]) / 2.0
        g = cls.from_arrays(n, edges, bij, bji, normalize=normalize, nodes=nodes, n_actions=a)
        return g

    # ------------------------------------------------------------------ structure
    @property
    def n_players(self) -> int:
        """Number of players N."""
        return self._n

    @property
    def nodes(self) -> list:
        """Player labels, in index order."""
        return list(self._nodes)

    @property
    def n_actions(self) -> np.ndarray:
        """Actions per player, shape (N,)."""
        return self._acts.copy()

    @property
    def degree(self) -> np.ndarray:
        """Degrees :math:`d_i`, shape (N,)."""
        return self._deg.copy()

    @property
    def edges(self) -> np.ndarray:
        """Undirected edges as an (E, 2) array of player indices ``i < j``."""
        keep = self._src < self._dst
        return np.column_stack([self._src[keep], self._dst[keep]])

    @property
    def n_edges(self) -> int:
        """Number of undirected edges |E|."""
        return int(np.count_nonzero(self._src < self._dst))

    @property
    def n_channels(self) -> int:
        """Directed communication channels (2 per edge)."""
        return int(self._src.size)

    @property
    def equal_actions(self) -> bool:
        """Whether every player has the same number of actions (strategies are then an (N, A) array)."""
        return bool(np.all(self._acts == self._amax))

    @property
    def nbytes(self) -> int:
        """Memory held by the payoff storage (linear in the number of edges)."""
        return int(self._blocks.nbytes + self._src.nbytes + self._dst.nbytes)

    @property
    def graph(self):
        """The game's graph as a networkx.Graph (built on demand for generated games)."""
        if self._graph is None:
            import networkx as nx

            g = nx.Graph()
            g.add_nodes_from(self._nodes)
            g.add_edges_from((self._nodes[i], self._nodes[j]) for i, j in self.edges)
            self._graph = g
        return self._graph

    def _idx(self, v: Any, name: str) -> int:
        if self._index is None:
            self._index = {u: k for k, u in enumerate(self._nodes)}
        if not _hashable(v) or v not in self._index:
            raise InputError(name, f"{v!r} is not a player of the game", "a node label of the graph")
        return self._index[v]

    def _edge_id(self, i: int, j: int) -> int:
        key = self._src * self._n + self._dst
        k = i * self._n + j
        pos = int(np.searchsorted(key, k))
        if pos >= key.size or key[pos] != k:
            return -1
        return pos

    def payoff(self, i: Any, j: Any) -> np.ndarray:
        """Player ``i``'s payoff matrix :math:`M_{ij}` (shape ``(A_i, A_j)``) on edge ``(i, j)``.

        Parameters
        ----------
        i, j : node labels
            The player whose payoffs are returned, and its neighbour.

        Examples
        --------
        >>> from iclr26sci.games import dominant_flip_witness
        >>> dominant_flip_witness().game.payoff(1, 0)
        array([[1., 0.],
               [0., 1.]])
        """
        a, b = self._idx(i, "i"), self._idx(j, "j")
        e = self._edge_id(a, b)
        if e < 0:
            raise InputError("j", f"({i!r}, {j!r}) is not an edge", "a neighbour of i")
        return self._blocks[e, : self._acts[a], : self._acts[b]].copy()

    def neighbors(self, i: Any) -> list:
        """Labels of player ``i``'s neighbours.

        Examples
        --------
        >>> from iclr26sci.games import dominant_flip_witness
        >>> dominant_flip_witness(n_extra=1).game.neighbors(1)
        [0, 2]
        """
        a = self._idx(i, "i")
        lo, hi = np.searchsorted(self._src, [a, a + 1])
        return [self._nodes[k] for k in self._dst[lo:hi]]

    # ------------------------------------------------------------------ linear algebra
    def _matrix(self):
        """Block matrix :math:`\\mathbf M` (N*Amax square, unnormalised), CSR, nnz = 2|E| Amax^2."""
        if self._big is None:
            a = self._amax
            e = self._src.size
            rows = (self._src[:, None, None] * a + np.arange(a)[None, :, None])
            cols = (self._dst[:, None, None] * a + np.arange(a)[None, None, :])
            rows = np.broadcast_to(rows, (e, a, a)).ravel()
            cols = np.broadcast_to(cols, (e, a, a)).ravel()
            vals = self._blocks.ravel() if self._pscale == 1.0 else self._blocks.ravel() / self._pscale
            import scipy.sparse as sp

            self._big = sp.csr_matrix((vals, (rows, cols)), shape=(self._n * a, self._n * a))
        return self._big

    def _scale(self, normalize: bool | None) -> np.ndarray:
        norm = self.normalize if normalize is None else check_bool(normalize, "normalize")
        if not norm:
            return np.ones(self._n)
        return 1.0 / np.maximum(self._deg, 1)

    def _grad(self, x: np.ndarray, normalize: bool | None = None) -> np.ndarray:
        """Payoff vectors for padded strategies ``x`` of shape (..., N, Amax)."""
        lead = x.shape[:-2]
        flat = x.reshape(-1, self._n * self._amax).T
        g = (self._matrix() @ flat).T.reshape(*lead, self._n, self._amax)
        g = g * self._scale(normalize)[:, None]
        return g if self._pscale == 1.0 else g * self._pscale

    def _gap(self, x: np.ndarray, g: np.ndarray) -> np.ndarray:
        best = np.where(self._mask, g, -np.inf).max(axis=-1)
        return np.maximum(best - np.sum(x * g, axis=-1), 0.0)

    # ------------------------------------------------------------------ strategies
    def uniform_strategy(self):
        """Uniform play: every player mixes all its actions equally (the baseline a private answer must beat).

        Examples
        --------
        >>> from iclr26sci.games import PolymatrixGame
        >>> PolymatrixGame.random(2, 2, p=1.0, rng=0).uniform_strategy()
        array([[0.5, 0.5],
               [0.5, 0.5]])
        """
        x = self._mask / self._acts[:, None]
        return self._unpad(x)

    def _pad(self, x: Any, name: str = "x", atol: float = 1e-6) -> np.ndarray:
        """Validate strategies (array (N, A) or list of N vectors) and return padded (N, Amax)."""
        n, amax = self._n, self._amax
        if hasattr(x, "strategies"):          # an EquilibriumResult or DPResult
            x = x.strategies
        if isinstance(x, (list, tuple)) and len(x) == n and not self.equal_actions:
            out = np.zeros((n, amax))
            for k, row in enumerate(x):
                r = np.asarray(row, dtype=float)
                if r.shape != (self._acts[k],):
                    raise InputError(name, f"strategy of player {self._nodes[k]!r} has shape {r.shape}",
                                     f"({self._acts[k]},)")
                out[k, : r.size] = r
        else:
            try:
                out = np.asarray(x, dtype=float)
            except (TypeError, ValueError):
                raise InputError(name, "could not be converted to a float array",
                                 f"an ({n}, {amax}) array of mixed strategies") from None
            if out.shape != (n, amax):
                raise InputError(name, f"has shape {out.shape}", f"({n}, {amax}) (one row per player)")
            if not self.equal_actions and np.any(out[~self._mask] != 0):
                raise InputError(name, "puts mass on actions a player does not have", "zeros in padded entries")
        if not np.all(np.isfinite(out)):
            raise InputError(name, "contains NaN or infinite values", "points of the simplices")
        if np.any(out < -atol):
            raise InputError(name, f"has negative probabilities (min {out.min():.3g})", "points of the simplices")
        s = out.sum(axis=1)
        if np.any(np.abs(s - 1.0) > atol):
            k = int(np.argmax(np.abs(s - 1.0)))
            raise InputError(name, f"is off the simplex (player {self._nodes[k]!r} sums to {s[k]:.6g})",
                             "each row non-negative and summing to 1")
        return np.clip(out, 0.0, None)

    def _unpad(self, x: np.ndarray):
        if self.equal_actions:
            return x
        return [x[k, : self._acts[k]].copy() for k in range(self._n)]

    # ------------------------------------------------------------------ public evaluation
    def payoff_vector(self, x: Any, i: Any = None, *, normalize: bool | None = None):
        r"""Payoff vector :math:`g_i(x)=\frac1{d_i}\sum_{j\in N(i)}M_{ij}x_j` (all players when ``i`` is None).

        Entry ``a`` is what player ``i`` would earn by playing action ``a`` against the others' ``x``.

        Parameters
        ----------
        x : array (N, A) or list of N vectors
            A mixed-strategy profile (one row per player on its simplex).
        i : node label, optional
            A single player.
        normalize : bool, optional
            Override the game's degree normalisation.

        Examples
        --------
        >>> from iclr26sci.games import dominant_flip_witness
        >>> g = dominant_flip_witness().game
        >>> g.payoff_vector([[1.0, 0.0], [0.5, 0.5]], 1)
        array([1., 0.])
        """
        _check_normalize(normalize)
        xp = self._pad(x)
        if i is not None:
            a = self._idx(i, "i")
            lo, hi = np.searchsorted(self._src, [a, a + 1])
            g = np.einsum("eab,eb->a", self._blocks[lo:hi] / self._pscale, xp[self._dst[lo:hi]])
            return g[: self._acts[a]] * self._scale(normalize)[a] * self._pscale
        return self._unpad(self._grad(xp, normalize))

    def utility(self, x: Any, i: Any = None, *, normalize: bool | None = None):
        r"""Utility :math:`u_i(x)=\langle x_i, g_i(x)\rangle` (vector over players when ``i`` is None).

        Parameters
        ----------
        x : array (N, A) or list of N vectors
            A mixed-strategy profile.
        i : node label, optional
            A single player.
        normalize : bool, optional
            Override the game's degree normalisation.

        Examples
        --------
        >>> from iclr26sci.games import dominant_flip_witness
        >>> dominant_flip_witness().game.utility([[1.0, 0.0], [0.5, 0.5]])
        array([1. , 0.5])
        """
        _check_normalize(normalize)
        xp = self._pad(x)
        if i is not None:
            a = self._idx(i, "i")
            return float(self.payoff_vector(xp if self.equal_actions else self._unpad(xp), i,
                                             normalize=normalize) @ xp[a, : self._acts[a]])
        return np.sum(xp * self._grad(xp, normalize), axis=1)

    def nash_gap(self, x: Any, *, normalize: bool | None = None) -> np.ndarray:
        r"""Per-player Nash gap :math:`\max_a g_i(x)_a-\langle x_i,g_i(x)\rangle`, shape (N,).

        ``.max()`` is the exploitability / Nash gap of the profile, ``.mean()``
        and ``.sum()`` its averages. Zero for every player exactly at a Nash equilibrium.

        Parameters
        ----------
        x : array (N, A), list of N vectors, or a result with ``strategies``
            A mixed-strategy profile.
        normalize : bool, optional
            Override the game's degree normalisation.

        Examples
        --------
        >>> from iclr26sci.games import dominant_flip_witness
        >>> g = dominant_flip_witness().game
        >>> g.nash_gap([[1.0, 0.0], [0.5, 0.5]])                  # the follower should match
        array([0. , 0.5])
        """
        _check_normalize(normalize)
        xp = self._pad(x)
        return self._gap(xp, self._grad(xp, normalize))

    def best_response(self, x: Any, *, normalize: bool | None = None) -> np.ndarray:
        """Index of a best-response action for every player, shape (N,).

        Parameters
        ----------
        x : array (N, A) or list of N vectors
            The profile the players respond to.
        normalize : bool, optional
            Override the game's degree normalisation (does not change best responses).

        Examples
        --------
        >>> from iclr26sci.games import dominant_flip_witness
        >>> dominant_flip_witness().neighbor.best_response([[0.0, 1.0], [1.0, 0.0]])
        array([1, 1])
        """
        _check_normalize(normalize)
        xp = self._pad(x)
        g = self._grad(xp, normalize)
        return np.where(self._mask, g, -np.inf).argmax(axis=1)

    # ------------------------------------------------------------------ zero-sum structure
    def _anova(self):
        """Double-centre B_e = M_ij + M_ji^T on every undirected edge (valid actions only)."""
        n = self._n
        key = self._src * n + self._dst
        fwd = np.flatnonzero(self._src < self._dst)
        rev = np.searchsorted(key, self._dst[fwd] * n + self._src[fwd])
        u, v = self._src[fwd], self._dst[fwd]
        bl = self._blocks if self._pscale == 1.0 else self._blocks / self._pscale
        b = bl[fwd] + np.transpose(bl[rev], (0, 2, 1))
        mu = self._mask[u].astype(float)
        mv = self._mask[v].astype(float)
        au, av = self._acts[u].astype(float), self._acts[v].astype(float)
        row = np.einsum("eab,eb->ea", b, mv) / av[:, None]
        col = np.einsum("eab,ea->eb", b, mu) / au[:, None]
        grand = np.einsum("ea,ea->e", row, mu) / au
        inter = (b - row[:, :, None] - col[:, None, :] + grand[:, None, None]) * mu[:, :, None] * mv[:, None, :]
        return u, v, row, col, grand, inter, mu, mv

    def is_zero_sum(self, tol: float = 1e-9) -> bool:
        r"""Exact test of :math:`\sum_i u_i(s)=0` for every pure profile :math:`s`.

        With :math:`B_e=M_{ij}+M_{ji}^\top`, the sum of utilities is
        :math:`\sum_e B_e[s_i,s_j]`; it vanishes identically iff every
        :math:`B_e` has no interaction term, the main effects attached to each
        player cancel, and the constants add to zero.

        Parameters
        ----------
        tol : float >= 0
            Absolute tolerance, relative to the largest payoff.

        Examples
        --------
        >>> from iclr26sci.games import PolymatrixGame
        >>> PolymatrixGame.random(6, 2, payoffs="zero_sum", rng=0).is_zero_sum()
        True
        >>> PolymatrixGame.random(6, 2, payoffs="coordination", rng=0).is_zero_sum()
        False
        """
        tol = check_in_range(tol, "tol", 0.0)
        if self._src.size == 0:
            return True
        u, v, row, col, grand, inter, mu, mv = self._anova()
        scale = max(1.0, float(np.abs(self._blocks).max()) / self._pscale)
        if np.abs(inter).max() > tol * scale:
            return False
        eff = np.zeros((self._n, self._amax))
        np.add.at(eff, u, (row - grand[:, None]) * mu)
        np.add.at(eff, v, (col - grand[:, None]) * mv)
        if np.abs(eff).max() > tol * scale * max(1, int(self._deg.max())):
            return False
        return bool(abs(grand.sum()) <= tol * scale * max(1, grand.size))

    def is_pairwise_zero_sum(self, tol: float = 1e-9) -> bool:
        r""":math:`M_{ji}=-M_{ij}^\top` on every edge (a sufficient condition for zero-sum).

        Parameters
        ----------
        tol : float >= 0
            Absolute tolerance on every entry.

        Examples
        --------
        >>> from iclr26sci.games import PolymatrixGame
        >>> PolymatrixGame.random(6, 2, payoffs="zero_sum", rng=0).is_pairwise_zero_sum()
        True
        """
        tol = check_in_range(tol, "tol", 0.0)
        n = self._n
        key = self._src * n + self._dst
        rev = np.searchsorted(key, self._dst * n + self._src)
        return bool(np.all(np.abs(self._blocks + np.transpose(self._blocks[rev], (0, 2, 1))) <= tol))

    # ------------------------------------------------------------------ normal form (tiny games)
    def to_normal_form(self, normalize: bool | None = None) -> list[np.ndarray]:
        """Payoff tensors of the expanded normal form, one (A_1, ..., A_N) array per player.

        Size :math:`N\\prod_i A_i`; refused above 2e6 cells.

        Parameters
        ----------
        normalize : bool, optional
            Override the game's degree normalisation.

        Examples
        --------
        >>> from iclr26sci.games import PolymatrixGame
        >>> t = PolymatrixGame.random(3, 2, p=1.0, rng=0).to_normal_form()
        >>> len(t), t[0].shape
        (3, (2, 2, 2))
        """
        _check_normalize(normalize)
        cells = float(np.prod(self._acts.astype(float)))
        if cells > 2_000_000:
            raise InputError("game", f"normal form would have {cells} cells per player", "at most 2e6 cells")
        sc = self._scale(normalize)
        shape = tuple(int(a) for a in self._acts)
        out = [np.zeros(shape) for _ in range(self._n)]
        for e in range(self._src.size):
            i, j = int(self._src[e]), int(self._dst[e])
            m = self._blocks[e, : self._acts[i], : self._acts[j]] * sc[i]
            view_shape = [1] * self._n
            view_shape[i], view_shape[j] = m.shape
            mm = m if i < j else m.T
            out[i] = out[i] + mm.reshape(view_shape)
        return out

    def __repr__(self) -> str:
        return (f"PolymatrixGame(n_players={self._n}, n_edges={self.n_edges}, "
                f"n_actions={self._amax if self.equal_actions else 'mixed'}, normalize={self.normalize})")
