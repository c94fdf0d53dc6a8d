"""Released metrics of Agentic Predictor: pair accuracy and the ranking-based utility."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, as_generator, check_array, check_option, check_positive_int

__all__ = ["accuracy", "utility_score", "ranking_utility", "precision_at_k"]


def _probs(pred, pairs):
    from ._bench import PairSet

    if not isinstance(pairs, PairSet):
        raise InputError("pairs", f"got {type(pairs).__name__}", "a PairSet (e.g. bench.test)")
    if len(pairs) == 0:
        raise InputError("pairs", "holds no pairs", "at least one labelled workflow-task pair")
    if hasattr(pred, "predict_proba"):
        p = np.asarray(pred.predict_proba(pairs), float)
    else:
        p = check_array(pred, "pred", ndim=1)
    if len(p) != len(pairs):
        raise InputError("pred", f"{len(p)} probabilities for {len(pairs)} pairs", "one per pair")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        bad = p[~(np.isfinite(p) & (p >= 0) & (p <= 1))][0]
        raise InputError("pred", f"has values outside [0, 1] (e.g. {bad:g})", "success probabilities in [0, 1]")
    return p


def precision_at_k(true_scores, pred_scores, tie_break: str = "stable", rng=None) -> np.ndarray:
    r"""Top-k overlap :math:`\mathrm{prec}@k = |\mathrm{top}_k(p) \cap \mathrm{top}_k(g)| / k`, k = 1..N.

    Parameters
    ----------
    true_scores : array-like of shape (N,)
        Ground-truth score per workflow :math:`g(w)` (its measured success rate).
    pred_scores : array-like of shape (N,)
        Predicted score per workflow :math:`p(w)`.
    tie_break : {"stable", "random"}
        ``"stable"``: descending sort keeping first-appearance order among ties (Python's stable ``sorted``, as
        released); ``"random"``: ties broken by a random permutation drawn from ``rng``.
    rng : seed or numpy.random.Generator, optional
        Randomness for ``tie_break="random"``.

    Returns
    -------
    numpy.ndarray
        ``(N,)`` array; its last entry is always 1.

    Examples
    --------
    >>> from iclr26sci.agents import precision_at_k
    >>> precision_at_k([0.9, 0.5, 0.1], [0.2, 0.8, 0.1]).tolist()
    [0.0, 1.0, 1.0]
    """
    g = check_array(true_scores, "true_scores", ndim=1, min_rows=1)
    p = check_array(pred_scores, "pred_scores", ndim=1)
    if len(p) != len(g):
        raise InputError("pred_scores", f"length {len(p)} but true_scores has {len(g)}", "one score per workflow")
    check_option(tie_break, "tie_break", ["stable", "random"])
    n = len(g)
    if n == 0:
        raise InputError("true_scores", "is empty", "at least one workflow")
    if tie_break == "random":
        gen = as_generator(rng)
        pg, pp = gen.permutation(n), gen.permutation(n)
        og, op = pg[np.argsort(-g[pg], kind="stable")], pp[np.argsort(-p[pp], kind="stable")]
    else:
        og, op = np.argsort(-g, kind="stable"), np.argsort(-p, kind="stable")
    rank_g = np.empty(n, int)
    rank_g[og] = np.arange(n)
    # |top_k(p) ∩ top_k(g)|: element op[j] joins at k = max(j, rank_g[op[j]]) + 1
    join = np.maximum(np.arange(n), rank_g[op])
    inter = np.cumsum(np.bincount(join, minlength=n))
    return inter / np.arange(1, n + 1)


def ranking_utility(true_scores, pred_scores, tie_break: str = "stable", n_draws: int = 20, rng=None) -> float:
    r"""Utility = normalised area under the :math:`\mathrm{prec}@k` curve over :math:`k \in [1, N]` (released).

    .. math:: U = \frac{\int_1^N \mathrm{prec}@k\,dk}{\int_1^N 1\,dk} = \frac{\mathrm{AUC}}{N - 1},

    where, as in the official ``evaluate_mvgnn.py``, the curve is linearly interpolated at 100 equally spaced
    points of :math:`[1, N]` and integrated by the trapezoid rule. :math:`U \in [0, 1]`, :math:`U = 1` for a
    ranking that matches the truth, and for a uniformly random ranking of distinct truths
    :math:`E[\mathrm{prec}@k] = k/N`, so :math:`E[U] = (N+1)/(2N)`. With a single workflow :math:`U = 1`.

    Parameters
    ----------
    true_scores, pred_scores : array-like of shape (N,)
        Ground-truth and predicted score per workflow.
    tie_break : {"stable", "random"}
        Tie handling of the sorts (see :func:`precision_at_k`); ``"random"`` averages ``n_draws`` draws.
    n_draws : int
        Number of random tie-breaks averaged when ``tie_break="random"``.
    rng : seed or numpy.random.Generator, optional
        Randomness for ``tie_break="random"``.

    Returns
    -------
    float

    Examples
    --------
    >>> from iclr26sci.agents import ranking_utility
    >>> ranking_utility([0.9, 0.5, 0.1], [3, 2, 1]), ranking_utility([0.9, 0.5, 0.1], [1, 2, 3])
    (1.0, 0.5)
    """
    g = check_array(true_scores, "true_scores", ndim=1, min_rows=1)
    p = check_array(pred_scores, "pred_scores", ndim=1)
    if len(p) != len(g):
        raise InputError("pred_scores", f"length {len(p)} but true_scores has {len(g)}", "one score per workflow")
    n_draws = check_positive_int(n_draws, "n_draws")
    check_option(tie_break, "tie_break", ["stable", "random"])
    if tie_break == "random":
        rng = as_generator(rng)
    if len(g) == 1:
        return 1.0
    n = len(g)
    x = np.linspace(1, n, 100)

    def one(prec):
        return float(np.trapezoid(np.interp(x, np.arange(1, n + 1), prec), x) / (n - 1))

    if tie_break == "random":
        gen = as_generator(rng)
        return float(np.mean([one(precision_at_k(g, pred_scores, "random", gen)) for _ in range(n_draws)]))
    return one(precision_at_k(g, pred_scores, tie_break))


def _per_workflow(pairs, p):
    w = np.asarray(pairs.w_idx)
    ids, first = np.unique(w, return_index=True)
    order = ids[np.argsort(first)]                 # first-appearance order, as the released dict iteration
    g = np.array([pairs.y[w == i].mean() for i in order])
    ph = np.array([(p[w == i] > 0.5).mean() for i in order])
    return g, ph


def utility_score(pred, pairs, tie_break: str = "stable", n_draws: int = 20, rng=None) -> float:
    r"""Released ranking utility of a predictor on a test :class:`PairSet`.

    For each test workflow :math:`w`, :math:`g(w) = \mathrm{mean}_t\, y_{w,t}` and
    :math:`p(w) = \mathrm{mean}_t\, [\hat y_{w,t} > 0.5]` (thresholded predictions, as released); the
    workflows are ranked by both and :func:`ranking_utility` is returned.

    Parameters
    ----------
    pred : fitted predictor or array-like of shape (n_pairs,)
        Anything with ``predict_proba(pairs)``, or the predicted probabilities of the pairs.
    pairs : PairSet
        Test pairs with labels.
    tie_break, n_draws, rng
        See :func:`ranking_utility`.

    Returns
    -------
    float

    Examples
    --------
    >>> from iclr26sci.agents import synthetic_workflow_bench, utility_score
    >>> bench = synthetic_workflow_bench(n_workflows=6, n_tasks=4, rng=0)
    >>> utility_score(bench.test.y.astype(float), bench.test)
    1.0
    """
    check_option(tie_break, "tie_break", ["stable", "random"])
    n_draws = check_positive_int(n_draws, "n_draws")
    if tie_break == "random":
        rng = as_generator(rng)
    p = _probs(pred, pairs)
    g, ph = _per_workflow(pairs, p)
    return ranking_utility(g, ph, tie_break=tie_break, n_draws=n_draws, rng=rng)


def accuracy(pred, pairs) -> float:
    r"""Released pair accuracy :math:`\mathrm{mean}\,([\hat y > 0.5] = y)` over the test pairs.

    Parameters
    ----------
    pred : fitted predictor or array-like of shape (n_pairs,)
        Anything with ``predict_proba(pairs)``, or the predicted probabilities.
    pairs : PairSet
        Test pairs with labels.

    Returns
    -------
    float

    Examples
    --------
    >>> from iclr26sci.agents import synthetic_workflow_bench, accuracy
    >>> bench = synthetic_workflow_bench(n_workflows=6, n_tasks=4, rng=0)
    >>> accuracy(1.0 - bench.test.y, bench.test)
    0.0
    """
    p = _probs(pred, pairs)
    return float(np.mean((p > 0.5) == (pairs.y > 0.5)))
