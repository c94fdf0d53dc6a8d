r"""TempFlow-GRPO: temporally-aware GRPO for flow models, with Flow-GRPO, DanceGRPO and MixGRPO as modes of one
trainer.

Time convention of :mod:`iclr26sci.nn`: :math:`t = 0` noise, :math:`t = 1` data (SD3, diffusers and the papers
write :math:`\sigma = 1 - t`). The sampling grid is SD3's shifted grid (diffusers'
``FlowMatchEulerDiscreteScheduler(shift).set_timesteps(T)``): :math:`\sigma = s\,c/(1 + (c - 1)s)` for ``T``
values :math:`s` evenly spaced from 1 down to the shifted :math:`10^{-3}`, then :math:`\sigma_T = 0`.

**Policy** (Flow-GRPO's ODE-to-SDE conversion, :func:`iclr26sci.nn.flow_sde`): step :math:`k` from
:math:`\sigma_k` to :math:`\sigma_{k+1}` is the Gaussian :math:`\pi_\theta(x_{k+1} \mid x_k, c) = N(\mu_\theta,
s_k^2 I)` with :math:`s_k = \sigma^{\rm noise}_k \sqrt{|\Delta\sigma_k|}`,
:math:`\sigma^{\rm noise}_k = a\sqrt{\sigma_k/(1 - \sigma_k)}` (:math:`\sigma_0 = 1` uses :math:`\sigma_1` in the
denominator) and noise level :math:`a`. Log-likelihoods are averaged over the latent dimensions (``reduce``).

**Objective** (Flow-GRPO; per stored transition with ratio :math:`\rho = \exp(\log\pi_\theta - \log\pi_{\rm old})`):

.. math::

    \ell = -\omega_k \min\bigl(\rho A, \operatorname{clip}(\rho, 1 - \epsilon, 1 + \epsilon) A\bigr)
           + \beta\, \mathrm{mean}_{\rm dims} \frac{\|\mu_\theta - \mu_{\rm ref}\|^2}{2 s_k^2},

averaged over the transitions; :math:`\omega_k \equiv 1` in Flow-GRPO.

**TempFlow-GRPO's three changes** (each switchable):

1. *trajectory branching*: from a deterministic ODE trunk, at each step :math:`k \le T - 2` draw ``branches``
   SDE transitions and finish each by the ODE; the branch's reward depends on the step-:math:`k` noise alone, a
   process reward without an intermediate reward model;
2. *seed-group advantages*: :math:`A_k^{(j)} = (R_k^{(j)} - \bar R_k)/(\mathrm{sd}(R_k) + 10^{-4})` per step,
   over the branches of one seed (``group_by="seed"``, the paper's "seed group") or over all seeds of the
   prompt (``group_by="prompt"``, what the official code's per-prompt tracker does);
3. *noise-aware weights* :math:`\omega_k = c\,\sigma^{\rm noise}_k\sqrt{|\Delta\sigma_k|}` with :math:`c` chosen
   so that :math:`\mathrm{mean}_{k \le T-2}\,\omega_k = 1` (computed; the official code hard-codes
   :math:`c = 2.25`, the normaliser of :math:`T = 10`, shift 3, :math:`a = 0.7` only).

References
----------
He, Fu, Zhao, Li, Yang, Yin, Rao, Zhang (2025), TempFlow-GRPO: When Timing Matters for GRPO in Flow Models,
arXiv:2508.04324 (ICLR 2026); official code Shredded-Pork/TempFlow-GRPO.
Liu et al. (2025), Flow-GRPO: Training flow matching models via online RL, arXiv:2505.05470.
Xue et al. (2025), DanceGRPO: Unleashing GRPO on visual generation, arXiv:2505.07818.
Li et al. (2025), MixGRPO: Unlocking flow-based GRPO efficiency with mixed ODE-SDE, arXiv:2507.21802.
"""
from __future__ import annotations

import math
import time
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import (InputError, as_generator, check_bool, check_in_range, check_is_fitted, check_option,
                            check_positive_int, progress, resolve_rng, torch_generator)

from ._tf_schedule import (OFFICIAL_OMEGA_CONSTANT, WEIGHTINGS, _check_steps, group_normalise,
                           noise_aware_weights_np, sd3_sigmas, sd3_times, step_noise_scales)

__all__ = ["FlowGRPOTrainer", "GRPOHistory", "noise_aware_weights", "sd3_time_grid", "group_advantages",
           "grpo_loss", "class_reward", "target_reward", "DiffusersFlowModel", "DiffusersPipelineModel",
           "tiny_sd3_pipeline", "MODES", "OFFICIAL_OMEGA_CONSTANT"]

#: the trainer's modes
MODES = ("flow_grpo", "dance_grpo", "mix_grpo", "tempflow")

_GROUPS = ("seed", "prompt")


def __getattr__(name):   # the diffusers adapters live with the torch policies (lazy: no torch at import)
    if name == "DiffusersFlowModel":
        from ._tf_policy import DiffusersFlowModel

        return DiffusersFlowModel
    if name == "DiffusersPipelineModel":
        from ._tf_diffusers import DiffusersPipelineModel

        return DiffusersPipelineModel
    raise AttributeError(name)


def tiny_sd3_pipeline(rng=0, text_len=16):
    r"""A tiny, randomly initialised ``StableDiffusion3Pipeline`` built from configs, for tests and examples.

    Nothing is pretrained and nothing is downloaded: two CLIP text encoders with projection (hidden width 8, one
    layer) with a byte-level ``CLIPTokenizer`` built in memory (one token per byte, no merges), no T5
    (``text_encoder_3=None``: the pipeline substitutes zero embeddings), an ``SD3Transformer2DModel`` with one
    joint block (about 12k parameters), an ``AutoencoderKL`` with two levels (16x16 RGB images, 4x8x8 latents)
    and a ``FlowMatchEulerDiscreteScheduler(shift=3)``. Its images are noise-like; it exercises the code path of
    a real SD3 pipeline (text encoders, CFG, transformer, VAE), not image quality.

    Parameters
    ----------
    rng : int, default 0
        Seed of the random weights (the global torch RNG is left untouched).
    text_len : int >= 4, default 16
        Tokenizer and text-encoder length (prompts are truncated to ``text_len - 2`` bytes).

    Returns
    -------
    diffusers.StableDiffusion3Pipeline

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.generative import tiny_sd3_pipeline
    >>> pipe = tiny_sd3_pipeline(rng=0)
    >>> out = pipe(["a red square"], num_inference_steps=2, guidance_scale=4.5, max_sequence_length=8,
    ...            output_type="pt", generator=torch.Generator().manual_seed(0))
    >>> out.images.shape
    torch.Size([1, 3, 16, 16])
    """
    if isinstance(rng, bool) or not isinstance(rng, (Integral, np.integer)) or int(rng) < 0:
        raise InputError("rng", f"got {rng!r}", "a non-negative integer seed")
    if isinstance(text_len, bool) or not isinstance(text_len, (Integral, np.integer)) or int(text_len) < 4:
        raise InputError("text_len", f"got {text_len!r}", "an integer >= 4")
    from ._tf_diffusers import tiny_sd3_pipeline_impl

    return tiny_sd3_pipeline_impl(int(rng), int(text_len))


# ------------------------------------------------------------------------------------------ schedule helpers
def sd3_time_grid(steps=10, shift=3.0):
    r"""SD3's time-shifted sampling grid in the nn convention (increasing times, 0 = noise, 1 = data).

    :math:`t_k = 1 - \sigma_k`, where :math:`\sigma_k = c\, s_k / (1 + (c - 1) s_k)` for ``steps`` values
    :math:`s_k` evenly spaced from 1 down to the shifted :math:`10^{-3}` (diffusers'
    ``FlowMatchEulerDiscreteScheduler(shift=c).set_timesteps(steps)``) and :math:`\sigma_{\rm steps} = 0`.

    Parameters
    ----------
    steps : int >= 2, default 10
        Number of sampling steps :math:`T` (the grid has ``steps + 1`` points).
    shift : float > 0, default 3
        SD3's time shift :math:`c` (1: no shift; larger values put more steps at high noise).

    Returns
    -------
    numpy.ndarray (steps + 1,)

    Examples
    --------
    >>> from iclr26sci.generative import sd3_time_grid
    >>> sd3_time_grid(4, shift=1.0).round(3)
    array([0.   , 0.333, 0.666, 0.999, 1.   ])
    """
    return sd3_times(_check_steps(steps), shift)


