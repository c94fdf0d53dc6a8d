"""The packaged all-MiniLM-L6-v2 with the in-network (FFN) Laplace approximation; few short texts."""
import numpy as np
import pytest
import torch

from iclr26sci.core import InputError
from iclr26sci.embeddings import ProbabilisticEncoder, encoders

TEXTS = ["A bushfire forced residents to leave.", "The cricket test was rained out.",
         "Shares fell sharply today."]
PAIRS = [("Fire crews fought the blaze.", "Firefighters battled flames overnight."),
         ("The bank raised interest rates.", "Borrowing costs went up."),
         ("Rain stopped play at the cricket.", "The match was abandoned because of rain."),
         ("Troops entered the city.", "Soldiers moved into the town."),
         ("The minister resigned.", "A government official quit his post."),
         ("Oil prices rose.", "Crude became more expensive.")]


@pytest.fixture(scope="module")
def mini():
    return encoders.minilm(max_seq_length=32)


def test_minilm_matches_sentence_transformers_pooling(mini):
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(encoders.minilm_path()), device="cpu")
    ref = st.encode(TEXTS, normalize_embeddings=True)
    ours = mini.encode(TEXTS)
    ours /= np.linalg.norm(ours, axis=1, keepdims=True)
    np.testing.assert_allclose(ours, ref, atol=2e-5)


def test_ffn_capture_reproduces_model_and_perturbation(mini):
    emb, a, r, mask = mini._forward_capture(TEXTS)
    W = mini.ffn_output.dense.weight.detach().clone()
    np.testing.assert_allclose(mini.embed_from_ffn(W, (a, r, mask)).numpy(), emb.numpy(), atol=1e-5)
    dW = 0.01 * torch.randn(W.shape, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        mini.ffn_output.dense.weight.add_(dW)
    try:
        emb2, _, _, _ = mini._forward_capture(TEXTS)
    finally:
        with torch.no_grad():
            mini.ffn_output.dense.weight.copy_(W)
    np.testing.assert_allclose(mini.embed_from_ffn(W + dW, (a, r, mask)).numpy(), emb2.numpy(), atol=1e-5)


def test_ffn_laplace_and_linearised_variance_vs_monte_carlo(mini):
    pe = ProbabilisticEncoder(mini).fit_laplace(PAIRS, batch_size=3, rng=0)
    assert pe.method_ == "ffn" and pe.laplace_.var_.shape == (384, 1536) and pe.laplace_.n_data_ == 6
    z = pe.encode(TEXTS)
    assert z.mean.shape == (3, 384) and np.all(z.var > 0)
    # MiniLM's zero-gain LayerNorm outputs get the median variance, not ~0
    gamma = mini.ffn_output.LayerNorm.weight.detach().numpy()
    dead = np.abs(gamma) <= 1e-3 * np.median(np.abs(gamma))
    assert dead.sum() == 3
    assert dead.any()
    np.testing.assert_allclose(z.var[:, dead], np.median(z.var[:, ~dead], axis=1, keepdims=True) * np.ones(dead.sum()))
    raw = ProbabilisticEncoder(mini, impute_dead_dims=False)
    raw.laplace_ = pe.laplace_
    assert np.all(raw.encode(TEXTS).var[:, dead] < 1e-12)
    # first-order propagation through LayerNorm + pooling vs sampling W (small posterior scale)
    s = 1e-10  # small posterior scale: the regime where first order is exact
    _, a, r, mask = mini._forward_capture(TEXTS[:2])
    a, r, mask = a.double(), r.double(), mask.double()
    out = mini.ffn_output
    W = out.dense.weight.detach().double()

    def emb(Wt):
        h = torch.nn.functional.linear(a, Wt, out.dense.bias.double()) + r
        h = torch.nn.functional.layer_norm(h, (h.shape[-1],), out.LayerNorm.weight.double(),
                                           out.LayerNorm.bias.double(), out.LayerNorm.eps)
        return (h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)

    V = torch.as_tensor(pe.laplace_.var_) * s
    g = torch.Generator().manual_seed(1)
    samples = torch.stack([emb(W + V.sqrt() * torch.randn(W.shape, generator=g, dtype=torch.float64))
                           for _ in range(300)])
    mc = samples.var(0).numpy()
    _, lin, _ = mini.encode_with_features(TEXTS[:2])
    gamma = out.LayerNorm.weight.detach().double().numpy()
    v_pred = pe.laplace_.propagate(lin, out_scale=gamma, scale=s)
    ratio = np.median(mc / v_pred)
    assert 0.8 < ratio < 1.25, ratio
    # code propagation and off-by-one layer input give different features
    pc = ProbabilisticEncoder(mini, propagation="code")
    pc.laplace_ = pe.laplace_
    assert not np.allclose(pc.encode(TEXTS).var, z.var)
    comp = encoders.minilm(max_seq_length=32, compat_layer_input=True)
    _, lin_c, _ = comp.encode_with_features(TEXTS[:2])
    assert np.max(np.abs(lin_c - lin)) > 1e-3
    np.testing.assert_allclose(comp.encode(TEXTS[:2]), mini.encode(TEXTS[:2]), atol=1e-5)  # mean unchanged
    with pytest.raises(InputError, match="dim"):
        ProbabilisticEncoder(mini, method="ffn", dim=100)


@pytest.mark.slow
def test_default_uec_runs_offline():
    ens = encoders.default_uec(n_pairs=16)
    pi = ens.coefficients(TEXTS)
    assert pi.shape == (3, 3) and np.allclose(pi.sum(1), 1)
    S = ens.similarity(TEXTS[:2], TEXTS)
    assert S.shape == (2, 3) and np.all(np.isfinite(S))
