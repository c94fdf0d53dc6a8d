"""Bad input to iclr26sci.agents: a clear InputError naming the argument, before any work."""
import numpy as np
import pytest

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.agents import (AgenticPredictor, GraphBaseline, MultiViewWorkflowEncoder, PairSet, Workflow,
                              WorkflowBench, accuracy, hash_embed, precision_at_k, pretrain, ranking_utility,
                              synthetic_workflow_bench, utility_score)

BAD_INPUT_EXEMPT = {
    "agents.OPERATORS": "a constant (operator descriptions and sources)",
    "agents.FLORA_ROLE_PROMPTS": "a constant (the FLORA-Bench operator prompts the reader matches node prompts against)",
}


@pytest.fixture(scope="module")
def bench():
    return synthetic_workflow_bench(n_workflows=4, n_tasks=2, rng=0)


def enc():
    return MultiViewWorkflowEncoder(hidden=16, n_layers=1, text_encoder="hash", dim=16)


@pytest.mark.bad_input("agents.Workflow")
def test_workflow_bad():
    with pytest.raises(InputError, match="source"):
        Workflow.from_code("def f(:\n  pass")                       # does not parse
    with pytest.raises(InputError, match="source"):
        Workflow.from_code("x = 1")                                 # no operator call
    with pytest.raises(InputError, match="prompts"):
        Workflow.from_code("self.custom(input=problem)", prompts=["a"])
    with pytest.raises(InputError, match="edges"):                  # edge to a missing node
        Workflow(ops=["Input", "Custom"], prompts=["a", "b"], calls=["a", "b"], edges=[[0, 5], [1, 1]], code="x")
    with pytest.raises(InputError, match="prompts"):
        Workflow(ops=["Input", "Custom"], prompts=["a"], calls=["a", "b"], edges=[[0], [1]], code="x")
    with pytest.raises(InputError, match="code"):
        Workflow(ops=["Input"], prompts=["a"], calls=["a"], edges=np.zeros((2, 0)), code="")


@pytest.mark.bad_input("agents.hash_embed")
def test_hash_embed_bad():
    with pytest.raises(InputError, match="texts"):
        hash_embed([1, 2])
    with pytest.raises(InputError, match="dim"):
        hash_embed(["a"], dim=0)


@pytest.mark.bad_input("agents.PairSet")
def test_pairset_bad(bench):
    tr = bench.train
    with pytest.raises(InputError, match="tasks"):                  # a task with no text
        PairSet(tr.workflows, ["", *tr.tasks[1:]], tr.w_idx, tr.t_idx, tr.y)
    with pytest.raises(InputError, match="y"):                      # mismatched numbers of workflows and labels
        PairSet(tr.workflows, tr.tasks, tr.w_idx, tr.t_idx, tr.y[:-1])
    with pytest.raises(InputError, match="y"):
        PairSet(tr.workflows, tr.tasks, tr.w_idx, tr.t_idx, tr.y * 0.5 + 0.25)
    with pytest.raises(InputError, match="ratio"):
        tr.head(0.0)


@pytest.mark.bad_input("agents.WorkflowBench", "agents.synthetic_workflow_bench")
def test_bench_bad():
    with pytest.raises(InputError, match="name"):
        WorkflowBench.load("flora-bench")
    with pytest.raises(InputError, match="split"):
        WorkflowBench.load("smollm2-arith", split="task")
    with pytest.raises(InputError, match="test_domain"):
        WorkflowBench.load("smollm2-arith", split="domain", test_domain="physics")
    with pytest.raises(InputError, match="test_fraction"):
        WorkflowBench.load("smollm2-arith", test_fraction=0.0)
    with pytest.raises(InputError, match="n_workflows"):
        synthetic_workflow_bench(n_workflows=1)
    with pytest.raises(InputError, match="test_fraction"):
        synthetic_workflow_bench(test_fraction=1.0)
    with pytest.raises(InputError, match="domains"):
        synthetic_workflow_bench(domains=[])


