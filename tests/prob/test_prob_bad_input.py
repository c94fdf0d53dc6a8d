"""Bad input to every public name of iclr26sci.prob and iclr26sci.optim; results' repr/summary/to_dict;
the HiGHS banner never reaches stdout."""
import json
import subprocess
import sys

import cvxpy as cp
import numpy as np
import pytest

from iclr26sci.core import InputError
from iclr26sci.optim import LPResult, linprog, quiet_highs, solve
from iclr26sci.prob import (
    DiagonalGaussian,
    DiscreteLaw,
    GaussianAccountant,
    binomial_band,
    gaussian_sigma,
    gdp_compose,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
    gdp_mu_gaussian,
    pinball_loss,
    truncated_normal_moments,
    wasserstein_distance,
    weighted_quantile,
    zcdp_epsilon,
)

BAD_INPUT_EXEMPT = {
    "optim.SolverError": "an exception type raised by solve/linprog; its arguments are free text",
    "optim.quiet_highs": "takes no arguments; returns a silent highspy.Highs()",
}

NAN, INF = float("nan"), float("inf")


def _raises(arg, f, *a, **k):
    with pytest.raises(InputError, match=f"`{arg}`"):
        f(*a, **k)


@pytest.mark.bad_input("prob.binomial_band")
def test_binomial_band_bad():
    _raises("nominal", binomial_band, 1.5, 10)
    _raises("nominal", binomial_band, NAN, 10)
    _raises("n", binomial_band, 0.9, 0)
    _raises("n", binomial_band, 0.9, 10.0)
    _raises("false_alarm", binomial_band, 0.9, 10, 0.0)


@pytest.mark.bad_input("prob.gdp_mu_gaussian", "prob.gdp_compose", "prob.gdp_delta", "prob.gdp_epsilon",
                       "prob.gdp_mu", "prob.gaussian_sigma", "prob.zcdp_epsilon")
def test_gdp_functions_bad():
    _raises("sensitivity", gdp_mu_gaussian, -1.0, 1.0)
    _raises("sigma", gdp_mu_gaussian, 1.0, 0.0)
    _raises("sigma", gdp_mu_gaussian, 1.0, "1")
    _raises("mus", gdp_compose, [-1.0])
    _raises("mus", gdp_compose, [NAN])
    _raises("mus", gdp_compose, [[1.0], [1.0, 2.0]])
    _raises("mus", gdp_compose, [[1.0, 2.0]])
    _raises("mu", gdp_delta, -1.0, 1.0)
    _raises("epsilon", gdp_delta, 1.0, -0.1)
    _raises("epsilon", gdp_delta, 1.0, INF)
    _raises("delta", gdp_epsilon, 1.0, 0.0)
    _raises("delta", gdp_epsilon, 1.0, 1.0)
    _raises("mu", gdp_epsilon, NAN, 1e-5)
    _raises("epsilon", gdp_mu, -1.0, 1e-5)
    _raises("delta", gdp_mu, 1.0, 2.0)
    _raises("compositions", gaussian_sigma, 1.0, 1e-5, 1.0, 0)
    _raises("sensitivity", gaussian_sigma, 1.0, 1e-5, 0.0)
    _raises("rho", zcdp_epsilon, -1.0, 1e-5)
    _raises("delta", zcdp_epsilon, 1.0, 0.0)
    assert gdp_compose([]) == 0.0 and gdp_compose([1e300, 1e300]) == pytest.approx(np.sqrt(2) * 1e300)


@pytest.mark.bad_input("prob.GaussianAccountant")
def test_accountant_bad_and_result_api():
    acc = GaussianAccountant()
    _raises("sigma", acc.add, 1.0, 0.0)
    _raises("count", acc.add, 1.0, 1.0, -1)
    _raises("count", acc.add, 1.0, 1.0, 1.5)
    _raises("mu", acc.add_mu, -1.0)
    _raises("delta", acc.epsilon, 0.0)
    _raises("epsilon", acc.delta, -1.0)
    _raises("delta", acc.epsilon_zcdp, 1.5)
    acc.add(1.0, 2.0, count=4)
    _raises("mu", acc.add_mu, 1e200, 10)       # mu^2 overflows: refused, state unchanged
    assert acc.mu == pytest.approx(1.0)
    assert repr(acc) == "GaussianAccountant(releases=4, mu=1)"
    assert "tight GDP" in acc.summary()
    json.dumps(acc.to_dict())


