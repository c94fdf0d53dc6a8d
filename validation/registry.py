"""The registry of validation checks.

A check is a function ``(profile, rng) -> CheckResult`` decorated with
:func:`check`. It runs a simulation sized by the profile, compares a
statistic with a threshold derived from the theory plus a Monte-Carlo
tolerance, and returns the figures, a small table and an optional plot.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import re
import time
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Callable

import numpy as np

__all__ = ["check", "CheckResult", "Criterion", "Profile", "REGISTRY", "METHODS", "load_checks", "run_check", "CheckSpec",
           "KNOWN_FAILURES_PATH", "STATUSES", "load_known_failures", "apply_known_failures", "parse_seeds",
           "deciding_criterion", "methods_of", "PROFILES", "SHARED_LAYERS", "PAPER_METHODS", "runs_at", "not_run",
           "parse_profiles"]

#: method key -> (module holding its checks, one-line title)
METHODS: dict[str, tuple[str, str]] = {
    "prob": ("validation.prob", "Shared probabilistic primitives (Wasserstein, Gaussian DP, binomial bands)"),
    "games": ("validation.games", "DP equilibrium finding in polymatrix games (arXiv:2503.09538)"),
    "causal": ("validation.causal", "Efficient and sharp off-policy learning under unobserved confounding (arXiv:2502.13022)"),
    "kernels": ("validation.kernels", "Theory-informed deep kernel GPs (arXiv:2509.24919)"),
    "embeddings": ("validation.embeddings", "Uncertainty-driven Embedding Convolution (arXiv:2507.20718)"),
    "imitation": ("validation.imitation", "Imitation learning as return distribution matching (arXiv:2509.12026)"),
    "geom_world": ("validation.geom_world", "Shared 3-D layer: ray casting, body model, multi-view fitting on real data"),
    "geom": ("validation.geom", "Shared 3-D layer: transforms, cameras, pure-torch Gaussian rasterizer"),
    "nn": ("validation.nn", "Shared neural layer: flow matching and its SDE, small vision models, offline language model"),
    "adaptation": ("validation.adaptation", "Backprop-free test-time adaptation by progressive embedding alignment (PEA, OpenReview 7kLNGaAHaw)"),
    "rl": ("validation.rl", "Risk-sensitive GRPO for RL with verifiable rewards (RS-GRPO, arXiv:2509.24261)"),
    "tempflow": ("validation.tempflow", "TempFlow-GRPO: timing-aware GRPO for flow models (arXiv:2508.04324)"),
    "value_matching": ("validation.value_matching", "Value Matching: gradient-free reward-guided flow adaptation (OpenReview 7iXt44Actj)"),
    "microsim": ("validation.microsim", "MicroWorldBench rubric scoring and microscale simulators (MicroVerse, arXiv:2603.00585)"),
    "mvr": ("validation.mvr", "MVR: multi-view video reward shaping for continuous control (arXiv:2603.01694)"),
    "light": ("validation.light", "LIGHT: pace-guided diffusion forcing for human-object interaction (arXiv:2603.25734)"),
    "closedloop": ("validation.closedloop", "MindPilot: closed-loop stimulus optimisation from EEG responses (arXiv:2602.10552)"),
    "distill": ("validation.distill", "Knowledge purification in multi-teacher distillation for LLMs (arXiv:2602.01064)"),
    "ssdgs": ("validation.ssdgs", "SSD-GS: scattering and shadow decomposition for relightable 3-D Gaussians (arXiv:2604.13333)"),
    "gaussian_fusion": ("validation.gaussian_fusion", "GaussianFusion: camera-LiDAR fusion through 3-D Gaussians (arXiv:2607.00746)"),
    "josh": ("validation.josh", "JOSH: joint optimisation of cameras, scene and humans from monocular video (arXiv:2501.02158)"),
    "agents": ("validation.agents", "Agentic Predictor: multi-view encoders that predict LLM-workflow success (arXiv:2505.19764)"),
    "opticalflow": ("validation.opticalflow", "DCFlow: unsupervised cross-modal optical flow by decoupled synthesis (arXiv:2509.24423)"),
}


#: method keys that are shared layers, not papers (no claims row in the README's claims table)
SHARED_LAYERS = ("prob", "geom", "geom_world", "nn")
#: the 19 paper methods: every one gets at least one row in the claims table
PAPER_METHODS = tuple(m for m in METHODS if m not in SHARED_LAYERS)

#: the profiles: ``quick`` (CI: the ordinary checks, slow ones listed as not run), ``claims`` (CI: the claim
#: checks only, at the quick size), ``full`` (paper scale: every check, slow and claims included, at the full size)
PROFILES = ("quick", "claims", "full")


@dataclass(frozen=True)
class Profile:
    """Size and selection of a validation run.

    ``quick``: the ordinary checks at their small size (CI); ``[slow]`` checks and claim checks do not run.
    ``claims``: only the claim checks (tier ``"claim"``), at the small size; ``[slow]`` claims do not run.
    ``full``: every check (ordinary, slow and claims) at the paper-scale size.

    :meth:`pick` returns its ``quick`` argument at the quick and claims profiles and its ``full`` argument
    at the full profile; :attr:`size` is ``"quick"`` or ``"full"`` accordingly (use it, not :attr:`name`,
    to key a cache by size).
    """

    name: str = "quick"

    def __post_init__(self):
        if self.name not in PROFILES:
            from iclr26sci.core import InputError

            raise InputError("profile", f"got {self.name!r}", "'quick', 'claims' or 'full'")

    @property
    def quick(self) -> bool:
        """True at the small size (the quick and the claims profile)."""
        return self.name != "full"

    @property
    def size(self) -> str:
        """``"quick"`` or ``"full"``: the simulation size of this profile."""
        return "full" if self.name == "full" else "quick"

    def pick(self, quick: Any, full: Any) -> Any:
        """Return ``quick`` (quick and claims profiles) or ``full`` (full profile)."""
        return full if self.name == "full" else quick


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
    #: "check" (ordinary) or "claim" (a paper's headline claim, see validation.claims)
    kind: str = "check"
    #: a claim check's statement: claim, paper_number, paper_setting, regime, control, test, alpha
    claim: dict | None = None

    @property
    def key(self) -> str:
        return f"{self.method}.{self.name}"

    @property
    def tier(self) -> str:
        """``"claim"``, ``"slow"`` or ``"check"`` (a slow claim is a claim)."""
        return "claim" if self.kind == "claim" else ("slow" if self.slow else "check")

    @property
    def tags(self) -> str:
        """The tags shown by ``iclr26sci list``: ``[claim]``, ``[slow]`` or both."""
        return "".join(t for t, on in ((" [claim]", self.kind == "claim"), (" [slow]", self.slow)) if on)

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

    An entry is a method key (``"kernels"``: all its checks) or one check's key
    (``"kernels.t6_few_shot"``). A method whose module does not exist yet is skipped silently; an
    import error inside an existing module is raised.
    """
    from iclr26sci.core import InputError

    keys = list(METHODS) if not methods else list(methods)
    whole, single = set(), set()
    for k in keys:
        m = k.split(".", 1)[0]
        if m not in METHODS:
            raise InputError("--only", f"unknown method {m!r}",
                             "one of " + ", ".join(METHODS) + " (or '<method>.<check>')")
        (single if "." in k else whole).add(k if "." in k else m)
        modname = METHODS[m][0]
        try:
            importlib.import_module(modname)
        except ModuleNotFoundError as exc:
            if exc.name != modname:
                raise
    missing = sorted(k for k in single if k not in REGISTRY)
    if missing:
        raise InputError("--only", f"no check named {', '.join(map(repr, missing))}",
                         "a registered '<method>.<check>' key (see `iclr26sci list`)")
    return [s for s in REGISTRY.values() if s.method in whole or s.key in single]


