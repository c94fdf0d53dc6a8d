"""Bad-input sweep cases for iclr26sci.nn (format: tests/bad_input_sweep.py).

Fixtures are tiny: a 2-d flow model fitted for one epoch, the randomly initialised ``tiny_lm()``, a 10-level
diffusion schedule, a 2-d Gaussian oracle, and small MLP / ResNet / ViT classifiers. Calls that would train a
cached paper-scale model are only made with arguments refused before any work.
"""
import functools

import numpy as np
import torch

from bad_input_sweep import Case
from iclr26sci import nn as N

nan, inf = float("nan"), float("inf")


@functools.lru_cache(maxsize=None)
def _fm():
    g = np.random.default_rng(0)
    X = g.normal(size=(40, 2)).astype(np.float32)
    y = np.arange(40) % 3
    net = N.VelocityMLP(2, hidden=(8,), n_classes=3)
    return N.FlowMatching(net).fit(X, y, epochs=1, batch_size=20, rng=0, progress=False)


@functools.lru_cache(maxsize=None)
def _lm():
    return N.tiny_lm()


@functools.lru_cache(maxsize=None)
def _sched():
    return N.DiffusionSchedule(K=10)


@functools.lru_cache(maxsize=None)
def _oracle():
    return N.GaussianFlowOracle(np.zeros(2), np.eye(2))


def _mlp():
    torch.manual_seed(0)
    return N.mlp(3, 2, hidden=(4,))


def _ce(m, x, y):
    return torch.nn.functional.cross_entropy(m(x), y)


def _xy(n=16, d=3):
    g = np.random.default_rng(0)
    return g.normal(size=(n, d)).astype(np.float32), np.arange(n) % 2


def _fit(**kw):
    X, y = _xy()
    data = kw.pop("data", (X, y))
    kw.setdefault("epochs", 1)
    kw.setdefault("progress", False)
    return N.fit(kw.pop("model", _mlp()), kw.pop("loss_fn", _ce), data, **kw)


def _imgs(n=4, c=1, s=8):
    return np.random.default_rng(0).random((n, c, s, s)).astype(np.float32), np.arange(n) % 2


def _iset():
    X, y = _imgs()
    return N.ImageSet(X, y, ("a", "b"), "tiny")


def _resnet():
    torch.manual_seed(0)
    return N.SmallResNet(n_classes=2, in_channels=1, widths=(4,), stem_width=4)


def _vit():
    torch.manual_seed(0)
    return N.SmallViT(n_classes=2, in_channels=1, image_size=8, patch_size=4, dim=8, depth=1, heads=2)


def _x_sched(n=2, d=4):
    return torch.zeros(n, d)


def _sde():
    return N.flow_sde(_fm())


def _step():
    return _sde().step(torch.zeros(4, 2), 0.5, 0.1, cond=torch.zeros(4, dtype=torch.long), rng=0)


def _saved():
    """A checkpoint of _mlp() in a folder outside the case's working directory."""
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(prefix="nn-cases-"), "ck.pt")
    N.save_checkpoint(path, _mlp())
    return path


