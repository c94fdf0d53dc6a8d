"""Theory-informed deep kernel GPs (Zakirov & Tkacik, arXiv:2509.24919).

A normative theory (efficient coding) generates synthetic neurons; a deep
kernel GP prior is meta-learned on them with task-specific hyper-parameters
and implicit-function-theorem hypergradients; the resulting kernel is
adapted to real neurons and compared with other models by exact evidences.
"""
from ._gp import KernelCholeskyError, gpytorch_log_evidence, numpy_log_evidence
from ._model import (DeepKernelGP, FixedFeatureGP, NeuronGP, PixelRBFGP, ScratchDKL, TheoryInformedKernel,
                     ift_hypergradient, psi_hessian, solve_inner, transform_responses)
from ._select import BayesFactor, TheoryMatch, bayes_factor, theory_match
from ._tasks import Task, TheoryTaskSampler, simulate_responses
from ._theory import EfficientCodingTheory, SparseCodingTheory, extract_patches, surround_ratio

__all__ = [
    "EfficientCodingTheory", "SparseCodingTheory", "extract_patches", "surround_ratio",
    "Task", "TheoryTaskSampler", "simulate_responses",
    "DeepKernelGP", "TheoryInformedKernel", "PixelRBFGP", "FixedFeatureGP", "ScratchDKL", "NeuronGP",
    "solve_inner", "psi_hessian", "ift_hypergradient", "transform_responses",
    "BayesFactor", "bayes_factor", "TheoryMatch", "theory_match",
    "KernelCholeskyError", "gpytorch_log_evidence", "numpy_log_evidence",
]
