"""Bad input to iclr26sci.distill: a clear InputError naming the argument, before any work."""
from __future__ import annotations

import numpy as np
import pytest

from iclr26sci.core import InputError, NotFittedError
from iclr26sci.distill import (AggregationPurifier, ClassifierRouter, HashingEmbedder, MajorityVote, MultiTeacherData,
                               OraclePurifier, PlackettLuceRouter, RandomTeacher, RLTeacherSelector, Seq2SeqStudent,
                               SimilarityRouter, SingleTeacher, SyntheticRationaleQA, correctness_rankings, distill,
                               evaluate_student, plackett_luce_loglik, plackett_luce_mm, sample_plackett_luce)

Q = ["q1?", "q2?", "q3?"]
R = [["a. Thus (a).", "b. Thus (b)."]] * 3
A = ["(a)", "(a)", "(b)"]


@pytest.fixture(scope="module")
def small():
    return SyntheticRationaleQA(rng=0).generate(60, rng=1)


@pytest.mark.bad_input("distill.MultiTeacherData")
def test_different_numbers_of_rationales():
    with pytest.raises(InputError, match="rationales.*different numbers"):
        MultiTeacherData(Q, [["x", "y"], ["x", "y", "z"], ["x", "y"]], A, correct=[[1, 0]] * 3)


@pytest.mark.bad_input("distill.MultiTeacherData")
def test_empty_rationale():
    with pytest.raises(InputError, match=r"rationales.*empty"):
        MultiTeacherData(Q, [["x", "  "], ["x", "y"], ["x", "y"]], A, correct=[[1, 0]] * 3)


@pytest.mark.bad_input("distill.MultiTeacherData")
@pytest.mark.parametrize("bad", [[[2, 0]] * 3, [[0.5, 1]] * 3, [[-1, 0]] * 3, [[np.nan, 1]] * 3])
def test_correctness_outside_01(bad):
    with pytest.raises(InputError, match="correct"):
        MultiTeacherData(Q, R, A, correct=bad)


@pytest.mark.bad_input("distill.MultiTeacherData")
def test_single_teacher_refused():
    with pytest.raises(InputError, match="rationales.*K=1"):
        MultiTeacherData(Q, [["x"]] * 3, A, correct=[[1]] * 3)


@pytest.mark.bad_input("distill.MultiTeacherData")
@pytest.mark.parametrize("kw,arg", [({"questions": "abc"}, "questions"), ({"questions": []}, "questions"),
                                    ({"answers": ["a"]}, "answers"), ({"teachers": ["t", "t"]}, "teachers"),
                                    ({"correct": [[1, 0]] * 2}, "correct"), ({"domains": ["d"]}, "domains")])
def test_data_bad_fields(kw, arg):
    base = dict(questions=Q, rationales=R, answers=A, correct=[[1, 0]] * 3)
    base.update(kw)
    with pytest.raises(InputError, match=arg):
        MultiTeacherData(base.pop("questions"), base.pop("rationales"), base.pop("answers"), **base)


@pytest.mark.bad_input("distill.MultiTeacherData")
def test_data_needs_correct_or_answers():
    with pytest.raises(InputError, match="correct"):
        MultiTeacherData(Q, R, A)


@pytest.mark.bad_input("distill.MultiTeacherData")
def test_data_methods_bad_args():
    d = MultiTeacherData(Q, R, A, correct=[[1, 0]] * 3, domains=["x", "y", "x"])
    for bad in (0.0, 1.0, -0.2, 2, "half"):
        with pytest.raises(InputError, match="train_fraction"):
            d.split(bad)
    with pytest.raises(InputError, match="ood_domain"):
        d.split(ood_domain="z")
    with pytest.raises(InputError, match="ood_domain"):
        d.split(ood_domain=["x", "y"])
    with pytest.raises(InputError, match="data"):
        d.train
    with pytest.raises(InputError, match="index"):
        d.subset([5])
    with pytest.raises(InputError, match="index"):
        d.subset([])
    with pytest.raises(InputError, match="records"):
        MultiTeacherData.from_champ([1, 2])
    with pytest.raises(InputError, match="records"):
        MultiTeacherData.from_champ({"questions": Q})


@pytest.mark.bad_input("distill.PlackettLuceRouter", "distill.ClassifierRouter", "distill.SimilarityRouter",
                       "distill.RLTeacherSelector")
@pytest.mark.parametrize("make", [lambda: PlackettLuceRouter(embedder="hashing"),
                                  lambda: ClassifierRouter(embedder="hashing"),
                                  lambda: SimilarityRouter(embedder="hashing"),
                                  lambda: RLTeacherSelector(embedder="hashing")])
def test_router_used_before_fit(make, small):
    r = make()
    with pytest.raises(NotFittedError):
        r.route(["a question"])
    with pytest.raises(NotFittedError):
        r.purify(small)


@pytest.mark.bad_input("distill.PlackettLuceRouter", "distill.ClassifierRouter", "distill.SimilarityRouter",
                       "distill.RLTeacherSelector")
