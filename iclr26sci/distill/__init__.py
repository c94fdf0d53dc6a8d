"""Method layer: knowledge purification for multi-teacher rationale distillation.

Jin et al., "Exploring Knowledge Purification in Multi-Teacher Knowledge Distillation for LLMs"
(arXiv:2602.01064, ICLR 2026). Purification maps the K teacher rationales of a question to ONE
rationale, which the student is distilled on instead of all K (TinyLLM's naive multi-teacher loss).

Modules:

- ``_data``: :class:`MultiTeacherData` (questions, K rationales, implied answers, correctness, domains;
  ``from_champ`` for the four real CHAMP teachers) and :class:`PurifiedData`;
- ``_purifiers``: the five purifiers -- :class:`AggregationPurifier` (offline surrogate of the GPT-4
  aggregator), :class:`PlackettLuceRouter` (contextual and global, weighted MM), :class:`ClassifierRouter`
  (frozen encoder + MLP), :class:`SimilarityRouter` (question kNN, rationale consensus),
  :class:`RLTeacherSelector` (REINFORCE) -- and the baselines :class:`SingleTeacher`, :class:`MajorityVote`,
  :class:`RandomTeacher`, :class:`OraclePurifier`;
- ``_pl``: :func:`plackett_luce_mm`, :func:`sample_plackett_luce`, :func:`plackett_luce_loglik`;
- ``_synthetic``: :class:`SyntheticRationaleQA`, templated teachers of controlled per-domain accuracy;
- ``_embed``: :class:`HashingEmbedder` (MiniLM is ``iclr26sci.nn.embed_texts``);
- ``_student``: :class:`Seq2SeqStudent` (a small from-scratch Transformer), :func:`distill` (the TinyLLM
  and purified losses, on that student or any causal LM with LoRA) and :func:`evaluate_student`.

Names load on first access (PEP 562), so ``import iclr26sci.distill`` imports neither torch nor sklearn.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader

#: public name -> the private module that defines it
_WHERE = {
    "MultiTeacherData": "_data", "PurifiedData": "_data",
    "AggregationPurifier": "_purifiers", "PlackettLuceRouter": "_purifiers", "ClassifierRouter": "_purifiers",
    "SimilarityRouter": "_purifiers", "RLTeacherSelector": "_purifiers", "SingleTeacher": "_purifiers",
    "MajorityVote": "_purifiers", "RandomTeacher": "_purifiers", "OraclePurifier": "_purifiers",
    "RoutingResult": "_purifiers", "correctness_rankings": "_purifiers",
    "plackett_luce_mm": "_pl", "sample_plackett_luce": "_pl", "plackett_luce_loglik": "_pl",
    "SyntheticRationaleQA": "_synthetic",
    "HashingEmbedder": "_embed",
    "Seq2SeqStudent": "_student", "distill": "_student", "evaluate_student": "_student",
    "DistilledStudent": "_student", "StudentEvaluation": "_student",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
