r"""Body models behind one interface, for JOSH's human input (private; re-exported by :mod:`iclr26sci.scene3d.josh`).

:class:`ParametricBody` is the interface: ``forward(betas, body_pose, global_orient, transl) -> (vertices,
joints)``, differentiable and batched over frames, with SMPL's argument names and axis-angle conventions. Three
implementations:

- :class:`StandinBody`: the weight-free procedural body on SMPL's 24-joint tree (:class:`iclr26sci.geom.BodyModel`,
  ``"standin"``), 4 shape coefficients;
- :class:`AnnyBody`: NAVER's anny body (CC0 MakeHuman assets; :class:`iclr26sci.geom.BodyModel`, ``"anny"``);
- :class:`SMPLBodyModel`: an SMPL model file supplied by the user (``.pkl`` or ``.npz`` in SMPL's layout), evaluated
  by the ``smplx`` package (``pip install "iclr26sci[3d]"``).

SMPL (Loper et al. 2015) is linear blend skinning with shape and pose blend shapes:

.. math::

    T(\beta, \theta) = \bar T + S\beta + P\,(\mathrm{vec}(R(\theta_{1:}) - I)),\qquad
    J(\beta) = \mathcal{J}\,(\bar T + S\beta),\qquad
    v_i = \sum_j w_{ij}\, G_j(\theta, J)\, G_j^{\mathrm{rest}\,-1} T_i + t,

with :math:`\bar T` = ``v_template`` (V, 3), :math:`S` = ``shapedirs`` (V, 3, n_betas), :math:`P` = ``posedirs``
(V, 3, 9 (J-1)), :math:`\mathcal J` = ``J_regressor`` (J, V), :math:`w` = ``weights`` (V, J), the tree in row 0
of ``kintree_table`` (2, J) and the triangles ``f`` (F, 3).
"""
from __future__ import annotations

import contextlib
import io
import os
from abc import ABC, abstractmethod
from collections import namedtuple
from numbers import Integral

import numpy as np
import torch

from iclr26sci.core import InputError

__all__ = ["ParametricBody", "StandinBody", "AnnyBody", "SMPLBodyModel", "BodyVJ", "SMPL_KEYS",
           "synthetic_smpl_file", "make_body"]

#: the arrays an SMPL model file must hold (smplx reads exactly these)
SMPL_KEYS = ("v_template", "shapedirs", "posedirs", "J_regressor", "weights", "kintree_table", "f")

BodyVJ = namedtuple("BodyVJ", ["vertices", "joints"])
BodyVJ.__doc__ = "Posed body: ``vertices`` (B, V, 3) and ``joints`` (B, J, 3), tensors."


def _as_t(x, name, dtype):
    if isinstance(x, torch.Tensor):
        return x
    try:
        return torch.as_tensor(np.asarray(x, dtype=np.float64), dtype=dtype)
    except (TypeError, ValueError):
        raise InputError(name, f"got {type(x).__name__}", "a numeric array or tensor") from None


