"""Tests for iclr26sci.imitation: MDPs, exact evaluation, experts."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iclr26sci.core import InputError
from iclr26sci.imitation import (
    Demonstrations, HistoryPolicy, MarkovPolicy, ReturnAugmentedPolicy, TabularMDP, averaged_policy,
    detect_reward_grid, empirical_return_distribution, grid_wasserstein, markov_insufficiency_instance,
    occupancy, random_markov_expert, random_nonmarkov_expert, return_distribution, risk_sensitive_expert,
)
from iclr26sci.prob import DiscreteLaw


class _AsHistory(HistoryPolicy):
    """Wrap a table policy as an opaque history policy (forces history enumeration)."""

    def __init__(self, pol):
        self.pol = pol
        self.n_states, self.n_actions, self.horizon = pol.n_states, pol.n_actions, pol.horizon

    def action_probs(self, h, states, actions):
        return self.pol.action_probs(h, states, actions)


def _brute_force_law(mdp, policy):
    """Return law by explicit recursion over every history (independent of the library's DP)."""
    S, A, H = mdp.shape
    out = {}

    def rec(h, states, actions, prob, ret):
        if prob == 0:
            return
        if h == H:
            key = round(ret, 9)
            out[key] = out.get(key, 0.0) + prob
            return
        pa = policy.action_probs(h, np.array([states]), np.array([actions], dtype=np.int64).reshape(1, h))[0]
        s = states[-1]
        for a in range(A):
            for s2 in range(S):
                p = pa[a] * mdp.P[h, s, a, s2]
                if p > 0:
                    rec(h + 1, states + [s2], actions + [a], prob * p, ret + mdp.r[h, s, a])

    for s0 in range(S):
        if mdp.mu0[s0] > 0:
            rec(0, [s0], [], mdp.mu0[s0], 0.0)
    x = np.array(sorted(out))
    return DiscreteLaw(x, np.array([out[k] for k in sorted(out)]))


# ----------------------------------------------------------------------------- MDP and inputs
def test_random_mdp_is_valid_and_deterministic():
    m1 = TabularMDP.random(7, 3, 4, reward_grid=0.05, rng=5)
    m2 = TabularMDP.random(7, 3, 4, reward_grid=0.05, rng=5)
    assert np.array_equal(m1.P, m2.P) and np.array_equal(m1.r, m2.r)
    assert np.allclose(m1.P.sum(-1), 1)
    assert m1.r.min() >= 0 and m1.r.max() < 1
    assert m1.reward_grid == pytest.approx(0.05)
    assert np.allclose(np.rint(m1.r / 0.05) * 0.05, m1.r)


def test_mdp_input_errors():
    P = np.full((2, 2, 2), 0.5)
    r = np.zeros((2, 2))
    TabularMDP(P, r, 0, horizon=3)
    with pytest.raises(InputError, match="P"):
        TabularMDP(np.full((2, 2, 2), 0.4), r, 0, horizon=3)
    with pytest.raises(InputError, match="`r`"):
        TabularMDP(P, r + 1.5, 0, horizon=3)
    with pytest.raises(InputError, match="`r`"):
        TabularMDP(P, r - 0.1, 0, horizon=3)
    with pytest.raises(InputError, match="horizon"):
        TabularMDP(P, r, 0)
    with pytest.raises(InputError, match="s0"):
        TabularMDP(P, r, 5, horizon=3)
    with pytest.raises(InputError, match="reward_range"):
        TabularMDP(P, r, 0, horizon=3, reward_range=(1, 0))
    # a declared range admits other rewards
    m = TabularMDP(P, r + 1.5, 0, horizon=3, reward_range=(0, 2))
    with pytest.raises(InputError, match="theta"):
        m.check_theta(0.0)
    with pytest.raises(InputError, match="theta"):
        m.check_theta(2.5)


def test_demonstration_errors():
    with pytest.raises(InputError, match="states"):
        Demonstrations(np.zeros((0, 4), int), np.zeros((0, 3), int), 2, 2)
    with pytest.raises(InputError, match="states"):
        Demonstrations(np.full((3, 4), 2), np.zeros((3, 3), int), 2, 2)
    with pytest.raises(InputError, match="actions"):
        Demonstrations(np.zeros((3, 4), int), np.full((3, 3), -1), 2, 2)
    with pytest.raises(InputError, match="actions"):
        Demonstrations(np.zeros((3, 4), int), np.zeros((3, 4), int), 2, 2)
    with pytest.raises(InputError, match="states"):
        Demonstrations(np.zeros((3, 4)) + 0.5, np.zeros((3, 3), int), 2, 2)


def test_detect_reward_grid():
    assert detect_reward_grid(np.array([0.0, 0.15, 0.3])) == pytest.approx(0.05)
    assert detect_reward_grid(np.array([0.0, 0.03, 0.09])) == pytest.approx(0.01)
    assert detect_reward_grid(np.array([0.0, np.pi / 10])) is None


def test_large_state_space_uses_wide_integers():
    """S = 300: states >= 128 survive (the official int8 storage wraps them)."""
    mdp = TabularMDP.random(300, 2, 4, reward_grid=0.05, rng=1)
    expert = random_markov_expert(mdp, deterministic=True, rng=2)
    demos = mdp.rollout(expert, 3000, rng=3)
    assert demos.states.dtype == np.int64 and demos.actions.dtype == np.int64
    assert demos.states.max() >= 128
    # int8 storage corrupts them: negative indices, which the library rejects
    assert (demos.states.astype(np.int8) < 0).any()
    with pytest.raises(InputError, match="states"):
        Demonstrations(demos.states.astype(np.int8), demos.actions, 300, 2)
    from iclr26sci.imitation import bc, rs_bc

    eta_e = return_distribution(mdp, expert)
    w_rsbc = return_distribution(mdp, rs_bc(demos, mdp.reward, 0.05)).wasserstein(eta_e)
    w_bc = return_distribution(mdp, bc(demos)).wasserstein(eta_e)
    # a deterministic Markov expert: both learn it wherever it was seen
    assert w_rsbc < 0.06 and w_bc < 0.06


def test_from_gymnasium_optional():
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="gymnasium"):
            TabularMDP.from_gymnasium("FrozenLake-v1", horizon=8)
    else:
        mdp = TabularMDP.from_gymnasium("FrozenLake-v1", horizon=8)
        assert mdp.n_states == 16 and np.allclose(mdp.P.sum(-1), 1)


