r"""Policy adapters of the GRPO trainer: the per-step Gaussian policy of Flow-GRPO's SDE on an
:mod:`iclr26sci.nn` flow model (through :func:`iclr26sci.nn.flow_sde`) or on a diffusers model and its
``FlowMatchEulerDiscreteScheduler`` (through :class:`iclr26sci.nn.DiffusersFlowSDE`).

Both expose the same small interface, in the nn time convention (t = 0 noise, t = 1 data):

- ``times``: the increasing grid of ``steps + 1`` times (SD3's shifted grid);
- ``step(x, k, cond, ref=False, x_next=None, gen=None)``: the :class:`~iclr26sci.nn.SDEStep` at grid index
  ``k`` (a (B,) LongTensor) of the trainable policy (``ref=False``, differentiable) or of the frozen reference;
- ``ode(x, k, cond)``: one deterministic Euler step of the trainable policy (no gradient);
- ``net``: the trainable torch module (a deep copy; the user's model is never changed and is the reference).
"""
from __future__ import annotations

import contextlib
import copy
import inspect

import numpy as np
import torch

from iclr26sci.core import InputError, check_is_fitted

from ._tf_schedule import sd3_times


def _trainable_params(net, trainable):
    """Select the parameters to fine-tune: "all", "last" (the last parameter-holding leaf module) or a
    callable ``(name, parameter) -> bool``."""
    named = list(net.named_parameters())
    if not named:
        raise InputError("flow_model", "has no parameters", "a torch model with parameters to fine-tune")
    if trainable == "all":
        chosen = [p for _, p in named]
    elif trainable == "last":
        leaves = [m for m in net.modules() if not list(m.children()) and list(m.parameters(recurse=False))]
        chosen = list(leaves[-1].parameters(recurse=False))
    elif callable(trainable):
        chosen = [p for n, p in named if trainable(n, p)]
    else:
        raise InputError("trainable", f"got {trainable!r}", '"all", "last" or a callable (name, param) -> bool')
    if not chosen:
        raise InputError("trainable", "selects no parameter", "a selection of at least one parameter")
    ids = {id(p) for p in chosen}
    for _, p in named:
        p.requires_grad_(id(p) in ids)
    return chosen


class NNPolicy:
    """Flow-GRPO's SDE policy on an nn flow model (FlowMatching, GaussianFlowOracle or velocity network)."""

    kind = "nn"

    def __init__(self, flow_model, noise_level, steps, shift, guidance, copy_model=True):
        from iclr26sci.nn import FlowMatching, GaussianFlowOracle, flow_sde

        if isinstance(flow_model, FlowMatching):
            check_is_fitted(flow_model, "event_shape_", method="FlowGRPOTrainer")
        elif not (isinstance(flow_model, (GaussianFlowOracle, torch.nn.Module))):
            raise InputError("flow_model", f"got {type(flow_model).__name__}",
                             "an iclr26sci.nn FlowMatching, a velocity network net(x, t, cond) with event_shape, "
                             "or a DiffusersFlowModel")
        self.ref_model = flow_model
        self.model = copy.deepcopy(flow_model) if copy_model else flow_model
        self.noise_level = noise_level
        self.sde = flow_sde(self.model, noise_level=noise_level)
        self.ref_sde = flow_sde(self.ref_model, noise_level=noise_level)
        self.event_shape = tuple(self.sde.event_shape)
        self.n_classes, self.cond_dim = self.sde.n_classes, self.sde.cond_dim
        self.device, self.dtype = self.sde.device, self.sde.dtype
        self.shift = shift
        self.guidance = guidance
        self.times = sd3_times(steps, shift)
        self._t = torch.as_tensor(self.times, dtype=self.dtype, device=self.device)

    @property
    def net(self):
        from iclr26sci.nn import FlowMatching

        if isinstance(self.model, FlowMatching):
            return self.model.velocity_net
        return self.model if isinstance(self.model, torch.nn.Module) else None

    def grid(self, steps):
        return sd3_times(steps, self.shift)

    def _th(self, k, times):
        t = times[k]
        return t, times[k + 1] - t

    def step(self, x, k, cond, ref=False, x_next=None, gen=None, times=None):
        tt = self._t if times is None else times
        t, h = self._th(k, tt)
        sde = self.ref_sde if ref else self.sde
        return sde.step(x, t, h, cond=cond, guidance=self.guidance, x_next=x_next, rng=gen)

    def velocity(self, x, k, cond, times=None):
        tt = self._t if times is None else times
        t, _ = self._th(k, tt)
        return self.sde._v(x, t, cond, self.guidance)

    def ode(self, x, k, cond, times=None):
        tt = self._t if times is None else times
        t, h = self._th(k, tt)
        with torch.no_grad():
            v = self.sde._v(x, t, cond, self.guidance)
        return x + h.reshape((-1,) + (1,) * (x.ndim - 1)) * v

    def check_cond(self, prompts, n, name="prompts"):
        from iclr26sci.nn._flow import _check_cond

        if prompts is None:
            if self.n_classes is not None or self.cond_dim is not None:
                raise InputError(name, "is None but the model is conditional",
                                 "class labels" if self.n_classes is not None else f"vectors of {self.cond_dim}")
            return None
        return _check_cond(prompts, n, self.n_classes, self.cond_dim, self.device, name=name)


