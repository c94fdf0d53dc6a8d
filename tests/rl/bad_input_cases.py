"""Bad-input sweep cases for iclr26sci.rl (format: tests/bad_input_sweep.py).

Fixtures are tiny and built once (``functools.lru_cache``); each case makes one bad call.
"""
import functools

import numpy as np

from bad_input_sweep import Case
from iclr26sci import rl as R

NAN = float("nan")
B = [[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0]]


@functools.lru_cache(None)
def task():
    return R.ArithmeticTask(n_train=5, n_test=3, rng=0)


def env(**kw):
    from iclr26sci.rl.mvr import OscillatorEnv, make_multiview_env

    a = dict(cameras=["side"], clip_len=4, every=5, size=(16, 16))
    a.update(kw)
    return make_multiview_env(OscillatorEnv(horizon=60), **a)


@functools.lru_cache(None)
def renv():
    return env()


@functools.lru_cache(None)
def ref_clips():
    e = renv()
    return e.rollout_clips(e.unwrapped.oscillate_policy(0.5), 60, 0)


@functools.lru_cache(None)
def scorer():
    return R.MotionDescriptorScorer.from_reference(renv(), ref_clips())


def mvr(**kw):
    a = dict(env=renv(), scorer=scorer(), backbone="sac", relevance_retrain_every=40,
             relevance=R.StateRelevance(hidden=8, min_updates=0, max_epochs=1),
             backbone_kwargs=dict(learning_starts=30, policy_kwargs=dict(net_arch=[8])), rng=0)
    a.update(kw)
    return R.MVR(**a)


@functools.lru_cache(None)
def agent():
    return mvr().learn(total_timesteps=40)


@functools.lru_cache(None)
def relevance():
    g = np.random.default_rng(0)
    X = g.normal(size=(12, 4, 3))
    return R.StateRelevance(hidden=8, min_updates=0, max_epochs=1, rng=0).fit(X, np.tanh(X[..., 0].mean(1)))


X3 = np.random.default_rng(1).normal(size=(6, 4, 3))
S6 = np.linspace(-0.5, 0.5, 6)


def rel_fit(**kw):
    a = dict(states=X3, scores=S6)
    a.update(kw)
    return R.StateRelevance(hidden=8, min_updates=0, max_epochs=1, rng=0).fit(**a)


def shaper(**kw):
    return R.MVRShaper(**kw)


def osc(**kw):
    return R.OscillatorEnv(**kw)


CLIP = np.zeros((1, 4, 16, 16, 3), np.uint8)
RW = np.zeros(25)

