r"""Embedding-conditioned flow-matching generator and a classifier-feature embedding (the nn stand-ins).

The paper generates with SDXL conditioned on a CLIP image embedding through IP-Adapter and embeds with CLIP;
neither is available offline. This module gives the same *interface* from :mod:`iclr26sci.nn`:

- :class:`FlowGenerator`: :math:`G(z)`, a conditional flow-matching model
  (:class:`~iclr26sci.nn.FlowMatching` on the linear path, t = 0 noise, t = 1 data) whose velocity network
  (:class:`~iclr26sci.nn.VelocityMLP` or, for square grey images, :class:`~iclr26sci.nn.UNetVelocity`) is
  conditioned on the *embedding* of each training image, :math:`v_\theta(x_t, t, z(x_1))`, trained on the pool by

  .. math:: \min_\theta\ E_{t, x_0, x_1} \lVert v_\theta((1 - t) x_0 + t x_1, t, z(x_1)) - (x_1 - x_0)\rVert^2,

  and sampled by :func:`~iclr26sci.nn.ode_sample` from Gaussian noise seeded by the caller's ``rng`` (as the
  paper's fixed pre-drawn DDIM noise, a seed gives one image per embedding). Pixels are mapped affinely to
  [-1, 1] for training and back, clipped to the pool's range, afterwards. Trained once per (pool, embedding,
  settings) and cached by :func:`~iclr26sci.nn.cached_model`.
- :class:`FeatureEmbedder`: a fixed feature map (e.g. the penultimate layer of the cached
  :func:`~iclr26sci.nn.fashion_classifier`), whitened on a pool by PCA to ``n_components`` unit-variance
  coordinates (so the pseudo-model's length-scale :math:`\sqrt d` is on the data's scale, as for
  :class:`~iclr26sci.closedloop.PCAEmbedder`).
"""
from __future__ import annotations

import hashlib

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import (InputError, check_bool, check_is_fitted, check_option, check_positive_int,
                            clone_keeping_fitted, resolve_rng)

from ._base import _check_callable, _check_images, _check_pool, _embed
from ._stimuli import _whitened_pca

__all__ = ["FlowGenerator", "FeatureEmbedder"]


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a, dtype=np.float32))
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


