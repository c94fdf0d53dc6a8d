r"""A synthetic "mini-nuScenes" for GaussianFusion: ray-cast surround cameras, a spinning LiDAR with a real
beam pattern, semantic occupancy and 3-D boxes, with thin poles.

World (= ego) frame: x forward, y left, z up, ground at z = 0; the scene volume is ``[-16, 16]^2 x [-2, 4]`` m.
Objects are ray-cast meshes (:class:`iclr26sci.geom.RaycastScene`, open3d when it imports):

- road: a ground slab (z in [-0.2, 0]);
- cars: oriented boxes 4.5 x 1.9 x 1.6 m (jittered by +/-10 %) with random yaw;
- pedestrians: cylinders r = 0.3 m, h = 1.7 m;
- poles: cylinders r = 0.1 m, h = 4 m (the thin structures of the quantisation claim);
- building: a wall 0.5 m thick, 3.5 m high along one side (only when "building" is among the classes).

Cameras: ``cameras`` pinholes at (0, 0, 1.6) m spaced evenly in yaw, horizontal field of view
``min(120, 1.15 * 360 / cameras)`` degrees, images ``width x height``: class colour (jittered per object) times
Lambert shading under a fixed sun, sky elsewhere, plus ray-cast z-depth and per-pixel class. LiDAR: at
(0, 0, 1.8) m, ``lidar_beams`` elevations from +5 to -25 degrees x ``lidar_azimuths`` azimuths, 40 m range
(spec section 3.4). Points are stored in the LiDAR frame with their ``lidar_to_ego`` extrinsic.

Occupancy labels are computed for any grid from the objects themselves (volume samples spaced at most half a
voxel, so a 0.2 m pole marks every voxel it passes through at any resolution); where two classes share a voxel
the smaller object wins (pole > pedestrian > car > building > road) [recon].
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import torch

from iclr26sci.geom import Camera, RaycastScene

from ._gf_ops import Grid

KNOWN_CLASSES = ("car", "pole", "pedestrian", "road", "building")
#: label priority when two classes share a voxel (higher wins)
_PRIORITY = {"road": 0, "building": 1, "car": 2, "pedestrian": 3, "pole": 4}
_COLOURS = {"road": (0.35, 0.35, 0.38), "car": (0.8, 0.15, 0.1), "pedestrian": (0.9, 0.75, 0.2),
            "pole": (0.2, 0.6, 0.9), "building": (0.6, 0.55, 0.5)}
_SKY = (0.55, 0.7, 0.95)
VOLUME_LO, VOLUME_HI = (-16.0, -16.0, -2.0), (16.0, 16.0, 4.0)
LIDAR_HEIGHT, CAMERA_HEIGHT = 1.8, 1.6


def _cylinder(radius, height, centre, n=16):
    a = 2 * np.pi * np.arange(n) / n
    ring = np.stack([radius * np.cos(a), radius * np.sin(a)], 1)
    V = np.concatenate([np.c_[ring, np.zeros(n)], np.c_[ring, np.full(n, height)], [[0, 0, 0], [0, 0, height]]])
    V = V + np.asarray(centre, float)
    F = []
    for i in range(n):
        j = (i + 1) % n
        F += [[i, j, n + j], [i, n + j, n + i], [2 * n, j, i], [2 * n + 1, n + i, n + j]]
    return V, np.array(F, np.int64)


def _obox(centre, size, yaw):
    h = np.asarray(size, float) / 2
    V = np.array([[x, y, z] for x in (-h[0], h[0]) for y in (-h[1], h[1]) for z in (-h[2], h[2])])
    c, s = np.cos(yaw), np.sin(yaw)
    Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    F = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
         [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return V @ Rz.T + np.asarray(centre, float), np.array(F, np.int64)


@dataclass(frozen=True)
class SceneObject:
    """One object: ``kind`` "box" (centre, size l x w x h, yaw) or "cylinder" (centre of the base, radius, height)."""

    cls: str
    kind: str
    centre: tuple
    size: tuple
    yaw: float = 0.0

    def mesh(self):
        if self.kind == "box":
            return _obox(self.centre, self.size, self.yaw)
        return _cylinder(self.size[0], self.size[1], self.centre)

    def box(self):
        """(x, y, z_centre, l, w, h, yaw) of the object's 3-D box."""
        if self.kind == "box":
            return (*self.centre, *self.size, self.yaw)
        r, h = self.size
        return (self.centre[0], self.centre[1], self.centre[2] + h / 2, 2 * r, 2 * r, h, 0.0)

    def samples(self, spacing):
        """Points filling the object's volume with spacing <= ``spacing`` (every axis)."""
        if self.kind == "box":
            L = np.asarray(self.size, float)
            n = np.maximum(2, np.ceil(L / spacing).astype(int) + 1)
            ax = [np.linspace(-L[i] / 2, L[i] / 2, n[i]) for i in range(3)]
            P = np.stack(np.meshgrid(*ax, indexing="ij"), -1).reshape(-1, 3)
            c, s = np.cos(self.yaw), np.sin(self.yaw)
            P = P @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]).T
            return P + np.asarray(self.centre, float)
        r, h = self.size
        n = max(2, int(np.ceil(2 * r / spacing)) + 1)
        ax = np.linspace(-r, r, n)
        X, Y = np.meshgrid(ax, ax, indexing="ij")
        keep = X ** 2 + Y ** 2 <= r * r + 1e-12
        xy = np.c_[X[keep], Y[keep]]
        # the disc's boundary too, so a disc thinner than a voxel still marks every voxel it overlaps
        a = np.linspace(0, 2 * np.pi, max(8, int(np.ceil(2 * np.pi * r / spacing))), endpoint=False)
        xy = np.concatenate([xy, r * np.c_[np.cos(a), np.sin(a)] * (1 - 1e-9)])
        nz = max(2, int(np.ceil(h / spacing)) + 1)
        z = np.linspace(0, h, nz)
        P = np.concatenate([np.c_[xy, np.full(len(xy), zz)] for zz in z])
        return P + np.asarray(self.centre, float)

    def rotated90(self, k):
        c, s = np.cos(k * np.pi / 2), np.sin(k * np.pi / 2)
        x, y, z = self.centre
        c2 = (round(c) * x - round(s) * y, round(s) * x + round(c) * y, z)
        return replace(self, centre=tuple(float(v) for v in c2), yaw=float(self.yaw + k * np.pi / 2))


