"""Bad-input sweep cases for iclr26sci.optim (format: tests/bad_input_sweep.py)."""
from bad_input_sweep import Case
from iclr26sci.optim import linprog, solve


def _unknown_kwarg():
    import cvxpy as cp

    x = cp.Variable()
    return solve(cp.Problem(cp.Minimize(x), [x >= 1]), nonsense_option=5)


CASES = [
    Case("optim.005", "linprog", "A_ub without b_ub", lambda: linprog([1.0, 1.0], A_ub=[[1.0, 1.0]]), ("A_ub",)),
    Case("optim.005b", "linprog", "b_eq without A_eq", lambda: linprog([1.0, 1.0], b_eq=[1.0]), ("b_eq",)),
    Case("optim.024", "solve", "unknown kwarg to solver", _unknown_kwarg, ("kwargs",)),
]
