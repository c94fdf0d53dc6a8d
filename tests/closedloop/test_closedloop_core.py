"""Core behaviour of iclr26sci.closedloop: the pseudo-model's formulas, MindPilot's pieces, the shared loop."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iclr26sci.closedloop import (CMAES, GPUCB, BoTorchUCB, GreedyRetrieval, MindPilot, PCAEmbedder, PCAGenerator,
                                  PseudoModel, RandomPool, run_loop)


@pytest.fixture(scope="module")
def digits():
    from sklearn.datasets import load_digits

    return load_digits().images[:400] / 16.0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30), d=st.integers(1, 8))
def test_gradient_matches_finite_difference(seed, n, d):
    """grad mu equals the central finite difference of mu (relative error < 1e-4)."""
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, d))
    gp = PseudoModel().fit(Z, rng.standard_normal(n) * 10)
    z = rng.standard_normal((1, d))
    g = gp.gradient(z)[0]
    h = 1e-5
    fd = np.array([(gp.predict(z + h * e)[0] - gp.predict(z - h * e)[0]) / (2 * h) for e in np.eye(d)])
    assert np.linalg.norm(g - fd) <= 1e-4 * max(np.linalg.norm(fd), 1e-3)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), y=st.floats(-100, 100).filter(lambda v: abs(v) > 1e-3), d=st.integers(1, 6))
def test_single_datum_step_direction(seed, y, d):
    """With one datum the pseudo-target step moves towards it when its loss is below the prior mean (y < 0) and
    away from it when above (y > 0)."""
    rng = np.random.default_rng(seed)
    z1 = rng.standard_normal(d)
    z = z1 + rng.standard_normal(d)
    gp = PseudoModel().fit(z1[None], [y])
    zp = gp.pseudo_target(z[None], 1e-3)[0]
    closer = np.linalg.norm(zp - z1) < np.linalg.norm(z - z1)
    assert closer == (y < 0)


def test_gp_fixed_hyperparameters_are_the_official_ones():
    gp = PseudoModel().fit(np.zeros((2, 16)) + np.arange(2)[:, None], [0.0, 1.0])
    assert gp.ls_ == pytest.approx(4.0) and gp.noise_ == 1e-4 and gp.s_ == pytest.approx(np.log(2)) and gp.m_ == 0


def test_gp_matches_gpytorch_and_add_equals_fit():
    import torch

    rng = np.random.default_rng(1)
    Z, y = rng.standard_normal((20, 5)), rng.standard_normal(20)
    a = PseudoModel().fit(Z, y)
    b = PseudoModel().fit(Z[:7], y[:7]).add(Z[7:], y[7:])
    Zq = rng.standard_normal((9, 5))
    np.testing.assert_allclose(a.predict(Zq), b.predict(Zq), atol=1e-9)
    model, lik = a.to_gpytorch()
    with torch.no_grad():
        post = model(torch.as_tensor(Zq))
    np.testing.assert_allclose(post.mean.numpy(), a.predict(Zq), atol=1e-6)
    np.testing.assert_allclose(post.variance.numpy(), a.predict(Zq, return_std=True)[1] ** 2, atol=1e-6)


def test_crossover_swaps_one_contiguous_block(digits):
    emb = PCAEmbedder(8).fit(digits)
    opt = MindPilot(emb, PCAGenerator(emb), digits, rng=0)
    opt.propose(1)
    za, zb = np.arange(8.0), -np.arange(8.0) - 1
    ca, cb = opt._crossover(za, zb)
    swapped = ca != za
    assert swapped.sum() == 4 and np.all(np.diff(np.nonzero(swapped)[0]) == 1)
    np.testing.assert_array_equal(ca[swapped], zb[swapped])
    np.testing.assert_array_equal(cb[swapped], za[swapped])
    np.testing.assert_array_equal(ca + cb, za + zb)


def test_mindpilot_round_structure_and_counter(digits):
    emb = PCAEmbedder(8).fit(digits)
    opt = MindPilot(emb, PCAGenerator(emb), digits, n_init=10, n_fusions=2, n_fit=4, top_k_greedy=20, rng=0)
    brain = lambda x: x.mean(axis=(1, 2))
    res = run_loop(opt, brain, 34)
    assert res.queries == 34 == opt.n_queries_
    assert [e["round"] for e in res.log].count(0) == 10
    assert [e["round"] for e in res.log].count(1) == 8              # 2 fusions x 2 children + 4 retrieved
    assert opt.seen_.sum() == 10 + 4 * 3                            # pool images are never shown twice
    assert len(opt.gp_.y_) == 34
    np.testing.assert_allclose(opt.gp_.y_, -100 * res.rewards)
    assert np.all(np.diff(res.history) >= 0) and res.optimizer_seconds >= 0


def test_guidance_only_above_threshold(digits):
    emb = PCAEmbedder(8).fit(digits)
    opt = MindPilot(emb, PCAGenerator(emb), digits, min_guidance_data=15, rng=0)
    imgs = opt.propose(10)
    opt.observe(imgs, imgs.mean(axis=(1, 2)))
    E = np.zeros((1, 8))
    np.testing.assert_array_equal(opt.guide(E), E)                  # 10 < 15 points: unchanged
    imgs = opt.propose(8)
    opt.observe(imgs, imgs.mean(axis=(1, 2)))
    assert not np.allclose(opt.guide(E), E)


def test_retrieval_stays_in_topk(digits):
    emb = PCAEmbedder(8).fit(digits)
    opt = MindPilot(emb, PCAGenerator(emb), digits, top_k_greedy=5, rng=0)
    opt.propose(1)
    q = opt.pool_z_[:1]
    pick = opt._retrieve(q, exclude=[])[0]
    u = opt._pool_u
    top5 = np.argsort(-(u @ (q[0] / np.linalg.norm(q[0]))))[:5]
    assert pick in top5


def test_softmax_temperature_concentrates_selection(digits):
    emb = PCAEmbedder(8).fit(digits)
    r = np.linspace(0, 1, 10)
    hits = {1.0: 0, 0.01: 0}
    for T in hits:
        for s in range(30):
            opt = MindPilot(emb, PCAGenerator(emb), digits, temperature=T, n_fit=1, rng=s)
            imgs = opt.propose(10)
            opt.observe(imgs, r)
            hits[T] += opt.fit_rewards_[0] == 1.0
    assert hits[0.01] == 30 and hits[1.0] < 15


def test_run_loop_with_a_lab_callable(digits):
    """A real-brain path: any callable, its calls logged with time stamps; wrong outputs are refused."""
    calls = []

    def person(images):
        calls.append(len(images))
        return images.mean(axis=(1, 2))

    res = run_loop(RandomPool(digits, rng=0), person, 7, batch_size=3)
    assert calls == [3, 3, 1] and len(res.log) == 7
    assert all(e["reward_at"] >= e["shown_at"] for e in res.log)
    assert res.true_rewards is None and np.isnan(res.true_best)
    assert "queries" in res.summary() and res.to_dict()["queries"] == 7 and "LoopResult(" in repr(res)


@pytest.mark.parametrize("make", [
    lambda emb, gen, pool: GreedyRetrieval(emb, pool, n_init=5, rng=0),
    pytest.param(lambda emb, gen, pool: GPUCB(emb, pool, n_init=5, rng=0), marks=pytest.mark.slow),
    pytest.param(lambda emb, gen, pool: GPUCB(emb, pool, generator=gen, space="embedding", n_init=5, n_candidates=64,
                                              rng=0), marks=pytest.mark.slow),
    pytest.param(lambda emb, gen, pool: BoTorchUCB(emb, pool, n_init=5, fit_iters=20, rng=0), marks=pytest.mark.slow),
    lambda emb, gen, pool: CMAES(emb, gen, pool, rng=0),
])
def test_every_baseline_runs_the_protocol(digits, make):
    emb = PCAEmbedder(8).fit(digits)
    opt = make(emb, PCAGenerator(emb), digits)
    res = run_loop(opt, lambda x: x.mean(axis=(1, 2)), 12)
    assert res.queries == 12 and opt.n_queries_ == 12 and len(opt.history_) == 12
    assert np.all(np.diff(res.history) >= 0)


def test_cmaes_tells_full_generations(digits):
    emb = PCAEmbedder(4).fit(digits)
    opt = CMAES(emb, PCAGenerator(emb), digits, popsize=4, rng=0)
    run_loop(opt, lambda x: -np.sum((emb(x) - 1.0) ** 2, axis=1), 40, batch_size=3)
    assert opt.es_.countiter == 10


def test_pca_generator_reembeds_near_its_condition(digits):
    emb = PCAEmbedder(8).fit(digits)
    Z = emb(digits[:20])
    back = emb(PCAGenerator(emb, noise=0.0)(Z, rng=0))
    assert np.median(np.linalg.norm(back - Z, axis=1) / np.linalg.norm(Z, axis=1)) < 0.2


@pytest.fixture(scope="module")
def brain(digits):
    from iclr26sci.closedloop import SimulatedEEGBrain

    return SimulatedEEGBrain(images=digits, snr_db=10, target="semantic", rng=0)


def test_brain_eeg_shapes_noise_and_target(brain, digits):
    X = brain.eeg(digits[:5], noise=False)
    assert X.shape == (5, 17, 250) and np.all(np.isfinite(X))
    np.testing.assert_allclose(brain.true_reward(brain.target_image_[None]), [1.0], atol=1e-9)
    noisy = brain.eeg(digits[:50], noise=True) - brain.eeg(digits[:50], noise=False)
    snr = 10 * np.log10(brain.signal_power_ / np.mean(noisy ** 2))
    assert abs(snr - 10.0) < 0.2
    r = brain(digits[:5])
    assert r.shape == (5,) and np.all((r >= 0) & (r <= 1))
    assert len(brain.channels) == 17 and brain.leadfield_.shape == (17, 32)


def test_brain_bad_images_and_retarget(brain, digits):
    from iclr26sci.core import InputError

    with pytest.raises(InputError, match="images"):
        brain(np.zeros((2, 5, 5)))
    with pytest.raises(InputError, match="images"):
        brain.true_reward(np.zeros((0, 8, 8)))
    b2 = brain.with_target(digits[7], rng=1)
    np.testing.assert_allclose(b2.true_reward(digits[7:8]), [1.0], atol=1e-9)
    assert brain.target_index_ is not None and b2.target_index_ is None


def test_forward_model_is_physical(brain):
    """Head-model sanity: the fitted sphere is head-sized, electrodes sit on it, and the lead field of a
    posterior source is largest on the occipital electrodes."""
    from iclr26sci.closedloop import head_model

    hm = head_model()
    assert 0.08 < hm["sphere_radius"] < 0.11
    r = np.linalg.norm(hm["electrodes_head"] - hm["sphere_center"], axis=1)
    assert np.all(np.abs(r / hm["sphere_radius"] - 1) < 0.15)
    # the used sources (head coordinates) lie behind the sphere centre; their summed gain peaks on the
    # parieto-occipital midline (PO3/POz/PO4), the electrodes right above them
    assert brain.source_pos_[:, 1].mean() < hm["sphere_center"][1] - 0.03
    G = np.abs(brain.leadfield_).mean(1)
    G3 = np.linalg.norm(hm["gain"].reshape(17, -1, 3), axis=2)
    order = np.argsort(hm["pos"][:, 1], kind="stable")[:32]
    assert brain.channels[int(np.argmax(G3[:, order].mean(1)))] in ("PO3", "POz", "PO4")
    assert G.shape == (17,)
