"""The interior point on the equilibrium LCP with sparse Newton steps, and the cost-model route (issue 44)."""
import numpy as np
import pytest

from iclr26sci.games import PolymatrixGame, solve_equilibrium
from iclr26sci.games import _exact, _lcp_ipm


def _flat(s):
    return np.concatenate([np.ravel(v) for v in s]) if isinstance(s, list) else np.ravel(s)


@pytest.mark.parametrize("seed", range(3))
def test_sparse_backend_matches_dense_and_highs(seed):
    g = PolymatrixGame.random(400, 3, graph="circulant", degree=6, payoffs="zero_sum", rng=seed)
    xs, info_s = _exact._ipm_route(g, 1e-8, backend="sparse")
    xd, info_d = _exact._ipm_route(g, 1e-8, backend="dense")
    lp = solve_equilibrium(g, "lp", tol=1e-8)
    assert xs is not None and xd is not None and lp.certified
    assert "sparse" in info_s["solver"] and "dense" in info_d["solver"]
    assert g.nash_gap(g._unpad(xs)).max() < 1e-8
    # random zero-sum games have a unique equilibrium generically: all three agree
    assert np.abs(_flat(g._unpad(xs)) - _flat(lp.strategies)).max() < 1e-5
    assert np.abs(xs - xd).max() < 1e-5


def test_auto_route_on_a_sparse_game_is_the_sparse_interior_point():
    g = PolymatrixGame.random(3000, 3, graph="circulant", degree=6, payoffs="zero_sum", rng=1)
    assert _lcp_ipm.choose_backend(g) == "sparse" and not _exact._dense_enough(g)
    r = solve_equilibrium(g, tol=1e-8)
    assert r.method == "ipm" and r.certified and r.max_gap < 1e-8
    assert r.info["solver"].startswith("sparse")
    np.testing.assert_allclose(g.nash_gap(r.strategies), r.nash_gap, atol=1e-12)


def test_no_size_switch_to_highs_for_dense_games():
    # N = 2001, A = 3: sum A_i = 6003 was past the old size switch (6000) to HiGHS (417.6 s against 25 s)
    g = PolymatrixGame.random(2001, 3, p=0.5, payoffs="zero_sum", rng=0)
    c = _lcp_ipm.predicted_costs(g)
    assert c["dense_s"] < c["sparse_s"]
    if c["dense_fits"]:
        assert _lcp_ipm.choose_backend(g) == "dense" and _exact._dense_enough(g)


def test_cost_model_is_smooth_in_n():
    # the predicted time of the chosen route never jumps by more than 2x between neighbouring sizes
    prev = None
    for n in (150, 151, 180, 181, 210):
        g = PolymatrixGame.random(n, 3, p=0.5, payoffs="zero_sum", rng=n)
        c = _lcp_ipm.predicted_costs(g)
        t = min(c["dense_s"], c["sparse_s"])
        if prev is not None:
            assert t / prev < 2.0
        prev = t


def test_memory_is_respected(monkeypatch):
    g = PolymatrixGame.random(200, 3, p=0.5, payoffs="zero_sum", rng=3)
    monkeypatch.setattr(_lcp_ipm, "available_bytes", lambda: 1.0)
    assert _lcp_ipm.choose_backend(g) is None
    r = solve_equilibrium(g)
    assert r.method == "lp" and r.certified and "memory" in r.info["fallback"]


def test_reduced_support_solve_recovers_the_equilibrium():
    g = PolymatrixGame.random(60, 3, p=0.5, payoffs="zero_sum", rng=5)
    lp = solve_equilibrium(g, "lp", tol=1e-9)
    x = np.asarray(lp.strategies).ravel()
    owner = np.repeat(np.arange(60), 3)
    cand = _lcp_ipm.reduced_support_solve(g._matrix(), owner, 60, x > 1e-9)
    assert cand is not None
    assert g.nash_gap(cand.reshape(60, 3)).max() < 1e-10
    # a player without support is refused
    supp = x > 1e-9
    supp[:3] = False
    assert _lcp_ipm.reduced_support_solve(g._matrix(), owner, 60, supp) is None


def test_unequal_actions_sparse_backend():
    import networkx as nx

    rng = np.random.default_rng(2)
    graph = nx.cycle_graph(40)
    shapes = {u: int(rng.integers(1, 5)) for u in graph}
    pay = {}
    for u, v in graph.edges():
        m = rng.uniform(-1, 1, (shapes[u], shapes[v]))
        pay[(u, v)], pay[(v, u)] = m, -m.T
    g = PolymatrixGame(graph, pay, n_actions=shapes)
    xs, info = _exact._ipm_route(g, 1e-8, backend="sparse")
    assert xs is not None and g.nash_gap(g._unpad(xs)).max() < 1e-8