@dataclass
class FusionScene:
    """One multi-sensor frame of the synthetic driving scene.

    Attributes
    ----------
    images : ndarray (n_cam, H, W, 3) float32
        Camera images in [0, 1].
    depths : ndarray (n_cam, H, W) float32
        Ray-cast z-depth (0 where the ray meets nothing).
    pixel_classes : ndarray (n_cam, H, W) int64
        Label of the surface each pixel sees (0 = sky).
    intrinsics : ndarray (n_cam, 3, 3)
        Pinhole K of each camera.
    cam_to_ego : ndarray (n_cam, 4, 4)
        Camera-to-ego extrinsics (OpenCV camera axes: x right, y down, z forward).
    lidar_points : ndarray (n, 3) float32
        LiDAR returns in the LiDAR frame (an empty (0, 3) array is allowed: a camera-only frame).
    lidar_classes : ndarray (n,) int64
        Label of the surface each return hit.
    lidar_to_ego : ndarray (4, 4)
        LiDAR-to-ego extrinsic.
    lidar_to_cam : ndarray (n_cam, 4, 4) or None
        The LiDAR-to-camera calibration, when given; it must equal ``inv(cam_to_ego) @ lidar_to_ego``.
    objects : list of SceneObject
    classes : tuple of str
        Class names; label ``c`` (1-based) is ``classes[c - 1]`` and 0 is free space.

    Examples
    --------
    >>> from iclr26sci.scene3d import driving_scene
    >>> s = driving_scene(n_scenes=2, cameras=2, lidar_beams=4, width=16, height=8, lidar_azimuths=64, rng=0).test[0]
    >>> s.depths.shape, s.boxes().shape[1]
    ((2, 8, 16), 8)
    """

    images: np.ndarray
    depths: np.ndarray
    pixel_classes: np.ndarray
    intrinsics: np.ndarray
    cam_to_ego: np.ndarray
    lidar_points: np.ndarray
    lidar_classes: np.ndarray
    lidar_to_ego: np.ndarray
    objects: list
    classes: tuple
    lidar_to_cam: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    def __repr__(self):
        n, H, W = self.depths.shape
        return f"FusionScene({n} cameras {W}x{H}, {len(self.lidar_points)} LiDAR returns, {len(self.objects)} objects)"

    # ------------------------------------------------------------------ labels
    def occupancy(self, grid: Grid) -> np.ndarray:
        """Semantic occupancy labels (nx, ny, nz) int64 on ``grid`` (0 = free, c = ``classes[c - 1]``)."""
        if not isinstance(grid, Grid):
            from iclr26sci.core import InputError

            raise InputError("grid", f"got {type(grid).__name__}", "an iclr26sci.scene3d.Grid")
        lab = np.zeros(grid.shape, np.int64)
        prio = np.full(grid.shape, -1)
        cell = grid.cell
        lo = np.asarray(grid.lo, float)
        if "road" in self.classes:
            kz = np.arange(grid.shape[2])
            zlo, zhi = lo[2] + kz * cell[2], lo[2] + (kz + 1) * cell[2]
            road = (zlo < 0.0) & (zhi > -0.2)
            lab[:, :, road] = self.classes.index("road") + 1
            prio[:, :, road] = _PRIORITY["road"]
        for ob in self.objects:
            if ob.cls not in self.classes:
                continue
            P = ob.samples(0.5 * float(cell.min()))
            idx = np.floor((P - lo) / cell).astype(int)
            ok = np.all((idx >= 0) & (idx < np.asarray(grid.shape)), 1)
            i, j, k = idx[ok].T
            p = _PRIORITY[ob.cls]
            win = prio[i, j, k] < p
            lab[i[win], j[win], k[win]] = self.classes.index(ob.cls) + 1
            prio[i[win], j[win], k[win]] = p
        return lab

    def boxes(self, classes=None) -> np.ndarray:
        """3-D boxes (n, 8): label, x, y, z, l, w, h, yaw of the objects of ``classes`` (default: all but road)."""
        if classes is None:
            classes = [c for c in self.classes if c != "road"]
        else:
            from iclr26sci.core import InputError

            if isinstance(classes, str) or not hasattr(classes, "__iter__"):
                raise InputError("classes", f"got {classes!r}", f"a sequence of class names from {self.classes}")
            classes = list(classes)
            bad = [c for c in classes if c not in self.classes]
            if bad:
                raise InputError("classes", f"has {bad}, not classes of this scene", f"names from {self.classes}")
        rows = [(self.classes.index(o.cls) + 1, *o.box()) for o in self.objects if o.cls in classes]
        return np.array(rows, float).reshape(-1, 8)

    def rotate90(self, k=1, *, backend="auto") -> "FusionScene":
        """The same scene rotated by ``k`` x 90 degrees about z: objects and camera poses rotated, re-rendered.

        The LiDAR's azimuth pattern is invariant under the rotation when its azimuth count is divisible by 4.
        """
        from numbers import Integral

        from iclr26sci.core import InputError

        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (Integral, np.integer)):
            raise InputError("k", f"got {k!r}", "an integer number of quarter turns")
        if backend not in ("auto", "open3d", "numpy"):
            raise InputError("backend", f"got {backend!r}", "'auto', 'open3d' or 'numpy'")
        m = self.meta
        objs = [o.rotated90(k) for o in self.objects]
        return render_scene(objs, self.classes, n_cameras=len(self.depths), width=self.depths.shape[2],
                            height=self.depths.shape[1], lidar_beams=m["lidar_beams"],
                            lidar_azimuths=m["lidar_azimuths"], yaw0=m["yaw0"] + k * np.pi / 2,
                            colour_jitter=m["colour_jitter"], backend=backend)


