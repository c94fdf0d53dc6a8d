"""Properties of the purifiers, the Plackett-Luce fit, the synthetic generator and the students."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iclr26sci.distill import (AggregationPurifier, ClassifierRouter, HashingEmbedder, MajorityVote, MultiTeacherData,
                               OraclePurifier, PlackettLuceRouter, RLTeacherSelector, Seq2SeqStudent, SimilarityRouter,
                               SyntheticRationaleQA, distill, evaluate_student, plackett_luce_loglik, plackett_luce_mm,
                               sample_plackett_luce)

E = HashingEmbedder(dim=128)


@pytest.fixture(scope="module")
def world():
    g = SyntheticRationaleQA(rng=0)
    return g, g.generate(600, rng=1), g.generate(200, rng=2)


def _perm(d, perm):
    return MultiTeacherData(d.questions, [[r[k] for k in perm] for r in d.rationales], d.answers,
                            teacher_answers=[[a[k] for k in perm] for a in d.teacher_answers], domains=d.domains,
                            teachers=[d.teachers[k] for k in perm])


def test_synthetic_accuracies_match_p(world):
    g, tr, _ = world
    ea = g.expected_accuracy(tr.domains)
    # per-teacher mean accuracy within 4 binomial SE of its expectation (n = 600)
    se = np.sqrt(0.25 / tr.n)
    assert np.all(np.abs(tr.teacher_accuracy() - ea.mean(0)) < 4 * se)
    assert all(r.endswith(")." ) for row in tr.rationales for r in row)


def test_pl_matches_choix_and_loglik_is_maximal():
    import choix

    s = np.array([0.8, 0.1, -0.9])
    r = sample_plackett_luce(s, 800, rng=3)
    est = plackett_luce_mm(r)
    ref = np.asarray(choix.opt_rankings(3, r.tolist(), alpha=0.0))
    assert np.allclose(est, ref - ref.mean(), atol=1e-5)
    ll = plackett_luce_loglik(est, r)
    for d in np.eye(3) * 0.05:
        assert plackett_luce_loglik(est + d, r) < ll


def test_ties_are_averaged_over_orders():
    # a tie [[0, 1], [2]] is the average of rankings 0>1>2 and 1>0>2: same fit as both listed with weight 1/2
    a = plackett_luce_mm([[[0, 1], [2]]] * 4 + [[2, 0, 1]], alpha=0.1)
    b = plackett_luce_mm([[0, 1, 2]] * 4 + [[1, 0, 2]] * 4 + [[2, 0, 1]] * 2, weights=[0.5] * 8 + [0.5] * 2, alpha=0.1)
    assert np.allclose(a, b, atol=1e-7)


@settings(max_examples=8, deadline=None)
@given(st.permutations(range(4)), st.integers(0, 3))
def test_routers_are_teacher_equivariant(perm, which):
    g = SyntheticRationaleQA(rng=1)
    tr, te = g.generate(120, rng=5), g.generate(20, rng=6)
    perm = list(perm)
    make = [lambda: SimilarityRouter(embedder=E), lambda: PlackettLuceRouter(embedder=E),
            lambda: PlackettLuceRouter(contextual=False, embedder=E),
            lambda: ClassifierRouter(embedder=E, max_iter=30)][which]
    a = make().fit(tr).route_scores(te.questions)
    b = make().fit(_perm(tr, perm)).route_scores(te.questions)
    assert np.allclose(a[:, perm], b, atol=1e-8)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_knn_invariant_to_positive_rescaling(seed):
    # each text's embedding multiplied by its own power of two in [2^-3, 2^5] (exact in floating point)
    g = SyntheticRationaleQA(rng=2)
    tr, te = g.generate(100, rng=1), g.generate(15, rng=2)
    scale = {t: 2.0 ** int(k) for t, k in zip(tr.questions + te.questions,
                                               np.random.default_rng(seed).integers(-3, 6, tr.n + te.n))}
    a = SimilarityRouter(embedder=E).fit(tr).route_scores(te.questions)
    b = SimilarityRouter(embedder=lambda t: E(t) * np.array([scale[x] for x in t])[:, None]).fit(tr).route_scores(
        te.questions)
    assert np.array_equal(a, b)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_aggregation_ignores_duplicates_of_agreeing_rationales(seed):
    d = SyntheticRationaleQA(rng=seed % 7).generate(8, rng=seed)
    ag = AggregationPurifier(embedder=E)
    p = ag.purify(d)
    rows, ans = [], []
    for i in range(d.n):
        k = [j for j in range(d.K) if d.teacher_answers[i][j] == p.implied_answers[i]][0]
        rows.append(d.rationales[i] + [d.rationales[i][k]])
        ans.append(d.teacher_answers[i] + [d.teacher_answers[i][k]])
    q = ag.purify(MultiTeacherData(d.questions, rows, d.answers, teacher_answers=ans))
    assert q.rationales == p.rationales


def test_routers_beat_naive_and_oracle_bounds(world):
    g, tr, te = world
    orc = OraclePurifier().fit(tr).purify(te).target_correctness()
    for r in (SimilarityRouter(embedder=E, m=20), PlackettLuceRouter(embedder=E), ClassifierRouter(embedder=E),
              RLTeacherSelector(embedder=E, n_steps=2000)):
        c = r.fit(tr).purify(te).target_correctness()
        assert te.target_correctness() + 0.05 < c <= orc
    assert MajorityVote().purify(te).target_correctness() > te.target_correctness()


def test_rl_state_baseline_learns_the_per_state_value(world):
    # reward = a constant per domain (policy-independent): the normalised-LMS baseline b(s) = v.[e(q); 1] must
    # converge to that constant in each state, while one moving average cannot separate the states
    from iclr26sci.distill._synthetic import SYNTHETIC_DOMAINS

    _, tr, _ = world
    dom = {q: d for q, d in zip(tr.questions, tr.domains)}
    value = {"commonsense": 0.2, "biomedical": 0.5, "arithmetic": 0.9}

    def onehot(texts):
        return np.array([[float(dom[t] == d) for d in SYNTHETIC_DOMAINS] for t in texts])

    sel = RLTeacherSelector(embedder=onehot, n_steps=3000, reward=lambda i, k: value[tr.domains[i]], rng=0).fit(tr)
    b = np.hstack([np.eye(3), np.ones((3, 1))]) @ sel.v_
    assert np.allclose(b, [value[d] for d in SYNTHETIC_DOMAINS], atol=1e-3)


def test_route_result_probabilities(world):
    _, tr, te = world
    res = PlackettLuceRouter(embedder=E).fit(tr).route(te.questions[:5])
    assert np.allclose(res.proba.sum(1), 1) and res.teacher.shape == (5,)
    assert "RoutingResult" in repr(res) and set(res.to_dict()) >= {"teacher", "proba"}


def test_split_is_a_partition(world):
    _, tr, _ = world
    s = tr.split(0.7, rng=3)
    assert s.train.n + s.test.n == tr.n and set(s.train.questions) | set(s.test.questions) == set(tr.questions)
    o = tr.split(ood_domain="arithmetic")
    assert set(o.test.domains) == {"arithmetic"} and "arithmetic" not in set(o.train.domains)


def test_seq2seq_learns_a_copy_task():
    # the student can fit its training targets: loss falls and it reproduces the answers it was trained on
    qs = [f"item {w}" for w in "abcdefgh"]
    d = MultiTeacherData(qs, [[f"{w} is {w}. Thus, the answer is ({w}).", "x. Thus, the answer is (x)."]
                              for w in "abcdefgh"], [f"({w})" for w in "abcdefgh"],
                         teacher_answers=[[f"({w})", "(x)"] for w in "abcdefgh"])
    st_ = distill(Seq2SeqStudent(d_model=32, n_heads=2, n_layers=1, ff=64, dropout=0.0), OraclePurifier().purify(d),
                  epochs=60, batch_size=16, lr=3e-3, progress=False)
    assert st_.history[-1] < 0.2 * st_.history[0]
    ev = evaluate_student(st_, d, max_new_tokens=4)
    assert ev.accuracy == 1.0 and ev.rationale_nll < 0.5


def test_naive_loss_has_one_stream_per_teacher(world):
    _, tr, _ = world
    sub = tr.subset(np.arange(20))
    st_ = distill(Seq2SeqStudent(d_model=16, n_heads=2, n_layers=1, ff=32), sub, loss="naive_multi_teacher",
                  epochs=1, progress=False)
    assert st_.n_streams == 1 + tr.K and len(st_.prefixes) == tr.K


def test_distill_lora_tiny_lm(world):
    pytest.importorskip("peft")
    from iclr26sci.nn import tiny_lm

    _, tr, _ = world
    sub = tr.subset(np.arange(8))
    lm = tiny_lm(rng=0)
    st_ = distill(lm, OraclePurifier().purify(sub), epochs=2, batch_size=4, lr=5e-3, progress=False)
    assert st_.model is not lm and st_.model.n_trainable < st_.model.n_parameters
    assert st_.history[-1] < st_.history[0]
    ev = evaluate_student(st_, sub, max_new_tokens=3, max_rationales=4)
    assert 0 <= ev.accuracy <= 1 and np.isfinite(ev.rationale_nll)


def test_teacher_answer_targets(world):
    """answers='teachers': the naive answer task holds each teacher's own answer at weight gamma / K; the purified
    one the purified rationale's implied answer; 'gold' (default) the gold answer once."""
    from iclr26sci.distill import SingleTeacher
    from iclr26sci.distill._student import _examples

    _, tr, _ = world
    sub = tr.subset(np.arange(5))
    ex, _ = _examples(sub, "naive_multi_teacher", 2.0, 1.0, "teachers")
    pred = [e for e in ex if e[0].startswith("predict: ")]
    assert [e[1] for e in pred] == [a for row in sub.teacher_answers for a in row]
    assert all(e[2] == 2.0 / sub.K for e in pred)
    p = SingleTeacher(3).purify(sub)
    ex, _ = _examples(p, "purified", 1.0, 1.0, "teachers")
    assert [e[1] for e in ex if e[0].startswith("predict: ")] == list(p.implied_answers)
    ex, _ = _examples(sub, "naive_multi_teacher", 1.0, 1.0, "gold")
    assert [e[1] for e in ex if e[0].startswith("predict: ")] == list(sub.answers)


