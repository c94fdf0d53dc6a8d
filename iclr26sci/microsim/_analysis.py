"""Analysis of rendered (or generated) microscopy video: detection, linking, MSD, D with its standard error,
velocity profiles, growth rates and physics-violation flags.

Coordinates: ``positions[..., 0]`` is x (columns), ``[..., 1]`` is y (rows); pixel k spans [k, k + 1), so a
detection at pixel coordinate u is at ``u * pixel_size`` um (the convention :func:`render` uses).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr26sci.core import InputError, as_generator, check_bool, check_in_range, check_option, check_positive_int

from ._render import Video, as_frames

__all__ = ["detect", "link", "msd", "fit_msd", "analyse", "TrackAnalysis", "FieldAnalysis", "ColonyAnalysis",
           "ProfileAnalysis", "PhysicsFlags", "physics_flags", "velocity_profile", "growth_rate"]


class _Result:
    def to_dict(self) -> dict:
        """Scalar results (arrays as lists, large arrays left out)."""
        out = {}
        for k, v in vars(self).items():
            if isinstance(v, np.ndarray):
                if v.size <= 64:
                    out[k] = v.tolist()
            elif isinstance(v, (int, float, str, bool, list, tuple, dict, type(None), np.floating, np.integer)):
                out[k] = v.item() if hasattr(v, "item") else v
        return out

    def summary(self) -> str:
        """The result's scalars, one per line."""
        lines = [repr(self)]
        for k, v in self.to_dict().items():
            if isinstance(v, float):
                lines.append(f"  {k}: {v:.5g}")
            elif isinstance(v, (int, bool, str)):
                lines.append(f"  {k}: {v}")
        return "\n".join(lines)


# ------------------------------------------------------------------------------------------ detection
def _spatial_background(frame, s):
    from scipy import ndimage

    return ndimage.gaussian_filter(frame, 5 * s, mode="nearest")


def _noise_sigma(x):
    d = x[:, 1:] - x[:, :-1]
    return float(np.median(np.abs(d - np.median(d))) * 1.4826 / math.sqrt(2))


def detect(video, *, psf_sigma=1.5, threshold=6.0, background="auto", margin=None):
    r"""Detect spots frame by frame: matched (Gaussian) filter, local maxima, Gaussian-weighted centroids.

    Each frame has its background removed (``"median"``: the temporal median image, which removes a static
    texture such as a real microscopy background; ``"spatial"``: a wide Gaussian blur; ``"auto"``: median when the
    video's metadata says a texture was rendered, spatial otherwise; ``"spatial"`` subtracts the frame's median,
    the camera offset of a sparse fluorescence image), is smoothed by a Gaussian of the PSF's
    width, and the local maxima above ``threshold`` times the filtered noise level become detections. Each
    position is refined by an iterated Gaussian-weighted centroid on the unsmoothed, background-free frame,
    with the update :math:`c \leftarrow c + (m(c) - c)(1 + \sigma^2/\sigma_w^2)`, whose fixed point is the
    centre of a Gaussian spot (no pixel locking).

    Parameters
    ----------
    video : Video or array (T, H, W) or (H, W)
        Frames; a single image is one frame.
    psf_sigma : float
        Expected spot standard deviation, in px (> 0).
    threshold : float
        Detection threshold in units of the matched filter's noise standard deviation (> 0).
    background : {"auto", "median", "spatial", "none"}
        How the background is removed.
    margin : int, optional
        Detections closer than this many px to the border are dropped (default ceil(3 psf_sigma)).

    Returns
    -------
    list of ndarray (n_i, 3)
        Per frame: x, y (px) and the spot's integrated intensity.

    Examples
    --------
    >>> from iclr26sci.microsim import simulate, render
    >>> v = render(simulate("brownian", n_particles=10, D=0.1, dt=0.05, steps=2, rng=1), shape=(64, 64), rng=1)
    >>> len(detect(v))
    3
    """
    from scipy import ndimage

    s = check_in_range(psf_sigma, "psf_sigma", 0.0, None, low_open=True)
    k = check_in_range(threshold, "threshold", 0.0, None, low_open=True)
    background = check_option(background, "background", ["auto", "median", "spatial", "none"])
    arr = np.asarray(video.frames if isinstance(video, Video) else video)
    if arr.ndim == 2:
        arr = arr[None]
    frames = as_frames(arr)
    T, H, W = frames.shape
    R = int(math.ceil(3 * s))
    margin = R if margin is None else check_positive_int(margin, "margin", minimum=0)
    if 2 * max(R, margin) >= min(H, W):
        raise InputError("psf_sigma" if R >= margin else "margin",
                         f"leaves no pixel to detect in ({H}x{W} frames, border {max(R, margin)} px)",
                         f"a spot and border smaller than half the frame (psf_sigma < {min(H, W) / 6:.3g} px)")
    if background == "auto":
        background = "median" if isinstance(video, Video) and video.meta.get("background_texture") and T >= 5 \
            else "spatial"
    med = np.median(frames, axis=0) if background == "median" else None
    out = []
    off = np.arange(-R, R + 1)
    for n in range(T):
        f = frames[n]
        if med is not None:
            f = f - med
            f = f - np.median(f)
        elif background == "spatial":
            f = f - np.median(f)
        sm = ndimage.gaussian_filter(f, s, mode="nearest")
        noise = _noise_sigma(f) / (2 * math.sqrt(math.pi) * s)
        peaks = (sm == ndimage.maximum_filter(sm, size=2 * int(math.ceil(1.5 * s)) + 1, mode="nearest")) & \
                (sm > k * max(noise, 1e-12))
        yy, xx = np.nonzero(peaks)
        ok = (xx >= margin) & (xx < W - margin) & (yy >= margin) & (yy < H - margin) & \
             (xx >= R) & (xx < W - R) & (yy >= R) & (yy < H - R)
        xx, yy = xx[ok], yy[ok]
        if xx.size == 0:
            out.append(np.zeros((0, 3)))
            continue
        rows = yy[:, None] + off[None]
        cols = xx[:, None] + off[None]
        patch = f[rows[:, :, None], cols[:, None, :]]  # (P, K, K)
        pc = cols + 0.5  # pixel-centre coordinates
        pr = rows + 0.5
        cx, cy = xx + 0.5, yy + 0.5
        gain = 1.0 + (s * s + 1.0 / 12) / (s * s)
        for _ in range(6):
            wx = np.exp(-(pc - cx[:, None]) ** 2 / (2 * s * s))
            wy = np.exp(-(pr - cy[:, None]) ** 2 / (2 * s * s))
            w = wy[:, :, None] * wx[:, None, :] * patch
            tot = w.sum((1, 2))
            tot = np.where(np.abs(tot) < 1e-12, 1e-12, tot)
            mx = (w.sum(1) * pc).sum(1) / tot
            my = (w.sum(2) * pr).sum(1) / tot
            cx = np.clip(cx + (mx - cx) * gain, xx - 1.0, xx + 2.0)
            cy = np.clip(cy + (my - cy) * gain, yy - 1.0, yy + 2.0)
        out.append(np.stack([cx, cy, patch.sum((1, 2))], 1))
    return out


