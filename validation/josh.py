"""Validation of JOSH (iclr26sci.scene3d.josh): checks J1-J9 of specs/josh-human-scene.md section 4.7.

Data: the DeepMimic ``walk`` clip (real motion capture) retargeted onto the stand-in body, in a ray-cast room,
filmed by a panning handheld camera; "MASt3R-like" depth and matches and "HMR-like" body fits with realistic noise
(``HumanSceneVideo.observations``). Ground truth is exact. Quick profile: 8 keyframes at 64x48 and short Adam
schedules; full profile: 20 keyframes at 160x120 with the released pipeline's 500 + 200 iterations (J1, J2, J8, J9). J3 (six
fits), J7 (two fits) and J4-J6 (one fixed set of ten sequences x six fits, shared with benchmarks/bench_josh.py)
run the quick miniature in both profiles but exceed the section's quick time cap, so they are ``slow``. Each check names the broken variant
it catches in its ``details``. Claims tier: ``contact_anchors_metric_scale`` (the contact term L_c1 recovers the
metric scale that the scene alone lacks, against the paper's -L_c1 ablation; oracle-input control; docs/josh.md).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .registry import CheckResult, Criterion, check

PAPER = "Liu, Lin, Wu & Zhou, Joint Optimization for 4D Human-Scene Reconstruction in the Wild, ICLR 2026 (arXiv:2501.02158)"


def _size(profile):
    return profile.pick(dict(frames=22, keyframe_every=3, width=64, height=48, focal=80.0, n_matches=60,
                             n_iter=(150, 100)),
                        dict(frames=60, keyframe_every=3, width=160, height=120, focal=200.0, n_matches=150,
                             n_iter=(500, 200)))


#: J3-J7 run the quick miniature in both profiles (their fits are the cost; the seed tables in docs/josh.md are
#: measured at this size); they are ``slow`` only because their fits exceed the section's quick time cap.
def _mini():
    from .registry import Profile

    return Profile("quick")


def _video(profile, seed, **kw):
    from iclr26sci.scene3d.josh import human_scene_video

    z = _size(profile)
    return human_scene_video("walk", "room", z["frames"], "handheld", keyframe_every=z["keyframe_every"],
                             width=z["width"], height=z["height"], focal=z["focal"], rng=int(seed), **kw)


def _inputs(profile, video, seed, noise="realistic"):
    return video.observations(noise, rng=int(seed), n_matches=_size(profile)["n_matches"])


def _fit(profile, inp, **kw):
    from iclr26sci.scene3d.josh import JOSH

    kw.setdefault("n_iter", _size(profile)["n_iter"])
    return JOSH(**kw).fit(inp)


def _truth_init(video, inp):
    gt = video.ground_truth
    return dict(cam2w=gt.cam2w, log_size=-np.log(gt.depth_scale), focal=gt.focal, pose=inp.body_pose,
                shape=inp.body_shape[0], translation=inp.body_translation * [1, 1, gt.focal / inp.body_focal])


# ---------------------------------------------------------------------------------------------------- J1
@check(method="josh", budget=8.0, paper=PAPER,
       guarantee="J1: with noise-free inputs the truth is a minimum of the data terms (scene L_3D / L_2D, prior): "
                 "their loss there is < 1e-8 and every random direction increases it")
def fixed_point(profile, rng):
    import torch

    from iclr26sci.geom import BodyModel, kinematic_chain
    from iclr26sci.scene3d import _josh_opt as O
    from iclr26sci.scene3d import josh as J

    seed = int(rng.integers(2 ** 31))
    v = _video(profile, seed)
    inp = _inputs(profile, v, seed, noise="none")
    init = _truth_init(v, inp)
    prob = O.Problem(inp, torch.float64, torch.device("cpu"))
    sc = prob.score
    ch = kinematic_chain(np.where(sc > 0, sc.max() + 1.0 - sc, np.inf) * (1 - np.eye(len(sc))), root=0)
    P = J._params_from_init(prob, ch.parent, ch.order.tolist(), v.focal, init, torch.float64)
    cfg = dict(w_scene=1.0, w_c1=0.0, w_c2=0.0, w_smooth=0.0, w_prior=100.0, w_keypoints=0.0, gamma_coarse=1.1,
               gamma_fine=0.4, gamma_contact=1.1, depth_filter_ratio=1.05)
    model = O.Model(prob, BodyModel("standin", dtype=torch.float64), cfg)
    leaves = [P.quat, P.trans, P.log_size, P.log_f] + P.human_leaves()
    with torch.no_grad():
        base = {ph: float(model.total(P, ph, False)[0]) for ph in ("coarse", "fine")}
        g = torch.Generator().manual_seed(seed)
        x0 = [x.clone() for x in leaves]
        n_dir, ups, min_rise = 20, 0, math.inf
        for _ in range(n_dir):
            for x, x_ in zip(leaves, x0):
                x.copy_(x_ + 1e-4 * torch.randn(x.shape, generator=g, dtype=x.dtype))
            rise = min(float(model.total(P, ph, False)[0]) - base[ph] for ph in ("coarse", "fine"))
            ups += rise > 0
            min_rise = min(min_rise, rise)
    res = J.JOSH(n_iter=(0, 0)).fit(inp, init=init)
    m = J.JOSH.evaluate(res, v.ground_truth)
    crit = [Criterion("data-term loss at the truth", max(base.values()), 1e-8, "<="),
            Criterion("random directions that increase it (of 20)", ups, n_dir, ">="),
            Criterion("W-MPJPE of the truth read back (mm)", m["w_mpjpe_mm"], 1e-6, "<=")]
    return CheckResult(criteria=crit, table=[{"coarse loss": base["coarse"], "fine loss": base["fine"],
                                              "min rise at 1e-4": min_rise, **m}],
                       details="Threshold 1e-8: float64 round-off of exact reprojections. Catches a transposed "
                               "camera rotation, a focal coupling applied to the scene but not the human, or a "
                               "wrong depth lift (each leaves a residual at the truth). The spec's 'drift < 1 mm' "
                               "after Adam is not claimed: rho'(0)=1 makes the minimum non-smooth and Adam's first "
                               "steps move every parameter by ~lr.")


# ---------------------------------------------------------------------------------------------------- J2
@check(method="josh", budget=1.0, paper=PAPER,
       guarantee="J2: rho_gamma(0) = 0, rho'(0+) = 1, convex for gamma > 1, concave for gamma < 1, rho_1 = |.|")
def rho_properties(profile, rng, *, rho=None):
    from iclr26sci.scene3d.josh import gamma_loss

    rho = gamma_loss if rho is None else rho
    gammas = [0.4, 0.7, 1.1, 1.5, 2.0]
    r = np.sort(rng.uniform(0, 20, 200))
    worst_zero = max(abs(float(rho(0.0, g))) for g in gammas)
    h = 1e-7
    worst_slope = max(abs(float(rho(h, g)) / h - 1.0) for g in gammas)
    viol = 0.0
    for g in gammas:
        a, b = r, r + rng.uniform(0.1, 3, len(r))
        mid = np.asarray(rho((a + b) / 2, g)) - (np.asarray(rho(a, g)) + np.asarray(rho(b, g))) / 2
        viol = max(viol, float(np.max(mid if g > 1 else -mid)))
    ident = float(np.max(np.abs(np.asarray(rho(r, 1.0)) - r)))
    crit = [Criterion("|rho(0)|", worst_zero, 1e-12, "<="),
            Criterion("|rho'(0+) - 1| (finite difference h=1e-7)", worst_slope, 1e-5, "<="),
            Criterion("midpoint convexity/concavity violation", viol, 1e-12, "<="),
            Criterion("max |rho_1(r) - r|", ident, 1e-12, "<=")]
    return CheckResult(criteria=crit, details="Tolerances: float64 round-off (1e-12) and the O(h) forward-difference "
                                              "error of the slope (gamma-1) h / c < 1e-5. Catches c = 1/gamma "
                                              "(slope != 1) and a missing -c^gamma offset (rho(0) != 0).")


# ---------------------------------------------------------------------------------------------------- J3
def _hmr_depth_factor(video, inp):
    """Geometric-mean factor of the HMR-like root depth over the true one (the human's own metric-scale error)."""
    gt = video.ground_truth
    w2c = np.linalg.inv(gt.cam2w)
    z_true = np.einsum("kb,kb->k", w2c[:, 2, :3], gt.joints[:, 0]) + w2c[:, 2, 3]
    z_hmr = inp.body_translation[:, 2] * gt.focal / inp.body_focal
    return float(np.exp(np.mean(np.log(z_hmr / z_true))))


@check(method="josh", budget=120.0, slow=True, paper=PAPER,
       guarantee="J3: L_c1 anchors the metric scale: with it the recovered scene scale is within 5% of the truth "
                 "for depth scales 0.3, 1 and 3; without it the scale error stays above half its initial value")
def scale_anchoring(profile, rng, *, w_c1=1.0):
    profile = _mini()
    seed = int(rng.integers(2 ** 31))
    rows = []
    worst_full, worst_ratio = 0.0, math.inf
    from iclr26sci.scene3d.josh import JOSH

    for s in (0.3, 1.0, 3.0):
        v = _video(profile, seed, scene_scale=s)
        inp = _inputs(profile, v, seed)
        b = _hmr_depth_factor(v, inp)
        kw = dict(focal_init=v.focal, optimize_focal=False)

        def ratio(res):   # recovered metric depth / true depth (geometric mean over the keyframes)
            return float(np.exp(np.mean(np.log(res.scale * v.ground_truth.depth_scale))))

        r0 = ratio(_fit(profile, inp, n_iter=(0, 0), **kw))
        rf = ratio(_fit(profile, inp, w_c1=w_c1, **kw))
        rn = ratio(_fit(profile, inp, w_c1=0.0, **kw))
        e0, ef, en = abs(r0 - 1), abs(rf - 1), abs(rn - 1)
        rows.append({"depth scale s": s, "HMR depth factor b": b, "initial s_hat/s": r0, "with L_c1 s_hat/s": rf,
                     "without L_c1 s_hat/s": rn})
        worst_full = max(worst_full, ef)
        if abs(s - 1.0) > 0.5:
            worst_ratio = min(worst_ratio, en / e0)
    crit = [Criterion("max |s_hat/s - 1| with L_c1", worst_full, 0.05, "<="),
            Criterion("min (error without L_c1)/(initial error), s != 1", worst_ratio, 0.5, ">=")]
    return CheckResult(criteria=crit, table=rows,
                       details="Paper: removing L_c1 makes FFR 2.9% -> 92.9%. 5% is the spec's bound. The table gives "
                               "b, the sequence's HMR root-depth factor (in [0.9, 1.1] times 3% drift): the recovered "
                               "scale is closer to the truth than b. The focal is fixed at the truth to isolate the "
                               "scale (J7 tests the focal). Without L_c1 "
                               "the scale is gauge-fixed (MASt3R's 1/min sigma) and nothing anchors it. Catches L_c1 "
                               "off (error stays at |1/s - 1|-like levels) or comparing the scene depth with an "
                               "unscaled (focal-uncoupled) human depth.")


# ---------------------------------------------------------------------------------------------------- J4-J6
#: the fits of the paired comparisons (J4-J6 and benchmarks/bench_josh.py)
VARIANTS = {"joint": {}, "sequential": {"strategy": "sequential"}, "no_c1": {"w_c1": 0.0}, "no_c2": {"w_c2": 0.0},
            "no_human_opt": {"optimize_human": False}, "no_focal_opt": {"optimize_focal": False}}
PAIRED_SEED = 2026


@functools.lru_cache(maxsize=2)
def paired_rows(n_seq=10, variants=tuple(VARIANTS), seed=PAIRED_SEED):
    """Metrics of each variant on ``n_seq`` sequences (quick miniature; focal initialised at 0.8 or 1.2 x truth).

    Each row: ``seq``, ``seed``, ``f0/f`` and, per variant, the dict of :meth:`JOSH.evaluate` plus
    ``s_per_keyframe`` (fit time including the focal search, which the variants of one sequence share: it is timed
    once by a zero-iteration fit and added to each variant that uses it).
    """
    import time

    from iclr26sci.scene3d.josh import JOSH

    profile = _mini()
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_seq):
        sd = int(rng.integers(2 ** 31))
        v = _video(profile, sd)
        inp = _inputs(profile, v, sd)
        f0 = v.focal * float(rng.choice([0.8, 1.2]))
        t = time.perf_counter()
        _fit(profile, inp, focal_init=f0, n_iter=(0, 0))          # the focal search (cached for the variants)
        t_search = time.perf_counter() - t
        out = {"seq": k, "seed": sd, "f0/f": f0 / v.focal}
        for name in variants:
            kw = VARIANTS[name]
            t = time.perf_counter()
            m = JOSH.evaluate(_fit(profile, inp, focal_init=f0, **kw), v.ground_truth)
            dt = time.perf_counter() - t + (0.0 if kw.get("optimize_focal", True) is False else t_search)
            m["s_per_keyframe"] = dt / inp.n_frames
            out[name] = m
        rows.append(out)
    return rows


