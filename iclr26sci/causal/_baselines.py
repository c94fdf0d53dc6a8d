"""Kallus & Zhou minimax policy improvement and the ZSB/KZ normalised-IPW APO bounds."""
from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import softmax

from iclr26sci.core import Estimate, InputError, check_array, check_in_range, check_option

from ._nuisance import cross_fit_nuisances
from ._msm import ipw_scores
from ._policy import SoftmaxLinearPolicy, _PolicyBase, as_policy_matrix
from ._sharp import _check_common, _coerce_data, _outcome_sign, _seed

__all__ = ["msm_weight_bounds", "max_weighted_ratio", "KallusZhouLearner", "zsb_apo_bound"]

KZ_CITATION = ("Kallus & Zhou. Confounding-robust policy improvement. NeurIPS 2018; "
               "Zhao, Small & Bhattacharya (2019), JRSS-B")


def msm_weight_bounds(e_obs, gamma: float):
    """Inverse-propensity weight bounds under MSM(Gamma) for the observed arm.

    .. math:: a_i = 1 + \\Gamma^{-1}(1/\\hat e_{A_i}-1),\\qquad b_i = 1 + \\Gamma(1/\\hat e_{A_i}-1)
    """
    g = check_in_range(gamma, "gamma", 1.0, None)
    e_obs = np.asarray(e_obs, float)
    return 1.0 + (1.0 / e_obs - 1.0) / g, 1.0 + g * (1.0 / e_obs - 1.0)


def max_weighted_ratio(R, a, b):
    """Exact :math:`\\max_{W_i\\in[a_i,b_i]}\\sum_i W_iR_i/\\sum_i W_i` by sorting.

    The optimum puts the lower weight on the ``k`` smallest ``R`` and the upper weight on
    the rest; all ``n + 1`` thresholds are scanned with cumulative sums (O(n log n)).

    Returns
    -------
    value : float
    W : ndarray, the maximising weights
    """
    R = np.asarray(R, float)
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    if R.size == 0:
        return float("nan"), R.copy()
    order = np.argsort(R, kind="stable")
    Rs, as_, bs = R[order], a[order], b[order]
    # k = number of units (smallest R) at the lower weight, k = 0..n
    num_a = np.concatenate([[0.0], np.cumsum(as_ * Rs)])
    den_a = np.concatenate([[0.0], np.cumsum(as_)])
    num_b = np.concatenate([np.cumsum((bs * Rs)[::-1])[::-1], [0.0]])
    den_b = np.concatenate([np.cumsum(bs[::-1])[::-1], [0.0]])
    ratio = (num_a + num_b) / (den_a + den_b)
    k = int(np.argmax(ratio))
    Ws = np.where(np.arange(R.size) < k, as_, bs)
    W = np.empty_like(Ws)
    W[order] = Ws
    return float(ratio[k]), W


