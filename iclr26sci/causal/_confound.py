"""Induced confounding for randomised trials, and unbiased policy evaluation on an RCT split.

The paper creates confounding in the International Stroke Trial by dropping
training rows on a covariate-by-arm rule and hiding the covariate; here the same
construction applies to any randomised :class:`ObservationalData` (e.g. thornton_hiv).
"""
from __future__ import annotations

import numpy as np

from iclr26sci.core import (Estimate, InputError, ObservationalData, as_generator, check_in_range)

from ._policy import as_policy_matrix
from ._validate import check_array, check_bool

__all__ = ["induce_confounding", "split_rct", "rct_policy_value"]


def _feature_index(data: ObservationalData, covariate, name: str = "covariate") -> int:
    if isinstance(covariate, str):
        names = data.feature_names or []
        if covariate not in names:
            raise InputError(name, f"{covariate!r} is not a feature", "one of " + ", ".join(map(str, names)))
        return names.index(covariate)
    if isinstance(covariate, (int, np.integer)) and not isinstance(covariate, bool):
        if not 0 <= int(covariate) < data.n_features:
            raise InputError(name, f"column {covariate} out of range", f"0..{data.n_features - 1}")
        return int(covariate)
    raise InputError(name, f"got {covariate!r}", "a feature name or column index")


def split_rct(data: ObservationalData, test_fraction: float = 0.5, rng=None):
    """Random split of a trial into (train, test), stratified by arm.

    Parameters
    ----------
    data : ObservationalData
        A randomised trial.
    test_fraction : float in (0, 1)
        Share of each arm's rows that goes to the test part; both parts must keep at least one row.
    rng : None, int or numpy Generator
        Seed of the split.

    Returns
    -------
    (train, test) : tuple of ObservationalData

    Examples
    --------
    >>> from iclr26sci.causal import simulate_v1, split_rct
    >>> data, _ = simulate_v1(100, rng=0)
    >>> train, test = split_rct(data, 0.3, rng=0)
    >>> train.n + test.n, test.n
    (100, 30)
    """
    if not isinstance(data, ObservationalData):
        raise InputError("data", f"got {type(data).__name__}", "ObservationalData")
    test_fraction = check_in_range(test_fraction, "test_fraction", 0.0, 1.0, low_open=True, high_open=True)
    gen = as_generator(rng)
    test = np.zeros(data.n, bool)
    for a in np.unique(data.A):
        idx = gen.permutation(np.flatnonzero(data.A == a))
        test[idx[: int(round(test_fraction * idx.shape[0]))]] = True
    if not test.any() or test.all():
        raise InputError("test_fraction", f"{test_fraction:g} leaves an empty {'test' if not test.any() else 'train'}"
                         f" part with n={data.n}", f"a fraction in [{1 / data.n:.3g}, {1 - 1 / data.n:.3g}] or so")
    return data.subset(np.flatnonzero(~test)), data.subset(np.flatnonzero(test))


