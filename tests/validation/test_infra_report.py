"""Report rendering: union-of-keys tables, criteria sub-rows, summary/failing/slowest sections, figure hygiene,
and the README summary generator."""
import importlib.util
import json
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from validation.registry import CheckResult, Criterion, deciding_criterion  # noqa: E402
from validation.report import (_line, _table_html, _table_md, inspect_figure, render_figure, slowest,  # noqa: E402
                               write_report)

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load_readme_script():
    spec = importlib.util.spec_from_file_location("readme_summary", ROOT / "scripts" / "readme_summary.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _record(name, method="prob", passed=True, criteria=(), seconds=0.5, budget=60.0, status=None, known=None,
            table=None, statistic=0.1, threshold=1.0, seed=0):
    res = CheckResult(statistic=statistic, threshold=threshold, criteria=list(criteria))
    rec = {"method": method, "name": name, "guarantee": f"guarantee of {name}", "paper": "-", "profile": "quick",
           "statistic": res.statistic, "comparison": res.comparison, "threshold": res.threshold,
           "passed": res.passed if passed is None else passed and res.passed,
           "criteria": [{"name": c.name, "statistic": c.statistic, "comparison": c.comparison,
                         "threshold": c.threshold, "passed": c.passed} for c in res.criteria],
           "seconds": seconds, "budget": budget, "details": "", "table": table, "error": None, "extra": {},
           "seed": seed, "figure_png": None, "figure_issues": []}
    rec["status"] = status or ("PASS" if rec["passed"] else "FAIL")
    rec["known_failure"] = known
    rec["deciding"] = deciding_criterion(rec)
    return rec


# ------------------------------------------------------------------------------------------- tables

def test_table_uses_the_union_of_keys_in_first_seen_order():
    rows = [{"encoder": "a", "w": 0.5}, {"encoder": "b", "bound": 1.5}, {"pooled KS p": 0.01, "w": 0.2}]
    html = _table_html(rows)
    assert html.index("<th>encoder</th>") < html.index("<th>w</th>") < html.index("<th>bound</th>") \
        < html.index("<th>pooled KS p</th>")
    assert ">1.5<" in html and ">0.01<" in html
    assert "class='scroll'" in html                       # wide tables scroll inside the page
    md = _table_md(rows)
    assert md.splitlines()[0] == "| encoder | w | bound | pooled KS p |"
    assert "| b |  | 1.5 |  |" in md


def test_long_tables_are_truncated_with_a_note():
    rows = [{"i": i} for i in range(100)]
    html = _table_html(rows, max_rows=60)
    assert html.count("<tr>") == 61 and "Showing 60 of 100 rows" in html
    assert "Showing 40 of 100 rows" in _table_md(rows, max_rows=40)
    assert _table_html([]) == "" and "<th>value</th>" in _table_html([1, 2])


# ------------------------------------------------------------------------------------------- criteria

def test_criteria_are_sub_rows_and_the_main_row_shows_the_deciding_one(tmp_path):
    crit = [Criterion("sign proportion", 0.667, 0.708, ">="), Criterion("KS p-value", 0.3, 0.01, ">=")]
    rec = _record("t4", criteria=crit, statistic=1.0, threshold=0.9)
    rec["comparison"] = ">="
    assert not rec["passed"] and rec["deciding"]["name"] == "sign proportion"
    line = _line(rec)
    assert line.splitlines()[0].startswith("[FAIL] prob.t4: 0.667 >= 0.708 (sign proportion)")
    assert "- KS p-value: 0.3 >= 0.01  PASS" in line and "- sign proportion: 0.667 >= 0.708  FAIL" in line
    write_report([rec, _record("fine")], str(tmp_path), {"profile": "quick", "seed": 0, "executor": "local",
                                                         "python": "3", "date": "d"})
    html = (tmp_path / "index.html").read_text()
    assert html.count("<tr class='sub'>") == 2 and "&#8627; sign proportion" in html
    md = (tmp_path / "report.md").read_text()
    assert "| t4 | guarantee of t4 | 0.667 (sign proportion) | >= 0.708 | **FAIL** |" in md
    assert "↳ KS p-value | | 0.3 | >= 0.01 | PASS" in md


