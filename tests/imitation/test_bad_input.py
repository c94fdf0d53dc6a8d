"""Bad input across the whole public API of iclr26sci.imitation (beyond the audit's sample), the
scikit-learn estimator contract, examples and import time."""
import inspect
import pickle
import subprocess
import sys

import numpy as np
import pytest

import iclr26sci.imitation as imi
from iclr26sci.core import InputError, NotFittedError
from iclr26sci.imitation import (
    BC, MIMICMD, RSBC, RSKT, HistoryPolicy, MarkovPolicy, Policy, TabularMDP, averaged_policy, bc,
    build_rs_kt_lp, markov_insufficiency_instance, mimic_md, random_nonmarkov_expert, return_distribution,
    risk_sensitive_expert, robust_rdm_oracle, rs_bc, rs_kt,
)

BAD_INPUT_EXEMPT = {
    "imitation.CITATION": "a constant string, takes no input",
    "imitation.markov_insufficiency_instance": "takes no arguments (a fixed textbook instance)",
}


@pytest.fixture(scope="module")
def small():
    mdp = TabularMDP.random(3, 2, 3, reward_grid=0.25, sparsity=0.0, rng=1)
    expert = random_nonmarkov_expert(mdp, rng=2)
    demos = mdp.rollout(expert, 40, rng=3)
    return mdp, expert, demos


@pytest.mark.bad_input("imitation.TabularMDP")
def test_tabular_mdp_bad_input():
    P = np.full((2, 2, 2), 0.5)
    r = np.zeros((2, 2))
    cases = [
        (dict(P=np.full((2, 2, 2), 0.6), r=r, horizon=2), "P"),
        (dict(P=P, r=np.full((2, 2), 2.0), horizon=2), "r"),
        (dict(P=P, r=r), "horizon"),
        (dict(P=P, r=r, horizon=0), "horizon"),
        (dict(P=P, r=r, horizon=2, s0=5), "s0"),
        (dict(P=P, r=r, horizon=2, s0=[0.5, 0.6]), "s0"),
        (dict(P=P, r=r, horizon=2, reward_range=(1.0, 0.0)), "reward_range"),
        (dict(P=P, r=np.full((2, 2), 0.3), horizon=2, reward_grid=0.25), "reward_grid"),
        (dict(P=np.full((2, 2, 2), np.nan), r=r, horizon=2), "P"),
    ]
    for kw, arg in cases:
        with pytest.raises(InputError, match=f"`{arg}`"):
            TabularMDP(**kw)


@pytest.mark.bad_input("imitation.TabularMDP")
def test_tabular_mdp_methods_bad_input(small):
    mdp, expert, _ = small
    for kw, arg in [(dict(n_states=0, n_actions=2, horizon=3), "n_states"),
                    (dict(n_states=2, n_actions=2, horizon=3, sparsity=1.5), "sparsity"),
                    (dict(n_states=2, n_actions=2, horizon=3, reward_grid=0.0), "reward_grid"),
                    (dict(n_states=2, n_actions=2.0, horizon=3), "n_actions")]:
        with pytest.raises(InputError, match=f"`{arg}`"):
            TabularMDP.random(**kw)
    with pytest.raises(InputError, match="`n`"):
        mdp.rollout(expert, 0)
    with pytest.raises(InputError, match="`policy`"):
        mdp.rollout("expert", 5)
    with pytest.raises(InputError, match="`policy`"):
        mdp.rollout(MarkovPolicy(np.full((2, 3, 2), 0.5)), 5)
    with pytest.raises(InputError, match="`theta`"):
        mdp.increments(2.0)
    with pytest.raises(InputError, match="`reward`"):
        mdp.increments(0.25, reward=np.zeros((5, 5)))
    with pytest.raises(InputError, match="`theta`"):
        mdp.check_theta("0.1")
    with pytest.raises(InputError, match="`cvar_alpha`"):
        mdp.risk_sensitive_expert(cvar_alpha=0.0)
    with pytest.raises((InputError, ImportError), match="horizon|gymnasium"):
        TabularMDP.from_gymnasium("FrozenLake-v1", horizon=0)


