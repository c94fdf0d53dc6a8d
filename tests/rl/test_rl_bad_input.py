"""Bad input to every public name of iclr26sci.rl: a clear InputError naming the argument, before any work."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.rl import (ArithmeticTask, bandit_experiment, bandit_rewards, binary_rs_weight, dr_grpo_advantage,
                          grade_answer, group_advantage, grpo_advantage, linear_softmax_toy, optimal_arm_rate,
                          pass_at_k, passk_training_advantage, pkpo_advantage, rs_advantage, verl_rs_advantage)

BAD_INPUT_EXEMPT = {
    "rl.ADVANTAGES": "a constant dict mapping method names to the advantage functions; it takes no input",
    "rl.BanditResult": "a result dataclass built by bandit_experiment(); users do not construct it",
    "rl.ToyResult": "a result dataclass built by linear_softmax_toy(); users do not construct it",
}


@pytest.mark.bad_input("rl.rs_advantage", "rl.grpo_advantage", "rl.dr_grpo_advantage", "rl.pkpo_advantage",
                       "rl.passk_training_advantage", "rl.group_advantage")
@pytest.mark.parametrize("fn", [rs_advantage, grpo_advantage, dr_grpo_advantage, pkpo_advantage,
                                passk_training_advantage,
                                lambda r, g=None, **kw: group_advantage(r, g, method="rs", **kw)])
@pytest.mark.parametrize("rewards,ids,arg", [
    ([1.0, np.nan, 0.0, 1.0, 0.0, 0.0], None, "rewards"),
    ([1.0, np.inf, 0.0, 1.0, 0.0, 0.0], None, "rewards"),
    ([1.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0, 0, 1], "group_ids"),
    ([], None, "rewards"),
    (np.zeros((2, 2, 2)), None, "rewards"),
    (["a", "b"], None, "rewards"),
    (np.zeros((2, 6)), [0, 1], "group_ids"),
])
def test_advantages_bad_rewards_and_ids(fn, rewards, ids, arg):
    with pytest.raises(InputError, match=arg):
        fn(rewards, ids)


@pytest.mark.bad_input("rl.rs_advantage", "rl.binary_rs_weight")
@pytest.mark.parametrize("beta", [np.nan, np.inf, -np.inf, "2", True, None])
def test_beta_not_finite(beta):
    with pytest.raises(InputError, match="beta"):
        rs_advantage([1.0, 0.0], beta=beta)
    with pytest.raises(InputError, match="beta"):
        binary_rs_weight(0.5, beta)


def test_beta_zero_allowed():
    np.testing.assert_array_equal(rs_advantage([1.0, 0.0], beta=0), [0.5, -0.5])


@pytest.mark.bad_input("rl.binary_rs_weight")
def test_binary_weight_p_range():
    with pytest.raises(InputError, match="p"):
        binary_rs_weight([0.2, 1.5])


@pytest.mark.bad_input("rl.grpo_advantage")
@pytest.mark.parametrize("kw,arg", [({"eps": -1.0}, "eps"), ({"ddof": 2}, "ddof"), ({"ddof": True}, "ddof")])
def test_grpo_params(kw, arg):
    with pytest.raises(InputError, match=arg):
        grpo_advantage([1.0, 0.0], **kw)


@pytest.mark.bad_input("rl.pkpo_advantage", "rl.passk_training_advantage")
@pytest.mark.parametrize("fn", [pkpo_advantage, passk_training_advantage])
@pytest.mark.parametrize("rewards,kw,arg", [
    ([0.5, 0.0, 1.0, 0.0, 0.0, 0.0], {"k": 2}, "rewards"),   # not binary
    ([1.0, 0.0, 0.0, 0.0], {"k": 4}, "k"),                  # k >= group size
    ([1.0, 0.0, 0.0, 0.0], {"k": 0}, "k"),
    ([1.0, 0.0, 0.0, 0.0], {"k": 1.5}, "k"),
])
def test_passk_methods_bad(fn, rewards, kw, arg):
    with pytest.raises(InputError, match=arg):
        fn(rewards, **kw)


@pytest.mark.bad_input("rl.group_advantage")
def test_group_advantage_unknown_method():
    with pytest.raises(InputError, match="method"):
        group_advantage([1.0, 0.0], method="ppo")


@pytest.mark.bad_input("rl.pass_at_k")
@pytest.mark.parametrize("c,n,k,arg", [
    ([3, 2], 4, 5, "k"),                  # k > n
    ([-1, 2], 4, 1, "n_correct"),         # negative count
    ([1, 2], -4, 1, "n_samples"),
    ([5, 2], 4, 1, "n_correct"),          # c > n
    ([1.5, 2], 4, 1, "n_correct"),
    ([np.nan], 4, 1, "n_correct"),
    ([1, 2], 4, 0, "k"),
    ([1, 2], 4, [], "k"),
    ([1, 2], 4, [1, 2.5], "k"),
    ([1, 2], [4, 4, 4], 1, "n_samples"),
    (np.ones((2, 2), int), 4, 1, "n_correct"),
])
def test_pass_at_k_bad(c, n, k, arg):
    with pytest.raises(InputError, match=arg):
        pass_at_k(c, n, k=k)


@pytest.mark.bad_input("rl.pass_at_k")
def test_pass_at_k_per_problem_flag():
    with pytest.raises(InputError, match="per_problem"):
        pass_at_k([1], 4, k=1, per_problem="yes")


@pytest.mark.bad_input("rl.verl_rs_advantage")
def test_verl_bad():
    torch = pytest.importorskip("torch")
    with pytest.raises(InputError, match="token_level_rewards"):
        verl_rs_advantage(np.zeros((2, 3)), torch.ones(2, 3), [0, 0])
    with pytest.raises(InputError, match="response_mask"):
        verl_rs_advantage(torch.zeros(2, 3), torch.ones(2, 2), [0, 0])
    with pytest.raises(InputError, match="index"):
        verl_rs_advantage(torch.zeros(2, 3), torch.ones(2, 3), [0, 0, 1])
    with pytest.raises(InputError, match="beta"):
        verl_rs_advantage(torch.zeros(2, 3), torch.ones(2, 3), [0, 0], beta=float("nan"))
    with pytest.raises(InputError, match="singleton"):
        verl_rs_advantage(torch.zeros(2, 3), torch.ones(2, 3), [0, 0], singleton="one")


@pytest.mark.bad_input("rl.optimal_arm_rate")
@pytest.mark.parametrize("pi,r,kw,arg", [
    ([0.5, 0.6], [1.0, 0.0], {}, "pi"),
    ([0.5, 0.5], [1.0, 0.0, 0.2], {}, "rewards"),
    ([0.5, 0.5], [1.0, 1.0], {}, "rewards"),              # no unique optimum
    ([0.5, 0.5], [1.0, np.nan], {}, "rewards"),
    ([0.5, 0.5], [1.0, 0.0], {"beta": np.inf}, "beta"),
    ([0.5, 0.5], [1.0, 0.0], {"scaled": 1}, "scaled"),
])
def test_optimal_arm_rate_bad(pi, r, kw, arg):
    with pytest.raises(InputError, match=arg):
        optimal_arm_rate(pi, r, **kw)


@pytest.mark.bad_input("rl.bandit_rewards")
def test_bandit_rewards_bad():
    with pytest.raises(InputError, match="n_arms"):
        bandit_rewards(5)


@pytest.mark.bad_input("rl.bandit_experiment")
@pytest.mark.parametrize("kw,arg", [
    ({"beta": [0, np.nan]}, "beta"), ({"beta": []}, "beta"), ({"steps": 0}, "steps"), ({"seeds": 1.5}, "seeds"),
    ({"group_size": 1}, "group_size"), ({"lr": 0.0}, "lr"), ({"method": "pkpo"}, "method"),
    ({"n_arms": 3}, "n_arms"), ({"entropy_coef": -1.0}, "entropy_coef"), ({"record_every": 0}, "record_every"),
])
def test_bandit_experiment_bad(kw, arg):
    with pytest.raises(InputError, match=arg):
        bandit_experiment(**{"steps": 10, "seeds": 1, **kw})


@pytest.mark.bad_input("rl.linear_softmax_toy")
@pytest.mark.parametrize("kw,arg", [
    ({"methods": {}}, "methods"), ({"methods": {"x": ("ppo", {})}}, "methods"),
    ({"methods": {"x": ("pkpo", {"k": 16})}}, "methods"), ({"steps": 0}, "steps"),
    ({"batch_prompts": 500}, "batch_prompts"), ({"lr": -1.0}, "lr"), ({"ks": [0]}, "ks"),
    ({"group_size": 1}, "group_size"),
])
def test_toy_bad(kw, arg):
    with pytest.raises(InputError, match=arg):
        linear_softmax_toy(**{"steps": 2, "seeds": 1, **kw})


@pytest.mark.bad_input("rl.grade_answer")
def test_grade_answer_bad():
    with pytest.raises(InputError, match="completion"):
        grade_answer(42, 42)
    with pytest.raises(InputError, match="answer"):
        grade_answer("42", "forty-two")
    with pytest.raises(InputError, match="which"):
        grade_answer("42", 42, which="middle")


@pytest.mark.bad_input("rl.ArithmeticTask")
@pytest.mark.parametrize("kw,arg", [
    ({"n_train": 0}, "n_train"), ({"ops": "/"}, "ops"), ({"ops": ""}, "ops"), ({"max_operand": 0}, "max_operand"),
    ({"n_operands": 4}, "n_operands"), ({"template": "no placeholder"}, "template"), ({"chat": "yes"}, "chat"),
    ({"n_train": 500, "max_operand": 3}, "n_train"),
])
def test_arithmetic_task_bad(kw, arg):
    with pytest.raises(InputError, match=arg):
        ArithmeticTask(**kw)


@pytest.mark.bad_input("rl.ArithmeticTask")
def test_arithmetic_task_methods_bad():
    t = ArithmeticTask(n_train=4, n_test=2)
    with pytest.raises(InputError, match="split"):
        t.prompts("valid")
    with pytest.raises(InputError, match="answer"):
        t.reward(["1", "2"], answer=[1])
