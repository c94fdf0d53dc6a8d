"""Every imitation row of ../shared/audits/bad-input-cases.md, by id, with its exact call.

The audit's fixtures were an MDP with (H, S, A) = (3, 4, 2), an expert in Pi(r^theta) on it and 30
demonstrations; they are rebuilt here the same way. Each row must now raise an InputError naming the
argument at fault, or (rows marked VALUE) return the right value because the call is legitimate.
Re-running the audit sweep for this package = running this module.
"""
from math import nan

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.imitation import (
    ProjectedHistoryPolicy, ReturnAugmentedPolicy, TabularHistoryPolicy, TabularMDP, detect_reward_grid,
    discretise_reward, empirical_return_distribution, grid_wasserstein, occupancy, random_markov_expert,
    random_nonmarkov_expert, rs_bc, rs_kt, rs_kt_lp_size,
)

mdp = TabularMDP.random(4, 2, 3, reward_grid=0.25, rng=0)
expert = mdp.risk_sensitive_expert(cvar_alpha=0.5)
demos = mdp.rollout(expert, 30, rng=0)

# id -> (exact call, argument the InputError must name)
ROWS = {
    "imitation.058": ("demos.returns(np.full((3, 4, 2), nan))", "reward"),
    "imitation.061": ("detect_reward_grid(np.array([nan, 0.5]))", "reward"),
    "imitation.062": ("detect_reward_grid(np.array([0.5]), max_denominator=0)", "max_denominator"),
    "imitation.063": ("detect_reward_grid(np.array([0.5]), atol=-1.0)", "atol"),
    "imitation.065": ("discretise_reward(np.array([0.5]), 0.0)", "theta"),
    "imitation.066": ("discretise_reward(np.array([0.5]), -0.25)", "theta"),
    "imitation.067": ("discretise_reward(np.array([0.5]), nan)", "theta"),
    "imitation.068": ("discretise_reward(np.array([nan]), 0.25)", "reward"),
    "imitation.069": ("discretise_reward(np.array([0.5]), 1e-300)", "theta"),
    "imitation.070": ("discretise_reward(np.array([-1.0]), 0.25)", "reward"),
    "imitation.072": ("rs_kt_lp_size(3, 2, 3, -0.1)", "theta"),
    "imitation.073": ("rs_kt_lp_size(-1, 2, 3, 0.5)", "n_states"),
    "imitation.074": ("rs_kt_lp_size(3, 2, 0, 0.5)", "horizon"),
    "imitation.085": ("ReturnAugmentedPolicy(np.full((3, 4, 2, 2), 0.5), np.zeros((3, 4, 2)), theta=-1.0).theta",
                      "theta"),
    "imitation.090": ("expert.table_probs(0, np.array([0]), np.array([-1])).shape", "y"),
    "imitation.095": ("ProjectedHistoryPolicy(3, 2, 3, deterministic='no').deterministic", "deterministic"),
    "imitation.132": ("random_markov_expert(mdp, deterministic='no', rng=0).markov_probs.max()", "deterministic"),
    "imitation.160": ("type(rs_kt(mdp, demos, 0.25, return_info='no')).__name__", "return_info"),
    "imitation.023": ("TabularMDP(np.zeros((0, 2, 0)), np.zeros((0, 2)), horizon=2).n_states", "P"),
    "imitation.042": ("mdp.rollout(expert, 10**9, rng=0).n", "n"),
    "imitation.055": ("demos.subset([0, 999])", "idx"),
    "imitation.056": ("demos.subset([])", "idx"),
    "imitation.057": ("demos.returns(np.zeros((2, 2)))", "reward"),
    "imitation.060": ("demos.returns('r')", "reward"),
    "imitation.064": ("detect_reward_grid('abc')", "reward"),
    "imitation.071": ("rs_kt_lp_size(3, 2, 3, 0.0)", "theta"),
    "imitation.075": ("rs_kt_lp_size(3, 2, 3, '0.5')", "theta"),
    "imitation.076": ("rs_kt_lp_size(3, 2, 3, nan)", "theta"),
    "imitation.086": ("expert.action_probs(10, demos.states, demos.actions)", "h"),
    "imitation.087": ("expert.action_probs(-1, demos.states, demos.actions).shape", "h"),
    "imitation.088": ("expert.action_probs(0, np.full((2, 4), 99), np.zeros((2, 3), int))", "states"),
    "imitation.091": ("expert.y_index(2, demos.states[:, :1], demos.actions[:, :0])", "states"),
    "imitation.096": ("ProjectedHistoryPolicy(3, 2, 3, rng=0).action_probs(0, np.full((2, 4), 9), "
                      "np.zeros((2, 3), int))", "states"),
    "imitation.100": ("TabularHistoryPolicy([np.full((2, 2), 0.5)], 2, 2).action_probs(3, np.zeros((1, 5), int), "
                      "np.zeros((1, 4), int))", "h"),
    "imitation.112": ("occupancy(mdp, expert, 1e-12)", "theta"),
    "imitation.118": ("empirical_return_distribution(demos, np.full((3, 4, 2), nan))", "reward"),
    "imitation.119": ("empirical_return_distribution(demos, 'r')", "reward"),
    "imitation.123": ("grid_wasserstein([0.5, 0.5], [0.0, 0.0])", "q"),
    "imitation.130": ("random_markov_expert('mdp')", "mdp"),
    "imitation.133": ("random_nonmarkov_expert(None)", "mdp"),
    "imitation.144": ("rs_bc(demos, mdp.r, 1e-12)", "theta"),
    "imitation.159": ("rs_kt(mdp, demos, 1e-9)", "theta"),
}

