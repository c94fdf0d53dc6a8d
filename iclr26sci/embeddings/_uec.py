"""Uncertainty-driven ensemble coefficients, Gaussian convolution and the
uncertainty-aware similarities of UEC (arXiv:2507.20718).

Everything here is plain numpy on diagonal Gaussian embeddings
``(mean, var)`` with arrays of shape ``(n, D)`` (or ``(K, n, D)`` for the
``K`` members of an ensemble).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from iclr26sci.core import InputError, check_array, check_in_range, check_option

__all__ = [
    "GaussianEmbeddings",
    "normalize_gaussian",
    "total_precision",
    "uec_coefficients",
    "gaussian_convolution",
    "dot_variance",
    "uncertainty_similarity",
    "CITATION",
]

CITATION = (
    "Lim, Noh, Choi, Lee, Song. Uncertainty-driven Embedding Convolution. ICLR 2026. arXiv:2507.20718"
)


@dataclass(frozen=True, repr=False)
class GaussianEmbeddings:
    r"""Diagonal Gaussian embeddings, one row per text: :math:`z_i \sim \mathcal N(\mu_i, \operatorname{diag}\sigma^2_i)`.

    The arrays are validated on construction (finite, matching shapes,
    non-negative variances, coefficient rows on the simplex).

    Parameters
    ----------
    mean : array_like, shape (n, D)
        Embedding means :math:`\mu_i` (after normalisation for UEC output).
    var : array_like, shape (n, D)
        Per-dimension variances :math:`\sigma^2_{i,d} \ge 0`: how uncertain each coordinate of each
        text's embedding is.
    coefficients : array_like, shape (n, K), optional
        The per-text ensemble weights :math:`\pi(x_i)` that produced them (UEC output only); rows on the simplex.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.embeddings import GaussianEmbeddings
    >>> g = GaussianEmbeddings(np.eye(2), np.full((2, 2), 0.1))
    >>> g
    GaussianEmbeddings(n=2, dim=2, mean |mu| 1, total var median 0.2)
    >>> g.to_dict()["n"], len(g)
    (2, 2)
    """

    mean: np.ndarray
    var: np.ndarray
    coefficients: np.ndarray | None = None

    def __post_init__(self):
        mean = check_array(self.mean, "mean", ndim=2)
        var = check_array(self.var, "var", ndim=2, nonnegative=True)
        if mean.shape != var.shape:
            raise InputError("var", f"has shape {var.shape} but mean has shape {mean.shape}",
                             "the same shape as the mean")
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "var", var)
        if self.coefficients is not None:
            pi = check_array(self.coefficients, "coefficients", ndim=2)
            if pi.shape[0] != mean.shape[0]:
                raise InputError("coefficients", f"has {pi.shape[0]} rows for {mean.shape[0]} texts",
                                 "one row of ensemble weights per text")
            if np.any(pi < -1e-12) or np.any(np.abs(pi.sum(axis=1) - 1.0) > 1e-6):
                raise InputError("coefficients", "rows are not on the simplex", "non-negative rows summing to 1")
            object.__setattr__(self, "coefficients", pi)

    @property
    def n(self) -> int:
        """Number of texts."""
        return int(self.mean.shape[0])

    @property
    def dim(self) -> int:
        """Embedding dimension ``D``."""
        return int(self.mean.shape[1])

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        if self.n == 0:
            return f"GaussianEmbeddings(n=0, dim={self.dim})"
        k = "" if self.coefficients is None else f", K={self.coefficients.shape[1]} members"
        norm = float(np.median(np.linalg.norm(self.mean, axis=1)))
        tv = float(np.median(self.var.sum(axis=1)))
        return f"GaussianEmbeddings(n={self.n}, dim={self.dim}{k}, mean |mu| {norm:.3g}, total var median {tv:.3g})"

    def to_dict(self) -> dict:
        """Summary numbers (not the arrays): sizes, norms, variance quantiles, mean coefficients."""
        d = {"n": self.n, "dim": self.dim}
        if self.n:
            tv = self.var.sum(axis=1)
            d.update(mean_norm_median=float(np.median(np.linalg.norm(self.mean, axis=1))),
                     total_var_min=float(tv.min()), total_var_median=float(np.median(tv)),
                     total_var_max=float(tv.max()))
        if self.coefficients is not None:
            d["n_members"] = int(self.coefficients.shape[1])
            d["coefficients_mean"] = [float(x) for x in self.coefficients.mean(axis=0)] if self.n else []
        return d

    def summary(self) -> str:
        """A few readable lines: sizes, the spread of the total variance and the mean ensemble weights."""
        d = self.to_dict()
        lines = [f"GaussianEmbeddings: {d['n']} texts x {d['dim']} dimensions"]
        if self.n:
            lines.append(f"  |mean| median {d['mean_norm_median']:.4g}; total variance sum_d var: min "
                         f"{d['total_var_min']:.4g}, median {d['total_var_median']:.4g}, max {d['total_var_max']:.4g}")
        if "coefficients_mean" in d:
            lines.append("  mean ensemble weights: " + ", ".join(f"{x:.3f}" for x in d["coefficients_mean"]))
        return "\n".join(lines)

    def to_diagonal_gaussian(self):
        """Return ``iclr26sci.prob.DiagonalGaussian(mean, var)``."""
        from iclr26sci.prob import DiagonalGaussian

        return DiagonalGaussian(self.mean, self.var)


def _check_mean_var(mean, var, name_mean="mean", name_var="var", ndim=2):
    mean = check_array(mean, name_mean, ndim=ndim)
    var = check_array(var, name_var, ndim=ndim, nonnegative=True)
    if mean.shape != var.shape:
        raise InputError(name_var, f"has shape {var.shape} but {name_mean} has shape {mean.shape}",
                         "the same shape as the mean")
    return mean, var


def normalize_gaussian(mean, var, variance_norm: str = "delta"):
    r"""L2-normalise a Gaussian embedding and rescale its variance.

    .. math::

        \hat\mu = \mu / \lVert\mu\rVert_2, \qquad
        \hat\sigma^2 = \sigma^2 / \lVert\mu\rVert_2^2 \;(\text{"delta"}), \quad
        \hat\sigma^2 = \sigma^2 / \lVert\sigma^2\rVert_2^2 \;(\text{"code"}).

    ``"delta"`` is the first-order (delta-method) variance of
    :math:`z/\lVert\mu\rVert` ignoring the radial correction; ``"code"`` is
    what the official implementation does. It inverts the ordering of
    uncertainty (scaling :math:`\sigma^2` by :math:`c` scales the output by
    :math:`1/c`) and is offered only for compatibility.

    Parameters
    ----------
    mean : array_like, shape (n, D) (or (K, n, D))
        Unnormalised embedding means :math:`\mu`.
    var : array_like, same shape
        Their per-dimension variances :math:`\sigma^2` (non-negative).
    variance_norm : {"delta", "code", "none"}
        How the variance follows the L2 normalisation of the mean (formulas above);
        ``"none"`` returns the inputs unchanged (no normalisation at all).

    Returns
    -------
    mean_hat, var_hat : ndarray, shape (n, D)

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.embeddings import normalize_gaussian
    >>> m, v = normalize_gaussian(np.array([[3.0, 4.0]]), np.array([[1.0, 1.0]]))
    >>> m.round(2).tolist(), v.round(2).tolist()
    ([[0.6, 0.8]], [[0.04, 0.04]])
    """
    variance_norm = check_option(variance_norm, "variance_norm", ("delta", "code", "none"))
    mean, var = _check_mean_var(mean, var, ndim=(1, 2, 3))
    if variance_norm == "none":
        return mean, var
    mnorm = np.linalg.norm(mean, axis=-1, keepdims=True)
    mnorm = np.where(mnorm > 0, mnorm, 1.0)
    mhat = mean / mnorm
    if variance_norm == "delta":
        vhat = var / mnorm**2
    else:
        vnorm2 = np.sum(var**2, axis=-1, keepdims=True)
        vhat = var / np.where(vnorm2 > 0, vnorm2, 1.0)
    return mhat, vhat


def total_precision(var, eps: float = 1e-30, reduce: str = "sum"):
    r"""Total precision :math:`\lambda(x) = \sum_d 1/(\sigma_d^2(x)+\varepsilon)` of each embedding.

    Parameters
    ----------
    var : array_like, shape (..., D)
        Normalised per-dimension variances (non-negative), one row per text (and member).
    eps : float > 0
        Floor added to each variance so that a zero variance gives a finite precision.
    reduce : {"sum", "mean"}
        ``"mean"`` divides by ``D`` (the spec's optional rescaling, so the
        temperature does not have to grow with the dimension).

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.embeddings import total_precision
    >>> total_precision(np.array([[0.5, 0.25]])).round(6).tolist()
    [6.0]
    >>> total_precision(np.array([[0.5, 0.25]]), reduce="mean").round(6).tolist()
    [3.0]
    """
    var = check_array(var, "var", ndim=(1, 2, 3), nonnegative=True)
    eps = check_in_range(eps, "eps", 0.0, None, low_open=True)
    reduce = check_option(reduce, "reduce", ("sum", "mean"))
    if var.shape[-1] == 0:
        raise InputError("var", f"has shape {var.shape} (no embedding dimensions)", "at least one dimension")
    with np.errstate(over="ignore", divide="ignore"):
        lam = np.sum(1.0 / (var + eps), axis=-1)
    if not np.all(np.isfinite(lam)):
        raise InputError("eps", f"got {eps:g}: a zero variance gives an infinite precision",
                         "eps large enough that 1/eps is finite (default 1e-30)")
    if reduce == "mean":
        lam = lam / var.shape[-1]
    return lam


def uec_coefficients(member_vars, temperature: float = 2.0, *, eps: float = 1e-30, reduce: str = "sum"):
    r"""Per-text uncertainty-driven ensemble coefficients.

    .. math::

        \lambda_k(x) = \sum_{d=1}^{D} \frac{1}{\hat\sigma^2_{k,d}(x) + \varepsilon},
        \qquad \pi(x) = \operatorname{softmax}\bigl(\lambda(x) / T\bigr).

    :math:`\pi(x)` is the minimiser over the simplex of the entropy-regularised
    surrogate :math:`\sum_k \pi_k(-\lambda_k) - T\,H(\pi)` (a Gibbs distribution).
    ``temperature=np.inf`` gives the uniform ensemble.

    Parameters
    ----------
    member_vars : array_like, shape (K, n, D) or sequence of K arrays (n, D)
        Normalised variances of each member for each text.
    temperature : float > 0 or ``np.inf``
        :math:`T`: how strongly the weights follow the precision differences
        (small: the most certain member takes all; ``np.inf``: the uniform ensemble).
    eps : float > 0
        Floor added to each variance (1e-30 in the official MTEB script).
    reduce : {"sum", "mean"}
        Total precision summed over dimensions (paper/code) or averaged.

    Returns
    -------
    ndarray, shape (n, K)
        Rows on the simplex.

    References
    ----------
    Lim et al., Uncertainty-driven Embedding Convolution, ICLR 2026 (arXiv:2507.20718), Sec. 3.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.embeddings import uec_coefficients
    >>> V = np.array([[[0.5, 0.5]], [[1.0, 1.0]]])     # member 0 is twice as certain
    >>> uec_coefficients(V, temperature=2.0).round(3).tolist()
    [[0.731, 0.269]]
    >>> uec_coefficients(V, temperature=np.inf).tolist()
    [[0.5, 0.5]]
    """
    V = _stack_members(member_vars, "member_vars", nonnegative=True)
    T = _check_temperature(temperature)
    lam = total_precision(V, eps=eps, reduce=reduce).T  # (n, K)
    K = lam.shape[1]
    if np.isinf(T):
        return np.full_like(lam, 1.0 / K)
    # shift before dividing: lam/T may overflow for a tiny T, the differences divided by T do not produce NaN
    with np.errstate(over="ignore"):
        z = (lam - lam.max(axis=1, keepdims=True)) / T
    w = np.exp(z)
    return w / w.sum(axis=1, keepdims=True)


def _check_temperature(temperature):
    if isinstance(temperature, (int, float, np.floating, np.integer)) and not isinstance(temperature, bool):
        if np.isposinf(temperature):
            return float("inf")
    return check_in_range(temperature, "temperature", 0.0, None, low_open=True)


def _stack_members(arrs, name, nonnegative=False):
    if isinstance(arrs, np.ndarray):
        A = check_array(arrs, name, ndim=3, nonnegative=nonnegative)
    else:
        if not isinstance(arrs, Sequence) or len(arrs) == 0:
            raise InputError(name, "is empty or not a sequence", "a non-empty list of (n, D) arrays")
        shapes = [np.shape(a) for a in arrs]
        if len(set(shapes)) != 1:
            raise InputError(name, f"members have different shapes {shapes}",
                             "arrays of one common shape (n, D); align dimensions with an adapter")
        A = check_array(np.stack([check_array(a, f"{name}[{i}]", ndim=2) for i, a in enumerate(arrs)]), name,
                        ndim=3, nonnegative=nonnegative)
    if A.shape[0] == 0 or A.shape[1] == 0:
        raise InputError(name, f"has shape {A.shape}", "at least one member and one text")
    return A


def gaussian_convolution(member_means, member_vars, coefficients):
    r"""Distribution of the weighted sum of independent Gaussian member embeddings.

    .. math::

        \bar\mu(x) = \sum_k \pi_k(x)\,\hat\mu_k(x), \qquad
        \bar\sigma^2(x) = \sum_k \pi_k(x)^2\,\hat\sigma^2_k(x).

    Parameters
    ----------
    member_means : array_like, shape (K, n, D)
        Normalised mean embedding of each of the ``K`` members for each text.
    member_vars : array_like, shape (K, n, D)
        Their per-dimension variances (members assumed independent).
    coefficients : array_like, shape (n, K) or (K,)
        Ensemble weight of each member for each text; rows on the simplex
        (a ``(K,)`` vector is used for every text).

    Returns
    -------
    GaussianEmbeddings

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.embeddings import gaussian_convolution
    >>> M = np.array([[[1.0, 0.0]], [[0.0, 1.0]]]); V = np.full((2, 1, 2), 0.2)
    >>> g = gaussian_convolution(M, V, [0.5, 0.5])
    >>> g.mean.tolist(), g.var.round(3).tolist()
    ([[0.5, 0.5]], [[0.1, 0.1]])
    """
    M = _stack_members(member_means, "member_means")
    V = _stack_members(member_vars, "member_vars", nonnegative=True)
    if M.shape != V.shape:
        raise InputError("member_vars", f"has shape {V.shape} but member_means has {M.shape}", "equal shapes")
    K, n, _ = M.shape
    pi = check_array(coefficients, "coefficients", ndim=(1, 2))
    if pi.ndim == 1:
        pi = np.broadcast_to(pi, (n, pi.shape[0]))
    if pi.shape != (n, K):
        raise InputError("coefficients", f"has shape {pi.shape}", f"shape ({n}, {K}) or ({K},)")
    if np.any(pi < -1e-12) or np.any(np.abs(pi.sum(axis=1) - 1.0) > 1e-6):
        raise InputError("coefficients", "rows are not on the simplex", "non-negative rows summing to 1")
    mean = np.einsum("nk,knd->nd", pi, M)
    var = np.einsum("nk,knd->nd", pi**2, V)
    return GaussianEmbeddings(mean=mean, var=var, coefficients=np.array(pi))


def dot_variance(mean_q, var_q, mean_c, var_c):
    r"""Pairwise variance of the inner product of independent diagonal Gaussians.

    .. math::

        V(q,c) = \sum_d \mu_{q,d}^2\sigma_{c,d}^2 + \sigma_{q,d}^2\mu_{c,d}^2
                 + \sigma_{q,d}^2\sigma_{c,d}^2
               = \operatorname{Var}\langle z_q, z_c\rangle .

    Computed with two matrix products: ``[mu_q^2, s_q^2] @ [s_c^2, mu_c^2 + s_c^2]^T``.

    Parameters
    ----------
    mean_q, var_q : array_like, shape (n_q, D)
        Means and per-dimension variances of the query embeddings.
    mean_c, var_c : array_like, shape (n_c, D)
        Means and variances of the candidate (document) embeddings.

    Returns
    -------
    ndarray, shape (n_q, n_c)

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.embeddings import dot_variance
    >>> dot_variance(np.ones((1, 2)), np.full((1, 2), 0.1), np.ones((1, 2)), np.full((1, 2), 0.1)).round(3).tolist()
    [[0.42]]
    """
    mean_q, var_q = _check_mean_var(mean_q, var_q, "mean_q", "var_q")
    mean_c, var_c = _check_mean_var(mean_c, var_c, "mean_c", "var_c")
    if mean_q.shape[1] != mean_c.shape[1]:
        raise InputError("mean_c", f"has dimension {mean_c.shape[1]} but mean_q has {mean_q.shape[1]}",
                         "the same embedding dimension")
    return _dot_variance(mean_q, var_q, mean_c, var_c)


def _dot_variance(mq, vq, mc, vc, dtype=np.float64):
    left = np.concatenate([mq * mq, vq], axis=1)
    right = np.concatenate([vc, mc * mc + vc], axis=1)
    if dtype == np.float32 and max(float(np.max(left, initial=0.0)), float(np.max(right, initial=0.0))) > 1e15:
        dtype = np.float64  # single precision would overflow (max 3.4e38) on products of such entries
    return left.astype(dtype, copy=False) @ right.astype(dtype, copy=False).T


def uncertainty_similarity(query, docs, beta: float = 0.1, form: str = "probit"):
    r"""Uncertainty-aware similarity between two sets of Gaussian embeddings.

    .. math::

        s_A(q,c) = \frac{\langle\bar\mu_q, \bar\mu_c\rangle}{\sqrt{1 + \tfrac{\pi}{8}\beta V(q,c)}}
        \quad(\text{"probit"}), \qquad
        s_B(q,c) = \frac{\cos(\bar\mu_q, \bar\mu_c)}{1 + \tfrac{\beta}{\pi}\lvert V(q,c)\rvert}
        \quad(\text{"mteb"}),

    with :math:`V` from :func:`dot_variance`. Form A is MacKay's probit
    moderation (``sigmoid(s_A)`` approximates ``E[sigmoid<z_q, z_c>]`` when
    ``beta = 1``); form B is the official MTEB script's. ``beta = 0`` gives the
    plain dot product (A) or cosine (B).

    Parameters
    ----------
    query : GaussianEmbeddings or tuple (mean, var)
        The query embeddings, arrays of shape (n_q, D).
    docs : GaussianEmbeddings or tuple (mean, var)
        The candidate embeddings, (n_c, D).
    beta : float >= 0
        How much the dot-product variance :math:`V` discounts the score (0: no discount).
    form : {"probit", "mteb"}
        Which denominator (formulas above).

    Returns
    -------
    ndarray, shape (n_q, n_c)

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.embeddings import uncertainty_similarity
    >>> q = (np.array([[1.0, 0.0]]), np.array([[0.0, 0.0]]))
    >>> d = (np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 0.0], [4.0, 4.0]]))
    >>> uncertainty_similarity(q, d, beta=1.0).round(3).tolist()   # the uncertain document scores lower
    [[1.0, 0.624]]
    """
    beta = check_in_range(beta, "beta", 0.0, None)
    form = check_option(form, "form", ("probit", "mteb"))
    mq, vq = _unpack(query, "query")
    mc, vc = _unpack(docs, "docs")
    if mq.shape[1] != mc.shape[1]:
        raise InputError("docs", f"has dimension {mc.shape[1]} but query has {mq.shape[1]}",
                         "the same embedding dimension")
    return _similarity(mq, vq, mc, vc, beta, form)


def _similarity(mq, vq, mc, vc, beta, form):
    # V only moderates the score: single precision halves the cost of its (2D-inner) product
    if form == "probit":
        s = mq @ mc.T
        if beta > 0:
            den = _dot_variance(mq, vq, mc, vc, np.float32)
            den *= den.dtype.type((np.pi / 8.0) * beta)
            den += 1.0
            np.sqrt(den, out=den)
            s /= den
        return s
    nq = np.linalg.norm(mq, axis=1, keepdims=True)
    nc = np.linalg.norm(mc, axis=1, keepdims=True)
    s = (mq / np.where(nq > 0, nq, 1.0)) @ (mc / np.where(nc > 0, nc, 1.0)).T
    if beta > 0:
        den = np.abs(_dot_variance(mq, vq, mc, vc, np.float32))
        den *= den.dtype.type(beta / np.pi)
        den += 1.0
        s /= den
    return s


def _unpack(obj, name):
    if isinstance(obj, GaussianEmbeddings):
        return obj.mean, obj.var
    if hasattr(obj, "mean") and hasattr(obj, "var") and not callable(obj.mean):
        return _check_mean_var(obj.mean, obj.var, f"{name}.mean", f"{name}.var")
    if isinstance(obj, tuple) and len(obj) == 2:
        return _check_mean_var(obj[0], obj[1], f"{name}[0]", f"{name}[1]")
    raise InputError(name, f"got {type(obj).__name__}", "GaussianEmbeddings or a (mean, var) tuple")
