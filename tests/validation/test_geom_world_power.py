"""Power of the geom_world validation checks: each fails a deliberately broken variant of what it tests.

A check that cannot fail is a defect (DEVELOPERS.md). Each test swaps one component for a plausible bug and
asserts that the check's verdict flips to FAIL (the healthy verdicts are in the validation report, for master
seeds 0-4 at 1 and 2 threads).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import validation.geom_world as VG
from iclr26sci.geom import _body, _raycast
from validation.registry import Profile

QUICK = Profile("quick")


def _rng(seed=0):
    return np.random.default_rng(np.random.SeedSequence([seed, 2121]))


def _failed(res):
    shown = [f"{c.name} = {c.statistic:.4g} ({'PASS' if c.passed else 'FAIL'})" for c in res.criteria]
    print("broken variant:", "; ".join(shown))
    return not res.passed


def test_sphere_check_fails_when_ray_distance_is_returned_as_depth(monkeypatch):
    orig = _raycast.RaycastScene.render

    def broken(self, camera):
        r = orig(self, camera)
        r.depth = r.distance.copy()
        return r

    monkeypatch.setattr(_raycast.RaycastScene, "render", broken)
    res = VG.raycast_sphere_closed_form(QUICK, _rng())
    assert _failed(res) and not res.criteria[1].passed


def test_sphere_check_fails_with_inward_normals(monkeypatch):
    orig = _raycast._face_normals
    monkeypatch.setattr(_raycast, "_face_normals", lambda V, F: -orig(V, F))
    res = VG.raycast_sphere_closed_form(QUICK, _rng())
    assert _failed(res) and not res.criteria[2].passed and res.criteria[2].statistic > 3.0


def test_sphere_check_fails_without_the_pixel_centre_offset(monkeypatch):
    def broken_rays(camera):
        K, R, t, W, H = _raycast._camera_arrays(camera)
        u, v = np.meshgrid(np.arange(W) + 0.0, np.arange(H) + 0.0)   # pixel corners instead of centres
        d = np.stack([u, v, np.ones_like(u)], -1) @ np.linalg.inv(K).T @ R
        return np.broadcast_to(-R.T @ t, d.shape).copy(), d

    monkeypatch.setattr(_raycast.RaycastScene, "camera_rays", staticmethod(broken_rays))
    res = VG.raycast_sphere_closed_form(QUICK, _rng())
    assert _failed(res)


def test_box_check_fails_when_occupancy_counts_any_crossing(monkeypatch):
    monkeypatch.setattr(_raycast, "_open3d_available", lambda: False)     # numpy backend
    orig = _raycast._moller_trumbore

    def broken(V, F, o, d, tnear=0.0, tfar=np.inf, *, mode="closest", chunk=2_000_000):
        out = orig(V, F, o, d, tnear, tfar, mode=mode, chunk=chunk)
        return np.minimum(out, 1) if mode == "count" else out                # "crossed once or more" = inside

    monkeypatch.setattr(_raycast, "_moller_trumbore", broken)
    res = VG.raycast_box_closed_form(QUICK, _rng())
    assert _failed(res) and res.criteria[3].statistic > 0


def test_box_check_fails_with_a_flipped_lidar_elevation(monkeypatch):
    orig = _raycast.RaycastScene.lidar

    def broken(self, origin, n_beams=16, n_azimuth=360, fov_up=15.0, fov_down=-15.0, max_range=100.0):
        s = orig(self, origin, n_beams, n_azimuth, -fov_down, -fov_up, max_range)
        s.elevation_deg = s.elevation_deg[::-1] * -1                          # reports the elevations it was asked for
        return s

    monkeypatch.setattr(_raycast.RaycastScene, "lidar", broken)
    res = VG.raycast_box_closed_form(QUICK, _rng())
    assert _failed(res) and not res.criteria[5].passed


def test_body_check_fails_when_rotations_compose_in_the_wrong_order(monkeypatch):
    monkeypatch.setattr(_body, "so3_exp", lambda w: _raycast_free_transpose(w))
    res = VG.body_kinematics_and_shape(QUICK, _rng())
    assert _failed(res) and res.criteria[0].statistic > 1e-3


def _raycast_free_transpose(w):
    from iclr26sci.geom import so3_exp

    return so3_exp(w).transpose(-1, -2)       # the inverse rotation: R_p^T instead of R_p


def test_body_check_fails_when_shape_rotates_bones(monkeypatch):
    orig = _body.BodyModel.bone_offsets

    def broken(self, shape):
        off = orig(self, shape)
        shape = torch.as_tensor(shape, dtype=off.dtype).reshape(-1, 4)
        return off + 0.01 * shape[:, 1, None, None] * torch.tensor([0.0, 0.0, 1.0], dtype=off.dtype)

    monkeypatch.setattr(_body.BodyModel, "bone_offsets", broken)
    res = VG.body_kinematics_and_shape(QUICK, _rng())
    assert _failed(res) and res.criteria[4].statistic > 1e-3


@pytest.mark.slow
def test_castle_fit_fails_with_camera_to_world_poses(monkeypatch):
    from data_adapters import _geom3d

    orig = _geom3d.MultiViewSet.camera

    def broken(self, i):
        cam = orig(self, i)
        # the inverse (camera-to-world) pose used as world-to-camera: R^T and the camera centre -R^T t.
        # (A rotation-only transpose is NOT caught: the 40 views are a smooth tracking sequence with small
        # relative rotations, so a consistently transposed rotation still fits the held-out views: +6.25 dB.)
        return type(cam)(R=cam.R.T.contiguous(), t=-(cam.R.T @ cam.t), fx=cam.fx, fy=cam.fy, cx=cam.cx, cy=cam.cy,
                         width=cam.width, height=cam.height)

    monkeypatch.setattr(_geom3d.MultiViewSet, "camera", broken)
    res = VG.castle_multiview_gaussian_fit(QUICK, _rng())
    assert _failed(res) and not res.criteria[0].passed


@pytest.mark.slow
def test_castle_fit_fails_when_intrinsics_are_not_downsampled(monkeypatch):
    from data_adapters import _geom3d

    orig = _geom3d.load_castle_simu

    def broken(views=None, downsample=1):
        mv = orig(views, downsample)
        mv.K = mv.K.copy()
        mv.K[:2] *= downsample                                     # full-resolution K on downsampled images
        return mv

    monkeypatch.setattr(_geom3d, "load_castle_simu", broken)
    res = VG.castle_multiview_gaussian_fit(QUICK, _rng())
    assert _failed(res) and not res.criteria[0].passed
