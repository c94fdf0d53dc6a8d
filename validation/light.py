"""Validation of LIGHT (report section "light"): the spec's checks L1-L7.

L1-L4 are exact or analytic (linear-Gaussian oracle, sampler mechanics); L5-L7 compare samplers and ablations on
real DeepMimic motion capture composed with procedural objects, with models trained once and cached
(:func:`iclr26sci.nn.cached_model`; the training seed is fixed, the master seed drives the test prompts,
sampling noise and bootstrap).
"""
from __future__ import annotations

import numpy as np

from .registry import CheckResult, Criterion, check

PAPER = ("Wang, Xu, Guo, Zhou, Gong, Wang, Wang, Gui, LIGHT: Unleashing Guidance Without Classifiers for "
         "Human-Object Interaction Animation, ICLR 2026 (arXiv:2603.25734)")

#: the trained models of L5-L7: (data objects, token modalities, epochs)
MODEL_VARIANTS = {
    "full": ("shape_spectrum", ("body", "hands", "object")),
    "merged": ("shape_spectrum", ("body+hands+object",)),
    "boxes": ("boxes", ("body", "hands", "object")),
}
TRAIN = dict(n=2000, rng=1234)
NET = dict(d_model=64, n_layers=2, n_heads=4, K=100, steps=20, dropout=0.0, text_encoder="minilm", lr=2e-3,
           batch_size=64, rng=0)
EPOCHS = 40


_MODELS: dict = {}


def trained_model(variant="full", progress=None):
    """The cached LIGHT model of an L5-L7 variant and its training data (trained on first use)."""
    from iclr26sci.generative.light import LIGHT, hoi_dataset

    if variant in _MODELS:
        return _MODELS[variant]
    objects, mods = MODEL_VARIANTS[variant]
    if ("data", objects) not in _MODELS:
        _MODELS[("data", objects)] = hoi_dataset("mocap", objects=objects, **TRAIN)
    data = _MODELS[("data", objects)]
    model = LIGHT(modalities=mods, **NET).fit(data, epochs=EPOCHS, cache=True, progress=progress)
    _MODELS[variant] = (model, data)
    return model, data


# ----------------------------------------------------------------------------------------------- L1, L2
_ORACLE_DIMS = (4, 4, 2)
_ORACLE_K = 100
_GRID = (0, 25, 50, 75, 99)


def _seed(rng):
    return int(rng.integers(0, 2 ** 31 - 1))


_NETS: dict = {}


def oracle_mlp(train_seed=0, mode="independent", steps=2000, width=256, batch=256, n_data=20000, oracle_seed=0):
    """A 3-layer MLP x0-denoiser trained with the diffusion-forcing loss on linear-Gaussian data (cached per process).

    Inputs: the noisy vector y (10) and, per block, sqrt(alpha_bar) and sqrt(1 - alpha_bar) of its level (6).
    ``mode="independent"``: one level per block (diffusion forcing); ``"synchronous"``: one level for all blocks
    (the broken variant: ordinary diffusion training). Returns ``(oracle, predict)``, ``predict(y, levels)``.
    """
    import torch

    from iclr26sci.generative.light import LinearGaussianOracle

    key = (train_seed, mode, steps, width, batch, n_data, oracle_seed)
    if key in _NETS:
        return _NETS[key]
    orc = LinearGaussianOracle(_ORACLE_DIMS, K=_ORACLE_K, rng=oracle_seed)
    g = np.random.default_rng(train_seed)
    X0 = torch.tensor(g.standard_normal((n_data, orc.d)) @ np.linalg.cholesky(orc.cov).T, dtype=torch.float32)
    ab = torch.tensor(np.concatenate([[1.0], orc.schedule.alphas_cumprod]), dtype=torch.float32)
    blocks = torch.as_tensor(orc._blocks)
    torch.manual_seed(train_seed)
    net = torch.nn.Sequential(torch.nn.Linear(orc.d + 6, width), torch.nn.SiLU(), torch.nn.Linear(width, width),
                              torch.nn.SiLU(), torch.nn.Linear(width, orc.d))
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    gen = torch.Generator().manual_seed(train_seed)

    def feats(y, lv):
        a = ab[lv + 1]
        return torch.cat([y, a.sqrt(), (1 - a).sqrt()], 1)

    for _ in range(steps):
        idx = torch.randint(0, n_data, (batch,), generator=gen)
        x0 = X0[idx]
        if mode == "independent":
            lv = torch.randint(0, _ORACLE_K, (batch, 3), generator=gen)
        else:
            lv = torch.randint(0, _ORACLE_K, (batch, 1), generator=gen).expand(batch, 3)
        a = ab[lv + 1][:, blocks]
        y = a.sqrt() * x0 + (1 - a).sqrt() * torch.randn(batch, orc.d, generator=gen)
        loss = ((net(feats(y, lv)) - x0) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    net.eval()

    def predict(y, levels):
        with torch.no_grad():
            lv = torch.as_tensor(np.asarray(levels), dtype=torch.long).reshape(1, 3).expand(len(y), 3)
            return net(feats(torch.as_tensor(y, dtype=torch.float32), lv)).double().numpy()

    _NETS[key] = (orc, predict)
    return orc, predict


def _l1_stat(orc, predict, rng, n_per=300):
    num = den = 0.0
    rows = []
    for lb in _GRID:
        for lh in _GRID:
            for lo in _GRID:
                lv = (lb, lh, lo)
                _, y = orc.sample(n_per, lv, rng=rng)
                mu = orc.posterior_mean(y, lv)
                e = float(((predict(y, lv) - mu) ** 2).sum())
                s = float((mu ** 2).sum())
                num, den = num + e, den + s
                if len({lb, lh, lo}) == 3 and (max(lv) - min(lv)) >= 75:
                    rows.append({"levels (b, h, o)": str(lv), "rel. MSE": round(e / max(s, 1e-12), 4)})
    return num / den, rows


@check(method="light", budget=12.0, paper=PAPER,
       guarantee="L1: the diffusion-forcing denoiser learns the posterior mean under asynchronous levels: an MLP "
                 "trained with independent per-modality levels matches E[x0 | y] = Sigma A^T (A Sigma A^T + N)^-1 y "
                 "on a 5^3 grid of (lambda_b, lambda_h, lambda_o) to a pooled relative MSE < 5%")
def l1_posterior_mean(profile, rng):
    """Relative MSE sum ||f - mu||^2 / sum ||mu||^2 over the 125 level triples (300 draws each).

    Threshold 5% (the spec's): the approximation error of a 3-layer MLP after 2000 steps; the Monte-Carlo error of
    the pooled ratio is < 0.1%. Broken variant caught: training with one level shared by all modalities (ordinary
    synchronous diffusion) gives ~22% on this grid (measured; tests/generative/test_light_validation.py).
    """
    orc, predict = oracle_mlp(0 if profile.quick else _seed(rng), steps=profile.pick(2000, 4000))
    rel, rows = _l1_stat(orc, predict, rng)
    return CheckResult(statistic=rel, threshold=0.05, comparison="<", table=rows[:8],
                       details="3-layer MLP (width 256), DF loss with lambda_m ~ U{0..99} independently, 20k clean "
                               "samples with fresh noise per step; statistic pooled over the grid; strongly "
                               "asynchronous triples shown.")


def _spearman(a, b):
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).statistic)


