"""Validation of Agentic Predictor (report section "agents"): spec checks 1-3 on the synthetic workflow bench.

Check 1 is the algebra of the released ranking utility (exact values plus a Monte-Carlo mean with a k*SE band);
check 2 is permutation invariance of the multi-view encoder; check 3 is the multi-view benefit over each single
view (Table 4 of arXiv:2505.19764) on the controlled synthetic bench, whose views each carry a unique signal.
Every check takes ``variant=`` naming a broken implementation it must catch (tests/agents/test_agents_validation.py
runs them and sees them fail).
"""
from __future__ import annotations

import contextlib
from unittest import mock

import numpy as np

from .registry import CheckResult, Criterion, check

PAPER = ("Trirat, Jeong and Hwang (2025) Multi-View Encoders for Performance Prediction in LLM-Based Agentic "
         "Workflows (Agentic Predictor), arXiv:2505.19764 (ICLR 2026); official code DeepAuto-AI/agentic-predictor")


@contextlib.contextmanager
def _variant(variant, allowed):
    if variant is None:
        yield
        return
    if variant not in allowed:
        raise ValueError(f"unknown variant {variant!r}; known: {sorted(allowed)}")
    from iclr26sci.agents import _metrics, _model

    if variant == "denominator-n":          # AUC divided by N instead of N - 1
        orig = _metrics.ranking_utility

        def broken(g, p, *a, **k):
            n = len(np.asarray(g))
            return orig(g, p, *a, **k) * (n - 1) / n

        with mock.patch.object(_metrics, "ranking_utility", broken):
            yield
    elif variant == "ascending-pred":       # predicted ranking sorted the wrong way
        orig = _metrics.precision_at_k

        def broken(g, p, *a, **k):
            return orig(g, -np.asarray(p, float), *a, **k)

        with mock.patch.object(_metrics, "precision_at_k", broken):
            yield
    elif variant == "positional":           # node index leaks into the features (breaks invariance)
        orig = _model._features

        def broken(workflows, te, dim):
            out = orig(workflows, te, dim)
            import copy

            import torch

            res = []
            for d in out:
                d = copy.copy(d)
                d.xp = d.xp + 0.5 * torch.arange(d.xp.shape[0], dtype=d.xp.dtype)[:, None]
                res.append(d)
            return res

        with mock.patch.object(_model, "_features", broken):
            yield
    elif variant == "graph-only":           # the aggregation silently uses the graph view alone
        orig = _model.MultiViewWorkflowEncoder._validate

        def broken(self):
            orig(self)
            return ("graph",)

        with mock.patch.object(_model.MultiViewWorkflowEncoder, "_validate", broken):
            yield


@check(method="agents", paper=PAPER, budget=3,
       guarantee="Check 1: the released utility is 1 for a perfect ranking, is invariant to any strictly increasing "
                 "transform of the predicted scores, and for uniformly random rankings of N = 40 distinct truths "
                 "its mean is (N+1)/(2N) (E[prec@k] = k/N)")
def c1_utility_algebra(profile, rng, variant=None):
    with _variant(variant, {"denominator-n", "ascending-pred"}):
        from iclr26sci.agents import _metrics

        n, draws = 40, profile.pick(2000, 20000)
        g = rng.random(n)
        perfect = _metrics.ranking_utility(g, g)
        u = np.empty(draws)
        inv = 0.0
        for i in range(draws):
            p = rng.random(n)
            u[i] = _metrics.ranking_utility(g, p)
            if i < 200:
                inv = max(inv, abs(_metrics.ranking_utility(g, np.log(p) * 3 + 1) - u[i]))
        expect = (n + 1) / (2 * n)
        se = u.std(ddof=1) / np.sqrt(draws)
        z = abs(u.mean() - expect) / se
        crit = [Criterion("|U(perfect) - 1|", abs(perfect - 1.0), 1e-12, "<="),
                Criterion("max |U(f(p)) - U(p)|, f increasing", inv, 1e-12, "<="),
                Criterion("|mean U(random) - (N+1)/(2N)| / SE", z, 3.0, "<=")]
        return CheckResult(criteria=crit, details=f"N={n}, {draws} random rankings: mean utility {u.mean():.4f} vs "
                           f"(N+1)/(2N) = {expect:.4f} (SE {se:.4f}); the linear interpolation of prec@k makes the "
                           "100-point trapezoid exact for the linear expectation, so the band is 3 SE.")


