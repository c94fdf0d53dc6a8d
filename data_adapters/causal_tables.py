"""causaldata tables as :class:`iclr26sci.core.ObservationalData`."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import ObservationalData

from ._base import adapter, check_choice

__all__ = ["load_nhefs", "load_thornton_hiv", "load_nsw"]

_NHEFS_COVARIATES = ["sex", "race", "age", "education", "smokeintensity", "smokeyrs", "exercise", "active", "wt71"]


def _numeric_frame(df, cols):
    out = df[cols].copy()
    for c in cols:
        if str(out[c].dtype) == "category":
            out[c] = out[c].astype(str).astype(float)
    return out.astype(float)


@adapter(returns="ObservationalData", source="causaldata.nhefs",
         description="NHEFS: quitting smoking (qsmk) and weight change 1971-82 (kg), 9 baseline covariates")
def load_nhefs(outcome: str = "wt82_71") -> ObservationalData:
    """NHEFS smoking-cessation study (Hernan & Robins, *Causal Inference: What If*).

    Treatment ``A`` = ``qsmk`` (quit smoking between 1971 and 1982), outcome
    ``Y`` = ``outcome`` (default weight change in kg), covariates the standard
    nine confounders of the book's chapter 12. Rows with a missing outcome
    (censored) are dropped: 1,566 units remain.

    Parameters
    ----------
    outcome : {"wt82_71", "death", "sbp", "dbp"}
        The outcome column: weight change 1971-82 in kg, death by 1992
        (0/1), or systolic / diastolic blood pressure in 1982 (mmHg).

    Examples
    --------
    >>> d = load_nhefs()
    >>> d.n, d.n_features, d.arm_names
    (1566, 9, ['did not quit', 'quit'])
    """
    from causaldata import nhefs

    check_choice(outcome, "outcome", ["wt82_71", "death", "sbp", "dbp"])
    df = nhefs.load_pandas().data
    df = df.dropna(subset=["qsmk", outcome, *_NHEFS_COVARIATES])
    X = _numeric_frame(df, _NHEFS_COVARIATES).to_numpy()
    return ObservationalData(X, df["qsmk"].to_numpy().astype(int), df[outcome].to_numpy(float),
                             feature_names=list(_NHEFS_COVARIATES), source="causaldata.nhefs",
                             description=f"NHEFS: A = quit smoking (qsmk), Y = {outcome}",
                             arm_names=["did not quit", "quit"])


@adapter(returns="ObservationalData", source="causaldata.thornton_hiv",
         description="Thornton (2008) randomised cash incentive (any) and learning one's HIV result (got)")
def load_thornton_hiv() -> ObservationalData:
    """Thornton (2008) Malawi randomised trial: a cash incentive to learn one's HIV status.

    Treatment ``A`` = ``any`` (received any incentive; randomised), outcome
    ``Y`` = ``got`` (learned the result), covariates ``distvct`` (distance to
    the test centre, km), ``age`` and ``hiv2004`` (HIV status). Rows with
    missing values are dropped. Because the treatment is randomised, methods
    for unobserved confounding can be stress-tested by creating confounding
    on purpose (see ``iclr26sci.causal``).

    Examples
    --------
    >>> d = load_thornton_hiv()
    >>> d.n_arms, d.meta["randomized"]
    (2, True)
    """
    from causaldata import thornton_hiv

    df = thornton_hiv.load_pandas().data
    cols = ["distvct", "age", "hiv2004"]
    df = df.dropna(subset=["any", "got", *cols])
    X = df[cols].to_numpy(float)
    return ObservationalData(X, df["any"].to_numpy().astype(int), df["got"].to_numpy(float),
                             feature_names=cols, source="causaldata.thornton_hiv",
                             description="Thornton HIV: A = any incentive (randomised), Y = got result",
                             arm_names=["no incentive", "incentive"],
                             meta={"randomized": True, "village": df["villnum"].to_numpy()})


@adapter(returns="ObservationalData", source="causaldata.nsw_mixtape + cps_mixtape",
         description="LaLonde NSW job training: experimental controls or CPS comparison group")
def load_nsw(control: str = "experimental") -> ObservationalData:
    """LaLonde's NSW job-training data (Dehejia-Wahba sample), outcome 1978 earnings.

    ``control="experimental"`` keeps the randomised NSW controls (445 units);
    ``control="cps"`` replaces them with the CPS comparison group, the
    classic observational benchmark (185 treated + 15,992 CPS units).

    Parameters
    ----------
    control : {"experimental", "cps"}
        Comparison group: the randomised NSW controls, or the CPS survey
        sample (observational, strongly confounded).

    Examples
    --------
    >>> load_nsw().n, load_nsw("cps").n
    (445, 16177)
    """
    from causaldata import cps_mixtape, nsw_mixtape

    check_choice(control, "control", ["experimental", "cps"])
    cols = ["age", "educ", "black", "hisp", "marr", "nodegree", "re74", "re75"]
    nsw = nsw_mixtape.load_pandas().data
    if control == "experimental":
        df = nsw
    else:
        import pandas as pd

        df = pd.concat([nsw[nsw["treat"] == 1], cps_mixtape.load_pandas().data], ignore_index=True)
    X = df[cols].to_numpy(float)
    return ObservationalData(X, df["treat"].to_numpy().astype(int), df["re78"].to_numpy(float),
                             feature_names=cols, source=f"causaldata.nsw_mixtape ({control} controls)",
                             description="NSW job training: A = treat, Y = re78 earnings (USD)",
                             arm_names=["control", "training"], meta={"randomized": control == "experimental"})
