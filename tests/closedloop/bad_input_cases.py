"""Bad-input sweep cases for iclr26sci.closedloop (format: tests/bad_input_sweep.py).

Every case must raise an ``InputError`` naming one of its ``args`` before any work. Pools are 3x3 or 4x4
random images; the flow generator and the simulated brain are tiny and built once, lazily.
"""
import functools

import numpy as np

from bad_input_sweep import Case
from iclr26sci.closedloop import (CMAES, DDPOLite, GPUCB, BlackBoxStimulusOptimizer, BoTorchUCB, FeatureEmbedder,
                                  FlowGenerator, GreedyRetrieval, LoopResult, MindPilot, PCAEmbedder, PCAGenerator,
                                  PseudoModel, RandomPool, SimulatedEEGBrain, head_model, run_loop)

POOL = np.random.default_rng(0).random((40, 3, 3))


@functools.lru_cache(None)
def emb():
    return PCAEmbedder(2).fit(POOL)


def gen():
    return PCAGenerator(emb())


def mp(**kw):
    return MindPilot(emb(), gen(), POOL, **{**dict(top_k_greedy=5, rng=0), **kw})


def started(opt):
    opt.propose(2)
    return opt


@functools.lru_cache(None)
def flowgen():
    return FlowGenerator(emb(), hidden=(8,), epochs=1, cache=False).fit(POOL)


def fg(**kw):
    return FlowGenerator(emb(), **{**dict(hidden=(8,), epochs=1, cache=False), **kw})


@functools.lru_cache(None)
def brain():
    return SimulatedEEGBrain(np.random.default_rng(0).random((30, 4, 4)), rng=0)


def res(**kw):
    base = dict(best_reward=1.0, best_image=None, history=np.array([.2, 1.]), rewards=np.array([.2, 1.]),
                images=np.zeros((2, 1)), queries=2, stopped_early=False, optimizer_seconds=0., brain_seconds=0.)
    base.update(kw)
    return LoopResult(**base)


def gp():
    return PseudoModel().fit(np.eye(3), [-1.0, 0.0, 1.0])


def bad_gen(shape):
    return lambda Z, rng=None: np.zeros((len(Z), *shape))


def mean_brain(x):
    return x.mean(axis=tuple(range(1, x.ndim)))


FEAT = lambda x: np.tanh(x.reshape(len(x), -1))  # noqa: E731
SEEN = {}