def test_summary_failing_list_and_slowest_come_before_the_details(tmp_path):
    known = {"reason": "Doc2Vec gets the smallest variances", "date": "2026-12-01"}
    recs = [_record("a", seconds=3.0), _record("b", passed=False, seconds=90.0),
            _record("u10", method="embeddings", passed=False, status="FAIL (known)", known=known),
            _record("x", method="embeddings", status="XPASS",
                    known={"reason": "r", "date": "2026-12-01"})]
    summary = write_report(recs, str(tmp_path), {"profile": "quick", "seed": 0, "executor": "local",
                                                 "python": "3", "date": "d"})
    assert (summary["checks"], summary["passed"], summary["failed"], summary["known_failures"], summary["xpass"]) \
        == (4, 1, 1, 1, 1)
    assert summary["over_budget"] == ["prob.b"] and not summary["ok"]
    html = (tmp_path / "index.html").read_text()
    i_sum, i_fail, i_slow, i_detail = (html.index("id='summary'"), html.index("id='failing'"),
                                       html.index("id='slowest'"), html.index("<h3 id='prob.a'>"))
    assert i_sum < i_fail < i_slow < i_detail
    failing = html[i_fail:i_slow]
    for a in ("href='#prob.b'", "href='#embeddings.u10'", "href='#embeddings.x'"):
        assert a in failing
    assert "Doc2Vec gets the smallest variances" in failing and "remove the declaration" in failing
    assert "over budget (warning)" in html[i_slow:i_detail] and "a warning, not a failure" in html
    assert [s["check"] for s in slowest(recs, 2)] == ["prob.b", "prob.a"]
    data = json.loads((tmp_path / "results.json").read_text())
    assert {c["name"]: c["status"] for c in data["checks"]} == {"a": "PASS", "b": "FAIL", "u10": "FAIL (known)",
                                                                "x": "XPASS"}
    assert data["checks"][2]["known_failure"]["reason"].startswith("Doc2Vec")


# ------------------------------------------------------------------------------------------- figures

def test_figure_inspector_flags_missing_labels_colorbars_legends_and_tick_collisions():
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(9, 3))
    a1.imshow(np.arange(9.0).reshape(3, 3))                           # image, no colour bar, no labels
    for k in range(8):                                                # 8 lines, no legend
        a2.plot([0, 1], [k, k + 1])
    a2.set_xlabel("n")
    a2.set_ylabel("error")
    a3.bar(range(30), np.ones(30))
    a3.set_xticks(range(30), [f"category {i}" for i in range(30)])   # colliding tick labels
    a3.set_xlabel("category")
    a3.set_ylabel("count")
    png, issues = render_figure(fig)
    assert png
    assert "axes 1: no x label" in issues and "axes 1: no y label" in issues
    assert "axes 1: image without a colour bar" in issues
    assert "axes 2: 8 lines without a legend" in issues
    assert any(i.startswith("axes 3:") and "overlapping x tick label" in i for i in issues)
    assert not any(i.startswith("axes 2: no") for i in issues)


def test_figure_inspector_passes_a_tidy_figure():
    fig, axes = plt.subplots(1, 3, figsize=(9, 3), sharey=True)
    im = axes[0].imshow(np.random.default_rng(0).random((4, 4)))
    fig.colorbar(im, ax=axes[0], label="value")
    axes[0].set_xlabel("x (px)")
    axes[0].set_ylabel("y (px)")                                      # shared y: one label serves the row
    for k in range(8):
        axes[1].errorbar([0, 1, 2], [k, k + 1, k], yerr=0.1, capsize=2, label=f"run {k}")
    axes[1].legend(fontsize=5)
    axes[1].set_xlabel("step")
    axes[2].imshow(np.zeros((3, 3, 3)))                               # an RGB picture needs no colour bar
    axes[2].axis("off")
    _, issues = render_figure(fig)
    assert issues == []
    assert render_figure(None) == (None, [])


