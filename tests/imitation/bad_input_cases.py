"""Bad-input sweep cases for iclr26sci.imitation (format: tests/bad_input_sweep.py).

Audit rows imitation.059 and imitation.089 are legitimate calls (see test_bad_input_audit.py).
"""
from bad_input_sweep import Case
from iclr26sci.imitation import TabularMDP


def _y_index_beyond_prefix():
    mdp = TabularMDP.random(4, 2, 3, reward_grid=0.25, rng=0)  # the audit's fixtures
    expert = mdp.risk_sensitive_expert(cvar_alpha=0.5)
    demos = mdp.rollout(expert, 30, rng=0)
    return expert.y_index(2, demos.states[:, :1], demos.actions[:, :0])


CASES = [
    Case("imitation.091", "ReturnAugmentedPolicy.y_index", "h beyond prefix length", _y_index_beyond_prefix, ("h",)),
]
