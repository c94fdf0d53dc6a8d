"""The registry of validation checks.

A check is a function ``(profile, rng) -> CheckResult`` decorated with
:func:`check`. It runs a simulation sized by the profile, compares a
statistic with a threshold derived from the theory plus a Monte-Carlo
tolerance, and returns the figures, a small table and an optional plot.
"""
from __future__ import annotations

import hashlib
import importlib
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["check", "CheckResult", "Criterion", "Profile", "REGISTRY", "METHODS", "load_checks", "run_check", "CheckSpec"]

#: method key -> (module holding its checks, one-line title)
METHODS: dict[str, tuple[str, str]] = {
    "prob": ("validation.prob", "Shared probabilistic primitives (Wasserstein, Gaussian DP, binomial bands)"),
    "games": ("validation.games", "DP equilibrium finding in polymatrix games (arXiv:2503.09538)"),
    "causal": ("validation.causal", "Efficient and sharp off-policy learning under unobserved confounding (arXiv:2502.13022)"),
    "kernels": ("validation.kernels", "Theory-informed deep kernel GPs (arXiv:2509.24919)"),
    "embeddings": ("validation.embeddings", "Uncertainty-driven Embedding Convolution (arXiv:2507.20718)"),
    "imitation": ("validation.imitation", "Imitation learning as return distribution matching (arXiv:2509.12026)"),
}


@dataclass(frozen=True)
class Profile:
    """Size of a validation run: ``quick`` (CI, minutes) or ``full`` (paper scale)."""

    name: str = "quick"

    def __post_init__(self):
        if self.name not in ("quick", "full"):
            from iclr26sci.core import InputError

            raise InputError("profile", f"got {self.name!r}", "'quick' or 'full'")

    @property
    def quick(self) -> bool:
        return self.name == "quick"

    def pick(self, quick: Any, full: Any) -> Any:
        """Return ``quick`` or ``full`` according to the profile."""
        return quick if self.name == "quick" else full


_OPS = {"<=": np.less_equal, ">=": np.greater_equal, "<": np.less, ">": np.greater}


def _compare(statistic: float, comparison: str, threshold: Any) -> bool:
    if comparison not in (*_OPS, "in"):
        raise ValueError(f"comparison must be one of {list(_OPS) + ['in']}, got {comparison!r}")
    if not np.isfinite(statistic):
        return False
    if comparison == "in":
        lo, hi = threshold
        return bool(lo <= statistic <= hi)
    return bool(_OPS[comparison](statistic, float(threshold)))


@dataclass
class Criterion:
    """One criterion of a check with several: a named statistic compared with its own threshold.

    A check passes when every one of its criteria passes; the report shows each as a sub-row.

    Parameters
    ----------
    name : str
        What is measured, in a few words (e.g. ``"sign proportion"``).
    statistic : float
        The measured value (NaN fails).
    threshold : float or (low, high)
        The bound, derived from theory plus Monte-Carlo tolerance.
    comparison : {"<=", ">=", "<", ">", "in"}
    passed : bool, optional
        Defaults to the comparison; a given value is ANDed with finiteness of the statistic.
    """

    name: str
    statistic: float
    threshold: Any
    comparison: str = "<="
    passed: bool | None = None

    def __post_init__(self):
        self.statistic = float(self.statistic)
        ok = _compare(self.statistic, self.comparison, self.threshold)
        self.passed = (ok if self.passed is None else bool(self.passed)) and bool(np.isfinite(self.statistic))


@dataclass
class CheckResult:
    """What a check measured.

    Parameters
    ----------
    statistic : float
        The measured quantity.
    threshold : float
        The bound it is compared with (from theory + Monte-Carlo tolerance).
    passed : bool, optional
        Defaults to ``statistic <comparison> threshold``.
    comparison : {"<=", ">=", "<", ">", "in"}
        How ``statistic`` is compared with ``threshold``; ``"in"`` takes
        ``threshold`` as a ``(low, high)`` pair.
    table : list of dict or pandas.DataFrame, optional
        A small table shown in the report.
    figure : matplotlib.figure.Figure, optional
        A plot embedded in the report as PNG.
    details : str
        One or two sentences: how the threshold was derived, what was run.
    criteria : list of Criterion, optional
        For a check with several criteria: each one's statistic, threshold and verdict. The check
        passes only when all pass. ``statistic``/``threshold``/``comparison`` may then be omitted:
        they default to the deciding criterion (the first failing one, else the first).
    """

    statistic: float = float("nan")
    threshold: Any = float("nan")
    passed: bool | None = None
    comparison: str = "<="
    table: Any = None
    figure: Any = None
    details: str = ""
    extra: dict = field(default_factory=dict)
    criteria: list = field(default_factory=list)

    def __post_init__(self):
        if self.comparison not in (*_OPS, "in"):
            raise ValueError(f"comparison must be one of {list(_OPS) + ['in']}, got {self.comparison!r}")
        crit = [c for c in self.criteria]
        for c in crit:
            if not isinstance(c, Criterion):
                raise TypeError(f"criteria must be Criterion objects, got {type(c).__name__}")
        if crit and not np.isfinite(float(self.statistic)) and not isinstance(self.threshold, (tuple, list)) \
                and not np.isfinite(float(self.threshold)):
            deciding = next((c for c in crit if not c.passed), crit[0])
            self.statistic, self.threshold, self.comparison = deciding.statistic, deciding.threshold, \
                deciding.comparison
        self.statistic = float(self.statistic)
        if self.passed is None:
            self.passed = _compare(self.statistic, self.comparison, self.threshold)
        self.passed = bool(self.passed) and bool(np.isfinite(self.statistic)) and all(c.passed for c in crit)


