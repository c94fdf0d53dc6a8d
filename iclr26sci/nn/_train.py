"""One training loop for every network in the library: seeded, deterministic on CPU, with early stopping,
best-weight restoration and resumable checkpoints."""
from __future__ import annotations

import math
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from iclr26sci.core import (
    InputError, as_generator, check_bool, check_in_range, check_option, check_positive_int, progress as _progress,
)

from ._checks import forward_errors

_OPTIMIZERS = ("adam", "adamw", "sgd")
_SCHEDULES = ("cosine", "onecycle")
_CKPT_FORMAT = "iclr26sci.nn.checkpoint"
_CKPT_VERSION = 1


# --------------------------------------------------------------------------------------------- result
@dataclass(frozen=True)
class FitResult:
    """What :func:`fit` did: the loss curves, where the best validation loss was, and the cost.

    Attributes
    ----------
    train_loss : tuple of float
        Mean training loss of each epoch (mean over the epoch's mini-batches, in training mode).
    val_loss : tuple of float or None
        Validation loss after each epoch (eval mode, no gradient, weighted by batch size); ``None``
        without a validation set.
    best_epoch : int
        0-based index of the epoch whose weights the model holds at the end: the lowest validation
        loss when there is a validation set, otherwise the last epoch.
    stopped_early : bool
        True when ``patience`` epochs passed without a better validation loss before ``epochs`` ran.
    n_steps : int
        Optimiser steps taken (all epochs, resumed ones included).
    seconds : float
        Wall-clock seconds of this call.
    cpu_seconds : float
        CPU seconds of this process during the call (all threads); a load-independent cost measure.
    resumed_epochs : int
        Epochs read back from ``checkpoint`` instead of being run (0 for a fresh run).

    Examples
    --------
    >>> r = FitResult(train_loss=(1.0, 0.5), val_loss=None, best_epoch=1, stopped_early=False,
    ...               n_steps=8, seconds=0.1, cpu_seconds=0.1)
    >>> r
    FitResult(epochs=2, train_loss=0.5, best_epoch=1, steps=8)
    >>> r.to_dict()["n_steps"]
    8
    """

    train_loss: tuple
    val_loss: tuple | None
    best_epoch: int
    stopped_early: bool
    n_steps: int
    seconds: float
    cpu_seconds: float
    resumed_epochs: int = 0

    @property
    def epochs_run(self) -> int:
        """Number of epochs the model was trained for (resumed ones included)."""
        return len(self.train_loss)

    @property
    def best_val_loss(self) -> float | None:
        """The validation loss of :attr:`best_epoch` (``None`` without validation)."""
        return None if self.val_loss is None else self.val_loss[self.best_epoch]

    def __repr__(self) -> str:
        s = f"FitResult(epochs={self.epochs_run}, train_loss={self.train_loss[-1]:.4g}"
        if self.val_loss is not None:
            s += f", best_val_loss={self.best_val_loss:.4g}"
        s += f", best_epoch={self.best_epoch}"
        if self.stopped_early:
            s += ", stopped_early"
        return s + f", steps={self.n_steps})"

    def summary(self) -> str:
        """A few lines: epochs, final and best losses, early stopping and time."""
        lines = [f"fit: {self.epochs_run} epochs, {self.n_steps} steps, {self.seconds:.1f} s wall "
                 f"({self.cpu_seconds:.1f} s CPU)"
                 + (f", {self.resumed_epochs} epochs resumed from a checkpoint" if self.resumed_epochs else ""),
                 f"  train loss: first {self.train_loss[0]:.4g}, last {self.train_loss[-1]:.4g}"]
        if self.val_loss is not None:
            lines.append(f"  val loss: best {self.best_val_loss:.4g} at epoch {self.best_epoch}"
                         + (" (stopped early; best weights restored)" if self.stopped_early else
                            " (best weights restored)"))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-ready dictionary of all fields."""
        d = asdict(self)
        d["train_loss"] = list(self.train_loss)
        d["val_loss"] = None if self.val_loss is None else list(self.val_loss)
        return d


# ----------------------------------------------------------------------------------------- checkpoints
def _atomic_torch_save(obj, path: Path) -> None:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            torch.save(obj, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _check_path(path, name: str) -> Path:
    if not isinstance(path, (str, os.PathLike)) or str(path) == "":
        raise InputError(name, f"got {path!r}", "a file path (str or pathlib.Path)")
    p = Path(path).expanduser()
    if p.is_dir():
        raise InputError(name, f"{str(p)!r} is a directory", "a file path")
    return p


def _check_module(model, name: str = "model"):
    import torch

    if not isinstance(model, torch.nn.Module):
        raise InputError(name, f"got {type(model).__name__}", "a torch.nn.Module")
    return model


def _check_metadata(metadata):
    if metadata is None:
        return {}
    if not isinstance(metadata, dict) or not all(isinstance(k, str) for k in metadata):
        raise InputError("metadata", f"got {type(metadata).__name__}", "a dict with str keys of plain values")
    import json

    try:
        json.dumps(metadata)
    except (TypeError, ValueError) as exc:
        raise InputError("metadata", f"is not JSON-serialisable ({exc})",
                         "plain values: numbers, strings, bools, None, lists and dicts") from None
    return metadata


def save_checkpoint(path, model, optimizer=None, metadata=None, *, _state=None) -> Path:
    """Write a model's state dict (and optionally its optimiser's) with metadata to ``path``, atomically.

    The file is a ``torch.save`` of a plain dictionary (format ``"iclr26sci.nn.checkpoint"``,
    version 1) holding ``state_dict``, ``optimizer`` (or ``None``), ``metadata`` and the torch version.
    It is written to a temporary file in the same folder and renamed into place, so a reader never
    sees a half-written checkpoint. It loads with ``torch.load(weights_only=True)``: no code is pickled.

    Parameters
    ----------
    path : str or Path
        Destination file (its folder is created).
    model : torch.nn.Module
        The model whose ``state_dict()`` (parameters and buffers, e.g. BatchNorm running statistics)
        is saved.
    optimizer : torch.optim.Optimizer, optional
        Also save its state (moments, step counts) to resume training.
    metadata : dict, optional
        JSON-serialisable information stored beside the weights (settings, metrics, seeds).

    Returns
    -------
    Path
        The written file.

    Examples
    --------
    >>> import tempfile, torch
    >>> net = torch.nn.Linear(2, 1)
    >>> p = save_checkpoint(tempfile.mkdtemp() + "/net.pt", net, metadata={"epoch": 3})
    >>> other = torch.nn.Linear(2, 1)
    >>> load_checkpoint(p, other)["metadata"]
    {'epoch': 3}
    >>> bool(torch.equal(other.weight, net.weight))
    True
    """
    import torch

    p = _check_path(path, "path")
    model = _check_module(model)
    if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
        raise InputError("optimizer", f"got {type(optimizer).__name__}", "a torch.optim.Optimizer or None")
    metadata = _check_metadata(metadata)
    payload = {
        "format": _CKPT_FORMAT, "version": _CKPT_VERSION, "torch_version": str(torch.__version__),
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "optimizer": None if optimizer is None else optimizer.state_dict(),
        "metadata": metadata,
        "fit_state": _state,
    }
    _atomic_torch_save(payload, p)
    return p


def load_checkpoint(path, model=None, optimizer=None, *, map_location="cpu", strict=True) -> dict:
    """Read a checkpoint written by :func:`save_checkpoint` (or by :func:`fit`) and load it into ``model``.

    Parameters
    ----------
    path : str or Path
        The checkpoint file.
    model : torch.nn.Module, optional
        Receives the saved state dict (``load_state_dict(strict=strict)``); ``None`` only reads.
    optimizer : torch.optim.Optimizer, optional
        Receives the saved optimiser state (the file must hold one).
    map_location : str or torch.device, default "cpu"
        Where the tensors are loaded (see ``torch.load``).
    strict : bool, default True
        Require the saved keys to match the model's exactly.

    Returns
    -------
    dict
        ``{"state_dict", "optimizer", "metadata", "torch_version"}``.

    Raises
    ------
    InputError
        When the file is missing, is not a checkpoint of this format, or does not fit ``model``.

    Examples
    --------
    >>> load_checkpoint("/nonexistent/ckpt.pt")
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `path`: '/nonexistent/ckpt.pt' does not exist; expected a checkpoint file written by save_checkpoint or fit
    """
    import torch

    p = _check_path(path, "path")
    if model is not None:
        _check_module(model)
    if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
        raise InputError("optimizer", f"got {type(optimizer).__name__}", "a torch.optim.Optimizer or None")
    strict = check_bool(strict, "strict")
    if not callable(map_location):
        from ._checks import check_device

        check_device(map_location, "map_location")
    if not p.is_file():
        raise InputError("path", f"{str(p)!r} does not exist", "a checkpoint file written by save_checkpoint or fit")
    try:
        payload = torch.load(p, map_location=map_location, weights_only=True)
    except Exception as exc:  # noqa: BLE001 -- any unpickling failure means a bad file
        raise InputError("path", f"{str(p)!r} cannot be read as a checkpoint ({type(exc).__name__}: "
                         f"{str(exc).splitlines()[0][:120] if str(exc) else ''})",
                         "a checkpoint file written by save_checkpoint or fit") from None
    if not isinstance(payload, dict) or payload.get("format") != _CKPT_FORMAT:
        raise InputError("path", f"{str(p)!r} is not an iclr26sci checkpoint",
                         "a checkpoint file written by save_checkpoint or fit")
    if model is not None:
        try:
            model.load_state_dict(payload["state_dict"], strict=strict)
        except RuntimeError as exc:
            raise InputError("model", f"does not match the checkpoint's weights ({str(exc).splitlines()[0][:160]})",
                             "the architecture the checkpoint was saved from") from None
    if optimizer is not None:
        if payload.get("optimizer") is None:
            raise InputError("optimizer", "was given but the checkpoint holds no optimiser state",
                             "optimizer=None, or a checkpoint saved with its optimiser")
        optimizer.load_state_dict(payload["optimizer"])
    return payload


# ------------------------------------------------------------------------------------------ data checks
def _as_tensors(data, name: str, dtype, device):
    """Validate a tuple of equal-length arrays/tensors and convert it to tensors on ``device``."""
    import torch

    if isinstance(data, (np.ndarray, torch.Tensor)):
        data = (data,)
    if not isinstance(data, (tuple, list)) or len(data) == 0:
        raise InputError(name, f"got {type(data).__name__}",
                         "a non-empty tuple of equal-length arrays or tensors, e.g. (X, y)")
    out = []
    n = None
    for i, a in enumerate(data):
        where = f"{name}[{i}]"
        if isinstance(a, torch.Tensor):
            t = a.detach()
        elif isinstance(a, np.ndarray):
            if a.dtype == object or a.dtype.kind not in "biuf":
                raise InputError(name, f"{where} has dtype {a.dtype}", "numeric arrays (floats, integers or bools)")
            t = torch.from_numpy(np.ascontiguousarray(a))
        else:
            raise InputError(name, f"{where} is a {type(a).__name__}", "a numpy array or a torch tensor")
        if t.ndim == 0:
            raise InputError(name, f"{where} is a scalar", "an array with one row per sample")
        if t.shape[0] == 0:
            raise InputError(name, f"{where} is empty", "at least one sample")
        if n is None:
            n = int(t.shape[0])
        elif int(t.shape[0]) != n:
            raise InputError(name, f"{where} has {int(t.shape[0])} rows but {name}[0] has {n}",
                             "arrays with the same number of rows (one per sample)")
        if t.is_complex():
            raise InputError(name, f"{where} is complex", "real numbers")
        if t.is_floating_point():
            if not bool(torch.isfinite(t).all()):
                raise InputError(name, f"{where} contains NaN or infinite values", "finite numbers")
            t = t.to(dtype)
        elif t.dtype != torch.bool:
            t = t.to(torch.int64)
        out.append(t.to(device))
    return tuple(out), n


def _model_dtype_device(model, device):
    import torch

    p = next(iter(model.parameters()), None)
    dtype = p.dtype if p is not None and p.is_floating_point() else torch.get_default_dtype()
    if device is None:
        dev = p.device if p is not None else torch.device("cpu")
    else:
        dev = _check_device(device)
    return dtype, dev


def _check_device(device):
    """The torch device named by ``device`` (None: the CPU), or an InputError if torch cannot use it here."""
    from ._checks import check_device

    return check_device(device)


def _make_optimizer(optimizer, params, lr, weight_decay):
    import torch

    if callable(optimizer) and not isinstance(optimizer, str):
        opt = optimizer(params)
        if not isinstance(opt, torch.optim.Optimizer):
            raise InputError("optimizer", f"the callable returned {type(opt).__name__}", "a torch.optim.Optimizer")
        return opt
    name = check_option(optimizer, "optimizer", _OPTIMIZERS)
    if name == "adam":
        return torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    return torch.optim.SGD(params, lr=lr, momentum=0.9, nesterov=True, weight_decay=weight_decay)


def _lr_factor(schedule, step, total):
    """Multiplier of the base learning rate at optimiser step ``step`` of ``total``."""
    if schedule is None:
        return 1.0
    frac = min(step / max(total, 1), 1.0)
    if schedule == "cosine":
        return 0.5 * (1.0 + math.cos(math.pi * frac))
    # onecycle: linear warm-up over the first 15 % from lr/10 to lr, then cosine down to lr/1000
    warm = 0.15
    if frac < warm:
        return 0.1 + 0.9 * frac / warm
    f = (frac - warm) / (1.0 - warm)
    return 1e-3 + (1.0 - 1e-3) * 0.5 * (1.0 + math.cos(math.pi * f))


def _batches(n, batch_size, gen, device):
    """Index tensors of one shuffled epoch; a trailing batch of size 1 joins the one before it
    (a size-1 batch breaks BatchNorm in training mode)."""
    import torch

    perm = torch.randperm(n, generator=gen).to(device)
    parts = list(perm.split(batch_size))
    if len(parts) > 1 and parts[-1].numel() == 1:
        parts[-2] = torch.cat([parts[-2], parts[-1]])
        parts.pop()
    return parts


def _eval_loss(model, loss_fn, tensors, batch_size):
    import torch

    model.eval()
    total, count = 0.0, 0
    n = tensors[0].shape[0]
    with torch.no_grad():
        for start in range(0, n, batch_size):
            batch = tuple(t[start:start + batch_size] for t in tensors)
            loss = _call_loss(loss_fn, model, batch, "val")
            total += float(loss) * batch[0].shape[0]
            count += batch[0].shape[0]
    model.train()
    return total / count


def _call_loss(loss_fn, model, batch, name="data"):
    import torch

    with forward_errors(name, "the model"):  # backstop for models whose first layer cannot be read off
        loss = loss_fn(model, *batch)
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        raise InputError("loss_fn", f"returned {type(loss).__name__}"
                         + (f" of shape {tuple(loss.shape)}" if isinstance(loss, torch.Tensor) else ""),
                         "a scalar tensor (the batch's mean loss)")
    return loss.reshape(())


def _fingerprint(n_train, n_val, epochs, batch_size, lr, optimizer, weight_decay, schedule, seed_state):
    return {"n_train": int(n_train), "n_val": int(n_val), "epochs": int(epochs), "batch_size": int(batch_size),
            "lr": float(lr), "optimizer": optimizer if isinstance(optimizer, str) else "callable",
            "weight_decay": float(weight_decay), "schedule": schedule, "seed": seed_state}


# ------------------------------------------------------------------------------------------------- fit
def fit(model, loss_fn, data, *, val=None, val_fraction=None, epochs=10, batch_size=128, lr=1e-3,
        optimizer="adam", weight_decay=0.0, grad_clip=None, patience=None, checkpoint=None, rng=None,
        device=None, progress=True, schedule=None) -> FitResult:
    r"""Train ``model`` by mini-batch gradient descent on ``loss_fn``; the one loop every nn method uses.

    Each epoch draws a random permutation of the training rows (from a torch generator seeded by
    ``rng``, never a Python loop over samples), cuts it into batches of ``batch_size`` and takes one
    optimiser step per batch on

    .. math::

        \theta \leftarrow \theta - \eta_k \, \mathrm{update}\bigl(\nabla_\theta\, \ell(\theta; B_k)\bigr),
        \qquad \ell(\theta; B) = \texttt{loss\_fn}(\texttt{model}, *B),

    with the gradient norm clipped to ``grad_clip`` when set. With a validation set, the loss on it is
    measured after every epoch (eval mode, no gradient); the weights of the best epoch are kept, and
    restored at the end; with ``patience`` the loop stops after ``patience`` epochs without a lower
    validation loss (early stopping).

    Determinism: the shuffles, the validation split and torch's global generator (dropout, random
    augmentations inside ``loss_fn``) are all seeded from ``rng``; the global generator is forked, so the
    caller's torch random state is unchanged. On CPU the same ``rng`` gives bitwise identical weights
    (at a fixed thread count). The model's initial weights are the caller's: seed them before.

    Parameters
    ----------
    model : torch.nn.Module
        The network to train, in place. It is left in ``eval()`` mode at the end.
    loss_fn : callable
        ``loss_fn(model, *batch) -> scalar tensor``, the mean loss of a batch; ``batch`` holds the rows of
        every array in ``data``, in order, as tensors on ``device``.
    data : tuple of arrays or tensors
        Training data, e.g. ``(X, y)``, all with the same number of rows (a single array is taken as
        ``(X,)``). Floating arrays are cast to the model's dtype, integer arrays to int64.
    val : tuple of arrays or tensors, optional
        Validation data in the same layout as ``data``.
    val_fraction : float in (0, 1), optional
        Instead of ``val``: hold out this fraction of ``data`` at random (seeded) for validation.
    epochs : int, default 10
        Maximum number of passes over the training data.
    batch_size : int, default 128
        Rows per optimiser step.
    lr : float > 0, default 1e-3
        Base learning rate :math:`\eta`.
    optimizer : {"adam", "adamw", "sgd"} or callable, default "adam"
        ``"sgd"`` is Nesterov SGD with momentum 0.9; a callable ``params -> torch.optim.Optimizer``
        builds any other optimiser (``lr`` and ``weight_decay`` are then its own business, although
        ``schedule`` still scales its learning rates).
    weight_decay : float >= 0, default 0
        L2 penalty (decoupled for ``"adamw"``).
    grad_clip : float > 0, optional
        Maximum global gradient norm per step.
    patience : int >= 1, optional
        Stop after this many epochs without a lower validation loss (needs ``val`` or ``val_fraction``).
    checkpoint : str or Path, optional
        File written (atomically) after every epoch with everything needed to resume: weights, optimiser,
        generator states, loss history and the best weights. When it already exists from an interrupted
        run with the same settings, training resumes from it and ends with the same weights as an
        uninterrupted run; a checkpoint of a finished run is loaded without training.
    rng : None, int, SeedSequence or Generator
        Seed of the shuffles, the validation split and dropout.
    device : None, str or torch.device
        Where to train; ``None``: the device of the model's parameters. The model and data are moved there.
    progress : bool, default True
        Show a progress bar over epochs (only at a terminal and outside CI; see ``iclr26sci.core.progress``).
    schedule : {None, "cosine", "onecycle"}, default None
        Learning-rate schedule over all steps: constant, cosine decay to 0, or a 15 % linear warm-up from
        ``lr/10`` followed by cosine decay to ``lr/1000``.

    Returns
    -------
    FitResult
        Loss curves, best epoch, whether it stopped early, steps and seconds.

    Raises
    ------
    InputError
        For bad arguments (before any training or file write).
    FloatingPointError
        When the training loss becomes NaN or infinite (lower ``lr`` or set ``grad_clip``).

    References
    ----------
    Prechelt, "Early stopping -- but when?", in *Neural Networks: Tricks of the Trade*, Springer 1998.
    Kingma and Ba, "Adam: a method for stochastic optimization", ICLR 2015.
    Loshchilov and Hutter, "SGDR: stochastic gradient descent with warm restarts", ICLR 2017.

    Examples
    --------
    >>> import numpy as np, torch
    >>> X = np.linspace(-1, 1, 64).reshape(-1, 1).astype(np.float32); Y = 3 * X
    >>> torch.manual_seed(0); net = torch.nn.Linear(1, 1)  # doctest: +ELLIPSIS
    <torch._C.Generator object at ...>
    >>> mse = lambda m, x, y: torch.nn.functional.mse_loss(m(x), y)
    >>> res = fit(net, mse, (X, Y), epochs=60, batch_size=16, lr=0.05, rng=0, progress=False)
    >>> res.train_loss[-1] < 1e-3, round(float(net.weight.detach()), 2)
    (True, 3.0)
    """
    import torch

    # ---- validate everything before any work ----
    model = _check_module(model)
    if not callable(loss_fn):
        raise InputError("loss_fn", f"got {type(loss_fn).__name__}", "a callable loss_fn(model, *batch) -> scalar tensor")
    epochs = check_positive_int(epochs, "epochs")
    batch_size = check_positive_int(batch_size, "batch_size")
    lr = check_in_range(lr, "lr", 0.0, None, low_open=True)
    weight_decay = check_in_range(weight_decay, "weight_decay", 0.0, None)
    if not (callable(optimizer) and not isinstance(optimizer, str)):
        check_option(optimizer, "optimizer", _OPTIMIZERS)
    if grad_clip is not None:
        grad_clip = check_in_range(grad_clip, "grad_clip", 0.0, None, low_open=True)
    if schedule is not None:
        schedule = check_option(schedule, "schedule", _SCHEDULES)
    progress = check_bool(progress, "progress")
    if val is not None and val_fraction is not None:
        raise InputError("val_fraction", "was given together with val", "either val or val_fraction, not both")
    if val_fraction is not None:
        val_fraction = check_in_range(val_fraction, "val_fraction", 0.0, 1.0, low_open=True, high_open=True)
    if patience is not None:
        patience = check_positive_int(patience, "patience")
        if val is None and val_fraction is None:
            raise InputError("patience", "needs a validation set for early stopping", "val=... or val_fraction=...")
    ckpt_path = None if checkpoint is None else _check_path(checkpoint, "checkpoint")
    dtype, dev = _model_dtype_device(model, device)
    tensors, n = _as_tensors(data, "data", dtype, dev)
    val_tensors = None
    if val is not None:
        val_tensors, _ = _as_tensors(val, "val", dtype, dev)
        if len(val_tensors) != len(tensors):
            raise InputError("val", f"has {len(val_tensors)} arrays but data has {len(tensors)}",
                             "the same layout as data, e.g. (X_val, y_val)")
        for i, (a, b) in enumerate(zip(tensors, val_tensors)):
            if a.shape[1:] != b.shape[1:]:
                raise InputError("val", f"val[{i}] has rows of shape {tuple(b.shape[1:])}, data[{i}] "
                                 f"{tuple(a.shape[1:])}", "rows shaped like the training data")

    # ---- seeding: one numpy generator feeds the split, the shuffle generator and the global torch seed ----
    gen_np = as_generator(rng)
    seed_state = None if rng is None else _rng_digest(gen_np)
    if val_fraction is not None:
        n_val = int(round(val_fraction * n))
        if n_val < 1 or n_val >= n:
            raise InputError("val_fraction", f"holds out {n_val} of {n} rows", "a fraction leaving both parts non-empty")
        perm = torch.from_numpy(gen_np.permutation(n)).to(dev)
        vi, ti = perm[:n_val].sort().values, perm[n_val:].sort().values
        val_tensors = tuple(t[vi] for t in tensors)
        tensors = tuple(t[ti] for t in tensors)
        n = n - n_val
    shuffle_gen = torch.Generator().manual_seed(int(gen_np.integers(0, 2**63 - 1)))
    global_seed = int(gen_np.integers(0, 2**63 - 1))
    fingerprint = _fingerprint(n, 0 if val_tensors is None else val_tensors[0].shape[0], epochs, batch_size, lr,
                               optimizer, weight_decay, schedule, seed_state)

    model.to(dev)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise InputError("model", "has no trainable parameters", "a module with parameters that require grad")
    opt = _make_optimizer(optimizer, params, lr, weight_decay)
    base_lrs = [g["lr"] for g in opt.param_groups]
    steps_per_epoch = len(_batches_count(n, batch_size))
    total_steps = steps_per_epoch * epochs

    # ---- resume ----
    history, val_hist = [], ([] if val_tensors is not None else None)
    best_val, best_epoch, best_state, bad_epochs, n_steps, stopped = math.inf, -1, None, 0, 0, False
    resumed = 0
    global_state = None
    if ckpt_path is not None and ckpt_path.exists():
        payload = load_checkpoint(ckpt_path)
        st = payload.get("fit_state")
        if not st or st.get("fingerprint") != fingerprint:
            raise InputError("checkpoint", f"{str(ckpt_path)!r} holds a run with other data or settings",
                             "a new checkpoint path, or the same data, seed and settings to resume")
        model.load_state_dict(payload["state_dict"])
        opt.load_state_dict(payload["optimizer"])
        shuffle_gen.set_state(st["shuffle_gen"])
        global_state = st["global_rng"]
        history, val_hist = list(st["train_loss"]), (None if st["val_loss"] is None else list(st["val_loss"]))
        best_val, best_epoch, bad_epochs = st["best_val"], st["best_epoch"], st["bad_epochs"]
        best_state, n_steps, stopped = st["best_state"], st["n_steps"], st["stopped"]
        resumed = len(history)

    devices = [dev.index if dev.index is not None else torch.cuda.current_device()] if dev.type == "cuda" else []
    t0, c0 = time.perf_counter(), time.process_time()
    with torch.random.fork_rng(devices=devices):
        if global_state is None:
            torch.manual_seed(global_seed)
        else:
            torch.set_rng_state(global_state)
        epoch_iter = range(len(history), epochs) if not stopped else range(0)
        bar = _progress(epoch_iter, desc="fit", enabled=None if progress else False)
        for epoch in bar:
            total, count = torch.zeros((), dtype=torch.float64, device=dev), 0
            for idx in _batches(n, batch_size, shuffle_gen, dev):
                if schedule is not None:
                    f = _lr_factor(schedule, n_steps, total_steps)
                    for g, b in zip(opt.param_groups, base_lrs):
                        g["lr"] = b * f
                batch = tuple(t[idx] for t in tensors)
                loss = _call_loss(loss_fn, model, batch)
                if not loss.requires_grad:
                    raise InputError("loss_fn", "returned a tensor without a gradient",
                                     "a loss computed from the model's output")
                opt.zero_grad(set_to_none=True)
                loss.backward()
                if grad_clip is not None:
                    torch.nn.utils.clip_grad_norm_(params, grad_clip)
                opt.step()
                n_steps += 1
                total += loss.detach().to(torch.float64) * idx.numel()
                count += idx.numel()
            epoch_loss = float(total) / count
            if not math.isfinite(epoch_loss):
                raise FloatingPointError(f"fit: the training loss became {epoch_loss} in epoch {epoch}; "
                                         "lower lr or set grad_clip")
            history.append(epoch_loss)
            if val_tensors is not None:
                v = _eval_loss(model, loss_fn, val_tensors, max(batch_size, 256))
                val_hist.append(v)
                if v < best_val:
                    best_val, best_epoch, bad_epochs = v, epoch, 0
                    best_state = {k: t.detach().clone() for k, t in model.state_dict().items()}
                else:
                    bad_epochs += 1
                if patience is not None and bad_epochs >= patience and epoch + 1 < epochs:
                    stopped = True
            if hasattr(bar, "set_postfix"):
                bar.set_postfix(loss=f"{epoch_loss:.4g}", **({"val": f"{val_hist[-1]:.4g}"} if val_hist else {}))
            if ckpt_path is not None:
                state = {"fingerprint": fingerprint, "shuffle_gen": shuffle_gen.get_state(),
                         "global_rng": torch.get_rng_state(), "train_loss": history, "val_loss": val_hist,
                         "best_val": best_val, "best_epoch": best_epoch, "bad_epochs": bad_epochs,
                         "best_state": None if best_state is None else {k: t.cpu() for k, t in best_state.items()},
                         "n_steps": n_steps, "stopped": stopped}
                save_checkpoint(ckpt_path, model, opt, {"epoch": epoch, "train_loss": epoch_loss}, _state=state)
            if stopped:
                break
        if hasattr(bar, "close"):
            bar.close()

    if val_tensors is not None and best_state is not None:
        model.load_state_dict({k: t.to(dev) for k, t in best_state.items()})
    else:
        best_epoch = len(history) - 1
    model.eval()
    return FitResult(train_loss=tuple(history), val_loss=None if val_hist is None else tuple(val_hist),
                     best_epoch=int(best_epoch), stopped_early=bool(stopped), n_steps=int(n_steps),
                     seconds=time.perf_counter() - t0, cpu_seconds=time.process_time() - c0,
                     resumed_epochs=resumed)


def _rng_digest(gen) -> str:
    """A short digest of a numpy generator's state (any bit generator), before any draw."""
    import hashlib

    return hashlib.sha256(repr(gen.bit_generator.state).encode()).hexdigest()[:16]


def _batches_count(n, batch_size):
    k = -(-n // batch_size)
    if k > 1 and n - (k - 1) * batch_size == 1:
        k -= 1
    return range(k)
