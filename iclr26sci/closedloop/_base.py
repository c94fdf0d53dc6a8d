r"""The common closed-loop API: :class:`BlackBoxStimulusOptimizer`, :func:`run_loop` and :class:`LoopResult`.

A closed loop shows images to a "brain" (any callable from a batch of images to one scalar reward per
image: a simulated EEG brain, or a person wearing an EEG amplifier), and an optimiser proposes the next
images from the rewards seen so far, without any gradient from the brain:

.. math::

    R(I) = \mathrm{sim}\big(\varphi(g(I)), \varphi^*\big), \qquad \max_I R(I)\ \text{by queries of } R.

Every optimiser of :mod:`iclr26sci.closedloop` implements ``propose(k)`` (at most ``k`` images, an array of
the pool's image shape) and ``observe(images, rewards)``, with one shared reward-query counter
(``n_queries_``), the best-so-far observed reward (``history_``) and the optimiser's own wall-clock time
(``compute_seconds_``, propose plus observe, brain time excluded).

References
----------
Li, Xie, Wu, Kong, Tang, Qin, Wei, Liu (2026), MindPilot: Closed-loop visual stimulation optimization for
brain modulation with EEG-guided diffusion, ICLR 2026, arXiv:2602.10552.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Callable

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, check_array, check_in_range, check_positive_int, clone_keeping_fitted

__all__ = ["BlackBoxStimulusOptimizer", "LoopResult", "run_loop"]


# ---------------------------------------------------------------------------------------------- helpers
def _check_pool(pool, name="pool", min_rows=1) -> np.ndarray:
    """A pool of images: an array of at least 2 dimensions (n_images, *image_shape), finite."""
    if pool is None:
        raise InputError(name, "is None", "an array of images of shape (n_images, *image_shape)")
    arr = check_array(pool, name, dtype=float)
    if arr.ndim < 2:
        raise InputError(name, f"has shape {arr.shape}", "an array of images of shape (n_images, *image_shape)")
    if arr.shape[0] < min_rows:
        raise InputError(name, f"has {arr.shape[0]} images", f"at least {min_rows} images")
    return arr


def _check_generated(images, image_shape, n, name="generator") -> np.ndarray:
    """What a user's generator returned: ``n`` finite images of the pool's image shape."""
    try:
        arr = np.asarray(images, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, f"returned {type(images).__name__}, not numeric images",
                         "a callable (embeddings, rng) -> images") from None
    if arr.shape != (n, *image_shape):
        raise InputError(name, f"returned an array of shape {arr.shape} for {n} embeddings",
                         f"images of the pool's shape ({n}, {', '.join(map(str, image_shape))})")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, "returned NaN or infinite pixels", "finite images")
    return arr


def _check_images(images, image_shape, name="images") -> np.ndarray:
    """A batch of images whose shape matches the pool's image shape."""
    arr = check_array(images, name, dtype=float)
    if arr.ndim != 1 + len(image_shape) or tuple(arr.shape[1:]) != tuple(image_shape):
        raise InputError(name, f"has shape {arr.shape}",
                         f"images of the pool's shape (n, {', '.join(map(str, image_shape))})")
    return arr


def _check_rewards(rewards, n, name="rewards") -> np.ndarray:
    """One finite real reward per image."""
    try:
        arr = np.asarray(rewards, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, f"could not be read as numbers (got {type(rewards).__name__})",
                         f"{n} finite real rewards") from None
    arr = arr.reshape(-1) if arr.ndim == 2 and 1 in arr.shape else arr
    if arr.ndim != 1 or arr.shape[0] != n:
        raise InputError(name, f"has shape {np.shape(rewards)}", f"one reward per image ({n} rewards)")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, f"has {int(np.sum(~np.isfinite(arr)))} NaN or infinite values", "finite rewards")
    return arr


def _check_callable(value, name, what):
    if not callable(value):
        raise InputError(name, f"is a {type(value).__name__}, not callable", what)
    return value


def _check_rng(rng, name="rng"):
    if rng is None or isinstance(rng, (np.random.Generator, np.random.SeedSequence, np.random.BitGenerator)):
        return rng
    if isinstance(rng, (Integral, np.integer)) and not isinstance(rng, bool) and int(rng) >= 0:
        return int(rng)
    raise InputError(name, f"got {rng!r}", "None, a non-negative int seed or a numpy Generator")


