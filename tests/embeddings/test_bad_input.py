"""Bad input to every public name of iclr26sci.embeddings (and their public methods) raises an InputError
naming the argument; unfitted estimators raise NotFittedError."""
import warnings

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.embeddings import (
    UEC,
    DiagLaplaceLinear,
    Doc2VecEncoder,
    GaussianEmbeddings,
    LSAEncoder,
    MismatchedMembersWarning,
    ProbabilisticEncoder,
    TextEncoder,
    TransformerEncoder,
    WordVectorEncoder,
    alignment_matrix,
    check_pairs,
    check_texts,
    contrastive_row_losses,
    dot_variance,
    encoders,
    gaussian_convolution,
    normalize_gaussian,
    per_row_gradients,
    total_precision,
    uec_coefficients,
    uec_combine,
    uncertainty_similarity,
)

BAD_INPUT_EXEMPT = {
    "embeddings.CITATION": "a constant string (the paper reference); takes no input",
    "embeddings.MismatchedMembersWarning": "a warning class raised by UEC.member_quality; takes no user input",
}

TXT = ["Fire crews fought the blaze.", "Shares fell.", "Rain stopped play."]


@pytest.fixture(scope="module")
def lsa():
    return encoders.lsa_lee(n_components=16, rng=0)


@pytest.fixture(scope="module")
def pairs():
    return encoders.lee_pairs(8, rng=0)


@pytest.fixture(scope="module")
def pe(lsa, pairs):
    return ProbabilisticEncoder(lsa, rng=0).fit_laplace(pairs, batch_size=4)


@pytest.fixture(scope="module")
def ens(pe, pairs):
    other = ProbabilisticEncoder(encoders.lsa_lee(n_components=16, rng=1), rng=1).fit_laplace(pairs, batch_size=4)
    return UEC([pe, other], temperature=1.0)


@pytest.mark.bad_input("embeddings.check_texts", "embeddings.check_pairs")
def test_text_and_pair_validators():
    for bad in ("one string", [], ["ok", 3], 5):
        with pytest.raises(InputError, match="`texts`"):
            check_texts(bad)
    for bad in ("ab", [("a", "b")], [("a", "b"), ("c",)], [("a", "b"), ("c", 2)], None):
        with pytest.raises(InputError, match="`pairs`"):
            check_pairs(bad)


@pytest.mark.bad_input("embeddings.GaussianEmbeddings")
def test_gaussian_embeddings_validates_and_summarises():
    with pytest.raises(InputError, match="`coefficients`"):
        GaussianEmbeddings(np.ones((2, 3)), np.ones((2, 3)), coefficients=np.ones((2, 2)))
    with pytest.raises(InputError, match="`coefficients`"):
        GaussianEmbeddings(np.ones((2, 3)), np.ones((2, 3)), coefficients=np.full((3, 2), 0.5))
    with pytest.raises(InputError, match="`mean`"):
        GaussianEmbeddings([["a"]], [[1.0]])
    g = GaussianEmbeddings(np.ones((3, 2)), np.full((3, 2), 0.5), coefficients=np.full((3, 2), 0.5))
    assert repr(g).startswith("GaussianEmbeddings(n=3, dim=2, K=2 members") and len(repr(g)) < 120
    d = g.to_dict()
    assert d["n"] == 3 and d["coefficients_mean"] == [0.5, 0.5] and d["total_var_median"] == 1.0
    assert "mean ensemble weights: 0.500, 0.500" in g.summary()
    big = GaussianEmbeddings(np.zeros((1000, 384)), np.ones((1000, 384)))
    assert len(repr(big)) < 120 and len(big.summary()) < 400  # never a dump of the arrays


@pytest.mark.bad_input("embeddings.normalize_gaussian", "embeddings.total_precision", "embeddings.uec_coefficients",
                       "embeddings.gaussian_convolution", "embeddings.dot_variance",
                       "embeddings.uncertainty_similarity", "embeddings.uec_combine")
