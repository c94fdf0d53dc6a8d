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
        Covariates (a 1-D array is read as one covariate).
    A : array of shape (n,)
        Treatment (arm) received, integers ``0 .. K-1``.
    Y : array of shape (n,)
        Observed outcome.
    feature_names : list of str, optional
    source : str, optional
        Where the data came from (package and table, or a path).
    description : str, optional
    arm_names : list of str, optional
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
        if self.arm_names is not None and len(self.arm_names) < k:
            raise InputError("arm_names", f"has {len(self.arm_names)} names for {k} arms", "one name per arm")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "Y", Y)

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_arms(self) -> int:
        return int(len(self.arm_names)) if self.arm_names else int(self.A.max()) + 1

    def subset(self, idx) -> "ObservationalData":
        """Rows ``idx`` as a new dataset with the same metadata."""
        idx = np.asarray(idx)
        return ObservationalData(self.X[idx], self.A[idx], self.Y[idx], self.feature_names, self.source,
                                 self.description, self.arm_names, dict(self.meta))

    def __repr__(self) -> str:
        return (f"ObservationalData(n={self.n}, d={self.n_features}, arms={self.n_arms}, "
                f"source={self.source!r})")
