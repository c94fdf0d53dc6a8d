"""Layer 0: seeding, results, errors, parallel replicates, progress, datasets."""
from ._data import ObservationalData
from ._errors import (
    InputError,
    check_array,
    check_consistent_length,
    check_in_range,
    check_option,
    check_positive_int,
    check_probability_vector,
)
from ._parallel import map_replicates
from ._progress import progress, progress_enabled
from ._results import Estimate
from ._rng import as_generator, seed_sequence, spawn, torch_generator

__all__ = [
    "InputError", "check_array", "check_consistent_length", "check_in_range", "check_option",
    "check_positive_int", "check_probability_vector", "map_replicates", "progress", "progress_enabled",
    "Estimate", "as_generator", "seed_sequence", "spawn", "torch_generator", "ObservationalData",
]