class FeatureEmbedder(BaseEstimator):
    r"""A fixed feature map whitened on a pool: :math:`z = \Lambda^{-1/2} V^\top (f(x) - \bar f)`.

    Parameters
    ----------
    features : callable
        ``features(images) -> (n, p)`` array (torch tensors are converted), e.g.
        ``fashion_classifier().features`` (penultimate layer, 64-d).
    n_components : int >= 1, default 16
        Embedding dimension :math:`d` (at most the feature dimension and the pool size).
    input_shape : tuple, optional
        Shape the images are reshaped to before ``features`` (e.g. ``(1, 28, 28)`` for the Fashion-MNIST
        classifier when the pool holds ``(28, 28)`` images).

    Attributes
    ----------
    mean_, components_, scales_ : ndarray
        :math:`\bar f`, :math:`V^\top` (d, p) and :math:`\Lambda^{1/2}` (d,).
    explained_variance_ratio_ : float
        Fraction of the feature variance kept.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import FeatureEmbedder
    >>> pool = np.random.default_rng(0).random((40, 3, 3))
    >>> emb = FeatureEmbedder(lambda x: np.tanh(x.reshape(len(x), -1)), n_components=4).fit(pool)
    >>> z = emb(pool)
    >>> z.shape, bool(np.allclose(z.std(axis=0), 1.0))
    ((40, 4), True)
    """

    def __init__(self, features, n_components=16, input_shape=None):
        self.features = features
        self.n_components = n_components
        self.input_shape = input_shape
        _check_callable(features, "features", "a callable images -> (n, p) features")
        check_positive_int(n_components, "n_components")
        self._input_shape()

    def _input_shape(self):
        shp = self.input_shape
        if shp is None:
            return None
        if isinstance(shp, (str, bytes)) or not hasattr(shp, "__iter__"):
            raise InputError("input_shape", f"got {shp!r}", "None or a tuple of positive ints, e.g. (1, 28, 28)")
        shp = tuple(shp)
        if not shp or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1 for v in shp):
            raise InputError("input_shape", f"got {shp!r}", "None or a tuple of positive ints, e.g. (1, 28, 28)")
        return shp

    def _raw(self, images):
        x = np.asarray(images, dtype=np.float32)
        if self.input_shape is not None:
            x = x.reshape((len(x), *tuple(self.input_shape)))
        f = self.features(np.ascontiguousarray(x))
        if hasattr(f, "detach"):
            f = f.detach().cpu().numpy()
        f = np.asarray(f, dtype=float)
        if f.ndim != 2 or f.shape[0] != len(x) or not np.all(np.isfinite(f)):
            raise InputError("features", f"returned an array of shape {f.shape} (or non-finite values) for "
                             f"{len(x)} images", "a callable images -> finite (n, p) features")
        return f

    def fit(self, pool):
        """Fit the whitening PCA on the features of a pool of images (n, *image_shape).

        Examples
        --------
        >>> import numpy as np
        >>> FeatureEmbedder(lambda x: x.reshape(len(x), -1), 2).fit(np.random.default_rng(0).random((9, 2, 2))).scales_.shape
        (2,)
        """
        _check_callable(self.features, "features", "a callable images -> (n, p) features")
        pool = _check_pool(pool, "pool", min_rows=2)
        d = check_positive_int(self.n_components, "n_components")
        if self.input_shape is not None:
            shp = self._input_shape()
            if int(np.prod(shp)) != int(np.prod(pool.shape[1:])):
                raise InputError("input_shape", f"is {shp}", f"a shape with {int(np.prod(pool.shape[1:]))} pixels, "
                                 "as the pool's images")
        F = self._raw(pool)
        self.image_shape_ = tuple(pool.shape[1:])
        self.mean_, self.components_, self.scales_, S = _whitened_pca(F, d, "features")
        self.explained_variance_ratio_ = float(np.sum(S[:d] ** 2) / np.sum(S ** 2))
        return self

    def transform(self, images):
        """Embed images (n, *image_shape) -> (n, d).

        Examples
        --------
        >>> import numpy as np
        >>> e = FeatureEmbedder(lambda x: x.reshape(len(x), -1), 2).fit(np.random.default_rng(0).random((9, 2, 2)))
        >>> e.transform(np.zeros((3, 2, 2))).shape
        (3, 2)
        """
        check_is_fitted(self, "components_", method="transform")
        images = _check_images(images, self.image_shape_)
        return ((self._raw(images) - self.mean_) @ self.components_.T) / self.scales_

    __call__ = transform


