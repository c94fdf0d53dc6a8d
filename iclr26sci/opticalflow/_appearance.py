r"""Modality appearance transforms (the synthetic cross-modal shift) and affine warps with known flow.

Modalities ([recon], spec 5.4): ``"thermal_like"`` (inverted, blurred luminance with a local-contrast
inversion, gamma 0.6 and a saliency boost :math:`0.3\|\nabla I\|`), ``"nir_like"`` (``0.1R + 0.3G + 0.6B``
with a vegetation-like channel reweighting and gamma) and ``"lut"`` (a random non-monotone intensity
look-up table per image region). All return a single-channel image in [0, 1].
"""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, as_generator, check_in_range

from ._validate import check_image, check_int, check_interval, check_nonneg, check_point, check_tensor

__all__ = ["modality_transform", "MODALITIES", "random_affine", "warp_affine", "compose_affine_flow",
           "affine_flow"]

#: the synthetic target modalities
MODALITIES = ("thermal_like", "nir_like", "lut")


def _rgb(image, name="image"):
    a = check_image(image, name, channels=(None, 3), min_side=2)
    if a.ndim == 2:
        a = np.repeat(a[..., None], 3, -1)
    return np.clip(a, 0.0, 1.0)


def _blur(x, sigma):
    from scipy.ndimage import gaussian_filter

    return gaussian_filter(x, sigma, mode="reflect")


def _norm01(x):
    lo, hi = np.percentile(x, 1), np.percentile(x, 99)
    return np.clip((x - lo) / max(hi - lo, 1e-6), 0, 1)


def modality_transform(image, modality="thermal_like", *, severity=1.0, rng=None):
    r"""Map an RGB image to a synthetic "sparse" modality (single channel, [0, 1]).

    Parameters
    ----------
    image : array (H, W, 3) or (H, W)
        RGB (or grey) image in [0, 1].
    modality : {"thermal_like", "nir_like", "lut"}
        The target appearance ([recon] definitions, see the module docstring).
    severity : float in [0, 1]
        Interpolates between the grey image (0) and the full shift (1).
    rng : None, int, SeedSequence or Generator
        Randomness of the ``"lut"`` modality (the tables and regions; SPEC 7).

    Returns
    -------
    ndarray (H, W)

    Examples
    --------
    >>> img = np.random.default_rng(0).random((16, 16, 3))
    >>> modality_transform(img, "thermal_like").shape
    (16, 16)
    """
    a = _rgb(image)
    if not any(modality == m for m in MODALITIES if isinstance(modality, str)):
        raise InputError("modality", f"got {modality!r}", f"one of {MODALITIES}")
    severity = check_in_range(severity, "severity", 0.0, 1.0)
    g = as_generator(rng) if modality == "lut" else None
    grey = a @ np.array([0.299, 0.587, 0.114])
    if modality == "thermal_like":
        inv = 1.0 - _blur(grey, 1.0)
        local = _blur(inv, 6.0)
        x = np.clip(local + 0.8 * (local - inv) + 0.25, 0, 1)        # local-contrast inversion
        x = x ** 0.6
        gy, gx = np.gradient(_blur(grey, 1.0))
        x = _norm01(x + 0.3 * _norm01(np.hypot(gx, gy)))
    elif modality == "nir_like":
        veg = np.clip(a[..., 1] - 0.5 * (a[..., 0] + a[..., 2]), 0, 1)   # green-dominant pixels glow in NIR
        x = 0.1 * a[..., 0] + 0.3 * a[..., 1] + 0.6 * a[..., 2] + 1.5 * veg
        x = _norm01(x) ** 0.7
    else:
        H, W = grey.shape
        yy, xx = np.meshgrid(np.linspace(0, 1, H), np.linspace(0, 1, W), indexing="ij")
        nodes = np.linspace(0, 1, 6)
        x = np.zeros_like(grey)
        wsum = np.zeros_like(grey)
        for _ in range(4):                                           # soft regions, each with its own LUT
            c = g.uniform(0, 1, 2)
            w = np.exp(-((yy - c[0]) ** 2 + (xx - c[1]) ** 2) / (2 * 0.25 ** 2))
            lut = g.uniform(0, 1, nodes.size)
            x += w * np.interp(grey, nodes, lut)
            wsum += w
        x = x / wsum
    return (1 - severity) * grey + severity * x