@check(method="light", budget=3.0, paper=PAPER,
       guarantee="L2: 'cleaner guides noisier' is information gain: tr Cov(o | y) is non-decreasing in the body's "
                 "level lambda_b (analytic), and the learned denoiser's error on the object follows it "
                 "(Spearman > 0.9)")
def l2_information_gain(profile, rng):
    """Analytic: max decrease of tr Cov(o|y) over lambda_b = 0..99 (hands at 99, object at 60) must be <= 1e-10.

    Learned: Spearman rank correlation between lambda_b (10 levels) and the L1 network's MSE on the object block
    (2000 draws each); the increase of the Bayes error over the grid is many standard errors, so > 0.9 holds
    unless the denoiser ignores the body tokens' level. Broken variant caught: the synchronous-trained network
    (which was never shown a clean body with a noisy object).
    """
    orc, predict = oracle_mlp(0 if profile.quick else _seed(rng), steps=profile.pick(2000, 4000))
    ob = orc.block(2)
    tr = np.array([np.trace(orc.posterior_cov((lb, 99, 60))[ob, ob]) for lb in range(_ORACLE_K)])
    worst_drop = float(max(0.0, np.max(tr[:-1] - tr[1:])))
    lbs = np.linspace(0, 99, 10).round().astype(int)
    err, bayes = [], []
    for lb in lbs:
        x0, y = orc.sample(2000, (lb, 99, 60), rng=rng)
        err.append(float(((predict(y, (lb, 99, 60))[:, ob] - x0[:, ob]) ** 2).sum(1).mean()))
        bayes.append(float(tr[lb]))
    rho = _spearman(lbs, err)
    table = [{"lambda_b": int(lb), "tr Cov(o|y)": round(b, 4), "learned MSE on o": round(e, 4)}
             for lb, b, e in zip(lbs, bayes, err)]
    return CheckResult(criteria=[Criterion("max decrease of tr Cov(o|y) in lambda_b", worst_drop, 1e-10, "<="),
                                 Criterion("Spearman(lambda_b, learned error on o)", rho, 0.9, ">")],
                       table=table, details=f"tr Cov(o|y) rises from {tr[0]:.3f} (clean body) to {tr[-1]:.3f}.")


# ----------------------------------------------------------------------------------------------- L3, L4
def _random_denoiser(seed, K=20, T=6, dims=(6, 4, 3)):
    """A randomly initialised LightDenoiser (weights perturbed so every sub-layer is active) and its closure."""
    import torch

    from iclr26sci.generative.light import LightDenoiser

    g = torch.Generator().manual_seed(seed)
    net = LightDenoiser(dims, T=T, K=K, text_dim=8, shape_dim=5, d_model=16, n_layers=2, n_heads=2, dropout=0.0)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.3 * torch.randn(p.shape, generator=g))
    net.eval()
    B = 4
    text, shape = torch.randn(B, 8, generator=g), torch.randn(B, 5, generator=g)
    on, off = torch.ones(B, dtype=torch.bool), torch.zeros(B, dtype=torch.bool)

    def denoise(xs, lv, null):
        return net(xs, lv, text, shape, text_null=on if null else off)

    x_init = [torch.randn(B, T, d, generator=g) for d in dims]
    return denoise, x_init


def _maxdiff(a, b):
    return float(max((x - y).abs().max() for x, y in zip(a, b)))


