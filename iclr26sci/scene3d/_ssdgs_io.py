r"""Reader of the OLAT capture layout that SSD-GS and NRHints use (private; public as
:func:`iclr26sci.scene3d.ssdgs.load_olat_capture`).

The layout (NeRF-synthetic style, one point light per frame), as the official SSD-GS reader
(``scene/dataset_readers.py``, ``readCamerasFromTransforms``) reads it::

    <root>/transforms_train.json, transforms_test.json (or any transforms_<split>.json)
      {"camera_angle_x": fov_x_radians,                   # or "camera_intrinsics": [cx, cy, fx, fy]
       "frames": [{"file_path": "train/r_000",            # + extension (".png" or ".exr"), or "img_path"
                   "transform_matrix": 4x4 camera-to-world (OpenGL/Blender axes: x right, y up, z back),
                   "pl_pos": [x, y, z],                   # point-light position (world)
                   "pl_intensity": s or [r, g, b],        # optional
                   "camera_intrinsics": [cx, cy, fx, fy]  # optional, per frame (light stages)
                  }, ...]}
    <root>/points3d.ply                                    # optional initial point cloud

Every input is checked (keys, shapes, rotation matrices, light positions, files, readers) before any image
is read.
"""
from __future__ import annotations

import json
import math
import os

import numpy as np

from iclr26sci.core import InputError

_EXTS = (".png", ".exr")


def _exr_reader(example_path):
    """A function reading one .exr file as float32 (H, W, C), or None when no installed reader can."""
    try:
        import OpenEXR  # noqa: F401

        def read(p):
            import OpenEXR

            with OpenEXR.File(p) as f:
                ch = f.channels()
                if "RGBA" in ch:
                    return np.asarray(ch["RGBA"].pixels, dtype=np.float32)
                if "RGB" in ch:
                    return np.asarray(ch["RGB"].pixels, dtype=np.float32)
                return np.stack([np.asarray(ch[c].pixels, dtype=np.float32) for c in "RGB"], -1)
        return read
    except Exception:
        pass
    try:
        os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")
        import cv2

        if cv2.haveImageReader(example_path):
            def read(p):
                im = cv2.imread(p, cv2.IMREAD_UNCHANGED | cv2.IMREAD_ANYDEPTH | cv2.IMREAD_ANYCOLOR)
                if im is None:
                    raise InputError("path", f"OpenCV could not read {p!r}", "a readable OpenEXR image")
                im = np.asarray(im, dtype=np.float32)
                if im.ndim == 2:
                    im = im[..., None].repeat(3, -1)
                return im[..., [2, 1, 0, 3]] if im.shape[-1] == 4 else im[..., ::-1]
            return read
    except Exception:
        pass
    return None


def _matrix4(v, where):
    try:
        M = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("path", f"{where}: transform_matrix is not numeric", "a 4x4 camera-to-world matrix") from None
    if M.shape != (4, 4) or not np.all(np.isfinite(M)):
        raise InputError("path", f"{where}: transform_matrix has shape {M.shape}" if M.shape != (4, 4)
                         else f"{where}: transform_matrix has NaN or inf", "a finite 4x4 camera-to-world matrix")
    if np.abs(M[3] - [0.0, 0.0, 0.0, 1.0]).max() > 1e-6:
        raise InputError("path", f"{where}: transform_matrix has last row {M[3].tolist()}",
                         "a rigid transform with last row [0, 0, 0, 1]")
    R = M[:3, :3]
    err = float(np.abs(R.T @ R - np.eye(3)).max())
    if err > 1e-4 or np.linalg.det(R) <= 0:
        raise InputError("path", f"{where}: the rotation block of transform_matrix is not a rotation "
                                 f"(|R^T R - I| = {err:.2g}, det {np.linalg.det(R):.3g})",
                         "a rotation (R^T R = I, det R = +1; scaled or reflected camera frames are not supported)")
    return M


def _intrinsics(v, where):
    try:
        a = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        a = np.array([np.nan])
    if a.shape != (4,) or not np.all(np.isfinite(a)) or a[2] <= 0 or a[3] <= 0:
        raise InputError("path", f"{where}: camera_intrinsics is {v!r}", "[cx, cy, fx, fy] with fx, fy > 0 (pixels)")
    return a


def _vec(v, where, key, n=3):
    try:
        a = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        a = np.array([np.nan])
    if a.shape != (n,) or not np.all(np.isfinite(a)):
        raise InputError("path", f"{where}: {key} is {v!r}", f"a finite {n}-vector")
    return a


