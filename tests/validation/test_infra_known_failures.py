"""Known failures (strict like xfail(strict=True)), seed lists, and the CLI's exit codes, on fake checks."""
import json

import numpy as np
import pytest

from iclr26sci.cli import main
from iclr26sci.core import InputError
from validation import registry
from validation.registry import (METHODS, REGISTRY, CheckResult, Criterion, apply_known_failures, check,
                                 load_known_failures, parse_seeds)

FAKE = "zzfake"


def _rec(name, passed, error=None, method=FAKE):
    return {"method": method, "name": name, "passed": passed, "error": error}


# ---------------------------------------------------------------------------------------------- statuses

def test_statuses_pass_fail_known_xpass_and_crash():
    known = {f"{FAKE}.k_fail": {"reason": "r1", "date": "2026-12-01"},
             f"{FAKE}.k_pass": {"reason": "r2", "date": "2026-12-01"},
             f"{FAKE}.k_crash": {"reason": "r3", "date": "2026-12-01"}}
    recs = [_rec("ok", True), _rec("bad", False), _rec("k_fail", False), _rec("k_pass", True),
            _rec("k_crash", False, error="RuntimeError: boom")]
    apply_known_failures(recs, known, methods=[])
    assert [r["status"] for r in recs] == ["PASS", "FAIL", "FAIL (known)", "XPASS", "FAIL"]
    assert recs[2]["known_failure"]["reason"] == "r1" and recs[0]["known_failure"] is None


def test_declaration_limited_to_profiles_applies_only_there():
    known = {f"{FAKE}.k": {"reason": "r", "date": "2026-12-06", "profiles": ["full"]}}
    recs = [dict(_rec("k", False), profile="full"), dict(_rec("k", False), profile="claims"),
            dict(_rec("k", True), profile="claims"), dict(_rec("k", True), profile="full")]
    apply_known_failures(recs, known, methods=[])
    # at claims the declaration does not apply: a failure there is a plain FAIL and a pass a PASS (not XPASS)
    assert [r["status"] for r in recs] == ["FAIL (known)", "FAIL", "PASS", "XPASS"]
    assert recs[1]["known_failure"] is None


def test_profiles_field_is_validated(tmp_path):
    p = tmp_path / "kf.toml"
    p.write_text('["prob.x"]\nreason = "r"\ndate = "2026-12-06"\nprofiles = ["full"]\n')
    assert load_known_failures(str(p))["prob.x"]["profiles"] == ["full"]
    for bad in ('"full"', "[]", '["nightly"]'):
        p.write_text(f'["prob.x"]\nreason = "r"\ndate = "2026-12-06"\nprofiles = {bad}\n')
        with pytest.raises(ValueError, match="profiles"):
            load_known_failures(str(p))


def test_declaration_naming_no_registered_check_is_an_error():
    known = {"prob.no_such_check_xyz": {"reason": "r", "date": "2026-12-01"},
             "astrology.horoscope": {"reason": "r", "date": "2026-12-01"}}
    errors = apply_known_failures([], known, methods=["prob"])
    assert any("prob.no_such_check_xyz" in e and "no check of that name" in e for e in errors)
    assert any("astrology" in e and "not a method" in e for e in errors)
    # a method not in this run is not checked (its modules are not loaded)
    assert len(apply_known_failures([], {"games.unknown_zz": {"reason": "r", "date": "2026-12-01"}},
                                    methods=["prob"])) == 0


@pytest.mark.parametrize("text, match", [
    ('["prob.x"]\ndate = "2026-12-01"\n', "reason"),
    ('["prob.x"]\nreason = "  "\ndate = "2026-12-01"\n', "reason"),
    ('["prob.x"]\nreason = "r"\n', "date"),
    ('["prob.x"]\nreason = "r"\ndate = "yesterday"\n', "date"),
    ('["prob.x"]\nreason = "r"\ndate = "2026-12-01"\nreasno = "typo"\n', "unknown field"),
    ('"prob.x" = "just a string"\n', "table"),
    ('["nodot"]\nreason = "r"\ndate = "2026-12-01"\n', "<method>.<check function name>"),
    ('["prob.x"\nreason = ', "TOML"),
])
def test_malformed_declarations_are_rejected(tmp_path, text, match):
    p = tmp_path / "kf.toml"
    p.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_known_failures(str(p))


