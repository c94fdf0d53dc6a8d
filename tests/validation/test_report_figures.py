"""Every section of the validation report shows at least one figure, and figures use readable fonts.

The first test is static: it reads the check modules' source (no check runs) and follows, inside each
section's modules, which module-level functions a registered check refers to. A section passes when one of
its checks that runs at the quick or the claims profile (not a ``slow=True`` one) reaches a
``CheckResult(..., figure=...)`` / ``ClaimResult(..., figure=...)`` whose figure is not the constant None.
The second runs two cheap checks and looks at the figure they return.
"""
import ast
import functools
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from validation._figstyle import MIN_FONT  # noqa: E402
from validation.registry import METHODS, Profile, REGISTRY, load_checks  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECK_DECORATORS = {"check", "claim", "_claim"}


def _has_figure(fn):
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == "figure" and not (isinstance(kw.value, ast.Constant) and kw.value.value is None):
                    return True
    return False


def _refs(fn):
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)}


def _check_method(fn):
    """The section key of a registered quick/claims check function, or None (not a check, or ``slow=True``)."""
    for dec in fn.decorator_list:
        if isinstance(dec, ast.Call) and isinstance(dec.func, ast.Name) and dec.func.id in CHECK_DECORATORS:
            kw = {k.arg: k.value for k in dec.keywords}
            slow = kw.get("slow")
            if slow is not None and isinstance(slow, ast.Constant) and slow.value:
                return None
            m = kw.get("method")
            return m.value if isinstance(m, ast.Constant) else None
    return None


@functools.lru_cache(maxsize=None)
def _module_index(path):
    """(check function -> section, figure-producing function names) of one module: its own call graph closure."""
    tree = ast.parse(pathlib.Path(path).read_text())
    funcs = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    producers = {k for k, f in funcs.items() if _has_figure(f)}
    refs = {k: _refs(f) for k, f in funcs.items()}
    changed = True
    while changed:
        changed = False
        for k in funcs:
            if k not in producers and refs[k] & producers:
                producers.add(k)
                changed = True
    return {k: _check_method(f) for k, f in funcs.items()}, frozenset(producers)


def figure_checks(method):
    """Names of the section's quick/claims checks that (transitively, within their module) build a figure.

    Every ``validation/*.py`` is read; a check belongs to the section named by its decorator's ``method=``."""
    found = []
    for path in sorted((ROOT / "validation").glob("*.py")):
        sections, producers = _module_index(str(path))
        found += [k for k, m in sections.items() if m == method and k in producers]
    return sorted(found)


@pytest.mark.parametrize("method", METHODS)
def test_every_section_has_a_figure(method):
    found = figure_checks(method)
    assert found, f"section {method!r}: no quick or claims check returns a figure"


def test_static_scan_sees_the_known_cases():
    # a check with a figure, a claim whose figure is built in a helper, and a section split over modules
    assert "b6_bandit_reproduction" in figure_checks("rl")
    assert "relighting_generalisation" in figure_checks("ssdgs")
    assert "fashion_classifier_clean_accuracy" in figure_checks("nn")
    assert "noise_robustness" not in figure_checks("closedloop")      # slow=True: runs at the full profile only


def _fonts(fig):
    fig.canvas.draw()
    return [t.get_fontsize() for t in fig.findobj(Text) if t.get_text() and t.get_visible()]


@pytest.mark.parametrize("key", ["agents.c1_utility_algebra"])
def test_cheap_section_figures_are_readable(key):
    load_checks([key])
    spec = REGISTRY[key]
    res = spec.func(Profile("quick"), __import__("numpy").random.default_rng(0))
    fig = res.figure
    assert fig is not None
    from validation.report import inspect_figure

    try:
        assert min(_fonts(fig)) >= MIN_FONT
        assert fig.get_figwidth() <= 13.0 + 1e-9
        assert inspect_figure(fig, drawn=True) == []
    finally:
        plt.close(fig)
