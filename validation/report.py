"""Run registered checks and write ``results.json``, ``report.md`` and a self-contained ``index.html``.

Verdicts (see ``validation/known_failures.toml``): ``PASS``, ``FAIL``, ``FAIL (known)`` (declared, with
its reason) and ``XPASS`` (declared but passed: strict, so the run fails until the declaration is
removed). With several master seeds (``--seeds``) the report adds a verdict table per check and seed
(``seeds.md``, ``seeds.json``) and flags checks whose verdict differs across seeds.
"""
from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import os
import platform
import re
import sys
from datetime import datetime, timezone
from functools import partial

from .registry import METHODS, PAPER_METHODS, UNREPORTED, Profile, apply_known_failures, deciding_criterion, load_checks, \
    load_known_failures, run_check, runs_at

__all__ = ["run_validation", "write_report", "environment", "set_threads", "threads_info", "inspect_figure",
           "render_figure", "summarize", "seed_table", "slowest", "verdict_text", "plan_jobs", "not_run_console",
           "fmt_effect", "claim_verdict_text", "Records", "code_fingerprint", "check_fingerprint",
           "dependency_files", "CHECKPOINT"]

#: rows of a check's table shown in index.html / report.md before truncation (results.json keeps all)
HTML_ROWS, MD_ROWS = 30, 30
#: more data lines than this in one axes without a legend is a figure issue
MAX_LINES_WITHOUT_LEGEND = 6
_THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS")


# --------------------------------------------------------------------------------------------------
# threads and environment

def set_threads(n: int | None) -> None:
    """Use ``n`` threads: torch, the BLAS/OpenMP pools already loaded (threadpoolctl), and the
    ``OMP_NUM_THREADS``-style variables that libraries loaded later and subprocess/dask workers read.
    ``None`` leaves everything as it is."""
    if n is None:
        return
    for k in _THREAD_ENV:
        os.environ[k] = str(int(n))
    import torch

    torch.set_num_threads(int(n))
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=int(n))
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        pass


def threads_info(requested: int | None = None) -> dict:
    """Thread settings in effect: the request, torch's intra-op threads, the env variables, each BLAS pool."""
    info: dict = {"requested": requested}
    if "torch" in sys.modules:
        info["torch"] = sys.modules["torch"].get_num_threads()
    for k in _THREAD_ENV[:3]:
        info[k] = os.environ.get(k)
    try:
        from threadpoolctl import threadpool_info

        info["pools"] = sorted({f"{p.get('internal_api')}={p.get('num_threads')}" for p in threadpool_info()})
    except ImportError:  # pragma: no cover
        pass
    return info


def environment(master_seed: int, profile: str, executor: str, *, seeds: list[int] | None = None,
                threads: int | None = None) -> dict:
    """Versions of the interpreter and the numerical stack, and the run settings (seed(s), threads)."""
    from importlib import metadata

    versions = {}
    for pkg in ("iclr26sci", "numpy", "scipy", "torch", "gpytorch", "cvxpy", "highspy", "scikit-learn",
                "pandas", "matplotlib", "networkx", "open3d", "gensim", "dask", "distributed"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    env = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "seed": master_seed,
        "profile": profile,
        "executor": executor,
        "threads": threads_info(threads),
        # 1-, 5- and 15-minute load averages when the report is written: above "cpus", timings are inflated
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": versions,
    }
    if seeds is not None and list(seeds) != [master_seed]:
        env["seeds"] = list(seeds)
    return env


# --------------------------------------------------------------------------------------------------
# figures: PNG and automatic hygiene

def _axes_has_content(ax) -> bool:
    return bool(ax.lines or ax.collections or ax.patches or ax.images)


def inspect_figure(fig, *, drawn: bool = False, renderer=None) -> list[str]:
    """Hygiene issues of a matplotlib figure, as short sentences a method engineer can act on.

    Flags, per axes with data: a missing x or y label on an axis that shows numbers (a label on
    an axes it shares that axis with counts; once drawn, an axis with no tick labels or only
    named categories needs none); an image (AxesImage, QuadMesh or other scalar-mapped collection) without a
    colour bar (one colour bar serves every image drawn with the same colour map and limits); more
    than ``MAX_LINES_WITHOUT_LEGEND`` lines without a legend; and, when the figure
    has been drawn (``drawn=True``), tick labels that overlap and a legend drawn over data points;
    two lines drawn on top of each other. Colour-bar axes and RGB images are exempt; axes turned off need no labels, but a
    scalar image in them still needs a colour bar.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [0, 1])
    >>> inspect_figure(fig)
    ['axes 1: no x label', 'axes 1: no y label']
    >>> plt.close(fig)
    """
    from matplotlib.collections import QuadMesh
    from matplotlib.image import AxesImage

    issues: list[str] = []
    axes = list(fig.axes)
    cbar_axes = {id(ax) for ax in axes if getattr(ax, "_colorbar", None) is not None}
    scales = set()   # (colormap, limits) shown by some colour bar: images drawn on that scale share it
    for ax in axes:
        for mappable in list(ax.images) + list(ax.collections):
            cb = getattr(mappable, "colorbar", None)
            if cb is not None:
                cbar_axes.add(id(cb.ax))
                scales.add(_scale(mappable))
    drawn = drawn or renderer is not None
    if drawn and renderer is None:
        try:
            renderer = fig.canvas.get_renderer()
        except Exception:  # pragma: no cover - non-Agg canvas
            renderer = None
    n = 0
    for ax in axes:
        if id(ax) in cbar_axes:
            continue
        n += 1
        if not ax.get_visible() or not _axes_has_content(ax):
            continue
        title = ax.get_title()
        name = f"axes {n}" + (f" ({title[:40]!r})" if title else "")
        for which in ("x", "y") if ax.axison else ():   # an axes turned off (a picture) needs no labels
            if getattr(ax, f"get_{which}label")():
                continue
            if drawn and not _numeric_ticks(ax, which):  # no numbers on this axis (a picture, named categories)
                continue
            shared = getattr(ax, f"get_shared_{which}_axes")().get_siblings(ax)
            if any(getattr(o, f"get_{which}label")() for o in shared if o is not ax):
                continue
            issues.append(f"{name}: no {which} label")
        # images without a colour bar (RGB(A) pictures need none)
        for mappable in ax.images:
            if isinstance(mappable, AxesImage):
                arr = mappable.get_array()
                if arr is not None and getattr(arr, "ndim", 2) == 3:
                    continue
                if mappable.colorbar is None and _scale(mappable) not in scales:
                    issues.append(f"{name}: image without a colour bar")
                    break
        for coll in ax.collections:
            if isinstance(coll, QuadMesh) and coll.colorbar is None and _scale(coll) not in scales:
                issues.append(f"{name}: pcolormesh without a colour bar")
                break
        # many lines without a legend: errorbar caps are not data lines
        caps = set()
        for cont in ax.containers:
            for part in getattr(cont, "lines", ()) or ():
                for a in (part if isinstance(part, (list, tuple)) else [part]):
                    if a is not None and a is not getattr(cont, "lines", (None,))[0]:
                        caps.add(id(a))
        lines = [ln for ln in ax.lines if id(ln) not in caps and len(ln.get_xdata()) >= 2]
        has_legend = ax.get_legend() is not None or bool(fig.legends)
        if len(lines) > MAX_LINES_WITHOUT_LEGEND and not has_legend:
            issues.append(f"{name}: {len(lines)} lines without a legend")
        coinciding = _coinciding_lines(ax, lines)
        if coinciding:
            issues.append(f"{name}: lines {coinciding} lie on top of each other (give them distinct markers, "
                          "line styles or an offset, or say so in the legend)")
        if renderer is not None and ax.get_legend() is not None:
            hidden = _covered_by_legend(ax, lines, renderer)
            if hidden:
                issues.append(f"{name}: the legend covers data points of {hidden} (move it: loc=..., or outside "
                              "the axes)")
        if renderer is not None and ax.axison:
            for which in ("x", "y"):
                get = getattr(ax, f"get_{which}ticklabels")
                lo, hi = sorted(getattr(ax, f"get_{which}lim")())
                k = 0 if which == "x" else 1
                labels = [t for t in list(get()) + list(get(minor=True)) if t.get_visible() and t.get_text()
                          and lo - 1e-9 * abs(hi - lo) <= float(t.get_position()[k]) <= hi + 1e-9 * abs(hi - lo)]
                boxes = sorted((t.get_window_extent(renderer) for t in labels),
                               key=lambda b: b.x0 if which == "x" else b.y0)
                overlap = sum(1 for a, b in zip(boxes, boxes[1:]) if a.overlaps(b))
                if overlap:
                    issues.append(f"{name}: {overlap} overlapping {which} tick label pair(s)")
    return issues


_NUMERIC_TICK = re.compile(r"[\d.,eE+\-\u2212%\s]*")


def _numeric_ticks(ax, which: str) -> bool:
    """True when the (drawn) axis shows at least one numeric tick label."""
    for t in getattr(ax, f"get_{which}ticklabels")():
        text = t.get_text()
        if not t.get_visible() or not text:
            continue
        text = re.sub(r"\\mathdefault|\\times|[${}^]", "", text)
        if _NUMERIC_TICK.fullmatch(text) and any(ch.isdigit() for ch in text):
            return True
    return False


