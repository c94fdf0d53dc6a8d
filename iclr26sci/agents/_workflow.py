"""Workflows as graphs of operators, parsed from small Python programmes (views of Agentic Predictor)."""
from __future__ import annotations

import ast
import re
import zlib
from dataclasses import dataclass, field

import numpy as np

from iclr26sci.core import InputError, check_array, check_memory, check_positive_int

from ._checks import check_texts

__all__ = ["Workflow", "OPERATORS", "hash_embed"]

#: operator class -> (description used as its default prompt, short templated source code). The operator set and
#: descriptions follow the official ``utils/operator.json`` / ``operator_files`` (AnswerGenerate, Custom,
#: CustomCodeGenerate, Programmer, ScEnsemble, Test); the source bodies here are our own short templates.
OPERATORS = {
    "AnswerGenerate": ("Generate a step by step thought process and a final answer for the input problem.",
                       "class AnswerGenerate(Operator):\n    async def __call__(self, input):\n"
                       "        prompt = ANSWER_PROMPT.format(input=input)\n        return await self.llm(prompt)"),
    "Custom": ("Answer the input following a custom instruction.",
               "class Custom(Operator):\n    async def __call__(self, input, instruction):\n"
               "        return await self.llm(instruction + input)"),
    "CustomCodeGenerate": ("Write a Python function that solves the problem, following an instruction.",
                           "class CustomCodeGenerate(Operator):\n    async def __call__(self, problem, entry_point,"
                           " instruction):\n        code = await self.llm(instruction + problem)\n"
                           "        return sanitize(code, entry_point)"),
    "Programmer": ("Write and execute Python code to compute the answer; return the program output.",
                   "class Programmer(Operator):\n    async def __call__(self, problem, analysis):\n"
                   "        code = await self.llm(CODE_PROMPT.format(problem, analysis))\n"
                   "        return run_code(code)"),
    "ScEnsemble": ("Select the most consistent answer among several candidate solutions (self-consistency vote).",
                   "class ScEnsemble(Operator):\n    async def __call__(self, solutions, problem):\n"
                   "        votes = await self.llm(VOTE_PROMPT.format(solutions, problem))\n"
                   "        return solutions[majority(votes)]"),
    "Test": ("Run the unit tests on a candidate solution and repair it when a test fails.",
             "class Test(Operator):\n    async def __call__(self, problem, solution, entry_point):\n"
             "        result = run_tests(solution, entry_point)\n"
             "        return solution if result.ok else await self.llm(FIX_PROMPT.format(result))"),
}

_SNAKE = {re.sub(r"(?<!^)(?=[A-Z])", "_", k).lower(): k for k in OPERATORS}
_SNAKE["sc_ensemble"] = "ScEnsemble"


def _camel(attr: str) -> str:
    if attr in _SNAKE:
        return _SNAKE[attr]
    return "".join(p[:1].upper() + p[1:] for p in attr.split("_") if p)


_TOKEN = re.compile(r"[a-z_]+|\d+|[^\sa-z_\d]")


