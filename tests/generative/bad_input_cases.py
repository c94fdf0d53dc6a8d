"""Bad-input sweep cases for iclr26sci.generative (format: tests/bad_input_sweep.py)."""
import functools

import numpy as np
import torch

from bad_input_sweep import Case
from iclr26sci import generative as G

NAN = float("nan")
A = np.array([1.0, 0.5])


def _oracle():
    from iclr26sci.nn import GaussianFlowOracle
    return GaussianFlowOracle(mean=[0.5, -0.3], cov=0.64 * np.eye(2))


def _linear(x):
    return x.double() @ torch.as_tensor(A)


def _cond_net(n_classes=3):
    from iclr26sci.nn import VelocityMLP
    torch.manual_seed(0)
    return VelocityMLP(2, hidden=(8,), n_classes=n_classes)


@functools.lru_cache(maxsize=None)
def _vm():
    return G.ValueMatching(_oracle(), _linear, lam=2.0, steps=5, hidden=(8,), rollouts=8, epochs=1, rng=0).fit(
        n_iter=1, progress=False)


def _reward(x, p):
    return -x.pow(2).sum(1)


@functools.lru_cache(maxsize=None)
def _trainer():
    return G.FlowGRPOTrainer(_cond_net(), _reward, steps=3, branches=2, seeds_per_prompt=1, group_size=2,
                             progress=False).fit([0, 1], n_updates=1)


def _tf(**kw):
    base = dict(steps=3, branches=2, seeds_per_prompt=1, group_size=2, progress=False)
    base.update(kw)
    return lambda: G.FlowGRPOTrainer(_cond_net(), _reward, **base).fit([0, 1], n_updates=1)


def _step():
    from iclr26sci.nn import GaussianFlowOracle, flow_sde
    st = flow_sde(GaussianFlowOracle(mean=[0.0]), 0.7).step(torch.zeros(3, 1, dtype=torch.float64), 0.5, 0.1, rng=0)
    return st, st.log_prob(st.sample)


def _loss(**kw):
    def call():
        st, lp = _step()
        args = dict(step=st, ref_step=st, x_next=st.sample, logp_old=lp, advantages=torch.zeros(3))
        args.update(kw)
        return G.grpo_loss(**args)
    return call


@functools.lru_cache(maxsize=None)
def _small():
    return G.hoi_dataset("mocap", n=12, T=8, fps=10, rng=0)


@functools.lru_cache(maxsize=None)
def _light():
    return G.LIGHT(d_model=16, n_layers=1, n_heads=2, K=20, steps=4, text_encoder="bag-of-words", dropout=0.0,
                   batch_size=8, rng=0).fit(_small(), epochs=1)


@functools.lru_cache(maxsize=None)
def _planar():
    return G.planar_hoi(n=20, T=16, rng=0)


def _seqs():
    return _small().train


def _from_arrays(**over):
    def call():
        s = _seqs()
        kw = dict(body=s.body, hands=s.hands, object=s.object, text=list(s.text), objects=list(s.objects))
        kw.update(over)
        return G.HOISequences.from_arrays(**kw)
    return call


def _pfrom_arrays(**over):
    def call():
        s = _planar().train
        kw = dict(body=s.body, hands=s.hands, object=s.object, text=list(s.text), objects=list(s.objects))
        kw.update(over)
        return G.PlanarHOISequences.from_arrays(**kw)
    return call


def _lgo():
    return G.LinearGaussianOracle(dims=(2, 2), K=10, rng=0)


def _denoiser():
    torch.manual_seed(0)
    return G.LightDenoiser((3, 2), T=4, K=10, text_dim=5, shape_dim=3, d_model=8, n_layers=1, n_heads=2)


def _den_fwd(**over):
    def call():
        m = _denoiser()
        kw = dict(xs=[torch.zeros(2, 4, 3), torch.zeros(2, 4, 2)], levels=torch.zeros(2, 4, 2, dtype=torch.long),
                  text=torch.zeros(2, 5), shape=torch.zeros(2, 3))
        kw.update(over)
        return m(**kw)
    return call


def _ddim(**over):
    def call():
        from iclr26sci.nn import DiffusionSchedule
        kw = dict(denoise=lambda xs, lv, null: xs, x_init=[torch.zeros(2, 4, 3)], levels=[5, 2, -1],
                  schedule=DiffusionSchedule(10))
        kw.update(over)
        return G.ddim_sample(**kw)
    return call


def _counts():
    return np.array([[5, 6, 6], [4, 5, 6], [6, 6, 6]])