def _embed(embedder, images, name="embedder") -> np.ndarray:
    z = np.asarray(embedder(images), dtype=float)
    if z.ndim != 2 or z.shape[0] != len(images):
        raise InputError(name, f"returned an array of shape {z.shape} for {len(images)} images",
                         "a callable images -> embeddings of shape (n_images, d)")
    if not np.all(np.isfinite(z)):
        raise InputError(name, "returned NaN or infinite embeddings", "finite embeddings")
    return z


# ---------------------------------------------------------------------------------------------- base class
class BlackBoxStimulusOptimizer(BaseEstimator):
    r"""Base class of the closed-loop optimisers: ``propose(k)`` images, then ``observe(images, rewards)``.

    Subclasses implement ``_start()`` (validate parameters, set up state; called on the first ``propose``
    or ``observe``), ``_propose(k)`` returning ``(images, meta)`` with at most ``k`` images, and
    ``_observe(images, rewards, meta)`` (``meta`` is what ``_propose`` returned for exactly these images,
    or ``None`` when the caller observed images that were not the last proposal). The base class keeps
    the shared query counter and the best-so-far trace

    .. math:: h_q = \max_{j \le q} r_j, \qquad q = 1, \dots, n_{\text{queries}},

    which is non-decreasing by construction, and the optimiser's own wall-clock time.

    Attributes
    ----------
    n_queries_ : int
        Rewards observed so far (brain queries).
    history_ : list of float
        Best-so-far observed reward after each query.
    best_reward_, best_image_ : float, ndarray
        The best observed reward and its image.
    compute_seconds_ : float
        Wall-clock seconds spent in ``propose`` and ``observe``.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import RandomPool
    >>> pool = np.random.default_rng(0).random((30, 4, 4))
    >>> opt = RandomPool(pool, rng=0)
    >>> imgs = opt.propose(3)
    >>> opt.observe(imgs, imgs.mean(axis=(1, 2)))
    >>> opt.n_queries_, len(opt.history_)
    (3, 3)
    """

    # ---- subclass hooks
    __sklearn_clone__ = clone_keeping_fitted     # a clone keeps the fitted embedder and generator

    def _check_params(self):
        """Validate the constructor's arguments (subclasses: called by ``__init__`` and again by ``_start``)."""
        raise InputError("optimizer", "is the abstract BlackBoxStimulusOptimizer",
                         "a subclass that implements _start/_propose/_observe (MindPilot, RandomPool, ...)")

    def _start(self):
        self._check_params()

    def _propose(self, k):  # pragma: no cover - overridden
        raise NotImplementedError

    def _observe(self, images, rewards, meta):  # pragma: no cover - overridden
        raise NotImplementedError

    def should_stop(self) -> bool:
        """Whether the optimiser's own stopping rule has fired (default: never)."""
        return False

    # ---- shared machinery
    def _ensure_started(self):
        if not getattr(self, "_started", False):
            self.n_queries_ = 0
            self.history_ = []
            self.best_reward_ = -np.inf
            self.best_image_ = None
            self.compute_seconds_ = 0.0
            self._pending = None
            self._start()
            self._started = True

    @property
    def image_shape_(self) -> tuple:
        return tuple(self.pool_.shape[1:])

    def reset(self):
        """Forget all observations (the next ``propose`` starts a fresh run with the same parameters)."""
        self._started = False
        return self

    def propose(self, k):
        """Propose at most ``k`` images to show next.

        Parameters
        ----------
        k : int >= 1
            The most images the caller will show in this batch (the remaining query budget, say).

        Returns
        -------
        ndarray of shape (m, *image_shape), 1 <= m <= k

        Examples
        --------
        >>> import numpy as np
        >>> from iclr26sci.closedloop import RandomPool
        >>> RandomPool(np.zeros((5, 2, 2)), rng=0).propose(2).shape
        (2, 2, 2)
        """
        k = check_positive_int(k, "k")
        self._ensure_started()
        t0 = time.perf_counter()
        images, meta = self._propose(k)
        images = np.asarray(images, dtype=float)[:k]
        self._pending = (images, meta)
        self.compute_seconds_ += time.perf_counter() - t0
        return images.copy()

    def observe(self, images, rewards):
        """Record the rewards of shown images (counts ``len(images)`` queries).

        Parameters
        ----------
        images : array of shape (n, *image_shape)
            The images shown (usually the last proposal).
        rewards : array of shape (n,)
            Their finite rewards (larger is better).

        Examples
        --------
        >>> import numpy as np
        >>> from iclr26sci.closedloop import RandomPool
        >>> opt = RandomPool(np.zeros((5, 2, 2)), rng=0)
        >>> opt.observe(np.zeros((1, 2, 2)), [0.5]); opt.best_reward_
        0.5
        """
        self._ensure_started()
        images = _check_images(images, self.image_shape_)
        if len(images) == 0:
            raise InputError("images", "is empty", "at least one shown image")
        rewards = _check_rewards(rewards, len(images))
        t0 = time.perf_counter()
        meta = None
        if self._pending is not None and self._pending[0].shape == images.shape \
                and np.array_equal(self._pending[0], images):
            meta = self._pending[1]
        self._pending = None
        for img, r in zip(images, rewards):
            if r > self.best_reward_:
                self.best_reward_, self.best_image_ = float(r), img.copy()
            self.history_.append(float(self.best_reward_))
        self.n_queries_ += len(rewards)
        self._observe(images, rewards, meta)
        self.compute_seconds_ += time.perf_counter() - t0

    def __repr__(self):
        base = super().__repr__()
        if getattr(self, "_started", False):
            return f"{base} [queries={self.n_queries_}, best={self.best_reward_:.4g}]"
        return base