@check(method="light", budget=2.0, paper=PAPER,
       guarantee="L3: guidance limits: with delta = 0 or omega_2 = 0 (df_weight = 1) the pace-guided sample is bitwise "
                 "identical to the unguided one from the same noise (eta = 0); with delta > 0 and omega_2 > 0 it differs")
def l3_guidance_limits(profile, rng):
    """Statistic: max |guided - unguided| over all tokens (must be exactly 0 in the limits).

    Broken variants caught: pass S started from fresh noise, or leaders read at U[m + delta + 1] (an off-by-one in
    the pace window) -- both make the delta = 0 difference non-zero; a sampler that never applies the pace term
    fails the 'acts' criterion. The released code's double-counted text term (code_faithful=True) breaks the
    delta = 0 limit: followers get 2 omega_1 of text guidance at guided steps (reported, expected > 0).
    """
    from iclr26sci.generative.light import PaceGuidance, ddim_sample
    from iclr26sci.nn import DiffusionSchedule, ddim_levels

    sch = DiffusionSchedule(20)
    levels = ddim_levels(20, 12)
    names = ("body", "hands", "object")
    rows, crit = [], []
    n_rep = profile.pick(1, 10)
    worst = {"d0": 0.0, "w1": 0.0, "acts": np.inf, "cf": np.inf}
    for _ in range(n_rep):
        denoise, x0 = _random_denoiser(_seed(rng))
        base = ddim_sample(denoise, x0, levels, sch, text_weight=1.5)
        for key, gd in (("d0", PaceGuidance(("body", "hands"), delta=0, weight=3.0, text_weight=1.5, upstop=5)),
                        ("w1", PaceGuidance(("body", "hands"), delta=5, weight=1.0, text_weight=1.5, upstop=5)),
                        ("acts", PaceGuidance(("body", "hands"), delta=5, weight=3.0, text_weight=1.5, upstop=5)),
                        ("cf", PaceGuidance(("body", "hands"), delta=0, weight=3.0, text_weight=1.5, upstop=5,
                                            code_faithful=True))):
            d = _maxdiff(ddim_sample(denoise, x0, levels, sch, guidance=gd, names=names), base)
            worst[key] = max(worst[key], d) if key in ("d0", "w1") else min(worst[key], d)
    rows = [{"setting": "delta = 0, w = 3", "max |guided - unguided|": worst["d0"]},
            {"setting": "delta = 5, w = 1 (omega_2 = 0)", "max |guided - unguided|": worst["w1"]},
            {"setting": "delta = 5, w = 3 (min over repeats)", "max |guided - unguided|": worst["acts"]},
            {"setting": "code_faithful, delta = 0 (min over repeats)", "max |guided - unguided|": worst["cf"]}]
    crit = [Criterion("delta = 0: max |guided - unguided|", worst["d0"], 0.0, "<="),
            Criterion("omega_2 = 0: max |guided - unguided|", worst["w1"], 0.0, "<="),
            Criterion("delta = 5, w = 3: guidance acts (min difference)", worst["acts"], 0.0, ">"),
            Criterion("code_faithful at delta = 0 differs (double text term)", worst["cf"], 0.0, ">")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"{n_rep} random 2-layer denoisers, 12 DDIM steps, leaders body+hands, follower object, "
                               "text weight 1.5, guided window m <= 8 (delta = 5: m <= 5).")


@check(method="light", budget=2.0, paper=PAPER,
       guarantee="L4: DDIM mechanics: tokens whose level does not decrease are not modified (bitwise); eta = 0 is "
                 "deterministic; with the true x0 the per-token DDIM step follows the forward process exactly")
def l4_ddim_mechanics(profile, rng):
    """Three exact criteria on random per-token level schedules (float64 for the third, tolerance 1e-12).

    Broken variants caught: a DDIM step without the level mask (moves frozen tokens), a sampler that draws noise at
    eta = 0, a step using alpha_bar of the wrong level (off-by-one) -- the third criterion fails by > 1e-3.
    """
    import torch

    from iclr26sci.generative.light import ddim_sample
    from iclr26sci.nn import DiffusionSchedule, ddim_levels, ddim_step, q_sample

    K = 100
    sch = DiffusionSchedule(K)
    g = torch.Generator().manual_seed(_seed(rng))
    frozen = 0.0
    follow = 0.0
    for _ in range(profile.pick(5, 100)):
        x = torch.randn(3, 12, 5, generator=g, dtype=torch.float64)
        xh = torch.randn(3, 12, 5, generator=g, dtype=torch.float64)
        lv = torch.randint(-1, K, (3, 12), generator=g)
        # next level: the same (the token is frozen) or any lower one (ddim_step refuses a step to more noise)
        nx = torch.where(torch.rand(3, 12, generator=g) < 0.5, lv,
                         torch.minimum(torch.randint(-1, K, (3, 12), generator=g), lv))
        y = ddim_step(sch, x, xh, lv, nx)
        keep = (nx == lv) | (lv < 0)
        frozen = max(frozen, float((y[keep] - x[keep]).abs().max()) if keep.any() else 0.0)
        # diffusion-forcing pyramid: token i starts d_i steps late; with the true x0 each token stays on q_sample
        x0 = torch.randn(2, 8, 4, generator=g, dtype=torch.float64)
        eps = torch.randn(2, 8, 4, generator=g, dtype=torch.float64)
        lag = torch.randint(0, 30, (1, 8), generator=g).expand(2, 8)
        sched_lv = lambda k: torch.clamp(K - 1 - 3 * (k - lag), max=K - 1).clamp(min=-1)  # noqa: E731
        xt = q_sample(sch, x0, sched_lv(0), eps)
        for k in range(0, 70):
            xt = ddim_step(sch, xt, x0, sched_lv(k), sched_lv(k + 1))
            follow = max(follow, float((xt - q_sample(sch, x0, sched_lv(k + 1), eps)).abs().max()))
    denoise, x_init = _random_denoiser(_seed(rng))
    levels = ddim_levels(20, 12)
    s20 = DiffusionSchedule(20)
    det = _maxdiff(ddim_sample(denoise, x_init, levels, s20, text_weight=1.5),
                   ddim_sample(denoise, x_init, levels, s20, text_weight=1.5))
    crit = [Criterion("frozen tokens: max |change|", frozen, 0.0, "<="),
            Criterion("eta = 0: max |run 1 - run 2|", det, 0.0, "<="),
            Criterion("true-x0 DDIM vs forward process: max error", follow, 1e-12, "<=")]
    return CheckResult(criteria=crit, details="random per-token levels in [-1, 99]; a 70-step pyramid schedule with "
                                              "per-token lags; a random LightDenoiser sampled twice.")


