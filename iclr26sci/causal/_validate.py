"""Shared argument validators of :mod:`iclr26sci.causal` (private).

Every public entry point of the package validates its arguments with these helpers *before* doing any
work, so that bad input raises an :class:`iclr26sci.core.InputError` naming the argument, saying what is
wrong and what is expected. Built on the generic validators of :mod:`iclr26sci.core`.
"""
from __future__ import annotations

import numpy as np

from iclr26sci.core import (InputError, check_array, check_bool, check_consistent_length, check_in_range,
                            check_is_fitted, check_option, check_positive_int)

#: largest sensitivity parameter accepted: beyond it the quantile level Gamma/(1+Gamma) rounds to 1 in float64
#: arithmetic long before 1e16, and the bounds are numerically those of "no assumption" anyway
GAMMA_MAX = 1e8

DIRECTIONS = ("upper", "lower")
#: tolerance on "rows of a probability matrix sum to 1"
PROB_ATOL = 1e-6

__all__ = [
    "GAMMA_MAX", "check_gamma", "check_direction", "check_sign", "check_alpha", "check_cv", "check_clip",
    "check_X", "check_Y", "check_A", "check_prob_matrix", "check_propensity", "check_matrix", "check_nu",
    "check_broadcast", "check_fitted", "check_n_features", "check_bool", "check_option", "check_in_range",
    "check_positive_int", "check_nonneg_int", "check_consistent_length", "check_array", "check_levels",
    "check_int_arg",
]


def check_gamma(gamma, name: str = "gamma") -> float:
    """MSM sensitivity parameter: a real number in [1, GAMMA_MAX]."""
    return check_in_range(gamma, name, 1.0, GAMMA_MAX)


def check_direction(direction, name: str = "direction") -> str:
    return check_option(direction, name, DIRECTIONS)


def check_sign(quantile_term_sign, name: str = "quantile_term_sign") -> int:
    if isinstance(quantile_term_sign, bool) or quantile_term_sign not in (1, -1):
        raise InputError(name, f"got {quantile_term_sign!r}", "+1 (Neyman-orthogonal) or -1 (the official code's sign)")
    return int(quantile_term_sign)


def check_alpha(alpha, name: str = "alpha") -> float:
    """One-sided level of a confidence bound: in (0, 0.5) (a level >= 0.5 gives a bound on the wrong side)."""
    return check_in_range(alpha, name, 0.0, 0.5, low_open=True, high_open=True)


def check_cv(cv, name: str = "cv") -> int:
    """Number of cross-fitting folds: an integer >= 2 (the one-step estimator needs out-of-fold nuisances)."""
    return check_positive_int(cv, name, minimum=2)


def check_nonneg_int(value, name: str) -> int:
    return check_positive_int(value, name, minimum=0)


def check_int_arg(value, name: str, minimum: int = 1) -> int:
    return check_positive_int(value, name, minimum=minimum)


def check_clip(clip, name: str = "propensity_clip") -> float:
    """Propensity clipping level: in (0, 0.5); propensities are clipped to [clip, 1 - clip]."""
    return check_in_range(clip, name, 0.0, 0.5, low_open=True, high_open=True)


def _densify(X, name):
    """Refuse sparse matrices, accept object arrays of numbers (scikit-learn's conventions), refuse complex."""
    if hasattr(X, "toarray") and hasattr(X, "nnz"):
        raise InputError(name, "is a sparse matrix: sparse input is not supported", "a dense array (X.toarray())")
    arr = np.asarray(X) if not isinstance(X, np.ndarray) else X
    if np.iscomplexobj(arr):
        raise InputError(name, "has complex entries: Complex data not supported", "real numbers")
    if arr.dtype == object:
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError) as err:
            raise InputError(name, f"has non-numeric entries ({err}; float() argument must be a string or a "
                             "real number)", "a rectangular numeric array") from None
    return arr


