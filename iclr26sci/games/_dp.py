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
    check_in_range,
    check_option,
    check_positive_int,
    map_replicates,
    spawn,
)

from ._game import CITATION, PolymatrixGame

__all__ = ["DPResult", "dp_equilibrium", "dp_accounting", "darp_dynamics", "ExpectedGap", "expected_nash_gap",
           "regularization"]

SQRT2 = math.sqrt(2.0)


def regularization(degree: np.ndarray, reg_scale: float = 2.0, reg_exponent: float = 1.0 / 3.0) -> np.ndarray:
    r"""Degree-adaptive regularisation :math:`\lambda_i=\lambda_0\,\max(d_i,1)^{-a}` (reconstruction)."""
    return reg_scale * np.maximum(np.asarray(degree, dtype=float), 1.0) ** (-reg_exponent)


def _softmax_masked(logits: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    z = np.where(mask, logits, -np.inf)
    m = z.max(axis=-1, keepdims=True)
    logp = z - m
    logp = logp - np.log(np.sum(np.exp(logp), axis=-1, keepdims=True))
    return np.exp(logp), np.where(mask, logp, 0.0)


def darp_dynamics(game: PolymatrixGame, *, rounds: int, step_size: float, lam: np.ndarray, sigma: float,
                  regularizer: str = "entropy", noise: str = "broadcast", rng: Any = None, replicates: int = 1,
                  track: bool = True, noise_draws: np.ndarray | None = None,
                  forced: tuple[int, np.ndarray] | None = None, x0: np.ndarray | None = None,
                  watch: int | None = None) -> dict:
    r"""Run the DP-DARP dynamics for ``replicates`` independent runs at once (vectorised).

    Parameters
    ----------
    noise_draws : array (R, T, N, Amax), optional
        Standard-normal draws to use for the broadcast noise (for audits that
        share noise between neighbouring games); drawn from ``rng`` otherwise.
    forced : (k, messages (R, T, Amax)), optional
        Force player ``k``'s messages to the given values (used by the
        white-box privacy audit to evaluate the likelihood of an observed
        transcript under a neighbouring game).

    Returns
    -------
    dict with ``x`` (R, N, Amax) last iterate, ``messages_k`` when forced,
    ``max_gap``/``mean_gap`` (R, T+1) when ``track``, and for the watched
    player (``forced[0]``, else ``watch``, else player 0) its messages ``sent`` and its
    strategies ``own`` (R, T, Amax) in every round.
    """
    gen = as_generator(rng)
    n, amax = game._n, game._amax
    mask = game._mask
    r = replicates
    lam = np.asarray(lam, dtype=float)[:, None]
    x = np.broadcast_to(mask / game._acts[:, None], (r, n, amax)).copy() if x0 is None else x0.copy()
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
    for t in range(rounds):
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
    """How the privacy of a DP-DARP run is accounted."""

    mu: float
    epsilon: float
    delta: float
    sigma: float
    sensitivity: float
    observed_channels: int
    rounds: int
    description: str


def dp_accounting(*, rounds: int, observed_channels: int = 1, sensitivity: float = SQRT2,
                  noise_scale: float | None = None, epsilon: float | None = None, delta: float = 1e-5
                  ) -> DPAccounting:
    r"""Privacy of DP-DARP's view on ``observed_channels`` channels, or the noise for a target.

    .. math:: \mu = \frac{\Delta\sqrt{c\,T}}{\sigma},\qquad
              \delta(\varepsilon)=\Phi\!\left(-\tfrac{\varepsilon}{\mu}+\tfrac{\mu}{2}\right)
              -e^{\varepsilon}\Phi\!\left(-\tfrac{\varepsilon}{\mu}-\tfrac{\mu}{2}\right).

    Give exactly one of ``noise_scale`` (returns the :math:`\varepsilon` at
    ``delta``) and ``epsilon`` (returns the calibrated :math:`\sigma`).
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


@dataclass(frozen=True)
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
    params : dict
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

    @property
    def max_gap(self) -> float:
        return float(np.max(self.nash_gap))


def _validate_dp(game, epsilon, delta, noise_scale, observed_channels, rounds, step_size, reg_scale,
                 reg_exponent, regularizer, noise, sensitivity):
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

    Parameters
    ----------
    game : PolymatrixGame
    epsilon : float, optional
        Target privacy; the noise is calibrated so that the adversary's view
        is exactly :math:`(\varepsilon,\delta)`-DP. Give this or ``noise_scale``;
        with neither the spec's schedule :math:`\sigma=0.5N^{1/4}` is used.
    delta : float in (0, 1)
    noise_scale : float, optional
        Noise standard deviation :math:`\sigma`; the :math:`\varepsilon` it gives
        at ``delta`` is reported (``0`` gives the noiseless dynamics, epsilon = inf).
    observed_channels : int
        Number of directed channels the adversary observes (at most ``2|E|``).
    rounds, step_size, reg_scale, reg_exponent : schedule (:math:`T,\eta,\lambda_0,a`),
        reconstruction defaults ``60, 1, 2, 1/3``.
    regularizer : {"entropy", "euclidean"}
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

    Returns
    -------
    DPResult

    References
    ----------
    .. [1] Liu, Farina & Ozdaglar, "Differentially Private Equilibrium Finding in
       Polymatrix Games", ICLR 2026, arXiv:2503.09538 (Algorithm 1 not
       retrieved; this is the spec's reconstruction).
    .. [2] Dong, Roth & Su, "Gaussian differential privacy", JRSS-B 84(1), 2022.
    """
    delta, c = _validate_dp(game, epsilon, delta, noise_scale, observed_channels, rounds, step_size, reg_scale,
                            reg_exponent, regularizer, noise, sensitivity)
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
                        regularizer=regularizer, noise=noise, rng=rng, replicates=1, track=track)
    x = out["x"][0]
    gaps = game._gap(x, game._grad(x))
    hist = {"max_gap": out["max_gap"][0], "mean_gap": out["mean_gap"][0]} if track else {}
    params = dict(rounds=rounds, step_size=step_size, reg_scale=reg_scale, reg_exponent=reg_exponent,
                  regularizer=regularizer, noise=noise, sensitivity=sensitivity, observed_channels=c,
                  algorithm="DP-DARP (reconstruction; paper's Algorithm 1 not retrieved)")
    return DPResult(game._unpad(x), acc.epsilon, delta, gaps, hist, acc.sigma, acc.mu, acc, params)


