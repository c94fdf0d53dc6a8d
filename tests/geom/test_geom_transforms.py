"""Transforms and cameras: hypothesis round-trips and group laws."""
import math

import numpy as np
import torch
from hypothesis import given, strategies as st

from iclr26sci.geom import (Camera, quat_multiply, quat_to_rotmat, rot6d_to_rotmat, rotmat_to_quat, rotmat_to_rot6d,
                            se3_exp, se3_log, so3_exp, so3_log)

D = torch.float64
vec3 = st.lists(st.floats(-3, 3, allow_nan=False), min_size=3, max_size=3)
quat = st.lists(st.floats(-1, 1, allow_nan=False), min_size=4, max_size=4).filter(
    lambda q: sum(v * v for v in q) > 1e-3)


@given(quat)
def test_quat_rotmat_round_trip(q):
    q = torch.tensor(q, dtype=D)
    q = q / q.norm()
    R = quat_to_rotmat(q)
    assert torch.allclose(R @ R.T, torch.eye(3, dtype=D), atol=1e-12)
    assert abs(float(torch.linalg.det(R)) - 1) < 1e-12
    q2 = rotmat_to_quat(R)
    assert torch.allclose(q2, q if q[0] >= 0 else -q, atol=1e-10) or (abs(float(q[0])) < 1e-9)
    assert torch.allclose(quat_to_rotmat(q2), R, atol=1e-12)


def test_rotmat_to_quat_near_pi():
    for axis in ([1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [1.0, 1.0, -1.0]):
        a = torch.tensor(axis, dtype=D)
        a = a / a.norm()
        for ang in (math.pi, math.pi - 1e-9, math.pi - 1e-4):
            R = so3_exp(a * ang)
            assert torch.allclose(quat_to_rotmat(rotmat_to_quat(R)), R, atol=1e-12)
            w = so3_log(R)
            assert torch.allclose(so3_exp(w), R, atol=1e-10)


@given(quat, quat)
def test_quat_product_is_rotation_product(a, b):
    a, b = torch.tensor(a, dtype=D), torch.tensor(b, dtype=D)
    assert torch.allclose(quat_to_rotmat(quat_multiply(a, b)), quat_to_rotmat(a) @ quat_to_rotmat(b), atol=1e-12)


@given(vec3)
def test_so3_exp_log_round_trip(w):
    w = torch.tensor(w, dtype=D)
    if float(w.norm()) > math.pi - 1e-3:
        w = w / w.norm() * (math.pi - 1e-3)
    R = so3_exp(w)
    assert torch.allclose(R @ R.T, torch.eye(3, dtype=D), atol=1e-12)
    assert torch.allclose(so3_log(R), w, atol=1e-9)


def test_so3_small_angles_and_gradients():
    for s in (0.0, 1e-12, 1e-8, 1e-5, 1e-3):
        w = torch.tensor([s, -2 * s, 0.5 * s], dtype=D, requires_grad=True)
        R = so3_exp(w)
        assert torch.allclose(so3_log(R), w, atol=1e-15 + 1e-12 * s)
        R.sum().backward()
        assert torch.isfinite(w.grad).all()
    assert torch.autograd.gradcheck(so3_exp, (torch.tensor([1e-5, 2e-5, -1e-5], dtype=D, requires_grad=True),))
    assert torch.autograd.gradcheck(so3_exp, (torch.tensor([0.3, 0.5, -1.0], dtype=D, requires_grad=True),))


@given(vec3, vec3)
def test_se3_round_trip_and_group_law(rho, w):
    w = torch.tensor(w, dtype=D)
    if float(w.norm()) > 3.0:
        w = w / w.norm() * 3.0
    xi = torch.cat([torch.tensor(rho, dtype=D), w])
    T = se3_exp(xi)
    assert torch.allclose(se3_log(T), xi, atol=1e-8)
    # exp(t xi) exp(s xi) = exp((t + s) xi) (one-parameter subgroup)
    assert torch.allclose(se3_exp(0.3 * xi) @ se3_exp(0.7 * xi), T, atol=1e-10)
    assert torch.allclose(se3_exp(-xi) @ T, torch.eye(4, dtype=D), atol=1e-10)


@given(quat)
def test_rot6d_round_trip(q):
    R = quat_to_rotmat(torch.tensor(q, dtype=D))
    assert torch.allclose(rot6d_to_rotmat(rotmat_to_rot6d(R)), R, atol=1e-12)


def test_batched_shapes_and_float32():
    q = torch.randn(5, 7, 4)
    assert quat_to_rotmat(q).shape == (5, 7, 3, 3) and quat_to_rotmat(q).dtype == torch.float32
    assert rotmat_to_quat(quat_to_rotmat(q)).shape == (5, 7, 4)
    assert se3_exp(torch.randn(2, 6)).shape == (2, 4, 4)


@given(vec3, st.floats(0.5, 10))
def test_camera_project_unproject(p, dist):
    cam = Camera.look_at(torch.tensor([0.0, -dist - 4, 1.0], dtype=D), [0.0, 0, 0], fx=120, fy=100, width=64,
                         height=48, cx=30.0, cy=25.0)
    X = torch.tensor([p], dtype=D)
    uv, z = cam.project(X)
    assert torch.allclose(cam.unproject(uv, z), X, atol=1e-9)
    assert torch.allclose(cam.camera_to_world(cam.world_to_camera(X)), X, atol=1e-12)


def test_camera_conventions():
    cam = Camera.look_at(torch.tensor([0.0, -5.0, 0.0], dtype=D), [0.0, 0, 0], up=[0.0, 0, 1], fx=100, fy=100,
                         width=64, height=64)
    # world +z (up) projects above the centre (smaller v), world +x to the right (larger u)
    uv, z = cam.project(torch.tensor([[0.0, 0, 1], [1.0, 0, 0]], dtype=D))
    assert uv[0, 1] < 32 and uv[1, 0] > 32 and (z > 0).all()
    half = cam.scaled(32, 32)
    uv2, _ = half.project(torch.tensor([[0.3, 0.1, 0.2]], dtype=D))
    uv1, _ = cam.project(torch.tensor([[0.3, 0.1, 0.2]], dtype=D))
    assert torch.allclose(uv2, uv1 / 2)
    assert torch.allclose(cam.viewmat[:3, :3] @ cam.centre + cam.t, torch.zeros(3, dtype=D), atol=1e-12)
    rays = cam.pixel_rays()
    assert rays.shape == (64, 64, 3)
    assert np.isclose(float(rays.norm(dim=-1).max()), 1.0)
