"""The dense interior point on the equilibrium LCP (method="ipm") against the HiGHS LP."""
import networkx as nx
import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.games import PolymatrixGame, solve_equilibrium
from iclr26sci.games import _exact


def _flat(s):
    return np.concatenate([np.ravel(v) for v in s]) if isinstance(s, list) else np.ravel(s)


@pytest.mark.parametrize("seed", range(4))
def test_ipm_matches_lp_dense(seed):
    g = PolymatrixGame.random(60, 3, p=0.5, payoffs="zero_sum", rng=seed)
    a = solve_equilibrium(g, "ipm")
    b = solve_equilibrium(g, "lp")
    assert a.method == "ipm" and a.certified and a.max_gap < 1e-6
    np.testing.assert_allclose(g.nash_gap(a.strategies), a.nash_gap)
    # random zero-sum games have a unique equilibrium generically; the polished answer is exact
    if a.info.get("polished"):
        assert a.max_gap < 1e-10
        assert np.abs(_flat(a.strategies) - _flat(b.strategies)).max() < 1e-7
    else:
        assert np.abs(_flat(a.strategies) - _flat(b.strategies)).max() < 1e-2


def test_auto_uses_ipm_on_dense_games_and_lp_on_sparse():
    dense = PolymatrixGame.random(120, 3, p=0.5, payoffs="zero_sum", rng=7)
    r = solve_equilibrium(dense)
    assert r.method == "ipm" and r.certified
    assert abs(r.objective) < 1e-6
    sparse = PolymatrixGame.random(3000, 3, graph="circulant", degree=4, payoffs="zero_sum", rng=1)
    assert not _exact._dense_enough(sparse)
    small = PolymatrixGame.random(20, 3, p=0.3, payoffs="zero_sum", rng=1)
    assert solve_equilibrium(small).method == "lp"


def test_ipm_non_pairwise_zero_sum():
    # zero-sum but not pairwise: each player gains f on one edge and loses it on another, so the
    # payoff matrix is not skew-symmetric; x'Mx still vanishes on the product of simplices.
    rng = np.random.default_rng(3)
    graph = nx.erdos_renyi_graph(30, 0.5, seed=3)
    pay = {}
    for u, v in graph.edges():
        m = rng.uniform(-1, 1, (3, 3))
        pay[(u, v)], pay[(v, u)] = m, -m.T
    for u in graph:
        nb = list(graph.neighbors(u))
        if len(nb) >= 2:
            f = rng.uniform(-1, 1, 3)
            pay[(u, nb[0])] = pay[(u, nb[0])] + f[:, None]
            pay[(u, nb[1])] = pay[(u, nb[1])] - f[:, None]
    g = PolymatrixGame(graph, pay, zero_sum=True)
    assert not g.is_pairwise_zero_sum()
    r = solve_equilibrium(g, "ipm")
    assert r.method == "ipm" and r.max_gap < 1e-6
    assert np.abs(_flat(r.strategies) - _flat(solve_equilibrium(g, "lp").strategies)).max() < 1e-2


def test_ipm_unequal_actions_isolated_player_and_two_players():
    rng = np.random.default_rng(1)
    graph = nx.path_graph(4)
    graph.add_node(4)
    shapes = {0: 2, 1: 3, 2: 4, 3: 1, 4: 3}
    pay = {}
    for u, v in graph.edges():
        m = rng.uniform(-1, 1, (shapes[u], shapes[v]))
        pay[(u, v)], pay[(v, u)] = m, -m.T
    g = PolymatrixGame(graph, pay, n_actions=shapes)
    r = solve_equilibrium(g, "ipm")
    assert r.max_gap < 1e-6 and isinstance(r.strategies, list) and len(r.strategies[2]) == 4
    m = rng.uniform(-1, 1, (40, 40))
    g2 = PolymatrixGame.from_arrays(2, [[0, 1]], m[None], -m.T[None], normalize=False)
    x = np.asarray(solve_equilibrium(g2, "ipm").strategies)
    y = np.asarray(solve_equilibrium(g2, "lp").strategies)
    assert x[0] @ m @ x[1] == pytest.approx(y[0] @ m @ y[1], abs=1e-8)


def test_ipm_falls_back_to_lp(monkeypatch):
    g = PolymatrixGame.random(30, 3, p=0.5, payoffs="zero_sum", rng=2)
    monkeypatch.setattr(_exact, "_ipm_route", lambda game, tol: (None, {"status": "iteration cap"}))
    r = solve_equilibrium(g, "ipm")
    assert r.method == "lp" and r.certified and "interior point" in r.info["fallback"]


def test_support_falls_back_to_ipm_on_dense_games():
    g = PolymatrixGame.random(120, 3, p=0.5, payoffs="zero_sum", rng=5)
    r = solve_equilibrium(g, "support", first_order_iters=5)   # too few iterations to certify
    assert r.method == "ipm" and r.certified and "interior point" in r.info["fallback"]


def test_ipm_needs_zero_sum():
    g = PolymatrixGame.random(6, 3, p=0.8, payoffs="uniform", rng=0)
    with pytest.raises(InputError, match="method"):
        solve_equilibrium(g, "ipm")


def test_ipm_single_action_players_only():
    z = np.zeros((1, 1, 1))
    g = PolymatrixGame.from_arrays(2, [[0, 1]], z, z)
    r = solve_equilibrium(g, "ipm")
    assert r.method == "ipm" and r.certified
    np.testing.assert_allclose(np.asarray(r.strategies), 1.0)


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@given(n=st.integers(2, 14), a=st.integers(2, 4), p=st.floats(0.2, 1.0), seed=st.integers(0, 10_000))
def test_ipm_certifies_every_zero_sum_game(n, a, p, seed):
    g = PolymatrixGame.random(n, a, p=p, payoffs="zero_sum", rng=seed)
    r = solve_equilibrium(g, "ipm")
    assert r.method == "ipm" and r.certified and r.max_gap < 1e-6   # no fallback to the LP
    np.testing.assert_allclose(g.nash_gap(r.strategies), r.nash_gap, atol=1e-12)
