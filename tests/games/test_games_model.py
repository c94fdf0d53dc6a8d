import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from iclr26sci.core import InputError
from iclr26sci.games import PolymatrixGame


def brute_force_gaps(game, x):
    """Per-player gaps from the expanded normal form (independent of the polymatrix formulas)."""
    tensors = game.to_normal_form()
    n = game.n_players
    gaps = []
    for i in range(n):
        arr = tensors[i]
        for j in sorted([k for k in range(n) if k != i], reverse=True):
            arr = np.moveaxis(arr, j, -1) @ x[j]
        pure = arr  # shape (A_i,)
        gaps.append(pure.max() - pure @ x[i])
    return np.array(gaps)


@given(st.integers(0, 10_000), st.integers(2, 3), st.sampled_from(["uniform", "zero_sum", "coordination"]))
def test_gap_matches_normal_form(seed, a, kind):
    g = PolymatrixGame.random(4, a, p=0.7, payoffs=kind, rng=seed)
    x = np.random.default_rng(seed).dirichlet(np.ones(a), size=4)
    assert np.max(np.abs(g.nash_gap(x) - brute_force_gaps(g, x))) < 1e-12


def test_user_api_and_normalisation():
    graph = nx.karate_club_graph()
    rng = np.random.default_rng(0)
    pay = {}
    for u, v in graph.edges():
        m = rng.random((3, 3))
        pay[(u, v)] = m
        pay[(v, u)] = rng.random((3, 3))
    g = PolymatrixGame(graph, pay)
    x = rng.dirichlet(np.ones(3), size=34)
    assert np.array_equal(g.degree, np.array([d for _, d in graph.degree()]))
    assert len(g.edges) == graph.number_of_edges()
    np.testing.assert_allclose(g.payoff(0, 1), pay[(0, 1)])
    i = 5
    raw = sum(pay[(i, j)] @ x[j] for j in graph.neighbors(i))
    np.testing.assert_allclose(g.payoff_vector(x, i), raw / graph.degree(i))
    np.testing.assert_allclose(g.payoff_vector(x, i, normalize=False), raw)
    np.testing.assert_allclose(g.utility(x, i), x[i] @ raw / graph.degree(i))
    np.testing.assert_allclose(g.utility(x)[i], x[i] @ raw / graph.degree(i))
    np.testing.assert_allclose(g.payoff_vector(x)[i], raw / graph.degree(i))
    gaps = g.nash_gap(x)
    assert gaps.shape == (34,) and gaps.min() >= 0
    np.testing.assert_allclose(g.nash_gap(x, normalize=False), gaps * g.degree)


def test_unequal_actions_and_labels():
    graph = nx.Graph([("a", "b"), ("b", "c")])
    pay = {("a", "b"): np.ones((2, 3)), ("b", "a"): np.eye(3)[:, :2], ("b", "c"): np.zeros((3, 4)),
           ("c", "b"): np.arange(12.0).reshape(4, 3)}
    g = PolymatrixGame(graph, pay)
    assert list(g.n_actions) == [2, 3, 4]
    x = [np.array([0.5, 0.5]), np.ones(3) / 3, np.array([1.0, 0, 0, 0])]
    gaps = g.nash_gap(x)
    assert gaps.shape == (3,)
    # player c: payoff vector is M_cb x_b
    np.testing.assert_allclose(g.payoff_vector(x, "c"), np.arange(12.0).reshape(4, 3) @ x[1])
    assert gaps[2] == pytest.approx(np.max(np.arange(12.0).reshape(4, 3) @ x[1]) - (np.arange(12.0).reshape(4, 3) @ x[1])[0])


def test_zero_sum_detection_general_form():
    g = PolymatrixGame.random(8, 3, p=0.6, payoffs="zero_sum", rng=1)
    assert g.is_zero_sum() and g.is_pairwise_zero_sum()
    # a zero-sum game that is not pairwise zero-sum: move a constant-per-action transfer around a triangle
    graph = nx.cycle_graph(3)
    rng = np.random.default_rng(2)
    pay = {}
    for u, v in graph.edges():
        m = rng.uniform(-1, 1, (2, 2))
        pay[(u, v)] = m
        pay[(v, u)] = -m.T
    f = np.array([0.3, -0.7])
    pay[(0, 1)] = pay[(0, 1)] + f[:, None]       # player 0 gains f(a) on edge 01 ...
    pay[(0, 2)] = pay[(0, 2)] - f[:, None]       # ... and loses it on edge 02
    g2 = PolymatrixGame(graph, pay, zero_sum=True)
    assert g2.is_zero_sum() and not g2.is_pairwise_zero_sum()
    assert not PolymatrixGame.random(8, 3, p=0.6, payoffs="uniform", rng=1).is_zero_sum()


