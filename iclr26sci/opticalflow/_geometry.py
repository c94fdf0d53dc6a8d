r"""Geometry-aware single-image synthesis: flow from (depth, K, R, t), forward z-buffer splatting, masks.

A pixel with index ``(row i, column j)`` has centre ``u = (j + 0.5, i + 0.5)`` (the geom layer's
convention), back-projects to :math:`X = D(u) K^{-1}\tilde u`, moves to :math:`X' = R X + t` and projects
to :math:`u' = \pi(K X')`. The synthetic flow on the source grid is :math:`F_S(u) = u' - u`; the new view
is the source splatted to ``u'`` with a z-buffer (:func:`iclr26sci.geom.forward_splat`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr26sci.core import InputError, as_generator, check_bool, check_in_range

from ._validate import check_int, check_interval, check_nonneg

__all__ = ["geometric_flow", "synthesize_view", "SynthResult", "random_camera_motion", "random_smooth_depth",
           "check_rotation", "check_intrinsics"]


def _torch():
    import torch

    return torch


def check_rotation(R, name="R", tol=1e-5):
    """Validate a 3x3 rotation (``R R^T = I``, ``det R = +1``); return it as a float64 array.

    Parameters
    ----------
    R : array-like (3, 3)
        The candidate rotation matrix.
    name : str
        Argument name used in the error message.
    tol : float
        Largest allowed entry of ``|R R^T - I|``.

    Examples
    --------
    >>> check_rotation(np.eye(3)).shape
    (3, 3)
    """
    try:
        R = np.asarray(R, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(name, "cannot be read as a 3x3 array", "a 3x3 rotation matrix") from None
    if R.shape != (3, 3) or not np.isfinite(R).all():
        raise InputError(name, f"has shape {R.shape} or non-finite entries", "a finite 3x3 rotation matrix")
    if np.abs(R @ R.T - np.eye(3)).max() > tol or np.linalg.det(R) < 0:
        raise InputError(name, "is not a rotation (R R^T != I or det R < 0)",
                         "an orthonormal 3x3 matrix with determinant +1")
    return R


def check_intrinsics(K, name="K"):
    """Validate a pinhole intrinsic matrix ``[[fx, s, cx], [0, fy, cy], [0, 0, 1]]`` with ``fx, fy > 0``.

    Parameters
    ----------
    K : array-like (3, 3)
        Intrinsics in pixels.
    name : str
        Argument name used in the error message.

    Examples
    --------
    >>> float(check_intrinsics([[50, 0, 32], [0, 50, 32], [0, 0, 1]])[0, 0])
    50.0
    """
    try:
        K = np.asarray(K, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(name, "cannot be read as a 3x3 array", "a 3x3 intrinsic matrix") from None
    if K.shape != (3, 3) or not np.isfinite(K).all():
        raise InputError(name, f"has shape {K.shape} or non-finite entries", "a finite 3x3 intrinsic matrix")
    if not (K[0, 0] > 0 and K[1, 1] > 0):
        raise InputError(name, f"has focal lengths fx={K[0, 0]!r}, fy={K[1, 1]!r}", "fx > 0 and fy > 0 (pixels)")
    if np.abs(K[2] - [0, 0, 1]).max() > 1e-12 or K[1, 0] != 0:
        raise InputError(name, f"has bottom rows {K[1:].tolist()}", "[[fx, s, cx], [0, fy, cy], [0, 0, 1]]")
    return K


def _check_depth(depth, name="depth"):
    try:
        d = np.asarray(depth, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(name, "cannot be read as an array", "an (H, W) array of depths > 0") from None
    if d.ndim != 2 or min(d.shape) < 2:
        raise InputError(name, f"has shape {d.shape}", "an (H, W) depth map with H, W >= 2")
    if not np.isfinite(d).all() or not (d > 0).all():
        bad = int((~np.isfinite(d) | ~(d > 0)).sum())
        raise InputError(name, f"has {bad} non-positive or non-finite values",
                         "depth > 0 and finite at every pixel (fill invalid pixels first)")
    return d


def _check_t(t):
    try:
        t = np.asarray(t, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise InputError("t", "cannot be read as a vector", "a 3-vector translation") from None
    if t.shape != (3,) or not np.isfinite(t).all():
        raise InputError("t", f"has {t.size} entries or non-finite values", "a finite 3-vector translation")
    return t


def geometric_flow(depth, K, R, t, *, return_depth=False):
    r"""Rigid-motion optical flow :math:`F_S(u) = \pi(K(R\,D(u)K^{-1}\tilde u + t)) - u` on the source grid.

    Parameters
    ----------
    depth : array (H, W)
        Depth ``D`` (z along the optical axis) of every source pixel, > 0.
    K : array (3, 3)
        Pinhole intrinsics in pixels, shared by both views.
    R : array (3, 3)
        Rotation from the source camera frame to the new camera frame.
    t : array (3,)
        Translation of the same transform (``X' = R X + t``), in depth units.
    return_depth : bool
        Also return the depth ``z'`` of every source point in the new view.

    Returns
    -------
    flow : ndarray (H, W, 2), float64
        ``(du, dv)`` in pixels. Where ``z' <= 0`` (behind the new camera) the flow is NaN.
    z_new : ndarray (H, W), only with ``return_depth``

    Examples
    --------
    >>> D = np.full((4, 4), 2.0); K = np.array([[4.0, 0, 2], [0, 4.0, 2], [0, 0, 1]])
    >>> geometric_flow(D, K, np.eye(3), [0.5, 0.0, 0.0])[0, 0]      # f t_x / z = 4 * 0.5 / 2
    array([1., 0.])
    """
    d = _check_depth(depth)
    K = check_intrinsics(K)
    R = check_rotation(R)
    t = _check_t(t)
    return_depth = check_bool(return_depth, "return_depth")
    H, W = d.shape
    jj, ii = np.meshgrid(np.arange(W, dtype=np.float64) + 0.5, np.arange(H, dtype=np.float64) + 0.5)
    pix = np.stack([jj, ii, np.ones_like(jj)], -1)                       # (H, W, 3)
    X = d[..., None] * (pix @ np.linalg.inv(K).T)
    Xn = X @ R.T + t
    z = Xn[..., 2]
    proj = Xn @ K.T
    with np.errstate(divide="ignore", invalid="ignore"):
        uv = proj[..., :2] / proj[..., 2:3]
    flow = uv - pix[..., :2]
    flow[z <= 1e-9] = np.nan
    return (flow, z) if return_depth else flow


@dataclass
class SynthResult:
    """One synthetic triplet ``(I, I', F_S, M)`` from :func:`synthesize_view`.

    Attributes
    ----------
    image, new_view : ndarray (H, W) or (H, W, C)
        The source image ``I`` and the splatted new view ``I'`` (holes nearest-filled, or 0).
    flow : ndarray (H, W, 2)
        ``F_S`` on the source grid, pointing into the new view (``I'(u + F_S(u)) ~ I(u)``); 0 where invalid.
    mask : bool ndarray (H, W)
        Valid label: in bounds, visible (not occluded), bilinear footprint filled, photometrically consistent.
    depth : ndarray (H, W)
        The depth used (the labels are consistent with it, whatever its accuracy).

    Examples
    --------
    >>> s = synthesize_view(np.full((8, 8), 0.5), np.ones((8, 8)), [[8, 0, 4], [0, 8, 4], [0, 0, 1]],
    ...                     np.eye(3), [0.0, 0.0, 0.0])
    >>> bool(s.mask.all()), float(abs(s.flow).max())
    (True, 0.0)
    """

    image: np.ndarray
    new_view: np.ndarray
    flow: np.ndarray
    mask: np.ndarray
    depth: np.ndarray

    def __post_init__(self):
        img = _image_hwc(self.image)
        H, W = img.shape[:2]
        for name, want in (("new_view", img.shape), ("flow", (H, W, 2)), ("mask", (H, W)), ("depth", (H, W))):
            if np.shape(getattr(self, name)) != want:
                raise InputError(name, f"has shape {np.shape(getattr(self, name))}", f"{want} (matching image)")
        _check_depth(self.depth)

    def __repr__(self):
        return f"SynthResult(shape={self.image.shape}, valid={self.mask.mean():.1%})"

    def summary(self) -> str:
        """One line: size, valid fraction and flow magnitude."""
        mag = np.linalg.norm(self.flow[self.mask], axis=-1) if self.mask.any() else np.zeros(1)
        return (f"synthetic view {self.image.shape[:2]}: {self.mask.mean():.1%} valid, "
                f"|F_S| median {np.median(mag):.2f} px, max {mag.max():.2f} px")

    def to_dict(self) -> dict:
        """The arrays as a dict."""
        return {"image": self.image, "new_view": self.new_view, "flow": self.flow, "mask": self.mask,
                "depth": self.depth}


def _image_hwc(image, name="image"):
    from ._validate import check_image

    return check_image(image, name, channels=(None, "any"), min_side=2, unit_range=False)


def synthesize_view(image, depth, K, R, t, *, photometric_eps=0.05, visibility_tol=0.01, fill_holes=True):
    r"""Render a new view of ``image`` under camera motion ``(R, t)`` and return its exact flow label.

    Steps: :func:`geometric_flow`; forward z-buffer splatting of ``I`` to ``u + F_S(u)`` (nearest depth
    wins, :func:`iclr26sci.geom.forward_splat`); validity mask ``M`` = in bounds, **visible** (the point's
    new depth agrees with the z-buffer winners at the four pixels of its bilinear footprint, which must
    all be filled, up to ``visibility_tol`` plus the local depth variation), and **photometrically
    consistent** :math:`|I'(u + F_S(u)) - I(u)| < \epsilon` (max over channels).

    Parameters
    ----------
    image : array (H, W) or (H, W, C)
        Source image (any range; ``photometric_eps`` is in its units, [0, 1] by default).
    depth : array (H, W)
        Depth of every pixel (> 0). It need not be accurate: warping and labels use the same depth.
    K, R, t :
        As in :func:`geometric_flow`.
    photometric_eps : float or None
        [recon] default 0.05 in [0, 1] units; ``None`` disables the photometric test.
    fill_holes : bool
        [recon] Fill the pixels nobody lands on (disocclusions, borders) with the nearest splatted value,
        so the new view's holes do not reveal the motion to the flow network (the mask already excludes
        them from the loss). ``False`` leaves them 0.
    visibility_tol : float
        Relative depth tolerance of the visibility test, added to twice the local surface slope (the
        smaller one-sided depth difference per axis: the footprint's winners are neighbouring points).

    Returns
    -------
    SynthResult

    References
    ----------
    Zhang et al., "Rethinking Unsupervised Cross-modal Flow Estimation: Learning from Decoupled
    Optimization and Consistency Constraint" (DCFlow), arXiv:2509.24423, geometry-aware data synthesis.

    Examples
    --------
    >>> jj, ii = np.meshgrid(np.arange(32), np.arange(32))
    >>> img = 0.5 + 0.2 * np.sin(0.2 * jj + 0.1 * ii); D = random_smooth_depth(32, 32, rng=0)
    >>> K = np.array([[32.0, 0, 16], [0, 32.0, 16], [0, 0, 1]])
    >>> s = synthesize_view(img, D, K, np.eye(3), [0.05, 0.0, 0.0])
    >>> bool(s.mask.mean() > 0.5), s.flow.shape
    (True, (32, 32, 2))
    """
    torch = _torch()
    from iclr26sci.geom import backward_warp, forward_splat

    img = _image_hwc(image)
    d = _check_depth(depth)
    if img.shape[:2] != d.shape:
        raise InputError("depth", f"has shape {d.shape} but image is {img.shape[:2]}", "the image's (H, W)")
    if photometric_eps is not None:
        photometric_eps = check_in_range(photometric_eps, "photometric_eps", 0.0, None, low_open=True)
    fill_holes = check_bool(fill_holes, "fill_holes")
    visibility_tol = check_in_range(visibility_tol, "visibility_tol", 0.0, None)
    flow, z = geometric_flow(d, K, R, t, return_depth=True)
    H, W = d.shape
    behind = ~np.isfinite(flow).all(-1)
    f_safe = np.where(behind[..., None], 1e6, flow)          # behind the camera: sent far out of bounds
    z_safe = np.where(behind, np.inf, z)
    chw = img[None, None] if img.ndim == 2 else img.transpose(2, 0, 1)[None]
    v = torch.as_tensor(np.ascontiguousarray(chw), dtype=torch.float64)
    ft = torch.as_tensor(f_safe.transpose(2, 0, 1)[None].copy(), dtype=torch.float64)
    zt = torch.as_tensor(np.where(np.isfinite(z_safe), z_safe, 1e300)[None, None], dtype=torch.float64)
    new, filled, tdep = forward_splat(v, ft, zt)
    # visibility: compare the point's new depth with the z-buffer at the target and its bilinear footprint
    tdep_np = tdep[0, 0].numpy()
    x = np.arange(W)[None, :] + f_safe[..., 0]
    y = np.arange(H)[:, None] + f_safe[..., 1]
    inb = (x >= 0) & (x <= W - 1) & (y >= 0) & (y <= H - 1) & ~behind
    x0 = np.clip(np.floor(x), 0, W - 1).astype(int)
    y0 = np.clip(np.floor(y), 0, H - 1).astype(int)
    x1, y1 = np.clip(x0 + 1, 0, W - 1), np.clip(y0 + 1, 0, H - 1)
    # the footprint's winners are other surface points up to ~1.5 px away: allow the local slope of the
    # surface, taken as the smaller one-sided difference per axis (a depth edge affects one side only)
    zf = np.where(np.isfinite(z_safe), z_safe, 0.0)
    ex = np.full_like(zf, np.inf)
    ey = np.full_like(zf, np.inf)
    adx, ady = np.abs(np.diff(zf, axis=1)), np.abs(np.diff(zf, axis=0))
    ex[:, 1:] = adx
    ex[:, :-1] = np.minimum(ex[:, :-1], adx)
    ey[1:] = ady
    ey[:-1] = np.minimum(ey[:-1], ady)
    slack = visibility_tol * zf + 2.0 * (ex + ey) + 1e-12
    vis = inb.copy()
    with np.errstate(invalid="ignore"):
        for yy, xx in ((y0, x0), (y0, x1), (y1, x0), (y1, x1)):
            zt_ = tdep_np[yy, xx]
            vis &= np.isfinite(zt_) & (np.abs(z_safe - zt_) <= slack)
    mask = vis
    new_np = new[0].numpy()
    if photometric_eps is not None:
        back, _ = backward_warp(new, ft)
        err = np.abs(back[0].numpy() - chw[0]).max(0)
        mask = mask & (err < photometric_eps)
    if fill_holes:                        # nearest-filled pixel: holes and borders carry no motion cue
        from scipy.ndimage import distance_transform_edt

        hole = ~filled[0, 0].numpy()
        if hole.any() and not hole.all():
            _, (iy, ix) = distance_transform_edt(hole, return_indices=True)
            new_np = new_np[:, iy, ix]
    new_img = new_np[0] if img.ndim == 2 else new_np.transpose(1, 2, 0)
    out_flow = np.where(mask[..., None], flow, 0.0)
    return SynthResult(image=img, new_view=new_img, flow=out_flow, mask=mask, depth=d)


def _rng(rng):
    return as_generator(rng)


def random_camera_motion(rng=None, *, width=64, height=None, median_depth=1.0, focal_range=(0.7, 1.3),
                         max_angle_deg=5.0, max_translation=0.1, forward_scale=2.0):
    r"""Sample intrinsics and a relative pose for synthesis ([recon] ranges).

    Focal :math:`f \sim U[0.7, 1.3]\,W` (square pixels), principal point at the image centre; rotation
    angles :math:`\sim U[-5^\circ, 5^\circ]` about each axis; translation
    :math:`t_{x,y} \sim U[-0.1, 0.1]\,\mathrm{median}(D)` and :math:`t_z` with ``forward_scale`` times that
    range (a larger forward component).

    Parameters
    ----------
    rng : None, int, SeedSequence or Generator
        Random source (SPEC 7).
    width, height : int
        Image size (``height`` defaults to ``width``).
    median_depth : float
        Scene scale; translations are in its units.
    focal_range : (float, float)
        Focal length as a multiple of the width.
    max_angle_deg : float
        Largest rotation about each axis.
    max_translation : float
        Largest lateral translation as a fraction of ``median_depth``.
    forward_scale : float
        The forward component's range relative to the lateral one.

    Returns
    -------
    K, R, t : ndarrays (3, 3), (3, 3), (3,)

    Examples
    --------
    >>> K, R, t = random_camera_motion(0, width=64)
    >>> bool(np.allclose(R @ R.T, np.eye(3))), bool(0.7 * 64 <= K[0, 0] <= 1.3 * 64)
    (True, True)
    """
    from scipy.spatial.transform import Rotation

    g = _rng(rng)
    width = check_int(width, "width")
    height = width if height is None else check_int(height, "height")
    median_depth = check_nonneg(median_depth, "median_depth", positive=True)
    focal_range = check_interval(focal_range, "focal_range", positive=True)
    max_angle_deg = check_nonneg(max_angle_deg, "max_angle_deg", high=180.0)
    max_translation = check_nonneg(max_translation, "max_translation")
    forward_scale = check_nonneg(forward_scale, "forward_scale")
    f = g.uniform(*focal_range) * width
    K = np.array([[f, 0.0, width / 2.0], [0.0, f, height / 2.0], [0.0, 0.0, 1.0]])
    ang = g.uniform(-max_angle_deg, max_angle_deg, size=3)
    R = Rotation.from_euler("xyz", ang, degrees=True).as_matrix()
    s = max_translation * median_depth
    t = np.array([g.uniform(-s, s), g.uniform(-s, s), g.uniform(-forward_scale * s, forward_scale * s)])
    return K, R, t


def random_smooth_depth(height, width, rng=None, *, base=1.0, n_bumps=4, relief=0.3):
    """A crude positive depth map: a random plane plus Gaussian bumps ([recon] stand-in for UniDepth).

    Parameters
    ----------
    height, width : int
        Size (>= 2 each).
    rng : None, int, SeedSequence or Generator
        Random source (SPEC 7).
    base : float
        Depth at the image centre before the bumps.
    n_bumps : int
        Number of Gaussian bumps (nearer blobs).
    relief : float
        Relative amplitude of the plane tilt and the bumps.

    Examples
    --------
    >>> D = random_smooth_depth(16, 24, rng=1)
    >>> D.shape, bool(D.min() > 0)
    ((16, 24), True)
    """
    height = check_int(height, "height", lo=2)
    width = check_int(width, "width", lo=2)
    g = _rng(rng)
    base = check_nonneg(base, "base", positive=True)
    n_bumps = check_int(n_bumps, "n_bumps", lo=0)
    relief = check_nonneg(relief, "relief")
    yy, xx = np.meshgrid(np.linspace(-1, 1, height), np.linspace(-1, 1, width), indexing="ij")
    d = base * (1 + relief * (g.uniform(-0.5, 0.5) * xx + g.uniform(-0.5, 0.5) * yy))
    for _ in range(n_bumps):
        c = g.uniform(-1, 1, 2)
        s = g.uniform(0.15, 0.5)
        d -= base * relief * g.uniform(0.2, 1.0) * np.exp(-((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * s * s))
    return np.maximum(d, 0.2 * base)
