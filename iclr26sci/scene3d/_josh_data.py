"""JOSH data: real DeepMimic motion retargeted onto the stand-in body, a ray-cast room, a handheld camera, and
"MASt3R-like" / "HMR-like" observations with exact ground truth.

Everything here is private to :mod:`iclr26sci.scene3d.josh`, which documents the public names.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from iclr26sci.core import InputError, as_generator

#: DeepMimic body index -> stand-in (SMPL-topology) joint index, for the bone-direction retargeting
_DM_BONES = (  # (DeepMimic parent, DeepMimic child, stand-in parent, stand-in child)
    ("right_hip", "right_knee", 2, 5), ("right_knee", "right_ankle", 5, 8),
    ("left_hip", "left_knee", 1, 4), ("left_knee", "left_ankle", 4, 7),
    ("right_shoulder", "right_elbow", 17, 19), ("right_elbow", "right_wrist", 19, 21),
    ("left_shoulder", "left_elbow", 16, 18), ("left_elbow", "left_wrist", 18, 20),
    ("root", "chest", 0, 9), ("chest", "neck", 9, 12),
    ("right_hip", "left_hip", 2, 1), ("right_shoulder", "left_shoulder", 17, 16),
)
#: y-up DeepMimic (facing +x, right = +z) -> stand-in frame (facing +z, left = +x): (x, y, z) -> (-z, y, x)
_DM_TO_BODY = np.array([[0.0, 0, -1], [0, 1, 0], [1, 0, 0]])
MOTIONS = ("walk", "procedural")
SCENES = ("room", "plane")
CAMERAS = ("handheld", "static")


def _pos_int(v, name, lo=1):
    if isinstance(v, bool) or not isinstance(v, Integral) or int(v) < lo:
        raise InputError(name, f"got {v!r}", f"an integer >= {lo}")
    return int(v)


def _pos_real(v, name, lo=0.0, hi=math.inf, *, lo_open=True):
    if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(float(v)) \
            or not ((float(v) > lo) if lo_open else (float(v) >= lo)) or not float(v) < hi:
        raise InputError(name, f"got {v!r}", f"a finite number in {'(' if lo_open else '['}{lo}, {hi})")
    return float(v)


# ---------------------------------------------------------------------------------------------- motion
def _deepmimic_fk(clip):
    from iclr26sci.geom import deepmimic_forward_kinematics

    return deepmimic_forward_kinematics(clip)


@functools.lru_cache(maxsize=4)
def _retarget(clip: str):
    """Cached (memory, then ``cache_dir()/josh``) result of :func:`_fit_retarget`."""
    path = None
    try:
        from iclr26sci.nn import cache_dir

        path = cache_dir() / "josh" / f"retarget_{clip}_v1.npz"
        if path.exists():
            z = np.load(path)
            return z["pose"], z["root"], z["times"], float(z["leg"])
    except Exception:  # pragma: no cover - an unwritable cache only costs the re-fit
        path = None
    out = _fit_retarget(clip)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(path, pose=out[0], root=out[1], times=out[2], leg=out[3])
        except OSError:  # pragma: no cover
            pass
    return out


def _fit_retarget(clip: str):
    """Stand-in body poses reproducing a DeepMimic clip's bone directions (shape-independent).

    Returns (pose (T, 72), root trajectory (T, 3) in the body frame in DeepMimic metres, times (T,),
    DeepMimic leg length). Poses are fitted by Adam on
    ``sum_bones |unit(J_c - J_p) - unit(D_c - D_p)|^2 + sum_feet |unit(J_foot - J_ankle) - R_ankle f0|^2
    + 1e-3 |theta_{1:}|^2`` (bone directions do not depend on the body's shape, so one fit serves every shape).
    """
    import torch

    from iclr26sci.geom import BodyModel

    m = _deepmimic_fk(clip)
    P = m.positions @ _DM_TO_BODY.T                                    # (T, 15, 3) in the body frame
    Rw = np.einsum("ab,tnbc,cd->tnad", _DM_TO_BODY, m.rotations, _DM_TO_BODY.T)
    idx = {b: i for i, b in enumerate(m.bodies)}
    T = P.shape[0]
    body = BodyModel("standin", dtype=torch.float64)
    off = body.bone_offsets(torch.zeros(1, 4))[0].numpy()
    targets, pairs = [], []
    for a, b, p, c in _DM_BONES:
        d = P[:, idx[b]] - P[:, idx[a]]
        targets.append(d / np.linalg.norm(d, axis=-1, keepdims=True))
        pairs.append((p, c))
    for ank, (p, c) in (("left_ankle", (7, 10)), ("right_ankle", (8, 11))):
        f0 = off[c] / np.linalg.norm(off[c])                          # rest foot direction (body frame = DM rest)
        targets.append(np.einsum("tab,b->ta", Rw[:, idx[ank]], f0))
        pairs.append((p, c))
    tgt = torch.as_tensor(np.stack(targets, 1))
    pa = torch.as_tensor([p for p, _ in pairs])
    ch = torch.as_tensor([c for _, c in pairs])
    pose0 = torch.zeros(T, 24, 3, dtype=torch.float64)
    pose0[:, 16, 2], pose0[:, 17, 2] = -1.2, 1.2                       # arms down from the T-pose
    from ._josh_opt import FastBody

    fast = FastBody(body, vertex_ids=[0])
    zero_shape, zero_t = torch.zeros(4, dtype=torch.float64), torch.zeros(T, 3, dtype=torch.float64)
    pose = pose0.clone().requires_grad_(True)
    opt = torch.optim.Adam([pose], lr=0.05)
    n_it = 250
    for it in range(n_it):
        for g in opt.param_groups:
            g["lr"] = 0.05 * (0.5 * (1 + math.cos(math.pi * it / n_it))) + 1e-3
        opt.zero_grad()
        J = fast(pose, zero_shape, zero_t)[0]
        d = J[:, ch] - J[:, pa]
        d = d / d.norm(dim=-1, keepdim=True)
        loss = ((d - tgt) ** 2).sum() + 1e-3 * (pose[:, 1:] ** 2).sum()
        loss.backward()
        opt.step()
    legs = [np.linalg.norm(P[:, idx[s + "_hip"]] - P[:, idx[s + "_knee"]], axis=-1).mean()
            + np.linalg.norm(P[:, idx[s + "_knee"]] - P[:, idx[s + "_ankle"]], axis=-1).mean() for s in ("left", "right")]
    return pose.detach().reshape(T, 72).numpy(), P[:, idx["root"]].copy(), np.asarray(m.times), float(np.mean(legs))


def _procedural_walk(n, fps, rng):
    """Sinusoidal gait (spec 4.6): hips +/-25 deg, knees up to 40 deg in swing, arms +/-15 deg; 1.1-1.4 m/s."""
    t = np.arange(n) / fps
    freq, speed, ph0 = rng.uniform(0.85, 1.0), rng.uniform(1.1, 1.4), rng.uniform(0, 2 * np.pi)
    ph = 2 * np.pi * freq * t + ph0
    pose = np.zeros((n, 24, 3))
    hip = np.deg2rad(25) * np.sin(ph)
    pose[:, 1, 0], pose[:, 2, 0] = -hip, hip
    pose[:, 4, 0] = np.deg2rad(40) * np.clip(np.sin(ph + np.pi / 2), 0, None)
    pose[:, 5, 0] = np.deg2rad(40) * np.clip(np.sin(ph - np.pi / 2), 0, None)
    pose[:, 16, 2], pose[:, 17, 2] = -1.2, 1.2
    pose[:, 16, 0], pose[:, 17, 0] = np.deg2rad(15) * np.sin(ph), -np.deg2rad(15) * np.sin(ph)
    root = np.zeros((n, 3))
    root[:, 2] = speed * t
    return pose.reshape(n, 72), root


def _motion(motion, n, fps, ratio, rng):
    """(pose (n, 72), horizontal root (n, 3)) at ``fps``; DeepMimic clips are looped with the cycle's advance."""
    if motion == "procedural":
        return _procedural_walk(n, fps, rng)
    pose_c, root_c, times, leg = _retarget(motion)
    period = float(times[-1])                      # DeepMimic cycles: last frame = first pose, shifted by the advance
    adv = root_c[-1] - root_c[0]
    t0 = rng.uniform(0, period)
    tt = t0 + np.arange(n) / fps
    cyc, local = np.floor(tt / period), np.mod(tt, period)
    k = np.clip(np.searchsorted(times, local, side="right") - 1, 0, len(times) - 2)
    a = ((local - times[k]) / (times[k + 1] - times[k]))[:, None]
    pose = (1 - a) * pose_c[k] + a * pose_c[k + 1]  # axis-angle interpolation between 33 ms frames
    root = (1 - a) * root_c[k] + a * root_c[k + 1] + cyc[:, None] * adv
    root = (root - root[0]) * (ratio / leg)
    root[:, 1] = 0.0
    return pose, root


# ---------------------------------------------------------------------------------------------- scene
def _box(lo, hi):
    from iclr26sci.geom import box_mesh

    return box_mesh(lo, hi)


def _room_boxes(scene, path_end):
    z1 = max(6.0, path_end + 4.0)
    floor = ((-4.0, -0.3, -5.0), (4.0, 0.0, z1))
    if scene == "plane":
        return [floor]
    h = 2.8
    return [floor,
            ((-4.2, 0.0, -5.0), (-4.0, h, z1)), ((4.0, 0.0, -5.0), (4.2, h, z1)),   # side walls
            ((-4.2, 0.0, -5.2), (4.2, h, -5.0)), ((-4.2, 0.0, z1), (4.2, h, z1 + 0.2)),  # end walls
            ((1.6, 0.0, -1.2), (2.6, 0.75, -0.2)),       # table
            ((-3.2, 0.0, 0.5), (-2.5, 1.8, 2.2)),        # cabinet
            ((-1.8, 0.0, 2.8), (-0.9, 0.45, 3.4)),       # bench
            ((2.2, 0.0, 3.0), (3.0, 1.1, 3.6))]          # box


def _box_distance(points, boxes):
    """Distance from points (..., 3) to the union of axis-aligned boxes (0 inside)."""
    d = np.full(points.shape[:-1], np.inf)
    for lo, hi in boxes:
        lo, hi = np.asarray(lo), np.asarray(hi)
        q = np.maximum(np.maximum(lo - points, points - hi), 0.0)
        d = np.minimum(d, np.linalg.norm(q, axis=-1))
    return d


def _stance(P, fps, dist=None, height=0.02, speed=0.3):
    """Contact labels (T, n): within ``height`` of the scene (floor height if ``dist`` is None) and moving
    horizontally slower than ``speed`` m/s (central differences) -- a swing foot skimming the floor is not in contact."""
    d = P[..., 1] if dist is None else dist
    v = np.zeros(P.shape[:2])
    if len(P) > 1:
        g = np.gradient(P[..., [0, 2]], axis=0) * fps
        v = np.linalg.norm(g, axis=-1)
    return (d <= height) & (v <= speed)


def _smooth_noise(rng, n, dims, amp, n_waves=3):
    """Sum of random low-frequency sinusoids: a handheld camera's drift (amplitude ``amp`` per dim)."""
    t = np.linspace(0, 1, n)[:, None]
    out = np.zeros((n, dims))
    for _ in range(n_waves):
        f = rng.uniform(0.3, 1.5, size=dims)
        out += amp / n_waves * np.sin(2 * np.pi * f * t + rng.uniform(0, 2 * np.pi, size=dims))
    return out


# ---------------------------------------------------------------------------------------------- containers
@dataclass
class Matches:
    """Pairwise 2-D correspondences between keyframes ``i`` and ``j`` (MASt3R-style), with their depths."""

    i: int
    j: int
    pix_i: np.ndarray
    pix_j: np.ndarray
    depth_i: np.ndarray
    depth_j: np.ndarray
    conf: np.ndarray

    def __repr__(self):
        return f"Matches({self.i}->{self.j}, {len(self.conf)} pairs)"


@dataclass
class GroundTruth:
    """Exact ground truth at the keyframes (world frame: y up, floor at y = 0; metres)."""

    joints: np.ndarray
    contact_points: np.ndarray
    contact: np.ndarray
    cam2w: np.ndarray
    focal: float
    depth_scale: np.ndarray
    pose: np.ndarray
    shape: np.ndarray
    translation: np.ndarray
    boxes: list
    fps: float
    keyframes: np.ndarray

    def __repr__(self):
        return f"JOSHGroundTruth({len(self.keyframes)} keyframes, focal={self.focal:g})"

    def to_dict(self):
        return {"joints": self.joints, "cam2w": self.cam2w, "focal": self.focal, "depth_scale": self.depth_scale,
                "keyframes": self.keyframes, "fps": self.fps}

    def summary(self):
        return (f"ground truth: {len(self.keyframes)} keyframes at {self.fps:g} fps, focal {self.focal:g} px, "
                f"depth-scale {np.exp(np.log(self.depth_scale).mean()):.3g}")


def _make_video(motion, scene, frames, camera, keyframe_every, width, height, focal, scene_scale, fps, backend, rng):
    import torch

    from iclr26sci.geom import BodyModel, Camera, RaycastScene

    body = BodyModel("standin", dtype=torch.float64)
    shape = np.clip(rng.normal(0, 0.7, size=4), -2, 2)
    legs = float(body.bone_offsets(torch.as_tensor(shape)[None])[0, [4, 7]].norm(dim=-1).sum())
    pose, root = _motion(motion, frames, fps, legs, rng)
    heading = rng.uniform(-0.4, 0.4)                             # walking direction about +z
    Rh = np.array([[math.cos(heading), 0, math.sin(heading)], [0, 1, 0], [-math.sin(heading), 0, math.cos(heading)]])
    root = root @ Rh.T
    pose = pose.copy()
    # global orientation: the clip's root rotation, turned by the heading
    from iclr26sci.geom import so3_exp, so3_log

    R0 = so3_exp(torch.as_tensor(pose[:, :3]))
    pose[:, :3] = so3_log(torch.as_tensor(Rh)[None] @ R0).numpy()
    with torch.no_grad():
        out = body(torch.as_tensor(pose), torch.as_tensor(shape)[None].expand(frames, 4))
    V = out.vertices.numpy()
    trans = root.copy()
    trans[:, 1] = -V[:, :, 1].min(1)                              # the lowest vertex touches the floor (y = 0)
    # foot locking: the root's horizontal motion is corrected so that stance sole vertices (on the floor and slow)
    # in two consecutive frames do not slide (the retargeted clip's bone lengths differ from the capture's)
    cv = body.contact_vertices
    step = np.diff(root, axis=0)
    stance = _stance(V[:, cv] + trans[:, None], fps)
    for k in range(1, frames):
        both = stance[k] & stance[k - 1]
        if both.any():
            slide = (V[k, cv[both]] - V[k - 1, cv[both]]).mean(0)   # body-frame motion of the planted vertices
            step[k - 1, [0, 2]] = -slide[[0, 2]]
    trans[1:, [0, 2]] = trans[0, [0, 2]] + np.cumsum(step[:, [0, 2]], axis=0)
    V, J = V + trans[:, None], out.joints.numpy() + trans[:, None]
    boxes = _room_boxes(scene, float(np.abs(trans[:, 2]).max()))
    meshes = [_box(lo, hi) for lo, hi in boxes]
    keys = np.arange(0, frames, keyframe_every)
    # camera: ahead of the walker and to one side, 3-4 m away, with smooth handheld drift; redrawn (up to 50
    # times) until every keyframe's eye is inside the room, 0.3 m clear of the furniture, and sees the walker
    z1 = boxes[0][1][2]
    cams = None
    for attempt in range(50):
        dist, height_cam = rng.uniform(3.0, 4.0), rng.uniform(0.3, 0.8)
        az0 = heading + rng.choice([-1, 1]) * rng.uniform(0.35, 0.8)
        # the operator pans to follow the walker and walks along at a fraction of the walker's pace
        centre = J[0, 0] + rng.uniform(0.3, 0.6) * (J[:, 0] - J[0, 0])
        n = frames
        if camera == "handheld":
            drift = _smooth_noise(rng, n, 3, 0.12)
            look = _smooth_noise(rng, n, 3, 0.08)
            az = az0 + np.linspace(0, rng.uniform(-0.25, 0.25), n) + _smooth_noise(rng, n, 1, 0.05)[:, 0]
        else:
            drift, look, az = np.zeros((n, 3)), np.zeros((n, 3)), np.full(n, az0)
            centre[:] = centre[0]
        eyes = np.stack([centre[k] + np.array([dist * math.sin(az[k]), height_cam, dist * math.cos(az[k])]) + drift[k]
                         for k in keys])
        inside = (np.abs(eyes[:, 0]) < 3.7) & (eyes[:, 2] > -4.7) & (eyes[:, 2] < z1 - 0.3)
        clear = _box_distance(eyes, boxes[1:]) > 0.3 if len(boxes) > 1 else np.ones(len(eyes), bool)
        if not (inside & clear).all():
            continue
        cams, depth, mask, hits = [], [], [], []
        for e, k in zip(eyes, keys):
            cam = Camera.look_at(e.tolist(), (J[k, 0] + look[k] + [0, -0.2, 0]).tolist(), up=[0.0, 1.0, 0.0],
                                 fx=focal, fy=focal, width=width, height=height, dtype=torch.float64)
            r = RaycastScene.from_mesh(meshes + [(V[k], body.faces)], backend=backend).render(cam)
            cams.append(cam)
            depth.append(np.where(r.hit, r.depth, 0.0))
            mask.append(r.geometry_ids == len(meshes))
            hits.append(r.hit)
        if all(m.any() for m in mask) and all((h & ~m).mean() > 0.5 for h, m in zip(hits, mask)):
            break
        cams = None
    if cams is None:  # pragma: no cover - not seen with the default room
        raise RuntimeError("human_scene_video: no camera path that sees the walker; try another rng")
    cv = body.contact_vertices
    stance = _stance(V[:, cv], fps, dist=_box_distance(V[:, cv], boxes))
    contact = stance[keys]
    log_jitter = rng.normal(0, 0.02, size=len(keys))
    depth_scale = scene_scale * np.exp(log_jitter - log_jitter.mean())
    cam2w = np.stack([np.linalg.inv(_w2c(c)) for c in cams])
    gt = GroundTruth(joints=J[keys], contact_points=V[keys][:, cv], contact=contact, cam2w=cam2w, focal=float(focal),
                     depth_scale=depth_scale, pose=pose[keys], shape=shape, translation=trans[keys], boxes=boxes,
                     fps=float(fps), keyframes=keys)
    return dict(gt=gt, cams=cams, depth=np.stack(depth), mask=np.stack(mask), hit=np.stack(hits), vertices=V[keys],
                body=body, all_joints=J, all_cams_frames=keys)


def _w2c(cam):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = cam.R.detach().cpu().numpy(), cam.t.detach().cpu().numpy()
    return T


def _observations(video, noise, rng, n_matches, window, outlier_rate, hmr_focal):
    """Per-keyframe inputs from the rendered truth; ``noise`` in {"none", "realistic"}."""
    noisy = noise == "realistic"
    gt = video.ground_truth
    depth_true, mask, hit = video._depth, video._mask, video._hit
    K, H, W = depth_true.shape
    f, cx, cy = gt.focal, W / 2.0, H / 2.0
    u = gt.depth_scale
    depth = depth_true * u[:, None, None]
    if noisy:
        depth = depth * (1 + 0.01 * rng.standard_normal(depth.shape))
    conf = np.where(hit, 1.0, 0.0)
    # pairwise matches: ground-truth reprojection of random background pixels
    uu, vv = np.meshgrid(np.arange(W) + 0.5, np.arange(H) + 0.5)
    w2c = np.stack([np.linalg.inv(T) for T in gt.cam2w])
    matches = []
    for a in range(K):
        valid = hit[a] & ~mask[a]
        cand = np.flatnonzero(valid.ravel())
        for b in range(a + 1, min(K, a + window + 1)):
            if len(cand) == 0:
                continue
            sel = rng.choice(cand, size=min(len(cand), 3 * n_matches), replace=False)
            za = depth_true[a].ravel()[sel]
            pa = np.stack([uu.ravel()[sel], vv.ravel()[sel]], 1)
            Xc = np.stack([(pa[:, 0] - cx) / f * za, (pa[:, 1] - cy) / f * za, za], 1)
            Xw = Xc @ gt.cam2w[a][:3, :3].T + gt.cam2w[a][:3, 3]
            Xb = Xw @ w2c[b][:3, :3].T + w2c[b][:3, 3]
            zb = Xb[:, 2]
            with np.errstate(divide="ignore", invalid="ignore"):
                pb = np.stack([f * Xb[:, 0] / zb + cx, f * Xb[:, 1] / zb + cy], 1)
            ok = (zb > 1e-3) & (pb[:, 0] >= 0) & (pb[:, 0] < W) & (pb[:, 1] >= 0) & (pb[:, 1] < H)
            ib = np.clip(pb[:, 1].astype(int), 0, H - 1)
            jb = np.clip(pb[:, 0].astype(int), 0, W - 1)
            seen = hit[b, ib, jb] & ~mask[b, ib, jb] & (np.abs(depth_true[b, ib, jb] - zb) <= 0.03 * zb + 0.02)
            ok &= seen
            idx = np.flatnonzero(ok)[:n_matches]
            if len(idx) < 4:
                continue
            pa_, pb_, za_, zb_ = pa[idx], pb[idx], za[idx] * u[a], zb[idx] * u[b]
            cf = np.ones(len(idx))
            if noisy:
                za_ = za_ * (1 + 0.01 * rng.standard_normal(len(idx)))
                zb_ = zb_ * (1 + 0.01 * rng.standard_normal(len(idx)))
                out = rng.random(len(idx)) < outlier_rate
                rb = rng.choice(np.flatnonzero((hit[b] & ~mask[b]).ravel()), size=int(out.sum()))
                pb_ = pb_.copy()
                pb_[out] = np.stack([uu.ravel()[rb], vv.ravel()[rb]], 1)
                zb_ = zb_.copy()
                zb_[out] = depth[b].ravel()[rb]
                cf = rng.uniform(0.5, 1.0, size=len(idx))
            matches.append(Matches(a, b, pa_, pb_, za_, zb_, cf))
    # HMR-like camera-frame body fits
    import torch

    from iclr26sci.geom import so3_exp, so3_log

    R_root = so3_exp(torch.as_tensor(gt.pose[:, :3])).numpy()
    R_c = np.einsum("kab,kbc->kac", w2c[:, :3, :3], R_root)
    pel = gt.joints[:, 0]
    tau = np.einsum("kab,kb->ka", w2c[:, :3, :3], pel) + w2c[:, :3, 3]
    pose = gt.pose.copy()
    pose[:, :3] = so3_log(torch.as_tensor(R_c)).numpy()
    shape = np.repeat(gt.shape[None], K, 0)
    if noisy:
        R = so3_exp(torch.as_tensor(pose.reshape(K, 24, 3)))
        # video HMR errors are temporally correlated: slowly varying pose and depth errors (about 5 degrees per
        # joint, 3% depth) on top of a sequence-level depth bias of up to 10%
        sm = _smooth_noise(rng, K, 72, 1.0).reshape(K, 24, 3)
        sm = sm / max(1e-12, float(np.sqrt((sm ** 2).mean()))) * np.deg2rad(5) / math.sqrt(3)
        dR = so3_exp(torch.as_tensor(sm))
        pose = so3_log(R @ dR).reshape(K, 72).numpy()
        shape = shape + rng.normal(0, 0.3, size=shape.shape)
        dz = _smooth_noise(rng, K, 1, 1.0)[:, 0]
        dz = dz / max(1e-12, float(np.sqrt((dz ** 2).mean())))
        depth_err = (1 + rng.uniform(-0.1, 0.1)) * (1 + 0.03 * dz)
        tau = tau * depth_err[:, None]                  # along the ray: the 2-D position is kept
    tau = tau.copy()
    tau[:, 2] *= hmr_focal / f                          # HMR's depth for its own (default) focal
    # 2-D keypoints and contact labels
    Jc = np.einsum("kab,knb->kna", w2c[:, :3, :3], gt.joints) + w2c[:, None, :3, 3]
    kp = np.stack([f * Jc[..., 0] / Jc[..., 2] + cx, f * Jc[..., 1] / Jc[..., 2] + cy], -1)
    contact = gt.contact.copy()
    if noisy:
        kp = kp + rng.normal(0, 2.0, size=kp.shape)
        contact ^= rng.random(contact.shape) < 0.05
    return dict(depth=depth, confidence=conf, human_mask=mask.copy(), matches=matches, body_pose=pose,
                body_shape=shape, body_translation=tau, body_focal=float(hmr_focal), keypoints=kp,
                keypoint_conf=np.ones(kp.shape[:2]), contact=contact, frame_index=gt.keyframes.copy(),
                image_size=(W, H), principal_point=(cx, cy))
