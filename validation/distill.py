"""Validation of knowledge purification (report section "distill"): checks 1-8 of the spec (arXiv:2602.01064).

Synthetic checks use :class:`iclr26sci.distill.SyntheticRationaleQA` (teachers of known per-domain accuracy
p_{k,d}, so router regret is exact) with the hashed bag-of-words embedder (MiniLM's load and encode time
would exceed the quick budget; the routers' default is MiniLM). Checks 2, 4 and 8 also run on CHAMP
(four real LLM teachers, correctness graded from their final answers). Every check takes ``variant=``
naming a broken implementation it must catch (tests/distill/test_distill_validation.py runs them).
"""
from __future__ import annotations

import contextlib
import functools
import zlib
from unittest import mock

import numpy as np

from ._figstyle import readable, subplots
from .claims import claim as _claim
from .registry import CheckResult, Criterion, check

PAPER = ("Jin, Shao, Wen, Wu, Feng, Yang, Zhang and Tao (2026) Exploring Knowledge Purification in Multi-Teacher "
         "Knowledge Distillation for LLMs, arXiv:2602.01064 (ICLR 2026); pipeline of TinyLLM (Tian et al., WSDM 2025)")


def _emb():
    from iclr26sci.distill import HashingEmbedder

    return HashingEmbedder(dim=256)


def _seed(rng):
    return int(rng.integers(0, 2**31 - 1))


def _routers(variant=None, m=10):
    from iclr26sci.distill import ClassifierRouter, PlackettLuceRouter, SimilarityRouter

    e = _emb()
    return {"plackett_luce": PlackettLuceRouter(embedder=e), "plm_classifier": ClassifierRouter(embedder=e),
            "similarity_knn": SimilarityRouter(embedder=e, m=m)}


class _RandomRouter:
    """Broken variant: routes uniformly at random (what a router that learned nothing does)."""

    def __init__(self, rng):
        self.rng = rng

    def fit(self, data):
        return self

    def purify(self, data):
        from iclr26sci.distill import RandomTeacher

        return RandomTeacher(rng=self.rng).purify(data)


def _paired(router_correct, data):
    """Per-question difference between the routed target's correctness and the naive mean over K targets."""
    d = np.asarray(router_correct, float) - data.correct.mean(axis=1)
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))


def _synthetic(rng, n_train, n_test, ood=False):
    from iclr26sci.distill import SyntheticRationaleQA

    g = SyntheticRationaleQA(rng=_seed(rng))
    return g, g.generate(n_train, rng=_seed(rng)), g.generate(n_test, rng=_seed(rng), ood=ood)


def _champ(setting="0-Shot"):
    from data_adapters.champ_teachers import load_champ_teachers

    return load_champ_teachers(setting, split=None)


# ------------------------------------------------------------------------------------------------ 1
def _as_option_text(d):
    """The same questions with every answer (gold and each teacher's) given as its option's text, not its letter.

    Session 2 showed (scripts/distill_c1_probe.py) that the seq2seq student cannot learn the pointer from a fact to
    a shuffled option letter (0.31 / 0.32 train / held-out accuracy, chance 1/3), so letter answers carry no signal.
    """
    import re

    from iclr26sci.distill import MultiTeacherData

    opts = [dict(re.findall(r"\(([a-d])\) (\w+)", q)) for q in d.questions]

    def txt(o, a):
        return o.get(a.strip("()"), a)

    return MultiTeacherData(d.questions, d.rationales, [txt(o, a) for o, a in zip(opts, d.answers)],
                            teacher_answers=[[txt(o, a) for a in row] for o, row in zip(opts, d.teacher_answers)],
                            correct=d.correct, domains=d.domains, teachers=d.teachers)


# Design (session 3). The session-2 design could not show anything: with letter answers every student is at chance
# (the pointer to a shuffled letter is not learnt), with text answers and the GOLD answer task every student reaches
# the ceiling from the gold labels alone. So here the student learns only from its teachers, as in distillation
# without labels: the answer task is trained on each teacher's own (possibly wrong) stated answer, the rationale
# tasks on each teacher's rationale (TinyLLM's prefixes), on the memorisable biomedical domain (drug -> enzyme; the
# spec's arithmetic domain is beyond this student). Teachers are added in decreasing training accuracy. The
# statistic is the paired per-question difference acc(K=1) - acc(K=4) on the same 600 held-out questions, with its
# SE (threshold: > 2 SE, a one-sided ~2.3% test), and the spec's Spearman(K, acc) < 0. All K get the same number of
# optimiser steps (variant "epochs": the same number of epochs, so K = 4 trains 4x as long as K = 1).
# Broken variant "agreeing": the K streams are copies of the best teacher (no conflict): the difference must vanish.
# Measured (session 3, quick sizes, 1 thread; docs/distill.md): step-matched, master seeds 0/1/2: acc(1) - acc(4) =
# +0.125 (SE 0.022) / +0.077 (0.018) / +0.172 (0.018), Spearman -0.6 / -0.2 / -1.0: PASS at all three. Equal epochs
# (variant "epochs"): -0.452 / -0.403 / -0.295, Spearman +1 / +1 / +0.8: FAIL (the K = 1 student is undertrained).
# Seeds 3/4 (run by the lead): +0.280 (0.020) / +0.300 (0.024), Spearman -1.0 / -0.8: PASS. Broken variant
# "agreeing" at seed 0: -0.020 (SE 0.017), Spearman 0: FAIL, as it must. ~150 CPU-s per seed: full profile only.
@check(method="distill", paper=PAPER, slow=True, budget=900,
       guarantee="1 (conflict effect): with TinyLLM's naive multi-teacher loss, adding teachers in decreasing "
                 "quality (K = 1..4) lowers the seq2seq student's held-out accuracy: Spearman(K, acc) < 0 and "
                 "acc(K=1) - acc(K=4) > 2 SE (over student trainings paired by seed); the student learns from the "
                 "teachers' own answers and rationales (no gold labels), the same number of optimiser steps for every K")
