"""Exact Bayesian model selection: Bayes factors and the degree of theory match."""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import numpy as np
import torch

from iclr26sci.core import Estimate, InputError, check_bool, check_in_range, check_positive_int

from ._gp import DTYPE, log_evidence, rbf_kernel, stable_cholesky, LOG2PI
from ._model import DeepKernelGP, NeuronGP, _data_key, _standardise, solve_inner
from ._theory import CITATION

__all__ = ["BayesFactor", "bayes_factor", "TheoryMatch", "theory_match"]

#: the largest alpha grid theory_match accepts (each point is one O(n^3) fit)
MAX_GRID = 1001


@dataclass(frozen=True)
class BayesFactor:
    """Exact GP Bayes factor of model A against model B (per neuron when several).

    ``log_bf = log Z_A - log Z_B``; ``prob_a = sigmoid(log_bf + log prior odds)``.

    Parameters
    ----------
    log_bf : float or array (n_neurons,)
        Log Bayes factor of A against B per neuron (positive: the data favour A).
    log_evidence_a, log_evidence_b : like ``log_bf``
        The two maximised exact log evidences (``log_bf`` must be their difference).
    prob_a : like ``log_bf``
        Posterior probability of A per neuron, in [0, 1].

    Examples
    --------
    >>> bf = BayesFactor(2.0, -10.0, -12.0, 0.88)
    >>> bf
    BayesFactor(log_bf=2, n_neurons=1, prob_a=0.88)
    >>> bf.to_dict()["log_bf"]
    2.0
    """

    log_bf: np.ndarray
    log_evidence_a: np.ndarray
    log_evidence_b: np.ndarray
    prob_a: np.ndarray
    citation: str = CITATION

    def __post_init__(self):
        from iclr26sci.core import check_array

        vals = {}
        for name in ("log_bf", "log_evidence_a", "log_evidence_b", "prob_a"):
            # a Laplace evidence is NaN where the Hessian is not negative definite: allowed, and propagated
            vals[name] = check_array(getattr(self, name), name, ndim=(0, 1), finite=False)
            if np.any(np.isinf(vals[name])) and name == "prob_a":
                raise InputError(name, "is infinite", "probabilities in [0, 1]")
        shape = vals["log_bf"].shape
        for name, v in vals.items():
            if v.shape != shape:
                raise InputError(name, f"has shape {v.shape}", f"the shape of log_bf {shape}")
        if np.any(vals["prob_a"] < 0) or np.any(vals["prob_a"] > 1):
            raise InputError("prob_a", "has values outside [0, 1]", "probabilities")
        if not np.allclose(vals["log_bf"], vals["log_evidence_a"] - vals["log_evidence_b"], rtol=1e-9, atol=1e-9,
                           equal_nan=True):
            raise InputError("log_bf", "is not log_evidence_a - log_evidence_b", "the difference of the two evidences")

    def __float__(self):
        return float(np.sum(self.log_bf))

    def __repr__(self):
        lb = np.atleast_1d(self.log_bf)
        pa = np.atleast_1d(self.prob_a)
        p = f"{float(pa[0]):.4g}" if pa.size == 1 else f"[{pa.min():.3g}..{pa.max():.3g}]"
        return f"BayesFactor(log_bf={float(lb.sum()):.4g}, n_neurons={lb.size}, prob_a={p})"

    def to_dict(self) -> dict:
        """Plain-Python summary (JSON-serialisable): total and per-neuron log BF, evidences, P(A)."""
        a = {k: np.atleast_1d(np.asarray(getattr(self, k), float)).tolist()
             for k in ("log_bf", "log_evidence_a", "log_evidence_b", "prob_a")}
        return {"log_bf": float(np.sum(a["log_bf"])), "n_neurons": len(a["log_bf"]), "per_neuron": a,
                "citation": self.citation}

    def summary(self) -> str:
        lb = np.atleast_1d(self.log_bf)
        return (f"log BF(A:B) = {np.sum(lb):.3f} over {lb.size} neuron(s); "
                f"P(A | data) = {float(1 / (1 + np.exp(-np.clip(np.sum(lb), -700, 700)))):.4f}")


def _check_model(m, name):
    if isinstance(m, NeuronGP):
        return
    if not (hasattr(m, "fit") and hasattr(m, "log_evidence")):
        raise InputError(name, f"is a {type(m).__name__}", "a GP model with fit/log_evidence (e.g. TheoryInformedKernel)")


