"""A sandboxed runner for Python programs and their unit tests (HumanEval and any code + test).

Each program runs in a fresh ``python -I -B`` subprocess, in a temporary working folder that is
removed afterwards, under a wall-clock time limit, with resource limits and no network.

What is isolated, and how
-------------------------
=========================  ==================================================================
network                    **kernel-level** when ``unshare -n`` works on this machine (root, or
                           unprivileged user namespaces via ``unshare -r -n``): the child gets a
                           fresh network namespace whose only interface is a loopback that is
                           down, so no socket can reach this host or any other. In addition (and
                           as the only layer where ``unshare`` is unavailable) a Python-level
                           guard in the child replaces ``socket.socket``, ``_socket.socket``,
                           ``socket.create_connection``/``create_server``/``socketpair``/
                           ``fromfd`` and the name-resolution functions by stubs that raise
                           ``PermissionError``. :func:`network_isolation` says which applies.
time                       wall-clock limit enforced by the parent (the child's whole process
                           group is killed with SIGKILL), plus ``RLIMIT_CPU`` = ceil(timeout) + 1
                           CPU seconds in the child (SIGXCPU). Both report ``status="timeout"``.
memory                     ``RLIMIT_AS`` (address space) of ``memory_mb`` MiB; an allocation past
                           it raises ``MemoryError`` in the child (``status="error"``).
files                      the working folder and ``HOME``/``TMPDIR`` are the temporary folder,
                           removed afterwards; ``RLIMIT_FSIZE`` caps any file written (64 MiB);
                           ``RLIMIT_CORE`` = 0 (no core files); ``-B``: no ``.pyc`` written.
                           A Python-level guard refuses writes **outside** the temporary folder:
                           ``open``/``io.open`` in a writing mode, ``os.open`` with writing flags,
                           and ``os.remove``/``unlink``/``rename``/``replace``/``rmdir``/``mkdir``/
                           ``makedirs``/``chmod``/``chown``/``truncate``/``symlink``/``link``/
                           ``utime``, ``shutil.rmtree``/``move``/``copy*`` raise ``PermissionError``.
                           Reading files anywhere stays possible (imports need it).
processes                  a Python-level guard replaces ``os.system``, ``os.popen``, ``os.fork``,
                           ``os.forkpty``, the ``os.exec*``/``os.spawn*``/``os.posix_spawn*``
                           family, ``os.kill``/``killpg``, ``subprocess.Popen`` and
                           ``_posixsubprocess.fork_exec`` (so also ``multiprocessing``) by stubs
                           that raise ``PermissionError``. Stray processes are killed with the
                           process group at the end.
interpreter                ``python -I``: no ``PYTHON*`` environment variables, no user
                           site-packages, the script's folder not on ``sys.path``; a minimal
                           environment (``PATH``, ``HOME``, ``TMPDIR``, ``LANG``, one BLAS thread).
=========================  ==================================================================

What is **not** isolated: the Python-level guards stop accidents and naive code, not an adversary
(``ctypes``, ``_io.FileIO``, or the C modules can reach the operating system directly), and there is
no file-system namespace: a determined program can read any file the user can read and, without
the guard, write any file the user can write. Network isolation is kernel-enforced only when
:func:`network_isolation` returns ``"netns"``. For untrusted code from the internet use a container
or a virtual machine in addition.

Status of a run
---------------
``"passed"``: the program (code + test) ran to its end; ``"failed"``: it raised ``AssertionError``
(a unit test failed); ``"timeout"``: the wall-clock or CPU limit was hit; ``"error"``: any other
exception (``SyntaxError``, ``NameError``, ``MemoryError``, ...), ``SystemExit``, an exit before the
end (``os._exit``), or death by a signal. A program only passes if the runner reaches its end: an
early ``sys.exit(0)`` or ``os._exit(0)`` in a completion cannot fake a pass.
"""
from __future__ import annotations

import concurrent.futures
import functools
import json
import math
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from numbers import Real

from iclr26sci.core import InputError, check_positive_int, progress as _bar, resolve_progress

__all__ = ["SandboxResult", "run_python", "run_many", "run_humaneval", "run_humaneval_batch",
           "network_isolation", "SANDBOX_STATUSES"]

#: the four outcomes of a sandboxed run
SANDBOX_STATUSES = ("passed", "failed", "timeout", "error")
_TAIL = 2000                       # characters of stdout / stderr kept
_FSIZE = 64 * 2 ** 20              # RLIMIT_FSIZE: the largest file the child may write
_EXIT_FAILED, _EXIT_ERROR, _EXIT_SYSEXIT = 11, 12, 13

