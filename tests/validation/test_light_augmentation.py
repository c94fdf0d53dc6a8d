"""LIGHT's shape-augmentation checks (L7 and the claim c_shape_augmentation_generalises) exercise the augmentation
step: both arms train on the same near-cube sequences, one of them passed through the augmentation first. The broken
variant, an identity (no-op) augmentation, gives the same model twice and must fail both checks. Tiny models only
(width 16, 1 block, 1 epoch on 120 sequences, not cached)."""
from __future__ import annotations

import numpy as np
import pytest

from validation.claims import evaluate_claim
from validation.light import SMALL_NET, _claim_augment, _l7_compare
from validation.registry import Profile

TINY_NET = dict(SMALL_NET, d_model=16, n_layers=1, n_heads=2, batch_size=32, text_encoder="bag-of-words")
TINY_TRAIN = dict(n=150, rng=7)


def _identity(seqs):
    return seqs


@pytest.fixture(scope="module")
def tiny_identity_claim():
    return evaluate_claim(_claim_augment(Profile("claims"), np.random.default_rng(0), augment=_identity, net=TINY_NET,
                                         train=TINY_TRAIN, epochs=1, n_test=40, cache=False))


def test_claim_catches_identity_augmentation(tiny_identity_claim):
    r = tiny_identity_claim
    assert r["effect"]["estimate"] == 0.0            # a no-op augmentation trains the same model
    assert r["verdict"] != "reproduced" and not r["passed"]


def test_claim_with_augmentation_on_tiny_model_sees_a_difference():
    r = evaluate_claim(_claim_augment(Profile("claims"), np.random.default_rng(0), net=TINY_NET, train=TINY_TRAIN,
                                      epochs=1, n_test=40, cache=False))
    assert r["effect"]["estimate"] != 0.0           # the augmentation step changes what is trained


def test_l7_catches_identity_augmentation():
    from iclr26sci.generative.light import LIGHT, planar_hoi

    base = planar_hoi(sizes="narrow", **TINY_TRAIN).train
    a = LIGHT(**TINY_NET).fit(base, epochs=1, progress=False)
    b = LIGHT(**TINY_NET).fit(_identity(base), epochs=1, progress=False)
    test = planar_hoi(n=60, sizes="spectrum", rng=3, test_fraction=0.5).test
    res = _l7_compare(b, a, Profile("quick"), np.random.default_rng(0), test=test)
    assert res.extra["diff"][0] == 0.0 and res.statistic == 0.0 and not (res.statistic > res.threshold)
