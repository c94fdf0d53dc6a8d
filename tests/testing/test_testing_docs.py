"""The three worked examples of docs/testing.md run as written."""
from __future__ import annotations

import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "testing.md"


def test_worked_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 4
    for code in blocks[1:]:
        exec(compile(code, str(DOC), "exec"), {"__name__": "docs_testing"})
