"""Rotations and rigid motions in pure torch: quaternions (wxyz), 6-D rotations, SO(3) and SE(3) exp/log.

Every function is batched over leading dimensions, keeps the input's dtype and device, and is
differentiable by autograd. Quaternions are ``(w, x, y, z)`` (scalar first, as 3DGS and gsplat).
"""
from __future__ import annotations

import torch

from iclr26sci.core import InputError

__all__ = ["quat_normalize", "quat_to_rotmat", "rotmat_to_quat", "quat_multiply", "rot6d_to_rotmat",
           "rotmat_to_rot6d", "so3_exp", "so3_log", "se3_exp", "se3_log", "hat", "check_rotation", "check_rigid"]


def _as_tensor(x, name: str, last: int | tuple, *, extra_dims: tuple = ()) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        try:
            x = torch.as_tensor(x, dtype=torch.get_default_dtype())
        except (TypeError, ValueError, RuntimeError) as exc:
            raise InputError(name, f"cannot be read as a tensor ({exc})", "a real tensor") from None
    if not (x.is_floating_point()):
        if x.dtype in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool):
            x = x.to(torch.get_default_dtype())
        else:
            raise InputError(name, f"has dtype {x.dtype}", "a real floating tensor (float32 or float64)")
    shape_tail = (last,) if isinstance(last, int) else tuple(last)
    if x.ndim < len(shape_tail) or tuple(x.shape[x.ndim - len(shape_tail):]) != shape_tail:
        raise InputError(name, f"has shape {tuple(x.shape)}", f"a tensor of shape (..., {', '.join(map(str, shape_tail))})")
    if not bool(torch.isfinite(x).all()):
        raise InputError(name, "contains NaN or infinite values", "finite values")
    return x


def quat_normalize(q, *, eps: float = 1e-12) -> torch.Tensor:
    """Normalise quaternions to unit norm.

    Parameters
    ----------
    q : tensor (..., 4)
        Quaternions ``(w, x, y, z)``, any non-zero norm.
    eps : float
        Norms at or below ``eps`` are refused (a zero quaternion has no rotation).

    Returns
    -------
    tensor (..., 4)
        ``q / |q|``.

    Raises
    ------
    InputError
        If any quaternion has norm ``<= eps`` or is not finite.

    Examples
    --------
    >>> import torch
    >>> quat_normalize(torch.tensor([2.0, 0.0, 0.0, 0.0]))
    tensor([1., 0., 0., 0.])
    """
    q = _as_tensor(q, "q", 4)
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not (0 <= eps < float("inf")):
        raise InputError("eps", f"got {eps!r}", "a finite norm threshold >= 0")
    n = q.norm(dim=-1, keepdim=True)
    if bool((n <= eps).any()):
        raise InputError("q", "contains a quaternion of zero norm", "non-zero quaternions (w, x, y, z)")
    return q / n


def quat_to_rotmat(q) -> torch.Tensor:
    r"""Rotation matrices of quaternions ``(w, x, y, z)`` (normalised first).

    .. math::
        R(q) = \begin{pmatrix} 1-2(y^2+z^2) & 2(xy-wz) & 2(xz+wy)\\ 2(xy+wz) & 1-2(x^2+z^2) & 2(yz-wx)\\
        2(xz-wy) & 2(yz+wx) & 1-2(x^2+y^2)\end{pmatrix}

    Parameters
    ----------
    q : tensor (..., 4)
        Quaternions, scalar first; normalised here, so any non-zero norm is fine.

    Returns
    -------
    tensor (..., 3, 3)

    Raises
    ------
    InputError
        For a quaternion of zero norm or non-finite entries.

    References
    ----------
    Kerbl et al., 3D Gaussian Splatting, SIGGRAPH 2023 (``build_rotation``); gsplat ``_quat_to_rotmat``.

    Examples
    --------
    >>> import torch, math
    >>> R = quat_to_rotmat(torch.tensor([math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4)]))
    >>> torch.allclose(R @ torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0]), atol=1e-6)
    True
    """
    w, x, y, z = quat_normalize(q).unbind(-1)
    rows = [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]
    return torch.stack(rows, -1).reshape(*w.shape, 3, 3)


