"""Validation checks of Uncertainty-driven Embedding Convolution (iclr26sci.embeddings), U1-U10."""
from __future__ import annotations

import numpy as np

from iclr26sci.embeddings import (
    ProbabilisticEncoder,
    dot_variance,
    encoders,
    gaussian_convolution,
    normalize_gaussian,
    uec_coefficients,
    uec_combine,
    uncertainty_similarity,
)

from .registry import CheckResult, Criterion, check

PAPER = "arXiv:2507.20718"


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@check(method="embeddings", paper=PAPER,
       guarantee="U1: V(q,c) = sum_d mu_q^2 s_c^2 + s_q^2 mu_c^2 + s_q^2 s_c^2 is the variance of <z_q, z_c> "
                 "for independent diagonal Gaussians (Monte-Carlo agreement within 2%)", budget=4)
def u1_dot_variance_identity(profile, rng):
    n_cfg, n_mc, D = profile.pick(5, 20), 200_000, 32
    rows, worst = [], 0.0
    for i in range(n_cfg):
        mq, mc = rng.normal(size=D) * rng.uniform(0.2, 2), rng.normal(size=D) * rng.uniform(0.2, 2)
        vq, vc = rng.uniform(0.01, 1.0, D), rng.uniform(0.01, 1.0, D)
        V = float(dot_variance(mq[None], vq[None], mc[None], vc[None])[0, 0])
        zq = mq + np.sqrt(vq) * rng.standard_normal((n_mc, D))
        zc = mc + np.sqrt(vc) * rng.standard_normal((n_mc, D))
        s = np.einsum("nd,nd->n", zq, zc)
        v_mc = float(s.var())
        m4 = float(np.mean((s - s.mean()) ** 4))
        se_rel = np.sqrt((m4 - v_mc**2) / n_mc) / v_mc
        err = abs(v_mc - V) / V
        worst = max(worst, err)
        rows.append({"config": i, "V_closed_form": V, "V_monte_carlo": v_mc, "rel_error": err,
                     "mc_rel_se": float(se_rel)})
    return CheckResult(statistic=worst, threshold=0.02, comparison="<=", table=rows,
                       details=f"{n_cfg} random configurations, D={D}, {n_mc} MC draws each; the MC relative "
                               "standard error of a variance at this size is ~0.4-0.6%, so 2% is > 3 SE.")


@check(method="embeddings", paper=PAPER + "; MacKay (1992)",
       guarantee="U2: probit moderation sigmoid(m / sqrt(1 + pi V / 8)) approximates E[sigmoid<z_q, z_c>] "
                 "(max abs error < 0.02)", budget=5)
def u2_probit_moderation(profile, rng):
    n_cfg, n_mc, D = profile.pick(200, 500), profile.pick(20_000, 50_000), 16
    errs, rows = [], []
    for i in range(n_cfg):
        mq, mc = rng.normal(size=D), rng.normal(size=D)
        scale = rng.uniform(0.1, 1.2)
        mq, mc = mq * scale, mc * scale
        vq, vc = rng.uniform(0, 0.5, D) * rng.uniform(0, 1), rng.uniform(0, 0.5, D) * rng.uniform(0, 1)
        zq = mq + np.sqrt(vq) * rng.standard_normal((n_mc, D))
        zc = mc + np.sqrt(vc) * rng.standard_normal((n_mc, D))
        mc_val = float(_sigmoid(np.einsum("nd,nd->n", zq, zc)).mean())
        s = float(uncertainty_similarity((mq[None], vq[None]), (mc[None], vc[None]), beta=1.0, form="probit")[0, 0])
        V = float(dot_variance(mq[None], vq[None], mc[None], vc[None])[0, 0])
        e = abs(mc_val - _sigmoid(s))
        errs.append(e)
        if i < 10:
            rows.append({"m": float(mq @ mc), "V": V, "mc_E_sigmoid": mc_val, "probit": float(_sigmoid(s)),
                         "plain_sigmoid": float(_sigmoid(mq @ mc)), "abs_error": e})
    errs = np.array(errs)
    return CheckResult(statistic=float(errs.max()), threshold=0.02, comparison="<=", table=rows,
                       details=f"{n_cfg} configurations (D={D}, |m| up to ~20, V up to ~10), {n_mc} MC draws "
                               f"(MC SE <= {0.5 / np.sqrt(n_mc):.4f}); median error {np.median(errs):.4f}. The "
                               "bound 0.02 is the known worst case of the probit-logistic approximation plus MC noise.")


@check(method="embeddings", paper=PAPER,
       guarantee="U3: Gaussian convolution moments: sum_k pi_k z_k has mean sum pi_k mu_k and variance "
                 "sum pi_k^2 s_k^2 (MC within 2%)", budget=2)
