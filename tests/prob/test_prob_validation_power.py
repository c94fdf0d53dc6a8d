"""The prob validation checks can fail: each broken variant named in a check's details is run here,
and the check must report FAIL (with the criterion that catches it).

A check is run exactly as ``iclr26sci validate --only prob --seed 0`` runs it (same per-check seed),
with one function replaced by a deliberately wrong version through monkeypatch.
"""
import numpy as np
import pytest
from scipy import stats

import validation.prob as vp
from iclr26sci.prob import DiscreteLaw
from iclr26sci.prob import _wasserstein as W
from validation.registry import Profile, load_checks

SPECS = {s.name: s for s in load_checks(["prob"])}


def _run(name, seed=0):
    spec = SPECS[name]
    return spec.func(Profile("quick"), np.random.default_rng(spec.seed(seed)))


def _failed(res, criterion=None):
    if res.passed:
        return False
    if criterion is None:
        return True
    return any(criterion in c.name and not c.passed for c in res.criteria)


# ---------------------------------------------------------------- broken Wasserstein distances

def _prep(x, w):
    x = np.asarray(x, float)
    w = np.full(x.size, 1 / x.size) if w is None else np.asarray(w, float) / np.sum(w)
    o = np.argsort(x)
    return x[o], w[o]


def w1_off_by_one(u, v, uw=None, vw=None, p=1):
    """W1 with the CDFs read on the wrong side of each breakpoint (searchsorted side='left')."""
    x, a = _prep(u, uw)
    y, b = _prep(v, vw)
    ca, cb = np.concatenate([[0.0], np.cumsum(a)]), np.concatenate([[0.0], np.cumsum(b)])
    pts = np.sort(np.concatenate([x, y]))
    left = pts[:-1]
    Fa = ca[np.searchsorted(x, left, side="left")]
    Fb = cb[np.searchsorted(y, left, side="left")]
    return float(np.dot(np.abs(Fa - Fb), np.diff(pts)))


def wp_unscaled(u, v, uw=None, vw=None, p=1):
    """The exact formula without the common rescaling (the pre-hardening code): |x - y|**p overflows."""
    x, a = _prep(u, uw)
    y, b = _prep(v, vw)
    with np.errstate(over="ignore", invalid="ignore"):
        return W._wasserstein_unit(x, y, a, b, float(p))


def wp_level_ends(u, v, uw=None, vw=None, p=1):
    """W_p with the quantiles read at the END of each level interval instead of its midpoint (off by one)."""
    x, a = _prep(u, uw)
    y, b = _prep(v, vw)
    if p == 1:
        return W._wasserstein_unit(x, y, a, b, 1.0)
    ca, cb = np.cumsum(a), np.cumsum(b)
    ca[-1] = cb[-1] = 1.0
    levels = np.unique(np.concatenate([ca, cb]))
    dt = np.diff(np.concatenate([[0.0], levels]))
    qa = x[np.minimum(np.searchsorted(ca, levels, side="right"), x.size - 1)]
    qb = y[np.minimum(np.searchsorted(cb, levels, side="right"), y.size - 1)]
    return float(np.sum(np.abs(qa - qb) ** p * dt) ** (1.0 / p))


@pytest.mark.slow
def test_w1_check_catches_off_by_one_cdf(monkeypatch):
    monkeypatch.setattr(vp, "wasserstein_distance", w1_off_by_one)
    res = _run("w1_agrees_with_scipy_and_pot")
    assert _failed(res, "scipy") and _failed(res, "POT")


@pytest.mark.slow
def test_w1_check_catches_overflowing_unscaled_formula(monkeypatch):
    monkeypatch.setattr(vp, "wasserstein_distance", wp_unscaled)
    res = _run("w1_agrees_with_scipy_and_pot")
    assert _failed(res, "1e200")


def test_wp_check_catches_quantiles_at_level_ends(monkeypatch):
    monkeypatch.setattr(vp, "wasserstein_distance", wp_level_ends)
    res = _run("wp_agrees_with_transport_lp")
    assert _failed(res, "LP optimum")


# ---------------------------------------------------------------- broken Gaussian DP

def gdp_delta_wrong_sign(mu, epsilon):
    """The profile with the sign of its second term flipped: Phi(a) + e^eps Phi(b)."""
    if mu == 0:
        return 0.0
    return float(stats.norm.cdf(-epsilon / mu + mu / 2) + np.exp(epsilon) * stats.norm.cdf(-epsilon / mu - mu / 2))


@pytest.mark.slow
def test_gdp_mc_check_catches_wrong_sign(monkeypatch):
    monkeypatch.setattr(vp, "gdp_delta", gdp_delta_wrong_sign)
    res = _run("gdp_profile_matches_privacy_loss_mc")
    assert not res.passed and res.statistic > 100


@pytest.mark.slow
def test_gdp_mc_check_catches_linear_composition(monkeypatch):
    monkeypatch.setattr(vp, "gdp_compose", lambda mus: float(np.sum(mus)))
    res = _run("gdp_profile_matches_privacy_loss_mc")
    assert not res.passed and res.statistic > 100


