"""Layer 1: probabilistic primitives shared by the methods."""
from ._binomial import binomial_band
from ._gaussian import DiagonalGaussian
from ._gdp import (
    GaussianAccountant,
    gaussian_sigma,
    gdp_compose,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
    gdp_mu_gaussian,
    zcdp_epsilon,
)
from ._quantile import pinball_loss, truncated_normal_moments, weighted_quantile
from ._wasserstein import DiscreteLaw, wasserstein_distance

__all__ = [
    "binomial_band", "DiagonalGaussian", "GaussianAccountant", "gaussian_sigma", "gdp_compose", "gdp_delta",
    "gdp_epsilon", "gdp_mu", "gdp_mu_gaussian", "zcdp_epsilon", "pinball_loss", "truncated_normal_moments",
    "weighted_quantile", "DiscreteLaw", "wasserstein_distance",
]
