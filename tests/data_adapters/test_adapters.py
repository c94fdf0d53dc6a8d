import numpy as np
import pytest

import data_adapters as da
from iclr26sci.core import InputError, ObservationalData


def test_nhefs_real_file():
    d = da.load_nhefs()
    assert isinstance(d, ObservationalData)
    assert d.n == 1566 and d.n_features == 9 and set(np.unique(d.A)) == {0, 1}
    assert d.feature_names[0] == "sex" and np.all(np.isfinite(d.X))
    with pytest.raises(InputError, match="outcome"):
        da.load_nhefs(outcome="bmi")


def test_thornton_and_nsw():
    t = da.load_thornton_hiv()
    assert t.n > 2000 and set(np.unique(t.Y)) <= {0.0, 1.0} and t.meta["randomized"]
    e = da.load_nsw()
    c = da.load_nsw("cps")
    assert e.n == 445 and c.n > 15000 and c.A.sum() == e.A.sum() == 185
    with pytest.raises(InputError, match="control"):
        da.load_nsw("psid")


def test_images_and_patches():
    imgs = da.load_natural_images(["camera", "coffee"])
    assert len(imgs) == 2 and all(i.ndim == 2 and 0 <= i.min() and i.max() <= 1 for i in imgs)
    P = da.load_natural_image_patches(size=8, n=2000, rng=0)
    assert P.shape == (2000, 64)
    np.testing.assert_allclose(P.mean(axis=1), 0, atol=1e-10)
    np.testing.assert_array_equal(P, da.load_natural_image_patches(size=8, n=2000, rng=0))
    keep = da.load_natural_image_patches(size=8, n=2000, rng=0, remove_mean=False)
    np.testing.assert_allclose(keep - keep.mean(axis=1, keepdims=True), P)
    W = da.load_natural_image_patches(size=4, n=5000, rng=1, whiten=True)
    cov = np.cov(W, rowvar=False)
    # whitened: unit variance along all but the (removed) DC direction
    assert np.sum(np.isclose(np.linalg.eigvalsh(cov), 1.0, atol=0.05)) >= 14
    with pytest.raises(InputError, match="names"):
        da.load_natural_images(["lena"])
    with pytest.raises(InputError, match="size"):
        da.load_natural_image_patches(size=1)


def test_text_data():
    bg, test = da.load_lee_corpus()
    assert len(bg) == 300 and len(test) == 50
    docs, sim = da.load_lee_similarity()
    assert sim.shape == (50, 50) and np.allclose(sim, sim.T) and np.allclose(np.diag(sim), 1)
    ws = da.load_word_pairs("wordsim353")
    sl = da.load_word_pairs("simlex999")
    assert len(ws) == 353 and len(sl) == 999 and list(ws.columns) == ["word1", "word2", "score"]
    with pytest.raises(InputError, match="name"):
        da.load_word_pairs("men")


def test_graphs():
    g = da.load_graph("karate")
    assert g.number_of_nodes() == 34 and g.number_of_edges() == 78
    assert set(g.nodes()) == set(range(34))
    for name in da.GRAPH_NAMES:
        assert da.load_graph(name).number_of_nodes() > 10
    with pytest.raises(InputError, match="name"):
        da.load_graph("facebook")


def test_registry_lists_adapters():
    assert {"nhefs", "thornton_hiv", "nsw", "graph", "lee_similarity", "word_pairs"} <= set(da.ADAPTERS)
