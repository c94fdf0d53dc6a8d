"""Bad input to every public name of iclr26sci.rl.mvr: a clear InputError naming the argument, before any work."""
from __future__ import annotations

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
pytest.importorskip("stable_baselines3")

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.rl.mvr import (MVR, DemoPrototypeScorer, MotionDescriptorScorer, MVRShaper, OscillatorEnv,
                              StateRelevance, VideoTextScorer, gridworld_optimal_policy, make_multiview_env,
                              mvr_potential, mvr_shaping, oscillation_amplitude, pbrs_shaping,
                              soft_preference_labels, view_averaged_score)

BAD_INPUT_EXEMPT = {
    "rl.CAMERAS": "a constant dict of named camera presets; it takes no input",
    "rl.MultiViewClip": "a record built by MultiViewEnv when it cuts clips; users do not construct it",
}


def _env(**kw):
    params = dict(cameras=["side"], clip_len=4, every=5, size=(16, 16))
    params.update(kw)
    return make_multiview_env(OscillatorEnv(horizon=60), **params)


class _NoRender(gym.Env):
    observation_space = gym.spaces.Box(-1, 1, (2,))
    action_space = gym.spaces.Box(-1, 1, (1,))

    def reset(self, *, seed=None, options=None):
        return np.zeros(2, np.float32), {}

    def step(self, a):
        return np.zeros(2, np.float32), 0.0, False, False, {}


class _NaNReward(OscillatorEnv):
    def step(self, a):
        o, r, t, tr, i = super().step(a)
        return o, float("nan"), t, tr, i


class _WrongShape(VideoTextScorer):
    def score(self, clip, prompt=None):
        return np.zeros(3), np.zeros((3, 4))  # 3 scores for a 1-view env


class _ScoreRange(VideoTextScorer):
    def score(self, clip, prompt=None):
        return np.array([3.0]), np.zeros((1, 4))


def _scorer(env):
    ref = env.rollout_clips(env.unwrapped.oscillate_policy(0.5), 60, rng=0)
    return MotionDescriptorScorer.from_reference(env, ref)


# ---------------------------------------------------------------- the list, each before training starts
@pytest.mark.bad_input("rl.make_multiview_env", "rl.MultiViewEnv")
@pytest.mark.parametrize("kw,arg", [
    (dict(cameras=["side", "nadir"]), "cameras"),
    (dict(cameras="side"), "cameras"),
    (dict(cameras=[]), "cameras"),
    (dict(cameras=["side", "side"]), "cameras"),
    (dict(clip_len=1), "clip_len"),
    (dict(clip_len=0), "clip_len"),
    (dict(every=0), "every"),
    (dict(size=(0, 16)), "size"),
    (dict(size=16), "size"),
    (dict(record_every=-1), "record_every"),
    (dict(clip_stride=7), "clip_stride"),
    (dict(distance=-1.0), "distance"),
])
def test_make_multiview_env_bad_arguments(kw, arg):
    with pytest.raises(InputError, match=arg):
        _env(**kw)


@pytest.mark.bad_input("rl.make_multiview_env")
def test_env_without_rendering_and_bad_env():
    with pytest.raises(InputError, match="env"):
        make_multiview_env(_NoRender(), cameras=["side"])
    with pytest.raises(InputError, match="env"):
        make_multiview_env(42)
    with pytest.raises(InputError, match="env"):
        make_multiview_env("NoSuchEnv-v0")


@pytest.mark.bad_input("rl.make_multiview_env")
def test_unknown_mujoco_camera():
    pytest.importorskip("mujoco")
    with pytest.raises(InputError, match="cameras"):
        make_multiview_env("Walker2d-v5", cameras=["side", "underneath"])