@dataclass
class FusionData:
    """Train/test split of synthetic driving scenes.

    Attributes
    ----------
    train, test : list of FusionScene
    classes : tuple of str

    Examples
    --------
    >>> from iclr26sci.scene3d import driving_scene
    >>> driving_scene(n_scenes=3, cameras=1, lidar_beams=2, width=8, height=8, lidar_azimuths=16, rng=1)
    FusionData(2 train, 1 test, classes=('car', 'pole', 'pedestrian', 'road'))
    """

    train: list
    test: list
    classes: tuple

    def __repr__(self):
        return f"FusionData({len(self.train)} train, {len(self.test)} test, classes={self.classes})"


def _place(rng, objs, radius, rmin, rmax, tries=200):
    for _ in range(tries):
        r, a = rng.uniform(rmin, rmax), rng.uniform(0, 2 * np.pi)
        x, y = r * np.cos(a), r * np.sin(a)
        if max(abs(x), abs(y)) > 15.0 - radius:
            continue
        if all(np.hypot(x - ox, y - oy) > radius + orad + 0.3 for ox, oy, orad in objs):
            objs.append((x, y, radius))
            return x, y
    return None


def sample_objects(rng, classes):
    """Random object layout of one scene (see the module docstring for the counts and sizes)."""
    placed, objs = [], []
    if "building" in classes:
        side = rng.integers(4)
        wall = SceneObject("building", "box", (14.25, 0.0, 1.75), (0.5, 24.0, 3.5), 0.0).rotated90(int(side))
        objs.append(wall)
        c, s = round(np.cos(side * np.pi / 2)), round(np.sin(side * np.pi / 2))
        placed += [(c * 14.25 - s * t, s * 14.25 + c * t, 0.6) for t in np.linspace(-12, 12, 21)]
    if "car" in classes:
        for _ in range(rng.integers(3, 7)):
            size = np.array([4.5, 1.9, 1.6]) * rng.uniform(0.9, 1.1, 3)
            xy = _place(rng, placed, 2.5, 4.5, 14.5)
            if xy is not None:
                objs.append(SceneObject("car", "box", (xy[0], xy[1], size[2] / 2), tuple(size), float(rng.uniform(0, np.pi))))
    if "pedestrian" in classes:
        for _ in range(rng.integers(2, 5)):
            xy = _place(rng, placed, 0.3, 3.0, 14.5)
            if xy is not None:
                objs.append(SceneObject("pedestrian", "cylinder", (xy[0], xy[1], 0.0), (0.3, 1.7)))
    if "pole" in classes:
        for _ in range(rng.integers(3, 7)):
            xy = _place(rng, placed, 0.1, 3.0, 14.8)
            if xy is not None:
                objs.append(SceneObject("pole", "cylinder", (xy[0], xy[1], 0.0), (0.1, 4.0)))
    return objs


