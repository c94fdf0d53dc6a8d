"""A differentiable pure-torch 3-D Gaussian rasterizer with the 3DGS / gsplat conventions.

Steps (spec 3d-building-blocks.md section 1.1): EWA projection with the clamped Jacobian, eps2d
dilation (optional anti-aliasing compensation), conics and 3-sigma radii, per-pixel alpha with the
0.99 and 1/255 rules, and front-to-back exclusive-cumprod compositing with 3DGS's early termination.
The tiled implementation gathers, per 16x16 tile, the depth-sorted Gaussians whose 3-sigma disc
reaches it and evaluates a padded (tiles x pixels x Gaussians) tensor in bounded chunks. The compositing
has a hand-written backward pass (:mod:`._raster_fn`); the autograd version (:func:`_render_tiled`,
``_backward="autograd"``) is kept to test it against. :func:`rasterize_gaussians_reference` is the slow
per-pixel loop of the CUDA kernel, kept to test the tiled version against.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr26sci.core import InputError

from ._camera import Camera
from ._transforms import quat_to_rotmat

__all__ = ["rasterize_gaussians", "rasterize_gaussians_reference", "project_gaussians", "RasterResult",
           "ProjectedGaussians"]

ALPHA_MIN = 1.0 / 255.0     # alphas below this are skipped (3DGS)
ALPHA_MAX = 0.99            # alpha clamp (3DGS)
_BLOCK = 64                 # Gaussians per depth block of the tiled renderer
T_MIN = 1e-4                # early termination: stop before T would fall below this (3DGS)


@dataclass
class ProjectedGaussians:
    """The 2-D footprint of the Gaussians that survive culling (step 1-5 of the rasterizer).

    Attributes
    ----------
    ids : LongTensor (M,)
        Indices of the surviving Gaussians into the input, sorted by depth (front first).
    means2d : tensor (M, 2)
        Projected centres in pixels.
    conics : tensor (M, 3)
        Upper triangle ``(a, b, c)`` of the inverse 2-D covariance ``[[a, b], [b, c]]``.
    cov2d : tensor (M, 2, 2)
        The dilated 2-D covariance ``J W Sigma W^T J^T + eps2d I``.
    opacities : tensor (M,)
        ``sigmoid(opacity_logit)``, times the anti-aliasing compensation when enabled.
    depths : tensor (M,)
        Camera-frame z.
    radii : LongTensor (M,)
        ``ceil(3 sqrt(lambda_max(cov2d)))`` in pixels.
    means2d_all : tensor (N, 2)
        Projected centres of all N inputs (zeros where culled), the tensor whose ``.grad`` densification reads.
    radii_all : LongTensor (N,)
        Radii of all inputs, 0 where culled.

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.geom import Camera, project_gaussians
    >>> cam = Camera.look_at([0.0, 0, -4], [0.0, 0, 0], up=[0.0, -1, 0], fx=40, fy=40, width=32, height=32)
    >>> p = project_gaussians(torch.zeros(1, 3), torch.tensor([[1.0, 0, 0, 0]]), torch.full((1, 3), -1.0),
    ...                       torch.zeros(1), cam)
    >>> p.ids.tolist(), [round(v, 3) for v in p.depths.tolist()]
    ([0], [4.0])
    """

    ids: torch.Tensor
    means2d: torch.Tensor
    conics: torch.Tensor
    cov2d: torch.Tensor
    opacities: torch.Tensor
    depths: torch.Tensor
    radii: torch.Tensor
    means2d_all: torch.Tensor
    radii_all: torch.Tensor


@dataclass
class RasterResult:
    """What :func:`rasterize_gaussians` renders.

    Attributes
    ----------
    image : tensor (H, W, C)
        ``sum_k c_k alpha_k T_k + b (1 - A)``.
    alpha : tensor (H, W)
        Accumulated opacity ``A = sum_k alpha_k T_k`` (= 1 - final transmittance).
    depth : tensor (H, W)
        Accumulated depth ``sum_k z_k alpha_k T_k`` (gsplat's "D" mode).
    expected_depth : tensor (H, W)
        ``depth / alpha`` where ``alpha > 0`` (gsplat's "ED"), else 0.
    radii : LongTensor (N,)
        Screen radius of every input Gaussian in pixels, 0 where culled.
    means2d : tensor (N, 2)
        Projected centres; its ``.grad`` after ``backward()`` is the 2-D mean gradient that
        3DGS densification thresholds (retained when it requires grad).
    n_visible : int
        Gaussians that survived culling.
    n_intersections : int
        (Gaussian, tile) pairs evaluated.

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.geom import Camera, rasterize_gaussians
    >>> cam = Camera.look_at([0.0, 0, -4], [0.0, 0, 0], up=[0.0, -1, 0], fx=40, fy=40, width=32, height=32)
    >>> out = rasterize_gaussians(torch.zeros(1, 3), torch.tensor([[1.0, 0, 0, 0]]), torch.full((1, 3), -1.0),
    ...                           torch.tensor([2.0]), torch.tensor([[1.0, 0.0, 0.0]]), cam)
    >>> out.radii.tolist(), out.n_visible, tuple(out.alpha.shape)
    ([12], 1, (32, 32))
    """

    image: torch.Tensor
    alpha: torch.Tensor
    depth: torch.Tensor
    expected_depth: torch.Tensor
    radii: torch.Tensor
    means2d: torch.Tensor
    n_visible: int = 0
    n_intersections: int = 0

    def __repr__(self):
        H, W, C = self.image.shape
        return (f"RasterResult(image={H}x{W}x{C}, visible={self.n_visible}/{self.radii.shape[0]}, "
                f"intersections={self.n_intersections})")

    def to_dict(self) -> dict:
        return {"image": self.image, "alpha": self.alpha, "depth": self.depth, "expected_depth": self.expected_depth,
                "radii": self.radii, "means2d": self.means2d, "n_visible": self.n_visible,
                "n_intersections": self.n_intersections}

    def summary(self) -> str:
        H, W, C = self.image.shape
        return (f"{H}x{W} image with {C} channels; {self.n_visible} of {self.radii.shape[0]} Gaussians visible; "
                f"mean alpha {float(self.alpha.detach().mean()):.4f}; {self.n_intersections} Gaussian-tile pairs")


# --------------------------------------------------------------------------------------------------
# input checks


def _tensor(x, name, shape_tail, n=None, dtype=None, device=None):
    if not isinstance(x, torch.Tensor):
        try:
            x = torch.as_tensor(x, dtype=dtype or torch.get_default_dtype())
        except (TypeError, ValueError, RuntimeError) as exc:
            raise InputError(name, f"cannot be read as a tensor ({exc})", "a real tensor") from None
    if not x.is_floating_point():
        raise InputError(name, f"has dtype {x.dtype}", "a floating tensor (float32 or float64)")
    if x.ndim != 1 + len(shape_tail) or any(s is not None and x.shape[1 + i] != s for i, s in enumerate(shape_tail)):
        tail = ", ".join("C" if s is None else str(s) for s in shape_tail)
        raise InputError(name, f"has shape {tuple(x.shape)}", f"shape (N{', ' if tail else ''}{tail})")
    if n is not None and x.shape[0] != n:
        raise InputError(name, f"has {x.shape[0]} rows but means has {n}", "one row per Gaussian")
    if dtype is not None and x.dtype != dtype:
        raise InputError(name, f"has dtype {x.dtype} but means has {dtype}", "the same dtype for every input")
    if device is not None and x.device != device:
        raise InputError(name, f"is on {x.device} but means is on {device}", "the same device for every input")
    if not bool(torch.isfinite(x).all()):
        raise InputError(name, "contains NaN or infinite values", "finite values")
    return x


def _check_inputs(means, quats, log_scales, opacity_logits, colors, cam, background, eps2d, near, far, tile_size,
                  antialiased=False):
    means = _tensor(means, "means", (3,))
    n, dt, dev = means.shape[0], means.dtype, means.device
    quats = _tensor(quats, "quats", (4,), n, dt, dev)
    if n and bool((quats.detach().norm(dim=-1) <= 1e-12).any()):
        raise InputError("quats", "contains a quaternion of zero norm", "non-zero quaternions (w, x, y, z)")
    log_scales = _tensor(log_scales, "log_scales", (3,), n, dt, dev)
    if n and not bool(torch.isfinite(torch.exp(2 * log_scales.detach())).all()):
        big = float(log_scales.detach().max())
        raise InputError("log_scales", f"has log-scales up to {big:g}, whose variance exp(2 s) overflows {dt}",
                         "log-scales small enough that the covariance is finite")
    opacity_logits = _tensor(opacity_logits, "opacity_logits", (), n, dt, dev)
    colors = _tensor(colors, "colors", (None,), n, dt, dev)
    C = colors.shape[1]
    if C == 0:
        raise InputError("colors", "has zero channels", "shape (N, C) with C >= 1")
    if not isinstance(cam, Camera):
        raise InputError("cam", f"got {type(cam).__name__}", "an iclr26sci.geom.Camera")
    if background is None:
        background = torch.zeros(C, dtype=dt, device=dev)
    else:
        if not isinstance(background, torch.Tensor):
            background = torch.as_tensor(background, dtype=dt, device=dev)
        if background.shape != (C,):
            raise InputError("background", f"has shape {tuple(background.shape)}", f"shape ({C},), one value per colour channel")
        if background.dtype != dt:
            raise InputError("background", f"has dtype {background.dtype}", f"{dt} like means")
        if not bool(torch.isfinite(background).all()):
            raise InputError("background", "contains NaN or infinite values", "finite values")
    for name, v in (("eps2d", eps2d), ("near", near), ("far", far)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
            raise InputError(name, f"got {v!r}", "a real number")
    if not isinstance(antialiased, (bool, np.bool_)):
        raise InputError("antialiased", f"got {antialiased!r}", "True or False")
    if eps2d < 0 or eps2d == float("inf"):
        raise InputError("eps2d", f"got {eps2d}", "a dilation >= 0 in pixels^2 (3DGS uses 0.3)")
    if not near > 0:
        raise InputError("near", f"got {near}", "a near plane > 0")
    if not far > near:
        raise InputError("far", f"got {far} with near={near}", "far > near")
    if isinstance(tile_size, bool) or not isinstance(tile_size, int) or tile_size < 1 or tile_size > 256:
        raise InputError("tile_size", f"got {tile_size!r}", "an integer in [1, 256] (pixels per tile side)")
    return means, quats, log_scales, opacity_logits, colors, background


# --------------------------------------------------------------------------------------------------
# projection (steps 1-5)


def _project(means, quats, log_scales, opacity_logits, cam, eps2d, antialiased, near, far):
    dt, dev = means.dtype, means.device
    n = means.shape[0]
    R = cam.R.to(dtype=dt, device=dev)
    t = cam.t.to(dtype=dt, device=dev)
    W, H = cam.width, cam.height
    means2d_all = torch.zeros(n, 2, dtype=dt, device=dev)
    radii_all = torch.zeros(n, dtype=torch.long, device=dev)
    # step 2: camera coordinates and near/far culling (done on the detached depth, before any division)
    p_cam = means @ R.T + t
    z_all = p_cam[:, 2]
    keep = ((z_all > near) & (z_all < far)).detach()
    ids = torch.nonzero(keep).flatten()
    pc = p_cam[ids]
    x, y, z = pc.unbind(-1)
    # step 1: 3-D covariance
    Rq = quat_to_rotmat(quats[ids]) if ids.numel() else torch.zeros(0, 3, 3, dtype=dt, device=dev)
    s2 = torch.exp(2 * log_scales[ids])
    cov3 = (Rq * s2[:, None, :]) @ Rq.transpose(-1, -2)
    cov_cam = R @ cov3 @ R.T
    # step 3: Jacobian with gsplat's clamp of x/z, y/z to the FOV enlarged by 0.3 tan(fov/2)
    tan_x, tan_y = 0.5 * W / cam.fx, 0.5 * H / cam.fy
    lim_x_pos, lim_x_neg = (W - cam.cx) / cam.fx + 0.3 * tan_x, cam.cx / cam.fx + 0.3 * tan_x
    lim_y_pos, lim_y_neg = (H - cam.cy) / cam.fy + 0.3 * tan_y, cam.cy / cam.fy + 0.3 * tan_y
    tx = z * torch.clamp(x / z, -lim_x_neg, lim_x_pos)
    ty = z * torch.clamp(y / z, -lim_y_neg, lim_y_pos)
    zero = torch.zeros_like(z)
    J = torch.stack([cam.fx / z, zero, -cam.fx * tx / (z * z),
                     zero, cam.fy / z, -cam.fy * ty / (z * z)], -1).reshape(-1, 2, 3)
    cov2 = J @ cov_cam @ J.transpose(-1, -2)
    # step 4: dilation and optional anti-aliasing compensation
    det_orig = cov2[:, 0, 0] * cov2[:, 1, 1] - cov2[:, 0, 1] * cov2[:, 1, 0]
    cov2 = cov2 + eps2d * torch.eye(2, dtype=dt, device=dev)
    a, b, c = cov2[:, 0, 0], 0.5 * (cov2[:, 0, 1] + cov2[:, 1, 0]), cov2[:, 1, 1]
    det = a * c - b * b
    opac = torch.sigmoid(opacity_logits[ids])
    if antialiased:
        opac = opac * torch.sqrt(torch.clamp(det_orig / det, min=0.0))
    # step 5: conic, 2-D mean, radius, culling of degenerate and off-screen footprints
    okdet = (det > 0).detach()
    det_safe = torch.where(okdet, det, torch.ones_like(det))
    conics = torch.stack([c / det_safe, -b / det_safe, a / det_safe], -1)
    u = cam.fx * x / z + cam.cx
    v = cam.fy * y / z + cam.cy
    with torch.no_grad():
        mid = 0.5 * (a + c)
        lam = mid + torch.sqrt(torch.clamp(mid * mid - det, min=0.1))
        radius = torch.ceil(3.0 * torch.sqrt(lam)).long()
        onscreen = (u + radius > 0) & (u - radius < W) & (v + radius > 0) & (v - radius < H)
        ok = okdet & (radius > 0) & onscreen
    sel = torch.nonzero(ok).flatten()
    means2d = torch.stack([u, v], -1)
    ids_ok = ids[sel]
    means2d_all = means2d_all.index_put((ids_ok,), means2d[sel])
    radii_all[ids_ok] = radius[sel]
    depths = z[sel]
    order = torch.argsort(depths.detach(), stable=True)
    sel = sel[order]
    # the footprint means are read from means2d_all so that its .grad is the densification statistic
    return ProjectedGaussians(ids=ids[sel], means2d=means2d_all[ids[sel]], conics=conics[sel], cov2d=cov2[sel],
                              opacities=opac[sel], depths=z[sel], radii=radius[sel], means2d_all=means2d_all,
                              radii_all=radii_all)


def project_gaussians(means, quats, log_scales, opacity_logits, cam, *, eps2d=0.3, antialiased=False, near=0.01,
                      far=1e10) -> ProjectedGaussians:
    r"""EWA projection of 3-D Gaussians to image-plane footprints (steps 1-5 of 3DGS / gsplat).

    .. math::
        \Sigma = R(q)\,\mathrm{diag}(e^{2\hat s})R(q)^\top,\quad
        \Sigma' = J W \Sigma W^\top J^\top + \epsilon I_2,\quad
        J = \begin{pmatrix} f_x/z & 0 & -f_x \tilde x/z^2\\ 0 & f_y/z & -f_y \tilde y/z^2\end{pmatrix}

    with :math:`\tilde x = z\,\mathrm{clamp}(x/z)` clamped to the field of view widened by
    ``0.3 tan(fov/2)`` on each side (gsplat; ``1.3 tan(fov/2)`` for a centred principal point).

    Parameters
    ----------
    means, quats, log_scales, opacity_logits : tensors (N, 3), (N, 4), (N, 3), (N,)
        As in :func:`rasterize_gaussians`.
    cam : Camera
    eps2d, antialiased, near, far
        As in :func:`rasterize_gaussians`.

    Returns
    -------
    ProjectedGaussians
        Depth-sorted footprints of the Gaussians that survive culling.

    Examples
    --------
    >>> import torch
    >>> cam = Camera.look_at([0.0, 0, -4], [0.0, 0, 0], up=[0.0, -1, 0], fx=40, fy=40, width=32, height=32)
    >>> p = project_gaussians(torch.zeros(1, 3), torch.tensor([[1.0, 0, 0, 0]]), torch.full((1, 3), -1.0),
    ...                       torch.zeros(1), cam)
    >>> p.means2d, p.radii
    (tensor([[16., 16.]]), tensor([12]))
    """
    means, quats, log_scales, opacity_logits, _, _ = _check_inputs(
        means, quats, log_scales, opacity_logits, torch.zeros(_n_rows(means), 1, dtype=_dtype_of(means)), cam, None,
        eps2d, near, far, 16, antialiased)
    return _project(means, quats, log_scales, opacity_logits, cam, float(eps2d), bool(antialiased), float(near),
                    float(far))


def _n_rows(x):
    return x.shape[0] if isinstance(x, torch.Tensor) and x.ndim >= 1 else len(x) if hasattr(x, "__len__") else 0


def _dtype_of(x):
    return x.dtype if isinstance(x, torch.Tensor) and x.is_floating_point() else torch.get_default_dtype()


# --------------------------------------------------------------------------------------------------
# compositing


def composite_weights(alpha):
    """Front-to-back compositing weights ``w_k = alpha_k T_k`` of a ``(..., K)`` alpha tensor in depth order.

    ``T_k = prod_{j<k} (1 - alpha_j)``; Gaussian k contributes only if ``T_k (1 - alpha_k) >= 1e-4``
    (3DGS stops before the sample that would drive T below 1e-4; T is monotone, so the kept set is a prefix).
    """
    T_incl = torch.cumprod(1.0 - alpha, dim=-1)
    T_excl = torch.cat([torch.ones_like(T_incl[..., :1]), T_incl[..., :-1]], -1)
    return torch.where(T_incl >= T_MIN, alpha * T_excl, torch.zeros_like(alpha))


def rasterize_gaussians(means, quats, log_scales, opacity_logits, colors, cam, background=None, *, eps2d=0.3,
                        antialiased=False, near=0.01, far=1e10, tile_size=16, chunk_elements=2 ** 22,
                        _tile_pad=0.5, _backward="manual") -> RasterResult:
    r"""Render 3-D Gaussians with a camera: differentiable, tiled, pure torch (3DGS / gsplat conventions).

    For every pixel centre :math:`p` (integer + 0.5) and depth-sorted Gaussians :math:`k`,

    .. math::
        \alpha_k(p) = \min\!\big(0.99,\; o_k e^{-\frac12 d^\top Q_k d}\big),\ d = p - \mu'_k,\qquad
        T_k = \prod_{j<k}(1-\alpha_j),\qquad
        C(p) = \sum_k c_k \alpha_k T_k + b \Big(1 - \sum_k \alpha_k T_k\Big),

    with :math:`o_k = \mathrm{sigmoid}(\hat o_k)`, :math:`Q_k` the inverse of the EWA 2-D covariance
    (see :func:`project_gaussians`), :math:`\alpha_k` set to 0 below 1/255, when the exponent is
    negative or when :math:`|d| > r_k = \lceil 3\sqrt{\lambda_{max}}\rceil`, and the sum stopped before
    the Gaussian that would drive the transmittance below 1e-4 (3DGS's early termination).

    Gaussians with depth outside ``(near, far)`` are culled; if all are culled (e.g. all behind the
    camera) the result is the background image with alpha 0 -- by design, not an error.

    Parameters
    ----------
    means : tensor (N, 3)
        Gaussian centres in world coordinates (finite).
    quats : tensor (N, 4)
        Orientations as quaternions ``(w, x, y, z)``, any non-zero norm (normalised here).
    log_scales : tensor (N, 3)
        Logarithms of the standard deviations along the Gaussian's principal axes.
    opacity_logits : tensor (N,)
        Opacity before the sigmoid.
    colors : tensor (N, C)
        Colour or feature vector of each Gaussian (already evaluated; no spherical harmonics here).
    cam : Camera
        The pinhole camera (world-to-camera extrinsics, intrinsics, image size).
    background : tensor (C,), optional
        Colour behind everything (default zeros).
    eps2d : float
        Dilation added to the 2-D covariance in pixels^2 (3DGS/gsplat: 0.3); it keeps every footprint
        at least about a pixel wide.
    antialiased : bool
        Multiply opacity by ``sqrt(det(Sigma'_no-eps) / det(Sigma'))`` (Mip-Splatting / gsplat's
        ``rasterize_mode="antialiased"``), so that the dilation conserves the splat's mass.
    near, far : float
        Depth culling planes.
    tile_size : int
        Side of the square pixel tiles (16 as gsplat). Only speed depends on it.
    chunk_elements : int
        Largest (pixels x Gaussians) block evaluated at once (the hand-written backward uses at most
        2^19); the backward pass keeps two values (alpha and transmittance) per evaluated entry.

    Returns
    -------
    RasterResult
        ``image (H, W, C)``, ``alpha``, ``depth``, ``expected_depth``, ``radii``, ``means2d`` (with
        retained gradient when the means require grad).

    Raises
    ------
    InputError
        Non-finite inputs, zero quaternions, mismatched shapes/dtypes/devices, a non-Camera ``cam``.

    Notes
    -----
    Runs on whatever device the inputs are on (``means.to("cuda")`` etc.): the code is plain tensor ops.
    The compositing's backward pass is written by hand (one backward per graph, no double backward);
    the private ``_backward="autograd"`` selects the autograd version, kept for testing.

    References
    ----------
    Kerbl, Kopanas, Leimkuehler, Drettakis, "3D Gaussian Splatting for Real-Time Radiance Field
    Rendering", SIGGRAPH 2023. Zwicker et al., "EWA Splatting", 2002. Ye et al., "gsplat", JMLR 2025.
    Yu et al., "Mip-Splatting", CVPR 2024.

    Examples
    --------
    >>> import torch
    >>> cam = Camera.look_at([0.0, 0, -4], [0.0, 0, 0], up=[0.0, -1, 0], fx=40, fy=40, width=32, height=32)
    >>> out = rasterize_gaussians(torch.zeros(1, 3), torch.tensor([[1.0, 0, 0, 0]]), torch.full((1, 3), -1.0),
    ...                           torch.tensor([2.0]), torch.tensor([[1.0, 0.0, 0.0]]), cam)
    >>> out.image.shape, round(float(out.alpha[16, 16]), 3)
    (torch.Size([32, 32, 3]), 0.865)
    """
    means, quats, log_scales, opacity_logits, colors, background = _check_inputs(
        means, quats, log_scales, opacity_logits, colors, cam, background, eps2d, near, far, tile_size, antialiased)
    if isinstance(chunk_elements, bool) or not isinstance(chunk_elements, int) or chunk_elements < 1:
        raise InputError("chunk_elements", f"got {chunk_elements!r}", "a positive integer")
    if _backward not in ("manual", "autograd"):
        raise InputError("_backward", f"got {_backward!r}", "'manual' (hand-written backward) or 'autograd'")
    proj = _project(means, quats, log_scales, opacity_logits, cam, float(eps2d), bool(antialiased), float(near),
                    float(far))
    if proj.means2d_all.requires_grad:
        proj.means2d_all.retain_grad()
    if _backward == "autograd":
        img, alpha, depth, n_isect = _render_tiled(proj, colors, cam.width, cam.height, tile_size, chunk_elements,
                                                   pad=_tile_pad)
    else:
        img, alpha, depth, n_isect = _render_manual(proj, colors, cam.width, cam.height, tile_size, chunk_elements,
                                                    pad=_tile_pad)
    image = img + (1.0 - alpha)[..., None] * background
    ed = torch.where(alpha > 0, depth / torch.where(alpha > 0, alpha, torch.ones_like(alpha)), torch.zeros_like(depth))
    return RasterResult(image=image, alpha=alpha, depth=depth, expected_depth=ed, radii=proj.radii_all,
                        means2d=proj.means2d_all, n_visible=int(proj.ids.numel()), n_intersections=n_isect)


def _tile_pairs(proj, W, H, ts, pad=0.5):
    """The (Gaussian, tile) pairs, sorted by tile then depth, and the tile-local pixel features.

    Shared by the autograd path (:func:`_render_tiled`) and the hand-written backward
    (:mod:`._raster_fn`); everything here is integer bookkeeping without gradients.
    """
    dt, dev = proj.means2d.dtype, proj.means2d.device
    TX, TY = (W + ts - 1) // ts, (H + ts - 1) // ts
    T = TX * TY
    P = ts * ts
    M = proj.ids.numel()
    with torch.no_grad():
        u, v = proj.means2d[:, 0].detach(), proj.means2d[:, 1].detach()
        r = proj.radii.to(dt)
        # exact extents of the pixels that can get alpha >= 1/255: inside the disc |d| <= r and inside the
        # ellipse d^T Q d <= rho^2 = 2 ln(255 o), whose bounding box has half-sides rho sqrt(Sigma'_xx), rho
        # sqrt(Sigma'_yy) (a 1e-4 relative margin covers rounding); o < 1/255 never reaches 1/255
        o = proj.opacities.detach()
        rho2 = torch.clamp(2 * torch.log(torch.clamp(o * 255.0, min=1e-30)), min=0.0) * (1 + 1e-4) + 1e-6
        cov = proj.cov2d.detach()
        hx = torch.minimum(r, torch.sqrt(rho2 * cov[:, 0, 0]))
        hy = torch.minimum(r, torch.sqrt(rho2 * cov[:, 1, 1]))
        x0 = torch.clamp(torch.floor((u - hx - pad) / ts), 0, TX - 1).long()
        x1 = torch.clamp(torch.floor((u + hx - pad) / ts), 0, TX - 1).long()
        y0 = torch.clamp(torch.floor((v - hy - pad) / ts), 0, TY - 1).long()
        y1 = torch.clamp(torch.floor((v + hy - pad) / ts), 0, TY - 1).long()
        nx, ny = x1 - x0 + 1, y1 - y0 + 1
        cnt = torch.where(o * 255.0 >= 1.0, nx * ny, torch.zeros_like(nx))
        g = torch.repeat_interleave(torch.arange(M, device=dev), cnt)       # depth rank of each pair
        start = torch.cumsum(cnt, 0) - cnt
        local = torch.arange(g.numel(), device=dev) - start[g]
        txi, tyi = x0[g] + local % nx[g], y0[g] + local // nx[g]
        # drop tiles the disc |d| <= r does not reach (distance from the mean to the tile's pixel centres)
        qx = torch.clamp(u[g], (txi * ts).to(dt) + 0.5, (txi * ts + ts - 1).to(dt) + 0.5) - u[g]
        qy = torch.clamp(v[g], (tyi * ts).to(dt) + 0.5, (tyi * ts + ts - 1).to(dt) + 0.5) - v[g]
        hit = qx * qx + qy * qy <= r[g] * r[g]
        if pad != 0.5:                                                      # the broken-tiling test variant
            hit = torch.ones_like(hit)
        g, txi, tyi = g[hit], txi[hit], tyi[hit]
        tile = tyi * TX + txi
        perm = torch.argsort(tile * max(M, 1) + g)                          # by tile, then front to back
        g, tile = g[perm], tile[perm]
        per_tile = torch.bincount(tile, minlength=T)
        tile_start = torch.cumsum(per_tile, 0) - per_tile
        order = torch.argsort(per_tile, descending=True, stable=True)      # chunks of similar-size tiles
        oy, ox = torch.meshgrid(torch.arange(ts, device=dev), torch.arange(ts, device=dev), indexing="ij")
        ox, oy = ox.reshape(-1).to(dt) + 0.5, oy.reshape(-1).to(dt) + 0.5  # tile-local pixel centres
        pix = torch.stack([ox * ox, ox * oy, oy * oy, ox, oy, torch.ones_like(ox)], -1)   # (P, 6)
        pix_r = torch.stack([ox * ox + oy * oy, ox, oy, torch.ones_like(ox)], -1)          # (P, 4)
    return dict(g=g, per_tile=per_tile, tile_start=tile_start, order=order, pix=pix, pix_r=pix_r, TX=TX, TY=TY,
                T=T, P=P, ts=ts, n_isect=int(g.numel()))


def _render_tiled(proj, colors, W, H, ts, chunk_elements, block=None, pad=0.5):
    """Tiles x pixels x Gaussians in bounded chunks, front to back in depth blocks of ``block``.

    A tile is retired once every pixel's transmittance is below 1e-4 (its later Gaussians would all be
    skipped by the early-termination rule, so this is exact). Per block the Mahalanobis exponent and
    the radius test come from one batched matmul of pixel features ``(x^2, xy, y^2, x, y, 1)`` (tile-local
    coordinates) with per-Gaussian coefficients.
    """
    dt, dev = colors.dtype, colors.device
    C = colors.shape[1]
    M = proj.ids.numel()
    block = _BLOCK if block is None else block
    # features composited per Gaussian: colour, depth, 1 (the last gives the alpha image)
    feats = torch.cat([colors[proj.ids], proj.depths[:, None], torch.ones(M, 1, dtype=dt, device=dev)], 1)
    pl = _tile_pairs(proj, W, H, ts, pad)
    g, per_tile, tile_start, order, pix, pix_r = (pl[k] for k in ("g", "per_tile", "tile_start", "order", "pix",
                                                                  "pix_r"))
    TX, TY, T, P = pl["TX"], pl["TY"], pl["T"], pl["P"]
    n_isect = pl["n_isect"]
    ca, cb, cc = proj.conics.unbind(-1)
    logo = torch.log(proj.opacities)
    out, out_tiles = [], []
    per_tile_l = per_tile.tolist()
    order_l = order.tolist()
    pos = 0
    while pos < T and per_tile_l[order_l[pos]] > 0:
        kmax = per_tile_l[order_l[pos]]
        nt = max(1, min(T - pos, chunk_elements // (P * min(kmax, block))))
        tiles = order[pos:pos + nt]
        pos += nt
        cntc = per_tile[tiles]
        n_active = int((cntc > 0).sum())
        tiles, cntc = tiles[:n_active], cntc[:n_active]
        ox0 = ((tiles % TX) * ts).to(dt)                                     # tile origins
        oy0 = ((tiles // TX) * ts).to(dt)
        acc = torch.zeros(n_active, P, C + 2, dtype=dt, device=dev)
        Trun = torch.ones(n_active, P, dtype=dt, device=dev)
        alive = torch.ones(n_active, P, dtype=torch.bool, device=dev)     # not yet terminated early
        live = torch.arange(n_active, device=dev)
        for k0 in range(0, kmax, block):
            with torch.no_grad():
                live = live[(cntc[live] > k0) & alive[live].any(1)]
            if live.numel() == 0:
                break
            kb = min(block, kmax - k0)
            k = torch.arange(k0, k0 + kb, device=dev)
            valid = k[None, :] < cntc[live][:, None]                        # (L, kb)
            idx = torch.where(valid, tile_start[tiles[live]][:, None] + k[None, :], torch.zeros_like(k)[None, :])
            gk = g[idx]                                                      # (L, kb) depth ranks
            mx = proj.means2d[gk, 0] - ox0[live][:, None]                   # tile-local means
            my = proj.means2d[gk, 1] - oy0[live][:, None]
            a, b, c = ca[gk], cb[gk], cc[gk]
            # log alpha = log o - [0.5 a dx^2 + b dx dy + 0.5 c dy^2], expanded in pixel features
            coef = torch.stack([-0.5 * a, -b, -0.5 * c, a * mx + b * my, c * my + b * mx,
                                logo[gk] - (0.5 * a * mx * mx + b * mx * my + 0.5 * c * my * my)], 1)  # (L, 6, kb)
            loga = torch.matmul(pix, coef)                                   # (L, P, kb)
            with torch.no_grad():
                rr = proj.radii[gk].to(dt)
                coef_r = torch.stack([torch.ones_like(mx), -2 * mx.detach(), -2 * my.detach(),
                                      mx.detach() ** 2 + my.detach() ** 2 - rr * rr], 1)
                inside = (torch.matmul(pix_r, coef_r) <= 0) & valid[:, None, :]
            alpha = torch.clamp(torch.exp(loga), max=ALPHA_MAX)
            alpha = alpha * (inside & (alpha >= ALPHA_MIN)).to(dt)
            T0 = Trun[live]
            # exclusive cumprod of (1 - alpha) as exp(cumsum(l) - l), l = log1p(-alpha) (alpha <= 0.99): same
            # values, and a cheaper backward than cumprod + shift (no slice/cat copies)
            lg = torch.log1p(-alpha)
            T_excl = T0[..., None] * torch.exp(torch.cumsum(lg, dim=-1) - lg)
            with torch.no_grad():
                T_incl = T_excl * (1.0 - alpha)
                al = alive[live]
                keep = (T_incl >= T_MIN) & al[..., None]
                alive[live] = al & (T_incl[..., -1] >= T_MIN)
            w = alpha * T_excl * keep.to(dt)
            contrib = torch.matmul(w, feats[gk])                             # (L, P, C + 2)
            acc = acc.index_put((live,), acc[live] + contrib)
            Trun = Trun.index_put((live,), T0 - contrib[..., -1])
        out.append(acc)
        out_tiles.append(tiles)
    full = torch.zeros(T, P, C + 2, dtype=dt, device=dev)
    if out:
        full = full.index_put((torch.cat(out_tiles),), torch.cat(out))
    full = full.reshape(TY, TX, ts, ts, C + 2).transpose(1, 2).reshape(TY * ts, TX * ts, C + 2)[:H, :W]
    return full[..., :C], full[..., C + 1], full[..., C], n_isect


def _render_manual(proj, colors, W, H, ts, chunk_elements, pad=0.5):
    """:func:`_render_tiled`'s outputs from the compositing with the hand-written backward (``._raster_fn``)."""
    from ._raster_fn import _WORK, composite

    dt, dev = colors.dtype, colors.device
    C = colors.shape[1]
    M = proj.ids.numel()
    feats = torch.cat([colors[proj.ids], proj.depths[:, None], torch.ones(M, 1, dtype=dt, device=dev)], 1)
    pl = _tile_pairs(proj, W, H, ts, pad)
    TX, TY = pl["TX"], pl["TY"]
    if pl["n_isect"] == 0:                      # nothing to composite: no graph, as in the autograd path
        full = torch.zeros(pl["T"], pl["P"], C + 2, dtype=dt, device=dev)
    else:
        full = composite(proj, feats, pl, work=min(int(chunk_elements), _WORK)).transpose(1, 2)  # (tiles, P, F)
    full = full.reshape(TY, TX, ts, ts, C + 2).transpose(1, 2).reshape(TY * ts, TX * ts, C + 2)[:H, :W]
    return full[..., :C], full[..., C + 1], full[..., C], pl["n_isect"]


def rasterize_gaussians_reference(means, quats, log_scales, opacity_logits, colors, cam, background=None, *,
                                  eps2d=0.3, antialiased=False, near=0.01, far=1e10) -> RasterResult:
    """Slow per-pixel reference of :func:`rasterize_gaussians`: the 3DGS CUDA kernel's loop in Python.

    For each pixel it walks the depth-sorted Gaussians one at a time, skips alphas below 1/255 (and
    footprints whose radius does not reach the pixel), stops before the transmittance would fall
    below 1e-4, and accumulates colour, alpha and depth. Use it on tiny images only (it runs
    ``H * W * N`` Python iterations); it exists to test the tiled version against.

    Parameters
    ----------
    Same as :func:`rasterize_gaussians` (without ``tile_size``).

    Examples
    --------
    >>> import torch
    >>> cam = Camera.look_at([0.0, 0, -4], [0.0, 0, 0], up=[0.0, -1, 0], fx=10, fy=10, width=4, height=4)
    >>> args = (torch.zeros(1, 3), torch.tensor([[1.0, 0, 0, 0]]), torch.full((1, 3), -1.0), torch.tensor([2.0]),
    ...         torch.ones(1, 1), cam)
    >>> ref = rasterize_gaussians_reference(*args)
    >>> torch.allclose(ref.image, rasterize_gaussians(*args).image)
    True
    """
    means, quats, log_scales, opacity_logits, colors, background = _check_inputs(
        means, quats, log_scales, opacity_logits, colors, cam, background, eps2d, near, far, 16, antialiased)
    proj = _project(means, quats, log_scales, opacity_logits, cam, float(eps2d), bool(antialiased), float(near),
                    float(far))
    if proj.means2d_all.requires_grad:
        proj.means2d_all.retain_grad()
    cols = colors[proj.ids]
    M = proj.ids.numel()
    zero = torch.zeros((), dtype=means.dtype, device=means.device)
    rows_img, rows_a, rows_d = [], [], []
    for j in range(cam.height):
        row_img, row_a, row_d = [], [], []
        for i in range(cam.width):
            px, py = i + 0.5, j + 0.5
            Tr = torch.ones((), dtype=means.dtype, device=means.device)
            c = torch.zeros(colors.shape[1], dtype=means.dtype, device=means.device)
            dep = zero
            for k in range(M):
                dx = px - proj.means2d[k, 0]
                dy = py - proj.means2d[k, 1]
                if float((dx * dx + dy * dy).detach()) > float(proj.radii[k]) ** 2:
                    continue
                a, b, cc = proj.conics[k]
                sigma = 0.5 * (a * dx * dx + cc * dy * dy) + b * dx * dy
                alpha = torch.clamp(proj.opacities[k] * torch.exp(-sigma), max=ALPHA_MAX)
                if float(alpha.detach()) < ALPHA_MIN:
                    continue
                test_T = Tr * (1 - alpha)
                if float(test_T.detach()) < T_MIN:
                    break
                c = c + cols[k] * alpha * Tr
                dep = dep + proj.depths[k] * alpha * Tr
                Tr = test_T
            row_img.append(c + Tr * background)
            row_a.append(1 - Tr)
            row_d.append(dep)
        rows_img.append(torch.stack(row_img))
        rows_a.append(torch.stack(row_a))
        rows_d.append(torch.stack(row_d))
    image, alpha, depth = torch.stack(rows_img), torch.stack(rows_a), torch.stack(rows_d)
    ed = torch.where(alpha > 0, depth / torch.where(alpha > 0, alpha, torch.ones_like(alpha)), torch.zeros_like(depth))
    return RasterResult(image=image, alpha=alpha, depth=depth, expected_depth=ed, radii=proj.radii_all,
                        means2d=proj.means2d_all, n_visible=M, n_intersections=M * cam.width * cam.height)
