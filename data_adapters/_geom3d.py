"""Real 3-D data that installs offline: multi-view images with depth and poses, meshes, point clouds,
a stereo pair with ground-truth disparity, and motion-capture clips.

Sources (never downloaded at run time; each loader says how to install its package when it is missing):

- ViSP ``visp-images-data`` (Debian, GPL-2): ``mbt-depth/Castle-simu``, 40 rendered 640x480 views of a
  castle model with 16-bit depth maps, 4x4 object-to-camera poses and pinhole intrinsics
  (px = py = 700, u0 = 320, v0 = 240), and image sequences (``mire-2``, ``cube``, ...).
- CGAL ``libcgal-demo`` (Debian): ``/usr/share/doc/libcgal-dev/data.tar.gz`` with ``.off`` meshes and
  ``.xyz`` / ``.ply`` point clouds, read member by member (never extracted wholesale).
- scikit-image: the Middlebury 2014 motorcycle stereo pair with ground-truth disparity.
- pyvista (PyPI, optional): its bundled example meshes.
- pybullet (PyPI, optional): the DeepMimic humanoid motion-capture clips in ``pybullet_data``.
"""
from __future__ import annotations

import functools
import glob
import os
import re
import tarfile
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from iclr26sci.core import InputError

from iclr26sci.geom._mocap import load_deepmimic_clip as _load_deepmimic_clip

from ._base import adapter

__all__ = ["load_castle_simu", "load_visp_sequence", "load_cgal_mesh", "load_cgal_point_cloud",
           "load_stereo_motorcycle", "load_pyvista_mesh", "load_deepmimic_clip", "cgal_names",
           "visp_sequence_names", "MultiViewSet", "PYVISTA_MESH_NAMES"]

VISP_ROOT = "/usr/share/visp-images-data/ViSP-images"
CASTLE_DIR = os.path.join(VISP_ROOT, "mbt-depth", "Castle-simu")
CGAL_TAR = "/usr/share/doc/libcgal-dev/data.tar.gz"
#: metres per unit of the Castle-simu 16-bit depth maps (ViSP's tracker tutorials use this scale)
CASTLE_DEPTH_SCALE = 0.000030518
_VISP_INSTALL = "apt-get install -y visp-images-data"
_CGAL_INSTALL = "apt-get install -y libcgal-demo"
#: pyvista example meshes that ship inside the pyvista wheel (no download)
PYVISTA_MESH_NAMES = ("airplane", "ant", "nut", "sphere")


def _require(path, what, install):
    if not os.path.exists(path):
        raise FileNotFoundError(f"{what} not found at {path}; install it with: {install}")
    return path


def _read_pgm(path):
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im.convert("L"), dtype=np.float64) / 255.0


def _check_indices(value, name, n, what):
    if value is None:
        return list(range(n))
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise InputError(name, f"got {value!r}", f"a list of {what} indices in [0, {n - 1}], or None for all")
    out = list(value)
    if not out:
        raise InputError(name, "is empty", f"at least one {what} index (or None for all)")
    for i in out:
        if isinstance(i, bool) or not isinstance(i, Integral) or not 0 <= int(i) < n:
            raise InputError(name, f"contains {i!r}", f"{what} indices in [0, {n - 1}]")
    return [int(i) for i in out]


def _check_downsample(downsample):
    if isinstance(downsample, bool) or not isinstance(downsample, Integral) or downsample < 1:
        raise InputError("downsample", f"got {downsample!r}", "an integer factor >= 1 (1 = full 640x480)")
    return int(downsample)


