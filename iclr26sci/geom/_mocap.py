"""Humanoid bodies that install offline: MuJoCo MJCF humanoids and the DeepMimic humanoid, as kinematic
skeletons with forward kinematics in numpy, and the DeepMimic motion clips played on their skeleton.

Sources (never downloaded):

- ``pybullet_data/mjcf/humanoid*.xml`` (PyPI ``pybullet``, ``pip install "iclr26sci[rl]"``): the classic
  MuJoCo/gym humanoid (``humanoid``), a fixed-base variant (``humanoid_fixed``, pybullet's own joint
  type ``fixed``, which MuJoCo refuses), and symmetric variants.
- ``/usr/share/mujoco/model/`` (Debian ``libmujoco-samples``, ``apt-get install -y libmujoco-samples``):
  DeepMind's ``humanoid/humanoid.xml`` (27 degrees of freedom), ``humanoid100/humanoid100.xml`` (the
  humanoid and 100 free objects) and ``humanoid/22_humanoids.xml``.
- ``pybullet_data/humanoid/humanoid.urdf``: the DeepMimic humanoid (Peng et al. 2018, "DeepMimic"), the
  character the motion clips ``pybullet_data/data/motions/humanoid3d_*.txt`` were retargeted to. It is
  y-up and loaded at ``globalScaling = 0.25`` (as pybullet's DeepMimic environment does), which makes
  it a 1.6 m tall body with its root (pelvis) at about 0.85 m.

Two different bodies, on purpose. The DeepMimic clips drive the DeepMimic humanoid (spherical chest,
neck, hips, ankles and shoulders; revolute knees and elbows); the MuJoCo humanoid has hinge joints only
and no clip was made for it. :data:`DEEPMIMIC_TO_MUJOCO` pairs their corresponding bodies for users who
retarget positions from one to the other.

Conventions: quaternions are ``(w, x, y, z)``; a body's frame is its joint frame (MuJoCo: the body frame,
URDF: the child-link frame at the joint); joint ranges are in radians (MJCF ranges are converted from
degrees unless the file says ``angle="radian"``); ``qpos`` follows MuJoCo's layout (free: 3 position +
4 quaternion, ball: 4 quaternion, hinge/slide: 1 value) in body order.
"""
from __future__ import annotations

import functools
import glob
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from iclr26sci.core import InputError

__all__ = ["load_deepmimic_clip", "Joint", "Skeleton", "MotionFK", "load_humanoid_skeleton", "humanoid_model_names", "load_mujoco_model",
           "load_deepmimic_skeleton", "deepmimic_forward_kinematics", "DEEPMIMIC_TO_MUJOCO", "DEEPMIMIC_SCALE"]

MUJOCO_MODEL_DIR = "/usr/share/mujoco/model"
_APT = "apt-get install -y libmujoco-samples"
_RL = 'pip install "iclr26sci[rl]"'
#: the scale pybullet's DeepMimic environment loads ``humanoid/humanoid.urdf`` with
DEEPMIMIC_SCALE = 0.25
#: DeepMimic humanoid link -> the body of the MuJoCo humanoid ("mujoco/humanoid") at the same place
DEEPMIMIC_TO_MUJOCO = {
    "root": "pelvis", "chest": "torso", "neck": "head",
    "right_hip": "right_thigh", "right_knee": "right_shin", "right_ankle": "right_foot",
    "right_shoulder": "right_upper_arm", "right_elbow": "right_lower_arm", "right_wrist": "right_hand",
    "left_hip": "left_thigh", "left_knee": "left_shin", "left_ankle": "left_foot",
    "left_shoulder": "left_upper_arm", "left_elbow": "left_lower_arm", "left_wrist": "left_hand",
}
_NQ = {"free": 7, "ball": 4, "hinge": 1, "slide": 1, "fixed": 0}
_NV = {"free": 6, "ball": 3, "hinge": 1, "slide": 1, "fixed": 0}


# ------------------------------------------------------------------------------------ rotation helpers
def _quat_mul(a, b):
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], -1)


