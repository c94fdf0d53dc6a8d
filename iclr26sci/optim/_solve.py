"""LP/QP solving with clear errors: cvxpy problems (HiGHS, Clarabel) and plain LPs (scipy HiGHS)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import InputError

__all__ = ["SolverError", "solve", "linprog", "LPResult"]


class SolverError(RuntimeError):
    """The optimiser did not return an optimal solution (infeasible, unbounded, inaccurate, failed)."""

    def __init__(self, status: str, message: str, solver: str | None = None):
        self.status = status
        self.solver = solver
        super().__init__(f"{solver or 'solver'} returned status '{status}': {message}")


_HINTS = {
    "infeasible": "the constraints admit no point; check the data that builds them (e.g. probabilities that "
                  "cannot sum to 1, or bounds with lower > upper)",
    "unbounded": "the objective can improve without limit; a bound or normalisation constraint is missing",
    "infeasible_inaccurate": "the solver suspects infeasibility but could not certify it; rescale the data",
    "unbounded_inaccurate": "the solver suspects unboundedness but could not certify it; rescale the data",
    "optimal_inaccurate": "the solution is not accurate to the requested tolerance; rescale the data or "
                          "pass accept_inaccurate=True",
}


def solve(problem, solver: str | None = None, *, accept_inaccurate: bool = False, **kwargs) -> float:
    """Solve a cvxpy ``Problem`` and return its optimal value.

    Parameters
    ----------
    problem : cvxpy.Problem
    solver : {"HIGHS", "CLARABEL", None, ...}
        ``None`` picks HiGHS for problems that are LPs / MILPs and Clarabel
        otherwise.
    accept_inaccurate : bool
        Treat ``optimal_inaccurate`` as success.

    Raises
    ------
    SolverError
        When the status is not optimal, with the cause in words.
    """
    import cvxpy as cp

    if not isinstance(problem, cp.Problem):
        raise InputError("problem", f"got {type(problem).__name__}", "a cvxpy.Problem")
    if solver is None:
        linear = (cp.constraints.Zero, cp.constraints.NonPos, cp.constraints.NonNeg,
                  cp.constraints.Inequality, cp.constraints.Equality)
        is_lp = problem.objective.args[0].is_affine() and all(
            isinstance(c, linear) and all(a.is_affine() for a in c.args) for c in problem.constraints)
        solver = "HIGHS" if is_lp else "CLARABEL"
    try:
        problem.solve(solver=solver, **kwargs)
    except cp.error.SolverError as exc:
        raise SolverError("solver_error", str(exc), solver) from exc
    status = problem.status
    if status == cp.OPTIMAL or (accept_inaccurate and status == cp.OPTIMAL_INACCURATE):
        return float(problem.value)
    raise SolverError(status, _HINTS.get(status, "no solution was returned"), solver)


@dataclass(frozen=True)
class LPResult:
    """Solution of :func:`linprog`: primal ``x``, objective ``fun`` and the duals when available."""

    x: np.ndarray
    fun: float
    status: str
    message: str
    duals: dict


def linprog(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(0, None), *, options=None) -> LPResult:
    r"""Solve :math:`\min c^\top x` s.t. :math:`A_{ub}x\le b_{ub}`, :math:`A_{eq}x=b_{eq}`, bounds, with HiGHS.

    Dense arrays or scipy sparse matrices are accepted. Raises
    :class:`SolverError` unless the LP is solved to optimality.
    """
    from scipy.optimize import linprog as _lp
    from scipy import sparse

    c = np.asarray(c, dtype=float).ravel()
    if c.size == 0 or not np.all(np.isfinite(c)):
        raise InputError("c", "is empty or not finite", "a finite cost vector")
    if A_ub is not None and not sparse.issparse(A_ub):
        A_ub = np.atleast_2d(np.asarray(A_ub, dtype=float))
    if A_eq is not None and not sparse.issparse(A_eq):
        A_eq = np.atleast_2d(np.asarray(A_eq, dtype=float))
    for name, A, b in (("A_ub", A_ub, b_ub), ("A_eq", A_eq, b_eq)):
        if (A is None) != (b is None):
            raise InputError(name, "was given without its right-hand side (or vice versa)", "both or neither")
        if A is not None:
            shape = A.shape
            if len(shape) != 2 or shape[1] != c.size:
                raise InputError(name, f"has shape {shape}", f"(m, {c.size})")
            if np.asarray(b).ravel().size != shape[0]:
                raise InputError("b" + name[1:], f"has {np.asarray(b).size} entries for {shape[0]} rows",
                                 "one per row")
    res = _lp(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs",
              options=options or {})
    names = {0: "optimal", 1: "iteration_limit", 2: "infeasible", 3: "unbounded", 4: "numerical_difficulties"}
    status = names.get(res.status, str(res.status))
    if res.status != 0:
        raise SolverError(status, _HINTS.get(status, res.message), "HiGHS")
    duals = {}
    for key in ("eqlin", "ineqlin", "lower", "upper"):
        part = getattr(res, key, None)
        if part is not None and getattr(part, "marginals", None) is not None:
            duals[key] = np.asarray(part.marginals)
    return LPResult(x=np.asarray(res.x), fun=float(res.fun), status=status, message=res.message, duals=duals)
