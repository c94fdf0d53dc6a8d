"""Shared fixtures of the kernels tests: one tiny meta-fitted model, built once per session."""
from __future__ import annotations

import functools

import numpy as np
import pytest


@functools.lru_cache(maxsize=None)
def _tiny_setup(n_tasks: int):
    from scipy.ndimage import gaussian_filter

    from iclr26sci.kernels import EfficientCodingTheory, TheoryInformedKernel, TheoryTaskSampler, extract_patches

    g = np.random.default_rng(0)
    imgs = [gaussian_filter(g.standard_normal((48, 48)), 1.2) for _ in range(3)]
    patches = extract_patches(imgs, 6, 600, rng=0)
    theory = EfficientCodingTheory(center_radius=1.0).fit(patches)
    tasks = TheoryTaskSampler(theory, patches, n_tasks=n_tasks, n_support=(12,), n_query=8, rng=1)
    tik = TheoryInformedKernel(feature_dim=3, channels=3, kernel_size=3, n_outer=3, tasks_per_step=2,
                               progress=False).meta_fit(tasks, rng=0)
    return patches, theory, tasks, tik


@pytest.fixture(scope="session")
def tiny_kernels():
    """``tiny_kernels(n_tasks) -> (patches, theory, tasks, tik)``: 6x6 patches of smoothed noise, 3-D features."""
    return _tiny_setup