@pytest.mark.bad_input("agents.accuracy", "agents.utility_score", "agents.ranking_utility", "agents.precision_at_k")
def test_metrics_bad(bench):
    with pytest.raises(InputError, match="pairs"):
        accuracy(np.zeros(3), "test")
    with pytest.raises(InputError, match="pred"):
        utility_score(np.zeros(3), bench.test)
    with pytest.raises(InputError, match="pred_scores"):
        precision_at_k([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match="tie_break"):
        ranking_utility([1, 2], [1, 2], tie_break="first")
    with pytest.raises(InputError, match="true_scores"):
        ranking_utility([], [])


@pytest.mark.bad_input("agents.MultiViewWorkflowEncoder")
def test_encoder_bad(bench):
    with pytest.raises(InputError, match="hidden"):
        MultiViewWorkflowEncoder(hidden=12).build()
    with pytest.raises(InputError, match="views"):
        MultiViewWorkflowEncoder(views=("graph", "text")).build()
    with pytest.raises(InputError, match="faithful_to_release"):
        MultiViewWorkflowEncoder(faithful_to_release=1).build()
    with pytest.raises(InputError, match="text_encoder"):
        MultiViewWorkflowEncoder(text_encoder="coderank").build()
    with pytest.raises(InputError, match="workflows"):
        enc().features(["not a workflow"])


@pytest.mark.bad_input("agents.AgenticPredictor")
def test_predictor_bad(bench):
    p = AgenticPredictor(encoder=enc(), hidden=16, epochs=1)
    with pytest.raises(NotFittedError, match="predict_proba"):      # predicting before fit
        p.predict_proba(bench.test)
    with pytest.raises(NotFittedError, match="select"):
        p.select(bench.unlabeled, "a task")
    for r in (0.0, 1.5, -0.1):                                      # a label ratio outside (0, 1]
        with pytest.raises(InputError, match="label_ratio"):
            p.fit(bench.train, label_ratio=r)
    ws = [bench.train.workflows[0]] * 3
    with pytest.raises(InputError, match="y"):                      # mismatched workflows and labels
        p.fit((ws, ["t"] * 3), [1, 0])
    with pytest.raises(InputError, match="tasks"):
        p.fit((ws, ["t"] * 2), [1, 0, 1])
    with pytest.raises(InputError, match="encoder"):
        AgenticPredictor(encoder="gat").fit(bench.train)
    with pytest.raises(InputError, match="epochs"):
        AgenticPredictor(encoder=enc(), hidden=16, epochs=0).fit(bench.train)
    with pytest.raises(InputError, match="device"):
        AgenticPredictor(encoder=enc(), hidden=16, epochs=1, device="no-such-device").fit(bench.train)
    with pytest.raises(NotFittedError, match="summary"):
        p.summary()
    fitted = AgenticPredictor(encoder=enc(), hidden=16, epochs=1, rng=0).fit(bench.train)
    with pytest.raises(InputError, match="tasks"):                  # tasks with no text
        fitted.select(bench.unlabeled, [""])
    with pytest.raises(InputError, match="candidates"):
        fitted.select([], "a task")
    with pytest.raises(InputError, match="calibration"):
        AgenticPredictor(encoder=enc(), hidden=16, epochs=1, calibration="platt").fit(bench.train)
    for f in (0.0, 1.0, 1.5):
        with pytest.raises(InputError, match="calibration_fraction"):
            AgenticPredictor(encoder=enc(), hidden=16, epochs=1, calibration="temperature",
                             calibration_fraction=f).fit(bench.train)
    one = bench.train.subset(bench.train.w_idx == bench.train.w_idx[0])   # a single training workflow
    with pytest.raises(InputError, match="calibration"):
        AgenticPredictor(encoder=enc(), hidden=16, epochs=1, calibration="temperature").fit(one)


@pytest.mark.bad_input("agents.GraphBaseline")
def test_baseline_bad(bench):
    with pytest.raises(InputError, match="kind"):
        GraphBaseline("gin").fit(bench.train)
    with pytest.raises(InputError, match="hidden"):
        GraphBaseline("gcn", hidden=10).fit(bench.train)
    with pytest.raises(NotFittedError, match="predict_proba"):
        GraphBaseline("gcn").predict_proba(bench.test)
    with pytest.raises(InputError, match="calibration"):
        GraphBaseline("gcn", hidden=8, epochs=1, text_encoder="hash", dim=16, calibration="isotonic").fit(bench.train)


@pytest.mark.bad_input("agents.pretrain")
def test_pretrain_bad(bench):
    with pytest.raises(InputError, match="workflows"):
        pretrain(bench.unlabeled[:1], encoder=enc())
    with pytest.raises(InputError, match="temperature"):
        pretrain(bench.unlabeled, encoder=enc(), temperature=0)
    with pytest.raises(InputError, match="positives"):
        pretrain(bench.unlabeled, encoder=enc(), positives="mixed")
    with pytest.raises(InputError, match="encoder"):
        pretrain(bench.unlabeled, encoder="gat")
    with pytest.raises(InputError, match="device"):
        pretrain(bench.unlabeled, encoder=enc(), device=3)


def test_sandbox_bad():
    from iclr26sci.agents._sandbox import run_python

    with pytest.raises(InputError, match="code"):
        run_python(b"print(1)")
    with pytest.raises(InputError, match="timeout"):
        run_python("print(1)", timeout=0)
    with pytest.raises(InputError, match="memory_mb"):
        run_python("print(1)", memory_mb=1)
