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
from ._progress import progress
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
    progress_bar: bool | None = None,
    desc: str = "replicates",
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

    Returns
    -------
    list
        ``[fn(seeds[0]), fn(seeds[1]), ...]``.
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

    if not seq:
        return []
    if client is not None or executor == "dask":
        return _run_dask(fn, seq, client, scheduler, n_workers)
    workers = n_workers or os.cpu_count() or 1
    if executor == "serial" or workers == 1 or len(seq) == 1:
        return [fn(s) for s in progress(seq, desc=desc, enabled=progress_bar)]
    with ProcessPoolExecutor(max_workers=min(workers, len(seq))) as pool:
        futs = [pool.submit(fn, s) for s in seq]
        return [f.result() for f in progress(futs, desc=desc, enabled=progress_bar)]


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