class ParametricBody(torch.nn.Module, ABC):
    r"""Interface of a differentiable parametric body with SMPL's arguments.

    ``forward(betas, body_pose, global_orient, transl) -> BodyVJ(vertices, joints)``:

    - ``betas`` (B, n_betas) or (n_betas,): shape coefficients (broadcast over the batch);
    - ``body_pose`` (B, 3 (J-1)) or (B, J-1, 3): axis-angle rotation of each non-root joint relative to its parent;
    - ``global_orient`` (B, 3) or (B, 1, 3): axis-angle rotation of the root;
    - ``transl`` (B, 3), optional: added to every vertex and joint.

    Missing arguments default to zero. The computation runs in the body's ``dtype``; the outputs take the dtype
    of the first tensor argument (so a float64 optimisation can use a float32 body). Subclasses implement
    :meth:`_forward` on validated tensors and set ``parents``, ``faces``, ``n_betas``, ``contact_vertices``.

    Attributes
    ----------
    parents : tuple of int
        Parent of each joint (-1 for the root).
    n_joints, n_betas, n_vertices : int
    faces : ndarray (F, 3)
    contact_vertices : ndarray of int
        The vertices that carry contact labels (JOSH's ``contact`` columns): sole vertices for the built-ins, all
        vertices for an SMPL file by default (DECO's per-vertex labels).
    dtype : torch.dtype

    Examples
    --------
    >>> import torch
    >>> body = StandinBody()
    >>> out = body(betas=torch.zeros(2, 4), body_pose=torch.zeros(2, 69), global_orient=torch.zeros(2, 3),
    ...            transl=torch.tensor([[0.0, 0.0, 3.0]] * 2))
    >>> out.vertices.shape[0], out.joints.shape
    (2, torch.Size([2, 24, 3]))
    """

    parents: tuple = ()
    n_betas: int = 0
    name: str = "body"

    @property
    def n_joints(self) -> int:
        return len(self.parents)

    @property
    def n_vertices(self) -> int:
        return int(self._n_vertices)

    def _check(self, x, name, tail, B):
        if x is None:
            return None
        t = _as_t(x, name, self.dtype)
        n = int(np.prod(tail))
        if name == "betas" and t.ndim == 1:
            t = t[None]
        if t.ndim >= 2 and tuple(t.shape[1:]) == tuple(tail) and len(tail) > 1:
            t = t.reshape(t.shape[0], n)
        if name == "global_orient" and t.ndim == 3 and tuple(t.shape[1:]) == (1, 3):
            t = t.reshape(t.shape[0], 3)
        if t.ndim != 2 or t.shape[1] != n:
            want = {"betas": f"(B, {n}) or ({n},)", "body_pose": f"(B, {n}) or (B, {n // 3}, 3) axis-angle",
                    "global_orient": "(B, 3) or (B, 1, 3) axis-angle", "transl": "(B, 3)"}[name]
            raise InputError(name, f"has shape {tuple(t.shape)}", f"shape {want} for {self.name} "
                             f"({self.n_joints} joints, {self.n_betas} betas)")
        if B is not None and t.shape[0] not in (1, B):
            raise InputError(name, f"has batch size {t.shape[0]}", f"batch size {B} (or 1, broadcast)")
        if not bool(torch.isfinite(t).all()):
            raise InputError(name, "contains NaN or inf", "finite values")
        return t

    def forward(self, betas=None, body_pose=None, global_orient=None, transl=None) -> BodyVJ:
        args = {"betas": betas, "body_pose": body_pose, "global_orient": global_orient, "transl": transl}
        tails = {"betas": (self.n_betas,), "body_pose": (self.n_joints - 1, 3), "global_orient": (3,),
                 "transl": (3,)}
        out_dtype = next((a.dtype for a in args.values() if isinstance(a, torch.Tensor)), self.dtype)
        chk = {k: self._check(v, k, tails[k], None) for k, v in args.items()}
        sizes = {v.shape[0] for v in chk.values() if v is not None} - {1}
        if len(sizes) > 1:
            raise InputError("body_pose", f"the arguments have batch sizes {sorted(sizes)}",
                             "one batch size B for betas, body_pose, global_orient and transl (or 1, broadcast)")
        B = sizes.pop() if sizes else 1
        full = {}
        for k, v in chk.items():
            n = int(np.prod(tails[k]))
            v = torch.zeros(1, n, dtype=self.dtype) if v is None else v.to(self.dtype)
            full[k] = v.expand(B, n)
        V, J = self._forward(full["betas"], full["body_pose"], full["global_orient"], full["transl"])
        return BodyVJ(V.to(out_dtype), J.to(out_dtype))

    @abstractmethod
    def _forward(self, betas, body_pose, global_orient, transl):
        """(B, n_betas), (B, 3 (J-1)), (B, 3), (B, 3) tensors in ``self.dtype`` -> vertices (B, V, 3), joints (B, J, 3)."""

    def __repr__(self):
        return (f"{type(self).__name__}({self.n_joints} joints, {self.n_vertices} vertices, {self.n_betas} betas, "
                f"{len(self.contact_vertices)} contact vertices)")


def _check_dtype(dtype):
    if dtype not in (torch.float32, torch.float64):
        raise InputError("dtype", f"got {dtype!r}", "torch.float32 or torch.float64")
    return dtype


