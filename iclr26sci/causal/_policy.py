"""Policy classes that minimise a linear score objective.

Every learner here minimises

.. math:: L(\\pi) = \\frac1n\\sum_i\\sum_a \\pi(a\\mid X_i)\\,G_{ia}

over a restricted class, given a score matrix ``G`` (``(n, K)``, lower is
better). Since the sharp-bound, DR, IPW and DM estimators are all linear in
:math:`\\pi`, one implementation serves all of them.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, as_generator, check_array, progress, resolve_rng

from ._validate import (check_bool, check_fitted, check_in_range, check_matrix, check_n_features,
                        check_nonneg_int, check_positive_int, check_X)

__all__ = ["SoftmaxLinearPolicy", "TreePolicy", "FixedPolicy", "as_policy_matrix", "make_policy"]


def softmax(S, axis=1):
    """Row softmax with exactly scipy.special.softmax's operations (max shift, exp, divide by the sum), without
    its array-API dispatch, which costs as much as the arithmetic on the (n, 2) matrices of the policy fit."""
    if axis == 1 and S.ndim == 2 and 2 <= S.shape[1] < 8:
        # few columns (the policy fit's (n, K)): column-wise max and sum (_rowmax, _rowsum) are much faster
        # than numpy's reductions along a short row and give the same numbers
        e = S - _rowmax(S)[:, None]
        np.exp(e, out=e)
        e /= _rowsum(e)[:, None]
        return e
    e = np.exp(S - np.max(S, axis=axis, keepdims=True))
    e /= np.sum(e, axis=axis, keepdims=True)
    return e


def _rowsum(A):
    """``np.sum(A, axis=1)`` of an (n, K) matrix; for K < 8 a left-to-right column loop, the same numbers (numpy
    sums fewer than 8 elements left to right) without the cost of numpy's reduction along a short row."""
    if A.ndim != 2 or not 2 <= A.shape[1] < 8:
        return np.sum(A, axis=1)
    s = A[:, 0].copy()
    for j in range(1, A.shape[1]):
        s += A[:, j]
    return s


def _rowmax(A):
    """``np.max(A, axis=1)`` (exact, NaN propagating) by a column loop for K < 8."""
    if A.ndim != 2 or not 2 <= A.shape[1] < 8:
        return np.max(A, axis=1)
    m = A[:, 0].copy()
    for j in range(1, A.shape[1]):
        np.maximum(m, A[:, j], out=m)
    return m


def _onehot_argmax(P: np.ndarray) -> np.ndarray:
    out = np.zeros_like(P)
    out[np.arange(P.shape[0]), np.argmax(P, axis=1)] = 1.0
    return out


class _PolicyBase(BaseEstimator):
    """Shared predict / value methods of the policy learners (scikit-learn estimators)."""

    deterministic: bool = False
    #: attribute that exists once the policy is fitted
    _fitted_attr = "n_arms_"

    def _validate_params(self):  # overridden by the learners
        pass

    def _check_fit_args(self, X, G):
        """Validate the parameters and (X, G) at the start of fit, before any work; sets ``n_features_in_``."""
        self._validate_params()
        X = check_X(X, "X", min_rows=2)
        G = check_matrix(G, "G")
        if G.shape[0] != X.shape[0]:
            raise InputError("G", f"has {G.shape[0]} rows but X has {X.shape[0]}", "one row of scores per row of X")
        if G.shape[1] < 2:
            raise InputError("G", f"has {G.shape[1]} column(s)", "one score column per arm (at least 2)")
        self.n_features_in_ = X.shape[1]
        return X, G

    def _check_X(self, X, method):
        check_fitted(self, self._fitted_attr, method)
        return check_n_features(self, X, method)

    def predict_proba(self, X) -> np.ndarray:
        """(n, K) action probabilities at the rows of ``X`` (n, d); one-hot for a deterministic policy."""
        P = self._proba(self._check_X(X, "predict_proba"))
        return _onehot_argmax(P) if self.deterministic else P

    def predict(self, X) -> np.ndarray:
        """Most probable arm at each row of ``X`` (n, d)."""
        return np.argmax(self._proba(self._check_X(X, "predict")), axis=1)

    def value(self, X, G) -> float:
        """Objective :math:`n^{-1}\\sum_i\\sum_a\\pi(a|X_i)G_{ia}` of the policy on scores ``G`` (n, K), loss scale."""
        P = self.predict_proba(X)
        G = check_matrix(G, "G", P.shape)
        return float(np.mean(np.sum(P * G, axis=1)))