def check_X(X, name: str = "X", *, n_features: int | None = None, min_rows: int = 1,
            allow_1d: bool = False, estimator=None) -> np.ndarray:
    """Covariates as a finite 2-D float array (n, d) with at least ``min_rows`` rows.

    A 1-D array is refused unless ``allow_1d`` (then it is read as one covariate): at predict time it is
    ambiguous (one row of d features, or n rows of one feature). Messages follow scikit-learn's wording where
    its estimator checks expect one (sparse, complex, empty, reshape, n_features_in_).
    """
    arr = check_array(_densify(X, name), name, ndim=(1, 2) if allow_1d else None)
    if arr.ndim == 1 and allow_1d:
        arr = arr[:, None]
    if arr.ndim != 2:
        hint = (". Reshape your data: X.reshape(1, -1) for one row, X.reshape(-1, 1) for one feature"
                if arr.ndim == 1 else "")
        raise InputError(name, f"has {arr.ndim} dimension(s) (shape {arr.shape}){hint}", "a 2-D array (n, d)")
    if arr.shape[0] < min_rows:
        raise InputError(name, f"has {arr.shape[0]} sample(s) (shape={arr.shape}) while a minimum of {min_rows} "
                         "is required", f"at least {min_rows} row(s)")
    if arr.shape[1] < 1:
        raise InputError(name, f"has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required",
                         "at least one feature")
    if n_features is not None and arr.shape[1] != n_features:
        who = type(estimator).__name__ if estimator is not None else "the fitted model"
        raise InputError(name, f"X has {arr.shape[1]} features, but {who} is expecting {n_features} features as "
                         "input", f"{n_features} features, as in fit")
    return arr


def check_Y(Y, name: str = "Y", n: int | None = None) -> np.ndarray:
    if Y is None:
        raise InputError(name, "is None: this estimator requires y to be passed, but the target y is None",
                         "an array of outcomes (n,)")
    arr = check_array(_densify(Y, name), name, ndim=1)
    if n is not None and arr.shape[0] != n:
        raise InputError(name, f"has {arr.shape[0]} entries", f"{n} (one per row)")
    return arr


def check_A(A, name: str = "A", n: int | None = None, n_arms: int | None = None) -> np.ndarray:
    """Arm labels: 1-D integers in 0..K-1 (negative labels would silently wrap to the last arm)."""
    raw = np.asarray(A) if not isinstance(A, np.ndarray) else A
    if raw.dtype.kind == "f" and raw.size and np.any(~np.isfinite(raw)):
        raise InputError(name, "has missing (NaN) arm labels", "integer arm labels 0..K-1")
    arr = check_array(A, name, ndim=1, dtype=int)
    if n is not None and arr.shape[0] != n:
        raise InputError(name, f"has {arr.shape[0]} entries", f"{n} (one per row)")
    if arr.size and arr.min() < 0:
        raise InputError(name, f"has negative arm label {int(arr.min())}", "integer arm labels 0..K-1")
    if n_arms is not None and arr.size and arr.max() >= n_arms:
        raise InputError(name, f"has arm label {int(arr.max())}", f"labels in 0..{n_arms - 1} ({n_arms} arms)")
    return arr


def check_matrix(x, name: str, shape: tuple | None = None) -> np.ndarray:
    """A finite 2-D float array, optionally of a given shape (``None`` entries free)."""
    arr = check_array(x, name, ndim=2)
    if shape is not None and any(s is not None and s != a for s, a in zip(shape, arr.shape)):
        want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
        raise InputError(name, f"has shape {arr.shape}", f"shape {want}")
    return arr


def check_prob_matrix(e, name: str, n: int | None = None, n_arms: int | None = None, *,
                      positive: bool = False) -> np.ndarray:
    """An (n, K) matrix of probabilities: entries in [0, 1] (in (0, 1] if ``positive``), rows summing to 1."""
    arr = check_matrix(e, name, (n, n_arms))
    if arr.shape[1] < 2:
        raise InputError(name, f"has {arr.shape[1]} column(s)", "one column per arm (at least 2)")
    if arr.size and (arr.min() < 0 or arr.max() > 1 + PROB_ATOL):
        raise InputError(name, f"has entries outside [0, 1] (min {arr.min():.3g}, max {arr.max():.3g})",
                         "probabilities in [0, 1]")
    if positive and arr.size and arr.min() <= 0:
        raise InputError(name, "has zero entries (an inverse-propensity weight would divide by zero)",
                         "probabilities in (0, 1] (clip them away from 0)")
    dev = np.abs(arr.sum(axis=1) - 1.0)
    if dev.size and dev.max() > PROB_ATOL:
        raise InputError(name, f"has rows not summing to 1 (largest deviation {dev.max():.3g})",
                         "each row a probability distribution over the arms")
    return arr


