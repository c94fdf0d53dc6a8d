"""Pinball loss, weighted quantiles and truncated-normal moments."""
from __future__ import annotations

import numpy as np

from ..core import InputError, check_array, check_in_range

__all__ = ["pinball_loss", "weighted_quantile", "truncated_normal_moments"]


def pinball_loss(y, q, tau: float, *, reduce: str = "mean"):
    r"""Pinball (check) loss of the :math:`\tau`-quantile prediction ``q`` for outcomes ``y``.

    .. math:: \rho_\tau(u) = u\,(\tau - \mathbb 1\{u < 0\}),\qquad u = y - q .

    Its expectation is minimised by the conditional :math:`\tau`-quantile.

    Parameters
    ----------
    y : array-like
        Observed outcomes (finite; at least one).
    q : array-like, broadcastable with ``y``
        Predicted :math:`\tau`-quantiles (a scalar predicts the same quantile for every outcome).
    tau : float in (0, 1)
        Quantile level being predicted (0.5 gives half the absolute error).
    reduce : {"mean", "sum", "none"}
        Average the losses, add them, or return them elementwise.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> pinball_loss([1.0, 2.0, 3.0], 2.0, tau=0.5)   # half the mean absolute error
    0.3333333333333333
    >>> pinball_loss([0.0, 10.0], [1.0, 1.0], tau=0.9, reduce="none")
    array([0.1, 8.1])
    """
    tau = check_in_range(tau, "tau", 0.0, 1.0, low_open=True, high_open=True)
    from ..core import check_option

    check_option(reduce, "reduce", ["mean", "sum", "none"])
    y = check_array(y, "y", ndim=None)
    q = check_array(q, "q", ndim=None)
    try:
        u = y - q
    except ValueError:
        raise InputError("q", f"has shape {q.shape}, not broadcastable with y {y.shape}", "matching shapes") from None
    if u.size == 0:
        raise InputError("y", "is empty", "at least one outcome")
    with np.errstate(over="ignore", invalid="ignore"):
        loss = np.maximum(tau * u, (tau - 1.0) * u)
    if not np.all(np.isfinite(loss)):
        raise InputError("y", "and q differ by more than the float64 range", "outcomes and predictions below 1e308")
    if reduce == "mean":
        return float(loss.mean())
    if reduce == "sum":
        return float(loss.sum())
    return loss


def weighted_quantile(x, tau, weights=None):
    r"""Left-continuous weighted quantile :math:`\inf\{t : \sum_i w_i 1\{x_i\le t\} \ge \tau \sum_i w_i\}`.

    Parameters
    ----------
    x : array of shape (n,)
        The sample (finite values, at least one).
    tau : float or array of float in [0, 1]
        Quantile level(s).
    weights : array of shape (n,), optional
        Non-negative weight of each observation (e.g. inverse-propensity
        weights); equal weights when omitted.

    Returns
    -------
    float or ndarray
        One quantile per level in ``tau``; always an element of ``x``.

    Examples
    --------
    >>> weighted_quantile([1.0, 2.0, 3.0, 4.0], 0.5)
    2.0
    >>> weighted_quantile([1.0, 2.0, 3.0], [0.0, 0.5, 1.0], weights=[1.0, 0.0, 3.0])
    array([1., 3., 3.])
    """
    x = check_array(x, "x", ndim=1)
    if x.size == 0:
        raise InputError("x", "is empty", "at least one value")
    t = check_array(tau, "tau", ndim=None)
    if np.any((t < 0) | (t > 1)):
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

    Parameters
    ----------
    mu : float or array
        Mean of the untruncated normal (finite).
    sigma : float or array
        Its standard deviation (finite, > 0).
    lower, upper : float or array, default -inf, inf
        Truncation interval :math:`(a, b)`; either end may be infinite, not NaN, and ``lower < upper``.

    Returns
    -------
    mean, var : ndarray or float
        Conditional mean and variance, with the broadcast shape of the inputs.

    Examples
    --------
    >>> m, v = truncated_normal_moments(0.0, 1.0, 0.0)   # half-normal
    >>> round(m, 6), round(v, 6)   # sqrt(2/pi), 1 - 2/pi
    (0.797885, 0.36338)
    """
    arrs = [check_array(v, nm, ndim=None, finite=nm in ("mu", "sigma"))
            for v, nm in ((mu, "mu"), (sigma, "sigma"), (lower, "lower"), (upper, "upper"))]
    for arr, nm in zip(arrs[2:], ("lower", "upper")):
        if np.any(np.isnan(arr)):
            raise InputError(nm, "contains NaN", "a truncation point (+-inf allowed)")
    try:
        mu, sigma, lo, hi = np.broadcast_arrays(*arrs)
    except ValueError:
        raise InputError("sigma", "does not broadcast with mu, lower and upper (shapes "
                         + ", ".join(str(a.shape) for a in arrs) + ")", "broadcastable shapes") from None
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
    from scipy.special import log_ndtr  # imported here: scipy.special costs ~0.3 s at package import

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
