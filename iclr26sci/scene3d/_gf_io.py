r"""A small reader of the nuScenes on-disk layout for GaussianFusion (no ``nuscenes-devkit`` needed).

Layout read (the public nuScenes format, version folders such as ``v1.0-mini`` or ``v1.0-trainval``)::

    root/
      v1.0-*/sample.json             [{token, timestamp, scene_token, prev, next}]
      v1.0-*/sample_data.json        [{token, sample_token, calibrated_sensor_token, ego_pose_token, filename,
                                       fileformat, is_key_frame, width, height, timestamp, ...}]
      v1.0-*/calibrated_sensor.json  [{token, sensor_token, translation [x, y, z], rotation [w, x, y, z],
                                       camera_intrinsic [] or 3x3}]
      v1.0-*/ego_pose.json           [{token, translation, rotation, timestamp}]
      v1.0-*/sensor.json             [{token, channel, modality}]   (optional: else the channel is the folder
                                                                     name in ``samples/<CHANNEL>/...``)
      samples/LIDAR_TOP/*.pcd.bin    float32 records x, y, z, intensity, ring (20 bytes per return)
      samples/CAM_*/*.jpg            camera images

Every key frame becomes one :class:`~iclr26sci.scene3d.FusionScene` in the ego frame of its LiDAR sweep:
LiDAR returns in the LiDAR frame with ``lidar_to_ego`` from its calibration, and for each camera
``cam_to_ego = inv(E_lidar) E_cam C_cam``, with ``E`` the ego poses (ego -> global) at the two timestamps and ``C``
the camera's calibration (camera -> ego), so the ego motion between the two exposures is compensated.
Depths, pixel and point labels are unknown on real data and set to 0; ``objects`` is empty.
"""
from __future__ import annotations

import json
import os

import numpy as np

from iclr26sci.core import InputError

_TABLES = ("sample", "sample_data", "calibrated_sensor", "ego_pose")


def quat_to_matrix(q):
    """Rotation matrix of a unit quaternion (w, x, y, z) (nuScenes / pyquaternion order)."""
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _rigid(rec, where):
    try:
        t = np.asarray(rec["translation"], float)
        q = np.asarray(rec["rotation"], float)
    except (KeyError, TypeError, ValueError):
        raise InputError(where, "lacks a numeric 'translation' or 'rotation'",
                         "translation [x, y, z] and rotation [w, x, y, z]") from None
    if t.shape != (3,) or q.shape != (4,) or not np.all(np.isfinite(t)) or not np.all(np.isfinite(q)) \
            or not np.linalg.norm(q) > 1e-8:
        raise InputError(where, f"has translation {t.tolist()} / rotation {q.tolist()}",
                         "a finite 3-vector and a non-zero quaternion (w, x, y, z)")
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = quat_to_matrix(q), t
    return T


def _load_table(folder, name, required=True):
    path = os.path.join(folder, name + ".json")
    if not os.path.isfile(path):
        if not required:
            return None
        raise InputError("root", f"has no table {name}.json in {folder}",
                         f"the nuScenes tables {', '.join(t + '.json' for t in _TABLES)}")
    try:
        with open(path, encoding="utf-8") as f:
            rows = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError("root", f"has a malformed {name}.json ({e})", "a JSON list of records") from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "token" in r for r in rows):
        raise InputError("root", f"has a {name}.json that is not a list of records with a 'token'",
                         "a JSON list of objects, each with a 'token'")
    return {r["token"]: r for r in rows}


def read_lidar_bin(path, n_fields=5):
    """Returns (n, 3) float32 x, y, z of a nuScenes ``.pcd.bin`` (float32 records of ``n_fields`` values)."""
    try:
        raw = np.fromfile(path, dtype="<f4")
    except OSError as e:
        raise InputError("root", f"cannot read the LiDAR file {path} ({e})", "a readable .pcd.bin file") from None
    if raw.size == 0 or raw.size % n_fields:
        raise InputError("root", f"has a LiDAR file {path} of {raw.size * 4} bytes",
                         f"float32 records of {n_fields} values (x, y, z, intensity, ring): a multiple of "
                         f"{4 * n_fields} bytes")
    pts = raw.reshape(-1, n_fields)[:, :3]
    return pts[np.all(np.isfinite(pts), 1)].astype(np.float32)


def _read_image(path, size):
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            im = im.convert("RGB")
            W0, H0 = im.size
            if size is not None:
                im = im.resize(size, Image.BILINEAR)
            return np.asarray(im, np.float32) / 255.0, (W0, H0)
    except (OSError, UnidentifiedImageError) as e:
        raise InputError("root", f"has an unreadable camera image {path} ({type(e).__name__})",
                         "a readable JPEG/PNG image") from None


