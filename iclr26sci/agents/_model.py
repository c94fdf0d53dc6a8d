"""Agentic Predictor: multi-view workflow encoder, task encoder, predictor head, pretraining and graph baselines."""
from __future__ import annotations

import time

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import (InputError, as_generator, check_bool, check_in_range, check_is_fitted, check_option,
                            check_positive_int, progress, resolve_rng)

from ._bench import PairSet
from ._checks import check_device, check_device_name
from ._workflow import Workflow, hash_embed

__all__ = ["MultiViewWorkflowEncoder", "AgenticPredictor", "pretrain", "PretrainedEncoder", "GraphBaseline"]

VIEWS = ("graph", "code", "prompt")


# ------------------------------------------------------------------------------------------ featurisation
#: MiniLM embeddings of texts seen in this process, keyed by a content hash of the text (bounded, oldest dropped)
_TEXT_CACHE: dict = {}
_TEXT_CACHE_MAX = 50_000   # 50k x 384 float32 = 77 MB at most


def _text_key(text: str) -> bytes:
    import hashlib

    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _embed(texts, text_encoder, dim):
    """Rows of text embeddings. MiniLM embeddings are cached by content hash for the life of the process, so a
    fresh workflow whose prompts, code and tasks were seen before costs no transformer pass (the cold path)."""
    texts = list(texts)
    if text_encoder == "hash":
        return hash_embed(texts, dim)
    from iclr26sci.nn import embed_texts

    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    keys = [_text_key(t) for t in texts]
    rows = {k: _TEXT_CACHE[k] for k in keys if k in _TEXT_CACHE}
    todo = {}
    for k, t in zip(keys, texts):
        if k not in rows and k not in todo:
            todo[k] = t
    if todo:
        for k, row in zip(todo, embed_texts(list(todo.values()))):
            rows[k] = row
            if len(_TEXT_CACHE) >= _TEXT_CACHE_MAX:
                _TEXT_CACHE.pop(next(iter(_TEXT_CACHE)))   # dicts keep insertion order: drop the oldest
            _TEXT_CACHE[k] = row
    return np.stack([rows[k] for k in keys])


def _features(workflows, text_encoder, dim):
    """PyG Data per workflow (cached on the workflow): node views P, O, K, edges, workflow views t_W, k_W."""
    import torch
    from torch_geometric.data import Data

    key = (text_encoder, dim)
    todo = [w for w in workflows if key not in w._cache]
    if todo:
        texts = sorted({s for w in todo for s in
                        [*w.prompts, *w.calls, w.code, w.full_prompt, *(w.operator_code(v) for v in range(w.n_nodes))]})
        E = _embed(texts, text_encoder, dim)
        row = {s: i for i, s in enumerate(texts)}
        f = lambda ss: torch.as_tensor(E[[row[s] for s in ss]], dtype=torch.float32)  # noqa: E731
        for w in todo:
            w._cache[key] = Data(xp=f(w.prompts), xo=f([w.operator_code(v) for v in range(w.n_nodes)]),
                                 xk=f(w.calls), edge_index=torch.as_tensor(w.edges, dtype=torch.long),
                                 tw=f([w.full_prompt]), kw=f([w.code]), num_nodes=w.n_nodes)
    return [w._cache[key] for w in workflows]


def _batch(datas, device=None):
    from torch_geometric.data import Batch

    b = Batch.from_data_list(datas)
    return b if device is None or str(device) == "cpu" else b.to(device)


def _device(device):
    """The torch device named by ``device`` (None: the CPU); an InputError if torch cannot use it."""
    return check_device(device)