def test_declarations_parse_and_toml_dates_are_accepted(tmp_path):
    p = tmp_path / "kf.toml"
    p.write_text('["prob.x"]\nreason = """two\n lines"""\ndate = 2026-12-01\n')
    assert load_known_failures(str(p)) == {"prob.x": {"reason": "two lines", "date": "2026-12-01"}}
    assert load_known_failures(str(tmp_path / "missing.toml")) == {}
    # the project's own file is well formed
    for key, decl in load_known_failures().items():
        assert key.split(".")[0] in METHODS and decl["reason"]


# ---------------------------------------------------------------------------------------------- seeds

@pytest.mark.parametrize("text, seeds", [("0-4", [0, 1, 2, 3, 4]), ("0,2,3", [0, 2, 3]), ("0-2,7", [0, 1, 2, 7]),
                                         ("5", [5]), (" 1 , 1-2 ", [1, 2])])
def test_parse_seeds(text, seeds):
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["", "a", "4-2", "-1", "1,,2", "1-", "1.5", "0-99999"])
def test_parse_seeds_rejects(text):
    with pytest.raises(InputError, match="--seeds"):
        parse_seeds(text)


# ---------------------------------------------------------------------------------------------- CLI

@pytest.fixture
def fake_method(monkeypatch, tmp_path):
    """A method "zzfake" with checks: ok, bad, declared, seedy (fails at odd master seeds)."""
    monkeypatch.setitem(METHODS, FAKE, ("validation._zz_no_such_module", "fake checks for the infra tests"))
    kf = tmp_path / "known.toml"
    kf.write_text("")
    monkeypatch.setattr(registry, "KNOWN_FAILURES_PATH", str(kf))
    added = []

    def add(name, fn, **kw):
        check(method=FAKE, guarantee=f"fake {name}", paper="-", name=name, **kw)(fn)
        added.append(f"{FAKE}.{name}")

    add("ok", lambda profile, rng: CheckResult(statistic=0.1, threshold=1.0, table=[{"a": 1}, {"a": 2, "b": 3}]))
    add("declared", lambda profile, rng: CheckResult(criteria=[Criterion("first", 0.5, 1.0),
                                                               Criterion("second", 2.0, 1.0)]))
    yield add, kf
    for k in added:
        REGISTRY.pop(k, None)


def _run(tmp_path, *args):
    out = tmp_path / "rep"
    only = [] if "--only" in args else ["--only", FAKE]   # repeated --only flags add up
    code = main(["validate", *only, "--out", str(out), *args])
    data = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else None
    return code, data, out


def test_exit_0_when_only_known_failures_fail(fake_method, tmp_path, capsys):
    add, kf = fake_method
    kf.write_text(f'["{FAKE}.declared"]\nreason = "the claim does not hold here"\ndate = "2026-12-01"\n')
    code, data, out = _run(tmp_path)
    assert code == 0
    st = {c["name"]: (c["status"], c["known_failure"]) for c in data["checks"]}
    assert st["ok"] == ("PASS", None)
    assert st["declared"][0] == "FAIL (known)" and st["declared"][1]["reason"] == "the claim does not hold here"
    assert data["summary"]["known_failures"] == 1 and data["summary"]["ok"]
    console = capsys.readouterr().out
    assert "[FAIL (known)] zzfake.declared" in console and "the claim does not hold here" in console
    assert "- second: 2 <= 1  FAIL" in console          # criteria as sub-lines
    html = (out / "index.html").read_text()
    assert "FAIL (known)" in html and "the claim does not hold here" in html