def _default_tol(dtype) -> float:
    return 1e-6 if dtype == torch.float64 else 1e-3


def check_rotation(R, name: str = "R", *, tol: float | None = None) -> torch.Tensor:
    r"""Check that ``R`` holds rotation matrices: finite, orthonormal and with determinant +1.

    A matrix passes when :math:`\max|R R^\top - I| \le \mathrm{tol}` and :math:`\det R > 0`, so a
    scaled matrix (``2 I``), a singular one, a reflection (det -1) and a general matrix are refused
    rather than read as "some rotation".

    Parameters
    ----------
    R : tensor (..., 3, 3)
        Candidate rotation matrices (a batch is checked entry by entry).
    name : str
        The argument's name, used in the error message.
    tol : float, optional
        Tolerance on the orthonormality residual; default 1e-6 for float64 and 1e-3 for float32
        (rotations composed or optimised in single precision drift by ~1e-6 per operation).

    Returns
    -------
    tensor (..., 3, 3)
        ``R`` as a floating tensor.

    Raises
    ------
    InputError
        Naming ``name``, with the worst residual or the negative determinant.

    Examples
    --------
    >>> import torch
    >>> check_rotation(torch.eye(3)).shape
    torch.Size([3, 3])
    >>> check_rotation(torch.diag(torch.tensor([1.0, 1.0, -1.0])))
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `R`: is a reflection (det -1), not a rotation; expected orthonormal 3x3 matrices with det +1
    """
    R = _as_tensor(R, name, (3, 3))
    tol = _default_tol(R.dtype) if tol is None else tol
    if R.numel() == 0:
        return R
    Rd = R.detach()
    eye = torch.eye(3, dtype=R.dtype, device=R.device)
    resid = float((Rd @ Rd.transpose(-1, -2) - eye).abs().amax())
    if resid > tol:
        raise InputError(name, f"is not orthonormal (max |R R^T - I| = {resid:.3g} > {tol:g})",
                         "orthonormal 3x3 matrices with det +1 (rotations)")
    det = torch.linalg.det(Rd.to(torch.float64) if Rd.dtype not in (torch.float32, torch.float64) else Rd)
    if bool((det < 0).any()):
        raise InputError(name, "is a reflection (det -1), not a rotation", "orthonormal 3x3 matrices with det +1")
    return R


def check_rigid(T, name: str = "T", *, tol: float | None = None) -> torch.Tensor:
    """Check that ``T`` holds 4x4 rigid transforms ``[[R, t], [0, 0, 0, 1]]`` with ``R`` a rotation.

    Examples
    --------
    >>> import torch
    >>> check_rigid(torch.eye(4)).shape
    torch.Size([4, 4])
    >>> check_rigid(2 * torch.eye(4))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `T`: has bottom row ...
    """
    T = _as_tensor(T, name, (4, 4))
    if T.numel() == 0:
        return T
    tol = _default_tol(T.dtype) if tol is None else tol
    bottom = T.detach()[..., 3, :]
    want = torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=T.dtype, device=T.device)
    if float((bottom - want).abs().amax()) > tol:
        raise InputError(name, f"has bottom row {bottom.reshape(-1, 4)[0].tolist()} (or another not (0, 0, 0, 1))",
                         "rigid transforms [[R, t], [0, 0, 0, 1]]")
    check_rotation(T[..., :3, :3], name, tol=tol)
    return T


def _check_rotmat(R, name="R") -> torch.Tensor:
    return check_rotation(R, name)


