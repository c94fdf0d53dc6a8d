"""tqdm progress bars (``tqdm.auto``: widgets in Jupyter, text on a terminal) that stay silent under CI.

:func:`progress` is what the library wraps around every loop that can take
more than a few seconds (cross-fitting folds, meta-training steps,
replicates, validation checks, first-use training of a cached model). It
shows a bar when a person is watching:

* at a terminal (stderr is a tty), or in a Jupyter / IPython kernel (a
  notebook, JupyterLab, VS Code), where ``tqdm.auto`` draws a widget;
* off a terminal and outside a notebook (stderr redirected to a file or a
  pipe, a dask or process-pool worker) nothing is printed;
* when the environment variable ``CI`` is set (GitHub Actions, GitLab and
  most CI services set it) or ``ICLR26SCI_NO_PROGRESS`` is set, nothing is
  printed either;
* ``enabled=True`` / ``False`` overrides the rule for one call.

When silent, :func:`progress` returns the iterable itself (no wrapper, no
tqdm import), so it costs one environment lookup and one ``isatty`` call:
well under a microsecond per loop, nothing per iteration.
"""
from __future__ import annotations

import os
import sys
from typing import Iterable

__all__ = ["progress", "progress_enabled", "resolve_progress"]


def _in_notebook() -> bool:
    """True inside a Jupyter kernel (the IPython shell of ``ipykernel``), without importing IPython."""
    ipy = sys.modules.get("IPython")
    if ipy is None or "ipykernel" not in sys.modules:
        return False
    try:
        shell = ipy.get_ipython()
    except Exception:  # noqa: BLE001 - any failure to ask means: not a notebook we can draw in
        return False
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def progress_enabled() -> bool:
    """True when a person is watching: stderr is a terminal or this is a Jupyter kernel, and neither ``CI`` nor
    ``ICLR26SCI_NO_PROGRESS`` is set.

    Examples
    --------
    >>> import os
    >>> os.environ["CI"] = "1"
    >>> progress_enabled()
    False
    >>> del os.environ["CI"]
    """
    if os.environ.get("CI") or os.environ.get("ICLR26SCI_NO_PROGRESS"):
        return False
    if _in_notebook():
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def progress(iterable: Iterable, *, desc: str = "", total: int | None = None, enabled: bool | None = None):
    """Wrap ``iterable`` in a tqdm bar (on stderr) when progress output is enabled.

    Parameters
    ----------
    iterable : iterable
        The loop to report on.
    desc : str
        Label shown left of the bar (e.g. ``"cross-fitting folds"``).
    total : int, optional
        Number of items when ``iterable`` has no ``len`` (a generator).
    enabled : bool, optional
        Force the bar on or off; ``None`` (default) applies
        :func:`progress_enabled`: on only at a terminal and outside CI.

    Returns
    -------
    iterable
        ``iterable`` itself when silent, else a tqdm wrapper over it.

    Examples
    --------
    >>> list(progress(range(3), desc="steps", enabled=False))
    [0, 1, 2]
    """
    if enabled is not None and not isinstance(enabled, bool):
        from ._errors import InputError

        raise InputError("enabled", f"got {enabled!r}", "True, False or None")
    if not hasattr(iterable, "__iter__"):
        from ._errors import InputError

        raise InputError("iterable", f"got {type(iterable).__name__}, which is not iterable", "an iterable to loop over")
    if total is not None and (isinstance(total, bool) or not isinstance(total, int) or total < 0):
        from ._errors import InputError

        raise InputError("total", f"got {total!r}", "a non-negative integer or None")
    if enabled is None:
        enabled = progress_enabled()
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False)


def resolve_progress(progress, **deprecated):
    """The value of a ``progress=`` flag, given the deprecated spellings ``show_progress=`` / ``progress_bar=``.

    The library's one flag for bars is ``progress`` (``None``: bars when a person is watching, see
    :func:`progress_enabled`; ``True`` / ``False``: force them on / off). Earlier releases also used
    ``show_progress`` and ``progress_bar``; they still work for one release, with a ``FutureWarning``.

    Parameters
    ----------
    progress : bool or None
        The value passed as ``progress=``.
    **deprecated
        The deprecated keywords as passed (``None`` when not given).

    Returns
    -------
    bool or None
        ``progress``, or the deprecated keyword's value when only that was given.

    Raises
    ------
    InputError
        When a value is not a bool or None, or when ``progress`` and a deprecated spelling disagree.

    Examples
    --------
    >>> resolve_progress(None, show_progress=None)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     resolve_progress(None, show_progress=False)
    False
    """
    from ._errors import InputError

    def _check(name, value):
        if value is not None and not isinstance(value, bool):
            try:
                import numpy as np

                if isinstance(value, np.bool_):
                    return bool(value)
            except ImportError:  # pragma: no cover - numpy is a core dependency
                pass
            raise InputError(name, f"got {value!r}", "True, False or None")
        return value

    progress = _check("progress", progress)
    for name, value in deprecated.items():
        value = _check(name, value)
        if value is None:
            continue
        import warnings

        warnings.warn(f"`{name}=` is deprecated and will be removed; use `progress=` (same meaning)",
                      FutureWarning, stacklevel=3)
        if progress is not None and progress != value:
            raise InputError(name, f"is {value} while progress={progress}", "one of them, not both")
        progress = value
    return progress
