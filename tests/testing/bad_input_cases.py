"""Bad-input sweep cases for iclr26sci.testing (format: tests/bad_input_sweep.py)."""
import warnings

import numpy as np

from bad_input_sweep import Case
from iclr26sci.testing import (assert_covers, assert_improves, assert_rate, assert_same_law, assert_sbc_uniform,
                               assert_unbiased, check_catches, sbc_ranks, spent_alpha)


def _example(strategy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return strategy.example()


def _strategies_bad():
    from iclr26sci.testing import strategies as st
    return _example(st.psd_matrices(dim=0))


CASES = [
    Case("testing.001", "assert_covers", "level outside (0, 1)", lambda: assert_covers(np.ones(5, bool), level=1.5),
         ("level",)),
    Case("testing.002", "assert_covers", "intervals with lower > upper",
         lambda: assert_covers([[1.0, 0.0]], 0.5), ("intervals",)),
    Case("testing.003", "assert_covers", "bonferroni without n_examples",
         lambda: assert_covers(np.ones(5, bool), spend="bonferroni"), ("n_examples",)),
    Case("testing.004", "assert_unbiased", "one replicate", lambda: assert_unbiased([1.0], 0.0), ("estimates",)),
    Case("testing.005", "assert_unbiased", "NaN estimates", lambda: assert_unbiased([1.0, np.nan], 0.0),
         ("estimates",)),
    Case("testing.006", "assert_same_law", "columns differ",
         lambda: assert_same_law(np.zeros((5, 2)), np.zeros((5, 3))), ("b",)),
    Case("testing.007", "assert_same_law", "too few permutations for alpha",
         lambda: assert_same_law(np.zeros((5, 2)), np.ones((5, 2)), n_permutations=10, alpha=0.01),
         ("n_permutations",)),
    Case("testing.008", "assert_rate", "non-positive errors", lambda: assert_rate([10, 20, 40], [0.1, 0.0, 0.1], -0.5),
         ("errors",)),
    Case("testing.009", "assert_rate", "one distinct n", lambda: assert_rate([10, 10, 10], [0.1, 0.2, 0.1], -0.5),
         ("ns",)),
    Case("testing.010", "assert_improves", "unpaired lengths", lambda: assert_improves([1.0, 2.0], [1.0, 2.0, 3.0]),
         ("b",)),
    Case("testing.011", "assert_improves", "negative margin", lambda: assert_improves([1.0, 2.0], [1.0, 2.0],
                                                                                        margin=-1.0), ("margin",)),
    Case("testing.012", "check_catches", "check not callable", lambda: check_catches("check", 1), ("check",)),
    Case("testing.013", "sbc_ranks", "prior not callable", lambda: sbc_ranks(1.0, lambda t, r: t, lambda y, L, r: y),
         ("prior",)),
    Case("testing.014", "sbc_ranks", "zero simulations",
         lambda: sbc_ranks(lambda r: 0.0, lambda t, r: t, lambda y, L, r: np.zeros(L), n_sims=0), ("n_sims",)),
    Case("testing.015", "assert_sbc_uniform", "ranks above n_draws",
         lambda: assert_sbc_uniform(np.array([0, 25, 3]), 19), ("ranks",)),
    Case("testing.016", "assert_sbc_uniform", "bins not dividing n_draws + 1",
         lambda: assert_sbc_uniform(np.arange(20), 19, bins=3), ("bins",)),
    Case("testing.017", "spent_alpha", "unknown spending rule", lambda: spent_alpha(0.05, "holm"), ("spend",)),
    Case("testing.018", "strategies", "psd_matrices of dimension 0", _strategies_bad, ("dim",)),
]
