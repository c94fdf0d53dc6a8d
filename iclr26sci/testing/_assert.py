"""Statistical assertions with a stated false-alarm rate, and the broken-variant power check."""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from iclr26sci.core import InputError, check_in_range, check_positive_int

__all__ = ["StatisticalAssertionError", "spent_alpha", "assert_covers", "assert_unbiased", "assert_same_law",
           "assert_rate", "assert_improves", "check_catches"]

_SPEND = ("none", "bonferroni")


class StatisticalAssertionError(AssertionError):
    """A statistical assertion failed: the statistic, the threshold, the per-call alpha and the seed.

    Attributes
    ----------
    statistic : float
        The test statistic (or the observed proportion / slope).
    threshold : str
        The acceptance region it fell outside, in words.
    alpha : float
        The false-alarm rate this call was allowed (after spending).
    seed : object
        The seed given to the assertion (``None`` if none was given).

    Examples
    --------
    >>> err = StatisticalAssertionError("coverage", 0.5, "[0.9, 1.0]", 0.01, seed=3)
    >>> print(err)
    coverage: statistic 0.5 outside [0.9, 1.0] (alpha 0.01 per call; seed 3)
    """

    def __init__(self, what: str, statistic: float, threshold: str, alpha: float, seed: Any = None,
                 detail: str = ""):
        self.statistic = float(statistic)
        self.threshold = threshold
        self.alpha = float(alpha)
        self.seed = seed
        msg = f"{what}: statistic {self.statistic:.6g} outside {threshold} (alpha {self.alpha:.3g} per call; seed {seed})"
        if detail:
            msg += f"; {detail}"
        super().__init__(msg)


def spent_alpha(alpha: float = 0.01, spend: str = "none", n_examples: int | None = None) -> float:
    r"""The false-alarm rate one call may use, after spending ``alpha`` over a test's examples.

    ``spend="none"``: the call gets ``alpha`` (a single assertion, or a test whose examples are fixed by a
    derandomised hypothesis profile, so the whole test is one fixed draw). ``spend="bonferroni"``: each of
    ``n_examples`` calls gets :math:`\alpha / n_{\rm examples}`, so by the union bound

    .. math:: P(\text{any false alarm in the test}) \le \sum_i \alpha / n_{\rm examples} = \alpha.

    Parameters
    ----------
    alpha : float in (0, 1)
        Family-wise false-alarm rate of the whole test.
    spend : {"none", "bonferroni"}
        How the rate is split across calls.
    n_examples : int >= 1, required for ``"bonferroni"``
        The most calls the test makes (hypothesis' ``max_examples``).

    Returns
    -------
    float

    Examples
    --------
    >>> spent_alpha(0.05, "bonferroni", n_examples=200)
    0.00025
    """
    a = check_in_range(alpha, "alpha", 0.0, 1.0, low_open=True, high_open=True)
    if spend not in _SPEND:
        raise InputError("spend", f"got {spend!r}", f"one of {list(_SPEND)}")
    if spend == "none":
        return a
    if n_examples is None:
        raise InputError("n_examples", "is missing", "the number of examples the test runs (with spend='bonferroni')")
    return a / check_positive_int(n_examples, "n_examples")


def _vec(x, name, min_size=1):
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, f"is a {type(x).__name__} that is not numeric", "an array of numbers") from None
    a = np.atleast_1d(a)
    if a.ndim != 1:
        raise InputError(name, f"has shape {a.shape}", "a 1-D array")
    if a.size < min_size:
        raise InputError(name, f"has {a.size} entries", f"at least {min_size}")
    if not np.all(np.isfinite(a)):
        raise InputError(name, "contains NaN or infinite values", "finite numbers")
    return a