def _png_size(p):
    from PIL import Image

    with Image.open(p) as im:
        return im.size


def load_olat_capture(path, split="train", *, extension=".png", white_background=False, intensity=1.0,
                      points=None, normals=None, max_frames=None):
    r"""Read a one-light-at-a-time capture in the SSD-GS / NRHints layout as an :class:`OLATSet`.

    ``path/transforms_<split>.json`` holds the intrinsics (``camera_angle_x`` in radians, so
    :math:`f_x = f_y = \tfrac{W}{2}/\tan(\tfrac12\,\mathrm{camera\_angle\_x})` and the principal point at the
    image centre; or ``camera_intrinsics = [c_x, c_y, f_x, f_y]`` at the top or per frame) and ``frames``, each
    with ``file_path`` (relative, extension added) or ``img_path``, a camera-to-world ``transform_matrix`` in
    OpenGL/Blender axes (converted to the OpenCV world-to-camera :class:`iclr26sci.geom.Camera` by negating its
    y and z columns and inverting), the point light ``pl_pos`` and an optional ``pl_intensity`` (a scalar, or
    an RGB triple with equal entries).

    Images: 8-bit or 16-bit PNG (LDR, scaled to [0, 1] and used as stored, like the official reader: no
    linearisation), RGBA composited on a black (or white) background; or OpenEXR (HDR, linear) when an EXR
    reader is installed (the ``OpenEXR`` package, or an OpenCV build with OpenEXR). The point cloud is
    ``points`` if given, else ``path/points3d.ply`` read with open3d if both exist, else None (then
    :meth:`SSDGS.fit` asks for one).

    Parameters
    ----------
    path : str or os.PathLike
        The capture folder.
    split : str
        Which ``transforms_<split>.json`` to read (``"train"``, ``"test"``, ``"valid"``, ...).
    extension : {".png", ".exr"}
        Added to ``file_path`` entries (as the official reader; ``img_path`` entries are used as given).
    white_background : bool
        Composite RGBA images on white instead of black.
    intensity : float
        Light intensity of frames without ``pl_intensity`` (> 0; only ratios matter to :class:`SSDGS`).
    points, normals : array-like (P, 3), optional
        An initial point cloud (and unit normals) for the Gaussians.
    max_frames : int, optional
        Read only the first ``max_frames`` frames.

    Returns
    -------
    OLATSet
        Images (N, H, W, 3), one :class:`iclr26sci.geom.Camera` per frame, the light positions and intensities;
        no ground-truth components.

    Raises
    ------
    InputError
        Missing folder, file, key or image; a matrix that is not a rigid transform; images of different sizes;
        an ``.exr`` capture without an installed EXR reader. All raised before any image is decoded.

    References
    ----------
    Zheng et al., SSD-GS, ICLR 2026 (official code ``scene/dataset_readers.py``); Zeng et al., "Relighting
    Neural Radiance Fields with Shadow and Highlight Hints" (NRHints), SIGGRAPH 2023 (the real OLAT captures).

    Examples
    --------
    >>> import json, os, tempfile
    >>> import numpy as np
    >>> from PIL import Image
    >>> root = tempfile.mkdtemp()
    >>> os.makedirs(os.path.join(root, "train"))
    >>> Image.fromarray(np.full((6, 8, 3), 128, np.uint8)).save(os.path.join(root, "train", "r_0.png"))
    >>> c2w = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 3], [0, 0, 0, 1]]      # at z = 3, looking down -z
    >>> meta = {"camera_angle_x": 0.8, "frames": [{"file_path": "train/r_0", "transform_matrix": c2w,
    ...                                            "pl_pos": [1.0, 1.0, 2.0]}]}
    >>> with open(os.path.join(root, "transforms_train.json"), "w") as f:
    ...     json.dump(meta, f)
    >>> s = load_olat_capture(root, points=np.zeros((4, 3)))
    >>> s.images.shape, round(float(s.images.max()), 3), [abs(round(float(v), 6)) for v in s.cameras[0].centre]
    ((1, 6, 8, 3), 0.502, [0.0, 0.0, 3.0])
    """
    import torch

    from iclr26sci.geom import Camera

    from .ssdgs import OLATSet, _int, _real

    if not isinstance(path, (str, os.PathLike)):
        raise InputError("path", f"got {type(path).__name__}", "a folder path (str or os.PathLike)")
    root = os.fspath(path)
    if not os.path.isdir(root):
        raise InputError("path", f"{root!r} is not a folder", "the capture folder holding transforms_<split>.json")
    if not isinstance(split, str) or not split or os.sep in split or "/" in split:
        raise InputError("split", f"got {split!r}", "a split name such as 'train' or 'test'")
    if extension not in _EXTS:
        raise InputError("extension", f"got {extension!r}", f"one of {list(_EXTS)}")
    if not isinstance(white_background, bool):
        raise InputError("white_background", f"got {white_background!r}", "True or False")
    intensity = _real(intensity, "intensity", 0.0, lo_open=True, expected="a light intensity > 0")
    if max_frames is not None:
        max_frames = _int(max_frames, "max_frames", 1)
    jpath = os.path.join(root, f"transforms_{split}.json")
    if not os.path.isfile(jpath):
        have = sorted(f for f in os.listdir(root) if f.startswith("transforms_") and f.endswith(".json"))
        raise InputError("split", f"{jpath!r} does not exist (found {have or 'no transforms_*.json'})",
                         "a split whose transforms_<split>.json is in the folder")
    try:
        with open(jpath, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError("path", f"{jpath!r} is not valid JSON ({e})", "a transforms_<split>.json file") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("frames"), list) or not meta["frames"]:
        raise InputError("path", f"{jpath!r} has no non-empty 'frames' list", "a 'frames' list with one entry per image")
    frames = meta["frames"][:max_frames] if max_frames else meta["frames"]
    fov = meta.get("camera_angle_x")
    top_k = None
    if fov is not None:
        if isinstance(fov, bool) or not isinstance(fov, (int, float)) or not (0.0 < float(fov) < math.pi):
            raise InputError("path", f"{jpath!r}: camera_angle_x is {fov!r}", "a horizontal field of view in (0, pi) "
                                                                          "radians")
    elif "camera_intrinsics" in meta:
        top_k = _intrinsics(meta["camera_intrinsics"], jpath)

    # ---- every frame's metadata and file, before any image is decoded
    recs = []
    for i, fr in enumerate(frames):
        where = f"{os.path.basename(jpath)} frame {i}"
        if not isinstance(fr, dict):
            raise InputError("path", f"{where} is a {type(fr).__name__}", "a JSON object per frame")
        for key in ("transform_matrix", "pl_pos"):
            if key not in fr or fr[key] is None:
                raise InputError("path", f"{where} has no {key!r}", "every frame with transform_matrix and pl_pos")
        M = _matrix4(fr["transform_matrix"], where)
        L = _vec(fr["pl_pos"], where, "pl_pos")
        if "img_path" in fr:
            rel = fr["img_path"]
            ext = os.path.splitext(str(rel))[1].lower()
        elif "file_path" in fr:
            rel = str(fr["file_path"]) + extension
            ext = extension
        else:
            raise InputError("path", f"{where} has neither 'file_path' nor 'img_path'", "the frame's image path")
        if not isinstance(rel, str) or ext not in _EXTS:
            raise InputError("path", f"{where}: image {rel!r} is not a .png or .exr file", "PNG (LDR) or OpenEXR (HDR)")
        p = rel if os.path.isabs(rel) else os.path.join(root, rel)
        if not os.path.isfile(p):
            raise InputError("path", f"{where}: image file {p!r} does not exist", "every frame's image in the capture")
        K = _intrinsics(fr["camera_intrinsics"], where) if "camera_intrinsics" in fr else top_k
        if K is None and fov is None:
            raise InputError("path", f"{where}: no intrinsics (neither camera_angle_x, nor camera_intrinsics at the "
                                     "top or in the frame)", "camera_angle_x or camera_intrinsics [cx, cy, fx, fy]")
        s = fr.get("pl_intensity")
        if s is None:
            s = intensity
        else:
            a = np.asarray(s, dtype=np.float64) if not isinstance(s, (bool, str)) else np.array(np.nan)
            if a.shape not in ((), (3,)) or not np.all(np.isfinite(a)) or np.any(a <= 0):
                raise InputError("path", f"{where}: pl_intensity is {s!r}", "a positive intensity or RGB triple")
            if a.shape == (3,) and np.ptp(a) > 1e-6 * a.max():
                raise InputError("path", f"{where}: pl_intensity {a.tolist()} is coloured",
                                 "a grey light (scalar or equal RGB); divide the images by the light colour first")
            s = float(a.mean())
        recs.append((p, ext, M, L, K, s))
    exts = {r[1] for r in recs}
    exr = None
    if ".exr" in exts:
        exr = _exr_reader(next(r[0] for r in recs if r[1] == ".exr"))
        if exr is None:
            raise InputError("extension", "the capture has OpenEXR (.exr) images and no installed reader can decode "
                                          "them", "`pip install OpenEXR` (or an OpenCV build with OpenEXR support), "
                                                  "or the capture's PNG images")
    sizes = set()
    for p, ext, *_ in recs:
        if ext == ".png":
            try:
                sizes.add(_png_size(p))
            except Exception as e:  # PIL raises many types for broken files
                raise InputError("path", f"{p!r} is not a readable PNG ({type(e).__name__})", "a PNG image") from None
    if len(sizes) > 1:
        raise InputError("path", f"images of different sizes {sorted(sizes)}", "one image size per capture")
    pts = nrm = None
    if points is not None:
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != 3 or len(pts) == 0 or not np.all(np.isfinite(pts)):
            raise InputError("points", f"has shape {pts.shape}", "a finite (P, 3) point cloud")
        if normals is not None:
            nrm = np.asarray(normals, dtype=np.float64)
            if nrm.shape != pts.shape or not np.all(np.isfinite(nrm)) or \
                    np.abs(np.linalg.norm(nrm, axis=1) - 1).max() > 1e-3:
                raise InputError("normals", f"has shape {nrm.shape}", "unit normals, one per point")
    elif normals is not None:
        raise InputError("normals", "given without points", "normals only together with points")

    # ---- decode
    bg = 1.0 if white_background else 0.0
    imgs, cams = [], []
    for p, ext, M, L, K, s in recs:
        if ext == ".png":
            from PIL import Image

            with Image.open(p) as im:
                mode = im.mode
                a = np.asarray(im.convert("RGBA") if mode not in ("I;16", "I", "RGBA") else im)
            if a.dtype == np.uint16 or mode in ("I;16", "I"):
                a = a.astype(np.float64) / 65535.0
            else:
                a = a.astype(np.float64) / 255.0
            if a.ndim == 2:
                a = np.stack([a, a, a, np.ones_like(a)], -1)
        else:
            a = exr(p).astype(np.float64)
            if a.ndim == 2:
                a = a[..., None].repeat(3, -1)
            if a.shape[-1] == 3:
                a = np.concatenate([a, np.ones_like(a[..., :1])], -1)
            if not np.all(np.isfinite(a)):
                raise InputError("path", f"{p!r} has NaN or inf pixels", "finite HDR radiance")
        rgb = a[..., :3] * a[..., 3:4] + bg * (1.0 - a[..., 3:4])
        imgs.append(np.clip(rgb, 0.0, None))
        H, W = rgb.shape[:2]
        if K is None:
            fx = fy = 0.5 * W / math.tan(0.5 * float(fov))
            cx, cy = W / 2.0, H / 2.0
        else:
            cx, cy, fx, fy = (float(v) for v in K)
        c2w = M.copy()
        c2w[:3, 1:3] *= -1.0                       # OpenGL (y up, z back) -> OpenCV (y down, z forward)
        Rw = c2w[:3, :3].T
        t = -Rw @ c2w[:3, 3]
        cams.append(Camera(R=torch.tensor(Rw, dtype=torch.float64), t=torch.tensor(t, dtype=torch.float64),
                           fx=fx, fy=fy, cx=cx, cy=cy, width=W, height=H))
    shapes = {im.shape for im in imgs}
    if len(shapes) > 1:
        raise InputError("path", f"images of different sizes {sorted(shapes)}", "one image size per capture")
    if pts is None:
        ply = os.path.join(root, "points3d.ply")
        if os.path.isfile(ply):
            try:
                import open3d as o3d

                pc = o3d.io.read_point_cloud(ply)
                if len(pc.points):
                    pts = np.asarray(pc.points, dtype=np.float64)
                    if pc.has_normals():
                        n = np.asarray(pc.normals, dtype=np.float64)
                        ok = np.abs(np.linalg.norm(n, axis=1) - 1).max() < 1e-3
                        nrm = n if ok else None
            except ImportError:
                pts = None
    return OLATSet(images=np.stack(imgs), cameras=cams, lights=np.stack([r[3] for r in recs]),
                   intensity=np.array([r[5] for r in recs]), points=pts, normals=nrm)