def test_exit_1_on_unexpected_failure(fake_method, tmp_path):
    code, data, _ = _run(tmp_path)
    assert code == 1 and data["summary"]["failed"] == 1 and not data["summary"]["ok"]


def test_xpass_fails_the_run(fake_method, tmp_path, capsys):
    add, kf = fake_method
    kf.write_text(f'["{FAKE}.ok"]\nreason = "thought to fail"\ndate = "2026-12-01"\n'
                  f'["{FAKE}.declared"]\nreason = "r"\ndate = "2026-12-01"\n')
    code, data, out = _run(tmp_path)
    assert code == 1
    assert {c["name"]: c["status"] for c in data["checks"]}["ok"] == "XPASS"
    assert "XPASS" in capsys.readouterr().err
    assert "remove the declaration" in (out / "index.html").read_text()


def test_unknown_declaration_fails_before_running(fake_method, tmp_path, capsys):
    add, kf = fake_method
    kf.write_text(f'["{FAKE}.renamed_away"]\nreason = "r"\ndate = "2026-12-01"\n')
    code, data, _ = _run(tmp_path)
    assert code == 1 and data is None
    assert "zzfake.renamed_away" in capsys.readouterr().err


def test_bad_arguments_exit_2(fake_method, tmp_path, capsys):
    assert _run(tmp_path, "--seeds", "3-1")[0] == 2
    assert _run(tmp_path, "--threads", "0")[0] == 2
    _, kf = fake_method
    kf.write_text('["zzfake.ok"]\ndate = "2026-12-01"\n')
    assert _run(tmp_path)[0] == 2
    assert "reason" in capsys.readouterr().err


def test_seeds_table_flags_unstable_verdicts(fake_method, tmp_path, capsys):
    add, kf = fake_method
    kf.write_text(f'["{FAKE}.declared"]\nreason = "r"\ndate = "2026-12-01"\n')
    # passes at even master seeds only: the per-check seed is derived from the master seed, so use extra info
    add("seedy", lambda profile, rng: CheckResult(statistic=float(rng.integers(0, 2)), threshold=0.5))
    code, data, out = _run(tmp_path, "--seeds", "0-5")
    seeds = json.loads((out / "seeds.json").read_text())
    assert seeds["seeds"] == [0, 1, 2, 3, 4, 5]
    rows = {r["check"]: r for r in seeds["checks"]}
    verdicts = {v["status"] for v in rows["zzfake.seedy"]["per_seed"].values()}
    assert verdicts == {"PASS", "FAIL"} and not rows["zzfake.seedy"]["stable"]   # 6 fair coins: P(all equal)=1/32
    assert rows["zzfake.ok"]["stable"] and rows["zzfake.declared"]["stable"]
    assert code == 1 and data["summary"]["unstable"] == ["zzfake.seedy"]
    assert len(data["checks"]) == 3 and data["environment"]["seeds"] == [0, 1, 2, 3, 4, 5]
    assert "VERDICT DIFFERS" in capsys.readouterr().out
    assert "**NO**" in (out / "seeds.md").read_text()
    html = (out / "index.html").read_text()
    assert "Verdict per master seed" in html and "FAIL or XPASS at some seed" in html
    bad_seeds = sorted(int(k) for k, v in rows["zzfake.seedy"]["per_seed"].items() if v["status"] == "FAIL")
    assert f"(at seed{'s' if len(bad_seeds) > 1 else ''} {', '.join(map(str, bad_seeds))} of 0, 1, 2, 3, 4, 5)" in html
    assert "(at every seed)" in html                    # the declared failure fails at all seeds


def test_seed_stays_and_threads_are_recorded(fake_method, tmp_path):
    import torch

    before = torch.get_num_threads()
    try:
        add, kf = fake_method
        kf.write_text(f'["{FAKE}.declared"]\nreason = "r"\ndate = "2026-12-01"\n')
        code, data, _ = _run(tmp_path, "--seed", "3", "--threads", "1")
        assert code == 0
        env = data["environment"]
        assert env["seed"] == 3 and "seeds" not in env and {c["seed"] for c in data["checks"]} == {3}
        assert env["threads"]["requested"] == 1 and env["threads"]["torch"] == 1
        assert env["threads"]["OMP_NUM_THREADS"] == "1"
    finally:
        torch.set_num_threads(before)


