"""Core properties of iclr26sci.agents: parsing, metrics algebra, permutation invariance, training smoke."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from iclr26sci.agents import (AgenticPredictor, GraphBaseline, MultiViewWorkflowEncoder, Workflow, accuracy,
                              precision_at_k, pretrain, ranking_utility, synthetic_workflow_bench, utility_score)

SRC = '''
class Workflow:
    async def __call__(self, problem):
        a = await self.answer_generate(input=problem)
        b = await self.programmer(problem=problem, analysis=a)
        sols = [a]
        sols.append(await self.custom(input=problem, instruction="Think step by step."))
        c = await self.sc_ensemble(solutions=sols + [b], problem=problem)
        return c
'''


@pytest.fixture(scope="module")
def bench():
    return synthetic_workflow_bench(n_workflows=10, n_tasks=6, rng=0)


def small_enc(**kw):
    return MultiViewWorkflowEncoder(hidden=16, n_layers=2, dropout=0.0, text_encoder="hash", dim=32, **kw)


def test_from_code_graph():
    wf = Workflow.from_code(SRC, prompts={"AnswerGenerate": "Answer it."})
    assert wf.ops == ["Input", "AnswerGenerate", "Programmer", "Custom", "ScEnsemble"]
    edges = set(map(tuple, wf.edges.T.tolist()))
    assert {(0, 1), (0, 2), (1, 2), (0, 3), (1, 4), (3, 4), (2, 4)} <= edges
    assert wf.prompts[1] == "Answer it." and wf.prompts[3] == "Think step by step."
    assert "sc_ensemble" in wf.calls[4]


def test_precision_and_utility_values():
    g = np.array([0.9, 0.7, 0.5, 0.3, 0.1])
    assert ranking_utility(g, g) == pytest.approx(1.0)
    assert precision_at_k(g, g[::-1])[-1] == 1.0
    # reversed ranking: prec@k = max(0, 2k - N)/k
    k = np.arange(1, 6)
    assert np.allclose(precision_at_k(g, -g), np.maximum(0, 2 * k - 5) / k)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 30), st.integers(0, 2 ** 31 - 1))
def test_utility_monotone_invariance(n, seed):
    r = np.random.default_rng(seed)
    g, p = r.random(n), r.random(n)
    u = ranking_utility(g, p)
    assert 0.0 <= u <= 1.0
    assert ranking_utility(g, np.exp(3 * p) - 7) == pytest.approx(u)        # strictly increasing transform
    perm = r.permutation(n)
    assert ranking_utility(g[perm], p[perm]) == pytest.approx(u)           # workflow order (no ties)


def test_random_tie_break_averages(bench):
    g = np.array([0.5, 0.5, 0.2, 0.1])
    p = np.array([1.0, 1.0, 0.0, 0.0])
    u = ranking_utility(g, p, tie_break="random", n_draws=50, rng=0)
    assert 0.0 < u <= 1.0


def test_accuracy_and_utility_on_truth(bench):
    assert accuracy(bench.test.y, bench.test) == 1.0
    assert utility_score(bench.test.y, bench.test) == 1.0


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2 ** 31 - 1))
def test_permutation_invariance(seed):
    import torch

    bench = synthetic_workflow_bench(n_workflows=3, n_tasks=2, rng=1)
    wf = max(bench.unlabeled, key=lambda w: w.n_nodes)
    r = np.random.default_rng(seed)
    perm = r.permutation(wf.n_nodes)                  # new index of old node i is inv[i]
    inv = np.argsort(perm)
    wp = Workflow(ops=[wf.ops[i] for i in perm], prompts=[wf.prompts[i] for i in perm],
                  calls=[wf.calls[i] for i in perm], edges=inv[wf.edges], code=wf.code)
    torch.manual_seed(0)
    # the prompt view is the text of the prompts in programme order, which a relabelling rewrites by design;
    # the graph views (and the code view) must be invariant
    enc = small_enc(views=("graph", "code"))
    m = enc.build()
    a, b = enc.encode([wf], m), enc.encode([wp], m)
    assert torch.allclose(a, b, atol=1e-5)


def test_fit_predict_select_faithful(bench):
    for faithful in (False, True):
        p = AgenticPredictor(encoder=small_enc(faithful_to_release=faithful), hidden=16, epochs=2, lr=1e-3,
                             rng=0).fit(bench.train, label_ratio=0.5, validation=bench.test)
        pr = p.predict_proba(bench.test)
        assert pr.shape == (len(bench.test),) and np.all((pr > 0) & (pr < 1))
        assert p.n_train_pairs_ == int(np.ceil(0.5 * len(bench.train)))
        i = p.select(bench.unlabeled[:4], bench.train.tasks[:3])
        assert 0 <= i < 4 and len(p.last_selection_scores_) == 4
    # the tuple interface gives the same probabilities as the PairSet one
    ws = [bench.test.workflows[i] for i in bench.test.w_idx[:5]]
    ts = [bench.test.tasks[i] for i in bench.test.t_idx[:5]]
    assert np.allclose(p.predict_proba(ws, ts), pr[:5], atol=1e-6)


def test_same_seed_same_model(bench):
    a = AgenticPredictor(encoder=small_enc(), hidden=16, epochs=1, lr=1e-3, rng=3).fit(bench.train)
    b = AgenticPredictor(encoder=small_enc(), hidden=16, epochs=1, lr=1e-3, rng=3).fit(bench.train)
    assert np.allclose(a.predict_proba(bench.test), b.predict_proba(bench.test))


def test_pretrain_then_finetune(bench):
    enc = pretrain(bench.unlabeled, encoder=small_enc(), epochs=3, batch_size=16, rng=0)
    assert np.isfinite(enc.history["loss"]).all() and "pretraining" in enc.summary()
    p = AgenticPredictor(encoder=enc, hidden=16, epochs=1, lr=1e-3, rng=0).fit(bench.train)
    assert accuracy(p, bench.test) >= 0.0
    cv = pretrain(bench.unlabeled, encoder=small_enc(), epochs=1, batch_size=16, positives="cross_view", rng=0)
    assert np.isfinite(cv.history["con"]).all()


@pytest.mark.parametrize("kind", ["mlp", "gcn", "gat", "gcn2", "transformer"])
def test_graph_baselines(bench, kind):
    gb = GraphBaseline(kind, hidden=16, epochs=1, lr=1e-3, text_encoder="hash", dim=32, rng=0).fit(bench.train)
    p = gb.predict_proba(bench.test)
    assert p.shape == (len(bench.test),) and np.isfinite(p).all()


def test_summary_to_dict_and_device(bench):
    p = AgenticPredictor(encoder=small_enc(), hidden=16, epochs=1, lr=1e-3, rng=0, device="cpu").fit(
        bench.train, label_ratio=0.5)
    d = p.to_dict()
    assert d["n_train_pairs"] == p.n_train_pairs_ and d["label_ratio"] == 0.5 and d["device"] == "cpu"
    assert "BCE" in p.summary() and "AgenticPredictor(pairs=" in repr(p)
    assert bench.train.to_dict()["n_pairs"] == len(bench.train) and "success" in bench.train.summary()
    assert bench.to_dict()["n_unlabeled"] == len(bench.unlabeled) and "train:" in bench.summary()
    gb = GraphBaseline("gcn", hidden=16, epochs=1, lr=1e-3, text_encoder="hash", dim=32, rng=0).fit(bench.train)
    assert gb.to_dict()["estimator"] == "GraphBaseline"


def test_prompt_reference_lookup():
    src = ("class Workflow:\n    async def __call__(self, problem):\n"
           "        x1 = await self.answer_generate(input=problem, instruction=prompt_custom.COT)\n"
           "        return x1\n")
    wf = Workflow.from_code(src, prompts={"COT": "Think step by step."})
    assert wf.prompts[1] == "Think step by step."
    assert Workflow.from_code(src).prompts[1].startswith("Generate a step by step")   # operator description


def test_sandbox_runs_and_limits():
    from iclr26sci.agents._sandbox import run_python

    r = run_python("import sys; print(sum(range(10))); sys.exit(0)")
    assert r.ok and r.stdout.strip() == "45"
    assert not run_python("raise ValueError('x')").ok
    assert run_python("while True: pass", timeout=0.5).timed_out


def test_executed_bench_loads_and_trains():
    from iclr26sci.agents import WorkflowBench

    b = WorkflowBench.load("smollm2-arith", rng=0)
    assert b.info["model"].startswith("SmolLM2-135M-Instruct") and b.info["script_version"]
    assert set(b.train.w_idx.tolist()).isdisjoint(b.test.w_idx.tolist())      # split by workflow
    assert set(b.train.domain.tolist()) == {"arith", "champ", "code"}
    d = WorkflowBench.load("smollm2-arith", split="domain", test_domain="code", rng=0)
    assert set(d.test.domain.tolist()) == {"code"} and "code" not in set(d.train.domain.tolist())
    assert len(b.train) + len(b.test) == b.info["n_pairs"] == len(d.train) + len(d.test)
    p = AgenticPredictor(encoder=small_enc(), hidden=16, epochs=1, lr=1e-3, rng=0).fit(b.train, label_ratio=0.2)
    assert 0.0 <= accuracy(p, b.test) <= 1.0 and 0.0 <= utility_score(p, b.test) <= 1.0


def test_fit_temperature_recovers_a_known_scale():
    from iclr26sci.agents._model import _fit_temperature

    g = np.random.default_rng(0)
    z = g.normal(0.0, 2.0, 40000)                       # true logits
    y = (g.random(z.size) < 1 / (1 + np.exp(-z))).astype(float)
    assert abs(_fit_temperature(2.5 * z, y) - 2.5) < 0.1    # over-confident scores: T ~ 2.5
    assert abs(_fit_temperature(z, y) - 1.0) < 0.05


def test_temperature_calibration_holds_out_workflows_and_keeps_ranking(bench):
    p = AgenticPredictor(encoder=small_enc(), hidden=16, epochs=2, lr=1e-3, rng=0, calibration="temperature",
                         calibration_fraction=0.3).fit(bench.train)
    assert p.n_calibration_pairs_ > 0 and p.n_train_pairs_ + p.n_calibration_pairs_ == len(bench.train)
    assert p.temperature_ > 0 and "temperature" in p.summary() and p.to_dict()["n_calibration_pairs"] > 0
    q = p.predict_proba(bench.test)
    T, p.temperature_ = p.temperature_, 1.0
    raw = p.predict_proba(bench.test)
    z = np.log(raw / (1 - raw))
    np.testing.assert_allclose(q, 1 / (1 + np.exp(-z / T)), atol=1e-6)
    assert (np.argsort(q, kind="stable") == np.argsort(raw, kind="stable")).all() or T == 1.0
