r"""The Plackett-Luce model over K teachers: weighted minorise-maximise (MM) fit and sampling.

A ranking :math:`\pi` (best first) of K items with worths :math:`s \in \mathbb R^K` has probability

.. math:: P(\pi \mid s) = \prod_{j=1}^{K-1} \frac{e^{s_{\pi(j)}}}{\sum_{l \ge j} e^{s_{\pi(l)}}}.

Every stage j of a ranking is a choice of :math:`\pi(j)` from the remaining set :math:`R_j`, so the
weighted log-likelihood :math:`\sum_i w_i \log P(\pi_i \mid s)` depends on the data only through
:math:`A_k` (weighted number of stages won by k) and :math:`B_S` (weighted number of stages whose
remaining set is S), S ranging over the :math:`2^K` subsets. Hunter's (2004) MM step is then

.. math:: \gamma_k \leftarrow \frac{A_k}{\sum_S B_S [k \in S] / \sum_{l \in S} \gamma_l}, \qquad \gamma = e^{s},

followed by the gauge :math:`\sum_k s_k = 0`. Ties (an ordered partition, e.g. "correct teachers
first") are expanded into all their orderings with equal weight, which keeps the model equivariant
under relabelling of the teachers. Computing (A, B) once makes a contextual fit (one set of weights
per query) a matrix product plus a few dozen O(2^K K) iterations.
"""
from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

import warnings

from iclr26sci.core import (InputError, as_generator, check_array, check_in_range, check_memory,
                            check_positive_int)

__all__ = ["plackett_luce_mm", "sample_plackett_luce", "plackett_luce_loglik"]

_MAX_K = 12


def _membership(K):
    S = np.arange(2 ** K)
    return ((S[:, None] >> np.arange(K)[None, :]) & 1).astype(float)        # (2^K, K)


def _check_rankings(rankings, K=None):
    """Rankings as ordered partitions: a list (per observation) of tied groups (lists of item indices)."""
    if K is not None:
        if isinstance(K, (bool, np.bool_)) or not isinstance(K, (int, np.integer)):
            raise InputError("K", f"got {K!r} of type {type(K).__name__}", f"None or an integer in [2, {_MAX_K}]")
        K = int(K)
        if K < 2 or K > _MAX_K:
            raise InputError("K", f"got {K}", f"an integer in [2, {_MAX_K}]")
    if isinstance(rankings, np.ndarray):
        if rankings.ndim != 2:
            raise InputError("rankings", f"is an array of shape {rankings.shape}", "an (n, K) array of permutations")
        rankings = rankings.tolist()
    if isinstance(rankings, (str, bytes, dict)) or not hasattr(rankings, "__len__") or len(rankings) == 0:
        raise InputError("rankings", "is empty or not a sequence", "a non-empty list of rankings")
    out = []
    for r in rankings:
        if isinstance(r, (str, bytes, dict)) or not hasattr(r, "__iter__"):
            raise InputError("rankings", f"has an entry {r!r} that is not a ranking",
                             "a list of rankings, each a list of item indices (best first)")
        groups = [[g] if np.isscalar(g) else list(g) for g in r]
        items = [x for g in groups for x in g]
        if not all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in items):
            raise InputError("rankings", f"has a non-integer item in {r!r}", "integer item indices")
        out.append([[int(x) for x in g] for g in groups if len(g)])
    if any(not r for r in out):
        raise InputError("rankings", "has an empty ranking", "each ranking lists every item once")
    Kd = max(max(x for g in r for x in g) for r in out) + 1
    if K is not None and Kd > K:
        raise InputError("K", f"is {K} but the rankings name item {Kd - 1}", f"K >= {Kd} (items are 0..K-1)")
    K = Kd if K is None else K
    if K < 2 or K > _MAX_K:
        raise InputError("rankings", f"rank K={K} items", f"2 <= K <= {_MAX_K}")
    for r in out:
        items = sorted(x for g in r for x in g)
        if items != list(range(K)):
            raise InputError("rankings", f"{r!r} is not a ranking of all K={K} items exactly once",
                             "each ranking lists every item 0..K-1 once (tied groups allowed)")
    return out, K


def _beats(rankings, K, weights=None):
    """Boolean (K, K): item a is placed above item b (or tied with it) in some ranking of positive weight."""
    Bt = np.zeros((K, K), dtype=bool)
    for i, r in enumerate(rankings):
        if weights is not None and not weights[i] > 0:
            continue
        seen = []
        for g in r:
            for a in g:
                for b in g:
                    if a != b:
                        Bt[a, b] = True
            for a in seen:
                for b in g:
                    Bt[a, b] = True
            seen.extend(g)
    return Bt


