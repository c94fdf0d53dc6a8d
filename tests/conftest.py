import os
import sys

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")
# the bad-input sweep harness (tests/bad_input_sweep.py) is imported by the case files, also when
# --doctest-modules collects them
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MUJOCO_GL", "osmesa")  # headless rendering, before any test imports mujoco

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=30, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", deadline=None, max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def rng():
    import numpy as np

    return np.random.default_rng(12345)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "bad_input(*names): the test feeds bad input to these public names ('pkg.name', e.g. "
        "'causal.sharp_value_bounds') and asserts a clear InputError; tests/test_public_api.py requires "
        "one for every name in every sub-package's __all__",
    )