def _quat_to_mat(q):
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = np.moveaxis(q, -1, 0)
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def _axis_angle_quat(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    half = np.asarray(angle, float)[..., None] / 2
    return np.concatenate([np.cos(half), np.sin(half) * axis], -1)


def _mat_to_quat(R):
    w = np.sqrt(max(0.0, 1 + R[0, 0] + R[1, 1] + R[2, 2])) / 2
    if w > 1e-6:
        return np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w), (R[1, 0] - R[0, 1]) / (4 * w)])
    i = int(np.argmax(np.diag(R)))
    j, k = (i + 1) % 3, (i + 2) % 3
    v = np.zeros(4)
    v[i + 1] = np.sqrt(max(0.0, 1 + R[i, i] - R[j, j] - R[k, k])) / 2
    v[j + 1] = (R[i, j] + R[j, i]) / (4 * v[i + 1])
    v[k + 1] = (R[i, k] + R[k, i]) / (4 * v[i + 1])
    v[0] = (R[k, j] - R[j, k]) / (4 * v[i + 1])
    return v


# ------------------------------------------------------------------------------------------- skeleton
@dataclass(frozen=True)
class Joint:
    """One joint of a body: ``type`` in {"free", "ball", "hinge", "slide", "fixed"}, its ``axis`` and
    anchor ``pos`` in the body frame, and ``range`` in radians (metres for slide) or None if unlimited.

    Examples
    --------
    >>> from iclr26sci.geom import load_deepmimic_skeleton
    >>> load_deepmimic_skeleton().joints[0][0].type
    'free'
    """

    name: str
    type: str
    axis: tuple[float, float, float] = (0.0, 0.0, 1.0)
    pos: tuple[float, float, float] = (0.0, 0.0, 0.0)
    range: tuple[float, float] | None = None

    def __post_init__(self):
        if self.type not in _NQ:
            raise InputError("type", f"got {self.type!r}", f"one of {sorted(_NQ)}")
        for nm in ("axis", "pos"):
            try:
                v = np.asarray(getattr(self, nm), dtype=np.float64)
            except (TypeError, ValueError):
                raise InputError(nm, f"got {getattr(self, nm)!r}", "a finite 3-vector") from None
            if v.shape != (3,) or not np.all(np.isfinite(v)):
                raise InputError(nm, f"got {getattr(self, nm)!r}", "a finite 3-vector")
        if self.type in ("hinge", "slide") and not np.linalg.norm(np.asarray(self.axis, float)) > 0:
            raise InputError("axis", "is the zero vector", f"a non-zero axis for a {self.type} joint")
        if self.range is not None:
            try:
                r = np.asarray(self.range, dtype=np.float64)
            except (TypeError, ValueError):
                raise InputError("range", f"got {self.range!r}", "None or (low, high)") from None
            if r.shape != (2,) or np.isnan(r).any() or r[0] > r[1]:
                raise InputError("range", f"got {self.range!r}", "None or (low, high) with low <= high")

    @property
    def nq(self) -> int:
        return _NQ[self.type]


