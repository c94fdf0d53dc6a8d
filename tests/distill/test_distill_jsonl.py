"""Users' own teacher rationales as JSON Lines: MultiTeacherData.from_jsonl reads, validates and routes them."""
from __future__ import annotations

import json

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.distill import MultiTeacherData, SimilarityRouter


def _write(tmp_path, rows, name="r.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return p


def _rows(n=6, teachers=("alpha", "beta", "gamma")):
    out = []
    for i in range(n):
        q = f"Question {i}: what is {i} + {i}? (a) {2 * i} (b) {2 * i + 1}"
        for k, t in enumerate(teachers):
            right = (i + k) % 3 != 0
            ans = str(2 * i if right else 2 * i + 1)
            r = {"question": q, "teacher": t, "rationale": f"{t} adds {i} and {i}. Thus the answer is {ans}.",
                 "answer": ans, "domain": "even" if i % 2 == 0 else "odd"}
            if k == 0:
                r["gold"] = str(2 * i)
            out.append(r)
    return out


def test_reads_questions_teachers_and_correctness(tmp_path):
    d = MultiTeacherData.from_jsonl(_write(tmp_path, _rows()))
    assert (d.n, d.K, d.teachers) == (6, 3, ["alpha", "beta", "gamma"])
    want = np.array([[int((i + k) % 3 != 0) for k in range(3)] for i in range(6)])
    assert np.array_equal(d.correct, want)
    assert d.answers[3] == "6" and d.teacher_answers[3][0] == "7" and d.teacher_answers[3][1] == "6" and d.domains[:2] == ["even", "odd"]
    assert d.rationales[1][2].startswith("gamma adds 1")


def test_correct_field_wins_and_order_of_lines_does_not_matter(tmp_path):
    rows = _rows(4)
    for r in rows:
        r.pop("gold", None)
        r["correct"] = bool(r["answer"] == str(2 * int(r["question"].split()[1].rstrip(":"))))
    a = MultiTeacherData.from_jsonl(_write(tmp_path, rows, "a.jsonl"))
    b = MultiTeacherData.from_jsonl(_write(tmp_path, rows[::-1], "b.jsonl"))
    ia = {q: i for i, q in enumerate(a.questions)}
    perm_t = [b.teachers.index(t) for t in a.teachers]
    for j, q in enumerate(b.questions):
        assert np.array_equal(b.correct[j, perm_t], a.correct[ia[q]])


def test_blank_lines_are_skipped_and_routers_accept_the_data(tmp_path):
    rows = _rows(12)
    rows.insert(5, "   ")
    d = MultiTeacherData.from_jsonl(_write(tmp_path, rows))
    p = SimilarityRouter(embedder="hashing", m=3).fit(d).purify(d)
    assert p.n == 12


@pytest.mark.parametrize("mutate,match", [
    (lambda rows: rows.__setitem__(2, "{not json"), r"line 3: is not valid JSON"),
    (lambda rows: rows[1].pop("rationale"), r"line 2: field 'rationale' is missing"),
    (lambda rows: rows[1].__setitem__("rationale", "  "), r"line 2: field 'rationale'"),
    (lambda rows: rows[4].pop("answer"), r"line 5: field 'answer' is missing"),
    (lambda rows: rows[0].__setitem__("correct", 2), r"line 1: field 'correct' is 2"),
    (lambda rows: rows[0].__setitem__("teacher", 7), r"line 1: field 'teacher'"),
    (lambda rows: rows[0].__setitem__("score", 1.0), r"line 1: has unknown field"),
    (lambda rows: rows.__setitem__(1, json.dumps([1, 2])), r"line 2: is a JSON list"),
    (lambda rows: rows.append(dict(rows[0])), r"line 19: repeats teacher 'alpha'"),
    (lambda rows: rows.pop(4), r"line 4: the question has no line from teacher\(s\) \['beta'\]"),
    (lambda rows: rows[0].pop("gold"), r"line 1: field 'correct' is missing"),
    (lambda rows: rows[1].__setitem__("gold", "99"), r"line 2: field 'gold' is '99' but line 1"),
    (lambda rows: rows[3].pop("domain") and [r.pop("domain") for r in rows[4:6]], r"line 4: the question has no "
                                                                                   r"'domain'"),
])
def test_bad_lines_name_the_line_and_field(tmp_path, mutate, match):
    rows = _rows()
    mutate(rows)
    with pytest.raises(InputError, match=match) as e:
        MultiTeacherData.from_jsonl(_write(tmp_path, rows))
    assert e.value.argument == "path"


def test_bad_files(tmp_path):
    with pytest.raises(InputError, match="is not a file"):
        MultiTeacherData.from_jsonl(tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match="holds no records"):
        MultiTeacherData.from_jsonl(_write(tmp_path, ["", " "]))
    with pytest.raises(InputError, match="at least 2 teachers"):
        MultiTeacherData.from_jsonl(_write(tmp_path, [r for r in _rows() if r["teacher"] == "alpha"]))
    with pytest.raises(InputError, match="path"):
        MultiTeacherData.from_jsonl(3)
