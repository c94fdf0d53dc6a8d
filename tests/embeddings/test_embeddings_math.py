"""UEC mathematics: coefficients, convolution, similarities, limits, properties, input errors."""
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from iclr26sci.core import InputError
from iclr26sci.embeddings import (
    GaussianEmbeddings, dot_variance, gaussian_convolution, normalize_gaussian, total_precision,
    uec_coefficients, uncertainty_similarity, uec_combine,
)
from iclr26sci.prob import DiagonalGaussian


def _rand(rng, K=3, n=5, D=8):
    M = rng.standard_normal((K, n, D))
    V = rng.uniform(0.01, 1.0, (K, n, D))
    return M, V


def test_dot_variance_matches_prob_and_loop(rng):
    mq, vq = rng.standard_normal((4, 6)), rng.uniform(0, 1, (4, 6))
    mc, vc = rng.standard_normal((3, 6)), rng.uniform(0, 1, (3, 6))
    V = dot_variance(mq, vq, mc, vc)
    for i in range(4):
        for j in range(3):
            ref = DiagonalGaussian(mq[i], vq[i]).dot_variance(DiagonalGaussian(mc[j], vc[j]))
            loop = sum(mq[i, d] ** 2 * vc[j, d] + vq[i, d] * mc[j, d] ** 2 + vq[i, d] * vc[j, d] for d in range(6))
            assert V[i, j] == pytest.approx(float(ref), rel=1e-12)
            assert V[i, j] == pytest.approx(loop, rel=1e-12)


def test_convolution_matches_prob_weighted_sum(rng):
    M, V = _rand(rng)
    pi = rng.dirichlet(np.ones(3), size=5)
    g = gaussian_convolution(M, V, pi)
    ref = DiagonalGaussian.weighted_sum([DiagonalGaussian(M[k], V[k]) for k in range(3)], pi)
    np.testing.assert_allclose(g.mean, ref.mean, rtol=1e-12)
    np.testing.assert_allclose(g.var, ref.var, rtol=1e-12)
    np.testing.assert_allclose(g.coefficients, pi)


