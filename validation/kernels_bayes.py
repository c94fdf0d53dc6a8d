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
       "estimate (pyro) within its Monte-Carlo error plus a stated, measured Laplace-bias bound on small problems",
       paper=PAPER, budget=150)
def n2_laplace_vs_nuts(profile, rng):
    import torch
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        torch.set_num_threads(1)
        rows = laplace_vs_nuts(40, rng)
    gap = max(abs(r["gap"]) for r in rows)
    se = max(r["MC se"] for r in rows)
    # Tolerance = stated Laplace bias bound + k * MC se. The bias is not Monte-Carlo error: it was measured once on
    # an independent calibration set (default_rng(100..109), the same problem, not the check's seeds): 20 gaps,
    # all with Laplace below NUTS, mean |gap| 0.728 nats, max 2.43; an exponential law fits them (KS p 0.66). With
    # the mean at its upper 95% confidence bound m_U = 2*20*0.728/chi2_0.05(40) = 1.10, the larger of the check's
    # two gaps exceeds B with probability <= 0.01 when (1 - exp(-B/m_U))^2 = 0.99: B = -m_U log(1 - sqrt(0.99)) = 5.81.
    bias_bound = 5.81
    tol = bias_bound + 4 * se
    signed = [r["gap"] for r in rows]
    return CheckResult(criteria=[Criterion("largest |Laplace - NUTS bridge| (nats)", gap, tol, "<=")], table=rows,
                       details=f"One Poisson neuron (n=40, 4-D stimuli, rate exp(0.8 x_0)); pyro NUTS, 300 draws after "
                               f"200 warm-up, over the log hyper-parameters (constant mean at its optimum, as Laplace); "
                               f"bridge sampling (Meng-Wong) with a Gaussian fitted to the draws. Tolerance {tol:.2f} = "
                               f"B + 4 x MC se ({se:.3f}, 4 batches), B = 5.81 nats a stated Laplace-bias bound: on 10 "
                               f"independent problems (20 gaps) Laplace lay below NUTS every time, mean |gap| 0.73, max "
                               f"2.43 nats; B is the 99% point of the larger of two gaps under the exponential law fitted "
                               f"to them (mean at its upper 95% bound 1.10). Signed gaps here: "
                               f"{', '.join(f'{g:.2f}' for g in signed)}. Measured at master seeds 0-4: 0.24-1.59 nats, "
                               f"always Laplace below NUTS (Laplace misses posterior mass along weakly identified "
                               f"hyper-parameters, see N3/N4). The maximised evidence lies 5-7 nats above both: it has "
                               f"no Occam factor for the hyper-parameters.")


