"""ArithmeticTask and grade_answer: exact answers, disjoint held-out split, exact grading."""
from __future__ import annotations

import pytest

from iclr26sci.rl import ArithmeticTask, grade_answer


def test_answers_exact_and_split_disjoint():
    t = ArithmeticTask(n_train=150, n_test=60, ops="+-*", max_operand=12, rng=3)
    assert len(t.train) == 150 and len(t.test) == 60
    assert not {r["expr"] for r in t.train} & {r["expr"] for r in t.test}
    for r in t.train + t.test:
        assert r["answer"] == eval(r["expr"])          # noqa: S307 - our own generated integer expressions
        assert r["expr"] in r["prompt"]


def test_same_rng_same_task_and_chat_format():
    a, b = ArithmeticTask(n_train=5, n_test=5, rng=1), ArithmeticTask(n_train=5, n_test=5, rng=1)
    assert a.to_dict() == b.to_dict()
    c = ArithmeticTask(n_train=2, n_test=1, chat=True)
    assert c.train[0]["prompt"][0]["role"] == "user" and c.prompts("train")[0].startswith("What is")


@pytest.mark.parametrize("text,ans,which,score", [
    (" 12\n\n3 + 4", 12, "first", 1.0), (" 12\n\n3 + 4", 4, "last", 1.0), ("12.0", 12, "first", 1.0),
    ("12.5", 12, "first", 0.0), ("-7 is it", -7, "first", 1.0), ("1,234 apples", 1234, "first", 1.0),
    ("no number", 0, "first", 0.0), ("3/4", "3/4", "first", 1.0), ("x12", 12, "first", 0.0),
    ("120", 12, "first", 0.0),
])
def test_grader_exact(text, ans, which, score):
    assert grade_answer(text, ans, which=which) == score


def test_reward_accepts_conversational_completions():
    t = ArithmeticTask(n_train=2, n_test=1)
    assert t.reward([[{"role": "assistant", "content": "5"}], "6"], answer=[5, 5]) == [1.0, 0.0]
