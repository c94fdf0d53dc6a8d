"""FLORA-Bench / G-Designer layout reader: files written here in that layout, bad input, and a round trip."""
import json

import numpy as np
import pytest

from iclr26sci.agents import AgenticPredictor, MultiViewWorkflowEncoder, read_flora
from iclr26sci.core import InputError

G1 = {"nodes": {"0": "Solve the problem.", "1": "Think step by step and solve the problem.",
                "2": "Check the answer carefully and fix mistakes."}, "edge_index": [[0, 1], [1, 2]]}
G2 = {"nodes": {"0": "Solve the problem.", "1": "You are a professional Python programmer."},
      "edge_index": [[0, 1]]}
TASKS = ["What is 2+3?", "Reverse a linked list.", "Prove the sum of two evens is even.", "Sort [3,1,2]."]


def write_jsonl(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def records():
    out = []
    for wid, g in (("a", G1), ("b", G2)):
        for i, t in enumerate(TASKS):
            out.append({**g, "workflow_id": wid, "task_id": i, "task": t, "label": int((i + (wid == "b")) % 2)})
    return out


def test_reads_inline_layout(tmp_path):
    ps = read_flora(write_jsonl(tmp_path / "train.jsonl", records()))
    assert len(ps) == 8 and len(ps.workflows) == 2 and len(ps.tasks) == 4
    a = ps.workflows[0]
    assert a.ops == ["Input", "AnswerGenerate", "Custom"] and a.edges.tolist() == [[0, 1], [1, 2]]
    assert ps.workflows[1].ops == ["Input", "Programmer"] and a.name == "a"
    assert ps.y.tolist() == [r["label"] for r in records()]


def test_reads_separate_workflow_file_and_roles(tmp_path):
    wf = {"a": G1, "b": {"nodes": {"s": "start", "x": {"prompt": "Write tests", "role": "Test"}},
                         "edge_index": [["s", "x"]], "workflow_code": "async def f(self, problem): ..."}}
    (tmp_path / "graphs.json").write_text(json.dumps(wf))
    recs = [{"workflow_id": w, "task": t, "label": True} for w in "ab" for t in TASKS[:2]]
    ps = read_flora(write_jsonl(tmp_path / "r.jsonl", recs), tmp_path / "graphs.json", domain="code")
    assert ps.workflows[1].ops == ["Input", "Test"] and ps.workflows[1].code.startswith("async def f")
    assert set(ps.domain) == {"code"} and ps.y.sum() == 4


@pytest.mark.bad_input("agents.read_flora")
@pytest.mark.parametrize("mutate, needle", [
    (lambda r: r.pop("label"), "label"),
    (lambda r: r.pop("edge_index"), "edge_index"),
    (lambda r: r.__setitem__("edge_index", [[0, 7]]), "unknown node 7"),
    (lambda r: r.__setitem__("label", 2), "0 or 1"),
    (lambda r: r.__setitem__("label", "yes"), "0 or 1"),
    (lambda r: r.__setitem__("task", ""), "task"),
    (lambda r: r.__setitem__("nodes", {}), "nodes"),
])
def test_bad_record_names_file_line_field(tmp_path, mutate, needle):
    recs = records()
    mutate(recs[3])
    with pytest.raises(InputError) as e:
        read_flora(write_jsonl(tmp_path / "bad.jsonl", recs))
    assert "bad.jsonl:4" in str(e.value) and needle in str(e.value)


@pytest.mark.bad_input("agents.read_flora")
def test_duplicates_and_unknown_ids(tmp_path):
    recs = records()
    p = write_jsonl(tmp_path / "dup.jsonl", recs + [recs[0]])
    with pytest.raises(InputError, match="duplicate record"):
        read_flora(p)
    line = json.dumps(recs[0]).replace('"1": "Think', '"0": "x", "1": "Think')   # node id "0" twice
    (tmp_path / "dupnode.jsonl").write_text(line + "\n")
    with pytest.raises(InputError, match="duplicate id '0'"):
        read_flora(tmp_path / "dupnode.jsonl")
    (tmp_path / "g.json").write_text('{"a": %s, "a": %s}' % (json.dumps(G1), json.dumps(G2)))
    with pytest.raises(InputError, match="duplicate id 'a'"):
        read_flora(write_jsonl(tmp_path / "r.jsonl", [{"workflow_id": "a", "task": "t", "label": 1}]),
                   tmp_path / "g.json")
    (tmp_path / "g.json").write_text(json.dumps({"a": G1}))
    with pytest.raises(InputError, match="unknown workflow 'zz'"):
        read_flora(write_jsonl(tmp_path / "r.jsonl", [{"workflow_id": "zz", "task": "t", "label": 1}]),
                   tmp_path / "g.json")
    bad = records()
    bad[4]["workflow_id"] = "a"       # a G2 record claiming to be workflow "a"
    with pytest.raises(InputError, match="reused for a different graph"):
        read_flora(write_jsonl(tmp_path / "reuse.jsonl", bad))
    with pytest.raises(InputError, match="no such file"):
        read_flora(tmp_path / "missing.jsonl")
    (tmp_path / "broken.jsonl").write_text("{not json\n")
    with pytest.raises(InputError, match="broken.jsonl:1"):
        read_flora(tmp_path / "broken.jsonl")


def test_round_trip_read_fit_predict(tmp_path):
    ps = read_flora(write_jsonl(tmp_path / "train.jsonl", records()))
    enc = MultiViewWorkflowEncoder(hidden=16, n_layers=1, text_encoder="hash", dim=16)
    model = AgenticPredictor(encoder=enc, hidden=16, epochs=3, lr=1e-3, rng=0).fit(ps)
    p = model.predict_proba(ps)
    assert p.shape == (len(ps),) and np.all((p > 0) & (p < 1))