# ----------------------------------------------------------------------------- exact evaluation
@pytest.mark.parametrize("kind", ["markov", "cvar", "nonmarkov"])
def test_exact_law_matches_brute_force(kind):
    mdp = TabularMDP.random(3, 2, 3, reward_grid=0.1, sparsity=0.3, rng=11)
    if kind == "markov":
        pol = random_markov_expert(mdp, rng=1)
    elif kind == "cvar":
        pol = risk_sensitive_expert(mdp, 0.3)
    else:
        pol = random_nonmarkov_expert(mdp, rng=1)
    law = return_distribution(mdp, pol)
    ref = _brute_force_law(mdp, pol)
    assert law.wasserstein(ref) < 1e-12
    assert np.allclose(law.support, ref.support) and np.allclose(law.weights, ref.weights)
    # the history-enumeration path agrees with the DP path
    if kind != "nonmarkov":
        assert return_distribution(mdp, _AsHistory(pol)).wasserstein(law) < 1e-12


def test_exact_law_with_initial_distribution_and_offgrid_reward():
    g = np.random.default_rng(0)
    P = g.dirichlet(np.ones(3), size=(3, 2))
    r = g.random((3, 2)) * 0.9
    mdp = TabularMDP(P, r, np.array([0.2, 0.5, 0.3]), horizon=3)
    assert mdp.reward_grid is None
    pol = random_markov_expert(mdp, rng=1)
    law = return_distribution(mdp, pol)
    assert law.wasserstein(_brute_force_law(mdp, pol)) < 1e-8


