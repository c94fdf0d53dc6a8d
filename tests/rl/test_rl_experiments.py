"""The bandit, the linear-softmax toy, the lemma rates and the verl-signature estimator."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.rl import (bandit_experiment, bandit_rewards, linear_softmax_toy, optimal_arm_rate, rs_advantage,
                          verl_rs_advantage)


def test_bandit_rewards_official():
    mu = bandit_rewards()
    x = np.arange(100)
    ref = 0.1 + 0.9 * np.exp(-((x - 40) ** 2) / 50) + 0.5 * np.exp(-((x - 75) ** 2) / 50)
    np.testing.assert_allclose(mu, ref, rtol=0, atol=1e-15)


def test_bandit_short_run_shapes_and_reproducible():
    a = bandit_experiment(beta=[0, 8], steps=400, seeds=2, rng=5, record_every=100)
    b = bandit_experiment(beta=[0, 8], steps=400, seeds=2, rng=5, record_every=100)
    np.testing.assert_array_equal(a.final_reward, b.final_reward)
    assert a.reward_curve.shape == (2, 2, 4) and a.final_policy.shape == (2, 2, 100)
    np.testing.assert_allclose(a.final_policy.sum(-1), 1.0)
    assert "beta" in a.summary() and a.to_dict()["betas"] == [0.0, 8.0] and "BanditResult" in repr(a)


def test_bandit_single_update_matches_hand_formula():
    """One update of G=16 equals theta + lr/G sum_i A_i (e_{a_i} - pi) with the same draws."""
    from iclr26sci.core import as_generator, spawn
    from iclr26sci.rl.rs_grpo import _bandit_init, _softmax

    res = bandit_experiment(beta=[2.0], steps=1, seeds=1, rng=11, record_every=1)
    theta = _bandit_init(100)
    pi = _softmax(theta)
    u = as_generator(spawn(11, 1)[0]).random((1, 16))[0]
    cdf = np.cumsum(pi)
    cdf[-1] = 1.0
    a = np.minimum((u[:, None] > cdf[None, :]).sum(1), 99)
    A = rs_advantage(bandit_rewards()[a], beta=2.0)
    grad = np.zeros(100)
    for ai, w in zip(a, A):
        g = -pi.copy()
        g[ai] += 1
        grad += w * g
    np.testing.assert_allclose(res.final_policy[0, 0], _softmax(theta + 0.1 * grad / 16), atol=1e-14)


def test_bandit_other_methods_run():
    for m in ("grpo", "dr_grpo", "grpo_entropy"):
        r = bandit_experiment(steps=50, seeds=1, rng=0, method=m, entropy_coef=0.01)
        assert r.final_reward.shape == (1, 1) and np.isfinite(r.final_reward).all()


def test_toy_short_run():
    res = linear_softmax_toy({"GRPO": ("grpo", {}), "RS": ("rs", {"beta": 2.0}), "PKPO": ("pkpo", {"k": 4}),
                              "PT": ("passk_training", {"k": 4}), "ENT": ("grpo_entropy", {"entropy_coef": 0.01})},
                             steps=30, seeds=1, rng=0)
    assert set(res.pass_at) == {"base", "GRPO", "RS", "PKPO", "PT", "ENT"}
    for v in res.pass_at.values():
        assert np.all(np.diff(v[0]) >= -1e-12) and np.all((0 <= v) & (v <= 1))   # pass@k increasing in k
    assert "p@256" in res.summary() and res.to_dict()["ks"] == [1, 4, 16, 64, 256]


def test_lemma_rates_reference_values():
    pi, r = [0.05, 0.85, 0.04, 0.03, 0.03], [1, 0.8, 0.1, 0.1, 0.1]
    assert optimal_arm_rate(pi, r, 0.0) == pytest.approx(-1.4412e-3, rel=1e-4)
    assert optimal_arm_rate(pi, r, 2.0) == pytest.approx(-2.24e-4, rel=1e-2)
    assert optimal_arm_rate(pi, r, 4.0) == pytest.approx(5.07e-4, rel=1e-2)
    p = np.array(pi)
    lim = p[0] * ((1 - p[0]) ** 2 + np.sum(p[1:] ** 2))
    assert optimal_arm_rate(pi, r, 2000.0, scaled=True) == pytest.approx(lim, rel=1e-9)


def test_lemma_rate_matches_finite_difference():
    from iclr26sci.rl.rs_grpo import _rs_population_advantage, _softmax

    rng = np.random.default_rng(0)
    th, r = rng.standard_normal(6), rng.random(6)
    pi = _softmax(th)
    eta = 1e-6
    g = pi * _rs_population_advantage(pi, r, 3.0)
    fd = (_softmax(th + eta * g)[r.argmax()] - pi[r.argmax()]) / eta
    assert optimal_arm_rate(pi, r, 3.0) == pytest.approx(fd, rel=1e-4)


def test_verl_estimator_semantics():
    torch = pytest.importorskip("torch")
    tlr = torch.zeros(5, 4)
    tlr[[0, 2, 3], -1] = torch.tensor([1.0, 1.0, 0.5])
    mask = torch.ones(5, 4)
    mask[1, 3] = 0
    idx = np.array(["a", "a", "b", "b", "c"], dtype=object)
    adv, ret = verl_rs_advantage(tlr, mask, idx, beta=2.0)
    seq = rs_advantage(tlr.sum(-1).double(), idx.astype(str), beta=2.0).float()
    assert torch.allclose(adv, seq[:, None] * mask) and torch.equal(adv, ret)
    assert adv[4].abs().sum() == 0                                         # singleton -> 0
    adv_o, _ = verl_rs_advantage(tlr, mask, idx, beta=2.0, singleton="official")
    assert adv_o[4, 0].item() == pytest.approx(0.0)                       # r = 0 -> (e^0 - 1)/beta = 0
    tlr[4, -1] = 1.0
    adv_o, _ = verl_rs_advantage(tlr, mask, idx, beta=2.0, singleton="official")
    assert adv_o[4, 0].item() == pytest.approx(np.expm1(2.0) / 2.0, rel=1e-6)

