"""The pinhole camera (OpenCV / gsplat convention: x right, y down, z forward)."""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import torch

from iclr26sci.core import InputError

from ._transforms import _as_tensor, check_rotation


def _check_device(device, name="device"):
    if device is None:
        return None
    try:
        return torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise InputError(name, f"got {device!r}", "a torch device such as 'cpu' or 'cuda:0'") from None


def _check_float_dtype(dtype, name="dtype"):
    if dtype is None:
        return None
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise InputError(name, f"got {dtype!r}", "a floating torch dtype (torch.float32 or torch.float64)")
    return dtype

__all__ = ["Camera"]


def _positive_real(v, name):
    if isinstance(v, torch.Tensor) and v.numel() == 1:
        v = float(v)
    if isinstance(v, bool) or not isinstance(v, Real) or not (float(v) > 0) or float(v) == float("inf"):
        raise InputError(name, f"got {v!r}", "a finite number > 0 (pixels)")
    return float(v)


def _positive_size(v, name):
    if isinstance(v, bool) or not isinstance(v, Integral) or int(v) <= 0:
        raise InputError(name, f"got {v!r}", "an integer image size > 0 (pixels)")
    return int(v)


@dataclass(frozen=True)
class Camera:
    r"""A pinhole camera: world-to-camera extrinsics and intrinsics (OpenCV convention, as gsplat).

    A world point :math:`X` has camera coordinates :math:`X_c = R X + t` (x right, y down, z forward)
    and pixel coordinates :math:`u = f_x x_c/z_c + c_x`, :math:`v = f_y y_c/z_c + c_y`; pixel
    :math:`(i, j)` covers :math:`[i, i+1) \times [j, j+1)`, so its centre is :math:`(i + 0.5, j + 0.5)`.

    Parameters
    ----------
    R : tensor (3, 3)
        World-to-camera rotation (rows: the camera's right, down and forward axes in world coordinates).
    t : tensor (3,)
        World-to-camera translation (``t = -R @ centre``).
    fx, fy : float
        Focal lengths in pixels (> 0).
    cx, cy : float
        Principal point in pixels.
    width, height : int
        Image size in pixels (> 0).

    Examples
    --------
    >>> import torch
    >>> cam = Camera.look_at([0.0, 0.0, -5.0], [0.0, 0.0, 0.0], up=[0.0, -1.0, 0.0], fx=100, fy=100,
    ...                      width=64, height=48)
    >>> uv, z = cam.project(torch.tensor([[0.0, 0.0, 0.0]]))
    >>> uv, z
    (tensor([[32., 24.]]), tensor([5.]))
    >>> cam.unproject(uv, z)
    tensor([[0., 0., 0.]])
    """

    R: torch.Tensor
    t: torch.Tensor
    fx: float
    fy: float
    cx: float
    cy: float
    width: int
    height: int

    def __post_init__(self):
        R = _as_tensor(self.R, "R", (3, 3))
        if R.ndim != 2:
            raise InputError("R", f"has shape {tuple(R.shape)}", "one 3x3 rotation")
        check_rotation(R, "R", tol=1e-4 if R.dtype != torch.float64 else 1e-8)
        t = _as_tensor(self.t, "t", 3)
        if t.ndim != 1:
            raise InputError("t", f"has shape {tuple(t.shape)}", "a 3-vector")
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "t", t.to(R.dtype).to(R.device))
        object.__setattr__(self, "fx", _positive_real(self.fx, "fx"))
        object.__setattr__(self, "fy", _positive_real(self.fy, "fy"))
        for name in ("cx", "cy"):
            v = getattr(self, name)
            if isinstance(v, torch.Tensor) and v.numel() == 1:
                v = float(v)
            if isinstance(v, bool) or not isinstance(v, Real) or not abs(float(v)) < float("inf"):
                raise InputError(name, f"got {v!r}", "a finite principal-point coordinate in pixels")
            object.__setattr__(self, name, float(v))
        object.__setattr__(self, "width", _positive_size(self.width, "width"))
        object.__setattr__(self, "height", _positive_size(self.height, "height"))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def look_at(cls, eye, target, up=(0.0, 0.0, 1.0), *, fx, fy, width, height, cx=None, cy=None,
                dtype=None, device=None) -> "Camera":
        """A camera at ``eye`` looking at ``target``, with ``up`` pointing up in the image.

        Parameters
        ----------
        eye, target : array-like (3,)
            Camera centre and a point on the optical axis, in world coordinates (distinct).
        up : array-like (3,)
            World direction that should appear upwards (image y points the other way); not parallel
            to the viewing direction. Default +z.
        fx, fy : float
            Focal lengths in pixels (> 0).
        width, height : int
            Image size (> 0).
        cx, cy : float, optional
            Principal point; defaults to the image centre ``(width/2, height/2)``.
        dtype, device : optional
            Of the extrinsics; default float32 (or ``eye``'s dtype if it is a floating tensor).

        Examples
        --------
        >>> cam = Camera.look_at([3.0, 0, 0], [0.0, 0, 0], fx=50, fy=50, width=32, height=32)
        >>> [round(float(v), 6) + 0.0 for v in cam.centre]
        [3.0, 0.0, 0.0]
        """
        dtype = _check_float_dtype(dtype)
        device = _check_device(device)
        if dtype is None:
            dtype = eye.dtype if isinstance(eye, torch.Tensor) and eye.is_floating_point() else torch.float32
        eye = _as_tensor(eye, "eye", 3).to(dtype=dtype, device=device)
        target = _as_tensor(target, "target", 3).to(dtype=dtype, device=device)
        up = _as_tensor(up, "up", 3).to(dtype=dtype, device=device)
        fwd = target - eye
        if float(fwd.norm()) <= 1e-12:
            raise InputError("target", "coincides with eye", "a target point distinct from the camera centre")
        fwd = fwd / fwd.norm()
        if float(up.norm()) <= 1e-12:
            raise InputError("up", "is the zero vector", "a non-zero up direction")
        right = torch.cross(fwd, up, dim=-1)
        if float(right.norm()) <= 1e-6 * float(up.norm()):
            raise InputError("up", "is parallel to the viewing direction", "an up vector not parallel to target - eye")
        right = right / right.norm()
        down = torch.cross(fwd, right, dim=-1)
        R = torch.stack([right, down, fwd], 0)
        t = -(R @ eye)
        width = _positive_size(width, "width")
        height = _positive_size(height, "height")
        return cls(R=R, t=t, fx=fx, fy=fy, cx=width / 2.0 if cx is None else cx,
                   cy=height / 2.0 if cy is None else cy, width=width, height=height)

    # ------------------------------------------------------------------ properties
    @property
    def K(self) -> torch.Tensor:
        """The 3x3 intrinsic matrix."""
        return torch.tensor([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]],
                            dtype=self.R.dtype, device=self.R.device)

    @property
    def viewmat(self) -> torch.Tensor:
        """The 4x4 world-to-camera matrix (gsplat's ``viewmats``)."""
        top = torch.cat([self.R, self.t[:, None]], 1)
        bottom = torch.tensor([[0.0, 0.0, 0.0, 1.0]], dtype=self.R.dtype, device=self.R.device)
        return torch.cat([top, bottom], 0)

    @property
    def centre(self) -> torch.Tensor:
        """The camera centre in world coordinates, ``-R^T t``."""
        return -(self.R.T @ self.t)

    @property
    def dtype(self):
        return self.R.dtype

    @property
    def device(self):
        return self.R.device

    def to(self, device=None, dtype=None) -> "Camera":
        """The same camera with its extrinsics on ``device`` / in ``dtype`` (a floating dtype)."""
        dtype = _check_float_dtype(dtype)
        device = _check_device(device)
        return Camera(R=self.R.to(device=device, dtype=dtype), t=self.t.to(device=device, dtype=dtype),
                      fx=self.fx, fy=self.fy, cx=self.cx, cy=self.cy, width=self.width, height=self.height)

    # ------------------------------------------------------------------ geometry
    def world_to_camera(self, points) -> torch.Tensor:
        """Camera coordinates ``R X + t`` of world points ``(..., 3)``."""
        X = _as_tensor(points, "points", 3)
        R, t = self.R.to(X), self.t.to(X)
        return X @ R.T + t

    def camera_to_world(self, points_cam) -> torch.Tensor:
        """World coordinates ``R^T (X_c - t)`` of camera-frame points ``(..., 3)``."""
        Xc = _as_tensor(points_cam, "points_cam", 3)
        R, t = self.R.to(Xc), self.t.to(Xc)
        return (Xc - t) @ R

    def project(self, points):
        """Pixel coordinates and depth of world points.

        Parameters
        ----------
        points : tensor (..., 3)
            World points. Points with depth ``z <= 0`` get non-finite or mirrored pixels: filter on
            the returned depth.

        Returns
        -------
        uv : tensor (..., 2)
            ``(f_x x/z + c_x, f_y y/z + c_y)``.
        z : tensor (...)
            Depth along the optical axis.
        """
        Xc = self.world_to_camera(points)
        z = Xc[..., 2]
        uv = torch.stack([self.fx * Xc[..., 0] / z + self.cx, self.fy * Xc[..., 1] / z + self.cy], -1)
        return uv, z

    def unproject(self, uv, depth) -> torch.Tensor:
        """World points at pixel coordinates ``uv (..., 2)`` and depths ``depth (...) > 0`` (z, not ray length)."""
        uv = _as_tensor(uv, "uv", 2)
        depth = torch.as_tensor(depth, dtype=uv.dtype, device=uv.device)
        if depth.shape != uv.shape[:-1]:
            raise InputError("depth", f"has shape {tuple(depth.shape)}", f"shape {tuple(uv.shape[:-1])} (one per pixel)")
        if not bool(torch.isfinite(depth).all()):
            raise InputError("depth", "contains NaN or infinite values", "finite depths")
        if bool((depth <= 0).any()):
            raise InputError("depth", f"has depths <= 0 (min {float(depth.min()):g})",
                             "depths > 0 (points in front of the camera)")
        x = (uv[..., 0] - self.cx) / self.fx * depth
        y = (uv[..., 1] - self.cy) / self.fy * depth
        return self.camera_to_world(torch.stack([x, y, depth], -1))

    def pixel_rays(self):
        """Unit ray directions (world frame) through every pixel centre, shape ``(height, width, 3)``."""
        j, i = torch.meshgrid(torch.arange(self.height, dtype=self.dtype, device=self.device) + 0.5,
                              torch.arange(self.width, dtype=self.dtype, device=self.device) + 0.5, indexing="ij")
        d = torch.stack([(i - self.cx) / self.fx, (j - self.cy) / self.fy, torch.ones_like(i)], -1)
        d = d @ self.R
        return d / d.norm(dim=-1, keepdim=True)

    def scaled(self, width: int, height: int) -> "Camera":
        """The same camera for the image resized to ``width x height``.

        Focal lengths and principal point scale by ``width/self.width`` and ``height/self.height``
        (pixel-area convention: the image edges map to the image edges).

        Examples
        --------
        >>> cam = Camera.look_at([3.0, 0, 0], [0.0, 0, 0], fx=50, fy=50, width=32, height=32)
        >>> half = cam.scaled(16, 16)
        >>> half.fx, half.cx
        (25.0, 8.0)
        """
        width = _positive_size(width, "width")
        height = _positive_size(height, "height")
        sx, sy = width / self.width, height / self.height
        return Camera(R=self.R, t=self.t, fx=self.fx * sx, fy=self.fy * sy, cx=self.cx * sx, cy=self.cy * sy,
                      width=width, height=height)

    def __repr__(self):
        c = [round(float(v), 3) for v in self.centre]
        return (f"Camera({self.width}x{self.height}, fx={self.fx:g}, fy={self.fy:g}, cx={self.cx:g}, "
                f"cy={self.cy:g}, centre={c})")
