"""Closed-form gradient and Hessian of the GP log evidence with respect to psi.

For :math:`L = -\\tfrac12 r^\\top A^{-1} r - \\tfrac12\\log|A| - \\tfrac n2\\log 2\\pi`,
:math:`A = s^2 K_0 + \\sigma^2 I`, :math:`r = y - c\\mathbf 1`, :math:`\\alpha = A^{-1}r`,
:math:`\\beta = A^{-1}\\mathbf 1`:

.. math::
    \\partial_i L &= \\tfrac12\\alpha^\\top A_i\\alpha - \\tfrac12\\operatorname{tr}(A^{-1}A_i),\\qquad
    \\partial_c L = \\mathbf 1^\\top\\alpha,\\\\
    \\partial_{ij} L &= \\tfrac12\\alpha^\\top A_{ij}\\alpha - \\tfrac12\\operatorname{tr}(A^{-1}A_{ij})
        - \\alpha^\\top A_i A^{-1} A_j\\alpha + \\tfrac12\\operatorname{tr}(A^{-1}A_iA^{-1}A_j),\\\\
    \\partial_{ci} L &= -\\beta^\\top A_i\\alpha,\\qquad \\partial_{cc}L = -\\mathbf 1^\\top\\beta,

with :math:`\\partial_{\\log s^2}A = K`, :math:`\\partial_{\\log\\ell_l}A = K\\circ E_l`,
:math:`E_l = (u_l-u'_l)^2/\\ell_l^2`, :math:`\\partial_{\\log\\sigma^2}A = \\sigma^2 I`,
and :math:`\\partial_{\\log\\ell_l}\\partial_{\\log\\ell_k}A = K\\circ E_l\\circ E_k - 2\\delta_{lk}K\\circ E_l`.
Everything is plain tensor algebra (batched over tasks), so the gradient is
itself differentiable with respect to the features (for the IFT mixed term)
and the Hessian costs a few matrix products instead of P backward passes.
"""
from __future__ import annotations

import torch

from ._gp import LOG2PI, stable_cholesky, unpack_psi

__all__ = ["evidence_derivatives", "prior_derivatives"]


def evidence_derivatives(F: torch.Tensor, z: torch.Tensor, psi: torch.Tensor, hessian: bool = True):
    """Return ``(L (B,), grad (B, P), hess (B, P, P) or None)`` of the exact log evidence."""
    log_s2, log_l, log_n, c = unpack_psi(psi)
    B, n, m = F.shape
    q = log_l.shape[-1]  # m (ARD) or 1 (isotropic)
    if q == 1:  # isotropic: one squared-distance matrix, never the (B, n, n, m) tensor
        sq = (F * F).sum(-1)
        D = (sq[:, :, None] + sq[:, None, :] - 2.0 * F @ F.transpose(-1, -2)).clamp_min(0.0)[:, None]
        E = D * torch.exp(-2.0 * log_l)[:, :, None, None]  # (B, 1, n, n)
    else:
        Fs = (F * torch.exp(-log_l)[:, None, :]).transpose(1, 2)  # (B, m, n)
        E = (Fs[:, :, :, None] - Fs[:, :, None, :]) ** 2  # (B, q, n, n)
    K = torch.exp(log_s2)[:, None, None] * torch.exp(-0.5 * E.sum(1))
    eye = torch.eye(n, dtype=F.dtype)
    noise = torch.exp(log_n)
    A = K + noise[:, None, None] * eye
    L = stable_cholesky(A)
    r = z - c[:, None]
    alpha = torch.cholesky_solve(r[..., None], L)[..., 0]
    Ainv = torch.cholesky_inverse(L)
    logdet = 2.0 * torch.log(L.diagonal(dim1=-2, dim2=-1)).sum(-1)
    val = -0.5 * (r * alpha).sum(-1) - 0.5 * logdet - 0.5 * n * LOG2PI
    # first-derivative matrices: a = log s2, lambda_l, b = log sigma2
    KE = K[:, None] * E  # (B, q, n, n)
    D1 = torch.cat([K[:, None], KE, (noise[:, None, None] * eye)[:, None]], 1)  # (B, q+2, n, n)
    W = alpha[:, :, None] * alpha[:, None, :] - Ainv  # (B, n, n)
    g_main = 0.5 * (W[:, None] * D1).sum((-1, -2))
    g_c = alpha.sum(-1, keepdim=True)
    grad = torch.cat([g_main, g_c], 1)
    if not hessian:
        return val, grad, None
    P = q + 3
    H = torch.zeros(B, P, P, dtype=F.dtype)
    WK = W * K
    # second-derivative matrices A_ij contribution: 1/2 sum(W o A_ij)
    H[:, 0, 0] = 0.5 * WK.sum((-1, -2))
    WKE = (WK[:, None] * E).sum((-1, -2))  # (B, q)
    H[:, 0, 1:q + 1] = 0.5 * WKE
    H[:, 1:q + 1, 0] = 0.5 * WKE
    Ef = E.reshape(B, q, n * n)
    H[:, 1:q + 1, 1:q + 1] = 0.5 * (Ef * WK.reshape(B, 1, n * n)) @ Ef.transpose(1, 2) - torch.diag_embed(WKE)
    H[:, q + 1, q + 1] = 0.5 * noise * W.diagonal(dim1=-2, dim2=-1).sum(-1)
    # - alpha^T A_i A^{-1} A_j alpha + 1/2 tr(A^{-1} A_i A^{-1} A_j)
    U = (D1 @ alpha[:, None, :, None])[..., 0]  # A_i alpha (B, Q, n)
    AU = torch.cholesky_solve(U.transpose(1, 2), L)  # (B, n, q+2)
    M = Ainv[:, None] @ D1  # (B, q+2, n, n)
    Q = D1.shape[1]
    MT = M.transpose(-1, -2).reshape(B, Q, n * n)
    main = -U @ AU + 0.5 * M.reshape(B, Q, n * n) @ MT.transpose(1, 2)
    H[:, :q + 2, :q + 2] += main
    ones = torch.ones(B, n, 1, dtype=F.dtype)
    beta = torch.cholesky_solve(ones, L)[..., 0]
    hc = -(U * beta[:, None, :]).sum(-1)
    H[:, -1, :q + 2] = hc
    H[:, :q + 2, -1] = hc
    H[:, -1, -1] = -beta.sum(-1)
    return val, grad, H


def prior_derivatives(psi: torch.Tensor, centre: torch.Tensor, scale: float | None):
    """Value, gradient and Hessian of the normal hyper-prior on the log-parameters."""
    from ._gp import log_prior

    val = log_prior(psi, centre, scale)
    g = torch.zeros_like(psi)
    H = torch.zeros(*psi.shape, psi.shape[-1], dtype=psi.dtype)
    if scale is not None:
        g[..., :-1] = -(psi[..., :-1] - centre[..., :-1]) / scale ** 2
        idx = torch.arange(psi.shape[-1] - 1)
        H[..., idx, idx] = -1.0 / scale ** 2
    return val, g, H