# ----------------------------------------------------------------------------- N3: calibration of P(model | data)
#: the pre-registered bins of the posterior probability for the reliability test
RELIABILITY_EDGES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def simulate_model_set(models: dict, stimuli, n_neurons: int, rng, prior=None, return_params: bool = False):
    """Neurons drawn from a model set: model index from ``prior``, hyper-parameters from that model's hyper-prior,
    responses from its GP.

    Each model is used with ``response_transform="none"``, so that the responses are the GP draws themselves:
    for a DeepKernelGP (theory, pixel), :math:`\\psi \\sim N(\\psi^0, s^2 I)` (the model's own hyper-prior: centre
    ``_psi0`` of its features on these stimuli, sd ``prior_scale``) and
    :math:`z \\sim N(0, s^2 K_\\ell(F, F) + \\sigma^2 I)`; for :class:`NullGP`, :math:`\\log\\sigma^2 \\sim
    N(\\log 0.5, s^2)` and :math:`z \\sim N(0, \\sigma^2 I)`. Returns ``(labels (n_neurons,), Z (n_neurons, n))``, and
    the drawn log-parameters per neuron (a list) when ``return_params``.
    """
    import torch

    from iclr26sci.kernels import NullGP
    from iclr26sci.kernels._gp import rbf_kernel
    from iclr26sci.kernels._null import NOISE_CENTRE

    names = list(models)
    k = len(names)
    pi = np.full(k, 1.0 / k) if prior is None else np.asarray(prior, float)
    labels = rng.choice(k, size=n_neurons, p=pi)
    n = len(stimuli)
    Z = np.empty((n_neurons, n))
    params = [None] * n_neurons
    for j, name in enumerate(names):
        m = models[name]
        idx = np.flatnonzero(labels == j)
        if idx.size == 0:
            continue
        if isinstance(m, NullGP):
            q = NOISE_CENTRE + m.prior_scale * rng.standard_normal(idx.size)
            Z[idx] = np.exp(0.5 * q)[:, None] * rng.standard_normal((idx.size, n))
            for i, qi in zip(idx, q):
                params[i] = np.array([qi])
            continue
        with torch.no_grad():
            F = m._features(m._check_stimuli(stimuli))
        centre = m._psi0(F, 1)[0, :-1].numpy()  # log s^2, log l.., log sigma^2 (the constant mean c = 0)
        for i in idx:
            q = centre + m.prior_scale * rng.standard_normal(centre.size)
            K = rbf_kernel(F[None], F[None], torch.tensor([q[0]]), torch.tensor(q[None, 1:-1]))[0].numpy()
            A = K + math.exp(q[-1]) * np.eye(n)
            L = np.linalg.cholesky(A + 1e-10 * A.diagonal().mean() * np.eye(n))
            Z[i] = L @ rng.standard_normal(n)
            params[i] = q
    return (labels, Z, params) if return_params else (labels, Z)


def reliability_test(prob, labels, check_models, edges=RELIABILITY_EDGES, one_sided=True, n_rep: int = 4000,
                     rng=None) -> dict:
    """Reliability of posterior model probabilities, tested exactly by simulation under calibration.

    For each model ``m`` in ``check_models`` and each bin ``b`` of :math:`P(m\\mid y)`: the expected count
    :math:`E_b=\\sum_{i\\in b}p_{im}`, the observed count :math:`O_b=\\#\\{i\\in b: m_i=m\\}` and
    :math:`V_b=\\sum p_{im}(1-p_{im})`, with :math:`d_b=(E_b-O_b)/\\sqrt{V_b}`. If the posterior is calibrated, the
    true labels given the data are independent draws :math:`m_i\\sim\\text{Categorical}(p_i)`, so the law of
    :math:`T=\\max_{m,b} d_b` (one-sided: the posterior over-claims ``m``) or :math:`\\max|d_b|` (two-sided)
    conditional on the probabilities is simulated exactly by redrawing the labels ``n_rep`` times; the
    p-value is :math:`(1+\\#\\{T^*\\ge T\\})/(1+R)`. The per-bin 99% bands of :math:`O_b/n_b` come from the same
    redraws.
    """
    P = np.nan_to_num(np.asarray(prob, float))
    P = P / P.sum(0, keepdims=True)
    lab = np.asarray(labels)
    K, N = P.shape
    cum = np.cumsum(P, 0)
    U = rng.random((n_rep, N))
    rep = (U[:, None, :] > cum[None, :-1, :]).sum(1)  # (R, N) labels ~ Categorical(p_i)
    e = np.asarray(edges)
    rows, T, Tr = [], -np.inf, np.full(n_rep, -np.inf)
    for m in check_models:
        b_of = np.clip(np.searchsorted(e, P[m], side="right") - 1, 0, len(e) - 2)
        for b in range(len(e) - 1):
            s = b_of == b
            nb = int(s.sum())
            if nb == 0:
                continue
            E = P[m, s].sum()
            V = (P[m, s] * (1 - P[m, s])).sum() + 1e-9
            O = float((lab[s] == m).sum())
            Orep = (rep[:, s] == m).sum(1)
            d, dr = (E - O) / math.sqrt(V), (E - Orep) / math.sqrt(V)
            if not one_sided:
                d, dr = abs(d), np.abs(dr)
            T = max(T, d)
            Tr = np.maximum(Tr, dr)
            lo, hi = np.quantile(Orep / nb, [0.005, 0.995])
            rows.append({"model": int(m), "bin": f"[{e[b]:.1f}, {e[b + 1]:.1f}]", "n": nb, "mean P": E / nb,
                         "frequency": O / nb, "band lo": float(lo), "band hi": float(hi), "d": float(d)})
    p = (1 + int((Tr >= T).sum())) / (1 + n_rep)
    return {"rows": rows, "T": float(T), "p": float(p)}


