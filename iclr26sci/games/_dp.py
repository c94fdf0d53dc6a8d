r"""Differentially private distributed equilibrium finding in polymatrix games.

RECONSTRUCTION. The paper's Algorithm 1, step sizes, noise scale and theorem
constants could not be read (only the abstract and third-party summaries of
arXiv:2503.09538 were available through the search tool). What is implemented
is the spec's reconstruction ("DP-DARP", degree-adaptive regularised proximal
dynamics), built only from the confirmed elements: Gaussian noisy strategy
sharing, proximal updates, a regulariser tied to the degrees, a privacy
guarantee against an adversary that sees a bounded number of channels, and a
vanishing expected-utility (CCE) Nash gap on dense graphs. Every constant is
a parameter.

Round :math:`t`: each player *j* sends :math:`m_j^t=x_j^t+\xi_j^t`,
:math:`\xi_j^t\sim N(0,\sigma^2 I)`, to its neighbours; each player *i* forms
:math:`\hat g_i^t=\frac1{d_i}\sum_{j\in N(i)}M_{ij}m_j^t` and updates

.. math::

    x_i^{t+1}=\arg\max_{x\in\Delta}\ \langle\hat g_i^t,x\rangle-\lambda_i\psi(x)
    -\tfrac1\eta B_\psi(x,x_i^t),\qquad \lambda_i=\lambda_0 d_i^{-a}.

Privacy accounting (exact, Gaussian DP). Fix the noise the adversary does not
observe; the messages on the observed channels are then an adaptive
composition of Gaussian mechanisms whose L2 sensitivity to one player's
payoffs is at most the simplex diameter :math:`\Delta=\sqrt2`. With ``c``
observed channels and ``T`` rounds the view is :math:`\mu`-GDP with
:math:`\mu=\Delta\sqrt{cT}/\sigma`, and :math:`(\varepsilon,\delta)` follow
from the tight GDP profile (Dong, Roth & Su 2022).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from iclr26sci.core import (
    Estimate,
    InputError,
    as_generator,
    check_array,
    check_bool,
    check_in_range,
    check_memory,
    check_option,
    check_positive_int,
    map_replicates,
    progress,
    spawn,
)

from ._game import CITATION, PolymatrixGame
from ._report import fmt, jsonable, table

__all__ = ["DPResult", "dp_equilibrium", "dp_accounting", "darp_dynamics", "ExpectedGap", "expected_nash_gap",
           "regularization"]

SQRT2 = math.sqrt(2.0)


def regularization(degree: Any, reg_scale: float = 2.0, reg_exponent: float = 1.0 / 3.0) -> np.ndarray:
    r"""Degree-adaptive regularisation weights :math:`\lambda_i=\lambda_0\,\max(d_i,1)^{-a}` (reconstruction).

    A player with many neighbours averages out more of their noise, so it needs less
    regularisation to stay stable; the weight falls with the degree like :math:`d^{-a}`.

    Parameters
    ----------
    degree : array-like of shape (N,)
        Each player's number of neighbours :math:`d_i` (non-negative; ``game.degree``).
    reg_scale : float >= 0
        :math:`\lambda_0`, the weight given to a player of degree 1 (default 2).
    reg_exponent : float >= 0
        :math:`a`, how fast the weight falls with the degree (default 1/3; 0 gives a
        constant weight :math:`\lambda_0`).

    Returns
    -------
    ndarray of shape (N,)
        The weights :math:`\lambda_i`.

    Examples
    --------
    >>> from iclr26sci.games import regularization
    >>> regularization([1, 8, 27]).round(3)
    array([2.   , 1.   , 0.667])
    """
    deg = check_array(degree, "degree", ndim=1, nonnegative=True)
    lam0 = check_in_range(reg_scale, "reg_scale", 0.0)
    a = check_in_range(reg_exponent, "reg_exponent", 0.0)
    return lam0 * np.maximum(deg, 1.0) ** (-a)


def _softmax_masked(logits: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    z = np.where(mask, logits, -np.inf)
    m = z.max(axis=-1, keepdims=True)
    logp = z - m
    logp = logp - np.log(np.sum(np.exp(logp), axis=-1, keepdims=True))
    return np.exp(logp), np.where(mask, logp, 0.0)


def darp_dynamics(game: PolymatrixGame, *, rounds: int, step_size: float, lam: Any, sigma: float,
                  regularizer: str = "entropy", noise: str = "broadcast", rng: Any = None, replicates: int = 1,
                  track: bool = True, noise_draws: np.ndarray | None = None,
                  forced: tuple[int, np.ndarray] | None = None, x0: np.ndarray | None = None,
                  watch: int | None = None) -> dict:
    r"""Run the DP-DARP dynamics for ``replicates`` independent runs at once (vectorised).

    The low-level engine behind :func:`dp_equilibrium` (which also does the privacy
    accounting). Round :math:`t`: every player sends :math:`m_j^t=x_j^t+\sigma\xi_j^t`,
    forms :math:`\hat g_i^t=\frac1{d_i}\sum_j M_{ij}m_j^t` and takes the proximal step
    :math:`x_i^{t+1}\propto\exp\big((\log x_i^t+\eta\hat g_i^t)/(1+\eta\lambda_i)\big)`.

    Parameters
    ----------
    game : PolymatrixGame
        The game whose players run the dynamics.
    rounds : int >= 1
        Number of communication rounds :math:`T`.
    step_size : float > 0
        Proximal step :math:`\eta` (how far a player moves towards its noisy best response per round).
    lam : array-like of shape (N,), entries >= 0
        Each player's regularisation weight :math:`\lambda_i` (e.g. :func:`regularization`).
    sigma : float >= 0
        Standard deviation of the Gaussian noise added to every message (0: no noise, no privacy).
    regularizer : {"entropy", "euclidean"}
        Negative entropy (multiplicative-weights step) or half the squared norm (projected step).
    noise : {"broadcast", "per_channel"}
        One noise draw per player and round, sent to all neighbours; or an independent draw on
        every directed channel.
    rng : seed or Generator
        Source of the noise (SPEC 7).
    replicates : int >= 1
        Number of independent runs computed together.
    track : bool
        Record the exact max and mean Nash gap of every iterate.
    noise_draws : array (replicates, rounds, N, Amax), optional
        Standard-normal draws to use for the broadcast noise (for audits that share noise
        between neighbouring games); drawn from ``rng`` otherwise.
    forced : (k, messages of shape (replicates, rounds, Amax)), optional
        Force player ``k``'s messages to the given values (used by the white-box privacy audit
        to evaluate the likelihood of an observed transcript under a neighbouring game).
    x0 : array (replicates, N, Amax), optional
        Starting profiles (rows on the simplices); uniform play by default.
    watch : int, optional
        Index of the player whose messages and strategies are returned (default 0, or
        ``forced[0]``).

    Returns
    -------
    dict
        ``x`` (R, N, Amax) last iterate; ``max_gap``/``mean_gap`` (R, T+1) when ``track``;
        for the watched player its messages ``sent`` and its strategies ``own`` (R, T, Amax)
        in every round.

    Examples
    --------
    >>> from iclr26sci.games import PolymatrixGame, darp_dynamics, regularization
    >>> g = PolymatrixGame.random(20, 3, rng=0)
    >>> out = darp_dynamics(g, rounds=30, step_size=1.0, lam=regularization(g.degree), sigma=0.5,
    ...                     replicates=4, rng=1)
    >>> out["x"].shape, out["max_gap"].shape
    ((4, 20, 3), (4, 31))
    >>> bool(out["max_gap"][:, -1].mean() < out["max_gap"][:, 0].mean())   # better than uniform play
    True
    """
    if not isinstance(game, PolymatrixGame):
        raise InputError("game", f"got {type(game).__name__}", "a PolymatrixGame")
    n, amax = game._n, game._amax
    rounds = check_positive_int(rounds, "rounds")
    step_size = check_in_range(step_size, "step_size", 0.0, low_open=True)
    lam = check_array(lam, "lam", ndim=1, shape=(n,), nonnegative=True)
    sigma = check_in_range(sigma, "sigma", 0.0)
    check_option(regularizer, "regularizer", ("entropy", "euclidean"))
    check_option(noise, "noise", ("broadcast", "per_channel"))
    replicates = check_positive_int(replicates, "replicates")
    track = check_bool(track, "track")
    r = replicates
    per_round = r * n * amax * 8.0 * (6 + (game._src.size / max(n, 1) if noise == "per_channel" else 0))
    check_memory(per_round + 2 * r * rounds * amax * 8.0, "replicates",
                 f"{r} replicates of a {n}-player game over {rounds} rounds")
    if noise_draws is not None:
        noise_draws = check_array(noise_draws, "noise_draws", ndim=4, shape=(r, rounds, n, amax))
        if noise != "broadcast":
            raise InputError("noise_draws", "was given with noise='per_channel'", "noise='broadcast'")
    if forced is not None:
        if not (isinstance(forced, tuple) and len(forced) == 2):
            raise InputError("forced", f"got {type(forced).__name__}", "a pair (k, messages)")
        kf = check_positive_int(forced[0], "forced", minimum=0)
        if kf >= n:
            raise InputError("forced", f"player index {kf} with {n} players", f"an index in 0..{n - 1}")
        forced = (kf, check_array(forced[1], "forced", ndim=3, shape=(r, rounds, amax)))
    if watch is not None:
        watch = check_positive_int(watch, "watch", minimum=0)
        if watch >= n:
            raise InputError("watch", f"got {watch} with {n} players", f"a player index in 0..{n - 1}")
    if x0 is not None:
        x0 = check_array(x0, "x0", ndim=3, shape=(r, n, amax), nonnegative=True)
        if np.any(x0[:, ~game._mask] != 0) or np.any(np.abs(x0.sum(axis=-1) - 1.0) > 1e-6):
            raise InputError("x0", "has rows off the simplices", "each player's row non-negative and summing to 1")
    gen = as_generator(rng)
    mask = game._mask
    lam = lam[:, None]
    x = np.broadcast_to(mask / game._acts[:, None], (r, n, amax)).copy() if x0 is None else x0.copy()
    with np.errstate(divide="ignore"):
        logx = np.where(mask, np.log(np.where(mask, x, 1.0)), 0.0)
    hist_max = np.zeros((r, rounds + 1)) if track else None
    hist_mean = np.zeros((r, rounds + 1)) if track else None
    k_watch = forced[0] if forced is not None else (0 if watch is None else int(watch))
    sent = np.zeros((r, rounds, amax))
    own = np.zeros((r, rounds, amax))
    if track:
        gp = game._gap(x, game._grad(x))
        hist_max[:, 0], hist_mean[:, 0] = gp.max(axis=1), gp.mean(axis=1)
    scale = game._scale(None)[:, None]
    work = float(r) * rounds * game._src.size * amax * amax       # flops of the payoff products
    for t in progress(range(rounds), desc="DP-DARP rounds", enabled=None if work > 2e9 else False):
        own[:, t] = x[:, k_watch]
        if noise == "broadcast":
            if noise_draws is not None:
                xi = noise_draws[:, t] * sigma
            else:
                xi = gen.standard_normal((r, n, amax)) * sigma
            msg = (x + xi) * mask
            if forced is not None:
                msg[:, forced[0]] = forced[1][:, t]
            sent[:, t] = msg[:, k_watch]
            g = game._grad(msg)
        else:  # independent noise on every directed channel j -> i
            g = game._grad(x)
            if sigma > 0:
                xi = gen.standard_normal((r, game._src.size, amax)) * sigma * mask[game._dst]
                contrib = np.einsum("eab,reb->rea", game._blocks, xi)
                noise_g = np.zeros((r, n, amax))
                for rr in range(r):
                    np.add.at(noise_g[rr], game._src, contrib[rr])
                g = g + noise_g * scale
            sent[:, t] = x[:, k_watch]
        if regularizer == "entropy":
            x, logx = _softmax_masked((logx + step_size * g) / (1.0 + step_size * lam), mask)
        else:
            from ._exact import _proj_simplex_rows

            y = (x + step_size * g) / (1.0 + step_size * lam)
            x = np.stack([_proj_simplex_rows(y[rr], mask) for rr in range(r)])
        if track:
            gp = game._gap(x, game._grad(x))
            hist_max[:, t + 1], hist_mean[:, t + 1] = gp.max(axis=1), gp.mean(axis=1)
    out = {"x": x, "sent": sent, "own": own}
    if track:
        out["max_gap"], out["mean_gap"] = hist_max, hist_mean
    return out


@dataclass(frozen=True)
class DPAccounting:
    r"""How the privacy of a DP-DARP run is accounted (returned by :func:`dp_accounting`).

    Attributes
    ----------
    mu : float
        Gaussian-DP parameter of the adversary's whole view.
    epsilon, delta : float
        The equivalent :math:`(\varepsilon, \delta)` guarantee.
    sigma : float
        Noise standard deviation per message coordinate.
    sensitivity : float
        L2 sensitivity of one message to one player's payoffs.
    observed_channels, rounds : int
        Channels the adversary reads, and rounds it reads them for.
    description : str
        The accounting argument in words.

    Examples
    --------
    >>> from iclr26sci.games import dp_accounting
    >>> acc = dp_accounting(rounds=60, noise_scale=40.0)
    >>> acc
    DPAccounting(epsilon=1.024, delta=1e-05, mu=0.2739, sigma=40, observed_channels=1, rounds=60)
    """

    mu: float
    epsilon: float
    delta: float
    sigma: float
    sensitivity: float
    observed_channels: int
    rounds: int
    description: str

    def __repr__(self) -> str:
        return (f"DPAccounting(epsilon={fmt(self.epsilon)}, delta={fmt(self.delta)}, mu={fmt(self.mu)}, "
                f"sigma={fmt(self.sigma)}, observed_channels={self.observed_channels}, rounds={self.rounds})")

    def to_dict(self) -> dict:
        """All fields as plain Python values."""
        return jsonable({f: getattr(self, f) for f in ("mu", "epsilon", "delta", "sigma", "sensitivity",
                                                        "observed_channels", "rounds", "description")})

    def summary(self) -> str:
        """A short table of the guarantee and how it was derived."""
        return table("DP-DARP privacy accounting (Gaussian DP)", [
            ("epsilon", self.epsilon), ("delta", self.delta), ("mu (GDP)", self.mu), ("sigma", self.sigma),
            ("sensitivity (L2)", self.sensitivity), ("observed channels", self.observed_channels),
            ("rounds", self.rounds)], note=self.description)


def dp_accounting(*, rounds: int, observed_channels: int = 1, sensitivity: float = SQRT2,
                  noise_scale: float | None = None, epsilon: float | None = None, delta: float = 1e-5
                  ) -> DPAccounting:
    r"""Privacy of DP-DARP's view on ``observed_channels`` channels, or the noise for a target.

    Fixing the noise the adversary does not see, the messages it reads are an adaptive
    composition of :math:`cT` Gaussian mechanisms of L2 sensitivity :math:`\Delta`, which is
    exactly :math:`\mu`-GDP (Dong, Roth & Su 2022):

    .. math:: \mu = \frac{\Delta\sqrt{c\,T}}{\sigma},\qquad
              \delta(\varepsilon)=\Phi\!\left(-\tfrac{\varepsilon}{\mu}+\tfrac{\mu}{2}\right)
              -e^{\varepsilon}\Phi\!\left(-\tfrac{\varepsilon}{\mu}-\tfrac{\mu}{2}\right).

    Parameters
    ----------
    rounds : int >= 1
        Rounds :math:`T` of the algorithm the adversary observes.
    observed_channels : int >= 1
        Number :math:`c` of directed channels the adversary reads.
    sensitivity : float > 0
        :math:`\Delta`, how far one message can move when one player's payoffs change
        (default :math:`\sqrt2`, the diameter of the simplex, valid for every game).
    noise_scale : float > 0, optional
        Noise standard deviation :math:`\sigma`; the :math:`\varepsilon` it gives at ``delta``
        is returned.
    epsilon : float > 0, optional
        Target privacy level; the :math:`\sigma` that reaches it is returned. Give exactly one
        of ``noise_scale`` and ``epsilon``.
    delta : float in (0, 1)
        The :math:`\delta` of the :math:`(\varepsilon, \delta)` guarantee.

    Returns
    -------
    DPAccounting

    References
    ----------
    .. [1] Dong, Roth & Su, "Gaussian differential privacy", JRSS-B 84(1), 2022.

    Examples
    --------
    >>> from iclr26sci.games import dp_accounting
    >>> acc = dp_accounting(rounds=60, observed_channels=1, epsilon=1.0, delta=1e-5)
    >>> round(acc.sigma, 2), round(acc.mu, 4)
    (40.87, 0.2681)
    """
    from iclr26sci.prob import GaussianAccountant, gdp_mu

    rounds = check_positive_int(rounds, "rounds")
    c = check_positive_int(observed_channels, "observed_channels")
    sens = check_in_range(sensitivity, "sensitivity", 0.0, low_open=True)
    delta = check_in_range(delta, "delta", 0.0, 1.0, low_open=True, high_open=True)
    if (noise_scale is None) == (epsilon is None):
        raise InputError("epsilon", "both or neither of epsilon and noise_scale were given",
                         "exactly one: a target epsilon, or a noise_scale")
    if epsilon is not None:
        eps = check_in_range(epsilon, "epsilon", 0.0, low_open=True)
        sigma = sens * math.sqrt(c * rounds) / gdp_mu(eps, delta)
    else:
        sigma = check_in_range(noise_scale, "noise_scale", 0.0, low_open=True)
    acc = GaussianAccountant()
    acc.add(sensitivity=sens, sigma=sigma, count=c * rounds)
    eps_out = acc.epsilon(delta)
    desc = (f"Gaussian DP: the adversary sees {c} channel(s) for {rounds} rounds = {c * rounds} Gaussian "
            f"releases of L2 sensitivity <= {sens:.4g} (simplex diameter) at noise sigma = {sigma:.4g}; fixing "
            f"the unobserved noise, adaptive composition is exactly mu-GDP with mu = {acc.mu:.4g}, converted to "
            f"(epsilon, delta) with the tight GDP profile (iclr26sci.prob.GaussianAccountant). Player outputs "
            f"are not part of the view.")
    return DPAccounting(acc.mu, eps_out, delta, sigma, sens, c, rounds, desc)


@dataclass(frozen=True, repr=False)
class DPResult:
    """Output of :func:`dp_equilibrium`.

    Attributes
    ----------
    strategies : ndarray (N, A) or list
        Last iterate (kept locally by each player).
    epsilon, delta : float
        The privacy guarantee against ``observed_channels`` channels.
    nash_gap : ndarray (N,)
        Per-player Nash gap of the output.
    history : dict
        ``max_gap``, ``mean_gap`` per round (T+1) when tracked.
    sigma, mu : float
        Noise scale and Gaussian-DP parameter.
    accounting : DPAccounting
        How the guarantee was derived.
    params : dict
        The schedule used.
    uniform_gap : float
        Max Nash gap of uniform play in the same game: the baseline a private answer must
        beat to be useful (at small N or small epsilon it does not).

    Examples
    --------
    >>> from iclr26sci.games import PolymatrixGame, dp_equilibrium
    >>> g = PolymatrixGame.random(64, 3, rng=0)
    >>> res = dp_equilibrium(g, noise_scale=1.0, rng=0)
    >>> res
    DPResult(n_players=64, epsilon=105.9, delta=1e-05, sigma=1, max_gap=0.05937, uniform_gap=0.06159)
    >>> sorted(res.to_dict())[:4]
    ['accounting', 'citation', 'delta', 'epsilon']
    """

    strategies: Any
    epsilon: float
    delta: float
    nash_gap: np.ndarray
    history: dict
    sigma: float
    mu: float
    accounting: DPAccounting
    params: dict = field(default_factory=dict)
    citation: str = CITATION
    uniform_gap: float = float("nan")

    @property
    def max_gap(self) -> float:
        """Nash gap (exploitability) of the output: the largest per-player gap."""
        return float(np.max(self.nash_gap))

    @property
    def mean_gap(self) -> float:
        """Average per-player Nash gap of the output."""
        return float(np.mean(self.nash_gap))

    def __repr__(self) -> str:
        return (f"DPResult(n_players={len(self.nash_gap)}, epsilon={fmt(self.epsilon)}, delta={fmt(self.delta)}, "
                f"sigma={fmt(self.sigma)}, max_gap={fmt(self.max_gap)}, uniform_gap={fmt(self.uniform_gap)})")

    def to_dict(self) -> dict:
        """Every field as plain Python values (arrays as lists), plus ``max_gap`` and ``mean_gap``."""
        return jsonable({"strategies": self.strategies, "epsilon": self.epsilon, "delta": self.delta,
                         "nash_gap": self.nash_gap, "max_gap": self.max_gap, "mean_gap": self.mean_gap,
                         "uniform_gap": self.uniform_gap, "history": self.history, "sigma": self.sigma,
                         "mu": self.mu, "accounting": self.accounting, "params": self.params,
                         "citation": self.citation})

    def summary(self) -> str:
        """Privacy, accuracy, and the comparison with uniform play, as a short table."""
        worse = np.isfinite(self.uniform_gap) and self.max_gap >= self.uniform_gap
        note = ("WARNING: the private profile is no better than uniform play in this game; at this "
                "(N, epsilon) the noise dominates (more players or a larger epsilon are needed)." if worse else
                "The private profile beats uniform play.") if np.isfinite(self.uniform_gap) else ""
        return table("DP-DARP equilibrium (reconstruction of arXiv:2503.09538)", [
            ("players", len(self.nash_gap)), ("epsilon", self.epsilon), ("delta", self.delta),
            ("observed channels", self.params.get("observed_channels", "")), ("sigma", self.sigma),
            ("rounds", self.params.get("rounds", "")), ("max Nash gap", self.max_gap),
            ("mean Nash gap", self.mean_gap), ("uniform play max gap", self.uniform_gap)], note=note)


def _validate_dp(game, epsilon, delta, noise_scale, observed_channels, rounds, step_size, reg_scale,
                 reg_exponent, regularizer, noise, sensitivity, track=True):
    if not isinstance(game, PolymatrixGame):
        raise InputError("game", f"got {type(game).__name__}", "a PolymatrixGame")
    delta = check_in_range(delta, "delta", 0.0, 1.0, low_open=True, high_open=True)
    if epsilon is not None:
        check_in_range(epsilon, "epsilon", 0.0, low_open=True)
        if noise_scale is not None:
            raise InputError("noise_scale", "was given together with epsilon",
                             "either a target epsilon (noise calibrated) or a noise_scale (epsilon reported)")
    if noise_scale is not None:
        check_in_range(noise_scale, "noise_scale", 0.0)
    c = check_positive_int(observed_channels, "observed_channels")
    if c > game.n_channels:
        raise InputError("observed_channels", f"got {c} but the game has only {game.n_channels} directed channels",
                         f"at most {game.n_channels}")
    check_positive_int(rounds, "rounds")
    check_in_range(step_size, "step_size", 0.0, low_open=True)
    check_in_range(reg_scale, "reg_scale", 0.0)
    check_in_range(reg_exponent, "reg_exponent", 0.0)
    check_option(regularizer, "regularizer", ("entropy", "euclidean"))
    check_option(noise, "noise", ("broadcast", "per_channel"))
    check_in_range(sensitivity, "sensitivity", 0.0, low_open=True)
    check_bool(track, "track")
    return delta, c


def dp_equilibrium(game: PolymatrixGame, epsilon: float | None = None, delta: float = 1e-5, *,
                   noise_scale: float | None = None, observed_channels: int = 1, rounds: int = 60,
                   step_size: float = 1.0, reg_scale: float = 2.0, reg_exponent: float = 1.0 / 3.0,
                   regularizer: str = "entropy", noise: str = "broadcast", sensitivity: float = SQRT2,
                   track: bool = True, rng: Any = None) -> DPResult:
    r"""Differentially private distributed equilibrium finding (DP-DARP, a labelled reconstruction).

    Each round every player broadcasts its strategy plus Gaussian noise and
    takes a degree-regularised proximal step on the noisy payoff vector:

    .. math::

        \hat g_i^t=\frac1{d_i}\sum_{j\in N(i)}M_{ij}(x_j^t+\xi_j^t),\qquad
        x_i^{t+1}\propto\exp\!\Big(\frac{\log x_i^t+\eta\hat g_i^t}{1+\eta\lambda_i}\Big),
        \qquad \lambda_i=\lambda_0 d_i^{-a}

    (entropic form; ``regularizer="euclidean"`` projects
    :math:`(x_i^t+\eta\hat g_i^t)/(1+\eta\lambda_i)` onto the simplex).

    When is the answer useful? Privacy costs accuracy: the noise needed for a given
    :math:`\varepsilon` grows with :math:`\sqrt{T}`, and it averages out over the
    :math:`d_i` neighbours, so the private profile beats uniform play only when the degree
    is large enough for the target :math:`\varepsilon`. In dense random games (ER p = 0.5,
    A = 3, T = 60) at :math:`\varepsilon = 1` it does **not** at N = 512 (max gap 0.134
    against 0.048 for uniform play); see ``docs/games.md`` for the measured
    (N, :math:`\varepsilon`) regime. ``DPResult.uniform_gap`` and ``summary()`` report the
    comparison for every run.

    Parameters
    ----------
    game : PolymatrixGame
        The game; each player's payoff blocks are its private data.
    epsilon : float > 0, optional
        Target privacy level; the noise is calibrated so that the adversary's view
        is exactly :math:`(\varepsilon,\delta)`-DP. Give this or ``noise_scale``;
        with neither the spec's schedule :math:`\sigma=0.5N^{1/4}` is used.
    delta : float in (0, 1)
        The :math:`\delta` of the guarantee (probability mass allowed to escape the
        :math:`e^\varepsilon` bound); default 1e-5.
    noise_scale : float >= 0, optional
        Noise standard deviation :math:`\sigma`; the :math:`\varepsilon` it gives
        at ``delta`` is reported (``0`` gives the noiseless dynamics, epsilon = inf).
    observed_channels : int
        Number of directed channels the adversary observes (at most ``2|E|``).
    rounds : int >= 1
        Communication rounds :math:`T` (default 60); more rounds need more noise.
    step_size : float > 0
        Proximal step :math:`\eta` (default 1).
    reg_scale : float >= 0
        :math:`\lambda_0`, regularisation of a degree-1 player (default 2): larger values
        damp the noise but bias the answer towards uniform play.
    reg_exponent : float >= 0
        :math:`a` in :math:`\lambda_i=\lambda_0 d_i^{-a}` (default 1/3).
    regularizer : {"entropy", "euclidean"}
        Entropic (multiplicative-weights) or Euclidean (projected) proximal step.
    noise : {"broadcast", "per_channel"}
        One noise draw per player and round sent to all neighbours, or an
        independent draw per channel. The accounting is the same (each
        observed channel counts as one release per round).
    sensitivity : float
        L2 sensitivity of one message to one player's payoffs; default
        :math:`\sqrt2`, the simplex diameter (valid for every game).
    track : bool
        Record the exact max/mean Nash gap of every iterate in ``history``.
    rng : seed or Generator
        Source of the noise (SPEC 7); fixed seeds give identical runs.

    Returns
    -------
    DPResult

    Examples
    --------
    At N = 256 and epsilon = 1 the noise (sigma = 41) swamps the game: the private profile
    is worse than uniform play, and ``summary()`` says so.

    >>> from iclr26sci.games import PolymatrixGame, dp_equilibrium
    >>> g = PolymatrixGame.random(256, 3, p=0.5, payoffs="zero_sum", rng=0)
    >>> res = dp_equilibrium(g, epsilon=1.0, delta=1e-5, rng=0)
    >>> round(res.sigma, 3), round(res.max_gap, 3), round(res.uniform_gap, 3)
    (40.867, 0.224, 0.062)
    >>> print(res.summary().splitlines()[-1])  # doctest: +NORMALIZE_WHITESPACE
    WARNING: the private profile is no better than uniform play in this game; at this (N, epsilon)
    the noise dominates (more players or a larger epsilon are needed).

    References
    ----------
    .. [1] Liu, Farina & Ozdaglar, "Differentially Private Equilibrium Finding in
       Polymatrix Games", ICLR 2026, arXiv:2503.09538 (Algorithm 1 not
       retrieved; this is the spec's reconstruction).
    .. [2] Dong, Roth & Su, "Gaussian differential privacy", JRSS-B 84(1), 2022.
    """
    delta, c = _validate_dp(game, epsilon, delta, noise_scale, observed_channels, rounds, step_size, reg_scale,
                            reg_exponent, regularizer, noise, sensitivity, track)
    gen = as_generator(rng)
    if epsilon is None and noise_scale is None:
        noise_scale = 0.5 * game.n_players ** 0.25
    if noise_scale is not None and float(noise_scale) == 0.0:
        acc = DPAccounting(float("inf"), float("inf"), delta, 0.0, float(sensitivity), c, rounds,
                           "noise_scale = 0: no privacy (epsilon = inf)")
    else:
        acc = dp_accounting(rounds=rounds, observed_channels=c, sensitivity=sensitivity,
                            noise_scale=noise_scale, epsilon=epsilon, delta=delta)
    lam = regularization(game._deg, reg_scale, reg_exponent)
    out = darp_dynamics(game, rounds=rounds, step_size=step_size, lam=lam, sigma=acc.sigma,
                        regularizer=regularizer, noise=noise, rng=gen, replicates=1, track=track)
    x = out["x"][0]
    gaps = game._gap(x, game._grad(x))
    u = game._mask / game._acts[:, None]
    uniform_gap = float(game._gap(u, game._grad(u)).max())
    hist = {"max_gap": out["max_gap"][0], "mean_gap": out["mean_gap"][0]} if track else {}
    params = dict(rounds=rounds, step_size=step_size, reg_scale=reg_scale, reg_exponent=reg_exponent,
                  regularizer=regularizer, noise=noise, sensitivity=sensitivity, observed_channels=c,
                  algorithm="DP-DARP (reconstruction; paper's Algorithm 1 not retrieved)")
    return DPResult(game._unpad(x), acc.epsilon, delta, gaps, hist, acc.sigma, acc.mu, acc, params,
                    uniform_gap=uniform_gap)


# ----------------------------------------------------------------------------- expected-utility gap
@dataclass(frozen=True, repr=False)
class ExpectedGap:
    r"""Monte-Carlo Nash gaps over the algorithm's randomness (returned by :func:`expected_nash_gap`).

    Attributes
    ----------
    cce_gap : Estimate
        :math:`\max_i[\max_a E\,g_i(X)_a-E\langle X_i,g_i(X)\rangle]`, the gap in expected
        utility, i.e. the CCE gap of the law of the output (jackknife standard error).
    mean_max_gap : Estimate
        :math:`E\max_i\mathrm{gap}_i(X)`, an upper bound on the CCE gap by Jensen.
    mean_mean_gap : Estimate
        The expected average per-player gap.
    epsilon, delta : float
        The privacy guarantee of every run.
    n_runs : int
        Independent runs averaged.
    uniform_gap : float
        Max gap of uniform play in the same game (the baseline to beat).

    Examples
    --------
    >>> from iclr26sci.games import PolymatrixGame, expected_nash_gap
    >>> g = PolymatrixGame.random(32, 3, rng=0)
    >>> eg = expected_nash_gap(g, n_runs=4, rng=0, noise_scale=0.5, rounds=20)
    >>> eg
    ExpectedGap(cce_gap=0.08975 (se 0.0004152), mean_max_gap=0.08975, epsilon=133.1, n_runs=4, uniform_gap=0.09492)
    """

    cce_gap: Estimate
    mean_max_gap: Estimate
    mean_mean_gap: Estimate
    epsilon: float
    delta: float
    n_runs: int
    citation: str = CITATION
    uniform_gap: float = float("nan")

    def __repr__(self) -> str:
        return (f"ExpectedGap(cce_gap={fmt(self.cce_gap.value)} (se {fmt(self.cce_gap.stderr)}), "
                f"mean_max_gap={fmt(self.mean_max_gap.value)}, epsilon={fmt(self.epsilon)}, n_runs={self.n_runs}, "
                f"uniform_gap={fmt(self.uniform_gap)})")

    def to_dict(self) -> dict:
        """The three estimates (value, stderr, ...) and the privacy level, as plain Python values."""
        return jsonable({"cce_gap": self.cce_gap, "mean_max_gap": self.mean_max_gap,
                         "mean_mean_gap": self.mean_mean_gap, "epsilon": self.epsilon, "delta": self.delta,
                         "n_runs": self.n_runs, "uniform_gap": self.uniform_gap, "citation": self.citation})

    def summary(self) -> str:
        """The estimates with standard errors, and the comparison with uniform play."""
        def est(e):
            return f"{fmt(e.value)} (se {fmt(e.stderr)})"
        worse = np.isfinite(self.uniform_gap) and self.cce_gap.value >= self.uniform_gap
        note = ("WARNING: the expected gap is no better than uniform play at this (N, epsilon)."
                if worse else "") if np.isfinite(self.uniform_gap) else ""
        return table(f"Expected Nash gap of DP-DARP over {self.n_runs} runs", [
            ("CCE (expected-utility) gap", est(self.cce_gap)), ("E max_i gap_i", est(self.mean_max_gap)),
            ("E mean_i gap_i", est(self.mean_mean_gap)), ("uniform play max gap", self.uniform_gap),
            ("epsilon", self.epsilon), ("delta", self.delta)], note=note)


def _one_run(seed, game, kwargs):
    res = dp_equilibrium(game, rng=seed, track=False, **kwargs)
    x = game._pad(res.strategies)
    return x, res.epsilon, res.delta


def _check_profiles(game: PolymatrixGame, xs: Any, name: str = "xs", atol: float = 1e-6) -> np.ndarray:
    """Validate a stack of padded profiles (R, N, Amax), R >= 1, each row on its simplex."""
    n, amax = game._n, game._amax
    arr = check_array(xs, name, ndim=3, shape=(None, n, amax), nonnegative=False)
    if arr.shape[0] == 0:
        raise InputError(name, "holds no profiles (0 runs)", f"an (R, {n}, {amax}) array with R >= 1")
    if np.any(arr < -atol):
        raise InputError(name, f"has negative probabilities (min {arr.min():.3g})", "points of the simplices")
    if np.any(arr[:, ~game._mask] != 0):
        raise InputError(name, "puts mass on actions a player does not have", "zeros in padded entries")
    dev = np.abs(arr.sum(axis=-1) - 1.0)
    if np.any(dev > atol):
        raise InputError(name, f"has rows off the simplex (largest |sum - 1| = {dev.max():.3g})",
                         "each player's row non-negative and summing to 1")
    return np.clip(arr, 0.0, None)


def cce_gap(game: PolymatrixGame, xs: Any) -> float:
    r"""Gap in expected utility of the empirical law of the profiles ``xs``.

    .. math:: \max_i\Big[\max_a \tfrac1R\sum_r g_i(x^r)_a-\tfrac1R\sum_r\langle x_i^r,g_i(x^r)\rangle\Big]

    This is the coarse-correlated-equilibrium gap of the uniform law over the R profiles:
    how much the best player could gain by committing to one fixed action instead.
    For a single profile it is its Nash gap.

    Parameters
    ----------
    game : PolymatrixGame
        The game the profiles are played in.
    xs : array of shape (R, N, Amax)
        R profiles (e.g. the outputs of R independent private runs); each player's row on
        its simplex, padded with zeros for players with fewer actions.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.games import PolymatrixGame, cce_gap
    >>> g = PolymatrixGame.random(10, 2, rng=0)
    >>> xs = np.random.default_rng(0).dirichlet(np.ones(2), size=(5, 10))
    >>> bool(cce_gap(g, xs) <= max(g.nash_gap(x).max() for x in xs))   # Jensen
    True
    """
    if not isinstance(game, PolymatrixGame):
        raise InputError("game", f"got {type(game).__name__}", "a PolymatrixGame")
    xs = _check_profiles(game, xs)
    return _cce_gap(game, xs)


def _cce_gap(game: PolymatrixGame, xs: np.ndarray) -> float:
    g = game._grad(xs)
    eg = g.mean(axis=0)
    eu = np.sum(xs * g, axis=-1).mean(axis=0)
    best = np.where(game._mask, eg, -np.inf).max(axis=1)
    return float(np.max(np.maximum(best - eu, 0.0)))


_DP_KWARGS = ("epsilon", "delta", "noise_scale", "observed_channels", "rounds", "step_size", "reg_scale",
              "reg_exponent", "regularizer", "noise", "sensitivity")


def expected_nash_gap(game: PolymatrixGame, n_runs: int = 20, *, rng: Any = None, executor: Any = "serial",
                      n_workers: int | None = None, **dp_kwargs) -> ExpectedGap:
    r"""Expected-utility (CCE) Nash gap of :func:`dp_equilibrium` by Monte Carlo over ``n_runs`` runs.

    .. math::

        \mathrm{EGap}=\max_i\Big[\max_a \widehat E\,g_i(X)_a-\widehat E\,\langle X_i,g_i(X)\rangle\Big]
        \ \le\ \widehat E\max_i \mathrm{gap}_i(X).

    Runs are independent replicates with child seeds of ``rng``, dispatched by
    :func:`iclr26sci.core.map_replicates`; the result does not depend on the executor.

    Parameters
    ----------
    game : PolymatrixGame
        The game.
    n_runs : int >= 2
        Independent private runs averaged (the Monte-Carlo sample size).
    rng : seed or Generator
        Master seed; run r uses its r-th child seed.
    executor : {"serial", "local", "dask"} or dask Client
        Where the runs execute (see :func:`iclr26sci.core.map_replicates`).
    n_workers : int, optional
        Processes for the local or dask executor.
    **dp_kwargs
        Any of :func:`dp_equilibrium`'s arguments (``epsilon``, ``noise_scale``, ``rounds``, ...),
        except ``rng`` and ``track``.

    Returns
    -------
    ExpectedGap

    Examples
    --------
    >>> from iclr26sci.games import PolymatrixGame, expected_nash_gap
    >>> g = PolymatrixGame.random(32, 3, rng=0)
    >>> eg = expected_nash_gap(g, n_runs=4, rng=0, noise_scale=0.5, rounds=20)
    >>> bool(eg.cce_gap.value <= eg.mean_max_gap.value)
    True
    """
    if not isinstance(game, PolymatrixGame):
        raise InputError("game", f"got {type(game).__name__}", "a PolymatrixGame")
    r = check_positive_int(n_runs, "n_runs", minimum=2)
    if "track" in dp_kwargs or "rng" in dp_kwargs:
        bad = "track" if "track" in dp_kwargs else "rng"
        raise InputError("dp_kwargs", f"sets `{bad}`, which may not be set through dp_kwargs "
                         "(rng is the master seed argument)", "other dp_equilibrium arguments")
    unknown = [k for k in dp_kwargs if k not in _DP_KWARGS]
    if unknown:
        raise InputError("dp_kwargs", f"has `{unknown[0]}`, which is not an argument of dp_equilibrium",
                         "one of " + ", ".join(_DP_KWARGS))
    # validate once, before any work
    _validate_dp(game, dp_kwargs.get("epsilon"), dp_kwargs.get("delta", 1e-5), dp_kwargs.get("noise_scale"),
                 dp_kwargs.get("observed_channels", 1), dp_kwargs.get("rounds", 60), dp_kwargs.get("step_size", 1.0),
                 dp_kwargs.get("reg_scale", 2.0), dp_kwargs.get("reg_exponent", 1 / 3),
                 dp_kwargs.get("regularizer", "entropy"), dp_kwargs.get("noise", "broadcast"),
                 dp_kwargs.get("sensitivity", SQRT2))
    seeds = spawn(rng, r)
    outs = map_replicates(functools.partial(_one_run, game=game, kwargs=dp_kwargs), seeds, executor=executor,
                          n_workers=n_workers, desc="DP-DARP runs")
    xs = np.stack([o[0] for o in outs])
    eps, dl = outs[0][1], outs[0][2]
    g = game._grad(xs)
    gaps = game._gap(xs, g)                     # (R, N)
    maxg, meang = gaps.max(axis=1), gaps.mean(axis=1)
    cce = _cce_gap(game, xs)
    jk = np.array([_cce_gap(game, np.delete(xs, k, axis=0)) for k in range(r)]) if r <= 200 else None
    se = float(np.sqrt((r - 1) / r * np.sum((jk - jk.mean()) ** 2))) if jk is not None else float("nan")
    u = game._mask / game._acts[:, None]
    return ExpectedGap(
        Estimate(cce, se, name="CCE (expected-utility) Nash gap", n=r, citation=CITATION),
        Estimate(maxg.mean(), maxg.std(ddof=1) / math.sqrt(r), name="E max_i gap_i", n=r, citation=CITATION),
        Estimate(meang.mean(), meang.std(ddof=1) / math.sqrt(r), name="E mean_i gap_i", n=r, citation=CITATION),
        float(eps), float(dl), r, uniform_gap=float(game._gap(u, game._grad(u)).max()))
