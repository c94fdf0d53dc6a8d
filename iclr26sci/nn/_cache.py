"""Train once, reuse everywhere: a user cache of trained models keyed by their settings and seed."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import time
from numbers import Integral
from pathlib import Path

import numpy as np

from iclr26sci.core import InputError, check_bool

#: bump when a change in the library makes previously cached models stale (training code, data reader)
CACHE_VERSION = 1

_ENV = "ICLR26SCI_CACHE"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
_WEIGHTS = "weights.pt"
_META = "meta.json"


def cache_dir() -> Path:
    """The folder where trained models (and converted language models) are cached; created if missing.

    It is ``$ICLR26SCI_CACHE`` when that environment variable is set and non-empty, otherwise
    ``~/.cache/iclr26sci``. Delete it (or one sub-folder) to force retraining.

    Returns
    -------
    Path

    Raises
    ------
    InputError
        When the chosen path exists but is not a directory, or cannot be created.

    Examples
    --------
    >>> import os, tempfile
    >>> os.environ["ICLR26SCI_CACHE"] = tempfile.mkdtemp()
    >>> cache_dir() == Path(os.environ["ICLR26SCI_CACHE"])
    True
    >>> del os.environ["ICLR26SCI_CACHE"]
    """
    env = os.environ.get(_ENV, "")
    path = Path(env).expanduser() if env.strip() else Path.home() / ".cache" / "iclr26sci"
    if path.exists() and not path.is_dir():
        raise InputError(_ENV, f"points to {str(path)!r}, which is not a directory",
                         "a directory path (or unset, for ~/.cache/iclr26sci)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(_ENV, f"{str(path)!r} cannot be created ({exc.strerror})", "a writable directory path") from None
    return path


def _canonical(settings) -> str:
    try:
        return json.dumps(settings, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError("settings", f"is not JSON-serialisable ({exc})",
                         "a dict of plain values (numbers, strings, bools, None, lists, dicts)") from None


def cache_key(name: str, settings: dict, seed: int) -> str:
    """The 16-hex-digit key of an entry: SHA-256 of (name, settings, seed, :data:`CACHE_VERSION`)."""
    blob = _canonical({"name": name, "settings": settings, "seed": seed, "cache_version": CACHE_VERSION})
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@contextlib.contextmanager
def _locked(folder: Path):
    """An exclusive advisory lock on ``folder/.lock`` (POSIX), so two processes do not build one entry twice.

    The lock file is removed on release (while still held), so that no lock outlives the call; a process
    that was waiting on a lock file removed meanwhile notices (its file is no longer the one at the path)
    and takes a fresh lock.
    """
    lock = folder / ".lock"
    while True:
        folder.mkdir(parents=True, exist_ok=True)
        fh = open(lock, "a+")
        try:
            import fcntl

            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover -- non-POSIX: no lock
            break
        try:
            same = os.path.samestat(os.fstat(fh.fileno()), os.stat(lock))
        except FileNotFoundError:
            same = False
        if same:
            break
        fh.close()  # the holder removed this lock file: take a fresh one
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            lock.unlink()
        fh.close()


def _read_entry(folder: Path, key: str, factory):
    """Load a complete entry into a fresh ``factory()`` model, or return None when it is missing, incomplete,
    corrupted or no longer fits the factory's architecture."""
    import torch

    meta_p, w_p = folder / _META, folder / _WEIGHTS
    if not (meta_p.is_file() and w_p.is_file()):
        return None
    try:
        meta = json.loads(meta_p.read_text())
        if meta.get("key") != key or meta.get("weights_sha256") != _sha256(w_p):
            return None
        state = torch.load(w_p, map_location="cpu", weights_only=True)
    except Exception:  # noqa: BLE001 -- unreadable JSON / weights: a corrupted entry, rebuilt by the caller
        return None
    model = _new_model(factory)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError:
        return None  # the factory's architecture no longer matches: rebuild
    return _settle(model), meta


def _new_model(factory):
    import torch

    model = factory()
    if not isinstance(model, torch.nn.Module):
        raise InputError("factory", f"returned {type(model).__name__}", "a callable returning a torch.nn.Module")
    return model