def mle_obstruction(rankings, K, weights=None):
    """``None`` when the Plackett-Luce MLE is finite, else a set of items never placed below the others.

    Hunter (2004, Assumption 1; Ford 1957 for paired comparisons): the MLE exists and is unique (up to the
    gauge) iff for every split of the items into two non-empty sets some item of each set is ranked above
    some item of the other, i.e. the directed "ranked above" graph is strongly connected.
    """
    Bt = _beats(rankings, K, weights)
    reach = np.eye(K, dtype=bool) | Bt
    for _ in range(K):                                     # transitive closure (K <= 12)
        reach = reach | ((reach.astype(int) @ reach.astype(int)) > 0)
    if reach.all():
        return None
    # T = the items that (indirectly) rank above some item k that not every item reaches: no item outside T
    # is ever ranked above an item of T, so the worths of T against the rest diverge
    k = int(np.flatnonzero(~reach.all(axis=0))[0])
    return [int(x) for x in np.flatnonzero(reach[:, k])]


def _raise_no_mle(obstruction, K, what="rankings"):
    raise InputError(what, f"admit no finite maximum-likelihood worths: items {obstruction} are never ranked below "
                           f"an item outside that set, so the worths of the two sets drift apart without bound",
                     "rankings in which, for every split of the K items into two groups, each group is ranked above "
                     "the other somewhere (Hunter 2004, Assumption 1), or alpha > 0 (pseudo-comparisons)")


def ranking_stats(rankings, K=None):
    """Per-ranking sufficient statistics ``(A, B)``: shapes (n, K) and (n, 2^K), ties expanded."""
    rankings, K = _check_rankings(rankings, K)
    n = len(rankings)
    A = np.zeros((n, K))
    B = np.zeros((n, 2 ** K))
    for i, r in enumerate(rankings):
        later = sum(1 << x for g in r for x in g)
        for g in r:
            later &= ~sum(1 << x for x in g)
            m = len(g)
            for x in g:
                A[i, x] += 1.0
            for s in range(1, m + 1):
                w = 1.0 / comb(m, s)
                for T in combinations(g, s):
                    B[i, sum(1 << x for x in T) | later] += w
    for k in range(K):                          # drop the final single-item stage: it carries no information
        A[:, k] -= B[:, 1 << k]
        B[:, 1 << k] = 0.0
    return A, B, K


def _mm(A, B, K, alpha, tol, max_iter):
    """Vectorised MM over Q problems: A (Q, K), B (Q, 2^K). Returns centred log-worths (Q, K) and iterations."""
    M = _membership(K)
    if alpha > 0:                                # alpha pseudo-comparisons of each pair, both ways
        A = A + alpha * (K - 1)
        B = B.copy()
        for a, b in combinations(range(K), 2):
            B[:, (1 << a) | (1 << b)] += 2 * alpha
    g = np.ones_like(A)
    it = 0
    for it in range(1, max_iter + 1):
        G = g @ M.T
        denom = (B / np.where(G > 0, G, 1.0)) @ M
        new = np.where(denom > 0, A / np.where(denom > 0, denom, 1.0), g)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.mean(np.log(new), axis=1, keepdims=True))
        delta = np.max(np.abs(np.log(new) - np.log(g)))
        g = new
        if delta < tol:
            break
    s = np.log(g)
    return s - s.mean(axis=1, keepdims=True), it


