"""User recordings: a stimulus array and a neurons-by-trials response array (npz or HDF5).

Reads only the path the user passes; never downloads.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from iclr26sci.core import InputError, check_array

from ._base import adapter

__all__ = ["Recording", "load_recording", "save_recording"]


@dataclass(frozen=True)
class Recording:
    """Stimuli shown on each trial and the responses of each neuron.

    Attributes
    ----------
    stimuli : ndarray (n_trials, d) float
        Flattened stimuli (a (n_trials, p, p) file is flattened; ``stimulus_shape`` keeps (p, p)).
    responses : ndarray (n_neurons, n_trials) float
        Spike counts (non-negative; checked when ``counts``) or rates.
    neuron_ids : tuple of str
    stimulus_shape : tuple of int
    counts : bool
    source : str
    """

    stimuli: np.ndarray
    responses: np.ndarray
    neuron_ids: tuple
    stimulus_shape: tuple
    counts: bool = True
    source: str | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
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
        return self.responses.shape[0]

    @property
    def n_trials(self) -> int:
        return self.stimuli.shape[0]

    def neuron(self, i) -> np.ndarray:
        """Responses (n_trials,) of neuron ``i`` (index or id)."""
        if isinstance(i, str):
            if i not in self.neuron_ids:
                raise InputError("i", f"unknown neuron id {i!r}", "one of neuron_ids")
            i = self.neuron_ids.index(i)
        return self.responses[int(i)]

    def split(self, n_train: int, rng=None):
        """Random trial split -> (train Recording, test Recording)."""
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
        with np.load(path, allow_pickle=False) as f:
            keys = list(f.keys())
            for k, nm in ((stimuli_key, "stimuli_key"), (responses_key, "responses_key")):
                if k not in keys:
                    raise InputError(nm, f"{k!r} is not in {path} (keys: {keys})", "the name of an array in the file")
            ids = f[ids_key] if ids_key in keys else None
            return np.asarray(f[stimuli_key]), np.asarray(f[responses_key]), ids
    if ext in (".h5", ".hdf5", ".hdf"):
        try:
            import h5py
        except ImportError:
            raise InputError("path", "is an HDF5 file but h5py is not installed",
                             "an .npz file, or `pip install h5py`") from None
        with h5py.File(path, "r") as f:
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
    stimuli_key, responses_key, neuron_ids_key : names of the arrays in the file.
    counts : bool
        Responses are spike counts (checked non-negative integers).
    transpose : bool
        The file stores responses as (n_trials, n_neurons).

    Returns
    -------
    Recording
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputError("path", f"got {type(path).__name__}", "a file path")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InputError("path", f"{path!r} does not exist", "an existing .npz or HDF5 file")
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


def save_recording(path, stimuli, responses, neuron_ids=None) -> str:
    """Write a recording as ``.npz`` in the layout :func:`load_recording` reads."""
    S = check_array(stimuli, "stimuli", ndim=(1, 2, 3))
    R = check_array(responses, "responses", ndim=(1, 2))
    kw = {"stimuli": S, "responses": R}
    if neuron_ids is not None:
        kw["neuron_ids"] = np.asarray([str(x) for x in neuron_ids])
    path = os.fspath(path)
    np.savez(path, **kw)
    return path if path.endswith(".npz") else path + ".npz"
