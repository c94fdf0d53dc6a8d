"""Value Matching: the estimator, its Monte-Carlo targets, the guided samplers, the peers, the diffusers bridge."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.generative import (ValueMatching, adjoint_matching, best_of_n, classifier_guidance,
                                  classifier_reward, ddpo, gaussian_tilt_value, gradient_guidance)
from iclr26sci.generative import _vm_core
from iclr26sci.nn import GaussianFlowOracle, VelocityMLP

M = np.array([0.5, -0.3])
S2 = 0.64
A = np.array([1.0, 0.5])


def linear(x):
    return x.double() @ torch.as_tensor(A)


@pytest.fixture(scope="module")
def oracle():
    return GaussianFlowOracle(mean=M, cov=S2 * np.eye(2))


@pytest.fixture(scope="module")
def fitted(oracle):
    return ValueMatching(oracle, linear, lam=2.0, steps=20, hidden=(32, 32), rollouts=128, lr=2e-3,
                         rng=0).fit(n_iter=6, progress=False)


def test_fit_history_and_reward_calls(fitted):
    h = fitted.history_
    assert len(h) == 6 and fitted.n_reward_calls_ == 6 * 128
    for key in ("objective", "objective_se", "reward_mean", "value_mse", "loss", "reward_calls",
                "train_memory_bytes", "seconds"):
        assert np.all(np.isfinite(h[key])), key
    assert list(h["reward_calls"]) == [128 * (i + 1) for i in range(6)]
    # iteration 0 runs the base model (zero-initialised value net): its objective is -lam E[a.X_1] = -0.7
    assert abs(h["objective"][0] + 2.0 * A @ M) < 4 * h["objective_se"][0] + 0.05
    # the guided objective improves towards the optimum -log E exp(2 a.X_1) = -2.3
    assert h["objective"][-1] < h["objective"][0] - 1.0
    assert "iterations" in repr(h) and "objective" in h.summary() and len(h.to_dict()["rows"]) == 6
    assert "fitted" in repr(fitted)


def test_guided_mean_moves_towards_the_tilt(fitted):
    x = fitted.sample(n=4000, rng=1).x.numpy()
    xb = fitted.sample(n=4000, rng=1, guidance_scale=0.0).x.numpy()
    tilt = M + 2.0 * S2 * A
    assert np.all(np.abs(xb.mean(0) - M) < 0.06)                      # scale 0 is the base model
    assert np.all(np.abs(x.mean(0) - tilt) < np.abs(xb.mean(0) - tilt) / 3)
    xo = fitted.sample(n=4000, rng=1, sde=False).x.numpy()          # the guided ODE
    assert np.all(np.abs(xo.mean(0) - tilt) < np.abs(xb.mean(0) - tilt) / 3)


def test_trajectory_and_values(fitted):
    r = fitted.sample(n=7, rng=0, return_trajectory=True)
    assert tuple(r.trajectory.shape) == (21, 7, 2) and torch.equal(r.trajectory[-1], r.x)
    assert r.extra["cost"].shape == (7,) and np.all(r.extra["cost"] >= 0)
    v = fitted.value(np.zeros((3, 2)), 1.0)
    assert v.shape == (3,)
    ob = fitted.objective(n=200, rng=0)
    assert set(ob) == {"objective", "se", "reward_mean", "kl"} and ob["kl"] >= 0


def test_sampling_is_reproducible(fitted):
    a = fitted.sample(n=5, rng=3).x
    b = fitted.sample(n=5, rng=3).x
    assert torch.equal(a, b)


def test_mc_targets_by_hand():
    cost = np.array([[1.0, 0.0], [2.0, 1.0]])        # K = 2 steps, n = 2
    mart = np.array([[0.5, -1.0], [0.0, 2.0]])
    r = np.array([1.0, -1.0])
    G = _vm_core.mc_targets(cost, mart, r, 3.0, False)
    assert np.allclose(G, [[3 - 3, 1 + 3], [2 - 3, 1 + 3], [-3, 3]])
    Gc = _vm_core.mc_targets(cost, mart, r, 3.0, True)
    assert np.allclose(Gc - G, [[0.5, 1.0], [0.0, 2.0], [0.0, 0.0]])


def test_control_variate_has_mean_zero_under_any_policy(oracle):
    """E[sum u_j . dB_j | X_k] = 0 for an arbitrary (here random) value network: the target stays unbiased."""
    torch.manual_seed(1)
    net = _vm_core.ValueMLP(2, hidden=(16,)).double()
    for p in net.parameters():
        torch.nn.init.normal_(p, std=0.5)
    base = _vm_core._Base(oracle, 10)
    out = _vm_core.rollout(base, 20000, torch.Generator().manual_seed(0), vnet=net, keep=False)
    s = out["mart"].sum(0)
    assert np.abs(out["cost"]).sum() > 0
    assert abs(s.mean()) < 4 * s.std() / math.sqrt(s.size)


def test_exact_value_is_the_closed_form_tilt(oracle):
    """The exact discrete-chain value, used with the look-ahead control, samples the closed-form tilt."""
    from validation.value_matching import _exact_states, discrete_value

    times = np.linspace(0, 1, 51)
    Qs, qs = discrete_value(oracle, times, 2.0, a=A)
    _, x = _exact_states(oracle, times, Qs, qs, 20000, 0)
    tilt = M + 2.0 * S2 * A
    assert np.all(np.abs(x.mean(0) - tilt) < 0.03)
    assert np.all(np.abs(x.var(0) / S2 - 1) < 0.05)


def test_gaussian_tilt_value_closed_forms():
    x = np.random.default_rng(0).normal(size=(5, 2))
    V, m, v = gaussian_tilt_value(x, 1.0, M, S2, 2.0, a=A)
    assert np.allclose(V, -2.0 * x @ A) and np.allclose(m, M + 2 * S2 * A) and v == S2
    V, m, v = gaussian_tilt_value(x, 1.0, M, S2, 2.0, c=[1.0, 1.0])
    assert np.allclose(V, ((x - 1.0) ** 2).sum(1))
    assert np.allclose(v, 1 / (1 / S2 + 2.0))
    # t = 0: V* = -log E[exp(lam r(X_1))], constant in x; check the quadratic one by Monte Carlo
    X1 = np.random.default_rng(1).normal(size=(400000, 2)) * math.sqrt(S2) + M
    mc = -math.log(np.mean(np.exp(-2.0 * 0.5 * ((X1 - 1.0) ** 2).sum(1))))
    V0, _, _ = gaussian_tilt_value(np.zeros((1, 2)), 0.0, M, S2, 2.0, c=[1.0, 1.0])
    assert abs(V0[0] - mc) < 0.01


def test_non_differentiable_reward_works():
    means = 2.0 * np.c_[np.cos(np.arange(8) * np.pi / 4), np.sin(np.arange(8) * np.pi / 4)]
    ring = GaussianFlowOracle(mean=means, cov=0.09 * np.eye(2))

    def top(x):                                      # a black box: numpy in, numpy out, no gradient
        return (x[:, 0].numpy() > 0.5).astype(float)

    vm = ValueMatching(ring, top, lam=3.0, steps=15, hidden=(32, 32), rollouts=128, lr=2e-3, rng=0)
    vm.fit(n_iter=6, progress=False)
    frac = float((vm.sample(n=2000, rng=0).x[:, 0] > 0.5).double().mean())
    base = float((vm.sample(n=2000, rng=0, guidance_scale=0.0).x[:, 0] > 0.5).double().mean())
    assert frac > base + 0.25


def test_exp_target_and_replay_variants(oracle):
    vm = ValueMatching(oracle, linear, lam=1.0, steps=10, hidden=(16,), rollouts=64, target="exp", replay=1,
                       control_variate=False, terminal=False, rng=0).fit(n_iter=3, progress=False)
    assert np.all(np.isfinite(vm.history_["loss"]))
    assert vm.sample(n=3, rng=0).x.shape == (3, 2)


def test_warm_start_continues(oracle):
    vm = ValueMatching(oracle, linear, lam=1.0, steps=10, hidden=(16,), rollouts=32, warm_start=True, rng=0)
    vm.fit(n_iter=2, progress=False)
    vm.fit(n_iter=1, progress=False)
    assert len(vm.history_) == 3 and vm.n_reward_calls_ == 96


def test_custom_value_net(oracle):
    class Lin(torch.nn.Module):
        dim = 2

        def __init__(self):
            super().__init__()
            self.w = torch.nn.Linear(3, 1)

        def forward(self, x, t):
            return self.w(torch.cat([x, t[:, None]], 1)).squeeze(-1)

    vm = ValueMatching(oracle, linear, lam=1.0, steps=5, value_net=Lin().double(), rollouts=16, rng=0)
    assert vm.fit(n_iter=1, progress=False).value_net_ is not vm.value_net


def test_classifier_guidance_is_offline(oracle):
    cg = classifier_guidance(oracle, linear, lam=1.0, n_iter=2, steps=10, rollouts=32, hidden=(16,), rng=0)
    assert cg.on_policy is False and cg.n_reward_calls_ == 64
    # offline: every iteration's rollouts are the base model's, so no control cost is ever paid
    assert np.allclose(cg.history_["objective"], -cg.history_["reward_mean"] * 1.0)


def test_best_of_n_and_importance_resampling(oracle):
    base_r = best_of_n(oracle, linear, n=2000, n_candidates=1, steps=10, rng=0).reward.mean()
    best = best_of_n(oracle, linear, n=2000, n_candidates=8, steps=10, rng=0)
    assert best.reward_calls == 16000 and best.reward.mean() > base_r + 0.5
    # importance resampling with many candidates approaches the tilt N(m + lam s^2 a, s^2 I)
    ir = best_of_n(oracle, linear, n=3000, n_candidates=64, lam=1.0, steps=20, rng=1)
    assert np.all(np.abs(ir.x.numpy().mean(0) - (M + S2 * A)) < 0.08)
    assert "importance" in repr(ir) and "reward calls" in ir.summary() and ir.to_dict()["n"] == 3000


def test_gradient_guidance_moves_mean(oracle):
    res = gradient_guidance(oracle, linear, n=2000, lam=2.0, steps=20, rng=0)
    assert res.extra["jacobian"] == "identity"          # the oracle's velocity carries no autograd graph
    assert res.x.numpy()[:, 0].mean() > M[0] + 0.5


def _small_flow():
    torch.manual_seed(0)
    net = VelocityMLP(2, hidden=(32, 32))
    net.event_shape = (2,)
    return net


def test_gradient_guidance_through_a_network():
    res = gradient_guidance(_small_flow(), lambda x: x[:, 0], n=50, lam=1.0, steps=5, rng=0)
    assert res.extra["jacobian"] == "autograd"


def _half_way(ft, steps):
    """For a linear reward the tilt raises E r by lam Var(r) (exactly for a Gaussian base); ask for half of it."""
    b = best_of_n(_small_flow(), lambda x: x[:, 0], n=4000, n_candidates=1, steps=steps, rng=0)
    after = ft.sample(n=4000, rng=1).reward.mean()
    return after, b.reward.mean() + 0.5 * ft.lam * b.reward.var()


def test_adjoint_matching_increases_reward():
    net = _small_flow()
    before = [p.detach().clone() for p in net.parameters()]
    ft = adjoint_matching(net, lambda x: x[:, 0], lam=2.0, n_iter=30, rollouts=64, steps=6, lr=3e-3, rng=0)
    after, bound = _half_way(ft, 6)
    assert after > bound
    assert ft.sample(n=10, rng=0).x.shape == (10, 2) and "adjoint" in repr(ft)
    assert ft.net_ is not net and all(torch.equal(p, q) for p, q in zip(before, net.parameters()))


def test_ddpo_increases_reward():
    ft = ddpo(_small_flow(), lambda x: x[:, 0], lam=2.0, n_iter=30, rollouts=64, steps=10, lr=3e-3, rng=0)
    after, bound = _half_way(ft, 10)
    assert after > bound
    assert "ddpo" in ft.summary() and ft.to_dict()["method"] == "ddpo"


def test_classifier_reward_kinds():
    torch.manual_seed(0)
    clf = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4, 3))
    x = torch.rand(6, 1, 2, 2)
    lp = classifier_reward(clf, 1, "logprob")(x)
    p = classifier_reward(clf, 1, "prob")(x)
    top = classifier_reward(clf, 1, "top1")(x)
    assert torch.allclose(lp.exp(), p) and lp.requires_grad is False or True
    assert set(top.tolist()) <= {0.0, 1.0}
    assert torch.equal(top, (clf(x).argmax(1) == 1).double())


# ------------------------------------------------------------------------------------------ diffusers
def test_diffusers_base_matches_the_bridge_and_trains():
    diffusers = pytest.importorskip("diffusers")
    from diffusers import FlowMatchEulerDiscreteScheduler, UNet2DModel

    from iclr26sci.generative import DiffusersBase
    from iclr26sci.nn import DiffusersFlowSDE

    torch.manual_seed(0)
    unet = UNet2DModel(sample_size=8, in_channels=1, out_channels=1, block_out_channels=(8, 16),
                       layers_per_block=1, down_block_types=("DownBlock2D", "DownBlock2D"),
                       up_block_types=("UpBlock2D", "UpBlock2D"), norm_num_groups=4).eval()
    sch = FlowMatchEulerDiscreteScheduler(shift=3.0)
    sch.set_timesteps(4)
    base = DiffusersBase(unet, sch, sample_shape=(1, 8, 8))
    adapter = _vm_core._Base(base, None)
    x = torch.randn(3, 1, 8, 8)
    mean, _, _ = adapter.step(x, 1, torch.Generator().manual_seed(0))
    with torch.no_grad():
        ref = DiffusersFlowSDE(sch, noise_level=math.sqrt(2)).step(unet(x, sch.timesteps[1]).sample,
                                                                   sch.timesteps[1], x).mean
    assert torch.allclose(mean, ref)
    assert abs(adapter.sigma(1) ** 2 - 2 * (1 - adapter.times[1]) / adapter.times[1]) < 1e-9
    vm = ValueMatching(base, lambda z: z.mean((1, 2, 3)), lam=1.0, steps=4, hidden=(16,), rollouts=4, rng=0)
    vm.fit(n_iter=2, progress=False)
    assert vm.sample(n=2, rng=0).x.shape == (2, 1, 8, 8)
    assert vm.sample(n=2, rng=0, sde=False).x.shape == (2, 1, 8, 8)
    # steps follows the scheduler by default; an explicit steps is an override on a copy of the scheduler
    vm = ValueMatching(base, lambda z: z.mean((1, 2, 3)), lam=1.0, hidden=(16,), rollouts=4, rng=0)
    vm.fit(n_iter=1, progress=False)
    assert vm.base_.K == 4 and np.allclose(vm.times_, 1 - sch.sigmas.double().numpy())
    vm6 = ValueMatching(base, lambda z: z.mean((1, 2, 3)), lam=1.0, steps=6, hidden=(16,), rollouts=4, rng=0)
    vm6.fit(n_iter=1, progress=False)
    assert vm6.base_.K == 6 and len(sch.timesteps) == 4 and base.steps == 4
    assert vm6.sample(n=2, rng=0).x.shape == (2, 1, 8, 8)
    with pytest.raises(InputError, match="steps"):
        ValueMatching(base, linear, steps=1).fit(n_iter=1, progress=False)


def test_steps_default_is_fifty_for_a_base_without_a_scheduler():
    vm = ValueMatching(GaussianFlowOracle(mean=M), linear, lam=1.0, hidden=(8,), rollouts=4, rng=0)
    assert vm.steps is None
    vm.fit(n_iter=1, progress=False)
    assert vm.base_.K == 50


@pytest.mark.slow
def test_user_code_on_fashion_flow_with_a_top1_reward():
    """The issue's user code on the cached Fashion-MNIST flow with the non-differentiable top-1 reward."""
    from iclr26sci.nn import fashion_classifier, fashion_flow

    fm = fashion_flow(rng=0)
    reward = classifier_reward(fashion_classifier(rng=0), target=7, kind="top1")      # sneaker, a black box
    vm = ValueMatching(fm, reward, lam=5.0, steps=10, hidden=(128, 128), rollouts=32, rng=0)
    vm.fit(n_iter=3, progress=False)
    x = vm.sample(n=16, guidance_scale=1.0, sde=True, rng=0).x
    assert tuple(x.shape) == (16, 1, 28, 28) and vm.n_reward_calls_ == 96
    assert np.all(np.isfinite(vm.history_["train_memory_bytes"]))


