r"""The GRPO trainer on a diffusers text-to-image pipeline (SD3-style): LoRA through peft on the transformer,
classifier-free guidance inside the policy, the pipeline's text encoders for the prompts (cached) and its VAE for
the reward.

- **Policy.** Flow-GRPO's SDE step (:class:`iclr26sci.nn.DiffusersFlowSDE`) on the CFG-combined prediction
  :math:`u = u_\varnothing + g\,(u_c - u_\varnothing)` of the LoRA-adapted transformer. The same combined
  prediction enters the sampling pass (whose log-probabilities are stored as :math:`\log\pi_{\rm old}`), the
  training pass (:math:`\log\pi_\theta`) and the reference pass.
- **No copy of the model.** The trained policy is the user's transformer with a LoRA adapter; the reference
  :math:`\pi_{\rm ref}` is the same transformer with its adapters disabled; :math:`\pi_{\rm old}` is the stored
  log-probability of the sampling pass (Flow-GRPO's scheme). Only the adapter's parameters are trainable; the
  base weights are never written.
- **Prompts** are strings; each new prompt is encoded once by the pipeline's ``encode_prompt`` (all its text
  encoders) and cached, together with the negative prompt of CFG.
- **Reward** ``reward_fn(images, prompts)``: ``images`` is the VAE decode of the final latents in [0, 1],
  (n, 3, H, W); ``prompts`` the list of prompt strings.
"""
from __future__ import annotations

import contextlib
from numbers import Integral, Real

import numpy as np
import torch

from iclr26sci.core import InputError

from ._tf_policy import DiffusersPolicy

#: Flow-GRPO's LoRA targets on the SD3 transformer (attention projections of the image and text streams)
FLOW_GRPO_LORA_TARGETS = ("attn.add_k_proj", "attn.add_q_proj", "attn.add_v_proj", "attn.to_add_out", "attn.to_k",
                          "attn.to_out.0", "attn.to_q", "attn.to_v")


def _sd3_pipeline_class():
    try:
        from diffusers import StableDiffusion3Pipeline
    except ImportError as exc:  # pragma: no cover - only without the extra
        raise ImportError('the pipeline path needs diffusers, transformers and peft: pip install '
                          '"iclr26sci[vision,llm]"') from exc
    return StableDiffusion3Pipeline


