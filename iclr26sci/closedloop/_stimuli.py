r"""Small stand-ins for the paper's CLIP embedding and embedding-conditioned generator.

The official MindPilot embeds images with CLIP ViT-H-14 and generates with SDXL-Lightning conditioned on a
CLIP image embedding through IP-Adapter; neither is available offline. Here:

- :class:`PCAEmbedder`: a fixed, whitened PCA of the pixels of a pool, :math:`z = \Lambda^{-1/2} V^\top
  (x - \bar x)` (unit variance per component, so the pseudo-model's default length-scale :math:`\sqrt d`
  is on the data's scale);
- :class:`PCAGenerator`: the matching decoder :math:`G(z) = \bar x + V \Lambda^{1/2} z + \epsilon`, with
  :math:`\epsilon` Gaussian noise at a fraction of the residual (unexplained) pixel standard deviation,
  clipped to the pool's pixel range: an embedding-conditioned generator whose output re-embeds near its
  condition (the property the paper's pseudo-target guidance relies on).

Any callables with the same signatures can be used instead (``embedder(images) -> (n, d)``,
``generator(embeddings, rng) -> images``), e.g. the penultimate layer of ``iclr26sci.nn.fashion_classifier``
as the embedding.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from iclr26sci.core import (InputError, as_generator, check_array, check_in_range, check_is_fitted, check_positive_int,
                            clone_keeping_fitted)

from ._base import _check_images, _check_pool

__all__ = ["PCAEmbedder", "PCAGenerator"]


def _whitened_pca(X, d, what="features"):
    """Mean, top-``d`` principal axes (d, p), their standard deviations (d,) and all singular values of the rows
    of ``X``; a clear error when ``d`` exceeds the size or the rank of ``X``."""
    if d > min(X.shape):
        raise InputError("n_components", f"is {d}", f"at most min(n_images, n_{what}) = {min(X.shape)}")
    mean = X.mean(0)
    _, S, Vt = np.linalg.svd(X - mean, full_matrices=False)
    sc = S[:d] / np.sqrt(len(X))
    if np.any(sc <= 1e-12):
        raise InputError("n_components", f"is {d} but the {what} have rank {int(np.sum(S > 1e-9))}",
                         f"at most the rank of the pool's {what}")
    return mean, Vt[:d], sc, S


class PCAEmbedder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Whitened PCA embedding of images, fitted on a pool: :math:`z = \Lambda^{-1/2} V^\top (x - \bar x)`.

    Parameters
    ----------
    n_components : int >= 1, default 16
        Embedding dimension :math:`d` (at most the number of pixels and of pool images).

    Attributes
    ----------
    mean_, components_, scales_ : ndarray
        :math:`\bar x`, :math:`V^\top` (d, p) and :math:`\Lambda^{1/2}` (d,).
    residual_std_ : float
        Root-mean-square pixel residual of the pool after projection (the detail the embedding drops).
    n_features_in_ : int
        Pixels per image (the features of the flattened pool).

    It is a scikit-learn transformer: ``fit_transform``, ``get_feature_names_out`` (``pcaembedder0``, ...)
    and a place in a ``Pipeline`` on tabular rows (an image of shape ``(p,)``).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import PCAEmbedder
    >>> pool = np.random.default_rng(0).random((50, 4, 4))
    >>> emb = PCAEmbedder(n_components=3).fit(pool)
    >>> z = emb(pool)
    >>> z.shape, bool(np.allclose(z.std(axis=0), 1.0))
    ((50, 3), True)
    >>> PCAEmbedder(2).fit_transform(pool).shape, PCAEmbedder(2).fit(pool).get_feature_names_out().tolist()
    ((50, 2), ['pcaembedder0', 'pcaembedder1'])
    """

    def __init__(self, n_components=16):
        self.n_components = n_components
        check_positive_int(n_components, "n_components")

    def fit(self, pool, y=None):
        """Fit the PCA on a pool of images (n, *image_shape); ``y`` is ignored (scikit-learn's signature).

        Examples
        --------
        >>> import numpy as np
        >>> PCAEmbedder(2).fit(np.random.default_rng(0).random((10, 3, 3))).components_.shape
        (2, 9)
        """
        pool = _check_pool(pool, "pool", min_rows=2)
        d = check_positive_int(self.n_components, "n_components")
        X = pool.reshape(len(pool), -1)
        self.image_shape_ = tuple(pool.shape[1:])
        self.n_features_in_ = X.shape[1]
        self.mean_, self.components_, self.scales_, S = _whitened_pca(X, d, "pixels")
        self._n_features_out = d
        Vt = self.components_
        recon = (X - self.mean_) @ Vt[:d].T @ Vt[:d] + self.mean_
        self.residual_std_ = float(np.sqrt(np.mean((X - recon) ** 2)))
        self.pixel_range_ = (float(X.min()), float(X.max()))
        return self

    def transform(self, images):
        """Embed images (n, *image_shape) -> (n, d).

        Examples
        --------
        >>> import numpy as np
        >>> e = PCAEmbedder(2).fit(np.random.default_rng(0).random((10, 3, 3)))
        >>> e.transform(np.zeros((1, 3, 3))).shape
        (1, 2)
        """
        check_is_fitted(self, "components_", method="transform")
        images = _check_images(images, self.image_shape_)
        return ((images.reshape(len(images), -1) - self.mean_) @ self.components_.T) / self.scales_

    __call__ = transform

    def inverse_transform(self, Z):
        """Decode embeddings (n, d) to images, :math:`\\bar x + V \\Lambda^{1/2} z` (no noise, no clipping).

        Examples
        --------
        >>> import numpy as np
        >>> e = PCAEmbedder(2).fit(np.random.default_rng(0).random((10, 3, 3)))
        >>> e.inverse_transform(np.zeros((1, 2))).shape
        (1, 3, 3)
        """
        check_is_fitted(self, "components_", method="inverse_transform")
        Z = check_array(Z, "Z", ndim=2, shape=(None, len(self.scales_)))
        X = self.mean_ + (Z * self.scales_) @ self.components_
        return X.reshape(len(Z), *self.image_shape_)