def methods_of(only: list[str] | None) -> list[str]:
    """The method keys that a ``--only`` selection touches (all methods when None)."""
    if not only:
        return list(METHODS)
    out: list[str] = []
    for k in only:
        m = k.split(".", 1)[0]
        if m not in out:
            out.append(m)
    return out


def runs_at(spec: CheckSpec, profile: Profile | str) -> bool:
    """Whether ``spec`` runs at ``profile``: quick runs the ordinary non-slow checks, claims the non-slow
    claim checks, full everything."""
    name = profile.name if isinstance(profile, Profile) else str(profile)
    if name == "full":
        return True
    if spec.slow:
        return False
    return (spec.kind == "claim") == (name == "claims")


def not_run_reason(spec: CheckSpec, profiles: list[str]) -> str:
    """Why ``spec`` did not run at any of ``profiles``: ``"slow"``, ``"claim"`` or ``"not a claim"``."""
    if spec.slow:
        return "slow"
    return "claim" if spec.kind == "claim" else "not a claim"


def not_run(specs: list[CheckSpec], ran: set[str], profiles: list[str]) -> list[dict]:
    """The selected checks that ran at none of ``profiles``: ``{check, method, name, tier, reason}`` each.

    ``reason`` is ``"slow"`` (a ``[slow]`` check or claim: runs only at the full profile), ``"claim"`` (a
    claim check: runs at the claims and full profiles) or ``"not a claim"`` (an ordinary check skipped by
    the claims profile).

    Examples
    --------
    >>> s = CheckSpec("prob", "x", "g", "-", func=None, slow=True)
    >>> not_run([s], set(), ["quick"])[0]["reason"]
    'slow'
    """
    return [{"check": s.key, "method": s.method, "name": s.name, "tier": s.tier, "guarantee": s.guarantee,
             "reason": not_run_reason(s, profiles)} for s in specs if s.key not in ran]