def noise_aware_weights(steps=10, shift=3.0, noise_level=0.7, weighting="computed", times=None):
    r"""TempFlow-GRPO's noise-aware step weights :math:`\omega_k` for the branching steps :math:`k = 0..T-2`.

    .. math::

        \omega_k = c\, \sigma^{\rm noise}_k \sqrt{|\Delta\sigma_k|}, \qquad
        \sigma^{\rm noise}_k = a \sqrt{\sigma_k / (1 - \sigma_k)}, \qquad
        c = \Bigl(\frac{1}{T-1}\sum_{k=0}^{T-2} \sigma^{\rm noise}_k \sqrt{|\Delta\sigma_k|}\Bigr)^{-1},

    i.e. each step's weight is proportional to the std of the noise it injects and the weights have mean one.
    At :math:`\sigma_0 = 1` the denominator uses :math:`\sigma_1` (Flow-GRPO's rule), which makes
    :math:`\omega_0` slightly smaller than :math:`\omega_1` on the default schedule (the "step-0 exception");
    from :math:`k = 1` on the weights decrease for shifts up to 5.

    Parameters
    ----------
    steps : int >= 2, default 10
        Number of sampling steps :math:`T`.
    shift : float > 0, default 3
        SD3 time shift of the grid.
    noise_level : float > 0, default 0.7
        Flow-GRPO's noise level :math:`a` (cancels in ``"computed"``, not in ``"official"``).
    weighting : {"computed", "official", "sigma", "none"}, default "computed"
        ``"computed"``: the normaliser :math:`c` is computed (mean one on any schedule); ``"official"``: the
        official code's hard-coded :math:`c = 2.25` (mean one only for T = 10, shift 3, a = 0.7);
        ``"sigma"``: :math:`\propto \sigma^{\rm noise}_k` alone, mean one (the variant an official code
        comment recommends, there with a 10x KL weight); ``"none"``: all ones (Flow-GRPO).
    times : array, optional
        An increasing nn-convention grid (0 noise .. 1 data) instead of SD3's shifted one.

    Returns
    -------
    numpy.ndarray (T - 1,)

    References
    ----------
    He et al. (2025), TempFlow-GRPO, arXiv:2508.04324, Sec. "noise-aware policy weighting".

    Examples
    --------
    >>> from iclr26sci.generative import noise_aware_weights
    >>> w = noise_aware_weights(10, shift=3.0, noise_level=0.7)
    >>> w.round(2)
    array([1.58, 1.67, 1.21, 1.  , 0.88, 0.79, 0.72, 0.64, 0.51])
    >>> float(w.mean())
    1.0
    >>> round(float(noise_aware_weights(20, weighting="official").mean()), 2)   # the constant is schedule-specific
    0.69
    """
    weighting = check_option(weighting, "weighting", list(WEIGHTINGS))
    a = check_in_range(noise_level, "noise_level", 0.0, low_open=True)
    if times is None:
        t = sd3_times(_check_steps(steps), shift)
    else:
        t = np.asarray(times, dtype=float).reshape(-1)
        if t.size < 3 or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0) or t[0] < 0 or t[-1] > 1 \
                or t[-2] >= 1:
            raise InputError("times", "is not an increasing grid of >= 3 points in [0, 1]",
                             "an increasing array of times from noise (0) to data (1)")
    return noise_aware_weights_np(t, a, weighting, trained=len(t) - 2)


def group_advantages(rewards, group_by="seed", eps=1e-4, clip=5.0):
    r"""TempFlow-GRPO's per-step group-normalised advantages of a branch reward array.

    For rewards :math:`R` of shape (prompts, seeds, steps, branches):

    .. math:: A_{p,s,k,j} = \mathrm{clip}\Bigl(\frac{R_{p,s,k,j} - \bar R_{G}}{\mathrm{sd}(R_{G}) + \epsilon},
              \pm\,\mathrm{clip}\Bigr)

    with the group :math:`G` = the branches of one seed at step :math:`k` (``"seed"``) or all seeds' branches of
    the prompt at step :math:`k` (``"prompt"``); population standard deviations, as the official trackers.

    Parameters
    ----------
    rewards : array (P, S, K_steps, B)
        Branch rewards: P prompts, S seeds each, one column per branching step, B branches per step.
    group_by : {"seed", "prompt"}, default "seed"
        The normalisation group (see above).
    eps : float > 0, default 1e-4
        Added to the standard deviation.
    clip : float > 0 or None, default 5
        Advantages are clipped to ``[-clip, clip]``.

    Returns
    -------
    numpy.ndarray, same shape as ``rewards``

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.generative import group_advantages
    >>> R = np.array([[[[0.0, 1.0], [5.0, 5.0]], [[2.0, 3.0], [0.0, 10.0]]]])    # 1 prompt, 2 seeds, 2 steps, 2 branches
    >>> group_advantages(R, "seed")[0, :, :, 0].round(3)
    array([[-1.,  0.],
           [-1., -1.]])
    >>> group_advantages(R, "prompt")[0, :, 0, :].round(3)
    array([[-1.342, -0.447],
           [ 0.447,  1.342]])
    """
    from iclr26sci.core import check_array

    R = check_array(rewards, "rewards", ndim=4)
    if R.size == 0:
        raise InputError("rewards", f"has shape {R.shape}", "an array of shape (prompts, seeds, steps, branches)")
    group_by = check_option(group_by, "group_by", list(_GROUPS))
    size = R.shape[3] if group_by == "seed" else R.shape[1] * R.shape[3]
    if size < 2:
        raise InputError("rewards", f"has groups of {size} reward(s) (shape {R.shape}, group_by={group_by!r}): "
                         "a group of one has no relative advantage", "at least 2 rewards per normalisation group")
    eps = check_in_range(eps, "eps", 0.0, low_open=True)
    if clip is not None:
        clip = check_in_range(clip, "clip", 0.0, low_open=True)
    if group_by == "seed":
        return group_normalise(R, axis=3, eps=eps, clip=clip)
    return group_normalise(R, axis=(1, 3), eps=eps, clip=clip)


