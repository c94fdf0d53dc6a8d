"""Second-moment alignment maps: grouped CORAL and per-dimension mean-variance alignment."""
from __future__ import annotations

import numpy as np
import torch

from iclr26sci.core import InputError
from iclr26sci.nn._checks import check_psd


def _as_tensor(a, name, ndim=None):
    if isinstance(a, np.ndarray):
        if a.dtype.kind not in "biuf":
            raise InputError(name, f"has dtype {a.dtype}", "real numbers")
        a = torch.from_numpy(np.ascontiguousarray(a))
    elif not isinstance(a, torch.Tensor):
        raise InputError(name, f"got {type(a).__name__}", "a numpy array or a torch tensor")
    if ndim is not None and a.ndim != ndim:
        raise InputError(name, f"has shape {tuple(a.shape)}", f"a {ndim}-D array")
    if not a.is_floating_point():
        a = a.double()
    if not bool(torch.isfinite(a).all()):
        raise InputError(name, "contains NaN or infinite values", "finite numbers")
    if name == "X" and a.shape[0] == 0:
        raise InputError(name, f"has shape {tuple(a.shape)}: no rows", "at least one row of features")
    return a


def _check_eps(eps):
    from iclr26sci.core import check_in_range

    return check_in_range(eps, "eps", 0.0, None)


def _check_group(group_size, d):
    if group_size is None:
        return d
    if isinstance(group_size, bool) or not isinstance(group_size, (int, np.integer)) or group_size < 1:
        raise InputError("group_size", f"got {group_size!r}", "a positive integer or None (one full group)")
    if d % int(group_size):
        raise InputError("group_size", f"{group_size} does not divide the feature dimension {d}",
                         f"a divisor of {d} (block-diagonal groups of equal size), or None")
    return int(group_size)


def sym_sqrt(m: torch.Tensor, eps: float = 0.0, inverse: bool = False) -> torch.Tensor:
    """Symmetric (inverse) square root of a batch of symmetric matrices by ``eigh``, eigenvalues clamped at ``eps``."""
    m = 0.5 * (m + m.transpose(-1, -2))
    lam, v = torch.linalg.eigh(m)
    lam = lam.clamp_min(eps)
    f = lam.rsqrt() if inverse else lam.sqrt()
    return (v * f.unsqueeze(-2)) @ v.transpose(-1, -2)


def diag_blocks(m: torch.Tensor, g: int) -> torch.Tensor:
    """The ``D/g`` diagonal ``g x g`` blocks of a ``D x D`` matrix, shape ``(D/g, g, g)``."""
    d = m.shape[-1]
    k = d // g
    return m.reshape(k, g, k, g).diagonal(dim1=0, dim2=2).permute(2, 0, 1)


def block_diag(blocks: torch.Tensor) -> torch.Tensor:
    """Inverse of :func:`diag_blocks`: ``(k, g, g)`` blocks -> a ``kg x kg`` block-diagonal matrix."""
    return torch.block_diag(*blocks.unbind(0)) if blocks.shape[0] > 1 else blocks[0]


def coral_map(target_cov, source_cov_sqrt_blocks, g, eps):
    """The linear part ``A = blockdiag_g((Sigma_t,gg)^{-1/2} (Sigma_s,gg)^{1/2})`` of grouped CORAL.

    ``target_cov`` must be symmetric (up to rounding): ``eigh`` reads the lower triangle of each block, so
    no symmetrised copy is made. This runs for every aligned block of every PEA view, hence the few ops.
    """
    d = target_cov.shape[-1]
    lam, v = torch.linalg.eigh(target_cov[None] if g == d else diag_blocks(target_cov, g))
    f = lam.clamp_min_(eps).rsqrt_().unsqueeze_(-2)
    return block_diag((v * f) @ (v.transpose(-1, -2) @ source_cov_sqrt_blocks))