@pytest.mark.bad_input("imitation.Demonstrations")
def test_demonstrations_bad_input(small):
    _, _, demos = small
    S = np.zeros((3, 4), int)
    A = np.zeros((3, 3), int)
    for args, arg in [((S, A, 0, 2), "n_states"), ((S, np.zeros((3, 2), int), 2, 2), "actions"),
                      ((S + 5, A, 2, 2), "states"), ((S, A + 2, 2, 2), "actions"),
                      ((S[:0], A[:0], 2, 2), "states"), ((S + 0.5, A, 2, 2), "states")]:
        with pytest.raises(InputError, match=f"`{arg}`"):
            imi.Demonstrations(*args)
    with pytest.raises(InputError, match="`idx`"):
        demos.subset(np.ones(3, bool))
    with pytest.raises(InputError, match="`idx`"):
        demos.subset(slice(5, 5))
    with pytest.raises(InputError, match="`reward`"):
        demos.returns(np.zeros((3, 3, 3)))


@pytest.mark.bad_input("imitation.Policy", "imitation.MarkovPolicy", "imitation.ReturnAugmentedPolicy",
                       "imitation.HistoryPolicy", "imitation.ProjectedHistoryPolicy", "imitation.TabularHistoryPolicy")
def test_policies_bad_input(small):
    mdp, expert, demos = small
    with pytest.raises(InputError, match="`probs`"):
        MarkovPolicy(np.full((3, 3, 2), 0.7))
    with pytest.raises(InputError, match="`horizon`"):
        MarkovPolicy(np.full((3, 2), 0.5))
    with pytest.raises(InputError, match="`horizon`"):
        MarkovPolicy(np.full((3, 3, 2), 0.5), horizon=4)
    with pytest.raises(InputError, match="`increments`"):
        imi.ReturnAugmentedPolicy(np.full((3, 3, 2, 2), 0.5), -np.ones((3, 3, 2)))
    with pytest.raises(InputError, match="`probs`"):
        imi.ReturnAugmentedPolicy(np.full((3, 3, 0, 2), 0.5), np.zeros((3, 3, 2)))
    pol = MarkovPolicy(np.full((3, 3, 2), 0.5))
    with pytest.raises(InputError, match="`actions`"):
        pol.action_probs(2, demos.states, demos.actions[:, :1])
    with pytest.raises(InputError, match="`actions`"):
        pol.action_probs(2, demos.states, demos.actions + 7)
    with pytest.raises(InputError, match="`h`"):
        pol.table_probs(3, np.array([0]), np.array([0]))
    with pytest.raises(InputError, match="`s`"):
        pol.table_probs(0, np.array([3]), np.array([0]))
    with pytest.raises(InputError, match="`h`"):
        pol.y_index(1.5, demos.states, demos.actions)
    with pytest.raises(InputError, match="`h`"):
        expert.action_probs(3, demos.states, demos.actions)            # ProjectedHistoryPolicy
    for kw, arg in [(dict(n_features=0), "n_features"), (dict(deterministic=1), "deterministic")]:
        with pytest.raises(InputError, match=f"`{arg}`"):
            imi.ProjectedHistoryPolicy(3, 2, 3, **kw)
    with pytest.raises(InputError, match=r"`tables\[0\]`"):
        imi.TabularHistoryPolicy([np.full((3, 2), 0.5)], 2, 2)
    with pytest.raises(InputError, match="`tables`"):
        imi.TabularHistoryPolicy([], 2, 2)
    with pytest.raises(InputError, match="`tables`"):
        imi.TabularHistoryPolicy("abc", 2, 2)

    class Mine(HistoryPolicy):
        n_states, n_actions, horizon = 3, 2, 3

        def _action_probs(self, h, states, actions):
            return np.full((states.shape[0], 2), 0.5)

    with pytest.raises(InputError, match="`states`"):
        Mine().action_probs(0, np.full((1, 1), 3), np.zeros((1, 0), int))
    assert isinstance(Mine(), Policy)