def grpo_loss(step, ref_step, x_next, logp_old, advantages, weights=None, clip=0.2, kl_beta=0.0, reduce="mean"):
    r"""The per-transition Flow-GRPO / TempFlow-GRPO loss on one batch of stored SDE transitions.

    .. math::

        \ell_i = -\omega_i \min(\rho_i A_i, \operatorname{clip}(\rho_i, 1 - \epsilon, 1 + \epsilon) A_i)
                 + \beta\,\mathrm{KL}(\pi_\theta(\cdot \mid x_i) \,\|\, \pi_{\rm ref}(\cdot \mid x_i)),
        \qquad \rho_i = \exp(\log\pi_\theta(x'_i \mid x_i) - \log\pi_{\rm old}(x'_i \mid x_i)),

    with the closed-form Gaussian KL (``mean_dims ||mu - mu_ref||^2 / (2 s^2)`` for the shared std).

    Parameters
    ----------
    step : iclr26sci.nn.SDEStep
        The current policy's step at the stored states (differentiable).
    ref_step : iclr26sci.nn.SDEStep or None
        The reference policy's step at the same states (None: no KL term, reported as 0).
    x_next : tensor
        The stored next states :math:`x'`.
    logp_old : tensor (B,)
        :math:`\log\pi_{\rm old}(x' \mid x)` stored at sampling time (same ``reduce``).
    advantages : tensor (B,)
        :math:`A_i`.
    weights : tensor (B,), optional
        :math:`\omega_i` (default ones).
    clip : float > 0, default 0.2
        PPO clip range :math:`\epsilon`.
    kl_beta : float >= 0, default 0
        :math:`\beta`.
    reduce : {"mean", "sum"}, default "mean"
        Log-likelihood and KL over the latent dimensions: Flow-GRPO's mean, or the true sum.

    Returns
    -------
    loss : tensor (B,)
        Per-transition loss (average it).
    stats : dict
        ``ratio`` (B,), ``kl`` (B,), ``clipped`` (B,) bool.

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.nn import GaussianFlowOracle, flow_sde
    >>> from iclr26sci.generative import grpo_loss
    >>> sde = flow_sde(GaussianFlowOracle(mean=[1.0]), noise_level=0.7)
    >>> st = sde.step(torch.zeros(3, 1, dtype=torch.float64), 0.5, 0.1, rng=0)
    >>> loss, s = grpo_loss(st, st, st.sample, st.log_prob(st.sample), torch.tensor([1.0, -1.0, 0.0]))
    >>> [v + 0.0 for v in loss.tolist()], s["ratio"].tolist()
    ([-1.0, 1.0, 0.0], [1.0, 1.0, 1.0])
    """
    import torch

    clip = check_in_range(clip, "clip", 0.0, low_open=True)
    kl_beta = check_in_range(kl_beta, "kl_beta", 0.0)
    reduce = check_option(reduce, "reduce", ["mean", "sum"])
    for nm, st in (("step", step), ("ref_step", ref_step)):
        if st is None and nm == "ref_step":
            continue
        if not (hasattr(st, "log_prob") and hasattr(st, "kl") and hasattr(st, "mean")):
            raise InputError(nm, f"got {type(st).__name__}", "an iclr26sci.nn SDEStep (from flow_sde(...).step)")
    x_next = torch.as_tensor(x_next)
    if tuple(x_next.shape) != tuple(step.mean.shape):
        raise InputError("x_next", f"has shape {tuple(x_next.shape)}", f"the step's state shape {tuple(step.mean.shape)}")
    if not bool(torch.isfinite(x_next).all()):
        raise InputError("x_next", "contains NaN or infinite values", "finite next states")
    lp = step.log_prob(x_next, reduce=reduce)

    def per_transition(v, nm, *, nonneg=False):
        try:
            t = torch.as_tensor(v, dtype=lp.dtype)
        except (TypeError, ValueError, RuntimeError):
            raise InputError(nm, f"got {type(v).__name__}", f"a tensor of shape {tuple(lp.shape)}") from None
        if t.shape != lp.shape:
            raise InputError(nm, f"has shape {tuple(t.shape)}", f"one value per transition {tuple(lp.shape)}")
        if not bool(torch.isfinite(t).all()):
            raise InputError(nm, "contains NaN or infinite values", "finite values")
        if nonneg and bool((t < 0).any()):
            raise InputError(nm, f"has negative entries (min {float(t.min()):g})", "non-negative step weights")
        return t

    A = per_transition(advantages, "advantages")
    logp_old = per_transition(logp_old, "logp_old")
    ratio = torch.exp(lp - logp_old)
    w = torch.ones_like(lp) if weights is None else per_transition(weights, "weights", nonneg=True)
    surr = torch.minimum(ratio * A, torch.clamp(ratio, 1 - clip, 1 + clip) * A)
    loss = -w * surr
    if ref_step is not None:
        kl = step.kl(ref_step, reduce=reduce)
        if kl_beta > 0:
            loss = loss + kl_beta * kl
    else:
        kl = torch.zeros_like(lp)
    clipped = (ratio - 1).abs() > clip
    return loss, {"ratio": ratio.detach(), "kl": kl.detach(), "clipped": clipped}


# ------------------------------------------------------------------------------------------ rewards
def class_reward(classifier, kind="prob", target=None, clamp=(0.0, 1.0), shape=None):
    r"""A reward from a classifier: the probability (differentiable), log-probability or top-1 indicator
    (non-differentiable) of the prompt's class.

    .. math:: r(x, c) = p_\phi(y = c \mid x) \quad\text{or}\quad \log p_\phi(y = c \mid x)
              \quad\text{or}\quad \mathbf 1[\arg\max_y p_\phi(y \mid x) = c]

    Parameters
    ----------
    classifier : torch.nn.Module or fitted sklearn linear classifier
        A module mapping a batch to logits (e.g. :func:`iclr26sci.nn.fashion_classifier`) or a model with
        ``coef_`` and ``intercept_`` (e.g. the digits logistic regression), turned into torch logits.
    kind : {"prob", "logprob", "top1"}, default "prob"
        Which score.
    target : int, optional
        A fixed target class for every prompt (default: the prompt's own label).
    clamp : (low, high) or None, default (0, 1)
        Samples are clamped to this range before the classifier (the flows' images live in [0, 1]).
    shape : tuple, optional
        Reshape the samples to this per-sample shape first.

    Returns
    -------
    callable ``reward(x, prompts) -> tensor (n,)``

    Examples
    --------
    >>> import numpy as np, torch
    >>> from sklearn.linear_model import LogisticRegression
    >>> from iclr26sci.generative import class_reward
    >>> clf = LogisticRegression().fit(np.array([[0.0], [1.0], [0.1], [0.9]]), [0, 1, 0, 1])
    >>> r = class_reward(clf, kind="top1", clamp=None)
    >>> r(torch.tensor([[0.0], [1.0]]), np.array([0, 0])).tolist()
    [1.0, 0.0]
    """
    from ._tf_rewards import ClassifierReward

    return ClassifierReward(classifier, kind=kind, target=target, clamp=clamp, shape=shape)


def target_reward(targets):
    r"""The 2-D (any-d) target reward :math:`r(x, c) = -\|x - m_c\|` of TempFlow's CPU checks.

    Parameters
    ----------
    targets : array (n_prompts, d) or (d,)
        Target point :math:`m_c` of each prompt (one row: the same target for all).

    Returns
    -------
    callable ``reward(x, prompts) -> tensor (n,)``

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.generative import target_reward
    >>> r = target_reward([[0.0, 0.0], [3.0, 4.0]])
    >>> r(torch.zeros(2, 2), [0, 1]).tolist()
    [-0.0, -5.0]
    """
    from ._tf_rewards import TargetReward

    return TargetReward(targets)


# ------------------------------------------------------------------------------------------ history
class GRPOHistory:
    """Per-update logs of a :class:`FlowGRPOTrainer` (reward, KL, reward calls, NFEs, wall time, ...).

    ``history[key]`` is the numpy array of one column over the updates; ``records`` the list of dicts.

    Examples
    --------
    >>> from iclr26sci.generative import GRPOHistory
    >>> h = GRPOHistory([{"update": 1, "reward": 0.5}, {"update": 2, "reward": 0.7}])
    >>> h["reward"].tolist(), len(h)
    ([0.5, 0.7], 2)
    """

    def __init__(self, records=None):
        if records is not None and (isinstance(records, (str, bytes, dict)) or not hasattr(records, "__iter__")):
            raise InputError("records", f"got {type(records).__name__}", "a list of dicts (one per update) or None")
        records = list(records or [])
        if not all(isinstance(r, dict) for r in records):
            raise InputError("records", "has entries that are not dicts", "a list of dicts (one per update)")
        self.records = records

    def __len__(self):
        return len(self.records)

    def __getitem__(self, key):
        if not self.records or key not in self.records[0]:
            raise KeyError(key)
        return np.array([r.get(key, np.nan) for r in self.records], dtype=float)

    def keys(self):
        return list(self.records[0]) if self.records else []

    def __repr__(self):
        if not self.records:
            return "GRPOHistory(updates=0)"
        r = self.records[-1]
        return (f"GRPOHistory(updates={len(self)}, reward={r['reward']:.4g}, kl={r['kl']:.3g}, "
                f"reward_calls={int(r['reward_calls'])}, nfe={int(r['nfe'])}, seconds={r['seconds']:.3g})")

    def summary(self) -> str:
        if not self.records:
            return "no updates yet"
        f, l = self.records[0], self.records[-1]
        ev = f" eval reward {f.get('eval_reward', float('nan')):.4g} -> {l.get('eval_reward', float('nan')):.4g};"
        return (f"{len(self)} updates: training reward {f['reward']:.4g} -> {l['reward']:.4g};{ev} KL to the "
                f"reference {l['kl']:.3g}; {int(l['reward_calls'])} reward calls, {int(l['nfe'])} sampling NFEs, "
                f"{l['seconds']:.3g} s")

    def to_dict(self) -> dict:
        return {k: self[k].tolist() for k in self.keys()}