@pytest.mark.parametrize("make,arg", [
    (lambda: PlackettLuceRouter(embedder="hashing", gamma=1.0), "gamma"),
    (lambda: PlackettLuceRouter(embedder="hashing", alpha=-1), "alpha"),
    (lambda: PlackettLuceRouter(embedder="hashing", contextual="yes"), "contextual"),
    (lambda: PlackettLuceRouter(embedder="bert"), "embedder"),
    (lambda: PlackettLuceRouter(embedder="hashing", quality="best"), "quality"),
    (lambda: ClassifierRouter(embedder="hashing", hidden=0), "hidden"),
    (lambda: ClassifierRouter(embedder="hashing", labels="mse"), "labels"),
    (lambda: ClassifierRouter(embedder="hashing", lr=0), "lr"),
    (lambda: SimilarityRouter(embedder="hashing", m=0), "m"),
    (lambda: SimilarityRouter(embedder="hashing", variant="nearest"), "variant"),
    (lambda: SimilarityRouter(embedder=42), "embedder"),
    (lambda: RLTeacherSelector(embedder="hashing", n_steps=0), "n_steps"),
    (lambda: RLTeacherSelector(embedder="hashing", baseline_decay=1.0), "baseline_decay"),
    (lambda: RLTeacherSelector(embedder="hashing", reward=3), "reward"),
    (lambda: RLTeacherSelector(embedder="hashing", entropy=-0.1), "entropy"),
    (lambda: RLTeacherSelector(embedder="hashing", baseline="none"), "baseline"),
])
def test_router_bad_params_at_fit(make, arg, small):
    with pytest.raises(InputError, match=arg):
        make().fit(small)


@pytest.mark.bad_input("distill.PlackettLuceRouter", "distill.SimilarityRouter", "distill.ClassifierRouter",
                       "distill.RLTeacherSelector")
def test_router_bad_data_and_questions(small):
    with pytest.raises(InputError, match="data"):
        SimilarityRouter(embedder="hashing").fit([["q", "r"]])
    r = SimilarityRouter(embedder="hashing").fit(small)
    with pytest.raises(InputError, match="questions"):
        r.route([1, 2])
    with pytest.raises(InputError, match="questions"):
        r.route([])
    three = MultiTeacherData(Q, [["x", "y", "z"]] * 3, A, correct=[[1, 0, 0]] * 3)
    with pytest.raises(InputError, match="data"):
        r.purify(three)
    with pytest.raises(InputError, match="questions"):
        SimilarityRouter(variant="rationale_consensus", embedder="hashing").fit(small).route(["bare question"])
    with pytest.raises(InputError, match="rankings"):
        PlackettLuceRouter(embedder="hashing").fit(small, rankings=[[0, 1, 2, 3]])
    with pytest.raises(InputError, match="embedder"):
        SimilarityRouter(embedder=lambda t: np.zeros((1, 3))).fit(small)
    sel = RLTeacherSelector(embedder="hashing", n_steps=5, reward=lambda i, k: float("nan"))
    with pytest.raises(InputError, match="reward"):
        sel.fit(small)
    with pytest.raises(NotFittedError):
        RLTeacherSelector(embedder="hashing").policy(["q"])
    with pytest.raises(NotFittedError):
        PlackettLuceRouter(embedder="hashing").worths(["q"])


@pytest.mark.bad_input("distill.AggregationPurifier")
def test_aggregation_bad_input(small):
    with pytest.raises(InputError, match="weights"):
        AggregationPurifier(weights="votes", embedder="hashing").purify(small)
    with pytest.raises(InputError, match="weights"):
        AggregationPurifier(weights=[1, 2], embedder="hashing").purify(small)
    with pytest.raises(NotFittedError):
        AggregationPurifier(weights="accuracy", embedder="hashing").purify(small)
    with pytest.raises(InputError, match="dedup_threshold"):
        AggregationPurifier(dedup_threshold=0, embedder="hashing").purify(small)
    with pytest.raises(InputError, match="max_words"):
        AggregationPurifier(max_words=0, embedder="hashing").purify(small)
    with pytest.raises(InputError, match="data"):
        AggregationPurifier(embedder="hashing").purify("text")


@pytest.mark.bad_input("distill.SingleTeacher", "distill.MajorityVote", "distill.RandomTeacher",
                       "distill.OraclePurifier")
def test_baselines_bad_input(small):
    for bad in (4, -1, 1.5, True):
        with pytest.raises(InputError, match="k"):
            SingleTeacher(bad).purify(small)
    for p in (MajorityVote(), RandomTeacher(), OraclePurifier(), SingleTeacher(0)):
        with pytest.raises(InputError, match="data"):
            p.purify([1, 2])
        with pytest.raises(InputError, match="data"):
            p.fit(None)


@pytest.mark.bad_input("distill.correctness_rankings")
def test_rankings_bad_input(small):
    with pytest.raises(InputError, match="quality"):
        correctness_rankings(small, quality="random")
    with pytest.raises(InputError, match="quality"):
        correctness_rankings(small, quality=np.zeros((2, 2)))
    with pytest.raises(InputError, match="data"):
        correctness_rankings([1])