def induce_confounding(data: ObservationalData, covariate, drop_fraction: float = 0.6, arms=(0, 1),
                       hide: bool = True, rng=None) -> ObservationalData:
    """Create unobserved confounding in randomised data (the paper's IST construction).

    Drops a fraction ``drop_fraction`` of the rows with arm ``arms[0]`` and covariate above
    its mean, and the same fraction of rows with arm ``arms[1]`` and covariate below its mean;
    then (``hide=True``) removes the covariate from ``X``. The treatment probability then
    depends on the hidden covariate, i.e. on an unobserved confounder.

    Parameters
    ----------
    data : ObservationalData
        A randomised trial (treatment independent of the covariates).
    covariate : str or int
        Name or column index of the covariate that becomes the hidden confounder.
    drop_fraction : float in [0, 1)
        Share of the candidate rows dropped; larger means stronger induced confounding.
    arms : tuple of two different arm indices
        ``(a0, a1)``: rows of ``a0`` with the covariate above its mean and rows of ``a1`` below it are dropped.
    hide : bool
        Remove the covariate from ``X`` (making it an unobserved confounder).
    rng : None, int or numpy Generator
        Seed of the dropping.

    Returns
    -------
    ObservationalData, with ``meta["kept_index"]`` the rows kept and ``meta["hidden"]`` the covariate.

    Examples
    --------
    >>> from iclr26sci.causal import induce_confounding, simulate_v1
    >>> data, _ = simulate_v1(200, d=2, rng=0)
    >>> conf = induce_confounding(data, "x0", 0.6, rng=0)
    >>> conf.n < data.n, conf.feature_names, conf.meta["hidden"]
    (True, ['x1'], 'x0')
    """
    if not isinstance(data, ObservationalData):
        raise InputError("data", f"got {type(data).__name__}", "ObservationalData")
    j = _feature_index(data, covariate)
    drop_fraction = check_in_range(drop_fraction, "drop_fraction", 0.0, 1.0, high_open=True)
    hide = check_bool(hide, "hide")
    if (isinstance(arms, (str, bytes)) or not hasattr(arms, "__len__") or len(arms) != 2
            or any(isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) for a in arms)
            or any(not 0 <= int(a) < data.n_arms for a in arms) or arms[0] == arms[1]):
        raise InputError("arms", f"got {arms!r}", f"two different arm indices in 0..{data.n_arms - 1}")
    gen = as_generator(rng)
    x = data.X[:, j]
    thr = float(np.mean(x))
    cand = ((data.A == arms[0]) & (x > thr)) | ((data.A == arms[1]) & (x < thr))
    drop = cand & (gen.uniform(size=data.n) < drop_fraction)
    keep = np.flatnonzero(~drop)
    X = data.X[keep]
    names = list(data.feature_names) if data.feature_names else [f"x{k}" for k in range(data.n_features)]
    hidden = names[j]
    if hide:
        if data.n_features < 2:
            raise InputError("covariate", "is the only feature; hiding it leaves no covariates",
                             "data with at least two features")
        X = np.delete(X, j, axis=1)
        names = names[:j] + names[j + 1:]
    meta = dict(data.meta)
    meta.update(kept_index=keep, hidden=hidden, drop_fraction=drop_fraction, threshold=thr)
    return ObservationalData(X, data.A[keep], data.Y[keep], feature_names=names, source=data.source,
                             description=f"{data.description or ''} [confounded: rows dropped on {hidden} by arm, "
                                         f"{hidden} hidden]".strip(),
                             arm_names=data.arm_names, meta=meta)


def rct_policy_value(data: ObservationalData, policy, propensity=None, drop_columns=None) -> Estimate:
    """IPW value of ``policy`` on randomised data, with the empirical randomisation shares.

    .. math:: \\hat V(\\pi) = \\frac1n\\sum_i \\frac{\\pi(A_i\\mid X_i)\\,Y_i}{\\hat p_{A_i}}

    (with the indicator :math:`1\\{A_i=a\\}`, unlike the official IST evaluation).

    Parameters
    ----------
    data : ObservationalData
        A randomised trial (the test part of :func:`split_rct`).
    policy : policy object, callable, (n, K) probabilities, (n,) arms, int or "uniform"
        The policy to evaluate (anything :func:`as_policy_matrix` accepts).
    propensity : array (K,), optional
        The trial's randomisation probabilities (positive, summing to 1); default the empirical arm shares.
    drop_columns : list of str or int, optional
        Feature names or indices to remove before calling the policy (e.g. the covariate hidden during
        training by :func:`induce_confounding`).

    Returns
    -------
    Estimate

    Examples
    --------
    >>> from iclr26sci.causal import rct_policy_value, simulate_v1
    >>> data, _ = simulate_v1(500, gamma=1.0, law="benign", rng=0)
    >>> v = rct_policy_value(data, 1)
    >>> v.name, v.n
    ('RCT IPW policy value', 500)
    """
    if not isinstance(data, ObservationalData):
        raise InputError("data", f"got {type(data).__name__}", "ObservationalData")
    X = data.X
    K = data.n_arms
    p = None
    if propensity is not None:
        p = check_array(propensity, "propensity", ndim=1)
        if p.shape != (K,) or np.any(p <= 0) or abs(p.sum() - 1) > 1e-8:
            raise InputError("propensity", f"got {p}", f"{K} positive probabilities summing to 1")
    if drop_columns is not None:
        if isinstance(drop_columns, (str, int, np.integer)) or not hasattr(drop_columns, "__iter__"):
            raise InputError("drop_columns", f"got {drop_columns!r}",
                             "a list of feature names or indices, e.g. ['age']")
        idx = [_feature_index(data, c, "drop_columns") for c in drop_columns]
        X = np.delete(X, idx, axis=1)
    P = as_policy_matrix(policy, X, K)
    if p is None:
        p = np.bincount(data.A, minlength=K) / data.n
    if np.any(p <= 0):
        raise InputError("data", "an arm has no observations", "every arm observed")
    psi = P[np.arange(data.n), data.A] * data.Y / p[data.A]
    return Estimate(float(psi.mean()), float(psi.std(ddof=1) / np.sqrt(data.n)), name="RCT IPW policy value",
                    n=data.n)
