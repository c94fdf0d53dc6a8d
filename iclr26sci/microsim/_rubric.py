"""MicroWorldBench rubrics, the frame sampler, the judge protocol and the released scoring and aggregation.

The schema is the one of the official ``eval/MWBenchRubrics*.json`` (FreedomIntelligence/MicroVerse): a JSON list
of tasks, each with an ``index``, the prompt under ``"task"``/``"requirement"`` (``MWBenchRubrics.json``) or
under ``"任务"``/``"具体要求"`` (``MWBenchRubrics_norm.json``), and three dimensions ``rubrics_scientific``,
``rubrics_visual``, ``rubrics_instruction``, each a flat dict of criteria ``d<k>`` (description), ``s<k>``
(``"+1"`` positive point or ``"-1"`` penalty point) and ``w<k>`` (weight, number or numeric string). The keys
``k`` are usually 1..5 but some tasks number them 11, 22, ... 55.

Two defects of the released evaluator are corrected by default and reproduced with
``faithful_to_release=True``:

1. **empty task text**: ``video_evaluator.py`` reads ``"任务"``/``"具体要求"`` from ``MWBenchRubrics.json``, whose
   keys are ``"task"``/``"requirement"``, so the judge prompt carries empty task and requirement fields. Here
   the text is read from whichever key variant the file has.
2. **dropped criteria**: the prompt lists only criteria ``d1``..``d9``, and ``calculate_scores.py`` matches the
   returned score list to criteria by position (score i to key i + 1), skipping keys it does not find; a task
   whose criteria are numbered 11..55 is therefore shown no criteria and scores nothing on that dimension, and a
   score list shorter than the criteria silently drops the rest from numerator and denominator. Here every
   criterion is shown and scored, and a judge must return exactly one verdict per criterion.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, runtime_checkable

import numpy as np

from iclr26sci.core import InputError, check_bool, check_in_range, check_positive_int

__all__ = ["DIMENSIONS", "Criterion", "TaskRubric", "Rubric", "sample_frame_indices", "JudgeRequest", "Judge",
           "build_prompt", "parse_reply", "score_verdicts", "score_video", "VideoScore", "aggregate",
           "BenchmarkScore"]

#: the three rubric dimensions, in the released order (JSON key suffix, display name)
DIMENSIONS = (("scientific", "Scientific Accuracy"), ("visual", "Visual Quality"),
              ("instruction", "Instruction Following"))
_DIM_KEYS = tuple(d for d, _ in DIMENSIONS)
_TEXT_KEYS = {"task": ("task", "任务"), "requirement": ("requirement", "具体要求")}
#: the released report's level names (``final_label`` of ``finaltasks.json``)
LEVELS = ("Organ-level", "Cellular-level", "Subcellular-level")
#: the released report's hard-coded benchmark size
RELEASE_TOTAL_TASKS = 459


@dataclass(frozen=True)
class Criterion:
    """One rubric criterion: key number ``k`` (from ``d<k>``), description, sign (+1 / -1) and weight >= 0.

    Examples
    --------
    >>> c = Rubric.example().task(1).criteria['scientific'][0]
    >>> c.key, c.sign, c.weight
    (1, 1, 1.0)
    """

    key: int
    description: str
    sign: int
    weight: float

    def __post_init__(self):
        check_positive_int(self.key, "key", minimum=0)
        if not isinstance(self.description, str):
            raise InputError("description", f"got {type(self.description).__name__}", "the criterion's text")
        if isinstance(self.sign, (bool, np.bool_)) or self.sign not in (1, -1):
            raise InputError("sign", f"got {self.sign!r}", "+1 (positive point) or -1 (penalty point)")
        check_in_range(self.weight, "weight", 0.0, None)

    @property
    def positive(self) -> bool:
        return self.sign > 0

    def __repr__(self):
        return f"Criterion(d{self.key}, {'+' if self.sign > 0 else '-'}{self.weight:g}, {self.description[:40]!r})"


def _parse_sign(v, where):
    s = str(v).strip()
    if s in ("+1", "1"):
        return 1
    if s == "-1":
        return -1
    raise InputError("entry", f"{where} has sign {v!r}", "'+1' (positive point) or '-1' (penalty point)")


def _parse_weight(v, where):
    try:
        w = float(v)
    except (TypeError, ValueError):
        raise InputError("entry", f"{where} has weight {v!r}", "a number >= 0 (or a numeric string)") from None
    if not math.isfinite(w) or w < 0:
        raise InputError("entry", f"{where} has weight {v!r}", "a finite number >= 0")
    return w


@dataclass(repr=False)
class TaskRubric:
    """One benchmark task: prompt texts, level and three dimensions of criteria.

    Attributes
    ----------
    index : int
        The task's index in the benchmark (video file ``<index>.mp4``).
    task, requirement : str
        Short prompt and detailed brief (read from either key variant).
    criteria : dict
        Dimension name -> tuple of :class:`Criterion`, sorted by key number.
    level : str or None
        ``"Organ-level"``, ``"Cellular-level"`` or ``"Subcellular-level"`` when known.
    name : str or None
        A short name (the synthetic rubric's tasks have one; the real rubric's do not).
    raw : dict
        The task's JSON entry as loaded (what the released evaluator reads).

    Examples
    --------
    >>> t = Rubric.example().task('laminar_flow')
    >>> [c.key for c in t.criteria['instruction']]
    [11, 22, 33, 44, 55]
    """

    index: int
    task: str
    requirement: str
    criteria: dict
    level: Any = None
    name: Any = None
    raw: dict = field(default_factory=dict)

    def __post_init__(self):
        if isinstance(self.index, (bool, np.bool_)) or not isinstance(self.index, (int, np.integer)):
            raise InputError("index", f"got {self.index!r}", "an integer task index")
        for k in ("task", "requirement"):
            if not isinstance(getattr(self, k), str):
                raise InputError(k, f"got {type(getattr(self, k)).__name__}", "the prompt text as a string")
        if not isinstance(self.criteria, Mapping) or set(self.criteria) != set(_DIM_KEYS):
            got = sorted(self.criteria) if isinstance(self.criteria, Mapping) else type(self.criteria).__name__
            raise InputError("criteria", f"has dimensions {got}", "exactly the keys " + ", ".join(_DIM_KEYS))
        for d in _DIM_KEYS:
            cs = self.criteria[d]
            if isinstance(cs, (str, bytes)) or not hasattr(cs, "__len__") or not len(cs) \
                    or not all(isinstance(c, Criterion) for c in cs):
                raise InputError("criteria", f"[{d!r}] is not a non-empty sequence of Criterion", "Criterion records")
        self.criteria = {d: tuple(self.criteria[d]) for d in _DIM_KEYS}
        if not isinstance(self.raw, Mapping):
            raise InputError("raw", f"got {type(self.raw).__name__}", "the task's JSON entry as a dict")

    @property
    def n_criteria(self) -> int:
        return sum(len(v) for v in self.criteria.values())

    def __repr__(self):
        counts = "/".join(str(len(self.criteria[d])) for d in _DIM_KEYS)
        return f"TaskRubric(index={self.index}, name={self.name!r}, level={self.level!r}, criteria={counts})"

    def summary(self) -> str:
        """The task and its criteria, one per line."""
        lines = [repr(self), f"  task: {self.task[:100]}"]
        for d in _DIM_KEYS:
            for c in self.criteria[d]:
                lines.append(f"  [{d}] d{c.key} {'+' if c.positive else '-'} w={c.weight:g}: {c.description[:70]}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Index, texts, level and criteria as plain values."""
        return {"index": self.index, "name": self.name, "level": self.level, "task": self.task,
                "requirement": self.requirement,
                "criteria": {d: [dict(key=c.key, description=c.description, sign=c.sign, weight=c.weight)
                                 for c in self.criteria[d]] for d in _DIM_KEYS}}

    @classmethod
    def from_json(cls, entry, position=0):
        """Parse and validate one task entry of a rubric file (either key variant)."""
        where = f"task #{position}"
        if not isinstance(entry, Mapping):
            raise InputError("entry", f"{where} is a {type(entry).__name__}", "a JSON object per task")
        if "index" not in entry:
            raise InputError("entry", f"{where} lacks the required key 'index'", "every task to have an integer 'index'")
        try:
            index = int(entry["index"])
        except (TypeError, ValueError):
            raise InputError("entry", f"{where} has index {entry['index']!r}", "an integer index") from None
        where = f"task {index}"
        texts = {}
        for k, variants in _TEXT_KEYS.items():
            have = [v for v in variants if v in entry]
            if not have:
                raise InputError("entry", f"{where} lacks the required key {variants[0]!r} (or {variants[1]!r})",
                                 f"a task text under {variants[0]!r} or {variants[1]!r}")
            texts[k] = str(entry[have[0]])
        crits = {}
        for d in _DIM_KEYS:
            key = f"rubrics_{d}"
            if key not in entry:
                raise InputError("entry", f"{where} lacks the required key {key!r}", "the three rubric dimensions "
                                 + ", ".join(f"'rubrics_{x}'" for x in _DIM_KEYS))
            block = entry[key]
            if not isinstance(block, Mapping):
                raise InputError("entry", f"{where} {key} is a {type(block).__name__}", "an object of d/s/w keys")
            nums = sorted({int(m.group(1)) for k in block for m in [re.fullmatch(r"[dsw](\d+)", k)] if m})
            out = []
            for n in nums:
                for p in "dsw":
                    if f"{p}{n}" not in block:
                        raise InputError("entry", f"{where} {key} has criterion {n} without the key '{p}{n}'",
                                         f"each criterion to have d{n}, s{n} and w{n}")
                out.append(Criterion(n, str(block[f"d{n}"]), _parse_sign(block[f"s{n}"], f"{where} {key} s{n}"),
                                     _parse_weight(block[f"w{n}"], f"{where} {key} w{n}")))
            if not out:
                raise InputError("entry", f"{where} {key} has no criteria", "at least one d<k>/s<k>/w<k> criterion")
            crits[d] = tuple(out)
        level = entry.get("final_label", entry.get("level"))
        return cls(index, texts["task"], texts["requirement"], crits, level=level, name=entry.get("name"),
                   raw=dict(entry))