def _flat(rows, names, metrics=(("W-MPJPE", "w_mpjpe_mm"), ("FS", "foot_sliding_mm"))):
    return [{"seq": r["seq"], **{f"{n} {lab}": r[n][key] for n in names for lab, key in metrics}} for r in rows]


def _wilcoxon_less(a, b):
    from scipy.stats import wilcoxon

    d = np.asarray(a) - np.asarray(b)
    return float(wilcoxon(d, alternative="less").pvalue)


@check(method="josh", budget=900.0, slow=True, paper=PAPER,
       guarantee="J4: L_c2 reduces foot sliding: FS(full) < FS(without L_c2) in >= 9 of 10 sequences")
def stillness(profile, rng):
    rows = paired_rows()
    wins = sum(r["joint"]["foot_sliding_mm"] < r["no_c2"]["foot_sliding_mm"] for r in rows)
    return CheckResult(statistic=wins, threshold=9, comparison=">=", table=_flat(rows, ("joint", "no_c2")),
                       details="9/10 has probability 0.011 under 'no effect' (binomial(10, 1/2)). Paper: FS 68.2 -> "
                               "28.2 mm. Catches L_c2 comparing a vertex with a different vertex or frame.")


@check(method="josh", budget=900.0, slow=True, paper=PAPER,
       guarantee="J5: joint optimisation beats the sequential baseline on W-MPJPE (paired one-sided Wilcoxon over 10 "
                 "sequences, p < 0.05)")
