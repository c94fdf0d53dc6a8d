"""Bad input to every public name of iclr26sci.games (beyond the audit rows): a clear InputError naming
the argument, raised before any work."""
from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.games import (
    HardnessWitness,
    PolymatrixGame,
    all_channels_lower_bound,
    cce_gap,
    darp_dynamics,
    distance_lower_bound,
    dominant_flip_witness,
    dp_accounting,
    dp_equilibrium,
    expected_nash_gap,
    lemke_equilibrium,
    regularization,
    solve_equilibrium,
)

BAD_INPUT_EXEMPT = {
    "games.CITATION": "a constant string, takes no input",
    "games.EquilibriumResult": "returned by solve_equilibrium (never built by users); summary/to_dict take no input",
    "games.DPResult": "returned by dp_equilibrium (never built by users); summary/to_dict take no input",
    "games.ExpectedGap": "returned by expected_nash_gap (never built by users); summary/to_dict take no input",
}

G = PolymatrixGame.random(6, 3, p=0.8, rng=0)
ZS = PolymatrixGame.random(6, 3, p=0.8, payoffs="zero_sum", rng=0)
W = dominant_flip_witness()


def raises(arg):
    return pytest.raises(InputError, match=f"`{arg}`")


@pytest.mark.bad_input("games.PolymatrixGame")
def test_constructor():
    p3 = nx.path_graph(3)
    m = np.eye(2)
    ok = {(0, 1): m, (1, 0): m, (1, 2): m, (2, 1): m}
    with raises("graph"):
        PolymatrixGame("not a graph", ok)
    with raises("graph"):
        PolymatrixGame(nx.DiGraph(p3), ok)
    with raises("graph"):
        PolymatrixGame(nx.Graph(), {})
    with raises("payoffs"):
        PolymatrixGame(p3, [m])
    with raises("payoffs"):
        PolymatrixGame(p3, {(0, 1): m})                               # missing directions
    with raises("payoffs"):
        PolymatrixGame(p3, {**ok, (0, 2): m})                          # not an edge
    with raises("payoffs"):
        PolymatrixGame(p3, {**ok, (0, 1): np.full((2, 2), np.nan)})
    with raises("payoffs"):
        PolymatrixGame(p3, {**ok, (0, 1): np.ones((3, 2))})            # inconsistent action counts
    with raises("payoffs"):
        PolymatrixGame(p3, {**ok, "x": m})                             # key is not a pair
    with raises("n_actions"):
        PolymatrixGame(p3, ok, n_actions=3)
    with raises("n_actions"):
        PolymatrixGame(p3, ok, n_actions={"zz": 2})
    with raises("zero_sum"):
        PolymatrixGame(p3, ok, zero_sum=True)                          # coordination is not zero-sum
    with raises("zero_sum"):
        PolymatrixGame(p3, ok, zero_sum="yes")
    with raises("normalize"):
        PolymatrixGame(p3, ok, normalize=1)


@pytest.mark.bad_input("games.PolymatrixGame")
def test_from_arrays_and_random():
    b = np.ones((1, 2, 2))
    with raises("n_players"):
        PolymatrixGame.from_arrays(0, [[0, 1]], b, b)
    with raises("edges"):
        PolymatrixGame.from_arrays(2, [[0, 2]], b, b)
    with raises("edges"):
        PolymatrixGame.from_arrays(2, [[0, 0]], b, b)
    with raises("edges"):
        PolymatrixGame.from_arrays(2, [[0.5, 1]], b, b)
    with raises("blocks_ij"):
        PolymatrixGame.from_arrays(2, [[0, 1]], np.ones((1, 2, 3)), b)
    with raises("blocks_ji"):
        PolymatrixGame.from_arrays(2, [[0, 1]], b, np.full((1, 2, 2), np.inf))
    with raises("blocks_ij"):
        PolymatrixGame.from_arrays(2, [[0, 1]], [[["a", "b"], ["c", "d"]]], b)
    with raises("normalize"):
        PolymatrixGame.from_arrays(2, [[0, 1]], b, b, normalize="no")
    with raises("n_actions"):
        PolymatrixGame.from_arrays(2, [[0, 1]], b, b, n_actions=3)
    with raises("n_players"):
        PolymatrixGame.random(-1)
    with raises("n_actions"):
        PolymatrixGame.random(5, 1)
    with raises("graph"):
        PolymatrixGame.random(5, graph="star")
    with raises("graph"):
        PolymatrixGame.random(5, graph=nx.DiGraph())
    with raises("n_players"):
        PolymatrixGame.random(5, graph=nx.path_graph(4))
    with raises("p"):
        PolymatrixGame.random(5, p=1.5)
    with raises("degree"):
        PolymatrixGame.random(5, graph="circulant", degree=3)
    with raises("degree"):
        PolymatrixGame.random(5, graph="random_regular", degree=3)
    with raises("degree"):
        PolymatrixGame.random(5, graph="circulant", degree=6)
    with raises("payoffs"):
        PolymatrixGame.random(5, payoffs="gaussian")
    with raises("normalize"):
        PolymatrixGame.random(5, normalize="no")
    with raises("rng"):
        PolymatrixGame.random(5, rng="seed")
    with raises("n_players"):                                   # ER at 10^7 players: 2.5e13 edges
        PolymatrixGame.random(10**7, p=0.5)