class Rubric:
    """A set of MicroWorldBench task rubrics.

    Load the real rubric from a path you have (``Rubric.load("MWBenchRubrics.json")``; it is not shipped because
    the official file carries no licence) or use :meth:`example`, the small synthetic rubric in the same schema.

    Parameters
    ----------
    tasks : list of TaskRubric

    Examples
    --------
    >>> r = Rubric.example()
    >>> len(r), r.task("cell_division").name
    (6, 'cell_division')
    """

    def __init__(self, tasks, source="<memory>"):
        if isinstance(tasks, (str, bytes, Mapping)) or not hasattr(tasks, "__iter__"):
            raise InputError("tasks", f"got {type(tasks).__name__}", "a list of TaskRubric")
        self.tasks = list(tasks)
        if not self.tasks:
            raise InputError("tasks", "is empty", "at least one TaskRubric")
        bad = [type(t).__name__ for t in self.tasks if not isinstance(t, TaskRubric)]
        if bad:
            raise InputError("tasks", f"contains a {bad[0]}", "TaskRubric records (Rubric.load builds them from JSON)")
        self.source = source
        idx = [t.index for t in self.tasks]
        if len(set(idx)) != len(idx):
            dup = sorted({i for i in idx if idx.count(i) > 1})
            raise InputError("tasks", f"has duplicate task index {dup[0]}", "unique task indices")

    @classmethod
    def load(cls, path, *, tasks_path=None):
        """Load a rubric JSON (either key variant); ``tasks_path`` (a ``finaltasks.json``) adds the levels.

        Parameters
        ----------
        path : str or path-like
            A JSON list of tasks in the MWBenchRubrics schema.
        tasks_path : str or path-like, optional
            A JSON list of ``{"index", "final_label"}`` entries (the official ``finaltasks.json``).

        Returns
        -------
        Rubric

        Examples
        --------
        >>> import json, tempfile, os
        >>> entry = {"index": 1, "任务": "t", "具体要求": "r"}
        >>> entry.update({f"rubrics_{d}": {"d1": "x", "s1": "+1", "w1": 1.0} for d in ("scientific", "visual", "instruction")})
        >>> p = os.path.join(tempfile.mkdtemp(), "r.json")
        >>> _ = open(p, "w").write(json.dumps([entry]))
        >>> Rubric.load(p).tasks[0].task
        't'
        """
        if not isinstance(path, (str, os.PathLike)):
            raise InputError("path", f"got {type(path).__name__}", "a path to a rubric JSON file")
        if not os.path.isfile(path):
            raise InputError("path", f"{os.fspath(path)!r} is not a file", "the path of a MWBenchRubrics-style JSON")
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError("path", f"is not valid JSON ({exc})", "a JSON list of task objects") from None
        if isinstance(data, Mapping) and "tasks" in data:
            data = data["tasks"]
        if not isinstance(data, list) or not data:
            raise InputError("path", f"holds a {type(data).__name__}", "a non-empty JSON list of task objects")
        if tasks_path is not None:
            if not isinstance(tasks_path, (str, os.PathLike)) or not os.path.isfile(tasks_path):
                raise InputError("tasks_path", f"{tasks_path!r} is not a file", "a finaltasks.json path")
            try:
                with open(tasks_path, encoding="utf-8") as fh:
                    meta = json.load(fh)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise InputError("tasks_path", f"is not valid JSON ({exc})", "a JSON list of {index, final_label}") \
                    from None
            if not isinstance(meta, list):
                raise InputError("tasks_path", f"holds a {type(meta).__name__}", "a JSON list of {index, final_label}")
        try:
            tasks = [TaskRubric.from_json(e, i) for i, e in enumerate(data)]
            rubric = cls(tasks, source=os.fspath(path))
        except InputError as exc:
            raise InputError("path", exc.problem, exc.expected) from None
        if tasks_path is not None:
            try:
                labels = {int(m["index"]): m.get("final_label") for m in meta if isinstance(m, Mapping) and "index" in m}
            except (TypeError, ValueError):
                raise InputError("tasks_path", "has a non-integer 'index'", "integer task indices") from None
            for t in tasks:
                if t.index in labels:
                    t.level = labels[t.index]
        return rubric

    @classmethod
    def example(cls):
        """The shipped synthetic rubric: 6 microscale-physics tasks in the released schema.

        It exercises both key variants (one task uses ``"任务"``/``"具体要求"``) and the 11..55 criterion numbering
        of the release, so the two corrected defects show on it.
        """
        from importlib import resources

        path = resources.files("iclr26sci.microsim").joinpath("data", "synthetic_rubric.json")
        with resources.as_file(path) as p:
            r = cls.load(p)
        r.source = "synthetic (iclr26sci.microsim/data/synthetic_rubric.json)"
        return r

    def task(self, key):
        """A task by its index (int) or its name (str)."""
        for t in self.tasks:
            if (isinstance(key, str) and t.name == key) or (not isinstance(key, (str, bool)) and t.index == key):
                return t
        names = [t.name for t in self.tasks if t.name] or [t.index for t in self.tasks[:5]]
        raise InputError("key", f"no task {key!r}", f"a task index or name such as {names[:6]}")

    def __len__(self):
        return len(self.tasks)

    def __iter__(self):
        return iter(self.tasks)

    @property
    def n_criteria(self) -> int:
        return sum(t.n_criteria for t in self.tasks)

    def counts(self) -> dict:
        """Tasks, criteria, signs per dimension and tasks per level."""
        out = {"tasks": len(self), "criteria": self.n_criteria, "levels": {}}
        for d in _DIM_KEYS:
            cs = [c for t in self.tasks for c in t.criteria[d]]
            out[d] = {"positive": sum(c.positive for c in cs), "penalty": sum(not c.positive for c in cs)}
        for t in self.tasks:
            out["levels"][t.level] = out["levels"].get(t.level, 0) + 1
        return out

    def __repr__(self):
        return f"Rubric(tasks={len(self)}, criteria={self.n_criteria}, source={self.source!r})"

    def summary(self) -> str:
        """Counts of tasks, criteria and levels."""
        return f"{self!r}\n  {self.counts()}"

    def to_dict(self) -> dict:
        """All tasks as plain values."""
        return {"source": self.source, "tasks": [t.to_dict() for t in self.tasks]}