class FixedPolicy(_PolicyBase):
    """A policy given by a function ``X -> (n, K)`` probabilities, or a constant arm / distribution.

    Needs no fitting (``fit`` only validates); use it as a baseline or to evaluate a hand-made rule.

    Parameters
    ----------
    rule : int, array of shape (K,), or callable
        An arm index in 0..K-1 (everyone gets that arm), a probability vector over the K arms (everyone is
        randomised with it), or a function of the covariates ``X (n, d)`` returning (n, K) probabilities or
        (n,) arm indices.
    n_arms : int >= 2
        Number of arms K.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import FixedPolicy
    >>> FixedPolicy(1, 2).predict_proba(np.zeros((2, 3)))
    array([[0., 1.],
           [0., 1.]])
    >>> FixedPolicy(lambda X: (X[:, 0] > 0).astype(int), 2).predict(np.array([[-1.0], [1.0]]))
    array([0, 1])
    """

    def __init__(self, rule, n_arms: int):
        self.rule = rule
        self.n_arms = n_arms

    def _validate_params(self):
        K = check_positive_int(self.n_arms, "n_arms", minimum=2)
        r = self.rule
        if callable(r):
            return K
        if isinstance(r, (bool, np.bool_)) or isinstance(r, str):
            raise InputError("rule", f"got {r!r}", f"an arm index in 0..{K - 1}, a probability vector or a callable")
        if isinstance(r, (int, np.integer)):
            if not 0 <= int(r) < K:
                raise InputError("rule", f"arm {int(r)} out of range", f"an arm index in 0..{K - 1}")
            return K
        arr = check_array(r, "rule", ndim=1)
        if arr.shape[0] != K:
            raise InputError("rule", f"has {arr.shape[0]} probabilities for {K} arms", f"a vector of length {K}")
        if np.any(arr < 0) or abs(arr.sum() - 1.0) > 1e-6:
            raise InputError("rule", f"is not a probability vector (sum {arr.sum():.3g}, min {arr.min():.3g})",
                             "non-negative probabilities summing to 1")
        return K

    def fit(self, X=None, G=None):
        """Nothing to learn: validates the rule and returns ``self``."""
        self._validate_params()
        return self

    def _check_X(self, X, method):
        self._validate_params()
        return check_X(X, "X", min_rows=1)

    def _proba(self, X):
        n = X.shape[0]
        if callable(self.rule):
            return as_policy_matrix(self.rule(X), X, self.n_arms, "rule")
        r = np.asarray(self.rule)
        if r.ndim == 0:
            P = np.zeros((n, self.n_arms))
            P[:, int(r)] = 1.0
            return P
        return np.tile(r.astype(float), (n, 1))


