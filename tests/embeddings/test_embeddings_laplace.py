"""Diagonal Laplace on a linear layer / adapter, gensim and LSA encoders, ensemble errors."""
import numpy as np
import pytest
import torch

from iclr26sci.core import InputError
from iclr26sci.embeddings import (
    UEC, DiagLaplaceLinear, ProbabilisticEncoder, alignment_matrix, contrastive_row_losses, encoders,
    per_row_gradients,
)
from iclr26sci.embeddings._encoders import TextEncoder

TEXTS = ["The bushfire forced hundreds to leave their homes.", "Cricket fans watched the test match.",
         "Shares fell on the stock exchange.", "The prime minister announced new policies."]


def _adapter_grads_closed_form(W, Eq, Ep):
    Zq, Zp = Eq @ W.T, Ep @ W.T
    S = Zq @ Zp.T
    P = np.exp(S - S.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    R = P - np.eye(len(S))
    return np.einsum("bd,bi->bdi", Zq, R @ Ep) + np.einsum("bd,bi->bdi", R @ Zp, Eq)


def test_per_row_gradients_match_closed_form(rng):
    W = rng.standard_normal((5, 4))
    Eq, Ep = rng.standard_normal((6, 4)), rng.standard_normal((6, 4))
    G = per_row_gradients(lambda Wt, X: X @ Wt.T, torch.as_tensor(W), torch.as_tensor(Eq), torch.as_tensor(Ep))
    np.testing.assert_allclose(G.numpy(), _adapter_grads_closed_form(W, Eq, Ep), rtol=1e-10, atol=1e-12)
    # row losses are the in-batch cross-entropies
    L = contrastive_row_losses(torch.as_tensor(Eq @ W.T), torch.as_tensor(Ep @ W.T)).numpy()
    S = (Eq @ W.T) @ (Ep @ W.T).T
    np.testing.assert_allclose(L, np.log(np.exp(S).sum(1)) - np.diag(S), rtol=1e-10)


def test_diag_laplace_fisher_variance_and_one_over_n(rng):
    W = rng.standard_normal((3, 4))
    batches = [(torch.as_tensor(rng.standard_normal((5, 4))), torch.as_tensor(rng.standard_normal((5, 4))))
               for _ in range(3)]
    f = lambda Wt, X: X @ Wt.T
    la = DiagLaplaceLinear(prior_precision=1e-8).fit(f, torch.as_tensor(W), batches)
    F = sum((_adapter_grads_closed_form(W, q.numpy(), p.numpy()) ** 2).sum(0) for q, p in batches)
    np.testing.assert_allclose(la.fisher_, F, rtol=1e-10)
    np.testing.assert_allclose(la.posterior_var_, 1 / (F + 1e-8))
    assert la.n_data_ == 15
    la2 = DiagLaplaceLinear(prior_precision=1e-8).fit(f, torch.as_tensor(W), batches * 2)
    np.testing.assert_allclose(la2.posterior_var_ / la.posterior_var_, 0.5, rtol=1e-6)
    # propagation: sigma^2_d = s * g_d^2 * sum_i V_di a_i^2
    a = rng.standard_normal((2, 4))
    g = np.array([1.0, 2.0, 0.5])
    np.testing.assert_allclose(la.propagate(a, out_scale=g, scale=3.0),
                               np.maximum(3.0 * (a**2 @ la.var_.T) * g**2, 1e-16))
    # official pruning zeroes variances larger than the squared weight
    lp = DiagLaplaceLinear(prior_precision=1e-8, prune=True).fit(f, torch.as_tensor(W), batches)
    assert np.all(lp.var_[np.abs(W) < np.sqrt(lp.posterior_var_)] == 0)
    with pytest.raises(InputError, match="batches"):
        DiagLaplaceLinear().fit(f, torch.as_tensor(W), [])
    with pytest.raises(InputError, match="prior_precision"):
        DiagLaplaceLinear(prior_precision=0.0).fit(f, torch.as_tensor(W), batches)


def test_alignment_matrix_isometry():
    Q = alignment_matrix(5, 12, rng=1)
    np.testing.assert_allclose(Q.T @ Q, np.eye(5), atol=1e-12)
    P = alignment_matrix(12, 5, rng=1)
    np.testing.assert_allclose(P @ P.T, np.eye(5), atol=1e-12)
    np.testing.assert_array_equal(alignment_matrix(4, 4), np.eye(4))


@pytest.fixture(scope="module")
def lsa():
    return encoders.lsa_lee(n_components=32, rng=0)


@pytest.fixture(scope="module")
def pairs():
    return encoders.lee_pairs(12, rng=0)


def test_lsa_adapter_encoder(lsa, pairs):
    from iclr26sci.core import NotFittedError

    pe = ProbabilisticEncoder(lsa, dim=48, rng=3)
    assert pe.output_dim == 48 and pe.dim == 48
    with pytest.raises(NotFittedError, match="ProbabilisticEncoder.encode"):
        pe.encode(TEXTS)
    m0 = pe.encode_mean(TEXTS)  # mean only needs no fit
    pe.fit_laplace(pairs, batch_size=6)
    assert pe.method_ == "adapter" and pe.dim_ == 48
    z = pe.encode(TEXTS)
    assert z.mean.shape == (4, 48) and np.all(z.var > 0)
    np.testing.assert_allclose(z.mean, m0, atol=1e-12)
    # the isometric adapter keeps the member's cosine similarities
    e = lsa.encode(TEXTS)
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    np.testing.assert_allclose(z.mean @ z.mean.T, e @ e.T, atol=1e-10)
    # deterministic given rng
    pe2 = ProbabilisticEncoder(lsa, dim=48, rng=3).fit_laplace(pairs, batch_size=6)
    np.testing.assert_array_equal(pe2.encode(TEXTS).var, z.var)
    # cache: encoding again returns identical rows
    np.testing.assert_array_equal(lsa.encode(TEXTS[:2]), lsa.encode(TEXTS)[:2])


def test_gensim_encoders_and_uec(lsa, pairs):
    d2v = encoders.doc2vec_lee(vector_size=24, epochs=5, rng=0)
    ft = encoders.fasttext_lee(vector_size=24, epochs=2, rng=0)
    a = d2v.encode(TEXTS)
    d2v.clear_cache()
    np.testing.assert_allclose(d2v.encode(TEXTS), a, atol=1e-6)  # re-seeded inference
    assert ft.encode(["zzzunseenword"]).shape == (1, 24)
    members = [ProbabilisticEncoder(e, dim=32, rng=i).fit_laplace(pairs, batch_size=6)
               for i, e in enumerate([lsa, d2v, ft])]
    ens = UEC(members, temperature=np.inf, beta=0.0)
    pi = ens.coefficients(TEXTS)
    np.testing.assert_allclose(pi, 1 / 3)
    M = np.stack([m.encode_mean(TEXTS) for m in members]).mean(0)
    np.testing.assert_allclose(ens.similarity(TEXTS, TEXTS), M @ M.T, atol=1e-12)
    ens2 = UEC(members, temperature=1.0, beta=0.5, reduce="mean")
    z = ens2.encode(TEXTS)
    np.testing.assert_allclose(z.coefficients.sum(1), 1.0)
    assert ens2.similarity(TEXTS[:2], z).shape == (2, 4)


def test_ensemble_and_encoder_input_errors(lsa, pairs):
    p32 = ProbabilisticEncoder(lsa).fit_laplace(pairs, batch_size=6)
    p48 = ProbabilisticEncoder(lsa, dim=48)
    with pytest.raises(InputError, match="members"):
        UEC([p32, p48])
    with pytest.raises(InputError, match="members"):
        UEC([lsa])
    with pytest.raises(InputError, match="members"):
        UEC([])
    with pytest.raises(InputError, match="temperature"):
        UEC([p32], temperature=0)
    with pytest.raises(InputError, match="beta"):
        UEC([p32], beta=-1)
    with pytest.raises(InputError, match="members"):
        UEC([p32, ProbabilisticEncoder(lsa)]).encode(TEXTS)  # second not fitted
    with pytest.raises(InputError, match="texts"):
        lsa.encode([])
    with pytest.raises(InputError, match="texts"):
        lsa.encode(["ok", 3])
    with pytest.raises(InputError, match="texts"):
        lsa.encode("a single string")
    with pytest.raises(InputError, match="pairs"):
        ProbabilisticEncoder(lsa).fit_laplace([("a", "b")])
    with pytest.raises(InputError, match="pairs"):
        ProbabilisticEncoder(lsa).fit_laplace([("a", "b"), ("c", 1)])
    with pytest.raises(InputError, match="method"):
        ProbabilisticEncoder(lsa, method="ffn")
    with pytest.raises(InputError, match="encoder"):
        ProbabilisticEncoder("not an encoder")
    with pytest.raises(InputError, match="n_components"):
        encoders.lsa_lee(n_components=1000)
    with pytest.raises(InputError, match="kind"):
        from iclr26sci.embeddings import WordVectorEncoder
        WordVectorEncoder(kind="glove")


def test_mc_fisher_curvature(lsa, pairs):
    a = ProbabilisticEncoder(lsa, curvature="mc_fisher", rng=5).fit_laplace(pairs, batch_size=6)
    b = ProbabilisticEncoder(lsa, curvature="mc_fisher", rng=5).fit_laplace(pairs, batch_size=6)
    np.testing.assert_array_equal(a.laplace_.fisher_, b.laplace_.fisher_)
    assert np.all(np.isfinite(a.laplace_.fisher_)) and np.all(a.laplace_.fisher_ >= 0)
    ef = ProbabilisticEncoder(lsa, rng=5).fit_laplace(pairs, batch_size=6)
    assert not np.allclose(ef.laplace_.fisher_, a.laplace_.fisher_)
    with pytest.raises(InputError, match="curvature"):
        ProbabilisticEncoder(lsa, curvature="ggn")


def test_empty_base_embedding_gets_prior_variance(lsa, pairs):
    pe = ProbabilisticEncoder(lsa, rng=0).fit_laplace(pairs, batch_size=6)
    z = pe.encode(["qwxzv zzqqj", TEXTS[0]], normalize=False)
    assert np.all(z.mean[0] == 0)
    np.testing.assert_allclose(z.var[0], pe.input_scale**2 / pe.prior_precision)
    assert np.all(z.var[1] < z.var[0])
    ens = UEC([pe, ProbabilisticEncoder(encoders.fasttext_lee(vector_size=32, epochs=1), rng=1).fit_laplace(
        pairs, batch_size=6)], temperature=1.0, reduce="mean")
    assert ens.coefficients(["qwxzv zzqqj"])[0, 0] < 0.5  # the abstaining LSA member is down-weighted


def test_variance_calibration_mle_scale_invariance_and_reset(lsa, pairs):
    held = encoders.lee_pairs(10, rng=7)
    hq, hp = [p[0] for p in held], [p[1] for p in held]
    pe = ProbabilisticEncoder(lsa, rng=0).fit_laplace(pairs, batch_size=6)
    assert not pe.is_calibrated
    zq, zp, zt = pe.encode(hq), pe.encode(hp), pe.encode(TEXTS)
    # independent computation of the maximum-likelihood scale of the positive-pair residuals
    c = np.mean((zq.mean - zp.mean) ** 2 / (zq.var + zp.var))
    assert pe.calibrate(held) is pe and pe.is_calibrated
    assert pe.variance_scale_ == pytest.approx(c, rel=1e-12)
    assert pe.calibration_["n_pairs"] == 10
    np.testing.assert_allclose(pe.encode(TEXTS).var, c * zt.var, rtol=1e-12)
    np.testing.assert_array_equal(pe.encode(TEXTS).mean, zt.mean)
    # after calibration the standardised squared residual averages exactly 1
    cq, cp = pe.encode(hq), pe.encode(hp)
    assert np.mean((cq.mean - cp.mean) ** 2 / (cq.var + cp.var)) == pytest.approx(1.0, rel=1e-10)
    # calibrating twice is idempotent (fitted on the uncalibrated variance)
    np.testing.assert_allclose(pe.calibrate(held).variance_scale_, c, rtol=1e-12)
    # the calibrated variance does not depend on the arbitrary per-model factor s_k
    pe10 = ProbabilisticEncoder(lsa, rng=0, scale=10.0).fit_laplace(pairs, batch_size=6, calibration_pairs=held)
    assert pe10.variance_scale_ == pytest.approx(c / 10, rel=1e-10)
    np.testing.assert_allclose(pe10.encode(TEXTS).var, pe.encode(TEXTS).var, rtol=1e-10)
    # refitting drops the calibration (paper-faithful default)
    pe.fit_laplace(pairs, batch_size=6)
    assert not pe.is_calibrated
    np.testing.assert_array_equal(pe.encode(TEXTS).var, zt.var)


def test_variance_calibration_input_errors(lsa, pairs):
    with pytest.raises(InputError, match="ProbabilisticEncoder.calibrate"):
        ProbabilisticEncoder(lsa).calibrate(pairs)
    pe = ProbabilisticEncoder(lsa).fit_laplace(pairs, batch_size=6)
    with pytest.raises(InputError, match="pairs"):
        pe.calibrate(pairs[:1])
    with pytest.raises(InputError, match="pairs"):
        pe.calibrate("a text")
    with pytest.raises(InputError, match="pairs"):  # identical views: no observable disagreement
        pe.calibrate([(TEXTS[0], TEXTS[0]), (TEXTS[1], TEXTS[1])])
    assert not pe.is_calibrated
    with pytest.raises(InputError, match="calibration_pairs"):
        ProbabilisticEncoder(lsa).fit_laplace(pairs, batch_size=6, calibration_pairs=[("a", 1)])
    # a failed calibration keeps an earlier one
    held = encoders.lee_pairs(6, rng=3)
    c = pe.calibrate(held).variance_scale_
    with pytest.raises(InputError, match="pairs"):
        pe.calibrate([(TEXTS[0], TEXTS[0]), (TEXTS[1], TEXTS[1])])
    assert pe.variance_scale_ == c
    # ensemble-level calibration calibrates every member (and validates first)
    other = ProbabilisticEncoder(lsa, rng=1).fit_laplace(pairs, batch_size=6)
    ens = UEC([pe, other])
    with pytest.raises(InputError, match="pairs"):
        ens.calibrate(held[:1])
    assert not other.is_calibrated
    assert ens.calibrate(held) is ens and other.is_calibrated
    assert pe.variance_scale_ == pytest.approx(c, rel=1e-12)
    with pytest.raises(InputError, match="members"):
        UEC([pe, ProbabilisticEncoder(lsa)]).calibrate(held)


def test_gensim_encoders_reproducible_across_processes():
    """gensim salts its vector initialisation with Python's per-process ``hash`` unless told otherwise."""
    import os
    import subprocess
    import sys

    code = ("from iclr26sci.embeddings import encoders\n"
            "T = ['The bushfire forced hundreds to leave their homes.', '', 'zzz']\n"
            "d = encoders.doc2vec_lee(vector_size=8, epochs=2, rng=0).encode(T)\n"
            "f = encoders.fasttext_lee(vector_size=8, epochs=1, rng=0).encode(T)\n"
            "print(d.round(10).tolist(), f.round(10).tolist())")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    outs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=root, OMP_NUM_THREADS="1")
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True,
                                   text=True, check=True).stdout)
    assert outs[0] == outs[1] and outs[0].strip()