def joint_vs_sequential(profile, rng):
    rows = paired_rows()
    p = _wilcoxon_less([r["joint"]["w_mpjpe_mm"] for r in rows], [r["sequential"]["w_mpjpe_mm"] for r in rows])
    return CheckResult(statistic=p, threshold=0.05, comparison="<", table=_flat(rows, ("joint", "sequential")),
                       details="Sequential: scene and cameras with L_scene only (scale gauge-fixed), then the human "
                               "and one global scale with cameras, per-frame scales and focal frozen. Paper: SynCHMR "
                               "1125 -> JOSH 438 mm.")


@check(method="josh", budget=900.0, slow=True, paper=PAPER,
       guarantee="J6: optimising the human helps: W-MPJPE lower than with the HMR fit frozen (paired one-sided "
                 "Wilcoxon over 10 sequences, p < 0.05)")
def human_optimisation_helps(profile, rng):
    rows = paired_rows()
    p = _wilcoxon_less([r["joint"]["w_mpjpe_mm"] for r in rows], [r["no_human_opt"]["w_mpjpe_mm"] for r in rows])
    return CheckResult(statistic=p, threshold=0.05, comparison="<", table=_flat(rows, ("joint", "no_human_opt")),
                       details="Paper: -opt Theta_c 486.4 -> 438.3 mm.")