def hash_embed(texts, dim: int = 384) -> np.ndarray:
    r"""Hashed token-count text features: a fast, deterministic stand-in for a sentence/code encoder.

    Each text is lower-cased and split into identifier, number and punctuation tokens; every unigram and bigram
    :math:`g` adds :math:`s(g)` to coordinate :math:`h(g) \bmod d` (``h`` = CRC-32, ``s`` = ±1 from a second
    CRC bit), counts are passed through :math:`\operatorname{sign}(c)\log(1+|c|)` and the row is scaled to unit
    norm. The paper encodes code with CodeRankEmbed (768-d), which is not available offline; the spec allows
    hashed token counts as the offline code encoder.

    Parameters
    ----------
    texts : str or sequence of str
        The texts to featurise (each a string; an empty string gives a zero row).
    dim : int
        Number of hash buckets (the feature dimension).

    Returns
    -------
    numpy.ndarray
        ``(n, dim)`` float32 array.

    References
    ----------
    Weinberger et al., "Feature Hashing for Large Scale Multitask Learning", ICML 2009.

    Examples
    --------
    >>> from iclr26sci.agents import hash_embed
    >>> E = hash_embed(["for _ in range(3): x = f(x)", "for _ in range(3): y = f(y)", "a cat"], dim=64)
    >>> E.shape, bool(E[0] @ E[1] > E[0] @ E[2])
    ((3, 64), True)
    """
    if isinstance(texts, str):
        texts = [texts]
    if not hasattr(texts, "__len__") or isinstance(texts, (bytes, dict)):
        raise InputError("texts", f"got {type(texts).__name__}", "a string or a sequence of strings")
    if len(texts) == 0:
        raise InputError("texts", "is empty", "at least one text")
    dim = check_positive_int(dim, "dim")
    check_memory(4.0 * len(texts) * dim, "dim", "the hashed feature matrix")
    out = np.zeros((len(texts), dim), np.float32)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise InputError("texts", f"item {i} is {type(t).__name__}", "strings")
        toks = _TOKEN.findall(t.lower())
        grams = toks + [a + " " + b for a, b in zip(toks, toks[1:])]
        for g in grams:
            h = zlib.crc32(g.encode())
            out[i, h % dim] += 1.0 if (h >> 20) & 1 else -1.0
    out = np.sign(out) * np.log1p(np.abs(out))
    n = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(n > 0, n, 1.0)