# ------------------------------------------------------------------------------------------ bad input
def _vm(oracle, **kw):
    params = dict(lam=1.0, steps=5, hidden=(8,), rollouts=8)
    params.update(kw)
    return ValueMatching(oracle, params.pop("reward_fn", linear), **params)


@pytest.mark.bad_input("generative.ValueMatching")
@pytest.mark.parametrize("kw, arg", [
    ({"lam": 0.0}, "lam"), ({"lam": -1.0}, "lam"), ({"lam": float("inf")}, "lam"), ({"steps": 1}, "steps"),
    ({"steps": 2.5}, "steps"), ({"rollouts": 1}, "rollouts"), ({"lr": 0.0}, "lr"), ({"epochs": 0}, "epochs"),
    ({"batch_size": 0}, "batch_size"), ({"replay": 0}, "replay"), ({"target": "td"}, "target"),
    ({"control_variate": 1}, "control_variate"), ({"terminal": "yes"}, "terminal"), ({"on_policy": None}, "on_policy"),
    ({"guidance_clip": 0.0}, "guidance_clip"), ({"lr_decay": 0.0}, "lr_decay"), ({"lr_decay": 1.5}, "lr_decay"), ({"cfg": -1.0}, "cfg"), ({"rng": -1}, "rng"), ({"rng": 1.5}, "rng"),
    ({"value_net": "cnn"}, "value_net"), ({"value_net": 3}, "value_net"), ({"hidden": (8, -1)}, "hidden"),
    ({"hidden": 5}, "hidden"), ({"cond": 1}, "cond"), ({"reward_fn": 3}, "reward_fn"),
    ({"warm_start": "no"}, "warm_start"),
])
def test_value_matching_bad_params(oracle, kw, arg):
    with pytest.raises(InputError, match=arg):
        _vm(oracle, **kw).fit(n_iter=1, progress=False)