# ---------------------------------------------------------------------------------------------------- J7
@check(method="josh", budget=70.0, slow=True, paper=PAPER,
       guarantee="J7: the shared focal is recovered from a +/-25% initialisation to within 5% after phase 2")
def focal_recovery(profile, rng, *, optimize_focal=True, focal_search=True):
    profile = _mini()
    seed = int(rng.integers(2 ** 31))
    v = _video(profile, seed)
    inp = _inputs(profile, v, seed)
    from iclr26sci.scene3d.josh import JOSH

    rows = []
    # the data's own answer: the minimum of the scene reprojection profile searched around the TRUE focal (the
    # same profile search, centred at f); a recovered focal can only be as close to f as this minimum is
    prof = _fit(profile, inp, focal_init=v.focal, n_iter=(0, 0))
    f_min = prof.focal / v.focal
    for k in (0.75, 1.25):
        res = _fit(profile, inp, focal_init=k * v.focal, optimize_focal=optimize_focal, focal_search=focal_search)
        rows.append({"seed": seed, "init / true": k, "final / true": res.focal / v.focal,
                     "profile minimum / true": f_min, "final / profile minimum": res.focal / prof.focal,
                     **{m: x for m, x in JOSH.evaluate(res, v.ground_truth).items() if m != "jitter"}})
    worst = max(abs(r["final / true"] - 1) for r in rows)
    return CheckResult(statistic=worst, threshold=0.05, comparison="<=", table=rows,
                       details="5% is the spec's bound. Catches the focal frozen (optimize_focal=False: error stays "
                               "25%), the released code's Adam on log f (focal_search=False; before the search the "
                               "quick miniature ended at 0.69 f and 0.87 f from 0.75 f and 1.25 f) or a depth that "
                               "does not follow the focal. 'profile minimum / true' is the minimum of the data's own "
                               "scene reprojection profile (the same search centred at the true focal): where it is "
                               "itself > 5% from f, the data, not the search, sets the error.")


