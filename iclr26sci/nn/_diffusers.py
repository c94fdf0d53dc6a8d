r"""The Flow-GRPO SDE step on a ``diffusers`` ``FlowMatchEulerDiscreteScheduler`` (SD3, FLUX, ... pipelines).

diffusers (like SD3 and Flow-GRPO) runs a decreasing noise level :math:`\sigma` from 1 (noise) to 0 (data) and
the transformer predicts :math:`u = dx/d\sigma` (:math:`\approx \varepsilon - x_{\rm data}`). In the
:mod:`iclr26sci.nn` convention :math:`t = 1 - \sigma` and :math:`v = dx/dt = -u`, so the scheduler step from
``sigmas[i]`` to ``sigmas[i + 1]`` is the step of length :math:`h = \sigma_i - \sigma_{i+1}` from
:math:`t = 1 - \sigma_i`, and the Gaussian policy is exactly :func:`iclr26sci.nn.flow_sde`'s
(:math:`\sigma_t = a\sqrt{\sigma/(1-\sigma)}`; at :math:`\sigma = 1` the denominator uses ``sigmas[1]``, which is
Flow-GRPO's rule). With ``noise_level=0`` the mean equals the scheduler's own Euler step.
"""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, check_in_range

from ._sde import SDEStep, _GaussianFlowSDE, _torch_gen, gaussian_step_moments

import torch

__all__ = ["DiffusersFlowSDE"]


def _require_diffusers():
    try:
        import diffusers  # noqa: F401
        from diffusers import FlowMatchEulerDiscreteScheduler
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError('DiffusersFlowSDE needs diffusers: pip install "iclr26sci[vision]"') from exc
    return FlowMatchEulerDiscreteScheduler