def link(detections, *, max_disp=5.0):
    """Link detections frame to frame by a global minimum-cost assignment (Hungarian), no gap closing.

    The cost of linking two detections is their squared distance; pairs farther apart than ``max_disp`` are never
    linked. An unlinked detection ends a track (or starts one).

    Parameters
    ----------
    detections : list of ndarray (n_i, >= 2)
        Per frame, positions (x, y) as :func:`detect` returns (px or um, consistently with ``max_disp``).
    max_disp : float
        Largest displacement between consecutive frames (> 0), same unit as the positions.

    Returns
    -------
    ndarray (T, n_tracks, 2)
        Track positions with NaN where a track is absent.

    Examples
    --------
    >>> import numpy as np
    >>> dets = [np.array([[0., 0.], [10., 10.]]), np.array([[10.5, 10.], [0.2, 0.1]])]
    >>> link(dets, max_disp=2.0)[1].round(1).tolist()
    [[0.2, 0.1], [10.5, 10.0]]
    """
    from scipy.optimize import linear_sum_assignment
    from scipy.spatial import cKDTree

    md = check_in_range(max_disp, "max_disp", 0.0, None, low_open=True)
    if not isinstance(detections, (list, tuple)) or not detections:
        raise InputError("detections", f"got {type(detections).__name__}", "a non-empty list of (n_i, 2) arrays")
    T = len(detections)
    dets = []
    for i, d in enumerate(detections):
        try:
            a = np.asarray(d, float)
        except (TypeError, ValueError):
            raise InputError("detections", f"frame {i} is not numeric", "finite (n_i, 2) arrays of positions") from None
        if a.ndim > 2 or (a.ndim == 1 and a.size % 2):
            raise InputError("detections", f"frame {i} has shape {a.shape}", "(n_i, 2) or (n_i, 3) arrays")
        a = a.reshape(-1, a.shape[-1] if a.ndim == 2 else 2)
        if a.shape[1] < 2 or not np.all(np.isfinite(a[:, :2])):
            raise InputError("detections", f"frame {i} has shape {a.shape} or non-finite positions",
                             "finite (n_i, 2) arrays of positions")
        dets.append(a[:, :2])
    track_of = [np.full(len(d), -1) for d in dets]
    track_of[0] = np.arange(len(dets[0]))
    n_tracks = len(dets[0])
    for n in range(1, T):
        a, b = dets[n - 1], dets[n]
        tid = np.full(len(b), -1)
        if len(a) and len(b):
            ta, tb = cKDTree(a), cKDTree(b)
            sp = ta.sparse_distance_matrix(tb, md, output_type="coo_matrix")
            if sp.nnz:
                big = 1e6 * md * md
                cost = np.full((len(a), len(b)), big)
                cost[sp.row, sp.col] = sp.data ** 2
                ia, ib = linear_sum_assignment(cost)
                good = cost[ia, ib] < big
                tid[ib[good]] = track_of[n - 1][ia[good]]
        new = tid < 0
        tid[new] = n_tracks + np.arange(int(new.sum()))
        n_tracks += int(new.sum())
        track_of[n] = tid
    out = np.full((T, n_tracks, 2), np.nan)
    for n in range(T):
        out[n, track_of[n]] = dets[n]
    return out


# ------------------------------------------------------------------------------------------ MSD
def _per_track_sums(pos, max_lag, start_ok=None):
    """Per-track sums of squared displacements S[i, l-1] and counts C[i, l-1] for lags l = 1..max_lag.

    ``start_ok`` (T, N) bool, optional: only displacement pairs that start where it is True count."""
    T, N, d = pos.shape
    L = min(max_lag, T - 1)
    S = np.zeros((N, L))
    C = np.zeros((N, L))
    for l in range(1, L + 1):
        dx = pos[l:] - pos[:-l]
        sq = np.sum(dx ** 2, axis=-1)
        ok = np.isfinite(sq)
        if start_ok is not None:
            ok &= start_ok[:-l]
        S[:, l - 1] = np.where(ok, sq, 0.0).sum(0)
        C[:, l - 1] = ok.sum(0)
    return S, C