CASES = [
    # ------------------------------------------------------------------ base class and RandomPool
    Case("closedloop.001", "BlackBoxStimulusOptimizer.propose", "the abstract base class",
         lambda: BlackBoxStimulusOptimizer().propose(1), ("optimizer", "BlackBoxStimulusOptimizer")),
    Case("closedloop.002", "RandomPool", "pool None", lambda: RandomPool(None), "pool"),
    Case("closedloop.003", "RandomPool", "pool 1-D", lambda: RandomPool(np.zeros(5)), "pool"),
    Case("closedloop.004", "RandomPool", "pool NaN", lambda: RandomPool(np.full((4, 2, 2), np.nan)), "pool"),
    Case("closedloop.005", "RandomPool", "pool empty", lambda: RandomPool(np.zeros((0, 2, 2))), "pool"),
    Case("closedloop.006", "RandomPool", "pool strings", lambda: RandomPool(np.array([["a", "b"]])), "pool"),
    Case("closedloop.007", "RandomPool", "rng a string", lambda: RandomPool(POOL, rng="x"), "rng"),
    Case("closedloop.008", "RandomPool", "rng negative", lambda: RandomPool(POOL, rng=-1), "rng"),
    Case("closedloop.009", "RandomPool.propose", "k 0", lambda: RandomPool(POOL, rng=0).propose(0), "k"),
    Case("closedloop.010", "RandomPool.propose", "k a float", lambda: RandomPool(POOL, rng=0).propose(1.5), "k"),
    Case("closedloop.011", "BlackBoxStimulusOptimizer.observe", "images of another shape",
         lambda: RandomPool(POOL, rng=0).observe(np.zeros((1, 4, 4)), [0.5]), "images"),
    Case("closedloop.012", "BlackBoxStimulusOptimizer.observe", "reward NaN",
         lambda: RandomPool(POOL, rng=0).observe(POOL[:2], [0.5, np.nan]), "rewards"),
    Case("closedloop.013", "BlackBoxStimulusOptimizer.observe", "rewards wrong length",
         lambda: RandomPool(POOL, rng=0).observe(POOL[:2], [0.5]), "rewards"),
    Case("closedloop.014", "BlackBoxStimulusOptimizer.observe", "rewards strings",
         lambda: RandomPool(POOL, rng=0).observe(POOL[:2], ["a", "b"]), "rewards"),
    Case("closedloop.015", "BlackBoxStimulusOptimizer.observe", "images NaN",
         lambda: RandomPool(POOL, rng=0).observe(np.full((1, 3, 3), np.nan), [0.5]), "images"),
    Case("closedloop.016", "BlackBoxStimulusOptimizer.observe", "no images",
         lambda: RandomPool(POOL, rng=0).observe(np.zeros((0, 3, 3)), []), "images"),
    # ------------------------------------------------------------------ GreedyRetrieval
    Case("closedloop.017", "GreedyRetrieval", "embedder not callable", lambda: GreedyRetrieval("clip", POOL),
         "embedder"),
    Case("closedloop.018", "GreedyRetrieval", "top_k larger than the pool",
         lambda: GreedyRetrieval(emb(), POOL, top_k=100), "top_k"),
    Case("closedloop.019", "GreedyRetrieval", "n_init 0", lambda: GreedyRetrieval(emb(), POOL, n_init=0), "n_init"),
    Case("closedloop.020", "GreedyRetrieval.propose", "embedder returns too few rows",
         lambda: GreedyRetrieval(lambda x: np.ones((1, 2)), POOL, top_k=5).propose(1), "embedder"),
    Case("closedloop.021", "GreedyRetrieval.propose", "embedder returns NaN",
         lambda: GreedyRetrieval(lambda x: np.full((len(x), 2), np.nan), POOL, top_k=5).propose(1), "embedder"),
    Case("closedloop.022", "GreedyRetrieval", "rng a float", lambda: GreedyRetrieval(emb(), POOL, rng=1.5), "rng"),
    # ------------------------------------------------------------------ MindPilot
    Case("closedloop.023", "MindPilot", "n_init 0", lambda: mp(n_init=0), "n_init"),
    Case("closedloop.024", "MindPilot", "n_fit 0", lambda: mp(n_fit=0), "n_fit"),
    Case("closedloop.025", "MindPilot", "crossover_fraction 1", lambda: mp(crossover_fraction=1.0),
         "crossover_fraction"),
    Case("closedloop.026", "MindPilot", "guidance_steps -1", lambda: mp(guidance_steps=-1), "guidance_steps"),
    Case("closedloop.027", "MindPilot", "step_size negative", lambda: mp(step_size=-1.0), "step_size"),
    Case("closedloop.028", "MindPilot", "step_size infinite", lambda: mp(step_size=np.inf), "step_size"),
    Case("closedloop.029", "MindPilot", "temperature 0", lambda: mp(temperature=0.0), "temperature"),
    Case("closedloop.030", "MindPilot", "reward_scale 0", lambda: mp(reward_scale=0.0), "reward_scale"),
    Case("closedloop.031", "MindPilot", "stop_tol negative", lambda: mp(stop_tol=-1.0), "stop_tol"),
    Case("closedloop.032", "MindPilot", "max_rounds 0", lambda: mp(max_rounds=0), "max_rounds"),
    Case("closedloop.033", "MindPilot", "requery_parents 'yes'", lambda: mp(requery_parents="yes"),
         "requery_parents"),
    Case("closedloop.034", "MindPilot", "top_k_greedy larger than the pool", lambda: mp(top_k_greedy=100),
         "top_k_greedy"),
    Case("closedloop.035", "MindPilot", "generator not callable", lambda: MindPilot(emb(), "sdxl", POOL),
         "generator"),
    Case("closedloop.036", "MindPilot", "pool of one image", lambda: MindPilot(emb(), gen(), POOL[:1], top_k_greedy=1), "pool"),
    Case("closedloop.037", "MindPilot", "noise 0", lambda: mp(noise=0.0), "noise"),
    Case("closedloop.038", "MindPilot", "lengthscale negative", lambda: mp(lengthscale=-1.0), "lengthscale"),
    Case("closedloop.039", "MindPilot", "min_guidance_data -1", lambda: mp(min_guidance_data=-1),
         "min_guidance_data"),
    Case("closedloop.040", "MindPilot", "n_fusions a float", lambda: mp(n_fusions=2.0), "n_fusions"),
    Case("closedloop.041", "MindPilot.guide", "embeddings of another dimension",
         lambda: started(mp()).guide(np.zeros((1, 5))), "E"),
    Case("closedloop.042", "MindPilot.guide", "embeddings NaN", lambda: started(mp()).guide(np.full((1, 2), np.nan)),
         "E"),
    Case("closedloop.043", "MindPilot.guide", "embeddings 1-D", lambda: started(mp()).guide(np.zeros(2)), "E"),
    Case("closedloop.044", "MindPilot.propose", "generator returns images of another shape",
         lambda: run_loop(MindPilot(emb(), bad_gen((5,)), POOL, top_k_greedy=5, n_init=4, rng=0), mean_brain, 12),
         "generator"),
    Case("closedloop.045", "MindPilot.propose", "generator returns NaN images",
         lambda: run_loop(MindPilot(emb(), lambda Z, rng=None: np.full((len(Z), 3, 3), np.nan), POOL,
                                    top_k_greedy=5, n_init=4, rng=0), mean_brain, 12), "generator"),
    # ------------------------------------------------------------------ GPUCB, BoTorchUCB
    Case("closedloop.046", "GPUCB", "kappa negative", lambda: GPUCB(emb(), POOL, kappa=-1.0), "kappa"),
    Case("closedloop.047", "GPUCB", "kappa infinite", lambda: GPUCB(emb(), POOL, kappa=np.inf), "kappa"),
    Case("closedloop.048", "GPUCB", "unknown space", lambda: GPUCB(emb(), POOL, space="latent"), "space"),
    Case("closedloop.049", "GPUCB", "embedding space without generator",
         lambda: GPUCB(emb(), POOL, space="embedding"), "generator"),
    Case("closedloop.050", "GPUCB", "n_candidates 0", lambda: GPUCB(emb(), POOL, n_candidates=0), "n_candidates"),
    Case("closedloop.051", "GPUCB", "batch 0", lambda: GPUCB(emb(), POOL, batch=0), "batch"),
    Case("closedloop.052", "GPUCB", "fit_every 0", lambda: GPUCB(emb(), POOL, fit_every=0), "fit_every"),
    Case("closedloop.053", "GPUCB", "fit_iters 0", lambda: GPUCB(emb(), POOL, fit_iters=0), "fit_iters"),
    Case("closedloop.054", "GPUCB", "unknown device", lambda: GPUCB(emb(), POOL, device="tpu"), "device"),
    Case("closedloop.055", "GPUCB", "n_init 0", lambda: GPUCB(emb(), POOL, n_init=0), "n_init"),
    Case("closedloop.056", "BoTorchUCB", "kappa negative", lambda: BoTorchUCB(emb(), POOL, kappa=-1.0), "kappa"),
    Case("closedloop.057", "BoTorchUCB", "unknown device", lambda: BoTorchUCB(emb(), POOL, device="tpu"), "device"),
    Case("closedloop.058", "BoTorchUCB", "embedder not callable", lambda: BoTorchUCB(3, POOL), "embedder"),
    # ------------------------------------------------------------------ CMAES
    Case("closedloop.059", "CMAES", "popsize 1", lambda: CMAES(emb(), gen(), POOL, popsize=1), "popsize"),
    Case("closedloop.060", "CMAES", "sigma0 0", lambda: CMAES(emb(), gen(), POOL, sigma0=0.0), "sigma0"),
    Case("closedloop.061", "CMAES", "sigma0 infinite", lambda: CMAES(emb(), gen(), POOL, sigma0=np.inf), "sigma0"),
    Case("closedloop.062", "CMAES", "generator not callable", lambda: CMAES(emb(), None, POOL), "generator"),
    Case("closedloop.063", "CMAES", "rng a string", lambda: CMAES(emb(), gen(), POOL, rng="x"), "rng"),
    Case("closedloop.064", "CMAES.propose", "generator returns images of another shape",
         lambda: CMAES(emb(), bad_gen((2, 2)), POOL, rng=0).propose(2), "generator"),
    # ------------------------------------------------------------------ run_loop, LoopResult
    Case("closedloop.065", "run_loop", "query_budget 0", lambda: run_loop(RandomPool(POOL), mean_brain, 0),
         "query_budget"),
    Case("closedloop.066", "run_loop", "query_budget a float", lambda: run_loop(RandomPool(POOL), mean_brain, 1.5),
         "query_budget"),
    Case("closedloop.067", "run_loop", "optimizer a string", lambda: run_loop("mindpilot", mean_brain, 3),
         "optimizer"),
    Case("closedloop.068", "run_loop", "brain not callable", lambda: run_loop(RandomPool(POOL), 3, 3), "brain"),
    Case("closedloop.069", "run_loop", "brain returns too few rewards",
         lambda: run_loop(RandomPool(POOL), lambda x: [0.5], 3), "brain"),
    Case("closedloop.070", "run_loop", "brain returns NaN",
         lambda: run_loop(RandomPool(POOL), lambda x: np.full(len(x), np.nan), 3), "brain"),
    Case("closedloop.071", "run_loop", "batch_size 0", lambda: run_loop(RandomPool(POOL), mean_brain, 3, batch_size=0),
         "batch_size"),
    Case("closedloop.072", "run_loop", "callback not callable",
         lambda: run_loop(RandomPool(POOL), mean_brain, 3, callback=5), "callback"),
    Case("closedloop.073", "run_loop", "rng a string", lambda: run_loop(RandomPool(POOL), mean_brain, 3, rng="x"),
         "rng"),
    Case("closedloop.074", "run_loop", "brain.true_reward returns the wrong number",
         lambda: run_loop(RandomPool(POOL), type("B", (), {"__call__": lambda s, x: mean_brain(x),
                                                           "true_reward": lambda s, x: [1.0]})(), 3), "brain"),
    Case("closedloop.075", "run_loop", "brain returns strings",
         lambda: run_loop(RandomPool(POOL), lambda x: ["a"] * len(x), 3), "brain"),
    Case("closedloop.076", "LoopResult.queries_to", "threshold NaN", lambda: res().queries_to(np.nan), "threshold"),
    Case("closedloop.077", "LoopResult.queries_to", "true 'yes'", lambda: res().queries_to(0.5, true="yes"), "true"),
    Case("closedloop.078", "LoopResult.queries_to", "true rewards asked for but not recorded",
         lambda: res().queries_to(0.5, true=True), "true"),
    Case("closedloop.079", "LoopResult", "history decreasing", lambda: res(history=np.array([1.0, 0.2])), "history"),
    Case("closedloop.080", "LoopResult", "queries negative", lambda: res(queries=-1), "queries"),
    Case("closedloop.081", "LoopResult", "rewards NaN", lambda: res(rewards=np.array([np.nan, 1.0])), "rewards"),
    Case("closedloop.082", "LoopResult", "true_rewards wrong length", lambda: res(true_rewards=np.array([1.0])),
         "true_rewards"),
    # ------------------------------------------------------------------ PseudoModel
    Case("closedloop.083", "PseudoModel.fit", "X 1-D", lambda: PseudoModel().fit(np.zeros(3), [1.0, 2.0, 3.0]), "X"),
    Case("closedloop.084", "PseudoModel.fit", "y wrong length", lambda: PseudoModel().fit(np.eye(3), [1.0]), "y"),
    Case("closedloop.085", "PseudoModel.fit", "X NaN", lambda: PseudoModel().fit(np.full((2, 2), np.nan), [1.0, 2.0]),
         "X"),
    Case("closedloop.086", "PseudoModel.fit", "X empty", lambda: PseudoModel().fit(np.zeros((0, 2)), []), "X"),
    Case("closedloop.087", "PseudoModel", "lengthscale 0", lambda: PseudoModel(lengthscale=0.0), "lengthscale"),
    Case("closedloop.088", "PseudoModel", "noise 0", lambda: PseudoModel(noise=0.0), "noise"),
    Case("closedloop.089", "PseudoModel", "outputscale negative", lambda: PseudoModel(outputscale=-1.0),
         "outputscale"),
    Case("closedloop.090", "PseudoModel", "mean NaN", lambda: PseudoModel(mean=np.nan), "mean"),
    Case("closedloop.091", "PseudoModel.fit", "duplicate points with a negligible noise",
         lambda: PseudoModel(noise=1e-300).fit(np.zeros((3, 2)), [1.0, 2.0, 3.0]), "noise"),
    Case("closedloop.092", "PseudoModel.predict", "unfitted", lambda: PseudoModel().predict(np.eye(3)),
         "PseudoModel.Z"),
    Case("closedloop.093", "PseudoModel.predict", "Z of another dimension", lambda: gp().predict(np.zeros((1, 2))),
         "Z"),
    Case("closedloop.094", "PseudoModel.predict", "return_std 'yes'",
         lambda: gp().predict(np.zeros((1, 3)), return_std="yes"), "return_std"),
    Case("closedloop.095", "PseudoModel.gradient", "Z NaN", lambda: gp().gradient(np.full((1, 3), np.nan)), "Z"),
    Case("closedloop.096", "PseudoModel.pseudo_target", "step_size negative",
         lambda: gp().pseudo_target(np.zeros((1, 3)), -1.0), "step_size"),
    Case("closedloop.097", "PseudoModel.add", "X of another dimension",
         lambda: gp().add(np.zeros((1, 2)), [1.0]), "X"),
    Case("closedloop.098", "PseudoModel.add", "y NaN", lambda: gp().add(np.zeros((1, 3)), [np.nan]), "y"),
    Case("closedloop.099", "PseudoModel.to_gpytorch", "unfitted", lambda: PseudoModel().to_gpytorch(),
         "PseudoModel.to_gpytorch"),
    # ------------------------------------------------------------------ PCAEmbedder, PCAGenerator
    Case("closedloop.100", "PCAEmbedder", "n_components 0", lambda: PCAEmbedder(0), "n_components"),
    Case("closedloop.101", "PCAEmbedder.fit", "n_components above the pixels", lambda: PCAEmbedder(10).fit(POOL),
         "n_components"),
    Case("closedloop.102", "PCAEmbedder.fit", "pool of one image", lambda: PCAEmbedder(1).fit(POOL[:1]), "pool"),
    Case("closedloop.103", "PCAEmbedder.fit", "constant pool", lambda: PCAEmbedder(1).fit(np.ones((5, 2, 2))),
         ("n_components", "pool")),
    Case("closedloop.104", "PCAEmbedder.transform", "unfitted", lambda: PCAEmbedder(2).transform(POOL),
         "PCAEmbedder.transform"),
    Case("closedloop.105", "PCAEmbedder.transform", "images of another shape",
         lambda: emb().transform(np.zeros((1, 4, 4))), "images"),
    Case("closedloop.106", "PCAEmbedder.transform", "images NaN",
         lambda: emb().transform(np.full((1, 3, 3), np.nan)), "images"),
    Case("closedloop.107", "PCAEmbedder.inverse_transform", "Z of another dimension",
         lambda: emb().inverse_transform(np.zeros((1, 5))), "Z"),
    Case("closedloop.108", "PCAEmbedder", "n_components a float", lambda: PCAEmbedder(2.0), "n_components"),
    Case("closedloop.109", "PCAGenerator", "embedder not a PCAEmbedder", lambda: PCAGenerator("clip"), "embedder"),
    Case("closedloop.110", "PCAGenerator", "noise negative", lambda: PCAGenerator(emb(), noise=-1.0), "noise"),
    Case("closedloop.111", "PCAGenerator", "embedder unfitted", lambda: PCAGenerator(PCAEmbedder(2)), "embedder"),
    Case("closedloop.112", "PCAGenerator.generate", "Z of another dimension",
         lambda: gen().generate(np.zeros((1, 5)), rng=0), "Z"),
    Case("closedloop.113", "PCAGenerator.generate", "rng a string", lambda: gen().generate(np.zeros((1, 2)), rng="x"),
         "rng"),
    Case("closedloop.114", "PCAGenerator.generate", "Z infinite", lambda: gen().generate(np.full((1, 2), np.inf)),
         "Z"),
    # ------------------------------------------------------------------ FlowGenerator, FeatureEmbedder
    Case("closedloop.115", "FlowGenerator", "unknown arch", lambda: fg(arch="vit"), "arch"),
    Case("closedloop.116", "FlowGenerator", "epochs 0", lambda: fg(epochs=0), "epochs"),
    Case("closedloop.117", "FlowGenerator", "hidden width 0", lambda: fg(hidden=(0,)), "hidden"),
    Case("closedloop.118", "FlowGenerator", "hidden a number", lambda: fg(hidden=8), "hidden"),
    Case("closedloop.119", "FlowGenerator", "unknown solver", lambda: fg(solver="rk4"), "solver"),
    Case("closedloop.120", "FlowGenerator", "cache 'yes'", lambda: fg(cache="yes"), "cache"),
    Case("closedloop.121", "FlowGenerator", "rng negative", lambda: fg(rng=-1), "rng"),
    Case("closedloop.122", "FlowGenerator", "lr 0", lambda: fg(lr=0.0), "lr"),
    Case("closedloop.123", "FlowGenerator", "steps 0", lambda: fg(steps=0), "steps"),
    Case("closedloop.124", "FlowGenerator", "embedder not callable",
         lambda: FlowGenerator("clip", hidden=(8,), epochs=1, cache=False), "embedder"),
    Case("closedloop.125", "FlowGenerator.fit", "constant pool",
         lambda: FlowGenerator(lambda x: np.ones((len(x), 2)), hidden=(8,), epochs=1, cache=False).fit(
             np.ones((5, 3, 3))), "pool"),
    Case("closedloop.126", "FlowGenerator.fit", "unet on non-square images", lambda: fg(arch="unet").fit(
        np.random.default_rng(0).random((8, 4, 8))), "arch"),
    Case("closedloop.127", "FlowGenerator.generate", "unfitted", lambda: fg().generate(np.zeros((1, 2))),
         "FlowGenerator.generate"),
    Case("closedloop.128", "FlowGenerator.generate", "Z of another dimension",
         lambda: flowgen().generate(np.zeros((1, 5))), "Z"),
    Case("closedloop.129", "FlowGenerator.generate", "rng a string",
         lambda: flowgen().generate(np.zeros((1, 2)), rng="x"), "rng"),
    Case("closedloop.130", "FlowGenerator", "batch_size 0", lambda: fg(batch_size=0), "batch_size"),
    Case("closedloop.131", "FeatureEmbedder", "features not callable", lambda: FeatureEmbedder("clip"), "features"),
    Case("closedloop.132", "FeatureEmbedder", "n_components 0", lambda: FeatureEmbedder(FEAT, 0), "n_components"),
    Case("closedloop.133", "FeatureEmbedder.fit", "input_shape with other pixel count",
         lambda: FeatureEmbedder(FEAT, 2, input_shape=(1, 4, 4)).fit(POOL), "input_shape"),
    Case("closedloop.134", "FeatureEmbedder", "input_shape a string", lambda: FeatureEmbedder(FEAT, 2,
                                                                                              input_shape="abc"),
         "input_shape"),
    Case("closedloop.135", "FeatureEmbedder.fit", "features return NaN",
         lambda: FeatureEmbedder(lambda x: np.full((len(x), 3), np.nan), 2).fit(POOL), "features"),
    Case("closedloop.136", "FeatureEmbedder.transform", "unfitted", lambda: FeatureEmbedder(FEAT, 2).transform(POOL),
         "FeatureEmbedder.transform"),
    Case("closedloop.137", "FeatureEmbedder.transform", "images of another shape",
         lambda: FeatureEmbedder(FEAT, 2).fit(POOL).transform(np.zeros((1, 2, 2))), "images"),
    # ------------------------------------------------------------------ DDPOLite
    Case("closedloop.138", "DDPOLite", "generator not a FlowGenerator", lambda: DDPOLite(emb(), gen(), POOL),
         "generator"),
    Case("closedloop.139", "DDPOLite", "batch_size 0", lambda: DDPOLite(emb(), flowgen(), POOL, batch_size=0),
         "batch_size"),
    Case("closedloop.140", "DDPOLite", "lr 0", lambda: DDPOLite(emb(), flowgen(), POOL, lr=0.0), "lr"),
    Case("closedloop.141", "DDPOLite", "timestep_fraction 1.5",
         lambda: DDPOLite(emb(), flowgen(), POOL, timestep_fraction=1.5), "timestep_fraction"),
    Case("closedloop.142", "DDPOLite", "clip_range 0", lambda: DDPOLite(emb(), flowgen(), POOL, clip_range=0.0),
         "clip_range"),
    Case("closedloop.143", "DDPOLite", "pool of another image shape",
         lambda: DDPOLite(emb(), flowgen(), np.zeros((4, 2, 2))), "pool"),
    Case("closedloop.144", "DDPOLite", "rng a string", lambda: DDPOLite(emb(), flowgen(), POOL, rng="x"), "rng"),
    Case("closedloop.145", "DDPOLite", "steps 0", lambda: DDPOLite(emb(), flowgen(), POOL, steps=0), "steps"),
    Case("closedloop.146", "DDPOLite", "unfitted FlowGenerator", lambda: DDPOLite(emb(), fg(), POOL), "generator"),
    Case("closedloop.147", "DDPOLite.propose", "embedder of another dimension",
         lambda: DDPOLite(lambda x: np.ones((len(x), 5)), flowgen(), POOL).propose(1), "embedder"),
    # ------------------------------------------------------------------ SimulatedEEGBrain, head_model
    Case("closedloop.148", "SimulatedEEGBrain", "one image", lambda: SimulatedEEGBrain(POOL[:1]), "images"),
    Case("closedloop.149", "SimulatedEEGBrain", "unknown head", lambda: SimulatedEEGBrain(POOL, head="colin"),
         "head"),
    Case("closedloop.150", "SimulatedEEGBrain", "unknown montage", lambda: SimulatedEEGBrain(POOL, montage="x"),
         "montage"),
    Case("closedloop.151", "SimulatedEEGBrain", "unknown target", lambda: SimulatedEEGBrain(POOL, target="gamma"),
         "target"),
    Case("closedloop.152", "SimulatedEEGBrain", "n_channels 5 without names",
         lambda: SimulatedEEGBrain(POOL, n_channels=5), "n_channels"),
    Case("closedloop.153", "SimulatedEEGBrain", "channels a bare string", lambda: SimulatedEEGBrain(POOL, channels="Oz"),
         "channels"),
    Case("closedloop.154", "SimulatedEEGBrain", "unknown channel",
         lambda: SimulatedEEGBrain(POOL, channels=["Oz", "Q9"]), "channels"),
    Case("closedloop.155", "SimulatedEEGBrain", "duplicate channels",
         lambda: SimulatedEEGBrain(POOL, channels=["Oz", "Oz"]), "channels"),
    Case("closedloop.156", "SimulatedEEGBrain", "snr_db NaN", lambda: SimulatedEEGBrain(POOL, snr_db=np.nan),
         "snr_db"),
    Case("closedloop.157", "SimulatedEEGBrain", "snr_db a string", lambda: SimulatedEEGBrain(POOL, snr_db="10"),
         "snr_db"),
    Case("closedloop.158", "SimulatedEEGBrain", "alpha_gain 1", lambda: SimulatedEEGBrain(POOL, alpha_gain=1.0),
         "alpha_gain"),
    Case("closedloop.159", "SimulatedEEGBrain", "unknown psd_scale", lambda: SimulatedEEGBrain(POOL, psd_scale="log"),
         "psd_scale"),
    Case("closedloop.160", "SimulatedEEGBrain", "n_sources 0", lambda: SimulatedEEGBrain(POOL, n_sources=0),
         "n_sources"),
    Case("closedloop.161", "SimulatedEEGBrain", "n_latent 0", lambda: SimulatedEEGBrain(POOL, n_latent=0),
         "n_latent"),
    Case("closedloop.162", "SimulatedEEGBrain", "target_image of another shape",
         lambda: SimulatedEEGBrain(POOL, target_image=np.zeros((4, 4))), "target_image"),
    Case("closedloop.163", "SimulatedEEGBrain", "rng a string", lambda: SimulatedEEGBrain(POOL, rng="x"), "rng"),
    Case("closedloop.164", "SimulatedEEGBrain", "images NaN",
         lambda: SimulatedEEGBrain(np.full((4, 3, 3), np.nan)), "images"),
    Case("closedloop.165", "SimulatedEEGBrain", "constant images", lambda: SimulatedEEGBrain(np.ones((4, 3, 3))),
         "images"),
    Case("closedloop.166", "SimulatedEEGBrain.eeg", "images of another shape",
         lambda: brain().eeg(np.zeros((1, 3, 3))), "images"),
    Case("closedloop.167", "SimulatedEEGBrain.eeg", "no images", lambda: brain().eeg(np.zeros((0, 4, 4))), "images"),
    Case("closedloop.168", "SimulatedEEGBrain.eeg", "noise 'yes'", lambda: brain().eeg(np.zeros((1, 4, 4)),
                                                                                       noise="yes"), "noise"),
    Case("closedloop.169", "SimulatedEEGBrain.with_target", "target of another shape",
         lambda: brain().with_target(np.zeros((3, 3))), "target_image"),
    Case("closedloop.170", "SimulatedEEGBrain.with_target", "rng a string",
         lambda: brain().with_target(np.zeros((4, 4)), rng="x"), "rng"),
    Case("closedloop.171", "SimulatedEEGBrain.true_reward", "images NaN",
         lambda: brain().true_reward(np.full((1, 4, 4), np.nan)), "images"),
    Case("closedloop.172", "SimulatedEEGBrain.alpha_ratio", "images of another shape",
         lambda: brain().alpha_ratio(np.zeros((1, 2, 2))), "images"),
    Case("closedloop.173", "SimulatedEEGBrain", "a 1-D image pool", lambda: SimulatedEEGBrain(np.zeros(5)), "images"),
    Case("closedloop.174", "head_model", "unknown montage", lambda: head_model(montage="biosemi64"), "montage"),
    Case("closedloop.175", "head_model", "unknown channel", lambda: head_model(channels=["Oz", "Q9"]), "channels"),
    Case("closedloop.176", "head_model", "grid_mm 1", lambda: head_model(grid_mm=1.0), "grid_mm"),
    Case("closedloop.177", "head_model", "channels a bare string", lambda: head_model(channels="Oz"), "channels"),
    Case("closedloop.178", "head_model", "channels empty", lambda: head_model(channels=[]), "channels"),
]
