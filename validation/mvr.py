"""Validation of MVR (report section "mvr"): the spec's checks C3-1 ... C3-6.

The toys are small enough to know the right answer: the shaping term is a closed-form function (C3-1); the
synthetic clips of C3-2 and C3-4 have a known true relevance q(s); the rendered oscillator of C3-3 has a
known target motion (oscillate at amplitude A) and a known image-level optimum (pause at the pose x = A);
the 5 x 5 gridworld of C3-5 is solved exactly by value iteration. Each check's ``details`` names the broken
implementation it catches; tests/rl/test_mvr_validation.py runs those variants and shows the checks fail.

Claims tier: ``c_mvr_shaping_beats_baselines`` (the paper's headline claim, MVR shaping against the task reward
and an image-based reward on a sparse-reward oscillator, with an oracle-relevance positive control); its broken
variant is caught in tests/rl/test_mvr_claim.py.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .registry import CheckResult, Criterion, check

PAPER = ("Luo et al., MVR: Multi-view Video Reward Shaping for Reinforcement Learning, ICLR 2026 "
         "(arXiv:2603.01694; code mvr-rl/mvr); Ng, Harada and Russell (1999), policy invariance under reward "
         "shaping")


def _seed(rng):
    return int(rng.integers(0, 2 ** 31 - 1))


# ---------------------------------------------------------------------------------------------- C3-1
@check(method="mvr", paper=PAPER, budget=4,
       guarantee="C3-1: the code-faithful shaping F(D) = clip(w_s log sigmoid(D/tau), -5, 5) of the relevance "
                 "gap D = f(s) - f(s') is non-positive, non-decreasing in D, fades as w_s exp(-D/tau) above "
                 "the reference, has the derivative (w_s/tau)(1 - sigmoid(D/tau)) (decreasing), and never "
                 "goes below -5; the trained MVRShaper's outputs obey the same bounds")
def c3_1_fade_monotonicity(profile, rng, _variant=None):
    from iclr26sci.rl.mvr import MVRShaper, StateRelevance, mvr_shaping

    w, tau = 0.1, 0.1
    F = mvr_shaping if _variant is None else _variant
    D = np.sort(np.concatenate([np.linspace(-100, 100, 20001), rng.normal(0, 2, profile.pick(20000, 200000))]))
    f = F(D, w, tau, 5.0)
    mono = float(np.min(np.diff(f)))
    pos = (D > 0) & (D <= 50)  # e^{-D/tau} underflows beyond D = 70
    fade = float(np.max(np.abs(f[pos]) / (w * np.exp(-D[pos] / tau)) - 1.0, initial=-1.0))
    h = 1e-5
    Dm = np.linspace(-3, 3, 601)
    num = (F(Dm + h, w, tau, 50.0) - F(Dm - h, w, tau, 50.0)) / (2 * h)
    ana = (w / tau) * (1 - 1 / (1 + np.exp(-Dm / tau)))
    deriv_err = float(np.max(np.abs(num - ana)))
    deriv_mono = float(np.max(np.diff(num)))
    g = np.random.default_rng(_seed(rng))
    X = g.normal(size=(40, 8, 3)) * 3
    sh = MVRShaper(relevance=StateRelevance(hidden=16, min_updates=0, max_epochs=3, rng=_seed(rng)), rng=_seed(rng))
    sh.add_clips(X, np.tanh(X[..., 0].mean(1)))
    sh.retrain()
    out = sh.shaping(g.normal(size=(5000, 3)) * 5)
    crit = [Criterion("max F(D) (must be <= 0)", float(f.max()), 0.0, "<="),
            Criterion("min over the grid of F(D_{i+1}) - F(D_i) (monotone)", mono, 0.0, ">="),
            Criterion("max |F| / (w_s e^{-D/tau}) - 1 for 0 < D <= 50 (fade bound)", fade, 1e-9, "<="),
            Criterion("max |numeric dF/dD - (w_s/tau)(1 - sigma)|", deriv_err, 1e-4, "<="),
            Criterion("max increase of dF/dD along D (decreasing derivative)", deriv_mono, 1e-6, "<="),
            Criterion("min F over the grid (clip at -5)", float(f.min()), -5.0, ">="),
            Criterion("max shaper output on 5000 random states", float(out.max()), 0.0, "<="),
            Criterion("min shaper output", float(out.min()), -5.0, ">=")]
    table = [{"D": d, "F(D)": float(F(np.array([d]), w, tau, 5.0)[0]), "w_s e^{-D/tau}": w * math.exp(-d / tau)}
             for d in (-60.0, -1.0, -0.1, 0.0, 0.1, 0.5, 1.0)]
    return CheckResult(criteria=crit, table=table,
                       details="w_s = tau = 0.1 (the code's). The bounds are exact identities of log sigmoid, so the "
                               "thresholds are floating-point tolerances (the derivative by central differences, "
                               "h = 1e-5, error O(h^2 w/tau^3) ~ 1e-8). Catches: a sign flip (log sigmoid(-D/tau): "
                               "decreasing), a sigmoid instead of its log (positive), a missing clip (min -600 on the "
                               "grid), a linear w_s D/tau term (no fade).")


# ---------------------------------------------------------------------------------------------- C3-2
def _synthetic_clips(g, n, L, d, q):
    mu = g.normal(size=(n, 1, d))
    X = mu + 0.5 * g.normal(size=(n, L, d))
    return X, q(X).mean(1)


def _fit_kendall(X, S, E, tr, te, qbar, seed, sharpness=100.0, profile=None, **kw):
    from iclr26sci.rl.mvr import StateRelevance

    params = dict(hidden=64, batch_size=64, updates_per_epoch=20, min_updates=0,
                  max_epochs=profile.pick(20, 60) if profile else 20, states_per_clip=8, rng=seed,
                  sharpness=sharpness)
    params.update(kw)
    rel = StateRelevance(**params).fit(X[tr], S[tr], None if E is None else E[tr])
    pred = rel.clip_relevance(X[te])
    return float(stats.kendalltau(pred, qbar[te]).statistic), pred


@check(method="mvr", paper=PAPER, budget=6,
       guarantee="C3-2: trained on clip pairs with the Bradley-Terry loss on sharpened labels sigmoid(100 dS), the "
                 "state-relevance network ranks held-out clips like their true relevance (Kendall tau >= 0.8), "
                 "and only the ordering of the scores matters: the same holds when S is rescaled x0.1 or x10 or "
                 "replaced by another strictly increasing transform")
def c3_2_bradley_terry_consistency(profile, rng, _variant=None):
    g = np.random.default_rng(_seed(rng))
    d, L = 4, 16
    n_tr, n_te = profile.pick(150, 400), profile.pick(60, 200)
    W1 = g.normal(size=(d, 16)) / math.sqrt(d)
    w2 = g.normal(size=16) / 4

    def q(X):
        return np.tanh(X @ W1) @ w2

    X, qbar = _synthetic_clips(g, n_tr + n_te, L, d, q)
    z = (qbar - qbar.mean()) / qbar.std()
    base = 0.3 * np.tanh(z) + 0.003 * g.normal(size=len(z))  # cosine-like scores with VLM noise
    tr, te = np.arange(n_tr), np.arange(n_tr, n_tr + n_te)
    ceiling = float(stats.kendalltau(base[te], qbar[te]).statistic)
    variants = {"S (0.3 tanh z + noise)": base, "S x 0.1": 0.1 * base, "S x 10 (labels saturate)": 10 * base,
                "exp(3 S) / 10 (monotone)": np.exp(3 * base) / 10}
    crit, table, preds = [], [], {}
    for name, S in variants.items():
        if _variant == "flipped_labels":
            S = -S
        tau_k, pred = _fit_kendall(X, S, None, tr, te, qbar, _seed(rng), profile=profile)
        preds[name] = pred
        crit.append(Criterion(f"Kendall tau(F_psi, true relevance), {name}", tau_k, 0.8, ">="))
        table.append({"scores": name, "Kendall tau (held out)": tau_k, "label spread sd(100 dS)":
                      float(np.std(100 * (S[:200, None] - S[None, :200])))})
    table.append({"scores": "ceiling: Kendall tau(S, true relevance)", "Kendall tau (held out)": ceiling})
    return CheckResult(criteria=crit, table=table,
                       details=f"{n_tr} training / {n_te} held-out synthetic clips of L={L} states in R^{d}; true "
                               "relevance q = a fixed random tanh MLP; S = 0.3 tanh(standardised mean q) + N(0, "
                               "0.003^2). Relevance net 64 wide, 8 random states per clip per update. 0.8 is the "
                               "spec's bound; the ceiling row is the best any ranking of S can do. Catches: flipped "
                               "labels (sigmoid(100 (S2 - S1)): tau near -0.9), a network that regresses S or "
                               "ignores the pairs.")


# ---------------------------------------------------------------------------------------------- C3-3
def _oscillator_clips(env, osc, behaviours, seed):
    data = {}
    for k, (kind, a) in enumerate(behaviours):
        pol = osc.oscillate_policy(a) if kind == "oscillate" else osc.hold_policy(a)
        data[(kind, a)] = env.rollout_clips(pol, 200, seed=seed + k)
    return data


def _static_descriptor(frames):
    """The image arm's encoder: the video descriptor's family made motion-blind, at equal capacity (6 features).

    Per frame, from the pixels that differ from the frame's own median (the background): the intensity-weighted
    centroid (x, y), its spreads (x, y), the uprightness (vertical over horizontal spread) and the foreground
    mass; averaged over the frames, so the order of the frames (the motion) cannot change it.
    """
    g = np.asarray(frames, dtype=np.float64).mean(-1)
    F, H, W = g.shape
    w = np.abs(g - np.median(g.reshape(F, -1), axis=1)[:, None, None]) + 1e-6
    tot = w.sum((1, 2))
    ys, xs = np.arange(H) / H, np.arange(W) / W
    cx = (w.sum(1) * xs).sum(1) / tot
    cy = (w.sum(2) * ys).sum(1) / tot
    sx = np.sqrt(np.maximum((w.sum(1) * xs ** 2).sum(1) / tot - cx ** 2, 0))
    sy = np.sqrt(np.maximum((w.sum(2) * ys ** 2).sum(1) / tot - cy ** 2, 0))
    return np.array([cx.mean(), cy.mean(), sx.mean(), sy.mean(), float(np.mean(sy / (sx + 1e-6))),
                     tot.mean() / (H * W * 255.0)])


@check(method="mvr", paper=PAPER, budget=4,
       guarantee="C3-3: video beats image on a dynamic motion. On a rendered oscillator whose target is "
                 "'oscillate with amplitude A', MVR shaping learned from a clip-level (temporal) scorer prefers "
                 "the oscillation at amplitude A, while the same pipeline fed an image-level (per-frame) scorer "
                 "prefers pausing at the prototypical pose x = A")
def c3_3_video_beats_image(profile, rng, _variant=None):
    from iclr26sci.rl.mvr import (DemoPrototypeScorer, MotionDescriptorScorer, MVRShaper, OscillatorEnv,
                                  StateRelevance, make_multiview_env, oscillation_amplitude)

    A = 0.5
    osc = OscillatorEnv()
    env = make_multiview_env(osc, cameras=["side", "top"], clip_len=8, every=10, size=(16, 16))
    amps = (0.0, 0.15, 0.3, 0.5, 0.7, 0.9)
    behaviours = [("oscillate", a) for a in amps] + [("hold", p) for p in (-0.5, -0.25, 0.25, 0.5)]
    base = _seed(rng)
    data = _oscillator_clips(env, osc, behaviours, base)
    ref_osc = env.rollout_clips(osc.oscillate_policy(A), 400, seed=base + 99)[-4:]
    ref_pose = env.rollout_clips(osc.hold_policy(A), 400, seed=base + 98)[-4:]
    scorers = {"video (clip-level temporal descriptor)": MotionDescriptorScorer.from_reference(env, ref_osc),
               "image (per-frame cosine to the pose x = A)": MotionDescriptorScorer.from_reference(
                   env, ref_pose, descriptor=_static_descriptor)}
    if _variant == "random_pixel_image":  # the old, unfair image arm: a random-feature pixel encoder
        scorers["image (per-frame cosine to the pose x = A)"] = DemoPrototypeScorer.from_reference(
            env, ref_pose, temporal=False, size=16, n_features=256, seed=_seed(rng) % 1000)
    if _variant == "image_for_both":
        scorers["video (clip-level temporal descriptor)"] = scorers["image (per-frame cosine to the pose x = A)"]
    allc = [c for v in data.values() for c in v]
    X = np.stack([c.states for c in allc])
    picks, table, shaped_all = {}, [], []
    for name, sc in scorers.items():
        S, E = sc.score_many([c.frames for c in allc])
        sh = MVRShaper(relevance=StateRelevance(hidden=64, batch_size=64, updates_per_epoch=20, min_updates=0,
                                                max_epochs=profile.pick(12, 40), states_per_clip=16,
                                                rng=_seed(rng)), rng=_seed(rng))
        sh.add_clips(X, S.mean(1), E)
        sh.retrain()
        shaped, i = {}, 0
        for key, clips in data.items():
            st = np.concatenate([c.states for c in clips])
            shaped[key] = (float(np.mean(sh.shaping(st))), oscillation_amplitude(st[:, 0]),
                           float(S[i: i + len(clips)].mean()))
            i += len(clips)
        best = max(shaped, key=lambda k: shaped[k][0])
        picks[name] = (best, shaped[best][1])
        shaped_all.append(shaped)
        for key, (F, amp, s) in shaped.items():
            table.append({"scorer": name.split(" ")[0], "behaviour": f"{key[0]} {key[1]}", "mean score S": s,
                          "mean shaping F": F, "amplitude": amp, "preferred": key == best})
    (vb, va), (ib, ia) = picks.values()
    Fv, Fi = [{k: v[0] for k, v in sh_.items()} for sh_ in shaped_all]
    best_osc_v = max(Fv[("oscillate", a)] for a in amps if a >= 0.3)
    best_hold_v = max(Fv[k] for k in Fv if k[0] == "hold")
    crit = [Criterion("amplitude(video-preferred) - amplitude(image-preferred)", va - ia, A / 2, ">="),
            Criterion("video: best oscillation's mean F - best pause's mean F", best_osc_v - best_hold_v, 0.0, ">"),
            Criterion("image: mean F of the pause at x = A - of the oscillation at A",
                      Fi[("hold", 0.5)] - Fi[("oscillate", A)], 0.0, ">")]
    table.append({"scorer": "reported", "behaviour": "|video-preferred amplitude - A| (not a criterion)",
                  "amplitude": abs(va - A)})
    return CheckResult(criteria=crit, table=table,
                       details=f"Oscillator period 4 s, dt 0.05; clips of 8 frames every 10 steps (one period) from "
                               f"two cameras at 16 x 16 px; behaviours: the scripted oscillations at amplitudes "
                               f"{amps} and pauses at four poses, 200 steps each. Each scorer's clips train one "
                               "StateRelevance; the preferred behaviour maximises the mean MVR shaping over its "
                               "states (the quick profile's reduced budget in place of SAC training). Criteria (the "
                               "paper's claim in two halves): the video pick's amplitude exceeds the image pick's by "
                               "at least A/2; the video-shaped reward prefers some oscillation (a >= 0.3) to every "
                               "pause; the image-shaped reward prefers the pause at x = A to the oscillation at A. "
                               "The distance of the video pick from A is reported, not a criterion: the learned "
                               "state relevance extrapolates in energy and picked a = 0.7 at seed 0. Catches: an image-level scorer in place of the video one "
                               "(variant 'image_for_both': both pick the pause), a relevance that ignores the scores.")


# ---------------------------------------------------------------------------------------------- C3-4
@check(method="mvr", paper=PAPER, budget=5,
       guarantee="C3-4: multi-view beats single view under occlusion. When each camera sees only some state "
                 "coordinates and the single view hides the key limb, the view-averaged score correlates "
                 "better with the true relevance than the single view's, and so does the relevance learned "
                 "from it (held-out Kendall tau), by more than twice the bootstrap standard error")
def c3_4_multiview_beats_single(profile, rng, _variant=None):
    from iclr26sci.rl.mvr import view_averaged_score

    g = np.random.default_rng(_seed(rng))
    d, L = 6, 16
    n_tr, n_te = profile.pick(150, 400), profile.pick(100, 300)
    beta = np.array([1.5, 0.5, 0.5, 0.5, 0.5, 0.5])  # coordinate 0: the key limb
    views = [[1, 2, 3], [0, 1, 4], [0, 2, 5], [0, 3, 4, 5]]  # view 0 (the single view) hides the key limb
    X, qbar = _synthetic_clips(g, n_tr + n_te, L, d, lambda X: X @ beta)
    P = g.normal(size=(d, 64))
    per_view, embs = [], []
    for M in views:
        part = X[..., M].mean(1) @ beta[M]
        per_view.append(0.3 * np.tanh(part / np.sqrt((beta[M] ** 2).sum())) + 0.003 * g.normal(size=len(part)))
        e = np.maximum(X[..., M].mean(1) @ P[M], 0)
        embs.append(e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12))
    per_view = np.stack(per_view, 1)
    E = np.stack(embs, 1)
    S_multi = view_averaged_score(per_view) if _variant != "first_view_only" else per_view[:, 0]
    S_single = per_view[:, 0]
    tr, te = np.arange(n_tr), np.arange(n_tr, n_tr + n_te)
    r_multi = float(np.corrcoef(S_multi, qbar)[0, 1])
    r_single = float(np.corrcoef(S_single, qbar)[0, 1])
    tau_m, pm = _fit_kendall(X, S_multi, E, tr, te, qbar, _seed(rng), profile=profile)
    tau_s, ps = _fit_kendall(X, S_single, E[:, :1], tr, te, qbar, _seed(rng), profile=profile)
    B = 400
    bc, bt = np.empty(B), np.empty(B)
    for b in range(B):
        i = g.integers(0, len(qbar), len(qbar))
        bc[b] = np.corrcoef(S_multi[i], qbar[i])[0, 1] - np.corrcoef(S_single[i], qbar[i])[0, 1]
        j = g.integers(0, n_te, n_te)
        bt[b] = stats.kendalltau(pm[j], qbar[te][j]).statistic - stats.kendalltau(ps[j], qbar[te][j]).statistic
    se_c, se_t = float(bc.std()), float(bt.std())
    crit = [Criterion("corr(S_multi, q) - corr(S_single, q)", r_multi - r_single, 2 * se_c, ">"),
            Criterion("Kendall tau(F_psi multi) - Kendall tau(F_psi single), held out", tau_m - tau_s, 2 * se_t, ">")]
    table = [{"score": "multi-view average (4 views)", "corr with true relevance": r_multi, "learned Kendall tau": tau_m},
             {"score": "single view (key limb hidden)", "corr with true relevance": r_single,
              "learned Kendall tau": tau_s},
             {"score": "bootstrap SE of the differences", "corr with true relevance": se_c, "learned Kendall tau": se_t}]
    return CheckResult(criteria=crit, table=table,
                       details=f"{n_tr}/{n_te} synthetic clips, L={L} states in R^{d}; true relevance q = beta.s with "
                               "beta = (1.5, 0.5, ..., 0.5); view v scores 0.3 tanh of the standardised visible part "
                               "of q plus N(0, 0.003^2) noise and embeds its visible coordinates (random ReLU "
                               "features, for the alignment loss); views see {1,2,3}, {0,1,4}, {0,2,5}, {0,3,4,5}; the "
                               "single view is the first. Threshold: 2 bootstrap SEs (400 resamples) of each "
                               "difference. Catches: averaging dropped (variant 'first_view_only': difference 0).")


# ---------------------------------------------------------------------------------------------- C3-5
def _grid_case(f, f_ref, terminals, reward, gamma, kind, w=0.1, tau=0.1, _variant=None):
    from iclr26sci.rl.mvr import gridworld_optimal_policy, mvr_potential, mvr_shaping, pbrs_shaping

    N = len(f)
    term = np.zeros(N)
    term[list(terminals)] = 1.0
    if kind == "mvr":
        F = np.repeat(mvr_shaping(f - f_ref, w, tau)[:, None], N, 1)  # state-only: F(s_t), as the code
    else:
        phi = mvr_potential(f, f_ref, w, tau)
        P, Pn = np.repeat(phi[:, None], N, 1), np.repeat(phi[None, :], N, 0)
        D = np.repeat(term[None, :], N, 0)
        if _variant == "no_terminal_zero":
            D = np.zeros_like(D)
        g_used = 1.0 if _variant == "no_gamma" else gamma
        F = pbrs_shaping(P, Pn, g_used, D)
    best0, _ = gridworld_optimal_policy(reward, gamma, 5, terminals)
    best1, _ = gridworld_optimal_policy(reward, gamma, 5, terminals, shaping=F)
    live = np.ones(N, bool)
    live[list(terminals)] = False
    subopt = int(np.sum(live & np.any(best1 & ~best0, axis=1)))
    differ = int(np.sum(live & np.any(best1 != best0, axis=1)))
    return subopt, differ


@check(method="mvr", paper=PAPER, budget=2,
       guarantee="C3-5: policy invariance. In a 5x5 gridworld (gamma 0.99, goal +1, pit -1), the PBRS option "
                 "F = gamma Phi(s') - Phi(s) leaves the optimal greedy action sets exactly unchanged for every "
                 "relevance function; the code-faithful additive term changes the optimal policy when the "
                 "relevance is misleading (high off the goal path, below the reference on it) and does not once "
                 "all states exceed the reference (F ~ 0)")
def c3_5_policy_invariance(profile, rng, _variant=None):
    g = np.random.default_rng(_seed(rng))
    gamma, goal, pit = 0.99, 24, 12
    reward = np.zeros(25)
    reward[goal], reward[pit] = 1.0, -1.0
    terms = (goal, pit)
    # misleading relevance: high on the outer ring (a detour), far below the reference elsewhere
    ring = np.array([i for i in range(25) if i // 5 in (0, 4) or i % 5 in (0, 4)])
    f_mis = np.full(25, -1.0)
    f_mis[ring] = 1.0
    f_mis[[3, 4, 9, 14, 19]] = -1.0  # the short way round the ring stays unattractive
    n_rand = profile.pick(40, 400)
    rows = []
    pbrs_sub = pbrs_diff = 0
    mvr_changed = 0
    for k in range(n_rand + 1):
        f = f_mis if k == 0 else g.normal(0, 1, 25)
        s_p, d_p = _grid_case(f, 0.0, terms, reward, gamma, "pbrs", _variant=_variant)
        s_m, d_m = _grid_case(f, 0.0, terms, reward, gamma, "mvr")
        pbrs_sub += s_p
        pbrs_diff += d_p
        mvr_changed += s_m > 0
        if k == 0:
            rows.append({"relevance": "misleading (ring high, path low)", "PBRS states changed": d_p,
                         "MVR states with a suboptimal action": s_m})
    mis_sub, _ = _grid_case(f_mis, 0.0, terms, reward, gamma, "mvr")
    above = g.normal(0, 1, 25)
    above = above - above.min() + 1.0  # every state at least 1 above the reference: |F| <= w e^{-10}
    abv_sub, _ = _grid_case(above, 0.0, terms, reward, gamma, "mvr")
    rows.append({"relevance": f"{n_rand} random N(0,1) fields", "PBRS states changed": pbrs_diff,
                 "MVR states with a suboptimal action": f"changed in {mvr_changed}/{n_rand + 1} fields"})
    rows.append({"relevance": "all states >= reference + 1", "PBRS states changed": "-",
                 "MVR states with a suboptimal action": abv_sub})
    crit = [Criterion("PBRS: states whose optimal action set changed (all fields)", pbrs_diff, 0, "<="),
            Criterion("MVR additive, misleading relevance: states with a suboptimal optimal action", mis_sub, 1, ">="),
            Criterion("MVR additive, all states above the reference: states changed", abv_sub, 0, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details="Value iteration to 1e-9; an action is optimal within 1e-7 of the best Q. PBRS "
                               "invariance is exact (Q'(s,a) = Q(s,a) - Phi(s)), so its threshold is 0 changed "
                               "states; the additive term is the code's F(s_t) = clip(0.1 log sigmoid((f(s_t) - "
                               "f_ref)/0.1), +-5) with f_ref = 0. Being non-positive it works like a step cost that "
                               "varies with the state: the agent detours along high-relevance cells or ends the "
                               "episode in the pit to stop paying it. Catches: PBRS without Phi(terminal) = 0 "
                               "('no_terminal_zero') or without gamma ('no_gamma').")


# ---------------------------------------------------------------------------------------------- C3-6
def _osc_states(osc, policy, n, seed, noise, g):
    """States s_t of ``n`` steps of ``policy`` plus N(0, noise^2) action noise (no rendering), and the task rewards."""
    obs, _ = osc.reset(seed=seed)
    S, R = np.empty((n, 2)), np.empty(n)
    for t in range(n):
        S[t] = obs
        a = np.clip(policy(obs) + noise * g.normal(size=1), -1, 1).astype(np.float32)
        obs, R[t], _, trunc, _ = osc.step(a)
        if trunc:
            obs, _ = osc.reset(seed=seed + t + 1)
    return S, R


_C3_6_VARIANTS = {
    # the library's term, for reference: w log sigmoid(D / tau), clipped
    "linear": lambda orig: lambda d, w=0.1, tau=0.1, clip=5.0: np.clip(w * np.asarray(d) / tau, -clip, clip),
    "flipped": lambda orig: lambda d, w=0.1, tau=0.1, clip=5.0: orig(-np.asarray(d), w, tau, clip),
    # no non-positivity: shifted so that F = 0 at the reference and F > 0 above it
    "centred": lambda orig: lambda d, w=0.1, tau=0.1, clip=5.0: np.clip(orig(d, w, tau, clip) + w * math.log(2.0),
                                                                         -clip, clip),
}


@check(method="mvr", paper=PAPER, budget=6,
       guarantee="C3-6: the shaping fades once the motion is achieved and never dominates. Running the MVR "
                 "pipeline (collect clips, score, retrain, refresh the reference to the best-scored clips, "
                 "relabel) while the behaviour improves towards the target and then holds it: (a) past the bar: "
                 "with the reference of mid-training, the mean |F| on a behaviour that has reached the target "
                 "is below half its value on a behaviour at the reference's own level (F fades as the relevance "
                 "rises above the reference); (b) towards the bar: with the final reference, the mean |F| on "
                 "the target behaviour is below half its value on the initial (still) behaviour; (c) the "
                 "spec's ratio mean|F| / mean|r| over the last 20% of training is below half its value at the "
                 "first relabel")
def c3_6_shaping_fades(profile, rng, _variant=None):
    from iclr26sci.rl.mvr import (MotionDescriptorScorer, MVRShaper, OscillatorEnv, StateRelevance,
                                  make_multiview_env)

    A, noise = 0.5, 0.3
    osc = OscillatorEnv(target_amplitude=A, amplitude_width=0.25)
    env = make_multiview_env(osc, cameras=["side", "top"], clip_len=8, every=10, size=(16, 16))
    sc = MotionDescriptorScorer.from_reference(env, env.rollout_clips(osc.oscillate_policy(A), 400, seed=99)[-4:])
    K = profile.pick(10, 20)
    k_mid = int(round(0.3 * K))  # retrain after the phase at amplitude 0.6 A: the reference of mid-training
    g = np.random.default_rng(_seed(rng))
    sh = MVRShaper(relevance=StateRelevance(hidden=64, batch_size=64, updates_per_epoch=20, min_updates=0,
                                            max_epochs=profile.pick(6, 20), states_per_clip=16, rng=_seed(rng)),
                   rng=_seed(rng), faithful_quirks=_variant == "quirks")
    path = [A * q for q in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)]  # held-out behaviours along the improvement path
    n_held = profile.pick(400, 1000)
    held = {a: _osc_states(osc, osc.oscillate_policy(a), n_held, _seed(rng), noise, g)[0] for a in path}
    import iclr26sci.rl._mvr_core as core

    orig = core.mvr_shaping
    if _variant in _C3_6_VARIANTS:
        core.mvr_shaping = _C3_6_VARIANTS[_variant](orig)
    rows, path_F = [], {}

    def along_path(label, a_ref):
        out = {a: float(np.mean(np.abs(sh.shaping(held[a])))) for a in path}
        ref = float(sh.reference_values.mean())
        for a in path:
            rows.append({"phase": label, "behaviour amplitude": a, "reference level": a_ref, "mean |F|": out[a],
                         "mean gap f(s) - mean f(R)": float(sh.relevance.predict(held[a]).mean()) - ref})
        return out

    try:
        for k in range(K):
            a_k = A * min(1.0, k / (0.5 * K))  # improves over the first half, then saturates
            base = osc.oscillate_policy(a_k)

            def pol(o, base=base):
                return np.clip(base(o) + noise * g.normal(size=1), -1, 1).astype(np.float32)

            clips = env.rollout_clips(pol, 400, seed=_seed(rng))
            states = np.concatenate([c.states for c in clips])
            r = np.concatenate([c.rewards for c in clips])
            if sh.trained_:
                F = sh.shaping(states)
                rows.append({"phase": k, "target amplitude": a_k, "mean |F|": float(np.mean(np.abs(F))),
                             "mean |r|": float(np.mean(np.abs(r))),
                             "ratio": float(np.mean(np.abs(F)) / max(np.mean(np.abs(r)), 1e-12))})
            S, E = sc.score_many([c.frames for c in clips])
            sh.add_clips(np.stack([c.states for c in clips]), S.mean(1), E)
            sh.retrain()
            if k == k_mid:
                path_F["mid"] = (a_k, along_path(f"held out, reference after phase {k}", a_k))
        path_F["final"] = (A, along_path(f"held out, reference after phase {K - 1}", A))
    finally:
        core.mvr_shaping = orig
    ratios = np.array([row["ratio"] for row in rows if "ratio" in row])
    n_last = max(1, int(round(0.2 * K)))
    first, last = float(ratios[0]), float(ratios[-n_last:].mean())
    a_mid, Fm = path_F["mid"]
    _, Ff = path_F["final"]
    crit = [Criterion(f"(a) reference at {a_mid:.2f}: mean|F| at the target {A} / at the reference level",
                      Fm[A] / max(Fm[a_mid], 1e-12), 0.5, "<"),
            Criterion("(b) final reference: mean|F| at the target / at the still behaviour (amplitude 0)",
                      Ff[A] / max(Ff[0.0], 1e-12), 0.5, "<"),
            Criterion("(c) last-20% ratio / first-relabel ratio of mean|F| / mean|r|", last / first, 0.5, "<")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"Oscillator with the amplitude-tracking task reward exp(-(a(s) - A)^2 / (2 0.25^2)), "
                               f"A = {A}; {K} phases of 400 steps whose scripted policy (plus N(0, {noise}^2) action "
                               "noise) raises its amplitude to A over the first half, then holds it; after each "
                               "phase its clips are scored (two-view temporal descriptor), the relevance is "
                               "retrained (warm start), the reference refreshed (top 10 clips by score) and the F "
                               "of the next phase's states recorded. (a) and (b) evaluate the shaper of the "
                               f"retrain after phase {k_mid} (amplitude 0.6 A; its reference is that level) and of "
                               f"the last retrain on held-out runs ({n_held} steps each) at amplitudes {path}. The "
                               "factor 0.5 is the spec's. Why it holds: |F| = w_s softplus(-D/tau) is w_s log 2 at "
                               "the reference (D = 0), below half of that once D > 0.77 tau, and w_s |D| / tau far "
                               "below it. Catches (tests/rl/test_mvr_validation.py): a linear term w_s D / tau "
                               "(no fade above the reference: fails a), the gap flipped (fails a and b), and the "
                               "term without its non-positivity, w_s (log sigmoid(D/tau) + log 2), zero at the "
                               "reference and positive above it (fails a). (c) alone passes all three: the "
                               "reference tracks the agent's best clips, so the agent's own states sit near D = 0 "
                               "and the ratio falls mostly because the task reward grows. The quick profile "
                               "scripts the policy in place of a TQC run (a real run is benchmarks/bench_mvr.py).")


# ------------------------------------------------------------------------------------------ claims tier
# The headline claim (abstract): MVR's video-relevance shaping improves RL on a dynamic-motion task, where
# per-frame (image) similarity is biased towards a static pose. Miniature: a policy-gradient learner on the
# rendered oscillator with a *sparse* task reward (in the band of target amplitudes), the MVR pipeline
# (multi-view clips -> scorer -> Bradley-Terry relevance -> reference set -> F(s)) shaping its reward.

#: target amplitude and half-width of the success band (the task reward is 1 per step inside it)
RL_A, RL_BAND = 1.5, 0.2
#: smallest effect of interest on the success scale (fraction of steps in the band): 0.1 = 20 of 200 steps
RL_MIN_EFFECT = 0.1
RL_ARMS = ("task only", "image (MVR pipeline, per-frame scorer)", "MVR (video, 2 views)", "oracle relevance")


def _rl_osc():
    from iclr26sci.rl.mvr import OscillatorEnv

    return OscillatorEnv(x_range=2.0)


def _rl_features(X, osc):
    """Policy features of states (..., 2): x, v, 1 and the Van der Pol term v (a/A)^2 (all O(1) near the target)."""
    x, v = X[..., 0] / RL_A, X[..., 1] / (RL_A * osc.omega)
    a2 = x * x + v * v
    return np.stack([x, v, np.ones_like(x), v * a2], -1)


def _rl_rollout(osc, theta, sigma, n, T, g):
    """n episodes of the Gaussian linear policy u = clip(theta . phi(s) + sigma eps, -1, 1), vectorised.

    The dynamics are OscillatorEnv.step's (semi-implicit Euler, same constants and clipping), batched; states
    start at OscillatorEnv.reset's N(0, 0.02^2). Returns states (n, T, 2) *before* each step, the sampled
    pre-clip actions (n, T), the features (n, T, 4) and the task rewards (n, T) (success band indicator minus
    the control cost).
    """
    s = g.normal(0.0, 0.02, size=(n, 2))
    S, U, PHI, R = np.empty((n, T, 2)), np.empty((n, T)), np.empty((n, T, 4)), np.empty((n, T))
    for t in range(T):
        phi = _rl_features(s, osc)
        u_raw = phi @ theta + sigma * g.normal(size=n)
        u = np.clip(u_raw, -1.0, 1.0)
        S[:, t], U[:, t], PHI[:, t] = s, u_raw, phi
        x, v = s[:, 0], s[:, 1]
        v = v + osc.dt * (-osc.omega ** 2 * x - osc.damping * v + osc.gain * u)
        x = np.clip(x + osc.dt * v, -10, 10)
        v = np.clip(v, -10, 10)
        s = np.stack([x, v], 1)
        amp = np.sqrt(x * x + v * v / osc.omega ** 2)
        R[:, t] = (np.abs(amp - RL_A) <= RL_BAND).astype(float) - osc.control_cost * u * u
    return S, U, PHI, R


def _rl_clips(osc, S_ep, clip_len=8, every=10, stride=40, size=16):
    """Two-view clips (side, top) of recorded episodes: frames every ``every`` steps, windows of clip_len frames."""
    states, frames = [], []
    L = clip_len * every
    for ep in S_ep:
        for t0 in range(0, ep.shape[0] - L + 1, stride):
            st = ep[t0: t0 + L]
            fr = np.empty((2, clip_len, size, size, 3), np.uint8)
            for k in range(clip_len):
                osc.state = st[k * every].astype(float)
                for vi, cam in enumerate(("side", "top")):
                    fr[vi, k] = osc.render_view(cam, size, size)
            states.append(st)
            frames.append(fr)
    osc.state = None
    return np.stack(states), frames


def _rl_scorers(osc, arm, seed):
    """The frozen scorer of an arm, both against the same demonstration (the target oscillation at amplitude A,
    rendered by the library's env wrapper): video = the temporal motion descriptor; image = the same descriptor
    family made motion-blind at equal capacity (``_static_descriptor``: per-frame features averaged over frames)."""
    from iclr26sci.rl.mvr import MotionDescriptorScorer, make_multiview_env

    env = make_multiview_env(osc, cameras=["side", "top"], clip_len=8, every=10, size=(16, 16))
    ref = env.rollout_clips(osc.oscillate_policy(RL_A), 400, seed=seed)[-4:]
    if arm == "video":
        return MotionDescriptorScorer.from_reference(env, ref)
    return MotionDescriptorScorer.from_reference(env, ref, descriptor=_static_descriptor)


def _rl_run(arm, seed, iters=40, n_ep=32, T=200, sigma=1.0, lr=0.05, retrain_every=5, record=2, variant=None):
    """One learning run of one arm; returns the per-iteration success (mean fraction of steps in the band).

    Learner: REINFORCE with per-step baseline (the batch mean of the return-to-go at each t, gamma 0.99),
    normalised advantages, Adam (lr ``lr``) on the 4 policy weights and the log exploration scale (initial
    ``sigma``, kept in [0.05, 2]). ``arm``: "task", "video", "image" or "oracle"; ``variant``: "shuffled" (the
    clip scores permuted before they reach the shaper) or "image_for_video" (the image scorer in any scored arm). Shaped arms: every iteration ``record`` episodes are
    rendered into clips, scored and added to an MVRShaper; every ``retrain_every`` iterations the relevance
    is retrained (warm start) and the reference refreshed; the learner's reward is r + F(s_t) with the
    current shaper (on-policy, so every batch is 'relabelled' by construction).
    """
    from iclr26sci.rl.mvr import MVRShaper, StateRelevance

    g = np.random.default_rng([seed, 0])    # the learner's stream: common to every arm of a run (paired arms)
    gs = np.random.default_rng([seed, 1])   # the shaper's and scorer's stream
    osc = _rl_osc()
    theta = np.zeros(4)
    log_sig = math.log(sigma)
    m, v2 = np.zeros(5), np.zeros(5)
    shaper, scorer = None, None
    if arm != "task":
        shaper = MVRShaper(relevance=StateRelevance(hidden=32, batch_size=64, updates_per_epoch=10, min_updates=0,
                                                    max_epochs=6, states_per_clip=16, rng=int(gs.integers(2**31))),
                           rng=int(gs.integers(2**31)))
        if arm in ("video", "image"):
            scorer = _rl_scorers(osc, "image" if variant == "image_for_video" else arm, int(gs.integers(2**31)))
    disc = 0.99 ** np.arange(T)
    curve = []
    for it in range(iters):
        sigma = math.exp(log_sig)
        S, U, PHI, R = _rl_rollout(osc, theta, sigma, n_ep, T, g)
        curve.append(float(np.mean(R > 0.5)))
        Rs = R
        if shaper is not None:
            Xc, frames = _rl_clips(osc, S[:record])
            if scorer is None:   # oracle: the clip's true closeness to the target amplitude
                amp = np.sqrt(Xc[..., 0] ** 2 + Xc[..., 1] ** 2 / osc.omega ** 2).mean(1)
                sc, E = -np.abs(amp - RL_A), None
            else:
                Sv, E = scorer.score_many(frames)
                sc = Sv.mean(1)
            if variant == "shuffled":
                sc = gs.permutation(sc)
            shaper.add_clips(Xc, sc, E)
            if (it + 1) % retrain_every == 0:
                shaper.retrain()
            if shaper.trained_:
                Rs = R + shaper.shaping(S.reshape(-1, 2)).reshape(R.shape)
        G = np.cumsum((Rs * disc)[:, ::-1], 1)[:, ::-1] / disc
        A = G - G.mean(0, keepdims=True)
        A = A / (A.std() + 1e-8)
        z = (U - PHI @ theta) / sigma
        grad = np.append(np.einsum("nt,ntk->k", A * z / sigma, PHI), np.sum(A * (z * z - 1.0))) / (n_ep * T)
        m = 0.9 * m + 0.1 * grad
        v2 = 0.999 * v2 + 0.001 * grad ** 2
        step = lr * (m / (1 - 0.9 ** (it + 1))) / (np.sqrt(v2 / (1 - 0.999 ** (it + 1))) + 1e-8)
        theta = theta + step[:4]
        log_sig = float(np.clip(log_sig + step[4], math.log(0.05), math.log(2.0)))
    return np.asarray(curve), theta


def _claim_mvr_rl(profile, rng, variant=None, seeds=None, diagnostics=True):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from validation.claims import ClaimResult, paired_effect

    # full: 64 runs. With 16 the verdict moved with the master seed (effect 0.012, 0.087, 0.121, 0.104 at seeds
    # 0-3, SE 0.029-0.036, 2026-12-06): the 60-iteration effect (about 0.08) is below the 0.1 min effect, so a
    # 16-run test calls it reproduced or a powered null by chance; 64 runs give SE about 0.015.
    n = seeds or profile.pick(10, 64)
    iters = profile.pick(40, 60)
    base = _seed(rng)
    vv = "image_for_video" if variant == "image_for_video" else None
    arms = {"task only": ("task", None), "image (motion-blind scorer)": ("image", None),
            "MVR (video scorer)": ("video", vv if vv else ("shuffled" if variant == "shuffled" else None)),
            "oracle relevance (control)": ("oracle", None)}
    if diagnostics:
        arms["MVR, shuffled scores (ablation)"] = ("video", "shuffled")
    curves = {lab: [] for lab in arms}
    for r in range(n):
        for lab, (arm, var) in arms.items():
            curves[lab].append(_rl_run(arm, base + 7919 * r, iters=iters, variant=var)[0])
    curves = {k: np.asarray(v) for k, v in curves.items()}
    last = max(1, iters // 8)
    fin = {k: v[:, -last:].mean(1) for k, v in curves.items()}
    best_base = np.maximum(fin["task only"], fin["image (motion-blind scorer)"])
    eff = paired_effect(fin["MVR (video scorer)"], best_base, min_effect=RL_MIN_EFFECT,
                        what="success(MVR) - max(success(task only), success(image)), fraction of steps in the "
                             f"target band over the last {last} iterations, paired over {n} learning runs")
    ctrl = paired_effect(fin["oracle relevance (control)"], fin["task only"], min_effect=RL_MIN_EFFECT,
                         what="success(oracle relevance through the MVR pipeline) - success(task only), paired")
    rows = [{"arm": k, "final success (mean)": float(v.mean()), "SE": float(v.std(ddof=1) / math.sqrt(n)),
             "runs": n} for k, v in fin.items()]
    pairs = [("MVR (video scorer)", "task only"), ("MVR (video scorer)", "image (motion-blind scorer)")]
    if diagnostics:
        pairs += [("MVR (video scorer)", "MVR, shuffled scores (ablation)"),
                  ("MVR, shuffled scores (ablation)", "task only")]
    for a, b in pairs:
        d = fin[a] - fin[b]
        se = float(d.std(ddof=1) / math.sqrt(n))
        t = float(stats.t.ppf(0.95, n - 1))
        rows.append({"arm": f"{a} - {b}", "final success (mean)": float(d.mean()), "SE": se,
                     "90% CI": f"[{d.mean() - t * se:+.3f}, {d.mean() + t * se:+.3f}]", "runs": n})
    rows.append({"arm": "relative gain: MVR / max(task, image) (paper: up to ~1.3x TQC)",
                 "final success (mean)": float(fin["MVR (video scorer)"].mean() / max(best_base.mean(), 1e-9))})
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    steps = (np.arange(iters) + 1) * 32 * 200 / 1000.0
    for lab, c in curves.items():
        mu, se = c.mean(0), c.std(0, ddof=1) / math.sqrt(n)
        ls = "--" if "shuffled" in lab or "oracle" in lab else "-"
        ax.plot(steps, mu, ls, label=lab)
        ax.fill_between(steps, mu - se, mu + se, alpha=0.25)
    ax.set_xlabel("environment steps (thousands; 32 episodes of 200 steps an iteration)")
    ax.set_ylabel("success: fraction of steps with amplitude in band")
    ax.set_title(f"MVR shaping on the rendered oscillator (mean +- SE over {n} runs)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    from validation._figstyle import readable
    readable(fig)
    return ClaimResult(effect=eff, control=ctrl, table=rows, figure=fig, details=(
        f"OscillatorEnv (period 4 s, dt 0.05, x_range 2) with a sparse task reward: 1 a step while the energy "
        f"amplitude a(s) is within {RL_BAND} of A = {RL_A}, minus 0.01 u^2. A held pose reaches at most "
        "x = gain/omega^2 = 0.81, so only a sustained oscillation scores. Learner (same for every arm): REINFORCE "
        f"with per-step baseline, 32 episodes of 200 steps an iteration, {iters} iterations, a Gaussian policy "
        "linear in (x, v, 1, v a^2 / A^2) with a learned exploration scale (initial 1). Shaped arms run the library's "
        "MVRShaper: every iteration two episodes are rendered from two cameras (side, top; 16 x 16 px, 8 frames "
        "every 10 steps, windows of 80 steps, stride 40), scored and added to the relevance buffer; every 5 "
        "iterations the StateRelevance (hidden 32) is retrained with warm start and the reference set refreshed "
        "(top 10 clips); the learner's reward is r + F(s), F the code-faithful term (w_s 0.1, tau 0.1). Video and "
        "image scorers use the same demonstration (the scripted oscillation at A): the video scorer is the "
        "MotionDescriptorScorer (temporal descriptor), the image scorer the same family made motion-blind at equal "
        "capacity (validation.mvr._static_descriptor). Success = fraction of steps in the band over the last "
        f"{last} iterations. min effect {RL_MIN_EFFECT} (20 of 200 steps): the paper reports relative return gains "
        "(up to ~30% over TQC, secondary summary) on tasks where the baseline is far from zero; our sparse-reward "
        "baseline is near zero, so the effect is stated as an absolute success difference. Broken variant caught "
        "(tests/rl/test_mvr_claim.py): the image scorer in the MVR arm ('image_for_video'). The shuffled-score "
        "ablation is a diagnostic: any shaping perturbs the learner off the task reward's flat start, so part of "
        "the gain over task only is not specific to the video ordering; the MVR - shuffled row measures the part "
        "that is."))


from validation.claims import claim as _claim  # noqa: E402


@_claim(method="mvr", paper=PAPER, budget=120, name="c_mvr_shaping_beats_baselines",
        claim="MVR's multi-view video-relevance shaping improves RL on a dynamic-motion task over the task reward "
              "alone and over an image-based (per-frame) reward through the same pipeline",
        paper_setting="Abstract and main results: TQC backbone on 9 HumanoidBench and 10 MetaWorld tasks, against "
                      "TQC (task reward only), VLM-RM (CLIP image reward) and RoboCLIP; image and single-view "
                      "ablations",
        paper_number="qualitative in the abstract ('efficacy ... on challenging humanoid locomotion ... and "
                     "manipulation'); secondary summaries: beats the VLM-reward baselines on all 19 tasks, up to "
                     "~30% higher average return than TQC on locomotion (per-task tables not retrieved)",
        regime="The task reward is sparse (only a sustained oscillation at amplitude 1.5 +- 0.2 scores, no held pose "
               "can) so an agent exploring from rest rarely sees it, while the clip-level descriptor of the "
               "demonstrated oscillation ranks partial oscillations by closeness (a graded progress signal) and its "
               "motion-blind twin scores the still square at the centre like the oscillation (the per-frame average "
               "of a symmetric swing is the rest pose): the static-pose ambiguity the paper's video relevance fixes.",
        control="Oracle relevance: the same MVR pipeline (relevance buffer, Bradley-Terry retrains, reference set, "
                "F(s)) fed each clip's true closeness to the target, -|mean a(s) - A|, in place of the scorer; "
                "oracle - task only, paired over runs",
        test="one-sided paired t over learning runs, alpha 0.05; power for a success gain of 0.1 (20 of 200 "
             "steps in the band)")
def c_mvr_shaping_beats_baselines(profile, rng, variant=None, seeds=None, diagnostics=True):
    return _claim_mvr_rl(profile, rng, variant, seeds, diagnostics)
