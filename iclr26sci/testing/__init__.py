"""Hypothesis strategies and error-controlled statistical assertions for scientists' own tests.

- :mod:`iclr26sci.testing.strategies` (needs ``hypothesis``): polymatrix games, confounded data with known
  sharp bounds, tabular MDPs with experts, rotations, rigid transforms, cameras, PSD matrices, simplex
  points, RS-GRPO reward groups, Gaussian tilt problems.
- Assertions with a stated false-alarm rate ``alpha``, spent over a test's examples
  (``spend="bonferroni", n_examples=max_examples``, or a derandomised profile with ``spend="none"``):
  :func:`assert_covers`, :func:`assert_unbiased`, :func:`assert_same_law`, :func:`assert_rate`,
  :func:`assert_improves`; the power check :func:`check_catches`; simulation-based calibration
  :func:`sbc_ranks`, :func:`assert_sbc_uniform`. A failure raises :class:`StatisticalAssertionError`
  (an ``AssertionError``) that gives the statistic, the threshold, the alpha and the seed.

See ``docs/testing.md`` for worked examples.
"""
from __future__ import annotations


from ._assert import (StatisticalAssertionError, assert_covers, assert_improves, assert_rate, assert_same_law,
                      assert_unbiased, check_catches, spent_alpha)
from ._sbc import assert_sbc_uniform, sbc_ranks

__all__ = ["assert_covers", "assert_unbiased", "assert_same_law", "assert_rate", "assert_improves", "check_catches",
           "sbc_ranks", "assert_sbc_uniform", "spent_alpha", "StatisticalAssertionError", "strategies"]


def __getattr__(name):  # PEP 562: the hypothesis strategies load on first use (hypothesis is a test dependency)
    if name == "strategies":
        from iclr26sci.core._lazy import load_name   # a missing hypothesis names the extra to install

        mod = load_name(__name__, ".strategies")
        globals()[name] = mod
        return mod
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"strategies"})
