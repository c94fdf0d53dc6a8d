r"""Body joint layouts for LIGHT: which joints form the ``body`` token and which the ``hands`` token.

LIGHT factors a frame into body, hands and object tokens; contact is measured on the hand joints. A layout
names the joints of a skeleton (in the order of a ``(..., J, 3)`` joint-position array), the joints of the
``hands`` token (the contact joints: wrists and, where the skeleton has them, the fingers) and the foot joints.
The rest form the ``body`` token, in skeleton order. Named layouts (:data:`BODY_LAYOUTS`):

=============  ====  ==========================================================  =============  ============
name           J     hands token                                                 body features  hands feat.
=============  ====  ==========================================================  =============  ============
``deepmimic``  15    the two wrists (the DeepMimic humanoid has no fingers)      39             6
``smpl_body``  22    the two wrists (SMPL joints 20, 21; the HumanML3D body)     60             6
``smpl``       24    wrists and hand bases (20-23)                               60             12
``smplh``      52    wrists and the 2 x 15 finger joints (20, 21, 22-51)         60             96
``smplx``      55    wrists and the 2 x 15 finger joints (20, 21, 25-54)         69 (jaw, eyes) 96
=============  ====  ==========================================================  =============  ============

The SMPL-family joint order is the SMPL / SMPL-H / SMPL-X kinematic order (Loper et al. 2015; Romero et al.
2017; Pavlakos et al. 2019), as the ``smplx`` package returns it (its first 22 / 24 / 52 / 55 joints); positions
only: pose *parameters* (axis-angle) need the body model's forward kinematics, which is not shipped here. A
skeleton of another joint count takes a :class:`BodyLayout` of its own.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr26sci.core import InputError

__all__ = ["BodyLayout", "BODY_LAYOUTS", "body_layout", "split_joints"]

_SMPL22 = ("pelvis", "left_hip", "right_hip", "spine1", "left_knee", "right_knee", "spine2", "left_ankle",
           "right_ankle", "spine3", "left_foot", "right_foot", "neck", "left_collar", "right_collar", "head",
           "left_shoulder", "right_shoulder", "left_elbow", "right_elbow", "left_wrist", "right_wrist")
_FINGERS = tuple(f"{f}{k}" for f in ("index", "middle", "pinky", "ring", "thumb") for k in (1, 2, 3))
_HANDS15 = tuple(f"left_{f}" for f in _FINGERS) + tuple(f"right_{f}" for f in _FINGERS)
_DEEPMIMIC = ("root", "chest", "neck", "right_shoulder", "right_elbow", "left_shoulder", "left_elbow",
              "right_hip", "right_knee", "right_ankle", "left_hip", "left_knee", "left_ankle", "right_wrist",
              "left_wrist")


@dataclass(frozen=True)
class BodyLayout:
    """A skeleton's joint names, its hand (contact) joints and its foot joints.

    Parameters
    ----------
    name : str
    joints : tuple of str
        Joint names in the order of the joint-position arrays (``J`` names).
    hand_joints : tuple of int
        Indices (into ``joints``) of the ``hands`` token, in token order; contact is measured on these.
    foot_joints : tuple of int
        Indices of the foot joints (ankles and feet), for foot-contact analyses.
    root : int
        Index of the root joint (its height is a motion feature); it must be a body joint.

    Examples
    --------
    >>> lay = BodyLayout("arm", ("root", "elbow", "wrist"), hand_joints=(2,), foot_joints=(), root=0)
    >>> lay.n_joints, lay.body_joints, lay.dims
    (3, (0, 1), {'body': 6, 'hands': 3})
    """

    name: str
    joints: tuple
    hand_joints: tuple
    foot_joints: tuple = ()
    root: int = 0

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise InputError("name", f"got {self.name!r}", "a non-empty layout name")
        if isinstance(self.joints, str) or not isinstance(self.joints, (tuple, list)) or len(self.joints) < 2 or \
                not all(isinstance(j, str) for j in self.joints) or len(set(self.joints)) != len(self.joints):
            raise InputError("joints", f"got {self.joints!r}", "a tuple of at least 2 distinct joint names")
        J = len(self.joints)
        for what in ("hand_joints", "foot_joints"):
            v = getattr(self, what)
            if not isinstance(v, (tuple, list)) or not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool)
                                                         and 0 <= i < J for i in v) or len(set(v)) != len(v):
                raise InputError(what, f"got {v!r}", f"distinct joint indices in [0, {J})")
        if not self.hand_joints or len(self.hand_joints) == J:
            raise InputError("hand_joints", f"has {len(self.hand_joints)} of {J} joints",
                             "at least one hand joint and at least one body joint")
        if not isinstance(self.root, (int, np.integer)) or isinstance(self.root, bool) or not 0 <= self.root < J \
                or self.root in self.hand_joints:
            raise InputError("root", f"got {self.root!r}", f"a body (non-hand) joint index in [0, {J})")
        object.__setattr__(self, "joints", tuple(self.joints))
        object.__setattr__(self, "hand_joints", tuple(int(i) for i in self.hand_joints))
        object.__setattr__(self, "foot_joints", tuple(int(i) for i in self.foot_joints))
        object.__setattr__(self, "root", int(self.root))

    @property
    def n_joints(self) -> int:
        """Number of joints J."""
        return len(self.joints)

    @property
    def body_joints(self) -> tuple:
        """Indices of the ``body`` token's joints (every non-hand joint, skeleton order)."""
        h = set(self.hand_joints)
        return tuple(i for i in range(self.n_joints) if i not in h)

    @property
    def dims(self) -> dict:
        """Feature sizes of the body and hands tokens (3 per joint)."""
        return {"body": 3 * len(self.body_joints), "hands": 3 * len(self.hand_joints)}

    @property
    def root_feature(self) -> int:
        """Column of the root joint's x coordinate in the body token."""
        return 3 * self.body_joints.index(self.root)

    def to_dict(self) -> dict:
        """Plain data: name, joints, hand and foot joints, root."""
        return {"name": self.name, "joints": list(self.joints), "hand_joints": list(self.hand_joints),
                "foot_joints": list(self.foot_joints), "root": self.root}

    def __repr__(self):
        return f"BodyLayout({self.name!r}, {self.n_joints} joints, {len(self.hand_joints)} hand joints)"


