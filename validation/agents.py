"""Validation of Agentic Predictor (report section "agents"): spec checks 1-6 on the synthetic workflow bench.

Check 1 is the algebra of the released ranking utility (exact values plus a Monte-Carlo mean with a k*SE band);
check 2 is permutation invariance of the multi-view encoder; check 3 is the multi-view benefit over each single
view (Table 4 of arXiv:2505.19764) on the controlled synthetic bench, whose views each carry a unique signal;
check 4 is the benefit of the reconstructed pretraining at low label ratios (Fig. 3), paired by seed; check 5 is
predictor-guided selection against random choice and the oracle (true success probabilities of the generator);
check 6 is calibration (10-bin ECE minus its finite-sample bias) of the predictor with temperature scaling on
held-out training workflows. Check 5 is a mechanics property and runs in the quick profile at a CI size (four fits,
25-30 s per seed on a loaded shared machine); its regret shrink is reported, not tested (SE 0.08 even at the full
size). Checks 3, 4 and 6 run in the full profile only (check 6's 0.05 ECE bound is not met
robustly by a CI-size fit; see the check).
Claims (tier ``claims``): c7 (within-task discrimination on the executed bench) runs in CI; c3_multiview_claim
(multi-view minus the best single view, planted view-split control) and c4_pretraining_claim (pretrained minus
scratch at label ratio 0.05, oracle-initialisation control) are registered with ``slow=True`` (full profile): at a
CI size their verdicts are not powered (see each check and docs/agents.md).
Every check takes ``variant=`` naming a broken implementation it must catch (tests/agents/test_agents_validation.py
runs them and sees them fail).
"""
from __future__ import annotations

import contextlib
from unittest import mock

import numpy as np

