r"""The field's on-disk flow formats and a paired-modality folder loader.

- Middlebury ``.flo`` (Baker et al., "A Database and Evaluation Methodology for Optical Flow", IJCV 2011): a
  little-endian float32 tag 202021.25, int32 width, int32 height, then ``height * width`` pairs of float32
  ``(u, v)`` in row-major order (u interleaved with v).
- KITTI flow PNG (Geiger et al., "Are we ready for autonomous driving?", CVPR 2012; Menze and Geiger, CVPR
  2015): a 3-channel 16-bit PNG whose first channel (R) holds :math:`u \cdot 64 + 2^{15}`, the second (G)
  :math:`v \cdot 64 + 2^{15}` and the third (B) the validity bit (1 where the flow is known).
- Paired-modality folders (RGB and thermal / infrared frames of a rig, as in MS2 or LLVIP): two folders whose
  frames are matched by file name (the stem, without the extension).

Every function checks its arguments and the file's header and size before reading the payload or writing a
byte, and refuses bad input with :class:`~iclr26sci.core.InputError`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from iclr26sci.core import InputError

__all__ = ["read_flo", "write_flo", "read_kitti_flow", "write_kitti_flow", "PairedFrames", "load_paired_folder",
           "FLO_TAG"]

#: the Middlebury ``.flo`` tag (the float32 202021.25, "PIEH" in ASCII)
FLO_TAG = np.float32(202021.25)
_KITTI_SCALE = 64.0
_KITTI_OFFSET = 2.0 ** 15
_IMAGE_EXT = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")


def _path(path, name="path", *, must_exist=True, suffix=None):
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise InputError(name, f"got {type(path).__name__}", "a file path (str or pathlib.Path)")
    p = Path(path)
    if suffix is not None and p.suffix.lower() != suffix:
        raise InputError(name, f"has suffix {p.suffix!r}", f"a {suffix} file")
    if must_exist:
        if not p.is_file():
            raise InputError(name, f"{str(p)!r} is not an existing file", "the path of a file to read")
    elif not p.parent.is_dir():
        raise InputError(name, f"its folder {str(p.parent)!r} does not exist", "a path in an existing folder")
    return p


def _flow_array(flow, name="flow"):
    if isinstance(flow, (str, bytes)) or flow is None:
        raise InputError(name, f"got {type(flow).__name__}", "a flow array (H, W, 2)")
    try:
        f = np.asarray(flow, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(name, "cannot be read as a numeric array", "a flow array (H, W, 2)") from None
    if f.ndim != 3 or f.shape[-1] != 2 or min(f.shape[:2]) < 1:
        raise InputError(name, f"has shape {f.shape}", "a flow array (H, W, 2) with H, W >= 1")
    if np.isnan(f).any():
        raise InputError(name, f"contains {int(np.isnan(f).sum())} NaN values", "numbers (unknown flow: a large value)")
    return f


def read_flo(path):
    r"""Read a Middlebury ``.flo`` flow file.

    Layout: float32 tag 202021.25, int32 width ``W``, int32 height ``H``, then ``H W`` float32 pairs
    :math:`(u, v)` row by row, all little-endian. Middlebury marks unknown flow with values above 1e9.

    Parameters
    ----------
    path : str or Path
        The ``.flo`` file.

    Returns
    -------
    flow : ndarray (H, W, 2), float32
        ``flow[..., 0]`` = u (x, columns), ``flow[..., 1]`` = v (y, rows), in pixels.

    Raises
    ------
    InputError
        ``path`` missing, a wrong tag, a non-positive or implausible size, or a file length that does not match
        the header (all checked before the payload is read).

    References
    ----------
    Baker, Scharstein, Lewis, Roth, Black, Szeliski, "A Database and Evaluation Methodology for Optical Flow",
    IJCV 92, 2011.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f.flo"
    >>> write_flo(p, np.ones((3, 4, 2)))
    >>> read_flo(p).shape
    (3, 4, 2)
    """
    p = _path(path)
    size = p.stat().st_size
    if size < 12:
        raise InputError("path", f"{p.name} has {size} bytes", "a .flo file (12-byte header, then the flow)")
    with open(p, "rb") as fh:
        head = fh.read(12)
        tag = np.frombuffer(head[:4], "<f4")[0]
        if tag != FLO_TAG:
            raise InputError("path", f"{p.name} starts with tag {float(tag)!r}",
                             "a Middlebury .flo file (float32 tag 202021.25)")
        W, H = (int(v) for v in np.frombuffer(head[4:12], "<i4"))
        if W < 1 or H < 1 or W * H > 2 ** 28:
            raise InputError("path", f"{p.name} declares width {W} and height {H}", "a positive image size")
        want = 12 + 8 * W * H
        if size != want:
            raise InputError("path", f"{p.name} has {size} bytes but its header ({W} x {H}) needs {want}",
                             "a complete .flo file")
        data = np.frombuffer(fh.read(8 * W * H), "<f4")
    return data.reshape(H, W, 2).astype(np.float32)


def write_flo(path, flow):
    r"""Write a flow field as a Middlebury ``.flo`` file (see :func:`read_flo` for the layout).

    Parameters
    ----------
    path : str or Path
        Destination with the suffix ``.flo``, in an existing folder.
    flow : array (H, W, 2)
        u (x) and v (y) in pixels; stored as float32 (unknown flow: a value above 1e9, as Middlebury does).

    Raises
    ------
    InputError
        A bad ``flow`` (shape, NaN) or ``path`` (suffix, missing folder), before anything is written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f.flo"
    >>> f = np.arange(24, dtype=float).reshape(3, 4, 2)
    >>> write_flo(p, f)
    >>> bool(np.array_equal(read_flo(p), f)), p.stat().st_size == 12 + 8 * 12
    (True, True)
    """
    f = _flow_array(flow)
    p = _path(path, must_exist=False, suffix=".flo")
    H, W = f.shape[:2]
    with open(p, "wb") as fh:
        fh.write(np.array([FLO_TAG], "<f4").tobytes())
        fh.write(np.array([W, H], "<i4").tobytes())
        fh.write(np.ascontiguousarray(f, dtype="<f4").tobytes())


def read_kitti_flow(path):
    r"""Read a KITTI 16-bit PNG flow map.

    .. math:: u = (R - 2^{15}) / 64, \quad v = (G - 2^{15}) / 64, \quad \text{valid} = B > 0

    Parameters
    ----------
    path : str or Path
        A 3-channel 16-bit ``.png`` (``flow_occ`` / ``flow_noc`` of KITTI 2012 / 2015).

    Returns
    -------
    flow : ndarray (H, W, 2), float64
        u and v in pixels (0 where not valid).
    valid : bool ndarray (H, W)

    Raises
    ------
    InputError
        A missing file, one that is not a PNG, or not a 3-channel 16-bit image.

    References
    ----------
    Menze, Geiger, "Object Scene Flow for Autonomous Vehicles", CVPR 2015 (KITTI 2015 devkit format).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f.png"
    >>> write_kitti_flow(p, np.full((2, 3, 2), 1.5))
    >>> f, ok = read_kitti_flow(p)
    >>> float(f[0, 0, 0]), bool(ok.all())
    (1.5, True)
    """
    import cv2

    p = _path(path, suffix=".png")
    with open(p, "rb") as fh:
        if fh.read(8) != b"\x89PNG\r\n\x1a\n":
            raise InputError("path", f"{p.name} is not a PNG file", "a KITTI 16-bit PNG flow map")
    img = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise InputError("path", f"{p.name} cannot be decoded", "a readable 16-bit PNG")
    if img.dtype != np.uint16 or img.ndim != 3 or img.shape[-1] != 3:
        raise InputError("path", f"{p.name} is a {img.dtype} image of shape {img.shape}",
                         "a 3-channel 16-bit PNG (KITTI flow: u, v, valid)")
    rgb = img[..., ::-1].astype(np.float64)            # OpenCV reads B, G, R
    valid = rgb[..., 2] > 0
    flow = (rgb[..., :2] - _KITTI_OFFSET) / _KITTI_SCALE
    flow[~valid] = 0.0
    return flow, valid


def write_kitti_flow(path, flow, valid=None):
    r"""Write a flow map as a KITTI 16-bit PNG (see :func:`read_kitti_flow`).

    The flow is quantised to 1/64 px (round to nearest); invalid pixels are written as 0 in all three
    channels, as the KITTI devkit does.

    Parameters
    ----------
    path : str or Path
        Destination ``.png`` in an existing folder.
    flow : array (H, W, 2)
        u, v in pixels; on valid pixels within the format's range [-512, 511.98].
    valid : bool array (H, W), optional
        Where the flow is known (default: everywhere).

    Raises
    ------
    InputError
        Bad ``flow`` / ``valid`` / ``path``, or a valid flow outside the 16-bit range, before anything is written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f.png"
    >>> f = np.array([[[0.25, -3.0], [100.0, 7.5]]])
    >>> write_kitti_flow(p, f, valid=np.array([[True, False]]))
    >>> g, ok = read_kitti_flow(p)
    >>> g[0, 0].tolist(), ok.tolist()
    ([0.25, -3.0], [[True, False]])
    """
    import cv2

    f = _flow_array(flow)
    H, W = f.shape[:2]
    if valid is None:
        ok = np.ones((H, W), bool)
    else:
        ok = np.asarray(valid)
        if ok.shape != (H, W) or ok.dtype != bool:
            raise InputError("valid", f"has shape {ok.shape} and dtype {ok.dtype}", f"a boolean mask {(H, W)}")
    enc = np.rint(f * _KITTI_SCALE + _KITTI_OFFSET)
    bad = ok & ((enc < 0) | (enc > 65535)).any(-1)
    if bad.any():
        raise InputError("flow", f"has {int(bad.sum())} valid pixels beyond the 16-bit range",
                         "|u|, |v| within [-512, 511.98] px on valid pixels (KITTI PNG)")
    p = _path(path, must_exist=False, suffix=".png")
    out = np.zeros((H, W, 3), np.uint16)
    out[..., 0] = np.where(ok, enc[..., 0], 0)
    out[..., 1] = np.where(ok, enc[..., 1], 0)
    out[..., 2] = ok
    if not cv2.imwrite(str(p), out[..., ::-1].copy()):
        raise InputError("path", f"{str(p)!r} could not be written", "a writable .png path")


@dataclass
class PairedFrames:
    """Frames of two modalities matched by file name (see :func:`load_paired_folder`).

    Attributes
    ----------
    names : list of str
        The shared file stems, sorted.
    image_a : ndarray (N, H, W, 3), float32 in [0, 1]
        Modality A (e.g. RGB; grey frames are repeated to 3 channels).
    image_b : ndarray (N, H, W), float32 in [0, 1]
        Modality B (e.g. thermal / IR; colour frames are converted to luminance).

    It has ``image_a`` and ``image_b`` like :class:`CrossModalPairs`, so :meth:`DCFlow.fit` trains on it.

    Examples
    --------
    >>> import numpy as np
    >>> f = PairedFrames(["0001", "0002"], np.zeros((2, 8, 8, 3), np.float32), np.zeros((2, 8, 8), np.float32))
    >>> len(f), f.image_b.shape
    (2, (2, 8, 8))
    """

    names: list
    image_a: np.ndarray
    image_b: np.ndarray

    def __post_init__(self):
        a, b = np.asarray(self.image_a), np.asarray(self.image_b)
        if a.ndim != 4 or a.shape[-1] != 3:
            raise InputError("image_a", f"has shape {a.shape}", "(N, H, W, 3) images")
        if b.shape != a.shape[:3]:
            raise InputError("image_b", f"has shape {b.shape}", f"{a.shape[:3]} (matching image_a)")
        if not isinstance(self.names, (list, tuple)) or len(self.names) != a.shape[0]:
            raise InputError("names", f"got {type(self.names).__name__} of length {len(self.names) if hasattr(self.names, '__len__') else '?'}",
                             f"a list of {a.shape[0]} frame names")

    def __len__(self):
        return int(self.image_a.shape[0])

    def __repr__(self):
        return f"PairedFrames(n={len(self)}, size={self.image_a.shape[1:3]})"


def _list_images(folder, name):
    if isinstance(folder, bool) or not isinstance(folder, (str, os.PathLike)):
        raise InputError(name, f"got {type(folder).__name__}", "a folder path (str or pathlib.Path)")
    d = Path(folder)
    if not d.is_dir():
        raise InputError(name, f"{str(d)!r} is not an existing folder", "a folder of image frames")
    files = {}
    for q in sorted(d.iterdir()):
        if q.is_file() and q.suffix.lower() in _IMAGE_EXT:
            if q.stem in files:
                raise InputError(name, f"holds two frames named {q.stem!r} ({files[q.stem].name}, {q.name})",
                                 "one frame per name")
            files[q.stem] = q
    if not files:
        raise InputError(name, f"{str(d)!r} holds no image frame", f"frames with a suffix in {_IMAGE_EXT}")
    return files


def _read_image(q, name):
    from PIL import Image

    try:
        with Image.open(q) as im:
            im.load()
            mode = im.mode
            a = np.asarray(im)
    except (OSError, ValueError) as exc:
        raise InputError(name, f"frame {q.name} cannot be read ({str(exc)[:80]})", "a readable image file") from None
    if a.dtype == np.uint8:
        a = a.astype(np.float32) / 255.0
    elif a.dtype == np.uint16 or mode.startswith("I;16"):
        a = a.astype(np.float32) / 65535.0
    elif a.dtype == bool:
        a = a.astype(np.float32)
    else:
        a = a.astype(np.float32)
        lo, hi = float(a.min()), float(a.max())
        a = (a - lo) / max(hi - lo, 1e-12)           # 32-bit frames (raw thermal counts): min-max to [0, 1]
    if a.ndim == 3 and a.shape[-1] == 4:
        a = a[..., :3]
    if a.ndim == 3 and a.shape[-1] == 1:
        a = a[..., 0]
    if a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[-1] != 3):
        raise InputError(name, f"frame {q.name} has shape {a.shape}", "a grey or RGB image")
    return a


def load_paired_folder(folder_a, folder_b, *, size=None):
    """Load RGB / thermal (or IR) frames from two folders, matched by file name.

    Frame ``x.png`` in ``folder_a`` is paired with the frame of stem ``x`` in ``folder_b`` (any image suffix).
    Every frame must have a partner; all frames must share one size unless ``size`` resizes them (bilinear).
    8-bit frames are divided by 255, 16-bit by 65535, float frames are min-max normalised per frame.

    Parameters
    ----------
    folder_a, folder_b : str or Path
        The two modalities' folders (A: RGB or grey; B: thermal / IR, converted to luminance if colour).
    size : (int, int), optional
        ``(height, width)`` to resize every frame to (e.g. when the two cameras differ in resolution).

    Returns
    -------
    PairedFrames

    Raises
    ------
    InputError
        A missing folder, an empty one, a frame without a partner, an unreadable frame or frames of different
        sizes; all names are matched before any frame is decoded.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from PIL import Image
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for sub in ("rgb", "ir"):
    ...     (root / sub).mkdir()
    >>> Image.fromarray(np.zeros((8, 10, 3), np.uint8)).save(root / "rgb" / "0001.png")
    >>> Image.fromarray(np.zeros((8, 10), np.uint8)).save(root / "ir" / "0001.jpg")
    >>> fr = load_paired_folder(root / "rgb", root / "ir")
    >>> fr.names, fr.image_a.shape, fr.image_b.shape
    (['0001'], (1, 8, 10, 3), (1, 8, 10))
    """
    fa = _list_images(folder_a, "folder_a")
    fb = _list_images(folder_b, "folder_b")
    only_a, only_b = sorted(set(fa) - set(fb)), sorted(set(fb) - set(fa))
    if only_a:
        raise InputError("folder_b", f"has no partner for {len(only_a)} frame(s) of folder_a, e.g. {only_a[:3]}",
                         "a frame of the same name in each folder")
    if only_b:
        raise InputError("folder_a", f"has no partner for {len(only_b)} frame(s) of folder_b, e.g. {only_b[:3]}",
                         "a frame of the same name in each folder")
    if size is not None:
        if (not isinstance(size, (tuple, list)) or len(size) != 2
                or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 1 for s in size)):
            raise InputError("size", f"got {size!r}", "(height, width), two integers >= 1")
        size = (int(size[0]), int(size[1]))
    names = sorted(fa)
    A, B = [], []
    for n in names:
        a, b = _read_image(fa[n], "folder_a"), _read_image(fb[n], "folder_b")
        if a.ndim == 2:
            a = np.repeat(a[..., None], 3, -1)
        if b.ndim == 3:
            b = b @ np.array([0.299, 0.587, 0.114], np.float32)
        if size is not None:
            from ._data import _resize

            a, b = _resize(a, size), _resize(b, size)
        A.append(np.clip(a, 0, 1).astype(np.float32))
        B.append(np.clip(b, 0, 1).astype(np.float32))
    shapes = {x.shape[:2] for x in A} | {x.shape[:2] for x in B}
    if len(shapes) > 1:
        raise InputError("size", f"is None but the frames have sizes {sorted(shapes)}",
                         "(height, width) to resize the frames to one size")
    return PairedFrames(names, np.stack(A), np.stack(B))
