r"""Objects of LIGHT's interactions: procedural boxes, cylinders and chairs (a shape spectrum), meshes, their
signed distance functions and a BPS-lite shape code.

World and object frames are y-up (the DeepMimic convention). A signed distance :math:`\phi(p)` is negative
inside the object. The shape code (a miniature of the paper's basis point set, BPS) is :math:`\phi` at 32 fixed
basis points in a ball of radius 0.5 m, clipped to [-0.5, 0.5], followed by the object's largest extent.
"""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, as_generator, check_array, check_option

__all__ = ["HOIObject", "sample_object", "mesh_object", "MESH_NAMES", "rot6d_from_matrix", "matrix_from_rot6d", "yaw_matrix", "OBJECT_KINDS"]

#: procedural object kinds of the shape spectrum
OBJECT_KINDS = ("box", "cylinder", "chair")
_N_BASIS = 32


def _basis_points():
    g = np.random.default_rng(20260326)
    v = g.standard_normal((_N_BASIS, 3))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v * 0.5 * g.uniform(0, 1, (_N_BASIS, 1)) ** (1 / 3)


_BASIS = _basis_points()


def _sdf_box(p, half):
    q = np.abs(p) - half
    return np.linalg.norm(np.maximum(q, 0.0), axis=-1) + np.minimum(q.max(-1), 0.0)


def _sdf_cylinder(p, r, h):
    d = np.stack([np.linalg.norm(p[..., [0, 2]], axis=-1) - r, np.abs(p[..., 1]) - h], -1)
    return np.minimum(d.max(-1), 0.0) + np.linalg.norm(np.maximum(d, 0.0), axis=-1)


