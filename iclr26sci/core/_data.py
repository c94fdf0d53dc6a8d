"""Typed datasets shared by the methods and the data adapters."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._errors import InputError, check_array, check_consistent_length

__all__ = ["ObservationalData", "tabular_features", "encode_arms"]


def _is_frame(x) -> bool:
    return type(x).__name__ == "DataFrame" and hasattr(x, "dtypes") and hasattr(x, "columns")


def _is_series(x) -> bool:
    return type(x).__name__ == "Series" and hasattr(x, "dtype") and hasattr(x, "to_numpy")


def tabular_features(X, name: str = "X"):
    """``(array, feature_names)`` from an array, a list of rows or a pandas DataFrame.

    Bool columns count as numeric (0/1). A DataFrame keeps its column names (as strings); an array gives
    ``None``. A non-numeric column (strings, categories, objects) is refused with the column's name and how
    to encode it, before any work.

    Examples
    --------
    >>> import pandas as pd
    >>> X, names = tabular_features(pd.DataFrame({"age": [30, 41], "smoker": [True, False]}))
    >>> X, names
    (array([[30.,  1.],
           [41.,  0.]]), ['age', 'smoker'])
    >>> tabular_features(pd.DataFrame({"site": ["a", "b"]}))
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `X`: column 'site' has the non-numeric dtype ...; expected numeric or bool columns: encode categories first, e.g. pandas.get_dummies(X, columns=['site'], dtype=float)
    """
    if _is_frame(X):
        bad = [c for c, dt in X.dtypes.items() if not _numeric_dtype(dt)]
        if bad:
            raise InputError(name, f"column {bad[0]!r} has the non-numeric dtype {X.dtypes[bad[0]]}",
                             "numeric or bool columns: encode categories first, e.g. "
                             f"pandas.get_dummies({name}, columns={[str(c) for c in bad]!r}, dtype=float)")
        try:
            arr = X.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError):
            raise InputError(name, "has columns that cannot be read as numbers", "numeric or bool columns") from None
        return arr, [str(c) for c in X.columns]
    if _is_series(X):
        X = X.to_numpy()
    arr = np.asarray(X) if not isinstance(X, np.ndarray) else X
    if isinstance(arr, np.ndarray) and arr.dtype == bool:
        arr = arr.astype(float)
    return arr, None


def _numeric_dtype(dt) -> bool:
    """A column dtype that holds numbers: numpy bool/int/float, or a pandas nullable Int64, boolean, Float64."""
    try:
        return np.dtype(dt).kind in "biuf"
    except TypeError:
        return getattr(dt, "kind", "O") in "biuf"


def encode_arms(A, arm_names=None, name: str = "A"):
    """``(codes, arm_names)``: integer arm codes 0..K-1 from integer labels, bools, strings or categories.

    Integer (or integer-valued float) labels are kept as they are (``arm_names`` unchanged). Strings and
    other non-numeric labels are mapped to codes in sorted order, or in the categories' order for a pandas
    ``Categorical``, or in the order of ``arm_names`` when given (a label not in it is refused); the names
    are returned so results can be reported by name. Bool labels are arms 0 (False) and 1 (True).

    Examples
    --------
    >>> encode_arms(["drug", "placebo", "drug"])
    (array([0, 1, 0]), ['drug', 'placebo'])
    >>> encode_arms(["b", "a"], arm_names=["b", "a"])
    (array([0, 1]), ['b', 'a'])
    """
    if _is_series(A):
        dt = A.dtype
        if type(dt).__name__ == "CategoricalDtype":
            cats = [str(c) for c in dt.categories]
            codes = np.asarray(A.cat.codes, dtype=np.int64)
            if np.any(codes < 0):
                raise InputError(name, "has missing treatment labels", "one arm label per unit")
            if arm_names is not None:
                return encode_arms(np.asarray(A.astype(str)), arm_names, name)
            return codes, cats
        A = A.to_numpy()
    arr = np.asarray(A)
    if arr.dtype == bool:
        return arr.astype(np.int64), arm_names
    if arr.dtype.kind in "iuf" or arr.size == 0:
        return arr, arm_names
    if arr.dtype.kind not in "USO" or arr.ndim != 1:
        return arr, arm_names          # let the numeric check name the problem
    vals = arr.tolist()
    if any(v is None or (isinstance(v, float) and v != v) for v in vals):
        raise InputError(name, "has missing treatment labels", "one arm label per unit")
    labels = [str(v) for v in vals]
    if arm_names is not None:
        if isinstance(arm_names, str) or not all(isinstance(t, str) for t in arm_names):
            raise InputError("arm_names", f"got {arm_names!r}", "a list of strings")
        index = {nm: i for i, nm in enumerate(arm_names)}
        unknown = sorted(set(labels) - set(index))
        if unknown:
            raise InputError(name, f"has labels {unknown[:5]} that are not in arm_names {list(arm_names)}",
                             "labels that arm_names lists")
        return np.array([index[t] for t in labels], dtype=np.int64), list(arm_names)
    names = sorted(set(labels))
    index = {nm: i for i, nm in enumerate(names)}
    return np.array([index[t] for t in labels], dtype=np.int64), names


@dataclass(frozen=True)
class ObservationalData:
    """Observational data ``(X, A, Y)`` for causal and off-policy methods.

    Parameters
    ----------
    X : array of shape (n, d) or pandas DataFrame
        Covariates: one row per unit, one column per pre-treatment feature
        (a 1-D array is read as ONE covariate, i.e. shape (n, 1)). Bool
        columns are numeric; a DataFrame's column names become
        ``feature_names`` unless those are given.
    A : array of shape (n,)
        Treatment (arm) each unit received: integers ``0 .. K-1``, or labels
        (strings, a pandas ``Categorical``, bools) that are mapped to arms
        and kept as ``arm_names`` (see :func:`encode_arms`). With integer
        labels and no ``arm_names`` the number of arms is ``max(A) + 1``,
        which may not exceed ``n`` (a larger label is a labelling error).
    Y : array of shape (n,)
        Observed outcome of each unit under the arm it received.
    feature_names : list of str, optional
        One name per column of ``X``.
    source : str, optional
        Where the data came from (package and table, or a path).
    description : str, optional
        A sentence on what ``A`` and ``Y`` are.
    arm_names : list of str, optional
        One name per arm; fixes the number of arms ``K = len(arm_names)``
        (an arm may then be unobserved).
    meta : dict, optional
        Further per-dataset information (e.g. ``{"randomized": True}``).

    Examples
    --------
    >>> d = ObservationalData([[0.1], [0.4], [0.9]], [0, 1, 1], [1.0, 2.5, 3.0], arm_names=["control", "treated"])
    >>> d
    ObservationalData(n=3, d=1, arms=2, source=None)
    >>> d.subset([0, 2]).n
    2
    >>> d.to_dict()["n_arms"]
    2
    """

    X: np.ndarray
    A: np.ndarray
    Y: np.ndarray
    feature_names: list[str] | None = None
    source: str | None = None
    description: str | None = None
    arm_names: list[str] | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        Xa, cols = tabular_features(self.X, "X")
        if self.feature_names is None and cols is not None:
            object.__setattr__(self, "feature_names", cols)
        codes, arm_names = encode_arms(self.A, self.arm_names, "A")
        if arm_names is not self.arm_names:
            object.__setattr__(self, "arm_names", arm_names)
        Ya = self.Y.to_numpy() if _is_series(self.Y) else self.Y
        if isinstance(Ya, np.ndarray) and Ya.dtype == bool:
            Ya = Ya.astype(float)
        object.__setattr__(self, "Y", Ya)
        object.__setattr__(self, "A", codes)
        X = check_array(Xa, "X", ndim=(1, 2))
        if X.ndim == 1:
            X = X[:, None]
        A = check_array(self.A, "A", ndim=1, dtype=int)
        Y = check_array(self.Y, "Y", ndim=1)
        check_consistent_length(X=X, A=A, Y=Y)
        if X.shape[0] < 1:
            raise InputError("X", "has no rows", "at least one observation")
        if A.min() < 0:
            raise InputError("A", f"has negative arm index {A.min()}", "integers 0..K-1")
        if self.feature_names is not None and len(self.feature_names) != X.shape[1]:
            raise InputError("feature_names", f"has {len(self.feature_names)} names for {X.shape[1]} columns",
                             "one name per column of X")
        k = int(A.max()) + 1
        for nm in ("feature_names", "arm_names"):
            v = getattr(self, nm)
            if v is not None and (isinstance(v, str) or not all(isinstance(t, str) for t in v)):
                raise InputError(nm, f"got {v!r}", "a list of strings")
        for nm in ("source", "description"):
            v = getattr(self, nm)
            if v is not None and not isinstance(v, str):
                raise InputError(nm, f"got {type(v).__name__}", "a string or None")
        if not isinstance(self.meta, dict):
            raise InputError("meta", f"got {type(self.meta).__name__}", "a dict")
        if self.arm_names is not None and len(self.arm_names) < k:
            raise InputError("arm_names", f"has {len(self.arm_names)} names for {k} arms", "one name per arm")
        if self.arm_names is None and k > X.shape[0]:
            raise InputError("A", f"has arm label {k - 1}, which implies {k} arms for {X.shape[0]} units",
                             "arm labels 0..K-1 (relabel the arms, or pass arm_names to declare K)")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "Y", Y)

    @property
    def n(self) -> int:
        """Number of units (rows)."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of covariates (columns of ``X``)."""
        return int(self.X.shape[1])

    @property
    def n_arms(self) -> int:
        """Number of arms ``K``: ``len(arm_names)`` when given, else ``max(A) + 1``."""
        return int(len(self.arm_names)) if self.arm_names else int(self.A.max()) + 1

    def subset(self, idx) -> "ObservationalData":
        """Rows ``idx`` as a new dataset with the same metadata.

        Parameters
        ----------
        idx : array of int in [0, n) or boolean mask of shape (n,)
            The units to keep (at least one); negative indices are refused.
        """
        arr = np.asarray(idx)
        if arr.dtype == bool:
            if arr.shape != (self.n,):
                raise InputError("idx", f"is a boolean mask of shape {arr.shape}", f"shape ({self.n},)")
            arr = np.flatnonzero(arr)
        else:
            arr = check_array(idx, "idx", ndim=1, dtype=int)
        if arr.size == 0:
            raise InputError("idx", "selects no rows", "at least one row index")
        if arr.min() < 0 or arr.max() >= self.n:
            raise InputError("idx", f"has indices outside [0, {self.n}) (min {arr.min()}, max {arr.max()})",
                             f"row indices in [0, {self.n})")
        return ObservationalData(self.X[arr], self.A[arr], self.Y[arr], self.feature_names, self.source,
                                 self.description, self.arm_names, dict(self.meta))

    def summary(self) -> str:
        """A few lines: size, arms with their counts, outcome range, source."""
        counts = np.bincount(self.A, minlength=self.n_arms)
        names = self.arm_names or [str(k) for k in range(self.n_arms)]
        arms = ", ".join(f"{nm}: {c}" for nm, c in zip(names, counts))
        lines = [f"ObservationalData: n={self.n} units, d={self.n_features} covariates, K={self.n_arms} arms",
                 f"  arms: {arms}",
                 f"  Y: mean {self.Y.mean():.4g}, range [{self.Y.min():.4g}, {self.Y.max():.4g}]"]
        if self.source:
            lines.append(f"  source: {self.source}")
        if self.description:
            lines.append(f"  {self.description}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Sizes and metadata as a plain dict (the arrays are summarised, not dumped)."""
        return {"n": self.n, "n_features": self.n_features, "n_arms": self.n_arms,
                "arm_counts": np.bincount(self.A, minlength=self.n_arms).tolist(),
                "feature_names": self.feature_names, "arm_names": self.arm_names, "source": self.source,
                "description": self.description, "y_mean": float(self.Y.mean())}

    def __eq__(self, other) -> bool:
        """Equal data (arrays compared elementwise) and names; ``meta`` is not compared."""
        if not isinstance(other, ObservationalData):
            return NotImplemented
        return (all(np.array_equal(getattr(self, k), getattr(other, k)) for k in ("X", "A", "Y"))
                and all(getattr(self, k) == getattr(other, k)
                        for k in ("feature_names", "source", "description", "arm_names")))

    def __repr__(self) -> str:
        return (f"ObservationalData(n={self.n}, d={self.n_features}, arms={self.n_arms}, "
                f"source={self.source!r})")
