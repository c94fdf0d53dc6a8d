"""The library's error type and small argument validators.

Every validator names the argument, says what was wrong and what is
expected, and raises before any work is done.
"""
from __future__ import annotations

from numbers import Integral, Real
from typing import Any, Sequence

import numpy as np

__all__ = [
    "InputError",
    "check_array",
    "check_probability_vector",
    "check_in_range",
    "check_positive_int",
    "check_option",
    "check_consistent_length",
    "check_bool",
    "check_is_fitted",
    "check_memory",
    "NotFittedError",
]


class InputError(ValueError):
    """Bad input to an iclr26sci function.

    Parameters
    ----------
    argument : str
        Name of the offending argument.
    problem : str
        What was wrong with it.
    expected : str, optional
        What would have been right.

    Examples
    --------
    >>> err = InputError("gamma", "got 0.5", "a number >= 1")
    >>> str(err)
    'invalid argument `gamma`: got 0.5; expected a number >= 1'
    >>> isinstance(err, ValueError), err.argument
    (True, 'gamma')
    """

    def __init__(self, argument: str, problem: str, expected: str | None = None):
        self.argument = argument
        self.problem = problem
        self.expected = expected
        msg = f"invalid argument `{argument}`: {problem}"
        if expected:
            msg += f"; expected {expected}"
        super().__init__(msg)

    def __reduce__(self):  # picklable across processes / dask workers
        return (type(self), (self.argument, self.problem, self.expected))


_INT64_MAX = np.iinfo(np.int64).max


def check_array(
    x: Any,
    name: str,
    *,
    ndim: int | Sequence[int] | None = None,
    shape: tuple | None = None,
    dtype: Any = float,
    finite: bool = True,
    min_rows: int = 0,
    nonnegative: bool = False,
) -> np.ndarray:
    """Convert ``x`` to a numpy array and check its dimension, shape, type and values.

    Parameters
    ----------
    x : array-like
        The user's data.
    name : str
        The argument's name, used in the error message.
    ndim : int or sequence of int, optional
        Allowed numbers of dimensions (e.g. ``2`` for a design matrix X,
        ``(1, 2)`` for a vector or a matrix). A 1-D row given where a 2-D
        array is expected is refused, with the reshape that would fix it.
    shape : tuple, optional
        Required shape; ``None`` entries leave an axis free.
    dtype : type or None, default float
        ``float`` converts to float64; ``int`` requires integral values that
        fit in int64 (no silent wrap-around of 1e30, 2**63 or a large
        uint64); ``None`` keeps the input's dtype. Complex input is refused
        unless ``dtype`` is complex.
    finite : bool, default True
        Refuse NaN and infinite entries.
    min_rows : int, default 0
        Least number of rows (length of the first axis).
    nonnegative : bool, default False
        Refuse negative entries.

    Returns
    -------
    ndarray

    Raises
    ------
    InputError
        Naming ``name``, what is wrong and what is expected.

    Examples
    --------
    >>> check_array([[1, 2], [3, 4]], "X", ndim=2)
    array([[1., 2.],
           [3., 4.]])
    >>> check_array([1e30], "A", dtype=int)
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `A`: has entries too large for a 64-bit integer (largest |value| 1e+30); expected integers in [-2**63, 2**63)
    >>> check_array([1.0, 2.0], "X", ndim=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `X`: has 1 dimension(s) (shape (2,)); expected 2 dimension(s) ...
    """
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError, OverflowError):
        raise InputError(name, "has ragged or non-numeric entries", "a rectangular numeric array") from None
    if arr.dtype == object:
        flat = arr.ravel()
        if flat.size and all(isinstance(v, (Integral, np.integer)) and not isinstance(v, bool) for v in flat):
            big = max(abs(int(v)) for v in flat)
            raise InputError(name, f"has integers too large for 64 bits (largest |value| {big:.3g})",
                             "integers in [-2**63, 2**63)")
        raise InputError(name, "has ragged or non-numeric entries", "a rectangular numeric array")
    want_complex = dtype is not None and np.issubdtype(np.dtype(dtype), np.complexfloating)
    if arr.size and np.iscomplexobj(arr) and not want_complex and dtype is not None:
        raise InputError(name, "has complex entries", "real numbers")
    if dtype is int:
        if arr.size and not np.issubdtype(arr.dtype, np.integer) and arr.dtype != bool:
            if not np.issubdtype(arr.dtype, np.number) or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
                raise InputError(name, "has non-integer entries", "integers")
            big = float(np.max(np.abs(arr)))
            if float(np.max(arr)) >= 2.0 ** 63 or float(np.min(arr)) < -(2.0 ** 63):
                raise InputError(name, f"has entries too large for a 64-bit integer (largest |value| {big:.3g})",
                                 "integers in [-2**63, 2**63)")
        elif arr.size and arr.dtype == np.uint64 and int(arr.max()) > _INT64_MAX:
            raise InputError(name, f"has entries too large for a 64-bit signed integer (max {int(arr.max())})",
                             "integers in [-2**63, 2**63)")
        arr = arr.astype(np.int64, copy=False)
    elif dtype is not None:
        if arr.size and not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise InputError(name, f"has dtype {arr.dtype}", "numeric values")
        arr = arr.astype(dtype, copy=False)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            hint = ""
            if arr.ndim == 1 and 2 in allowed:
                hint = (" (a 1-D array is not read as a matrix: pass x.reshape(1, -1) for one row or "
                        "x.reshape(-1, 1) for one column)")
            raise InputError(name, f"has {arr.ndim} dimension(s) (shape {arr.shape})",
                             f"{' or '.join(map(str, allowed))} dimension(s){hint}")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise InputError(name, f"has shape {arr.shape}", f"shape {want}")
    if finite and arr.size and np.issubdtype(arr.dtype, np.inexact) and not np.all(np.isfinite(arr)):
        raise InputError(name, "contains NaN or infinite values", "finite numbers")
    if nonnegative and arr.size and np.any(arr < 0):
        raise InputError(name, f"has negative entries (min {arr.min():g})", "non-negative values")
    if arr.ndim >= 1 and arr.shape[0] < min_rows:
        raise InputError(name, f"has {arr.shape[0]} rows", f"at least {min_rows}")
    return arr


