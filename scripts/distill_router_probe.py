"""Can a router beat the best single CHAMP teacher? A cheap probe of router features and selection calibration.

CHAMP 0-Shot, K = 4 real teachers. Every router below is fitted on the training problems only and picks one
teacher per held-out problem; the statistic is the selected solution's correctness. Splits: 20 random 70/30
splits by problem (in domain) and leave-one-category-out (OOD, pooled over the five categories). For each router
the difference to the best single teacher of the training part (GPT-4 Turbo in every split) is given with a 95%
paired bootstrap CI over held-out problems (in domain: the pooled (split, problem) pairs of all splits resampled by
problem; OOD: the 270 problems, each held out once).

Routers (question-only, i.e. they can route a bare question):
- ``category prior``: the teacher with the best training accuracy in the problem's category (in domain only:
  out of domain the category is unseen, so it falls back to the best single teacher);
- ``logreg(emb)`` / ``logreg(emb+cat)``: one L2 logistic regression per teacher on MiniLM question embeddings
  (+ category one-hot), C chosen by 5-fold CV on the training part, pick argmax P(c_k = 1 | q);
- ``kNN (m=15)`` and ``PL contextual``: the package's routers, for reference.
Answer-aware (they read the teachers' stated answers, as the majority vote does):
- ``agreement logreg``: P(c_k = 1 | teacher k, which other teachers state the same answer key, category),
  one logistic regression over (problem, teacher) pairs; pick argmax;
- ``agreement logreg (1st no.)``: the same with agreement on the first number of the answer key only;
- ``weighted vote``: answer score = sum_k log-odds(train accuracy_k) [a_k = a], pick the top answer's best teacher.

Run: ``OMP_NUM_THREADS=1 nice -n 10 python scripts/distill_router_probe.py [--splits 20] [--boot 2000]``.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np


def _logreg_cv(X, y, Cs=(0.01, 0.1, 1.0, 10.0), rng=0):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    if y.min() == y.max():
        return None, float(y.mean())
    best, bestC = -np.inf, Cs[0]
    cv = StratifiedKFold(n_splits=min(5, int(min(y.sum(), (1 - y).sum()))), shuffle=True, random_state=rng)
    if cv.n_splits >= 2:
        for C in Cs:
            s = cross_val_score(LogisticRegression(C=C, max_iter=2000), X, y, cv=cv, scoring="neg_log_loss").mean()
            if s > best:
                best, bestC = s, C
    return LogisticRegression(C=bestC, max_iter=2000).fit(X, y), None


def _predict(model_const, X):
    model, const = model_const
    return np.full(len(X), const) if model is None else model.predict_proba(X)[:, 1]


def main(argv=None):
    from data_adapters.champ_teachers import load_champ_teachers
    from iclr26sci.distill import PlackettLuceRouter, SimilarityRouter
    from iclr26sci.nn import embed_texts

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setting", default="0-Shot")
    ap.add_argument("--splits", type=int, default=20)
    ap.add_argument("--boot", type=int, default=2000)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    d = load_champ_teachers(args.setting, split=None)
    n, K = d.n, d.K
    C = d.correct.astype(int)
    cats = sorted(set(d.domains))
    cat = np.array([cats.index(c) for c in d.domains])
    Cat = np.eye(len(cats))[cat]
    E = np.asarray(embed_texts(list(d.questions), normalize=True), dtype=float)
    memo = dict(zip(d.questions, E))
    emb = lambda texts: np.stack([memo[t] for t in texts])   # noqa: E731
    A = np.array([[[float(d.teacher_answers[i][k] == d.teacher_answers[i][l]) for l in range(K)] for k in range(K)]
                  for i in range(n)])                          # (n, K, K) answer-key agreement
    first = [[(a.split() or [""])[0] for a in row] for row in d.teacher_answers]
    A1 = np.array([[[float(first[i][k] == first[i][l]) for l in range(K)] for k in range(K)] for i in range(n)])
    t_emb = time.perf_counter() - t0

    def pair_feats(idx, A=A):  # (len(idx)*K, features): teacher one-hot, agreement with each other teacher, category
        rows = []
        for i in idx:
            for k in range(K):
                ag = np.delete(A[i, k], k)
                rows.append(np.concatenate([np.eye(K)[k], np.kron(np.eye(K)[k], ag), ag.sum(keepdims=True),
                                            Cat[i]]))
        return np.array(rows)

    def routers(tr, te, ood):
        acc = C[tr].mean(0)
        best = int(np.argmax(acc))
        out = {"best single (train)": np.full(len(te), best)}
        if not ood:
            pc = np.array([np.argmax(C[tr][cat[tr] == c].mean(0)) if np.any(cat[tr] == c) else best
                           for c in range(len(cats))])
            out["category prior"] = pc[cat[te]]
        for name, X in [("logreg(emb)", E), ("logreg(emb+cat)", np.hstack([E, Cat]))]:
            P = np.stack([_predict(_logreg_cv(X[tr], C[tr, k]), X[te]) for k in range(K)], 1)
            out[name] = np.argmax(P, 1)
        dtr, dte = d.subset(tr), d.subset(te)
        out["kNN (m=15)"] = SimilarityRouter(embedder=emb, m=15).fit(dtr).purify(dte).teacher
        out["PL contextual"] = PlackettLuceRouter(embedder=emb).fit(dtr).purify(dte).teacher
        mc = _logreg_cv(pair_feats(tr), C[tr].reshape(-1))
        out["agreement logreg"] = np.argmax(_predict(mc, pair_feats(te)).reshape(len(te), K), 1)
        mc = _logreg_cv(pair_feats(tr, A1), C[tr].reshape(-1))
        out["agreement logreg (1st no.)"] = np.argmax(_predict(mc, pair_feats(te, A1)).reshape(len(te), K), 1)
        w = np.log(np.clip(acc, 1e-3, 1 - 1e-3) / np.clip(1 - acc, 1e-3, 1))
        S = np.einsum("ikl,l->ik", A[te], w)            # score of teacher k's answer = weight of its supporters
        out["weighted vote"] = np.argmax(S + 1e-6 * w, 1)
        out["oracle"] = np.argmax(C[te], 1)
        return out

    rng = np.random.default_rng(0)
    res = {"setting": args.setting, "embed_seconds": round(t_emb, 1)}
    # in domain: pooled over splits
    pooled = {}
    for s in range(args.splits):
        perm = np.random.default_rng(s).permutation(n)
        tr, te = np.sort(perm[: int(round(0.7 * n))]), np.sort(perm[int(round(0.7 * n)):])
        for name, pick in routers(tr, te, False).items():
            pooled.setdefault(name, []).append((te, C[te, pick]))
    ood = {}
    for c in range(len(cats)):
        tr, te = np.flatnonzero(cat != c), np.flatnonzero(cat == c)
        for name, pick in routers(tr, te, True).items():
            ood.setdefault(name, []).append((te, C[te, pick]))

    def summarise(tab, label):
        base_q = np.concatenate([q for q, _ in tab["best single (train)"]])
        base_c = np.concatenate([c for _, c in tab["best single (train)"]]).astype(float)
        rows = []
        for name, parts in tab.items():
            q = np.concatenate([p for p, _ in parts])
            c = np.concatenate([v for _, v in parts]).astype(float)
            assert np.array_equal(q, base_q)
            diff = c - base_c
            # paired bootstrap by problem: resample problem ids, take all their (split) occurrences
            uq, inv = np.unique(q, return_inverse=True)
            sum_d = np.bincount(inv, diff, len(uq))
            cnt = np.bincount(inv, None, len(uq))
            b = rng.integers(0, len(uq), size=(args.boot, len(uq)))
            bd = sum_d[b].sum(1) / cnt[b].sum(1)
            lo, hi = np.quantile(bd, [0.025, 0.975])
            rows.append({"router": name, f"correct_{label}": round(c.mean(), 4),
                         "diff_vs_best_single": round(diff.mean(), 4), "ci95": [round(lo, 4), round(hi, 4)],
                         "wins": int((diff > 0).sum()), "losses": int((diff < 0).sum())})
            print(f"{label:4s} {name:26s} correct {c.mean():.4f}  diff {diff.mean():+.4f}  95% CI [{lo:+.4f}, "
                  f"{hi:+.4f}]  wins/losses {int((diff > 0).sum())}/{int((diff < 0).sum())}", flush=True)
        return rows

    res["in_domain"] = summarise(pooled, "in")
    res["ood"] = summarise(ood, "ood")
    res["seconds"] = round(time.perf_counter() - t0, 1)
    print("seconds", res["seconds"])
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
