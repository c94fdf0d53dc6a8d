import math

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import given
from hypothesis import strategies as st

from iclr26sci.core import InputError
from iclr26sci.prob import (
    DiagonalGaussian,
    GaussianAccountant,
    binomial_band,
    gaussian_sigma,
    gdp_compose,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
    gdp_mu_gaussian,
    pinball_loss,
    truncated_normal_moments,
    weighted_quantile,
    zcdp_epsilon,
)


def test_gdp_delta_closed_form_value():
    mu, eps = 1.0, 1.0
    expected = ss.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * ss.norm.cdf(-eps / mu - mu / 2)
    assert gdp_delta(mu, eps) == pytest.approx(expected, rel=1e-12)
    assert gdp_delta(0.0, 1.0) == 0.0


@given(st.floats(0.05, 8.0), st.floats(1e-10, 0.2))
def test_epsilon_inverts_delta(mu, delta):
    eps = gdp_epsilon(mu, delta)
    assert eps >= 0
    if eps > 0:
        assert gdp_delta(mu, eps) == pytest.approx(delta, rel=1e-6)


@given(st.floats(0.01, 20.0), st.floats(1e-10, 0.1))
def test_mu_inverts_and_gdp_beats_zcdp(eps, delta):
    mu = gdp_mu(eps, delta)
    assert gdp_delta(mu, eps) == pytest.approx(delta, rel=1e-6)
    assert gdp_epsilon(mu, delta) <= zcdp_epsilon(mu ** 2 / 2, delta) + 1e-9


@given(st.lists(st.floats(0.0, 3.0), min_size=1, max_size=20))
def test_composition_monotone(mus):
    total = gdp_compose(mus)
    assert total >= max(mus) - 1e-12
    assert gdp_delta(total, 1.0) >= gdp_delta(max(mus), 1.0) - 1e-15


def test_delta_monotone_in_epsilon_and_mu():
    eps = np.linspace(0, 5, 30)
    d = [gdp_delta(1.3, e) for e in eps]
    assert np.all(np.diff(d) <= 1e-15)
    assert gdp_delta(2.0, 1.0) > gdp_delta(1.0, 1.0)


def test_accountant_and_sigma_calibration():
    acc = GaussianAccountant().add(1.0, 10.0, count=100)
    assert acc.mu == pytest.approx(1.0)
    assert acc.rho == pytest.approx(0.5)
    sigma = gaussian_sigma(1.0, 1e-5, sensitivity=2.0, compositions=50)
    acc2 = GaussianAccountant().add(2.0, sigma, count=50)
    assert acc2.epsilon(1e-5) == pytest.approx(1.0, rel=1e-6)
    assert acc2.delta(1.0) == pytest.approx(1e-5, rel=1e-5)
    acc2.add_mu(0.0, 3)
    assert acc2.mu == pytest.approx(GaussianAccountant().add(2.0, sigma, count=50).mu)


def test_privacy_loss_monte_carlo_agrees():
    rng = np.random.default_rng(0)
    mu, eps = 1.5, 1.0
    L = mu * rng.standard_normal(1_000_000) + mu ** 2 / 2
    g = np.clip(1 - np.exp(eps - L), 0, None)
    se = g.std() / 1000
    assert abs(g.mean() - gdp_delta(mu, eps)) < 5 * se


def test_gdp_bad_inputs():
    with pytest.raises(InputError, match="sigma"):
        gdp_mu_gaussian(1.0, 0.0)
    with pytest.raises(InputError, match="delta"):
        gdp_epsilon(1.0, 0.0)
    with pytest.raises(InputError, match="epsilon"):
        gdp_delta(1.0, -1.0)
    with pytest.raises(InputError, match="mus"):
        gdp_compose([1.0, -1.0])
    with pytest.raises(InputError, match="compositions"):
        gaussian_sigma(1.0, 1e-5, compositions=0)
    with pytest.raises(InputError, match="count"):
        GaussianAccountant().add(1.0, 1.0, count=-1)


@given(st.floats(0.01, 0.99))
def test_pinball_minimised_by_quantile(tau):
    y = np.random.default_rng(1).normal(size=401)
    q = weighted_quantile(y, tau)
    base = pinball_loss(y, q, tau)
    for d in (-0.05, 0.05):
        assert pinball_loss(y, q + d, tau) >= base - 1e-12


