"""Power of the games validation checks: each check's own statistic, computed on a deliberately broken
variant of the method, must fail (and the correct method must pass in the same setting).

The broken variants are injected through the checks' helpers in validation/games.py, so the statistic
and threshold are exactly the check's. Fast ones run in `make test`; the costly ones are marked slow.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import validation.games as vg
from iclr26sci.games import PolymatrixGame, darp_dynamics, dominant_flip_witness, dp_accounting, solve_equilibrium
from validation.registry import Profile

Q = Profile("quick")


def rng(seed=0):
    return np.random.default_rng(seed)


def test_a01_catches_a_gap_formula_without_degree_normalisation():
    ok, _ = vg._gap_formula_diffs(rng(), 12)
    bad, _ = vg._gap_formula_diffs(rng(), 12, gap_fn=lambda g, x: g.nash_gap(x, normalize=False))
    assert ok <= 1e-12 < bad
    assert bad > 1e-3


def _negated(game):
    h = PolymatrixGame.__new__(PolymatrixGame)
    h.__dict__.update(game.__dict__)
    h._blocks = -game._blocks
    h._big = None
    return h


def test_a02_catches_an_lp_that_solves_for_the_wrong_sign():
    obj, gap, dv, _, _ = vg._lp_zero_sum(Q, rng())
    assert obj <= 1e-7 and gap <= 1e-6 and dv <= 1e-8
    _, gap_b, dv_b, _, _ = vg._lp_zero_sum(Q, rng(), solve=lambda g: solve_equilibrium(_negated(g), "lp"))
    assert gap_b > 1e-6 and dv_b > 1e-8


def _swapped(game):
    """Every player gets its neighbour's payoffs (M_ij -> M_ji^T): a different game."""
    h = PolymatrixGame.__new__(PolymatrixGame)
    h.__dict__.update(game.__dict__)
    n = game._n
    key = game._src * n + game._dst
    rev = np.searchsorted(key, game._dst * n + game._src)
    h._blocks = np.transpose(game._blocks[rev], (0, 2, 1)).copy()
    h._big = None
    return h


def test_a03_catches_a_wrong_solver_and_a_missing_reference():
    frac, ref, _, match, _, _ = vg._lemke_check(Q, rng())
    assert frac >= 0.99 and ref <= 1e-8 and match == 1.0
    frac_b, ref_b, _, match_b, _, _ = vg._lemke_check(Q, rng(), solve=lambda g: solve_equilibrium(_swapped(g),
                                                                                                "lemke"))
    assert frac_b < 0.99 and ref_b > 1e-8 and match_b < 1.0
    # a reference that did not run gives NaN, and a NaN criterion fails the check
    _, ref_nan, _, _, _, _ = vg._lemke_check(Q, rng(), reference=lambda g, x: float("nan"))
    from validation.registry import CheckResult, Criterion

    res = CheckResult(criteria=[Criterion("fraction", 1.0, 0.99, ">="), Criterion("reference", ref_nan, 1e-8, "<=")])
    assert math.isnan(ref_nan) and not res.passed


def test_a03_independent_regret_matches_the_library_on_mixed_profiles():
    g = PolymatrixGame.random(4, 3, p=0.8, rng=3)
    x = rng(1).dirichlet(np.ones(3), size=4)
    assert vg._enumerated_regret(g, x) == pytest.approx(float(g.nash_gap(x).max()), abs=1e-12)


def test_a04_catches_a_sign_error_in_the_gdp_profile():
    from scipy.stats import norm

    def wrong(mu, eps):
        return norm.cdf(-eps / mu + mu / 2) + math.exp(eps) * norm.cdf(-eps / mu - mu / 2)

    ok, ok_z, _ = vg._accountant_errors(rng(), 200_000)
    bad, bad_z, _ = vg._accountant_errors(rng(), 200_000, delta_fn=wrong)
    assert ok <= 0.02 and bad > 0.01 and bad_z > 4


