"""MiniLM text embeddings are cached by content hash across calls: a fresh workflow with seen texts is not
re-embedded (the cold path of issue 44), and the cache returns exactly what the encoder returned."""
from __future__ import annotations

import numpy as np

from iclr26sci.agents import _model


def test_seen_texts_are_not_embedded_again(monkeypatch):
    calls = []

    def fake_embed(texts):
        calls.append(list(texts))
        return np.stack([np.full(384, float(len(t)), dtype=np.float32) for t in texts])

    import iclr26sci.nn as nn

    monkeypatch.setattr(nn, "embed_texts", fake_embed)
    monkeypatch.setattr(_model, "_TEXT_CACHE", {})
    a = _model._embed(["alpha", "be", "alpha"], "minilm", 384)
    assert calls == [["alpha", "be"]]                        # each distinct text once
    b = _model._embed(["be", "gamma!"], "minilm", 384)
    assert calls[-1] == ["gamma!"]                            # only the new text
    np.testing.assert_array_equal(a[1], b[0])
    np.testing.assert_array_equal(a[0], a[2])
    assert a.shape == (3, 384) and a.dtype == np.float32


def test_cache_is_bounded(monkeypatch):
    import iclr26sci.nn as nn

    monkeypatch.setattr(nn, "embed_texts", lambda texts: np.zeros((len(texts), 384), np.float32))
    monkeypatch.setattr(_model, "_TEXT_CACHE", {})
    monkeypatch.setattr(_model, "_TEXT_CACHE_MAX", 3)
    _model._embed([f"t{i}" for i in range(5)], "minilm", 384)
    assert len(_model._TEXT_CACHE) == 3
