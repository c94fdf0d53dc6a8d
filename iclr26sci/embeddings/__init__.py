"""Uncertainty-driven Embedding Convolution (UEC; Lim et al., ICLR 2026, arXiv:2507.20718).

Ensembles several frozen text encoders using per-text embedding uncertainty:
a post-hoc diagonal Laplace approximation on one linear layer turns each
encoder into a diagonal Gaussian embedding; per-text coefficients are a
softmax of total precision; the members are convolved (weighted sum of
independent Gaussians) and compared with an uncertainty-aware similarity.

The estimators (which need scikit-learn and torch) are imported on first use,
so ``import iclr26sci.embeddings`` stays fast.
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

_LAZY = {
    "UEC": "._ensemble", "uec_combine": "._ensemble", "MismatchedMembersWarning": "._ensemble",
    "DiagLaplaceLinear": "._laplace", "contrastive_row_losses": "._laplace", "per_row_gradients": "._laplace",
    "ProbabilisticEncoder": "._probabilistic", "alignment_matrix": "._probabilistic", "check_pairs": "._probabilistic",
}


def __getattr__(name):  # PEP 562: the torch / scikit-learn parts load on first access
    if name in _LAZY:
        from iclr26sci.core._lazy import load_name   # a missing torch names the extra to install

        value = load_name(__name__, _LAZY[name], name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "encoders", "UEC", "uec_combine", "MismatchedMembersWarning", "ProbabilisticEncoder", "DiagLaplaceLinear",
    "GaussianEmbeddings", "TextEncoder", "TransformerEncoder", "Doc2VecEncoder", "WordVectorEncoder", "LSAEncoder",
    "uec_coefficients", "gaussian_convolution", "dot_variance", "uncertainty_similarity", "normalize_gaussian",
    "total_precision", "contrastive_row_losses", "per_row_gradients", "alignment_matrix", "check_pairs",
    "check_texts", "CITATION",
]