@check(method="agents", paper=PAPER, budget=4,
       guarantee="Check 2: relabelling the nodes of a workflow (consistent permutation of node features and edges) "
                 "leaves the multi-view graph embedding and the predicted success unchanged to 1e-5 (eval mode)")
def c2_permutation_invariance(profile, rng, variant=None):
    import torch

    with _variant(variant, {"positional"}):
        from iclr26sci.agents import AgenticPredictor, MultiViewWorkflowEncoder, Workflow, synthetic_workflow_bench

        bench = synthetic_workflow_bench(n_workflows=8, n_tasks=3, rng=rng)
        enc = MultiViewWorkflowEncoder(hidden=32, n_layers=2, dropout=0.0, views=("graph", "code"),
                                       text_encoder="hash", dim=64)
        pred = AgenticPredictor(encoder=enc, hidden=32, epochs=1, lr=1e-3, rng=rng).fit(bench.train)
        worst = 0.0
        n_perm = profile.pick(20, 200)
        big = [w for w in bench.unlabeled if w.n_nodes >= 3] or bench.unlabeled
        for k in range(n_perm):
            wf = big[k % len(big)]
            perm = rng.permutation(wf.n_nodes)
            inv = np.argsort(perm)
            wp = Workflow(ops=[wf.ops[i] for i in perm], prompts=[wf.prompts[i] for i in perm],
                          calls=[wf.calls[i] for i in perm], edges=inv[wf.edges], code=wf.code)
            t = bench.train.tasks[0]
            a, b = pred.predict_proba([wf], [t]), pred.predict_proba([wp], [t])
            za, zb = enc.encode([wf], pred.model_.enc), enc.encode([wp], pred.model_.enc)
            worst = max(worst, float(np.abs(a - b).max()), float(torch.abs(za - zb).max()))
        return CheckResult(statistic=worst, threshold=1e-5, comparison="<=",
                           details=f"{n_perm} random relabellings of synthetic workflows; max |difference| of z_W and "
                                   "P(success). The prompt view (prompts in programme order) is excluded: a relabelling "
                                   "rewrites that text by design.")


@check(method="agents", paper=PAPER, budget=20, slow=True,
       guarantee="Check 3 (Table 4): on the synthetic bench, whose graph, code and prompt views each carry unique "
                 "signal, the multi-view predictor's test accuracy is at least each single view's + 1 point")
def c3_multiview_benefit(profile, rng, variant=None):
    with _variant(variant, {"graph-only"}):
        from iclr26sci.agents import AgenticPredictor, MultiViewWorkflowEncoder, accuracy, synthetic_workflow_bench

        n_seeds = profile.pick(1, 3)
        rows, accs = [], {}
        for s in range(n_seeds):
            bench = synthetic_workflow_bench(n_workflows=profile.pick(60, 100), n_tasks=profile.pick(10, 20), rng=rng)
            for views in [("graph", "code", "prompt"), ("graph",), ("code",), ("prompt",)]:
                enc = MultiViewWorkflowEncoder(hidden=32, n_layers=2, dropout=0.1, views=views, text_encoder="hash",
                                               dim=128)
                p = AgenticPredictor(encoder=enc, hidden=32, epochs=profile.pick(25, 60), lr=1e-3,
                                     weight_decay=0.0, dropout=0.1,
                                     batch_size=64, rng=rng).fit(bench.train)
                accs.setdefault("+".join(views), []).append(accuracy(p, bench.test))
        mean = {k: float(np.mean(v)) for k, v in accs.items()}
        multi = mean.pop("graph+code+prompt")
        crit = [Criterion(f"multi - {k} (points)", 100 * (multi - v), 1.0, ">=") for k, v in mean.items()]
        rows = [{"views": k, "accuracy": round(v, 4)} for k, v in {"graph+code+prompt": multi, **mean}.items()]
        return CheckResult(criteria=crit, table=rows,
                           details=f"mean test accuracy over {n_seeds} bench seed(s); threshold +1 point from the "
                                   "spec (mirrors Table 4)")
