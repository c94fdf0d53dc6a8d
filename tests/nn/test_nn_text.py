"""nn._text: the packaged MiniLM sentence embeddings."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.nn import MINILM_DIM, embed_texts, minilm_path

BAD_INPUT_EXEMPT = {"nn.minilm_path": "takes no input", "nn.MINILM_DIM": "a constant integer (the embedding width)"}


def test_embeddings_are_unit_norm_and_order_preserving():
    texts = ["carry the chair", "a dog runs", "lift the chair up"]
    E = embed_texts(texts)
    assert E.shape == (3, MINILM_DIM) and E.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(E, axis=1), 1.0, atol=1e-5)
    # one text at a time gives the same rows: batching does not change results
    one = np.vstack([embed_texts(t) for t in texts])
    np.testing.assert_allclose(one, E, atol=1e-5)
    # paraphrases are closer than unrelated text
    assert E[0] @ E[2] > E[0] @ E[1]
    raw = embed_texts(texts, normalize=False)
    np.testing.assert_allclose(raw / np.linalg.norm(raw, axis=1, keepdims=True), E, atol=1e-5)
    assert minilm_path()


@pytest.mark.bad_input("nn.embed_texts")
@pytest.mark.parametrize("kwargs, arg", [
    ({"texts": []}, "texts"), ({"texts": ["ok", ""]}, "texts"), ({"texts": ["ok", 3]}, "texts"),
    ({"texts": 5}, "texts"), ({"texts": ["a"], "normalize": 1}, "normalize"),
    ({"texts": ["a"], "batch_size": 0}, "batch_size"), ({"texts": ["a"], "device": ""}, "device"),
])
def test_embed_texts_bad_input(kwargs, arg):
    with pytest.raises(InputError, match=arg):
        embed_texts(**kwargs)