def test_mc_evaluation_within_dkw_band():
    mdp = TabularMDP.random(5, 2, 5, reward_grid=0.05, sparsity=0.3, rng=2)
    pol = random_markov_expert(mdp, rng=3)
    exact = return_distribution(mdp, pol)
    n = 20_000
    mc = return_distribution(mdp, pol, method="mc", n_rollouts=n, rng=4)
    # W <= H * sup|F - Fhat| <= H sqrt(log(2/delta)/(2n)), delta = 1e-3
    assert mc.wasserstein(exact) <= 5 * np.sqrt(np.log(2 / 1e-3) / (2 * n))
    mc2 = return_distribution(mdp, pol, method="mc", n_rollouts=n, rng=4)
    assert np.array_equal(mc.support, mc2.support)


def test_evaluation_errors():
    mdp = TabularMDP.random(3, 2, 3, rng=0)
    other = TabularMDP.random(4, 2, 3, rng=0)
    pol = random_markov_expert(other, rng=0)
    with pytest.raises(InputError, match="policy"):
        return_distribution(mdp, pol)
    with pytest.raises(InputError, match="policy"):
        return_distribution(mdp, "not a policy")
    with pytest.raises(InputError, match="method"):
        return_distribution(mdp, random_markov_expert(mdp, rng=0), method="magic")
    with pytest.raises(InputError, match="reward"):
        return_distribution(mdp, random_markov_expert(mdp, rng=0), reward=np.ones((3, 3, 2)) * 2)
    big = TabularMDP.random(4, 3, 6, rng=0)
    with pytest.raises(InputError, match="mc"):
        return_distribution(big, random_nonmarkov_expert(big, rng=0), max_histories=1000)


# ----------------------------------------------------------------------------- lemmas
@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), S=st.integers(1, 3), A=st.integers(1, 3), H=st.integers(1, 4))
def test_averaged_policy_reproduces_expert_law(seed, S, A, H):
    """B1: the averaged policy in Pi(r) induces exactly the expert's return law."""
    mdp = TabularMDP.random(S, A, H, reward_grid=0.1, sparsity=0.5, rng=seed)
    expert = random_nonmarkov_expert(mdp, rng=seed + 1)
    avg = averaged_policy(mdp, expert, 0.1)
    assert return_distribution(mdp, avg).wasserstein(return_distribution(mdp, expert)) < 1e-10


@pytest.mark.parametrize("theta", [0.05, 0.1, 0.25, 0.5])
def test_discretisation_error_within_H_theta(theta):
    """B2 (Lemma 4.2): the averaged policy for r^theta is within H*theta of the expert."""
    for seed in range(4):
        mdp = TabularMDP.random(2, 2, 5, reward_grid=0.03, sparsity=0.5, rng=seed)
        expert = random_nonmarkov_expert(mdp, rng=100 + seed)
        w = return_distribution(mdp, averaged_policy(mdp, expert, theta)).wasserstein(
            return_distribution(mdp, expert))
        assert w <= 5 * theta + 1e-12


def test_markov_insufficiency_instance():
    mdp, expert = markov_insufficiency_instance()
    eta_e = return_distribution(mdp, expert)
    assert np.allclose(eta_e.support, [1.0]) and np.allclose(eta_e.weights, [1.0])
    for p in np.linspace(0, 1, 11):
        probs = np.zeros((3, 4, 2))
        probs[..., 0] = 1.0
        probs[2, 3] = [1 - p, p]
        w = return_distribution(mdp, MarkovPolicy(probs)).wasserstein(eta_e)
        assert w == pytest.approx(0.5, abs=1e-12)


def test_occupancy_sums_and_marginals():
    mdp = TabularMDP.random(4, 3, 4, reward_grid=0.05, sparsity=0.4, rng=3)
    pol = risk_sensitive_expert(mdp, 0.25)
    d = occupancy(mdp, pol, 0.1)
    assert np.allclose(d.sum(axis=(1, 2, 3)), 1.0)
    # the state marginal at stage 1 is mu0
    assert np.allclose(d[0].sum(axis=(1, 2)), mdp.mu0)


