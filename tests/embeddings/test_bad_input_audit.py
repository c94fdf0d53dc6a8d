"""Every embeddings row of the bad-input audit (/work/shared/audits/bad-input-cases.md), by id.

Each row runs the exact call of the audit in a namespace holding the audit's fixtures (``TXT``, ``lsa``,
``pe``, ``uec``, ``V``, ``ge``, ``mini``) and asserts an InputError naming the right argument, or, where the
call is legitimate, the right value (with the reason). Re-running the sweep = running this module.
"""
import math

import numpy as np
import pytest
import torch
from numpy import nan

from iclr26sci.core import InputError
from iclr26sci.embeddings import (
    UEC,
    DiagLaplaceLinear,
    Doc2VecEncoder,
    GaussianEmbeddings,
    LSAEncoder,
    ProbabilisticEncoder,
    TextEncoder,
    TransformerEncoder,
    WordVectorEncoder,
    alignment_matrix,
    contrastive_row_losses,
    encoders,
    per_row_gradients,
    total_precision,
    uec_coefficients,
    uec_combine,
    uncertainty_similarity,
)

# (id, exact call, argument the InputError must name)
ROWS = [
    ("embeddings.009", "lsa.encode(TXT, batch_size=0).shape", "batch_size"),
    ("embeddings.025", "Doc2VecEncoder(vector_size=8, epochs=1, min_count=-1).dim", "min_count"),
    ("embeddings.050", "encoders.lee_pairs(docs='some text here. and more.')", "docs"),
    ("embeddings.068", "ProbabilisticEncoder(lsa, prune='no').prune", "prune"),
    ("embeddings.078", "pe.encode(TXT, normalize='no').mean", "normalize"),
    ("embeddings.084", "DiagLaplaceLinear().fit(lambda W, X: X @ W.T, torch.eye(2, dtype=torch.float64), "
                       "[(torch.full((3, 2), nan, dtype=torch.float64), torch.ones(3, 2, dtype=torch.float64))]).var_",
     "batches"),
    ("embeddings.091", "pe.laplace_.propagate(np.full((2, 16), nan))", "features"),
    ("embeddings.092", "pe.laplace_.propagate(np.ones((2, 16)), scale=-1.0)", "scale"),
    ("embeddings.096", "contrastive_row_losses(torch.full((3, 2), nan), torch.ones(3, 2))", "zq"),
    ("embeddings.100", "alignment_matrix(0, 4)", "d_in"),
    ("embeddings.112", "total_precision(np.ones((2, 0)), reduce='mean')", "var"),
    ("embeddings.130", "uec_combine(np.full((2, 3, 4), nan), V).mean", "member_means"),
    ("embeddings.143", "uncertainty_similarity(GaussianEmbeddings(np.full((2, 4), nan), np.ones((2, 4))), ge)", "mean"),
    ("embeddings.144", "uncertainty_similarity(GaussianEmbeddings(np.ones((2, 4)), -np.ones((2, 4))), ge, beta=1.0)",
     "var"),
    ("embeddings.146", "GaussianEmbeddings(np.ones((2, 4)), np.ones((3, 4))).n", "var"),
    ("embeddings.162", "uec.combine(np.full((2, 3, 16), nan), np.full((2, 3, 16), 0.1)).mean", "member_means"),
    ("embeddings.163", "uec.combine(np.full((3, 2, 16), 0.1), np.full((3, 2, 16), 0.1)).coefficients.shape",
     "member_means"),
    ("embeddings.165", "uec.score(GaussianEmbeddings(np.full((1, 16), nan), np.ones((1, 16))), uec.encode(TXT))", "mean"),
    ("embeddings.013", "TextEncoder().encode(['a'])", "encoder"),
    ("embeddings.018", "TransformerEncoder(encoders.minilm_path(), max_seq_length=10**6)"
                       ".encode([' '.join(['word'] * 600)]).shape", "max_seq_length"),
    ("embeddings.019", "TransformerEncoder(3)", "path"),
    ("embeddings.021", "mini.embed_from_ffn(torch.zeros(3, 3), mini.ffn_inputs(['hi']))", "W"),
    ("embeddings.026", "Doc2VecEncoder(vector_size=8, epochs=1, min_count=10**6).encode(['fire'])", "min_count"),
    ("embeddings.028", "Doc2VecEncoder(corpus=['', ''], vector_size=8, epochs=1)", "corpus"),
    ("embeddings.032", "WordVectorEncoder(kind='word2vec', vector_size=8, epochs=0).encode(['fire']).sum()", "epochs"),
    ("embeddings.033", "WordVectorEncoder(kind='word2vec', vector_size=8, epochs=-3).encode(['fire']).sum()", "epochs"),
    ("embeddings.034", "WordVectorEncoder(corpus=['a b'], kind='word2vec', vector_size=8, epochs=1, min_count=5)"
                       ".encode(['a']).sum()", "min_count"),
    ("embeddings.038", "LSAEncoder(corpus=['', '', ''], n_components=1)", "corpus"),
    ("embeddings.042", "encoders.sentence_transformer(encoders.minilm_path(), device='cuda')", "device"),
    ("embeddings.044", "encoders.fasttext_lee(vector_size=8, epochs='2')", "epochs"),
    ("embeddings.051", "encoders.lee_pairs(docs=[1, 2, 3])", "docs"),
    ("embeddings.085", "DiagLaplaceLinear().fit(3, torch.eye(2, dtype=torch.float64), "
                       "[(torch.ones(3, 2, dtype=torch.float64), torch.ones(3, 2, dtype=torch.float64))])", "embed_fn"),
    ("embeddings.086", "DiagLaplaceLinear().fit(lambda W, X: X @ W.T, torch.eye(2, dtype=torch.float64), [1, 2])",
     "batches"),
    ("embeddings.090", "pe.laplace_.propagate(np.ones((2, 3)))", "features"),
    ("embeddings.093", "pe.laplace_.propagate(np.ones((2, 16)), out_scale=np.ones(3))", "out_scale"),
    ("embeddings.094", "contrastive_row_losses(torch.ones(3, 2), torch.ones(4, 3))", "zp"),
    ("embeddings.095", "contrastive_row_losses(torch.ones(3, 2), torch.ones(3, 2), targets=[0, 1, 7])", "targets"),
    ("embeddings.098", "per_row_gradients(3, torch.eye(2), torch.ones(3, 2), torch.ones(3, 2))", "embed_fn"),
    ("embeddings.099", "per_row_gradients(lambda W, X: X @ W.T, torch.eye(2), torch.ones(3, 2), torch.ones(3, 2), "
                       "chunk_size=0)", "chunk_size"),
    ("embeddings.101", "alignment_matrix(4, -2)", "d_out"),
    ("embeddings.102", "alignment_matrix(2.5, 4)", "d_in"),
    ("embeddings.131", "uec_combine(np.full((2, 3, 4), 'a'), V)", "member_means"),
    ("embeddings.147", "GaussianEmbeddings(np.ones(4), np.ones(4)).dim", "mean"),
    ("embeddings.166", "uec.similarity('fire', TXT)", "queries"),
    ("embeddings.167", "uec.similarity(TXT, [])", "docs"),
]