@pytest.mark.bad_input("generative.ValueMatching")
@pytest.mark.parametrize("reward, problem", [
    (lambda x: x[:, :1].repeat(1, 2).double(), "shape"), (lambda x: torch.full((x.shape[0],), float("nan")), "NaN"),
    (lambda x: torch.full((x.shape[0],), float("inf")), "infinite"), (lambda x: torch.zeros(3), "shape"),
])
def test_value_matching_bad_rewards(oracle, reward, problem):
    with pytest.raises(InputError, match=f"reward_fn.*{problem}"):
        _vm(oracle, reward_fn=reward).fit(n_iter=1, progress=False)


@pytest.mark.bad_input("generative.ValueMatching")
def test_value_matching_bad_base_and_value_net(oracle):
    class Wrong(torch.nn.Module):
        dim = 3

        def forward(self, x, t):
            return x.sum(1)

    with pytest.raises(InputError, match="value_net.*dim=3"):
        _vm(oracle, value_net=Wrong()).fit(n_iter=1, progress=False)

    class Breaks(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(5, 1)

        def forward(self, x, t):
            return self.lin(x).squeeze(-1)

    with pytest.raises(InputError, match="value_net"):
        _vm(oracle, value_net=Breaks()).fit(n_iter=1, progress=False)
    with pytest.raises(InputError, match="base_flow"):
        ValueMatching("flow", linear, steps=5).fit(n_iter=1, progress=False)
    with pytest.raises(InputError, match="base_flow"):
        ValueMatching(GaussianFlowOracle(mean=[0.0], path="ot"), linear, steps=5).fit(n_iter=1, progress=False)
    with pytest.raises(InputError, match="n_iter"):
        _vm(oracle).fit(n_iter=0)
    with pytest.raises(InputError, match="progress"):
        _vm(oracle).fit(n_iter=1, progress="no")


@pytest.mark.bad_input("generative.ValueMatching")
def test_value_matching_methods_bad_input(oracle, fitted):
    for meth, call in [("sample", lambda v: v.sample(3)), ("value", lambda v: v.value(np.zeros((1, 2)), 0.5)),
                       ("objective", lambda v: v.objective(10))]:
        with pytest.raises(NotFittedError, match=meth):
            call(_vm(oracle))
    for kw, arg in [({"guidance_scale": -0.1}, "guidance_scale"), ({"guidance_scale": float("inf")}, "guidance_scale"),
                    ({"n": 0}, "n"), ({"sde": 1}, "sde"), ({"rng": -2}, "rng"),
                    ({"return_trajectory": "y"}, "return_trajectory")]:
        args = {"n": 3, **kw}
        with pytest.raises(InputError, match=arg):
            fitted.sample(**args)
    with pytest.raises(InputError, match="x"):
        fitted.value(np.zeros((2, 3)), 0.5)
    with pytest.raises(InputError, match="x"):
        fitted.value(np.full((2, 2), np.nan), 0.5)
    with pytest.raises(InputError, match="t"):
        fitted.value(np.zeros((2, 2)), 1.5)
    with pytest.raises(InputError, match="n"):
        fitted.objective(n=1)
    with pytest.raises(InputError, match="guidance_scale"):
        fitted.objective(n=10, guidance_scale=-1)


@pytest.mark.bad_input("generative.classifier_guidance")
def test_classifier_guidance_bad_input(oracle):
    with pytest.raises(InputError, match="on_policy"):
        classifier_guidance(oracle, linear, on_policy=True)
    with pytest.raises(InputError, match="lam"):
        classifier_guidance(oracle, linear, lam=0.0, steps=5)
    with pytest.raises(InputError, match="n_iter"):
        classifier_guidance(oracle, linear, n_iter=0, steps=5)


@pytest.mark.bad_input("generative.best_of_n")
@pytest.mark.parametrize("kw, arg", [({"n": 0}, "n"), ({"n_candidates": 0}, "n_candidates"), ({"lam": 0.0}, "lam"),
                                     ({"steps": 1}, "steps"), ({"rng": -1}, "rng"), ({"reward_fn": None}, "reward_fn"),
                                     ({"base_flow": 5}, "base_flow")])
def test_best_of_n_bad_input(oracle, kw, arg):
    args = {"base_flow": oracle, "reward_fn": linear, "n": 4, "steps": 5, **kw}
    with pytest.raises(InputError, match=arg):
        best_of_n(**args)


@pytest.mark.bad_input("generative.gradient_guidance")
@pytest.mark.parametrize("kw, arg", [({"n": 0}, "n"), ({"lam": -1.0}, "lam"), ({"guidance_scale": -1.0}, "guidance_scale"),
                                     ({"guidance_clip": 0.0}, "guidance_clip"), ({"through_base": 1}, "through_base"),
                                     ({"steps": 1}, "steps"),
                                     ({"reward_fn": lambda x: (x[:, 0] > 0).double()}, "reward_fn")])
def test_gradient_guidance_bad_input(oracle, kw, arg):
    args = {"base_flow": oracle, "reward_fn": linear, "n": 4, "steps": 5, **kw}
    with pytest.raises(InputError, match=arg):
        gradient_guidance(**args)


@pytest.mark.bad_input("generative.adjoint_matching", "generative.ddpo")
@pytest.mark.parametrize("fn", [adjoint_matching, ddpo])
def test_finetuning_bad_input(oracle, fn):
    with pytest.raises(InputError, match="base_flow"):
        fn(oracle, linear, n_iter=1, steps=5)                       # an oracle has no trainable network
    net = _small_flow()
    for kw, arg in [({"lam": 0.0}, "lam"), ({"n_iter": 0}, "n_iter"), ({"rollouts": 1}, "rollouts"),
                    ({"steps": 1}, "steps"), ({"lr": -1.0}, "lr"), ({"time_batch": 0}, "time_batch"),
                    ({"rng": -1}, "rng"), ({"reward_fn": "r"}, "reward_fn")]:
        args = {"reward_fn": lambda x: x[:, 0], "n_iter": 1, "steps": 5, **kw}
        with pytest.raises(InputError, match=arg):
            fn(net, **args)
    bare = torch.nn.Linear(3, 2)
    with pytest.raises(InputError, match="base_flow"):
        fn(bare, lambda x: x[:, 0], n_iter=1, steps=5)
    if fn is adjoint_matching:
        with pytest.raises(InputError, match="reward_fn.*gradient"):
            fn(net, lambda x: (x[:, 0] > 0).double(), n_iter=1, rollouts=4, steps=5)
    else:
        with pytest.raises(InputError, match="kl_weight"):
            fn(net, lambda x: x[:, 0], n_iter=1, steps=5, kl_weight=-1.0)


@pytest.mark.bad_input("generative.classifier_reward")
def test_classifier_reward_bad_input():
    clf = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4, 3))
    with pytest.raises(InputError, match="classifier"):
        classifier_reward("clf", 0)
    with pytest.raises(InputError, match="target"):
        classifier_reward(clf, -1)
    with pytest.raises(InputError, match="target"):
        classifier_reward(clf, True)
    with pytest.raises(InputError, match="kind"):
        classifier_reward(clf, 0, kind="logit")
    with pytest.raises(InputError, match="target"):
        classifier_reward(clf, 5)(torch.zeros(2, 1, 2, 2))


