"""pass_at_k: exact values, unbiasedness (exact binomial sum), vectorisation."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from iclr26sci.rl import pass_at_k


def test_matches_binomial_formula():
    rng = np.random.default_rng(0)
    n = rng.integers(1, 200, 300)
    c = rng.integers(0, n + 1)
    for k in (1, 3, 10):
        ok = n >= k
        got = pass_at_k(c[ok], n[ok], k=k, per_problem=True)
        ref = [1 - math.comb(int(nn - cc), k) / math.comb(int(nn), k) for nn, cc in zip(n[ok], c[ok])]
        np.testing.assert_allclose(got, ref, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("k", [1, 4, 16, 64])
def test_exactly_unbiased(k):
    n, q = 64, 0.07
    cs = np.arange(n + 1)
    assert binom.pmf(cs, n, q) @ pass_at_k(cs, n, k=k, per_problem=True) == pytest.approx(1 - (1 - q) ** k, abs=1e-12)


def test_list_of_k_and_mean():
    out = pass_at_k([0, 2, 16], 16, k=[1, 16])
    assert out.shape == (2,) and out[1] == pytest.approx(2 / 3)
    assert pass_at_k([0, 2, 16], 16, k=1) == pytest.approx(18 / 48)
    assert pass_at_k(np.array([3]), 10, k=[2, 4], per_problem=True).shape == (1, 2)


def test_large_n_no_overflow():
    assert 0 < pass_at_k(1, 10_000, k=1024) < 1
