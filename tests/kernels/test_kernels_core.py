import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.kernels import (EfficientCodingTheory, FixedFeatureGP, KernelCholeskyError, PixelRBFGP,
                               SparseCodingTheory, TheoryInformedKernel, TheoryTaskSampler, bayes_factor,
                               extract_patches, gpytorch_log_evidence, ift_hypergradient, numpy_log_evidence,
                               psi_hessian, solve_inner, surround_ratio, theory_match)
from iclr26sci.kernels._derivs import evidence_derivatives
from iclr26sci.kernels._gp import log_evidence, predictive, query_log_density, rbf_kernel, stable_cholesky
from iclr26sci.kernels._model import _total_derivs

D = torch.float64


def smooth_images(seed=0, n=3, size=64):
    from scipy.ndimage import gaussian_filter

    g = np.random.default_rng(seed)
    return [gaussian_filter(g.standard_normal((size, size)), 1.5) + 0.2 * gaussian_filter(g.standard_normal((size, size)), 0.5)
            for _ in range(n)]


@pytest.fixture(scope="module")
def patches():
    return extract_patches(smooth_images(), 6, 3000, rng=0)


@pytest.fixture(scope="module")
def theory(patches):
    return EfficientCodingTheory(center_radius=1.0).fit(patches)


# ------------------------------------------------------------------ exact evidence
def test_evidence_matches_numpy_and_gpytorch():
    g = np.random.default_rng(1)
    F = g.standard_normal((60, 5))
    y = g.standard_normal(60)
    ls = np.array([0.7, 1.3, 2.0, 0.9, 1.1])
    s2, noise, c = 1.7, 0.3, 0.25
    psi = torch.tensor([[math.log(s2), *np.log(ls), math.log(noise), c]], dtype=D)
    ours = float(log_evidence(torch.as_tensor(F[None]), torch.as_tensor(y[None]), psi)[0])
    K = rbf_kernel(torch.as_tensor(F[None]), torch.as_tensor(F[None]), psi[:, 0], psi[:, 1:-2])[0].numpy()
    ref = numpy_log_evidence(K, y, noise, c)
    gp = gpytorch_log_evidence(F, y, s2, ls, noise, c)
    assert abs(ours - ref) < 1e-9
    assert abs(gp - ref) < 1e-6


def test_closed_form_derivatives_match_autograd():
    g = torch.Generator().manual_seed(0)
    for q in (4, 1):
        F = torch.randn(3, 15, 4, dtype=D, generator=g)
        z = torch.randn(3, 15, dtype=D, generator=g)
        psi = 0.3 * torch.randn(3, q + 3, dtype=D, generator=g)
        v, gr, H = evidence_derivatives(F, z, psi)
        H2, g2 = psi_hessian(lambda p: log_evidence(F, z, p), psi)
        assert torch.allclose(v, log_evidence(F, z, psi), atol=1e-10)
        assert torch.allclose(gr, g2, atol=1e-9)
        assert torch.allclose(H, H2, atol=1e-8)


def test_inner_solver_reaches_stationary_maximum():
    g = torch.Generator().manual_seed(3)
    F = torch.randn(4, 30, 3, dtype=D, generator=g)
    z = torch.sin(F[..., 0]) + 0.3 * torch.randn(4, 30, dtype=D, generator=g)
    z = (z - z.mean(-1, keepdim=True)) / z.std(-1, keepdim=True)
    psi0 = torch.zeros(4, 6, dtype=D)
    psi = solve_inner(F, z, psi0, psi0, 3.0, iters=60)
    _, gr, H = _total_derivs(F, z, psi, psi0, 3.0)
    assert float(gr.abs().max()) < 1e-7
    assert bool((torch.linalg.eigvalsh(-H) > 0).all())


def _tiny_problem(seed=0):
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    ext = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 3)).to(D)
    Xs = torch.randn(2, 30, 5, dtype=D, generator=g)
    Xq = torch.randn(2, 30, 5, dtype=D, generator=g)
    w = torch.randn(5, dtype=D, generator=g)
    zs = torch.tanh(Xs @ w) + 0.2 * torch.randn(2, 30, dtype=D, generator=g)
    zq = torch.tanh(Xq @ w) + 0.2 * torch.randn(2, 30, dtype=D, generator=g)
    return ext, Xs, zs, Xq, zq