@pytest.mark.bad_input("games.PolymatrixGame")
def test_methods():
    x = G.uniform_strategy()
    for meth in (G.payoff_vector, G.utility, G.nash_gap, G.best_response):
        with raises("x"):
            meth(np.ones((6, 3)))
        with raises("x"):
            meth(np.ones((5, 3)) / 3)
        with raises("x"):
            meth(np.full((6, 3), np.nan))
        with raises("x"):
            meth("uniform")
        with raises("normalize"):
            meth(x, normalize="no")
    with raises("i"):
        G.payoff_vector(x, 99)
    with raises("i"):
        G.utility(x, [0])
    with raises("i"):
        G.payoff(99, 0)
    nb = G.neighbors(0)
    non = [k for k in range(6) if k not in nb and k != 0]
    if non:
        with raises("j"):
            G.payoff(0, non[0])
    with raises("i"):
        G.neighbors("zz")
    with raises("tol"):
        G.is_zero_sum(tol=-1.0)
    with raises("tol"):
        G.is_pairwise_zero_sum(tol="0")
    with raises("game"):
        PolymatrixGame.random(30, 2, graph="circulant", degree=2, rng=0).to_normal_form()


@pytest.mark.bad_input("games.solve_equilibrium", "games.lemke_equilibrium")
def test_solvers():
    with raises("game"):
        solve_equilibrium(np.eye(2))
    with raises("method"):
        solve_equilibrium(ZS, "simplex")
    with raises("method"):
        solve_equilibrium(G, "lp")                      # general-sum game
    with raises("tol"):
        solve_equilibrium(ZS, tol=0.0)
    with raises("max_pivots"):
        solve_equilibrium(G, max_pivots=0)
    with raises("first_order_iters"):
        solve_equilibrium(ZS, "support", first_order_iters=-1)
    with raises("game"):
        lemke_equilibrium(PolymatrixGame.random(2100, 2, graph="circulant", degree=2, rng=0))
    with raises("max_pivots"):
        lemke_equilibrium(G, max_pivots=True)


@pytest.mark.bad_input("games.dp_equilibrium", "games.dp_accounting")
def test_dp_and_accounting():
    for kw, arg in [({"epsilon": 0.0}, "epsilon"), ({"epsilon": -1.0}, "epsilon"), ({"epsilon": math.inf}, "epsilon"),
                    ({"epsilon": 1.0, "delta": 1.0}, "delta"), ({"epsilon": 1.0, "delta": 0.0}, "delta"),
                    ({"epsilon": 1.0, "noise_scale": 1.0}, "noise_scale"), ({"noise_scale": -1.0}, "noise_scale"),
                    ({"observed_channels": 0}, "observed_channels"), ({"observed_channels": 10**6}, "observed_channels"),
                    ({"rounds": 0}, "rounds"), ({"rounds": 2.5}, "rounds"), ({"step_size": 0.0}, "step_size"),
                    ({"reg_scale": -1.0}, "reg_scale"), ({"reg_exponent": np.nan}, "reg_exponent"),
                    ({"regularizer": "l1"}, "regularizer"), ({"noise": "laplace"}, "noise"),
                    ({"sensitivity": 0.0}, "sensitivity"), ({"track": "yes"}, "track"), ({"rng": -3}, "rng")]:
        with raises(arg):
            dp_equilibrium(G, **kw)
    with raises("game"):
        dp_equilibrium("G", epsilon=1.0)
    with raises("epsilon"):
        dp_accounting(rounds=10)                           # neither epsilon nor noise_scale
    with raises("epsilon"):
        dp_accounting(rounds=10, epsilon=1.0, noise_scale=1.0)
    with raises("rounds"):
        dp_accounting(rounds=0, epsilon=1.0)
    with raises("observed_channels"):
        dp_accounting(rounds=10, observed_channels=0, epsilon=1.0)
    with raises("sensitivity"):
        dp_accounting(rounds=10, sensitivity=-1.0, epsilon=1.0)
    with raises("noise_scale"):
        dp_accounting(rounds=10, noise_scale=0.0)
    with raises("delta"):
        dp_accounting(rounds=10, epsilon=1.0, delta=2.0)


