import math

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.games import (
    PolymatrixGame,
    cce_gap,
    dominant_flip_witness,
    dp_accounting,
    dp_equilibrium,
    expected_nash_gap,
    solve_equilibrium,
)
from iclr26sci.prob import gdp_delta


@pytest.fixture(scope="module")
def game():
    return PolymatrixGame.random(64, 3, p=0.5, payoffs="uniform", rng=0)


def test_calibration_round_trip(game):
    res = dp_equilibrium(game, epsilon=1.0, delta=1e-5, observed_channels=3, rounds=20, rng=0)
    assert res.epsilon == pytest.approx(1.0, rel=1e-8)
    # mu = sqrt(2) sqrt(c T) / sigma, and delta(eps; mu) = delta
    assert res.mu == pytest.approx(math.sqrt(2) * math.sqrt(3 * 20) / res.sigma)
    assert gdp_delta(res.mu, 1.0) == pytest.approx(1e-5, rel=1e-6)
    back = dp_equilibrium(game, noise_scale=res.sigma, delta=1e-5, observed_channels=3, rounds=20, rng=0)
    assert back.epsilon == pytest.approx(1.0, rel=1e-6)
    assert "channel" in res.accounting.description


def test_more_noise_less_epsilon():
    eps = [dp_accounting(rounds=60, noise_scale=s, delta=1e-5).epsilon for s in (5, 10, 20, 40)]
    assert all(a > b for a, b in zip(eps, eps[1:]))
    e1 = dp_accounting(rounds=60, observed_channels=1, noise_scale=10).epsilon
    e4 = dp_accounting(rounds=60, observed_channels=4, noise_scale=10).epsilon
    e_t = dp_accounting(rounds=240, observed_channels=1, noise_scale=10).epsilon
    assert e4 > e1 and e4 == pytest.approx(e_t)


def test_determinism_and_history(game):
    a = dp_equilibrium(game, noise_scale=1.0, rounds=10, rng=3)
    b = dp_equilibrium(game, noise_scale=1.0, rounds=10, rng=3)
    assert np.array_equal(a.strategies, b.strategies)
    assert a.history["max_gap"].shape == (11,)
    assert a.history["max_gap"][-1] == pytest.approx(a.nash_gap.max())
    np.testing.assert_allclose(a.strategies.sum(axis=1), 1.0)


def test_noiseless_fixed_point_gap_bound(game):
    lam = 1.0
    res = dp_equilibrium(game, noise_scale=0.0, rounds=300, reg_scale=lam, reg_exponent=0.0, rng=0)
    assert res.epsilon == math.inf
    # the fixed point is x_i = softmax(g_i / lam): gap <= lam log A
    assert res.nash_gap.max() <= lam * math.log(3) + 1e-9
    h = res.history["max_gap"]
    assert abs(h[-1] - h[-2]) < 1e-10


def test_euclidean_and_per_channel(game):
    r1 = dp_equilibrium(game, noise_scale=0.5, rounds=10, regularizer="euclidean", rng=0)
    r2 = dp_equilibrium(game, noise_scale=0.5, rounds=10, noise="per_channel", rng=0)
    for r in (r1, r2):
        x = np.asarray(r.strategies)
        assert np.all(x >= 0) and np.allclose(x.sum(axis=1), 1)


def test_expected_gap_executor_independent(game):
    a = expected_nash_gap(game, n_runs=4, rng=5, noise_scale=1.0, rounds=10, executor="serial")
    b = expected_nash_gap(game, n_runs=4, rng=5, noise_scale=1.0, rounds=10, executor="local", n_workers=2)
    assert a.cce_gap.value == pytest.approx(b.cce_gap.value, abs=1e-14)
    assert a.cce_gap.value <= a.mean_max_gap.value + 1e-12      # Jensen


def test_cce_gap_of_point_mass_is_nash_gap(game):
    x = np.random.default_rng(0).dirichlet(np.ones(3), size=64)
    assert cce_gap(game, x[None]) == pytest.approx(game.nash_gap(x).max())


def test_hardness_witness():
    w = dominant_flip_witness()
    x0 = np.asarray(solve_equilibrium(w.game).strategies)
    x1 = np.asarray(solve_equilibrium(w.neighbor).strategies)
    np.testing.assert_allclose(x0, w.equilibrium, atol=1e-9)
    np.testing.assert_allclose(x1, w.equilibrium_neighbor, atol=1e-9)
    assert w.distance == pytest.approx(2.0)
    assert w.distance_bound(0.0, 0.0, observable="all") == pytest.approx(0.5)
    assert w.gap_bound(0.0, 0.0) == pytest.approx(0.5)
    big = dominant_flip_witness(n_extra=3)
    xb = np.asarray(solve_equilibrium(big.game).strategies)
    assert big.game.nash_gap(xb).max() < 1e-8


def test_dp_bad_inputs(game):
    with pytest.raises(InputError, match="epsilon"):
        dp_equilibrium(game, epsilon=0.0)
    with pytest.raises(InputError, match="epsilon"):
        dp_equilibrium(game, epsilon=-1.0)
    with pytest.raises(InputError, match="delta"):
        dp_equilibrium(game, epsilon=1.0, delta=1.0)
    with pytest.raises(InputError, match="delta"):
        dp_equilibrium(game, epsilon=1.0, delta=0.0)
    with pytest.raises(InputError, match="observed_channels"):
        dp_equilibrium(game, epsilon=1.0, observed_channels=game.n_channels + 1)
    with pytest.raises(InputError, match="noise_scale"):
        dp_equilibrium(game, epsilon=1.0, noise_scale=2.0)
    with pytest.raises(InputError, match="regularizer"):
        dp_equilibrium(game, regularizer="l1")
    with pytest.raises(InputError, match="n_runs"):
        expected_nash_gap(game, n_runs=1)