@dataclass(frozen=True)
class CheckSpec:
    """A registered check."""

    method: str
    name: str
    guarantee: str
    paper: str
    func: Callable[[Profile, np.random.Generator], CheckResult]
    slow: bool = False
    #: wall-clock budget of the quick profile on 2 cores, in seconds (the report flags overruns)
    budget: float = 60.0

    @property
    def key(self) -> str:
        return f"{self.method}.{self.name}"

    def seed(self, master_seed: int) -> np.random.SeedSequence:
        """Per-check seed: the master seed mixed with a stable hash of the check's key."""
        h = int.from_bytes(hashlib.sha256(self.key.encode()).digest()[:8], "little")
        return np.random.SeedSequence([int(master_seed), h])


REGISTRY: dict[str, CheckSpec] = {}


def check(*, method: str, guarantee: str, paper: str, name: str | None = None, slow: bool = False,
          budget: float = 60.0):
    """Register a validation check.

    Examples
    --------
    >>> @check(method="prob", guarantee="W1 is symmetric", paper="-")   # doctest: +SKIP
    ... def symmetric(profile, rng):
    ...     return CheckResult(statistic=0.0, threshold=1e-12)
    """
    if method not in METHODS:
        raise ValueError(f"unknown method key {method!r}; add it to validation.registry.METHODS")

    def deco(func):
        spec = CheckSpec(method=method, name=name or func.__name__, guarantee=guarantee, paper=paper,
                         func=func, slow=slow, budget=float(budget))
        REGISTRY[spec.key] = spec
        func.check_spec = spec
        return func

    return deco


def load_checks(methods: list[str] | None = None) -> list[CheckSpec]:
    """Import the check modules of ``methods`` (all known when None) and return their checks.

    A method whose module does not exist yet is skipped silently; an import
    error inside an existing module is raised.
    """
    from iclr26sci.core import InputError

    keys = list(METHODS) if not methods else list(methods)
    for k in keys:
        if k not in METHODS:
            raise InputError("--only", f"unknown method {k!r}", "one of " + ", ".join(METHODS))
        modname = METHODS[k][0]
        try:
            importlib.import_module(modname)
        except ModuleNotFoundError as exc:
            if exc.name != modname:
                raise
    return [s for s in REGISTRY.values() if s.method in keys]


def run_check(spec: CheckSpec, profile: Profile, master_seed: int = 0) -> dict:
    """Run one check and return its record (never raises: an exception is a failed check)."""
    rng = np.random.default_rng(spec.seed(master_seed))
    t0 = time.perf_counter()
    error = None
    try:
        res = spec.func(profile, rng)
        if not isinstance(res, CheckResult):
            raise TypeError(f"check {spec.key} returned {type(res).__name__}, expected CheckResult")
    except Exception as exc:  # a crashing check is reported as failed, with its error
        import traceback

        error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        res = CheckResult(statistic=float("nan"), threshold=float("nan"), passed=False,
                          details="the check raised an exception", extra={"traceback": traceback.format_exc()})
    seconds = time.perf_counter() - t0
    thr = res.threshold
    if isinstance(thr, (tuple, list, np.ndarray)):
        thr = [float(t) for t in thr]
    else:
        thr = float(thr)
    table = res.table
    if table is not None and hasattr(table, "to_dict"):
        table = table.to_dict(orient="records")
    return {
        "method": spec.method,
        "name": spec.name,
        "guarantee": spec.guarantee,
        "paper": spec.paper,
        "profile": profile.name,
        "statistic": res.statistic,
        "comparison": res.comparison,
        "threshold": thr,
        "passed": bool(res.passed),
        "criteria": [{"name": c.name, "statistic": c.statistic, "comparison": c.comparison,
                      "threshold": _jsonable(list(c.threshold) if isinstance(c.threshold, (tuple, list, np.ndarray))
                                             else float(c.threshold)),
                      "passed": bool(c.passed)} for c in res.criteria],
        "seconds": round(seconds, 3),
        "budget": spec.budget,
        "details": res.details,
        "table": _jsonable(table),
        "error": error,
        "extra": _jsonable(res.extra),
        "_figure": res.figure,
    }


def _jsonable(x):
    if x is None:
        return None
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (np.floating, float)):
        v = float(x)
        return v if np.isfinite(v) else str(v)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (int, str)):
        return x
    return str(x)