class DiffusersFlowSDE:
    r"""Flow-GRPO's per-step Gaussian policy on the sigmas of a diffusers flow-matching scheduler.

    Parameters
    ----------
    scheduler : diffusers.FlowMatchEulerDiscreteScheduler
        A scheduler on which ``set_timesteps`` has been called (its ``sigmas`` and ``timesteps`` define the
        grid, including any time shift). The scheduler's state is read, never changed.
    noise_level : float >= 0, default 0.7
        Flow-GRPO's :math:`a` (0.7 for SD3.5-M, 0.9 for FLUX); 0 reproduces the scheduler's ODE step.

    Examples
    --------
    >>> import torch
    >>> from diffusers import FlowMatchEulerDiscreteScheduler
    >>> from iclr26sci.nn import DiffusersFlowSDE
    >>> sch = FlowMatchEulerDiscreteScheduler(shift=3.0)
    >>> sch.set_timesteps(4)
    >>> bridge = DiffusersFlowSDE(sch, noise_level=0.7)
    >>> x = torch.zeros(2, 1, 4, 4)
    >>> st = bridge.step(torch.ones_like(x), sch.timesteps[1], x, generator=0)
    >>> st.mean.shape, bool(st.std.min() > 0)
    (torch.Size([2, 1, 4, 4]), True)
    """

    def __init__(self, scheduler, noise_level=0.7):
        cls = _require_diffusers()
        if not isinstance(scheduler, cls):
            raise InputError("scheduler", f"got {type(scheduler).__name__}",
                             "a diffusers FlowMatchEulerDiscreteScheduler")
        if getattr(scheduler, "sigmas", None) is None or getattr(scheduler, "timesteps", None) is None:
            raise InputError("scheduler", "has no sigmas yet", "a scheduler after set_timesteps(n)")
        self.scheduler = scheduler
        self.noise_level = check_in_range(noise_level, "noise_level", 0.0)

    def __repr__(self):
        return f"DiffusersFlowSDE(noise_level={self.noise_level:g}, steps={len(self.scheduler.timesteps)})"

    def index_of(self, timestep, B):
        """Grid indices (B,) of ``timestep`` (a scheduler timestep, scalar or per row)."""
        ts = self.scheduler.timesteps.detach().double().cpu()
        tt = torch.as_tensor(timestep).detach().double().cpu().reshape(-1)
        if tt.numel() == 1:
            tt = tt.expand(B)
        if tt.numel() != B:
            raise InputError("timestep", f"has {tt.numel()} entries", f"a scalar or one per row ({B})")
        dist = (tt[:, None] - ts[None, :]).abs()
        idx = dist.argmin(1)
        if bool((dist.min(1).values > 1e-3 * max(1.0, float(ts.abs().max()))).any()):
            raise InputError("timestep", "is not on the scheduler's grid", "one of scheduler.timesteps")
        return idx

    def times(self, timestep, B=1):
        """(t, dt) in the nn convention (t = 1 - sigma, dt = sigma_i - sigma_(i+1)) for ``timestep``."""
        idx = self.index_of(timestep, B)
        sig = self.scheduler.sigmas.detach().double().cpu()
        return 1 - sig[idx], sig[idx] - sig[idx + 1]

    def step(self, model_output, timestep, sample, prev_sample=None, generator=None):
        r"""One Flow-GRPO SDE step of the scheduler, as an :class:`SDEStep`.

        Parameters
        ----------
        model_output : tensor (B, ...)
            The transformer's prediction :math:`u = dx/d\sigma` (after classifier-free guidance if any).
        timestep : float or tensor (scalar or (B,))
            The scheduler timestep of ``sample`` (an entry of ``scheduler.timesteps``).
        sample : tensor (B, ...)
            The current latents :math:`x_\sigma`.
        prev_sample : tensor, optional
            A stored next latent to evaluate (instead of drawing one).
        generator : seed or torch.Generator, optional
            Noise of the drawn next latent.

        Returns
        -------
        SDEStep
            ``mean``, ``std``, ``sample`` (the next latent at ``sigmas[i + 1]``), ``log_prob``, ``kl``.
        """
        if not torch.is_tensor(sample) or not torch.is_floating_point(sample) or sample.ndim < 2:
            raise InputError("sample", "is not a floating (B, ...) tensor", "the latents as a float tensor")
        if not torch.is_tensor(model_output) or model_output.shape != sample.shape:
            raise InputError("model_output", f"has shape {getattr(model_output, 'shape', None)}",
                             f"a tensor shaped like sample {tuple(sample.shape)}")
        if not bool(torch.isfinite(sample).all()) or not bool(torch.isfinite(model_output).all()):
            raise InputError("sample", "or model_output contains NaN or infinite values", "finite latents")
        B = sample.shape[0]
        t, h = self.times(timestep, B)
        if bool((h <= 0).any()):
            raise InputError("timestep", "is the last grid point (no step left)", "a timestep before the end")
        dtype = torch.promote_types(sample.dtype, torch.float32)
        x = sample.to(dtype)
        v = -model_output.to(dtype)
        t, h = t.to(x.device, dtype), h.to(x.device, dtype)
        mean, std = gaussian_step_moments(x, v, t, h, self.noise_level ** 2, 0.0)
        if prev_sample is None:
            g = _torch_gen(generator, x.device)
            noise = torch.randn(x.shape, generator=g, dtype=torch.float64,
                                device="cpu" if g.device.type == "cpu" else x.device).to(x.device, dtype)
            nxt = mean + std * noise
        else:
            if not torch.is_tensor(prev_sample) or prev_sample.shape != sample.shape:
                raise InputError("prev_sample", "has the wrong shape", f"shape {tuple(sample.shape)}")
            nxt = prev_sample.to(dtype)
        return SDEStep(mean=mean, std=std, sample=nxt, t=t, dt=h, velocity=v)


# ------------------------------------------------------------------------------------ text-to-image pipelines
def _tiny_clip_tokenizer(max_length):
    """A byte-level CLIP tokenizer built in memory: one token per byte (plus its end-of-word form), no merges.

    It needs no vocabulary file and no download; every string tokenizes (lower-cased, as CLIP's)."""
    from tokenizers import pre_tokenizers
    from transformers import CLIPTokenizer

    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    for suffix in ("", "</w>"):
        for ch in sorted(pre_tokenizers.ByteLevel.alphabet()):
            vocab[ch + suffix] = len(vocab)
    return CLIPTokenizer(vocab=vocab, merges=[], model_max_length=int(max_length))


