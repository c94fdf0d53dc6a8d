"""Normative theories that generate receptive fields: efficient coding and sparse coding.

Every theory has ``fit(patches)`` and ``sample_filters(n, rng)`` returning
unit-norm linear receptive fields on the flattened ``p x p`` patch grid.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from iclr26sci.core import (InputError, as_generator, check_array, check_bool, check_in_range, check_option,
                            check_positive_int)

__all__ = ["EfficientCodingTheory", "SparseCodingTheory", "extract_patches", "surround_ratio"]

CITATION = ("Zakirov, B. & Tkacik, G. (2025). Meta-Learning Theory-Informed Inductive Biases using Deep "
            "Kernel Gaussian Processes. arXiv:2509.24919 (ICLR 2026).")


def extract_patches(images: Sequence[np.ndarray], size: int, n: int, rng=None, log_luminance: bool = False,
                    standardize: bool = True) -> np.ndarray:
    """Sample ``n`` square ``size x size`` patches from grey-scale images.

    Patches keep their DC component (the efficient-coding surround depends on
    it); the global mean is removed and the result divided by the global
    standard deviation when ``standardize``.

    Parameters
    ----------
    images : 2-D array or sequence of 2-D arrays
        Grey-scale luminance images (any size at least ``size`` on each side).
    size : int >= 2
        Patch side in pixels.
    n : int
        Number of patches, drawn uniformly over images and positions.
    rng : seed or numpy Generator
    log_luminance : bool
        Take log(luminance + 1e-3) first (needs non-negative pixels).
    standardize : bool
        Remove the global mean and divide by the global standard deviation.

    Returns an array (n, size*size).

    Examples
    --------
    >>> img = np.random.default_rng(0).random((32, 32))
    >>> extract_patches(img, 6, 100, rng=0).shape
    (100, 36)
    """
    size = check_positive_int(size, "size", minimum=2)
    n = check_positive_int(n, "n")
    check_bool(log_luminance, "log_luminance")
    check_bool(standardize, "standardize")
    if isinstance(images, np.ndarray) and images.ndim == 2:
        images = [images]
    if isinstance(images, (str, bytes)) or not hasattr(images, "__iter__"):
        raise InputError("images", f"is a {type(images).__name__}", "a 2-D grey-scale image or a sequence of them")
    imgs = [check_array(im, "images", ndim=2) for im in images]
    if not imgs:
        raise InputError("images", "is empty", "at least one 2-D image")
    if log_luminance and min(float(im.min()) for im in imgs) <= -1e-3:
        raise InputError("images", f"have pixel values down to {min(float(im.min()) for im in imgs):g}, whose "
                         "log-luminance is undefined", "non-negative luminances with log_luminance=True")
    fits = [im for im in imgs if im.shape[0] >= size and im.shape[1] >= size]
    if not fits:
        smallest = min(min(im.shape) for im in imgs)
        raise InputError("size", f"patch size {size} is larger than every image (smallest side {smallest})",
                         "a patch size no larger than the images")
    gen = as_generator(rng)
    which = gen.integers(len(fits), size=n)
    out = np.empty((n, size * size))
    for k, im in enumerate(fits):
        sel = np.flatnonzero(which == k)
        if sel.size == 0:
            continue
        x = np.log(im + 1e-3) if log_luminance else im
        r = gen.integers(im.shape[0] - size + 1, size=sel.size)
        c = gen.integers(im.shape[1] - size + 1, size=sel.size)
        win = np.lib.stride_tricks.sliding_window_view(x, (size, size))
        out[sel] = win[r, c].reshape(sel.size, -1)
    if standardize:
        out -= out.mean()
        out /= out.std() + 1e-12
    return out


def _check_patches(patches, name="patches") -> tuple[np.ndarray, int]:
    X = check_array(patches, name, ndim=2, min_rows=2)
    if X.shape[1] == 0:
        raise InputError(name, "has no pixels", "flattened p x p patches")
    p = int(round(math.sqrt(X.shape[1])))
    if p * p != X.shape[1]:
        raise InputError(name, f"has {X.shape[1]} columns, not a square number", "flattened p x p patches")
    if X.shape[0] < X.shape[1]:
        raise InputError(name, f"has {X.shape[0]} patches for dimension {X.shape[1]}",
                         "at least as many patches as pixels to estimate the covariance")
    return X, p


def surround_ratio(rf: np.ndarray) -> float:
    r"""Surround-to-centre mass of a receptive field.

    .. math:: \rho = \frac{\sum_i \max(0, -s\,w_i)}{\sum_i \max(0, s\,w_i)},\quad s = \mathrm{sign}(w_{i^*}),\;
        i^* = \arg\max_i |w_i|

    (the total weight of the sign opposite to the strongest pixel, over that sign's). 0 for a pure blob;
    1 for a zero-sum filter (complete surround).

    Parameters
    ----------
    rf : array (d,)
        A receptive field (flattened); at least one non-zero finite weight.

    Examples
    --------
    >>> float(surround_ratio(np.array([1.0, -0.25, -0.25])))
    0.5
    """
    rf = check_array(rf, "rf", ndim=1, min_rows=1)
    if not np.any(rf != 0):
        raise InputError("rf", "is all zeros", "a receptive field with at least one non-zero weight")
    s = np.sign(rf[np.argmax(np.abs(rf))])
    v = rf * s
    return float(-v[v < 0].sum() / v[v > 0].sum())


def _loguniform(gen, lo, hi, size):
    return np.exp(gen.uniform(np.log(lo), np.log(hi), size=size))


class EfficientCodingTheory:
    """Efficient-coding receptive fields of the early visual system.

    ``model="atick_redlich"`` (default) is the closed-form information-optimal
    linear filter for signal covariance :math:`C_x = U\\Lambda U^\\top` with
    white input noise of power :math:`N^2`:

    .. math:: W_N = U\\,\\mathrm{diag}\\Big(\\frac{\\sqrt{\\lambda_i}}{\\lambda_i + N^2}\\Big)U^\\top,

    whose rows are centre-surround receptive fields; :math:`N^2\\to 0` gives
    ZCA whitening :math:`C_x^{-1/2}` and large :math:`N^2` a blur
    :math:`C_x^{1/2}/N^2`. ``model="karklin_simoncelli"`` instead optimises a
    population of noisy linear-nonlinear neurons (Karklin & Simoncelli 2011)
    for information about the stimulus minus a metabolic cost.

    Parameters
    ----------
    noise : float or (float, float)
        Input-noise power :math:`N^2` in units of the mean pixel variance
        (``trace(C)/d``); a pair draws it log-uniformly per neuron.
    center_radius : float
        Receptive-field centres are drawn within this many pixels of the
        patch centre (experiments centre the stimulus on the neuron).
    model : {"atick_redlich", "karklin_simoncelli"}
    n_neurons, n_steps, input_noise, output_noise, cost : Karklin-Simoncelli settings.
    rng : seed for the Karklin-Simoncelli optimisation.

    References
    ----------
    Atick & Redlich (1992) Neural Computation 4:196. Karklin & Simoncelli (2011) NeurIPS.
    Zakirov & Tkacik (2025) arXiv:2509.24919.

    Examples
    --------
    >>> from scipy.ndimage import gaussian_filter
    >>> img = gaussian_filter(np.random.default_rng(0).standard_normal((64, 64)), 1.5)
    >>> theory = EfficientCodingTheory(noise=(0.01, 1.0), center_radius=1.0).fit(extract_patches(img, 6, 500, rng=0))
    >>> W = theory.sample_filters(4, rng=0)
    >>> W.shape, bool(np.allclose(np.linalg.norm(W, axis=1), 1.0))
    ((4, 36), True)
    """

    def __repr__(self) -> str:
        state = f", fitted on {self.patch_size_}x{self.patch_size_} patches" if hasattr(self, "patch_size_") else ""
        return f"EfficientCodingTheory(model={self.model!r}, noise={self.noise!r}{state})"

    def __init__(self, noise=(0.01, 1.0), center_radius: float = 2.0, model: str = "atick_redlich",
                 n_neurons: int = 32, n_steps: int = 300, input_noise: float = 0.4, output_noise: float = 1.0,
                 cost: float = 0.05, rng=None):
        self.noise = noise
        self.center_radius = center_radius
        self.model = model
        self.n_neurons = n_neurons
        self.n_steps = n_steps
        self.input_noise = input_noise
        self.output_noise = output_noise
        self.cost = cost
        self.rng = rng

    # ------------------------------------------------------------------ fit
    def _noise_range(self) -> tuple[float, float]:
        nz = self.noise
        if np.ndim(nz) == 0:
            v = check_in_range(nz, "noise", 0.0, None, low_open=True)
            return v, v
        if len(nz) != 2:
            raise InputError("noise", f"got {nz!r}", "a positive number or a (low, high) pair")
        lo = check_in_range(nz[0], "noise", 0.0, None, low_open=True)
        hi = check_in_range(nz[1], "noise", lo, None)
        return lo, hi

    def fit(self, patches) -> "EfficientCodingTheory":
        """Estimate the patch covariance (and run the population optimisation for Karklin-Simoncelli)."""
        check_option(self.model, "model", ["atick_redlich", "karklin_simoncelli"])
        self._noise_range()
        check_in_range(self.center_radius, "center_radius", 0.0, None)
        X, p = _check_patches(patches)
        self.patch_size_ = p
        self.mean_ = X.mean(0)
        Xc = X - self.mean_
        C = Xc.T @ Xc / (len(X) - 1)
        lam, U = np.linalg.eigh(C)
        lam = np.clip(lam, 0.0, None)
        if not lam.max() > 0:
            raise InputError("patches", "have no variance (all patches are identical)",
                             "natural-image patches that vary")
        self.cov_ = C
        self.eigvals_ = lam
        self.eigvecs_ = U
        self.noise_unit_ = float(lam.mean())
        self._rank_mask = lam > 1e-10 * lam.max()
        if self.model == "karklin_simoncelli":
            self.population_filters_ = self._fit_karklin_simoncelli(X)
        return self

    def _check_fitted(self):
        if not hasattr(self, "cov_"):
            raise InputError("theory", "is not fitted", "call .fit(patches) first")

    # -------------------------------------------------------------- closed form
    def filters(self, noise: float) -> np.ndarray:
        """The Atick-Redlich filter matrix :math:`W_N` (d, d) for absolute noise power ``noise``.

        Directions with zero signal variance (e.g. the DC of mean-removed
        patches) are dropped (pseudo-inverse convention).
        """
        self._check_fitted()
        noise = check_in_range(noise, "noise", 0.0, None)
        lam, U, keep = self.eigvals_, self.eigvecs_, self._rank_mask
        g = np.zeros_like(lam)
        g[keep] = np.sqrt(lam[keep]) / (lam[keep] + noise)
        return (U * g) @ U.T

    def whitening_matrix(self) -> np.ndarray:
        """ZCA whitening :math:`C_x^{-1/2}` (pseudo-inverse root)."""
        self._check_fitted()
        lam, U, keep = self.eigvals_, self.eigvecs_, self._rank_mask
        g = np.zeros_like(lam)
        g[keep] = 1.0 / np.sqrt(lam[keep])
        return (U * g) @ U.T

    def _center_index(self, center) -> int:
        p = self.patch_size_

        def whole(v, lim):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not 0 <= v < lim:
                raise InputError("center", f"got {center!r}",
                                 f"a pixel (row, col) with 0 <= row, col < {p} or a flat index 0 <= i < {p * p}")
            return int(v)

        if isinstance(center, (tuple, list, np.ndarray)) and np.ndim(center) == 1 and len(center) == 2:
            return whole(center[0], p) * p + whole(center[1], p)
        if np.ndim(center) == 0 and not isinstance(center, str):
            return whole(center, p * p)
        raise InputError("center", f"got {center!r}",
                         f"a pixel (row, col) with 0 <= row, col < {p} or a flat index 0 <= i < {p * p}")

    def receptive_field(self, center=None, noise: float | None = None, sign: int = 1) -> np.ndarray:
        """Unit-norm RF: row ``center`` (pixel (r, c) or flat index) of :math:`W_N`; ``noise`` in mean-variance units."""
        self._check_fitted()
        p = self.patch_size_
        if center is None:
            center = (p // 2, p // 2)
        idx = self._center_index(center)
        if isinstance(sign, bool) or sign not in (1, -1):
            raise InputError("sign", f"got {sign!r}", "+1 (ON centre) or -1 (OFF centre)")
        if noise is None:
            noise = math.sqrt(self._noise_range()[0] * self._noise_range()[1])
        else:
            noise = check_in_range(noise, "noise", 0.0, None)
        w = sign * self.filters(noise * self.noise_unit_)[idx]
        return w / np.linalg.norm(w)

    def sample_filters(self, n: int, rng=None) -> np.ndarray:
        """Draw ``n`` theory receptive fields (n, d), unit norm, random ON/OFF sign.

        Atick-Redlich: centre within ``center_radius`` of the patch centre,
        noise log-uniform in the ``noise`` range. Karklin-Simoncelli: a
        random member of the optimised population.
        """
        self._check_fitted()
        n = check_positive_int(n, "n")
        gen = as_generator(rng)
        sign = gen.choice([-1.0, 1.0], size=n)
        if self.model == "karklin_simoncelli":
            F = self.population_filters_[gen.integers(len(self.population_filters_), size=n)]
            return F * sign[:, None]
        p = self.patch_size_
        lo, hi = self._noise_range()
        nz = _loguniform(gen, lo, hi, n) if hi > lo else np.full(n, lo)
        rr, cc = np.mgrid[0:p, 0:p]
        cen = (p - 1) / 2.0
        ok = np.flatnonzero(((rr - cen) ** 2 + (cc - cen) ** 2).ravel() <= max(self.center_radius, 0.71) ** 2)
        centers = ok[gen.integers(len(ok), size=n)]
        lam, U, keep = self.eigvals_, self.eigvecs_, self._rank_mask
        gains = np.zeros((n, len(lam)))
        lk = lam[keep]
        gains[:, keep] = np.sqrt(lk)[None, :] / (lk[None, :] + nz[:, None] * self.noise_unit_)
        W = np.einsum("nk,jk,nk->nj", U[centers], U, gains)  # row `center` of U diag(g) U^T
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        return W * sign[:, None]

    # ---------------------------------------------------- Karklin-Simoncelli
    def _fit_karklin_simoncelli(self, X: np.ndarray) -> np.ndarray:
        """Optimise J noisy LN neurons: max E_x[-1/2 log det C_{x|r}] - cost * sum_j E f_j(y_j).

        .. math::
            C_{x|r}^{-1} = C_x^{-1} + W^\\top G(\\sigma_x^2 G W W^\\top G + \\sigma_r^2 I)^{-1} G W,
            \\quad G = \\mathrm{diag}(f'_j(y_j)).
        """
        import torch

        from iclr26sci.core import torch_generator

        J = check_positive_int(self.n_neurons, "n_neurons")
        steps = check_positive_int(self.n_steps, "n_steps")
        sx = check_in_range(self.input_noise, "input_noise", 0.0, None, low_open=True)
        sr = check_in_range(self.output_noise, "output_noise", 0.0, None, low_open=True)
        lam_cost = check_in_range(self.cost, "cost", 0.0, None)
        gen = as_generator(self.rng)
        tg = torch_generator(gen)
        d = X.shape[1]
        dt = torch.float64
        Xt = torch.as_tensor(X - self.mean_, dtype=dt)
        C = torch.as_tensor(self.cov_, dtype=dt) + 1e-3 * self.noise_unit_ * torch.eye(d, dtype=dt)
        Cinv = torch.linalg.inv(C)
        W = torch.randn(J, d, generator=tg, dtype=dt)
        W = (W / W.norm(dim=1, keepdim=True)).requires_grad_(True)
        theta = torch.zeros(J, dtype=dt, requires_grad=True)
        gain = torch.zeros(J, dtype=dt, requires_grad=True)
        opt = torch.optim.Adam([W, theta, gain], lr=0.02)
        eyeJ = torch.eye(J, dtype=dt)
        for _ in range(steps):
            idx = torch.randint(len(Xt), (64,), generator=tg)
            x = Xt[idx]
            y = x @ W.T                                     # (b, J)
            a = torch.exp(gain)
            f = a * torch.nn.functional.softplus(y - theta)
            g = a * torch.sigmoid(y - theta)                # f'
            GW = g[:, :, None] * W[None]                    # (b, J, d)
            M = sx ** 2 * GW @ GW.transpose(-1, -2) + sr ** 2 * eyeJ
            P = Cinv + GW.transpose(-1, -2) @ torch.linalg.solve(M, GW)
            info = 0.5 * torch.linalg.slogdet(P)[1].mean()
            loss = -(info - lam_cost * f.sum(1).mean())
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                W /= W.norm(dim=1, keepdim=True)
        return W.detach().numpy().copy()


class SparseCodingTheory:
    """A competing V1-like theory: ICA or sparse-coding receptive fields.

    ``method="ica"`` runs FastICA on the patches and returns the rows of the
    unmixing matrix (Gabor-like filters); ``method="dictionary"`` runs
    mini-batch dictionary learning (Olshausen-Field sparse coding) and
    returns the atoms.

    References
    ----------
    Bell & Sejnowski (1997) Vision Research 37:3327. Olshausen & Field (1996) Nature 381:607.

    Parameters
    ----------
    method : {"ica", "dictionary"}
    n_components : int, optional
        Number of filters (at most the patch dimension; default 2/3 of it).
    alpha : float >= 0
        Sparsity penalty of dictionary learning.
    max_patches : int
        Patches used for the fit (a random subset of larger inputs).
    rng : seed

    Examples
    --------
    >>> patches = np.random.default_rng(0).laplace(size=(400, 16))
    >>> SparseCodingTheory(n_components=4, rng=0).fit(patches).sample_filters(3, rng=0).shape
    (3, 16)
    """

    def __repr__(self) -> str:
        state = f", fitted: {self.filters_.shape[0]} filters on {self.patch_size_}x{self.patch_size_} patches" \
            if hasattr(self, "filters_") else ""
        return f"SparseCodingTheory(method={self.method!r}, n_components={self.n_components!r}{state})"

    def __init__(self, method: str = "ica", n_components: int | None = None, alpha: float = 1.0,
                 max_patches: int = 20000, rng=None):
        self.method = method
        self.n_components = n_components
        self.alpha = alpha
        self.max_patches = max_patches
        self.rng = rng

    def fit(self, patches) -> "SparseCodingTheory":
        check_option(self.method, "method", ["ica", "dictionary"])
        max_patches = check_positive_int(self.max_patches, "max_patches", minimum=2)
        check_in_range(self.alpha, "alpha", 0.0, None)
        X, p = _check_patches(patches)
        if self.n_components is None:
            k = min(X.shape[1] - 1, 2 * p * p // 3)
        else:
            k = check_positive_int(self.n_components, "n_components")
            if k > X.shape[1]:
                raise InputError("n_components", f"is {k} for {X.shape[1]}-pixel patches",
                                 f"at most {X.shape[1]} filters (the patch dimension)")
        gen = as_generator(self.rng)
        if len(X) > max_patches:
            X = X[gen.choice(len(X), max_patches, replace=False)]
        seed = int(gen.integers(2 ** 31 - 1))
        Xc = X - X.mean(0)
        if self.method == "ica":
            from sklearn.decomposition import FastICA

            ica = FastICA(n_components=k, whiten="unit-variance", random_state=seed, max_iter=400, tol=1e-3)
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ica.fit(Xc)
            F = ica.components_
        else:
            from sklearn.decomposition import MiniBatchDictionaryLearning

            dl = MiniBatchDictionaryLearning(n_components=k, alpha=self.alpha, random_state=seed,
                                             batch_size=256, max_iter=5)
            F = dl.fit(Xc / Xc.std()).components_
        F = F / np.linalg.norm(F, axis=1, keepdims=True)
        self.patch_size_ = p
        self.filters_ = F
        return self

    def sample_filters(self, n: int, rng=None) -> np.ndarray:
        """Draw ``n`` unit-norm filters (random member, random sign)."""
        if not hasattr(self, "filters_"):
            raise InputError("theory", "is not fitted", "call .fit(patches) first")
        n = check_positive_int(n, "n")
        gen = as_generator(rng)
        F = self.filters_[gen.integers(len(self.filters_), size=n)]
        return F * gen.choice([-1.0, 1.0], size=n)[:, None]