def random_affine(rng=None, *, max_rotation_deg=10.0, scale_range=(0.9, 1.1), max_shear=0.05,
                  max_translation=8.0, center=(32.0, 32.0)):
    """A random 3x3 affine map about ``center`` ([recon] ranges: ±10°, scale 0.9-1.1, shear ±0.05, ±8 px).

    Parameters
    ----------
    rng : None, int, SeedSequence or Generator
        Random source (SPEC 7).
    max_rotation_deg, scale_range, max_shear, max_translation :
        Sampling ranges (uniform): rotation in [0, 180] degrees, scales > 0, shear in [0, 0.5], translation >= 0.
    center : (float, float)
        ``(x, y)`` pixel-centre coordinates the rotation/scale act about (usually the image centre).

    Examples
    --------
    >>> H = random_affine(0)
    >>> H.shape, H[2].tolist()
    ((3, 3), [0.0, 0.0, 1.0])
    """
    g = as_generator(rng)
    max_rotation_deg = check_nonneg(max_rotation_deg, "max_rotation_deg", high=180.0)
    scale_range = check_interval(scale_range, "scale_range", positive=True)
    max_shear = check_nonneg(max_shear, "max_shear", high=0.5)
    max_translation = check_nonneg(max_translation, "max_translation")
    center = check_point(center, "center")
    th = np.deg2rad(g.uniform(-max_rotation_deg, max_rotation_deg))
    s = g.uniform(*scale_range)
    sh = g.uniform(-max_shear, max_shear)
    tx, ty = g.uniform(-max_translation, max_translation, 2)
    A = s * np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]) @ np.array([[1.0, sh], [0.0, 1.0]])
    c = np.asarray(center, float)
    M = np.eye(3)
    M[:2, :2] = A
    M[:2, 2] = c - A @ c + [tx, ty]
    return M