def rotmat_to_quat(R) -> torch.Tensor:
    """Unit quaternions ``(w, x, y, z)`` with ``w >= 0`` of rotation matrices.

    Uses Shepperd's method: of the four candidate formulas the one with the largest pivot
    (``1 + tr R`` or ``1 + 2 R_ii - tr R``) is taken, so the result is accurate near 180 degrees too.

    Parameters
    ----------
    R : tensor (..., 3, 3)
        Rotation matrices (orthonormal, det +1; checked by :func:`check_rotation`).

    Returns
    -------
    tensor (..., 4)

    Raises
    ------
    InputError
        If a matrix is not a rotation (scaled, singular, a reflection).

    References
    ----------
    Shepperd, "Quaternion from rotation matrix", J. Guidance and Control 1(3), 1978.

    Examples
    --------
    >>> import torch
    >>> rotmat_to_quat(torch.eye(3))
    tensor([1., 0., 0., 0.])
    """
    R = _check_rotmat(R)
    m00, m01, m02 = R[..., 0, 0], R[..., 0, 1], R[..., 0, 2]
    m10, m11, m12 = R[..., 1, 0], R[..., 1, 1], R[..., 1, 2]
    m20, m21, m22 = R[..., 2, 0], R[..., 2, 1], R[..., 2, 2]
    tr = m00 + m11 + m22
    piv = torch.stack([1 + tr, 1 + m00 - m11 - m22, 1 - m00 + m11 - m22, 1 - m00 - m11 + m22], -1)
    # candidate (unnormalised) quaternions, each 4 * q * q_pivot
    c0 = torch.stack([1 + tr, m21 - m12, m02 - m20, m10 - m01], -1)
    c1 = torch.stack([m21 - m12, 1 + m00 - m11 - m22, m01 + m10, m02 + m20], -1)
    c2 = torch.stack([m02 - m20, m01 + m10, 1 - m00 + m11 - m22, m12 + m21], -1)
    c3 = torch.stack([m10 - m01, m02 + m20, m12 + m21, 1 - m00 - m11 + m22], -1)
    cands = torch.stack([c0, c1, c2, c3], -2)                      # (..., 4, 4)
    best = piv.argmax(-1)
    q = torch.gather(cands, -2, best[..., None, None].expand(*best.shape, 1, 4)).squeeze(-2)
    q = q / q.norm(dim=-1, keepdim=True)
    return torch.where(q[..., :1] < 0, -q, q)


def quat_multiply(q1, q2) -> torch.Tensor:
    """Hamilton product ``q1 * q2`` (wxyz): ``R(q1 q2) = R(q1) R(q2)``.

    Parameters
    ----------
    q1, q2 : tensor (..., 4)
        Quaternions (not renormalised).

    Examples
    --------
    >>> import torch
    >>> quat_multiply(torch.tensor([0.0, 1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0, 0.0]))
    tensor([-1.,  0.,  0.,  0.])
    """
    q1, q2 = _as_tensor(q1, "q1", 4), _as_tensor(q2, "q2", 4)
    try:
        torch.broadcast_shapes(q1.shape[:-1], q2.shape[:-1])
    except RuntimeError:
        raise InputError("q2", f"has batch shape {tuple(q2.shape[:-1])}, which does not broadcast with q1's "
                         f"{tuple(q1.shape[:-1])}", "broadcastable batch shapes") from None
    w1, x1, y1, z1 = q1.unbind(-1)
    w2, x2, y2, z2 = q2.unbind(-1)
    return torch.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], -1)


def rot6d_to_rotmat(d6) -> torch.Tensor:
    """Rotation matrices from the continuous 6-D representation (Gram-Schmidt of two columns).

    Parameters
    ----------
    d6 : tensor (..., 6)
        The first two columns ``(a1, a2)`` of a rotation, unnormalised; they must be linearly
        independent.

    Returns
    -------
    tensor (..., 3, 3)
        Columns ``b1 = a1/|a1|``, ``b2 = normalise(a2 - (b1.a2) b1)``, ``b3 = b1 x b2``.

    References
    ----------
    Zhou et al., "On the Continuity of Rotation Representations in Neural Networks", CVPR 2019.

    Examples
    --------
    >>> import torch
    >>> rot6d_to_rotmat(torch.tensor([1.0, 0, 0, 0, 1, 0]))
    tensor([[1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 1.]])
    """
    d6 = _as_tensor(d6, "d6", 6)
    a1, a2 = d6[..., :3], d6[..., 3:]
    n1 = a1.norm(dim=-1, keepdim=True)
    b1 = a1 / n1.clamp_min(1e-30)
    u2 = a2 - (b1 * a2).sum(-1, keepdim=True) * b1
    n2 = u2.norm(dim=-1, keepdim=True)
    scale = torch.maximum(n1, a2.norm(dim=-1, keepdim=True))
    if bool((n1 <= 1e-12).any()) or bool((n2 <= 1e-9 * scale).any()):
        raise InputError("d6", "has two (nearly) parallel or zero columns", "two linearly independent 3-vectors")
    b2 = u2 / n2
    b3 = torch.cross(b1, b2, dim=-1)
    return torch.stack([b1, b2, b3], -1)


