"""Diagonal-Gaussian embeddings (mean and per-coordinate variance)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import InputError, as_generator, check_array, check_positive_int

__all__ = ["DiagonalGaussian"]


@dataclass(frozen=True)
class DiagonalGaussian:
    r"""A batch of independent diagonal Gaussians :math:`N(\mu, \mathrm{diag}(\sigma^2))`.

    Each row is one embedding: a Gaussian whose mean is the embedding vector
    and whose per-coordinate variance says how uncertain each coordinate is
    (the form produced by probabilistic encoders, see ``iclr26sci.embeddings``).

    Parameters
    ----------
    mean : array of shape (..., d)
        Mean vectors (finite), ``d >= 1`` coordinates on the last axis.
    var : array of shape (..., d) or scalar
        Non-negative, finite per-coordinate variances, the shape of
        ``mean`` (a scalar or any broadcastable shape is broadcast).

    Examples
    --------
    >>> import numpy as np
    >>> q = DiagonalGaussian(np.array([[1.0, 0.0]]), 0.1)
    >>> docs = DiagonalGaussian(np.array([[1.0, 0.0], [0.0, 1.0]]), 0.2)
    >>> q
    DiagonalGaussian(n=1, dim=2, mean_var=0.1)
    >>> docs.expected_dot(q)   # one query against two documents (rows broadcast)
    array([1., 0.])
    >>> docs.dot_variance(q).round(3)
    array([0.34, 0.34])
    """

    mean: np.ndarray
    var: np.ndarray

    def __post_init__(self):
        m = check_array(self.mean, "mean", ndim=None)
        if m.ndim == 0:
            raise InputError("mean", "is a scalar", "an array whose last axis is the embedding dimension")
        if m.shape[-1] == 0:
            raise InputError("mean", f"has shape {m.shape}: a zero-dimensional embedding", "at least one coordinate (d >= 1)")
        v = check_array(self.var, "var", ndim=None, nonnegative=True)
        try:
            v = np.broadcast_to(v, m.shape).copy()
        except ValueError:
            raise InputError("var", f"has shape {v.shape}, not broadcastable to mean's {m.shape}",
                             "the shape of mean") from None
        with np.errstate(over="ignore", invalid="ignore"):  # every product of two embeddings needs E|x|^2 finite
            second = np.sum(m * m, axis=-1), np.sum(v, axis=-1)
        if m.size and not np.all(np.isfinite(second[0])):
            raise InputError("mean", f"has entries up to {np.max(np.abs(m)):.3g}, whose squares overflow float64",
                             "means on a scale whose squared norms are finite (rescale the embeddings)")
        if v.size and not np.all(np.isfinite(second[1])):
            raise InputError("var", f"has entries up to {np.max(v):.3g}, whose sum overflows float64",
                             "variances whose sum is finite")
        object.__setattr__(self, "mean", m)
        object.__setattr__(self, "var", v)

    @property
    def dim(self) -> int:
        """Embedding dimension ``d`` (size of the last axis)."""
        return int(self.mean.shape[-1])

    @property
    def shape(self) -> tuple:
        """Shape of ``mean`` (and ``var``)."""
        return self.mean.shape

    def __eq__(self, other) -> bool:
        """Same means and variances (elementwise)."""
        if not isinstance(other, DiagonalGaussian):
            return NotImplemented
        return bool(np.array_equal(self.mean, other.mean) and np.array_equal(self.var, other.var))

    def __repr__(self) -> str:
        n = len(self)
        mv = float(self.var.mean()) if self.var.size else float("nan")
        return f"DiagonalGaussian(n={n}, dim={self.dim}, mean_var={mv:.4g})"

    def summary(self) -> str:
        """A few lines: number of embeddings, dimension, and the spread of means and variances."""
        return (f"DiagonalGaussian: {len(self)} embedding(s) of dimension {self.dim}\n"
                f"  mean norm: median {float(np.median(np.linalg.norm(self.mean, axis=-1))):.4g}\n"
                f"  variance: min {float(self.var.min()):.4g}, mean {float(self.var.mean()):.4g}, "
                f"max {float(self.var.max()):.4g}")

    def to_dict(self) -> dict:
        """Plain-dict form: ``mean`` and ``var`` as nested lists plus the shape."""
        return {"shape": list(self.shape), "mean": self.mean.tolist(), "var": self.var.tolist()}

    def __len__(self) -> int:
        return int(self.mean.shape[0]) if self.mean.ndim > 1 else 1

    def __getitem__(self, idx) -> "DiagonalGaussian":
        try:
            m, v = self.mean[idx], self.var[idx]
        except (IndexError, TypeError) as exc:
            raise InputError("idx", f"cannot index {len(self)} embeddings ({exc})", "a valid row index or slice") from None
        if m.ndim == 0:
            raise InputError("idx", "selects a single coordinate", "an index over embeddings (rows)")
        return DiagonalGaussian(m, v)

    def total_precision(self) -> np.ndarray:
        r""":math:`\sum_k 1/\sigma_k^2` over the last axis (``inf`` where a variance is 0)."""
        with np.errstate(divide="ignore"):
            return np.sum(1.0 / self.var, axis=-1)

    @classmethod
    def weighted_sum(cls, members, weights) -> "DiagonalGaussian":
        r"""Law of :math:`\sum_m w_m Z_m` for independent members :math:`Z_m`.

        .. math:: \mu = \sum_m w_m\mu_m,\qquad \sigma^2 = \sum_m w_m^2\sigma_m^2 .

        Parameters
        ----------
        members : sequence of DiagonalGaussian, all of shape (n, d)
            The M independent random embeddings being combined.
        weights : array of shape (M,) or (n, M)
            Weight of each member in the sum (finite reals), shared by all
            items or one row of weights per item.

        Examples
        --------
        >>> import numpy as np
        >>> a = DiagonalGaussian(np.zeros((1, 2)), 1.0)
        >>> b = DiagonalGaussian(np.ones((1, 2)), 4.0)
        >>> s = DiagonalGaussian.weighted_sum([a, b], [0.5, 0.5])
        >>> s.mean, s.var
        (array([[0.5, 0.5]]), array([[1.25, 1.25]]))
        """
        members = list(members)
        if not members or not all(isinstance(m, DiagonalGaussian) for m in members):
            raise InputError("members", "is empty or holds non-DiagonalGaussian items",
                             "a non-empty sequence of DiagonalGaussian")
        shape = members[0].shape
        if any(m.shape != shape for m in members):
            raise InputError("members", "have different shapes " + str([m.shape for m in members]),
                             "members of one shape (n, d)")
        M = len(members)
        w = check_array(weights, "weights", ndim=(1, 2))
        mu = np.stack([m.mean for m in members], axis=-2)   # (..., M, d)
        var = np.stack([m.var for m in members], axis=-2)
        if w.ndim == 1:
            if w.shape[0] != M:
                raise InputError("weights", f"has {w.shape[0]} entries for {M} members", "one weight per member")
            wb = w[:, None]
        else:
            if w.shape != (*shape[:-1], M):
                raise InputError("weights", f"has shape {w.shape}", f"shape {(*shape[:-1], M)}")
            wb = w[..., None]
        return cls(np.sum(wb * mu, axis=-2), np.sum(wb ** 2 * var, axis=-2))

    def expected_dot(self, other: "DiagonalGaussian") -> np.ndarray:
        r""":math:`E[x^\top y] = \mu_x^\top\mu_y` for independent :math:`x, y` (row-wise, rows broadcast).

        Parameters
        ----------
        other : DiagonalGaussian
            Embeddings of the same dimension, with as many rows as ``self`` or one row.
        """
        self._check_other(other)
        with np.errstate(over="ignore", invalid="ignore"):
            v = np.sum(self.mean * other.mean, axis=-1)
        return self._finite(v, "expected dot products")

    def dot_variance(self, other: "DiagonalGaussian") -> np.ndarray:
        r"""Variance of :math:`x^\top y` for independent diagonal Gaussians (row-wise):

        .. math:: \sum_k \sigma_{x,k}^2\sigma_{y,k}^2 + \sigma_{x,k}^2\mu_{y,k}^2 + \sigma_{y,k}^2\mu_{x,k}^2 .
        """
        self._check_other(other)
        with np.errstate(over="ignore", invalid="ignore"):
            v = np.sum(self.var * other.var + self.var * other.mean ** 2 + other.var * self.mean ** 2, axis=-1)
        return self._finite(v, "dot-product variances")

    def sample(self, n: int, rng=None) -> np.ndarray:
        """``n`` draws, shape ``(n, *shape)``.

        Parameters
        ----------
        n : int >= 1
            Number of draws of the whole batch.
        rng : seed or numpy Generator, optional
            Random source (SPEC 7).
        """
        n = check_positive_int(n, "n")
        g = as_generator(rng)
        return self.mean + np.sqrt(self.var) * g.standard_normal((n, *self.shape))

    def _check_other(self, other):
        if not isinstance(other, DiagonalGaussian):
            raise InputError("other", f"got {type(other).__name__}", "a DiagonalGaussian")
        if other.dim != self.dim:
            raise InputError("other", f"has dimension {other.dim}, not {self.dim}", "the same embedding dimension")
        try:
            np.broadcast_shapes(self.shape, other.shape)
        except ValueError:
            raise InputError("other", f"has shape {other.shape}, which does not broadcast with {self.shape}",
                             "as many rows as self, or a single row") from None

    @staticmethod
    def _finite(v, what):
        with np.errstate(over="ignore", invalid="ignore"):
            ok = np.all(np.isfinite(v))
        if not ok:
            raise InputError("other", f"and self give {what} that overflow float64 (means or variances too large)",
                             "embeddings on a scale whose products stay below 1.8e308 (normalise them)")
        return v