@pytest.mark.bad_input("distill.plackett_luce_mm", "distill.plackett_luce_loglik", "distill.sample_plackett_luce")
def test_pl_bad_input():
    with pytest.raises(InputError, match="rankings"):
        plackett_luce_mm([])
    with pytest.raises(InputError, match="rankings"):
        plackett_luce_mm([[0, 1, 1]])
    with pytest.raises(InputError, match="rankings"):
        plackett_luce_mm([[0, 1.5, 2]])
    with pytest.raises(InputError, match="rankings"):
        plackett_luce_mm([[0]])
    with pytest.raises(InputError, match="weights"):
        plackett_luce_mm([[0, 1], [1, 0]], weights=[1, -1])
    with pytest.raises(InputError, match="weights"):
        plackett_luce_mm([[0, 1], [1, 0]], weights=[0, 0])
    with pytest.raises(InputError, match="alpha"):
        plackett_luce_mm([[0, 1]], alpha=-1)
    with pytest.raises(InputError, match="max_iter"):
        plackett_luce_mm([[0, 1]], max_iter=0)
    with pytest.raises(InputError, match="s"):
        plackett_luce_loglik([np.nan, 0], [[0, 1]])
    with pytest.raises(InputError, match="s"):
        sample_plackett_luce([1.0], 5)
    with pytest.raises(InputError, match="n"):
        sample_plackett_luce([1.0, 0.0], 0)


@pytest.mark.bad_input("distill.SyntheticRationaleQA")
def test_synthetic_bad_input():
    with pytest.raises(InputError, match="accuracy"):
        SyntheticRationaleQA(accuracy=[[0.5, 0.5]])
    with pytest.raises(InputError, match="accuracy"):
        SyntheticRationaleQA(accuracy=[[1.5, 0.5, 0.5], [0.5, 0.5, 0.5]])
    with pytest.raises(InputError, match="contradiction"):
        SyntheticRationaleQA(contradiction=[0.1, 0.1])
    g = SyntheticRationaleQA(rng=0)
    with pytest.raises(InputError, match="n"):
        g.generate(0)
    with pytest.raises(InputError, match="ood"):
        g.generate(5, ood="yes")
    with pytest.raises(InputError, match="domains"):
        g.generate(5, domains=["law"])
    with pytest.raises(InputError, match="domains"):
        g.expected_accuracy(["law"])


@pytest.mark.bad_input("distill.HashingEmbedder")
def test_hashing_bad_input():
    with pytest.raises(InputError, match="dim"):
        HashingEmbedder(dim=1)
    with pytest.raises(InputError, match="bigrams"):
        HashingEmbedder(bigrams=1)
    with pytest.raises(InputError, match="texts"):
        HashingEmbedder()("one string")
    with pytest.raises(InputError, match="texts"):
        HashingEmbedder()([])


class _NoTokenizer:
    model = object()
    tokenizer = None


@pytest.mark.bad_input("distill.distill", "distill.Seq2SeqStudent")
def test_distill_bad_input(small):
    pur = OraclePurifier().purify(small)
    st = Seq2SeqStudent(d_model=16, n_heads=2, n_layers=1, ff=32)
    with pytest.raises(InputError, match="student"):
        distill(_NoTokenizer(), pur)
    with pytest.raises(InputError, match="student"):
        distill("smollm2", pur)
    with pytest.raises(InputError, match="loss"):
        distill(st, pur, loss="kl")
    with pytest.raises(InputError, match="data"):
        distill(st, small, loss="purified")
    with pytest.raises(InputError, match="data"):
        distill(st, pur, loss="naive_multi_teacher")
    with pytest.raises(InputError, match="epochs"):
        distill(st, pur, epochs=0)
    with pytest.raises(InputError, match="alpha"):
        distill(st, small, loss="naive_multi_teacher", alpha=[1, 1])
    with pytest.raises(InputError, match="gamma"):
        distill(st, pur, gamma=-1)
    with pytest.raises(InputError, match="lr"):
        distill(st, pur, lr=0)
    with pytest.raises(InputError, match="answers"):
        distill(st, pur, answers="majority")
    with pytest.raises(InputError, match="max_steps"):
        distill(st, pur, max_steps=0)
    with pytest.raises(InputError, match="n_heads"):
        distill(Seq2SeqStudent(d_model=10, n_heads=4), pur)
    with pytest.raises(NotFittedError):
        st.generate(["predict: q"])


@pytest.mark.bad_input("distill.evaluate_student")
def test_evaluate_bad_input(small):
    st = distill(Seq2SeqStudent(d_model=16, n_heads=2, n_layers=1, ff=32), OraclePurifier().purify(small), epochs=1,
                 progress=False)
    with pytest.raises(InputError, match="data"):
        evaluate_student(st, OraclePurifier().purify(small))
    with pytest.raises(InputError, match="grader"):
        evaluate_student(st, small, grader="exact")
    with pytest.raises(InputError, match="max_new_tokens"):
        evaluate_student(st, small, max_new_tokens=0)
    with pytest.raises(InputError, match="prefix"):
        evaluate_student(st, small, prefix=2)
    with pytest.raises(InputError, match="student"):
        evaluate_student(_NoTokenizer(), small)