def _tiny_sd3_pipeline(seed=0, width=8, latent_channels=4, sample_size=8, text_len=16):
    """A randomly initialised, CPU-sized ``StableDiffusion3Pipeline`` built from configs (no download).

    Two CLIP text encoders with projection (hidden ``width``; no T5, ``text_encoder_3=None``, which the pipeline
    replaces by zero embeddings), an ``SD3Transformer2DModel`` with one joint block, an ``AutoencoderKL`` with
    two levels (images of ``2 * sample_size`` pixels, latents ``(latent_channels, sample_size, sample_size)``)
    and a ``FlowMatchEulerDiscreteScheduler(shift=3)``. The global torch RNG is left untouched."""
    from diffusers import (AutoencoderKL, FlowMatchEulerDiscreteScheduler, SD3Transformer2DModel,
                           StableDiffusion3Pipeline)
    from transformers import CLIPTextConfig, CLIPTextModelWithProjection

    tok = _tiny_clip_tokenizer(text_len)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))

        def text_encoder():
            cfg = CLIPTextConfig(vocab_size=len(tok), hidden_size=width, intermediate_size=2 * width,
                                 num_hidden_layers=1, num_attention_heads=2, max_position_embeddings=text_len,
                                 projection_dim=width, bos_token_id=0, eos_token_id=1, pad_token_id=1)
            return CLIPTextModelWithProjection(cfg).eval()

        te1, te2 = text_encoder(), text_encoder()
        transformer = SD3Transformer2DModel(
            sample_size=sample_size, patch_size=2, in_channels=latent_channels, num_layers=1, attention_head_dim=8,
            num_attention_heads=2, joint_attention_dim=2 * width, caption_projection_dim=16,
            pooled_projection_dim=2 * width, out_channels=latent_channels, pos_embed_max_size=sample_size)
        vae = AutoencoderKL(in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D",) * 2,
                            up_block_types=("UpDecoderBlock2D",) * 2, block_out_channels=(8, 8), layers_per_block=1,
                            latent_channels=latent_channels, norm_num_groups=4, sample_size=2 * sample_size,
                            scaling_factor=1.5305, shift_factor=0.0609)
    pipe = StableDiffusion3Pipeline(transformer=transformer.eval(), scheduler=FlowMatchEulerDiscreteScheduler(shift=3.0),
                                    vae=vae.eval(), text_encoder=te1, tokenizer=tok, text_encoder_2=te2,
                                    tokenizer_2=_tiny_clip_tokenizer(text_len), text_encoder_3=None, tokenizer_3=None)
    pipe.set_progress_bar_config(disable=True)
    return pipe


def _pipeline_encode(pipe, prompts, max_sequence_length):
    """``(prompt_embeds, pooled_prompt_embeds)`` of a list of prompt strings by the pipeline's own text encoders
    (no classifier-free-guidance pairing; no gradient)."""
    with torch.no_grad():
        out = pipe.encode_prompt(prompt=list(prompts), prompt_2=None, prompt_3=None,
                                 do_classifier_free_guidance=False, max_sequence_length=int(max_sequence_length))
    return out[0].detach(), out[2].detach()


def _pipeline_decode(pipe, latents):
    """Images in [0, 1], (n, 3, H, W), from SD3 latents through the pipeline's VAE (``latents / scaling_factor +
    shift_factor``, as the pipeline does), in the VAE's dtype; no gradient."""
    vae = pipe.vae
    cfg = vae.config
    z = latents.to(vae.dtype) / cfg.scaling_factor + (getattr(cfg, "shift_factor", None) or 0.0)
    with torch.no_grad():
        img = vae.decode(z, return_dict=False)[0]
    return (img.float() / 2 + 0.5).clamp(0, 1)


# keep the import used (FlowSDE shares the machinery); documented for readers
_ = (_GaussianFlowSDE, np)