class KallusZhouLearner(_PolicyBase):
    """Kallus & Zhou (2018) confounding-robust policy improvement (minimax, normalised IPW).

    .. math::

        \\hat\\pi = \\arg\\min_\\theta\\ \\max_{W_i\\in[a_i,b_i]}
        \\frac{\\sum_i W_i\\,(\\pi_\\theta-\\pi_0)(A_i\\mid X_i)\\,Y_i}{\\sum_i W_i}

    The inner maximum is solved exactly by :func:`max_weighted_ratio`; the outer problem by
    Adam on the Danskin subgradient (best iterate kept) followed by L-BFGS, started from the
    uniform policy and from the standard IPW policy, with a softmax-linear policy.

    Parameters
    ----------
    gamma : float
    baseline : policy (default uniform)
    outcome : {"loss", "reward"}
    cv : int (cross-fitting of the propensity)
    nuisance : nuisance models (only the propensity is used)
    lr, n_iter, l2 : Adam step size, iterations, ridge penalty
    n_restarts : int
        Random starts (N(0, 5^2) weights) besides the uniform and IPW starts; the objective has a
        spurious local minimum at the uniform policy, so restarts matter.
    deterministic : bool
    rng : seed

    References
    ----------
    Kallus & Zhou (2018), Confounding-robust policy improvement, NeurIPS; Kallus & Zhou (2021), Management Science.
    """

    def __init__(self, gamma: float = 2.0, baseline=None, outcome: str = "loss", cv: int = 5, nuisance=None,
                 lr: float = 0.05, n_iter: int = 300, l2: float = 1e-6, n_restarts: int = 2,
                 deterministic: bool = False, rng=None):
        self.n_restarts = n_restarts
        self.gamma = gamma
        self.baseline = baseline
        self.outcome = outcome
        self.cv = cv
        self.nuisance = nuisance
        self.lr = lr
        self.n_iter = n_iter
        self.l2 = l2
        self.deterministic = deterministic
        self.rng = rng

    def _design(self, X):
        return np.hstack([np.ones((X.shape[0], 1)), (X - self.mean_) / self.scale_])

    def fit(self, data, propensity=None):
        gamma, cv = _check_common(self.gamma, self.cv)
        sgn = _outcome_sign(self.outcome)
        X, A, Y, K, _ = _coerce_data(data, min_per_arm=max(cv, 2))
        n = X.shape[0]
        seed = _seed(self.rng)
        if propensity is None:
            e = cross_fit_nuisances(X, A, Y, K, [], cv=cv, nuisance=self.nuisance, rng=seed).e
        else:
            e = check_array(propensity, "propensity", shape=(n, K))
        e_obs = e[np.arange(n), A]
        self.a_, self.b_ = msm_weight_bounds(e_obs, gamma)
        L = sgn * Y
        p0 = as_policy_matrix(self.baseline, X, K, "baseline")[np.arange(n), A]
        self.n_arms_ = K
        self.mean_ = X.mean(0)
        sd = X.std(0)
        self.scale_ = np.where(sd > 0, sd, 1.0)
        Z = self._design(X)
        ys = float(np.std(L)) or 1.0
        Ls = L / ys
        p = Z.shape[1]
        onehot = np.zeros((n, K))
        onehot[np.arange(n), A] = 1.0
        a_, b_ = self.a_, self.b_

        def obj_grad(w):
            W = w.reshape(p, K)
            P = softmax(Z @ W, axis=1)
            pA = P[np.arange(n), A]
            val, Wt = max_weighted_ratio((pA - p0) * Ls, a_, b_)
            c = Wt * Ls / Wt.sum()                       # Danskin: d objective / d pA_i at the inner optimum
            g = Z.T @ ((c * pA)[:, None] * (onehot - P))
            g[1:] += self.l2 * W[1:]
            return val + 0.5 * self.l2 * np.sum(W[1:] ** 2), g

        def adam(W, n_iter):
            m1, m2 = np.zeros_like(W), np.zeros_like(W)
            b1, b2, eps = 0.9, 0.999, 1e-8
            best = (np.inf, W.copy())
            for t in range(1, int(n_iter) + 1):
                f, g = obj_grad(W.ravel())
                if f < best[0]:
                    best = (f, W.copy())
                g = g.reshape(W.shape)
                m1 = b1 * m1 + (1 - b1) * g
                m2 = b2 * m2 + (1 - b2) * g * g
                W = W - self.lr * (m1 / (1 - b1**t)) / (np.sqrt(m2 / (1 - b2**t)) + eps)
            return best

        # starts: uniform (zero weights) and the standard IPW policy learned on the same propensities; the
        # Danskin-subgradient Adam run keeps the best iterate, then L-BFGS polishes it
        ipw = SoftmaxLinearPolicy(rng=0).fit(X, ipw_scores(L, A, e))
        W_ipw = ipw.coef_.copy()
        gen = np.random.default_rng(seed)
        starts = [np.zeros((p, K)), W_ipw] + [gen.normal(scale=5.0, size=(p, K)) for _ in range(self.n_restarts)]
        best = None
        for W0 in starts:
            f, W1 = adam(W0, self.n_iter)
            res = minimize(obj_grad, W1.ravel(), jac=True, method="L-BFGS-B", options={"maxiter": 200})
            if res.fun < f:
                f, W1 = res.fun, res.x.reshape(p, K)
            if best is None or f < best[0]:
                best = (f, W1)
        W = best[1]
        self.coef_ = W
        P = self._proba(X) if not self.deterministic else self.predict_proba(X)
        pA = P[np.arange(n), A]
        val, _ = max_weighted_ratio((pA - p0) * L, self.a_, self.b_)
        self.regret_bound_ = float(sgn * val)
        return self

    def _proba(self, X):
        return softmax(self._design(X) @ self.coef_, axis=1)


def zsb_apo_bound(data, arm: int, gamma: float, *, direction: str = "upper", cv: int = 5,
                  nuisance=None, propensity=None, rng=None) -> Estimate:
    """Non-sharp normalised-IPW bound on the average potential outcome of ``arm`` (ZSB / KZ).

    .. math:: \\max_{W_i\\in[a_i,b_i]} \\frac{\\sum_{i:A_i=a} W_iY_i}{\\sum_{i:A_i=a}W_i}

    (the minimum for the lower bound), in the units of ``Y``. The standard error is a linearisation at the
    optimal weights.
    """
    gamma, cv = _check_common(gamma, cv)
    check_option(direction, "direction", ("upper", "lower"))
    X, A, Y, K, _ = _coerce_data(data, min_per_arm=max(cv, 2))
    if isinstance(arm, bool) or not isinstance(arm, (int, np.integer)) or not 0 <= int(arm) < K:
        raise InputError("arm", f"got {arm!r}", f"an arm index in 0..{K - 1}")
    n = X.shape[0]
    if propensity is None:
        e = cross_fit_nuisances(X, A, Y, K, [], cv=cv, nuisance=nuisance, rng=_seed(rng)).e
    else:
        e = check_array(propensity, "propensity", shape=(n, K))
    m = A == int(arm)
    a, b = msm_weight_bounds(e[m, int(arm)], gamma)
    L = Y[m]
    flip = 1.0 if direction == "upper" else -1.0
    val, W = max_weighted_ratio(flip * L, a, b)
    val = flip * val
    # linearised standard error of a ratio estimator at the optimal weights, over all n units
    infl = np.zeros(n)
    infl[m] = W * (L - val)
    w_mean = np.sum(W) / n
    se = float(np.std(infl, ddof=1) / np.sqrt(n) / w_mean)
    return Estimate(val, se, name=f"ZSB {direction} bound on E[Y({arm})] (Gamma={gamma:g})", n=n,
                    citation=KZ_CITATION)
