"""Humanoid skeletons on their real files: tree structure, bone lengths, forward kinematics against MuJoCo's
and pybullet's own, a DeepMimic walk on its skeleton, bad input and the install commands."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from iclr26sci.geom import _mocap as B
from iclr26sci.core import InputError

needs_debian = pytest.mark.skipif(not os.path.isdir(B.MUJOCO_MODEL_DIR), reason="apt-get install -y libmujoco-samples")


def _random_qpos(sk, rng, scale=0.6):
    """Random joint coordinates: angles in the joint ranges (or N(0, scale)), unit quaternions, free bodies moved."""
    q = []
    for b, js in enumerate(sk.joints):
        for j in js:
            if j.type == "free":
                u = rng.normal(size=4)
                q += list(sk.offsets[b] + rng.normal(0, 0.3, 3)) + list(u / np.linalg.norm(u))
            elif j.type == "ball":
                u = rng.normal(size=4)
                q += list(u / np.linalg.norm(u))
            elif j.nq:
                q.append(rng.uniform(*j.range) if j.range else rng.normal(0, scale))
    return np.asarray(q)


def _check_tree(sk):
    parents = np.asarray(sk.parents)
    assert len(sk.bodies) == len(parents) == len(sk.offsets) == len(sk.joints)
    assert np.all(parents < np.arange(len(parents))), "parents come before children"
    assert len(set(sk.bodies)) == len(sk.bodies) or sk.name.endswith(("100", "22_humanoids"))


@pytest.mark.parametrize("name", ["pybullet/humanoid", "pybullet/humanoid_fixed", "pybullet/humanoid_symmetric",
                                  "pybullet/humanoid_symmetric_no_ground"])
def test_pybullet_mjcf_skeletons(name):
    sk = B.load_humanoid_skeleton(name)
    _check_tree(sk)
    assert sk.bodies[0] == "torso" and sk.parents[0] == -1 and sum(p == -1 for p in sk.parents) == 1
    assert np.all(sk.bone_lengths[1:] > 0.05)                       # every segment is a real bone (> 5 cm)
    assert sk.up == "z" and len(repr(sk)) < 80


@needs_debian
def test_debian_humanoid_skeleton_and_its_symmetry():
    sk = B.load_humanoid_skeleton("mujoco/humanoid")
    _check_tree(sk)
    assert sk.n_bodies == 16 and sk.nq == 28 and sk.n_dofs == 27 and sk.joints[0][0].type == "free"
    L = dict(zip(sk.bodies, sk.bone_lengths))
    assert all(v > 0.05 for k, v in L.items() if k != "torso")
    for side in ("thigh", "shin", "foot", "upper_arm", "lower_arm", "hand"):
        assert np.isclose(L[f"left_{side}"], L[f"right_{side}"])
    assert sk.children("pelvis") == ["right_thigh", "left_thigh"]
    knee = [j for js in sk.joints for j in js if j.name == "right_knee"][0]
    assert knee.type == "hinge" and np.allclose(knee.range, np.deg2rad([-160, 2]))
    # upright at the reference pose (the file starts it 1.5 m up, above the floor): the feet are the lowest
    # bodies, the head the highest, at a human scale (head to foot frame 1.2-1.6 m)
    pos, _ = sk.forward_kinematics()
    z = dict(zip(sk.bodies, pos[:, 2]))
    assert min(z, key=z.get) in ("right_foot", "left_foot") and max(z, key=z.get) == "head"
    assert z["right_foot"] > 0 and 1.2 < z["head"] - z["right_foot"] < 1.6


def _mujoco_matches(name, n_trials=4, seed=0):
    mujoco = pytest.importorskip("mujoco")
    sk = B.load_humanoid_skeleton(name)
    m = B.load_mujoco_model(name)
    d = mujoco.MjData(m)
    assert m.nq == sk.nq and m.nbody - 1 == sk.n_bodies
    assert np.allclose(sk.reference_qpos(), m.qpos0)
    lim = m.jnt_limited.astype(bool)
    ours = [j.range is not None for js in sk.joints for j in js]
    assert list(lim) == ours
    assert np.allclose(m.jnt_range[lim], [j.range for js in sk.joints for j in js if j.range is not None])
    rng = np.random.default_rng(seed)
    Q = np.stack([_random_qpos(sk, rng) for _ in range(n_trials)])
    pos, rot = sk.forward_kinematics(Q)
    for t in range(n_trials):
        d.qpos[:] = Q[t]
        mujoco.mj_kinematics(m, d)
        np.testing.assert_allclose(pos[t], d.xpos[1:], atol=1e-9)
        np.testing.assert_allclose(rot[t], d.xmat[1:].reshape(-1, 3, 3), atol=1e-9)


def test_forward_kinematics_matches_mujoco_pybullet_humanoid():
    _mujoco_matches("pybullet/humanoid")


@needs_debian
@pytest.mark.parametrize("name", ["mujoco/humanoid", "mujoco/humanoid100", "mujoco/22_humanoids"])
def test_forward_kinematics_matches_mujoco_debian_models(name):
    _mujoco_matches(name, n_trials=2 if name != "mujoco/humanoid" else 5)


def test_models_mujoco_cannot_compile_say_so():
    pytest.importorskip("mujoco")
    with pytest.raises(ValueError, match="cannot compile pybullet/humanoid_fixed"):
        B.load_mujoco_model("pybullet/humanoid_fixed")
    assert B.load_humanoid_skeleton("pybullet/humanoid_fixed").joints[0][0].type == "fixed"


def test_deepmimic_skeleton():
    sk = B.load_deepmimic_skeleton()
    _check_tree(sk)
    assert sk.n_bodies == 15 and sk.nq == 43 and sk.up == "y" and sk.bodies[0] == "root"
    L = dict(zip(sk.bodies, sk.bone_lengths))
    assert all(v > 0.05 for k, v in L.items() if k != "root")
    for side in ("hip", "knee", "ankle", "shoulder", "elbow", "wrist"):
        assert np.isclose(L[f"left_{side}"], L[f"right_{side}"])
    # anthropometry at scale 0.25: thigh and shank about 0.42 m each, standing height about 1.6 m
    assert 0.38 < L["right_knee"] < 0.46 and 0.38 < L["right_ankle"] < 0.46
    pos, _ = sk.forward_kinematics()
    assert 0.7 < pos[:, 1].max() - pos[:, 1].min() < 1.6           # root at 0: neck - ankle span
    assert set(B.DEEPMIMIC_TO_MUJOCO) == set(sk.bodies)
    if os.path.isdir(B.MUJOCO_MODEL_DIR):
        assert set(B.DEEPMIMIC_TO_MUJOCO.values()) <= set(B.load_humanoid_skeleton("mujoco/humanoid").bodies)


def test_deepmimic_walk_forward_kinematics():
    """The walk clip on its skeleton: the pelvis (root) moves forward at a walking speed at a pelvis height,
    the ankles stay near the ground and each foot has a stance phase, and the limbs keep their lengths."""
    m = B.deepmimic_forward_kinematics("walk")
    T = m.positions.shape[0]
    assert m.positions.shape == (T, 15, 3) and T == 39 and m.times[0] == 0 and np.all(np.diff(m.times) > 0)
    root = m.joint("root")
    speed = (root[-1, 0] - root[0, 0]) / (m.times[-1] - m.times[0])
    assert np.all(np.diff(root[:, 0]) > 0) and 0.7 < speed < 1.8          # m/s: human walking speeds
    assert np.abs(root[:, 2]).max() < 0.2 and np.all((0.75 < root[:, 1]) & (root[:, 1] < 0.95))
    h = m.heights()
    for side in ("left", "right"):
        ankle = h[:, m.bodies.index(f"{side}_ankle")]
        assert 0.0 < ankle.min() < 0.12                                  # stance: ankle centre a few cm up
        assert ankle.max() < 0.35                                        # swing: the foot clears, not more
        assert np.mean(ankle < ankle.min() + 0.03) > 0.2                 # a stance phase of a fifth or more
    # rigid bones: the knee-ankle distance is the same in every frame
    d = np.linalg.norm(m.joint("left_ankle") - m.joint("left_knee"), axis=1)
    assert np.ptp(d) < 1e-9 and np.isclose(d[0], B.load_deepmimic_skeleton().bone_lengths[-1])
    assert "walk" in m.summary() and len(m.to_dict()["positions"]) == T and len(repr(m)) < 80


def test_deepmimic_forward_kinematics_matches_pybullet():
    pb = pytest.importorskip("pybullet")
    import pybullet_data

    from data_adapters._geom3d import load_deepmimic_clip

    clip = load_deepmimic_clip("backflip")
    m = B.deepmimic_forward_kinematics(clip)
    cid = pb.connect(pb.DIRECT)
    try:
        uid = pb.loadURDF(os.path.join(pybullet_data.getDataPath(), "humanoid", "humanoid.urdf"),
                          globalScaling=B.DEEPMIMIC_SCALE, physicsClientId=cid)
        link = {pb.getJointInfo(uid, j, physicsClientId=cid)[12].decode(): j
                for j in range(pb.getNumJoints(uid, physicsClientId=cid))}
        for t in (0, len(clip["frames"]) // 2, len(clip["frames"]) - 1):
            f = clip["frames"][t]
            xyzw = lambda q: [q[1], q[2], q[3], q[0]]                     # noqa: E731 - DeepMimic stores w first
            pb.resetBasePositionAndOrientation(uid, f[:3], xyzw(f[3:7]), physicsClientId=cid)
            k = 7
            for name, n in B._DEEPMIMIC_LAYOUT:
                pb.resetJointStateMultiDof(uid, link[name], xyzw(f[k:k + 4]) if n == 4 else [f[k]], physicsClientId=cid)
                k += n
            for name, j in link.items():
                frame = pb.getLinkState(uid, j, computeForwardKinematics=True, physicsClientId=cid)[4]
                np.testing.assert_allclose(m.positions[t, m.bodies.index(name)], frame, atol=1e-5)
    finally:
        pb.disconnect(cid)


@pytest.mark.bad_input("data_adapters.load_humanoid_skeleton", "data_adapters.load_mujoco_model",
                       "data_adapters.deepmimic_forward_kinematics", "data_adapters.Skeleton", "data_adapters.MotionFK",
                       "geom.load_humanoid_skeleton", "geom.load_mujoco_model", "geom.deepmimic_forward_kinematics",
                       "geom.Skeleton", "geom.MotionFK")
def test_bad_input():
    with pytest.raises(InputError, match="`name`"):
        B.load_humanoid_skeleton("robot")
    with pytest.raises(InputError, match="`name`"):
        B.load_humanoid_skeleton(None)
    with pytest.raises(InputError, match="`name`"):
        B.load_mujoco_model("humanoid.xml")
    sk = B.load_humanoid_skeleton("pybullet/humanoid")
    with pytest.raises(InputError, match="`qpos`"):
        sk.forward_kinematics(np.zeros(sk.nq + 1))
    with pytest.raises(InputError, match="`qpos`"):
        sk.forward_kinematics(np.full(sk.nq, np.nan))
    with pytest.raises(InputError, match="`qpos`"):
        sk.forward_kinematics(np.zeros((2, 3, sk.nq)))
    with pytest.raises(InputError, match="`body`"):
        sk.index("tail")
    with pytest.raises(InputError, match="`body`"):
        sk.children("tail")
    with pytest.raises(InputError, match="`clip`"):
        B.deepmimic_forward_kinematics("moonwalk")
    with pytest.raises(InputError, match="`clip`"):
        B.deepmimic_forward_kinematics(3)
    with pytest.raises(InputError, match="`clip`"):
        B.deepmimic_forward_kinematics({"frames": np.zeros((4, 40)), "duration": np.ones(4)})
    m = B.deepmimic_forward_kinematics("walk")
    with pytest.raises(InputError, match="`body`"):
        m.joint("tail")


def test_missing_debian_package_names_the_apt_command(monkeypatch):
    monkeypatch.setattr(B, "MUJOCO_MODEL_DIR", "/nonexistent/mujoco/model")
    B._skeleton_cached.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="apt-get install -y libmujoco-samples"):
            B.load_humanoid_skeleton("mujoco/humanoid")
        with pytest.raises(FileNotFoundError, match="apt-get install -y libmujoco-samples"):
            B.load_mujoco_model("mujoco/humanoid")
        assert "mujoco/humanoid" not in B.humanoid_model_names()
    finally:
        B._skeleton_cached.cache_clear()


def test_missing_pip_packages_name_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "pybullet_data", None)
    B._skeleton_cached.cache_clear()
    try:
        with pytest.raises(ImportError, match=r'pip install "iclr26sci\[rl\]"'):
            B.load_deepmimic_skeleton.__wrapped__()
        with pytest.raises(ImportError, match=r'pip install "iclr26sci\[rl\]"'):
            B.load_humanoid_skeleton("pybullet/humanoid")
    finally:
        B._skeleton_cached.cache_clear()
    monkeypatch.setitem(sys.modules, "mujoco", None)
    if os.path.isdir(B.MUJOCO_MODEL_DIR):
        with pytest.raises(ImportError, match=r'pip install "iclr26sci\[rl\]"'):
            B.load_mujoco_model("mujoco/humanoid")


BAD_INPUT_EXEMPT = {
    "data_adapters.humanoid_model_names": "takes no arguments (lists the installed files)",
    "data_adapters.load_deepmimic_skeleton": "takes no arguments (reads the URDF shipped with pybullet)",
    "data_adapters.Joint": "a record the parsers build",
    "data_adapters.DEEPMIMIC_TO_MUJOCO": "a constant dict of body names",
    "data_adapters.DEEPMIMIC_SCALE": "a constant float (the DeepMimic model scale)",
    "geom.humanoid_model_names": "takes no arguments (lists the installed files)",
    "geom.load_deepmimic_skeleton": "takes no arguments (reads the URDF shipped with pybullet)",
    "geom.Joint": "a record the parsers build",
    "geom.DEEPMIMIC_TO_MUJOCO": "a constant dict of body names",
    "geom.DEEPMIMIC_SCALE": "a constant float (the DeepMimic model scale)",
}


def test_data_adapters_reexport_the_geom_objects():
    import data_adapters

    for name in ("deepmimic_forward_kinematics", "load_humanoid_skeleton", "MotionFK", "load_deepmimic_clip"):
        assert getattr(data_adapters, name) is getattr(B, name)
    assert "deepmimic_forward_kinematics" in data_adapters.ADAPTERS and "humanoid_skeleton" in data_adapters.ADAPTERS
