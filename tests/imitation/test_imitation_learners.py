"""Tests for RS-BC, BC, RS-KT and MIMIC-MD."""
import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.imitation import (
    RSBC, RSKT, Demonstrations, TabularMDP, bc, markov_insufficiency_instance, mimic_md, random_markov_expert,
    random_nonmarkov_expert, return_distribution, rs_bc, rs_kt, rs_kt_lp_size,
)
from iclr26sci.prob import DiscreteLaw


@pytest.fixture(scope="module")
def small():
    mdp = TabularMDP.random(3, 2, 4, reward_grid=0.05, sparsity=0.5, rng=4)
    expert = random_nonmarkov_expert(mdp, rng=5)
    demos = mdp.rollout(expert, 300, rng=6)
    return mdp, expert, demos


def test_rs_bc_counts_match_loop(small):
    mdp, _, demos = small
    theta = 0.1
    pol = rs_bc(demos, mdp.reward, theta)
    k = np.rint(mdp.reward / theta).astype(int)
    H, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    counts = {}
    for i in range(demos.n):
        y = 0
        for h in range(H):
            s, a = demos.states[i, h], demos.actions[i, h]
            counts.setdefault((h, s, y), np.zeros(A))[a] += 1
            y += k[h, s, a]
    for (h, s, y), c in counts.items():
        assert np.allclose(pol.probs[h, s, y], c / c.sum())
    # unvisited cells are uniform
    visited = np.zeros(pol.probs.shape[:3], bool)
    for (h, s, y) in counts:
        visited[h, s, y] = True
    assert np.allclose(pol.probs[~visited], 1.0 / A)
    est = RSBC(theta=theta).fit(demos, mdp.reward)
    assert np.array_equal(est.policy_.probs, pol.probs) and est.counts_visited_ == len(counts)


def test_bc_counts(small):
    mdp, _, demos = small
    pol = bc(demos)
    h, s, a = 2, demos.states[0, 2], demos.actions[0, 2]
    mask = demos.states[:, 2] == s
    assert pol.markov_probs[h, s, a] == pytest.approx(np.mean(demos.actions[mask, 2] == a))
    pol2 = bc((demos.states, demos.actions), n_states=3, n_actions=2)
    assert np.array_equal(pol.probs, pol2.probs)
    with pytest.raises(InputError, match="n_states"):
        bc((demos.states, demos.actions))


def test_learner_input_errors(small):
    mdp, _, demos = small
    for bad in (0.0, -0.1, 1.5):
        with pytest.raises(InputError, match="theta"):
            rs_bc(demos, mdp.reward, bad)
        with pytest.raises(InputError, match="theta"):
            rs_kt(mdp, demos, bad)
    with pytest.raises(InputError, match="reward"):
        rs_bc(demos, mdp.reward + 2.0, 0.1)
    short = Demonstrations(demos.states[:, :3], demos.actions[:, :2], 3, 2)
    with pytest.raises(InputError, match="demos"):
        rs_bc(short, mdp.reward, 0.1)
    with pytest.raises(InputError, match="demos"):
        rs_kt(mdp, short, 0.1)
    wide = TabularMDP.random(2, 2, 4, rng=0)
    with pytest.raises(InputError, match="demos"):
        rs_kt(wide, demos, 0.1)          # states up to 2 > S - 1
    with pytest.raises(InputError, match="states"):
        rs_bc((np.zeros((0, 5), int), np.zeros((0, 4), int)), mdp.reward, 0.1)
    with pytest.raises(InputError, match="actions"):
        rs_bc((demos.states, demos.actions + 5), mdp.reward, 0.1)
    with pytest.raises(InputError, match="demos"):
        mimic_md(mdp, demos.subset(slice(0, 1)))
    with pytest.raises(InputError, match="method"):
        rs_kt(mdp, demos, 0.1, method="simplex")


@pytest.mark.parametrize("theta", [0.05, 0.25])
def test_rs_kt_lp_and_colgen_agree(small, theta):
    mdp, expert, demos = small
    sub = demos.subset(slice(0, 40))
    p1, i1 = rs_kt(mdp, sub, theta, method="lp", return_info=True)
    p2, i2 = rs_kt(mdp, sub, theta, method="colgen", return_info=True)
    assert i2["converged"]
    assert i1["w_lp"] == pytest.approx(i2["w_lp"], abs=1e-8)
    rtheta = np.rint(mdp.reward / theta) * theta
    for pol, info in ((p1, i1), (p2, i2)):
        # the learned policy's r^theta law is at the LP value from eta_hat
        w = return_distribution(mdp, pol, reward=np.clip(rtheta, 0, 1)).wasserstein(info["eta_hat"])
        assert w == pytest.approx(info["w_lp"], abs=1e-8)
        # optimality: the expert is feasible, so the LP value is at most its distance to eta_hat
        w_e = return_distribution(mdp, expert, reward=np.clip(rtheta, 0, 1)).wasserstein(info["eta_hat"])
        assert info["w_lp"] <= w_e + 1e-8
    est = RSKT(theta=theta).fit(mdp, sub)
    assert est.lp_value_ == pytest.approx(i2["w_lp"], abs=1e-8)
    assert isinstance(est.eta_hat_, DiscreteLaw)


