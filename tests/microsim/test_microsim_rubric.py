"""Rubric schema, loader (both key variants), sampler, released scoring algebra and the two corrected defects."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from iclr26sci.core import InputError
from iclr26sci.microsim import (OracleJudge, Rubric, TaskRubric, aggregate, build_prompt, parse_reply,
                                sample_frame_indices, score_verdicts, score_video)
from iclr26sci.microsim import Criterion as C

DIMS = ("scientific", "visual", "instruction")


def _entry(index=1, zh=False, keys=(1, 2, 3), signs=("+1", "+1", "-1"), weights=(1.0, "0.5", 1.0)):
    e = {"index": index}
    e.update({"任务": "tz", "具体要求": "rz"} if zh else {"task": "te", "requirement": "re"})
    for d in DIMS:
        e[f"rubrics_{d}"] = {}
        for k, s, w in zip(keys, signs, weights):
            e[f"rubrics_{d}"].update({f"d{k}": f"crit {k}", f"s{k}": s, f"w{k}": w})
    return e


def _write(tmp_path, data, name="r.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data, ensure_ascii=False))
    return p


def test_load_both_key_variants(tmp_path):
    r = Rubric.load(_write(tmp_path, [_entry(1), _entry(2, zh=True)]))
    assert (r.task(1).task, r.task(1).requirement) == ("te", "re")
    assert (r.task(2).task, r.task(2).requirement) == ("tz", "rz")
    assert [c.weight for c in r.task(1).criteria["scientific"]] == [1.0, 0.5, 1.0]
    assert [c.sign for c in r.task(1).criteria["visual"]] == [1, 1, -1]


def test_levels_from_tasks_file(tmp_path):
    p = _write(tmp_path, [_entry(1), _entry(2)])
    t = _write(tmp_path, [{"index": 1, "final_label": "Organ-level"}, {"index": 2, "final_label": "Cellular-level"}],
               "finaltasks.json")
    r = Rubric.load(p, tasks_path=t)
    assert r.task(1).level == "Organ-level" and r.counts()["levels"] == {"Organ-level": 1, "Cellular-level": 1}


def test_example_rubric_schema():
    r = Rubric.example()
    assert len(r) == 6 and r.n_criteria == 90
    assert "任务" in r.task("optical_trap").raw and r.task("optical_trap").task.startswith("A single silica bead")
    assert [c.key for c in r.task("laminar_flow").criteria["instruction"]] == [11, 22, 33, 44, 55]
    assert "Rubric(tasks=6" in repr(r) and r.to_dict()["tasks"][0]["index"] == 1


@pytest.mark.bad_input("microsim.Rubric", "microsim.TaskRubric")
@pytest.mark.parametrize("mutate,match", [
    (lambda e: e.pop("index"), "'index'"),
    (lambda e: e.pop("task"), "'task'"),
    (lambda e: e.pop("requirement"), "'requirement'"),
    (lambda e: e.pop("rubrics_visual"), "'rubrics_visual'"),
    (lambda e: e["rubrics_scientific"].pop("w2"), "'w2'"),
    (lambda e: e["rubrics_scientific"].pop("s1"), "'s1'"),
    (lambda e: e["rubrics_scientific"].update(s1="+2"), "sign"),
    (lambda e: e["rubrics_scientific"].update(w1=-1), "weight"),
    (lambda e: e["rubrics_scientific"].update(w1="heavy"), "weight"),
    (lambda e: e.update(rubrics_visual={}), "no criteria"),
])
def test_rubric_missing_or_bad_keys_are_named(tmp_path, mutate, match):
    e = _entry()
    mutate(e)
    with pytest.raises(InputError, match="path") as ei:
        Rubric.load(_write(tmp_path, [e]))
    assert match in str(ei.value)


@pytest.mark.bad_input("microsim.Rubric")
def test_rubric_bad_paths(tmp_path):
    with pytest.raises(InputError, match="path"):
        Rubric.load(tmp_path / "missing.json")
    with pytest.raises(InputError, match="path"):
        Rubric.load(123)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="path"):
        Rubric.load(bad)
    with pytest.raises(InputError, match="path"):
        Rubric.load(_write(tmp_path, []))
    with pytest.raises(InputError, match="path"):  # duplicate index
        Rubric.load(_write(tmp_path, [_entry(1), _entry(1)]))
    with pytest.raises(InputError, match="tasks_path"):
        Rubric.load(_write(tmp_path, [_entry(1)]), tasks_path=tmp_path / "nope.json")
    with pytest.raises(InputError, match="key"):
        Rubric.example().task("no_such_task")


def test_sampler_matches_release():
    assert sample_frame_indices(81) == [5, 15, 25, 35, 45, 55, 65, 75]
    assert sample_frame_indices(8) == list(range(8))
    assert sample_frame_indices(100, 1) == [50]
    # release formula int(i*s + s/2)
    assert sample_frame_indices(37, 8) == [int(i * 37 / 8 + 37 / 16) for i in range(8)]


@pytest.mark.bad_input("microsim.sample_frame_indices")
def test_sampler_refuses_too_few_frames():
    with pytest.raises(InputError, match="n_frames"):
        sample_frame_indices(7, 8)
    with pytest.raises(InputError, match="n"):
        sample_frame_indices(10, 0)


def test_hand_computed_scores():
    t = Rubric.example().task("brownian_motion")
    s = score_verdicts(t, {"scientific": [1, 1, 0, 1, 1], "visual": [1, 0, 0, 1, 1], "instruction": [0, 0, 0, 0, 1]})
    # scientific: raw 1 + 1 + 0.5 - 1 = 1.5 of max 3 -> 50; visual 0.5 + 0.2 - 0 of 1.4 -> 50;
    # instruction -0.5 of 1.4 -> clamped to 0; total 100 * 1.7 / 5.8
    assert s.dimension_scores == pytest.approx({"scientific": 50.0, "visual": 50.0, "instruction": 0.0})
    assert s.total == pytest.approx(100 * 1.7 / 5.8)
    assert s.valid and "VideoScore(task=1" in repr(s) and s.to_dict()["total"] == pytest.approx(s.total)


def test_missing_dimension_makes_task_invalid():
    t = Rubric.example().task(1)
    s = score_verdicts(t, {"scientific": [1] * 5, "visual": [1] * 5, "instruction": None})
    assert not s.valid and s.total == 0.0


def test_release_defect_empty_task_text():
    t = Rubric.example().task("brownian_motion")   # English keys
    released, _ = build_prompt(t, "scientific", faithful_to_release=True)
    fixed, _ = build_prompt(t, "scientific")
    assert "**Task Description:**\n\n" in released and t.task not in released
    assert t.task in fixed and t.requirement in fixed
    zh = Rubric.example().task("optical_trap")     # Chinese keys: the release reads them
    assert zh.task in build_prompt(zh, "scientific", faithful_to_release=True)[0]


def test_release_defect_dropped_criteria():
    t = Rubric.example().task("laminar_flow")
    assert build_prompt(t, "instruction", faithful_to_release=True)[1] == ()
    assert len(build_prompt(t, "instruction")[1]) == 5
    video = np.zeros((8, 4, 4), np.uint8)
    assert not score_video(video, t, OracleJudge(), faithful_to_release=True).valid
    assert score_video(video, t, OracleJudge()).total == 100.0

    def five(frames, req):
        return [1, 1, 1, 1, 0]
    f = score_video(video, t, five, faithful_to_release=True)
    assert f.max["instruction"] == 0 and f.dimension_scores["instruction"] == 0.0   # matched nothing
    # a short score list: the release silently drops criteria 4 and 5
    t1 = Rubric.example().task(1)
    short = score_video(video, t1, lambda fr, rq: [1, 1, 1], faithful_to_release=True)
    assert short.max["scientific"] == pytest.approx(2.5)   # w1 + w2 + w3 only
    with pytest.raises(InputError, match="judge"):
        score_video(video, t1, lambda fr, rq: [1, 1, 1])


def test_aggregate_release_coverage():
    r = Rubric.example()
    v = np.zeros((8, 4, 4), np.uint8)
    corr = aggregate([score_video(v, t, OracleJudge()) for t in r])
    rel = aggregate([score_video(v, t, OracleJudge(), faithful_to_release=True) for t in r], faithful_to_release=True)
    assert (corr.valid, corr.n_tasks, corr.coverage, corr.overall) == (6, 6, 1.0, 100.0)
    assert (rel.valid, rel.n_tasks) == (5, 459) and rel.coverage == pytest.approx(5 / 459)
    assert set(corr.levels) == {"Subcellular-level", "Cellular-level", "Organ-level"}
    assert corr.tables()["dimensions"]["Scientific"] == 100.0 and "BenchmarkScore" in corr.summary()


def test_judge_reply_formats():
    t = Rubric.example().task(1)
    v = np.zeros((8, 4, 4), np.uint8)
    reply = lambda fr, rq: 'Here: {"scores": [1, 1, 1, 1, 0], "reasoning": "x"}'  # noqa: E731
    assert score_video(v, t, reply).total == score_video(v, t, lambda fr, rq: [1, 1, 1, 1, 0]).total
    keyed = lambda fr, rq: {c.key: int(c.positive) for c in rq.criteria}  # noqa: E731
    assert score_video(v, t, keyed).total == 100.0
    garbage = lambda fr, rq: "I cannot judge this"  # noqa: E731
    assert not score_video(v, t, garbage).valid
    assert parse_reply("x {\"scores\": [0]} y") == {"scores": [0]}


@pytest.mark.bad_input("microsim.score_video", "microsim.parse_reply", "microsim.build_prompt", "microsim.score_verdicts")
def test_score_video_bad_input():
    t = Rubric.example().task(1)
    v = np.zeros((8, 4, 4), np.uint8)
    with pytest.raises(InputError, match="n_frames"):
        score_video(np.zeros((5, 4, 4)), t, OracleJudge())
    nan = np.zeros((8, 4, 4))
    nan[3, 1, 1] = np.nan
    with pytest.raises(InputError, match="video"):
        score_video(nan, t, OracleJudge())
    with pytest.raises(InputError, match="judge"):   # verdicts for the wrong criteria (keys)
        score_video(v, t, lambda fr, rq: {9: 1, 8: 0})
    with pytest.raises(InputError, match="judge"):
        score_video(v, t, lambda fr, rq: [2, 0, 0, 0, 0])
    with pytest.raises(InputError, match="judge"):
        score_video(v, t, "not callable")
    with pytest.raises(InputError, match="task"):
        score_video(v, {"index": 1}, OracleJudge())
    with pytest.raises(InputError, match="faithful_to_release"):
        score_video(v, t, OracleJudge(), faithful_to_release="yes")
    with pytest.raises(InputError, match="text"):
        parse_reply(None)
    with pytest.raises(InputError, match="dimension"):
        build_prompt(t, "style")
    with pytest.raises(InputError, match="verdicts"):
        score_verdicts(t, {"scientific": [1, 1]})
    with pytest.raises(InputError, match="verdicts"):
        score_verdicts(t, {"colour": [1]})


@pytest.mark.bad_input("microsim.aggregate")
def test_aggregate_bad_input():
    with pytest.raises(InputError, match="scores"):
        aggregate([1, 2])
    one = [score_video(np.zeros((8, 4, 4), np.uint8), Rubric.example().task(1), OracleJudge())]
    with pytest.raises(InputError, match="n_tasks"):
        aggregate(one, n_tasks=0)
    with pytest.raises(InputError, match="scores"):       # an empty benchmark has no score
        aggregate([])
    with pytest.raises(InputError, match="scores"):       # the same task twice would inflate coverage
        aggregate(one * 2)


# ------------------------------------------------------------------ hypothesis: the scoring invariants
@st.composite
def task_and_bits(draw):
    crits, bits = {}, {}
    for d in DIMS:
        k = draw(st.integers(1, 6))
        signs = draw(st.lists(st.sampled_from([1, -1]), min_size=k, max_size=k))
        signs[0] = 1
        w = draw(st.lists(st.sampled_from([0.2, 0.5, 1.0, 2.0, 3.0]), min_size=k, max_size=k))
        crits[d] = tuple(C(i + 1, f"c{i}", signs[i], w[i]) for i in range(k))
        bits[d] = draw(st.lists(st.integers(0, 1), min_size=k, max_size=k))
    return TaskRubric(1, "t", "r", crits), bits


@given(task_and_bits(), st.floats(0.01, 100))
def test_scoring_invariants(tb, c):
    import dataclasses

    t, bits = tb
    s = score_verdicts(t, bits)
    assert 0 <= s.total <= 100 and all(0 <= v <= 100 for v in s.dimension_scores.values())
    perfect = all(b == int(cr.positive) for d in DIMS for b, cr in zip(bits[d], t.criteria[d]))
    assert (abs(s.total - 100) < 1e-9) == perfect
    scaled = dataclasses.replace(t, criteria={d: tuple(dataclasses.replace(x, weight=x.weight * c) for x in v)
                                              for d, v in t.criteria.items()})
    assert score_verdicts(scaled, bits).total == pytest.approx(s.total, abs=1e-9)
    for d in DIMS:
        for i, cr in enumerate(t.criteria[d]):
            up = {k: list(v) for k, v in bits.items()}
            up[d][i] = 1
            dn = {k: list(v) for k, v in bits.items()}
            dn[d][i] = 0
            if cr.positive:
                assert score_verdicts(t, up).total >= score_verdicts(t, dn).total - 1e-9
            else:
                assert score_verdicts(t, up).total <= score_verdicts(t, dn).total + 1e-9


def test_official_rubric_counts_if_supplied():
    """On the official MWBenchRubrics.json (not shipped; set ICLR26SCI_MWBENCH_RUBRIC to its path)."""
    import os

    path = os.environ.get("ICLR26SCI_MWBENCH_RUBRIC")
    if not path:
        pytest.skip("official rubric not supplied (ICLR26SCI_MWBENCH_RUBRIC)")
    r = Rubric.load(path)
    assert (len(r), r.n_criteria) == (459, 6884)
