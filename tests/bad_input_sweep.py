"""A bad-input sweep: named bad calls, each classified GOOD, WEAK or BAD.

Each sub-package keeps its cases in ``tests/<pkg>/bad_input_cases.py`` as a list ``CASES`` of
:class:`Case`. A test module runs them (``assert_good``), and ``scripts/bad_input_sweep.py`` prints the tally.

GOOD: an ``InputError`` (or ``NotFittedError``) that names one of the expected arguments, with nothing written.
WEAK: an ``InputError`` that names another argument.
BAD:  a silent result, any other exception (raised inside numpy or torch, an internal crash), or a file
      written before the error.
"""
from __future__ import annotations

import os
import pathlib
import tempfile
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Case", "classify", "assert_good", "load_cases", "case_files"]

TESTS = pathlib.Path(__file__).resolve().parent


@dataclass(frozen=True)
class Case:
    """One bad call.

    Parameters
    ----------
    id : str
        ``"<pkg>.<nnn>"``, stable across edits.
    entry : str
        The public name called (``"classical_flow"``, ``"Video.save"``).
    what : str
        What is bad about the input, in a few words ("image outside [0, 1]").
    call : callable
        A zero-argument function making the bad call. It runs in an empty temporary working directory.
    args : tuple of str
        The argument names a GOOD error may name.
    """

    id: str
    entry: str
    what: str
    call: Callable[[], object] = field(repr=False)
    args: tuple = ()

    def __post_init__(self):
        if isinstance(self.args, str):
            object.__setattr__(self, "args", (self.args,))


def _snapshot(path: pathlib.Path) -> set:
    return {p.relative_to(path) for p in path.rglob("*")}


def classify(case: Case) -> tuple[str, str]:
    """Run ``case.call`` in an empty temporary directory and return ``(verdict, what happened)``."""
    from iclr26sci.core import InputError

    old = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = pathlib.Path(tmp)
        os.chdir(tmp)
        try:
            try:
                out = case.call()
            except InputError as exc:
                written = _snapshot(tmp_path)
                if written:
                    return "BAD", f"wrote {sorted(map(str, written))[:3]} before raising: {exc}"
                arg = getattr(exc, "argument", None)
                if arg in case.args:
                    return "GOOD", str(exc)
                return "WEAK", f"InputError names `{arg}` (expected {list(case.args)}): {exc}"
            except Exception as exc:  # anything else: raised inside numpy/torch or an internal crash
                return "BAD", f"{type(exc).__name__}: {str(exc)[:300]}"
            return "BAD", f"no error; returned {type(out).__name__}: {str(out)[:200]}"
        finally:
            os.chdir(old)


def assert_good(case: Case) -> None:
    """Fail unless ``case`` is GOOD, with the verdict and what happened in the message."""
    verdict, msg = classify(case)
    assert verdict == "GOOD", f"{case.id} {case.entry} ({case.what}): {verdict}: {msg}"


def case_files() -> list[pathlib.Path]:
    """Every ``tests/<pkg>/bad_input_cases.py``."""
    return sorted(TESTS.glob("*/bad_input_cases.py"))


def load_cases(path: pathlib.Path) -> list[Case]:
    """The ``CASES`` list of one cases file, imported by path (the tests folders are not packages)."""
    import importlib.util
    import sys

    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    name = f"_bad_input_cases_{path.parent.name}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cases = list(mod.CASES)
    ids = [c.id for c in cases]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"{path}: duplicate case ids {dup}")
    return cases
