"""Image, flow and point-set losses and metrics: SSIM, PSNR, robust penalties, EPE, F1-all, Chamfer."""
from __future__ import annotations



import torch

from iclr26sci.core import InputError

__all__ = ["ssim", "psnr", "charbonnier", "geman_mcclure", "huber", "epe", "flow_f1_all", "chamfer_distance"]


def _t(x, name, min_ndim=1):
    if not isinstance(x, torch.Tensor):
        try:
            x = torch.as_tensor(x, dtype=torch.get_default_dtype())
        except (TypeError, ValueError, RuntimeError):
            raise InputError(name, "cannot be read as a tensor", "a real tensor") from None
    if not x.is_floating_point():
        x = x.to(torch.get_default_dtype())
    if x.ndim < min_ndim:
        raise InputError(name, f"has {x.ndim} dimensions", f"at least {min_ndim}")
    if not bool(torch.isfinite(x).all()):
        raise InputError(name, "contains NaN or infinite values", "finite values")
    return x


def _pos(v, name):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (v > 0) or v == float("inf"):
        raise InputError(name, f"got {v!r}", "a finite number > 0")
    return float(v)


def _images(img1, img2, data_range=None):
    a, b = _t(img1, "img1", 2), _t(img2, "img2", 2)
    if a.shape != b.shape:
        raise InputError("img2", f"has shape {tuple(b.shape)} but img1 has {tuple(a.shape)}", "images of equal shape")
    if a.numel() == 0:
        raise InputError("img1", f"is empty (shape {tuple(a.shape)})", "images with at least one pixel")
    if data_range is not None:
        # a loose range check: it catches images on another scale (0-255 with data_range 1) while letting
        # a rendered image overshoot [0, L] a little during training
        L = data_range
        for name, x in (("img1", a), ("img2", b)):
            lo, hi = float(x.detach().min()), float(x.detach().max())
            if lo < -L or hi > 2 * L:
                raise InputError(name, f"has values in [{lo:.4g}, {hi:.4g}], far outside [0, data_range = {L:g}]",
                                 "images in [0, data_range] (pass data_range=255 for 8-bit images)")
    return a, b


def ssim(img1, img2, *, window_size: int = 11, sigma: float = 1.5, data_range: float = 1.0, reduction="mean"):
    r"""Structural similarity with an 11x11 Gaussian window (sigma 1.5), as the 3DGS training loss.

    .. math:: \mathrm{SSIM} = \frac{(2\mu_x\mu_y + C_1)(2\sigma_{xy} + C_2)}{(\mu_x^2+\mu_y^2+C_1)(\sigma_x^2+\sigma_y^2+C_2)},
              \ C_1 = (0.01 L)^2,\ C_2 = (0.03 L)^2

    with local moments from a separable Gaussian window, zero padding ("same" size, as 3DGS's
    ``F.conv2d(..., padding=window_size // 2)``).

    Parameters
    ----------
    img1, img2 : tensor (H, W), (C, H, W) or (B, C, H, W)
        Images in ``[0, data_range]`` (values outside ``[-L, 2L]`` are refused: images on another scale).
    window_size : int
        Odd window side in pixels.
    sigma : float
        Standard deviation of the Gaussian window in pixels.
    data_range : float
        ``L``, the dynamic range of the pixel values.
    reduction : {"mean", "none"}
        Mean SSIM, or the per-pixel map.

    References
    ----------
    Wang, Bovik, Sheikh, Simoncelli, "Image quality assessment: from error visibility to structural
    similarity", IEEE TIP 2004. Kerbl et al. 2023 (``utils/loss_utils.py``).

    Examples
    --------
    >>> import torch
    >>> x = torch.rand(1, 3, 32, 32, generator=torch.Generator().manual_seed(0))
    >>> round(float(ssim(x, x)), 6)
    1.0
    """
    data_range = _pos(data_range, "data_range")
    a, b = _images(img1, img2, data_range)
    if isinstance(window_size, bool) or not isinstance(window_size, int) or window_size < 1 or window_size % 2 == 0:
        raise InputError("window_size", f"got {window_size!r}", "an odd positive integer")
    sigma = _pos(sigma, "sigma")
    data_range = _pos(data_range, "data_range")
    if reduction not in ("mean", "none"):
        raise InputError("reduction", f"got {reduction!r}", "'mean' or 'none'")
    return _ssim(a, b, window_size, float(sigma), float(data_range), reduction)