# ----------------------------------------------------------------------------------------------- L5-L7
# L5-L7 run on the spec's PlanarHOI toy (section 6.4): there the physics rule and the contact labels are exact and
# contact needs the hand, body and box tokens to agree to 3 cm. On the composed mocap data the CPU-sized model put the
# wrist on the object on nearly every frame with or without guidance (F1 0.830 / 0.829 / 0.830 for none / text CFG /
# pace, seed 0, docs/light.md), so there was nothing for guidance to correct; that model stays available below
# (trained_model) for the benchmark's second table.

#: the PlanarHOI models of L5-L7: (box half-size family, token modalities)
PLANAR_VARIANTS = {
    "full": ("spectrum", ("body", "hands", "object")),
    "merged": ("spectrum", ("body+hands+object",)),
    "narrow": ("narrow", ("body", "hands", "object")),
}
PLANAR_TRAIN = dict(n=3000, rng=1234)
PLANAR_NET = dict(d_model=64, n_layers=2, n_heads=4, K=100, steps=20, dropout=0.0, text_encoder="minilm", lr=2e-3,
                  batch_size=64, rng=0)
PLANAR_EPOCHS = 30


def planar_model(variant="full", progress=None):
    """The cached LIGHT model of a PlanarHOI variant and its training data (trained on first use)."""
    from iclr26sci.generative.light import LIGHT, planar_hoi

    key = ("planar", variant)
    if key in _MODELS:
        return _MODELS[key]
    sizes, mods = PLANAR_VARIANTS[variant]
    if ("planar-data", sizes) not in _MODELS:
        _MODELS[("planar-data", sizes)] = planar_hoi(sizes=sizes, **PLANAR_TRAIN)
    data = _MODELS[("planar-data", sizes)]
    model = LIGHT(modalities=mods, **PLANAR_NET).fit(data, epochs=PLANAR_EPOCHS, cache=True, progress=progress)
    _MODELS[key] = (model, data)
    return model, data


#: the pace-guidance setting of L5-L7 and the benchmark (chosen on a separate dev split, data seed 999; see docs)
GUIDANCE = dict(leaders=("body", "hands"), delta=5, weight=3.0, text_weight=1.5, upstop=12)
_TEXT_CFG = 1.5


def _test_set(profile, rng, sizes="spectrum"):
    from iclr26sci.generative.light import planar_hoi

    n = profile.pick(100, 500)
    return planar_hoi(n=2 * n, sizes=sizes, rng=_seed(rng), test_fraction=0.5).test


def _row(name, ev):
    m = ev.metrics
    lo, hi = ev.ci["contact_f1"]
    return {"sampler": name, "contact F1": round(m["contact_f1"], 4), "F1 95% CI": f"[{lo:.3f}, {hi:.3f}]",
            "precision": round(m["contact_precision"], 4), "recall": round(m["contact_recall"], 4),
            "penetration": round(m["penetration"], 4), "floating": round(m["floating"], 4),
            "FID (motion features)": round(m["fid"], 3), "s / sequence": round(m["seconds_per_sequence"], 4)}


# Full profile only (it trains a model on first use, minutes on one core); seed table in docs/light.md.
@check(method="light", budget=600.0, paper=PAPER, slow=True,
       guarantee="L5: contact fidelity improves with pace guidance: on PlanarHOI, contact F1 of pace-guided sampling "
                 "(leaders body + hands, follower the box) exceeds both unguided and text-CFG-only sampling of the "
                 "same model and noise, with 95% paired bootstrap intervals of the differences excluding 0 "
                 "(paper, InterAct: 0.599 -> 0.627)")