def u3_convolution_moments(profile, rng):
    K, D, n_mc = 3, 16, profile.pick(200_000, 1_000_000)
    M = rng.normal(size=(K, 1, D))
    V = rng.uniform(0.05, 1.0, (K, 1, D))
    pi = rng.dirichlet(np.ones(K))
    g = gaussian_convolution(M, V, pi)
    Z = sum(pi[k] * (M[k, 0] + np.sqrt(V[k, 0]) * rng.standard_normal((n_mc, D))) for k in range(K))
    var_err = np.abs(Z.var(0) - g.var[0]) / g.var[0]
    mean_z = np.abs(Z.mean(0) - g.mean[0]) / np.sqrt(g.var[0] / n_mc)
    rows = [{"dim": d, "var_closed": float(g.var[0, d]), "var_mc": float(Z.var(0)[d]), "var_rel_err": float(var_err[d]),
             "mean_err_in_se": float(mean_z[d])} for d in range(D)]
    crit = [Criterion("max relative error of the convolved variance", float(var_err.max()), 0.02, "<="),
            Criterion("max |mean error| in standard errors", float(mean_z.max()), 4.5, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"K={K}, D={D}, {n_mc} draws; variance relative SE = sqrt(2/n) = "
                               f"{np.sqrt(2 / n_mc):.4f}; the mean must lie within 4.5 SE in every dimension.")


@check(method="embeddings", paper=PAPER,
       guarantee="U4: inverse-variance weights pi_k ∝ 1/s_k minimise the convolved variance sum pi_k^2 s_k "
                 "on the simplex (cvxpy QP agreement < 1e-5)", budget=3)
def u4_inverse_variance_optimality(profile, rng):
    import cvxpy as cp

    n_cfg = profile.pick(20, 100)
    rows, worst = [], 0.0
    for i in range(n_cfg):
        K = int(rng.integers(2, 7))
        s = rng.uniform(0.05, 5.0, K)
        p = cp.Variable(K)
        prob = cp.Problem(cp.Minimize(cp.sum(cp.multiply(s, cp.square(p)))), [p >= 0, cp.sum(p) == 1])
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
        closed = (1 / s) / np.sum(1 / s)
        d = float(np.max(np.abs(p.value - closed)))
        worst = max(worst, d)
        if i < 8:
            # for comparison: the UEC softmax coefficients of the same per-member variances at T = 1
            soft = uec_coefficients(s[:, None, None], 1.0)[0]
            rows.append({"K": K, "max_abs_diff": d, "qp_objective": float(prob.value),
                         "closed_objective": float(np.sum(closed**2 * s)),
                         "uec_softmax_T1_objective": float(np.sum(soft**2 * s))})
    return CheckResult(statistic=worst, threshold=1e-5, comparison="<=", table=rows,
                       details=f"{n_cfg} random problems solved with Clarabel (tolerances 1e-12). The last "
                               "column shows the variance reached by UEC's softmax weights, which target the "
                               "entropy-regularised surrogate (U5) rather than minimum variance.")


@check(method="embeddings", paper=PAPER,
       guarantee="U5: UEC's coefficients softmax(lambda/T) are the minimiser of the entropy-regularised "
                 "surrogate sum_k pi_k(-lambda_k) - T H(pi) (cvxpy agreement < 1e-5)", budget=1)
def u5_softmax_entropy_optimality(profile, rng):
    import cvxpy as cp

    n_cfg = profile.pick(20, 100)
    rows, worst = [], 0.0
    for i in range(n_cfg):
        K, D = int(rng.integers(2, 6)), 8
        var = rng.uniform(0.2, 3.0, (K, 1, D))
        T = float(rng.uniform(1.0, 10.0))
        pi = uec_coefficients(var, T)[0]
        lam = (1.0 / var).sum(-1)[:, 0]
        z = (lam - lam.max()) / T  # same minimiser, objective divided by T and shifted (better conditioned)
        p = cp.Variable(K)
        obj = cp.Minimize(-(z @ p) - cp.sum(cp.entr(p)))
        prob = cp.Problem(obj, [cp.sum(p) == 1, p >= 0])
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
        d = float(np.max(np.abs(p.value - pi)))
        worst = max(worst, d)
        if i < 8:
            rows.append({"K": K, "T": T, "max_abs_diff": d, "pi_uec": np.round(pi, 5).tolist()})
    return CheckResult(statistic=worst, threshold=1e-5, comparison="<=", table=rows,
                       details=f"{n_cfg} random problems (lambda = total precision of random variances); "
                               "exponential-cone program solved by Clarabel.")


@check(method="embeddings", paper=PAPER,
       guarantee="U6: limits hold exactly: T=inf gives the uniform ensemble, beta=0 gives the plain dot/cosine, "
                 "zero variance gives the deterministic similarity", budget=1)
def u6_limits(profile, rng):
    K, n, D = 3, 20, 24
    M = rng.normal(size=(K, n, D))
    V = rng.uniform(0.01, 2.0, (K, n, D))
    g = uec_combine(M, V, np.inf)
    d_uniform = float(np.max(np.abs(g.mean - M.mean(0))))
    d_pi = float(np.max(np.abs(g.coefficients - 1 / K)))
    q, c = (M[0], V[0]), (M[1], V[1])
    d_dot = float(np.max(np.abs(uncertainty_similarity(q, c, beta=0.0) - M[0] @ M[1].T)))
    cos = (M[0] / np.linalg.norm(M[0], axis=1, keepdims=True)) @ (M[1] / np.linalg.norm(M[1], axis=1, keepdims=True)).T
    d_cos = float(np.max(np.abs(uncertainty_similarity(q, c, beta=0.0, form="mteb") - cos)))
    z = np.zeros_like(M[0])
    d_det = float(np.max(np.abs(uncertainty_similarity((M[0], z), (M[1], z), beta=3.0) - M[0] @ M[1].T)))
    # beta -> large with variance: the moderation is active (so the limits are not vacuous)
    active = float(np.max(np.abs(uncertainty_similarity(q, c, beta=1.0) - M[0] @ M[1].T)))
    rows = [{"limit": "T=inf mean vs uniform mean", "max_abs_diff": d_uniform},
            {"limit": "T=inf coefficients vs 1/K", "max_abs_diff": d_pi},
            {"limit": "beta=0 probit vs dot", "max_abs_diff": d_dot},
            {"limit": "beta=0 mteb vs cosine", "max_abs_diff": d_cos},
            {"limit": "zero variance, beta=3 vs dot", "max_abs_diff": d_det},
            {"limit": "(control) beta=1 with variance vs dot", "max_abs_diff": active}]
    stat = max(d_uniform, d_pi, d_dot, d_cos, d_det)
    crit = [Criterion("max deviation from the exact limits", stat, 1e-12, "<="),
            Criterion("(control) moderation active with variance, beta=1", active, 1e-3, ">")]
    return CheckResult(criteria=crit, table=rows,
                       details="Exact equalities up to floating-point rounding of the mean (1e-12); the control "
                               "row must differ, showing the limits are not trivially met.")


@check(method="embeddings", paper=PAPER,
       guarantee="U7: inflating member k's raw variance by c > 1 strictly lowers pi_k and leaves the other "
                 "members' weight ratios unchanged (delta normalisation); the official code's normalisation "
                 "sigma^2/||sigma^2||^2 breaks this", budget=2)
def u7_monotonicity(profile, rng):
    n_trials = profile.pick(2000, 20000)
    viol = {"delta": 0, "code": 0}
    ratio_dev, n_saturated = 0.0, 0
    for _ in range(n_trials):
        K, D = 3, 8
        M = rng.normal(size=(K, 1, D))
        Vraw = rng.uniform(0.05, 2.0, (K, 1, D))
        k, c = int(rng.integers(K)), float(rng.uniform(1.1, 5.0))
        T = float(rng.uniform(5.0, 200.0))
        V2 = Vraw.copy()
        V2[k] *= c
        for norm in ("delta", "code"):
            _, vh = normalize_gaussian(M, Vraw, norm)
            _, vh2 = normalize_gaussian(M, V2, norm)
            p1, p2 = uec_coefficients(vh, T)[0], uec_coefficients(vh2, T)[0]
            # a weight that is 0 or 1 to double precision (softmax at large T) cannot decrease strictly in
            # floating point; there only "does not increase" is testable, and such trials are counted apart
            saturated = not (np.finfo(float).tiny < p1[k] < 1.0 - 4 * np.finfo(float).eps)
            if p2[k] > p1[k] or (p2[k] == p1[k] and not saturated):
                viol[norm] += 1
            if norm == "delta":
                n_saturated += int(saturated)
            if norm == "delta":
                o = [j for j in range(K) if j != k]
                ratio_dev = max(ratio_dev, abs(np.log(p1[o[0]] / p1[o[1]]) - np.log(p2[o[0]] / p2[o[1]])))
    rows = [{"normalisation": "delta (library default)", "violations": viol["delta"], "trials": n_trials,
             "max_log_ratio_change_others": ratio_dev},
            {"normalisation": "code (official, sigma^2/||sigma^2||^2)", "violations": viol["code"], "trials": n_trials}]
    crit = [Criterion("violations of strict decrease of pi_k (delta normalisation)", viol["delta"], 0, "<="),
            Criterion("max change of the other members' log weight ratio", ratio_dev, 1e-9, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details="Random (mu, sigma^2, k, c, T); a violation is pi_k not strictly decreasing (where pi_k is 0 or 1 "
                               "to double precision, only an increase counts). The code's "
                               "normalisation divides by the squared variance norm, so inflating sigma^2 shrinks the "
                               "normalised variance and raises pi_k: its violation count is shown, not gated.")


@check(method="embeddings", paper=PAPER,
       guarantee="U8: permutation equivariance: reordering the members leaves the convolved mean and variance "
                 "unchanged and permutes the coefficients", budget=1)
def u8_permutation_equivariance(profile, rng):
    n_trials = profile.pick(500, 5000)
    worst = 0.0
    for _ in range(n_trials):
        K, n, D = int(rng.integers(2, 6)), 3, 6
        M = rng.normal(size=(K, n, D))
        V = rng.uniform(0.05, 2.0, (K, n, D))
        T = float(rng.uniform(1.0, 50.0))
        p = rng.permutation(K)
        g, g2 = uec_combine(M, V, T), uec_combine(M[p], V[p], T)
        worst = max(worst, float(np.max(np.abs(g.mean - g2.mean))), float(np.max(np.abs(g.var - g2.var))),
                    float(np.max(np.abs(g.coefficients[:, p] - g2.coefficients))))
    return CheckResult(statistic=worst, threshold=1e-12, comparison="<=",
                       table=[{"trials": n_trials, "max_abs_diff": worst}],
                       details="Random ensembles and permutations; equality up to summation-order rounding.")


def _ffn_pairs(profile, rng, n, max_words=None):
    max_words = profile.pick(40, 80) if max_words is None else max_words
    return encoders.lee_pairs(n, max_words=max_words, rng=int(rng.integers(2**31 - 1)))


@check(method="embeddings", paper=PAPER,
       guarantee="U9: the Laplace posterior variance shrinks like 1/n: doubling the contrastive fitting pairs "
                 "halves the median weight variance (ratio in [0.4, 0.6]) for MiniLM's FFN layer and an adapter", budget=20)
def u9_laplace_variance_one_over_n(profile, rng):
    # The n-pair variance is estimated from BOTH halves A, B of the 2n set (geometric mean of the two n-pair
    # posteriors), not from one half. With one half the statistic was 0.025, 0.111, 0.089, 0.017, 0.034 at
    # master seeds 0-4 (32 vs 64 pairs): which half holds the few confused pairs that dominate the Fisher
    # decided the verdict. v_{A+B} / sqrt(v_A v_B) = sqrt(F_A F_B) / (F_A + F_B) = 1/2 - O(imbalance^2).
    mini = encoders.minilm(max_seq_length=profile.pick(48, 128))
    lsa = encoders.lsa_lee(rng=0)
    rows, ratios = [], []
    for label, n, make in [("MiniLM FFN output projection", profile.pick(32, 96),
                            lambda: ProbabilisticEncoder(mini, method="ffn")),
                           ("LSA (Lee) + linear adapter", 144, lambda: ProbabilisticEncoder(lsa, dim=64))]:
        pairs2 = _ffn_pairs(profile, rng, 2 * n)
        perm = rng.permutation(2 * n)
        pairs2 = [pairs2[i] for i in perm]
        fa = make().fit_laplace(pairs2[:n], batch_size=8, shuffle=False)
        fb = make().fit_laplace(pairs2[n:], batch_size=8, shuffle=False)
        f2 = make().fit_laplace(pairs2, batch_size=8, shuffle=False)
        va, vb, v2 = fa.laplace_.posterior_var_, fb.laplace_.posterior_var_, f2.laplace_.posterior_var_
        r = float(np.median(v2 / np.sqrt(va * vb)))
        ratios.append(r)
        rows.append({"layer": label, "n": n, "2n": 2 * n, "median_var_ratio": r,
                     "median_ratio_vs_half_A_only": float(np.median(v2 / va)),
                     "fisher_B_over_A_total": float(fb.laplace_.fisher_.sum() / fa.laplace_.fisher_.sum()),
                     "median_var_n": float(np.median(va)),
                     "frac_pruned_if_official_prune": float(np.mean(np.abs(fa.laplace_.weight_) < np.sqrt(va)))})
    worst = float(abs(ratios[0] - 0.5))
    return CheckResult(statistic=worst, threshold=0.1, comparison="<=", table=rows,
                       details="Posterior variance 1/(F + 1e-5) with the empirical Fisher summed over pairs. The 2n "
                               "set is split into halves A and B (batches of 8, in-batch negatives, pairs in random "
                               "order); the n-pair variance is the geometric mean of the A and B posteriors, so the "
                               "ratio does not depend on which half holds the confused pairs that dominate a small "
                               "Fisher (the one-half ratio is shown for comparison). Gated on MiniLM (the spec's U9; "
                               "the adapter row is reported). Statistic: |ratio - 0.5| (spec: ratio in [0.4, 0.6]). "
                               "The last column shows how much of the layer the official post-processing "
                               "(|w| < sd -> variance 0) would zero at this data size.")


@check(method="embeddings", paper=PAPER,
       guarantee="U10: uncertainty is informative: the UEC ensemble variance predicts top-1 retrieval misses "
                 "(AUROC > 0.55) and the weak Lee-trained member gets less than uniform weight on out-of-domain text "
                 "(gated on the library default, the paper's uncalibrated Laplace variance)",
       budget=20)
def u10_uncertainty_informativeness(profile, rng):
    from data_adapters import load_lee_corpus

    from iclr26sci.embeddings import UEC
    from iclr26sci.embeddings._encoders import gensim_datapath
    from iclr26sci.embeddings.encoders import _sentences

    background, lee50 = load_lee_corpus()
    n_fit, n_cal = profile.pick(48, 128), profile.pick(48, 64)
    order = rng.permutation(len(background))
    fit_docs = [background[i] for i in order[:n_fit]]
    cal_docs = [background[i] for i in order[n_fit:n_fit + n_cal]]  # held out: variance calibration only
    eval_docs = [background[i] for i in order[n_fit + n_cal:n_fit + n_cal + profile.pick(110, 250)]] + lee50
    pairs = encoders.lee_pairs(docs=fit_docs, max_words=60)
    cal_pairs = encoders.lee_pairs(docs=cal_docs, max_words=60)
    msl = profile.pick(48, 128)
    queries, docs = [], []
    for d in eval_docs:
        s = _sentences(d)
        if len(s) >= 2:
            queries.append(s[0])
            docs.append(" ".join(s[1:]))
    with open(gensim_datapath("pang_lee_polarity.cor"), encoding="latin-1") as f:
        ood = [line.split(" ", 1)[1].strip() for line in f if " " in line][: profile.pick(60, 200)]
    mini_enc = encoders.minilm(max_seq_length=msl)
    d2v_enc = encoders.doc2vec_lee(vector_size=50, epochs=20, rng=0)
    lsa_enc = encoders.lsa_lee(rng=0)
    rows, member_rows, res = [], [], {}
    for curv in profile.pick(("ef",), ("ef", "mc_fisher")):
        mini = ProbabilisticEncoder(mini_enc, method="ffn", curvature=curv).fit_laplace(pairs, rng=1)
        weak = ProbabilisticEncoder(d2v_enc, dim=mini.output_dim, rng=2, curvature=curv).fit_laplace(pairs, rng=2)
        lsa = ProbabilisticEncoder(lsa_enc, dim=mini.output_dim, rng=3, curvature=curv).fit_laplace(pairs, rng=3)
        members = [mini, weak, lsa]
        probe = UEC(members)
        Mq, Vq = probe.member_embeddings(queries)  # uncalibrated (paper, library default)
        Md, Vd = probe.member_embeddings(docs)
        Mo, Vo = probe.member_embeddings(ood)
        for m in members:
            m.calibrate(cal_pairs)
        c = np.array([m.variance_scale_ for m in members])[:, None, None]
        # the calibrated member variances are the uncalibrated ones times the fitted scale
        Vq_cal = probe.member_embeddings(queries[:4])[1]
        assert np.allclose(Vq_cal, (Vq * c)[:, :4], rtol=1e-10)
        miss_uniform = float(np.mean(uncertainty_similarity(
            (Mq.mean(0), 0 * Vq[0]), (Md.mean(0), 0 * Vd[0]), beta=0.0).argmax(1) != np.arange(len(queries))))
        for variant, scale in [("paper (uncalibrated, default)", np.ones_like(c)),
                               ("calibrated on held-out pairs", c)]:
            vq, vd, vo = Vq * scale, Vd * scale, Vo * scale
            # temperature fixed a priori on the scale of the precisions (no labels used): the median over
            # queries of the spread of the per-dimension mean precision across members
            lam = (1.0 / vq).mean(-1)
            T = float(np.median(lam.max(0) - lam.min(0)))
            ens = UEC(members, temperature=T, beta=0.1, reduce="mean")
            gq, gd = ens.combine(Mq, vq), ens.combine(Md, vd)
            S = ens.score(gq, gd)
            miss = (S.argmax(1) != np.arange(len(queries))).astype(int)
            auroc = _auroc(gq.var.sum(1), miss)
            pi_ood = float(ens.combine(Mo, vo).coefficients[:, 1].mean())
            pi_in = float(gq.coefficients[:, 1].mean())
            res[(curv, variant)] = (auroc, pi_ood)
            rows.append({"curvature": curv, "variance": variant, "queries": len(queries),
                         "top1_miss_rate": float(miss.mean()), "miss_rate_uniform_mean": miss_uniform,
                         "AUROC_var_vs_miss": auroc, "T": T, "pi_weak_in_domain": pi_in,
                         "pi_weak_out_of_domain": pi_ood, "uniform": 1 / 3,
                         "pi_minilm_in_domain": float(gq.coefficients[:, 0].mean()),
                         "scales_c(minilm,d2v,lsa)": [float(f"{x:.3g}") for x in scale.ravel()]})
        for k, m in enumerate(members):
            Sk = uncertainty_similarity((Mq[k], Vq[k]), (Md[k], Vd[k]), beta=0.0)
            mk = (Sk.argmax(1) != np.arange(len(queries))).astype(int)
            member_rows.append({"curvature": curv, "member": m.label, "top1_miss_rate": float(mk.mean()),
                                "AUROC_own_var_vs_own_miss": _auroc(Vq[k].sum(1), mk),
                                "median_norm_var_per_dim": float(np.median(Vq[k])),
                                "var_ood_over_in_domain": float(Vo[k].sum(1).mean() / Vq[k].sum(1).mean()),
                                "median_weight_fisher": float(np.median(m.laplace_.fisher_)),
                                "variance_scale_c": m.variance_scale_})
    rows = rows + member_rows
    keys = list(dict.fromkeys(k for r in rows for k in r))  # one column set: every row keeps its cells
    rows = [{k: r.get(k, "") for k in keys} for r in rows]
    auroc, pi_ood = res[("ef", "paper (uncalibrated, default)")]
    crit = [Criterion("AUROC of the ensemble variance for top-1 misses", auroc, 0.55, ">"),
            Criterion("weak member's mean weight on out-of-domain text", pi_ood, 1 / 3, "<")]
    return CheckResult(criteria=crit, table=rows,
                       details="Laplace (empirical Fisher, official; the full profile adds the label-sampled Fisher) "
                               "fitted on Lee background pairs; a disjoint set of background pairs calibrates the "
                               "per-member variance scale (ProbabilisticEncoder.calibrate, reported, not gated); "
                               "retrieval documents are disjoint from both. Queries are first sentences, documents "
                               "the rest. Gated on the library default (uncalibrated); passing also needs the weak "
                               "member's mean weight on movie-review sentences below 1/3. An AUROC of own variance "
                               "below 0.5 means a member's variance is higher on texts it gets right; a scalar "
                               "calibration cannot change that ordering.")


@check(method="embeddings", paper=PAPER,
       guarantee="The one-pass first-order variance through MiniLM's output LayerNorm and mean pooling matches "
                 "Monte-Carlo sampling of the FFN weight (median ratio within 15%), where the code's "
                 "parameter-free-LayerNorm propagation does not", budget=10)
def u0_first_order_propagation(profile, rng):
    import torch

    mini = encoders.minilm(max_seq_length=48)
    pairs = _ffn_pairs(profile, rng, 8)
    pe = ProbabilisticEncoder(mini, method="ffn").fit_laplace(pairs, batch_size=4, rng=0)
    texts = [p[0] for p in pairs[:3]]
    _, a, r, mask = mini._forward_capture(texts)
    a, r, mask = a.double(), r.double(), mask.double()
    out = mini.ffn_output
    W = out.dense.weight.detach().double()
    s = 1e-10
    V = torch.as_tensor(pe.laplace_.var_) * s
    g = torch.Generator().manual_seed(int(rng.integers(2**31 - 1)))
    n_mc = profile.pick(300, 2000)
    acc = []
    for _ in range(n_mc):
        Wt = W + V.sqrt() * torch.randn(W.shape, generator=g, dtype=torch.float64)
        h = torch.nn.functional.linear(a, Wt, out.dense.bias.double()) + r
        h = torch.nn.functional.layer_norm(h, (h.shape[-1],), out.LayerNorm.weight.double(),
                                           out.LayerNorm.bias.double(), out.LayerNorm.eps)
        acc.append((h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True))
    mc = torch.stack(acc).var(0).numpy()
    _, lin, code = mini.encode_with_features(texts)
    gamma = out.LayerNorm.weight.detach().double().numpy()
    v_lin = pe.laplace_.propagate(lin, out_scale=gamma, scale=s)
    v_code = pe.laplace_.propagate(code, scale=s)
    r_lin, r_code = float(np.median(mc / v_lin)), float(np.median(mc / v_code))
    rows = [{"propagation": "linearized (library)", "median_mc_over_pred": r_lin,
             "spearman_per_dim": float(_spearman(mc.ravel(), v_lin.ravel()))},
            {"propagation": "code (parameter-free LN)", "median_mc_over_pred": r_code,
             "spearman_per_dim": float(_spearman(mc.ravel(), v_code.ravel()))}]
    return CheckResult(statistic=abs(np.log(r_lin)), threshold=float(np.log(1.15)), comparison="<=", table=rows,
                       details=f"{n_mc} weight samples at a small posterior scale (1e-10 x the fitted variance, where "
                               f"first order is exact); per-dimension MC relative SE ~ {np.sqrt(2 / n_mc):.3f}.")


def _auroc(score, label):
    from scipy.stats import rankdata

    label = np.asarray(label)
    n1 = int(label.sum())
    n0 = len(label) - n1
    if n1 == 0 or n0 == 0:
        return float("nan")
    r = rankdata(score)
    return float((r[label == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _spearman(x, y):
    from scipy.stats import spearmanr

    return spearmanr(x, y).statistic


# ----------------------------------------------------------------------------- claims tier (issue 45)
#: the design of the claim: members, per-item noise sd range (log-uniform), UEC temperature
UEC_DESIGN = dict(k=3, sd_range=(0.3, 3.0), temperature=1.0)


def uec_gain_theory(k: int = 3, sd_range=(0.3, 3.0), temperature: float = 1.0, nodes: int = 48) -> dict:
    r"""Expected cosines of the claim's design in the large-D limit, by Gauss-Legendre quadrature (no sampling).

    Member j of an item is :math:`\mu_j = (z + s_j \epsilon_j/\sqrt D) / \lVert\cdot\rVert` with
    :math:`\log s_j \sim U[\log 0.3, \log 3]` independently. As :math:`D \to \infty`,
    :math:`\mu_j = c_j z + \sqrt{1 - c_j^2}\, u_j` with :math:`c_j = (1 + s_j^2)^{-1/2}` and orthonormal
    :math:`u_j \perp z`, so a combination :math:`\sum_j \pi_j \mu_j` has cosine to :math:`z`

    .. math:: \cos(\pi) = \frac{\sum_j \pi_j c_j}{\sqrt{(\sum_j \pi_j c_j)^2 + \sum_j \pi_j^2 (1 - c_j^2)}}.

    Returned expectations: one member (:math:`E c_j`), the uniform mean (:math:`\pi_j = 1/k`), the oracle UEC
    (:math:`\pi = \mathrm{softmax}(s^{-2} / T)`, the true variances) and ``oracle_gain`` = oracle minus the better
    of (member, uniform): the most that per-item uncertainty weighting can gain over a fixed combination here.
    """
    from numpy.polynomial.legendre import leggauss

    x, w = leggauss(nodes)
    a, b = np.log(sd_range[0]), np.log(sd_range[1])
    ls, ww = (a + b) / 2 + (b - a) / 2 * x, w / 2
    S = np.exp(np.stack(np.meshgrid(*[ls] * k, indexing="ij")).reshape(k, -1))
    W = np.ones(1)
    for _ in range(k):
        W = np.multiply.outer(W, ww)
    W = W.ravel()
    c = 1.0 / np.sqrt(1.0 + S ** 2)

    def cos(pi):
        num = (pi * c).sum(0)
        return num / np.sqrt(num ** 2 + (pi ** 2 * (1 - c ** 2)).sum(0))

    lam = 1.0 / S ** 2 / temperature
    pi = np.exp(lam - lam.max(0))
    pi /= pi.sum(0)
    member, uniform, oracle = (float(W @ v) for v in (c[0], cos(np.full_like(S, 1.0 / k)), cos(pi)))
    return {"member": member, "uniform": uniform, "oracle": oracle, "oracle_gain": oracle - max(member, uniform)}


#: the oracle's expected gain over the better fixed combination (theory above: 0.0392 in cosine)
UEC_ORACLE_GAIN = uec_gain_theory(**UEC_DESIGN)["oracle_gain"]
#: smallest effect of interest: half of what exact per-item uncertainty can gain in this design (0.0196): a UEC whose
#: estimated variances lose more than half of the oracle's gain does not deliver the mechanism the paper claims
UEC_MIN_GAIN = 0.5 * UEC_ORACLE_GAIN


def uec_members_experiment(rng, n_items: int = 400, dim: int = 32, k: int = 3, weights: str = "uec",
                           variances: str = "laplace") -> dict:
    """Synthetic heteroscedastic members: cosine to the true embedding for UEC, each member, uniform, oracle."""
    z = rng.standard_normal((n_items, dim))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    s = np.exp(rng.uniform(np.log(0.3), np.log(3.0), size=(k, n_items)))  # per-item noise sd of each member
    mu = z[None] + s[..., None] * rng.standard_normal((k, n_items, dim)) / np.sqrt(dim)
    mu /= np.linalg.norm(mu, axis=2, keepdims=True)
    true_var = np.broadcast_to((s ** 2)[..., None], mu.shape).copy()
    lap = true_var * np.exp(0.3 * rng.standard_normal((k, n_items, 1)))  # informative but noisy Laplace variance
    if variances == "shuffled":
        lap = lap[:, rng.permutation(n_items)]
    cos = lambda m: np.sum(m / np.linalg.norm(m, axis=1, keepdims=True) * z, axis=1)  # noqa: E731
    temp = np.inf if weights == "uniform" else 1.0
    uec = uec_combine(mu, lap, temperature=temp, reduce="mean").mean
    orc = gaussian_convolution(mu, true_var, uec_coefficients(true_var, temperature=1.0, reduce="mean")).mean
    members = np.stack([cos(mu[j]) for j in range(k)])
    uni = cos(mu.mean(axis=0))
    best = members[int(np.argmax(members.mean(axis=1)))]
    base = uni if uni.mean() >= best.mean() else best
    return {"uec": cos(uec), "oracle": cos(orc), "uniform": uni, "best_member": best, "baseline": base,
            "members": members}


def _uec_figure(series, theory):
    """Mean cosine to the true embedding with 95% t intervals over items, per embedding; the theory's values dotted."""
    import matplotlib.pyplot as plt
    from scipy.stats import t as student

    names = list(series)
    m = np.array([series[k].mean() for k in names])
    half = np.array([student.ppf(0.975, len(series[k]) - 1) * series[k].std(ddof=1) / np.sqrt(len(series[k]))
                     for k in names])
    fig, ax = plt.subplots(figsize=(8.0, 0.6 * len(names) + 2.0))
    y = np.arange(len(names))[::-1]
    ax.barh(y, m, color="#9fc5a8", edgecolor="k", height=0.6)
    ax.errorbar(m, y, xerr=half, fmt="none", ecolor="k", capsize=5, lw=1.5, label="95% CI over items")
    th = [theory.get(k) for k in names]
    ty = [yy for yy, v in zip(y, th) if v is not None]
    ax.plot([v for v in th if v is not None], ty, "D", color="C3", ms=7, label="theory (D -> infinity)")
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=11)
    ax.set_xlabel("mean cosine to the true embedding", fontsize=11)
    ax.set_ylabel("embedding", fontsize=11)
    lo = float(min(m - half)) - 0.05
    ax.set_xlim(max(0.0, lo), 1.0)
    ax.set_title(f"UEC vs its members ({len(series[names[0]])} items, D = 32, 3 members)", fontsize=11)
    ax.tick_params(labelsize=10)
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.4, -0.22), ncol=2, frameon=False)
    from validation._figstyle import readable
    readable(fig)
    return fig


def _claim_uec(profile, rng, n_items=400, weights="uec", variances="laplace"):
    from validation.claims import ClaimResult, paired_effect

    o = uec_members_experiment(rng, n_items=n_items, weights=weights, variances=variances)
    lab = f"UEC (weights={weights}, variances={variances})"
    eff = paired_effect(o["uec"], o["baseline"], min_effect=UEC_MIN_GAIN,
                        what=f"cosine to the true embedding, {lab} - better of (best single member, uniform mean), "
                             "paired over items")
    ctrl = paired_effect(o["oracle"], o["baseline"], min_effect=UEC_ORACLE_GAIN,
                         what="cosine, UEC with the true per-item noise variances (oracle) - same baseline")
    th = uec_gain_theory(**UEC_DESIGN)
    series = {lab: o["uec"], "oracle UEC (true variances)": o["oracle"], "uniform mean": o["uniform"],
              **{f"member {j + 1}": o["members"][j] for j in range(len(o["members"]))}}
    theory = {"oracle UEC (true variances)": th["oracle"], "uniform mean": th["uniform"],
              **{f"member {j + 1}": th["member"] for j in range(len(o["members"]))}}
    rows = [{"embedding": name, "mean cosine": round(float(x.mean()), 4),
             "se": round(float(x.std(ddof=1) / np.sqrt(len(x))), 4),
             "theory (D -> inf)": round(theory[name], 4) if name in theory else None}
            for name, x in series.items()]
    gap = float((o["oracle"] - o["baseline"]).mean())
    return ClaimResult(effect=eff, control=ctrl, table=rows, figure=_uec_figure(series, theory),
                       details=f"{n_items} items, D=32, 3 members with per-item noise sd log-uniform in [0.3, 3]; "
                               "Laplace-style variance = true variance x lognormal(0, 0.3); T=1, reduce='mean'. "
                               f"min effect {UEC_MIN_GAIN:.4f} = half the oracle's theoretical gain over the better "
                               f"fixed combination ({UEC_ORACLE_GAIN:.4f}, large-D quadrature, uec_gain_theory); the "
                               f"control must show that full gain. Oracle gain measured here {gap:.4f} "
                               "(docs/embeddings.md 'Claims').")


from validation.claims import claim as _claim  # noqa: E402


@_claim(method="embeddings", paper=PAPER, budget=20,
        claim="Uncertainty-weighted per-item combination of embedding models (UEC) beats its best single member "
              "and the uniform ensemble",
        paper_setting="MMTEB retrieval/classification/STS and MIRACL, ensembling bge/e5/gte (spec section 4)",
        paper_number="qualitative: UEC consistently beats individual models and uniform/weighted ensembles "
                     "(e.g. nDCG@10 24.01 on SCIDOCS; baselines not readable)",
        regime="Each member's noise varies item by item (heteroscedastic, sd 0.3-3) and its Laplace-style variance "
               "tracks that noise, so no single member or fixed average is best everywhere while per-item "
               "uncertainty weights can down-weight the noisy member on each item.",
        control="Oracle: UEC with the true per-item noise variances as the uncertainty, same items and baseline",
        test="one-sided paired t over items, alpha 0.05; min effect half the oracle's theoretical gain (0.0196 "
             "in cosine), the control's the full gain (0.0392)")
def c_uec_beats_members(profile, rng, weights="uec", variances="laplace"):
    return _claim_uec(profile, rng, weights=weights, variances=variances)