@dataclass(frozen=True, eq=False)
class Skeleton:
    """A kinematic tree of rigid bodies.

    Attributes
    ----------
    name : str
        The model (e.g. ``"humanoid"``).
    bodies : tuple of str
        Body names in depth-first file order (the world is not a body).
    parents : tuple of int
        Index of each body's parent, -1 for a body attached to the world.
    offsets : ndarray (n, 3)
        Each body's frame origin in its parent's frame at the reference pose (metres): the joint offsets.
    orientations : ndarray (n, 4)
        Each body's frame orientation relative to its parent (w, x, y, z).
    joints : tuple of tuple of Joint
        The joints of each body, in order (a body without joints is welded to its parent).
    up : str
        The vertical axis, ``"z"`` (MJCF) or ``"y"`` (the DeepMimic humanoid).
    source : str
        The file it was read from.

    Examples
    --------
    >>> from iclr26sci.geom import load_deepmimic_skeleton
    >>> load_deepmimic_skeleton()
    Skeleton('deepmimic_humanoid', 15 bodies, nq=43)
    """

    name: str
    bodies: tuple[str, ...]
    parents: tuple[int, ...]
    offsets: np.ndarray
    orientations: np.ndarray
    joints: tuple[tuple[Joint, ...], ...]
    up: str
    source: str

    def __repr__(self):
        return f"Skeleton({self.name!r}, {len(self.bodies)} bodies, nq={self.nq})"

    @property
    def n_bodies(self) -> int:
        return len(self.bodies)

    @property
    def nq(self) -> int:
        """Length of ``qpos``."""
        return sum(j.nq for js in self.joints for j in js)

    @property
    def n_dofs(self) -> int:
        """Degrees of freedom (free 6, ball 3, hinge and slide 1)."""
        return sum(_NV[j.type] for js in self.joints for j in js)

    @property
    def joint_names(self) -> tuple[str, ...]:
        return tuple(j.name for js in self.joints for j in js)

    @property
    def bone_lengths(self) -> np.ndarray:
        """Length of the segment from each non-root body's parent to it, ``(n,)`` (0 for roots)."""
        return np.where(np.asarray(self.parents) >= 0, np.linalg.norm(self.offsets, axis=1), 0.0)

    def index(self, body: str) -> int:
        """Position of ``body`` in :attr:`bodies`."""
        if not isinstance(body, str) or body not in self.bodies:
            raise InputError("body", f"{body!r} is not a body of {self.name}", f"one of {list(self.bodies)}")
        return self.bodies.index(body)

    def children(self, body) -> list[str]:
        i = self.index(body)
        return [b for b, p in zip(self.bodies, self.parents) if p == i]

    def reference_qpos(self) -> np.ndarray:
        """The reference ``qpos``: zero angles, identity quaternions, the free bodies where the file puts them."""
        q = []
        for b, js in enumerate(self.joints):
            for j in js:
                if j.type == "free":
                    q += list(self.offsets[b]) + list(self.orientations[b])
                elif j.type == "ball":
                    q += [1.0, 0.0, 0.0, 0.0]
                elif j.nq:
                    q.append(0.0)
        return np.asarray(q, dtype=np.float64)

    def forward_kinematics(self, qpos=None):
        """World positions and orientations of every body frame, MuJoCo's ``mj_kinematics`` in numpy.

        For body b with parent p: ``x_b = x_p + R_p o_b``, ``R_b = R_p R(q_b0)``; then each joint in turn
        rotates the frame about its anchor ``a = x_b + R_b pos_j`` (hinge: by the angle about ``axis``; ball:
        by the quaternion) and keeps the anchor fixed (``x_b = a - R_b' pos_j``), a slide moves it along
        ``R_b axis``, and a free joint sets position and orientation.

        Parameters
        ----------
        qpos : array_like (nq,) or (T, nq), optional
            Joint coordinates in MuJoCo's layout (default: :meth:`reference_qpos`).

        Returns
        -------
        positions : ndarray (n, 3) or (T, n, 3)
        rotations : ndarray (n, 3, 3) or (T, n, 3, 3)

        Examples
        --------
        >>> sk = load_humanoid_skeleton("pybullet/humanoid")
        >>> pos, rot = sk.forward_kinematics()
        >>> pos.shape, rot.shape
        ((13, 3), (13, 3, 3))
        """
        q = self.reference_qpos() if qpos is None else np.asarray(qpos, dtype=np.float64)
        single = q.ndim == 1
        if q.ndim not in (1, 2) or q.shape[-1] != self.nq or not np.all(np.isfinite(q)):
            raise InputError("qpos", f"has shape {np.shape(qpos)}" + ("" if np.all(np.isfinite(q)) else " and non-finite values"),
                             f"finite values of shape ({self.nq},) or (T, {self.nq})")
        q = q[None] if single else q
        k = 0
        for b in range(self.n_bodies):
            for j in self.joints[b]:
                lo = k + 3 if j.type == "free" else k
                if j.type in ("free", "ball") and bool((np.linalg.norm(q[:, lo:lo + 4], axis=1) <= 1e-12).any()):
                    raise InputError("qpos", f"has a zero quaternion at entries {lo}:{lo + 4} (joint {j.name!r})",
                                     "non-zero quaternions (w, x, y, z) for free and ball joints")
                k += j.nq
        T, n = q.shape[0], self.n_bodies
        pos, quat = np.zeros((T, n, 3)), np.zeros((T, n, 4))
        k = 0
        for b in range(n):
            p = self.parents[b]
            if p < 0:
                xp, xq = np.broadcast_to(self.offsets[b], (T, 3)).copy(), np.broadcast_to(self.orientations[b], (T, 4)).copy()
            else:
                xp = pos[:, p] + np.einsum("tij,j->ti", _quat_to_mat(quat[:, p]), self.offsets[b])
                xq = _quat_mul(quat[:, p], np.broadcast_to(self.orientations[b], (T, 4)))
            for j in self.joints[b]:
                jp = np.asarray(j.pos)
                if j.type == "free":
                    xp, xq = q[:, k:k + 3].copy(), q[:, k + 3:k + 7] / np.linalg.norm(q[:, k + 3:k + 7], axis=1, keepdims=True)
                elif j.type in ("hinge", "ball"):
                    anchor = xp + np.einsum("tij,j->ti", _quat_to_mat(xq), jp)
                    dq = (_axis_angle_quat(j.axis, q[:, k]) if j.type == "hinge"
                          else q[:, k:k + 4] / np.linalg.norm(q[:, k:k + 4], axis=1, keepdims=True))
                    xq = _quat_mul(xq, dq)
                    xp = anchor - np.einsum("tij,j->ti", _quat_to_mat(xq), jp)
                elif j.type == "slide":
                    ax = np.asarray(j.axis) / np.linalg.norm(j.axis)
                    xp = xp + np.einsum("tij,j->ti", _quat_to_mat(xq), ax) * q[:, k:k + 1]
                k += j.nq
            pos[:, b], quat[:, b] = xp, xq
        rot = _quat_to_mat(quat)
        return (pos[0], rot[0]) if single else (pos, rot)


