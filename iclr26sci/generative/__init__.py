"""Method layer: generative models -- reward-guided and reward-fine-tuned flow models, and pace-guided diffusion forcing.

Three papers share this sub-package, one public module each:

- :mod:`iclr26sci.generative.tempflow`: TempFlow-GRPO (He et al., "TempFlow-GRPO: When Timing Matters for GRPO
  in Flow Models", arXiv:2508.04324), with Flow-GRPO, DanceGRPO and MixGRPO as modes of one trainer;
- :mod:`iclr26sci.generative.value_matching`: Value Matching ("Value Matching: Scalable and Gradient-Free
  Reward-Guided Flow Adaptation", OpenReview 7iXt44Actj), with classifier guidance, training-free gradient
  guidance, best-of-N and Adjoint Matching as peers;
- :mod:`iclr26sci.generative.light`: LIGHT ("LIGHT: Unleashing Guidance Without Classifiers for Human-Object
  Interaction Animation", arXiv:2603.25734), diffusion forcing over modalities with pace-induced guidance.

All are built on :mod:`iclr26sci.nn` (flow matching, its SDE, the cached flow models and classifier, the diffusers
bridge). Each module's public names are listed in its ``__all__``; the package re-exports them lazily (PEP 562),
reading those lists from the source without importing the modules, so ``import iclr26sci.generative`` loads no
torch.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader, literal_all

#: the public modules whose ``__all__`` this package re-exports
_MODULES = ("tempflow", "value_matching", "light")


#: public name -> the module that defines it
_WHERE = literal_all(__file__, _MODULES)

__all__ = list(_WHERE)

__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