def prior_is_log_evidence(model, stimuli, responses, n_draws: int, rng) -> np.ndarray:
    """Log evidence of a DeepKernelGP (``response_transform="none"``) by importance sampling from its hyper-prior.

    :math:`\\hat Z = \\frac1S\\sum_s p(z\\mid\\psi_s)`, :math:`\\psi_s \\sim N(\\psi^0, s^2 I)`, on the standardised
    responses with the constant mean at 0 (their mean), minus :math:`n\\log(\\text{scale})` as the library's
    evidences. Unbiased for Z and exact as S grows; accurate where the posterior is broad (neurons with no
    detectable structure, where the posterior is close to the prior), poor where it is concentrated.
    """
    import torch

    from iclr26sci.kernels._gp import log_evidence

    Y = np.atleast_2d(np.asarray(responses, float))
    z = (Y - Y.mean(1, keepdims=True)) / Y.std(1, keepdims=True)
    with torch.no_grad():
        F = model._features(model._check_stimuli(stimuli))
        centre = model._psi0(F, 1)[0, :-1].numpy()
        out = np.empty(len(Y))
        for i in range(len(Y)):
            q = centre + model.prior_scale * rng.standard_normal((n_draws, centre.size))
            psi = torch.as_tensor(np.concatenate([q, np.zeros((n_draws, 1))], 1))
            zi = torch.as_tensor(z[i])
            le = torch.cat([log_evidence(F.expand(len(b), *F.shape), zi.expand(len(b), -1), b)
                            for b in torch.split(psi, 500)]).numpy()
            out[i] = np.logaddexp.reduce(le) - math.log(n_draws) - Y.shape[1] * math.log(Y[i].std())
    return out


def model_set_calibration(n_neurons: int, n_trials: int, rng, patches, theory_filters, evidence: str = "laplace",
                          n_reference: int = 0):
    """Simulate neurons from {theory, pixel, null} and compute P(model | data) with the library's evidence."""
    from iclr26sci.kernels import FixedFeatureGP, NullGP, PixelRBFGP, model_posterior

    X = patches[rng.choice(len(patches), n_trials, replace=False)]
    models = {"theory": FixedFeatureGP(theory_filters, response_transform="none"),
              "pixel": PixelRBFGP(response_transform="none"), "null": NullGP(response_transform="none")}
    labels, Z = simulate_model_set(models, X, n_neurons, rng)
    mp = model_posterior(models, X, Z, laplace=(evidence == "laplace"))
    out = {"names": mp.names, "labels": labels, "prob": mp.prob, "log_evidence": mp.log_evidence}
    if n_reference:  # an exact-in-the-limit reference on the first neurons: prior importance sampling
        sub = slice(0, n_reference)
        ev = np.stack([prior_is_log_evidence(models["theory"], X, Z[sub], 2000, rng),
                       prior_is_log_evidence(models["pixel"], X, Z[sub], 2000, rng),
                       models["null"].log_evidence(X, Z[sub], laplace=True)])  # the null's Laplace = quadrature
        out["reference_prob"] = np.exp(ev - np.logaddexp.reduce(ev, 0))
        out["reference_log_evidence"] = ev
    return out


