"""Method layer: backprop-free test-time adaptation of any torch classifier by Progressive Embedding Alignment.

Xiao, Kwon, Zhou and Ma, "Architecture-Agnostic Test-Time Adaptation via Backprop-Free Embedding Alignment"
(PEA), ICLR 2026 (OpenReview 7kLNGaAHaw; official code TheMaXiao/PEA_TTA).

Modules:

- ``_linalg``: :func:`coral_align` (grouped CORAL: whitening by the target covariance, colouring by the
  source's) and :func:`mv_align` (per-dimension mean-variance alignment);
- ``_stats``: :class:`SourceStats`, the offline per-block source moments gathered with forward hooks;
- ``_pea``: :class:`PEAAdapter`, the two-pass (or one-pass) adapter;
- ``_stream``: :class:`CorruptedStream` (continual / shuffled streams over corruptions x severities) and
  :class:`StreamBatch`;
- ``baselines``: NoAdapt, BN-adapt, Tent, T3A, LAME, FOA-lite, NEO and :func:`baselines.compare`, the
  harness that runs them and PEA on one stream (``from iclr26sci.adaptation import baselines``).

Names load on first access (PEP 562), so ``import iclr26sci.adaptation`` does not import torch.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader

#: public name -> the private module that defines it
_WHERE = {
    "coral_align": "_linalg", "mv_align": "_linalg",
    "SourceStats": "_stats",
    "PEAAdapter": "_pea",
    "CorruptedStream": "_stream", "StreamBatch": "_stream",
    "compare": "baselines", "CompareResult": "baselines",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
