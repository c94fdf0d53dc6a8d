r"""MVR: multi-view video reward shaping for continuous control (Luo et al., ICLR 2026, arXiv:2603.01694).

A frozen video-text model scores multi-view clips of the agent's own behaviour; a state-relevance network
:math:`f_\psi` learns the *ordering* of those scores (Bradley-Terry on :math:`\sigma(100\,\Delta S)` plus a
representation-alignment regulariser); the shaping term compares a state's relevance with that of the
best-scored clips seen so far, :math:`F(s) = \operatorname{clip}(w_s\log\sigma((f_\psi(s) - f_\psi(s'))/\tau),
-5, 5)`, and is added to the task reward of an off-policy agent (TQC), with the replay buffer relabelled
after every retrain. As in the official code (mvr-rl/mvr) this term is additive and non-positive, not
potential-based; ``shaping="pbrs"`` gives a policy-invariant alternative.

- :func:`make_multiview_env` / :class:`MultiViewEnv` / :class:`MultiViewClip`: headless multi-camera clip
  recording of gymnasium MuJoCo tasks (and of environments with ``render_view``);
- :class:`VideoTextScorer` (the interface a real ViCLIP plugs into), :class:`DemoPrototypeScorer`,
  :class:`MotionDescriptorScorer` (offline stand-ins), :func:`view_averaged_score`;
- :class:`StateRelevance`, :class:`MVRShaper`, :func:`mvr_shaping`, :func:`mvr_potential`,
  :func:`pbrs_shaping`, :func:`soft_preference_labels`;
- :class:`MVR`: the agent (TQC, SAC or any stable-baselines3 off-policy class), ``learn``, ``evaluate``,
  ``history_``;
- toys for the checks: :class:`OscillatorEnv`, :func:`oscillation_amplitude`, :func:`gridworld_optimal_policy`.

Everything runs on CPU (``device=`` is passed to torch and stable-baselines3).
"""
from __future__ import annotations

from ._mvr_agent import MVR
from ._mvr_core import (MVRShaper, StateRelevance, mvr_potential, mvr_shaping, pbrs_shaping, soft_preference_labels,
                        view_averaged_score)
from ._mvr_env import CAMERAS, MultiViewClip, MultiViewEnv, make_multiview_env
from ._mvr_scorers import DemoPrototypeScorer, MotionDescriptorScorer, VideoTextScorer
from ._mvr_toys import OscillatorEnv, gridworld_optimal_policy, oscillation_amplitude

__all__ = ["MVR", "MVRShaper", "StateRelevance", "mvr_shaping", "mvr_potential", "pbrs_shaping",
           "soft_preference_labels", "view_averaged_score", "make_multiview_env", "MultiViewEnv", "MultiViewClip",
           "CAMERAS", "VideoTextScorer", "DemoPrototypeScorer", "MotionDescriptorScorer", "OscillatorEnv",
           "oscillation_amplitude", "gridworld_optimal_policy"]