class HOIObject:
    r"""A rigid object of an interaction, with its signed distance function.

    Parameters
    ----------
    kind : {"box", "cylinder", "chair", "mesh"}
        The shape family.
    dims : sequence of float
        Sizes in metres: box ``(hx, hy, hz)`` half extents; cylinder ``(radius, half_height)`` (vertical axis);
        chair ``(half_width, half_depth, leg_height, back_height, thickness)`` (origin at the seat centre, the
        back at -z). Ignored for ``"mesh"``.
    vertices : array (n, 3), optional
        For ``kind="mesh"``: the mesh vertices (object frame). The signed distance is approximated by the
        distance to the nearest of the vertices and face centroids, negative inside their convex hull.
    faces : int array (f, 3), optional
        For ``kind="mesh"``: triangles (their centroids densify the surface samples).
    name : str, optional
        A display name (default ``kind``), used in captions ("pick up the {name}").

    Examples
    --------
    >>> box = HOIObject("box", (0.1, 0.2, 0.1))
    >>> box
    HOIObject('box', dims=(0.1, 0.2, 0.1))
    >>> box.sdf([[0.0, 0.0, 0.0], [0.3, 0.0, 0.0]]).round(3).tolist()
    [-0.1, 0.2]
    >>> box.shape_code().shape
    (33,)
    """

    _NDIMS = {"box": 3, "cylinder": 2, "chair": 5}

    def __init__(self, kind="box", dims=(0.15, 0.15, 0.15), *, vertices=None, faces=None, name=None):
        self.kind = check_option(kind, "kind", (*OBJECT_KINDS, "mesh"))
        if self.kind == "mesh":
            if vertices is None:
                raise InputError("vertices", "is missing", "the (n, 3) vertices of the mesh object")
            V = check_array(vertices, "vertices", ndim=2)
            if V.shape[0] == 0:
                raise InputError("vertices", "has no vertices", "a mesh with at least 4 vertices")
            if V.shape[1] != 3 or V.shape[0] < 4:
                raise InputError("vertices", f"has shape {V.shape}", "a mesh with at least 4 vertices of shape (n, 3)")
            pts = [V]
            if faces is not None:
                F = check_array(faces, "faces", ndim=2, dtype=int)
                if F.shape[1] != 3 or F.min(initial=0) < 0 or F.max(initial=0) >= len(V):
                    raise InputError("faces", f"has shape {F.shape} or indices outside [0, {len(V)})",
                                     "triangles indexing the vertices, shape (f, 3)")
                pts.append(V[F].mean(1))
            self.vertices = V
            self._surface = np.concatenate(pts)
            self.dims = tuple(float(x) for x in np.abs(self.vertices).max(0))
        else:
            d = check_array(dims, "dims", ndim=1, shape=(self._NDIMS[self.kind],))
            if np.any(d <= 0):
                raise InputError("dims", f"has non-positive sizes {d.tolist()}", "positive sizes in metres")
            self.dims = tuple(float(x) for x in d)
            self.vertices = None
        self.name = self.kind if name is None else str(name)

    def __repr__(self):
        if self.kind == "mesh":
            return f"HOIObject('mesh', {len(self.vertices)} vertices)"
        return f"HOIObject({self.kind!r}, dims={tuple(round(x, 3) for x in self.dims)})"

    def sdf(self, points) -> np.ndarray:
        r"""Signed distance :math:`\phi(p)` (metres, negative inside) of points ``(..., 3)`` in the object frame."""
        try:
            p = np.asarray(points, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("points", f"got {type(points).__name__}", "numeric points of shape (..., 3)") from None
        if p.ndim == 0 or p.shape[-1] != 3:
            raise InputError("points", f"has shape {p.shape}", "points of shape (..., 3)")
        if not np.all(np.isfinite(p)):
            raise InputError("points", "contains NaN or infinite values", "finite points")
        if self.kind == "box":
            return _sdf_box(p, np.asarray(self.dims))
        if self.kind == "cylinder":
            return _sdf_cylinder(p, *self.dims)
        if self.kind == "chair":
            w, dp, leg, back, t = self.dims
            seat = _sdf_box(p, np.array([w, t / 2, dp]))
            bk = _sdf_box(p - np.array([0.0, back / 2, -dp + t / 2]), np.array([w, back / 2, t / 2]))
            legs = [_sdf_box(p - np.array([sx * (w - t / 2), -leg / 2, sz * (dp - t / 2)]), np.array([t / 2, leg / 2, t / 2]))
                    for sx in (-1, 1) for sz in (-1, 1)]
            return np.minimum.reduce([seat, bk, *legs])
        from scipy.spatial import Delaunay, cKDTree

        if not hasattr(self, "_tree"):
            self._tree, self._hull = cKDTree(self._surface), Delaunay(self.vertices)
        flat = p.reshape(-1, 3)
        dist = self._tree.query(flat)[0]
        inside = self._hull.find_simplex(flat) >= 0
        return np.where(inside, -dist, dist).reshape(p.shape[:-1])

    def extent(self) -> float:
        """The largest half-size, metres."""
        return float(max(self.dims[:3]) if self.kind != "chair" else max(self.dims[0], self.dims[1], self.dims[3]))

    def shape_code(self) -> np.ndarray:
        """The BPS-lite code: the signed distance at 32 fixed basis points (clipped to +-0.5 m) and the extent."""
        return np.concatenate([np.clip(self.sdf(_BASIS), -0.5, 0.5), [self.extent()]])

    def contact_offset(self) -> float:
        """Distance from the object origin to its surface along the object's -x axis (where the hand holds it)."""
        lo, hi = 0.0, 2.0
        if self.sdf(np.zeros(3)) >= 0:
            raise InputError("obj", "has its origin outside the object", "an object containing its origin")
        for _ in range(50):
            mid = (lo + hi) / 2
            if self.sdf(np.array([-mid, 0.0, 0.0])) < 0:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    def summary(self) -> str:
        """One line: the kind and sizes."""
        return f"{self.name}: {self.kind}, sizes {tuple(round(x, 3) for x in self.dims)} m"

    def to_dict(self) -> dict:
        """``kind``, ``dims``, ``name`` (and ``vertices`` for a mesh)."""
        out = {"kind": self.kind, "dims": list(self.dims), "name": self.name}
        if self.vertices is not None:
            out["vertices"] = self.vertices.tolist()
        return out


def sample_object(kind, rng=None) -> HOIObject:
    """A random object of one procedural ``kind`` (box, cylinder or chair) with sizes from the shape spectrum.

    Examples
    --------
    >>> sample_object("cylinder", rng=0).kind
    'cylinder'
    """
    kind = check_option(kind, "kind", OBJECT_KINDS)
    g = as_generator(rng)
    if kind == "box":
        return HOIObject("box", g.uniform(0.08, 0.22, 3))
    if kind == "cylinder":
        return HOIObject("cylinder", (g.uniform(0.06, 0.18), g.uniform(0.08, 0.25)))
    return HOIObject("chair", (g.uniform(0.18, 0.25), g.uniform(0.18, 0.25), g.uniform(0.3, 0.45),
                               g.uniform(0.35, 0.5), g.uniform(0.03, 0.05)))


#: meshes of pybullet_data usable as (unseen) objects
MESH_NAMES = ("duck", "bunny", "teddy", "stone", "soccerball")
_MESH_FILES = {"duck": "duck_vhacd.obj", "bunny": "bunny.obj", "teddy": "teddy2_VHACD_CHs.obj", "stone": "stone.obj",
               "soccerball": "soccerball.obj"}


def mesh_object(name, size=0.15) -> HOIObject:
    """A mesh object from ``pybullet_data`` (PyPI ``pybullet``), centred and scaled to a largest half-size ``size`` m.

    Parameters
    ----------
    name : {"duck", "bunny", "teddy", "stone", "soccerball"}
        Which shipped mesh.
    size : float
        Largest half-extent after scaling, metres.

    Examples
    --------
    >>> duck = mesh_object("duck")
    >>> round(duck.extent(), 3), bool(duck.sdf([0.0, 0.0, 0.0]) < 0)
    (0.15, True)
    """
    import os

    from iclr26sci.core import check_in_range

    name = check_option(name, "name", MESH_NAMES)
    size = check_in_range(size, "size", 0.0, 2.0, low_open=True)
    try:
        import pybullet_data
    except ImportError as exc:  # pragma: no cover
        raise ImportError('mesh objects need pybullet\'s data: pip install "iclr26sci[rl]"') from exc
    V, F = [], []
    with open(os.path.join(pybullet_data.getDataPath(), _MESH_FILES[name])) as fh:
        for line in fh:
            if line.startswith("v "):
                V.append([float(x) for x in line.split()[1:4]])
            elif line.startswith("f "):
                idx = [int(t.split("/")[0]) - 1 for t in line.split()[1:]]
                F.extend([idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1))
    V = np.asarray(V)
    V = V - (V.max(0) + V.min(0)) / 2
    V = V * (size / np.abs(V).max())
    return HOIObject("mesh", vertices=V, faces=np.asarray(F, dtype=np.int64), name=name)


def yaw_matrix(theta) -> np.ndarray:
    """Rotations about the vertical (y) axis by angles ``theta`` (radians): ``(..., 3, 3)``."""
    th = np.asarray(theta, dtype=np.float64)
    c, s = np.cos(th), np.sin(th)
    z, o = np.zeros_like(th), np.ones_like(th)
    return np.stack([np.stack([c, z, s], -1), np.stack([z, o, z], -1), np.stack([-s, z, c], -1)], -2)


def rot6d_from_matrix(R) -> np.ndarray:
    """The 6-D rotation code: the first two columns of ``R`` (..., 3, 3), concatenated: (..., 6)."""
    R = np.asarray(R, dtype=np.float64)
    return np.concatenate([R[..., :, 0], R[..., :, 1]], -1)


def matrix_from_rot6d(r6) -> np.ndarray:
    """Gram-Schmidt back from a 6-D code (..., 6) to a rotation matrix (..., 3, 3) (Zhou et al. 2019)."""
    r6 = np.asarray(r6, dtype=np.float64)
    a, b = r6[..., :3], r6[..., 3:]
    e1 = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-9)
    b = b - (e1 * b).sum(-1, keepdims=True) * e1
    e2 = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-9)
    return np.stack([e1, e2, np.cross(e1, e2)], -1)
