"""iclr26sci.testing: each assertion's false-alarm rate (measured over repeats) and its power on broken variants."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from scipy import stats

from iclr26sci.testing import (StatisticalAssertionError, assert_covers, assert_improves, assert_rate,
                               assert_same_law, assert_sbc_uniform, assert_unbiased, check_catches, sbc_ranks,
                               spent_alpha)
from iclr26sci.testing import strategies as st

BAD_INPUT_EXEMPT = {"testing.StatisticalAssertionError": "an exception class: raised by the assertions, takes no user input"}

N_EX = 200
ALPHA = 0.05


def _false_alarm_bound(repeats, rate, slack=1e-3):
    """The most false alarms a procedure with rate <= `rate` shows in `repeats` runs, except with prob. `slack`."""
    return stats.binom.ppf(1 - slack, repeats, rate)


def test_assert_covers_bonferroni_over_200_examples_holds_its_rate():
    """An exactly nominal procedure, 200 examples per test run, Bonferroni: family false alarms <= alpha.

    The coverage indicators are drawn directly (Bernoulli(level)), so each of the 300 repeated test runs
    costs 200 calls of assert_covers on 50 indicators."""
    rng = np.random.default_rng(2024)
    repeats, n = 300, 50
    alarms = 0
    for _ in range(repeats):
        cov = rng.random((N_EX, n)) < 0.9
        failed = False
        for k in range(N_EX):
            try:
                assert_covers(cov[k], level=0.9, alpha=ALPHA, spend="bonferroni", n_examples=N_EX)
            except StatisticalAssertionError:
                failed = True
                break
        alarms += failed
    assert alarms <= _false_alarm_bound(repeats, ALPHA), f"{alarms} false alarms in {repeats} runs"


@settings(max_examples=N_EX, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.seeds())
def test_assert_covers_inside_a_hypothesis_test_with_bonferroni(seed):
    """The pattern of docs/testing.md: 200 hypothesis examples, the test's alpha spent over them."""
    r = np.random.default_rng(seed)
    x = r.standard_normal((60, 15))
    m, se = x.mean(1), x.std(1, ddof=1) / np.sqrt(15)
    q = stats.t.ppf(0.95, 14)
    assert_covers(np.c_[m - q * se, m + q * se], 0.0, 0.90, alpha=ALPHA, spend="bonferroni", n_examples=N_EX,
                  seed=seed)


def test_assert_covers_catches_undercoverage():
    def check(level_true):
        cov = np.random.default_rng(0).random(400) < level_true
        assert_covers(cov, level=0.95, alpha=0.01)
    err = check_catches(check, 0.88, correct=0.95)
    assert "binomial band" in str(err) and "seed" in str(err)


@pytest.mark.parametrize("method", ["t", "kse"])
def test_assert_unbiased_rate_and_power(method):
    rng = np.random.default_rng(7)
    alarms = 0
    for _ in range(400):
        try:
            assert_unbiased(rng.standard_normal(30), 0.0, method=method, alpha=ALPHA)
        except StatisticalAssertionError:
            alarms += 1
    # the k.SE rule is asymptotic: allow its small-sample excess (t_29 tails) within 1.5 alpha
    assert alarms <= _false_alarm_bound(400, ALPHA * (1.0 if method == "t" else 1.5))
    check_catches(lambda b: assert_unbiased(b + np.random.default_rng(1).standard_normal(200), 0.0, method=method),
                  0.5, correct=0.0)


def test_assert_unbiased_tolerance():
    x = np.random.default_rng(3).normal(0.05, 0.01, 100)
    with pytest.raises(StatisticalAssertionError):
        assert_unbiased(x, 0.0)
    assert_unbiased(x, 0.0, tol=0.06)