from ._figstyle import readable, subplots
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
        fig, ax = subplots(figsize=(8, 3.8))
        ax.hist(u, bins=40, color="C0", alpha=0.6, label=f"utility of {draws} random rankings")
        ax.axvline(expect, color="C3", ls="--", label=f"theory (N+1)/(2N) = {expect:.4f}")
        ax.axvspan(u.mean() - 1.96 * se, u.mean() + 1.96 * se, color="k", alpha=0.25,
                   label=f"sample mean, 95% CI ({u.mean():.4f})")
        ax.set_xlabel(f"ranking utility (N = {n} workflows)")
        ax.set_ylabel("number of rankings")
        ax.set_title("released utility under random rankings")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        readable(fig)
        return CheckResult(criteria=crit, figure=fig, details=f"N={n}, {draws} random rankings: mean utility {u.mean():.4f} vs "
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


# ------------------------------------------------------------------------------------------------ checks 4-6
def _small_predictor(views=("graph", "code", "prompt"), epochs=25, rng=None, encoder=None, calibration=None):
    from iclr26sci.agents import AgenticPredictor, MultiViewWorkflowEncoder

    enc = encoder if encoder is not None else MultiViewWorkflowEncoder(
        hidden=32, n_layers=2, dropout=0.1, views=views, text_encoder="hash", dim=128)
    return AgenticPredictor(encoder=enc, hidden=32, epochs=epochs, lr=1e-3, weight_decay=0.0, dropout=0.1,
                            batch_size=64, rng=rng, calibration=calibration)


@contextlib.contextmanager
def _variant_456(variant, allowed):
    if variant is None:
        yield
        return
    if variant not in allowed:
        raise ValueError(f"unknown variant {variant!r}; known: {sorted(allowed)}")
    from iclr26sci.agents import _model

    if variant == "pretrain-ignored":        # fine-tuning silently starts from a fresh encoder
        orig = _model.AgenticPredictor._setup

        def broken(self):
            orig(self)
            self._init_state = None

        with mock.patch.object(_model.AgenticPredictor, "_setup", broken):
            yield
    elif variant == "select-argmin":         # selection returns the lowest-scored candidate
        orig = _model._PairModel.select

        def broken(self, candidates, tasks):
            orig(self, candidates, tasks)
            return int(np.argmin(self.last_selection_scores_))

        with mock.patch.object(_model._PairModel, "select", broken):
            yield
    elif variant == "logit-scaled":          # probabilities from 3x the logit (over-confident head)
        orig = _model._PairModel._proba

        def broken(self, model, pairs):
            p = np.clip(orig(self, model, pairs), 1e-7, 1 - 1e-7)
            return 1.0 / (1.0 + np.exp(-3.0 * np.log(p / (1 - p))))

        with mock.patch.object(_model._PairModel, "_proba", broken):
            yield


RATIOS = (0.05, 0.1, 0.2, 0.3, 0.5)


@check(method="agents", paper=PAPER, budget=600, slow=True,
       guarantee="Check 4 (Fig. 3): fine-tuning from the reconstructed cross-domain pretraining (reconstruction + "
                 "NT-Xent on unlabelled workflows pooled from 3 domains) is not worse than training from scratch at "
                 "any label ratio in {0.05, 0.1, 0.2, 0.3, 0.5}, and its gain is larger at 0.05 than at 0.5")
def c4_pretraining_low_label(profile, rng, variant=None):
    with _variant_456(variant, {"pretrain-ignored"}):
        from iclr26sci.agents import MultiViewWorkflowEncoder, accuracy, pretrain, synthetic_workflow_bench

        # full: 18 benches. At 6 the verdict moved with the master seed (2026-12-06: gap(0.3) -3.2 points, SE 1.0
        # at seed 0; gap(0.05) - gap(0.5) -0.03 points at seed 1; a pass at seed 2): the bench-to-bench spread of
        # the gaps is 2-5 points, so 6 benches cannot tell a 2-point loss from none. 18 benches: SE about 0.6.
        n_seeds = profile.pick(3, 18)
        gaps = np.zeros((n_seeds, len(RATIOS)))
        acc = np.zeros((n_seeds, len(RATIOS), 2))
        for s in range(n_seeds):
            bench = synthetic_workflow_bench(n_workflows=60, n_tasks=10, rng=rng)
            cfg = MultiViewWorkflowEncoder(hidden=32, n_layers=2, dropout=0.1, text_encoder="hash", dim=128)
            enc = pretrain(bench.unlabeled, encoder=cfg, epochs=profile.pick(30, 40), rng=rng)
            for j, r in enumerate(RATIOS):
                seed = int(rng.integers(2 ** 31))   # paired: same batch order and head initialisation
                a0 = accuracy(_small_predictor(rng=seed, encoder=cfg).fit(bench.train, label_ratio=r), bench.test)
                a1 = accuracy(_small_predictor(rng=seed, encoder=enc).fit(bench.train, label_ratio=r), bench.test)
                acc[s, j] = a0, a1
                gaps[s, j] = a1 - a0
        m = gaps.mean(0)
        se = gaps.std(0, ddof=1) / np.sqrt(n_seeds)
        d = gaps[:, 0] - gaps[:, -1]
        crit = [Criterion(f"gap({r}) + 2 SE (points)", 100 * (m[j] + 2 * se[j]), 0.0, ">=")
                for j, r in enumerate(RATIOS)]
        # gap(0.05) > gap(0.5) is tested, not read off a point estimate: with the two gaps near 0 a "mean > 0"
        # criterion is a coin flip over master seeds (2026-12-06, full: -0.03 points at seed 1, positive at seed 2).
        # SE of the paired difference about 1 point at 6 benches, about 0.6 at 18: a 3-point difference (a quarter
        # of the paper's "up to +12.12%") is seen with power above 0.9.
        sd = d.std(ddof=1) / np.sqrt(n_seeds)
        crit.append(Criterion("mean gap(0.05) - gap(0.5) - 2 SE (points)", 100 * (d.mean() - 2 * sd), 0.0, ">"))
        rows = [{"label_ratio": r, "scratch": round(float(acc[:, j, 0].mean()), 4),
                 "pretrained": round(float(acc[:, j, 1].mean()), 4), "gap": round(float(m[j]), 4),
                 "se": round(float(se[j]), 4)} for j, r in enumerate(RATIOS)]
        return CheckResult(criteria=crit, table=rows,
                           details=f"{n_seeds} synthetic benches (60 workflows x 10 tasks per domain); paired fits "
                                   "(same seed) from scratch and from the pretrained encoder; 'not worse' allows the "
                                   "2 SE Monte-Carlo band of the mean paired gap")


def _true_rates(bench):
    """True success probability of each test workflow on its domain's tasks (mean of sigma(logit))."""
    t = bench.test
    pr = bench.info["true_prob_test"]
    return {w: float(pr[t.w_idx == w].mean()) for w in np.unique(t.w_idx)}


@check(method="agents", paper=PAPER, budget=60,
       guarantee="Check 5 (Phase c): the predictor-guided choice among held-out candidate workflows has a true "
                 "success rate at least that of a random choice (its regret against the oracle best candidate at "
                 "label ratios 0.05 and 1 is reported, not tested: see the check)")
def c5_selection_quality(profile, rng, variant=None):
    with _variant_456(variant, {"select-argmin"}):
        from iclr26sci.agents import synthetic_workflow_bench

        n_seeds = profile.pick(2, 5)
        res = {0.05: [], 1.0: []}
        rand = []
        for s in range(n_seeds):
            # CI size (quick): 2 benches of 40 workflows x 8 tasks per domain, 15 epochs per fit (4 fits)
            bench = synthetic_workflow_bench(n_workflows=40, n_tasks=profile.pick(8, 10), rng=rng)
            true = _true_rates(bench)
            seed = int(rng.integers(2 ** 31))
            for r in res:
                pred = _small_predictor(epochs=profile.pick(15, 30), rng=seed).fit(bench.train, label_ratio=r)
                for d in bench.info["domains"]:
                    m = bench.test.domain == d
                    cands = sorted(set(bench.test.w_idx[m].tolist()))
                    tasks = [bench.test.tasks[i] for i in sorted(set(bench.test.t_idx[m].tolist()))]
                    k = pred.select([bench.test.workflows[i] for i in cands], tasks)
                    tv = np.array([true[i] for i in cands])
                    res[r].append((tv.max() - tv[k], tv[k]))
                    if r == 1.0:
                        rand.append(tv.mean())
        lo, hi = np.array(res[0.05]), np.array(res[1.0])
        rand = np.array(rand)
        adv = hi[:, 1] - rand
        shrink = lo[:, 0] - hi[:, 0]
        se = lambda x: x.std(ddof=1) / np.sqrt(len(x))  # noqa: E731
        crit = [Criterion("mean true rate(selected, ratio 1) - mean rate(random)", float(adv.mean()), 0.0, ">=")]
        # The regret shrink is reported, not tested: its SE is 0.04-0.17 at the CI size (2 benches x 3 domains,
        # mean shrinks -0.08 to 0.26 over master seeds 0-4) and still 0.084 at the full size (5 benches; shrink
        # -0.003 at master seed 0), so a "> 0" gate on it would be a coin flip, not a powered test. Powering it to
        # see a 0.05 shrink would need about 20x the fits. The tested property is selection beating a random choice.
        rows = [{"label_ratio": r, "regret": round(float(a[:, 0].mean()), 4), "selected_rate": round(float(a[:, 1].mean()), 4)}
                for r, a in ((0.05, lo), (1.0, hi))] + [{"label_ratio": "random", "selected_rate": round(float(rand.mean()), 4)}]
        return CheckResult(criteria=crit, table=rows,
                           details=f"{n_seeds} synthetic benches x 3 domains, 12 held-out candidates each; true rates "
                                   f"are the generator's sigma(logit) means; advantage SE {se(adv):.4f}, regret "
                                   f"shrink 0.05 -> 1 {shrink.mean():.4f} (SE {se(shrink):.4f}; reported, not tested: "
                                   "not powered at this size)")


def _ece(p, y, bins=10):
    edges = np.linspace(0, 1, bins + 1)
    idx = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    tot = 0.0
    for b in range(bins):
        m = idx == b
        if m.any():
            tot += m.sum() * abs(p[m].mean() - y[m].mean())
    return tot / len(p)


@check(method="agents", paper=PAPER, budget=60, slow=True,
       guarantee="Check 6 (calibration): with all training labels, the BCE-trained predictor with temperature "
                 "scaling on held-out training workflows (calibration='temperature', 20 % of them) has an expected "
                 "calibration error on held-out workflows below 0.05 plus the finite-sample bias of the 10-bin ECE "
                 "(the ECE of the true probabilities on the same number of Bernoulli labels, by Monte Carlo)")
def c6_calibration(profile, rng, variant=None):
    with _variant_456(variant, {"logit-scaled"}):
        from iclr26sci.agents import synthetic_workflow_bench

        # Not at a CI size: at 40 workflows x 10 tasks, 15 epochs, the statistic ranged -0.004 to 0.063 over master
        # seeds 0-4 (one FAIL), and at 60 x 15, 20 epochs 0.012 to 0.051 (one FAIL with a direct seed-0 rng): the
        # fixed 0.05 bound of the spec is not met robustly by a small fit, so check 6 stays in the full profile.
        bench = synthetic_workflow_bench(n_workflows=60, n_tasks=profile.pick(15, 25), rng=rng)
        pred = _small_predictor(epochs=profile.pick(20, 30), rng=rng, calibration="temperature").fit(bench.train)
        p = pred.predict_proba(bench.test)
        y = bench.test.y
        ece = _ece(p, y)
        z = np.log(np.clip(p, 1e-12, 1)) - np.log(np.clip(1 - p, 1e-12, 1))
        ece_raw = _ece(1.0 / (1.0 + np.exp(-z * pred.temperature_)), y)   # same model before scaling (T = 1)
        q = bench.info["true_prob_test"]
        floor = np.array([_ece(q, (rng.random(len(q)) < q).astype(float)) for _ in range(200)])
        ece_truth = float(np.mean(np.abs(p - q)))
        crit = [Criterion("ECE(test) - E[ECE of the true probabilities]", ece - floor.mean(), 0.05, "<")]
        return CheckResult(criteria=crit,
                           details=f"{len(y)} test pairs; ECE {ece:.4f} with temperature {pred.temperature_:.3f} "
                                   f"({pred.n_calibration_pairs_} calibration pairs), {ece_raw:.4f} without it (the BCE "
                                   "fit alone is over-confident on unseen workflows); finite-sample ECE of the true "
                                   f"probabilities {floor.mean():.4f} (sd {floor.std():.4f}); mean |p - true p| "
                                   f"{ece_truth:.4f}")


def _auc(p, y):
    """Mann-Whitney AUC with mid-ranks for ties."""
    from scipy.stats import rankdata

    r = rankdata(p)
    n1 = y.sum()
    n0 = len(y) - n1
    return float((r[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


# Check 7 as a claim. Pooled AUC rewards knowing which tasks are easy: a workflow-blind per-task prior (each task's
# training success rate) scores AUC 0.977 against the model's 0.984 on this bench, so the pooled comparison cannot
# tell a workflow predictor from a task-difficulty table. The claim is about workflows, so the effect is within-task
# discrimination: the mean over held-out tasks with mixed labels of AUC_t(model) - AUC_t(per-task prior), where the
# prior is constant within a task (AUC_t = 0.5 exactly).
VERIFY_OPS = ("ScEnsemble", "Test")     # the planted structural feature: a verification / selection node


def _within_task_auc(p, t):
    """Per held-out task with both labels: (task index, AUC of ``p`` among that task's pairs, number of pairs)."""
    out = []
    for k in sorted(set(t.t_idx.tolist())):
        m = t.t_idx == k
        if 0 < t.y[m].mean() < 1:
            out.append((k, _auc(p[m], t.y[m]), int(m.sum())))
    return out


def _per_task_prior(train, test):
    """Workflow-blind baseline: each test pair gets its task's training success rate (the overall rate if unseen)."""
    rate = {k: train.y[train.t_idx == k].mean() for k in set(train.t_idx.tolist())}
    return np.array([rate.get(k, train.y.mean()) for k in test.t_idx.tolist()])


def _planted(ps, rng, noise=0.1):
    """The same pairs with success set by a planted structural feature: a workflow solves every task iff it has a
    verification node (ScEnsemble or Test), labels flipped with probability ``noise``."""
    from iclr26sci.agents import PairSet

    f = np.array([float(bool(set(VERIFY_OPS) & set(w.ops))) for w in ps.workflows])
    y = f[ps.w_idx]
    y = np.where(rng.random(y.size) < noise, 1.0 - y, y)
    return PairSet(ps.workflows, ps.tasks, ps.w_idx, ps.t_idx, y, ps.domain)


def _auc_figure(res, predictor):
    """Per held-out task: within-task AUC of the predictor minus the per-task prior's (dots), mean with 95% CI."""
    fig, ax = subplots(figsize=(8, 3.8))
    jit = np.linspace(-0.15, 0.15, max(len(v) for v in res.values()))
    for j, (lab, d) in enumerate(res.items()):
        d = np.asarray(d, float)
        ax.plot(j + jit[:len(d)], d, "o", color=("C0", "C2")[j], alpha=0.7, label=f"{lab}: single tasks")
        se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0.0
        ax.errorbar(j + 0.3, d.mean(), yerr=1.96 * se, fmt="D", color="k", capsize=6,
                    label="mean, 95% CI" if j == 0 else None)
    ax.axhline(0.0, color="grey", lw=1)
    ax.axhline(0.13, color="C3", ls="--", lw=1, label="min effect 0.13")
    ax.set_xticks(range(len(res)), [f"{k} labels" for k in res])
    ax.set_xlim(-0.5, len(res) - 0.3)
    ax.set_ylabel("within-task AUC minus prior's")
    ax.set_title(f"{predictor} predictor on held-out tasks (SmolLM2 bench)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return readable(fig)


def _claim_c7(profile, rng, predictor="multiview", epochs=None):
    from validation.claims import ClaimResult, mean_effect

    from iclr26sci.agents import WorkflowBench

    if predictor not in ("multiview", "per_task_prior", "shuffled-labels"):
        raise ValueError(f"predictor must be 'multiview', 'per_task_prior' or 'shuffled-labels', got {predictor!r}")
    epochs = epochs or profile.pick(5, 30)
    bench = WorkflowBench.load("smollm2-arith", rng=rng)
    pl_tr, pl_te = _planted(bench.train, rng), _planted(bench.test, rng)
    res, rows = {}, []
    for lab, tr, te in (("executed", bench.train, bench.test), ("planted", pl_tr, pl_te)):
        if predictor == "per_task_prior":
            p = _per_task_prior(tr, te)
        else:
            if predictor == "shuffled-labels":
                from iclr26sci.agents import PairSet

                tr = PairSet(tr.workflows, tr.tasks, tr.w_idx, tr.t_idx, rng.permutation(tr.y), tr.domain)
            pred = _small_predictor(epochs=epochs, rng=rng)
            pred.batch_size = 256
            p = pred.fit(tr).predict_proba(te)
        q = _per_task_prior(tr, te)
        w = _within_task_auc(p, te)
        d = np.array([a for _, a, _ in w]) - np.array([a for _, a, _ in _within_task_auc(q, te)])
        res[lab] = d
        rows.append({"labels": lab, "predictor": predictor, "tasks with mixed labels": len(w),
                     "within-task AUC (mean)": round(float(np.mean([a for _, a, _ in w])), 4),
                     "per-task prior within-task AUC": 0.5, "pooled AUC": round(_auc(p, te.y), 4),
                     "pooled AUC, per-task prior": round(_auc(q, te.y), 4),
                     "per task": [round(a, 3) for _, a, _ in w]})
    what = "mean over held-out tasks with mixed labels of AUC_t(predictor) - AUC_t(per-task prior)"
    eff = mean_effect(res["executed"], 0.13, what=what + " (executed SmolLM2 bench)")
    ctrl = mean_effect(res["planted"], 0.13, what=what + " (success planted on a verification node)")
    return ClaimResult(effect=eff, control=ctrl, table=rows, figure=_auc_figure(res, predictor),
                       details=f"SmolLM2 executed bench, workflow split; multi-view predictor {epochs} epochs; min "
                               "effect 0.13 = half the paper's utility gain over a workflow-blind ranking (average "
                               "utility 0.763 vs 0.5).")


from validation.claims import claim as _claim  # noqa: E402


@_claim(method="agents", paper=PAPER, budget=60,
        claim="The multi-view predictor ranks workflows by their success on a task (beyond what the task's "
              "difficulty alone predicts)",
        paper_setting="Table 3, FLORA-Bench, utility (ranking of workflows per task) averaged over six domains",
        paper_number="utility 76.33% (accuracy 79.97%); a workflow-blind ranking has utility about 50%",
        regime="On the executed SmolLM2 bench 9 held-out tasks have both solved and failed workflows (their success "
               "depends on the workflow's operators and prompts), so within-task ranking can be learnt; pooled AUC "
               "would reward task difficulty, which the per-task prior already knows.",
        control="Planted structural feature: on the same pairs, a workflow solves every task iff it has a "
                "verification node (ScEnsemble or Test), with 10% label noise; same predictor and training",
        test="one-sided t over held-out tasks with mixed labels, alpha 0.05; power for 0.13")
def c7_executed_bench_signal(profile, rng, predictor="multiview"):
    return _claim_c7(profile, rng, predictor)


# ------------------------------------------------------------------------------------- c3 and c4 as claims
VIEW_SETS = (("graph", "code", "prompt"), ("graph",), ("code",), ("prompt",))


def _retry_keyword(ps, rng, noise=0.1):
    """Planted view-split labels on the same pairs: a workflow succeeds iff its code retries (a ``for attempt``
    loop, visible only in the code view) AND one of its prompts asks to work "step by step" (visible only in the
    prompt text, which the graph view also reads), labels flipped with probability ``noise``. No single view
    sees both halves, so every single-view predictor is capped well below a multi-view one."""
    from iclr26sci.agents import PairSet

    f = np.array([float(("for attempt in range(" in w.code) and any("step by step" in str(p) for p in w.prompts))
                  for w in ps.workflows])
    y = f[ps.w_idx]
    y = np.where(rng.random(y.size) < noise, 1.0 - y, y)
    return PairSet(ps.workflows, ps.tasks, ps.w_idx, ps.t_idx, y, ps.domain)


def _claim_c3(profile, rng, views_multi=("graph", "code", "prompt"), n_benches=None, epochs=None):
    """Per bench seed: test accuracy of the multi-view predictor minus that of the single view with the best mean
    accuracy over the other benches (paired fits), on the synthetic bench and on the planted view-split labels of
    the same workflows."""
    from validation.claims import ClaimResult, mean_effect

    from iclr26sci.agents import MultiViewWorkflowEncoder, accuracy, synthetic_workflow_bench

    # full: 112 benches. The comparator is the single view with the best mean accuracy over the OTHER benches
    # (leave-one-bench-out), as the paper compares against the view that is best on average (Table 4: graph).
    # Until 2026-12-06 it was the best view of the same bench on its test set: a max over three noisy accuracies,
    # biased against the multi-view model by more than the 1-point min effect (full profile, seed 0, 40 benches:
    # -0.009 per-bench max against +0.003, SE 0.0064, leave-one-out). At SE 0.0064 x sqrt(40 / n) the test has
    # power >= 0.8 at 0.01 from n = 104 benches.
    n_benches = n_benches or profile.pick(4, 112)
    epochs = epochs or profile.pick(20, 40)
    accs = {"synthetic": [], "planted": []}          # per bench: (multi, {view: accuracy})
    for b in range(n_benches):
        bench = synthetic_workflow_bench(n_workflows=40, n_tasks=8, rng=rng)
        planted = (_retry_keyword(bench.train, rng), _retry_keyword(bench.test, rng))
        for lab, (tr, te) in (("synthetic", (bench.train, bench.test)), ("planted", planted)):
            seed = int(rng.integers(2 ** 31))            # paired: same batch order and initialisation per view set
            acc = {}
            for views in VIEW_SETS:
                v = views_multi if len(views) == 3 else views
                enc = MultiViewWorkflowEncoder(hidden=32, n_layers=2, dropout=0.1, views=v, text_encoder="hash",
                                               dim=128)
                acc["+".join(views)] = accuracy(_small_predictor(encoder=enc, epochs=epochs, rng=seed).fit(tr), te)
            multi = acc.pop("graph+code+prompt")
            accs[lab].append((multi, acc))
    gaps, rows = {}, []
    for lab, per in accs.items():
        names = list(per[0][1])
        A = np.array([[a[k] for k in names] for _, a in per])
        total = A.sum(0)
        g = []
        for b, (multi, acc) in enumerate(per):
            # the comparator is chosen without bench b (no winner's curse on the bench it is scored on)
            j = int(np.argmax(total - A[b])) if len(per) > 1 else int(np.argmax(A[b]))
            g.append(multi - A[b, j])
            rows.append({"bench": b, "labels": lab, "multi-view": round(multi, 4),
                         **{k: round(a, 4) for k, a in acc.items()}, "comparator": names[j],
                         "multi - comparator": round(g[-1], 4),
                         "multi - best of bench": round(multi - float(A[b].max()), 4)})
        gaps[lab] = g
    what = "test accuracy, multi-view minus the single view best on the other benches (paired fits)"
    eff = mean_effect(gaps["synthetic"], 0.01, what=what + " (synthetic bench)")
    ctrl = mean_effect(gaps["planted"], 0.05, what=what + " (planted retry-AND-step-by-step labels)")
    return ClaimResult(effect=eff, control=ctrl, table=rows,
                       details=f"{n_benches} synthetic benches (40 workflows x 8 tasks x 3 domains, workflow split), "
                               f"{epochs} epochs per fit, hash text encoder; the comparator is the single view with "
                               "the best mean accuracy over the other benches (leave-one-bench-out; the paper's "
                               "comparator is the view best on average); the per-bench best view, a max over three "
                               "noisy accuracies, is reported as 'multi - best of bench'. min effect 0.01 = the "
                               "spec's +1 point (the paper's Table 4 gap is +0.85 points).")


from validation.claims import claim as _claim3  # noqa: E402


# c3 runs at the full profile only (slow): at the CI size (2 benches of 40 workflows x 8 tasks x 3 domains, 20
# epochs, master seed 0's stream) the 16 fits took 420 s wall on the shared machine and measured multi - best single
# view = -0.038 (SE 0.017) with the planted control at +0.083 (SE 0.010, power 1.00). The paper's gap is +0.85
# points; a powered verdict at min effect 0.01 needs SE <= 0.01 / 2.49 = 0.004, i.e. about (0.017 * sqrt(2) /
# 0.004)^2 ~ 36 benches (288 fits), far beyond a claims-tier budget. At the CI size the verdict would be
# "inconclusive", which counts as a failure, so it is not put in the claims tier.
@_claim3(method="agents", paper=PAPER, budget=900, slow=True,
         claim="Combining the graph, code and prompt views predicts workflow success better than any single view",
         paper_setting="Table 4, view ablation on the AFlow domains (code, math, reasoning), accuracy averaged",
         paper_number="accuracy 84.38 (all three views) vs 83.53 (graph only, the best single view): +0.85 points",
         regime="On the synthetic bench each view carries signal the others miss (the retry count only in the code, "
                "the structure not in the prompt text, the prompts not in the code), so a fused encoder can gain over "
                "any one view when its fit has enough pairs.",
         control="Planted view-split labels on the same workflows: success iff the code retries AND a prompt asks "
                 "for step-by-step work (10% label noise), which no single view can see whole; same fits",
         test="one-sided t over bench seeds, alpha 0.05; power for 0.01 (control: 0.05)")
def c3_multiview_claim(profile, rng, views_multi=("graph", "code", "prompt")):
    return _claim_c3(profile, rng, views_multi=views_multi)


def _claim_c4(profile, rng, ignore_pretraining=False, n_benches=None, ratio=0.05, epochs=None, ft_epochs=None):
    """Per bench seed, paired fits at a low label ratio: accuracy from the reconstructed pretraining minus from
    scratch (effect), and from an oracle initialisation (the encoder of a predictor fitted on all training labels)
    minus from scratch (control)."""
    from validation.claims import ClaimResult, mean_effect

    from iclr26sci.agents import MultiViewWorkflowEncoder, PretrainedEncoder, accuracy, pretrain, synthetic_workflow_bench

    # full: 24 benches (SE 0.020 claim / 0.021 control at 8 benches on 2026-12-06: power 0.45 at 0.03 and 0.76 at
    # 0.05; 24 benches -> SE about 0.011 / 0.012, power >= 0.8 at both min effects)
    n_benches = n_benches or profile.pick(5, 24)
    ft_epochs = ft_epochs or 150
    gaps, ctrl, rows = [], [], []
    for b in range(n_benches):
        bench = synthetic_workflow_bench(n_workflows=40, n_tasks=8, rng=rng)
        cfg = MultiViewWorkflowEncoder(hidden=32, n_layers=2, dropout=0.1, text_encoder="hash", dim=128)
        enc = pretrain(bench.unlabeled, encoder=cfg, epochs=epochs or profile.pick(20, 40), rng=rng)
        full = _small_predictor(encoder=cfg, epochs=epochs or profile.pick(20, 30), rng=rng).fit(bench.train)
        oracle = PretrainedEncoder(cfg, {k: v.detach().cpu().clone()
                                         for k, v in full.model_.enc.state_dict().items()},
                                   {"loss": [0.0], "rec": [0.0], "con": [0.0]})   # no pretraining history
        if ignore_pretraining:                           # broken: the "pretrained" arm starts from scratch
            enc = cfg
        seed = int(rng.integers(2 ** 31))                # paired: same labelled subset, batch order, head init
        a = {k: accuracy(_small_predictor(encoder=e, epochs=ft_epochs, rng=seed).fit(bench.train, label_ratio=ratio),
                         bench.test) for k, e in (("scratch", cfg), ("pretrained", enc), ("oracle init", oracle))}
        gaps.append(a["pretrained"] - a["scratch"])
        ctrl.append(a["oracle init"] - a["scratch"])
        rows.append({"bench": b, "label ratio": ratio, **{k: round(v, 4) for k, v in a.items()}})
    what = f"test accuracy at label ratio {ratio}, fine-tuned from {{}} minus from scratch (paired fits)"
    eff = mean_effect(gaps, 0.03, what=what.format("the reconstructed pretraining"))
    con = mean_effect(ctrl, 0.05, what=what.format("an oracle encoder (fitted on all training labels)"))
    return ClaimResult(effect=eff, control=con, table=rows,
                       details=f"{n_benches} synthetic benches (40 workflows x 8 tasks x 3 domains; unlabelled pool = "
                               "the training workflows of all 3 domains); pretraining = reconstruction + NT-Xent "
                               f"({profile.pick(20, 40)} epochs); {ft_epochs} fine-tuning epochs on the labelled "
                               "5% (one batch each: at 20 epochs the scratch and pretrained fits barely leave their "
                               "initialisation and predict one class). min effect 0.03 = a quarter of the paper's "
                               "'up to +12.12%' low-label gain (control: 0.05).")


# c4 runs at the full profile only (slow). At the CI size (40 workflows x 8 tasks x 3 domains, label ratio 0.05 =
# about 33 labelled pairs, pretraining 20 epochs; stream default_rng(0)) no setting gave a powered verdict with a
# passing control: with 20 fine-tuning epochs both arms predicted one class (pretrained - scratch exactly 0 on 3 of
# 3 benches, SE 0: no verdict; oracle-initialisation control +0.093, SE 0.014); with 150 epochs pretrained - scratch = -0.016 (SE
# 0.006, 3 benches: a powered null at 0.03) but the control fell to +0.068 (SE 0.038, power 0.37); with 60 epochs
# -- 4 benches -- +0.009 (SE 0.034) and control +0.054 (SE 0.041). The labelled 5% is too small for any
# initialisation effect to survive fine-tuning reliably at this size; each run cost 5-10 min wall on the shared
# machine. The full profile uses 24 benches and 40 pretraining epochs.
@_claim3(method="agents", paper=PAPER, budget=900, slow=True,
         claim="Cross-domain unsupervised pretraining of the encoder raises accuracy when labels are scarce",
         paper_setting="Fig. 3 and Sec. 4: label ratios 0.5 to 0.1 (FLORA-Bench); pretrained 'Agent Predictor+' vs "
                       "training from scratch",
         paper_number="up to +12.12% accuracy and +15.16% utility in low-label regimes (pretraining code not "
                      "released; our pretraining is a reconstruction)",
         regime="With 5% of the labels a scratch fit sees a few dozen pairs; unlabelled workflows of all domains "
                "carry their structure and text, so an encoder pretrained on them can start closer to useful "
                "features, if reconstruction + contrastive pretraining captures what predicts success.",
         control="Oracle initialisation: the encoder of a predictor fitted on all training labels of the same bench, "
                 "fine-tuned at the same 5% ratio (an initialisation known to carry the success signal)",
         test="one-sided t over bench seeds, alpha 0.05; power for 0.03 (control: 0.05)")
def c4_pretraining_claim(profile, rng, ignore_pretraining=False):
    return _claim_c4(profile, rng, ignore_pretraining=ignore_pretraining)
