"""Containers: :class:`MultiTeacherData` (questions, K teachers' rationales, their implied answers and
correctness) and :class:`PurifiedData` (one distillation target per question)."""
from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, Sequence

import numpy as np

from iclr26sci.core import InputError, as_generator, check_in_range, check_positive_int

from ._checks import check_rng, check_texts, is_real

__all__ = ["MultiTeacherData", "PurifiedData"]

#: CHAMP prompt-setting aliases accepted by :meth:`MultiTeacherData.from_champ`
_CHAMP_ALIASES = {"default": "0-Shot"}


def _check_texts(value, name, n=None, allow_empty=False):
    if isinstance(value, str) or not isinstance(value, Sequence) and not isinstance(value, np.ndarray):
        raise InputError(name, f"got {type(value).__name__}", "a list of strings")
    out = list(value)
    if n is not None and len(out) != n:
        raise InputError(name, f"has {len(out)} entries", f"one per question ({n})")
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise InputError(name, f"entry {i} is {type(t).__name__}", "strings")
        if not allow_empty and not t.strip():
            raise InputError(name, f"entry {i} is empty", "non-empty text")
    return out


def _check_binary(value, name, shape):
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, "is not numeric", "an array of 0/1 labels") from None
    if a.shape != shape:
        raise InputError(name, f"has shape {a.shape}", f"shape {shape} (questions x teachers)")
    if not np.all(np.isfinite(a)) or not np.all((a == 0) | (a == 1)):
        bad = a[~((a == 0) | (a == 1))]
        raise InputError(name, f"has labels outside {{0, 1}} (e.g. {bad.ravel()[0]!r})", "0/1 correctness labels")
    return a.astype(np.int8)