# ----------------------------------------------------------------------------- experts
def test_risk_sensitive_expert_is_cvar_optimal_among_samples():
    mdp = TabularMDP.random(4, 3, 4, reward_grid=0.1, sparsity=0.3, rng=8)
    alpha = 0.25
    expert = mdp.risk_sensitive_expert(cvar_alpha=alpha)
    law = return_distribution(mdp, expert)
    assert law.cvar(alpha) == pytest.approx(expert.info["cvar"], abs=1e-9)
    g = np.random.default_rng(0)
    k = np.rint(mdp.r / 0.1).astype(int)
    Y = int(k.max(axis=(1, 2)).sum()) + 1
    for _ in range(60):
        acts = g.integers(0, 3, size=(4, 4, Y))
        probs = np.eye(3)[acts]
        cand = ReturnAugmentedPolicy(probs, k, 0.1)
        assert return_distribution(mdp, cand).cvar(alpha) <= law.cvar(alpha) + 1e-9
    for _ in range(20):
        assert return_distribution(mdp, random_markov_expert(mdp, rng=g)).cvar(alpha) <= law.cvar(alpha) + 1e-9
    # alpha = 1 is the mean-optimal expert
    mean_opt = mdp.risk_sensitive_expert(cvar_alpha=1.0)
    assert return_distribution(mdp, mean_opt).mean() >= law.mean() - 1e-9
    with pytest.raises(InputError, match="cvar_alpha"):
        mdp.risk_sensitive_expert(cvar_alpha=0.0)


def test_rollout_determinism_and_errors():
    mdp = TabularMDP.random(5, 2, 4, rng=0)
    pol = random_nonmarkov_expert(mdp, rng=1)
    d1 = mdp.rollout(pol, 50, rng=7)
    d2 = mdp.rollout(pol, 50, rng=7)
    assert np.array_equal(d1.states, d2.states) and np.array_equal(d1.actions, d2.actions)
    assert d1.states.shape == (50, 5) and d1.actions.shape == (50, 4)
    with pytest.raises(InputError, match="n"):
        mdp.rollout(pol, 0)
    with pytest.raises(InputError, match="policy"):
        mdp.rollout("x", 3)


def test_empirical_law_and_grid_wasserstein():
    mdp = TabularMDP.random(3, 2, 3, reward_grid=0.1, rng=0)
    demos = mdp.rollout(random_markov_expert(mdp, rng=0), 200, rng=1)
    law = empirical_return_distribution(demos, mdp.reward)
    assert law.mean() == pytest.approx(demos.returns(mdp.reward).mean())
    g = np.random.default_rng(3)
    p, q = g.random(31), g.random(31)
    x = np.arange(31) * 0.1
    assert grid_wasserstein(p, q, 0.1) == pytest.approx(DiscreteLaw(x, p).wasserstein(DiscreteLaw(x, q)), abs=1e-12)
    with pytest.raises(InputError, match="step"):
        grid_wasserstein(p, q, 0.0)


@settings(max_examples=30)
@given(seed=st.integers(0, 100_000), k1=st.integers(1, 10), k2=st.integers(1, 10),
       alpha=st.floats(0.05, 1.0))
def test_w_controls_mean_cvar_variance(seed, k1, k2, alpha):
    """B8: on [0, H], |dE| <= W, |dCVaR_alpha| <= W / alpha, |dVar| <= 4 H W."""
    H = 5.0
    g = np.random.default_rng(seed)
    a = DiscreteLaw(g.random(k1) * H, g.dirichlet(np.ones(k1)))
    b = DiscreteLaw(g.random(k2) * H, g.dirichlet(np.ones(k2)))
    w = a.wasserstein(b)
    assert abs(a.mean() - b.mean()) <= w + 1e-12
    assert abs(a.cvar(alpha) - b.cvar(alpha)) <= w / alpha + 1e-12
    assert abs(a.var() - b.var()) <= 4 * H * w + 1e-12


def test_history_and_table_occupancies_agree():
    mdp = TabularMDP.random(3, 2, 4, reward_grid=0.05, sparsity=0.4, rng=9)
    pol = risk_sensitive_expert(mdp, 0.4)
    assert np.allclose(occupancy(mdp, pol, 0.1), occupancy(mdp, _AsHistory(pol), 0.1))
