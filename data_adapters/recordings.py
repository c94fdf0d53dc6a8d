"""User recordings: a stimulus array and a neurons-by-trials response array (npz or HDF5).

Reads only the path the user passes; never downloads.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from iclr26sci.core import InputError, check_array, check_bool

from ._base import adapter

__all__ = ["Recording", "load_recording", "save_recording"]


@dataclass(frozen=True)
class Recording:
    """Stimuli shown on each trial and the responses of each neuron.

    Parameters
    ----------
    stimuli : ndarray (n_trials, d) float
        Flattened stimuli, one row per trial (a (n_trials, p, p) file is
        flattened; ``stimulus_shape`` keeps (p, p)). At least one trial.
    responses : ndarray (n_neurons, n_trials) float
        Response of each neuron on each trial: spike counts (whole,
        non-negative; checked when ``counts``) or rates.
    neuron_ids : tuple of str
        One distinct name per neuron (row of ``responses``).
    stimulus_shape : tuple of int
        Shape of one stimulus before flattening (its product is ``d``).
    counts : bool, default True
        ``responses`` are spike counts (a real bool).
    source : str, optional
        The file the recording came from.
    meta : dict, optional
        Anything else to keep with the recording.

    Examples
    --------
    >>> import numpy as np
    >>> rec = Recording(np.zeros((3, 4)), np.array([[0, 1, 2], [3, 0, 1]]), ("n1", "n2"), (2, 2))
    >>> rec
    Recording(n_neurons=2, n_trials=3, stimulus_shape=(2, 2), counts=True, source=None)
    >>> rec.neuron("n2")
    array([3., 0., 1.])
    """

    stimuli: np.ndarray
    responses: np.ndarray
    neuron_ids: tuple
    stimulus_shape: tuple
    counts: bool = True
    source: str | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        counts = check_bool(self.counts, "counts")
        ids = self.neuron_ids
        if isinstance(ids, (str, bytes)) or not hasattr(ids, "__len__"):
            raise InputError("neuron_ids", f"got {ids!r}", "a tuple of one string per neuron")
        ids = tuple(ids)
        if not all(isinstance(t, str) for t in ids):
            raise InputError("neuron_ids", "has non-string entries", "a tuple of strings")
        if len(set(ids)) != len(ids):
            dup = sorted({t for t in ids if ids.count(t) > 1})
            raise InputError("neuron_ids", f"has duplicates {dup[:5]}", "one distinct id per neuron")
        shp = self.stimulus_shape
        if isinstance(shp, (str, bytes)) or not hasattr(shp, "__len__") or not all(
                isinstance(t, (int, np.integer)) and not isinstance(t, bool) and t >= 1 for t in shp):
            raise InputError("stimulus_shape", f"got {shp!r}", "a tuple of positive ints")
        if not isinstance(self.meta, dict):
            raise InputError("meta", f"got {type(self.meta).__name__}", "a dict")
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "neuron_ids", ids)
        object.__setattr__(self, "stimulus_shape", tuple(int(t) for t in shp))
        X = check_array(self.stimuli, "stimuli", ndim=2, min_rows=1)
        Y = check_array(self.responses, "responses", ndim=2, nonnegative=self.counts)
        if Y.shape[1] != X.shape[0]:
            raise InputError("responses", f"have {Y.shape[1]} trials but stimuli have {X.shape[0]}",
                             "a (n_neurons, n_trials) array matching the stimuli")
        if self.counts and np.any(Y != np.round(Y)):
            raise InputError("responses", "are not whole spike counts", "integer counts (or counts=False for rates)")
        if len(self.neuron_ids) != Y.shape[0]:
            raise InputError("neuron_ids", f"has {len(self.neuron_ids)} names for {Y.shape[0]} neurons",
                             "one id per neuron")
        if int(np.prod(self.stimulus_shape)) != X.shape[1]:
            raise InputError("stimulus_shape", f"{self.stimulus_shape} does not match {X.shape[1]} values",
                             "a shape whose product is the stimulus dimension")
        object.__setattr__(self, "stimuli", X)
        object.__setattr__(self, "responses", Y)

    @property
    def n_neurons(self) -> int:
        """Number of neurons (rows of ``responses``)."""
        return self.responses.shape[0]

    @property
    def n_trials(self) -> int:
        """Number of trials (rows of ``stimuli``)."""
        return self.stimuli.shape[0]

    def __eq__(self, other) -> bool:
        """Same stimuli, responses (elementwise), ids, stimulus shape and count flag; ``meta`` is not compared."""
        if not isinstance(other, Recording):
            return NotImplemented
        return bool(np.array_equal(self.stimuli, other.stimuli) and np.array_equal(self.responses, other.responses)
                    and self.neuron_ids == other.neuron_ids and self.stimulus_shape == other.stimulus_shape
                    and self.counts == other.counts)

    def __repr__(self) -> str:
        return (f"Recording(n_neurons={self.n_neurons}, n_trials={self.n_trials}, "
                f"stimulus_shape={self.stimulus_shape}, counts={self.counts}, source={self.source!r})")

    def summary(self) -> str:
        """A few lines: sizes, response range and mean, source."""
        return (f"Recording: {self.n_neurons} neurons x {self.n_trials} trials, stimuli of shape "
                f"{self.stimulus_shape}\n  responses ({'counts' if self.counts else 'rates'}): mean "
                f"{self.responses.mean():.4g}, max {self.responses.max():.4g}\n  source: {self.source}")

    def to_dict(self) -> dict:
        """Sizes and metadata as a plain dict (the arrays are summarised, not dumped)."""
        return {"n_neurons": self.n_neurons, "n_trials": self.n_trials, "stimulus_shape": list(self.stimulus_shape),
                "neuron_ids": list(self.neuron_ids), "counts": self.counts, "source": self.source,
                "mean_response": float(self.responses.mean())}

    def neuron(self, i) -> np.ndarray:
        """Responses (n_trials,) of neuron ``i``.

        Parameters
        ----------
        i : int in [0, n_neurons) or str
            Row index (negative indices are refused) or one of ``neuron_ids``.
        """
        if isinstance(i, str):
            if i not in self.neuron_ids:
                raise InputError("i", f"unknown neuron id {i!r}", "one of neuron_ids")
            i = self.neuron_ids.index(i)
        elif isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise InputError("i", f"got {i!r} of type {type(i).__name__}", "an integer index or a neuron id")
        elif not 0 <= int(i) < self.n_neurons:
            raise InputError("i", f"got {int(i)} for {self.n_neurons} neurons", f"an index in [0, {self.n_neurons})")
        return self.responses[int(i)]

    def split(self, n_train: int, rng=None):
        """Random trial split -> (train Recording, test Recording).

        Parameters
        ----------
        n_train : int in [1, n_trials)
            Number of trials in the training part; the rest form the test part.
        rng : seed or numpy Generator, optional
            Random source for the permutation (SPEC 7).
        """
        from iclr26sci.core import as_generator, check_positive_int

        n_train = check_positive_int(n_train, "n_train")
        if n_train >= self.n_trials:
            raise InputError("n_train", f"got {n_train} for {self.n_trials} trials", "fewer than n_trials")
        perm = as_generator(rng).permutation(self.n_trials)
        a, b = perm[:n_train], perm[n_train:]
        mk = lambda idx: Recording(self.stimuli[idx], self.responses[:, idx], self.neuron_ids, self.stimulus_shape,
                                   self.counts, self.source, dict(self.meta))
        return mk(a), mk(b)


def _read(path, stimuli_key, responses_key, ids_key):
    ext = os.path.splitext(path)[1].lower()
    if ext == ".npz":
        import zipfile

        try:
            f = np.load(path, allow_pickle=False)
        except (ValueError, OSError, zipfile.BadZipFile) as exc:
            raise InputError("path", f"{path!r} is not a readable .npz file ({str(exc)[:80]})",
                             "a file written by numpy.savez / save_recording") from None
        if not hasattr(f, "keys"):  # a plain .npy renamed .npz
            raise InputError("path", f"{path!r} holds a single array, not an .npz archive", "an .npz archive")
        with f:
            keys = list(f.keys())
            for k, nm in ((stimuli_key, "stimuli_key"), (responses_key, "responses_key")):
                if k not in keys:
                    raise InputError(nm, f"{k!r} is not in {path} (keys: {keys})", "the name of an array in the file")
            out = []
            for k, nm in ((stimuli_key, "stimuli"), (responses_key, "responses"), (ids_key, "neuron_ids")):
                if nm == "neuron_ids" and k not in keys:
                    out.append(None)
                    continue
                try:
                    out.append(np.asarray(f[k]))
                except ValueError as exc:  # object arrays need pickle, which is never enabled
                    raise InputError(nm, f"the array {k!r} of {path!r} is stored as object (pickled) data "
                                         f"({str(exc)[:60]})", "a plain numeric array (this loader never unpickles)") \
                        from None
            return out[0], out[1], out[2]
    if ext in (".h5", ".hdf5", ".hdf"):
        try:
            import h5py
        except ImportError:
            raise InputError("path", "is an HDF5 file but h5py is not installed",
                             "an .npz file, or `pip install h5py`") from None
        try:
            f = h5py.File(path, "r")
        except OSError as exc:
            raise InputError("path", f"{path!r} is not a readable HDF5 file ({str(exc)[:80]})",
                             "a file written by h5py / save_recording") from None
        with f:
            keys = list(f.keys())
            for k, nm in ((stimuli_key, "stimuli_key"), (responses_key, "responses_key")):
                if k not in f:
                    raise InputError(nm, f"{k!r} is not in {path} (keys: {keys})", "the name of a dataset in the file")
            ids = f[ids_key][()] if ids_key in f else None
            return np.asarray(f[stimuli_key][()]), np.asarray(f[responses_key][()]), ids
    raise InputError("path", f"has extension {ext!r}", "'.npz', '.h5' or '.hdf5'")


@adapter(returns="Recording", source="a user file (npz or HDF5)",
         description="stimuli (n_trials, ...) and responses (n_neurons, n_trials) of a neural recording")
def load_recording(path, stimuli_key: str = "stimuli", responses_key: str = "responses",
                   neuron_ids_key: str = "neuron_ids", counts: bool = True, transpose: bool = False) -> Recording:
    """Load and validate a recording: a stimulus array plus a neurons-by-trials response array.

    Parameters
    ----------
    path : str
        ``.npz`` (numpy) or ``.h5``/``.hdf5`` (needs h5py) file.
    stimuli_key, responses_key, neuron_ids_key : str
        Names of the arrays in the file holding the stimuli, the responses
        and (optionally) the neuron ids.
    counts : bool, default True
        Responses are spike counts (checked non-negative integers).
    transpose : bool, default False
        The file stores responses as (n_trials, n_neurons).

    Returns
    -------
    Recording

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "r.npz")
    >>> np.savez(p, stimuli=np.zeros((4, 3)), responses=np.array([[1, 0, 2, 1]]))
    >>> load_recording(p)  # doctest: +ELLIPSIS
    Recording(n_neurons=1, n_trials=4, stimulus_shape=(3,), counts=True, source='...r.npz')
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputError("path", f"got {type(path).__name__}", "a file path")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InputError("path", f"{path!r} does not exist", "an existing .npz or HDF5 file")
    counts = check_bool(counts, "counts")
    transpose = check_bool(transpose, "transpose")
    for k, nm in ((stimuli_key, "stimuli_key"), (responses_key, "responses_key"), (neuron_ids_key, "neuron_ids_key")):
        if not isinstance(k, str):
            raise InputError(nm, f"got {type(k).__name__}", "the name (a string) of an array in the file")
    S, R, ids = _read(path, stimuli_key, responses_key, neuron_ids_key)
    S = check_array(S, "stimuli", ndim=(1, 2, 3), min_rows=1)
    shape = tuple(S.shape[1:]) if S.ndim > 1 else (1,)
    S = S.reshape(len(S), -1)
    R = check_array(R, "responses", ndim=(1, 2))
    if R.ndim == 1:
        R = R[None]
    if transpose:
        R = R.T
    if R.shape[1] != S.shape[0] and R.shape[0] == S.shape[0] and not transpose:
        raise InputError("responses", f"have shape {R.shape} for {S.shape[0]} trials",
                         "(n_neurons, n_trials); pass transpose=True for (n_trials, n_neurons)")
    if ids is None:
        ids = tuple(f"neuron_{i}" for i in range(R.shape[0]))
    else:
        ids = tuple(x.decode() if isinstance(x, bytes) else str(x) for x in np.asarray(ids).ravel())
    return Recording(S, R, ids, shape, counts, path)


