"""Layer 0: seeding, results, errors, parallel replicates, progress, datasets."""
from ._clone import clone_keeping_fitted
from ._data import ObservationalData
from ._errors import (
    InputError,
    check_array,
    check_bool,
    check_is_fitted,
    check_memory,
    check_consistent_length,
    check_in_range,
    check_option,
    check_positive_int,
    check_probability_vector,
)
from ._parallel import map_replicates
from ._progress import progress, progress_enabled, resolve_progress
from ._results import Estimate
from ._rng import as_generator, check_rng, resolve_rng, seed_sequence, spawn, torch_generator

__all__ = [
    "InputError", "NotFittedError", "check_bool", "check_is_fitted", "check_memory", "check_array", "check_consistent_length", "check_in_range", "check_option",
    "check_positive_int", "check_probability_vector", "map_replicates", "progress", "progress_enabled", "resolve_progress",
    "Estimate", "clone_keeping_fitted", "as_generator", "check_rng", "resolve_rng", "seed_sequence", "spawn", "torch_generator", "ObservationalData",
]


def __getattr__(name):  # NotFittedError is built on first use (it subclasses scikit-learn's, a slow import)
    if name == "NotFittedError":
        from . import _errors

        return _errors.NotFittedError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
