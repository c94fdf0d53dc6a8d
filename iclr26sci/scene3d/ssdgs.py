r"""SSD-GS: relightable 3-D Gaussians with diffuse, specular, subsurface and shadow components.

Zheng, Tang, Doronin, Teal and Zhang, "SSD-GS: Scattering and Shadow Decomposition for Relightable 3D
Gaussian Splatting", ICLR 2026 (arXiv:2604.13333; official code github.com/irisfreesiri/SSD-GS, CUDA only).

Each Gaussian k, lit by a point light at :math:`\ell` with intensity scale :math:`s_I` and seen from a camera at
:math:`o`, radiates

.. math::
    C_k = s_I\,[(D_k + \mathrm{Spec}_k)\,S_k + \mathrm{SSS}_k],\qquad g_k = 1/\|\ell-\mu_k\|^2,

    D_k = \tfrac{k_d}{\pi}\,\tilde c(n_k\cdot\omega_i)\,g_k,\quad
    \mathrm{Spec}_k = k_s\,F(\bar\omega_i\cdot\bar h)\sum_j \alpha_{kj} G_j(\bar h)\,g_k,\quad
    \mathrm{SSS}_k = k_{sss}\,R_d(r_k;\sigma'_{s,k},\sigma_{a,k})\,g_k,

with Schlick's Fresnel (F0 = 0.04), a mixture of 8 shared anisotropic spherical Gaussians in the Gaussian's own
shading frame, a dipole profile whose (r, sigma_s', sigma_a) an MLP predicts, and a shadow
:math:`S_k` = refinement MLP of the visibility :math:`\hat v_k` obtained by splatting the Gaussians from the
light. The 13-channel vector :math:`[C, D, \mathrm{Spec}, \mathrm{SSS}, S]` is composited by the library's
pure-torch rasterizer (:func:`iclr26sci.geom.rasterize_gaussians`), which gives the per-component images.

Everything runs on CPU (or any torch device: ``device="cuda"``); gsplat and tiny-cuda-nn are replaced by the
library's rasterizer and plain ``torch.nn`` MLPs of the same sizes. The OLAT data of :func:`olat_scene` is
synthetic (ray-cast ground truth with known components).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from iclr26sci.core import InputError, as_generator

__all__ = ["SSDGS", "olat_scene", "OLATData", "OLATSet", "Decomposition", "RelightingScores", "schlick_fresnel",
           "asg_lobe", "dipole_profile", "dipole_total_reflectance", "light_space_visibility", "load_olat_capture"]

PAPER = "Zheng et al., SSD-GS, ICLR 2026 (arXiv:2604.13333)"
ABLATIONS = {"A": ("diffuse",), "B": ("diffuse", "specular"), "C": ("diffuse", "specular", "sss"),
             "D": ("diffuse", "specular", "sss", "shadow"), "E": ("diffuse", "sss", "shadow"),
             "F": ("diffuse", "specular", "shadow")}
SCHEDULES = ("progressive", "joint", "swapped", "merged")
APPEARANCES = ("ssdgs", "gs3", "light_mlp", "sh")
MATERIAL_PRESETS = ("mixed", "lambert", "translucent", "metal")


# ---------------------------------------------------------------------------------------------------------------
# small validators

def _real(v, name, lo=None, hi=None, lo_open=False, expected=None):
    if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(float(v)):
        raise InputError(name, f"got {v!r}", expected or "a finite real number")
    v = float(v)
    if lo is not None and (v < lo or (lo_open and v == lo)):
        raise InputError(name, f"got {v}", expected or f"a number {'>' if lo_open else '>='} {lo}")
    if hi is not None and v > hi:
        raise InputError(name, f"got {v}", expected or f"a number <= {hi}")
    return v


def _int(v, name, lo=1):
    if isinstance(v, bool) or not isinstance(v, Integral) or v < lo:
        raise InputError(name, f"got {v!r}", f"an integer >= {lo}")
    return int(v)


def _option(v, name, options):
    if not isinstance(v, str) or v not in options:
        raise InputError(name, f"got {v!r}", f"one of {list(options)}")
    return v


def _vec3(v, name):
    try:
        a = np.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(name, f"got {v!r}", "a finite 3-vector (x, y, z)") from None
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise InputError(name, f"got shape {a.shape}" if a.shape != (3,) else "contains NaN or inf",
                         "a finite 3-vector (x, y, z)")
    return a


def _tensor(x, name, dtype=None):
    import torch

    if isinstance(x, torch.Tensor):
        t = x
    else:
        try:
            t = torch.as_tensor(np.asarray(x, dtype=np.float64))
        except (TypeError, ValueError):
            raise InputError(name, f"cannot be read as an array ({type(x).__name__})", "a real array") from None
    if not t.is_floating_point():
        t = t.to(torch.float64)
    if dtype is not None:
        t = t.to(dtype)
    if not bool(torch.isfinite(t).all()):
        raise InputError(name, "contains NaN or infinite values", "finite values")
    return t


# ---------------------------------------------------------------------------------------------------------------
# public shading functions


def schlick_fresnel(cos_theta, f0=0.04):
    r"""Schlick's Fresnel approximation, as SSD-GS's specular term uses it.

    .. math:: F(\cos\theta) = F_0 + (1 - F_0)\,(1 - \mathrm{clamp}(\cos\theta, 0, 1))^5

    Parameters
    ----------
    cos_theta : array-like or tensor
        Cosine between the incident direction and the half vector, :math:`\bar\omega_i\cdot\bar h`
        (values outside [0, 1] are clamped, as in the code).
    f0 : float
        Reflectance at normal incidence, in [0, 1] (0.04 for dielectrics, the code's value).

    Returns
    -------
    tensor
        F, same shape as ``cos_theta``: ``f0`` at normal incidence, 1 at grazing incidence.

    References
    ----------
    C. Schlick, "An inexpensive BRDF model for physically-based rendering", Computer Graphics Forum 13(3), 1994.

    Examples
    --------
    >>> [round(float(v), 4) for v in schlick_fresnel([1.0, 0.5, 0.0])]
    [0.04, 0.07, 1.0]
    """
    from ._ssdgs_shading import schlick

    f0 = _real(f0, "f0", 0.0, 1.0, expected="a reflectance in [0, 1]")
    c = _tensor(cos_theta, "cos_theta")
    if c.numel() and (float(c.min()) < -1e-6 or float(c.max()) > 1 + 1e-6):
        raise InputError("cos_theta", f"has values in [{float(c.min()):g}, {float(c.max()):g}]",
                         "cosines in [0, 1] (the angle between the view and the half vector is at most 90 degrees)")
    return schlick(c, f0)


def asg_lobe(h, frame, lam, mu, sigma):
    r"""SSD-GS's anisotropic spherical Gaussian lobe(s), as coded in ``scene/mixture_ASG.py``.

    For lobe j with orthonormal frame :math:`(x_j, y_j, z_j)` (the columns of ``frame[j]``):

    .. math::
        \theta_j = \arccos(h\cdot z_j),\quad s_j = \frac{h - (h\cdot z_j) z_j}{\|\cdot\|},\quad
        a_j = \sqrt{(s_j\cdot x_j/\lambda_j)^2 + (s_j\cdot y_j/\mu_j)^2},\quad
        G_j(h) = \frac{\exp(-\tfrac12(\theta_j a_j/\sigma_j)^2)}{\sqrt2\,\pi^{2/3}\,\sigma_j}

    (the normaliser is the code's; the mixing weights absorb it).

    Parameters
    ----------
    h : array-like (..., 3)
        Unit half vectors in the Gaussian's local shading frame.
    frame : array-like (J, 3, 3) or (3, 3)
        Rotation matrices of the lobes (columns = lobe x, y and central axis z).
    lam, mu : array-like (J,) or float
        Widths of the lobe along its x and y axes (> 0; larger = wider in that direction).
    sigma : array-like (J,) or float
        Overall angular width (> 0).

    Returns
    -------
    tensor (..., J)
        Lobe values; maximal at ``h = z_j``.

    References
    ----------
    K. Xu et al., "Anisotropic spherical Gaussians", ACM TOG 32(6), 2013; SSD-GS official code.

    Examples
    --------
    >>> import torch
    >>> g = asg_lobe(torch.tensor([[0.0, 0, 1], [0.6, 0, 0.8]]), torch.eye(3), 2.5, 1.0, 0.3)
    >>> bool(g[0, 0] > g[1, 0])
    True
    """
    import torch

    h = _tensor(h, "h")
    if h.ndim < 1 or h.shape[-1] != 3:
        raise InputError("h", f"has shape {tuple(h.shape)}", "shape (..., 3) of unit vectors")
    if not bool(torch.allclose(h.norm(dim=-1), torch.ones((), dtype=h.dtype), atol=1e-6)):
        raise InputError("h", "has vectors that are not of unit length", "unit half vectors")
    fr = _tensor(frame, "frame", h.dtype)
    if fr.ndim == 2:
        fr = fr[None]
    if fr.ndim != 3 or fr.shape[1:] != (3, 3):
        raise InputError("frame", f"has shape {tuple(fr.shape)}", "(J, 3, 3) rotation matrices or one (3, 3)")
    eye = torch.eye(3, dtype=fr.dtype)
    if not bool(torch.allclose(fr.transpose(-1, -2) @ fr, eye.expand_as(fr), atol=1e-6)):
        raise InputError("frame", "is not orthonormal", "rotation matrices (R^T R = I)")
    if bool((torch.linalg.det(fr) <= 0).any()):
        raise InputError("frame", "has a reflection (determinant -1)", "rotation matrices (R^T R = I, det R = +1)")
    J = fr.shape[0]
    out = []
    for name, v in (("lam", lam), ("mu", mu), ("sigma", sigma)):
        t = _tensor(v, name, h.dtype).reshape(-1)
        if t.numel() == 1:
            t = t.expand(J)
        if t.numel() != J:
            raise InputError(name, f"has {t.numel()} values for {J} lobes", "one value per lobe (or a scalar)")
        if bool((t <= 0).any()):
            raise InputError(name, "has a value <= 0", "positive lobe widths")
        out.append(t)
    from ._ssdgs_shading import asg_eval

    return asg_eval(h, fr, *out)


def dipole_profile(r, sigma_s_prime, sigma_a, eta=1.3, variant="jensen"):
    r"""Radial diffuse reflectance :math:`R_d(r)` of the classical dipole, SSD-GS's subsurface profile.

    With :math:`\sigma'_t = \sigma'_s + \sigma_a`, :math:`\sigma_{tr} = \sqrt{3\sigma_a\sigma'_t}`,
    :math:`\alpha' = \sigma'_s/\sigma'_t`, :math:`D = 1/(3\sigma'_t)`,
    :math:`F_{dr} = -1.440/\eta^2 + 0.710/\eta + 0.668 + 0.0636\eta`, :math:`A = (1+F_{dr})/(1-F_{dr})`,
    :math:`z_r = 1/\sigma'_t`, :math:`z_v = z_r + 4AD`, :math:`d_{r,v} = \sqrt{r^2 + z_{r,v}^2}`:

    .. math::
        R_d(r) = \frac{\alpha'}{4\pi}\Big[z_r(\sigma_{tr}d_r + 1)\frac{e^{-\sigma_{tr}d_r}}{d_r^3}
        + z_v(\sigma_{tr}d_v + 1)\frac{e^{-\sigma_{tr}d_v}}{d_v^3}\Big]

    (Jensen et al. 2001). ``variant="code"`` is the official SSD-GS code's version, whose second term carries
    :math:`z_r z_v` instead of :math:`z_v`; it integrates to Jensen's total reflectance only when
    :math:`\sigma'_t = 1` (see :func:`dipole_total_reflectance` and check C5).

    Parameters
    ----------
    r : array-like
        Distance on the surface between the entry and exit points (>= 0, scene units, e.g. mm).
    sigma_s_prime : array-like
        Reduced scattering coefficient :math:`\sigma'_s` (> 0, per unit length).
    sigma_a : array-like
        Absorption coefficient (> 0, per unit length).
    eta : float
        Relative index of refraction (> 0; 1.3 in the code).
    variant : {"jensen", "code"}
        The physical dipole, or the official code's (kept for comparison).

    Returns
    -------
    tensor
        :math:`R_d(r)` (broadcast shape of the inputs).

    References
    ----------
    H. W. Jensen, S. R. Marschner, M. Levoy, P. Hanrahan, "A practical model for subsurface light transport",
    SIGGRAPH 2001, eqs. (4)-(5).

    Examples
    --------
    >>> import torch
    >>> j = dipole_profile([0.0, 1.0], 1.0, 0.1)
    >>> c = dipole_profile([0.0, 1.0], 1.0, 0.1, variant="code")
    >>> bool(j[0] > j[1]), bool(torch.allclose(j, c))        # sigma_t' = 1.1: the variants differ
    (True, False)
    """
    import torch

    variant = _option(variant, "variant", ("jensen", "code"))
    eta = _real(eta, "eta", 0.0, lo_open=True, expected="a relative index of refraction > 0")
    r = _tensor(r, "r")
    if bool((r < 0).any()):
        raise InputError("r", "has a negative distance", "distances >= 0")
    ss = _tensor(sigma_s_prime, "sigma_s_prime", r.dtype)
    sa = _tensor(sigma_a, "sigma_a", r.dtype)
    if bool((ss <= 0).any()):
        raise InputError("sigma_s_prime", "has a value <= 0", "a positive reduced scattering coefficient")
    if bool((sa <= 0).any()):
        raise InputError("sigma_a", "has a value <= 0", "a positive absorption coefficient")
    from ._ssdgs_shading import dipole

    r, ss, sa = _broadcast((r, "r"), (ss, "sigma_s_prime"), (sa, "sigma_a"))
    return dipole(r, ss, sa, eta, variant)


def _broadcast(*named):
    """torch.broadcast_tensors, naming the first argument whose shape does not broadcast with those before it."""
    import torch

    shape = ()
    for t, name in named:
        try:
            shape = torch.broadcast_shapes(shape, tuple(t.shape))
        except RuntimeError:
            raise InputError(name, f"has shape {tuple(t.shape)}, which does not broadcast with {tuple(shape)}",
                             "shapes that broadcast together (or scalars)") from None
    return torch.broadcast_tensors(*(t for t, _ in named))


def dipole_total_reflectance(sigma_s_prime, sigma_a, eta=1.3):
    r"""Jensen's closed-form total diffuse reflectance of the dipole, :math:`2\pi\int_0^\infty R_d(r)\,r\,dr`.

    .. math:: R_d = \frac{\alpha'}{2}\big(1 + e^{-\frac43 A\sqrt{3(1-\alpha')}}\big)\,e^{-\sqrt{3(1-\alpha')}}

    Parameters
    ----------
    sigma_s_prime, sigma_a : array-like
        Reduced scattering and absorption coefficients (> 0).
    eta : float
        Relative index of refraction (> 0).

    Returns
    -------
    tensor
        The total diffuse reflectance in [0, 1).

    References
    ----------
    Jensen et al., SIGGRAPH 2001, eq. (6) (the integral of the dipole profile).

    Examples
    --------
    >>> round(float(dipole_total_reflectance(2.0, 0.05)), 5)
    0.5178
    """
    ss = _tensor(sigma_s_prime, "sigma_s_prime")
    sa = _tensor(sigma_a, "sigma_a", ss.dtype)
    if bool((ss <= 0).any()):
        raise InputError("sigma_s_prime", "has a value <= 0", "a positive reduced scattering coefficient")
    if bool((sa <= 0).any()):
        raise InputError("sigma_a", "has a value <= 0", "a positive absorption coefficient")
    eta = _real(eta, "eta", 0.0, lo_open=True, expected="a relative index of refraction > 0")
    from ._ssdgs_shading import dipole_total

    ss, sa = _broadcast((ss, "sigma_s_prime"), (sa, "sigma_a"))
    return dipole_total(ss, sa, eta)


def light_space_visibility(means, quats, log_scales, opacity_logits, light, *, width=64, height=64, focal=None,
                           offset=0.015, thres=4.0):
    r"""SSD-GS's stage-1 shadow: the visibility of every Gaussian from a point light, by splatting from the light.

    A pinhole camera at the light looks at the centroid of the means (up = +z). For Gaussian k at light-space
    depth :math:`z_k` and the light-image pixels p with :math:`\|p - p_k\|^2 <` ``thres``,

    .. math::
        \hat v_k = \frac{\sum_p w_{kp}\,T_p(z_k - \epsilon)}{\max(\sum_p w_{kp}, 10^{-6})},\qquad
        w_{kp} = e^{-\frac12 d_p^\top\Sigma'^{-1}_k d_p},\qquad
        T_p(z) = \prod_{j:\,z_j < z}(1 - \alpha_j(p)),

    with the rasterizer's alphas (clamped at 0.99, zero below 1/255). No gradient flows (as in the code).

    Parameters
    ----------
    means, quats, log_scales, opacity_logits : array-like (N, 3), (N, 4), (N, 3), (N,)
        The Gaussians, as for :func:`iclr26sci.geom.rasterize_gaussians`.
    light : array-like (3,)
        Point-light position; it must lie outside every Gaussian's 1-sigma ellipsoid.
    width, height : int
        Size of the light's image (pixels).
    focal : float, optional
        Its focal length in pixels (default ``width``).
    offset : float
        Depth offset :math:`\epsilon` (scene units, >= 0) that keeps a Gaussian from shadowing itself (0.015).
    thres : float
        Squared pixel radius of the read-out footprint (4 = 2 px, the code's value).

    Returns
    -------
    tensor (N,)
        :math:`\hat v_k` in [0, 1]; 1 for Gaussians outside the light's view.

    Examples
    --------
    >>> import torch
    >>> means = torch.tensor([[0.0, 0, 0], [0.0, 0, 1.0]])            # an occluder between light and receiver
    >>> log_scales = torch.tensor([[-2.0] * 3, [-1.5] * 3])           # the occluder is the wider one
    >>> v = light_space_visibility(means, torch.tensor([[1.0, 0, 0, 0]] * 2), log_scales,
    ...                            torch.tensor([0.0, 6.0]), [0.0, 0.1, 4.0], width=32, height=32, focal=60.0)
    >>> [round(float(x), 2) for x in v]
    [0.06, 1.0]
    """
    import torch

    from ._ssdgs_shadow import light_camera, splat_visibility

    m = _tensor(means, "means")
    if m.ndim != 2 or m.shape[1] != 3 or m.shape[0] == 0:
        raise InputError("means", f"has shape {tuple(m.shape)}", "shape (N, 3) with N >= 1")
    n = m.shape[0]
    q = _tensor(quats, "quats", m.dtype)
    s = _tensor(log_scales, "log_scales", m.dtype)
    o = _tensor(opacity_logits, "opacity_logits", m.dtype)
    for name, t, shp in (("quats", q, (n, 4)), ("log_scales", s, (n, 3)), ("opacity_logits", o, (n,))):
        if tuple(t.shape) != shp:
            raise InputError(name, f"has shape {tuple(t.shape)}", f"shape {shp}, one row per Gaussian")
    if bool((q.norm(dim=1) <= 1e-12).any()):
        raise InputError("quats", "has a quaternion of zero norm", "non-zero quaternions (w, x, y, z)")
    L = _vec3(light, "light")
    width, height = _int(width, "width"), _int(height, "height")
    focal = float(width) if focal is None else _real(focal, "focal", 0.0, lo_open=True, expected="a focal length > 0 (px)")
    offset = _real(offset, "offset", 0.0, expected="a depth offset >= 0 (scene units)")
    thres = _real(thres, "thres", 0.0, lo_open=True, expected="a squared pixel radius > 0")
    _check_light_outside(L, m, s, q)
    cam = light_camera(L, m, width, height, focal, dtype=m.dtype)
    return splat_visibility(m, q, s, o, cam, offset=offset, thres=thres)


def _check_light_outside(L, means, log_scales, quats=None):
    """A light inside a Gaussian's 1-sigma ellipsoid (density above exp(-1/2) of its peak) is inside the reconstructed
    object: refuse it. (1 sigma, not 3: sparse models have wide Gaussians whose 3-sigma shells reach far outside.)"""
    import torch

    from iclr26sci.geom import quat_to_rotmat

    Lt = torch.as_tensor(L, dtype=means.dtype, device=means.device)
    d = (Lt[None] - means.detach())
    if quats is not None:
        R = quat_to_rotmat(quats.detach())
        d = torch.einsum("nji,nj->ni", R, d)
    maha = ((d / torch.exp(log_scales.detach())) ** 2).sum(-1)
    k = int(torch.argmin(maha))
    if float(maha[k]) < 1.0:
        raise InputError("light", f"{np.round(L, 4).tolist()} lies inside the geometry (within 1 sigma of Gaussian {k} "
                                  f"at {np.round(means[k].detach().cpu().numpy(), 4).tolist()})",
                         "a light position outside the object")


# ---------------------------------------------------------------------------------------------------------------
# data


@dataclass
class OLATSet:
    """One-light-at-a-time images with their cameras, lights and ground-truth components.

    Attributes
    ----------
    images : ndarray (N, H, W, 3)
        Linear radiance (unclipped) = diffuse + specular + subsurface.
    cameras : list of iclr26sci.geom.Camera
        One per image.
    lights : ndarray (N, 3)
        Point-light position of each image.
    intensity : ndarray (N,)
        Light intensity of each image (radiance scale; the model normalises by the training mean).
    diffuse, specular, subsurface : ndarray (N, H, W, 3) or None
        Ground-truth components (synthetic data only).
    shadow : ndarray (N, H, W) or None
        Visible fraction of the light at each pixel's surface point (1 = lit).
    object_ids : ndarray (N, H, W) int or None
        Object seen at each pixel (-1 = background).
    lambert_mask : ndarray (N, H, W) bool or None
        Pixels on objects whose material is purely Lambertian (for the component-leak metric).
    points, normals : ndarray (P, 3) or None
        A surface point cloud (the Gaussians' initialisation) and its normals.

    Examples
    --------
    >>> d = olat_scene(mesh="sphere", cameras=1, train_lights=2, test_lights=1, size=8, rng=0, backend="numpy")
    >>> d.train
    OLATSet(2 images, 8x8, 1 cameras, 2 lights)
    """

    images: np.ndarray
    cameras: list
    lights: np.ndarray
    intensity: np.ndarray
    diffuse: np.ndarray | None = None
    specular: np.ndarray | None = None
    subsurface: np.ndarray | None = None
    shadow: np.ndarray | None = None
    object_ids: np.ndarray | None = None
    lambert_mask: np.ndarray | None = None
    points: np.ndarray | None = None
    normals: np.ndarray | None = None

    def __post_init__(self):
        from iclr26sci.geom import Camera

        imgs = np.asarray(self.images, dtype=np.float64)
        if imgs.ndim != 4 or imgs.shape[-1] != 3 or imgs.shape[0] == 0:
            raise InputError("images", f"has shape {imgs.shape}", "shape (N, H, W, 3) with N >= 1")
        if not np.all(np.isfinite(imgs)):
            raise InputError("images", "contains NaN or infinite values", "finite radiance")
        if imgs.min() < 0:
            raise InputError("images", f"has negative radiance (min {imgs.min():g})", "linear radiance >= 0")
        n = imgs.shape[0]
        cams = list(self.cameras) if isinstance(self.cameras, (list, tuple)) else None
        if cams is None or len(cams) != n:
            raise InputError("cameras", f"has {len(cams) if cams is not None else 'no'} cameras for {n} images",
                             "one Camera per image (the counts must agree)")
        for c in cams:
            if not isinstance(c, Camera):
                raise InputError("cameras", f"contains a {type(c).__name__}", "iclr26sci.geom.Camera objects")
            if (c.width, c.height) != (imgs.shape[2], imgs.shape[1]):
                raise InputError("cameras", f"has a {c.width}x{c.height} camera for {imgs.shape[2]}x{imgs.shape[1]} "
                                            "images", "cameras of the images' size")
        lights = np.asarray(self.lights, dtype=np.float64)
        if lights.shape != (n, 3) or not np.all(np.isfinite(lights)):
            raise InputError("lights", f"has shape {lights.shape}", f"({n}, 3): one finite light position per image")
        inten = np.broadcast_to(np.asarray(self.intensity, dtype=np.float64), (n,)).copy() \
            if np.ndim(self.intensity) <= 1 and np.size(self.intensity) in (1, n) else None
        if inten is None:
            raise InputError("intensity", f"has shape {np.shape(self.intensity)}", f"a scalar or ({n},)")
        if not np.all(np.isfinite(inten)) or np.any(inten <= 0):
            raise InputError("intensity", "has a non-positive or non-finite value", "light intensities > 0")
        self.images, self.cameras, self.lights, self.intensity = imgs, cams, lights, inten
        for name in ("points", "normals"):
            v = getattr(self, name)
            if v is not None:
                a = np.asarray(v, np.float64)
                if a.ndim != 2 or a.shape[1] != 3 or not np.all(np.isfinite(a)):
                    raise InputError(name, f"has shape {a.shape}", "a finite (P, 3) array")
                setattr(self, name, a)
        if self.normals is not None and (self.points is None or len(self.normals) != len(self.points)):
            raise InputError("normals", "does not match points", "one normal per point")
        if self.normals is not None and len(self.normals) and np.abs(np.linalg.norm(self.normals, axis=1) - 1).max() > 1e-3:
            raise InputError("normals", "has vectors that are not of unit length", "unit normals")
        H, W = imgs.shape[1:3]
        for name, shape, kind in (("diffuse", (n, H, W, 3), "radiance"), ("specular", (n, H, W, 3), "radiance"),
                                  ("subsurface", (n, H, W, 3), "radiance"), ("shadow", (n, H, W), "fraction"),
                                  ("object_ids", (n, H, W), "ids"), ("lambert_mask", (n, H, W), "mask")):
            v = getattr(self, name)
            if v is None:
                continue
            a = np.asarray(v)
            if a.shape != shape:
                raise InputError(name, f"has shape {a.shape}", f"shape {shape} like the images (or None)")
            if kind == "mask":
                if a.dtype != bool:
                    raise InputError(name, f"has dtype {a.dtype}", "a bool mask")
            elif kind == "ids":
                if a.dtype.kind not in "iu" or (a.size and a.min() < -1):
                    raise InputError(name, f"has dtype {a.dtype} or ids below -1", "integer object ids >= -1 (-1 = none)")
            else:
                if a.dtype.kind not in "iuf" or not np.all(np.isfinite(a)):
                    raise InputError(name, "is not a finite numeric array", f"finite {kind}")
                hi = 1.0 if kind == "fraction" else np.inf
                if a.size and (a.min() < 0 or a.max() > hi):
                    raise InputError(name, f"has values in [{a.min():g}, {a.max():g}]",
                                     "visible fractions in [0, 1]" if kind == "fraction" else "radiance >= 0")

    def __len__(self):
        return len(self.images)

    def __repr__(self):
        n, H, W, _ = self.images.shape
        return (f"OLATSet({n} images, {W}x{H}, {len({id(c) for c in self.cameras})} cameras, "
                f"{len(np.unique(self.lights, axis=0))} lights)")

    def subset(self, index):
        """The images at ``index`` (array of ints) as a new :class:`OLATSet` (same point cloud)."""
        raw = np.asarray(index)
        if raw.dtype == bool or (raw.size and raw.dtype.kind not in "iu"):
            raise InputError("index", f"got {index!r} (dtype {raw.dtype})",
                             f"integer image indices in [0, {len(self)}] (use np.flatnonzero for a mask)")
        idx = raw.astype(np.int64)
        if idx.ndim != 1 or idx.size == 0 or idx.min() < 0 or idx.max() >= len(self):
            raise InputError("index", f"got {index!r}", f"a non-empty 1-D array of image indices in [0, {len(self)})")

        def pick(a):
            return None if a is None else a[idx]

        return OLATSet(images=self.images[idx], cameras=[self.cameras[i] for i in idx], lights=self.lights[idx],
                       intensity=self.intensity[idx], diffuse=pick(self.diffuse), specular=pick(self.specular),
                       subsurface=pick(self.subsurface), shadow=pick(self.shadow), object_ids=pick(self.object_ids),
                       lambert_mask=pick(self.lambert_mask), points=self.points, normals=self.normals)


@dataclass
class OLATData:
    """A synthetic OLAT capture: training lights and held-out (unseen) test lights, same cameras.

    Attributes
    ----------
    train, test : OLATSet
        Every camera under every training light / every test light.
    materials : dict
        Per-object material parameters (albedo, specular, subsurface, sigma_s, sigma_a, ASG widths).
    object_names : list of str
        Object order (ids in ``object_ids``).
    meshes : list of (V, F)
        The scene's triangle meshes.

    Examples
    --------
    >>> d = olat_scene(mesh="sphere", cameras=1, train_lights=1, test_lights=1, size=8, rng=0, backend="numpy")
    >>> d.object_names
    ['ground', 'object', 'metal box', 'cylinder']
    """

    train: OLATSet
    test: OLATSet
    materials: dict
    object_names: list
    meshes: list = field(default_factory=list)

    def __repr__(self):
        return f"OLATData(train={self.train!r}, test={self.test!r})"


def _materials(preset, custom):
    """Per-object material arrays for [ground, object, metal box, cylinder]."""
    n = 4
    m = {"albedo": np.array([[0.5, 0.5, 0.5], [0.6, 0.5, 0.4], [0.05, 0.05, 0.05], [0.7, 0.7, 0.7]]),
         "specular": np.zeros((n, 3)), "subsurface": np.zeros((n, 3)),
         "sigma_s": np.full(n, 1.0), "sigma_a": np.full(n, 0.1),
         "asg_lambda": np.full(n, 20.0), "asg_mu": np.full(n, 20.0)}
    if preset in ("mixed", "metal"):
        m["specular"][2] = [0.9, 0.8, 0.6]
        m["asg_lambda"][2], m["asg_mu"][2] = 8.0, 120.0          # brushed: stretched highlight
        m["albedo"][2] = [0.08, 0.07, 0.05]
    if preset in ("mixed", "translucent"):
        m["albedo"][1] = [0.25, 0.18, 0.12]
        m["subsurface"][1] = [0.9, 0.55, 0.4]
        m["specular"][1] = [0.15, 0.15, 0.15]
        m["asg_lambda"][1], m["asg_mu"][1] = 60.0, 60.0
        m["sigma_s"][1], m["sigma_a"][1] = 1.5, 0.08
    if preset == "metal":
        m["albedo"][1] = [0.05, 0.05, 0.05]
        m["specular"][1] = [0.95, 0.9, 0.85]
        m["asg_lambda"][1], m["asg_mu"][1] = 15.0, 90.0
    for key, val in (custom or {}).items():
        if key not in ("albedo", "specular", "subsurface", "sigma_s", "sigma_a", "asg_lambda", "asg_mu"):
            raise InputError("material", f"has unknown key {key!r}",
                             "keys among albedo, specular, subsurface, sigma_s, sigma_a, asg_lambda, asg_mu")
        a = np.asarray(val, dtype=np.float64)
        if key in ("albedo", "specular", "subsurface"):
            if a.shape not in ((), (3,)) or not np.all(np.isfinite(a)) or np.any(a < 0) or np.any(a > 1):
                raise InputError(f"material[{key!r}]", f"got {val!r}",
                                 "a reflectance (scalar or RGB) in [0, 1], the physical range")
        else:
            if a.shape != () or not np.isfinite(a) or a <= 0:
                raise InputError(f"material[{key!r}]", f"got {val!r}",
                                 "a positive scalar (scattering/absorption coefficients and lobe sharpness are > 0)")
        m[key][1] = a
    if np.any(m["albedo"][1] + m["subsurface"][1] > 1.0 + 1e-12) and custom and "subsurface" in custom:
        raise InputError("material", "albedo + subsurface exceeds 1 in a channel", "energy conservation: sum <= 1")
    return m


def olat_scene(mesh="bunny", materials="mixed", cameras=24, train_lights=16, test_lights=8, size=64, rng=None, *,
               material=None, intensity=30.0, light_radius=0.08, light_samples=8, n_points=20000, backend="auto"):
    r"""A synthetic one-light-at-a-time (OLAT) capture with exact diffuse, specular, subsurface and shadow parts.

    The scene: a ground slab (Lambertian), the main object (``mesh``, scaled to 0.9 units and standing at the
    origin), a brushed-metal box and a Lambertian cylinder that casts shadows. Each camera on a ring around the
    scene (radius 3.2, elevation 15-55 degrees) is rendered under every training light and every test light
    (point lights at radius 3, elevation 20-70 degrees; the test lights are drawn separately, so they are
    unseen in training). Ground truth is ray cast (:class:`iclr26sci.geom.RaycastScene`) and shaded
    analytically:

    .. math::
        I = \underbrace{\tfrac{\rho}{\pi}(n\cdot\omega_i)^+ \tfrac{I_0}{r^2} V}_{\text{diffuse}}
          + \underbrace{k_s F(\omega_i\cdot h)\,\mathrm{ASG}(h) \tfrac{I_0}{r^2} V}_{\text{specular}}
          + \underbrace{k_{sss}\tfrac{R_d}{\pi}\,\mathrm{wrap}(n\cdot\omega_i)\tfrac{I_0}{r^2}}_{\text{subsurface}}

    with V the visible fraction of a spherical light of radius ``light_radius`` (``light_samples`` shadow rays),
    ASG an anisotropic spherical Gaussian in the surface's tangent frame, :math:`R_d` Jensen's total diffuse
    reflectance. The data is synthetic; nothing is downloaded.

    Parameters
    ----------
    mesh : str or (vertices, faces)
        The main object: a libcgal-demo mesh name (``"bunny"``, ``"armadillo"``, ...; read from the Debian
        package's data archive), ``"sphere"`` (no file needed), or your own ``(V (n, 3), F (m, 3))`` arrays.
    materials : {"mixed", "lambert", "translucent", "metal"}
        Material preset: "mixed" = translucent object + brushed-metal box; "lambert" = every object purely
        diffuse; "translucent" / "metal" = only that special material.
    cameras : int
        Number of camera viewpoints (>= 1).
    train_lights, test_lights : int
        Number of training lights and of held-out test lights (>= 1 each).
    size : int
        Image width = height in pixels (>= 4).
    rng : int, Generator or None
        Seed for the viewpoints, lights and point cloud.
    material : dict, optional
        Overrides for the main object's material: ``albedo``, ``specular``, ``subsurface`` (reflectances in
        [0, 1]), ``sigma_s``, ``sigma_a`` (scattering / absorption coefficients > 0), ``asg_lambda``, ``asg_mu``.
    intensity : float
        Point-light intensity (> 0); radiance scales as intensity / distance^2.
    light_radius : float
        Radius of the spherical light for soft shadows (>= 0; 0 = hard shadows).
    light_samples : int
        Shadow rays per pixel (>= 1).
    n_points : int
        Size of the surface point cloud returned for the Gaussians' initialisation.
    backend : {"auto", "open3d", "numpy"}
        Ray-casting engine.

    Returns
    -------
    OLATData
        ``train`` and ``test`` :class:`OLATSet` s (same cameras; test = unseen lights).

    Examples
    --------
    >>> d = olat_scene(mesh="sphere", cameras=2, train_lights=2, test_lights=1, size=8, rng=0, light_samples=2,
    ...                backend="numpy")
    >>> d.train.images.shape, d.test.images.shape
    ((4, 8, 8, 3), (2, 8, 8, 3))
    >>> bool(np.allclose(d.train.images, d.train.diffuse + d.train.specular + d.train.subsurface))
    True
    """
    import torch

    from iclr26sci.geom import Camera, RaycastScene, box_mesh, uv_sphere

    from . import _ssdgs_data as dat

    materials = _option(materials, "materials", MATERIAL_PRESETS)
    cameras = _int(cameras, "cameras")
    train_lights, test_lights = _int(train_lights, "train_lights"), _int(test_lights, "test_lights")
    size = _int(size, "size", 4)
    intensity = _real(intensity, "intensity", 0.0, lo_open=True, expected="a light intensity > 0")
    light_radius = _real(light_radius, "light_radius", 0.0, expected="a light radius >= 0")
    light_samples = _int(light_samples, "light_samples")
    n_points = _int(n_points, "n_points", 16)
    if material is not None and not isinstance(material, dict):
        raise InputError("material", f"got {type(material).__name__}", "a dict of material overrides")
    mats = _materials(materials, material)
    if isinstance(mesh, str):
        if mesh == "sphere":
            V, F = uv_sphere(0.5, (0.0, 0.0, 0.5), 16, 32)
        else:
            got = dat.read_cgal_mesh(mesh)
            if got is None:
                raise InputError("mesh", f"{mesh!r} is not a libcgal-demo mesh here",
                                 f"'sphere', (V, F) arrays, or one of {dat.cgal_available_names()[:8]} "
                                 "(apt install libcgal-demo for the CGAL meshes)")
            V, F = got
    elif isinstance(mesh, (tuple, list)) and len(mesh) == 2:
        V, F = np.asarray(mesh[0], dtype=np.float64), np.asarray(mesh[1])
        if V.ndim != 2 or V.shape[1] != 3 or len(V) < 3 or not np.all(np.isfinite(V)):
            raise InputError("mesh", f"has vertices of shape {V.shape}", "finite (n >= 3, 3) vertices")
        if F.ndim != 2 or F.shape[1] != 3 or len(F) == 0 or not np.issubdtype(F.dtype, np.integer) \
                or F.min() < 0 or F.max() >= len(V):
            raise InputError("mesh", f"has faces of shape {F.shape}", "(m >= 1, 3) integer indices into the vertices")
    else:
        raise InputError("mesh", f"got {type(mesh).__name__}", "a mesh name, 'sphere', or a (V, F) pair")
    V, F = dat.normalise_mesh(V, F, 0.9, (0.0, 0.0))
    meshes = [box_mesh([-1.5, -1.5, -0.05], [1.5, 1.5, 0.0]), (V, F),
              box_mesh([0.55, -0.85, 0.0], [0.95, -0.45, 0.4]), dat.cylinder_mesh(0.14, 0.75, (-0.75, 0.55))]
    names = ["ground", "object", "metal box", "cylinder"]
    gen = as_generator(rng)
    scene = RaycastScene.from_mesh(meshes, backend=backend)
    cams = []
    az0 = gen.uniform(0, 2 * np.pi)
    for c in range(cameras):
        az = az0 + 2 * np.pi * c / cameras + gen.uniform(-0.2, 0.2)
        el = np.deg2rad(gen.uniform(15, 55))
        eye = 3.2 * np.array([np.cos(az) * np.cos(el), np.sin(az) * np.cos(el), np.sin(el)])
        cams.append(Camera.look_at(eye.tolist(), [0.0, 0.0, 0.3], up=[0.0, 0.0, 1.0], fx=1.2 * size, fy=1.2 * size,
                                   width=size, height=size, dtype=torch.float64))

    def draw_lights(k):
        az = gen.uniform(0, 2 * np.pi, k)
        el = np.deg2rad(gen.uniform(20, 70, k))
        return 3.0 * np.stack([np.cos(az) * np.cos(el), np.sin(az) * np.cos(el), np.sin(el)], 1)

    Ltr, Lte = draw_lights(train_lights), draw_lights(test_lights)
    lambert_obj = np.array([not (np.any(mats["specular"][i] > 0) or np.any(mats["subsurface"][i] > 0))
                            for i in range(4)])
    jitter = gen.normal(size=(light_samples, 3))
    jitter = light_radius * jitter / np.linalg.norm(jitter, axis=1, keepdims=True) * \
        gen.random((light_samples, 1)) ** (1 / 3)
    if light_samples == 1:
        jitter[:] = 0.0
    renders = []
    for cam in cams:
        r = scene.render(cam)
        o = cam.centre.numpy()
        hit = r.hit
        pts = np.nan_to_num(r.points[hit])
        nrm = r.normals[hit]
        vd = o[None] - pts
        vd /= np.linalg.norm(vd, axis=1, keepdims=True)
        flip = (nrm * vd).sum(1) < 0
        nrm = np.where(flip[:, None], -nrm, nrm)
        renders.append((hit, pts, nrm, vd, r.geometry_ids))

    def make(lights):
        n = len(cams) * len(lights)
        out = {k: np.zeros((n, size, size, 3)) for k in ("diffuse", "specular", "subsurface")}
        shadow = np.ones((n, size, size))
        ids = np.full((n, size, size), -1, dtype=np.int64)
        cam_list, light_list = [], []
        i = 0
        for cam, (hit, pts, nrm, vd, gid) in zip(cams, renders):
            obj = gid[hit]
            offs = pts + 1e-3 * nrm
            for L in lights:
                vis = np.zeros(len(pts))
                for j in jitter:
                    vis += ~scene.shadow(offs, L + j)
                vis /= len(jitter)
                d, s, ss = dat.shade(pts, nrm, vd, L, intensity, mats, obj, vis)
                out["diffuse"][i][hit], out["specular"][i][hit], out["subsurface"][i][hit] = d, s, ss
                shadow[i][hit] = vis
                ids[i] = gid
                cam_list.append(cam)
                light_list.append(L)
                i += 1
        img = out["diffuse"] + out["specular"] + out["subsurface"]
        lam_mask = (ids >= 0) & lambert_obj[np.maximum(ids, 0)]
        return img, out, shadow, ids, lam_mask, cam_list, np.array(light_list)

    per_obj = max(4, n_points // 4)
    pts, nrm = [], []
    # the ground slab's top face and every object's surface, sampled with equal counts (objects get detail)
    for gi, (Vm, Fm) in enumerate(meshes):
        if gi == 0:
            top = np.all(np.isclose(Vm[Fm][:, :, 2], 0.0), axis=1)
            p, nn_ = dat.sample_surface(Vm, Fm[top], per_obj, gen)
            keep = np.linalg.norm(p[:, :2], axis=1) < 1.4
            p, nn_ = p[keep], nn_[keep]
        else:
            p, nn_ = dat.sample_surface(Vm, Fm, per_obj, gen)
        pts.append(p)
        nrm.append(nn_)
    P, N = np.concatenate(pts), np.concatenate(nrm)
    sets = []
    for lights in (Ltr, Lte):
        img, comp, sh, ids, lam, cl, ll = make(lights)
        sets.append(OLATSet(images=img, cameras=cl, lights=ll, intensity=np.full(len(img), intensity),
                            diffuse=comp["diffuse"], specular=comp["specular"], subsurface=comp["subsurface"],
                            shadow=sh, object_ids=ids, lambert_mask=lam, points=P, normals=N))
    return OLATData(train=sets[0], test=sets[1], materials=mats, object_names=names, meshes=meshes)


# ---------------------------------------------------------------------------------------------------------------
# results


@dataclass
class Decomposition:
    """The images of one (camera, light) rendered by :meth:`SSDGS.decompose`.

    Attributes
    ----------
    image : ndarray (H, W, 3)
        The relit image ``(diffuse + specular) * shadow + subsurface`` (per Gaussian, then composited).
    diffuse, specular, subsurface : ndarray (H, W, 3)
        The composited components (already scaled by the light intensity).
    shadow : ndarray (H, W)
        The composited per-Gaussian shadow factor S (1 = lit).
    alpha : ndarray (H, W)
        Accumulated opacity.

    Examples
    --------
    >>> z = np.zeros((2, 2, 3))
    >>> Decomposition(z, z, z, z, np.ones((2, 2)), np.ones((2, 2)))
    Decomposition(2x2)
    """

    image: np.ndarray
    diffuse: np.ndarray
    specular: np.ndarray
    subsurface: np.ndarray
    shadow: np.ndarray
    alpha: np.ndarray

    def __repr__(self):
        return f"Decomposition({self.image.shape[1]}x{self.image.shape[0]})"

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("image", "diffuse", "specular", "subsurface", "shadow", "alpha")}

    def summary(self) -> str:
        tot = float(self.image.sum()) or 1.0
        return (f"{self.image.shape[1]}x{self.image.shape[0]} relit image; energy shares: diffuse "
                f"{float(self.diffuse.sum()) / tot:.3f}, specular {float(self.specular.sum()) / tot:.3f}, subsurface "
                f"{float(self.subsurface.sum()) / tot:.3f}; mean shadow {float(self.shadow.mean()):.3f}")


@dataclass
class RelightingScores:
    """What :meth:`SSDGS.evaluate` measured on a set of (camera, light) images.

    Attributes
    ----------
    psnr, ssim : float
        Mean PSNR (dB, data range 1) and SSIM of the relit images.
    component_mse : dict
        Mean squared error of each component image against the ground truth (synthetic data).
    specular_leak : float
        Specular energy on Lambert-only objects divided by the rendered energy there (0 = no leak).
    n_images : int
    per_image_psnr : ndarray
    render_seconds : float
        Mean time to render one frame.

    Examples
    --------
    >>> RelightingScores(psnr=30.0, ssim=0.9, component_mse={}, specular_leak=0.0, n_images=1,
    ...                  per_image_psnr=np.array([30.0]), render_seconds=0.01)
    RelightingScores(psnr=30.00 dB, ssim=0.900, n=1)
    """

    psnr: float
    ssim: float
    component_mse: dict
    specular_leak: float
    n_images: int
    per_image_psnr: np.ndarray
    render_seconds: float

    def __repr__(self):
        return f"RelightingScores(psnr={self.psnr:.2f} dB, ssim={self.ssim:.3f}, n={self.n_images})"

    def to_dict(self) -> dict:
        return {"psnr": self.psnr, "ssim": self.ssim, "component_mse": dict(self.component_mse),
                "specular_leak": self.specular_leak, "n_images": self.n_images,
                "per_image_psnr": self.per_image_psnr.tolist(), "render_seconds": self.render_seconds}

    def summary(self) -> str:
        comp = ", ".join(f"{k} {v:.2e}" for k, v in self.component_mse.items())
        return (f"{self.n_images} images: PSNR {self.psnr:.2f} dB, SSIM {self.ssim:.4f}, specular leak "
                f"{self.specular_leak:.4f}; component MSE: {comp or 'n/a'}; {1e3 * self.render_seconds:.1f} ms/frame")


# ---------------------------------------------------------------------------------------------------------------
# the model

from ._ssdgs_model import SSDGS  # noqa: E402  (the estimator lives in a private module; re-exported here)
from ._ssdgs_io import load_olat_capture  # noqa: E402  (reader of the SSD-GS / NRHints capture layout)
