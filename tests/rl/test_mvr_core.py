"""MVR core: the shaping's closed-form properties (hypothesis), PBRS invariance, the relevance network, the
reference set (with and without the code's quirks), clip recording, scorers, and relabelling in the agent."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("gymnasium")
pytest.importorskip("stable_baselines3")

from iclr26sci.rl.mvr import (MVR, DemoPrototypeScorer, MotionDescriptorScorer, MVRShaper, OscillatorEnv,
                              StateRelevance, gridworld_optimal_policy, make_multiview_env, mvr_potential,
                              mvr_shaping, pbrs_shaping, soft_preference_labels, view_averaged_score)

finite = st.floats(-50, 50, allow_nan=False)


@given(finite, finite, st.floats(0.01, 1.0), st.floats(0.01, 1.0))
def test_shaping_monotone_nonpositive_and_fades(a, b, w, tau):
    lo, hi = min(a, b), max(a, b)
    Flo, Fhi = mvr_shaping([lo, hi], w, tau)
    assert Flo <= Fhi <= 0.0
    assert Flo >= -5.0
    if hi > 0:
        assert abs(Fhi) <= w * np.exp(-hi / tau) * (1 + 1e-12) + 1e-300


@given(st.floats(-3, 3, allow_nan=False))
def test_shaping_derivative(d):
    h = 1e-6
    num = (mvr_shaping([d + h], 0.1, 0.1, 50)[0] - mvr_shaping([d - h], 0.1, 0.1, 50)[0]) / (2 * h)
    assert num == pytest.approx(1.0 * (1 - 1 / (1 + np.exp(-d / 0.1))), abs=1e-5)


def test_shaping_is_not_potential_based_but_pbrs_is():
    """The code's additive term changes a gridworld's optimal policy; PBRS with the same relevance does not."""
    g = np.random.default_rng(0)
    r = np.zeros(25)
    r[24], r[12] = 1.0, -1.0
    best0, _ = gridworld_optimal_policy(r, 0.99, terminals=[24, 12])
    changed_mvr = 0
    for _ in range(20):
        f = g.normal(0, 1, 25)
        phi = mvr_potential(f, 0.0)
        term = np.zeros(25)
        term[[24, 12]] = 1
        Fp = pbrs_shaping(np.repeat(phi[:, None], 25, 1), np.repeat(phi[None], 25, 0), 0.99,
                          np.repeat(term[None], 25, 0))
        best_p, _ = gridworld_optimal_policy(r, 0.99, terminals=[24, 12], shaping=Fp)
        assert (best_p == best0).all()
        Fm = np.repeat(mvr_shaping(f)[:, None], 25, 1)
        best_m, _ = gridworld_optimal_policy(r, 0.99, terminals=[24, 12], shaping=Fm)
        changed_mvr += int(np.any(best_m & ~best0))
    assert changed_mvr > 0


def test_soft_labels_and_view_average():
    assert soft_preference_labels([0.3], [0.29])[0] == pytest.approx(1 / (1 + np.exp(-1.0)))
    assert view_averaged_score([[0.1, 0.3], [0.2, 0.2]]).tolist() == pytest.approx([0.2, 0.2])


def test_relevance_learns_ordering():
    from scipy.stats import kendalltau

    g = np.random.default_rng(1)
    X = g.normal(size=(120, 8, 3)) + g.normal(size=(120, 1, 3))
    q = X[..., 0].mean(1)
    S = 0.3 * np.tanh(q / q.std())
    rel = StateRelevance(hidden=32, batch_size=64, updates_per_epoch=10, min_updates=0, max_epochs=15, rng=0)
    rel.fit(X[:90], S[:90])
    assert kendalltau(rel.clip_relevance(X[90:]), q[90:]).statistic > 0.7
    assert rel.history_["val_accuracy"][-1] > 0.7
    rel2 = StateRelevance(hidden=32, batch_size=64, updates_per_epoch=10, min_updates=0, max_epochs=15, rng=0)
    assert np.allclose(rel2.fit(X[:90], S[:90]).predict(X[0]), rel.predict(X[0]))  # seeded


def _shaper(**kw):
    return MVRShaper(relevance=StateRelevance(hidden=8, min_updates=0, max_epochs=2, rng=0), rng=0, n_top=3, **kw)


def test_reference_set_is_top_scored_clips_and_refreshed():
    g = np.random.default_rng(2)
    X = g.normal(size=(10, 4, 2))
    S = np.arange(10.0) / 20
    sh = _shaper()
    sh.add_clips(X, S)
    sh.retrain()
    assert sorted(sh.reference_scores) == pytest.approx([0.35, 0.4, 0.45])
    assert np.allclose(sh.reference_values, sh.relevance.predict(X[7:]).ravel())
    sh.add_clips(X[:2], np.array([0.9, 0.05]))
    sh.retrain()
    assert sorted(sh.reference_scores) == pytest.approx([0.4, 0.45, 0.9])
    ref_states = np.concatenate([X[8:10], X[:1]])
    assert np.allclose(np.sort(sh.reference_values), np.sort(sh.relevance.predict(ref_states).ravel()), atol=1e-6)


def test_faithful_quirks_reproduce_the_code():
    g = np.random.default_rng(3)
    X = g.normal(size=(6, 4, 2))
    S = np.array([0.9, 0.8, 0.7, 0.1, 0.2, 0.3])  # the best clips were inserted first
    sh = _shaper(faithful_quirks=True)
    sh.add_clips(X, S)
    sh.retrain()
    assert not sh.trained_  # the first call only builds the reference set, as in the code
    stale = sh.reference_values.copy()
    assert np.allclose(stale, sh.relevance.predict(X[3:]).ravel())  # the LAST inserted 3 clips, not the best
    sh.retrain()
    assert sh.trained_
    # the second refresh re-inserts the whole buffer and keeps the last n_top again; values from the new net
    assert sorted(sh.reference_scores) == pytest.approx([0.8, 0.9, 0.9])  # old top 3 + buffer, sorted (duplicates)
    assert np.allclose(sh.reference_values, sh.relevance.predict(X[3:]).ravel())  # states: last inserted


def test_shaper_zero_before_training_and_pbrs_terminal():
    sh = _shaper(shaping="pbrs")
    assert (sh.shaping(np.zeros((3, 2)), np.zeros((3, 2))) == 0).all()
    g = np.random.default_rng(4)
    X = g.normal(size=(8, 4, 2))
    sh.add_clips(X, np.linspace(0, 0.4, 8))
    sh.retrain()
    s, s2 = g.normal(size=(5, 2)), g.normal(size=(5, 2))
    F = sh.shaping(s, s2, np.array([0, 0, 1, 0, 1]))
    # the potentials of the same (5, 2) batches: the relevance net is float32, and a one-row batch may take
    # another matmul kernel that rounds differently (1e-6 relative apart on the CI machine)
    P, P2 = sh.potential(s), sh.potential(s2)
    assert F[2] == pytest.approx(-P[2], rel=1e-12)
    assert F[0] == pytest.approx(0.99 * P2[0] - P[0], rel=1e-12)
    assert F[2] == pytest.approx(-sh.potential(s[2:3])[0], rel=1e-5)  # float32 rounding only


def test_clip_recording_shapes_and_alignment():
    env = make_multiview_env(OscillatorEnv(horizon=50), cameras=["side", "top"], clip_len=4, every=5, size=(12, 12))
    clips = env.rollout_clips(env.unwrapped.oscillate_policy(0.5), 50, rng=0)
    assert len(clips) == (50 - 20) // 5 + 1
    c = clips[1]
    assert c.frames.shape == (2, 4, 12, 12, 3) and c.states.shape == (20, 2) and c.rewards.shape == (20,)
    assert np.allclose(c.states[:15], clips[0].states[5:])  # stride = every
    short = make_multiview_env(OscillatorEnv(horizon=12), cameras=["side"], clip_len=4, every=5, size=(8, 8))
    padded = short.rollout_clips(short.unwrapped.oscillate_policy(0.5), 12, rng=0)
    assert len(padded) == 1 and padded[0].states.shape == (20, 2)


def test_scorers_rank_the_target_first():
    env = make_multiview_env(OscillatorEnv(), cameras=["side", "top"], clip_len=8, every=10, size=(16, 16))
    osc = env.unwrapped
    clips = env.rollout_clips(osc.oscillate_policy(0.5), 400, rng=0)  # 2 episodes of 13 clips
    ref, target = clips[5:13], clips[-4:]  # the prototype averages phases of episode 1; tested on episode 2
    still = env.rollout_clips(osc.hold_policy(0.0), 200, rng=1)[-3:]
    for sc in (MotionDescriptorScorer.from_reference(env, ref),
               DemoPrototypeScorer.from_reference(env, ref, size=8, n_features=128)):
        s_t = sc.score_many([c.frames for c in target])[0].mean()
        s_s = sc.score_many([c.frames for c in still])[0].mean()
        assert s_t > s_s
        s, e = sc.score(target[0].frames)
        assert s.shape == (2,) and np.allclose(np.linalg.norm(e, axis=1), 1)


def test_mvr_relabels_the_replay_buffer():
    """After learn(), every stored reward is the task reward plus the current shaping of its state."""
    env = make_multiview_env(OscillatorEnv(horizon=60), cameras=["side"], clip_len=4, every=5, size=(12, 12))
    sc = MotionDescriptorScorer.from_reference(env, env.rollout_clips(env.unwrapped.oscillate_policy(0.5), 60, 0))
    agent = MVR(env, sc, backbone="sac", relevance_retrain_every=120, collect_every=60,
                relevance=StateRelevance(hidden=8, min_updates=0, max_epochs=2, rng=0),
                backbone_kwargs=dict(learning_starts=50, policy_kwargs=dict(net_arch=[8])), rng=0)
    agent.learn(total_timesteps=240)
    rb = agent.model_.replay_buffer
    n = rb.pos
    obs = rb.observations[:n, 0]
    task = -0.01 * np.clip(rb.actions[:n, 0, 0], -1, 1) ** 2
    stored = agent._rb_F[:n, 0]
    assert np.allclose(rb.rewards[:n, 0], task + stored, atol=1e-5)
    assert (stored <= 0).all() and (stored[:100] < 0).all()  # early (pre-training) transitions were relabelled
    assert agent.history_["timesteps"] == [120, 240]
    assert 0 <= agent.history_["overhead_fraction"] < 1
    ev = agent.evaluate(n_episodes=2, rng=0)
    assert len(ev["returns"]) == 2 and np.isfinite(ev["se"])
    assert "MVR(" in repr(agent)