class PCAGenerator(BaseEstimator):
    r"""Embedding-conditioned generator :math:`G(z) = \mathrm{clip}(\bar x + V\Lambda^{1/2} z + \epsilon)`.

    Parameters
    ----------
    embedder : PCAEmbedder
        A fitted PCA embedder (its decoder and pixel range are used).
    noise : float >= 0, default 0.5
        Standard deviation of :math:`\epsilon` as a fraction of the embedder's residual pixel standard
        deviation (the detail a sample adds beyond its condition).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import PCAEmbedder, PCAGenerator
    >>> pool = np.random.default_rng(0).random((50, 4, 4))
    >>> emb = PCAEmbedder(3).fit(pool)
    >>> gen = PCAGenerator(emb, noise=0.0)
    >>> gen(np.zeros((2, 3)), rng=0).shape
    (2, 4, 4)
    """

    __sklearn_clone__ = clone_keeping_fitted     # a clone keeps the fitted embedder

    def __init__(self, embedder, noise=0.5):
        self.embedder = embedder
        self.noise = noise
        self._check_params()

    def _check_params(self):
        if not isinstance(self.embedder, PCAEmbedder):
            raise InputError("embedder", f"is a {type(self.embedder).__name__}", "a fitted PCAEmbedder")
        if not hasattr(self.embedder, "components_"):
            raise InputError("embedder", "is an unfitted PCAEmbedder", "a PCAEmbedder after .fit(pool)")
        sd = check_in_range(self.noise, "noise", 0)
        if not np.isfinite(sd):
            raise InputError("noise", "is infinite", "a finite noise fraction")
        return sd

    def generate(self, Z, rng=None):
        """Images for embeddings ``Z`` (m, d); ``rng`` seeds the detail noise.

        Examples
        --------
        >>> import numpy as np
        >>> emb = PCAEmbedder(2).fit(np.random.default_rng(0).random((10, 3, 3)))
        >>> PCAGenerator(emb).generate(np.zeros((1, 2)), rng=0).shape
        (1, 3, 3)
        """
        sd = self._check_params()
        gen = as_generator(rng)
        X = self.embedder.inverse_transform(Z)
        if sd > 0:
            X = X + sd * self.embedder.residual_std_ * gen.standard_normal(X.shape)
        lo, hi = self.embedder.pixel_range_
        return np.clip(X, lo, hi)

    __call__ = generate
