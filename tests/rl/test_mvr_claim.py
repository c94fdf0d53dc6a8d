"""The MVR claim check's experiment: its vectorised dynamics are OscillatorEnv's, and the broken variant
(the image scorer in the MVR arm) loses the gain that the video scorer gives."""
from __future__ import annotations

import numpy as np

import validation.mvr as V


def test_vectorised_rollout_matches_oscillator_env():
    osc = V._rl_osc()
    theta = np.array([0.3, 0.9, 0.1, -0.2])
    S, U, PHI, R = V._rl_rollout(osc, theta, 0.0, 1, 60, np.random.default_rng(0))
    env = V._rl_osc()
    env.reset(seed=0)
    env.state = S[0, 0].astype(float)
    for t in range(59):
        obs, r, _, _, _ = env.step([np.clip(U[0, t], -1, 1)])
        np.testing.assert_allclose(env.state, S[0, t + 1], atol=1e-12)
        amp = float(env.amplitude(env.state))
        expect = float(abs(amp - V.RL_A) <= V.RL_BAND) - env.control_cost * float(np.clip(U[0, t], -1, 1)) ** 2
        assert abs(R[0, t] - expect) < 1e-12


def test_image_scorer_in_the_mvr_arm_is_caught():
    # seed 0 of the claim's learner, its default settings: the video-scored MVR arm learns to oscillate in the
    # band; the broken variant (the motion-blind image scorer in its place) does not get the gain
    video, _ = V._rl_run("video", 0)
    broken, _ = V._rl_run("video", 0, variant="image_for_video")
    task, _ = V._rl_run("task", 0)
    # seed 0 (measured): success 0.217 (video), 0.070 (image scorer in the MVR arm), 0.104 (task only)
    assert video[-5:].mean() - broken[-5:].mean() >= V.RL_MIN_EFFECT
    assert broken[-5:].mean() - task[-5:].mean() < V.RL_MIN_EFFECT
