"""Bad input to the TempFlow-GRPO API: a clear InputError naming the argument, before any sampling."""
import numpy as np
import pytest
import torch

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.generative import (FlowGRPOTrainer, class_reward, group_advantages, grpo_loss, noise_aware_weights,
                                  sd3_time_grid, target_reward)
from iclr26sci.nn import FlowMatching, GaussianFlowOracle, VelocityMLP, flow_sde

BAD_INPUT_EXEMPT = {
    "generative.MODES": "a constant tuple of mode names",
    "generative.OFFICIAL_OMEGA_CONSTANT": "a constant (the official code's 2.25)",
    "generative.GRPOHistory": "a log container built by the trainer; a missing column raises KeyError",
}


class _Counting(torch.nn.Module):
    """A conditional velocity net that counts its forward calls (to prove no sampling happened)."""

    event_shape, n_classes, cond_dim = (2,), 3, None

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)
        self.calls = 0

    def forward(self, x, t, cond=None):
        self.calls += 1
        return self.lin(torch.cat([x, t.reshape(-1, 1)], 1))


def _ok_reward(x, p):
    return -x.pow(2).sum(1)


@pytest.fixture
def net():
    torch.manual_seed(0)
    return _Counting()


def _fit(net, reward=_ok_reward, prompts=(0, 1), **kw):
    base = dict(steps=3, branches=2, seeds_per_prompt=1, group_size=2, progress=False)
    base.update(kw)
    return FlowGRPOTrainer(net, reward, **base).fit(list(prompts) if prompts is not None else None, n_updates=1)


@pytest.mark.bad_input("generative.FlowGRPOTrainer")
@pytest.mark.parametrize("kw, arg", [
    (dict(branches=0), "branches"), (dict(seeds_per_prompt=0), "seeds_per_prompt"),
    (dict(noise_level=0.0), "noise_level"), (dict(noise_level=-0.5), "noise_level"),
    (dict(steps=1), "steps"), (dict(steps=2.5), "steps"), (dict(group_by="batch"), "group_by"),
    (dict(mode="ppo"), "mode"), (dict(clip=0.0), "clip"), (dict(kl_beta=-1.0), "kl_beta"), (dict(lr=0.0), "lr"),
    (dict(weighting="hardcoded"), "weighting"), (dict(mode="flow_grpo", branching=True), "branching"),
    (dict(timestep_fraction=0.0), "timestep_fraction"), (dict(mode="mix_grpo", window=5), "window"),
    (dict(trainable="first"), "trainable"), (dict(eval_n=-1), "eval_n"), (dict(rng=-1), "rng"),
    (dict(group_size=1), "group_size"), (dict(shift=0.0), "shift"), (dict(reduce="max"), "reduce"),
    (dict(minibatches=0), "minibatches"), (dict(guidance=-1.0), "guidance"), (dict(adv_clip=0.0), "adv_clip"),
    (dict(trainable=lambda n, p: False), "trainable"),
])
def test_trainer_bad_parameters_before_sampling(net, kw, arg):
    with pytest.raises(InputError, match=arg):
        _fit(net, **kw)
    assert net.calls == 0


@pytest.mark.bad_input("generative.FlowGRPOTrainer")
@pytest.mark.parametrize("reward, msg", [
    (lambda x, p: torch.zeros(x.shape[0], 2), "shape"),
    (lambda x, p: torch.zeros(3), "shape"),
    (lambda x, p: torch.full((x.shape[0],), float("nan")), "NaN"),
    (lambda x, p: np.array(["a"] * x.shape[0]), "dtype"),
    ("not callable", "callable"),
])
def test_trainer_bad_reward_before_sampling(net, reward, msg):
    with pytest.raises(InputError, match="reward_fn") as e:
        _fit(net, reward=reward)
    assert msg in str(e.value)
    assert net.calls == 0


@pytest.mark.bad_input("generative.FlowGRPOTrainer")
@pytest.mark.parametrize("prompts", [(0, 7), (0.5, 1.0), None, ()])
def test_trainer_prompts_must_match_the_model_conditioning(net, prompts):
    with pytest.raises(InputError, match="prompts"):
        _fit(net, prompts=prompts)
    assert net.calls == 0


@pytest.mark.bad_input("generative.FlowGRPOTrainer")
def test_trainer_bad_model_and_methods(net):
    with pytest.raises(InputError, match="flow_model"):
        _fit("a model")
    with pytest.raises(NotFittedError):
        FlowMatching(VelocityMLP(2)).fit  # noqa: B018  (class exists)
        _fit(FlowMatching(VelocityMLP(2)), prompts=None)
    with pytest.raises(InputError, match="flow_model"):      # an oracle has nothing to fine-tune
        _fit(GaussianFlowOracle(mean=[0.0, 0.0]), prompts=None)
    tr = FlowGRPOTrainer(net, _ok_reward, progress=False)
    with pytest.raises(NotFittedError):
        tr.sample([0], n=2)
    with pytest.raises(InputError, match="n_updates"):
        tr.fit([0], n_updates=0)
    with pytest.raises(InputError, match="callback"):
        tr.fit([0], n_updates=1, callback=3)
    tr = _fit(net)
    with pytest.raises(InputError, match="n"):
        tr.sample([0], n=0)
    with pytest.raises(InputError, match="steps"):
        tr.sample([0], n=2, steps=1)
    with pytest.raises(InputError, match="prompts"):
        tr.sample([9], n=2)
    with pytest.raises(InputError, match="sde"):
        tr.sample([0], n=2, sde="yes")
    with pytest.raises(InputError, match="branches"):
        tr.process_rewards([0], branches=0)
    with pytest.raises(InputError, match="steps_to_branch"):
        tr.process_rewards([0], steps_to_branch=[7])