def l5_contact_fidelity(profile, rng):
    """Paired percentile bootstrap (2000 resamples of test sequences) of the pooled-F1 differences; lower ends > 0.

    Penetration and floating are reported, not tested (the paper reports penetration slightly worse with
    guidance). Broken variant caught: a sampler whose pace term is zero (weight = 1) gives exactly the text-CFG
    sample (L3), so its difference against text CFG is 0 and the criterion fails.
    """
    from iclr26sci.generative.light import PaceGuidance, bootstrap_f1_difference

    model, _ = planar_model("full")
    test = _test_set(profile, rng)
    s = _seed(rng)
    ev = {"no guidance": model.evaluate(test, rng=s, n_boot=500),
          "text CFG (w = 1.5)": model.evaluate(test, text_weight=_TEXT_CFG, rng=s, n_boot=500),
          "pace guidance": model.evaluate(test, guidance=PaceGuidance(**GUIDANCE), rng=s, n_boot=500)}
    d1 = bootstrap_f1_difference(ev["pace guidance"].counts, ev["no guidance"].counts, rng=rng)
    d2 = bootstrap_f1_difference(ev["pace guidance"].counts, ev["text CFG (w = 1.5)"].counts, rng=rng)
    crit = [Criterion("F1(pace) - F1(none): CI lower end", d1[1], 0.0, ">"),
            Criterion("F1(pace) - F1(text CFG): CI lower end", d2[1], 0.0, ">")]
    return CheckResult(criteria=crit, table=[_row(k, v) for k, v in ev.items()],
                       details=f"{len(test)} PlanarHOI test sequences; differences {d1[0]:+.4f} [{d1[1]:+.4f}, "
                               f"{d1[2]:+.4f}] vs none and {d2[0]:+.4f} [{d2[1]:+.4f}, {d2[2]:+.4f}] vs text CFG; "
                               f"guidance {GUIDANCE}.",
                       extra={"diff_none": d1, "diff_cfg": d2})


# Full profile only (it trains two models on first use); seed table in docs/light.md. Measured (500 sequences):
# F1 difference -0.0005 [-0.0051, +0.0042], -0.0065 [-0.0109, -0.0018], -0.0089 [-0.0132, -0.0041] at master seeds
# 0, 1, 2: FAIL at each (the merged token scores more contact frames and floats the box more often, 0.35 vs 0.22).
@check(method="light", budget=600.0, paper=PAPER, slow=True,
       guarantee="L6: modality separation helps: on PlanarHOI the model with separate body, hand and box tokens "
                 "(pace-guided) has contact F1 >= the model whose body, hands and box share one token and one noise "
                 "level (paper: 0.627 vs 0.572 without human-object separation)")
def l6_modality_separation(profile, rng):
    """Statistic: F1(separate, pace) - F1(merged, text CFG) on the same test sequences and noise seed (>= 0).

    The merged model cannot be pace-guided (it has one token type); its best sampler here is text CFG. The paired
    bootstrap interval is reported in the details. Broken variant caught: merged and separate models swapped.
    """
    from iclr26sci.generative.light import PaceGuidance, bootstrap_f1_difference

    full, _ = planar_model("full")
    merged, _ = planar_model("merged")
    test = _test_set(profile, rng)
    s = _seed(rng)
    ev = {"separate tokens, pace": full.evaluate(test, guidance=PaceGuidance(**GUIDANCE), rng=s, n_boot=500),
          "separate tokens, text CFG": full.evaluate(test, text_weight=_TEXT_CFG, rng=s, n_boot=500),
          "merged token, text CFG": merged.evaluate(test, text_weight=_TEXT_CFG, rng=s, n_boot=500)}
    d = bootstrap_f1_difference(ev["separate tokens, pace"].counts, ev["merged token, text CFG"].counts, rng=rng)
    return CheckResult(statistic=d[0], threshold=0.0, comparison=">=", table=[_row(k, v) for k, v in ev.items()],
                       details=f"{len(test)} test sequences; difference {d[0]:+.4f}, 95% CI [{d[1]:+.4f}, {d[2]:+.4f}].",
                       extra={"diff": d})


#: LIGHT's shape augmentation in the miniature (L7 and its claim): on each near-cube training sequence, with
#: probability 0.5, a new box with half sizes from the spectrum (0.05-0.2 m), placed so that the grasp point stays in
#: contact (:func:`iclr26sci.generative.light.planar_shape_augment`); the augmentation seed is part of the artefact
AUGMENT = dict(sizes="spectrum", p=0.5, rng=4321)


def shape_augment(seqs):
    """The augmentation step of L7 and its claim: :func:`planar_shape_augment` with :data:`AUGMENT`."""
    from iclr26sci.generative.light import planar_shape_augment

    return planar_shape_augment(seqs, **AUGMENT)


def augmented_planar_model(augment=None, progress=None):
    """The L7 model: the near-cube training sequences of ``planar_model("narrow")`` passed through ``augment``
    (default :func:`shape_augment`), then the same network, seed and epochs (cached)."""
    from iclr26sci.generative.light import LIGHT

    _, base = planar_model("narrow", progress=progress)
    key = ("planar", "narrow+augment")
    if augment is None and key in _MODELS:
        return _MODELS[key]
    data = (augment or shape_augment)(base.train)
    model = LIGHT(modalities=PLANAR_VARIANTS["narrow"][1], **PLANAR_NET).fit(data, epochs=PLANAR_EPOCHS, cache=True,
                                                                           progress=progress)
    if augment is None:
        _MODELS[key] = (model, data)
    return model, data


