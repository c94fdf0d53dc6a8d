"""Method layer: reinforcement learning with verifiable rewards (RLVR) for language models and bandits.

Modules:

- ``rs_grpo``: RS-GRPO, the risk-sensitive group advantage of Jiang et al., "Risk-Sensitive RL for
  Alleviating Exploration Dilemmas in Large Language Models" (arXiv:2509.24261, ICLR 2026), with the peer
  advantages (GRPO, Dr.GRPO, PKPO, Pass@k Training) under one signature, the unbiased :func:`pass_at_k`, a
  verl-signature estimator, the bandit lemmas, the 100-armed bandit and the linear-softmax pass@k toy,
  and :class:`RSGRPOTrainer` (a ``trl.GRPOTrainer`` whose only change is the advantage);
- ``tasks``: :class:`ArithmeticTask`, generated arithmetic problems with exact answers, a sympy grader and a
  held-out split, for real language-model runs;
- ``mvr``: MVR, multi-view video reward shaping for continuous control (Luo et al., arXiv:2603.01694, ICLR
  2026): multi-view MuJoCo clip recording, video-text scorer interface and stand-ins, the Bradley-Terry
  state-relevance network, the code-faithful shaping and a PBRS option, on a TQC/SAC backbone (:class:`MVR`).

Names load on first access (PEP 562), so ``import iclr26sci.rl`` imports neither torch nor trl.
"""
from __future__ import annotations

from iclr26sci.core._lazy import lazy_loader

#: public name -> the private module that defines it
_WHERE = {
    "rs_advantage": "rs_grpo", "grpo_advantage": "rs_grpo", "dr_grpo_advantage": "rs_grpo",
    "pkpo_advantage": "rs_grpo", "passk_training_advantage": "rs_grpo", "group_advantage": "rs_grpo",
    "ADVANTAGES": "rs_grpo", "binary_rs_weight": "rs_grpo", "pass_at_k": "rs_grpo",
    "verl_rs_advantage": "rs_grpo", "optimal_arm_rate": "rs_grpo", "bandit_rewards": "rs_grpo",
    "bandit_experiment": "rs_grpo", "BanditResult": "rs_grpo", "linear_softmax_toy": "rs_grpo",
    "ToyResult": "rs_grpo", "RSGRPOTrainer": "_trl",
    "ArithmeticTask": "tasks", "grade_answer": "tasks",
    # MVR (iclr26sci.rl.mvr)
    "MVR": "mvr", "MVRShaper": "mvr", "StateRelevance": "mvr", "mvr_shaping": "mvr", "mvr_potential": "mvr",
    "pbrs_shaping": "mvr", "soft_preference_labels": "mvr", "view_averaged_score": "mvr",
    "make_multiview_env": "mvr", "MultiViewEnv": "mvr", "MultiViewClip": "mvr", "CAMERAS": "mvr",
    "VideoTextScorer": "mvr", "DemoPrototypeScorer": "mvr", "MotionDescriptorScorer": "mvr",
    "OscillatorEnv": "mvr", "oscillation_amplitude": "mvr", "gridworld_optimal_policy": "mvr",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_loader(__name__, _WHERE)
