"""Rendering simulations into fluorescence-microscopy-like videos: Gaussian PSF, exposure blur, noise, textures."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr26sci.core import (InputError, as_generator, check_array, check_bool, check_in_range, check_memory,
                            check_positive_int)

#: file formats :meth:`Video.save` writes, by extension
VIDEO_FORMATS = (".mp4", ".avi", ".gif", ".tif", ".tiff")

__all__ = ["Video", "render", "as_frames"]


@dataclass(repr=False)
class Video:
    """A grey-level video ``frames[n, y, x]`` (uint8) with its acquisition metadata.

    Attributes
    ----------
    frames : ndarray (n_frames, H, W), uint8
    dt : float
        Frame interval, in s.
    pixel_size : float
        Side of one pixel, in um.
    meta : dict
        What the renderer knows: ``psf_sigma`` (px), ``snr``, ``noise_sigma`` (grey levels), ``amplitude``
        (grey levels), ``exposure_time`` (s), ``background_texture`` (bool) and the simulation's ``truth``.

    Examples
    --------
    >>> import numpy as np
    >>> v = Video(np.zeros((5, 8, 8), np.uint8), dt=0.05, pixel_size=0.1)
    >>> len(v), v.shape
    (5, (5, 8, 8))
    """

    frames: np.ndarray
    dt: float = 1.0
    pixel_size: float = 1.0
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        fr = self.frames
        if hasattr(fr, "detach"):
            fr = fr.detach().cpu().numpy()
        fr = np.asarray(fr) if not isinstance(fr, np.ndarray) else fr
        if fr.dtype == object or fr.dtype.kind not in "biuf":
            raise InputError("frames", f"has dtype {fr.dtype}", "grey levels (n_frames, H, W), uint8 or numbers in [0, 255]")
        if fr.ndim != 3 or min(fr.shape) < 1:
            raise InputError("frames", f"has shape {fr.shape}", "a grey video (n_frames, H, W) with at least 1 frame")
        if fr.dtype.kind == "f":
            if not np.isfinite(fr).all():
                raise InputError("frames", "contains NaN or infinite values", "finite grey levels in [0, 255]")
        if fr.dtype != np.uint8 and fr.size and (float(fr.min()) < 0 or float(fr.max()) > 255):
            raise InputError("frames", f"has values in [{float(fr.min()):g}, {float(fr.max()):g}]",
                             "grey levels in [0, 255] (multiply [0, 1] images by 255)")
        self.frames = fr
        self.dt = check_in_range(self.dt, "dt", 0.0, None, low_open=True)
        self.pixel_size = check_in_range(self.pixel_size, "pixel_size", 0.0, None, low_open=True)
        if not isinstance(self.meta, dict):
            raise InputError("meta", f"got {type(self.meta).__name__}", "a dict of acquisition metadata")

    @property
    def shape(self):
        return self.frames.shape

    def __len__(self):
        return int(self.frames.shape[0])

    def __getitem__(self, item):
        return self.frames[item]

    def __array__(self, dtype=None, copy=None):
        return self.frames if dtype is None else self.frames.astype(dtype)

    def __repr__(self):
        return f"Video(n_frames={len(self)}, size={self.frames.shape[1:]}, dt={self.dt:g} s, pixel={self.pixel_size:g} um)"

    def summary(self) -> str:
        """One paragraph: size, timing and rendering settings."""
        keys = ("psf_sigma", "snr", "noise_sigma", "exposure_time", "background_texture")
        return f"{self!r}\n  " + ", ".join(f"{k}={self.meta[k]}" for k in keys if k in self.meta)

    def to_dict(self) -> dict:
        """Metadata (not the pixels)."""
        return {"n_frames": len(self), "size": list(self.frames.shape[1:]), "dt": self.dt,
                "pixel_size": self.pixel_size, "meta": {k: v for k, v in self.meta.items() if k != "truth"}}

    def save(self, path, fps=None):
        """Write the video: ``.mp4`` / ``.avi`` (OpenCV's FFmpeg writer, grey MPEG-4), ``.gif`` (imageio) or a
        multi-page TIFF (``.tif``, tifffile).

        Everything is checked before a byte is written: the extension, that the folder exists, ``fps`` and that
        the writer for the format is installed; a writer that fails leaves no partial file behind.

        Parameters
        ----------
        path : str or path-like
            Output file; its extension picks the format.
        fps : float, optional
            Frames per second (default ``1 / dt``, at least 1).

        Returns
        -------
        str
            The path written.

        Examples
        --------
        >>> import os, tempfile
        >>> v = Video(np.zeros((4, 16, 16), np.uint8), dt=0.05)
        >>> p = v.save(os.path.join(tempfile.mkdtemp(), "clip.tif"))
        >>> os.path.getsize(p) > 0
        True
        """
        import os

        if not isinstance(path, (str, os.PathLike)):
            raise InputError("path", f"got {type(path).__name__}", "a file path ending in " + ", ".join(VIDEO_FORMATS))
        path = os.fspath(path)
        ext = os.path.splitext(path)[1].lower()
        if ext not in VIDEO_FORMATS:
            raise InputError("path", f"has extension {ext or '(none)'!r}", "one of " + ", ".join(VIDEO_FORMATS))
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise InputError("path", f"is in {folder!r}, which is not an existing folder", "a path in an existing folder")
        fps = max(1.0, round(1 / self.dt)) if fps is None else check_in_range(fps, "fps", 0.0, None, low_open=True)
        u8 = self.frames if self.frames.dtype == np.uint8 else np.clip(np.rint(self.frames), 0, 255).astype(np.uint8)
        if ext in (".tif", ".tiff"):
            try:
                import tifffile
            except ImportError:  # pragma: no cover - optional
                raise InputError("path", "is a TIFF but tifffile is not installed", "pip install tifffile, or .gif / .mp4") \
                    from None
            tifffile.imwrite(path, u8, photometric="minisblack")
            return path
        if ext == ".gif":
            try:
                import imageio.v2 as imageio
            except ImportError:  # pragma: no cover - optional
                raise InputError("path", "is a GIF but imageio is not installed", "pip install imageio, or .tif / .mp4") \
                    from None
            _write_clean(path, lambda: imageio.mimwrite(path, list(u8), format="GIF", duration=1000.0 / fps, loop=0))
            return path
        try:
            import cv2
        except ImportError:  # pragma: no cover - optional
            raise InputError("path", f"is {ext} but OpenCV (cv2) is not installed", "pip install opencv-python-headless, "
                             "or save as .tif / .gif") from None

        def write():
            four = cv2.VideoWriter_fourcc(*("mp4v" if ext == ".mp4" else "MJPG"))
            w = cv2.VideoWriter(path, four, float(fps), (u8.shape[2], u8.shape[1]), isColor=False)
            if not w.isOpened():
                raise InputError("path", f"could not be opened by OpenCV's {ext} writer (no FFmpeg support?)",
                                 "save as .tif or .gif instead")
            try:
                for f in u8:
                    w.write(np.ascontiguousarray(f))
            finally:
                w.release()
        _write_clean(path, write)
        return path


def _write_clean(path, write):
    """Run ``write()``; if it fails, remove what it left at ``path`` (a partial file) and re-raise."""
    import os

    existed = os.path.exists(path)
    try:
        write()
    except BaseException:
        if not existed and os.path.exists(path):
            os.remove(path)
        raise


def as_frames(video, name="video"):
    """A float64 (n_frames, H, W) view of a :class:`Video` or an array (T, H, W) / (T, H, W, 3); NaN refused.

    Examples
    --------
    >>> import numpy as np
    >>> as_frames(np.zeros((3, 8, 8), np.uint8)).shape
    (3, 8, 8)
    """
    arr = video.frames if isinstance(video, Video) else video
    if hasattr(arr, "detach"):
        arr = arr.detach().cpu().numpy()
    try:
        a = np.asarray(arr)
    except Exception as exc:
        raise InputError(name, f"could not be read as an array ({exc})", "a Video or an array (T, H, W)") from exc
    if a.dtype == object or a.dtype.kind not in "biuf":
        raise InputError(name, f"has dtype {a.dtype}", "a numeric array (T, H, W) or (T, H, W, 3)")
    if a.ndim == 4 and a.shape[-1] in (3, 4):
        a = a[..., :3].astype(float).mean(-1)
    if a.ndim != 3 or min(a.shape) < 1:
        raise InputError(name, f"has shape {a.shape}", "a video of shape (T, H, W) or (T, H, W, 3), T, H, W >= 1")
    a = a.astype(float)
    if not np.all(np.isfinite(a)):
        raise InputError(name, f"contains {int((~np.isfinite(a)).sum())} NaN or infinite pixel values",
                         "finite pixel values")
    return a


def _texture(background, shape):
    """A user image (H0, W0) or (H0, W0, 3) -> normalised [0, 1] grey texture covering ``shape``."""
    from scipy import ndimage

    b = np.asarray(background)
    if b.ndim == 3 and b.shape[-1] in (3, 4):
        b = b[..., :3].mean(-1)
    b = check_array(b, "background", ndim=2)
    if min(b.shape) < 8:
        raise InputError("background", f"has shape {b.shape}", "an image at least 8 x 8 pixels")
    lo, hi = np.percentile(b, [1, 99.5])
    b = np.clip((b - lo) / max(hi - lo, 1e-12), 0, 1)
    zoom = max(shape[0] / b.shape[0], shape[1] / b.shape[1], 1.0)
    if zoom > 1:
        b = ndimage.zoom(b, zoom, order=1)
    return b[: shape[0], : shape[1]]


def _psf_profiles(coord, n, s):
    """Pixel-integrated 1-D Gaussian profile (P, n) for positions ``coord`` (px, pixel k spans [k, k+1))."""
    from scipy.special import erf

    edges = np.arange(n + 1, dtype=float)
    z = (edges[None, :] - coord[:, None]) / (s * math.sqrt(2))
    return 0.5 * np.diff(erf(z), axis=1)


def _splat(xp, yp, H, W, s, offs):
    """Sum of pixel-integrated Gaussian spots (unit flux each) at (xp, yp) px, each drawn on a local window."""
    from scipy.special import erf

    ix, iy = np.floor(xp).astype(int), np.floor(yp).astype(int)
    cols = ix[:, None] + offs[None]  # (P, K)
    rows = iy[:, None] + offs[None]
    r2 = s * math.sqrt(2)
    gx = 0.5 * (erf((cols + 1 - xp[:, None]) / r2) - erf((cols - xp[:, None]) / r2))
    gy = 0.5 * (erf((rows + 1 - yp[:, None]) / r2) - erf((rows - yp[:, None]) / r2))
    val = gy[:, :, None] * gx[:, None, :]
    rr = np.broadcast_to(rows[:, :, None], val.shape)
    cc = np.broadcast_to(cols[:, None, :], val.shape)
    ok = (rr >= 0) & (rr < H) & (cc >= 0) & (cc < W)
    flat = np.bincount((rr[ok] * W + cc[ok]), weights=val[ok], minlength=H * W)
    return flat.reshape(H, W)


def render(sim, *, shape=None, pixel_size=0.1, psf_sigma=1.5, snr=10.0, amplitude=0.5, background=None,
           background_level=0.1, background_contrast=0.35, poisson=False, rng=None):
    r"""Render a simulation as a fluorescence-microscopy video (uint8 frames, shape (T, H, W)).

    A particle at (x, y) um becomes a pixel-integrated Gaussian spot of standard deviation ``psf_sigma`` px and
    peak ``amplitude``; with exposure sub-positions (``substeps > 1`` in the simulation) the frame is the
    average of the spots over the exposure window (motion blur). White Gaussian read noise of standard
    deviation ``amplitude / snr`` is added (``poisson=True`` adds shot noise too). A real microscopy image
    passed as ``background`` (e.g. ``data_adapters.microscopy.load_cell_image()``) is normalised and added as a
    static texture, so the result looks like fluorescence microscopy over real tissue; analysis then removes
    it with a temporal median.

    Fields (diffusion) are drawn as intensity proportional to concentration; colonies (division) as soft disks.

    Parameters
    ----------
    sim : Tracks, Field or Colony
        What :func:`simulate` returned.
    shape : (int, int), optional
        Frame size (H, W) in px; defaults to the simulation's field of view divided by ``pixel_size``.
    pixel_size : float
        Side of one pixel, in um (> 0).
    psf_sigma : float
        Standard deviation of the Gaussian point-spread function, in px (> 0).
    snr : float
        Peak amplitude divided by the read-noise standard deviation (> 0; ``inf`` for no noise).
    amplitude : float
        Peak spot intensity as a fraction of the 8-bit range (0, 1].
    background : array (H0, W0) or (H0, W0, 3), optional
        A real image used as a static texture.
    background_level : float
        Uniform camera offset as a fraction of the 8-bit range.
    background_contrast : float
        Peak-to-peak amplitude of the texture as a fraction of the 8-bit range.
    poisson : bool
        Add shot noise (photon counts with 255 counts at full scale).
    rng : seed
        Noise seed (SPEC 7).

    Returns
    -------
    Video

    Examples
    --------
    >>> from iclr26sci.microsim import simulate
    >>> v = render(simulate("brownian", n_particles=20, D=0.5, dt=0.05, steps=10, rng=0), shape=(64, 64), rng=0)
    >>> v.frames.shape, v.frames.dtype
    ((11, 64, 64), dtype('uint8'))
    """
    from ._sim import Colony, Field, Tracks

    if not isinstance(sim, (Tracks, Field, Colony)):
        raise InputError("sim", f"got {type(sim).__name__}", "a Tracks, Field or Colony from simulate()")
    px = check_in_range(pixel_size, "pixel_size", 0.0, None, low_open=True)
    s = check_in_range(psf_sigma, "psf_sigma", 0.0, None, low_open=True)
    snr = float(snr) if snr == float("inf") else check_in_range(snr, "snr", 0.0, None, low_open=True)
    amp = check_in_range(amplitude, "amplitude", 0.0, 1.0, low_open=True)
    bl = check_in_range(background_level, "background_level", 0.0, 1.0)
    bc = check_in_range(background_contrast, "background_contrast", 0.0, 1.0)
    poisson = check_bool(poisson, "poisson")
    g = as_generator(rng)
    if shape is not None:
        if isinstance(shape, (str, bytes)) or not hasattr(shape, "__len__") or len(shape) != 2:
            raise InputError("shape", f"got {shape!r}", "(H, W) in pixels")
        shape = tuple(check_positive_int(v, "shape", minimum=1 if isinstance(sim, Field) else 8) for v in shape)
    if isinstance(sim, Tracks) and sim.positions.shape[-1] < 2:
        raise InputError("sim", f"has {sim.positions.shape[-1]}-D positions", "2-D or 3-D tracks (x, y drawn)")
    if isinstance(sim, Field):
        base = sim.c if sim.c.ndim == 3 else sim.c[:, None, :].repeat(8, 1)
        H, W = base.shape[1:] if shape is None else shape
    else:
        if shape is None:
            H, W = (max(8, int(round(sim.box[1] / px))), max(8, int(round(sim.box[0] / px))))
        else:
            H, W = shape
    n_frames = sim.n_frames if isinstance(sim, (Tracks, Field)) else len(sim.frames or ())
    check_memory(3 * 8.0 * max(n_frames, 1) * H * W, "shape" if shape is not None else "pixel_size",
                 "the rendered frames")
    img = np.empty((0,))
    if isinstance(sim, Tracks):
        T = sim.n_frames
        img = np.empty((T, H, W))
        flux = amp * 2 * math.pi * s * s  # total flux giving peak `amp` for a continuous Gaussian
        K = int(math.ceil(4 * s))
        offs = np.arange(-K, K + 1)
        for n in range(T):
            if sim.sub is not None and n < T - 1:
                P = sim.sub[n].reshape(-1, sim.sub.shape[-1])
                w = flux / sim.sub.shape[1]
            else:
                P, w = sim.positions[n], flux
            xp, yp = P[:, 0] / px, P[:, 1] / px
            keep = (xp > -K) & (xp < W + K) & (yp > -K) & (yp < H + K)
            xp, yp = xp[keep], yp[keep]
            img[n] = w * _splat(xp, yp, H, W, s, offs)
    elif isinstance(sim, Field):
        c = base
        if c.shape[1:] != (H, W):
            from scipy import ndimage

            c = np.stack([ndimage.zoom(f, (H / f.shape[0], W / f.shape[1]), order=1) for f in c])
        img = amp * c / max(float(c[0].max()), 1e-300)
    else:  # Colony
        if sim.frames is None:
            raise InputError("sim", "is a Colony simulated without spatial=True", "simulate('division', spatial=True)")
        T = len(sim.frames)
        img = np.empty((T, H, W))
        yy, xx = np.mgrid[0:H, 0:W] + 0.5
        for n, (P, radii) in enumerate(sim.frames):
            frame = np.zeros((H, W))
            for (x, y), r in zip(P / px, radii / px):
                d = np.sqrt((xx - x) ** 2 + (yy - y) ** 2)
                frame = np.maximum(frame, 1 / (1 + np.exp((d - r) / 0.7)))
            from scipy import ndimage

            img[n] = amp * ndimage.gaussian_filter(frame, s)
    out = bl + img
    textured = background is not None
    if textured:
        out = out + bc * _texture(background, (H, W))[None]
    if poisson:
        out = g.poisson(np.clip(out, 0, None) * 255.0) / 255.0
    sigma = 0.0 if not np.isfinite(snr) else amp / snr
    if sigma > 0:
        out = out + sigma * g.standard_normal(out.shape)
    frames = np.clip(np.rint(out * 255.0), 0, 255).astype(np.uint8)
    meta = {"psf_sigma": s, "snr": snr, "noise_sigma": 255.0 * sigma, "amplitude": 255.0 * amp,
            "background_level": 255.0 * bl, "background_texture": textured, "kind": sim.kind,
            "exposure_time": float(getattr(sim, "truth", {}).get("exposure_time", 0.0)),
            "truth": dict(getattr(sim, "truth", {}))}
    dt = sim.dt
    return Video(frames, float(dt), px, meta)
