"""RSGRPOTrainer: TRL's GRPOTrainer with the RS-GRPO advantage (imports torch, transformers and trl)."""
from __future__ import annotations

import functools

import numpy as np
import torch
from trl import GRPOConfig, GRPOTrainer

from iclr26sci.core import InputError, check_in_range, check_option, check_positive_int

from .rs_grpo import ADVANTAGES

__all__ = ["RSGRPOTrainer"]

#: the TRL releases RSGRPOTrainer is tested against (it overrides TRL internals); pyproject's ``llm`` extra pins
#: the same range
TESTED_TRL = ((1, 16), (1, 17))


def _trl_untested(version: str) -> bool:
    """True when a TRL version string lies outside :data:`TESTED_TRL` (``[1.16, 1.17)``)."""
    try:
        major, minor = (int(p) for p in version.split(".")[:2])
    except ValueError:
        return True
    return not TESTED_TRL[0] <= (major, minor) < TESTED_TRL[1]


def _checked_reward(fn, name):
    """Wrap a TRL reward function so a wrong number of rewards is an InputError naming ``reward_fn``."""

    @functools.wraps(fn)
    def wrapped(prompts, completions, **kwargs):
        out = fn(prompts=prompts, completions=completions, **kwargs)
        try:
            n = len(out)
        except TypeError:
            raise InputError(name, f"returned {type(out).__name__}", "a list with one reward per completion")
        if n != len(completions):
            raise InputError(name, f"returned {n} rewards for {len(completions)} completions",
                             "exactly one reward (float or None) per completion")
        return out

    wrapped.__name__ = getattr(fn, "__name__", "reward_fn")
    return wrapped