def _J_resolved(ext, Xs, zs, Xq, zq, psi0):
    with torch.no_grad():
        Fs = ext(Xs)
        Fq = ext(Xq)
        psi = solve_inner(Fs, zs, psi0, psi0, 3.0, iters=100, tol=1e-11)
        return float((query_log_density(Fs, zs, psi, Fq, zq) / Xq.shape[1]).mean())


@pytest.mark.parametrize("method,tol", [("exact", 1e-4), ("neumann", 5e-2)])
def test_ift_hypergradient_matches_finite_differences(method, tol):
    ext, Xs, zs, Xq, zq = _tiny_problem()
    psi0 = torch.zeros(2, 6, dtype=D)
    with torch.no_grad():
        psi = solve_inner(ext(Xs), zs, psi0, psi0, 3.0, iters=100, tol=1e-11)
    _, grads, fb = ift_hypergradient(ext, Xs, zs, Xq, zq, psi, psi0, 3.0, method=method, neumann_steps=200)
    assert fb == 0
    params = list(ext.parameters())
    u = [torch.randn_like(p) for p in params]
    ana = sum(float((g * v).sum()) for g, v in zip(grads, u))
    h = 1e-5
    vals = []
    for sgn in (1, -1):
        with torch.no_grad():
            for p, v in zip(params, u):
                p.add_(sgn * h * v)
        vals.append(_J_resolved(ext, Xs, zs, Xq, zq, psi0))
        with torch.no_grad():
            for p, v in zip(params, u):
                p.sub_(sgn * h * v)
    fd = (vals[0] - vals[1]) / (2 * h)
    assert abs(ana - fd) <= tol * max(abs(fd), 1e-3)
    # dropping the implicit term gives a different (wrong) gradient
    _, g0, _ = ift_hypergradient(ext, Xs, zs, Xq, zq, psi, psi0, 3.0, method="none")
    ana0 = sum(float((g * v).sum()) for g, v in zip(g0, u))
    assert abs(ana0 - fd) > abs(ana - fd)


def test_indefinite_task_is_dropped_not_amplified():
    """A task whose -H is not positive definite has no implicit-function hypergradient. The default drops it:
    the gradient equals the one of the remaining task alone; the eigenvalue floor instead returns a finite
    gradient dominated by that task (the planted defect behind the full-size collapse, docs/kernels.md)."""
    ext, Xs, zs, Xq, zq = _tiny_problem()
    psi0 = torch.zeros(2, 6, dtype=D)
    with torch.no_grad():
        psi = solve_inner(ext(Xs), zs, psi0, psi0, 3.0, iters=100, tol=1e-11)
    bad = psi.clone()
    bad[1] = 3.0 * torch.randn(6, dtype=D, generator=torch.Generator().manual_seed(0))  # not a maximum
    with torch.no_grad():
        _, _, H = _total_derivs(ext(Xs), zs, bad, psi0, 3.0)
    assert float(torch.linalg.eigvalsh(-H[1]).min()) < 0 < float(torch.linalg.eigvalsh(-H[0]).min())
    J, g_drop, fb = ift_hypergradient(ext, Xs, zs, Xq, zq, bad, psi0, 3.0)
    assert fb == 1
    J_zero, g_one, fb1 = ift_hypergradient(ext, Xs[:1], zs[:1], Xq[:1], zq[:1], bad[:1], psi0[:1], 3.0)
    assert fb1 == 0
    for a, b in zip(g_drop, g_one):
        torch.testing.assert_close(a, b)
    J_one, _, _ = ift_hypergradient(ext, Xs[1:], zs[1:], Xq[1:], zq[1:], bad[1:], psi0[1:], 3.0)
    _, g_floor, fbf = ift_hypergradient(ext, Xs, zs, Xq, zq, bad, psi0, 3.0, indefinite="floor")
    assert fbf == 1
    norm = lambda gs: float(sum((g ** 2).sum() for g in gs)) ** 0.5  # noqa: E731
    assert norm(g_floor) > 10 * norm(g_drop)
    # the reported objective still averages every task
    assert J == pytest.approx(0.5 * (J_zero + J_one), rel=1e-12)
    # a batch of indefinite tasks only: zero gradient, and meta_fit takes no step on it
    _, g_none, fbn = ift_hypergradient(ext, Xs[1:], zs[1:], Xq[1:], zq[1:], bad[1:], psi0[1:], 3.0)
    assert fbn == 1 and all(float(g.abs().max()) == 0.0 for g in g_none)
    with pytest.raises(InputError, match="indefinite"):
        ift_hypergradient(ext, Xs, zs, Xq, zq, bad, psi0, 3.0, indefinite="clip")