def _reliability_figure(res, rel_all, bf_null, names):
    from validation.causal import _plt

    plt = _plt()
    fig, axes = plt.subplots(1, 4, figsize=(14.0, 3.6))
    for j, ax in enumerate(axes[:3]):
        rr = [r for r in rel_all if r["model"] == j]
        x = np.array([r["mean P"] for r in rr])
        ax.plot([0, 1], [0, 1], color="0.5", lw=1, ls="--", label="calibrated")
        ax.vlines(x, [r["band lo"] for r in rr], [r["band hi"] for r in rr], color="C0", lw=5, alpha=0.35,
                  label="99% band (exact, given P)")
        ax.plot(x, [r["frequency"] for r in rr], "o", color="C3", label="observed")
        for r, xi in zip(rr, x):
            ax.annotate(str(r["n"]), (xi, r["frequency"]), textcoords="offset points", xytext=(4, -10), fontsize=8)
        ax.set_xlim(-0.03, 1.03)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel(f"mean P({names[j]} | data) in bin", fontsize=10)
        ax.set_ylabel(f"frequency of true {names[j]}", fontsize=10)
        ax.set_title(f"reliability: {names[j]}", fontsize=11)
        if j == 0:
            ax.legend(fontsize=8, loc="lower right")
    ax = axes[3]
    ax.hist(np.clip(bf_null, -15, 10), bins=30, color="C0", alpha=0.7)
    ax.axvline(math.log(20), color="C3", lw=1.5, label="log 20 (preferred)")
    ax.set_xlabel("max log BF(structured : null)", fontsize=10)
    ax.set_ylabel("neurons", fontsize=10)
    ax.set_title("true-null neurons", fontsize=11)
    ax.legend(fontsize=8)
    from validation._figstyle import readable
    readable(fig)
    return fig


@check(method="kernels", guarantee="N3: simulation-based calibration of the posterior over {theory, pixel, null} "
       "(Laplace evidence): on neurons drawn from the three models' own priors P(theory) + P(pixel) does not "
       "over-claim structure against the null, and on the true-null neurons no structured model is preferred (BF >= 20) above 1/20",
       paper=PAPER, budget=90)