@pytest.mark.bad_input("prob.pinball_loss", "prob.weighted_quantile", "prob.truncated_normal_moments")
def test_quantile_functions_bad():
    _raises("tau", pinball_loss, [1.0], [1.0], 0.0)
    _raises("tau", pinball_loss, [1.0], [1.0], "0.5")
    _raises("y", pinball_loss, [], [], 0.5)
    _raises("y", pinball_loss, [NAN], [1.0], 0.5)
    _raises("q", pinball_loss, [1.0, 2.0], [1.0, 2.0, 3.0], 0.5)
    _raises("reduce", pinball_loss, [1.0], [1.0], 0.5, reduce="median")
    _raises("x", weighted_quantile, [], 0.5)
    _raises("tau", weighted_quantile, [1.0], 1.5)
    _raises("tau", weighted_quantile, [1.0], NAN)
    _raises("weights", weighted_quantile, [1.0, 2.0], 0.5, [0.0, 0.0])
    _raises("weights", weighted_quantile, [1.0, 2.0], 0.5, [-1.0, 2.0])
    _raises("weights", weighted_quantile, [1.0, 2.0], 0.5, [1.0])
    _raises("mu", truncated_normal_moments, NAN, 1.0)
    _raises("sigma", truncated_normal_moments, 0.0, 0.0)
    _raises("sigma", truncated_normal_moments, 0.0, INF)
    _raises("lower", truncated_normal_moments, 0.0, 1.0, NAN)
    _raises("upper", truncated_normal_moments, 0.0, 1.0, 1.0, 0.0)
    m, v = truncated_normal_moments(0.0, 1.0, -INF, INF)
    assert (m, v) == (0.0, 1.0)


@pytest.mark.bad_input("prob.wasserstein_distance")
def test_wasserstein_bad():
    _raises("u_values", wasserstein_distance, [], [1.0])
    _raises("v_values", wasserstein_distance, [1.0], [NAN])
    _raises("u_weights", wasserstein_distance, [1.0, 2.0], [1.0], [1.0])
    _raises("u_weights", wasserstein_distance, [1.0, 2.0], [1.0], [-1.0, 2.0])
    _raises("v_weights", wasserstein_distance, [1.0], [1.0, 2.0], None, [0.0, 0.0])
    _raises("p", wasserstein_distance, [1.0], [2.0], p=0.5)
    _raises("p", wasserstein_distance, [1.0], [2.0], p=NAN)
    _raises("u_values", wasserstein_distance, [[1.0]], [2.0])
    _raises("u_values", wasserstein_distance, [-1e308], [1e308])
    _raises("u_values", wasserstein_distance, [1.7e308], [0.0])
    # scale-invariance of the rescaled computation
    x, y = np.array([0.0, 1.0, 4.0]), np.array([2.0, 3.0])
    for p in (1, 2, 3):
        assert wasserstein_distance(1e150 * x, 1e150 * y, p=p) == pytest.approx(1e150 * wasserstein_distance(x, y, p=p))


