"""Bad-input sweep cases for iclr26sci.adaptation (format: tests/bad_input_sweep.py).

Fixtures are tiny: a 6 -> 8 -> 8 -> 3 MLP (with and without BatchNorm), its SourceStats on 64 random rows,
and a 4-image 8x8 grey stream with an identity corruption.
"""
import functools

import numpy as np
import torch
import torch.nn as nn

from bad_input_sweep import Case
from iclr26sci.adaptation import CorruptedStream, PEAAdapter, SourceStats, baselines, compare, coral_align, mv_align

nan, inf = float("nan"), float("inf")


@functools.lru_cache(maxsize=None)
def _net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3)).eval()


@functools.lru_cache(maxsize=None)
def _bn_net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3)).eval()


@functools.lru_cache(maxsize=None)
def _stats():
    net = _net()
    return SourceStats(modules=[net[1], net[3]], group_size=4).fit(net, torch.randn(64, 6))


@functools.lru_cache(maxsize=None)
def _bn_stats():
    net = _bn_net()
    return SourceStats(modules=[net[2]], group_size=None).fit(net, torch.randn(64, 6))


def _x(n=8, d=6):
    return torch.randn(n, d)


def _y(n=8, k=3):
    return torch.arange(n) % k


def _ident(x, c, s, rng):
    return x


def _imgs(n=4):
    return np.random.default_rng(0).random((n, 1, 8, 8)).astype(np.float32), np.arange(n) % 2


def _coral(**kw):
    base = dict(X=np.zeros((5, 4)), target_mean=np.zeros(4), target_cov=np.eye(4), source_mean=np.zeros(4),
                source_cov=np.eye(4))
    base.update(kw)
    X = base.pop("X")
    return coral_align(X, base.pop("target_mean"), base.pop("target_cov"), base.pop("source_mean"),
                       base.pop("source_cov"), **base)


def _mv(**kw):
    base = dict(X=np.zeros((5, 4)), target_mean=np.zeros(4), target_var=np.ones(4), source_mean=np.zeros(4),
                source_var=np.ones(4))
    base.update(kw)
    X = base.pop("X")
    return mv_align(X, base.pop("target_mean"), base.pop("target_var"), base.pop("source_mean"),
                    base.pop("source_var"), **base)


def _pea(**kw):
    return PEAAdapter(_net(), _stats(), views=("orig",), **kw)


def _cmp(stream=None, **kw):
    stream = [(_x(), _y())] if stream is None else stream
    kw.setdefault("methods", ["none"])
    kw.setdefault("progress", False)
    return compare(_net(), _stats(), stream, **kw)