def save_recording(path, stimuli, responses, neuron_ids=None, *, counts: bool = True) -> str:
    """Write a recording as ``.npz`` in the layout :func:`load_recording` reads.

    Everything is validated (with the rules of :class:`Recording`) before the file is written.

    Parameters
    ----------
    path : str or path-like
        Destination; ``.npz`` is appended when missing. Its directory must exist.
    stimuli : array (n_trials, ...)
        One stimulus per trial (at least one trial).
    responses : array (n_neurons, n_trials) or (n_trials,)
        Responses of each neuron on each trial.
    neuron_ids : sequence of str, optional
        One distinct id per neuron (default ``neuron_0, neuron_1, ...`` when loading).
    counts : bool, default True
        The responses are spike counts (whole, non-negative); ``False`` for rates.

    Returns
    -------
    str
        The path written.

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> p = save_recording(os.path.join(d, "rec"), np.zeros((3, 2, 2)), [[0, 1, 2]], neuron_ids=["v1"])
    >>> load_recording(p).n_trials
    3
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputError("path", f"got {type(path).__name__}", "a file path")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError("path", f"is in the directory {folder!r}, which does not exist", "a path in an existing directory")
    S = check_array(stimuli, "stimuli", ndim=(1, 2, 3), min_rows=1)
    R = check_array(responses, "responses", ndim=(1, 2))
    R2 = R[None] if R.ndim == 1 else R
    shape = tuple(S.shape[1:]) if S.ndim > 1 else (1,)
    if neuron_ids is not None:
        if isinstance(neuron_ids, (str, bytes)) or not hasattr(neuron_ids, "__len__"):
            raise InputError("neuron_ids", f"got {neuron_ids!r}", "a sequence of one string per neuron")
        ids = tuple(str(x) for x in neuron_ids)
    else:
        ids = tuple(f"neuron_{i}" for i in range(R2.shape[0]))
    Recording(S.reshape(len(S), -1), R2, ids, shape, counts)   # the same checks as load_recording
    kw = {"stimuli": S, "responses": R}
    if neuron_ids is not None:
        kw["neuron_ids"] = np.asarray(ids)
    np.savez(path, **kw)
    return path if path.endswith(".npz") else path + ".npz"