@pytest.mark.bad_input("prob.DiscreteLaw")
def test_discrete_law_bad_and_result_api():
    _raises("support", DiscreteLaw, [])
    _raises("support", DiscreteLaw, [NAN])
    _raises("support", DiscreteLaw, [[1.0, 2.0]])
    _raises("weights", DiscreteLaw, [1.0, 2.0], [0.5])
    _raises("weights", DiscreteLaw, [1.0, 2.0], [0.0, 0.0])
    _raises("x", DiscreteLaw.point, NAN)
    _raises("x", DiscreteLaw.point, "a")
    law = DiscreteLaw([0.0, 1.0, 3.0], [0.2, 0.5, 0.3])
    _raises("x", law.cdf, NAN)
    _raises("x", law.cdf, "a")
    _raises("q", law.quantile, 1.5)
    _raises("q", law.quantile, "a")
    _raises("alpha", law.cvar, 0.0)
    _raises("tail", law.cvar, 0.5, "middle")
    _raises("other", law.wasserstein, [1.0])
    _raises("p", law.wasserstein, law, 0.0)
    _raises("n", law.sample, -1)
    _raises("rng", law.sample, 3, "seed")
    _raises("support", DiscreteLaw([-1e200, 1e200]).var)
    assert DiscreteLaw([-1e200, 1e200]).std() == pytest.approx(1e200)
    assert law.cdf(np.inf) == 1.0 and law.cdf(-np.inf) == 0.0
    big = DiscreteLaw(np.arange(10_000.0))
    assert len(repr(big)) < 80 and "10000 atoms" in big.summary()
    json.dumps(law.to_dict())


@pytest.mark.bad_input("prob.DiagonalGaussian")
def test_diagonal_gaussian_bad_and_result_api():
    _raises("mean", DiagonalGaussian, 1.0, 1.0)
    _raises("mean", DiagonalGaussian, np.zeros((2, 0)), 1.0)
    _raises("mean", DiagonalGaussian, [[NAN, 1.0]], 1.0)
    _raises("var", DiagonalGaussian, np.zeros((2, 3)), -1.0)
    _raises("var", DiagonalGaussian, np.zeros((2, 3)), np.ones((2, 2)))
    _raises("var", DiagonalGaussian, np.zeros((2, 3)), INF)
    g = DiagonalGaussian(np.zeros((2, 3)), 1.0)
    _raises("other", g.expected_dot, np.zeros((2, 3)))
    _raises("other", g.expected_dot, DiagonalGaussian(np.zeros((2, 4)), 1.0))
    _raises("other", g.dot_variance, DiagonalGaussian(np.zeros((3, 3)), 1.0))
    # second moments must be finite: a mean whose squares overflow is refused at construction (audit prob.112)
    _raises("mean", DiagonalGaussian, np.full((1, 2), 1e200), 1.0)
    _raises("var", DiagonalGaussian, np.zeros((1, 2)), 1e308)
    big_ok = DiagonalGaussian(np.full((1, 2), 1e150), 1.0)  # squared norms finite: so is every dot (Cauchy-Schwarz)
    assert np.isfinite(big_ok.expected_dot(big_ok)).all()
    _raises("n", g.sample, 0)
    _raises("idx", g.__getitem__, 5)
    _raises("members", DiagonalGaussian.weighted_sum, [], [1.0])
    _raises("members", DiagonalGaussian.weighted_sum, [g, DiagonalGaussian(np.zeros((3, 3)), 1.0)], [1.0, 1.0])
    _raises("weights", DiagonalGaussian.weighted_sum, [g, g], [1.0])
    _raises("weights", DiagonalGaussian.weighted_sum, [g, g], [NAN, 1.0])
    big = DiagonalGaussian(np.zeros((1000, 384)), 0.5)
    assert repr(big) == "DiagonalGaussian(n=1000, dim=384, mean_var=0.5)"
    assert "1000 embedding" in big.summary()
    assert DiagonalGaussian(np.zeros((2, 3)), 1.0).to_dict()["shape"] == [2, 3]
    assert big == big[0:1000] and big != DiagonalGaussian(np.ones((1000, 384)), 0.5)


