import json
import subprocess
import sys

import numpy as np
import pytest

from iclr26sci.cli import main
from validation.registry import METHODS, REGISTRY, CheckResult, Profile, check, load_checks, run_check


def test_check_result_comparisons():
    assert CheckResult(1.0, 2.0).passed
    assert not CheckResult(3.0, 2.0).passed
    assert CheckResult(3.0, 2.0, comparison=">=").passed
    assert CheckResult(0.5, (0.4, 0.6), comparison="in").passed
    assert not CheckResult(float("nan"), 1.0).passed
    with pytest.raises(ValueError):
        CheckResult(1.0, 1.0, comparison="==")


def test_profile():
    assert Profile("quick").pick(1, 2) == 1 and Profile("full").pick(1, 2) == 2
    with pytest.raises(ValueError, match="profile"):
        Profile("medium")


def test_run_check_records_failures_and_exceptions():
    @check(method="prob", guarantee="test only", paper="-", name="_tmp_raises")
    def _raises(profile, rng):
        raise RuntimeError("boom")

    @check(method="prob", guarantee="test only", paper="-", name="_tmp_seeded")
    def _seeded(profile, rng):
        return CheckResult(statistic=rng.random(), threshold=2.0)

    try:
        rec = run_check(REGISTRY["prob._tmp_raises"], Profile(), 0)
        assert not rec["passed"] and "boom" in rec["error"]
        a = run_check(REGISTRY["prob._tmp_seeded"], Profile(), 0)["statistic"]
        b = run_check(REGISTRY["prob._tmp_seeded"], Profile(), 0)["statistic"]
        c = run_check(REGISTRY["prob._tmp_seeded"], Profile(), 1)["statistic"]
        assert a == b != c
    finally:
        REGISTRY.pop("prob._tmp_raises")
        REGISTRY.pop("prob._tmp_seeded")
    with pytest.raises(ValueError, match="unknown method"):
        check(method="nope", guarantee="", paper="")


def test_load_checks_rejects_unknown_method():
    with pytest.raises(ValueError, match="unknown method"):
        load_checks(["astrology"])


def test_cli_validate_writes_report(tmp_path, capsys):
    out = tmp_path / "rep"
    code = main(["validate", "--only", "prob", "--out", str(out)])
    assert code == 0
    data = json.loads((out / "results.json").read_text())
    assert data["summary"]["checks"] >= 5 and data["summary"]["failed"] == 0
    for rec in data["checks"]:
        for key in ("method", "name", "guarantee", "statistic", "threshold", "passed", "seconds"):
            assert key in rec
    html = (out / "index.html").read_text()
    assert "data:image/png;base64," in html and "prob" in html
    assert "| check | guarantee |" in (out / "report.md").read_text()
    assert any((out / "figures").iterdir())


def test_cli_list_and_data(capsys):
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    for m in METHODS:
        assert m in listed
    assert main(["data", "list"]) == 0
    assert "load_nhefs" in capsys.readouterr().out
    assert main(["validate", "--only", "astrology"]) == 2
    assert main(["validate", "--scheduler", "tcp://x:1"]) == 2


def test_cli_repeated_only_flags_add_up():
    """`--only a --only b` validates a and b (argparse's default would keep only the last flag)."""
    from iclr26sci.cli import _parser

    args = _parser().parse_args(["validate", "--only", "prob.a", "games", "--only", "kernels.t7_theory_limits"])
    assert args.only == ["prob.a", "games", "kernels.t7_theory_limits"]


def test_import_is_lazy():
    code = ("import sys; import iclr26sci; "
            "print([m for m in ('torch', 'gpytorch', 'open3d', 'cvxpy', 'scipy') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