# ---------------------------------------------------------------------------------------------------- J8
@check(method="josh", budget=6.0, paper=PAPER,
       guarantee="J8: gauge invariance: a random similarity transform of the world leaves WA-MPJPE and ATE unchanged "
                 "and a rigid one leaves W-MPJPE unchanged (relative change < 1e-4)")
def gauge_invariance(profile, rng, *, with_scale=True):
    import torch

    from iclr26sci.geom import so3_exp
    from iclr26sci.scene3d import josh as J

    seed = int(rng.integers(2 ** 31))
    v = _video(profile, seed)
    inp = _inputs(profile, v, seed)
    res = _fit(profile, inp, n_iter=(30, 20), focal_search=False)   # any estimate will do (no focal search: time)
    gt = v.ground_truth
    R = so3_exp(torch.as_tensor(rng.normal(size=3))).numpy()
    s, t = float(np.exp(rng.uniform(-1.5, 1.5))), rng.normal(size=3) * 5
    ref = {"wa": J.wa_mpjpe(res.world_humans["joints"], gt.joints), "ate": J.ate(res.cameras[:, :3, 3], gt.cam2w[:, :3, 3]),
           "w": J.w_mpjpe(res.world_humans["joints"], gt.joints)}
    simJ, simC = s * gt.joints @ R.T + t, s * gt.cam2w[:, :3, 3] @ R.T + t
    ate_fn = J.ate if with_scale else (lambda p, g: J.w_mpjpe(p[None], g[None], n_align=1))
    new = {"wa": J.wa_mpjpe(res.world_humans["joints"], simJ) / s, "ate": ate_fn(res.cameras[:, :3, 3], simC) / s,
           "w": J.w_mpjpe(res.world_humans["joints"], gt.joints @ R.T + t)}
    # the estimate moved by a similarity too
    estJ = s * res.world_humans["joints"] @ R.T + t
    new["wa_est"] = J.wa_mpjpe(estJ, gt.joints)
    ref["wa_est"] = ref["wa"]
    rel = {k: abs(new[k] - ref[k]) / max(ref[k], 1e-12) for k in ref}
    crit = [Criterion(f"relative change of {k}", rel[k], 1e-4, "<=") for k in ("wa", "ate", "w", "wa_est")]
    return CheckResult(criteria=crit, table=[{"scale": s, **{f"{k} before": ref[k] for k in ref},
                                              **{f"{k} after": new[k] for k in ref}}],
                       details="1e-4: well above float64 SVD round-off. Catches ATE or WA-MPJPE aligned rigidly "
                               "(no scale) or W-MPJPE aligned on one frame's translation only.")


