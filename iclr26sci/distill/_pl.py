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

from iclr26sci.core import InputError, as_generator, check_in_range, check_positive_int

__all__ = ["plackett_luce_mm", "sample_plackett_luce", "plackett_luce_loglik"]

_MAX_K = 12


def _membership(K):
    S = np.arange(2 ** K)
    return ((S[:, None] >> np.arange(K)[None, :]) & 1).astype(float)        # (2^K, K)


def _check_rankings(rankings, K=None):
    """Rankings as ordered partitions: a list (per observation) of tied groups (lists of item indices)."""
    if isinstance(rankings, np.ndarray):
        if rankings.ndim != 2:
            raise InputError("rankings", f"is an array of shape {rankings.shape}", "an (n, K) array of permutations")
        rankings = rankings.tolist()
    if isinstance(rankings, (str, bytes)) or not hasattr(rankings, "__len__") or len(rankings) == 0:
        raise InputError("rankings", "is empty or not a sequence", "a non-empty list of rankings")
    out = []
    for r in rankings:
        groups = [[g] if np.isscalar(g) else list(g) for g in r]
        items = [x for g in groups for x in g]
        if not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in items):
            raise InputError("rankings", f"has a non-integer item in {r!r}", "integer item indices")
        out.append([[int(x) for x in g] for g in groups if len(g)])
    Kd = max(max(x for g in r for x in g) for r in out) + 1
    K = Kd if K is None else K
    if K < 2 or K > _MAX_K:
        raise InputError("rankings", f"rank K={K} items", f"2 <= K <= {_MAX_K}")
    for r in out:
        items = sorted(x for g in r for x in g)
        if items != list(range(K)):
            raise InputError("rankings", f"{r!r} is not a ranking of all K={K} items exactly once",
                             "each ranking lists every item 0..K-1 once (tied groups allowed)")
    return out, K


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

    References
    ----------
    Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry models. Annals of Statistics 32(1).
    Plackett (1975); Luce (1959).

    Examples
    --------
    >>> s = plackett_luce_mm([[0, 1, 2], [0, 2, 1], [1, 0, 2]], alpha=0.1)
    >>> int(np.argmax(s)), abs(round(float(s.sum()), 12))
    (0, 0.0)
    """
    A, B, K = ranking_stats(rankings, K)
    n = A.shape[0]
    if weights is None:
        w = np.ones(n)
    else:
        w = np.asarray(weights, dtype=float)
        if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise InputError("weights", f"has shape {w.shape} or negative/non-finite values",
                             f"{n} non-negative finite weights, not all zero")
    alpha = check_in_range(alpha, "alpha", 0.0, None)
    tol = check_in_range(tol, "tol", 0.0, None, low_open=True)
    max_iter = check_positive_int(max_iter, "max_iter")
    s, _ = _mm((w @ A)[None], (w @ B)[None], K, alpha, tol, max_iter)
    return s[0]


def plackett_luce_loglik(s, rankings) -> float:
    r"""Log-likelihood :math:`\sum_i \log P(\pi_i \mid s)` of full rankings (ties expanded as in the fit).

    Examples
    --------
    >>> round(plackett_luce_loglik([0.0, 0.0], [[0, 1]]), 6)
    -0.693147
    """
    s = np.asarray(s, dtype=float)
    if s.ndim != 1 or not np.all(np.isfinite(s)):
        raise InputError("s", "is not a finite vector", "K finite log-worths")
    A, B, K = ranking_stats(rankings, len(s))
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
    s = np.asarray(s, dtype=float)
    if s.ndim != 1 or len(s) < 2 or not np.all(np.isfinite(s)):
        raise InputError("s", "is not a finite vector of length >= 2", "K >= 2 finite log-worths")
    n = check_positive_int(n, "n")
    g = as_generator(rng).gumbel(size=(n, len(s)))
    return np.argsort(-(s[None] + g), axis=1)