@dataclass(frozen=True, repr=False, eq=False)
class MultiTeacherData:
    r"""Questions with the rationales of K teachers, the answer each rationale implies and its correctness.

    Row ``i`` holds question :math:`x_i` with gold answer :math:`y_i`; column ``k`` teacher k's rationale
    :math:`r_{i,k}`, the answer :math:`a_{i,k}` its final line states, and
    :math:`c_{i,k} = [a_{i,k} = y_i] \in \{0, 1\}` (observed on training data, where gold answers exist).

    Parameters
    ----------
    questions : list of str
        The question texts (with options where the task has them).
    rationales : list of list of str
        ``rationales[i][k]``: teacher k's rationale for question i; every question has exactly K (>= 2)
        non-empty rationales.
    answers : list of str
        Gold answers.
    teacher_answers : list of list of str, optional
        The answer each rationale states (default: the gold answer where ``correct`` is 1, else
        ``"wrong:<k>"``, which keeps distinct wrong teachers distinct).
    correct : array-like of 0/1, shape (n, K), optional
        :math:`c_{i,k}`; default ``teacher_answers == answers``.
    domains : list of str, optional
        A domain (category) label per question: the OOD unit.
    teachers : list of str, optional
        Teacher names (default ``"teacher0"``...).
    ids : list of str, optional
        Question identifiers.

    Examples
    --------
    >>> d = MultiTeacherData(["2+2?", "3+3?"], [["4 so 4", "5 so 5"], ["6 so 6", "6 so 6"]], ["4", "6"],
    ...                      teacher_answers=[["4", "5"], ["6", "6"]])
    >>> d.n, d.K, d.correct.tolist(), round(d.conflict_rate(), 2)
    (2, 2, [[1, 0], [1, 1]], 0.5)
    """

    questions: list
    rationales: list
    answers: list
    teacher_answers: Any = None
    correct: Any = None
    domains: Any = None
    teachers: Any = None
    ids: Any = None
    _split: Any = field(default=None, repr=False)

    def __post_init__(self):
        q = _check_texts(self.questions, "questions")
        n = len(q)
        if n == 0:
            raise InputError("questions", "is empty", "at least one question")
        r = self.rationales
        if isinstance(r, str) or not hasattr(r, "__len__") or len(r) != n:
            raise InputError("rationales", f"has {len(r) if hasattr(r, '__len__') else '?'} rows",
                             f"one list of K rationales per question ({n})")
        rows = [list(row) if not isinstance(row, str) else None for row in r]
        if any(row is None for row in rows):
            raise InputError("rationales", "has a row that is a string", "a list of K rationales per question")
        sizes = sorted({len(row) for row in rows})
        if len(sizes) > 1:
            raise InputError("rationales", f"teachers give different numbers of rationales per question {sizes}",
                             "exactly one rationale from each of the K teachers for every question")
        K = sizes[0]
        if K < 2:
            raise InputError("rationales", f"has K={K} teacher(s)", "K >= 2 teachers (multi-teacher distillation)")
        for i, row in enumerate(rows):
            for k, t in enumerate(row):
                if not isinstance(t, str):
                    raise InputError("rationales", f"[{i}][{k}] is {type(t).__name__}", "strings")
                if not t.strip():
                    raise InputError("rationales", f"[{i}][{k}] is empty", "a non-empty rationale from every teacher")
        a = _check_texts(self.answers, "answers", n)
        ta = self.teacher_answers
        if ta is not None:
            if isinstance(ta, str) or not hasattr(ta, "__len__") or len(ta) != n:
                raise InputError("teacher_answers", "does not have one row per question", f"{n} rows of K answers")
            ta = [list(row) for row in ta]
            if any(len(row) != K for row in ta):
                raise InputError("teacher_answers", "has a row without K entries", f"K={K} answers per question")
            for i, row in enumerate(ta):
                for k, x in enumerate(row):
                    if not isinstance(x, str) and not is_real(x):
                        raise InputError("teacher_answers", f"[{i}][{k}] is {type(x).__name__}",
                                         "the answer each rationale states, as a string")
            ta = [[str(x) for x in row] for row in ta]
        c = self.correct
        if c is not None:
            c = _check_binary(c, "correct", (n, K))
        if ta is None:
            if c is None:
                raise InputError("correct", "is missing and so is teacher_answers",
                                 "teacher_answers (the answer each rationale states), correct (0/1), or both")
            ta = [[a[i] if c[i, k] else f"wrong:{k}" for k in range(K)] for i in range(n)]
        if c is None:
            c = np.array([[int(ta[i][k] == a[i]) for k in range(K)] for i in range(n)], dtype=np.int8)
        dom = self.domains
        if dom is not None:
            dom = [str(x) for x in _check_texts(dom, "domains", n)]
        names = self.teachers
        if names is None:
            names = [f"teacher{k}" for k in range(K)]
        else:
            names = _check_texts(names, "teachers", K)
            if len(set(names)) != K:
                raise InputError("teachers", "has repeated names", "K distinct teacher names")
        ids = self.ids
        ids = [str(i) for i in range(n)] if ids is None else _check_texts(ids, "ids", n)
        if len(set(ids)) != n:
            raise InputError("ids", f"has {n - len(set(ids))} repeated identifier(s)", "one distinct id per question")
        for k_, v in (("questions", q), ("rationales", rows), ("answers", a), ("teacher_answers", ta),
                      ("correct", c), ("domains", dom), ("teachers", list(names)), ("ids", ids)):
            object.__setattr__(self, k_, v)

    # ------------------------------------------------------------------ basic views
    @property
    def n(self) -> int:
        """Number of questions."""
        return len(self.questions)

    @property
    def K(self) -> int:
        """Number of teachers."""
        return len(self.rationales[0])

    def __len__(self):
        return self.n

    def __repr__(self):
        sp = "" if self._split is None else f", split {len(self._split[0])}/{len(self._split[1])}"
        return f"MultiTeacherData(n={self.n}, K={self.K}{sp})"

    def subset(self, index) -> "MultiTeacherData":
        """The questions at ``index`` (integer positions or a boolean mask), as a new dataset.

        Examples
        --------
        >>> d = MultiTeacherData(["a", "b", "c"], [["x", "y"]] * 3, ["1", "1", "1"], correct=[[1, 0]] * 3)
        >>> d.subset([0, 2]).n
        2
        """
        idx = np.asarray(index)
        if idx.dtype == bool:
            if idx.shape != (self.n,):
                raise InputError("index", f"boolean mask of shape {idx.shape}", f"shape ({self.n},)")
            idx = np.flatnonzero(idx)
        if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
            raise InputError("index", "is not a 1-D array of integer positions", "integer positions or a mask")
        if idx.size == 0:
            raise InputError("index", "selects no question", "at least one position")
        if idx.min() < 0 or idx.max() >= self.n:
            raise InputError("index", f"has positions outside [0, {self.n})", "valid question positions")
        pick = lambda xs: None if xs is None else [xs[i] for i in idx]  # noqa: E731
        return MultiTeacherData(pick(self.questions), pick(self.rationales), pick(self.answers),
                                teacher_answers=pick(self.teacher_answers), correct=self.correct[idx],
                                domains=pick(self.domains), teachers=list(self.teachers), ids=pick(self.ids))

    def split(self, train_fraction: float = 0.7, *, rng=0, ood_domain=None) -> "MultiTeacherData":
        """The same data with a train/test split (by question), read back as ``.train`` / ``.test``.

        Parameters
        ----------
        train_fraction : float in (0, 1), default 0.7
            Share of questions in the training part (ignored when ``ood_domain`` is given).
        rng : int or Generator, default 0
            Seed of the random split.
        ood_domain : str or list of str, optional
            Out-of-domain split: the questions of these domains form the test part, all others train.

        Examples
        --------
        >>> d = MultiTeacherData(list("abcdefghij"), [["x", "y"]] * 10, ["1"] * 10, correct=[[1, 0]] * 10)
        >>> s = d.split(0.7, rng=0)
        >>> s.train.n, s.test.n
        (7, 3)
        """
        if ood_domain is not None:
            if self.domains is None:
                raise InputError("ood_domain", "was given but the data have no domains", "data with domains=")
            doms = [ood_domain] if isinstance(ood_domain, str) else list(ood_domain)
            known = sorted(set(self.domains))
            for dname in doms:
                if dname not in known:
                    raise InputError("ood_domain", f"{dname!r} is not a domain of the data", f"one of {known}")
            test = np.array([d in doms for d in self.domains])
            if test.all():
                raise InputError("ood_domain", "leaves no training question", "a strict subset of the domains")
            tr, te = np.flatnonzero(~test), np.flatnonzero(test)
        else:
            f = check_in_range(train_fraction, "train_fraction", 0.0, 1.0, low_open=True, high_open=True)
            perm = as_generator(rng).permutation(self.n)
            m = int(round(f * self.n))
            if m < 1 or m >= self.n:
                raise InputError("train_fraction", f"gives {m} of {self.n} questions for training",
                                 "a fraction leaving at least one question on each side")
            tr, te = np.sort(perm[:m]), np.sort(perm[m:])
        new = MultiTeacherData(self.questions, self.rationales, self.answers, teacher_answers=self.teacher_answers,
                               correct=self.correct, domains=self.domains, teachers=self.teachers, ids=self.ids)
        object.__setattr__(new, "_split", (tr, te))
        return new

    @property
    def train(self) -> "MultiTeacherData":
        """The training part of a split dataset (see :meth:`split`)."""
        if self._split is None:
            raise InputError("data", "has no train/test split", "call .split(...) (or from_champ(split=...)) first")
        return self.subset(self._split[0])

    @property
    def test(self) -> "MultiTeacherData":
        """The test part of a split dataset (see :meth:`split`)."""
        if self._split is None:
            raise InputError("data", "has no train/test split", "call .split(...) (or from_champ(split=...)) first")
        return self.subset(self._split[1])

    # ------------------------------------------------------------------ metrics
    def teacher_accuracy(self) -> np.ndarray:
        r"""Per-teacher accuracy :math:`\bar p_k = \frac1n \sum_i c_{i,k}`.

        Examples
        --------
        >>> MultiTeacherData(["a", "b"], [["x", "y"]] * 2, ["1", "1"], correct=[[1, 0], [1, 1]]).teacher_accuracy()
        array([1. , 0.5])
        """
        return self.correct.mean(axis=0)

    def conflict_rate(self) -> float:
        r"""Share of questions whose K targets imply at least two distinct answers (naive distillation's conflict).

        Examples
        --------
        >>> MultiTeacherData(["a"], [["x", "y"]], ["1"], teacher_answers=[["1", "2"]]).conflict_rate()
        1.0
        """
        return float(np.mean([len(set(row)) >= 2 for row in self.teacher_answers]))

    def target_correctness(self) -> float:
        r"""Share of the naive targets (all :math:`nK` rationales) whose implied answer is the gold one.

        Examples
        --------
        >>> MultiTeacherData(["a"], [["x", "y"]], ["1"], correct=[[1, 0]]).target_correctness()
        0.5
        """
        return float(self.correct.mean())

    def oracle_correctness(self) -> float:
        r"""Share of questions with at least one correct teacher: the per-question oracle's correctness.

        Examples
        --------
        >>> MultiTeacherData(["a", "b"], [["x", "y"]] * 2, ["1", "1"], correct=[[1, 0], [0, 0]]).oracle_correctness()
        0.5
        """
        return float(self.correct.max(axis=1).mean())

    def summary(self) -> str:
        """A few lines: size, teachers and their accuracies, conflict rate."""
        acc = ", ".join(f"{t} {a:.3f}" for t, a in zip(self.teachers, self.teacher_accuracy()))
        lines = [f"MultiTeacherData: {self.n} questions, K={self.K} teachers",
                 f"  teacher accuracy: {acc}", f"  conflict rate {self.conflict_rate():.3f}, "
                 f"oracle correctness {self.oracle_correctness():.3f}"]
        if self.domains is not None:
            lines.append(f"  domains: {sorted(set(self.domains))}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain-Python copy of the data (lists), e.g. for JSON."""
        return {"questions": list(self.questions), "rationales": [list(r) for r in self.rationales],
                "answers": list(self.answers), "teacher_answers": [list(r) for r in self.teacher_answers],
                "correct": self.correct.tolist(), "domains": None if self.domains is None else list(self.domains),
                "teachers": list(self.teachers), "ids": list(self.ids)}

    # ------------------------------------------------------------------ users' own rationales
    @classmethod
    def from_jsonl(cls, path) -> "MultiTeacherData":
        r"""Read teacher rationales from a JSON Lines file: one line per (question, teacher) pair.

        Each line is a JSON object with the fields

        - ``question`` (str): the question text (with its options); lines with the same text are one question;
        - ``teacher`` (str): the teacher's name;
        - ``rationale`` (str, non-empty): the teacher's rationale;
        - ``answer`` (str or number): the answer that rationale states;
        - ``correct`` (optional, 0/1 or true/false): whether that answer is right, :math:`c_{i,k}`;
        - ``gold`` (optional): the reference answer; needed on some line of a question when any of its lines
          lacks ``correct`` (then :math:`c_{i,k} = [a_{i,k} = y_i]`);
        - ``domain`` (optional): the question's category, the OOD unit; ``id`` (optional): its identifier.

        Every question must have exactly one line from each teacher (the teachers are those of the whole file,
        in order of first appearance); questions keep the order of their first line. Blank lines are skipped.
        The whole file is checked before anything is built, and the first problem raises an
        :class:`~iclr26sci.core.InputError` naming the line and the field.

        Parameters
        ----------
        path : str or os.PathLike
            The ``.jsonl`` file.

        Returns
        -------
        MultiTeacherData
            With ``answers`` = the gold answers (where no ``gold`` is given but ``correct`` is, the answer of a
            correct teacher, else ``"unknown"``), ``teacher_answers``, ``correct``, ``domains`` (when every
            question has one) and ``ids``.

        Examples
        --------
        >>> import json, os, tempfile
        >>> rows = [{"question": "2+2?", "teacher": "A", "rationale": "2+2=4.", "answer": "4", "gold": "4"},
        ...         {"question": "2+2?", "teacher": "B", "rationale": "2+2=5.", "answer": "5"},
        ...         {"question": "3+3?", "teacher": "A", "rationale": "3+3=6.", "answer": "6", "correct": 1},
        ...         {"question": "3+3?", "teacher": "B", "rationale": "3+3=7.", "answer": "7", "correct": 0}]
        >>> p = os.path.join(tempfile.mkdtemp(), "r.jsonl")
        >>> with open(p, "w") as f:
        ...     _ = f.write("\n".join(json.dumps(r) for r in rows))
        >>> d = MultiTeacherData.from_jsonl(p)
        >>> d.n, d.teachers, d.correct.tolist()
        (2, ['A', 'B'], [[1, 0], [1, 0]])
        """
        import json
        import os

        if not isinstance(path, (str, os.PathLike)):
            raise InputError("path", f"got {type(path).__name__}", "the path of a .jsonl file")
        if not os.path.isfile(path):
            raise InputError("path", f"{os.fspath(path)!r} is not a file", "an existing .jsonl file")
        known = {"question", "teacher", "rationale", "answer", "correct", "gold", "domain", "id"}
        qs, teachers, cells, gold, dom, ids = {}, {}, {}, {}, {}, {}

        def bad(ln, what, expected):
            return InputError("path", f"line {ln}: {what}", expected)

        with open(path, encoding="utf-8") as fh:
            for ln, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise bad(ln, f"is not valid JSON ({exc.msg})", "one JSON object per line") from None
                if not isinstance(rec, dict):
                    raise bad(ln, f"is a JSON {type(rec).__name__}", "a JSON object per line")
                extra = sorted(set(rec) - known)
                if extra:
                    raise bad(ln, f"has unknown field(s) {extra}", f"only the fields {sorted(known)}")
                for f in ("question", "teacher", "rationale"):
                    if f not in rec:
                        raise bad(ln, f"field '{f}' is missing", "question, teacher, rationale and answer on every line")
                    if not isinstance(rec[f], str) or not rec[f].strip():
                        raise bad(ln, f"field '{f}' is {rec[f]!r}", f"a non-empty string for '{f}'")
                if "answer" not in rec:
                    raise bad(ln, "field 'answer' is missing", "question, teacher, rationale and answer on every line")
                a = rec["answer"]
                if isinstance(a, bool) or not isinstance(a, (str, int, float)) or (isinstance(a, str) and not a.strip()):
                    raise bad(ln, f"field 'answer' is {a!r}", "the answer the rationale states (a string or number)")
                c = rec.get("correct")
                if c is not None and not (isinstance(c, bool) or (isinstance(c, int) and c in (0, 1))):
                    raise bad(ln, f"field 'correct' is {c!r}", "0, 1, true or false (or leave it out)")
                q, t = rec["question"], rec["teacher"]
                qs.setdefault(q, ln)
                teachers.setdefault(t, ln)
                if (q, t) in cells:
                    raise bad(ln, f"repeats teacher {t!r} for the question of line {cells[(q, t)][0]}",
                              "one line per (question, teacher)")
                cells[(q, t)] = (ln, rec["rationale"], str(a), None if c is None else int(c))
                for f, store in (("gold", gold), ("domain", dom), ("id", ids)):
                    if rec.get(f) is None:
                        continue
                    v = rec[f]
                    if isinstance(v, bool) or not isinstance(v, (str, int, float)) or not str(v).strip():
                        raise bad(ln, f"field '{f}' is {v!r}", f"a non-empty string for '{f}'")
                    if q in store and store[q][1] != str(v):
                        raise bad(ln, f"field '{f}' is {str(v)!r} but line {store[q][0]} gives {store[q][1]!r} for "
                                      "the same question", f"one '{f}' per question")
                    store.setdefault(q, (ln, str(v)))
        if not qs:
            raise InputError("path", "holds no records", "at least one JSON line")
        T = list(teachers)
        if len(T) < 2:
            raise InputError("path", f"has {len(T)} teacher(s) ({T})", "rationales from at least 2 teachers")
        rows, tans, corr, answers = [], [], [], []
        for q, first in qs.items():
            miss = [t for t in T if (q, t) not in cells]
            if miss:
                raise InputError("path", f"line {first}: the question has no line from teacher(s) {miss}",
                                 f"one line from each of the teachers {T} for every question")
            cs = [cells[(q, t)] for t in T]
            g = gold.get(q, (None, None))[1]
            if g is None and any(c[3] is None for c in cs):
                ln = next(c[0] for c in cs if c[3] is None)
                raise bad(ln, "field 'correct' is missing and the question has no 'gold' answer",
                          "'correct' on every line of the question, or a 'gold' answer on one of them")
            cc = [c[3] if c[3] is not None else int(c[2].strip() == g.strip()) for c in cs]
            if g is None:
                g = next((c[2] for c, v in zip(cs, cc) if v), "unknown")
            rows.append([c[1] for c in cs])
            tans.append([c[2] for c in cs])
            corr.append(cc)
            answers.append(g)
        domains = [dom[q][1] for q in qs] if len(dom) == len(qs) else None
        if dom and domains is None:
            q = next(q for q in qs if q not in dom)
            raise InputError("path", f"line {qs[q]}: the question has no 'domain' while others have one",
                             "a 'domain' for every question, or for none")
        qid = [ids[q][1] if q in ids else f"q{j}" for j, q in enumerate(qs)]
        if len(set(qid)) != len(qid):
            raise InputError("path", "gives the same 'id' to two questions", "one distinct id per question")
        return cls(list(qs), rows, answers, teacher_answers=tans, correct=np.array(corr, dtype=np.int8),
                   domains=domains, teachers=T, ids=qid)

    # ------------------------------------------------------------------ CHAMP
    @classmethod
    def from_champ(cls, records: dict, *, split: float | None = 0.7, rng=0, ood_category=None) -> "MultiTeacherData":
        """Build the data from CHAMP teacher records (four real LLMs' solutions of 270 competition problems).

        The records come from ``data_adapters.champ_teacher_records(prompt_setting)``, which reads the
        ``champ-dataset`` package and grades each model's final answer with the project's CHAMP grader
        (sympy); this classmethod only assembles them (the method layer does not import data adapters).
        ``data_adapters.load_champ_teachers(...)`` does both steps in one call.

        Parameters
        ----------
        records : dict
            Keys ``questions``, ``rationales`` (n x 4 solutions), ``answers`` (reference answers),
            ``teacher_answers`` (each model's one-sentence final answer, normalised), ``correct`` (0/1),
            ``domains`` (the five CHAMP categories), ``teachers`` (model names), ``ids`` (problem ids).
        split : float in (0, 1) or None, default 0.7
            Train share of a random split by problem (None: no split).
        rng : int or Generator, default 0
            Seed of the split.
        ood_category : str, optional
            Out-of-domain split instead: this category is the test part.

        Examples
        --------
        >>> rec = {"questions": ["q1", "q2"], "rationales": [["s", "t"], ["u", "v"]], "answers": ["1", "2"],
        ...        "teacher_answers": [["1", "3"], ["2", "2"]], "correct": [[1, 0], [1, 1]],
        ...        "domains": ["A", "B"], "teachers": ["m1", "m2"], "ids": ["P1", "P2"]}
        >>> MultiTeacherData.from_champ(rec, split=None).teacher_accuracy().tolist()
        [1.0, 0.5]
        """
        if not isinstance(records, dict):
            raise InputError("records", f"got {type(records).__name__}",
                             "the dict returned by data_adapters.champ_teacher_records(prompt_setting)")
        need = ("questions", "rationales", "answers", "correct")
        missing = [k for k in need if k not in records]
        if missing:
            raise InputError("records", f"lacks keys {missing}", f"a dict with keys {list(need)} (+ optional ones)")
        if split is not None and (isinstance(split, bool) or not isinstance(split, (int, float, np.floating))
                                  or not 0.0 < float(split) < 1.0):
            raise InputError("split", f"got {split!r}", "a train share in (0, 1), or None for no split")
        check_rng(rng)
        if ood_category is not None and not isinstance(ood_category, str) and not (
                isinstance(ood_category, (list, tuple)) and ood_category
                and all(isinstance(c, str) for c in ood_category)):
            raise InputError("ood_category", f"got {ood_category!r}", "None, a category name or a list of them")
        data = cls(records["questions"], records["rationales"], records["answers"],
                   teacher_answers=records.get("teacher_answers"), correct=records["correct"],
                   domains=records.get("domains"), teachers=records.get("teachers"), ids=records.get("ids"))
        if ood_category is not None:
            try:
                return data.split(ood_domain=ood_category)
            except InputError as exc:
                raise InputError("ood_category", exc.problem, exc.expected) from None
        if split is None:
            return data
        return data.split(split, rng=rng)


@dataclass(frozen=True, repr=False, eq=False)
class PurifiedData:
    r"""One distillation target per question: the purified rationale :math:`r^*_i` and what it implies.

    Attributes
    ----------
    questions, answers : list of str
        As in the source data (gold answers; used by the answer task of the loss).
    rationales : list of str
        The purified rationales.
    implied_answers : list of str
        The answer each purified rationale states.
    correct : ndarray of int8, shape (n,)
        Whether it is the gold answer (known where gold answers are).
    teacher : ndarray of int, shape (n,)
        The teacher whose rationale was chosen (-1: a synthesised rationale, e.g. aggregation).
    method : str
        The purifier's name.
    domains : list of str or None

    Examples
    --------
    >>> p = PurifiedData(["q"], ["2"], ["r so 2"], ["2"], np.array([1]), np.array([0]), "oracle")
    >>> p.target_correctness(), p.conflict_rate()
    (1.0, 0.0)
    """

    questions: list
    answers: list
    rationales: list
    implied_answers: list
    correct: np.ndarray
    teacher: np.ndarray
    method: str
    domains: Any = None
    teachers: Any = None

    def __post_init__(self):
        q = check_texts(self.questions, "questions")
        n = len(q)
        fields = {"questions": q, "answers": check_texts(self.answers, "answers", n=n),
                  "rationales": check_texts(self.rationales, "rationales", n=n),
                  "implied_answers": check_texts(self.implied_answers, "implied_answers", n=n)}
        c = _check_binary(self.correct, "correct", (n,))
        t = np.asarray(self.teacher)
        if t.shape != (n,) or (t.size and not (np.issubdtype(t.dtype, np.integer)
                                             or (np.issubdtype(t.dtype, np.floating) and np.all(t == np.round(t))))):
            raise InputError("teacher", f"has shape {t.shape} and dtype {t.dtype}",
                             f"{n} integer teacher indices (-1 for a synthesised rationale)")
        t = t.astype(np.int64)
        if t.size and t.min() < -1:
            raise InputError("teacher", f"has index {int(t.min())}", "teacher indices >= 0, or -1 (synthesised)")
        if not isinstance(self.method, str) or not self.method.strip():
            raise InputError("method", f"got {self.method!r}", "the purifier's name")
        dom = None if self.domains is None else check_texts(self.domains, "domains", n=n)
        names = None
        if self.teachers is not None:
            names = check_texts(self.teachers, "teachers", min_len=1)
            if t.size and t.max() >= len(names):
                raise InputError("teacher", f"has index {int(t.max())}", f"indices of the {len(names)} teachers")
        for k, v in {**fields, "correct": c, "teacher": t, "domains": dom, "teachers": names}.items():
            object.__setattr__(self, k, v)

    @property
    def n(self) -> int:
        return len(self.questions)

    def __len__(self):
        return self.n

    def __repr__(self):
        return f"PurifiedData(n={self.n}, method={self.method!r}, correctness={self.target_correctness():.3f})"

    def target_correctness(self) -> float:
        """Share of purified targets whose implied answer is the gold one."""
        return float(np.mean(self.correct))

    def conflict_rate(self) -> float:
        """0 by construction: one target per question implies one answer."""
        return 0.0

    def teacher_share(self, K: int | None = None) -> np.ndarray:
        """How often each teacher was chosen (synthesised targets, -1, are not counted).

        Examples
        --------
        >>> PurifiedData(["q", "r"], ["1", "2"], ["a", "b"], ["1", "2"], [1, 1], [0, 2], "m").teacher_share(3)
        array([0.5, 0. , 0.5])
        """
        need = int(self.teacher.max()) + 1 if self.n else 1
        if K is None:
            K = max(need, 1) if self.teachers is None else len(self.teachers)
        K = check_positive_int(K, "K")
        if K < need:
            raise InputError("K", f"is {K} but teacher {need - 1} was chosen", f"K >= {need}")
        t = self.teacher[self.teacher >= 0]
        return np.bincount(t, minlength=K)[:K] / max(self.n, 1)

    def summary(self) -> str:
        return (f"PurifiedData ({self.method}): {self.n} targets, correctness {self.target_correctness():.3f}, "
                f"conflict rate 0")

    def to_dict(self) -> dict:
        return {"questions": list(self.questions), "answers": list(self.answers), "rationales": list(self.rationales),
                "implied_answers": list(self.implied_answers), "correct": self.correct.tolist(),
                "teacher": self.teacher.tolist(), "method": self.method}