def as_policy_matrix(policy, X, n_arms: int, name: str = "policy") -> np.ndarray:
    """Evaluate ``policy`` at the rows of ``X`` as an ``(n, K)`` probability matrix.

    Parameters
    ----------
    policy : object, callable, array, int, "uniform" or None
        An object with ``predict_proba`` (e.g. a fitted learner); a callable ``X -> probabilities
        or arm indices``; an ``(n, K)`` array of probabilities; an ``(n,)`` array of arms;
        an int (always that arm); ``"uniform"`` or ``None`` (uniform random assignment).
    X : array (n, d)
        Covariates at which the policy is evaluated.
    n_arms : int >= 2
        Number of arms K.
    name : str
        Name of the policy argument, used in error messages.

    Returns
    -------
    ndarray (n, K)
        Row i is the distribution :math:`\\pi(\\cdot\\mid X_i)` over the arms.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import as_policy_matrix
    >>> X = np.array([[-1.0], [2.0]])
    >>> as_policy_matrix("uniform", X, 2)
    array([[0.5, 0.5],
           [0.5, 0.5]])
    >>> as_policy_matrix(lambda X: (X[:, 0] > 0).astype(int), X, 2)
    array([[1., 0.],
           [0., 1.]])
    """
    K = check_positive_int(n_arms, "n_arms", minimum=2)
    X = check_X(X, "X", min_rows=0)
    n = X.shape[0]
    if policy is None or (isinstance(policy, str) and policy == "uniform"):
        return np.full((n, K), 1.0 / K)
    if isinstance(policy, str):
        raise InputError(name, f"got the string {policy!r}", "'uniform', an arm index, an array or a policy object")
    if isinstance(policy, (int, np.integer)) and not isinstance(policy, bool):
        if not 0 <= int(policy) < K:
            raise InputError(name, f"arm {int(policy)} out of range", f"an arm in 0..{K - 1}")
        P = np.zeros((n, K))
        P[:, int(policy)] = 1.0
        return P
    if hasattr(policy, "predict_proba") or callable(policy):
        try:
            out = policy.predict_proba(X) if hasattr(policy, "predict_proba") else policy(X)
        except InputError as err:        # e.g. a learner fitted on other covariates: blame the policy argument
            raise type(err)(name, f"could not be evaluated at X ({type(policy).__name__}: {err})",
                            "a policy fitted on (or defined for) the same covariates as the data") from None
    else:
        out = policy
    arr = np.asarray(out)
    if arr.dtype == object:
        raise InputError(name, "returned non-numeric values", "probabilities (n, K) or arm indices (n,)")
    if arr.ndim == 1:
        arr = check_array(arr, name, ndim=1, dtype=int)
        if arr.shape[0] != n:
            raise InputError(name, f"gave {arr.shape[0]} actions for {n} rows", "one action per row")
        if arr.size and (arr.min() < 0 or arr.max() >= K):
            raise InputError(name, f"has arm indices outside 0..{K - 1}", f"integers in 0..{K - 1}")
        P = np.zeros((n, K))
        P[np.arange(n), arr] = 1.0
        return P
    arr = check_array(arr, name, ndim=2)
    if arr.shape != (n, K):
        raise InputError(name, f"gave a matrix of shape {arr.shape}", f"shape ({n}, {K})")
    if np.any(arr < -1e-8):
        raise InputError(name, "has negative probabilities", "rows of probabilities summing to 1")
    dev = np.abs(arr.sum(axis=1) - 1.0)
    if np.any(dev > 1e-6):
        raise InputError(name, f"has rows not summing to 1 (largest deviation {dev.max():.3g})",
                         "rows of probabilities summing to 1")
    return np.clip(arr, 0.0, None)


def _smooth_scores(X, G):
    """Ridge regression of each score column on an additive spline basis of ``X`` (denoised scores)."""
    from ._nuisance import AdaptiveSplineBasis

    B = AdaptiveSplineBasis().fit_transform(X)
    B = np.hstack([np.ones((B.shape[0], 1)), B])
    H = B.T @ B + 1e-3 * B.shape[0] * np.eye(B.shape[1]) * 1e-3
    return B @ np.linalg.solve(H, B.T @ G)


