r"""GaussianFusion: camera-LiDAR fusion through 3-D Gaussians for semantic occupancy and detection (toy scale, CPU).

Liu et al., "GaussianFusion: Unified 3D Gaussian Representation for Multi-Modal Fusion Perception", ICLR 2026,
arXiv:2607.00746 (no official code). The model keeps fusion in a continuous Gaussian space and quantises only
at the end:

1. **Camera Gaussians by forward projection (LSS)** [note]: each feature pixel :math:`i` has a depth distribution
   :math:`D_i` over bins :math:`z_d` and context :math:`c_i`; the point
   :math:`X_{i,d} = T_{cam\to ego}(z_d K^{-1}[u_i, v_i, 1]^\top)` is a Gaussian mean with query
   :math:`q_{i,d} = D_i(d)\,c_i`. Only the ``n_gaussians`` pairs with the largest :math:`D_i(d)` are kept [recon].
2. **LiDAR Gaussians** [note] at the LiDAR returns themselves (every ``ceil(n / n_lidar_gaussians)``-th return
   inside the volume), with :math:`q = \mathrm{MLP}(f_p)`; :math:`f_p` is a per-point MLP plus a max over the
   ``knn`` nearest returns [recon]. No BEV cell is involved.
3. **Cross-modal Gaussian encoder** [note]: camera and LiDAR Gaussians concatenated along the Gaussian axis and
   run through the same layers (``shared_encoder=True``). Each layer adds a positional embedding
   :math:`\hat q = q + \mathrm{MLP}(\mu, \log s, r)` and gathers, with nothing quantised before fusion [recon]:

   - camera features at the Gaussian's footprint: the sigma points :math:`\mu + \Delta\mu_k`,
     :math:`\Delta\mu_k = R S u_k + \delta_k(\hat q)`, :math:`u_k \in \{0, \pm\sqrt3 e_j\}` (``offsets="gaussian"``;
     ``"box"`` uses a fixed axis-aligned box), are projected into every camera, the image feature maps are
     sampled bilinearly there and averaged over the cameras that see the point, then weighted by softmax
     weights :math:`A_k(\hat q)`;
   - LiDAR features from its ``knn`` nearest returns :math:`p_j` (exact k-NN), weighted by
     :math:`\mathrm{softmax}_j(a(f_j, p_j - \mu) - \tfrac12 (p_j-\mu)^\top\Sigma^{-1}(p_j-\mu))`, the Gaussian's own
     density plus a learned score.

   An FFN follows, and the attributes are updated incrementally (``refine="incremental"``:
   :math:`\mu \leftarrow \mu + \Delta\mu`, :math:`\log s \leftarrow \log s + \Delta s`,
   :math:`r \leftarrow \mathrm{normalize}(r + \Delta r)`) or re-predicted (``"direct"``).
4. **GMM fusion** [note]: the union of the refined Gaussians is pooled by MeanVFE (one averaged Gaussian per
   non-empty voxel of the output grid) and splatted,
   :math:`f(p) = \sum_i \exp(-\tfrac12(p-\hat\mu_i)^\top\hat\Sigma_i^{-1}(p-\hat\mu_i))\,\hat q_i` within
   :math:`3\sigma`, at the voxel centres of the ``bev x bev x n_height`` grid; a light CNN gives :math:`B_F`.
5. **Heads**: channel-to-height occupancy logits (cross-entropy with class weights; the paper's Lovasz term is
   not used) and a CenterPoint-style heatmap plus box regression [recon: standard].

:class:`BEVFusionBaseline` quantises first (LSS splat and LiDAR pillars straight into a ``bev x bev`` grid,
concatenated, conv fuser) and uses the same heads and losses. ``modalities`` gives camera-only and LiDAR-only
variants of both. Deviations: scales and rotations start at fixed values (``init_scale``, identity) rather than
random ones, so predictions are deterministic; the paper's scale is 4 layers x 128-d on 704x256 images.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, check_is_fitted, progress, resolve_rng

from ._checks import check_device, check_intrinsics, check_labels, check_rng
from ._gf_data import KNOWN_CLASSES, VOLUME_HI, VOLUME_LO, FusionData, FusionScene, render_scene, sample_objects
from ._gf_ops import Grid as _Grid
from ._gf_ops import lift_pixels
from ._gf_ops import mean_vfe as _mean_vfe
from ._gf_ops import splat_gaussians as _splat

__all__ = ["GaussianFusion", "BEVFusionBaseline", "FusionEvaluation", "FusionScene", "FusionData", "driving_scene",
           "splat_gaussians", "mean_vfe", "forward_project", "Grid", "center_distance_ap", "occupancy_iou",
           "read_nuscenes"]

PAPER = ("C. Liu et al., GaussianFusion: Unified 3D Gaussian Representation for Multi-Modal Fusion Perception, "
         "ICLR 2026, arXiv:2607.00746")


# ====================================================================== input checks
def _pos_int(v, name, lo=1):
    if isinstance(v, bool) or not isinstance(v, Integral) or int(v) < lo:
        raise InputError(name, f"got {v!r}", f"an integer >= {lo}")
    return int(v)


def _pos_real(v, name):
    if isinstance(v, bool) or not isinstance(v, Real) or not (0 < float(v) < np.inf):  # NaN fails the comparison
        raise InputError(name, f"got {v!r}", "a finite number > 0")
    return float(v)


def _classes(classes, name="classes"):
    if isinstance(classes, str) or not hasattr(classes, "__iter__"):
        raise InputError(name, f"got {classes!r}", f"a sequence of class names from {KNOWN_CLASSES}")
    classes = tuple(classes)
    bad = [c for c in classes if c not in KNOWN_CLASSES]
    if not classes or bad or len(set(classes)) != len(classes):
        raise InputError(name, f"got {classes!r}" + (f" (unknown {bad})" if bad else ""),
                         f"a non-empty list of distinct names from {KNOWN_CLASSES}")
    return classes


def _check_rigid(T, name):
    try:
        T = np.asarray(T, float)
    except (TypeError, ValueError):
        raise InputError(name, f"got {type(T).__name__}", "a finite 4x4 rigid transform") from None
    if T.shape != (4, 4) or not np.all(np.isfinite(T)):
        raise InputError(name, f"has shape {T.shape} or non-finite entries", "a finite 4x4 rigid transform")
    R = T[:3, :3]
    if np.abs(R @ R.T - np.eye(3)).max() > 1e-4 or np.linalg.det(R) < 0 or np.abs(T[3] - [0, 0, 0, 1]).max() > 1e-6:
        raise InputError(name, "is not a rigid transform (rotation part not orthonormal, or last row not 0 0 0 1)",
                         "a 4x4 [[R, t], [0, 0, 0, 1]] with R a rotation")
    return T


def _check_scene(scene, name="scene", classes=None):
    """Validate one FusionScene; returns it (images may be given as a list: all must share one size)."""
    if not isinstance(scene, FusionScene):
        raise InputError(name, f"got {type(scene).__name__}", "an iclr26sci.scene3d.FusionScene (see driving_scene)")
    imgs = scene.images
    if isinstance(imgs, (list, tuple)):
        shapes = {np.asarray(im).shape for im in imgs}
        if len(shapes) > 1:
            raise InputError(f"{name}.images", f"has images of different sizes {sorted(shapes)}",
                             "every camera image of one scene with the same (H, W, 3) size")
        imgs = np.stack([np.asarray(im) for im in imgs])
        scene.images = imgs
    imgs = np.asarray(imgs)
    if imgs.ndim != 4 or imgs.shape[-1] != 3 or imgs.shape[0] < 1:
        raise InputError(f"{name}.images", f"has shape {imgs.shape}", "(n_cam >= 1, H, W, 3)")
    n, H, W, _ = imgs.shape
    if min(H, W) < 4:
        raise InputError(f"{name}.images", f"are {W}x{H}", "images of at least 4x4 pixels")
    if not np.all(np.isfinite(imgs)):
        raise InputError(f"{name}.images", "contain NaN or inf", "finite pixel values")
    if imgs.min() < 0 or imgs.max() > 1:
        raise InputError(f"{name}.images", f"have values in [{imgs.min():g}, {imgs.max():g}]",
                         "pixel values in [0, 1] (divide 8-bit images by 255)")
    D = np.asarray(scene.depths)
    if D.shape != (n, H, W):
        raise InputError(f"{name}.depths", f"has shape {D.shape}", f"({n}, {H}, {W}) like images")
    if D.dtype.kind not in "iuf" or not np.all(np.isfinite(D)) or np.any(D < 0):
        raise InputError(f"{name}.depths", "has NaN, infinite or negative depths",
                         "finite z-depths >= 0 (0 where the ray meets nothing)")
    cl = tuple(scene.classes) if isinstance(scene.classes, (tuple, list)) else None
    if cl is None:
        raise InputError(f"{name}.classes", f"got {type(scene.classes).__name__}", "a tuple of class names")
    PC = np.asarray(scene.pixel_classes)
    if PC.shape != (n, H, W):
        raise InputError(f"{name}.pixel_classes", f"has shape {PC.shape}", f"({n}, {H}, {W}) like images")
    check_labels(PC, f"{name}.pixel_classes", len(cl))
    K = check_intrinsics(scene.intrinsics, f"{name}.intrinsics")
    if K.shape != (n, 3, 3):
        raise InputError(f"{name}.intrinsics", f"has shape {K.shape}", f"({n}, 3, 3) pinhole matrices with fx, fy > 0")
    T = np.asarray(scene.cam_to_ego, float)
    if T.shape != (n, 4, 4):
        raise InputError(f"{name}.cam_to_ego", f"has shape {T.shape}", f"({n}, 4, 4), one extrinsic per camera")
    for c in range(n):
        _check_rigid(T[c], f"{name}.cam_to_ego[{c}]")
    L = _check_rigid(scene.lidar_to_ego, f"{name}.lidar_to_ego")
    if scene.lidar_to_cam is not None:
        L2C = np.asarray(scene.lidar_to_cam, float)
        if L2C.shape != (n, 4, 4):
            raise InputError(f"{name}.lidar_to_cam", f"has shape {L2C.shape}", f"({n}, 4, 4) or None")
        expect = np.linalg.inv(T) @ L
        err = np.abs(L2C - expect).max()
        if not err <= 1e-3:
            raise InputError(f"{name}.lidar_to_cam",
                             f"disagrees with inv(cam_to_ego) @ lidar_to_ego by {err:.3g} (camera and LiDAR "
                             "extrinsics are inconsistent)", "a LiDAR-to-camera calibration equal to "
                             "inv(cam_to_ego) @ lidar_to_ego within 1e-3")
    P = np.asarray(scene.lidar_points)
    if P.ndim != 2 or P.shape[1] != 3 or not np.all(np.isfinite(P)):
        raise InputError(f"{name}.lidar_points", f"has shape {P.shape} or non-finite values",
                         "an (n, 3) finite array (n = 0 is allowed: a camera-only frame)")
    LC = np.asarray(scene.lidar_classes)
    if LC.shape != (len(P),):
        raise InputError(f"{name}.lidar_classes", f"has shape {LC.shape} for {len(P)} LiDAR points",
                         "one label per LiDAR return")
    check_labels(LC, f"{name}.lidar_classes", len(cl), allow_empty=True)
    if not isinstance(scene.objects, (list, tuple)):
        raise InputError(f"{name}.objects", f"got {type(scene.objects).__name__}", "a list of scene objects")
    bad = [c for c in cl if c not in KNOWN_CLASSES]
    if bad:
        raise InputError(f"{name}.classes", f"has unknown classes {bad}", f"names from {KNOWN_CLASSES}")
    if classes is not None and cl != tuple(classes):
        raise InputError(f"{name}.classes", f"is {cl}, which does not match the labels {tuple(classes)}",
                         "the same class list (same order) as the model's / the other scenes'")
    missing = sorted({o.cls for o in scene.objects} - set(cl) - {"building"})
    if missing:
        raise InputError(f"{name}.classes", f"lacks {missing}, which label objects of the scene",
                         "a class list covering every object class in the scene")
    return scene


def _check_scenes(scenes, name, classes=None):
    if isinstance(scenes, FusionData):
        scenes = scenes.train
    if isinstance(scenes, FusionScene):
        scenes = [scenes]
    if not isinstance(scenes, (list, tuple)) or len(scenes) == 0:
        raise InputError(name, f"got {type(scenes).__name__}" + (" (empty)" if hasattr(scenes, "__len__") else ""),
                         "a non-empty list of FusionScene")
    first = _check_scene(scenes[0], f"{name}[0]", classes)
    cl = tuple(first.classes) if classes is None else tuple(classes)
    for i, s in enumerate(scenes[1:], 1):
        _check_scene(s, f"{name}[{i}]", cl)
    return list(scenes), cl


# ====================================================================== geometric operators (public, validated)
class Grid(_Grid):
    """An axis-aligned voxel grid: ``shape`` = (nx, ny, nz) cells over the box ``lo .. hi`` (metres).

    Cell ``(i, j, k)`` has its centre at ``lo + (idx + 0.5) * cell``, ``cell = (hi - lo) / shape``.

    Parameters
    ----------
    lo, hi : tuple of 3 floats
        Opposite corners, ``hi > lo`` in every axis.
    shape : tuple of 3 ints
        Cells per axis (>= 1).

    Examples
    --------
    >>> g = Grid((-1.0, -1.0, 0.0), (1.0, 1.0, 1.0), (2, 2, 1))
    >>> g.cell.tolist(), tuple(g.centres().shape)
    ([1.0, 1.0, 1.0], (2, 2, 1, 3))
    """

    def __post_init__(self):
        try:
            lo, hi = np.asarray(self.lo, float), np.asarray(self.hi, float)
        except (TypeError, ValueError):
            raise InputError("lo", f"got {self.lo!r} / {self.hi!r}", "3 finite coordinates each") from None
        if lo.shape != (3,) or hi.shape != (3,) or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
            raise InputError("lo", f"lo {self.lo!r}, hi {self.hi!r}", "3 finite coordinates each")
        if not np.all(hi > lo):
            raise InputError("hi", f"{hi.tolist()} is not above lo={lo.tolist()} in every axis", "hi > lo componentwise")
        shp = tuple(self.shape) if hasattr(self.shape, "__len__") else ()
        if len(shp) != 3 or any(isinstance(v, bool) or not isinstance(v, Integral) or v < 1 for v in shp):
            raise InputError("shape", f"got {self.shape!r}", "3 integer cell counts >= 1")
        object.__setattr__(self, "lo", tuple(lo.tolist()))
        object.__setattr__(self, "hi", tuple(hi.tolist()))
        object.__setattr__(self, "shape", tuple(int(v) for v in shp))

    def with_bev(self, bev: int) -> "Grid":
        """The same box with ``bev x bev`` cells in x, y."""
        return Grid(self.lo, self.hi, (_pos_int(bev, "bev"), _pos_int(bev, "bev"), self.shape[2]))


def _gaussian_args(means, scales, rots, feats):
    import torch

    def t(x, name, last):
        if isinstance(x, torch.Tensor):
            a = x
            if a.is_complex() or not (a.is_floating_point() or a.dtype in (torch.int32, torch.int64)):
                raise InputError(name, f"has dtype {a.dtype}", "real numbers")
            a = a if a.is_floating_point() else a.double()
        else:
            if np.iscomplexobj(x):
                raise InputError(name, "has complex entries", "real numbers")
            try:
                a = torch.as_tensor(np.asarray(x, dtype=np.float64))
            except (TypeError, ValueError):
                raise InputError(name, f"got {type(x).__name__}", f"a numeric (n, {last or 'C'}) array") from None
        if a.ndim != 2 or (last is not None and a.shape[1] != last):
            raise InputError(name, f"has shape {tuple(a.shape)}", f"(n, {last or 'C'})")
        if not torch.isfinite(a).all():
            raise InputError(name, "contains NaN or inf", "finite values")
        return a

    m, s, r, f = t(means, "means", 3), t(scales, "scales", 3), t(rots, "rots", 4), t(feats, "feats", None)
    n = len(m)
    if n == 0:
        raise InputError("means", "has no Gaussians", "at least one Gaussian")
    if f.shape[1] == 0:
        raise InputError("feats", "has 0 channels", "at least one feature channel per Gaussian")
    for name, a in (("scales", s), ("rots", r), ("feats", f)):
        if len(a) != n:
            raise InputError(name, f"has {len(a)} rows, means {n}", "one row per Gaussian")
    if n and not bool((s > 0).all()):
        raise InputError("scales", "has entries <= 0", "scales > 0 (metres)")
    if n and not bool((r.norm(dim=1) > 1e-12).all()):
        raise InputError("rots", "has a zero quaternion", "non-zero quaternions (wxyz; normalised internally)")
    dt = m.dtype
    return m, s.to(dt), r.to(dt), f.to(dt)


def _grid_arg(grid):
    if not isinstance(grid, _Grid):
        raise InputError("grid", f"got {type(grid).__name__}", "an iclr26sci.scene3d.Grid")
    return grid


def splat_gaussians(means, scales, rots, feats, grid, *, truncate=3.0, max_radius=None):
    r"""Gaussian-to-voxel splatting of a Gaussian mixture at the voxel centres :math:`p` of ``grid``:

    .. math:: f(p) = \sum_i \exp\!\big(-\tfrac12 (p-\mu_i)^\top \Sigma_i^{-1} (p-\mu_i)\big)\, q_i,
              \qquad \Sigma_i = R(r_i)\,\mathrm{diag}(s_i)^2 R(r_i)^\top .

    Parameters
    ----------
    means : array-like (n, 3)
        Gaussian centres (metres).
    scales : array-like (n, 3)
        Standard deviations along the Gaussian's own axes (> 0).
    rots : array-like (n, 4)
        Orientation quaternions, wxyz (normalised here).
    feats : array-like (n, C)
        Feature vector carried by each Gaussian.
    grid : Grid
        Where to evaluate.
    truncate : float or None
        Sum only where the Mahalanobis distance is <= ``truncate`` (the paper evaluates Gaussians within
        3 sigma); None evaluates every Gaussian everywhere (dense, exact).
    max_radius : int or None
        Cap on one Gaussian's search window in cells (None: never cut a contribution).

    Returns
    -------
    Tensor (nx, ny, nz, C)

    Examples
    --------
    >>> g = Grid((-1.0, -1.0, -1.0), (1.0, 1.0, 1.0), (2, 2, 2))
    >>> f = splat_gaussians([[0.5, 0.5, 0.5]], [[1.0, 1.0, 1.0]], [[1.0, 0, 0, 0]], [[1.0]], g, truncate=None)
    >>> round(float(f[1, 1, 1, 0]), 6), round(float(f[0, 0, 0, 0]), 6)
    (1.0, 0.22313)
    """
    m, s, r, f = _gaussian_args(means, scales, rots, feats)
    grid = _grid_arg(grid)
    if truncate is not None:
        truncate = _pos_real(truncate, "truncate")
    if max_radius is not None:
        max_radius = _pos_int(max_radius, "max_radius")
    return _splat(m, s, r, f, grid, truncate=truncate, max_radius=max_radius)


def mean_vfe(means, scales, rots, feats, grid, *, dims=3):
    r"""MeanVFE Gaussian-to-voxel pooling: one averaged Gaussian per non-empty cell of ``grid``,
    :math:`\hat g = \tfrac1M[\sum_m \mu_m, \sum_m s_m, \sum_m r_m]`, :math:`\hat q = \tfrac1M \sum_m q_m`
    (quaternions put on the hemisphere w >= 0 before averaging, then renormalised [recon]).

    Parameters
    ----------
    means, scales, rots, feats : array-like
        The Gaussians, as in :func:`splat_gaussians`.
    grid : Grid
        The cells.
    dims : {2, 3}
        3: 3-D voxels; 2: BEV pillars (x, y cells over all heights).

    Returns
    -------
    means, scales, rots, feats, cells, counts : tensors
        The pooled Gaussians, the flat index of their cell, and how many Gaussians each averages.

    Examples
    --------
    >>> g = Grid((0.0, 0.0, 0.0), (2.0, 1.0, 1.0), (2, 1, 1))
    >>> out = mean_vfe([[0.2, 0.5, 0.5], [0.6, 0.5, 0.5], [1.5, 0.5, 0.5]], [[1.0] * 3] * 3,
    ...                [[1.0, 0, 0, 0]] * 3, [[1.0], [3.0], [5.0]], g)
    >>> out[3].ravel().tolist(), out[5].tolist()
    ([2.0, 5.0], [2, 1])
    """
    m, s, r, f = _gaussian_args(means, scales, rots, feats)
    grid = _grid_arg(grid)
    if dims not in (2, 3) or isinstance(dims, bool):
        raise InputError("dims", f"got {dims!r}", "2 (BEV pillars) or 3 (voxels)")
    return _mean_vfe(m, s, r, f, grid, dims=dims)


# ====================================================================== real data
def read_nuscenes(root, version=None, *, cameras=None, image_size=None,
                  classes=("car", "pole", "pedestrian", "road"), max_samples=None):
    r"""Read the key frames of a dataset in the nuScenes on-disk layout as :class:`FusionScene` objects.

    A small reader of its own (``nuscenes-devkit`` is not needed): the tables ``sample``, ``sample_data``,
    ``calibrated_sensor`` and ``ego_pose`` (and ``sensor`` when present) of ``root/<version>/``, LiDAR sweeps
    ``*.pcd.bin`` (float32 x, y, z, intensity, ring) and camera JPEGs. Each key frame is expressed in the ego
    frame of its LiDAR sweep; a camera's extrinsic compensates the ego motion between the two exposures,

    .. math:: T_{cam\to ego} = E_{lidar}^{-1}\,E_{cam}\,C_{cam},

    with :math:`E` the ego poses (ego to global) and :math:`C` the camera calibration (camera to ego); quaternions
    are (w, x, y, z). Depth maps, pixel and point labels are unknown on real data and are zeros; ``objects`` is
    empty, so the scenes serve :meth:`GaussianFusion.predict_occupancy` and :meth:`GaussianFusion.detect`,
    not training.

    Parameters
    ----------
    root : str or path
        The data folder (holding ``v1.0-*/`` and ``samples/``).
    version : str, optional
        The table folder, e.g. ``"v1.0-mini"``; None picks the only ``v1.0-*`` folder.
    cameras : list of str, optional
        Camera channels to keep (e.g. ``["CAM_FRONT", "CAM_BACK"]``); None keeps all, sorted by name.
    image_size : (width, height), optional
        Resize every image (intrinsics scaled to match); needed when the cameras differ in size.
    classes : sequence of str
        The class list the scenes carry (must match the model's).
    max_samples : int, optional
        Stop after this many key frames.

    Returns
    -------
    list of FusionScene
        One per key frame with a LiDAR sweep and at least one camera image, in scene and time order; ``meta``
        holds the sample token, timestamp, camera channels and LiDAR file.

    Raises
    ------
    InputError
        A missing folder or table, malformed JSON, inconsistent tokens, a ``.pcd.bin`` whose size is not a
        multiple of 20 bytes, an unreadable image, or a bad intrinsic matrix.

    References
    ----------
    H. Caesar et al., "nuScenes: A multimodal dataset for autonomous driving", CVPR 2020 (the data format).

    Examples
    --------
    >>> import tempfile
    >>> read_nuscenes(tempfile.mkdtemp())      # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    iclr26sci.core.InputError: ...
    """
    from ._gf_io import read_nuscenes as _read

    return _read(root, version, cameras=cameras, image_size=image_size, classes=_classes(classes),
                 max_samples=max_samples)


# ====================================================================== data
def driving_scene(n_scenes=200, cameras=4, lidar_beams=32, classes=("car", "pole", "pedestrian", "road"), rng=None,
                  *, test_fraction=0.2, width=64, height=48, lidar_azimuths=720, backend="auto") -> FusionData:
    r"""Synthetic "mini-nuScenes": ray-cast surround cameras, a spinning LiDAR and labels (spec section 3.4).

    Each scene has a road, 3-6 cars (oriented 4.5 x 1.9 x 1.6 m boxes), 2-4 pedestrians (cylinders
    r = 0.3 m, h = 1.7 m) and 3-6 poles (cylinders r = 0.1 m, h = 4 m), plus a building wall when "building" is
    listed, in the volume :math:`[-16, 16]^2 \times [-2, 4]` m. Everything is ray cast with
    :class:`iclr26sci.geom.RaycastScene` (open3d when it imports): ``cameras`` pinholes at 1.6 m spaced evenly in
    yaw (images, z-depth, per-pixel class) and a LiDAR at 1.8 m with ``lidar_beams`` elevations in
    [-25, +5] degrees x ``lidar_azimuths`` azimuths. Occupancy and box labels are computed from the objects.

    Parameters
    ----------
    n_scenes : int
        Number of scenes (>= 2: at least one train and one test scene).
    cameras : int
        Surround cameras per scene (>= 1).
    lidar_beams : int
        LiDAR channels (>= 1).
    classes : sequence of str
        Label classes, a subset of ("car", "pole", "pedestrian", "road", "building"); objects of other classes
        are not generated (labels are 1-based indices into this tuple; 0 is free space).
    rng : int, Generator or None
        Seed of the layouts and colours.
    test_fraction : float
        Share of scenes in the test split, in (0, 1).
    width, height : int
        Image size in pixels (>= 8).
    lidar_azimuths : int
        LiDAR firings per revolution (a multiple of 4 keeps the pattern invariant under 90-degree rotations).
    backend : {"auto", "open3d", "numpy"}
        Ray-casting engine.

    Returns
    -------
    FusionData
        ``train`` and ``test`` lists of :class:`FusionScene`.

    References
    ----------
    Spec ``gaussian-fusion.md`` section 3.4 (the synthetic mini-nuScenes); Open3D RaycastingScene.

    Examples
    --------
    >>> data = driving_scene(n_scenes=2, cameras=2, lidar_beams=4, width=16, height=8, lidar_azimuths=64, rng=0)
    >>> data
    FusionData(1 train, 1 test, classes=('car', 'pole', 'pedestrian', 'road'))
    >>> data.train[0].images.shape
    (2, 8, 16, 3)
    """
    n_scenes = _pos_int(n_scenes, "n_scenes", 2)
    cameras = _pos_int(cameras, "cameras")
    lidar_beams = _pos_int(lidar_beams, "lidar_beams")
    width, height = _pos_int(width, "width", 8), _pos_int(height, "height", 8)
    lidar_azimuths = _pos_int(lidar_azimuths, "lidar_azimuths", 4)
    classes = _classes(classes)
    if isinstance(test_fraction, bool) or not isinstance(test_fraction, Real) or not 0 < test_fraction < 1:
        raise InputError("test_fraction", f"got {test_fraction!r}", "a fraction in (0, 1)")
    if backend not in ("auto", "open3d", "numpy"):
        raise InputError("backend", f"got {backend!r}", "'auto', 'open3d' or 'numpy'")
    gen = np.random.default_rng(check_rng(rng))
    scenes = []
    for _ in progress(range(n_scenes), desc="ray-casting scenes"):
        objs = sample_objects(gen, classes)
        jit = gen.uniform(-0.08, 0.08, (len(objs) + 1, 3))
        scenes.append(render_scene(objs, classes, n_cameras=cameras, width=width, height=height,
                                   lidar_beams=lidar_beams, lidar_azimuths=lidar_azimuths, colour_jitter=jit,
                                   backend=backend))
    n_test = min(n_scenes - 1, max(1, int(round(test_fraction * n_scenes))))
    return FusionData(train=scenes[:n_scenes - n_test], test=scenes[n_scenes - n_test:], classes=classes)


def forward_project(intrinsics, cam_to_ego, uv, depths):
    r"""LSS forward projection: :math:`X_{i,d} = T_{cam\to ego}\,(z_d K^{-1}[u_i, v_i, 1]^\top)`.

    Parameters
    ----------
    intrinsics : array-like (3, 3)
        Pinhole K (fx, fy > 0).
    cam_to_ego : array-like (4, 4)
        Camera-to-ego rigid transform (OpenCV camera axes).
    uv : array-like (n, 2)
        Pixel coordinates (pixel centres at integer + 0.5).
    depths : array-like (D,)
        Depth-bin centres :math:`z_d` (camera z, > 0).

    Returns
    -------
    ndarray (n, D, 3)
        The lifted points in the ego frame (the camera Gaussians' means).

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[10.0, 0, 8], [0, 10, 8], [0, 0, 1]])
    >>> forward_project(K, np.eye(4), [[8.0, 8.0], [18.0, 8.0]], [2.0]).round(3).tolist()
    [[[0.0, 0.0, 2.0]], [[2.0, 0.0, 2.0]]]
    """
    import torch

    K = check_intrinsics(intrinsics, "intrinsics")
    if K.shape != (3, 3):
        raise InputError("intrinsics", f"has shape {K.shape}", "a 3x3 K with fx, fy > 0")
    T = _check_rigid(cam_to_ego, "cam_to_ego")
    try:
        uv = np.asarray(uv, float)
        d = np.asarray(depths, float).reshape(-1)
    except (TypeError, ValueError):
        raise InputError("uv", "or depths could not be read as numbers", "numeric arrays") from None
    if uv.ndim != 2 or uv.shape[1] != 2 or not np.all(np.isfinite(uv)):
        raise InputError("uv", f"has shape {uv.shape}", "an (n, 2) finite array of pixel coordinates")
    if d.size == 0 or not np.all(np.isfinite(d)) or np.any(d <= 0):
        raise InputError("depths", f"got {d.tolist()[:4]}", "a non-empty list of finite depths > 0")
    out = lift_pixels(torch.as_tensor(K), torch.as_tensor(T), torch.as_tensor(uv), torch.as_tensor(d))
    return out.numpy()


# ====================================================================== metrics
def occupancy_iou(pred, target, n_classes):
    """Per-class IoU (classes 1..n_classes; NaN for a class absent from both) and the occupied-vs-free IoU.

    Parameters
    ----------
    pred, target : array-like of int, same shape
        Labels in [0, n_classes] (0 = free); a label outside that range, a float label or an empty array is an
        :class:`InputError`.
    n_classes : int
        Number of semantic classes (>= 1).

    Returns
    -------
    per : ndarray (n_classes,)
        IoU of each class (NaN when a class is in neither array: undefined, not 0).
    geo : float
        Occupied-vs-free IoU (NaN when both arrays are all free).

    Examples
    --------
    >>> import numpy as np
    >>> per, geo = occupancy_iou(np.array([0, 1, 1, 2]), np.array([0, 1, 2, 2]), 2)
    >>> per.tolist(), geo
    ([0.5, 0.5], 1.0)
    """
    n_classes = _pos_int(n_classes, "n_classes")
    pred = check_labels(pred, "pred", n_classes)
    target = check_labels(target, "target", n_classes)
    if pred.shape != target.shape:
        raise InputError("pred", f"has shape {pred.shape}, target {target.shape}", "the same shape as target")
    per = np.full(n_classes, np.nan)
    for c in range(1, n_classes + 1):
        inter, union = np.sum((pred == c) & (target == c)), np.sum((pred == c) | (target == c))
        if union:
            per[c - 1] = inter / union
    union = np.sum((pred > 0) | (target > 0))
    geo = float(np.sum((pred > 0) & (target > 0)) / union) if union else float("nan")
    return per, geo


def center_distance_ap(preds, gts, label, threshold):
    """nuScenes-style AP of one class at one BEV centre-distance threshold (metres).

    Predictions (label, x, y, ..., score) are matched greedily by descending score to the nearest unmatched
    ground-truth box of the class within ``threshold``; AP is the area under the all-point interpolated
    precision-recall curve (nuScenes additionally clips recall and precision below 0.1: not done here).

    Parameters
    ----------
    preds : list of ndarray (n_i, 9)
        Per scene: label, x, y, z, l, w, h, yaw, score.
    gts : list of ndarray (m_i, 8)
        Per scene: label, x, y, z, l, w, h, yaw.
    label : int
        Class label.
    threshold : float
        Match distance in metres (> 0).

    Examples
    --------
    >>> import numpy as np
    >>> gt = [np.array([[1, 0.0, 0, 0, 1, 1, 1, 0]])]
    >>> center_distance_ap([np.array([[1, 0.3, 0, 0, 1, 1, 1, 0, 0.9]])], gt, 1, 0.5)
    1.0

    Raises
    ------
    InputError
        Besides malformed boxes (wrong column count, NaN / inf, a non-integer or non-positive label): when no
        ground-truth box has class ``label``, where AP is undefined (0/0 recall).
    """
    threshold = _pos_real(threshold, "threshold")
    if isinstance(label, (bool, np.bool_)) or not isinstance(label, (Integral, np.integer)) or int(label) < 1:
        raise InputError("label", f"got {label!r}", "an integer class label >= 1 (0 is free space)")
    preds, gts = _check_boxes(preds, "preds", 9), _check_boxes(gts, "gts", 8)
    if len(preds) != len(gts):
        raise InputError("preds", f"has {len(preds)} scenes, gts {len(gts)}", "one entry per scene in both")
    if not any(np.any(g[:, 0] == label) for g in gts):
        raise InputError("label", f"{label} has no ground-truth box in gts (AP is undefined: recall is 0/0)",
                         "a class label present in the ground truth")
    return _ap(preds, gts, int(label), threshold)


def _check_boxes(boxes, name, cols):
    """Per-scene (n_i, cols) finite box arrays with integer labels >= 1 in column 0."""
    if isinstance(boxes, (str, bytes)) or not isinstance(boxes, (list, tuple)):
        raise InputError(name, f"got {type(boxes).__name__}", f"a list with one (n, {cols}) array per scene")
    out = []
    for i, b in enumerate(boxes):
        try:
            a = np.asarray(b, dtype=float)
        except (TypeError, ValueError):
            raise InputError(name, f"entry {i} is not numeric", f"(n, {cols}) arrays of numbers") from None
        if a.size == 0:
            a = a.reshape(0, cols)
        if a.ndim != 2 or a.shape[1] != cols:
            raise InputError(name, f"entry {i} has shape {a.shape}", f"(n, {cols}) rows: label, x, y, z, l, w, h, yaw"
                             + (", score" if cols == 9 else ""))
        if not np.all(np.isfinite(a)):
            raise InputError(name, f"entry {i} contains NaN or inf", "finite boxes" + (" and scores" if cols == 9 else ""))
        if np.any(a[:, 0] != np.round(a[:, 0])) or np.any(a[:, 0] < 1):
            raise InputError(name, f"entry {i} has a non-integer or non-positive label", "integer class labels >= 1")
        out.append(a)
    return out


def _ap(preds, gts, label, threshold):
    """AP of validated boxes; NaN when the class has no ground truth (used by evaluate over all classes)."""
    scored, n_gt = [], 0
    for s, (p, g) in enumerate(zip(preds, gts)):
        p, g = np.asarray(p, float).reshape(-1, 9), np.asarray(g, float).reshape(-1, 8)
        n_gt += int(np.sum(g[:, 0] == label))
        scored += [(row[8], s, row[1], row[2]) for row in p if int(row[0]) == label]
    if n_gt == 0:
        return float("nan")
    scored.sort(key=lambda t: -t[0])
    used = {s: np.zeros(int(np.sum(np.asarray(g).reshape(-1, 8)[:, 0] == label)), bool) for s, g in enumerate(gts)}
    tp = []
    for _, s, x, y in scored:
        g = np.asarray(gts[s], float).reshape(-1, 8)
        g = g[g[:, 0] == label]
        if len(g) == 0:
            tp.append(0)
            continue
        d = np.hypot(g[:, 1] - x, g[:, 2] - y)
        d[used[s]] = np.inf
        j = int(np.argmin(d))
        if d[j] <= threshold:
            used[s][j] = True
            tp.append(1)
        else:
            tp.append(0)
    if not tp:
        return 0.0
    tp = np.asarray(tp, float)
    ctp = np.cumsum(tp)
    rec = ctp / n_gt
    prec = ctp / np.arange(1, len(tp) + 1)
    prec = np.maximum.accumulate(prec[::-1])[::-1]
    r_prev = np.concatenate([[0.0], rec[:-1]])
    return float(np.sum((rec - r_prev) * prec))


@dataclass
class FusionEvaluation:
    """Occupancy and detection metrics of a model on test scenes.

    Attributes
    ----------
    miou : float
        Mean semantic-occupancy IoU over the classes present.
    iou : float
        Occupied-vs-free IoU.
    class_iou : dict
        Per-class IoU.
    pole_iou : float
        IoU of the "pole" class (NaN when it is not a class).
    ap : float
        Mean centre-distance AP over detection classes and thresholds {0.5, 1, 2, 4} m.
    class_ap : dict
    memory_bytes : int
        Bytes of the tensors autograd saves in one training forward pass on one scene, plus parameters
        (a machine-independent proxy of training memory).
    ms_per_scene : float
        Mean inference wall time per scene (milliseconds; depends on the machine and its load).
    grid : tuple
        The evaluation grid (nx, ny, nz).

    Examples
    --------
    >>> ev = FusionEvaluation(miou=0.5, iou=0.6, class_iou={"pole": 0.2}, pole_iou=0.2, ap=0.3, class_ap={},
    ...                       memory_bytes=2 ** 20, ms_per_scene=10.0, grid=(32, 32, 6))
    >>> ev
    FusionEvaluation(mIoU=0.500, pole IoU=0.200, AP=0.300, memory=1.0 MiB)
    """

    miou: float
    iou: float
    class_iou: dict
    pole_iou: float
    ap: float
    class_ap: dict
    memory_bytes: int
    ms_per_scene: float
    grid: tuple
    n_scenes: int = 0

    def __repr__(self):
        return (f"FusionEvaluation(mIoU={self.miou:.3f}, pole IoU={self.pole_iou:.3f}, AP={self.ap:.3f}, "
                f"memory={self.memory_bytes / 2 ** 20:.1f} MiB)")

    def summary(self) -> str:
        """A few lines of text."""
        ci = ", ".join(f"{k} {v:.3f}" for k, v in self.class_iou.items())
        ca = ", ".join(f"{k} {v:.3f}" for k, v in self.class_ap.items())
        return (f"occupancy on {self.grid} over {self.n_scenes} scenes: mIoU {self.miou:.3f}, IoU {self.iou:.3f} "
                f"({ci})\ndetection: AP {self.ap:.3f} ({ca})\ntraining memory {self.memory_bytes / 2 ** 20:.2f} MiB, "
                f"{self.ms_per_scene:.1f} ms per scene")

    def to_dict(self) -> dict:
        """Plain-Python dictionary of the metrics."""
        return dict(miou=self.miou, iou=self.iou, class_iou=dict(self.class_iou), pole_iou=self.pole_iou, ap=self.ap,
                    class_ap=dict(self.class_ap), memory_bytes=int(self.memory_bytes),
                    ms_per_scene=self.ms_per_scene, grid=list(self.grid), n_scenes=self.n_scenes)


def _evaluate(model, scenes, eval_bev=None):
    check_is_fitted(model, "net_", method="evaluate")
    scenes, _ = _check_scenes(scenes, "scenes", model.classes_)
    grid = model.grid_ if eval_bev is None else model.grid_.with_bev(_pos_int(eval_bev, "eval_bev"))
    K = len(model.classes_)
    inter, union = np.zeros(K), np.zeros(K)
    gi = gu = 0
    preds, gts, ms = [], [], []
    for s in scenes:
        t0 = time.perf_counter()
        occ = model.predict_occupancy(s)
        dets = model.detect(s)
        ms.append(1000 * (time.perf_counter() - t0))
        if occ.shape != grid.shape:
            f = [grid.shape[i] // occ.shape[i] for i in range(3)]
            if any(grid.shape[i] % occ.shape[i] for i in range(3)):
                raise InputError("eval_bev", f"{grid.shape} is not a multiple of the model grid {occ.shape}",
                                 "a multiple of the model's bev")
            occ = occ.repeat(f[0], 0).repeat(f[1], 1).repeat(f[2], 2)
        lab = s.occupancy(grid)
        for c in range(1, K + 1):
            inter[c - 1] += np.sum((occ == c) & (lab == c))
            union[c - 1] += np.sum((occ == c) | (lab == c))
        gi += np.sum((occ > 0) & (lab > 0))
        gu += np.sum((occ > 0) | (lab > 0))
        preds.append(dets)
        gts.append(s.boxes())
    ciou = {c: float(inter[i] / union[i]) if union[i] else float("nan") for i, c in enumerate(model.classes_)}
    vals = [v for v in ciou.values() if np.isfinite(v)]
    cap = {}
    for lab in model.det_labels_:
        aps = [_ap(preds, [g.reshape(-1, 8) for g in gts], lab, t) for t in (0.5, 1.0, 2.0, 4.0)]
        cap[model.classes_[lab - 1]] = float(np.nanmean(aps)) if np.any(np.isfinite(aps)) else float("nan")
    apv = [v for v in cap.values() if np.isfinite(v)]
    return FusionEvaluation(miou=float(np.mean(vals)) if vals else float("nan"), iou=float(gi / gu) if gu else float("nan"),
                            class_iou=ciou, pole_iou=ciou.get("pole", float("nan")),
                            ap=float(np.mean(apv)) if apv else float("nan"), class_ap=cap,
                            memory_bytes=int(model.training_memory(scenes[0])), ms_per_scene=float(np.mean(ms)),
                            grid=tuple(grid.shape), n_scenes=len(scenes))


# ====================================================================== estimators
_MODALITIES = ("camera", "lidar")


class _FusionBase(BaseEstimator):
    _net_name = ""

    def _common_checks(self):
        _pos_int(self.bev, "bev")
        _pos_int(self.n_height, "n_height")
        _pos_int(self.embed, "embed")
        _pos_int(self.depth_bins, "depth_bins", 2)
        _pos_int(self.epochs, "epochs", 0)
        _pos_real(self.lr, "lr")
        mods = (self.modalities,) if isinstance(self.modalities, str) else tuple(self.modalities)
        if not mods or any(m not in _MODALITIES for m in mods) or len(set(mods)) != len(mods):
            raise InputError("modalities", f"got {self.modalities!r}",
                             "a non-empty subset of ('camera', 'lidar'), e.g. ('camera', 'lidar') or ('lidar',)")
        if not isinstance(self.depth_supervision, bool):
            raise InputError("depth_supervision", f"got {self.depth_supervision!r}", "True or False")
        if self.classes is not None:
            _classes(self.classes, "classes")
        check_device(self.device)
        resolve_rng(self.rng, self.random_state)
        return mods

    def _cfg(self, mods, classes):
        dv = np.linspace(1.0, 23.0, self.depth_bins)
        det = [i + 1 for i, c in enumerate(classes) if c != "road"]
        return dict(embed=self.embed, bev=self.bev, n_height=self.n_height, lo=VOLUME_LO, hi=VOLUME_HI,
                    depth_values=dv.tolist(), modalities=mods, n_classes=len(classes), n_det=max(1, len(det))), det

    def _targets(self, s, st):
        import torch

        from ._gf_model import detection_targets

        lab = torch.as_tensor(s.occupancy(self.grid_))
        heat, rows = detection_targets(s.boxes(), self.grid_, self.det_labels_)
        return lab, torch.as_tensor(heat), torch.as_tensor(rows)

    def _loss(self, out, tgt, s, st):
        import torch
        from torch.nn import functional as F

        from ._gf_model import focal_heatmap_loss

        lab, heat, rows = tgt
        occ = out["occ"]
        loss = F.cross_entropy(occ[None], lab[None].to(occ.device), weight=self.class_weights_.to(occ.device))
        loss = loss + focal_heatmap_loss(out["heat"], heat.to(occ.device))
        if len(rows):
            r = rows.to(occ.device)
            pred = out["reg"][:, r[:, 1].long(), r[:, 2].long()].T
            loss = loss + F.l1_loss(pred, r[:, 3:])
        if self.depth_supervision and out.get("depth_logits") is not None:
            dl = out["depth_logits"]
            h, w = dl.shape[2:]
            stride = st.depths.shape[-1] // w
            gt = st.depths[:, stride // 2::stride, stride // 2::stride][:, :h, :w]
            dv = self.net_.depth_values
            b = torch.argmin((gt[..., None] - dv).abs(), -1)
            valid = (gt > 0) & (gt <= dv[-1] + (dv[1] - dv[0]))
            if valid.any():
                loss = loss + F.cross_entropy(dl.permute(0, 2, 3, 1)[valid], b[valid])
        return loss

    def fit(self, scenes):
        """Train on a list of :class:`FusionScene` (or a :class:`FusionData`: its ``train`` split).

        Parameters
        ----------
        scenes : list of FusionScene or FusionData
            Training frames; every scene must carry the same class list (and match ``classes`` when given).

        Returns
        -------
        self
        """
        import torch

        from ._gf_model import SceneTensors

        mods = self._check_params()
        scenes, classes = _check_scenes(scenes, "scenes", self.classes)
        self.classes_ = classes
        cfg, det = self._cfg(mods, classes)
        cfg.update(self._extra_cfg())
        self.det_labels_ = det
        self.grid_ = Grid(VOLUME_LO, VOLUME_HI, (self.bev, self.bev, self.n_height))
        torch.manual_seed(int(np.random.default_rng(resolve_rng(self.rng, self.random_state)).integers(2 ** 31)))
        dev = torch.device(self.device)
        self.net_ = self._make_net(cfg).to(dev)
        gen = np.random.default_rng(resolve_rng(self.rng, self.random_state))
        counts = np.ones(len(classes) + 1)
        for s in scenes[:20]:
            counts += np.bincount(s.occupancy(self.grid_).ravel(), minlength=len(classes) + 1)
        w = 1.0 / np.sqrt(counts / counts.sum())      # inverse-sqrt-frequency class weights [recon]
        self.class_weights_ = torch.as_tensor(w / w.mean(), dtype=torch.float32)
        opt = torch.optim.AdamW(self.net_.parameters(), lr=self.lr, weight_decay=0.01)
        cache = {}
        self.loss_curve_ = []
        self.net_.train()
        for _ in progress(range(self.epochs), desc=f"training {type(self).__name__}"):
            tot = 0.0
            for i in gen.permutation(len(scenes)):
                s = scenes[i]
                st = SceneTensors(s, dev)
                if i not in cache:
                    cache[i] = self._targets(s, st)
                out = self.net_(st)
                loss = self._loss(out, cache[i], s, st)
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net_.parameters(), 35.0)
                opt.step()
                tot += float(loss.detach())
            self.loss_curve_.append(tot / len(scenes))
        self.net_.eval()
        return self

    def _forward(self, scene, method):
        import torch

        from ._gf_model import SceneTensors

        check_is_fitted(self, "net_", method=method)
        _check_scene(scene, "scene", self.classes_)
        with torch.no_grad():
            return self.net_(SceneTensors(scene, next(self.net_.parameters()).device))

    def predict_occupancy(self, scene):
        """Semantic occupancy (bev, bev, n_height) int labels of one scene (0 free, c = ``classes_[c - 1]``).

        Parameters
        ----------
        scene : FusionScene
        """
        out = self._forward(scene, "predict_occupancy")
        return out["occ"].argmax(0).cpu().numpy()

    def detect(self, scene, threshold=0.1):
        """3-D boxes (n, 9): label, x, y, z, l, w, h, yaw, score, from the heatmap peaks above ``threshold``.

        Parameters
        ----------
        scene : FusionScene
        threshold : float
            Minimum heatmap score in (0, 1).
        """
        from ._gf_model import decode_detections

        if isinstance(threshold, bool) or not isinstance(threshold, Real) or not 0 < threshold < 1:
            raise InputError("threshold", f"got {threshold!r}", "a score in (0, 1)")
        out = self._forward(scene, "detect")
        return decode_detections(out["heat"], out["reg"], self.grid_, self.det_labels_, threshold=threshold)

    def training_memory(self, scene) -> int:
        """Bytes autograd saves for backward in one training forward pass on ``scene``, plus parameter bytes.

        Tensors sharing storage are counted once. Machine-independent; it scales like the activation memory
        of training (what the paper's Table 1 reports on a GPU).

        Parameters
        ----------
        scene : FusionScene
        """
        import torch

        from ._gf_model import SceneTensors

        check_is_fitted(self, "net_", method="training_memory")
        _check_scene(scene, "scene", self.classes_)
        seen, keep = {}, []

        def pack(t):
            keep.append(t)       # held until the end, so a storage address is never reused while counting
            try:
                key = (t.untyped_storage().data_ptr(), t.device.type)
                seen[key] = max(seen.get(key, 0), t.untyped_storage().nbytes())
            except RuntimeError:
                pass
            return t

        st = SceneTensors(scene, next(self.net_.parameters()).device)
        was = self.net_.training
        self.net_.train()
        state = {k: v.clone() for k, v in self.net_.state_dict().items() if "running" in k or "num_batches" in k}
        try:
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                out = self.net_(st)
                loss = sum(v.float().sum() for k, v in out.items() if k in ("occ", "heat", "reg"))
            del loss, out
            keep.clear()
        finally:
            self.net_.load_state_dict({**self.net_.state_dict(), **state})
            self.net_.train(was)
        params = {p.untyped_storage().data_ptr() for p in self.net_.parameters()}
        act = sum(v for (ptr, _), v in seen.items() if ptr not in params)
        return int(act + sum(p.numel() * p.element_size() for p in self.net_.parameters()))

    @staticmethod
    def evaluate(model, scenes, eval_bev=None) -> FusionEvaluation:
        """Occupancy mIoU / IoU / pole IoU, centre-distance AP, training memory and time on ``scenes``.

        Parameters
        ----------
        model : GaussianFusion or BEVFusionBaseline
            A fitted model.
        scenes : list of FusionScene or FusionData
            Test frames (a FusionData gives its ``test`` split).
        eval_bev : int, optional
            Evaluate occupancy on a ``eval_bev``-cell grid (a multiple of the model's ``bev``; predictions are
            repeated nearest-neighbour), so models of different resolutions share one label grid.
        """
        if isinstance(scenes, FusionData):
            scenes = scenes.test
        if not isinstance(model, _FusionBase):
            raise InputError("model", f"got {type(model).__name__}", "a GaussianFusion or BEVFusionBaseline")
        return _evaluate(model, scenes, eval_bev)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "net_")


class GaussianFusion(_FusionBase):
    r"""GaussianFusion: camera and LiDAR Gaussians, a shared cross-modal Gaussian encoder, GMM fusion by MeanVFE
    and Gaussian-to-voxel splatting, then occupancy and detection heads (see the module docstring for the maths).

    Parameters
    ----------
    n_gaussians : int
        Camera Gaussians kept per scene: the (pixel, depth-bin) pairs with the largest depth probability
        :math:`D_i(d)` [recon; the paper's GaussianFusion-C uses ~43k].
    bev : int
        Output resolution R: the fused Gaussians are pooled and splatted on an R x R x ``n_height`` grid over
        :math:`[-16, 16]^2 \times [-2, 4]` m, where the heads run. Only this last step scales with R.
    shared_encoder : bool
        One set of encoder weights for both modalities (True, the paper's choice) or one per modality.
    refine : {"incremental", "direct"}
        Attribute update per layer: add predicted increments, or re-predict absolute attributes.
    offsets : {"gaussian", "box"}
        Deformable-attention sampling offsets from the Gaussian's covariance (:math:`R S u_k`) or a fixed box [recon].
    positional_embedding : bool
        Add :math:`\mathrm{MLP}(\mu, \log s, r)` to the query before each layer.
    encoder_layers : int
        Encoder depth (paper: 4).
    feature_bev : None
        Deprecated and ignored (an int is still accepted): earlier versions attended BEV maps at this
        resolution; the encoder now gathers features from the cameras and the LiDAR returns directly.
    n_lidar_gaussians : int
        LiDAR Gaussians per scene, placed at the returns themselves (every ``ceil(n / n_lidar_gaussians)``-th
        return inside the volume when there are more).
    knn : int
        LiDAR returns each Gaussian gathers from (its ``knn`` nearest, weighted by its own density).
    modalities : tuple of {"camera", "lidar"}
        Sensors used: both (fusion), ("camera",) or ("lidar",).
    n_height : int
        Height bins of the occupancy grid.
    embed : int
        Feature width (paper: 128).
    depth_bins : int
        LSS depth bins, uniform in [1, 23] m.
    init_scale : float
        Initial Gaussian scale in metres (all axes; identity rotation) [recon: the paper initialises randomly].
    lidar_z : None
        Deprecated and ignored ("mean" and "centre" are still accepted): LiDAR Gaussians now sit at the returns.
    vfe : {"voxel", "bev"}
        MeanVFE cells: the 3-D voxels of the output grid, or its BEV pillars [recon].
    splat_channels : int
        Feature width splatted per height bin.
    max_splat_radius : int or None
        Cap (cells) on one Gaussian's splatting window.
    epochs, lr : int, float
        AdamW training (weight decay 0.01, gradient clip 35 as GaussianFormer).
    depth_supervision : bool
        Add a depth-bin cross-entropy on the camera depth distribution with the ray-cast depth [recon].
    classes : sequence of str or None
        Expected label classes (None: taken from the training scenes).
    rng : int or None
        Seed of the weights and the scene order.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.
    device : str
        Torch device ("cpu" by default; the code is device-agnostic).

    Attributes
    ----------
    net_ : torch.nn.Module
    classes_ : tuple
    grid_ : Grid
    det_labels_ : list of int
    loss_curve_ : list of float
        Mean training loss per epoch.

    References
    ----------
    C. Liu et al., "GaussianFusion: Unified 3D Gaussian Representation for Multi-Modal Fusion Perception",
    ICLR 2026, arXiv:2607.00746. Y. Huang et al., "GaussianFormer", ECCV 2024. J. Philion and S. Fidler,
    "Lift, Splat, Shoot", ECCV 2020. Z. Liu et al., "BEVFusion", ICRA 2023.

    Examples
    --------
    >>> data = driving_scene(n_scenes=2, cameras=2, lidar_beams=4, width=16, height=8, lidar_azimuths=64, rng=0)
    >>> m = GaussianFusion(n_gaussians=64, n_lidar_gaussians=64, bev=8, embed=8, encoder_layers=1, epochs=1, rng=0)
    >>> m.fit(data.train).predict_occupancy(data.test[0]).shape
    (8, 8, 6)
    """

    def __init__(self, n_gaussians=2000, bev=64, shared_encoder=True, refine="incremental", offsets="gaussian",
                 positional_embedding=True, encoder_layers=2, feature_bev=None, modalities=("camera", "lidar"),
                 n_height=6, embed=32, depth_bins=16, init_scale=0.5, lidar_z=None, vfe="voxel",
                 splat_channels=8, max_splat_radius=4, epochs=5, lr=2e-3, depth_supervision=True, classes=None,
                 rng=None, device="cpu", n_lidar_gaussians=2000, knn=8, random_state=None):
        self.n_lidar_gaussians = n_lidar_gaussians
        self.knn = knn
        self.n_gaussians = n_gaussians
        self.bev = bev
        self.shared_encoder = shared_encoder
        self.refine = refine
        self.offsets = offsets
        self.positional_embedding = positional_embedding
        self.encoder_layers = encoder_layers
        self.feature_bev = feature_bev
        self.modalities = modalities
        self.n_height = n_height
        self.embed = embed
        self.depth_bins = depth_bins
        self.init_scale = init_scale
        self.lidar_z = lidar_z
        self.vfe = vfe
        self.splat_channels = splat_channels
        self.max_splat_radius = max_splat_radius
        self.epochs = epochs
        self.lr = lr
        self.depth_supervision = depth_supervision
        self.classes = classes
        self.rng = rng
        self.random_state = random_state
        self.device = device

    def _check_params(self):
        mods = self._common_checks()
        _pos_int(self.n_gaussians, "n_gaussians")
        _pos_int(self.encoder_layers, "encoder_layers", 0)
        if self.feature_bev is not None:        # accepted for compatibility; the encoder attends no BEV map
            _pos_int(self.feature_bev, "feature_bev")
        _pos_int(self.n_lidar_gaussians, "n_lidar_gaussians")
        _pos_int(self.knn, "knn")
        _pos_int(self.splat_channels, "splat_channels")
        _pos_real(self.init_scale, "init_scale")
        if self.max_splat_radius is not None:
            _pos_int(self.max_splat_radius, "max_splat_radius")
        for name, val, opts in (("refine", self.refine, ("incremental", "direct")),
                                ("offsets", self.offsets, ("gaussian", "box")),
                                ("lidar_z", self.lidar_z, (None, "mean", "centre")),
                                ("vfe", self.vfe, ("voxel", "bev"))):
            if val not in opts:
                raise InputError(name, f"got {val!r}", " or ".join(map(repr, opts)))
        for name in ("shared_encoder", "positional_embedding"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(name, f"got {getattr(self, name)!r}", "True or False")
        return mods

    def _extra_cfg(self):
        return dict(n_gaussians=self.n_gaussians, n_lidar_gaussians=self.n_lidar_gaussians, knn=self.knn,
                    shared_encoder=self.shared_encoder,
                    refine=self.refine, offsets=self.offsets, positional_embedding=self.positional_embedding,
                    encoder_layers=self.encoder_layers, init_scale=self.init_scale,
                    vfe=self.vfe, splat_channels=self.splat_channels, max_splat_radius=self.max_splat_radius)

    def _make_net(self, cfg):
        from ._gf_model import GaussianFusionNet

        return GaussianFusionNet(cfg)

    def gaussians(self, scene):
        """The refined Gaussians of one scene: dict of means (n, 3), scales (n, 3), rots (n, 4) as numpy.

        Parameters
        ----------
        scene : FusionScene
        """
        out = self._forward(scene, "gaussians")
        return {k: out[k].cpu().numpy() for k in ("means", "scales", "rots")}


class BEVFusionBaseline(_FusionBase):
    r"""BEVFusion-mini: quantise first, then fuse. Camera LSS features and LiDAR pillar features are each
    scattered into a ``bev x bev`` grid, concatenated and fused by two convs; the heads and losses are those of
    :class:`GaussianFusion`, so the two differ only in where quantisation happens.

    Parameters
    ----------
    bev : int
        BEV resolution R of the whole fusion pipeline (memory grows as R^2).
    modalities : tuple of {"camera", "lidar"}
        Sensors used.
    n_height, embed, depth_bins, epochs, lr, depth_supervision, classes, rng, device, random_state :
        As in :class:`GaussianFusion`.

    Attributes
    ----------
    net_, classes_, grid_, det_labels_, loss_curve_ :
        As in :class:`GaussianFusion`.

    References
    ----------
    Z. Liu et al., "BEVFusion: Multi-Task Multi-Sensor Fusion with Unified Bird's-Eye View Representation",
    ICRA 2023.

    Examples
    --------
    >>> data = driving_scene(n_scenes=2, cameras=2, lidar_beams=4, width=16, height=8, lidar_azimuths=64, rng=0)
    >>> b = BEVFusionBaseline(bev=8, embed=8, epochs=1, rng=0).fit(data.train)
    >>> b.detect(data.test[0]).shape[1]
    9
    """

    def __init__(self, bev=64, modalities=("camera", "lidar"), n_height=6, embed=32, depth_bins=16, epochs=5, lr=2e-3,
                 depth_supervision=True, classes=None, rng=None, device="cpu",
                 random_state=None):
        self.bev = bev
        self.modalities = modalities
        self.n_height = n_height
        self.embed = embed
        self.depth_bins = depth_bins
        self.epochs = epochs
        self.lr = lr
        self.depth_supervision = depth_supervision
        self.classes = classes
        self.rng = rng
        self.random_state = random_state
        self.device = device

    def _check_params(self):
        return self._common_checks()

    def _extra_cfg(self):
        return {}

    def _make_net(self, cfg):
        from ._gf_model import BEVFusionNet

        return BEVFusionNet(cfg)