def test_help_shows_choices_and_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for piece in ("--profile PROFILE", "quick,claims", "(default: quick)", "--executor {local,dask}", "(default: local)",
                  "(default: reports/validation)", "--seeds", "'0-4'", "--threads", "(default: 0)"):
        assert piece in text, piece
    for m in METHODS:
        assert m in text


def test_progress_bar_ticks_once_per_check_and_seed(fake_method, monkeypatch):
    import iclr26sci.core
    from validation.report import run_validation

    ticks, calls = [], []

    def fake_progress(iterable, *, desc="", total=None, enabled=None):
        calls.append((desc, total, enabled))
        for item in iterable:
            ticks.append(item)
            yield item

    monkeypatch.setattr(iclr26sci.core, "progress", fake_progress)
    lines = []
    recs = run_validation([FAKE], seeds=[0, 1], known={}, progress=False, log=lines.append)
    assert len(recs) == 4 and len(lines) == 4 and len(ticks) == 4
    assert calls == [("validate", 4, False)]
    assert all(r["reason"] is None for r in recs)


def test_only_accepts_single_checks(fake_method, tmp_path, capsys):
    code, data, _ = _run(tmp_path, "--only", f"{FAKE}.ok")
    assert code == 0 and [c["name"] for c in data["checks"]] == ["ok"]
    out = tmp_path / "rep2"
    assert main(["validate", "--only", f"{FAKE}.nope", "--out", str(out)]) == 2
    assert "no check named" in capsys.readouterr().err and not out.exists()


# ---------------------------------------------------------------------------------------------- checkpoint / --resume

def _counted(calls, name, fn=None):
    def run(profile, rng):
        calls.append(name)
        return fn(profile, rng) if fn else CheckResult(statistic=float(rng.random()), threshold=2.0)
    return run


def test_resume_goes_on_after_an_interruption(fake_method, tmp_path, capsys):
    """A run stopped by Ctrl-C keeps the checks that finished; --resume reuses them and runs only the rest."""
    add, kf = fake_method
    kf.write_text(f'["{FAKE}.declared"]\nreason = "r"\ndate = "2026-12-01"\n')
    calls, stop = [], [True]

    def interrupted(profile, rng):
        if stop[0]:
            raise KeyboardInterrupt
        return CheckResult(statistic=0.0, threshold=1.0)

    add("a_counted", _counted(calls, "a_counted"))
    add("b_stops", _counted(calls, "b_stops", interrupted))
    add("c_after", _counted(calls, "c_after"))
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path)
    ckpt = tmp_path / "rep" / "checkpoint.jsonl"
    assert [json.loads(x)["key"] for x in ckpt.read_text().splitlines()] == \
        [f"{FAKE}.ok", f"{FAKE}.declared", f"{FAKE}.a_counted"]
    assert calls == ["a_counted", "b_stops"]
    stop[0] = False
    code, data, _ = _run(tmp_path, "--resume")
    assert code == 0 and calls == ["a_counted", "b_stops", "b_stops", "c_after"]     # finished checks not rerun
    resumed = {c["name"]: bool(c.get("resumed")) for c in data["checks"]}
    assert resumed == {"ok": True, "declared": True, "a_counted": True, "b_stops": False, "c_after": False}
    assert {c["name"]: c["status"] for c in data["checks"]}["declared"] == "FAIL (known)"
    assert data["environment"]["resumed"] == 3 and len(data["environment"]["code_fingerprint"]) == 16
    out = capsys.readouterr().out
    assert "[PASS] zzfake.a_counted" in out and "[from checkpoint]" in out and "3 taken from" in out
    assert len(ckpt.read_text().splitlines()) == 5                                 # appended, not rewritten
    assert "3 of these results were taken from the checkpoint" in (tmp_path / "rep" / "index.html").read_text()


