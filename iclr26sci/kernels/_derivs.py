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


def evidence_derivatives(F: torch.Tensor, z: torch.Tensor, psi: torch.Tensor, hessian: bool = True,
                         hessian_dtype: torch.dtype | None = None):
    r"""Return ``(L (B,), grad (B, P), hess (B, P, P) or None)`` of the exact log evidence.

    Implementation notes (speed, same mathematics): with :math:`G = A^{-1}`,
    :math:`S = (\alpha\alpha^\top - G)\circ K` and :math:`K G = I - \sigma^2 G`,
    the gradient entries are :math:`\tfrac12\langle S, E_l\rangle` (one GEMV over the
    explicit squared differences: the algebraic expansion :math:`(S\mathbf 1)^\top u_l^{\circ2} - u_l^\top S u_l`
    is cheaper but loses digits to cancellation; with it the quick-profile few-shot check T6 failed, measured);
    the trace terms use :math:`N_l = A_l G` (one batched GEMM for all length-scales)
    and :math:`\operatorname{tr}(GA_iGA_j) = \langle N_i, N_j^\top\rangle`, with the
    output-scale and noise blocks in closed form (:math:`GK = I-\sigma^2 G`).

    ``hessian_dtype=torch.float32`` computes only the Hessian's O(m n^3) products in
    single precision (relative error ~1e-6; used for Newton *directions*, whose
    acceptance and convergence are judged on the float64 value and gradient).
    Value and gradient are always float64; the default Hessian is float64 (exact).
    """
    log_s2, log_l, log_n, c = unpack_psi(psi)
    B, n, m = F.shape
    q = log_l.shape[-1]  # m (ARD) or 1 (isotropic)
    iso = q == 1
    if iso:  # one squared-distance matrix, never the (B, m, n, n) tensor
        Us = F * torch.exp(-log_l)[:, :, None]
        sq = (Us * Us).sum(-1)
        D = (sq[:, :, None] + sq[:, None, :] - 2.0 * Us @ Us.transpose(-1, -2)).clamp_min(0.0)
        E = D[:, None]
    else:  # explicit differences: no cancellation in the kernel or in the gradient entries <S, E_l>
        Ut = (F * torch.exp(-log_l)[:, None, :]).transpose(1, 2).contiguous()  # (B, m, n)
        E = Ut[:, :, :, None] - Ut[:, :, None, :]
        E = E * E  # (B, q, n, n); not in place: the gradient may be differentiated (IFT mixed term)
        D = E.sum(1)
    K = torch.exp(log_s2)[:, None, None] * torch.exp(-0.5 * D)
    noise = torch.exp(log_n)
    A = K.clone()
    A.diagonal(dim1=-2, dim2=-1).add_(noise[:, None])
    L = stable_cholesky(A)
    r = z - c[:, None]
    alpha = torch.cholesky_solve(r[..., None], L)[..., 0]
    G = torch.cholesky_inverse(L)
    logdet = 2.0 * torch.log(L.diagonal(dim1=-2, dim2=-1)).sum(-1)
    val = -0.5 * (r * alpha).sum(-1) - 0.5 * logdet - 0.5 * n * LOG2PI
    W = alpha[:, :, None] * alpha[:, None, :] - G  # (B, n, n)
    S = W * K  # (B, n, n), symmetric
    Ef = E.reshape(B, q, n * n)
    SE = (Ef @ S.reshape(B, n * n, 1))[..., 0]  # <S, E_l>  (B, q)
    trW = W.diagonal(dim1=-2, dim2=-1).sum(-1)
    g_a = 0.5 * S.sum((-1, -2))
    g_l = 0.5 * SE
    g_n = 0.5 * noise * trW
    g_c = alpha.sum(-1)
    grad = torch.cat([g_a[:, None], g_l, g_n[:, None], g_c[:, None]], 1)
    if not hessian:
        return val, grad, None
    hd = F.dtype if hessian_dtype is None else hessian_dtype
    P = q + 3
    H = torch.zeros(B, P, P, dtype=F.dtype)
    ia, il, i_n = 0, slice(1, q + 1), q + 1
    E = E.to(hd)  # the squared-difference matrices in the Hessian's precision
    Kh, Gh, Sh = K.to(hd), G.to(hd), S.to(hd)
    # A_ij terms: 1/2 <W, A_ij>; A_aa = K, A_al = K o E_l, A_lk = K o E_l o E_k - 2 delta_lk K o E_l, A_nn = s_n^2 I
    H[:, ia, ia] = g_a
    H[:, ia, il] = g_l
    H[:, il, ia] = g_l
    Ef = E.reshape(B, q, n * n)
    H[:, il, il] = (0.5 * (Ef * Sh.reshape(B, 1, n * n)) @ Ef.transpose(1, 2)).to(F.dtype) - torch.diag_embed(SE)
    H[:, i_n, i_n] = g_n
    # - alpha^T A_i G A_j alpha + 1/2 tr(G A_i G A_j), derivative matrices A_a = K, A_l = K o E_l, A_n = s_n^2 I
    Al = E.mul_(Kh[:, None]) if not torch.is_grad_enabled() else E * Kh[:, None]  # (B, q, n, n)
    Nl = (Al.reshape(B, q * n, n) @ Gh).reshape(B, q, n, n)  # A_l G = (G A_l)^T
    Pm = -noise[:, None, None] * G  # G K = K G = I - s_n^2 G
    Pm.diagonal(dim1=-2, dim2=-1).add_(1.0)
    Gn = noise[:, None, None] * G  # G A_n
    NlT = Nl.transpose(-1, -2).reshape(B, q, n * n)
    Nlf = Nl.reshape(B, q, n * n)
    T = torch.empty(B, q + 2, q + 2, dtype=F.dtype)  # tr(G A_i G A_j), order (a, l..., n)
    T[:, 1:q + 1, 1:q + 1] = (Nlf @ NlT.transpose(1, 2)).to(F.dtype)
    base = torch.stack([Pm, Gn], 1).reshape(B, 2, n * n)  # symmetric: tr(G A_b G A_l) = <G A_b, N_l>
    cross = (base.to(hd) @ Nlf.transpose(1, 2)).to(F.dtype)  # (B, 2, q)
    T[:, 0, 1:q + 1] = cross[:, 0]
    T[:, 1:q + 1, 0] = cross[:, 0]
    T[:, q + 1, 1:q + 1] = cross[:, 1]
    T[:, 1:q + 1, q + 1] = cross[:, 1]
    bb = base @ base.transpose(1, 2)
    T[:, 0, 0] = bb[:, 0, 0]
    T[:, 0, q + 1] = bb[:, 0, 1]
    T[:, q + 1, 0] = bb[:, 1, 0]
    T[:, q + 1, q + 1] = bb[:, 1, 1]
    U = torch.cat([(r - noise[:, None] * alpha)[:, None],  # K alpha = r - s_n^2 alpha
                   (Al.reshape(B, q * n, n) @ alpha.to(hd)[..., None]).reshape(B, q, n).to(F.dtype),
                   (noise[:, None] * alpha)[:, None]], 1)  # A_i alpha (B, q+2, n)
    GU = torch.cholesky_solve(U.transpose(1, 2), L)  # (B, n, q+2)
    H[:, :q + 2, :q + 2] += -U @ GU + 0.5 * T
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