def test_max_steps_counts_optimiser_steps(world):
    """max_steps fixes the number of optimiser steps whatever the number of examples (step-matched losses)."""
    import torch

    _, tr, _ = world
    sub = tr.subset(np.arange(10))
    calls = []
    orig = torch.optim.AdamW.step

    def counting(self, *a, **k):
        calls.append(1)
        return orig(self, *a, **k)

    st0 = Seq2SeqStudent(d_model=16, n_heads=2, n_layers=1, ff=32)
    torch.optim.AdamW.step = counting
    try:
        for data, loss in [(OraclePurifier().purify(sub), "purified"), (sub, "naive_multi_teacher")]:
            calls.clear()
            distill(st0, data, loss=loss, batch_size=4, max_steps=7, progress=False)
            assert len(calls) == 7
    finally:
        torch.optim.AdamW.step = orig


def test_evaluate_fixed_prefix(world):
    """prefix= scores every rationale under that one prefix; the default for a naive student is the best of K."""
    _, tr, _ = world
    sub = tr.subset(np.arange(20))
    st_ = distill(Seq2SeqStudent(d_model=16, n_heads=2, n_layers=1, ff=32), sub, loss="naive_multi_teacher",
                  epochs=2, progress=False)
    best = evaluate_student(st_, sub, max_new_tokens=2).rationale_nll
    one = [evaluate_student(st_, sub, max_new_tokens=2, prefix=f"explain {k}: ").rationale_nll for k in range(sub.K)]
    assert best <= min(one) + 1e-6
