r"""GaussianFusion's geometric operators: Gaussian covariances, LSS forward projection, MeanVFE pooling
and Gaussian-to-voxel splatting (pure torch, differentiable, device-agnostic).

A Gaussian is :math:`G = (\mu, s, r, q)`: mean :math:`\mu \in \mathbb{R}^3`, scales :math:`s \in \mathbb{R}^3_{>0}`,
unit quaternion :math:`r` (wxyz) and a feature vector :math:`q`. Its covariance is
:math:`\Sigma = R(r) S S^\top R(r)^\top` with :math:`S = \mathrm{diag}(s)` and its feature response at a point
:math:`p` is :math:`g(p) = \exp(-\tfrac12 (p-\mu)^\top \Sigma^{-1} (p-\mu))\, q`.

Grids here are axis-aligned: a :class:`Grid` covers ``lo .. hi`` with ``shape`` cells (x, y[, z]); cell
``(i, j, k)`` has its centre at ``lo + (idx + 0.5) * cell``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr26sci.core import InputError

__all__ = ["Grid", "quat_to_rotmat_t", "gaussian_covariance", "gaussian_precision", "mean_vfe", "splat_gaussians",
           "splat_reference", "lift_pixels", "voxel_index"]


@dataclass(frozen=True)
class Grid:
    """An axis-aligned voxel grid: ``shape`` = (nx, ny, nz) cells over the box ``lo .. hi`` (metres)."""

    lo: tuple
    hi: tuple
    shape: tuple

    def __post_init__(self):     # the public subclass iclr26sci.scene3d.Grid validates here
        pass

    @property
    def cell(self) -> np.ndarray:
        return (np.asarray(self.hi, float) - np.asarray(self.lo, float)) / np.asarray(self.shape, float)

    def centres(self, dtype=torch.float32, device=None) -> torch.Tensor:
        """Voxel centres, shape (nx, ny, nz, 3)."""
        axes = [torch.as_tensor(self.lo[i] + self.cell[i] * (np.arange(self.shape[i]) + 0.5), dtype=dtype,
                                device=device) for i in range(3)]
        return torch.stack(torch.meshgrid(*axes, indexing="ij"), -1)

    def with_bev(self, bev: int) -> "Grid":
        return Grid(self.lo, self.hi, (int(bev), int(bev), self.shape[2]))


def quat_to_rotmat_t(r: torch.Tensor) -> torch.Tensor:
    """Rotation matrices (..., 3, 3) of quaternions (..., 4) in wxyz order (normalised here)."""
    r = r / r.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    w, x, y, z = r.unbind(-1)
    return torch.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1).reshape(*r.shape[:-1], 3, 3)


def gaussian_covariance(scales: torch.Tensor, rots: torch.Tensor) -> torch.Tensor:
    r""":math:`\Sigma = R(r)\,\mathrm{diag}(s)^2 R(r)^\top`, shape (..., 3, 3)."""
    R = quat_to_rotmat_t(rots)
    return (R * scales[..., None, :] ** 2) @ R.transpose(-1, -2)


def gaussian_precision(scales: torch.Tensor, rots: torch.Tensor) -> torch.Tensor:
    r""":math:`\Sigma^{-1} = R\,\mathrm{diag}(s)^{-2} R^\top` (closed form, no matrix inverse)."""
    R = quat_to_rotmat_t(rots)
    return (R / scales[..., None, :] ** 2) @ R.transpose(-1, -2)


def voxel_index(points: torch.Tensor, grid: Grid, dims: int = 3):
    """Integer cell index (n, dims) of each point and a mask of points inside the grid's first ``dims`` axes."""
    lo = torch.as_tensor(np.asarray(grid.lo[:dims], float), dtype=points.dtype, device=points.device)
    cell = torch.as_tensor(grid.cell[:dims], dtype=points.dtype, device=points.device)
    idx = torch.floor((points[:, :dims] - lo) / cell).long()
    n = torch.as_tensor(grid.shape[:dims], device=points.device)
    inside = ((idx >= 0) & (idx < n)).all(1)
    return idx, inside