def parse_profiles(text: str) -> list[str]:
    """Parse ``--profile``: one profile or several joined by ``,`` or ``+`` (``"quick,claims"``), in order.

    Examples
    --------
    >>> parse_profiles("quick,claims")
    ['quick', 'claims']
    """
    from iclr26sci.core import InputError

    out: list[str] = []
    for part in str(text).replace("+", ",").split(","):
        part = part.strip()
        if part not in PROFILES:
            raise InputError("--profile", f"got {part!r} in {text!r}",
                             "quick, claims or full, or several joined by ',' (e.g. 'quick,claims')")
        if part not in out:
            out.append(part)
    if not out:
        raise InputError("--profile", f"got {text!r}", "quick, claims or full")
    return out


def run_check(spec: CheckSpec, profile: Profile, master_seed: int = 0) -> dict:
    """Run one check and return its record (never raises: an exception is a failed check)."""
    rng = np.random.default_rng(spec.seed(master_seed))
    t0 = time.perf_counter()
    error = None
    claim_rec = None
    try:
        res = spec.func(profile, rng)
        if spec.kind == "claim":
            res, claim_rec = _claim_to_check(spec, res)
        elif not isinstance(res, CheckResult):
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
    rec = {
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
        "seed": int(master_seed),
        "status": "PASS" if res.passed else "FAIL",
        "known_failure": None,
        "tier": spec.tier,
    }
    if spec.kind == "claim":
        rec["claim"] = {**(spec.claim or {}), **(claim_rec or {"verdict": "inconclusive", "control_passed": False,
                                                               "passed": False, "effect": None, "control_effect": None,
                                                               "reason": "the claim check raised an exception"})}
    rec["deciding"] = deciding_criterion(rec)
    return rec


def _claim_to_check(spec: CheckSpec, res) -> tuple[CheckResult, dict]:
    """A claim check's ClaimResult as a CheckResult (criteria: the effect's bound, the control's bound and power)
    plus the claim's verdict record (see validation.claims.evaluate_claim). Raises on a missing control."""
    from .claims import POWER_TARGET, ClaimResult, evaluate_claim

    if not isinstance(res, ClaimResult):
        raise TypeError(f"claim check {spec.key} returned {type(res).__name__}, expected ClaimResult")
    alpha = float((spec.claim or {}).get("alpha", 0.05))
    ev = evaluate_claim(res, alpha)
    eff, ctl = ev["effect"], ev["control_effect"]
    cmp_ = ">" if eff["direction"] == "greater" else "<"
    ccmp = ">" if ctl["direction"] == "greater" else "<"
    nanf = float("nan")
    crit = [Criterion(f"claim: one-sided {1 - alpha:.0%} bound of the effect ({ev['verdict']})", eff["bound"], 0.0,
                      cmp_, passed=ev["verdict"] == "reproduced"),
            Criterion("positive control: one-sided bound of its effect", ctl["bound"], 0.0, ccmp,
                      passed=ctl["verdict"] == "reproduced"),
            Criterion("positive control: power at its min effect", ctl["power"] if ctl["power"] is not None else nanf,
                      POWER_TARGET, ">=")]
    cr = CheckResult(statistic=eff["estimate"], threshold=0.0, comparison=cmp_, passed=ev["passed"], criteria=crit,
                     table=res.table, figure=res.figure, details=res.details, extra=res.extra)
    return cr, ev