def test_envelope_identity_when_query_equals_support():
    ext, Xs, zs, _, _ = _tiny_problem(1)
    psi0 = torch.zeros(2, 6, dtype=D)
    with torch.no_grad():
        psi = solve_inner(ext(Xs), zs, psi0, psi0, None, iters=100, tol=1e-11)
    # query = support -> grad_psi J = 0 at the optimum only for the evidence objective; check the mixed term
    _, grads, _ = ift_hypergradient(ext, Xs, zs, Xs, zs, psi, psi0, None)
    assert all(torch.isfinite(g).all() for g in grads)


# ------------------------------------------------------------------ theory
def test_theory_limits(theory):
    W0 = theory.filters(1e-10 * theory.noise_unit_)
    Z = theory.whitening_matrix()
    assert np.linalg.norm(W0 - Z) / np.linalg.norm(Z) < 1e-3
    ratios = [surround_ratio(theory.receptive_field(noise=nz)) for nz in (1e-3, 1e-2, 1e-1, 1.0, 10.0)]
    assert all(a >= b - 1e-12 for a, b in zip(ratios, ratios[1:]))
    F = theory.sample_filters(50, rng=0)
    assert F.shape == (50, 36)
    assert np.allclose(np.linalg.norm(F, axis=1), 1.0)
    assert np.array_equal(F, theory.sample_filters(50, rng=0))


def test_karklin_simoncelli_and_ica(patches):
    ks = EfficientCodingTheory(model="karklin_simoncelli", n_neurons=4, n_steps=8, rng=0).fit(patches)
    F = ks.sample_filters(10, rng=1)
    assert F.shape == (10, 36) and np.allclose(np.linalg.norm(F, axis=1), 1)
    ica = SparseCodingTheory(n_components=6, rng=0, max_patches=800).fit(patches)
    assert ica.sample_filters(4, rng=0).shape == (4, 36)


def test_theory_errors(patches):
    with pytest.raises(InputError, match="patches"):
        EfficientCodingTheory().fit(np.ones((10, 7)))
    with pytest.raises(InputError, match="noise"):
        EfficientCodingTheory(noise=-1.0).fit(patches)
    with pytest.raises(InputError, match="model"):
        EfficientCodingTheory(model="bogus").fit(patches)
    with pytest.raises(InputError, match="theory"):
        EfficientCodingTheory().sample_filters(3)
    with pytest.raises(InputError, match="size"):
        extract_patches([np.zeros((5, 5))], 8, 10)
    with pytest.raises(InputError, match="images"):
        extract_patches([np.full((9, 9), np.nan)], 4, 10)


# ------------------------------------------------------------------ tasks
def test_task_sampler(theory, patches):
    t = TheoryTaskSampler(theory, patches, n_tasks=12, n_support=(10, 20), n_query=15, rng=3)
    assert len(t) == 12
    a = t[0]
    assert a.X_support.shape == (a.n_support, 36) and a.X_query.shape == (15, 36)
    assert np.all(a.y_support >= 0) and np.all(a.y_support == np.round(a.y_support))
    t2 = TheoryTaskSampler(theory, patches, n_tasks=12, n_support=(10, 20), n_query=15, rng=3)
    assert np.array_equal(t2[5].y_query, t[5].y_query)
    assert sum(len(v) for v in t.groups().values()) == 12
    with pytest.raises(InputError, match="patches"):
        TheoryTaskSampler(theory, patches[:, :25], n_tasks=2)
    with pytest.raises(InputError, match="alpha"):
        TheoryTaskSampler(theory, patches, n_tasks=2, alpha=2.0)
    with pytest.raises(InputError, match="theory"):
        TheoryTaskSampler(object(), patches, n_tasks=2)


