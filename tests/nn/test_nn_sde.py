"""The Flow-GRPO SDE (per-step Gaussian policy), the memoryless SDE, and the power of their validation checks."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from iclr26sci.core import InputError
from iclr26sci.nn import (FlowMatching, FlowSDE, GaussianFlowOracle, MemorylessSDE, SDEStep, VelocityMLP, flow_sde,
                          memoryless_sde)
from iclr26sci.nn._sde import gaussian_step_moments

ORC = GaussianFlowOracle(mean=[1.0, -0.5], cov=[[0.6, 0.2], [0.2, 0.4]])


def _flow_grpo_sigma_space(x, u, sigma, sigma_next, sigma_1, a):
    """Flow-GRPO's step written in SD3's time (sigma = 1 noise), u = dx/dsigma; independent of our derivation."""
    dsig = sigma_next - sigma                                        # negative
    denom = 1 - (sigma_1 if sigma == 1 else sigma)
    s_t = a * math.sqrt(sigma / denom)
    mean = x * (1 + s_t ** 2 / (2 * sigma) * dsig) + u * (1 + s_t ** 2 * (1 - sigma) / (2 * sigma)) * dsig
    return mean, s_t * math.sqrt(-dsig)


@pytest.mark.parametrize("sigma,sigma_next", [(1.0, 0.9), (0.7, 0.55), (0.2, 0.0)])
def test_step_equals_flow_grpo_in_sigma_time(sigma, sigma_next):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 3, generator=g, dtype=torch.float64)
    u = torch.randn(4, 3, generator=g, dtype=torch.float64)
    t = torch.full((4,), 1 - sigma, dtype=torch.float64)
    h = torch.full((4,), sigma - sigma_next, dtype=torch.float64)
    mean, std = gaussian_step_moments(x, -u, t, h, 0.7 ** 2)
    m_ref, s_ref = _flow_grpo_sigma_space(x, u, sigma, sigma_next, sigma_next, 0.7)
    torch.testing.assert_close(mean, m_ref, atol=1e-12, rtol=1e-12)
    assert abs(float(std[0]) - s_ref) < 1e-12


def test_noise_level_zero_is_the_euler_step():
    sde = flow_sde(ORC, noise_level=0.0)
    x = torch.randn(5, 2, dtype=torch.float64)
    st_ = sde.step(x, 0.3, 0.1, rng=0)
    torch.testing.assert_close(st_.mean, x + 0.1 * ORC.velocity(x, 0.3))
    assert float(st_.std.max()) == 0.0


def test_sde_preserves_marginals_monte_carlo():
    sde = flow_sde(ORC, noise_level=1.0)
    res = sde.sample(n=10000, steps=100, rng=0, return_trajectory=True)
    assert res.log_prob.shape == (100, 10000) and res.trajectory.shape == (101, 10000, 2)
    for k in (50, 100):
        xs = res.trajectory[k].numpy()
        t = k / 100
        C = ORC.marginal_cov(t)
        np.testing.assert_allclose(xs.mean(0), ORC.marginal_mean(t), atol=5 * np.sqrt(C.diagonal().max() / 10000))
        np.testing.assert_allclose(np.cov(xs.T), C, atol=0.04)   # 4 SE (~0.008 each) + O(h) bias


def test_memoryless_drift_and_control():
    ms = memoryless_sde(ORC)
    x = torch.randn(6, 2, dtype=torch.float64)
    b = ms.drift(x, 0.4)
    torch.testing.assert_close(b, 2 * ORC.velocity(x, 0.4) - x / 0.4)
    assert abs(float(ms.diffusion(0.5)) - 1.0 * math.sqrt(2)) < 1e-12
    st0 = ms.step(x, 0.4, 0.01, rng=0)
    torch.testing.assert_close(st0.mean, x + 0.01 * b)       # the memoryless SDE's Euler-Maruyama mean
    u = torch.ones_like(x)
    st1 = ms.step(x, 0.4, 0.01, rng=0, control=u)
    g = math.sqrt(2 * 0.6 / 0.4)
    torch.testing.assert_close(st1.mean - st0.mean, 0.01 * g * u)
    assert isinstance(ms, MemorylessSDE) and "Memoryless" in repr(ms)


def test_step_result_api_and_x_next():
    sde = flow_sde(ORC, 0.7)
    x = torch.randn(3, 2, dtype=torch.float64)
    s1 = sde.step(x, 0.2, 0.1, rng=1)
    s2 = sde.step(x, 0.2, 0.1, rng=1)
    torch.testing.assert_close(s1.sample, s2.sample)
    s3 = sde.step(x, 0.2, 0.1, x_next=s1.sample)
    torch.testing.assert_close(s3.log_prob(s3.sample), s1.log_prob(s1.sample))
    assert isinstance(s1, SDEStep) and "SDEStep" in repr(s1) and "Gaussian step" in s1.summary()
    assert s1.to_dict()["B"] == 3 and s1.log_prob(s1.sample, reduce="none").shape == (3, 2)
    assert isinstance(sde, FlowSDE) and "0.7" in repr(sde)


def test_step_on_a_fitted_model_with_grad_and_per_row_times():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(256, 2))
    torch.manual_seed(0)
    fm = FlowMatching(VelocityMLP(2, hidden=(8,))).fit(X, epochs=1, batch_size=128, rng=0, progress=False)
    sde = flow_sde(fm, 0.7)
    x = torch.randn(4, 2)
    st_ = sde.step(x, torch.tensor([0.0, 0.2, 0.5, 0.8]), 0.1, rng=0)
    lp = st_.log_prob(st_.sample.detach())
    lp.sum().backward()       # the policy's log-likelihood is differentiable in theta
    assert any(p.grad is not None for p in fm.velocity_net.parameters())


def test_ot_cfm_model_is_refused():
    X = np.random.default_rng(0).normal(size=(64, 2))
    torch.manual_seed(0)
    fm = FlowMatching(VelocityMLP(2, hidden=(8,)), path="ot-cfm").fit(X, epochs=1, batch_size=64, rng=0,
                                                                      progress=False)
    with pytest.raises(InputError, match="fm"):
        flow_sde(fm)
    with pytest.raises(InputError, match="fm"):
        flow_sde(GaussianFlowOracle([0.0], path="ot"))


@settings(max_examples=25, deadline=None)
@given(B=st.integers(1, 4), dims=st.lists(st.integers(1, 3), min_size=1, max_size=3),
       t=st.floats(0.0, 0.9), a=st.floats(0.05, 1.5), seed=st.integers(0, 10 ** 6))
def test_property_log_prob_equals_scipy(B, dims, t, a, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(B, *dims, generator=g, dtype=torch.float64)
    v = torch.randn(B, *dims, generator=g, dtype=torch.float64)
    sde = FlowSDE(lambda x, t, cond=None: v, noise_level=a, shape=tuple(dims))
    st_ = sde.step(x, t, 0.1, rng=g)
    y, mu, s = st_.sample.numpy(), st_.mean.numpy(), st_.std.numpy()
    ref = stats.norm.logpdf(y, mu, s).reshape(B, -1)
    np.testing.assert_allclose(st_.log_prob(st_.sample, reduce="mean").numpy(), ref.mean(1), atol=1e-10, rtol=0)
    np.testing.assert_allclose(st_.log_prob(st_.sample, reduce="sum").numpy(), ref.sum(1), atol=1e-10, rtol=0)
    other = FlowSDE(lambda x, t, cond=None: v * 0.5, noise_level=a, shape=tuple(dims)).step(x, t, 0.1, rng=0)
    kl = st_.kl(other, reduce="sum").numpy()
    same_std = ((st_.mean - other.mean) ** 2).reshape(B, -1).sum(1) / (2 * st_.std.reshape(-1) ** 2)
    np.testing.assert_allclose(kl, same_std.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(st_.kl(other, reduce="mean").numpy(), kl / np.prod(dims), rtol=1e-12)
    assert float(st_.kl(st_, reduce="sum").abs().max()) < 1e-12


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.bad_input("nn.flow_sde", "nn.FlowSDE")
def test_flow_sde_bad_input():
    with pytest.raises(InputError, match="noise_level"):
        flow_sde(ORC, noise_level=-0.1)
    with pytest.raises(InputError, match="noise_level"):
        flow_sde(ORC, noise_level=float("nan"))
    with pytest.raises(InputError, match="velocity"):
        flow_sde("model")
    with pytest.raises(InputError, match="shape"):
        FlowSDE(lambda x, t, c=None: x)


@pytest.mark.bad_input("nn.FlowSDE", "nn.SDEStep")
@pytest.mark.parametrize("kwargs,arg", [
    (dict(x_t=torch.zeros(3, 4, dtype=torch.float64)), "x_t"),
    (dict(x_t=torch.full((3, 2), float("nan"), dtype=torch.float64)), "x_t"),
    (dict(x_t=torch.zeros(0, 2, dtype=torch.float64)), "x_t"),
    (dict(x_t=torch.zeros(3, 2, dtype=torch.long)), "x_t"),
    (dict(t=-0.1), "t"), (dict(t=1.2), "t"), (dict(dt=0.0), "dt"), (dict(dt=-0.1), "dt"),
    (dict(t=0.95, dt=0.1), "dt"), (dict(t=torch.tensor([0.1, 0.2])), "t"),
    (dict(cond=1), "cond"), (dict(guidance=float("nan")), "guidance"),
    (dict(x_next=torch.zeros(3, 5)), "x_next"), (dict(control=torch.zeros(2, 2)), "control"),
])
def test_step_bad_input(kwargs, arg):
    sde = flow_sde(ORC, 0.7)
    call = dict(x_t=torch.zeros(3, 2, dtype=torch.float64), t=0.2, dt=0.1)
    call.update(kwargs)
    with pytest.raises(InputError, match=arg):
        sde.step(call.pop("x_t"), call.pop("t"), call.pop("dt"), **call)


@pytest.mark.bad_input("nn.SDEStep", "nn.FlowSDE")
def test_sdestep_methods_bad_input():
    sde = flow_sde(ORC, 0.7)
    s = sde.step(torch.zeros(3, 2, dtype=torch.float64), 0.2, 0.1, rng=0)
    with pytest.raises(InputError, match="x_next"):
        s.log_prob(torch.zeros(3, 3))
    with pytest.raises(InputError, match="reduce"):
        s.log_prob(s.sample, reduce="max")
    with pytest.raises(InputError, match="other"):
        s.kl("ref")
    with pytest.raises(InputError, match="other"):
        s.kl(sde.step(torch.zeros(2, 2, dtype=torch.float64), 0.2, 0.1, rng=0))
    with pytest.raises(InputError, match="steps"):
        sde.sample(n=3, steps=0)
    with pytest.raises(InputError, match="n"):
        sde.sample(n=-1)
    with pytest.raises(InputError, match="reduce"):
        sde.sample(n=2, steps=2, reduce="avg")
    with pytest.raises(InputError, match="v"):
        sde.step_from_velocity(torch.zeros(3, 2, dtype=torch.float64), torch.zeros(3, 1), 0.2, 0.1)


@pytest.mark.bad_input("nn.memoryless_sde", "nn.MemorylessSDE")
def test_memoryless_bad_input():
    with pytest.raises(InputError, match="fm"):
        memoryless_sde(GaussianFlowOracle([0.0], sigma_min=0.1))
    with pytest.raises(InputError, match="fm"):
        memoryless_sde(GaussianFlowOracle([0.0], path="ot"))
    ms = memoryless_sde(ORC)
    with pytest.raises(InputError, match="t"):
        ms.drift(torch.zeros(2, 2, dtype=torch.float64), 0.0)
    with pytest.raises(InputError, match="`x`"):  # drift's argument is x
        ms.drift(torch.zeros(2, 3, dtype=torch.float64), 0.5)
    with pytest.raises(InputError, match="dt"):
        ms.step(torch.zeros(2, 2, dtype=torch.float64), 0.5, 0.0)


# ------------------------------------------------------------------------------------------- validation power
def _run(fn, seed=0, **kw):
    from validation.registry import Profile

    return fn(Profile("quick"), np.random.default_rng(seed), **kw)


class _BrokenStep(SDEStep):
    """log-density without its -log s term."""

    def log_prob(self, x_next, reduce="mean"):
        return super().log_prob(x_next, reduce) + (torch.log(self.std).expand_as(self.mean).reshape(
            self.mean.shape[0], -1).sum(1) if reduce == "sum" else torch.log(self.std).reshape(-1))


class _NoLogS(FlowSDE):
    def _finish(self, *a, **k):
        s = super()._finish(*a, **k)
        return _BrokenStep(mean=s.mean, std=s.std, sample=s.sample, t=s.t, dt=s.dt)


class _WrongSampleStd(FlowSDE):
    """Draws with 1.05 x the std it reports."""

    def _finish(self, x_t, v, tt, hh, x_next, rng, control):
        s = super()._finish(x_t, v, tt, hh, x_next, rng, control)
        if x_next is not None:
            return s
        return SDEStep(mean=s.mean, std=s.std, sample=s.mean + 1.05 * (s.sample - s.mean), t=s.t, dt=s.dt)


class _HalfKL(SDEStep):
    def kl(self, other, reduce="mean"):
        return 2 * super().kl(other, reduce)


class _KLMissingHalf(FlowSDE):
    def _finish(self, *a, **k):
        s = super()._finish(*a, **k)
        return _HalfKL(mean=s.mean, std=s.std, sample=s.sample, t=s.t, dt=s.dt)


def test_validation_power_step_logprob_kl():
    from validation.nn_flow import step_logprob_kl

    assert _run(step_logprob_kl).passed
    for cls, which in ((_NoLogS, "log_prob"), (_WrongSampleStd, "entropy"), (_KLMissingHalf, "KL")):
        res = _run(step_logprob_kl, _factory=lambda o, a, cls=cls: cls(o, noise_level=a))
        assert not res.passed, cls.__name__
        assert any(which in c.name and not c.passed for c in res.criteria), (cls.__name__, res.criteria)


class _DriftFullG2(FlowSDE):
    """Drift correction g^2 * score instead of g^2/2 * score (the reverse-SDE coefficient, wrong here)."""

    def _moments(self, x, v, t, h):
        return gaussian_step_moments(x, v, t, h, 2 * self._a2(t), self.sigma_min)[0], \
            gaussian_step_moments(x, v, t, h, self._a2(t), self.sigma_min)[1]


class _StdNoSqrtDt(FlowSDE):
    def _moments(self, x, v, t, h):
        mean, std = gaussian_step_moments(x, v, t, h, self._a2(t), self.sigma_min)
        return mean, std / torch.sqrt(h.reshape(std.shape))


class _MemorylessHalf(MemorylessSDE):
    def _a2(self, t):
        return 1.0


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["drift_full_g2", "std_no_sqrt_dt", "sampler_std", "memoryless_half"])
def test_validation_power_sde_marginals(variant):
    from validation.nn_flow import sde_marginals

    def factory(o, a):
        if variant == "memoryless_half":
            return _MemorylessHalf(o) if a == "memoryless" else flow_sde(o, a)
        a = 0.7 if a == "memoryless" else a
        cls = {"drift_full_g2": _DriftFullG2, "std_no_sqrt_dt": _StdNoSqrtDt, "sampler_std": _WrongSampleStd}[variant]
        return cls(o, noise_level=a)

    res = _run(sde_marginals, _factory=factory)
    assert not res.passed


@pytest.mark.slow
def test_validation_power_velocity_time_blind():
    from validation.nn_flow import velocity_matches_exact

    res = _run(velocity_matches_exact, _ignore_time=True)
    assert not res.passed
    assert res.criteria[0].statistic > 0.05
