"""Bad-input sweep cases for iclr26sci.prob (format: tests/bad_input_sweep.py).

Audit rows prob.020 and prob.074 are legitimate calls with the right value (see test_prob_bad_input_audit.py).
"""
import numpy as np

from bad_input_sweep import Case
from iclr26sci.prob import DiagonalGaussian


def _huge_mean_dot():
    a = DiagonalGaussian(np.full((1, 2), 1e200), 1.0)
    return a.expected_dot(a)


CASES = [
    Case("prob.112", "DiagonalGaussian", "huge mean 1e200 -> dot overflow", _huge_mean_dot, ("mean",)),
    Case("prob.112b", "DiagonalGaussian", "huge variances whose sum overflows",
         lambda: DiagonalGaussian(np.zeros((1, 3)), np.full((1, 3), 1e308)), ("var",)),
]
