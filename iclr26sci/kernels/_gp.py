"""Exact Gaussian-process layer in float64: ARD-RBF kernel, evidence, posterior.

All functions are batched over a leading task/neuron axis and twice
differentiable (the implicit hypergradient needs second derivatives), so
they are written directly in torch. :func:`gpytorch_log_evidence` evaluates
the same quantity through gpytorch's ``ExactGP`` and multiplies gpytorch's
per-datum marginal log likelihood by ``n`` to put it on the closed-form scale.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from iclr26sci.core import InputError, check_array, check_in_range

__all__ = [
    "KernelCholeskyError", "psi_size", "unpack_psi", "default_psi", "rbf_kernel", "stable_cholesky",
    "log_evidence", "predictive", "query_log_density", "log_prior", "gpytorch_log_evidence",
    "numpy_log_evidence",
]

LOG2PI = math.log(2.0 * math.pi)
DTYPE = torch.float64


class KernelCholeskyError(InputError):
    """The kernel matrix stayed non positive definite after progressive jitter (an :class:`InputError`).

    Examples
    --------
    >>> stable_cholesky(torch.tensor([[[1.0, 2.0], [2.0, 1.0]]], dtype=torch.float64))
    Traceback (most recent call last):
    ...
    iclr26sci.kernels._gp.KernelCholeskyError: invalid argument `stimuli`: the kernel matrix is not positive definite...
    """


def psi_size(n_lengthscales: int) -> int:
    """Number of task-specific hyper-parameters: log s^2, log l (n_lengthscales), log sigma^2, c."""
    return n_lengthscales + 3


def unpack_psi(psi: torch.Tensor):
    """Split ``psi`` (..., P) into (log s^2, log l (..., P-3), log sigma^2, c)."""
    return psi[..., 0], psi[..., 1:-2], psi[..., -2], psi[..., -1]


def default_psi(batch: int, n_lengthscales: int, feature_scale: float, noise: float = 0.5) -> torch.Tensor:
    """The fixed initialisation of the inner problem (also the centre of the hyper-prior).

    Responses are standardised inside the GP, so unit output scale, noise
    variance ``noise`` and length-scales ``feature_scale`` are neutral.
    """
    p = torch.zeros(batch, psi_size(n_lengthscales), dtype=DTYPE)
    p[:, 1:-2] = math.log(feature_scale)
    p[:, -2] = math.log(noise)
    return p


def log_prior(psi: torch.Tensor, centre: torch.Tensor, scale: float | None) -> torch.Tensor:
    """Weak independent normal hyper-prior on the log-parameters (none on the constant mean).

    .. math:: \\log p(\\psi) = \\sum_j \\log \\mathcal N(\\psi_j; \\psi^0_j, s^2)
    """
    if scale is None:
        return torch.zeros(psi.shape[:-1], dtype=psi.dtype)
    d = (psi[..., :-1] - centre[..., :-1]) / scale
    k = psi.shape[-1] - 1
    return -0.5 * (d * d).sum(-1) - k * (math.log(scale) + 0.5 * LOG2PI)


def rbf_kernel(F1: torch.Tensor, F2: torch.Tensor, log_s2: torch.Tensor, log_l: torch.Tensor) -> torch.Tensor:
    """ARD-RBF kernel :math:`s^2 \\exp(-\\tfrac12\\sum_l (u_l-u'_l)^2/\\ell_l^2)`.

    ``F1`` (B, n, m), ``F2`` (B, k, m), ``log_l`` (B, m) or (B, 1) (isotropic).
    """
    inv = torch.exp(-log_l)[:, None, :]
    a = F1 * inv
    b = F2 * inv
    d2 = (a * a).sum(-1)[:, :, None] + (b * b).sum(-1)[:, None, :] - 2.0 * a @ b.transpose(-1, -2)
    d2 = d2.clamp_min(0.0)
    return torch.exp(log_s2)[:, None, None] * torch.exp(-0.5 * d2)


def kernel_matrix(F1, F2, psi, pix=None):
    """Prior covariance of the latent function: the ARD-RBF kernel on features, plus an optional pixel term.

    ``pix = (X1, X2, psi_pix)`` adds an isotropic RBF on the raw stimuli,
    :math:`s_P^2\\exp(-\\|x-x'\\|^2/2\\ell_P^2)` with ``psi_pix`` (B, 2) = (log s_P^2, log l_P)
    (the theory-plus-pixel sum kernel of :class:`TheoryInformedKernel`).
    """
    log_s2, log_l, _, _ = unpack_psi(psi)
    K = rbf_kernel(F1, F2, log_s2, log_l)
    if pix is not None:
        X1, X2, pp = pix
        K = K + rbf_kernel(X1, X2, pp[:, 0], pp[:, 1:2])
    return K


def stable_cholesky(A: torch.Tensor, max_tries: int = 6, argument: str = "stimuli") -> torch.Tensor:
    """Cholesky factor of a batch of SPD matrices, adding jitter progressively where it fails.

    Jitter starts at 1e-8 times the mean diagonal and grows tenfold per try
    (at most ``max_tries``); if a matrix is still not positive definite a
    :class:`KernelCholeskyError` names the cause.
    """
    L, info = torch.linalg.cholesky_ex(A)
    if not bool((info > 0).any()):
        return L
    eye = torch.eye(A.shape[-1], dtype=A.dtype)
    scale = A.diagonal(dim1=-2, dim2=-1).mean(-1).detach().abs().clamp_min(1e-300)
    jit = 1e-8
    for _ in range(max_tries):
        bad = (info > 0).to(A.dtype)
        A = A + (bad * scale * jit)[..., None, None] * eye
        L, info = torch.linalg.cholesky_ex(A)
        if not bool((info > 0).any()):
            return L
        jit *= 10.0
    raise KernelCholeskyError(
        argument,
        f"the kernel matrix is not positive definite even after jitter {jit / 10:g} x mean diagonal "
        "(duplicated stimuli with a vanishing noise variance, or non-finite features)",
        "distinct stimuli or a positive noise variance",
    )


def log_evidence(F: torch.Tensor, y: torch.Tensor, psi: torch.Tensor, pix=None) -> torch.Tensor:
    """Exact log marginal likelihood of a batch of GPs (one per row of ``psi``).

    .. math::
        \\log p(y\\mid X,\\psi) = -\\tfrac12 r^\\top A^{-1} r - \\tfrac12\\log|A| - \\tfrac n2 \\log 2\\pi,
        \\quad A = K + \\sigma^2 I,\\; r = y - c\\mathbf 1.

    ``F`` (B, n, m) features, ``y`` (B, n), ``psi`` (B, P). ``pix``: optional ``(X, X, psi_pix)``
    pixel term of the kernel (:func:`kernel_matrix`). Returns (B,).
    """
    log_s2, log_l, log_n, c = unpack_psi(psi)
    n = F.shape[-2]
    K = kernel_matrix(F, F, psi, pix)
    A = K + torch.exp(log_n)[:, None, None] * torch.eye(n, dtype=F.dtype)
    L = stable_cholesky(A)
    r = (y - c[:, None])[..., None]
    w = torch.linalg.solve_triangular(L, r, upper=False)
    quad = (w * w).sum((-1, -2))
    logdet = 2.0 * torch.log(L.diagonal(dim1=-2, dim2=-1)).sum(-1)
    return -0.5 * quad - 0.5 * logdet - 0.5 * n * LOG2PI


def predictive(F_s, y_s, psi, F_q, full_cov: bool = False, include_noise: bool = True, pix=None):
    """Exact posterior predictive at query features.

    .. math::
        \\mu_Q = c + K_{QS}A^{-1}r,\\quad \\Sigma_Q = K_{QQ} - K_{QS}A^{-1}K_{SQ} + \\sigma^2 I.

    Returns ``(mean (B, k), cov (B, k, k))`` or ``(mean, var (B, k))``. ``pix``: optional
    ``(X_s, X_q, psi_pix)``, the pixel term of the theory-plus-pixel kernel (:func:`kernel_matrix`).
    """
    log_s2, log_l, log_n, c = unpack_psi(psi)
    n = F_s.shape[-2]
    pss = None if pix is None else (pix[0], pix[0], pix[2])
    pqs = None if pix is None else (pix[1], pix[0], pix[2])
    pqq = None if pix is None else (pix[1], pix[1], pix[2])
    A = kernel_matrix(F_s, F_s, psi, pss) + torch.exp(log_n)[:, None, None] * torch.eye(n, dtype=F_s.dtype)
    L = stable_cholesky(A)
    Kqs = kernel_matrix(F_q, F_s, psi, pqs)
    r = (y_s - c[:, None])[..., None]
    alpha = torch.cholesky_solve(r, L)
    mean = c[:, None] + (Kqs @ alpha)[..., 0]
    V = torch.linalg.solve_triangular(L, Kqs.transpose(-1, -2), upper=False)  # (B, n, k)
    noise = torch.exp(log_n) if include_noise else torch.zeros_like(log_n)
    if full_cov:
        Kqq = kernel_matrix(F_q, F_q, psi, pqq)
        cov = Kqq - V.transpose(-1, -2) @ V + noise[:, None, None] * torch.eye(F_q.shape[-2], dtype=F_q.dtype)
        return mean, cov
    prior_var = torch.exp(log_s2) if pix is None else torch.exp(log_s2) + torch.exp(pix[2][:, 0])
    var = prior_var[:, None] - (V * V).sum(-2) + noise[:, None]
    return mean, var.clamp_min(1e-12)


def query_log_density(F_s, y_s, psi, F_q, y_q) -> torch.Tensor:
    """Joint predictive log density :math:`\\log\\mathcal N(y_Q\\mid\\mu_Q,\\Sigma_Q)` per task (B,)."""
    mean, cov = predictive(F_s, y_s, psi, F_q, full_cov=True)
    L = stable_cholesky(cov)
    w = torch.linalg.solve_triangular(L, (y_q - mean)[..., None], upper=False)
    k = y_q.shape[-1]
    return -0.5 * (w * w).sum((-1, -2)) - torch.log(L.diagonal(dim1=-2, dim2=-1)).sum(-1) - 0.5 * k * LOG2PI


def numpy_log_evidence(K: np.ndarray, y: np.ndarray, noise: float, mean: float = 0.0) -> float:
    """Reference closed form with numpy's Cholesky (for checks).

    .. math:: \\log p(y) = -\\tfrac12 r^\\top A^{-1}r - \\tfrac12\\log|A| - \\tfrac n2\\log 2\\pi,\\quad
        A = K + \\sigma^2 I,\\; r = y - c

    Parameters
    ----------
    K : array (n, n)
        Symmetric positive semi-definite prior covariance of the latent function at the n inputs.
    y : array (n,)
        Observations.
    noise : float >= 0
        Gaussian noise variance :math:`\\sigma^2`.
    mean : float
        Constant prior mean :math:`c`.

    Examples
    --------
    >>> round(numpy_log_evidence(np.eye(2), np.zeros(2), 1.0), 6)  # two independent N(0, 2)
    -2.531024
    """
    K = check_array(K, "K", ndim=2)
    n = K.shape[0]
    if K.shape != (n, n):
        raise InputError("K", f"has shape {K.shape}", "a square (n, n) covariance matrix")
    if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(K).max(initial=0.0)))):
        raise InputError("K", "is not symmetric", "a symmetric positive semi-definite covariance")
    y = check_array(y, "y", ndim=1, shape=(n,))
    noise = check_in_range(noise, "noise", 0.0, None)
    mean = check_in_range(mean, "mean")
    A = K + noise * np.eye(n)
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        raise InputError("K", "plus the noise variance is not positive definite",
                         "a positive semi-definite K (and noise > 0 if K is singular)") from None
    w = np.linalg.solve(L, y - mean)
    return float(-0.5 * w @ w - np.log(np.diag(L)).sum() - 0.5 * n * LOG2PI)


def gpytorch_log_evidence(F: np.ndarray, y: np.ndarray, outputscale: float, lengthscale, noise: float,
                          mean: float = 0.0) -> float:
    """The same evidence through gpytorch (``ExactMarginalLogLikelihood`` times ``n``).

    gpytorch returns the log marginal likelihood divided by the number of
    data and adds registered prior log densities; no priors are registered
    here, so ``n * mll`` is the closed-form evidence.

    Parameters
    ----------
    F : array (n, m)
        Inputs (features). y : array (n,), observations.
    outputscale : float > 0
        Kernel variance :math:`s^2`. lengthscale : float or array (m,) > 0, RBF length-scales.
    noise : float >= 1e-12
        Gaussian noise variance. mean : float, constant prior mean.

    Examples
    --------
    >>> F = np.linspace(0, 1, 5)[:, None]; y = np.sin(3 * F[:, 0])
    >>> K = np.exp(-0.5 * (F - F.T) ** 2 / 0.5 ** 2)
    >>> bool(abs(gpytorch_log_evidence(F, y, 1.0, 0.5, 0.1) - numpy_log_evidence(K, y, 0.1)) < 1e-6)
    True
    """
    import gpytorch

    F = check_array(F, "F", ndim=2, min_rows=1)
    y = check_array(y, "y", ndim=1, shape=(len(F),))
    outputscale = check_in_range(outputscale, "outputscale", 0.0, None, low_open=True)
    noise = check_in_range(noise, "noise", 1e-12, None)
    mean = check_in_range(mean, "mean")
    m = F.shape[1]
    ls = check_array(lengthscale, "lengthscale", ndim=(0, 1))
    if ls.ndim == 1 and len(ls) not in (1, m):
        raise InputError("lengthscale", f"has {len(ls)} entries for {m} features", f"a number or {m} length-scales")
    if np.any(ls <= 0):
        raise InputError("lengthscale", "has non-positive entries", "positive length-scales")
    ls = np.broadcast_to(ls, (m,))
    Ft = torch.as_tensor(F, dtype=DTYPE)
    yt = torch.as_tensor(y, dtype=DTYPE)

    class _GP(gpytorch.models.ExactGP):
        def __init__(self, x, t, lik):
            super().__init__(x, t, lik)
            self.mean_module = gpytorch.means.ConstantMean()
            self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel(ard_num_dims=m))

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))

    lik = gpytorch.likelihoods.GaussianLikelihood(noise_constraint=gpytorch.constraints.GreaterThan(1e-12))
    model = _GP(Ft, yt, lik).to(DTYPE)
    # float64 tensors: a Python float would go through gpytorch's constraint inverse in float32 (measured:
    # evidence off by ~5e-7 at outputscale 2.7)
    model.covar_module.outputscale = torch.tensor(outputscale, dtype=DTYPE)
    model.covar_module.base_kernel.lengthscale = torch.as_tensor(ls.copy(), dtype=DTYPE)[None, :]
    lik.noise = torch.tensor(noise, dtype=DTYPE)
    model.mean_module.constant.data.fill_(mean)
    model.train()
    lik.train()
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(lik, model)
    with gpytorch.settings.fast_computations(False, False, False), gpytorch.settings.cholesky_jitter(float_value=0.0, double_value=0.0):
        val = mll(model(Ft), yt)
    return float(val.detach()) * len(yt)