def deciding_criterion(rec: dict) -> dict:
    """The criterion that decided a check's verdict: the first failing criterion, else the headline statistic.

    A check without criteria is decided by its headline ``statistic <comparison> threshold``. With
    criteria, a failing criterion decides a failed check; a passing check (or one failed by its
    headline alone) is shown by its headline statistic.

    Examples
    --------
    >>> rec = {"statistic": 0.5, "comparison": "<=", "threshold": 1.0, "passed": False,
    ...        "criteria": [{"name": "a", "statistic": 0.1, "comparison": "<=", "threshold": 1.0, "passed": True},
    ...                     {"name": "b", "statistic": 3.0, "comparison": "<=", "threshold": 2.0, "passed": False}]}
    >>> deciding_criterion(rec)["name"]
    'b'
    """
    for c in rec.get("criteria") or []:
        if not c.get("passed"):
            return {"name": c.get("name", ""), "statistic": c.get("statistic"), "comparison": c.get("comparison"),
                    "threshold": c.get("threshold"), "passed": False}
    name = ""
    for c in rec.get("criteria") or []:  # a headline that is one of the criteria carries its name
        if c.get("statistic") == rec.get("statistic") and c.get("threshold") == rec.get("threshold") \
                and c.get("comparison") == rec.get("comparison"):
            name = c.get("name", "")
            break
    passed = bool(rec.get("passed"))
    if not passed and not rec.get("error"):
        try:
            headline_holds = _compare(float(rec.get("statistic")), rec.get("comparison"), rec.get("threshold"))
        except (TypeError, ValueError):
            headline_holds = False
        if headline_holds:  # failed by passed=False although the headline holds: say that the reason is hidden
            name = UNREPORTED
    return {"name": name, "statistic": rec.get("statistic"), "comparison": rec.get("comparison"),
            "threshold": rec.get("threshold"), "passed": passed}


#: the deciding "criterion" of a check that failed by ``passed=False`` while its headline statistic holds
UNREPORTED = "holds, but the check failed by a criterion it does not report"


# --------------------------------------------------------------------------------------------------
# known failures (validation/known_failures.toml), strict like pytest's xfail(strict=True)

#: the file declaring checks whose claim does not hold, with the reason and the date
KNOWN_FAILURES_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_failures.toml")

#: the verdicts a check can get in a report
STATUSES = ("PASS", "FAIL", "FAIL (known)", "XPASS")