def test_gdp_conversion_check_catches_wrong_sign_profile(monkeypatch):
    monkeypatch.setattr(vp, "gdp_delta", gdp_delta_wrong_sign)
    res = _run("gdp_tighter_than_zcdp_and_inverts")
    assert _failed(res, "quadrature") and _failed(res, "delta(eps(delta))")


def test_gdp_conversion_check_catches_an_epsilon_of_zero(monkeypatch):
    monkeypatch.setattr(vp, "gdp_epsilon", lambda mu, delta: 0.0)
    res = _run("gdp_tighter_than_zcdp_and_inverts")
    assert _failed(res, "delta(eps(delta))")


def test_gdp_conversion_check_catches_a_loose_root_finder(monkeypatch):
    real = vp.gdp_epsilon
    monkeypatch.setattr(vp, "gdp_epsilon", lambda mu, delta: real(mu, delta) * (1 + 1e-3))
    res = _run("gdp_tighter_than_zcdp_and_inverts")
    assert _failed(res, "delta(eps(delta))")


# ---------------------------------------------------------------- broken binomial band

def band_without_halving(nominal, n, false_alarm=0.01):
    return float(stats.binom.ppf(false_alarm, n, nominal)) / n, float(stats.binom.ppf(1 - false_alarm, n, nominal)) / n


def test_binomial_check_catches_unhalved_false_alarm(monkeypatch):
    monkeypatch.setattr(vp, "binomial_band", band_without_halving)
    res = _run("binomial_band_calibration")
    assert _failed(res, "simulated false-alarm")


def test_binomial_check_catches_an_over_wide_band(monkeypatch):
    monkeypatch.setattr(vp, "binomial_band", lambda nominal, n, false_alarm=0.01: (0.0, 1.0))
    res = _run("binomial_band_calibration")
    assert _failed(res, "narrower")


# ---------------------------------------------------------------- broken truncated normal

def truncnorm_naive(mu, sigma, lower=-np.inf, upper=np.inf):
    """The textbook formulas with Z = Phi(b) - Phi(a) evaluated directly (cancels in the far tails)."""
    mu, sigma, lo, hi = np.broadcast_arrays(*(np.asarray(v, float) for v in (mu, sigma, lower, upper)))
    a, b = (lo - mu) / sigma, (hi - mu) / sigma
    with np.errstate(all="ignore"):
        Z = stats.norm.cdf(b) - stats.norm.cdf(a)
        pa, pb = stats.norm.pdf(a), stats.norm.pdf(b)
        ta = np.where(np.isfinite(a), a * pa, 0.0)
        tb = np.where(np.isfinite(b), b * pb, 0.0)
        m = (pa - pb) / Z
        return mu + sigma * m, sigma ** 2 * (1 + (ta - tb) / Z - m ** 2)


def test_truncnorm_check_catches_naive_formula(monkeypatch):
    monkeypatch.setattr(vp, "truncated_normal_moments", truncnorm_naive)
    res = _run("truncated_normal_vs_scipy")
    assert not res.passed


def test_truncnorm_check_catches_variance_sign_error(monkeypatch):
    real = vp.truncated_normal_moments

    def wrong(mu, sigma, lower=-np.inf, upper=np.inf):
        m, v = real(mu, sigma, lower, upper)
        d = (m - mu) / sigma
        return m, v + 2 * sigma ** 2 * d ** 2      # "+ m^2" instead of "- m^2"

    monkeypatch.setattr(vp, "truncated_normal_moments", wrong)
    assert _failed(_run("truncated_normal_vs_scipy"), "var")


# ---------------------------------------------------------------- broken CVaR / sampler

def cvar_whole_atoms_only(self, alpha, tail="lower"):
    """Average of the atoms wholly inside the lowest alpha mass (drops the partial atom at the boundary)."""
    x, w = (self.support, self.weights) if tail == "lower" else (self.support[::-1], self.weights[::-1])
    c = np.cumsum(w)
    keep = c <= alpha + 1e-15
    if not keep.any():
        return float(x[0])
    return float(w[keep] @ x[keep] / w[keep].sum())


def test_cvar_check_catches_dropped_partial_atom(monkeypatch):
    monkeypatch.setattr(DiscreteLaw, "cvar", cvar_whole_atoms_only)
    res = _run("cvar_lipschitz_in_w1")
    assert _failed(res, "Rockafellar")


def test_cvar_check_catches_sampler_ignoring_weights(monkeypatch):
    def uniform_sample(self, n, rng=None):
        return np.random.default_rng(0).choice(self.support, size=n)

    monkeypatch.setattr(DiscreteLaw, "sample", uniform_sample)
    res = _run("cvar_lipschitz_in_w1")
    assert _failed(res, "sample CVaR")


def test_unbroken_checks_pass_at_seed_0():
    for name in ("wp_agrees_with_transport_lp", "gdp_tighter_than_zcdp_and_inverts", "binomial_band_calibration",
                 "truncated_normal_vs_scipy", "cvar_lipschitz_in_w1"):
        assert _run(name).passed, name
