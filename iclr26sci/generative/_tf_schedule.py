r"""TempFlow-GRPO's schedule pieces: the SD3 time-shifted grid, the noise-aware step weights and the
group-normalised advantages. numpy only (no torch)."""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from iclr26sci.core import InputError, check_in_range, check_option, check_positive_int

#: the hard-coded constant of the official TempFlow-GRPO code (the mean-one normaliser of T = 10, shift 3, a = 0.7)
OFFICIAL_OMEGA_CONSTANT = 2.25

WEIGHTINGS = ("computed", "official", "sigma", "none")


def _check_steps(steps, name="steps"):
    if isinstance(steps, (bool, np.bool_)) or not isinstance(steps, (Integral, np.integer)) or int(steps) < 2:
        raise InputError(name, f"got {steps!r}", "an integer >= 2 (number of sampling steps)")
    return int(steps)


def _check_shift(shift):
    return check_in_range(shift, "shift", 0.0, low_open=True)


def sd3_sigmas(steps, shift=3.0, num_train_timesteps=1000):
    """diffusers' ``FlowMatchEulerDiscreteScheduler(shift).set_timesteps(steps)`` sigmas (steps + 1 values, 1 -> 0)."""
    steps = _check_steps(steps)
    shift = _check_shift(shift)
    n = check_positive_int(num_train_timesteps, "num_train_timesteps")

    def sh(s):
        return shift * s / (1 + (shift - 1) * s)

    s_min = sh(1.0 / n)
    raw = np.linspace(1.0, s_min, steps)
    out = np.r_[sh(raw), 0.0]
    out[0] = 1.0
    return out


def sd3_times(steps, shift=3.0):
    """The SD3 grid in the nn convention: increasing times ``1 - sigmas`` from exactly 0 (noise) to 1 (data)."""
    t = 1.0 - sd3_sigmas(steps, shift)
    t[0], t[-1] = 0.0, 1.0
    return t


def step_noise_scales(times, noise_level=0.7):
    r"""Per-step noise :math:`\sigma_k` and step std :math:`\sigma_k \sqrt{|\Delta t_k|}` of Flow-GRPO's SDE on an
    increasing nn-convention grid (t = 0 noise); at :math:`t_0 = 0` the denominator uses :math:`t_1` (the code's
    rule). Returns ``(sigma, std)``, each of length ``len(times) - 1``."""
    t = np.asarray(times, dtype=float)
    h = np.diff(t)
    te = np.where(t[:-1] == 0, t[1], t[:-1])
    sigma = noise_level * np.sqrt((1 - t[:-1]) / te)
    return sigma, sigma * np.sqrt(np.abs(h))


def noise_aware_weights_np(times, noise_level=0.7, weighting="computed", trained=None):
    """Core of :func:`iclr26sci.generative.tempflow.noise_aware_weights` on a validated grid."""
    sigma, std = step_noise_scales(times, noise_level)
    K = len(std) if trained is None else int(trained)
    if weighting == "none":
        return np.ones(K)
    if weighting == "official":
        return OFFICIAL_OMEGA_CONSTANT * std[:K]
    base = std[:K] if weighting == "computed" else sigma[:K]
    m = base.mean()
    if not np.isfinite(m) or m <= 0:
        raise InputError("noise_level", f"gives weights with mean {m}", "a noise level > 0")
    return base / m


def group_normalise(R, axis, eps=1e-4, clip=5.0):
    r"""Group-normalised advantages :math:`(R - \bar R)/(s_R + \epsilon)` along ``axis`` (population std, as the
    official trackers), clipped to ``[-clip, clip]``."""
    R = np.asarray(R, dtype=float)
    mu = R.mean(axis=axis, keepdims=True)
    sd = R.std(axis=axis, keepdims=True)
    A = (R - mu) / (sd + eps)
    if clip is not None:
        A = np.clip(A, -clip, clip)
    return A


def check_weighting(weighting):
    return check_option(weighting, "weighting", list(WEIGHTINGS))


def _is_real(x):
    return isinstance(x, Real) and not isinstance(x, bool)
