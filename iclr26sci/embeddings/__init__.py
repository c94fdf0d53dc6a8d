"""Uncertainty-driven Embedding Convolution (UEC; Lim et al., ICLR 2026, arXiv:2507.20718).

Ensembles several frozen text encoders using per-text embedding uncertainty:
a post-hoc diagonal Laplace approximation on one linear layer turns each
encoder into a diagonal Gaussian embedding; per-text coefficients are a
softmax of total precision; the members are convolved (weighted sum of
independent Gaussians) and compared with an uncertainty-aware similarity.
"""
from . import encoders
from ._encoders import (
    Doc2VecEncoder,
    LSAEncoder,
    TextEncoder,
    TransformerEncoder,
    WordVectorEncoder,
    check_texts,
)
from ._ensemble import UEC, uec_combine
from ._laplace import DiagLaplaceLinear, contrastive_row_losses, per_row_gradients
from ._probabilistic import ProbabilisticEncoder, alignment_matrix, check_pairs
from ._uec import (
    CITATION,
    GaussianEmbeddings,
    dot_variance,
    gaussian_convolution,
    normalize_gaussian,
    total_precision,
    uec_coefficients,
    uncertainty_similarity,
)

__all__ = [
    "encoders", "UEC", "uec_combine", "ProbabilisticEncoder", "DiagLaplaceLinear", "GaussianEmbeddings",
    "TextEncoder", "TransformerEncoder", "Doc2VecEncoder", "WordVectorEncoder", "LSAEncoder",
    "uec_coefficients", "gaussian_convolution", "dot_variance", "uncertainty_similarity", "normalize_gaussian",
    "total_precision", "contrastive_row_losses", "per_row_gradients", "alignment_matrix", "check_pairs",
    "check_texts", "CITATION",
]
