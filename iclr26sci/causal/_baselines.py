"""Kallus & Zhou minimax policy improvement and the ZSB/KZ normalised-IPW APO bounds."""
from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import softmax

from iclr26sci.core import Estimate, InputError, progress, resolve_rng

from ._msm import ipw_scores
from ._nuisance import NuisanceModels, cross_fit_nuisances
from ._policy import SoftmaxLinearPolicy, _PolicyBase, as_policy_matrix
from ._sharp import _check_common, _coerce_data, _fit_data, _outcome_sign, _seed, _tabular
from iclr26sci.core import ObservationalData
from ._validate import (check_array, check_bool, check_direction, check_gamma, check_in_range,
                        check_nonneg_int, check_positive_int, check_propensity)

__all__ = ["msm_weight_bounds", "max_weighted_ratio", "KallusZhouLearner", "zsb_apo_bound"]

KZ_CITATION = ("Kallus & Zhou. Confounding-robust policy improvement. NeurIPS 2018; "
               "Zhao, Small & Bhattacharya (2019), JRSS-B")


def msm_weight_bounds(e_obs, gamma: float):
    """Inverse-propensity weight bounds under MSM(Gamma) for the observed arm.

    .. math:: a_i = 1 + \\Gamma^{-1}(1/\\hat e_{A_i}-1),\\qquad b_i = 1 + \\Gamma(1/\\hat e_{A_i}-1)

    Under MSM(Gamma) the true inverse propensity :math:`1/P(A_i\\mid X_i, U_i)` of the arm received lies in
    :math:`[a_i, b_i]`.

    Parameters
    ----------
    e_obs : array, in (0, 1]
        Nominal propensity of the arm each unit received, :math:`\\hat e_{A_i}(X_i)`.
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true to the nominal propensity;
        1 = no unobserved confounding (``a = b = 1/e_obs``).

    Returns
    -------
    (a, b) : tuple of ndarrays, ``a <= b``

    Examples
    --------
    >>> from iclr26sci.causal import msm_weight_bounds
    >>> msm_weight_bounds([0.5, 0.25], 2.0)
    (array([1.5, 2.5]), array([3., 7.]))
    """
    g = check_gamma(gamma)
    e_obs = check_array(e_obs, "e_obs")
    if e_obs.size and (e_obs.min() <= 0 or e_obs.max() > 1):
        raise InputError("e_obs", f"has values outside (0, 1] (min {e_obs.min():.3g}, max {e_obs.max():.3g})",
                         "propensities in (0, 1] (an inverse weight of a zero propensity is infinite)")
    return 1.0 + (1.0 / e_obs - 1.0) / g, 1.0 + g * (1.0 / e_obs - 1.0)


