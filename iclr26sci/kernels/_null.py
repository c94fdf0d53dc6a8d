"""A stimulus-independent null model for the kernels' model comparison, and the posterior over a model set."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, check_array, check_bool, check_in_range, check_option

from ._theory import CITATION

__all__ = ["NullGP", "ModelPosterior", "model_posterior"]

LOG2PI = math.log(2 * math.pi)
#: the hyper-prior centre of the noise variance on the standardised scale (as the GP models' ``default_psi``)
NOISE_CENTRE = math.log(0.5)


class NullGP(BaseEstimator):
    r"""The null model: responses independent of the stimulus, :math:`z_t \sim N(c, \sigma^2)` i.i.d.

    The GP models with the kernel switched off (:math:`s^2 = 0`). On the same transformed and
    standardised scale as :class:`DeepKernelGP`, with the same hyper-prior on :math:`\log\sigma^2`
    (normal, centre :math:`\log 0.5`, sd ``prior_scale``) and the constant mean at its optimum, so its
    evidence is comparable with theirs in :func:`bayes_factor` and :func:`model_posterior`:

    .. math::
        \log p(z\mid\sigma^2) = -\tfrac n2\log 2\pi\sigma^2 - \tfrac{1}{2\sigma^2}\sum_t (z_t - \bar z)^2,

    maximised (``laplace=False``) or integrated over :math:`q=\log\sigma^2` by Laplace (``laplace=True``:
    :math:`\log Z \approx f(\hat q) + \tfrac12\log 2\pi - \tfrac12\log(-f''(\hat q))`, with
    :math:`f = \log p(z\mid q) + \log p(q)`), both minus :math:`n\log(\text{scale})` (the Jacobian of the
    standardisation), as for the GP models.

    Parameters
    ----------
    response_transform : {"sqrt", "anscombe", "none"}
    prior_scale : float > 0
        Sd of the normal hyper-prior on :math:`\log\sigma^2` (3.0, as the GP models).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.kernels import NullGP
    >>> y = np.random.default_rng(0).poisson(4.0, size=(2, 50))
    >>> NullGP().log_evidence(np.zeros((50, 4)), y, laplace=True).shape
    (2,)
    """

    def __init__(self, response_transform: str = "sqrt", prior_scale: float = 3.0):
        self.response_transform = response_transform
        self.prior_scale = prior_scale

    def fit(self, stimuli, responses) -> "NullGP":
        """Store the per-neuron evidences (``log_evidence_``, ``log_evidence_laplace_``); returns self."""
        from ._model import transform_responses

        check_option(self.response_transform, "response_transform", ["sqrt", "anscombe", "none"])
        ps = check_in_range(self.prior_scale, "prior_scale", 0.0, None, low_open=True)
        Y = check_array(responses, "responses", ndim=(1, 2))
        single = Y.ndim == 1
        Y = np.atleast_2d(Y)
        X = check_array(stimuli, "stimuli", ndim=(2, 3))
        if X.shape[0] != Y.shape[1]:
            raise InputError("stimuli", f"have {X.shape[0]} trials but responses have {Y.shape[1]}",
                             "one stimulus per trial")
        if Y.shape[1] < 3:
            raise InputError("responses", f"have {Y.shape[1]} trials", "at least 3")
        Z = transform_responses(Y, self.response_transform, "responses")
        scale = Z.std(1)
        if np.any(scale <= 1e-12 * (1 + np.abs(Z.mean(1)))):
            raise InputError("responses", "are constant for at least one neuron", "responses that vary across trials")
        n = Z.shape[1]
        # standardised: sum (z - zbar)^2 = n; f(q) = -n/2 log 2pi - n q / 2 - n e^{-q} / 2 + log N(q; q0, ps^2)
        exact = -0.5 * n * LOG2PI - 0.5 * n - n * np.log(scale)
        q = 0.0
        for _ in range(50):  # Newton on the concave f
            g = -0.5 * n + 0.5 * n * math.exp(-q) - (q - NOISE_CENTRE) / ps ** 2
            h = -0.5 * n * math.exp(-q) - 1.0 / ps ** 2
            step = g / h
            q -= step
            if abs(step) < 1e-12:
                break
        h = -0.5 * n * math.exp(-q) - 1.0 / ps ** 2
        f = (-0.5 * n * LOG2PI - 0.5 * n * q - 0.5 * n * math.exp(-q) - 0.5 * ((q - NOISE_CENTRE) / ps) ** 2
             - math.log(ps) - 0.5 * LOG2PI)
        lap = f + 0.5 * LOG2PI - 0.5 * math.log(-h) - n * np.log(scale)
        self.log_evidence_ = exact[0] if single else exact
        self.log_evidence_laplace_ = lap[0] if single else lap
        self.n_train_ = n
        return self

    def log_evidence(self, stimuli, responses, laplace: bool = False, refit: bool = True):
        """Log evidence per neuron (maximised, or Laplace-integrated over the log noise variance)."""
        check_bool(laplace, "laplace")
        check_bool(refit, "refit")
        self.fit(stimuli, responses)
        return self.log_evidence_laplace_ if laplace else self.log_evidence_


@dataclass(frozen=True)
class ModelPosterior:
    """Posterior probabilities of a set of models per neuron, from their log evidences.

    Parameters
    ----------
    names : tuple of str
    log_evidence : array (k, n_neurons)
    prob : array (k, n_neurons)
        :math:`P(M_j\\mid y) = \\pi_j Z_j / \\sum_i \\pi_i Z_i` (a model whose Laplace evidence is NaN, its
        Hessian not negative definite, gets probability NaN and is dropped from the normalisation).
    prior : array (k,)

    Examples
    --------
    >>> mp = ModelPosterior(("a", "b"), np.array([[-1.0], [-2.0]]), np.array([[0.731], [0.269]]), np.array([.5, .5]))
    >>> mp.best().tolist()
    ['a']
    """

    names: tuple
    log_evidence: np.ndarray
    prob: np.ndarray
    prior: np.ndarray
    citation: str = field(default=CITATION)

    def best(self) -> np.ndarray:
        """The most probable model's name per neuron."""
        p = np.where(np.isnan(self.prob), -1.0, self.prob)
        return np.asarray(self.names, dtype=object)[np.argmax(p, 0)]

    def __repr__(self):
        m = np.nanmean(self.prob, 1)
        return "ModelPosterior(" + ", ".join(f"{n}={v:.3f}" for n, v in zip(self.names, m)) + \
            f", n_neurons={self.prob.shape[1]})"