class DiffusersFlowModel:
    r"""A diffusers flow-matching denoiser (SD3/FLUX-style transformer or a UNet) with its
    ``FlowMatchEulerDiscreteScheduler`` and prompt embeddings, as a flow model the GRPO trainer can fine-tune.

    The denoiser predicts :math:`u = dx/d\sigma` at the scheduler's timestep :math:`1000\sigma`; the trainer's
    per-step policy is :class:`iclr26sci.nn.DiffusersFlowSDE` (Flow-GRPO's SDE on the scheduler's sigmas).
    A "prompt" is an integer index into the embedding tables (``prompt_embeds[i]``, ``pooled_prompt_embeds[i]``).

    Parameters
    ----------
    model : torch.nn.Module
        The diffusers denoiser, e.g. ``SD3Transformer2DModel`` or ``UNet2DModel``.
    scheduler : diffusers.FlowMatchEulerDiscreteScheduler
        Its scheduler (read and copied, never changed); its ``shift`` is replaced by the trainer's.
    sample_shape : tuple of int
        Shape of one latent, e.g. ``(16, 64, 64)``.
    prompt_embeds : tensor (n_prompts, seq, dim), optional
        Text embeddings passed as ``encoder_hidden_states``.
    pooled_prompt_embeds : tensor (n_prompts, dim), optional
        Pooled embeddings passed as ``pooled_projections`` (SD3).

    Examples
    --------
    >>> import torch
    >>> from diffusers import FlowMatchEulerDiscreteScheduler, UNet2DModel
    >>> from iclr26sci.generative import DiffusersFlowModel
    >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
    <torch._C.Generator object at ...>
    >>> unet = UNet2DModel(sample_size=8, in_channels=1, out_channels=1, block_out_channels=(8, 8),
    ...                    layers_per_block=1, down_block_types=("DownBlock2D",) * 2,
    ...                    up_block_types=("UpBlock2D",) * 2, norm_num_groups=4)
    >>> DiffusersFlowModel(unet, FlowMatchEulerDiscreteScheduler(), sample_shape=(1, 8, 8))
    DiffusersFlowModel(UNet2DModel, sample_shape=(1, 8, 8), n_prompts=None)
    """

    def __init__(self, model, scheduler, sample_shape, prompt_embeds=None, pooled_prompt_embeds=None):
        from iclr26sci.nn._diffusers import _require_diffusers

        cls = _require_diffusers()
        if not isinstance(model, torch.nn.Module):
            raise InputError("model", f"got {type(model).__name__}", "a diffusers torch model")
        if not isinstance(scheduler, cls):
            raise InputError("scheduler", f"got {type(scheduler).__name__}",
                             "a diffusers FlowMatchEulerDiscreteScheduler")
        try:
            shape = tuple(int(s) for s in sample_shape)
        except TypeError:
            raise InputError("sample_shape", f"got {sample_shape!r}", "a tuple of positive ints") from None
        if not shape or min(shape) < 1:
            raise InputError("sample_shape", f"got {sample_shape!r}", "a tuple of positive ints")
        n = None
        for name, e in (("prompt_embeds", prompt_embeds), ("pooled_prompt_embeds", pooled_prompt_embeds)):
            if e is None:
                continue
            if not torch.is_tensor(e) or not torch.is_floating_point(e) or e.ndim < 2:
                raise InputError(name, "is not a float tensor with one row per prompt", "a (n_prompts, ...) tensor")
            if n is not None and e.shape[0] != n:
                raise InputError(name, f"has {e.shape[0]} rows", f"{n} rows (one per prompt)")
            n = e.shape[0]
        self.model, self.scheduler, self.sample_shape = model, scheduler, shape
        self.prompt_embeds, self.pooled_prompt_embeds = prompt_embeds, pooled_prompt_embeds
        self.n_prompts = n
        self._params = set(inspect.signature(model.forward).parameters)

    def __repr__(self):
        return (f"DiffusersFlowModel({type(self.model).__name__}, sample_shape={self.sample_shape}, "
                f"n_prompts={self.n_prompts})")

    def predict(self, model, x, timestep, cond):
        """The denoiser's output :math:`u = dx/d\\sigma` for latents ``x`` at scheduler ``timestep`` (B,)."""
        kw = {}
        if cond is not None:
            if self.prompt_embeds is not None and "encoder_hidden_states" in self._params:
                kw["encoder_hidden_states"] = self.prompt_embeds[cond].to(x.dtype)
            if self.pooled_prompt_embeds is not None and "pooled_projections" in self._params:
                kw["pooled_projections"] = self.pooled_prompt_embeds[cond].to(x.dtype)
        if "hidden_states" in self._params:
            out = model(hidden_states=x, timestep=timestep, **kw)
        else:
            out = model(x, timestep, **kw)
        return out.sample if hasattr(out, "sample") else out[0]


