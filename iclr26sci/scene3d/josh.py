r"""JOSH: joint optimisation of cameras, scene and humans from monocular video (Liu, Lin, Wu & Zhou, ICLR 2026).

JOSH (arXiv:2501.02158; official code github.com/genforce/JOSH) takes per-frame predictions of off-the-shelf
networks -- depth / point maps and pairwise matches (MASt3R, Pi3X), a human mask, camera-frame body fits (an HMR
model such as VIMO) and per-vertex contact labels (DECO) -- and optimises, *jointly*,

- the cameras, as a kinematic chain on the minimum spanning tree of the pairwise match scores
  (:math:`P^j = P^{p(j)} [R_j \mid t_j]`, the root is the world frame),
- one scale :math:`\sigma^t = e^{\ell^t}` per frame, multiplying that frame's depth,
- one focal length :math:`f` shared by all frames,
- the human's pose :math:`\theta^t`, root orientation and translation :math:`\tau^t` in each camera's frame, and
  one shape :math:`\beta`.

The objective (the released code's form, ``sparse_scene_optimizer`` in ``josh/utils/josh_utils.py``) is

.. math::

    L = L_\mathrm{scene} + w_{c1} L_{c1} + w_{c2} L_{c2} + w_p L_\mathrm{prior} + w_{sm} L_\mathrm{smooth},

with the robust penalty :math:`\rho_\gamma(r) = (r + c_\gamma)^\gamma - c_\gamma^\gamma`,
:math:`c_\gamma = (1/\gamma)^{1/(\gamma-1)}` (:func:`gamma_loss`):

- :math:`L_\mathrm{scene}`: phase 1 ("coarse"/"scene") the 3-D matching loss
  :math:`\sum_m w_m \rho_{1.1}(|X_i(m) - X_j(m)|)/\sum w`, phase 2 ("fine"/"joint") the reprojection loss
  :math:`\sum_m w_m \rho_{0.4}(|\pi(K, P_i^{-1} X_j(m)) - p_i(m)|)/\sum w` (both directions), where a pixel
  :math:`p` of frame :math:`t` with observed depth :math:`d` lifts to
  :math:`X = P^t\,(g\,\sigma^t (f/f_0)\, d\, K_f^{-1} [p, 1]^\top)`;
- :math:`L_{c1}` (scale anchoring by contact): for every contact vertex :math:`v` of frame :math:`t`, project it
  with the current camera, take the nearest valid background pixel :math:`p` (outside the human mask, depth
  confidence > 0.1; rejected when the observed depths at the two pixels differ by more than the factor
  ``depth_filter_ratio``), and penalise :math:`\rho_{1.1}(|g\sigma^t (f/f_0) d^t(p) - z^t_v|)`, the depth of the
  scene point against the vertex's camera depth; the correspondences are recomputed every iteration (no gradient);
- :math:`L_{c2}` (contact stillness): :math:`\mathrm{mean}\,\rho_{1.1}(|P^t V^t_v - P^{t-1} V^{t-1}_v|)` over
  vertices in contact at both keyframes;
- :math:`L_\mathrm{smooth}`: :math:`\mathrm{mean}\,\rho_{1.1}(|(J^{t+1}-J^t)/\Delta - (J^t - J^{t-1})/\Delta'|)` over
  world joints;
- :math:`L_\mathrm{prior}`: :math:`\rho_{1.1}` distances to the HMR initialisation of the root rotation, the
  translation, the body-pose rotation matrices and the mean shape.

The human's camera depth follows the focal, :math:`\tau_z' = (f/f_0)\tau_z` (the paper's focal coupling), so a
focal change keeps the body's projection. When :math:`L_{c1}` is off the scene scale is gauge-fixed as MASt3R does
(:math:`g = 1/\min_t \sigma^t`); with it, no normalisation (the contact fixes the metric scale).

Departures from the released code, all design choices of this CPU re-implementation (stated as such):

- the body is, by default, the weight-free SMPL-topology stand-in (:class:`iclr26sci.geom.BodyModel`), since SMPL's
  weights are licensed and not shipped; ``JOSH(body_model=path)`` uses a user-supplied SMPL model file through the
  ``smplx`` package (:class:`SMPLBodyModel`, the released code's body), and any :class:`ParametricBody` on SMPL's
  24 joints can be plugged in. SMPL-family HMR fits enter through :meth:`JOSHInputs.from_smpl`;
- depth is used in MASt3R's ``"mul"`` mode with the observed depth map frozen (``optimize_depth=False`` in the
  code), without the anchor/offset sub-sampling;
- the cameras start from a Procrustes alignment along the tree (``init_cameras="procrustes"``; the released code
  starts from identities, ``"identity"``);
- all labelled contact vertices enter :math:`L_{c1}`, not only those within 5 cm of a joint;
- an optional 2-D keypoint term (``w_keypoints``, default 0: the released code has none);
- the focal receives gradients from the scene terms only: in the human and contact terms (focal coupling, L_c1's
  scene depth) it enters as a constant. With it live, every metric-unit term pulls the focal down (shrinking human
  and scene depth together); on the miniature this drove the focal 20% low from a correct start;
- the focal is estimated by a profile search (``focal_search=True``, default) instead of Adam on the log-focal in
  the fine phase: for 9 focals :math:`f_0 e^u`, :math:`u \in [-0.35, 0.35]`, cameras and scales are re-fitted by
  L-BFGS on L_3D (continuation along the grid, an outlier-trimmed re-fit) and scored by the reprojection loss with
  residuals capped at 2.5% of the image diagonal; the parabolic vertex is the focal, frozen during the phases. The
  focal is coupled to the camera rotations (a pan by :math:`\theta` shifts pixels by :math:`\theta f`; only the
  second-order term identifies :math:`f`), a curved valley in which Adam's normalised steps random-walk: from the
  true focal, the released schedule ended at 0.86 f with a higher scene loss. The cap removes a bias of the plain
  rho_0.4 score: outlier residuals grow with :math:`f`, so they pull the focal down.

References
----------
Z. Liu, J. Lin, W. Wu, B. Zhou, "Joint Optimization for 4D Human-Scene Reconstruction in the Wild", ICLR 2026,
arXiv:2501.02158. V. Leroy, Y. Cabon, J. Revaud, "Grounding Image Matching in 3D with MASt3R", ECCV 2024.
B. Duisterhof et al., "MASt3R-SfM", arXiv:2409.19152 (sparse global alignment, ``gamma_loss``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, as_generator, resolve_rng

from ._josh_data import CAMERAS, MOTIONS, SCENES, GroundTruth, Matches, _make_video, _observations

__all__ = ["JOSH", "JOSHResult", "JOSHInputs", "PairMatches", "human_scene_video", "HumanSceneVideo", "gamma_loss",
           "w_mpjpe", "wa_mpjpe", "foot_sliding", "ate", "ParametricBody", "StandinBody", "AnnyBody", "SMPLBodyModel",
           "synthetic_smpl_file"]

#: the body-model names, defined in ``_josh_body`` (loaded on first use: they need torch)
_BODY_NAMES = ("ParametricBody", "StandinBody", "AnnyBody", "SMPLBodyModel", "synthetic_smpl_file")


def __getattr__(name):
    if name in _BODY_NAMES:
        from . import _josh_body

        return getattr(_josh_body, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

PairMatches = Matches
PairMatches.__doc__ = r"""Pairwise correspondences between keyframes ``i < j`` (MASt3R-style), with depths.

Attributes
----------
i, j : int
    Keyframe indices.
pix_i, pix_j : ndarray (M, 2)
    Matched pixel coordinates (x, y) in frames ``i`` and ``j`` (pixel centres at integer + 0.5).
depth_i, depth_j : ndarray (M,)
    The depth network's depth (up to that frame's unknown scale) at each matched pixel.
conf : ndarray (M,)
    Match confidences (> 0), the weights :math:`w_m` of the scene losses.

