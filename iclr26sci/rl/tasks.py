"""Verifiable tasks for RL with verifiable rewards: generated arithmetic with an exact sympy grader.

:class:`ArithmeticTask` generates problems ``a op b`` (or three-operand chains) with exact integer answers,
split into disjoint train and held-out sets of distinct expressions; :func:`grade_answer` extracts the final
number of a completion and compares it exactly (as a sympy Rational) with the answer. ``math-verify`` is not
used: it accepted wrong answers in this project's audit.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from iclr26sci.core import InputError, as_generator, check_option, check_positive_int

__all__ = ["ArithmeticTask", "grade_answer"]

# a signed integer, decimal or fraction; thousands separators "1,234" are accepted
_NUM = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])|(?<![\w.])-?\d+(?:\.\d+)?(?:/\d+)?")


def _pick_number(text: str, which: str):
    import sympy

    found = _NUM.findall(text)
    if not found:
        return None
    s = (found[0] if which == "first" else found[-1]).replace(",", "")
    try:
        return sympy.Rational(s)
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def grade_answer(completion: str, answer, *, which: str = "first") -> float:
    r"""1.0 if the number the completion states equals ``answer`` exactly, else 0.0.

    The first (default) or last number of ``completion`` (integer, decimal ``12.0`` or fraction ``3/4``,
    optional minus sign, thousands commas) is parsed with ``sympy.Rational`` and compared exactly with
    ``sympy.Rational(answer)``: ``"12.0"`` matches 12, ``"12.5"`` does not, and a completion with no number
    scores 0. "first" suits short answer-only completions (a small model often rambles on after the
    answer, e.g. ``" 9\n\n14 - 0"``); "last" suits worked solutions ending with the result.

    Parameters
    ----------
    completion : str
        The model's text.
    answer : int, str or sympy number
        The exact answer.
    which : {"first", "last"}, default "first"
        Which number of the completion is its answer.

    Returns
    -------
    float

    Examples
    --------
    >>> from iclr26sci.rl import grade_answer
    >>> grade_answer(" 42\n\n7 - 3", 42), grade_answer("The answer is 41.", 42), grade_answer("42.0", 42)
    (1.0, 0.0, 1.0)
    >>> grade_answer("17 + 25 = 42", 42, which="last")
    1.0
    """
    import sympy

    which = check_option(which, "which", ["first", "last"])

    if not isinstance(completion, str):
        raise InputError("completion", f"got {type(completion).__name__}", "a string")
    try:
        truth = sympy.Rational(str(answer))
    except (TypeError, ValueError):
        raise InputError("answer", f"got {answer!r}", "an exact number (int, fraction string or sympy Rational)")
    got = _pick_number(completion, which)
    return 1.0 if (got is not None and got == truth) else 0.0


@dataclass
class ArithmeticTask:
    """Generated arithmetic problems with exact answers and a held-out split.

    Every problem is a distinct expression over integers in ``[0, max_operand]`` with the chosen operators,
    evaluated exactly with sympy. The distinct expressions are shuffled with ``rng`` and cut into a train and
    a test split, so no held-out expression is seen in training.

    Parameters
    ----------
    n_train, n_test : int
        Problems per split.
    ops : str, default "+-"
        Operators drawn from (a subset of ``"+-*"``).
    max_operand : int, default 20
        Largest operand.
    n_operands : int, default 2
        Operands per expression (2 or 3).
    chat : bool, default False
        Conversational prompts (``[{"role": "user", "content": ...}]``, formatted with the model's chat
        template by TRL and by ``LanguageModel.generate(chat=True)``) or plain completion prompts (shorter:
        a 135M model's chat template adds a ~30-token system prompt).
    template : str, optional
        The prompt; ``{expr}`` is replaced by the expression. Default ``"Question: What is {expr}?\nAnswer:"``
        (plain) or ``"What is {expr}? Reply with the number only."`` (chat).
    rng : int or Generator, default 0
        Seed of the generation and the split.

    Attributes
    ----------
    train, test : list of dict
        ``{"prompt": str or [{"role": "user", "content": ...}], "expr": ..., "answer": int}`` rows.

    Examples
    --------
    >>> from iclr26sci.rl import ArithmeticTask
    >>> task = ArithmeticTask(n_train=5, n_test=3, rng=0)
    >>> len(task.train), len(task.test), task.reward(["x = 3"], answer=[3])
    (5, 3, [1.0])
    """

    n_train: int = 200
    n_test: int = 50
    ops: str = "+-"
    max_operand: int = 20
    n_operands: int = 2
    chat: bool = False
    template: str | None = None
    rng: object = 0
    train: list = field(init=False, repr=False)
    test: list = field(init=False, repr=False)

    def __post_init__(self):
        import sympy

        n_train = check_positive_int(self.n_train, "n_train")
        n_test = check_positive_int(self.n_test, "n_test")
        if not isinstance(self.ops, str) or not self.ops or any(o not in "+-*" for o in self.ops):
            raise InputError("ops", f"got {self.ops!r}", "a non-empty string of operators from '+-*'")
        m = check_positive_int(self.max_operand, "max_operand")
        k = self.n_operands
        check_option(k, "n_operands", [2, 3])
        from iclr26sci.core import check_bool

        chat = check_bool(self.chat, "chat")
        if self.template is None:
            self.template = ("What is {expr}? Reply with the number only." if chat
                             else "Question: What is {expr}?\nAnswer:")
        if not isinstance(self.template, str) or "{expr}" not in self.template:
            raise InputError("template", f"got {self.template!r}", "a string containing '{expr}'")
        ops = sorted(set(self.ops))
        n_distinct = (m + 1) ** k * len(ops) ** (k - 1)
        if n_train + n_test > n_distinct:
            raise InputError("n_train", f"n_train + n_test = {n_train + n_test} exceeds the {n_distinct} distinct "
                             "expressions", "fewer problems, or a larger max_operand / more ops")
        g = as_generator(self.rng)
        seen, rows = set(), []
        while len(rows) < n_train + n_test:
            nums = [int(v) for v in g.integers(0, m + 1, size=k)]
            os_ = [ops[int(i)] for i in g.integers(0, len(ops), size=k - 1)]
            expr = str(nums[0]) + "".join(f" {o} {v}" for o, v in zip(os_, nums[1:]))
            if expr in seen:
                continue
            seen.add(expr)
            ans = sympy.sympify(expr.replace(" ", ""), rational=True)
            text = self.template.format(expr=expr)
            rows.append({"prompt": [{"role": "user", "content": text}] if chat else text,
                         "expr": expr, "answer": int(ans)})
        self.train, self.test = rows[:n_train], rows[n_train:]

    def __repr__(self) -> str:
        return (f"ArithmeticTask(n_train={len(self.train)}, n_test={len(self.test)}, ops={self.ops!r}, "
                f"max_operand={self.max_operand}, n_operands={self.n_operands})")

    def summary(self) -> str:
        """One line per split with an example."""
        return (f"{self!r}\n  train e.g. {self.train[0]['expr']} = {self.train[0]['answer']}"
                f"\n  test  e.g. {self.test[0]['expr']} = {self.test[0]['answer']}")

    def to_dict(self) -> dict:
        """The parameters and both splits (expressions and answers)."""
        return {"ops": self.ops, "max_operand": self.max_operand, "n_operands": self.n_operands,
                "train": [(r["expr"], r["answer"]) for r in self.train],
                "test": [(r["expr"], r["answer"]) for r in self.test]}

    def prompts(self, split: str = "test") -> list:
        """The prompts of a split as strings (the user message for a chat task)."""
        split = check_option(split, "split", ["train", "test"])
        return [r["prompt"][0]["content"] if self.chat else r["prompt"] for r in getattr(self, split)]

    def answers(self, split: str = "test") -> list:
        """The exact answers of a split."""
        split = check_option(split, "split", ["train", "test"])
        return [r["answer"] for r in getattr(self, split)]

    def dataset(self, split: str = "train"):
        """A ``datasets.Dataset`` with columns ``prompt`` (conversational), ``expr`` and ``answer`` (for TRL)."""
        from datasets import Dataset

        split = check_option(split, "split", ["train", "test"])
        return Dataset.from_list(getattr(self, split))

    def reward(self, completions, answer, **kwargs) -> list:
        """TRL-style reward function: ``grade_answer`` (first number) of each completion against its ``answer``.

        Completions may be strings or conversational ``[{"role": "assistant", "content": ...}]`` lists.
        """
        for name, v in (("completions", completions), ("answer", answer)):
            if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
                raise InputError(name, f"got {type(v).__name__}", "a list with one entry per completion")
        if len(completions) != len(answer):
            raise InputError("answer", f"has {len(answer)} entries for {len(completions)} completions",
                             "one answer per completion")
        out = []
        for c, a in zip(completions, answer):
            if isinstance(c, list):
                c = c[-1]["content"] if c else ""
            out.append(grade_answer(c, a))
        return out