def mean_vfe(means, scales, rots, feats, grid: Grid, dims: int = 2):
    r"""MeanVFE Gaussian-to-voxel pooling: one averaged Gaussian per non-empty cell.

    Every Gaussian whose mean falls in a cell of ``grid`` (the BEV pillars when ``dims=2``, the 3-D
    voxels when ``dims=3``) is pooled with the others of that cell:

    .. math:: \hat g = \tfrac1M \Big[\sum_m \mu_m,\ \sum_m s_m,\ \sum_m r_m\Big], \qquad
              \hat q = \tfrac1M \sum_m q_m,

    with the averaged quaternion renormalised (each :math:`r_m` is first put on the hemisphere
    :math:`w \ge 0`, since :math:`r` and :math:`-r` are the same rotation [recon]). Gaussians outside the
    grid are dropped.

    Returns
    -------
    means, scales, rots, feats : tensors (n_cells, ...)
        One pooled Gaussian per non-empty cell, cells in increasing flat-index order.
    cells : LongTensor (n_cells,)
        The flat cell index of each pooled Gaussian.
    counts : LongTensor (n_cells,)
        How many Gaussians each pooled one averages (M).
    """
    idx, inside = voxel_index(means, grid, dims)
    shape = grid.shape[:dims]
    flat = idx[:, 0]
    for d in range(1, dims):
        flat = flat * shape[d] + idx[:, d]
    flat = flat[inside]
    rots = torch.where(rots[:, :1] < 0, -rots, rots)
    parts = [means[inside], scales[inside], rots[inside], feats[inside]]
    cells, inv, counts = torch.unique(flat, return_inverse=True, return_counts=True)
    out = []
    for a in parts:
        acc = torch.zeros((len(cells), a.shape[1]), dtype=a.dtype, device=a.device).index_add(0, inv, a)
        out.append(acc / counts[:, None].to(a.dtype))
    out[2] = out[2] / out[2].norm(dim=1, keepdim=True).clamp_min(1e-12)
    return out[0], out[1], out[2], out[3], cells, counts