# ----------------------------------------------------------------------------------------- MJCF parser
def _floats(s, n=None):
    v = tuple(float(x) for x in s.split())
    if n is not None and len(v) != n:
        raise ValueError(f"expected {n} numbers, got {s!r}")
    return v


def _inline_includes(root, folder):
    for parent in list(root.iter()):
        for i, child in enumerate(list(parent)):
            if child.tag == "include":
                sub = ET.parse(os.path.join(folder, child.get("file"))).getroot()
                _inline_includes(sub, folder)
                parent.remove(child)
                for k, el in enumerate(list(sub)):
                    parent.insert(i + k, el)


def _defaults(root):
    """class name -> {tag: attrs} with MuJoCo's nested inheritance; "main" is the top class."""
    out = {}

    def walk(el, inherited, name):
        mine = {tag: dict(attrs) for tag, attrs in inherited.items()}
        for child in el:
            if child.tag != "default":
                mine.setdefault(child.tag, {}).update(child.attrib)
        out[name] = mine
        for child in el:
            if child.tag == "default":
                walk(child, mine, child.get("class", name))

    tops = [d for d in root if d.tag == "default"]
    base = {}
    for d in tops:                                    # several top-level <default> blocks merge into "main"
        for child in d:
            if child.tag != "default":
                base.setdefault(child.tag, {}).update(child.attrib)
    out["main"] = base
    for d in tops:
        for child in d:
            if child.tag == "default":
                walk(child, base, child.get("class", "main"))
    return out


def _orientation(el, degrees, eulerseq):
    if el.get("quat"):
        q = np.asarray(_floats(el.get("quat"), 4))
        return q / np.linalg.norm(q)
    if el.get("axisangle"):
        *ax, ang = _floats(el.get("axisangle"), 4)
        return _axis_angle_quat(ax, np.deg2rad(ang) if degrees else ang)
    if el.get("euler"):
        ang = np.asarray(_floats(el.get("euler"), 3))
        ang = np.deg2rad(ang) if degrees else ang
        q = np.array([1.0, 0, 0, 0])
        for a, c in zip(ang, eulerseq):
            axis = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}[c.lower()]
            dq = _axis_angle_quat(axis, a)
            q = _quat_mul(q, dq) if c.islower() else _quat_mul(dq, q)   # lower case: moving axes
        return q
    if el.get("xyaxes"):
        v = np.asarray(_floats(el.get("xyaxes"), 6))
        x = v[:3] / np.linalg.norm(v[:3])
        y = v[3:] - x * (x @ v[3:])
        y /= np.linalg.norm(y)
        return _mat_to_quat(np.stack([x, y, np.cross(x, y)], 1))
    if el.get("zaxis"):
        z = np.asarray(_floats(el.get("zaxis"), 3))
        z /= np.linalg.norm(z)
        a = np.cross([0.0, 0.0, 1.0], z)
        s, c = np.linalg.norm(a), z[2]
        if s < 1e-12:
            return np.array([1.0, 0, 0, 0]) if c > 0 else np.array([0.0, 1, 0, 0])
        return _axis_angle_quat(a, np.arctan2(s, c))
    return np.array([1.0, 0.0, 0.0, 0.0])