def test_math_functions_reject_bad_arrays_and_options():
    M, V = np.ones((2, 3, 4)), np.full((2, 3, 4), 0.1)
    with pytest.raises(InputError, match="`variance_norm`"):
        normalize_gaussian(M[0], V[0], "l2")
    with pytest.raises(InputError, match="`var`"):
        normalize_gaussian(M[0], V[0, :, :2])
    with pytest.raises(InputError, match="`reduce`"):
        total_precision(V, reduce="max")
    with pytest.raises(InputError, match="`eps`"):
        total_precision(V, eps=0.0)
    with pytest.raises(InputError, match="`eps`"):
        total_precision(np.zeros((1, 2)), eps=1e-320)  # 1/eps overflows: infinite precision
    with pytest.raises(InputError, match="`temperature`"):
        uec_coefficients(V, temperature=0.0)
    with pytest.raises(InputError, match="`temperature`"):
        uec_coefficients(V, temperature="hot")
    with pytest.raises(InputError, match="`member_vars`"):
        uec_coefficients(-V)
    with pytest.raises(InputError, match=r"`member_vars\[1\]`"):
        uec_coefficients([V[0], [["x"] * 4] * 3])
    with pytest.raises(InputError, match="`coefficients`"):
        gaussian_convolution(M, V, [0.7, 0.7])
    with pytest.raises(InputError, match="`coefficients`"):
        gaussian_convolution(M, V, np.full((2, 2), 0.5))
    with pytest.raises(InputError, match="`member_vars`"):
        gaussian_convolution(M, V[:, :, :2], [0.5, 0.5])
    with pytest.raises(InputError, match="`mean_c`"):
        dot_variance(M[0], V[0], M[0][:, :2], V[0][:, :2])
    with pytest.raises(InputError, match="`var_q`"):
        dot_variance(M[0], -V[0], M[0], V[0])
    with pytest.raises(InputError, match="`beta`"):
        uncertainty_similarity((M[0], V[0]), (M[0], V[0]), beta=-1.0)
    with pytest.raises(InputError, match="`form`"):
        uncertainty_similarity((M[0], V[0]), (M[0], V[0]), form="cosine")
    with pytest.raises(InputError, match="`docs`"):
        uncertainty_similarity((M[0], V[0]), "docs")
    with pytest.raises(InputError, match="`member_vars`"):
        uec_combine(M, V[:, :2])
    with pytest.raises(InputError, match="`reduce`"):
        uec_combine(M, V, reduce="median")


@pytest.mark.bad_input("embeddings.TextEncoder", "embeddings.LSAEncoder", "embeddings.Doc2VecEncoder",
                       "embeddings.WordVectorEncoder", "embeddings.encoders")
def test_encoders_reject_bad_settings(lsa):
    with pytest.raises(InputError, match="`batch_size`"):
        lsa.encode(TXT, batch_size=-1)
    with pytest.raises(InputError, match="`texts`"):
        lsa.encode("one string")
    with pytest.raises(InputError, match="`n_components`"):
        LSAEncoder(n_components=0)
    with pytest.raises(InputError, match="`name`"):
        LSAEncoder(n_components=4, name="")
    with pytest.raises(InputError, match="`corpus`"):
        LSAEncoder(corpus="a single document", n_components=1)
    with pytest.raises(InputError, match="`vector_size`"):
        Doc2VecEncoder(vector_size=0)
    with pytest.raises(InputError, match="`kind`"):
        WordVectorEncoder(kind="glove")
    with pytest.raises(InputError, match="`vector_size`"):
        encoders.doc2vec_lee(vector_size=2.5)
    with pytest.raises(InputError, match="`epochs`"):
        encoders.word2vec_lee(epochs=0)
    with pytest.raises(InputError, match="`n_components`"):
        encoders.lsa_lee(n_components=1000)
    with pytest.raises(InputError, match="`n`"):
        encoders.lee_pairs(1000)
    with pytest.raises(InputError, match="`max_words`"):
        encoders.lee_pairs(4, max_words=0)
    with pytest.raises(InputError, match="`shared`"):
        encoders.minilm(shared="yes")
    with pytest.raises(InputError, match="`max_seq_length`"):
        encoders.minilm(max_seq_length=0)
    with pytest.raises(InputError, match="`n_pairs`"):
        encoders.default_uec(n_pairs=1)
    with pytest.raises(InputError, match="`n_pairs`"):
        encoders.default_uec(n_pairs=151)
    with pytest.raises(InputError, match="`cache`"):
        encoders.minilm_finetuned([("a", "b"), ("c", "d")], cache="no")
    with pytest.raises(InputError, match="`encoder`"):
        TextEncoder().encode(["a"])


