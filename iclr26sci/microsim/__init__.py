"""Method layer: MicroWorldBench rubric scoring and physically grounded microscale simulators (MicroVerse).

Wang, Wu, Zhou, Yu, Cai, Chen and Wang, "MicroVerse: A Preliminary Exploration Toward a Micro-World
Simulation", ICLR 2026 (arXiv:2603.00585; official code FreedomIntelligence/MicroVerse, evaluator in ``eval/``).

Modules:

- ``_rubric``: :class:`Rubric` / :class:`TaskRubric` / :class:`Criterion` (the rubric schema, loaded from a
  user-given path with either key variant, or the shipped synthetic :meth:`Rubric.example`), the frame sampler
  :func:`sample_frame_indices`, the judge protocol (:class:`Judge`, :class:`JudgeRequest`, :func:`build_prompt`,
  :func:`parse_reply`), :func:`score_video` / :func:`score_verdicts` (the released scoring, with the two defects
  corrected unless ``faithful_to_release=True``) and :func:`aggregate` (model, dimension and level scores);
- ``_judges``: :class:`OracleJudge`, :class:`RandomJudge`, :class:`KeywordJudge`, :class:`PhysicsJudge`;
- ``_sim``: :func:`simulate` (Brownian motion, optical trap, chemotaxis, Poiseuille flow, cell division,
  diffusion PDE), :func:`solve_diffusion` (FTCS / Crank-Nicolson), :func:`stokes_einstein`;
- ``_render``: :func:`render` (Gaussian PSF, exposure blur, noise, real-microscopy textures) and :class:`Video`;
- ``_analysis``: :func:`analyse`, :func:`detect`, :func:`link`, :func:`msd`, :func:`fit_msd`,
  :func:`velocity_profile`, :func:`growth_rate`, :func:`physics_flags`.

Names load on first access (PEP 562), so ``import iclr26sci.microsim`` does not import scipy or torch.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader

#: public name -> the private module that defines it
_WHERE = {
    "Rubric": "_rubric", "TaskRubric": "_rubric", "Criterion": "_rubric", "sample_frame_indices": "_rubric",
    "Judge": "_rubric", "JudgeRequest": "_rubric", "build_prompt": "_rubric", "parse_reply": "_rubric",
    "score_video": "_rubric", "score_verdicts": "_rubric", "VideoScore": "_rubric", "aggregate": "_rubric",
    "BenchmarkScore": "_rubric", "DIMENSIONS": "_rubric",
    "OracleJudge": "_judges", "RandomJudge": "_judges", "KeywordJudge": "_judges", "PhysicsJudge": "_judges",
    "PHYSICS_RULES": "_judges", "SIMULATORS": "_sim",
    "simulate": "_sim", "solve_diffusion": "_sim", "stokes_einstein": "_sim", "Tracks": "_sim", "Field": "_sim",
    "Colony": "_sim", "KB": "_sim",
    "render": "_render", "Video": "_render", "as_frames": "_render",
    "analyse": "_analysis", "detect": "_analysis", "link": "_analysis", "msd": "_analysis", "fit_msd": "_analysis",
    "velocity_profile": "_analysis", "growth_rate": "_analysis", "physics_flags": "_analysis",
    "TrackAnalysis": "_analysis", "FieldAnalysis": "_analysis", "ColonyAnalysis": "_analysis",
    "ProfileAnalysis": "_analysis", "PhysicsFlags": "_analysis",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