def check_probability_vector(p: Any, name: str, *, atol: float = 1e-8, axis: int = -1) -> np.ndarray:
    """Check non-negative entries summing to one along ``axis`` (rows of a matrix too).

    Parameters
    ----------
    p : array-like of shape (K,) or (n, K)
        A probability vector, or a matrix whose rows (``axis=-1``) are probability vectors
        (e.g. propensities: one row per unit, one column per arm).
    name : str
        The argument's name, used in the error message.
    atol : float, default 1e-8
        Tolerance on the sums (scaled by the number of entries) and on negativity.
    axis : int, default -1
        The axis along which entries must sum to one.

    Returns
    -------
    ndarray
        ``p`` as floats, tiny negative rounding errors clipped to 0.

    Examples
    --------
    >>> check_probability_vector([0.25, 0.75], "p")
    array([0.25, 0.75])
    >>> check_probability_vector([[0.5, 0.4]], "propensity")
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `propensity`: does not sum to 1 (largest deviation 0.1); expected entries summing to 1
    """
    arr = check_array(p, name, ndim=(1, 2))
    if arr.size == 0:
        raise InputError(name, "is empty", "at least one probability")
    if np.any(arr < -atol):
        raise InputError(name, f"has negative entries (min {arr.min():g})", "probabilities in [0, 1]")
    s = arr.sum(axis=axis)
    if np.any(np.abs(s - 1.0) > atol * max(1, arr.shape[axis])):
        worst = float(np.max(np.abs(s - 1.0)))
        raise InputError(name, f"does not sum to 1 (largest deviation {worst:.3g})", "entries summing to 1")
    return np.clip(arr, 0.0, None)