def test_assert_same_law_ks_and_energy():
    rng = np.random.default_rng(11)
    alarms = sum(1 for _ in range(200)
                 if _fails(assert_same_law, rng.standard_normal(80), rng.standard_normal(80), alpha=ALPHA))
    assert alarms <= _false_alarm_bound(200, ALPHA)
    check_catches(lambda s: assert_same_law(rng.standard_normal(300), s * rng.standard_normal(300)), 1.6, correct=1.0)
    a = rng.standard_normal((50, 2))
    assert_same_law(a, rng.standard_normal((50, 2)), seed=0)
    with pytest.raises(StatisticalAssertionError, match="energy"):
        assert_same_law(a, rng.standard_normal((50, 2)) + [1.0, 0.0], seed=0)


def _fails(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except StatisticalAssertionError:
        return True
    return False


def test_assert_rate_passes_the_right_rate_and_catches_a_wrong_one():
    rng = np.random.default_rng(5)
    ns = np.array([50, 100, 200, 400, 800])
    err = np.exp(rng.normal(0, 0.2, (5, 8))) * ns[:, None] ** -0.5
    b, lo, hi = assert_rate(ns, err, -0.5)
    assert lo < b < hi
    with pytest.raises(StatisticalAssertionError, match="slope"):
        assert_rate(ns, err, -1.0)
    alarms = sum(_fails(assert_rate, ns, np.exp(rng.normal(0, 0.2, (5, 8))) * ns[:, None] ** -0.5, -0.5, alpha=ALPHA)
                 for _ in range(300))
    assert alarms <= _false_alarm_bound(300, ALPHA)


@pytest.mark.parametrize("method", ["t", "wilcoxon"])
def test_assert_improves(method):
    rng = np.random.default_rng(9)
    base = rng.standard_normal(60)
    assert_improves(base + 0.4 + 0.3 * rng.standard_normal(60), base, method=method)
    assert_improves(base - 0.4 + 0.3 * rng.standard_normal(60), base, higher_is_better=False, method=method)
    # a method no better than the baseline passes at most alpha of the time
    passes = 0
    for _ in range(300):
        b = rng.standard_normal(30)
        passes += not _fails(assert_improves, b + 0.3 * rng.standard_normal(30), b, alpha=ALPHA, method=method)
    assert passes <= _false_alarm_bound(300, ALPHA)


def test_check_catches_reports_a_check_without_power():
    with pytest.raises(AssertionError, match="no power"):
        check_catches(lambda v: None, "broken")
    with pytest.raises(AssertionError, match="correct variant"):
        check_catches(lambda v: assert_unbiased(np.full(5, 1.0) + np.arange(5) * 1e-3, 0.0), 1, correct=0)
    assert isinstance(check_catches(lambda v: v, False), AssertionError)


def test_spent_alpha_and_message_carry_the_seed():
    assert spent_alpha(0.05, "bonferroni", 100) == pytest.approx(5e-4)
    with pytest.raises(StatisticalAssertionError) as e:
        assert_covers(np.zeros(100, bool), level=0.9, seed=1234)
    msg = str(e.value)
    assert "seed 1234" in msg and "statistic 0" in msg and e.value.alpha == 0.01


def test_sbc_calibrated_and_miscalibrated_posteriors():
    def prior(r):
        return r.standard_normal()

    def sim(t, r):
        return t + r.standard_normal()

    ranks = sbc_ranks(prior, sim, lambda y, L, r: y / 2 + np.sqrt(0.5) * r.standard_normal(L), 300, 19, rng=0)
    assert_sbc_uniform(ranks, 19)
    # over-confident posterior (sd / 3): ranks pile up at the ends
    bad = sbc_ranks(prior, sim, lambda y, L, r: y / 2 + np.sqrt(0.5) / 3 * r.standard_normal(L), 300, 19, rng=0)
    with pytest.raises(StatisticalAssertionError, match="chi-square"):
        assert_sbc_uniform(bad, 19)


def test_sbc_discrete_parameter_ties_are_broken_at_random():
    # model index m ~ Bernoulli(0.3), no data information: the exact posterior is the prior
    ranks = sbc_ranks(lambda r: float(r.random() < 0.3), lambda t, r: None,
                      lambda y, L, r: (r.random(L) < 0.3).astype(float), 400, 19, rng=1)
    assert_sbc_uniform(ranks, 19)
