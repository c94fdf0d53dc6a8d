"""Benchmark of iclr26sci.distill (knowledge purification, arXiv:2602.01064) on CHAMP and the synthetic task.

Parts (``--parts``, default ``champ,synthetic``):

- ``champ``: the four real CHAMP teachers (GPT-3.5, GPT-4, GPT-4 Turbo, PaLM 2 Medium) under one prompt
  setting. Methods: each single teacher, majority vote, naive multi-teacher (all four targets), the five
  purifiers (aggregation surrogate, Plackett-Luce contextual and global, PLM classifier, similarity kNN and
  rationale consensus, RL selector) and the per-question oracle. Columns: selected-rationale correctness
  in domain (70/30 split by problem, mean over ``--splits`` random splits) and out of domain (leave one
  category out, pooled over the five), regret against the per-question oracle teacher, and time.
- ``synthetic``: the same table on :class:`SyntheticRationaleQA` (3000 train / 1000 test, in-domain and OOD).
- ``student``: SmolLM2-135M + LoRA distilled on the purified CHAMP solutions vs naive multi-teacher (and the
  base model), step-matched (same optimiser steps and batch size), at ``--student-seeds``: held-out solution
  likelihood under one prefix per student and easiest-category answer accuracy with its binomial SE (off by
  default: about 15 CPU-minutes at the defaults).

Run: ``python benchmarks/bench_distill.py [--parts champ,synthetic,student] [--embedder minilm|hashing]``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from _common import print_table  # noqa: E402
from iclr26sci.distill import (AggregationPurifier, ClassifierRouter, MajorityVote, OraclePurifier,  # noqa: E402
                               PlackettLuceRouter, RLTeacherSelector, SimilarityRouter, SingleTeacher,
                               Seq2SeqStudent, SyntheticRationaleQA, distill, evaluate_student)


def methods(K, names, emb, m):
    out = [(f"single: {names[k]}", lambda k=k: SingleTeacher(k)) for k in range(K)]
    out += [("majority vote", MajorityVote), ("naive multi-teacher", None),
            ("aggregation surrogate", lambda: AggregationPurifier(embedder=emb)),
            ("PL router (contextual)", lambda: PlackettLuceRouter(embedder=emb)),
            ("PL router (global)", lambda: PlackettLuceRouter(contextual=False, embedder=emb)),
            ("PLM-classifier router", lambda: ClassifierRouter(embedder=emb)),
            ("similarity router (kNN)", lambda: SimilarityRouter(embedder=emb, m=m)),
            ("similarity (consensus)", lambda: SimilarityRouter(variant="rationale_consensus", embedder=emb)),
            ("RL selector", lambda: RLTeacherSelector(embedder=emb, n_steps=5000)),
            ("oracle", OraclePurifier)]
    return out


class CachedEmbedder:
    """Embeds each distinct text once (MiniLM would otherwise re-encode the same texts for every method and split)."""

    def __init__(self, name):
        from iclr26sci.distill._embed import resolve_embedder

        self.f, self.memo, self.seconds = resolve_embedder(name), {}, 0.0

    def warm(self, texts):
        new = sorted({t for t in texts if t not in self.memo})
        if new:
            t0 = time.perf_counter()
            for t, v in zip(new, self.f(new)):
                self.memo[t] = v
            self.seconds += time.perf_counter() - t0
        return self

    def __call__(self, texts):
        self.warm(texts)
        return np.stack([self.memo[t] for t in texts])


def evaluate(make, tr, te):
    t0 = time.perf_counter()
    if make is None:
        return te.correct.mean(1), 0.0
    p = make().fit(tr).purify(te)
    return p.correct.astype(float), time.perf_counter() - t0


def _keys(d):
    return np.asarray(d.ids) if getattr(d, "ids", None) is not None else np.arange(d.n)


def paired_ci(keys, diff, n_boot=2000, rng=0):
    """95% paired bootstrap CI of mean(diff), resampling problems (all their occurrences over splits together)."""
    _, inv = np.unique(keys, return_inverse=True)
    sd, cnt = np.bincount(inv, diff), np.bincount(inv).astype(float)
    b = np.random.default_rng(rng).integers(0, len(sd), size=(n_boot, len(sd)))
    lo, hi = np.quantile(sd[b].sum(1) / cnt[b].sum(1), [0.025, 0.975])
    return f"[{lo:+.3f}, {hi:+.3f}]"


def table(title, splits_in, splits_ood, K, names, emb, m):
    """One row per method; ``d_*_vs_best1`` is the paired difference to the best single teacher of each
    training part (in domain pooled over the splits), with a 95% bootstrap CI over problems."""
    rows = []
    ref_in = [te.correct[:, int(np.argmax(tr.teacher_accuracy()))].astype(float) for tr, te in splits_in]
    ref_ood = [te.correct[:, int(np.argmax(tr.teacher_accuracy()))].astype(float) for tr, te in splits_ood]
    key_in = np.concatenate([_keys(te) for _, te in splits_in])
    key_ood = np.concatenate([_keys(te) for _, te in splits_ood])
    for name, make in methods(K, names, emb, m):
        cin, cood, secs, reg_in, pin = [], [], [], [], []
        for tr, te in splits_in:
            c, s = evaluate(make, tr, te)
            cin.append(c.mean())
            pin.append(c)
            reg_in.append(te.correct.max(1).mean() - c.mean())
            secs.append(s)
        for tr, te in splits_ood:
            c, s = evaluate(make, tr, te)
            cood.append(c)
            secs.append(s)
        by_cat = {f"ood_{te.domains[0][:6]}": round(float(c.mean()), 3) for (_, te), c in zip(splits_ood, cood)
                  if te.domains is not None and len(set(te.domains)) == 1}
        d_in = np.concatenate(pin) - np.concatenate(ref_in)
        d_ood = np.concatenate(cood) - np.concatenate(ref_ood)
        cood = np.concatenate(cood)
        rows.append({"method": name, "correct_in": round(float(np.mean(cin)), 4),
                     "se_in": round(float(np.std(cin, ddof=1) / np.sqrt(len(cin))) if len(cin) > 1 else 0.0, 4),
                     "correct_ood": round(float(cood.mean()), 4),
                     "regret_vs_oracle_in": round(float(np.mean(reg_in)), 4),
                     "d_in_vs_best1": round(float(d_in.mean()), 4), "ci_in": paired_ci(key_in, d_in),
                     "d_ood_vs_best1": round(float(d_ood.mean()), 4), "ci_ood": paired_ci(key_ood, d_ood),
                     "seconds": round(float(np.sum(secs)), 2), **by_cat})
    print_table(title, rows)
    return rows


def part_champ(args):
    from data_adapters.champ_teachers import load_champ_teachers

    data = load_champ_teachers(args.setting, split=None)
    print(data.summary())
    ins = [(s.train, s.test) for s in (data.split(0.7, rng=r) for r in range(args.splits))]
    ood = [(s.train, s.test) for s in (data.split(ood_domain=c) for c in sorted(set(data.domains)))]
    emb = CachedEmbedder(args.embedder).warm(list(data.questions) + [r for row in data.rationales for r in row])
    print(f"embedding {len(emb.memo)} distinct texts with {args.embedder}: {emb.seconds:.1f} s (once; not in the "
          "methods' seconds)")
    return table(f"CHAMP {args.setting}: selected-rationale correctness (embedder {args.embedder})", ins, ood,
                 data.K, data.teachers, emb, 15)


def part_synthetic(args):
    from iclr26sci.distill import HashingEmbedder

    g = SyntheticRationaleQA(rng=0)
    tr, te, ood = g.generate(3000, rng=1), g.generate(1000, rng=2), g.generate(1000, rng=3, ood=True)
    # hashed bag of words here whatever --embedder says: MiniLM on 25,000 synthetic texts would take minutes on CPU
    emb = HashingEmbedder(256)
    return table("Synthetic (3 domains, K=4; hashing embedder): target correctness", [(tr, te)], [(tr, ood)], tr.K,
                 tr.teachers, emb, 10)


def _shorten(text, words):
    """The first ``words`` words of a solution plus its final-answer line (the CPU budget's cut)."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    last = lines[-1].strip() if lines else ""
    body = " ".join(text.split()[:words])
    return body if last in body else f"{body} ... {last}"


def _shortened(d, words):
    from iclr26sci.distill import MultiTeacherData

    return MultiTeacherData(d.questions, [[_shorten(r, words) for r in row] for row in d.rationales], d.answers,
                            teacher_answers=d.teacher_answers, correct=d.correct, domains=d.domains,
                            teachers=d.teachers, ids=d.ids)


def _solution_nll(st, data, pairs, prefix, bs=8):
    """Per-solution mean per-token NLL of ``data.rationales[i][k]`` for (i, k) in ``pairs`` under one prefix."""
    import torch

    lm = st.model if hasattr(st, "model") and hasattr(st, "prefixes") else st
    out = []
    for s in range(0, len(pairs), bs):
        chunk = pairs[s:s + bs]
        with torch.no_grad():
            lp = lm.sequence_logprob([prefix + data.questions[i] + "\n" for i, _ in chunk],
                                     [" " + data.rationales[i][k] for i, k in chunk], reduce="mean")
        out += (-lp.mean.float().cpu().numpy()).tolist()
    return np.array(out)


def part_student(args):
    """SmolLM2-135M + LoRA: base model, purified (kNN router) student and naive multi-teacher student, step-matched.

    Same training problems (the first ``--student-n`` of the 70/30 split, rng 0), same shortened solutions, the
    SAME number of optimiser steps (``--student-steps``) at the same batch size 4, lr 1e-3, LoRA r = 8 (q, v), for
    each distill seed in ``--student-seeds`` (LoRA initialisation and example order). The purified student has 2
    sequences per problem, the naive one 1 + K = 5, so at equal steps the naive student sees fewer problems' worth
    of each stream. Held-out, one protocol for every student: mean per-token NLL of 30 correct test solutions under
    ONE prefix (the purified student's "explain: "; the naive student's stream of the best training teacher, no
    minimum over prefixes), and greedy answer accuracy on the test problems of the easiest category (highest mean
    teacher accuracy), graded with data_adapters.grade_champ_answer, with its binomial SE. The paired column is the
    per-solution NLL difference to the naive student of the same seed (mean and SE over the 30 solutions).
    """
    import torch

    from data_adapters.champ_teachers import load_champ_teachers
    from data_adapters.llm_tasks import grade_champ_answer
    from iclr26sci.core import as_generator
    from iclr26sci.nn import load_lm

    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
    data = load_champ_teachers(args.setting, split=0.7, rng=0)
    tr, te = _shortened(data.train, args.words), _shortened(data.test, args.words)
    cats = sorted(set(data.domains))
    mean_acc = {c: float(data.correct[np.array([d == c for d in data.domains])].mean()) for c in cats}
    easiest = max(cats, key=mean_acc.get)
    te_easy = te.subset(np.flatnonzero([d == easiest for d in te.domains]))
    te_nll = te.subset(np.arange(min(40, te.n)))
    pairs = [(i, k) for i in range(te_nll.n) for k in range(te_nll.K) if te_nll.correct[i, k]]
    sel = as_generator(0).choice(len(pairs), min(30, len(pairs)), replace=False)
    pairs = [pairs[j] for j in sorted(sel)]
    id_of = dict(zip(te_easy.answers, te_easy.ids))
    best = int(np.argmax(tr.teacher_accuracy()))

    def grader(out, gold):
        return bool(grade_champ_answer(out, id_of[gold]))

    sub = tr.subset(np.arange(min(args.student_n, tr.n)))
    purified = SimilarityRouter(embedder=args.embedder, m=15).fit(tr).purify(sub)
    lm = load_lm("smollm2-135m")
    seeds = [int(x) for x in args.student_seeds.split(",")]
    runs = [("base SmolLM2-135M (LoRA B = 0)", None, None, 0)]
    for sd in seeds:
        runs += [("purified (kNN router)", purified, "purified", sd), ("naive multi-teacher (TinyLLM)", sub,
                                                                        "naive_multi_teacher", sd)]
    rows, nlls = [], {}
    for name, d, loss, sd in runs:
        t0 = time.perf_counter()
        st = lm.with_lora(r=8, rng=0) if d is None else distill(lm, d, loss=loss, max_steps=args.student_steps,
                                                                batch_size=4, lr=1e-3, rng=sd, progress=False)
        train_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        prefix = f"explain {best}: " if loss == "naive_multi_teacher" else "explain: "
        v = _solution_nll(st, te_nll, pairs, prefix)
        nlls[(loss, sd)] = v
        acc = evaluate_student(st, te_easy, grader=grader, max_new_tokens=24, max_rationales=1, rng=0)
        p = acc.accuracy
        rows.append({"student": name, "seed": "-" if d is None else sd, "steps": 0 if d is None else
                     args.student_steps, "train_problems": 0 if d is None else sub.n,
                     "target_correct": round(float(purified.target_correctness()), 3) if loss == "purified" else (
                         round(float(sub.target_correctness()), 3) if d is not None else float("nan")),
                     "nll_prefix": prefix.strip(), "heldout_nll": round(float(v.mean()), 4), "n_nll": len(v),
                     f"acc_{easiest[:6]}": round(p, 4), "acc_se": round(float(np.sqrt(p * (1 - p) / acc.n)), 4),
                     "n_acc": acc.n, "train_s": round(train_s, 1), "eval_s": round(time.perf_counter() - t0, 1)})
        print(rows[-1], flush=True)
    for row, (name, d, loss, sd) in zip(rows, runs):
        ref = nlls.get(("naive_multi_teacher", sd))
        if ref is not None and loss != "naive_multi_teacher":
            diff = nlls[(loss, sd)] - ref
            row["d_nll_vs_naive"] = round(float(diff.mean()), 4)
            row["se_d"] = round(float(diff.std(ddof=1) / np.sqrt(len(diff))), 4)
    print_table(f"SmolLM2-135M + LoRA on CHAMP {args.setting} (solutions cut to {args.words} words + final line; "
                f"{args.student_steps} optimiser steps at batch 4 for both losses)", rows)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="champ,synthetic")
    ap.add_argument("--embedder", default="minilm", choices=["minilm", "hashing"])
    ap.add_argument("--setting", default="0-Shot")
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--student-n", type=int, default=24)
    ap.add_argument("--words", type=int, default=60)
    ap.add_argument("--student-steps", type=int, default=12)
    ap.add_argument("--student-seeds", default="0,1")
    args = ap.parse_args(argv)
    for part in args.parts.split(","):
        {"champ": part_champ, "synthetic": part_synthetic, "student": part_student}[part](args)


if __name__ == "__main__":
    main()