class DiffusersPipelineModel:
    r"""A diffusers SD3-style text-to-image pipeline as a flow model the GRPO trainer fine-tunes with LoRA.

    Nothing is changed at construction. When a trainer fits, a peft LoRA adapter named ``adapter_name`` is added to
    ``pipeline.transformer`` (or re-initialised, seeded, if present), the base weights are frozen
    (``requires_grad=False``) and only the adapter trains; :math:`\pi_{\rm ref}` is the transformer with its adapters
    disabled. Prompts are strings; embeddings are cached.

    Parameters
    ----------
    pipeline : diffusers.StableDiffusion3Pipeline
        Its ``transformer`` (an ``SD3Transformer2DModel``), ``scheduler`` (a ``FlowMatchEulerDiscreteScheduler``),
        ``vae`` and text encoders are used; T5 may be ``None`` (the pipeline then uses zero embeddings).
    lora_rank : int >= 1, default 32
        LoRA rank :math:`r` (Flow-GRPO: 32).
    lora_alpha : float > 0, optional
        LoRA :math:`\alpha` (default :math:`2r`, Flow-GRPO's 64 for r = 32).
    lora_targets : sequence of str, optional
        Module-name suffixes that get LoRA (default :data:`FLOW_GRPO_LORA_TARGETS`, Flow-GRPO's list).
    negative_prompt : str, default ""
        The unconditional prompt of classifier-free guidance.
    max_sequence_length : int >= 1, default 128
        T5 sequence length passed to ``encode_prompt`` (Flow-GRPO: 128; zeros when T5 is absent).
    adapter_name : str, default "tempflow"

    Examples
    --------
    >>> from iclr26sci.generative import DiffusersPipelineModel, tiny_sd3_pipeline
    >>> pipe = tiny_sd3_pipeline(rng=0)                      # random weights, built from configs
    >>> m = DiffusersPipelineModel(pipe, lora_rank=4, max_sequence_length=8)
    >>> m
    DiffusersPipelineModel(StableDiffusion3Pipeline, sample_shape=(4, 8, 8), lora_rank=4)
    >>> import torch
    >>> m.prompt_index(["a red square", "a blue circle", "a red square"]).tolist()   # encoded once, cached
    [0, 1, 0]
    >>> m.decode(torch.zeros(1, 4, 8, 8)).shape                 # the VAE's images, in [0, 1]
    torch.Size([1, 3, 16, 16])
    """

    def __init__(self, pipeline, lora_rank=32, lora_alpha=None, lora_targets=None, negative_prompt="",
                 max_sequence_length=128, adapter_name="tempflow"):
        cls = _sd3_pipeline_class()
        from diffusers import FlowMatchEulerDiscreteScheduler

        if not isinstance(pipeline, cls):
            raise InputError("pipeline", f"got {type(pipeline).__name__}",
                             "a diffusers StableDiffusion3Pipeline (SD3 transformer, flow-matching scheduler, VAE)")
        tr = getattr(pipeline, "transformer", None)
        if tr is None or not hasattr(tr, "add_adapter") or getattr(pipeline, "vae", None) is None:
            raise InputError("pipeline", "has no LoRA-capable transformer or no VAE",
                             "a pipeline with .transformer (diffusers PeftAdapterMixin) and .vae")
        if not isinstance(pipeline.scheduler, FlowMatchEulerDiscreteScheduler):
            raise InputError("pipeline", f"has scheduler {type(pipeline.scheduler).__name__}",
                             "a FlowMatchEulerDiscreteScheduler")
        if isinstance(lora_rank, bool) or not isinstance(lora_rank, (Integral, np.integer)) or int(lora_rank) < 1:
            raise InputError("lora_rank", f"got {lora_rank!r}", "an integer >= 1")
        if lora_alpha is None:
            alpha = 2.0 * int(lora_rank)
        elif isinstance(lora_alpha, bool) or not isinstance(lora_alpha, Real) or not np.isfinite(lora_alpha) \
                or lora_alpha <= 0:
            raise InputError("lora_alpha", f"got {lora_alpha!r}", "a finite number > 0 (default 2 * lora_rank)")
        else:
            alpha = float(lora_alpha)
        targets = FLOW_GRPO_LORA_TARGETS if lora_targets is None else lora_targets
        if isinstance(targets, str) or not all(isinstance(t, str) and t for t in targets) or not len(targets):
            raise InputError("lora_targets", f"got {lora_targets!r}", "a non-empty list of module-name suffixes")
        names = [n for n, m in tr.named_modules()                   # Linear layers, or LoRA-wrapped ones
                 if isinstance(m, torch.nn.Linear) or isinstance(getattr(m, "base_layer", None), torch.nn.Linear)]
        hit = sorted({t for t in targets for n in names if n == t or n.endswith("." + t)})
        if not hit:
            raise InputError("lora_targets", f"match no Linear module of the transformer ({targets!r})",
                             "suffixes of Linear modules, e.g. 'attn.to_q'")
        if not isinstance(negative_prompt, str):
            raise InputError("negative_prompt", f"got {type(negative_prompt).__name__}", "a string")
        if isinstance(max_sequence_length, bool) or not isinstance(max_sequence_length, (Integral, np.integer)) \
                or int(max_sequence_length) < 1:
            raise InputError("max_sequence_length", f"got {max_sequence_length!r}", "an integer >= 1")
        if not isinstance(adapter_name, str) or not adapter_name:
            raise InputError("adapter_name", f"got {adapter_name!r}", "a non-empty string")
        self.pipeline, self.transformer, self.scheduler = pipeline, tr, pipeline.scheduler
        self.lora_rank, self.lora_alpha, self.lora_targets = int(lora_rank), alpha, tuple(hit)
        self.negative_prompt, self.max_sequence_length = negative_prompt, int(max_sequence_length)
        self.adapter_name = adapter_name
        c = tr.config
        self.sample_shape = (int(c.in_channels), int(c.sample_size), int(c.sample_size))
        self.prompts_ = []                       # cached prompt strings; row i of the embedding tables
        self._index = {}
        self._emb = self._pooled = self._neg = None

    def __repr__(self):
        return (f"DiffusersPipelineModel({type(self.pipeline).__name__}, sample_shape={self.sample_shape}, "
                f"lora_rank={self.lora_rank})")

    # ---------------------------------------------------------------- text and images
    def encode(self, prompts):
        """``(prompt_embeds, pooled_prompt_embeds)`` of a list of strings by the pipeline's text encoders."""
        from iclr26sci.nn._diffusers import _pipeline_encode

        return _pipeline_encode(self.pipeline, prompts, self.max_sequence_length)

    def decode(self, latents):
        """Images in [0, 1], (n, 3, H, W), of final latents through the pipeline's VAE (no gradient)."""
        from iclr26sci.nn._diffusers import _pipeline_decode

        return _pipeline_decode(self.pipeline, latents)

    def prompt_index(self, prompts):
        """Row indices (LongTensor) of prompt strings in the embedding cache, encoding the new ones."""
        new = [p for p in dict.fromkeys(prompts) if p not in self._index]
        if self._neg is None:
            self._neg = self.encode([self.negative_prompt])
        if new:
            e, pe = self.encode(new)
            self._emb = e if self._emb is None else torch.cat([self._emb, e])
            self._pooled = pe if self._pooled is None else torch.cat([self._pooled, pe])
            for p in new:
                self._index[p] = len(self.prompts_)
                self.prompts_.append(p)
        dev = self.transformer.device
        return torch.as_tensor([self._index[p] for p in prompts], dtype=torch.long, device=dev)

    # ---------------------------------------------------------------- LoRA
    def prepare(self, seed):
        """Add (or seed-reinitialise) the LoRA adapter, freeze the base weights, return the adapter's parameters.

        peft's "gaussian" init (as Flow-GRPO): :math:`A \\sim N(0, 1/r)`, :math:`B = 0`, so the adapted transformer
        starts equal to the base one."""
        from peft import LoraConfig
        from peft.tuners.lora import LoraLayer

        tr, name = self.transformer, self.adapter_name
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(seed))
            if name in (getattr(tr, "peft_config", None) or {}):
                for m in tr.modules():
                    if isinstance(m, LoraLayer) and name in m.lora_A:
                        m.reset_lora_parameters(name, "gaussian")
            else:
                tr.add_adapter(LoraConfig(r=self.lora_rank, lora_alpha=self.lora_alpha, init_lora_weights="gaussian",
                                          target_modules=list(self.lora_targets)), adapter_name=name)
        tr.set_adapter(name)
        tr.enable_adapters()
        params = []
        for n, p in tr.named_parameters():
            mine = ".lora_" in n and f".{name}." in n + "."
            p.requires_grad_(mine)
            if mine:
                params.append(p)
        if not params:   # pragma: no cover - the targets were checked at construction
            raise InputError("lora_targets", "created no LoRA parameter", "targets that match Linear modules")
        return params

    @contextlib.contextmanager
    def adapters_disabled(self):
        """Context in which the transformer runs without its adapters (the frozen reference)."""
        self.transformer.disable_adapters()
        try:
            yield
        finally:
            self.transformer.enable_adapters()

    def predict(self, x, timestep, cond, guidance):
        r"""The transformer's :math:`u = dx/d\sigma` for latents ``x`` at ``timestep`` (B,) and prompt rows
        ``cond``, combined by classifier-free guidance :math:`u_\varnothing + g(u_c - u_\varnothing)` when
        ``guidance > 1`` (one forward of the doubled batch, unconditional half first)."""
        tr = self.transformer
        dt = next(tr.parameters()).dtype
        e, pe = self._emb[cond].to(dt), self._pooled[cond].to(dt)
        xin = x.to(dt)
        ts = timestep.reshape(-1).expand(x.shape[0]) if torch.as_tensor(timestep).numel() == 1 else timestep
        if guidance > 1:
            B = x.shape[0]
            ne = self._neg[0].to(dt).expand(B, *self._neg[0].shape[1:])
            npe = self._neg[1].to(dt).expand(B, *self._neg[1].shape[1:])
            out = tr(hidden_states=torch.cat([xin, xin]), timestep=torch.cat([ts, ts]),
                     encoder_hidden_states=torch.cat([ne, e]), pooled_projections=torch.cat([npe, pe]),
                     return_dict=False)[0]
            un, co = out.chunk(2)
            out = un + guidance * (co - un)
        else:
            out = tr(hidden_states=xin, timestep=ts, encoder_hidden_states=e, pooled_projections=pe,
                     return_dict=False)[0]
        return out.to(x.dtype)


