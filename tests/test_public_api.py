"""Meta-tests over the public API: every public name of every sub-package has a bad-input test.

Convention: a test that feeds bad input to public names carries ``@pytest.mark.bad_input("pkg.name", ...)``
(``pkg`` is the sub-package under ``iclr26sci``). A name that takes no user input (an exception class, a
constant) is listed, with its reason, in a module-level ``BAD_INPUT_EXEMPT = {"pkg.name": "reason"}`` dict in any
test module. Both are read from the test sources with ``ast``, so the check costs no imports of the tests.
"""
from __future__ import annotations

import ast
import importlib
import pathlib

import pytest

TESTS = pathlib.Path(__file__).parent
SUBPACKAGES = ["core", "prob", "optim", "causal", "games", "kernels", "embeddings", "imitation", "geom", "nn",
               "adaptation", "rl", "generative", "microsim", "closedloop", "distill", "scene3d", "opticalflow", "agents", "testing"]


def _declared():
    covered: dict[str, list[str]] = {}
    exempt: dict[str, str] = {}
    for path in TESTS.rglob("test_*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Attribute) and f.attr == "bad_input" and isinstance(f.value, ast.Attribute) \
                        and f.value.attr == "mark":
                    for a in node.args:
                        if isinstance(a, ast.Constant) and isinstance(a.value, str):
                            covered.setdefault(a.value, []).append(path.name)
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "BAD_INPUT_EXEMPT"
                                                    for t in node.targets):
                exempt.update(ast.literal_eval(node.value))
    # the sweep's case files: Case(id, entry, ...) covers "<pkg>.<entry before any '.'>"
    for path in TESTS.glob("*/bad_input_cases.py"):
        pkg = path.parent.name
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Case":
                vals = [a.value for a in node.args[:2] if isinstance(a, ast.Constant)]
                vals += [k.value.value for k in node.keywords if k.arg == "entry" and isinstance(k.value, ast.Constant)]
                entry = vals[1] if len(vals) >= 2 else (vals[-1] if vals else None)
                if isinstance(entry, str):
                    covered.setdefault(f"{pkg}.{entry.split('.')[0]}", []).append(path.name)
    return covered, exempt


@pytest.mark.parametrize("pkg", SUBPACKAGES)
def test_every_public_name_has_a_bad_input_test(pkg):
    mod = importlib.import_module(f"iclr26sci.{pkg}")
    covered, exempt = _declared()
    missing = [n for n in mod.__all__ if f"{pkg}.{n}" not in covered and f"{pkg}.{n}" not in exempt]
    assert not missing, (f"iclr26sci.{pkg}: public names without a @pytest.mark.bad_input test: {missing}")


def test_exemptions_name_real_public_names():
    _, exempt = _declared()
    for key, reason in exempt.items():
        pkg, _, name = key.partition(".")
        # adapter tests declare their exemptions under the top-level data_adapters package
        mod = importlib.import_module(pkg if pkg == "data_adapters" else f"iclr26sci.{pkg}")
        assert name in mod.__all__, f"BAD_INPUT_EXEMPT names {key}, which is not public"
        assert isinstance(reason, str) and len(reason) > 10, f"BAD_INPUT_EXEMPT[{key!r}] needs a reason"