# ----------------------------------------------------------------------------- expected-utility gap
@dataclass(frozen=True)
class ExpectedGap:
    r"""Monte-Carlo Nash gaps over the algorithm's randomness.

    ``cce_gap`` estimates :math:`\max_i[\max_a E\,g_i(X)_a-E\langle X_i,g_i(X)\rangle]`
    (the gap in expected utility, i.e. the CCE gap of the law of the output);
    ``mean_max_gap`` estimates :math:`E\max_i\mathrm{gap}_i(X)` (an upper
    bound, by Jensen); ``mean_mean_gap`` the expected average gap.
    Standard errors: jackknife over runs for ``cce_gap``, sample SE otherwise.
    """

    cce_gap: Estimate
    mean_max_gap: Estimate
    mean_mean_gap: Estimate
    epsilon: float
    delta: float
    n_runs: int
    citation: str = CITATION


def _one_run(seed, game, kwargs):
    res = dp_equilibrium(game, rng=seed, track=False, **kwargs)
    x = game._pad(res.strategies)
    return x, res.epsilon, res.delta


def cce_gap(game: PolymatrixGame, xs: np.ndarray) -> float:
    """Gap in expected utility of the empirical law of profiles ``xs`` (R, N, Amax) (padded)."""
    g = game._grad(xs)
    eg = g.mean(axis=0)
    eu = np.sum(xs * g, axis=-1).mean(axis=0)
    best = np.where(game._mask, eg, -np.inf).max(axis=1)
    return float(np.max(np.maximum(best - eu, 0.0)))


def expected_nash_gap(game: PolymatrixGame, n_runs: int = 20, *, rng: Any = None, executor: Any = "serial",
                      n_workers: int | None = None, **dp_kwargs) -> ExpectedGap:
    r"""Expected-utility (CCE) Nash gap of :func:`dp_equilibrium` by Monte Carlo over ``n_runs`` runs.

    .. math::

        \mathrm{EGap}=\max_i\Big[\max_a \widehat E\,g_i(X)_a-\widehat E\,\langle X_i,g_i(X)\rangle\Big]
        \ \le\ \widehat E\max_i \mathrm{gap}_i(X).

    Runs are independent replicates with child seeds of ``rng``, dispatched by
    :func:`iclr26sci.core.map_replicates` (``executor="serial"``, ``"local"``,
    ``"dask"`` or a Client); the result does not depend on the executor.
    """
    if not isinstance(game, PolymatrixGame):
        raise InputError("game", f"got {type(game).__name__}", "a PolymatrixGame")
    r = check_positive_int(n_runs, "n_runs", minimum=2)
    if "track" in dp_kwargs or "rng" in dp_kwargs:
        raise InputError("dp_kwargs", "may not set track or rng", "other dp_equilibrium arguments")
    # validate once, before any work
    _validate_dp(game, dp_kwargs.get("epsilon"), dp_kwargs.get("delta", 1e-5), dp_kwargs.get("noise_scale"),
                 dp_kwargs.get("observed_channels", 1), dp_kwargs.get("rounds", 60), dp_kwargs.get("step_size", 1.0),
                 dp_kwargs.get("reg_scale", 2.0), dp_kwargs.get("reg_exponent", 1 / 3),
                 dp_kwargs.get("regularizer", "entropy"), dp_kwargs.get("noise", "broadcast"),
                 dp_kwargs.get("sensitivity", SQRT2))
    seeds = spawn(rng, r)
    outs = map_replicates(functools.partial(_one_run, game=game, kwargs=dp_kwargs), seeds, executor=executor,
                          n_workers=n_workers)
    xs = np.stack([o[0] for o in outs])
    eps, dl = outs[0][1], outs[0][2]
    g = game._grad(xs)
    gaps = game._gap(xs, g)                     # (R, N)
    maxg, meang = gaps.max(axis=1), gaps.mean(axis=1)
    cce = cce_gap(game, xs)
    jk = np.array([cce_gap(game, np.delete(xs, k, axis=0)) for k in range(r)]) if r <= 200 else None
    se = float(np.sqrt((r - 1) / r * np.sum((jk - jk.mean()) ** 2))) if jk is not None else float("nan")
    return ExpectedGap(
        Estimate(cce, se, name="CCE (expected-utility) Nash gap", n=r, citation=CITATION),
        Estimate(maxg.mean(), maxg.std(ddof=1) / math.sqrt(r), name="E max_i gap_i", n=r, citation=CITATION),
        Estimate(meang.mean(), meang.std(ddof=1) / math.sqrt(r), name="E mean_i gap_i", n=r, citation=CITATION),
        float(eps), float(dl), r)