# ---------------------------------------------------------------------------------------------------- J9
@check(method="josh", budget=2.0, paper=PAPER,
       guarantee="J9: the MST camera chain reproduces cam2w exactly from ground-truth relative poses")
def mst_chain(profile, rng, *, chain_poses=None):
    import torch

    from iclr26sci.geom import kinematic_chain, so3_exp
    from iclr26sci.scene3d import _josh_opt as O

    chain_poses = O.chain_poses if chain_poses is None else chain_poses
    worst, rows = 0.0, []
    for n in (2, 5, 12, 25):
        S = rng.uniform(0, 1, (n, n))
        S = np.triu(S, 1) + np.triu(S, 1).T
        root = int(rng.integers(n))
        ch = kinematic_chain(np.where(np.eye(n) > 0, 0.0, S.max() + 1 - S), root=root)
        R = so3_exp(torch.as_tensor(rng.normal(size=(n, 3)) * 2)).clone()
        t = torch.as_tensor(rng.normal(size=(n, 3)) * 3)
        rR, rt = O.relative_from_absolute(R, t, ch.parent)
        R2, t2 = chain_poses(rR, rt, ch.parent, ch.order.tolist())
        err = max(float((R2 - R).abs().max()), float((t2 - t).abs().max()))
        depth = ch.summary().split("depth ")[1].split(",")[0]
        rows.append({"cameras": n, "root": root, "tree depth": depth, "max error": err})
        worst = max(worst, err)
    return CheckResult(statistic=worst, threshold=1e-10, comparison="<=", table=rows,
                       details="1e-10: float64 error of products along a 25-deep chain. Catches composing "
                               "relative @ parent instead of parent @ relative.")


# ------------------------------------------------------------------------------------------ claims tier
# JOSH's headline mechanism as a claim: the human body (metric, from the HMR fit) and its contacts with the scene
# give the monocular scene and camera reconstruction its metric scale. The depth network's scale is arbitrary; the
# scene terms alone cannot see it (the released code gauge-fixes it, 1/min sigma), the contact-scale term L_c1 can.
# Arm "JOSH" is the joint optimisation; arm "-L_c1" the same optimisation without the contact-scale term (the paper's
# ablation row); the sequential baseline (scene alone, then the human and one post-hoc global scale with the contact
# terms) is reported beside them, not tested. The focal is fixed at the truth (J7 tests the focal) so that the scale
# is isolated and the fits fit the claims budget.
#: the depth network's unknown scale, alternating over the claim's sequences (inside the spec's [0.3, 3])
CLAIM_SCALES = (0.4, 2.5)
#: claim sequences at the claims profile
CLAIM_N_SEQ = 6


def _log_scale_error(res, gt):
    """|log| of the recovered metric depth over the true depth (geometric mean over the keyframes)."""
    return abs(float(np.mean(np.log(res.scale * gt.depth_scale))))


def _aligned_xz(res_joints, res_cams, gt):
    """Pelvis and camera centres of a fit in the ground-truth world (W-MPJPE's rigid alignment on the first two
    keyframes' joints), as top-down (x, z) coordinates."""
    from iclr26sci.scene3d import josh as J

    f = J._kabsch(res_joints[:2].reshape(-1, 3), gt.joints[:2].reshape(-1, 3), False)
    pel = f(res_joints[:, 0])
    cam = f(res_cams[:, :3, 3])
    return pel[:, [0, 2]], cam[:, [0, 2]]