def _evidence(m, name, stimuli, responses, laplace, refit):
    if isinstance(m, NeuronGP):  # already fitted: evidence at its type-II MAP hyper-parameters, no refit
        if stimuli is not None or responses is not None:
            if stimuli is None or responses is None:
                raise InputError("responses" if responses is None else "stimuli", "is missing",
                                 "both stimuli and responses, or neither, with fitted models")
            X = m.model._check_stimuli(stimuli, "stimuli")
            Y = np.asarray(responses, dtype=float)
            if _data_key(X, Y[None] if Y.ndim == 1 else Y) != getattr(m, "data_key_", None):
                raise InputError(name, "was fitted on other stimuli/responses than those given",
                                 "a fitted model of these data (or an unfitted model, which is then fitted)")
        return np.asarray(m.log_evidence(laplace=laplace), float)
    if stimuli is None or responses is None:
        raise InputError("stimuli" if stimuli is None else "responses", "is missing",
                         f"data to fit {name} (a {type(m).__name__}) on")
    if refit:
        return np.asarray(m.log_evidence(stimuli, responses, laplace=laplace), float)
    return np.asarray(m.log_evidence(stimuli, responses, laplace=laplace, refit=False), float)


def bayes_factor(model_a, model_b, stimuli=None, responses=None, prior_odds: float = 1.0, laplace: bool = False,
                 refit: bool = True, evidence: str | None = None) -> BayesFactor:
    """Log Bayes factor of two GP models on the same neuron(s) from exact evidences.

    .. math:: \\log\\mathrm{BF}(A{:}B) = \\log p(y\\mid X, A) - \\log p(y\\mid X, B)

    Each evidence is the closed-form GP marginal likelihood at the model's
    per-neuron type-II MAP hyper-parameters (``laplace=True`` integrates the
    log-parameters with a Laplace approximation instead).

    Parameters
    ----------
    model_a, model_b : GP models (TheoryInformedKernel, PixelRBFGP, FixedFeatureGP, ...), fitted to the
        neuron(s) inside this call, or fitted :class:`NeuronGP` objects (``model.fit(stimuli, responses)``),
        whose evidences are evaluated at their fitted hyper-parameters without refitting (one Cholesky).
    stimuli : array (n, d), optional with two fitted NeuronGP (if given, they must be the fitted data)
    responses : array (n,) or (n_neurons, n), likewise
    prior_odds : float, P(A)/P(B)
    laplace : bool
    refit : bool
        ``False``: a model whose latest ``fit`` was on exactly these data reuses
        that fit (see ``DeepKernelGP.log_evidence``); the numbers are identical.
    evidence : {None, "laplace", "nuts"}
        ``"laplace"`` is ``laplace=True``; ``"nuts"`` integrates the hyper-parameters by pyro's NUTS and
        bridge sampling (:func:`iclr26sci.kernels._nuts.nuts_log_evidence`; one neuron; seconds per model).
        Compare either with a :class:`NullGP` as well: the maximised evidence has no Occam factor.

    References
    ----------
    Zakirov & Tkacik (2025) arXiv:2509.24919; Rasmussen & Williams (2006) ch. 5.

    Examples
    --------
    >>> from iclr26sci.kernels import FixedFeatureGP, PixelRBFGP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((60, 16)); y = rng.poisson(np.exp(0.7 * X[:, 0]))
    >>> bf = bayes_factor(FixedFeatureGP(np.eye(16)[:1]), PixelRBFGP(), X, y)   # the true feature vs all pixels
    >>> bool(bf.log_bf > 0), bool(bf.prob_a > 0.5)
    (True, True)
    """
    _check_model(model_a, "model_a")
    _check_model(model_b, "model_b")
    po = check_in_range(prior_odds, "prior_odds", 0.0, None, low_open=True)
    check_bool(laplace, "laplace")
    check_bool(refit, "refit")
    if evidence is not None and evidence not in ("laplace", "nuts"):
        raise InputError("evidence", f"got {evidence!r}", "None, 'laplace' or 'nuts'")
    if evidence == "nuts":
        from ._nuts import _nuts_evidence

        ea = _nuts_evidence(model_a, "model_a", stimuli, responses, rng=0)
        eb = _nuts_evidence(model_b, "model_b", stimuli, responses, rng=1)
    else:
        laplace = laplace or evidence == "laplace"
        ea = _evidence(model_a, "model_a", stimuli, responses, laplace, refit)
        eb = _evidence(model_b, "model_b", stimuli, responses, laplace, refit)
    lbf = ea - eb
    prob = 1.0 / (1.0 + np.exp(-np.clip(lbf + math.log(po), -700, 700)))
    return BayesFactor(lbf, ea, eb, prob)


