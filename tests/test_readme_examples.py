"""The README's per-method examples run unchanged (each in a fresh interpreter, as a user would paste it), and
print the same numbers on two fresh runs (every example passes ``rng``).

They are paper-sized enough to take tens of seconds each, so they are marked slow (``make test-all``).
"""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def _examples():
    text = README.read_text()
    out = []
    for m in re.finditer(r"^### (\w+) — .*?$(.*?)(?=^#{2,3} )", text, re.M | re.S):
        blocks = re.findall(r"```python\n(.*?)```", m.group(2), re.S)
        if blocks:
            out.append(pytest.param(blocks[0], id=m.group(1)))
    return out


def test_readme_has_one_example_per_method():
    ids = [p.id for p in _examples()]
    assert {"causal", "games", "kernels", "embeddings", "imitation", "nn", "adaptation", "geom", "rl", "tempflow",
            "value_matching", "microsim", "mvr", "light", "closedloop", "distill", "ssdgs", "gaussian_fusion", "josh",
            "opticalflow"} <= set(ids), ids


def _run(code, cwd):
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", MPLBACKEND="Agg")
    res = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stdout


def _numbers(text):
    return re.findall(r"[-+]?\d*\.\d+(?:[eE][-+]?\d+)?|[-+]?\d+(?:[eE][-+]?\d+)?", text)


def test_example_passes_rng():
    """Every example that draws randomness says so: it passes ``rng=`` (or ``random_state=``) somewhere."""
    for p in _examples():
        code = p.values[0]
        assert re.search(r"\b(rng|random_state)\s*=", code), f"README example {p.id} passes no rng"


@pytest.mark.slow
@pytest.mark.parametrize("code", _examples())
def test_readme_example_runs_and_reproduces(code, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _run(code, tmp_path / "a")
    second = _run(code, tmp_path / "b")
    assert _numbers(first) == _numbers(second), f"two fresh runs printed different numbers:\n{first}\n---\n{second}"
