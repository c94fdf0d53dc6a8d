"""Pinball loss, weighted quantiles and truncated-normal moments."""
from __future__ import annotations

import numpy as np
from scipy.special import log_ndtr

from ..core import InputError, check_array, check_in_range

__all__ = ["pinball_loss", "weighted_quantile", "truncated_normal_moments"]


def pinball_loss(y, q, tau: float, *, reduce: str = "mean"):
    r"""Pinball (check) loss of the :math:`\tau`-quantile prediction ``q`` for outcomes ``y``.

    .. math:: \rho_\tau(u) = u\,(\tau - \mathbb 1\{u < 0\}),\qquad u = y - q .

    Its expectation is minimised by the conditional :math:`\tau`-quantile.

    Parameters
    ----------
    y, q : array-like (broadcastable)
    tau : float in (0, 1)
    reduce : {"mean", "sum", "none"}
    """
    tau = check_in_range(tau, "tau", 0.0, 1.0, low_open=True, high_open=True)
    y = check_array(y, "y", ndim=None)
    q = check_array(q, "q", ndim=None)
    try:
        u = y - q
    except ValueError:
        raise InputError("q", f"has shape {q.shape}, not broadcastable with y {y.shape}", "matching shapes") from None
    loss = np.maximum(tau * u, (tau - 1.0) * u)
    if reduce == "mean":
        return float(loss.mean())
    if reduce == "sum":
        return float(loss.sum())
    if reduce == "none":
        return loss
    raise InputError("reduce", f"got {reduce!r}", "'mean', 'sum' or 'none'")


def weighted_quantile(x, tau, weights=None):
    r"""Left-continuous weighted quantile :math:`\inf\{t : \sum_i w_i 1\{x_i\le t\} \ge \tau \sum_i w_i\}`.

    ``tau`` may be a scalar or an array of levels in [0, 1].
    """
    x = check_array(x, "x", ndim=1)
    if x.size == 0:
        raise InputError("x", "is empty", "at least one value")
    t = np.asarray(tau, dtype=float)
    if np.any((t < 0) | (t > 1)) or not np.all(np.isfinite(t)):
        raise InputError("tau", "has values outside [0, 1]", "levels in [0, 1]")
    if weights is None:
        w = np.ones_like(x)
    else:
        w = check_array(weights, "weights", shape=(x.size,), nonnegative=True)
        if w.sum() <= 0:
            raise InputError("weights", "sum to zero", "a positive total weight")
    order = np.argsort(x, kind="stable")
    xs, cw = x[order], np.cumsum(w[order])
    cw /= cw[-1]
    idx = np.minimum(np.searchsorted(cw, t - 1e-12, side="left"), xs.size - 1)
    out = xs[idx]
    return float(out) if out.ndim == 0 else out


def truncated_normal_moments(mu, sigma, lower=-np.inf, upper=np.inf):
    r"""Mean and variance of :math:`X\sim N(\mu,\sigma^2)` conditioned on :math:`a < X < b`.

    With :math:`\alpha=(a-\mu)/\sigma`, :math:`\beta=(b-\mu)/\sigma`,
    :math:`Z=\Phi(\beta)-\Phi(\alpha)`:

    .. math::

        E[X] = \mu + \sigma\frac{\phi(\alpha)-\phi(\beta)}{Z},\qquad
        \mathrm{Var}[X] = \sigma^2\Big[1 + \frac{\alpha\phi(\alpha)-\beta\phi(\beta)}{Z}
        - \Big(\frac{\phi(\alpha)-\phi(\beta)}{Z}\Big)^2\Big].

    Vectorised (all arguments broadcast). The ratios are evaluated in log
    space, so far tails (|alpha| up to ~1e3) stay accurate.

    Returns
    -------
    mean, var : ndarray or float
    """
    mu, sigma, lo, hi = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (mu, sigma, lower, upper)))
    if np.any(~(sigma > 0)):
        raise InputError("sigma", "has non-positive entries", "standard deviations > 0")
    if np.any(~(hi > lo)):
        raise InputError("upper", "is not above lower everywhere", "lower < upper")
    a = (lo - mu) / sigma
    b = (hi - mu) / sigma
    # Work in the tail where Phi is small: reflect so that a is the nearer-to-mass side.
    flip = a > -b  # interval lies mostly in the upper tail -> reflect X -> -X
    a2 = np.where(flip, -b, a)
    b2 = np.where(flip, -a, b)
    # Z = Phi(b2) - Phi(a2) with log-space stability
    log_pb, log_pa = log_ndtr(b2), log_ndtr(a2)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        logZ = log_pb + np.log1p(-np.exp(np.minimum(log_pa - log_pb, 0.0)))
        def ratio(t):  # phi(t)/Z, 0 at +-inf
            val = np.exp(-0.5 * t * t - 0.5 * np.log(2 * np.pi) - logZ)
            return np.where(np.isfinite(t), val, 0.0)
        ra, rb = ratio(a2), ratio(b2)
        ta = np.where(np.isfinite(a2), a2 * ra, 0.0)
        tb = np.where(np.isfinite(b2), b2 * rb, 0.0)
    m_std = ra - rb
    v_std = 1.0 + ta - tb - m_std ** 2
    m_std = np.where(flip, -m_std, m_std)
    mean = mu + sigma * m_std
    var = sigma ** 2 * np.clip(v_std, 0.0, None)
    if mean.ndim == 0:
        return float(mean), float(var)
    return mean, var