class StandinBody(ParametricBody):
    r"""The procedural SMPL-topology stand-in (:class:`iclr26sci.geom.BodyModel` ``"standin"``) behind the interface.

    ``betas`` are its 4 shape coefficients (log-stature, leg/trunk ratio, arm ratio, girth); 24 joints; rigid
    skinning of one capsule per bone; contact vertices = the soles.

    Parameters
    ----------
    stature : float
        Stature in metres at ``betas = 0``.
    dtype : torch.dtype
        Computation dtype (default float64).

    Examples
    --------
    >>> body = StandinBody()
    >>> body
    StandinBody(24 joints, 2072 vertices, 4 betas, 30 contact vertices)
    >>> round(float(body().joints[0, 15, 1] - body().joints[0, 7, 1]), 3)   # head centre above the ankle
    1.479
    """

    name = "the stand-in body"

    def __init__(self, stature=1.70, *, dtype=torch.float64):
        super().__init__()
        from iclr26sci.geom import BodyModel

        self.dtype = _check_dtype(dtype)
        self.model = BodyModel("standin", stature=stature, dtype=dtype)
        self.parents = tuple(self.model.parents)
        self.n_betas = self.model.n_shape
        self.faces = self.model.faces
        self.contact_vertices = np.asarray(self.model.contact_vertices)
        self._n_vertices = len(self.model.skin_joint)

    def _forward(self, betas, body_pose, global_orient, transl):
        out = self.model(torch.cat([global_orient, body_pose], 1), betas, transl)
        return out.vertices, out.joints


class AnnyBody(ParametricBody):
    r"""NAVER's anny body (CC0 MakeHuman assets; :class:`iclr26sci.geom.BodyModel` ``"anny"``) behind the interface.

    ``betas`` are anny's 6 phenotypes (gender, age, muscle, weight, height, proportions) minus 0.5 (so 0 is the
    mean body, as for SMPL's betas); ``global_orient`` is the root bone's rotation and ``body_pose`` the other
    bones' (anny's rig, not SMPL's 24 joints). Contact vertices: the vertices within 1.5 cm of the lowest point of
    the rest body along its longest axis (the soles). The first construction builds anny's cache (minutes).

    Parameters
    ----------
    dtype : torch.dtype

    Examples
    --------
    >>> body = AnnyBody()                                       # doctest: +SKIP
    >>> body().vertices.shape                                   # doctest: +SKIP
    torch.Size([1, 13718, 3])
    """

    name = "the anny body"

    def __init__(self, *, dtype=torch.float64):
        super().__init__()
        from iclr26sci.geom import BodyModel

        self.dtype = _check_dtype(dtype)
        self.model = BodyModel("anny", dtype=dtype)
        self.parents = tuple(self.model.parents)
        self.n_betas = self.model.n_shape
        self.faces = self.model.faces
        with torch.no_grad():
            V0 = self.model().vertices[0].cpu().numpy()
        self._n_vertices = len(V0)
        ext = V0.max(0) - V0.min(0)
        up = int(np.argmax(ext))
        h = V0[:, up] - V0[:, up].min()
        self.contact_vertices = np.nonzero(h <= 0.015)[0]

    def _forward(self, betas, body_pose, global_orient, transl):
        out = self.model(torch.cat([global_orient, body_pose], 1), betas + 0.5, transl)
        return out.vertices, out.joints


# ================================================================================================ SMPL files
def _load_smpl_arrays(path):
    """The arrays of an SMPL model file (.npz or .pkl), densified, as float64 / int64 numpy arrays."""
    ext = os.path.splitext(path)[1].lower()
    if ext == ".npz":
        try:
            with np.load(path, allow_pickle=False) as z:
                raw = {k: z[k] for k in z.files}
        except (OSError, ValueError) as exc:
            raise InputError("model_path", f"{path!r} could not be read as .npz ({exc})",
                             "an .npz file of plain numpy arrays in SMPL's layout") from None
    else:
        import pickle

        try:
            with open(path, "rb") as fh:
                raw = pickle.load(fh, encoding="latin1")
        except ModuleNotFoundError as exc:
            raise InputError("model_path", f"{path!r} pickles objects of the module {exc.name!r} (the original SMPL "
                             ".pkl files store chumpy arrays)",
                             "a .pkl of plain numpy/scipy arrays (convert it once, e.g. with smplx's "
                             "tools/clean_ch.py, or save its arrays to .npz)") from None
        except Exception as exc:
            raise InputError("model_path", f"{path!r} could not be unpickled ({type(exc).__name__}: {exc})",
                             "an SMPL model .pkl") from None
        if not isinstance(raw, dict):
            raise InputError("model_path", f"{path!r} holds a {type(raw).__name__}", "a dict of SMPL's arrays")
    missing = [k for k in SMPL_KEYS if k not in raw]
    if missing:
        raise InputError("model_path", f"{path!r} lacks {missing} (has {sorted(raw)[:12]})",
                         f"a model in SMPL's layout with the arrays {list(SMPL_KEYS)}")
    out = {}
    for k in SMPL_KEYS:
        a = raw[k]
        if hasattr(a, "toarray"):            # scipy.sparse (SMPL's J_regressor)
            a = a.toarray()
        try:
            a = np.asarray(a, dtype=np.int64 if k in ("kintree_table", "f") else np.float64)
        except (TypeError, ValueError):
            raise InputError("model_path", f"its {k!r} is a {type(raw[k]).__name__} that is not numeric",
                             "numeric arrays (chumpy objects must be converted to numpy first)") from None
        out[k] = a
    return out


