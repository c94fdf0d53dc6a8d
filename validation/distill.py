"""Validation of knowledge purification (report section "distill"): checks 1-8 of the spec (arXiv:2602.01064).

Synthetic checks use :class:`iclr26sci.distill.SyntheticRationaleQA` (teachers of known per-domain accuracy
p_{k,d}, so router regret is exact) with the hashed bag-of-words embedder (MiniLM's load and encode time
would exceed the quick budget; the routers' default is MiniLM). Checks 2, 4 and 8 also run on CHAMP
(four real LLM teachers, correctness graded from their final answers). Every check takes ``variant=``
naming a broken implementation it must catch (tests/distill/test_distill_validation.py runs them).
"""
from __future__ import annotations

import contextlib
import zlib
from unittest import mock

import numpy as np

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
                 "acc(K=1) - acc(K=4) > 2 SE (paired over held-out questions); the student learns from the "
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
    epochs, s_seed = 8, _seed(rng)
    # step-matched: every student gets the optimiser steps of the K = 4 student's `epochs` epochs (8 streams), so
    # more teachers do not simply mean more training; variant "epochs" = the spec's equal-epoch design instead
    steps = None if variant == "epochs" else epochs * -(-8 * tr.n // 64)
    hits, rows = [], []
    for K in range(1, 5):
        keep = [order[0]] * K if variant == "agreeing" else order[:K]
        if K == 1:       # one teacher: its answer + its rationale (2 streams), the purified loss with that teacher
            st = distill(Seq2SeqStudent(rng=s_seed), SingleTeacher(int(keep[0])).purify(tr), loss="purified",
                         answers="teachers", epochs=epochs, max_steps=steps, batch_size=64, lr=3e-3, rng=s_seed,
                         progress_bar=False)
        else:
            sub = type(tr)(tr.questions, [[r[k] for k in keep] for r in tr.rationales], tr.answers,
                           teacher_answers=[[a[k] for k in keep] for a in tr.teacher_answers])
            st = distill(Seq2SeqStudent(rng=s_seed), sub, loss="naive_multi_teacher", answers="teachers",
                         epochs=epochs, max_steps=steps, batch_size=64, lr=3e-3, rng=s_seed, progress_bar=False)
        out = st.model.generate(["predict: " + q for q in te.questions], max_new_tokens=4)
        hit = np.array([o.strip().lower() == a.lower() for o, a in zip(out, te.answers)], float)
        hits.append(hit)
        sub_acc = float(tr.correct[:, keep].mean())
        rows.append({"K": K, "teachers": ",".join(str(k) for k in keep), "target_correctness": round(sub_acc, 4),
                     "steps": steps or epochs * -(-2 * K * tr.n // 64),
                     "heldout_accuracy": round(float(hit.mean()), 4), "seconds": round(st.seconds, 1)})
    accs = [float(h.mean()) for h in hits]
    d = hits[0] - hits[3]
    se = float(d.std(ddof=1) / np.sqrt(len(d)))
    rho = float(spearmanr(range(1, 5), accs).statistic) if len(set(accs)) > 1 else 0.0
    return CheckResult(criteria=[Criterion("Spearman(K, accuracy)", rho, 0.0, "<"),
                                 Criterion("acc(K=1) - acc(K=4) - 2 SE", float(d.mean()) - 2 * se, 0.0, ">")],
                       table=rows,
                       details=f"Biomedical domain, option-text answers, answer task on the teachers' own answers; "
                               f"acc(K=1) - acc(K=4) = {d.mean():.4f} (SE {se:.4f}, paired over {len(d)} questions).")


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
    return CheckResult(criteria=crit, table=rows,
                       details="Gain = mean over test questions of c(routed target) - mean_k c_{i,k} (paired); SE of "
                               "that mean. The spec's student-accuracy version is the slow check c2b.")


@check(method="distill", paper=PAPER, budget=4,
       guarantee="2 on CHAMP: routers trained on 70% of the problems pick, on the other 30%, a real LLM solution "
                 "that is correct more often than the naive mean over the four teachers (paired gain > 2 SE)")
def c2_champ_purification_helps(profile, rng, variant=None):
    data = _champ().split(0.7, rng=_seed(rng))
    tr, te = data.train, data.test
    routers = {k: v for k, v in _routers(m=15).items() if k != "plm_classifier"}
    if variant == "random_router":
        routers = {k: _RandomRouter(_seed(rng)) for k in routers}
    rows, res, orc = _targets_table(routers, tr, te)
    crit = [Criterion(f"{k} gain - 2 SE", v[1] - 2 * v[2], 0.0, ">") for k, v in res.items()]
    crit.append(Criterion("oracle - best router", orc - max(v[0] for v in res.values()), 0.0, ">="))
    return CheckResult(criteria=crit, table=rows,
                       details=f"{tr.n} train / {te.n} test problems, setting 0-Shot; teacher accuracies on test "
                               f"{np.round(te.teacher_accuracy(), 3).tolist()} ({te.teachers}).")


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


@check(method="distill", paper=PAPER, budget=5,
       guarantee="4 on CHAMP: with the per-category teacher accuracies of all 270 problems as p_{k,d}, the regret of "
                 "routers trained on n = 20, 60, 180 problems ends below 0.02 and below its n = 20 value")
def c4_champ_router_regret(profile, rng, variant=None):
    from iclr26sci.distill import PlackettLuceRouter, SimilarityRouter

    data = _champ()
    cats = sorted(set(data.domains))
    P = np.array([data.correct[np.array([d == c for d in data.domains])].mean(0) for c in cats])
    ea = P[[cats.index(d) for d in data.domains]]
    ns, reps = [20, 60, 180], profile.pick(10, 30)
    mk = {"plackett_luce_global": lambda: PlackettLuceRouter(contextual=False, embedder=_emb()),
          "plackett_luce": lambda: PlackettLuceRouter(embedder=_emb())}
    if variant == "random_router":
        mk = {k: (lambda: _RandomRouter(_seed(rng))) for k in mk}
    rows, crit = [], []
    base = np.random.default_rng(_seed(rng))
    for name, fn in mk.items():
        curve = []
        for n in ns:
            v = []
            for r in range(reps):
                idx = base.choice(data.n, n, replace=False)
                rest = np.setdiff1d(np.arange(data.n), idx)
                t = fn().fit(data.subset(idx)).purify(data.subset(rest)).teacher
                v.append(float(np.mean(ea[rest].max(1) - ea[rest, t])))
            curve.append(float(np.mean(v)))
        rows += [{"router": name, "n": n, "regret": round(x, 5)} for n, x in zip(ns, curve)]
        crit.append(Criterion(f"{name}: regret(180) - regret(20)", curve[-1] - curve[0], 0.0, "<="))
        crit.append(Criterion(f"{name}: regret at n=180", curve[-1], 0.02, "<"))
    return CheckResult(criteria=crit, table=rows,
                       details="Regret against the per-category best teacher (GPT-4 Turbo in every category at "
                               "0-Shot), measured on the problems outside the training subset.")


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
