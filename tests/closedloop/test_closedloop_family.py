"""The official benchmark's GP-UCB proposals (space="directions") and the family-of-brains harness of D3-4."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.closedloop import GPUCB, BoTorchUCB, PCAEmbedder, PCAGenerator, run_loop
from iclr26sci.core import InputError


def _setup():
    pool = np.random.default_rng(0).random((80, 4, 4))
    emb = PCAEmbedder(5).fit(pool)
    return pool, emb, PCAGenerator(emb, noise=0.0)


@pytest.mark.parametrize("cls", [GPUCB, BoTorchUCB])
def test_directions_candidates_lie_on_the_pool_norm_sphere_and_are_rendered(cls):
    pool, emb, gen = _setup()
    opt = cls(emb, pool, generator=gen, space="directions", n_candidates=100, n_init=4, rng=0)
    res = run_loop(opt, lambda x: -np.abs(x.mean(axis=(1, 2)) - 0.6), query_budget=7)
    r = np.median(np.linalg.norm(emb(pool), axis=1))
    assert res.queries == 7 and opt.X_.shape == (7, 5)
    # the GP conditions on the proposed directions themselves (as the official wrapper), all of norm r
    assert np.allclose(np.linalg.norm(opt.X_, axis=1), r)
    # and the images shown are the generator's renderings of them (noise-free PCA decoder)
    assert np.allclose(res.images, gen(opt.X_, np.random.default_rng(0)))
    assert not opt.seen_.any()                   # the pool itself is never searched


def test_directions_space_needs_a_generator():
    pool, emb, _ = _setup()
    with pytest.raises(InputError, match="generator"):
        GPUCB(emb, pool, space="directions")
    with pytest.raises(InputError, match="space"):
        GPUCB(emb, pool, space="direction")


def test_difficulty_targets_one_per_band():
    from validation.closedloop import _difficulty_targets

    pool, emb, _ = _setup()
    idx, nn = _difficulty_targets(pool, emb, 4, np.random.default_rng(1))
    assert len(idx) == 4 and len(set(idx)) == 4
    ranks = np.argsort(np.argsort(nn))[idx]
    assert list(ranks // 20) == [0, 1, 2, 3]          # one from each quarter of nearest-neighbour distance
