"""Physically grounded microscale simulators with known analytic laws.

Units throughout: micrometres (um), seconds (s), kelvin (K), pascal-seconds (Pa s) for viscosity and
piconewtons per micrometre (pN/um) for trap stiffness. Every simulator returns a result object that keeps its
parameters and the analytic law it obeys (``truth``), so a check can compare a measurement with theory.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr26sci.core import (InputError, as_generator, check_array, check_bool, check_in_range, check_memory,
                            check_option, check_positive_int)

__all__ = ["Tracks", "Field", "Colony", "simulate", "stokes_einstein", "solve_diffusion", "KB",
           "SIMULATORS"]

#: Boltzmann's constant in pN um / K (1.380649e-23 J/K)
KB = 1.380649e-5


def _pos(value, name):
    """A finite real number > 0 (D, dt, temperature, ...)."""
    return check_in_range(value, name, 0.0, None, low_open=True)


def stokes_einstein(temperature, viscosity, radius):
    r"""Stokes-Einstein diffusion coefficient of a sphere, in um^2/s.

    .. math:: D = \frac{k_B T}{6 \pi \eta a}

    Parameters
    ----------
    temperature : float
        Absolute temperature T of the fluid, in kelvin (> 0).
    viscosity : float
        Dynamic viscosity eta of the fluid, in Pa s (water at 25 C: 8.9e-4).
    radius : float
        Hydrodynamic radius a of the sphere, in um.

    Returns
    -------
    float
        D in um^2/s.

    References
    ----------
    Einstein (1905), Ann. Phys. 17, 549.

    Examples
    --------
    >>> round(stokes_einstein(298.15, 8.9e-4, 0.5), 3)
    0.491
    """
    t = _pos(temperature, "temperature")
    eta = _pos(viscosity, "viscosity")
    a = _pos(radius, "radius")
    d_si = 1.380649e-23 * t / (6.0 * math.pi * eta * a * 1e-6)  # m^2/s
    return d_si * 1e12


# ------------------------------------------------------------------------------------------ results
@dataclass(repr=False)
class Tracks:
    """Particle trajectories: ``positions[n, i, :]`` is particle i at frame n (um).

    Attributes
    ----------
    positions : ndarray (n_frames, n_particles, d)
        Positions at the frame times ``n * dt``.
    dt : float
        Frame interval, in s.
    kind : str
        Which simulator produced them.
    params : dict
        The simulator's parameters.
    truth : dict
        The analytic quantities the simulation obeys (D, variance, drift, ...).
    sub : ndarray (n_frames - 1, substeps, n_particles, d) or None
        Positions at ``substeps`` evenly spaced instants inside each frame's exposure window (for motion blur).
    box : (float, float)
        The field of view (x, y extent in um) the particles were placed in.

    Examples
    --------
    >>> tr = simulate('trap', n_particles=5, stiffness=0.04, D=0.5, steps=10, rng=0)
    >>> tr.n_frames, tr.n_particles, round(tr.truth['variance'], 4)
    (11, 5, 0.1029)
    """

    positions: np.ndarray
    dt: float
    kind: str
    params: dict = field(default_factory=dict)
    truth: dict = field(default_factory=dict)
    sub: Any = None
    box: tuple = (0.0, 0.0)

    def __post_init__(self):
        pos = check_array(self.positions, "positions", ndim=3, finite=False)
        if pos.shape[0] < 1 or pos.shape[2] not in (1, 2, 3) or np.isinf(pos).any():
            raise InputError("positions", f"has shape {pos.shape} or infinite entries",
                             "finite positions (n_frames, n_particles, d) with d in 1..3 (NaN marks absence)")
        self.positions = pos
        self.dt = _pos(self.dt, "dt")

    @property
    def n_frames(self) -> int:
        return int(self.positions.shape[0])

    @property
    def n_particles(self) -> int:
        return int(self.positions.shape[1])

    def __repr__(self):
        return (f"Tracks(kind={self.kind!r}, n_frames={self.n_frames}, n_particles={self.n_particles}, "
                f"dt={self.dt:g})")

    def summary(self) -> str:
        """One paragraph: what was simulated and its analytic law."""
        law = ", ".join(f"{k}={v:.4g}" for k, v in self.truth.items() if isinstance(v, (int, float)))
        return f"{self!r}\n  truth: {law}"

    def to_dict(self) -> dict:
        """Parameters, truth and shape (not the positions)."""
        return {"kind": self.kind, "n_frames": self.n_frames, "n_particles": self.n_particles, "dt": self.dt,
                "params": dict(self.params), "truth": dict(self.truth)}


@dataclass(repr=False)
class Field:
    """A concentration field ``c[n, ...]`` on a regular grid, at times ``n * dt``.

    Attributes
    ----------
    c : ndarray (n_frames, *grid)
    dx, dt, D : float
        Grid spacing (um), time step (s), diffusion coefficient (um^2/s).
    method : str
        ``"cn"`` (Crank-Nicolson) or ``"ftcs"``.
    stable : bool
        False when FTCS was run with ``D dt / dx^2`` above its stability bound ``1 / (2 d)``.
    courant : float
        ``D dt / dx^2``.

    Examples
    --------
    >>> f = simulate('diffusion', grid=16, dx=0.5, steps=5)
    >>> f.c.shape, f.stable
    ((6, 16, 16), True)
    """

    c: np.ndarray
    dx: float
    dt: float
    D: float
    method: str
    stable: bool
    courant: float
    kind: str = "diffusion"
    params: dict = field(default_factory=dict)
    truth: dict = field(default_factory=dict)

    def __post_init__(self):
        c = check_array(self.c, "c", ndim=(2, 3), finite=False)
        if c.shape[0] < 1 or min(c.shape[1:]) < 1:
            raise InputError("c", f"has shape {c.shape}", "a field (n_frames, *grid) with 1 or 2 grid axes")
        self.c = c
        self.dx = _pos(self.dx, "dx")
        self.dt = _pos(self.dt, "dt")
        self.D = _pos(self.D, "D")

    @property
    def n_frames(self) -> int:
        return int(self.c.shape[0])

    def coords(self, axis: int = 0) -> np.ndarray:
        """Cell-centre coordinates (um) along ``axis``."""
        n = self.c.shape[1 + axis]
        return (np.arange(n) + 0.5) * self.dx

    def mass(self) -> np.ndarray:
        """Total amount ``sum(c) dx^d`` per frame."""
        d = self.c.ndim - 1
        return self.c.reshape(self.n_frames, -1).sum(1) * self.dx ** d

    def variance(self) -> np.ndarray:
        """Per-axis spatial variance of the profile per frame, shape (n_frames, d)."""
        d = self.c.ndim - 1
        out = np.empty((self.n_frames, d))
        tot = self.c.reshape(self.n_frames, -1).sum(1)
        for ax in range(d):
            x = self.coords(ax)
            marg = self.c.sum(axis=tuple(a + 1 for a in range(d) if a != ax))
            m1 = marg @ x / tot
            out[:, ax] = marg @ (x ** 2) / tot - m1 ** 2
        return out

    def __repr__(self):
        return (f"Field(grid={self.c.shape[1:]}, n_frames={self.n_frames}, method={self.method!r}, "
                f"courant={self.courant:.3g}, stable={self.stable})")

    def summary(self) -> str:
        """One paragraph: grid, method, stability and mass drift."""
        m = self.mass()
        return f"{self!r}\n  mass drift {abs(m[-1] - m[0]) / m[0]:.2e} (relative)"

    def to_dict(self) -> dict:
        """Parameters and scalar diagnostics (not the field)."""
        return {"kind": self.kind, "grid": list(self.c.shape[1:]), "n_frames": self.n_frames, "dx": self.dx,
                "dt": self.dt, "D": self.D, "method": self.method, "stable": self.stable,
                "courant": self.courant, "params": dict(self.params), "truth": dict(self.truth)}


@dataclass(repr=False)
class Colony:
    """A dividing population (Bellman-Harris branching process).

    Attributes
    ----------
    times : ndarray
        Event times (s or any time unit of the cycle-time law) of the population curve.
    counts : ndarray
        Population size N(t) just after each event.
    birth_sizes : ndarray
        Volume of every cell at birth, in birth order.
    volume_error : float
        Largest |mother volume - sum of daughters' volumes| over all divisions.
    frames : list of (ndarray (n, 2), ndarray (n,)) or None
        Per frame: cell centres (um) and radii (um), when ``spatial=True``.
    dt : float
        Frame interval of ``frames``.
    truth : dict
        Euler-Lotka growth rate ``r`` and the parameters.

    Examples
    --------
    >>> col = simulate('division', shape=4.0, mean_cycle=1.0, n_max=100, rng=0)
    >>> int(col.counts[-1]), round(col.truth['r'], 4)
    (100, 0.7568)
    """

    times: np.ndarray
    counts: np.ndarray
    birth_sizes: np.ndarray
    volume_error: float
    frames: Any = None
    dt: float = 1.0
    kind: str = "division"
    params: dict = field(default_factory=dict)
    truth: dict = field(default_factory=dict)
    box: tuple = (0.0, 0.0)

    def __post_init__(self):
        t = check_array(self.times, "times", ndim=1)
        n = check_array(self.counts, "counts", ndim=1, nonnegative=True)
        if t.size == 0:
            raise InputError("times", "is empty", "at least one event time")
        if np.any(np.diff(t) < 0):
            raise InputError("times", "is not sorted", "non-decreasing event times")
        if n.shape != t.shape:
            raise InputError("counts", f"has {n.size} entries for {t.size} times", "one count per time")
        self.times, self.counts = t, np.asarray(self.counts)
        self.dt = _pos(self.dt, "dt")

    def count_at(self, t) -> np.ndarray:
        """N(t) at the given times (right-continuous step function)."""
        idx = np.searchsorted(self.times, np.asarray(t, float), side="right") - 1
        return self.counts[np.clip(idx, 0, None)]

    def __repr__(self):
        return f"Colony(final_count={int(self.counts[-1])}, events={len(self.times)}, r={self.truth.get('r', float('nan')):.4g})"

    def summary(self) -> str:
        """One paragraph: final size, Euler-Lotka rate, volume bookkeeping."""
        return f"{self!r}\n  volume conservation error {self.volume_error:.2e}"

    def to_dict(self) -> dict:
        """Parameters and scalar results."""
        return {"kind": self.kind, "final_count": int(self.counts[-1]), "volume_error": self.volume_error,
                "params": dict(self.params), "truth": dict(self.truth)}


# ------------------------------------------------------------------------------------------ helpers
def _diffusivity(D, temperature, viscosity, radius):
    if D is not None:
        return _pos(D, "D")
    if temperature is None or viscosity is None or radius is None:
        raise InputError("D", "got None without temperature, viscosity and radius",
                         "D > 0 (um^2/s), or all of temperature (K), viscosity (Pa s) and radius (um)")
    return stokes_einstein(temperature, viscosity, radius)


def _common(n_particles, dt, steps, substeps, d):
    n = check_positive_int(n_particles, "n_particles")
    dt = _pos(dt, "dt")
    steps = check_positive_int(steps, "steps")
    substeps = check_positive_int(substeps, "substeps")
    d = check_positive_int(d, "d")
    if d > 3:
        raise InputError("d", f"got {d}", "1, 2 or 3 spatial dimensions")
    return n, dt, steps, substeps, d


def _box(box, d, default):
    if box is None:
        return (float(default),) * 2
    b = np.atleast_1d(check_array(box, "box", ndim=(0, 1)))
    if b.size not in (1, 2) or np.any(b <= 0) or np.any(~np.isfinite(b)):
        raise InputError("box", f"got {box!r}", "a positive side length (um) or an (x, y) pair")
    return (float(b[0]), float(b[-1]))


def _check_size(n_values, what):
    """Refuse a simulation whose float64 arrays would not fit in memory (before allocating them)."""
    check_memory(8.0 * n_values, what, "the simulated positions")


def _with_sub(fine, steps, substeps, exposure):
    """Split a fine path (steps * substeps + 1, N, d) into frames and per-frame exposure sub-positions."""
    frames = fine[::substeps]
    if substeps == 1:
        return frames, None
    # sub-positions inside [t_n, t_n + exposure*dt]: the first ceil(exposure*substeps) fine points of frame n
    m = max(1, int(round(exposure * substeps)))
    idx = np.arange(steps)[:, None] * substeps + np.arange(m)[None, :]
    return frames, fine[idx]


# ------------------------------------------------------------------------------------------ simulators
def _brownian(*, n_particles=200, D=None, dt=0.05, steps=400, d=2, box=None, drift=None, temperature=None,
              viscosity=8.9e-4, radius=None, substeps=1, exposure=1.0, rng=None, variant=None):
    n, dt, steps, substeps, d = _common(n_particles, dt, steps, substeps, d)
    if D is None and temperature is None:
        raise InputError("D", "got None", "D > 0 (um^2/s), or temperature, viscosity and radius")
    D = _diffusivity(D, temperature, viscosity, radius)
    exposure = check_in_range(exposure, "exposure", 0.0, 1.0, low_open=True)
    v = np.zeros(d) if drift is None else check_array(drift, "drift", ndim=1, shape=(d,))
    _variant(variant, ("half_variance", "correlated"))
    _check_size(2.0 * n * d * (steps * substeps + 1), "n_particles")
    g = as_generator(rng)
    L = _box(box, d, 25.6)
    h = dt / substeps
    x0 = g.uniform(0.0, 1.0, size=(n, d)) * np.array(L[:d] if d <= 2 else (L[0], L[1], L[0]))
    scale = math.sqrt(2.0 * D * h)
    if variant == "half_variance":  # broken: sqrt(D dt) instead of sqrt(2 D dt)
        scale = math.sqrt(D * h)
    xi = g.standard_normal((steps * substeps, n, d))
    if variant == "correlated":  # broken: AR(1) increments (lag-1 correlation 0.3)
        for k in range(1, xi.shape[0]):
            xi[k] = 0.3 * xi[k - 1] + math.sqrt(1 - 0.09) * xi[k]
    inc = scale * xi + v * h
    fine = np.concatenate([x0[None], x0[None] + np.cumsum(inc, axis=0)], axis=0)
    pos, sub = _with_sub(fine, steps, substeps, exposure)
    m = max(1, int(round(exposure * substeps))) if substeps > 1 else 0
    # frame = average of m instants spaced h: MSD(tau) = 2 d D (tau - (t_E / 3)(1 - 1/m^2)), t_E = m h
    truth = {"D": D, "msd_slope": 2 * d * D, "alpha": 1.0, "exposure_time": m * h,
             "blur_lag": (m * h / 3.0) * (1 - 1.0 / m ** 2) if m else 0.0}
    if drift is not None:
        truth["drift"] = v.tolist()
    return Tracks(pos, dt, "brownian", params=dict(n_particles=n, D=D, dt=dt, steps=steps, d=d, substeps=substeps,
                                                    exposure=exposure), truth=truth, sub=sub, box=L)


def _trap(*, n_particles=200, D=None, stiffness=1e-3, temperature=298.15, dt=0.05, steps=400, d=2, box=None,
          viscosity=8.9e-4, radius=None, substeps=1, exposure=1.0, method="exact", rng=None):
    n, dt, steps, substeps, d = _common(n_particles, dt, steps, substeps, d)
    T = _pos(temperature, "temperature")
    kappa = _pos(stiffness, "stiffness")
    D = _pos(D, "D") if D is not None else _diffusivity(None, T, viscosity, radius)
    method = check_option(method, "method", ["exact", "euler"])
    exposure = check_in_range(exposure, "exposure", 0.0, 1.0, low_open=True)
    _check_size(2.0 * n * d * (steps * substeps + 1), "n_particles")
    kT = KB * T
    k = kappa * D / kT  # relaxation rate kappa / gamma, 1/s
    var = kT / kappa  # stationary variance per axis, um^2
    g = as_generator(rng)
    L = _box(box, d, 25.6)
    centres = g.uniform(0.15, 0.85, size=(n, d)) * np.array([L[0], L[1], L[0]][:d])
    h = dt / substeps
    x = g.standard_normal((n, d)) * math.sqrt(var)
    fine = np.empty((steps * substeps + 1, n, d))
    fine[0] = x
    if method == "exact":
        a, s = math.exp(-k * h), math.sqrt(var * (1 - math.exp(-2 * k * h)))
    else:  # Euler-Maruyama: biased stationary variance var / (1 - k h / 2)
        a, s = 1.0 - k * h, math.sqrt(2 * D * h)
    xi = g.standard_normal((steps * substeps, n, d))
    for j in range(steps * substeps):
        x = a * x + s * xi[j]
        fine[j + 1] = x
    fine += centres
    pos, sub = _with_sub(fine, steps, substeps, exposure)
    truth = {"D": D, "k": k, "variance": var, "plateau": 2 * d * var, "stiffness": kappa, "kT": kT,
             "centres": centres.tolist()}
    return Tracks(pos, dt, "trap", params=dict(n_particles=n, D=D, stiffness=kappa, temperature=T, dt=dt,
                                                steps=steps, d=d, method=method),
                  truth=truth, sub=sub, box=L)


def _chemotaxis(*, n_particles=500, mode="langevin", D=0.5, chi=1.0, gradient=(0.2, 0.0), dt=0.05, steps=400,
                speed=20.0, tumble_rate=1.0, beta=0.0, box=None, substeps=1, exposure=1.0, rng=None,
                variant=None):
    n, dt, steps, substeps, _ = _common(n_particles, dt, steps, substeps, 2)
    mode = check_option(mode, "mode", ["langevin", "run_tumble"])
    grad = check_array(gradient, "gradient", ndim=1, shape=(2,))
    exposure = check_in_range(exposure, "exposure", 0.0, 1.0, low_open=True)
    _variant(variant, ("no_drift",))
    _check_size(2.0 * n * 2 * (steps * substeps + 1), "n_particles")
    if mode == "langevin":
        _pos(D, "D")
        check_in_range(chi, "chi", None, None)
    else:
        _pos(speed, "speed")
        _pos(tumble_rate, "tumble_rate")
        check_in_range(beta, "beta", 0.0, None)
    g = as_generator(rng)
    L = _box(box, 2, 25.6)
    x0 = g.uniform(0.0, 1.0, size=(n, 2)) * np.array(L)
    h = dt / substeps
    m = steps * substeps
    if mode == "langevin":
        D = _pos(D, "D")
        chi = check_in_range(chi, "chi", None, None)
        v = chi * grad
        if variant == "no_drift":
            v = np.zeros(2)
        inc = math.sqrt(2 * D * h) * g.standard_normal((m, n, 2)) + v * h
        fine = np.concatenate([x0[None], x0[None] + np.cumsum(inc, 0)], 0)
        truth = {"D": D, "drift": v.tolist() if variant != "no_drift" else (chi * grad).tolist(), "alpha": 1.0}
        params = dict(mode=mode, D=D, chi=chi, gradient=grad.tolist())
    else:
        v0 = _pos(speed, "speed")
        lam0 = _pos(tumble_rate, "tumble_rate")
        beta = check_in_range(beta, "beta", 0.0, None)
        theta = g.uniform(0, 2 * math.pi, n)
        fine = np.empty((m + 1, n, 2))
        fine[0] = x0
        x = x0.copy()
        u = g.random((m, n))
        newdir = g.uniform(0, 2 * math.pi, (m, n))
        for j in range(m):
            e = np.stack([np.cos(theta), np.sin(theta)], 1)
            dcdt = v0 * (e @ grad)
            lam = lam0 * np.exp(-beta * dcdt)
            x = x + v0 * h * e
            tumble = u[j] < -np.expm1(-lam * h)
            theta = np.where(tumble, newdir[j], theta)
            fine[j + 1] = x
        truth = {"D_eff": v0 ** 2 / (2 * lam0), "speed": v0, "tumble_rate": lam0}
        params = dict(mode=mode, speed=v0, tumble_rate=lam0, beta=beta, gradient=grad.tolist())
    pos, sub = _with_sub(fine, steps, substeps, exposure)
    params.update(n_particles=n, dt=dt, steps=steps)
    return Tracks(pos, dt, "chemotaxis", params=params, truth=truth, sub=sub, box=L)


def _poiseuille(*, n_particles=300, u_max=2.0, radius=10.0, D=0.05, dt=0.05, steps=200, length=None,
                substeps=1, exposure=1.0, rng=None, density=1000.0, viscosity=8.9e-4, variant=None):
    """Particles in a slit channel |y - R| < R (walls reflecting), flow along x with u(y) = u_max (1 - r^2/R^2)."""
    n, dt, steps, substeps, _ = _common(n_particles, dt, steps, substeps, 2)
    umax = _pos(u_max, "u_max")
    R = _pos(radius, "radius")
    D = check_in_range(D, "D", 0.0, None)
    Lx = 2.5 * 2 * R if length is None else _pos(length, "length")
    exposure = check_in_range(exposure, "exposure", 0.0, 1.0, low_open=True)
    density = _pos(density, "density")
    viscosity = _pos(viscosity, "viscosity")
    _variant(variant, ("plug",))
    _check_size(2.0 * n * 2 * (steps * substeps + 1), "n_particles")
    g = as_generator(rng)
    h = dt / substeps
    m = steps * substeps
    x = np.stack([g.uniform(0, Lx, n), g.uniform(0, 2 * R, n)], 1)
    fine = np.empty((m + 1, n, 2))
    fine[0] = x
    s = math.sqrt(2 * D * h)
    for j in range(m):
        r = x[:, 1] - R
        u = umax * (1 - (r / R) ** 2)
        if variant == "plug":
            u = np.full(n, 2 * umax / 3)
        x = x + np.stack([u * h, np.zeros(n)], 1) + s * g.standard_normal((n, 2))
        y = x[:, 1]
        y = np.where(y < 0, -y, y)
        y = np.where(y > 2 * R, 4 * R - y, y)
        x[:, 1] = y
        fine[j + 1] = x
    pos, sub = _with_sub(fine, steps, substeps, exposure)
    reynolds = density * (umax * 1e-6) * (2 * R * 1e-6) / viscosity
    truth = {"u_max": umax, "radius": R, "centre": R, "D": D, "reynolds": reynolds}
    return Tracks(pos, dt, "poiseuille", params=dict(n_particles=n, u_max=umax, radius=R, D=D, dt=dt, steps=steps),
                  truth=truth, sub=sub, box=(Lx, 2 * R))


def _division(*, n0=1, shape=4.0, scale=None, mean_cycle=1.0, deterministic=False, t_max=None, n_max=20000,
              adder=None, growth_rate=None, adder_cv=0.1, spatial=False, frame_dt=None, cell_radius=1.0,
              rng=None, variant=None):
    """Bellman-Harris branching with Gamma(shape, scale) cycle times, or an adder size-control model."""
    n0 = check_positive_int(n0, "n0")
    n_max = check_positive_int(n_max, "n_max", minimum=2)
    deterministic = check_bool(deterministic, "deterministic")
    spatial = check_bool(spatial, "spatial")
    _variant(variant, ("exponential",))
    if spatial:
        cell_radius = _pos(cell_radius, "cell_radius")
        if frame_dt is not None:
            _pos(frame_dt, "frame_dt")
    if t_max is not None:
        _pos(t_max, "t_max")
    g = as_generator(rng)
    if adder is None:
        kappa = _pos(shape, "shape")
        theta = _pos(scale, "scale") if scale is not None else _pos(mean_cycle, "mean_cycle") / kappa
        mean = kappa * theta
        r = math.log(2) / mean if deterministic else (2 ** (1 / kappa) - 1) / theta

        def cycle(size):
            if deterministic:
                return mean
            if variant == "exponential":  # broken: ignores the Gamma shape
                return g.exponential(mean)
            return g.gamma(kappa, theta)
        gr = math.log(2) / mean if growth_rate is None else _pos(growth_rate, "growth_rate")
    else:
        delta = _pos(adder, "adder")
        gr = _pos(growth_rate if growth_rate is not None else math.log(2) / mean_cycle, "growth_rate")
        cv = check_in_range(adder_cv, "adder_cv", 0.0, None)
        r = gr  # balanced growth: population grows at the single-cell exponential rate

        def cycle(size):
            add = delta * (g.gamma(1 / cv ** 2, cv ** 2) if cv > 0 else 1.0)
            return math.log((size + add) / size) / gr
        kappa = theta = float("nan")
    t_max = float("inf") if t_max is None else _pos(t_max, "t_max")
    # each cell: (division time, id); sizes grow exponentially at gr between birth and division
    heap, birth_t, birth_v, parent_pos = [], [], [], []
    size0 = 1.0 if adder is None else float(adder)
    for i in range(n0):
        age_frac = g.random() if n0 > 1 else 0.0
        tau = cycle(size0)
        birth_t.append(-age_frac * tau)
        birth_v.append(size0)
        heapq.heappush(heap, (birth_t[-1] + tau, i))
    times, counts, sizes = [0.0], [n0], list(birth_v)
    vol_err = 0.0
    alive = n0
    events = []  # (time, mother id, daughter ids)
    while heap and alive < n_max:
        t, i = heapq.heappop(heap)
        if t > t_max:
            break
        v_div = birth_v[i] * math.exp(gr * (t - birth_t[i]))
        for _ in range(2):
            j = len(birth_t)
            birth_t.append(t)
            birth_v.append(v_div / 2)
            heapq.heappush(heap, (t + cycle(v_div / 2), j))
        vol_err = max(vol_err, abs(v_div - (birth_v[-1] + birth_v[-2])) / v_div)
        alive += 1
        times.append(t)
        counts.append(alive)
        events.append((t, i, len(birth_t) - 2, len(birth_t) - 1))
    frames = None
    fdt = 1.0
    if spatial:
        fdt = _pos(frame_dt if frame_dt is not None else (0.05 * (kappa * theta if adder is None else 1 / gr)),
                   "frame_dt")
        frames = _colony_frames(events, n0, times[-1], fdt, cell_radius, g)
    truth = {"r": r, "shape": kappa, "scale": theta, "growth_rate": gr}
    if adder is not None:
        truth["adder"] = float(adder)
    return Colony(np.asarray(times), np.asarray(counts), np.asarray(birth_v[n0:]), vol_err, frames=frames, dt=fdt,
                  params=dict(n0=n0, shape=kappa, scale=theta, deterministic=deterministic, adder=adder),
                  truth=truth, box=(25.6, 25.6))


def _colony_frames(events, n0, t_end, fdt, r0, g):
    """Disk colony: daughters placed either side of the mother along a random axis, then overlaps relaxed."""
    box = 25.6
    pos = {i: np.array([box / 2, box / 2]) + g.normal(0, 2 * r0, 2) for i in range(n0)}
    frames = []
    k = 0
    for t in np.arange(0.0, t_end, fdt):
        while k < len(events) and events[k][0] <= t:
            _, m, a, b = events[k]
            ang = g.uniform(0, 2 * np.pi)
            e = np.array([np.cos(ang), np.sin(ang)]) * r0 * 0.6
            p = pos.pop(m)
            pos[a], pos[b] = p + e, p - e
            k += 1
        ids = list(pos)
        P = np.array([pos[i] for i in ids])
        for _ in range(10):  # soft-disk relaxation
            diff = P[:, None] - P[None]
            dist = np.sqrt((diff ** 2).sum(-1)) + np.eye(len(P))
            over = np.clip(2 * r0 - dist, 0, None) * (1 - np.eye(len(P)))
            P = P + 0.25 * (over[..., None] * diff / dist[..., None]).sum(1)
        for i, p in zip(ids, P):
            pos[i] = p
        frames.append((P.copy(), np.full(len(P), r0)))
    return frames


def solve_diffusion(c0, D, dx, dt, steps, *, method="cn", save_every=1):
    r"""Solve :math:`\partial_t c = D \nabla^2 c` on a regular grid with no-flux (Neumann) walls.

    The Laplacian is the finite-volume 2d+1-point stencil with reflecting ghost cells, whose columns sum to
    zero, so the total amount :math:`\sum c\,\Delta x^d` is conserved to round-off by both schemes.

    - ``"ftcs"``: :math:`c^{n+1} = c^n + r L c^n` with :math:`r = D\Delta t/\Delta x^2`; stable only for
      :math:`r \le 1/(2d)`; a run above the bound is returned with ``stable=False`` (and blows up).
    - ``"cn"``: Crank-Nicolson :math:`(I - \tfrac r2 L) c^{n+1} = (I + \tfrac r2 L) c^n`, unconditionally
      stable and second order in space and time; solved with a sparse LU factorisation made once.

    Parameters
    ----------
    c0 : array-like (n,) or (ny, nx)
        Initial concentration on cell centres.
    D : float
        Diffusion coefficient (um^2/s), > 0.
    dx : float
        Grid spacing (um), > 0.
    dt : float
        Time step (s), > 0.
    steps : int
        Number of time steps.
    method : {"cn", "ftcs"}
        The scheme.
    save_every : int
        Keep every k-th step (the first and the last are always kept).

    Returns
    -------
    Field

    Examples
    --------
    >>> import numpy as np
    >>> x = (np.arange(200) + 0.5) * 0.1
    >>> f = solve_diffusion(np.exp(-(x - 10) ** 2 / 2), D=1.0, dx=0.1, dt=0.01, steps=100)
    >>> round(float(f.variance()[-1, 0] - f.variance()[0, 0]), 4)   # 2 D t = 2
    2.0
    """
    c = check_array(c0, "c0", ndim=(1, 2), nonnegative=True)
    if min(c.shape) < 3:
        raise InputError("c0", f"has shape {c.shape}", "at least 3 cells per axis")
    D = _pos(D, "D")
    dx = _pos(dx, "dx")
    dt = _pos(dt, "dt")
    steps = check_positive_int(steps, "steps")
    method = check_option(method, "method", ["cn", "ftcs"])
    save_every = check_positive_int(save_every, "save_every")
    d = c.ndim
    r = D * dt / dx ** 2
    stable = method == "cn" or r <= 1.0 / (2 * d) + 1e-12
    L = _laplacian(c.shape)
    out = [c.copy()]
    flat = c.ravel().copy()
    if method == "cn":
        import scipy.sparse as sp
        from scipy.sparse.linalg import splu

        eye = sp.identity(flat.size, format="csc")
        lu = splu((eye - 0.5 * r * L).tocsc())
        B = (eye + 0.5 * r * L).tocsr()
        step = lambda v: lu.solve(B @ v)  # noqa: E731
    else:
        Lr = (r * L).tocsr()
        step = lambda v: v + Lr @ v  # noqa: E731
    with np.errstate(over="ignore", invalid="ignore"):
        for n in range(1, steps + 1):
            flat = step(flat)
            if n % save_every == 0 or n == steps:
                out.append(flat.reshape(c.shape).copy())
    return Field(np.stack(out), dx, dt * save_every, D, method, bool(stable), float(r),
                 params=dict(steps=steps, save_every=save_every, dt_step=dt))


def _laplacian(shape):
    import scipy.sparse as sp

    def lap1(n):
        main = -2.0 * np.ones(n)
        main[0] = main[-1] = -1.0  # reflecting ghost cell: no flux through the wall
        return sp.diags([np.ones(n - 1), main, np.ones(n - 1)], [-1, 0, 1], format="csr")

    if len(shape) == 1:
        return lap1(shape[0])
    ny, nx = shape
    return sp.kron(sp.identity(ny), lap1(nx)) + sp.kron(lap1(ny), sp.identity(nx))


def _variant(variant, known):
    """The deliberately broken variants used by the validation checks (None: the correct simulator)."""
    if variant is not None and (not isinstance(variant, str) or variant not in known):
        raise InputError("variant", f"got {variant!r}", "None or one of " + ", ".join(repr(k) for k in known))
    return variant


def _diffusion(*, grid=64, dx=0.5, D=0.5, sigma0=2.0, dt=0.1, steps=200, method="cn", save_every=1, centre=None,
               rng=None):
    grid = check_positive_int(grid, "grid", minimum=3)
    dx = _pos(dx, "dx")
    s0 = _pos(sigma0, "sigma0")
    x = (np.arange(grid) + 0.5) * dx
    cx = grid * dx / 2 if centre is None else check_in_range(centre, "centre", 0.0, grid * dx)
    g1 = np.exp(-(x - cx) ** 2 / (2 * s0 ** 2))
    c0 = np.outer(g1, g1)
    c0 /= c0.sum() * dx ** 2
    f = solve_diffusion(c0, D, dx, dt, steps, method=method, save_every=save_every)
    f.truth = {"sigma0_sq": s0 ** 2, "D": f.D, "variance_slope": 2 * f.D}
    f.params.update(grid=grid, sigma0=s0)
    return f


#: kind -> simulator; every simulator takes keyword parameters and ``rng``
SIMULATORS = {"brownian": _brownian, "trap": _trap, "chemotaxis": _chemotaxis, "poiseuille": _poiseuille,
              "division": _division, "diffusion": _diffusion}


def simulate(kind, *, rng=None, **params):
    r"""Run one of the microscale simulators; each obeys a known analytic law.

    Kinds and their laws (units um, s, K):

    - ``"brownian"``: free diffusion, exact update :math:`x_{n+1} = x_n + \sqrt{2D\Delta t}\,\xi`;
      :math:`\mathrm{MSD}(\tau) = 2dD\tau`. Give ``D`` or (``temperature``, ``viscosity``, ``radius``) for
      Stokes-Einstein :math:`D = k_BT/(6\pi\eta a)`. Parameters ``n_particles, D, dt, steps, d, box, drift,
      substeps, exposure``.
    - ``"trap"``: optical trap (Ornstein-Uhlenbeck), exact update
      :math:`x_{n+1} = x_n e^{-k\Delta t} + \sqrt{(D/k)(1-e^{-2k\Delta t})}\,\xi`, :math:`k = \kappa D/k_BT`;
      stationary variance :math:`k_BT/\kappa` per axis, :math:`\mathrm{MSD}(\tau) = 2d(k_BT/\kappa)(1-e^{-k\tau})`.
      Parameters ``stiffness`` (pN/um), ``temperature``, ``D``, ``method`` (``"exact"`` or ``"euler"``).
    - ``"chemotaxis"``: ``mode="langevin"``: :math:`dx = \chi\nabla c\,dt + \sqrt{2D}\,dW` in a linear
      attractant (drift :math:`\chi\nabla c`); ``mode="run_tumble"``: speed v, tumble rate
      :math:`\lambda = \lambda_0 e^{-\beta\,dc/dt}`, uniform re-orientation; :math:`D_{eff} = v^2/(d\lambda_0)`
      at :math:`\beta = 0`.
    - ``"poiseuille"``: tracers in a slit channel of half-width R, :math:`u(r) = u_{max}(1 - r^2/R^2)` plus
      diffusion, reflecting walls; Reynolds number :math:`\rho u L/\eta` in ``truth``.
    - ``"division"``: Bellman-Harris population with Gamma(``shape``, ``scale``) cycle times and symmetric
      binary fission; Euler-Lotka rate :math:`r = (2^{1/\kappa}-1)/\theta` (:math:`\ln 2/T` when
      ``deterministic``); ``adder=Delta`` for adder size control (mean birth size tends to Delta);
      ``spatial=True`` keeps disk positions per frame for rendering.
    - ``"diffusion"``: a Gaussian blob under :math:`\partial_t c = D\nabla^2 c` with no-flux walls
      (:func:`solve_diffusion`); :math:`\sigma^2(t) = \sigma_0^2 + 2Dt` per axis.

    Parameters
    ----------
    kind : str
        One of ``"brownian", "trap", "chemotaxis", "poiseuille", "division", "diffusion"``.
    rng : None, int, SeedSequence or Generator
        The seed (SPEC 7).
    **params
        The kind's parameters (above); D, dt and temperature must be > 0.

    Returns
    -------
    Tracks, Field or Colony

    References
    ----------
    Wang et al. (2026), MicroVerse: A Preliminary Exploration Toward a Micro-World Simulation, ICLR
    (arXiv:2603.00585) -- the benchmark's physics content; the laws are textbook (Einstein 1905; Uhlenbeck and
    Ornstein 1930; Berg 1993 for run-and-tumble; Bellman and Harris 1948; Savin and Doyle 2005 for blur).

    Examples
    --------
    >>> tr = simulate("brownian", n_particles=50, D=0.5, dt=0.05, steps=100, rng=0)
    >>> tr.positions.shape, tr.truth["D"]
    ((101, 50, 2), 0.5)
    >>> simulate("brownian", D=-1.0)
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `D`: got -1; expected a number in (0.0, inf)
    """
    kind = check_option(kind, "kind", list(SIMULATORS))
    import inspect

    fn = SIMULATORS[kind]
    allowed = set(inspect.signature(fn).parameters) - {"variant"}
    if "variant" in params and "variant" not in inspect.signature(fn).parameters:
        raise InputError("variant", f"the {kind!r} simulator has no variants", "no variant argument")
    unknown = sorted(set(params) - allowed - {"variant"})
    if unknown:
        raise InputError(unknown[0], f"is not a parameter of the {kind!r} simulator",
                         "one of " + ", ".join(sorted(allowed)))
    return fn(rng=rng, **params)