CASES = [
    # ----------------------------------------------------------------------- RS-GRPO advantages
    Case("rl.001", "rs_advantage", "NaN reward", lambda: R.rs_advantage([1.0, NAN, 0.0]), ("rewards",)),
    Case("rl.002", "rs_advantage", "3-D rewards", lambda: R.rs_advantage(np.zeros((2, 2, 2))), ("rewards",)),
    Case("rl.003", "rs_advantage", "empty rewards", lambda: R.rs_advantage([]), ("rewards",)),
    Case("rl.004", "rs_advantage", "beta NaN", lambda: R.rs_advantage(B, beta=NAN), ("beta",)),
    Case("rl.005", "rs_advantage", "beta a string", lambda: R.rs_advantage(B, beta="2"), ("beta",)),
    Case("rl.006", "rs_advantage", "beta so large that beta*r overflows", lambda: R.rs_advantage(
        [[0.0, 2.0, 1.0]], beta=1e308), ("beta",)),
    Case("rl.007", "rs_advantage", "group_ids with 2-D rewards", lambda: R.rs_advantage(B, [0, 1]), ("group_ids",)),
    Case("rl.008", "rs_advantage", "group_ids of the wrong length", lambda: R.rs_advantage([1.0, 0.0], [0, 0, 1]),
         ("group_ids",)),
    Case("rl.009", "rs_advantage", "NaN group id", lambda: R.rs_advantage([1.0, 0.0], [0.0, NAN]), ("group_ids",)),
    Case("rl.010", "rs_advantage", "string rewards", lambda: R.rs_advantage(["a", "b"]), ("rewards",)),
    Case("rl.011", "rs_advantage", "ragged groups list", lambda: R.rs_advantage([[1.0, 0.0], [1.0]]), ("rewards",)),
    Case("rl.012", "grpo_advantage", "eps < 0", lambda: R.grpo_advantage(B, eps=-1.0), ("eps",)),
    Case("rl.013", "grpo_advantage", "ddof 2", lambda: R.grpo_advantage(B, ddof=2), ("ddof",)),
    Case("rl.014", "grpo_advantage", "inf reward", lambda: R.grpo_advantage([np.inf, 0.0]), ("rewards",)),
    Case("rl.015", "grpo_advantage", "eps NaN", lambda: R.grpo_advantage(B, eps=NAN), ("eps",)),
    Case("rl.016", "dr_grpo_advantage", "complex rewards", lambda: R.dr_grpo_advantage([1j, 0.0]), ("rewards",)),
    Case("rl.017", "dr_grpo_advantage", "2-D group ids", lambda: R.dr_grpo_advantage([1.0, 0.0], [[0], [0]]),
         ("group_ids",)),
    Case("rl.018", "pkpo_advantage", "non-binary rewards", lambda: R.pkpo_advantage([[0.5, 1.0, 0.0, 1.0, 0.0]], k=2),
         ("rewards",)),
    Case("rl.019", "pkpo_advantage", "k >= group size", lambda: R.pkpo_advantage(B, k=4), ("k",)),
    Case("rl.020", "pkpo_advantage", "k 0", lambda: R.pkpo_advantage(B, k=0), ("k",)),
    Case("rl.021", "pkpo_advantage", "k 2.0", lambda: R.pkpo_advantage(B, k=2.0), ("k",)),
    Case("rl.022", "passk_training_advantage", "non-binary", lambda: R.passk_training_advantage(
        [[2.0, 1.0, 0.0, 1.0, 0.0]], k=2), ("rewards",)),
    Case("rl.023", "passk_training_advantage", "k True", lambda: R.passk_training_advantage(B, k=True), ("k",)),
    Case("rl.024", "group_advantage", "unknown method", lambda: R.group_advantage(B, method="ppo"), ("method",)),
    Case("rl.025", "group_advantage", "parameter of another method", lambda: R.group_advantage(
        B, method="grpo", beta=2.0), ("beta", "params")),
    Case("rl.026", "group_advantage", "method None", lambda: R.group_advantage(B, method=None), ("method",)),
    Case("rl.027", "binary_rs_weight", "p 1.5", lambda: R.binary_rs_weight(1.5), ("p",)),
    Case("rl.028", "binary_rs_weight", "p NaN", lambda: R.binary_rs_weight(NAN), ("p",)),
    Case("rl.029", "binary_rs_weight", "beta inf", lambda: R.binary_rs_weight(0.5, np.inf), ("beta",)),
    Case("rl.030", "binary_rs_weight", "p a string", lambda: R.binary_rs_weight("x"), ("p",)),
    Case("rl.031", "binary_rs_weight", "beta overflowing exp", lambda: R.binary_rs_weight(0.0, 1000.0), ("beta",)),
    Case("rl.032", "pass_at_k", "n_correct > n_samples", lambda: R.pass_at_k(5, 4), ("n_correct",)),
    Case("rl.033", "pass_at_k", "negative count", lambda: R.pass_at_k(-1, 4), ("n_correct",)),
    Case("rl.034", "pass_at_k", "fractional count", lambda: R.pass_at_k(1.5, 4), ("n_correct",)),
    Case("rl.035", "pass_at_k", "k > n", lambda: R.pass_at_k(1, 4, k=5), ("k",)),
    Case("rl.036", "pass_at_k", "k empty", lambda: R.pass_at_k(1, 4, k=[]), ("k",)),
    Case("rl.037", "pass_at_k", "k 0", lambda: R.pass_at_k(1, 4, k=0), ("k",)),
    Case("rl.038", "pass_at_k", "shapes that do not broadcast", lambda: R.pass_at_k([1, 2, 3], [4, 4]),
         ("n_samples", "n_correct")),
    Case("rl.039", "pass_at_k", "per_problem 'yes'", lambda: R.pass_at_k(1, 4, per_problem="yes"), ("per_problem",)),
    Case("rl.040", "pass_at_k", "no problems", lambda: R.pass_at_k([], []), ("n_correct", "n_samples")),
    Case("rl.041", "pass_at_k", "zero samples", lambda: R.pass_at_k(0, 0), ("n_samples", "k")),
    Case("rl.042", "pass_at_k", "2-D counts", lambda: R.pass_at_k([[1, 2]], [[4, 4]]), ("n_correct",)),
    Case("rl.043", "verl_rs_advantage", "rewards a list", lambda: R.verl_rs_advantage([[1.0]], [[1.0]], [0]),
         ("token_level_rewards",)),
    Case("rl.044", "verl_rs_advantage", "mask of another shape", lambda: _verl(mask_shape=(2, 4)), ("response_mask",)),
    Case("rl.045", "verl_rs_advantage", "index of another length", lambda: _verl(index=[0]), ("index",)),
    Case("rl.046", "verl_rs_advantage", "singleton option", lambda: _verl(singleton="x"), ("singleton",)),
    Case("rl.047", "verl_rs_advantage", "NaN token reward", lambda: _verl(nan=True), ("token_level_rewards",)),
    Case("rl.048", "verl_rs_advantage", "mask not 0/1", lambda: _verl(mask_value=2.0), ("response_mask",)),
    Case("rl.049", "optimal_arm_rate", "pi not summing to 1", lambda: R.optimal_arm_rate([0.5, 0.4], [1.0, 0.0]),
         ("pi",)),
    Case("rl.050", "optimal_arm_rate", "rewards length mismatch", lambda: R.optimal_arm_rate([0.5, 0.5], [1.0]),
         ("rewards",)),
    Case("rl.051", "optimal_arm_rate", "tied optimal arms", lambda: R.optimal_arm_rate([0.5, 0.5], [1.0, 1.0]),
         ("rewards",)),
    Case("rl.052", "optimal_arm_rate", "NaN reward", lambda: R.optimal_arm_rate([0.5, 0.5], [1.0, NAN]),
         ("rewards",)),
    Case("rl.053", "optimal_arm_rate", "scaled 1", lambda: R.optimal_arm_rate([0.5, 0.5], [1.0, 0.0], scaled=1),
         ("scaled",)),
    Case("rl.054", "bandit_rewards", "n_arms 5", lambda: R.bandit_rewards(5), ("n_arms",)),
    Case("rl.055", "bandit_rewards", "n_arms 100.0", lambda: R.bandit_rewards(100.0), ("n_arms",)),
    Case("rl.056", "bandit_experiment", "group_size 1", lambda: R.bandit_experiment(steps=2, seeds=1, group_size=1),
         ("group_size",)),
    Case("rl.057", "bandit_experiment", "method option", lambda: R.bandit_experiment(steps=2, method="ppo"),
         ("method",)),
    Case("rl.058", "bandit_experiment", "lr 0", lambda: R.bandit_experiment(steps=2, lr=0.0), ("lr",)),
    Case("rl.059", "bandit_experiment", "beta empty", lambda: R.bandit_experiment(steps=2, beta=()), ("beta",)),
    Case("rl.060", "bandit_experiment", "beta NaN", lambda: R.bandit_experiment(steps=2, beta=(NAN,)), ("beta",)),
    Case("rl.061", "bandit_experiment", "bad rng", lambda: R.bandit_experiment(steps=2, seeds=1, rng="x", record_every=1), ("rng",)),
    Case("rl.062", "bandit_experiment", "record_every 0", lambda: R.bandit_experiment(
        steps=2, seeds=1, record_every=0), ("record_every",)),
    Case("rl.063", "bandit_experiment", "entropy_coef < 0", lambda: R.bandit_experiment(steps=2, entropy_coef=-1.0),
         ("entropy_coef",)),
    Case("rl.064", "bandit_experiment", "progress 'yes'", lambda: R.bandit_experiment(
        steps=2, seeds=1, progress="yes", record_every=1), ("progress",)),
    Case("rl.065", "linear_softmax_toy", "batch_prompts > n_prompts", lambda: R.linear_softmax_toy(
        steps=1, n_prompts=4, batch_prompts=8), ("batch_prompts",)),
    Case("rl.066", "linear_softmax_toy", "methods a string", lambda: R.linear_softmax_toy(methods="rs", steps=1),
         ("methods",)),
    Case("rl.067", "linear_softmax_toy", "unknown method", lambda: R.linear_softmax_toy(
        methods={"x": ("ppo", {})}, steps=1), ("methods",)),
    Case("rl.068", "linear_softmax_toy", "ks 0", lambda: R.linear_softmax_toy(steps=1, ks=(0,)), ("ks",)),
    Case("rl.069", "linear_softmax_toy", "ks a string", lambda: R.linear_softmax_toy(steps=1, ks="4"), ("ks",)),
    Case("rl.070", "linear_softmax_toy", "bad rng", lambda: R.linear_softmax_toy(
        steps=1, seeds=1, n_prompts=4, batch_prompts=2, n_actions=8, ks=(1,), rng="x"), ("rng",)),
    Case("rl.071", "linear_softmax_toy", "method params not a dict", lambda: R.linear_softmax_toy(
        methods={"a": ("rs", 5)}, steps=1), ("methods",)),
    Case("rl.072", "linear_softmax_toy", "unknown method parameter", lambda: R.linear_softmax_toy(
        methods={"a": ("grpo", {"beta": 2.0})}, steps=1, seeds=1, n_prompts=4, batch_prompts=2, n_actions=8,
        ks=(1,)), ("methods",)),
    Case("rl.073", "linear_softmax_toy", "group_size 1", lambda: R.linear_softmax_toy(steps=1, group_size=1),
         ("group_size",)),
    Case("rl.074", "ToyResult.mean", "unknown label", lambda: _toy().mean("nope"), ("label",)),
    Case("rl.075", "ArithmeticTask", "ops '/'", lambda: R.ArithmeticTask(ops="/"), ("ops",)),
    Case("rl.076", "ArithmeticTask", "n_operands 4", lambda: R.ArithmeticTask(n_operands=4), ("n_operands",)),
    Case("rl.077", "ArithmeticTask", "template without {expr}", lambda: R.ArithmeticTask(template="x"),
         ("template",)),
    Case("rl.078", "ArithmeticTask", "too many problems", lambda: R.ArithmeticTask(n_train=10 ** 6, max_operand=2),
         ("n_train",)),
    Case("rl.079", "ArithmeticTask", "bad rng", lambda: R.ArithmeticTask(n_train=5, n_test=3, rng="x"), ("rng",)),
    Case("rl.080", "ArithmeticTask", "chat 'no'", lambda: R.ArithmeticTask(chat="no"), ("chat",)),
    Case("rl.081", "ArithmeticTask.prompts", "split 'val'", lambda: task().prompts("val"), ("split",)),
    Case("rl.082", "ArithmeticTask.answers", "split None", lambda: task().answers(None), ("split",)),
    Case("rl.083", "ArithmeticTask.reward", "answer count mismatch", lambda: task().reward(["1", "2"], ["1"]),
         ("answer",)),
    Case("rl.084", "ArithmeticTask.reward", "completions a string", lambda: task().reward("12", ["1", "2"]),
         ("completions",)),
    Case("rl.085", "ArithmeticTask.dataset", "split 'dev'", lambda: task().dataset("dev"), ("split",)),
    Case("rl.086", "grade_answer", "completion not a string", lambda: R.grade_answer(5, 5), ("completion",)),
    Case("rl.087", "grade_answer", "answer NaN", lambda: R.grade_answer("5", NAN), ("answer",)),
    Case("rl.088", "grade_answer", "which option", lambda: R.grade_answer("5", 5, which="middle"), ("which",)),
    Case("rl.089", "grade_answer", "answer None", lambda: R.grade_answer("5", None), ("answer",)),
    Case("rl.090", "RSGRPOTrainer", "advantage option", lambda: R.RSGRPOTrainer(None, advantage="ppo"),
         ("advantage",)),
    Case("rl.091", "RSGRPOTrainer", "beta NaN", lambda: R.RSGRPOTrainer(None, beta=NAN), ("beta",)),
    Case("rl.092", "RSGRPOTrainer", "no reward_fn", lambda: R.RSGRPOTrainer(None), ("reward_fn",)),
    Case("rl.093", "RSGRPOTrainer", "group_size 1", lambda: R.RSGRPOTrainer(None, lambda **k: [], group_size=1),
         ("group_size",)),
    Case("rl.094", "RSGRPOTrainer", "advantage_params a list", lambda: R.RSGRPOTrainer(
        None, lambda **k: [], advantage_params=[1]), ("advantage_params",)),
    # ----------------------------------------------------------------------- MVR: shaping functions
    Case("rl.095", "mvr_shaping", "w_s 0", lambda: R.mvr_shaping([0.1], w_s=0.0), ("w_s",)),
    Case("rl.096", "mvr_shaping", "tau NaN", lambda: R.mvr_shaping([0.1], tau=NAN), ("tau",)),
    Case("rl.097", "mvr_shaping", "NaN delta", lambda: R.mvr_shaping([NAN]), ("delta",)),
    Case("rl.098", "mvr_shaping", "clip -1", lambda: R.mvr_shaping([0.1], clip=-1.0), ("clip",)),
    Case("rl.099", "mvr_shaping", "empty delta", lambda: R.mvr_shaping([]), ("delta",)),
    Case("rl.100", "mvr_potential", "reference an array", lambda: R.mvr_potential([0.1], [0.1, 0.2]), ("reference",)),
    Case("rl.101", "mvr_potential", "inf relevance", lambda: R.mvr_potential([np.inf], 0.0), ("relevance",)),
    Case("rl.102", "pbrs_shaping", "shape mismatch", lambda: R.pbrs_shaping([1.0, 2.0], [1.0]), ("phi_next",)),
    Case("rl.103", "pbrs_shaping", "gamma 1.5", lambda: R.pbrs_shaping([1.0], [1.0], gamma=1.5), ("gamma",)),
    Case("rl.104", "pbrs_shaping", "terminated 0.5", lambda: R.pbrs_shaping([1.0], [1.0], terminated=[0.5]),
         ("terminated",)),
    Case("rl.105", "pbrs_shaping", "terminated of another shape", lambda: R.pbrs_shaping(
        [1.0, 2.0], [1.0, 2.0], terminated=[1]), ("terminated",)),
    Case("rl.106", "soft_preference_labels", "sharpness 0", lambda: R.soft_preference_labels([0.1], [0.2], 0.0),
         ("sharpness",)),
    Case("rl.107", "soft_preference_labels", "s2 shape", lambda: R.soft_preference_labels([0.1], [0.2, 0.3]),
         ("s2",)),
    Case("rl.108", "soft_preference_labels", "NaN s1", lambda: R.soft_preference_labels([NAN], [0.2]), ("s1",)),
    Case("rl.109", "view_averaged_score", "score 3 (not a cosine)", lambda: R.view_averaged_score([[3.0, 0.0]]),
         ("view_scores",)),
    Case("rl.110", "view_averaged_score", "no views", lambda: R.view_averaged_score(np.zeros((2, 0))),
         ("view_scores",)),
    Case("rl.111", "view_averaged_score", "NaN", lambda: R.view_averaged_score([[NAN]]), ("view_scores",)),
    Case("rl.112", "view_averaged_score", "no clips", lambda: R.view_averaged_score(np.zeros((0, 3))),
         ("view_scores",)),
    # ----------------------------------------------------------------------- MVR: relevance, shaper
    Case("rl.113", "StateRelevance", "hidden 0", lambda: R.StateRelevance(hidden=0).fit(X3, S6), ("hidden",)),
    Case("rl.114", "StateRelevance", "tau 0", lambda: R.StateRelevance(tau=0.0).fit(X3, S6), ("tau",)),
    Case("rl.115", "StateRelevance", "device tpu", lambda: R.StateRelevance(hidden=8, device="tpu").fit(X3, S6),
         ("device",)),
    Case("rl.116", "StateRelevance", "device cuda:7 absent", lambda: R.StateRelevance(hidden=8, device="cuda:7").fit(
        X3, S6), ("device",)),
    Case("rl.117", "StateRelevance", "bad rng", lambda: R.StateRelevance(hidden=8, rng="x").fit(X3, S6), ("rng",)),
    Case("rl.118", "StateRelevance.fit", "one clip", lambda: rel_fit(states=X3[:1], scores=S6[:1]), ("states",)),
    Case("rl.119", "StateRelevance.fit", "scores length mismatch", lambda: rel_fit(scores=S6[:3]), ("scores",)),
    Case("rl.120", "StateRelevance.fit", "NaN score", lambda: rel_fit(scores=np.r_[S6[:5], NAN]), ("scores",)),
    Case("rl.121", "StateRelevance.fit", "all scores equal (no ordering to learn)", lambda: rel_fit(
        scores=np.zeros(6)), ("scores",)),
    Case("rl.122", "StateRelevance.fit", "view_embeddings of another clip count", lambda: rel_fit(
        view_embeddings=np.zeros((3, 1, 4))), ("view_embeddings",)),
    Case("rl.123", "StateRelevance.fit", "warm_start 1", lambda: rel_fit(warm_start=1), ("warm_start",)),
    Case("rl.124", "StateRelevance.predict", "state dim mismatch", lambda: relevance().predict(np.zeros((2, 5))),
         ("states",)),
    Case("rl.125", "StateRelevance.predict", "NaN state", lambda: relevance().predict(np.full((2, 3), NAN)),
         ("states",)),
    Case("rl.126", "StateRelevance.clip_relevance", "2-D states", lambda: relevance().clip_relevance(np.zeros((2, 3))),
         ("states",)),
    Case("rl.127", "StateRelevance.fit", "states with 0 state dimensions", lambda: rel_fit(states=np.zeros((6, 4, 0))),
         ("states",)),
    Case("rl.128", "MVRShaper", "shaping option", lambda: shaper(shaping="x"), ("shaping",)),
    Case("rl.129", "MVRShaper", "capacity 1", lambda: shaper(capacity=1), ("capacity",)),
    Case("rl.130", "MVRShaper", "relevance a dict", lambda: shaper(relevance={}), ("relevance",)),
    Case("rl.131", "MVRShaper", "gamma 0", lambda: shaper(gamma=0.0), ("gamma",)),
    Case("rl.132", "MVRShaper", "bad rng", lambda: shaper(rng="x"), ("rng",)),
    Case("rl.133", "MVRShaper.add_clips", "scores mismatch", lambda: shaper().add_clips(X3, S6[:2]), ("scores",)),
    Case("rl.134", "MVRShaper.add_clips", "NaN states", lambda: shaper().add_clips(X3 * NAN, S6), ("states",)),
    Case("rl.135", "MVRShaper.retrain", "fewer than 2 clips", lambda: shaper().retrain(), ("clips",)),
    Case("rl.136", "MVRShaper.shaping", "pbrs without next_states", lambda: shaper(shaping="pbrs").shaping(
        np.zeros((2, 3))), ("next_states",)),
    Case("rl.137", "MVRShaper.potential", "NaN states", lambda: shaper().potential(np.full((2, 3), NAN)),
         ("states",)),
    Case("rl.138", "MVRShaper.add_clips", "clips of another length than the buffer", lambda: (
        lambda sh: (sh.add_clips(X3, S6), sh.add_clips(X3[:, :2], S6)))(shaper()), ("states",)),
    # ----------------------------------------------------------------------- MVR: envs, scorers, agent
    Case("rl.139", "make_multiview_env", "unknown camera", lambda: env(cameras=["side", "nadir"]), ("cameras",)),
    Case("rl.140", "make_multiview_env", "clip_len 1", lambda: env(clip_len=1), ("clip_len",)),
    Case("rl.141", "make_multiview_env", "size 16", lambda: env(size=16), ("size",)),
    Case("rl.142", "make_multiview_env", "unknown env id", lambda: R.make_multiview_env("NoSuchEnv-v0"), ("env",)),
    Case("rl.143", "make_multiview_env", "env an int", lambda: R.make_multiview_env(3), ("env",)),
    Case("rl.144", "make_multiview_env", "distance NaN", lambda: env(distance=NAN), ("distance",)),
    Case("rl.145", "make_multiview_env", "fast_render 'no'", lambda: env(fast_render="no"), ("fast_render",)),
    Case("rl.146", "MultiViewEnv.rollout_clips", "policy not callable", lambda: renv().rollout_clips(3, 10),
         ("policy",)),
    Case("rl.147", "MultiViewEnv.rollout_clips", "n_steps 0", lambda: renv().rollout_clips(lambda o: np.zeros(1), 0),
         ("n_steps",)),
    Case("rl.148", "MultiViewEnv.rollout_clips", "bad rng", lambda: renv().rollout_clips(
        lambda o: np.zeros(1, np.float32), 5, rng="x"), ("rng",)),
    Case("rl.149", "MultiViewEnv.rollout_clips", "negative seed", lambda: renv().rollout_clips(
        lambda o: np.zeros(1, np.float32), 5, rng=-1), ("rng",)),
    Case("rl.150", "MultiViewEnv.step", "NaN action", lambda: (renv().reset(seed=0), renv().step([NAN])),
         ("action",)),
    Case("rl.151", "MultiViewEnv.step", "action of the wrong size", lambda: (renv().reset(seed=0),
                                                                          renv().step([0.1, 0.2])), ("action",)),
    Case("rl.152", "VideoTextScorer.score", "clip 4-D", lambda: scorer().score(np.zeros((4, 16, 16, 3))), ("clip",)),
    Case("rl.153", "VideoTextScorer.score", "float frames outside [0, 1]", lambda: scorer().score(
        np.full((1, 4, 16, 16, 3), 5.0)), ("clip",)),
    Case("rl.154", "VideoTextScorer.score", "one frame", lambda: scorer().score(np.zeros((1, 1, 16, 16, 3))),
         ("clip",)),
    Case("rl.155", "VideoTextScorer.score_many", "clips not a list", lambda: scorer().score_many(5), ("clips",)),
    Case("rl.156", "DemoPrototypeScorer", "aggregate option", lambda: R.DemoPrototypeScorer(aggregate="min"),
         ("aggregate",)),
    Case("rl.157", "DemoPrototypeScorer", "size 0", lambda: R.DemoPrototypeScorer(size=0), ("size",)),
    Case("rl.158", "DemoPrototypeScorer", "diff_gain NaN", lambda: R.DemoPrototypeScorer(diff_gain=NAN),
         ("diff_gain",)),
    Case("rl.159", "DemoPrototypeScorer", "NaN prototypes", lambda: R.DemoPrototypeScorer(
        prototypes=np.full((2, 512), NAN)), ("prototypes",)),
    Case("rl.160", "DemoPrototypeScorer.from_reference", "no reference clips",
         lambda: R.DemoPrototypeScorer.from_reference(renv(), []), ("reference_clips",)),
    Case("rl.161", "DemoPrototypeScorer.encode_text", "no prototypes", lambda: R.DemoPrototypeScorer().encode_text("x"),
         ("prototypes",)),
    Case("rl.162", "DemoPrototypeScorer", "zero prototype row", lambda: R.DemoPrototypeScorer(
        prototypes=np.zeros((2, 512))), ("prototypes",)),
    Case("rl.163", "MotionDescriptorScorer", "band reversed", lambda: R.MotionDescriptorScorer(band=(3, 1)),
         ("band",)),
    Case("rl.164", "MotionDescriptorScorer", "scale 0", lambda: R.MotionDescriptorScorer(scale=[0.0, 1.0]),
         ("scale",)),
    Case("rl.165", "MotionDescriptorScorer", "descriptor not callable", lambda: R.MotionDescriptorScorer(
        descriptor=3), ("descriptor",)),
    Case("rl.166", "MotionDescriptorScorer.encode_text", "no target", lambda: R.MotionDescriptorScorer().encode_text(
        "x"), ("target",)),
    Case("rl.167", "MotionDescriptorScorer", "target and scale of different lengths", lambda: R.MotionDescriptorScorer(
        target=[1.0, 2.0, 3.0], scale=[1.0, 1.0]), ("scale",)),
    Case("rl.168", "MotionDescriptorScorer.describe", "frames 3-D", lambda: R.MotionDescriptorScorer().describe(
        np.zeros((4, 16, 16))), ("frames",)),
    Case("rl.169", "OscillatorEnv", "period 0", lambda: osc(period=0.0), ("period",)),
    Case("rl.170", "OscillatorEnv", "horizon 0", lambda: osc(horizon=0), ("horizon",)),
    Case("rl.171", "OscillatorEnv", "dt NaN", lambda: osc(dt=NAN), ("dt",)),
    Case("rl.172", "OscillatorEnv.step", "NaN action", lambda: (lambda e: (e.reset(seed=0), e.step([NAN])))(osc()),
         ("action",)),
    Case("rl.173", "OscillatorEnv.step", "step before reset", lambda: osc().step([0.0]), ("action", "state")),
    Case("rl.174", "OscillatorEnv.render_view", "unknown camera", lambda: osc().render_view("nadir", 8, 8),
         ("camera",)),
    Case("rl.175", "OscillatorEnv.render_view", "height 0", lambda: (lambda e: (e.reset(seed=0), e.render_view(
        "side", 0, 8)))(osc()), ("height",)),
    Case("rl.176", "OscillatorEnv.hold_policy", "pose NaN", lambda: osc().hold_policy(NAN), ("pose",)),
    Case("rl.177", "OscillatorEnv.oscillate_policy", "amplitude < 0", lambda: osc().oscillate_policy(-1.0),
         ("amplitude",)),
    Case("rl.178", "OscillatorEnv.amplitude", "state of 3 values", lambda: osc().amplitude([1.0, 2.0, 3.0]),
         ("state",)),
    Case("rl.179", "oscillation_amplitude", "one sample", lambda: R.oscillation_amplitude([1.0]), ("xs",)),
    Case("rl.180", "oscillation_amplitude", "NaN", lambda: R.oscillation_amplitude([1.0, NAN]), ("xs",)),
    Case("rl.181", "gridworld_optimal_policy", "max_iter 0", lambda: R.gridworld_optimal_policy(RW, max_iter=0),
         ("max_iter",)),
    Case("rl.182", "gridworld_optimal_policy", "did not converge", lambda: R.gridworld_optimal_policy(
        np.r_[np.zeros(24), 1.0], gamma=0.999, max_iter=3), ("max_iter",)),
    Case("rl.183", "gridworld_optimal_policy", "tol 0", lambda: R.gridworld_optimal_policy(RW, tol=0.0), ("tol",)),
    Case("rl.184", "gridworld_optimal_policy", "gamma 1", lambda: R.gridworld_optimal_policy(RW, gamma=1.0),
         ("gamma",)),
    Case("rl.185", "gridworld_optimal_policy", "reward of the wrong size", lambda: R.gridworld_optimal_policy(
        np.zeros(24)), ("reward",)),
    Case("rl.186", "gridworld_optimal_policy", "terminal 25", lambda: R.gridworld_optimal_policy(RW, terminals=[25]),
         ("terminals",)),
    Case("rl.187", "gridworld_optimal_policy", "terminals an int", lambda: R.gridworld_optimal_policy(
        RW, terminals=3), ("terminals",)),
    Case("rl.188", "gridworld_optimal_policy", "shaping NaN", lambda: R.gridworld_optimal_policy(
        RW, shaping=np.full((25, 25), NAN)), ("shaping",)),
    Case("rl.189", "gridworld_optimal_policy", "max_iter 2.5", lambda: R.gridworld_optimal_policy(RW, max_iter=2.5),
         ("max_iter",)),
    Case("rl.190", "MVR", "env not a MultiViewEnv", lambda: mvr(env=renv().unwrapped), ("env",)),
    Case("rl.191", "MVR", "scorer a string", lambda: mvr(scorer="viclip"), ("scorer",)),
    Case("rl.192", "MVR", "backbone ppo", lambda: mvr(backbone="ppo"), ("backbone",)),
    Case("rl.193", "MVR", "shaping option", lambda: mvr(shaping="x"), ("shaping",)),
    Case("rl.194", "MVR", "w_s 0", lambda: mvr(w_s=0.0), ("w_s",)),
    Case("rl.195", "MVR", "rng negative", lambda: mvr(rng=-1), ("rng",)),
    Case("rl.196", "MVR", "rng a string", lambda: mvr(rng="x"), ("rng",)),
    Case("rl.197", "MVR", "device tpu", lambda: mvr(device="tpu"), ("device",)),
    Case("rl.198", "MVR", "device cuda:7 absent", lambda: mvr(device="cuda:7"), ("device",)),
    Case("rl.199", "MVR", "backbone_kwargs a list", lambda: mvr(backbone_kwargs=[1]), ("backbone_kwargs",)),
    Case("rl.200", "MVR", "prompt an int", lambda: mvr(prompt=3), ("prompt",)),
    Case("rl.201", "MVR.learn", "total_timesteps 0", lambda: mvr().learn(0), ("total_timesteps",)),
    Case("rl.202", "MVR.learn", "progress 'yes'", lambda: mvr().learn(40, progress="yes"), ("progress",)),
    Case("rl.203", "MVR.learn", "backbone_kwargs gamma 2", lambda: mvr(
        backbone_kwargs=dict(gamma=2.0, learning_starts=30)).learn(40), ("backbone_kwargs",)),
    Case("rl.204", "MVR.evaluate", "n_episodes 0", lambda: agent().evaluate(0), ("n_episodes",)),
    Case("rl.205", "MVR.evaluate", "bad rng", lambda: agent().evaluate(1, rng="x"), ("rng",)),
    Case("rl.206", "MVR.evaluate", "deterministic 'yes'", lambda: agent().evaluate(1, deterministic="yes"),
         ("deterministic",)),
    Case("rl.207", "MVR.predict", "obs of the wrong size", lambda: agent().predict(np.zeros(5)), ("obs",)),
    Case("rl.208", "MVR.predict", "NaN obs", lambda: agent().predict(np.full(2, NAN)), ("obs",)),
    Case("rl.209", "MVR.evaluate", "negative rng", lambda: agent().evaluate(1, rng=-3), ("rng",)),
    Case("rl.210", "MVR.relabel", "before learn", lambda: mvr().relabel(), ("MVR.relabel",)),
    Case("rl.211", "DemoPrototypeScorer.score", "clip with 2 views for a 1-view reference", lambda: _demo().score(
        np.zeros((2, 4, 16, 16, 3), np.uint8)), ("clip",)),
    Case("rl.212", "DemoPrototypeScorer.score_embeddings", "NaN clip", lambda: _demo().score_embeddings(
        np.full((1, 4, 16, 16, 3), NAN)), ("clip",)),
    Case("rl.213", "MotionDescriptorScorer.from_reference", "2-view clips for a 1-view env", lambda:
         R.MotionDescriptorScorer.from_reference(renv(), [np.zeros((2, 4, 16, 16, 3), np.uint8)] * 2),
         ("reference_clips",)),
    Case("rl.214", "OscillatorEnv.reset", "negative seed", lambda: osc().reset(seed=-1), ("seed",)),
    Case("rl.215", "OscillatorEnv.reset", "seed a string", lambda: osc().reset(seed="x"), ("seed",)),
    Case("rl.216", "StateRelevance.fit", "NaN view embeddings", lambda: rel_fit(
        view_embeddings=np.full((6, 1, 4), NAN)), ("view_embeddings",)),
    Case("rl.217", "pbrs_shaping", "NaN phi", lambda: R.pbrs_shaping([NAN], [1.0]), ("phi",)),
    Case("rl.218", "ArithmeticTask", "max_operand 0", lambda: R.ArithmeticTask(max_operand=0), ("max_operand",)),
    Case("rl.219", "pass_at_k", "n_samples 4.5", lambda: R.pass_at_k(1, 4.5), ("n_samples",)),
    Case("rl.220", "MultiViewEnv.rollout_clips", "rng and seed both given", lambda: renv().rollout_clips(
        lambda o: np.zeros(1, np.float32), 5, rng=0, seed=0), ("seed",)),
]


@functools.lru_cache(None)
def _demo():
    return R.DemoPrototypeScorer.from_reference(renv(), ref_clips())


def _verl(mask_shape=None, index=None, singleton="zero", nan=False, mask_value=1.0):
    import torch

    r = torch.zeros(2, 3)
    r[0, -1] = 1.0
    if nan:
        r[1, 0] = float("nan")
    m = torch.full(mask_shape or (2, 3), mask_value)
    return R.verl_rs_advantage(r, m, np.array([0, 0]) if index is None else index, singleton=singleton)


@functools.lru_cache(None)
def _toy():
    return R.linear_softmax_toy(steps=2, seeds=1, n_prompts=4, batch_prompts=2, n_actions=8, ks=(1,),
                                dim=2, group_size=2, methods={"rs": ("rs", {"beta": 2.0})})