@pytest.fixture(scope="module")
def ns():
    TXT = ["Fire crews fought the blaze.", "Shares fell."]
    lsa = encoders.lsa_lee(n_components=16, rng=0)
    pairs = encoders.lee_pairs(8, rng=0)
    pe = ProbabilisticEncoder(lsa, rng=0).fit_laplace(pairs, batch_size=4)
    pe2 = ProbabilisticEncoder(encoders.lsa_lee(n_components=16, rng=1), rng=1).fit_laplace(pairs, batch_size=4)
    return {**globals(), "np": np, "torch": torch, "nan": nan, "TXT": TXT, "lsa": lsa, "pe": pe,
            "uec": UEC([pe, pe2]), "V": np.full((2, 3, 4), 0.1),
            "ge": GaussianEmbeddings(np.ones((2, 4)), np.ones((2, 4))),
            "mini": encoders.minilm(max_seq_length=32)}


@pytest.mark.bad_input("embeddings.TextEncoder", "embeddings.Doc2VecEncoder", "embeddings.encoders",
                       "embeddings.ProbabilisticEncoder", "embeddings.DiagLaplaceLinear",
                       "embeddings.contrastive_row_losses", "embeddings.alignment_matrix", "embeddings.total_precision",
                       "embeddings.uec_combine", "embeddings.uncertainty_similarity", "embeddings.GaussianEmbeddings",
                       "embeddings.UEC", "embeddings.TransformerEncoder", "embeddings.WordVectorEncoder",
                       "embeddings.LSAEncoder", "embeddings.per_row_gradients")
@pytest.mark.parametrize("row_id, call, argument", ROWS, ids=[r[0] for r in ROWS])
def test_audit_row_raises_input_error_naming_the_argument(ns, row_id, call, argument):
    with pytest.raises(InputError, match=f"`{argument}`"):
        eval(call, ns)


@pytest.mark.bad_input("embeddings.uec_coefficients")
def test_audit_embeddings_123_tiny_temperature_gives_the_limit_not_nan(ns):
    # legitimate call: equal (zero) variances give equal precision, so the weights are uniform for any T;
    # the softmax is now shifted before the division by T, which overflowed to inf - inf = NaN
    pi = eval("uec_coefficients(np.zeros((2, 3, 4)), 1e-300)", ns)
    np.testing.assert_array_equal(pi, np.full((3, 2), 0.5))


@pytest.mark.bad_input("embeddings.uncertainty_similarity")
def test_audit_embeddings_145_huge_variances_do_not_overflow(ns):
    # legitimate call: V = sum_d (mu^2 s^2 + s^2 mu^2 + s^4) = 4 (2e20 + 1e40); the float32 product overflowed to
    # inf (score 0); it now falls back to float64 and gives the exact moderated score
    s = eval("uncertainty_similarity((np.ones((1, 4)), np.full((1, 4), 1e20)), (np.ones((1, 4)), "
             "np.full((1, 4), 1e20)), beta=1.0)", ns)
    V = 4 * (2e20 + 1e40)
    assert s[0, 0] == pytest.approx(4.0 / math.sqrt(1 + math.pi / 8 * V), rel=1e-6) and s[0, 0] > 0


@pytest.mark.bad_input("embeddings.DiagLaplaceLinear")
def test_audit_embeddings_087_numpy_weight_follows_the_inputs_dtype(ns):
    # legitimate call: a float32 numpy weight with float64 inputs; the weight is converted to the inputs' dtype
    var = eval("DiagLaplaceLinear().fit(lambda W, X: X @ W.T, np.eye(2, dtype=np.float32), "
               "[(torch.ones(3, 2, dtype=torch.float64), torch.ones(3, 2, dtype=torch.float64))]).var_", ns)
    assert var.shape == (2, 2) and var.dtype == np.float64 and np.all(np.isfinite(var)) and np.all(var > 0)


@pytest.mark.bad_input("embeddings.contrastive_row_losses")
def test_audit_embeddings_097_numpy_inputs_are_converted(ns):
    # legitimate call: equal logits give the loss log(3) for each of the 3 rows
    out = eval("contrastive_row_losses(np.ones((3, 2)), np.ones((3, 2)))", ns)
    np.testing.assert_allclose(out.numpy(), np.log(3.0))
