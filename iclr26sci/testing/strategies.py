"""Hypothesis strategies for the objects of iclr26sci, with bounded sizes and reproducible draws.

Every strategy draws small integers (sizes, a seed) with hypothesis and builds the object with a numpy
``Generator`` seeded from the drawn seed, so a failing example is reproduced exactly by hypothesis'
shrinking and by its printed seed. Sizes are bounded for fast tests; widen them with the arguments.

Examples
--------
>>> from hypothesis import given, settings
>>> from iclr26sci.testing import strategies as st
>>> @settings(max_examples=5, derandomize=True, database=None)
... @given(st.psd_matrices(dim=3))
... def test_psd(S):
...     assert np.linalg.eigvalsh(S).min() > 0
>>> test_psd()
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as hs

__all__ = ["seeds", "polymatrix_games", "confounded_data", "ConfoundedProblem", "tabular_mdps", "rotations",
           "rigid_transforms", "cameras", "psd_matrices", "simplex_points", "reward_groups", "gaussian_tilts",
           "GaussianTilt"]

_MAX_SEED = 2 ** 32 - 1


def seeds() -> hs.SearchStrategy:
    """Seeds for ``numpy.random.default_rng`` (integers in [0, 2^32)).

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=3, derandomize=True, database=None)
    ... @given(seeds())
    ... def t(s):
    ...     assert 0 <= s < 2 ** 32
    >>> t()
    """
    return hs.integers(0, _MAX_SEED)


def _size(v, name, low=1):
    from iclr26sci.core import InputError

    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        v = (v, v)
    try:
        lo, hi = (int(x) for x in v)
    except (TypeError, ValueError):
        raise InputError(name, f"got {v!r}", f"an int >= {low} or a (low, high) pair") from None
    if lo < low or hi < lo:
        raise InputError(name, f"got {v!r}", f"an int >= {low} or a pair low <= high with low >= {low}")
    return hs.integers(lo, hi)


def polymatrix_games(n_players=(2, 6), n_actions=(2, 4), payoffs=("zero_sum", "uniform", "private_values",
                                                                 "coordination"),
                     graphs=("complete", "erdos_renyi", "circulant")):
    """Random :class:`iclr26sci.games.PolymatrixGame` instances.

    Parameters
    ----------
    n_players, n_actions : int or (low, high)
        Bounds on N and A.
    payoffs : sequence of {"zero_sum", "uniform", "private_values", "coordination"}
        Payoff families to draw from (``PolymatrixGame.random``'s ``payoffs``).
    graphs : sequence of {"complete", "erdos_renyi", "circulant"}
        Graph families; ``"circulant"`` is a sparse ring (degree 2; degree 4 when N >= 5).

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=5, derandomize=True, database=None)
    ... @given(polymatrix_games(payoffs=("zero_sum",)))
    ... def t(g):
    ...     assert g.is_pairwise_zero_sum()
    >>> t()
    """
    from iclr26sci.games import PolymatrixGame

    sn, sa = _size(n_players, "n_players"), _size(n_actions, "n_actions", 2)

    @hs.composite
    def _draw(draw):
        n = draw(sn)
        a = draw(sa)
        kind = draw(hs.sampled_from(list(payoffs)))
        graph = draw(hs.sampled_from(list(graphs)))
        seed = draw(seeds())
        if graph == "circulant" and n < 3:
            graph = "complete"
        kw = {}
        if graph == "circulant":
            kw["degree"] = 4 if n >= 5 else 2
        if graph == "erdos_renyi":
            kw["p"] = draw(hs.sampled_from([0.3, 0.6, 1.0]))
        return PolymatrixGame.random(n, a, graph=graph, payoffs=kind, rng=seed, **kw)
    return _draw()


@dataclass(frozen=True)
class ConfoundedProblem:
    """Observational data from the marginal sensitivity model with its known sharp CAPO bounds.

    Attributes
    ----------
    data : ObservationalData
    truth : dict (``Y_potential``, ``m``, ``s``, ``e``, ``xbar``)
    gamma : float
    capo_lower, capo_upper : ndarray (n, 2)
        The true sharp lower / upper bounds of E[Y(a) | x] at ``gamma`` for each unit and arm.
    seed : int

    Examples
    --------
    >>> from iclr26sci.causal import simulate_v1, v1_capo_bound
    >>> data, truth = simulate_v1(20, 2.0, rng=0)
    >>> p = ConfoundedProblem(data, truth, 2.0, v1_capo_bound(truth["xbar"], 2.0, "lower"),
    ...                       v1_capo_bound(truth["xbar"], 2.0), 0)
    >>> bool((p.capo_lower <= p.capo_upper).all())
    True
    """

    data: Any
    truth: dict
    gamma: float
    capo_lower: np.ndarray
    capo_upper: np.ndarray
    seed: int


def confounded_data(n=(50, 300), gamma=(1.0, 4.0), law=("extremal", "benign"), d=(1, 3)):
    """Confounded observational data (validation DGP V1 of :mod:`iclr26sci.causal`) with known sharp bounds.

    Parameters
    ----------
    n : int or (low, high)
        Units.
    gamma : float or (low, high)
        MSM sensitivity parameter Γ >= 1 (the bounds are sharp at this Γ).
    law : sequence of {"extremal", "benign"}
        ``"extremal"`` attains the upper bound; ``"benign"`` has no confounding.
    d : int or (low, high)
        Covariates.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=3, derandomize=True, database=None)
    ... @given(confounded_data(n=(30, 60)))
    ... def t(p):
    ...     assert (p.capo_lower <= p.truth["m"] + 1e-9).all() and (p.truth["m"] <= p.capo_upper + 1e-9).all()
    >>> t()
    """
    from iclr26sci.causal import simulate_v1, v1_capo_bound

    @hs.composite
    def _draw(draw):
        nn = draw(_size(n, "n"))
        g = float(gamma) if isinstance(gamma, (int, float)) else draw(hs.floats(float(gamma[0]), float(gamma[1])))
        lw = draw(hs.sampled_from(list(law)))
        dd = draw(_size(d, "d"))
        seed = draw(seeds())
        data, truth = simulate_v1(nn, g, law=lw, direction="upper", d=dd, rng=seed)
        lo = v1_capo_bound(truth["xbar"], g, "lower")
        hi = v1_capo_bound(truth["xbar"], g, "upper")
        return ConfoundedProblem(data, truth, g, lo, hi, seed)
    return _draw()


def tabular_mdps(n_states=(2, 5), n_actions=(2, 3), horizon=(2, 4), expert=("markov", "risk_sensitive"),
                 sparsity=(0.0, 0.7)):
    """A random :class:`iclr26sci.imitation.TabularMDP` and an expert policy on it.

    Parameters
    ----------
    n_states, n_actions, horizon : int or (low, high)
    expert : sequence of {"markov", "risk_sensitive", "nonmarkov"}
        ``"markov"``: Dirichlet-random Markov expert; ``"risk_sensitive"``: the CVaR(0.2)-optimal expert;
        ``"nonmarkov"``: a random history-dependent expert.
    sparsity : sequence of float
        Values of the probability that a transition row is deterministic.

    Returns
    -------
    (mdp, expert) : (TabularMDP, Policy)

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=3, derandomize=True, database=None)
    ... @given(tabular_mdps(expert=("markov",)))
    ... def t(pair):
    ...     mdp, pi = pair
    ...     assert mdp.n_states >= 2
    >>> t()
    """
    from iclr26sci.imitation import (TabularMDP, random_markov_expert, random_nonmarkov_expert,
                                     risk_sensitive_expert)

    @hs.composite
    def _draw(draw):
        S = draw(_size(n_states, "n_states"))
        A = draw(_size(n_actions, "n_actions"))
        H = draw(_size(horizon, "horizon"))
        sp = draw(hs.sampled_from(list(sparsity)))
        kind = draw(hs.sampled_from(list(expert)))
        seed = draw(seeds())
        gen = np.random.default_rng(seed)
        mdp = TabularMDP.random(S, A, H, reward_grid=0.1, sparsity=sp, rng=gen)
        if kind == "markov":
            pi = random_markov_expert(mdp, rng=gen)
        elif kind == "nonmarkov":
            pi = random_nonmarkov_expert(mdp, rng=gen)
        else:
            pi = risk_sensitive_expert(mdp, 0.2)
        return mdp, pi
    return _draw()


def _rot(gen):
    q = gen.standard_normal(4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def rotations() -> hs.SearchStrategy:
    """Uniform (Haar) rotation matrices in SO(3), float64 (3, 3), from a normalised Gaussian quaternion.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=5, derandomize=True, database=None)
    ... @given(rotations())
    ... def t(R):
    ...     assert np.allclose(R @ R.T, np.eye(3)) and np.isclose(np.linalg.det(R), 1.0)
    >>> t()
    """
    return seeds().map(lambda s: _rot(np.random.default_rng(s)))


def rigid_transforms(max_translation: float = 5.0) -> hs.SearchStrategy:
    """Rigid transforms in SE(3) as 4x4 homogeneous matrices (uniform rotation, translation in a box).

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=3, derandomize=True, database=None)
    ... @given(rigid_transforms())
    ... def t(T):
    ...     assert T.shape == (4, 4) and np.allclose(T[3], [0, 0, 0, 1])
    >>> t()
    """
    def build(s):
        gen = np.random.default_rng(s)
        T = np.eye(4)
        T[:3, :3] = _rot(gen)
        T[:3, 3] = gen.uniform(-max_translation, max_translation, 3)
        return T
    return seeds().map(build)


def cameras(width=(16, 64), height=(16, 64), distance=(2.0, 8.0)):
    """Pinhole :class:`iclr26sci.geom.Camera` objects looking at the origin from a random direction.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import torch
    >>> @settings(max_examples=3, derandomize=True, database=None)
    ... @given(cameras())
    ... def t(cam):
    ...     uv, z = cam.project(torch.zeros(1, 3, dtype=torch.float64))
    ...     assert float(z[0]) > 0
    >>> t()
    """
    import torch

    from iclr26sci.geom import Camera

    @hs.composite
    def _draw(draw):
        w = draw(_size(width, "width"))
        h = draw(_size(height, "height"))
        gen = np.random.default_rng(draw(seeds()))
        dist = gen.uniform(*distance)
        v = gen.standard_normal(3)
        v /= np.linalg.norm(v)
        up = np.cross(v, gen.standard_normal(3))
        up /= np.linalg.norm(up)
        f = gen.uniform(0.8, 1.5) * max(w, h)
        return Camera.look_at((dist * v).tolist(), [0.0, 0.0, 0.0], up=up.tolist(), fx=f, fy=f, width=w, height=h,
                              dtype=torch.float64)
    return _draw()


@hs.composite
def psd_matrices(draw, dim=(1, 6), max_condition: float = 1e4, singular: bool = False):
    """Symmetric positive-definite matrices with a bounded condition number (or PSD with ``singular``).

    The eigenvalues are log-uniform in ``[1, max_condition]`` (one set to 0 when ``singular``), rotated
    by a random orthogonal matrix.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=3, derandomize=True, database=None)
    ... @given(psd_matrices(dim=4, max_condition=100.0))
    ... def t(S):
    ...     ev = np.linalg.eigvalsh(S)
    ...     assert ev.min() > 0 and ev.max() / ev.min() <= 100.0 + 1e-6
    >>> t()
    """
    d = draw(_size(dim, "dim"))
    gen = np.random.default_rng(draw(seeds()))
    ev = np.exp(gen.uniform(0.0, np.log(max_condition), d))
    ev[0] = 1.0
    if singular:
        ev[-1] = 0.0
    Q, _ = np.linalg.qr(gen.standard_normal((d, d)))
    S = (Q * ev) @ Q.T
    return (S + S.T) / 2


@hs.composite
def simplex_points(draw, dim=(2, 6), concentration=(0.1, 1.0, 10.0), allow_zeros: bool = False):
    """Points on the probability simplex (Dirichlet draws; optionally with exact zeros).

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=3, derandomize=True, database=None)
    ... @given(simplex_points())
    ... def t(p):
    ...     assert np.isclose(p.sum(), 1.0) and (p >= 0).all()
    >>> t()
    """
    k = draw(_size(dim, "dim"))
    a = draw(hs.sampled_from(list(concentration)))
    gen = np.random.default_rng(draw(seeds()))
    p = gen.dirichlet(np.full(k, a))
    if allow_zeros and k > 1 and draw(hs.booleans()):
        p[gen.integers(k)] = 0.0
        p = p / p.sum()
    return p


@hs.composite
def reward_groups(draw, n_groups=(1, 8), group_size=(2, 16), kind=("binary", "continuous"), scale=(1.0, 10.0)):
    """RS-GRPO reward groups: a ``(n_groups, G)`` array of rewards per prompt.

    ``"binary"``: Bernoulli rewards with a per-prompt success rate (ties and all-equal groups included);
    ``"continuous"``: Gaussian rewards times a drawn scale.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from iclr26sci.rl import rs_advantage
    >>> @settings(max_examples=5, derandomize=True, database=None)
    ... @given(reward_groups())
    ... def t(r):
    ...     assert np.allclose(rs_advantage(r, beta=2.0).sum(1), 0.0, atol=1e-9)
    >>> t()
    """
    n = draw(_size(n_groups, "n_groups"))
    G = draw(_size(group_size, "group_size"))
    k = draw(hs.sampled_from(list(kind)))
    gen = np.random.default_rng(draw(seeds()))
    if k == "binary":
        p = gen.uniform(0, 1, n)
        return (gen.random((n, G)) < p[:, None]).astype(float)
    s = draw(hs.sampled_from(list(scale)))
    return s * gen.standard_normal((n, G))


@dataclass(frozen=True)
class GaussianTilt:
    """A Gaussian base law N(mean, var I) tilted by exp(lam r) with a linear (``a``) or quadratic (``c``) reward.

    The closed-form tilted law and optimal value come from :func:`iclr26sci.generative.gaussian_tilt_value`.

    Examples
    --------
    >>> p = GaussianTilt(np.zeros(2), 1.0, 2.0, a=np.ones(2), c=None, seed=0)
    >>> p.tilt_mean().tolist()
    [2.0, 2.0]
    """

    mean: np.ndarray
    var: float
    lam: float
    a: np.ndarray | None
    c: np.ndarray | None
    seed: int

    def tilt_mean(self) -> np.ndarray:
        """Mean of the tilted law."""
        return self._tilt()[1]

    def tilt_var(self) -> float:
        """Isotropic variance of the tilted law."""
        return self._tilt()[2]

    def _tilt(self):
        from iclr26sci.generative import gaussian_tilt_value

        kw = {"a": self.a} if self.a is not None else {"c": self.c}
        return gaussian_tilt_value(np.zeros((1, self.mean.size)), 0.0, self.mean, self.var, self.lam, **kw)


@hs.composite
def gaussian_tilts(draw, dim=(1, 4), reward=("linear", "quadratic")):
    """Gaussian tilt problems with known tilted law (value matching's closed-form test bed).

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=3, derandomize=True, database=None)
    ... @given(gaussian_tilts(reward=("quadratic",)))
    ... def t(p):
    ...     assert p.tilt_var() < p.var      # a quadratic reward concentrates the law
    >>> t()
    """
    d = draw(_size(dim, "dim"))
    kind = draw(hs.sampled_from(list(reward)))
    seed = draw(seeds())
    gen = np.random.default_rng(seed)
    mean = gen.standard_normal(d)
    var = float(np.exp(gen.uniform(np.log(0.1), np.log(4.0))))
    lam = float(np.exp(gen.uniform(np.log(0.1), np.log(5.0))))
    vec = gen.standard_normal(d)
    return GaussianTilt(mean, var, lam, vec if kind == "linear" else None, vec if kind == "quadratic" else None, seed)
