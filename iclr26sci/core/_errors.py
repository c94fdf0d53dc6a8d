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
    """Convert ``x`` to an array and check its dimension, shape and values.

    ``shape`` may contain ``None`` for free axes. ``dtype=None`` keeps the
    input type; ``dtype=int`` requires integral values.
    """
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError):
        raise InputError(name, "has ragged or non-numeric entries", "a rectangular numeric array") from None
    if arr.dtype == object:
        raise InputError(name, "has ragged or non-numeric entries", "a rectangular numeric array")
    if dtype is int:
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            if not np.issubdtype(arr.dtype, np.number) or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
                raise InputError(name, "has non-integer entries", "integers")
        arr = arr.astype(np.int64, copy=False)
    elif dtype is not None:
        if arr.size and not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise InputError(name, f"has dtype {arr.dtype}", "numeric values")
        arr = arr.astype(dtype, copy=False)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise InputError(name, f"has {arr.ndim} dimension(s) (shape {arr.shape})",
                             f"{' or '.join(map(str, allowed))} dimension(s)")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise InputError(name, f"has shape {arr.shape}", f"shape {want}")
    if finite and arr.size and np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        raise InputError(name, "contains NaN or infinite values", "finite numbers")
    if nonnegative and arr.size and np.any(arr < 0):
        raise InputError(name, f"has negative entries (min {arr.min():g})", "non-negative values")
    if arr.ndim >= 1 and arr.shape[0] < min_rows:
        raise InputError(name, f"has {arr.shape[0]} rows", f"at least {min_rows}")
    return arr


def check_probability_vector(p: Any, name: str, *, atol: float = 1e-8, axis: int = -1) -> np.ndarray:
    """Check non-negative entries summing to one along ``axis`` (rows of a matrix too)."""
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
    """Check a real scalar lies in an interval; returns it as ``float``."""
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
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
    """Check an integer at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (Integral, np.integer)):
        raise InputError(name, f"got {value!r} of type {type(value).__name__}", f"an integer >= {minimum}")
    if int(value) < minimum:
        raise InputError(name, f"got {int(value)}", f"an integer >= {minimum}")
    return int(value)


def check_option(value: Any, name: str, options: Sequence[str]) -> str:
    """Check that ``value`` is one of ``options``."""
    if value not in options:
        raise InputError(name, f"got {value!r}", "one of " + ", ".join(repr(o) for o in options))
    return value


def check_consistent_length(**arrays: Any) -> int:
    """Check that all given arrays have the same first dimension; returns it."""
    lengths = {k: len(v) for k, v in arrays.items() if v is not None}
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

    Examples
    --------
    >>> class Est:
    ...     pass
    >>> check_is_fitted(Est(), "coef_")
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.NotFittedError: invalid argument `Est`: is not fitted yet; expected call fit(...) first
    """
    attrs = [attributes] if isinstance(attributes, str) else list(attributes)
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
    lim = _memory_limit() if limit is None else int(limit)
    if not np.isfinite(nbytes) or nbytes > lim:
        raise InputError(name, f"would need {_fmt_bytes(float(nbytes))} for {what}",
                         f"a setting that needs at most {_fmt_bytes(lim)} (half this machine's memory)")
