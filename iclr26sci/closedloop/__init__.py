"""Method layer: closed-loop black-box stimulus optimisation from brain responses (MindPilot).

Li, Xie, Wu, Kong, Tang, Qin, Wei, Liu, "MindPilot: Closed-loop Visual Stimulation Optimization for Brain
Modulation with EEG-guided Diffusion" (arXiv:2602.10552, ICLR 2026; official code ncclab-sustech/MindPilot).

Modules:

- ``_base``: :class:`BlackBoxStimulusOptimizer` (``propose(k)`` / ``observe(images, rewards)``, shared query
  counter, timing), :func:`run_loop` (works with any callable brain, a person with an EEG amplifier
  included) and :class:`LoopResult`;
- ``_gp``: :class:`PseudoModel`, the fixed-hyper-parameter GP and its pseudo-target step;
- ``mindpilot``: :class:`MindPilot` (pseudo-target guidance, crossover fusion, greedy kNN retrieval,
  softmax selection, best-so-far, early stop);
- ``baselines``: :class:`RandomPool`, :class:`GreedyRetrieval`, :class:`GPUCB` (gpytorch),
  :class:`BoTorchUCB` (BoTorch), :class:`CMAES` (cma);
- ``_stimuli``: :class:`PCAEmbedder`, :class:`PCAGenerator` (small stand-ins for CLIP and IP-Adapter SDXL);
- ``_flowgen``: :class:`FlowGenerator` (an :mod:`iclr26sci.nn` flow-matching model conditioned on embeddings)
  and :class:`FeatureEmbedder` (a whitened fixed feature map, e.g. the cached Fashion-MNIST classifier's
  penultimate layer);
- ``_ddpo``: :class:`DDPOLite` (DDPO-style RL fine-tuning of a :class:`FlowGenerator`);
- ``_brain``: :class:`SimulatedEEGBrain` (sources on MNE's bundled fsaverage head, spherical forward model,
  17-channel EEG, semantic and multitaper-PSD targets), :func:`head_model`.

Names load on first access (PEP 562), so ``import iclr26sci.closedloop`` imports neither torch nor mne.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader

#: public name -> the private module that defines it
_WHERE = {
    "BlackBoxStimulusOptimizer": "_base", "LoopResult": "_base", "run_loop": "_base",
    "PseudoModel": "_gp",
    "MindPilot": "mindpilot",
    "RandomPool": "baselines", "GreedyRetrieval": "baselines", "GPUCB": "baselines", "BoTorchUCB": "baselines",
    "CMAES": "baselines",
    "PCAEmbedder": "_stimuli", "PCAGenerator": "_stimuli",
    "FlowGenerator": "_flowgen", "FeatureEmbedder": "_flowgen",
    "DDPOLite": "_ddpo",
    "SimulatedEEGBrain": "_brain", "head_model": "_brain", "THINGS_EEG_CHANNELS": "_brain",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