def check_in_range(
    value: Any,
    name: str,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Check a real scalar lies in an interval; returns it as ``float``.

    Parameters
    ----------
    value : real scalar
        The user's number (a Python or numpy real scalar); an array (a 0-d
        array too: it is mutable and not a number), a bool, a string or a
        complex number is refused, and so is NaN.
    name : str
        The argument's name, used in the error message.
    low, high : float, optional
        Interval ends (``None``: unbounded on that side).
    low_open, high_open : bool, default False
        Exclude the corresponding end.

    Examples
    --------
    >>> check_in_range(0.05, "alpha", 0.0, 1.0, low_open=True, high_open=True)
    0.05
    >>> check_in_range(float("nan"), "alpha", 0.0, 1.0)
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `alpha`: got nan; expected a finite number in [0.0, 1.0]
    """
    if isinstance(value, np.ndarray):
        raise InputError(name, f"got a numpy array of shape {value.shape}",
                         "a real number (a scalar, not an array: pass float(x) or x.item() for a 0-d array)")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.floating, np.integer)):
        raise InputError(name, f"got {value!r} of type {type(value).__name__}", "a real number")
    v = float(value)
    lo = "(" if (low_open or low is None) else "["
    hi = ")" if (high_open or high is None) else "]"
    interval = f"{lo}{'-inf' if low is None else low}, {'inf' if high is None else high}{hi}"
    if not np.isfinite(v):
        raise InputError(name, f"got {v}", f"a finite number in {interval}")
    bad = (
        (low is not None and (v < low or (low_open and v == low)))
        or (high is not None and (v > high or (high_open and v == high)))
    )
    if bad:
        raise InputError(name, f"got {v:g}", f"a number in {interval}")
    return v


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Check an integer (Python or numpy, not a bool or a float) at least ``minimum``; returns it as ``int``.

    Parameters
    ----------
    value : int
        The user's count.
    name : str
        The argument's name, used in the error message.
    minimum : int, default 1
        Smallest value allowed.

    Examples
    --------
    >>> check_positive_int(3, "n")
    3
    >>> check_positive_int(2.0, "n")
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `n`: got 2.0 of type float; expected an integer >= 1
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
        raise InputError(name, f"got {value!r} of type {type(value).__name__}", f"an integer >= {minimum}")
    if int(value) < minimum:
        raise InputError(name, f"got {int(value)}", f"an integer >= {minimum}")
    return int(value)


def _same_option(v: Any, o: Any) -> bool:
    if v is o:
        return True
    if isinstance(v, (bool, np.bool_)) != isinstance(o, (bool, np.bool_)):
        return False
    try:
        r = v == o
    except Exception:  # noqa: BLE001 - an incomparable value is simply not an option
        return False
    return r is True or (isinstance(r, np.bool_) and bool(r))


def check_option(value: Any, name: str, options: Sequence[str]) -> str:
    """Check that ``value`` is one of ``options`` (exact match; no silent default).

    Parameters
    ----------
    value : object
        The user's choice.
    name : str
        The argument's name, used in the error message.
    options : sequence of str
        The accepted choices.

    Examples
    --------
    >>> check_option("dr", "estimator", ["dr", "ipw"])
    'dr'
    >>> check_option("tmle", "estimator", ["dr", "ipw"])
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `estimator`: got 'tmle'; expected one of 'dr', 'ipw'
    """
    if not any(_same_option(value, o) for o in options):
        raise InputError(name, f"got {value!r}", "one of " + ", ".join(repr(o) for o in options))
    return value


def check_consistent_length(**arrays: Any) -> int:
    """Check that all given arrays have the same first dimension; returns it.

    Parameters
    ----------
    **arrays : array-like or None
        Named arrays (``None`` entries are skipped); each needs a length.

    Examples
    --------
    >>> check_consistent_length(X=[[1], [2]], y=[0, 1])
    2
    >>> check_consistent_length(X=[[1], [2]], y=[0, 1, 1])
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `X`: inconsistent numbers of rows (X has 2, y has 3); expected the same number of rows in each
    """
    lengths = {}
    for k, v in arrays.items():
        if v is None:
            continue
        try:
            lengths[k] = len(v)
        except TypeError:
            raise InputError(k, f"got {type(v).__name__}, which has no length", "an array with one row per sample") \
                from None
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        first = next(iter(lengths))
        raise InputError(first, f"inconsistent numbers of rows ({desc})", "the same number of rows in each")
    return next(iter(lengths.values())) if lengths else 0


def check_bool(value: Any, name: str) -> bool:
    """Check a real boolean flag (``True``/``False`` or a numpy bool), never a string or a number.

    ``normalize='no'`` is truthy in Python; a flag must be a bool so that such a call fails loudly.

    Examples
    --------
    >>> check_bool(True, "normalize")
    True
    >>> check_bool("no", "normalize")
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `normalize`: got 'no' of type str; expected True or False
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InputError(name, f"got {value!r} of type {type(value).__name__}", "True or False")