@pytest.mark.bad_input("embeddings.TransformerEncoder", "embeddings.encoders")
def test_transformer_encoder_rejects_bad_settings(tmp_path):
    with pytest.raises(InputError, match="`path`"):
        TransformerEncoder(str(tmp_path / "missing"))
    with pytest.raises(InputError, match="`path`"):
        TransformerEncoder(str(tmp_path))  # no config.json
    with pytest.raises(InputError, match="`batch_size`"):
        TransformerEncoder(encoders.minilm_path(), batch_size=0)
    with pytest.raises(InputError, match="`compat_layer_input`"):
        TransformerEncoder(encoders.minilm_path(), compat_layer_input="no")
    mini = encoders.minilm(max_seq_length=32)
    with pytest.raises(InputError, match="`batch_size`"):
        mini.encode_with_features(TXT, batch_size=0)
    with pytest.raises(InputError, match="`inputs`"):
        mini.embed_from_ffn(mini.ffn_output.dense.weight, "inputs")
    with pytest.raises(InputError, match="`texts`"):
        mini.ffn_inputs([])
    with pytest.raises(InputError, match="`pairs`"):
        encoders.minilm_finetuned([("a", "b")])
    with pytest.raises(InputError, match="`epochs`"):
        encoders.minilm_finetuned([("a", "b"), ("c", "d")], epochs=0, cache=False)


@pytest.mark.bad_input("embeddings.DiagLaplaceLinear", "embeddings.per_row_gradients",
                       "embeddings.contrastive_row_losses", "embeddings.alignment_matrix")
def test_laplace_layer_rejects_bad_input():
    X = torch.ones(3, 2, dtype=torch.float64)
    f = lambda W, Z: Z @ W.T  # noqa: E731
    with pytest.raises(NotFittedError):
        DiagLaplaceLinear().propagate(np.ones((2, 2)))
    with pytest.raises(InputError, match="`prior_precision`"):
        DiagLaplaceLinear(prior_precision=0).fit(f, torch.eye(2, dtype=torch.float64), [(X, X)])
    with pytest.raises(InputError, match="`curvature`"):
        DiagLaplaceLinear(curvature="ggn").fit(f, torch.eye(2, dtype=torch.float64), [(X, X)])
    with pytest.raises(InputError, match="`prune`"):
        DiagLaplaceLinear(prune="yes").fit(f, torch.eye(2, dtype=torch.float64), [(X, X)])
    with pytest.raises(InputError, match="`batches`"):
        DiagLaplaceLinear().fit(f, torch.eye(2, dtype=torch.float64), [])
    with pytest.raises(InputError, match="`weight`"):
        DiagLaplaceLinear().fit(f, np.full((2, 2), np.nan), [(X, X)])
    with pytest.raises(InputError, match="`n_batches`"):
        DiagLaplaceLinear().fit(f, torch.eye(2, dtype=torch.float64), [(X, X)], n_batches=0)
    la = DiagLaplaceLinear().fit(f, torch.eye(2, dtype=torch.float64), [(X, X)])
    with pytest.raises(InputError, match="`features`"):
        la.propagate(np.ones(2))
    with pytest.raises(InputError, match="`weight`"):
        per_row_gradients(f, np.eye(2), X, X)
    with pytest.raises(InputError, match="`targets`"):
        contrastive_row_losses(X, X, targets=[0, 1])
    with pytest.raises(InputError, match="`zq`"):
        contrastive_row_losses(torch.ones(3), X)
    with pytest.raises(InputError, match="`rng`|`d_out`"):
        alignment_matrix(2, True)


@pytest.mark.bad_input("embeddings.ProbabilisticEncoder")
def test_probabilistic_encoder_rejects_bad_settings_and_unfitted_use(lsa, pairs, pe):
    for kw, arg in [({"method": "lora"}, "method"), ({"dim": 0}, "dim"), ({"prior_precision": -1.0}, "prior_precision"),
                    ({"propagation": "exact"}, "propagation"), ({"scale": 0.0}, "scale"),
                    ({"input_scale": np.nan}, "input_scale"), ({"curvature": "ggn"}, "curvature"),
                    ({"impute_dead_dims": 1}, "impute_dead_dims"), ({"name": 3}, "name"),
                    ({"method": "ffn"}, "method")]:
        with pytest.raises(InputError, match=f"`{arg}`"):
            ProbabilisticEncoder(lsa, **kw)
    with pytest.raises(InputError, match="`encoder`"):
        ProbabilisticEncoder("not an encoder")
    fresh = ProbabilisticEncoder(lsa)
    for call in (lambda: fresh.encode(TXT), lambda: fresh.calibrate(pairs)):
        with pytest.raises(NotFittedError):
            call()
    # set_params bypasses __init__: fit validates again
    bad = ProbabilisticEncoder(lsa).set_params(prune="no")
    with pytest.raises(InputError, match="`prune`"):
        bad.fit_laplace(pairs)
    with pytest.raises(InputError, match="`batch_size`"):
        ProbabilisticEncoder(lsa).fit_laplace(pairs, batch_size=1)
    with pytest.raises(InputError, match="`shuffle`"):
        ProbabilisticEncoder(lsa).fit_laplace(pairs, shuffle="yes")
    with pytest.raises(InputError, match="`calibration_pairs`"):
        ProbabilisticEncoder(lsa).fit_laplace(pairs, calibration_pairs="pairs")
    with pytest.raises(InputError, match="`y`"):
        ProbabilisticEncoder(lsa).fit(pairs, [1, 0])
    with pytest.raises(InputError, match="`pairs`"):
        ProbabilisticEncoder(lsa).fit(pairs[:1])
    with pytest.raises(InputError, match="`variance_norm`"):
        pe.encode(TXT, variance_norm="l2")
    with pytest.raises(InputError, match="`normalize`"):
        pe.encode_mean(TXT, normalize=1)
    with pytest.raises(InputError, match="`texts`"):
        pe.encode_mean("one text")
    with pytest.raises(InputError, match="`pairs`"):
        pe.calibrate([(TXT[0], TXT[0]), (TXT[1], TXT[1])])