def load_known_failures(path: str | None = None) -> dict[str, dict]:
    """Read the known-failure declarations: ``{"<method>.<check>": {"reason": str, "date": str}}``.

    Each declaration is a TOML table named by the check's key with a non-empty ``reason`` and a
    ``date`` (``YYYY-MM-DD``); an optional ``profiles`` list (e.g. ``["full"]``) limits the declaration
    to those profiles (a check whose claim holds at the claims size but not at the full size), and the
    check is undeclared, so it must pass, at the others. A malformed file or entry raises ``ValueError``
    naming the entry.
    A missing file declares nothing.
    """
    import tomllib

    path = KNOWN_FAILURES_PATH if path is None else path
    if not os.path.exists(path):
        return {}
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    out: dict[str, dict] = {}
    for key, entry in data.items():
        where = f"{path}: [\"{key}\"]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} must be a table with 'reason' and 'date', got {entry!r}")
        if not re.fullmatch(r"[A-Za-z0-9_]+\.[A-Za-z0-9_]+", key):
            raise ValueError(f"{where}: the key must be '<method>.<check function name>'")
        unknown = set(entry) - {"reason", "date", "issue", "evidence", "profiles"}
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: reason, date, issue, evidence, "
                             "profiles")
        profs = entry.get("profiles")
        if profs is not None and (not isinstance(profs, list) or not profs
                                  or any(p not in PROFILES for p in profs)):
            raise ValueError(f"{where}: 'profiles' must be a non-empty list of profile names "
                             f"({', '.join(PROFILES)}), got {profs!r}")
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"{where}: 'reason' must be a non-empty string saying why the claim does not hold")
        d = entry.get("date")
        if isinstance(d, (date, datetime)):
            d = d.isoformat()[:10]
        if not isinstance(d, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", d):
            raise ValueError(f"{where}: 'date' must be the declaration date as YYYY-MM-DD, got {entry.get('date')!r}")
        out[key] = {"reason": " ".join(reason.split()), "date": d,
                    **{k: entry[k] for k in ("issue", "evidence", "profiles") if k in entry}}
    return out


def apply_known_failures(records: list[dict], known: dict[str, dict], methods=None) -> list[str]:
    """Give every record its ``status`` and return the declaration errors of this run.

    Status: ``PASS``; ``FAIL``; ``FAIL (known)`` (declared and failed; ``known_failure`` holds the
    reason and date); ``XPASS`` (declared but passed: the declaration must be removed, so the run
    fails). A check that raised an exception is ``FAIL`` even when declared: the declaration covers
    the claim, not a crash. A claim check is ``FAIL (known)`` only when its verdict is "not reproduced" (a
    powered null) and its positive control passed; a declared claim that is inconclusive or whose control
    failed is a plain ``FAIL`` with ``declaration_refused`` saying why. The errors are declarations whose method is in ``methods`` (all
    registered methods when None) but whose key names no registered check.
    """
    for rec in records:
        key = f"{rec['method']}.{rec['name']}"
        decl = known.get(key)
        if decl is not None and "profiles" in decl and rec.get("profile") not in decl["profiles"]:
            decl = None                  # declared for other profiles only: here the check must pass
        rec["known_failure"] = decl
        rec["reason"] = decl["reason"] if decl else None
        if decl is None:
            rec["status"] = "PASS" if rec["passed"] else "FAIL"
        elif rec["passed"]:
            rec["status"] = "XPASS"
        elif rec.get("error"):
            rec["status"] = "FAIL"
        elif rec.get("claim") is not None and not (rec["claim"].get("verdict") == "not reproduced"
                                                   and rec["claim"].get("control_passed")):
            # only a powered null with a passing control may be declared: an inconclusive claim (or one whose
            # control failed) is a plain FAIL until the experiment is made powered
            rec["status"] = "FAIL"
            rec["declaration_refused"] = (
                f"declared a known failure, but the claim is {rec['claim'].get('verdict')}"
                + ("" if rec["claim"].get("control_passed") else " and its positive control failed")
                + ": only a powered null ('not reproduced' with a passing control) may be declared")
        else:
            rec["status"] = "FAIL (known)"
    methods = set(METHODS) if methods is None else set(methods)
    errors = []
    for key in known:
        m = key.split(".", 1)[0]
        if m not in METHODS:
            errors.append(f"known_failures.toml declares {key!r}, but {m!r} is not a method "
                          f"(one of {', '.join(METHODS)})")
        elif m in methods and key not in REGISTRY:
            errors.append(f"known_failures.toml declares {key!r}, but no check of that name is registered "
                          f"(remove or rename the declaration)")
    return errors


def parse_seeds(text: str) -> list[int]:
    """Parse a list of master seeds: ``"0-4"``, ``"0,2,3"``, ``"0-2,7"`` (order kept, duplicates dropped).

    Examples
    --------
    >>> parse_seeds("0-2,7")
    [0, 1, 2, 7]
    >>> parse_seeds("3")
    [3]
    """
    from iclr26sci.core import InputError

    expected = "non-negative integers and ranges separated by commas, e.g. '0-4', '0,2,3' or '0-2,7'"
    if not isinstance(text, str) or not text.strip():
        raise InputError("--seeds", f"got {text!r}", expected)
    seeds: list[int] = []
    for part in text.replace(" ", "").split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise InputError("--seeds", f"cannot read {part!r} in {text!r}", expected)
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if hi < lo:
            raise InputError("--seeds", f"range {part!r} runs backwards", "a range low-high with low <= high")
        if hi - lo > 10_000:
            raise InputError("--seeds", f"range {part!r} has {hi - lo + 1} seeds", "at most 10001 seeds in a range")
        for s_ in range(lo, hi + 1):
            if s_ not in seeds:
                seeds.append(s_)
    return seeds


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