# ------------------------------------------------------------------------------------------ judge protocol
def sample_frame_indices(n_frames, n=8):
    r"""The released frame sampler: positions :math:`\lfloor i s + s/2 \rfloor`, :math:`s = N/n`, i = 0..n-1.

    Parameters
    ----------
    n_frames : int
        Number of frames N of the video (at least ``n``).
    n : int
        Number of frames to sample (the release uses 8; ``n = 1`` gives the middle frame).

    Returns
    -------
    list of int

    Examples
    --------
    >>> sample_frame_indices(81)
    [5, 15, 25, 35, 45, 55, 65, 75]
    """
    n = check_positive_int(n, "n")
    N = check_positive_int(n_frames, "n_frames")
    if N < n:
        raise InputError("n_frames", f"is {N}", f"at least {n} frames for the {n}-frame sampler")
    if n == 1:
        return [N // 2]
    s = N / n
    return [int(i * s + s / 2) for i in range(n)]


@dataclass(repr=False)
class JudgeRequest:
    """What a judge is asked about one dimension of one video.

    Attributes
    ----------
    task : TaskRubric
    dimension : str
        ``"scientific"``, ``"visual"`` or ``"instruction"``.
    criteria : tuple of Criterion
        The criteria to judge, in order; the judge returns one verdict per criterion.
    prompt : str
        The released prompt text for a VLM judge (with the task text filled in unless faithful).
    task_text, requirement : str
        The texts the prompt carries (empty under ``faithful_to_release`` when the file has English keys).
    frame_indices : list of int
        Positions of the sampled frames in the video.
    video : ndarray (T, H, W) or Video
        The whole clip (a physics judge needs consecutive frames; a VLM judge uses the sampled frames).

    Examples
    --------
    >>> seen = []
    >>> def judge(frames, request):
    ...     seen.append(request)
    ...     return [int(c.positive) for c in request.criteria]
    >>> import numpy as np
    >>> _ = score_video(np.zeros((8, 4, 4)), Rubric.example().task(1), judge)
    >>> seen[0].dimension, len(seen[0].criteria), seen[0].frame_indices
    ('scientific', 5, [0, 1, 2, 3, 4, 5, 6, 7])
    """

    task: Any
    dimension: str
    criteria: tuple
    prompt: str
    task_text: str
    requirement: str
    frame_indices: list
    video: Any = None

    def __post_init__(self):
        if not isinstance(self.task, TaskRubric):
            raise InputError("task", f"got {type(self.task).__name__}", "a TaskRubric")
        if not isinstance(self.dimension, str) or self.dimension not in _DIM_KEYS:
            raise InputError("dimension", f"got {self.dimension!r}", "one of " + ", ".join(_DIM_KEYS))
        if isinstance(self.criteria, (str, bytes)) or not hasattr(self.criteria, "__len__") \
                or not all(isinstance(c, Criterion) for c in self.criteria):
            raise InputError("criteria", f"got {self.criteria!r}", "a tuple of Criterion")
        self.criteria = tuple(self.criteria)

    def __repr__(self):
        return f"JudgeRequest(task={self.task.index}, dimension={self.dimension!r}, criteria={len(self.criteria)})"


@runtime_checkable
class Judge(Protocol):
    """A judge: ``judge(frames, request) -> verdicts``.

    ``frames`` are the sampled frames (n, H, W[, 3]) uint8, ``request`` a :class:`JudgeRequest`. Verdicts are a
    sequence of 0/1 (one per ``request.criteria``, in order: positive point 1 = met, penalty point 1 = the
    problem is present), a mapping ``{criterion key: 0/1}`` covering exactly the requested criteria, or a reply
    string in the released JSON format ``{"scores": [...], "reasoning": "..."}`` (parsed by :func:`parse_reply`).
    Any callable with this signature is a judge, e.g. a wrapper around a vision-language model API.

    Examples
    --------
    >>> import numpy as np
    >>> def my_judge(frames, request):   # e.g. a VLM wrapper returning the released JSON reply
    ...     bits = ", ".join(str(int(c.positive)) for c in request.criteria)
    ...     return '{"scores": [' + bits + '], "reasoning": "..."}'
    >>> isinstance(my_judge, Judge)
    True
    >>> score_video(np.zeros((8, 4, 4)), Rubric.example().task(1), my_judge).total
    100.0
    """

    def __call__(self, frames: np.ndarray, request: JudgeRequest) -> Any: ...


def build_prompt(task, dimension, *, faithful_to_release=False):
    """The judge prompt of the released evaluator for one dimension of one task.

    Parameters
    ----------
    task : TaskRubric
    dimension : {"scientific", "visual", "instruction"}
    faithful_to_release : bool
        Reproduce the release: task text read only from the ``"任务"``/``"具体要求"`` keys (empty for the English
        rubric file) and only criteria ``d1``..``d9`` listed. Otherwise the text comes from either key variant and
        every criterion is listed.

    Returns
    -------
    (str, tuple of Criterion)
        The prompt and the criteria it lists, in order.

    Examples
    --------
    >>> t = Rubric.example().task("brownian_motion")
    >>> p, crit = build_prompt(t, "scientific")
    >>> "[Positive Point]" in p, len(crit)
    (True, 5)
    """
    if not isinstance(task, TaskRubric):
        raise InputError("task", f"got {type(task).__name__}", "a TaskRubric (Rubric.task(...))")
    if not isinstance(dimension, str) or dimension not in _DIM_KEYS:
        raise InputError("dimension", f"got {dimension!r}", "one of " + ", ".join(_DIM_KEYS))
    faithful = check_bool(faithful_to_release, "faithful_to_release")
    if faithful:
        task_desc = str(task.raw.get("任务", ""))
        req = str(task.raw.get("具体要求", ""))
        crit = tuple(c for c in task.criteria[dimension] if 1 <= c.key <= 9)
    else:
        task_desc, req, crit = task.task, task.requirement, task.criteria[dimension]
    name = dict(DIMENSIONS)[dimension]
    lines = "".join(f"{c.key if faithful else i + 1}. [{'Positive Point' if c.positive else 'Penalty Point'}] "
                    f"{c.description}\n" for i, c in enumerate(crit))
    prompt = (
        f"You are a professional video evaluation expert. Please evaluate this microscopic world scientific "
        f"animation video in the {name} dimension according to the following criteria.\n\n"
        f"**Task Description:**\n{task_desc}\n\n**Detailed Requirements:**\n{req}\n\n"
        f"**{name} Evaluation Criteria:**\n{lines}\n"
        "**Evaluation Instructions:**\n"
        "1. Carefully observe the 8 video screenshots arranged in chronological order.\n"
        "2. Judge each evaluation point: mark 1 if the criterion is met, 0 otherwise.\n"
        "3. Positive Points: score 1 if the video meets the standard.\n"
        "4. Penalty Points: score 1 if the video exhibits the described problem.\n"
        "5. Provide detailed reasoning for every judgment.\n\n"
        "**Output Format (strict JSON):**\n"
        '{\n    "scores": [score1, score2, ...],\n    "reasoning": "Detailed reasoning explaining the judgment for '
        'each criterion."\n}\n\n'
        'The length of "scores" must equal the number of evaluation points; each element is 0 or 1.')
    return prompt, crit


def parse_reply(text):
    """Parse a judge's reply as the release does: the span from the first ``{`` to the last ``}`` as JSON.

    Returns the parsed dict, or None when there is no parseable object (the dimension is then invalid).

    Examples
    --------
    >>> parse_reply('Sure! {"scores": [1, 0], "reasoning": "ok"}')["scores"]
    [1, 0]
    >>> parse_reply("no json") is None
    True
    """
    if not isinstance(text, str):
        raise InputError("text", f"got {type(text).__name__}", "the judge's reply as a string")
    a, b = text.find("{"), text.rfind("}") + 1
    if a == -1 or b <= a:
        return None
    try:
        out = json.loads(text[a:b])
    except json.JSONDecodeError:
        return None
    return out if isinstance(out, dict) else None


def _bit(v, where, argument="judge"):
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)) and int(v) in (0, 1):
        return int(v)
    if isinstance(v, (float, np.floating)) and float(v) in (0.0, 1.0):
        return int(v)
    what = "returned verdict" if argument == "judge" else "has verdict"
    raise InputError(argument, f"{what} {v!r} for {where}", "0 or 1 per criterion")