class SoftmaxLinearPolicy(_PolicyBase):
    """Softmax-linear ("logistic") policy :math:`\\pi_\\theta(a|x)=\\mathrm{softmax}(W^\\top[1,\\tilde x])_a`.

    Fitted by L-BFGS on :math:`L(\\pi_\\theta) + \\frac{\\lambda}{2n}\\|W\\|^2` with the
    scores scaled to unit standard deviation; ``x`` is standardised. The penalty is in sum form
    (it shrinks like 1/n), so the learner converges to the class optimum: a fixed penalty would
    keep the weights bounded, and the regret against the best (threshold-like) policy of the class
    would level off at a floor (0.015 on validation DGP V1 with ``lambda = 1e-4`` per unit).

    Parameters
    ----------
    l2 : float
        Ridge penalty on the weights in sum form: the objective carries ``l2 / (2 n) * ||W||^2``
        (scale-free: scores and ``x`` are standardised).
    deterministic : bool
        If True, ``predict_proba`` returns the one-hot argmax (a deterministic policy).
    n_restarts : int >= 0
        Random restarts in addition to the zero start and the warm start from the weighted
        classification reduction; the best objective wins.
    max_iter : int >= 1
        Largest number of L-BFGS iterations per start.
    rng : None, int or numpy Generator
        Seed of the random restarts.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Attributes
    ----------
    coef_ : ndarray (d + 1, K)
        Weights on ``[1, standardised x]``.
    objective_ : float
        Penalised objective at the optimum (on standardised scores).
    n_arms_, n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import SoftmaxLinearPolicy
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 1))
    >>> G = np.column_stack([X[:, 0], -X[:, 0]])        # arm 0 is better (lower loss) where x < 0
    >>> pol = SoftmaxLinearPolicy(rng=0).fit(X, G)
    >>> pol.predict(np.array([[-0.8], [0.8]]))
    array([0, 1])
    >>> pol.value(X, G) < -0.45                         # close to the best value, -E|x| = -0.5
    True
    """

    def __init__(self, l2: float = 1e-4, deterministic: bool = False, n_restarts: int = 1, max_iter: int = 500,
                 rng=None, random_state=None):
        self.l2 = l2
        self.deterministic = deterministic
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.rng = rng
        self.random_state = random_state

    def _design(self, X):
        return np.hstack([np.ones((X.shape[0], 1)), (X - self.mean_) / self.scale_])

    def _validate_params(self):
        check_in_range(self.l2, "l2", 0.0, None)
        check_bool(self.deterministic, "deterministic")
        check_nonneg_int(self.n_restarts, "n_restarts")
        check_positive_int(self.max_iter, "max_iter")

    def fit(self, X, G):
        """Minimise the score objective on covariates ``X`` (n, d) and scores ``G`` (n, K), lower is better."""
        X, G = self._check_fit_args(X, G)
        n, K = G.shape
        self.n_arms_ = K
        self.mean_ = X.mean(axis=0)
        sd = X.std(axis=0)
        self.scale_ = np.where(sd > 0, sd, 1.0)
        Z = self._design(X)
        p = Z.shape[1]
        Gc = G - G.mean(axis=1, keepdims=True)
        # scale by the spread of the *smoothed* scores, so that noisy (one-step) scores are not
        # regularised more strongly than their plug-in counterparts
        Gsm = _smooth_scores(X, Gc)
        gscale = float(np.std(Gsm)) or float(np.std(Gc)) or 1.0
        Gs, Gsm = Gc / gscale, Gsm / gscale
        lam = self.l2 / n          # sum-form penalty: vanishes as n grows (consistency for the class optimum)

        def fun(w):
            W = w.reshape(p, K)
            P = softmax(Z @ W, axis=1)
            v = _rowsum(P * Gs)
            obj = v.mean() + 0.5 * lam * np.sum(W[1:] ** 2)
            dZ = P * (Gs - v[:, None]) / n
            grad = Z.T @ dZ
            grad[1:] += lam * W[1:]
            return obj, grad.ravel()

        gen = as_generator(resolve_rng(self.rng, self.random_state))
        # noisy (e.g. one-step) scores make the per-unit argmin a poor start: also start from the
        # classification reduction on scores smoothed by a spline regression on x
        starts = [np.zeros(p * K), self._warm_start(Z, Gs), self._warm_start(Z, Gsm)]
        starts += [gen.normal(scale=1.0, size=p * K) for _ in range(self.n_restarts)]
        best = None
        for w0 in progress(starts, desc="policy fit (L-BFGS starts)", total=len(starts)):
            res = minimize(fun, w0, jac=True, method="L-BFGS-B", options={"maxiter": self.max_iter})
            if best is None or res.fun < best.fun:
                best = res
        self.coef_ = best.x.reshape(p, K)
        self.objective_ = float(best.fun)
        return self

    @staticmethod
    def _warm_start(Z, Gs):
        """Start from the cost-sensitive classification reduction: a weighted softmax regression
        of the per-unit best arm with weights max_a G - min_a G (a few Newton-free gradient steps)."""
        n, K = Gs.shape
        y = np.argmin(Gs, axis=1)
        w = Gs.max(axis=1) - Gs.min(axis=1)
        w = w / (w.mean() or 1.0)
        Y1 = np.zeros((n, K))
        Y1[np.arange(n), y] = 1.0

        def f(v):
            W = v.reshape(Z.shape[1], K)
            S = Z @ W
            S = S - _rowmax(S)[:, None]
            logp = S - np.log(_rowsum(np.exp(S)))[:, None]
            obj = -np.mean(w * _rowsum(Y1 * logp)) + 0.5e-3 * np.sum(W[1:] ** 2)
            g = Z.T @ ((np.exp(logp) - Y1) * w[:, None]) / n
            g[1:] += 1e-3 * W[1:]
            return obj, g.ravel()

        return minimize(f, np.zeros(Z.shape[1] * K), jac=True, method="L-BFGS-B", options={"maxiter": 200}).x

    def _proba(self, X):
        return softmax(self._design(X) @ self.coef_, axis=1)