def test_rs_kt_fits_exactly_achievable_law(small):
    mdp, expert, demos = small
    pol, info = rs_kt(mdp, demos, 0.05, return_info=True)
    assert info["w_lp"] < 1e-8 or info["w_lp"] <= 0.05
    assert rs_kt_lp_size(50, 5, 5, 0.05) == (51_250, 101)
    assert rs_kt_lp_size(2, 2, 20, 0.05) == (15_280, 401)
    assert rs_kt_lp_size(2, 2, 5, 0.05) == (820, 101)


def test_rs_bc_beats_markov_on_insufficiency_instance():
    """B3: RS-BC recovers the non-Markovian expert, BC stays at W ~ 1/2."""
    mdp, expert = markov_insufficiency_instance()
    demos = mdp.rollout(expert, 200, rng=0)
    eta_e = return_distribution(mdp, expert)
    assert return_distribution(mdp, rs_bc(demos, mdp.reward, 1.0)).wasserstein(eta_e) < 1e-12
    assert return_distribution(mdp, rs_kt(mdp, demos, 1.0)).wasserstein(eta_e) < 1e-9
    assert return_distribution(mdp, bc(demos)).wasserstein(eta_e) == pytest.approx(0.5, abs=1e-12)
    assert return_distribution(mdp, mimic_md(mdp, demos)).wasserstein(eta_e) == pytest.approx(0.5, abs=1e-9)


def test_mimic_md_follows_empirical_policy_on_visited(small):
    mdp, _, demos = small
    pol = mimic_md(mdp, demos)
    d1 = demos.subset(slice(0, demos.n // 2))
    emp = bc(d1)
    visited = np.zeros((mdp.horizon, mdp.n_states), bool)
    for h in range(mdp.horizon):
        visited[h, np.unique(d1.states[:, h])] = True
    assert np.allclose(pol.markov_probs[visited], emp.markov_probs[visited])
    assert np.allclose(pol.probs.sum(-1), 1)
    p2 = mimic_md(mdp, demos, shuffle=True, rng=0)
    p3 = mimic_md(mdp, demos, shuffle=True, rng=0)
    assert np.array_equal(p2.probs, p3.probs)


def test_markov_expert_all_learners_consistent():
    mdp = TabularMDP.random(4, 2, 4, reward_grid=0.05, sparsity=0.5, rng=1)
    expert = random_markov_expert(mdp, rng=2)
    demos = mdp.rollout(expert, 4000, rng=3)
    eta_e = return_distribution(mdp, expert)
    # with N = 4000 every learner is close; W <= H * DKW(delta=1e-3) is a loose but valid bound for RS-KT
    bound = 4 * np.sqrt(np.log(2 / 1e-3) / (2 * 4000)) * 2 + 4 * 0.05
    for pol in (rs_bc(demos, mdp.reward, 0.05), bc(demos), rs_kt(mdp, demos, 0.05), mimic_md(mdp, demos)):
        assert return_distribution(mdp, pol).wasserstein(eta_e) < bound


def test_rs_kt_medium_problem_solves(small):
    mdp = TabularMDP.random(20, 3, 5, reward_grid=0.05, rng=0)
    expert = random_markov_expert(mdp, rng=1)
    demos = mdp.rollout(expert, 300, rng=2)
    pol, info = rs_kt(mdp, demos, 0.05, return_info=True)
    assert info["converged"]
    w = return_distribution(mdp, pol).wasserstein(return_distribution(mdp, expert))
    assert w < 0.2


def test_robust_oracle_exact_and_optimal_against_feasible_policies():
    from iclr26sci.imitation import empirical_return_distribution, robust_rdm_oracle

    mdp = TabularMDP.random(2, 2, 3, reward_grid=0.1, sparsity=0.3, rng=1)
    expert = random_nonmarkov_expert(mdp, rng=2)
    demos = mdp.rollout(expert, 100, rng=3)
    g = np.random.default_rng(0)
    Rs = np.stack([mdp.r, np.rint(g.random((3, 2, 2)) * 10) / 10, np.rint(g.random((3, 2, 2)) * 10) / 10])
    pol, info = robust_rdm_oracle(mdp, demos, Rs, return_info=True)

    def robust(p):
        return max(return_distribution(mdp, p, reward=r).wasserstein(empirical_return_distribution(demos, r))
                   for r in Rs)

    # the LP value is the policy's exact robust objective
    assert robust(pol) == pytest.approx(info["value"], abs=1e-8)
    # and no feasible policy does better: the expert, RS-KT, BC, random Markov policies
    for other in [expert, rs_kt(mdp, demos, 0.1), bc(demos)] + [random_markov_expert(mdp, rng=s) for s in range(5)]:
        assert info["value"] <= robust(other) + 1e-8
    with pytest.raises(InputError, match="rewards"):
        robust_rdm_oracle(mdp, demos, Rs + 2)
    with pytest.raises(InputError, match="rewards"):
        robust_rdm_oracle(mdp, demos, np.zeros((0, 3, 2, 2)))
    big = TabularMDP.random(6, 3, 6, rng=0)
    with pytest.raises(InputError, match="mdp"):
        robust_rdm_oracle(big, big.rollout(random_markov_expert(big, rng=0), 5, rng=0), big.r[None])
