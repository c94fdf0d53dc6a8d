"""Risk-sensitive imitation learning as return distribution matching (arXiv:2509.12026).

Finite-horizon tabular MDPs, exact return distributions by forward dynamic programming,
the return-augmented policy class, RS-BC, RS-KT, the BC and MIMIC-MD baselines and an
exact oracle LP for the unknown-reward variant on small problems.

The estimator classes (:class:`RSBC`, :class:`RSKT`, :class:`BC`, :class:`MIMICMD`) derive from
scikit-learn's ``BaseEstimator``; they are loaded on first use so that importing this package
does not import scikit-learn.
"""
from ._bc import bc, rs_bc
from ._evaluate import averaged_policy, empirical_return_distribution, grid_wasserstein, occupancy, return_distribution
from ._expert import markov_insufficiency_instance, random_markov_expert, random_nonmarkov_expert, risk_sensitive_expert
from ._mdp import Demonstrations, TabularMDP, detect_reward_grid, discretise_reward
from ._mimic import mimic_md
from ._oracle import robust_rdm_oracle
from ._policies import (HistoryPolicy, MarkovPolicy, Policy, ProjectedHistoryPolicy, ReturnAugmentedPolicy,
                        TabularHistoryPolicy)
from ._rskt import build_rs_kt_lp, rs_kt, rs_kt_lp_size

CITATION = ("F. Lazzati and A. M. Metelli. Imitation Learning as Return Distribution Matching. "
            "ICLR 2026. arXiv:2509.12026")

_LAZY = ("RSBC", "RSKT", "BC", "MIMICMD")

__all__ = [
    "TabularMDP", "Demonstrations", "detect_reward_grid", "discretise_reward",
    "Policy", "MarkovPolicy", "ReturnAugmentedPolicy", "HistoryPolicy", "ProjectedHistoryPolicy",
    "TabularHistoryPolicy",
    "return_distribution", "occupancy", "averaged_policy", "empirical_return_distribution", "grid_wasserstein",
    "risk_sensitive_expert", "random_markov_expert", "random_nonmarkov_expert", "markov_insufficiency_instance",
    "rs_bc", "RSBC", "bc", "BC", "rs_kt", "RSKT", "rs_kt_lp_size", "build_rs_kt_lp", "mimic_md", "MIMICMD",
    "robust_rdm_oracle", "CITATION",
]


def __getattr__(name):  # PEP 562: the scikit-learn estimators are imported on first use
    if name in _LAZY:
        from . import _estimators

        value = getattr(_estimators, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