# Full profile only (it trains two models on first use, about 160 core-s each). Both models see the same near-cube
# training sequences (same captions and human motion, same network, seed and number of gradient steps); one of them
# goes through the augmentation step first. An identity augmentation gives the same training data, hence (the
# cached artefact is keyed by a hash of the data) the same model and a difference of exactly 0.
@check(method="light", budget=600.0, paper=PAPER, slow=True,
       guarantee="L7: shape augmentation generalises: on PlanarHOI boxes of unseen sizes (half sizes 0.05-0.2 m, "
                 "fresh draws) a model trained on near-cube sequences passed through the contact-preserving shape "
                 "augmentation has higher contact F1 than the same model trained on the same sequences without it "
                 "(paired 95% bootstrap interval of the difference above 0; paper, cross-category: 0.351 -> 0.560)")
def l7_shape_augmentation(profile, rng, augment=None):
    """Statistic: lower end of the paired 95% percentile bootstrap interval of F1(augmented) - F1(not augmented),
    both pace-guided, same test sequences and noise; pass if > 0.

    The threshold is the Monte-Carlo tolerance of the comparison (2000 bootstrap resamples of the test sequences):
    an effect of the paper's size (+0.209) is many interval widths away from 0, a no-op augmentation gives exactly 0.
    The miniature's augmentation replaces the box by one of another size and re-places it so the grasp point stays
    in contact (:func:`iclr26sci.generative.light.planar_shape_augment`), not the paper's correspondence network.
    Broken variant caught: an identity augmentation (``augment=lambda s: s``: the same model twice, difference 0).
    """
    aug, _ = augmented_planar_model(augment)
    base, _ = planar_model("narrow")
    return _l7_compare(aug, base, profile, rng)


def _l7_compare(aug, base, profile, rng, test=None):
    """L7's comparison of a model trained with the augmentation step (``aug``) and one without (``base``)
    (``test``: the test sequences, default the profile's fresh set)."""
    from iclr26sci.generative.light import PaceGuidance, bootstrap_f1_difference

    test = _test_set(profile, rng) if test is None else test
    s = _seed(rng)
    g = PaceGuidance(**GUIDANCE)
    ev = {"near-cubes + shape augmentation": aug.evaluate(test, guidance=g, rng=s, n_boot=500),
          "near-cubes, no augmentation": base.evaluate(test, guidance=g, rng=s, n_boot=500)}
    d = bootstrap_f1_difference(ev["near-cubes + shape augmentation"].counts, ev["near-cubes, no augmentation"].counts,
                                rng=rng)
    return CheckResult(statistic=d[1], threshold=0.0, comparison=">", table=[_row(k, v) for k, v in ev.items()],
                       details=f"{len(test)} test sequences with fresh box sizes from the full spectrum; difference "
                               f"{d[0]:+.4f}, 95% CI [{d[1]:+.4f}, {d[2]:+.4f}]; augmentation {AUGMENT}.",
                       extra={"diff": d})


# ----------------------------------------------------------------------------------------------- claims tier
from .claims import ClaimResult, Effect, claim as _claim  # noqa: E402

#: the under-trained PlanarHOI denoiser of the claim: 1 block of width 32, 5 epochs on 1200 sequences (contact F1
#: about 0.75 at 8 steps, against 0.93 for the converged L5 model: it has contact errors left to fix)
SMALL_NET = dict(PLANAR_NET, d_model=32, n_layers=1)
SMALL_TRAIN = dict(n=1500, rng=1234)
SMALL_EPOCHS = 5
CLAIM_STEPS = 8
#: pace setting of the claim: leaders body + hands one step ahead over the whole window, the released w = 3
CLAIM_GUIDANCE = dict(leaders=("body", "hands"), delta=1, weight=3.0, text_weight=1.5, upstop=CLAIM_STEPS)


def small_planar_model(progress=None):
    """The cached under-trained PlanarHOI LIGHT model of the claim check (about 15 s CPU to train, once)."""
    from iclr26sci.generative.light import LIGHT, planar_hoi

    key = ("planar-small",)
    if key not in _MODELS:
        data = planar_hoi(sizes="spectrum", **SMALL_TRAIN)
        _MODELS[key] = LIGHT(**SMALL_NET).fit(data, epochs=SMALL_EPOCHS, cache=True, progress=progress)
    return _MODELS[key]


def _f1_effect(counts_a, counts_b, min_effect, rng, what):
    from iclr26sci.generative.light import bootstrap_f1_difference

    d, lo, hi = bootstrap_f1_difference(counts_a, counts_b, n_boot=2000, level=0.90, rng=rng)
    return Effect(estimate=d, ci=(lo, hi), min_effect=min_effect, n=int(len(counts_a)), what=what)