@pytest.mark.bad_input("generative.noise_aware_weights", "generative.sd3_time_grid")
def test_weights_and_grid_bad_input():
    with pytest.raises(InputError, match="steps"):
        noise_aware_weights(1)
    with pytest.raises(InputError, match="noise_level"):
        noise_aware_weights(10, noise_level=0.0)
    with pytest.raises(InputError, match="weighting"):
        noise_aware_weights(10, weighting="2.25")
    with pytest.raises(InputError, match="times"):
        noise_aware_weights(times=[0.0, 0.5, 0.4, 1.0])
    with pytest.raises(InputError, match="shift"):
        noise_aware_weights(10, shift=-1.0)
    with pytest.raises(InputError, match="steps"):
        sd3_time_grid(True)
    with pytest.raises(InputError, match="shift"):
        sd3_time_grid(10, shift=0.0)


@pytest.mark.bad_input("generative.group_advantages")
def test_group_advantages_bad_input():
    with pytest.raises(InputError, match="rewards"):
        group_advantages(np.zeros((2, 3)))
    with pytest.raises(InputError, match="rewards"):
        group_advantages(np.full((1, 1, 1, 2), np.nan))
    with pytest.raises(InputError, match="group_by"):
        group_advantages(np.zeros((1, 1, 1, 2)), group_by="step")
    with pytest.raises(InputError, match="eps"):
        group_advantages(np.zeros((1, 1, 1, 2)), eps=0.0)


@pytest.mark.bad_input("generative.grpo_loss")
def test_grpo_loss_bad_input():
    st = flow_sde(GaussianFlowOracle(mean=[0.0]), 0.7).step(torch.zeros(3, 1, dtype=torch.float64), 0.5, 0.1, rng=0)
    lp = st.log_prob(st.sample)
    with pytest.raises(InputError, match="clip"):
        grpo_loss(st, st, st.sample, lp, torch.zeros(3), clip=0.0)
    with pytest.raises(InputError, match="kl_beta"):
        grpo_loss(st, st, st.sample, lp, torch.zeros(3), kl_beta=-1.0)
    with pytest.raises(InputError, match="advantages"):
        grpo_loss(st, st, st.sample, lp, torch.zeros(4))
    with pytest.raises(InputError, match="reduce"):
        grpo_loss(st, st, st.sample, lp, torch.zeros(3), reduce="none")


@pytest.mark.bad_input("generative.class_reward", "generative.target_reward")
def test_rewards_bad_input():
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression().fit(np.array([[0.0], [1.0]]), [0, 1])
    with pytest.raises(InputError, match="classifier"):
        class_reward("clf")
    with pytest.raises(InputError, match="kind"):
        class_reward(clf, kind="margin")
    with pytest.raises(InputError, match="target"):
        class_reward(clf, target=5)
    with pytest.raises(InputError, match="clamp"):
        class_reward(clf, clamp=(1.0, 0.0))
    with pytest.raises(InputError, match="prompts"):
        class_reward(clf, clamp=None)(torch.zeros(2, 1), None)
    with pytest.raises(InputError, match="targets"):
        target_reward([[np.nan, 0.0]])
    with pytest.raises(InputError, match="targets"):
        target_reward(np.zeros((2, 2, 2)))


@pytest.mark.bad_input("generative.DiffusersFlowModel")
def test_diffusers_model_bad_input():
    diffusers = pytest.importorskip("diffusers")
    from iclr26sci.generative import DiffusersFlowModel

    sch = diffusers.FlowMatchEulerDiscreteScheduler()
    lin = torch.nn.Linear(2, 2)
    with pytest.raises(InputError, match="model"):
        DiffusersFlowModel("unet", sch, (1, 8, 8))
    with pytest.raises(InputError, match="scheduler"):
        DiffusersFlowModel(lin, object(), (1, 8, 8))
    with pytest.raises(InputError, match="sample_shape"):
        DiffusersFlowModel(lin, sch, (0, 8))
    with pytest.raises(InputError, match="pooled_prompt_embeds"):
        DiffusersFlowModel(lin, sch, (1, 8, 8), prompt_embeds=torch.zeros(3, 4, 5),
                           pooled_prompt_embeds=torch.zeros(2, 5))
    dm = DiffusersFlowModel(lin, sch, (2,), prompt_embeds=torch.zeros(3, 4, 5))
    with pytest.raises(InputError, match="prompts"):
        FlowGRPOTrainer(dm, _ok_reward, steps=3, progress=False).fit([0, 3], n_updates=1)
    with pytest.raises(InputError, match="guidance"):
        FlowGRPOTrainer(dm, _ok_reward, steps=3, guidance=2.0, progress=False).fit([0], n_updates=1)
