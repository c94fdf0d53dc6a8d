"""MVR(rng=...) seeds everything: the same rng gives the same numbers twice in one process (tiny sizes)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from iclr26sci.rl.mvr import MVR, MotionDescriptorScorer, OscillatorEnv, StateRelevance, make_multiview_env


def _run(rng, relevance_rng=None):
    env = make_multiview_env(OscillatorEnv(horizon=20), cameras=["side"], clip_len=2, every=5, size=(8, 8))
    ref = env.rollout_clips(env.unwrapped.oscillate_policy(0.5), 40, rng=0)
    user_rel = StateRelevance(hidden=8, min_updates=0, max_epochs=2, rng=relevance_rng)   # the user's, unseeded
    agent = MVR(env, MotionDescriptorScorer.from_reference(env, ref), backbone="sac", shaping="mvr",
                relevance_retrain_every=40, relevance=user_rel,
                backbone_kwargs=dict(learning_starts=30, policy_kwargs=dict(net_arch=[8])), rng=rng)
    agent.learn(total_timesteps=80)
    ev = agent.evaluate(n_episodes=2)
    rb = agent.model_.replay_buffer
    return (ev["returns"], agent.history_["mean_abs_F"], rb.rewards[:rb.pos].copy(),
            agent.shaper_.relevance.predict(np.zeros((3, 2))), user_rel)


def test_same_rng_same_numbers_with_a_user_relevance_network():
    a, b = _run(0), _run(0)
    assert a[0] == b[0] and a[1] == b[1]
    np.testing.assert_array_equal(a[2], b[2])          # every stored (shaped, relabelled) reward
    np.testing.assert_array_equal(a[3], b[3])          # the relevance network's weights act the same
    assert a[4].rng is None and not hasattr(a[4], "net_")   # the user's object is left untouched


def test_generator_rng_is_accepted_and_reproducible():
    a, b = _run(np.random.SeedSequence(3)), _run(np.random.SeedSequence(3))
    assert a[0] == b[0]
    np.testing.assert_array_equal(a[2], b[2])


def test_evaluate_rng_and_deprecated_seed_agree():
    env = make_multiview_env(OscillatorEnv(horizon=10), cameras=["side"], clip_len=2, every=5, size=(8, 8))
    ref = env.rollout_clips(env.unwrapped.oscillate_policy(0.5), 20, rng=1)
    agent = MVR(env, MotionDescriptorScorer.from_reference(env, ref), backbone="sac", relevance_retrain_every=20,
                relevance=StateRelevance(hidden=8, min_updates=0, max_epochs=1),
                backbone_kwargs=dict(learning_starts=10, policy_kwargs=dict(net_arch=[8])), rng=0).learn(20)
    with pytest.warns(DeprecationWarning):
        old = agent.evaluate(2, seed=5)
    assert agent.evaluate(2, rng=5)["returns"] == old["returns"]
    with pytest.warns(DeprecationWarning):
        clips = env.rollout_clips(env.unwrapped.oscillate_policy(0.5), 20, seed=1)
    np.testing.assert_array_equal(clips[0].states, ref[0].states)