@pytest.mark.bad_input("games.darp_dynamics", "games.regularization", "games.cce_gap", "games.expected_nash_gap")
def test_dynamics_and_gaps():
    lam = regularization(G.degree)
    base = dict(rounds=3, step_size=1.0, lam=lam, sigma=1.0, rng=0)
    with raises("track"):
        darp_dynamics(G, **base, track="no")
    with raises("forced"):
        darp_dynamics(G, **base, forced=(99, np.zeros((1, 3, 3))))
    with raises("forced"):
        darp_dynamics(G, **base, forced=(0, np.zeros((1, 2, 3))))
    with raises("noise_draws"):
        darp_dynamics(G, **base, noise="per_channel", noise_draws=np.zeros((1, 3, 6, 3)))
    with raises("replicates"):
        darp_dynamics(G, **base, replicates=10**12)           # size guard before allocating
    with raises("degree"):
        regularization(np.ones((2, 2)))
    with raises("degree"):
        regularization([-1, 2])
    with raises("reg_exponent"):
        regularization([1, 2], reg_exponent=-0.5)
    with raises("xs"):
        cce_gap(G, np.full((2, 6, 3), 1 / 3) + np.array([0.1, -0.1, 0.0]) * [[[1]], [[-20]]])
    with raises("n_runs"):
        expected_nash_gap(G, n_runs=1, noise_scale=1.0)
    with raises("rng"):
        expected_nash_gap(G, n_runs=2, noise_scale=1.0, rng="x")
    with raises("track"):
        expected_nash_gap(G, n_runs=2, track=False)
    with raises("executor"):
        expected_nash_gap(G, n_runs=2, noise_scale=1.0, rng=0, executor="gpu")
    with raises("game"):
        expected_nash_gap(None, n_runs=2)
    with raises("epsilon"):
        expected_nash_gap(G, n_runs=2, epsilon=-1.0)


@pytest.mark.bad_input("games.dominant_flip_witness", "games.HardnessWitness", "games.distance_lower_bound",
                       "games.all_channels_lower_bound")
def test_hardness():
    for fn in (distance_lower_bound, all_channels_lower_bound):
        with raises("epsilon"):
            fn(-1.0, 0.0)
        with raises("epsilon"):
            fn(np.nan, 0.0)
        with raises("delta"):
            fn(1.0, 1.0)
    with raises("distance"):
        distance_lower_bound(1.0, 0.0, 0.0)
    with raises("separation"):
        all_channels_lower_bound(1.0, 0.0, -2.0)
    with raises("separation"):
        dominant_flip_witness(separation=0.0)
    with raises("dominance"):
        dominant_flip_witness(dominance=-1.0)
    with raises("n_extra"):
        dominant_flip_witness(n_extra=-1)
    with raises("normalize"):
        dominant_flip_witness(normalize="yes")
    fields = dict(game=W.game, neighbor=W.neighbor, private_player=0, follower=1, equilibrium=W.equilibrium,
                  equilibrium_neighbor=W.equilibrium_neighbor, distance=2.0, follower_distance=math.sqrt(2),
                  separation=1.0)
    HardnessWitness(**fields)                                       # the valid one builds
    for k, v in [("game", "G"), ("neighbor", PolymatrixGame.random(3, 2, rng=0)), ("private_player", 5),
                 ("follower", 0), ("follower", -1), ("equilibrium", np.ones((2, 2))),
                 ("equilibrium_neighbor", np.ones(3)), ("distance", -1.0), ("separation", np.nan),
                 ("follower_distance", "x")]:
        with raises(k):
            HardnessWitness(**{**fields, k: v})
    with raises("epsilon"):
        W.distance_bound(-1.0, 0.0)
    with raises("observable"):
        W.distance_bound(1.0, 0.0, observable="everything")
    with raises("delta"):
        W.gap_bound(1.0, 1.5)
    with raises("neighbor"):
        W.follower_gap([0.5, 0.5], neighbor="yes")
    with raises("neighbor"):
        W.follower_distance_to_ne([0.5, 0.5], neighbor=2)
    with raises("y"):
        W.follower_distance_to_ne(3.0)