def n3_model_posterior_calibration(profile, rng, evidence: str = "laplace", n_neurons: int | None = None,
                                   figure: bool = True, n_reference: int = 40):
    import torch
    from scipy.stats import binom
    from threadpoolctl import threadpool_limits

    from validation.kernels import _context

    ctx = _context(profile.name)
    Wt = ctx["ec"].sample_filters(3, rng=rng)
    n_neurons = n_neurons or profile.pick(300, 600)
    with threadpool_limits(1):
        torch.set_num_threads(1)
        res = model_set_calibration(n_neurons, 60, rng, ctx["patches"], Wt, evidence=evidence, n_reference=n_reference)
    names, lab, P, ev = res["names"], res["labels"], res["prob"], res["log_evidence"]
    alpha = 0.01
    Pn = np.nan_to_num(P)
    # structured (theory or pixel) against null: the calibration the interpretation of a "structured" neuron needs
    Pb = np.stack([Pn[0] + Pn[1], Pn[2]])
    one = reliability_test(Pb, (lab == 2).astype(int), (0,), one_sided=True, rng=rng)
    tp = reliability_test(P, lab, (0, 1), one_sided=True, rng=rng)       # theory or pixel over-claimed (reported)
    two = reliability_test(P, lab, (0, 1, 2), one_sided=False, rng=rng)  # any miscalibration (reported)
    nul = lab == 2
    n_null = int(nul.sum())
    e = np.nan_to_num(ev, nan=-np.inf)  # a NaN Laplace evidence (Hessian not negative definite): not preferred
    rt = float(np.mean(e[0, nul] - e[2, nul] >= math.log(20)))
    rp = float(np.mean(e[1, nul] - e[2, nul] >= math.log(20)))
    hi = float(binom.ppf(1 - alpha, n_null, 0.05)) / n_null
    table = [dict(r, model=names[r["model"]]) for r in two["rows"]]
    table += [{"model": "null neurons", "n": n_null, "rate theory BF>=20": rt, "rate pixel BF>=20": rp,
               "mean P(null | y)": float(Pn[2, nul].mean()),
               "mean P(structured | y)": float((Pn[0, nul] + Pn[1, nul]).mean())}]
    ref_txt = ""
    if n_reference:
        # where the library's posterior leans to null, compare it with the prior-IS reference (accurate there)
        s_ = np.flatnonzero(Pn[2, :n_reference] >= 0.5)
        Pr = res["reference_prob"][:, s_]
        lap_gap = (res["log_evidence"][:2, s_] - res["reference_log_evidence"][:2, s_])
        ref = {"model": "reference (prior IS)", "n": int(s_.size), "mean P(null|y) library": float(Pn[2, s_].mean()),
               "mean P(null|y) reference": float(Pr[2].mean()), "frequency null": float((lab[s_] == 2).mean()),
               "median library - reference log Z, structured": float(np.nanmedian(lap_gap))}
        table.append(ref)
        ref_txt = (f" Reference: on the {s_.size} of the first {n_reference} neurons whose posterior leans to null "
                   f"(P(null|y) >= 0.5) the structured models' evidences by importance sampling from their "
                   f"hyper-priors (2000 draws; exact as draws grow, accurate where the posterior is broad) give mean "
                   f"P(null|y) {ref['mean P(null|y) reference']:.2f} against the library's "
                   f"{ref['mean P(null|y) library']:.2f}, with a true-null frequency {ref['frequency null']:.2f}; median "
                   f"library - reference structured log evidence {ref['median library - reference log Z, structured']:.2f} "
                   f"nats.")
        res_extra = ref
    else:
        res_extra = {}
    fig = None
    if figure:
        fig = _reliability_figure(res, two["rows"], np.max(e[:2, nul] - e[2, nul], 0), names)
    nan = int(np.isnan(ev).sum())
    return CheckResult(
        criteria=[Criterion("p-value: P(structured|y) over-claims structure (one-sided reliability)", one["p"], alpha, ">="),
                  Criterion("rate theory preferred over null on null neurons", rt, hi, "<="),
                  Criterion("rate pixel preferred over null on null neurons", rp, hi, "<=")],
        table=table, figure=fig,
        extra={"two_sided_p": two["p"], "theory_pixel_overclaim_p": tp["p"], "n_null": n_null, "evidence": evidence, "reference": res_extra},
        details=f"{n_neurons} simulated neurons, 60 natural patches: model index uniform on {{theory (RBF on 3 "
                f"efficient-coding filters), pixel RBF, null}}, hyper-parameters from that model's own hyper-prior "
                f"(normal, sd 3, on the log-parameters), responses drawn from its GP; P(model | data) from the "
                f"{'Laplace' if evidence == 'laplace' else 'MAXIMISED (broken variant)'} evidences (NaN: {nan}), "
                f"the library's standardised responses and profiled constant mean (shared by the three models). "
                f"If P is the exact posterior, the true labels given the data are Categorical(P) draws, so the "
                f"law of the reliability statistic T = max over model and bin [0,.2,..,1] of (sum P - count)/sd is "
                f"simulated exactly by redrawing labels (4000 times); pass: one-sided p >= {alpha} for P(structured|y) = "
                f"P(theory|y) + P(pixel|y) against the truth structured/null (the posterior does not over-claim "
                f"structure). Reported, not criteria: the three-way two-sided p {two['p']:.4f} and the one-sided p of "
                f"theory or pixel over-claimed {tp['p']:.4f} (the Laplace evidence is not calibrated between the "
                f"three models: see docs/kernels.md). True-null neurons: {n_null}; for an exact evidence "
                f"P_null(BF >= 20) <= 1/20 (Markov), pass: each rate <= {hi:.3f} (upper 1% quantile of "
                f"Bin({n_null}, 0.05)).{ref_txt} Broken variant caught (tests/kernels/test_null_model.py): the maximised "
                f"evidence (no Occam factor) over-claims the structured models.")


