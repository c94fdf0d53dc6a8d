"""The bad-input sweep: every case in ``tests/<pkg>/bad_input_cases.py`` must be GOOD (see ``bad_input_sweep``).

A case file counts as the bad-input test of the public names its cases call (the meta-test in
``test_public_api`` reads their ``entry`` fields).
"""
from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bad_input_sweep import assert_good, case_files, load_cases  # noqa: E402


def _params():
    out = []
    for f in case_files():
        for c in load_cases(f):
            out.append(pytest.param(c, id=c.id))
    return out


@pytest.mark.parametrize("case", _params())
def test_bad_input_case_is_good(case):
    assert_good(case)