# ------------------------------------------------------------------------------------------ modules
def _mlp(dims, dropout, last_act=False):
    import torch.nn as nn

    layers = []
    for i in range(len(dims) - 1):
        layers.append(nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2 or last_act:
            layers += [nn.ReLU(), nn.Dropout(dropout)]
    return nn.Sequential(*layers)


def _build_modules():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch_geometric.nn import GATv2Conv, GCNConv, global_mean_pool

    class GraphStack(nn.Module):
        """L GATv2 layers (h/8 x 8 heads, concat), LayerNorm after each, ReLU+dropout between (not after last)."""

        def __init__(self, d_in, h, n_layers, dropout, conv, shared_norm):
            super().__init__()
            self.convs = nn.ModuleList()
            for i in range(n_layers):
                a = d_in if i == 0 else h
                self.convs.append(GATv2Conv(a, h // 8, heads=8) if conv == "gatv2" else GCNConv(a, h))
            self.attn = conv == "gatv2"
            n_norm = 1 if shared_norm else n_layers
            self.norms = nn.ModuleList(nn.LayerNorm(h) for _ in range(n_norm)) if self.attn else None
            self.dropout = dropout

        def forward(self, x, ei):
            for i, c in enumerate(self.convs):
                x = c(x, ei)
                if self.attn:
                    x = self.norms[min(i, len(self.norms) - 1)](x)
                if i < len(self.convs) - 1:
                    x = F.dropout(F.relu(x), self.dropout, self.training)
            return x

    class Encoder(nn.Module):
        def __init__(self, d_text, d_code, h, n_layers, n_mlp, dropout, views, faithful, conv):
            super().__init__()
            self.views, self.faithful = views, faithful
            self.gnn_prompt = GraphStack(d_text, h, n_layers, dropout, conv, faithful)
            self.gnn_code = GraphStack(d_code, h, n_layers, dropout, conv, faithful)   # shared by O and K graphs
            self.cross = nn.MultiheadAttention(h, 8, batch_first=True)
            self.cross_norm = nn.LayerNorm(h)
            self.pool = nn.Sequential(nn.Linear(h, 64), nn.Tanh(), nn.Linear(64, 1))
            if not faithful:
                self.code_mlp = _mlp([d_code] + [h] * (n_mlp + 1), dropout)
                self.prompt_mlp = _mlp([d_text] + [h] * (n_mlp + 1), dropout)
            d_in = (h if "graph" in views else 0) + (("code" in views) * (d_code if faithful else h)) \
                + (("prompt" in views) * (d_text if faithful else h))
            self.project = _mlp([d_in, h, h, h], dropout)
            self.h = h

        def graph_view(self, b, drop=None):
            xp, xo, xk, ei = b.xp, b.xo, b.xk, b.edge_index
            if drop is not None:            # pretraining augmentation: node-feature and edge dropout
                pf, pe, g = drop
                keep = lambda x: x * (torch.rand(x.shape, generator=g) >= pf).to(x.device) / (1 - pf)  # noqa: E731
                xp, xo, xk = keep(xp), keep(xo), keep(xk)
                ei = ei[:, (torch.rand(ei.shape[1], generator=g) >= pe).to(ei.device)]
            X = torch.stack([self.gnn_prompt(xp, ei), self.gnn_code(xo, ei), self.gnn_code(xk, ei)], 1)
            X = self.cross_norm(self.cross(X, X, X, need_weights=False)[0] + X)      # CrossGraphAttn
            beta = torch.softmax(self.pool(X).squeeze(-1), 1)                        # ViewAttnPool
            z = (beta.unsqueeze(-1) * X).sum(1)
            return F.normalize(global_mean_pool(z, b.batch, size=b.num_graphs), dim=-1)

        def forward(self, b, drop=None):
            parts = []
            if "graph" in self.views:
                parts.append(self.graph_view(b, drop))
            if "code" in self.views:
                parts.append(b.kw if self.faithful else F.normalize(self.code_mlp(b.kw), dim=-1))
            if "prompt" in self.views:
                parts.append(b.tw if self.faithful else F.normalize(self.prompt_mlp(b.tw), dim=-1))
            return self.project(torch.cat(parts, -1))

    class Baseline(nn.Module):
        """FLORA-style graph baseline: GNN over node prompt embeddings, mean pool, score = <z_G, z_T>."""

        def __init__(self, kind, d_text, h, n_layers, dropout):
            super().__init__()
            from torch_geometric.nn import GATConv, GCN2Conv, TransformerConv

            self.kind, self.dropout = kind, dropout
            self.inp = nn.Linear(d_text, h)
            mk = {"gcn": lambda: GCNConv(h, h), "gat": lambda: GATConv(h, h // 8, heads=8),
                  "gcn2": lambda: GCN2Conv(h, alpha=0.1), "transformer": lambda: TransformerConv(h, h // 8, heads=8,
                                                                                               beta=True)}
            self.convs = nn.ModuleList(mk[kind]() for _ in range(n_layers)) if kind != "mlp" else nn.ModuleList()
            self.task = _mlp([d_text, h, h], dropout)

        def encode(self, b):
            x = x0 = F.relu(self.inp(b.xp))
            for i, c in enumerate(self.convs):
                x = c(x, x0, b.edge_index) if self.kind == "gcn2" else c(x, b.edge_index)
                if i < len(self.convs) - 1:
                    x = F.dropout(F.relu(x), self.dropout, self.training)
            return global_mean_pool(x, b.batch, size=b.num_graphs)

    return GraphStack, Encoder, Baseline


_MODS = None


def _mods():
    global _MODS
    if _MODS is None:
        _MODS = _build_modules()
    return _MODS


# ------------------------------------------------------------------------------------------ encoder
class MultiViewWorkflowEncoder(BaseEstimator):
    r"""Configuration of the multi-view workflow encoder (builds the torch module with :meth:`build`).

    Graph views: :math:`H^P = \mathrm{GNN}_P(P, E)`, :math:`H^O = \mathrm{GNN}_C(O, E)`,
    :math:`H^K = \mathrm{GNN}_C(K, E)` (GATv2 stacks; the code stack is shared by the operator-code and
    invocation-code graphs); CrossGraphAttn :math:`X'_v = \mathrm{LN}(\mathrm{MHA}(X_v, X_v, X_v) + X_v)` over the
    3 views of each node; ViewAttnPool :math:`z_v = \sum_j \mathrm{softmax}_j(w_2^\top\tanh(W_1 X'_{v,j}))X'_{v,j}`;
    readout :math:`z_G = \mathrm{normalize}(\mathrm{mean}_v z_v)`; code and prompt MLP views
    :math:`z_C, z_P` (L2-normalised); aggregation :math:`z_W = \mathrm{MLP}([z_G; z_C; z_P])`.

    Parameters
    ----------
    hidden : int
        Width h (released default 512; a multiple of 8).
    n_layers : int
        GNN layers per graph stack (released 3).
    n_mlplayers : int
        Extra h->h layers of the code/prompt MLP views (released 2).
    dropout : float
        Dropout between layers (released 0.5).
    views : tuple of str
        Which workflow views feed the aggregation: subset of ``("graph", "code", "prompt")`` (view ablation,
        Table 4).
    faithful_to_release : bool
        ``False`` (default): the paper/poster version, code and prompt views through MLPs. ``True``: the released
        code's behaviour, where the ``if/elif`` chain skips those MLPs and the raw ``k_W``, ``t_W`` are
        concatenated, and one LayerNorm is shared by all attention-GNN layers of a stack.
    conv : {"gatv2", "gcn"}
        Base convolution (released default GATv2).
    text_encoder : {"minilm", "hash"}
        Text/code featuriser: packaged all-MiniLM-L6-v2 (the paper's text encoder) or :func:`hash_embed`
        (fast, offline; the paper's CodeRankEmbed code encoder is not available offline, so code is embedded
        with the same featuriser).
    dim : int
        Feature dimension for ``text_encoder="hash"`` (MiniLM is 384).

    References
    ----------
    Trirat, Jeong and Hwang, arXiv:2505.19764 (ICLR 2026); code DeepAuto-AI/agentic-predictor.

    Examples
    --------
    >>> from iclr26sci.agents import MultiViewWorkflowEncoder, synthetic_workflow_bench
    >>> bench = synthetic_workflow_bench(n_workflows=4, n_tasks=2, rng=0)
    >>> enc = MultiViewWorkflowEncoder(hidden=16, text_encoder="hash", dim=32)
    >>> tuple(enc.encode(bench.unlabeled[:3]).shape)
    (3, 16)
    """

    def __init__(self, hidden=512, n_layers=3, n_mlplayers=2, dropout=0.5, views=VIEWS, faithful_to_release=False,
                 conv="gatv2", text_encoder="minilm", dim=384):
        self.hidden = hidden
        self.n_layers = n_layers
        self.n_mlplayers = n_mlplayers
        self.dropout = dropout
        self.views = views
        self.faithful_to_release = faithful_to_release
        self.conv = conv
        self.text_encoder = text_encoder
        self.dim = dim
        self._validate()

    def _validate(self):
        h = check_positive_int(self.hidden, "hidden", minimum=8)
        if h % 8:
            raise InputError("hidden", f"got {h}", "a multiple of 8 (8 attention heads)")
        check_positive_int(self.n_layers, "n_layers")
        check_positive_int(self.n_mlplayers, "n_mlplayers")
        check_in_range(self.dropout, "dropout", 0.0, 1.0, high_open=True)
        v = tuple(self.views) if isinstance(self.views, (tuple, list)) else None
        if not v or len(set(v)) != len(v) or not set(v) <= set(VIEWS):
            raise InputError("views", f"got {self.views!r}", f"a non-empty subset of {VIEWS}")
        check_bool(self.faithful_to_release, "faithful_to_release")
        check_option(self.conv, "conv", ["gatv2", "gcn"])
        check_option(self.text_encoder, "text_encoder", ["minilm", "hash"])
        check_positive_int(self.dim, "dim")
        return v

    @property
    def feature_dim(self) -> int:
        return 384 if self.text_encoder == "minilm" else int(self.dim)

    def build(self):
        """The torch module (``forward(batch) -> z_W``)."""
        v = self._validate()
        d = self.feature_dim
        m = _mods()[1](d, d, int(self.hidden), int(self.n_layers), int(self.n_mlplayers), float(self.dropout), v,
                       bool(self.faithful_to_release), self.conv)
        m._iclr26sci_config = self._signature()
        return m

    def _signature(self):
        """What a built module's parameter shapes depend on (checked before torch sees a module and a batch)."""
        return (self.feature_dim, int(self.hidden), int(self.n_layers), int(self.n_mlplayers),
                tuple(self.views), bool(self.faithful_to_release), self.conv)

    def features(self, workflows):
        """Per-workflow PyG ``Data`` with all views (cached on each workflow)."""
        self._validate()
        _check_workflows(workflows, "workflows")
        return _features(list(workflows), self.text_encoder, self.feature_dim)

    def encode(self, workflows, module=None):
        """Embeddings :math:`z_W` of ``workflows`` (eval mode) with ``module`` (a fresh one when None)."""
        import torch

        self._validate()
        workflows = _check_workflows(workflows, "workflows")
        if module is not None:
            sig = getattr(module, "_iclr26sci_config", None)
            if sig is None:
                raise InputError("module", f"got {type(module).__name__}", "a module returned by this encoder's build()")
            if sig != self._signature():
                raise InputError("module", f"was built for (feature_dim, hidden, n_layers, n_mlplayers, views, "
                                 f"faithful, conv) = {sig}", f"a module built by this configuration, {self._signature()}")
        m = module if module is not None else self.build()
        m.eval()
        dev = next(m.parameters()).device
        with torch.no_grad():
            return m(_batch(self.features(workflows), dev)).cpu()


def _check_workflows(workflows, name):
    if isinstance(workflows, Workflow):
        workflows = [workflows]
    if not isinstance(workflows, (list, tuple)) or not workflows:
        raise InputError(name, f"got {type(workflows).__name__}", "a non-empty list of Workflow")
    for i, w in enumerate(workflows):
        if not isinstance(w, Workflow):
            raise InputError(name, f"item {i} is {type(w).__name__}", "Workflow objects")
    return list(workflows)


def _as_pairs(X, y, name="pairs", require_y=False):
    """PairSet from a PairSet, or from (workflows, tasks) per pair plus labels."""
    if isinstance(X, PairSet):
        if y is not None:
            raise InputError("y", "labels given with a PairSet", "y=None (the PairSet holds the labels)")
        return X
    if not (isinstance(X, tuple) and len(X) == 2):
        raise InputError(name, f"got {type(X).__name__}", "a PairSet or a (workflows, tasks) tuple, one per pair")
    ws, ts = X
    ws = _check_workflows(ws, "workflows")
    if ts is None or isinstance(ts, (bytes, dict)) or not (isinstance(ts, str) or hasattr(ts, "__iter__")):
        raise InputError("tasks", f"got {type(ts).__name__}", "a task string or one task string per workflow")
    ts = [ts] if isinstance(ts, str) else list(ts)
    if not all(isinstance(t, str) for t in ts):
        raise InputError("tasks", "a task is not a string", "task texts")
    if len(ts) == 1 and len(ws) > 1:
        ts = ts * len(ws)
    if len(ts) != len(ws):
        raise InputError("tasks", f"{len(ts)} tasks for {len(ws)} workflows", "one task per workflow (per pair)")
    if y is None:
        if require_y:
            raise InputError("y", "is missing for (workflows, tasks) pairs", "one 0/1 label per pair")
        y = np.zeros(len(ws))
    y = np.asarray(y, dtype=float).ravel()
    if len(y) != len(ws):
        raise InputError("y", f"{len(y)} labels for {len(ws)} workflows", "one label per pair")
    uw = list({id(w): w for w in ws}.values())
    pos = {id(w): i for i, w in enumerate(uw)}
    ut = sorted(set(ts), key=ts.index) if all(isinstance(t, str) for t in ts) else ts
    tpos = {t: i for i, t in enumerate(ut)} if all(isinstance(t, str) for t in ts) else {}
    if not tpos:
        raise InputError("tasks", "a task is not a string", "task texts")
    return PairSet(uw, ut, [pos[id(w)] for w in ws], [tpos[t] for t in ts], y)


def _split_by_workflow(pairs, fraction, gen):
    """Hold out ``fraction`` of the workflows of ``pairs`` (stratified by each workflow's set of task domains) with
    all their pairs; returns ``(rest, held_out)``."""
    ws = np.unique(pairs.w_idx)
    key = {int(w): tuple(sorted(set(pairs.domain[pairs.w_idx == w].tolist()))) for w in ws}
    held = []
    for k in sorted(set(key.values())):
        grp = np.array([w for w in ws if key[int(w)] == k])
        if len(grp) >= 2:
            held += gen.permutation(grp)[:max(1, int(round(fraction * len(grp))))].tolist()
    if not held:
        raise InputError("calibration", f"the training pairs hold {len(ws)} workflow(s) and no domain has two",
                         "at least two training workflows of one domain for the held-out calibration split")
    m = np.isin(pairs.w_idx, held)
    return pairs.subset(~m), pairs.subset(m)


def _fit_temperature(z, y):
    """argmin_T mean BCE(sigmoid(z / T), y) over log T in [-4, 4] (bounded scalar minimisation)."""
    from scipy.optimize import minimize_scalar

    z, s = np.asarray(z, float), 2.0 * np.asarray(y, float) - 1.0
    nll = lambda lt: float(np.mean(np.logaddexp(0.0, -s * z * np.exp(-lt))))  # noqa: E731
    return float(np.exp(minimize_scalar(nll, bounds=(-4.0, 4.0), method="bounded", options={"xatol": 1e-4}).x))


# ------------------------------------------------------------------------------------------ estimators
class _PairModel(BaseEstimator):
    """Shared training loop: BCE, Adam, mini-batches of pairs, optional best-validation-accuracy checkpoint."""

    def _check_params(self):
        """Every hyper-parameter, checked in the constructor and again at fit (before any work)."""
        self._setup()
        check_positive_int(self.epochs, "epochs")
        check_positive_int(self.batch_size, "batch_size")
        check_in_range(self.lr, "lr", 0.0, None, low_open=True)
        check_in_range(self.weight_decay, "weight_decay", 0.0, None)
        calibration = getattr(self, "calibration", None)
        check_option("none" if calibration is None else calibration, "calibration", ["none", "temperature"])
        check_in_range(getattr(self, "calibration_fraction", 0.2), "calibration_fraction", 0.0, 1.0,
                       low_open=True, high_open=True)
        check_device_name(self.device, "device")
        resolve_rng(self.rng, self.random_state)

    def _fit_loop(self, model, score, pairs, validation, gen):
        import torch

        epochs = check_positive_int(self.epochs, "epochs")
        bs = check_positive_int(self.batch_size, "batch_size")
        lr = check_in_range(self.lr, "lr", 0.0, None, low_open=True)
        wd = check_in_range(self.weight_decay, "weight_decay", 0.0, None)
        tg = torch.Generator().manual_seed(int(gen.integers(2 ** 62)))
        torch.manual_seed(int(gen.integers(2 ** 62)))
        opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=wd)
        feats = self._encoder_cfg.features(pairs.workflows)
        temb = self._task_features(pairs.tasks)
        y = torch.as_tensor(pairs.y, dtype=torch.float32, device=self._device)
        best, best_state, t0 = -1.0, None, time.perf_counter()
        for _ in progress(range(epochs), desc=type(self).__name__):
            model.train()
            order = torch.randperm(len(pairs), generator=tg).numpy()
            for s in range(0, len(order), bs):
                idx = order[s:s + bs]
                loss = torch.nn.functional.binary_cross_entropy_with_logits(
                    score(model, feats, temb, pairs.w_idx[idx], pairs.t_idx[idx]), y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
            if validation is not None:
                acc = float(np.mean((self._proba(model, validation) > 0.5) == (validation.y > 0.5)))
                if acc > best:
                    best, best_state = acc, {k: v.detach().clone() for k, v in model.state_dict().items()}
        if best_state is not None:
            model.load_state_dict(best_state)
        self.train_seconds_ = time.perf_counter() - t0
        self.best_val_accuracy_ = best if validation is not None else None
        model.eval()

    def _task_features(self, tasks):
        import torch

        return torch.as_tensor(_embed(list(tasks), self._encoder_cfg.text_encoder, self._encoder_cfg.feature_dim),
                               dtype=torch.float32, device=getattr(self, "_device", None))

    def _logits(self, model, pairs):
        import torch

        model.eval()
        with torch.no_grad():
            feats = self._encoder_cfg.features(pairs.workflows)
            temb = self._task_features(pairs.tasks)
            out = []
            for s in range(0, len(pairs), 8192):
                sl = slice(s, s + 8192)
                out.append(self._score(model, feats, temb, pairs.w_idx[sl], pairs.t_idx[sl]).cpu().numpy())
        return np.concatenate(out).astype(np.float64) if out else np.zeros(0)

    def _proba(self, model, pairs):
        z = self._logits(model, pairs) / getattr(self, "temperature_", 1.0)
        return 1.0 / (1.0 + np.exp(-z))

    def fit(self, pairs, y=None, *, label_ratio=1.0, validation=None):
        r"""Train with BCE on the first ``label_ratio`` fraction of ``pairs`` (released ``label_ratio``).

        With ``calibration="temperature"`` (an option, not in the release) a ``calibration_fraction`` of the
        training *workflows* (stratified by their task domains) is held out with all its pairs, the model is trained
        on the rest, and one temperature :math:`T` is fitted on the held-out pairs by minimising the BCE of
        :math:`\sigma(s/T)` over :math:`\log T \in [-4, 4]` (Guo et al., "On Calibration of Modern Neural
        Networks", ICML 2017). All later probabilities are :math:`\sigma(s/T)`; the ranking is unchanged. If
        ``validation`` is given it is used for the temperature instead (and still for checkpointing).

        Parameters
        ----------
        pairs : PairSet or (workflows, tasks)
            Training pairs; with a tuple, one workflow and one task text per pair and labels in ``y``.
        y : array-like, optional
            0/1 labels when ``pairs`` is a tuple.
        label_ratio : float in (0, 1]
            Fraction of the training pairs used (the first ones, as released).
        validation : PairSet, optional
            Held-out pairs; the epoch with the best validation accuracy is kept (released checkpointing).

        Returns
        -------
        self
        """
        self._check_params()
        label_ratio = check_in_range(label_ratio, "label_ratio", 0.0, 1.0, low_open=True)
        pairs = _as_pairs(pairs, y, require_y=True)
        if len(pairs) == 0:
            raise InputError("pairs", "holds no pairs", "at least one labelled workflow-task pair")
        if validation is not None and not isinstance(validation, PairSet):
            raise InputError("validation", f"got {type(validation).__name__}", "a PairSet or None")
        calibration = getattr(self, "calibration", None)
        check_option("none" if calibration is None else calibration, "calibration", ["none", "temperature"])
        frac = check_in_range(getattr(self, "calibration_fraction", 0.2), "calibration_fraction", 0.0, 1.0,
                              low_open=True, high_open=True)
        self._device = _device(self.device)
        pairs = pairs.head(label_ratio)
        gen = as_generator(resolve_rng(self.rng, self.random_state))
        self.temperature_ = 1.0
        cal = None
        if calibration == "temperature":
            cal = validation if validation is not None else None
            if cal is None:
                pairs, cal = _split_by_workflow(pairs, frac, gen)
        import torch

        torch.manual_seed(int(gen.integers(2 ** 62)))
        self.model_ = self._make_model().to(self._device)
        self._fit_loop(self.model_, self._score, pairs, validation, gen)
        if cal is not None:
            self.temperature_ = _fit_temperature(self._logits(self.model_, cal), cal.y)
        self.n_calibration_pairs_ = 0 if cal is None else len(cal)
        self.n_train_pairs_ = len(pairs)
        self.label_ratio_ = float(label_ratio)
        self.train_success_rate_ = float(pairs.y.mean())
        return self

    def __repr__(self):
        if not hasattr(self, "model_"):
            return f"{type(self).__name__}(unfitted)"
        return (f"{type(self).__name__}(pairs={self.n_train_pairs_}, parameters={self.n_parameters_:,}, "
                f"train={self.train_seconds_:.1f}s)")

    @property
    def n_parameters_(self) -> int:
        """Number of trainable parameters of the fitted model."""
        check_is_fitted(self, "model_", method="n_parameters_")
        return int(sum(p.numel() for p in self.model_.parameters() if p.requires_grad))

    def summary(self) -> str:
        """What was fitted: model, training pairs, label ratio, time, best validation accuracy."""
        check_is_fitted(self, "model_", method="summary")
        d = self.to_dict()
        val = "" if d["best_val_accuracy"] is None else f", best validation accuracy {d['best_val_accuracy']:.4f}"
        if d["n_calibration_pairs"]:
            val += f", temperature {d['temperature']:.3f} fitted on {d['n_calibration_pairs']} held-out pairs"
        return (f"{type(self).__name__}: {d['n_parameters']:,} parameters trained with BCE on {d['n_train_pairs']} "
                f"pairs (label_ratio {d['label_ratio']:g}, success rate {d['train_success_rate']:.3f}) in "
                f"{d['train_seconds']:.2f}s, {self.epochs} epochs on {d['device']}{val}")

    def to_dict(self) -> dict:
        """Hyper-parameters and fitted quantities (weights excluded)."""
        check_is_fitted(self, "model_", method="to_dict")
        params = {k: (v.get_params() if hasattr(v, "get_params") else repr(v) if k in ("encoder", "rng") else v)
                  for k, v in self.get_params(deep=False).items()}
        return {"estimator": type(self).__name__, "params": params, "n_parameters": self.n_parameters_,
                "n_train_pairs": self.n_train_pairs_, "label_ratio": self.label_ratio_,
                "train_success_rate": self.train_success_rate_, "train_seconds": self.train_seconds_,
                "best_val_accuracy": self.best_val_accuracy_, "device": str(self._device),
                "temperature": float(getattr(self, "temperature_", 1.0)),
                "n_calibration_pairs": int(getattr(self, "n_calibration_pairs_", 0))}

    def predict_proba(self, workflows, tasks=None):
        """P(success) per pair: ``predict_proba(pairs)`` or ``predict_proba(workflows, tasks)`` (one task per
        workflow, or one task for all).

        Returns
        -------
        numpy.ndarray of shape (n_pairs,)
        """
        check_is_fitted(self, "model_", method="predict_proba")
        pairs = workflows if isinstance(workflows, PairSet) and tasks is None else _as_pairs((workflows, tasks), None)
        return self._proba(self.model_, pairs)

    def select(self, candidates, tasks):
        r"""Predictor-guided selection: the candidate with the largest mean :math:`\hat y` over ``tasks``.

        Parameters
        ----------
        candidates : list of Workflow
            Candidate workflows (e.g. proposed by a workflow optimiser).
        tasks : str or list of str
            The target task(s).

        Returns
        -------
        int
            Index of the selected candidate (the scores are in ``last_selection_scores_``).
        """
        check_is_fitted(self, "model_", method="select")
        cands = _check_workflows(candidates, "candidates")
        ts = [tasks] if isinstance(tasks, str) else list(tasks) if isinstance(tasks, (list, tuple)) else None
        if not ts or not all(isinstance(t, str) and t.strip() for t in ts):
            raise InputError("tasks", "empty, or a task has no text", "a task string or a list of them")
        ws = [w for w in cands for _ in ts]
        p = self.predict_proba(ws, ts * len(cands)).reshape(len(cands), len(ts)).mean(1)
        self.last_selection_scores_ = p
        return int(np.argmax(p))


class AgenticPredictor(_PairModel):
    r"""Agentic Predictor :math:`M_\Theta(W, T) = \sigma(\mathrm{MLP}([z_W; z_T]))`, trained with BCE.

    :math:`z_W` is the :class:`MultiViewWorkflowEncoder` embedding; the task encoder is
    :math:`z_T = \mathrm{normalize}(\mathrm{MLP}(q))` (``Linear(d->h)``, 2 x ``Linear(h->h)``) of the task text
    embedding :math:`q`; the head is ``Linear(2h->h)``, (n_mlplayers-1) x ``Linear(h->h)``, ``Linear(h->1)``.
    Training: Adam (lr 1e-4, weight decay 5e-4), batches of 512, 200 epochs, as released.

    Parameters
    ----------
    encoder : MultiViewWorkflowEncoder or PretrainedEncoder, optional
        Encoder configuration; a :class:`PretrainedEncoder` (from :func:`pretrain`) also initialises its weights.
        Default: ``MultiViewWorkflowEncoder(hidden=hidden)``.
    hidden : int
        Width of the task encoder and head (and of the default encoder).
    n_mlplayers : int
        Head depth parameter (released 2).
    dropout : float
        Dropout of the task encoder and head.
    epochs, batch_size, lr, weight_decay
        BCE training (released 200, 512, 1e-4, 5e-4).
    rng : seed or numpy.random.Generator, optional
        Initialisation and batch order.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.
    device : str or torch.device, optional
        Where the model is trained and evaluated (default the CPU; e.g. ``"cuda"``). Features are built on the
        CPU and moved per batch.
    calibration : {None, "temperature"}
        ``"temperature"``: post-hoc temperature scaling on held-out training workflows (see :meth:`fit`); an
        option for calibrated probabilities on unseen workflows (not in the release; the BCE fit alone is
        over-confident there, docs/agents.md).
    calibration_fraction : float in (0, 1)
        Fraction of the training workflows held out for the temperature.

    Examples
    --------
    >>> from iclr26sci.agents import AgenticPredictor, MultiViewWorkflowEncoder, synthetic_workflow_bench, accuracy
    >>> bench = synthetic_workflow_bench(n_workflows=8, n_tasks=4, rng=0)
    >>> enc = MultiViewWorkflowEncoder(hidden=16, n_layers=1, text_encoder="hash", dim=32)
    >>> pred = AgenticPredictor(encoder=enc, hidden=16, epochs=2, lr=1e-3, rng=0).fit(bench.train)
    >>> 0.0 <= accuracy(pred, bench.test) <= 1.0
    True
    """

    def __init__(self, encoder=None, hidden=512, n_mlplayers=2, dropout=0.5, epochs=200, batch_size=512, lr=1e-4,
                 weight_decay=5e-4, rng=None, device=None, calibration=None, calibration_fraction=0.2,
                 random_state=None):
        self.encoder = encoder
        self.hidden = hidden
        self.n_mlplayers = n_mlplayers
        self.dropout = dropout
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.rng = rng
        self.random_state = random_state
        self.device = device
        self.calibration = calibration
        self.calibration_fraction = calibration_fraction
        self._check_params()

    def _setup(self):
        e = self.encoder
        if e is None:
            e = MultiViewWorkflowEncoder(hidden=self.hidden)
        if isinstance(e, PretrainedEncoder):
            self._init_state = e.state_dict_
            e = e.config
        elif not isinstance(e, MultiViewWorkflowEncoder):
            raise InputError("encoder", f"got {type(e).__name__}", "a MultiViewWorkflowEncoder, a PretrainedEncoder "
                             "or None")
        else:
            self._init_state = None
        e._validate()
        check_positive_int(self.hidden, "hidden")
        check_positive_int(self.n_mlplayers, "n_mlplayers")
        check_in_range(self.dropout, "dropout", 0.0, 1.0, high_open=True)
        self._encoder_cfg = e

    def _make_model(self):
        import torch.nn as nn

        h, he, d = int(self.hidden), int(self._encoder_cfg.hidden), self._encoder_cfg.feature_dim
        m = nn.Module()
        m.enc = self._encoder_cfg.build()
        if self._init_state is not None:
            try:
                m.enc.load_state_dict(self._init_state)
            except RuntimeError as exc:
                raise InputError("encoder", f"holds pretrained weights that do not fit its configuration "
                                 f"({str(exc).splitlines()[0][:120]})", "the PretrainedEncoder returned by pretrain()") \
                    from None
        m.task = _mlp([d, h, h, h], float(self.dropout))
        m.head = _mlp([he + h] + [h] * int(self.n_mlplayers) + [1], float(self.dropout))
        return m

    @staticmethod
    def _score(m, feats, temb, w, t):
        import torch
        import torch.nn.functional as F

        uw, inv = np.unique(w, return_inverse=True)
        dev = temb.device
        zw = m.enc(_batch([feats[i] for i in uw], dev))[torch.as_tensor(inv, device=dev)]
        zt = F.normalize(m.task(temb), dim=-1)[torch.as_tensor(t, device=dev)]
        return m.head(torch.cat([zw, zt], -1)).squeeze(-1)


class GraphBaseline(_PairModel):
    r"""Graph baselines of the paper (FLORA-Bench style): :math:`\hat y = \sigma(\langle z_G, z_T\rangle)`.

    :math:`z_G` = mean pool of a GNN over the node prompt embeddings (``kind``: ``"gcn"`` GCNConv, ``"gat"``
    GATConv 8 heads, ``"gcn2"`` GCN-II with alpha 0.1, ``"transformer"`` TransformerConv with a gated skip (beta);
    ``"mlp"``: no message passing, the mean of projected node prompts); :math:`z_T` = MLP of the task embedding.

    Parameters
    ----------
    kind : {"mlp", "gcn", "gat", "gcn2", "transformer"}
        The baseline.
    hidden : int
        Width (FLORA uses 512; multiple of 8).
    n_layers : int
        Message-passing layers (FLORA uses 2).
    dropout, epochs, batch_size, lr, weight_decay, rng, device, calibration, calibration_fraction, random_state
        As in :class:`AgenticPredictor`.
    text_encoder : {"minilm", "hash"}
        Featuriser of node prompts and tasks.
    dim : int
        Feature dimension for ``"hash"``.

    Examples
    --------
    >>> from iclr26sci.agents import GraphBaseline, synthetic_workflow_bench
    >>> bench = synthetic_workflow_bench(n_workflows=8, n_tasks=4, rng=0)
    >>> gb = GraphBaseline("gcn", hidden=16, epochs=2, lr=1e-3, text_encoder="hash", dim=32, rng=0).fit(bench.train)
    >>> gb.predict_proba(bench.test).shape == (len(bench.test),)
    True
    """

    def __init__(self, kind="gcn", hidden=512, n_layers=2, dropout=0.5, epochs=200, batch_size=512, lr=1e-4,
                 weight_decay=5e-4, text_encoder="minilm", dim=384, rng=None, device=None, calibration=None,
                 calibration_fraction=0.2, random_state=None):
        self.kind = kind
        self.hidden = hidden
        self.n_layers = n_layers
        self.dropout = dropout
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.text_encoder = text_encoder
        self.dim = dim
        self.rng = rng
        self.random_state = random_state
        self.device = device
        self.calibration = calibration
        self.calibration_fraction = calibration_fraction
        self._check_params()

    def _setup(self):
        check_option(self.kind, "kind", ["mlp", "gcn", "gat", "gcn2", "transformer"])
        h = check_positive_int(self.hidden, "hidden", minimum=8)
        if h % 8:
            raise InputError("hidden", f"got {h}", "a multiple of 8")
        check_positive_int(self.n_layers, "n_layers")
        check_in_range(self.dropout, "dropout", 0.0, 1.0, high_open=True)
        self._encoder_cfg = MultiViewWorkflowEncoder(hidden=8, text_encoder=self.text_encoder, dim=self.dim)
        self._encoder_cfg._validate()

    def _make_model(self):
        return _mods()[2](self.kind, self._encoder_cfg.feature_dim, int(self.hidden), int(self.n_layers),
                          float(self.dropout))

    @staticmethod
    def _score(m, feats, temb, w, t):
        import torch

        uw, inv = np.unique(w, return_inverse=True)
        dev = temb.device
        zg = m.encode(_batch([feats[i] for i in uw], dev))[torch.as_tensor(inv, device=dev)]
        return (zg * m.task(temb)[torch.as_tensor(t, device=dev)]).sum(-1)


# ------------------------------------------------------------------------------------------ pretraining
class PretrainedEncoder:
    """Result of :func:`pretrain`: the encoder configuration, its pretrained weights and the loss history.

    Pass it as ``AgenticPredictor(encoder=...)`` to fine-tune from the pretrained weights.

    Examples
    --------
    >>> from iclr26sci.agents import pretrain, synthetic_workflow_bench, MultiViewWorkflowEncoder
    >>> bench = synthetic_workflow_bench(n_workflows=4, n_tasks=2, rng=0)
    >>> enc = pretrain(bench.unlabeled, encoder=MultiViewWorkflowEncoder(hidden=16, n_layers=1, text_encoder="hash",
    ...                dim=32), epochs=2, rng=0)
    >>> len(enc.history["loss"])
    2
    """

    def __init__(self, config, state_dict, history):
        if not isinstance(config, MultiViewWorkflowEncoder):
            raise InputError("config", f"got {type(config).__name__}", "the MultiViewWorkflowEncoder that was pretrained")
        if not isinstance(state_dict, dict) or not state_dict or not all(
                isinstance(k, str) and hasattr(v, "shape") for k, v in state_dict.items()):
            raise InputError("state_dict", f"got {type(state_dict).__name__}", "the encoder's weights {name: tensor}")
        if not isinstance(history, dict) or not {"loss", "rec", "con"} <= set(history):
            raise InputError("history", f"got {history!r}"[:80], "a dict with 'loss', 'rec' and 'con' lists")
        lens = {len(history[k]) for k in ("loss", "rec", "con")}
        if len(lens) != 1 or 0 in lens or not all(np.all(np.isfinite(np.asarray(history[k], float)))
                                                   for k in ("loss", "rec", "con")):
            raise InputError("history", "has lists of different lengths, empty lists or non-finite losses",
                             "one finite loss per epoch in each of 'loss', 'rec' and 'con'")
        self.config = config
        self.state_dict_ = state_dict
        self.history = history

    def __repr__(self):
        return (f"PretrainedEncoder(hidden={self.config.hidden}, epochs={len(self.history['loss'])}, "
                f"final_loss={self.history['loss'][-1]:.4f})")

    def summary(self) -> str:
        """One line per quantity of the pretraining run."""
        h = self.history
        return (f"reconstructed pretraining (L_rec + lambda L_con): {len(h['loss'])} epochs, loss "
                f"{h['loss'][0]:.4f} -> {h['loss'][-1]:.4f} (rec {h['rec'][-1]:.4f}, con {h['con'][-1]:.4f})")

    def to_dict(self) -> dict:
        """Configuration and loss history (weights excluded)."""
        return {"config": self.config.get_params(), "history": {k: list(v) for k, v in self.history.items()}}


def _nt_xent(a, b, tau):
    import torch
    import torch.nn.functional as F

    z = F.normalize(torch.cat([a, b]), dim=-1)
    n = a.shape[0]
    sim = z @ z.T / tau
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    target = torch.cat([torch.arange(n, 2 * n), torch.arange(n)])
    return F.cross_entropy(sim, target)


def pretrain(workflows, encoder=None, epochs=50, batch_size=64, lr=1e-3, weight_decay=0.0, lam=1.0,
             temperature=0.5, feature_dropout=0.1, edge_dropout=0.1, positives="augment", rng=None, device=None):
    r"""Cross-domain unsupervised pretraining of the multi-view encoder (RECONSTRUCTED: the release has no code).

    The poster's pretraining phase feeds :math:`z_W` to a decoder with a reconstruction loss plus a contrastive
    loss; the official ``forward(pretrain=True)`` returns an undefined ``reconstructed_input``, so the targets
    and augmentations are a reconstruction (spec b.2, [RECON]):

    .. math:: L = \underbrace{\lVert \mathrm{Dec}(z_W) - u_W \rVert^2}_{L_{rec}} + \lambda\, L_{con},\quad
              u_W = \mathrm{std}\big([\bar P; \bar O; \bar K; t_W; k_W]\big),

    with Dec a 2-layer MLP and :math:`L_{con}` the NT-Xent loss over the :math:`2B` embeddings of two stochastic
    views of each workflow (node-feature dropout and edge dropout, independently), through a projection head
    :math:`g`, :math:`\ell_i = -\log \frac{\exp(\cos(g z_i, g z_i')/\tau)}{\sum_{j \ne i}\exp(\cos(g z_i, g z_j)/\tau)}`.
    Unlabelled workflows of all domains are pooled (as in the released ``get_pretrain_dataloader``).

    Parameters
    ----------
    workflows : list of Workflow
        Unlabelled workflows (labels are never used), e.g. ``bench.unlabeled``.
    encoder : MultiViewWorkflowEncoder, optional
        Configuration to pretrain (default ``MultiViewWorkflowEncoder()``).
    epochs, batch_size, lr, weight_decay
        Adam optimisation of the encoder, decoder and projection head.
    lam : float
        Weight :math:`\lambda` of the contrastive loss [RECON, default 1].
    temperature : float
        NT-Xent temperature :math:`\tau` [RECON, default 0.5].
    feature_dropout, edge_dropout : float
        Augmentation rates [RECON, default 0.1 each].
    positives : {"augment", "cross_view"}
        ``"augment"``: positives are the two augmented views [RECON default]; ``"cross_view"``: the positive of the
        graph-view embedding is the code+prompt-view embedding of the same workflow (the spec's alternative).
    rng : seed or numpy.random.Generator, optional
    device : str or torch.device, optional
        Where to pretrain (default the CPU); the returned weights are on the CPU.

    Returns
    -------
    PretrainedEncoder

    Examples
    --------
    >>> from iclr26sci.agents import pretrain, synthetic_workflow_bench, MultiViewWorkflowEncoder
    >>> bench = synthetic_workflow_bench(n_workflows=4, n_tasks=2, rng=0)
    >>> cfg = MultiViewWorkflowEncoder(hidden=16, n_layers=1, text_encoder="hash", dim=32)
    >>> pretrain(bench.unlabeled, encoder=cfg, epochs=1, rng=0).config is cfg
    True
    """
    import torch
    import torch.nn.functional as F

    wfs = _check_workflows(workflows, "workflows")
    if len(wfs) < 2:
        raise InputError("workflows", f"{len(wfs)} workflow", "at least 2 (the contrastive loss needs negatives)")
    cfg = MultiViewWorkflowEncoder() if encoder is None else encoder
    if not isinstance(cfg, MultiViewWorkflowEncoder):
        raise InputError("encoder", f"got {type(cfg).__name__}", "a MultiViewWorkflowEncoder or None")
    cfg._validate()
    epochs = check_positive_int(epochs, "epochs")
    bs = check_positive_int(batch_size, "batch_size", minimum=2)
    lr = check_in_range(lr, "lr", 0.0, None, low_open=True)
    weight_decay = check_in_range(weight_decay, "weight_decay", 0.0, None)
    lam = check_in_range(lam, "lam", 0.0, None)
    tau = check_in_range(temperature, "temperature", 0.0, None, low_open=True)
    pf = check_in_range(feature_dropout, "feature_dropout", 0.0, 1.0, high_open=True)
    pe = check_in_range(edge_dropout, "edge_dropout", 0.0, 1.0)
    check_option(positives, "positives", ["augment", "cross_view"])
    dev = _device(device)
    gen = as_generator(rng)
    torch.manual_seed(int(gen.integers(2 ** 62)))
    tg = torch.Generator().manual_seed(int(gen.integers(2 ** 62)))
    feats = cfg.features(wfs)
    u = torch.stack([torch.cat([f.xp.mean(0), f.xo.mean(0), f.xk.mean(0), f.tw[0], f.kw[0]]) for f in feats])
    u = ((u - u.mean(0)) / (u.std(0) + 1e-6)).to(dev)
    enc = cfg.build().to(dev)
    h = int(cfg.hidden)
    dec = _mlp([h, h, u.shape[1]], 0.0).to(dev)
    proj = _mlp([h, h, h], 0.0).to(dev)
    params = [*enc.parameters(), *dec.parameters(), *proj.parameters()]
    if positives == "cross_view":
        side = _mlp([2 * cfg.feature_dim, h, h], 0.0).to(dev)
        params += list(side.parameters())
    opt = torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    hist = {"loss": [], "rec": [], "con": []}
    for _ in progress(range(epochs), desc="pretrain"):
        enc.train()
        order = torch.randperm(len(wfs), generator=tg).tolist()
        tot = np.zeros(3)
        nb = 0
        for s in range(0, len(order), bs):
            idx = order[s:s + bs]
            if len(idx) < 2:
                continue
            b = _batch([feats[i] for i in idx], dev)
            z = enc(b)
            rec = F.mse_loss(dec(z), u[idx])
            if positives == "augment":
                z1, z2 = enc(b, drop=(pf, pe, tg)), enc(b, drop=(pf, pe, tg))
                con = _nt_xent(proj(z1), proj(z2), tau)
            else:
                zg = enc.graph_view(b, drop=(pf, pe, tg)) if "graph" in enc.views else z
                con = _nt_xent(proj(zg), proj(side(torch.cat([b.kw, b.tw], -1))), tau)
            loss = rec + lam * con
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += [float(loss.detach()), float(rec.detach()), float(con.detach())]
            nb += 1
        for k, v in zip(("loss", "rec", "con"), tot / max(nb, 1)):
            hist[k].append(float(v))
    enc.eval()
    return PretrainedEncoder(cfg, {k: v.detach().cpu().clone() for k, v in enc.state_dict().items()}, hist)