def _check_affine(H, name):
    try:
        H = np.asarray(H, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(name, "cannot be read as a 3x3 array", "an invertible 3x3 affine matrix") from None
    if H.shape != (3, 3) or not np.isfinite(H).all() or np.abs(H[2] - [0, 0, 1]).max() > 1e-9:
        raise InputError(name, f"has shape {H.shape} or last row not [0, 0, 1]", "a 3x3 affine matrix")
    if abs(np.linalg.det(H[:2, :2])) < 1e-8:
        raise InputError(name, "is singular", "an invertible affine map")
    return H


def _grid(H, W):
    jj, ii = np.meshgrid(np.arange(W, dtype=np.float64) + 0.5, np.arange(H, dtype=np.float64) + 0.5)
    return np.stack([jj, ii], -1)


def _apply(M, p):
    return p @ M[:2, :2].T + M[:2, 2]


def affine_flow(M, height, width):
    """The flow ``u -> M u - u`` of an affine map on an ``(height, width)`` pixel-centre grid, (H, W, 2).

    Examples
    --------
    >>> M = np.eye(3); M[0, 2] = 2.0
    >>> affine_flow(M, 2, 2)[0, 0].tolist()
    [2.0, 0.0]
    """
    M = _check_affine(M, "M")
    height = check_int(height, "height")
    width = check_int(width, "width")
    p = _grid(height, width)
    return _apply(M, p) - p


def warp_affine(image, M):
    r"""Warp an image by an affine map: :math:`\tilde I(y) = I(M^{-1} y)` (bilinear, zeros outside).

    Parameters
    ----------
    image : array (H, W) or (H, W, C), or torch tensor (B, C, H, W)
    M : array (3, 3)
        Affine map in pixel-centre coordinates.

    Returns
    -------
    warped : same type and shape as ``image``
    valid : bool array (H, W)
        ``M^{-1} y`` lies inside the source image.

    Examples
    --------
    >>> img = np.arange(16.0).reshape(4, 4); M = np.eye(3); M[0, 2] = 1.0
    >>> warp_affine(img, M)[0][0].tolist()
    [0.0, 0.0, 1.0, 2.0]
    """
    import torch

    from iclr26sci.geom import backward_warp

    M = _check_affine(M, "M")
    is_t = isinstance(image, torch.Tensor)
    if is_t:
        x = check_tensor(image, "image", ndim=4)
    else:
        a = check_image(image, "image", channels=(None, "any"), unit_range=False)
        x = torch.as_tensor((a[None, None] if a.ndim == 2 else a.transpose(2, 0, 1)[None]).copy())
    H, W = x.shape[-2:]
    p = _grid(H, W)
    src = _apply(np.linalg.inv(M), p)
    flow = torch.as_tensor((src - p).transpose(2, 0, 1)[None].copy(), dtype=x.dtype, device=x.device)
    out, valid = backward_warp(x, flow.expand(x.shape[0], -1, -1, -1).contiguous())
    if is_t:
        return out, valid[:, 0]
    o = out[0].numpy()
    return (o[0] if np.asarray(image).ndim == 2 else o.transpose(1, 2, 0)), valid[0, 0].numpy()


def compose_affine_flow(flow, M_a, M_b):
    r"""The flow of the affinely warped pair: :math:`\tilde F(y) = M_A(x + F(x)) - y`, :math:`x = M_B^{-1} y`.

    ``flow`` is on ``I_B``'s grid pointing into ``I_A`` (``I_B(x) ~ I_A(x + F(x))``); the warped pair is
    :math:`\tilde I_A(y) = I_A(M_A^{-1}y)`, :math:`\tilde I_B(y) = I_B(M_B^{-1}y)`. ``F(x)`` is sampled
    bilinearly (exact for affine flows). Pixels whose ``x`` falls outside the image are masked out.

    Parameters
    ----------
    flow : array (H, W, 2) or tensor (B, 2, H, W)
    M_a, M_b : arrays (3, 3)
        The affine maps applied to ``I_A`` and ``I_B``.

    Returns
    -------
    flow_tilde : same layout as ``flow``
    mask : bool array (H, W) (or tensor (B, H, W))

    Examples
    --------
    >>> F = np.zeros((4, 4, 2)); Ma = np.eye(3); Ma[0, 2] = 1.0
    >>> compose_affine_flow(F, Ma, np.eye(3))[0][1, 1].tolist()
    [1.0, 0.0]
    """
    import torch

    from iclr26sci.geom import backward_warp

    M_a = _check_affine(M_a, "M_a")
    M_b = _check_affine(M_b, "M_b")
    is_t = isinstance(flow, torch.Tensor)
    if is_t:
        f = check_tensor(flow, "flow", ndim=4, channels=2)
    else:
        a = check_image(flow, "flow", channels=(2,), unit_range=False)
        f = torch.as_tensor(a.transpose(2, 0, 1)[None].copy())
    B, _, H, W = f.shape
    y = _grid(H, W)
    x = _apply(np.linalg.inv(M_b), y)
    to_x = torch.as_tensor((x - y).transpose(2, 0, 1)[None].copy(), dtype=f.dtype, device=f.device)
    Fx, _ = backward_warp(f, to_x.expand(B, -1, -1, -1).contiguous(), padding_mode="border")
    xt = torch.as_tensor(x.transpose(2, 0, 1)[None].copy(), dtype=f.dtype, device=f.device)
    q = xt + Fx                                                   # x + F(x), in I_A's frame
    A = torch.as_tensor(M_a[:2, :2], dtype=f.dtype, device=f.device)
    b = torch.as_tensor(M_a[:2, 2], dtype=f.dtype, device=f.device)
    qa = torch.einsum("ij,bjhw->bihw", A, q) + b[None, :, None, None]
    yt = torch.as_tensor(y.transpose(2, 0, 1)[None].copy(), dtype=f.dtype, device=f.device)
    out = qa - yt
    inside = (x[..., 0] >= 0.5) & (x[..., 0] <= W - 0.5) & (x[..., 1] >= 0.5) & (x[..., 1] <= H - 0.5)
    if is_t:
        return out, torch.as_tensor(inside, device=f.device).expand(B, -1, -1)
    return out[0].numpy().transpose(1, 2, 0), inside
