import cvxpy as cp
import numpy as np
import pytest
from scipy import sparse

from iclr26sci.core import InputError
from iclr26sci.optim import SolverError, linprog, solve


def test_solve_lp_and_qp():
    x = cp.Variable(2)
    assert solve(cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1])) == pytest.approx(2.0)
    y = cp.Variable(2)
    val = solve(cp.Problem(cp.Minimize(cp.sum_squares(y - np.array([1.0, 2.0]))), [y <= 1]))
    assert val == pytest.approx(1.0, abs=1e-6)


def test_solve_reports_infeasible_and_unbounded():
    x = cp.Variable()
    with pytest.raises(SolverError, match="infeasible"):
        solve(cp.Problem(cp.Minimize(x), [x >= 1, x <= 0]))
    with pytest.raises(SolverError, match="unbounded"):
        solve(cp.Problem(cp.Minimize(x), []), solver="CLARABEL")
    with pytest.raises(InputError, match="problem"):
        solve("not a problem")


def test_linprog_dense_sparse_and_errors():
    c = [1.0, 2.0]
    r = linprog(c, A_eq=[[1, 1]], b_eq=[1])
    np.testing.assert_allclose(r.x, [1, 0], atol=1e-9)
    r2 = linprog(c, A_eq=sparse.csr_matrix([[1.0, 1.0]]), b_eq=[1])
    assert r2.fun == pytest.approx(1.0)
    assert "eqlin" in r2.duals
    with pytest.raises(SolverError, match="infeasible"):
        linprog(c, A_ub=[[1, 1]], b_ub=[-1])
    with pytest.raises(SolverError, match="unbounded"):
        linprog([-1.0], bounds=(0, None))
    with pytest.raises(InputError, match="A_eq"):
        linprog(c, A_eq=[[1, 1, 1]], b_eq=[1])
    with pytest.raises(InputError, match="A_ub"):
        linprog(c, A_ub=[[1, 1]])
