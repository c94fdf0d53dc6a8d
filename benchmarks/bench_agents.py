"""Agentic Predictor on the executed SmolLM2 workflow bench: our predictor, its single views, pretraining, the graph
baselines, a MiniLM text-only model and the prior, side by side.

Splits: by workflow (30 % of each workflow family held out with all its pairs) and by task domain (all HumanEval pairs
held out). Columns: pair accuracy, the released ranking utility, ROC AUC, selection regret (per test domain, measured
success of the best held-out workflow minus that of the predicted best), training seconds and prediction
throughput (pairs/s; the goal is >= 1000 pairs/s on 2 cores). Label-ratio curves for the multi-view predictor with
and without the reconstructed pretraining, and the prior (by default each ratio gets the same number of optimiser
steps as the table's fit: with a fixed epoch count the small ratios see only a few steps and never leave the prior).

    OMP_NUM_THREADS=2 python benchmarks/bench_agents.py [--seeds 0 1 2] [--ratios 0.05 0.1 0.2 0.5] [--text hash]

``--text`` is the text featuriser of the predictors and GNN baselines; the text-only row always embeds with MiniLM
(all-MiniLM-L6-v2: workflow code + prompts, task text, and their product, into a logistic regression).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table  # noqa: E402


class Prior:
    """Majority/prior baseline: every pair gets the training success rate of its task domain."""

    def fit(self, pairs, label_ratio=1.0):
        pairs = pairs.head(label_ratio)
        self.rate_ = {d: float(pairs.y[pairs.domain == d].mean()) for d in set(pairs.domain.tolist())}
        self.all_ = float(pairs.y.mean())
        self.train_seconds_ = 0.0
        return self

    def predict_proba(self, pairs):
        return np.array([self.rate_.get(d, self.all_) for d in pairs.domain])


class TextOnly:
    """MiniLM text-only model: logistic regression on [E(workflow code + prompts); E(task); product]."""

    def __init__(self, text_encoder="minilm"):
        self.text_encoder = text_encoder

    def _emb(self, texts):
        from iclr26sci.agents._model import _embed

        return _embed(texts, self.text_encoder, 384)

    def _X(self, pairs):
        key = id(pairs.workflows)
        if getattr(self, "_key", None) != key:
            self._W = self._emb([w.code + "\n" + w.full_prompt for w in pairs.workflows])
            self._T = self._emb(list(pairs.tasks))
            self._key = key
        W, T = self._W[pairs.w_idx], self._T[pairs.t_idx]
        return np.hstack([W, T, W * T])

    def fit(self, pairs, label_ratio=1.0):
        from sklearn.linear_model import LogisticRegression

        t0 = time.perf_counter()
        pairs = pairs.head(label_ratio)
        X, y = self._X(pairs), pairs.y
        self.const_ = None if len(set(y.tolist())) > 1 else float(y[0])
        if self.const_ is None:
            self.clf_ = LogisticRegression(C=1.0, max_iter=2000).fit(X, y)
        self.train_seconds_ = time.perf_counter() - t0
        return self

    def predict_proba(self, pairs):
        if self.const_ is not None:
            return np.full(len(pairs), self.const_)
        return self.clf_.predict_proba(self._X(pairs))[:, 1]


def regret(pred, test):
    """Mean over test domains of (best measured success - measured success of the predicted-best workflow)."""
    p = pred.predict_proba(test)
    out = []
    for d in sorted(set(test.domain.tolist())):
        m = test.domain == d
        ws = np.unique(test.w_idx[m])
        true = np.array([test.y[m & (test.w_idx == w)].mean() for w in ws])
        score = np.array([p[m & (test.w_idx == w)].mean() for w in ws])
        out.append(true.max() - true[int(np.argmax(score))])
    return float(np.mean(out))


def auc(p, y):
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, p)) if 0 < y.mean() < 1 else float("nan")


def throughput(pred, bench):
    """Pairs/s of predict_proba over every (workflow, task) combination of the test set (features cached)."""
    from iclr26sci.agents import PairSet

    t = bench.test
    ws, ts = np.unique(t.w_idx), np.unique(t.t_idx)
    W, T = np.meshgrid(ws, ts, indexing="ij")
    big = PairSet(t.workflows, t.tasks, W.ravel(), T.ravel(), np.zeros(W.size), np.full(W.size, "all", dtype=object))
    pred.predict_proba(big)                      # warm the feature cache
    t0 = time.perf_counter()
    pred.predict_proba(big)
    return W.size / (time.perf_counter() - t0)


def throughput_paths(pred, bench):
    """Pairs/s of predict_proba on fresh workflow objects: cold (texts never embedded in this process), cold with
    seen texts (new Workflow objects, prompts embedded before: the content-hash cache), and warm (features cached
    on the workflows). Wall and CPU seconds of each."""
    import copy

    from iclr26sci.agents import PairSet
    from iclr26sci.agents import _model

    t = bench.test
    ws, ts = np.unique(t.w_idx), np.unique(t.t_idx)
    W, T = np.meshgrid(ws, ts, indexing="ij")

    def fresh():
        wf = [copy.copy(w) for w in t.workflows]
        for w in wf:
            w._cache = {}
        return PairSet(wf, t.tasks, W.ravel(), T.ravel(), np.zeros(W.size), np.full(W.size, "all", dtype=object))

    out = {}
    _model._TEXT_CACHE.clear()
    for name in ("cold", "cold, texts seen", "warm"):
        big = fresh() if name != "warm" else big
        w0, c0 = time.perf_counter(), time.process_time()
        pred.predict_proba(big)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        out[name] = (W.size / wall, W.size / cpu)
    return W.size, out


def methods(text, hidden, epochs, batch_size=256):
    from iclr26sci.agents import AgenticPredictor, GraphBaseline, MultiViewWorkflowEncoder

    def mv(views=("graph", "code", "prompt")):
        return MultiViewWorkflowEncoder(hidden=hidden, n_layers=2, dropout=0.1, views=views, text_encoder=text)

    kw = dict(hidden=hidden, epochs=epochs, lr=1e-3, weight_decay=0.0, dropout=0.1, batch_size=batch_size)
    out = {"multi-view": lambda s, enc=None: AgenticPredictor(encoder=enc or mv(), rng=s, **kw)}
    for v in ("graph", "code", "prompt"):
        out[f"{v} view"] = lambda s, enc=None, v=v: AgenticPredictor(encoder=mv((v,)), rng=s, **kw)
    for k in ("mlp", "gcn", "gat", "gcn2", "transformer"):
        out[f"GNN {k}"] = lambda s, enc=None, k=k: GraphBaseline(k, text_encoder=text, n_layers=2, rng=s, **kw)
    out["MiniLM text-only"] = lambda s, enc=None: TextOnly("minilm")   # always MiniLM, whatever --text is
    out["prior"] = lambda s, enc=None: Prior()
    return out, mv


def evaluate(pred, bench):
    from iclr26sci.agents import accuracy, utility_score

    p = pred.predict_proba(bench.test)
    return {"accuracy": accuracy(p, bench.test), "utility": utility_score(p, bench.test),
            "auc": auc(p, bench.test.y), "regret": regret(pred, bench.test)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--ratios", type=float, nargs="+", default=[0.05, 0.2, 0.5])
    ap.add_argument("--curve-splits", nargs="+", default=["workflow"], choices=["workflow", "domain"])
    ap.add_argument("--table-ratio", type=float, default=0.5)
    ap.add_argument("--text", default="minilm", choices=["minilm", "hash"])
    ap.add_argument("--table", default=None, help="a table from scripts/build_agents_bench.py (default: shipped)")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--pretrain-epochs", type=int, default=20)
    ap.add_argument("--fixed-epochs", action="store_true",
                    help="label-ratio curves with --epochs at every ratio (default: epochs x table_ratio / ratio, "
                         "so every ratio gets the optimiser steps of the table's fit)")
    ap.add_argument("--throughput-only", action="store_true",
                    help="only the cold / seen-texts / warm prediction throughput of the multi-view predictor")
    a = ap.parse_args(argv)
    import torch

    if a.throughput_only:
        import os

        from iclr26sci.agents import WorkflowBench

        bench = WorkflowBench.load("smollm2-arith", rng=0, path=a.table, split="workflow")
        meth, _ = methods(a.text, a.hidden, 1, a.batch_size)
        pred = meth["multi-view"](0)
        pred.fit(bench.train, label_ratio=a.table_ratio)
        n, res = throughput_paths(pred, bench)
        print(f"load average {os.getloadavg()[0]:.2f}, torch threads {torch.get_num_threads()}, text {a.text}; "
              f"{n} (workflow, task) pairs; goal >= 1000 pairs/s on the cold path with seen prompts")
        for k, (pw, pc) in res.items():
            print(f"  {k:18s} {pw:10.0f} pairs/s (wall)  {pc:10.0f} pairs/s (CPU)")
        return

    from iclr26sci.agents import WorkflowBench, pretrain

    print(f"torch threads {torch.get_num_threads()}; text encoder {a.text}; h={a.hidden}; seeds {a.seeds}")
    for split, kw in (("workflow", {"split": "workflow"}), ("domain (test: code)", {"split": "domain",
                                                                                    "test_domain": "code"})):
        rows, curve = {}, {}
        for seed in a.seeds:
            bench = WorkflowBench.load("smollm2-arith", rng=seed, path=a.table, **kw)
            if seed == a.seeds[0]:
                print(f"\n# split by {split}\n{bench.summary()}", flush=True)
            meth, mv = methods(a.text, a.hidden, a.epochs, a.batch_size)
            t0 = time.perf_counter()
            enc = pretrain(bench.unlabeled, encoder=mv(), epochs=a.pretrain_epochs, rng=seed)
            t_pre = time.perf_counter() - t0
            for name, make in list(meth.items()) + [("multi-view + pretrain", None)]:
                pred = (meth["multi-view"](seed, enc) if make is None else make(seed))
                pred.fit(bench.train, label_ratio=a.table_ratio)
                r = evaluate(pred, bench)
                r["train_s"] = pred.train_seconds_ + (t_pre if make is None else 0.0)
                r["pairs_per_s"] = throughput(pred, bench)
                rows.setdefault(name, []).append(r)
                print(f"  seed {seed} {name}: " + ", ".join(f"{k} {v:.4g}" for k, v in r.items()), flush=True)
            for ratio in (a.ratios if split.split()[0] in a.curve_splits else []):
                for name, make in (("multi-view", meth["multi-view"]), ("multi-view + pretrain", None),
                                   ("prior", meth["prior"])):
                    pred = meth["multi-view"](seed, enc) if make is None else make(seed)
                    if hasattr(pred, "epochs") and not a.fixed_epochs:   # same optimiser steps as the table's fit
                        pred.epochs = max(1, int(round(a.epochs * a.table_ratio / ratio)))
                    pred.fit(bench.train, label_ratio=ratio)
                    curve.setdefault((name, ratio), []).append(evaluate(pred, bench))
        table = []
        for name, rs in rows.items():
            row = {"method": name}
            for k in rs[0]:
                v = np.array([r[k] for r in rs])
                row[k] = float(np.nanmean(v))
                if k in ("accuracy", "utility", "auc", "regret") and len(v) > 1:
                    row[k + "_se"] = float(np.nanstd(v, ddof=1) / np.sqrt(len(v)))
            table.append(row)
        ref = next(r for r in table if r["method"] == "multi-view")
        for r in table:
            r["time_ratio"] = r["train_s"] / max(ref["train_s"], 1e-9)
        print_table(f"split by {split}: label ratio {a.table_ratio}, mean over seeds {a.seeds}", table)
        if not curve:
            continue
        ctab = []
        for (name, ratio), rs in curve.items():
            ctab.append({"method": name, "label_ratio": ratio,
                         **{k: float(np.nanmean([r[k] for r in rs])) for k in ("accuracy", "utility", "auc", "regret")}})
        print_table(f"split by {split}: label-ratio curves", sorted(ctab, key=lambda r: (r["method"], r["label_ratio"])))


if __name__ == "__main__":
    main()
