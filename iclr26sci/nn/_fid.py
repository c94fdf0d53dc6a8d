"""The Frechet distance between two sets of features (FID when the features come from Inception)."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, check_array

__all__ = ["frechet_distance"]


def _as_features(x, name: str) -> np.ndarray:
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor
        x = x.detach().cpu().numpy()
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise InputError(name, f"could not be read as an array ({exc})", "a 2-D array (n_samples, n_features)") from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)) \
            or arr.dtype == bool:
        raise InputError(name, f"has dtype {arr.dtype}", "real-valued features (n_samples, n_features)")
    arr = check_array(arr.astype(np.float64, copy=False), name, ndim=2)
    if arr.shape[0] < 2:
        raise InputError(name, f"has {arr.shape[0]} sample(s)", "at least 2 rows to estimate a covariance")
    if arr.shape[1] < 1:
        raise InputError(name, "has no feature columns", "at least one feature")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, "contains NaN or infinite values", "finite features")
    return arr


def _psd_sqrt(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric square root of a symmetric PSD matrix via its eigendecomposition (eigenvalues clipped at 0)."""
    w, v = np.linalg.eigh((c + c.T) / 2)
    w = np.clip(w, 0.0, None)
    return (v * np.sqrt(w)) @ v.T, w


def frechet_distance(feats_a, feats_b, *, mean_cov: bool = False):
    r"""Frechet distance between Gaussians fitted to two sets of features.

    With :math:`\mu_a, \Sigma_a` and :math:`\mu_b, \Sigma_b` the sample means and covariances
    (denominator :math:`n - 1`),

    .. math::

        d^2 = \lVert \mu_a - \mu_b \rVert^2 + \operatorname{tr}\Sigma_a + \operatorname{tr}\Sigma_b
              - 2 \operatorname{tr}\bigl(\Sigma_a^{1/2} \Sigma_b \Sigma_a^{1/2}\bigr)^{1/2},

    the squared 2-Wasserstein distance between :math:`N(\mu_a, \Sigma_a)` and :math:`N(\mu_b, \Sigma_b)`
    (Dowson & Landau 1982). It is the "FID" of Heusel et al. (2017) when the features are Inception
    activations; here any features work (e.g. a classifier's penultimate layer,
    :meth:`iclr26sci.nn.SmallResNet.features`). The value returned is :math:`d^2`, like FID.

    The trace term is computed stably: :math:`\Sigma_a^{1/2}` is taken from a symmetric eigendecomposition
    (negative round-off eigenvalues clipped to zero), and
    :math:`\operatorname{tr}(\Sigma_a^{1/2}\Sigma_b\Sigma_a^{1/2})^{1/2}` is the sum of the square roots of the
    (clipped) eigenvalues of the symmetric PSD matrix :math:`\Sigma_a^{1/2}\Sigma_b\Sigma_a^{1/2}`. This needs no
    non-symmetric ``sqrtm`` (whose complex round-off and failures on singular covariances are the usual
    source of NaN/imaginary FIDs), works for rank-deficient covariances (fewer samples than features), and
    the result is clipped at zero.

    Parameters
    ----------
    feats_a, feats_b : array_like or torch.Tensor, shape (n_a, d) and (n_b, d)
        The two sets of feature vectors (one row per image); the sample sizes may differ, the feature
        dimension ``d`` must agree. At least two rows each.
    mean_cov : bool, default False
        Also return the two fitted means and covariances.

    Returns
    -------
    float
        The squared Frechet distance :math:`d^2 \ge 0`.
    (float, dict)
        When ``mean_cov=True``: the distance and ``{"mu_a", "mu_b", "cov_a", "cov_b", "mean_term",
        "trace_term"}`` (``mean_term`` = :math:`\lVert\mu_a-\mu_b\rVert^2`, ``trace_term`` = the rest).

    Notes
    -----
    The estimate is biased upwards at finite sample size (the sample covariances are noisy); compare
    distances computed with the same ``n`` and feature extractor only. In one dimension it reduces to
    :math:`(\mu_a - \mu_b)^2 + (\sigma_a - \sigma_b)^2`.

    References
    ----------
    .. [1] D. C. Dowson, B. V. Landau (1982). The Frechet distance between multivariate normal distributions.
       Journal of Multivariate Analysis 12(3), 450-455.
    .. [2] M. Heusel, H. Ramsauer, T. Unterthiner, B. Nessler, S. Hochreiter (2017). GANs trained by a two
       time-scale update rule converge to a local Nash equilibrium. NeurIPS.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.nn import frechet_distance
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(0.0, 1.0, size=(5000, 1))
    >>> b = rng.normal(2.0, 3.0, size=(5000, 1))
    >>> d = frechet_distance(a, b)
    >>> closed = (a.mean() - b.mean()) ** 2 + (a.std(ddof=1) - b.std(ddof=1)) ** 2   # the 1-D closed form
    >>> bool(abs(d - closed) < 1e-9), round(d)          # about (0 - 2)^2 + (1 - 3)^2 = 8
    (True, 8)
    >>> frechet_distance(a, a)
    0.0
    """
    if not isinstance(mean_cov, bool):
        raise InputError("mean_cov", f"got {mean_cov!r}", "True or False")
    a = _as_features(feats_a, "feats_a")
    b = _as_features(feats_b, "feats_b")
    if a.shape[1] != b.shape[1]:
        raise InputError("feats_b", f"has {b.shape[1]} features but feats_a has {a.shape[1]}",
                         "the same feature dimension for both sets")
    mu_a, mu_b = a.mean(axis=0), b.mean(axis=0)
    cov_a = np.atleast_2d(np.cov(a, rowvar=False))
    cov_b = np.atleast_2d(np.cov(b, rowvar=False))
    root_a, _ = _psd_sqrt(cov_a)
    m = root_a @ cov_b @ root_a
    w = np.linalg.eigvalsh((m + m.T) / 2)
    tr_sqrt = float(np.sum(np.sqrt(np.clip(w, 0.0, None))))
    mean_term = float(np.sum((mu_a - mu_b) ** 2))
    trace_term = float(np.trace(cov_a) + np.trace(cov_b) - 2.0 * tr_sqrt)
    d2 = mean_term + trace_term
    # round-off can make d2 slightly negative (or tiny but non-zero for identical inputs)
    scale = float(np.trace(cov_a) + np.trace(cov_b) + mean_term)
    if d2 < 1e-12 * max(scale, 1.0):
        d2 = 0.0
    if mean_cov:
        return d2, {"mu_a": mu_a, "mu_b": mu_b, "cov_a": cov_a, "cov_b": cov_b, "mean_term": mean_term,
                    "trace_term": max(trace_term, 0.0)}
    return d2