@dataclass(eq=False)
class Workflow:
    r"""An agentic workflow :math:`W = (G, C, P)`: operator graph, code and prompts (the predictor's views).

    Node 0 is the entry (problem) node. Node :math:`v` carries its operator name, its prompt text (viewed by the
    prompt graph), its operator's source code (the operator-code graph) and its invocation line in the workflow
    code (the code graph), as in the official ``pgy_dataset.get_mv_graph``. The workflow-level views are the full
    code ``code`` and ``full_prompt``, the concatenation of ``"<Operator> Agent: <prompt>"`` lines.

    Parameters
    ----------
    ops : list of str
        Operator name of each node (``"Input"`` for node 0).
    prompts : list of str
        Prompt text of each node.
    calls : list of str
        Invocation line of each node in the workflow code.
    edges : array-like of shape (2, E)
        Directed edges ``src -> dst`` (data flows from ``src``'s output into ``dst``), node indices.
    code : str
        The workflow's full source code.
    name : str
        A label for reports.

    Examples
    --------
    >>> from iclr26sci.agents import Workflow
    >>> src = '''
    ... class Workflow:
    ...     async def __call__(self, problem):
    ...         a = await self.answer_generate(input=problem)
    ...         b = await self.custom(input=problem + a, instruction="Check the answer step by step.")
    ...         return b
    ... '''
    >>> wf = Workflow.from_code(src)
    >>> wf.ops, wf.edges.tolist()
    (['Input', 'AnswerGenerate', 'Custom'], [[0, 0, 1], [1, 2, 2]])
    """

    ops: list
    prompts: list
    calls: list
    edges: np.ndarray
    code: str
    name: str = "workflow"
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        ops = check_texts(self.ops, "ops", min_len=0, allow_blank=False)
        n = len(ops)
        if n < 1:
            raise InputError("ops", "no nodes", "at least the entry node 0")
        prompts = check_texts(self.prompts, "prompts", n=n, min_len=0)
        calls = check_texts(self.calls, "calls", n=n, min_len=0)
        if not isinstance(self.name, str):
            raise InputError("name", f"got {type(self.name).__name__}", "a string label")
        raw = check_array(self.edges, "edges", dtype=float, finite=False)
        e = raw if raw.size else np.zeros((2, 0))
        if e.ndim != 2 or e.shape[0] != 2 or not np.all(np.isfinite(e)) or np.any(e != np.round(e)):
            raise InputError("edges", f"got an array of shape {e.shape}", "integer node indices of shape (2, E)")
        e = e.astype(np.int64)
        if e.size and (e.min() < 0 or e.max() >= n):
            bad = int(e.max()) if e.max() >= n else int(e.min())
            raise InputError("edges", f"edge to missing node {bad} (the graph has {n} nodes)",
                             f"node indices in [0, {n - 1}]")
        if not isinstance(self.code, str) or not self.code.strip():
            raise InputError("code", "empty or not a string", "the workflow's source code")
        self.ops, self.prompts, self.calls, self.edges = ops, prompts, calls, e

    @property
    def n_nodes(self) -> int:
        return len(self.ops)

    @property
    def full_prompt(self) -> str:
        """``"<Operator> Agent: <prompt>"`` lines of the non-entry nodes (the workflow-level prompt view)."""
        return "\n".join(f"{o} Agent: {p}" for o, p in zip(self.ops[1:], self.prompts[1:])) or self.prompts[0]

    def operator_code(self, v: int) -> str:
        """Source of node ``v``'s operator (a comment line for the entry node or an unknown operator)."""
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not 0 <= int(v) < self.n_nodes:
            raise InputError("v", f"got {v!r}", f"a node index in [0, {self.n_nodes - 1}]")
        return OPERATORS.get(self.ops[v], ("", f"# operator {self.ops[v]}"))[1]

    def __repr__(self):
        return f"Workflow({self.name!r}, nodes={self.n_nodes}, edges={self.edges.shape[1]})"

    @classmethod
    def from_code(cls, source, prompts=None, name: str = "workflow") -> "Workflow":
        """Parse a workflow programme into its operator graph, prompts and code views.

        Every call ``self.<op>(...)`` (awaited or not) becomes a node, in source order; ``snake_case`` attribute
        names map to operator classes (``sc_ensemble`` -> ``ScEnsemble``). An edge ``u -> v`` is added when a
        name produced by node ``u`` (assigned from its call, or appended to a list) appears in node ``v``'s
        arguments; the ``__call__`` argument (the problem), or no producer at all, links from node 0.

        Parameters
        ----------
        source : str
            Python source of the workflow (a class with an ``async def __call__(self, problem, ...)``, or any
            function body calling ``self.<op>``).
        prompts : dict, optional
            Prompt text per prompt name, operator class name or output variable. A call whose ``instruction=``
            is a reference such as ``prompt_custom.COT_STEP`` (AFlow keeps prompts in a ``prompt_custom`` module)
            takes ``prompts["COT_STEP"]``; otherwise the text of its output variable or operator, else the
            literal ``instruction=`` string, else the operator description.
        name : str
            A label.

        Returns
        -------
        Workflow

        Examples
        --------
        >>> from iclr26sci.agents import Workflow
        >>> wf = Workflow.from_code("async def run(self, problem):\\n    s = await self.programmer(problem=problem)")
        >>> wf.ops
        ['Input', 'Programmer']
        """
        if not isinstance(source, str) or not source.strip():
            raise InputError("source", "empty or not a string", "the Python source of a workflow")
        if prompts is not None and not isinstance(prompts, dict):
            raise InputError("prompts", f"got {type(prompts).__name__}", "a dict {operator or variable: text}")
        if prompts is not None and not all(isinstance(k, str) and isinstance(v, str) for k, v in prompts.items()):
            raise InputError("prompts", "has a non-string key or text", "a dict {operator or variable: text}")
        if not isinstance(name, str):
            raise InputError("name", f"got {type(name).__name__}", "a string label")
        try:
            tree = ast.parse(source)
        except SyntaxError as exc:
            raise InputError("source", f"does not parse: {exc.msg} (line {exc.lineno})",
                             "valid Python source of a workflow") from None
        entry = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                entry.update(a.arg for a in fn.args.args if a.arg != "self")
        calls = []
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "self"):
                calls.append(node)
        calls.sort(key=lambda c: (c.lineno, c.col_offset))
        if not calls:
            raise InputError("source", "no operator call self.<op>(...) found", "a workflow that calls operators")
        # the statement holding each call, and the names it defines
        parent = {}
        for node in ast.walk(tree):
            for ch in ast.iter_child_nodes(node):
                parent[ch] = node
        producers: dict[str, list[int]] = {}
        ops, prm, lines, src, dst = ["Input"], ["Input problem: solve the task given as input."], ["problem"], [], []
        prompts = prompts or {}
        # plain data flow between operator calls: aliases (sols = [a]) and list appends (sols.append(b))
        def has_self_call(n):
            return any(x in set(calls) for x in ast.walk(n))

        flows = []
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign)) and not has_self_call(node.value):
                tg = node.targets if isinstance(node, ast.Assign) else [node.target]
                flows.append((node, [n.id for t in tg for n in ast.walk(t) if isinstance(n, ast.Name)], node.value))
            elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                  and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name)
                  and node.value.func.attr in ("append", "extend", "insert") and not has_self_call(node.value)):
                flows.append((node, [node.value.func.value.id], node.value))
        flows.sort(key=lambda f: (f[0].lineno, f[0].col_offset))
        fi = 0

        def apply_flows(upto):
            nonlocal fi
            while fi < len(flows) and (flows[fi][0].lineno, flows[fi][0].col_offset) < upto:
                _, tg, val = flows[fi]
                src_ = sorted({u for n in ast.walk(val) if isinstance(n, ast.Name) for u in producers.get(n.id, [])})
                for t in tg:
                    producers[t] = sorted(set(producers.get(t, [])) | set(src_)) if not isinstance(
                        flows[fi][0], ast.Assign) else src_
                fi += 1

        for i, c in enumerate(calls, start=1):
            apply_flows((c.lineno, c.col_offset))
            op = _camel(c.func.attr)
            stmt = c
            while stmt in parent and not isinstance(stmt, ast.stmt):
                stmt = parent[stmt]
            used = {n.id for a in [*c.args, *[k.value for k in c.keywords]] for n in ast.walk(a)
                    if isinstance(n, ast.Name)}
            ins = sorted({u for nm in used for u in producers.get(nm, [])})
            if not ins or used & entry:
                ins = sorted({0, *ins})
            for u in ins:
                src.append(u)
                dst.append(i)
            targets = []
            if isinstance(stmt, ast.Assign):
                targets = [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and isinstance(stmt.target, ast.Name):
                targets = [stmt.target.id]
            up = parent.get(c)
            up = parent.get(up) if isinstance(up, ast.Await) else up
            if targets:
                pass
            elif isinstance(stmt, ast.Expr) and isinstance(up, ast.Call):
                outer = up                   # xs.append(self.op(...)) -> xs
                if isinstance(outer.func, ast.Attribute) and isinstance(outer.func.value, ast.Name):
                    targets = [outer.func.value.id]
            instr = next((k.value.value for k in c.keywords if k.arg == "instruction"
                          and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)), None)
            ref = next((k.value.attr if isinstance(k.value, ast.Attribute) else k.value.id for k in c.keywords
                        if k.arg == "instruction" and isinstance(k.value, (ast.Attribute, ast.Name))), None)
            text = prompts[ref] if ref in prompts else next((prompts[t] for t in targets if t in prompts),
                                                            prompts.get(op, instr))
            ops.append(op)
            prm.append(str(text) if text else OPERATORS.get(op, (f"{op} operator.", ""))[0])
            lines.append(ast.get_source_segment(source, stmt) or ast.unparse(stmt))
            for t in targets:
                producers.setdefault(t, [])
                if isinstance(stmt, ast.Assign) and not isinstance(up, ast.Call):
                    producers[t] = [i]        # plain assignment replaces the producer
                else:
                    producers[t].append(i)
        return cls(ops=ops, prompts=prm, calls=lines, edges=np.array([src, dst], dtype=np.int64).reshape(2, -1),
                   code=source, name=name)
