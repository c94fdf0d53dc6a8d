"""Result objects: estimates with standard errors, intervals and citations."""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

__all__ = ["Estimate"]


def _fmt(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:.6g}"


def _real(value: Any, name: str) -> float:
    import numpy as np

    from ._errors import InputError

    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.floating, np.integer)):
        raise InputError(name, f"got {value!r} of type {type(value).__name__}", "a real number")
    return float(value)


@dataclass(frozen=True)
class Estimate:
    r"""A point estimate with its standard error and a normal-theory interval.

    .. math::

        \hat\theta \pm z_{1-\alpha/2}\,\widehat{\mathrm{se}}

    Parameters
    ----------
    value : float
        The point estimate :math:`\hat\theta` (finite).
    stderr : float, default nan
        Its estimated standard error :math:`\widehat{\mathrm{se}} \ge 0`;
        ``nan`` when none is available (the intervals are then ``nan``).
    name : str
        What is estimated, in words (shown in the summary).
    n : int, optional
        Sample size behind the estimate (>= 1).
    citation : str, optional
        The paper whose estimator produced it.
    extra : dict
        Any further named figures (bias bounds, counts...).

    Raises
    ------
    InputError
        If ``value`` is not a finite real, ``stderr`` is negative or
        infinite, or ``n`` is not a positive integer.

    Examples
    --------
    >>> est = Estimate(1.5, 0.1, name="ATE", n=400)
    >>> est
    Estimate(name='ATE', value=1.5, stderr=0.1, n=400)
    >>> [round(b, 4) for b in est.conf_int(0.05)]
    [1.304, 1.696]
    >>> print(est.summary())
    ATE: 1.5 (se 0.1; 95% CI [1.304, 1.696]; n=400)
    >>> est.to_dict()["ci95"] == list(est.conf_int())
    True
    """

    value: float
    stderr: float = float("nan")
    name: str = "estimate"
    n: int | None = None
    citation: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        import numpy as np

        from ._errors import InputError

        v = _real(self.value, "value")
        if not math.isfinite(v):
            raise InputError("value", f"got {v}", "a finite point estimate")
        se = _real(self.stderr, "stderr")
        if not math.isnan(se) and (se < 0 or not math.isfinite(se)):
            raise InputError("stderr", f"got {se:g}", "a finite standard error >= 0 (or nan when unknown)")
        n = self.n
        if n is not None:
            if isinstance(n, (bool, np.bool_)) or not isinstance(n, (Integral, np.integer)) or int(n) < 1:
                raise InputError("n", f"got {n!r}", "a sample size: an integer >= 1, or None")
            n = int(n)
        if not isinstance(self.name, str):
            raise InputError("name", f"got {type(self.name).__name__}", "a string")
        if not isinstance(self.citation, str):
            raise InputError("citation", f"got {type(self.citation).__name__}", "a string")
        if not isinstance(self.extra, dict):
            raise InputError("extra", f"got {type(self.extra).__name__}", "a dict of named figures")
        object.__setattr__(self, "value", v)
        object.__setattr__(self, "stderr", se)
        object.__setattr__(self, "n", n)

    def _z(self, alpha: float, two_sided: bool) -> float:
        from scipy.special import ndtri

        from ._errors import check_in_range

        a = check_in_range(alpha, "alpha", 0.0, 1.0, low_open=True, high_open=True)
        return float(ndtri(1.0 - a / 2.0)) if two_sided else float(ndtri(1.0 - a))

    def conf_int(self, alpha: float = 0.05) -> tuple[float, float]:
        """Two-sided ``1 - alpha`` normal interval ``value ± z_{1-alpha/2} * stderr``.

        Parameters
        ----------
        alpha : float in (0, 1), default 0.05
            Miscoverage level: the interval covers with probability ``1 - alpha``.
        """
        z = self._z(alpha, True)
        return (self.value - z * self.stderr, self.value + z * self.stderr)

    def lower_bound(self, alpha: float = 0.05) -> float:
        """One-sided lower ``1 - alpha`` confidence bound ``value - z_{1-alpha} * stderr``.

        Parameters
        ----------
        alpha : float in (0, 1), default 0.05
            Probability that the true value lies below the bound.
        """
        return self.value - self._z(alpha, False) * self.stderr

    def upper_bound(self, alpha: float = 0.05) -> float:
        """One-sided upper ``1 - alpha`` confidence bound ``value + z_{1-alpha} * stderr``.

        Parameters
        ----------
        alpha : float in (0, 1), default 0.05
            Probability that the true value lies above the bound.
        """
        return self.value + self._z(alpha, False) * self.stderr

    def summary(self, alpha: float = 0.05) -> str:
        """One-line text summary: value, standard error, ``1 - alpha`` interval and n."""
        lo, hi = self.conf_int(alpha)
        s = f"{self.name}: {_fmt(self.value)} (se {_fmt(self.stderr)}; {100 * (1 - alpha):g}% CI [{_fmt(lo)}, {_fmt(hi)}]"
        if self.n is not None:
            s += f"; n={self.n}"
        return s + ")"

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (JSON-serialisable): the fields plus the 95% interval ``ci95``."""
        lo, hi = self.conf_int()
        return {"value": self.value, "stderr": self.stderr, "name": self.name, "n": self.n,
                "citation": self.citation, "extra": dict(self.extra), "ci95": [lo, hi]}

    def to_markdown(self) -> str:
        """A one-row Markdown table (quantity, value, se, 95% CI)."""
        lo, hi = self.conf_int()
        return (f"| quantity | value | se | 95% CI |\n|---|---|---|---|\n"
                f"| {self.name} | {_fmt(self.value)} | {_fmt(self.stderr)} | [{_fmt(lo)}, {_fmt(hi)}] |")

    def _repr_html_(self) -> str:
        lo, hi = self.conf_int()
        cite = f"<br><small>{html.escape(self.citation)}</small>" if self.citation else ""
        return (
            "<table><tr><th>quantity</th><th>value</th><th>se</th><th>95% CI</th></tr>"
            f"<tr><td>{html.escape(self.name)}</td><td>{_fmt(self.value)}</td><td>{_fmt(self.stderr)}</td>"
            f"<td>[{_fmt(lo)}, {_fmt(hi)}]</td></tr></table>{cite}"
        )

    def __repr__(self) -> str:
        n = "" if self.n is None else f", n={self.n}"
        return f"Estimate(name={self.name!r}, value={self.value:.6g}, stderr={self.stderr:.6g}{n})"

    def __str__(self) -> str:
        return self.summary()

    def __float__(self) -> float:
        return self.value
