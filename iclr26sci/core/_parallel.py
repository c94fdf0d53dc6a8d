"""Run independent replicates locally or on a dask.distributed cluster.

Each replicate receives its own child :class:`numpy.random.SeedSequence`,
so the results are bit-identical whatever executor runs them.
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Sequence

import numpy as np

from ._errors import InputError
from ._progress import progress as _bar, resolve_progress
from ._rng import spawn

__all__ = ["map_replicates"]


def _as_seeds(seeds: Any) -> list[np.random.SeedSequence]:
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        raise InputError("seeds", f"got the integer {seeds}",
                         "a sequence of seeds, or use spawn(rng, n) to make n child seeds")
    if isinstance(seeds, np.random.SeedSequence):
        raise InputError("seeds", "got a single SeedSequence", "a sequence of seeds (spawn(rng, n))")
    try:
        seeds = list(seeds)
    except TypeError:
        raise InputError("seeds", f"got {type(seeds).__name__}", "a sequence of ints or SeedSequences") from None
    out = []
    for i, s in enumerate(seeds):
        if isinstance(s, np.random.SeedSequence):
            out.append(s)
        elif isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0:
            out.append(np.random.SeedSequence(int(s)))
        else:
            raise InputError(f"seeds[{i}]", f"got {s!r}", "a non-negative int or a SeedSequence")
    return out


def map_replicates(
    fn: Callable[[np.random.SeedSequence], Any],
    seeds: Sequence[Any],
    *,
    executor: Any = "local",
    n_workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    desc: str = "replicates",
    progress_bar: bool | None = None,
) -> list[Any]:
    """Apply ``fn`` to every seed and return the results in seed order.

    Parameters
    ----------
    fn : callable
        ``fn(seed) -> result``; must be picklable (a module-level function or
        a :func:`functools.partial` of one) for the process and dask executors.
        ``seed`` is a :class:`numpy.random.SeedSequence`; turn it into a
        generator with :func:`iclr26sci.core.as_generator`.
    seeds : sequence of int or SeedSequence
        One entry per replicate, typically ``spawn(rng, n)``.
    executor : {"local", "serial", "dask"} or dask.distributed.Client
        ``"local"`` uses a process pool (serial when one worker suffices),
        ``"serial"`` runs in this process, ``"dask"`` connects to
        ``scheduler`` (an address) or starts a ``LocalCluster``, and a
        ``Client`` is used as given.
    n_workers : int, optional
        Processes for the local pool or the LocalCluster (default: CPU count).
    scheduler : str, optional
        Address of a running dask scheduler (``"tcp://host:8786"``).
    progress : bool, optional
        Show a progress bar (default: only at a terminal or in a notebook,
        outside CI; see :func:`iclr26sci.core.progress_enabled`).
    desc : str
        Label of the progress bar.
    progress_bar : bool, optional
        Deprecated spelling of ``progress``.

    Returns
    -------
    list
        ``[fn(seeds[0]), fn(seeds[1]), ...]``.

    Raises
    ------
    InputError
        On bad arguments, and when ``executor="dask"`` would start a local
        cluster from the top level of a script that lacks an
        ``if __name__ == "__main__":`` guard (dask's workers re-import the
        script, so the call would run again in each of them).

    Notes
    -----
    With the process or dask executors, write scripts as::

        def main():
            results = map_replicates(fn, spawn(0, 100), executor="dask")

        if __name__ == "__main__":
            main()

    Examples
    --------
    >>> from iclr26sci.core import as_generator, spawn
    >>> draw = lambda seed: round(float(as_generator(seed).random()), 6)
    >>> a = map_replicates(draw, spawn(0, 3), executor="serial")
    >>> a == [draw(s) for s in spawn(0, 3)]
    True
    """
    if not callable(fn):
        raise InputError("fn", f"got {type(fn).__name__}", "a callable fn(seed)")
    seq = _as_seeds(seeds)
    if n_workers is not None and (not isinstance(n_workers, (int, np.integer)) or n_workers < 1):
        raise InputError("n_workers", f"got {n_workers!r}", "a positive integer")
    client = None
    if isinstance(executor, str):
        if executor not in ("local", "serial", "dask"):
            raise InputError("executor", f"got {executor!r}", "'local', 'serial', 'dask' or a dask Client")
        if executor != "dask" and scheduler is not None:
            raise InputError("scheduler", "was given with a non-dask executor", "executor='dask'")
    elif type(executor).__name__ == "Client" and hasattr(executor, "submit"):
        client = executor
    else:
        raise InputError("executor", f"got {type(executor).__name__}", "'local', 'serial', 'dask' or a dask Client")

    progress = resolve_progress(progress, progress_bar=progress_bar)
    if executor == "dask" and client is None and scheduler is None:
        _check_main_guard()
    if scheduler is not None and not isinstance(scheduler, str):
        raise InputError("scheduler", f"got {type(scheduler).__name__}", "an address string such as 'tcp://host:8786'")
    if not seq:
        return []
    if client is not None or executor == "dask":
        return _run_dask(fn, seq, client, scheduler, n_workers)
    workers = n_workers or os.cpu_count() or 1
    if executor == "serial" or workers == 1 or len(seq) == 1:
        return [fn(s) for s in _bar(seq, desc=desc, enabled=progress)]
    with ProcessPoolExecutor(max_workers=min(workers, len(seq))) as pool:
        futs = [pool.submit(fn, s) for s in seq]
        return [f.result() for f in _bar(futs, desc=desc, enabled=progress)]


def _guarded(tree, lineno: int) -> bool:
    """Is line ``lineno`` of a module inside an ``if __name__ == "__main__":`` block?"""
    import ast

    def is_main_test(t):
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)):
            return False
        sides = [t.left, t.comparators[0]]
        names = [x for x in sides if isinstance(x, ast.Name) and x.id == "__name__"]
        consts = [x for x in sides if isinstance(x, ast.Constant) and x.value == "__main__"]
        return bool(names and consts)

    for node in ast.walk(tree):
        if isinstance(node, ast.If) and is_main_test(node.test) and node.body:
            end = max(getattr(b, "end_lineno", b.lineno) for b in node.body)
            if node.body[0].lineno <= lineno <= end:
                return True
    return False


def _check_main_guard() -> None:
    """Refuse to start a LocalCluster from the unguarded top level of a script.

    dask starts each worker process with ``multiprocessing``'s *spawn*
    method, which re-imports the user's ``__main__`` script in the child. A
    call at the script's top level (outside ``if __name__ == "__main__":``)
    then runs again in every worker, each tries to start its own cluster,
    and the user sees "Nanny failed to start" three times and a hang or a
    timeout. We detect both sides of that situation and say what to do.
    """
    import multiprocessing.process as mpp
    import sys

    main = sys.modules.get("__main__")
    what = ("map_replicates(executor='dask') starts a local dask cluster, whose worker processes re-import "
            "the main script; ")
    fix = ("the script's top-level code wrapped in `if __name__ == \"__main__\":` (or pass an existing "
           "dask Client / a scheduler address)")
    # child side: we are being imported by a spawned worker's bootstrap
    if getattr(mpp.current_process(), "_inheriting", False) or getattr(main, "__name__", "") == "__mp_main__":
        raise InputError("executor", what + "this call is running inside such a re-import (the script has no "
                         "`if __name__ == \"__main__\":` guard)", fix)
    path = getattr(main, "__file__", None)
    if not path or not str(path).endswith(".py"):
        return  # interactive session, notebook or `python -c`: spawn does not re-import anything
    frame = sys._getframe(1)
    lineno = None
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == "__main__":
            lineno = frame.f_lineno
            break
        frame = frame.f_back
    if lineno is None:
        return
    try:
        import ast

        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return
    if not _guarded(tree, lineno):
        raise InputError("executor", what + f"it was called at the top level of {path} (line {lineno}) "
                         "without an `if __name__ == \"__main__\":` guard, so every worker would start a "
                         "cluster again (dask prints 'Nanny failed to start')", fix)


def _run_dask(fn, seq, client, scheduler, n_workers):
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("executor='dask' needs the dask extra: pip install 'iclr26sci[dask]'") from exc
    own_cluster = own_client = None
    try:
        if client is None:
            if scheduler is not None:
                client = own_client = Client(scheduler)
            else:
                own_cluster = LocalCluster(n_workers=n_workers or min(os.cpu_count() or 1, 4),
                                           threads_per_worker=1, processes=True,
                                           dashboard_address=None)
                client = own_client = Client(own_cluster)
        futs = client.map(fn, seq, pure=False)
        return client.gather(futs)
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()