class TreePolicy(_PolicyBase):
    """Depth-limited policy tree minimising the score objective (Athey & Wager 2021 style).

    Splits are searched exactly over ``n_bins`` quantile thresholds per feature:
    depth 1 and 2 are solved exactly (on those thresholds) with cumulative
    per-arm histograms; deeper trees choose each split by exact depth-2 lookahead.
    Leaves take the arm with the smallest summed score. Deterministic.

    Parameters
    ----------
    depth : int >= 1
        Depth of the tree (number of splits from the root to a leaf); 2 is the usual interpretable choice.
    n_bins : int >= 2
        Number of quantile bins per feature: the candidate thresholds are the ``n_bins - 1`` inner quantiles.
    min_leaf : int >= 1
        Minimum number of units per leaf (at most the number of units).

    Attributes
    ----------
    tree_ : dict
        Nested splits ``{"feature", "threshold", "left", "right"}`` ending in leaves ``{"arm"}``.
    n_arms_, n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import TreePolicy
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(300, 2))
    >>> G = np.column_stack([X[:, 0], -X[:, 0]])      # arm 0 is better where x0 < 0
    >>> tree = TreePolicy(depth=1).fit(X, G)
    >>> tree.tree_["feature"], tree.predict(np.array([[-0.5, 0.0], [0.5, 0.0]]))
    (0, array([0, 1]))
    """

    deterministic = True
    _fitted_attr = "tree_"

    def _validate_params(self):
        check_positive_int(self.depth, "depth", minimum=1)
        check_positive_int(self.n_bins, "n_bins", minimum=2)
        check_positive_int(self.min_leaf, "min_leaf", minimum=1)

    def __init__(self, depth: int = 2, n_bins: int = 32, min_leaf: int = 10):
        self.depth = depth
        self.n_bins = n_bins
        self.min_leaf = min_leaf

    def fit(self, X, G):
        """Grow the tree on covariates ``X`` (n, d) and scores ``G`` (n, K), lower is better."""
        X, G = self._check_fit_args(X, G)
        n, d = X.shape
        if self.min_leaf > n:
            raise InputError("min_leaf", f"is {self.min_leaf} but there are only {n} units",
                             f"at most {n} (the number of units)")
        self.n_arms_ = G.shape[1]
        qs = np.linspace(0, 1, self.n_bins + 1)[1:-1]
        self.thresholds_ = [np.unique(np.quantile(X[:, j], qs)) for j in range(d)]
        B = np.stack([np.searchsorted(self.thresholds_[j], X[:, j], side="left") for j in range(d)], axis=1)
        self.nb_ = max(len(t) for t in self.thresholds_) + 1
        self.tree_ = self._grow(np.arange(n), B, G, self.depth)
        return self

    # --- exact searches on binned features -------------------------------------------------
    def _hist(self, B, G):
        """H[j, b, a]: per-feature per-bin score sums; C[j, b]: counts."""
        n, d = B.shape
        nb, K = self.nb_, G.shape[1]
        idx = (np.arange(d)[None, :] * nb + B).ravel()
        H = np.stack([np.bincount(idx, weights=np.repeat(G[:, a], d), minlength=d * nb) for a in range(K)], axis=1)
        C = np.bincount(idx, minlength=d * nb)
        return H.reshape(d, nb, K), C.reshape(d, nb)

    def _depth1_from_hist(self, H, C, tot, ntot):
        """Best single split given histograms; returns (cost, j, b) with b=-1 for no split."""
        L = np.cumsum(H, axis=1)[:, :-1, :]
        CL = np.cumsum(C, axis=1)[:, :-1]
        R = tot[None, None, :] - L
        cost = L.min(axis=2) + R.min(axis=2)
        ml = max(int(self.min_leaf), 1)
        ok = (CL >= ml) & (ntot - CL >= ml)
        cost = np.where(ok, cost, np.inf)
        best_leaf = tot.min()
        if cost.size and np.isfinite(cost).any():
            j, b = np.unravel_index(np.argmin(cost), cost.shape)
            if cost[j, b] < best_leaf - 1e-12 * (1 + abs(best_leaf)):
                return float(cost[j, b]), int(j), int(b)
        return float(best_leaf), -1, -1

    def _depth2_root(self, B, G):
        n, d = B.shape
        nb, K = self.nb_, G.shape[1]
        tot = G.sum(axis=0)
        Hall, Call = self._hist(B, G)
        best = (self._depth1_from_hist(Hall, Call, tot, n)[0], -1, -1)
        jj = np.arange(d)[None, :]
        for j1 in range(d):
            idx = ((B[:, [j1]] * d + jj) * nb + B).ravel()
            J = np.stack([np.bincount(idx, weights=np.repeat(G[:, a], d), minlength=nb * d * nb) for a in range(K)],
                         axis=1).reshape(nb, d, nb, K)
            Jc = np.bincount(idx, minlength=nb * d * nb).reshape(nb, d, nb)
            HL = np.cumsum(J, axis=0)
            CLc = np.cumsum(Jc, axis=0)
            for b1 in range(len(self.thresholds_[j1])):
                nL = int(CLc[b1, 0].sum())
                nR = n - nL
                if nL < max(self.min_leaf, 1) or nR < max(self.min_leaf, 1):
                    continue
                hl, cl = HL[b1], CLc[b1]
                totL = hl[0].sum(axis=0)
                cL = self._depth1_from_hist(hl, cl, totL, nL)[0]
                cR = self._depth1_from_hist(Hall - hl, Call - cl, tot - totL, nR)[0]
                if cL + cR < best[0] - 1e-12 * (1 + abs(best[0])):
                    best = (cL + cR, j1, b1)
        return best

    def _grow(self, idx, B, G, depth):
        Gs, Bs = G[idx], B[idx]
        leaf = {"arm": int(np.argmin(Gs.sum(axis=0)))}
        if depth <= 0 or idx.shape[0] < 2 * self.min_leaf:
            return leaf
        if depth == 1:
            H, C = self._hist(Bs, Gs)
            _, j, b = self._depth1_from_hist(H, C, Gs.sum(axis=0), idx.shape[0])
        else:
            _, j, b = self._depth2_root(Bs, Gs)
        if j < 0:
            return leaf
        left = Bs[:, j] <= b
        return {"feature": j, "threshold": float(self.thresholds_[j][b]),
                "left": self._grow(idx[left], B, G, depth - 1),
                "right": self._grow(idx[~left], B, G, depth - 1)}

    def _proba(self, X):
        P = np.zeros((X.shape[0], self.n_arms_))
        self._fill(self.tree_, X, np.arange(X.shape[0]), P)
        return P

    def _fill(self, node, X, idx, P):
        if "arm" in node:
            P[idx, node["arm"]] = 1.0
            return
        m = X[idx, node["feature"]] <= node["threshold"]
        self._fill(node["left"], X, idx[m], P)
        self._fill(node["right"], X, idx[~m], P)