def max_weighted_ratio(R, a, b):
    """Exact :math:`\\max_{W_i\\in[a_i,b_i]}\\sum_i W_iR_i/\\sum_i W_i` by sorting.

    The optimum puts the lower weight on the ``k`` smallest ``R`` and the upper weight on
    the rest; all ``n + 1`` thresholds are scanned with cumulative sums (O(n log n)).

    Parameters
    ----------
    R : array (n,)
        Values to average (e.g. weighted regrets :math:`(\\pi-\\pi_0)(A_i|X_i)Y_i`).
    a, b : array (n,), ``0 < a <= b``
        Lower and upper weight of each unit (:func:`msm_weight_bounds`).

    Returns
    -------
    value : float
    W : ndarray, the maximising weights

    Examples
    --------
    >>> from iclr26sci.causal import max_weighted_ratio
    >>> value, W = max_weighted_ratio([0.0, 1.0], [1.0, 1.0], [1.0, 3.0])
    >>> value, W.tolist()                # all the weight it can on the larger value: 3/4
    (0.75, [1.0, 3.0])
    """
    R = check_array(R, "R", ndim=1, min_rows=1)
    a = check_array(a, "a", ndim=1)
    b = check_array(b, "b", ndim=1)
    for arr, nm in ((a, "a"), (b, "b")):
        if arr.shape != R.shape:
            raise InputError(nm, f"has {arr.shape[0]} entries but R has {R.shape[0]}", "one weight bound per value")
    if a.min() <= 0:
        raise InputError("a", f"has non-positive weights (min {a.min():.3g})", "positive weight bounds 0 < a <= b")
    if np.any(a > b):
        raise InputError("a", f"exceeds b at {int(np.sum(a > b))} unit(s)", "lower weight bounds a <= b")
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
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true to the nominal propensity that the
        policy must be robust to; 1 = no unobserved confounding (normalised IPW policy learning).
    baseline : policy, optional
        The policy whose regret is minimised against (default uniform random assignment).
    outcome : {"loss", "reward"}
        Whether lower or higher outcomes are better.
    cv : int >= 2
        Cross-fitting folds of the propensity model.
    nuisance : str, dict or NuisanceModels, optional
        Nuisance models (only the propensity is used).
    lr : float > 0
        Adam step size of the outer (policy) optimisation.
    n_iter : int >= 1
        Adam iterations per start.
    l2 : float >= 0
        Ridge penalty on the policy weights.
    n_restarts : int >= 0
        Random starts (N(0, 5^2) weights) besides the uniform and IPW starts; the objective has a
        spurious local minimum at the uniform policy, so restarts matter.
    deterministic : bool
        If True, ``predict_proba`` returns the one-hot argmax.
    rng : None, int or numpy Generator
        Seed.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Attributes
    ----------
    coef_ : ndarray (d + 1, K)
    regret_bound_ : float
        Worst-case (normalised IPW) regret of the learned policy against the baseline on the training data.
    a_, b_ : ndarray (n,)
        MSM inverse-propensity weight bounds of the training units.
    n_arms_, n_features_in_ : int

    References
    ----------
    Kallus & Zhou (2018), Confounding-robust policy improvement, NeurIPS; Kallus & Zhou (2021), Management Science.

    Examples
    --------
    >>> from iclr26sci.causal import KallusZhouLearner, simulate_v1
    >>> data, _ = simulate_v1(300, gamma=2.0, rng=0)
    >>> kz = KallusZhouLearner(gamma=2.0, cv=2, n_iter=20, n_restarts=0, rng=0).fit(data)
    >>> kz.predict(data.X[:3]).shape, kz.regret_bound_ <= 1e-9     # never worse than the uniform baseline
    ((3,), True)
    """

    _fitted_attr = "coef_"

    def __init__(self, gamma: float = 2.0, baseline=None, outcome: str = "loss", cv: int = 5, nuisance=None,
                 lr: float = 0.05, n_iter: int = 300, l2: float = 1e-6, n_restarts: int = 2,
                 deterministic: bool = False, rng=None, random_state=None):
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
        self.random_state = random_state

    def _design(self, X):
        return np.hstack([np.ones((X.shape[0], 1)), (X - self.mean_) / self.scale_])

    def _validate_params(self):
        check_in_range(self.lr, "lr", 0.0, None, low_open=True)
        check_positive_int(self.n_iter, "n_iter")
        check_nonneg_int(self.n_restarts, "n_restarts")
        check_in_range(self.l2, "l2", 0.0, None)
        check_bool(self.deterministic, "deterministic")

    def fit(self, X, A=None, Y=None, *, propensity=None):
        """Learn the policy on ``(X, A, Y)`` (arrays or pandas, as in :meth:`SharpPolicyLearner.fit`), or on
        ``X`` = ObservationalData or an (X, A, Y) tuple; ``propensity`` (n, K) if known."""
        data, _ = _fit_data(X, A, Y)
        if isinstance(data, (tuple, list)) and len(data) == 3 and _tabular(data):
            data = ObservationalData(*data)
        gamma, cv = _check_common(self.gamma, self.cv)
        sgn = _outcome_sign(self.outcome)
        self._validate_params()
        nm = NuisanceModels.coerce(self.nuisance)
        X, A, Y, K, _ = _coerce_data(data, min_per_arm=cv)
        n = X.shape[0]
        p0 = as_policy_matrix(self.baseline, X, K, "baseline")[np.arange(n), A]
        if propensity is not None:
            propensity = check_propensity(propensity, n, K)
            if propensity.min() <= 0:
                raise InputError("propensity", "has zero entries (an inverse propensity weight would be infinite)",
                                 "propensities in (0, 1]")
        seed = _seed(resolve_rng(self.rng, self.random_state))
        if propensity is None:
            e = cross_fit_nuisances(X, A, Y, K, [], cv=cv, nuisance=nm, rng=seed).e
        else:
            e = propensity
        e_obs = e[np.arange(n), A]
        self.a_, self.b_ = msm_weight_bounds(e_obs, gamma)
        L = sgn * Y
        self.n_arms_ = K
        self.n_features_in_ = X.shape[1]
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
        for W0 in progress(starts, desc="Kallus-Zhou policy fit (starts)", total=len(starts)):
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
    optimal weights. Valid under MSM(Gamma) but not sharp: the sharp bound of :func:`sharp_value_bounds`
    with ``policy=arm`` lies inside it.

    Parameters
    ----------
    data : ObservationalData or tuple (X, A, Y)
        Observational data.
    arm : int
        The arm a in 0..K-1 whose average potential outcome :math:`E[Y(a)]` is bounded.
    gamma : float in [1, 1e8]
        MSM sensitivity parameter: bound on the odds ratio of the true to the nominal propensity;
        1 = no unobserved confounding (the normalised IPW estimate).
    direction : {"upper", "lower"}
        Which bound.
    cv : int >= 2
        Cross-fitting folds of the propensity model.
    nuisance : str, dict or NuisanceModels, optional
        Nuisance models (only the propensity is used).
    propensity : array (n, K), optional
        Known propensities, strictly positive for the arm.
    rng : None, int or numpy Generator
        Seed.

    Returns
    -------
    Estimate

    Examples
    --------
    >>> from iclr26sci.causal import simulate_v1, zsb_apo_bound
    >>> data, _ = simulate_v1(400, gamma=2.0, rng=0)
    >>> up = zsb_apo_bound(data, 1, 2.0, cv=2, rng=0)
    >>> lo = zsb_apo_bound(data, 1, 2.0, direction="lower", cv=2, rng=0)
    >>> lo.value < up.value
    True
    """
    gamma, cv = _check_common(gamma, cv)
    check_direction(direction)
    nm = NuisanceModels.coerce(nuisance)
    X, A, Y, K, _ = _coerce_data(data, min_per_arm=cv)
    if isinstance(arm, bool) or not isinstance(arm, (int, np.integer)) or not 0 <= int(arm) < K:
        raise InputError("arm", f"got {arm!r}", f"an arm index in 0..{K - 1}")
    n = X.shape[0]
    propensity = check_propensity(propensity, n, K)
    if propensity is not None and propensity[A == int(arm), int(arm)].min() <= 0:
        raise InputError("propensity", f"is zero for arm {int(arm)} at units that received it",
                         "positive propensities of the arm received")
    if propensity is None:
        e = cross_fit_nuisances(X, A, Y, K, [], cv=cv, nuisance=nm, rng=_seed(rng)).e
    else:
        e = propensity
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