@dataclass(frozen=True)
class TheoryMatch:
    """Posterior over the theory weight alpha of the mixture kernel alpha K_T + (1 - alpha) K_alt.

    Parameters
    ----------
    alpha : Estimate
        Posterior mean and sd of alpha (``extra``: credible interval and MAP).
    grid : array (g,)
        The alpha grid in [0, 1], increasing.
    log_evidence : array (g,)
        Maximised exact log evidence of the mixture kernel at each grid point.
    posterior : array (g,)
        Posterior probabilities on the grid (uniform prior), summing to 1.
    log_bf : float
        log Z(alpha=1) - log Z(alpha=0): theory kernel against the alternative.

    Examples
    --------
    >>> from iclr26sci.core import Estimate
    >>> tm = TheoryMatch(Estimate(0.6, 0.2, extra={"credible_interval": (0.2, 1.0), "map": 0.5}),
    ...                  np.linspace(0, 1, 3), np.array([-3.0, -2.0, -2.5]), np.array([0.2, 0.5, 0.3]), 0.5)
    >>> tm
    TheoryMatch(alpha=0.600 +- 0.200, interval=[0.20, 1.00], log_bf=0.500, grid=3)
    """

    alpha: Estimate
    grid: np.ndarray
    log_evidence: np.ndarray
    posterior: np.ndarray
    log_bf: float
    citation: str = CITATION

    def __post_init__(self):
        from iclr26sci.core import check_array

        if not isinstance(self.alpha, Estimate):
            raise InputError("alpha", f"is a {type(self.alpha).__name__}", "an iclr26sci.core.Estimate")
        g = check_array(self.grid, "grid", ndim=1, min_rows=2)
        if np.any(np.diff(g) <= 0) or g[0] < 0 or g[-1] > 1:
            raise InputError("grid", "is not increasing in [0, 1]", "an increasing grid of alphas in [0, 1]")
        check_array(self.log_evidence, "log_evidence", ndim=1, shape=g.shape)
        post = check_array(self.posterior, "posterior", ndim=1, shape=g.shape, nonnegative=True)
        if abs(post.sum() - 1) > 1e-8:
            raise InputError("posterior", f"sums to {post.sum():.6g}", "probabilities summing to 1")
        check_in_range(self.log_bf, "log_bf")

    def __repr__(self):
        lo, hi = self.alpha.extra.get("credible_interval", (float("nan"), float("nan")))
        return (f"TheoryMatch(alpha={self.alpha.value:.3f} +- {self.alpha.stderr:.3f}, interval=[{lo:.2f}, {hi:.2f}], "
                f"log_bf={self.log_bf:.3f}, grid={len(self.grid)})")

    def summary(self) -> str:
        """One paragraph: posterior mean of alpha, credible interval, MAP and the log Bayes factor."""
        lo, hi = self.alpha.extra.get("credible_interval", (float("nan"), float("nan")))
        return (f"degree of theory match alpha = {self.alpha.value:.3f} (sd {self.alpha.stderr:.3f}), credible "
                f"interval [{lo:.2f}, {hi:.2f}], MAP {self.alpha.extra.get('map', float('nan')):.2f}; "
                f"log BF(theory : alternative) = {self.log_bf:.3f} ({len(self.grid)}-point grid)")

    def to_dict(self) -> dict:
        """Plain-Python summary (JSON-serialisable)."""
        return {"alpha": float(self.alpha.value), "alpha_sd": float(self.alpha.stderr),
                "credible_interval": [float(v) for v in self.alpha.extra.get("credible_interval", (np.nan, np.nan))],
                "map": float(self.alpha.extra.get("map", np.nan)), "log_bf": float(self.log_bf),
                "grid": np.asarray(self.grid, float).tolist(), "posterior": np.asarray(self.posterior, float).tolist(),
                "citation": self.citation}


def _theory_only(model):
    """The model without the TIK's pixel fallback: the mixture weighs the two kernels themselves."""
    if getattr(model, "pixel_fallback", False):
        model = copy.copy(model)
        model.pixel_fallback = False
        model._fit_cache = None
    return model


