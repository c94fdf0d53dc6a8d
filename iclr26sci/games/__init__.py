"""Polymatrix games, exact equilibria, and differentially private equilibrium finding.

Implements arXiv:2503.09538 (Liu, Farina & Ozdaglar, ICLR 2026): the game
model and Nash-gap metrics, exact reference solvers (the zero-sum LP and
Lemke's method), the DP distributed algorithm (a labelled reconstruction,
DP-DARP), exact Gaussian-DP accounting, the expected-utility gap by Monte
Carlo, and the two hardness witnesses.
"""
from ._dp import (
    DPResult,
    ExpectedGap,
    cce_gap,
    darp_dynamics,
    dp_accounting,
    dp_equilibrium,
    expected_nash_gap,
    regularization,
)
from ._exact import EquilibriumResult, lemke_equilibrium, solve_equilibrium
from ._game import CITATION, PolymatrixGame
from ._hardness import (
    HardnessWitness,
    all_channels_lower_bound,
    distance_lower_bound,
    dominant_flip_witness,
)

__all__ = [
    "PolymatrixGame", "solve_equilibrium", "EquilibriumResult", "lemke_equilibrium",
    "dp_equilibrium", "DPResult", "dp_accounting", "darp_dynamics", "regularization",
    "expected_nash_gap", "ExpectedGap", "cce_gap",
    "dominant_flip_witness", "HardnessWitness", "distance_lower_bound", "all_channels_lower_bound",
    "CITATION",
]
