r"""scikit-learn style estimators for the imitation learners (RS-BC, RS-KT, BC, MIMIC-MD).

They derive from :class:`sklearn.base.BaseEstimator` (so ``get_params``, ``set_params``,
``clone`` and the repr work as in scikit-learn). Parameters are stored unmodified in
``__init__`` and validated in ``fit``; fitted attributes end in ``_``. This module imports
scikit-learn, so :mod:`iclr26sci.imitation` loads it only when one of these classes is first used.

The fit signatures follow the learners' data, not scikit-learn's ``fit(X, y)``: a demonstration
set plus the known reward (RS-BC) or the known MDP (RS-KT, MIMIC-MD).
"""
from __future__ import annotations

from sklearn.base import BaseEstimator

from iclr26sci.core import check_is_fitted, resolve_rng

from ._bc import bc, rs_bc
from ._evaluate import return_distribution
from ._mimic import mimic_md
from ._rskt import rs_kt

__all__ = ["RSBC", "RSKT", "BC", "MIMICMD"]


class _PolicyLearner(BaseEstimator):
    """Shared methods of the imitation estimators (a fitted one holds ``policy_``)."""

    def return_distribution(self, mdp, reward=None, **kwargs):
        """Exact return law of the learned policy in ``mdp`` (see :func:`iclr26sci.imitation.return_distribution`).

        Parameters
        ----------
        mdp : TabularMDP
            The MDP to evaluate in (its (S, A, H) must match the training data's).
        reward : array (H, S, A) or (S, A), optional
            Evaluation reward, default the MDP's.
        **kwargs
            Passed on (``method``, ``n_rollouts``, ``max_histories``, ``rng``).
        """
        check_is_fitted(self, "policy_", method="return_distribution")
        return return_distribution(mdp, self.policy_, reward, **kwargs)

    def summary(self) -> str:
        """The estimator's parameters and, once fitted, its policy's summary."""
        head = repr(self)
        if getattr(self, "policy_", None) is None:
            return head + "\n  (not fitted)"
        return head + "\n" + "\n".join("  " + line for line in self.policy_.summary().splitlines())

    def to_dict(self) -> dict:
        """Parameters and, once fitted, the policy's plain-Python summary."""
        out = {"class": type(self).__name__, "params": self.get_params(deep=False)}
        if getattr(self, "policy_", None) is not None:
            out["policy"] = self.policy_.to_dict()
        return out


class RSBC(_PolicyLearner):
    r"""RS-BC as an estimator: counts :math:`\hat\pi_h(a|s,y) = M_h(s,y,a)/\sum_{a'} M_h(s,y,a')` (see :func:`rs_bc`).

    Parameters
    ----------
    theta : float, default 0.05
        Discretisation step of the cumulative reward :math:`y` the policy conditions on,
        :math:`0 < \theta \le` high - low. Finer is more faithful (the approximation error is at
        most :math:`H\theta` in :math:`W_1`) but spreads the demonstrations over more cells.
    reward_range : (float, float), default (0.0, 1.0)
        Declared range (low, high) of the per-step rewards.

    Attributes
    ----------
    policy_ : ReturnAugmentedPolicy
        The learned policy in :math:`\Pi(r^\theta)`.
    counts_visited_ : int
        Number of (h, s, y) cells visited by the demonstrations.
    n_demos_ : int
        Number of trajectories it was fitted on.

    Examples
    --------
    >>> from iclr26sci.imitation import RSBC, markov_insufficiency_instance
    >>> mdp, expert = markov_insufficiency_instance()
    >>> est = RSBC(theta=1.0).fit(mdp.rollout(expert, n=50, rng=0), mdp.reward)
    >>> est
    RSBC(theta=1.0)
    >>> from iclr26sci.imitation import return_distribution
    >>> est.return_distribution(mdp).wasserstein(return_distribution(mdp, expert))
    0.0
    >>> est.counts_visited_           # (h, s, y): (1, s0, 0), (2, s1, 0), (2, s2, 0), (3, s3, 0), (3, s3, 1)
    5
    """

    def __init__(self, theta: float = 0.05, reward_range=(0.0, 1.0)):
        self.theta = theta
        self.reward_range = reward_range

    def fit(self, demos, reward) -> "RSBC":
        """Count the demonstrations' (h, s, y, a) visits.

        Parameters
        ----------
        demos : Demonstrations or (states, actions)
            Expert trajectories.
        reward : array, shape (H, S, A)
            The known expert reward.
        """
        pol = rs_bc(demos, reward, self.theta, reward_range=self.reward_range)
        self.policy_ = pol
        self.counts_visited_ = pol.info["visited"]
        self.n_demos_ = pol.info["n_demos"]
        return self