def _parse_mjcf(path, name) -> Skeleton:
    tree = ET.parse(path).getroot()
    _inline_includes(tree, os.path.dirname(path))
    comp = tree.find("compiler")
    degrees = (comp.get("angle", "degree") if comp is not None else "degree") == "degree"
    eulerseq = comp.get("eulerseq", "xyz") if comp is not None else "xyz"
    defaults = _defaults(tree)
    bodies, parents, offsets, orients, joints = [], [], [], [], []

    def attrs(el, cls):
        merged = dict(defaults.get(cls, defaults["main"]).get(el.tag, {}))
        if el.tag == "freejoint":
            merged = {}
        merged.update(el.attrib)
        return merged

    def visit(el, parent, childclass):
        cls = el.get("childclass", childclass)
        idx = len(bodies)
        bodies.append(el.get("name", f"body{idx}"))
        parents.append(parent)
        offsets.append(_floats(el.get("pos", "0 0 0"), 3))
        orients.append(_orientation(el, degrees, eulerseq))
        js = []
        for child in el:
            if child.tag not in ("joint", "freejoint"):
                continue
            a = attrs(child, child.get("class", cls))
            jtype = "free" if child.tag == "freejoint" else a.get("type", "hinge")
            if jtype not in _NQ:
                raise ValueError(f"{path}: unknown joint type {jtype!r}")
            rng = None
            limited = a.get("limited", "auto")
            if jtype in ("hinge", "slide") and "range" in a and limited in ("true", "auto"):
                lo, hi = _floats(a["range"], 2)
                if not (lo == 0 and hi == 0):
                    rng = (np.deg2rad(lo), np.deg2rad(hi)) if degrees and jtype == "hinge" else (lo, hi)
            js.append(Joint(child.get("name", f"{bodies[idx]}_joint{len(js)}"), jtype,
                            _floats(a.get("axis", "0 0 1"), 3), _floats(a.get("pos", "0 0 0"), 3),
                            None if rng is None else (float(rng[0]), float(rng[1]))))
        joints.append(tuple(js))
        for child in el:
            if child.tag == "body":
                visit(child, idx, cls)

    for world in tree.findall("worldbody"):          # an <include> may bring a second <worldbody>
        for el in world:
            if el.tag == "body":
                visit(el, -1, el.get("childclass", "main"))
    return Skeleton(name, tuple(bodies), tuple(parents), np.asarray(offsets, dtype=np.float64),
                    np.asarray(orients, dtype=np.float64), tuple(joints), "z", path)


def _pybullet_mjcf_dir():
    try:
        import pybullet_data
    except ImportError as exc:
        raise ImportError(f"the pybullet humanoid models need pybullet's data: {_RL}") from exc
    return os.path.join(pybullet_data.getDataPath(), "mjcf")


def _model_paths() -> dict:
    out = {}
    try:
        for p in sorted(glob.glob(os.path.join(_pybullet_mjcf_dir(), "humanoid*.xml"))):
            out["pybullet/" + os.path.basename(p)[:-4]] = p
    except ImportError:
        pass
    for rel in ("humanoid/humanoid.xml", "humanoid100/humanoid100.xml", "humanoid/22_humanoids.xml"):
        p = os.path.join(MUJOCO_MODEL_DIR, rel)
        if os.path.exists(p):
            out["mujoco/" + os.path.basename(rel)[:-4]] = p
    return out


_KNOWN = ("pybullet/humanoid", "pybullet/humanoid_fixed", "pybullet/humanoid_symmetric",
          "pybullet/humanoid_symmetric_no_ground", "mujoco/humanoid", "mujoco/humanoid100", "mujoco/22_humanoids")


def humanoid_model_names() -> list[str]:
    """The humanoid MJCF models installed: ``"pybullet/<file>"`` and ``"mujoco/<file>"`` (Debian samples).

    Examples
    --------
    >>> "pybullet/humanoid" in humanoid_model_names()
    True
    """
    return list(_model_paths())