def _check_smpl_layout(d, path):
    """Shapes and values of SMPL's arrays; returns (V, J, n_betas, parents)."""
    def bad(key, problem, expected):
        raise InputError("model_path", f"{path!r}: {key} {problem}", expected)

    vt = d["v_template"]
    if vt.ndim != 2 or vt.shape[1] != 3 or vt.shape[0] < 4:
        bad("v_template", f"has shape {vt.shape}", "v_template of shape (V, 3), V >= 4")
    V = vt.shape[0]
    kt = d["kintree_table"]
    if kt.ndim != 2 or kt.shape[0] != 2 or kt.shape[1] < 2:
        bad("kintree_table", f"has shape {kt.shape}", "kintree_table of shape (2, J): parents, then joint ids")
    J = kt.shape[1]
    if not np.array_equal(kt[1], np.arange(J)):
        bad("kintree_table", "row 1 is not 0..J-1", "joints numbered 0..J-1 in row 1")
    parents = kt[0].copy()
    parents[0] = -1
    if np.any(parents[1:] < 0) or np.any(parents[1:] >= np.arange(1, J)):
        bad("kintree_table", "has a parent that does not precede its child",
            "parents[j] in [0, j) for j >= 1 (SMPL's ordering; smplx assumes it)")
    sd = d["shapedirs"]
    if sd.ndim != 3 or sd.shape[:2] != (V, 3) or sd.shape[2] < 1:
        bad("shapedirs", f"has shape {sd.shape}", f"shapedirs of shape ({V}, 3, n_betas)")
    pd = d["posedirs"]
    if pd.shape != (V, 3, 9 * (J - 1)):
        bad("posedirs", f"has shape {pd.shape}", f"posedirs of shape ({V}, 3, {9 * (J - 1)}) = (V, 3, 9 (J - 1))")
    jr = d["J_regressor"]
    if jr.shape != (J, V):
        bad("J_regressor", f"has shape {jr.shape}", f"J_regressor of shape ({J}, {V})")
    w = d["weights"]
    if w.shape != (V, J):
        bad("weights", f"has shape {w.shape}", f"skinning weights of shape ({V}, {J})")
    if np.any(w < -1e-8) or np.abs(w.sum(1) - 1).max() > 1e-4:
        bad("weights", f"are negative or do not sum to 1 per vertex (max |sum - 1| = {np.abs(w.sum(1) - 1).max():.2g})",
            "non-negative skinning weights summing to 1 per vertex")
    f = d["f"]
    if f.ndim != 2 or f.shape[1] != 3 or f.shape[0] < 1 or f.min() < 0 or f.max() >= V:
        bad("f", f"has shape {f.shape} or indices outside [0, {V})", f"triangles (F, 3) indexing the {V} vertices")
    for k in ("v_template", "shapedirs", "posedirs", "J_regressor", "weights"):
        if not np.all(np.isfinite(d[k])):
            bad(k, "has NaN or inf", "finite arrays")
    return V, J, sd.shape[2], tuple(int(p) for p in parents)


