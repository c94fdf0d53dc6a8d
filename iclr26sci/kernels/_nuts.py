"""A reference posterior over the GP hyper-parameters by NUTS (pyro), and a bridge-sampling evidence."""
from __future__ import annotations

import math

import numpy as np
import torch

from iclr26sci.core import InputError, as_generator, check_positive_int

__all__ = ["nuts_log_evidence"]


def _bridge(log_post_draws, log_post_prop, log_g_draws, log_g_prop, iters=200):
    """Meng & Wong (1996) iterative bridge-sampling estimate of log Z (optimal bridge)."""
    n1, n2 = log_post_draws.size, log_post_prop.size
    s1, s2 = n1 / (n1 + n2), n2 / (n1 + n2)
    l1 = log_post_draws - log_g_draws  # log q/g at the posterior draws
    l2 = log_post_prop - log_g_prop    # at the proposal draws
    lmax = np.max(np.concatenate([l1, l2]))
    logr = float(np.median(l2))
    for _ in range(iters):
        num = np.logaddexp.reduce(l2 - np.logaddexp(math.log(s1) + l2, math.log(s2) + logr)) - math.log(n2)
        den = np.logaddexp.reduce(-np.logaddexp(math.log(s1) + l1, math.log(s2) + logr)) - math.log(n1)
        new = float(num - den)
        if abs(new - logr) < 1e-10:
            break
        logr = new
    del lmax
    return logr


