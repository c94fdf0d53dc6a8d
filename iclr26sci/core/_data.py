"""Typed datasets shared by the methods and the data adapters."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._errors import InputError, check_array, check_consistent_length

__all__ = ["ObservationalData"]


@dataclass(frozen=True)
class ObservationalData:
    """Observational data ``(X, A, Y)`` for causal and off-policy methods.

    Parameters
    ----------
    X : array of shape (n, d)
        Covariates: one row per unit, one column per pre-treatment feature
        (a 1-D array is read as ONE covariate, i.e. shape (n, 1)).
    A : array of shape (n,)
        Treatment (arm) each unit received, integers ``0 .. K-1``. Without
        ``arm_names`` the number of arms is ``max(A) + 1``, which may not
        exceed ``n`` (a larger label is a labelling error).
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
        X = check_array(self.X, "X", ndim=(1, 2))
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