def test_resumed_record_equals_the_original(fake_method, tmp_path):
    add, _ = fake_method
    calls = []
    add("a_counted", _counted(calls, "a_counted"))
    _, first, _ = _run(tmp_path, "--seed", "2")
    _, again, _ = _run(tmp_path, "--seed", "2", "--resume")
    assert calls == ["a_counted"]
    strip = lambda d: [{k: v for k, v in c.items() if k not in ("resumed", "figure")} for c in d["checks"]]
    assert strip(first) == strip(again)


def test_resume_reruns_other_code_other_seeds_and_crashed_checks(fake_method, tmp_path, monkeypatch, capsys):
    from validation import report

    add, _ = fake_method
    calls, crash = [], [True]

    def flaky(profile, rng):
        if crash[0]:
            raise MemoryError("out of memory")
        return CheckResult(statistic=0.0, threshold=1.0)

    add("a_counted", _counted(calls, "a_counted"))
    add("b_flaky", _counted(calls, "b_flaky", flaky))
    _run(tmp_path)
    crash[0] = False
    _run(tmp_path, "--resume")
    assert calls == ["a_counted", "b_flaky", "b_flaky"]                          # the crashed check ran again
    _run(tmp_path, "--resume", "--seed", "1")
    assert calls[-2:] == ["a_counted", "b_flaky"]                                # another master seed: run
    _run(tmp_path, "--resume", "--threads", "1")
    assert calls[-2:] == ["a_counted", "b_flaky"]                                # other threads: run
    monkeypatch.setattr(report, "code_fingerprint", lambda: "0" * 16)
    n = len(calls)
    capsys.readouterr()
    _run(tmp_path, "--resume")
    assert len(calls) == n + 2                                                   # changed code: everything runs
    assert "4 stored result(s) ran again (their code or environment changed since)" in capsys.readouterr().out


def test_without_resume_the_checkpoint_starts_afresh_and_a_torn_line_is_skipped(fake_method, tmp_path, capsys):
    add, _ = fake_method
    calls = []
    add("a_counted", _counted(calls, "a_counted"))
    _run(tmp_path)
    _run(tmp_path)
    ckpt = tmp_path / "rep" / "checkpoint.jsonl"
    assert calls == ["a_counted"] * 2 and len(ckpt.read_text().splitlines()) == 3
    with open(ckpt, "a") as fh:
        fh.write('{"key": "zzfake.a_coun')                                        # cut off mid-write
    capsys.readouterr()
    code, data, _ = _run(tmp_path, "--resume")
    assert calls == ["a_counted"] * 2 and all(c.get("resumed") for c in data["checks"])
    assert "1 unreadable line(s) skipped" in capsys.readouterr().out


def test_code_fingerprint_follows_the_sources(tmp_path, monkeypatch):
    import importlib.util

    from validation.report import code_fingerprint

    fp = code_fingerprint()
    assert fp == code_fingerprint() and len(fp) == 16
    pkg = tmp_path / "data_adapters"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("x = 1\n")
    real = importlib.util.find_spec

    def find(name, *a, **k):
        if name == "data_adapters":
            return importlib.util.spec_from_file_location(name, pkg / "__init__.py",
                                                          submodule_search_locations=[str(pkg)])
        return real(name, *a, **k)

    monkeypatch.setattr(importlib.util, "find_spec", find)
    one = code_fingerprint()
    (pkg / "__init__.py").write_text("x = 2\n")
    assert code_fingerprint() != one