@pytest.mark.bad_input("imitation.return_distribution", "imitation.averaged_policy", "imitation.occupancy")
def test_evaluation_bad_input(small):
    mdp, expert, demos = small
    with pytest.raises(InputError, match="`mdp`"):
        return_distribution("mdp", expert)
    with pytest.raises(InputError, match="`policy`"):
        return_distribution(mdp, "expert")
    with pytest.raises(InputError, match="`method`"):
        return_distribution(mdp, expert, method="monte-carlo")
    with pytest.raises(InputError, match="`n_rollouts`"):
        return_distribution(mdp, expert, method="mc", n_rollouts=-5)
    with pytest.raises(InputError, match="`max_histories`"):
        return_distribution(mdp, expert, max_histories=0)
    with pytest.raises(InputError, match="`policy`"):
        return_distribution(mdp, expert, max_histories=3)
    with pytest.raises(InputError, match="`reward`"):
        return_distribution(mdp, expert, reward=np.full((3, 3, 2), 7.0))
    with pytest.raises(InputError, match="`theta`"):
        averaged_policy(mdp, expert, 0.0)
    with pytest.raises(InputError, match="`theta`"):
        averaged_policy(mdp, expert, 1e-13)
    with pytest.raises(InputError, match="`max_histories`"):
        imi.occupancy(mdp, expert, 0.25, max_histories=-1)


@pytest.mark.bad_input("imitation.risk_sensitive_expert", "imitation.random_markov_expert",
                       "imitation.random_nonmarkov_expert")
def test_experts_bad_input(small):
    mdp, _, _ = small
    for kw, arg in [(dict(cvar_alpha=1.5), "cvar_alpha"), (dict(cvar_alpha="0.2"), "cvar_alpha"),
                    (dict(theta=-0.1), "theta"), (dict(theta=1e-13), "theta")]:
        with pytest.raises(InputError, match=f"`{arg}`"):
            risk_sensitive_expert(mdp, **kw)
    with pytest.raises(InputError, match="`mdp`"):
        risk_sensitive_expert(None)
    with pytest.raises(InputError, match="`deterministic`"):
        imi.random_nonmarkov_expert(mdp, deterministic="yes")
    with pytest.raises(InputError, match="`n_features`"):
        imi.random_nonmarkov_expert(mdp, n_features=0)


@pytest.mark.bad_input("imitation.rs_bc", "imitation.bc", "imitation.rs_kt", "imitation.build_rs_kt_lp",
                       "imitation.mimic_md", "imitation.robust_rdm_oracle")
def test_learner_functions_bad_input(small):
    mdp, _, demos = small
    with pytest.raises(InputError, match="`reward_range`"):
        rs_bc(demos, mdp.reward, 0.25, reward_range=(0.0, "1"))
    with pytest.raises(InputError, match="`reward`"):
        rs_bc(demos, np.full((3, 3, 2), np.nan), 0.25)
    with pytest.raises(InputError, match="`demos`"):
        rs_bc("demos", mdp.reward, 0.25)
    with pytest.raises(InputError, match="`n_states`"):
        bc((demos.states, demos.actions), n_states=-1, n_actions=2)
    with pytest.raises(InputError, match="`demos`"):
        bc("demos", 3, 2)
    for kw, arg in [(dict(method="simplex"), "method"), (dict(max_iter=-1), "max_iter"), (dict(tol=0.0), "tol"),
                    (dict(max_iter=2.5), "max_iter")]:
        with pytest.raises(InputError, match=f"`{arg}`"):
            rs_kt(mdp, demos, 0.25, **kw)
    with pytest.raises(InputError, match="`demos`"):
        rs_kt(mdp, (demos.states[:, :2], demos.actions[:, :1]), 0.25)
    with pytest.raises(InputError, match="`theta`"):
        build_rs_kt_lp(mdp, demos, 1e-12)
    with pytest.raises(InputError, match="`mdp`"):
        build_rs_kt_lp(None, demos, 0.25)
    with pytest.raises(InputError, match="`shuffle`"):
        mimic_md(mdp, demos, shuffle="yes")
    with pytest.raises(InputError, match="`demos`"):
        mimic_md(mdp, demos.subset([0]))
    for kw, arg in [(dict(rewards=np.full((2, 3, 2), 5.0)), "rewards"), (dict(rewards=np.zeros((2, 3))), "rewards"),
                    (dict(rewards=np.zeros((1, 3, 2)), return_info="no"), "return_info"),
                    (dict(rewards=np.zeros((1, 3, 2)), max_histories=0), "max_histories"),
                    (dict(rewards=np.zeros((1, 3, 2)), max_histories=4), "max_histories")]:
        with pytest.raises(InputError, match=f"`{arg}`"):
            robust_rdm_oracle(mdp, demos, **kw)


