"""Bad-input sweep cases for iclr26sci.causal (format: tests/bad_input_sweep.py)."""
import numpy as np

from bad_input_sweep import Case
from iclr26sci import causal


def _xay():
    data, _ = causal.simulate_v1(150, 2.0, d=2, rng=0)
    return data.X, data.A, data.Y


def _cross_fit_three_arms():
    X, A, Y = _xay()
    return causal.cross_fit_nuisances(X, A, Y, 3, [0.5], cv=2, rng=0).e


CASES = [
    Case("causal.014", "sharp_value_bounds", "tuple data ragged X",
         lambda: causal.sharp_value_bounds(([[1.0], [1.0, 2.0]], [0, 1], [1.0, 2.0]), 0, cv=2), ("X", "data")),
    Case("causal.136", "cross_fit_nuisances", "n_arms 3 (> labels)", _cross_fit_three_arms, ("n_arms",)),
    Case("causal.171", "SmoothedQuantileRegressor.predict", "unfitted",
         lambda: causal.SmoothedQuantileRegressor().predict(np.zeros((2, 2))), ("SmoothedQuantileRegressor.predict",)),
    Case("causal.217", "MLPClassifier64.predict_proba", "unfitted",
         lambda: causal.MLPClassifier64().predict_proba(np.zeros((3, 2))), ("MLPClassifier64.predict_proba",)),
    Case("causal.222", "MLPRegressor64.predict", "unfitted",
         lambda: causal.MLPRegressor64().predict(np.zeros((3, 2))), ("MLPRegressor64.predict",)),
    Case("causal.232", "KallusZhouLearner.predict", "unfitted",
         lambda: causal.KallusZhouLearner().predict(np.zeros((3, 2))), ("KallusZhouLearner.predict",)),
]