class RSKT(_PolicyLearner):
    r"""RS-KT as an estimator: the policy in :math:`\Pi(r^\theta)` closest in :math:`W_1` to the
    experts' empirical return law, transitions known (see :func:`rs_kt`).

    Parameters
    ----------
    theta : float, default 0.05
        Discretisation step of the return grid; the LP has :math:`O(H/\theta)` return levels.
    method : {"colgen", "lp"}, default "colgen"
        Column generation (fast for large S) or the occupancy LP in one piece; same optimum.
    max_iter : int, default 5000
        Column-generation iteration cap.
    tol : float, default 1e-7
        Column generation stops when the most negative reduced cost is above ``-tol``.

    Attributes
    ----------
    policy_ : ReturnAugmentedPolicy
    lp_value_ : float
        The optimal :math:`W_1` (in return units) between the learned and empirical :math:`r^\theta` laws.
    eta_hat_ : DiscreteLaw
        Empirical law of the experts' :math:`r^\theta`-return.
    occupancy_ : array (H, S, Y, A)
        The optimal occupancy measure.
    n_variables_ : int
        Size of the LP solved (columns plus CDF-gap variables for column generation).

    Examples
    --------
    >>> from iclr26sci.imitation import RSKT, markov_insufficiency_instance
    >>> mdp, expert = markov_insufficiency_instance()
    >>> est = RSKT(theta=1.0).fit(mdp, mdp.rollout(expert, n=20, rng=0))
    >>> est.lp_value_, est.occupancy_.shape
    (0.0, (3, 4, 2, 2))
    """

    def __init__(self, theta: float = 0.05, method: str = "colgen", max_iter: int = 5000, tol: float = 1e-7):
        self.theta = theta
        self.method = method
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, mdp, demos) -> "RSKT":
        """Solve the RS-KT LP.

        Parameters
        ----------
        mdp : TabularMDP
            Known transitions and reward.
        demos : Demonstrations or (states, actions)
            Expert trajectories.
        """
        pol, info = rs_kt(mdp, demos, self.theta, method=self.method, return_info=True,
                          max_iter=self.max_iter, tol=self.tol)
        self.policy_ = pol
        self.lp_value_ = info["w_lp"]
        self.eta_hat_ = info["eta_hat"]
        self.occupancy_ = info["occupancy"]
        self.n_variables_ = info["n_variables"]
        return self


class BC(_PolicyLearner):
    r"""Markov behavioural cloning as an estimator: :math:`\hat\pi_h(a|s) \propto M_h(s,a)` (see :func:`bc`).

    It has no parameters. A Markov policy cannot match a non-Markovian expert's return law
    (it plateaus), which is the paper's motivation for :class:`RSBC`.

    Attributes
    ----------
    policy_ : MarkovPolicy

    Examples
    --------
    >>> from iclr26sci.imitation import BC, markov_insufficiency_instance
    >>> mdp, expert = markov_insufficiency_instance()
    >>> BC().fit(mdp.rollout(expert, n=20, rng=0)).policy_
    MarkovPolicy(S=4, A=2, H=3)
    """

    def fit(self, demos, n_states: int | None = None, n_actions: int | None = None) -> "BC":
        """Count (h, s, a) visits.

        Parameters
        ----------
        demos : Demonstrations or (states, actions)
            Expert trajectories.
        n_states, n_actions : int, optional
            S and A, needed with raw arrays.
        """
        self.policy_ = bc(demos, n_states, n_actions)
        return self


class MIMICMD(_PolicyLearner):
    r"""MIMIC-MD (Rajaraman et al., 2020) as an estimator, in its LP form (see :func:`mimic_md`).

    Parameters
    ----------
    shuffle : bool, default False
        Split the demonstrations in halves at random (with ``rng``) instead of first/second half.
    rng : seed or numpy Generator, optional
        Used when ``shuffle`` is True.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Attributes
    ----------
    policy_ : MarkovPolicy
    l1_ : float
        Optimal :math:`\ell_1` distance of the LP.

    Examples
    --------
    >>> from iclr26sci.imitation import MIMICMD, markov_insufficiency_instance
    >>> mdp, expert = markov_insufficiency_instance()
    >>> est = MIMICMD().fit(mdp, mdp.rollout(expert, n=20, rng=0))
    >>> est.policy_
    MarkovPolicy(S=4, A=2, H=3)
    """

    def __init__(self, shuffle: bool = False, rng=None, random_state=None):
        self.shuffle = shuffle
        self.rng = rng
        self.random_state = random_state

    def fit(self, mdp, demos) -> "MIMICMD":
        """Solve the MIMIC-MD LP.

        Parameters
        ----------
        mdp : TabularMDP
            Known transitions.
        demos : Demonstrations or (states, actions)
            Expert trajectories (at least 2).
        """
        self.policy_ = mimic_md(mdp, demos, shuffle=self.shuffle, rng=resolve_rng(self.rng, self.random_state))
        self.l1_ = self.policy_.info["l1"]
        return self
