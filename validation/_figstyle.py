"""Shared styling of the validation report's figures: fonts readable in the HTML report.

The report (``validation.report.render_figure``) saves every figure at 90 dpi with a tight bounding box and
shows it at most 1180 px wide (the page's ``max-width``). A figure wider than about 13 inches is therefore
scaled down on the page, and a 7-point label on it becomes unreadable. Two rules keep text readable:

* build figures no wider than :data:`MAX_WIDTH_IN` inches (wrap panels onto a second row instead);
* call :func:`readable` on the finished figure: it raises every text (titles, axis labels, tick labels,
  legends, colour-bar labels, annotations) to at least :data:`MIN_FONT` points (11 pt is 13.75 px at 90 dpi)
  and re-runs the layout.

:func:`subplots` is :func:`matplotlib.pyplot.subplots` on the Agg backend with the report's font sizes.
"""
from __future__ import annotations

__all__ = ["MIN_FONT", "MAX_WIDTH_IN", "subplots", "readable", "band"]

#: smallest font size (points) of any text in a report figure; 11 pt = 13.75 px at the report's 90 dpi
MIN_FONT = 11.0
#: widest figure (inches) shown unscaled in the report: 1180 px page width / 90 dpi
MAX_WIDTH_IN = 13.0

_RC = {"font.size": 12, "axes.titlesize": 12, "axes.labelsize": 12, "xtick.labelsize": 11,
       "ytick.labelsize": 11, "legend.fontsize": 11, "figure.titlesize": 13}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def subplots(nrows: int = 1, ncols: int = 1, *, figsize=(6.0, 4.0), **kw):
    """``plt.subplots`` with the report's font sizes; the width is capped at :data:`MAX_WIDTH_IN`.

    Examples
    --------
    >>> fig, ax = subplots(figsize=(20, 3))
    >>> float(round(fig.get_figwidth(), 1))
    13.0
    >>> _plt().close(fig)
    """
    plt = _plt()
    w, h = figsize
    if w > MAX_WIDTH_IN:
        w, h = MAX_WIDTH_IN, h * MAX_WIDTH_IN / w
    with plt.rc_context(_RC):
        return plt.subplots(nrows, ncols, figsize=(w, h), **kw)


def readable(fig, min_size: float = MIN_FONT, *, layout: bool = True):
    """Raise every text of ``fig`` to at least ``min_size`` points and (optionally) re-run ``tight_layout``.

    Tick labels are raised through ``tick_params`` as well, so ticks created later (at draw time) inherit
    the size. Returns ``fig``.

    Examples
    --------
    >>> fig, ax = subplots()
    >>> _ = ax.plot([0, 1], [0, 1]); _ = ax.set_title("t", fontsize=6)
    >>> readable(fig).axes[0].title.get_fontsize() >= MIN_FONT
    True
    >>> _plt().close(fig)
    """
    from matplotlib.text import Text

    for ax in fig.axes:
        for which in ("x", "y"):
            labels = getattr(ax, f"get_{which}ticklabels")()
            size = max([t.get_fontsize() for t in labels] + [min_size])
            ax.tick_params(axis=which, which="both", labelsize=max(size, min_size))
    for t in fig.findobj(Text):
        if t.get_fontsize() < min_size:
            t.set_fontsize(min_size)
    if layout and not fig.get_constrained_layout():
        try:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fig.tight_layout()
        except Exception:  # a layout the tight engine cannot handle keeps its own
            pass
    return fig


def band(ax, x, mean, se, *, z: float = 1.96, label: str | None = None, color=None, marker: str = "o",
         ls: str = "-"):
    """Plot ``mean`` against ``x`` with a ``mean +- z se`` band (95% for the default z). Returns the line.

    Examples
    --------
    >>> fig, ax = subplots()
    >>> ln = band(ax, [0, 1, 2], [1.0, 2.0, 3.0], [0.1, 0.1, 0.2], label="m")
    >>> ln.get_label()
    'm'
    >>> _plt().close(fig)
    """
    import numpy as np

    x, mean, se = (np.asarray(v, dtype=float) for v in (x, mean, se))
    (ln,) = ax.plot(x, mean, marker=marker, ls=ls, color=color, label=label, ms=4)
    ax.fill_between(x, mean - z * se, mean + z * se, color=ln.get_color(), alpha=0.2, lw=0)
    return ln