def test_sparse_large_memory_linear():
    g = PolymatrixGame.random(2 ** 14, 3, graph="circulant", degree=6, payoffs="uniform", rng=0)
    assert g.n_edges == 3 * 2 ** 14
    assert np.all(g.degree == 6)
    assert g.nbytes < 2 * g.n_channels * (9 * 8 + 16) + 1
    x = g.uniform_strategy()
    assert g.nash_gap(x).shape == (2 ** 14,)


def test_random_regular_and_graph_input():
    g = PolymatrixGame.random(50, 2, graph="random_regular", degree=4, rng=3)
    assert np.all(g.degree == 4)
    g2 = PolymatrixGame.random(34, 2, graph=nx.karate_club_graph(), rng=3)
    assert g2.n_edges == 78


def test_bad_inputs():
    graph = nx.path_graph(3)
    good = {(0, 1): np.eye(2), (1, 0): np.eye(2), (1, 2): np.eye(2), (2, 1): np.eye(2)}
    with pytest.raises(InputError, match="payoffs"):
        PolymatrixGame(graph, {**good, (0, 2): np.eye(2)})            # non-edge
    with pytest.raises(InputError, match="payoffs"):
        PolymatrixGame(graph, {**good, (1, 2): np.ones((3, 2))})      # inconsistent shape
    with pytest.raises(InputError, match="payoffs"):
        PolymatrixGame(graph, {**good, (1, 2): np.ones(2)})           # not 2-D
    with pytest.raises(InputError, match="payoffs"):
        PolymatrixGame(graph, {k: v for k, v in good.items() if k != (2, 1)})   # missing direction
    with pytest.raises(InputError, match="zero_sum"):
        PolymatrixGame(graph, good, zero_sum=True)                   # coordination is not zero-sum
    with pytest.raises(InputError, match="graph"):
        PolymatrixGame(nx.DiGraph([(0, 1)]), {})
    with pytest.raises(InputError, match="blocks_ij"):
        PolymatrixGame.from_arrays(2, [[0, 1]], np.ones((1, 2, 3)), np.ones((1, 2, 3)))
    with pytest.raises(InputError, match="payoffs"):
        PolymatrixGame.random(5, payoffs="weird")
    with pytest.raises(InputError, match="p"):
        PolymatrixGame.random(5, p=1.5)
    g = PolymatrixGame(graph, good)
    with pytest.raises(InputError, match="x"):
        g.nash_gap(np.array([[0.5, 0.6], [0.5, 0.5], [1, 0]]))        # off the simplex
    with pytest.raises(InputError, match="x"):
        g.nash_gap(np.array([[1.5, -0.5], [0.5, 0.5], [1, 0]]))       # negative
    with pytest.raises(InputError, match="x"):
        g.nash_gap(np.ones((2, 2)) / 2)                               # wrong shape
    with pytest.raises(InputError, match="j"):
        g.payoff(0, 2)


def test_random_is_deterministic():
    a = PolymatrixGame.random(30, 3, p=0.3, rng=7)
    b = PolymatrixGame.random(30, 3, p=0.3, rng=7)
    assert np.array_equal(a.edges, b.edges) and np.array_equal(a._blocks, b._blocks)


def test_private_values_family_keeps_uniform_play_far_from_equilibrium():
    import numpy as np

    from iclr26sci.games import PolymatrixGame

    gaps = []
    for n in (64, 512):
        g = PolymatrixGame.random(n, 3, p=0.5, payoffs="private_values", rng=n)
        assert 0.0 <= g._blocks.min() and g._blocks.max() <= 1.0
        gaps.append(float(g.nash_gap(g.uniform_strategy()).max()))
        iid = PolymatrixGame.random(n, 3, p=0.5, payoffs="uniform", rng=n)
        assert float(iid.nash_gap(iid.uniform_strategy()).max()) < gaps[-1]
    assert min(gaps) > 0.2                    # does not vanish with N (i.i.d.: O(1/sqrt d))
    assert np.isclose(gaps[0], gaps[1], rtol=0.5)


def test_large_erdos_renyi_uses_the_linear_time_sampler():
    import numpy as np

    from iclr26sci.games._game import _er_edges, _pairs_from_linear

    n = 30_000                                # 4.5e8 pairs > 2e8: two-stage draw
    e = _er_edges(n, 2e-6, np.random.default_rng(0))
    assert np.all(e[:, 0] < e[:, 1]) and e.max() < n
    assert len(np.unique(e[:, 0] * n + e[:, 1])) == len(e)
    assert abs(len(e) - 2e-6 * n * (n - 1) / 2) < 6 * np.sqrt(2e-6 * n * (n - 1) / 2)
    for m in (2, 3, 9, 40):
        ref = np.array([(i, j) for i in range(m) for j in range(i + 1, m)])
        assert np.array_equal(_pairs_from_linear(np.arange(m * (m - 1) // 2), m), ref)