def _make_not_fitted_error():
    # built on first use: importing scikit-learn costs about a second, too much for `import iclr26sci.core`
    from sklearn.exceptions import NotFittedError as _SkNotFitted

    class NotFittedError(InputError, _SkNotFitted):
        """An estimator was used before ``fit``: both an :class:`InputError` and scikit-learn's ``NotFittedError``.

        Examples
        --------
        >>> from sklearn.exceptions import NotFittedError as SkNotFitted
        >>> from iclr26sci.core import InputError, NotFittedError
        >>> issubclass(NotFittedError, SkNotFitted) and issubclass(NotFittedError, InputError)
        True
        """

        def __init__(self, argument: str, problem: str = "is not fitted yet",
                     expected: str | None = "call fit(...) first"):
            InputError.__init__(self, argument, problem, expected)

    NotFittedError.__module__ = __name__
    NotFittedError.__qualname__ = "NotFittedError"
    return NotFittedError


def __getattr__(name):  # lazy NotFittedError (PEP 562)
    if name == "NotFittedError":
        cls = _make_not_fitted_error()
        globals()["NotFittedError"] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_is_fitted(estimator: Any, attributes: str | Sequence[str], *, method: str | None = None) -> None:
    """Raise :class:`NotFittedError` when ``estimator`` lacks any of the fitted ``attributes``.

    An attribute counts as missing when it is absent or ``None``.

    Parameters
    ----------
    estimator : object
        The estimator whose method was called.
    attributes : str or list of str
        Names of attributes that ``fit`` sets (by convention ending in ``_``).
    method : str, optional
        The method that needs them (named in the message).

    Examples
    --------
    >>> class Est:
    ...     pass
    >>> check_is_fitted(Est(), "coef_")
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.NotFittedError: invalid argument `Est`: is not fitted yet; expected call fit(...) first
    """
    if isinstance(attributes, str):
        attrs = [attributes]
    elif isinstance(attributes, (list, tuple)) and attributes and all(isinstance(a, str) for a in attributes):
        attrs = list(attributes)
    else:
        raise InputError("attributes", f"got {attributes!r}", "a fitted-attribute name or a non-empty list of names")
    if method is not None and not isinstance(method, str):
        raise InputError("method", f"got {type(method).__name__}", "the calling method's name or None")
    if any(getattr(estimator, a, None) is None for a in attrs):
        who = type(estimator).__name__ + (f".{method}" if method else "")
        raise __getattr__("NotFittedError")(who) if "NotFittedError" not in globals() \
            else globals()["NotFittedError"](who)


#: largest single allocation a function may ask for before it refuses (bytes); a fraction of memory
def _memory_limit() -> int:
    try:
        import os

        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        total = 16 * 2**30
    return int(0.5 * total)


def _fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} PiB"  # pragma: no cover


def check_memory(nbytes: float, name: str, what: str, *, limit: int | None = None) -> None:
    """Refuse, before allocating, a request whose estimated size exceeds half the machine's memory.

    Parameters
    ----------
    nbytes : float
        Estimated size of the allocation in bytes (may be astronomically large; computed in float).
    name : str
        The argument that drives the size (named in the error).
    what : str
        What would be allocated, in words (e.g. ``"the return-distribution grid"``).
    limit : int, optional
        Override of the limit in bytes (default: half the physical memory).

    Examples
    --------
    >>> check_memory(1e3, "theta", "a small table")
    >>> check_memory(2.0**60, "theta", "the return grid")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `theta`: would need ... for the return grid...
    """
    if isinstance(nbytes, (bool, np.bool_)) or not isinstance(nbytes, (Real, np.floating, np.integer)):
        raise InputError("nbytes", f"got {nbytes!r} of type {type(nbytes).__name__}", "an estimated size in bytes")
    if float(nbytes) < 0 or np.isnan(float(nbytes)):
        raise InputError("nbytes", f"got {float(nbytes):g}", "a size >= 0 bytes")
    if limit is not None:
        limit = check_positive_int(limit, "limit")
    lim = _memory_limit() if limit is None else int(limit)
    if not np.isfinite(float(nbytes)) or float(nbytes) > lim:
        raise InputError(name, f"would need {_fmt_bytes(float(nbytes))} for {what}",
                         f"a setting that needs at most {_fmt_bytes(lim)} (half this machine's memory)")