def _block_mean(a, f):
    if f == 1:
        return a
    H, W = (a.shape[0] // f) * f, (a.shape[1] // f) * f
    return a[:H, :W].reshape(H // f, f, W // f, f).mean((1, 3))


@dataclass
class MultiViewSet:
    """Calibrated views of one scene.

    Attributes
    ----------
    images : ndarray (N, H, W)
        Grey-scale intensities in [0, 1].
    depths : ndarray (N, H, W)
        z-depth in metres; 0 where the ray sees background.
    poses : ndarray (N, 4, 4)
        World(object)-to-camera transforms ``[R | t]`` (OpenCV axes: x right, y down, z forward).
    K : ndarray (3, 3)
        Pinhole intrinsics of the (possibly downsampled) images, pixel centres at ``i + 0.5``.
    views : list of int
        Which of the source views these are (0-based).
    name : str
    """

    images: np.ndarray
    depths: np.ndarray
    poses: np.ndarray
    K: np.ndarray
    views: list
    name: str

    @property
    def width(self) -> int:
        return int(self.images.shape[2])

    @property
    def height(self) -> int:
        return int(self.images.shape[1])

    def camera(self, i):
        """View ``i`` (position in this set) as an :class:`iclr26sci.geom.Camera`."""
        import torch

        from iclr26sci.geom._camera import Camera

        P = torch.as_tensor(self.poses[i], dtype=torch.float64)
        # re-orthonormalise the 4-decimal rotation stored in the text files
        U, _, Vh = torch.linalg.svd(P[:3, :3])
        return Camera(R=U @ Vh, t=P[:3, 3], fx=float(self.K[0, 0]), fy=float(self.K[1, 1]), cx=float(self.K[0, 2]),
                      cy=float(self.K[1, 2]), width=self.width, height=self.height)

    def __repr__(self):
        return f"MultiViewSet({self.name!r}, {len(self.views)} views, {self.width}x{self.height})"


@adapter(returns="MultiViewSet", source="visp-images-data (Debian): mbt-depth/Castle-simu",
         description="40 rendered views of a castle with depth maps, 4x4 poses and intrinsics")
def load_castle_simu(views=None, downsample=1) -> MultiViewSet:
    """The ViSP Castle-simu multi-view set: images, metric depth, camera poses and intrinsics.

    Parameters
    ----------
    views : sequence of int, optional
        0-based view indices in [0, 39] (default: all 40).
    downsample : int
        Integer block-averaging factor for images and depth (intrinsics scaled to match:
        ``f / s`` and ``c / s``, which is exact for pixel-centre conventions with block averaging).

    Returns
    -------
    MultiViewSet

    Examples
    --------
    >>> mv = load_castle_simu(views=[0, 1], downsample=8)   # doctest: +SKIP
    >>> mv.images.shape, mv.K[0, 0]                         # doctest: +SKIP
    ((2, 60, 80), 87.5)
    """
    root = _require(CASTLE_DIR, "the ViSP Castle-simu data", _VISP_INSTALL)
    n = len(glob.glob(os.path.join(root, "Images", "Image_*.pgm")))
    idx = _check_indices(views, "views", n, "view")
    f = _check_downsample(downsample)
    imgs, deps, poses = [], [], []
    for i in idx:
        imgs.append(_block_mean(_read_pgm(os.path.join(root, "Images", f"Image_{i + 1:04d}.pgm")), f))
        with open(os.path.join(root, "Depth", f"Depth_{i + 1:04d}.bin"), "rb") as fh:
            raw = fh.read()
        h, w = np.frombuffer(raw[:8], "<u4")
        d = np.frombuffer(raw[8:8 + 2 * int(h) * int(w)], "<u2").reshape(int(h), int(w)) * CASTLE_DEPTH_SCALE
        if f > 1:  # average only valid (non-background) depth in each block; a block with none stays 0
            valid = _block_mean((d > 0).astype(float), f)
            d = np.divide(_block_mean(d, f), valid, out=np.zeros_like(valid), where=valid > 0)
        deps.append(d)
        poses.append(np.loadtxt(os.path.join(root, "CameraPose", f"Camera_{i + 1:03d}.txt")))
    conf = open(os.path.join(root, "Config", "chateau.xml")).read()
    vals = {k: float(re.search(rf"<{k}>([^<]+)</{k}>", conf).group(1)) for k in ("px", "py", "u0", "v0")}
    K = np.array([[vals["px"] / f, 0, vals["u0"] / f], [0, vals["py"] / f, vals["v0"] / f], [0, 0, 1.0]])
    return MultiViewSet(images=np.stack(imgs), depths=np.stack(deps), poses=np.stack(poses), K=K, views=idx,
                        name="Castle-simu")


def visp_sequence_names() -> list[str]:
    """Names of the ViSP image sequences installed (folders of ``image.NNNN.pgm`` frames).

    Examples
    --------
    >>> visp_sequence_names()                               # doctest: +SKIP
    ['cube', 'ellipse-1', 'line', 'mire-2']"""
    _require(VISP_ROOT, "the ViSP image data", _VISP_INSTALL)
    return sorted(d for d in os.listdir(VISP_ROOT)
                  if glob.glob(os.path.join(VISP_ROOT, d, "image.[0-9][0-9][0-9][0-9].pgm")))


@adapter(returns="np.ndarray", source="visp-images-data (Debian)",
         description="ViSP grey-scale image sequences (mire-2: 501 frames, cube, ellipse-1, line)")
def load_visp_sequence(name, frames=None) -> np.ndarray:
    """Frames of a ViSP image sequence as a (T, H, W) array in [0, 1].

    Parameters
    ----------
    name : str
        One of :func:`visp_sequence_names` (e.g. ``"mire-2"``, ``"cube"``).
    frames : sequence of int, optional
        0-based frame positions in the sorted sequence (default: all).

    Examples
    --------
    >>> load_visp_sequence("cube", frames=[0, 1]).shape     # doctest: +SKIP
    (2, 480, 640)
    """
    names = visp_sequence_names()
    if not isinstance(name, str) or name not in names:
        raise InputError("name", f"got {name!r}", f"one of {names}")
    files = sorted(glob.glob(os.path.join(VISP_ROOT, name, "image.[0-9][0-9][0-9][0-9].pgm")))
    idx = _check_indices(frames, "frames", len(files), "frame")
    return np.stack([_read_pgm(files[i]) for i in idx])


@functools.lru_cache(maxsize=1)
def _cgal_members():
    _require(CGAL_TAR, "the CGAL demo data", _CGAL_INSTALL)
    with tarfile.open(CGAL_TAR, "r:gz") as tf:
        return {os.path.basename(m.name): m.name for m in tf.getmembers()
                if m.isfile() and m.name.endswith((".off", ".xyz", ".ply"))}


def cgal_names(kind="mesh") -> list[str]:
    """File names in CGAL's demo data: ``kind="mesh"`` (``.off``) or ``"points"`` (``.xyz`` / ``.ply``).

    Examples
    --------
    >>> "elephant.off" in cgal_names("mesh")                # doctest: +SKIP
    True"""
    if kind not in ("mesh", "points"):
        raise InputError("kind", f"got {kind!r}", "'mesh' or 'points'")
    ext = (".off",) if kind == "mesh" else (".xyz", ".ply")
    return sorted(n for n in _cgal_members() if n.endswith(ext))


def _cgal_extract(name, kind):
    names = cgal_names(kind)
    if not isinstance(name, str):
        raise InputError("name", f"got {name!r}", f"a file name from cgal_names({kind!r}), e.g. {names[:3]}")
    key = name if name in names else (name + ".off" if kind == "mesh" else name + ".xyz")
    if key not in names:
        raise InputError("name", f"{name!r} is not in CGAL's demo data",
                         f"a name from cgal_names({kind!r}) ({len(names)} files, e.g. {names[:4]})")
    import tempfile

    with tarfile.open(CGAL_TAR, "r:gz") as tf:
        data = tf.extractfile(_cgal_members()[key]).read()
    tmp = tempfile.NamedTemporaryFile(suffix=os.path.splitext(key)[1], delete=False)
    tmp.write(data)
    tmp.close()
    return tmp.name, data


def _parse_off(data: bytes):
    toks = re.sub(rb"#[^\n]*", b"", data).split()
    if not toks or not toks[0].endswith(b"OFF"):
        raise ValueError("not an OFF file")
    nv, nf = int(toks[1]), int(toks[2])
    vals = toks[4:]
    V = np.array(vals[:3 * nv], dtype=np.float64).reshape(nv, 3) if toks[0] == b"OFF" else None
    if V is None:  # COFF / NOFF: extra per-vertex columns
        raise ValueError("only plain OFF is parsed without open3d")
    pos, faces = 3 * nv, []
    for _ in range(nf):
        k = int(vals[pos])
        idx = [int(x) for x in vals[pos + 1:pos + 1 + k]]
        faces += [[idx[0], idx[j], idx[j + 1]] for j in range(1, k - 1)]  # fan-triangulate polygons
        pos += 1 + k
        while pos < len(vals) and k and b"." in vals[pos]:  # skip per-face colour floats
            pos += 1
    return V, np.array(faces, dtype=np.int64).reshape(-1, 3)


@adapter(returns="(np.ndarray, np.ndarray)", source="libcgal-demo (Debian): data.tar.gz",
         description="CGAL's demo triangle meshes (.off): bunny, armadillo, elephant, mannequin, ...")
def load_cgal_mesh(name):
    """A CGAL demo mesh as ``(vertices (n, 3) float64, faces (m, 3) int64)``.

    Read through open3d (``open3d.io.read_triangle_mesh``) when it imports, else with a small OFF
    parser (polygons fan-triangulated). Only the requested member is read from the archive.

    Parameters
    ----------
    name : str
        A file name from ``cgal_names("mesh")``, with or without ``.off`` (e.g. ``"bunny00"``).

    Examples
    --------
    >>> V, F = load_cgal_mesh("elephant")                   # doctest: +SKIP
    >>> V.shape[1], F.shape[1]                              # doctest: +SKIP
    (3, 3)
    """
    path, data = _cgal_extract(name, "mesh")
    try:
        try:
            import open3d as o3d

            m = o3d.io.read_triangle_mesh(path)
            V, F = np.asarray(m.vertices, dtype=np.float64), np.asarray(m.triangles, dtype=np.int64)
            if len(F) == 0:
                V, F = _parse_off(data)
        except (ImportError, OSError):
            V, F = _parse_off(data)
    finally:
        os.unlink(path)
    return V, F


@adapter(returns="np.ndarray", source="libcgal-demo (Debian): data.tar.gz",
         description="CGAL's demo point clouds (.xyz / .ply), with normals where the file has them")
def load_cgal_point_cloud(name):
    """A CGAL demo point cloud as ``(points (n, 3), normals (n, 3) or None)``.

    Parameters
    ----------
    name : str
        A file name from ``cgal_names("points")`` (``.xyz`` may be omitted).

    Examples
    --------
    >>> pts, normals = load_cgal_point_cloud("oni")         # doctest: +SKIP
    """
    path, data = _cgal_extract(name, "points")
    try:
        if path.endswith(".xyz"):
            rows = [ln.split() for ln in data.decode("latin-1").splitlines() if ln.strip() and not ln.startswith("#")]
            width = max(len(r) for r in rows)
            rows = [r for r in rows if len(r) == width]
            A = np.array(rows, dtype=np.float64)
            pts, nrm = A[:, :3], (A[:, 3:6] if A.shape[1] >= 6 else None)
        else:
            try:
                import open3d as o3d
            except (ImportError, OSError) as exc:
                raise ImportError("reading CGAL's .ply point clouds needs open3d: pip install open3d") from exc
            pc = o3d.io.read_point_cloud(path)
            pts = np.asarray(pc.points, dtype=np.float64)
            nrm = np.asarray(pc.normals, dtype=np.float64) if pc.has_normals() else None
    finally:
        os.unlink(path)
    return pts, nrm


@adapter(returns="(np.ndarray, np.ndarray, np.ndarray)", source="skimage.data.stereo_motorcycle",
         description="Middlebury 2014 motorcycle stereo pair with ground-truth disparity")
def load_stereo_motorcycle(grey=True):
    """The Middlebury 2014 "motorcycle" rectified stereo pair and its ground-truth disparity.

    Parameters
    ----------
    grey : bool
        Return grey-scale images (H, W) instead of RGB (H, W, 3); both in [0, 1].

    Returns
    -------
    left, right : ndarray
    disparity : ndarray (H, W)
        Left-image disparity in pixels (``x_right = x_left - d``); ``inf``/NaN marks unknown pixels.

    Examples
    --------
    >>> left, right, disp = load_stereo_motorcycle()
    >>> left.shape == disp.shape
    True
    """
    if not isinstance(grey, bool):
        raise InputError("grey", f"got {grey!r}", "True or False")
    import skimage.data as skd
    from skimage.color import rgb2gray
    from skimage.util import img_as_float

    left, right, disp = skd.stereo_motorcycle()
    left, right = img_as_float(left), img_as_float(right)
    if grey:
        left, right = rgb2gray(left), rgb2gray(right)
    return left, right, np.asarray(disp, dtype=np.float64)


@adapter(returns="(np.ndarray, np.ndarray)", source="pyvista.examples (PyPI, optional)",
         description="pyvista's bundled example meshes (airplane, ant, nut, sphere)")
def load_pyvista_mesh(name):
    """A pyvista example mesh as ``(vertices, faces)`` triangles (only the meshes inside the wheel).

    Parameters
    ----------
    name : str
        One of :data:`PYVISTA_MESH_NAMES`.

    Examples
    --------
    >>> V, F = load_pyvista_mesh("ant")                     # doctest: +SKIP
    """
    if not isinstance(name, str) or name not in PYVISTA_MESH_NAMES:
        raise InputError("name", f"got {name!r}", f"one of {PYVISTA_MESH_NAMES}")
    try:
        from pyvista import examples
    except ImportError as exc:
        raise ImportError("load_pyvista_mesh needs pyvista: pip install pyvista") from exc
    mesh = getattr(examples, f"load_{name}")().triangulate()
    faces = np.asarray(mesh.faces).reshape(-1, 4)[:, 1:]
    return np.asarray(mesh.points, dtype=np.float64), faces.astype(np.int64)


load_deepmimic_clip = adapter(returns="dict", source="pybullet_data (PyPI pybullet, optional): data/motions",
                              description="DeepMimic humanoid motion-capture clips (walk, run, jump, backflip, ...)")(
    _load_deepmimic_clip)
