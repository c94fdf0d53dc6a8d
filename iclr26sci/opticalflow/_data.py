r"""Cross-modal training and evaluation pairs: scikit-image / scikit-learn textures and the Middlebury pair.

Training pairs (``source="images"``): crops of the sample images that ship inside scikit-image
(astronaut, coffee, chelsea, rocket, brick, grass, gravel, camera, coins, ...) and scikit-learn (china,
flower); ``A`` is the RGB crop, ``B`` the crop in the target modality after a random affine misalignment,
so the flow ``F_{B->A}`` is known exactly (used only for evaluation; DCFlow never sees it).

Evaluation pair: the real Middlebury 2014 "motorcycle" stereo pair with ground-truth disparity that
ships in scikit-image. The disparity lives on the left grid (``x_R = x_L - d``), so with ``B`` = the left
view (modality-shifted) and ``A`` = the right RGB view the true flow is ``F_{B->A}(x) = (-d(x), 0)``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from iclr26sci.core import InputError, as_generator, check_in_range

from ._appearance import MODALITIES, _check_affine, modality_transform, random_affine
from ._validate import check_int, check_unit_range

__all__ = ["CrossModalPairs", "crossmodal_pairs", "motorcycle_pair", "texture_images", "TEXTURE_NAMES"]

#: the scikit-image / scikit-learn sample images used as training textures
TEXTURE_NAMES = ("astronaut", "coffee", "chelsea", "rocket", "brick", "grass", "gravel", "camera", "coins",
                 "hubble_deep_field", "immunohistochemistry", "retina", "cat", "page", "text", "moon",
                 "china", "flower")


def _resize(img, shape):
    import cv2

    return cv2.resize(np.ascontiguousarray(img, dtype=np.float32), (shape[1], shape[0]), interpolation=cv2.INTER_AREA)


def texture_images(longest=192):
    """The training textures as RGB float32 arrays in [0, 1], resized so the longer side is ``longest``.

    Parameters
    ----------
    longest : int
        Longer side in pixels after area resampling.

    Returns
    -------
    tuple of (name, ndarray (H, W, 3))

    Examples
    --------
    >>> imgs = texture_images(64)
    >>> len(imgs) >= 10, imgs[0][1].shape[-1]
    (True, 3)
    """
    return _texture_images(check_int(longest, "longest", lo=8))


@functools.lru_cache(maxsize=4)
def _texture_images(longest):
    import skimage.data as skd
    from skimage.util import img_as_float

    out = []
    for name in TEXTURE_NAMES:
        try:
            if name in ("china", "flower"):
                from sklearn.datasets import load_sample_image

                a = load_sample_image(f"{name}.jpg")
            else:
                a = getattr(skd, name)()
        except Exception:          # an image missing from this install (never downloaded): skip it
            continue
        a = img_as_float(np.asarray(a))
        if a.ndim == 2:
            a = np.repeat(a[..., None], 3, -1)
        a = a[..., :3]
        s = longest / max(a.shape[:2])
        a = _resize(a, (max(int(round(a.shape[0] * s)), 8), max(int(round(a.shape[1] * s)), 8)))
        out.append((name, np.clip(a, 0, 1).astype(np.float32)))
    return tuple(out)


@dataclass
class CrossModalPairs:
    """Unaligned cross-modal image pairs with their exact flow (for evaluation only).

    Attributes
    ----------
    image_a : ndarray (N, H, W, 3)
        Modality A (RGB, "information rich").
    image_b : ndarray (N, H, W)
        Modality B (the synthetic "sparse" modality).
    flow : ndarray (N, H, W, 2)
        True flow on B's grid pointing into A: ``B(x) ~ f(A)(x + flow(x))``.
    mask : bool ndarray (N, H, W)
        ``x + flow(x)`` lies inside A.
    depth_a, depth_b : ndarray (N, H, W) or None
        Depth maps of A and B when the source has them (else DCFlow uses crude random depth).
    modality : str

    Examples
    --------
    >>> p = crossmodal_pairs(n=2, size=16, rng=0)
    >>> len(p), p.depth_a is None
    (2, True)
    """

    image_a: np.ndarray
    image_b: np.ndarray
    flow: np.ndarray
    mask: np.ndarray
    depth_a: np.ndarray | None = None
    depth_b: np.ndarray | None = None
    modality: str = ""

    def __post_init__(self):
        a = np.asarray(self.image_a)
        if a.ndim != 4 or a.shape[-1] != 3:
            raise InputError("image_a", f"has shape {a.shape}", "(N, H, W, 3) RGB images")
        N, H, W = a.shape[:3]
        for name, want in (("image_b", (N, H, W)), ("flow", (N, H, W, 2)), ("mask", (N, H, W)),
                           ("depth_a", (N, H, W)), ("depth_b", (N, H, W))):
            v = getattr(self, name)
            if v is None and name.startswith("depth"):
                continue
            if np.shape(v) != want:
                raise InputError(name, f"has shape {np.shape(v)}", f"{want} (matching image_a {a.shape})")

    def __len__(self):
        return int(self.image_a.shape[0])

    def __repr__(self):
        return (f"CrossModalPairs(n={len(self)}, size={self.image_a.shape[1:3]}, modality={self.modality!r}, "
                f"depth={'yes' if self.depth_a is not None else 'no'})")

    def summary(self) -> str:
        """One line: count, size, modality and flow magnitude."""
        mag = np.linalg.norm(self.flow[self.mask], axis=-1)
        return (f"{len(self)} {self.modality} pairs of {self.image_a.shape[1]}x{self.image_a.shape[2]}, "
                f"|flow| median {np.median(mag):.2f} px, max {mag.max():.2f} px")

    def to_dict(self) -> dict:
        """The arrays as a dict."""
        return {k: getattr(self, k) for k in ("image_a", "image_b", "flow", "mask", "depth_a", "depth_b", "modality")}

    def subset(self, idx):
        """The pairs at positions ``idx``.

        Examples
        --------
        >>> p = crossmodal_pairs(n=3, size=32, rng=0)
        >>> len(p.subset([0, 2]))
        2
        """
        idx = _check_index(idx, len(self))
        g = lambda x: None if x is None else x[idx]  # noqa: E731
        return CrossModalPairs(self.image_a[idx], self.image_b[idx], self.flow[idx], self.mask[idx],
                               g(self.depth_a), g(self.depth_b), self.modality)


def _check_index(idx, n):
    """Positions (integers in [-n, n)) or a boolean mask of length n; at least one selected."""
    try:
        a = np.asarray(idx)
    except (TypeError, ValueError):
        raise InputError("idx", f"got {idx!r}", "integer positions or a boolean mask") from None
    if a.dtype == bool:
        if a.shape != (n,):
            raise InputError("idx", f"is a boolean mask of shape {a.shape}", f"a mask of length {n}")
        a = np.nonzero(a)[0]
    elif a.size and a.dtype.kind not in "iu":
        raise InputError("idx", f"has dtype {a.dtype}", "integer positions or a boolean mask")
    a = a.astype(np.int64).reshape(-1)
    if a.size == 0:
        raise InputError("idx", "selects no pair", "at least one position")
    if a.min() < -n or a.max() >= n:
        raise InputError("idx", f"has positions in [{a.min()}, {a.max()}]", f"positions in [0, {n})")
    return a


def _check_rng(rng):
    return as_generator(rng)


def _bilinear(img, x, y):
    """Sample img (H, W[, C]) at float pixel-index coordinates, edge-clamped."""
    from scipy.ndimage import map_coordinates

    if img.ndim == 2:
        return map_coordinates(img, [y, x], order=1, mode="nearest")
    return np.stack([map_coordinates(img[..., c], [y, x], order=1, mode="nearest") for c in range(img.shape[-1])], -1)


def crossmodal_pairs(source="images", modality="thermal_like", n=256, *, size=48, depth=None, severity=1.0,
                     misalign=None, rng=None):
    r"""Synthesise ``n`` unaligned cross-modal pairs with exact flow.

    A patch of side ``size + 2m`` is cut from a source image; ``A`` is its central ``size x size`` crop
    (RGB) and ``B`` the central crop of ``modality(patch)`` warped by a random affine ``M`` about the
    centre: :math:`B(y) = f(P)(M^{-1}y)`, so the true flow on B's grid is :math:`M^{-1}y - y`.

    Parameters
    ----------
    source : "images" or array (N, H, W) / (N, H, W, 3)
        ``"images"``: the scikit-image / scikit-learn textures (:func:`texture_images`); an array: the
        user's own images in [0, 1] (e.g. ViSP Castle-simu views).
    modality : {"thermal_like", "nir_like", "lut"}
        B's appearance (:func:`modality_transform`).
    n : int
        Number of pairs.
    size : int
        Side of each crop in pixels (>= 16).
    depth : array (N, H, W), optional
        Depth maps of an array ``source`` (> 0); cropped and warped alongside (oracle depth for synthesis).
    severity : float in [0, 1]
        Strength of the modality shift.
    misalign : dict, optional
        Ranges for :func:`random_affine` ([recon] default: ±5°, scale 0.95-1.05, shear ±0.03, ±4 px).
    rng : None, int, SeedSequence or Generator
        Random source (SPEC 7).

    Returns
    -------
    CrossModalPairs

    Examples
    --------
    >>> pairs = crossmodal_pairs(n=4, size=32, rng=0)
    >>> pairs.image_a.shape, pairs.image_b.shape, pairs.flow.shape
    ((4, 32, 32, 3), (4, 32, 32), (4, 32, 32, 2))
    """
    g = _check_rng(rng)
    if modality not in MODALITIES:
        raise InputError("modality", f"got {modality!r}", f"one of {MODALITIES}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError("n", f"got {n!r}", "an integer >= 1 (number of pairs)")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 16:
        raise InputError("size", f"got {size!r}", "an integer >= 16 (crop side in pixels)")
    severity = check_in_range(severity, "severity", 0.0, 1.0)
    mis = dict(max_rotation_deg=5.0, scale_range=(0.95, 1.05), max_shear=0.03, max_translation=4.0)
    if misalign is not None:
        if not isinstance(misalign, dict) or set(misalign) - set(mis):
            raise InputError("misalign", f"got {misalign!r}", f"a dict with keys from {sorted(mis)}")
        mis.update(misalign)
        try:
            random_affine(np.random.default_rng(0), center=(1.0, 1.0), **mis)
        except InputError as exc:
            raise InputError("misalign", f"{exc.argument} {exc.problem}", exc.expected) from None
    m = int(np.ceil(size * 0.25 + mis["max_translation"])) + 2
    P = size + 2 * m
    if isinstance(source, str):
        if source != "images":
            raise InputError("source", f"got {source!r}", "'images' or an array of images (N, H, W[, 3])")
        if depth is not None:
            raise InputError("depth", "was given with source='images'", "depth only with an array source")
        imgs = [a for _, a in texture_images(max(192, 3 * P))]
        deps = None
    else:
        try:
            arr = np.asarray(source, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("source", "cannot be read as an array", "(N, H, W) or (N, H, W, 3) images") from None
        if arr.ndim == 3:
            arr = np.repeat(arr[..., None], 3, -1)
        if arr.ndim != 4 or arr.shape[-1] != 3 or not np.isfinite(arr).all():
            raise InputError("source", f"has shape {arr.shape}", "(N, H, W) or (N, H, W, 3) finite images")
        if arr.shape[0] == 0:
            raise InputError("source", "holds no image", "at least one image")
        check_unit_range(arr, "source")
        if min(arr.shape[1:3]) < P:
            raise InputError("source", f"images are {arr.shape[1:3]}", f"at least {P} px on each side for size={size}")
        imgs = list(arr)
        deps = None
        if depth is not None:
            d = np.asarray(depth, dtype=np.float64)
            if d.shape != arr.shape[:3]:
                raise InputError("depth", f"has shape {d.shape}", f"{arr.shape[:3]} (one map per image)")
            if not np.isfinite(d).all() or not (d > 0).all():
                raise InputError("depth", "has non-positive or non-finite values", "depth > 0 everywhere")
            deps = list(d)
    imgs_ok = [i for i, a in enumerate(imgs) if min(a.shape[:2]) >= P]
    if not imgs_ok:
        raise InputError("size", f"got {size}", "a crop that fits inside the source images")
    A = np.zeros((n, size, size, 3), np.float32)
    B = np.zeros((n, size, size), np.float32)
    FL = np.zeros((n, size, size, 2), np.float32)
    MK = np.zeros((n, size, size), bool)
    DA = np.zeros((n, size, size), np.float32) if deps is not None else None
    DB = np.zeros((n, size, size), np.float32) if deps is not None else None
    jj, ii = np.meshgrid(np.arange(size, dtype=np.float64), np.arange(size, dtype=np.float64))
    for k in range(n):
        idx = imgs_ok[int(g.integers(len(imgs_ok)))]
        img = imgs[idx]
        r0 = int(g.integers(0, img.shape[0] - P + 1))
        c0 = int(g.integers(0, img.shape[1] - P + 1))
        patch = np.asarray(img[r0:r0 + P, c0:c0 + P], np.float64)
        M = random_affine(g, center=(P / 2, P / 2), **mis)
        Mi = np.linalg.inv(M)
        # B pixel (i, j) of the crop has patch centre coordinate y = (j + m + .5, i + m + .5)
        yx, yy = jj + m + 0.5, ii + m + 0.5
        sx = Mi[0, 0] * yx + Mi[0, 1] * yy + Mi[0, 2]
        sy = Mi[1, 0] * yx + Mi[1, 1] * yy + Mi[1, 2]
        mod = modality_transform(patch, modality, severity=severity, rng=g)
        B[k] = _bilinear(mod, sx - 0.5, sy - 0.5)
        A[k] = patch[m:m + size, m:m + size]
        FL[k, ..., 0], FL[k, ..., 1] = sx - yx, sy - yy
        ax, ay = jj + FL[k, ..., 0], ii + FL[k, ..., 1]
        MK[k] = (ax >= 0) & (ax <= size - 1) & (ay >= 0) & (ay <= size - 1)
        if deps is not None:
            dp = deps[idx][r0:r0 + P, c0:c0 + P]
            DA[k] = dp[m:m + size, m:m + size]
            DB[k] = _bilinear(dp, sx - 0.5, sy - 0.5)
    return CrossModalPairs(A, B, FL, MK, DA, DB, modality)


@dataclass
class MotorcyclePair:
    """The Middlebury motorcycle pair as a cross-modal evaluation pair (see :func:`motorcycle_pair`).

    Examples
    --------
    >>> motorcycle_pair(width=32).image_b.shape
    (22, 32)
    """

    image_a: np.ndarray
    image_b: np.ndarray
    flow: np.ndarray
    mask: np.ndarray
    depth_b: np.ndarray
    image_b_rgb: np.ndarray
    modality: str

    def __post_init__(self):
        a = np.asarray(self.image_a)
        if a.ndim not in (2, 3):
            raise InputError("image_a", f"has shape {a.shape}", "(H, W, 3) or (H, W)")
        H, W = a.shape[:2]
        for name, want in (("image_b", (H, W)), ("flow", (H, W, 2)), ("mask", (H, W)), ("depth_b", (H, W))):
            if np.shape(getattr(self, name)) != want:
                raise InputError(name, f"has shape {np.shape(getattr(self, name))}", f"{want} (matching image_a)")

    def __repr__(self):
        return f"MotorcyclePair(size={self.image_b.shape}, modality={self.modality!r}, valid={self.mask.mean():.1%})"


def motorcycle_pair(modality="thermal_like", *, width=96, severity=1.0, rng=0):
    r"""The real Middlebury 2014 motorcycle stereo pair (scikit-image) with a synthetic modality shift.

    ``A`` = right view (RGB), ``B`` = ``modality(left view)``; true flow on B's grid
    ``(-d(x) * width / W0, 0)`` from the shipped disparity (area-resampled over valid pixels only; a
    pixel is valid when at least 90 % of its footprint had a finite disparity). ``depth_b`` is the
    oracle depth ``1/d`` scaled to median 1 (the calibration is not shipped; scale does not matter for
    synthesis).

    Parameters
    ----------
    modality : {"thermal_like", "nir_like", "lut"} or None
        B's appearance; ``None`` keeps B as grey (an intra-modal control).
    width : int
        Output width in pixels (the height keeps the aspect ratio).
    severity : float in [0, 1]
    rng : None, int, SeedSequence or Generator
        Seed of the ``"lut"`` modality's random tables (SPEC 7).

    Returns
    -------
    MotorcyclePair
        ``image_a`` (H, W, 3), ``image_b`` (H, W), ``flow`` (H, W, 2), ``mask`` (H, W), ``depth_b``, ``image_b_rgb``.

    Examples
    --------
    >>> p = motorcycle_pair(width=64)
    >>> p.image_a.shape[1], p.flow.shape[-1], bool(p.flow[..., 0][p.mask].max() <= 0)
    (64, 2, True)
    """
    import skimage.data as skd
    from skimage.util import img_as_float

    if modality is not None and modality not in MODALITIES:
        raise InputError("modality", f"got {modality!r}", f"one of {MODALITIES} or None")
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or not 16 <= width <= 741:
        raise InputError("width", f"got {width!r}", "an integer in [16, 741] (pixels)")
    severity = check_in_range(severity, "severity", 0.0, 1.0)
    rng = as_generator(rng)
    left, right, disp = skd.stereo_motorcycle()
    left, right = img_as_float(left), img_as_float(right)
    H0, W0 = disp.shape
    s = width / W0
    h = int(round(H0 * s))
    valid = np.isfinite(disp) & (disp > 0)
    dsum = _resize(np.where(valid, disp, 0.0), (h, width))
    vfrac = _resize(valid.astype(np.float64), (h, width))
    d = np.where(vfrac > 0.9, dsum / np.maximum(vfrac, 1e-9), np.nan) * s
    mask = np.isfinite(d)
    flow = np.zeros((h, width, 2))
    flow[..., 0] = np.where(mask, -d, 0.0)
    A = np.clip(_resize(right, (h, width)), 0, 1).astype(np.float64)
    Lrgb = np.clip(_resize(left, (h, width)), 0, 1).astype(np.float64)
    if modality is None:
        B = Lrgb @ np.array([0.299, 0.587, 0.114])
    else:
        B = modality_transform(Lrgb, modality, severity=severity, rng=rng)
    inv = np.where(mask, 1.0 / np.where(mask, d, 1.0), np.nan)
    depth = np.where(mask, inv / np.nanmedian(inv), np.nan)
    depth = np.where(mask, depth, np.nanmedian(depth))
    return MotorcyclePair(A, B, flow, mask, depth, Lrgb, modality or "grey")


_ = _check_affine
