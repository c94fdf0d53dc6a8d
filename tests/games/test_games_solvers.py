import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.games import PolymatrixGame, solve_equilibrium


@pytest.mark.parametrize("n", [5, 20, 60])
def test_lp_zero_sum(n):
    g = PolymatrixGame.random(n, 3, p=0.3, payoffs="zero_sum", rng=n)
    r = solve_equilibrium(g)
    assert r.method == "lp" and r.certified
    assert abs(r.objective) < 1e-7 and r.max_gap < 1e-6
    np.testing.assert_allclose(g.nash_gap(r.strategies), r.nash_gap)


def test_support_route_matches_lp():
    g = PolymatrixGame.random(40, 3, p=0.5, payoffs="zero_sum", rng=4)
    a = solve_equilibrium(g, "support")
    b = solve_equilibrium(g, "lp")
    assert a.max_gap < 1e-6 and b.max_gap < 1e-6
    # random zero-sum games have a unique equilibrium generically
    assert np.abs(np.asarray(a.strategies) - np.asarray(b.strategies)).max() < 1e-5


def test_two_player_matches_nashpy():
    nashpy = pytest.importorskip("nashpy")
    rng = np.random.default_rng(0)
    for _ in range(5):
        m = rng.uniform(-1, 1, (4, 4))
        g = PolymatrixGame.from_arrays(2, [[0, 1]], m[None], -m.T[None], normalize=False)
        x = np.asarray(solve_equilibrium(g).strategies)
        value = x[0] @ m @ x[1]
        eqs = list(nashpy.Game(m, -m).support_enumeration())
        if eqs:
            sr, sc = eqs[0]
            assert value == pytest.approx(sr @ m @ sc, abs=1e-8)


@pytest.mark.parametrize("seed", range(12))
def test_lemke_general_sum(seed):
    n = 3 + seed % 4
    g = PolymatrixGame.random(n, 2 + seed % 2, p=0.8, payoffs="uniform", rng=seed)
    r = solve_equilibrium(g)
    assert r.method == "lemke" and r.info["status"] == "solved"
    assert r.max_gap < 1e-8


def test_lemke_on_zero_sum_and_unequal_actions():
    import networkx as nx

    g = PolymatrixGame.random(6, 3, p=0.6, payoffs="zero_sum", rng=1)
    assert solve_equilibrium(g, "lemke").max_gap < 1e-8
    graph = nx.path_graph(3)
    rng = np.random.default_rng(1)
    shapes = {0: 2, 1: 3, 2: 4}
    pay = {(u, v): rng.random((shapes[u], shapes[v])) for u in graph for v in graph.neighbors(u)}
    h = PolymatrixGame(graph, pay)
    r = solve_equilibrium(h)
    assert r.max_gap < 1e-8 and isinstance(r.strategies, list) and len(r.strategies[2]) == 4


def test_solver_bad_input():
    g = PolymatrixGame.random(5, 2, p=0.8, payoffs="uniform", rng=0)
    with pytest.raises(InputError, match="method"):
        solve_equilibrium(g, "lp")            # not zero-sum
    with pytest.raises(InputError, match="method"):
        solve_equilibrium(g, "simplex")
    with pytest.raises(InputError, match="tol"):
        solve_equilibrium(g, tol=0)
    with pytest.raises(InputError, match="game"):
        solve_equilibrium(np.eye(2))


def test_results_accepted_as_strategies():
    g = PolymatrixGame.random(10, 3, p=0.5, payoffs="zero_sum", rng=2)
    r = solve_equilibrium(g)
    assert g.nash_gap(r).max() < 1e-6


def test_large_lp_interior_point_path():
    g = PolymatrixGame.random(120, 3, p=0.5, payoffs="zero_sum", rng=9)
    assert g._src.size * 9 > 50_000          # takes the interior-point route
    r = solve_equilibrium(g)
    assert r.certified and r.max_gap < 1e-6 and abs(r.objective) < 1e-6