POLICY_CLASSES = ("logistic", "mlp", "tree")


def make_policy(policy_class, deterministic=False, params=None, rng=None):
    """Instantiate a policy learner from a name or pass through an object with ``fit(X, G)``.

    ``params`` (a dict of constructor parameters of the class) is checked for unknown keys and bad values
    before anything is fitted.
    """
    if params is not None and not isinstance(params, dict):
        raise InputError("policy_params", f"got {type(params).__name__}", "a dict of policy parameters or None")
    params = dict(params or {})
    if isinstance(policy_class, str) and policy_class in POLICY_CLASSES:
        if policy_class == "logistic":
            cls, fixed = SoftmaxLinearPolicy, {"deterministic": deterministic, "rng": rng}
        elif policy_class == "tree":
            cls, fixed = TreePolicy, {}
        else:
            from ._mlp import MLPPolicy

            cls, fixed = MLPPolicy, {"deterministic": deterministic, "rng": rng}
        allowed = sorted(set(cls._get_param_names()) - set(fixed))
        bad = sorted(set(params) - set(allowed))
        if bad:
            raise InputError("policy_params", f"has unknown key(s) {bad} for policy_class={policy_class!r}",
                             "keys among " + ", ".join(allowed))
        pol = cls(**fixed, **params)
        try:
            pol._validate_params()
        except InputError as err:
            raise InputError(f"policy_params[{err.argument!r}]", err.problem, err.expected) from None
        return pol
    if isinstance(policy_class, str):
        raise InputError("policy_class", f"got {policy_class!r}", "'logistic', 'mlp', 'tree' or an object with "
                         "fit(X, G) and predict_proba(X)")
    if not (hasattr(policy_class, "fit") and hasattr(policy_class, "predict_proba")):
        raise InputError("policy_class", f"got {type(policy_class).__name__}",
                         "'logistic', 'mlp', 'tree' or an object with fit(X, G) and predict_proba(X)")
    if params:
        raise InputError("policy_params", "is only used with a policy_class name",
                         "set the parameters on the policy object itself")
    if hasattr(policy_class, "get_params"):        # scikit-learn convention: fit a clone, leave the template
        from sklearn.base import clone

        return clone(policy_class)
    return policy_class
