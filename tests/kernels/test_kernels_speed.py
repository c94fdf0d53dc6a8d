"""Speed-path features: float32 Newton directions, float32 extractor, cached fits for evidences."""
import numpy as np
import pytest
import torch

from iclr26sci.core import InputError
from iclr26sci.kernels import (EfficientCodingTheory, FixedFeatureGP, PixelRBFGP, TheoryInformedKernel,
                               TheoryTaskSampler, bayes_factor, extract_patches, psi_hessian, solve_inner)
from iclr26sci.kernels._derivs import evidence_derivatives
from iclr26sci.kernels._gp import log_evidence
from iclr26sci.kernels._model import _total_derivs

D = torch.float64


def _data(seed=0, B=3, n=40, m=4):
    g = torch.Generator().manual_seed(seed)
    F = torch.randn(B, n, m, dtype=D, generator=g)
    z = torch.sin(F[..., 0]) + 0.3 * torch.randn(B, n, dtype=D, generator=g)
    z = (z - z.mean(-1, keepdim=True)) / z.std(-1, keepdim=True)
    return F, z


@pytest.mark.parametrize("q", [4, 1])
def test_float32_hessian_is_close_and_value_gradient_stay_float64(q):
    F, z = _data(1)
    psi = 0.3 * torch.randn(3, q + 3, dtype=D, generator=torch.Generator().manual_seed(2))
    v, g, H = evidence_derivatives(F, z, psi)
    v32, g32, H32 = evidence_derivatives(F, z, psi, hessian_dtype=torch.float32)
    H_ad, g_ad = psi_hessian(lambda p: log_evidence(F, z, p), psi)
    assert H32.dtype == D
    assert torch.equal(v, v32) and torch.equal(g, g32)  # value and gradient do not depend on the Hessian precision
    assert torch.allclose(g, g_ad, atol=1e-9) and torch.allclose(H, H_ad, atol=1e-8)
    assert float((H32 - H).abs().max() / H.abs().max()) < 1e-5


def test_newton_with_float32_directions_reaches_the_same_maximum():
    F, z = _data(3, B=4, n=30, m=3)
    psi0 = torch.zeros(4, 6, dtype=D)
    a = solve_inner(F, z, psi0, psi0, 3.0, iters=60)
    b = solve_inner(F, z, psi0, psi0, 3.0, iters=60, direction_dtype=torch.float32)
    _, ga, H = _total_derivs(F, z, a, psi0, 3.0)
    assert float(ga.abs().max()) < 1e-7
    assert bool((torch.linalg.eigvalsh(-H) > 0).all())
    assert torch.allclose(a, b, atol=1e-6)


@pytest.fixture(scope="module")
def setup():
    from scipy.ndimage import gaussian_filter

    g = np.random.default_rng(0)
    imgs = [gaussian_filter(g.standard_normal((64, 64)), 1.5) for _ in range(3)]
    P = extract_patches(imgs, 6, 3000, rng=0)
    th = EfficientCodingTheory(center_radius=1.0).fit(P)
    return P, th


def test_feature_dtype_option(setup):
    P, th = setup
    tasks = TheoryTaskSampler(th, P, n_tasks=12, n_support=(12,), n_query=8, rng=1)
    kw = dict(feature_dim=3, channels=2, kernel_size=3, n_outer=2, tasks_per_step=2, progress=False)
    t32 = TheoryInformedKernel(**kw).meta_fit(tasks, rng=5)
    assert len(t32.history_) == 2 and np.isfinite(t32.history_).all()
    kw["n_outer"] = 0  # same seed, untrained: the two precisions give the same features
    t32 = TheoryInformedKernel(**kw).meta_fit(tasks, rng=5)
    t64 = TheoryInformedKernel(feature_dtype="float64", **kw).meta_fit(tasks, rng=5)
    assert next(t32.feature_extractor_.parameters()).dtype == torch.float32
    assert next(t64.feature_extractor_.parameters()).dtype == D
    f32, f64 = t32.features(tasks[0].X_support), t64.features(tasks[0].X_support)
    assert f32.dtype == np.float64 and np.allclose(f32, f64, atol=1e-4)
    with pytest.raises(InputError, match="feature_dtype"):
        TheoryInformedKernel(feature_dtype="float16", **kw).meta_fit(tasks, rng=5)


def test_bayes_factor_of_fitted_models_does_not_refit(setup):
    P, th = setup
    t = TheoryTaskSampler(th, P, n_tasks=2, n_support=(40,), n_query=5, rng=2)
    X, y = t[0].X_support, t[0].y_support
    A, B = FixedFeatureGP(th.sample_filters(3, rng=0)), PixelRBFGP()
    ref = bayes_factor(A, B, X, y)
    ga, gb = A.fit(X, y), B.fit(X, y)
    fast = bayes_factor(ga, gb)
    assert np.allclose(fast.log_bf, ref.log_bf, atol=1e-10)
    assert np.allclose(bayes_factor(ga, gb, X, y).log_bf, ref.log_bf, atol=1e-10)
    assert np.allclose(bayes_factor(A, B, X, y, refit=False).log_bf, ref.log_bf, atol=1e-10)
    assert np.allclose(A.log_evidence(X, y, refit=False), ga.log_evidence_, atol=1e-12)
    # another neuron: refit=False must not reuse the cached fit of the first one
    X2, y2 = t[1].X_support, t[1].y_support
    assert np.allclose(A.log_evidence(X2, y2, refit=False), A.log_evidence(X2, y2), atol=1e-10)
    with pytest.raises(InputError, match="model_a"):
        bayes_factor(ga, gb, X2, y2)
    with pytest.raises(InputError, match="stimuli"):
        bayes_factor(A, gb)
    with pytest.raises(InputError, match="responses"):
        bayes_factor(ga, gb, X, None)
