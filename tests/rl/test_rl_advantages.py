"""Properties of the group advantages (hypothesis), the binary closed form oracle, torch input, and the peers."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from iclr26sci.rl import (binary_rs_weight, dr_grpo_advantage, group_advantage, grpo_advantage, pass_at_k,
                          passk_training_advantage, pkpo_advantage, rs_advantage)

rewards_st = st.integers(2, 40).flatmap(
    lambda G: arrays(np.float64, G, elements=st.floats(0, 1, allow_nan=False, width=64)))
betas = st.floats(0.05, 10.0)


@given(rewards_st, betas)
def test_rs_zero_sum_bounds_monotone(r, beta):
    A = rs_advantage(r, beta=beta)
    G = r.size
    assert abs(A.sum()) < 1e-10 * max(1.0, G / beta)
    assert np.all(A > -1 / beta - 1e-12) and np.all(A < (G - 1) / beta + 1e-12)
    o = np.argsort(r, kind="stable")
    assert np.all(np.diff(A[o]) >= -1e-12)


@given(rewards_st)
def test_rs_small_beta_is_dr_grpo(r):
    np.testing.assert_allclose(rs_advantage(r, beta=1e-7), r - r.mean(), atol=1e-6)
    np.testing.assert_array_equal(rs_advantage(r, beta=0.0), dr_grpo_advantage(r))


@given(st.integers(1, 40), st.floats(0, 1), betas)
def test_rs_ties_are_zero(G, v, beta):
    assert np.all(rs_advantage(np.full(G, v), beta=beta) == 0.0)


@pytest.mark.parametrize("G", [2, 5, 16, 64])
@pytest.mark.parametrize("beta", [0.5, 2.0, 8.0, -2.0])
def test_rs_binary_closed_form(G, beta):
    for c in range(G + 1):
        r = np.r_[np.ones(c), np.zeros(G - c)]
        p = c / G
        ref = (r - p) * (math.expm1(beta) / (beta * (1 + p * math.expm1(beta))))
        np.testing.assert_allclose(rs_advantage(r, beta=beta), ref, rtol=1e-12, atol=1e-13)


def test_binary_weight_decreasing_and_ratio():
    w = binary_rs_weight(np.linspace(0, 1, 11), 2.0)
    assert np.all(np.diff(w) < 0)
    assert w[0] / w[-1] == pytest.approx(math.exp(2.0), rel=1e-12)


def test_rs_large_rewards_stable():
    A = rs_advantage(np.array([[0.0, 1000.0, 999.0, 5.0]]), beta=50.0)
    assert np.all(np.isfinite(A)) and abs(A.sum()) < 1e-9


def test_groups_unordered_and_uneven_match_per_group():
    rng = np.random.default_rng(0)
    r = rng.random(23)
    ids = rng.integers(0, 5, 23).astype(str)
    A = rs_advantage(r, ids, beta=2.0)
    for g in np.unique(ids):
        m = ids == g
        np.testing.assert_allclose(A[m], rs_advantage(r[m], beta=2.0), atol=1e-14)


def test_singleton_group_is_zero_and_2d_matches_1d():
    assert rs_advantage([0.7, 0.2, 0.9], [0, 1, 1], beta=2.0)[0] == 0.0
    R = np.random.default_rng(1).random((4, 6))
    np.testing.assert_allclose(rs_advantage(R, beta=3.0).reshape(-1),
                               rs_advantage(R.reshape(-1), np.repeat(np.arange(4), 6), beta=3.0), atol=1e-14)


def test_torch_in_torch_out():
    torch = pytest.importorskip("torch")
    r = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.5, 0.5], dtype=torch.float32)
    A = rs_advantage(r, torch.tensor([0, 0, 0, 1, 1, 1]), beta=2.0)
    assert isinstance(A, torch.Tensor) and A.dtype == torch.float32
    np.testing.assert_allclose(A.numpy(), rs_advantage(r.numpy().astype(float), [0, 0, 0, 1, 1, 1], beta=2.0),
                               rtol=1e-6)


def test_grpo_matches_std_formula():
    r = np.array([1.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(grpo_advantage(r, eps=0.0), (r - 0.25) / math.sqrt(0.25 * 0.75))
    np.testing.assert_allclose(grpo_advantage(r, eps=0.0, ddof=1), (r - 0.25) / np.std(r, ddof=1))


def test_group_advantage_dispatch():
    r = [1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    np.testing.assert_array_equal(group_advantage(r, method="rs", beta=1.0), rs_advantage(r, beta=1.0))
    np.testing.assert_array_equal(group_advantage(r, method="pkpo", k=2), pkpo_advantage(r, k=2))


def _enumerate_pkpo_expectation(adv, G, q, k):
    """E[sum_i A_i d/dq log p(r_i)] over all 2^G outcomes (binary reward with P(1) = q)."""
    from itertools import product

    tot = 0.0
    for bits in product([0, 1], repeat=G):
        r = np.array(bits, float)
        p = np.prod(np.where(r == 1, q, 1 - q))
        score = np.where(r == 1, 1 / q, -1 / (1 - q))
        tot += p * float((adv(r) * score).sum())
    return tot


@pytest.mark.parametrize("k", [2, 4])
def test_pkpo_is_unbiased_for_passk_gradient(k):
    G, q = 7, 0.3
    got = _enumerate_pkpo_expectation(lambda r: pkpo_advantage(r, k=k), G, q, k)
    # d/dq pass@k = k (1-q)^(k-1)
    assert got == pytest.approx(k * (1 - q) ** (k - 1), rel=1e-10)


def test_passk_training_matches_formula():
    N, k = 8, 4
    r = np.r_[np.ones(2), np.zeros(6)]
    A = passk_training_advantage(r, k=k)
    Rbar = 1 - math.comb(6, k) / math.comb(N, k)
    sig = math.sqrt(Rbar * (1 - Rbar))
    assert A[0] == pytest.approx((1 - Rbar) / sig)
    assert A[-1] == pytest.approx((1 - Rbar - math.comb(5, k - 1) / math.comb(N - 1, k - 1)) / sig)
    assert np.all(passk_training_advantage(np.ones(8), k=k) == 0)
    # group pass@k identity used above
    assert Rbar == pytest.approx(pass_at_k(2, N, k=k))