def _normalise_verdicts(out, crit, *, faithful, where):
    """Judge output -> list of 0/1 bits (None: invalid / unparsed dimension, as the release treats it)."""
    if isinstance(out, str):
        parsed = parse_reply(out)
        if parsed is None:
            return None
        out = parsed.get("scores")
        if not out:
            return None
    elif isinstance(out, Mapping) and "scores" in out and not all(isinstance(k, (int, np.integer)) for k in out):
        out = out["scores"]
    if isinstance(out, Mapping):
        keys = {int(k) for k in out}
        want = {c.key for c in crit}
        if keys != want:
            raise InputError("judge", f"returned verdicts for criteria {sorted(keys)} of {where}",
                             f"verdicts for exactly the criteria {sorted(want)}")
        return [_bit(out[c.key] if c.key in out else out[str(c.key)], f"{where} d{c.key}") for c in crit]
    if out is None:
        return None
    try:
        bits = list(out)
    except TypeError:
        raise InputError("judge", f"returned a {type(out).__name__} for {where}",
                         "a sequence of 0/1, a {key: 0/1} mapping or a JSON reply string") from None
    if not bits:
        return None
    bits = [_bit(b, where) for b in bits]
    if not faithful and len(bits) != len(crit):
        raise InputError("judge", f"returned {len(bits)} verdicts for the {len(crit)} criteria of {where}",
                         f"exactly {len(crit)} verdicts, one per criterion in order")
    return bits