# ----------------------------------------------------------------------------- N4: SBC of the hyper-parameter posterior
def _laplace_gaussian(gp):
    """The Laplace posterior N(q_hat, (-H)^{-1}) of a fitted NeuronGP's log-parameters (constant mean at its optimum),
    as in :meth:`NeuronGP.log_evidence` (``laplace=True``). Returns (means (N, P'), covariances (N, P', P'), ok (N,))."""
    import torch

    from iclr26sci.kernels._gp import log_evidence, log_prior
    from iclr26sci.kernels._model import psi_hessian

    N = gp._psi.shape[0]
    Fb = gp._F.expand(N, *gp._F.shape)
    c = gp._psi[:, -1:].detach()
    q0 = gp._psi[:, :-1].detach()

    def obj(q):
        p = torch.cat([q, c], 1)
        return log_evidence(Fb, gp._z, p) + log_prior(p, gp._prior_centre, gp.model.prior_scale)

    H, _ = psi_hessian(obj, q0)
    negH = -H.detach().numpy()
    ok = np.array([bool(np.all(np.linalg.eigvalsh(h) > 0)) for h in negH])
    cov = np.stack([np.linalg.inv(h) if o else np.full_like(h, np.nan) for h, o in zip(negH, ok)])
    return q0.numpy(), cov, ok


def hyper_sbc(n_sims: int, n_draws: int, rng, patches, n_trials: int = 60):
    """SBC ranks of the pixel RBF GP's Laplace hyper-parameter posterior, on its scale-free parameters.

    Neurons drawn from the model's own prior (:func:`simulate_model_set` with one model); the library fits them
    (type-II MAP on standardised responses) and its Laplace posterior gives ``n_draws`` Gaussian draws of
    :math:`(\\log\\ell, \\log s^2-\\log\\sigma^2)`, the length-scale and the signal-to-noise ratio, which the
    standardisation of the responses leaves unchanged (the scale itself is not compared: the library's is on the
    standardised scale). Ranks as :func:`iclr26sci.testing.sbc_ranks`. Returns (ranks (S', 2), n_not_pd), S' = S - n_not_pd.
    """
    from iclr26sci.kernels import PixelRBFGP

    X = patches[rng.choice(len(patches), n_trials, replace=False)]
    m = PixelRBFGP(response_transform="none")
    _, Z, params = simulate_model_set({"pixel": m}, X, n_sims, rng, return_params=True)
    Q = np.stack(params)  # (S, 3): log s^2, log l, log sigma^2
    gp = m.fit(X, Z)
    mu, cov, ok = _laplace_gaussian(gp)
    A = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, -1.0]])  # (log l, log s^2 - log sigma^2)
    theta = Q @ A.T
    ranks = []
    for i in np.flatnonzero(ok):  # a Hessian that is not negative definite has no Laplace posterior (counted)
        C = A @ cov[i] @ A.T
        d = mu[i] @ A.T + rng.standard_normal((n_draws, 2)) @ np.linalg.cholesky(C).T
        ranks.append((d < theta[i]).sum(0))
    return np.asarray(ranks, dtype=int), int((~ok).sum())


