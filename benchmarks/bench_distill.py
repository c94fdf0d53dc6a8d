"""Benchmark of iclr26sci.distill (knowledge purification, arXiv:2602.01064) on CHAMP and the synthetic task.

Parts (``--parts``, default ``champ,synthetic``):

- ``champ``: the four real CHAMP teachers (GPT-3.5, GPT-4, GPT-4 Turbo, PaLM 2 Medium) under one prompt
  setting. Methods: each single teacher, majority vote, naive multi-teacher (all four targets), the five
  purifiers (aggregation surrogate, Plackett-Luce contextual and global, PLM classifier, similarity kNN and
  rationale consensus, RL selector) and the per-question oracle. Columns: selected-rationale correctness
  in domain (70/30 split by problem, mean over ``--splits`` random splits) and out of domain (leave one
  category out, pooled over the five), regret against the per-question oracle teacher, and time.
- ``synthetic``: the same table on :class:`SyntheticRationaleQA` (3000 train / 1000 test, in-domain and OOD).
- ``student``: SmolLM2-135M + LoRA distilled on the purified CHAMP solutions vs naive multi-teacher:
  held-out rationale likelihood and answer accuracy (off by default: it is slow on CPU).

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


def table(title, splits_in, splits_ood, K, names, emb, m):
    rows = []
    for name, make in methods(K, names, emb, m):
        cin, cood, secs, reg_in = [], [], [], []
        for tr, te in splits_in:
            c, s = evaluate(make, tr, te)
            cin.append(c.mean())
            reg_in.append(te.correct.max(1).mean() - c.mean())
            secs.append(s)
        for tr, te in splits_ood:
            c, s = evaluate(make, tr, te)
            cood.append(c)
            secs.append(s)
        by_cat = {f"ood_{te.domains[0][:6]}": round(float(c.mean()), 3) for (_, te), c in zip(splits_ood, cood)
                  if te.domains is not None and len(set(te.domains)) == 1}
        cood = np.concatenate(cood)
        rows.append({"method": name, "correct_in": round(float(np.mean(cin)), 4),
                     "se_in": round(float(np.std(cin, ddof=1) / np.sqrt(len(cin))) if len(cin) > 1 else 0.0, 4),
                     "correct_ood": round(float(cood.mean()), 4),
                     "regret_vs_oracle_in": round(float(np.mean(reg_in)), 4),
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


def part_student(args):
    from data_adapters.champ_teachers import load_champ_teachers
    from iclr26sci.nn import load_lm

    data = load_champ_teachers(args.setting, split=0.7, rng=0)
    tr, te = data.train, data.test
    lm = load_lm("smollm2-135m")
    rows = []
    sub = tr.subset(np.arange(min(args.student_n, tr.n)))
    for name, d, loss in [("purified (kNN router)", SimilarityRouter(embedder=args.embedder, m=15).fit(tr).purify(sub),
                           "purified"), ("naive multi-teacher", sub, "naive_multi_teacher")]:
        st = distill(lm, d, loss=loss, epochs=1, batch_size=2, lr=2e-4, rng=0)
        ev = evaluate_student(st, te, max_new_tokens=24, max_rationales=20)
        rows.append({"student": name, "accuracy": ev.accuracy, "rationale_nll": round(ev.rationale_nll, 4),
                     "train_s": round(st.seconds, 1)})
    print_table("SmolLM2-135M + LoRA on CHAMP", rows)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="champ,synthetic")
    ap.add_argument("--embedder", default="minilm", choices=["minilm", "hashing"])
    ap.add_argument("--setting", default="0-Shot")
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--student-n", type=int, default=40)
    args = ap.parse_args(argv)
    for part in args.parts.split(","):
        {"champ": part_champ, "synthetic": part_synthetic, "student": part_student}[part](args)


if __name__ == "__main__":
    main()
