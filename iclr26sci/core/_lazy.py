"""Lazy public names for a sub-package (PEP 562), so that importing it loads no heavy dependency."""
from __future__ import annotations

import importlib
from typing import Callable, Mapping


def lazy_loader(package: str, where: Mapping[str, str], extra: Callable[[], set] | None = None):
    """Return ``(__getattr__, __dir__)`` for ``package`` whose public names live in private modules.

    ``where`` maps each public name to the private module (relative to ``package``) that defines it. A
    name is imported on first access and cached in the package's namespace.

    Examples
    --------
    >>> getattr_, dir_ = lazy_loader("iclr26sci.core", {"Estimate": "_results"})
    >>> getattr_("Estimate").__name__
    'Estimate'
    """
    import sys

    def __getattr__(name: str):
        mod = where.get(name)
        if mod is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{mod}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__


def literal_all(init_file: str, modules) -> dict[str, str]:
    """Map each name in the literal ``__all__`` of the sibling modules ``modules`` to its module.

    A package shared by several papers re-exports each public module's own ``__all__``. Reading the lists from
    the source (``ast``) rather than importing the modules keeps ``import package`` free of heavy imports; a
    module that does not exist (yet) contributes nothing.

    Examples
    --------
    >>> import iclr26sci.generative as g
    >>> where = literal_all(g.__file__, ["tempflow"])
    >>> where["FlowGRPOTrainer"]
    'tempflow'
    """
    import ast
    import pathlib

    out: dict[str, str] = {}
    for module in modules:
        path = pathlib.Path(init_file).with_name(f"{module}.py")
        if not path.exists():
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
                out.update({name: module for name in ast.literal_eval(node.value)})
                break
    return out