@pytest.mark.bad_input("generative.gaussian_tilt_value")
@pytest.mark.parametrize("kw, arg", [({"x": np.zeros(2)}, "x"), ({"mean": [0.0]}, "mean"), ({"var": 0.0}, "var"),
                                     ({"lam": 0.0}, "lam"), ({"t": 1.5}, "t"), ({"t": [0.1, 0.2, 0.3]}, "t"),
                                     ({"a": None}, "a"), ({"c": [1.0, 1.0]}, "a"), ({"a": [1.0]}, "a")])
def test_gaussian_tilt_value_bad_input(kw, arg):
    args = {"x": np.zeros((2, 2)), "t": 0.5, "mean": [0.0, 0.0], "var": 1.0, "lam": 1.0, "a": [1.0, 0.0], **kw}
    with pytest.raises(InputError, match=arg):
        gaussian_tilt_value(**args)


@pytest.mark.bad_input("generative.DiffusersBase")
def test_diffusers_base_bad_input():
    pytest.importorskip("diffusers")
    from diffusers import FlowMatchEulerDiscreteScheduler

    from iclr26sci.generative import DiffusersBase

    sch = FlowMatchEulerDiscreteScheduler()
    sch.set_timesteps(4)
    with pytest.raises(InputError, match="model"):
        DiffusersBase(3, sch, (2,))
    with pytest.raises(InputError, match="scheduler"):
        DiffusersBase(lambda x, t: x, "sched", (2,))
    with pytest.raises(InputError, match="sample_shape"):
        DiffusersBase(lambda x, t: x, sch, (0, 2))
    with pytest.raises(InputError, match="sample_shape"):
        DiffusersBase(lambda x, t: x, sch, None)
    with pytest.raises(InputError, match="model_kwargs"):
        DiffusersBase(lambda x, t: x, sch, (2,), model_kwargs=[1])


