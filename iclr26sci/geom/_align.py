"""Umeyama / Procrustes similarity alignment of point sets."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from iclr26sci.core import InputError

__all__ = ["umeyama", "SimilarityTransform"]


@dataclass(frozen=True)
class SimilarityTransform:
    """``y = scale * R @ x + t``, the result of :func:`umeyama`.

    Attributes
    ----------
    scale : tensor (...)
    R : tensor (..., d, d)
    t : tensor (..., d)
    rmse : tensor (...)
        Root-mean-square residual of the fit.

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.geom import umeyama
    >>> x = torch.tensor([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=torch.float64)
    >>> T = umeyama(x, 3 * x + 1)
    >>> torch.allclose(T.apply(x), 3 * x + 1), float(T.rmse) < 1e-12
    (True, True)
    """

    scale: torch.Tensor
    R: torch.Tensor
    t: torch.Tensor
    rmse: torch.Tensor

    def apply(self, x) -> torch.Tensor:
        """Transform points ``x (..., N, d)``."""
        return self.scale[..., None, None] * x @ self.R.transpose(-1, -2) + self.t[..., None, :]

    def matrix(self) -> torch.Tensor:
        """The ``(d+1) x (d+1)`` homogeneous matrix."""
        d = self.R.shape[-1]
        top = torch.cat([self.scale[..., None, None] * self.R, self.t[..., :, None]], -1)
        bottom = torch.zeros(*top.shape[:-2], 1, d + 1, dtype=top.dtype, device=top.device)
        bottom[..., 0, d] = 1
        return torch.cat([top, bottom], -2)

    def __repr__(self):
        return f"SimilarityTransform(scale={self.scale.tolist()}, rmse={self.rmse.tolist()})"

    def to_dict(self) -> dict:
        return {"scale": self.scale, "R": self.R, "t": self.t, "rmse": self.rmse}

    def summary(self) -> str:
        return f"similarity transform, scale {self.scale.tolist()}, RMS residual {self.rmse.tolist()}"


def umeyama(src, dst, *, with_scale: bool = True) -> SimilarityTransform:
    r"""Least-squares similarity (or rigid) transform taking ``src`` onto ``dst``.

    Minimises :math:`\sum_i |y_i - (s R x_i + t)|^2` over rotations ``R`` (det +1), ``t`` and, with
    ``with_scale``, ``s > 0``. With :math:`\Sigma = \frac1N\sum (y_i-\bar y)(x_i-\bar x)^\top = U D V^\top`
    and :math:`S = \mathrm{diag}(1, \dots, 1, \det U \det V)`: :math:`R = U S V^\top`,
    :math:`s = \mathrm{tr}(DS)/\sigma_x^2`, :math:`t = \bar y - s R \bar x`.

    Parameters
    ----------
    src, dst : tensor (..., N, d)
        Corresponding points: N >= d, and the centred ``src`` points spanning at least d - 1
        dimensions (not all collinear in 3-D), so that the rotation is unique; otherwise ``InputError``.
    with_scale : bool
        Estimate the scale (similarity, Umeyama) or fix it to 1 (rigid, Kabsch / Procrustes).

    Returns
    -------
    SimilarityTransform

    References
    ----------
    Umeyama, "Least-squares estimation of transformation parameters between two point patterns",
    IEEE TPAMI 13(4), 1991.

    Examples
    --------
    >>> import torch
    >>> x = torch.tensor([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=torch.float64)
    >>> y = 2 * x + torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    >>> T = umeyama(x, y)
    >>> round(float(T.scale), 6), [round(v, 6) for v in T.t.tolist()]
    (2.0, [1.0, 2.0, 3.0])
    """
    from ._transforms import _as_tensor

    if not isinstance(with_scale, bool):
        raise InputError("with_scale", f"got {with_scale!r}", "True or False")
    src = _as_tensor(src, "src", ()) if not isinstance(src, torch.Tensor) else src
    dst = _as_tensor(dst, "dst", ()) if not isinstance(dst, torch.Tensor) else dst
    for name, x in (("src", src), ("dst", dst)):
        if not x.is_floating_point() or x.ndim < 2:
            raise InputError(name, f"has shape {tuple(x.shape)} and dtype {x.dtype}", "a float tensor (..., N, d)")
        if not bool(torch.isfinite(x).all()):
            raise InputError(name, "contains NaN or infinite values", "finite points")
    if src.shape != dst.shape:
        raise InputError("dst", f"has shape {tuple(dst.shape)} but src has {tuple(src.shape)}", "corresponding points")
    n, d = src.shape[-2], src.shape[-1]
    if n < d:
        raise InputError("src", f"has {n} point(s) in {d}-D", f"at least d = {d} corresponding points, not all on "
                         "one (d-2)-dimensional subspace, for a unique rotation")
    mx, my = src.mean(-2, keepdim=True), dst.mean(-2, keepdim=True)
    xc, yc = src - mx, dst - my
    var_x = (xc * xc).sum((-1, -2)) / n
    if bool((var_x <= 1e-300).any()):
        raise InputError("src", "has all points equal", "points with spread")
    # a unique rotation needs the centred source points to span at least d - 1 dimensions
    sv = torch.linalg.svdvals(xc.detach())
    rel = 1e-6 if src.dtype == torch.float64 else 1e-4
    if d >= 2 and bool((sv[..., d - 2] <= rel * sv[..., 0]).any()):
        raise InputError("src", f"spans fewer than {d - 1} dimensions (points collinear or coincident)",
                         f"points spanning at least {d - 1} dimensions, so that the rotation is determined")
    if with_scale and bool(((yc * yc).sum((-1, -2)) / n <= 1e-300).any()):
        raise InputError("dst", "has all points equal (the fitted scale would be 0)", "target points with spread")
    cov = yc.transpose(-1, -2) @ xc / n
    U, D, Vh = torch.linalg.svd(cov)
    sign = torch.sign(torch.linalg.det(U) * torch.linalg.det(Vh))
    sign = torch.where(sign == 0, torch.ones_like(sign), sign)
    S = torch.ones(*D.shape, dtype=D.dtype, device=D.device)
    S = torch.cat([S[..., :-1], sign[..., None]], -1)
    R = U @ torch.diag_embed(S) @ Vh
    scale = (D * S).sum(-1) / var_x if with_scale else torch.ones_like(var_x)
    t = my[..., 0, :] - scale[..., None] * (R @ mx[..., 0, :, None])[..., 0]
    res = dst - (scale[..., None, None] * src @ R.transpose(-1, -2) + t[..., None, :])
    rmse = (res * res).sum(-1).mean(-1).sqrt()
    return SimilarityTransform(scale=scale, R=R, t=t, rmse=rmse)
