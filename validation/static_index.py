"""The checks registered in ``validation/*.py``, read from the source text without importing any method.

``iclr26sci list`` uses this so that listing takes a fraction of a second: importing the validation modules
imports torch, open3d, transformers and the rest (about 13 s). The index is read with :mod:`ast` from the
``@check(...)`` and ``@claim(...)`` decorators; keyword values that are literals, module-level string
constants or concatenations of them are resolved, anything else is shown as ``"..."``. A test compares
the keys found here with the ones the imported registry holds, so the two cannot drift apart.
"""
from __future__ import annotations

import ast
import pathlib
from dataclasses import dataclass

__all__ = ["IndexedCheck", "static_checks"]

_HERE = pathlib.Path(__file__).resolve().parent


@dataclass(frozen=True)
class IndexedCheck:
    """One registered check as read from the source: its method, name, kind, slowness, budget and text."""

    method: str
    name: str
    kind: str            # "check" or "claim"
    slow: bool
    budget: float
    text: str            # the guarantee (ordinary check) or the claim's one line
    module: str

    @property
    def key(self) -> str:
        return f"{self.method}.{self.name}"

    @property
    def tags(self) -> str:
        return "".join(t for t, on in ((" [claim]", self.kind == "claim"), (" [slow]", self.slow)) if on)


def _value(node, consts):
    """A keyword's value when it is a literal, a known module-level constant, or a sum / f-free join of them."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in consts:
        return consts[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _value(node.left, consts), _value(node.right, consts)
        if isinstance(a, str) and isinstance(b, str):
            return a + b
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                inner = _value(v.value, consts)
                parts.append(str(inner) if inner is not None else "...")
        return "".join(parts)
    return None


def _module_constants(tree) -> dict:
    consts: dict = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = _value(node.value, consts)
            if v is not None:
                consts[node.targets[0].id] = v
    return consts


def _decorator_names(tree) -> dict:
    """Local names bound to the registry's ``check`` and the claims' ``claim`` (``from .claims import claim as _c``)."""
    names = {"check": "check", "claim": "claim"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] in ("registry", "claims"):
            for a in node.names:
                if a.name in ("check", "claim"):
                    names[a.asname or a.name] = a.name
    return names


def _decorator_kind(dec, names):
    f = dec.func
    if isinstance(f, ast.Name):
        return names.get(f.id)
    if isinstance(f, ast.Attribute) and f.attr in ("check", "claim"):
        return f.attr
    return None


def _checks_in(path: pathlib.Path) -> list[IndexedCheck]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    consts = _module_constants(tree)
    names = _decorator_names(tree)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in node.decorator_list:
            kind = _decorator_kind(dec, names) if isinstance(dec, ast.Call) else None
            if kind is None:
                continue
            kw = {k.arg: _value(k.value, consts) for k in dec.keywords if k.arg}
            if not isinstance(kw.get("method"), str):
                continue
            text = kw.get("claim" if kind == "claim" else "guarantee")
            budget = kw.get("budget", 60.0)
            out.append(IndexedCheck(
                method=kw["method"], name=kw.get("name") if isinstance(kw.get("name"), str) else node.name,
                kind=kind, slow=bool(kw.get("slow", False)),
                budget=float(budget) if isinstance(budget, (int, float)) else float("nan"),
                text=" ".join(text.split()) if isinstance(text, str) else "...", module=path.stem))
    return out


def static_checks() -> list[IndexedCheck]:
    """Every check registered in ``validation/*.py``, in file and source order, read without importing them.

    Examples
    --------
    >>> cs = static_checks()
    >>> any(c.key == "prob.w1_agrees_with_scipy_and_pot" for c in cs)
    True
    """
    out = []
    for path in sorted(_HERE.glob("*.py")):
        if path.name.startswith("_") or path.stem in ("registry", "report", "claims", "static_index"):
            continue
        out.extend(_checks_in(path))
    return out