def plackett_luce_mm(rankings, *, K=None, weights=None, alpha: float = 0.0, tol: float = 1e-10,
                     max_iter: int = 10000) -> np.ndarray:
    r"""Weighted maximum-likelihood Plackett-Luce worths by Hunter's MM algorithm.

    Maximises :math:`\sum_i w_i \log P(\pi_i \mid s)` (see the module docstring) under the gauge
    :math:`\sum_k s_k = 0`; ``alpha > 0`` adds ``alpha`` pseudo-observations of every pairwise comparison
    in both directions, a symmetric prior that keeps the worths finite when a teacher always (or never)
    wins [RECON: the spec's :math:`-\lambda\lVert s\rVert^2` penalty, in the pseudo-count form MM keeps
    closed-form; ``choix``'s ``alpha`` plays the same role].

    Parameters
    ----------
    rankings : (n, K) int array or list of ordered partitions
        Each ranking lists the items best first; an entry may be a list of tied items.
    K : int, optional
        Number of items (default: inferred).
    weights : array-like (n,), optional
        Non-negative weight :math:`w_i` of each ranking (default 1).
    alpha : float >= 0, default 0
        Pseudo-count regulariser (0: plain MLE, which needs every item to win and lose somewhere).
    tol : float, default 1e-10
        Stop when no log-worth moves by more than this.
    max_iter : int, default 10000

    Returns
    -------
    ndarray (K,)
        Centred log-worths :math:`\hat s`.

    Raises
    ------
    InputError
        With ``alpha = 0`` when the MLE is not finite: the directed graph "item a is ranked above item b in a
        ranking of positive weight" must be strongly connected (Hunter 2004, Assumption 1; Ford 1957);
        otherwise some set of items is never ranked below the rest and the MM iterates drift with ``max_iter``.

    Warns
    -----
    RuntimeWarning
        When ``max_iter`` steps end before the tolerance is met.

    References
    ----------
    Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry models. Annals of Statistics 32(1).
    Plackett (1975); Luce (1959).

    Examples
    --------
    >>> s = plackett_luce_mm([[0, 1, 2], [0, 2, 1], [1, 0, 2]], alpha=0.1)
    >>> int(np.argmax(s)), abs(round(float(s.sum()), 12))
    (0, 0.0)
    >>> plackett_luce_mm([[0, 1, 2], [0, 2, 1]])      # item 0 always first: no finite MLE  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `rankings`: admit no finite maximum-likelihood worths: items [0] ...
    """
    alpha = check_in_range(alpha, "alpha", 0.0, None)
    tol = check_in_range(tol, "tol", 0.0, None, low_open=True)
    max_iter = check_positive_int(max_iter, "max_iter")
    checked, K = _check_rankings(rankings, K)
    n = len(checked)
    if weights is None:
        w = np.ones(n)
    else:
        w = check_array(weights, "weights", ndim=1, nonnegative=True)
        if w.shape != (n,):
            raise InputError("weights", f"has shape {w.shape}", f"one weight per ranking ({n})")
        if w.sum() <= 0:
            raise InputError("weights", "are all zero", "non-negative weights, not all zero")
    if alpha == 0:
        obstruction = mle_obstruction(checked, K, w)
        if obstruction is not None:
            _raise_no_mle(obstruction, K)
    A, B, K = ranking_stats(checked, K)
    s, it = _mm((w @ A)[None], (w @ B)[None], K, alpha, tol, max_iter)
    if it >= max_iter:
        warnings.warn(f"plackett_luce_mm: no convergence to tol={tol:g} in max_iter={max_iter} MM steps; the worths "
                      "are the last iterate", RuntimeWarning, stacklevel=2)
    return s[0]


def plackett_luce_loglik(s, rankings) -> float:
    r"""Log-likelihood :math:`\sum_i \log P(\pi_i \mid s)` of full rankings (ties expanded as in the fit).

    Examples
    --------
    >>> round(plackett_luce_loglik([0.0, 0.0], [[0, 1]]), 6)
    -0.693147
    """
    s = check_array(s, "s", ndim=1)
    if len(s) < 2:
        raise InputError("s", f"has {len(s)} entries", "K >= 2 finite log-worths")
    if len(s) > _MAX_K:
        raise InputError("s", f"has {len(s)} entries", f"at most {_MAX_K} items")
    checked, _ = _check_rankings(rankings)
    if max(x for r in checked for g in r for x in g) + 1 != len(s):
        raise InputError("rankings", f"rank {max(x for r in checked for g in r for x in g) + 1} items",
                         f"rankings of the K={len(s)} items of s")
    A, B, K = ranking_stats(checked, len(s))
    M = _membership(K)
    lse = np.log(np.maximum(np.exp(s - s.max()) @ M.T, 1e-300)) + s.max()
    B2 = B.sum(axis=0)
    return float(A.sum(axis=0) @ s - np.sum(B2[B2 > 0] * lse[B2 > 0]))


def sample_plackett_luce(s, n: int, rng=None) -> np.ndarray:
    r"""Draw ``n`` rankings from Plackett-Luce with log-worths ``s`` (Gumbel-max: sort :math:`s_k + G_k`).

    Examples
    --------
    >>> r = sample_plackett_luce([2.0, 0.0, -2.0], 500, rng=0)
    >>> r.shape, float(np.mean(r[:, 0] == 0)) > 0.7
    ((500, 3), True)
    """
    s = check_array(s, "s", ndim=1)
    if len(s) < 2:
        raise InputError("s", f"has {len(s)} entries", "K >= 2 finite log-worths")
    n = check_positive_int(n, "n")
    check_memory(16.0 * n * len(s), "n", "the Gumbel draws and the rankings")
    g = as_generator(rng).gumbel(size=(n, len(s)))
    return np.argsort(-(s[None] + g), axis=1)
