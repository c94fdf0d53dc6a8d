"""Workflow-task pair sets and the controlled synthetic workflow benchmark of the spec."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iclr26sci.core import (InputError, as_generator, check_array, check_in_range, check_memory, check_option,
                            check_positive_int)

from ._checks import check_rng, check_texts

from ._workflow import Workflow

__all__ = ["PairSet", "WorkflowBench", "synthetic_workflow_bench", "load_executed_bench"]

DOMAINS = ("code", "math", "reasoning")


@dataclass(eq=False)
class PairSet:
    """Workflow-task pairs with binary success labels.

    Parameters
    ----------
    workflows : list of Workflow
        The distinct workflows the pairs refer to.
    tasks : list of str
        The distinct task texts the pairs refer to (each non-empty).
    w_idx, t_idx : array-like of int, shape (n,)
        Workflow and task index of each pair.
    y : array-like of shape (n,)
        1 if the workflow solved the task, else 0.
    domain : array-like of str, shape (n,), optional
        Task domain of each pair.

    Examples
    --------
    >>> from iclr26sci.agents import synthetic_workflow_bench
    >>> bench = synthetic_workflow_bench(n_workflows=6, n_tasks=4, rng=0)
    >>> len(bench.train) + len(bench.test) == 3 * 6 * 4
    True
    """

    workflows: list
    tasks: list
    w_idx: np.ndarray
    t_idx: np.ndarray
    y: np.ndarray
    domain: np.ndarray = None

    def __post_init__(self):
        if isinstance(self.workflows, (str, bytes)) or not hasattr(self.workflows, "__len__"):
            raise InputError("workflows", f"got {type(self.workflows).__name__}", "a list of Workflow objects")
        self.workflows = list(self.workflows)
        if not all(isinstance(w, Workflow) for w in self.workflows):
            raise InputError("workflows", "an item is not a Workflow", "Workflow objects")
        self.tasks = check_texts(self.tasks, "tasks", min_len=0, allow_blank=False)
        self.w_idx = check_array(np.ravel(self.w_idx) if np.ndim(self.w_idx) else self.w_idx, "w_idx", ndim=1,
                                 dtype=int)
        self.t_idx = check_array(np.ravel(self.t_idx) if np.ndim(self.t_idx) else self.t_idx, "t_idx", ndim=1,
                                 dtype=int)
        self.y = check_array(np.ravel(self.y) if np.ndim(self.y) else self.y, "y", ndim=1)
        n = len(self.w_idx)
        if len(self.t_idx) != n or len(self.y) != n:
            raise InputError("y", f"{len(self.w_idx)} workflows, {len(self.t_idx)} tasks and {len(self.y)} labels",
                             "one workflow index, task index and label per pair")
        if n and (self.w_idx.min() < 0 or self.w_idx.max() >= len(self.workflows)):
            raise InputError("w_idx", f"has indices outside [0, {len(self.workflows)})", "indices into workflows")
        if n and (self.t_idx.min() < 0 or self.t_idx.max() >= len(self.tasks)):
            raise InputError("t_idx", f"has indices outside [0, {len(self.tasks)})", "indices into tasks")
        if not np.all(np.isin(self.y, (0.0, 1.0))):
            raise InputError("y", "labels other than 0/1", "binary success labels")
        if self.domain is None:
            self.domain = np.full(n, "all", dtype=object)
        if isinstance(self.domain, str):
            raise InputError("domain", "is a single string", "one domain label per pair")
        self.domain = np.asarray(self.domain, dtype=object).ravel()
        if len(self.domain) != n:
            raise InputError("domain", f"has {len(self.domain)} labels for {n} pairs", "one domain label per pair")

    def __len__(self):
        return len(self.y)

    def __repr__(self):
        return f"PairSet(pairs={len(self)}, workflows={len(set(self.w_idx.tolist()))}, success={self.y.mean():.2f})"

    def summary(self) -> str:
        """Pairs, workflows, tasks and success rate, overall and per domain."""
        doms = sorted(set(self.domain.tolist()))
        per = ", ".join(f"{d}: {int((self.domain == d).sum())} pairs, success {self.y[self.domain == d].mean():.3f}"
                        for d in doms)
        return (f"{len(self)} pairs of {len(set(self.w_idx.tolist()))} workflows x {len(set(self.t_idx.tolist()))} "
                f"tasks, success {self.y.mean() if len(self) else float('nan'):.3f} ({per})")

    def to_dict(self) -> dict:
        """Indices, labels and domains as lists (workflows and task texts by count only)."""
        return {"n_pairs": len(self), "n_workflows": len(set(self.w_idx.tolist())),
                "n_tasks": len(set(self.t_idx.tolist())), "success_rate": float(self.y.mean()) if len(self) else None,
                "w_idx": self.w_idx.tolist(), "t_idx": self.t_idx.tolist(), "y": self.y.astype(int).tolist(),
                "domain": [str(d) for d in self.domain]}

    def subset(self, mask) -> "PairSet":
        """The pairs selected by a boolean mask or index array (same workflow and task lists)."""
        m = np.asarray(mask)
        if m.dtype == bool:
            if m.shape != (len(self),):
                raise InputError("mask", f"is a boolean mask of shape {m.shape}", f"shape ({len(self)},)")
        elif m.ndim != 1 or (m.size and not np.issubdtype(m.dtype, np.integer)):
            raise InputError("mask", f"has dtype {m.dtype} and shape {m.shape}", "a boolean mask or integer positions")
        elif m.size and (m.min() < -len(self) or m.max() >= len(self)):
            raise InputError("mask", f"has positions outside [0, {len(self)})", "positions of existing pairs")
        return PairSet(self.workflows, self.tasks, self.w_idx[m], self.t_idx[m], self.y[m], self.domain[m])

    def head(self, ratio: float) -> "PairSet":
        """The first ``ceil(ratio * n)`` pairs (the released ``label_ratio``: first fraction of the training set)."""
        ratio = check_in_range(ratio, "ratio", 0.0, 1.0, low_open=True)
        return self.subset(np.arange(max(1, int(np.ceil(ratio * len(self))))))

    def success_rates(self) -> np.ndarray:
        """Mean label per workflow index (NaN for workflows without pairs)."""
        out = np.full(len(self.workflows), np.nan)
        for w in np.unique(self.w_idx):
            out[w] = self.y[self.w_idx == w].mean()
        return out


@dataclass(eq=False)
class WorkflowBench:
    """Workflows x tasks x measured success, with a train/test split by workflow.

    Parameters
    ----------
    train, test : PairSet
        Labelled pairs; the test workflows are disjoint from the training ones.
    unlabeled : list of Workflow
        Workflows pooled across domains for unsupervised pretraining (labels ignored).
    info : dict
        Provenance (generator, seeds, sizes).

    Examples
    --------
    >>> from iclr26sci.agents import WorkflowBench
    >>> bench = WorkflowBench.load("synthetic", n_workflows=6, n_tasks=4, rng=0)
    >>> bench.info["generator"]
    'synthetic_workflow_bench'
    """

    train: PairSet
    test: PairSet
    unlabeled: list
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        for nm in ("train", "test"):
            if not isinstance(getattr(self, nm), PairSet):
                raise InputError(nm, f"got {type(getattr(self, nm)).__name__}", "a PairSet")
        if isinstance(self.unlabeled, (str, bytes)) or not hasattr(self.unlabeled, "__iter__") \
                or not all(isinstance(w, Workflow) for w in self.unlabeled):
            raise InputError("unlabeled", "is not a list of Workflow objects", "a list of Workflow objects")
        self.unlabeled = list(self.unlabeled)
        if not isinstance(self.info, dict):
            raise InputError("info", f"got {type(self.info).__name__}", "a dict of provenance")

    def __repr__(self):
        return f"WorkflowBench(train={len(self.train)}, test={len(self.test)}, unlabeled={len(self.unlabeled)})"

    def summary(self) -> str:
        """Provenance and the train/test pair sets."""
        keys = ("name", "generator", "split", "script_version", "seed", "model", "run_seconds")
        prov = ", ".join(f"{k}={self.info[k]}" for k in keys if k in self.info)
        return f"{self!r} [{prov}]\n  train: {self.train.summary()}\n  test: {self.test.summary()}"

    def to_dict(self) -> dict:
        """Provenance (arrays excluded) and pair counts."""
        info = {k: v for k, v in self.info.items() if not isinstance(v, np.ndarray)}
        return {"info": info, "train": {k: v for k, v in self.train.to_dict().items() if not isinstance(v, list)},
                "test": {k: v for k, v in self.test.to_dict().items() if not isinstance(v, list)},
                "n_unlabeled": len(self.unlabeled)}

    @classmethod
    def load(cls, name: str = "synthetic", **kwargs) -> "WorkflowBench":
        """Load a benchmark by name.

        ``"synthetic"`` builds :func:`synthetic_workflow_bench` with ``kwargs``. ``"smollm2-arith"`` is the
        shipped table of workflows really executed with SmolLM2-135M-Instruct (``scripts/build_agents_bench.py``;
        see :func:`load_executed_bench` for its ``kwargs``: ``split``, ``test_fraction``, ``test_domain``, ``rng``).

        Examples
        --------
        >>> from iclr26sci.agents import WorkflowBench
        >>> WorkflowBench.load("synthetic", n_workflows=6, n_tasks=4, rng=0).info["n_pairs"]
        72
        >>> WorkflowBench.load("smollm2-arith", rng=0).info["model"][:21]
        'SmolLM2-135M-Instruct'
        """
        import inspect

        if not isinstance(name, str) or (name != "synthetic" and name not in EXECUTED):
            raise InputError("name", f"unknown bench {name!r}", f"one of {['synthetic', *EXECUTED]}")
        fn = synthetic_workflow_bench if name == "synthetic" else load_executed_bench
        known = [p for p in inspect.signature(fn).parameters if p != "name"]
        bad = sorted(set(kwargs) - set(known))
        if bad:
            raise InputError("kwargs", f"has {bad}, not arguments of the {name!r} bench", f"keywords among {known}")
        return fn(**kwargs) if name == "synthetic" else fn(name, **kwargs)


#: shipped executed benches: name -> file in iclr26sci/agents/data
EXECUTED = {"smollm2-arith": "smollm2_arith.json.gz"}


def load_executed_bench(name: str = "smollm2-arith", split: str = "workflow", test_fraction: float = 0.3,
                        test_domain: str = "champ", rng=0, path=None) -> WorkflowBench:
    """The shipped bench of workflows executed with SmolLM2-135M-Instruct, split for training and testing.

    Every workflow is a small programme (``Workflow.from_code`` parses it with its ``prompt_custom`` prompts);
    every pair's label is whether running that programme with the LLM solved that task (exact answer, or the
    HumanEval unit tests in the sandbox). The pair order is shuffled with ``rng`` (the released ``label_ratio``
    keeps the first fraction of the training pairs).

    Parameters
    ----------
    name : str
        A key of :data:`EXECUTED`.
    split : {"workflow", "domain"}
        ``"workflow"``: a random ``test_fraction`` of each workflow family (math, code) is held out with all its
        pairs; ``"domain"``: every pair of the task domain ``test_domain`` is held out (cross-domain transfer).
    test_fraction : float in (0, 1)
        Held-out fraction of workflows for ``split="workflow"``.
    test_domain : {"arith", "champ", "code"}
        Held-out task domain for ``split="domain"``.
    rng : seed or numpy.random.Generator
        Split and pair order.
    path : str or path, optional
        A table written by ``scripts/build_agents_bench.py --out PATH`` (default: the shipped one).

    Returns
    -------
    WorkflowBench
        ``unlabeled`` holds the training workflows; ``info`` the build provenance (seed, script version, model,
        token counts, run time).

    Examples
    --------
    >>> from iclr26sci.agents._bench import load_executed_bench
    >>> b = load_executed_bench(split="domain", test_domain="code")
    >>> sorted(set(b.test.domain.tolist()))
    ['code']
    """
    import gzip
    import json
    from pathlib import Path

    if not isinstance(name, str) or name not in EXECUTED:
        raise InputError("name", f"got {name!r}", f"one of {list(EXECUTED)}")
    check_option(split, "split", ["workflow", "domain"])
    test_fraction = check_in_range(test_fraction, "test_fraction", 0.0, 1.0, low_open=True, high_open=True)
    if not isinstance(test_domain, str):
        raise InputError("test_domain", f"got {test_domain!r}", "a task domain name")
    check_rng(rng)
    if path is not None:
        if not isinstance(path, (str, Path)):
            raise InputError("path", f"got {type(path).__name__}", "None or a path to a table")
        if not Path(path).is_file():
            raise InputError("path", f"{str(path)!r} is not a file", "a table written by scripts/build_agents_bench.py")
    path = Path(__file__).parent / "data" / EXECUTED[name] if path is None else Path(path)
    if not path.is_file():
        raise InputError("name", f"the table {path.name} is not in this installation",
                         "an installation with iclr26sci/agents/data (rebuild it with scripts/build_agents_bench.py)")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        table = json.load(fh)
    tasks = [t["text"] for t in table["tasks"]]
    tdom = np.array([t["domain"] for t in table["tasks"]], dtype=object)
    if split == "domain":
        check_option(test_domain, "test_domain", sorted(set(tdom.tolist())))
    wfs = [Workflow.from_code(w["source"], prompts=w["prompts"], name=w["name"]) for w in table["workflows"]]
    fam = np.array([w["domain"] for w in table["workflows"]], dtype=object)
    P = np.asarray(table["pairs"], dtype=np.int64)
    gen = as_generator(rng)
    P = P[gen.permutation(len(P))]
    dom = tdom[P[:, 1]]
    if split == "workflow":
        is_test_w = np.zeros(len(wfs), bool)
        for f in sorted(set(fam.tolist())):
            idx = np.flatnonzero(fam == f)
            is_test_w[gen.permutation(idx)[:max(1, int(round(test_fraction * len(idx))))]] = True
        te = is_test_w[P[:, 0]]
    else:
        te = dom == test_domain
    mk = lambda m: PairSet(wfs, tasks, P[m, 0], P[m, 1], P[m, 2].astype(float), dom[m])  # noqa: E731
    train, test = mk(~te), mk(te)
    unl = [wfs[i] for i in sorted(set(train.w_idx.tolist()))]
    info = dict(table["info"], name=name, split=split, n_workflows=len(wfs), n_tasks=len(tasks), n_pairs=len(P),
                test_domain=test_domain if split == "domain" else None,
                workflow_family=[str(f) for f in fam], task_domain=[str(d) for d in tdom])
    return WorkflowBench(train=train, test=test, unlabeled=unl, info=info)


# ------------------------------------------------------------------------------------- synthetic generator
_INSTR = [  # (text, keyword effect per domain code/math/reasoning)
    ("Think step by step and show each intermediate result.", (0.2, 1.0, 0.6)),
    ("Solve the problem step by step, then state the final answer.", (0.2, 1.0, 0.6)),
    ("Carefully verify every claim before answering.", (0.4, 0.4, 0.8)),
    ("Answer as briefly as possible, one word.", (-0.8, -0.8, -0.6)),
    ("Give only the final answer without explanation.", (-0.6, -0.8, -0.4)),
    ("Rewrite the question in your own words.", (0.0, 0.0, 0.0)),
    ("List the relevant facts of the input.", (0.0, 0.1, 0.3)),
    ("Write clean, well-named helper functions.", (0.7, 0.0, -0.2)),
]
_OPS = ["AnswerGenerate", "Custom", "CustomCodeGenerate", "Programmer", "ScEnsemble", "Test"]
_OP_U = np.array([  # u[d, op]
    [0.0, 0.0, 0.6, 0.2, 0.2, 0.0],
    [0.3, 0.0, -0.3, 0.6, 0.2, -0.3],
    [0.4, 0.1, -0.6, -0.3, 0.3, -0.5],
])
_CALL = {"AnswerGenerate": "answer_generate", "Custom": "custom", "CustomCodeGenerate": "custom_code_generate",
         "Programmer": "programmer", "ScEnsemble": "sc_ensemble", "Test": "test"}
_TASKS = {
    "code": ["Write a function {f} that returns the {k}-th {o} of a list.",
             "Implement {f} which checks whether a string is a {o} after {k} rotations."],
    "math": ["Compute {k} times the sum of the first {n} {o} numbers.",
             "A shop sells {n} items at {k} dollars each with a {o} discount; find the total."],
    "reasoning": ["If every {o} is a bird and {n} birds can fly, how many of {k} {o}s fly?",
                  "Which option follows: {n} of {k} students like {o}; pick the true statement."],
}
_WORDS = ["prime", "odd", "palindrome", "even", "square", "cube", "vowel", "robin"]


def _gen_workflow(d, rng, i):
    m = int(rng.integers(1, 8))
    p_op = np.exp(_OP_U[d] + 0.5)
    p_op /= p_op.sum()
    ops, parents, instr = [], [], []
    for v in range(1, m + 1):
        op = _OPS[int(rng.choice(6, p=p_op))]
        k = 1 if op != "ScEnsemble" or v < 3 else int(rng.integers(1, 4))
        par = sorted(set(int(x) for x in rng.choice(v, size=min(k, v), replace=False))) if v > 1 else [0]
        if v > 1 and rng.random() < 0.6 and (v - 1) not in par:
            par = sorted({*par[1:], v - 1})
        ops.append(op)
        parents.append(par)
        instr.append(int(rng.integers(len(_INSTR))) if op in ("Custom", "CustomCodeGenerate", "AnswerGenerate")
                     and rng.random() < 0.8 else -1)
    retries = int(rng.integers(1, 4))
    name = lambda u: "problem" if u == 0 else f"x{u}"      # noqa: E731
    body, prompts = [], {}
    for v, (op, par, ins) in enumerate(zip(ops, parents, instr), start=1):
        args = ", ".join(name(u) for u in par)
        if op == "ScEnsemble":
            call = f"x{v} = await self.sc_ensemble(solutions=[{args}], problem=problem)"
        elif op == "Test":
            call = f"x{v} = await self.test(problem=problem, solution={args.split(', ')[-1]}, entry_point=entry)"
        else:
            extra = f", instruction=prompt_custom.P{v}" if ins >= 0 else ""
            call = f"x{v} = await self.{_CALL[op]}(input={' + '.join(name(u) for u in par)}{extra})"
        if ins >= 0:
            prompts[f"x{v}"] = _INSTR[ins][0]
        body.append(call)
    ind = "            " if retries > 1 else "        "
    lines = ["class Workflow:", "    async def __call__(self, problem, entry=None):"]
    if retries > 1:
        lines.append(f"        for attempt in range({retries}):")
    lines += [ind + b for b in body]
    if retries > 1:
        lines += [ind + f"if accept(x{m}):", ind + "    break"]
    lines.append(f"        return x{m}")
    wf = Workflow.from_code("\n".join(lines), prompts=prompts, name=f"{DOMAINS[d]}-{i}")
    # latent success logit of the workflow (task difficulty is subtracted per pair)
    anc = [set() for _ in range(m + 1)]
    depth = [0] * (m + 1)
    for v, par in enumerate(parents, start=1):
        for u in par:
            anc[v] |= anc[u] | {u}
        depth[v] = 1 + max(depth[u] for u in par)
    logit = sum(_OP_U[d, _OPS.index(o)] for o in ops) / np.sqrt(m)
    for v, (op, par) in enumerate(zip(ops, parents), start=1):
        if op == "Test":
            logit += 0.9 if any(u > 0 and ops[u - 1] in ("CustomCodeGenerate", "Programmer") for u in anc[v]) else -0.9
        if op == "ScEnsemble":
            logit += 0.8 if len(par) >= 2 else -0.6
    logit -= 0.3 * max(depth[1:]) if max(depth[1:]) > 3 else 0.0
    logit += sum(_INSTR[k][1][d] for k in instr if k >= 0) * 0.8
    logit += 0.9 * (retries - 2)
    return wf, logit


def synthetic_workflow_bench(n_workflows: int = 60, n_tasks: int = 40, test_fraction: float = 0.3, rng=None,
                             domains=DOMAINS) -> WorkflowBench:
    r"""Controlled synthetic workflow benchmark (spec b.3): views with unique signal and a known latent logit.

    For each domain :math:`d`, workflows are random DAGs of 2-8 nodes (node 0 = input) over the official
    operators, written as small AFlow-style programmes (prompts kept apart in a ``prompt_custom`` module, as in
    the official benchmark, so the code view does not see them). The success probability of workflow
    :math:`W` on task :math:`t` is :math:`\sigma(\ell)`,

    .. math:: \ell = b_d + \tfrac{1}{\sqrt m}\sum_v u[d, \mathrm{op}(v)] + s(G) + 0.8\sum_v \kappa_d(\mathrm{prompt}_v)
              + 0.9\,(R - 2) - \delta_t,

    with structural terms :math:`s(G)` (Test +0.9 only with a code-generating ancestor, else -0.9; ScEnsemble
    +0.8 with at least 2 parents, else -0.6; -0.3 depth when deeper than 3), prompt keyword effects
    :math:`\kappa_d` ("step by step" helps math), the retry count :math:`R \in \{1,2,3\}` visible only in the
    workflow code, and task difficulty :math:`\delta_t = 0.7(\mathrm{level}_t - 2) + N(0, 0.3^2)` whose level is
    written in the task text. :math:`b_d` centres each domain's logits. Labels are
    :math:`y \sim \mathrm{Bernoulli}(\sigma(\ell))`; the graph view misses :math:`R`, the code view misses the
    prompts and the prompt view misses the structure and :math:`R`. [RECON: the generator is the spec's design;
    its coefficients are ours.]

    Parameters
    ----------
    n_workflows : int
        Workflows per domain.
    n_tasks : int
        Tasks per domain; every workflow of a domain is run on every task of that domain.
    test_fraction : float
        Fraction of each domain's workflows held out for the test pairs (split by workflow).
    rng : seed or numpy.random.Generator, optional
        Randomness of workflows, tasks, labels and the pair order.
    domains : sequence of str
        Domain names (at most the three of the paper: code, math, reasoning).

    Returns
    -------
    WorkflowBench
        Its ``info["true_prob"]`` holds :math:`\sigma(\ell)` of the train and test pairs.

    Examples
    --------
    >>> from iclr26sci.agents import synthetic_workflow_bench
    >>> b = synthetic_workflow_bench(n_workflows=10, n_tasks=5, rng=0)
    >>> len(b.unlabeled), b.info["n_pairs"]
    (21, 150)
    """
    n_workflows = check_positive_int(n_workflows, "n_workflows", minimum=2)
    n_tasks = check_positive_int(n_tasks, "n_tasks")
    test_fraction = check_in_range(test_fraction, "test_fraction", 0.0, 1.0, low_open=True, high_open=True)
    domains = check_texts(domains, "domains", allow_blank=False)
    if len(domains) > 3 or len(set(domains)) != len(domains):
        raise InputError("domains", f"got {domains!r}", "1 to 3 distinct domain names")
    check_memory(600.0 * n_workflows * n_tasks * len(domains) + 20000.0 * n_workflows * len(domains),
                 "n_workflows", "the workflows and their workflow-task pairs")
    gen = as_generator(rng)
    wfs, tasks, rows = [], [], []
    for d, dname in enumerate(domains):
        ws = [_gen_workflow(d, gen, i) for i in range(n_workflows)]
        base = -np.mean([lw for _, lw in ws])
        t0 = len(tasks)
        levels = gen.integers(1, 4, size=n_tasks)
        delta = 0.7 * (levels - 2) + gen.normal(0, 0.3, size=n_tasks)
        for j in range(n_tasks):
            tpl = _TASKS[("code", "math", "reasoning")[d]][j % 2]
            txt = tpl.format(f=f"f{j}", k=int(gen.integers(2, 9)), n=int(gen.integers(2, 20)),
                             o=_WORDS[int(gen.integers(len(_WORDS)))])
            tasks.append(f"Level {levels[j]} {dname} task {j}: {txt}")
        n_test = max(1, int(round(test_fraction * n_workflows)))
        is_test = np.zeros(n_workflows, bool)
        is_test[gen.permutation(n_workflows)[:n_test]] = True
        for i, (wf, lw) in enumerate(ws):
            wi = len(wfs)
            wfs.append(wf)
            for j in range(n_tasks):
                pr = 1.0 / (1.0 + np.exp(-(lw + base - delta[j])))
                rows.append((wi, t0 + j, float(gen.random() < pr), dname, pr, bool(is_test[i])))
    rows = [rows[k] for k in gen.permutation(len(rows))]
    w, t, y, dom, pr, te = (np.array(c, dtype=object) for c in zip(*rows))
    te = te.astype(bool)
    mk = lambda m: PairSet(wfs, tasks, w[m].astype(int), t[m].astype(int), y[m].astype(float), dom[m])  # noqa
    train, test = mk(~te), mk(te)
    unl = [wfs[i] for i in sorted(set(train.w_idx.tolist()))]
    info = {"generator": "synthetic_workflow_bench", "n_workflows": len(wfs), "n_tasks": len(tasks),
            "n_pairs": len(rows), "domains": domains, "true_prob_train": pr[~te].astype(float),
            "true_prob_test": pr[te].astype(float)}
    return WorkflowBench(train=train, test=test, unlabeled=unl, info=info)