def _covered_by_legend(ax, lines, renderer) -> str:
    """Labels of the data lines (more than 2 points) with a data point under the legend, or ''."""
    import numpy as np

    try:
        box = ax.get_legend().get_window_extent(renderer).padded(-2)
    except Exception:  # pragma: no cover
        return ""
    hit = []
    for k, ln in enumerate(lines):
        if len(ln.get_xdata()) <= 2 or not ln.get_visible():
            continue
        try:
            xy = ln.get_transform().transform(np.column_stack([np.asarray(ln.get_xdata(), float),
                                                               np.asarray(ln.get_ydata(), float)]))
        except (TypeError, ValueError):
            continue
        xy = xy[np.isfinite(xy).all(axis=1)]
        inside = (xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)
        if inside.any():
            lab = ln.get_label()
            hit.append(repr(lab) if not str(lab).startswith("_") else f"line #{k + 1}")
    return ", ".join(hit)


def _scale(mappable) -> tuple:
    try:
        lo, hi = mappable.get_clim()
        return (getattr(mappable.get_cmap(), "name", ""), round(float(lo), 12), round(float(hi), 12))
    except Exception:  # pragma: no cover - an odd artist
        return (id(mappable),)


def _coinciding_lines(ax, lines) -> str:
    """Names of the first pair of lines drawn over each other (same x, y within 0.5% of the axis span at
    more than half of the points, including the last one), or ''."""
    import numpy as np

    lo, hi = ax.get_ylim()
    log = ax.get_yscale() == "log"
    span = (np.log10(hi) - np.log10(lo)) if log and lo > 0 and hi > 0 else (hi - lo)
    if not np.isfinite(span) or span <= 0:
        return ""
    data = []
    for ln in lines:
        try:
            x = np.asarray(ln.get_xdata(), dtype=float)
            y = np.asarray(ln.get_ydata(), dtype=float)
        except (TypeError, ValueError):
            continue
        if log:
            with np.errstate(all="ignore"):
                y = np.log10(np.where(y > 0, y, np.nan))
        data.append((ln, x, y))
    for i in range(len(data)):
        for j in range(i + 1, len(data)):
            (a, xa, ya), (b, xb, yb) = data[i], data[j]
            if xa.shape != xb.shape or xa.size < 2 or not np.allclose(xa, xb, equal_nan=True):
                continue
            with np.errstate(invalid="ignore"):
                close = np.abs(ya - yb) <= 0.005 * span
            if close.mean() > 0.5 and close[-1]:
                names = [ln.get_label() if not str(ln.get_label()).startswith("_") else f"#{k + 1}"
                         for ln, k in ((a, i), (b, j))]
                return f"{names[0]!r} and {names[1]!r}"
    return ""


def render_figure(fig) -> tuple[str | None, list[str]]:
    """PNG (base64) of a figure and its hygiene issues; the figure is closed. Never raises."""
    if fig is None:
        return None, []
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        # inspect inside the PNG's own draw (its renderer, layout and legend placement; no extra draw)
        found: list = []

        def on_draw(event):
            try:
                found[:] = [inspect_figure(fig, renderer=event.renderer)]
            except Exception as exc:  # the inspector must never cost a check its figure
                found[:] = [[f"figure inspector failed: {type(exc).__name__}: {exc}"]]

        cid = fig.canvas.mpl_connect("draw_event", on_draw)
        buf = io.BytesIO()
        try:
            fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
        finally:
            fig.canvas.mpl_disconnect(cid)
        issues = found[0] if found else inspect_figure(fig, drawn=True)
        plt.close(fig)
        return base64.b64encode(buf.getvalue()).decode("ascii"), issues
    except Exception as exc:  # a broken figure must not hide the check's numbers
        return None, [f"the figure could not be rendered: {type(exc).__name__}: {exc}"]


def _fig_png(fig) -> str | None:
    return render_figure(fig)[0]


def _finish(rec: dict, keep_figure: bool) -> dict:
    fig = rec.pop("_figure", None)
    if keep_figure:
        rec["figure_png"], rec["figure_issues"] = render_figure(fig)
    else:
        if fig is not None:
            import matplotlib.pyplot as plt

            plt.close(fig)
        rec["figure_png"], rec["figure_issues"] = None, []
    return rec


# --------------------------------------------------------------------------------------------------
# running

def _run_one(key: str, profile_name: str, seed: int, methods: list[str], threads: int | None = None,
             keep_figure: bool = True) -> dict:
    # executed in a worker: import the check modules there, run, render the figure to PNG bytes
    set_threads(threads)
    specs = {s.key: s for s in load_checks(methods)}
    return _finish(run_check(specs[key], Profile(profile_name), seed), keep_figure)


class Records(list):
    """The records of a run (a list), with ``not_run``: the selected checks that ran at none of its profiles,
    and ``resumed``: how many records came from the checkpoint (``resume=True``)."""

    not_run: list = []
    resumed: int = 0
    stale: int = 0


# --------------------------------------------------------------------------------------------------
# checkpoint: one JSON line per finished check, so that a long run can go on after an interruption

#: the checkpoint's file name inside the report folder
CHECKPOINT = "checkpoint.jsonl"
_FP_PACKAGES = ("iclr26sci", "validation", "data_adapters")
_FP_VERSIONS = ("numpy", "scipy", "torch", "scikit-learn", "gpytorch", "open3d", "transformers", "diffusers")


def code_fingerprint() -> str:
    """SHA-256 (16 hex digits) of what a check's result depends on: every ``.py`` file of ``iclr26sci``,
    ``validation`` and ``data_adapters`` (path and bytes), the Python version and the versions of the
    numerical stack. ``known_failures.toml`` is left out: verdicts are re-derived from the declarations in
    force when a checkpointed record is reused."""
    import importlib.util

    h = hashlib.sha256()
    _environment_digest(h)
    for name in _FP_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        root = list(spec.submodule_search_locations)[0]
        for dirpath, dirnames, files in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for f in sorted(files):
                if f.endswith(".py"):
                    path = os.path.join(dirpath, f)
                    h.update(f"{name}/{os.path.relpath(path, root)}".encode())
                    with open(path, "rb") as fh:
                        h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()[:16]


#: modules every check's record passes through
_FP_ALWAYS = ("validation.registry", "validation.report")


_IMPORTS: dict = {}


def _module_name(root: str, path: str) -> str:
    rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
    return rel[:-len(".__init__")] if rel.endswith(".__init__") else rel


def _imports_of(root: str, path: str) -> set[str]:
    """Absolute names of the modules a source file imports, anywhere in it (lazy imports in functions
    included); ``from pkg import name`` gives both ``pkg`` and ``pkg.name``."""
    import ast

    st = os.stat(path)
    memo = (path, st.st_mtime_ns, st.st_size)
    if memo in _IMPORTS:
        return _IMPORTS[memo]
    with open(path, "rb") as fh:
        tree = ast.parse(fh.read(), filename=path)
    mod = _module_name(root, path)
    package = mod if path.endswith("__init__.py") else mod.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            # ``from iclr26sci import x`` binds x only: the package's __init__, not every sub-package
            out.add(f"{name}.__init__" if "." not in name else name)
            out.update(f"{name}.{a.name}" for a in node.names if a.name != "*")
    _IMPORTS[memo] = out
    return out


def _unit(root: str, name: str) -> str | None:
    """The repository files a module name stands for: a sub-package of ``iclr26sci`` (or all of
    ``data_adapters``) as its whole folder, a ``validation`` module as its file; ``"*"`` for a bare
    ``import iclr26sci`` (attribute access can then reach any sub-package); None outside the repository."""
    parts = name.split(".")
    if parts[0] == "validation":
        if len(parts) == 1:
            return os.path.join("validation", "__init__.py")
        f = os.path.join("validation", parts[1] + ".py")
        if parts[1] == "__init__":
            return os.path.join("validation", "__init__.py")
        return f if os.path.exists(os.path.join(root, f)) else None
    if parts[0] == "data_adapters":
        return "data_adapters"
    if parts[0] == "iclr26sci":
        if len(parts) == 1:
            return "*"
        if os.path.isdir(os.path.join(root, "iclr26sci", parts[1])):
            return os.path.join("iclr26sci", parts[1])
        f = os.path.join("iclr26sci", parts[1] + ".py")
        return f if os.path.exists(os.path.join(root, f)) else os.path.join("iclr26sci", "__init__.py")
    return None


def _unit_files(root: str, unit: str) -> list[str]:
    full = os.path.join(root, unit)
    if os.path.isfile(full):
        return [unit]
    out = []
    for dirpath, dirnames, files in os.walk(full):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        out += [os.path.relpath(os.path.join(dirpath, f), root) for f in sorted(files) if not f.endswith(".pyc")]
    return out


