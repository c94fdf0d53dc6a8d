"""Meta-tests of the claims tier: registration refuses incomplete claims, the machinery's verdict logic on
synthetic effects, known-failure rules for claims, the claims table of the README, and the listing of checks
that did not run. No real check runs here."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

from validation.claims import (ClaimResult, Effect, claim, evaluate_claim, mean_effect, one_sided_bound,
                               paired_bootstrap, paired_effect, power_one_sided, slope_effect)
from validation.registry import (PAPER_METHODS, REGISTRY, CheckResult, CheckSpec, Profile, apply_known_failures,
                                 check, load_checks, parse_profiles, run_check, runs_at)
from validation.report import plan_jobs, write_report

ROOT = pathlib.Path(__file__).resolve().parents[2]
KW = dict(method="prob", claim="X beats Y", paper="-", paper_number="+1.0 (Table 1)",
          regime="Y fails on this data", control="a planted gap of 2", test="one-sided z, alpha 0.05")


def _readme_script():
    spec = importlib.util.spec_from_file_location("readme_summary", ROOT / "scripts" / "readme_summary.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def tmp_claims():
    """Register temporary claim/check specs and remove them afterwards."""
    keys = []

    def reg(key_name, func, **kw):
        claim(**{**KW, **kw}, name=key_name)(func)
        keys.append(f"{kw.get('method', 'prob')}.{key_name}")
        return REGISTRY[keys[-1]]

    yield reg
    for k in keys:
        REGISTRY.pop(k, None)


# ------------------------------------------------------------------------------------------ statistics

def test_power_and_bounds():
    assert power_one_sided(2.486, 1.0) == pytest.approx(0.8, abs=1e-3)
    assert power_one_sided(0.0, 1.0) == pytest.approx(0.05, abs=1e-9)
    assert np.isnan(power_one_sided(1.0, 0.0)) and np.isnan(power_one_sided(1.0, float("nan")))
    assert one_sided_bound(1.0, 0.5) == pytest.approx(1.0 - 1.6448536 * 0.5)
    assert one_sided_bound(1.0, 0.5, df=4) < one_sided_bound(1.0, 0.5)      # t is wider than z
    e = mean_effect([1.0, 2.0, 3.0], 1.0)
    assert e.estimate == 2.0 and e.df == 2 and e.se == pytest.approx(1 / np.sqrt(3))
    assert paired_effect([2, 3, 4], [1, 1, 1], 1.0).estimate == 2.0
    s = slope_effect([1, 2, 4, 8], [1, 0.5, 0.25, 0.125], 0.1)
    assert s.estimate == pytest.approx(-1.0) and s.direction == "less"
    b = paired_bootstrap(np.arange(20.0) + 1, np.zeros(20), 1.0, rng=0)
    assert b.ci[0] > 0 and b.p_value < 0.05 and b.summary()["verdict"] == "reproduced"
    with pytest.raises(ValueError):
        Effect(1.0, 0.1, 0.5, direction="up")


# ------------------------------------------------------------------------------------------ verdicts

CONTROL = Effect(3.0, 0.5, min_effect=2.0)   # reproduced, power Phi(4 - 1.645) ~ 0.99


@pytest.mark.parametrize("effect, verdict, passed", [
    (Effect(1.0, 0.2, min_effect=0.5), "reproduced", True),
    (Effect(0.05, 0.1, min_effect=0.5), "not reproduced", False),       # power Phi(5 - 1.645) > 0.8: powered null
    (Effect(0.05, 0.5, min_effect=0.5), "inconclusive", False),         # power Phi(1 - 1.645) = 0.26
    (Effect(-1.0, 0.2, min_effect=0.5, direction="less"), "reproduced", True),
    (Effect(float("nan"), 0.2, min_effect=0.5), "inconclusive", False),
    (Effect(0.3, float("nan"), min_effect=0.5, ci=(0.1, 0.5)), "reproduced", True),       # supplied interval
    (Effect(0.3, 0.1, min_effect=0.5, p_value=0.2), "not reproduced", False),           # supplied p decides
    (Effect(0.01, 0.1, min_effect=0.5, p_value=0.01), "reproduced", True),
    (Effect(0.01, 0.4, min_effect=0.5, power=0.5), "inconclusive", False),              # supplied power
    # power Phi(2 - 1.645) = 0.64, but the upper 95% bound 0.41 excludes 0.5: the data reject the smallest effect
    (Effect(0.0, 0.25, min_effect=0.5), "not reproduced", False),
    (Effect(0.0, 0.25, min_effect=0.5, direction="less"), "not reproduced", False),     # lower bound -0.41 > -0.5
    (Effect(0.1, 0.25, min_effect=0.5), "inconclusive", False),                         # upper bound 0.51 >= 0.5
    (Effect(0.01, 0.1, min_effect=0.5, power=0.5), "not reproduced", False),            # bound 0.17 excludes 0.5
])
def test_verdict_logic(effect, verdict, passed):
    ev = evaluate_claim(ClaimResult(effect, control=CONTROL))
    assert ev["verdict"] == verdict and ev["control_passed"] and ev["passed"] is passed


def test_exclusion_null_says_why():
    ev = evaluate_claim(ClaimResult(Effect(0.0, 0.25, min_effect=0.5), control=CONTROL))
    assert ev["effect"]["excludes_min_effect"] and ev["effect"]["power"] < 0.8
    assert ev["reason"].startswith("not reproduced: the one-sided 95% bound 0.41") and "excludes" in ev["reason"]
    ev = evaluate_claim(ClaimResult(Effect(0.05, 0.1, min_effect=0.5), control=CONTROL))
    assert "a powered null" in ev["reason"]


@pytest.mark.parametrize("control", [Effect(0.1, 0.5, min_effect=2.0),       # not reproduced
                                     Effect(1.0, 0.5, min_effect=0.5)])      # reproduced but power 0.26
def test_control_failed(control):
    ev = evaluate_claim(ClaimResult(Effect(1.0, 0.2, min_effect=0.5), control=control))
    assert ev["verdict"] == "reproduced" and not ev["control_passed"] and not ev["passed"]
    assert ev["reason"].startswith("control failed")


def test_claim_without_control_is_refused_at_run_time(tmp_claims):
    spec = tmp_claims("_tmp_no_control", lambda profile, rng: ClaimResult(Effect(1.0, 0.1, min_effect=0.5)))
    rec = run_check(spec, Profile("claims"), 0)
    assert not rec["passed"] and rec["status"] == "FAIL" and "no positive control" in rec["error"]
    assert rec["tier"] == "claim" and rec["claim"]["verdict"] == "inconclusive"
    spec2 = tmp_claims("_tmp_wrong_type", lambda profile, rng: CheckResult(1.0, 2.0))
    assert "expected ClaimResult" in run_check(spec2, Profile("claims"), 0)["error"]


def test_claim_registration_refuses_missing_parts():
    for field in ("control", "regime", "test", "paper_number", "claim"):
        with pytest.raises(ValueError, match=field):
            claim(**{**KW, field: ""})
    with pytest.raises(ValueError, match="unknown method"):
        claim(**{**KW, "method": "astrology"})
    with pytest.raises(TypeError):
        claim(**{k: v for k, v in KW.items() if k != "control"})      # control is a required keyword


def test_run_check_records_the_claim(tmp_claims):
    spec = tmp_claims("_tmp_ok", lambda profile, rng: ClaimResult(Effect(1.0, 0.2, min_effect=0.5, what="gain"),
                                                                  control=CONTROL, table=[{"a": 1}]))
    rec = run_check(spec, Profile("claims"), 0)
    assert rec["passed"] and rec["status"] == "PASS" and rec["claim"]["verdict"] == "reproduced"
    assert rec["claim"]["regime"] == KW["regime"] and rec["claim"]["effect"]["what"] == "gain"
    assert len(rec["criteria"]) == 3 and json.dumps(rec["claim"])            # serialisable
    assert spec.tier == "claim" and spec.tags == " [claim]"


def test_every_registered_claim_is_complete():
    specs = load_checks(None)
    claims = [s for s in specs if s.kind == "claim"]
    for s in claims:
        for field in ("claim", "paper_number", "regime", "control", "test"):
            assert isinstance(s.claim.get(field), str) and s.claim[field].strip(), (s.key, field)
        assert 0 < s.claim["alpha"] < 0.5
    assert {s.method for s in claims} >= {"causal", "games"}


# ------------------------------------------------------------------------------------------ known failures

def _claim_rec(verdict, control_passed=True, passed=False):
    return {"method": "prob", "name": "c", "passed": passed, "error": None,
            "claim": {"verdict": verdict, "control_passed": control_passed}}


def test_known_failures_of_claims():
    known = {"prob.c": {"reason": "why", "date": "2026-12-05"}}
    for verdict, cp, status in (("not reproduced", True, "FAIL (known)"), ("inconclusive", True, "FAIL"),
                                ("not reproduced", False, "FAIL"), ("reproduced", False, "FAIL")):
        rec = _claim_rec(verdict, cp)
        apply_known_failures([rec], known, methods=[])
        assert rec["status"] == status, (verdict, cp)
        assert ("declaration_refused" in rec) == (status == "FAIL")
    rec = _claim_rec("not reproduced")
    apply_known_failures([rec], {}, methods=[])
    assert rec["status"] == "FAIL"


# ------------------------------------------------------------------------------------------ profiles

def _spec(name, slow=False, kind="check"):
    return CheckSpec("prob", name, f"g {name}", "-", func=None, slow=slow, kind=kind,
                     claim={"claim": f"g {name}"} if kind == "claim" else None)


def test_profiles_select_tiers_and_list_what_did_not_run():
    a, b, c, d = _spec("a"), _spec("b", slow=True), _spec("c", kind="claim"), _spec("d", slow=True, kind="claim")
    assert Profile("claims").pick(1, 2) == 1 and Profile("full").pick(1, 2) == 2 and Profile("claims").quick
    assert Profile("claims").size == "quick" and Profile("full").size == "full"
    assert parse_profiles("quick,claims") == ["quick", "claims"] and parse_profiles("quick+claims+quick") == \
        ["quick", "claims"]
    with pytest.raises(ValueError):
        parse_profiles("quick,medium")
    assert [runs_at(s, "quick") for s in (a, b, c, d)] == [True, False, False, False]
    assert [runs_at(s, "claims") for s in (a, b, c, d)] == [False, False, True, False]
    assert all(runs_at(s, "full") for s in (a, b, c, d))
    jobs, nr = plan_jobs([a, b, c, d], ["quick", "claims"])
    assert [(s.name, p) for s, p in jobs] == [("a", "quick"), ("c", "claims")]
    assert [(x["name"], x["reason"]) for x in nr] == [("b", "slow"), ("d", "slow")]
    jobs, nr = plan_jobs([a, b, c, d], ["claims"], named={"prob.b"})
    assert [(s.name, p) for s, p in jobs] == [("b", "claims"), ("c", "claims")]
    assert [(x["name"], x["reason"]) for x in nr] == [("a", "not a claim"), ("d", "slow")]
    assert _spec("d", slow=True, kind="claim").tags == " [claim] [slow]" and b.tags == " [slow]"


def _rec(name, method="prob", claim_=None, status="PASS", known=None):
    r = {"method": method, "name": name, "guarantee": f"g {name}", "paper": "arXiv:1", "profile": "quick",
         "statistic": 1.0, "comparison": "<=", "threshold": 2.0, "passed": status == "PASS", "criteria": [],
         "seconds": 0.1, "budget": 1.0, "details": "", "table": None, "error": None, "extra": {}, "seed": 0,
         "figure_png": None, "figure_issues": [], "status": status, "known_failure": known}
    if claim_:
        r["claim"], r["tier"] = claim_, "claim"
    return r


def _claim_block(verdict, control_passed=True):
    return {"claim": "sharp beats DR", "paper_number": "-0.89 vs -0.18", "paper_setting": "Table 1, Gamma=6",
            "regime": "r", "control": "oracle", "test": "t", "alpha": 0.05,
            "effect": Effect(0.8, 0.2, min_effect=0.5, what="regret gap").summary(),
            "control_effect": Effect(3.0, 0.5, min_effect=2.0).summary(),
            "control_passed": control_passed, "verdict": verdict, "reason": "x"}


def _results(tmp_path):
    recs = [_rec("plain"), _rec("claim_ok", method="causal", claim_=_claim_block("reproduced")),
            _rec("claim_null", method="games", claim_=_claim_block("not reproduced"), status="FAIL (known)",
                 known={"reason": "The gap stays flat here. More words.", "date": "2026-12-05",
                        "evidence": "docs/games.md#why"})]
    not_run = [{"check": "prob.slowpoke", "method": "prob", "name": "slowpoke", "tier": "slow", "guarantee": "g",
                "reason": "slow"},
               {"check": "kernels.big_claim", "method": "kernels", "name": "big_claim", "tier": "claim",
                "guarantee": "few-shot gain", "reason": "slow"}]
    summary = write_report(recs, str(tmp_path), {"profile": "quick,claims", "seed": 0, "executor": "local",
                                                 "python": "3", "date": "2026-12-05"}, not_run=not_run)
    return summary, json.loads((tmp_path / "results.json").read_text())


def test_not_run_slow_is_listed_everywhere(tmp_path):
    summary, results = _results(tmp_path)
    assert summary["not_run_slow"] == 2 and summary["not_run_slow_checks"] == ["prob.slowpoke", "kernels.big_claim"]
    assert results["not_run"][0]["check"] == "prob.slowpoke"
    html = (tmp_path / "index.html").read_text()
    assert "Not run (slow): 2 check(s)" in html and "prob.slowpoke" in html and "2 not run (slow)" in html
    assert "Not run (slow): 2 check(s)" in (tmp_path / "report.md").read_text()
    md = _readme_script().render_summary(results)
    assert "| not run (slow) |" in md and "**2 not run (slow)**" in md and "`prob.slowpoke`" in md


def test_html_shows_each_claim_beside_its_control(tmp_path):
    _results(tmp_path)
    html = (tmp_path / "index.html").read_text()
    assert "<h2 id='claims'>Claims</h2>" in html and "<th>positive control</th>" in html
    assert "<tr><th></th><th>claim</th><th>positive control</th></tr>" in html


def test_readme_claims_table(tmp_path):
    _, results = _results(tmp_path)
    mod = _readme_script()
    table = mod.render_claims(results)
    body = [ln for ln in table.splitlines() if ln.startswith("| [")]
    methods = [ln.split("](docs/")[0][3:] for ln in body]
    assert set(methods) == set(PAPER_METHODS) and len(PAPER_METHODS) == 19
    assert not {"prob", "geom", "geom_world", "nn"} & set(methods)
    row = {m: ln for m, ln in zip(methods, body)}
    assert "| reproduced |" in row["causal"] and "0.8 [" in row["causal"] and "power" in row["causal"]
    assert "Table 1, Gamma=6: -0.89 vs -0.18" in row["causal"]
    assert "**not reproduced** (known): The gap stays flat here. ([docs](docs/games.md#why))" in row["games"]
    assert "not run (slow)" in row["kernels"]
    assert row["adaptation"].endswith("no claim check yet |")
    assert "no claim check yet: " in table
    readme = f"x\n{mod.START}\n{mod.END}\ny\n{mod.CLAIMS_START}\nold\n{mod.CLAIMS_END}\n"
    out = mod.replace_region(readme, table, mod.CLAIMS_START, mod.CLAIMS_END)
    assert "old" not in out and "| [causal](docs/causal.md)" in out


def test_readme_script_requires_claims_markers(tmp_path):
    _, results = _results(tmp_path)
    mod = _readme_script()
    res = tmp_path / "results.json"
    readme = tmp_path / "README.md"
    readme.write_text(f"a\n{mod.START}\n{mod.END}\n")
    assert mod.main(["--results", str(res), "--readme", str(readme)]) == 2
    readme.write_text(f"a\n{mod.CLAIMS_START}\n{mod.CLAIMS_END}\n{mod.START}\n{mod.END}\n")
    assert mod.main(["--results", str(res), "--readme", str(readme)]) == 0
    assert mod.main(["--results", str(res), "--readme", str(readme), "--check"]) == 0
    assert "no claim check yet" in readme.read_text()