CASES = [
    # ---------------------------------------------------------------- ImageSet
    Case("nn.001", "ImageSet", "labels out of classes", lambda: N.ImageSet(*_imgs(), ("a",), "x"), ("labels",)),
    Case("nn.002", "ImageSet", "NaN images", lambda: N.ImageSet(np.full((4, 1, 8, 8), nan, np.float32),
                                                               np.zeros(4, int), ("a",)), ("images",)),
    Case("nn.003", "ImageSet", "3-D images", lambda: N.ImageSet(np.zeros((4, 8, 8), np.float32), np.zeros(4, int),
                                                               ("a",)), ("images",)),
    Case("nn.004", "ImageSet", "labels length", lambda: N.ImageSet(_imgs()[0], np.zeros(3, int), ("a",)),
         ("labels",)),
    Case("nn.005", "ImageSet", "negative labels", lambda: N.ImageSet(_imgs()[0], -np.ones(4, int), ("a",)),
         ("labels",)),
    Case("nn.006", "ImageSet.subset", "index out of range", lambda: _iset().subset([0, 9]), ("index",)),
    Case("nn.007", "ImageSet.sample", "n too large", lambda: _iset().sample(10, rng=0), ("n",)),
    Case("nn.008", "ImageSet.sample", "rng string", lambda: _iset().sample(2, rng="x"), ("rng",)),
    Case("nn.009", "ImageSet.split", "fraction 1.5", lambda: _iset().split(1.5, rng=0), ("fraction",)),
    Case("nn.010", "ImageSet.split", "fraction NaN", lambda: _iset().split(nan, rng=0), ("fraction",)),
    # ---------------------------------------------------------------- mlp
    Case("nn.011", "mlp", "in_dim 0", lambda: N.mlp(0, 2), ("in_dim",)),
    Case("nn.012", "mlp", "out_dim float", lambda: N.mlp(3, 2.5), ("out_dim",)),
    Case("nn.013", "mlp", "hidden negative", lambda: N.mlp(3, 2, hidden=(4, -1)), ("hidden",)),
    Case("nn.014", "mlp", "act bogus", lambda: N.mlp(3, 2, act="swish2"), ("act",)),
    Case("nn.015", "mlp", "dropout 1", lambda: N.mlp(3, 2, dropout=1.0), ("dropout",)),
    Case("nn.016", "mlp", "norm bogus", lambda: N.mlp(3, 2, norm="group"), ("norm",)),
    # ---------------------------------------------------------------- fit
    Case("nn.017", "fit", "wrong feature count", lambda: _fit(data=_xy(d=5)), ("data",)),
    Case("nn.018", "fit", "NaN data", lambda: _fit(data=(np.full((16, 3), nan, np.float32), _xy()[1])), ("data",)),
    Case("nn.019", "fit", "empty data", lambda: _fit(data=(np.zeros((0, 3), np.float32), np.zeros(0, int))),
         ("data",)),
    Case("nn.020", "fit", "ragged lengths", lambda: _fit(data=(_xy()[0], _xy()[1][:5])), ("data",)),
    Case("nn.021", "fit", "epochs 0", lambda: _fit(epochs=0), ("epochs",)),
    Case("nn.022", "fit", "lr negative", lambda: _fit(lr=-1.0), ("lr",)),
    Case("nn.023", "fit", "lr NaN", lambda: _fit(lr=nan), ("lr",)),
    Case("nn.024", "fit", "batch_size 0", lambda: _fit(batch_size=0), ("batch_size",)),
    Case("nn.025", "fit", "optimizer bogus", lambda: _fit(optimizer="lbfgs2"), ("optimizer",)),
    Case("nn.026", "fit", "weight_decay negative", lambda: _fit(weight_decay=-0.1), ("weight_decay",)),
    Case("nn.027", "fit", "grad_clip 0", lambda: _fit(grad_clip=0.0), ("grad_clip",)),
    Case("nn.028", "fit", "patience without val", lambda: _fit(patience=0), ("patience",)),
    Case("nn.029", "fit", "val_fraction 1", lambda: _fit(val_fraction=1.0), ("val_fraction",)),
    Case("nn.030", "fit", "device bogus", lambda: _fit(device="tpu"), ("device",)),
    Case("nn.031", "fit", "device unavailable cuda:7", lambda: _fit(device="cuda:7"), ("device",)),
    Case("nn.032", "fit", "model not a module", lambda: _fit(model="net"), ("model",)),
    Case("nn.033", "fit", "loss_fn not callable", lambda: _fit(loss_fn=3), ("loss_fn",)),
    Case("nn.034", "fit", "rng string", lambda: _fit(rng="x"), ("rng",)),
    Case("nn.035", "fit", "schedule bogus", lambda: _fit(schedule="exp"), ("schedule",)),
    Case("nn.036", "fit", "val wrong feature count", lambda: _fit(val=_xy(d=4)), ("val",)),
    Case("nn.037", "fit", "progress string", lambda: _fit(progress="no"), ("progress",)),
    Case("nn.038", "fit", "loss returning NaN-free non-scalar",
         lambda: _fit(loss_fn=lambda m, x, y: m(x)), ("loss_fn",)),
    # ---------------------------------------------------------------- checkpoints
    Case("nn.039", "save_checkpoint", "model not a module", lambda: N.save_checkpoint("a.pt", "net"), ("model",)),
    Case("nn.040", "save_checkpoint", "metadata not serialisable",
         lambda: N.save_checkpoint("a.pt", _mlp(), metadata={"f": object()}), ("metadata",)),
    Case("nn.041", "save_checkpoint", "path a number", lambda: N.save_checkpoint(3, _mlp()), ("path",)),
    Case("nn.042", "load_checkpoint", "missing file", lambda: N.load_checkpoint("nope.pt"), ("path",)),
    Case("nn.043", "load_checkpoint", "architecture mismatch",
         lambda: N.load_checkpoint(_saved(), N.mlp(3, 2, hidden=(5,))), ("model",)),
    Case("nn.044", "load_checkpoint", "map_location bogus",
         lambda: N.load_checkpoint(_saved(), map_location="tpu"), ("map_location",)),
    # ---------------------------------------------------------------- vision models
    Case("nn.045", "SmallResNet", "n_classes 1", lambda: N.SmallResNet(n_classes=1), ("n_classes",)),
    Case("nn.046", "SmallResNet", "widths empty", lambda: N.SmallResNet(widths=()), ("widths",)),
    Case("nn.047", "SmallResNet.forward", "wrong channels", lambda: _resnet()(torch.zeros(2, 3, 8, 8)), ("x",)),
    Case("nn.048", "SmallResNet.forward", "2-D input", lambda: _resnet()(torch.zeros(2, 64)), ("x",)),
    Case("nn.049", "SmallResNet.forward_features", "wrong channels",
         lambda: _resnet().forward_features(torch.zeros(2, 2, 8, 8)), ("x",)),
    Case("nn.050", "SmallViT", "patch_size not dividing", lambda: N.SmallViT(image_size=28, patch_size=5),
         ("patch_size",)),
    Case("nn.051", "SmallViT", "heads not dividing dim", lambda: N.SmallViT(dim=30, heads=4), ("heads",)),
    Case("nn.052", "SmallViT.forward", "wrong image size", lambda: _vit()(torch.zeros(2, 1, 12, 12)), ("x",)),
    Case("nn.053", "SmallViT.tokens", "wrong channels", lambda: _vit().tokens(torch.zeros(2, 3, 8, 8)), ("x",)),
    Case("nn.054", "SmallViT.forward_features", "3-D input",
         lambda: _vit().forward_features(torch.zeros(2, 8, 8)), ("x",)),
    Case("nn.055", "SmallResNet.fit", "labels out of range",
         lambda: _resnet().fit(_imgs()[0], np.array([0, 1, 2, 5]), epochs=1, progress=False), ("y",)),
    Case("nn.056", "SmallResNet.fit", "device bogus",
         lambda: _resnet().fit(*_imgs(), epochs=1, progress=False, device="gpu9"), ("device",)),
    # ---------------------------------------------------------------- cache
    Case("nn.057", "cached_model", "name with a slash",
         lambda: N.cached_model("a/b", {}, 0, lambda: (_mlp(), {}), _mlp), ("name",)),
    Case("nn.058", "cached_model", "settings NaN",
         lambda: N.cached_model("a", {"x": nan}, 0, lambda: (_mlp(), {}), _mlp), ("settings",)),
    Case("nn.059", "cached_model", "seed negative", lambda: N.cached_model("a", {}, -1, lambda: (_mlp(), {}), _mlp),
         ("seed",)),
    Case("nn.060", "cached_model", "factory returns a string",
         lambda: N.cached_model("a", {}, 0, lambda: (_mlp(), {}), lambda: "net"), ("factory",)),
    Case("nn.061", "fashion_classifier", "rng negative", lambda: N.fashion_classifier(rng=-1), ("rng",)),
    Case("nn.062", "fashion_classifier", "epochs 0", lambda: N.fashion_classifier(epochs=0), ("epochs",)),
    Case("nn.063", "fashion_classifier", "train wrong type", lambda: N.fashion_classifier(train=[1, 2]), ("train",)),
    Case("nn.064", "digits_flow", "rng float", lambda: N.digits_flow(rng=1.5), ("rng",)),
    Case("nn.065", "digits_flow", "device bogus", lambda: N.digits_flow(device="tpu"), ("device",)),
    Case("nn.066", "fashion_flow", "n_train 5", lambda: N.fashion_flow(n_train=5), ("n_train",)),
    Case("nn.067", "fashion_flow", "classifier wrong type", lambda: N.fashion_flow(classifier=object()),
         ("classifier",)),
    # ---------------------------------------------------------------- flow matching
    Case("nn.068", "VelocityMLP", "dim 0", lambda: N.VelocityMLP(0), ("dim",)),
    Case("nn.069", "VelocityMLP", "n_classes 0", lambda: N.VelocityMLP(2, n_classes=0), ("n_classes",)),
    Case("nn.070", "VelocityMLP.forward", "label outside the classes",
         lambda: _fm().velocity_net(torch.zeros(2, 2), torch.zeros(2), torch.tensor([0, 7])), ("cond",)),
    Case("nn.071", "VelocityMLP.forward", "wrong dim", lambda: _fm().velocity_net(torch.zeros(2, 5), torch.zeros(2)),
         ("x",)),
    Case("nn.072", "FlowMatching", "path bogus", lambda: N.FlowMatching(N.VelocityMLP(2), path="cosine"), ("path",)),
    Case("nn.073", "FlowMatching", "p_uncond 1.5", lambda: N.FlowMatching(N.VelocityMLP(2), p_uncond=1.5),
         ("p_uncond",)),
    Case("nn.074", "FlowMatching", "velocity_net a string", lambda: N.FlowMatching("net"), ("velocity_net",)),
    Case("nn.075", "FlowMatching.fit", "wrong feature count",
         lambda: N.FlowMatching(N.VelocityMLP(2)).fit(np.zeros((10, 3), np.float32), epochs=1, progress=False),
         ("X",)),
    Case("nn.076", "FlowMatching.fit", "labels out of range",
         lambda: N.FlowMatching(N.VelocityMLP(2, n_classes=3)).fit(np.zeros((10, 2), np.float32), np.full(10, 5),
                                                                   epochs=1, progress=False), ("cond",)),
    Case("nn.077", "FlowMatching.fit", "NaN X",
         lambda: N.FlowMatching(N.VelocityMLP(2)).fit(np.full((10, 2), nan, np.float32), epochs=1, progress=False),
         ("X",)),
    Case("nn.078", "FlowMatching.velocity", "wrong dim", lambda: _fm().velocity(torch.zeros(3, 4), 0.5), ("x",)),
    Case("nn.079", "FlowMatching.velocity", "t outside [0, 1]", lambda: _fm().velocity(torch.zeros(3, 2), 2.0),
         ("t",)),
    Case("nn.080", "FlowMatching.sample", "n 0", lambda: _fm().sample(0), ("n",)),
    Case("nn.081", "FlowMatching.sample", "solver bogus", lambda: _fm().sample(4, solver="rk4x"), ("solver",)),
    Case("nn.082", "FlowMatching.sample", "label outside the classes", lambda: _fm().sample(2, cond=[0, 9]),
         ("cond",)),
    Case("nn.083", "FlowMatching.sample", "guidance NaN", lambda: _fm().sample(2, cond=[0, 1], guidance=nan),
         ("guidance",)),
    Case("nn.084", "ode_sample", "steps 0", lambda: N.ode_sample(_fm(), n=2, steps=0), ("steps",)),
    Case("nn.085", "ode_sample", "x0 wrong dim", lambda: N.ode_sample(_fm(), x0=torch.zeros(2, 5)), ("x0",)),
    Case("nn.086", "ode_sample", "times decreasing", lambda: N.ode_sample(_fm(), n=2, times=[0.0, 0.7, 0.5, 1.0]),
         ("times",)),
    Case("nn.087", "ode_sample", "device bogus", lambda: N.ode_sample(_fm(), n=2, device="tpu"), ("device",)),
    Case("nn.088", "ode_sample", "rng string", lambda: N.ode_sample(_fm(), n=2, rng="x"), ("rng",)),
    # ---------------------------------------------------------------- SDEs
    Case("nn.089", "flow_sde", "noise_level negative", lambda: N.flow_sde(_fm(), noise_level=-0.1), ("noise_level",)),
    Case("nn.090", "flow_sde", "fm a string", lambda: N.flow_sde("fm"), ("fm",)),
    Case("nn.091", "FlowSDE.step", "x wrong dim", lambda: _sde().step(torch.zeros(4, 3), 0.5, 0.1), ("x_t",)),
    Case("nn.092", "FlowSDE.step", "dt beyond 1", lambda: _sde().step(torch.zeros(4, 2), 0.5, 0.9), ("dt",)),
    Case("nn.093", "FlowSDE.sample", "steps 0", lambda: _sde().sample(2, steps=0), ("steps",)),
    Case("nn.094", "SDEStep.log_prob", "x_next wrong shape", lambda: _step().log_prob(torch.zeros(3, 2)),
         ("x_next",)),
    Case("nn.095", "SDEStep.log_prob", "reduce bogus", lambda: _step().log_prob(torch.zeros(4, 2), reduce="max"),
         ("reduce",)),
    Case("nn.096", "SDEStep.kl", "other a string", lambda: _step().kl("other"), ("other",)),
    Case("nn.097", "memoryless_sde", "fm a string", lambda: N.memoryless_sde("fm"), ("fm",)),
    Case("nn.098", "MemorylessSDE.drift", "x wrong dim",
         lambda: N.memoryless_sde(_fm()).drift(torch.zeros(2, 5), 0.5), ("x",)),
    # ---------------------------------------------------------------- oracle
    Case("nn.099", "GaussianFlowOracle", "cov not PSD", lambda: N.GaussianFlowOracle(np.zeros(2), -np.eye(2)),
         ("cov",)),
    Case("nn.100", "GaussianFlowOracle", "cov asymmetric",
         lambda: N.GaussianFlowOracle(np.zeros(2), np.array([[1.0, 0.5], [0.0, 1.0]])), ("cov",)),
    Case("nn.101", "GaussianFlowOracle", "path bogus", lambda: N.GaussianFlowOracle(np.zeros(2), path="vp"),
         ("path",)),
    Case("nn.102", "GaussianFlowOracle.velocity", "x wrong dim",
         lambda: _oracle().velocity(np.zeros((3, 5)), 0.5), ("x",)),
    Case("nn.103", "GaussianFlowOracle.marginal_mean", "t 2", lambda: _oracle().marginal_mean(2.0), ("t",)),
    Case("nn.104", "GaussianFlowOracle.sample_data", "n 0", lambda: _oracle().sample_data(0, rng=0), ("n",)),
    Case("nn.105", "GaussianFlowOracle.score", "t NaN", lambda: _oracle().score(np.zeros((2, 2)), nan), ("t",)),
    # ---------------------------------------------------------------- UNet
    Case("nn.106", "UNetVelocity", "image_size not divisible", lambda: N.UNetVelocity(image_size=27),
         ("image_size", "patch")),
    Case("nn.107", "UNetVelocity.forward", "wrong channels",
         lambda: N.UNetVelocity(base=8, image_size=8, patch=2)(torch.zeros(2, 3, 8, 8), torch.zeros(2),
                                                              torch.zeros(2, dtype=torch.long)), ("x",)),
    Case("nn.108", "UNetVelocity.forward", "label outside the classes",
         lambda: N.UNetVelocity(base=8, image_size=8, patch=2)(torch.zeros(2, 1, 8, 8), torch.zeros(2),
                                                              torch.tensor([0, 12])), ("cond",)),
    # ---------------------------------------------------------------- FID
    Case("nn.109", "frechet_distance", "dimension mismatch",
         lambda: N.frechet_distance(np.zeros((10, 3)), np.zeros((10, 4))), ("feats_b",)),
    Case("nn.110", "frechet_distance", "NaN features",
         lambda: N.frechet_distance(np.full((10, 3), nan), np.zeros((10, 3))), ("feats_a",)),
    Case("nn.111", "frechet_distance", "one sample", lambda: N.frechet_distance(np.zeros((1, 3)), np.zeros((10, 3))),
         ("feats_a",)),
    Case("nn.112", "frechet_distance", "mean_cov with a non-PSD covariance",
         lambda: N.frechet_distance((np.zeros(2), -np.eye(2)), (np.zeros(2), np.eye(2)), mean_cov=True),
         ("feats_a",)),
    # ---------------------------------------------------------------- language model
    Case("nn.113", "load_lm", "unknown name", lambda: N.load_lm("gpt-17"), ("name_or_path",)),
    Case("nn.114", "load_lm", "dtype bogus", lambda: N.load_lm(dtype="float8"), ("dtype",)),
    Case("nn.115", "load_lm", "device bogus", lambda: N.load_lm(device="tpu"), ("device",)),
    Case("nn.116", "tiny_lm", "hidden_size not divisible by heads", lambda: N.tiny_lm(hidden_size=30, n_heads=4),
         ("hidden_size", "n_heads")),
    Case("nn.117", "tiny_lm", "n_layers 0", lambda: N.tiny_lm(n_layers=0), ("n_layers",)),
    Case("nn.118", "tiny_lm", "init_std negative", lambda: N.tiny_lm(init_std=-1.0), ("init_std",)),
    Case("nn.119", "tiny_lm", "device bogus", lambda: N.tiny_lm(device="tpu"), ("device",)),
    Case("nn.121", "LanguageModel.generate", "top_p 0", lambda: _lm().generate(["a"], n=1, top_p=0.0), ("top_p",)),
    Case("nn.123", "LanguageModel.generate", "n 0", lambda: _lm().generate(["a"], n=0), ("n",)),
    Case("nn.125", "LanguageModel.generate", "empty prompts", lambda: _lm().generate([], n=1), ("prompts",)),
    Case("nn.126", "LanguageModel.sequence_logprob", "length mismatch",
         lambda: _lm().sequence_logprob(["a", "b"], ["c"]), ("completions",)),
    Case("nn.127", "LanguageModel.sequence_logprob", "reduce bogus",
         lambda: _lm().sequence_logprob(["a"], ["b"], reduce="max"), ("reduce",)),
    Case("nn.128", "LanguageModel.with_lora", "r 0", lambda: _lm().with_lora(r=0), ("r",)),
    Case("nn.129", "LanguageModel.with_lora", "target unknown", lambda: _lm().with_lora(target=("nope",)),
         ("target",)),
    Case("nn.130", "LanguageModel.with_lora", "dropout 1", lambda: _lm().with_lora(dropout=1.0), ("dropout",)),
    Case("nn.131", "LanguageModel.encode", "text a number", lambda: _lm().encode(3), ("text",)),
    Case("nn.132", "LanguageModel.decode", "ids out of vocabulary", lambda: _lm().decode([10**6]), ("ids",)),
    Case("nn.133", "LanguageModel.decode", "negative ids", lambda: _lm().decode([-1]), ("ids",)),
    Case("nn.134", "LanguageModel.to", "device bogus", lambda: _lm().to("tpu"), ("device",)),
    Case("nn.135", "LanguageModel.apply_chat_template", "messages not dicts",
         lambda: _lm().apply_chat_template(["hi"]), ("messages",)),
    Case("nn.136", "LanguageModel.chat", "messages empty", lambda: _lm().chat([]), ("messages",)),
    Case("nn.137", "Generation.group", "prompt out of range",
         lambda: _lm().generate(["a"], n=1, max_new_tokens=2, progress=False).group(5), ("prompt",)),
    Case("nn.138", "LanguageModel", "model a string", lambda: N.LanguageModel("m", "t"), ("model",)),
    # ---------------------------------------------------------------- text embeddings
    Case("nn.140", "embed_texts", "empty", lambda: N.embed_texts([]), ("texts",)),
    Case("nn.141", "embed_texts", "batch_size 0", lambda: N.embed_texts(["a"], batch_size=0), ("batch_size",)),
    Case("nn.142", "embed_texts", "device bogus", lambda: N.embed_texts(["a"], device="tpu"), ("device",)),
    Case("nn.143", "embed_texts", "non-string entries", lambda: N.embed_texts(["a", 3]), ("texts",)),
    # ---------------------------------------------------------------- discrete diffusion
    Case("nn.144", "DiffusionSchedule", "K 0", lambda: N.DiffusionSchedule(K=0), ("K",)),
    Case("nn.145", "DiffusionSchedule", "kind bogus", lambda: N.DiffusionSchedule(kind="sigmoid2"), ("kind",)),
    Case("nn.146", "DiffusionSchedule", "s negative", lambda: N.DiffusionSchedule(s=-0.1), ("s",)),
    Case("nn.147", "DiffusionSchedule.alpha_bar", "level beyond K", lambda: _sched().alpha_bar([11]), ("levels",)),
    Case("nn.148", "q_sample", "levels shape mismatch",
         lambda: N.q_sample(_sched(), _x_sched(), torch.zeros(3, dtype=torch.long)), ("levels",)),
    Case("nn.149", "q_sample", "level beyond K",
         lambda: N.q_sample(_sched(), _x_sched(), torch.full((2, 4), 50, dtype=torch.long)), ("levels",)),
    Case("nn.150", "q_sample", "NaN x0",
         lambda: N.q_sample(_sched(), torch.full((2, 4), nan), torch.zeros((2, 4), dtype=torch.long)), ("x0",)),
    Case("nn.151", "ddim_step", "towards more noise",
         lambda: N.ddim_step(_sched(), _x_sched(), _x_sched(), 3, 5), ("next_level",)),
    Case("nn.152", "ddim_step", "x0_hat shape mismatch",
         lambda: N.ddim_step(_sched(), _x_sched(), torch.zeros(2, 3), 5, 3), ("x0_hat",)),
    Case("nn.153", "ddim_step", "eta negative", lambda: N.ddim_step(_sched(), _x_sched(), _x_sched(), 5, 3, eta=-1.0),
         ("eta",)),
    Case("nn.154", "ddim_step", "level beyond K", lambda: N.ddim_step(_sched(), _x_sched(), _x_sched(), 50, 3),
         ("level",)),
    Case("nn.155", "sample_noise_levels", "mode bogus",
         lambda: N.sample_noise_levels((2, 3), 10, mode="random"), ("mode",)),
    Case("nn.156", "sample_noise_levels", "low > high",
         lambda: N.sample_noise_levels((2, 3), 10, low=5, high=2), ("low", "high")),
    Case("nn.157", "sample_noise_levels", "negative shape", lambda: N.sample_noise_levels((2, -3), 10), ("shape",)),
    Case("nn.158", "ddim_levels", "steps > K", lambda: N.ddim_levels(10, steps=20), ("steps",)),
    Case("nn.159", "ddim_levels", "K 0", lambda: N.ddim_levels(0), ("K",)),
    Case("nn.160", "DiffusersFlowSDE", "scheduler a string", lambda: N.DiffusersFlowSDE("sched"), ("scheduler",)),
]