def nuts_log_evidence(gp, num_samples: int = 400, warmup_steps: int = 300, n_proposal: int = 2000, rng=None):
    r"""Log evidence of a fitted GP by NUTS over its log hyper-parameters and bridge sampling.

    Samples :math:`q \sim p(q\mid z) \propto p(z\mid q, \hat c)\,p(q)` (the same target as the Laplace
    evidence of :meth:`NeuronGP.log_evidence`: the log output scale, length-scales and noise variance
    under the normal hyper-prior, the constant mean at its optimum) with pyro's NUTS, fits a Gaussian
    :math:`g` to the draws, and estimates :math:`Z = \int p(z\mid q)p(q)\,dq` by the optimal bridge
    (Meng & Wong 1996) between the NUTS draws and draws from :math:`g`. Independent of the Laplace
    approximation; exact as the numbers of draws grow.

    Parameters
    ----------
    gp : NeuronGP
        A fitted single-neuron GP without the pixel term (PixelRBFGP, FixedFeatureGP, a TIK without the
        sum kernel), with a hyper-prior (``prior_scale`` set).
    num_samples, warmup_steps : int
        NUTS draws kept and adaptation steps.
    n_proposal : int
        Draws from the Gaussian bridge proposal.
    rng : seed or Generator

    Returns
    -------
    (log_evidence, mc_se) : (float, float)
        The estimate (on the transformed-response scale, as ``log_evidence``) and a Monte-Carlo standard
        error from 4 batches of the NUTS draws.

    References
    ----------
    Hoffman & Gelman (2014) The No-U-Turn sampler; Meng & Wong (1996) Statistica Sinica 6, 831-860;
    Gronau et al. (2017) A tutorial on bridge sampling, J. Math. Psych. 81.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.kernels import PixelRBFGP
    >>> r = np.random.default_rng(0)
    >>> X = r.standard_normal((30, 4)); y = r.poisson(np.exp(0.8 * X[:, 0]))
    >>> gp = PixelRBFGP().fit(X, y)
    >>> le, se = nuts_log_evidence(gp, num_samples=100, warmup_steps=100, rng=0)
    >>> bool(abs(le - float(gp.log_evidence(laplace=True))) < 2.0)
    True
    """
    import pyro
    from pyro.infer import MCMC, NUTS

    from ._gp import log_evidence, log_prior
    from ._model import NeuronGP

    if not isinstance(gp, NeuronGP):
        raise InputError("gp", f"is a {type(gp).__name__}", "a fitted NeuronGP (model.fit(stimuli, responses))")
    if gp._psi.shape[0] != 1:
        raise InputError("gp", f"holds {gp._psi.shape[0]} neurons", "a GP fitted to one neuron")
    if gp._pixel is not None:
        raise InputError("gp", "has the theory-plus-pixel sum kernel", "a GP without the pixel term")
    ps = gp.model.prior_scale
    if ps is None:
        raise InputError("gp", "has no hyper-prior (prior_scale=None)", "a model with prior_scale set")
    S = check_positive_int(num_samples, "num_samples")
    W = check_positive_int(warmup_steps, "warmup_steps")
    M = check_positive_int(n_proposal, "n_proposal")
    gen = as_generator(rng)
    F = gp._F[None] if gp._F.dim() == 2 else gp._F
    z = gp._z
    c = gp._psi[:, -1:].detach()
    centre = gp._prior_centre
    q0 = gp._psi[0, :-1].detach().clone()

    def logpost(q):  # q (B, P-1)
        p = torch.cat([q, c.expand(q.shape[0], 1)], 1)
        return log_evidence(F.expand(q.shape[0], *F.shape[1:]), z.expand(q.shape[0], -1), p) + \
            log_prior(p, centre.expand(q.shape[0], -1), ps)

    def potential(params):
        return -logpost(params["q"][None])[0]

    pyro.set_rng_seed(int(gen.integers(2 ** 31 - 1)))
    torch.manual_seed(int(gen.integers(2 ** 31 - 1)))
    mcmc = MCMC(NUTS(potential_fn=potential, adapt_step_size=True), num_samples=S, warmup_steps=W,
                initial_params={"q": q0}, disable_progbar=True)
    mcmc.run()
    draws = mcmc.get_samples()["q"].detach().to(torch.float64)
    D = draws.numpy()
    mu = D.mean(0)
    cov = np.cov(D.T).reshape(D.shape[1], D.shape[1]) + 1e-9 * np.eye(D.shape[1])
    Lc = np.linalg.cholesky(cov)
    logdet = 2 * np.log(np.diag(Lc)).sum()
    k = D.shape[1]

    def log_g(x):
        w = np.linalg.solve(Lc, (x - mu).T)
        return -0.5 * (w * w).sum(0) - 0.5 * logdet - 0.5 * k * math.log(2 * math.pi)

    prop = mu + gen.standard_normal((M, k)) @ Lc.T
    with torch.no_grad():
        lp_d = logpost(draws).numpy()
        lp_p = logpost(torch.as_tensor(prop)).numpy()
    lg_d, lg_p = log_g(D), log_g(prop)
    est = _bridge(lp_d, lp_p, lg_d, lg_p)
    batches = [_bridge(lp_d[b::4], lp_p[b::4], lg_d[b::4], lg_p[b::4]) for b in range(4)]
    se = float(np.std(batches, ddof=1) / 2.0)
    jac = float(F.shape[1] * torch.log(gp._scale[0]))
    return est - jac, se


def _nuts_evidence(m, name, stimuli, responses, rng=None):
    """``bayes_factor(..., evidence="nuts")``: the bridge-sampling evidence of one neuron (NullGP: its Laplace
    evidence, which for its single log-variance agrees with quadrature to 0.01 nats; tests/kernels)."""
    from ._model import NeuronGP
    from ._null import NullGP

    if isinstance(m, NullGP):
        return np.asarray(m.log_evidence(stimuli, responses, laplace=True), float)
    gp = m if isinstance(m, NeuronGP) else m.fit(stimuli, responses)
    if gp._psi.shape[0] != 1:
        raise InputError("responses", f"hold {gp._psi.shape[0]} neurons", "one neuron with evidence='nuts'")
    try:
        return np.asarray(nuts_log_evidence(gp, rng=rng)[0], float)
    except InputError as exc:
        raise InputError(name, str(exc), "a model NUTS supports (no pixel sum kernel, prior_scale set)") from None