def _claim_pace(profile, rng, weight=CLAIM_GUIDANCE["weight"], n_test=100, shift=0.10, share=0.2):
    from iclr26sci.generative.light import PaceGuidance, planar_hoi
    from iclr26sci.generative._light_planar import planar_metrics

    model = small_planar_model()
    test = planar_hoi(n=2 * n_test, sizes="spectrum", rng=_seed(rng), test_fraction=0.5).test
    s = _seed(rng)
    cfg = model.evaluate(test, text_weight=CLAIM_GUIDANCE["text_weight"], steps=CLAIM_STEPS, rng=s, n_boot=10)
    g = PaceGuidance(**dict(CLAIM_GUIDANCE, weight=float(weight)))
    pace = model.evaluate(test, guidance=g, steps=CLAIM_STEPS, rng=s, n_boot=10)
    # positive control: plant contact errors of known size into the text-CFG samples (the box displaced by
    # `shift` metres away from the hand in a random `share` of the sequences) and score their repair
    gen = cfg.samples
    con = gen.contacts()                                # generated contact frames (N, T)
    every = max(1, int(round(1 / share)))
    start = int(rng.integers(every))
    hit = con & ((np.cumsum(con, 1) + start) % every == 0)   # every `every`-th contact frame of each sequence
    obj = gen.object.copy()
    obj[..., 0] += shift * hit
    planted = type(gen).from_arrays(gen.body, gen.hands, obj, gen.text, gen.objects, fps=gen.fps)
    pc = planar_metrics(planted, test)["per_sequence"]
    min_eff = 0.5 * (0.627 - 0.599)
    eff = _f1_effect(pace.counts, cfg.counts, min_eff, rng, "contact F1(pace guidance) - F1(text CFG), same noise")
    ctrl = _f1_effect(cfg.counts, pc, min_eff, rng, "contact F1(repaired) - F1(planted contact errors)")
    rows = [{"sampler": "text CFG (w 1.5)", "contact F1": cfg.metrics["contact_f1"],
             "precision": cfg.metrics["contact_precision"], "recall": cfg.metrics["contact_recall"]},
            {"sampler": f"pace guidance (w {weight:g})", "contact F1": pace.metrics["contact_f1"],
             "precision": pace.metrics["contact_precision"], "recall": pace.metrics["contact_recall"]},
            {"sampler": "text CFG with planted errors (control)", "contact F1": float("nan"),
             "precision": float("nan"), "recall": float("nan")}]
    return ClaimResult(effect=eff, control=ctrl, table=rows,
                       details=f"{len(test)} PlanarHOI test sequences (fresh boxes and captions per master seed); "
                               f"the under-trained model (width 32, 1 block, {SMALL_EPOCHS} epochs) sampled with "
                               f"{CLAIM_STEPS} DDIM steps, pace guidance {CLAIM_GUIDANCE} vs text CFG 1.5 from the "
                               "same initial noise; paired percentile bootstrap of the pooled-F1 difference (2000 "
                               "resamples of test sequences, 90% interval). min effect = half the paper's gain "
                               f"(0.014). Control: the box displaced {shift:g} m on {share:.0%} of each text-CFG sample's "
                               "contact frames (every fifth, from a random start); the experiment must see the F1 "
                               "these planted errors cost.")


@_claim(method="light", paper=PAPER, budget=60,
        claim="Pace-induced guidance (the object denoised against body and hand tokens further along) raises "
              "contact fidelity over text classifier-free guidance",
        paper_setting="InterAct, contact F1 of LIGHT without vs with pace guidance (released w = 3, delta 250 of 499)",
        paper_number="contact F1 0.599 -> 0.627 (+0.028)",
        regime="The under-trained small denoiser at 8 DDIM steps has contact F1 about 0.75 (the converged model "
               "0.93), so a quarter of the contact frames are wrong and guidance has errors to fix.",
        control="Planted contact errors: the box displaced 10 cm on 20% of each text-CFG sample's contact frames; "
                "the experiment must see what repairing them gains",
        test="paired percentile bootstrap (test sequences) of the pooled contact-F1 difference, one-sided alpha "
             "0.05; min effect half the paper's +0.028")
def c_pace_guidance_contact_f1(profile, rng, weight=CLAIM_GUIDANCE["weight"]):
    return _claim_pace(profile, rng, weight=weight)


# ----------------------------------------------------------------------------------------------- claim: augmentation
#: the paper's cross-category contact F1 without / with shape augmentation (its augmentation table)
PAPER_AUG = (0.351, 0.560)
AUG_LABELS = ("near-cubes, no augmentation", "near-cubes + shape augmentation", "real spectrum data (oracle)")


def _fit_small(data, net, epochs, cache, key=None):
    from iclr26sci.generative.light import LIGHT

    if key is not None and key in _MODELS:
        return _MODELS[key]
    model = LIGHT(**net).fit(data, epochs=epochs, cache=cache, progress=False)
    if key is not None:
        _MODELS[key] = model
    return model


def _f1_figure(evs, title, paper=None, ylabel="training data"):
    """Contact F1 with its 95% bootstrap interval per model/sampler (horizontal bars)."""
    import matplotlib.pyplot as plt

    names = list(evs)
    f1 = np.array([evs[k].metrics["contact_f1"] for k in names])
    ci = np.array([evs[k].ci["contact_f1"] for k in names])
    fig, ax = plt.subplots(figsize=(8.0, 0.75 * len(names) + 2.2))
    y = np.arange(len(names))[::-1]
    ax.barh(y, f1, color="#8fb3d9", edgecolor="k", height=0.6)
    ax.errorbar(f1, y, xerr=[f1 - ci[:, 0], ci[:, 1] - f1], fmt="none", ecolor="k", capsize=5, lw=1.5,
                label="95% bootstrap CI")
    if paper is not None:
        labels = ("paper, cross-category: no augmentation", "paper, cross-category: augmentation")
        for v, ls, lab in zip(paper, (":", "--"), labels):
            ax.axvline(v, color="0.4", ls=ls, lw=1.2, label=lab)
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=11)
    ax.set_xlabel("contact F1 on boxes of unseen sizes (half sizes 0.05-0.2 m)", fontsize=11)
    ax.set_ylabel(ylabel, fontsize=11)
    ax.set_xlim(0.0, 1.0)
    ax.set_title(title, fontsize=11)
    ax.tick_params(labelsize=10)
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.4, -0.2), ncol=2, frameon=False)
    from validation._figstyle import readable
    readable(fig)
    return fig