def _resolve(name) -> str:
    paths = _model_paths()
    if not isinstance(name, str) or name not in _KNOWN:
        raise InputError("name", f"got {name!r}", f"one of {list(_KNOWN)}")
    if name not in paths:
        if name.startswith("mujoco/"):
            raise FileNotFoundError(f"the MuJoCo sample models are not installed ({MUJOCO_MODEL_DIR}); install them "
                                    f"with: {_APT}")
        _pybullet_mjcf_dir()
        raise FileNotFoundError(f"{name} is not shipped with the installed pybullet; reinstall it with: {_RL}")
    return paths[name]


@functools.lru_cache(maxsize=16)
def _skeleton_cached(name):
    return _parse_mjcf(_resolve(name), name)


def load_humanoid_skeleton(name="mujoco/humanoid") -> Skeleton:
    """A MuJoCo humanoid MJCF model parsed into a :class:`Skeleton` (bodies, parents, offsets, joints).

    The parser follows MuJoCo's rules for what a skeleton needs: ``<include>``, nested ``<default>``
    classes and ``childclass``, body ``pos`` and ``quat``/``axisangle``/``euler``/``xyaxes``/``zaxis``,
    joint ``type``/``axis``/``pos``/``range`` (degrees unless ``<compiler angle="radian">``) and
    ``<freejoint>``. Its forward kinematics matches ``mujoco.mj_kinematics`` (tested).

    Parameters
    ----------
    name : str
        One of ``"mujoco/humanoid"`` (DeepMind's, 16 bodies, free root), ``"mujoco/humanoid100"``,
        ``"mujoco/22_humanoids"`` (Debian ``libmujoco-samples``), ``"pybullet/humanoid"`` (gym's, 13
        bodies, no free joint), ``"pybullet/humanoid_fixed"``, ``"pybullet/humanoid_symmetric"``,
        ``"pybullet/humanoid_symmetric_no_ground"``.

    Returns
    -------
    Skeleton

    Examples
    --------
    >>> sk = load_humanoid_skeleton("pybullet/humanoid")
    >>> sk.bodies[:3], sk.n_dofs
    (('torso', 'lwaist', 'pelvis'), 21)
    """
    _resolve(name)
    return _skeleton_cached(name)


def load_mujoco_model(name="mujoco/humanoid"):
    """The model compiled by MuJoCo itself: a ``mujoco.MjModel`` (for simulation with the ``mujoco`` package).

    Parameters
    ----------
    name : str
        As in :func:`load_humanoid_skeleton`. ``pybullet/humanoid_fixed`` (joint type ``fixed``) and
        ``pybullet/humanoid_symmetric`` (a missing material) do not compile in MuJoCo: a ``ValueError``
        says so.

    Examples
    --------
    >>> load_mujoco_model("pybullet/humanoid").nq
    21
    """
    path = _resolve(name)
    try:
        import mujoco
    except ImportError as exc:
        raise ImportError(f"load_mujoco_model needs the mujoco package: {_RL}") from exc
    try:
        return mujoco.MjModel.from_xml_path(path)
    except ValueError as exc:
        raise ValueError(f"MuJoCo {mujoco.__version__} cannot compile {name} ({path}): {exc}; "
                         "load_humanoid_skeleton still reads its kinematic tree") from exc


# ------------------------------------------------------------------------------------------ DeepMimic
#: DeepMimic frame layout after the duration column: (link, number of values) in order
_DEEPMIMIC_LAYOUT = (("chest", 4), ("neck", 4), ("right_hip", 4), ("right_knee", 1), ("right_ankle", 4),
                     ("right_shoulder", 4), ("right_elbow", 1), ("left_hip", 4), ("left_knee", 1),
                     ("left_ankle", 4), ("left_shoulder", 4), ("left_elbow", 1))


def _deepmimic_urdf():
    try:
        import pybullet_data
    except ImportError as exc:
        raise ImportError(f"the DeepMimic humanoid needs pybullet's data: {_RL}") from exc
    path = os.path.join(pybullet_data.getDataPath(), "humanoid", "humanoid.urdf")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is not shipped with the installed pybullet; reinstall it with: {_RL}")
    return path


