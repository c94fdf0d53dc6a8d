"""Run registered checks and write ``results.json``, ``report.md`` and a self-contained ``index.html``."""
from __future__ import annotations

import base64
import html
import io
import json
import os
import platform
import sys
import time
from datetime import datetime, timezone
from functools import partial

import numpy as np

from .registry import METHODS, Profile, load_checks, run_check

__all__ = ["run_validation", "write_report", "environment"]


def environment(master_seed: int, profile: str, executor: str) -> dict:
    """Versions of the interpreter and the numerical stack, and the run settings."""
    from importlib import metadata

    versions = {}
    for pkg in ("iclr26sci", "numpy", "scipy", "torch", "gpytorch", "cvxpy", "highspy", "scikit-learn",
                "pandas", "matplotlib", "networkx", "open3d", "gensim", "dask", "distributed"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "seed": master_seed,
        "profile": profile,
        "executor": executor,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": versions,
    }


def _run_one(key: str, profile_name: str, seed: int, methods: list[str]) -> dict:
    # executed in a worker: import the check modules there, run, render the figure to PNG bytes
    specs = {s.key: s for s in load_checks(methods)}
    rec = run_check(specs[key], Profile(profile_name), seed)
    fig = rec.pop("_figure")
    rec["figure_png"] = _fig_png(fig)
    return rec


def _fig_png(fig) -> str | None:
    if fig is None:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
        plt.close(fig)
        return base64.b64encode(buf.getvalue()).decode("ascii")
    except Exception:  # a broken figure must not hide the check's numbers
        return None


def run_validation(methods=None, profile: str = "quick", seed: int = 0, executor: str = "local",
                   scheduler: str | None = None, n_workers: int | None = None, log=print) -> list[dict]:
    """Run the checks of ``methods`` (all when None) and return their records in registry order.

    ``executor="local"`` runs the checks one after another in this process
    (each check may itself use all cores); ``"dask"`` sends each check to a
    dask.distributed cluster (``scheduler`` address or a LocalCluster).
    """
    prof = Profile(profile)
    specs = [s for s in load_checks(methods) if not (s.slow and prof.quick)]
    keys = [s.key for s in specs]
    mlist = sorted({s.method for s in specs})
    records: list[dict] = []
    if executor == "dask":
        from distributed import Client, LocalCluster

        cluster = None
        client = Client(scheduler) if scheduler else None
        if client is None:
            cluster = LocalCluster(n_workers=n_workers or min(os.cpu_count() or 1, 4), threads_per_worker=1,
                                   dashboard_address=None)
            client = Client(cluster)
        try:
            futs = client.map(partial(_run_one, profile_name=profile, seed=seed, methods=mlist), keys, pure=False)
            for key, fut in zip(keys, futs):
                rec = fut.result()
                log(_line(rec))
                records.append(rec)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    else:
        for s in specs:
            rec = run_check(s, prof, seed)
            rec["figure_png"] = _fig_png(rec.pop("_figure"))
            log(_line(rec))
            records.append(rec)
    return records


def _line(rec: dict) -> str:
    mark = "PASS" if rec["passed"] else "FAIL"
    thr = rec["threshold"]
    thr_s = f"[{thr[0]:.4g}, {thr[1]:.4g}]" if isinstance(thr, list) else f"{thr:.4g}"
    err = f"  ERROR: {rec['error']}" if rec.get("error") else ""
    return (f"[{mark}] {rec['method']}.{rec['name']}: {rec['statistic']:.4g} {rec['comparison']} {thr_s}"
            f"  ({rec['seconds']:.1f}s){err}")


def _fmt(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _table_md(table) -> str:
    if not table:
        return ""
    cols = list(table[0].keys())
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in table[:40]:
        lines.append("| " + " | ".join(_fmt(row.get(c, "")) for c in cols) + " |")
    if len(table) > 40:
        lines.append(f"| ... {len(table) - 40} more rows |" + " |" * (len(cols) - 1))
    return "\n".join(lines)


def _table_html(table) -> str:
    if not table:
        return ""
    cols = list(table[0].keys())
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(c, '')))}</td>" for c in cols) + "</tr>"
                   for r in table[:60])
    return f"<table class='data'><tr>{head}</tr>{body}</table>"