def _settle(model):
    """The state every returned model is in: CPU, eval mode, no gradients held."""
    model.cpu().eval()
    for p in model.parameters():
        p.grad = None
    return model


def _signature(model) -> dict:
    return {k: (tuple(v.shape), str(v.dtype)) for k, v in model.state_dict().items()}


def _check_matches(built, ref) -> None:
    """Refuse a built model that ``factory()`` could not hold: other class, other state-dict keys or shapes."""
    if type(built) is not type(ref):
        raise InputError("build", f"returned a {type(built).__name__} but factory() makes a {type(ref).__name__}",
                         "build and factory to create the same architecture (the cache reloads into factory())")
    a, b = _signature(built), _signature(ref)
    if a.keys() != b.keys():
        extra, missing = sorted(a.keys() - b.keys()), sorted(b.keys() - a.keys())
        raise InputError("build", f"returned a model whose state-dict keys differ from factory()'s "
                         f"(only in build: {extra[:3]}, only in factory: {missing[:3]})",
                         "build and factory to create the same architecture")
    diff = [k for k in a if a[k][0] != b[k][0]]
    if diff:
        k = diff[0]
        raise InputError("build", f"returned {k!r} of shape {a[k][0]} but factory() makes {b[k][0]} "
                         f"({len(diff)} tensor(s) differ)", "build and factory to create the same architecture")


