"""Theory-informed deep kernel GPs (Zakirov & Tkacik, arXiv:2509.24919).

A normative theory (efficient coding) generates synthetic neurons; a deep
kernel GP prior is meta-learned on them with task-specific hyper-parameters
and implicit-function-theorem hypergradients; the resulting kernel is
adapted to real neurons and compared with other models by exact evidences.

The public names are loaded lazily (PEP 562): ``import iclr26sci.kernels`` does not import torch; the
first use of a name imports the sub-module that defines it.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader

_WHERE = {
    "EfficientCodingTheory": "_theory", "SparseCodingTheory": "_theory", "extract_patches": "_theory",
    "surround_ratio": "_theory",
    "Task": "_tasks", "TheoryTaskSampler": "_tasks", "simulate_responses": "_tasks",
    "DeepKernelGP": "_model", "TheoryInformedKernel": "_model", "PixelRBFGP": "_model", "FixedFeatureGP": "_model",
    "ScratchDKL": "_model", "NeuronGP": "_model", "solve_inner": "_model", "psi_hessian": "_model",
    "ift_hypergradient": "_model", "transform_responses": "_model",
    "BayesFactor": "_select", "bayes_factor": "_select", "TheoryMatch": "_select", "theory_match": "_select",
    "KernelCholeskyError": "_gp", "gpytorch_log_evidence": "_gp", "numpy_log_evidence": "_gp",
    "NullGP": "_null", "ModelPosterior": "_null", "model_posterior": "_null", "nuts_log_evidence": "_nuts",
}

__all__ = [
    "EfficientCodingTheory", "SparseCodingTheory", "extract_patches", "surround_ratio",
    "Task", "TheoryTaskSampler", "simulate_responses",
    "DeepKernelGP", "TheoryInformedKernel", "PixelRBFGP", "FixedFeatureGP", "ScratchDKL", "NeuronGP",
    "solve_inner", "psi_hessian", "ift_hypergradient", "transform_responses",
    "BayesFactor", "bayes_factor", "TheoryMatch", "theory_match",
    "KernelCholeskyError", "gpytorch_log_evidence", "numpy_log_evidence",
    "NullGP", "ModelPosterior", "model_posterior", "nuts_log_evidence",
]


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