def test_weighted_quantile_and_pinball():
    x = np.array([3.0, 1.0, 2.0])
    assert weighted_quantile(x, 0.5) == 2.0
    assert weighted_quantile(x, 0.5, [1, 0, 0]) == 3.0
    np.testing.assert_allclose(weighted_quantile(x, [0.0, 1.0]), [1.0, 3.0])
    assert pinball_loss([1.0], [0.0], 0.9) == pytest.approx(0.9)
    assert pinball_loss([0.0], [1.0], 0.9) == pytest.approx(0.1)
    assert pinball_loss([0.0, 1.0], [1.0, 1.0], 0.9, reduce="none").shape == (2,)
    with pytest.raises(InputError, match="tau"):
        pinball_loss([1.0], [1.0], 1.0)
    with pytest.raises(InputError, match="tau"):
        weighted_quantile([1.0], 2.0)
    with pytest.raises(InputError, match="weights"):
        weighted_quantile([1.0, 2.0], 0.5, [0.0, 0.0])
    with pytest.raises(InputError, match="reduce"):
        pinball_loss([1.0], [1.0], 0.5, reduce="max")


@given(st.floats(-5, 5), st.floats(0.1, 5), st.floats(-6, 6), st.floats(0.01, 6))
def test_truncated_normal_matches_scipy(mu, sigma, za, width):
    a = mu + sigma * za
    b = a + sigma * width
    m, v = truncated_normal_moments(mu, sigma, a, b)
    ref = ss.truncnorm(za, za + width, loc=mu, scale=sigma)
    assert m == pytest.approx(ref.mean(), abs=1e-7 * sigma)
    assert v == pytest.approx(ref.var(), abs=1e-6 * sigma ** 2)
    assert a <= m <= b


def test_truncated_normal_limits_and_errors():
    m, v = truncated_normal_moments(0.0, 1.0)
    assert m == pytest.approx(0) and v == pytest.approx(1)
    m, _ = truncated_normal_moments(0.0, 1.0, 0.0, np.inf)
    assert m == pytest.approx(math.sqrt(2 / math.pi))
    with pytest.raises(InputError, match="sigma"):
        truncated_normal_moments(0.0, 0.0)
    with pytest.raises(InputError, match="upper"):
        truncated_normal_moments(0.0, 1.0, 1.0, 0.0)


def test_diagonal_gaussian_ops():
    rng = np.random.default_rng(0)
    a = DiagonalGaussian(rng.normal(size=(4, 3)), rng.uniform(0.1, 1, size=(4, 3)))
    b = DiagonalGaussian(rng.normal(size=(4, 3)), rng.uniform(0.1, 1, size=(4, 3)))
    s = DiagonalGaussian.weighted_sum([a, b], [0.3, 0.7])
    np.testing.assert_allclose(s.mean, 0.3 * a.mean + 0.7 * b.mean)
    np.testing.assert_allclose(s.var, 0.09 * a.var + 0.49 * b.var)
    W = rng.dirichlet([1, 1], size=4)
    s2 = DiagonalGaussian.weighted_sum([a, b], W)
    np.testing.assert_allclose(s2.mean, W[:, :1] * a.mean + W[:, 1:] * b.mean)
    xa, xb = a.sample(200_000, rng), b.sample(200_000, rng)
    dots = np.sum(xa * xb, axis=-1)
    np.testing.assert_allclose(dots.mean(0), a.expected_dot(b), atol=0.03)
    np.testing.assert_allclose(dots.var(0), a.dot_variance(b), rtol=0.03)
    assert a.total_precision().shape == (4,)
    assert len(a) == 4 and a[1:3].shape == (2, 3) and a.dim == 3
    with pytest.raises(InputError, match="weights"):
        DiagonalGaussian.weighted_sum([a, b], [1.0])
    with pytest.raises(InputError, match="var"):
        DiagonalGaussian(np.zeros(3), -np.ones(3))
    with pytest.raises(InputError, match="members"):
        DiagonalGaussian.weighted_sum([a, DiagonalGaussian(np.zeros((2, 3)), 1.0)], [0.5, 0.5])
    with pytest.raises(InputError, match="other"):
        a.expected_dot(DiagonalGaussian(np.zeros((4, 2)), 1.0))


def test_binomial_band():
    lo, hi = binomial_band(0.95, 1000, 0.01)
    assert lo < 0.95 < hi
    assert binomial_band(0.95, 100000, 0.01)[1] - binomial_band(0.95, 100000, 0.01)[0] < hi - lo
    with pytest.raises(InputError, match="nominal"):
        binomial_band(1.5, 10)
    with pytest.raises(InputError, match="false_alarm"):
        binomial_band(0.5, 10, 0.0)
