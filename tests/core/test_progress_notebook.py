"""Progress bars show in a Jupyter kernel (tqdm.auto draws a widget there), not only at a terminal, and stay
silent under CI whatever the front end."""
from __future__ import annotations

import sys
import types

from iclr26sci.core import progress, progress_enabled


class ZMQInteractiveShell:  # the class name ipykernel's shell has
    pass


def _fake_kernel(monkeypatch, shell):
    ipy = types.ModuleType("IPython")
    ipy.get_ipython = lambda: shell
    monkeypatch.setitem(sys.modules, "IPython", ipy)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))


def test_bars_show_in_a_notebook_kernel(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("ICLR26SCI_NO_PROGRESS", raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    _fake_kernel(monkeypatch, ZMQInteractiveShell())
    assert progress_enabled()
    bar = progress(range(3), desc="x")
    assert list(bar) == [0, 1, 2] and bar is not range(3)


def test_no_bar_in_a_plain_ipython_terminal_without_tty(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("ICLR26SCI_NO_PROGRESS", raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    _fake_kernel(monkeypatch, object())          # a shell that is not a kernel's
    assert not progress_enabled()


def test_ci_silences_the_notebook_too(monkeypatch):
    monkeypatch.setenv("CI", "1")
    _fake_kernel(monkeypatch, ZMQInteractiveShell())
    assert not progress_enabled()
    r = range(3)
    assert progress(r) is r
