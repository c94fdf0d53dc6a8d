"""Bad-input sweep cases for iclr26sci.core (format: tests/bad_input_sweep.py)."""
import numpy as np

from bad_input_sweep import Case
from iclr26sci.core import check_in_range

CASES = [
    Case("core.019", "check_in_range", "0-d numpy array", lambda: check_in_range(np.array(0.5), "v", 0, 1), ("v",)),
]
