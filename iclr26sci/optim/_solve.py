"""LP/QP solving with clear errors: cvxpy problems (HiGHS, Clarabel) and plain LPs (scipy HiGHS).

Nothing is printed: cvxpy runs with ``verbose=False`` and the banner that the
HiGHS C++ library writes to file descriptor 1 the first time a solver is
constructed in a process is swallowed (:func:`quiet_highs`).
"""
from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from numbers import Real

import numpy as np

from ..core import InputError, check_array, check_bool

__all__ = ["SolverError", "solve", "linprog", "LPResult", "quiet_highs"]

#: HiGHS treats costs of this magnitude or more as infinite (its ``infinite_cost`` option)
_HIGHS_INFINITE_COST = 1e20
_BANNER_DONE = False


class SolverError(RuntimeError):
    """The optimiser did not return an optimal solution (infeasible, unbounded, inaccurate, failed).

    Parameters
    ----------
    status : str
        The solver's status in words (``"infeasible"``, ``"unbounded"``, ...).
    message : str
        What it means and what to check.
    solver : str, optional
        The solver's name.

    Examples
    --------
    >>> str(SolverError("infeasible", "the constraints admit no point", "HiGHS"))
    "HiGHS returned status 'infeasible': the constraints admit no point"
    """

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


def _swallow_fd1(make):
    """Call ``make()`` with the process's file descriptor 1 pointed at /dev/null (C-level prints vanish)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):  # pragma: no cover - a closed or odd stdout
        pass
    try:
        saved = os.dup(1)
    except OSError:  # pragma: no cover - no fd 1
        return make()
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            try:
                return make()
            finally:
                os.dup2(saved, 1)
    finally:
        os.close(saved)


def quiet_highs():
    """A ``highspy.Highs()`` solver with its output off and without the start-up banner.

    HiGHS prints "Running HiGHS ... Copyright ..." from C++ to file descriptor 1 when the first
    solver of a process is constructed (``output_flag=False`` comes too late for that line, and
    Python's ``redirect_stdout`` cannot catch it). This constructs it with fd 1 pointed at
    /dev/null, then sets ``output_flag=False``. Use it wherever code calls highspy directly.

    Returns
    -------
    highspy.Highs

    Examples
    --------
    >>> h = quiet_highs()
    >>> h.getOptionValue("output_flag")[1]
    False
    """
    import highspy

    global _BANNER_DONE
    h = _swallow_fd1(highspy.Highs)
    _BANNER_DONE = True
    h.setOptionValue("output_flag", False)
    return h


def _prime_highs_banner():
    # cvxpy constructs its own highspy.Highs(); swallowing the once-per-process banner first keeps it silent
    global _BANNER_DONE
    if not _BANNER_DONE:
        try:
            quiet_highs()
        except ImportError:  # pragma: no cover - highspy absent: cvxpy will say so
            _BANNER_DONE = True


#: keywords of cvxpy's Problem.solve itself (the others go to the solver as its options)
_CVXPY_SOLVE_KW = {"verbose", "warm_start", "gp", "qcp", "requires_grad", "enforce_dpp", "ignore_dpp",
                   "canon_backend", "solver_path", "bounds", "max_iters"}


def solve(problem, solver: str | None = None, *, accept_inaccurate: bool = False, **kwargs) -> float:
    """Solve a cvxpy ``Problem`` quietly and return its optimal value.

    Parameters
    ----------
    problem : cvxpy.Problem
        A disciplined-convex (DCP) problem; its variables hold the solution afterwards.
    solver : {"HIGHS", "CLARABEL", None, ...}
        Name of an installed cvxpy solver. ``None`` picks HiGHS for LPs and
        MILPs and Clarabel otherwise.
    accept_inaccurate : bool, default False
        Treat the status ``optimal_inaccurate`` as success (a real bool).
    **kwargs
        Passed to ``problem.solve``: cvxpy's own keywords or the solver's
        options (for HiGHS, checked against its option names first).

    Returns
    -------
    float
        The optimal objective value.

    Raises
    ------
    InputError
        When ``problem`` is not a DCP cvxpy problem, holds NaN/inf data, or
        ``solver`` / an option is unknown.
    SolverError
        When the status is not optimal, with the cause in words.

    Examples
    --------
    >>> import cvxpy as cp
    >>> x = cp.Variable(2)
    >>> solve(cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1]))
    2.0
    >>> round(solve(cp.Problem(cp.Minimize(cp.sum_squares(x - 3)), [x <= 1])), 6)
    8.0
    """
    import cvxpy as cp

    if not isinstance(problem, cp.Problem):
        raise InputError("problem", f"got {type(problem).__name__}", "a cvxpy.Problem")
    accept_inaccurate = check_bool(accept_inaccurate, "accept_inaccurate")
    installed = cp.installed_solvers()
    if solver is not None and (not isinstance(solver, str) or solver.upper() not in installed):
        raise InputError("solver", f"got {solver!r}", "None or one of the installed cvxpy solvers: "
                         + ", ".join(installed))
    if solver is not None:
        solver = solver.upper()
    if "verbose" in kwargs:
        kwargs["verbose"] = check_bool(kwargs["verbose"], "verbose")
    try:
        dcp = problem.is_dcp() or (kwargs.get("qcp") is True and problem.is_dqcp()) or \
            (kwargs.get("gp") is True and problem.is_dgp())
    except Exception:  # noqa: BLE001 - is_dcp itself failing means the problem is malformed
        dcp = False
    if not dcp:
        raise InputError("problem", "does not follow the DCP rules (it is not recognisably convex)",
                         "a convex problem built from cvxpy atoms (see cvxpy's DCP rules)")
    for c in problem.parameters() + problem.constants():
        val = c.value
        if val is None:
            continue
        arr = np.asarray(val.data) if hasattr(val, "toarray") else np.asarray(val)   # sparse: its stored entries
        if np.issubdtype(arr.dtype, np.number) and not np.all(np.isfinite(arr)):
            raise InputError("problem", "contains NaN or infinite data", "finite constants and parameter values")
    if solver is None:
        linear = (cp.constraints.Zero, cp.constraints.NonPos, cp.constraints.NonNeg,
                  cp.constraints.Inequality, cp.constraints.Equality)
        is_lp = problem.objective.args[0].is_affine() and all(
            isinstance(c, linear) and all(a.is_affine() for a in c.args) for c in problem.constraints)
        solver = "HIGHS" if is_lp else "CLARABEL"
    if solver == "HIGHS":
        opts = [k for k in kwargs if k not in _CVXPY_SOLVE_KW]
        if opts:
            h = quiet_highs()
            for k in opts:
                if int(h.getOptionValue(k)[0]) != 0:   # HighsStatus.kOk == 0; output is off, nothing printed
                    raise InputError("kwargs", f"has {k!r}, which is not a HiGHS option",
                                     "HiGHS option names (see the HiGHS docs) or cvxpy solve() keywords")
        _prime_highs_banner()
    kwargs.setdefault("verbose", False)
    try:
        problem.solve(solver=solver, **kwargs)
    except cp.error.SolverError as exc:
        raise SolverError("solver_error", str(exc), solver) from exc
    except (TypeError, ValueError) as exc:
        if kwargs.keys() - {"verbose"}:
            raise InputError(sorted(kwargs.keys() - {"verbose"})[0], f"was rejected by {solver}: {exc}",
                             f"options that {solver} accepts") from exc
        raise
    status = problem.status
    if status == cp.OPTIMAL or (accept_inaccurate and status == cp.OPTIMAL_INACCURATE):
        return float(problem.value)
    raise SolverError(status, _HINTS.get(status, "no solution was returned"), solver)


@dataclass(frozen=True)
class LPResult:
    """Solution of :func:`linprog`: primal ``x``, objective ``fun`` and the duals when available.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Optimal primal point.
    fun : float
        Optimal objective value :math:`c^\\top x`.
    status : str
        ``"optimal"`` (other statuses raise :class:`SolverError`).
    message : str
        The solver's own message.
    duals : dict
        Dual values (marginals) by constraint block: ``"eqlin"``, ``"ineqlin"``, ``"lower"``, ``"upper"``.

    Examples
    --------
    >>> res = linprog([1.0, 2.0], A_eq=[[1.0, 1.0]], b_eq=[1.0])
    >>> res
    LPResult(status='optimal', fun=1, n_variables=2)
    >>> res.to_dict()["x"]
    [1.0, 0.0]
    """

    x: np.ndarray
    fun: float
    status: str
    message: str
    duals: dict = field(default_factory=dict)

    def __post_init__(self):
        x = check_array(self.x, "x", ndim=1)
        if isinstance(self.fun, bool) or not isinstance(self.fun, (Real, np.floating, np.integer)) \
                or not math.isfinite(float(self.fun)):
            raise InputError("fun", f"got {self.fun!r}", "a finite objective value")
        if not isinstance(self.status, str) or not isinstance(self.message, str):
            raise InputError("status", "or message is not a string", "strings")
        if not isinstance(self.duals, dict):
            raise InputError("duals", f"got {type(self.duals).__name__}", "a dict of dual arrays")
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "fun", float(self.fun))

    def __eq__(self, other) -> bool:
        """Same solution, objective and status (arrays compared elementwise)."""
        if not isinstance(other, LPResult):
            return NotImplemented
        return bool(np.array_equal(self.x, other.x) and self.fun == other.fun and self.status == other.status
                    and self.duals.keys() == other.duals.keys()
                    and all(np.array_equal(self.duals[k], other.duals[k]) for k in self.duals))

    def __repr__(self) -> str:
        return f"LPResult(status={self.status!r}, fun={self.fun:.6g}, n_variables={self.x.size})"

    def summary(self) -> str:
        """A few lines: status, objective, number of variables and of non-zeros, dual blocks."""
        nz = int(np.count_nonzero(np.abs(self.x) > 1e-12))
        blocks = ", ".join(f"{k} ({np.asarray(v).size})" for k, v in self.duals.items()) or "none"
        return (f"LP {self.status}: objective {self.fun:.10g}\n"
                f"  {self.x.size} variables, {nz} non-zero at the optimum\n"
                f"  duals: {blocks}\n  solver: {self.message}")

    def to_dict(self) -> dict:
        """Plain-dict form (JSON-serialisable): ``x`` and the duals as lists."""
        return {"status": self.status, "fun": self.fun, "x": self.x.tolist(), "message": self.message,
                "duals": {k: np.asarray(v).tolist() for k, v in self.duals.items()}}


def _linprog_option_names():
    try:
        import inspect

        from scipy.optimize import _linprog_highs

        names = set(inspect.signature(_linprog_highs._linprog_highs).parameters) - {"lp", "solver", "unknown_options"}
        return names or None
    except Exception:  # noqa: BLE001 - private scipy layout changed: fall back to scipy's own warning
        return None


def _check_bounds(bounds, n):
    def num(v, where):
        if v is None:
            return None
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (Real, np.floating, np.integer)) or math.isnan(float(v)):
            raise InputError("bounds", f"has {v!r} at {where}", "numbers or None (None = unbounded)")
        return float(v)

    if bounds is None:  # scipy's meaning: the default non-negativity bounds
        return [(0.0, None)] * n
    if isinstance(bounds, np.ndarray) and bounds.dtype.kind in "iuf":  # fast path for large LPs
        if bounds.shape not in ((2,), (n, 2)):
            raise InputError("bounds", f"is an array of shape {bounds.shape}", f"shape (2,) or ({n}, 2)")
        b2 = np.broadcast_to(bounds, (n, 2))
        if np.any(np.isnan(b2)):
            raise InputError("bounds", "contains NaN", "numbers (+-inf for unbounded)")
        bad = np.flatnonzero(b2[:, 0] > b2[:, 1])
        if bad.size:
            i = int(bad[0])
            raise InputError("bounds", f"has low {b2[i, 0]:g} > high {b2[i, 1]:g} for variable {i}", "low <= high")
        return b2
    if isinstance(bounds, (str, bytes)) or not hasattr(bounds, "__len__"):
        raise InputError("bounds", f"got {bounds!r}", "a (low, high) pair or a sequence of n pairs")
    arr = list(bounds)
    if len(arr) == 2 and not any(hasattr(b, "__len__") and not isinstance(b, str) for b in arr):
        pairs = [tuple(arr)] * n
    else:
        if len(arr) != n:
            raise InputError("bounds", f"has {len(arr)} pairs for {n} variables", "one (low, high) pair per variable")
        pairs = []
        for i, b in enumerate(arr):
            if isinstance(b, (str, bytes)) or not hasattr(b, "__len__") or len(b) != 2:
                raise InputError("bounds", f"entry {i} is {b!r}", "a (low, high) pair")
            pairs.append(tuple(b))
    out = []
    for i, (lo, hi) in enumerate(pairs):
        lo, hi = num(lo, f"variable {i} (low)"), num(hi, f"variable {i} (high)")
        if lo is not None and hi is not None and lo > hi:
            raise InputError("bounds", f"has low {lo:g} > high {hi:g} for variable {i}", "low <= high")
        out.append((lo, hi))
    return out


def linprog(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(0, None), *, options=None) -> LPResult:
    r"""Solve :math:`\min_x c^\top x` s.t. :math:`A_{ub}x\le b_{ub}`, :math:`A_{eq}x=b_{eq}`, :math:`l\le x\le u` with HiGHS.

    Dense arrays or scipy sparse matrices are accepted. Nothing is printed.

    Parameters
    ----------
    c : array of shape (n,)
        Cost of each variable (finite, :math:`|c_j| < 10^{20}`, the magnitude
        HiGHS treats as infinite).
    A_ub, b_ub : array of shape (m, n) and (m,), optional
        Inequality constraints :math:`A_{ub}x \le b_{ub}` (finite); both or neither.
    A_eq, b_eq : array of shape (p, n) and (p,), optional
        Equality constraints :math:`A_{eq}x = b_{eq}` (finite); both or neither.
    bounds : (low, high) or sequence of n pairs, default (0, None)
        Variable bounds; ``None`` is unbounded on that side.
    options : dict, optional
        HiGHS options that ``scipy.optimize.linprog(method="highs")`` knows
        (``time_limit``, ``presolve``, ``primal_feasibility_tolerance``, ...);
        unknown keys are refused.

    Returns
    -------
    LPResult

    Raises
    ------
    InputError
        For malformed or non-finite data, inconsistent shapes, bad bounds or unknown options.
    SolverError
        Unless the LP is solved to optimality (infeasible, unbounded, ...).

    Examples
    --------
    >>> res = linprog([-1.0, -2.0], A_ub=[[1.0, 1.0]], b_ub=[1.0], bounds=(0, 1))
    >>> res.x, res.fun
    (array([0., 1.]), -2.0)
    """
    from scipy import sparse
    from scipy.optimize import linprog as _lp

    c = check_array(c, "c", ndim=(1, 2))
    if c.ndim == 2 and min(c.shape) != 1:
        raise InputError("c", f"has shape {c.shape}", "a cost vector (n,)")
    c = c.ravel()
    if c.size == 0:
        raise InputError("c", "is empty", "one cost per variable")
    if np.max(np.abs(c)) >= _HIGHS_INFINITE_COST:
        raise InputError("c", f"has a cost of magnitude {np.max(np.abs(c)):.3g}",
                         f"costs below {_HIGHS_INFINITE_COST:g} (HiGHS reads larger ones as infinite); rescale c")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InputError("options", f"got {type(options).__name__}", "a dict of HiGHS options")
    known = _linprog_option_names()
    if known is not None:
        unknown = sorted(set(options) - known)
        if unknown:
            raise InputError("options", f"has unknown keys {unknown}", "keys among " + ", ".join(sorted(known)))
    mats = {}
    for name, A, bname, b in (("A_ub", A_ub, "b_ub", b_ub), ("A_eq", A_eq, "b_eq", b_eq)):
        if (A is None) != (b is None):
            given, missing = (bname, name) if A is None else (name, bname)
            raise InputError(given, f"was given without {missing} ({name} and {bname} go together)",
                             "both or neither")
        if A is None:
            mats[name], mats[bname] = None, None
            continue
        if sparse.issparse(A):
            data = np.asarray(A.data)
            if not np.issubdtype(data.dtype, np.number) or np.iscomplexobj(data):
                raise InputError(name, f"has dtype {data.dtype}", "real numbers")
            if not np.all(np.isfinite(data)):
                raise InputError(name, "contains NaN or infinite values", "finite numbers")
        else:
            A = check_array(A, name, ndim=(1, 2))
            A = np.atleast_2d(A)
        shape = A.shape
        if len(shape) != 2 or shape[1] != c.size:
            raise InputError(name, f"has shape {shape}", f"(m, {c.size}): one column per entry of c")
        bv = check_array(b, bname, ndim=(0, 1, 2)).ravel()
        if bv.size != shape[0]:
            raise InputError(bname, f"has {bv.size} entries for {shape[0]} rows", f"one per row of {name}")
        mats[name], mats[bname] = A, bv
    bnds = _check_bounds(bounds, c.size)
    res = _lp(c, A_ub=mats["A_ub"], b_ub=mats["b_ub"], A_eq=mats["A_eq"], b_eq=mats["b_eq"], bounds=bnds,
              method="highs", options=options)
    names = {0: "optimal", 1: "iteration_limit", 2: "infeasible", 3: "unbounded", 4: "numerical_difficulties"}
    status = names.get(res.status, str(res.status))
    if res.status != 0:
        raise SolverError(status, _HINTS.get(status, res.message), "HiGHS")
    if not np.isfinite(res.fun):
        raise SolverError("numerical_difficulties", f"the objective came back as {res.fun}; rescale the data", "HiGHS")
    duals = {}
    for key in ("eqlin", "ineqlin", "lower", "upper"):
        part = getattr(res, key, None)
        if part is not None and getattr(part, "marginals", None) is not None:
            duals[key] = np.asarray(part.marginals)
    return LPResult(x=np.asarray(res.x), fun=float(res.fun), status=status, message=res.message, duals=duals)