def theory_match(model_theory: DeepKernelGP, model_alt: DeepKernelGP, stimuli, responses, grid: int = 21,
                 alpha_level: float = 0.05) -> TheoryMatch:
    """Degree of theory match of one neuron by exact evidence of a mixture kernel.

    Both kernels are first adapted to the neuron separately (their
    length-scales fixed thereafter; a TheoryInformedKernel without its pixel fallback, so that
    the mixture weighs the theory kernel itself); then for each :math:`\\alpha` on a grid

    .. math:: k_\\alpha = s^2\\big(\\alpha\\,\\tilde k_T + (1-\\alpha)\\,\\tilde k_{alt}\\big) + \\sigma^2\\delta

    with unit-variance component kernels, :math:`s^2, \\sigma^2, c` are
    re-fitted and the exact evidence recorded. A uniform prior on the grid
    gives the posterior of :math:`\\alpha` (mean, sd, credible interval).
    ``log_bf`` is :math:`\\log Z(\\alpha{=}1)-\\log Z(\\alpha{=}0)`.

    Parameters
    ----------
    model_theory, model_alt : unfitted GP models
        The theory kernel (e.g. a meta-trained TheoryInformedKernel) and the alternative.
    stimuli : array (n, d); responses : array (n,) of one neuron.
    grid : int in [2, 1001]
        Number of alpha values on [0, 1] (each costs one small type-II fit).
    alpha_level : float in (0, 1)
        1 - credibility of the reported interval.

    Examples
    --------
    >>> from iclr26sci.kernels import FixedFeatureGP, PixelRBFGP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((60, 16)); y = rng.poisson(np.exp(0.7 * X[:, 0]))
    >>> tm = theory_match(FixedFeatureGP(np.eye(16)[:1]), PixelRBFGP(), X, y, grid=5)
    >>> len(tm.grid), bool(abs(tm.posterior.sum() - 1) < 1e-12), bool(tm.alpha.value > 0.5)
    (5, True, True)
    """
    _check_model(model_theory, "model_theory")
    _check_model(model_alt, "model_alt")
    if isinstance(model_theory, NeuronGP) or isinstance(model_alt, NeuronGP):
        raise InputError("model_theory" if isinstance(model_theory, NeuronGP) else "model_alt",
                         "is a fitted NeuronGP", "an unfitted GP model (it is adapted to the neuron here)")
    g = check_positive_int(grid, "grid", minimum=2)
    if g > MAX_GRID:
        raise InputError("grid", f"has {g} points; each is a type-II fit of O(n^3) (hours at 10^5)",
                         f"at most {MAX_GRID} points (the posterior over alpha in [0, 1] is resolved long before)")
    check_in_range(alpha_level, "alpha_level", 0.0, 1.0, low_open=True, high_open=True)
    fa = _theory_only(model_theory).fit(stimuli, responses)
    fb = _theory_only(model_alt).fit(stimuli, responses)
    if np.ndim(fa.log_evidence_) != 1 or len(fa.log_evidence_) != 1:
        raise InputError("responses", "hold several neurons", "one neuron (1-D responses)")
    z, loc, scale = fa._z, fa._loc, fa._scale
    n = z.shape[1]

    def unit_kernel(f):
        psi = f._psi
        F = f._F[None]
        return rbf_kernel(F, F, torch.zeros(1, dtype=DTYPE), psi[:, 1:-2])[0]

    Ka, Kb = unit_kernel(fa), unit_kernel(fb)
    alphas = np.linspace(0.0, 1.0, g)
    evid = np.empty(g)
    eye = torch.eye(n, dtype=DTYPE)
    for i, a in enumerate(alphas):
        K = a * Ka + (1 - a) * Kb
        p = torch.tensor([[0.0, math.log(0.5), 0.0]], dtype=DTYPE, requires_grad=True)

        def obj(q):
            A = torch.exp(q[0, 0]) * K + torch.exp(q[0, 1]) * eye
            L = stable_cholesky(A[None])[0]
            w = torch.linalg.solve_triangular(L, (z[0] - q[0, 2])[:, None], upper=False)
            return -0.5 * (w * w).sum() - torch.log(L.diagonal()).sum() - 0.5 * n * LOG2PI

        opt = torch.optim.LBFGS([p], max_iter=100, line_search_fn="strong_wolfe", tolerance_grad=1e-10)

        def closure():
            opt.zero_grad()
            loss = -obj(p)
            loss.backward()
            return loss

        opt.step(closure)
        with torch.no_grad():
            evid[i] = float(obj(p)) - n * float(torch.log(scale[0]))
    w = np.exp(evid - evid.max())
    post = w / w.sum()
    mean = float(post @ alphas)
    sd = float(np.sqrt(max(post @ (alphas - mean) ** 2, 0.0)))
    cdf = np.cumsum(post)
    lo = float(alphas[np.searchsorted(cdf, alpha_level / 2)])
    hi = float(alphas[min(np.searchsorted(cdf, 1 - alpha_level / 2), g - 1)])
    est = Estimate(mean, sd, name="degree of theory match (alpha)", n=n, citation=CITATION,
                   extra={"credible_interval": (lo, hi), "map": float(alphas[np.argmax(post)])})
    return TheoryMatch(est, alphas, evid, post, float(evid[-1] - evid[0]))
