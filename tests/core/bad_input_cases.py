"""Bad-input sweep cases for iclr26sci.core (format: tests/bad_input_sweep.py)."""
import numpy as np

from bad_input_sweep import Case
from iclr26sci.core import check_in_range, check_rng, clone_keeping_fitted, resolve_rng

CASES = [
    Case("core.019", "check_in_range", "0-d numpy array", lambda: check_in_range(np.array(0.5), "v", 0, 1), ("v",)),
    Case("core.019b", "check_in_range", "1-element array", lambda: check_in_range(np.array([0.5]), "v", 0, 1), ("v",)),
    Case("core.100", "check_rng", "a string", lambda: check_rng("x"), ("rng",)),
    Case("core.101", "check_rng", "a negative seed", lambda: check_rng(-3), ("rng",)),
    Case("core.102", "check_rng", "a float seed", lambda: check_rng(1.5, "seed"), ("seed",)),
    Case("core.103", "check_rng", "a bool", lambda: check_rng(True), ("rng",)),
    Case("core.110", "resolve_rng", "rng and random_state differ", lambda: resolve_rng(1, 2), ("random_state", "rng")),
    Case("core.111", "resolve_rng", "a string random_state", lambda: resolve_rng(None, "x"), ("random_state",)),
    Case("core.113", "clone_keeping_fitted", "not an estimator", lambda: clone_keeping_fitted([1, 2]), ("estimator",)),
    Case("core.114", "clone_keeping_fitted", "a class, not an instance", lambda: clone_keeping_fitted(dict),
         ("estimator",)),
    Case("core.112", "resolve_rng", "a negative rng", lambda: resolve_rng(-1, None), ("rng",)),
]
