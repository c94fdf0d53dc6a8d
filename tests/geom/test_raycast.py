"""RaycastScene: open3d and the numpy Moller-Trumbore fallback agree; closed forms; bad input."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from iclr26sci.core import InputError
from iclr26sci.geom._camera import Camera
from iclr26sci.geom._raycast import RaycastScene, _open3d_available
from iclr26sci.geom._scenes import box_mesh, uv_sphere

BAD_INPUT_EXEMPT = {
    "geom.RaycastRender": "a result container built by RaycastScene.render, not by users",
    "geom.LidarSweep": "a result container built by RaycastScene.lidar, not by users",
}

needs_o3d = pytest.mark.skipif(not _open3d_available(), reason="open3d not importable (pip install open3d)")


def _scene(backend):
    return RaycastScene.from_mesh([uv_sphere(1.0, (0, 0, 0), 10, 20), box_mesh([1.5, -0.5, -0.5], [2.5, 0.5, 0.5])],
                                  backend=backend)


def _cam(w=24, h=16):
    return Camera.look_at([1.0, -5.0, 0.6], [1.0, 0.0, 0.0], up=[0.0, 0.0, 1.0], fx=20, fy=20, width=w, height=h,
                          dtype=torch.float64)


@needs_o3d
def test_open3d_and_numpy_backends_agree():
    a, b = _scene("open3d"), _scene("numpy")
    ra, rb = a.render(_cam()), b.render(_cam())
    assert ra.hit.mean() > 0.1
    assert (ra.hit != rb.hit).mean() <= 0.01           # only rays grazing an edge may differ
    both = ra.hit & rb.hit
    np.testing.assert_allclose(ra.depth[both], rb.depth[both], rtol=1e-5)
    same = both & (ra.primitive_ids == rb.primitive_ids)
    assert same.sum() >= 0.99 * both.sum()
    np.testing.assert_allclose(ra.normals[same], rb.normals[same], atol=1e-12)
    np.testing.assert_array_equal(ra.geometry_ids[both], rb.geometry_ids[both])
    P = np.random.default_rng(0).uniform(-1.5, 3.0, (300, 3))
    assert (a.occupancy(P) != b.occupancy(P)).mean() <= 0.01
    light = [1.0, -4.0, 3.0]
    assert (a.shadow(P, light) != b.shadow(P, light)).mean() <= 0.01
    sa, sb = a.lidar([1.0, -3.0, 0.2], 6, 48), b.lidar([1.0, -3.0, 0.2], 6, 48)
    assert sa.hit.sum() > 0 and (sa.hit != sb.hit).mean() <= 0.02
    np.testing.assert_allclose(sa.ranges[sa.hit & sb.hit], sb.ranges[sa.hit & sb.hit], rtol=1e-5)


def test_box_depth_normals_closed_form_numpy():
    scene = RaycastScene.from_mesh(box_mesh([-1, -1, 4], [1, 1, 6]), backend="numpy")
    cam = Camera.look_at([0.0, 0, 0], [0.0, 0, 1], up=[0.0, -1, 0], fx=20, fy=20, width=8, height=8,
                         dtype=torch.float64)
    r = scene.render(cam)
    # pixel centres are at most 3.5 px from the axis: |x_c / z_c| <= 3.5 / 20, so at depth 4 every ray is within
    # |x|, |y| <= 0.7 < 1 and meets the near face z = 4, normal -z
    assert r.hit.all()
    np.testing.assert_allclose(r.depth, 4.0, rtol=1e-12)
    np.testing.assert_allclose(r.normals, np.broadcast_to([0, 0, -1.0], r.normals.shape), atol=1e-12)
    u = np.arange(8) + 0.5 - 4
    np.testing.assert_allclose(r.distance[0], 4 * np.sqrt(1 + (u / 20) ** 2 + ((0.5 - 4) / 20) ** 2), rtol=1e-12)


def test_sphere_depth_within_tessellation_shell():
    V, F = uv_sphere(1.0, (0, 0, 0), 24, 48)
    r = RaycastScene.from_mesh((V, F), backend="numpy").render(
        Camera.look_at([0.0, 0, -4], [0.0, 0, 0], up=[0.0, -1, 0], fx=12, fy=12, width=10, height=10,
                       dtype=torch.float64))
    # the inscribed polyhedron lies between the sphere and the sphere of radius cos(pi/24): check the radius
    rad = np.linalg.norm(r.points[r.hit], axis=1)
    assert rad.max() <= 1 + 1e-9 and rad.min() >= np.cos(np.pi / 24) - 1e-9


def test_occupancy_and_shadow_semantics():
    scene = RaycastScene.from_mesh(box_mesh([0, 0, 0], [1, 1, 1]), backend="numpy")
    assert scene.occupancy([[0.5, 0.5, 0.5], [1.5, 0.5, 0.5], [0.5, 0.5, -0.1]]).tolist() == [True, False, False]
    # a point under the box is shadowed from a light above it, not from a light to the side
    assert scene.shadow([[0.5, 0.5, -1.0]], [0.5, 0.5, 3.0]).tolist() == [True]
    assert scene.shadow([[0.5, 0.5, -1.0]], [5.0, 0.5, -1.0]).tolist() == [False]
    assert scene.shadow([[0.5, 0.5, -1.0]], [0.0, 0.0, 1.0], directional=True).tolist() == [True]
    # a point on the top face is not shadowed by its own face (epsilon offset)
    assert scene.shadow([[0.5, 0.5, 1.0]], [0.5, 0.5, 3.0]).tolist() == [False]


def test_lidar_ground_ranges_closed_form():
    V = np.array([[-100.0, -100, 0], [100, -100, 0], [100, 100, 0], [-100, 100, 0]])
    s = RaycastScene.from_mesh((V, [[0, 1, 2], [0, 2, 3]]), backend="numpy").lidar(
        [0.0, 0, 2.0], n_beams=3, n_azimuth=8, fov_up=-10, fov_down=-30, max_range=50)
    # a beam at elevation -phi meets the ground plane at range h / sin(phi)
    np.testing.assert_allclose(s.ranges, np.repeat(2 / np.sin(np.deg2rad([10, 20, 30]))[:, None], 8, 1), rtol=1e-10)
    assert len(s.points) == 24 and np.allclose(s.points[:, 2], 0)
    s2 = RaycastScene.from_mesh((V, [[0, 1, 2], [0, 2, 3]]), backend="numpy").lidar(
        [0.0, 0, 2.0], n_beams=1, n_azimuth=4, fov_up=-10, fov_down=-10, max_range=5)
    assert not s2.hit.any() and np.isinf(s2.ranges).all()


def test_multiple_geometry_ids_and_repr():
    s = _scene("numpy")
    r = s.render(_cam(12, 8))
    assert set(np.unique(r.geometry_ids)) <= {-1, 0, 1} and {0, 1} <= set(np.unique(r.geometry_ids))
    assert "2 geometries" in repr(s) and "hit fraction" in repr(r)


@pytest.mark.bad_input("geom.RaycastScene")
@pytest.mark.parametrize("mesh, arg", [
    ((np.zeros((3, 3)), np.zeros((0, 3), int)), "mesh"),
    ((np.zeros((3, 2)), [[0, 1, 2]]), "mesh"),
    ((np.zeros((3, 3)), [[0, 1, 5]]), "mesh"),
    ((np.full((3, 3), np.nan), [[0, 1, 2]]), "mesh"),
    ("bunny", "mesh"),
    ([], "mesh"),
])
def test_from_mesh_bad_input(mesh, arg):
    with pytest.raises(InputError, match=arg):
        RaycastScene.from_mesh(mesh, backend="numpy")


@pytest.mark.bad_input("geom.RaycastScene")
def test_methods_bad_input():
    s = RaycastScene.from_mesh(box_mesh(), backend="numpy")
    with pytest.raises(InputError, match="backend"):
        RaycastScene.from_mesh(box_mesh(), backend="embree")
    with pytest.raises(InputError, match="camera"):
        s.render("cam")
    with pytest.raises(InputError, match="directions"):
        s.cast_rays([[0, 0, 0]], [[0, 0, 0]])
    with pytest.raises(InputError, match="origins"):
        s.cast_rays([[0, 0]], [[0, 0, 1]])
    with pytest.raises(InputError, match="light"):
        s.shadow([[0, 0, 0]], [0, 0])
    with pytest.raises(InputError, match="light"):
        s.shadow([[0, 0, 0]], [0, 0, 0], directional=True)
    with pytest.raises(InputError, match="points"):
        s.shadow([[np.nan, 0, 0]], [0, 0, 1])
    with pytest.raises(InputError, match="n_beams"):
        s.lidar([0, 0, 0], n_beams=0)
    with pytest.raises(InputError, match="fov_down"):
        s.lidar([0, 0, 0], fov_up=-10, fov_down=10)
    with pytest.raises(InputError, match="max_range"):
        s.lidar([0, 0, 0], max_range=-1)
    with pytest.raises(InputError, match="points"):
        s.occupancy([1, 2])