Examples
--------
>>> import numpy as np
>>> from iclr26sci.scene3d import PairMatches
>>> PairMatches(0, 1, np.zeros((3, 2)), np.ones((3, 2)), np.ones(3), np.ones(3), np.ones(3))
Matches(0->1, 3 pairs)
"""


# ================================================================================================ robust loss
def gamma_loss(r, gamma):
    r"""MASt3R's robust penalty :math:`\rho_\gamma(r) = (r + c_\gamma)^\gamma - c_\gamma^\gamma` of a distance.

    :math:`c_\gamma = (1/\gamma)^{1/(\gamma-1)}` makes :math:`\rho'(0^+) = 1`; :math:`\rho(0) = 0`; convex for
    :math:`\gamma > 1`, concave (robust) for :math:`\gamma < 1`; :math:`\gamma = 1` is the distance itself.
    JOSH uses :math:`\gamma = 1.1` (3-D and human terms) and :math:`\gamma = 0.4` (reprojection).

    Parameters
    ----------
    r : array-like or tensor (...)
        Non-negative residual norms (e.g. ``|x - y|``).
    gamma : float
        Exponent > 0.

    Returns
    -------
    ndarray or tensor, same shape as ``r``

    Examples
    --------
    >>> round(float(gamma_loss(0.0, 1.1)), 12), round(float(gamma_loss(1.0, 1.0)), 12)
    (0.0, 1.0)
    >>> round((1.1 ** (-1 / 0.1)), 5)   # c for gamma = 1.1
    0.38554
    """
    if isinstance(gamma, bool) or not isinstance(gamma, Real) or not (0 < float(gamma) < math.inf):
        raise InputError("gamma", f"got {gamma!r}", "an exponent > 0 (1.1 and 0.4 in JOSH)")
    try:
        import torch

        is_t = isinstance(r, torch.Tensor)
    except ImportError:  # pragma: no cover
        is_t = False
    if not is_t:
        try:
            r = np.asarray(r, dtype=float)
        except (TypeError, ValueError):
            raise InputError("r", f"got {type(r).__name__}", "non-negative residual norms") from None
        if not np.all(np.isfinite(r)) or np.any(r < 0):
            raise InputError("r", "contains negative or non-finite values", "non-negative finite residual norms")
    elif not bool(torch.isfinite(r).all()) or bool((r < 0).any()):
        raise InputError("r", "contains negative or non-finite values", "non-negative finite residual norms")
    from ._josh_opt import gamma_loss_t

    return gamma_loss_t(r, float(gamma))


# ================================================================================================ inputs
def _arr(x, name, ndim=None, shape_tail=None, dtype=float, finite=True):
    try:
        a = np.asarray(x, dtype=dtype)
    except (TypeError, ValueError):
        raise InputError(name, f"got {type(x).__name__}", "a numeric array") from None
    if ndim is not None and a.ndim != ndim:
        raise InputError(name, f"has shape {a.shape}", f"an array with {ndim} dimensions"
                         + (f" (frames, {', '.join(map(str, shape_tail))})" if shape_tail else ""))
    if shape_tail is not None and tuple(a.shape[1:]) != tuple(shape_tail):
        raise InputError(name, f"has shape {a.shape}", f"shape (frames, {', '.join(map(str, shape_tail))})")
    if finite and dtype is float and not np.all(np.isfinite(a)):
        raise InputError(name, "contains NaN or infinite values", "finite values")
    return a


@dataclass
class JOSHInputs:
    r"""Per-keyframe predictions JOSH optimises from (your own networks' outputs, or :meth:`HumanSceneVideo.observations`).

    Every per-frame array has the keyframes first (``K >= 2``) and all must agree on ``K``.

    Parameters
    ----------
    depth : ndarray (K, H, W)
        Depth maps (camera z) from a depth / point-map network, each up to an unknown scale; 0 where unknown.
    confidence : ndarray (K, H, W)
        Depth confidence in [0, 1] (0 = no depth: sky, misses).
    human_mask : ndarray (K, H, W) bool
        Pixels that see the human (excluded from the scene terms).
    matches : list of PairMatches
        Pairwise correspondences between keyframes (the scene losses and the camera tree).
    body_pose : ndarray (K, 72)
        HMR body fit per frame: 24 x 3 axis-angle (SMPL's tree), the first 3 the root orientation **in the camera
        frame**. SMPL-family fits (``global_orient``, ``body_pose``, ``betas``, ``transl``) go through
        :meth:`from_smpl`.
    body_shape : ndarray (K, n_betas)
        Shape coefficients per frame (their mean initialises the one shape): 4 for the stand-in body, the SMPL
        file's ``betas`` (usually 10) for :class:`SMPLBodyModel`. Checked against JOSH's ``body_model`` in ``fit``.
    body_translation : ndarray (K, 3)
        The body model's translation in the camera frame (metres), as predicted with focal ``body_focal``: the
        pelvis position for the stand-in, SMPL's ``transl`` (added to every vertex) for an SMPL file.
    body_focal : float
        The focal (pixels, > 0) the HMR model assumed (its default is the image diagonal).
    contact : ndarray (K, n_contact) bool
        Contact label of each contact vertex of the body model (its ``contact_vertices``: the stand-in's soles;
        every vertex of an SMPL file by default, DECO's layout).
    keypoints : ndarray (K, 24, 2), optional
        2-D joints (pixels); NaN entries are masked (their confidence is set to 0).
    keypoint_conf : ndarray (K, 24), optional
        Keypoint confidences (default 1).
    frame_index : ndarray (K,), optional
        Video frame of each keyframe, increasing (default 0..K-1); the smoothness term divides by its gaps.
    principal_point : (float, float), optional
        Default: the image centre.

    Examples
    --------
    >>> v = human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)
    >>> inp = v.observations(noise="none", rng=0)
    >>> inp
    JOSHInputs(2 keyframes, 32x24, 1 match pairs)
    """

    depth: np.ndarray
    confidence: np.ndarray
    human_mask: np.ndarray
    matches: list
    body_pose: np.ndarray
    body_shape: np.ndarray
    body_translation: np.ndarray
    body_focal: float
    contact: np.ndarray
    keypoints: np.ndarray | None = None
    keypoint_conf: np.ndarray | None = None
    frame_index: np.ndarray | None = None
    principal_point: tuple | None = None
    image_size: tuple = field(init=False)

    def __post_init__(self):
        d = _arr(self.depth, "depth", 3)
        K, H, W = d.shape
        if K < 2:
            raise InputError("depth", f"has {K} frame(s)", "at least 2 keyframes (JOSH aligns frames to each other)")
        if np.any(d < 0):
            raise InputError("depth", "has negative values", "depths >= 0 (0 where unknown)")
        self.depth = d
        c = _arr(self.confidence, "confidence", 3)
        if c.shape != d.shape:
            raise InputError("confidence", f"has shape {c.shape}", f"the depth maps' shape {d.shape}")
        if np.any((c < 0) | (c > 1)):
            raise InputError("confidence", "has values outside [0, 1]", "confidences in [0, 1]")
        self.confidence = np.where(d > 0, c, 0.0)
        m = np.asarray(self.human_mask)
        if m.shape != d.shape or m.dtype != bool:
            raise InputError("human_mask", f"has shape {m.shape} and dtype {m.dtype}", f"a bool array of shape {d.shape}")
        self.human_mask = m

        def frames(name, a):
            if a.shape[0] != K:
                raise InputError(name, f"has {a.shape[0]} frames but depth has {K}", f"{K} frames, one per keyframe")
            return a

        pose = _arr(self.body_pose, "body_pose", 2)
        if pose.shape[1] != 72:
            raise InputError("body_pose", f"has {pose.shape[1]} values per frame", "72 = 24 joints x 3 axis-angle "
                             "(root orientation in the camera frame first)")
        self.body_pose = frames("body_pose", pose)
        bs = _arr(self.body_shape, "body_shape", 2)
        if bs.shape[1] < 1:
            raise InputError("body_shape", f"has shape {bs.shape}", "(frames, n_betas) with n_betas >= 1")
        self.body_shape = frames("body_shape", bs)
        tr = frames("body_translation", _arr(self.body_translation, "body_translation", 2, (3,)))
        if np.any(tr[:, 2] <= 0):
            raise InputError("body_translation", "has a pelvis at depth <= 0", "bodies in front of the camera (z > 0)")
        self.body_translation = tr
        f = self.body_focal
        if isinstance(f, bool) or not isinstance(f, Real) or not (0 < float(f) < math.inf):
            raise InputError("body_focal", f"got {f!r}", "the HMR focal length in pixels, > 0")
        self.body_focal = float(f)
        ct = np.asarray(self.contact)
        if ct.dtype != bool or ct.ndim != 2:
            raise InputError("contact", f"has shape {ct.shape} and dtype {ct.dtype}",
                             "a bool array (frames, n_contact) of contact labels")
        self.contact = frames("contact", ct)
        if self.keypoints is not None:
            kp = _arr(self.keypoints, "keypoints", 3, (24, 2), finite=False)
            kc = np.ones(kp.shape[:2]) if self.keypoint_conf is None else _arr(self.keypoint_conf, "keypoint_conf", 2, (24,))
            frames("keypoints", kp)
            if kc.shape != kp.shape[:2]:
                raise InputError("keypoint_conf", f"has shape {kc.shape}", f"shape {kp.shape[:2]}")
            if np.any((kc < 0) | (kc > 1)):
                raise InputError("keypoint_conf", f"has values in [{kc.min():g}, {kc.max():g}]", "confidences in [0, 1]")
            bad = ~np.isfinite(kp).all(-1)
            kc = np.where(bad, 0.0, kc)               # NaN keypoints are masked
            self.keypoints, self.keypoint_conf = np.where(bad[..., None], 0.0, kp), kc
        elif self.keypoint_conf is not None:
            raise InputError("keypoint_conf", "was given without keypoints", "keypoints as well, or no keypoint_conf")
        fi = np.arange(K) if self.frame_index is None else _arr(self.frame_index, "frame_index", 1)
        if len(fi) != K or np.any(np.diff(fi) <= 0):
            raise InputError("frame_index", f"got {fi.tolist()[:8]}", f"{K} strictly increasing frame numbers")
        self.frame_index = fi.astype(float)
        if self.principal_point is None:
            self.principal_point = (W / 2.0, H / 2.0)
        pp = _arr(self.principal_point, "principal_point", 1)
        if pp.shape != (2,):
            raise InputError("principal_point", f"got {self.principal_point!r}", "(cx, cy) in pixels")
        self.principal_point = (float(pp[0]), float(pp[1]))
        self.image_size = (W, H)
        ms = []
        if not isinstance(self.matches, (list, tuple)) or not self.matches:
            raise InputError("matches", f"got {type(self.matches).__name__}", "a non-empty list of PairMatches")
        for n, mt in enumerate(self.matches):
            if isinstance(mt, dict):
                try:
                    mt = Matches(**mt)
                except TypeError:
                    raise InputError(f"matches[{n}]", "has unexpected keys", "i, j, pix_i, pix_j, depth_i, depth_j, conf") from None
            if not isinstance(mt, Matches):
                raise InputError(f"matches[{n}]", f"got {type(mt).__name__}", "a PairMatches")
            if not (isinstance(mt.i, Integral) and isinstance(mt.j, Integral) and 0 <= mt.i < mt.j < K):
                raise InputError(f"matches[{n}]", f"links frames {mt.i!r} and {mt.j!r}", f"keyframes 0 <= i < j < {K}")
            pi, pj = _arr(mt.pix_i, f"matches[{n}].pix_i", 2, (2,)), _arr(mt.pix_j, f"matches[{n}].pix_j", 2, (2,))
            di, dj = _arr(mt.depth_i, f"matches[{n}].depth_i", 1), _arr(mt.depth_j, f"matches[{n}].depth_j", 1)
            cf = _arr(mt.conf, f"matches[{n}].conf", 1)
            M = len(cf)
            if not (len(pi) == len(pj) == len(di) == len(dj) == M):
                raise InputError(f"matches[{n}]", "has arrays of different lengths", "one pixel, depth and conf per match")
            if np.any(di <= 0) or np.any(dj <= 0) or np.any(cf <= 0):
                raise InputError(f"matches[{n}]", "has depths or confidences <= 0", "positive depths and confidences")
            ms.append(Matches(int(mt.i), int(mt.j), pi, pj, di, dj, cf))
        self.matches = ms
        from scipy.sparse.csgraph import connected_components

        adj = np.zeros((K, K))
        for mt in ms:
            adj[mt.i, mt.j] = adj[mt.j, mt.i] = 1
        if connected_components(adj, directed=False)[0] != 1:
            raise InputError("matches", "leave some keyframes unconnected", "matches that link every keyframe")

    @property
    def n_frames(self) -> int:
        return self.depth.shape[0]

    def __repr__(self):
        return f"JOSHInputs({self.n_frames} keyframes, {self.image_size[0]}x{self.image_size[1]}, {len(self.matches)} match pairs)"

    def summary(self) -> str:
        n = sum(len(m.conf) for m in self.matches)
        return (f"{self.n_frames} keyframes of {self.image_size[0]}x{self.image_size[1]}, {len(self.matches)} frame "
                f"pairs with {n} matches, {int(self.contact.sum())} contact labels, HMR focal {self.body_focal:g}")

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("depth", "confidence", "human_mask", "body_pose", "body_shape",
                                              "body_translation", "body_focal", "contact", "keypoints",
                                              "frame_index", "principal_point")} | {"matches": self.matches}

    @classmethod
    def from_smpl(cls, depth, confidence, human_mask, matches, *, betas, body_pose, global_orient, transl, contact,
                  body_focal=None, keypoints=None, keypoint_conf=None, frame_index=None, principal_point=None):
        r"""JOSH inputs from SMPL-family parameters of an HMR model (camera frame), as VIMO / TRAM / WHAM give them.

        Parameters
        ----------
        depth, confidence, human_mask, matches
            As for :class:`JOSHInputs`.
        betas : ndarray (K, n_betas) or (n_betas,)
            Shape per frame (or one for all); JOSH optimises their mean (one shape per person).
        body_pose : ndarray (K, 69), (K, 23, 3) or (K, 23, 3, 3)
            Joint rotations relative to the parents, axis-angle or rotation matrices (converted to axis-angle).
        global_orient : ndarray (K, 3), (K, 1, 3), (K, 3, 3) or (K, 1, 3, 3)
            Root orientation in the camera frame, axis-angle or rotation matrix.
        transl : ndarray (K, 3)
            SMPL's translation in the camera frame (metres), as predicted with focal ``body_focal``.
        contact : ndarray (K, n_contact) bool
            Contact labels of the body model's ``contact_vertices`` (all V vertices for an SMPL file: DECO's
            per-vertex labels).
        body_focal : float, optional
            The focal the HMR model assumed; default the image diagonal (HMR's convention).
        keypoints, keypoint_conf, frame_index, principal_point
            As for :class:`JOSHInputs`.

        Returns
        -------
        JOSHInputs
            With ``body_pose`` = [global_orient, body_pose] (K, 72), ``body_shape`` = betas (K, n_betas),
            ``body_translation`` = transl.

        Examples
        --------
        >>> import numpy as np
        >>> v = human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)
        >>> o = v.observations("none", rng=0)
        >>> inp = JOSHInputs.from_smpl(o.depth, o.confidence, o.human_mask, o.matches, betas=np.zeros(4),
        ...                            body_pose=o.body_pose[:, 3:], global_orient=o.body_pose[:, :3],
        ...                            transl=o.body_translation, contact=o.contact, body_focal=o.body_focal)
        >>> inp.body_pose.shape, inp.body_shape.shape
        ((2, 72), (2, 4))
        """
        d = _arr(depth, "depth", 3)
        K = d.shape[0]
        bp = _smpl_rotations(body_pose, "body_pose", K, 23)
        go = _smpl_rotations(global_orient, "global_orient", K, 1)
        b = _arr(betas, "betas")
        if b.ndim == 1:
            b = np.broadcast_to(b, (K, b.shape[0])).copy()
        if b.ndim != 2 or b.shape[0] != K or b.shape[1] < 1:
            raise InputError("betas", f"has shape {b.shape}", f"(n_betas,) or ({K}, n_betas): one row per keyframe")
        tr = _arr(transl, "transl", 2, (3,))
        if tr.shape[0] != K:
            raise InputError("transl", f"has {tr.shape[0]} frames but depth has {K}", f"{K} frames, one per keyframe")
        if body_focal is None:
            body_focal = math.hypot(d.shape[2], d.shape[1])
        return cls(depth=d, confidence=confidence, human_mask=human_mask, matches=matches,
                   body_pose=np.concatenate([go, bp], 1), body_shape=b, body_translation=tr, body_focal=body_focal,
                   contact=contact, keypoints=keypoints, keypoint_conf=keypoint_conf, frame_index=frame_index,
                   principal_point=principal_point)


def _smpl_rotations(x, name, K, n):
    """(K, 3 n) axis-angle from SMPL-style rotations: (K, 3n), (K, n, 3), (K, n, 3, 3) (or (K, 3, 3) when n = 1)."""
    a = _arr(x, name)
    if a.shape[:1] != (K,):
        raise InputError(name, f"has shape {a.shape}", f"{K} frames first, one per keyframe")
    if a.ndim == 2 and a.shape[1] == 3 * n:
        return a
    if a.ndim == 3 and a.shape[1:] == (n, 3):
        return a.reshape(K, 3 * n)
    R = None
    if a.ndim == 4 and a.shape[1:] == (n, 3, 3):
        R = a
    elif n == 1 and a.ndim == 3 and a.shape[1:] == (3, 3):
        R = a[:, None]
    if R is None:
        forms = f"({K}, {3 * n}) or ({K}, {n}, 3) axis-angle, or ({K}, {n}, 3, 3) rotation matrices"
        raise InputError(name, f"has shape {a.shape}", forms + (f" or ({K}, 3, 3)" if n == 1 else ""))
    err = np.abs(R @ np.swapaxes(R, -1, -2) - np.eye(3)).max()
    if err > 1e-4 or np.any(np.linalg.det(R) < 0):
        raise InputError(name, f"holds matrices that are not rotations (max |R R^T - I| = {err:.2g})",
                         "rotation matrices (orthonormal, det +1)")
    import torch

    from iclr26sci.geom import so3_log

    return so3_log(torch.as_tensor(R, dtype=torch.float64)).numpy().reshape(K, 3 * n)


# ================================================================================================ synthetic video
class HumanSceneVideo:
    """A rendered human-in-a-room video with exact ground truth (from :func:`human_scene_video`).

    Attributes
    ----------
    focal : float
        True focal length (pixels).
    ground_truth : JOSHGroundTruth
        Keyframe world joints, contact points and labels, cam2w, focal, per-frame depth scale (metres of
        observed depth per metre), body parameters; world y up, floor at y = 0.
    cameras : list of iclr26sci.geom.Camera
        The keyframe cameras.

    Examples
    --------
    >>> v = human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)
    >>> v
    HumanSceneVideo('walk' in a room, 2 keyframes, 32x24, focal 40)
    """

    def __init__(self, data, meta):
        self.ground_truth = data["gt"]
        self.cameras = data["cams"]
        self._depth, self._mask, self._hit = data["depth"], data["mask"], data["hit"]
        self.body = data["body"]
        self.meta = meta
        self.focal = float(self.ground_truth.focal)

    def __repr__(self):
        K, H, W = self._depth.shape
        return (f"HumanSceneVideo({self.meta['motion']!r} in a {self.meta['scene']}, {K} keyframes, {W}x{H}, "
                f"focal {self.focal:g})")

    def summary(self) -> str:
        gt = self.ground_truth
        return (f"{self.meta['motion']} (DeepMimic retargeted)" if self.meta["motion"] != "procedural" else "procedural gait") + \
            f" in a {self.meta['scene']}; {len(gt.keyframes)} keyframes; {self.meta['camera']} camera; " \
            f"scene depth scale {float(np.exp(np.log(gt.depth_scale).mean())):.3g}; human mask covers " \
            f"{100 * self._mask.mean():.1f}% of pixels"

    def to_dict(self) -> dict:
        return {"meta": dict(self.meta), "ground_truth": self.ground_truth.to_dict()}

    def observations(self, noise="realistic", rng=None, *, n_matches=150, window=3, outlier_rate=0.05,
                     hmr_focal=None) -> JOSHInputs:
        """The JOSH inputs a MASt3R / HMR / DECO pipeline would give, from the rendered truth.

        Parameters
        ----------
        noise : {"realistic", "none"}
            "realistic": depth x (1 + 1% noise) per pixel, 5% outlier matches with confidences U[0.5, 1],
            HMR joint rotations perturbed by about 5 degrees, shape by N(0, 0.3), root depth by a sequence factor
            U[0.9, 1.1] times 3% per frame (along the ray), 2-px keypoint noise, 5% flipped contact labels.
            "none": the exact quantities (depth still carries its unknown per-frame scale).
        rng : int, Generator or None
        n_matches : int
            Matches per frame pair (at most).
        window : int
            Frames ``i`` and ``j`` are matched when ``0 < j - i <= window`` (the pipeline's sliding window).
        outlier_rate : float
            Fraction of wrong matches in [0, 1) (realistic noise only).
        hmr_focal : float, optional
            Focal the HMR fits assume; default the image diagonal (HMR's convention).

        Returns
        -------
        JOSHInputs

        Examples
        --------
        >>> v = human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)
        >>> v.observations("realistic", rng=1).n_frames
        2
        """
        if noise not in ("realistic", "none"):
            raise InputError("noise", f"got {noise!r}", "'realistic' or 'none'")
        from ._josh_data import _pos_int, _pos_real

        n_matches, window = _pos_int(n_matches, "n_matches", 8), _pos_int(window, "window")
        if isinstance(outlier_rate, bool) or not isinstance(outlier_rate, Real) or not 0 <= outlier_rate < 1:
            raise InputError("outlier_rate", f"got {outlier_rate!r}", "a fraction in [0, 1)")
        K, H, W = self._depth.shape
        hmr_focal = math.hypot(W, H) if hmr_focal is None else _pos_real(hmr_focal, "hmr_focal")
        from ._checks import check_rng

        d = _observations(self, noise, as_generator(check_rng(rng)), n_matches, window, float(outlier_rate), hmr_focal)
        return JOSHInputs(**{k: v for k, v in d.items() if k != "image_size"})


def human_scene_video(motion="walk", scene="room", frames=60, camera="handheld", *, keyframe_every=3, width=160,
                      height=120, focal=200.0, scene_scale=None, fps=30.0, backend="auto", rng=None) -> HumanSceneVideo:
    """Real motion capture in a synthetic room, filmed by a moving camera and rendered by ray casting.

    The DeepMimic ``walk`` clip (real motion capture, shipped with pybullet) is retargeted onto the stand-in body
    (its joint rotations are fitted to the clip's bone directions, so every body shape plays it), looped with the
    cycle's advance, turned to a random heading, and put on the floor (the lowest vertex on y = 0 in each frame).
    The room is a floor, four walls, a table, a cabinet, a bench and a box (open3d ray casting). The camera follows
    the walker at 3-4 m, ahead and to one side, with smooth handheld drift in position, aim and azimuth.

    Parameters
    ----------
    motion : {"walk", "procedural"}
        The DeepMimic clip, or a sinusoidal gait (spec 4.6).
    scene : {"room", "plane"}
        Furnished room, or a floor alone.
    frames : int
        Video frames (>= 2 keyframes must result).
    camera : {"handheld", "static"}
    keyframe_every : int
        Keyframe stride (JOSH optimises keyframes).
    width, height : int
        Image size in pixels.
    focal : float
        True focal length in pixels.
    scene_scale : float, optional
        Unknown global factor of the observed depth (metres of depth-network output per metre); default
        log-uniform in [0.3, 3] from ``rng``. Each frame adds a 2% log-normal jitter.
    fps : float
        Frame rate.
    backend : {"auto", "open3d", "numpy"}
        Ray-casting engine.
    rng : int, Generator or None

    Returns
    -------
    HumanSceneVideo

    Examples
    --------
    >>> v = human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)
    >>> v.ground_truth.joints.shape
    (2, 24, 3)
    """
    from ._josh_data import _pos_int, _pos_real

    if motion not in MOTIONS:
        raise InputError("motion", f"got {motion!r}", f"one of {list(MOTIONS)}")
    if scene not in SCENES:
        raise InputError("scene", f"got {scene!r}", f"one of {list(SCENES)}")
    if camera not in CAMERAS:
        raise InputError("camera", f"got {camera!r}", f"one of {list(CAMERAS)}")
    frames = _pos_int(frames, "frames", 2)
    keyframe_every = _pos_int(keyframe_every, "keyframe_every")
    if (frames - 1) // keyframe_every + 1 < 2:
        raise InputError("frames", f"gives {(frames - 1) // keyframe_every + 1} keyframe with keyframe_every="
                         f"{keyframe_every}", "at least 2 keyframes")
    width, height = _pos_int(width, "width", 8), _pos_int(height, "height", 8)
    focal = _pos_real(focal, "focal")
    fps = _pos_real(fps, "fps")
    from ._checks import check_rng

    rng = as_generator(check_rng(rng))
    if scene_scale is None:
        scene_scale = float(np.exp(rng.uniform(np.log(0.3), np.log(3.0))))
    scene_scale = _pos_real(scene_scale, "scene_scale")
    if backend not in ("auto", "open3d", "numpy"):
        raise InputError("backend", f"got {backend!r}", "'auto', 'open3d' or 'numpy'")
    data = _make_video(motion, scene, frames, camera, keyframe_every, width, height, focal, scene_scale, fps,
                       backend, rng)
    return HumanSceneVideo(data, dict(motion=motion, scene=scene, camera=camera, frames=frames))


# ================================================================================================ metrics
def _pts(x, name, last=3):
    a = _arr(x, name)
    if a.ndim < 2 or a.shape[-1] != last:
        raise InputError(name, f"has shape {a.shape}", f"an array (..., {last})")
    return a


def _kabsch(src, dst, with_scale, names=("pred", "gt")):
    import torch

    from iclr26sci.geom import umeyama

    pts = np.asarray(src, float).reshape(-1, 3)
    if len(pts) < 3:
        raise InputError(names[0], f"gives {len(pts)} point(s) for the alignment",
                         "at least 3 points (a rotation is undefined from fewer)")
    for nm, a in zip(names, (pts, np.asarray(dst, float).reshape(-1, 3))):
        c = a - a.mean(0)
        if np.linalg.matrix_rank(c, tol=1e-9 * max(1.0, float(np.abs(a).max()))) < 2:
            raise InputError(nm, "has its alignment points all equal or on one line (the rotation is undefined)",
                             "points that span a plane at least")
    T = umeyama(torch.as_tensor(src, dtype=torch.float64), torch.as_tensor(dst, dtype=torch.float64),
                with_scale=with_scale)
    return lambda x: T.apply(torch.as_tensor(x, dtype=torch.float64)).numpy()


def w_mpjpe(pred, gt, *, n_align=2):
    r"""World MPJPE (mm): rigidly align the first ``n_align`` frames' joints to the truth, then the mean joint error.

    :math:`\frac{1}{TJ}\sum_{t,j} |R\hat J^t_j + t - J^t_j|` with :math:`(R, t)` the Kabsch fit on frames
    :math:`0..n_\mathrm{align}-1` (WHAM / TRAM's W-MPJPE; they align the first two frames of 100-frame segments).

    Parameters
    ----------
    pred, gt : ndarray (T, J, 3)
        Estimated and true world joints (metres).
    n_align : int
        Frames used for the alignment (>= 1; 2 by default).

    Returns
    -------
    float
        Millimetres.

    Examples
    --------
    >>> import numpy as np
    >>> J = np.random.default_rng(0).normal(size=(4, 24, 3))
    >>> round(w_mpjpe(J + [1.0, 2.0, 3.0], J), 6)
    0.0
    """
    p, g = _pts(pred, "pred"), _pts(gt, "gt")
    if p.shape != g.shape or p.ndim != 3:
        raise InputError("gt", f"has shape {g.shape} but pred has {p.shape}", "two (T, J, 3) arrays of equal shape")
    if isinstance(n_align, bool) or not isinstance(n_align, Integral) or not 1 <= n_align <= p.shape[0]:
        raise InputError("n_align", f"got {n_align!r}", f"an integer in [1, {p.shape[0]}]")
    f = _kabsch(p[:n_align].reshape(-1, 3), g[:n_align].reshape(-1, 3), False, ("pred", "gt"))
    return float(1000 * np.linalg.norm(f(p.reshape(-1, 3)) - g.reshape(-1, 3), axis=-1).mean())


def wa_mpjpe(pred, gt):
    r"""World-aligned MPJPE (mm): similarity (Umeyama) alignment over the whole sequence, then the mean joint error.

    Parameters
    ----------
    pred, gt : ndarray (T, J, 3)
        Estimated and true world joints.

    Returns
    -------
    float
        Millimetres.

    Examples
    --------
    >>> import numpy as np
    >>> J = np.random.default_rng(0).normal(size=(4, 24, 3))
    >>> round(wa_mpjpe(2 * J + 1.0, J), 6)
    0.0
    """
    p, g = _pts(pred, "pred"), _pts(gt, "gt")
    if p.shape != g.shape:
        raise InputError("gt", f"has shape {g.shape} but pred has {p.shape}", "two arrays of equal shape")
    f = _kabsch(p.reshape(-1, 3), g.reshape(-1, 3), True)
    return float(1000 * np.linalg.norm(f(p.reshape(-1, 3)) - g.reshape(-1, 3), axis=-1).mean())


def foot_sliding(points, contact):
    r"""Foot sliding (mm): mean displacement of contact vertices between consecutive frames while in contact at both.

    :math:`\mathrm{FS} = \mathrm{mean}_{(t, v): c^{t-1}_v \wedge c^t_v} |x^t_v - x^{t-1}_v|`.

    Parameters
    ----------
    points : ndarray (T, V, 3)
        World positions of the contact vertices.
    contact : ndarray (T, V) bool
        Contact labels (use the true ones to compare methods).

    Returns
    -------
    float
        Millimetres. Undefined (an :class:`InputError` naming ``contact``) when no vertex is in contact at two
        consecutive frames.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.zeros((3, 2, 3)); x[:, :, 0] = [[0, 0], [0.01, 0], [0.02, 0]]
    >>> round(foot_sliding(x, np.ones((3, 2), bool)), 6)
    5.0
    """
    x = _pts(points, "points")
    if x.ndim != 3:
        raise InputError("points", f"has shape {x.shape}", "(T, V, 3): frames, contact vertices, xyz")
    c = np.asarray(contact)
    if c.shape != x.shape[:2] or c.dtype != bool:
        raise InputError("contact", f"has shape {c.shape} and dtype {c.dtype}", f"a bool array of shape {x.shape[:2]}")
    if not (c[1:] & c[:-1]).any():
        raise InputError("contact", "has no vertex in contact at two consecutive frames (foot sliding is undefined)",
                         "contact labels with at least one vertex in contact in two consecutive frames")
    return _foot_sliding(x, c)


def _foot_sliding(x, c):
    """Foot sliding of validated arrays; NaN when no vertex is in contact at two consecutive frames."""
    both = c[1:] & c[:-1]
    if not both.any():
        return float("nan")
    return float(1000 * np.linalg.norm(x[1:] - x[:-1], axis=-1)[both].mean())


def ate(pred_centres, gt_centres):
    r"""Absolute trajectory error (mm): RMS camera-centre error after similarity (Umeyama) alignment.

    Parameters
    ----------
    pred_centres, gt_centres : ndarray (T, 3)
        Estimated and true camera centres (``T >= 3`` for a well-posed alignment).

    Returns
    -------
    float
        Millimetres.

    Examples
    --------
    >>> import numpy as np
    >>> c = np.random.default_rng(0).normal(size=(5, 3))
    >>> round(ate(0.5 * c - 2.0, c), 6)
    0.0
    """
    p, g = _pts(pred_centres, "pred_centres"), _pts(gt_centres, "gt_centres")
    if p.shape != g.shape or p.ndim != 2:
        raise InputError("gt_centres", f"has shape {g.shape} but pred_centres has {p.shape}",
                         "two (T, 3) arrays of equal shape")
    if len(p) < 3:
        raise InputError("pred_centres", f"has {len(p)} camera centres",
                         "T >= 3 (a similarity aligns any 2 points exactly: the error would always be 0)")
    f = _kabsch(p, g, True, ("pred_centres", "gt_centres"))
    return float(1000 * np.sqrt((np.linalg.norm(f(p) - g, axis=-1) ** 2).mean()))


# ================================================================================================ estimator
_PHASE = {"coarse": "coarse", "scene": "coarse", "fine": "fine", "joint": "fine"}


@dataclass
class JOSHResult:
    r"""What :meth:`JOSH.fit` recovered (keyframes; world = the first keyframe's camera frame, metres).

    Attributes
    ----------
    cameras : ndarray (K, 4, 4)
        cam2w of every keyframe (the first is the identity).
    world_humans : dict
        ``joints`` (K, 24, 3), ``contact_points`` (K, n_contact, 3) and ``vertices`` (K, V, 3) in the world;
        ``pose`` (K, 72) (camera-frame root first), ``shape`` (n_betas,), ``translation`` (K, 3) (camera frame,
        focal coupling applied); the same in SMPL's names: ``global_orient`` (K, 3), ``body_pose`` (K, 69),
        ``betas`` (n_betas,), ``transl`` (K, 3) (camera frame; ``cameras`` take them to the world).
    scene : ndarray (N, 3)
        World points of the background pixels (every 4th pixel of every keyframe).
    scale : ndarray (K,)
        Per-frame factor taking the observed depth to metric world depth, :math:`g\sigma^t f/f_0`.
    focal : float
        The optimised shared focal length (pixels).
    focal_init : float
    history : list of (phase, loss, terms)
        Loss per iteration.
    n_contact_pairs : int
        L_c1 correspondences used at the last iteration.
    fit_seconds : float
    strategy : str
    focal_profile : list of dict or None
        The focal search's grid (``focal``, ``profile loss``), when it ran.

    Examples
    --------
    >>> v = human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)
    >>> res = JOSH(n_iter=(5, 5)).fit(v.observations("none", rng=0))
    >>> res.cameras.shape, res.world_humans["joints"].shape
    ((2, 4, 4), (2, 24, 3))
    """

    cameras: np.ndarray
    world_humans: dict
    scene: np.ndarray
    scale: np.ndarray
    focal: float
    focal_init: float
    history: list
    n_contact_pairs: int
    fit_seconds: float
    strategy: str
    focal_profile: list | None = None

    def __repr__(self):
        return (f"JOSHResult({self.strategy}, {len(self.cameras)} keyframes, focal {self.focal:.1f} "
                f"(init {self.focal_init:.1f}), final loss {self.history[-1][1] if self.history else float('nan'):.4g})")

    def summary(self) -> str:
        return (f"JOSH ({self.strategy}): {len(self.cameras)} keyframes, focal {self.focal_init:.1f} -> {self.focal:.1f} px, "
                f"depth scale {float(np.exp(np.log(self.scale).mean())):.4g}, {len(self.history)} iterations in "
                f"{self.fit_seconds:.1f} s, {self.n_contact_pairs} contact-scale pairs")

    def to_dict(self) -> dict:
        return {"cameras": self.cameras, "world_humans": self.world_humans, "scale": self.scale, "focal": self.focal,
                "focal_init": self.focal_init, "fit_seconds": self.fit_seconds, "strategy": self.strategy,
                "final_loss": self.history[-1][1] if self.history else float("nan")}


class JOSH(BaseEstimator):
    r"""Joint optimisation of cameras, per-frame scene scales, shared focal and human (JOSH, ICLR 2026).

    See the module docstring for the objective. ``fit`` runs the phases in order: "coarse" (alias "scene":
    L_3D with rho_1.1, focal frozen) then "fine" (alias "joint": L_2D with rho_0.4, focal trainable); cameras,
    scales and (``optimize_human``) the human are trained in both, as in the released code.

    Parameters
    ----------
    focal_init : float, optional
        Initial focal (pixels); default the HMR focal of the inputs. The HMR depth is rescaled by
        ``focal_init / body_focal``.
    phases : tuple of str
        Subset, in order, of ("coarse", "fine") (aliases "scene", "joint").
    n_iter : (int, int)
        Iterations of the two phases (the released pipeline: 500 and 200).
    lr : (float, float)
        Peak learning rates of the cosine schedules (pipeline: 0.07 and 0.014).
    w_scene, w_c1, w_c2, w_smooth, w_prior, w_keypoints : float
        Loss weights (code defaults 1, 1, 0.1, 0.1, 100, 0); 0 switches a term off.
    optimize_human : bool
        Train the human parameters (False: keep the HMR fit; the "-opt Theta_c" ablation).
    optimize_focal : bool
        Estimate the focal (False: keep ``focal_init``; the "-focal opt" ablation).
    focal_search : bool
        How the focal is estimated when ``optimize_focal`` and a "fine" phase are on. True (default): a profile
        search over :math:`\log f` of the scene reprojection loss (cameras and scales re-fitted by L-BFGS at each
        of 9 focals in ``focal_init`` x [0.70, 1.42], parabolic vertex; ``_josh_opt.focal_profile_search``) before
        the phases, the focal then frozen. False: the released code's Adam on the log-focal in the fine phase (on
        small problems it random-walks: from the truth to 0.86 f on the quick miniature). A departure from the code.
    strategy : {"joint", "sequential"}
        "sequential" (SynCHMR-style baseline): first the scene and cameras with L_scene only (scale gauge-fixed),
        then, with cameras, per-frame scales and focal frozen, the human plus one global scene scale with the
        human and contact terms.
    init_cameras : {"procrustes", "identity"}
    depth_filter_ratio : float
        L_c1 rejects a pair whose observed depths at the vertex pixel and at the background pixel differ by more than
        this factor (code 1.01; here default 1.05 for the stand-in's coarse images -- a design choice).
    gamma : (float, float, float)
        Robust exponents of the coarse scene loss, the fine scene loss and the human / contact terms (1.1, 0.4, 1.1).
    max_matches : int, optional
        Use at most this many matches (random subset drawn with ``rng``).
    body_model : "standin", "anny", str or os.PathLike, or ParametricBody
        The body the human parameters drive (JOSH needs SMPL's 24-joint tree): ``"standin"`` (default, the
        weight-free procedural body), the path of an SMPL model file (``.pkl``/``.npz``, evaluated by ``smplx``:
        :class:`SMPLBodyModel`), or any :class:`ParametricBody` on 24 joints. All human parameters -- root
        orientation, translation, body pose and one shape -- are optimised, as in the released code. The inputs'
        ``body_shape`` width and ``contact`` columns must match the body (checked before any work). ``"anny"``
        is a built-in of the interface (:class:`AnnyBody`) but its rig is not SMPL's tree, so JOSH refuses it.
    device : str
        Torch device (default "cpu"; the code is device-agnostic).
    dtype : {"float64", "float32"}
    rng : int, Generator or None
        Only for ``max_matches``'s subset (the optimisation is deterministic).
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Attributes
    ----------
    result_ : JOSHResult
        Set by :meth:`fit`.

    Examples
    --------
    >>> v = human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)
    >>> res = JOSH(focal_init=40.0, n_iter=(10, 5)).fit(v.observations("none", rng=0))
    >>> res.cameras.shape
    (2, 4, 4)
    """

    def __init__(self, focal_init=None, phases=("coarse", "fine"), n_iter=(500, 200), lr=(0.07, 0.014), w_scene=1.0,
                 w_c1=1.0, w_c2=0.1, w_smooth=0.1, w_prior=100.0, w_keypoints=0.0, optimize_human=True,
                 optimize_focal=True, focal_search=True, strategy="joint", init_cameras="procrustes", depth_filter_ratio=1.05,
                 gamma=(1.1, 0.4, 1.1), max_matches=None, body_model="standin", device="cpu", dtype="float64",
                 rng=None, random_state=None):
        self.focal_init = focal_init
        self.phases = phases
        self.n_iter = n_iter
        self.lr = lr
        self.w_scene = w_scene
        self.w_c1 = w_c1
        self.w_c2 = w_c2
        self.w_smooth = w_smooth
        self.w_prior = w_prior
        self.w_keypoints = w_keypoints
        self.optimize_human = optimize_human
        self.optimize_focal = optimize_focal
        self.focal_search = focal_search
        self.strategy = strategy
        self.init_cameras = init_cameras
        self.depth_filter_ratio = depth_filter_ratio
        self.gamma = gamma
        self.max_matches = max_matches
        self.body_model = body_model
        self.device = device
        self.dtype = dtype
        self.rng = rng
        self.random_state = random_state

    # ---------------------------------------------------------------- validation
    def _validate(self):
        from iclr26sci.core import check_bool

        cfg = {}
        if self.focal_init is not None:
            f = self.focal_init
            if isinstance(f, bool) or not isinstance(f, Real) or not (0 < float(f) < math.inf):
                raise InputError("focal_init", f"got {f!r}", "a focal length in pixels > 0, or None")
        ph = self.phases
        if isinstance(ph, str) or not isinstance(ph, (tuple, list)) or not ph or any(p not in _PHASE for p in ph):
            raise InputError("phases", f"got {ph!r}", "a non-empty tuple from ('coarse', 'fine') (aliases 'scene', 'joint')")
        phases = [_PHASE[p] for p in ph]
        if len(set(phases)) != len(phases) or phases != sorted(phases):
            raise InputError("phases", f"got {ph!r}", "each phase at most once, coarse before fine")
        cfg["phases"] = phases
        for name, v, kind in (("n_iter", self.n_iter, int), ("lr", self.lr, float)):
            if not isinstance(v, (tuple, list)) or len(v) != 2:
                raise InputError(name, f"got {v!r}", "a pair (coarse, fine)")
            for x in v:
                if kind is int and (isinstance(x, bool) or not isinstance(x, Integral) or x < 0):
                    raise InputError(name, f"got {v!r}", "two iteration counts >= 0")
                if kind is float and (isinstance(x, bool) or not isinstance(x, Real) or not 0 < float(x) < math.inf):
                    raise InputError(name, f"got {v!r}", "two learning rates > 0")
        for name in ("w_scene", "w_c1", "w_c2", "w_smooth", "w_prior", "w_keypoints"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, Real) or not 0 <= float(v) < math.inf:
                raise InputError(name, f"got {v!r}", "a loss weight >= 0 (0 switches the term off)")
            cfg[name] = float(v)
        check_bool(self.optimize_human, "optimize_human")
        check_bool(self.optimize_focal, "optimize_focal")
        check_bool(self.focal_search, "focal_search")
        if self.strategy not in ("joint", "sequential"):
            raise InputError("strategy", f"got {self.strategy!r}", "'joint' or 'sequential'")
        if self.init_cameras not in ("procrustes", "identity"):
            raise InputError("init_cameras", f"got {self.init_cameras!r}", "'procrustes' or 'identity'")
        r = self.depth_filter_ratio
        if isinstance(r, bool) or not isinstance(r, Real) or not 1 <= float(r) < math.inf:
            raise InputError("depth_filter_ratio", f"got {r!r}", "a ratio >= 1")
        cfg["depth_filter_ratio"] = float(r)
        g = self.gamma
        if not isinstance(g, (tuple, list)) or len(g) != 3 or any(
                isinstance(x, bool) or not isinstance(x, Real) or not 0 < float(x) < math.inf for x in g):
            raise InputError("gamma", f"got {g!r}", "three exponents > 0 (coarse scene, fine scene, human/contact)")
        cfg["gamma_coarse"], cfg["gamma_fine"], cfg["gamma_contact"] = map(float, g)
        if self.max_matches is not None and (isinstance(self.max_matches, bool) or not isinstance(self.max_matches, Integral)
                                             or self.max_matches < 8):
            raise InputError("max_matches", f"got {self.max_matches!r}", "an integer >= 8, or None")
        if self.dtype not in ("float64", "float32"):
            raise InputError("dtype", f"got {self.dtype!r}", "'float64' or 'float32'")
        from ._checks import check_device

        check_device(self.device)
        resolve_rng(self.rng, self.random_state)
        _check_body_spec(self.body_model)
        return cfg

    # ---------------------------------------------------------------- fit
    def fit(self, inputs, y=None, *, init=None) -> JOSHResult:
        """Optimise cameras, scales, focal and human from ``inputs``.

        Parameters
        ----------
        inputs : JOSHInputs
        y : ignored
        init : dict, optional
            Start values instead of the defaults (e.g. the truth, for the fixed-point check): any of ``cam2w``
            (K, 4, 4), ``log_size`` (K,), ``focal`` (float, also taken as ``f_0``), ``pose`` (K, 72), ``shape`` (4,),
            ``translation`` (K, 3) (camera frame at focal ``focal``).

        Returns
        -------
        JOSHResult
            Also stored as ``result_``.

        Examples
        --------
        >>> v = human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)
        >>> JOSH(n_iter=(5, 0), phases=("coarse",)).fit(v.observations("none", rng=0)).strategy
        'joint'
        """
        cfg = self._validate()
        if not isinstance(inputs, JOSHInputs):
            raise InputError("inputs", f"got {type(inputs).__name__}", "a JOSHInputs (or HumanSceneVideo.observations())")
        import torch

        from iclr26sci.geom import BodyModel, kinematic_chain

        from . import _josh_opt as O

        dtype = torch.float64 if self.dtype == "float64" else torch.float32
        device = torch.device(self.device)
        if isinstance(self.body_model, str) and self.body_model == "standin":
            body = BodyModel("standin", dtype=dtype).to(device)
        else:
            from ._josh_body import make_body

            body = make_body(self.body_model, dtype=dtype).to(device)
        _check_body_fits_inputs(body, inputs)
        if self.max_matches is not None:
            gen = as_generator(resolve_rng(self.rng, self.random_state))
            inputs = _subsample_matches(inputs, self.max_matches, gen)
        prob = O.Problem(inputs, dtype, device)
        t0 = O.now()
        f0 = float(self.focal_init) if self.focal_init is not None else float(inputs.body_focal)
        sc = prob.score
        cost = np.where(sc > 0, sc.max() + 1.0 - sc, np.inf)   # MST of the scores (highest score = cheapest edge)
        np.fill_diagonal(cost, 0.0)
        chain = kinematic_chain(cost, root=0)
        parent, order = chain.parent, chain.order.tolist()
        f_user = f0
        search = self.optimize_focal and self.focal_search and "fine" in cfg["phases"] and init is None
        adam_focal = self.optimize_focal and not search
        profile = None
        if search:
            f0, profile = _cached_focal_search(inputs, prob, body, cfg, parent, order, f0)
        if init is not None:
            P = _params_from_init(prob, parent, order, f0, init, dtype)
            f0 = P.f0
            f_user = f0
        else:
            P = O.Params(prob, parent, order, f0, self.init_cameras)
        hist = []
        n1, n2 = self.n_iter
        lr1, lr2 = self.lr
        iters = {"coarse": (n1, lr1), "fine": (n2, lr2)}
        if self.strategy == "joint":
            model = O.Model(prob, body, cfg)
            enforce = cfg["w_c1"] == 0
            for ph in cfg["phases"]:
                n, lr = iters[ph]
                O.run_phase(model, P, ph, n, lr, train_cameras=True, train_scale=True,
                            train_focal=(ph == "fine" and adam_focal), train_human=self.optimize_human,
                            train_global=False, enforce_scale=enforce, use_scene=True, history=hist,
                            progress_desc=f"JOSH {ph}")
        else:
            scene_cfg = dict(cfg, w_c1=0.0, w_c2=0.0, w_smooth=0.0, w_prior=0.0, w_keypoints=0.0)
            model = O.Model(prob, body, scene_cfg)
            for ph in cfg["phases"]:
                n, lr = iters[ph]
                O.run_phase(model, P, ph, n, lr, train_cameras=True, train_scale=True,
                            train_focal=(ph == "fine" and adam_focal), train_human=False, train_global=False,
                            enforce_scale=True, use_scene=True, history=hist, progress_desc=f"sequential scene {ph}")
            model = O.Model(prob, body, dict(cfg, w_scene=0.0))
            for ph in cfg["phases"]:
                n, lr = iters[ph]
                O.run_phase(model, P, ph, n, lr, train_cameras=False, train_scale=False, train_focal=False,
                            train_human=self.optimize_human, train_global=True, enforce_scale=True, use_scene=False,
                            history=hist, progress_desc=f"sequential human {ph}")
            enforce = True
        with torch.no_grad():
            S = model.state(P, enforce)
            _, npairs = model.loss_c1(S) if cfg["w_c1"] > 0 else (None, 0)
            tau_f = torch.cat([P.tau[:, :2], (P.tau[:, 2] * S["f"] / P.f0)[:, None]], 1)
            betas = P.shape[None].expand(prob.K, -1)
            if isinstance(body, BodyModel):
                verts = body(S["pose"], betas, tau_f).vertices
            else:
                verts = body(betas=betas, body_pose=S["pose"][:, 3:], global_orient=S["pose"][:, :3],
                             transl=tau_f).vertices
            Vw = torch.einsum("kab,knb->kna", S["R"], verts) + S["t"][:, None]
            cam2w = torch.eye(4, dtype=dtype).repeat(prob.K, 1, 1)
            cam2w[:, :3, :3], cam2w[:, :3, 3] = S["R"], S["t"]
            scene = _scene_points(model, S, prob, inputs)
            res = JOSHResult(
                cameras=cam2w.cpu().numpy(),
                world_humans={"joints": S["Jw"].cpu().numpy(), "contact_points": S["Vw"].cpu().numpy(),
                              "vertices": Vw.cpu().numpy(), "pose": S["pose"].cpu().numpy(),
                              "shape": P.shape.detach().cpu().numpy(),
                              "translation": tau_f.cpu().numpy(),
                              # the same in SMPL's names (camera frame; the cameras take them to the world)
                              "global_orient": S["pose"][:, :3].cpu().numpy(),
                              "body_pose": S["pose"][:, 3:].cpu().numpy(),
                              "betas": P.shape.detach().cpu().numpy(), "transl": tau_f.cpu().numpy()},
                scene=scene, scale=S["a"].cpu().numpy(), focal=float(S["f"]), focal_init=f_user, history=hist,
                n_contact_pairs=int(npairs), fit_seconds=O.now() - t0, strategy=self.strategy,
                focal_profile=profile)
        self.result_ = res
        return res

    # ---------------------------------------------------------------- evaluation
    @staticmethod
    def evaluate(result, ground_truth) -> dict:
        """The metrics of a fit against the truth: W-MPJPE, WA-MPJPE, foot sliding, ATE (mm), focal and scale errors.

        Parameters
        ----------
        result : JOSHResult
        ground_truth : JOSHGroundTruth
            ``HumanSceneVideo.ground_truth`` (same keyframes).

        Returns
        -------
        dict
            ``w_mpjpe_mm``, ``wa_mpjpe_mm``, ``foot_sliding_mm`` (true contact labels), ``ate_mm``,
            ``focal_error`` = :math:`|\\hat f/f - 1|`, ``scale_error`` = :math:`|\\exp\\,\\mathrm{mean}_t
            \\log(\\hat a^t u^t) - 1|` (recovered metric depth over true depth; ``u`` the observation's depth scale),
            ``jitter`` (m/s^3, mean third difference of the world joints times fps^3).

        Examples
        --------
        >>> v = human_scene_video(frames=6, keyframe_every=3, width=32, height=24, focal=40.0, rng=0)
        >>> res = JOSH(n_iter=(5, 0), phases=("coarse",)).fit(v.observations("none", rng=0))
        >>> sorted(JOSH.evaluate(res, v.ground_truth))[:3]
        ['ate_mm', 'focal_error', 'foot_sliding_mm']
        """
        if not isinstance(result, JOSHResult):
            raise InputError("result", f"got {type(result).__name__}", "a JOSHResult from JOSH.fit")
        if not isinstance(ground_truth, GroundTruth):
            raise InputError("ground_truth", f"got {type(ground_truth).__name__}", "HumanSceneVideo.ground_truth")
        gt = ground_truth
        if len(gt.keyframes) != len(result.cameras):
            raise InputError("ground_truth", f"has {len(gt.keyframes)} keyframes but the result has {len(result.cameras)}",
                             "the truth of the video the inputs came from")
        J = result.world_humans["joints"]
        out = {"w_mpjpe_mm": w_mpjpe(J, gt.joints), "wa_mpjpe_mm": wa_mpjpe(J, gt.joints),
               "foot_sliding_mm": _foot_sliding(np.asarray(result.world_humans["contact_points"], float),
                                                  np.asarray(gt.contact, bool)),
               "ate_mm": _ate_or_nan(result.cameras[:, :3, 3], gt.cam2w[:, :3, 3]),
               "focal_error": abs(result.focal / gt.focal - 1.0),
               "scale_error": abs(float(np.exp(np.mean(np.log(result.scale * gt.depth_scale)))) - 1.0)}
        if len(J) >= 4:
            dt = np.diff(gt.keyframes)[0] / gt.fps
            out["jitter"] = float(np.linalg.norm(np.diff(J, 3, axis=0), axis=-1).mean() / dt ** 3)
        else:
            out["jitter"] = float("nan")
        return out


def _check_body_spec(spec):
    """``body_model`` before any work: a known name, a ParametricBody, or an existing .pkl / .npz file."""
    import os

    if isinstance(spec, str) and spec in ("standin", "anny"):
        if spec == "anny":
            raise InputError("body_model", "got 'anny', whose rig is not SMPL's 24-joint tree",
                             "'standin', an SMPL model file, or a ParametricBody on SMPL's 24 joints (AnnyBody is "
                             "usable on its own)")
        return
    if isinstance(spec, (str, os.PathLike)):
        path = os.fspath(spec)
        if os.path.splitext(path)[1].lower() not in (".pkl", ".npz"):
            raise InputError("body_model", f"got {path!r}", "'standin', a ParametricBody, or the path of an SMPL "
                             ".pkl / .npz model file")
        if not os.path.isfile(path):
            raise InputError("body_model", f"the SMPL model file {path!r} does not exist",
                             "the path of an SMPL model file you downloaded (its weights are not shipped)")
        return
    from ._josh_body import ParametricBody

    if not isinstance(spec, ParametricBody):
        raise InputError("body_model", f"got {type(spec).__name__}",
                         "'standin', a ParametricBody, or the path of an SMPL .pkl / .npz model file")
    if spec.n_joints != 24:
        raise InputError("body_model", f"has {spec.n_joints} joints", "a body on SMPL's 24-joint tree")


def _check_body_fits_inputs(body, inputs):
    """The inputs' shape width and contact columns must be those of the body (before any work)."""
    n_betas = body.n_shape if hasattr(body, "n_shape") else body.n_betas
    n_joints = len(body.parents)
    what = getattr(body, "name", "the stand-in body")
    if n_joints != 24:
        raise InputError("body_model", f"has {n_joints} joints", "a body on SMPL's 24-joint tree")
    if inputs.body_shape.shape[1] != n_betas:
        raise InputError("body_shape", f"has {inputs.body_shape.shape[1]} coefficients per frame",
                         f"{n_betas}, the shape coefficients of {what} (JOSH's body_model)")
    nc = len(body.contact_vertices)
    if inputs.contact.shape[1] != nc:
        raise InputError("contact", f"has {inputs.contact.shape[1]} columns",
                         f"{nc}, one per contact vertex of {what} (its contact_vertices)")


def _ate_or_nan(pred, gt):
    """ATE inside evaluate: NaN (undefined) for fewer than 3 or collinear camera centres (a static camera)."""
    try:
        return ate(pred, gt)
    except InputError:
        return float("nan")


_FOCAL_CACHE: list = []


def _cached_focal_search(inputs, prob, body, cfg, parent, order, f0):
    """The focal profile search, memoised for the last few (same inputs object, start focal, fine gamma).

    It depends on the scene inputs only, so the ablations and the sequential baseline of one sequence share it.
    """
    from . import _josh_opt as O

    key = (float(f0), cfg["gamma_fine"], cfg["gamma_coarse"], str(prob.dtype), str(prob.device))
    for inp, k, out in _FOCAL_CACHE:
        if inp is inputs and k == key:
            return out[0], [dict(r) for r in out[1]]
    out = O.focal_profile_search(prob, body, cfg, parent, order, f0)
    _FOCAL_CACHE.append((inputs, key, out))
    del _FOCAL_CACHE[:-4]
    return out[0], [dict(r) for r in out[1]]


def _subsample_matches(inputs, n, rng):
    total = sum(len(m.conf) for m in inputs.matches)
    if total <= n:
        return inputs
    keep = n / total
    ms = []
    for m in inputs.matches:
        k = max(4, int(round(keep * len(m.conf))))
        idx = np.sort(rng.choice(len(m.conf), size=min(k, len(m.conf)), replace=False))
        ms.append(Matches(m.i, m.j, m.pix_i[idx], m.pix_j[idx], m.depth_i[idx], m.depth_j[idx], m.conf[idx]))
    d = inputs.to_dict()
    d["matches"] = ms
    return JOSHInputs(**d)


def _params_from_init(prob, parent, order, f0, init, dtype):
    import torch

    from . import _josh_opt as O

    allowed = {"cam2w", "log_size", "focal", "pose", "shape", "translation"}
    if not isinstance(init, dict) or set(init) - allowed:
        raise InputError("init", f"has keys {sorted(init) if isinstance(init, dict) else type(init).__name__}",
                         f"a dict with keys from {sorted(allowed)}")
    K = prob.K
    f = float(init.get("focal", f0))
    if "cam2w" in init:
        T = torch.as_tensor(np.asarray(init["cam2w"]), dtype=dtype)
        if T.shape != (K, 4, 4):
            raise InputError("init", f"cam2w has shape {tuple(T.shape)}", f"({K}, 4, 4)")
        T0inv = torch.linalg.inv(T[0])
        T = T0inv[None] @ T                             # the first camera is the world frame
        rel_R, rel_t = O.relative_from_absolute(T[:, :3, :3], T[:, :3, 3], parent)
        log_s = torch.as_tensor(np.asarray(init.get("log_size", np.zeros(K))), dtype=dtype)
        P = O.Params(prob, parent, order, f, "identity", rel_R=rel_R, rel_t=rel_t, log_s=log_s)
    else:
        P = O.Params(prob, parent, order, f, "procrustes")
    with torch.no_grad():
        if "pose" in init:
            pose = torch.as_tensor(np.asarray(init["pose"]), dtype=dtype).reshape(K, -1, 3)
            P.root.copy_(pose[:, 0])
            P.body.copy_(pose[:, 1:])
        if "shape" in init:
            P.shape.copy_(torch.as_tensor(np.asarray(init["shape"]), dtype=dtype))
        if "translation" in init:
            P.tau.copy_(torch.as_tensor(np.asarray(init["translation"]), dtype=dtype))
        P.init = {k: getattr(P, k).detach().clone() for k in ("root", "body", "shape", "tau")}
    return P


def _scene_points(model, S, prob, inputs, stride=4):
    import torch

    pts = []
    H, W = prob.H, prob.W
    vv, uu = np.mgrid[stride // 2:H:stride, stride // 2:W:stride]
    for k in range(prob.K):
        ok = (inputs.confidence[k, vv, uu] > 0.1) & ~inputs.human_mask[k, vv, uu]
        if not ok.any():
            continue
        pix = torch.as_tensor(np.stack([uu[ok] + 0.5, vv[ok] + 0.5], 1), dtype=prob.dtype)
        z = torch.as_tensor(inputs.depth[k, vv[ok], uu[ok]], dtype=prob.dtype)
        kk = torch.full((len(z),), k, dtype=torch.long)
        pts.append(model.world_points(S, pix, z, kk).cpu().numpy())
    return np.concatenate(pts) if pts else np.zeros((0, 3))