CASES = [
    # ---- TempFlow-GRPO: schedules and weights
    Case("gen.001", "sd3_time_grid", "one step", lambda: G.sd3_time_grid(1), "steps"),
    Case("gen.002", "sd3_time_grid", "zero shift", lambda: G.sd3_time_grid(10, shift=0.0), "shift"),
    Case("gen.003", "sd3_time_grid", "NaN shift", lambda: G.sd3_time_grid(10, shift=NAN), "shift"),
    Case("gen.004", "sd3_time_grid", "bool steps", lambda: G.sd3_time_grid(True), "steps"),
    Case("gen.005", "noise_aware_weights", "noise level 0", lambda: G.noise_aware_weights(10, noise_level=0.0), "noise_level"),
    Case("gen.006", "noise_aware_weights", "unknown weighting", lambda: G.noise_aware_weights(10, weighting="x"), "weighting"),
    Case("gen.007", "noise_aware_weights", "decreasing times", lambda: G.noise_aware_weights(times=[0.0, 0.5, 0.4, 1.0]),
         "times"),
    Case("gen.008", "noise_aware_weights", "times outside [0, 1]", lambda: G.noise_aware_weights(times=[-0.5, 0.5, 1.0]),
         "times"),
    Case("gen.009", "noise_aware_weights", "NaN time", lambda: G.noise_aware_weights(times=[0.0, NAN, 1.0]), "times"),
    Case("gen.010", "noise_aware_weights", "one time", lambda: G.noise_aware_weights(times=[0.5]), "times"),
    Case("gen.011", "noise_aware_weights", "inf noise level", lambda: G.noise_aware_weights(10, noise_level=float("inf")),
         "noise_level"),
    # ---- group advantages and loss
    Case("gen.012", "group_advantages", "2-D rewards", lambda: G.group_advantages(np.zeros((2, 3))), "rewards"),
    Case("gen.013", "group_advantages", "NaN rewards", lambda: G.group_advantages(np.full((1, 1, 1, 2), NAN)), "rewards"),
    Case("gen.014", "group_advantages", "bad group_by", lambda: G.group_advantages(np.zeros((1, 1, 1, 2)), group_by="x"),
         "group_by"),
    Case("gen.015", "group_advantages", "eps 0", lambda: G.group_advantages(np.zeros((1, 1, 1, 2)), eps=0.0), "eps"),
    Case("gen.016", "group_advantages", "negative clip", lambda: G.group_advantages(np.zeros((1, 1, 1, 2)), clip=-1.0),
         "clip"),
    Case("gen.017", "group_advantages", "group of one", lambda: G.group_advantages(np.zeros((1, 1, 1, 1))), "rewards"),
    Case("gen.018", "group_advantages", "empty rewards", lambda: G.group_advantages(np.zeros((0, 1, 1, 2))), "rewards"),
    Case("gen.019", "group_advantages", "string rewards", lambda: G.group_advantages([[[["a", "b"]]]]), "rewards"),
    Case("gen.020", "grpo_loss", "clip 0", _loss(clip=0.0), "clip"),
    Case("gen.021", "grpo_loss", "negative kl_beta", _loss(kl_beta=-1.0), "kl_beta"),
    Case("gen.022", "grpo_loss", "advantages length", _loss(advantages=torch.zeros(4)), "advantages"),
    Case("gen.023", "grpo_loss", "bad reduce", _loss(reduce="none"), "reduce"),
    Case("gen.024", "grpo_loss", "NaN advantages", _loss(advantages=torch.full((3,), NAN)), "advantages"),
    Case("gen.025", "grpo_loss", "weights wrong length", _loss(weights=torch.ones(5)), "weights"),
    Case("gen.026", "grpo_loss", "negative weights", _loss(weights=-torch.ones(3)), "weights"),
    Case("gen.027", "grpo_loss", "x_next wrong shape", _loss(x_next=torch.zeros(3, 2, dtype=torch.float64)), "x_next"),
    Case("gen.028", "grpo_loss", "logp_old wrong length", _loss(logp_old=torch.zeros(2)), "logp_old"),
    Case("gen.029", "grpo_loss", "step not an SDE step", _loss(step="step"), "step"),
    Case("gen.030", "grpo_loss", "NaN logp_old", _loss(logp_old=torch.full((3,), NAN)), "logp_old"),
    # ---- rewards
    Case("gen.031", "class_reward", "classifier not a model", lambda: G.class_reward("clf"), "classifier"),
    Case("gen.032", "class_reward", "unknown kind", lambda: G.class_reward(torch.nn.Linear(2, 3), kind="margin"), "kind"),
    Case("gen.033", "class_reward", "clamp reversed", lambda: G.class_reward(torch.nn.Linear(2, 3), clamp=(1.0, 0.0)), "clamp"),
    Case("gen.034", "class_reward", "negative target", lambda: G.class_reward(torch.nn.Linear(2, 3), target=-1), "target"),
    Case("gen.035", "class_reward", "prompt label out of range",
         lambda: G.class_reward(torch.nn.Linear(2, 3))(torch.zeros(2, 2), [0, 7]), "prompts"),
    Case("gen.036", "class_reward", "x with the wrong feature count",
         lambda: G.class_reward(torch.nn.Linear(2, 3), target=0)(torch.zeros(2, 5), None), "x"),
    Case("gen.037", "target_reward", "NaN target", lambda: G.target_reward([[NAN, 0.0]]), "targets"),
    Case("gen.038", "target_reward", "3-D targets", lambda: G.target_reward(np.zeros((2, 2, 2))), "targets"),
    Case("gen.039", "target_reward", "empty targets", lambda: G.target_reward(np.zeros((0, 2))), "targets"),
    Case("gen.040", "target_reward", "prompt out of range",
         lambda: G.target_reward(np.zeros((2, 2)))(torch.zeros(2, 2), [0, 5]), "prompts"),
    Case("gen.041", "target_reward", "x of wrong dimension",
         lambda: G.target_reward(np.zeros((2, 2)))(torch.zeros(2, 3), [0, 1]), "x"),
    # ---- the trainer
    Case("gen.042", "FlowGRPOTrainer", "zero branches", _tf(branches=0), "branches"),
    Case("gen.043", "FlowGRPOTrainer", "unknown mode", _tf(mode="ppo"), "mode"),
    Case("gen.044", "FlowGRPOTrainer", "noise level negative", _tf(noise_level=-0.5), "noise_level"),
    Case("gen.045", "FlowGRPOTrainer", "clip 0", _tf(clip=0.0), "clip"),
    Case("gen.046", "FlowGRPOTrainer", "lr NaN", _tf(lr=NAN), "lr"),
    Case("gen.047", "FlowGRPOTrainer", "negative guidance", _tf(guidance=-1.0), "guidance"),
    Case("gen.048", "FlowGRPOTrainer", "bad rng", _tf(rng=-1), "rng"),
    Case("gen.049", "FlowGRPOTrainer", "group size 1", _tf(group_size=1), "group_size"),
    Case("gen.050", "FlowGRPOTrainer", "timestep fraction 1.5", _tf(timestep_fraction=1.5), "timestep_fraction"),
    Case("gen.051", "FlowGRPOTrainer", "flow model a string",
         lambda: G.FlowGRPOTrainer("model", _reward, progress=False).fit([0], n_updates=1), "flow_model"),
    Case("gen.052", "FlowGRPOTrainer", "reward not callable",
         lambda: G.FlowGRPOTrainer(_cond_net(), "r", steps=3, progress=False).fit([0], n_updates=1), "reward_fn"),
    Case("gen.053", "FlowGRPOTrainer", "reward returns NaN",
         lambda: G.FlowGRPOTrainer(_cond_net(), lambda x, p: torch.full((x.shape[0],), NAN), steps=3, branches=2,
                                   seeds_per_prompt=1, group_size=2, progress=False).fit([0], n_updates=1), "reward_fn"),
    Case("gen.054", "FlowGRPOTrainer", "progress not bool", _tf(progress="yes"), "progress"),
    Case("gen.055", "FlowGRPOTrainer.fit", "prompt label outside the classes",
         lambda: G.FlowGRPOTrainer(_cond_net(), _reward, steps=3, progress=False).fit([0, 7], n_updates=1), "prompts"),
    Case("gen.056", "FlowGRPOTrainer.fit", "n_updates 0",
         lambda: G.FlowGRPOTrainer(_cond_net(), _reward, steps=3, progress=False).fit([0], n_updates=0), "n_updates"),
    Case("gen.057", "FlowGRPOTrainer.fit", "callback not callable",
         lambda: G.FlowGRPOTrainer(_cond_net(), _reward, steps=3, progress=False).fit([0], n_updates=1, callback=3),
         "callback"),
    Case("gen.058", "FlowGRPOTrainer.fit", "negative prompt label",
         lambda: G.FlowGRPOTrainer(_cond_net(), _reward, steps=3, progress=False).fit([-1], n_updates=1), "prompts"),
    Case("gen.059", "FlowGRPOTrainer.fit", "string prompts",
         lambda: G.FlowGRPOTrainer(_cond_net(), _reward, steps=3, progress=False).fit("ab", n_updates=1), "prompts"),
    Case("gen.060", "FlowGRPOTrainer.sample", "not fitted",
         lambda: G.FlowGRPOTrainer(_cond_net(), _reward, progress=False).sample([0], n=2), "FlowGRPOTrainer.sample"),
    Case("gen.061", "FlowGRPOTrainer.sample", "n 0", lambda: _trainer().sample([0], n=0), "n"),
    Case("gen.062", "FlowGRPOTrainer.sample", "prompt out of range", lambda: _trainer().sample([9], n=2), "prompts"),
    Case("gen.063", "FlowGRPOTrainer.sample", "steps 1", lambda: _trainer().sample([0], n=2, steps=1), "steps"),
    Case("gen.064", "FlowGRPOTrainer.sample", "sde string", lambda: _trainer().sample([0], n=2, sde="yes"), "sde"),
    Case("gen.065", "FlowGRPOTrainer.sample", "bad rng", lambda: _trainer().sample([0], n=2, rng=-4), "rng"),
    Case("gen.066", "FlowGRPOTrainer.process_rewards", "branches 0", lambda: _trainer().process_rewards([0], branches=0),
         "branches"),
    Case("gen.067", "FlowGRPOTrainer.process_rewards", "step to branch out of range",
         lambda: _trainer().process_rewards([0], steps_to_branch=[7]), "steps_to_branch"),
    Case("gen.068", "FlowGRPOTrainer.process_rewards", "prompt out of range",
         lambda: _trainer().process_rewards([5]), "prompts"),
    Case("gen.069", "FlowGRPOTrainer.process_rewards", "seeds_per_prompt 0",
         lambda: _trainer().process_rewards([0], seeds_per_prompt=0), "seeds_per_prompt"),
    Case("gen.070", "FlowGRPOTrainer.process_rewards", "bad rng", lambda: _trainer().process_rewards([0], rng="x"), "rng"),
    # ---- diffusers bridges (no diffusers needed for these refusals)
    Case("gen.071", "DiffusersFlowModel", "model a string", lambda: G.DiffusersFlowModel("unet", object(), (1, 8, 8)),
         "model"),
    Case("gen.072", "DiffusersBase", "model an int", lambda: G.DiffusersBase(3, object(), (2,)), "model"),
    # ---- Value Matching
    Case("gen.073", "ValueMatching", "lam 0", lambda: G.ValueMatching(_oracle(), _linear, lam=0.0).fit(1, progress=False),
         "lam"),
    Case("gen.074", "ValueMatching", "steps 1", lambda: G.ValueMatching(_oracle(), _linear, steps=1).fit(1, progress=False),
         "steps"),
    Case("gen.075", "ValueMatching", "target td", lambda: G.ValueMatching(_oracle(), _linear, target="td").fit(1, progress=False),
         "target"),
    Case("gen.076", "ValueMatching", "hidden negative",
         lambda: G.ValueMatching(_oracle(), _linear, hidden=(8, -1)).fit(1, progress=False), "hidden"),
    Case("gen.077", "ValueMatching", "cond label outside the classes",
         lambda: G.ValueMatching(_cond_net(), _linear, steps=3, rollouts=4, cond=7).fit(1, progress=False), "cond"),
    Case("gen.078", "ValueMatching", "cond on an unconditional flow",
         lambda: G.ValueMatching(_oracle(), _linear, steps=3, cond=1).fit(1, progress=False), "cond"),
    Case("gen.079", "ValueMatching", "value net of wrong input size",
         lambda: G.ValueMatching(_oracle(), _linear, steps=3, value_net=torch.nn.Linear(5, 1)).fit(1, progress=False),
         "value_net"),
    Case("gen.080", "ValueMatching", "reward returns NaN",
         lambda: G.ValueMatching(_oracle(), lambda x: torch.full((x.shape[0],), NAN), steps=3, rollouts=4,
                                 hidden=(4,)).fit(1, progress=False), "reward_fn"),
    Case("gen.081", "ValueMatching", "reward wrong shape",
         lambda: G.ValueMatching(_oracle(), lambda x: x, steps=3, rollouts=4, hidden=(4,)).fit(1, progress=False),
         "reward_fn"),
    Case("gen.082", "ValueMatching", "cfg negative", lambda: G.ValueMatching(_oracle(), _linear, cfg=-1.0).fit(1, progress=False),
         "cfg"),
    Case("gen.083", "ValueMatching", "base flow a string", lambda: G.ValueMatching("flow", _linear).fit(1, progress=False),
         "base_flow"),
    Case("gen.084", "ValueMatching.fit", "n_iter 0", lambda: G.ValueMatching(_oracle(), _linear).fit(0), "n_iter"),
    Case("gen.085", "ValueMatching.sample", "negative guidance", lambda: _vm().sample(3, guidance_scale=-0.1),
         "guidance_scale"),
    Case("gen.086", "ValueMatching.sample", "n 0", lambda: _vm().sample(0), "n"),
    Case("gen.087", "ValueMatching.sample", "bad rng", lambda: _vm().sample(3, rng=-2), "rng"),
    Case("gen.088", "ValueMatching.value", "x of wrong width", lambda: _vm().value(np.zeros((2, 3)), 0.5), "x"),
    Case("gen.089", "ValueMatching.value", "NaN x", lambda: _vm().value(np.full((2, 2), NAN), 0.5), "x"),
    Case("gen.090", "ValueMatching.value", "t 1.5", lambda: _vm().value(np.zeros((2, 2)), 1.5), "t"),
    Case("gen.091", "ValueMatching.value", "not fitted",
         lambda: G.ValueMatching(_oracle(), _linear).value(np.zeros((1, 2)), 0.5), "ValueMatching.value"),
    Case("gen.092", "ValueMatching.objective", "n 1", lambda: _vm().objective(n=1), "n"),
    Case("gen.093", "ValueMatching.objective", "inf guidance", lambda: _vm().objective(n=10, guidance_scale=float("inf")),
         "guidance_scale"),
    Case("gen.094", "ValueMatching.value", "empty x", lambda: _vm().value(np.zeros((0, 2)), 0.5), "x"),
    Case("gen.095", "classifier_guidance", "on_policy given", lambda: G.classifier_guidance(_oracle(), _linear, on_policy=True),
         "on_policy"),
    Case("gen.096", "classifier_guidance", "lam 0", lambda: G.classifier_guidance(_oracle(), _linear, lam=0.0, steps=5), "lam"),
    Case("gen.097", "classifier_guidance", "n_iter 0", lambda: G.classifier_guidance(_oracle(), _linear, n_iter=0), "n_iter"),
    Case("gen.098", "best_of_n", "n 0", lambda: G.best_of_n(_oracle(), _linear, 0, steps=5), "n"),
    Case("gen.099", "best_of_n", "candidates 0", lambda: G.best_of_n(_oracle(), _linear, 4, n_candidates=0, steps=5),
         "n_candidates"),
    Case("gen.100", "best_of_n", "cond label out of range", lambda: G.best_of_n(_cond_net(), _linear, 4, steps=3, cond=9),
         "cond"),
    Case("gen.101", "best_of_n", "reward returns NaN",
         lambda: G.best_of_n(_oracle(), lambda x: torch.full((x.shape[0],), NAN), 4, steps=3), "reward_fn"),
    Case("gen.102", "best_of_n", "reward wrong length",
         lambda: G.best_of_n(_oracle(), lambda x: torch.zeros(1), 4, steps=3), "reward_fn"),
    Case("gen.103", "best_of_n", "base flow an int", lambda: G.best_of_n(5, _linear, 4, steps=3), "base_flow"),
    Case("gen.104", "best_of_n", "cond on an unconditional flow", lambda: G.best_of_n(_oracle(), _linear, 4, steps=3, cond=0),
         "cond"),
    Case("gen.105", "gradient_guidance", "negative lam", lambda: G.gradient_guidance(_oracle(), _linear, 4, lam=-1.0, steps=5),
         "lam"),
    Case("gen.106", "gradient_guidance", "clip 0",
         lambda: G.gradient_guidance(_oracle(), _linear, 4, guidance_clip=0.0, steps=5), "guidance_clip"),
    Case("gen.107", "gradient_guidance", "cond out of range",
         lambda: G.gradient_guidance(_cond_net(), _linear, 4, steps=3, cond=9), "cond"),
    Case("gen.108", "gradient_guidance", "non-differentiable reward",
         lambda: G.gradient_guidance(_oracle(), lambda x: (x[:, 0] > 0).double(), 4, steps=5), "reward_fn"),
    Case("gen.109", "gradient_guidance", "inf guidance", lambda: G.gradient_guidance(_oracle(), _linear, 4, steps=5,
                                                                                     guidance_scale=float("inf")),
         "guidance_scale"),
    Case("gen.110", "adjoint_matching", "oracle has nothing to train",
         lambda: G.adjoint_matching(_oracle(), _linear, n_iter=1, steps=5), "base_flow"),
    Case("gen.111", "adjoint_matching", "rollouts 1", lambda: G.adjoint_matching(_cond_net(None), _linear, rollouts=1),
         "rollouts"),
    Case("gen.112", "adjoint_matching", "progress string",
         lambda: G.adjoint_matching(_cond_net(None), lambda x: x[:, 0], n_iter=1, steps=3, rollouts=2, progress="y"),
         "progress"),
    Case("gen.113", "ddpo", "negative kl weight",
         lambda: G.ddpo(_cond_net(None), lambda x: x[:, 0], n_iter=1, steps=3, kl_weight=-1.0), "kl_weight"),
    Case("gen.114", "ddpo", "lr 0", lambda: G.ddpo(_cond_net(None), lambda x: x[:, 0], lr=0.0), "lr"),
    Case("gen.115", "ddpo", "time batch 0", lambda: G.ddpo(_cond_net(None), lambda x: x[:, 0], time_batch=0), "time_batch"),
    Case("gen.116", "classifier_reward", "not a classifier", lambda: G.classifier_reward("clf", 0), "classifier"),
    Case("gen.117", "classifier_reward", "negative target", lambda: G.classifier_reward(torch.nn.Linear(4, 3), -1), "target"),
    Case("gen.118", "classifier_reward", "unknown kind", lambda: G.classifier_reward(torch.nn.Linear(4, 3), 0, kind="logit"),
         "kind"),
    Case("gen.119", "classifier_reward", "target beyond the logits",
         lambda: G.classifier_reward(torch.nn.Linear(4, 3), 5)(torch.zeros(2, 4)), "target"),
    Case("gen.120", "classifier_reward", "x with the wrong feature count",
         lambda: G.classifier_reward(torch.nn.Linear(4, 3), 0)(torch.zeros(2, 7)), "x"),
    Case("gen.121", "gaussian_tilt_value", "zero variance",
         lambda: G.gaussian_tilt_value(np.zeros((2, 2)), 0.5, [0.0, 0.0], 0.0, 1.0, a=[1.0, 0.0]), "var"),
    Case("gen.122", "gaussian_tilt_value", "both a and c",
         lambda: G.gaussian_tilt_value(np.zeros((2, 2)), 0.5, [0.0, 0.0], 1.0, 1.0, a=[1.0, 0.0], c=[1.0, 1.0]), "a"),
    Case("gen.123", "gaussian_tilt_value", "t out of range",
         lambda: G.gaussian_tilt_value(np.zeros((2, 2)), 1.5, [0.0, 0.0], 1.0, 1.0, a=[1.0, 0.0]), "t"),
    Case("gen.124", "gaussian_tilt_value", "mean length",
         lambda: G.gaussian_tilt_value(np.zeros((2, 2)), 0.5, [0.0], 1.0, 1.0, a=[1.0, 0.0]), "mean"),
    Case("gen.125", "gaussian_tilt_value", "NaN lam",
         lambda: G.gaussian_tilt_value(np.zeros((2, 2)), 0.5, [0.0, 0.0], 1.0, NAN, c=[1.0, 1.0]), "lam"),
    Case("gen.126", "gaussian_tilt_value", "NaN x",
         lambda: G.gaussian_tilt_value(np.full((2, 2), NAN), 0.5, [0.0, 0.0], 1.0, 1.0, a=[1.0, 0.0]), "x"),
    # ---- LIGHT: data
    Case("gen.127", "hoi_dataset", "unknown source", lambda: G.hoi_dataset("web", n=4), "source"),
    Case("gen.128", "hoi_dataset", "n 0", lambda: G.hoi_dataset("mocap", n=0), "n"),
    Case("gen.129", "hoi_dataset", "T 1", lambda: G.hoi_dataset("mocap", n=4, T=1), "T"),
    Case("gen.130", "hoi_dataset", "negative fps", lambda: G.hoi_dataset("mocap", n=4, fps=-1.0), "fps"),
    Case("gen.131", "hoi_dataset", "test fraction 1", lambda: G.hoi_dataset("mocap", n=4, test_fraction=1.0), "test_fraction"),
    Case("gen.132", "hoi_dataset", "unknown clip", lambda: G.hoi_dataset("mocap", n=4, clips=["moonwalk"]), "clips"),
    Case("gen.133", "hoi_dataset", "unknown object kind", lambda: G.hoi_dataset("mocap", n=4, objects=("teapot",)),
         "objects"),
    Case("gen.134", "hoi_dataset", "bad rng", lambda: G.hoi_dataset("mocap", n=4, rng=-1), "rng"),
    Case("gen.135", "hoi_dataset", "test split empty", lambda: G.hoi_dataset("mocap", n=1, test_fraction=0.5),
         ("n", "test_fraction")),
    Case("gen.136", "HOISequences", "body of wrong width", _from_arrays(body=np.zeros((12, 8, 5))), "body"),
    Case("gen.137", "HOISequences", "NaN body",
         lambda: _from_arrays(body=np.where(np.ones_like(_seqs().body, bool), NAN, 0.0))(), "body"),
    Case("gen.138", "HOISequences", "caption count", _from_arrays(text=["a"]), "text"),
    Case("gen.139", "HOISequences", "objects not HOIObject", lambda: _from_arrays(objects=["box"] * len(_seqs()))(), "objects"),
    Case("gen.140", "HOISequences", "contact wrong shape", _from_arrays(contact=np.zeros((2, 2), bool)), "contact"),
    Case("gen.141", "HOISequences", "fps 0", _from_arrays(fps=0.0), "fps"),
    Case("gen.142", "HOISequences", "contact not boolean (2.0)",
         lambda: _from_arrays(contact=np.full(_seqs().body.shape[:2], 2.0))(), "contact"),
    Case("gen.143", "HOISequences", "hands length differs", lambda: _from_arrays(hands=_seqs().hands[:, :3])(), "hands"),
    Case("gen.144", "HOIDataset", "train not sequences", lambda: G.HOIDataset(train="x", test=_seqs()), "train"),
    Case("gen.145", "HOIDataset", "train and test of different kinds",
         lambda: G.HOIDataset(train=_seqs(), test=_planar().test), "test"),
    Case("gen.146", "HOIObject", "unknown kind", lambda: G.HOIObject("teapot"), "kind"),
    Case("gen.147", "HOIObject", "negative dims", lambda: G.HOIObject("box", (0.1, -0.1, 0.1)), "dims"),
    Case("gen.148", "HOIObject", "NaN dims", lambda: G.HOIObject("box", (0.1, NAN, 0.1)), "dims"),
    Case("gen.149", "HOIObject", "dims of 2 entries for a box", lambda: G.HOIObject("box", (0.1, 0.1)), "dims"),
    Case("gen.150", "HOIObject", "mesh without vertices", lambda: G.HOIObject("mesh"), "vertices"),
    Case("gen.151", "HOIObject.sdf", "points of 2 columns", lambda: G.HOIObject().sdf(np.zeros((4, 2))), "points"),
    Case("gen.152", "HOIObject.sdf", "NaN points", lambda: G.HOIObject().sdf(np.full((4, 3), NAN)), "points"),
    Case("gen.153", "sample_object", "unknown kind", lambda: G.sample_object("teapot", rng=0), "kind"),
    Case("gen.154", "sample_object", "bad rng", lambda: G.sample_object("box", rng=-1), "rng"),
    Case("gen.155", "mesh_object", "unknown mesh", lambda: G.mesh_object("teapot"), "name"),
    Case("gen.156", "mesh_object", "negative size", lambda: G.mesh_object("bunny", size=-1.0), ("size", "name")),
    Case("gen.157", "motion_features", "not sequences", lambda: G.motion_features(np.zeros((2, 8, 3))), "seqs"),
    Case("gen.158", "hoi_metrics", "mismatched sizes", lambda: G.hoi_metrics(_seqs(), _seqs().subset([0, 1])), "gen"),
    Case("gen.159", "hoi_metrics", "not sequences", lambda: G.hoi_metrics("a", _seqs()), "gen"),
    Case("gen.160", "hoi_metrics", "negative eps", lambda: G.hoi_metrics(_seqs(), _seqs(), eps=-0.1), "eps"),
    # ---- LIGHT: oracle, sampler, denoiser
    Case("gen.161", "LinearGaussianOracle", "zero block", lambda: G.LinearGaussianOracle(dims=(2, 0)), "dims"),
    Case("gen.162", "LinearGaussianOracle", "non-PSD covariance", lambda: G.LinearGaussianOracle(dims=(1, 1), cov=-np.eye(2)),
         "cov"),
    Case("gen.163", "LinearGaussianOracle", "covariance wrong size", lambda: G.LinearGaussianOracle(dims=(1, 1), cov=np.eye(3)),
         "cov"),
    Case("gen.164", "LinearGaussianOracle", "K 1", lambda: G.LinearGaussianOracle(K=1), "K"),
    Case("gen.165", "LinearGaussianOracle", "NaN covariance",
         lambda: G.LinearGaussianOracle(dims=(1, 1), cov=np.full((2, 2), NAN)), "cov"),
    Case("gen.166", "LinearGaussianOracle.posterior_mean", "levels out of range",
         lambda: _lgo().posterior_mean(np.zeros((1, 4)), [0, 50]), "levels"),
    Case("gen.167", "LinearGaussianOracle.posterior_mean", "y of wrong width",
         lambda: _lgo().posterior_mean(np.zeros((1, 3)), [0, 0]), "y"),
    Case("gen.168", "LinearGaussianOracle.posterior_cov", "levels wrong length", lambda: _lgo().posterior_cov([0]), "levels"),
    Case("gen.169", "LinearGaussianOracle.posterior_cov", "non-integer level", lambda: _lgo().posterior_cov([0.5, 1]),
         "levels"),
    Case("gen.170", "LinearGaussianOracle.block", "block index out of range", lambda: _lgo().block(5), "m"),
    Case("gen.171", "LinearGaussianOracle.sample", "n 0", lambda: _lgo().sample(0, [0, 0]), "n"),
    Case("gen.172", "LinearGaussianOracle.sample", "bad rng", lambda: _lgo().sample(2, [0, 0], rng=-1), "rng"),
    Case("gen.173", "LinearGaussianOracle.random_cov", "d 0", lambda: G.LinearGaussianOracle.random_cov(0, 0), "d"),
    Case("gen.174", "PaceGuidance", "unknown leader", lambda: G.PaceGuidance(leaders=("tail",)).resolve(("body", "hands"), 10),
         "leaders"),
    Case("gen.175", "PaceGuidance", "negative delta", lambda: G.PaceGuidance(delta=-1), "delta"),
    Case("gen.176", "PaceGuidance", "negative weight", lambda: G.PaceGuidance(weight=-1.0), "weight"),
    Case("gen.177", "PaceGuidance", "NaN text weight", lambda: G.PaceGuidance(text_weight=NAN), "text_weight"),
    Case("gen.178", "PaceGuidance", "k_div 0", lambda: G.PaceGuidance(k_div=0), "k_div"),
    Case("gen.179", "PaceGuidance", "window starts after the last step (guidance never acts)",
         lambda: G.PaceGuidance(begin=50, delta=1).resolve(("body", "hands"), 10), ("upstop", "begin")),
    Case("gen.180", "PaceGuidance", "leaders also followers",
         lambda: G.PaceGuidance(leaders=("body",), followers=("body",)).resolve(("body", "hands"), 10), "followers"),
    Case("gen.181", "PaceGuidance.window", "S 0", lambda: G.PaceGuidance().window(0), "S"),
    Case("gen.182", "PaceGuidance.guided_steps", "S negative", lambda: G.PaceGuidance().guided_steps(-3), "S"),
    Case("gen.183", "PaceGuidance.resolve", "delta beyond the steps",
         lambda: G.PaceGuidance(delta=50).resolve(("body", "hands"), 10), "delta"),
    Case("gen.184", "PaceGuidance", "code_faithful string", lambda: G.PaceGuidance(code_faithful="no"), "code_faithful"),
    Case("gen.185", "ddim_sample", "denoise not callable", _ddim(denoise=3), "denoise"),
    Case("gen.186", "ddim_sample", "levels increasing", _ddim(levels=[-1, 2, 5]), "levels"),
    Case("gen.187", "ddim_sample", "levels beyond K", _ddim(levels=[50, -1]), ("levels", "schedule")),
    Case("gen.188", "ddim_sample", "x_init empty", _ddim(x_init=[]), "x_init"),
    Case("gen.189", "ddim_sample", "NaN x_init", _ddim(x_init=[torch.full((2, 4, 3), NAN)]), "x_init"),
    Case("gen.190", "ddim_sample", "negative text weight", _ddim(text_weight=-1.0), "text_weight"),
    Case("gen.191", "ddim_sample", "guidance without names", _ddim(guidance=G.PaceGuidance()), "names"),
    Case("gen.192", "ddim_sample", "schedule not a schedule", _ddim(schedule="cosine"), "schedule"),
    Case("gen.193", "ddim_sample", "x_init batch sizes differ",
         _ddim(x_init=[torch.zeros(2, 4, 3), torch.zeros(3, 4, 2)]), "x_init"),
    Case("gen.194", "LightDenoiser", "empty token dims",
         lambda: G.LightDenoiser((), T=4, K=10, text_dim=5, shape_dim=3), "token_dims"),
    Case("gen.195", "LightDenoiser", "heads not dividing d_model",
         lambda: G.LightDenoiser((3,), T=4, K=10, text_dim=5, shape_dim=3, d_model=10, n_heads=3), "n_heads"),
    Case("gen.196", "LightDenoiser", "T 0", lambda: G.LightDenoiser((3,), T=0, K=10, text_dim=5, shape_dim=3), "T"),
    Case("gen.197", "LightDenoiser", "dropout 1.5",
         lambda: G.LightDenoiser((3,), T=4, K=10, text_dim=5, shape_dim=3, dropout=1.5), "dropout"),
    Case("gen.198", "LightDenoiser", "K 0", lambda: G.LightDenoiser((3,), T=4, K=0, text_dim=5, shape_dim=3), "K"),
    Case("gen.199", "LightDenoiser.forward", "token feature count mismatch",
         _den_fwd(xs=[torch.zeros(2, 4, 5), torch.zeros(2, 4, 2)]), "xs"),
    Case("gen.200", "LightDenoiser.forward", "wrong number of modalities", _den_fwd(xs=[torch.zeros(2, 4, 3)]), "xs"),
    Case("gen.201", "LightDenoiser.forward", "levels beyond K",
         _den_fwd(levels=torch.full((2, 4, 2), 99, dtype=torch.long)), "levels"),
    Case("gen.202", "LightDenoiser.forward", "text of wrong width", _den_fwd(text=torch.zeros(2, 7)), "text"),
    Case("gen.203", "LightDenoiser.forward", "shape code of wrong width", _den_fwd(shape=torch.zeros(2, 4)), "shape"),
    Case("gen.204", "LightDenoiser.forward", "frames beyond T", _den_fwd(xs=[torch.zeros(2, 6, 3), torch.zeros(2, 6, 2)]),
         "xs"),
    Case("gen.205", "LightDenoiser.forward", "NaN tokens", _den_fwd(xs=[torch.full((2, 4, 3), NAN), torch.zeros(2, 4, 2)]),
         "xs"),
    Case("gen.206", "LightDenoiser.forward", "batch mismatch of text", _den_fwd(text=torch.zeros(3, 5)), "text"),
    # ---- LIGHT: the estimator
    Case("gen.207", "LIGHT", "heads not dividing d_model", lambda: G.LIGHT(d_model=10, n_heads=3).fit(_small(), epochs=1),
         "n_heads"),
    Case("gen.208", "LIGHT", "steps above K", lambda: G.LIGHT(K=10, steps=20).fit(_small(), epochs=1), "steps"),
    Case("gen.209", "LIGHT", "unknown modality", lambda: G.LIGHT(modalities=("body", "tail")).fit(_small(), epochs=1),
         "modalities"),
    Case("gen.210", "LIGHT", "unknown noise mode", lambda: G.LIGHT(noise_mode="shared").fit(_small(), epochs=1), "noise_mode"),
    Case("gen.211", "LIGHT", "unknown text encoder", lambda: G.LIGHT(text_encoder="bert").fit(_small(), epochs=1),
         "text_encoder"),
    Case("gen.212", "LIGHT", "text dropout 1.5", lambda: G.LIGHT(text_dropout=1.5).fit(_small(), epochs=1), "text_dropout"),
    Case("gen.213", "LIGHT", "unknown device", lambda: G.LIGHT(device="tpu").fit(_small(), epochs=1), "device"),
    Case("gen.214", "LIGHT", "negative contact weight", lambda: G.LIGHT(contact_weight=-1.0).fit(_small(), epochs=1),
         "contact_weight"),
    Case("gen.215", "LIGHT", "bad rng", lambda: G.LIGHT(rng=-1).fit(_small(), epochs=1), "rng"),
    Case("gen.216", "LIGHT", "loss weights for unknown modality",
         lambda: G.LIGHT(loss_weights={"tail": 1.0}).fit(_small(), epochs=1), "loss_weights"),
    Case("gen.217", "LIGHT", "negative loss weight", lambda: G.LIGHT(loss_weights={"body": -1.0}).fit(_small(), epochs=1),
         "loss_weights"),
    Case("gen.218", "LIGHT", "lr 0", lambda: G.LIGHT(lr=0.0).fit(_small(), epochs=1), "lr"),
    Case("gen.219", "LIGHT.fit", "data not a dataset", lambda: G.LIGHT().fit(np.zeros((4, 8, 3)), epochs=1), "data"),
    Case("gen.220", "LIGHT.fit", "epochs 0", lambda: G.LIGHT().fit(_small(), epochs=0), "epochs"),
    Case("gen.221", "LIGHT.fit", "cache string", lambda: G.LIGHT().fit(_small(), epochs=1, cache="yes"), "cache"),
    Case("gen.222", "LIGHT.sample", "not fitted", lambda: G.LIGHT().sample("lift the box", "box"), "LIGHT.sample"),
    Case("gen.223", "LIGHT.sample", "empty caption", lambda: _light().sample("", "box"), "text"),
    Case("gen.224", "LIGHT.sample", "unknown object kind", lambda: _light().sample("lift", "teapot"), "obj"),
    Case("gen.225", "LIGHT.sample", "n 0", lambda: _light().sample("lift", "box", n=0), "n"),
    Case("gen.226", "LIGHT.sample", "steps above K", lambda: _light().sample("lift", "box", steps=50), "steps"),
    Case("gen.227", "LIGHT.sample", "negative text weight", lambda: _light().sample("lift", "box", text_weight=-1.0),
         "text_weight"),
    Case("gen.228", "LIGHT.sample", "guidance not PaceGuidance", lambda: _light().sample("lift", "box", guidance="pace"),
         "guidance"),
    Case("gen.229", "LIGHT.sample", "guidance leader unknown",
         lambda: _light().sample("lift", "box", guidance=G.PaceGuidance(leaders=("tail",))), "leaders"),
    Case("gen.230", "LIGHT.sample", "caption count mismatch",
         lambda: _light().sample(["a", "b", "c"], "box", n=2), "text"),
    Case("gen.231", "LIGHT.sample", "bad rng", lambda: _light().sample("lift", "box", rng=-1), "rng"),
    Case("gen.232", "LIGHT.sample", "fuse string", lambda: _light().sample("lift", "box", fuse="yes"), "fuse"),
    Case("gen.233", "LIGHT.evaluate", "test of another frame count",
         lambda: _light().evaluate(G.hoi_dataset("mocap", n=6, T=10, fps=10, rng=1).test, n_boot=10), "test"),
    Case("gen.234", "LIGHT.evaluate", "level 1", lambda: _light().evaluate(_small().test, level=1.0, n_boot=10), "level"),
    Case("gen.235", "LIGHT.evaluate", "n_boot 0", lambda: _light().evaluate(_small().test, n_boot=0), "n_boot"),
    Case("gen.236", "LIGHT.evaluate", "test not sequences", lambda: _light().evaluate("test"), "test"),
    # ---- F1 bootstrap
    Case("gen.237", "bootstrap_f1_difference", "true positives above generated",
         lambda: G.bootstrap_f1_difference([[9, 1, 1]] * 3, [[1, 2, 2]] * 3, rng=0), "counts_a"),
    Case("gen.238", "bootstrap_f1_difference", "negative counts",
         lambda: G.bootstrap_f1_difference([[-1, 2, 2]] * 3, [[1, 2, 2]] * 3, rng=0), "counts_a"),
    Case("gen.239", "bootstrap_f1_difference", "non-integer counts",
         lambda: G.bootstrap_f1_difference([[0.5, 2, 2]] * 3, [[1, 2, 2]] * 3, rng=0), "counts_a"),
    Case("gen.240", "bootstrap_f1_difference", "NaN counts",
         lambda: G.bootstrap_f1_difference([[NAN, 2, 2]] * 3, [[1, 2, 2]] * 3, rng=0), "counts_a"),
    Case("gen.241", "bootstrap_f1_difference", "empty", lambda: G.bootstrap_f1_difference(np.zeros((0, 3)), np.zeros((0, 3))),
         "counts_a"),
    Case("gen.242", "bootstrap_f1_difference", "shape mismatch",
         lambda: G.bootstrap_f1_difference(_counts(), _counts()[:2], rng=0), "counts_b"),
    Case("gen.243", "bootstrap_f1_difference", "level 1.5",
         lambda: G.bootstrap_f1_difference(_counts(), _counts(), level=1.5, rng=0), "level"),
    Case("gen.244", "bootstrap_f1_difference", "n_boot 0",
         lambda: G.bootstrap_f1_difference(_counts(), _counts(), n_boot=0, rng=0), "n_boot"),
    Case("gen.245", "bootstrap_f1_difference", "counts_b tp above reference",
         lambda: G.bootstrap_f1_difference(_counts(), [[5, 9, 1]] * 3, rng=0), "counts_b"),
    Case("gen.246", "bootstrap_f1_difference", "bad rng",
         lambda: G.bootstrap_f1_difference(_counts(), _counts(), rng="x"), "rng"),
    # ---- PlanarHOI
    Case("gen.247", "planar_hoi", "n 0", lambda: G.planar_hoi(n=0), "n"),
    Case("gen.248", "planar_hoi", "T 8 (below the 16 frames of a reach)", lambda: G.planar_hoi(n=10, T=8), "T"),
    Case("gen.249", "planar_hoi", "sizes reversed", lambda: G.planar_hoi(n=10, sizes=((0.2, 0.1), (0.1, 0.2))), "sizes"),
    Case("gen.250", "planar_hoi", "unknown size preset", lambda: G.planar_hoi(n=10, sizes="huge"), "sizes"),
    Case("gen.251", "planar_hoi", "task out of range", lambda: G.planar_hoi(n=10, tasks=[99]), "tasks"),
    Case("gen.252", "planar_hoi", "test fraction 0", lambda: G.planar_hoi(n=10, test_fraction=0.0), "test_fraction"),
    Case("gen.253", "planar_hoi", "bad rng", lambda: G.planar_hoi(n=10, rng=-2), "rng"),
    Case("gen.254", "PlanarHOISequences", "body of wrong width", _pfrom_arrays(body=np.zeros((16, 16, 5))), "body"),
    Case("gen.255", "PlanarHOISequences", "NaN hands",
         lambda: _pfrom_arrays(hands=np.full_like(_planar().train.hands, NAN))(), "hands"),
    Case("gen.256", "PlanarHOISequences", "caption count", _pfrom_arrays(text=["a"]), "text"),
    Case("gen.257", "PlanarHOISequences", "fps negative", _pfrom_arrays(fps=-1.0), "fps"),
    Case("gen.258", "PlanarHOISequences.contacts", "negative tolerance", lambda: _planar().train.contacts(tol=-1.0), "tol"),
    Case("gen.259", "planar_metrics", "mismatched sizes",
         lambda: G.planar_metrics(_planar().train, _planar().test), "gen"),
    Case("gen.260", "planar_metrics", "negative tolerance",
         lambda: G.planar_metrics(_planar().test, _planar().test, tol=-0.1), "tol"),
    Case("gen.261", "planar_metrics", "not planar sequences", lambda: G.planar_metrics(_seqs(), _seqs()), "gen"),
    Case("gen.262", "planar_fingertip", "hands of wrong width",
         lambda: G.planar_fingertip(np.zeros((4, 2)), np.zeros((4, 2))), "hands"),
    Case("gen.263", "planar_fingertip", "NaN body", lambda: G.planar_fingertip(np.full((4, 2), NAN), np.zeros((4, 3))), "body"),
    Case("gen.264", "planar_fingertip", "length mismatch",
         lambda: G.planar_fingertip(np.zeros((4, 2)), np.zeros((5, 3))), "hands"),
    Case("gen.265", "GRPOHistory", "records not a list of dicts", lambda: G.GRPOHistory(records=5), "records"),
    Case("gen.266", "HOIEvaluation", "metrics not a dict", lambda: G.HOIEvaluation(metrics=3, ci={}, samples=None), "metrics"),
]