def _idx(names, want):
    return tuple(names.index(w) for w in want)


def _make_layouts():
    feet = ("left_ankle", "right_ankle", "left_foot", "right_foot")
    smpl24 = _SMPL22 + ("left_hand", "right_hand")
    smplh = _SMPL22 + _HANDS15
    smplx = _SMPL22 + ("jaw", "left_eye", "right_eye") + _HANDS15
    out = {
        "deepmimic": BodyLayout("deepmimic", _DEEPMIMIC, _idx(_DEEPMIMIC, ("right_wrist", "left_wrist")),
                                _idx(_DEEPMIMIC, ("right_ankle", "left_ankle")), 0),
        "smpl_body": BodyLayout("smpl_body", _SMPL22, (20, 21), _idx(_SMPL22, feet), 0),
        "smpl": BodyLayout("smpl", smpl24, (20, 21, 22, 23), _idx(smpl24, feet), 0),
        "smplh": BodyLayout("smplh", smplh, (20, 21) + tuple(range(22, 52)), _idx(smplh, feet), 0),
        "smplx": BodyLayout("smplx", smplx, (20, 21) + tuple(range(25, 55)), _idx(smplx, feet), 0),
    }
    return out


#: the named layouts, by name
BODY_LAYOUTS = _make_layouts()
_BY_COUNT = {lay.n_joints: lay for lay in BODY_LAYOUTS.values()}


def body_layout(layout=None, *, n_joints=None) -> BodyLayout:
    """A :class:`BodyLayout`: the one given, the named one, or the named one with ``n_joints`` joints.

    Examples
    --------
    >>> body_layout("smplh").dims
    {'body': 60, 'hands': 96}
    >>> body_layout(n_joints=55).name
    'smplx'
    """
    if isinstance(layout, BodyLayout):
        lay = layout
    elif isinstance(layout, str):
        if layout not in BODY_LAYOUTS:
            raise InputError("layout", f"got {layout!r}", f"a name from {list(BODY_LAYOUTS)} or a BodyLayout")
        lay = BODY_LAYOUTS[layout]
    elif layout is None:
        if n_joints is None:
            raise InputError("layout", "is None and no joint count was given", "a layout name or a BodyLayout")
        if n_joints not in _BY_COUNT:
            raise InputError("joints", f"has {n_joints} joints, which no named layout has",
                             f"one of {sorted(_BY_COUNT)} joints ({', '.join(f'{k}: {v.n_joints}' for k, v in BODY_LAYOUTS.items())}), "
                             "or layout=BodyLayout(...) naming the hand joints of this skeleton")
        lay = _BY_COUNT[n_joints]
    else:
        raise InputError("layout", f"got {type(layout).__name__}", f"None, a name from {list(BODY_LAYOUTS)} or a BodyLayout")
    if n_joints is not None and n_joints != lay.n_joints:
        raise InputError("joints", f"has {n_joints} joints but layout {lay.name!r} has {lay.n_joints}",
                         f"(N, T, {lay.n_joints}, 3) or (N, T, {3 * lay.n_joints}) joint positions")
    return lay