@functools.lru_cache(maxsize=1)
def load_deepmimic_skeleton() -> Skeleton:
    """The DeepMimic humanoid (``pybullet_data/humanoid/humanoid.urdf`` at scale 0.25) as a y-up :class:`Skeleton`.

    15 bodies: ``root`` (the pelvis; a free joint), chest, neck, hips, knees, ankles, shoulders, elbows
    and wrists (fixed). Spherical URDF joints become ``ball`` joints and revolute ones ``hinge`` joints
    (about z, with the URDF's limits), so ``forward_kinematics`` takes MuJoCo-layout ``qpos``.

    Examples
    --------
    >>> sk = load_deepmimic_skeleton()
    >>> sk.n_bodies, sk.nq, sk.up
    (15, 43, 'y')
    """
    path = _deepmimic_urdf()
    with open(path, "rb") as fh:
        root = ET.fromstring(fh.read().rstrip(b"\x00\r\n\t "))     # the file ends in a NUL byte
    js = [j for j in root.findall("joint")]
    child_of = {j.find("child").get("link"): j for j in js}
    order, bodies = [], ["root"]
    # depth-first from root, URDF joint order among siblings
    stack = ["root"]
    while stack:
        b = stack.pop()
        order.append(b)
        kids = [j.find("child").get("link") for j in js if j.find("parent").get("link") == b]
        stack.extend(reversed(kids))
    bodies = order
    parents, offsets, joints = [], [], []
    for b in bodies:
        j = child_of[b]
        parent = j.find("parent").get("link")
        parents.append(-1 if b == "root" else bodies.index(parent))
        org = j.find("origin")
        offsets.append(np.asarray(_floats(org.get("xyz", "0 0 0"), 3)) * DEEPMIMIC_SCALE if b != "root" else
                       np.zeros(3))
        jt = j.get("type")
        if b == "root":
            joints.append((Joint("root", "free"),))
        elif jt == "spherical":
            joints.append((Joint(b, "ball"),))
        elif jt == "revolute":
            ax = j.find("axis")
            lim = j.find("limit")
            rng = (float(lim.get("lower")), float(lim.get("upper"))) if lim is not None else None
            joints.append((Joint(b, "hinge", _floats(ax.get("xyz"), 3) if ax is not None else (1.0, 0, 0),
                                 (0.0, 0.0, 0.0), rng),))
        else:
            joints.append(())
    orients = np.tile([1.0, 0.0, 0.0, 0.0], (len(bodies), 1))
    return Skeleton("deepmimic_humanoid", tuple(bodies), tuple(parents), np.asarray(offsets), orients,
                    tuple(joints), "y", path)


def _clip_qpos(frames: np.ndarray, sk: Skeleton) -> np.ndarray:
    """DeepMimic frames (T, 43) -> MuJoCo-layout qpos of the DeepMimic skeleton (T, 43)."""
    cols = {"root": frames[:, 0:7]}
    k = 7
    for link, n in _DEEPMIMIC_LAYOUT:
        cols[link] = frames[:, k:k + n]
        k += n
    return np.concatenate([cols[b] for b, js in zip(sk.bodies, sk.joints) if js], axis=1)


@dataclass(frozen=True, eq=False)
class MotionFK:
    """A motion clip played on a skeleton: joint (body-frame origin) positions over time.

    Attributes
    ----------
    name : str
        The clip.
    bodies : tuple of str
    parents : tuple of int
    positions : ndarray (T, n, 3)
        World positions of each body frame (for the DeepMimic humanoid: the joint centres), metres.
    rotations : ndarray (T, n, 3, 3)
    times : ndarray (T,)
        Time of each frame in seconds (cumulative DeepMimic frame durations, starting at 0).
    up : str
        The vertical axis (``"y"`` for DeepMimic).

    Examples
    --------
    >>> from iclr26sci.geom import deepmimic_forward_kinematics
    >>> deepmimic_forward_kinematics('walk')
    MotionFK('walk', 39 frames, 15 joints)
    """

    name: str
    bodies: tuple[str, ...]
    parents: tuple[int, ...]
    positions: np.ndarray
    rotations: np.ndarray
    times: np.ndarray
    up: str

    def __repr__(self):
        return f"MotionFK({self.name!r}, {self.positions.shape[0]} frames, {len(self.bodies)} joints)"

    def joint(self, body: str) -> np.ndarray:
        """The ``(T, 3)`` trajectory of one body."""
        if not isinstance(body, str) or body not in self.bodies:
            raise InputError("body", f"{body!r} is not a body", f"one of {list(self.bodies)}")
        return self.positions[:, self.bodies.index(body)]

    def heights(self) -> np.ndarray:
        """Height above the ground plane of every body, ``(T, n)``."""
        return self.positions[..., "xyz".index(self.up)]

    def summary(self) -> str:
        return f"{self.name}: {self.positions.shape[0]} frames over {self.times[-1]:.2f} s, {len(self.bodies)} bodies"

    def to_dict(self) -> dict:
        return {"name": self.name, "bodies": list(self.bodies), "parents": list(self.parents),
                "positions": self.positions.tolist(), "times": self.times.tolist(), "up": self.up}


