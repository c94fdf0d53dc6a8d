"""Issue 28: PixelRBFGP against scikit-learn's GaussianProcessRegressor, restarts of the type-II fit, and the
TIK's theory-plus-pixel kernel (pixel fallback)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError
from iclr26sci.kernels import PixelRBFGP, TheoryInformedKernel, TheoryTaskSampler
from iclr26sci.kernels._gp import log_evidence
from iclr26sci.kernels._model import NeuronGP, _sum_objective, _sum_prior_scales

D = torch.float64


def _ln_neuron(seed, n=90, d=16):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d))
    w = g.standard_normal(d)
    w /= np.linalg.norm(w)
    y = g.poisson(4.0 * np.logaddexp(0.0, 1.5 * X @ w)).astype(float)
    return X, y


def _sklearn(X, z):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    k = ConstantKernel(1.0, (1e-5, 1e5)) * RBF(1.0, (1e-5, 1e5)) + WhiteKernel(1.0, (1e-5, 1e5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return GaussianProcessRegressor(k, normalize_y=True, n_restarts_optimizer=2, random_state=0).fit(X, z)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pixel_rbf_matches_sklearn(seed):
    """Same kernel family (s^2 RBF + white noise on the standardised responses), and our type-II optimum is at least
    scikit-learn's (our family also fits the constant mean, so it nests scikit-learn's zero mean)."""
    X, y = _ln_neuron(seed)
    z = np.sqrt(y)
    zs = (z - z.mean()) / z.std()
    sk = _sklearn(X, z)
    s2, ell, noise = np.exp(sk.kernel_.theta)
    psi = torch.tensor([[np.log(s2), np.log(ell), np.log(noise), 0.0]], dtype=D)
    Xt = torch.as_tensor(X)
    # 1. the evidence at scikit-learn's hyper-parameters (constant mean 0) is scikit-learn's log marginal likelihood
    ours_at_sk = float(log_evidence(Xt[None], torch.as_tensor(zs)[None], psi))
    assert abs(ours_at_sk - sk.log_marginal_likelihood_value_) < 1e-8
    # 2. the posterior predictive at those hyper-parameters is scikit-learn's
    model = PixelRBFGP(prior_scale=None)
    model._check_settings()
    gp = NeuronGP(model, Xt, torch.as_tensor(zs)[None], psi, torch.tensor([z.mean()], dtype=D),
                  torch.tensor([z.std()], dtype=D), True, psi)
    Xq = np.random.default_rng(seed + 100).standard_normal((30, X.shape[1]))
    m, v = gp.predict(Xq)
    ms, ss = sk.predict(Xq, return_std=True)
    assert np.allclose(m, ms, atol=1e-8) and np.allclose(v, ss ** 2, rtol=1e-7)  # sklearn's std includes the WhiteKernel
    # 3. our maximised evidence (no hyper-prior, default restarts) is at least scikit-learn's maximum
    fit = PixelRBFGP(prior_scale=None).fit(X, y)
    ours_max = float(fit.log_evidence_[0] + len(z) * np.log(z.std()))
    assert ours_max >= sk.log_marginal_likelihood_value_ - 1e-4
    # and the predictions agree to a fraction of the predictive sd (the constant mean is the only difference)
    mf, vf = fit.predict(Xq)
    assert np.max(np.abs(mf - ms) / np.sqrt(vf)) < 0.5


def test_restarts_find_long_lengthscale_mode():
    """The restarts scale the output scale with the length-scale (s^2 / l^2 kept): objective never below one start."""
    X, y = _ln_neuron(5, n=60)
    one = PixelRBFGP(n_restarts=0, prior_scale=None).fit(X, y)
    many = PixelRBFGP(n_restarts=4, prior_scale=None).fit(X, y)
    assert many.log_evidence_[0] >= one.log_evidence_[0] - 1e-9


@pytest.mark.parametrize("theory_prior", [None, "per-entry"])
def test_sum_objective_gradient_matches_autograd(theory_prior):
    g = np.random.default_rng(0)
    n, m, d = 25, 3, 5
    F, X, z = (torch.as_tensor(g.standard_normal(s)) for s in ((n, m), (n, d), (n,)))
    D2 = (F.T[:, :, None] - F.T[:, None, :]) ** 2
    sq = (X * X).sum(-1)
    Dp = (sq[:, None] + sq[None, :] - 2 * X @ X.T).clamp_min(0)
    x = 0.5 * g.standard_normal(m + 5)
    sv = None if theory_prior is None else _sum_prior_scales(1.0, m)
    if sv is not None:  # the theory's output scale gets the pixel term's sd 3, length-scales and noise the TIK's sd 1
        assert np.allclose(sv, [3.0] + [1.0] * m + [1.0])
    ct = 0.1 * np.arange(m + 3)
    val, grad = _sum_objective(x, D2, Dp, z, ct, np.zeros(2), sv)
    p = torch.as_tensor(x[None]).requires_grad_(True)
    ev = log_evidence(F[None], z[None], p[:, :m + 3], (X[None], X[None], p[:, m + 3:])) \
        - 0.5 * (p[:, m + 3:] ** 2).sum() / 9.0
    if sv is not None:
        ev = ev - 0.5 * (((p[0, :m + 2] - torch.as_tensor(ct[:m + 2])) / torch.as_tensor(sv)) ** 2).sum()
    ev.sum().backward()
    assert abs(val + float(ev.detach())) < 1e-10
    assert np.allclose(grad, -p.grad.numpy()[0], atol=1e-10)


def test_pixel_fallback_nests_both_kernels(tiny_kernels):
    """A neuron driven by one pixel (outside the 6x6 theory): the sum kernel's evidence is at least both separate
    evidences (it nests them), and the pixel term takes most of the prior variance."""
    patches, theory, tasks, tik = tiny_kernels(6)
    g = np.random.default_rng(3)
    X = patches[g.choice(len(patches), 120, replace=False)]
    y = g.poisson(3.0 * np.logaddexp(0.0, 2.0 * X[:, 7] / X[:, 7].std())).astype(float)
    gp = tik.fit(X[:80], y[:80])
    # the joint MAP objective (evidence + both hyper-priors) is at least that of either component switched off
    F = torch.as_tensor(tik.features(X[:80]))
    Xt = torch.as_tensor(X[:80])
    D2 = (F.T[:, :, None] - F.T[:, None, :]) ** 2
    sq = (Xt * Xt).sum(-1)
    Dp = (sq[:, None] + sq[None, :] - 2 * Xt @ Xt.T).clamp_min(0)
    z = gp._z[0]
    ct, cp = gp._prior_centre[0].numpy(), gp._pixel[2][0].numpy()
    opt = np.concatenate([gp.psi_[0], gp._pixel[1][0].numpy()])
    sv = _sum_prior_scales(tik.prior_scale, F.shape[1])
    f_opt = _sum_objective(opt, D2, Dp, z, ct, cp, sv)[0]
    for pix_off in (True, False):
        x = opt.copy()
        x[-2 if pix_off else 0] = -30.0  # one component's output scale ~ 1e-13
        assert f_opt <= _sum_objective(x, D2, Dp, z, ct, cp, sv)[0] + 1e-6
    assert np.allclose(gp.log_bf_theory_pixel_, gp.log_evidence_theory_ - gp.log_evidence_pixel_)
    assert 0.0 <= gp.theory_fraction_[0] <= 1.0
    m, v = gp.predict(X[80:])
    assert m.shape == (40,) and np.all(v > 0)
    pix = PixelRBFGP().fit(X[:80], y[:80]).predict(X[80:])[0]
    z = np.sqrt(y[80:])
    assert np.corrcoef(m, z)[0, 1] >= np.corrcoef(pix, z)[0, 1] - 0.05
    assert np.isfinite(gp.log_evidence(laplace=True))
    d = gp.to_dict()
    assert {"pixel_outputscale", "pixel_lengthscale", "theory_fraction"} <= set(d)
    assert "pixel term" in gp.summary()
    import copy

    off = copy.copy(tik)
    off.pixel_fallback = False
    off._fit_cache = None
    only = off.fit(X[:80], y[:80])
    assert np.allclose(only.log_evidence_, gp.log_evidence_theory_)
    assert not hasattr(only, "theory_fraction_")


@pytest.mark.bad_input("kernels.PixelRBFGP", "kernels.TheoryInformedKernel")
def test_fallback_and_restart_settings(tiny_kernels):
    patches, theory, tasks, tik = tiny_kernels(6)
    t = tasks[0]
    with pytest.raises(InputError, match="n_restarts"):
        PixelRBFGP(n_restarts=-1).fit(t.X_support, t.y_support)
    with pytest.raises(InputError, match="n_restarts"):
        PixelRBFGP(n_restarts=1.5).fit(t.X_support, t.y_support)
    import copy

    bad = copy.copy(tik)
    bad.pixel_fallback = "yes"
    with pytest.raises(InputError, match="pixel_fallback"):
        bad.fit(t.X_support, t.y_support)


def test_hyper_uncertainty_widens_intervals_only(tiny_kernels):
    """Issue 42: the Laplace term leaves the mean unchanged and adds a non-negative variance J Sigma J^T; it equals
    the delta-method formula computed here independently (finite differences of the posterior mean)."""
    import copy

    from iclr26sci.kernels._model import _laplace_covariance

    patches, theory, tasks, tik = tiny_kernels(6)
    g = np.random.default_rng(4)
    X = patches[g.choice(len(patches), 110, replace=False)]
    y = g.poisson(3.0 * np.logaddexp(0.0, 1.5 * X[:, 7] / X[:, 7].std())).astype(float)
    on = copy.copy(tik)
    on.hyper_uncertainty, on._fit_cache = True, None
    off = copy.copy(tik)
    off.hyper_uncertainty, off._fit_cache = False, None
    gp1, gp0 = on.fit(X[:80], y[:80]), off.fit(X[:80], y[:80])
    (m1, v1), (m0, v0) = gp1.predict(X[80:]), gp0.predict(X[80:])
    assert np.allclose(m1, m0, atol=1e-12)
    assert np.all(v1 >= v0 - 1e-12) and np.any(v1 > v0)
    assert np.allclose(gp1.predict(X[80:], include_noise=False)[1] - gp0.predict(X[80:], include_noise=False)[1],
                       v1 - v0, atol=1e-10)
    # independent delta method: the mean as a function of all sum-kernel hyper-parameters
    P = gp1._psi.shape[1]
    x0 = np.concatenate([gp1._psi[0].numpy(), gp1._pixel[1][0].numpy()])
    Sig = gp1._hyper_cov[0].numpy()

    def mean_at(x):
        g2 = copy.copy(gp1)
        g2._psi = torch.as_tensor(x[None, :P])
        g2._pixel = (gp1._pixel[0], torch.as_tensor(x[None, P:])) + gp1._pixel[2:]
        g2._hyper_cov = None
        return g2.predict(X[80:])[0]

    h = 1e-5
    J = np.stack([(mean_at(x0 + h * e) - mean_at(x0 - h * e)) / (2 * h) for e in np.eye(len(x0))], 1)
    assert np.allclose(v1 - v0, np.einsum("qi,ij,qj->q", J, Sig, J), rtol=1e-4, atol=1e-9)
    # Laplace covariance of a quadratic objective is its inverse Hessian
    A = np.array([[3.0, 1.0], [1.0, 2.0]])
    assert np.allclose(_laplace_covariance(lambda x: (0.5 * x @ A @ x, A @ x), np.array([0.3, -0.2])),
                       np.linalg.inv(A), atol=1e-8)


@pytest.mark.bad_input("kernels.TheoryInformedKernel")
def test_hyper_uncertainty_setting(tiny_kernels):
    import copy

    patches, theory, tasks, tik = tiny_kernels(6)
    bad = copy.copy(tik)
    bad.hyper_uncertainty, bad._fit_cache = "yes", None
    t = tasks[0]
    with pytest.raises(InputError, match="hyper_uncertainty"):
        bad.fit(t.X_support, t.y_support)