@pytest.mark.bad_input("rl.MVR")
@pytest.mark.parametrize("kw,arg", [
    (dict(relevance_retrain_every=0), "relevance_retrain_every"),
    (dict(relevance_retrain_every=-5), "relevance_retrain_every"),
    (dict(relevance_retrain_every=2.5), "relevance_retrain_every"),
    (dict(collect_every=0), "collect_every"),
    (dict(shaping="potential"), "shaping"),
    (dict(backbone="ppo"), "backbone"),
    (dict(backbone=int), "backbone"),
    (dict(w_s=0.0), "w_s"),
    (dict(tau=-1.0), "tau"),
    (dict(n_top=0), "n_top"),
    (dict(faithful_quirks=1), "faithful_quirks"),
    (dict(backbone_kwargs=[1]), "backbone_kwargs"),
    (dict(prompt=3), "prompt"),
    (dict(rng=-1), "rng"),
    (dict(relevance="big"), "relevance"),
])
def test_mvr_bad_parameters(kw, arg):
    env = _env()
    with pytest.raises(InputError, match=arg):
        MVR(env, _scorer(env), **kw)


@pytest.mark.bad_input("rl.MVR")
def test_mvr_bad_env_and_scorer():
    env = _env()
    with pytest.raises(InputError, match="env"):
        MVR(OscillatorEnv(), _scorer(env))
    with pytest.raises(InputError, match="scorer"):
        MVR(env, object())


@pytest.mark.bad_input("rl.MVR")
@pytest.mark.parametrize("scorer", [_WrongShape(), _ScoreRange()])
def test_scorer_with_wrong_output_fails_before_training(scorer):
    agent = MVR(_env(), scorer, backbone="sac", relevance_retrain_every=20)
    with pytest.raises(InputError, match="scorer"):
        agent.learn(total_timesteps=40)
    assert not hasattr(agent, "model_")


@pytest.mark.bad_input("rl.MVR")
def test_non_finite_reward_fails_before_training():
    env = make_multiview_env(_NaNReward(horizon=60), cameras=["side"], clip_len=4, every=5, size=(16, 16))
    agent = MVR(env, _scorer(_env()), backbone="sac", relevance_retrain_every=20)
    with pytest.raises(InputError, match="reward"):
        agent.learn(total_timesteps=40)
    assert not hasattr(agent, "model_")


@pytest.mark.bad_input("rl.MVR")
def test_mvr_unfitted_and_learn_arguments():
    env = _env()
    agent = MVR(env, _scorer(env), backbone="sac")
    for call in (lambda: agent.evaluate(), lambda: agent.predict(np.zeros(2)), lambda: agent.relabel()):
        with pytest.raises(NotFittedError):
            call()
    with pytest.raises(InputError, match="total_timesteps"):
        agent.learn(total_timesteps=0)


# ---------------------------------------------------------------- pure functions
@pytest.mark.bad_input("rl.mvr_shaping")
@pytest.mark.parametrize("kw,arg", [
    (dict(delta=[np.nan]), "delta"), (dict(delta=["a"]), "delta"), (dict(delta=[0.0], w_s=0.0), "w_s"),
    (dict(delta=[0.0], tau=0.0), "tau"), (dict(delta=[0.0], clip=-1.0), "clip"), (dict(delta=[0.0], w_s=np.inf), "w_s"),
])
def test_mvr_shaping_bad(kw, arg):
    with pytest.raises(InputError, match=arg):
        mvr_shaping(**kw)


@pytest.mark.bad_input("rl.mvr_potential")
def test_mvr_potential_bad():
    with pytest.raises(InputError, match="reference"):
        mvr_potential([0.0], np.nan)
    with pytest.raises(InputError, match="relevance"):
        mvr_potential([np.inf], 0.0)


@pytest.mark.bad_input("rl.pbrs_shaping")
@pytest.mark.parametrize("args,kw,arg", [
    (([0.0, 1.0], [0.0]), {}, "phi_next"), (([0.0], [0.0]), dict(gamma=0.0), "gamma"),
    (([0.0], [0.0]), dict(gamma=1.5), "gamma"), (([0.0], [0.0]), dict(terminated=[2]), "terminated"),
    (([np.nan], [0.0]), {}, "phi"),
])
def test_pbrs_shaping_bad(args, kw, arg):
    with pytest.raises(InputError, match=arg):
        pbrs_shaping(*args, **kw)