def rotmat_to_rot6d(R) -> torch.Tensor:
    """The 6-D representation of rotation matrices: their first two columns, concatenated.

    Examples
    --------
    >>> import torch
    >>> rotmat_to_rot6d(torch.eye(3))
    tensor([1., 0., 0., 0., 1., 0.])
    """
    R = _check_rotmat(R)
    return torch.cat([R[..., :, 0], R[..., :, 1]], -1)


def hat(w) -> torch.Tensor:
    """The skew-symmetric matrix ``[w]_x`` with ``[w]_x v = w x v``.

    Examples
    --------
    >>> import torch
    >>> hat(torch.tensor([0.0, 0.0, 1.0])) @ torch.tensor([1.0, 0.0, 0.0])
    tensor([0., 1., 0.])
    """
    w = _as_tensor(w, "w", 3)
    x, y, z = w.unbind(-1)
    o = torch.zeros_like(x)
    return torch.stack([o, -z, y, z, o, -x, -y, x, o], -1).reshape(*x.shape, 3, 3)


def _taylor_coeffs(theta2):
    """A = sin t / t, B = (1 - cos t)/t^2, C = (t - sin t)/t^3, safe at t -> 0 (Taylor below 1e-2 rad^2...)."""
    small = theta2 < 1e-6
    t2 = torch.where(small, torch.ones_like(theta2), theta2)
    t = t2.sqrt()
    A = torch.where(small, 1 - theta2 / 6 + theta2 ** 2 / 120, torch.sin(t) / t)
    B = torch.where(small, 0.5 - theta2 / 24 + theta2 ** 2 / 720, (1 - torch.cos(t)) / t2)
    C = torch.where(small, 1.0 / 6 - theta2 / 120 + theta2 ** 2 / 5040, (t - torch.sin(t)) / (t2 * t))
    return A, B, C


def so3_exp(w) -> torch.Tensor:
    r"""Rotation matrices of axis-angle vectors (Rodrigues' formula), safe at small angles.

    .. math:: \exp([w]_\times) = I + \frac{\sin\theta}{\theta}[w]_\times + \frac{1-\cos\theta}{\theta^2}[w]_\times^2,
              \quad \theta = |w|

    Parameters
    ----------
    w : tensor (..., 3)
        Rotation vectors: axis times angle in radians.

    Returns
    -------
    tensor (..., 3, 3)

    Examples
    --------
    >>> import torch, math
    >>> R = so3_exp(torch.tensor([0.0, 0.0, math.pi / 2]))
    >>> torch.allclose(R @ torch.tensor([1.0, 0, 0]), torch.tensor([0.0, 1, 0]), atol=1e-6)
    True
    """
    w = _as_tensor(w, "w", 3)
    A, B, _ = _taylor_coeffs((w * w).sum(-1))
    K = hat(w)
    eye = torch.eye(3, dtype=w.dtype, device=w.device).expand(K.shape)
    return eye + A[..., None, None] * K + B[..., None, None] * (K @ K)