@pytest.mark.bad_input("embeddings.UEC")
def test_uec_rejects_bad_settings_and_unfitted_members(lsa, pairs, pe, ens):
    with pytest.raises(InputError, match="`members`"):
        UEC(pe)
    with pytest.raises(InputError, match="`members`"):
        UEC([pe, ProbabilisticEncoder(lsa, dim=8)])
    for kw, arg in [({"temperature": -1.0}, "temperature"), ({"beta": np.inf}, "beta"), ({"form": "cos"}, "form"),
                    ({"variance_norm": "none"}, "variance_norm"), ({"eps": 0.0}, "eps"), ({"reduce": "max"}, "reduce")]:
        with pytest.raises(InputError, match=f"`{arg}`"):
            UEC([pe], **kw)
    unfitted = UEC([pe, ProbabilisticEncoder(lsa)])
    for call in (lambda: unfitted.encode(TXT), lambda: unfitted.coefficients(TXT), lambda: unfitted.similarity(TXT, TXT),
                 lambda: unfitted.member_embeddings(TXT), lambda: unfitted.calibrate(pairs),
                 lambda: unfitted.member_quality(pairs)):
        with pytest.raises(NotFittedError, match="`members`"):
            call()
    with pytest.raises(InputError, match="`X`"):
        unfitted.fit()
    with pytest.raises(InputError, match="`X`"):
        unfitted.fit([("a", 1), ("b", "c")])
    with pytest.raises(InputError, match="`y`"):
        ens.fit(pairs, y=[1])
    with pytest.raises(InputError, match="`heldout_pairs`"):
        ens.fit(heldout_pairs=[("a", "b")])
    with pytest.raises(InputError, match="`member_means`"):
        ens.combine(np.ones((2, 3, 5)), np.ones((2, 3, 5)))
    with pytest.raises(InputError, match="`member_vars`"):
        ens.combine(np.ones((2, 3, 16)), -np.ones((2, 3, 16)))
    with pytest.raises(InputError, match="`query`"):
        ens.score("q", ens.encode(TXT))
    with pytest.raises(InputError, match="`docs`"):
        ens.score(ens.encode(TXT), (np.ones((2, 3)), np.ones((2, 3))))
    with pytest.raises(InputError, match="`texts`"):
        ens.coefficients([])
    with pytest.raises(InputError, match="`pairs`"):
        ens.calibrate(pairs[:1])
    with pytest.raises(InputError, match="`min_gap`"):
        ens.member_quality(pairs, min_gap=1.5)
    with pytest.raises(InputError, match="`z`"):
        ens.member_quality(pairs, z=0)
    with pytest.raises(InputError, match="`warn`"):
        ens.member_quality(pairs, warn="no")
    bad = UEC([pe]).set_params(beta=-2.0)
    with pytest.raises(InputError, match="`beta`"):
        bad.encode(TXT)
    assert issubclass(MismatchedMembersWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error", MismatchedMembersWarning)
        ens.member_quality(pairs)  # two comparable LSA members: no warning


@pytest.mark.bad_input("embeddings.encoders")
def test_minilm_finetuned_checks_everything_before_loading_the_model():
    pairs = [("a", "b"), ("c", "d")]
    for kw, arg in [({"epochs": 0}, "epochs"), ({"lr": 0.0}, "lr"), ({"batch_size": 1}, "batch_size"),
                    ({"max_seq_length": 0}, "max_seq_length"), ({"name": ""}, "name"), ({"cache": 1}, "cache")]:
        with pytest.raises(InputError, match=f"`{arg}`"):
            encoders.minilm_finetuned(pairs, **kw)
