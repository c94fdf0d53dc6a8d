"""Bad-input sweep cases for iclr26sci.agents (format: tests/bad_input_sweep.py).

Every case must raise an ``InputError`` naming one of its ``args`` before any work. Fixtures are tiny
(hash features, width 16) and built once, lazily.
"""
import functools

import numpy as np

from bad_input_sweep import Case
from iclr26sci.agents import (AgenticPredictor, GraphBaseline, MultiViewWorkflowEncoder, PairSet, Workflow,
                              WorkflowBench, accuracy, hash_embed, precision_at_k, pretrain, ranking_utility,
                              synthetic_workflow_bench, utility_score)

SRC = "async def run(self, problem):\n    s = await self.programmer(problem=problem)"


@functools.lru_cache(None)
def bench():
    return synthetic_workflow_bench(n_workflows=4, n_tasks=2, rng=0)


def tr():
    return bench().train


def te():
    return bench().test


def enc(**kw):
    return MultiViewWorkflowEncoder(**{**dict(hidden=16, n_layers=1, text_encoder="hash", dim=16), **kw})


def wf(**kw):
    base = dict(ops=["Input", "Custom"], prompts=["a", "b"], calls=["a", "b"], edges=[[0], [1]], code="x")
    base.update(kw)
    return Workflow(**base)


def pairset(**kw):
    t = tr()
    base = dict(workflows=t.workflows, tasks=t.tasks, w_idx=t.w_idx, t_idx=t.t_idx, y=t.y)
    base.update(kw)
    return PairSet(**base)


def pred(**kw):
    return AgenticPredictor(**{**dict(encoder=enc(), hidden=16, epochs=1, lr=1e-3, rng=0), **kw})


@functools.lru_cache(None)
def fitted():
    return pred().fit(tr())


def gb(**kw):
    return GraphBaseline(**{**dict(kind="gcn", hidden=16, epochs=1, lr=1e-3, text_encoder="hash", dim=16, rng=0),
                            **kw})


def wfs():
    return bench().unlabeled[:3]


def pt(**kw):
    return pretrain(wfs(), **{**dict(encoder=enc(), epochs=1, rng=0), **kw})


P = lambda v: np.full(len(te()), v)  # noqa: E731

