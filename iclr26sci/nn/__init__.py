"""Layer 1: the shared neural layer -- MLPs, one training loop, flow matching and its SDE, small vision
models, an offline language model with LoRA, and train-once caches of the models several methods share.

Modules (the public names each defines are listed in ``_WHERE`` below):

- ``_data``: :class:`ImageSet`, the labelled image container the vision adapters return;
- ``_mlp``: :func:`mlp`; ``_train``: :func:`fit` (seeded, early stopping, checkpoints) and :class:`FitResult`;
- ``_vision``: :class:`SmallResNet` (BatchNorm) and :class:`SmallViT` (LayerNorm) image classifiers;
- ``_cache``: the user cache folder and :func:`cached_model`; ``_pretrained_cls``: :func:`fashion_classifier`;
- ``_flow``: :class:`FlowMatching` (linear and OT-CFM paths, conditioning, classifier-free guidance),
  :func:`ode_sample` (Euler, Heun, midpoint) and :class:`VelocityMLP`;
- ``_sde``: :func:`flow_sde` (the Flow-GRPO ODE-to-SDE conversion: per-step Gaussian policy with mean, std,
  log-likelihood and closed-form KL) and :func:`memoryless_sde` (Adjoint Matching);
- ``_oracle``: :class:`GaussianFlowOracle`, the exact velocity field for Gaussian data;
- ``_diffusers``: the same SDE step on a ``diffusers`` ``FlowMatchEulerDiscreteScheduler``;
- ``_unet``: :class:`UNetVelocity`, a conditional U-Net velocity network for 28x28 images;
  ``_pretrained_flow``: :func:`fashion_flow`, :func:`digits_flow`; ``_fid``: :func:`frechet_distance`;
- ``_lm``: :func:`load_lm` (offline SmolLM2-135M-Instruct), :func:`tiny_lm`, :class:`LanguageModel`;
- ``_text``: :func:`embed_texts` (the packaged all-MiniLM-L6-v2 sentence embeddings) and :func:`minilm_path`.
- ``_diffusion``: :class:`DiffusionSchedule`, per-token :func:`q_sample`, masked :func:`ddim_step`, :func:`sample_noise_levels`, :func:`ddim_levels`.

Names load on first access (PEP 562), so ``import iclr26sci.nn`` imports neither torch nor transformers.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader

#: public name -> the private module that defines it
_WHERE = {
    "ImageSet": "_data",
    "mlp": "_mlp",
    "fit": "_train", "FitResult": "_train", "save_checkpoint": "_train", "load_checkpoint": "_train",
    "SmallResNet": "_vision", "SmallViT": "_vision",
    "cache_dir": "_cache", "cached_model": "_cache",
    "fashion_classifier": "_pretrained_cls",
    "FlowMatching": "_flow", "ode_sample": "_flow", "SampleResult": "_flow", "VelocityMLP": "_flow",
    "flow_sde": "_sde", "FlowSDE": "_sde", "SDEStep": "_sde", "memoryless_sde": "_sde", "MemorylessSDE": "_sde",
    "GaussianFlowOracle": "_oracle",
    "DiffusersFlowSDE": "_diffusers",
    "UNetVelocity": "_unet", "fashion_flow": "_pretrained_flow", "digits_flow": "_pretrained_flow",
    "frechet_distance": "_fid",
    "load_lm": "_lm", "tiny_lm": "_lm", "LanguageModel": "_lm", "Generation": "_lm", "SequenceLogprob": "_lm",
    "LM_NAMES": "_lm",
    "minilm_path": "_text", "embed_texts": "_text", "MINILM_DIM": "_text",
    "DiffusionSchedule": "_diffusion", "q_sample": "_diffusion", "ddim_step": "_diffusion",
    "sample_noise_levels": "_diffusion", "ddim_levels": "_diffusion",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