def test_a05_catches_an_accountant_that_forgets_composition_over_rounds():
    from iclr26sci.prob import gdp_mu

    def no_composition(rounds, epsilon, delta):
        sigma = math.sqrt(2) / gdp_mu(epsilon, delta)        # as if one round were released
        return math.sqrt(2) / sigma, sigma

    worst_mu, _, _, _ = vg._privacy_audit(Q, rng(), runs=300)
    bad_mu, bad_eps, _, _ = vg._privacy_audit(Q, rng(), accountant=no_composition, runs=300)
    assert worst_mu <= 1.0 < bad_mu
    assert bad_eps > 0.0 or bad_mu > 1.0


@pytest.mark.slow
def test_a06_a07_catch_a_grossly_undernoised_output():
    w = dominant_flip_witness()

    def cal(rounds, c, eps, delta):      # noise 100x too small for the claimed epsilon
        return 0.01 * dp_accounting(rounds=rounds, observed_channels=c, epsilon=eps, delta=delta).sigma

    _, dist = vg._hardness_sweep(w, 500, rng(), "dist", lambda y, nb: w.follower_distance_to_ne(y, neighbor=nb),
                                 w.distance_bound, calibrate=cal)
    _, gap = vg._hardness_sweep(w, 500, rng(), "gap", lambda y, nb: w.follower_gap(y, neighbor=nb), w.gap_bound,
                                calibrate=cal)
    assert dist < 0 and gap < 0


def test_a08_catches_a_proximal_step_without_damping():
    g = PolymatrixGame.random(64, 3, p=0.5, rng=0)

    def undamped(game, *, lam, **kw):
        return darp_dynamics(game, lam=np.zeros_like(lam), **kw)

    resid_ok, gap_ok = vg._noiseless(g, 0.5, 500)
    resid_b, _ = vg._noiseless(g, 0.5, 500, dynamics=undamped)
    assert resid_ok <= 1e-8 < resid_b
    assert gap_ok <= 0.5 * math.log(3)


@pytest.mark.slow
def test_a09_catches_noise_that_is_not_averaged_over_neighbours():
    slope_ok, ratio_ok, draws, _ = vg._noise_averaging(Q, rng())
    slope_b, ratio_b, _, _ = vg._noise_averaging(
        Q, rng(), noise_fn=lambda blocks, xi, d: np.einsum("eab,reb->ra", blocks, xi) / math.sqrt(d))
    assert -0.55 <= slope_ok <= -0.45 and ratio_ok <= 4 / math.sqrt(2 * draws) * 1.5
    assert not (-0.55 <= slope_b <= -0.45)


@pytest.mark.slow
def test_a10_catches_noise_growing_too_fast_on_private_values():
    rows = vg._scaling(Q, rng(), "erdos_renyi", runs=2, family="private_values",
                       sigma_fn=lambda n: 0.5 * n ** 0.75)
    slope, _ = vg._dense_criteria(rows)
    assert slope > 0.0
    # the i.i.d. family alone could not tell: its gap falls even with that noise
    rows_iid = vg._scaling(Q, rng(), "erdos_renyi", sigma_fn=lambda n: 0.5 * n ** 0.75)
    assert vg._dense_criteria(rows_iid)[0] < 0.0


@pytest.mark.slow
def test_a11_catches_noise_growing_too_fast_and_constant_noise():
    rows = vg._scaling(Q, rng(), "circulant", sigma_fn=lambda n: 0.5 * n ** 0.75)
    assert abs(vg._sparse_criteria(rows)[0]) >= 0.05
    rows_c = vg._scaling(Q, rng(), "circulant", sigma_fn=lambda n: 2.0)
    assert vg._sparse_criteria(rows_c)[1] <= 0.0           # epsilon does not fall


def test_a12_catches_an_exact_solver_that_returns_a_non_equilibrium():
    class Uniform:
        def __init__(self, g):
            self.strategies = g.uniform_strategy()

    small = Profile("quick")
    rows = vg._zero_sum_rows(small, rng(), solve=Uniform, runs=2)
    assert max(r["exact NE gap"] for r in rows) >= 1e-6