@pytest.mark.bad_input("optim.linprog", "optim.LPResult")
def test_linprog_bad_and_result_api():
    _raises("c", linprog, [])
    _raises("c", linprog, [[1.0, 2.0], [3.0, 4.0]])
    _raises("c", linprog, [1e25])
    _raises("A_ub", linprog, [1.0, 1.0], A_ub=[[1.0, 1.0, 1.0]], b_ub=[1.0])
    _raises("A_ub", linprog, [1.0, 1.0], A_ub=[[1.0, 1.0]])  # the argument given without its partner
    _raises("b_eq", linprog, [1.0, 1.0], b_eq=[1.0])
    _raises("b_eq", linprog, [1.0, 1.0], A_eq=[[1.0, 1.0]], b_eq=[1.0, 2.0])
    _raises("bounds", linprog, [1.0], bounds=(0, NAN))
    _raises("bounds", linprog, [1.0], bounds=("a", 1))
    _raises("bounds", linprog, [1.0, 1.0], bounds=np.array([[0.0, 1.0], [2.0, 1.0]]))
    _raises("options", linprog, [1.0], options={"presolv": True})
    res = linprog([1.0, 2.0], A_eq=[[1.0, 1.0]], b_eq=[1.0], bounds=np.array([[0.0, np.inf]] * 2))
    assert res.x.tolist() == [1.0, 0.0]
    assert linprog([1.0], bounds=None).fun == 0.0          # scipy's meaning: x >= 0
    assert len(repr(linprog(np.ones(5000)))) < 80
    assert "optimal" in res.summary()
    json.dumps(res.to_dict())
    assert res == linprog([1.0, 2.0], A_eq=[[1.0, 1.0]], b_eq=[1.0]) and res != linprog([1.0, 2.0])
    _raises("fun", LPResult, np.zeros(2), NAN, "optimal", "", {})
    _raises("x", LPResult, [[NAN]], 1.0, "optimal", "", {})
    _raises("duals", LPResult, np.zeros(2), 1.0, "optimal", "", [])


@pytest.mark.bad_input("optim.solve")
def test_solve_bad():
    x = cp.Variable()
    prob = cp.Problem(cp.Minimize(x), [x >= 1])
    _raises("problem", solve, "not a problem")
    _raises("accept_inaccurate", solve, prob, accept_inaccurate=1)
    _raises("solver", solve, prob, solver="GUROBI_NOT_HERE")
    _raises("verbose", solve, prob, verbose="yes")
    _raises("kwargs", solve, prob, solver="HIGHS", nonsense_option=1)
    _raises("problem", solve, cp.Problem(cp.Minimize(x), [x >= np.array([np.inf])]))
    _raises("problem", solve, cp.Problem(cp.Maximize(cp.square(x)), [x >= 1]))
    _raises("nonsense", solve, cp.Problem(cp.Minimize(cp.square(x)), [x >= 1]), solver="CLARABEL", nonsense=1)
    import scipy.sparse as sps

    y = cp.Variable(2)
    _raises("problem", solve, cp.Problem(cp.Minimize(cp.sum(sps.csr_matrix(np.array([[np.nan, 1.0]])) @ y)), [y >= 0]))
    assert solve(prob, solver="highs") == pytest.approx(1.0)   # solver names are case-insensitive, like cvxpy's
    # a quasiconvex problem is accepted with qcp=True (cvxpy's DQCP), refused without
    z = cp.Variable(pos=True)
    qp = cp.Problem(cp.Minimize(cp.ceil(z)), [z >= 0.5])
    _raises("problem", solve, qp)
    assert solve(qp, qcp=True, solver="CLARABEL") == pytest.approx(1.0, abs=1e-6)


def test_highs_prints_nothing_in_process(capfd):
    x = cp.Variable(2)
    solve(cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1]))
    linprog([1.0, 1.0])
    h = quiet_highs()
    assert h.getOptionValue("output_flag")[1] is False
    out = capfd.readouterr()
    assert out.out == "" and "HiGHS" not in out.err


def test_highs_banner_absent_in_a_fresh_process():
    """The banner is printed once per process (first solver constructed), so only a fresh interpreter shows it."""
    code = ("import cvxpy as cp\nfrom iclr26sci.optim import solve, linprog\nx = cp.Variable()\n"
            "v = solve(cp.Problem(cp.Minimize(x), [x >= 1]))\ny = cp.Variable(integer=True)\n"
            "w = solve(cp.Problem(cp.Minimize(y), [y >= 1.5]))\nr = linprog([1.0, 2.0], A_eq=[[1.0, 1.0]], b_eq=[1.0])\n"
            "print('RESULT', v, w, r.fun)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout == "RESULT 1.0 2.0 1.0\n", r.stdout
