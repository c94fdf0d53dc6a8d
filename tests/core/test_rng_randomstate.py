"""A legacy numpy RandomState (scikit-learn's random_state) is a valid rng: reproducible given its state, and
advanced in place like a Generator."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import as_generator, check_rng, seed_sequence
from iclr26sci.core._argchecks import check_rng as check_rng_args


def test_randomstate_is_accepted_and_reproducible():
    a = as_generator(np.random.RandomState(3)).random(4)
    b = as_generator(np.random.RandomState(3)).random(4)
    assert np.array_equal(a, b)
    rs = np.random.RandomState(3)
    first, second = seed_sequence(rs).entropy, seed_sequence(rs).entropy
    assert first != second                       # the state advances, as a Generator's does
    assert check_rng(rs) is rs and check_rng_args(rs) is rs
