"""Power of the causal validation checks: each check FAILS on a deliberately broken variant of the library.

Every check in validation/causal.py names the defect it catches; here the defect is injected with
monkeypatch (on the names the check imports from ``iclr26sci.causal``) and the check is run at the
quick profile. A check that still passed would be a check that cannot fail. The expensive checks
(A4, A8, A9, R1, R2) are marked slow.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import iclr26sci.causal as causal
import validation.causal as vc
from validation.registry import Profile

QUICK = Profile("quick")


def _run(fn, seed=0):
    res = fn(QUICK, np.random.default_rng(seed))
    for c in res.criteria:      # shown with pytest -rA: the broken variant's statistics
        print(f"{fn.__name__}: {c.name} = {c.statistic:.4g} {c.comparison} {c.threshold} -> "
              f"{'pass' if c.passed else 'FAIL'}")
    if not res.criteria:
        print(f"{fn.__name__}: statistic = {res.statistic:.4g} {res.comparison} {res.threshold} -> "
              f"{'pass' if res.passed else 'FAIL'}")
    return res


def _criterion(res, start):
    return next(c for c in res.criteria if c.name.startswith(start))


# ----------------------------------------------------------------------------------------- fast
def test_a1_fails_with_swapped_msm_weights(monkeypatch):
    orig = causal.sharp_capo_bound

    def broken(e, q, nl, nu, gamma, direction="upper"):      # weights of the other direction
        return orig(e, q, nl, nu, gamma, "lower" if direction == "upper" else "upper")

    monkeypatch.setattr(causal, "sharp_capo_bound", broken)
    res = _run(vc.a1_closed_form_bound)
    assert not res.passed and res.statistic > 1e-2


def test_a2_fails_without_the_residual_correction(monkeypatch):
    monkeypatch.setattr(causal, "efficient_scores",
                        lambda Y, A, e, q, nl, nu, gamma, direction="upper", quantile_term_sign=1:
                        causal.plugin_scores(e, q, nl, nu, gamma, direction))
    res = _run(vc.a2_gamma_one_is_aipw)
    assert not res.passed and res.statistic > 1e-3


def test_a3_fails_with_the_paper_code_sign(monkeypatch):
    orig = causal.efficient_scores

    def broken(*args, quantile_term_sign=1, **kw):
        return orig(*args, quantile_term_sign=-1, **kw)

    monkeypatch.setattr(causal, "efficient_scores", broken)
    res = _run(vc.a3_orthogonality)
    assert not res.passed
    c = _criterion(res, "one-step err(0.2)/err(0.1)")
    assert not c.passed and abs(c.statistic - 2.0) < 0.3          # first order, like the plug-in


def test_a3_is_deterministic_across_seeds():
    a, b = _run(vc.a3_orthogonality, 0), _run(vc.a3_orthogonality, 3)
    assert a.passed and b.passed
    assert [c.statistic for c in a.criteria] == pytest.approx([c.statistic for c in b.criteria], rel=1e-9, abs=1e-12)


def test_a5_fails_with_a_too_tight_bound(monkeypatch):
    orig = causal.v1_true_value
    monkeypatch.setattr(causal, "v1_true_value", lambda pol, gamma, direction="upper":
                        orig(pol, 1.0 + 0.9 * (gamma - 1.0), direction))      # Gamma understated by 10%
    res = _run(vc.a5_validity_sharpness)
    assert not res.passed and _criterion(res, "sharpness").statistic > 5


def test_a6_fails_with_swapped_directions(monkeypatch):
    orig = causal.sharp_capo_bound
    monkeypatch.setattr(causal, "sharp_capo_bound", lambda e, q, nl, nu, gamma, direction="upper":
                        orig(e, q, nl, nu, gamma, "lower" if direction == "upper" else "upper"))
    res = _run(vc.a6_monotone_in_gamma)
    assert not res.passed


def test_a7_fails_when_the_sharp_bound_uses_gamma_squared(monkeypatch):
    orig = causal.sharp_value_bounds
    monkeypatch.setattr(causal, "sharp_value_bounds", lambda data, policy, gamma=2.0, **kw:
                        orig(data, policy, gamma**2, **kw))
    res = _run(vc.a7_sharp_inside_zsb)
    assert not res.passed and res.statistic > 0


def test_a10_fails_with_a_gamma_one_value_estimate(monkeypatch):
    orig = causal.score_matrix
    monkeypatch.setattr(causal, "score_matrix", lambda nuis, Y, A, gamma, direction="upper", estimator="efficient",
                        quantile_term_sign=1: orig(nuis, Y, A, gamma, direction, "dr"))
    res = _run(vc.a10_uniform_validity)
    assert not res.passed and res.statistic < 0.5


# ----------------------------------------------------------------------------------------- slow
@pytest.mark.slow
def test_a4_fails_with_the_paper_code_sign(monkeypatch):
    orig = causal.efficient_scores

    def broken(*args, quantile_term_sign=1, **kw):
        return orig(*args, quantile_term_sign=-1, **kw)

    monkeypatch.setattr(causal, "efficient_scores", broken)
    res = _run(vc.a4_coverage_rootn)
    assert not res.passed
    # the sign term inflates the SE (coverage ~0.99) and shrinks the spread: the efficiency criterion catches it
    assert not _criterion(res, "pooled n Var / Var(EIF)").passed


@pytest.mark.slow
def test_a8_fails_with_a_fixed_ridge_penalty(monkeypatch):
    class FixedPenalty(causal.SoftmaxLinearPolicy):
        """The optimiser before the fix: penalty l2 per unit, not l2/n (a regret floor)."""

        def fit(self, X, G):
            l2 = self.l2
            self.l2 = l2 * len(X)
            try:
                return super().fit(X, G)
            finally:
                self.l2 = l2

    monkeypatch.setattr(causal, "SoftmaxLinearPolicy", FixedPenalty)
    res = _run(vc.a8_policy_learning)
    assert not res.passed
    assert not next(c for c in res.criteria if "growth" in c.name and "plug-in" in c.name).passed


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["ignores the SE", "Gamma = 1 (DR)"])
def test_a9_fails_with_a_broken_certificate(monkeypatch, variant):
    orig = causal.policy_improvement

    def broken(data, policy, baseline=None, gamma=2.0, **kw):
        if variant == "Gamma = 1 (DR)":
            return orig(data, policy, baseline, 1.0, **kw)
        cert = orig(data, policy, baseline, gamma, **kw)
        return dataclasses.replace(cert, certified=bool(cert.bound.value < 0))

    monkeypatch.setattr(causal, "policy_improvement", broken)
    res = _run(vc.a9_certified_improvement)
    assert not res.passed
    assert not _criterion(res, "false-certificate rate at the null boundary").passed


@pytest.mark.slow
def test_a9_power_criterion_fails_for_a_certificate_that_never_certifies(monkeypatch):
    orig = causal.policy_improvement
    monkeypatch.setattr(causal, "policy_improvement", lambda *a, **kw:
                        dataclasses.replace(orig(*a, **kw), certified=False))
    res = _run(vc.a9_certified_improvement)
    assert not res.passed and not _criterion(res, "power").passed


@pytest.mark.slow
def test_r1_fails_with_plugin_bounds(monkeypatch):
    orig = causal.sensitivity_curve
    monkeypatch.setattr(causal, "sensitivity_curve", lambda *a, **kw: orig(*a, **{**kw, "estimator": "plugin"}))
    res = _run(vc.r1_nhefs_bounds_vs_gamma)
    assert not res.passed and _criterion(res, "|bounds at Gamma=1").statistic > 1e-6


@pytest.mark.slow
def test_r2_fails_when_the_upper_bound_is_reported_as_the_lower(monkeypatch):
    orig = causal.sharp_value_bounds

    def broken(*a, **kw):
        b = orig(*a, **kw)
        return dataclasses.replace(b, lower=b.upper, upper=b.lower)

    monkeypatch.setattr(causal, "sharp_value_bounds", broken)
    res = _run(vc.r2_thornton_out_of_sample)
    assert not res.passed
