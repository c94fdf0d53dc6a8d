"""Sentence embedders for the routers: packaged MiniLM, a hashed bag of words, or the user's own."""
from __future__ import annotations

import re
import zlib
from typing import Callable

import numpy as np

from iclr26sci.core import InputError, check_positive_int

__all__ = ["HashingEmbedder", "resolve_embedder", "EMBEDDERS"]

#: the embedder names the routers accept (besides a callable)
EMBEDDERS = ("minilm", "hashing")

_WORD = re.compile(r"[a-z]+|\d+")


class HashingEmbedder:
    r"""A hashed bag-of-words embedding: a cheap, deterministic, download-free stand-in for MiniLM.

    Each lower-cased word (and word bigram) ``w`` adds :math:`\sigma(w)` to coordinate :math:`h(w) \bmod m`,
    with ``h`` the CRC-32 of the word and :math:`\sigma(w) = \pm 1` one more bit of a second hash; the
    counts are log-damped (:math:`\operatorname{sign}(v)\log(1+|v|)`) and the row L2-normalised, so a
    dot product is a cosine similarity. Used by the quick validation profile, where MiniLM's load and
    encode time would exceed the budget; MiniLM (``"minilm"``) is the default of every router.

    Parameters
    ----------
    dim : int, default 512
        Number of hash buckets :math:`m`.
    bigrams : bool, default True
        Also hash adjacent word pairs.

    Examples
    --------
    >>> e = HashingEmbedder(dim=64)
    >>> X = e(["the cat sat", "the cat sat", "a dog ran"])
    >>> X.shape, round(float(X[0] @ X[1]), 6), bool(X[0] @ X[2] < 0.9)
    ((3, 64), 1.0, True)
    """

    def __init__(self, dim: int = 512, bigrams: bool = True):
        self.dim = check_positive_int(dim, "dim", minimum=2)
        if not isinstance(bigrams, bool):
            raise InputError("bigrams", f"got {bigrams!r}", "True or False")
        self.bigrams = bigrams

    def __repr__(self):
        return f"HashingEmbedder(dim={self.dim}, bigrams={self.bigrams})"

    def __call__(self, texts) -> np.ndarray:
        texts = _check_text_list(texts, "texts")
        X = np.zeros((len(texts), self.dim))
        for i, t in enumerate(texts):
            words = _WORD.findall(t.lower())
            feats = words + ([a + "_" + b for a, b in zip(words, words[1:])] if self.bigrams else [])
            for w in feats:
                h = zlib.crc32(w.encode())
                X[i, h % self.dim] += 1.0 if (h >> 20) & 1 else -1.0
        X = np.sign(X) * np.log1p(np.abs(X))
        nrm = np.linalg.norm(X, axis=1, keepdims=True)
        return X / np.where(nrm > 0, nrm, 1.0)


def _check_text_list(texts, name):
    if isinstance(texts, str) or not hasattr(texts, "__iter__"):
        raise InputError(name, f"got {type(texts).__name__}", "a list of strings")
    texts = list(texts)
    if not texts:
        raise InputError(name, "is empty", "at least one text")
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise InputError(name, f"entry {i} is {type(t).__name__}", "strings")
    return texts


def _minilm(texts):
    from iclr26sci.nn import embed_texts

    return np.asarray(embed_texts(texts, normalize=True), dtype=float)


def resolve_embedder(embedder, name: str = "embedder") -> Callable:
    """The embedding function a router uses: ``"minilm"``, ``"hashing"`` or a callable ``texts -> (n, m)``.

    Examples
    --------
    >>> resolve_embedder("hashing")(["a b"]).shape
    (1, 512)
    """
    if isinstance(embedder, str):
        if embedder == "minilm":
            return _minilm
        if embedder == "hashing":
            return HashingEmbedder()
        raise InputError(name, f"got {embedder!r}", f"one of {EMBEDDERS} or a callable texts -> array (n, m)")
    if callable(embedder):
        def call(texts, _f=embedder):
            X = np.asarray(_f(list(texts)), dtype=float)
            if X.ndim != 2 or X.shape[0] != len(texts) or not np.all(np.isfinite(X)):
                raise InputError(name, f"returned an array of shape {X.shape} (or non-finite values)",
                                 f"a finite array of shape ({len(texts)}, m)")
            return X
        return call
    raise InputError(name, f"got {type(embedder).__name__}", f"one of {EMBEDDERS} or a callable texts -> array (n, m)")


def normalize_rows(X: np.ndarray) -> np.ndarray:
    nrm = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(nrm > 0, nrm, 1.0)