_NOT_PSD = -np.eye(4)
_ASYM = np.array([[1.0, 0.5, 0, 0], [0.0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])

CASES = [
    # ---------------------------------------------------------------- coral_align
    Case("adaptation.001", "coral_align", "target_cov not PSD", lambda: _coral(target_cov=_NOT_PSD), ("target_cov",)),
    Case("adaptation.002", "coral_align", "source_cov not PSD", lambda: _coral(source_cov=_NOT_PSD), ("source_cov",)),
    Case("adaptation.003", "coral_align", "target_cov not symmetric", lambda: _coral(target_cov=_ASYM), ("target_cov",)),
    Case("adaptation.004", "coral_align", "source_cov not symmetric", lambda: _coral(source_cov=_ASYM), ("source_cov",)),
    Case("adaptation.005", "coral_align", "X 1-D", lambda: _coral(X=np.zeros(4)), ("X",)),
    Case("adaptation.006", "coral_align", "X NaN", lambda: _coral(X=np.full((5, 4), nan)), ("X",)),
    Case("adaptation.007", "coral_align", "X string", lambda: _coral(X="abc"), ("X",)),
    Case("adaptation.008", "coral_align", "X complex", lambda: _coral(X=np.zeros((5, 4), complex)), ("X",)),
    Case("adaptation.009", "coral_align", "X empty", lambda: _coral(X=np.zeros((0, 4))), ("X",)),
    Case("adaptation.010", "coral_align", "target_mean wrong length", lambda: _coral(target_mean=np.zeros(3)),
         ("target_mean",)),
    Case("adaptation.011", "coral_align", "source_mean inf", lambda: _coral(source_mean=np.full(4, inf)),
         ("source_mean",)),
    Case("adaptation.012", "coral_align", "source_cov wrong shape", lambda: _coral(source_cov=np.eye(3)),
         ("source_cov",)),
    Case("adaptation.013", "coral_align", "group_size not a divisor", lambda: _coral(group_size=3), ("group_size",)),
    Case("adaptation.014", "coral_align", "group_size 0", lambda: _coral(group_size=0), ("group_size",)),
    Case("adaptation.015", "coral_align", "group_size float", lambda: _coral(group_size=2.0), ("group_size",)),
    Case("adaptation.016", "coral_align", "eps negative", lambda: _coral(eps=-1.0), ("eps",)),
    Case("adaptation.017", "coral_align", "eps NaN", lambda: _coral(eps=nan), ("eps",)),
    Case("adaptation.018", "coral_align", "eps inf", lambda: _coral(eps=inf), ("eps",)),
    Case("adaptation.019", "coral_align", "X list of lists ragged", lambda: _coral(X=[[1.0, 2.0], [1.0]]), ("X",)),
    # ---------------------------------------------------------------- mv_align
    Case("adaptation.020", "mv_align", "target_var negative", lambda: _mv(target_var=-np.ones(4)), ("target_var",)),
    Case("adaptation.021", "mv_align", "source_var negative", lambda: _mv(source_var=-np.ones(4)), ("source_var",)),
    Case("adaptation.022", "mv_align", "target_var zero, eps 0", lambda: _mv(target_var=np.zeros(4), eps=0.0),
         ("target_var",)),
    Case("adaptation.023", "mv_align", "X NaN", lambda: _mv(X=np.full((5, 4), nan)), ("X",)),
    Case("adaptation.024", "mv_align", "X empty", lambda: _mv(X=np.zeros((0, 4))), ("X",)),
    Case("adaptation.025", "mv_align", "source_mean wrong length", lambda: _mv(source_mean=np.zeros(2)),
         ("source_mean",)),
    Case("adaptation.026", "mv_align", "eps NaN", lambda: _mv(eps=nan), ("eps",)),
    Case("adaptation.027", "mv_align", "eps string", lambda: _mv(eps="0"), ("eps",)),
    Case("adaptation.028", "mv_align", "X string", lambda: _mv(X="abc"), ("X",)),
    Case("adaptation.029", "mv_align", "target_var 2-D", lambda: _mv(target_var=np.ones((4, 1))), ("target_var",)),
    # ---------------------------------------------------------------- SourceStats
    Case("adaptation.030", "SourceStats.fit", "wrong feature count",
         lambda: SourceStats(modules=[_net()[1]]).fit(_net(), torch.randn(8, 5)), ("data",)),
    Case("adaptation.031", "SourceStats.fit", "image batch for an MLP",
         lambda: SourceStats(modules=[_net()[1]]).fit(_net(), torch.randn(8, 1, 6, 6)), ("data",)),
    Case("adaptation.032", "SourceStats.fit", "data NaN",
         lambda: SourceStats(modules=[_net()[1]]).fit(_net(), torch.full((8, 6), nan)), ("data",)),
    Case("adaptation.033", "SourceStats.fit", "data empty",
         lambda: SourceStats(modules=[_net()[1]]).fit(_net(), torch.zeros(0, 6)), ("data",)),
    Case("adaptation.034", "SourceStats.fit", "data a number", lambda: SourceStats(modules=[_net()[1]]).fit(_net(), 42),
         ("data",)),
    Case("adaptation.035", "SourceStats.fit", "model a string",
         lambda: SourceStats(modules=[_net()[1]]).fit("model", torch.randn(8, 6)), ("model",)),
    Case("adaptation.036", "SourceStats.fit", "module of another model",
         lambda: SourceStats(modules=[nn.ReLU()]).fit(_net(), torch.randn(8, 6)), ("modules",)),
    Case("adaptation.037", "SourceStats.fit", "modules empty", lambda: SourceStats(modules=[]).fit(_net(), _x()),
         ("modules",)),
    Case("adaptation.038", "SourceStats.fit", "modules unknown name",
         lambda: SourceStats(modules=["nope"]).fit(_net(), _x()), ("modules",)),
    Case("adaptation.039", "SourceStats.fit", "group_size does not divide",
         lambda: SourceStats(modules=[_net()[1]], group_size=3).fit(_net(), _x()), ("group_size",)),
    Case("adaptation.040", "SourceStats.fit", "group_size negative",
         lambda: SourceStats(modules=[_net()[1]], group_size=-2).fit(_net(), _x()), ("group_size",)),
    Case("adaptation.041", "SourceStats.fit", "reg negative",
         lambda: SourceStats(modules=[_net()[1]], reg=-1).fit(_net(), _x()), ("reg",)),
    Case("adaptation.042", "SourceStats.fit", "reg NaN",
         lambda: SourceStats(modules=[_net()[1]], reg=nan).fit(_net(), _x()), ("reg",)),
    Case("adaptation.043", "SourceStats.fit", "covariance bogus",
         lambda: SourceStats(modules=[_net()[1]], covariance="x").fit(_net(), _x()), ("covariance",)),
    Case("adaptation.044", "SourceStats.fit", "batch_size 0",
         lambda: SourceStats(modules=[_net()[1]], batch_size=0).fit(_net(), _x()), ("batch_size",)),
    Case("adaptation.045", "SourceStats.fit", "n_samples 0",
         lambda: SourceStats(modules=[_net()[1]], n_samples=0).fit(_net(), _x()), ("n_samples",)),
    Case("adaptation.046", "SourceStats.fit", "one sample (covariance undefined)",
         lambda: SourceStats(modules=[_net()[1]]).fit(_net(), torch.randn(1, 6)), ("data",)),
    Case("adaptation.047", "SourceStats.fit", "data string array",
         lambda: SourceStats(modules=[_net()[1]]).fit(_net(), np.array([["a"] * 6] * 4)), ("data",)),
    Case("adaptation.048", "SourceStats.to_dict", "unfitted", lambda: SourceStats().to_dict(), ("SourceStats.to_dict",)),
    Case("adaptation.049", "SourceStats.summary", "unfitted", lambda: SourceStats().summary(), ("SourceStats.summary",)),
    Case("adaptation.050", "SourceStats.fit", "class form, bad params",
         lambda: SourceStats.fit(_net(), _x(), modules=[_net()[1]], reg="big"), ("reg",)),
    # ---------------------------------------------------------------- PEAAdapter
    Case("adaptation.051", "PEAAdapter", "stats of another model",
         lambda: PEAAdapter(nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3)),
                            _stats()), ("stats",)),
    Case("adaptation.052", "PEAAdapter", "stats a string", lambda: PEAAdapter(_net(), "stats"), ("stats",)),
    Case("adaptation.053", "PEAAdapter", "model a string", lambda: PEAAdapter("net", _stats()), ("model",)),
    Case("adaptation.054", "PEAAdapter", "alignment bogus", lambda: _pea(alignment="procrustes"), ("alignment",)),
    Case("adaptation.055", "PEAAdapter", "momentum 0", lambda: _pea(momentum=0.0), ("momentum",)),
    Case("adaptation.056", "PEAAdapter", "momentum > 1", lambda: _pea(momentum=1.5), ("momentum",)),
    Case("adaptation.057", "PEAAdapter", "alpha NaN", lambda: _pea(alpha=nan), ("alpha",)),
    Case("adaptation.058", "PEAAdapter", "gamma negative", lambda: _pea(gamma=-1.0), ("gamma",)),
    Case("adaptation.059", "PEAAdapter", "entropy_threshold negative", lambda: _pea(entropy_threshold=-1.0),
         ("entropy_threshold",)),
    Case("adaptation.060", "PEAAdapter", "crop_ratio 0", lambda: _pea(crop_ratio=0.0), ("crop_ratio",)),
    Case("adaptation.061", "PEAAdapter", "crop_ratio > 1", lambda: _pea(crop_ratio=1.5), ("crop_ratio",)),
    Case("adaptation.062", "PEAAdapter", "views unknown", lambda: PEAAdapter(_net(), _stats(), views=("orig", "rotate")),
         ("views",)),
    Case("adaptation.063", "PEAAdapter", "views empty", lambda: PEAAdapter(_net(), _stats(), views=()), ("views",)),
    Case("adaptation.064", "PEAAdapter", "views a string", lambda: PEAAdapter(_net(), _stats(), views="orig"),
         ("views",)),
    Case("adaptation.065", "PEAAdapter", "one_pass string", lambda: _pea(one_pass="yes"), ("one_pass",)),
    Case("adaptation.065b", "PEAAdapter", "microbatch_variants string", lambda: _pea(microbatch_variants="yes"),
         ("microbatch_variants",)),
    Case("adaptation.066", "PEAAdapter", "layer_weights bogus", lambda: _pea(layer_weights="max"), ("layer_weights",)),
    Case("adaptation.067", "PEAAdapter", "pass1_tokens bogus", lambda: _pea(pass1_tokens="some"), ("pass1_tokens",)),
    Case("adaptation.068", "PEAAdapter", "mv_threshold > 1", lambda: _pea(mv_threshold=2.0), ("mv_threshold",)),
    Case("adaptation.069", "PEAAdapter", "eps negative", lambda: _pea(eps=-1e-5), ("eps",)),
    Case("adaptation.070", "PEAAdapter", "reg inf", lambda: _pea(reg=inf), ("reg",)),
    Case("adaptation.071", "PEAAdapter", "group_size other than the stats'", lambda: _pea(group_size=8),
         ("group_size",)),
    Case("adaptation.072", "PEAAdapter", "unfitted stats", lambda: PEAAdapter(_net(), SourceStats()), ("stats",)),
    Case("adaptation.073", "PEAAdapter.predict", "wrong feature count", lambda: _pea().predict(torch.randn(4, 7)),
         ("X",)),
    Case("adaptation.074", "PEAAdapter.predict", "NaN batch", lambda: _pea().predict(torch.full((4, 6), nan)), ("X",)),
    Case("adaptation.075", "PEAAdapter.predict", "empty batch", lambda: _pea().predict(torch.zeros(0, 6)), ("X",)),
    Case("adaptation.076", "PEAAdapter.predict", "string", lambda: _pea().predict("x"), ("X",)),
    Case("adaptation.077", "PEAAdapter.predict", "crop view of non-images",
         lambda: PEAAdapter(_net(), _stats(), views=("orig", "crop")).predict(torch.randn(4, 6)), ("views",)),
    Case("adaptation.078", "PEAAdapter.predict_proba", "wrong feature count",
         lambda: _pea().predict_proba(torch.randn(4, 5)), ("X",)),
    Case("adaptation.079", "PEAAdapter.reset", "clear_history int", lambda: _pea().reset(clear_history=1),
         ("clear_history",)),
    Case("adaptation.080", "PEAAdapter.predict", "complex batch",
         lambda: _pea().predict(np.zeros((4, 6), complex)), ("X",)),
    # ---------------------------------------------------------------- CorruptedStream
    Case("adaptation.081", "CorruptedStream", "empty stream",
         lambda: CorruptedStream((_imgs()[0][:0], _imgs()[1][:0]), corrupt=_ident), ("data",)),
    Case("adaptation.082", "CorruptedStream", "images without labels", lambda: CorruptedStream(_imgs()[0],
                                                                                                corrupt=_ident),
         ("data",)),
    Case("adaptation.083", "CorruptedStream", "corrupt a string", lambda: CorruptedStream(_imgs(), corrupt="noise"),
         ("corrupt",)),
    Case("adaptation.084", "CorruptedStream", "unknown corruption", lambda: CorruptedStream(_imgs(),
                                                                                           corruptions=["gaussian"]),
         ("corruptions",)),
    Case("adaptation.085", "CorruptedStream", "backend bogus", lambda: CorruptedStream(_imgs(), backend="cifar10"),
         ("backend",)),
    Case("adaptation.086", "CorruptedStream", "images outside [0, 1]",
         lambda: CorruptedStream((_imgs()[0] + 2.0, _imgs()[1])), ("data",)),
    Case("adaptation.087", "CorruptedStream", "severity 6", lambda: CorruptedStream(_imgs(), severity=6,
                                                                                   corrupt=_ident), ("severity",)),
    Case("adaptation.088", "CorruptedStream", "severity negative",
         lambda: CorruptedStream(_imgs(), severity=[-1], corrupt=_ident), ("severity",)),
    Case("adaptation.089", "CorruptedStream", "order bogus", lambda: CorruptedStream(_imgs(), order="random",
                                                                                    corrupt=_ident), ("order",)),
    Case("adaptation.090", "CorruptedStream", "corruptions empty",
         lambda: CorruptedStream(_imgs(), corruptions=[], corrupt=_ident), ("corruptions",)),
    Case("adaptation.091", "CorruptedStream", "n_per_domain > n",
         lambda: CorruptedStream(_imgs(), n_per_domain=10, corrupt=_ident), ("n_per_domain",)),
    Case("adaptation.092", "CorruptedStream", "batch_size 0",
         lambda: CorruptedStream(_imgs(), batch_size=0, corrupt=_ident), ("batch_size",)),
    Case("adaptation.093", "CorruptedStream", "rng string", lambda: CorruptedStream(_imgs(), rng="x", corrupt=_ident),
         ("rng",)),
    Case("adaptation.094", "CorruptedStream", "labels negative",
         lambda: CorruptedStream((_imgs()[0], -np.ones(4, int)), corrupt=_ident), ("data",)),
    Case("adaptation.095", "CorruptedStream", "labels float",
         lambda: CorruptedStream((_imgs()[0], np.full(4, 0.5)), corrupt=_ident), ("data",)),
    Case("adaptation.096", "CorruptedStream", "labels length mismatch",
         lambda: CorruptedStream((_imgs()[0], np.zeros(3, int)), corrupt=_ident), ("data",)),
    Case("adaptation.097", "CorruptedStream", "NaN images", lambda: CorruptedStream(
        (np.full((4, 1, 8, 8), nan, np.float32), np.zeros(4, int)), corrupt=_ident), ("data",)),
    Case("adaptation.098", "CorruptedStream", "cache string", lambda: CorruptedStream(_imgs(), cache="yes",
                                                                                     corrupt=_ident), ("cache",)),
    # ---------------------------------------------------------------- compare
    Case("adaptation.099", "compare", "labels out of range",
         lambda: _cmp([(_x(), torch.full((8,), 7))]), ("stream",)),
    Case("adaptation.100", "compare", "negative labels", lambda: _cmp([(_x(), torch.full((8,), -1))]), ("stream",)),
    Case("adaptation.101", "compare", "float labels", lambda: _cmp([(_x(), torch.full((8,), 0.5))]), ("stream",)),
    Case("adaptation.102", "compare", "wrong feature count", lambda: _cmp([(torch.randn(8, 5), _y())]), ("stream",)),
    Case("adaptation.103", "compare", "unknown method", lambda: _cmp(methods=["sar"]), ("methods",)),
    Case("adaptation.104", "compare", "methods empty", lambda: _cmp(methods=[]), ("methods",)),
    Case("adaptation.105", "compare", "method twice", lambda: _cmp(methods=["none", "none"]), ("methods",)),
    Case("adaptation.106", "compare", "stream empty", lambda: _cmp([]), ("stream",)),
    Case("adaptation.107", "compare", "label count mismatch",
         lambda: _cmp([(_x(), torch.zeros(3, dtype=torch.long))]), ("stream",)),
    Case("adaptation.108", "compare", "stats a string", lambda: compare(_net(), "stats", [(_x(), _y())]), ("stats",)),
    Case("adaptation.109", "compare", "model a string", lambda: compare("net", _stats(), [(_x(), _y())]), ("model",)),
    Case("adaptation.110", "compare", "pea_kwargs a list", lambda: _cmp(methods=["pea"], pea_kwargs=[1]),
         ("pea_kwargs",)),
    Case("adaptation.111", "compare", "pea_kwargs unknown key", lambda: _cmp(methods=["pea"], pea_kwargs={"bogus": 1}),
         ("pea_kwargs",)),
    Case("adaptation.112", "compare", "n_bins 0", lambda: _cmp(n_bins=0), ("n_bins",)),
    Case("adaptation.113", "compare", "reset_each_domain string", lambda: _cmp(reset_each_domain="yes"),
         ("reset_each_domain",)),
    Case("adaptation.114", "compare", "progress string", lambda: _cmp(progress="no"), ("progress",)),
    Case("adaptation.115", "compare", "rng string", lambda: _cmp(methods=["none"], rng="x"), ("rng",)),
    Case("adaptation.116", "compare", "stats of another model",
         lambda: compare(_bn_net(), _stats(), [(_x(), _y())], methods=["none"], progress=False), ("stats",)),
    Case("adaptation.117", "compare", "NaN inputs", lambda: _cmp([(torch.full((8, 6), nan), _y())]), ("stream",)),
    Case("adaptation.118", "compare", "stream of strings", lambda: _cmp(["ab", "cd"]), ("stream",)),
    # ---------------------------------------------------------------- baselines
    Case("adaptation.119", "baselines.ece", "probabilities > 1",
         lambda: baselines.ece(np.full((2, 2), 5.0), np.array([0, 1])), ("probs",)),
    Case("adaptation.120", "baselines.ece", "labels out of range",
         lambda: baselines.ece(np.array([[0.9, 0.1], [0.2, 0.8]]), np.array([0, 7])), ("labels",)),
    Case("adaptation.121", "baselines.ece", "length mismatch",
         lambda: baselines.ece(np.array([[0.9, 0.1], [0.2, 0.8]]), np.array([0])), ("labels",)),
    Case("adaptation.122", "baselines.ece", "n_bins 0", lambda: baselines.ece(np.array([[0.9, 0.1]]), np.array([0]), 0),
         ("n_bins",)),
    Case("adaptation.123", "baselines.ece", "NaN probabilities",
         lambda: baselines.ece(np.array([[nan, 0.1]]), np.array([0])), ("probs",)),
    Case("adaptation.124", "baselines.ece", "empty", lambda: baselines.ece(np.zeros((0, 2)), np.zeros(0, int)),
         ("probs",)),
    Case("adaptation.125", "baselines.NoAdapt", "model a string", lambda: baselines.NoAdapt("net"), ("model",)),
    Case("adaptation.126", "baselines.NoAdapt.predict", "wrong feature count",
         lambda: baselines.NoAdapt(_net()).predict(torch.randn(4, 5)), ("x",)),
    Case("adaptation.127", "baselines.BNAdapt", "model a string", lambda: baselines.BNAdapt(3), ("model",)),
    Case("adaptation.128", "baselines.BNAdapt.predict", "NaN batch",
         lambda: baselines.BNAdapt(_bn_net()).predict(torch.full((4, 6), nan)), ("x",)),
    Case("adaptation.129", "baselines.Tent", "lr negative", lambda: baselines.Tent(_bn_net(), lr=-1.0), ("lr",)),
    Case("adaptation.130", "baselines.Tent", "momentum 1.5", lambda: baselines.Tent(_bn_net(), momentum=1.5),
         ("momentum",)),
    Case("adaptation.131", "baselines.Tent", "model without norm layers", lambda: baselines.Tent(_net()), ("model",)),
    Case("adaptation.132", "baselines.Tent.predict", "wrong feature count",
         lambda: baselines.Tent(_bn_net()).predict(torch.randn(4, 9)), ("x",)),
    Case("adaptation.133", "baselines.T3A", "filter_K negative", lambda: baselines.T3A(_net(), filter_K=-1),
         ("filter_K",)),
    Case("adaptation.134", "baselines.T3A", "filter_K float", lambda: baselines.T3A(_net(), filter_K=2.5),
         ("filter_K",)),
    Case("adaptation.135", "baselines.T3A.predict", "empty batch",
         lambda: baselines.T3A(_net()).predict(torch.zeros(0, 6)), ("x",)),
    Case("adaptation.136", "baselines.LAME", "knn 0", lambda: baselines.LAME(_net(), knn=0), ("knn",)),
    Case("adaptation.137", "baselines.LAME", "max_iter 0", lambda: baselines.LAME(_net(), max_iter=0), ("max_iter",)),
    Case("adaptation.138", "baselines.LAME.predict", "string", lambda: baselines.LAME(_net()).predict("x"), ("x",)),
    Case("adaptation.139", "baselines.NEO", "stats a string", lambda: baselines.NEO(_net(), "stats"), ("stats",)),
    Case("adaptation.140", "baselines.NEO", "stats of another model", lambda: baselines.NEO(_bn_net(), _stats()),
         ("stats",)),
    Case("adaptation.141", "baselines.NEO.predict", "wrong feature count",
         lambda: baselines.NEO(_net(), _stats()).predict(torch.randn(4, 5)), ("x",)),
    Case("adaptation.142", "baselines.FOALite", "model without token blocks",
         lambda: baselines.FOALite(_net(), _stats()), ("model",)),
    Case("adaptation.143", "baselines.FOALite", "stats a string", lambda: baselines.FOALite(_net(), "stats"),
         ("stats",)),
    Case("adaptation.144", "baselines.FOALite", "n_prompts 0", lambda: baselines.FOALite(_net(), _stats(), n_prompts=0),
         ("n_prompts",)),
    Case("adaptation.145", "baselines.FOALite", "sigma0 negative",
         lambda: baselines.FOALite(_net(), _stats(), sigma0=-0.1), ("sigma0",)),
    Case("adaptation.146", "baselines.FOALite", "rng string", lambda: baselines.FOALite(_net(), _stats(), rng="x"),
         ("rng",)),
]
