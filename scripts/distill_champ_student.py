"""SmolLM2-135M + LoRA distilled on purified CHAMP solutions: held-out rationale NLL and easiest-category accuracy.

One small CPU run (minutes): CHAMP 0-Shot, 70/30 split by problem (rng 0); the similarity (question-kNN) router
fitted on the 189 training problems purifies the first ``--n-train`` of them; the student is trained with the
purified loss (answer task + one rationale task) for ``--epochs`` epochs. Solutions are shortened to their first
``--words`` words plus their final answer sentence (CPU budget), for training and for the held-out likelihood
alike. Reported: mean per-token NLL of held-out correct teacher solutions (same shortening) and the greedy
"predict:" answer accuracy on the test problems of the easiest category (highest mean teacher accuracy), graded
with data_adapters.grade_champ_answer; the same numbers for the untrained model (LoRA B = 0, i.e. the base model).

Run: ``OMP_NUM_THREADS=1 nice -n 10 python scripts/distill_champ_student.py [--n-train 48] [--words 60]``.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np


def shortened(d, words):
    """The benchmark's shortening of every rationale (one definition, in benchmarks/bench_distill.py)."""
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks", "bench_distill.py")
    spec = importlib.util.spec_from_file_location("bench_distill", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod._shortened(d, words)


def main(argv=None):
    import torch

    from data_adapters.champ_teachers import load_champ_teachers
    from data_adapters.llm_tasks import grade_champ_answer
    from iclr26sci.distill import SimilarityRouter, distill, evaluate_student
    from iclr26sci.nn import load_lm

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-train", type=int, default=48)
    ap.add_argument("--words", type=int, default=60)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--n-nll", type=int, default=30)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    data = load_champ_teachers("0-Shot", split=0.7, rng=0)
    tr, te = shortened(data.train, args.words), shortened(data.test, args.words)
    cats = sorted(set(data.domains))
    mean_acc = {c: float(data.correct[np.array([d == c for d in data.domains])].mean()) for c in cats}
    easiest = max(cats, key=mean_acc.get)
    te_easy = te.subset(np.flatnonzero([d == easiest for d in te.domains]))
    te_nll = te.subset(np.arange(min(40, te.n)))     # NLL on a random subset of its correct solutions
    router = SimilarityRouter(embedder=args.embedder, m=15).fit(tr)
    purified = router.purify(tr.subset(np.arange(min(args.n_train, tr.n))))
    lm = load_lm("smollm2-135m")
    id_of = dict(zip(te_easy.answers, te_easy.ids))

    def grader(out, gold):
        return bool(grade_champ_answer(out, id_of[gold]))

    rows = []
    base = lm.with_lora(r=8, rng=0)            # B = 0: exactly the base model, same evaluation path
    for name, model in [("base SmolLM2-135M (no distillation)", base), ("purified (kNN router), LoRA", None)]:
        t1 = time.perf_counter()
        if model is None:
            model = distill(lm, purified, loss="purified", epochs=args.epochs, batch_size=4, lr=args.lr, rng=0,
                            progress=False)
        train_s = time.perf_counter() - t1
        ev = evaluate_student(model, te_nll, max_rationales=args.n_nll, max_new_tokens=1, rng=0)
        acc = evaluate_student(model, te_easy, grader=grader, max_new_tokens=24, max_rationales=1, rng=0)
        rows.append({"student": name, "heldout_rationale_nll": round(ev.rationale_nll, 4),
                     "n_rationales": ev.n_rationales, f"accuracy_{easiest}": round(acc.accuracy, 4),
                     "n_easy": acc.n, "train_s": round(train_s, 1),
                     "history": list(getattr(model, "history", []))})
        print(rows[-1], flush=True)
    res = {"setting": "0-Shot", "n_train_problems": purified.n, "words": args.words, "epochs": args.epochs,
           "lr": args.lr, "easiest": easiest, "mean_teacher_acc_by_category": mean_acc,
           "purified_train_correctness": float(purified.target_correctness()), "rows": rows,
           "seconds": round(time.perf_counter() - t0, 1)}
    print(json.dumps(res, indent=1))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