# The child's prelude: limits, guards, then the program. Kept free of f-strings of user data: the
# program is read from a file, the success token from stdin.
_RUNNER = r'''
import builtins, io, json, os, resource, sys, traceback
_cfg = json.loads(sys.argv[1])
_token = sys.stdin.readline().strip()
sys.stdin.close()
sys.stdin = io.StringIO("")
_real_exit, _real_open, _root = os._exit, builtins.open, os.path.realpath(_cfg["root"])

def _limit(which, soft, hard=None):
    try:
        resource.setrlimit(which, (soft, soft if hard is None else hard))
    except (ValueError, OSError):
        pass

_limit(resource.RLIMIT_CORE, 0)
_limit(resource.RLIMIT_CPU, _cfg["cpu"], _cfg["cpu"] + 1)
_limit(resource.RLIMIT_FSIZE, _cfg["fsize"])
if _cfg["mem"]:
    _limit(resource.RLIMIT_AS, _cfg["mem"])

def _deny(what):
    def stub(*args, **kwargs):
        raise PermissionError(what + " is disabled in the sandbox")
    return stub

# -- network
import socket, _socket
class _NoSocket:
    def __init__(self, *args, **kwargs):
        raise PermissionError("network access is disabled in the sandbox")
for _m in (socket, _socket):
    _m.socket = _NoSocket
    for _name in ("create_connection", "create_server", "socketpair", "fromfd", "getaddrinfo",
                  "gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo"):
        if hasattr(_m, _name):
            setattr(_m, _name, _deny("network access (" + _name + ")"))

# -- processes
import posix, subprocess, _posixsubprocess
for _m in (os, posix):
    for _name in ("system", "popen", "fork", "forkpty", "execv", "execve", "execl", "execle", "execlp",
                  "execlpe", "execvp", "execvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv",
                  "spawnve", "spawnvp", "spawnvpe", "posix_spawn", "posix_spawnp", "kill", "killpg"):
        if hasattr(_m, _name):
            setattr(_m, _name, _deny("starting or signalling processes (os." + _name + ")"))
class _NoPopen:
    def __init__(self, *args, **kwargs):
        raise PermissionError("starting processes (subprocess) is disabled in the sandbox")
subprocess.Popen = _NoPopen
_posixsubprocess.fork_exec = _deny("starting processes (fork_exec)")

# -- file writes outside the temporary folder
def _inside(path):
    if isinstance(path, int):
        return True
    p = os.path.realpath(os.fspath(path))
    return p == _root or p.startswith(_root + os.sep)

def _check(path, what):
    if not _inside(path):
        raise PermissionError(what + " outside the sandbox folder is disabled: " + repr(os.fspath(path)))

def _open(file, mode="r", *args, **kwargs):
    if any(c in mode for c in "wax+"):
        _check(file, "writing")
    return _real_open(file, mode, *args, **kwargs)
builtins.open = io.open = _open

_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
def _wrap(fn, positions, what):
    def guarded(*args, **kwargs):
        for i in positions:
            if i < len(args):
                _check(args[i], what)
        return fn(*args, **kwargs)
    return guarded
for _m in (os, posix):
    def _osopen(path, flags, *args, _f=_m.open, **kwargs):
        if flags & _WRITE:
            _check(path, "writing")
        return _f(path, flags, *args, **kwargs)
    _m.open = _osopen
    for _name, _pos in (("remove", (0,)), ("unlink", (0,)), ("rmdir", (0,)), ("mkdir", (0,)), ("rename", (0, 1)),
                        ("replace", (0, 1)), ("chmod", (0,)), ("chown", (0,)), ("lchown", (0,)), ("truncate", (0,)),
                        ("symlink", (1,)), ("link", (1,)), ("utime", (0,)), ("mkfifo", (0,)), ("mknod", (0,)),
                        ("removedirs", (0,)), ("makedirs", (0,)), ("renames", (0, 1))):
        if hasattr(_m, _name):
            setattr(_m, _name, _wrap(getattr(_m, _name), _pos, "changing files"))
import shutil
for _name, _pos in (("rmtree", (0,)), ("move", (0, 1)), ("copy", (1,)), ("copy2", (1,)), ("copyfile", (1,)),
                    ("copytree", (1,))):
    setattr(shutil, _name, _wrap(getattr(shutil, _name), _pos, "changing files"))

del _m, _name
_source = _real_open(_cfg["program"], encoding="utf-8").read()
_globals = {"__name__": "__main__", "__builtins__": builtins}
_code_status = 0
try:
    exec(compile(_source, "<sandboxed program>", "exec"), _globals)
except AssertionError:
    traceback.print_exc()
    _code_status = %(failed)d
except SystemExit as exc:
    print("SystemExit(%%r) raised before the program finished" %% (exc.code,), file=sys.stderr)
    _code_status = %(sysexit)d
except BaseException:
    traceback.print_exc()
    _code_status = %(error)d
try:
    sys.stdout.flush()
    sys.stderr.flush()
except BaseException:
    pass
if _code_status == 0:
    os.write(1, ("\n" + _token + "\n").encode())
_real_exit(_code_status)
''' % {"failed": _EXIT_FAILED, "sysexit": _EXIT_SYSEXIT, "error": _EXIT_ERROR}


