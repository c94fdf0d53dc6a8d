"""Why check 1 (conflict effect) has no verdict: can the seq2seq student learn the synthetic answer task at all?

Biomedical domain only (a drug -> enzyme map of 68 drugs, 3 shuffled options), generator rng 0, the best single
teacher (K = 1) through the purified loss, default Seq2SeqStudent (d = 64), lr 3e-3, batch 64. Two answer
formats for the student's answer task (the rationales are the same):

- ``letter``: the generator's gold option letter "(b)" (what check 1 trains and scores); the student must find
  the enzyme among the shuffled options, a pointer step;
- ``enzyme``: the gold option's text ("kinase"): the drug -> enzyme fact alone.

Printed: answer accuracy on the training questions and on held-out questions (same drugs, new option orders),
and how often the generated held-out rationale names the gold enzyme ("inhibits <enzyme>"), i.e. whether the
fact itself was learnt. Chance: 1/3 (letter), 1/6 or 1/3 (enzyme, among 6 enzymes / the 3 options).

Run: ``OMP_NUM_THREADS=1 nice -n 10 python scripts/distill_c1_probe.py [--n-train 2000] [--epochs 10]``.
"""
from __future__ import annotations

import argparse
import json
import re
import time

import numpy as np


def main(argv=None):
    import torch

    from iclr26sci.distill import (MultiTeacherData, Seq2SeqStudent, SingleTeacher, SyntheticRationaleQA, distill,
                                   evaluate_student)

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--n-test", type=int, default=600)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--formats", default="letter,enzyme")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    g = SyntheticRationaleQA(rng=0)
    tr = g.generate(args.n_train, domains="biomedical", rng=1)
    te = g.generate(args.n_test, domains="biomedical", rng=2)
    best = int(np.argmax(tr.teacher_accuracy()))

    def gold_text(d):
        out = []
        for q, a in zip(d.questions, d.answers):
            opts = dict(re.findall(r"\(([abc])\) (\w+)", q))
            out.append(opts[a.strip("()")])
        return out

    res = {"best_teacher": best, "train_acc_best": float(tr.teacher_accuracy()[best])}
    for fmt in args.formats.split(","):
        t0 = time.perf_counter()
        conv = (lambda d: d) if fmt == "letter" else (lambda d: MultiTeacherData(
            d.questions, d.rationales, gold_text(d), teacher_answers=d.teacher_answers, correct=d.correct,
            domains=d.domains, teachers=d.teachers))
        trf, tef = conv(tr), conv(te)
        st = distill(Seq2SeqStudent(rng=0), SingleTeacher(best).purify(trf), loss="purified", epochs=args.epochs,
                     lr=3e-3, batch_size=64, rng=0, progress=False)
        secs = time.perf_counter() - t0
        acc_tr = evaluate_student(st, trf.subset(np.arange(min(600, trf.n))), max_new_tokens=4, max_rationales=1).accuracy
        acc_te = evaluate_student(st, tef, max_new_tokens=4, max_rationales=1).accuracy
        gen = st.model.generate(["explain: " + q for q in te.questions], max_new_tokens=40)
        enz = gold_text(te)
        fact = float(np.mean([f"inhibits {e}" in o or f"targets {e}" in o for o, e in zip(gen, enz)]))
        res[fmt] = {"train_answer_acc": round(acc_tr, 4), "heldout_answer_acc": round(acc_te, 4),
                    "heldout_rationale_names_gold_enzyme": round(fact, 4), "final_train_loss": round(st.history[-1], 4),
                    "train_cpu_s": round(secs, 1), "example_rationale": gen[0]}
        print(fmt, res[fmt], flush=True)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