class SMPLBodyModel(ParametricBody):
    r"""An SMPL model file, evaluated by the ``smplx`` package, behind the :class:`ParametricBody` interface.

    The file is not shipped (SMPL's licence): pass the one you downloaded, ``SMPL_NEUTRAL.pkl`` or its arrays saved
    as ``.npz``. It must hold SMPL's arrays ``v_template`` (V, 3), ``shapedirs`` (V, 3, n), ``posedirs``
    (V, 3, 9 (J-1)), ``J_regressor`` (J, V) (dense or scipy-sparse), ``weights`` (V, J) (rows summing to 1),
    ``kintree_table`` (2, J) and ``f`` (F, 3); all are checked before ``smplx`` is imported. Joints are SMPL's
    regressed joints (the first J of smplx's output; its extra vertex keypoints are not used).

    Loading a ``.pkl`` unpickles it: load only files you trust. The original SMPL ``.pkl`` files pickle chumpy
    arrays; they need ``chumpy`` or a one-time conversion (smplx's ``tools/clean_ch.py``, or ``np.savez`` of the
    arrays).

    Parameters
    ----------
    model_path : str or os.PathLike
        The ``.pkl`` or ``.npz`` file.
    n_betas : int, optional
        Shape coefficients used (default all in the file, at most 300; smplx caps a 10-component file at 10).
    contact_vertices : array of int, optional
        Vertices that carry contact labels (default all, as DECO labels every SMPL vertex).
    dtype : torch.dtype
        Computation dtype (default float64). smplx's loader rounds the model's arrays to float32 first, so a
        float64 body differs from an exact float64 evaluation by float32 rounding of the arrays (~1e-8 m).

    Raises
    ------
    InputError
        Missing file, wrong extension, arrays missing or not in SMPL's layout, bad ``n_betas`` or
        ``contact_vertices``.
    ModuleNotFoundError
        ``smplx`` is not installed; the message names ``pip install "iclr26sci[3d]"``.

    References
    ----------
    M. Loper, N. Mahmood, J. Romero, G. Pons-Moll, M. J. Black, "SMPL: A Skinned Multi-Person Linear Model",
    ACM TOG 34(6), 2015. smplx: github.com/vchoutas/smplx.

    Examples
    --------
    >>> import tempfile, os, torch
    >>> path = synthetic_smpl_file(os.path.join(tempfile.mkdtemp(), "toy_smpl.npz"), rng=0)
    >>> body = SMPLBodyModel(path)
    >>> body
    SMPLBodyModel(24 joints, 300 vertices, 10 betas, 300 contact vertices)
    >>> out = body(betas=torch.zeros(2, 10), body_pose=torch.zeros(2, 69), global_orient=torch.zeros(2, 3))
    >>> out.joints.shape
    torch.Size([2, 24, 3])
    """

    name = "the SMPL model"

    def __init__(self, model_path, *, n_betas=None, contact_vertices=None, dtype=torch.float64):
        super().__init__()
        if not isinstance(model_path, (str, os.PathLike)):
            raise InputError("model_path", f"got {type(model_path).__name__}", "the path of an SMPL .pkl or .npz file")
        path = os.fspath(model_path)
        if os.path.splitext(path)[1].lower() not in (".pkl", ".npz"):
            raise InputError("model_path", f"{path!r} is neither .pkl nor .npz", "an SMPL model file (.pkl or .npz)")
        if not os.path.isfile(path):
            raise InputError("model_path", f"{path!r} does not exist",
                             "an SMPL model file you downloaded (SMPL's weights are licensed and not shipped)")
        self.dtype = _check_dtype(dtype)
        d = _load_smpl_arrays(path)
        V, J, nb_file, parents = _check_smpl_layout(d, path)
        if n_betas is None:
            n_betas = min(nb_file, 300)
        if isinstance(n_betas, bool) or not isinstance(n_betas, Integral) or not 1 <= n_betas <= min(nb_file, 300):
            raise InputError("n_betas", f"got {n_betas!r}", f"an integer in [1, {min(nb_file, 300)}] (the file has "
                             f"{nb_file} shape components)")
        if contact_vertices is None:
            cv = np.arange(V)
        else:
            cv = np.asarray(contact_vertices)
            if cv.ndim != 1 or cv.size == 0 or not np.issubdtype(cv.dtype, np.integer) or cv.min() < 0 or cv.max() >= V:
                raise InputError("contact_vertices", f"got shape {cv.shape}, dtype {cv.dtype}",
                                 f"a non-empty 1-D array of vertex indices in [0, {V})")
        try:
            import smplx
            from smplx.utils import Struct
        except ModuleNotFoundError as exc:
            from iclr26sci.core._lazy import missing_extra_error

            raise missing_extra_error(exc, "iclr26sci.scene3d.SMPLBodyModel") from exc
        # smplx prints a warning for files with fewer than 300 shape components; keep stdout clean
        dummy = {k: 0 for k in ("nose", "reye", "leye", "rear", "lear")}
        with contextlib.redirect_stdout(io.StringIO()):
            self.smpl = smplx.SMPL(path, data_struct=Struct(**d), num_betas=int(n_betas), create_betas=False,
                                   create_global_orient=False, create_body_pose=False, create_transl=False,
                                   dtype=dtype, vertex_ids=dummy, use_hands=False, use_feet_keypoints=False)
        self.path = path
        self.parents = parents
        self.n_betas = int(self.smpl.num_betas)
        self.faces = d["f"]
        self.contact_vertices = cv.astype(np.int64)
        self._n_vertices = V

    def _forward(self, betas, body_pose, global_orient, transl):
        out = self.smpl(betas=betas, body_pose=body_pose, global_orient=global_orient, transl=transl)
        return out.vertices, out.joints[:, :self.n_joints]


