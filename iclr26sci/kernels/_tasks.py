"""Synthetic neurons (tasks) predicted by a normative theory."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from iclr26sci.core import InputError, as_generator, check_array, check_in_range, check_option, check_positive_int

__all__ = ["Task", "TheoryTaskSampler", "simulate_responses"]

#: largest expected count per trial accepted by the samplers (numpy's Poisson sampler fails above ~1e18)
MAX_RATE = 1e7


class TaskIndexError(InputError, IndexError):
    """A task index out of range: an :class:`InputError` and, for the sequence protocol, an IndexError."""


def _pair(value, name):
    if np.ndim(value) != 1 or len(value) != 2:
        raise InputError(name, f"got {value!r}", "a (low, high) pair of positive numbers")
    lo = check_in_range(value[0], name, 0.0, None, low_open=True)
    hi = check_in_range(value[1], name, lo, None)
    return lo, hi


@dataclass(frozen=True)
class Task:
    """One synthetic neuron: support (fit) and query (score) stimuli and responses.

    ``X_support`` (n, d) / ``y_support`` (n,) are the trials to fit on, ``X_query`` / ``y_query`` the
    held-out trials to score; ``filter`` is the neuron's receptive field and ``rate_*`` its expected counts.

    Examples
    --------
    >>> t = Task(np.zeros((3, 4)), np.array([0., 1., 2.]), np.zeros((2, 4)), np.array([1., 0.]), np.ones(4),
    ...          np.ones(3), np.ones(2))
    >>> t.n_support
    3
    """

    X_support: np.ndarray
    y_support: np.ndarray
    X_query: np.ndarray
    y_query: np.ndarray
    filter: np.ndarray
    rate_support: np.ndarray
    rate_query: np.ndarray

    @property
    def n_support(self) -> int:
        return len(self.y_support)


def _softplus(x):
    return np.logaddexp(0.0, x)


def simulate_responses(drive: np.ndarray, gain, offset, rate, response: str, gen) -> tuple[np.ndarray, np.ndarray]:
    """Linear-nonlinear responses to a standardised drive ``u`` (tasks, trials).

    ``response="poisson"``: :math:`y\\sim\\mathrm{Poisson}(r_0\\,\\mathrm{softplus}(a u + b))` (spike counts);
    ``response="gaussian"``: :math:`y = \\sqrt{r_0\\,\\mathrm{softplus}(a u + b)} + \\varepsilon`,
    :math:`\\varepsilon\\sim\\mathcal N(0, 1/4)` (the variance of a square-rooted Poisson count).
    Returns ``(y, expected rate)``.

    Parameters
    ----------
    drive : array (tasks, trials)
        Standardised linear drive :math:`u = w^\\top x / \\mathrm{sd}(w^\\top x)`.
    gain, offset, rate : arrays (tasks,)
        Gain :math:`a`, offset :math:`b` and peak rate :math:`r_0 > 0` of each neuron.
    response : {"poisson", "gaussian"}
    gen : numpy Generator

    Examples
    --------
    >>> y, lam = simulate_responses(np.zeros((1, 3)), np.ones(1), np.zeros(1), np.ones(1), "poisson",
    ...                             np.random.default_rng(0))
    >>> y.shape, bool(np.allclose(lam, np.log(2)))
    ((1, 3), True)
    """
    drive = check_array(drive, "drive", ndim=2)
    T = drive.shape[0]
    gain = check_array(gain, "gain", ndim=1, shape=(T,))
    offset = check_array(offset, "offset", ndim=1, shape=(T,))
    rate = check_array(rate, "rate", ndim=1, shape=(T,))
    if np.any(rate <= 0):
        raise InputError("rate", f"has non-positive values (min {rate.min():g})", "positive peak rates")
    check_option(response, "response", ["poisson", "gaussian"])
    if not isinstance(gen, np.random.Generator):
        raise InputError("gen", f"is a {type(gen).__name__}", "a numpy Generator (np.random.default_rng(seed))")
    lam = rate[:, None] * _softplus(gain[:, None] * drive + offset[:, None])
    if not np.all(np.isfinite(lam)) or lam.max(initial=0.0) > MAX_RATE:
        raise InputError("gain" if np.abs(gain).max() * np.abs(drive).max(initial=0) > 1e3 else "rate",
                         f"gives expected counts up to {lam.max():.3g} per trial",
                         f"rates and gains with expected counts below {MAX_RATE:g}")
    if response == "poisson":
        return gen.poisson(lam).astype(float), lam
    return np.sqrt(lam) + 0.5 * gen.standard_normal(lam.shape), lam


class TheoryTaskSampler(Sequence):
    """Synthetic neurons whose receptive fields are drawn from a theory.

    Each task is a linear-nonlinear neuron
    :math:`y\\sim\\mathrm{Poisson}(r_0\\,\\mathrm{softplus}(a\\,w^\\top x/\\mathrm{sd}(w^\\top x) + b))`
    with :math:`w` from ``theory.sample_filters`` (mixed as
    :math:`w_\\alpha\\propto\\alpha w + (1-\\alpha) w_{alt}` when ``mix_with``
    is given), gain :math:`a\\sim\\mathrm{LogU}(gain)`, offset
    :math:`b\\sim U(-1, 1)`, peak rate :math:`r_0\\sim\\mathrm{LogU}(rate)`;
    stimuli are random natural patches split into support and query.

    Parameters
    ----------
    theory : fitted theory with ``sample_filters`` and ``patch_size_``.
    patches : array (N, p*p) of natural patches (the stimulus pool).
    n_tasks : int
    n_support : int or sequence of int
        Support sizes; each task draws one uniformly.
    n_query : int
    response : {"poisson", "gaussian"}
    rate, gain : (low, high) ranges.
    mix_with : a second fitted theory, optional.
    alpha : float or array (n_tasks,) in [0, 1], weight of ``theory`` in the mixture.
    rng : seed.

    Examples
    --------
    >>> from iclr26sci.kernels import EfficientCodingTheory, extract_patches
    >>> from scipy.ndimage import gaussian_filter
    >>> patches = extract_patches(gaussian_filter(np.random.default_rng(0).standard_normal((64, 64)), 1.5), 6, 500,
    ...                           rng=0)
    >>> theory = EfficientCodingTheory(center_radius=1.0).fit(patches)
    >>> tasks = TheoryTaskSampler(theory, patches, n_tasks=10, n_support=(20,), n_query=10, rng=0)
    >>> len(tasks), tasks[0].X_support.shape, tasks[0].y_query.shape
    (10, (20, 36), (10,))
    """

    def __init__(self, theory, patches, n_tasks: int = 2000, n_support=(25, 50, 100, 200), n_query: int = 100,
                 response: str = "poisson", rate=(2.0, 20.0), gain=(0.5, 3.0), mix_with=None, alpha=1.0, rng=None):
        if not hasattr(theory, "sample_filters") or not hasattr(theory, "patch_size_"):
            raise InputError("theory", "is not a fitted theory", "a fitted EfficientCodingTheory or SparseCodingTheory")
        X = check_array(patches, "patches", ndim=2, min_rows=2)
        d = theory.patch_size_ ** 2
        if X.shape[1] != d:
            raise InputError("patches", f"has {X.shape[1]} pixels per patch",
                             f"{d} (the theory's {theory.patch_size_}x{theory.patch_size_} patches)")
        self.n_tasks = check_positive_int(n_tasks, "n_tasks")
        sizes = np.atleast_1d(np.asarray(n_support))
        if sizes.ndim != 1 or sizes.size == 0 or not np.issubdtype(sizes.dtype, np.integer) or np.any(sizes < 2):
            raise InputError("n_support", f"got {n_support!r}", "an integer >= 2 or a sequence of them")
        self.n_query = check_positive_int(n_query, "n_query")
        if int(sizes.max()) + self.n_query > len(X):
            raise InputError("patches", f"has {len(X)} patches",
                             f"at least n_support + n_query = {int(sizes.max()) + self.n_query}")
        self.response = check_option(response, "response", ["poisson", "gaussian"])
        rate_lo, rate_hi = _pair(rate, "rate")
        g_lo, g_hi = _pair(gain, "gain")
        if rate_hi > MAX_RATE:
            raise InputError("rate", f"goes up to {rate_hi:g} expected counts per trial", f"at most {MAX_RATE:g}")
        if g_hi > 100:
            raise InputError("gain", f"goes up to {g_hi:g} (the drive is standardised)",
                             "gains up to 100 (softplus of gain x a unit-variance drive)")
        al = np.asarray(alpha, dtype=float)
        if al.ndim > 1 or (al.ndim == 1 and len(al) != self.n_tasks):
            raise InputError("alpha", f"has shape {al.shape}", f"a number or an array of n_tasks = {self.n_tasks}")
        al = np.broadcast_to(al, (self.n_tasks,))
        if not np.all(np.isfinite(al)) or np.any(al < 0) or np.any(al > 1):
            raise InputError("alpha", "has values outside [0, 1]", "weights in [0, 1]")
        if mix_with is not None and (not hasattr(mix_with, "sample_filters")
                                     or getattr(mix_with, "patch_size_", None) != theory.patch_size_):
            raise InputError("mix_with", "is not a fitted theory on the same patch size", "a fitted theory")
        gen = as_generator(rng)
        self.patches = X
        T = self.n_tasks
        W = theory.sample_filters(T, rng=gen)
        if mix_with is not None:
            Walt = mix_with.sample_filters(T, rng=gen)
            W = al[:, None] * W + (1 - al[:, None]) * Walt
            W /= np.linalg.norm(W, axis=1, keepdims=True)
        self.alpha = al.copy()
        self.filters = W
        self.n_support_ = sizes[gen.integers(len(sizes), size=T)]
        mean = X.mean(0)
        sd_w = np.sqrt(np.einsum("ti,ij,tj->t", W, np.cov(X[: min(len(X), 20000)], rowvar=False), W))
        self.gain = np.exp(gen.uniform(np.log(g_lo), np.log(g_hi), T))
        self.offset = gen.uniform(-1.0, 1.0, T)
        self.rate = np.exp(gen.uniform(np.log(rate_lo), np.log(rate_hi), T))
        n_tot = int(sizes.max()) + self.n_query
        self.index_ = np.empty((T, n_tot), dtype=np.int64)
        self.y_ = np.empty((T, n_tot))
        self.lam_ = np.empty((T, n_tot))
        for s in range(0, T, 128):  # chunked to bound memory
            e = min(T, s + 128)
            idx = np.stack([gen.choice(len(X), n_tot, replace=False) for _ in range(e - s)])
            drive = np.einsum("tnd,td->tn", X[idx] - mean, W[s:e]) / sd_w[s:e, None]
            y, lam = simulate_responses(drive, self.gain[s:e], self.offset[s:e], self.rate[s:e], self.response, gen)
            self.index_[s:e], self.y_[s:e], self.lam_[s:e] = idx, y, lam

    def __repr__(self) -> str:
        sizes = sorted(set(int(s) for s in self.n_support_))
        return (f"TheoryTaskSampler(n_tasks={self.n_tasks}, "
                f"n_support={sizes}, n_query={self.n_query}, response={self.response!r})")

    def __len__(self) -> int:
        return self.n_tasks

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise InputError("index", f"is a {type(i).__name__} ({i!r})", "an integer task index or a slice")
        i = int(i)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise TaskIndexError("index", f"is {i} for {len(self)} tasks", f"-{len(self)} <= index < {len(self)}")
        ns = int(self.n_support_[i])
        idx = self.index_[i]
        X = self.patches[idx]
        q = slice(ns, ns + self.n_query)
        return Task(X[:ns], self.y_[i, :ns], X[q], self.y_[i, q], self.filters[i], self.lam_[i, :ns], self.lam_[i, q])

    def groups(self) -> dict[int, np.ndarray]:
        """Task indices grouped by support size (meta-training batches share one size)."""
        return {int(s): np.flatnonzero(self.n_support_ == s) for s in np.unique(self.n_support_)}