def dependency_files(modules, root: str | None = None) -> list[str] | None:
    """The repository files (relative paths) that the modules ``modules`` can execute: the closure of their
    imports over :func:`_unit`'s units, plus ``iclr26sci/__init__.py``. None when a module reaches a bare
    ``import iclr26sci`` (then everything counts). ``root``: the repository (default: this checkout)."""
    root = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    seen, todo = set(), []
    for m in modules:
        u = _unit(root, m)
        if u is not None and u not in seen:
            seen.add(u)
            todo.append(u)
    files = set()
    while todo:
        unit = todo.pop()
        if unit == "*":
            return None
        for f in _unit_files(root, unit):
            files.add(f)
            if not f.endswith(".py"):
                continue
            for name in _imports_of(root, os.path.join(root, f)):
                u = _unit(root, name)
                if u is not None and u not in seen:
                    seen.add(u)
                    todo.append(u)
    init = os.path.join("iclr26sci", "__init__.py")
    if any(f.startswith("iclr26sci" + os.sep) for f in files) and os.path.exists(os.path.join(root, init)):
        files.add(init)
    return sorted(files)


def _environment_digest(h) -> None:
    from importlib import metadata

    h.update(sys.version.split()[0].encode())
    for pkg in _FP_VERSIONS:
        try:
            h.update(f"{pkg}={metadata.version(pkg)};".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{pkg}=none;".encode())


def check_fingerprint(spec, root: str | None = None, cache: dict | None = None) -> str:
    """SHA-256 (16 hex digits) of what one check's result can depend on: the files of
    :func:`dependency_files` of the module that defines it (and of the registry and the report, which form
    its record), and the versions of Python and the numerical stack. A change elsewhere in the repository
    leaves it unchanged, so a long ``--resume`` run keeps the results of the checks a change cannot
    affect. A check defined outside ``validation`` (or one reaching a bare ``import iclr26sci``) gets
    :func:`code_fingerprint`. ``cache``: a dict shared by the calls of one run (one hash per module);
    :func:`run_validation` takes every fingerprint before the first check runs, so a file edited during a
    long run cannot be credited to results computed with its earlier version."""
    mod = getattr(getattr(spec, "func", None), "__module__", "") or ""
    if not mod.startswith("validation."):
        return code_fingerprint()
    if cache is not None and (mod, root) in cache:
        return cache[(mod, root)]
    root_ = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = dependency_files((mod, *_FP_ALWAYS), root_)
    if files is None:
        fp = code_fingerprint()
    else:
        h = hashlib.sha256()
        _environment_digest(h)
        for f in files:
            h.update(f.replace(os.sep, "/").encode())
            with open(os.path.join(root_, f), "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
        fp = h.hexdigest()[:16]
    if cache is not None:
        cache[(mod, root)] = fp
    return fp


def _thread_key(threads: int | None) -> str:
    return f"{threads}/{os.environ.get('OMP_NUM_THREADS')}"


def _load_checkpoint(path: str, threads: int | None, log=print) -> dict:
    """``{(check key, profile, seed): (fingerprint, record)}`` of the usable lines of ``path``: the same
    threads and no error (a check that crashed runs again); a later line for the same check replaces an
    earlier one. Whether the fingerprint still matches is decided per check, when it is due. A line cut
    short by an interruption is skipped (counted in the log line)."""
    out, other, broken = {}, 0, 0
    if not os.path.exists(path):
        return out
    with open(path) as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                key = (row["key"], row["profile"], int(row["seed"]))
                rec = row["record"]
                fp = str(row["fingerprint"])
            except (ValueError, KeyError, TypeError):
                broken += 1
                continue
            if row.get("threads") != _thread_key(threads):
                other += 1
            elif not rec.get("error"):
                out[key] = (fp, rec)
    if other or broken:
        log(f"checkpoint {path}: {len(out)} usable record(s); {other} from other threads ignored"
            + (f", {broken} unreadable line(s) skipped" if broken else ""))
    return out


def plan_jobs(specs, profiles: list[str], named=frozenset()) -> tuple[list, list[dict]]:
    """Which check runs at which profile: ``([(spec, profile), ...], not_run)``.

    Each check runs at most once, at the first profile of ``profiles`` that runs it (see
    :func:`validation.registry.runs_at`). A check named explicitly (``--only method.check``) runs even when
    slow, at the first profile of its tier (or the first profile). ``not_run`` lists the others with the reason.
    """
    from .registry import not_run as _not_run

    jobs, ran = [], set()
    for s in specs:
        prof = next((p for p in profiles if runs_at(s, p)), None)
        if prof is None and s.key in named:
            prof = next((p for p in profiles if p == "full" or (s.kind == "claim") == (p == "claims")), profiles[0])
        if prof is not None:
            jobs.append((s, prof))
            ran.add(s.key)
    return jobs, _not_run(specs, ran, profiles)


def run_validation(methods=None, profile: str = "quick", seed: int = 0, executor: str = "local",
                   scheduler: str | None = None, n_workers: int | None = None, log=print, *,
                   seeds: list[int] | None = None, known: dict | None = None, threads: int | None = None,
                   progress: bool | None = None, checkpoint: str | None = None, resume: bool = False) -> list[dict]:
    """Run the checks of ``methods`` (all when None) and return their records in registry order.

    ``profile`` is one profile name or several joined by ``,`` (``"quick,claims"``: the ordinary checks at
    the quick profile, then the claim checks at the claims profile, into one list; each record carries its
    ``profile``). The returned list has an attribute ``not_run``: the selected checks that ran at none of
    the profiles (``[slow]`` checks at quick, ordinary checks at claims), with the reason.

    ``executor="local"`` runs the checks one after another in this process
    (each check may itself use all cores); ``"dask"`` sends each check to a
    dask.distributed cluster (``scheduler`` address or a LocalCluster).

    ``seeds`` (default ``[seed]``) runs every check under each master seed, check by check; each
    record carries its ``seed``, and only the first seed's records keep their figure. ``known``
    holds the known-failure declarations (default: ``validation/known_failures.toml``); every
    record gets its ``status``. One progress tick per check and seed.

    ``checkpoint`` (a file path, e.g. ``OUT/checkpoint.jsonl``) receives one JSON line per finished check,
    as it finishes. With ``resume=True`` the lines already there are kept, and a check whose line has the
    same key, profile, master seed, threads and :func:`check_fingerprint` (the check's own code and the
    numerical stack) is not run again: its stored record is reused (``resumed=True``; its verdict is
    re-derived from ``known``). A check that crashed, or whose code or environment changed, runs again
    (counted in ``stale``). Without ``resume`` the file is started afresh.
    """
    from iclr26sci.core import progress as _bar, progress_enabled

    from .registry import parse_profiles

    profiles = parse_profiles(profile) if isinstance(profile, str) else list(profile)
    profs = {p: Profile(p) for p in profiles}
    seeds = [seed] if not seeds else list(seeds)
    known = load_known_failures() if known is None else known
    named = {k for k in (methods or []) if "." in k}   # a check named explicitly runs even when slow
    plan, skipped = plan_jobs(load_checks(methods), profiles, named)
    mlist = sorted({s.method for s, _ in plan} | {k.split(".", 1)[0] for k in (methods or [])})
    jobs = [(s, p, sd) for s, p in plan for sd in seeds]
    enabled = progress_enabled() if progress is None else progress
    if enabled and log is print:
        from tqdm.auto import tqdm

        log = tqdm.write
    records = Records()
    records.not_run = skipped
    stored: dict = {}
    ckpt = None
    fps: dict = {}
    if checkpoint is not None:
        memo: dict = {}
        fps = {s.key: check_fingerprint(s, cache=memo) for s, _ in plan}  # the code as it is at the start
        if resume:
            stored = _load_checkpoint(checkpoint, threads, log)
        os.makedirs(os.path.dirname(os.path.abspath(checkpoint)), exist_ok=True)
        ckpt = open(checkpoint, "a" if resume else "w")

    def done(rec, job=None):
        if ckpt is not None and job is not None:  # the raw record, before today's declarations are applied
            s, p, sd = job
            try:
                line = json.dumps({"key": s.key, "profile": p, "seed": sd, "fingerprint": fps[s.key],
                                   "threads": _thread_key(threads), "record": rec})
            except (TypeError, ValueError) as exc:  # never lose the run for its checkpoint
                log(f"checkpoint: {s.key} not saved ({type(exc).__name__}: {exc})")
            else:
                ckpt.write(line + "\n")
                ckpt.flush()
        apply_known_failures([rec], known)
        log(_line(rec, multi_seed=len(seeds) > 1))
        records.append(rec)

    def reused(job):
        s, p, sd = job
        fp, rec = stored.get((s.key, p, sd), (None, None))
        if rec is None:
            return None
        if fp != fps[s.key]:
            records.stale += 1
            return None
        records.resumed += 1
        rec = dict(rec, resumed=True)  # stored raw: apply_known_failures re-derives its status in done()
        if sd != seeds[0]:
            rec["figure_png"], rec["figure_issues"] = None, []
        return rec

    if executor == "dask":
        from distributed import Client, LocalCluster

        cluster = None
        client = Client(scheduler) if scheduler else None
        if client is None:
            cluster = LocalCluster(n_workers=n_workers or min(os.cpu_count() or 1, 4), threads_per_worker=1,
                                   dashboard_address=None)
            client = Client(cluster)
        try:
            old = [reused(j) for j in jobs]
            futs = [None if o is not None else
                    client.submit(partial(_run_one, profile_name=p, seed=sd, methods=mlist, threads=threads,
                                          keep_figure=sd == seeds[0]), s.key, pure=False)
                    for o, (s, p, sd) in zip(old, jobs)]
            for job, o, fut in _bar(list(zip(jobs, old, futs)), desc="validate", total=len(jobs), enabled=enabled):
                if o is not None:
                    done(o)
                else:
                    done(fut.result(), job)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
            if ckpt is not None:
                ckpt.close()
    else:
        try:
            for job in _bar(jobs, desc="validate", total=len(jobs), enabled=enabled):
                s, p, sd = job
                o = reused(job)
                if o is not None:
                    done(o)
                else:
                    done(_finish(run_check(s, profs[p], sd), keep_figure=sd == seeds[0]), job)
        finally:
            if ckpt is not None:
                ckpt.close()
    if records.stale:
        log(f"checkpoint {checkpoint}: {records.stale} stored result(s) ran again (their code or environment "
            "changed since)")
    return records


# --------------------------------------------------------------------------------------------------
# formatting helpers

def _fmt(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, float):
        return f"{v:.4g}"
    if v is None:
        return ""
    return str(v)


def _num(v) -> str:
    try:
        return f"{float(v):.4g}"
    except (TypeError, ValueError):
        return str(v)


def _thr(c: dict) -> str:
    t = c.get("threshold")
    t_s = f"[{_num(t[0])}, {_num(t[1])}]" if isinstance(t, (list, tuple)) else _num(t)
    return f"{c.get('comparison', '')} {t_s}".strip()


def _decided(d: dict) -> str:
    """'name: statistic <cmp> threshold' of the deciding criterion (the unreported case said in words)."""
    core = f"{_num(d['statistic'])} {_thr(d)}"
    if d.get("name") == UNREPORTED:
        return f"{core} {UNREPORTED}"
    return f"{d['name']}: {core}" if d.get("name") else core


def _status(rec: dict) -> str:
    return rec.get("status") or ("PASS" if rec.get("passed") else "FAIL")


def _line(rec: dict, multi_seed: bool = False) -> str:
    """The console line of a check, with one indented sub-line per criterion."""
    status = _status(rec)
    d = rec.get("deciding") or deciding_criterion(rec)
    name = f" ({d['name']})" if d.get("name") else ""
    seed = f" seed {rec['seed']}" if multi_seed and "seed" in rec else ""
    err = f"  ERROR: {rec['error']}" if rec.get("error") else ""
    over = "  [over budget]" if _over_budget(rec) else ""
    over += "  [from checkpoint]" if rec.get("resumed") else ""
    known = f"  known failure: {rec['known_failure']['reason']}" if status == "FAIL (known)" else ""
    xpass = "  declared a known failure but PASSED: remove it from validation/known_failures.toml" \
        if status == "XPASS" else ""
    out = [f"[{status}] {rec['method']}.{rec['name']}{seed}: {_num(d['statistic'])} {_thr(d)}{name}"
           f"  ({rec['seconds']:.1f}s){over}{err}{known}{xpass}"]
    if rec.get("claim") and not rec.get("error"):
        c = rec["claim"]
        out.append(f"      claim {claim_verdict_text(rec)}: ours {fmt_effect(c.get('effect'))}; "
                   f"control {fmt_effect(c.get('control_effect'))}")
        return "\n".join(out)
    for c in rec.get("criteria") or []:
        out.append(f"      - {c['name']}: {_num(c['statistic'])} {_thr(c)}  {'PASS' if c['passed'] else 'FAIL'}")
    return "\n".join(out)


def _columns(table: list[dict]) -> list[str]:
    """Union of the keys of all rows, in first-seen order."""
    cols: list[str] = []
    seen = set()
    for row in table:
        for k in (row.keys() if isinstance(row, dict) else []):
            if k not in seen:
                seen.add(k)
                cols.append(k)
    return cols


def _rows(table) -> list[dict]:
    if not table:
        return []
    if isinstance(table, dict):
        table = [table]
    return [r if isinstance(r, dict) else {"value": r} for r in table]


def _md_cell(v) -> str:
    return _fmt(v).replace("|", "\\|").replace("\n", " ")


def _table_md(table, max_rows: int = MD_ROWS) -> str:
    rows = _rows(table)
    if not rows:
        return ""
    cols = _columns(rows)
    lines = ["| " + " | ".join(_md_cell(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    for row in rows[:max_rows]:
        lines.append("| " + " | ".join(_md_cell(row.get(c, "")) for c in cols) + " |")
    if len(rows) > max_rows:
        lines += ["", f"*Showing {max_rows} of {len(rows)} rows; results.json has all of them.*"]
    return "\n".join(lines)


def _table_html(table, max_rows: int = HTML_ROWS) -> str:
    rows = _rows(table)
    if not rows:
        return ""
    cols = _columns(rows)
    # long snake_case headers may break after an underscore, so a wide table needs less room
    head = "".join(f"<th>{html.escape(str(c)).replace('_', '_<wbr>')}</th>" for c in cols)
    shown = rows[:max_rows]
    # a column is right-aligned (numbers) when every value in it is a number; mixed columns stay left-aligned
    numeric = {c: all(_is_number(r[c]) for r in shown if r.get(c) not in (None, "")) for c in cols}
    body = "".join("<tr>" + "".join(_td(r.get(c, ""), numeric[c]) for c in cols) + "</tr>" for r in shown)
    note = (f"<p class='note'>Showing {max_rows} of {len(rows)} rows; results.json has all of them.</p>"
            if len(rows) > max_rows else "")
    wide = (f"<p class='note'>{len(cols)} columns: the table scrolls sideways; an empty cell is a value that "
            f"row does not have.</p>") if len(cols) > 8 else ""
    return f"{wide}<div class='scroll'><table class='data'><tr>{head}</tr>{body}</table></div>{note}"


def _is_number(v) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    return isinstance(v, str) and v in ("nan", "inf", "-inf")


def _td(v, numeric: bool) -> str:
    return f"<td class='num'>{html.escape(_fmt(v))}</td>" if numeric else f"<td>{html.escape(_fmt(v))}</td>"


def _over_budget(rec: dict) -> bool:
    b = rec.get("budget")
    return rec.get("profile", "quick") == "quick" and b is not None and rec.get("seconds", 0) > float(b)


# --------------------------------------------------------------------------------------------------
# summaries

def summarize(records: list[dict], declaration_errors: list[str] | None = None, not_run: list[dict] | None = None) -> dict:
    """Counts of a run: checks, passed, known failures, failed, xpass, seconds, ``ok``; ``not_run`` (the
    selected checks that did not run at this profile), ``not_run_slow`` (the ``[slow]`` ones, listed by key in
    ``not_run_slow_checks``) and ``claims`` (claim checks by verdict).

    With several seeds the counts are those of the first seed; ``ok`` (the run's verdict:
    no unexpected failure, no XPASS, no declaration error, at least one check) covers every seed,
    and ``unstable`` lists the checks whose verdict differs across seeds.
    """
    seeds = _seeds_of(records)
    main = [r for r in records if r.get("seed", seeds[0]) == seeds[0]] if seeds else records
    st = [_status(r) for r in main]
    all_st = [_status(r) for r in records]
    summary = {"checks": len(main), "passed": st.count("PASS"), "known_failures": st.count("FAIL (known)"),
               "failed": st.count("FAIL"), "xpass": st.count("XPASS"),
               "seconds": round(sum(r["seconds"] for r in main), 2),
               "over_budget": sorted({f"{r['method']}.{r['name']}" for r in records if _over_budget(r)}),
               "declaration_errors": list(declaration_errors or []),
               "failing": [f"{r['method']}.{r['name']}" for r in main if _status(r) in ("FAIL", "XPASS")],
               "known": [f"{r['method']}.{r['name']}" for r in main if _status(r) == "FAIL (known)"]}
    summary["ok"] = bool(main) and "FAIL" not in all_st and "XPASS" not in all_st and not summary["declaration_errors"]
    nr = list(not_run or [])
    summary["not_run"] = len(nr)
    summary["not_run_slow"] = sum(1 for x in nr if x.get("reason") == "slow")
    summary["not_run_slow_checks"] = [x["check"] for x in nr if x.get("reason") == "slow"]
    cl = [r for r in main if r.get("claim")]
    summary["claims"] = {"checks": len(cl),
                         "reproduced": sum(1 for r in cl if r["claim"].get("verdict") == "reproduced"
                                           and r["claim"].get("control_passed")),
                         "not reproduced": sum(1 for r in cl if r["claim"].get("verdict") == "not reproduced"
                                               and r["claim"].get("control_passed")),
                         "inconclusive": sum(1 for r in cl if r["claim"].get("verdict") == "inconclusive"
                                             and r["claim"].get("control_passed")),
                         "control failed": sum(1 for r in cl if not r["claim"].get("control_passed"))}
    if len(seeds) > 1:
        tab = seed_table(records)
        summary["seeds"] = seeds
        summary["unstable"] = [row["check"] for row in tab["checks"] if not row["stable"]]
        summary["failing_any_seed"] = [row["check"] for row in tab["checks"]
                                       if any(v["status"] in ("FAIL", "XPASS") for v in row["per_seed"].values())]
        summary["seconds_all_seeds"] = round(sum(r["seconds"] for r in records), 2)
    return summary


def _seeds_of(records: list[dict]) -> list[int]:
    seeds: list[int] = []
    for r in records:
        s = r.get("seed", 0)
        if s not in seeds:
            seeds.append(s)
    return seeds


def seed_table(records: list[dict]) -> dict:
    """Verdict per check and seed: ``{"seeds": [...], "checks": [{check, per_seed, stable}]}``."""
    seeds = _seeds_of(records)
    by: dict[str, dict] = {}
    for r in records:
        key = f"{r['method']}.{r['name']}"
        d = r.get("deciding") or deciding_criterion(r)
        row = by.setdefault(key, {"check": key, "method": r["method"], "name": r["name"], "per_seed": {}})
        row["per_seed"][str(r.get("seed", 0))] = {
            "status": _status(r), "statistic": d["statistic"], "criterion": d.get("name", ""),
            "threshold": _thr(d), "seconds": r["seconds"],
            "criteria": [{"name": c["name"], "statistic": c["statistic"], "passed": c["passed"]}
                         for c in r.get("criteria") or []]}
    for row in by.values():
        row["stable"] = len({v["status"] for v in row["per_seed"].values()}) == 1
    return {"seeds": seeds, "checks": list(by.values())}


def slowest(records: list[dict], n: int = 10) -> list[dict]:
    """The ``n`` slowest checks (largest seconds over seeds), with budget and an over-budget flag."""
    best: dict[str, dict] = {}
    for r in records:
        key = f"{r['method']}.{r['name']}"
        if key not in best or r["seconds"] > best[key]["seconds"]:
            best[key] = {"check": key, "method": r["method"], "name": r["name"], "seconds": r["seconds"],
                         "budget": r.get("budget"), "over_budget": _over_budget(r)}
    return sorted(best.values(), key=lambda x: -x["seconds"])[:n]


def slowest_text(records: list[dict], n: int = 10, env: dict | None = None) -> str:
    """The slowest checks as console text (with the over-budget warning and, given ``env``, the load)."""
    rows = slowest(records, n)
    lines = [f"slowest {len(rows)} checks (seconds / budget):"]
    for r in rows:
        flag = "  OVER BUDGET" if r["over_budget"] else ""
        lines.append(f"  {r['seconds']:7.1f} / {_num(r['budget']):>5}  {r['check']}{flag}")
    over = sorted({f"{r['method']}.{r['name']}" for r in records if _over_budget(r)})
    if over:
        lines.append(f"warning: {len(over)} check(s) over their time budget (a warning, not a failure): "
                     + ", ".join(over))
    note = _load_note(env or {})
    if note:
        lines.append("note:" + note)
    return "\n".join(lines)


def seed_table_text(records: list[dict]) -> str:
    """The verdict table per check and seed as console text."""
    tab = seed_table(records)
    seeds = tab["seeds"]
    w = max([len(r["check"]) for r in tab["checks"]] + [5])
    lines = ["verdicts per master seed:", (f"  {'check':<{w}}  " + "  ".join(f"{'seed ' + str(s):<22}" for s in seeds)).rstrip()]
    for row in tab["checks"]:
        cells = []
        for s in seeds:
            v = row["per_seed"].get(str(s))
            cells.append(f"{(v['status'] + ' ' + _num(v['statistic'])) if v else '-':<22}")
        flag = "" if row["stable"] else "  <-- VERDICT DIFFERS ACROSS SEEDS"
        lines.append((f"  {row['check']:<{w}}  " + "  ".join(cells)).rstrip() + flag)
    unstable = [r["check"] for r in tab["checks"] if not r["stable"]]
    lines.append(f"{len(unstable)} of {len(tab['checks'])} checks change verdict across seeds {seeds}"
                 + (": " + ", ".join(unstable) if unstable else ""))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# writing

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1180px;margin:1.5em auto;padding:0 1em;
 color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.15em}
h3{margin:1.4em 0 .3em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 7px;font-size:13px;
 vertical-align:top;text-align:left}th{background:#f3f3f3}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pass{color:#176b24;font-weight:bold}.fail,.known,.xpass{color:#b3141b;font-weight:bold}
.xpass{background:#fff0c2}.warn{color:#8a5300}p.warn{font-size:13px}
tr.sub td{background:#fafafa;font-size:12px;color:#444}tr.sub td.crit{padding-left:1.6em}
tr.sub td.pass,table td.pass{color:#176b24}tr.sub td.fail,table td.fail{color:#b3141b}
p.kfbox{color:#b3141b;font-weight:normal;background:#fdf0f0;border-left:3px solid #b3141b;padding:.3em .7em}
.reason{font-weight:normal;color:#b3141b;font-size:12px;max-width:28em}
.banner{padding:.5em .8em;border-radius:4px;margin:.6em 0 1em;font-weight:bold}
.banner.ok{background:#e4f4e6;color:#176b24}.banner.bad{background:#fde7e7;color:#b3141b}
.scroll{overflow-x:auto;max-width:100%}.note{font-size:12px;color:#666;margin:.2em 0}
.issues{font-size:12px;color:#8a5300;background:#fff8e6;border-left:3px solid #e0a800;padding:.3em .7em;margin:.3em 0}
.figure{display:flex;gap:1em;align-items:flex-start;flex-wrap:wrap}
img{max-width:100%;border:1px solid #eee}ul.failing li{margin:.15em 0}
pre{white-space:pre-wrap;overflow-x:auto;background:#f7f7f7;padding:.5em}
td.guarantee{max-width:34em}
"""


def _status_html(rec: dict, with_reason: bool = True) -> str:
    st = _status(rec)
    cls = {"PASS": "pass", "FAIL": "fail", "FAIL (known)": "known", "XPASS": "xpass"}[st]
    out = f"<span class='{cls}'>{html.escape(st)}</span>"
    if with_reason and st == "FAIL (known)":
        out += f"<div class='reason'>{html.escape(_reason(rec))}</div>"
    if with_reason and st == "XPASS":
        out += ("<div class='reason'>declared a known failure but passed: remove the declaration from "
                "validation/known_failures.toml</div>")
    return out


def _reason(rec: dict) -> str:
    kf = rec.get("known_failure") or {}
    ev = f" (evidence: {kf['evidence']})" if kf.get("evidence") else ""
    return f"{kf.get('reason', '')}{ev}"


def _status_md(rec: dict) -> str:
    st = _status(rec)
    if st == "PASS":
        return "PASS"
    if st == "FAIL (known)":
        return f"**FAIL (known)**: {_md_cell(_reason(rec))}"
    if st == "XPASS":
        return "**XPASS** (declared known failure passed: remove the declaration)"
    return "**FAIL**"


def _anchor(rec: dict) -> str:
    return f"{rec['method']}.{rec['name']}"


def write_report(records: list[dict], out: str, env: dict, declaration_errors: list[str] | None = None,
                 not_run: list[dict] | None = None) -> dict:
    """Write ``results.json``, ``report.md``, ``index.html`` and the PNG figures under ``out``
    (and ``seeds.json`` / ``seeds.md`` when the records come from several master seeds).

    ``not_run`` (default: ``records.not_run`` when the records come from :func:`run_validation`) lists the
    selected checks that did not run at this profile; every report lists them ("not run (slow)").
    ``results.json`` holds ``summary``, ``environment``, ``checks``, ``not_run``, ``methods`` (key -> title)
    and ``paper_methods`` (the 19 methods that each get a row in the README's claims table).

    Returns the run's summary (see :func:`summarize`).
    """
    os.makedirs(out, exist_ok=True)
    figdir = os.path.join(out, "figures")
    os.makedirs(figdir, exist_ok=True)
    for rec in records:
        if "status" not in rec:
            rec["status"] = "PASS" if rec["passed"] else "FAIL"
            rec.setdefault("known_failure", None)
    seeds = _seeds_of(records)
    multi = len(seeds) > 1
    main = [r for r in records if r.get("seed", seeds[0]) == seeds[0]] if seeds else records
    for rec in main:
        if rec.get("figure_png"):
            path = os.path.join(figdir, f"{rec['method']}.{rec['name']}.png")
            with open(path, "wb") as fh:
                fh.write(base64.b64decode(rec["figure_png"]))
            rec["figure"] = os.path.relpath(path, out)
    if not_run is None:
        not_run = list(getattr(records, "not_run", None) or [])
    summary = summarize(records, declaration_errors, not_run)
    plain = [{k: v for k, v in r.items() if k != "figure_png"} for r in main]
    doc = {"summary": summary, "environment": env, "checks": plain, "not_run": not_run,
           "methods": {k: v[1] for k, v in METHODS.items()}, "paper_methods": list(PAPER_METHODS)}
    if multi:
        tab = seed_table(records)
        doc["seeds"] = tab
        with open(os.path.join(out, "seeds.json"), "w") as fh:
            json.dump({"environment": env, **tab}, fh, indent=1)
        with open(os.path.join(out, "seeds.md"), "w") as fh:
            fh.write("\n".join(_seeds_md(tab)) + "\n")
    with open(os.path.join(out, "results.json"), "w") as fh:
        json.dump(doc, fh, indent=1)

    by_method: dict[str, list[dict]] = {}
    for r in main:
        by_method.setdefault(r["method"], []).append(r)
    # failures at any seed count; each failing check is listed once, by its first failing record, with the
    # seeds at which it does not pass
    fail_seeds: dict[str, list] = {}
    for r in records:
        if _status(r) != "PASS":
            fail_seeds.setdefault(_anchor(r), []).append(r.get("seed", 0))
    bad, known, seen = [], [], set()
    for r in records:
        if _anchor(r) in seen or _status(r) == "PASS":
            continue
        seen.add(_anchor(r))
        r = next((x for x in records if _anchor(x) == _anchor(r) and _status(x) in ("FAIL", "XPASS")), r)
        r["_fail_seeds"] = fail_seeds[_anchor(r)]
        (bad if _status(r) in ("FAIL", "XPASS") else known).append(r)
    with open(os.path.join(out, "report.md"), "w") as fh:
        fh.write("\n".join(_report_md(records, main, by_method, bad, known, summary, env, multi, not_run)) + "\n")
    with open(os.path.join(out, "index.html"), "w") as fh:
        fh.write("\n".join(_report_html(records, main, by_method, bad, known, summary, env, multi, not_run)))
    return summary


def _seeds_note(r: dict, seeds: list) -> str:
    fs = r.get("_fail_seeds") or [r.get("seed", 0)]
    return " (at every seed)" if len(fs) == len(seeds) else \
        f" (at seed{'s' if len(fs) > 1 else ''} {', '.join(map(str, fs))} of {', '.join(map(str, seeds))})"


def _load_note(env: dict) -> str:
    load, cpus = env.get("load_average"), env.get("cpus")
    if not load or not cpus or max(load[1], load[2]) <= cpus:
        return ""
    return (f" The machine was loaded (load average {load[1]:.1f} over 5 minutes on {cpus} CPUs), so these times "
            "are inflated.")


def _headline(summary: dict, env: dict) -> str:
    s = summary
    parts = [f"{s['passed']} of {s['checks']} checks passed"]
    if s["known_failures"]:
        parts.append(f"{s['known_failures']} known failure(s)")
    if s["failed"]:
        parts.append(f"{s['failed']} FAILED")
    if s["xpass"]:
        parts.append(f"{s['xpass']} XPASS")
    if s.get("not_run_slow"):
        parts.append(f"{s['not_run_slow']} not run (slow)")
    seed = (f"seed {s['seeds'][0]} in detail; verdicts for seeds {', '.join(map(str, s['seeds']))} in the seed table"
            if s.get("seeds") else f"seed {env['seed']}")
    thr = (env.get("threads") or {}).get("requested")
    resumed = (f" {env['resumed']} of these results were taken from the checkpoint of an earlier run in which each "
               "check's own code (the files it imports) and the numerical stack were the same (--resume), with "
               "their own times."
               if env.get("resumed") else "")
    return (", ".join(parts) + f" in {s['seconds']:.1f} s ({env['profile']} profile, {seed}, executor "
            f"{env['executor']}{', ' + str(thr) + ' thread(s)' if thr else ''}, Python {env['python']}, {env['date']})."
            + resumed)


def verdict_text(summary: dict) -> str:
    """One line: ``Verdict: OK`` or ``Verdict: FAILED (why)`` for a run's summary."""
    if summary["ok"]:
        return "Verdict: OK" + (" (only declared known failures fail)" if summary["known_failures"] else "")
    why = []
    if summary.get("seeds"):
        n = len(summary.get("failing_any_seed", []))
        if n:
            why.append(f"{n} check(s) FAIL or XPASS at some seed")
    else:
        if summary["failed"]:
            why.append(f"{summary['failed']} unexpected failure(s)")
        if summary["xpass"]:
            why.append(f"{summary['xpass']} known failure(s) that now pass (XPASS)")
    if summary.get("unstable"):
        why.append(f"{len(summary['unstable'])} check(s) whose verdict differs across seeds")
    if summary["declaration_errors"]:
        why.append("errors in known_failures.toml")
    if not summary["checks"]:
        why.append("no checks ran")
    return "Verdict: FAILED (" + "; ".join(why) + ")"


def _method_rows(by_method: dict) -> list[tuple]:
    rows = []
    for m, rs in by_method.items():
        st = [_status(r) for r in rs]
        rows.append((m, len(rs), st.count("PASS"), st.count("FAIL (known)"), st.count("FAIL"), st.count("XPASS"),
                     sum(r["seconds"] for r in rs)))
    return rows


def _seeds_md(tab: dict) -> list[str]:
    seeds = tab["seeds"]
    md = ["# Verdict per check and master seed", "",
          "Each cell: verdict and the deciding statistic. A check whose verdict differs across seeds is flagged.", "",
          "| check | " + " | ".join(f"seed {s}" for s in seeds) + " | same verdict |",
          "|---|" + "---|" * (len(seeds) + 1)]
    for row in tab["checks"]:
        cells = []
        for s in seeds:
            v = row["per_seed"].get(str(s))
            cells.append(f"{v['status']} {_num(v['statistic'])}" if v else "-")
        md.append(f"| {row['check']} | " + " | ".join(cells) + f" | {'yes' if row['stable'] else '**NO**'} |")
    unstable = [r["check"] for r in tab["checks"] if not r["stable"]]
    md += ["", f"{len(unstable)} of {len(tab['checks'])} checks change verdict across seeds"
           + (": " + ", ".join(unstable) if unstable else ".")]
    return md


# --------------------------------------------------------------------------------------------------
# claims and checks not run

def fmt_effect(e: dict | None, with_power: bool = True) -> str:
    """``estimate [lo, hi]`` (the ``1 - 2 alpha`` interval) with p and power, for a claim's effect summary."""
    if not e:
        return "-"
    lvl = e.get("ci_level")
    out = f"{_num(e['estimate'])} [{_num(e['ci'][0])}, {_num(e['ci'][1])}]"
    extra = []
    if lvl:
        extra.append(f"{lvl:.0%} CI")
    if e.get("p_value") is not None:
        extra.append(f"p {_num(e['p_value'])}")
    if with_power and e.get("power") is not None:
        extra.append(f"power {_num(e['power'])} at {_num(e['min_effect'])}")
    return out + (f" ({', '.join(extra)})" if extra else "")


def claim_verdict_text(rec: dict) -> str:
    """The claim's verdict in words: reproduced / not reproduced / inconclusive / control failed (+ known)."""
    c = rec.get("claim") or {}
    if rec.get("error"):
        return "error (the check raised)"
    if not c.get("control_passed"):
        return "control failed: the experiment cannot see the effect"
    v = c.get("verdict", "?")
    return v + (" (known)" if _status(rec) == "FAIL (known)" else "")


def _claim_rows(main: list[dict]) -> list[dict]:
    rows = []
    for r in main:
        c = r.get("claim")
        if not c:
            continue
        rows.append({"check": _anchor(r), "claim": c.get("claim", r["guarantee"]),
                     "paper_number": (c.get("paper_setting", "") + ": " if c.get("paper_setting") else "")
                     + c.get("paper_number", ""),
                     "ours": fmt_effect(c.get("effect")), "positive control": fmt_effect(c.get("control_effect")),
                     "verdict": claim_verdict_text(r), "status": _status(r)})
    return rows


def _not_run_text(not_run) -> tuple[list[str], int]:
    """(keys of the slow checks not run, count of the other checks not run)."""
    slow = [x["check"] for x in not_run if x.get("reason") == "slow"]
    return slow, len(not_run) - len(slow)


def not_run_console(not_run) -> str:
    """Console lines listing the checks that did not run at this profile (empty when none)."""
    slow, other = _not_run_text(not_run or [])
    lines = []
    if slow:
        lines.append(f"not run (slow): {len(slow)} check(s), run them with --profile full or --only METHOD.CHECK: "
                     + ", ".join(slow))
    kinds = {}
    for x in not_run or []:
        if x.get("reason") != "slow":
            kinds[x["reason"]] = kinds.get(x["reason"], 0) + 1
    for k, n in kinds.items():
        lines.append(f"not run at this profile ({'claim checks: --profile claims' if k == 'claim' else 'ordinary checks: --profile quick'}): {n}")
    return "\n".join(lines)


def _claim_detail_rows(c: dict) -> list[tuple[str, str, str]]:
    e, k = c.get("effect") or {}, c.get("control_effect") or {}

    def g(d, key, fmt=_num):
        v = d.get(key)
        return "-" if v is None else fmt(v)

    ci = lambda d: f"[{_num(d['ci'][0])}, {_num(d['ci'][1])}]" if d.get("ci") else "-"  # noqa: E731
    return [("what", e.get("what", "") or "-", k.get("what", "") or "-"),
            ("estimate", g(e, "estimate"), g(k, "estimate")), ("SE", g(e, "se"), g(k, "se")),
            (f"{e.get('ci_level', 0.9):.0%} interval", ci(e), ci(k)),
            ("one-sided bound (claimed direction: " + str(e.get("direction", "greater")) + ")", g(e, "bound"),
             g(k, "bound")),
            ("p-value (one-sided)", g(e, "p_value"), g(k, "p_value")),
            ("smallest effect of interest", g(e, "min_effect"), g(k, "min_effect")),
            ("power at it", g(e, "power"), g(k, "power")), ("n", g(e, "n", str), g(k, "n", str)),
            ("verdict", g(e, "verdict", str), g(k, "verdict", str) + (" (passes)" if c.get("control_passed")
                                                                       else " (FAILS: needs reproduced, power >= 0.8)"))]


def _report_md(records, main, by_method, bad, known, summary, env, multi, not_run=()) -> list[str]:
    seeds = _seeds_of(records)
    md = [f"# iclr26sci validation report ({env['profile']} profile)", "", _headline(summary, env), "",
          f"**{verdict_text(summary)}**", "",
          "| method | checks | passed | known failures | failed | XPASS | seconds |", "|---|---|---|---|---|---|---|"]
    for m, n, p, k, f, x, sec in _method_rows(by_method):
        md.append(f"| {m} | {n} | {p} | {k} | {f} | {x} | {sec:.1f} |")
    crows = _claim_rows(main)
    if crows:
        md += ["", "## Claims", "", "Each claim with its positive control (the same experiment with the paper's mechanism "
               "made to matter); intervals at the one-sided test's level.", "",
               "| check | claim | paper's number | ours | positive control | verdict |", "|---|---|---|---|---|---|"]
        for row in crows:
            md.append(f"| [{row['check']}](#{row['check'].replace('.', '-')}) | {_md_cell(row['claim'])} | "
                      f"{_md_cell(row['paper_number'])} | {_md_cell(row['ours'])} | "
                      f"{_md_cell(row['positive control'])} | {_md_cell(row['verdict'])} |")
    slow_nr, other_nr = _not_run_text(not_run)
    if slow_nr or other_nr:
        md += ["", "## Not run at this profile", ""]
        if slow_nr:
            md += [f"Not run (slow): {len(slow_nr)} check(s) (run at `--profile full`, or one by one with "
                   "`--only METHOD.CHECK`): " + ", ".join(f"`{k}`" for k in slow_nr) + "."]
        if other_nr:
            md += ["", f"{other_nr} other check(s) belong to another profile (quick: ordinary checks; claims: claim "
                   "checks)."]
    if summary["declaration_errors"]:
        md += ["", "## Errors in validation/known_failures.toml", ""] + [f"- {e}" for e in summary["declaration_errors"]]
    if bad:
        md += ["", "## Failing checks", ""]
        for r in bad:
            d = r.get("deciding") or deciding_criterion(r)
            seed = _seeds_note(r, seeds) if multi else ""
            md.append(f"- [{_anchor(r)}](#{r['method']}-{r['name']}){seed}: {_status_md(r)}: "
                      f"{_md_cell(_decided(d))}")
    if known:
        md += ["", "## Known failures (declared in validation/known_failures.toml)", ""]
        for r in known:
            md.append(f"- {_anchor(r)}: {_reason(r)} (declared {r['known_failure']['date']})")
    md += ["", "## Slowest checks", "",
           "Budget: the check's quick-profile wall-clock budget on 2 cores. Going over it is a warning, not a failure."
           + _load_note(env),
           "", "| check | seconds | budget | |", "|---|---|---|---|"]
    for s in slowest(records):
        md.append(f"| {s['check']} | {s['seconds']:.1f} | {_num(s['budget'])} | {'**over budget**' if s['over_budget'] else ''} |")
    if multi:
        md += [""] + ["#" + line if line.startswith("# ") else line for line in _seeds_md(seed_table(records))]
    for m, rs in by_method.items():
        md += ["", f"## {m}: {METHODS.get(m, ('', m))[1]}", "",
               "| check | guarantee | statistic | threshold | result | seconds |", "|---|---|---|---|---|---|"]
        for r in rs:
            d = r.get("deciding") or deciding_criterion(r)
            crit = f" ({_md_cell(d['name'])})" if d.get("name") else ""
            md.append(f"| {r['name']} | {_md_cell(r['guarantee'])} | {_num(d['statistic'])}{crit} | {_thr(d)} | "
                      f"{_status_md(r)} | {r['seconds']:.1f} |")
            for c in r.get("criteria") or []:
                md.append(f"| &nbsp;&nbsp;↳ {_md_cell(c['name'])} | | {_num(c['statistic'])} | {_thr(c)} | "
                          f"{'PASS' if c['passed'] else '**FAIL**'} | |")
        for r in rs:
            md += ["", f"### {r['name']}", "", f"<a id='{r['method']}-{r['name']}'></a>", "",
                   f"*Guarantee.* {r['guarantee']} ({r['paper']})", "", f"*Result.* {_status_md(r)}", ""]
            if r.get("claim"):
                c = r["claim"]
                md += [f"*Paper.* {_md_cell(c.get('paper_setting', ''))}: {_md_cell(c.get('paper_number', ''))}. "
                       f"*Regime.* {_md_cell(c.get('regime', ''))} *Positive control.* {_md_cell(c.get('control', ''))} "
                       f"*Test.* {_md_cell(c.get('test', ''))}", "", f"*Verdict.* {claim_verdict_text(r)} "
                       f"({_md_cell(c.get('reason', ''))})", "",
                       "| | claim | positive control |", "|---|---|---|"]
                md += [f"| {_md_cell(a)} | {_md_cell(b)} | {_md_cell(d)} |" for a, b, d in _claim_detail_rows(c)] + [""]
            if r.get("declaration_refused"):
                md += [f"*Declaration refused.* {r['declaration_refused']}", ""]
            if r["details"]:
                md += [r["details"], ""]
            if r.get("error"):
                md += [f"Error: `{r['error']}`", ""]
            if r.get("criteria"):
                md += [_table_md([{"criterion": c["name"], "statistic": c["statistic"], "threshold": _thr(c),
                                   "verdict": "PASS" if c["passed"] else "FAIL"} for c in r["criteria"]]), ""]
            if r.get("table"):
                md += [_table_md(r["table"]), ""]
            if r.get("figure"):
                md += [f"![{r['name']}]({r['figure']})", ""]
            if r.get("figure_issues"):
                md += ["*Figure issues (automatic check):* " + "; ".join(r["figure_issues"]), ""]
    md += ["", "## Environment", "", "```", json.dumps(env, indent=1), "```"]
    return md


def _report_html(records, main, by_method, bad, known, summary, env, multi, not_run=()) -> list[str]:
    seeds = _seeds_of(records)
    e = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'>"
             "<meta name='viewport' content='width=device-width, initial-scale=1'>"
             "<title>iclr26sci validation</title><style>" + _CSS + "</style></head><body>",
             f"<h1>iclr26sci validation report ({e(env['profile'])} profile)</h1>",
             f"<p>{e(_headline(summary, env))}</p>",
             f"<div class='banner {'ok' if summary['ok'] else 'bad'}'>{e(verdict_text(summary))}</div>",
             "<h2 id='summary'>Summary</h2>",
             "<table><tr><th>method</th><th>checks</th><th>passed</th><th>known failures</th><th>failed</th>"
             "<th>XPASS</th><th>seconds</th></tr>"]
    tot = [0, 0, 0, 0, 0, 0.0]
    for m, n, p, k, f, x, sec in _method_rows(by_method):
        for i, v in enumerate((n, p, k, f, x, sec)):
            tot[i] += v
        parts.append(f"<tr><td><a href='#{e(m)}'>{e(m)}</a></td><td class='num'>{n}</td><td class='num'>{p}</td>"
                     f"<td class='num{' known' if k else ''}'>{k}</td><td class='num{' fail' if f else ''}'>{f}</td>"
                     f"<td class='num{' xpass' if x else ''}'>{x}</td><td class='num'>{sec:.1f}</td></tr>")
    parts.append(f"<tr><th>all</th>" + "".join(f"<th class='num'>{v}</th>" for v in tot[:5])
                 + f"<th class='num'>{tot[5]:.1f}</th></tr></table>")
    crows = _claim_rows(main)
    if crows:
        parts.append("<h2 id='claims'>Claims</h2><p class='note'>Each claim beside its positive control (the same "
                     "experiment with the paper's mechanism made to matter). Intervals at the one-sided test's level; "
                     "verdict by the machinery: reproduced (bound excludes 0), not reproduced (powered null), "
                     "inconclusive (under-powered: a failure); the control must be reproduced with power &ge; 0.8.</p>"
                     "<div class='scroll'><table><tr><th>check</th><th>claim</th><th>paper's number</th><th>ours</th>"
                     "<th>positive control</th><th>verdict</th></tr>")
        cls = {"PASS": "pass", "FAIL": "fail", "FAIL (known)": "known", "XPASS": "xpass"}
        for row in crows:
            parts.append(f"<tr><td><a href='#{e(row['check'])}'>{e(row['check'])}</a></td>"
                         f"<td class='guarantee'>{e(row['claim'])}</td><td>{e(row['paper_number'])}</td>"
                         f"<td>{e(row['ours'])}</td><td>{e(row['positive control'])}</td>"
                         f"<td class='{cls.get(row['status'], 'fail')}'>{e(row['verdict'])}</td></tr>")
        parts.append("</table></div>")
    slow_nr, other_nr = _not_run_text(not_run)
    if slow_nr or other_nr:
        parts.append("<h2 id='not-run'>Not run at this profile</h2>")
        if slow_nr:
            parts.append(f"<p class='warn'><b>Not run (slow): {len(slow_nr)} check(s)</b> (run at --profile full, "
                         "or one by one with --only METHOD.CHECK):</p><ul>"
                         + "".join(f"<li>{e(k)}</li>" for k in slow_nr) + "</ul>")
        if other_nr:
            parts.append(f"<p class='note'>{other_nr} other check(s) belong to another profile (quick: ordinary "
                         "checks; claims: claim checks).</p>")
    if summary["declaration_errors"]:
        parts.append("<h2>Errors in validation/known_failures.toml</h2><ul>"
                     + "".join(f"<li class='fail'>{e(x)}</li>" for x in summary["declaration_errors"]) + "</ul>")
    if bad or known:
        parts.append("<h2 id='failing'>Failing checks</h2><ul class='failing'>")
        for r in bad + known:
            d = r.get("deciding") or deciding_criterion(r)
            seed = _seeds_note(r, seeds) if multi else ""
            parts.append(f"<li>{_status_html(r, with_reason=False)} <a href='#{e(_anchor(r))}'>{e(_anchor(r))}</a>"
                         f"{e(seed)}: {e(_decided(d))}"
                         + (f" <span class='reason'>({e(_reason(r))})</span>"
                            if _status(r) == "FAIL (known)" else "")
                         + (" <span class='reason'>(declared a known failure but passed: remove the declaration)</span>"
                            if _status(r) == "XPASS" else "") + "</li>")
        parts.append("</ul>")
    sl = slowest(records)
    parts.append("<h2 id='slowest'>Slowest checks</h2><p class='note'>Budget: the check's quick-profile wall-clock "
                 "budget on 2 cores. Going over it is a warning, not a failure."
                 + (" Seconds: the largest over the seeds." if multi else "") + e(_load_note(env)) + "</p>"
                 "<table><tr><th>check</th><th>seconds</th><th>budget</th><th></th></tr>")
    for s in sl:
        parts.append(f"<tr><td><a href='#{e(s['check'])}'>{e(s['check'])}</a></td><td class='num'>{s['seconds']:.1f}</td>"
                     f"<td class='num'>{_num(s['budget'])}</td>"
                     f"<td class='warn'>{'over budget (warning)' if s['over_budget'] else ''}</td></tr>")
    parts.append("</table>")
    if summary["over_budget"]:
        parts.append(f"<p class='warn'>{len(summary['over_budget'])} check(s) over their time budget (a warning, not "
                     f"a failure): {e(', '.join(summary['over_budget']))}</p>")
    if multi:
        parts += _seeds_html(seed_table(records))
    for m, rs in by_method.items():
        parts.append(f"<h2 id='{e(m)}'>{e(m)}: {e(METHODS.get(m, ('', m))[1])}</h2>")
        parts.append("<div class='scroll'><table><tr><th>check</th><th>guarantee</th><th>statistic</th>"
                     "<th>threshold</th><th>result</th><th>s</th></tr>")
        for r in rs:
            d = r.get("deciding") or deciding_criterion(r)
            crit = (f"<br><span class='note'>{e('holds; failed by an unreported criterion' if d['name'] == UNREPORTED else d['name'])}</span>"
                    if d.get("name") else "")
            parts.append(f"<tr><td><a href='#{e(_anchor(r))}'>{e(r['name']).replace('_', '_<wbr>')}</a></td>"
                         f"<td class='guarantee'>{e(r['guarantee'])}</td><td class='num'>{_num(d['statistic'])}{crit}</td>"
                         f"<td class='num'>{e(_thr(d))}</td><td>{_status_html(r)}</td>"
                         f"<td class='num'>{r['seconds']:.1f}</td></tr>")
            for c in r.get("criteria") or []:
                parts.append(f"<tr class='sub'><td class='crit' colspan='2'>&#8627; {e(c['name'])}</td>"
                             f"<td class='num'>{_num(c['statistic'])}</td><td class='num'>{e(_thr(c))}</td>"
                             f"<td class='{'pass' if c['passed'] else 'fail'}'>{'PASS' if c['passed'] else 'FAIL'}</td>"
                             f"<td></td></tr>")
        parts.append("</table></div>")
        for r in rs:
            parts.append(f"<h3 id='{e(_anchor(r))}'>{e(r['name'])} &nbsp;{_status_html(r, with_reason=False)}</h3>")
            parts.append(f"<p><em>Guarantee.</em> {e(r['guarantee'])} ({e(r['paper'])})</p>")
            if _status(r) == "FAIL (known)":
                kf = r["known_failure"]
                parts.append(f"<p class='kfbox'><b>Known failure</b> (declared {e(str(kf.get('date', '')))} in "
                             f"validation/known_failures.toml): {e(_reason(r))}</p>")
            elif _status(r) == "XPASS":
                parts.append("<p class='kfbox'><b>XPASS</b>: declared a known failure in "
                             "validation/known_failures.toml, but it passed: remove the declaration.</p>")
            if r.get("claim"):
                c = r["claim"]
                parts.append(f"<p><em>Paper.</em> {e(c.get('paper_setting', ''))}: {e(c.get('paper_number', ''))}. "
                             f"<em>Regime.</em> {e(c.get('regime', ''))} <em>Positive control.</em> "
                             f"{e(c.get('control', ''))} <em>Test.</em> {e(c.get('test', ''))}</p>"
                             f"<p><b>Verdict: {e(claim_verdict_text(r))}</b> <span class='note'>"
                             f"({e(c.get('reason', ''))})</span></p>"
                             "<table><tr><th></th><th>claim</th><th>positive control</th></tr>"
                             + "".join(f"<tr><td>{e(a)}</td><td class='num'>{e(b)}</td><td class='num'>{e(d)}</td></tr>"
                                       for a, b, d in _claim_detail_rows(c)) + "</table>")
            if r.get("declaration_refused"):
                parts.append(f"<p class='kfbox'><b>Declaration refused</b>: {e(r['declaration_refused'])}</p>")
            if r["details"]:
                parts.append(f"<p>{e(r['details'])}</p>")
            if r.get("error"):
                parts.append(f"<pre class='fail'>{e(r['error'])}</pre>")
            if r.get("criteria"):
                parts.append("<table><tr><th>criterion</th><th>statistic</th><th>threshold</th><th>verdict</th></tr>"
                             + "".join(f"<tr><td>{e(c['name'])}</td><td class='num'>{_num(c['statistic'])}</td>"
                                       f"<td class='num'>{e(_thr(c))}</td><td class='{'pass' if c['passed'] else 'fail'}'>"
                                       f"{'PASS' if c['passed'] else 'FAIL'}</td></tr>" for c in r["criteria"])
                             + "</table>")
            if r.get("table"):
                parts.append(_table_html(r["table"]))
            if r.get("figure_png"):
                parts.append(f"<div class='figure'><img alt='figure of {e(r['name'])}' "
                             f"src='data:image/png;base64,{r['figure_png']}'>")
                if r.get("figure_issues"):
                    parts.append("<div class='issues'><b>Figure issues</b> (automatic check)<ul>"
                                 + "".join(f"<li>{e(i)}</li>" for i in r["figure_issues"]) + "</ul></div>")
                parts.append("</div>")
            parts.append("<p class='note'><a href='#summary'>back to the summary</a></p>")
    parts.append("<h2 id='environment'>Environment</h2><pre>" + e(json.dumps(env, indent=1)) + "</pre></body></html>")
    return parts


def _seeds_html(tab: dict) -> list[str]:
    e = html.escape
    seeds = tab["seeds"]
    unstable = [r["check"] for r in tab["checks"] if not r["stable"]]
    parts = ["<h2 id='seeds'>Verdict per master seed</h2>",
             f"<p>{len(unstable)} of {len(tab['checks'])} checks change verdict across seeds "
             f"{e(', '.join(map(str, seeds)))}" + (": " + e(", ".join(unstable)) if unstable else "") + ".</p>",
             "<div class='scroll'><table><tr><th>check</th>" + "".join(f"<th>seed {s}</th>" for s in seeds)
             + "<th>same verdict</th></tr>"]
    cls = {"PASS": "pass", "FAIL": "fail", "FAIL (known)": "known", "XPASS": "xpass"}
    for row in tab["checks"]:
        cells = []
        for s in seeds:
            v = row["per_seed"].get(str(s))
            cells.append(f"<td><span class='{cls[v['status']]}'>{e(v['status'])}</span> "
                         f"{_num(v['statistic'])}</td>" if v else "<td></td>")
        parts.append(f"<tr><td><a href='#{e(row['check'])}'>{e(row['check'])}</a></td>" + "".join(cells)
                     + (f"<td class='pass'>yes</td>" if row["stable"] else "<td class='fail'>NO</td>") + "</tr>")
    parts.append("</table></div>")
    return parts
