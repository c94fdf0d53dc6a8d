"""A small subprocess sandbox for running model-written Python (programme-of-thought, unit tests).

Used by ``scripts/build_agents_bench.py`` to execute the Programmer and Test operators and to grade HumanEval
solutions. It isolates by process, not by security boundary: each snippet runs in a fresh ``python -I``
(isolated mode: no user site, no environment variables, no current directory on ``sys.path``) in a temporary
working directory, with a wall-clock timeout and POSIX resource limits (address space, CPU seconds, file size,
no core dumps). Do not run untrusted code you would not run on your own account.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from iclr26sci.core import InputError, check_in_range

__all__ = ["SandboxResult", "run_python"]


@dataclass(frozen=True)
class SandboxResult:
    """Outcome of :func:`run_python`: ``ok`` (exit status 0, no timeout), ``stdout``, ``stderr``, ``timed_out``."""

    ok: bool
    stdout: str
    stderr: str
    timed_out: bool

    def __repr__(self):
        return f"SandboxResult(ok={self.ok}, timed_out={self.timed_out}, stdout={self.stdout[:40]!r})"


def _limits(mem_bytes, cpu_s):
    def apply():                                   # runs in the child before exec
        import resource

        for lim, val in ((resource.RLIMIT_AS, mem_bytes), (resource.RLIMIT_CPU, cpu_s),
                         (resource.RLIMIT_FSIZE, 1 << 20), (resource.RLIMIT_CORE, 0)):
            try:
                resource.setrlimit(lim, (val, val))
            except (ValueError, OSError):          # pragma: no cover - platform without that limit
                pass
    return apply


def run_python(code: str, timeout: float = 3.0, memory_mb: int = 512) -> SandboxResult:
    """Run ``code`` in a fresh isolated Python process with a timeout and resource limits.

    Parameters
    ----------
    code : str
        Python source (standard library only is guaranteed: the child runs with ``-I``).
    timeout : float
        Wall-clock limit in seconds (the CPU limit is ``ceil(timeout) + 1``).
    memory_mb : int
        Address-space limit of the child in MiB.

    Returns
    -------
    SandboxResult

    Examples
    --------
    >>> from iclr26sci.agents._sandbox import run_python
    >>> r = run_python("print(6 * 7)")
    >>> r.ok, r.stdout.strip()
    (True, '42')
    >>> run_python("while True: pass", timeout=0.5).timed_out
    True
    """
    if not isinstance(code, str):
        raise InputError("code", f"got {type(code).__name__}", "Python source as a string")
    timeout = check_in_range(timeout, "timeout", 0.0, 600.0, low_open=True)
    if not isinstance(memory_mb, int) or memory_mb < 64:
        raise InputError("memory_mb", f"got {memory_mb!r}", "an integer >= 64")
    pre = _limits(memory_mb << 20, int(timeout) + 2) if os.name == "posix" else None
    with tempfile.TemporaryDirectory(prefix="iclr26sci-sbx-") as tmp:
        try:
            p = subprocess.run([sys.executable, "-I", "-c", code], cwd=tmp, capture_output=True, text=True,
                               timeout=timeout, preexec_fn=pre, env={"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            return SandboxResult(False, out[-4000:], "timeout", True)
    return SandboxResult(p.returncode == 0, p.stdout[-4000:], p.stderr[-4000:], False)