def splat_gaussians(means, scales, rots, feats, grid: Grid, *, truncate: float | None = 3.0,
                    max_radius: int | None = None):
    r"""Gaussian-to-voxel splatting: :math:`f(p) = \sum_i \exp(-\tfrac12 (p-\mu_i)^\top\Sigma_i^{-1}(p-\mu_i))\,q_i`
    at every voxel centre :math:`p` of ``grid``.

    With ``truncate = k`` a Gaussian contributes only where its Mahalanobis distance is :math:`\le k`
    (the cells inside its :math:`k\sigma` ellipsoid, found from the ellipsoid's axis-aligned bounding box
    :math:`\pm k\sqrt{\Sigma_{jj}}`); ``truncate=None`` sums every Gaussian at every voxel (exact, dense).
    ``max_radius`` caps the search window (in cells) of one Gaussian; ``None`` never cuts a contribution.

    Returns
    -------
    Tensor (nx, ny, nz, C)
    """
    nx, ny, nz = grid.shape
    C = feats.shape[1]
    dt, dev = means.dtype, means.device
    P = gaussian_precision(scales, rots)
    cen = grid.centres(dt, dev)
    if truncate is None or len(means) == 0:
        if len(means) == 0:
            return torch.zeros((nx, ny, nz, C), dtype=feats.dtype, device=dev)
        pts = cen.reshape(-1, 3)
        out = torch.zeros((len(pts), C), dtype=feats.dtype, device=dev)
        step = max(1, 4_000_000 // max(1, len(pts)))
        for a in range(0, len(means), step):
            d = pts[None] - means[a:a + step, None]
            m2 = torch.einsum("npi,nij,npj->np", d, P[a:a + step], d)
            out = out + torch.exp(-0.5 * m2).T @ feats[a:a + step]
        return out.reshape(nx, ny, nz, C)
    cell = torch.as_tensor(grid.cell, dtype=dt, device=dev)
    lo = torch.as_tensor(np.asarray(grid.lo, float), dtype=dt, device=dev)
    Sig = gaussian_covariance(scales, rots)
    ext = truncate * torch.sqrt(torch.diagonal(Sig, dim1=-2, dim2=-1).clamp_min(0))   # (n, 3) half-extent
    rad = torch.ceil(ext / cell).long() + 1
    if max_radius is not None:
        rad = rad.clamp(max=int(max_radius))
    rad = torch.minimum(rad, torch.as_tensor([nx, ny, nz], device=dev))
    centre_idx = torch.floor((means - lo) / cell).long()
    out = torch.zeros((nx * ny * nz, C), dtype=feats.dtype, device=dev)
    # group Gaussians by window size so each group is one dense (n, window) evaluation
    windows, which = torch.unique(rad, dim=0, return_inverse=True)
    for k in range(len(windows)):
        sel = torch.nonzero(which == k).squeeze(1)
        rx, ry, rz = windows[k].tolist()
        off = torch.stack(torch.meshgrid(torch.arange(-rx, rx + 1, device=dev), torch.arange(-ry, ry + 1, device=dev),
                                         torch.arange(-rz, rz + 1, device=dev), indexing="ij"), -1).reshape(-1, 3)
        step = max(1, 2_000_000 // max(1, len(off) * max(1, C)))
        for a in range(0, len(sel), step):
            s = sel[a:a + step]
            ii = centre_idx[s, None, :] + off[None]                        # (n, w, 3)
            ok = ((ii >= 0) & (ii < torch.as_tensor([nx, ny, nz], device=dev))).all(-1)
            p = lo + (ii.to(dt) + 0.5) * cell
            d = p - means[s, None]
            m2 = torch.einsum("nwi,nij,nwj->nw", d, P[s], d)
            ok = ok & (m2 <= truncate * truncate)
            w = torch.where(ok, torch.exp(-0.5 * m2), torch.zeros((), dtype=dt, device=dev))
            flat = (ii[..., 0].clamp(0, nx - 1) * ny + ii[..., 1].clamp(0, ny - 1)) * nz + ii[..., 2].clamp(0, nz - 1)
            out = out.index_add(0, flat.reshape(-1), (w[..., None] * feats[s, None]).reshape(-1, C))
    return out.reshape(nx, ny, nz, C)


def splat_reference(means, scales, rots, feats, points, *, truncate: float | None = None):
    """Dense reference: the GMM feature at arbitrary points (n_points, 3), optionally truncated at ``truncate`` sigma."""
    P = gaussian_precision(scales, rots)
    d = points[None] - means[:, None]
    m2 = torch.einsum("npi,nij,npj->np", d, P, d)
    w = torch.exp(-0.5 * m2)
    if truncate is not None:
        w = torch.where(m2 <= truncate * truncate, w, torch.zeros_like(w))
    return w.T @ feats


def lift_pixels(K: torch.Tensor, cam_to_ego: torch.Tensor, uv: torch.Tensor, depths: torch.Tensor) -> torch.Tensor:
    r"""LSS forward projection of pixel ``uv`` (n, 2) at z-depths ``depths`` (D,):
    :math:`X_{i,d} = T_{cam\to ego}\,(z_d K^{-1} [u_i, v_i, 1]^\top)`, shape (n, D, 3)."""
    ones = torch.ones_like(uv[:, :1])
    rays = torch.linalg.solve(K, torch.cat([uv, ones], 1).T).T                 # (n, 3), z = 1
    pc = rays[:, None, :] * depths[None, :, None]                              # (n, D, 3)
    R, t = cam_to_ego[:3, :3], cam_to_ego[:3, 3]
    return pc @ R.T + t


def _check_grid_shape(shape, name):
    if any(int(s) <= 0 for s in shape):
        raise InputError(name, f"has shape {tuple(shape)}", "positive cell counts")
