"""Bad input to every public name of iclr26sci.closedloop: a clear InputError naming the argument, before any work."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.closedloop import (CMAES, GPUCB, BoTorchUCB, GreedyRetrieval, LoopResult, MindPilot, PCAEmbedder,
                                  PCAGenerator, PseudoModel, RandomPool, SimulatedEEGBrain, head_model, run_loop)
from iclr26sci.core import InputError, NotFittedError

BAD_INPUT_EXEMPT = {
    "closedloop.THINGS_EEG_CHANNELS": "a constant tuple of channel names; it takes no input",
}

POOL = np.random.default_rng(0).random((30, 4, 4))


def _emb():
    return PCAEmbedder(3).fit(POOL)


# ---------------------------------------------------------------------------------------------- the loop
@pytest.mark.bad_input("closedloop.run_loop")
@pytest.mark.parametrize("budget", [0, -3, 2.5, True, "10", None])
def test_query_budget_below_one(budget):
    with pytest.raises(InputError, match="query_budget"):
        run_loop(RandomPool(POOL, rng=0), lambda x: x.mean(axis=(1, 2)), budget)


@pytest.mark.bad_input("closedloop.run_loop")
@pytest.mark.parametrize("brain", [
    lambda x: np.zeros(len(x) + 1),                     # wrong number of rewards
    lambda x: np.zeros(len(x) - 1),
    lambda x: np.full(len(x), np.nan),                  # non-finite
    lambda x: np.r_[np.inf, np.zeros(len(x) - 1)],
    lambda x: "high",
    "not callable",
])
def test_bad_brain(brain):
    with pytest.raises(InputError, match="brain"):
        run_loop(RandomPool(POOL, rng=0), brain, 5)


@pytest.mark.bad_input("closedloop.run_loop")
@pytest.mark.parametrize("kw,arg", [({"batch_size": 0}, "batch_size"), ({"callback": 3}, "callback")])
def test_run_loop_options(kw, arg):
    with pytest.raises(InputError, match=arg):
        run_loop(RandomPool(POOL, rng=0), lambda x: x.mean(axis=(1, 2)), 5, **kw)


@pytest.mark.bad_input("closedloop.run_loop")
def test_run_loop_needs_an_optimizer():
    with pytest.raises(InputError, match="optimizer"):
        run_loop(object(), lambda x: x.mean(axis=(1, 2)), 5)


@pytest.mark.bad_input("closedloop.LoopResult")
def test_loop_result_threshold():
    res = run_loop(RandomPool(POOL, rng=0), lambda x: x.mean(axis=(1, 2)), 3)
    assert isinstance(res, LoopResult)
    with pytest.raises(InputError, match="threshold"):
        res.queries_to(np.nan)


# ---------------------------------------------------------------------------------------------- the optimisers
@pytest.mark.bad_input("closedloop.MindPilot", "closedloop.RandomPool", "closedloop.GreedyRetrieval",
                       "closedloop.GPUCB", "closedloop.BoTorchUCB", "closedloop.CMAES")
@pytest.mark.parametrize("make", [
    lambda: RandomPool(POOL, rng=0),
    lambda: MindPilot(_emb(), PCAGenerator(_emb()), POOL, top_k_greedy=5, rng=0),
    lambda: GreedyRetrieval(_emb(), POOL, top_k=5, rng=0),
    lambda: GPUCB(_emb(), POOL, rng=0),
    lambda: BoTorchUCB(_emb(), POOL, rng=0),
    lambda: CMAES(_emb(), PCAGenerator(_emb()), POOL, rng=0),
])
@pytest.mark.parametrize("images,rewards,arg", [
    (np.zeros((2, 5, 4)), [0.1, 0.2], "images"),        # shape differs from the pool's
    (np.zeros((2, 16)), [0.1, 0.2], "images"),
    (np.zeros((2, 4, 4)), [0.1], "rewards"),
    (np.zeros((2, 4, 4)), [0.1, np.nan], "rewards"),
    (np.full((1, 4, 4), np.inf), [0.1], "images"),
])
def test_observe_bad_images_and_rewards(make, images, rewards, arg):
    opt = make()
    with pytest.raises(InputError, match=arg):
        opt.observe(images, rewards)


@pytest.mark.bad_input("closedloop.MindPilot", "closedloop.RandomPool")
@pytest.mark.parametrize("k", [0, -1, 1.5, None])
def test_propose_bad_k(k):
    with pytest.raises(InputError, match="k"):
        RandomPool(POOL, rng=0).propose(k)


@pytest.mark.bad_input("closedloop.MindPilot")
def test_pool_smaller_than_top_k():
    with pytest.raises(InputError, match="top_k_greedy"):      # refused by the constructor, before any work
        MindPilot(_emb(), PCAGenerator(_emb()), POOL, top_k_greedy=31, rng=0).propose(5)


@pytest.mark.bad_input("closedloop.MindPilot")
@pytest.mark.parametrize("kw,arg", [
    ({"n_init": 0}, "n_init"), ({"n_fit": 0}, "n_fit"), ({"n_fusions": -1}, "n_fusions"),
    ({"crossover_fraction": 1.0}, "crossover_fraction"), ({"crossover_fraction": 0}, "crossover_fraction"),
    ({"guidance_steps": -1}, "guidance_steps"), ({"step_size": -1.0}, "step_size"), ({"step_size": np.inf}, "step_size"),
    ({"step_decay": np.nan}, "step_decay"), ({"reward_scale": 0}, "reward_scale"), ({"temperature": 0}, "temperature"),
    ({"stop_tol": -1e-3}, "stop_tol"), ({"max_rounds": 0}, "max_rounds"), ({"requery_parents": 1}, "requery_parents"),
    ({"lengthscale": -1.0}, "lengthscale"), ({"noise": 0}, "noise"), ({"rng": -1}, "rng"), ({"rng": "a"}, "rng"),
])
def test_mindpilot_params(kw, arg):
    with pytest.raises(InputError, match=arg):                 # refused by the constructor, before any work
        MindPilot(_emb(), PCAGenerator(_emb()), POOL, **{"top_k_greedy": 5, **kw}).propose(3)


@pytest.mark.bad_input("closedloop.MindPilot", "closedloop.CMAES", "closedloop.GreedyRetrieval")
@pytest.mark.parametrize("make,arg", [
    (lambda: MindPilot("emb", PCAGenerator(_emb()), POOL, top_k_greedy=5), "embedder"),
    (lambda: MindPilot(_emb(), None, POOL, top_k_greedy=5), "generator"),
    (lambda: MindPilot(_emb(), PCAGenerator(_emb()), np.zeros(5), top_k_greedy=5), "pool"),
    (lambda: MindPilot(lambda x: np.zeros((len(x) + 1, 2)), PCAGenerator(_emb()), POOL, top_k_greedy=5), "embedder"),
    (lambda: MindPilot(lambda x: np.full((len(x), 2), np.nan), PCAGenerator(_emb()), POOL, top_k_greedy=5), "embedder"),
    (lambda: CMAES(_emb(), PCAGenerator(_emb()), POOL, popsize=1), "popsize"),
    (lambda: CMAES(_emb(), PCAGenerator(_emb()), POOL, sigma0=0.0), "sigma0"),
    (lambda: CMAES(_emb(), 3, POOL), "generator"),
    (lambda: GreedyRetrieval(_emb(), POOL, top_k=31), "top_k"),
    (lambda: GreedyRetrieval(_emb(), POOL, n_init=0), "n_init"),
    (lambda: RandomPool(None), "pool"),
])
def test_optimizer_components(make, arg):
    with pytest.raises(InputError, match=arg):
        make().propose(2)


@pytest.mark.bad_input("closedloop.GPUCB", "closedloop.BoTorchUCB")
@pytest.mark.parametrize("cls", [GPUCB, BoTorchUCB])
@pytest.mark.parametrize("kw,arg", [
    ({"kappa": -1.0}, "kappa"), ({"kappa": np.inf}, "kappa"), ({"space": "image"}, "space"),
    ({"space": "embedding"}, "generator"), ({"n_init": 0}, "n_init"), ({"n_candidates": 0}, "n_candidates"),
    ({"batch": 0}, "batch"), ({"fit_every": 0}, "fit_every"), ({"fit_iters": 0}, "fit_iters"),
])
def test_ucb_params(cls, kw, arg):
    with pytest.raises(InputError, match=arg):
        cls(_emb(), POOL, **kw).propose(2)


# ---------------------------------------------------------------------------------------------- pieces
@pytest.mark.bad_input("closedloop.PseudoModel")
@pytest.mark.parametrize("kw,X,y,arg", [
    ({}, np.zeros(3), [1.0, 2.0, 3.0], "X"),
    ({}, np.zeros((3, 2)), [1.0, 2.0], "y"),
    ({}, np.zeros((2, 2)), [1.0, np.nan], "y"),
    ({"noise": 0.0}, np.zeros((2, 2)), [1.0, 2.0], "noise"),
    ({"lengthscale": 0.0}, np.zeros((2, 2)), [1.0, 2.0], "lengthscale"),
    ({"outputscale": -1.0}, np.zeros((2, 2)), [1.0, 2.0], "outputscale"),
    ({"mean": np.nan}, np.zeros((2, 2)), [1.0, 2.0], "mean"),
])
def test_pseudo_model_fit(kw, X, y, arg):
    with pytest.raises(InputError, match=arg):
        PseudoModel(**kw).fit(X, y)


@pytest.mark.bad_input("closedloop.PseudoModel")
def test_pseudo_model_unfitted_and_shapes():
    for meth in ("predict", "gradient", "pseudo_target"):
        with pytest.raises(NotFittedError):
            getattr(PseudoModel(), meth)(np.zeros((1, 2)))
    gp = PseudoModel().fit(np.zeros((2, 2)) + [[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(InputError, match="Z"):
        gp.predict(np.zeros((1, 3)))
    with pytest.raises(InputError, match="step_size"):
        gp.pseudo_target(np.zeros((1, 2)), -1.0)
    with pytest.raises(InputError, match="X"):
        gp.add(np.zeros((1, 3)), [1.0])


@pytest.mark.bad_input("closedloop.PCAEmbedder", "closedloop.PCAGenerator")
def test_pca_pieces():
    with pytest.raises(InputError, match="n_components"):
        PCAEmbedder(100).fit(POOL)
    with pytest.raises(InputError, match="n_components"):
        PCAEmbedder(0).fit(POOL)
    with pytest.raises(InputError, match="pool"):
        PCAEmbedder(2).fit(np.zeros((1, 4, 4)))
    with pytest.raises(NotFittedError):
        PCAEmbedder(2).transform(POOL)
    with pytest.raises(InputError, match="images"):
        _emb().transform(np.zeros((2, 3, 3)))
    with pytest.raises(InputError, match="Z"):
        _emb().inverse_transform(np.zeros((2, 5)))
    with pytest.raises(InputError, match="noise"):
        PCAGenerator(_emb(), noise=-0.1)(np.zeros((1, 3)))
    with pytest.raises(InputError, match="embedder"):
        PCAGenerator("pca")(np.zeros((1, 3)))


# ---------------------------------------------------------------------------------------------- the brain
@pytest.mark.bad_input("closedloop.SimulatedEEGBrain")
@pytest.mark.parametrize("kw,arg", [
    ({"snr_db": np.nan}, "snr_db"), ({"snr_db": -np.inf}, "snr_db"), ({"snr_db": "10"}, "snr_db"),
    ({"snr_db": True}, "snr_db"),
    ({"montage": "biosemi64"}, "montage"), ({"target": "gamma"}, "target"), ({"head": "colin27"}, "head"),
    ({"n_channels": 32}, "n_channels"), ({"channels": ["Oz", "XX9"]}, "channels"), ({"channels": "Oz"}, "channels"),
    ({"channels": ["Oz", "Oz"]}, "channels"), ({"alpha_gain": 1.0}, "alpha_gain"), ({"psd_scale": "log"}, "psd_scale"),
    ({"n_sources": 0}, "n_sources"), ({"n_latent": 0}, "n_latent"), ({"rng": -2}, "rng"),
    ({"target_image": np.zeros((3, 3))}, "target_image"),
])
def test_brain_params(kw, arg):
    with pytest.raises(InputError, match=arg):
        SimulatedEEGBrain(images=POOL, **kw)


@pytest.mark.bad_input("closedloop.SimulatedEEGBrain")
def test_brain_images():
    with pytest.raises(InputError, match="images"):
        SimulatedEEGBrain(images=np.zeros(5))
    with pytest.raises(InputError, match="images"):
        SimulatedEEGBrain(images=np.full((3, 2, 2), np.nan))


@pytest.mark.bad_input("closedloop.head_model")
@pytest.mark.parametrize("kw,arg", [({"montage": "easycap"}, "montage"), ({"channels": ["Q1"]}, "channels"),
                                    ({"grid_mm": 1.0}, "grid_mm"), ({"channels": 5}, "channels")])
def test_head_model_params(kw, arg):
    with pytest.raises(InputError, match=arg):
        head_model(**kw)
