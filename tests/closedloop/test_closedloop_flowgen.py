"""The nn-based stimuli (FlowGenerator, FeatureEmbedder) and DDPO-lite: behaviour and bad input."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.closedloop import (DDPOLite, FeatureEmbedder, FlowGenerator, MindPilot, PCAEmbedder, PCAGenerator,
                                  run_loop)
from iclr26sci.core import InputError, NotFittedError

POOL = np.random.default_rng(0).random((64, 3, 3))


@pytest.fixture(scope="module")
def small():
    import torch

    torch.set_num_threads(1)
    emb = PCAEmbedder(2).fit(POOL)
    return emb, FlowGenerator(emb, hidden=(32, 32), epochs=20, cache=False, rng=0).fit(POOL)


@pytest.fixture(scope="module")
def digits_gen():
    """A real (small) embedding-conditioned flow on 600 digits: 16-d PCA condition, 60 epochs."""
    import torch
    from sklearn.datasets import load_digits

    torch.set_num_threads(1)
    X = load_digits().images[:600] / 16.0
    emb = PCAEmbedder(8).fit(X)
    return X, emb, FlowGenerator(emb, hidden=(128, 128), epochs=60, cache=False, rng=0).fit(X)


# ---------------------------------------------------------------------------------------------- FlowGenerator
def test_flow_generator_is_conditioned_on_the_embedding(digits_gen):
    """Generated images re-embed near their condition (cosine), much nearer than to a random other condition."""
    X, emb, gen = digits_gen
    Z = emb(X[:100])
    Zg = emb(gen(Z, rng=1))

    def cos(a, b):
        return np.sum(a * b, 1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))

    own, other = cos(Zg, Z).mean(), cos(Zg, np.roll(Z, 1, axis=0)).mean()
    assert own > 0.8 and own > other + 0.5, (own, other)
    assert gen.recon_cosine_ > 0.8


def test_flow_generator_seeded_and_in_range(small):
    emb, gen = small
    Z = np.random.default_rng(3).standard_normal((5, 2))
    a, b, c = gen(Z, rng=7), gen(Z, rng=7), gen(Z, rng=8)
    assert a.shape == (5, 3, 3) and np.array_equal(a, b) and not np.array_equal(a, c)
    assert a.min() >= POOL.min() and a.max() <= POOL.max()
    assert gen(np.zeros((0, 2)), rng=0).shape == (0, 3, 3)


def test_flow_generator_cache_roundtrip(tmp_path, monkeypatch):
    import torch

    monkeypatch.setenv("ICLR26SCI_CACHE", str(tmp_path))
    emb = PCAEmbedder(2).fit(POOL)
    g1 = FlowGenerator(emb, hidden=(8,), epochs=2, rng=0).fit(POOL)
    g2 = FlowGenerator(emb, hidden=(8,), epochs=2, rng=0).fit(POOL)       # read back from the cache
    for p, q in zip(g1.fm_.velocity_net.parameters(), g2.fm_.velocity_net.parameters()):
        assert torch.equal(p, q)
    assert g1.train_loss_ == g2.train_loss_


def test_mindpilot_runs_with_the_flow_generator(small):
    emb, gen = small
    opt = MindPilot(emb, gen, POOL, n_init=5, top_k_greedy=5, min_guidance_data=5, rng=0)
    res = run_loop(opt, lambda x: x.mean(axis=(1, 2)), query_budget=25)
    assert res.queries == 25 and opt.gp_.y_.shape == (25,)


@pytest.mark.bad_input("closedloop.FlowGenerator")
@pytest.mark.parametrize("kw,arg", [({"arch": "cnn"}, "arch"), ({"epochs": 0}, "epochs"), ({"lr": -1.0}, "lr"),
                                    ({"hidden": (0,)}, "hidden"), ({"steps": 0}, "steps"),
                                    ({"solver": "rk4"}, "solver"), ({"rng": -1}, "rng"), ({"cache": "yes"}, "cache"),
                                    ({"arch": "unet"}, "arch")])
def test_flow_generator_bad_params(kw, arg):
    emb = PCAEmbedder(2).fit(POOL)
    with pytest.raises(InputError, match=arg):
        FlowGenerator(emb, **{"cache": False, **kw}).fit(POOL)


@pytest.mark.bad_input("closedloop.FlowGenerator")
def test_flow_generator_bad_pool_embedder_and_unfitted(small):
    emb, gen = small
    with pytest.raises(InputError, match="embedder"):
        FlowGenerator("pca", cache=False).fit(POOL)
    with pytest.raises(InputError, match="pool"):
        FlowGenerator(emb, cache=False).fit(np.zeros(5))
    with pytest.raises(InputError, match="pool"):
        FlowGenerator(emb, cache=False).fit(np.zeros((5, 3, 3)))      # constant pixels
    with pytest.raises(NotFittedError):
        FlowGenerator(emb).generate(np.zeros((1, 2)))
    with pytest.raises(InputError, match="Z"):
        gen.generate(np.zeros((1, 3)))


# ---------------------------------------------------------------------------------------------- FeatureEmbedder
def test_feature_embedder_whitens_and_reshapes():
    seen = {}

    def feats(x):
        seen["shape"] = x.shape
        return np.tanh(x.reshape(len(x), -1) @ np.linspace(-1, 1, 18).reshape(9, 2) + x.reshape(len(x), -1)[:, :1])

    emb = FeatureEmbedder(feats, n_components=2, input_shape=(1, 3, 3)).fit(POOL)
    z = emb(POOL)
    assert seen["shape"] == (64, 1, 3, 3)
    assert np.allclose(z.mean(0), 0, atol=1e-9) and np.allclose(z.std(0), 1.0)
    assert 0 < emb.explained_variance_ratio_ <= 1 + 1e-12


@pytest.mark.bad_input("closedloop.FeatureEmbedder")
@pytest.mark.parametrize("kw,arg", [({"features": 3}, "features"), ({"n_components": 0}, "n_components"),
                                    ({"n_components": 50}, "n_components"), ({"input_shape": (1, 4, 4)}, "input_shape"),
                                    ({"features": lambda x: np.zeros((1, 2))}, "features"),
                                    ({"features": lambda x: np.full((len(x), 3), np.nan)}, "features")])
def test_feature_embedder_bad_input(kw, arg):
    base = {"features": lambda x: x.reshape(len(x), -1), "n_components": 2}
    with pytest.raises(InputError, match=arg):
        FeatureEmbedder(**{**base, **kw}).fit(POOL)


@pytest.mark.bad_input("closedloop.FeatureEmbedder")
def test_feature_embedder_bad_images_and_unfitted():
    emb = FeatureEmbedder(lambda x: x.reshape(len(x), -1), 2)
    with pytest.raises(NotFittedError):
        emb(POOL)
    emb.fit(POOL)
    with pytest.raises(InputError, match="images"):
        emb(np.zeros((2, 4, 4)))


# ---------------------------------------------------------------------------------------------- DDPO-lite
def test_ddpo_lite_learns_a_simple_reward(small):
    """Policy-gradient fine-tuning raises the mean reward (brightness) of its samples, batch after batch."""
    emb, gen = small
    opt = DDPOLite(emb, gen, POOL, batch_size=8, lr=1e-2, rng=0)
    run_loop(opt, lambda x: x.mean(axis=(1, 2)), query_budget=320)
    curve = np.asarray(opt.mean_reward_)
    assert opt.n_updates_ > 20
    assert curve[-10:].mean() > curve[:5].mean() + 0.15, curve


def test_ddpo_lite_does_not_touch_the_generator(small):
    import torch

    emb, gen = small
    before = [p.detach().clone() for p in gen.fm_.velocity_net.parameters()]
    run_loop(DDPOLite(emb, gen, POOL, batch_size=4, lr=1e-2, rng=0), lambda x: x.mean(axis=(1, 2)), query_budget=16)
    assert all(torch.equal(a, b) for a, b in zip(before, gen.fm_.velocity_net.parameters()))


def test_ddpo_lite_reversed_reward_goes_the_other_way(small):
    emb, gen = small
    up = DDPOLite(emb, gen, POOL, batch_size=8, lr=1e-2, rng=1)
    down = DDPOLite(emb, gen, POOL, batch_size=8, lr=1e-2, rng=1)
    run_loop(up, lambda x: x.mean(axis=(1, 2)), query_budget=160)
    run_loop(down, lambda x: -x.mean(axis=(1, 2)), query_budget=160)
    assert np.mean(up.mean_reward_[-5:]) > -np.mean(down.mean_reward_[-5:]) + 0.1


@pytest.mark.bad_input("closedloop.DDPOLite")
@pytest.mark.parametrize("kw,arg", [({"batch_size": 0}, "batch_size"), ({"lr": 0.0}, "lr"), ({"steps": 0}, "steps"),
                                    ({"noise_level": -1}, "noise_level"), ({"clip_range": 0}, "clip_range"),
                                    ({"adv_clip_max": float("inf")}, "adv_clip_max"),
                                    ({"timestep_fraction": 1.5}, "timestep_fraction"),
                                    ({"weight_decay": -0.1}, "weight_decay"), ({"grad_clip": 0}, "grad_clip"),
                                    ({"rng": "a"}, "rng")])
def test_ddpo_lite_bad_params(small, kw, arg):
    emb, gen = small
    with pytest.raises(InputError, match=arg):
        DDPOLite(emb, gen, POOL, **kw).propose(2)


@pytest.mark.bad_input("closedloop.DDPOLite")
def test_ddpo_lite_bad_generator_pool_embedder(small):
    emb, gen = small
    with pytest.raises(InputError, match="generator"):
        DDPOLite(emb, PCAGenerator(emb), POOL).propose(2)
    with pytest.raises(InputError, match="pool"):
        DDPOLite(emb, gen, np.zeros((10, 4, 4))).propose(2)
    with pytest.raises(InputError, match="embedder"):
        DDPOLite(PCAEmbedder(1).fit(POOL), gen, POOL).propose(2)
    with pytest.raises(InputError, match="embedder"):
        DDPOLite(None, gen, POOL).propose(2)
    with pytest.raises(InputError, match="images"):
        DDPOLite(emb, gen, POOL, rng=0).observe(np.zeros((1, 2, 2)), [0.0])


# ---------------------------------------------------------------------------------------------- Fashion-MNIST path
@pytest.mark.slow
def test_fashion_path_classifier_features_flow_generator_and_brain():
    """Fashion-MNIST images, the cached classifier's penultimate layer as the embedding, a flow generator
    conditioned on it, the simulated EEG brain on 28x28 images, and MindPilot / DDPO-lite closing the loop."""
    import torch

    from data_adapters.vision import load_fashion_mnist
    from iclr26sci.closedloop import SimulatedEEGBrain
    from iclr26sci.nn import fashion_classifier

    torch.set_num_threads(1)
    X = load_fashion_mnist("test", n=300, rng=0).images[:, 0].astype(float)
    emb = FeatureEmbedder(fashion_classifier(rng=0).features, 8, input_shape=(1, 28, 28)).fit(X)
    gen = FlowGenerator(emb, hidden=(128, 128), epochs=10, cache=False, rng=0).fit(X)
    assert gen(emb(X[:3]), rng=0).shape == (3, 28, 28)
    brain = SimulatedEEGBrain(images=X, snr_db=10, target="semantic", rng=0)
    pool = np.delete(X, brain.target_index_, axis=0)
    for opt in (MindPilot(emb, gen, pool, rng=0), DDPOLite(emb, gen, pool, rng=0)):
        res = run_loop(opt, brain, query_budget=20)
        assert res.queries == 20 and np.all(np.isfinite(res.true_rewards))


@pytest.mark.slow
def test_fashion_unet_generator_follows_its_condition():
    """The benchmark's Fashion-MNIST generator (U-Net flow on 10 000 training images, conditioned on the whitened
    classifier features of the 2 000-image pool; cached, about 5 CPU minutes to build) renders images whose
    embedding is closer to the condition than another real image of the same class is (mean cosine), and that
    the classifier puts in the condition image's class far above chance (> 0.5 against 0.1). The 3 x 512 MLP
    trained on the pool failed both (cosine 0.048)."""
    import torch

    from data_adapters.vision import load_fashion_mnist
    from iclr26sci.nn import fashion_classifier

    torch.set_num_threads(1)
    X = load_fashion_mnist("test", n=2000, rng=0).images[:, 0].astype(float)
    clf = fashion_classifier(rng=0)
    emb = FeatureEmbedder(clf.features, 16, input_shape=(1, 28, 28)).fit(X)
    Xtr = load_fashion_mnist("train", n=10000, rng=0).images[:, 0].astype(float)
    gen = FlowGenerator(emb, arch="unet", epochs=6, rng=0).fit(Xtr)

    def cos(a, b):
        return np.sum(a * b, 1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))

    def label(imgs):
        return np.asarray(clf.predict(np.asarray(imgs, dtype=np.float32).reshape(len(imgs), 1, 28, 28)))

    idx = np.random.default_rng(1).choice(len(X), 100, replace=False)
    Z, y, yall = emb(X[idx]), label(X[idx]), label(X)
    r = np.random.default_rng(2)
    same = np.array([r.choice(np.flatnonzero((yall == c) & (np.arange(len(X)) != i))) for c, i in zip(y, idx)])
    G = gen(Z, rng=0)
    assert cos(emb(G), Z).mean() > cos(Z, emb(X[same])).mean()
    assert np.mean(label(G) == y) > 0.5
