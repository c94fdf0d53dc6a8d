"""Efficient and sharp off-policy learning under unobserved confounding (arXiv:2502.13022).

Sharp bounds on policy values under the marginal sensitivity model MSM(Gamma), the
cross-fitted one-step (efficient, Neyman-orthogonal) estimator as a per-unit, per-arm
score matrix, confounding-robust policy learning, improvement certificates, the
breakdown Gamma, and the baselines DM / IPW / DR / Kallus-Zhou.
"""
from iclr26sci.core._lazy import lazy_loader

# Public name -> private module. Nothing heavy (scikit-learn, scipy.stats, torch) is imported by
# ``import iclr26sci.causal``: each module loads on first access to one of its names (PEP 562).
_WHERE = {
    "KallusZhouLearner": "_baselines", "max_weighted_ratio": "_baselines", "msm_weight_bounds": "_baselines",
    "zsb_apo_bound": "_baselines",
    "induce_confounding": "_confound", "rct_policy_value": "_confound", "split_rct": "_confound",
    "CITATION": "_msm", "dm_scores": "_msm", "dr_scores": "_msm", "efficient_scores": "_msm",
    "gaussian_capo_bound": "_msm", "ipw_scores": "_msm", "kappa": "_msm", "msm_weights": "_msm",
    "paper_to_centered": "_msm", "plugin_scores": "_msm", "quantile_level": "_msm", "sharp_capo_bound": "_msm",
    "CrossFitNuisances": "_nuisance", "NuisanceModels": "_nuisance", "SmoothedQuantileRegressor": "_nuisance",
    "cross_fit_nuisances": "_nuisance",
    "FixedPolicy": "_policy", "SoftmaxLinearPolicy": "_policy", "TreePolicy": "_policy",
    "as_policy_matrix": "_policy",
    "BreakdownResult": "_sharp", "ImprovementCertificate": "_sharp", "SharpPolicyLearner": "_sharp",
    "ValueBounds": "_sharp", "breakdown_gamma": "_sharp", "policy_improvement": "_sharp", "policy_value": "_sharp",
    "score_matrix": "_sharp", "sensitivity_curve": "_sharp", "sharp_value_bounds": "_sharp",
    "simulate_paper_dgp": "_sim", "simulate_v1": "_sim", "v1_capo_bound": "_sim", "v1_nuisances": "_sim",
    "v1_true_value": "_sim",
    "MLPPolicy": "_mlp", "MLPClassifier64": "_mlp", "MLPRegressor64": "_mlp",   # these load torch
}


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)


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