NAMESPACE = dict(globals())


@pytest.mark.bad_input("imitation.Demonstrations", "imitation.detect_reward_grid", "imitation.discretise_reward",
                       "imitation.rs_kt_lp_size", "imitation.ReturnAugmentedPolicy", "imitation.ProjectedHistoryPolicy",
                       "imitation.random_markov_expert", "imitation.rs_kt", "imitation.TabularMDP",
                       "imitation.TabularHistoryPolicy", "imitation.occupancy", "imitation.empirical_return_distribution",
                       "imitation.grid_wasserstein", "imitation.random_nonmarkov_expert", "imitation.rs_bc")
@pytest.mark.parametrize("row", sorted(ROWS), ids=sorted(ROWS))
def test_audit_row_raises_naming_the_argument(row):
    call, argument = ROWS[row]
    with pytest.raises(InputError, match=f"`{argument}`"):
        eval(call, NAMESPACE)  # noqa: S307 - the audit's exact call


def test_audit_size_guards_state_the_estimated_size():
    """The 218-TiB requests are refused with the estimated size in the message, before allocating."""
    for call in ("rs_bc(demos, mdp.r, 1e-12)", "occupancy(mdp, expert, 1e-12)", "rs_kt(mdp, demos, 1e-9)"):
        with pytest.raises(InputError, match=r"[0-9.]+ (GiB|TiB|PiB)") as info:
            eval(call, NAMESPACE)  # noqa: S307
        assert "theta" in str(info.value)


def test_audit_row_059_stationary_reward_is_legitimate():
    """imitation.059 (VALUE): `demos.returns(np.ones((4, 2)))` is a stationary (S, A) reward, a legitimate
    input; every step pays 1, so every return is H = 3."""
    assert np.array_equal(eval("demos.returns(np.ones((4, 2)))", NAMESPACE), np.full(30, 3.0))  # noqa: S307


def test_audit_row_089_integral_float_indices_are_legitimate():
    """imitation.089 (VALUE): float arrays holding integral values are accepted as indices (the library's
    check_array(dtype=int) convention, as for Demonstrations); the answer is the expert's stage-0 row."""
    out = eval("expert.action_probs(0, np.zeros((2, 4)), np.zeros((2, 3)))", NAMESPACE)  # noqa: S307
    assert np.array_equal(out, np.repeat(expert.probs[0, 0, 0][None], 2, axis=0))
    with pytest.raises(InputError, match="`states`"):
        expert.action_probs(0, np.full((2, 4), 0.5), np.zeros((2, 3)))
