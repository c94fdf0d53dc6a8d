"""Efficient and sharp off-policy learning under unobserved confounding (arXiv:2502.13022).

Sharp bounds on policy values under the marginal sensitivity model MSM(Gamma), the
cross-fitted one-step (efficient, Neyman-orthogonal) estimator as a per-unit, per-arm
score matrix, confounding-robust policy learning, improvement certificates, the
breakdown Gamma, and the baselines DM / IPW / DR / Kallus-Zhou.
"""
from ._baselines import KallusZhouLearner, max_weighted_ratio, msm_weight_bounds, zsb_apo_bound
from ._confound import induce_confounding, rct_policy_value, split_rct
from ._msm import (CITATION, dm_scores, dr_scores, efficient_scores, gaussian_capo_bound, ipw_scores, kappa,
                   msm_weights, paper_to_centered, plugin_scores, quantile_level, sharp_capo_bound)
from ._nuisance import CrossFitNuisances, NuisanceModels, SmoothedQuantileRegressor, cross_fit_nuisances
from ._policy import FixedPolicy, SoftmaxLinearPolicy, TreePolicy, as_policy_matrix
from ._sharp import (BreakdownResult, ImprovementCertificate, SharpPolicyLearner, ValueBounds, breakdown_gamma,
                     policy_improvement, policy_value, score_matrix, sensitivity_curve, sharp_value_bounds)
from ._sim import simulate_paper_dgp, simulate_v1, v1_capo_bound, v1_nuisances, v1_true_value


def __getattr__(name):  # the torch MLP pieces load torch only when asked for
    if name in ("MLPPolicy", "MLPClassifier64", "MLPRegressor64"):
        from . import _mlp

        return getattr(_mlp, name)
    raise AttributeError(name)


__all__ = [
    "CITATION", "sharp_value_bounds", "SharpPolicyLearner", "policy_improvement", "sensitivity_curve",
    "breakdown_gamma", "policy_value", "ValueBounds", "ImprovementCertificate", "BreakdownResult", "score_matrix",
    "efficient_scores", "plugin_scores", "dm_scores", "ipw_scores", "dr_scores", "sharp_capo_bound",
    "gaussian_capo_bound", "kappa", "quantile_level", "msm_weights", "paper_to_centered",
    "NuisanceModels", "CrossFitNuisances", "cross_fit_nuisances", "SmoothedQuantileRegressor",
    "SoftmaxLinearPolicy", "TreePolicy", "FixedPolicy", "as_policy_matrix", "MLPPolicy", "MLPClassifier64",
    "MLPRegressor64", "KallusZhouLearner", "max_weighted_ratio", "msm_weight_bounds", "zsb_apo_bound",
    "induce_confounding", "split_rct", "rct_policy_value", "simulate_v1", "simulate_paper_dgp", "v1_nuisances",
    "v1_capo_bound", "v1_true_value",
]
