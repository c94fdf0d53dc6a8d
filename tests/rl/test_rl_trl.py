"""RSGRPOTrainer on nn.tiny_lm: the advantage fed to the loss is exactly rs_advantage of the rewards; bad input."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
trl = pytest.importorskip("trl")

from iclr26sci.core import InputError  # noqa: E402
from iclr26sci.nn import tiny_lm  # noqa: E402
from iclr26sci.rl import ArithmeticTask, RSGRPOTrainer, rs_advantage  # noqa: E402


def _args(tmp_path, **kw):
    base = dict(output_dir=str(tmp_path), num_generations=4, per_device_train_batch_size=8, max_completion_length=4,
                max_steps=1, learning_rate=1e-3, logging_steps=1, report_to="none", save_strategy="no", use_cpu=True,
                seed=0, disable_tqdm=True)
    base.update(kw)
    return trl.GRPOConfig(**base)


@pytest.fixture(scope="module")
def task():
    return ArithmeticTask(n_train=8, n_test=2, rng=0)


def test_trainer_uses_rs_advantage(tmp_path, task):
    torch.set_num_threads(1)
    lm = tiny_lm(rng=0).with_lora(r=2)
    gen = np.random.default_rng(0)
    calls = []

    def reward(prompts, completions, answer, **kw):
        out = [float(v) for v in gen.random(len(completions)) < 0.5]
        calls.append(out)
        return out

    tr = RSGRPOTrainer(model=lm, reward_fn=reward, beta=2.0, args=_args(tmp_path), train_dataset=task.dataset())
    seen = []
    orig = tr._generate_and_score_completions

    def spy(inputs):
        out = orig(inputs)
        seen.append(out["advantages"].clone())
        return out

    tr._generate_and_score_completions = spy
    before = [p.detach().clone() for p in lm.trainable_parameters()]
    tr.train()
    assert calls and len(calls) == len(seen)
    for r, a in zip(calls, seen):
        np.testing.assert_allclose(a.numpy(), rs_advantage(np.array(r).reshape(-1, 4), beta=2.0).reshape(-1),
                                   atol=1e-6)
    assert any(not torch.equal(b, p) for b, p in zip(before, lm.trainable_parameters())) or \
        all(len(set(r)) == 1 for r in calls)


@pytest.mark.bad_input("rl.RSGRPOTrainer")
def test_trainer_bad_input(tmp_path, task):
    lm = tiny_lm(rng=0)
    ok = dict(model=lm, reward_fn=lambda prompts, completions, **k: [0.0] * len(completions),
              args=_args(tmp_path), train_dataset=task.dataset())
    for kw, arg in [({"beta": float("nan")}, "beta"), ({"beta": float("inf")}, "beta"),
                    ({"reward_fn": None}, "reward_fn"), ({"reward_fn": 3}, "reward_fn"),
                    ({"group_size": 8}, "group_size"), ({"advantage": "ppo"}, "advantage"),
                    ({"advantage_params": {"bogus": 1}}, "advantage_params"), ({"train_dataset": None}, "train_dataset"),
                    ({"args": {"lr": 1}}, "args")]:
        with pytest.raises(InputError, match=arg):
            RSGRPOTrainer(**{**ok, **kw})


@pytest.mark.bad_input("rl.RSGRPOTrainer")
def test_reward_fn_wrong_length(tmp_path, task):
    lm = tiny_lm(rng=0)
    tr = RSGRPOTrainer(model=lm, reward_fn=lambda prompts, completions, **k: [0.0], beta=2.0,
                       args=_args(tmp_path), train_dataset=task.dataset())
    with pytest.raises(InputError, match="reward_fn"):
        tr.train()


def test_trl_pin_matches_the_tested_range():
    """pyproject's llm extra pins the TRL range RSGRPOTrainer is tested against; the installed TRL is inside it,
    and an untested version is recognised (RSGRPOTrainer then warns)."""
    import pathlib
    import re

    from iclr26sci.rl._trl import TESTED_TRL, _trl_untested

    text = (pathlib.Path(__file__).parents[2] / "pyproject.toml").read_text()
    pins = re.findall(r'"trl([^"]*)"', text)
    lo, hi = (".".join(map(str, v)) for v in TESTED_TRL)
    assert pins and all(p == f">={lo},<{hi}" for p in pins), pins
    assert not _trl_untested(trl.__version__)
    assert _trl_untested("0.12.0") and _trl_untested("1.17.0") and _trl_untested("2.0") and _trl_untested("dev")
    assert not _trl_untested("1.16.3")


def test_untested_trl_warns(tmp_path, task, monkeypatch):
    monkeypatch.setattr(trl, "__version__", "1.20.0")
    lm = tiny_lm(rng=0)
    with pytest.warns(RuntimeWarning, match="trl>=1.16,<1.17"):
        RSGRPOTrainer(model=lm, reward_fn=lambda prompts, completions, **kw: [0.0] * len(completions), beta=2.0,
                      args=_args(tmp_path), train_dataset=task.dataset())