def read_nuscenes(root, version=None, *, cameras=None, image_size=None, classes=("car", "pole", "pedestrian", "road"),
                  max_samples=None):
    """Key frames of a nuScenes-layout dataset as :class:`FusionScene` objects (see the module docstring)."""
    from ._gf_data import FusionScene

    if not isinstance(root, (str, os.PathLike)) or not os.path.isdir(root):
        raise InputError("root", f"got {root!r}", "an existing nuScenes data folder (holding v1.0-*/ and samples/)")
    root = os.fspath(root)
    if version is None:
        cands = sorted(d for d in os.listdir(root) if d.startswith("v1.0-") and os.path.isdir(os.path.join(root, d)))
        if len(cands) != 1:
            raise InputError("version", f"is None and {root} holds {cands or 'no'} v1.0-* folders",
                             "the name of exactly one table folder, e.g. 'v1.0-mini'")
        version = cands[0]
    if not isinstance(version, str) or not os.path.isdir(os.path.join(root, version)):
        raise InputError("version", f"got {version!r}", f"a table folder inside {root}, e.g. 'v1.0-mini'")
    if image_size is not None:
        ok = isinstance(image_size, (tuple, list)) and len(image_size) == 2 and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 4 for v in image_size)
        if not ok:
            raise InputError("image_size", f"got {image_size!r}", "None or (width, height), integers >= 4")
        image_size = (int(image_size[0]), int(image_size[1]))
    if max_samples is not None and (isinstance(max_samples, bool) or not isinstance(max_samples, (int, np.integer))
                                    or max_samples < 1):
        raise InputError("max_samples", f"got {max_samples!r}", "None or an integer >= 1")
    if cameras is not None and (isinstance(cameras, str) or not all(isinstance(c, str) for c in cameras)
                                or len(cameras) == 0):
        raise InputError("cameras", f"got {cameras!r}", "None (all cameras) or a list of channel names, e.g. "
                         "['CAM_FRONT', 'CAM_BACK']")
    folder = os.path.join(root, version)
    samples, sdata, calib, poses = (_load_table(folder, t) for t in _TABLES)
    sensors = _load_table(folder, "sensor", required=False)

    def channel(sd):
        cs = calib.get(sd.get("calibrated_sensor_token"))
        if cs is None:
            raise InputError("root", f"sample_data {sd['token']} refers to a missing calibrated_sensor",
                             "consistent tokens across the tables")
        if sensors is not None and cs.get("sensor_token") in sensors:
            return sensors[cs["sensor_token"]].get("channel", "")
        parts = str(sd.get("filename", "")).replace("\\", "/").split("/")
        return parts[1] if len(parts) >= 3 else ""

    by_sample = {}
    for sd in sdata.values():
        if not sd.get("is_key_frame", True) or sd.get("sample_token") not in samples:
            continue
        by_sample.setdefault(sd["sample_token"], []).append(sd)
    order = sorted(samples.values(), key=lambda r: (str(r.get("scene_token", "")), r.get("timestamp", 0)))
    scenes = []
    for smp in order:
        recs = by_sample.get(smp["token"], [])
        lid = [r for r in recs if channel(r).startswith("LIDAR")]
        cams = sorted((r for r in recs if channel(r).startswith("CAM")), key=channel)
        if cameras is not None:
            cams = [r for r in cams if channel(r) in cameras]
        if not lid or not cams:
            continue
        L = lid[0]

        def pose(sd):
            p = poses.get(sd.get("ego_pose_token"))
            if p is None:
                raise InputError("root", f"sample_data {sd['token']} refers to a missing ego_pose",
                                 "consistent tokens across the tables")
            return _rigid(p, f"ego_pose {p['token']}")

        E_l = pose(L)
        L2E = _rigid(calib[L["calibrated_sensor_token"]], f"calibrated_sensor {L['calibrated_sensor_token']}")
        pts = read_lidar_bin(os.path.join(root, L["filename"]))
        imgs, Ks, Ts = [], [], []
        for c in cams:
            cs = calib[c["calibrated_sensor_token"]]
            K = np.asarray(cs.get("camera_intrinsic", []), float)
            if K.shape != (3, 3) or not np.all(np.isfinite(K)) or K[0, 0] <= 0 or K[1, 1] <= 0:
                raise InputError("root", f"calibrated_sensor {cs['token']} has camera_intrinsic {K.tolist()}",
                                 "a 3x3 pinhole matrix with fx, fy > 0")
            img, (W0, H0) = _read_image(os.path.join(root, c["filename"]), image_size)
            if image_size is not None:
                K = np.diag([image_size[0] / W0, image_size[1] / H0, 1.0]) @ K
            imgs.append(img)
            Ks.append(K)
            Ts.append(np.linalg.inv(E_l) @ pose(c) @ _rigid(cs, f"calibrated_sensor {cs['token']}"))
        shapes = {im.shape for im in imgs}
        if len(shapes) > 1:
            raise InputError("image_size", f"is None and the cameras have different sizes {sorted(shapes)}",
                             "an (width, height) to resize every camera to")
        n, (H, W) = len(imgs), imgs[0].shape[:2]
        T = np.stack(Ts)
        scenes.append(FusionScene(
            images=np.stack(imgs), depths=np.zeros((n, H, W), np.float32), pixel_classes=np.zeros((n, H, W), np.int64),
            intrinsics=np.stack(Ks), cam_to_ego=T, lidar_points=pts, lidar_classes=np.zeros(len(pts), np.int64),
            lidar_to_ego=L2E, objects=[], classes=tuple(classes), lidar_to_cam=np.linalg.inv(T) @ L2E,
            meta=dict(sample_token=smp["token"], timestamp=smp.get("timestamp"), cameras=[channel(c) for c in cams],
                      lidar_file=L["filename"], version=version)))
        if max_samples is not None and len(scenes) >= max_samples:
            break
    if not scenes:
        raise InputError("root", f"has no key frame with a LiDAR sweep and a camera image in {folder}",
                         "samples whose sample_data include LIDAR_* and CAM_* key frames")
    return scenes
