"""CHAMP as a multi-teacher distillation set: four real LLMs' solutions per problem, graded.

For each of CHAMP's 270 competition problems (five categories) and one prompt setting, the solutions of
GPT-3.5, GPT-4, GPT-4 Turbo and PaLM 2 Medium are the K = 4 teacher rationales; each model's
one-sentence final answer is graded against the reference answer with :func:`grade_champ_answer`
(sympy), which gives the teacher correctness c_{i,k}. Built on :mod:`data_adapters.llm_tasks` (no
second parser). :func:`champ_teacher_records` returns plain lists for
``iclr26sci.distill.MultiTeacherData.from_champ``; :func:`load_champ_teachers` does both steps.
"""
from __future__ import annotations

import functools
import re

from iclr26sci.core import InputError

from .llm_tasks import CHAMP_MODELS, CHAMP_SETTINGS, load_champ, load_champ_conversations

__all__ = ["champ_teacher_records", "load_champ_teachers"]

_ALIASES = {"default": "0-Shot"}
_NUM = re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?")


def _answer_key(text):
    """A comparable form of a final answer: its numbers in order, else its lower-cased words."""
    if not text:
        return "<none>"
    nums = _NUM.findall(text.replace(",", ""))
    return " ".join(nums) if nums else " ".join(re.findall(r"[a-z]+", text.lower()))[-80:]


def _cache_file(setting):
    import hashlib
    import importlib.metadata as md
    import os

    from iclr26sci.nn import cache_dir

    ver = md.version("champ-dataset")
    h = hashlib.sha256(f"{setting}|{ver}|v1".encode()).hexdigest()[:16]
    return os.path.join(str(cache_dir()), "distill", f"champ_teachers_{h}.json")


@functools.lru_cache(maxsize=20)
def _records(setting):
    """Graded records, cached in the user cache (grading 1080 answers with sympy takes ~10 s)."""
    import json
    import os

    path = _cache_file(setting)
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, ValueError):
            pass
    rec = _grade_records(setting)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + f".tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(rec, fh)
    os.replace(tmp, path)
    return rec


def _grade_records(setting):
    probs = load_champ()
    convs = load_champ_conversations(setting=setting)
    by = {(c.problem_id, c.model): c for c in convs}
    rec = {k: [] for k in ("questions", "rationales", "answers", "teacher_answers", "correct", "domains", "ids")}
    for p in probs:
        rats, keys, cor = [], [], []
        for m in CHAMP_MODELS:
            c = by[(p.identifier, m)]
            sol, fin = c.solution, c.final_answer
            text = (sol or "").strip() or (fin or "").strip() or "No answer."
            if fin and fin.strip() and fin.strip() not in text:
                text = text + "\n" + fin.strip()
            rats.append(text)
            keys.append(_answer_key(fin))
            cor.append(int(c.grade()))
        rec["questions"].append(p.statement)
        rec["rationales"].append(rats)
        rec["answers"].append(p.answer)
        rec["teacher_answers"].append(keys)
        rec["correct"].append(cor)
        rec["domains"].append(p.category)
        rec["ids"].append(p.identifier)
    rec["teachers"] = list(CHAMP_MODELS)
    return rec


def champ_teacher_records(prompt_setting="0-Shot") -> dict:
    """The four CHAMP models as teachers under one prompt setting, as plain lists (graded once, cached).

    Parameters
    ----------
    prompt_setting : str, default "0-Shot"
        One of ``CHAMP_SETTINGS`` (``"default"`` means ``"0-Shot"``).

    Returns
    -------
    dict
        ``questions``, ``rationales`` (270 x 4 solutions, the final one-sentence answer appended),
        ``answers`` (references), ``teacher_answers`` (a comparable key of each final answer: its numbers),
        ``correct`` (0/1 from :func:`grade_champ_answer`), ``domains`` (categories), ``teachers``, ``ids``.

    Examples
    --------
    >>> rec = champ_teacher_records("0-Shot")
    >>> len(rec["questions"]), rec["teachers"][1]
    (270, 'GPT-4')
    """
    s = _ALIASES.get(prompt_setting, prompt_setting)
    if not isinstance(s, str) or s not in CHAMP_SETTINGS:
        raise InputError("prompt_setting", f"got {prompt_setting!r}", f"one of {list(CHAMP_SETTINGS)} or 'default'")
    r = _records(s)
    return {k: (list(v) if isinstance(v, list) else v) for k, v in r.items()}


def load_champ_teachers(prompt_setting="0-Shot", *, split=0.7, rng=0, ood_category=None):
    """CHAMP's four teachers as an ``iclr26sci.distill.MultiTeacherData`` (split by problem or by category).

    Examples
    --------
    >>> d = load_champ_teachers(split=0.7, rng=0)
    >>> d.train.n, d.test.n, d.K
    (189, 81, 4)
    """
    from numbers import Real

    import numpy as np

    from iclr26sci.core import seed_sequence

    # the cheap arguments first: a bad split or seed fails before the records are built and cached
    if ood_category is None and (isinstance(split, bool) or not isinstance(split, Real) or not 0 < split < 1):
        raise InputError("split", f"got {split!r}", "a training fraction in (0, 1)")
    if rng is not None and not isinstance(rng, (np.random.Generator, np.random.BitGenerator)):
        seed_sequence(rng)                      # validates an int / SeedSequence without drawing from it
    if ood_category is not None and not isinstance(ood_category, (str, list, tuple)):
        raise InputError("ood_category", f"got {type(ood_category).__name__}", "a category name or a list of them")
    from iclr26sci.distill import MultiTeacherData

    try:
        return MultiTeacherData.from_champ(champ_teacher_records(prompt_setting), split=split, rng=rng,
                                           ood_category=ood_category)
    except InputError as exc:                   # distill names its own keyword; name this function's
        if exc.argument == "ood_domain":
            raise InputError("ood_category", exc.problem, exc.expected) from None
        raise