@dataclass(frozen=True)
class SandboxResult:
    """The outcome of one sandboxed run.

    Attributes
    ----------
    passed : bool
        True when the program ran to its end without an exception (``status == "passed"``).
    status : {"passed", "failed", "timeout", "error"}
        See the module docstring: ``failed`` is an ``AssertionError`` (a unit test), ``error`` any
        other exception, an early exit or a signal, ``timeout`` the wall-clock or CPU limit.
    seconds : float
        Wall-clock time of the subprocess, start to exit.
    stdout, stderr : str
        The last 2,000 characters the program wrote to each stream (the traceback is in stderr).
    returncode : int or None
        The child's exit status (negative: killed by that signal; None: killed at the time limit).
    isolation : str
        ``"netns"`` (kernel network namespace plus the Python guards) or ``"guard"`` (Python guards only).

    Examples
    --------
    >>> r = run_python("x = 1 + 1", "assert x == 2")
    >>> r.passed, r.status
    (True, 'passed')
    """

    passed: bool
    status: str
    seconds: float
    stdout: str
    stderr: str
    returncode: int | None
    isolation: str

    def __repr__(self):
        return f"SandboxResult({self.status}, {self.seconds:.2f} s)"

    def summary(self) -> str:
        last = self.stderr.strip().splitlines()[-1] if self.stderr.strip() else ""
        return f"{self.status} in {self.seconds:.2f} s (isolation: {self.isolation})" + (f": {last}" if last else "")

    def to_dict(self) -> dict:
        return asdict(self)


@functools.lru_cache(maxsize=1)
def _netns_prefix() -> tuple[str, ...]:
    """The ``unshare`` prefix that gives a child a private network namespace here, or ``()``."""
    exe = shutil.which("unshare")
    if exe is None or sys.platform != "linux":
        return ()
    for prefix in ((exe, "-n"), (exe, "-r", "-n")):
        try:
            ok = subprocess.run([*prefix, "true"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                timeout=10).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        if ok:
            return prefix
    return ()


def network_isolation() -> str:
    """Which network isolation sandboxed programs get on this machine.

    Returns
    -------
    str
        ``"netns"`` when ``unshare -n`` (or ``unshare -r -n``) can create a private network namespace,
        so the kernel refuses every connection; ``"guard"`` when only the Python-level socket stubs apply.

    Examples
    --------
    >>> network_isolation() in ("netns", "guard")
    True
    """
    return "netns" if _netns_prefix() else "guard"


def _check_code(value, name):
    if not isinstance(value, str):
        raise InputError(name, f"got {type(value).__name__}", "Python source code as a str")
    return value


def _check_limits(timeout, memory_mb, isolation):
    if isinstance(timeout, bool) or not isinstance(timeout, Real) or not math.isfinite(timeout) or timeout <= 0:
        raise InputError("timeout", f"got {timeout!r}", "a positive, finite number of wall-clock seconds")
    if memory_mb is not None:
        check_positive_int(memory_mb, "memory_mb", minimum=64)
    if isolation not in ("auto", "netns", "guard"):
        raise InputError("isolation", f"got {isolation!r}", "'auto', 'netns' or 'guard'")
    if isolation == "netns" and not _netns_prefix():
        raise InputError("isolation", "'netns' was requested but `unshare -n` does not work on this machine",
                         "'auto' or 'guard' (see network_isolation())")
    return float(timeout)


def _tail(path):
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 4 * _TAIL))
            return fh.read().decode("utf-8", "replace")[-_TAIL:]
    except OSError:
        return ""


