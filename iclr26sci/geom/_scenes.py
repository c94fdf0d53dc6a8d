"""Synthetic 3-D scenes with exact ground truth, built on :class:`RaycastScene`.

- :func:`olat_scene`: one-light-at-a-time images of objects on a ground plane (Lambertian shading,
  inverse-square point lights, ray-cast shadows) with normals, depth and albedo.
- :func:`driving_scene`: a road with box-shaped cars seen by a camera and a spinning LiDAR, with an
  occupancy grid.
- :func:`human_video`: the stand-in body walking on a ground plane, per-frame cameras, depth, masks
  and foot-contact labels.

Also the mesh primitives they use (:func:`uv_sphere`, :func:`box_mesh`), as ``(vertices, faces)``
numpy pairs with outward winding. Every generator takes a seeded ``rng``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import torch

from iclr26sci.core import InputError, as_generator

from ._camera import Camera
from ._raycast import LidarSweep, RaycastRender, RaycastScene

__all__ = ["uv_sphere", "box_mesh", "olat_scene", "driving_scene", "human_video", "OLATScene", "DrivingScene",
           "HumanVideo"]


def _pos_int(v, name, lo=1):
    if isinstance(v, bool) or not isinstance(v, Integral) or v < lo:
        raise InputError(name, f"got {v!r}", f"an integer >= {lo}")
    return int(v)


def _pos_real(v, name):
    if isinstance(v, bool) or not isinstance(v, Real) or not (0 < float(v) < math.inf):
        raise InputError(name, f"got {v!r}", "a finite number > 0")
    return float(v)


def _vec3(v, name):
    a = np.asarray(v, dtype=np.float64) if not isinstance(v, str) else np.zeros(0)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise InputError(name, f"got {v!r}", "a finite 3-vector")
    return a


def uv_sphere(radius=1.0, centre=(0.0, 0.0, 0.0), n_lat=16, n_lon=32):
    """A latitude-longitude triangulated sphere, vertices exactly on the sphere (inscribed polyhedron).

    Parameters
    ----------
    radius : float
        Sphere radius (> 0).
    centre : array-like (3,)
    n_lat, n_lon : int
        Number of latitude bands (>= 2) and longitude segments (>= 3).

    Returns
    -------
    vertices (n, 3), faces (m, 3)

    Examples
    --------
    >>> V, F = uv_sphere(2.0, n_lat=4, n_lon=6)
    >>> V.shape, F.shape, bool(abs(abs(V).max() - 2.0) < 1e-12)
    ((20, 3), (36, 3), True)
    """
    radius = _pos_real(radius, "radius")
    c = _vec3(centre, "centre")
    n_lat, n_lon = _pos_int(n_lat, "n_lat", 2), _pos_int(n_lon, "n_lon", 3)
    th = np.pi * np.arange(1, n_lat) / n_lat
    ph = 2 * np.pi * np.arange(n_lon) / n_lon
    T, P = np.meshgrid(th, ph, indexing="ij")
    ring = np.stack([np.sin(T) * np.cos(P), np.sin(T) * np.sin(P), np.cos(T)], -1).reshape(-1, 3)
    V = np.concatenate([[[0, 0, 1.0]], ring, [[0, 0, -1.0]]]) * radius + c
    F, S = [], len(V) - 1
    for j in range(n_lon):
        F.append([0, 1 + j, 1 + (j + 1) % n_lon])
    for i in range(n_lat - 2):
        for j in range(n_lon):
            a, b = 1 + i * n_lon + j, 1 + i * n_lon + (j + 1) % n_lon
            F += [[a, a + n_lon, b], [b, a + n_lon, b + n_lon]]
    base = 1 + (n_lat - 2) * n_lon
    for j in range(n_lon):
        F.append([S, base + (j + 1) % n_lon, base + j])
    return V, np.array(F, dtype=np.int64)


def box_mesh(lo=(0.0, 0.0, 0.0), hi=(1.0, 1.0, 1.0)):
    """An axis-aligned box ``[lo, hi]`` as 12 outward-facing triangles.

    Examples
    --------
    >>> V, F = box_mesh([0, 0, 0], [1, 2, 3])
    >>> V.shape, F.shape
    ((8, 3), (12, 3))
    """
    lo, hi = _vec3(lo, "lo"), _vec3(hi, "hi")
    if not np.all(hi > lo):
        raise InputError("hi", f"{hi.tolist()} is not above lo={lo.tolist()} in every axis", "hi > lo componentwise")
    V = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    # vertex index = 4 ix + 2 iy + iz
    F = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5],      # x = lo (normal -x), x = hi (+x)
         [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],      # y = lo, y = hi
         [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]      # z = lo, z = hi
    return V, np.array(F, dtype=np.int64)


def _lambert(points, normals, albedo, light, intensity, shadow):
    d = light[None] - points
    r2 = (d * d).sum(-1)
    cos = np.clip((normals * d).sum(-1) / np.sqrt(np.maximum(r2, 1e-12)), 0.0, None)
    return albedo * intensity * cos / np.maximum(r2, 1e-12) * (~shadow)


@dataclass
class OLATScene:
    """One-light-at-a-time captures of a static scene.

    Attributes
    ----------
    images : ndarray (L, H, W)
        Radiance under each light alone: albedo * I * max(0, n.l) / r^2, 0 in shadow or background.
    shadows : ndarray (L, H, W) bool
        Pixels whose surface point is occluded from the light.
    lights : ndarray (L, 3)
        Point-light positions; intensity ``light_intensity``.
    normals, depth, albedo, hit, geometry_ids :
        Per-pixel ground truth from the camera.
    camera : Camera
    scene : RaycastScene

    Examples
    --------
    >>> olat_scene(0, n_lights=1, width=8, height=8, backend="numpy")
    OLATScene(1 lights, 8x8)
    """

    images: np.ndarray
    shadows: np.ndarray
    lights: np.ndarray
    light_intensity: float
    normals: np.ndarray
    depth: np.ndarray
    albedo: np.ndarray
    hit: np.ndarray
    geometry_ids: np.ndarray
    camera: Camera
    scene: RaycastScene

    def __repr__(self):
        return f"OLATScene({len(self.lights)} lights, {self.depth.shape[1]}x{self.depth.shape[0]})"


def olat_scene(rng=None, *, n_lights=8, width=64, height=64, backend="auto") -> OLATScene:
    """A sphere and a box on a ground slab, lit by ``n_lights`` point lights one at a time.

    The lights lie on a hemisphere of radius 4 above the scene (random directions from ``rng``);
    the object albedos are drawn uniformly in [0.3, 0.9]; the camera looks at the scene from a
    random azimuth at 35 degrees elevation. World z is up.

    Parameters
    ----------
    rng : int, Generator or None
        Seed.
    n_lights : int
        Number of one-light-at-a-time images (>= 1).
    width, height : int
        Image size in pixels.
    backend : {"auto", "open3d", "numpy"}
        Ray-casting engine.

    Examples
    --------
    >>> s = olat_scene(0, n_lights=2, width=16, height=12, backend="numpy")
    >>> s.images.shape, bool(s.images.max() > 0)
    ((2, 12, 16), True)
    """
    rng = as_generator(rng)
    n_lights = _pos_int(n_lights, "n_lights")
    width, height = _pos_int(width, "width"), _pos_int(height, "height")
    meshes = [box_mesh([-2, -2, -0.2], [2, 2, 0.0]), uv_sphere(0.5, (-0.4, 0.2, 0.5), 12, 24),
              box_mesh([0.3, -0.7, 0.0], [0.9, -0.1, 0.8])]
    scene = RaycastScene.from_mesh(meshes, backend=backend)
    alb = rng.uniform(0.3, 0.9, len(meshes))
    az = rng.uniform(0, 2 * np.pi)
    eye = 3.5 * np.array([np.cos(az) * np.cos(0.61), np.sin(az) * np.cos(0.61), np.sin(0.61)])
    cam = Camera.look_at(eye.tolist(), [0.0, 0.0, 0.3], up=[0.0, 0.0, 1.0], fx=1.1 * width, fy=1.1 * width,
                         width=width, height=height, dtype=torch.float64)
    r = scene.render(cam)
    u = rng.normal(size=(n_lights, 3))
    u[:, 2] = np.abs(u[:, 2]) + 0.3
    lights = 4.0 * u / np.linalg.norm(u, axis=1, keepdims=True)
    albedo = np.where(r.hit, alb[np.maximum(r.geometry_ids, 0)], 0.0)
    pts, nrm = np.nan_to_num(r.points[r.hit]), r.normals[r.hit]
    imgs = np.zeros((n_lights, height, width))
    shadows = np.zeros((n_lights, height, width), bool)
    for k, L in enumerate(lights):
        sh = scene.shadow(pts, L)
        shadows[k][r.hit] = sh
        imgs[k][r.hit] = _lambert(pts, nrm, albedo[r.hit], L, 16.0, sh)
    return OLATScene(images=imgs, shadows=shadows, lights=lights, light_intensity=16.0, normals=r.normals,
                     depth=r.depth, albedo=albedo, hit=r.hit, geometry_ids=r.geometry_ids, camera=cam, scene=scene)


@dataclass
class DrivingScene:
    """A road scene from an ego vehicle.

    Attributes
    ----------
    image : ndarray (H, W)
        Lambert-shaded camera image under a sun direction with ray-cast shadows (sky = 1).
    render : RaycastRender
        Camera depth, normals, ids.
    semantic : ndarray (H, W) int
        0 sky, 1 road, 2 car.
    lidar : LidarSweep
        From the roof sensor.
    occupancy : ndarray (nx, ny, nz) bool
        Voxel occupancy of the region ``grid_lo .. grid_hi`` (voxel centres).
    boxes : ndarray (n, 2, 3)
        Car boxes (lo, hi corners).
    camera : Camera
    scene : RaycastScene

    Examples
    --------
    >>> driving_scene(0, n_cars=1, width=8, height=4, n_beams=2, n_azimuth=8, voxel=8.0, backend="numpy")
    DrivingScene(1 cars, 8 LiDAR returns)
    """

    image: np.ndarray
    render: RaycastRender
    semantic: np.ndarray
    lidar: LidarSweep
    occupancy: np.ndarray
    grid_lo: np.ndarray
    grid_hi: np.ndarray
    boxes: np.ndarray
    camera: Camera
    scene: RaycastScene
    sun: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def __repr__(self):
        return f"DrivingScene({len(self.boxes)} cars, {len(self.lidar.points)} LiDAR returns)"


def driving_scene(rng=None, *, n_cars=6, width=96, height=48, n_beams=16, n_azimuth=180, voxel=0.5,
                  backend="auto") -> DrivingScene:
    """Ground slab plus ``n_cars`` car-sized boxes; a forward camera, a LiDAR sweep and an occupancy grid.

    World: x forward, y left, z up; the ego camera sits at (0, 0, 1.5) looking along +x, the LiDAR at
    (0, 0, 1.8) (beams from +2 to -24.8 degrees, 60 m range). Cars (4.2 x 1.8 x 1.5 m, jittered)
    are placed in lanes y in {-3.5, 0, 3.5} at x in [6, 40], without overlap.

    Parameters
    ----------
    rng : int, Generator or None
    n_cars : int
        Number of cars (>= 0).
    width, height : int
        Camera image size.
    n_beams, n_azimuth : int
        LiDAR channels and firings per revolution.
    voxel : float
        Occupancy voxel edge in metres; the grid covers x in [0, 40], y in [-8, 8], z in [-0.5, 3].
    backend : {"auto", "open3d", "numpy"}

    Examples
    --------
    >>> s = driving_scene(0, n_cars=2, width=24, height=12, n_beams=4, n_azimuth=16, voxel=4.0, backend="numpy")
    >>> s.semantic.shape, s.occupancy.shape
    ((12, 24), (10, 4, 1))
    """
    rng = as_generator(rng)
    n_cars = _pos_int(n_cars, "n_cars", 0)
    width, height = _pos_int(width, "width"), _pos_int(height, "height")
    voxel = _pos_real(voxel, "voxel")
    meshes, boxes, taken = [box_mesh([-10, -12, -0.3], [60, 12, 0.0])], [], []
    tries = 0
    while len(boxes) < n_cars and tries < 1000:
        tries += 1
        lane = rng.choice([-3.5, 0.0, 3.5])
        x = rng.uniform(6, 40)
        L, Wd, H = 4.2 * rng.uniform(0.9, 1.1), 1.8 * rng.uniform(0.9, 1.1), 1.5 * rng.uniform(0.9, 1.1)
        if any(abs(lane - l2) < 1 and abs(x - x2) < 5.5 for l2, x2 in taken):
            continue
        taken.append((lane, x))
        lo, hi = np.array([x, lane - Wd / 2, 0.0]), np.array([x + L, lane + Wd / 2, H])
        boxes.append((lo, hi))
        meshes.append(box_mesh(lo, hi))
    scene = RaycastScene.from_mesh(meshes, backend=backend)
    cam = Camera.look_at([0.0, 0.0, 1.5], [10.0, 0.0, 1.0], up=[0.0, 0.0, 1.0], fx=0.8 * width, fy=0.8 * width,
                         width=width, height=height, dtype=torch.float64)
    r = scene.render(cam)
    sun = np.array([0.3, 0.5, 0.8])
    sun /= np.linalg.norm(sun)
    img = np.ones((height, width))
    pts = np.nan_to_num(r.points[r.hit])
    sh = scene.shadow(pts, sun, directional=True)
    alb = np.where(r.geometry_ids[r.hit] == 0, 0.35, 0.75)
    img[r.hit] = alb * (0.2 + 0.8 * np.clip(r.normals[r.hit] @ sun, 0, None) * ~sh)
    semantic = np.where(r.hit, np.where(r.geometry_ids == 0, 1, 2), 0)
    sweep = scene.lidar([0.0, 0.0, 1.8], n_beams=n_beams, n_azimuth=n_azimuth, fov_up=2.0, fov_down=-24.8,
                        max_range=60.0)
    glo, ghi = np.array([0.0, -8.0, -0.5]), np.array([40.0, 8.0, 3.0])
    n = np.maximum(1, np.floor((ghi - glo) / voxel + 1e-9).astype(int))
    axes = [glo[i] + voxel * (np.arange(n[i]) + 0.5) for i in range(3)]
    C = np.stack(np.meshgrid(*axes, indexing="ij"), -1)
    occ = scene.occupancy(C.reshape(-1, 3)).reshape(*n)
    return DrivingScene(image=img, render=r, semantic=semantic, lidar=sweep, occupancy=occ, grid_lo=glo, grid_hi=ghi,
                        boxes=np.array([[lo, hi] for lo, hi in boxes]).reshape(-1, 2, 3), camera=cam, scene=scene,
                        sun=sun)


@dataclass
class HumanVideo:
    """A walking stand-in body on a ground plane (world y up, ground at y = 0).

    Attributes
    ----------
    vertices, joints : ndarray (T, V, 3), (T, 24, 3)
    pose, translation : ndarray (T, 72), (T, 3)
    shape : ndarray (4,)
    depth : ndarray (T, H, W)
        Camera z-depth (inf on a miss).
    body_mask : ndarray (T, H, W) bool
        Pixels that see the body.
    contact : ndarray (T, n_contact) bool
        Whether each sole vertex (``body.contact_vertices``) is within ``contact_tol`` of the ground.
    foot_contact : ndarray (T, 2) bool
        Any left / right sole vertex in contact.
    cameras : list of Camera
    faces : ndarray (F, 3)

    Examples
    --------
    >>> human_video(0, n_frames=1, width=4, height=4, backend="numpy")
    HumanVideo(1 frames, 4x4)
    """

    vertices: np.ndarray
    joints: np.ndarray
    pose: np.ndarray
    translation: np.ndarray
    shape: np.ndarray
    depth: np.ndarray
    body_mask: np.ndarray
    contact: np.ndarray
    foot_contact: np.ndarray
    cameras: list
    faces: np.ndarray
    contact_tol: float

    def __repr__(self):
        return f"HumanVideo({len(self.cameras)} frames, {self.depth.shape[2]}x{self.depth.shape[1]})"


def human_video(rng=None, *, n_frames=16, width=48, height=48, fps=15.0, contact_tol=0.02,
                backend="auto") -> HumanVideo:
    """The stand-in body walking along +z over a ground slab, filmed by a slowly panning camera.

    The gait is a sinusoidal walk cycle (about 1 Hz): hips flex by +/-25 degrees in antiphase,
    knees flex by up to 40 degrees in swing, arms swing by +/-15 degrees; stride speed
    1.1-1.5 m/s and stature/shape come from ``rng``. Each frame's vertical translation puts the
    lowest vertex on the ground (y = 0), so sole vertices within ``contact_tol`` are in contact.

    Parameters
    ----------
    rng : int, Generator or None
    n_frames : int
        Number of frames (>= 1).
    width, height : int
        Image size.
    fps : float
        Frame rate (> 0).
    contact_tol : float
        Height above the ground (metres, > 0) under which a sole vertex counts as in contact.
    backend : {"auto", "open3d", "numpy"}

    Examples
    --------
    >>> v = human_video(0, n_frames=2, width=8, height=8)
    >>> v.depth.shape, bool(v.foot_contact.any(1).all())
    ((2, 8, 8), True)
    """
    from ._body import BodyModel

    rng = as_generator(rng)
    n_frames = _pos_int(n_frames, "n_frames")
    width, height = _pos_int(width, "width"), _pos_int(height, "height")
    fps, contact_tol = _pos_real(fps, "fps"), _pos_real(contact_tol, "contact_tol")
    body = BodyModel("standin", dtype=torch.float64)
    shape = np.clip(rng.normal(size=4), -2, 2)
    speed, freq, phase0 = rng.uniform(1.1, 1.5), rng.uniform(0.9, 1.1), rng.uniform(0, 2 * np.pi)
    t = np.arange(n_frames) / fps
    ph = 2 * np.pi * freq * t + phase0
    pose = np.zeros((n_frames, 24, 3))
    hip = np.deg2rad(25) * np.sin(ph)
    pose[:, 1, 0], pose[:, 2, 0] = -hip, hip                         # rotation about x: flexion (leg forward)
    pose[:, 4, 0] = np.deg2rad(40) * np.clip(np.sin(ph + np.pi / 2), 0, None)
    pose[:, 5, 0] = np.deg2rad(40) * np.clip(np.sin(ph - np.pi / 2), 0, None)
    pose[:, 16, 2], pose[:, 17, 2] = -np.deg2rad(70), np.deg2rad(70)   # arms down from the T-pose
    pose[:, 16, 0], pose[:, 17, 0] = np.deg2rad(15) * np.sin(ph), -np.deg2rad(15) * np.sin(ph)
    pose = pose.reshape(n_frames, 72)
    with torch.no_grad():
        out = body(torch.as_tensor(pose), torch.as_tensor(shape)[None].expand(n_frames, 4))
    V = out.vertices.numpy()
    trans = np.zeros((n_frames, 3))
    trans[:, 2] = speed * t
    trans[:, 1] = -V[:, :, 1].min(1)
    V, J = V + trans[:, None], out.joints.numpy() + trans[:, None]
    ground = box_mesh([-5, -0.3, -5], [5, 0.0, 5 + speed * t[-1] + 5])
    depth = np.zeros((n_frames, height, width))
    mask = np.zeros((n_frames, height, width), bool)
    cams = []
    cam_az = rng.uniform(-0.5, 0.5)
    for k in range(n_frames):
        centre = J[k, 0]
        a = cam_az + 0.3 * k / max(1, n_frames - 1)
        eye = centre + np.array([4.0 * np.sin(a) + 1.0, 0.4, 4.0 * np.cos(a)])
        cam = Camera.look_at(eye.tolist(), centre.tolist(), up=[0.0, 1.0, 0.0], fx=1.3 * width, fy=1.3 * width,
                             width=width, height=height, dtype=torch.float64)
        scene = RaycastScene.from_mesh([ground, (V[k], body.faces)], backend=backend)
        r = scene.render(cam)
        depth[k], mask[k] = r.depth, r.geometry_ids == 1
        cams.append(cam)
    cv = body.contact_vertices
    contact = V[:, cv, 1] <= contact_tol
    left = np.isin(body.skin_joint[cv], [7, 10])
    foot_contact = np.stack([contact[:, left].any(1), contact[:, ~left].any(1)], 1)
    return HumanVideo(vertices=V, joints=J, pose=pose, translation=trans, shape=shape, depth=depth, body_mask=mask,
                      contact=contact, foot_contact=foot_contact, cameras=cams, faces=body.faces,
                      contact_tol=contact_tol)