def synthetic_smpl_file(path, *, n_vertices=300, n_betas=10, rng=None):
    r"""Write a random model in SMPL's file layout (for tests and examples: a skinned blob, not a human body).

    The vertices are ``n_vertices`` points of the stand-in body's rest surface (so the 24 joints of SMPL's tree sit
    inside it); ``J_regressor`` averages each joint's 8 nearest vertices (rows summing to 1); ``weights`` are a
    softmax of minus the distance to the joints over 3 cm (rows summing to 1); ``shapedirs`` and ``posedirs`` are
    small Gaussian bases (1 cm and 1 mm); ``f`` is the vertices' convex hull; ``kintree_table`` is SMPL's tree with
    SMPL's 2**32 - 1 root marker.

    Parameters
    ----------
    path : str or os.PathLike
        Destination, ``.npz`` (numpy arrays) or ``.pkl`` (a pickled dict of numpy arrays).
    n_vertices : int
        At least 50.
    n_betas : int
    rng : int, Generator or None

    Returns
    -------
    str
        The path written.

    Examples
    --------
    >>> import tempfile, os, numpy as np
    >>> p = synthetic_smpl_file(os.path.join(tempfile.mkdtemp(), "m.npz"), rng=0)
    >>> sorted(np.load(p).files) == sorted(SMPL_KEYS)
    True
    """
    from scipy.spatial import ConvexHull

    from iclr26sci.core import as_generator
    from iclr26sci.geom import SMPL_PARENTS, BodyModel

    if not isinstance(path, (str, os.PathLike)) or os.path.splitext(os.fspath(path))[1].lower() not in (".npz", ".pkl"):
        raise InputError("path", f"got {path!r}", "a .npz or .pkl file path")
    for nm, v, lo in (("n_vertices", n_vertices, 50), ("n_betas", n_betas, 1)):
        if isinstance(v, bool) or not isinstance(v, Integral) or v < lo:
            raise InputError(nm, f"got {v!r}", f"an integer >= {lo}")
    g = as_generator(rng)
    body = BodyModel("standin", dtype=torch.float64)
    with torch.no_grad():
        V_all = body._rest_vertices(torch.zeros(1, 4, dtype=torch.float64))[0].numpy()
        J0 = body.rest_joints()[0].numpy()
    idx = np.sort(g.choice(len(V_all), size=min(n_vertices, len(V_all)), replace=False))
    vt = V_all[idx]
    V, J = len(vt), len(SMPL_PARENTS)
    dist = np.linalg.norm(vt[:, None] - J0[None], axis=-1)                       # (V, J)
    jr = np.zeros((J, V))
    for j in range(J):
        near = np.argsort(dist[:, j])[:8]
        jr[j, near] = 1.0 / 8
    logits = -dist / 0.03
    w = np.exp(logits - logits.max(1, keepdims=True))
    w /= w.sum(1, keepdims=True)
    kt = np.stack([np.array([2 ** 32 - 1] + list(SMPL_PARENTS[1:]), dtype=np.int64), np.arange(J)])
    arrays = {"v_template": vt, "shapedirs": 0.01 * g.standard_normal((V, 3, n_betas)),
              "posedirs": 0.001 * g.standard_normal((V, 3, 9 * (J - 1))), "J_regressor": jr, "weights": w,
              "kintree_table": kt, "f": ConvexHull(vt).simplices.astype(np.int64)}
    path = os.fspath(path)
    if path.lower().endswith(".npz"):
        np.savez(path, **arrays)
    else:
        import pickle

        with open(path, "wb") as fh:
            pickle.dump(arrays, fh)
    return path


def make_body(spec, dtype=torch.float64):
    """A body from ``"standin"``, ``"anny"``, a :class:`ParametricBody` or an SMPL file path (JOSH's ``body_model``)."""
    if isinstance(spec, ParametricBody):
        return spec
    if isinstance(spec, str) and spec == "standin":
        return StandinBody(dtype=dtype)
    if isinstance(spec, str) and spec == "anny":
        return AnnyBody(dtype=dtype)
    if isinstance(spec, (str, os.PathLike)):
        return SMPLBodyModel(spec, dtype=dtype)
    raise InputError("body_model", f"got {type(spec).__name__}",
                     "'standin', 'anny', a ParametricBody, or the path of an SMPL .pkl/.npz file")

