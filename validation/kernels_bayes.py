"""Kernels: the null model in the model comparison (issue 45's null neurons; issue 41's Bayesian machinery).

Imported by one line at the end of validation/kernels.py, so its checks register under method "kernels".
"""
from __future__ import annotations

import math

import numpy as np

from validation.registry import CheckResult, Criterion, check

PAPER = "arXiv:2509.24919"


def null_neuron_experiment(n_neurons: int, n_trials: int, rng, theory_filters=None, patches=None,
                           laplace: bool = True, with_null: bool = True) -> dict:
    """Posterior over {theory, pixel[, null]} on stimulus-independent Poisson neurons.

    Returns the rates at which a structured model is *preferred* (its Bayes factor against the null at
    least 20, i.e. posterior odds 20:1 at equal prior) and the mean posterior probabilities.
    ``with_null=False`` is the broken variant (the issue's two-model comparison): a model is then
    "preferred" when it is the one chosen (posterior above 0.5), which one of the two always is.
    """
    from iclr26sci.kernels import FixedFeatureGP, NullGP, PixelRBFGP, model_posterior

    X = patches[rng.choice(len(patches), n_trials, replace=False)]
    rates = np.exp(rng.uniform(np.log(1.0), np.log(8.0), n_neurons))
    Y = rng.poisson(rates[:, None] * np.ones((1, n_trials))).astype(float)
    models = {"theory": FixedFeatureGP(theory_filters), "pixel": PixelRBFGP()}
    if with_null:
        models["null"] = NullGP()
    mp = model_posterior(models, X, Y, laplace=laplace)
    ev = mp.log_evidence
    out = {"prob_mean": dict(zip(mp.names, np.nanmean(mp.prob, 1).tolist())),
           "nan_laplace": int(np.isnan(ev).sum())}
    if with_null:
        # a NaN Laplace evidence (Hessian not negative definite, e.g. output scale -> 0) counts as not preferred
        bf_t = np.nan_to_num(ev[0] - ev[2], nan=-np.inf)
        bf_p = np.nan_to_num(ev[1] - ev[2], nan=-np.inf)
        out["pref_theory"] = bf_t >= math.log(20)
        out["pref_pixel"] = bf_p >= math.log(20)
    else:  # two models: one of them is always chosen (posterior > 0.5), whatever the data
        out["pref_theory"] = mp.prob[0] > 0.5
        out["pref_pixel"] = mp.prob[1] > 0.5
    return out


@check(method="kernels", guarantee="N1: on stimulus-independent (null) Poisson neurons, with the null model in the "
       "comparison, neither structured model is preferred (Bayes factor >= 20 against the null) at more than "
       "the nominal rate 1/20", paper=PAPER, budget=60)
def n1_null_neurons(profile, rng, with_null: bool = True, n_neurons: int | None = None):
    from scipy.stats import binom
    from threadpoolctl import threadpool_limits

    from validation.kernels import _context

    ctx = _context(profile.name)
    Wt = ctx["ec"].sample_filters(3, rng=rng)
    n_neurons = n_neurons or profile.pick(200, 400)
    with threadpool_limits(1):
        res = null_neuron_experiment(n_neurons, 60, rng, Wt, ctx["patches"], with_null=with_null)
    nominal = 1.0 / 20  # Markov / Ville: P_null(BF >= 20) <= 1/20 for an exact evidence
    hi = float(binom.ppf(1 - 0.01, n_neurons, nominal)) / n_neurons
    rt, rp = float(res["pref_theory"].mean()), float(res["pref_pixel"].mean())
    rows = [{"model": k, "mean P(model | y)": v} for k, v in res["prob_mean"].items()]
    rows += [{"model": "theory", "rate BF(:null) >= 20": rt}, {"model": "pixel", "rate BF(:null) >= 20": rp}]
    return CheckResult(criteria=[Criterion("rate theory preferred over null", rt, hi, "<="),
                                 Criterion("rate pixel preferred over null", rp, hi, "<=")],
                       table=rows,
                       details=f"{n_neurons} Poisson neurons (rate log-uniform in [1, 8], 60 trials, natural patches), "
                               f"Laplace evidences of theory (RBF on 3 efficient-coding filters), pixel RBF and the "
                               f"null model (NullGP). For an exact evidence P_null(BF >= 20) <= 1/20 (Markov); pass: "
                               f"each rate <= {hi:.3f} (upper 1% binomial quantile of Bin({n_neurons}, 0.05)). "
                               f"Laplace evidences that are NaN (Hessian not negative definite): {res['nan_laplace']}. "
                               f"Without the null (the issue's two-model comparison) the broken variant prefers a "
                               f"structured model (tests/kernels/test_null_model.py).")


def laplace_vs_nuts(n: int, rng, num_samples: int = 300, warmup_steps: int = 200) -> list:
    """Laplace and NUTS-bridge log evidences of a pixel RBF GP and a true-feature GP on one small neuron."""
    from iclr26sci.kernels import FixedFeatureGP, PixelRBFGP, nuts_log_evidence

    X = rng.standard_normal((n, 4))
    y = rng.poisson(np.exp(0.8 * X[:, 0]))
    rows = []
    for name, m in (("pixel RBF", PixelRBFGP()), ("true-feature RBF", FixedFeatureGP(np.eye(4)[:2]))):
        gp = m.fit(X, y)
        le, se = nuts_log_evidence(gp, num_samples, warmup_steps, rng=rng)
        lap = float(gp.log_evidence(laplace=True))
        rows.append({"model": name, "n": n, "laplace": lap, "nuts+bridge": le, "MC se": se, "gap": lap - le,
                     "maximised (no Occam)": float(gp.log_evidence())})
    return rows


@check(method="kernels", guarantee="N2: the Laplace log evidence agrees with an independent NUTS + bridge-sampling "
       "estimate (pyro) within a stated gap of 2 nats on small problems", paper=PAPER, budget=150)
def n2_laplace_vs_nuts(profile, rng):
    import torch
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        torch.set_num_threads(1)
        rows = laplace_vs_nuts(40, rng)
    gap = max(abs(r["gap"]) for r in rows)
    se = max(r["MC se"] for r in rows)
    return CheckResult(criteria=[Criterion("largest |Laplace - NUTS bridge| (nats)", gap, 2.0, "<=")], table=rows,
                       details=f"One Poisson neuron (n=40, 4-D stimuli, rate exp(0.8 x_0)); pyro NUTS, 300 draws after "
                               f"200 warm-up, over the log hyper-parameters (constant mean at its optimum, as Laplace); "
                               f"bridge sampling (Meng-Wong) with a Gaussian fitted to the draws. Stated gap 2 nats: "
                               f"the gap is not Monte-Carlo error (batch MC se {se:.3f}) but Laplace's own error; "
                               f"measured 0.24-1.59 nats over master seeds 0-4, Laplace below NUTS. The maximised evidence lies "
                               f"5-7 nats above both: it has no Occam factor for the hyper-parameters.")