def test_importance_correction_recovers_the_tilt_from_an_untrained_value():
    """The discrete Girsanov weights are exact for any control: with a barely trained value the corrected samples
    follow the tilt N(m + lam s^2 a, s^2) of the 1-D Gaussian base, while the raw guided ones stay near the base."""
    base = GaussianFlowOracle(mean=[0.0], cov=[[1.0]])
    vm = ValueMatching(base, lambda x: x[:, 0], lam=1.0, steps=10, hidden=(8,), rollouts=8, lr=1e-6,
                       rng=0).fit(n_iter=1, progress=False)
    calls = vm.n_reward_calls_
    raw = vm.sample(n=20000, rng=1).x[:, 0].numpy()
    res = vm.sample(n=20000, rng=1, importance_correct=True)
    x = res.x[:, 0].numpy()
    ess = res.extra["ess"]
    assert vm.n_reward_calls_ == calls + 20000 and res.extra["log_weights"].shape == (20000,)
    # ESS of e^{x} weights on N(0, 1) is n e^{-1} (7360); SE of the corrected mean about 1/sqrt(ESS) = 0.012
    assert 0.25 * 20000 < ess < 0.5 * 20000
    assert abs(x.mean() - 1.0) < 5 / math.sqrt(ess) and abs(x.var() - 1.0) < 0.1
    assert abs(raw.mean()) < 0.05                                # the raw sampler is (almost) the base
    # same seed, same draws
    again = vm.sample(n=20000, rng=1, importance_correct=True)
    assert torch.equal(again.x, res.x)
    # the trajectory is resampled with the final states
    tr = vm.sample(n=50, rng=2, importance_correct=True, return_trajectory=True)
    assert torch.equal(tr.trajectory[-1], tr.x)


@pytest.mark.bad_input("generative.ValueMatching")
def test_importance_correction_bad_input(oracle, fitted):
    with pytest.raises(InputError, match="importance_correct"):
        fitted.sample(n=4, sde=False, importance_correct=True)
    with pytest.raises(InputError, match="importance_correct"):
        fitted.sample(n=4, importance_correct="yes")