def _claim_figure(traj):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(traj), figsize=(5.6 * len(traj), 6.2), squeeze=False)
    style = {"ground truth": ("k", "-", "o"), "JOSH": ("tab:blue", "-", "s"), "-L_c1": ("tab:red", "--", "^"),
             "sequential": ("tab:green", ":", "d")}
    for ax, (title, d) in zip(axes[0], traj):
        for name, (pel, cam) in d.items():
            c, ls, mk = style[name]
            ax.plot(pel[:, 0], pel[:, 1], color=c, ls=ls, marker=mk, ms=4, lw=1.8, label=f"{name}: pelvis")
            ax.plot(cam[:, 0], cam[:, 1], color=c, ls="none", marker=mk, ms=7, mfc="none", mew=1.4,
                    label=f"{name}: camera")
        ax.set_xlabel("world x (m)", fontsize=11)
        ax.set_ylabel("world z (m)", fontsize=11)
        ax.set_title(title, fontsize=11)
        ax.set_aspect("equal", adjustable="datalim")
        ax.tick_params(labelsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    fig.suptitle("JOSH claim: top-down trajectories (realistic noise), aligned on the first two keyframes",
                 fontsize=11)
    from validation._figstyle import readable
    readable(fig)
    return fig


def _claim_scale(profile, rng, variant=None, n_seq=None, n_iter=None, sequential=True, figure=True):
    """The scale-anchoring claim: per sequence, |log metric-scale error| of "-L_c1" minus that of "JOSH", with
    realistic inputs (the claim) and oracle inputs (the control); ``variant="no_contact"`` is the broken JOSH with
    both contact terms off (w_c1 = w_c2 = 0)."""
    from validation.claims import ClaimResult, paired_effect

    from iclr26sci.scene3d.josh import JOSH

    prof = _mini()
    n_seq = n_seq or profile.pick(CLAIM_N_SEQ, 10)
    kw_fit = dict(optimize_focal=False) if n_iter is None else dict(optimize_focal=False, n_iter=n_iter)
    joint_kw = {"w_c1": 0.0, "w_c2": 0.0} if variant == "no_contact" else {}
    arms = {"JOSH": joint_kw, "-L_c1": {"w_c1": 0.0}}
    rows, per, traj = [], {"realistic": [], "none": []}, []
    for k in range(n_seq):
        sd = int(rng.integers(2 ** 31))
        s = CLAIM_SCALES[k % len(CLAIM_SCALES)]
        v = _video(prof, sd, scene_scale=s)
        gt = v.ground_truth
        for noise in ("realistic", "none"):
            inp = _inputs(prof, v, sd, noise)
            run = dict(arms)
            if noise == "realistic" and sequential:
                run["sequential"] = {"strategy": "sequential"}
            out, fits = {}, {}
            for name, kw in run.items():
                res = _fit(prof, inp, focal_init=v.focal, **kw_fit, **kw)
                m = JOSH.evaluate(res, gt)
                out[name] = (_log_scale_error(res, gt), m["w_mpjpe_mm"], m["ate_mm"])
                fits[name] = res
            per[noise].append(out)
            row = {"seq": k, "inputs": "realistic (claim)" if noise == "realistic" else "oracle (control)",
                   "depth scale s": s}
            for name, (e, w, a) in out.items():
                row[f"{name} |log scale err|"] = round(e, 4)
                row[f"{name} W-MPJPE mm"] = round(w, 1)
                row[f"{name} ATE mm"] = round(a, 1)
            rows.append(row)
            if figure and noise == "realistic" and k < 2:
                d = {"ground truth": (gt.joints[:, 0][:, [0, 2]], gt.cam2w[:, :3, 3][:, [0, 2]])}
                for name, res in fits.items():
                    d[name] = _aligned_xz(res.world_humans["joints"], res.cameras, gt)
                traj.append((f"sequence {k}: depth scale s = {s:g}", d))
    what = "|log metric-scale error|, -L_c1 minus JOSH (log units; 0.22 = a 25% scale error)"
    ea = [[o["-L_c1"][0] for o in per[n]] for n in ("realistic", "none")]
    ej = [[o["JOSH"][0] for o in per[n]] for n in ("realistic", "none")]
    eff = paired_effect(ea[0], ej[0], np.log(1.25), what=what + ", realistic HMR / depth / match noise")
    ctrl = paired_effect(ea[1], ej[1], np.log(1.25), what=what + ", oracle inputs (exact HMR fit and contacts)")
    wr = np.log([o["-L_c1"][1] / o["JOSH"][1] for o in per["realistic"]])
    sec = {"W-MPJPE log ratio -L_c1 / JOSH (realistic)": (float(wr.mean()), float(wr.std(ddof=1) / np.sqrt(len(wr))))}
    if sequential:
        ws = np.array([o["sequential"][1] - o["JOSH"][1] for o in per["realistic"]])
        at = np.array([o["sequential"][2] - o["JOSH"][2] for o in per["realistic"]])
        sec["W-MPJPE sequential - JOSH, mm (realistic)"] = (float(ws.mean()), float(ws.std(ddof=1) / np.sqrt(len(ws))))
        sec["ATE sequential - JOSH, mm (realistic)"] = (float(at.mean()), float(at.std(ddof=1) / np.sqrt(len(at))))
    rows.append({"seq": "mean +/- SE", "inputs": "realistic (claim)",
                 **{k_: f"{m_:.3g} +/- {se_:.2g}" for k_, (m_, se_) in sec.items()}})
    fig = _claim_figure(traj) if traj else None
    return ClaimResult(effect=eff, control=ctrl, table=rows, figure=fig, extra={"secondary": sec},
                       details=f"{n_seq} sequences of the quick miniature (8 keyframes, 64x48, 60 matches per pair, "
                               f"150 + 100 iterations), depth-network scale s alternating {CLAIM_SCALES}, focal fixed at "
                               "the truth; per sequence the same video and inputs for both arms. Effect: the paired "
                               "difference of |log(recovered metric depth / true depth)| (geometric mean over the "
                               "keyframes); min effect log 1.25 (removing a 25% scale error). Secondary (reported, not "
                               "tested): W-MPJPE log ratio -L_c1 / JOSH (paper: log(1361.4/438.3) = 1.13) and the "
                               "sequential baseline (scene alone, then the human with one post-hoc global scale from the "
                               "same contact terms), which also recovers the scale. Catches JOSH with its contact terms "
                               "off (w_c1 = w_c2 = 0: effect 0, control fails; tests/validation/test_josh_claims.py).")


from validation.claims import claim as _claim  # noqa: E402


@_claim(method="josh", name="contact_anchors_metric_scale", paper=PAPER + " (ablation table, SLOPER4D)", budget=180,
        claim="Joint optimisation with the human's scene contacts recovers the metric scale of the monocular scene "
              "and camera reconstruction, which the scene alone leaves at the depth network's arbitrary scale",
        paper_setting="SLOPER4D, VIMO / MASt3R initialisation; ablation -L_c1 (no contact-scale term) against full JOSH",
        paper_number="-L_c1 -> JOSH: W-MPJPE 1361.4 -> 438.3 mm (log ratio 1.13), ATE 22.47 -> 3.21, foot-floating "
                     "rate 92.9% -> 2.9%",
        regime="The observed depth carries an unknown scale (s = 0.4 or 2.5) that no scene term can observe (the "
               "scene losses are invariant to a global scale; the code gauge-fixes it), while the HMR body is metric "
               "and its labelled sole vertices touch the scene, so L_c1 can act on the per-frame scales.",
        control="Oracle inputs (noise='none': exact HMR fit, contact labels, depth and matches) at the same scales: "
                "the contact term then has a perfect metric anchor; same arms and test",
        test="one-sided paired t over sequences, alpha 0.05; power for log 1.25")
def contact_anchors_metric_scale(profile, rng, variant=None):
    return _claim_scale(profile, rng, variant=variant)