def render_scene(objects, classes, *, n_cameras=4, width=64, height=48, lidar_beams=32, lidar_azimuths=720,
                 yaw0=0.0, colour_jitter=None, backend="auto") -> FusionScene:
    """Ray-cast the cameras and the LiDAR for an object layout (see the module docstring)."""
    classes = tuple(classes)
    meshes = [((np.array([[-24.0, -24, 0], [24, -24, 0], [24, 24, 0], [-24, 24, 0]])), np.array([[0, 1, 2], [0, 2, 3]]))]
    geom_cls = ["road"]
    for o in objects:
        meshes.append(o.mesh())
        geom_cls.append(o.cls)
    scene = RaycastScene.from_mesh(meshes, backend=backend)
    lab_of_geom = np.array([classes.index(c) + 1 if c in classes else 0 for c in geom_cls])
    if colour_jitter is None:
        colour_jitter = np.zeros((len(objects) + 1, 3))
    col = np.array([_COLOURS[c] for c in geom_cls]) + colour_jitter[:len(geom_cls)]
    sun = np.array([0.3, 0.2, 0.93])
    sun /= np.linalg.norm(sun)
    hfov = np.deg2rad(min(120.0, 1.15 * 360.0 / n_cameras))
    fx = width / 2 / np.tan(hfov / 2)
    imgs = np.zeros((n_cameras, height, width, 3), np.float32)
    depths = np.zeros((n_cameras, height, width), np.float32)
    pcls = np.zeros((n_cameras, height, width), np.int64)
    Ks, T = np.zeros((n_cameras, 3, 3)), np.zeros((n_cameras, 4, 4))
    for c in range(n_cameras):
        yaw = yaw0 + 2 * np.pi * c / n_cameras
        eye = np.array([0.0, 0.0, CAMERA_HEIGHT])
        tgt = eye + np.array([np.cos(yaw), np.sin(yaw), 0.0])
        cam = Camera.look_at(eye.tolist(), tgt.tolist(), up=[0.0, 0.0, 1.0], fx=fx, fy=fx, width=width,
                             height=height, dtype=torch.float64)
        r = scene.render(cam)
        g = np.maximum(r.geometry_ids, 0)
        shade = 0.35 + 0.65 * np.abs((r.normals * sun).sum(-1))
        img = np.where(r.hit[..., None], col[g] * shade[..., None], np.asarray(_SKY))
        imgs[c] = np.clip(img, 0, 1)
        depths[c] = np.where(r.hit, r.depth, 0.0)
        pcls[c] = np.where(r.hit, lab_of_geom[g], 0)
        R, t = cam.R.numpy(), cam.t.numpy()
        Ks[c] = [[cam.fx, 0, cam.cx], [0, cam.fy, cam.cy], [0, 0, 1]]
        T[c, :3, :3], T[c, :3, 3], T[c, 3, 3] = R.T, -R.T @ t, 1.0
    sweep = scene.lidar([0.0, 0.0, LIDAR_HEIGHT], n_beams=lidar_beams, n_azimuth=lidar_azimuths, fov_up=5.0,
                        fov_down=-25.0, max_range=40.0)
    L2E = np.eye(4)
    L2E[2, 3] = LIDAR_HEIGHT
    pts = (sweep.points - L2E[:3, 3]).astype(np.float32)
    lcls = lab_of_geom[sweep.geometry_ids[sweep.hit]]
    return FusionScene(images=imgs, depths=depths, pixel_classes=pcls, intrinsics=Ks, cam_to_ego=T,
                       lidar_points=pts, lidar_classes=lcls.astype(np.int64), lidar_to_ego=L2E, objects=list(objects),
                       classes=classes, lidar_to_cam=np.linalg.inv(T) @ L2E,
                       meta=dict(lidar_beams=lidar_beams, lidar_azimuths=lidar_azimuths, yaw0=yaw0,
                                 colour_jitter=colour_jitter))
