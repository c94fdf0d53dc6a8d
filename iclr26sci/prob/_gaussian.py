"""Diagonal-Gaussian embeddings (mean and per-coordinate variance)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import InputError, as_generator, check_array, check_positive_int

__all__ = ["DiagonalGaussian"]


@dataclass(frozen=True)
class DiagonalGaussian:
    r"""A batch of independent diagonal Gaussians :math:`N(\mu, \mathrm{diag}(\sigma^2))`.

    Parameters
    ----------
    mean : array of shape (..., d)
    var : array of shape (..., d)
        Non-negative variances, same shape as ``mean`` (a scalar broadcasts).
    """

    mean: np.ndarray
    var: np.ndarray

    def __post_init__(self):
        m = check_array(self.mean, "mean", ndim=None)
        if m.ndim == 0:
            raise InputError("mean", "is a scalar", "an array whose last axis is the embedding dimension")
        v = check_array(self.var, "var", ndim=None, nonnegative=True)
        try:
            v = np.broadcast_to(v, m.shape).copy()
        except ValueError:
            raise InputError("var", f"has shape {v.shape}, not broadcastable to mean's {m.shape}",
                             "the shape of mean") from None
        object.__setattr__(self, "mean", m)
        object.__setattr__(self, "var", v)

    @property
    def dim(self) -> int:
        return int(self.mean.shape[-1])

    @property
    def shape(self) -> tuple:
        return self.mean.shape

    def __len__(self) -> int:
        return int(self.mean.shape[0]) if self.mean.ndim > 1 else 1

    def __getitem__(self, idx) -> "DiagonalGaussian":
        return DiagonalGaussian(self.mean[idx], self.var[idx])

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
        weights : array of shape (M,) or (n, M)
            Per-member weights, shared or per item (row).
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
        r""":math:`E[x^\top y] = \mu_x^\top\mu_y` for independent :math:`x, y` (row-wise)."""
        self._check_other(other)
        return np.sum(self.mean * other.mean, axis=-1)

    def dot_variance(self, other: "DiagonalGaussian") -> np.ndarray:
        r"""Variance of :math:`x^\top y` for independent diagonal Gaussians (row-wise):

        .. math:: \sum_k \sigma_{x,k}^2\sigma_{y,k}^2 + \sigma_{x,k}^2\mu_{y,k}^2 + \sigma_{y,k}^2\mu_{x,k}^2 .
        """
        self._check_other(other)
        return np.sum(self.var * other.var + self.var * other.mean ** 2 + other.var * self.mean ** 2, axis=-1)

    def sample(self, n: int, rng=None) -> np.ndarray:
        """``n`` draws, shape ``(n, *shape)``."""
        n = check_positive_int(n, "n")
        g = as_generator(rng)
        return self.mean + np.sqrt(self.var) * g.standard_normal((n, *self.shape))

    def _check_other(self, other):
        if not isinstance(other, DiagonalGaussian):
            raise InputError("other", f"got {type(other).__name__}", "a DiagonalGaussian")
        if other.dim != self.dim:
            raise InputError("other", f"has dimension {other.dim}, not {self.dim}", "the same embedding dimension")