def _ssim(a, b, window_size=11, sigma=1.5, data_range=1.0, reduction="mean"):
    """SSIM without the argument checks, for a training loss on the library's own renders (which may overshoot
    [0, data_range] transiently; :func:`ssim` refuses images far outside it as a guard against user images on
    another scale)."""
    shape = a.shape
    if a.ndim == 2:
        a, b = a[None, None], b[None, None]
    elif a.ndim == 3:
        a, b = a[None], b[None]
    elif a.ndim != 4:
        raise InputError("img1", f"has shape {tuple(shape)}", "(H, W), (C, H, W) or (B, C, H, W)")
    C = a.shape[1]
    x = torch.arange(window_size, dtype=a.dtype, device=a.device) - window_size // 2
    g = torch.exp(-x * x / (2 * sigma * sigma))
    g = g / g.sum()
    w = (g[:, None] * g[None, :]).expand(C, 1, window_size, window_size).contiguous()
    conv = lambda z: torch.nn.functional.conv2d(z, w, padding=window_size // 2, groups=C)  # noqa: E731
    mu1, mu2 = conv(a), conv(b)
    s11 = conv(a * a) - mu1 * mu1
    s22 = conv(b * b) - mu2 * mu2
    s12 = conv(a * b) - mu1 * mu2
    C1, C2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
    m = ((2 * mu1 * mu2 + C1) * (2 * s12 + C2)) / ((mu1 * mu1 + mu2 * mu2 + C1) * (s11 + s22 + C2))
    if reduction == "mean":
        return m.mean()
    return m.reshape(shape)


def psnr(img1, img2, *, data_range: float = 1.0):
    r"""Peak signal-to-noise ratio :math:`10\log_{10}(L^2/\mathrm{MSE})` in dB (inf for identical images).

    Images are in ``[0, data_range]``; values outside ``[-L, 2L]`` (an image on another scale, such as
    0-255 with ``data_range=1``) raise ``InputError``, and so do empty images.

    Examples
    --------
    >>> import torch
    >>> round(float(psnr(torch.zeros(4, 4), torch.full((4, 4), 0.1))), 4)
    20.0
    """
    data_range = _pos(data_range, "data_range")
    a, b = _images(img1, img2, data_range)
    mse = ((a - b) ** 2).mean()
    return 10 * torch.log10(data_range ** 2 / mse)


def charbonnier(x, *, eps: float = 1e-3):
    r"""Charbonnier penalty :math:`\sqrt{x^2 + \epsilon^2}` elementwise (a smooth L1).

    Examples
    --------
    >>> import torch
    >>> charbonnier(torch.tensor([0.0, 3.0]), eps=4.0)
    tensor([4., 5.])
    """
    x = _t(x, "x", 0)
    eps = _pos(eps, "eps")
    return torch.sqrt(x * x + eps * eps)


def geman_mcclure(x, *, sigma: float = 1.0):
    r"""Geman-McClure penalty :math:`x^2/(x^2 + \sigma^2)` elementwise (bounded by 1; redescending).

    Examples
    --------
    >>> import torch
    >>> geman_mcclure(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 0.5000])
    """
    x = _t(x, "x", 0)
    sigma = _pos(sigma, "sigma")
    return x * x / (x * x + sigma * sigma)


def huber(x, *, delta: float = 1.0):
    r"""Huber penalty: :math:`x^2/2` for :math:`|x|\le\delta`, :math:`\delta(|x| - \delta/2)` beyond.

    Examples
    --------
    >>> import torch
    >>> huber(torch.tensor([0.5, 3.0]))
    tensor([0.1250, 2.5000])
    """
    x = _t(x, "x", 0)
    delta = _pos(delta, "delta")
    ax = x.abs()
    return torch.where(ax <= delta, 0.5 * x * x, delta * (ax - 0.5 * delta))


def _flows(pred, gt, valid):
    p, g = _t(pred, "flow_pred", 1), _t(gt, "flow_gt", 1)
    if p.shape != g.shape:
        raise InputError("flow_gt", f"has shape {tuple(g.shape)} but flow_pred has {tuple(p.shape)}", "equal shapes")
    if p.shape[-1] != 2:
        raise InputError("flow_pred", f"has shape {tuple(p.shape)}", "(..., 2): (u, v) per pixel, channels last")
    if p.numel() == 0:
        raise InputError("flow_pred", f"is empty (shape {tuple(p.shape)})", "at least one pixel")
    e = (p - g).norm(dim=-1)
    mag = g.norm(dim=-1)
    if valid is None:
        v = torch.ones_like(e, dtype=torch.bool)
    else:
        try:
            v = torch.as_tensor(valid, device=e.device)
        except (TypeError, ValueError, RuntimeError):
            raise InputError("valid", f"got {type(valid).__name__}", "a boolean mask") from None
        if v.shape != e.shape:
            raise InputError("valid", f"has shape {tuple(v.shape)}", f"shape {tuple(e.shape)} (one flag per pixel)")
        if v.dtype != torch.bool and not bool(((v == 0) | (v == 1)).all()):
            raise InputError("valid", "has entries other than 0/1 (or NaN)", "a boolean mask (or 0/1 values)")
        v = v.bool()
        if not bool(v.any()):
            raise InputError("valid", "marks no pixel valid", "at least one valid pixel")
    return e, mag, v


def epe(flow_pred, flow_gt, valid=None):
    """Mean end-point error ``|f_pred - f_gt|`` (pixels) over the valid pixels.

    Parameters
    ----------
    flow_pred, flow_gt : tensor (..., 2)
        Flows with the (u, v) channel last.
    valid : bool tensor (...), optional

    Examples
    --------
    >>> import torch
    >>> epe(torch.tensor([[3.0, 4.0]]), torch.zeros(1, 2))
    tensor(5.)
    """
    e, _, v = _flows(flow_pred, flow_gt, valid)
    return e[v].mean()


def flow_f1_all(flow_pred, flow_gt, valid=None):
    """KITTI Fl-all: the fraction of valid pixels whose EPE exceeds 3 px AND 5 % of the true flow's length.

    Returns a fraction in [0, 1] (multiply by 100 for KITTI's percentages).

    References
    ----------
    Menze & Geiger, "Object Scene Flow for Autonomous Vehicles", CVPR 2015 (KITTI 2015 devkit).

    Examples
    --------
    >>> import torch
    >>> gt = torch.tensor([[100.0, 0.0], [10.0, 0.0]])
    >>> pred = torch.tensor([[104.0, 0.0], [14.0, 0.0]])   # 4 px is < 5 % of 100 but > 5 % of 10
    >>> flow_f1_all(pred, gt)
    tensor(0.5000)
    """
    e, mag, v = _flows(flow_pred, flow_gt, valid)
    out = (e > 3.0) & (e > 0.05 * mag)
    return out[v].to(e.dtype).mean()


def chamfer_distance(x, y, *, squared: bool = True):
    r"""Symmetric Chamfer distance :math:`\frac1{|X|}\sum_x \min_y d(x,y) + \frac1{|Y|}\sum_y \min_x d(x,y)`.

    Parameters
    ----------
    x, y : tensor (N, d), (M, d)
        Point sets.
    squared : bool
        ``d`` is the squared Euclidean distance (pytorch3d's default) or the distance.

    Examples
    --------
    >>> import torch
    >>> chamfer_distance(torch.zeros(1, 3), torch.tensor([[0.0, 0.0, 2.0]]))
    tensor(8.)
    """
    a, b = _t(x, "x", 2), _t(y, "y", 2)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1] or a.shape[0] == 0 or b.shape[0] == 0:
        raise InputError("y", f"shapes {tuple(a.shape)} and {tuple(b.shape)}", "non-empty (N, d) and (M, d)")
    if not isinstance(squared, bool):
        raise InputError("squared", f"got {squared!r}", "True or False")
    d2 = torch.cdist(a, b) ** 2
    d = d2 if squared else d2.clamp_min(0).sqrt()
    return d.min(1).values.mean() + d.min(0).values.mean()