@pytest.mark.bad_input("rl.soft_preference_labels")
def test_soft_labels_bad():
    with pytest.raises(InputError, match="s2"):
        soft_preference_labels([0.1, 0.2], [0.1])
    with pytest.raises(InputError, match="sharpness"):
        soft_preference_labels([0.1], [0.2], sharpness=0)


@pytest.mark.bad_input("rl.view_averaged_score")
@pytest.mark.parametrize("x", [[], [[0.1], [np.nan]], [1.5, 0.2], np.zeros((2, 2, 2))])
def test_view_averaged_score_bad(x):
    with pytest.raises(InputError, match="view_scores"):
        view_averaged_score(x)


@pytest.mark.bad_input("rl.oscillation_amplitude")
def test_oscillation_amplitude_bad():
    with pytest.raises(InputError, match="xs"):
        oscillation_amplitude([1.0])
    with pytest.raises(InputError, match="xs"):
        oscillation_amplitude(np.zeros((3, 3)))


@pytest.mark.bad_input("rl.gridworld_optimal_policy")
@pytest.mark.parametrize("kw,arg", [
    (dict(reward=np.zeros(24)), "reward"), (dict(reward=np.zeros(25), gamma=1.0), "gamma"),
    (dict(reward=np.zeros(25), terminals=[25]), "terminals"), (dict(reward=np.zeros(25), shaping=np.zeros(25)), "shaping"),
    (dict(reward=np.zeros(4), size=1), "size"),
])
def test_gridworld_bad(kw, arg):
    with pytest.raises(InputError, match=arg):
        gridworld_optimal_policy(**kw)


@pytest.mark.bad_input("rl.OscillatorEnv")
@pytest.mark.parametrize("kw,arg", [(dict(period=0), "period"), (dict(dt=-1), "dt"), (dict(horizon=0), "horizon"),
                                    (dict(gain=0), "gain"), (dict(target_amplitude=-1), "target_amplitude")])
def test_oscillator_bad(kw, arg):
    with pytest.raises(InputError, match=arg):
        OscillatorEnv(**kw)


@pytest.mark.bad_input("rl.OscillatorEnv")
def test_oscillator_bad_camera_and_policies():
    env = OscillatorEnv()
    with pytest.raises(InputError, match="camera"):
        env.render_view("front", 8, 8)
    with pytest.raises(InputError, match="amplitude"):
        env.oscillate_policy(-1)
    with pytest.raises(InputError, match="pose"):
        env.hold_policy(np.nan)


# ---------------------------------------------------------------- estimators and scorers
@pytest.mark.bad_input("rl.StateRelevance")
@pytest.mark.parametrize("kw,arg", [(dict(hidden=0), "hidden"), (dict(tau=0), "tau"), (dict(alpha=-1), "alpha"),
                                    (dict(batch_size=0), "batch_size"), (dict(max_epochs=0), "max_epochs"),
                                    (dict(states_per_clip=0), "states_per_clip"), (dict(lr=0), "lr")])
def test_state_relevance_bad_params_at_fit(kw, arg):
    X = np.zeros((4, 3, 2))
    with pytest.raises(InputError, match=arg):
        StateRelevance(**kw).fit(X, np.arange(4.0))


@pytest.mark.bad_input("rl.StateRelevance")
def test_state_relevance_bad_data_and_unfitted():
    r = StateRelevance(hidden=4, min_updates=0, max_epochs=1)
    with pytest.raises(NotFittedError):
        r.predict(np.zeros((2, 2)))
    with pytest.raises(InputError, match="scores"):
        r.fit(np.zeros((4, 3, 2)), np.zeros(3))
    with pytest.raises(InputError, match="states"):
        r.fit(np.zeros((4, 2)), np.zeros(4))
    with pytest.raises(InputError, match="states"):
        r.fit(np.full((4, 3, 2), np.nan), np.zeros(4))
    with pytest.raises(InputError, match="view_embeddings"):
        r.fit(np.zeros((4, 3, 2)), np.zeros(4), np.zeros((3, 2, 5)))
    r.fit(np.random.default_rng(0).normal(size=(4, 3, 2)), np.arange(4.0))
    with pytest.raises(InputError, match="states"):
        r.predict(np.zeros((2, 5)))


