r"""The outlier-robust (trimmed) L1 flow loss and the evaluation metrics."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError

__all__ = ["trimmed_l1", "flow_metrics", "check_trim"]


def check_trim(trim, name="trim"):
    """Validate a trim fraction in ``[0, 0.5)``.

    Examples
    --------
    >>> check_trim(0.1)
    0.1
    """
    if isinstance(trim, bool) or not isinstance(trim, (int, float, np.floating)) or not 0 <= float(trim) < 0.5:
        raise InputError(name, f"got {trim!r}", "a fraction in [0, 0.5) of the largest residuals to drop")
    return float(trim)


def trimmed_l1(pred, target, mask=None, trim=0.1):
    r"""Trimmed L1 flow loss: the mean of the :math:`(1-\tau)` smallest residuals over the valid pixels.

    .. math:: e(x) = \|F(x) - F_S(x)\|_1,\qquad
              L_F = \frac{1}{|\Omega_\tau|}\sum_{x\in\Omega_\tau} e(x),

    where :math:`\Omega_\tau` keeps, in each sample, the :math:`\lceil(1-\tau)\,n\rceil` smallest residuals
    of its ``n`` valid pixels (the largest :math:`\tau` fraction is dropped, and gets zero gradient).
    ``trim=0`` is the plain masked L1. :math:`\tau` is not given in the paper note; 0.1 is [recon].

    Parameters
    ----------
    pred, target : tensor (B, 2, H, W)
        Predicted and label flow.
    mask : bool tensor (B, H, W) or (B, 1, H, W), optional
        Valid labels (default all).
    trim : float in [0, 0.5)
        Fraction ``tau`` of the largest residuals to discard.

    Returns
    -------
    loss : scalar tensor
        0 (with zero gradient) when ``mask`` marks no pixel valid: a batch without labels carries no signal.

    References
    ----------
    DCFlow (arXiv:2509.24423), outlier-robust loss.

    Examples
    --------
    >>> import torch
    >>> p = torch.zeros(1, 2, 1, 10); t = torch.zeros(1, 2, 1, 10); t[0, 0, 0, 0] = 100.0
    >>> float(trimmed_l1(p, t, trim=0.0)), float(trimmed_l1(p, t, trim=0.1))
    (10.0, 0.0)
    """
    import torch

    from ._validate import check_same_device, check_tensor

    trim = check_trim(trim)
    for name, x in (("pred", pred), ("target", target)):
        check_tensor(x, name, ndim=4, channels=2)
    check_same_device(target, "target", pred.device, "pred")
    if pred.shape != target.shape:
        raise InputError("target", f"has shape {tuple(target.shape)} but pred has {tuple(pred.shape)}", "equal shapes")
    B = pred.shape[0]
    e = (pred - target).abs().sum(1).reshape(B, -1)
    if mask is None:
        m = torch.ones_like(e, dtype=torch.bool)
    else:
        try:
            m = torch.as_tensor(mask, device=e.device)
        except (TypeError, ValueError, RuntimeError):
            raise InputError("mask", f"got {type(mask).__name__}", "a boolean tensor (B, H, W)") from None
        if m.dtype != torch.bool:
            if m.is_complex() or (m.numel() and not bool(((m == 0) | (m == 1)).all())):
                raise InputError("mask", "has values other than 0 and 1", "a boolean (or 0/1) mask")
        m = m.bool()
        if m.ndim == 4:
            m = m[:, 0]
        if tuple(m.shape) != (B, *pred.shape[2:]):
            raise InputError("mask", f"has shape {tuple(m.shape)}", f"({B}, {pred.shape[2]}, {pred.shape[3]})")
        m = m.reshape(B, -1)
    n = m.sum(1)
    if int(n.sum()) == 0:                     # no valid label in the batch: no signal, zero loss and gradient
        return e.sum() * 0.0
    if trim == 0.0:
        return (e * m).sum() / n.sum()
    key = torch.where(m, e.detach(), torch.full_like(e, float("inf")))
    order = key.argsort(1)
    rank = torch.empty_like(order)
    rank.scatter_(1, order, torch.arange(e.shape[1], device=e.device).expand(B, -1).contiguous())
    k = torch.ceil((1.0 - trim) * n.to(e.dtype)).long()
    keep = m & (rank < k[:, None])
    return (e * keep).sum() / keep.sum().clamp_min(1)


def flow_metrics(flow, gt, mask=None):
    """End-point error and KITTI F1-all of a predicted flow against ground truth.

    Parameters
    ----------
    flow, gt : array (H, W, 2) (or (N, H, W, 2))
        Predicted and true flow, ``(u, v)`` last.
    mask : bool array (H, W), optional
        Pixels with valid ground truth.

    Returns
    -------
    dict
        ``{"epe": mean |f - g| in px, "f1": fraction with error > 3 px and > 5 % of |g|, "n": valid pixels}``
        (computed with :func:`iclr26sci.geom.epe` and :func:`iclr26sci.geom.flow_f1_all`).

    Examples
    --------
    >>> flow_metrics(np.zeros((2, 2, 2)), np.full((2, 2, 2), 3.0))["epe"]   # sqrt(18)
    4.242640687119285
    """
    import torch

    from iclr26sci.geom import epe, flow_f1_all

    arrs = {}
    for name, x in (("flow", flow), ("gt", gt)):
        try:
            arrs[name] = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(name, f"got {type(x).__name__}", "a numeric flow array (..., H, W, 2)") from None
        if arrs[name].ndim < 3 or arrs[name].shape[-1] != 2:
            raise InputError(name, f"has shape {arrs[name].shape}", "a flow array (H, W, 2) or (N, H, W, 2)")
    p, g = arrs["flow"], arrs["gt"]
    if p.shape != g.shape:
        raise InputError("gt", f"has shape {g.shape} but flow has {p.shape}", "equal shapes (..., H, W, 2)")
    if np.isinf(g).any():
        raise InputError("gt", "has infinite values", "finite flow (NaN marks pixels without ground truth)")
    if mask is None:
        m = np.isfinite(g).all(-1)
    else:
        try:
            m = np.asarray(mask)
        except (TypeError, ValueError):
            raise InputError("mask", f"got {type(mask).__name__}", "a boolean array (H, W)") from None
        if m.dtype != bool:
            if m.dtype.kind not in "iuf" or (m.size and not np.isin(m, (0, 1)).all()):
                raise InputError("mask", "has values other than 0 and 1", "a boolean (or 0/1) mask")
            m = m.astype(bool)
        if m.shape != p.shape[:-1]:
            raise InputError("mask", f"has shape {m.shape}", f"{p.shape[:-1]} (one flag per pixel)")
        m = m & np.isfinite(g).all(-1)
    if not m.any():
        raise InputError("mask", "marks no pixel valid", "at least one valid pixel")
    if not np.isfinite(p[m]).all():
        raise InputError("flow", "has NaN or infinite values at valid pixels", "finite flow")
    g = np.where(m[..., None], g, 0.0)
    p = np.where(m[..., None], p, 0.0)
    pt, gt_, mt = torch.as_tensor(p), torch.as_tensor(g), torch.as_tensor(m)
    return {"epe": float(epe(pt, gt_, mt)), "f1": float(flow_f1_all(pt, gt_, mt)), "n": int(m.sum())}