class DiffusersPolicy:
    """Flow-GRPO's SDE policy on a :class:`DiffusersFlowModel`, through :class:`iclr26sci.nn.DiffusersFlowSDE`."""

    kind = "diffusers"

    def __init__(self, flow_model, noise_level, steps, shift, guidance):
        from diffusers import FlowMatchEulerDiscreteScheduler

        from iclr26sci.nn import DiffusersFlowSDE

        if guidance != 1.0:
            raise InputError("guidance", f"is {guidance} for a diffusers model",
                             "guidance=1 (classifier-free guidance is not wired for diffusers models)")
        self.fmodel = flow_model
        self.ref_net = flow_model.model
        self.model = copy.deepcopy(flow_model.model)
        sch = FlowMatchEulerDiscreteScheduler.from_config(flow_model.scheduler.config, shift=shift)
        sch.set_timesteps(steps)
        self.scheduler = sch
        self.bridge = DiffusersFlowSDE(sch, noise_level=noise_level)
        self.noise_level, self.shift, self.guidance = noise_level, shift, guidance
        self.event_shape = flow_model.sample_shape
        self.n_classes, self.cond_dim = flow_model.n_prompts, None
        p = next(self.model.parameters())
        self.device, self.dtype = p.device, p.dtype
        self._set_grid(sch)

    def _set_grid(self, sch):
        """The time grid t = 1 - sigma of the scheduler ``sch`` (ends pinned to 0 and 1), its sigmas and its
        timesteps on the model's device (shared by the pipeline policy)."""
        t = 1.0 - sch.sigmas.detach().double().cpu().numpy()
        t[0], t[-1] = 0.0, 1.0
        self.times = t
        self._sig = sch.sigmas.to(self.device, self.dtype)
        self._ts = sch.timesteps.to(self.device)

    @property
    def net(self):
        return self.model

    def grid(self, steps):
        from diffusers import FlowMatchEulerDiscreteScheduler

        sch = FlowMatchEulerDiscreteScheduler.from_config(self.scheduler.config)
        sch.set_timesteps(steps)
        t = 1.0 - sch.sigmas.detach().double().cpu().numpy()
        t[0], t[-1] = 0.0, 1.0
        return t

    def _u(self, net, x, k, cond):
        return self.fmodel.predict(net, x, self._ts[k], cond)

    def step(self, x, k, cond, ref=False, x_next=None, gen=None, times=None):
        if times is not None:
            raise InputError("times", "cannot be changed for a diffusers model", "the scheduler's grid")
        if ref:
            with torch.no_grad():
                u = self._u(self.ref_net, x, k, cond)
        else:
            u = self._u(self.model, x, k, cond)
        return self.bridge.step(u, self._ts[k], x, prev_sample=x_next, generator=gen)

    def velocity(self, x, k, cond, times=None):
        return -self._u(self.model, x, k, cond)

    def ode(self, x, k, cond, times=None):
        with torch.no_grad():
            u = self._u(self.model, x, k, cond)
        d = (self._sig[k + 1] - self._sig[k]).reshape((-1,) + (1,) * (x.ndim - 1))
        return x + d * u

    def check_cond(self, prompts, n, name="prompts"):
        if prompts is None:
            if self.n_classes is not None:
                raise InputError(name, "is None but the model has prompt embeddings", "prompt indices")
            return None
        if self.n_classes is None:
            raise InputError(name, "were given but the model has no prompt embeddings", "prompts=None")
        c = np.asarray(prompts.detach().cpu() if torch.is_tensor(prompts) else prompts)
        if c.ndim == 0:
            c = np.full(n, c.item())
        if not np.issubdtype(c.dtype, np.integer) or c.shape != (n,):
            raise InputError(name, f"has dtype {c.dtype} and shape {c.shape}", f"{n} integer prompt indices")
        if c.size and (c.min() < 0 or c.max() >= self.n_classes):
            raise InputError(name, f"has indices in [{c.min()}, {c.max()}]",
                             f"indices in [0, {self.n_classes - 1}] (rows of prompt_embeds)")
        return torch.as_tensor(c, dtype=torch.long, device=self.device)


