"""TempFlow-GRPO: schedule, weights, advantages, loss, rollouts of the four modes, the diffusers path."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from iclr26sci.generative import (OFFICIAL_OMEGA_CONSTANT, FlowGRPOTrainer, class_reward, group_advantages,
                                  grpo_loss, noise_aware_weights, sd3_time_grid, target_reward)
from iclr26sci.nn import FlowMatching, GaussianFlowOracle, VelocityMLP, flow_sde


@pytest.fixture(scope="module")
def fm2():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 1024)
    X = np.c_[2.0 * y - 1, np.zeros_like(y)] + 0.3 * rng.normal(size=(1024, 2))
    return FlowMatching(VelocityMLP(2, hidden=(32, 32), n_classes=2), p_uncond=0.0).fit(
        X, cond=y, epochs=5, batch_size=128, rng=0, progress=False)


def _trainer(fm, **kw):
    base = dict(steps=5, branches=3, seeds_per_prompt=2, group_size=4, lr=1e-3, rng=0, progress=False)
    base.update(kw)
    return FlowGRPOTrainer(fm, target_reward([[1.0, 1.0], [-1.0, 1.0]]), **base)


# ------------------------------------------------------------------------------------------------ schedule
def test_grid_matches_diffusers_scheduler():
    diffusers = pytest.importorskip("diffusers")
    for T, shift in [(10, 3.0), (20, 3.0), (7, 1.0), (4, 5.0)]:
        s = diffusers.FlowMatchEulerDiscreteScheduler(shift=shift)
        s.set_timesteps(T)
        np.testing.assert_allclose(sd3_time_grid(T, shift), 1 - s.sigmas.double().numpy(), atol=1e-6)


def test_weights_default_schedule_and_official_constant():
    w = noise_aware_weights(10, 3.0, 0.7)
    # the spec's numbers for steps 0..8 (TempFlow official schedule)
    np.testing.assert_allclose(w, [1.58, 1.67, 1.21, 1.00, 0.88, 0.79, 0.72, 0.64, 0.51], atol=0.006)
    assert w[0] < w[1]                                   # the step-0 exception (sigma = 1 -> sigmas[1])
    off = noise_aware_weights(10, 3.0, 0.7, weighting="official")
    assert abs(off.mean() - 1) < 2e-3                    # 2.25 is the normaliser of this schedule ...
    for T, c in [(20, 3.24), (40, 4.60)]:                # ... and not of others
        raw = noise_aware_weights(T, 3.0, 0.7, weighting="official") / OFFICIAL_OMEGA_CONSTANT
        assert abs(1 / raw.mean() - c) < 0.01
        assert abs(noise_aware_weights(T, weighting="official").mean() - 1) > 0.3
    np.testing.assert_array_equal(noise_aware_weights(10, weighting="none"), np.ones(9))
    s = noise_aware_weights(10, weighting="sigma")
    assert abs(s.mean() - 1) < 1e-12 and np.all(np.diff(s[1:]) < 0)


@settings(max_examples=40, deadline=None)
@given(T=st.integers(3, 60), shift=st.floats(1.0, 5.0), a=st.floats(0.05, 2.0))
def test_weights_mean_one_and_decreasing_after_step0(T, shift, a):
    w = noise_aware_weights(T, shift, a)
    assert abs(w.mean() - 1) < 1e-9
    assert np.all(w > 0)
    assert np.all(np.diff(w[1:]) < 0)                    # strictly decreasing from k = 1 on (shift <= 5)


def test_weights_on_a_custom_uniform_grid():
    w = noise_aware_weights(times=np.linspace(0, 1, 6), noise_level=0.5)
    sig = 0.5 * np.sqrt(np.r_[1 / 0.2, 0.8 / 0.2, 0.6 / 0.4, 0.4 / 0.6])   # step 0 uses t_1 = 0.2
    np.testing.assert_allclose(w, sig / sig.mean(), rtol=1e-12)


# ------------------------------------------------------------------------------------------------ advantages
def test_group_advantages_axes():
    rng = np.random.default_rng(1)
    R = rng.normal(size=(3, 4, 5, 6))
    A = group_advantages(R, "seed", clip=None)
    np.testing.assert_allclose(A.mean(3), 0, atol=1e-12)
    np.testing.assert_allclose(A, (R - R.mean(3, keepdims=True)) / (R.std(3, keepdims=True) + 1e-4))
    B = group_advantages(R, "prompt", clip=None)
    np.testing.assert_allclose(B.mean((1, 3)), 0, atol=1e-12)
    assert not np.allclose(A, B)
    big = group_advantages(np.r_[np.zeros(99), 1.0].reshape(1, 1, 1, 100), "seed")
    assert big.max() == 5.0                               # advantage clip


# ------------------------------------------------------------------------------------------------ loss
def test_grpo_loss_clipping_and_kl_closed_form():
    sde = flow_sde(GaussianFlowOracle(mean=[1.0, 0.0]), noise_level=0.7)
    x = torch.zeros(4, 2, dtype=torch.float64)
    old = sde.step(x, 0.4, 0.1, rng=0)
    y = old.sample
    from iclr26sci.nn import SDEStep

    offset = torch.tensor([[0.3, 0.0], [0.3, 0.0], [0.0, 0.2], [0.0, 0.2]], dtype=torch.float64)
    shift = torch.zeros(4, 2, dtype=torch.float64, requires_grad=True)
    new = SDEStep(mean=old.mean + offset + shift, std=old.std, sample=y, t=old.t, dt=old.dt)
    target = torch.tensor([1.5, 0.5, 1.1, 0.9], dtype=torch.float64)    # ratios: rows 0, 1 outside 1 +- 0.2
    lp_old = new.log_prob(y).detach() - torch.log(target)
    A = torch.tensor([1.0, -1.0, 1.0, -1.0], dtype=torch.float64)
    loss, s = grpo_loss(new, old, y, lp_old, A, clip=0.2, kl_beta=0.5)
    torch.testing.assert_close(s["ratio"], target)
    assert s["clipped"].tolist() == [True, True, False, False]
    loss.sum().backward()
    g = shift.grad
    dmu = (new.mean - old.mean).detach()
    kl_grad = 0.5 * dmu / old.std ** 2 / 2                         # beta * d/dmu of mean_dims |dmu|^2 / (2 s^2)
    # rows 0, 1: the clipped branch has no policy gradient, only the KL's remains
    torch.testing.assert_close(g[:2], kl_grad[:2])
    # rows 2, 3: -A * ratio * d log pi / d mu + KL gradient, d log pi / d mu = (y - mu) / (d s^2)
    dlp = (y - new.mean.detach()) / (2 * old.std ** 2)
    torch.testing.assert_close(g[2:], (-A[2:, None] * target[2:, None] * dlp[2:]) + kl_grad[2:])
    # KL is the closed form mean_dims |dmu|^2 / (2 s^2)
    kl = ((new.mean - old.mean) ** 2 / (2 * old.std ** 2)).mean(1)
    torch.testing.assert_close(s["kl"], kl.detach())


@settings(max_examples=25, deadline=None)
@given(B=st.integers(1, 6), d=st.integers(1, 5), t=st.floats(0.0, 0.9), a=st.floats(0.1, 1.5))
def test_stored_logprob_equals_scipy(B, d, t, a):
    sde = flow_sde(GaussianFlowOracle(mean=np.linspace(-1, 1, d)), noise_level=a)
    x = torch.as_tensor(np.random.default_rng(B).normal(size=(B, d)))
    stp = sde.step(x, t, 0.1, rng=1)
    lp = stp.log_prob(stp.sample).numpy()
    ref = stats.norm.logpdf(stp.sample.numpy(), stp.mean.numpy(), stp.std.numpy()).mean(1)
    np.testing.assert_allclose(lp, ref, atol=1e-10)


# ------------------------------------------------------------------------------------------------ rollouts
def test_tempflow_costs_and_reference_untouched(fm2):
    before = [p.detach().clone() for p in fm2.velocity_net.parameters()]
    tr = _trainer(fm2, mode="tempflow", kl_beta=0.01).fit([0, 1], n_updates=2)
    T, K, S, P = 5, 3, 2, 2
    per_trunk = (T - 1) + K * sum(T - 1 - k for k in range(T - 1))
    assert tr.history_["nfe"].tolist() == [P * S * per_trunk, 2 * P * S * per_trunk]
    assert tr.history_["reward_calls"].tolist() == [P * S * K * (T - 1), 2 * P * S * K * (T - 1)]
    for a, b in zip(before, fm2.velocity_net.parameters()):
        assert torch.equal(a, b)                          # the user's model is the frozen reference
    moved = any(not torch.equal(a, b) for a, b in zip(before, tr.policy_.net.parameters()))
    assert moved
    assert tr.history_["kl"][0] == 0.0                    # first update: policy == reference
    assert tr.history_["kl"][1] > 0
    assert "TempFlow" not in repr(tr) and "updates" in tr.summary()
    assert set(tr.to_dict()["history"]) >= {"reward", "kl", "reward_calls", "nfe", "seconds"}


def test_process_rewards_only_step_noise():
    """A branch's reward varies only through the step-k noise: its spread is linear in the noise level for
    small levels (the ODE continuation is smooth), and zero variation comes from elsewhere."""
    orc = GaussianFlowOracle(mean=[0.5, 0.0], cov=[[0.2, 0.0], [0.0, 0.1]])
    S = []
    for a in (0.01, 0.02):
        tr = FlowGRPOTrainer(orc, target_reward([1.0, 0.0]), steps=6, branches=64, noise_level=a, rng=0,
                             progress=False)
        R = tr.process_rewards(None, seeds_per_prompt=2, rng=3)
        assert R.shape == (1, 2, 5, 64)
        S.append(R.std(3)[0])
    np.testing.assert_allclose(S[0] / S[1], 0.5, atol=0.02)


def test_modes_sde_steps_and_shared_noise(fm2):
    tr = _trainer(fm2, mode="mix_grpo", window=2)
    tr._p = tr._validate()
    assert tr._sde_steps(0, 8) == [0, 1] and tr._sde_steps(7, 8) == [3, 4]
    tr = _trainer(fm2, mode="dance_grpo").fit([0], n_updates=1)
    tr.policy_  # fitted
    import iclr26sci.generative.tempflow as tf

    gen = tf.torch_generator(0)
    ro = tr._rollout_traj(tr.policy_.check_cond(np.array([0]), 1), 1, 4, gen, 0, 1)
    assert torch.allclose(ro["x"][0][0], ro["x"][0][1])    # DanceGRPO: shared initial noise within a group
    assert ro["mask"].sum(0).tolist() == [3] * 4            # int(0.6 * 5) steps trained per trajectory
    tr = _trainer(fm2, mode="flow_grpo").fit([0], n_updates=1)
    ro = tr._rollout_traj(tr.policy_.check_cond(np.array([0]), 1), 1, 4, gen, 0, 1)
    assert not torch.allclose(ro["x"][0][0], ro["x"][0][1])
    assert ro["mask"].sum(0).tolist() == [4] * 4            # int(0.99 * 5)


def test_weighting_variants_reach_the_trainer(fm2):
    for wt in ("computed", "official", "none", "sigma"):
        tr = _trainer(fm2, mode="tempflow", weighting=wt).fit([0, 1], n_updates=1)
        ref = noise_aware_weights(5, 3.0, 0.7, weighting=wt)
        np.testing.assert_allclose(tr.weights_[:4], ref, rtol=1e-9)


def test_tempflow_learns_on_2d_target(fm2):
    tr = _trainer(fm2, mode="tempflow", steps=6, branches=4, seeds_per_prompt=4, lr=3e-3, kl_beta=0.0,
                  eval_n=64).fit([0, 1], n_updates=25)
    ev = tr.history_["eval_reward"]
    assert ev[-5:].mean() > ev[:3].mean() + 0.05
    x = tr.sample([1], n=200, steps=20, rng=0).x
    from iclr26sci.nn import ode_sample

    x0 = ode_sample(fm2, n=200, cond=1, times=sd3_time_grid(20), rng=0).x      # same noise, base model
    tgt = torch.tensor([-1.0, 1.0])
    assert float((x - tgt).norm(dim=1).mean()) < float((x0 - tgt).norm(dim=1).mean()) - 0.05


def test_classifier_reward_prob_differentiable():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)
    clf = LogisticRegression().fit(X, y)
    r = class_reward(clf, clamp=None)
    x = torch.as_tensor(X[:5], dtype=torch.float32).requires_grad_(True)
    out = r(x, y[:5])
    np.testing.assert_allclose(out.detach().numpy(), clf.predict_proba(X[:5])[np.arange(5), y[:5]], rtol=1e-4)
    out.sum().backward()
    assert x.grad is not None and float(x.grad.abs().sum()) > 0
    top = class_reward(clf, kind="top1", clamp=None)(x.detach(), y[:5]).numpy()
    np.testing.assert_array_equal(top, (clf.predict(X[:5]) == y[:5]).astype(float))


# ------------------------------------------------------------------------------------------------ diffusers
def _tiny_sd3():
    diffusers = pytest.importorskip("diffusers")
    torch.manual_seed(0)
    m = diffusers.SD3Transformer2DModel(sample_size=8, patch_size=2, in_channels=4, num_layers=1,
                                        attention_head_dim=8, num_attention_heads=2, joint_attention_dim=16,
                                        caption_projection_dim=16, pooled_projection_dim=8, out_channels=4,
                                        pos_embed_max_size=8)
    return diffusers, m


def test_diffusers_sd3_tiny_transformer_all_modes():
    diffusers, m = _tiny_sd3()
    from iclr26sci.generative import DiffusersFlowModel

    E, Pp = torch.randn(3, 5, 16), torch.randn(3, 8)
    dm = DiffusersFlowModel(m, diffusers.FlowMatchEulerDiscreteScheduler(shift=3.0), (4, 8, 8),
                            prompt_embeds=E, pooled_prompt_embeds=Pp)

    def rew(x, p):
        return -x.reshape(x.shape[0], -1).mean(1)

    before = [q.detach().clone() for q in m.parameters()]
    for mode in ("tempflow", "flow_grpo", "mix_grpo", "dance_grpo"):
        tr = FlowGRPOTrainer(dm, rew, mode=mode, steps=4, branches=2, seeds_per_prompt=2, group_size=3, lr=1e-3,
                             rng=0, progress=False).fit([0, 2], n_updates=2)
        assert np.all(np.isfinite(tr.history_["reward"]))
    assert all(torch.equal(a, b) for a, b in zip(before, m.parameters()))
    assert tr.sample([0, 1], n=2).x.shape == (4, 4, 8, 8)
    # the policy step is the bridge's: equal to nn.flow_sde on the same model viewed as a velocity field
    pol = tr.policy_
    sig = pol.scheduler.sigmas
    x = torch.randn(2, 4, 8, 8)
    c = torch.tensor([0, 1])
    with torch.no_grad():
        for k in range(4):
            kk = torch.full((2,), k)
            a = pol.step(x, kk, c)
            u = dm.predict(pol.model, x, pol.scheduler.timesteps[kk], c)

            class V(torch.nn.Module):
                event_shape, n_classes, cond_dim = (4, 8, 8), None, None

                def forward(self, x_, t_, cond=None):
                    return -u

            b = flow_sde(V(), 0.7).step(x, float(1 - sig[k]), float(sig[k] - sig[k + 1]), x_next=a.sample)
            torch.testing.assert_close(a.mean, b.mean, atol=1e-5, rtol=1e-5)
            torch.testing.assert_close(a.log_prob(a.sample), b.log_prob(a.sample), atol=1e-4, rtol=1e-5)


def test_fashion_flow_user_code_smoke_on_tiny_sets(tmp_path, monkeypatch):
    """The issue's user code through the same builders as the cached Fashion-MNIST flow and classifier, on tiny
    28x28 sets in a throw-away cache (the paper-scale artefacts are built by `make report`, never by the tests)."""
    from iclr26sci.nn import ImageSet, fashion_classifier, fashion_flow

    monkeypatch.setenv("ICLR26SCI_CACHE", str(tmp_path / "cache"))
    def tiny(n, seed):
        y = np.arange(n) % 10
        X = np.random.default_rng(seed).random((n, 1, 28, 28), dtype=np.float32) * 0.3
        X[np.arange(n), 0, 2 + 2 * y, :] += 0.6            # class c: a bright row at 2 + 2c
        return ImageSet(np.clip(X, 0, 1), y.astype(np.int64), tuple(str(i) for i in range(10)), "tiny28")

    train, test = tiny(60, 0), tiny(30, 1)
    clf = fashion_classifier(rng=0, train=train, test=test, epochs=1, progress=False)
    fm = fashion_flow(rng=0, train=train, test=test, n_train=60, epochs=1, classifier=clf, evaluate=False,
                      progress=False)
    tr = FlowGRPOTrainer(fm, class_reward(clf, kind="prob"), mode="tempflow", steps=3, shift=3.0,
                         noise_level=0.7, group_by="seed", branches=2, seeds_per_prompt=1, clip=0.2, kl_beta=0.004,
                         lr=1e-4, trainable="last", rng=0, progress=False)
    tr.fit([0, 7], n_updates=1)
    assert len(tr.history_) == 1 and math.isfinite(tr.history_["reward"][0])
    assert tr.sample([0], n=2).x.shape == (2, 1, 28, 28)


def test_branch_steps_limits_branching_and_reward_calls():
    from iclr26sci.core import InputError
    from iclr26sci.generative import FlowGRPOTrainer, target_reward
    from iclr26sci.nn import VelocityMLP

    kw = dict(mode="tempflow", steps=5, branches=3, seeds_per_prompt=2, lr=1e-3, rng=0, progress=False)
    tr = FlowGRPOTrainer(VelocityMLP(2, hidden=(8,)), target_reward([1.0, 1.0]), branch_steps=[0, 2], **kw)
    tr.fit(None, n_updates=1)
    assert tr.history_["reward_calls"].tolist() == [2 * 3 * 2]
    for bad in ([4], [], [-1], "ab"):
        with pytest.raises(InputError, match="branch_steps"):
            FlowGRPOTrainer(VelocityMLP(2, hidden=(8,)), target_reward([1.0, 1.0]), branch_steps=bad,
                            **kw).fit(None, n_updates=1)