def so3_log(R) -> torch.Tensor:
    """Axis-angle vectors (angle in [0, pi]) of rotation matrices; the inverse of :func:`so3_exp`.

    Goes through the quaternion (:func:`rotmat_to_quat`), ``w = 2 atan2(|v|, q_w) v/|v|``, which is
    accurate at small angles and near pi alike.

    Parameters
    ----------
    R : tensor (..., 3, 3)
        Rotation matrices.

    Examples
    --------
    >>> import torch
    >>> w = torch.tensor([0.1, -0.2, 0.3], dtype=torch.float64)
    >>> torch.allclose(so3_log(so3_exp(w)), w)
    True
    """
    q = rotmat_to_quat(_check_rotmat(R))
    v = q[..., 1:]
    s2 = (v * v).sum(-1)
    small = s2 < 1e-12
    s = torch.where(small, torch.ones_like(s2), s2).sqrt()
    angle = 2 * torch.atan2(s, q[..., 0])
    factor = torch.where(small, 2.0 / q[..., 0] * (1 - s2 / (3 * q[..., 0] ** 2)), angle / s)
    return factor[..., None] * v


def se3_exp(xi) -> torch.Tensor:
    r"""4x4 rigid transforms of twists ``xi = (rho, w)`` (translation part first).

    .. math:: \exp(\xi) = \begin{pmatrix} \exp([w]_\times) & V\rho \\ 0 & 1\end{pmatrix},\quad
              V = I + \frac{1-\cos\theta}{\theta^2}[w]_\times + \frac{\theta-\sin\theta}{\theta^3}[w]_\times^2

    Parameters
    ----------
    xi : tensor (..., 6)
        ``(rho_x, rho_y, rho_z, w_x, w_y, w_z)``.

    Returns
    -------
    tensor (..., 4, 4)

    References
    ----------
    Barfoot, State Estimation for Robotics (2017), section 7.1.

    Examples
    --------
    >>> import torch
    >>> se3_exp(torch.tensor([1.0, 2.0, 3.0, 0.0, 0.0, 0.0]))[:3, 3]
    tensor([1., 2., 3.])
    """
    xi = _as_tensor(xi, "xi", 6)
    rho, w = xi[..., :3], xi[..., 3:]
    A, B, C = _taylor_coeffs((w * w).sum(-1))
    K = hat(w)
    K2 = K @ K
    eye = torch.eye(3, dtype=xi.dtype, device=xi.device).expand(K.shape)
    R = eye + A[..., None, None] * K + B[..., None, None] * K2
    V = eye + B[..., None, None] * K + C[..., None, None] * K2
    t = (V @ rho[..., None])[..., 0]
    top = torch.cat([R, t[..., None]], -1)
    bottom = torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=xi.dtype, device=xi.device).expand(*xi.shape[:-1], 1, 4)
    return torch.cat([top, bottom], -2)


def se3_log(T) -> torch.Tensor:
    """Twists ``(rho, w)`` of 4x4 rigid transforms; the inverse of :func:`se3_exp`.

    Parameters
    ----------
    T : tensor (..., 4, 4)
        Rigid transforms ``[[R, t], [0, 1]]``.

    Examples
    --------
    >>> import torch
    >>> xi = torch.tensor([0.3, -0.1, 0.2, 0.5, 0.1, -0.4], dtype=torch.float64)
    >>> torch.allclose(se3_log(se3_exp(xi)), xi)
    True
    """
    T = check_rigid(T, "T")
    w = so3_log(T[..., :3, :3])
    theta2 = (w * w).sum(-1)
    small = theta2 < 1e-6
    t2 = torch.where(small, torch.ones_like(theta2), theta2)
    t = t2.sqrt()
    # V^{-1} = I - K/2 + (1/t^2)(1 - (t/2) cot(t/2)) K^2
    D = torch.where(small, 1.0 / 12 + theta2 / 720 + theta2 ** 2 / 30240,
                    (1 - (t / 2) * torch.cos(t / 2) / torch.sin(t / 2).clamp_min(1e-300)) / t2)
    K = hat(w)
    eye = torch.eye(3, dtype=T.dtype, device=T.device).expand(K.shape)
    Vinv = eye - 0.5 * K + D[..., None, None] * (K @ K)
    rho = (Vinv @ T[..., :3, 3:])[..., 0]
    return torch.cat([rho, w], -1)