class ParamEMA:
    r"""Exponential moving average of a list of parameters, Flow-GRPO's rule: at optimisation step :math:`s`
    (counted from 0) the decay is :math:`d_s = \min(d, (1 + s)/(10 + s))` and the shadow is updated
    :math:`\bar\theta \leftarrow d_s \bar\theta + (1 - d_s)\theta` when :math:`(s + 1)` is a multiple of ``every``."""

    def __init__(self, params, decay, every=1):
        self.params = list(params)
        self.decay, self.every = float(decay), int(every)
        self.shadow = [p.detach().clone() for p in self.params]
        self.n_steps = 0

    def step(self):
        s = self.n_steps
        self.n_steps += 1
        if (s + 1) % self.every:
            return
        d = min(self.decay, (1 + s) / (10 + s))
        with torch.no_grad():
            for sh, p in zip(self.shadow, self.params):
                sh.mul_(d).add_(p.detach(), alpha=1 - d)

    @contextlib.contextmanager
    def swapped(self):
        """Context in which the parameters hold the EMA values (restored on exit)."""
        keep = [p.detach().clone() for p in self.params]
        with torch.no_grad():
            for p, sh in zip(self.params, self.shadow):
                p.copy_(sh)
        try:
            yield
        finally:
            with torch.no_grad():
                for p, k in zip(self.params, keep):
                    p.copy_(k)