def c1_conflict_effect(profile, rng, variant=None):
    from scipy.stats import spearmanr

    from iclr26sci.distill import Seq2SeqStudent, SingleTeacher, SyntheticRationaleQA, distill

    g = SyntheticRationaleQA(rng=_seed(rng))
    # one size for both profiles (400 training questions, 8 epochs): the seed table above was measured at this size,
    # and a larger full-profile size would be a different, unverified check
    tr = _as_option_text(g.generate(400, domains="biomedical", rng=_seed(rng)))
    te = _as_option_text(g.generate(600, domains="biomedical", rng=_seed(rng)))
    order = list(np.argsort(-tr.teacher_accuracy(), kind="stable"))
    epochs = 8
    # step-matched: every student gets the optimiser steps of the K = 4 student's `epochs` epochs (8 streams), so
    # more teachers do not simply mean more training; variant "epochs" = the spec's equal-epoch design instead
    steps = None if variant == "epochs" else epochs * -(-8 * tr.n // 64)
    # Several student trainings per K, paired by training seed: one training per K (until 2026-12-06) put all of the
    # training-seed spread into the verdict (held-out accuracy of one K = 4 student 0.60-0.85 over master seeds)
    # while its SE counted only the 600 questions: acc(1) - acc(4) was +0.025 (SE 0.020) at the full profile's seed
    # 0, against +0.08 to +0.30 at the five seeds of docs/distill.md. The SE is now over training seeds.
    n_train = profile.pick(2, 6)
    acc = np.zeros((n_train, 4))
    rows = []
    for r in range(n_train):
        s_seed = _seed(rng)
        for K in range(1, 5):
            keep = [order[0]] * K if variant == "agreeing" else order[:K]
            if K == 1:   # one teacher: its answer + its rationale (2 streams), the purified loss with that teacher
                st = distill(Seq2SeqStudent(rng=s_seed), SingleTeacher(int(keep[0])).purify(tr), loss="purified",
                             answers="teachers", epochs=epochs, max_steps=steps, batch_size=64, lr=3e-3, rng=s_seed,
                             progress=False)
            else:
                sub = type(tr)(tr.questions, [[q[k] for k in keep] for q in tr.rationales], tr.answers,
                               teacher_answers=[[a[k] for k in keep] for a in tr.teacher_answers])
                st = distill(Seq2SeqStudent(rng=s_seed), sub, loss="naive_multi_teacher", answers="teachers",
                             epochs=epochs, max_steps=steps, batch_size=64, lr=3e-3, rng=s_seed, progress=False)
            out = st.model.generate(["predict: " + q for q in te.questions], max_new_tokens=4)
            hit = np.array([o.strip().lower() == a.lower() for o, a in zip(out, te.answers)], float)
            acc[r, K - 1] = hit.mean()
            rows.append({"training seed": r, "K": K, "teachers": ",".join(str(k) for k in keep),
                         "target_correctness": round(float(tr.correct[:, keep].mean()), 4),
                         "steps": steps or epochs * -(-2 * K * tr.n // 64),
                         "heldout_accuracy": round(float(hit.mean()), 4), "seconds": round(st.seconds, 1)})
    accs = acc.mean(0)
    d = acc[:, 0] - acc[:, 3]
    se = float(d.std(ddof=1) / np.sqrt(n_train))
    rho = float(spearmanr(range(1, 5), accs).statistic) if len(set(accs.tolist())) > 1 else 0.0
    return CheckResult(criteria=[Criterion("Spearman(K, mean accuracy)", rho, 0.0, "<"),
                                 Criterion("acc(K=1) - acc(K=4) - 2 SE", float(d.mean()) - 2 * se, 0.0, ">")],
                       table=rows,
                       details=f"Biomedical domain, option-text answers, answer task on the teachers' own answers; "
                               f"{n_train} student trainings per K (paired by training seed), mean held-out accuracy "
                               f"K = 1..4: {', '.join(f'{a:.3f}' for a in accs)}; acc(K=1) - acc(K=4) = "
                               f"{d.mean():.4f} (SE {se:.4f} over training seeds; 2 SE is a one-sided test at about "
                               f"5% with {n_train - 1} df).")


# ------------------------------------------------------------------------------------------------ 2
def _targets_table(routers, tr, te, extra=()):
    from iclr26sci.distill import OraclePurifier

    rows, res = [], {}
    for name, r in list(routers.items()) + list(extra):
        p = r.fit(tr).purify(te)
        mu, se = _paired(p.correct, te)
        res[name] = (p.target_correctness(), mu, se)
        rows.append({"purifier": name, "target_correctness": round(p.target_correctness(), 4),
                     "gain_vs_naive": round(mu, 4), "se": round(se, 4)})
    orc = OraclePurifier().fit(tr).purify(te).target_correctness()
    rows.append({"purifier": "oracle", "target_correctness": round(orc, 4)})
    rows.append({"purifier": "naive (all K)", "target_correctness": round(te.target_correctness(), 4)})
    return rows, res, orc


def _purification_figure(res, naive, orc, n):
    """Target correctness per purifier (routed target; error bar: 95% CI of the paired gain over the naive K
    targets), with the naive and oracle levels."""
    names = list(res)
    fig, ax = subplots(figsize=(9, 4.2))
    acc = np.array([res[k][0] for k in names])
    se = np.array([res[k][2] for k in names])
    ax.bar(range(len(names)), acc, color="C0", alpha=0.6)
    ax.errorbar(range(len(names)), acc, yerr=1.96 * se, fmt="none", ecolor="k", capsize=6)
    ax.axhline(naive, color="C3", ls="--", label=f"naive: all K teachers ({naive:.3f})")
    ax.axhline(orc, color="grey", ls=":", label=f"oracle purifier ({orc:.3f})")
    ax.set_xticks(range(len(names)), [k.replace("_", " ") for k in names])
    ax.set_ylabel("target correctness (95% CI of gain)")
    ax.set_title(f"knowledge purification on synthetic teachers, {n} test questions")
    lo = min(naive, float((acc - 2 * se).min()))
    ax.set_ylim(max(0.0, lo - 0.1), orc + 0.08)
    ax.legend(loc="upper left", ncol=2)
    return readable(fig)


@check(method="distill", paper=PAPER, budget=8,
       guarantee="2 (purification helps, targets): every router's purified targets are more often correct than "
                 "the naive K targets (paired gain >= 0.02 and > 2 SE for kNN; >= 0 for PL, PLM-classifier, RL), "
                 "and the oracle is >= all, on synthetic data")
def c2_purification_helps(profile, rng, variant=None):
    from iclr26sci.distill import RLTeacherSelector

    g, tr, te = _synthetic(rng, profile.pick(1500, 3000), profile.pick(800, 2000))
    routers = _routers()
    extra = [("rl_selection", RLTeacherSelector(embedder=_emb(), n_steps=profile.pick(3000, 5000), rng=_seed(rng)))]
    if variant == "random_router":
        routers = {k: _RandomRouter(_seed(rng)) for k in routers}
        extra = [("rl_selection", _RandomRouter(_seed(rng)))]
    rows, res, orc = _targets_table(routers, tr, te, extra)
    knn_mu, knn_se = res["similarity_knn"][1:]
    crit = [Criterion("kNN gain - 2 SE", knn_mu - 2 * knn_se, 0.0, ">"),
            Criterion("kNN gain", knn_mu, 0.02, ">=")]
    crit += [Criterion(f"{k} gain", v[1], 0.0, ">=") for k, v in res.items() if k != "similarity_knn"]
    crit.append(Criterion("oracle - best router", orc - max(v[0] for v in res.values()), 0.0, ">="))
    return CheckResult(criteria=crit, table=rows, figure=_purification_figure(res, te.target_correctness(), orc, te.n),
                       details="Gain = mean over test questions of c(routed target) - mean_k c_{i,k} (paired); SE of "
                               "that mean. The spec's student-accuracy version is the slow check c2b.")


# ------------------------------------------------------------------------------------------------ 3
@check(method="distill", paper=PAPER, budget=5,
       guarantee="3 (conflict metric drops): the naive targets imply >= 2 distinct answers on many questions while "
                 "purified targets have conflict 0, and kNN/PL/PLM-router target correctness >= max_k mean accuracy "
                 "- 0.01 at n >= 1000")
def c3_conflict_metric(profile, rng, variant=None):
    g, tr, te = _synthetic(rng, profile.pick(1200, 3000), profile.pick(1000, 2000))
    routers = _routers()
    if variant == "random_router":
        routers = {k: _RandomRouter(_seed(rng)) for k in routers}
    best_single = float(te.teacher_accuracy().max())
    rows, crit = [{"targets": "naive", "conflict_rate": round(te.conflict_rate(), 4),
                   "target_correctness": round(te.target_correctness(), 4)}], []
    for name, r in routers.items():
        p = r.fit(tr).purify(te)
        rows.append({"targets": name, "conflict_rate": p.conflict_rate(),
                     "target_correctness": round(p.target_correctness(), 4)})
        crit.append(Criterion(f"{name} correctness - (best teacher - 0.01)", p.target_correctness() - best_single
                              + 0.01, 0.0, ">="))
    crit.insert(0, Criterion("naive conflict rate", te.conflict_rate(), 0.1, ">"))
    return CheckResult(criteria=crit, table=rows,
                       details=f"best single teacher's test accuracy {best_single:.4f}; 0.01 is one binomial SE at n=1000"
                               " (sqrt(0.1*0.9/1000) = 0.0095).")


# ------------------------------------------------------------------------------------------------ 4
def _regret_curve(router_fn, gen, tr_full, te, ns, reps):
    ea = gen.expected_accuracy(te.domains)
    out = []
    for n in ns:
        vals = []
        for r in range(reps):
            idx = np.random.default_rng([n, r]).choice(tr_full.n, n, replace=False)
            t = router_fn(n).fit(tr_full.subset(idx)).route(te).teacher
            vals.append(float(np.mean(ea.max(1) - ea[np.arange(te.n), t])))
        out.append(float(np.mean(vals)))
    return out


@check(method="distill", paper=PAPER, budget=7,
       guarantee="4 (router consistency): the exact regret E[max_k p_{k,d} - p_{rho(q),d}] of the kNN (m = ceil(sqrt n)) "
                 "and contextual Plackett-Luce routers does not increase over n = 50, 200, 800, 3200 and ends < 0.02")
def c4_router_regret(profile, rng, variant=None):
    import math

    from iclr26sci.distill import PlackettLuceRouter, SimilarityRouter

    ns = [50, 200, 800, 3200]
    g, tr, te = _synthetic(rng, 3200, profile.pick(500, 2000))
    reps = profile.pick(2, 5)
    mk = {"similarity_knn": lambda n: SimilarityRouter(embedder=_emb(), m=math.ceil(math.sqrt(n))),
          "plackett_luce": lambda n: PlackettLuceRouter(embedder=_emb())}
    if variant == "fixed_m":
        mk["similarity_knn"] = lambda n: SimilarityRouter(embedder=_emb(), m=3)
    if variant == "global":
        mk["plackett_luce"] = lambda n: PlackettLuceRouter(contextual=False, embedder=_emb())
    rows, crit = [], []
    for name, fn in mk.items():
        curve = _regret_curve(fn, g, tr, te, ns, reps)
        rows += [{"router": name, "n": n, "regret": round(v, 5)} for n, v in zip(ns, curve)]
        rises = max(b - a for a, b in zip(curve, curve[1:]))
        crit.append(Criterion(f"{name}: largest rise between sizes", rises, 0.005, "<="))
        crit.append(Criterion(f"{name}: regret at n=3200", curve[-1], 0.02, "<"))
    return CheckResult(criteria=crit, table=rows,
                       details="Regret is exact given the router's choices (known p_{k,d}); averaged over random "
                               "training subsets. A rise tolerance of 0.005 absorbs subset noise once regret is ~0; "
                               "kNN needs m -> infinity for consistency, hence m = ceil(sqrt(n)).")


# ------------------------------------------------------------------------------------------------ 5
@check(method="distill", paper=PAPER, budget=6,
       guarantee="5 (PL recovery): the weighted-MM Plackett-Luce MLE with w = 1 agrees with choix.opt_rankings to "
                 "1e-3, and its error ||s_hat - s|| falls like n^(-1/2): log-log slope in -0.5 +- 0.15")
def c5_pl_recovery(profile, rng, variant=None):
    import choix

    from iclr26sci.distill import plackett_luce_mm, sample_plackett_luce

    s = np.array([1.0, 0.4, -0.3, -1.1])
    s -= s.mean()
    ns, reps = [100, 400, 1600, 6400], profile.pick(8, 30)
    errs, rows = [], []
    for n in ns:
        e = []
        for r in range(reps):
            rk = sample_plackett_luce(s, n, rng=_seed(rng))
            if variant == "first_stage_only":     # broken: only the winner of each ranking is used
                rk = [[[int(x[0])], [int(y) for y in x[1:]]] for x in rk]
            est = plackett_luce_mm(rk, K=4)
            e.append(float(np.linalg.norm(est - s)))
        errs.append(float(np.sqrt(np.mean(np.square(e)))))
        rows.append({"n": n, "rms_error": round(errs[-1], 5)})
    rk0 = sample_plackett_luce(s, 400, rng=_seed(rng))         # choix's optimiser is slow: one n for the cross-check
    ref = np.asarray(choix.opt_rankings(4, [list(map(int, x)) for x in rk0], alpha=0.0))
    if variant == "first_stage_only":
        rk0 = [[[int(x[0])], [int(y) for y in x[1:]]] for x in rk0]
    agree = float(np.max(np.abs((ref - ref.mean()) - plackett_luce_mm(rk0, K=4))))
    slope = float(np.polyfit(np.log(ns), np.log(errs), 1)[0])
    return CheckResult(criteria=[Criterion("max |s_MM - s_choix|", agree, 1e-3, "<="),
                                 Criterion("log-log slope of RMS error", slope, (-0.65, -0.35), "in")], table=rows,
                       details=f"s = {np.round(s, 3).tolist()}, {reps} replicates per n; the MLE is root-n consistent.")


# ------------------------------------------------------------------------------------------------ 6
# Was full profile only: with the specification's rule (lr 0.5, entropy 0.01, moving-average baseline) REINFORCE
# locked onto a wrong teacher in one domain at master seeds 1 and 2 (mean pi(best) 0.667, 0.665) and at 3 of 20 seeds;
# lr 0.1 with the state baseline still failed at seed 1. The selector's default rule (state-value baseline, entropy
# 0.04, lr 0.3) passes at seeds 0-39 of this check (min mean pi(best) 0.932, max slope 0.564); docs/distill.md.
# variant="committal" is that old rule, which the check catches at master seed 1 (tests/distill).
@check(method="distill", paper=PAPER, budget=3,
       guarantee="6 (RL selector as a contextual bandit): with reward c_{i,k} and the domain as state, REINFORCE puts "
                 "> 0.9 probability on each domain's best teacher after 5000 steps and its cumulative regret grows "
                 "sub-linearly (log-log slope < 0.8)")
def c6_rl_bandit(profile, rng, variant=None):
    from iclr26sci.distill import RLTeacherSelector
    from iclr26sci.distill._synthetic import SYNTHETIC_DOMAINS

    g, tr, _ = _synthetic(rng, 3000, 10)
    doms = {q: d for q, d in zip(tr.questions, tr.domains)}

    def onehot(texts):
        return np.array([[float(doms.get(t) == d) for d in SYNTHETIC_DOMAINS] for t in texts])

    kw = {"lr0": {"lr": 1e-9}, "committal": {"lr": 0.5, "entropy": 0.01, "baseline": "moving_average"}}.get(variant, {})
    sel = RLTeacherSelector(embedder=onehot, n_steps=5000, rng=_seed(rng), **kw).fit(tr)
    h = sel.history_
    ea = g.expected_accuracy([tr.domains[i] for i in h["question"]])
    reg = np.cumsum(ea.max(1) - ea[np.arange(len(h["teacher"])), h["teacher"]])
    reps = [tr.questions[[d == dn for d in tr.domains].index(True)] for dn in SYNTHETIC_DOMAINS]
    pol = sel.policy(reps)
    best = g.accuracy.argmax(axis=0)
    p_best = float(np.mean(pol[np.arange(3), best]))
    t = np.arange(1, len(reg) + 1)
    m = t >= 500
    slope = float(np.polyfit(np.log(t[m]), np.log(np.maximum(reg[m], 1e-9)), 1)[0])
    rows = [{"domain": d, "best_teacher": int(b), "pi_best": round(float(pol[j, b]), 4)}
            for j, (d, b) in enumerate(zip(SYNTHETIC_DOMAINS, best))]
    return CheckResult(criteria=[Criterion("mean pi(best teacher | domain)", p_best, 0.9, ">"),
                                 Criterion("slope of log regret vs log t (t >= 500)", slope, 0.8, "<")], table=rows,
                       details=f"cumulative regret at t=5000: {reg[-1]:.1f} (uniform policy: ~{0.19 * 5000:.0f}).")


# ------------------------------------------------------------------------------------------------ 7
@check(method="distill", paper=PAPER, budget=3,
       guarantee="7 (invariances): permuting the teachers permutes the kNN, PL and PLM-classifier scores exactly; "
                 "the kNN router is invariant to a positive rescaling of each embedding; the aggregation surrogate's "
                 "output does not change when a rationale agreeing with the vote is duplicated")
def c7_invariances(profile, rng, variant=None):
    from iclr26sci.distill import (AggregationPurifier, ClassifierRouter, MultiTeacherData, PlackettLuceRouter,
                                   SimilarityRouter)

    g, tr, te = _synthetic(rng, 400, 60)
    perm = np.random.default_rng(_seed(rng)).permutation(tr.K)
    while np.all(perm == np.arange(tr.K)):
        perm = np.random.default_rng(_seed(rng)).permutation(tr.K)

    def permuted(d):
        return MultiTeacherData(d.questions, [[r[k] for k in perm] for r in d.rationales], d.answers,
                                teacher_answers=[[a[k] for k in perm] for a in d.teacher_answers],
                                domains=d.domains, teachers=[d.teachers[k] for k in perm])

    E = _emb()
    quality = "consistency"
    ctx = contextlib.nullcontext()
    if variant == "index_tiebreak":       # broken: ties in the rankings broken by teacher index
        quality = np.tile(-np.arange(tr.K, dtype=float), (tr.n, 1))
    if variant == "unnormalised":          # broken: raw dot products instead of cosines
        ctx = mock.patch("iclr26sci.distill._purifiers.normalize_rows", lambda X: X)
    eq = 0.0
    with ctx:
        for mk in (lambda: SimilarityRouter(embedder=E), lambda: ClassifierRouter(embedder=E, rng=0),
                   lambda: PlackettLuceRouter(embedder=E, quality=quality)):
            a = mk().fit(tr).route_scores(te.questions)
            b = mk().fit(permuted(tr)).route_scores(te.questions)
            eq = max(eq, float(np.max(np.abs(a[:, perm] - b))))
        def scaled(texts):              # a positive power-of-two factor per text (exact in floating point)
            return E(texts) * np.exp2(np.array([zlib.crc32(t.encode()) % 4 - 1 for t in texts]))[:, None]

        s1 = SimilarityRouter(embedder=E).fit(tr).route_scores(te.questions)
        s2 = SimilarityRouter(embedder=scaled).fit(tr).route_scores(te.questions)
        scale = float(np.max(np.abs(s1 - s2)))
    ag = AggregationPurifier(embedder=E)
    p1 = ag.purify(te)
    dup_rows, dup_ans, dup_cor = [], [], []
    for i in range(te.n):
        k = p1.teacher[i] if p1.teacher[i] >= 0 else [j for j in range(te.K) if te.teacher_answers[i][j] == p1.implied_answers[i]][0]
        dup_rows.append(te.rationales[i] + [te.rationales[i][k]])
        dup_ans.append(te.teacher_answers[i] + [te.teacher_answers[i][k]])
    p2 = ag.purify(MultiTeacherData(te.questions, dup_rows, te.answers, teacher_answers=dup_ans))
    dup = float(np.mean([a != b for a, b in zip(p1.rationales, p2.rationales)]))
    return CheckResult(criteria=[Criterion("max |score(perm data) - perm(score)|", eq, 1e-8, "<="),
                                 Criterion("max |kNN score(c_q e(q)) - score(e)|", scale, 1e-10, "<="),
                                 Criterion("share of aggregated rationales changed by a duplicate", dup, 0.0, "<=")],
                       details=f"teacher permutation {perm.tolist()}; exact properties, so the tolerances are float "
                               "round-off. The hypothesis versions are in tests/distill.")


# ------------------------------------------------------------------------------------------------ 8
@check(method="distill", paper=PAPER, budget=5,
       guarantee="8 (OOD generalisation, targets): routers trained in-domain and applied to questions with unseen "
                 "names and held-out templates keep target correctness above the naive K targets (kNN and "
                 "PLM-classifier paired gain > 2 SE); the aggregation surrogate is reported")
def c8_ood(profile, rng, variant=None):
    from iclr26sci.distill import AggregationPurifier, ClassifierRouter, SimilarityRouter

    # 2000 OOD questions in both profiles: with 800 (the first quick size) the classifier's paired gain, 0.028, was
    # within 2 SE (0.014 each) at seed 0; 2000 questions pass at seeds 0-4 (gain - 2 SE 0.0075, 0.027, 0.10, 0.073, 0.11)
    g, tr, te = _synthetic(rng, profile.pick(1500, 3000), 2000, ood=True)
    routers = {"similarity_knn": SimilarityRouter(embedder=_emb()), "plm_classifier": ClassifierRouter(embedder=_emb())}
    if variant == "random_router":
        routers = {k: _RandomRouter(_seed(rng)) for k in routers}
    rows, res, orc = _targets_table(routers, tr, te, [("aggregation_surrogate", AggregationPurifier(embedder=_emb()))])
    crit = [Criterion(f"{k} OOD gain - 2 SE", res[k][1] - 2 * res[k][2], 0.0, ">") for k in routers]
    return CheckResult(criteria=crit, table=rows, details="OOD = unseen object/person/drug names and the held-out "
                                                          "question template of every domain.")


@check(method="distill", paper=PAPER, budget=4,
       guarantee="8 on CHAMP: leaving one category out at a time, routers trained on the other four pick solutions "
                 "correct more often than the naive mean over teachers (pooled paired gain > 2 SE, and >= 0 in at "
                 "least 4 of the 5 held-out categories)")
def c8_champ_ood(profile, rng, variant=None):
    from iclr26sci.distill import PlackettLuceRouter, SimilarityRouter

    data = _champ()
    cats = sorted(set(data.domains))
    mk = {"similarity_knn": lambda: SimilarityRouter(embedder=_emb(), m=15),
          "plackett_luce": lambda: PlackettLuceRouter(embedder=_emb())}
    if variant == "random_router":
        mk = {k: (lambda: _RandomRouter(_seed(rng))) for k in mk}
    rows, crit = [], []
    for name, fn in mk.items():
        diffs, wins = [], 0
        for c in cats:
            s = data.split(ood_domain=c)
            te = s.test
            p = fn().fit(s.train).purify(te)
            d = p.correct - te.correct.mean(1)
            diffs.append(d)
            wins += int(d.mean() >= 0)
            rows.append({"router": name, "held_out": c, "routed": round(p.target_correctness(), 4),
                         "naive": round(te.target_correctness(), 4)})
        d = np.concatenate(diffs)
        crit.append(Criterion(f"{name}: pooled gain - 2 SE", d.mean() - 2 * d.std(ddof=1) / np.sqrt(len(d)), 0.0, ">"))
        crit.append(Criterion(f"{name}: categories with gain >= 0", wins, 4, ">="))
    return CheckResult(criteria=crit, table=rows, details="Leave-one-category-out over CHAMP's 5 categories, 0-Shot.")


# ------------------------------------------------------------------------------------------ claims tier
# c2 and c4 on CHAMP test *routing*: the comparison is the best single teacher chosen on the training problems (what
# a user without a router would distil from), never the naive mean over teachers, which any router that learned to
# prefer the best teacher beats (the old checks passed with a purifier that always returns that teacher).
_CHAMP_M = 30          # kNN neighbours: about 2 sqrt(n_train) for the 216 training problems of a 5-fold split


@functools.lru_cache(maxsize=2)
def _champ_minilm(n_questions, digest):
    """MiniLM embeddings of the CHAMP 0-Shot questions (the routers' default encoder), a cached artefact.

    Stored through ``nn.cached_model`` as a buffer of a parameter-free module (16 CPU-s to build once, keyed by the
    questions' SHA-256), so the claims do not reload MiniLM in every process.
    """
    import torch

    from iclr26sci.nn import cached_model, embed_texts

    class _Table(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("E", torch.zeros(n_questions, 384))

    def build():
        from tqdm.auto import tqdm

        with tqdm(total=1, desc="distill: MiniLM embeddings of CHAMP questions") as bar:
            m = _Table()
            m.E.copy_(torch.from_numpy(np.asarray(embed_texts(_champ().questions), dtype=np.float32)))
            bar.update(1)
        return m, {"n": n_questions}

    mod, _ = cached_model("distill-champ-minilm", {"setting": "0-Shot", "n": n_questions, "sha256": digest,
                                                "encoder": "all-MiniLM-L6-v2"}, 0, build, _Table)
    return mod.E.numpy().astype(float)


def _champ_embedder(data, embedder="minilm"):
    """A callable question -> embedding for the CHAMP questions (MiniLM from the cache, or the hashing embedder)."""
    if embedder == "hashing":
        return _emb()
    import hashlib

    digest = hashlib.sha256("\x1f".join(data.questions).encode()).hexdigest()
    E = _champ_minilm(data.n, digest)
    lut = {q: e for q, e in zip(data.questions, E)}
    return lambda texts: np.array([lut[t] for t in texts])


class _BestTrainingTeacher:
    """No routing: the teacher with the highest training accuracy, for every question (the broken variant)."""

    def fit(self, data):
        self.k_ = int(np.argmax(data.teacher_accuracy()))
        return self

    def purify(self, data):
        from iclr26sci.distill import SingleTeacher

        return SingleTeacher(self.k_).purify(data)


def _router_factory(router, emb, m=_CHAMP_M):
    from iclr26sci.distill import PlackettLuceRouter, SimilarityRouter

    if router == "knn":
        return lambda: SimilarityRouter(embedder=emb, m=m)
    if router == "plackett_luce":
        return lambda: PlackettLuceRouter(embedder=emb)
    if router == "best_single":
        return _BestTrainingTeacher
    raise ValueError(f"router must be 'knn', 'plackett_luce' or 'best_single', got {router!r}")


def _designated(cats, K):
    """The teacher that planted errors leave intact in each category (varies across categories)."""
    return np.arange(len(cats)) % K


def _planted_mask(data):
    """(n, K) boolean: the teachers that planted errors may hit (all but teacher ``j mod K`` in category j)."""
    cats = sorted(set(data.domains))
    ci = np.array([cats.index(x) for x in data.domains])
    return np.arange(data.K)[None, :] != _designated(cats, data.K)[ci][:, None]


def _plant_errors(data, rate, rng):
    """CHAMP with planted category-dependent errors: in category j every teacher except ``j mod K`` has each of its
    answers replaced by a wrong one with probability ``rate`` (a router must learn to avoid them per category)."""
    from iclr26sci.distill import MultiTeacherData

    hit = _planted_mask(data) & (rng.random((data.n, data.K)) < rate)
    C = np.where(hit, 0, data.correct).astype(np.int8)
    ta = [[f"wrong:planted{k}" if hit[i, k] else a for k, a in enumerate(row)]
          for i, row in enumerate(data.teacher_answers)]
    return MultiTeacherData(data.questions, data.rationales, data.answers, teacher_answers=ta, correct=C,
                            domains=data.domains, teachers=data.teachers, ids=data.ids)


def _cv_gain(data, make, reps, folds, rng, plant=None):
    """Per problem, c(routed target) - c(best training teacher's target), averaged over ``reps`` random
    ``folds``-fold cross-validations (each problem is a test problem once per repetition); with ``plant`` (a rate),
    errors are planted afresh in every repetition (:func:`_plant_errors`)."""
    D = np.zeros((reps, data.n))
    base, value = data, data.correct.astype(float)
    if plant is not None:        # score by the expected correctness under the planting (removes the planting's noise)
        value = value * (1.0 - plant * _planted_mask(base))
    for r in range(reps):
        if plant is not None:
            data = _plant_errors(base, plant, rng)
        f = rng.permutation(data.n) % folds
        for j in range(folds):
            te_i = np.flatnonzero(f == j)
            tr, te = data.subset(np.flatnonzero(f != j)), data.subset(te_i)
            a = make().fit(tr).purify(te).teacher
            b = _BestTrainingTeacher().fit(tr).purify(te).teacher
            D[r, te_i] = value[te_i, a] - value[te_i, b]
    return D.mean(axis=0)


def _claim_c2(profile, rng, router="knn", reps=None, embedder="minilm", rate=0.65):
    from validation.claims import ClaimResult, mean_effect

    data = _champ()
    reps = reps or profile.pick(8, 20)
    make = _router_factory(router, _champ_embedder(data, embedder))
    real = _cv_gain(data, make, reps, 5, rng)
    planted_data = _plant_errors(data, rate, np.random.default_rng(_seed(rng)))      # one draw, for the table
    planted = _cv_gain(data, make, reps, 5, rng, plant=rate)
    what = "c(routed) - c(best training teacher), per CHAMP problem, 5-fold CV"
    eff = mean_effect(real, 0.025, what=what + " (real teachers)")
    ctrl = mean_effect(planted, 0.05, what=what + f" (planted errors, rate {rate}, fresh per repetition)")
    rows = []
    for lab, d_, g in (("real teachers", data, real), (f"planted errors (rate {rate})", planted_data, planted)):
        rows.append({"data": lab, "router": router, "gain vs best training teacher": round(float(g.mean()), 4),
                     "se": round(float(g.std(ddof=1) / np.sqrt(g.size)), 4),
                     "best teacher accuracy": round(float(d_.teacher_accuracy().max()), 4),
                     "per-problem oracle": round(float(d_.correct.max(axis=1).mean()), 4)})
    return ClaimResult(effect=eff, control=ctrl, table=rows,
                       details=f"CHAMP 0-Shot, {data.n} problems, {reps} repetitions of 5-fold cross-validation; "
                               f"router {router} (kNN m = {_CHAMP_M}, {embedder} question embeddings); the comparison "
                               "is the teacher with the best training accuracy (GPT-4 Turbo on real CHAMP). min effect "
                               "0.025 = half the paper's ~+5-point gain of the similarity router; the control must "
                               "show the paper's full 0.05.")


@_claim(method="distill", paper=PAPER, budget=60,
        claim="Knowledge purification by routing gives distillation targets that are correct more often than the "
              "best single teacher's",
        paper_setting="Four LLM teachers, routers (similarity, RL, Plackett-Luce) vs naive multi-teacher, student "
                      "accuracy on OBQA/ARC/RiddleSense/PubMedQA; ours: target correctness on CHAMP 0-Shot",
        paper_number="similarity router and RL selection about +5 points over naive multi-teacher (no number "
                     "against the best single teacher)",
        regime="The four real CHAMP teachers are complementary per problem (the per-problem oracle is right on "
               "0.70 of problems against GPT-4 Turbo's 0.56), so a router that reads the question has room to beat "
               "the best teacher; the control shows it gains when that room depends on the category.",
        control="Planted category-dependent errors: in category j every teacher except teacher j mod 4 has each "
                "answer made wrong with probability 0.65 (drawn afresh per repetition; it leaves a routing gain of "
                "about the paper's 5 points), scored by expected correctness; same router, same cross-validation",
        test="one-sided t over problems (gain averaged over CV repetitions), alpha 0.05; power for 0.025 (claim) "
             "and 0.05 (control)")
def c2_champ_purification_helps(profile, rng, router="knn"):
    return _claim_c2(profile, rng, router)


def _claim_c4(profile, rng, router="knn", reps=None, embedder="minilm", n_train=180):
    from validation.claims import ClaimResult, mean_effect

    data = _champ()
    cats = sorted(set(data.domains))
    ci = np.array([cats.index(x) for x in data.domains])
    real = np.array([data.correct[ci == j].mean(0) for j in range(len(cats))])
    des = _designated(cats, data.K)
    # the category-varying oracle: each category keeps its real accuracy profile, rolled so that its best teacher is
    # teacher j mod 4 (the real best, GPT-4 Turbo, is best everywhere, so the real oracle would not vary)
    P = np.array([np.roll(row, des[j] - int(np.argmax(row))) for j, row in enumerate(real)])
    ea = P[ci]
    reps = reps or profile.pick(30, 100)
    make = _router_factory(router, _champ_embedder(data, embedder))
    onehot = lambda texts, _l={q: np.eye(len(cats))[c] for q, c in zip(data.questions, ci)}: \
        np.array([_l[t] for t in texts])                                                  # noqa: E731
    make_ctrl = _router_factory(router, onehot)
    out = np.zeros((reps, 3))
    from iclr26sci.distill import MultiTeacherData

    for r in range(reps):
        C = (rng.random(ea.shape) < ea).astype(np.int8)
        d = MultiTeacherData(data.questions, data.rationales, data.answers, correct=C, domains=data.domains,
                             teachers=data.teachers, ids=data.ids)
        idx = rng.permutation(data.n)
        tr, rest = np.sort(idx[:n_train]), np.sort(idx[n_train:])
        dtr, dte = d.subset(tr), d.subset(rest)
        reg = lambda t: float(np.mean(ea[rest].max(1) - ea[rest, t]))                    # noqa: E731
        out[r] = [reg(_BestTrainingTeacher().fit(dtr).purify(dte).teacher), reg(make().fit(dtr).purify(dte).teacher),
                  reg(make_ctrl().fit(dtr).purify(dte).teacher)]
    eff = mean_effect(out[:, 0] - out[:, 1], 0.025,
                      what=f"regret(best training teacher) - regret({router}), n = {n_train}, question embeddings")
    ctrl = mean_effect(out[:, 0] - out[:, 2], 0.05,
                       what=f"regret(best training teacher) - regret({router}), n = {n_train}, category one-hot")
    rows = [{"purifier": lab, "regret (exact, held-out)": round(float(out[:, j].mean()), 4)}
            for j, lab in enumerate(("best training teacher", f"{router} ({embedder})", f"{router} (category one-hot)"))]
    rows.append({"purifier": "oracle p_{k,c} (rows: categories)", "regret (exact, held-out)": 0.0,
                 "table": np.round(P, 3).tolist()})
    return ClaimResult(effect=eff, control=ctrl, table=rows,
                       details=f"{reps} draws of c_ik ~ Bernoulli(p_k,cat) on the 270 CHAMP questions; routers trained "
                               f"on {n_train}, exact regret on the other {data.n - n_train}; best teacher per category "
                               f"= teacher j mod 4 ({[data.teachers[k] for k in des]}).")


@_claim(method="distill", paper=PAPER, budget=60,
        claim="A router learns which teacher to trust per question: its regret against the per-category best "
              "teacher is below that of the best single teacher",
        paper_setting="Routers trained on teacher correctness rankings (Plackett-Luce, similarity kNN); ours: 180 "
                      "CHAMP questions with a category-varying oracle",
        paper_number="qualitative: router-based purification is the most robust in-domain and OOD (+5 points for "
                     "the similarity router over naive multi-teacher)",
        regime="The oracle varies across CHAMP's five categories by construction (each category keeps its real "
               "accuracy profile, with its best teacher rotated to teacher j mod 4, gaps 0.04-0.23), so no single "
               "teacher is best everywhere and a router must recognise the category from the question text.",
        control="Oracle features: the same router given the category as a one-hot embedding",
        test="one-sided t over random draws and splits, alpha 0.05; power for 0.025 (claim) and 0.05 (control)")
def c4_champ_router_regret(profile, rng, router="knn"):
    return _claim_c4(profile, rng, router)
