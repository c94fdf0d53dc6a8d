"""Power of the kernels validation checks: each check fails a deliberately broken variant of what it tests.

A check that cannot fail is a defect (DEVELOPERS.md). Each test swaps one component for a plausible bug and
asserts that the check's verdict flips to FAIL (the healthy verdicts are in the validation report, for master
seeds 0-4 at 1 and 2 threads). Checks that need a meta-trained kernel are marked slow.
"""
from __future__ import annotations

import copy
import functools

import numpy as np
import pytest
import torch

import iclr26sci.kernels as K
import validation.kernels as VK
from iclr26sci.kernels import _gp, _model
from validation.registry import Profile

QUICK = Profile("quick")


def _rng(seed=0):
    return np.random.default_rng(np.random.SeedSequence([seed, 12345]))


def _failed(res):
    """The verdict, with the failing criteria printed (pytest -s shows them; quoted in docs/kernels.md)."""
    crit = res.criteria or []
    shown = [f"{c.name} = {c.statistic:.4g} ({'PASS' if c.passed else 'FAIL'})" for c in crit] or \
        [f"statistic = {res.statistic:.4g}"]
    print("broken variant:", "; ".join(shown))
    return not res.passed


def test_t1_fails_gpytorch_mll_not_multiplied_by_n(monkeypatch):
    orig = K.gpytorch_log_evidence
    monkeypatch.setattr(K, "gpytorch_log_evidence", lambda F, y, *a: orig(F, y, *a) / len(y))
    res = VK.t1_evidence_exact(QUICK, _rng())
    assert _failed(res) and res.criteria[1].statistic > 1.0


def test_t2_fails_without_the_implicit_term(monkeypatch):
    orig = K.ift_hypergradient
    monkeypatch.setattr(K, "ift_hypergradient", lambda *a, **k: orig(*a, **{**k, "method": "none"}))
    res = VK.t2_hypergradient_fd(QUICK, _rng())
    assert _failed(res) and res.statistic > 1e-2


@pytest.mark.slow
def test_t3_fails_evidence_without_occam_term(monkeypatch):
    def no_logdet(F, y, psi, pix=None):
        log_s2, log_l, log_n, c = _gp.unpack_psi(psi)
        n = F.shape[-2]
        A = _gp.kernel_matrix(F, F, psi, pix) + torch.exp(log_n)[:, None, None] * torch.eye(n, dtype=F.dtype)
        L = _gp.stable_cholesky(A)
        w = torch.linalg.solve_triangular(L, (y - c[:, None])[..., None], upper=False)
        return -0.5 * (w * w).sum((-1, -2)) - 0.5 * n * _gp.LOG2PI

    monkeypatch.setattr(_model, "log_evidence", no_logdet)
    res = VK.t3_model_selection_consistency(QUICK, _rng())
    assert _failed(res)


def _untrained(profile_name, theory, seed=0):
    """The quick TIK with zero outer steps: calibrated random conv features (no theory learned)."""
    ctx = VK._context(profile_name)
    tasks = K.TheoryTaskSampler(ctx[theory], ctx["patches"], n_tasks=50, n_support=(25,), n_query=10, rng=11)
    return K.TheoryInformedKernel(**{**VK._tik_settings(True), "n_outer": 0}).meta_fit(tasks, rng=seed)


@pytest.mark.slow
def test_t4_fails_untrained_kernel(monkeypatch):
    monkeypatch.setattr(VK, "_meta_trained", functools.lru_cache(maxsize=2)(_untrained))
    res = VK.t4_theory_match(QUICK, _rng())
    assert _failed(res)


@pytest.mark.slow
def test_t5_fails_intervals_without_noise(monkeypatch):
    orig = _model.NeuronGP.predict
    monkeypatch.setattr(_model.NeuronGP, "predict", lambda self, X, include_noise=True: orig(self, X, False))
    res = VK.t5_calibration(QUICK, _rng())
    assert _failed(res) and res.criteria[0].statistic < 0.85


