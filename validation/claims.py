"""The claims tier: a paper's headline claim as a powered experiment with a mandatory positive control.

A claim check is registered with :func:`claim` and returns a :class:`ClaimResult` holding two
:class:`Effect` objects: the effect we measured for the paper's claim, and the same experiment with
the paper's mechanism made to matter (the positive control: an injected effect, an oracle, a planted
defect the method is meant to fix). The verdict is computed here, never by the check:

* one-sided test in the claimed direction at level ``alpha``;
* **reproduced** when the one-sided ``1 - alpha`` confidence bound excludes 0 (or a supplied p-value is
  below ``alpha``);
* **not reproduced** (a powered null) when it is not reproduced and either the power to detect
  ``min_effect`` at our standard error is at least 0.8, power = Phi(min_effect / SE - z_{1-alpha}), or the
  one-sided ``1 - alpha`` bound on the other side excludes ``min_effect`` (the data reject an effect as large
  as the smallest one of interest at level ``alpha``, the inferiority half of an equivalence test);
* **inconclusive** otherwise (under-powered).

The control must itself be reproduced with power >= 0.8 for its own ``min_effect``; otherwise the
claim fails with "control failed: the experiment cannot see the effect", whatever the claim's verdict.
Status: PASS only for a reproduced claim with a passing control. A "not reproduced" claim is FAIL, or
"FAIL (known)" when declared in ``validation/known_failures.toml``; an inconclusive claim, or one whose
control failed, is a plain FAIL even when declared (a declaration cannot cover an under-powered claim).

The small statistics helpers (:func:`power_one_sided`, :func:`one_sided_bound`, :func:`mean_effect`,
:func:`paired_effect`, :func:`paired_bootstrap`, :func:`slope_effect`) live here so that every family's
claims use one implementation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["claim", "ClaimResult", "Effect", "VERDICTS", "POWER_TARGET", "power_one_sided", "one_sided_bound",
           "mean_effect", "paired_effect", "paired_bootstrap", "slope_effect", "evaluate_claim", "control_ok"]

#: the verdicts of a claim
VERDICTS = ("reproduced", "not reproduced", "inconclusive")
#: the power a null (and every positive control) needs
POWER_TARGET = 0.8
#: fields of @claim that must be non-empty strings
REQUIRED = ("claim", "paper_number", "regime", "control", "test")


# --------------------------------------------------------------------------------------------------
# statistics helpers (one implementation for every family)

def _z(q: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(q))


def _crit(alpha: float, df: float | None) -> float:
    """The one-sided critical value z_{1-alpha} (or t_{1-alpha, df})."""
    if df is not None and np.isfinite(df) and df > 0:
        from scipy.stats import t

        return float(t.ppf(1.0 - alpha, df))
    return _z(1.0 - alpha)


def power_one_sided(min_effect: float, se: float, alpha: float = 0.05) -> float:
    """Power of the one-sided level-``alpha`` z-test to detect an effect of size ``min_effect`` at standard error ``se``.

    .. math:: \\text{power} = \\Phi\\left(\\frac{\\delta_{\\min}}{SE} - z_{1-\\alpha}\\right)

    ``min_effect`` is the smallest effect of interest on our scale, oriented so that the claim is
    ``effect > 0``. NaN when ``se`` is not a positive finite number.

    Examples
    --------
    >>> round(power_one_sided(2.486, 1.0, 0.05), 3)
    0.8
    >>> round(power_one_sided(1.0, 1.0, 0.05), 2)
    0.26
    """
    from scipy.stats import norm

    se, m = float(se), float(min_effect)
    if not (np.isfinite(se) and se > 0 and np.isfinite(m)):
        return float("nan")
    return float(norm.cdf(m / se - _z(1.0 - alpha)))


def one_sided_bound(estimate: float, se: float, alpha: float = 0.05, df: float | None = None,
                    direction: str = "greater") -> float:
    """The one-sided ``1 - alpha`` confidence bound in the claimed direction (normal, or Student t with ``df``).

    ``direction="greater"``: the lower bound ``estimate - c SE``; ``"less"``: the upper bound ``estimate + c SE``,
    with ``c = z_{1-alpha}`` (or ``t_{1-alpha, df}``).

    Examples
    --------
    >>> round(one_sided_bound(1.0, 0.5, 0.05), 4)
    0.1776
    >>> round(one_sided_bound(-1.0, 0.5, 0.05, direction="less"), 4)
    -0.1776
    """
    c = _crit(alpha, df)
    return float(estimate - c * se) if direction == "greater" else float(estimate + c * se)


@dataclass
class Effect:
    """A measured effect with its uncertainty, on our scale.

    Parameters
    ----------
    estimate : float
        The effect (e.g. a paired mean difference, a log-log slope).
    se : float
        Its standard error (NaN allowed when ``ci`` is given: then SE = width / (2 z_{1-alpha})).
    min_effect : float
        The smallest effect of interest on our scale (the paper-sized effect translated), as a positive
        magnitude in the claimed direction. The power is computed for it.
    direction : {"greater", "less"}
        The claimed direction: the claim is ``estimate > 0`` or ``estimate < 0``.
    ci : (low, high), optional
        A two-sided ``1 - 2 alpha`` interval supplied by the check (bootstrap percentiles, an exact
        interval); its end on the side of 0 is the one-sided ``1 - alpha`` bound. Default: normal
        (or t with ``df``) from ``se``.
    p_value : float, optional
        A one-sided p-value supplied by the check (Wilcoxon, permutation, exact binomial). When given,
        it decides "reproduced" (``p < alpha``) instead of the confidence bound.
    df : float, optional
        Degrees of freedom of a t-based bound.
    power : float, optional
        A power supplied by the check (e.g. by simulation); default Phi(min_effect/SE - z_{1-alpha}).
    n : int, optional
        Number of independent units behind the estimate (replications, seeds, pairs).
    what : str
        What the effect is, in a few words with its units (e.g. "regret(DR) - regret(sharp), loss units").
    """

    estimate: float
    se: float = float("nan")
    min_effect: float = float("nan")
    direction: str = "greater"
    ci: Any = None
    p_value: float | None = None
    df: float | None = None
    power: float | None = None
    n: int | None = None
    what: str = ""

    def __post_init__(self):
        if self.direction not in ("greater", "less"):
            raise ValueError(f"Effect.direction must be 'greater' or 'less', got {self.direction!r}")
        self.estimate = float(self.estimate)
        self.se = float(self.se)
        self.min_effect = abs(float(self.min_effect))
        if self.ci is not None:
            lo, hi = (float(v) for v in self.ci)
            if lo > hi:
                raise ValueError(f"Effect.ci must be (low, high), got {self.ci!r}")
            self.ci = (lo, hi)

    @property
    def sign(self) -> float:
        return 1.0 if self.direction == "greater" else -1.0

    def summary(self, alpha: float = 0.05) -> dict:
        """Estimate, SE, the ``1 - 2 alpha`` interval, the one-sided bound, p, power and the verdict."""
        s = self.sign
        se = self.se
        if self.ci is not None:
            lo, hi = self.ci
            if not np.isfinite(se):
                se = (hi - lo) / (2 * _crit(alpha, self.df))
            bound = lo if s > 0 else hi
        else:
            c = _crit(alpha, self.df)
            lo, hi = self.estimate - c * se, self.estimate + c * se
            bound = lo if s > 0 else hi
        p = self.p_value
        if p is None and np.isfinite(se) and se > 0:
            from scipy.stats import norm, t

            zt = s * self.estimate / se
            p = float(t.sf(zt, self.df)) if self.df is not None and np.isfinite(self.df) and self.df > 0 \
                else float(norm.sf(zt))
        power = self.power if self.power is not None else power_one_sided(self.min_effect, se, alpha)
        if not np.isfinite(self.estimate):
            verdict = "inconclusive"
        elif self.p_value is not None:
            verdict = "reproduced" if self.p_value < alpha else None
        else:
            verdict = "reproduced" if np.isfinite(bound) and s * bound > 0 else None
        # the far end of the interval: the one-sided 1 - alpha bound on the other side
        far = hi if s > 0 else lo
        excludes = bool(np.isfinite(far) and s * far < self.min_effect)
        if verdict is None:
            powered = power is not None and np.isfinite(power) and power >= POWER_TARGET
            verdict = "not reproduced" if powered or excludes else "inconclusive"
        return {"what": self.what, "estimate": self.estimate, "se": float(se), "ci": [float(lo), float(hi)],
                "ci_level": 1 - 2 * alpha, "bound": float(bound), "direction": self.direction,
                "p_value": None if p is None else float(p), "min_effect": self.min_effect,
                "power": None if power is None else float(power), "n": self.n, "df": self.df,
                "excludes_min_effect": excludes, "verdict": verdict}


def mean_effect(x, min_effect: float, *, direction: str = "greater", what: str = "") -> Effect:
    """Effect of a sample of independent replicates ``x``: its mean, SE = sd/sqrt(n), one-sided t with n-1 df.

    Examples
    --------
    >>> e = mean_effect([0.9, 1.1, 1.0, 1.2, 0.8], min_effect=0.5)
    >>> round(e.estimate, 3), round(e.se, 4), e.df
    (1.0, 0.0707, 4)
    """
    x = np.asarray(x, dtype=float).ravel()
    if x.size < 2:
        raise ValueError(f"mean_effect needs at least 2 replicates, got {x.size}")
    return Effect(estimate=float(x.mean()), se=float(x.std(ddof=1) / math.sqrt(x.size)), min_effect=min_effect,
                  direction=direction, df=x.size - 1, n=int(x.size), what=what)


def paired_effect(a, b, min_effect: float, *, direction: str = "greater", what: str = "") -> Effect:
    """Paired effect of ``a - b`` over matched replicates (one-sided paired t with n-1 df).

    Examples
    --------
    >>> e = paired_effect([2.0, 2.5, 3.0], [1.0, 1.5, 1.5], min_effect=0.5)
    >>> round(e.estimate, 3), e.n
    (1.167, 3)
    """
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired_effect needs samples of one length, got {a.size} and {b.size}")
    return mean_effect(a - b, min_effect, direction=direction, what=what)


def paired_bootstrap(a, b, min_effect: float, *, stat: Callable = np.mean, n_boot: int = 2000,
                     alpha: float = 0.05, direction: str = "greater", rng=None, what: str = "") -> Effect:
    """Paired percentile bootstrap of ``stat(a - b)``: the ``1 - 2 alpha`` interval from resampled pairs.

    The SE is the bootstrap standard deviation; the verdict uses the percentile interval's end (the
    one-sided ``1 - alpha`` bound) and the p-value is the bootstrap share on the wrong side of 0.

    Examples
    --------
    >>> e = paired_bootstrap([2.0, 2.5, 3.0, 2.2], [1.0, 1.5, 1.5, 1.1], 0.5, rng=0)
    >>> e.ci[0] > 0
    True
    """
    from iclr26sci.core import as_generator

    d = np.asarray(a, dtype=float).ravel() - np.asarray(b, dtype=float).ravel()
    gen = as_generator(rng)
    idx = gen.integers(0, d.size, size=(int(n_boot), d.size))
    boots = np.array([stat(d[i]) for i in idx])
    lo, hi = np.quantile(boots, [alpha, 1 - alpha])
    s = 1.0 if direction == "greater" else -1.0
    p = float((np.sum(s * boots <= 0) + 1) / (boots.size + 1))
    return Effect(estimate=float(stat(d)), se=float(boots.std(ddof=1)), min_effect=min_effect, direction=direction,
                  ci=(float(lo), float(hi)), p_value=p, n=int(d.size), what=what)


def slope_effect(x, y, min_effect: float, *, direction: str = "less", log: bool = True, what: str = "") -> Effect:
    """Least-squares slope of ``y`` on ``x`` (log-log by default) with its OLS SE and n-2 df.

    Examples
    --------
    >>> e = slope_effect([64, 128, 256, 512], [0.08, 0.057, 0.04, 0.028], min_effect=0.1)
    >>> round(e.estimate, 1)
    -0.5
    """
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if log:
        x, y = np.log(x), np.log(y)
    if x.size < 3:
        raise ValueError(f"slope_effect needs at least 3 points, got {x.size}")
    X = np.column_stack([np.ones_like(x), x])
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ beta
    s2 = float(resid @ resid) / (x.size - 2)
    se = math.sqrt(s2 / float(((x - x.mean()) ** 2).sum()))
    return Effect(estimate=float(beta[1]), se=se, min_effect=min_effect, direction=direction, df=x.size - 2,
                  n=int(x.size), what=what)


# --------------------------------------------------------------------------------------------------
# results and registration

@dataclass
class ClaimResult:
    """What a claim check measured: the claim's effect and its positive control (mandatory).

    Parameters
    ----------
    effect : Effect
        The paper's claim, measured in our miniature.
    control : Effect
        The same experiment with the paper's mechanism made to matter (an injected effect, an oracle,
        a planted defect the method fixes). A ClaimResult without one makes the check fail.
    table, figure, details, extra
        As in :class:`validation.registry.CheckResult`.
    """

    effect: Effect
    control: Effect | None = None
    table: Any = None
    figure: Any = None
    details: str = ""
    extra: dict = field(default_factory=dict)


def control_ok(ctrl: dict) -> bool:
    """A control passes when it is reproduced with power >= 0.8 for its own min_effect."""
    pw = ctrl.get("power")
    return ctrl.get("verdict") == "reproduced" and pw is not None and np.isfinite(pw) and pw >= POWER_TARGET


def evaluate_claim(res: ClaimResult, alpha: float = 0.05) -> dict:
    """The machinery's verdict on a :class:`ClaimResult`: the summaries ``effect`` and ``control_effect`` (see
    :meth:`Effect.summary`), ``verdict`` (of the effect), ``control_passed``, ``passed`` and a one-line ``reason``.

    Raises ``TypeError`` when the result has no control (or its parts are not :class:`Effect`).

    Examples
    --------
    >>> r = evaluate_claim(ClaimResult(Effect(1.0, 0.2, min_effect=0.5), control=Effect(2.0, 0.2, min_effect=1.0)))
    >>> r["verdict"], r["control_passed"], r["passed"]
    ('reproduced', True, True)
    """
    if not isinstance(res.effect, Effect):
        raise TypeError(f"ClaimResult.effect must be an Effect, got {type(res.effect).__name__}")
    if res.control is None:
        raise TypeError("ClaimResult has no positive control: a claim check must run the same experiment with "
                        "the paper's mechanism made to matter and return it as control=Effect(...)")
    if not isinstance(res.control, Effect):
        raise TypeError(f"ClaimResult.control must be an Effect, got {type(res.control).__name__}")
    eff, ctrl = res.effect.summary(alpha), res.control.summary(alpha)
    cpass = control_ok(ctrl)
    verdict = eff["verdict"]
    if not cpass:
        why = "not reproduced" if ctrl["verdict"] != "reproduced" else \
            f"power {ctrl['power']:.2f} < {POWER_TARGET} at its min effect"
        reason = f"control failed ({why}): the experiment cannot see the effect"
    elif verdict == "reproduced":
        reason = "reproduced: the one-sided bound excludes 0 and the control sees the effect"
    elif verdict == "not reproduced" and not (eff["power"] is not None and np.isfinite(eff["power"])
                                             and eff["power"] >= POWER_TARGET):
        far = eff["ci"][1] if eff["direction"] == "greater" else eff["ci"][0]
        reason = (f"not reproduced: the one-sided {1 - alpha:.0%} bound {far:.4g} excludes the smallest effect of "
                  f"interest {eff['min_effect']:.4g} (power {eff['power']:.2f} at it)")
    elif verdict == "not reproduced":
        reason = (f"not reproduced: a powered null (power {eff['power']:.2f} >= {POWER_TARGET} to detect "
                  f"{eff['min_effect']:.4g})")
    else:
        pw = eff["power"]
        reason = ("inconclusive: under-powered (power "
                  + (f"{pw:.2f}" if pw is not None and np.isfinite(pw) else "unknown")
                  + f" < {POWER_TARGET} to detect {eff['min_effect']:.4g}); counts as a failure")
    return {"effect": eff, "control_effect": ctrl, "verdict": verdict, "control_passed": cpass,
            "passed": bool(verdict == "reproduced" and cpass), "reason": reason, "alpha": alpha}


def claim(*, method: str, claim: str, paper: str, paper_number: str, regime: str, control: str, test: str,
          paper_setting: str = "", name: str | None = None, alpha: float = 0.05, budget: float = 60.0,
          slow: bool = False):
    """Register a claim check (tier ``"claim"``): ``func(profile, rng) -> ClaimResult``.

    Parameters
    ----------
    method : str
        Method key (see ``validation.registry.METHODS``).
    claim : str
        The paper's claim in one line (the abstract's or main table's sentence).
    paper : str
        The paper reference (arXiv id).
    paper_number : str
        The paper's number for the claim (its table entry, figure reading, or "qualitative: ..." when the
        paper gives none).
    regime : str
        One sentence: why the paper's mechanism can act in our miniature.
    control : str
        What the positive control injects, plants or gives the method as an oracle.
    test : str
        The pre-registered test, e.g. "one-sided paired t, alpha 0.05".
    paper_setting : str
        The paper's setting the number comes from.
    alpha : float
        Level of the one-sided test.
    budget : float
        Wall-clock budget in seconds on 2 cores at the claims profile.
    slow : bool
        Too slow for the claims profile: runs only at the full profile (listed as "not run (slow)").

    Raises
    ------
    ValueError
        At registration, when ``claim``, ``paper_number``, ``regime``, ``control`` or ``test`` is missing
        or empty, ``alpha`` is not in (0, 0.5), or ``method`` is unknown.

    Examples
    --------
    >>> @claim(method="prob", claim="X beats Y", paper="-", paper_number="+1.0", regime="Y fails here",
    ...        control="planted gap", test="one-sided z, alpha 0.05")   # doctest: +SKIP
    ... def beats(profile, rng):
    ...     return ClaimResult(Effect(0.9, 0.2, min_effect=0.5), control=Effect(2.0, 0.2, min_effect=1.0))
    """
    from .registry import METHODS, REGISTRY, CheckSpec

    if method not in METHODS:
        raise ValueError(f"unknown method key {method!r}; add it to validation.registry.METHODS")
    given = {"claim": claim, "paper_number": paper_number, "regime": regime, "control": control, "test": test}
    missing = [k for k, v in given.items() if not isinstance(v, str) or not v.strip()]
    if missing:
        raise ValueError(f"a claim check of {method!r} must state {', '.join(missing)}: a claim without a positive "
                         "control, a regime sentence, a pre-registered test or the paper's number is refused")
    if not (0.0 < float(alpha) < 0.5):
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha!r}")

    def deco(func):
        meta = {"claim": " ".join(claim.split()), "paper_number": " ".join(paper_number.split()),
                "paper_setting": " ".join(str(paper_setting).split()), "regime": " ".join(regime.split()),
                "control": " ".join(control.split()), "test": " ".join(test.split()), "alpha": float(alpha)}
        spec = CheckSpec(method=method, name=name or func.__name__, guarantee=meta["claim"], paper=paper, func=func,
                         slow=slow, budget=float(budget), kind="claim", claim=meta)
        REGISTRY[spec.key] = spec
        func.check_spec = spec
        return func

    return deco
