"""Reader for the FLORA-Bench / G-Designer layout: workflow graphs, task records and success labels -> :class:`PairSet`.

FLORA-Bench (Zhang et al., "GNNs as Predictors of Agentic Workflow Performances", arXiv:2503.11301) stores one
(workflow, task) sample per JSON line. The workflow graph travels with the sample: ``nodes`` maps a node id to the
node's prompt text (node ids are JSON object keys, so strings; the first node is the entry/problem node) and
``edge_index`` lists directed ``[src, dst]`` pairs of node ids; ``task`` is the task text and ``label`` is 1 when
executing the workflow solved the task. The official Agentic Predictor converter reads the same fields and infers
each node's operator from its prompt's first sentence, falling back to the ``Custom`` operator.

This module validates every record (file, line, field, what is wrong, what is expected) before building anything,
then groups identical graphs into one :class:`~iclr26sci.agents.Workflow` and identical task texts into one task.
"""
from __future__ import annotations

import json
import os
import re

import numpy as np

from iclr26sci.core import InputError

from ._bench import PairSet
from ._workflow import OPERATORS, Workflow

__all__ = ["read_flora", "FLORA_ROLE_PROMPTS"]

#: first sentence of a FLORA-Bench node prompt -> operator, for the predefined agents of the AFlow/G-Designer
#: operator set; any other prompt is a ``Custom`` agent whose prompt is its instruction.
FLORA_ROLE_PROMPTS = {
    "think step by step and solve the problem": "AnswerGenerate",
    "fill codeblock": "CustomCodeGenerate",
    "several answers have been generated to a same question": "ScEnsemble",
    "you are a professional python programmer": "Programmer",
    "given a code problem and a python code solution which failed to pass test or execute, you need to analyze "
    "the reason for the failure and propose a better code solution": "Test",
}

_REQUIRED = ("task", "label")


def _snake(op):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower()