# ---------------------------------------------------------------------------------------------- the loop
@dataclass
class LoopResult:
    r"""What :func:`run_loop` measured.

    Attributes
    ----------
    best_reward : float
        Best observed (noisy) reward.
    best_image : ndarray
        The image that obtained it.
    history : ndarray
        Best-so-far observed reward after each query (non-decreasing).
    rewards : ndarray
        Every observed reward, in presentation order.
    images : ndarray
        Every presented image, in order.
    queries : int
        Brain queries used.
    stopped_early : bool
        Whether the optimiser's stopping rule ended the loop before the budget.
    optimizer_seconds, brain_seconds : float
        Wall-clock time spent in the optimiser (propose + observe) and in the brain.
    log : list of dict
        One entry per presented stimulus: query index, batch index, reward, time stamps (seconds since the
        start) of the presentation and of the reward.
    true_rewards : ndarray or None
        Noise-free rewards of the presented images, when the brain has ``true_reward`` (simulation).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import RandomPool, run_loop
    >>> res = run_loop(RandomPool(np.eye(4)[:, :, None], rng=0), lambda x: x[:, 0, 0], query_budget=4)
    >>> res.best_reward, res.queries
    (1.0, 4)
    """

    best_reward: float
    best_image: Any
    history: np.ndarray
    rewards: np.ndarray
    images: np.ndarray
    queries: int
    stopped_early: bool
    optimizer_seconds: float
    brain_seconds: float
    log: list = field(default_factory=list)
    true_rewards: Any = None

    def __post_init__(self):
        r = check_array(self.rewards, "rewards", ndim=1)
        n = len(r)
        h = check_array(self.history, "history", ndim=1, shape=(n,))
        if n and np.any(np.diff(h) < -1e-12):
            raise InputError("history", "decreases", "the best-so-far reward after each query (non-decreasing)")
        if isinstance(self.queries, (bool, np.bool_)) or not isinstance(self.queries, (Integral, np.integer)) \
                or int(self.queries) != n:
            raise InputError("queries", f"got {self.queries!r}", f"the number of observed rewards ({n})")
        if len(np.asarray(self.images)) != n:
            raise InputError("images", f"holds {len(np.asarray(self.images))} images", f"one per reward ({n})")
        if self.true_rewards is not None:
            self.true_rewards = check_array(self.true_rewards, "true_rewards", ndim=1, shape=(n,))
        if not isinstance(self.stopped_early, (bool, np.bool_)):
            raise InputError("stopped_early", f"got {self.stopped_early!r}", "True or False")
        for nm in ("optimizer_seconds", "brain_seconds"):
            check_in_range(getattr(self, nm), nm, 0.0, None)
        self.rewards, self.history = r, h

    def _top_true(self, k):
        if self.true_rewards is None:
            return float("nan")
        order = np.argsort(-self.rewards, kind="stable")[:k]
        return float(np.mean(self.true_rewards[order]))

    @property
    def true_best(self) -> float:
        """Noise-free reward of the image with the best observed reward (NaN without ``true_rewards``)."""
        return self._top_true(1)

    @property
    def true_top5(self) -> float:
        """Mean noise-free reward of the five images with the best observed rewards."""
        return self._top_true(5)

    def queries_to(self, threshold: float, true: bool = True) -> float:
        """Queries until a presented image's reward first reaches ``threshold`` (``inf`` if never).

        Examples
        --------
        >>> import numpy as np
        >>> r = LoopResult(1.0, None, np.array([.2, 1.]), np.array([.2, 1.]), np.zeros((2, 1)), 2, False, 0., 0.)
        >>> r.queries_to(0.5, true=False)
        2.0
        """
        thr = check_in_range(threshold, "threshold")
        if not isinstance(true, (bool, np.bool_)):
            raise InputError("true", f"got {true!r}", "True or False")
        if true and self.true_rewards is None:
            raise InputError("true", "is True but the run recorded no noise-free rewards (the brain has no "
                             "true_reward)", "true=False (observed rewards), or a brain with true_reward(images)")
        vals = self.true_rewards if true else self.rewards
        hit = np.nonzero(np.asarray(vals) >= thr)[0]
        return float(hit[0] + 1) if len(hit) else float("inf")

    def __repr__(self):
        return (f"LoopResult(queries={self.queries}, best_reward={self.best_reward:.4g}, "
                f"true_best={self.true_best:.4g}, stopped_early={self.stopped_early})")

    def summary(self) -> str:
        """A few lines: queries, best and top-5 rewards, timing."""
        lines = [f"closed loop: {self.queries} queries{' (stopped early)' if self.stopped_early else ''}",
                 f"  best observed reward {self.best_reward:.4f}",
                 f"  optimiser {self.optimizer_seconds:.3f} s ({self.optimizer_seconds / max(self.queries, 1) * 1e3:.2f}"
                 f" ms/query), brain {self.brain_seconds:.3f} s"]
        if self.true_rewards is not None:
            lines.insert(2, f"  true reward of the best image {self.true_best:.4f}, top-5 mean {self.true_top5:.4f}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain numbers and lists (no images)."""
        return {"best_reward": float(self.best_reward), "queries": int(self.queries),
                "stopped_early": bool(self.stopped_early), "history": [float(h) for h in self.history],
                "rewards": [float(r) for r in self.rewards],
                "true_rewards": None if self.true_rewards is None else [float(r) for r in self.true_rewards],
                "true_best": self.true_best, "true_top5": self.true_top5,
                "optimizer_seconds": float(self.optimizer_seconds), "brain_seconds": float(self.brain_seconds)}


def run_loop(optimizer, brain, query_budget, *, batch_size=None, callback=None, rng=None) -> LoopResult:
    r"""Run a closed loop: ``propose`` -> show to ``brain`` -> ``observe``, until the query budget is spent.

    Each round asks the optimiser for at most ``min(batch_size, budget left)`` images, calls
    ``brain(images)`` once for their rewards (one reward per image, finite), and hands them back with
    ``observe``. The loop ends when the budget is spent or ``optimizer.should_stop()`` is true. Every
    presented stimulus is logged with its time stamps, so the same call runs a real experiment: ``brain``
    can be any callable images -> rewards (display the images, record EEG, compute the feature and the
    similarity to the target).

    Parameters
    ----------
    optimizer : BlackBoxStimulusOptimizer
        Any optimiser of this package (MindPilot, RandomPool, GreedyRetrieval, GPUCB, BoTorchUCB, CMAES).
    brain : callable
        ``brain(images) -> rewards``, ``images`` of shape (m, *image_shape); a :class:`SimulatedEEGBrain`
        or a lab's own function. When it has ``true_reward(images)`` the noise-free rewards are recorded.
    query_budget : int >= 1
        The most brain queries (images shown) in the whole run.
    batch_size : int >= 1, optional
        Cap on the images shown per round (default: whatever the optimiser proposes).
    callback : callable, optional
        ``callback(entry)`` after each round with the round's log entries (for live display).
    rng : ignored
        Accepted for symmetry; all randomness is the optimiser's and the brain's.

    Returns
    -------
    LoopResult

    Raises
    ------
    InputError
        A budget < 1, a brain that is not callable, or a brain returning the wrong number of rewards or
        non-finite rewards.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import RandomPool, run_loop
    >>> pool = np.random.default_rng(0).random((40, 3, 3))
    >>> res = run_loop(RandomPool(pool, rng=0), lambda x: x.mean(axis=(1, 2)), query_budget=12)
    >>> res.queries, bool(np.all(np.diff(res.history) >= 0))
    (12, True)
    """
    query_budget = check_positive_int(query_budget, "query_budget")
    _check_rng(rng)
    if not isinstance(optimizer, BlackBoxStimulusOptimizer):
        raise InputError("optimizer", f"is a {type(optimizer).__name__}", "a BlackBoxStimulusOptimizer")
    _check_callable(brain, "brain", "a callable images -> one reward per image")
    if batch_size is not None:
        batch_size = check_positive_int(batch_size, "batch_size")
    if callback is not None:
        _check_callable(callback, "callback", "a callable taking the round's log entries")
    true_fn = getattr(brain, "true_reward", None)
    t_start = time.perf_counter()
    brain_s = 0.0
    shown, rewards, trues, log = [], [], [], []
    used, round_ = 0, 0
    stopped = False
    opt_s0 = getattr(optimizer, "compute_seconds_", 0.0) if getattr(optimizer, "_started", False) else 0.0
    while used < query_budget:
        if getattr(optimizer, "_started", False) and optimizer.should_stop():
            stopped = True
            break
        k = query_budget - used if batch_size is None else min(batch_size, query_budget - used)
        images = optimizer.propose(k)
        if len(images) == 0:
            stopped = True
            break
        t_show = time.perf_counter() - t_start
        t0 = time.perf_counter()
        r = brain(images)
        brain_s += time.perf_counter() - t0
        try:
            r = _check_rewards(r, len(images), name="brain")
        except InputError as exc:
            raise InputError("brain", f"returned bad rewards for {len(images)} images ({exc.problem})",
                             f"one finite reward per image ({len(images)})") from None
        t_rew = time.perf_counter() - t_start
        if callable(true_fn):
            try:
                tr = _check_rewards(true_fn(images), len(images), name="brain")
            except InputError as exc:
                raise InputError("brain", f"true_reward returned bad rewards for {len(images)} images "
                                 f"({exc.problem})", f"one finite noise-free reward per image ({len(images)})") from None
            trues.append(tr)
        optimizer.observe(images, r)
        entries = [{"query": used + i + 1, "round": round_, "reward": float(r[i]), "shown_at": t_show,
                    "reward_at": t_rew} for i in range(len(images))]
        log.extend(entries)
        if callback is not None:
            callback(entries)
        shown.append(images)
        rewards.append(r)
        used += len(images)
        round_ += 1
    if used >= query_budget and not stopped:
        stopped = False
    allr = np.concatenate(rewards) if rewards else np.zeros(0)
    imgs = np.concatenate(shown) if shown else np.zeros((0, *optimizer.pool_.shape[1:]))
    best = int(np.argmax(allr)) if len(allr) else None
    return LoopResult(best_reward=float(allr[best]) if best is not None else float("nan"),
                      best_image=None if best is None else imgs[best], history=np.maximum.accumulate(allr),
                      rewards=allr, images=imgs, queries=used, stopped_early=stopped,
                      optimizer_seconds=float(optimizer.compute_seconds_ - opt_s0), brain_seconds=brain_s,
                      log=log, true_rewards=np.concatenate(trues) if trues else None)