# ------------------------------------------------------------------------------------------ trainer
_MODE_DEFAULTS = {
    "flow_grpo": dict(branching=False, weighting="none", timestep_fraction=0.99),
    "dance_grpo": dict(branching=False, weighting="none", timestep_fraction=0.6),
    "mix_grpo": dict(branching=False, weighting="none", timestep_fraction=1.0),
    "tempflow": dict(branching=True, weighting="computed", timestep_fraction=1.0),
}


class FlowGRPOTrainer(BaseEstimator):
    r"""GRPO fine-tuning of a flow model on a reward: Flow-GRPO, DanceGRPO, MixGRPO and TempFlow-GRPO.

    One update samples from the current policy (Flow-GRPO's SDE, :func:`iclr26sci.nn.flow_sde`), scores the
    samples, forms group-normalised advantages and takes ``minibatches`` AdamW steps on the clipped objective
    (see :func:`grpo_loss`, :mod:`iclr26sci.generative.tempflow`); the frozen input model is the KL reference.

    - ``flow_grpo``: ``group_size`` independent SDE trajectories per prompt, trajectory-level advantage
      normalised over the prompt's group, ``int(timestep_fraction T)`` random steps trained per trajectory;
    - ``dance_grpo``: the same with the initial noise shared within each prompt's group and 60% of the steps;
    - ``mix_grpo``: SDE only inside a window of ``window`` steps that slides from the first to the last steps
      over the updates, ODE elsewhere; only the window's steps are trained;
    - ``tempflow``: ``seeds_per_prompt`` ODE trunks per prompt, ``branches`` SDE branches at each step
      :math:`k \le T - 2` finished by the ODE (process reward), per-step advantages (``group_by``) and
      noise-aware weights :math:`\omega_k` (``weighting``). ``branching=False`` falls back to trajectories.

    Parameters
    ----------
    flow_model : FlowMatching, velocity network, DiffusersFlowModel or DiffusersPipelineModel
        The pretrained flow model. nn and DiffusersFlowModel models are never modified: a deep copy is trained and
        the original is the reference. A :class:`DiffusersPipelineModel` (see :meth:`from_pipeline`) is not
        copied: a LoRA adapter is trained on the pipeline's transformer and the reference is the transformer
        with its adapters disabled.
    reward_fn : callable ``(x, prompts) -> (n,)``
        Reward of final samples ``x`` (tensor (n, *event_shape)) for their prompts (array (n,)); for a pipeline,
        ``x`` is the VAE-decoded image batch in [0, 1] and ``prompts`` the list of prompt strings.
    mode : {"flow_grpo", "dance_grpo", "mix_grpo", "tempflow"}, default "tempflow"
    steps : int >= 2, default 10
        Sampling steps :math:`T` of the training rollouts.
    shift : float > 0, default 3
        SD3 time shift of the grid.
    noise_level : float > 0, default 0.7
        Flow-GRPO's SDE noise level :math:`a`.
    group_by : {"seed", "prompt"}, default "seed"
        TempFlow's advantage group (branching only).
    branches : int >= 1, default 6
        TempFlow's branches :math:`K` per step.
    seeds_per_prompt : int >= 1, default 4
        TempFlow's ODE trunks (initial noises) per prompt.
    group_size : int >= 2, default 24
        Trajectories per prompt in the trajectory modes (Flow-GRPO's G).
    clip : float > 0, default 0.2
        PPO clip range :math:`\epsilon` (the papers use 1e-4 at LoRA scale; small CPU models need more).
    kl_beta : float >= 0, default 0.004
        Weight :math:`\beta` of the KL to the reference.
    lr : float > 0, default 1e-4
        AdamW learning rate.
    weighting : {"computed", "official", "sigma", "none"}, optional
        Step weights (see :func:`noise_aware_weights`); default "computed" in tempflow, "none" otherwise.
    branching : bool, optional
        TempFlow's branching (default True in tempflow; the other modes never branch).
    branch_steps : sequence of int, optional
        The grid steps :math:`k \le T - 2` at which TempFlow branches (and which it trains); default all of them.
        Reward calls per update are ``prompts x seeds_per_prompt x branches x len(branch_steps)``: branching only
        where the reward is decided (e.g. the early, high-noise steps) saves the calls of the others.
    timestep_fraction : float in (0, 1], optional
        Fraction of the steps trained per trajectory (default 0.99 flow_grpo, 0.6 dance_grpo).
    window : int >= 1, default 2
        MixGRPO's SDE window size.
    guidance : float >= 0, default 1
        Classifier-free guidance of the rollouts and of the policy's log-likelihoods (nn models with labels;
        pipelines, where it must be >= 1).
    adv_clip : float > 0, default 5
        Advantages are clipped to ``[-adv_clip, adv_clip]``.
    reduce : {"mean", "sum"}, default "mean"
        Log-likelihood and KL over latent dims: Flow-GRPO's mean or the true sum.
    minibatches : int >= 1, default 1
        Optimiser steps per update (the transitions are split; after the first, ratios differ from 1).
    trainable : "all", "last" or callable, default "all"
        Parameters to fine-tune: all, the last parameter-holding layer (cheap on a CPU), or a predicate
        ``(name, param) -> bool`` (e.g. a small adapter).
    grad_clip : float > 0, default 1
        Gradient-norm clip.
    weight_decay : float >= 0, default 0
        AdamW weight decay.
    eval_n : int >= 0, default 0
        ODE samples per prompt scored after each update on fixed noise (``eval_reward``, with its standard
        error over the samples in ``eval_reward_se``; not counted as reward calls); 0 disables.
    train_batch_size : int >= 1, default 4096
        Rows per forward/backward chunk (gradient accumulation).
    ema : float in (0, 1), optional
        Keep an exponential moving average of the trainable parameters with this decay (Flow-GRPO's rule: decay
        :math:`\min(d, (1 + s)/(10 + s))` at optimiser step :math:`s`, updated every ``ema_every`` steps; the
        official configs use 0.9 every 8). Rollouts use the online parameters; ``eval_reward`` and
        :meth:`sample` use the average (``ema_weights()`` swaps it in). None: no EMA.
    ema_every : int >= 1, default 1
        Optimiser steps between EMA updates.
    progress : bool, default True
        Progress bar over the updates (silent off a terminal and in CI).
    rng : int, Generator or SeedSequence, default 0
        Seed of all noise and step choices (a Generator or SeedSequence contributes one draw; None a fresh seed).
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Attributes
    ----------
    policy_ : the trained policy adapter (``policy_.net`` is the fine-tuned torch module, ``policy_.model`` the
        fine-tuned flow model)
    history_ : GRPOHistory
        Per update: rewards, KL, loss, clip fraction, ``ratio_dev_first`` (max abs(ratio - 1) at the update's first
        optimiser step: 0 up to rounding, the on-policy check), reward calls, NFEs, rows, seconds, eval reward.
    ema_ : ParamEMA or None
        The EMA of the trainable parameters (``ema``); ``ema_weights()`` swaps it in.
    weights_ : numpy.ndarray (T,)
        :math:`\omega_k` used for each step (1 in the modes without weighting).
    n_updates_ : int

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.nn import VelocityMLP
    >>> from iclr26sci.generative import FlowGRPOTrainer, target_reward
    >>> fm = VelocityMLP(2, hidden=(32, 32))      # any velocity network net(x, t, cond); here untrained
    >>> tr = FlowGRPOTrainer(fm, target_reward([1.0, 1.0]), mode="tempflow", steps=4, branches=3,
    ...                      seeds_per_prompt=2, lr=1e-3, rng=0, progress=False)
    >>> tr.fit(None, n_updates=2).history_["reward_calls"].tolist()        # 2 seeds x 3 branches x 3 steps
    [18.0, 36.0]
    >>> tr.sample(None, n=5).x.shape
    torch.Size([5, 2])
    """

    def __init__(self, flow_model, reward_fn, mode="tempflow", steps=10, shift=3.0, noise_level=0.7,
                 group_by="seed", branches=6, seeds_per_prompt=4, group_size=24, clip=0.2, kl_beta=0.004,
                 lr=1e-4, weighting=None, branching=None, branch_steps=None, timestep_fraction=None, window=2, guidance=1.0,
                 adv_clip=5.0, reduce="mean", minibatches=1, trainable="all", grad_clip=1.0, weight_decay=0.0,
                 eval_n=0, train_batch_size=4096, ema=None, ema_every=1, progress=True, rng=0, random_state=None):
        self.flow_model = flow_model
        self.reward_fn = reward_fn
        self.mode = mode
        self.steps = steps
        self.shift = shift
        self.noise_level = noise_level
        self.group_by = group_by
        self.branches = branches
        self.seeds_per_prompt = seeds_per_prompt
        self.group_size = group_size
        self.clip = clip
        self.kl_beta = kl_beta
        self.lr = lr
        self.weighting = weighting
        self.branching = branching
        self.branch_steps = branch_steps
        self.timestep_fraction = timestep_fraction
        self.window = window
        self.guidance = guidance
        self.adv_clip = adv_clip
        self.reduce = reduce
        self.minibatches = minibatches
        self.trainable = trainable
        self.grad_clip = grad_clip
        self.weight_decay = weight_decay
        self.eval_n = eval_n
        self.train_batch_size = train_batch_size
        self.ema = ema
        self.ema_every = ema_every
        self.progress = progress
        self.rng = rng
        self.random_state = random_state

    @classmethod
    def from_pipeline(cls, pipeline, reward_fn, lora_rank=32, lora_alpha=None, guidance_scale=4.5, ema=0.9,
                      ema_every=8, lora_targets=None, negative_prompt="", max_sequence_length=128, **kwargs):
        r"""A trainer that fine-tunes a diffusers SD3-style text-to-image pipeline with LoRA (Flow-GRPO's recipe).

        The policy is Flow-GRPO's SDE on the classifier-free-guided prediction of the LoRA-adapted transformer;
        prompts are strings encoded once by the pipeline's text encoders; the reward sees the VAE-decoded images.
        The model is not copied: the adapter is added to ``pipeline.transformer`` when the trainer fits, its base
        weights are frozen and never written, and the KL reference is the transformer with adapters disabled.

        Parameters
        ----------
        pipeline : diffusers.StableDiffusion3Pipeline
            E.g. SD3.5-Medium, or :func:`tiny_sd3_pipeline` for tests.
        reward_fn : callable ``(images, prompts) -> (n,)``
            ``images`` (n, 3, H, W) in [0, 1], ``prompts`` a list of n strings.
        lora_rank : int >= 1, default 32
            LoRA rank (Flow-GRPO: 32, alpha 64).
        lora_alpha : float > 0, optional
            LoRA alpha (default ``2 * lora_rank``).
        guidance_scale : float >= 1, default 4.5
            Classifier-free guidance of rollouts, log-likelihoods and KL (1 disables it).
        ema : float in (0, 1) or None, default 0.9
            EMA decay of the LoRA parameters (Flow-GRPO / TempFlow configs: 0.9 every 8 steps); None: no EMA.
        ema_every : int >= 1, default 8
            Optimiser steps between EMA updates.
        lora_targets : sequence of str, optional
            LoRA module suffixes (default Flow-GRPO's attention projections).
        negative_prompt : str, default ""
        max_sequence_length : int >= 1, default 128
        **kwargs
            Any other :class:`FlowGRPOTrainer` parameter (``mode``, ``steps``, ``branches``, ``kl_beta``, ...).

        Returns
        -------
        FlowGRPOTrainer

        Examples
        --------
        >>> from iclr26sci.generative import FlowGRPOTrainer, tiny_sd3_pipeline
        >>> pipe = tiny_sd3_pipeline(rng=0)
        >>> brightness = lambda images, prompts: images.mean(dim=(1, 2, 3))
        >>> tr = FlowGRPOTrainer.from_pipeline(pipe, brightness, lora_rank=4, guidance_scale=4.5, ema=0.9,
        ...                                    max_sequence_length=8, steps=3, branches=2, seeds_per_prompt=1,
        ...                                    lr=1e-3, rng=0, progress=False)
        >>> tr.fit(["a red square"], n_updates=1).history_["reward_calls"].tolist()
        [4.0]
        """
        from ._tf_diffusers import DiffusersPipelineModel

        g = check_in_range(guidance_scale, "guidance_scale", 1.0)
        for k in ("flow_model", "guidance", "ema", "ema_every", "reward_fn"):
            if k in kwargs:
                raise InputError(k, "is set by from_pipeline", "the from_pipeline argument instead")
        model = DiffusersPipelineModel(pipeline, lora_rank=lora_rank, lora_alpha=lora_alpha, lora_targets=lora_targets,
                                       negative_prompt=negative_prompt, max_sequence_length=max_sequence_length)
        tr = cls(model, reward_fn, guidance=g, ema=ema, ema_every=ema_every, **kwargs)
        tr._validate()
        return tr

    # ---------------------------------------------------------------- validation
    def _validate(self):
        p = {}
        p["mode"] = check_option(self.mode, "mode", list(MODES))
        d = _MODE_DEFAULTS[p["mode"]]
        p["steps"] = _check_steps(self.steps)
        p["shift"] = check_in_range(self.shift, "shift", 0.0, low_open=True)
        p["noise_level"] = check_in_range(self.noise_level, "noise_level", 0.0, low_open=True)
        p["group_by"] = check_option(self.group_by, "group_by", list(_GROUPS))
        p["branches"] = check_positive_int(self.branches, "branches")
        p["seeds_per_prompt"] = check_positive_int(self.seeds_per_prompt, "seeds_per_prompt")
        p["group_size"] = check_positive_int(self.group_size, "group_size", minimum=2)
        p["clip"] = check_in_range(self.clip, "clip", 0.0, low_open=True)
        p["kl_beta"] = check_in_range(self.kl_beta, "kl_beta", 0.0)
        p["lr"] = check_in_range(self.lr, "lr", 0.0, low_open=True)
        p["weighting"] = d["weighting"] if self.weighting is None else check_option(self.weighting, "weighting",
                                                                                   list(WEIGHTINGS))
        if self.branching is None:
            p["branching"] = d["branching"]
        else:
            p["branching"] = check_bool(self.branching, "branching")
            if p["branching"] and p["mode"] != "tempflow":
                raise InputError("branching", f"is True in mode {p['mode']!r}", "branching only in mode 'tempflow'")
        if self.branch_steps is None:
            p["branch_steps"] = None
        else:
            try:
                ks = sorted({int(k) for k in self.branch_steps})
                ok = all(float(k) == int(k) and not isinstance(k, bool) for k in self.branch_steps)
            except (TypeError, ValueError):
                ks, ok = [], False
            if not ok or not ks or ks[0] < 0 or ks[-1] > p["steps"] - 2:
                raise InputError("branch_steps", f"got {self.branch_steps!r}",
                                 f"a non-empty sequence of grid steps in [0, {p['steps'] - 2}]")
            if not p["branching"]:
                raise InputError("branch_steps", "is set without branching", "branch_steps only with branching")
            p["branch_steps"] = ks
        p["timestep_fraction"] = (d["timestep_fraction"] if self.timestep_fraction is None else
                                  check_in_range(self.timestep_fraction, "timestep_fraction", 0.0, 1.0,
                                                 low_open=True))
        p["window"] = check_positive_int(self.window, "window")
        if p["mode"] == "mix_grpo" and p["window"] > p["steps"]:
            raise InputError("window", f"is {p['window']} > steps = {p['steps']}", "a window of at most `steps`")
        p["guidance"] = check_in_range(self.guidance, "guidance", 0.0)
        p["adv_clip"] = check_in_range(self.adv_clip, "adv_clip", 0.0, low_open=True)
        p["reduce"] = check_option(self.reduce, "reduce", ["mean", "sum"])
        p["minibatches"] = check_positive_int(self.minibatches, "minibatches")
        if not (self.trainable in ("all", "last") or callable(self.trainable)):
            raise InputError("trainable", f"got {self.trainable!r}", '"all", "last" or a callable (name, param)')
        p["grad_clip"] = check_in_range(self.grad_clip, "grad_clip", 0.0, low_open=True)
        p["weight_decay"] = check_in_range(self.weight_decay, "weight_decay", 0.0)
        p["eval_n"] = check_positive_int(self.eval_n, "eval_n", minimum=0)
        p["train_batch_size"] = check_positive_int(self.train_batch_size, "train_batch_size")
        p["ema"] = None if self.ema is None else check_in_range(self.ema, "ema", 0.0, 1.0, low_open=True,
                                                                  high_open=True)
        p["ema_every"] = check_positive_int(self.ema_every, "ema_every")
        p["progress"] = check_bool(self.progress, "progress")
        if not callable(self.reward_fn):
            raise InputError("reward_fn", f"got {type(self.reward_fn).__name__}", "a callable reward(x, prompts)")
        from ._checks import seed_from_rng

        p["seed"] = seed_from_rng(resolve_rng(self.rng, self.random_state, default=0), none="fresh")
        return p

    def _make_policy(self, p):
        from ._tf_policy import DiffusersFlowModel, DiffusersPolicy, NNPolicy

        if type(self.flow_model).__name__ == "DiffusersPipelineModel":
            from ._tf_diffusers import DiffusersPipelineModel, PipelinePolicy

            if isinstance(self.flow_model, DiffusersPipelineModel):
                return PipelinePolicy(self.flow_model, p["noise_level"], p["steps"], p["shift"], p["guidance"])
        if isinstance(self.flow_model, DiffusersFlowModel):
            return DiffusersPolicy(self.flow_model, p["noise_level"], p["steps"], p["shift"], p["guidance"])
        return NNPolicy(self.flow_model, p["noise_level"], p["steps"], p["shift"], p["guidance"])

    def _prompts(self, prompts, policy):
        """Validated prompts: (tensor cond for the unique prompts or None, numpy view, count)."""
        import torch

        if prompts is None:
            policy.check_cond(None, 1)
            return None, None, 1
        if torch.is_tensor(prompts):
            arr = prompts.detach().cpu().numpy()
        else:
            arr = np.asarray(prompts)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        if arr.shape[0] == 0:
            raise InputError("prompts", "is empty", "at least one prompt")
        c = policy.check_cond(arr, arr.shape[0])
        return c, arr, arr.shape[0]

    def _reward(self, x, cond):
        """Call the reward, validate its output (shape (n,), finite), return float64 numpy."""
        import torch

        pol = getattr(self, "policy_", None)
        with torch.no_grad():
            if pol is not None and hasattr(pol, "reward_inputs"):
                r = self.reward_fn(*pol.reward_inputs(x, cond))
            else:
                r = self.reward_fn(x, None if cond is None else cond.cpu().numpy())
        r = r.detach().cpu().numpy() if torch.is_tensor(r) else np.asarray(r)
        if r.dtype == object or not np.issubdtype(r.dtype, np.number):
            raise InputError("reward_fn", f"returned dtype {r.dtype}", "real numbers")
        r = r.astype(float).reshape(r.shape)
        if r.shape != (x.shape[0],):
            raise InputError("reward_fn", f"returned shape {r.shape} for {x.shape[0]} samples",
                             f"one reward per sample, shape ({x.shape[0]},)")
        if not np.all(np.isfinite(r)):
            raise InputError("reward_fn", "returned NaN or infinite rewards", "finite rewards")
        return r

    # ---------------------------------------------------------------- rollouts
    def _rep(self, cond, n):
        if cond is None:
            return None
        return cond.repeat_interleave(n, dim=0)

    def _noise(self, n, gen):
        import torch

        pol = self.policy_
        return torch.randn((n, *pol.event_shape), generator=gen, dtype=torch.float64).to(pol.device, pol.dtype)

    def _kidx(self, k, n):
        import torch

        return torch.full((n,), int(k), dtype=torch.long, device=self.policy_.device)

    def _ode_finish(self, x, k0, cond):
        """Integrate by the ODE from grid index k0 to the end; returns (x, nfe)."""
        T = self._p["steps"]
        nfe = 0
        for k in range(k0, T):
            x = self.policy_.ode(x, self._kidx(k, x.shape[0]), cond)
            nfe += x.shape[0]
        return x, nfe

    def _rollout_branch(self, cond, P, S, K, gen, ks=None):
        """TempFlow's branching rollout. Returns transitions and rewards R (P, S, T-1, K)."""
        import torch

        from iclr26sci.nn import SDEStep

        pol, T = self.policy_, self._p["steps"]
        ks = list(range(T - 1)) if ks is None else list(ks)
        N = P * S
        ctr = self._rep(cond, S)                     # (N,) trunk conditions, prompt-major
        x = self._noise(N, gen)
        R = np.zeros((P, S, len(ks), K))
        X, Y, LP, KK = [], [], [], []
        nfe = calls = 0
        for k in range(max(ks) + 1):
            kk = self._kidx(k, N)
            if k in ks:
                with torch.no_grad():
                    st = pol.step(x, kk, ctr)
                nfe += N
                mean = st.mean.repeat_interleave(K, 0)
                std = st.std.repeat_interleave(K, 0)
                eps = torch.randn(mean.shape, generator=gen, dtype=torch.float64).to(mean.device, mean.dtype)
                y = mean + std * eps
                big = SDEStep(mean=mean, std=std, sample=y, t=st.t.repeat_interleave(K), dt=st.dt.repeat_interleave(K))
                lp = big.log_prob(y, reduce=self._p["reduce"])
                cb = self._rep(ctr, K)
                xe, f = self._ode_finish(y, k + 1, cb)
                nfe += f
                r = self._reward(xe, cb)
                calls += xe.shape[0]
                i = ks.index(k)
                R[:, :, i, :] = r.reshape(P, S, K)
                X.append(x.repeat_interleave(K, 0))
                Y.append(y)
                LP.append(lp)
                KK.append(kk.repeat_interleave(K))
                xn = x + st.dt.reshape((-1,) + (1,) * (x.ndim - 1)) * st.velocity
            else:
                xn = pol.ode(x, kk, ctr)
                nfe += N
            x = xn
        # order transitions as (step, trunk, branch)
        return dict(x=torch.stack(X), y=torch.stack(Y), lp=torch.stack(LP), k=torch.stack(KK),
                    cond=None if ctr is None else self._rep(ctr, K), R=R, nfe=nfe, calls=calls, ks=ks)

    def _sde_steps(self, update, n_updates):
        """Grid indices run by the SDE (and trained) in the trajectory modes."""
        T, mode = self._p["steps"], self._p["mode"]
        if mode != "mix_grpo":
            return list(range(T))
        w = self._p["window"]
        n_pos = T - w + 1
        per = max(1, math.ceil(n_updates / n_pos))
        start = min(update // per, n_pos - 1)
        return list(range(start, start + w))

    def _rollout_traj(self, cond, P, G, gen, update, n_updates):
        import torch

        pol, T, mode = self.policy_, self._p["steps"], self._p["mode"]
        N = P * G
        c = self._rep(cond, G)
        if mode == "dance_grpo":
            x = self._noise(P, gen).repeat_interleave(G, 0)
        else:
            x = self._noise(N, gen)
        sde_ks = self._sde_steps(update, n_updates)
        X, Y, LP = [], [], []
        nfe = 0
        for k in range(T):
            kk = self._kidx(k, N)
            if k in sde_ks:
                with torch.no_grad():
                    st = pol.step(x, kk, c, gen=gen)
                y = st.sample
                X.append(x)
                Y.append(y)
                LP.append(st.log_prob(y, reduce=self._p["reduce"]))
            else:
                y = pol.ode(x, kk, c)
            nfe += N
            x = y
        r = self._reward(x, c)
        R = r.reshape(P, G)
        A = group_normalise(R, axis=1, clip=self._p["adv_clip"]).reshape(N)
        # trained steps per trajectory
        nS = len(sde_ks)
        n_train = nS if mode == "mix_grpo" else max(1, int(self._p["timestep_fraction"] * T))
        n_train = min(n_train, nS)
        rs = np.random.default_rng(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        mask = np.zeros((nS, N), dtype=bool)
        for i in range(N):
            mask[rs.permutation(nS)[:n_train], i] = True
        return dict(x=torch.stack(X), y=torch.stack(Y), lp=torch.stack(LP),
                    k=torch.as_tensor(np.repeat(np.asarray(sde_ks)[:, None], N, 1), device=pol.device),
                    cond=c, A=np.broadcast_to(A, (nS, N)), mask=mask, R=R, nfe=nfe, calls=N)

    # ---------------------------------------------------------------- public API
    def process_rewards(self, prompts=None, branches=None, seeds_per_prompt=1, steps_to_branch=None, rng=0):
        r"""TempFlow's branch rewards of the current (or initial) policy, without training.

        For each prompt and seed, the ODE trunk is branched at each step :math:`k` into ``branches`` SDE draws
        that are finished by the ODE and scored: :math:`R_k^{(j)}`, whose only randomness is the step-k noise.

        Parameters
        ----------
        prompts : labels, optional
            Prompts (None for an unconditional model).
        branches : int >= 1, optional
            Branches per step (default the trainer's ``branches``).
        seeds_per_prompt : int >= 1, default 1
            Trunks per prompt.
        steps_to_branch : list of int, optional
            Grid indices to branch at (default all :math:`0..T-2`).
        rng : int, default 0
            Seed.

        Returns
        -------
        numpy.ndarray (prompts, seeds, len(steps_to_branch), branches)
        """
        import torch

        p = self._p if hasattr(self, "_p") else self._validate()
        self._p = p
        if not hasattr(self, "policy_"):
            self.policy_ = self._make_policy(p)
            if hasattr(self.policy_, "prepare"):
                self.policy_.prepare(p["seed"])
        K = p["branches"] if branches is None else check_positive_int(branches, "branches")
        S = check_positive_int(seeds_per_prompt, "seeds_per_prompt")
        if steps_to_branch is not None:
            ks = [int(k) for k in steps_to_branch]
            if not ks or min(ks) < 0 or max(ks) > p["steps"] - 1:
                raise InputError("steps_to_branch", f"got {steps_to_branch!r}", f"indices in [0, {p['steps'] - 1}]")
        else:
            ks = None
        cond, _, P = self._prompts(prompts, self.policy_)
        gen = torch_generator(rng)
        return self._rollout_branch(cond, P, S, K, gen, ks=ks)["R"]

    def fit(self, prompts=None, n_updates=200, callback=None):
        """Run ``n_updates`` GRPO updates on ``prompts``.

        Parameters
        ----------
        prompts : array of labels / condition vectors, or None
            The prompts of every update (class labels for the nn flow models; prompt indices for a
            :class:`DiffusersFlowModel`; None for an unconditional model).
        n_updates : int >= 1, default 200
            Sampling rounds (each followed by ``minibatches`` optimiser steps).
        callback : callable ``(trainer, record) -> None``, optional
            Called after each update.

        Returns
        -------
        self
        """
        import torch

        p = self._validate()
        n_updates = check_positive_int(n_updates, "n_updates")
        if callback is not None and not callable(callback):
            raise InputError("callback", f"got {type(callback).__name__}", "None or a callable")
        policy = self._make_policy(p)
        cond, _, P = self._prompts(prompts, policy)
        # probe the reward on two noise draws before any sampling (shape / NaN errors surface here)
        self._p, self.policy_ = p, policy
        probe = self._noise(2, torch_generator(12345))
        self._reward(probe, None if cond is None else cond[:1].repeat(2))
        if hasattr(policy, "prepare"):      # a pipeline: LoRA adapter on the user's transformer, only it trains
            params = policy.prepare(p["seed"])
        else:
            params = _trainable(policy.net, self.trainable)
        from ._tf_policy import ParamEMA

        self.ema_ = None if p["ema"] is None else ParamEMA(params, p["ema"], p["ema_every"])
        opt = torch.optim.AdamW(params, lr=p["lr"], betas=(0.9, 0.999), weight_decay=p["weight_decay"])
        T = p["steps"]
        c_all = 1.0 / step_noise_scales(policy.times, p["noise_level"])[1][:T - 1].mean()
        std = step_noise_scales(policy.times, p["noise_level"])[1]
        sig = step_noise_scales(policy.times, p["noise_level"])[0]
        if p["weighting"] == "none":
            w = np.ones(T)
        elif p["weighting"] == "official":
            w = OFFICIAL_OMEGA_CONSTANT * std
        elif p["weighting"] == "computed":
            w = c_all * std
        else:
            w = sig / sig[:T - 1].mean()
        self.weights_ = w
        gen = torch_generator(p["seed"])
        eval_gen = torch_generator(p["seed"] + 7919)
        eval_x = self._noise(P * p["eval_n"], eval_gen) if p["eval_n"] else None
        self.history_ = GRPOHistory()
        t0 = time.perf_counter()
        calls = nfe = train_rows = 0
        for u in progress(range(n_updates), desc=f"{p['mode']}", total=n_updates, enabled=None if p["progress"]
                          else False):
            if p["branching"]:
                S, K = p["seeds_per_prompt"], p["branches"]
                ro = self._rollout_branch(cond, P, S, K, gen, ks=p["branch_steps"])
                A = group_advantages(ro["R"], p["group_by"], clip=p["adv_clip"])     # (P, S, T-1, K)
                # mask branches (trunk, j) whose advantages are zero at every step
                keep = ~np.all(np.abs(A) < 1e-12, axis=2)                          # (P, S, K)
                A_t = np.transpose(A, (2, 0, 1, 3)).reshape(len(ro["ks"]), P * S * K)
                mask = np.broadcast_to(keep.reshape(1, P * S * K), A_t.shape)
                rew = ro["R"]
            else:
                ro = self._rollout_traj(cond, P, p["group_size"], gen, u, n_updates)
                A_t, mask, rew = ro["A"], ro["mask"], ro["R"]
            calls += ro["calls"]
            nfe += ro["nfe"]
            stats = self._update(ro, A_t, mask, opt, params)
            train_rows += stats["rows"]
            rec = {"update": u + 1, "reward": float(np.mean(rew)), "reward_std": float(np.std(rew)),
                   "kl": stats["kl"], "loss": stats["loss"], "clip_frac": stats["clip_frac"],
                   "ratio_dev_first": stats["ratio_dev_first"],
                   "reward_calls": calls, "nfe": nfe, "train_rows": train_rows,
                   "seconds": time.perf_counter() - t0}
            if eval_x is not None:
                xe = eval_x
                ce = self._rep(cond, p["eval_n"])
                with self.ema_weights():
                    xe, _ = self._ode_finish(xe, 0, ce)
                    re_ = np.asarray(self._reward(xe, ce), dtype=float)
                    rec["eval_reward"] = float(re_.mean())
                    rec["eval_reward_se"] = float(re_.std(ddof=1) / np.sqrt(re_.size)) if re_.size > 1 else float("nan")
            self.history_.records.append(rec)
            if callback is not None:
                callback(self, rec)
        self.n_updates_ = n_updates
        return self

    def _update(self, ro, A_t, mask, opt, params):
        import torch

        p, pol = self._p, self.policy_
        nS, N = A_t.shape
        flat = lambda a: a.reshape((nS * N,) + tuple(a.shape[2:]))
        X, Y, LP, KK = flat(ro["x"]), flat(ro["y"]), flat(ro["lp"]), flat(ro["k"])
        C = None if ro["cond"] is None else ro["cond"].repeat(nS) if ro["cond"].ndim == 1 else \
            ro["cond"].repeat(nS, 1)
        A = torch.as_tensor(np.ascontiguousarray(A_t).reshape(-1), dtype=LP.dtype, device=LP.device)
        M = np.ascontiguousarray(mask).reshape(-1)
        W = torch.as_tensor(self.weights_, dtype=LP.dtype, device=LP.device)[KK]
        idx = np.nonzero(M)[0]
        if idx.size == 0:
            return {"kl": float("nan"), "loss": 0.0, "clip_frac": 0.0, "rows": 0, "ratio_dev_first": float("nan")}
        perm = np.random.default_rng(int(p["seed"]) + len(self.history_)).permutation(idx)
        parts = np.array_split(perm, p["minibatches"])
        kls, losses, clipped, first = [], [], [], []
        for i_part, part in enumerate(parts):
            if part.size == 0:
                continue
            opt.zero_grad(set_to_none=True)
            for s in range(0, part.size, p["train_batch_size"]):
                ch = torch.as_tensor(part[s:s + p["train_batch_size"]], device=LP.device)
                cc = None if C is None else C[ch]
                st = pol.step(X[ch], KK[ch], cc, x_next=Y[ch])
                ref = pol.step(X[ch], KK[ch], cc, ref=True, x_next=Y[ch])
                loss, s_ = grpo_loss(st, ref, Y[ch], LP[ch], A[ch], W[ch], clip=p["clip"], kl_beta=p["kl_beta"],
                                     reduce=p["reduce"])
                (loss.sum() / part.size).backward()
                kls.append(s_["kl"])
                if i_part == 0:     # before any optimiser step of this update: on-policy, ratio = 1
                    first.append((s_["ratio"] - 1).abs().max())
                losses.append(loss.detach())
                clipped.append(s_["clipped"])
            torch.nn.utils.clip_grad_norm_(params, p["grad_clip"])
            opt.step()
            if getattr(self, "ema_", None) is not None:
                self.ema_.step()
        return {"kl": float(torch.cat(kls).mean()), "loss": float(torch.cat(losses).mean()),
                "clip_frac": float(torch.cat(clipped).float().mean()), "rows": int(idx.size),
                "ratio_dev_first": float(torch.stack(first).max()) if first else float("nan")}

    def ema_weights(self):
        """Context manager in which the trainable parameters hold their EMA (a no-op without ``ema``).

        Examples
        --------
        >>> from iclr26sci.nn import VelocityMLP
        >>> from iclr26sci.generative import FlowGRPOTrainer, target_reward
        >>> tr = FlowGRPOTrainer(VelocityMLP(2, hidden=(8,)), target_reward([1.0, 1.0]), steps=3, branches=2,
        ...                      seeds_per_prompt=1, lr=1e-2, ema=0.9, rng=0, progress=False).fit(None, n_updates=2)
        >>> with tr.ema_weights():
        ...     x = tr.sample(None, n=2, ema=False).x          # the EMA parameters, swapped in by hand
        >>> bool((x == tr.sample(None, n=2).x).all())           # sample() uses the EMA by default
        True
        """
        import contextlib

        ema = getattr(self, "ema_", None)
        return contextlib.nullcontext() if ema is None else ema.swapped()

    def sample(self, prompts=None, n=16, steps=None, sde=False, rng=0, ema=True):
        """Samples of the fine-tuned policy: ``n`` per prompt (prompt-major order).

        Parameters
        ----------
        prompts : labels or None
            Prompts (as in :meth:`fit`).
        n : int >= 1, default 16
            Samples per prompt.
        steps : int >= 2, optional
            Sampling steps on the shifted grid (default the training ``steps``; the papers evaluate with 40).
            Diffusers models use their training grid.
        sde : bool, default False
            Sample with the SDE policy instead of the deterministic ODE.
        rng : int, default 0
            Seed of the initial noise.
        ema : bool, default True
            Sample with the EMA of the trainable parameters when the trainer keeps one (``ema``).

        Returns
        -------
        iclr26sci.nn.SampleResult
            ``x`` of shape (len(prompts) * n, *event_shape).
        """
        import torch

        from iclr26sci.nn import SampleResult

        check_is_fitted(self, "policy_", method="sample")
        n = check_positive_int(n, "n")
        sde = check_bool(sde, "sde")
        ema = check_bool(ema, "ema")
        pol = self.policy_
        cond, _, P = self._prompts(prompts, pol)
        T = self._p["steps"] if steps is None else _check_steps(steps)
        if pol.kind == "diffusers" and T != self._p["steps"]:
            raise InputError("steps", f"is {T} for a diffusers model", f"the training steps ({self._p['steps']})")
        times = torch.as_tensor(pol.grid(T), dtype=pol.dtype, device=pol.device) if pol.kind == "nn" else None
        t0 = time.perf_counter()
        gen = torch_generator(rng)
        x = self._noise(P * n, gen)
        c = self._rep(cond, n)
        traj = [x]
        import contextlib

        with torch.no_grad(), (self.ema_weights() if ema else contextlib.nullcontext()):
            for k in range(T):
                kk = self._kidx(k, x.shape[0])
                if sde:
                    x = pol.step(x, kk, c, gen=gen, times=times).sample
                else:
                    x = pol.ode(x, kk, c, times=times)
                traj.append(x)
        grid = pol.grid(T) if pol.kind == "nn" else pol.times
        return SampleResult(x=x, nfe=T, steps=T, solver="sde" if sde else "euler", guidance=self._p["guidance"],
                            times=grid, trajectory=torch.stack(traj), seconds=time.perf_counter() - t0)

    def __repr__(self):
        return (f"FlowGRPOTrainer(mode={self.mode!r}, steps={self.steps}, noise_level={self.noise_level}, "
                f"kl_beta={self.kl_beta}, lr={self.lr})")

    def summary(self) -> str:
        """One paragraph: the configuration and, once fitted, the training logs."""
        s = repr(self)
        if hasattr(self, "history_"):
            s += "; " + self.history_.summary()
        return s

    def to_dict(self) -> dict:
        """The parameters (the model and reward as type names) and, once fitted, the history."""
        d = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else type(v).__name__)
             for k, v in self.get_params(deep=False).items()}
        if hasattr(self, "history_"):
            d["history"] = self.history_.to_dict()
            d["weights"] = list(map(float, self.weights_))
        return d


def _trainable(net, trainable):
    from ._tf_policy import _trainable_params

    if net is None:
        raise InputError("flow_model", "has no trainable network (an oracle?)", "a model with parameters")
    return _trainable_params(net, trainable)


_ = (sd3_sigmas, as_generator)
