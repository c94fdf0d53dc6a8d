"""Flow matching, ODE samplers, the Gaussian oracle, and the power of the nn_flow validation checks."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.nn import FlowMatching, GaussianFlowOracle, SampleResult, VelocityMLP, ode_sample


@pytest.fixture(scope="module")
def gauss_data():
    orc = GaussianFlowOracle(mean=[2.0, -1.0], cov=[[0.5, 0.2], [0.2, 0.4]])
    return orc, orc.sample_data(1024, rng=0)


@pytest.fixture(scope="module")
def fitted(gauss_data):
    _, X = gauss_data
    torch.manual_seed(0)
    return FlowMatching(VelocityMLP(2, hidden=(32, 32))).fit(X, epochs=10, batch_size=128, lr=3e-3, rng=0, progress=False)


@pytest.fixture(scope="module")
def fitted_cond():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 600)
    X = np.stack([y * 2.0, -y * 1.0], 1) + 0.3 * rng.normal(size=(600, 2))
    torch.manual_seed(0)
    fm = FlowMatching(VelocityMLP(2, hidden=(32, 32), n_classes=3), p_uncond=0.2)
    return fm.fit(X, cond=y, epochs=3, batch_size=128, rng=0, progress=False)


# ------------------------------------------------------------------------------------------- oracle
def test_oracle_marginals_match_simulated_path():
    orc = GaussianFlowOracle(mean=[1.0, 0.5], cov=[[0.6, 0.1], [0.1, 0.3]])
    rng = np.random.default_rng(1)
    x1 = orc.sample_data(200000, rng=rng)
    x0 = rng.normal(size=x1.shape)
    for t in (0.0, 0.3, 0.7, 1.0):
        xt = (1 - t) * x0 + t * x1
        np.testing.assert_allclose(xt.mean(0), orc.marginal_mean(t), atol=0.01)
        np.testing.assert_allclose(np.cov(xt.T), orc.marginal_cov(t), atol=0.01)


def test_oracle_velocity_is_conditional_expectation():
    # E[x1 - x0 | x_t] by regression on simulated pairs equals the oracle's affine field
    orc = GaussianFlowOracle(mean=[1.0, -2.0], cov=[[0.8, -0.3], [-0.3, 0.5]])
    rng = np.random.default_rng(2)
    x1 = orc.sample_data(200000, rng=rng)
    x0 = rng.normal(size=x1.shape)
    t = 0.4
    xt = (1 - t) * x0 + t * x1
    Z = np.c_[np.ones(len(xt)), xt]
    coef = np.linalg.lstsq(Z, x1 - x0, rcond=None)[0]
    c, M = orc.affine(t)
    np.testing.assert_allclose(coef[0], c, atol=0.02)
    np.testing.assert_allclose(coef[1:].T, M, atol=0.02)


def test_oracle_ot_path_is_brenier_map():
    S = np.array([[0.9, 0.3], [0.3, 0.4]])
    orc = GaussianFlowOracle(mean=[0.5, 0.0], cov=S, path="ot")
    res = ode_sample(orc, x0=torch.eye(2, dtype=torch.float64), steps=200, solver="heun")
    b = ode_sample(orc, x0=torch.zeros(1, 2, dtype=torch.float64), steps=200, solver="heun").x[0]
    A = (res.x - b).numpy().T
    w, V = np.linalg.eigh(S)
    np.testing.assert_allclose(A, (V * np.sqrt(w)) @ V.T, atol=1e-5)
    np.testing.assert_allclose(orc.marginal_cov(1.0), S, atol=1e-12)


def test_oracle_sigma_min_and_score():
    orc = GaussianFlowOracle(mean=[0.0], cov=[[2.0]], sigma_min=0.1)
    np.testing.assert_allclose(orc.marginal_cov(1.0), [[2.0 + 0.01]])
    t = 0.5
    x = np.array([[0.7]])
    np.testing.assert_allclose(orc.score(x, t), -x / orc.marginal_cov(t)[0, 0])


def test_oracle_mixture_and_guidance():
    orc = GaussianFlowOracle(mean=[[3.0, 0.0], [-3.0, 0.0]], cov=0.1 * np.eye(2))
    assert orc.n_classes == 2
    r0 = ode_sample(orc, n=1000, cond=0, steps=20, solver="heun", rng=0).numpy()
    assert abs(r0[:, 0].mean() - 3.0) < 0.05
    ru = ode_sample(orc, n=2000, steps=40, solver="heun", rng=0).numpy()
    frac = (ru[:, 0] > 0).mean()
    assert abs(frac - 0.5) < 4 * np.sqrt(0.25 / 2000)
    np.testing.assert_allclose(orc.marginal_mean(1.0), [0.0, 0.0])
    # guidance w > 1 pushes beyond the class mean direction; w = 0 gives the mixture field
    x = torch.zeros(3, 2, dtype=torch.float64)
    v1 = orc.velocity(x, 0.5, cond=torch.zeros(3, dtype=torch.long))
    v0 = orc.velocity(x, 0.5, cond=torch.zeros(3, dtype=torch.long), guidance=0.0)
    vu = orc.velocity(x, 0.5)
    torch.testing.assert_close(v0, vu)
    v3 = orc.velocity(x, 0.5, cond=torch.zeros(3, dtype=torch.long), guidance=3.0)
    torch.testing.assert_close(v3, vu + 3 * (v1 - vu))


# ------------------------------------------------------------------------------------------- ode_sample
def test_ode_sample_nfe_and_result(gauss_data):
    orc, _ = gauss_data
    for solver, k in (("euler", 1), ("heun", 2), ("midpoint", 2)):
        r = ode_sample(orc, n=10, steps=7, solver=solver, rng=0, return_trajectory=True)
        assert isinstance(r, SampleResult) and r.nfe == 7 * k and r.trajectory.shape == (8, 10, 2)
        assert "nfe" in repr(r) and "samples" in r.summary() and r.to_dict()["nfe"] == 7 * k


def test_ode_sample_seeded_and_custom_grid(gauss_data):
    orc, _ = gauss_data
    a = ode_sample(orc, n=5, steps=4, rng=3).x
    b = ode_sample(orc, n=5, steps=4, rng=3).x
    torch.testing.assert_close(a, b)
    r = ode_sample(orc, n=5, times=[0.0, 0.5, 0.9, 1.0], rng=3)
    assert r.steps == 3


def test_ode_sample_accepts_a_bare_net():
    net = VelocityMLP((1, 2, 2), hidden=(8,))
    r = ode_sample(net, n=3, steps=2)
    assert r.x.shape == (3, 1, 2, 2)

    def field(x, t, cond=None):
        return -x

    r = ode_sample(field, n=4, steps=3, shape=(2,))
    assert r.x.shape == (4, 2)


# ------------------------------------------------------------------------------------------- FlowMatching
def test_fit_is_deterministic_and_learns(gauss_data, fitted):
    _, X = gauss_data
    torch.manual_seed(0)
    fm2 = FlowMatching(VelocityMLP(2, hidden=(32, 32))).fit(X, epochs=10, batch_size=128, lr=3e-3, rng=0, progress=False)
    for p, q in zip(fitted.velocity_net.parameters(), fm2.velocity_net.parameters()):
        torch.testing.assert_close(p, q, rtol=0, atol=0)
    losses = fitted.fit_result_.train_loss
    assert losses[-1] < losses[0]
    assert fitted.event_shape_ == (2,) and fitted.n_classes_ is None


def test_sample_method_and_velocity_grad(fitted):
    r = fitted.sample(8, steps=4, solver="midpoint")
    assert r.x.shape == (8, 2) and r.nfe == 8
    x = torch.zeros(4, 2, requires_grad=True)
    fitted.velocity(x, 0.3).sum().backward()
    assert x.grad is not None


def test_conditional_fit_and_cfg(fitted_cond):
    fm = fitted_cond
    x = torch.zeros(5, 2)
    vc = fm.velocity(x, 0.5, cond=1)
    vu = fm.velocity(x, 0.5, cond=3)
    vw = fm.velocity(x, 0.5, cond=1, guidance=2.5)
    torch.testing.assert_close(vw, vu + 2.5 * (vc - vu), atol=1e-5, rtol=1e-5)
    r = ode_sample(fm, n=6, cond=np.array([0, 1, 2, 3, 0, 1]), steps=3, guidance=2.0)
    assert r.x.shape == (6, 2)


def test_ot_cfm_pairs_within_class_and_straightens():
    from iclr26sci.nn._flow import _ot_pair

    g = torch.Generator().manual_seed(0)
    x1 = torch.randn(64, 2, generator=g) + 3
    x0 = torch.randn(64, 2, generator=g)
    paired = _ot_pair(x0, x1)
    assert ((paired - x1) ** 2).sum() <= ((x0 - x1) ** 2).sum()
    assert sorted(paired[:, 0].tolist()) == sorted(x0[:, 0].tolist())   # a permutation of the noise
    lab = torch.tensor([0, 1] * 32)
    p2 = _ot_pair(x0, x1, lab)
    for k in (0, 1):
        assert sorted(p2[lab == k, 0].tolist()) == sorted(x0[lab == k, 0].tolist())
    X = (torch.randn(256, 2, generator=g) * 0.3 + 2).numpy()
    torch.manual_seed(0)
    fm = FlowMatching(VelocityMLP(2, hidden=(16,)), path="ot-cfm").fit(X, epochs=2, batch_size=64, rng=0,
                                                                       progress=False)
    assert fm.fit_result_.n_steps == 8


def test_vector_conditioning():
    rng = np.random.default_rng(0)
    c = rng.normal(size=(200, 3)).astype(np.float32)
    X = c[:, :2] + 0.1 * rng.normal(size=(200, 2))
    torch.manual_seed(0)
    fm = FlowMatching(VelocityMLP(2, hidden=(16,), cond_dim=3)).fit(X, cond=c, epochs=1, batch_size=50, rng=0,
                                                                    progress=False)
    r = ode_sample(fm, n=4, cond=c[:4], steps=2)
    assert r.x.shape == (4, 2)


@settings(max_examples=15, deadline=None)
@given(steps=st.integers(1, 12), solver=st.sampled_from(["euler", "heun", "midpoint"]),
       d=st.integers(1, 4), seed=st.integers(0, 1000))
def test_property_linear_field_exact_for_constant_velocity(steps, solver, d, seed):
    # v(x, t) = c is integrated exactly by every solver, for any grid
    c = torch.as_tensor(np.random.default_rng(seed).normal(size=d))
    r = ode_sample(lambda x, t, cond=None: c.expand_as(x), x0=torch.zeros(3, d, dtype=torch.float64),
                   steps=steps, solver=solver, shape=(d,))
    torch.testing.assert_close(r.x, c.expand(3, d).to(r.x.dtype), atol=1e-12, rtol=0)
    assert r.nfe == steps * (1 if solver == "euler" else 2)


@settings(max_examples=15, deadline=None)
@given(t=st.floats(0.0, 1.0), d=st.integers(1, 3), seed=st.integers(0, 1000))
def test_property_oracle_field_transports_marginal_mean(t, d, seed):
    # d/dt E[x_t] = E[v(x_t, t)] = m on the linear path
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d))
    orc = GaussianFlowOracle(rng.normal(size=d), A @ A.T + 0.1 * np.eye(d))
    c, M = orc.affine(t)
    np.testing.assert_allclose(c + M @ orc.marginal_mean(t), orc.means[0], atol=1e-9)


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.bad_input("nn.FlowMatching")
@pytest.mark.parametrize("kwargs,arg", [
    (dict(X=np.full((10, 2), np.nan)), "X"),
    (dict(X=np.zeros((0, 2))), "X"),
    (dict(X=np.zeros((10, 3))), "X"),
    (dict(X=np.zeros(10)), "X"),
    (dict(X=np.array([["a", "b"]])), "X"),
])
def test_fit_bad_data(kwargs, arg):
    with pytest.raises(InputError, match=arg):
        FlowMatching(VelocityMLP(2, hidden=(4,))).fit(epochs=1, progress=False, **kwargs)


@pytest.mark.bad_input("nn.FlowMatching")
def test_fit_bad_params_and_cond():
    X = np.zeros((10, 2))
    with pytest.raises(InputError, match="path"):
        FlowMatching(VelocityMLP(2, hidden=(4,)), path="curvy").fit(X, progress=False)
    with pytest.raises(InputError, match="sigma_min"):
        FlowMatching(VelocityMLP(2, hidden=(4,)), sigma_min=-0.1).fit(X, progress=False)
    with pytest.raises(InputError, match="p_uncond"):
        FlowMatching(VelocityMLP(2, hidden=(4,)), p_uncond=1.5).fit(X, progress=False)
    with pytest.raises(InputError, match="velocity_net"):
        FlowMatching("net").fit(X, progress=False)
    net = VelocityMLP(2, hidden=(4,), n_classes=3)
    with pytest.raises(InputError, match="cond"):
        FlowMatching(net).fit(X, cond=np.full(10, 5), progress=False)      # label out of range
    with pytest.raises(InputError, match="cond"):
        FlowMatching(net).fit(X, cond=np.full(10, 3), progress=False)      # the null label in data
    with pytest.raises(InputError, match="cond"):
        FlowMatching(net).fit(X, cond=np.zeros(7, dtype=int), progress=False)
    with pytest.raises(InputError, match="cond"):
        FlowMatching(VelocityMLP(2, hidden=(4,))).fit(X, cond=np.zeros(10, dtype=int), progress=False)
    with pytest.raises(InputError, match="path"):
        FlowMatching(VelocityMLP(2, hidden=(4,), cond_dim=2), path="ot-cfm").fit(X, cond=X, progress=False)


@pytest.mark.bad_input("nn.FlowMatching")
def test_unfitted_and_bad_velocity_args(fitted, fitted_cond):
    with pytest.raises(NotFittedError):
        FlowMatching(VelocityMLP(2)).velocity(torch.zeros(1, 2), 0.5)
    with pytest.raises(NotFittedError):
        FlowMatching(VelocityMLP(2)).sample(3)
    with pytest.raises(InputError, match="x"):
        fitted.velocity(torch.zeros(4, 3), 0.5)
    with pytest.raises(InputError, match="t"):
        fitted.velocity(torch.zeros(4, 2), 1.5)
    with pytest.raises(InputError, match="guidance"):
        fitted.velocity(torch.zeros(4, 2), 0.5, guidance=float("nan"))
    with pytest.raises(InputError, match="cond"):
        fitted_cond.velocity(torch.zeros(4, 2), 0.5, cond=7)
    with pytest.raises(InputError, match="steps"):
        fitted.sample(3, steps=0)


@pytest.mark.bad_input("nn.ode_sample", "nn.SampleResult")
@pytest.mark.parametrize("kwargs,arg", [
    (dict(n=3, steps=0), "steps"), (dict(n=3, steps=-2), "steps"), (dict(n=3, steps=2.5), "steps"),
    (dict(n=0), "n"), (dict(n=3, solver="rk4"), "solver"), (dict(n=3, cond=5), "cond"),
    (dict(x0=np.full((3, 2), np.nan)), "x0"), (dict(x0=np.zeros((3, 5))), "x0"), (dict(x0=np.zeros((0, 2))), "x0"),
    (dict(n=3, times=[0.0, 0.6, 0.4, 1.0]), "times"), (dict(n=3, guidance=float("inf")), "guidance"),
    (dict(), "n"),
])
def test_ode_sample_bad_input(kwargs, arg, gauss_data):
    orc, _ = gauss_data
    with pytest.raises(InputError, match=arg):
        ode_sample(orc, **kwargs)


@pytest.mark.bad_input("nn.ode_sample")
def test_ode_sample_bad_velocity():
    with pytest.raises(InputError, match="velocity"):
        ode_sample(42, n=3)
    with pytest.raises(InputError, match="shape"):
        ode_sample(lambda x, t, c=None: x, n=3)
    with pytest.raises(InputError, match="cond"):
        ode_sample(VelocityMLP(2, hidden=(4,), n_classes=3), n=2, cond=[0, 4])


@pytest.mark.bad_input("nn.VelocityMLP")
def test_velocity_mlp_bad_input():
    with pytest.raises(InputError, match="dim"):
        VelocityMLP(0)
    with pytest.raises(InputError, match="dim"):
        VelocityMLP(2.5)
    with pytest.raises(InputError, match="hidden"):
        VelocityMLP(2, hidden=(8, -1))
    with pytest.raises(InputError, match="act"):
        VelocityMLP(2, act="swish")
    with pytest.raises(InputError, match="cond_dim"):
        VelocityMLP(2, n_classes=3, cond_dim=2)
    net = VelocityMLP(2, hidden=(4,), n_classes=3)
    with pytest.raises(InputError, match="x"):
        net(torch.zeros(3, 4), torch.zeros(3))
    with pytest.raises(InputError, match="cond"):
        net(torch.zeros(3, 2), torch.zeros(3), torch.zeros(3))           # float labels
    with pytest.raises(InputError, match="t"):
        net(torch.zeros(3, 2), torch.zeros(2))


@pytest.mark.bad_input("nn.GaussianFlowOracle")
def test_oracle_bad_input():
    with pytest.raises(InputError, match="cov"):
        GaussianFlowOracle([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]])       # not PD
    with pytest.raises(InputError, match="cov"):
        GaussianFlowOracle([0.0, 0.0], np.eye(3))
    with pytest.raises(InputError, match="mean"):
        GaussianFlowOracle([np.nan, 0.0])
    with pytest.raises(InputError, match="mean"):
        GaussianFlowOracle(np.zeros(0))
    with pytest.raises(InputError, match="path"):
        GaussianFlowOracle([0.0], path="spline")
    with pytest.raises(InputError, match="path"):
        GaussianFlowOracle([[0.0], [1.0]], path="ot")
    with pytest.raises(InputError, match="weights"):
        GaussianFlowOracle([[0.0], [1.0]], weights=[0.3, 0.3])
    orc = GaussianFlowOracle([[0.0], [1.0]])
    with pytest.raises(InputError, match="cond"):
        orc.marginal_mean(0.5, cond=3)
    with pytest.raises(InputError, match="t"):
        orc.marginal_cov(-0.1)
    with pytest.raises(InputError, match="x"):
        orc.velocity(torch.zeros(3, 2), 0.5)
    with pytest.raises(InputError, match="t"):
        orc.velocity(torch.zeros(3, 1), torch.tensor([0.1, 0.2]))
    with pytest.raises(InputError, match="cond"):
        orc.velocity(torch.zeros(2, 1), 0.5, cond=torch.tensor([0, 5]))
    with pytest.raises(InputError, match="n"):
        orc.sample_data(0)


# ------------------------------------------------------------------------------------------- validation power
def _run(fn, seed=0, **kw):
    from validation.registry import Profile

    return fn(Profile("quick"), np.random.default_rng(seed), **kw)


def test_validation_power_solver_order():
    """ode_solver_order fails for a Heun without its corrector and a midpoint evaluated at the wrong time."""
    import iclr26sci.nn._flow as F
    from validation.nn_flow import ode_solver_order

    assert _run(ode_solver_order).passed

    def broken(velocity, x0, steps, solver):
        if solver == "heun":                      # corrector dropped: Euler in disguise
            return F.ode_sample(velocity, x0=x0, steps=steps, solver="euler")
        if solver == "midpoint":                  # midpoint velocity taken at t (stale time)
            grid = np.linspace(0, 1, steps + 1)
            x = x0.clone()
            for k in range(steps):
                h = grid[k + 1] - grid[k]
                v = velocity.velocity(x, grid[k])
                x = x + h * velocity.velocity(x + 0.5 * h * v, grid[k])
            return SampleResult(x=x, nfe=2 * steps, steps=steps, solver="midpoint")
        return F.ode_sample(velocity, x0=x0, steps=steps, solver=solver)

    res = _run(ode_solver_order, _sampler=broken)
    assert not res.passed
    failed = {c.name.split(":")[0] for c in res.criteria if not c.passed}
    assert failed == {"heun", "midpoint"}
