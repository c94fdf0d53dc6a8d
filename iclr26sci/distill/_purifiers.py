r"""Knowledge purification: maps the K teacher rationales of a question to one rationale :math:`r^*_i`.

Five purifiers (Jin et al., "Exploring Knowledge Purification in Multi-Teacher Knowledge Distillation
for LLMs", arXiv:2602.01064, ICLR 2026): an offline surrogate of the LLM aggregator, three routers
(Plackett-Luce ranking, PLM classifier, similarity) and a REINFORCE teacher selector; plus the
baselines a comparison needs (single teacher, majority vote, random teacher, oracle).

A router is a map :math:`\rho(q) \in \{1..K\}` learned from training questions with observed teacher
correctness :math:`c_{i,k}`; purification by routing sets :math:`r^*_i = r_{i,\rho(q_i)}`. Routers
apply to new questions whose teacher correctness is unknown (:meth:`route`).

The paper's method sections were not readable here (only its abstract and introduction); every
internal choice below marked [RECON] is the specification's reconstruction and is a constructor
argument.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import (InputError, as_generator, check_bool, check_in_range, check_is_fitted, check_memory,
                            check_option, check_positive_int, resolve_rng)

from ._data import MultiTeacherData, PurifiedData
from ._embed import _check_text_list, normalize_rows, resolve_embedder
from ._pl import _check_rankings, _mm, _raise_no_mle, mle_obstruction, ranking_stats

__all__ = ["RoutingResult", "AggregationPurifier", "PlackettLuceRouter", "ClassifierRouter", "SimilarityRouter",
           "RLTeacherSelector", "SingleTeacher", "MajorityVote", "RandomTeacher", "OraclePurifier",
           "correctness_rankings"]


def _check_data(data, name="data") -> MultiTeacherData:
    if not isinstance(data, MultiTeacherData):
        raise InputError(name, f"got {type(data).__name__}", "a MultiTeacherData (questions, K rationales each)")
    return data


def _questions(questions, name="questions"):
    if isinstance(questions, MultiTeacherData):
        return list(questions.questions)
    if isinstance(questions, str):
        return [questions]
    return _check_text_list(questions, name)


def _consistency(data: MultiTeacherData) -> np.ndarray:
    """Number of other teachers stating the same answer, per (question, teacher)."""
    out = np.zeros((data.n, data.K))
    for i, row in enumerate(data.teacher_answers):
        for k, a in enumerate(row):
            out[i, k] = sum(b == a for b in row) - 1
    return out


def correctness_rankings(data, quality="consistency"):
    r"""One ordered partition of the teachers per question: correct ones first, ties by a quality score.

    [RECON] The paper ranks teachers per training question; the default key is
    :math:`(c_{i,k}, \text{agreement}_{i,k})` with agreement the number of other teachers stating the
    same answer; teachers equal on both stay tied (the Plackett-Luce fit averages over their orders).

    Parameters
    ----------
    data : MultiTeacherData
    quality : {"consistency", "none"} or array (n, K), default "consistency"
        Secondary key (higher is better); ``"none"``: correctness only.

    Returns
    -------
    list of list of list of int

    Examples
    --------
    >>> d = MultiTeacherData(["q"], [["a", "b", "c"]], ["1"], teacher_answers=[["1", "2", "2"]])
    >>> correctness_rankings(d)
    [[[0], [1, 2]]]
    """
    data = _check_data(data)
    if isinstance(quality, str):
        quality = check_option(quality, "quality", ("consistency", "none"))
        q = _consistency(data) if quality == "consistency" else np.zeros((data.n, data.K))
    else:
        q = np.asarray(quality, dtype=float)
        if q.shape != (data.n, data.K) or not np.all(np.isfinite(q)):
            raise InputError("quality", f"has shape {q.shape}", f"a finite array of shape ({data.n}, {data.K})")
    out = []
    for i in range(data.n):
        keys = sorted({(int(data.correct[i, k]), float(q[i, k])) for k in range(data.K)}, reverse=True)
        out.append([[k for k in range(data.K) if (int(data.correct[i, k]), float(q[i, k])) == key] for key in keys])
    return out


@dataclass(frozen=True, repr=False, eq=False)
class RoutingResult:
    """Which teacher a router trusts for each question, with its scores.

    Attributes
    ----------
    teacher : ndarray of int (n,)
        Chosen teacher per question.
    names : list of str
        Their names.
    proba : ndarray (n, K)
        The router's scores, normalised to sum to one per question (for the Plackett-Luce router, the
        probability each teacher is ranked first; for the classifier, its predicted correctness
        renormalised; for the similarity router, the similarity-weighted correctness renormalised).
    scores : ndarray (n, K)
        The unnormalised scores.

    Examples
    --------
    >>> r = RoutingResult(np.array([1]), ["b"], np.array([[0.2, 0.8]]), np.array([[0.2, 0.8]]))
    >>> r
    RoutingResult(n=1, teachers chosen {'b': 1})
    """

    teacher: np.ndarray
    names: list
    proba: np.ndarray
    scores: np.ndarray

    def __post_init__(self):
        from iclr26sci.core import check_array

        from ._checks import check_texts

        t = check_array(self.teacher, "teacher", ndim=1, dtype=int)
        n = len(t)
        names = check_texts(self.names, "names", n=n, min_len=0)
        P = check_array(self.proba, "proba", ndim=2)
        if P.shape[0] != n or P.shape[1] < 1:
            raise InputError("proba", f"has shape {P.shape}", f"({n}, K): one row per question")
        if np.any(P < -1e-9) or np.any(np.abs(P.sum(axis=1) - 1.0) > 1e-6 * P.shape[1]):
            raise InputError("proba", "has rows that are not probability vectors", "rows in [0, 1] summing to 1")
        S = check_array(self.scores, "scores", ndim=2, shape=(n, P.shape[1]))
        if n and (t.min() < 0 or t.max() >= P.shape[1]):
            raise InputError("teacher", f"has indices outside [0, {P.shape[1]})", "indices of the K teachers")
        for k, v in (("teacher", t), ("names", names), ("proba", P), ("scores", S)):
            object.__setattr__(self, k, v)

    def __len__(self):
        return len(self.teacher)

    def __repr__(self):
        from collections import Counter

        return f"RoutingResult(n={len(self)}, teachers chosen {dict(Counter(self.names))})"

    def summary(self) -> str:
        return repr(self) + f"; mean top probability {float(self.proba.max(axis=1).mean()):.3f}"

    def to_dict(self) -> dict:
        return {"teacher": self.teacher.tolist(), "names": list(self.names), "proba": self.proba.tolist()}


def _pick(scores, tiebreak):
    """Argmax per row; exact ties go to the larger ``tiebreak`` (then the lower index)."""
    best = scores.max(axis=1, keepdims=True)
    cand = np.isclose(scores, best, rtol=0, atol=1e-12)
    tb = np.where(cand, tiebreak[None, :], -np.inf)
    return np.argmax(tb, axis=1)


def _select(data, teacher, method):
    idx = np.arange(data.n)
    return PurifiedData(list(data.questions), list(data.answers), [data.rationales[i][k] for i, k in zip(idx, teacher)],
                        [data.teacher_answers[i][k] for i, k in zip(idx, teacher)], data.correct[idx, teacher].copy(),
                        np.asarray(teacher, dtype=int), method, domains=data.domains, teachers=list(data.teachers))


class _Router(BaseEstimator):
    """Shared behaviour: fit on training data, score new questions, route and purify."""

    _method = "router"

    def _embed(self, texts):
        return normalize_rows(self._embedder_(texts))

    def _fit_common(self, data):
        data = _check_data(data)
        self._embedder_ = resolve_embedder(self.embedder)
        self.K_ = data.K
        self.teachers_ = list(data.teachers)
        self.teacher_accuracy_ = data.teacher_accuracy()
        return data

    def route_scores(self, questions) -> np.ndarray:  # pragma: no cover - each router defines it
        raise NotImplementedError

    def route(self, questions) -> RoutingResult:
        """Which teacher to trust for each question (a list of texts or a MultiTeacherData), with probabilities.

        Examples
        --------
        >>> from iclr26sci.distill import SyntheticRationaleQA, SimilarityRouter
        >>> d = SyntheticRationaleQA(rng=0).generate(60)
        >>> SimilarityRouter(embedder="hashing").fit(d).route(d.questions[:3]).teacher.shape
        (3,)
        """
        check_is_fitted(self, "K_", method="route")
        S = self.route_scores(questions)
        tot = S.sum(axis=1, keepdims=True)
        P = np.where(tot > 0, S / np.where(tot > 0, tot, 1.0), 1.0 / self.K_)
        t = _pick(S, self.teacher_accuracy_)
        return RoutingResult(t, [self.teachers_[k] for k in t], P, S)

    def purify(self, data) -> PurifiedData:
        """One rationale per question: the routed teacher's (``data`` must have the fitted K teachers).

        Examples
        --------
        >>> from iclr26sci.distill import SyntheticRationaleQA, SimilarityRouter
        >>> d = SyntheticRationaleQA(rng=0).generate(60)
        >>> SimilarityRouter(embedder="hashing").fit(d).purify(d).n
        60
        """
        check_is_fitted(self, "K_", method="purify")
        data = _check_data(data)
        if data.K != self.K_:
            raise InputError("data", f"has K={data.K} teachers", f"the K={self.K_} teachers the router was fitted on")
        return _select(data, self.route(data).teacher, self._method)


# ---------------------------------------------------------------------------------------------- routers
class PlackettLuceRouter(_Router):
    r"""Plackett-Luce ranking router, contextual (similarity-weighted) or global.

    For a question q, the log-worths of the teachers are the weighted Plackett-Luce MLE

    .. math:: \hat s(q) = \arg\max_s \sum_i w_i(q) \log P(\pi_i \mid s), \qquad
              w_i(q) = \Gamma^{1 + S(q, q_i)}, \quad S(q, q_i) = \frac{\cos(e(q), e(q_i))}{\max_j \cos(e(q), e(q_j))},

    fitted by Hunter's MM (:func:`plackett_luce_mm`); :math:`\pi_i` ranks the teachers of training question
    i (correct first, see :func:`correctness_rankings`); the route is :math:`\arg\max_k \hat s_k(q)` and
    the reported probability :math:`\operatorname{softmax}(\hat s(q))_k` is that of k being ranked first.
    The global variant uses :math:`w_i \equiv 1` (one ranking of the teachers for all questions).

    [RECON] The paper names a Plackett-Luce ranking router; the similarity weighting is RouteLLM's
    similarity-weighted ranking router (Ong et al. 2024) generalised from Bradley-Terry to K-way rankings.

    Parameters
    ----------
    contextual : bool, default True
        Similarity-weighted per-question worths (False: global worths).
    embedder : {"minilm", "hashing"} or callable, default "minilm"
        Question encoder :math:`e` (rows L2-normalised).
    gamma : float > 1, default 10
        :math:`\Gamma` [RECON: RouteLLM's value].
    alpha : float >= 0, default 0.5
        Pseudo-comparisons per teacher pair (keeps worths finite) [RECON].
    quality : {"consistency", "none"}, default "consistency"
        Tie-break key of the rankings (:func:`correctness_rankings`) [RECON].
    tol, max_iter : MM stopping rule.

    Attributes
    ----------
    worths_ : ndarray (K,)
        Global log-worths (all training rankings, weight 1).

    Examples
    --------
    >>> from iclr26sci.distill import SyntheticRationaleQA
    >>> d = SyntheticRationaleQA(rng=0).generate(150)
    >>> r = PlackettLuceRouter(embedder="hashing").fit(d)
    >>> r.route(d.questions[:2]).proba.shape
    (2, 4)
    """

    _method = "plackett_luce"

    def __init__(self, contextual=True, embedder="minilm", gamma=10.0, alpha=0.5, quality="consistency",
                 tol=1e-8, max_iter=500):
        self.contextual = contextual
        self.embedder = embedder
        self.gamma = gamma
        self.alpha = alpha
        self.quality = quality
        self.tol = tol
        self.max_iter = max_iter
        self._check_params()

    def _check_params(self):
        check_bool(self.contextual, "contextual")
        resolve_embedder(self.embedder)
        check_in_range(self.gamma, "gamma", 1.0, None, low_open=True)
        check_in_range(self.alpha, "alpha", 0.0, None)
        if isinstance(self.quality, str):
            check_option(self.quality, "quality", ("consistency", "none"))
        check_in_range(self.tol, "tol", 0.0, None, low_open=True)
        check_positive_int(self.max_iter, "max_iter")

    def fit(self, data, rankings=None):
        """Fit on training data (teacher correctness known), or on user-supplied ``rankings`` of its teachers.

        Examples
        --------
        >>> from iclr26sci.distill import SyntheticRationaleQA
        >>> r = PlackettLuceRouter(contextual=False, embedder="hashing").fit(SyntheticRationaleQA(rng=0).generate(90))
        >>> r.worths_.shape
        (4,)
        """
        self._check_params()
        data = _check_data(data)
        if rankings is None:
            rankings = correctness_rankings(data, self.quality)
        elif isinstance(rankings, str) or not hasattr(rankings, "__len__") or len(rankings) != data.n:
            raise InputError("rankings", f"has {len(rankings) if hasattr(rankings, '__len__') else '?'} rankings",
                             f"one per training question ({data.n})")
        rankings, _ = _check_rankings(rankings, data.K)
        if float(self.alpha) == 0:
            obstruction = mle_obstruction(rankings, data.K)
            if obstruction is not None:
                _raise_no_mle(obstruction, data.K, "alpha")
        data = self._fit_common(data)
        A, B, _ = ranking_stats(rankings, data.K)
        self.A_, self.B_ = A, B
        self.worths_ = _mm(A.sum(0)[None], B.sum(0)[None], data.K, float(self.alpha), float(self.tol),
                           int(self.max_iter))[0][0]
        self.E_ = self._embed(list(data.questions)) if self.contextual else None
        return self

    def worths(self, questions) -> np.ndarray:
        r"""Log-worths :math:`\hat s(q)` per question, shape (n, K) (the global worths repeated if not contextual).

        Examples
        --------
        >>> from iclr26sci.distill import SyntheticRationaleQA
        >>> d = SyntheticRationaleQA(rng=0).generate(90)
        >>> PlackettLuceRouter(embedder="hashing").fit(d).worths(d.questions[:3]).shape
        (3, 4)
        """
        check_is_fitted(self, "worths_", method="worths")
        qs = _questions(questions)
        if not self.contextual:
            return np.repeat(self.worths_[None], len(qs), axis=0)
        check_memory(8 * len(qs) * self.E_.shape[0], "questions", "the query-by-training similarity matrix")
        C = self._embed(qs) @ self.E_.T
        mx = C.max(axis=1, keepdims=True)
        S = np.where(mx > 0, C / np.where(mx > 0, mx, 1.0), C)
        W = float(self.gamma) ** (1.0 + S)
        W /= W.sum(axis=1, keepdims=True)
        W *= self.A_.shape[0]                                    # keep the data-to-prior ratio of the global fit
        s, _ = _mm(W @ self.A_, W @ self.B_, self.K_, float(self.alpha), float(self.tol), int(self.max_iter))
        return s

    def route_scores(self, questions):
        s = self.worths(questions)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


class ClassifierRouter(_Router):
    r"""PLM-classifier router: a frozen sentence encoder and an MLP that predicts which teachers are right.

    .. math:: p(k \mid q) = \sigma\big(W_2\,\mathrm{ReLU}(W_1 e(q) + b_1) + b_2\big)_k

    (a NumPy MLP, full-batch Adam) trained with binary cross-entropy on :math:`c_{i,k}` (``labels="bce"``, multi-label), or
    :math:`\operatorname{softmax}` with cross-entropy on the single target :math:`k^*_i = \arg\max_k c_{i,k}`,
    ties to the teacher with the best training accuracy (``labels="ce"``); the route is
    :math:`\arg\max_k p(k \mid q)`. The encoder is frozen (CPU).

    [RECON] The paper: "a pretrained encoder plus a small MLP"; the label form and sizes are reconstructions.

    Parameters
    ----------
    embedder : {"minilm", "hashing"} or callable, default "minilm"
        The frozen encoder :math:`e` (MiniLM: the packaged all-MiniLM-L6-v2).
    hidden : int, default 32
        MLP width.
    labels : {"bce", "ce"}, default "bce"
    l2 : float, default 1e-4
        L2 penalty of the MLP weights.
    max_iter : int, default 150
        Full-batch Adam steps.
    lr : float, default 0.01
        Adam step size.
    rng : int or Generator, default 0
        Seed of the MLP initialisation.
        Seed of the MLP initialisation.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Examples
    --------
    >>> from iclr26sci.distill import SyntheticRationaleQA
    >>> d = SyntheticRationaleQA(rng=0).generate(150)
    >>> ClassifierRouter(embedder="hashing").fit(d).route(d.questions[:4]).teacher.shape
    (4,)
    """

    _method = "plm_classifier"

    def __init__(self, embedder="minilm", hidden=32, labels="bce", l2=1e-4, max_iter=150, lr=0.01, rng=0,
                 random_state=None):
        self.embedder = embedder
        self.hidden = hidden
        self.labels = labels
        self.l2 = l2
        self.max_iter = max_iter
        self.lr = lr
        self.rng = rng
        self.random_state = random_state
        self._check_params()

    def _check_params(self):
        resolve_embedder(self.embedder)
        check_positive_int(self.hidden, "hidden")
        check_option(self.labels, "labels", ("bce", "ce"))
        check_in_range(self.l2, "l2", 0.0, None)
        check_positive_int(self.max_iter, "max_iter")
        check_in_range(self.lr, "lr", 0.0, None, low_open=True)
        resolve_rng(self.rng, self.random_state, default=0)

    def fit(self, data):
        """Fit the MLP (full-batch Adam, ``max_iter`` steps) on the training questions' embeddings and correctness.

        Examples
        --------
        >>> from iclr26sci.distill import SyntheticRationaleQA
        >>> ClassifierRouter(embedder="hashing").fit(SyntheticRationaleQA(rng=0).generate(90)).K_
        4
        """
        self._check_params()
        hidden = check_positive_int(self.hidden, "hidden")
        labels = check_option(self.labels, "labels", ("bce", "ce"))
        l2 = check_in_range(self.l2, "l2", 0.0, None)
        max_iter = check_positive_int(self.max_iter, "max_iter")
        lr = check_in_range(self.lr, "lr", 0.0, None, low_open=True)
        data = self._fit_common(data)
        gen = as_generator(resolve_rng(self.rng, self.random_state, default=0))
        X = self._embed(list(data.questions))
        n, m = X.shape
        K = data.K
        if labels == "bce":
            Y = data.correct.astype(float)
        else:
            tb = np.where(data.correct == data.correct.max(axis=1, keepdims=True), self.teacher_accuracy_[None], -1)
            Y = np.eye(K)[np.argmax(tb, axis=1)]
        params = [gen.normal(0, np.sqrt(2.0 / m), (m, hidden)), np.zeros(hidden),
                  np.zeros((hidden, K)), np.zeros(K)]      # zero output layer: exactly teacher-equivariant
        mom = [np.zeros_like(p) for p in params]
        vel = [np.zeros_like(p) for p in params]
        b1, b2, eps = 0.9, 0.999, 1e-8
        for t in range(1, max_iter + 1):
            W1, c1, W2, c2 = params
            Hpre = X @ W1 + c1
            H = np.maximum(Hpre, 0.0)
            Z = H @ W2 + c2
            if labels == "bce":
                P = 1.0 / (1.0 + np.exp(-Z))
            else:
                P = np.exp(Z - Z.max(axis=1, keepdims=True))
                P /= P.sum(axis=1, keepdims=True)
            G = (P - Y) / n                      # d(mean loss)/dZ for both BCE (per label) and softmax CE
            gW2 = H.T @ G + l2 * W2
            gc2 = G.sum(0)
            GH = (G @ W2.T) * (Hpre > 0)
            grads = [X.T @ GH + l2 * W1, GH.sum(0), gW2, gc2]
            for j, g in enumerate(grads):
                mom[j] = b1 * mom[j] + (1 - b1) * g
                vel[j] = b2 * vel[j] + (1 - b2) * g * g
                params[j] = params[j] - lr * (mom[j] / (1 - b1 ** t)) / (np.sqrt(vel[j] / (1 - b2 ** t)) + eps)
        self.params_ = params
        return self

    def route_scores(self, questions):
        check_is_fitted(self, "params_", method="route")
        W1, c1, W2, c2 = self.params_
        Z = np.maximum(self._embed(_questions(questions)) @ W1 + c1, 0.0) @ W2 + c2
        if self.labels == "bce":
            return 1.0 / (1.0 + np.exp(-Z))
        P = np.exp(Z - Z.max(axis=1, keepdims=True))
        return P / P.sum(axis=1, keepdims=True)


class SimilarityRouter(_Router):
    r"""Similarity router: question nearest neighbours, or the consensus rationale.

    ``variant="question_knn"``: over the m training questions nearest to q,

    .. math:: \text{score}_k(q) = \sum_{i \in N_m(q)} \cos(e(q), e(q_i))\, c_{i,k}, \qquad \rho(q) = \arg\max_k \text{score}_k(q);

    ``variant="rationale_consensus"``: the medoid rationale,
    :math:`k^* = \arg\max_k \sum_{l \ne k} \cos(e(r_{i,k}), e(r_{i,l}))` (needs no labels, but needs the
    rationales, so it purifies data and cannot route bare questions).

    [RECON] The paper: "selects a rationale based on embedding similarity"; both readings are offered.

    Parameters
    ----------
    variant : {"question_knn", "rationale_consensus"}, default "question_knn"
    m : int, default 10
        Neighbours.
    embedder : {"minilm", "hashing"} or callable, default "minilm"

    Examples
    --------
    >>> from iclr26sci.distill import SyntheticRationaleQA
    >>> d = SyntheticRationaleQA(rng=0).generate(90)
    >>> SimilarityRouter(variant="rationale_consensus", embedder="hashing").fit(d).purify(d).n
    90
    """

    _method = "similarity"

    def __init__(self, variant="question_knn", m=10, embedder="minilm"):
        self.variant = variant
        self.m = m
        self.embedder = embedder
        self._check_params()

    def _check_params(self):
        check_option(self.variant, "variant", ("question_knn", "rationale_consensus"))
        check_positive_int(self.m, "m")
        resolve_embedder(self.embedder)

    def fit(self, data):
        """Store the training questions' embeddings and correctness (question_knn) or only K (consensus).

        Examples
        --------
        >>> from iclr26sci.distill import SyntheticRationaleQA
        >>> SimilarityRouter(embedder="hashing").fit(SyntheticRationaleQA(rng=0).generate(30)).K_
        4
        """
        self._check_params()
        data = self._fit_common(data)
        if self.variant == "question_knn":
            self.E_ = self._embed(list(data.questions))
            self.C_ = data.correct.astype(float)
        return self

    def route_scores(self, questions):
        check_is_fitted(self, "K_", method="route")
        if self.variant == "rationale_consensus":
            if not isinstance(questions, MultiTeacherData):
                raise InputError("questions", "are bare questions, but the rationale-consensus variant needs the "
                                 "teachers' rationales", "a MultiTeacherData (or use variant='question_knn')")
            d = questions
            E = self._embed([r for row in d.rationales for r in row]).reshape(d.n, d.K, -1)
            G = np.einsum("ikm,ilm->ikl", E, E)
            return (G.sum(axis=2) - np.einsum("ikk->ik", G) + d.K) / (2 * d.K)   # shift to >= 0, same argmax
        qs = _questions(questions)
        check_memory(8 * len(qs) * self.E_.shape[0], "questions", "the query-by-training similarity matrix")
        C = self._embed(qs) @ self.E_.T
        m = min(int(self.m), C.shape[1])
        nn = np.argpartition(-C, m - 1, axis=1)[:, :m]
        sims = np.maximum(np.take_along_axis(C, nn, axis=1), 0.0)
        return np.einsum("qm,qmk->qk", sims, self.C_[nn]) / np.maximum(sims.sum(axis=1, keepdims=True), 1e-12)


class RLTeacherSelector(_Router):
    r"""REINFORCE teacher selection: a softmax policy over teachers given the question's state.

    Policy :math:`\pi_\phi(k \mid s) = \operatorname{softmax}(f_\phi(s))_k` with :math:`f_\phi` linear
    (``hidden=0``) or a one-hidden-layer ReLU MLP, state :math:`s = e(q)`. Each step draws a training
    question i, samples :math:`k \sim \pi_\phi(\cdot \mid s_i)`, receives :math:`R` and updates

    .. math:: \phi \leftarrow \phi + \eta\,(R - b(s_i))\,\nabla_\phi \log \pi_\phi(k \mid s_i)
              + \eta\beta\,\nabla_\phi H(\pi_\phi(\cdot \mid s_i)).

    The baseline (``baseline="state"``, default) is a learned state value
    :math:`b(s) = v^\top [e(q); 1]`, fitted by normalised LMS,
    :math:`v \leftarrow v + (1 - \lambda)(R - b(s))\,\varphi / \lVert\varphi\rVert^2` with
    :math:`\varphi = [e(q); 1]` ("REINFORCE with baseline", Williams 1992; Sutton and Barto 2018, sec. 13.4);
    with a constant state it is the moving average :math:`b \leftarrow \lambda b + (1 - \lambda) R`, which
    ``baseline="moving_average"`` uses for every state. The entropy bonus makes the objective's maximiser
    the tempered policy :math:`\pi^*(k \mid s) \propto \exp(Q(s, k)/\beta)` (for a tabular state); with
    :math:`\beta = 0.04` a reward gap of 0.2 still gives the best teacher > 0.99 probability, and the
    bonus keeps the softmax from saturating on the first teacher that happens to be rewarded early.

    The default reward is the chosen rationale's correctness :math:`R = c_{i,k}` (a contextual bandit);
    ``reward=`` takes a callable ``(question_index, teacher) -> float``, e.g. the student's improvement on
    a dev set after training on the chosen rationale (the paper's "rationale that most improves the
    student"). Purification uses :math:`\arg\max_k \pi_\phi(k \mid s)`.

    [RECON] State, reward and baseline follow Yuan et al. (AAAI 2021, reinforced multi-teacher selection);
    the paper only names "RL-based teacher selection".

    Parameters
    ----------
    embedder : {"minilm", "hashing"} or callable, default "minilm"
    hidden : int >= 0, default 0
    n_steps : int, default 5000
    lr : float, default 0.3
        :math:`\eta`.
    entropy : float, default 0.04
        :math:`\beta`. The specification's 0.01 (with lr 0.5 and a moving-average baseline) locked onto a
        wrong teacher in one domain at 3 of 20 seeds of the bandit check; lr 0.3, the state baseline and
        :math:`\beta = 0.04` did not at any of 40 (docs/distill.md).
    baseline_decay : float in [0, 1), default 0.9
        :math:`\lambda`; the baseline's step is :math:`1 - \lambda`.
    baseline : {"state", "moving_average"}, default "state"
        A learned state-value baseline :math:`b(s)` or one running mean of the rewards.
    reward : callable, optional
    rng : int, default 0
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Attributes
    ----------
    history_ : dict
        Per step: ``question``, ``teacher``, ``reward`` (arrays of length n_steps).

    Examples
    --------
    >>> from iclr26sci.distill import SyntheticRationaleQA
    >>> d = SyntheticRationaleQA(rng=0).generate(90)
    >>> RLTeacherSelector(embedder="hashing", n_steps=200).fit(d).history_["teacher"].shape
    (200,)
    """

    _method = "rl_selection"

    def __init__(self, embedder="minilm", hidden=0, n_steps=5000, lr=0.3, entropy=0.04, baseline_decay=0.9,
                 baseline="state", reward=None, rng=0, random_state=None):
        self.embedder = embedder
        self.hidden = hidden
        self.n_steps = n_steps
        self.lr = lr
        self.entropy = entropy
        self.baseline_decay = baseline_decay
        self.baseline = baseline
        self.reward = reward
        self.rng = rng
        self.random_state = random_state
        self._check_params()

    def _check_params(self):
        resolve_embedder(self.embedder)
        check_positive_int(self.hidden, "hidden", minimum=0)
        check_positive_int(self.n_steps, "n_steps")
        check_in_range(self.lr, "lr", 0.0, None, low_open=True)
        check_in_range(self.entropy, "entropy", 0.0, None)
        check_in_range(self.baseline_decay, "baseline_decay", 0.0, 1.0, high_open=True)
        check_option(self.baseline, "baseline", ("state", "moving_average"))
        if self.reward is not None and not callable(self.reward):
            raise InputError("reward", f"got {type(self.reward).__name__}", "None or a callable (question, teacher) -> float")
        resolve_rng(self.rng, self.random_state, default=0)

    def _logits(self, X):
        if self.W1_ is None:
            return X @ self.W_ + self.b_
        H = np.maximum(X @ self.W1_ + self.b1_, 0.0)
        return H @ self.W_ + self.b_

    def fit(self, data):
        """Run ``n_steps`` REINFORCE updates on the training questions.

        Examples
        --------
        >>> from iclr26sci.distill import SyntheticRationaleQA
        >>> RLTeacherSelector(embedder="hashing", n_steps=50).fit(SyntheticRationaleQA(rng=0).generate(30)).K_
        4
        """
        self._check_params()
        hidden = check_positive_int(self.hidden, "hidden", minimum=0)
        n_steps = check_positive_int(self.n_steps, "n_steps")
        lr = check_in_range(self.lr, "lr", 0.0, None, low_open=True)
        beta = check_in_range(self.entropy, "entropy", 0.0, None)
        lam = check_in_range(self.baseline_decay, "baseline_decay", 0.0, 1.0, high_open=True)
        baseline = check_option(self.baseline, "baseline", ("state", "moving_average"))
        if self.reward is not None and not callable(self.reward):
            raise InputError("reward", f"got {type(self.reward).__name__}", "None or a callable (question, teacher) -> float")
        data = self._fit_common(data)
        gen = as_generator(resolve_rng(self.rng, self.random_state, default=0))
        X = self._embed(list(data.questions))
        m, K = X.shape[1], data.K
        if hidden:
            self.W1_ = gen.normal(0, 1 / np.sqrt(m), (m, hidden))
            self.b1_ = np.zeros(hidden)
            self.W_ = gen.normal(0, 1 / np.sqrt(hidden), (hidden, K)) * 0.1
        else:
            self.W1_ = self.b1_ = None
            self.W_ = np.zeros((m, K))
        self.b_ = np.zeros(K)
        state_baseline = baseline == "state"
        self.v_ = np.zeros(m + 1)                 # baseline weights on [e(q); 1]
        b = 0.0
        qs = gen.integers(0, data.n, n_steps)
        us = gen.random(n_steps)
        acts, rews = np.empty(n_steps, dtype=int), np.empty(n_steps)
        for t in range(n_steps):
            i = qs[t]
            x = X[i]
            h = np.maximum(x @ self.W1_ + self.b1_, 0.0) if hidden else x
            z = h @ self.W_ + self.b_
            p = np.exp(z - z.max())
            p /= p.sum()
            k = min(int(np.searchsorted(np.cumsum(p), us[t])), K - 1)
            if self.reward is None:
                R = float(data.correct[i, k])
            else:
                out = self.reward(int(i), k)
                if isinstance(out, (bool, np.bool_, str, bytes)) or not np.isscalar(out) \
                        or not np.issubdtype(np.asarray(out).dtype, np.number):
                    raise InputError("reward", f"returned {out!r} of type {type(out).__name__}", "a finite float")
                R = float(out)
            if not np.isfinite(R):
                raise InputError("reward", f"returned {R!r}", "a finite float")
            if state_baseline:
                phi = np.append(x, 1.0)
                b = float(phi @ self.v_)
            logp = np.log(np.maximum(p, 1e-300))
            H = -np.sum(p * logp)
            g = (R - b) * (np.eye(K)[k] - p) - beta * p * (logp + H)      # d/dz of (R-b) log p_k + beta H
            if hidden:
                gh = (self.W_ @ g) * (h > 0)
                self.W1_ += lr * np.outer(x, gh)
                self.b1_ += lr * gh
            self.W_ += lr * np.outer(h, g)
            self.b_ += lr * g
            if state_baseline:                    # normalised LMS towards R: the moving average when phi = [1]
                self.v_ += (1 - lam) * (R - b) * phi / float(phi @ phi)
            else:
                b = lam * b + (1 - lam) * R
            acts[t], rews[t] = k, R
        self.history_ = {"question": qs, "teacher": acts, "reward": rews}
        return self

    def policy(self, questions) -> np.ndarray:
        r"""Policy probabilities :math:`\pi_\phi(k \mid s)`, shape (n, K).

        Examples
        --------
        >>> from iclr26sci.distill import SyntheticRationaleQA
        >>> d = SyntheticRationaleQA(rng=0).generate(30)
        >>> p = RLTeacherSelector(embedder="hashing", n_steps=50).fit(d).policy(d.questions[:2])
        >>> p.shape, bool(np.allclose(p.sum(axis=1), 1))
        ((2, 4), True)
        """
        check_is_fitted(self, "W_", method="policy")
        z = self._logits(self._embed(_questions(questions)))
        p = np.exp(z - z.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    def route_scores(self, questions):
        return self.policy(questions)


# ------------------------------------------------------------------------------------------ aggregation
_SENT = re.compile(r"(?<=[.!?])\s+")
_FINAL = re.compile(r"(?:thus|so|therefore|hence)?,?\s*the (?:final )?answer is\b.*$", re.I)


class AggregationPurifier(BaseEstimator):
    r"""Knowledge aggregation, OFFLINE SURROGATE of the paper's GPT-4 aggregator (no LLM is called).

    The paper asks a global LLM (GPT-4) to synthesise one consistent rationale from the K rationales.
    This surrogate does it by rule [RECON]:

    (a) weighted answer vote :math:`\hat a_i = \arg\max_a \sum_k \omega_k [a_{i,k} = a]` (ties: the answer of
        the most reliable teacher among the tied);
    (b) keep the sentences of the rationales whose answer is :math:`\hat a_i` (final-answer lines dropped);
    (c) drop a sentence whose embedding cosine with an already kept one exceeds ``dedup_threshold``;
    (d) order the kept sentences by centrality :math:`\sum_j \cos(s, s_j)` and keep up to ``max_words`` words;
    (e) append "Thus, the answer is <â>".

    Parameters
    ----------
    weights : {"uniform", "accuracy"} or array (K,), default "uniform"
        Reliabilities :math:`\omega_k`; ``"accuracy"`` fits the log-odds of each teacher's training accuracy
        (then :meth:`fit` is needed).
    embedder : {"minilm", "hashing"} or callable, default "minilm"
        Sentence encoder for (c) and (d).
    dedup_threshold : float in (0, 1], default 0.9
    max_words : int, default 200

    Examples
    --------
    >>> d = MultiTeacherData(["q"], [["A is 2. Thus, the answer is (a).", "A is 2. Thus, the answer is (a).",
    ...                              "A is 5. Thus, the answer is (b)."]], ["(a)"],
    ...                      teacher_answers=[["(a)", "(a)", "(b)"]])
    >>> p = AggregationPurifier(embedder="hashing").purify(d)
    >>> p.rationales[0], p.correct.tolist()
    ('A is 2. Thus, the answer is (a).', [1])
    """

    _method = "aggregation_surrogate"

    def __init__(self, weights="uniform", embedder="minilm", dedup_threshold=0.9, max_words=200):
        self.weights = weights
        self.embedder = embedder
        self.dedup_threshold = dedup_threshold
        self.max_words = max_words
        self._check_params()

    def _check_params(self):
        if isinstance(self.weights, str):
            check_option(self.weights, "weights", ("uniform", "accuracy"))
        else:
            self._weight_vector(self.weights)
        resolve_embedder(self.embedder)
        check_in_range(self.dedup_threshold, "dedup_threshold", 0.0, 1.0, low_open=True)
        check_positive_int(self.max_words, "max_words")

    @staticmethod
    def _weight_vector(w, K=None):
        from iclr26sci.core import check_array

        w = check_array(w, "weights", ndim=1, nonnegative=True)
        if K is not None and w.shape != (K,):
            raise InputError("weights", f"has {len(w)} entries", f"one reliability per teacher ({K})")
        if not np.any(w > 0):
            raise InputError("weights", "are all zero, so no answer gets a vote", "non-negative weights, not all zero")
        return w

    def fit(self, data):
        """Fit the reliability weights (only used with ``weights="accuracy"``).

        Examples
        --------
        >>> from iclr26sci.distill import SyntheticRationaleQA
        >>> AggregationPurifier(weights="accuracy", embedder="hashing").fit(SyntheticRationaleQA(rng=0).generate(60)).omega_.shape
        (4,)
        """
        data = _check_data(data)
        p = np.clip(data.teacher_accuracy(), 1e-3, 1 - 1e-3)
        self.omega_ = np.log(p / (1 - p)) - np.log(p / (1 - p)).min() + 1e-3
        self.K_ = data.K
        return self

    def _omega(self, K):
        w = self.weights
        if isinstance(w, str):
            w = check_option(w, "weights", ("uniform", "accuracy"))
            if w == "uniform":
                return np.ones(K)
            check_is_fitted(self, "omega_", method="purify")
            if self.K_ != K:
                raise InputError("data", f"has K={K} teachers", f"the K={self.K_} the weights were fitted on")
            return self.omega_
        return self._weight_vector(w, K)

    def purify(self, data) -> PurifiedData:
        """One synthesised rationale per question (teacher = -1 where sentences of several teachers are merged)."""
        self._check_params()
        data = _check_data(data)
        om = self._omega(data.K)
        thr = check_in_range(self.dedup_threshold, "dedup_threshold", 0.0, 1.0, low_open=True)
        max_words = check_positive_int(self.max_words, "max_words")
        emb = resolve_embedder(self.embedder)
        rats, ans, cor, teach = [], [], [], []
        # gather all sentences first (one embedding call)
        plan = []
        for i in range(data.n):
            row = data.teacher_answers[i]
            votes = {}
            for k, a in enumerate(row):
                votes[a] = votes.get(a, 0.0) + om[k]
            best = max(votes.values())
            tied = [a for a, v in votes.items() if np.isclose(v, best)]
            a_hat = max(tied, key=lambda a: max(om[k] for k in range(data.K) if row[k] == a)) if len(tied) > 1 else tied[0]
            keep = [k for k in range(data.K) if row[k] == a_hat]
            sents = []
            for k in keep:
                for s in _SENT.split(data.rationales[i][k].strip()):
                    s = s.strip()
                    if s and not _FINAL.match(s):
                        sents.append(s)
            plan.append((a_hat, keep, sents))
        allsent = [s for _, _, ss in plan for s in ss]
        E = normalize_rows(emb(allsent)) if allsent else np.zeros((0, 1))
        pos = 0
        for i, (a_hat, keep, sents) in enumerate(plan):
            Ei = E[pos:pos + len(sents)]
            pos += len(sents)
            kept = []
            for j in range(len(sents)):
                if all(Ei[j] @ Ei[l] <= thr for l in kept):
                    kept.append(j)
            if kept:
                cen = (Ei[kept] @ Ei[kept].T).sum(axis=1)
                order = [kept[j] for j in np.argsort(-cen, kind="stable")]
            else:
                order = []
            words, out = 0, []
            for j in order:
                w = len(sents[j].split())
                if words + w > max_words and out:
                    break
                out.append(sents[j])
                words += w
            body = " ".join(out)
            rats.append((body + " " if body else "") + f"Thus, the answer is {a_hat}.")
            ans.append(a_hat)
            cor.append(int(any(data.correct[i, k] for k in keep)))
            teach.append(keep[0] if len(keep) == 1 else -1)
        return PurifiedData(list(data.questions), list(data.answers), rats, ans, np.array(cor, dtype=np.int8),
                            np.array(teach), self._method, domains=data.domains, teachers=list(data.teachers))


# ------------------------------------------------------------------------------------------- baselines
class SingleTeacher(BaseEstimator):
    """Baseline: always teacher ``k`` (single-teacher distilling step by step).

    Examples
    --------
    >>> from iclr26sci.distill import SyntheticRationaleQA
    >>> SingleTeacher(2).purify(SyntheticRationaleQA(rng=0).generate(30)).teacher[:3].tolist()
    [2, 2, 2]
    """

    def __init__(self, k=0):
        self.k = k
        check_positive_int(k, "k", minimum=0)

    def fit(self, data):
        """No-op (kept for a uniform interface)."""
        _check_data(data)
        return self

    def purify(self, data) -> PurifiedData:
        """Teacher k's rationale for every question."""
        data = _check_data(data)
        if not isinstance(self.k, Integral) or isinstance(self.k, bool) or not 0 <= self.k < data.K:
            raise InputError("k", f"got {self.k!r}", f"a teacher index in [0, {data.K})")
        return _select(data, np.full(data.n, int(self.k)), f"single_teacher_{data.teachers[self.k]}")


class MajorityVote(BaseEstimator):
    """Baseline: a rationale stating the plurality answer (ties: the most agreed-with, then lowest index).

    Examples
    --------
    >>> d = MultiTeacherData(["q"], [["a", "b", "c"]], ["2"], teacher_answers=[["1", "2", "2"]])
    >>> MajorityVote().purify(d).teacher.tolist()
    [1]
    """

    def fit(self, data):
        """No-op (kept for a uniform interface)."""
        _check_data(data)
        return self

    def purify(self, data) -> PurifiedData:
        """The first teacher (by index) among those stating the most common answer."""
        data = _check_data(data)
        cons = _consistency(data)
        return _select(data, np.argmax(cons, axis=1), "majority_vote")


class RandomTeacher(BaseEstimator):
    """Baseline: a teacher drawn uniformly per question.

    Parameters
    ----------
    rng : None, int, SeedSequence, Generator or RandomState, default 0
        Seed of the draws.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Examples
    --------
    >>> from iclr26sci.distill import SyntheticRationaleQA
    >>> RandomTeacher(rng=0).purify(SyntheticRationaleQA(rng=0).generate(30)).n
    30
    """

    def __init__(self, rng=0, random_state=None):
        self.rng = rng
        self.random_state = random_state
        resolve_rng(rng, random_state, default=0)

    def fit(self, data):
        """No-op (kept for a uniform interface)."""
        _check_data(data)
        return self

    def purify(self, data) -> PurifiedData:
        """A uniformly drawn teacher's rationale per question."""
        data = _check_data(data)
        gen = as_generator(resolve_rng(self.rng, self.random_state, default=0))
        return _select(data, gen.integers(0, data.K, data.n), "random_teacher")


class OraclePurifier(BaseEstimator):
    """Upper bound: a correct teacher where one exists (the best-on-training among them), else the best teacher.

    Uses the data's own correctness, so it is an oracle on test data.

    Examples
    --------
    >>> d = MultiTeacherData(["q"], [["a", "b"]], ["2"], teacher_answers=[["1", "2"]])
    >>> OraclePurifier().purify(d).correct.tolist()
    [1]
    """

    def fit(self, data):
        """Record the teachers' overall accuracies (the tie-break); optional."""
        self.teacher_accuracy_ = _check_data(data).teacher_accuracy()
        return self

    def purify(self, data) -> PurifiedData:
        """The oracle target per question."""
        data = _check_data(data)
        acc = getattr(self, "teacher_accuracy_", None)
        acc = data.teacher_accuracy() if acc is None or len(acc) != data.K else acc
        return _select(data, _pick(data.correct.astype(float), acc), "oracle")
