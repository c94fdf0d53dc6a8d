"""Output hygiene of iclr26sci.games: no solver banner on stdout, short reprs, cheap import."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from iclr26sci.games import (
    PolymatrixGame,
    dominant_flip_witness,
    dp_accounting,
    dp_equilibrium,
    expected_nash_gap,
    solve_equilibrium,
)
from iclr26sci.games import _exact


def test_highs_paths_print_nothing_to_stdout(capfd):
    g = PolymatrixGame.random(40, 3, p=0.3, payoffs="zero_sum", rng=0)
    x, obj, info = _exact.zero_sum_lp(g, method="ipm-nocrossover")        # highspy: banner in its constructor
    assert abs(obj) < 1e-6
    _exact.zero_sum_lp(g, method="highs")                                  # scipy's HiGHS
    _exact.zero_sum_lp(g, method="highs-ipm")
    solve_equilibrium(g, "lp")
    solve_equilibrium(PolymatrixGame.random(120, 3, p=0.5, payoffs="zero_sum", rng=1))   # interior point route
    out, err = capfd.readouterr()
    assert out == ""
    assert "HiGHS" not in err and "Running" not in err


def test_results_have_short_repr_summary_and_json_dict():
    g = PolymatrixGame.random(300, 3, p=0.5, payoffs="zero_sum", rng=0)
    results = [solve_equilibrium(g), dp_equilibrium(g, noise_scale=1.0, rounds=5, rng=0),
               expected_nash_gap(g, n_runs=2, noise_scale=1.0, rounds=5, rng=0), dominant_flip_witness(),
               dp_accounting(rounds=10, epsilon=1.0)]
    for r in results:
        text = repr(r)
        assert len(text) < 200 and "array" not in text and "\n" not in text
        s = r.summary()
        assert isinstance(s, str) and 2 < len(s.splitlines()) < 40
        json.dumps(r.to_dict())
    assert results[1].to_dict()["uniform_gap"] == results[1].uniform_gap
    np.testing.assert_allclose(np.asarray(results[0].to_dict()["strategies"]), np.asarray(results[0].strategies))


def test_import_is_cheap():
    code = ("import sys; import iclr26sci.games; "
            "print([m for m in ('scipy.sparse', 'scipy.optimize', 'networkx', 'sklearn', 'torch', 'matplotlib') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