@pytest.mark.slow
def test_t6_fails_untrained_kernel(monkeypatch):
    monkeypatch.setattr(VK, "_meta_trained", functools.lru_cache(maxsize=2)(_untrained))
    res = VK.t6_few_shot(QUICK, _rng())
    assert _failed(res)


@pytest.mark.slow
def test_t9_fails_theory_kernel_alone(monkeypatch):
    """Issue 28: without the pixel fallback the theory kernel is shown to be less accurate than scikit-learn's GPR on
    out-of-theory neurons by more than the 0.02 margin (run as the check runs at master seed 0: r gap -0.107, se 0.030,
    Wilcoxon p 7e-5). The off-centre DoG family is what makes the quick check catch it: with centred-or-near DoG and
    Gabor neurons only, it passed (gap -0.033, p 0.098)."""
    import copy

    orig = VK._meta_trained

    def theory_only(*a):
        tik = copy.copy(orig(*a))
        tik.pixel_fallback = False
        tik._fit_cache = None
        return tik

    monkeypatch.setattr(VK, "_meta_trained", theory_only)
    spec = VK.t9_out_of_theory.check_spec
    res = VK.t9_out_of_theory(QUICK, np.random.default_rng(spec.seed(0)))
    assert _failed(res) and res.criteria[1].statistic < 0.01


def test_t7_fails_wrong_filter_gain(monkeypatch):
    def wrong(self, noise):
        lam, U, keep = self.eigvals_, self.eigvecs_, self._rank_mask
        g = np.zeros_like(lam)
        g[keep] = lam[keep] / (lam[keep] + noise)  # missing square root
        return (U * g) @ U.T

    monkeypatch.setattr(K.EfficientCodingTheory, "filters", wrong)
    res = VK.t7_theory_limits(QUICK, _rng())
    assert _failed(res) and res.criteria[0].statistic > 1e-3


def test_t8_fails_inner_solver_stopped_early(monkeypatch):
    orig = K.solve_inner
    monkeypatch.setattr(K, "solve_inner", lambda *a, **k: orig(*a, **{**k, "iters": 1}))
    res = VK.t8_special_cases(QUICK, _rng())
    assert _failed(res)


def test_t10_oracle_coverage_and_bands():
    """T10's pieces without a model: the oracle coverage of sqrt-Poisson counts tends to the nominal 0.90 at high rates
    and is above it at rates 2-20 (discrete counts); the criteria pass rows near the oracle and fail rows 0.1 below."""
    assert abs(VK.oracle_coverage(np.full(5, 400.0)).mean() - 0.90) < 0.01
    assert VK.oracle_coverage(np.full(5, 3.0)).mean() > 0.90
    g = np.random.default_rng(0)
    rows = []
    for k in VK.CALIBRATION_TYPES:
        for i in range(4):
            c0 = 0.91
            rows.append({"type": k, "neuron": i, "oracle coverage": c0, "n_query": 400,
                         "coverage good": c0 + 0.02 * g.standard_normal(), "coverage bad": c0 - 0.1 + 0.02 * g.standard_normal()})
    crit, _ = VK.calibration_criteria(rows, ["good", "bad"])
    assert crit[0].passed and not crit[1].passed


class _NoNoise:
    """A fitted-TIK wrapper whose intervals leave out the noise variance (the latent function's variance only)."""

    def __init__(self, tik):
        self.tik = tik

    def fit(self, X, y):
        gp = self.tik.fit(X, y)
        return type("P", (), {"predict": lambda _s, Xq: gp.predict(Xq, include_noise=False)})()


@pytest.mark.slow
def test_t10_fails_noise_free_intervals_at_100_tasks(monkeypatch):
    orig = VK._meta_trained_small
    monkeypatch.setattr(VK, "_meta_trained_small", lambda *a, **k: _NoNoise(orig(*a, **k)))
    spec = VK.t10_calibration_budgets.check_spec
    res = VK.t10_calibration_budgets(QUICK, np.random.default_rng(spec.seed(0)))
    assert _failed(res) and not res.criteria[0].passed