def assert_covers(intervals, truth=None, level: float = 0.95, *, alpha: float = 0.01, spend: str = "none",
                  n_examples: int | None = None, seed: Any = None, what: str = "coverage") -> float:
    r"""Assert that intervals cover the truth at their nominal rate (exact two-sided binomial band).

    With :math:`S` of :math:`n` independent intervals covering, the assertion passes when
    :math:`S \in [F^{-1}(a/2), F^{-1}(1-a/2)]`, the quantiles of :math:`\mathrm{Bin}(n, \text{level})`
    (:func:`iclr26sci.prob.binomial_band`), with :math:`a` the spent alpha. A procedure with exactly
    nominal coverage fails with probability at most :math:`a`.

    Parameters
    ----------
    intervals : array (n, 2), or boolean array (n,) of coverage indicators when ``truth`` is None
        Lower and upper ends, one interval per independent replicate.
    truth : float or array (n,), optional
        The true value(s).
    level : float in (0, 1)
        The nominal coverage.
    alpha, spend, n_examples
        False-alarm rate and its spending (:func:`spent_alpha`).
    seed : any, optional
        The seed that produced the data, quoted in the failure message.
    what : str
        Name used in the failure message.

    Returns
    -------
    float
        The observed coverage.

    Raises
    ------
    StatisticalAssertionError
        Coverage outside the band.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((400, 20))
    >>> m, se = x.mean(1), x.std(1, ddof=1) / np.sqrt(20)
    >>> round(assert_covers(np.c_[m - 2.093 * se, m + 2.093 * se], 0.0, 0.95, seed=0), 3)
    0.938
    """
    from iclr26sci.prob import binomial_band

    lev = check_in_range(level, "level", 0.0, 1.0, low_open=True, high_open=True)
    a = spent_alpha(alpha, spend, n_examples)
    if truth is None:
        cov = np.atleast_1d(np.asarray(intervals))
        if cov.ndim != 1 or cov.dtype != bool:
            raise InputError("intervals", f"has shape {cov.shape} and dtype {cov.dtype} with truth=None",
                             "coverage indicators (1-D bool), or (n, 2) intervals with truth")
    else:
        iv = np.asarray(intervals, dtype=float)
        if iv.ndim != 2 or iv.shape[1] != 2 or iv.shape[0] < 1:
            raise InputError("intervals", f"has shape {iv.shape}", "(n, 2) lower and upper ends")
        if np.any(np.isnan(iv)):
            raise InputError("intervals", "contains NaN", "numbers (infinite ends are allowed)")
        if np.any(iv[:, 0] > iv[:, 1]):
            raise InputError("intervals", "has a lower end above its upper end", "lower <= upper")
        t = np.broadcast_to(np.asarray(truth, dtype=float), (iv.shape[0],)) if np.ndim(truth) <= 1 else None
        if t is None or t.shape[0] != iv.shape[0]:
            raise InputError("truth", f"has shape {np.shape(truth)}", f"a scalar or ({iv.shape[0]},)")
        if not np.all(np.isfinite(t)):
            raise InputError("truth", "contains NaN or infinite values", "finite numbers")
        cov = (iv[:, 0] <= t) & (t <= iv[:, 1])
    n = cov.size
    lo, hi = binomial_band(lev, n, a)
    p = float(cov.mean())
    if p < lo or p > hi:
        raise StatisticalAssertionError(what, p, f"the binomial band [{lo:.4g}, {hi:.4g}] for level {lev:g}, n={n}",
                                        a, seed, f"{int(cov.sum())} of {n} covered")
    return p


def assert_unbiased(estimates, truth: float, *, tol: float = 0.0, method: str = "t", alpha: float = 0.01,
                    spend: str = "none", n_examples: int | None = None, seed: Any = None,
                    what: str = "bias") -> float:
    r"""Assert that independent replicate estimates are centred on the truth (t-test or k·SE rule).

    With mean :math:`\bar x`, standard error :math:`\mathrm{SE} = s/\sqrt n`, the statistic is
    :math:`T = (|\bar x - \theta| - \mathrm{tol})/\mathrm{SE}`; the assertion fails when
    :math:`T > t_{n-1, 1-a/2}` (``method="t"``) or :math:`T > z_{1-a/2} = k` (``method="kse"``, the
    k·SE rule with k set by alpha). An unbiased estimator (bias at most ``tol``) fails with probability
    at most :math:`a` (exactly for normal replicates with the t rule; asymptotically otherwise).

    Parameters
    ----------
    estimates : array (n,), n >= 2
        Independent replicates of the estimator.
    truth : float
        The estimand.
    tol : float >= 0
        Bias allowed (an equivalence margin, e.g. a known discretisation bias).
    method : {"t", "kse"}
    alpha, spend, n_examples, seed, what
        As in :func:`assert_covers`.

    Returns
    -------
    float
        The statistic T (for a test that wants to log it).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(1).normal(2.0, 1.0, size=(500, 10))
    >>> round(assert_unbiased(x.mean(1), 2.0, seed=1), 2)       # the sample mean is unbiased
    1.04
    """
    from scipy import stats

    x = _vec(estimates, "estimates", 2)
    th = check_in_range(truth, "truth", None, None)
    tol = check_in_range(tol, "tol", 0.0, None)
    if method not in ("t", "kse"):
        raise InputError("method", f"got {method!r}", "'t' or 'kse'")
    a = spent_alpha(alpha, spend, n_examples)
    n = x.size
    se = float(x.std(ddof=1) / math.sqrt(n))
    dev = abs(float(x.mean()) - th) - tol
    if se == 0.0:
        T = 0.0 if dev <= 0 else math.inf
    else:
        T = dev / se
    crit = float(stats.t.ppf(1 - a / 2, n - 1)) if method == "t" else float(stats.norm.ppf(1 - a / 2))
    if T > crit:
        raise StatisticalAssertionError(what, T, f"(-inf, {crit:.4g}] ({method} rule, n={n})", a, seed,
                                        f"mean {x.mean():.6g} vs truth {th:.6g} (tol {tol:g}), SE {se:.3g}")
    return T