@pytest.mark.bad_input("rl.MVRShaper")
@pytest.mark.parametrize("kw,arg", [(dict(shaping="linear"), "shaping"), (dict(n_top=0), "n_top"),
                                    (dict(gamma=0), "gamma"), (dict(faithful_quirks="yes"), "faithful_quirks"),
                                    (dict(relevance=3), "relevance"), (dict(capacity=1), "capacity")])
def test_shaper_bad_params(kw, arg):
    with pytest.raises(InputError, match=arg):
        MVRShaper(**kw)


@pytest.mark.bad_input("rl.MVRShaper")
def test_shaper_bad_use():
    sh = MVRShaper(shaping="pbrs")
    with pytest.raises(InputError, match="clips"):
        sh.retrain()
    with pytest.raises(InputError, match="scores"):
        sh.add_clips(np.zeros((3, 4, 2)), np.zeros(2))
    sh.add_clips(np.zeros((3, 4, 2)), np.zeros(3))
    with pytest.raises(InputError, match="states"):
        sh.add_clips(np.zeros((3, 5, 2)), np.zeros(3))
    with pytest.raises(InputError, match="next_states"):
        sh.shaping(np.zeros((2, 2)))


@pytest.mark.bad_input("rl.VideoTextScorer", "rl.DemoPrototypeScorer")
def test_scorers_bad_clips():
    sc = DemoPrototypeScorer.from_reference(None, np.zeros((1, 3, 8, 8, 3), np.uint8), size=4, n_features=8)
    with pytest.raises(InputError, match="clip"):
        sc.score(np.zeros((1, 1, 8, 8, 3), np.uint8))  # a single frame
    with pytest.raises(InputError, match="clip"):
        sc.score(np.zeros((3, 8, 8, 3), np.uint8))
    with pytest.raises(InputError, match="clip"):
        sc.score(np.full((1, 3, 8, 8, 3), 2.0))
    with pytest.raises(InputError, match="prototypes"):
        DemoPrototypeScorer().score(np.zeros((1, 3, 8, 8, 3), np.uint8))
    with pytest.raises(InputError, match="reference_clips"):
        DemoPrototypeScorer.from_reference(None, np.zeros((8, 8, 3)))
    with pytest.raises(InputError, match="reference_clips"):
        DemoPrototypeScorer.from_reference(_env(cameras=["side", "top"]), np.zeros((1, 3, 16, 16, 3), np.uint8))
    for kw, arg in ((dict(size=0), "size"), (dict(diff_gain=-1.0), "diff_gain"), (dict(temporal=1), "temporal"),
                    (dict(prototypes=np.zeros((2, 3)), n_features=4), "prototypes")):
        with pytest.raises(InputError, match=arg):
            DemoPrototypeScorer(**kw)


@pytest.mark.bad_input("rl.MotionDescriptorScorer")
def test_motion_scorer_bad():
    for kw, arg in ((dict(band=(3, 1)), "band"), (dict(band=2), "band"), (dict(descriptor=3), "descriptor"),
                    (dict(scale=[0.0, 1.0]), "scale")):
        with pytest.raises(InputError, match=arg):
            MotionDescriptorScorer(**kw)
    with pytest.raises(InputError, match="target"):
        MotionDescriptorScorer().score(np.zeros((1, 3, 8, 8, 3), np.uint8))
    with pytest.raises(InputError, match="reference_clips"):
        MotionDescriptorScorer.from_reference(None, np.zeros((2, 2)))


@pytest.mark.bad_input("rl.MultiViewEnv")
def test_rollout_clips_bad():
    env = _env()
    with pytest.raises(InputError, match="policy"):
        env.rollout_clips(3, 10)
    with pytest.raises(InputError, match="n_steps"):
        env.rollout_clips(lambda o: np.zeros(1), 0)