def _load_json_strict(text, where):
    """``json.loads`` that refuses duplicate keys (a duplicated node or workflow id)."""
    def hook(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise InputError(where, f"duplicate id {k!r}", "each node / workflow id exactly once")
            seen.add(k)
        return dict(pairs)
    try:
        return json.loads(text, object_pairs_hook=hook)
    except json.JSONDecodeError as e:
        raise InputError(where, f"is not valid JSON ({e.msg} at column {e.colno})", "one JSON object") from None


def _role(prompt):
    first = prompt.strip().split(".")[0].strip().lower()
    return FLORA_ROLE_PROMPTS.get(first, "Custom")


def _check_graph(graph, where):
    """Validate ``nodes`` / ``edge_index`` of one graph; return (ids, prompts, roles, edges as index pairs)."""
    if not isinstance(graph, dict):
        raise InputError(where, f"got {type(graph).__name__}", "a JSON object with 'nodes' and 'edge_index'")
    for f in ("nodes", "edge_index"):
        if f not in graph:
            raise InputError(f"{where}.{f}", "missing field", "FLORA layout: 'nodes' {id: prompt} and "
                             "'edge_index' [[src, dst], ...]")
    nodes = graph["nodes"]
    if not isinstance(nodes, dict) or not nodes:
        raise InputError(f"{where}.nodes", f"got {type(nodes).__name__} of length "
                         f"{len(nodes) if hasattr(nodes, '__len__') else '?'}",
                         "a non-empty object mapping node id -> prompt text (or {'prompt', 'role'})")
    ids, prompts, roles = [], [], []
    for k, v in nodes.items():
        role = None
        if isinstance(v, dict):
            if not isinstance(v.get("prompt"), str):
                raise InputError(f"{where}.nodes[{k!r}].prompt", "missing or not a string", "the node's prompt text")
            role, v = v.get("role"), v["prompt"]
            if role is not None and role not in OPERATORS and role != "Input":
                raise InputError(f"{where}.nodes[{k!r}].role", f"unknown role {role!r}",
                                 f"one of {sorted(OPERATORS)} or 'Input'")
        if not isinstance(v, str):
            raise InputError(f"{where}.nodes[{k!r}]", f"got {type(v).__name__}", "the node's prompt text")
        ids.append(str(k))
        prompts.append(v)
        roles.append("Input" if not ids[:-1] else (role or _role(v)))
    pos = {k: i for i, k in enumerate(ids)}
    e = graph["edge_index"]
    if not isinstance(e, list):
        raise InputError(f"{where}.edge_index", f"got {type(e).__name__}", "a list of [src, dst] node-id pairs")
    edges = []
    for j, pair in enumerate(e):
        if not isinstance(pair, list) or len(pair) != 2:
            raise InputError(f"{where}.edge_index[{j}]", f"got {pair!r}", "a [src, dst] pair of node ids")
        ij = []
        for end in pair:
            if isinstance(end, bool) or str(end) not in pos:
                raise InputError(f"{where}.edge_index[{j}]", f"edge to unknown node {end!r}",
                                 f"node ids among {ids[:8]}{' ...' if len(ids) > 8 else ''}")
            ij.append(pos[str(end)])
        edges.append(ij)
    return ids, prompts, roles, edges


def _workflow(ids, prompts, roles, edges, code, name):
    parents = {i: [s for s, d in edges if d == i] for i in range(len(ids))}
    var = ["problem"] + [f"{_snake(r)}_{i}" for i, r in enumerate(roles) if i]
    calls = ["problem = task"]
    for i in range(1, len(ids)):
        src = " + ".join(var[s] for s in parents[i]) or "problem"
        calls.append(f"{var[i]} = await self.{_snake(roles[i])}(input={src}, instruction={prompts[i]!r})")
    if code is None:
        code = "async def __call__(self, problem):\n" + "\n".join("    " + c for c in calls[1:]) \
               + f"\n    return {var[-1]}"
    arr = np.asarray(edges, dtype=np.int64).T if edges else np.zeros((2, 0), dtype=np.int64)
    return Workflow(ops=roles, prompts=prompts, calls=calls, edges=arr, code=code, name=name)


def _lines(path, arg):
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(arg, f"got {type(path).__name__}", "a path to a FLORA-layout file")
    if not os.path.isfile(path):
        raise InputError(arg, f"no such file: {os.fspath(path)!r}", "an existing .jsonl / .json file")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    name = os.path.basename(os.fspath(path))
    stripped = text.lstrip()
    if stripped.startswith("["):           # a JSON array of records
        data = _load_json_strict(text, name)
        if not all(isinstance(r, dict) for r in data):
            raise InputError(name, "an array item is not an object", "one JSON object per record")
        return [(f"{name}[{i}]", r) for i, r in enumerate(data)]
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            r = _load_json_strict(line, f"{name}:{n}")
            if not isinstance(r, dict):
                raise InputError(f"{name}:{n}", f"got {type(r).__name__}", "one JSON object per line")
            out.append((f"{name}:{n}", r))
    if not out:
        raise InputError(arg, f"{name!r} holds no records", "one JSON record per line")
    return out


def read_flora(records, workflows=None, *, domain=None):
    r"""Read FLORA-Bench / G-Designer workflow-task samples into a :class:`PairSet`.

    Each record is one executed (workflow, task) pair :math:`(W, T, y)`, :math:`y\in\{0,1\}`. The workflow graph
    :math:`G=(V,E)` either travels inside the record (the FLORA-Bench layout) or, when ``workflows`` is given, is
    looked up by the record's ``workflow_id`` in a JSON object ``{workflow_id: graph}``. A graph is

    - ``nodes``: ``{node_id: prompt}`` (or ``{node_id: {"prompt": ..., "role": <operator>}}``); the first node is
      the entry (problem) node :math:`v_0`;
    - ``edge_index``: ``[[src, dst], ...]`` of node ids, data flowing ``src -> dst``;
    - optional ``workflow_code``: the workflow's source (otherwise a call per node is generated from the graph).

    A node's operator is its ``role`` or, as in the official converter, the operator whose FLORA prompt matches
    the prompt's first sentence (:data:`FLORA_ROLE_PROMPTS`), else ``Custom``. Records need ``task`` (text) and
    ``label`` (0/1, or true/false); optional ``workflow_id``, ``task_id`` and ``domain``. Everything is validated
    before any object is built.

    Parameters
    ----------
    records : str or path
        A ``.jsonl`` file (one record per line) or a ``.json`` array of records.
    workflows : str or path, optional
        A ``.json`` object ``{workflow_id: graph}``; records then need ``workflow_id`` and no inline graph.
    domain : str, optional
        Domain label for records without a ``domain`` field (default ``"all"``).

    Returns
    -------
    PairSet
        Distinct workflows (identical graphs merged), distinct task texts, and one pair per record.

    Raises
    ------
    InputError
        Naming the file, line and field: a missing field, an edge to an unknown node, a label other than 0/1,
        a duplicated node / workflow id, a (workflow, task) pair recorded twice, an unknown ``workflow_id``.

    References
    ----------
    Zhang et al., "GNNs as Predictors of Agentic Workflow Performances", arXiv:2503.11301 (FLORA-Bench);
    Trirat, Jeong and Hwang, arXiv:2505.19764 (Agentic Predictor), whose converter reads these fields.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from iclr26sci.agents import read_flora
    >>> g = {"nodes": {"0": "Solve the task.", "1": "Think step by step and solve the problem."},
    ...      "edge_index": [[0, 1]]}
    >>> path = os.path.join(tempfile.mkdtemp(), "train.jsonl")
    >>> with open(path, "w") as f:
    ...     for t, y in [("2+2?", 1), ("prove P=NP", 0)]:
    ...         _ = f.write(json.dumps({**g, "task": t, "label": y}) + "\n")
    >>> ps = read_flora(path)
    >>> len(ps), ps.workflows[0].ops, ps.y.tolist()
    (2, ['Input', 'AnswerGenerate'], [1.0, 0.0])
    """
    if domain is not None and not isinstance(domain, str):
        raise InputError("domain", f"got {type(domain).__name__}", "a string domain label or None")
    recs = _lines(records, "records")
    graphs = None
    if workflows is not None:
        wl = _lines(workflows, "workflows")
        if len(wl) != 1 or not isinstance(wl[0][1], dict):
            raise InputError("workflows", "is not a single JSON object", "{workflow_id: {'nodes', 'edge_index'}}")
        wname = os.path.basename(os.fspath(workflows))
        graphs = {str(k): (_check_graph(v, f"{wname}[{k!r}]"), v.get("workflow_code") if isinstance(v, dict)
                           else None) for k, v in wl[0][1].items()}
    parsed, seen_pair, key_of = [], {}, {}
    for where, r in recs:
        for f in _REQUIRED:
            if f not in r:
                raise InputError(f"{where}.{f}", "missing field", "FLORA record fields 'task' (text) and 'label' (0/1)")
        if not isinstance(r["task"], str) or not r["task"].strip():
            raise InputError(f"{where}.task", f"got {r['task']!r}", "a non-empty task text")
        lab = r["label"]
        if isinstance(lab, bool):
            lab = int(lab)
        if not isinstance(lab, (int, float)) or lab not in (0, 1):
            raise InputError(f"{where}.label", f"got {r['label']!r}", "a success label 0 or 1 (or true/false)")
        wid = r.get("workflow_id")
        if graphs is not None:
            if wid is None:
                raise InputError(f"{where}.workflow_id", "missing field", "a key of the workflows file")
            if str(wid) not in graphs:
                raise InputError(f"{where}.workflow_id", f"unknown workflow {wid!r}",
                                 "a key of the workflows file")
            g, code = graphs[str(wid)]
        else:
            g = _check_graph(r, where)
            code = r.get("workflow_code")
        if code is not None and (not isinstance(code, str) or not code.strip()):
            raise InputError(f"{where}.workflow_code", "empty or not a string", "the workflow's source code")
        dom = r.get("domain", domain or "all")
        if not isinstance(dom, str):
            raise InputError(f"{where}.domain", f"got {dom!r}", "a string domain label")
        gkey = json.dumps([g[1], g[2], g[3], code])
        if wid is not None:
            prev = key_of.setdefault(("w", str(wid)), gkey)
            if prev != gkey:
                raise InputError(f"{where}.workflow_id", f"id {wid!r} is reused for a different graph",
                                 "one graph per workflow id")
        pair = (gkey, r.get("task_id", r["task"]))
        if pair in seen_pair:
            raise InputError(where, f"duplicate record: same workflow and task as {seen_pair[pair]}",
                             "each (workflow, task) pair once")
        seen_pair[pair] = where
        parsed.append((g, code, str(wid) if wid is not None else None, r["task"], float(lab), dom, gkey))
    wf_index, workflows_out, task_index, tasks_out = {}, [], {}, []
    w_idx, t_idx, y, doms = [], [], [], []
    for g, code, wid, task, lab, dom, gkey in parsed:
        if gkey not in wf_index:
            wf_index[gkey] = len(workflows_out)
            workflows_out.append(_workflow(*g, code, wid or f"workflow_{len(workflows_out)}"))
        if task not in task_index:
            task_index[task] = len(tasks_out)
            tasks_out.append(task)
        w_idx.append(wf_index[gkey])
        t_idx.append(task_index[task])
        y.append(lab)
        doms.append(dom)
    return PairSet(workflows=workflows_out, tasks=tasks_out, w_idx=np.array(w_idx), t_idx=np.array(t_idx),
                   y=np.array(y), domain=np.array(doms, dtype=object))