def _sbc_figure(ranks, n_draws: int, labels, title: str, B: int, alpha: float = 0.01):
    """SBC rank histograms with the band in which each bin count lies with probability 1 - alpha/B (uniform ranks)."""
    from scipy.stats import binom

    from validation.causal import _plt

    plt = _plt()
    S, p = ranks.shape
    width = (n_draws + 1) // B
    lo, hi = binom.ppf(alpha / (2 * B), S, 1 / B), binom.ppf(1 - alpha / (2 * B), S, 1 / B)
    fig, axes = plt.subplots(1, p, figsize=(4.6 * p, 3.5))
    for j, ax in enumerate(np.atleast_1d(axes)):
        counts = np.bincount(ranks[:, j] // width, minlength=B)
        ax.axhspan(lo, hi, color="0.85", label=f"{100 * (1 - alpha):.0f}% band (all bins, Bonferroni)")
        ax.axhline(S / B, color="0.4", lw=1, ls="--", label="uniform")
        ax.bar(np.arange(B), counts, width=0.85, color="C0", alpha=0.8, label="observed")
        ax.set_xlabel(f"rank of the true value among {n_draws} draws (bins of {width})", fontsize=10)
        ax.set_ylabel("simulations", fontsize=10)
        ax.set_title(labels[j], fontsize=11)
        if j == 0:
            ax.legend(fontsize=8, loc="upper center")
    fig.suptitle(title, fontsize=11)
    from validation._figstyle import readable
    readable(fig)
    return fig


@check(method="kernels", guarantee="N4: simulation-based calibration of the pixel RBF GP's Laplace hyper-parameter "
       "posterior: the ranks of the true length-scale and signal-to-noise ratio among its draws are uniform",
       paper=PAPER, budget=60)
def n4_hyperparameter_sbc(profile, rng, n_sims: int | None = None):
    import torch
    from threadpoolctl import threadpool_limits

    from iclr26sci.testing import StatisticalAssertionError, assert_sbc_uniform
    from validation.kernels import _context

    ctx = _context(profile.name)
    S = n_sims or profile.pick(200, 500)
    L = 19
    with threadpool_limits(1):
        torch.set_num_threads(1)
        ranks, not_pd = hyper_sbc(S, L, rng, ctx["patches"])
    alpha, B = 0.01, 10
    try:
        assert_sbc_uniform(ranks, L, bins=B, alpha=alpha)
        calibrated = True
    except StatisticalAssertionError:
        calibrated = False
    from scipy import stats

    counts = [np.bincount(ranks[:, j] // ((L + 1) // B), minlength=B) for j in range(2)]
    pv = np.array([stats.chisquare(c).pvalue for c in counts])  # the p-values assert_sbc_uniform tests
    names = ("log length-scale", r"log SNR $\log(s^2/\sigma^2)$")
    table = [{"parameter": n.split(" $")[0], "p-value": float(pv[j]), "bin counts": counts[j].tolist(),
              "frac rank 0 or 19": float(np.mean((ranks[:, j] == 0) | (ranks[:, j] == L)))}
             for j, n in enumerate(names)]
    fig = _sbc_figure(ranks, L, names, f"Laplace hyper-parameter posterior of the pixel RBF GP: SBC over {len(ranks)} "
                      f"simulated neurons", B, alpha)
    return CheckResult(
        criteria=[Criterion("smallest SBC uniformity p-value (chi-square, Bonferroni over 2)", float(pv.min()),
                            alpha / 2, ">=", passed=calibrated)],
        table=table, figure=fig,
        details=f"{S} neurons drawn from the pixel RBF GP's own prior (hyper-parameters normal, sd 3, on the log scale "
                f"around the library's centre; responses from the GP at 60 natural patches, response_transform='none'), "
                f"fitted by the library (type-II MAP on standardised responses) and {L} draws from its Laplace "
                f"posterior N(q_hat, (-H)^-1); ranks (Talts et al. 2018, iclr26sci.testing.sbc_ranks' definition) of "
                f"the scale-free parameters log l and log s^2 - log sigma^2 (the standardisation leaves them "
                f"unchanged). Hessians not negative definite (excluded): {not_pd}. If the posterior is exact the ranks "
                f"are uniform on 0..{L}; pass: chi-square p >= {alpha}/2 per parameter (assert_sbc_uniform, "
                f"{B} bins). A U-shaped histogram is a posterior too narrow.")