def msd(positions, dt=1.0, *, max_lag=None):
    r"""Time- and ensemble-averaged mean squared displacement.

    .. math:: \mathrm{MSD}(l\Delta t) = \frac{\sum_{i,n} |x_i(n+l) - x_i(n)|^2}{\#\{(i, n)\}}

    over all particles i and start frames n where both positions exist (NaN marks an absent particle).

    Parameters
    ----------
    positions : array (T, N, d) or Tracks
        Trajectories; NaN where a particle is not observed.
    dt : float
        Frame interval (s), > 0.
    max_lag : int, optional
        Largest lag in frames (default T // 4).

    Returns
    -------
    lags : ndarray
        Lag times (s).
    values : ndarray
        MSD per lag.
    counts : ndarray
        Number of displacement pairs per lag.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(5.0)[:, None, None] * np.ones((1, 1, 2))   # ballistic, unit speed per axis
    >>> msd(x, 1.0, max_lag=2)[1].tolist()
    [2.0, 8.0]
    """
    pos, dt = _positions(positions, dt)
    T = pos.shape[0]
    max_lag = max(1, T // 4) if max_lag is None else check_positive_int(max_lag, "max_lag")
    if max_lag > T - 1:
        raise InputError("max_lag", f"is {max_lag} but there are {T} frames", f"at most {T - 1}")
    S, C = _per_track_sums(pos, max_lag)
    cnt = C.sum(0)
    if not cnt.any():
        raise InputError("positions", "has no particle observed in two frames max_lag apart or less",
                         "tracks with at least one displacement (NaN marks absence)")
    with np.errstate(invalid="ignore", divide="ignore"):
        val = S.sum(0) / cnt
    return np.arange(1, S.shape[1] + 1) * dt, val, cnt


def _positions(positions, dt):
    from ._sim import Tracks

    if isinstance(positions, Tracks):
        if positions.n_frames < 2:
            raise InputError("positions", f"has {positions.n_frames} frame(s)", "tracks of at least 2 frames")
        return positions.positions, positions.dt
    try:
        pos = np.asarray(positions, float)
    except (TypeError, ValueError):
        raise InputError("positions", f"got {type(positions).__name__} that is not numeric",
                         "an array (T >= 2, N, d) of trajectories") from None
    if pos.ndim != 3 or pos.shape[0] < 2 or pos.shape[1] < 1 or pos.shape[2] < 1:
        raise InputError("positions", f"has shape {pos.shape}", "an array (T >= 2, N >= 1, d >= 1) of trajectories")
    if np.any(np.isinf(pos)):
        raise InputError("positions", "contains infinite values", "finite positions (NaN marks absence)")
    return pos, check_in_range(dt, "dt", 0.0, None, low_open=True)


def _fit_line(tau, y, w=None):
    A = np.stack([np.ones_like(tau), tau], 1)
    if w is not None:
        A = A * w[:, None]
        y = y * w
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    return coef


def fit_msd(positions, dt=1.0, *, n_lags=4, alpha_lags=None, n_boot=200, fit_intercept=True, field=None, rng=0):
    r"""Diffusion coefficient, offset and anomalous exponent from the MSD, with bootstrap standard errors.

    Fits :math:`\mathrm{MSD}(\tau) = a + 2dD\tau` by least squares on lags 1..``n_lags`` (the few shortest lags
    carry most of the information, Michalet 2010); with localisation noise :math:`\sigma` and exposure
    :math:`t_E` theory gives :math:`a = 2d\sigma^2 - 2dDt_E/3`. The exponent :math:`\alpha` is the log-log slope
    over ``alpha_lags``. Standard errors come from resampling whole tracks (the tracks are independent; the
    displacements within one are not).

    Parameters
    ----------
    positions : array (T, N, d) or Tracks
        Trajectories (NaN where absent).
    dt : float
        Frame interval (s), > 0.
    n_lags : int
        Number of lags in the linear fit (>= 2).
    alpha_lags : (int, int), optional
        First and last lag of the log-log fit (default (1, max(n_lags, T // 10))).
    n_boot : int
        Bootstrap resamples of the tracks (>= 10).
    fit_intercept : bool
        Fit the offset a (True) or force it to zero.
    field : (float, float), optional
        Width and height (same unit as the positions) of the field of view the tracks were observed in. Tracks are
        cut where particles leave the field, and keeping only displacements that stay in view biases the MSD
        low near the edges; with ``field`` given, only displacement pairs that start at least
        ``4 sqrt(max lag) x`` the rms one-frame step (per axis) inside the field count, which removes that bias.
    rng : seed
        Bootstrap seed.

    Returns
    -------
    TrackAnalysis

    Examples
    --------
    >>> from iclr26sci.microsim import simulate
    >>> res = fit_msd(simulate("brownian", n_particles=100, D=0.5, dt=0.05, steps=200, rng=0))
    >>> abs(res.D - 0.5) < 4 * res.D_se
    True
    """
    pos, dt = _positions(positions, dt)
    T, N, d = pos.shape
    n_lags = check_positive_int(n_lags, "n_lags", minimum=2)
    if n_lags > T - 1:
        raise InputError("n_lags", f"is {n_lags} but the tracks have {T} frames", f"at most {T - 1}")
    if alpha_lags is None:
        alpha_lags = (1, max(n_lags, T // 10))
    if isinstance(alpha_lags, (str, bytes)) or not hasattr(alpha_lags, "__len__") or len(alpha_lags) != 2:
        raise InputError("alpha_lags", f"got {alpha_lags!r}", "(first, last) lags of the log-log fit")
    a0, a1 = (check_positive_int(v, "alpha_lags") for v in alpha_lags)
    if not a0 < a1 <= T - 1:
        raise InputError("alpha_lags", f"got {alpha_lags!r}", f"(first, last) with 1 <= first < last <= {T - 1}")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=10)
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    L = max(n_lags, a1)
    start_ok = None
    if field is not None:
        if isinstance(field, (str, bytes)) or not hasattr(field, "__len__") or len(field) != 2:
            raise InputError("field", f"got {field!r}", "(width, height) of the field of view")
        fw, fh = (check_in_range(v, "field", 0.0, None, low_open=True) for v in field)
        if d < 2:
            raise InputError("field", "was given for 1-D tracks", "field only with 2-D or 3-D tracks")
        step = pos[1:] - pos[:-1]
        rms = float(np.sqrt(np.nanmean(step[..., :2] ** 2)))
        g = 4.0 * math.sqrt(n_lags) * rms
        with np.errstate(invalid="ignore"):
            start_ok = (pos[..., 0] >= g) & (pos[..., 0] <= fw - g) & (pos[..., 1] >= g) & (pos[..., 1] <= fh - g)
    S, C = _per_track_sums(pos, L, start_ok)
    keep = C[:, 0] > 0
    S, C = S[keep], C[keep]
    if S.shape[0] < 2:
        raise InputError("positions", f"has {S.shape[0]} track(s) with at least two frames", "two or more tracks")
    tau = np.arange(1, L + 1) * dt
    m_all = S.sum(0) / np.maximum(C.sum(0), 1)
    if np.any(C.sum(0)[:n_lags] == 0) or np.any(m_all[:n_lags] <= 0):
        raise InputError("positions", f"has lags 1..{n_lags} with no displacement pair or a zero MSD "
                         "(particles that never move)", f"moving particles observed over lags 1..{n_lags}")
    alpha_ok = bool(np.all(C.sum(0)[a0 - 1:a1] > 0) and np.all(m_all[a0 - 1:a1] > 0))
    if not alpha_ok:
        import warnings

        warnings.warn(f"fit_msd: no displacement pair (or a zero MSD) at some of the lags {a0}..{a1}; the exponent "
                      "alpha is undefined and returned as NaN", RuntimeWarning, stacklevel=2)

    def stats(Sw, Cw):
        m = Sw.sum(0) / np.maximum(Cw.sum(0), 1)
        if fit_intercept:
            a, b = _fit_line(tau[:n_lags], m[:n_lags])
        else:
            a, b = 0.0, float(tau[:n_lags] @ m[:n_lags] / (tau[:n_lags] @ tau[:n_lags]))
        if alpha_ok:
            lt, lm = np.log(tau[a0 - 1:a1]), np.log(np.clip(m[a0 - 1:a1], 1e-300, None))
            al = np.polyfit(lt, lm, 1)[0]
        else:
            al = float("nan")
        return np.array([b / (2 * d), a, al]), m

    est, m = stats(S, C)
    g = as_generator(rng)
    idx = g.integers(0, S.shape[0], size=(n_boot, S.shape[0]))
    boots = np.array([stats(S[i], C[i])[0] for i in idx])
    se = boots.std(0, ddof=1)
    # drift: mean displacement per frame over all linked steps
    inc = pos[1:] - pos[:-1]
    ok = np.all(np.isfinite(inc), -1)
    steps = inc[ok]
    drift = steps.mean(0) / dt if len(steps) else np.full(d, np.nan)
    per_track = np.where(ok[..., None], inc, 0).sum(0)[keep] / np.maximum(ok.sum(0)[keep], 1)[:, None] / dt
    drift_se = per_track.std(0, ddof=1) / math.sqrt(per_track.shape[0])
    return TrackAnalysis(D=float(est[0]), D_se=float(se[0]), intercept=float(est[1]), intercept_se=float(se[1]),
                         alpha=float(est[2]), alpha_se=float(se[2]), lags=tau, msd=m, n_pairs=C.sum(0),
                         drift=drift, drift_se=drift_se, n_tracks=int(S.shape[0]), dt=dt, d=d, tracks=pos,
                         increments=steps)


@dataclass(repr=False)
class TrackAnalysis(_Result):
    """MSD analysis of tracks: D and its SE (um^2/s), offset (um^2), exponent alpha, drift (um/s).

    Examples
    --------
    >>> from iclr26sci.microsim import simulate
    >>> res = fit_msd(simulate('brownian', n_particles=50, D=0.5, steps=100, rng=0))
    >>> res.d, res.n_tracks
    (2, 50)
    """

    D: float
    D_se: float
    intercept: float
    intercept_se: float
    alpha: float
    alpha_se: float
    lags: np.ndarray
    msd: np.ndarray
    n_pairs: np.ndarray
    drift: np.ndarray
    drift_se: np.ndarray
    n_tracks: int
    dt: float
    d: int
    tracks: Any = None
    orphan_rate: float = float("nan")
    increments: Any = None
    n_detections: int = -1

    def __repr__(self):
        return (f"TrackAnalysis(D={self.D:.4g} +/- {self.D_se:.2g}, alpha={self.alpha:.3f}, "
                f"n_tracks={self.n_tracks})")


# ------------------------------------------------------------------------------------------ other analyses
@dataclass(repr=False)
class FieldAnalysis(_Result):
    """Spreading of a concentration (or intensity) field: mass and per-axis variance over time, D fit.

    Examples
    --------
    >>> from iclr26sci.microsim import simulate
    >>> fa = analyse(simulate('diffusion', grid=64, steps=50), 'field')
    >>> round(fa.D, 2)
    0.5
    """

    times: np.ndarray
    mass: np.ndarray
    variance: np.ndarray
    D: float
    max_values: np.ndarray

    def __repr__(self):
        return f"FieldAnalysis(D={self.D:.4g}, frames={len(self.times)})"


@dataclass(repr=False)
class ColonyAnalysis(_Result):
    """Population size over time and the fitted exponential growth rate (1/time unit).

    Examples
    --------
    >>> import numpy as np
    >>> round(growth_rate(np.arange(5.0), 2 ** np.arange(5.0)).rate, 4)
    0.6931
    """

    times: np.ndarray
    counts: np.ndarray
    rate: float
    rate_se: float

    def __repr__(self):
        return f"ColonyAnalysis(rate={self.rate:.4g} +/- {self.rate_se:.2g}, final_count={int(self.counts[-1])})"


@dataclass(repr=False)
class ProfileAnalysis(_Result):
    """Binned mean velocity along the flow against the transverse coordinate, with a parabola fit.

    Examples
    --------
    >>> from iclr26sci.microsim import simulate
    >>> p = analyse(simulate('poiseuille', steps=50, rng=0), 'profile')
    >>> abs(p.u_max / 2.0 - 1) < 0.1
    True
    """

    centres: np.ndarray
    velocity: np.ndarray
    u_max: float
    centre: float
    half_width: float
    r_squared: float
    reynolds: float = float("nan")

    def __repr__(self):
        return f"ProfileAnalysis(u_max={self.u_max:.4g}, R={self.half_width:.4g}, R2={self.r_squared:.4f})"


def velocity_profile(positions, dt=1.0, *, n_bins=20, flow_axis=0, density=1000.0, viscosity=8.9e-4):
    r"""Mean velocity along ``flow_axis`` binned by the transverse coordinate, fitted by a parabola.

    Fits :math:`u(y) = c_0 + c_1 y + c_2 y^2` by least squares on the bin means; the vertex gives the centre
    and :math:`u_{max}`, the roots give the channel half-width R, and :math:`R^2` measures how parabolic the
    profile is. Reynolds number :math:`\rho u_{max} (2R) / \eta` (SI units from um, um/s).

    Parameters
    ----------
    positions : array (T, N, 2) or Tracks
        Trajectories in um.
    dt : float
        Frame interval (s).
    n_bins : int
        Number of transverse bins (>= 4).
    flow_axis : {0, 1}
        The axis the flow runs along.
    density, viscosity : float
        Fluid density (kg/m^3) and viscosity (Pa s) for the Reynolds number.

    Returns
    -------
    ProfileAnalysis

    Examples
    --------
    >>> from iclr26sci.microsim import simulate
    >>> p = velocity_profile(simulate("poiseuille", n_particles=300, steps=100, rng=0))
    >>> p.r_squared > 0.95
    True
    """
    pos, dt = _positions(positions, dt)
    n_bins = check_positive_int(n_bins, "n_bins", minimum=4)
    if isinstance(flow_axis, (bool, np.bool_)) or not isinstance(flow_axis, (int, np.integer)) or flow_axis not in (0, 1):
        raise InputError("flow_axis", f"got {flow_axis!r}", "0 or 1")
    density = check_in_range(density, "density", 0.0, None, low_open=True)
    viscosity = check_in_range(viscosity, "viscosity", 0.0, None, low_open=True)
    if pos.shape[-1] < 2:
        raise InputError("positions", f"has {pos.shape[-1]}-D positions", "2-D (or 3-D) tracks: along and across the flow")
    inc = (pos[1:] - pos[:-1]) / dt
    mid = 0.5 * (pos[1:] + pos[:-1])
    ok = np.all(np.isfinite(inc), -1)
    v = inc[..., flow_axis][ok]
    y = mid[..., 1 - flow_axis][ok]
    if y.size == 0 or float(y.max() - y.min()) <= 0:
        raise InputError("positions", f"has {y.size} displacement(s) spanning no transverse range",
                         "tracks spread across the channel (a profile needs several transverse positions)")
    edges = np.linspace(y.min(), y.max(), n_bins + 1)
    b = np.clip(np.digitize(y, edges) - 1, 0, n_bins - 1)
    cnt = np.bincount(b, minlength=n_bins)
    sv = np.bincount(b, v, minlength=n_bins)
    c = 0.5 * (edges[1:] + edges[:-1])
    good = cnt > 0
    if good.sum() < 3:
        raise InputError("positions", f"fill only {int(good.sum())} of the {n_bins} transverse bins",
                         "displacements in at least 3 bins for a parabola fit")
    u = sv[good] / cnt[good]
    c = c[good]
    c2, c1, c0 = np.polyfit(c, u, 2)
    pred = np.polyval([c2, c1, c0], c)
    r2 = 1 - np.sum((u - pred) ** 2) / max(np.sum((u - u.mean()) ** 2), 1e-300)
    if c2 >= 0:
        centre, umax, R = float("nan"), float("nan"), float("nan")
    else:
        centre = -c1 / (2 * c2)
        umax = c0 - c1 * c1 / (4 * c2)
        R = math.sqrt(umax / -c2) if umax > 0 else float("nan")  # a vertex below 0 has no wall crossing
    re = density * umax * 1e-6 * 2 * R * 1e-6 / viscosity if np.isfinite(umax) else float("nan")
    return ProfileAnalysis(c, u, float(umax), float(centre), float(R), float(r2), float(re))


def growth_rate(times, counts, *, min_count=1):
    """Exponential growth rate: least-squares slope of log N(t) on the points with N >= ``min_count``.

    Parameters
    ----------
    times, counts : array-like
        Time points and population sizes (N > 0).
    min_count : int
        Only points with at least this population enter the fit (to skip the early stochastic phase).

    Returns
    -------
    ColonyAnalysis

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(10.0)
    >>> round(growth_rate(t, 3 * np.exp(0.2 * t)).rate, 6)
    0.2
    """
    from iclr26sci.core import check_array

    t = check_array(times, "times", ndim=1)
    n = check_array(counts, "counts", ndim=1)
    if t.shape != n.shape or t.size < 3:
        raise InputError("counts", f"got {n.size} counts for {t.size} times", "matching arrays of >= 3 points")
    if np.any(np.diff(t) < 0):
        raise InputError("times", "are not in increasing order", "non-decreasing times (sort times and counts together)")
    if np.any(n <= 0):
        raise InputError("counts", "contains a population <= 0", "positive population sizes")
    mc = check_positive_int(min_count, "min_count")
    sel = n >= mc
    if sel.sum() < 3:
        raise InputError("min_count", f"leaves {int(sel.sum())} points", "a threshold leaving >= 3 points")
    if np.ptp(t[sel]) <= 0:
        raise InputError("times", "has a single distinct time among the fitted points", "at least two distinct times")
    A = np.stack([np.ones(sel.sum()), t[sel]], 1)
    y = np.log(n[sel])
    coef, res, *_ = np.linalg.lstsq(A, y, rcond=None)
    resid = y - A @ coef
    s2 = resid @ resid / max(len(y) - 2, 1)
    se = math.sqrt(s2 * np.linalg.inv(A.T @ A)[1, 1])
    return ColonyAnalysis(t, n, float(coef[1]), float(se))


def _count_blobs(frames, s):
    """Cells per frame: bright regions split at distance-transform peaks at least one cell radius apart."""
    from scipy import ndimage

    counts = []
    rad = None
    for f in frames:
        g = ndimage.gaussian_filter(f, s)
        lo, hi = np.percentile(g, 5), g.max()
        mask = g > lo + 0.5 * (hi - lo)
        dist = ndimage.distance_transform_edt(mask)
        if rad is None:
            rad = max(2.0, float(dist.max()))  # the first frame holds isolated cells: their radius
        size = 2 * int(0.8 * rad) + 1
        pk = (dist == ndimage.maximum_filter(dist, size=size)) & (dist > 0.5 * rad)
        _, k = ndimage.label(ndimage.binary_dilation(pk, iterations=2))
        counts.append(k)
    return np.asarray(counts, float)


# ------------------------------------------------------------------------------------------ violation flags
@dataclass(repr=False)
class PhysicsFlags(_Result):
    """Physics-violation flags of a video, each with the statistic that decided it.

    ``ballistic``: MSD exponent alpha above ``alpha_range``; ``teleport``: more displacements beyond
    ``jump_z`` robust standard deviations than a Gaussian law allows; ``frozen``: a fraction of consecutive frame
    pairs that are identical; ``flicker``: frame-mean intensity jumps beyond ``flicker_z`` robust standard
    deviations.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.microsim import simulate, render
    >>> v = render(simulate('brownian', n_particles=10, D=0.5, steps=20, rng=0), shape=(64, 64), rng=0)
    >>> v.frames[10:] = v.frames[10]           # freeze the second half
    >>> physics_flags(v).frozen
    True
    """

    alpha: float
    alpha_range: tuple
    ballistic: bool
    jump_fraction: float
    teleport: bool
    frozen_fraction: float
    frozen: bool
    flicker_z: float
    flicker: bool
    n_tracks: int
    drift_z: float = float("nan")
    profile_r2: float = float("nan")
    count_trend: float = float("nan")
    tracks: Any = None
    orphan_rate: float = float("nan")

    @property
    def violations(self) -> list:
        """Names of the flags that are raised."""
        return [k for k in ("ballistic", "teleport", "frozen", "flicker") if getattr(self, k)]

    def __repr__(self):
        return f"PhysicsFlags(violations={self.violations}, alpha={self.alpha:.3f}, n_tracks={self.n_tracks})"


def check_alpha_range(alpha_range, name="alpha_range"):
    """A pair ``(low, high)`` of finite exponents with ``0 <= low < high``."""
    if isinstance(alpha_range, (str, bytes)) or not hasattr(alpha_range, "__len__") or len(alpha_range) != 2:
        raise InputError(name, f"got {alpha_range!r}", "a pair (low, high) of MSD exponents")
    lo, hi = (check_in_range(v, name, 0.0, None) for v in alpha_range)
    if not lo < hi:
        raise InputError(name, f"got ({lo:g}, {hi:g})", "low < high")
    return lo, hi


def physics_flags(video, *, psf_sigma=1.5, max_disp=None, alpha_range=(0.8, 1.2), jump_z=6.0, jump_fraction=0.01,
                  orphan_rate=0.0035, flicker_z=8.0, frozen_fraction=0.05, min_track=10):
    r"""Flag physics violations in a video of diffusing particles (or cells).

    - **ballistic**: :math:`\alpha` (log-log MSD slope over lags 4..T/5, past the blur and noise offset) above
      ``alpha_range`` (below it, e.g. confined or immobile objects, is physical and not flagged);
    - **teleporting**: fraction of linked displacements beyond ``jump_z`` robust (MAD) standard deviations
      per axis above ``jump_fraction`` (a Gaussian law gives :math:`2\Phi(-6) \approx 2\cdot10^{-9}`), or
      "orphan pairs" above ``orphan_rate`` per detection. The default 0.0035 was set between the largest rate of
      16 null videos of sparse Brownian fields (0.0013) and the smallest of 16 videos where 3 % of steps jump
      8-12 step SDs (0.0061), both run with seeds apart from the validation's; links and track ends within
      ``3 psf_sigma + 4`` px of the border are left out (spots enter and leave there);
    - **frozen**: fraction of consecutive frames that are pixel-identical above ``frozen_fraction`` (a camera
      always adds fresh noise);
    - **flicker**: the largest jump of the frame-mean intensity beyond ``flicker_z`` robust standard deviations
      of those jumps.

    Parameters
    ----------
    video : Video or array (T, H, W)
        At least 10 frames.
    psf_sigma : float
        Spot size for detection (px).
    max_disp : float, optional
        Linking radius in px (default 4 x the median nearest-neighbour jump between frames, at least 3 psf_sigma).
    alpha_range : (float, float)
        Diffusive range of the MSD exponent.
    jump_z, jump_fraction, flicker_z, frozen_fraction : float
        Decision levels (above).
    orphan_rate : float
        Also flag teleporting when "orphan pairs" (a spot vanishing in the interior with no neighbour to merge
        with, while another appears with none it could have split from) occur at more than this rate per
        detection.
    min_track : int
        Shortest track used for the MSD exponent.

    Returns
    -------
    PhysicsFlags

    Examples
    --------
    >>> from iclr26sci.microsim import simulate, render
    >>> v = render(simulate("brownian", n_particles=30, D=0.5, dt=0.05, steps=60, rng=2), shape=(96, 96), rng=2)
    >>> physics_flags(v).violations
    []
    """
    frames = as_frames(video)
    T = frames.shape[0]
    if T < 10:
        raise InputError("video", f"has {T} frames", "at least 10 frames for the physics flags")
    lo, hi = check_alpha_range(alpha_range)
    s = check_in_range(psf_sigma, "psf_sigma", 0.0, None, low_open=True)
    md = None if max_disp is None else check_in_range(max_disp, "max_disp", 0.0, None, low_open=True)
    jump_z = check_in_range(jump_z, "jump_z", 0.0, None, low_open=True)
    jump_fraction = check_in_range(jump_fraction, "jump_fraction", 0.0, 1.0)
    orphan_rate = check_in_range(orphan_rate, "orphan_rate", 0.0, None)
    flicker_z = check_in_range(flicker_z, "flicker_z", 0.0, None, low_open=True)
    frozen_fraction = check_in_range(frozen_fraction, "frozen_fraction", 0.0, 1.0)
    min_track = check_positive_int(min_track, "min_track", minimum=2)
    # frozen: identical consecutive frames
    same = np.array([np.array_equal(frames[n], frames[n - 1]) for n in range(1, T)])
    frozen_frac = float(same.mean())
    # flicker: frame-mean jumps (robust z)
    mean = frames.reshape(T, -1).mean(1)
    dm = np.diff(mean)
    scale = np.median(np.abs(dm - np.median(dm))) * 1.4826
    scale = max(scale, 0.05)  # quantisation floor (grey levels)
    fz = float(np.max(np.abs(dm - np.median(dm))) / scale)
    # tracks
    # the temporal median removes everything static (a real specimen's texture, immobile cells): only moving
    # objects are tracked
    dets = detect(frames, psf_sigma=s, background="median")
    md = _auto_disp(dets, 3 * s) if max_disp is None else md
    tr_all = link(dets, max_disp=md)
    lengths = np.isfinite(tr_all[..., 0]).sum(0)
    tr = tr_all[:, lengths >= min_track]
    alpha, jf = float("nan"), 0.0
    H, W = frames.shape[1:]
    band = int(math.ceil(3 * s)) + 4  # particles enter and leave here: links there are not jumps

    def interior(p):
        return (p[..., 0] >= band) & (p[..., 0] < W - band) & (p[..., 1] >= band) & (p[..., 1] < H - band)

    # orphan pairs: a track ends in the interior with no detection within the linking radius of its last position
    # in the next frame (not a merge, not a large step) while, in the same transition, a track starts in the
    # interior with no detection within that radius in the previous frame: a spot vanished here and appeared there
    from scipy.spatial import cKDTree

    pres = np.isfinite(tr_all[..., 0])
    r_m = md  # no detection within the linking radius: the linker had nothing to link it to
    pairs = 0
    for n in range(T - 1):
        ends = np.nonzero(pres[n] & ~pres[n + 1])[0]
        starts = np.nonzero(~pres[n] & pres[n + 1])[0]
        if not len(ends) or not len(starts):
            continue
        pe, ps = tr_all[n, ends], tr_all[n + 1, starts]
        pe, ps = pe[interior(pe)], ps[interior(ps)]
        if not len(pe) or not len(ps):
            continue
        nxt, prv = dets[n + 1][:, :2], dets[n][:, :2]
        oe = int(np.sum(cKDTree(nxt).query(pe)[0] > r_m)) if len(nxt) else len(pe)
        ob = int(np.sum(cKDTree(prv).query(ps)[0] > r_m)) if len(prv) else len(ps)
        pairs += min(oe, ob)
    n_det = max(1, int(pres.sum()))
    births = float(pairs / n_det)
    if tr.shape[1] >= 3:
        both = interior(tr[1:]) & interior(tr[:-1])
        inc = (tr[1:] - tr[:-1])[both]
        inc = inc[np.all(np.isfinite(inc), 1)]
        if len(inc) > 20:
            mad = np.median(np.abs(inc - np.median(inc, 0)), 0) * 1.4826
            mad = np.maximum(mad, 1e-3)
            jf = float(np.mean(np.any(np.abs(inc - np.median(inc, 0)) / mad > jump_z, 1)))
        a0 = 4 if T >= 40 else 1
        a1 = max(a0 + 2, min(T // 5, 40))
        if a1 < T - 1:
            _, m, c = msd(tr, 1.0, max_lag=a1)
            good = np.isfinite(m[a0 - 1:a1]) & (m[a0 - 1:a1] > 0)
            if good.sum() >= 2:
                lt = np.log(np.arange(a0, a1 + 1))[good]
                alpha = float(np.polyfit(lt, np.log(m[a0 - 1:a1][good]), 1)[0])
    ballistic = bool(np.isfinite(alpha) and alpha > hi)
    return PhysicsFlags(alpha=alpha, alpha_range=(lo, hi), ballistic=ballistic, jump_fraction=jf,
                        teleport=bool(jf > jump_fraction or births > orphan_rate), orphan_rate=births,
                        frozen_fraction=frozen_frac,
                        frozen=bool(frozen_frac > frozen_fraction), flicker_z=fz, flicker=bool(fz > flicker_z),
                        n_tracks=int(tr.shape[1]), tracks=tr)


# ------------------------------------------------------------------------------------------ analyse
def analyse(data, kind="tracks", *, pixel_size=None, dt=None, psf_sigma=None, max_disp=None, n_lags=4,
            min_track=5, n_boot=200, rng=0, **kwargs):
    r"""Measure the physics of a simulation or a video.

    - ``kind="tracks"``: detection (:func:`detect`), linking (:func:`link`, Hungarian, trackpy-compatible
      nearest-neighbour semantics without memory), time-averaged MSD and :func:`fit_msd` (D with bootstrap SE,
      offset, alpha, drift). A :class:`Tracks` is analysed directly (no detection).
    - ``kind="field"``: mass, per-axis variance and :math:`D = \tfrac12 d\sigma^2/dt` of a :class:`Field` or of a
      video whose intensity is a concentration.
    - ``kind="colony"``: population curve and growth rate of a :class:`Colony` (or cell counts of a video).
    - ``kind="profile"``: :func:`velocity_profile` of flow tracks.
    - ``kind="flags"``: :func:`physics_flags`.

    Parameters
    ----------
    data : Video, array (T, H, W), Tracks, Field or Colony
        What to analyse.
    kind : {"tracks", "field", "colony", "profile", "flags"}
        The analysis.
    pixel_size, dt : float, optional
        um per px and s per frame; taken from a :class:`Video` when omitted (1.0 for a bare array).
    psf_sigma : float, optional
        Spot size in px (from the video's metadata, else 1.5).
    max_disp : float, optional
        Linking radius in um (default: 4 sqrt(4 D_guess dt) estimated from nearest-neighbour jumps, at least
        3 psf_sigma px).
    n_lags : int
        Lags in the MSD line fit.
    min_track : int
        Shortest track kept (frames).
    n_boot : int
        Bootstrap resamples for the standard errors.
    rng : seed
        Bootstrap seed.
    **kwargs
        Passed to :func:`fit_msd`, :func:`velocity_profile` or :func:`physics_flags`.

    Returns
    -------
    TrackAnalysis, FieldAnalysis, ColonyAnalysis, ProfileAnalysis or PhysicsFlags

    Examples
    --------
    >>> from iclr26sci.microsim import simulate, render
    >>> tr = simulate("brownian", n_particles=20, D=0.5, dt=0.05, steps=60, substeps=5, box=(12.8, 12.8), rng=0)
    >>> est = analyse(render(tr, psf_sigma=1.5, snr=10, rng=0), kind="tracks", n_boot=20)
    >>> abs(est.D / 0.5 - 1) < 0.25
    True
    """
    from ._sim import Colony, Field, Tracks

    import inspect

    kind = check_option(kind, "kind", ["tracks", "field", "colony", "profile", "flags"])
    target = {"tracks": fit_msd, "profile": velocity_profile, "flags": physics_flags, "colony": growth_rate,
              "field": None}[kind]
    own = {"positions", "dt", "n_lags", "n_boot", "rng", "video", "times", "counts", "psf_sigma", "max_disp"}
    allowed = set() if target is None else set(inspect.signature(target).parameters) - own
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        raise InputError(unknown[0], f"is not an option of analyse(kind={kind!r})",
                         ("one of " + ", ".join(sorted(allowed))) if allowed else "no extra keyword arguments")
    if kind == "flags":
        try:
            if psf_sigma is not None:
                kwargs["psf_sigma"] = psf_sigma
            if max_disp is not None:
                kwargs["max_disp"] = max_disp
            return physics_flags(data, **kwargs)
        except InputError as exc:
            if exc.argument == "video":
                raise InputError("data", exc.problem, exc.expected) from None
            raise
    if isinstance(data, (Tracks, Field, Colony)):
        fits = {"tracks": (Tracks,), "profile": (Tracks,), "field": (Field,), "colony": (Colony,)}[kind]
        if not isinstance(data, fits):
            want = {Tracks: "'tracks' or 'profile'", Field: "'field'", Colony: "'colony'"}[type(data)]
            raise InputError("kind", f"{kind!r} does not apply to a {type(data).__name__}", want)
    elif not isinstance(data, Video):
        as_frames(data, name="data")
    if psf_sigma is not None:
        psf_sigma = check_in_range(psf_sigma, "psf_sigma", 0.0, None, low_open=True)
    n_lags = check_positive_int(n_lags, "n_lags", minimum=2)
    min_track = check_positive_int(min_track, "min_track", minimum=2)
    n_boot = check_positive_int(n_boot, "n_boot", minimum=10)
    if max_disp is not None:
        check_in_range(max_disp, "max_disp", 0.0, None, low_open=True)
    if isinstance(data, Video):
        px = data.pixel_size if pixel_size is None else check_in_range(pixel_size, "pixel_size", 0.0, None, low_open=True)
        dt = data.dt if dt is None else check_in_range(dt, "dt", 0.0, None, low_open=True)
        s = data.meta.get("psf_sigma", 1.5) if psf_sigma is None else psf_sigma
    else:
        px = 1.0 if pixel_size is None else check_in_range(pixel_size, "pixel_size", 0.0, None, low_open=True)
        dt = (getattr(data, "dt", 1.0) if dt is None else check_in_range(dt, "dt", 0.0, None, low_open=True))
        s = 1.5 if psf_sigma is None else psf_sigma
    if kind == "tracks":
        if isinstance(data, Tracks):
            return fit_msd(data, n_lags=n_lags, n_boot=n_boot, rng=rng, **kwargs)
        if isinstance(data, (Field, Colony)):
            raise InputError("kind", f"'tracks' does not apply to a {type(data).__name__}", "'field' or 'colony'")
        frames = as_frames(data, name="data")
        T = frames.shape[0]
        if T < n_lags + 2:
            raise InputError("data", f"has {T} frames", f"at least {n_lags + 2} frames for an MSD over {n_lags} lags")
        dets = detect(data, psf_sigma=s)
        if max_disp is None:
            md = _auto_disp(dets, 3 * s)
        else:
            md = check_in_range(max_disp, "max_disp", 0.0, None, low_open=True) / px
        tr = link(dets, max_disp=md)
        lengths = np.isfinite(tr[..., 0]).sum(0)
        mt = check_positive_int(min_track, "min_track", minimum=2)
        tr = tr[:, lengths >= max(mt, n_lags + 1)] * px
        if tr.shape[1] < 2:
            raise InputError("data", f"gave {tr.shape[1]} tracks of >= {max(mt, n_lags + 1)} frames",
                             "a video with trackable spots (check psf_sigma and the contrast)")
        H, W = frames.shape[1:]
        kwargs.setdefault("field", (W * px, H * px))
        res = fit_msd(tr, dt, n_lags=n_lags, n_boot=n_boot, rng=rng, **kwargs)
        res.n_detections = int(sum(len(d) for d in dets))
        return res
    if kind == "profile":
        if isinstance(data, Tracks):
            return velocity_profile(data, **kwargs)
        res = analyse(data, "tracks", pixel_size=pixel_size, dt=dt, psf_sigma=psf_sigma, max_disp=max_disp,
                      n_lags=n_lags, min_track=min_track, n_boot=10, rng=rng)
        return velocity_profile(res.tracks, dt, **kwargs)
    if kind == "field":
        if isinstance(data, Field):
            c, dx, tstep = data.c, data.dx, data.dt
        elif isinstance(data, (Tracks, Colony)):
            raise InputError("kind", f"'field' does not apply to a {type(data).__name__}", "'tracks' or 'colony'")
        else:
            fr = as_frames(data, name="data")
            c = fr - np.median(fr[:, :2, :].reshape(fr.shape[0], -1), 1)[:, None, None]
            c = np.clip(c, 0, None)
            dx, tstep = px, dt
        T = c.shape[0]
        tot = c.reshape(T, -1).sum(1)
        if T < 2 or not np.all(tot > 0):
            raise InputError("data", f"has {T} frame(s) or frames with no intensity above the background",
                             "at least 2 frames, each with a spreading intensity (a concentration)")
        d = c.ndim - 1
        var = np.empty((T, d))
        for ax in range(d):
            x = (np.arange(c.shape[1 + ax]) + 0.5) * dx
            marg = c.sum(axis=tuple(a + 1 for a in range(d) if a != ax))
            m1 = marg @ x / tot
            var[:, ax] = marg @ x ** 2 / tot - m1 ** 2
        times = np.arange(T) * tstep
        slope = np.polyfit(times, var.mean(1), 1)[0]
        return FieldAnalysis(times, tot * dx ** d, var, float(slope / 2), c.reshape(T, -1).max(1))
    # colony
    if isinstance(data, Colony):
        return growth_rate(data.times, data.counts, **kwargs)
    fr = as_frames(data, name="data")
    counts = _count_blobs(fr, max(s, 1.0))
    counts = np.maximum(counts, 1)
    return growth_rate(np.arange(len(counts)) * dt, counts, **kwargs)


def _auto_disp(dets, floor):
    """Linking radius: 4 x the median nearest-neighbour jump between consecutive frames (px), at least ``floor``."""
    from scipy.spatial import cKDTree

    jumps = []
    for a, b in zip(dets[:-1], dets[1:]):
        if len(a) and len(b):
            d, _ = cKDTree(b[:, :2]).query(a[:, :2])
            jumps.append(d)
    if not jumps:
        return floor
    j = np.concatenate(jumps)
    return float(max(floor, 4 * np.median(j)))