def model_posterior(models: dict, stimuli, responses, prior=None, laplace: bool = True) -> ModelPosterior:
    r"""Posterior over a set of models (e.g. {theory, pixel, null}) per neuron.

    .. math:: P(M_j\mid y) = \frac{\pi_j\, p(y\mid M_j)}{\sum_i \pi_i\, p(y\mid M_i)}

    Use :class:`NullGP` as the stimulus-independent member: without it a comparison of two structured
    models must pick one of them on pure-noise neurons. ``laplace=True`` (default) integrates the
    hyper-parameters (an Occam factor for the kernel's extra parameters); the maximised evidence of a
    structured model is never below the null's, as the null is nested in it.

    Parameters
    ----------
    models : dict name -> model with ``log_evidence(stimuli, responses, laplace=)``
    stimuli : array (n, d)
    responses : array (n,) or (n_neurons, n)
    prior : array (k,), optional
        Prior model probabilities (uniform by default).
    laplace : bool

    Returns
    -------
    ModelPosterior

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.kernels import NullGP, PixelRBFGP, model_posterior
    >>> r = np.random.default_rng(0)
    >>> X = r.standard_normal((60, 8)); y = r.poisson(3.0, size=60)          # a null neuron
    >>> mp = model_posterior({"pixel": PixelRBFGP(), "null": NullGP()}, X, y)
    >>> mp.best().tolist()
    ['null']
    """
    if not isinstance(models, dict) or len(models) < 2:
        raise InputError("models", f"is a {type(models).__name__} of size {len(models) if hasattr(models, '__len__') else '?'}",
                         "a dict of at least two named models")
    for k, m in models.items():
        if not hasattr(m, "log_evidence"):
            raise InputError("models", f"entry {k!r} is a {type(m).__name__}", "models with log_evidence")
    check_bool(laplace, "laplace")
    k = len(models)
    if prior is None:
        pi = np.full(k, 1.0 / k)
    else:
        pi = check_array(prior, "prior", ndim=1)
        if pi.shape[0] != k or np.any(pi <= 0) or not np.isclose(pi.sum(), 1.0):
            raise InputError("prior", f"is {pi.tolist()}", f"{k} positive probabilities summing to 1")
    ev = np.stack([np.atleast_1d(np.asarray(m.log_evidence(stimuli, responses, laplace=laplace), float))
                   for m in models.values()])
    a = ev + np.log(pi)[:, None]
    ok = ~np.isnan(a)
    amax = np.max(np.where(ok, a, -np.inf), 0)
    w = np.where(ok, np.exp(a - amax), 0.0)
    prob = np.where(ok, w / w.sum(0), np.nan)
    return ModelPosterior(tuple(models), ev, prob, pi)
