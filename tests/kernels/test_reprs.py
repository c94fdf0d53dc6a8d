"""Theories and task samplers print what they are, not an object address."""
import numpy as np

from iclr26sci.kernels import EfficientCodingTheory, SparseCodingTheory, TheoryTaskSampler


def test_theory_and_sampler_reprs_are_short_and_informative():
    X = np.random.default_rng(0).laplace(size=(400, 16))
    theory = EfficientCodingTheory()
    assert repr(theory) == "EfficientCodingTheory(model='atick_redlich', noise=(0.01, 1.0))"
    theory.fit(X)
    assert "fitted on 4x4 patches" in repr(theory)
    sampler = TheoryTaskSampler(theory, X, n_tasks=5, n_support=(5,), n_query=5, rng=0)
    assert repr(sampler) == "TheoryTaskSampler(n_tasks=5, n_support=[5], n_query=5, response='poisson')"
    sparse = SparseCodingTheory(n_components=4, rng=0).fit(X)
    assert "4 filters on 4x4 patches" in repr(sparse)
    for obj in (theory, sampler, sparse):
        assert " at 0x" not in repr(obj)