def _energy(a, b):
    def md(u, v):
        return np.sqrt(((u[:, None, :] - v[None, :, :]) ** 2).sum(-1)).mean()
    return 2 * md(a, b) - md(a, a) - md(b, b)


def assert_same_law(a, b, *, method: str = "auto", alpha: float = 0.01, spend: str = "none",
                    n_examples: int | None = None, n_permutations: int = 199, seed: Any = 0,
                    what: str = "same law") -> float:
    r"""Assert that two independent samples come from the same law (KS in 1-D, energy test otherwise).

    ``method="ks"``: the exact / asymptotic two-sample Kolmogorov-Smirnov test (scipy). ``method="energy"``:
    the energy distance :math:`\mathcal E = 2E\|X-Y\| - E\|X-X'\| - E\|Y-Y'\|` with a permutation
    p-value :math:`(1 + \#\{\mathcal E_\pi \ge \mathcal E\})/(1 + B)`, valid at any sample size. The
    assertion fails when the p-value is below the spent alpha, so samples of one law fail with
    probability at most alpha.

    Parameters
    ----------
    a, b : array (n,) or (n, d)
        The two samples (same d).
    method : {"auto", "ks", "energy"}
        ``"auto"``: KS for 1-D samples, energy otherwise.
    n_permutations : int >= 1
        B, for the energy test (the smallest attainable p-value is 1/(B+1): keep it below the spent alpha).
    seed : int
        Seed of the permutations (and quoted in the failure message).
    alpha, spend, n_examples, what
        As in :func:`assert_covers`.

    Returns
    -------
    float
        The p-value.

    Examples
    --------
    >>> import numpy as np
    >>> r = np.random.default_rng(0)
    >>> p = assert_same_law(r.standard_normal(300), r.standard_normal(300))
    >>> p > 0.01
    True
    >>> p2 = assert_same_law(r.standard_normal((60, 2)), r.standard_normal((60, 2)), seed=0)
    """
    from scipy import stats

    A = np.asarray(a, dtype=float)
    B = np.asarray(b, dtype=float)
    for name, v in (("a", A), ("b", B)):
        if v.ndim not in (1, 2) or v.shape[0] < 2:
            raise InputError(name, f"has shape {v.shape}", "(n,) or (n, d) with n >= 2")
        if not np.all(np.isfinite(v)):
            raise InputError(name, "contains NaN or infinite values", "finite numbers")
    if A.ndim != B.ndim or (A.ndim == 2 and A.shape[1] != B.shape[1]):
        raise InputError("b", f"has shape {B.shape} against a's {A.shape}", "the same number of columns")
    if method not in ("auto", "ks", "energy"):
        raise InputError("method", f"got {method!r}", "'auto', 'ks' or 'energy'")
    al = spent_alpha(alpha, spend, n_examples)
    if method == "auto":
        method = "ks" if A.ndim == 1 or A.shape[1] == 1 else "energy"
    if method == "ks":
        if A.ndim == 2 and A.shape[1] != 1:
            raise InputError("method", "'ks' with multivariate samples", "'energy' for d > 1")
        res = stats.ks_2samp(A.ravel(), B.ravel())
        stat, p = float(res.statistic), float(res.pvalue)
    else:
        nb = check_positive_int(n_permutations, "n_permutations")
        if 1.0 / (nb + 1) > al:
            raise InputError("n_permutations", f"is {nb}: the smallest p-value 1/{nb + 1} exceeds alpha {al:.3g}",
                             f"at least {math.ceil(1 / al) - 1} permutations")
        A2 = A.reshape(A.shape[0], -1)
        B2 = B.reshape(B.shape[0], -1)
        Z = np.concatenate([A2, B2])
        n = A2.shape[0]
        D = np.sqrt(((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
        gen = np.random.default_rng(seed if isinstance(seed, (int, np.integer)) else None)

        def e(idx):
            i, j = idx[:n], idx[n:]
            return 2 * D[np.ix_(i, j)].mean() - D[np.ix_(i, i)].mean() - D[np.ix_(j, j)].mean()

        base = np.arange(Z.shape[0])
        stat = float(e(base))
        perm = np.array([e(gen.permutation(Z.shape[0])) for _ in range(nb)])
        p = float((1 + np.sum(perm >= stat - 1e-15)) / (1 + nb))
    if p < al:
        raise StatisticalAssertionError(what, stat, f"the acceptance region of the {method} test (p = {p:.3g} < "
                                        f"alpha)", al, seed)
    return p


def assert_rate(ns, errors, rate: float, *, tol: float = 0.0, alpha: float = 0.01, spend: str = "none",
                n_examples: int | None = None, seed: Any = None, what: str = "rate") -> tuple[float, float, float]:
    r"""Assert that an error falls at a given rate in n: OLS slope of log error on log n, with its CI.

    Fits :math:`\log e = a + b \log n` by least squares over all (n, error) pairs and forms the
    :math:`1-a` t-interval of the slope :math:`b`. The assertion passes when the interval, widened by
    ``tol``, contains ``rate`` (for :math:`O(n^{-1/2})` pass ``rate=-0.5``). When the errors are
    log-normal around a power law, a correct rate fails with probability at most alpha.

    Parameters
    ----------
    ns : array (k,)
        Sample sizes (positive, at least two distinct values).
    errors : array (k,) or (k, r)
        Errors (positive); a 2-D array holds r replicates per n.
    rate : float
        The expected exponent b.
    tol : float >= 0
        Slack on the slope (e.g. 0.1 for a rate known only asymptotically).
    alpha, spend, n_examples, seed, what
        As in :func:`assert_covers`.

    Returns
    -------
    (slope, low, high) : tuple of float

    Examples
    --------
    >>> import numpy as np
    >>> r = np.random.default_rng(0)
    >>> ns = np.array([100, 200, 400, 800, 1600])
    >>> err = np.array([[abs(r.standard_normal(n).mean()) + 1e-12 for _ in range(40)] for n in ns])
    >>> b, lo, hi = assert_rate(ns, np.sqrt((err ** 2).mean(1)), -0.5, tol=0.05)
    >>> lo < -0.5 < hi
    True
    """
    from scipy import stats

    n = _vec(ns, "ns", 2)
    E = np.asarray(errors, dtype=float)
    if E.ndim not in (1, 2) or E.shape[0] != n.size:
        raise InputError("errors", f"has shape {E.shape}", f"({n.size},) or ({n.size}, r)")
    if np.any(n <= 0) or np.unique(n).size < 2:
        raise InputError("ns", "has non-positive or fewer than two distinct values", "positive, >= 2 distinct")
    if not np.all(np.isfinite(E)) or np.any(E <= 0):
        raise InputError("errors", "has non-positive or non-finite values", "positive finite errors (log is taken)")
    rate = check_in_range(rate, "rate", None, None)
    tol = check_in_range(tol, "tol", 0.0, None)
    a = spent_alpha(alpha, spend, n_examples)
    x = np.log(np.repeat(n, 1 if E.ndim == 1 else E.shape[1]))
    y = np.log(E).ravel()
    if x.size < 3:
        raise InputError("errors", f"gives {x.size} points", "at least 3 (n, error) pairs for a slope CI")
    xc = x - x.mean()
    b = float((xc * (y - y.mean())).sum() / (xc * xc).sum())
    resid = y - y.mean() - b * xc
    s2 = float((resid ** 2).sum() / (x.size - 2))
    se = math.sqrt(s2 / float((xc * xc).sum()))
    q = float(stats.t.ppf(1 - a / 2, x.size - 2))
    lo, hi = b - q * se, b + q * se
    if not (lo - tol <= rate <= hi + tol):
        raise StatisticalAssertionError(what, b, f"a slope CI [{lo:.4g}, {hi:.4g}] (+- tol {tol:g}) that misses "
                                        f"rate {rate:g}", a, seed, f"SE {se:.3g} on {x.size} points")
    return b, lo, hi


def assert_improves(a, b, *, margin: float = 0.0, higher_is_better: bool = True, method: str = "t",
                    alpha: float = 0.01, spend: str = "none", n_examples: int | None = None, seed: Any = None,
                    what: str = "improvement") -> float:
    r"""Assert that method A beats method B on paired scores (one-sided paired test).

    With differences :math:`d_i = a_i - b_i` (sign flipped when lower is better), the test rejects
    :math:`H_0: E[d] \le \text{margin}` at the spent alpha (paired t-test, or the Wilcoxon signed-rank
    test of :math:`d - \text{margin}` with ``method="wilcoxon"``); the assertion passes only when it
    rejects. So a method that does *not* improve by more than ``margin`` passes with probability at most
    alpha; the power to pass a real improvement is the test's power (check it with :func:`check_catches`).

    Parameters
    ----------
    a, b : array (n,)
        Paired scores (same seeds / data per pair).
    margin : float >= 0
        The improvement that must be exceeded.
    higher_is_better : bool
    method : {"t", "wilcoxon"}
    alpha, spend, n_examples, seed, what
        As in :func:`assert_covers`.

    Returns
    -------
    float
        The one-sided p-value.

    Examples
    --------
    >>> import numpy as np
    >>> r = np.random.default_rng(0)
    >>> base = r.standard_normal(50)
    >>> p = assert_improves(base + 0.5 + 0.1 * r.standard_normal(50), base)
    >>> p < 0.01
    True
    """
    from scipy import stats

    A = _vec(a, "a", 2)
    B = _vec(b, "b", 2)
    if A.size != B.size:
        raise InputError("b", f"has {B.size} entries against a's {A.size}", "paired scores of equal length")
    margin = check_in_range(margin, "margin", 0.0, None)
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise InputError("higher_is_better", f"got {higher_is_better!r}", "True or False")
    if method not in ("t", "wilcoxon"):
        raise InputError("method", f"got {method!r}", "'t' or 'wilcoxon'")
    al = spent_alpha(alpha, spend, n_examples)
    d = (A - B) if higher_is_better else (B - A)
    d = d - margin
    if method == "t":
        if np.all(d == d[0]):
            p = 0.0 if d[0] > 0 else 1.0
            stat = math.copysign(math.inf, d[0]) if d[0] != 0 else 0.0
        else:
            res = stats.ttest_1samp(d, 0.0, alternative="greater")
            stat, p = float(res.statistic), float(res.pvalue)
    else:
        if np.all(d == 0):
            stat, p = 0.0, 1.0
        else:
            res = stats.wilcoxon(d, alternative="greater")
            stat, p = float(res.statistic), float(res.pvalue)
    if p >= al:
        raise StatisticalAssertionError(what, stat, f"the rejection region of the one-sided paired {method} test "
                                        f"(p = {p:.3g} >= alpha)", al, seed,
                                        f"mean difference {float((d + margin).mean()):.4g} vs margin {margin:g}")
    return p


def check_catches(check: Callable[..., Any], broken: Any, *args, correct: Any = None, **kwargs) -> BaseException:
    """Assert that ``check`` fails on a deliberately broken variant (and passes on the correct one, if given).

    ``check(variant, *args, **kwargs)`` fails by raising ``AssertionError`` (a
    :class:`StatisticalAssertionError` included) or by returning ``False``. This is the power half of a
    statistical test: a check that cannot fail on a planted defect tests nothing.

    Parameters
    ----------
    check : callable
        The check, taking the variant as its first argument.
    broken : any
        The broken variant (a function, an estimator, a parameter value).
    correct : any, optional
        The correct variant: when given, ``check(correct)`` must pass first.
    *args, **kwargs
        Passed to ``check`` after the variant.

    Returns
    -------
    BaseException
        The failure the check raised on the broken variant (an ``AssertionError`` made up when it returned False).

    Examples
    --------
    >>> import numpy as np
    >>> def check(estimator):
    ...     x = np.random.default_rng(0).normal(1.0, 1.0, size=(300, 10))
    ...     assert_unbiased(estimator(x), 1.0, seed=0)
    >>> err = check_catches(check, lambda x: x.mean(1) + 0.3, correct=lambda x: x.mean(1))
    >>> type(err).__name__
    'StatisticalAssertionError'
    """
    if not callable(check):
        raise InputError("check", f"is a {type(check).__name__}", "a callable check(variant, ...)")
    if correct is not None:
        try:
            ok = check(correct, *args, **kwargs)
        except AssertionError as exc:
            raise AssertionError(f"check fails on the correct variant too, so it cannot tell them apart: {exc}") \
                from exc
        if ok is False:
            raise AssertionError("check returned False on the correct variant")
    try:
        out = check(broken, *args, **kwargs)
    except AssertionError as exc:
        return exc
    if out is False:
        return AssertionError("check returned False on the broken variant")
    raise AssertionError(f"check passed on the broken variant {broken!r}: it has no power against this defect")
