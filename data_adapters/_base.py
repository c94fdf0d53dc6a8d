"""Adapter registry and helpers shared by the loaders."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

from iclr26sci.core import InputError

__all__ = ["adapter", "ADAPTERS", "AdapterInfo", "package_file"]


@dataclass(frozen=True)
class AdapterInfo:
    name: str
    func: Callable
    returns: str
    source: str
    description: str


ADAPTERS: dict[str, AdapterInfo] = {}


def adapter(*, returns: str, source: str, description: str):
    """Register a ``load_<name>`` function for ``iclr26sci data list``."""

    def deco(func):
        name = func.__name__.removeprefix("load_")
        ADAPTERS[name] = AdapterInfo(name, func, returns, source, description)
        return func

    return deco


def package_file(package: str, *parts: str) -> str:
    """Path of a file shipped inside an installed package; a clear error when absent."""
    import importlib

    try:
        mod = importlib.import_module(package)
    except ImportError as exc:
        raise ImportError(f"the data adapter needs the package {package!r}, which is not installed "
                          f"(pip install {package})") from exc
    path = os.path.join(os.path.dirname(mod.__file__), *parts)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is not shipped with the installed {package}; "
                                "this adapter never downloads, so install a version that bundles it")
    return path


def check_choice(value, name, options):
    """Require ``value`` to be one of ``options`` (strings), naming ``name`` otherwise."""
    if not isinstance(value, str) or value not in options:
        raise InputError(name, f"got {value!r}", "one of " + ", ".join(map(repr, options)))
    return value
