"""Every public function and class of every sub-package has a numpydoc "Examples" section.

Public = listed in the package's ``__all__``. Constants (tuples, dicts) are skipped; the public
methods of classes are exempt here (the class docstring's example shows them in use). The examples
themselves are run as doctests by ``pytest --doctest-modules`` (see the Makefile's test target).
"""
from __future__ import annotations

import importlib
import inspect
import re

import pytest

PACKAGES = ["iclr26sci.core", "iclr26sci.testing", "iclr26sci.prob", "iclr26sci.optim", "iclr26sci.causal", "iclr26sci.games",
            "iclr26sci.kernels", "iclr26sci.embeddings", "iclr26sci.imitation", "iclr26sci.geom", "iclr26sci.nn",
            "iclr26sci.adaptation", "iclr26sci.rl", "iclr26sci.generative", "iclr26sci.microsim",
            "iclr26sci.closedloop", "iclr26sci.distill", "iclr26sci.scene3d", "iclr26sci.opticalflow", "iclr26sci.agents", "data_adapters"]

_EXAMPLES = re.compile(r"^\s*Examples\s*\n\s*-{3,}\s*\n", re.M)
_PROMPT = re.compile(r"^\s*>>> ", re.M)


def _public_callables(mod):
    for name in getattr(mod, "__all__", []):
        obj = getattr(mod, name)
        if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj) or \
                (callable(obj) and hasattr(obj, "__wrapped__")):
            yield name, obj


def missing_examples(pkg: str) -> list[str]:
    """Public names of ``pkg`` whose docstring lacks an Examples section with at least one ``>>>`` line."""
    mod = importlib.import_module(pkg)
    out = []
    for name, obj in _public_callables(mod):
        doc = inspect.getdoc(obj) or ""
        m = _EXAMPLES.search(doc)
        if not m or not _PROMPT.search(doc[m.end():]):
            out.append(name)
    return out


@pytest.mark.parametrize("pkg", PACKAGES)
def test_every_public_name_has_an_examples_section(pkg):
    missing = missing_examples(pkg)
    assert not missing, f"{pkg}: public functions/classes without a numpydoc Examples section: {missing}"


if __name__ == "__main__":  # print the list per package
    for p in PACKAGES:
        print(p, missing_examples(p))