class RSGRPOTrainer(GRPOTrainer):
    r"""A ``trl.GRPOTrainer`` whose only change is the advantage: RS-GRPO (or any advantage of this package).

    Generation, reward calls, the clipped surrogate, KL, logging and everything else are TRL's. After TRL has
    scored a generation batch, the advantage it computed (``(r - mean) / std`` per group, depending on
    ``scale_rewards``) is replaced by :func:`~iclr26sci.rl.rs_advantage` of the same rewards in the same groups
    of ``num_generations`` completions:
    ``A_i = (1/beta) (e^{beta r_i} / mean_j e^{beta r_j} - 1)``. The rewards are TRL's weighted sum of the reward
    functions; completions every reward function scored ``None`` are left out of their group and get 0, as
    TRL does. TRL's ``scale_rewards`` is therefore ignored. A reward transform cannot give this advantage
    (check B-9: the needed factor ``1/mean(e^{beta r})`` differs between groups), hence the override.

    Parameters
    ----------
    model : LanguageModel, transformers model, peft model or str
        The policy. A :class:`iclr26sci.nn.LanguageModel` (e.g. ``load_lm(...).with_lora()``) passes its
        ``.model`` and its tokenizer as ``processing_class``.
    reward_fn : callable or list of callables
        TRL reward function(s) ``f(prompts, completions, **columns) -> list[float | None]``; a wrong number of
        rewards raises :class:`~iclr26sci.core.InputError` naming ``reward_fn``.
    beta : float, default 2.0
        The **risk-sensitivity** of RS-GRPO (not TRL's KL coefficient ``GRPOConfig.beta``). 0 gives ``r - mean``.
    group_size : int, optional
        Completions per prompt; sets ``num_generations`` when ``args`` is not given, and must equal
        ``args.num_generations`` when it is.
    advantage : {"rs", "grpo", "dr_grpo", "pkpo", "passk_training"}, default "rs"
        Which group advantage to use (the peers share the signature); ``advantage_params`` are its keywords.
    advantage_params : dict, optional
        Extra keywords (``k`` for the pass@k methods); ``beta`` is passed for ``"rs"``.
    args : trl.GRPOConfig, optional
    train_dataset : datasets.Dataset
        Rows with a ``prompt`` column (and any columns the reward function reads, e.g. ``answer``).
    **kwargs
        Passed to ``trl.GRPOTrainer`` (``processing_class``, ``callbacks``, ...).

    Examples
    --------
    >>> from iclr26sci.rl import RSGRPOTrainer
    >>> RSGRPOTrainer.__mro__[1].__name__
    'GRPOTrainer'
    """

    def __init__(self, model, reward_fn=None, *, beta: float = 2.0, group_size: int | None = None,
                 advantage: str = "rs", advantage_params: dict | None = None, args: GRPOConfig | None = None,
                 train_dataset=None, **kwargs):
        import trl

        if _trl_untested(trl.__version__):
            import warnings

            warnings.warn(f"RSGRPOTrainer overrides TRL internals and is tested with trl>=1.16,<1.17 only; this is "
                          f"trl {trl.__version__}: check that the advantages fed to the loss equal rs_advantage of the rewards (tests/rl/test_rl_trl.py does) before relying on it",
                          RuntimeWarning, stacklevel=2)
        self.rs_beta = check_in_range(beta, "beta")
        self.advantage_method = check_option(advantage, "advantage", list(ADVANTAGES))
        if advantage_params is not None and not isinstance(advantage_params, dict):
            raise InputError("advantage_params", f"got {type(advantage_params).__name__}", "a dict or None")
        self.advantage_params = dict(advantage_params or {})
        if self.advantage_method == "rs":
            self.advantage_params.setdefault("beta", self.rs_beta)
        if reward_fn is None:
            reward_fn = kwargs.pop("reward_funcs", None)
        if reward_fn is None:
            raise InputError("reward_fn", "is missing", "a reward function f(prompts, completions, **columns)")
        fns = reward_fn if isinstance(reward_fn, (list, tuple)) else [reward_fn]
        for f in fns:
            if not callable(f):
                raise InputError("reward_fn", f"got {type(f).__name__}", "a callable (or a list of callables)")
        fns = [_checked_reward(f, "reward_fn") if not isinstance(f, (str, torch.nn.Module)) else f for f in fns]
        if group_size is not None:
            group_size = check_positive_int(group_size, "group_size", minimum=2)
        if args is None:
            args = GRPOConfig(output_dir=kwargs.pop("output_dir", "rs_grpo_out"),
                              num_generations=group_size or 8, report_to="none")
        elif not isinstance(args, GRPOConfig):
            raise InputError("args", f"got {type(args).__name__}", "a trl.GRPOConfig")
        elif group_size is not None and group_size != args.num_generations:
            raise InputError("group_size", f"got {group_size} but args.num_generations={args.num_generations}",
                             "None, or equal to args.num_generations")
        if train_dataset is None:
            raise InputError("train_dataset", "is missing", "a datasets.Dataset with a 'prompt' column")
        if hasattr(train_dataset, "column_names") and "prompt" not in train_dataset.column_names:
            raise InputError("train_dataset", f"has columns {train_dataset.column_names}", "a 'prompt' column")
        if hasattr(model, "model") and hasattr(model, "tokenizer") and hasattr(model, "generate") \
                and not isinstance(model, torch.nn.Module):
            kwargs.setdefault("processing_class", model.tokenizer)
            model = model.model
        # validate the advantage parameters once on a dummy group, before any model work
        try:
            ADVANTAGES[self.advantage_method](np.array([0.0, 1.0] * max(1, args.num_generations // 2)
                                                       + [0.0] * (args.num_generations % 2)),
                                              **self.advantage_params)
        except TypeError as exc:
            raise InputError("advantage_params", str(exc), f"keywords of {self.advantage_method}_advantage")
        self._rs_last_rewards = None
        super().__init__(model=model, reward_funcs=fns, args=args, train_dataset=train_dataset, **kwargs)

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        out = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._rs_last_rewards = out            # (all processes' completions, n_reward_funcs), gathered
        return out

    def compute_group_advantages(self, rewards: torch.Tensor, num_generations: int) -> torch.Tensor:
        """The package advantage of contiguous groups of ``num_generations`` (NaN rewards: left out, 0)."""
        r = rewards.detach().double().cpu().numpy()
        ok = np.isfinite(r)
        ids = np.arange(r.size) // num_generations
        A = np.zeros(r.size)
        if ok.any():
            A[ok] = ADVANTAGES[self.advantage_method](r[ok], ids[ok], **self.advantage_params)
        return torch.as_tensor(A, dtype=torch.float32, device=rewards.device)

    def _generate_and_score_completions(self, inputs):
        output = super()._generate_and_score_completions(inputs)
        rpf = self._rs_last_rewards
        mode = "train" if self.model.training else "eval"
        G = self.num_generations if mode == "train" else self.num_generations_eval
        unscorable = torch.isnan(rpf).all(dim=1)
        rewards = (rpf * self.reward_weights.to(rpf.device).unsqueeze(0)).nansum(dim=1)
        rewards[unscorable] = torch.nan
        adv_all = self.compute_group_advantages(rewards, G)
        n_local = output["advantages"].shape[0]
        sl = slice(self.accelerator.process_index * n_local, (self.accelerator.process_index + 1) * n_local)
        output["advantages"] = adv_all[sl].to(output["advantages"].device, output["advantages"].dtype)
        logged = self._logs["advantages"]           # replace TRL's logged advantages with ours
        m = min(len(logged), adv_all.numel())
        for _ in range(m):
            logged.pop()
        logged.extend(adv_all.tolist()[-m:] if m else [])
        self._rs_last_rewards = None
        return output