CASES = [
    # ------------------------------------------------------------------ Workflow
    Case("agents.001", "Workflow", "no nodes", lambda: wf(ops=[], prompts=[], calls=[], edges=np.zeros((2, 0))),
         "ops"),
    Case("agents.002", "Workflow", "ops a string", lambda: wf(ops="In"), "ops"),
    Case("agents.003", "Workflow", "op not a string", lambda: wf(ops=["Input", 3]), "ops"),
    Case("agents.004", "Workflow", "prompts wrong length", lambda: wf(prompts=["a"]), "prompts"),
    Case("agents.005", "Workflow", "call not a string", lambda: wf(calls=["a", None]), "calls"),
    Case("agents.006", "Workflow", "edges of shape (3, 1)", lambda: wf(edges=[[0], [1], [1]]), "edges"),
    Case("agents.007", "Workflow", "edge to a missing node", lambda: wf(edges=[[0], [5]]), "edges"),
    Case("agents.008", "Workflow", "non-integer edge", lambda: wf(edges=[[0.5], [1]]), "edges"),
    Case("agents.009", "Workflow", "negative edge", lambda: wf(edges=[[-1], [1]]), "edges"),
    Case("agents.010", "Workflow", "edge NaN", lambda: wf(edges=[[np.nan], [1]]), "edges"),
    Case("agents.011", "Workflow", "empty code", lambda: wf(code="  "), "code"),
    Case("agents.012", "Workflow", "name not a string", lambda: wf(name=5), "name"),
    Case("agents.013", "Workflow", "edges strings", lambda: wf(edges=[["a"], ["b"]]), "edges"),
    Case("agents.014", "Workflow.from_code", "does not parse", lambda: Workflow.from_code("def f(:\n pass"),
         "source"),
    Case("agents.015", "Workflow.from_code", "no operator call", lambda: Workflow.from_code("x = 1"), "source"),
    Case("agents.016", "Workflow.from_code", "prompts a list", lambda: Workflow.from_code(SRC, prompts=["a"]),
         "prompts"),
    Case("agents.017", "Workflow.from_code", "source bytes", lambda: Workflow.from_code(SRC.encode()), "source"),
    Case("agents.018", "Workflow.from_code", "name not a string", lambda: Workflow.from_code(SRC, name=3), "name"),
    Case("agents.019", "Workflow.from_code", "prompt text not a string",
         lambda: Workflow.from_code(SRC, prompts={"Programmer": 5}), "prompts"),
    Case("agents.020", "Workflow.operator_code", "node out of range", lambda: wf().operator_code(7), "v"),
    Case("agents.021", "Workflow.operator_code", "node a float", lambda: wf().operator_code(1.0), "v"),
    # ------------------------------------------------------------------ hash_embed
    Case("agents.022", "hash_embed", "texts not strings", lambda: hash_embed([1, 2]), "texts"),
    Case("agents.023", "hash_embed", "dim 0", lambda: hash_embed(["a"], dim=0), "dim"),
    Case("agents.024", "hash_embed", "dim a float", lambda: hash_embed(["a"], dim=1.5), "dim"),
    Case("agents.025", "hash_embed", "texts empty", lambda: hash_embed([]), "texts"),
    Case("agents.026", "hash_embed", "texts a dict", lambda: hash_embed({"a": 1}), "texts"),
    Case("agents.027", "hash_embed", "texts None", lambda: hash_embed(None), "texts"),
    Case("agents.028", "hash_embed", "dim astronomically large", lambda: hash_embed(["a"], dim=10 ** 14), "dim"),
    # ------------------------------------------------------------------ PairSet
    Case("agents.029", "PairSet", "a workflow that is not a Workflow", lambda: pairset(workflows=["w"]),
         "workflows"),
    Case("agents.030", "PairSet", "task with no text", lambda: pairset(tasks=["", *tr().tasks[1:]]), "tasks"),
    Case("agents.031", "PairSet", "tasks a string", lambda: pairset(tasks="abcdef"), "tasks"),
    Case("agents.032", "PairSet", "labels short", lambda: pairset(y=tr().y[:-1]), "y"),
    Case("agents.033", "PairSet", "label 0.5", lambda: pairset(y=tr().y * 0.5 + 0.25), "y"),
    Case("agents.034", "PairSet", "label NaN", lambda: pairset(y=np.where(tr().y > 0, np.nan, 0.0)), "y"),
    Case("agents.035", "PairSet", "w_idx out of range", lambda: pairset(w_idx=tr().w_idx + 100), "w_idx"),
    Case("agents.036", "PairSet", "t_idx out of range", lambda: pairset(t_idx=tr().t_idx + 100), "t_idx"),
    Case("agents.037", "PairSet", "w_idx non-integer", lambda: pairset(w_idx=tr().w_idx + 0.5), "w_idx"),
    Case("agents.038", "PairSet", "domain wrong length", lambda: pairset(domain=["a"]), "domain"),
    Case("agents.039", "PairSet", "w_idx strings", lambda: pairset(w_idx=["a"] * len(tr())), "w_idx"),
    Case("agents.040", "PairSet.head", "ratio 0", lambda: tr().head(0.0), "ratio"),
    Case("agents.041", "PairSet.head", "ratio 1.5", lambda: tr().head(1.5), "ratio"),
    Case("agents.042", "PairSet.subset", "mask wrong length", lambda: tr().subset([True, False]), "mask"),
    Case("agents.043", "PairSet.subset", "float positions", lambda: tr().subset([0.5, 1.5]), "mask"),
    Case("agents.044", "PairSet.subset", "positions out of range", lambda: tr().subset([10 ** 6]), "mask"),
    # ------------------------------------------------------------------ WorkflowBench
    Case("agents.045", "WorkflowBench.load", "unknown bench", lambda: WorkflowBench.load("nope"), "name"),
    Case("agents.046", "WorkflowBench.load", "name not a string", lambda: WorkflowBench.load(5), "name"),
    Case("agents.047", "WorkflowBench.load", "unknown keyword",
         lambda: WorkflowBench.load("synthetic", n_workflow=4), ("kwargs", "n_workflow")),
    Case("agents.048", "WorkflowBench.load", "synthetic n_workflows 1",
         lambda: WorkflowBench.load("synthetic", n_workflows=1), "n_workflows"),
    Case("agents.049", "WorkflowBench.load", "executed split unknown",
         lambda: WorkflowBench.load("smollm2-arith", split="task"), "split"),
    Case("agents.050", "WorkflowBench.load", "executed test_domain unknown",
         lambda: WorkflowBench.load("smollm2-arith", split="domain", test_domain="law"), "test_domain"),
    Case("agents.051", "WorkflowBench.load", "executed test_fraction 0",
         lambda: WorkflowBench.load("smollm2-arith", test_fraction=0.0), "test_fraction"),
    Case("agents.052", "WorkflowBench.load", "executed path missing",
         lambda: WorkflowBench.load("smollm2-arith", path="/nonexistent/bench.json.gz"), "path"),
    Case("agents.053", "WorkflowBench.load", "executed rng a string",
         lambda: WorkflowBench.load("smollm2-arith", rng="x"), "rng"),
    Case("agents.054", "WorkflowBench.load", "executed unknown keyword",
         lambda: WorkflowBench.load("smollm2-arith", n_workflows=3), ("kwargs", "n_workflows")),
    Case("agents.055", "WorkflowBench", "train not a PairSet", lambda: WorkflowBench(train=[1], test=te(),
                                                                                      unlabeled=[]), "train"),
    Case("agents.056", "WorkflowBench", "unlabeled not workflows", lambda: WorkflowBench(train=tr(), test=te(),
                                                                                         unlabeled=["w"]),
         "unlabeled"),
    Case("agents.057", "WorkflowBench", "info not a dict", lambda: WorkflowBench(train=tr(), test=te(), unlabeled=[],
                                                                                 info=[1]), "info"),
    # ------------------------------------------------------------------ synthetic_workflow_bench
    Case("agents.058", "synthetic_workflow_bench", "n_workflows 1", lambda: synthetic_workflow_bench(n_workflows=1),
         "n_workflows"),
    Case("agents.059", "synthetic_workflow_bench", "n_tasks 0", lambda: synthetic_workflow_bench(n_tasks=0),
         "n_tasks"),
    Case("agents.060", "synthetic_workflow_bench", "test_fraction 1",
         lambda: synthetic_workflow_bench(test_fraction=1.0), "test_fraction"),
    Case("agents.061", "synthetic_workflow_bench", "domains a bare string",
         lambda: synthetic_workflow_bench(n_workflows=2, n_tasks=1, domains="ab"), "domains"),
    Case("agents.062", "synthetic_workflow_bench", "duplicate domains",
         lambda: synthetic_workflow_bench(n_workflows=2, n_tasks=1, domains=["code", "code"]), "domains"),
    Case("agents.063", "synthetic_workflow_bench", "four domains",
         lambda: synthetic_workflow_bench(domains=["a", "b", "c", "d"]), "domains"),
    Case("agents.064", "synthetic_workflow_bench", "rng a string", lambda: synthetic_workflow_bench(rng="x"), "rng"),
    Case("agents.065", "synthetic_workflow_bench", "astronomically many pairs",
         lambda: synthetic_workflow_bench(n_workflows=10 ** 7, n_tasks=10 ** 7), ("n_workflows", "n_tasks")),
    Case("agents.066", "synthetic_workflow_bench", "empty domain name",
         lambda: synthetic_workflow_bench(domains=["", "x"]), "domains"),
    # ------------------------------------------------------------------ metrics
    Case("agents.067", "accuracy", "probabilities 5.0", lambda: accuracy(P(5.0), te()), "pred"),
    Case("agents.068", "accuracy", "negative probabilities", lambda: accuracy(P(-0.1), te()), "pred"),
    Case("agents.069", "accuracy", "NaN probabilities", lambda: accuracy(P(np.nan), te()), "pred"),
    Case("agents.070", "accuracy", "wrong length", lambda: accuracy([0.5], te()), "pred"),
    Case("agents.071", "accuracy", "pairs a list", lambda: accuracy([0.5], [1]), "pairs"),
    Case("agents.072", "accuracy", "no pairs", lambda: accuracy(np.zeros(0), te().subset(np.zeros(len(te()), bool))),
         "pairs"),
    Case("agents.073", "accuracy", "2-D predictions", lambda: accuracy(P(0.5)[:, None], te()), "pred"),
    Case("agents.074", "accuracy", "unfitted predictor", lambda: accuracy(pred(), te()),
         ("pred", "AgenticPredictor.predict_proba")),
    Case("agents.075", "accuracy", "probability strings", lambda: accuracy(["a"] * len(te()), te()), "pred"),
    Case("agents.076", "utility_score", "probabilities 5.0", lambda: utility_score(P(5.0), te()), "pred"),
    Case("agents.077", "utility_score", "unknown tie_break", lambda: utility_score(P(0.5), te(), tie_break="x"),
         "tie_break"),
    Case("agents.078", "utility_score", "n_draws 0", lambda: utility_score(P(0.5), te(), n_draws=0), "n_draws"),
    Case("agents.079", "utility_score", "rng a string",
         lambda: utility_score(P(0.5), te(), tie_break="random", rng="x"), "rng"),
    Case("agents.080", "utility_score", "pairs a tuple", lambda: utility_score(P(0.5), (1, 2)), "pairs"),
    Case("agents.081", "ranking_utility", "true NaN", lambda: ranking_utility([np.nan, 1.0], [1.0, 2.0]),
         "true_scores"),
    Case("agents.082", "ranking_utility", "length mismatch", lambda: ranking_utility([0.0, 1.0], [1.0]),
         "pred_scores"),
    Case("agents.083", "ranking_utility", "unknown tie_break", lambda: ranking_utility([0.0, 1.0], [1.0, 0.0], "x"),
         "tie_break"),
    Case("agents.084", "ranking_utility", "unknown tie_break with one workflow",
         lambda: ranking_utility([0.5], [0.5], "x"), "tie_break"),
    Case("agents.085", "ranking_utility", "pred NaN", lambda: ranking_utility([0.0, 1.0], [np.nan, 1.0]),
         "pred_scores"),
    Case("agents.086", "ranking_utility", "empty", lambda: ranking_utility([], []), "true_scores"),
    Case("agents.087", "ranking_utility", "one workflow, two predictions", lambda: ranking_utility([0.5], [0.5, 0.1]),
         "pred_scores"),
    Case("agents.088", "ranking_utility", "n_draws 0", lambda: ranking_utility([0.0, 1.0], [1.0, 0.0], n_draws=0),
         "n_draws"),
    Case("agents.089", "ranking_utility", "rng a string",
         lambda: ranking_utility([0.0, 1.0], [1.0, 0.0], "random", rng="x"), "rng"),
    Case("agents.090", "precision_at_k", "length mismatch", lambda: precision_at_k([0.0, 1.0], [1.0]),
         "pred_scores"),
    Case("agents.091", "precision_at_k", "unknown tie_break", lambda: precision_at_k([0.0, 1.0], [1.0, 0.0], "x"),
         "tie_break"),
    Case("agents.092", "precision_at_k", "empty", lambda: precision_at_k([], []), "true_scores"),
    Case("agents.093", "precision_at_k", "2-D", lambda: precision_at_k([[0.0, 1.0]], [[1.0, 0.0]]), "true_scores"),
    Case("agents.094", "precision_at_k", "pred infinite", lambda: precision_at_k([0.0, 1.0], [np.inf, 0.0]),
         "pred_scores"),
    Case("agents.095", "precision_at_k", "rng a string",
         lambda: precision_at_k([0.0, 1.0], [1.0, 0.0], "random", rng="x"), "rng"),
    # ------------------------------------------------------------------ encoder
    Case("agents.096", "MultiViewWorkflowEncoder", "hidden not a multiple of 8", lambda: enc(hidden=12), "hidden"),
    Case("agents.097", "MultiViewWorkflowEncoder", "n_layers 0", lambda: enc(n_layers=0), "n_layers"),
    Case("agents.098", "MultiViewWorkflowEncoder", "dropout 1", lambda: enc(dropout=1.0), "dropout"),
    Case("agents.099", "MultiViewWorkflowEncoder", "unknown view", lambda: enc(views=("graph", "audio")), "views"),
    Case("agents.100", "MultiViewWorkflowEncoder", "views a bare string", lambda: enc(views="graph"), "views"),
    Case("agents.101", "MultiViewWorkflowEncoder", "unknown conv", lambda: enc(conv="sage"), "conv"),
    Case("agents.102", "MultiViewWorkflowEncoder", "unknown text_encoder", lambda: enc(text_encoder="bert"),
         "text_encoder"),
    Case("agents.103", "MultiViewWorkflowEncoder", "dim 0", lambda: enc(dim=0), "dim"),
    Case("agents.104", "MultiViewWorkflowEncoder", "faithful_to_release 'yes'",
         lambda: enc(faithful_to_release="yes"), "faithful_to_release"),
    Case("agents.105", "MultiViewWorkflowEncoder", "n_mlplayers 0", lambda: enc(n_mlplayers=0), "n_mlplayers"),
    Case("agents.106", "MultiViewWorkflowEncoder.features", "no workflows", lambda: enc().features([]), "workflows"),
    Case("agents.107", "MultiViewWorkflowEncoder.features", "not workflows", lambda: enc().features(["x"]),
         "workflows"),
    Case("agents.108", "MultiViewWorkflowEncoder.encode", "module built for another feature size",
         lambda: enc().encode(wfs(), module=enc(dim=32).build()), "module"),
    Case("agents.109", "MultiViewWorkflowEncoder.encode", "module built for another width",
         lambda: enc().encode(wfs(), module=enc(hidden=24).build()), "module"),
    Case("agents.110", "MultiViewWorkflowEncoder.encode", "module a string", lambda: enc().encode(wfs(), module="m"),
         "module"),
    Case("agents.111", "MultiViewWorkflowEncoder.encode", "workflows a string", lambda: enc().encode("wf"),
         "workflows"),
    # ------------------------------------------------------------------ AgenticPredictor
    Case("agents.112", "AgenticPredictor", "encoder a string", lambda: pred(encoder="gat"), "encoder"),
    Case("agents.113", "AgenticPredictor", "hidden 0", lambda: pred(hidden=0), "hidden"),
    Case("agents.114", "AgenticPredictor", "epochs 0", lambda: pred(epochs=0), "epochs"),
    Case("agents.115", "AgenticPredictor", "batch_size 0", lambda: pred(batch_size=0), "batch_size"),
    Case("agents.116", "AgenticPredictor", "lr 0", lambda: pred(lr=0.0), "lr"),
    Case("agents.117", "AgenticPredictor", "weight_decay negative", lambda: pred(weight_decay=-1.0), "weight_decay"),
    Case("agents.118", "AgenticPredictor", "unknown calibration", lambda: pred(calibration="platt"), "calibration"),
    Case("agents.119", "AgenticPredictor", "calibration_fraction 1", lambda: pred(calibration_fraction=1.0),
         "calibration_fraction"),
    Case("agents.120", "AgenticPredictor", "unknown device", lambda: pred(device="tpu"), "device"),
    Case("agents.121", "AgenticPredictor", "rng a string", lambda: pred(rng="x"), "rng"),
    Case("agents.122", "AgenticPredictor", "dropout negative", lambda: pred(dropout=-0.1), "dropout"),
    Case("agents.123", "AgenticPredictor", "n_mlplayers 0", lambda: pred(n_mlplayers=0), "n_mlplayers"),
    Case("agents.124", "AgenticPredictor.fit", "label_ratio 0", lambda: pred().fit(tr(), label_ratio=0.0),
         "label_ratio"),
    Case("agents.125", "AgenticPredictor.fit", "tuple pairs with label 0.5",
         lambda: pred().fit((wfs(), "task"), y=[0.5, 1, 0]), "y"),
    Case("agents.126", "AgenticPredictor.fit", "labels given with a PairSet", lambda: pred().fit(tr(), y=tr().y),
         "y"),
    Case("agents.127", "AgenticPredictor.fit", "validation a list", lambda: pred().fit(tr(), validation=[1]),
         "validation"),
    Case("agents.128", "AgenticPredictor.fit", "pairs a string", lambda: pred().fit("pairs"), "pairs"),
    Case("agents.129", "AgenticPredictor.fit", "tuple pairs without labels", lambda: pred().fit((wfs(), "task")), "y"),
    Case("agents.130", "AgenticPredictor.fit", "tuple pairs with task count mismatch",
         lambda: pred().fit((wfs(), ["a", "b"]), y=[1, 0, 1]), "tasks"),
    Case("agents.131", "AgenticPredictor.fit", "no training pairs",
         lambda: pred().fit(tr().subset(np.zeros(len(tr()), bool))), "pairs"),
    Case("agents.132", "AgenticPredictor.predict_proba", "unfitted", lambda: pred().predict_proba(te()),
         "AgenticPredictor.predict_proba"),
    Case("agents.133", "AgenticPredictor.predict_proba", "tasks length mismatch",
         lambda: fitted().predict_proba(wfs(), ["a", "b"]), "tasks"),
    Case("agents.134", "AgenticPredictor.predict_proba", "workflows without tasks",
         lambda: fitted().predict_proba(wfs()), "tasks"),
    Case("agents.135", "AgenticPredictor.predict_proba", "task not a string",
         lambda: fitted().predict_proba(wfs(), [1, 2, 3]), "tasks"),
    Case("agents.136", "AgenticPredictor.select", "unfitted", lambda: pred().select(wfs(), "t"),
         "AgenticPredictor.select"),
    Case("agents.137", "AgenticPredictor.select", "no candidates", lambda: fitted().select([], "t"), "candidates"),
    Case("agents.138", "AgenticPredictor.select", "empty task", lambda: fitted().select(wfs(), ""), "tasks"),
    Case("agents.139", "AgenticPredictor.select", "task a number", lambda: fitted().select(wfs(), 5), "tasks"),
    Case("agents.140", "AgenticPredictor.summary", "unfitted", lambda: pred().summary(), "AgenticPredictor.summary"),
    # ------------------------------------------------------------------ GraphBaseline
    Case("agents.141", "GraphBaseline", "unknown kind", lambda: gb(kind="sage"), "kind"),
    Case("agents.142", "GraphBaseline", "hidden 12", lambda: gb(hidden=12), "hidden"),
    Case("agents.143", "GraphBaseline", "n_layers 0", lambda: gb(n_layers=0), "n_layers"),
    Case("agents.144", "GraphBaseline", "unknown text_encoder", lambda: gb(text_encoder="bert"), "text_encoder"),
    Case("agents.145", "GraphBaseline", "dim 0", lambda: gb(dim=0), "dim"),
    Case("agents.146", "GraphBaseline", "epochs 0", lambda: gb(epochs=0), "epochs"),
    Case("agents.147", "GraphBaseline", "unknown device", lambda: gb(device="tpu"), "device"),
    Case("agents.148", "GraphBaseline.predict_proba", "unfitted", lambda: gb().predict_proba(te()),
         "GraphBaseline.predict_proba"),
    Case("agents.149", "GraphBaseline.fit", "pairs a list", lambda: gb().fit([1, 2]), "pairs"),
    # ------------------------------------------------------------------ pretrain
    Case("agents.150", "pretrain", "one workflow", lambda: pretrain(wfs()[:1], encoder=enc()), "workflows"),
    Case("agents.151", "pretrain", "no workflows", lambda: pretrain([], encoder=enc()), "workflows"),
    Case("agents.152", "pretrain", "encoder a string", lambda: pt(encoder="gat"), "encoder"),
    Case("agents.153", "pretrain", "epochs 0", lambda: pt(epochs=0), "epochs"),
    Case("agents.154", "pretrain", "batch_size 1", lambda: pt(batch_size=1), "batch_size"),
    Case("agents.155", "pretrain", "lr 0", lambda: pt(lr=0.0), "lr"),
    Case("agents.156", "pretrain", "lam negative", lambda: pt(lam=-1.0), "lam"),
    Case("agents.157", "pretrain", "temperature 0", lambda: pt(temperature=0.0), "temperature"),
    Case("agents.158", "pretrain", "feature_dropout 1", lambda: pt(feature_dropout=1.0), "feature_dropout"),
    Case("agents.159", "pretrain", "edge_dropout 1.5", lambda: pt(edge_dropout=1.5), "edge_dropout"),
    Case("agents.160", "pretrain", "unknown positives", lambda: pt(positives="mask"), "positives"),
    Case("agents.161", "pretrain", "unknown device", lambda: pt(device="tpu"), "device"),
    Case("agents.162", "pretrain", "rng a string", lambda: pt(rng="x"), "rng"),
    Case("agents.163", "pretrain", "workflows a single Workflow string", lambda: pretrain("wf"), "workflows"),
    Case("agents.164", "pretrain", "weight_decay negative", lambda: pt(weight_decay=-1.0), "weight_decay"),
]


def _pe(**kw):
    from iclr26sci.agents import PretrainedEncoder

    base = dict(config=enc(), state_dict={"w": np.zeros(2)}, history={"loss": [1.0], "rec": [0.5], "con": [0.5]})
    base.update(kw)
    return PretrainedEncoder(**base)


CASES += [
    Case("agents.165", "PretrainedEncoder", "config not an encoder", lambda: _pe(config="gat"), "config"),
    Case("agents.166", "PretrainedEncoder", "state_dict a list", lambda: _pe(state_dict=[1]), "state_dict"),
    Case("agents.167", "PretrainedEncoder", "history without rec", lambda: _pe(history={"loss": [1.0]}), "history"),
    Case("agents.168", "PretrainedEncoder", "history NaN",
         lambda: _pe(history={"loss": [np.nan], "rec": [0.5], "con": [0.5]}), "history"),
    Case("agents.169", "AgenticPredictor.fit", "pretrained weights of another configuration",
         lambda: pred(encoder=_pe()).fit(tr()), "encoder"),
]