def coral_align(X, target_mean, target_cov, source_mean, source_cov, *, group_size=None, eps=1e-5):
    r"""Grouped CORAL alignment of features ``X`` from target moments to source moments.

    For each group ``g`` of ``group_size`` consecutive feature dimensions,

    .. math::

        Y_g = (X_g - \mu_{t,g})\, \Sigma_{t,gg}^{-1/2}\, \Sigma_{s,gg}^{1/2} + \mu_{s,g},

    with symmetric square roots from an eigendecomposition (eigenvalues of :math:`\Sigma_t` clamped at
    ``eps`` before the inverse root, those of :math:`\Sigma_s` at 0). If ``X`` has mean
    :math:`\mu_t` and covariance :math:`\Sigma_t`, then ``Y`` has mean :math:`\mu_s` and, within every
    group, covariance :math:`\Sigma_{s,gg}` exactly (cross-group blocks are not matched). CORAL cannot undo
    a rotation of isotropic features (:math:`\Sigma_s = \Sigma_t = I` gives the identity map).

    Parameters
    ----------
    X : array or tensor (n, D)
        Features, one row per token (a spatial position or a transformer token).
    target_mean, source_mean : array (D,)
        The mean the features have (target) and the mean they should have (source).
    target_cov, source_cov : array (D, D)
        The corresponding covariance matrices (symmetric positive semi-definite).
    group_size : int, optional
        Size of the block-diagonal groups; must divide ``D``. None: one full group.
    eps : float, default 1e-5
        Floor on the target covariance's eigenvalues (regularises the whitening).

    Returns
    -------
    tensor (n, D)
        The aligned features, in float64 when the inputs were integers, else in ``X``'s dtype.

    References
    ----------
    Sun, Feng and Saenko, "Return of frustratingly easy domain adaptation", AAAI 2016.
    Xiao et al., "Architecture-agnostic test-time adaptation via backprop-free embedding alignment", ICLR 2026.

    Examples
    --------
    >>> import torch
    >>> g = torch.Generator().manual_seed(0)
    >>> X = torch.randn(2000, 4, generator=g, dtype=torch.float64) * 3 + 1
    >>> mu, C = X.mean(0), torch.cov(X.T)
    >>> Y = coral_align(X, mu, C, torch.zeros(4), torch.eye(4), eps=0.0)
    >>> bool(torch.allclose(torch.cov(Y.T), torch.eye(4, dtype=torch.float64), atol=1e-10))
    True
    """
    X = _as_tensor(X, "X", 2)
    d = X.shape[1]
    mt = _as_tensor(target_mean, "target_mean", 1)
    ms = _as_tensor(source_mean, "source_mean", 1)
    ct = _as_tensor(target_cov, "target_cov", 2)
    cs = _as_tensor(source_cov, "source_cov", 2)
    for a, name in ((mt, "target_mean"), (ms, "source_mean")):
        if a.shape != (d,):
            raise InputError(name, f"has shape {tuple(a.shape)}", f"shape ({d},) to match X")
    for a, name in ((ct, "target_cov"), (cs, "source_cov")):
        if a.shape != (d, d):
            raise InputError(name, f"has shape {tuple(a.shape)}", f"shape ({d}, {d}) to match X")
        check_psd(a, name)
    g = _check_group(group_size, d)
    eps = _check_eps(eps)
    src_sqrt = sym_sqrt(diag_blocks(cs.double(), g))
    A = coral_map(ct.double(), src_sqrt, g, float(eps))
    Y = (X.double() - mt.double()) @ A + ms.double()
    return Y.to(X.dtype)


def mv_align(X, target_mean, target_var, source_mean, source_var, *, eps=1e-5):
    r"""Per-dimension mean-variance alignment: ``Y = (X - mu_t) sqrt((s2_s + eps) / (s2_t + eps)) + mu_s``.

    The "scaling-only" correction: it matches each dimension's mean and variance and leaves the
    correlations alone. With ``eps = 0`` it inverts any per-dimension positive affine shift
    ``X_t = X_s diag(a) + b`` (``a > 0``) exactly when the moments are those of the samples.

    Parameters
    ----------
    X : array or tensor (n, D)
        Features.
    target_mean, target_var : array (D,)
        Mean and variance the features have.
    source_mean, source_var : array (D,)
        Mean and variance they should have.
    eps : float, default 1e-5
        Added to both variances (guards against zero variance).

    Returns
    -------
    tensor (n, D)

    Examples
    --------
    >>> import torch
    >>> Xs = torch.randn(500, 3, dtype=torch.float64); Xt = Xs * torch.tensor([2., 0.5, 3.]) + 1
    >>> Y = mv_align(Xt, Xt.mean(0), Xt.var(0), Xs.mean(0), Xs.var(0), eps=0.0)
    >>> bool(torch.allclose(Y, Xs, atol=1e-10))
    True
    """
    X = _as_tensor(X, "X", 2)
    d = X.shape[1]
    arrs = {}
    for a, name in ((target_mean, "target_mean"), (target_var, "target_var"), (source_mean, "source_mean"),
                    (source_var, "source_var")):
        t = _as_tensor(a, name, 1)
        if t.shape != (d,):
            raise InputError(name, f"has shape {tuple(t.shape)}", f"shape ({d},) to match X")
        if name.endswith("var") and bool((t < 0).any()):
            raise InputError(name, "has negative entries", "variances >= 0")
        arrs[name] = t.double()
    eps = _check_eps(eps)
    denom = arrs["target_var"] + eps
    if bool((denom <= 0).any()):
        raise InputError("target_var", "has zero entries with eps = 0", "positive variances, or eps > 0")
    scale = ((arrs["source_var"] + eps) / denom).sqrt()
    Y = (X.double() - arrs["target_mean"]) * scale + arrs["source_mean"]
    return Y.to(X.dtype)


__all__ = ["coral_align", "mv_align"]