def test_figure_issues_shown_next_to_the_figure(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    rec = _record("plot")
    rec["figure_png"], rec["figure_issues"] = render_figure(fig)
    write_report([rec], str(tmp_path), {"profile": "quick", "seed": 0, "executor": "local", "python": "3",
                                        "date": "d"})
    html = (tmp_path / "index.html").read_text()
    assert "Figure issues" in html and "axes 1: no x label" in html
    assert "no x label" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "figures" / "prob.plot.png").exists()


# ------------------------------------------------------------------------------------------- README

def _results(tmp_path):
    known = {"reason": "the weak member gets the largest weight", "date": "2026-12-01"}
    recs = [_record("a"), _record("u10", method="embeddings", passed=False, status="FAIL (known)", known=known),
            _record("b", method="embeddings", seconds=2.5)]
    write_report(recs, str(tmp_path / "rep"), {"profile": "quick", "seed": 0, "executor": "local", "python": "3",
                                               "date": "2026-12-01T10:00:00+00:00", "cpus": 2,
                                               "wall_seconds": 150.0})
    return tmp_path / "rep" / "results.json"


def test_readme_summary_rewrites_the_region_between_the_markers(tmp_path):
    mod = _load_readme_script()
    results = _results(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n\n{mod.CLAIMS_START}\n{mod.CLAIMS_END}\nbefore\n{mod.START}\nold text\n{mod.END}\n"
                      "after\n")
    assert mod.main(["--results", str(results), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("# title\n\n") and text.endswith(f"{mod.END}\nafter\n") and "old text" not in text
    assert "| method | checks | passed | known failures | failed | not run (slow) | seconds |" in text
    assert "| prob | 1 | 1 | 0 | 0 | 0 | 0 |" in text and "| embeddings | 2 | 1 | 1 | 0 | 0 | 3 |" in text
    assert "no claim check yet" in text
    assert "quick profile, master seed 0, 2026-12-01" in text
    assert "`embeddings.u10` (declared 2026-12-01): the weak member gets the largest weight" in text
    assert mod.main(["--results", str(results), "--readme", str(readme), "--check"]) == 0
    assert mod.main(["--results", str(results), "--readme", str(readme)]) == 0
    assert readme.read_text() == text                                 # idempotent


def test_readme_summary_errors_without_markers(tmp_path, capsys):
    mod = _load_readme_script()
    results = _results(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text("# no markers here\n")
    assert mod.main(["--results", str(results), "--readme", str(readme)]) == 2
    assert "validation-summary:start" in capsys.readouterr().err
    assert readme.read_text() == "# no markers here\n"
    readme.write_text(f"{mod.END}\n{mod.START}\n")
    assert mod.main(["--results", str(results), "--readme", str(readme)]) == 2
    assert mod.main(["--results", str(tmp_path / "nope.json"), "--readme", str(readme)]) == 2
    readme.write_text(f"{mod.START}\nstale\n{mod.END}\n")
    assert mod.main(["--results", str(results), "--readme", str(readme), "--check"]) == 2   # no claims markers
    readme.write_text(f"{mod.CLAIMS_START}\n{mod.CLAIMS_END}\n{mod.START}\nstale\n{mod.END}\n")
    assert mod.main(["--results", str(results), "--readme", str(readme), "--check"]) == 1


def test_a_passing_check_names_its_headline_criterion():
    rec = _record("ok", criteria=[Criterion("coverage", 0.95, (0.9, 1.0), "in"), Criterion("bias", 0.01, 0.1)],
                  statistic=float("nan"), threshold=float("nan"))
    assert rec["passed"] and rec["deciding"]["name"] == "coverage"
    assert _line(rec).startswith("[PASS] prob.ok: 0.95 in [0.9, 1] (coverage)")


def test_a_failure_by_an_unreported_criterion_is_flagged():
    rec = _record("hidden", passed=False, statistic=0.001, threshold=0.05)
    assert "does not report" in rec["deciding"]["name"]
    assert "does not report" in _line(rec)


def test_an_image_in_axes_turned_off_still_needs_a_colour_bar():
    fig, axes = plt.subplots(1, 2)
    for k, ax in enumerate(axes):
        ax.imshow(np.eye(3) * (k + 2))                                # different limits: separate scales
        ax.axis("off")
    fig.colorbar(axes[1].images[0], ax=axes[1])
    _, issues = render_figure(fig)
    assert issues == ["axes 1: image without a colour bar"]


def test_coinciding_lines_are_flagged():
    fig, ax = plt.subplots()
    x = np.array([64, 128, 256, 512])
    ax.plot(x, [0.14, 0.21, 0.16, 0.18], "o-", label="max gap")
    ax.plot(x, [0.14, 0.21, 0.155, 0.18], "^-", label="CCE gap")
    ax.plot(x, [0.05, 0.055, 0.054, 0.058], "s-", label="mean gap")
    ax.set_xlabel("N")
    ax.set_ylabel("gap")
    ax.legend()
    _, issues = render_figure(fig)
    assert len(issues) == 1 and "'max gap' and 'CCE gap' lie on top of each other" in issues[0]


def test_readme_summary_refuses_a_partial_run(tmp_path, capsys):
    mod = _load_readme_script()
    results = _results(tmp_path)
    data = json.loads(results.read_text())
    data["environment"]["only"] = ["prob"]
    results.write_text(json.dumps(data))
    readme = tmp_path / "README.md"
    readme.write_text(f"{mod.START}\n{mod.END}\n{mod.CLAIMS_START}\n{mod.CLAIMS_END}\n")
    assert mod.main(["--results", str(results), "--readme", str(readme)]) == 2
    assert "partial run" in capsys.readouterr().err
    assert mod.main(["--results", str(results), "--readme", str(readme), "--allow-partial"]) == 0


def test_one_colour_bar_serves_images_on_the_same_scale():
    fig, axes = plt.subplots(1, 3)
    ims = [ax.imshow(np.eye(3) * k, vmin=0, vmax=2) for k, ax in enumerate(axes[:2])]
    axes[2].imshow(np.eye(3), vmin=0, vmax=5)                          # another scale: needs its own
    fig.colorbar(ims[1], ax=list(axes[:2]))
    for ax in axes:
        ax.axis("off")
    _, issues = render_figure(fig)
    assert issues == ["axes 3: image without a colour bar"]


def test_a_legend_over_data_points_is_flagged():
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.arange(10.0)
    ax.plot(x, np.full(10, 1.0), "o-", label="high")                  # runs along the top
    ax.plot(x, np.linspace(0, 0.5, 10), "s-", label="low")
    ax.legend(loc="upper center")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    _, issues = render_figure(fig)
    assert issues == ["axes 1: the legend covers data points of 'high' (move it: loc=..., or outside the axes)"]


def test_axes_without_numbers_need_no_label():
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 3))
    a1.imshow(np.zeros((3, 9)), cmap="gray", vmin=0, vmax=1)
    a1.set_xticks([1, 4, 7], ["theory RF", "kernel 1", "kernel 2"])  # named panels, no numbers
    a1.set_yticks([])
    fig.colorbar(a1.images[0], ax=a1)
    a2.bar(["BC", "RS-BC"], [0.1, 0.2])                               # categories on x, numbers on y
    _, issues = render_figure(fig)
    assert issues == ["axes 2: no y label"]