def _run_one(program: str, timeout: float, memory_mb, isolation: str) -> SandboxResult:
    prefix = () if isolation == "guard" else _netns_prefix()
    root = tempfile.mkdtemp(prefix="iclr26sci-sandbox-")
    try:
        prog_path, runner_path = os.path.join(root, "program.py"), os.path.join(root, "_runner.py")
        with open(prog_path, "w", encoding="utf-8") as fh:
            fh.write(program)
        with open(runner_path, "w", encoding="utf-8") as fh:
            fh.write(_RUNNER)
        cfg = {"root": root, "program": prog_path, "cpu": int(math.ceil(timeout)) + 1, "fsize": _FSIZE,
               "mem": int(memory_mb) * 2 ** 20 if memory_mb else 0}
        env = {"PATH": os.defpath, "HOME": root, "TMPDIR": root, "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
               "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        token = secrets.token_hex(16)
        out_path, err_path = os.path.join(root, "_stdout"), os.path.join(root, "_stderr")
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen([*prefix, sys.executable, "-I", "-B", runner_path, json.dumps(cfg)],
                                    cwd=root, env=env, stdin=subprocess.PIPE, stdout=out, stderr=err,
                                    start_new_session=True)
            try:
                proc.stdin.write((token + "\n").encode())
                proc.stdin.close()
            except OSError:
                pass
            try:
                rc = proc.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out, rc = True, None
            finally:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)     # the group: also any stray child
                except (ProcessLookupError, PermissionError):
                    pass
                proc.wait()
            seconds = time.perf_counter() - t0
        stdout, stderr = _tail(out_path), _tail(err_path)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    finished = stdout.rstrip().endswith(token)
    if finished:
        stdout = stdout.rstrip()[:-len(token)].rstrip("\n")
    if timed_out or rc in (-signal.SIGXCPU, -signal.SIGKILL):
        status = "timeout"
    elif rc == 0 and finished:
        status = "passed"
    elif rc == _EXIT_FAILED:
        status = "failed"
    else:
        status = "error"
        if rc == 0:
            stderr += "\nthe program exited before it finished (os._exit or similar)"
        elif rc is not None and rc < 0:
            stderr += f"\nkilled by signal {signal.Signals(-rc).name}"
    return SandboxResult(passed=status == "passed", status=status, seconds=seconds, stdout=stdout,
                         stderr=stderr[-_TAIL:], returncode=rc, isolation="netns" if prefix else "guard")


def run_python(code, test=None, *, timeout=5.0, memory_mb=1024, isolation="auto") -> SandboxResult:
    """Run Python ``code`` followed by ``test`` in the sandbox (see the module docstring).

    The program is ``code + "\\n" + test``; it passes when it runs to its end. A unit test is plain
    Python that raises ``AssertionError`` on failure (``assert f(2) == 4``).

    Parameters
    ----------
    code : str
        The program (e.g. a model's completion, or a whole module).
    test : str, optional
        Test code appended after ``code``.
    timeout : float, default 5.0
        Wall-clock limit in seconds for the whole subprocess (interpreter start included, about
        0.05 s); CPU time is also capped at ``ceil(timeout) + 1`` s.
    memory_mb : int or None, default 1024
        Address-space limit of the child in MiB (``None``: no limit).
    isolation : {"auto", "netns", "guard"}
        ``"auto"``: a private network namespace where the machine allows it (see
        :func:`network_isolation`), else the Python guards only; ``"guard"`` forces the Python-only
        guards; ``"netns"`` requires the namespace.

    Returns
    -------
    SandboxResult

    Examples
    --------
    >>> run_python("def f(x):\\n    return 2 * x", "assert f(2) == 5").status
    'failed'
    >>> run_python("while True: pass", timeout=0.5).status
    'timeout'
    """
    _check_code(code, "code")
    if test is not None:
        _check_code(test, "test")
    timeout = _check_limits(timeout, memory_mb, isolation)
    program = code if test is None else code + "\n" + test + "\n"
    return _run_one(program, timeout, memory_mb, isolation)


