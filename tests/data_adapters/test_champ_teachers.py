"""data_adapters.champ_teachers: CHAMP's four LLM teachers as graded multi-teacher records."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError
from data_adapters import champ_teacher_records, load_champ_teachers


def test_records_are_graded_and_split_by_problem():
    rec = champ_teacher_records("0-Shot")
    d = load_champ_teachers("0-Shot", split=0.7, rng=0)
    assert d.K == 4 and d.train.n + d.test.n == 270
    assert set(np.unique(d.train.correct)) <= {0, 1}
    assert not set(d.train.questions) & set(d.test.questions)
    assert isinstance(rec, dict) and rec


@pytest.mark.bad_input("data_adapters.champ_teacher_records", "data_adapters.load_champ_teachers")
@pytest.mark.parametrize("call, arg", [
    (lambda: champ_teacher_records("no-such-setting"), "prompt_setting"),
    (lambda: champ_teacher_records(3), "prompt_setting"),
    (lambda: load_champ_teachers("no-such-setting"), "prompt_setting"),
    (lambda: load_champ_teachers("0-Shot", split=1.5), "split"),
])
def test_bad_input(call, arg):
    with pytest.raises(InputError, match=arg):
        call()