def cached_model(name, settings, seed, build, factory, *, rebuild=False):
    """Return a trained model from the user cache, training it once with ``build`` if it is not there.

    The entry's key is the SHA-256 of ``(name, settings, seed, CACHE_VERSION)``; its folder
    ``cache_dir()/models/<name>-<key>/`` holds ``weights.pt`` (a ``torch.save`` of the state dict,
    read back with ``weights_only=True``) and ``meta.json`` (metrics, settings, seed, build seconds,
    torch version and the weights' SHA-256). Both files are written to temporary names and renamed
    into place, the metadata last, so an interrupted build leaves no entry; an entry whose weights
    do not match the recorded hash, do not load, or do not fit ``factory()`` is rebuilt. Concurrent
    processes asking for the same entry wait on a file lock, and only the first one trains.

    Every argument is checked, and ``factory()`` is called once, before anything is written. The model that
    ``build`` returns must fit ``factory()`` (same class, same state-dict keys and shapes); otherwise the
    build is refused and nothing is stored. A failed or cancelled build (an exception, ``KeyboardInterrupt``)
    leaves no entry folder, temporary file or lock behind. A freshly built model is returned exactly as a
    later cache hit returns it: its state dict loaded into ``factory()``'s model, on the CPU, in eval mode,
    with no ``.grad`` and the factory's ``requires_grad`` flags.

    Parameters
    ----------
    name : str
        Model family, e.g. ``"fashion-resnet"`` (letters, digits, ``_ . -``; at most 64 characters).
    settings : dict
        Everything that determines the trained weights besides the seed (architecture, epochs,
        learning rate, data identity), JSON-serialisable. A change gives a new entry.
    seed : int >= 0
        The training seed.
    build : callable
        ``build() -> (model, metrics)``: trains the model (a ``torch.nn.Module``) and returns it with a
        JSON-serialisable dict of its measured quality (e.g. ``{"clean_accuracy": 0.91}``).
    factory : callable
        ``factory() -> torch.nn.Module``: an untrained model of the same architecture, into which
        the cached state dict is loaded.
    rebuild : bool, default False
        Retrain and overwrite even when a valid entry exists.

    Returns
    -------
    model : torch.nn.Module
        The trained model (a ``factory()`` instance holding the trained weights), in eval mode, on the CPU,
        with no gradients.
    meta : dict
        ``name, key, settings, seed, metrics, seconds`` (build wall time), ``cpu_seconds``,
        ``torch_version, cache_version, created`` (UTC), ``weights_sha256``, ``path`` and ``cached``
        (True when read from the cache by this call, False when built now).

    Examples
    --------
    >>> import os, tempfile, torch
    >>> os.environ["ICLR26SCI_CACHE"] = tempfile.mkdtemp()
    >>> def build():
    ...     torch.manual_seed(0); net = torch.nn.Linear(2, 1)
    ...     return net, {"quality": 1.0}
    >>> m1, meta1 = cached_model("toy", {"width": 1}, 0, build, lambda: torch.nn.Linear(2, 1))
    >>> m2, meta2 = cached_model("toy", {"width": 1}, 0, build, lambda: torch.nn.Linear(2, 1))
    >>> meta1["cached"], meta2["cached"], bool(torch.equal(m1.weight, m2.weight)), meta2["metrics"]
    (False, True, True, {'quality': 1.0})
    >>> del os.environ["ICLR26SCI_CACHE"]
    """
    import torch

    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise InputError("name", f"got {name!r}", "1-64 characters: letters, digits, '_', '.', '-' (not first)")
    if not isinstance(settings, dict):
        raise InputError("settings", f"got {type(settings).__name__}", "a dict of the settings that determine the model")
    _canonical(settings)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (Integral, np.integer)) or int(seed) < 0:
        raise InputError("seed", f"got {seed!r}", "a non-negative integer training seed")
    seed = int(seed)
    if not callable(build):
        raise InputError("build", f"got {type(build).__name__}", "a callable build() -> (model, metrics dict)")
    if not callable(factory):
        raise InputError("factory", f"got {type(factory).__name__}", "a callable factory() -> untrained nn.Module")
    rebuild = check_bool(rebuild, "rebuild")

    ref = _new_model(factory)  # the architecture an entry must fit; built before anything is written
    key = cache_key(name, settings, seed)
    folder = cache_dir() / "models" / f"{name}-{key}"
    existed = folder.is_dir()
    tmp_w = folder / (_WEIGHTS + f".{os.getpid()}.tmp")
    tmp_m = folder / (_META + f".{os.getpid()}.tmp")
    with _locked(folder):
        if not rebuild:
            hit = _read_entry(folder, key, lambda: ref)
            if hit is not None:
                model, meta = hit
                return model, dict(meta, cached=True, path=str(folder))
        try:
            t0, c0 = time.perf_counter(), time.process_time()
            out = build()
            seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
            if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], torch.nn.Module)
                    and isinstance(out[1], dict)):
                raise InputError("build", f"returned {type(out).__name__}", "a tuple (nn.Module, metrics dict)")
            built, metrics = out
            try:
                json.dumps(metrics, allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise InputError("build", f"returned metrics that are not JSON-serialisable ({exc})",
                                 "a dict of plain numbers / strings") from None
            _check_matches(built, ref)
            state = {k: v.detach().cpu().contiguous() for k, v in built.state_dict().items()}
            ref.load_state_dict(state, strict=True)  # the returned model: as a cache load would give it
            model = _settle(ref)
            torch.save(state, tmp_w)
            digest = _sha256(tmp_w)
            meta = {"name": name, "key": key, "settings": settings, "seed": seed, "metrics": metrics,
                    "seconds": seconds, "cpu_seconds": cpu_seconds, "torch_version": str(torch.__version__),
                    "cache_version": CACHE_VERSION,
                    "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "weights_sha256": digest}
            tmp_m.write_text(json.dumps(meta, indent=1, sort_keys=True))
            os.replace(tmp_w, folder / _WEIGHTS)
            os.replace(tmp_m, folder / _META)
        except BaseException:  # a failed or cancelled build (KeyboardInterrupt too) leaves nothing behind
            for f in (tmp_w, tmp_m):
                with contextlib.suppress(FileNotFoundError):
                    f.unlink()
            if not existed or not any(folder.glob(_META)):
                shutil.rmtree(folder, ignore_errors=True)
            raise
    return model, dict(meta, cached=False, path=str(folder))


def _clear(name: str | None = None) -> None:  # test helper: remove entries of one model family (or all)
    root = cache_dir() / "models"
    if not root.is_dir():
        return
    for d in root.iterdir():
        if name is None or d.name.startswith(f"{name}-"):
            shutil.rmtree(d, ignore_errors=True)