# ------------------------------------------------------------------ meta-learning, fit, predict
@pytest.fixture(scope="module")
def tik(theory, patches):
    tasks = TheoryTaskSampler(theory, patches, n_tasks=40, n_support=(15,), n_query=15, rng=1)
    return TheoryInformedKernel(feature_dim=4, channels=4, kernel_size=3, n_outer=4, tasks_per_step=4,
                                progress=False).meta_fit(tasks, rng=0)


def test_meta_fit_and_predict(tik, theory, patches):
    assert len(tik.history_) == 4 and all(np.isfinite(tik.history_))
    t = TheoryTaskSampler(theory, patches, n_tasks=3, n_support=(20,), n_query=10, rng=9)
    gp = tik.fit(t[0].X_support, t[0].y_support)
    m, v = gp.predict(t[0].X_query)
    assert m.shape == (10,) and np.all(v > 0)
    Y = np.stack([t[i].y_support for i in range(3)])
    X = t[0].X_support
    multi = tik.fit(X, Y)
    single = [tik.fit(X, Y[i]) for i in range(3)]
    assert np.allclose(multi.log_evidence_, [s.log_evidence_[0] for s in single], atol=1e-6)
    mm, vv = multi.predict(t[0].X_query)
    assert mm.shape == (3, 10)
    assert np.isfinite(gp.log_evidence(laplace=True))
    assert tik.preferred_stimuli(2).shape == (2, 36)


def test_meta_fit_deterministic(theory, patches):
    tasks = TheoryTaskSampler(theory, patches, n_tasks=10, n_support=(12,), n_query=8, rng=1)
    kw = dict(feature_dim=3, channels=2, kernel_size=3, n_outer=2, tasks_per_step=2, progress=False)
    a = TheoryInformedKernel(**kw).meta_fit(tasks, rng=5)
    b = TheoryInformedKernel(**kw).meta_fit(tasks, rng=5)
    assert a.history_ == b.history_
    dkt = TheoryInformedKernel(task_specific=False, **kw).meta_fit(tasks, rng=5)
    assert np.isfinite(dkt.history_).all()


@pytest.mark.parametrize("task_specific", [True, False])
def test_early_stopping_keeps_the_best_scored_weights(theory, patches, monkeypatch, task_specific):
    """A scripted validation curve (up, then down): meta_fit must return the weights scored best and stop after
    n_iter_no_change worse scores. The broken variant it catches returns the last iterate (the full-size collapse,
    docs/kernels.md)."""
    import copy as _copy

    tasks = TheoryTaskSampler(theory, patches, n_tasks=24, n_support=(12, 16), n_query=8, rng=1)
    curve = iter([0.0, 1.0, 3.0, 2.0, 1.0, 0.5, -1.0, -2.0])
    snaps = []

    def scripted(self, tasks_, val_groups):
        assert all(len(v) for v in val_groups.values()) and sum(len(v) for v in val_groups.values()) == 6
        snaps.append((_copy.deepcopy(self.feature_extractor_.state_dict()),
                      None if self.task_specific else self.meta_psi_.detach().clone()))
        return next(curve)

    monkeypatch.setattr(TheoryInformedKernel, "_validation_score", scripted)
    tik = TheoryInformedKernel(feature_dim=3, channels=2, kernel_size=3, n_outer=40, tasks_per_step=2, progress=False,
                               early_stopping=True, validation_fraction=0.25, eval_every=2, n_iter_no_change=3,
                               task_specific=task_specific).meta_fit(tasks, rng=0)
    assert [s for s, _ in tik.validation_history_] == [0, 2, 4, 6, 8, 10]
    assert tik.best_step_ == 4 and len(tik.history_) == 10  # stopped after 3 worse scores
    final = tik.feature_extractor_.state_dict()
    assert all(torch.equal(final[k], snaps[2][0][k]) for k in final)
    assert not all(torch.equal(final[k], snaps[-1][0][k]) for k in final)
    if not task_specific:
        assert torch.equal(tik.meta_psi_, snaps[2][1])