def _claim_augment(profile, rng, augment=None, net=SMALL_NET, train=SMALL_TRAIN, epochs=SMALL_EPOCHS, n_test=200,
                   cache=True):
    """The augmentation claim; ``augment`` (default :func:`shape_augment`) maps the base training sequences to the
    augmented ones; ``net``, ``train``, ``epochs``, ``cache`` let the tests run it on a tiny model."""
    from iclr26sci.generative.light import PaceGuidance, planar_hoi

    default = augment is None and net is SMALL_NET and train is SMALL_TRAIN and epochs == SMALL_EPOCHS
    base = planar_hoi(sizes="narrow", **train).train
    real = planar_hoi(sizes="spectrum", **train).train        # same draws of tasks, timing, placement: real sizes
    models = {AUG_LABELS[0]: _fit_small(base, net, epochs, cache, ("aug-claim", "base") if default else None),
              AUG_LABELS[1]: _fit_small((augment or shape_augment)(base), net, epochs, cache,
                                        ("aug-claim", "augmented") if default else None),
              AUG_LABELS[2]: _fit_small(real, net, epochs, cache, ("aug-claim", "oracle") if default else None)}
    test = planar_hoi(n=2 * n_test, sizes="spectrum", rng=_seed(rng), test_fraction=0.5).test
    s = _seed(rng)
    g = PaceGuidance(**CLAIM_GUIDANCE)
    ev = {k: m.evaluate(test, guidance=g, steps=CLAIM_STEPS, rng=s, n_boot=500) for k, m in models.items()}
    gain = PAPER_AUG[1] - PAPER_AUG[0]
    eff = _f1_effect(ev[AUG_LABELS[1]].counts, ev[AUG_LABELS[0]].counts, 0.5 * gain, rng,
                     "contact F1(trained with shape augmentation) - F1(same sequences, no augmentation), unseen sizes")
    ctrl = _f1_effect(ev[AUG_LABELS[2]].counts, ev[AUG_LABELS[0]].counts, gain, rng,
                      "contact F1(trained on real spectrum-size data) - F1(near-cubes only), unseen sizes")
    rows = [{"training data": k, "contact F1": round(v.metrics["contact_f1"], 4),
             "F1 95% CI": "[{:.3f}, {:.3f}]".format(*v.ci["contact_f1"]),
             "precision": round(v.metrics["contact_precision"], 4), "recall": round(v.metrics["contact_recall"], 4),
             "penetration": round(v.metrics["penetration"], 4), "floating": round(v.metrics["floating"], 4)}
            for k, v in ev.items()]
    fig = _f1_figure(ev, f"LIGHT shape augmentation, {len(test)} PlanarHOI test sequences", paper=PAPER_AUG)
    return ClaimResult(effect=eff, control=ctrl, table=rows, figure=fig,
                       details=f"{len(test)} PlanarHOI test sequences with fresh box sizes from the full spectrum "
                               "(0.05-0.2 m); three models of the same architecture, seed and number of gradient "
                               f"steps (width 32, 1 block, {epochs} epochs on {len(base)} sequences, {CLAIM_STEPS} "
                               f"DDIM steps, pace guidance {CLAIM_GUIDANCE}): near-cube sequences (0.09-0.11 m), the "
                               f"same sequences through the augmentation step ({AUGMENT}), and the oracle (the same "
                               "task, timing and placement draws simulated with spectrum sizes). Paired percentile "
                               "bootstrap of the pooled-F1 difference (2000 resamples, 90% interval). min effect: "
                               f"half the paper's cross-category gain ({0.5 * gain:.4f}); the control must show the "
                               f"paper's full gain ({gain:.3f}) with power >= 0.8.")


@_claim(method="light", paper=PAPER, budget=120,
        claim="Contact-aware shape augmentation (objects replaced by others of other sizes, re-placed so the contact "
              "points stay in contact) makes the model generalise to unseen object shapes",
        paper_setting="InterAct, cross-category test objects, LIGHT trained without vs with the shape-spectrum "
                      "augmentation (217 -> 1,121 objects)",
        paper_number="contact F1 0.351 -> 0.560 (+0.209); in-category 0.809 -> 0.833",
        regime="The base model sees near-cubes only (half sizes 0.09-0.11 m) and is tested on boxes up to twice as "
               "large and half as small, so its shape conditioning is out of range (contact F1 about 0.3) while a "
               "model trained on real spectrum-size data reaches about 0.75: there is a generalisation gap to close.",
        control="Oracle: the same task, timing and placement draws simulated with real spectrum sizes (what a perfect "
                "augmentation would produce) against the near-cube model; it must show the paper's +0.209",
        test="paired percentile bootstrap (test sequences) of the pooled contact-F1 difference, one-sided alpha 0.05; "
             "min effect half the paper's cross-category +0.209")
def c_shape_augmentation_generalises(profile, rng, augment=None):
    return _claim_augment(profile, rng, augment=augment)