def write_report(records: list[dict], out: str, env: dict) -> dict:
    """Write ``results.json``, ``report.md``, ``index.html`` and the PNG figures under ``out``."""
    os.makedirs(out, exist_ok=True)
    figdir = os.path.join(out, "figures")
    os.makedirs(figdir, exist_ok=True)
    for rec in records:
        if rec.get("figure_png"):
            path = os.path.join(figdir, f"{rec['method']}.{rec['name']}.png")
            with open(path, "wb") as fh:
                fh.write(base64.b64decode(rec["figure_png"]))
            rec["figure"] = os.path.relpath(path, out)
    n_pass = sum(r["passed"] for r in records)
    summary = {"checks": len(records), "passed": n_pass, "failed": len(records) - n_pass,
               "seconds": round(sum(r["seconds"] for r in records), 2)}
    plain = [{k: v for k, v in r.items() if k != "figure_png"} for r in records]
    with open(os.path.join(out, "results.json"), "w") as fh:
        json.dump({"summary": summary, "environment": env, "checks": plain}, fh, indent=1)

    by_method: dict[str, list[dict]] = {}
    for r in records:
        by_method.setdefault(r["method"], []).append(r)

    md = [f"# iclr26sci validation report ({env['profile']} profile)", "",
          f"{n_pass} of {len(records)} checks passed in {summary['seconds']:.1f} s. "
          f"Seed {env['seed']}, executor {env['executor']}, Python {env['python']}, {env['date']}.", "",
          "| method | checks | passed | seconds |", "|---|---|---|---|"]
    for m, rs in by_method.items():
        md.append(f"| {m} | {len(rs)} | {sum(r['passed'] for r in rs)} | {sum(r['seconds'] for r in rs):.1f} |")
    for m, rs in by_method.items():
        md += ["", f"## {m}: {METHODS.get(m, ('', m))[1]}", "",
               "| check | guarantee | statistic | threshold | result | seconds |", "|---|---|---|---|---|---|"]
        for r in rs:
            md.append(f"| {r['name']} | {r['guarantee']} | {_fmt(r['statistic'])} | {r['comparison']} "
                      f"{_fmt(r['threshold'])} | {'PASS' if r['passed'] else '**FAIL**'} | {r['seconds']:.1f} |")
        for r in rs:
            md += ["", f"### {r['name']}", "", f"*Guarantee.* {r['guarantee']} ({r['paper']})", ""]
            if r["details"]:
                md += [r["details"], ""]
            if r.get("error"):
                md += [f"Error: `{r['error']}`", ""]
            if r.get("table"):
                md += [_table_md(r["table"]), ""]
            if r.get("figure"):
                md += [f"![{r['name']}]({r['figure']})", ""]
    md += ["", "## Environment", "", "```", json.dumps(env, indent=1), "```"]
    with open(os.path.join(out, "report.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")

    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>iclr26sci validation</title><style>",
        "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}",
        "table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:3px 7px;font-size:13px}",
        ".pass{color:#176b24;font-weight:bold}.fail{color:#b3141b;font-weight:bold}",
        "img{max-width:100%;border:1px solid #eee}details{margin:.4em 0 1em}</style></head><body>",
        f"<h1>iclr26sci validation report ({html.escape(env['profile'])} profile)</h1>",
        f"<p>{n_pass} of {len(records)} checks passed in {summary['seconds']:.1f} s. Seed {env['seed']}, "
        f"executor {html.escape(env['executor'])}, Python {env['python']}, {env['date']}.</p>",
    ]
    for m, rs in by_method.items():
        parts.append(f"<h2 id='{m}'>{html.escape(m)}: {html.escape(METHODS.get(m, ('', m))[1])}</h2>")
        parts.append("<table><tr><th>check</th><th>guarantee</th><th>statistic</th><th>threshold</th>"
                     "<th>result</th><th>s</th></tr>")
        for r in rs:
            cls = "pass" if r["passed"] else "fail"
            parts.append(f"<tr><td><a href='#{m}.{r['name']}'>{html.escape(r['name'])}</a></td>"
                         f"<td>{html.escape(r['guarantee'])}</td><td>{_fmt(r['statistic'])}</td>"
                         f"<td>{html.escape(r['comparison'])} {_fmt(r['threshold'])}</td>"
                         f"<td class='{cls}'>{'PASS' if r['passed'] else 'FAIL'}</td><td>{r['seconds']:.1f}</td></tr>")
        parts.append("</table>")
        for r in rs:
            parts.append(f"<h3 id='{m}.{r['name']}'>{html.escape(r['name'])}</h3>")
            parts.append(f"<p><em>Guarantee.</em> {html.escape(r['guarantee'])} ({html.escape(r['paper'])})</p>")
            if r["details"]:
                parts.append(f"<p>{html.escape(r['details'])}</p>")
            if r.get("error"):
                parts.append(f"<pre class='fail'>{html.escape(r['error'])}</pre>")
            if r.get("table"):
                parts.append(_table_html(r["table"]))
            if r.get("figure_png"):
                parts.append(f"<img alt='{html.escape(r['name'])}' src='data:image/png;base64,{r['figure_png']}'>")
    parts.append("<h2>Environment</h2><pre>" + html.escape(json.dumps(env, indent=1)) + "</pre></body></html>")
    with open(os.path.join(out, "index.html"), "w") as fh:
        fh.write("\n".join(parts))
    return summary
