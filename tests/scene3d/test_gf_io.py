"""The nuScenes-layout reader: a two-sample scene written by the test in the on-disk layout."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest
from PIL import Image
from scipy.spatial.transform import Rotation

from iclr26sci.core import InputError
from iclr26sci.scene3d import GaussianFusion, driving_scene, read_nuscenes


def _q(rot):                       # scipy (x, y, z, w) -> nuScenes (w, x, y, z)
    x, y, z, w = rot.as_quat()
    return [float(w), float(x), float(y), float(z)]


def _T(rot, t):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = rot.as_matrix(), t
    return T


CAMS = {"CAM_BACK": 180.0, "CAM_FRONT": 0.0}
K = [[40.0, 0, 32.0], [0, 40.0, 24.0], [0, 0, 1]]


def write_nuscenes(root, n_samples=2, version="v1.0-mini"):
    """Two key frames, one LiDAR and two cameras each, ego moving 1 m per frame and turning 10 degrees."""
    rng = np.random.default_rng(0)
    tab = {k: [] for k in ("sample", "sample_data", "calibrated_sensor", "ego_pose", "sensor")}
    truth = []
    sensors = {"LIDAR_TOP": "lidar", **{c: "camera" for c in CAMS}}
    calib = {}
    for ch, mod in sensors.items():
        tab["sensor"].append(dict(token=f"s-{ch}", channel=ch, modality=mod))
        if ch == "LIDAR_TOP":
            rot, t, Kc = Rotation.from_euler("z", 90, degrees=True), [0.9, 0.0, 1.8], []
        else:   # OpenCV camera (x right, y down, z forward) looking along ego yaw CAMS[ch]
            rot = Rotation.from_euler("z", CAMS[ch], degrees=True) * Rotation.from_matrix(
                [[0, 0, 1], [-1, 0, 0], [0, -1, 0]])
            t, Kc = [1.5, 0.0, 1.6], K
        calib[ch] = _T(rot, t)
        tab["calibrated_sensor"].append(dict(token=f"cs-{ch}", sensor_token=f"s-{ch}", translation=list(map(float, t)),
                                             rotation=_q(rot), camera_intrinsic=Kc))
    for i in range(n_samples):
        st = f"sample-{i}"
        tab["sample"].append(dict(token=st, timestamp=1000 * i, scene_token="scene-0",
                                  prev=f"sample-{i - 1}" if i else "", next=f"sample-{i + 1}" if i + 1 < n_samples else ""))
        poses = {}
        for j, ch in enumerate(sensors):
            ts = 1000 * i + 10 * j
            rot = Rotation.from_euler("z", 10 * i + 0.5 * j, degrees=True)
            poses[ch] = _T(rot, [float(i) + 0.05 * j, 0.2 * i, 0.0])
            tab["ego_pose"].append(dict(token=f"ep-{i}-{ch}", translation=poses[ch][:3, 3].tolist(), rotation=_q(rot),
                                        timestamp=ts))
            folder = os.path.join(root, "samples", ch)
            os.makedirs(folder, exist_ok=True)
            if ch == "LIDAR_TOP":
                fn = f"samples/{ch}/n{i}.pcd.bin"
                pts = np.c_[rng.uniform(-10, 10, (50, 3)), rng.uniform(0, 100, 50), rng.integers(0, 32, 50)]
                pts.astype("<f4").tofile(os.path.join(root, fn))
                lidar_xyz = pts[:, :3]
            else:
                fn = f"samples/{ch}/n{i}.jpg"
                Image.fromarray(rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)).save(os.path.join(root, fn))
            tab["sample_data"].append(dict(token=f"sd-{i}-{ch}", sample_token=st, ego_pose_token=f"ep-{i}-{ch}",
                                           calibrated_sensor_token=f"cs-{ch}", timestamp=ts, filename=fn,
                                           fileformat="pcd" if ch == "LIDAR_TOP" else "jpg", is_key_frame=True,
                                           width=0 if ch == "LIDAR_TOP" else 64, height=0 if ch == "LIDAR_TOP" else 48,
                                           prev="", next=""))
        truth.append(dict(points=lidar_xyz, lidar_to_ego=calib["LIDAR_TOP"],
                          cam_to_ego={ch: np.linalg.inv(poses["LIDAR_TOP"]) @ poses[ch] @ calib[ch] for ch in CAMS}))
    os.makedirs(os.path.join(root, version), exist_ok=True)
    for name, rows in tab.items():
        with open(os.path.join(root, version, name + ".json"), "w") as f:
            json.dump(rows, f)
    return truth


@pytest.fixture
def nus(tmp_path):
    truth = write_nuscenes(str(tmp_path))
    return str(tmp_path), truth


def test_reads_two_samples(nus):
    root, truth = nus
    scenes = read_nuscenes(root)
    assert len(scenes) == 2
    for s, t in zip(scenes, truth):
        assert s.meta["cameras"] == ["CAM_BACK", "CAM_FRONT"]
        assert s.images.shape == (2, 48, 64, 3) and 0 <= s.images.min() and s.images.max() <= 1
        np.testing.assert_allclose(s.lidar_points, t["points"], atol=1e-5)
        np.testing.assert_allclose(s.lidar_to_ego, t["lidar_to_ego"], atol=1e-9)
        for c, ch in enumerate(s.meta["cameras"]):
            np.testing.assert_allclose(s.cam_to_ego[c], t["cam_to_ego"][ch], atol=1e-9)
        np.testing.assert_allclose(s.intrinsics[0], K)


def test_ego_motion_is_compensated(nus):
    # the camera extrinsic differs from its static calibration by the ego motion between the exposures
    root, truth = nus
    s = read_nuscenes(root)[1]
    static = np.linalg.inv(s.cam_to_ego[1]) @ truth[1]["cam_to_ego"]["CAM_FRONT"]
    np.testing.assert_allclose(static, np.eye(4), atol=1e-9)


def test_resize_scales_intrinsics_and_model_runs(nus):
    root, _ = nus
    scenes = read_nuscenes(root, image_size=(32, 16), cameras=["CAM_FRONT"], max_samples=1)
    assert len(scenes) == 1 and scenes[0].images.shape == (1, 16, 32, 3)
    np.testing.assert_allclose(scenes[0].intrinsics[0], [[20.0, 0, 16.0], [0, 40.0 / 3, 8.0], [0, 0, 1]])
    data = driving_scene(n_scenes=2, cameras=1, lidar_beams=4, width=32, height=16, lidar_azimuths=64, rng=0,
                         backend="numpy")
    m = GaussianFusion(n_gaussians=32, n_lidar_gaussians=32, bev=8, embed=8, encoder_layers=1, epochs=1,
                       depth_bins=4, rng=0).fit(data.train)
    assert m.predict_occupancy(scenes[0]).shape == (8, 8, 6)


def test_missing_table(nus):
    root, _ = nus
    os.remove(os.path.join(root, "v1.0-mini", "ego_pose.json"))
    with pytest.raises(InputError, match="ego_pose"):
        read_nuscenes(root)


def test_malformed_json(nus):
    root, _ = nus
    with open(os.path.join(root, "v1.0-mini", "sample.json"), "w") as f:
        f.write("[{not json")
    with pytest.raises(InputError, match="malformed"):
        read_nuscenes(root)


def test_truncated_lidar_file(nus):
    root, _ = nus
    p = os.path.join(root, "samples", "LIDAR_TOP", "n0.pcd.bin")
    with open(p, "r+b") as f:
        f.truncate(os.path.getsize(p) - 4)
    with pytest.raises(InputError, match="multiple of 20 bytes"):
        read_nuscenes(root)


def test_corrupt_image(nus):
    root, _ = nus
    with open(os.path.join(root, "samples", "CAM_FRONT", "n0.jpg"), "wb") as f:
        f.write(b"not a jpeg")
    with pytest.raises(InputError, match="unreadable camera image"):
        read_nuscenes(root)


def test_bad_arguments(tmp_path):
    with pytest.raises(InputError):
        read_nuscenes(str(tmp_path / "absent"))
    with pytest.raises(InputError, match="v1.0"):
        read_nuscenes(str(tmp_path))
    write_nuscenes(str(tmp_path))
    with pytest.raises(InputError):
        read_nuscenes(str(tmp_path), image_size=(0, 5))
    with pytest.raises(InputError):
        read_nuscenes(str(tmp_path), cameras="CAM_FRONT")
