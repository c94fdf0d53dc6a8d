"""Layer 1: LP/QP solving with clear errors."""
from ._solve import LPResult, SolverError, linprog, quiet_highs, solve

__all__ = ["LPResult", "SolverError", "linprog", "quiet_highs", "solve"]