def deepmimic_forward_kinematics(clip) -> MotionFK:
    """Joint positions over time of a DeepMimic clip, by forward kinematics on the DeepMimic humanoid.

    Each frame ``(root position, root quaternion, chest, neck, right hip, knee, ankle, shoulder, elbow,
    left ...)`` (:func:`load_deepmimic_clip`) is turned into MuJoCo-layout ``qpos`` for
    :func:`load_deepmimic_skeleton` and passed through :meth:`Skeleton.forward_kinematics`. Matches
    pybullet's own kinematics of the same URDF at scale 0.25 (tested).

    Parameters
    ----------
    clip : str or dict
        A clip name (``"walk"``, ``"run"``, ``"backflip"``, ...) or a dict from ``load_deepmimic_clip``.

    Returns
    -------
    MotionFK

    Examples
    --------
    >>> m = deepmimic_forward_kinematics("walk")
    >>> m.positions.shape, round(float(m.joint("root")[-1, 0] - m.joint("root")[0, 0]), 2)
    ((39, 15, 3), 1.24)
    """

    if isinstance(clip, str):
        try:
            name, d = clip, load_deepmimic_clip(clip)
        except InputError as exc:
            raise InputError("clip", f"{clip!r} is not a DeepMimic clip", exc.expected) from exc
    elif isinstance(clip, dict) and "frames" in clip and "duration" in clip:
        name, d = "clip", clip
    else:
        raise InputError("clip", f"got {type(clip).__name__}", "a DeepMimic clip name or a dict from load_deepmimic_clip")
    F = np.asarray(d["frames"], dtype=np.float64)
    if F.ndim != 2 or F.shape[1] != 43 or not np.all(np.isfinite(F)):
        raise InputError("clip", f"has frames of shape {F.shape}", "finite DeepMimic frames of shape (T, 43)")
    sk = load_deepmimic_skeleton()
    pos, rot = sk.forward_kinematics(_clip_qpos(F, sk))
    times = np.concatenate([[0.0], np.cumsum(np.asarray(d["duration"], dtype=np.float64))[:-1]])
    return MotionFK(name, sk.bodies, sk.parents, pos, rot, times, sk.up)


def _deepmimic_dir():
    try:
        import pybullet_data
    except ImportError as exc:
        raise ImportError("load_deepmimic_clip needs pybullet's data: pip install pybullet") from exc
    return os.path.join(pybullet_data.getDataPath(), "data", "motions")


def load_deepmimic_clip(name):
    """A DeepMimic motion clip: ``{"frames": (T, 44), "duration": (T,), "loop": str}``.

    Each frame row is the DeepMimic layout: duration, root position (3), root quaternion (w, x, y, z),
    then joint rotations (quaternions for spherical joints, angles for revolute ones).

    Parameters
    ----------
    name : str
        A clip name such as ``"walk"`` (file ``humanoid3d_walk.txt``).

    Examples
    --------
    >>> from iclr26sci.geom import load_deepmimic_clip
    >>> load_deepmimic_clip("walk")["frames"].shape[1]
    43
    """
    import json

    root = _deepmimic_dir()
    names = sorted(f[len("humanoid3d_"):-4] for f in os.listdir(root) if f.startswith("humanoid3d_"))
    if not isinstance(name, str) or name not in names:
        raise InputError("name", f"got {name!r}", f"one of {names}")
    with open(os.path.join(root, f"humanoid3d_{name}.txt")) as fh:
        d = json.load(fh)
    F = np.asarray(d["Frames"], dtype=np.float64)
    return {"frames": F[:, 1:], "duration": F[:, 0], "loop": d.get("Loop", "")}
