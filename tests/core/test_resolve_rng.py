"""``random_state``, scikit-learn's name for ``rng``: how an estimator's two seeds resolve to one."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError, resolve_rng


def test_one_given_wins_and_same_seed_is_allowed():
    g = np.random.default_rng(0)
    rs = np.random.RandomState(0)
    assert resolve_rng(None, None) is None
    assert resolve_rng(4, None) == 4 and resolve_rng(None, 4) == 4
    assert resolve_rng(None, g) is g and resolve_rng(g, None) is g and resolve_rng(g, g) is g
    assert resolve_rng(None, rs) is rs
    assert resolve_rng(np.int64(3), 3) == 3


def test_a_numeric_default_yields_to_random_state():
    # an estimator whose rng defaults to 0 cannot tell rng=0 from its default: random_state wins
    assert resolve_rng(0, 9, default=0) == 9
    with pytest.raises(InputError, match="random_state"):
        resolve_rng(1, 9, default=0)


@pytest.mark.parametrize("rng, random_state", [(1, 2), (np.random.default_rng(0), np.random.default_rng(0)),
                                               (0, np.random.SeedSequence(0)), (True, 1)])
def test_two_different_seeds_are_refused(rng, random_state):
    with pytest.raises(InputError, match="random_state"):
        resolve_rng(rng, random_state)


def test_bad_seeds_name_their_argument():
    with pytest.raises(InputError, match="`random_state`"):
        resolve_rng(None, -2)
    with pytest.raises(InputError, match="`rng`"):
        resolve_rng(1.5, None)