def _tree(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_check_depends_on_its_import_closure_only(tmp_path):
    """The per-check fingerprint covers the files a check's module can reach through its imports (relative,
    lazy and ``from pkg import sub`` forms, whole sub-packages for their string-based lazy loaders) and no
    other; a bare ``import iclr26sci`` counts as everything. The broken variant it catches: a fingerprint
    that misses a dependency reached only through another package (a stale result reused)."""
    from types import SimpleNamespace

    from validation.report import check_fingerprint, dependency_files

    _tree(tmp_path, {
        "validation/__init__.py": "", "validation/registry.py": "", "validation/report.py": "",
        "validation/va.py": "from iclr26sci.alpha import f\n",
        "validation/vb.py": "def g():\n    from iclr26sci import beta\n",
        "validation/vc.py": "import iclr26sci\n",
        "iclr26sci/__init__.py": "", "iclr26sci/core/__init__.py": "x = 1\n",
        "iclr26sci/alpha/__init__.py": "from ._impl import f\n",
        "iclr26sci/alpha/_impl.py": "from ..core import x\ndef f():\n    return x\n",
        "iclr26sci/alpha/data.json": "{}",
        "iclr26sci/beta/__init__.py": "", "iclr26sci/gamma/__init__.py": "from ..core import x\n",
    })
    root = str(tmp_path)
    always = ("validation.registry", "validation.report")
    fa = dependency_files(("validation.va", *always), root)
    assert fa == sorted(["iclr26sci/__init__.py", "iclr26sci/alpha/__init__.py", "iclr26sci/alpha/_impl.py",
                         "iclr26sci/alpha/data.json", "iclr26sci/core/__init__.py", "validation/registry.py",
                         "validation/report.py", "validation/va.py"])
    assert "iclr26sci/beta/__init__.py" in dependency_files(("validation.vb",), root)
    assert dependency_files(("validation.vc",), root) is None

    def fp(mod):
        return check_fingerprint(SimpleNamespace(func=SimpleNamespace(__module__=mod)), root)

    from validation import report

    a, b = fp("validation.va"), fp("validation.vb")
    (tmp_path / "iclr26sci/gamma/__init__.py").write_text("y = 2\n")            # unrelated package
    assert (fp("validation.va"), fp("validation.vb")) == (a, b)
    (tmp_path / "iclr26sci/core/__init__.py").write_text("x = 2\n")             # reached via alpha's _impl
    assert fp("validation.va") != a and fp("validation.vb") == b
    (tmp_path / "iclr26sci/alpha/data.json").write_text('{"k": 1}')
    assert fp("validation.va") != a
    assert fp("tests.some_module") == report.code_fingerprint()


def test_resume_keeps_results_whose_code_did_not_change(fake_method, tmp_path, monkeypatch):
    """Per-check fingerprints: after a change that reaches one check only, --resume reruns that check alone."""
    from validation import report

    add, _ = fake_method
    calls = []
    add("a_counted", _counted(calls, "a_counted"))
    add("b_counted", _counted(calls, "b_counted"))
    monkeypatch.setattr(report, "check_fingerprint", lambda s, **kw: "same")
    _run(tmp_path)
    monkeypatch.setattr(report, "check_fingerprint", lambda s, **kw: "new" if s.name == "b_counted" else "same")
    code, data, _ = _run(tmp_path, "--resume")
    assert calls == ["a_counted", "b_counted", "b_counted"]
    assert {c["name"]: bool(c.get("resumed")) for c in data["checks"]} == \
        {"ok": True, "declared": True, "a_counted": True, "b_counted": False}


def test_fingerprints_are_taken_before_the_first_check_runs(fake_method, tmp_path, monkeypatch):
    """A source edited while a long run is under way must not be credited to results computed before the edit:
    the line written for a check carries the fingerprint of the code at the start of the run."""
    from validation import report

    add, _ = fake_method
    state = {"code": "old"}

    def edits_the_code(profile, rng):
        state["code"] = "new"                       # as if a file were saved during the run
        return CheckResult(statistic=0.0, threshold=1.0)

    add("a_edits", edits_the_code)
    add("b_after", lambda profile, rng: CheckResult(statistic=0.0, threshold=1.0))
    monkeypatch.setattr(report, "check_fingerprint", lambda s, **kw: state["code"])
    _run(tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "rep" / "checkpoint.jsonl").read_text().splitlines()]
    assert {x["fingerprint"] for x in lines} == {"old"}
