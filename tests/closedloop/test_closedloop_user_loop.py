"""The worked example of docs/closedloop.md ("Your own loop"): the user's own pool, embedding model, generator and
response function, plain callables, run by hand with propose()/observe(). This test runs the block of the document
itself, so the example cannot drift from the code."""
from __future__ import annotations

import contextlib
import io
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "closedloop.md"


def _block():
    text = DOC.read_text()
    sec = text.split("## Your own loop", 1)[1]
    return re.search(r"```python\n(.*?)```", sec, re.S).group(1)


def test_user_loop_example_runs_and_prints_what_the_doc_says():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_block(), str(DOC), "exec"), {"__name__": "docs_example"})
    lines = out.getvalue().strip().splitlines()
    assert lines == ["MindPilot: 60 queries, best reward 1.003", "random pool search: 60 queries, best reward 0.981"]


def test_user_callables_are_used_as_given():
    ns = {"__name__": "docs_example"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(_block(), str(DOC), "exec"), ns)
    opt = ns["opt"]
    assert opt.embedder is ns["embed"] and opt.generator is ns["generate"]
    assert opt.best_image_.shape == (8, 8) and len(opt.history_) == 60