def layout_from_dims(body_dim: int, hands_dim: int) -> BodyLayout:
    """The named layout whose body and hands tokens have these feature sizes (for :meth:`HOISequences.from_arrays`)."""
    for lay in BODY_LAYOUTS.values():
        if lay.dims == {"body": body_dim, "hands": hands_dim}:
            return lay
    known = "; ".join(f"{k}: body {v.dims['body']}, hands {v.dims['hands']}" for k, v in BODY_LAYOUTS.items())
    raise InputError("body", f"has {body_dim} features per frame with {hands_dim} hand features, which no named "
                     "layout has", f"one of ({known}), or layout=BodyLayout(...), or HOISequences.from_joints")


def split_joints(joints, layout=None):
    """Split joint positions into ``(body, hands, layout)`` feature arrays.

    ``joints``: ``(N, T, J, 3)``, or ``(N, T, 3 J)`` flat (e.g. 66 = 22 x 3 for the SMPL body, 156 = 52 x 3 for
    SMPL-H). A three-dimensional array whose last axis is 3 is refused as ambiguous (one sequence of J joints, or
    N sequences of one joint?). ``layout``: a name, a :class:`BodyLayout`, or None (inferred from J).

    Examples
    --------
    >>> b, h, lay = split_joints(np.zeros((2, 8, 156)))
    >>> b.shape, h.shape, lay.name
    ((2, 8, 60), (2, 8, 96), 'smplh')
    """
    a = np.asarray(joints, dtype=np.float64) if not isinstance(joints, np.ndarray) else joints.astype(np.float64)
    if a.ndim == 4:
        if a.shape[3] != 3:
            raise InputError("joints", f"has shape {a.shape}", "(N, T, J, 3) joint positions or (N, T, 3 J) flat")
        J = a.shape[2]
    elif a.ndim == 3:
        if a.shape[2] == 3:
            raise InputError("joints", f"has shape {a.shape}, which is ambiguous (one sequence of {a.shape[1]} joints, "
                             f"or {a.shape[0]} sequences of one joint?)", "(N, T, J, 3) or (N, T, 3 J) with a leading "
                             "sequence axis (add one with joints[None] for a single sequence)")
        if a.shape[2] % 3:
            raise InputError("joints", f"has {a.shape[2]} features per frame, not a multiple of 3",
                             "(N, T, 3 J) flat joint positions (x, y, z per joint)")
        J = a.shape[2] // 3
        a = a.reshape(a.shape[0], a.shape[1], J, 3)
    else:
        raise InputError("joints", f"has {a.ndim} dimensions", "(N, T, J, 3) or (N, T, 3 J) joint positions")
    if not np.all(np.isfinite(a)):
        raise InputError("joints", "has non-finite values", "finite joint positions")
    lay = body_layout(layout, n_joints=J)
    N, T = a.shape[:2]
    body = a[:, :, list(lay.body_joints)].reshape(N, T, -1)
    hands = a[:, :, list(lay.hand_joints)].reshape(N, T, -1)
    return body, hands, lay


def merge_joints(body, hands, layout: BodyLayout) -> np.ndarray:
    """Inverse of :func:`split_joints`: (N, T, J, 3) positions in the layout's joint order."""
    N, T = body.shape[:2]
    out = np.empty((N, T, layout.n_joints, 3))
    out[:, :, list(layout.body_joints)] = body.reshape(N, T, -1, 3)
    out[:, :, list(layout.hand_joints)] = hands.reshape(N, T, -1, 3)
    return out
