r"""The linear-Gaussian oracle of LIGHT's checks: exact posterior means under per-modality noise levels.

Clean data :math:`x_0 = (x^1, \dots, x^M) \sim N(0, \Sigma)` split into modality blocks; each block is noised
to its own level, :math:`y_m = \sqrt{\bar\alpha(\lambda_m)}\,x^m + \sqrt{1-\bar\alpha(\lambda_m)}\,\varepsilon_m`,
i.e. :math:`y = A x_0 + N^{1/2}\varepsilon` with :math:`A = \mathrm{blockdiag}(\sqrt{\bar\alpha(\lambda_m)} I)`
and :math:`N = \mathrm{blockdiag}((1-\bar\alpha(\lambda_m)) I)`. Then

.. math::

    E[x_0 \mid y] = \Sigma A^\top (A \Sigma A^\top + N)^{-1} y,\qquad
    \mathrm{Cov}(x_0 \mid y) = \Sigma - \Sigma A^\top (A\Sigma A^\top + N)^{-1} A \Sigma,

which is what an x0-predicting diffusion-forcing denoiser trained with the squared loss converges to.
"""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, as_generator, check_array, check_positive_int
from iclr26sci.nn._diffusion import DiffusionSchedule

__all__ = ["LinearGaussianOracle"]


class LinearGaussianOracle:
    r"""Exact posterior of Gaussian data noised with one diffusion level per modality block.

    Parameters
    ----------
    dims : sequence of int
        Size of each modality block (the checks use body 4, hands 4, object 2).
    cov : array (d, d), optional
        Covariance :math:`\Sigma` of the clean data, d = sum(dims); default a random correlated one
        (:meth:`random_cov`) drawn with ``rng``.
    K : int, default 100
        Number of noise levels of the cosine schedule.
    rng : seed or Generator, optional
        For the default covariance.

    Examples
    --------
    >>> orc = LinearGaussianOracle((4, 4, 2), K=100, rng=0)
    >>> y = orc.sample(3, levels=(10, 90, 50), rng=1)[1]
    >>> orc.posterior_mean(y, (10, 90, 50)).shape
    (3, 10)
    >>> bool(orc.posterior_cov((99, 99, 99)).trace() <= orc.cov.trace())
    True
    """

    def __init__(self, dims=(4, 4, 2), cov=None, K: int = 100, rng=None):
        if not isinstance(dims, (tuple, list)) or not dims:
            raise InputError("dims", f"got {dims!r}", "a non-empty sequence of positive block sizes")
        self.dims = tuple(check_positive_int(d, "dims") for d in dims)
        self.d = sum(self.dims)
        self.schedule = DiffusionSchedule(K)
        if cov is None:
            cov = self.random_cov(self.d, as_generator(rng))
        cov = check_array(cov, "cov", shape=(self.d, self.d))
        if not np.allclose(cov, cov.T) or np.linalg.eigvalsh(cov).min() <= 0:
            raise InputError("cov", "is not symmetric positive definite", "a covariance matrix")
        self.cov = cov
        self._blocks = np.repeat(np.arange(len(self.dims)), self.dims)

    def __repr__(self):
        return f"LinearGaussianOracle(dims={self.dims}, K={self.schedule.K})"

    @staticmethod
    def random_cov(d: int, rng) -> np.ndarray:
        """A random correlated covariance: ``W W^T / d + 0.05 I`` with ``W`` standard normal (d, d)."""
        d = check_positive_int(d, "d")
        W = as_generator(rng).standard_normal((d, d))
        return W @ W.T / d + 0.05 * np.eye(d)

    def _levels(self, levels):
        lv = np.asarray(levels)
        if lv.shape != (len(self.dims),):
            raise InputError("levels", f"has shape {lv.shape}", f"one level per block, shape ({len(self.dims)},)")
        ab = self.schedule.alpha_bar(lv)
        return np.sqrt(ab)[self._blocks], (1 - ab)[self._blocks]

    def _gain(self, levels):
        a, n = self._levels(levels)
        S = self.cov
        SA = S * a[None, :]                       # Sigma A^T (A diagonal)
        G = np.linalg.solve((a[:, None] * S * a[None, :]) + np.diag(n), SA.T).T
        return G, SA

    def posterior_mean(self, y, levels) -> np.ndarray:
        r""":math:`E[x_0 \mid y] = \Sigma A^\top (A\Sigma A^\top + N)^{-1} y` for rows ``y`` (n, d) at one level per block."""
        y = check_array(y, "y", ndim=2, shape=(None, self.d))
        G, _ = self._gain(levels)
        return y @ G.T

    def posterior_cov(self, levels) -> np.ndarray:
        r""":math:`\mathrm{Cov}(x_0 \mid y) = \Sigma - \Sigma A^\top (A\Sigma A^\top + N)^{-1} A\Sigma` (independent of y)."""
        G, SA = self._gain(levels)
        return self.cov - G @ SA.T

    def block(self, m: int) -> slice:
        """The columns of block ``m``."""
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 0 <= m < len(self.dims):
            raise InputError("m", f"got {m!r}", f"a block index in [0, {len(self.dims) - 1}]")
        o = int(np.sum(self.dims[:m]))
        return slice(o, o + self.dims[m])

    def sample(self, n: int, levels, rng=None):
        """Draw ``n`` clean rows and their noisy versions at ``levels`` (one per block): ``(x0, y)``."""
        n = check_positive_int(n, "n")
        g = as_generator(rng)
        L = np.linalg.cholesky(self.cov)
        x0 = g.standard_normal((n, self.d)) @ L.T
        a, v = self._levels(levels)
        return x0, a * x0 + np.sqrt(v) * g.standard_normal((n, self.d))

    def summary(self) -> str:
        """One line: the block sizes and the schedule."""
        return f"linear-Gaussian oracle, blocks {self.dims}, {self.schedule.summary()}"

    def to_dict(self) -> dict:
        """``dims``, ``K`` and ``cov``."""
        return {"dims": list(self.dims), "K": self.schedule.K, "cov": self.cov.tolist()}