class FlowGenerator(BaseEstimator):
    r"""Embedding-conditioned flow-matching generator :math:`G(z)`: an image drawn from :math:`p(x \mid z)`.

    Parameters
    ----------
    embedder : callable
        ``embedder(images) -> (n, d)``; the condition of each training image is its embedding (a fitted
        :class:`PCAEmbedder` or :class:`FeatureEmbedder`).
    arch : {"mlp", "unet"}, default "mlp"
        :class:`~iclr26sci.nn.VelocityMLP` on the flattened pixels, or :class:`~iclr26sci.nn.UNetVelocity`
        (square images of shape ``(s, s)`` or ``(1, s, s)``, ``s`` divisible by 4).
    hidden : tuple of int, default (256, 256, 256)
        Hidden widths of the MLP.
    base : int, default 32
        First-level channels of the U-Net.
    epochs : int >= 1, default 200
        Passes over the pool.
    batch_size : int, default 128
    lr : float, default 2e-3
        Adam learning rate (one-cycle schedule, as the nn flow models).
    steps : int >= 1, default 20
        ODE steps at generation.
    solver : {"euler", "heun", "midpoint"}, default "heun"
    cache : bool, default True
        Keep the trained network in :func:`~iclr26sci.nn.cache_dir` (key: pool, embeddings, settings, seed).
    rng : int >= 0, default 0
        Training seed.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Attributes
    ----------
    fm_ : FlowMatching
        The trained flow model (``fm_.velocity_net`` in eval mode).
    image_shape_ : tuple
    train_loss_ : float
        Last epoch's flow-matching loss (from the cache metadata when read from the cache).
    recon_cosine_ : float
        Mean cosine between the embedding of a generated image and its condition, on 200 pool embeddings
        (how well :math:`z(G(z)) \approx z`, the property the pseudo-target guidance relies on).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import FlowGenerator, PCAEmbedder
    >>> pool = np.random.default_rng(0).random((64, 3, 3))
    >>> emb = PCAEmbedder(2).fit(pool)
    >>> gen = FlowGenerator(emb, hidden=(16,), epochs=2, cache=False).fit(pool)
    >>> gen(np.zeros((2, 2)), rng=0).shape
    (2, 3, 3)
    """

    __sklearn_clone__ = clone_keeping_fitted     # a clone keeps the fitted embedder

    def __init__(self, embedder, *, arch="mlp", hidden=(256, 256, 256), base=32, epochs=200, batch_size=128,
                 lr=2e-3, steps=20, solver="heun", cache=True, rng=0,
                 random_state=None):
        self.embedder = embedder
        self.arch = arch
        self.hidden = hidden
        self.base = base
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.steps = steps
        self.solver = solver
        self.cache = cache
        self.rng = rng
        self.random_state = random_state
        self._check_params()

    def _check_params(self):
        _check_callable(self.embedder, "embedder", "a callable images -> (n, d) embeddings")
        check_option(self.arch, "arch", ["mlp", "unet"])
        check_positive_int(self.epochs, "epochs")
        check_positive_int(self.batch_size, "batch_size")
        from iclr26sci.core import check_in_range

        lr = check_in_range(self.lr, "lr", 0, low_open=True)
        if not np.isfinite(lr):
            raise InputError("lr", "is infinite", "a finite learning rate")
        check_positive_int(self.steps, "steps")
        check_option(self.solver, "solver", ["euler", "heun", "midpoint"])
        check_bool(self.cache, "cache")
        check_positive_int(resolve_rng(self.rng, self.random_state, default=0), "rng", minimum=0)
        if isinstance(self.hidden, (str, bytes)) or not hasattr(self.hidden, "__iter__") or not len(self.hidden):
            raise InputError("hidden", f"got {self.hidden!r}", "a tuple of positive layer widths")
        for h in self.hidden:
            check_positive_int(h, "hidden")
        check_positive_int(self.base, "base")

    def fit(self, pool, progress=False):
        """Train the conditional flow model on ``pool`` (n, *image_shape), conditioned on its embeddings.

        Examples
        --------
        >>> import numpy as np
        >>> from iclr26sci.closedloop import PCAEmbedder
        >>> pool = np.random.default_rng(0).random((32, 2, 2))
        >>> FlowGenerator(PCAEmbedder(2).fit(pool), hidden=(8,), epochs=1, cache=False).fit(pool).image_shape_
        (2, 2)
        """
        import torch

        from iclr26sci.core import check_in_range
        from iclr26sci.nn import FlowMatching, UNetVelocity, VelocityMLP, cached_model

        self._check_params()
        pool = _check_pool(pool, "pool", min_rows=2)
        arch = check_option(self.arch, "arch", ["mlp", "unet"])
        epochs = check_positive_int(self.epochs, "epochs")
        bs = check_positive_int(self.batch_size, "batch_size")
        lr = check_in_range(self.lr, "lr", 0, low_open=True)
        check_positive_int(self.steps, "steps")
        check_option(self.solver, "solver", ["euler", "heun", "midpoint"])
        cache = check_bool(self.cache, "cache")
        seed = check_positive_int(resolve_rng(self.rng, self.random_state, default=0), "rng", minimum=0)
        try:
            hidden = tuple(check_positive_int(h, "hidden") for h in self.hidden)
        except TypeError:
            raise InputError("hidden", f"got {self.hidden!r}", "a tuple of positive layer widths") from None
        base = check_positive_int(self.base, "base")
        shape = tuple(pool.shape[1:])
        if arch == "unet":
            if not (len(shape) == 2 and shape[0] == shape[1]) and not (len(shape) == 3 and shape[0] == 1
                                                                        and shape[1] == shape[2]):
                raise InputError("arch", f"is 'unet' but the images have shape {shape}",
                                 "square grey images (s, s) or (1, s, s) for the U-Net, or arch='mlp'")
            if shape[-1] % 4:
                raise InputError("arch", f"is 'unet' but the image size {shape[-1]} is not divisible by 4",
                                 "an image size divisible by 4, or arch='mlp'")
        Z = _embed(self.embedder, pool)
        d = Z.shape[1]
        lo, hi = float(pool.min()), float(pool.max())
        if hi <= lo:
            raise InputError("pool", "has constant pixels", "images with at least two pixel values")
        X = (2.0 * (pool - lo) / (hi - lo) - 1.0).astype(np.float32)
        net_shape = (1, shape[-1], shape[-1]) if arch == "unet" else shape
        X = X.reshape((len(X), *net_shape))

        def factory():
            if arch == "unet":
                return UNetVelocity(n_classes=None, in_channels=1, base=base, channel_mult=(1, 2), n_res=1,
                                    image_size=shape[-1], patch=2, cond_dim=d)
            return VelocityMLP(net_shape, hidden=hidden, cond_dim=d, n_freq=4, emb_dim=max(32, 2 * d))

        box = {}

        def build():
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                net = factory()
            fm = FlowMatching(net, path="linear", p_uncond=0.0).fit(
                X, Z.astype(np.float32), epochs=epochs, batch_size=bs, lr=lr, schedule="onecycle", rng=seed,
                progress=progress)
            box["fm"] = fm
            return net, {"train_loss_last": float(fm.fit_result_.train_loss[-1]),
                         "train_cpu_seconds": float(fm.fit_result_.cpu_seconds)}

        settings = {"arch": arch, "hidden": list(hidden), "base": base, "epochs": epochs, "batch_size": bs, "lr": lr,
                    "data": _digest(X, Z), "shape": list(net_shape), "cond_dim": d}
        if cache:
            net, meta = cached_model("closedloop-flowgen", settings, seed, build, factory)
            loss = meta["metrics"]["train_loss_last"]
        else:
            net, meta = build()
            loss = meta["train_loss_last"]
        net.eval()
        fm = FlowMatching(net, path="linear", p_uncond=0.0)
        fm.event_shape_, fm.n_classes_, fm.cond_dim_, fm.n_train_ = tuple(net.event_shape), None, d, len(X)
        self.fm_ = fm
        self.image_shape_ = shape
        self.cond_dim_ = d
        self.pixel_range_ = (lo, hi)
        self.train_loss_ = float(loss)
        idx = np.random.default_rng(seed).choice(len(pool), size=min(200, len(pool)), replace=False)
        Zg = _embed(self.embedder, self.generate(Z[idx], rng=seed))
        num = np.sum(Zg * Z[idx], axis=1)
        den = np.linalg.norm(Zg, axis=1) * np.linalg.norm(Z[idx], axis=1)
        self.recon_cosine_ = float(np.mean(num / np.where(den > 0, den, 1.0)))
        return self

    def generate(self, Z, rng=None):
        r"""Images for embeddings ``Z`` (m, d): :math:`x_1` from the ODE :math:`dx/dt = v_\theta(x, t, z)`
        started at Gaussian noise drawn from ``rng``.

        Examples
        --------
        >>> import numpy as np
        >>> from iclr26sci.closedloop import PCAEmbedder
        >>> pool = np.random.default_rng(0).random((32, 2, 2))
        >>> g = FlowGenerator(PCAEmbedder(2).fit(pool), hidden=(8,), epochs=1, cache=False).fit(pool)
        >>> g.generate(np.zeros((3, 2)), rng=1).shape
        (3, 2, 2)
        """
        import torch

        from iclr26sci.core import as_generator, check_array
        from iclr26sci.nn import ode_sample

        check_is_fitted(self, "fm_", method="generate")
        Z = check_array(Z, "Z", ndim=2, shape=(None, self.cond_dim_))
        g = as_generator(rng)
        if len(Z) == 0:
            return np.zeros((0, *self.image_shape_))
        x0 = g.standard_normal((len(Z), *self.fm_.event_shape_)).astype(np.float32)
        with torch.no_grad():
            res = ode_sample(self.fm_, cond=torch.as_tensor(Z, dtype=torch.float32), x0=torch.as_tensor(x0),
                             steps=int(self.steps), solver=self.solver)
        x = res.x.detach().cpu().numpy().astype(float).reshape((len(Z), *self.image_shape_))
        lo, hi = self.pixel_range_
        return np.clip(lo + (x + 1.0) * 0.5 * (hi - lo), lo, hi)

    __call__ = generate