def run_many(programs, *, timeout=5.0, memory_mb=1024, n_workers=None, isolation="auto",
             progress=None, show_progress=None) -> list[SandboxResult]:
    """Run many programs, each in its own sandbox, ``n_workers`` subprocesses at a time.

    Parameters
    ----------
    programs : sequence of str
        Complete programs (code and tests concatenated).
    timeout, memory_mb, isolation
        As in :func:`run_python`, for each program.
    n_workers : int, optional
        How many sandboxed subprocesses run at once (default: ``min(4, os.cpu_count())``). Each
        worker thread only waits on its subprocess, so the pool costs no Python-level CPU.
    progress : bool, optional
        A progress bar (default None: only at a terminal or in a notebook, outside CI).
    show_progress : bool, optional
        Deprecated spelling of ``progress``.

    Returns
    -------
    list of SandboxResult
        In the order of ``programs``.

    Examples
    --------
    >>> [r.status for r in run_many(["assert 1 == 1", "assert 1 == 2", "1 / 0"], n_workers=2)]
    ['passed', 'failed', 'error']
    """
    if isinstance(programs, str) or not hasattr(programs, "__iter__"):
        raise InputError("programs", f"got {type(programs).__name__}", "a list of Python programs (str)")
    programs = list(programs)
    for i, p in enumerate(programs):
        if not isinstance(p, str):
            raise InputError("programs", f"item {i} is a {type(p).__name__}", "a list of Python programs (str)")
    timeout = _check_limits(timeout, memory_mb, isolation)
    n_workers = (min(4, os.cpu_count() or 1) if n_workers is None
                 else check_positive_int(n_workers, "n_workers"))
    progress = resolve_progress(progress, show_progress=show_progress)
    if not programs:
        return []
    with concurrent.futures.ThreadPoolExecutor(max_workers=n_workers) as pool:
        futures = [pool.submit(_run_one, p, timeout, memory_mb, isolation) for p in programs]
        done = concurrent.futures.as_completed(futures)
        for _ in _bar(done, desc="sandboxed programs", total=len(futures), enabled=progress):
            pass
        return [f.result() for f in futures]


def _humaneval_program(problem, completion):
    from .llm_tasks import HumanEvalProblem

    if not isinstance(problem, HumanEvalProblem):
        raise InputError("problem", f"got {type(problem).__name__}",
                         "a HumanEvalProblem (from load_humaneval() or humaneval_problem())")
    _check_code(completion, "completion")
    return problem.program(completion)


def run_humaneval(problem, completion, *, timeout=5.0, memory_mb=1024, isolation="auto") -> SandboxResult:
    """Run a HumanEval completion against the problem's unit tests in the sandbox.

    The program is HumanEval's: ``prompt + completion + "\\n" + test + "\\ncheck(entry_point)"``; the
    completion passes when ``check`` raises nothing (the HumanEval harness's criterion).

    Parameters
    ----------
    problem : HumanEvalProblem
        From :func:`data_adapters.llm_tasks.load_humaneval`.
    completion : str
        The function body that continues ``problem.prompt`` (``problem.canonical_solution`` passes).
    timeout, memory_mb, isolation
        As in :func:`run_python`.

    Examples
    --------
    >>> from data_adapters.llm_tasks import humaneval_problem
    >>> p = humaneval_problem("HumanEval/0")
    >>> run_humaneval(p, p.canonical_solution).passed, run_humaneval(p, "    return True\\n").status
    (True, 'failed')
    """
    program = _humaneval_program(problem, completion)
    timeout = _check_limits(timeout, memory_mb, isolation)
    return _run_one(program, timeout, memory_mb, isolation)


def run_humaneval_batch(problems, completions, *, timeout=5.0, memory_mb=1024, n_workers=None,
                        isolation="auto", progress=None, show_progress=None) -> list[SandboxResult]:
    """:func:`run_humaneval` for many (problem, completion) pairs through :func:`run_many`.

    Parameters
    ----------
    problems : sequence of HumanEvalProblem
    completions : sequence of str
        One completion per problem (repeat a problem to grade several samples of it, as for pass@k).

    Examples
    --------
    >>> from data_adapters.llm_tasks import load_humaneval
    >>> ps = load_humaneval()[:2]
    >>> [r.passed for r in run_humaneval_batch(ps, [p.canonical_solution for p in ps])]
    [True, True]
    """
    if isinstance(problems, (str, bytes)) or not hasattr(problems, "__len__"):
        raise InputError("problems", f"got {type(problems).__name__}", "a list of HumanEvalProblem")
    if isinstance(completions, (str, bytes)) or not hasattr(completions, "__len__"):
        raise InputError("completions", f"got {type(completions).__name__}", "a list of str, one per problem")
    if len(problems) != len(completions):
        raise InputError("completions", f"has {len(completions)} items for {len(problems)} problems",
                         "one completion per problem")
    programs = [_humaneval_program(p, c) for p, c in zip(problems, completions)]
    return run_many(programs, timeout=timeout, memory_mb=memory_mb, n_workers=n_workers, isolation=isolation,
                    progress=progress, show_progress=show_progress)