def check_propensity(propensity, n: int, n_arms: int, name: str = "propensity"):
    """Known propensities supplied by the user (None = estimate them)."""
    if propensity is None:
        return None
    return check_prob_matrix(propensity, name, n, n_arms)


def check_nu(nu_L, nu_U, shape=None, tol: float = 1e-8):
    """Quantile-centred masked means: ``nu_L <= 0 <= nu_U`` for the true functions (E[(Y-q)1{Y<=q}] <= 0).

    Estimated masked means may cross zero here and there (a flexible regression, a perturbed nuisance), so
    only a *systematic* violation is refused: more than half of the entries with the wrong sign means the
    arrays are not quantile-centred masked means (e.g. the paper's uncentred mu_L, mu_U, a sign flip, or
    nu_L and nu_U swapped).
    """
    nl = check_array(nu_L, "nu_L")
    nu = check_array(nu_U, "nu_U")
    if shape is not None:
        for arr, nm in ((nl, "nu_L"), (nu, "nu_U")):
            if arr.shape != tuple(shape):
                raise InputError(nm, f"has shape {arr.shape}", f"shape {tuple(shape)}")
    if nl.size and np.mean(nl > tol) > 0.5:
        raise InputError("nu_L", f"is positive in {np.mean(nl > tol):.0%} of the entries (max {nl.max():.3g}); "
                         "nu_L = E[(Y-q)1{Y<=q}|x,a] <= 0",
                         "quantile-centred masked means, non-positive (paper_to_centered converts the paper's mu_L)")
    if nu.size and np.mean(nu < -tol) > 0.5:
        raise InputError("nu_U", f"is negative in {np.mean(nu < -tol):.0%} of the entries (min {nu.min():.3g}); "
                         "nu_U = E[(Y-q)1{Y>q}|x,a] >= 0",
                         "quantile-centred masked means, non-negative (paper_to_centered converts the paper's mu_U)")
    return nl, nu


def check_broadcast(**arrays):
    """Arrays that must broadcast together elementwise; names the first that does not fit the others."""
    shapes = {k: np.shape(v) for k, v in arrays.items()}
    names = list(shapes)
    cur = shapes[names[0]]
    for k in names[1:]:
        try:
            cur = np.broadcast_shapes(cur, shapes[k])
        except ValueError:
            desc = ", ".join(f"{nm} {s}" for nm, s in shapes.items())
            raise InputError(k, f"has shape {shapes[k]}, which does not broadcast with the others ({desc})",
                             "arrays of the same shape (or broadcastable)") from None
    return cur


def check_levels(levels, name: str = "levels") -> list[float]:
    """Quantile levels: a list (or 1-D array) of numbers in (0, 1)."""
    if isinstance(levels, (str, bytes)) or np.ndim(levels) != 1:
        raise InputError(name, f"got {levels!r}", "a list of quantile levels in (0, 1), e.g. [2/3, 1/3]")
    return [check_in_range(lv, name, 0.0, 1.0, low_open=True, high_open=True) for lv in list(levels)]


def check_fitted(est, attributes, method: str) -> None:
    check_is_fitted(est, attributes, method=method)


def check_n_features(est, X, method: str = "predict", name: str = "X") -> np.ndarray:
    """X at predict time: fitted first, 2-D, finite, with the number of features seen in fit."""
    check_fitted(est, "n_features_in_", method)
    return check_X(X, name, n_features=est.n_features_in_, min_rows=1, estimator=est)
