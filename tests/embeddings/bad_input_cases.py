"""Bad-input sweep cases for iclr26sci.embeddings (format: tests/bad_input_sweep.py).

Audit rows embeddings.087, .097, .123 and .145 are legitimate calls with the right value (see
test_bad_input_audit.py). embeddings.165's NaN is refused by the GaussianEmbeddings container, naming its `mean`.
"""
import numpy as np

from bad_input_sweep import Case
from iclr26sci.embeddings import DiagLaplaceLinear, GaussianEmbeddings, ProbabilisticEncoder, encoders
from iclr26sci.embeddings.encoders import WordVectorEncoder

_LSA = {}


def _lsa():
    if "lsa" not in _LSA:
        _LSA["lsa"] = encoders.lsa_lee(n_components=16, rng=0)
    return _LSA["lsa"]


CASES = [
    Case("embeddings.034", "WordVectorEncoder", "corpus one doc",
         lambda: WordVectorEncoder(corpus=["a b"], kind="word2vec", vector_size=8, epochs=1, min_count=5)
         .encode(["a"]).sum(), ("corpus",)),
    Case("embeddings.054", "encoders.default_uec", "temperature 0",
         lambda: encoders.default_uec(n_pairs=4, temperature=0.0), ("temperature",)),
    Case("embeddings.055", "encoders.default_uec", "reduce bogus",
         lambda: encoders.default_uec(n_pairs=4, reduce="max"), ("reduce",)),
    Case("embeddings.056", "encoders.default_uec", "beta negative",
         lambda: encoders.default_uec(n_pairs=4, beta=-1.0), ("beta",)),
    Case("embeddings.056b", "encoders.default_uec", "rng bad", lambda: encoders.default_uec(n_pairs=4, rng="x"),
         ("rng",)),
    Case("embeddings.067", "ProbabilisticEncoder", "rng bad", lambda: ProbabilisticEncoder(_lsa(), dim=8, rng="x"),
         ("rng",)),
    Case("embeddings.073", "ProbabilisticEncoder.calibrate", "unfitted",
         lambda: ProbabilisticEncoder(_lsa()).calibrate(encoders.lee_pairs(8, rng=0)),
         ("ProbabilisticEncoder.calibrate",)),
    Case("embeddings.089", "DiagLaplaceLinear.propagate", "unfitted",
         lambda: DiagLaplaceLinear().propagate(np.ones((2, 2))), ("DiagLaplaceLinear.propagate",)),
    Case("embeddings.165", "GaussianEmbeddings", "NaN container",
         lambda: GaussianEmbeddings(np.full((1, 16), np.nan), np.ones((1, 16))), ("mean", "query")),
]