class PipelinePolicy(DiffusersPolicy):
    """Flow-GRPO's SDE policy on a :class:`DiffusersPipelineModel`: CFG-combined prediction, LoRA, no copy."""

    kind = "diffusers"

    def __init__(self, flow_model, noise_level, steps, shift, guidance):
        from diffusers import FlowMatchEulerDiscreteScheduler

        from iclr26sci.nn import DiffusersFlowSDE

        if guidance < 1:
            raise InputError("guidance", f"is {guidance} for a text-to-image pipeline",
                             "guidance >= 1 (1 = no classifier-free guidance; SD3 / Flow-GRPO use 4.5)")
        self.fmodel = flow_model
        self.model = self.ref_net = flow_model.transformer          # the user's transformer: no copy
        sch = FlowMatchEulerDiscreteScheduler.from_config(flow_model.scheduler.config, shift=shift,
                                                          use_dynamic_shifting=False)
        sch.set_timesteps(steps)
        self.scheduler = sch
        self.bridge = DiffusersFlowSDE(sch, noise_level=noise_level)
        self.noise_level, self.shift, self.guidance = noise_level, shift, float(guidance)
        self.event_shape = flow_model.sample_shape
        self.n_classes, self.cond_dim = None, None
        p = next(self.model.parameters())
        self.device, self.dtype = p.device, torch.float32 if p.dtype in (torch.float16, torch.bfloat16) else p.dtype
        self._set_grid(sch)

    def prepare(self, seed):
        return self.fmodel.prepare(seed)

    def _u(self, net, x, k, cond):
        return self.fmodel.predict(x, self._ts[k], cond, self.guidance)

    def step(self, x, k, cond, ref=False, x_next=None, gen=None, times=None):
        if times is not None:
            raise InputError("times", "cannot be changed for a diffusers model", "the scheduler's grid")
        if ref:
            with torch.no_grad(), self.fmodel.adapters_disabled():
                u = self._u(None, x, k, cond)
        else:
            u = self._u(None, x, k, cond)
        return self.bridge.step(u, self._ts[k], x, prev_sample=x_next, generator=gen)

    def check_cond(self, prompts, n, name="prompts"):
        if prompts is None:
            raise InputError(name, "is None for a text-to-image pipeline", "a list of prompt strings")
        arr = np.asarray(prompts, dtype=object).reshape(-1)
        if arr.shape != (n,) or not all(isinstance(p, str) for p in arr):
            raise InputError(name, f"got {type(prompts).__name__} of {arr[:3].tolist()!r}...",
                             f"{n} prompt strings")
        return self.fmodel.prompt_index([str(p) for p in arr])

    def reward_inputs(self, x, cond):
        """(decoded images in [0, 1], list of prompt strings) for the reward."""
        return self.fmodel.decode(x), [self.fmodel.prompts_[int(i)] for i in cond.reshape(-1).tolist()]


def tiny_sd3_pipeline_impl(rng=0, text_len=16):
    from iclr26sci.nn._diffusers import _tiny_sd3_pipeline

    return _tiny_sd3_pipeline(seed=rng, text_len=text_len)