def test_meta_fit_takes_no_step_without_a_defined_hypergradient(theory, patches, monkeypatch):
    """A batch in which no task sits at a strict maximum has no hypergradient: meta_fit must leave the weights
    (and the AdamW moments) untouched and count the tasks. The broken variant steps on the zero gradient, and
    AdamW's weight decay and momentum move the weights."""
    tasks = TheoryTaskSampler(theory, patches, n_tasks=8, n_support=(12,), n_query=8, rng=3)
    kw = dict(feature_dim=3, channels=2, kernel_size=3, tasks_per_step=4, progress=False)
    ref = TheoryInformedKernel(n_outer=0, **kw).meta_fit(tasks, rng=0)
    orig = TheoryInformedKernel.meta_step

    def none_defined(self, Xs, zs, Xq, zq):
        J, grads, _ = orig(self, Xs, zs, Xq, zq)
        return J, [torch.zeros_like(g) for g in grads], Xs.shape[0]

    monkeypatch.setattr(TheoryInformedKernel, "meta_step", none_defined)
    tik = TheoryInformedKernel(n_outer=5, **kw).meta_fit(tasks, rng=0)
    assert tik.hypergradient_fallbacks_ == 20 and tik.history_ == []
    a, b = tik.feature_extractor_.state_dict(), ref.feature_extractor_.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_validation_score_is_the_outer_objective(theory, patches):
    """The held-out score is the meta objective J of ``meta_step`` on the same tasks (no gradient step)."""
    tasks = TheoryTaskSampler(theory, patches, n_tasks=8, n_support=(12,), n_query=8, rng=3)
    tik = TheoryInformedKernel(feature_dim=3, channels=2, kernel_size=3, n_outer=1, tasks_per_step=4,
                               progress=False).meta_fit(tasks, rng=0)
    idx = np.arange(4)
    for p in tik.feature_extractor_.parameters():
        p.requires_grad_(True)
    J = tik.meta_step(*tik._batch_tensors(tasks, idx))[0]
    assert tik._validation_score(tasks, {12: idx}) == pytest.approx(J, rel=1e-9, abs=1e-9)
    tik2 = TheoryInformedKernel(feature_dim=3, channels=2, kernel_size=3, n_outer=3, tasks_per_step=4,
                                progress=False, early_stopping=True, validation_fraction=0.5).meta_fit(tasks, rng=0)
    assert np.isfinite([s for _, s in tik2.validation_history_]).all() and 0 <= tik2.best_step_ <= 3
    tik0 = TheoryInformedKernel(feature_dim=3, channels=2, kernel_size=3, n_outer=0, tasks_per_step=4,
                                progress=False, early_stopping=True, validation_fraction=0.5).meta_fit(tasks, rng=0)
    assert tik0.best_step_ == 0 and len(tik0.validation_history_) == 1  # no step: the initial weights, scored once
    with pytest.raises(InputError, match="`tasks`"):
        TheoryInformedKernel(feature_dim=3, channels=2, kernel_size=3, n_outer=1, early_stopping=True, validation_fraction=0.01,
                             progress=False).meta_fit([tasks[0]], rng=0)


def test_evidence_scale_standardisation_jacobian():
    g = np.random.default_rng(0)
    X = g.standard_normal((25, 3))
    y = np.sin(X[:, 0]) + 0.1 * g.standard_normal(25)
    m = FixedFeatureGP(np.eye(3), response_transform="none", prior_scale=None)
    gp = m.fit(X, y)
    K = gp.outputscale_[0] * np.exp(-0.5 * (((X[:, None] - X[None]) / gp.lengthscale_[0]) ** 2).sum(-1))
    ref = numpy_log_evidence(K, y, gp.noise_[0], gp.mean_[0])
    assert abs(ref - gp.log_evidence_[0]) < 1e-8


