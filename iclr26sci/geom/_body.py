r"""A parametric human body with an smplx-like forward: ``(pose, shape, translation) -> vertices, joints``.

Two backends:

- ``"standin"`` (default, no external files): a procedural body on SMPL's 24-joint kinematic tree
  (topology only), with bone lengths from textbook anthropometry as fractions of the stature H
  (Drillis & Contini 1966; Winter 2009), one capsule per bone and rigid linear-blend skinning.
- ``"anny"``: NAVER's ``anny`` parametric body (PyPI; CC0 MakeHuman assets), when installed.

Forward kinematics: :math:`G_0 = [R(\theta_0) \mid J_0]`, :math:`G_j = G_{p(j)} [R(\theta_j) \mid J_j - J_{p(j)}]`,
posed joints :math:`G_j (0, 0, 0, 1)^\top + t`, and skinning
:math:`v' = \sum_j w_{vj} G_j G_j^{\mathrm{rest}\,-1} v + t` with :math:`G^{\mathrm{rest}}_j = [I \mid J_j]`
(one-hot weights: each capsule vertex follows the joint its bone hangs from).

Axes (SMPL's): y up, x towards the body's left, z forwards; metres.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import torch

from iclr26sci.core import InputError

from ._transforms import so3_exp

__all__ = ["BodyModel", "BodyOutput", "SMPL_PARENTS", "SMPL_JOINT_NAMES"]

#: SMPL's 24-joint parent list (kinematic-tree topology; no model data)
SMPL_PARENTS = (-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19, 20, 21)
SMPL_JOINT_NAMES = ("pelvis", "left_hip", "right_hip", "spine1", "left_knee", "right_knee", "spine2", "left_ankle",
                    "right_ankle", "spine3", "left_foot", "right_foot", "neck", "left_collar", "right_collar", "head",
                    "left_shoulder", "right_shoulder", "left_elbow", "right_elbow", "left_wrist", "right_wrist",
                    "left_hand", "right_hand")
N_SHAPE = 4
_LEG = {4, 5, 7, 8, 10, 11}          # joints whose offset from the parent is a leg bone
_TRUNK = {3, 6, 9, 12, 15}           # spine, neck and head bones
_ARM = {18, 19, 20, 21, 22, 23}      # upper arm, forearm, hand
_SHAPE_LIMIT = 10.0                  # |shape coefficient| allowed (exp(0.1 * 10) = 2.7x a body part at most)


def _rest_offsets():
    """Offsets J_j - J_parent(j) of the T-pose as fractions of stature (x left, y up, z forward).

    Lengths from Drillis & Contini's segment table: thigh 0.245, shank 0.246, foot length 0.152 with
    ankle height 0.039, upper arm 0.186, forearm 0.146, hand 0.108, shoulder breadth 0.259, hip
    breadth 0.191 (hip-joint centres at half of it), hip-to-shoulder 0.288, neck + head 0.182.
    """
    o = np.zeros((24, 3))
    hip_x, hip_drop = 0.191 / 4, 0.05
    o[1], o[2] = (hip_x, -hip_drop, 0), (-hip_x, -hip_drop, 0)
    o[4] = o[5] = (0, -0.245, 0)
    o[7] = o[8] = (0, -0.246, 0)
    o[10] = o[11] = (0, -0.039, 0.108)          # ankle -> ball of the foot (0.152 foot, heel behind the ankle)
    pelvis_to_shoulder = 0.288 - hip_drop       # hip-to-shoulder height, measured from the hip joints
    o[3], o[6], o[9] = (0, 0.06, 0), (0, 0.07, 0), (0, 0.03, 0)
    o[12] = (0, pelvis_to_shoulder - 0.16, 0)    # neck at shoulder height
    o[13], o[14] = (0.04, 0.06, 0), (-0.04, 0.06, 0)
    o[15] = (0, 0.091, 0)                        # neck -> head centre (half of neck + head)
    sh_x, sh_y = 0.259 / 2 - 0.04, pelvis_to_shoulder - 0.16 - 0.06
    o[16], o[17] = (sh_x, sh_y, 0), (-sh_x, sh_y, 0)
    o[18], o[19] = (0.186, 0, 0), (-0.186, 0, 0)
    o[20], o[21] = (0.146, 0, 0), (-0.146, 0, 0)
    o[22], o[23] = (0.108 * 0.6, 0, 0), (-0.108 * 0.6, 0, 0)   # wrist -> knuckles
    return o


#: capsule radius per bone (indexed by the child joint), fraction of stature; 0 = no capsule
_RADII = {1: 0.05, 2: 0.05, 3: 0.075, 4: 0.048, 5: 0.048, 6: 0.08, 7: 0.035, 8: 0.035, 9: 0.085, 10: 0.025, 11: 0.025,
          12: 0.035, 13: 0.035, 14: 0.035, 15: 0.032, 16: 0.035, 17: 0.035, 18: 0.03, 19: 0.03, 20: 0.024,
          21: 0.024, 22: 0.018, 23: 0.018}
#: end segments beyond a leaf joint: joint -> (offset as fraction of stature, radius)
_ENDS = {15: ((0, 0.091, 0.01), 0.06), 22: ((0.108 * 0.4, 0, 0), 0.016), 23: ((-0.108 * 0.4, 0, 0), 0.016),
         10: ((0, 0, 0.044), 0.022), 11: ((0, 0, 0.044), 0.022)}


def _capsule_template(n_around, n_cap):
    """Unit capsule along +z from (0,0,0) to (0,0,1): (s in {0..1}, cap offset (3,)) per vertex and faces."""
    rings = []  # (s, ring radius factor, z offset factor)
    for k in range(n_cap, 0, -1):                       # bottom cap (south pole excluded, added below)
        a = (math.pi / 2) * k / n_cap
        rings.append((0.0, math.cos(a), -math.sin(a)))
    rings.append((0.0, 1.0, 0.0))
    rings.append((1.0, 1.0, 0.0))
    for k in range(1, n_cap + 1):
        a = (math.pi / 2) * k / n_cap
        rings.append((1.0, math.cos(a), math.sin(a)))
    rings = [r for r in rings if r[1] > 1e-9]
    S, P = [], []
    phi = 2 * math.pi * np.arange(n_around) / n_around
    for s, rho, z in rings:
        for p in phi:
            S.append(s)
            P.append((rho * math.cos(p), rho * math.sin(p), z))
    S += [0.0, 1.0]
    P += [(0.0, 0.0, -1.0), (0.0, 0.0, 1.0)]
    nr, F = len(rings), []
    for r in range(nr - 1):
        for i in range(n_around):
            a, b = r * n_around + i, r * n_around + (i + 1) % n_around
            c, d = a + n_around, b + n_around
            F += [[a, c, b], [b, c, d]]
    south, north = nr * n_around, nr * n_around + 1
    for i in range(n_around):
        F.append([south, i, (i + 1) % n_around])   # outward-facing at the bottom (normal -z)
        top = (nr - 1) * n_around
        F.append([north, top + (i + 1) % n_around, top + i])
    return np.array(S), np.array(P), np.array(F, dtype=np.int64)


def _frame(direction):
    """An orthonormal frame (e1, e2, e3 = unit direction)."""
    e3 = direction / np.linalg.norm(direction)
    a = np.array([1.0, 0, 0]) if abs(e3[0]) < 0.9 else np.array([0, 1.0, 0])
    e1 = np.cross(e3, a)
    e1 /= np.linalg.norm(e1)
    return np.stack([e1, np.cross(e3, e1), e3], 1)     # columns


@dataclass
class BodyOutput:
    """Posed body.

    Attributes
    ----------
    vertices : tensor (B, V, 3)
    joints : tensor (B, J, 3)
    transforms : tensor (B, J, 4, 4)
        World transforms :math:`G_j` of the joints (translation included).

    Examples
    --------
    >>> BodyModel()()
    BodyOutput(batch=1, vertices=2072, joints=24)
    """

    vertices: torch.Tensor
    joints: torch.Tensor
    transforms: torch.Tensor

    def __repr__(self):
        return f"BodyOutput(batch={self.vertices.shape[0]}, vertices={self.vertices.shape[1]}, joints={self.joints.shape[1]})"


class BodyModel(torch.nn.Module):
    r"""A differentiable parametric body: ``forward(pose, shape, translation) -> BodyOutput``.

    Parameters
    ----------
    kind : {"standin", "anny"}
        ``"standin"``: the procedural SMPL-topology body (24 joints, ``pose`` of 72 = 24 x 3
        axis-angle values with the global orientation first, ``shape`` of 4: log-stature,
        leg/trunk ratio, arm ratio, girth). ``"anny"``: NAVER's anny body (``pip install anny``;
        104 bones, 13,718 vertices; ``pose`` = per-bone axis-angle deltas of anny's rig,
        ``shape`` = its 6 phenotypes gender, age, muscle, weight, height, proportions in [0, 1],
        default 0.5). The first ``BodyModel("anny")`` builds anny's cache (about 2.5 minutes on
        2 loaded cores; about 1 s afterwards).
    stature : float
        Stature in metres at ``shape = 0`` (standin; default 1.70).
    n_around, n_cap : int
        Capsule tessellation (standin): vertices per ring and rings per hemispherical cap.
    dtype : torch.dtype
        Of the template buffers (default float32); inputs are cast to it.

    Attributes
    ----------
    parents : tuple of int
        Parent joint of each joint (-1 for the root).
    faces : ndarray (F, 3)
        Triangles of the surface (outward winding).
    joint_names : tuple of str
    contact_vertices : ndarray of int
        Indices of the sole vertices (under the ankle/foot capsules), for contact labels.
    n_pose, n_shape : int
        Lengths of the pose and shape vectors.

    Notes
    -----
    Shape :math:`\beta` acts on the rest joints only through bone *lengths*: bone :math:`j`'s offset is
    :math:`o_j(\beta) = H e^{0.06\beta_0} s_j(\beta) \hat o_j` with :math:`s_j = e^{0.05\beta_1}` for leg
    bones, :math:`e^{-0.05\beta_1}` for trunk bones, :math:`e^{0.05\beta_2}` for arm bones, and
    capsule radii :math:`r_j H e^{0.06\beta_0} e^{0.1\beta_3}`. So bone directions in any pose are
    independent of :math:`\beta`.

    References
    ----------
    M. Loper et al., "SMPL: A skinned multi-person linear model", ACM TOG 34(6), 2015 (the tree).
    D. A. Winter, "Biomechanics and Motor Control of Human Movement", 4th ed., Wiley 2009, Table 4.1.

    Examples
    --------
    >>> import torch
    >>> body = BodyModel("standin")
    >>> out = body(torch.zeros(2, 72), torch.zeros(2, 4), torch.zeros(2, 3))
    >>> out.joints.shape, out.vertices.shape[0]
    (torch.Size([2, 24, 3]), 2)
    >>> round(float(out.joints[0, 15, 1] - out.joints[0, 7, 1]), 3)   # head centre above the ankle
    1.479
    """

    def __init__(self, kind="standin", *, stature=1.70, n_around=12, n_cap=3, dtype=torch.float32):
        super().__init__()
        if kind not in ("standin", "anny"):
            raise InputError("kind", f"got {kind!r}", "'standin' or 'anny'")
        if isinstance(stature, bool) or not isinstance(stature, Real) or not (0.3 <= stature <= 2.8):
            raise InputError("stature", f"got {stature!r}", "a stature in metres in [0.3, 2.8]")
        for nm, v, lo in (("n_around", n_around, 3), ("n_cap", n_cap, 1)):
            if isinstance(v, bool) or not isinstance(v, Integral) or v < lo:
                raise InputError(nm, f"got {v!r}", f"an integer >= {lo}")
        if dtype not in (torch.float32, torch.float64):
            raise InputError("dtype", f"got {dtype!r}", "torch.float32 or torch.float64")
        self.kind, self.stature = kind, float(stature)
        self.dtype_ = dtype
        if kind == "anny":
            self._init_anny()
            return
        self.parents = SMPL_PARENTS
        self.joint_names = SMPL_JOINT_NAMES
        self.n_pose, self.n_shape = 3 * len(SMPL_PARENTS), N_SHAPE
        off = _rest_offsets()
        group = np.zeros(24, dtype=np.int64)   # 0 other, 1 leg, 2 trunk, 3 arm
        group[list(_LEG)], group[list(_TRUNK)], group[list(_ARM)] = 1, 2, 3
        self.register_buffer("_unit_offsets", torch.as_tensor(off, dtype=dtype))
        self.register_buffer("_group", torch.as_tensor(group))
        # capsules: (start joint, end = start + offset) in rest coordinates, all as fractions of H
        S, P, Ft = _capsule_template(n_around, n_cap)
        seg_start, seg_vec, seg_r, seg_j, seg_frame, faces, bone_of, vidx = [], [], [], [], [], [], [], 0
        for j in range(1, 24):
            seg_start.append(SMPL_PARENTS[j])
            seg_vec.append(("bone", j))
            seg_r.append(_RADII[j])
            seg_j.append(SMPL_PARENTS[j])
        for j, (o, r) in _ENDS.items():
            seg_start.append(j)
            seg_vec.append(("end", j))
            seg_r.append(r)
            seg_j.append(j)
        vs, ps, ss, segs = [], [], [], []
        for k, (kind_, j) in enumerate(seg_vec):
            d = off[j] if kind_ == "bone" else np.asarray(_ENDS[j][0], float)
            fr = _frame(d)
            seg_frame.append(fr)
            ps.append(P)
            ss.append(S)
            segs.append(np.full(len(S), k))
            faces.append(Ft + vidx)
            vidx += len(S)
        self._n_seg = len(seg_vec)
        self._seg_info = seg_vec
        self.register_buffer("_v_s", torch.as_tensor(np.concatenate(ss), dtype=dtype))
        self.register_buffer("_v_p", torch.as_tensor(np.concatenate(ps), dtype=dtype))
        self.register_buffer("_v_seg", torch.as_tensor(np.concatenate(segs)))
        self.register_buffer("_seg_frame", torch.as_tensor(np.stack(seg_frame), dtype=dtype))
        self.register_buffer("_seg_r", torch.as_tensor(seg_r, dtype=dtype))
        self.register_buffer("_seg_start", torch.as_tensor(seg_start))
        self.register_buffer("_seg_is_end", torch.as_tensor([k == "end" for k, _ in seg_vec]))
        self.register_buffer("_seg_child", torch.as_tensor([j for _, j in seg_vec]))
        self.register_buffer("_seg_group", torch.as_tensor([int(group[j]) if k == "bone" else 0 for k, j in seg_vec]))
        self.register_buffer("_end_offsets", torch.as_tensor(
            np.stack([np.asarray(_ENDS[j][0]) if k == "end" else np.zeros(3) for k, j in seg_vec]), dtype=dtype))
        self.skin_joint = np.asarray(seg_j)[np.concatenate(segs)]   # joint each vertex follows
        self.faces = np.concatenate(faces)
        # sole: vertices of the ankle->foot and toe capsules in the lowest quarter of their radius
        with torch.no_grad():
            V0 = self._rest_vertices(torch.zeros(1, N_SHAPE, dtype=dtype))[0].numpy()
        foot_segs = [k for k, (kd, j) in enumerate(seg_vec) if j in (10, 11)]
        on_foot = np.isin(np.concatenate(segs), foot_segs)
        ymin = V0[on_foot, 1].min()
        self.contact_vertices = np.nonzero(on_foot & (V0[:, 1] <= ymin + 0.25 * 0.025 * self.stature))[0]

    # ------------------------------------------------------------------ anny
    def _init_anny(self):
        try:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    import warp

                    warp.config.quiet = True   # no start-up banner on stdout
                except Exception:  # pragma: no cover - anny then fails or works without it
                    pass
                import anny

                model = anny.Anny()
        except Exception as exc:
            raise ImportError("BodyModel('anny') needs the anny package (CC0 MakeHuman assets): pip install anny; "
                              f"loading it failed with: {exc}") from exc
        self._anny = model.to(self.dtype_)
        self.parents = tuple(int(p) for p in model.bone_parents)
        self.joint_names = tuple(model.bone_labels)
        self.phenotype_labels = tuple(model.phenotype_labels)
        self.n_pose, self.n_shape = 3 * len(self.parents), len(self.phenotype_labels)
        self.faces = np.asarray(model.faces)
        self.contact_vertices = np.zeros(0, dtype=np.int64)

    def _forward_anny(self, pose, shape, translation, B):
        """anny: pose = per-bone axis-angle deltas (B, n_bones * 3); shape = phenotypes in [0, 1] (0.5 = mean)."""
        R = so3_exp(pose.reshape(B, -1, 3))
        D = torch.zeros(B, R.shape[1], 4, 4, dtype=self.dtype_)
        D[..., :3, :3], D[..., 3, 3] = R, 1.0
        out = self._anny(D, phenotype_kwargs=shape)
        T = out["bone_poses"].clone()
        T[..., :3, 3] = T[..., :3, 3] + translation[:, None]
        return BodyOutput(vertices=out["vertices"] + translation[:, None], joints=T[..., :3, 3], transforms=T)

    # ------------------------------------------------------------------ helpers
    def _standin_only(self, what):
        if self.kind != "standin":
            raise InputError("kind", f"{what} is defined for the 'standin' body, not {self.kind!r}",
                             "BodyModel('standin'), or read anny's rest joints from forward()")

    def _check_batch(self, x, name, n, B=None):
        if x is None:
            return None
        if not isinstance(x, torch.Tensor):
            try:
                x = torch.as_tensor(np.asarray(x, dtype=np.float64))
            except (TypeError, ValueError):
                raise InputError(name, f"got {type(x).__name__}", f"a numeric tensor of shape (B, {n})") from None
        if x.ndim == 3 and name == "pose" and tuple(x.shape[1:]) == (len(self.parents), 3):
            x = x.reshape(x.shape[0], -1)
        if x.ndim == 1:
            x = x[None]
        if x.ndim != 2 or x.shape[1] != n:
            raise InputError(name, f"has shape {tuple(x.shape)}", f"shape (B, {n})"
                             + (f" or (B, {len(self.parents)}, 3) axis-angle, global orientation first"
                                if name == "pose" else ""))
        if B is not None and x.shape[0] not in (1, B):
            raise InputError(name, f"has batch size {x.shape[0]}", f"batch size {B} (or 1, broadcast)")
        if not torch.isfinite(x).all():
            raise InputError(name, "contains NaN or inf", "finite values")
        if name == "shape" and bool((x.abs() > _SHAPE_LIMIT).any()):
            raise InputError(name, f"has coefficients up to {float(x.abs().max()):g} in magnitude",
                             f"shape coefficients in [-{_SHAPE_LIMIT:g}, {_SHAPE_LIMIT:g}] (each scales a body part "
                             "by exp(0.05-0.1 x coefficient))")
        return x.to(self.dtype_)

    def rest_joints(self, shape=None) -> torch.Tensor:
        """Rest (T-pose) joint positions (B, 24, 3) in metres, pelvis at the origin (standin)."""
        self._standin_only("rest_joints")
        shape = self._check_batch(torch.zeros(1, self.n_shape) if shape is None else shape, "shape", self.n_shape)
        off = self.bone_offsets(shape)
        J = [off[:, 0]]
        for j in range(1, len(self.parents)):
            J.append(J[self.parents[j]] + off[:, j])
        return torch.stack(J, 1)

    def bone_offsets(self, shape) -> torch.Tensor:
        """Rest offsets ``J_j - J_parent(j)`` (B, 24, 3) for shape parameters ``shape`` (B, 4) (standin)."""
        self._standin_only("bone_offsets")
        shape = self._check_batch(shape, "shape", self.n_shape)
        scale = self.stature * torch.exp(0.06 * shape[:, 0])
        g = torch.stack([torch.zeros_like(shape[:, 1]), 0.05 * shape[:, 1], -0.05 * shape[:, 1], 0.05 * shape[:, 2]], 1)
        s = torch.exp(g[:, self._group])                         # (B, 24)
        return scale[:, None, None] * s[..., None] * self._unit_offsets[None]

    def _rest_vertices(self, shape):
        scale = self.stature * torch.exp(0.06 * shape[:, 0])
        J = self.rest_joints(shape)
        off = self.bone_offsets(shape)
        end = scale[:, None, None] * self._end_offsets[None]
        vec = torch.where(self._seg_is_end[None, :, None], end, off[:, self._seg_child])        # (B, S, 3)
        length = vec.norm(dim=-1)                                                              # (B, S)
        radius = scale[:, None] * torch.exp(0.1 * shape[:, 3])[:, None] * self._seg_r[None]
        a = J[:, self._seg_start]                                                              # (B, S, 3)
        seg = self._v_seg
        local = torch.stack([radius[:, seg] * self._v_p[None, :, 0], radius[:, seg] * self._v_p[None, :, 1],
                             length[:, seg] * self._v_s[None] + radius[:, seg] * self._v_p[None, :, 2]], -1)
        return a[:, seg] + torch.einsum("vab,nvb->nva", self._seg_frame[seg], local)

    # ------------------------------------------------------------------ forward
    def forward(self, pose=None, shape=None, translation=None) -> BodyOutput:
        """Posed vertices and joints.

        Parameters
        ----------
        pose : tensor (B, 72) or (B, 24, 3), optional
            Axis-angle rotation of each joint relative to its parent (joint 0 = global orientation).
            Default: the rest pose.
        shape : tensor (B, 4), optional
            Shape coefficients (log-stature, leg/trunk, arm, girth); default 0.
        translation : tensor (B, 3), optional
            Added to every output point; default 0.

        Returns
        -------
        BodyOutput
        """
        B = max((x.shape[0] if hasattr(x, "shape") and len(x.shape) > 1 else 1)
                for x in (pose, shape, translation) if x is not None) if any(
            x is not None for x in (pose, shape, translation)) else 1
        pose = self._check_batch(pose, "pose", self.n_pose, B)
        shape = self._check_batch(shape, "shape", self.n_shape, B)
        translation = self._check_batch(translation, "translation", 3, B)
        z = torch.zeros(B, 1, dtype=self.dtype_)
        pose = z.expand(B, self.n_pose) if pose is None else pose.expand(B, -1)
        shape = (z + (0.5 if self.kind == "anny" else 0.0)).expand(B, self.n_shape) if shape is None \
            else shape.expand(B, -1)
        translation = z.expand(B, 3) if translation is None else translation.expand(B, -1)
        if self.kind == "anny":
            return self._forward_anny(pose, shape, translation, B)
        R = so3_exp(pose.reshape(B, -1, 3))                         # (B, 24, 3, 3)
        off = self.bone_offsets(shape)
        J = self.rest_joints(shape)
        Rs, ts = [R[:, 0]], [off[:, 0]]
        for j in range(1, len(self.parents)):
            p = self.parents[j]
            Rs.append(Rs[p] @ R[:, j])
            ts.append(ts[p] + (Rs[p] @ off[:, j, :, None])[..., 0])
        Rg, tg = torch.stack(Rs, 1), torch.stack(ts, 1)            # (B, 24, 3, 3), (B, 24, 3)
        joints = tg + translation[:, None]
        V = self._rest_vertices(shape)                              # (B, V, 3)
        sj = torch.as_tensor(self.skin_joint)
        Vp = torch.einsum("nvab,nvb->nva", Rg[:, sj], V - J[:, sj]) + tg[:, sj] + translation[:, None]
        T = torch.zeros(B, len(self.parents), 4, 4, dtype=self.dtype_)
        T[:, :, :3, :3], T[:, :, :3, 3], T[:, :, 3, 3] = Rg, joints, 1.0
        return BodyOutput(vertices=Vp, joints=joints, transforms=T)

    def __repr__(self):
        nv = len(self.skin_joint) if self.kind == "standin" else int(self.faces.max()) + 1
        return (f"BodyModel({self.kind!r}, {len(self.parents)} joints, {nv} vertices, "
                f"stature={self.stature})")