def _dimension_raw(bits, dim_criteria, *, faithful):
    """(raw, max) of one dimension.

    Released algebra (``calculate_scores.py``): score i belongs to criterion key i + 1, keys not in the
    dimension are skipped; raw = sum of bit * sign * weight, max = sum of the positive weights over the matched
    criteria. Corrected: bits are in criterion order and every criterion counts.
    """
    raw = mx = 0.0
    if faithful:
        by_key = {c.key: c for c in dim_criteria}
        pairs = [(b, by_key[i + 1]) for i, b in enumerate(bits) if (i + 1) in by_key]
    else:
        pairs = list(zip(bits, dim_criteria))
    for b, c in pairs:
        if b == 1:
            raw += c.sign * c.weight
        if c.sign > 0:
            mx += c.weight
    return raw, mx


def _norm(raw, mx):
    return 0.0 if mx <= 0 else max(0.0, raw / mx * 100.0)


@dataclass(repr=False)
class VideoScore:
    """The score of one video on one task.

    Attributes
    ----------
    index : int
        Task index.
    level : str or None
    valid : bool
        All three dimensions were judged (the release's validity rule).
    dimension_scores : dict
        Dimension -> :math:`D = 100\\max(0, raw/max)`.
    total : float
        :math:`T = 100\\max(0, \\sum_m raw_m / \\sum_m max_m)`.
    raw, max : dict
        Per-dimension raw and maximum sums.
    verdicts : dict
        Dimension -> list of bits as scored.
    faithful_to_release : bool

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.microsim import OracleJudge
    >>> s = score_video(np.zeros((8, 4, 4)), Rubric.example().task(1), OracleJudge())
    >>> s.valid, s.dimension_scores['visual']
    (True, 100.0)
    """

    index: int
    level: Any
    valid: bool
    dimension_scores: dict
    total: float
    raw: dict
    max: dict
    verdicts: dict
    faithful_to_release: bool = False
    name: Any = None

    def __repr__(self):
        dims = ", ".join(f"{d[:3]}={v:.1f}" for d, v in self.dimension_scores.items())
        return f"VideoScore(task={self.index}, total={self.total:.1f}, {dims}, valid={self.valid})"

    def summary(self) -> str:
        """Scores and verdicts per dimension."""
        lines = [repr(self)]
        for d in self.verdicts:
            lines.append(f"  {d}: raw {self.raw[d]:.3g} / max {self.max[d]:.3g} -> {self.dimension_scores.get(d, 0):.1f}"
                         f"  bits {self.verdicts[d]}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """All fields as plain values."""
        return {"index": self.index, "name": self.name, "level": self.level, "valid": self.valid,
                "total": self.total, "dimension_scores": dict(self.dimension_scores), "raw": dict(self.raw),
                "max": dict(self.max), "verdicts": {k: list(v) for k, v in self.verdicts.items()},
                "faithful_to_release": self.faithful_to_release}


def score_verdicts(task, verdicts, *, faithful_to_release=False):
    r"""Score judge verdicts on one task with the released algebra.

    For dimension m with bits :math:`b_i`, signs :math:`s_i` and weights :math:`w_i`:
    :math:`raw_m = \sum_i b_i s_i w_i`, :math:`max_m = \sum_{i: s_i = +1} w_i`,
    :math:`D_m = 100 \max(0, raw_m / max_m)` (0 when :math:`max_m = 0`) and the task score
    :math:`T = 100 \max(0, \sum_m raw_m / \sum_m max_m)`. The video is valid only if all three dimensions have
    verdicts. Under ``faithful_to_release`` bit i is matched to criterion key i + 1 and unmatched keys are
    dropped from both sums (the release's behaviour); otherwise bits are in criterion order and all count.

    Parameters
    ----------
    task : TaskRubric
    verdicts : dict
        Dimension -> list of 0/1 (or None for a dimension the judge did not answer).
    faithful_to_release : bool

    Returns
    -------
    VideoScore

    Examples
    --------
    >>> t = Rubric.example().task("brownian_motion")
    >>> perfect = {d: [int(c.positive) for c in t.criteria[d]] for d in ("scientific", "visual", "instruction")}
    >>> score_verdicts(t, perfect).total
    100.0
    """
    if not isinstance(task, TaskRubric):
        raise InputError("task", f"got {type(task).__name__}", "a TaskRubric")
    if not isinstance(verdicts, Mapping):
        raise InputError("verdicts", f"got {type(verdicts).__name__}", "a dict dimension -> list of 0/1")
    faithful = check_bool(faithful_to_release, "faithful_to_release")
    extra = set(verdicts) - set(_DIM_KEYS)
    if extra:
        raise InputError("verdicts", f"has unknown dimension {sorted(extra)[0]!r}", "keys among " + ", ".join(_DIM_KEYS))
    raws, maxs, dims, bits_out = {}, {}, {}, {}
    valid = True
    for d in _DIM_KEYS:
        bits = verdicts.get(d)
        if bits is not None and (isinstance(bits, (str, bytes, Mapping)) or not hasattr(bits, "__len__")):
            raise InputError("verdicts", f"[{d!r}] is a {type(bits).__name__}", "a list of 0/1 (or None)")
        if bits is None or len(bits) == 0:
            valid = False
            continue
        bits = [_bit(b, f"task {task.index} {d}", "verdicts") for b in bits]
        if not faithful and len(bits) != len(task.criteria[d]):
            raise InputError("verdicts", f"has {len(bits)} bits for the {len(task.criteria[d])} {d} criteria of "
                             f"task {task.index}", "one bit per criterion")
        r, m = _dimension_raw(bits, task.criteria[d], faithful=faithful)
        raws[d], maxs[d], dims[d], bits_out[d] = r, m, _norm(r, m), bits
    total = _norm(sum(raws.values()), sum(maxs.values())) if valid else 0.0
    return VideoScore(task.index, task.level, valid, dims, total, raws, maxs, bits_out, faithful, name=task.name)


def score_video(video, task, judge, *, n_frames=8, faithful_to_release=False):
    """Judge a video on one task (3 calls, one per dimension) and score it with the released algebra.

    Parameters
    ----------
    video : Video or array (T, H, W) / (T, H, W, 3)
        The generated (or simulated) clip; at least ``n_frames`` frames; NaN refused.
    task : TaskRubric
        ``Rubric.task(...)``.
    judge : callable
        ``judge(frames, request) -> verdicts`` (see :class:`Judge`): one of the shipped judges or any callable,
        e.g. a VLM wrapper returning the released JSON reply string.
    n_frames : int
        Frames sampled for the judge (release: 8) by :func:`sample_frame_indices`.
    faithful_to_release : bool
        Reproduce the released evaluator's two defects (empty task text for English-key rubrics; criteria
        outside d1..d9 not shown and positional score matching) instead of following the rubric's intent.

    Returns
    -------
    VideoScore

    Raises
    ------
    InputError
        Bad video (too few frames, NaN), or a judge returning verdicts for the wrong criteria.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.microsim import OracleJudge
    >>> task = Rubric.example().task("brownian_motion")
    >>> score_video(np.zeros((16, 32, 32), np.uint8), task, OracleJudge()).total
    100.0
    """
    from ._render import Video, as_frames

    if not isinstance(task, TaskRubric):
        raise InputError("task", f"got {type(task).__name__}", "a TaskRubric (Rubric.task(...))")
    if not callable(judge):
        raise InputError("judge", f"got {type(judge).__name__}", "a callable judge(frames, request) -> verdicts")
    faithful = check_bool(faithful_to_release, "faithful_to_release")
    n_frames = check_positive_int(n_frames, "n_frames")
    as_frames(video)  # validates shape and NaN
    arr = np.asarray(video.frames if isinstance(video, Video) else video)
    idx = sample_frame_indices(arr.shape[0], n_frames)
    frames = arr[idx]
    verdicts = {}
    for d in _DIM_KEYS:
        prompt, crit = build_prompt(task, d, faithful_to_release=faithful)
        req = JudgeRequest(task, d, crit, prompt, task.raw.get("任务", "") if faithful else task.task,
                           task.raw.get("具体要求", "") if faithful else task.requirement, idx, video)
        out = judge(frames, req)
        verdicts[d] = _normalise_verdicts(out, crit, faithful=faithful, where=f"task {task.index} {d}")
        if faithful and verdicts[d] is None:
            verdicts[d] = None
    return score_verdicts(task, verdicts, faithful_to_release=faithful)


@dataclass(repr=False)
class BenchmarkScore:
    """Aggregate scores of one model: mean task score over valid tasks, per dimension, per level, coverage.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.microsim import RandomJudge
    >>> r = Rubric.example()
    >>> b = aggregate([score_video(np.zeros((8, 4, 4)), t, RandomJudge(rng=0)) for t in r])
    >>> sorted(b.tables())
    ['dimensions', 'levels']
    """

    overall: float
    dimensions: dict
    levels: dict
    level_counts: dict
    valid: int
    n_tasks: int
    coverage: float
    faithful_to_release: bool = False

    def __repr__(self):
        return f"BenchmarkScore(overall={self.overall:.1f}, valid={self.valid}/{self.n_tasks}, coverage={self.coverage:.1%})"

    def tables(self) -> dict:
        """The released report's two tables as rows: overall x level, overall x dimension."""
        t1 = {"Average": self.overall, **{lv: self.levels.get(lv, 0.0) for lv in LEVELS}}
        t2 = {"Average": self.overall, **{dict(DIMENSIONS)[d].split()[0]: v for d, v in self.dimensions.items()}}
        return {"levels": t1, "dimensions": t2}

    def summary(self) -> str:
        """Coverage and both tables."""
        t = self.tables()
        return (f"{self!r}\n  levels: " + ", ".join(f"{k} {v:.1f}" for k, v in t["levels"].items())
                + "\n  dimensions: " + ", ".join(f"{k} {v:.1f}" for k, v in t["dimensions"].items()))

    def to_dict(self) -> dict:
        """All fields as plain values."""
        return {"overall": self.overall, "dimensions": dict(self.dimensions), "levels": dict(self.levels),
                "level_counts": dict(self.level_counts), "valid": self.valid, "n_tasks": self.n_tasks,
                "coverage": self.coverage, "faithful_to_release": self.faithful_to_release}


def aggregate(scores, *, n_tasks=None, faithful_to_release=False):
    """Aggregate per-video scores as ``calculate_scores.py`` does.

    Model score = mean task score T over valid videos; dimension score = mean D over valid videos; level score =
    mean T within each level; coverage = valid / number of tasks. The release divides by a hard-coded 459
    (``faithful_to_release=True``); otherwise by ``n_tasks`` (default: the number of scores given).

    Parameters
    ----------
    scores : sequence of VideoScore
    n_tasks : int, optional
        Size of the benchmark the coverage refers to.
    faithful_to_release : bool

    Returns
    -------
    BenchmarkScore

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.microsim import OracleJudge
    >>> r = Rubric.example()
    >>> s = [score_video(np.zeros((8, 16, 16), np.uint8), t, OracleJudge()) for t in r]
    >>> aggregate(s).overall
    100.0
    """
    if isinstance(scores, VideoScore):
        scores = [scores]
    elif isinstance(scores, (str, bytes, Mapping)) or not hasattr(scores, "__iter__"):
        raise InputError("scores", f"got {type(scores).__name__}", "a list of VideoScore from score_video")
    scores = list(scores)
    if not scores:
        raise InputError("scores", "is empty", "at least one VideoScore (an empty benchmark has no score)")
    for s in scores:
        if not isinstance(s, VideoScore):
            raise InputError("scores", f"contains a {type(s).__name__}", "VideoScore objects from score_video")
    faithful = check_bool(faithful_to_release, "faithful_to_release")
    idx = [s.index for s in scores]
    if len(set(idx)) != len(idx):
        dup = sorted({i for i in idx if idx.count(i) > 1})
        raise InputError("scores", f"scores task {dup[0]} more than once", "one VideoScore per task")
    mixed = sorted({bool(s.faithful_to_release) for s in scores} - {faithful})
    if mixed:
        raise InputError("scores", f"holds scores made with faithful_to_release={mixed[0]}",
                         f"scores made in the same mode as aggregate (faithful_to_release={faithful})")
    if faithful:
        n = RELEASE_TOTAL_TASKS
    else:
        n = len(scores) if n_tasks is None else check_positive_int(n_tasks, "n_tasks")
        if n < len(scores):
            raise InputError("n_tasks", f"is {n} but {len(scores)} tasks were scored",
                             f"at least {len(scores)} (the benchmark's size)")
    ok = [s for s in scores if s.valid]

    def avg(x):
        return float(np.mean(x)) if len(x) else 0.0

    dims = {d: avg([s.dimension_scores[d] for s in ok]) for d in _DIM_KEYS}
    levels, counts = {}, {}
    for lv in sorted({s.level for s in ok if s.level is not None}, key=str):
        vals = [s.total for s in ok if s.level == lv]
        levels[lv], counts[lv] = avg(vals), len(vals)
    return BenchmarkScore(avg([s.total for s in ok]), dims, levels, counts, len(ok), n,
                          len(ok) / n if n else 0.0, faithful)
