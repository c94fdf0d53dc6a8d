"""iclr26sci.testing.strategies: every strategy draws valid, reproducible objects of bounded size."""
from __future__ import annotations

import numpy as np
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from iclr26sci.testing import strategies as st

FAST = settings(max_examples=10, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.polymatrix_games())
def test_games(g):
    assert 2 <= g.n_players <= 6
    x = g.uniform_strategy()
    assert np.all(np.asarray(g.nash_gap(x)) >= -1e-12)


@FAST
@given(st.polymatrix_games(payoffs=("zero_sum",), graphs=("circulant",), n_players=(5, 8)))
def test_sparse_zero_sum_games(g):
    assert g.is_pairwise_zero_sum() and int(g.degree.max()) == 4


@FAST
@given(st.confounded_data(n=(40, 80)))
def test_confounded_bounds_bracket_the_conditional_mean(p):
    assert p.data.n == p.truth["Y_potential"].shape[0]
    assert np.all(p.capo_lower <= p.truth["m"] + 1e-9) and np.all(p.truth["m"] <= p.capo_upper + 1e-9)


@FAST
@given(st.tabular_mdps(expert=("markov", "risk_sensitive", "nonmarkov")))
def test_mdps(pair):
    mdp, pi = pair
    assert mdp.n_states <= 5 and mdp.horizon <= 4 and pi is not None


@FAST
@given(st.rotations(), st.rigid_transforms())
def test_rotations_and_rigid(R, T):
    assert np.allclose(R.T @ R, np.eye(3)) and np.isclose(np.linalg.det(R), 1)
    assert np.allclose(T[:3, :3].T @ T[:3, :3], np.eye(3))


@FAST
@given(st.cameras())
def test_cameras_see_the_origin(cam):
    uv, z = cam.project(torch.zeros(1, 3, dtype=torch.float64))
    assert float(z[0]) > 0 and 0 <= float(uv[0, 0]) <= cam.width


@FAST
@given(st.psd_matrices(singular=True), st.simplex_points(allow_zeros=True))
def test_psd_and_simplex(S, p):
    assert np.linalg.eigvalsh(S).min() > -1e-8 and np.isclose(p.sum(), 1) and p.min() >= 0


@FAST
@given(st.reward_groups(), st.gaussian_tilts())
def test_rewards_and_tilts(r, t):
    assert r.ndim == 2 and r.shape[1] >= 2
    assert np.isfinite(t.tilt_mean()).all() and t.tilt_var() > 0


def test_draws_are_reproducible():
    a = st.psd_matrices(dim=3).map(lambda s: s.tobytes())
    got = []
    for _ in range(2):
        out = []

        @settings(max_examples=5, derandomize=True, database=None)
        @given(a)
        def t(x):
            out.append(x)
        t()
        got.append(out)
    assert got[0] == got[1]