def test_coefficients_softmax_of_total_precision(rng):
    _, V = _rand(rng)
    pi = uec_coefficients(V, temperature=50.0)
    lam = (1.0 / (V + 1e-30)).sum(-1).T
    e = np.exp((lam - lam.max(1, keepdims=True)) / 50.0)
    np.testing.assert_allclose(pi, e / e.sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(total_precision(V, reduce="mean"), lam.T / V.shape[-1])
    np.testing.assert_allclose(uec_coefficients(V, 50.0, reduce="mean"),
                               uec_coefficients(V, 50.0 * V.shape[-1]), rtol=1e-12)


def test_limits(rng):
    M, V = _rand(rng)
    # T -> inf: uniform ensemble exactly
    pi = uec_coefficients(V, np.inf)
    assert np.all(pi == 1.0 / 3)
    g = uec_combine(M, V, np.inf)
    np.testing.assert_array_equal(g.mean, np.einsum("nk,knd->nd", pi, M))
    # beta = 0: plain dot / cosine
    q, d = (M[0], V[0]), (M[1], V[1])
    np.testing.assert_array_equal(uncertainty_similarity(q, d, beta=0.0, form="probit"), M[0] @ M[1].T)
    cos = (M[0] / np.linalg.norm(M[0], axis=1, keepdims=True)) @ (M[1] / np.linalg.norm(M[1], axis=1, keepdims=True)).T
    np.testing.assert_allclose(uncertainty_similarity(q, d, beta=0.0, form="mteb"), cos, rtol=1e-12)
    # zero variance: deterministic result for any beta
    z0 = (M[0], np.zeros_like(M[0])), (M[1], np.zeros_like(M[1]))
    np.testing.assert_array_equal(uncertainty_similarity(*z0, beta=5.0), M[0] @ M[1].T)


def test_similarity_forms_closed_form(rng):
    M, V = _rand(rng, K=2, n=3, D=5)
    q, d = GaussianEmbeddings(M[0], V[0]), GaussianEmbeddings(M[1], V[1])
    Vq = dot_variance(M[0], V[0], M[1], V[1])
    sA = uncertainty_similarity(q, d, beta=0.3, form="probit")
    np.testing.assert_allclose(sA, (M[0] @ M[1].T) / np.sqrt(1 + np.pi / 8 * 0.3 * Vq))
    sB = uncertainty_similarity(q, d, beta=0.3, form="mteb")
    cos = uncertainty_similarity(q, d, beta=0.0, form="mteb")
    np.testing.assert_allclose(sB, cos / (1 + 0.3 / np.pi * Vq))


def test_normalisations(rng):
    m, v = rng.standard_normal((4, 6)), rng.uniform(0.1, 1, (4, 6))
    mh, vh = normalize_gaussian(m, v, "delta")
    np.testing.assert_allclose(np.linalg.norm(mh, axis=1), 1.0)
    np.testing.assert_allclose(vh, v / np.sum(m**2, 1, keepdims=True))
    # delta normalisation is monotone in the variance; the code's is inverted
    _, vh2 = normalize_gaussian(m, 3 * v, "delta")
    np.testing.assert_allclose(vh2, 3 * vh)
    _, vc = normalize_gaussian(m, v, "code")
    _, vc2 = normalize_gaussian(m, 3 * v, "code")
    np.testing.assert_allclose(vc2, vc / 3)
    mm, vv = normalize_gaussian(m, v, "none")
    np.testing.assert_array_equal(mm, m)


finite = st.floats(-3, 3, allow_nan=False, width=64)
pos = st.floats(0.05, 3, allow_nan=False, width=64)


@given(mu=arrays(float, (3, 2, 4), elements=finite), var=arrays(float, (3, 2, 4), elements=pos),
       k=st.integers(0, 2), c=st.floats(1.05, 10), T=st.floats(0.5, 50))
def test_monotone_in_variance(mu, var, k, c, T):
    pi = uec_coefficients(var, T)
    V2 = var.copy()
    V2[k] *= c
    pi2 = uec_coefficients(V2, T)
    assert np.all(pi2[:, k] <= pi[:, k] + 1e-15)
    assert np.all((pi2[:, k] < pi[:, k]) | (pi[:, k] < 1e-300) | (pi[:, k] > 1 - 1e-15))
    others = [j for j in range(3) if j != k]
    r1 = pi[:, others[0]] / pi[:, others[1]]
    r2 = pi2[:, others[0]] / pi2[:, others[1]]
    ok = np.isfinite(r1) & (pi[:, others[1]] > 1e-200) & (pi2[:, others[1]] > 1e-200)
    np.testing.assert_allclose(r1[ok], r2[ok], rtol=1e-9)


@given(mu=arrays(float, (3, 2, 4), elements=finite), var=arrays(float, (3, 2, 4), elements=pos),
       perm=st.permutations([0, 1, 2]), T=st.floats(0.5, 50))
def test_permutation_equivariance(mu, var, perm, T):
    g = uec_combine(mu, var, T)
    p = list(perm)
    g2 = uec_combine(mu[p], var[p], T)
    np.testing.assert_allclose(g2.mean, g.mean, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(g2.var, g.var, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(g2.coefficients, g.coefficients[:, p], rtol=1e-12, atol=1e-14)


def test_input_errors(rng):
    M, V = _rand(rng)
    with pytest.raises(InputError, match="temperature"):
        uec_coefficients(V, 0.0)
    with pytest.raises(InputError, match="temperature"):
        uec_coefficients(V, -1.0)
    with pytest.raises(InputError, match="member_vars"):
        uec_coefficients([V[0], V[1][:, :3]], 1.0)
    with pytest.raises(InputError, match="member_vars"):
        uec_coefficients(-V, 1.0)
    with pytest.raises(InputError, match="beta"):
        uncertainty_similarity((M[0], V[0]), (M[1], V[1]), beta=-0.1)
    with pytest.raises(InputError, match="form"):
        uncertainty_similarity((M[0], V[0]), (M[1], V[1]), form="cosine")
    with pytest.raises(InputError, match="docs"):
        uncertainty_similarity((M[0], V[0]), (M[1][:, :3], V[1][:, :3]))
    with pytest.raises(InputError, match="coefficients"):
        gaussian_convolution(M, V, np.full((5, 3), 0.5))
    with pytest.raises(InputError, match="variance_norm"):
        normalize_gaussian(M[0], V[0], "l2")
    with pytest.raises(InputError, match="var"):
        dot_variance(M[0], V[0][:, :2], M[1], V[1])