def test_bayes_factor_and_theory_match(theory, patches):
    t = TheoryTaskSampler(theory, patches, n_tasks=1, n_support=(40,), n_query=5, rng=2)[0]
    A = FixedFeatureGP(theory.sample_filters(3, rng=0))
    B = PixelRBFGP()
    bf = bayes_factor(A, B, t.X_support, t.y_support)
    assert np.allclose(bf.log_bf, A.log_evidence(t.X_support, t.y_support) - B.log_evidence(t.X_support, t.y_support))
    assert np.all((0 <= bf.prob_a) & (bf.prob_a <= 1)) and isinstance(float(bf), float)
    tm = theory_match(A, B, t.X_support, t.y_support, grid=5)
    assert np.isclose(tm.posterior.sum(), 1) and 0 <= tm.alpha.value <= 1
    with pytest.raises(InputError, match="model_b"):
        bayes_factor(A, object(), t.X_support, t.y_support)
    with pytest.raises(InputError, match="prior_odds"):
        bayes_factor(A, B, t.X_support, t.y_support, prior_odds=0)


# ------------------------------------------------------------------ bad input
def test_fit_errors(tik):
    X = np.random.default_rng(0).standard_normal((20, 36))
    y = np.arange(20.0)
    with pytest.raises(InputError, match="responses"):
        tik.fit(X, y[:10])
    with pytest.raises(InputError, match="responses"):
        tik.fit(X, -y)
    yn = y.copy()
    yn[3] = np.nan
    with pytest.raises(InputError, match="responses"):
        tik.fit(X, yn)
    with pytest.raises(InputError, match="stimuli"):
        tik.fit(X[:, :30], y)
    with pytest.raises(InputError, match="responses"):
        tik.fit(X, np.ones(20))
    with pytest.raises(NotFittedError, match="TheoryInformedKernel"):
        TheoryInformedKernel().fit(X, y)
    with pytest.raises(InputError, match="response_transform"):
        PixelRBFGP(response_transform="log").fit(X, y)
    with pytest.raises(InputError, match="stimuli"):
        PixelRBFGP().fit(X, y).predict(X[:, :10])


def test_cholesky_failure_is_clear():
    A = torch.tensor([[[1.0, 2.0], [2.0, 1.0]]], dtype=D)
    with pytest.raises(KernelCholeskyError, match="positive definite"):
        stable_cholesky(A)
    A2 = torch.ones(1, 3, 3, dtype=D)  # rank one: rescued by jitter
    L = stable_cholesky(A2)
    assert torch.isfinite(L).all()


@settings(max_examples=15)
@given(st.integers(0, 10_000))
def test_evidence_permutation_invariant(seed):
    g = np.random.default_rng(seed)
    X = g.standard_normal((12, 2))
    y = g.poisson(3.0, 12).astype(float) + np.arange(12) % 2
    m = PixelRBFGP(ard=True)
    perm = g.permutation(12)
    a = m.log_evidence(X, y)
    b = m.log_evidence(X[perm], y[perm])
    assert abs(a - b) < 1e-6 * (1 + abs(a))


def test_scratch_dkl_and_neumann_meta(theory, patches):
    from iclr26sci.kernels import ScratchDKL

    t = TheoryTaskSampler(theory, patches, n_tasks=6, n_support=(12,), n_query=6, rng=4)
    d = ScratchDKL(feature_dim=2, architecture="mlp", hidden=(4,), n_iters=5, rng=0)
    g1 = d.fit(t[0].X_support, t[0].y_support)
    g2 = d.fit(t[1].X_support, t[1].y_support)
    m1, _ = g1.predict(t[0].X_query)
    assert m1.shape == (6,) and np.isfinite(g2.log_evidence_).all()
    with pytest.raises(InputError, match="responses"):
        d.fit(t[0].X_support, np.stack([t[0].y_support, t[1].y_support]))
    m = TheoryInformedKernel(feature_dim=2, architecture="mlp", hidden=(), n_outer=2, tasks_per_step=2,
                             hypergradient="neumann", progress=False).meta_fit(t, rng=0)
    assert len(m.history_) == 2
    with pytest.raises(InputError, match="hypergradient"):
        TheoryInformedKernel(hypergradient="bogus", n_outer=1).meta_fit(t)
    with pytest.raises(InputError, match="tasks"):
        TheoryInformedKernel(n_outer=1).meta_fit([])
