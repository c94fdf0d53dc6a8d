"""Result objects: estimates with standard errors, intervals and citations."""
from __future__ import annotations

import html
import math
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Estimate"]


def _fmt(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:.6g}"


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its standard error and a normal-theory interval.

    .. math::

        \\hat\\theta \\pm z_{1-\\alpha/2}\\,\\widehat{\\mathrm{se}}

    Parameters
    ----------
    value : float
        The point estimate.
    stderr : float
        Its standard error (``nan`` when none is available).
    name : str
        What is estimated.
    n : int, optional
        Sample size behind the estimate.
    citation : str, optional
        The paper whose estimator produced it.
    extra : dict
        Any further named figures (bias bounds, counts...).
    """

    value: float
    stderr: float = float("nan")
    name: str = "estimate"
    n: int | None = None
    citation: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "stderr", float(self.stderr))

    def conf_int(self, alpha: float = 0.05) -> tuple[float, float]:
        """Two-sided ``1 - alpha`` normal interval ``value ± z * stderr``."""
        from scipy.stats import norm

        from ._errors import check_in_range

        check_in_range(alpha, "alpha", 0.0, 1.0, low_open=True, high_open=True)
        z = float(norm.ppf(1.0 - alpha / 2.0))
        return (self.value - z * self.stderr, self.value + z * self.stderr)

    def lower_bound(self, alpha: float = 0.05) -> float:
        """One-sided lower ``1 - alpha`` confidence bound."""
        from scipy.stats import norm

        return self.value - float(norm.ppf(1.0 - alpha)) * self.stderr

    def upper_bound(self, alpha: float = 0.05) -> float:
        """One-sided upper ``1 - alpha`` confidence bound."""
        from scipy.stats import norm

        return self.value + float(norm.ppf(1.0 - alpha)) * self.stderr

    def summary(self, alpha: float = 0.05) -> str:
        """One-line text summary."""
        lo, hi = self.conf_int(alpha)
        s = f"{self.name}: {_fmt(self.value)} (se {_fmt(self.stderr)}; {100 * (1 - alpha):g}% CI [{_fmt(lo)}, {_fmt(hi)}]"
        if self.n is not None:
            s += f"; n={self.n}"
        return s + ")"

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (JSON-serialisable)."""
        d = asdict(self)
        lo, hi = self.conf_int()
        d["ci95"] = [lo, hi]
        return d

    def to_markdown(self) -> str:
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

    def __str__(self) -> str:
        return self.summary()

    def __float__(self) -> float:
        return self.value
