"""Risk-sensitive imitation learning as return distribution matching (arXiv:2509.12026).

Finite-horizon tabular MDPs, exact return distributions by forward dynamic programming,
the return-augmented policy class, RS-BC, RS-KT, the BC and MIMIC-MD baselines and an
exact oracle LP for the unknown-reward variant on small problems.
"""
from ._bc import RSBC, bc, rs_bc
from ._evaluate import averaged_policy, empirical_return_distribution, grid_wasserstein, occupancy, return_distribution
from ._expert import markov_insufficiency_instance, random_markov_expert, random_nonmarkov_expert, risk_sensitive_expert
from ._mdp import Demonstrations, TabularMDP, detect_reward_grid, discretise_reward
from ._mimic import mimic_md
from ._oracle import robust_rdm_oracle
from ._policies import (HistoryPolicy, MarkovPolicy, Policy, ProjectedHistoryPolicy, ReturnAugmentedPolicy,
                        TabularHistoryPolicy)
from ._rskt import RSKT, build_rs_kt_lp, rs_kt, rs_kt_lp_size

CITATION = ("F. Lazzati and A. M. Metelli. Imitation Learning as Return Distribution Matching. "
            "ICLR 2026. arXiv:2509.12026")

__all__ = [
    "TabularMDP", "Demonstrations", "detect_reward_grid", "discretise_reward",
    "Policy", "MarkovPolicy", "ReturnAugmentedPolicy", "HistoryPolicy", "ProjectedHistoryPolicy",
    "TabularHistoryPolicy",
    "return_distribution", "occupancy", "averaged_policy", "empirical_return_distribution", "grid_wasserstein",
    "risk_sensitive_expert", "random_markov_expert", "random_nonmarkov_expert", "markov_insufficiency_instance",
    "rs_bc", "RSBC", "bc", "rs_kt", "RSKT", "rs_kt_lp_size", "build_rs_kt_lp", "mimic_md", "robust_rdm_oracle", "CITATION",
]