@pytest.mark.bad_input("imitation.RSBC", "imitation.RSKT", "imitation.BC", "imitation.MIMICMD")
def test_estimators_validate_in_fit_and_refuse_unfitted_use(small):
    mdp, _, demos = small
    # parameters are stored unmodified and validated in fit
    assert RSBC(theta="bad").theta == "bad"
    with pytest.raises(InputError, match="`theta`"):
        RSBC(theta="bad").fit(demos, mdp.reward)
    with pytest.raises(InputError, match="`reward`"):
        RSBC(theta=0.25).fit(demos, "r")
    with pytest.raises(InputError, match="`method`"):
        RSKT(method="simplex").fit(mdp, demos)
    with pytest.raises(InputError, match="`max_iter`"):
        RSKT(theta=0.25, max_iter=-3).fit(mdp, demos)
    with pytest.raises(InputError, match="`theta`"):
        RSKT(theta=1e-12).fit(mdp, demos)
    with pytest.raises(InputError, match="`demos`"):
        BC().fit("demos", 3, 2)
    with pytest.raises(InputError, match="`shuffle`"):
        MIMICMD(shuffle="no").fit(mdp, demos)
    for est in (RSBC(), RSKT(), BC(), MIMICMD()):
        with pytest.raises(NotFittedError, match="return_distribution"):
            est.return_distribution(mdp)
        assert "not fitted" in est.summary()
    fitted = RSBC(theta=0.25).fit(demos, mdp.reward)
    with pytest.raises(InputError, match="`policy`"):
        fitted.return_distribution(TabularMDP.random(2, 2, 3, rng=0))


def test_sklearn_contract(small):
    from sklearn.base import BaseEstimator, clone
    from sklearn.utils.estimator_checks import (
        check_do_not_raise_errors_in_init_or_set_params, check_get_params_invariance, check_no_attributes_set_in_init,
        check_parameters_default_constructible, check_set_params,
    )

    mdp, expert, demos = small
    for est in (RSBC(theta=0.25), RSKT(theta=0.25, method="lp"), BC(), MIMICMD(shuffle=True, rng=3)):
        assert isinstance(est, BaseEstimator)
        name = type(est).__name__
        # the parts of check_estimator that apply: fit takes demonstrations (and an MDP or a reward), not (X, y),
        # so the data-driven checks (check_fit2d_*, check_estimators_dtypes, check_fit_score_takes_y, ...) do not
        for chk in (check_no_attributes_set_in_init, check_parameters_default_constructible,
                    check_get_params_invariance, check_set_params, check_do_not_raise_errors_in_init_or_set_params):
            chk(name, est)
        c = clone(est)
        assert c is not est and c.get_params() == est.get_params()
        assert len(repr(est)) < 80
    a = RSBC(theta=0.25).fit(demos, mdp.reward)
    b = clone(a).set_params(theta=0.5)
    assert not hasattr(b, "policy_") and b.theta == 0.5
    b.fit(demos, mdp.reward)
    assert b.policy_.n_y < a.policy_.n_y
    # fitted estimators pickle and their results have a short repr, summary() and to_dict()
    r = pickle.loads(pickle.dumps(a))
    assert np.array_equal(r.policy_.probs, a.policy_.probs)
    k = RSKT(theta=0.25).fit(mdp, demos)
    for obj in (a, k, k.policy_, mdp, demos):
        assert len(repr(obj)) < 120 and "\n" not in repr(obj)
        assert isinstance(obj.summary(), str) and obj.summary()
        assert isinstance(obj.to_dict(), dict)
    assert k.to_dict()["policy"]["info"]["w_lp"] == pytest.approx(k.lp_value_)
    assert TabularMDP(**{kk: v for kk, v in mdp.to_dict().items()}).shape == mdp.shape
    assert imi.Demonstrations(**demos.to_dict()).n == demos.n


def test_every_public_name_has_a_runnable_example():
    for name in imi.__all__:
        obj = getattr(imi, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        assert ">>>" in (obj.__doc__ or ""), f"iclr26sci.imitation.{name} has no Examples section"
        assert "Examples\n" in inspect.getdoc(obj), name


def test_import_does_not_import_sklearn():
    code = "import sys; import iclr26sci.imitation; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False"]


def test_progress_bars_are_silent_off_terminal(small, capfd):
    mdp, _, demos = small
    rs_kt(mdp, demos, 0.25)
    risk_sensitive_expert(mdp, 0.3)
    out, err = capfd.readouterr()
    assert "HiGHS" not in out and "column generation" not in err
