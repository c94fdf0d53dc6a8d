"""Validation checks of iclr26sci.opticalflow (DCFlow, arXiv:2509.24423), checks D1-D7 of the spec.

D4-D7 train networks; they are ``slow`` (full profile, or named explicitly with ``--only``): at the
CPU budget of the quick profile the flow networks do not learn to match (see docs/opticalflow.md), and
training them on first use would overrun the library's quick-profile budget.

Each check takes ``variant=`` (the registry calls it without): a named deliberate defect substituted into
the component it tests, so tests/opticalflow/test_dcflow_validation.py can show that the check fails on
it. The broken variant each check catches is named in its ``details``.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ._figstyle import readable, subplots
from .registry import CheckResult, Criterion, check

PAPER = ("Zhang et al., 'Rethinking Unsupervised Cross-modal Flow Estimation: Learning from Decoupled "
         "Optimization and Consistency Constraint' (DCFlow), ICLR 2026, arXiv:2509.24423")


# ---------------------------------------------------------------------------------------------- helpers
def _pix(H, W):
    jj, ii = np.meshgrid(np.arange(W, dtype=np.float64) + 0.5, np.arange(H, dtype=np.float64) + 0.5)
    return np.stack([jj, ii, np.ones_like(jj)], -1)


def _homog_apply(Hm, p):
    q = p @ Hm.T
    return q[..., :2] / q[..., 2:3]


def _random_rotation(rng, max_deg):
    from scipy.spatial.transform import Rotation

    return Rotation.from_euler("xyz", rng.uniform(-max_deg, max_deg, 3), degrees=True).as_matrix()


def _random_K(rng, W, H):
    f = rng.uniform(0.7, 1.3) * W
    return np.array([[f, 0, W / 2 + rng.uniform(-2, 2)], [0, f * rng.uniform(0.95, 1.05), H / 2 + rng.uniform(-2, 2)],
                     [0, 0, 1.0]])


@contextlib.contextmanager
def _patched(variant):
    """Substitute a named defect into the synthesis for the duration of a check."""
    import iclr26sci.geom as geom
    import iclr26sci.opticalflow._geometry as G

    saved = {}
    if variant == "zbuffer_far":               # the z-buffer keeps the FARTHEST source
        orig = geom.forward_splat

        def far(values, flow, depth):
            out, mask, tdep = orig(values, flow, 1.0 / depth)
            return out, mask, 1.0 / tdep
        saved["splat"] = orig
        geom.forward_splat = far
    elif variant in ("t_before_R", "flow_sign", "no_unproject_depth", "divide_by_source_depth"):
        orig_flow = G.geometric_flow

        def broken(depth, K, R, t, *, return_depth=False):
            d = np.asarray(depth, float)
            H, W = d.shape
            p = _pix(H, W)
            X = d[..., None] * (p @ np.linalg.inv(np.asarray(K, float)).T)
            if variant == "t_before_R":
                Xn = (X + np.asarray(t, float)) @ np.asarray(R, float).T
            elif variant == "no_unproject_depth":   # forgets D: X = K^-1 u (unit depth)
                Xn = (p @ np.linalg.inv(np.asarray(K, float)).T) @ np.asarray(R, float).T + np.asarray(t, float)
            else:
                Xn = X @ np.asarray(R, float).T + np.asarray(t, float)
            uv = (Xn @ np.asarray(K, float).T)
            if variant == "divide_by_source_depth":     # perspective division by the source depth
                f = uv[..., :2] / d[..., None] - p[..., :2]
            else:
                f = uv[..., :2] / uv[..., 2:3] - p[..., :2]
            if variant == "flow_sign":
                f = -f
            return (f, Xn[..., 2]) if return_depth else f
        saved["flow"] = orig_flow
        G.geometric_flow = broken
    try:
        yield
    finally:
        if "splat" in saved:
            geom.forward_splat = saved["splat"]
        if "flow" in saved:
            G.geometric_flow = saved["flow"]


# ---------------------------------------------------------------------------------------------- D1
@check(method="opticalflow", paper=PAPER, budget=4,
       guarantee="Geometry-aware synthesis is exact: on a planar scene F_S equals the independent homography "
                 "flow K(R + t n^T/d)K^-1 u - u, the splatted view equals the analytic texture warped by the "
                 "homography up to the nearest-pixel rounding bound, backward-warping I' by F_S reproduces I "
                 "on the mask up to the interpolation bound, and on a scene with an occluding box the "
                 "visibility mask equals the analytic occlusion")
def d1_synthesis_correctness(profile, rng, variant=None):
    from iclr26sci.geom import backward_warp
    from iclr26sci.opticalflow import synthesize_view
    import iclr26sci.opticalflow._geometry as G
    import torch

    n_cases = profile.pick(4, 20)
    H, W = 48, 64
    flow_err, splat_ratio, warp_ratio, occ_wrong = 0.0, 0.0, 0.0, 0.0
    rows = []
    with _patched(variant):
        for c in range(n_cases):
            K = _random_K(rng, W, H)
            R = _random_rotation(rng, 4.0)
            t = rng.uniform(-0.08, 0.08, 3)
            nrm = np.array([rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), -1.0])
            nrm /= np.linalg.norm(nrm)
            d0 = -1.0                                  # plane n^T X = d0 at about unit depth
            p = _pix(H, W)
            rays = p @ np.linalg.inv(K).T
            depth = d0 / (rays @ nrm)
            # analytic texture g with Lipschitz constant L (per pixel)
            om = rng.normal(size=(3, 2))
            om = 0.12 * om / np.linalg.norm(om, axis=1, keepdims=True)
            ph = rng.uniform(0, 2 * np.pi, 3)
            amp = np.array([0.12, 0.1, 0.08])
            L = float((amp * np.linalg.norm(om, axis=1)).sum())

            def g(uv):
                return 0.5 + sum(a * np.sin(uv @ o + q) for a, o, q in zip(amp, om, ph))
            img = g(p[..., :2] - 0.5)       # pixel index coordinates u - 0.5
            Hm = K @ (R + np.outer(t, nrm) / d0) @ np.linalg.inv(K)
            s = synthesize_view(img, depth, K, R, t, photometric_eps=None, fill_holes=False)
            F_h = _homog_apply(Hm, p) - p[..., :2]
            fS = G.geometric_flow(depth, K, R, t)
            flow_err = max(flow_err, float(np.abs(fS - F_h).max()))
            # splatted view vs the analytic warp on filled target pixels; rounding moves <= 0.5 px per axis
            Hi = np.linalg.inv(Hm)
            src = _homog_apply(Hi, p)
            filled = s.new_view != 0
            ref = g(src - 0.5)
            # local Lipschitz of H^-1 (finite differences), the bound L * 0.5 * sqrt(2) * ||J||
            J = max(np.abs(_homog_apply(Hi, p + [1, 0, 0]) - src).sum(-1).max(),
                    np.abs(_homog_apply(Hi, p + [0, 1, 0]) - src).sum(-1).max())
            b_splat = L * 0.5 * np.sqrt(2) * J * 1.05 + 1e-9
            e_splat = float(np.abs(s.new_view - ref)[filled].max())
            splat_ratio = max(splat_ratio, e_splat / b_splat)
            # backward warp by F_S on the mask: neighbours within 1.5 px (inf-norm) of the true target
            v = torch.as_tensor(s.new_view[None, None])
            f = torch.as_tensor(s.flow.transpose(2, 0, 1)[None].copy())
            back = backward_warp(v, f)[0][0, 0].numpy()
            b_warp = L * 1.5 * np.sqrt(2) * J * 1.05 + 1e-9
            e_warp = float(np.abs(back - img)[s.mask].max()) if s.mask.any() else np.inf
            warp_ratio = max(warp_ratio, e_warp / b_warp)
            # occlusion scene: background plane at z_b, a fronto-parallel box face at z_f, lateral motion
            z_b, z_f = 2.0, 1.0
            dep = np.full((H, W), z_b)
            r0, c0 = int(rng.integers(12, 20)), int(rng.integers(20, 30))
            dep[r0:r0 + 16, c0:c0 + 16] = z_f
            Kf = np.array([[W * 1.0, 0, W / 2], [0, W * 1.0, H / 2], [0, 0, 1.0]])
            tx = rng.choice([-1, 1]) * rng.uniform(0.06, 0.1)
            so = synthesize_view(img, dep, Kf, np.eye(3), [tx, 0.0, 0.0], photometric_eps=None)
            sh_f, sh_b = Kf[0, 0] * tx / z_f, Kf[0, 0] * tx / z_b
            xb = np.arange(W)[None, :] + sh_b + 0.0 * dep
            yb = np.arange(H)[:, None] + 0.0 * dep
            box_x0, box_x1 = c0 + sh_f, c0 + 15 + sh_f
            occluded = (dep == z_b) & (xb >= box_x0 - 0.5) & (xb <= box_x1 + 0.5) & (yb >= r0 - 0.5) & (yb <= r0 + 15.5)
            far_band = (np.abs(xb - box_x0) > 2) & (np.abs(xb - box_x1) > 2) & (np.abs(yb - r0 + 0.5) > 2) & \
                (np.abs(yb - r0 - 15.5) > 2)
            # ... and away from the box's edges in the source (the disocclusion holes open there)
            far_band &= (np.abs(np.arange(W)[None, :] - c0 + 0.5) > 2) & (np.abs(np.arange(W)[None, :] - c0 - 15.5) > 2)
            # target pixels that some background source lands on: [first, last]; the footprint must be inside
            first, last = np.floor(sh_b + 0.5), np.floor(W - 1 + sh_b + 0.5)
            inb = (np.floor(xb) >= max(first, 0)) & (np.floor(xb) + 1 <= min(last, W - 1))
            sel = (dep == z_b) & far_band & inb
            wrong = float((so.mask[sel] == occluded[sel]).mean())   # visible must equal not-occluded
            fg = (dep == z_f) & (np.arange(W)[None, :] + sh_f >= 1) & (np.arange(W)[None, :] + sh_f <= W - 2)
            fg &= (np.abs(np.arange(W)[None, :] - c0) > 1) & (np.abs(np.arange(W)[None, :] - c0 - 15) > 1)
            fg &= (np.abs(np.arange(H)[:, None] - r0) > 1) & (np.abs(np.arange(H)[:, None] - r0 - 15) > 1)
            wrong = max(wrong, float((~so.mask[fg]).mean()) if fg.any() else 0.0)
            occ_wrong = max(occ_wrong, wrong)
            rows.append({"case": c, "flow_err_px": float(np.abs(fS - F_h).max()), "splat_err": e_splat,
                         "splat_bound": b_splat, "warp_err": e_warp, "warp_bound": b_warp,
                         "occlusion_mislabelled": wrong, "valid_fraction": float(s.mask.mean())})
    crit = [Criterion("max |F_S - homography flow| (px)", flow_err, 1e-6, "<="),
            Criterion("splat error / rounding bound", splat_ratio, 1.0, "<="),
            Criterion("backward-warp error on M / interpolation bound", warp_ratio, 1.0, "<="),
            Criterion("fraction of visibility labels wrong (away from edges)", occ_wrong, 0.0, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details="Bounds: the texture g has Lipschitz constant L; a splatted pixel holds g at a source "
                               "within 0.5*sqrt(2)*|J_{H^-1}| px of the true one, and a bilinear sample of I' mixes "
                               "pixels within 1.5*sqrt(2)*|J| px, so the errors are at most L times those distances "
                               "(5% slack for the finite-difference J). The spec's 2e-3 assumes bilinear error only; "
                               "nearest-pixel z-buffer splatting adds the rounding term, hence the derived bound. "
                               "Broken variants caught: t applied before R, flow sign, unit depth, far-wins z-buffer.")


# ---------------------------------------------------------------------------------------------- D2
@check(method="opticalflow", paper=PAPER, budget=2,
       guarantee="Identity motion gives zero flow for any depth; a pure rotation gives the homography flow "
                 "K R K^-1 u - u, independent of the depth map")
def d2_geometry_identities(profile, rng, variant=None):
    import iclr26sci.opticalflow._geometry as G
    from iclr26sci.opticalflow import random_smooth_depth

    n_cases = profile.pick(30, 200)
    H, W = 24, 32
    ident, dep_dep, homog = 0.0, 0.0, 0.0
    with _patched(variant):
        for _ in range(n_cases):
            K = _random_K(rng, W, H)
            D1 = random_smooth_depth(H, W, rng, base=rng.uniform(0.5, 5))
            D2 = random_smooth_depth(H, W, rng, base=rng.uniform(0.5, 5)) * rng.uniform(0.3, 3)
            ident = max(ident, float(np.abs(G.geometric_flow(D1, K, np.eye(3), np.zeros(3))).max()))
            R = _random_rotation(rng, 8.0)
            f1 = G.geometric_flow(D1, K, R, np.zeros(3))
            f2 = G.geometric_flow(D2, K, R, np.zeros(3))
            dep_dep = max(dep_dep, float(np.abs(f1 - f2).max()))
            p = _pix(H, W)
            homog = max(homog, float(np.abs(f1 - (_homog_apply(K @ R @ np.linalg.inv(K), p) - p[..., :2])).max()))
    crit = [Criterion("max |F_S| at identity motion (px)", ident, 1e-9, "<="),
            Criterion("max |F_S(D1) - F_S(D2)| under pure rotation (px)", dep_dep, 1e-4, "<="),
            Criterion("max |F_S - (K R K^-1 u - u)| under pure rotation (px)", homog, 1e-6, "<=")]
    return CheckResult(criteria=crit, table=[{"cases": n_cases, "identity": ident, "depth_dependence": dep_dep,
                                              "homography": homog}],
                       details="Exact identities in float64 (tolerances are float rounding: 1e-9 and 1e-6 px; "
                               "1e-4 px is the spec's). Broken variants caught: flow sign and perspective division "
                               "by the source depth (homography criterion); unit depth and t applied before R do "
                               "not change a pure rotation (D1 catches them).")


# ---------------------------------------------------------------------------------------------- D3
@check(method="opticalflow", paper=PAPER, budget=2,
       guarantee="The affine consistency target F~*(y) = H_A(x + F(x)) - y, x = H_B^-1 y, equals the true "
                 "flow of the affinely warped pair: exactly for an affine F, and up to the bilinear "
                 "interpolation bound for a smooth nonlinear F")
def d3_affine_composition(profile, rng, variant=None):
    from iclr26sci.opticalflow import compose_affine_flow, random_affine

    n_cases = profile.pick(10, 60)
    H, W = 40, 48
    p = _pix(H, W)[..., :2]
    err_aff, ratio_smooth = 0.0, 0.0
    rows = []
    for c in range(n_cases):
        HA = random_affine(rng, center=(W / 2, H / 2))
        HB = random_affine(rng, center=(W / 2, H / 2))
        # (a) affine F(x) = A x + b - x
        A = np.eye(2) + rng.normal(scale=0.05, size=(2, 2))
        b = rng.uniform(-4, 4, 2)
        F = p @ A.T + b - p
        # (b) smooth F(x) = a sin(w.x + phase): second derivative <= a |w|^2
        w = rng.normal(size=(2, 2)) * 0.08
        a = rng.uniform(1, 3, 2)
        ph = rng.uniform(0, 2 * np.pi, 2)

        def fsm(x):
            return np.stack([a[k] * np.sin(x @ w[k] + ph[k]) for k in range(2)], -1)
        Fs = fsm(p)
        for kind, field in (("affine", F), ("smooth", Fs)):
            Ma, Mb = HA, HB
            if variant == "inverse_HA":
                Ma = np.linalg.inv(HA)
            got, mask = compose_affine_flow(field, Ma, Mb)
            if variant == "sample_at_y":        # forgets x = H_B^-1 y: reads F at y
                q = p @ np.linalg.inv(HB)[:2, :2].T + np.linalg.inv(HB)[:2, 2]
                got = (q + field) @ HA[:2, :2].T + HA[:2, 2] - p
            # independent ground truth: evaluate the analytic field at x = H_B^-1 y
            x = p @ np.linalg.inv(HB)[:2, :2].T + np.linalg.inv(HB)[:2, 2]
            Fx = (x @ A.T + b - x) if kind == "affine" else fsm(x)
            true = (x + Fx) @ HA[:2, :2].T + HA[:2, 2] - p
            e = np.abs(got - true).max(-1)[mask].max()
            if kind == "affine":
                err_aff = max(err_aff, float(e))
            else:
                # bilinear error of a C2 field: <= (1/8)(h_x^2 |f_xx| + h_y^2 |f_yy|) + cross term, h = 1 px,
                # mapped through H_A (spectral norm)
                curv = float(np.max(a * (np.abs(w) ** 2).sum(1) + a * np.abs(w[:, 0] * w[:, 1])))
                bound = np.linalg.norm(HA[:2, :2], 2) * (curv / 8 + curv / 4) * 1.01 + 1e-9
                ratio_smooth = max(ratio_smooth, float(e) / bound)
            rows.append({"case": c, "field": kind, "max_err_px": float(e), "masked_fraction": float(mask.mean())})
    crit = [Criterion("max error, affine F (px)", err_aff, 1e-3, "<="),
            Criterion("max error / bilinear bound, smooth F", ratio_smooth, 1.0, "<=")]
    return CheckResult(criteria=crit, table=rows[:12],
                       details="Ground truth is the analytic field evaluated at H_B^-1 y (independent of the "
                               "gridded flow and of compose_affine_flow's sampling). Affine fields are reproduced "
                               "exactly by bilinear interpolation (1e-3 px is the spec's tolerance); for "
                               "a sin field the bilinear error is bounded by the second derivatives. Broken variants "
                               "caught: H_A^-1 instead of H_A, F sampled at y instead of H_B^-1 y.")


# ---------------------------------------------------------------------------------------------- trained models
#: training recipe of the cached DCFlow-mini models (quick profile); [recon] sizes for 2 CPU cores
#: (48-px crops: at 32 px the tiny PWC's coarsest level is 4x4 and nothing trains; one-cycle schedule with a
#: peak lr of 2e-3; camera translation 0.1 median depth keeps the synthetic flows at the motorcycle pair's scale)
RECIPE = dict(n_pairs=512, size=48, steps=600, lr=2e-3, lr_schedule="onecycle", batch_size=8, max_translation=0.1,
              modality="thermal_like", translator_warmup=0.3)
EVAL_WIDTH = 96
#: the longer tiny-PWC recipe of session 3 (RECIPE with 3x the steps; scripts/opticalflow_long_recipe.py trains it)
LONG_STEPS = 1800


def _bundle(arch):
    import torch

    from iclr26sci.opticalflow import FlowNet, TinyUNet

    return torch.nn.ModuleDict({"net": FlowNet(arch), "tr": TinyUNet()})


def _motorcycle_training_pairs(n, size, seed):
    """Cross-modal pairs cut from the Middlebury left view (width 256) with its oracle depth (1/disparity)."""
    from iclr26sci.opticalflow import crossmodal_pairs, motorcycle_pair

    mp = motorcycle_pair(None, width=256)
    return crossmodal_pairs(mp.image_b_rgb[None], RECIPE["modality"], n, size=size, depth=mp.depth_b[None], rng=seed)


def trained_model(variant, arch="pwc_tiny", seed=0, steps=None, source="images"):
    """A DCFlow-mini model (DCFlow with its trained nets) from the user cache, trained once.

    ``variant``: "appearance" (NeMAR-mini), "decoupled" (tau=0, no consistency), "robust" (tau=0.1, no
    consistency), "full" (tau=0.1 + consistency), "full_oracle_depth" / "full_random_depth" (trained on
    Middlebury-left crops with oracle or crude depth).
    """
    from iclr26sci.nn import cached_model
    from iclr26sci.opticalflow import DCFlow, crossmodal_pairs

    if steps is None:   # RAFT-small is ~3x costlier per step on CPU: half the steps, both arms alike
        steps = RECIPE["steps"] if arch == "pwc_tiny" else RECIPE["steps"] // 2
    kw = {"appearance": dict(objective="appearance", consistency=False),
          "decoupled": dict(trim=0.0, consistency=False), "robust": dict(trim=0.1, consistency=False),
          "full": dict(trim=0.1, consistency=True),
          "full_oracle_depth": dict(trim=0.1, consistency=True, depth="pairs"),
          "full_random_depth": dict(trim=0.1, consistency=True, depth="random")}[variant]
    if variant.startswith("full_"):
        source = "motorcycle_left"
    settings = {**RECIPE, "steps": steps, "variant": variant, "arch": arch, "source": source, "v": 3}
    if variant != "appearance":
        settings["synthesis"] = "holes-filled"

    def make():
        tw = RECIPE["translator_warmup"] if variant != "appearance" else 0.0
        return DCFlow(net=arch, rng=seed, lr=RECIPE["lr"], lr_schedule=RECIPE["lr_schedule"],
                      batch_size=RECIPE["batch_size"], max_translation=RECIPE["max_translation"],
                      translator_warmup=tw, **kw)

    def build():
        import torch

        if source == "images":
            pairs = crossmodal_pairs("images", RECIPE["modality"], RECIPE["n_pairs"], size=RECIPE["size"], rng=seed)
        else:
            pairs = _motorcycle_training_pairs(RECIPE["n_pairs"], RECIPE["size"], seed)
        torch.set_num_threads(1)
        m = make().fit(pairs, steps=steps)
        b = torch.nn.ModuleDict({"net": m.net_, "tr": m.translator_})
        return b, {"fit_seconds": m.fit_seconds_, **{k: float(np.mean(v[-50:])) for k, v in m.history_.items() if v}}

    bundle, meta = cached_model(f"dcflow-{variant}-{arch}", settings, seed, build, lambda: _bundle(arch))
    m = make()
    m.net_, m.translator_ = bundle["net"], bundle["tr"]
    m.n_steps_, m.fit_seconds_ = steps, float(meta.get("metrics", {}).get("fit_seconds", float("nan")))
    m.history_ = {}
    return m, meta


def _eval_motorcycle(predict, modality="thermal_like", width=EVAL_WIDTH):
    from iclr26sci.opticalflow import flow_metrics, motorcycle_pair

    mp = motorcycle_pair(modality, width=width)
    return flow_metrics(predict(mp.image_a, mp.image_b), mp.flow, mp.mask)


# ---------------------------------------------------------------------------------------------- D4
#: supervised recipe of D4 (the one that trains at this size: 48 px, one-cycle lr 2e-3, batch 8)
D4_RECIPE = dict(size=48, batch=8, lr=2e-3, max_translation=0.1, steps=600)


def _d4_train(p, trim, seed, steps):
    """Supervised tiny PWC on synthetic B-modality triplets whose labels are corrupted on a fraction p."""
    import torch

    from iclr26sci.nn import cached_model
    from iclr26sci.opticalflow import DCFlow, FlowNet, crossmodal_pairs, trimmed_l1

    size = D4_RECIPE["size"]
    settings = {"p": p, "trim": trim, "steps": steps, **D4_RECIPE, "v": 3}

    def build():
        torch.manual_seed(seed)
        torch.set_num_threads(1)
        net = FlowNet("pwc_tiny")
        opt = torch.optim.Adam(net.parameters(), lr=D4_RECIPE["lr"])
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, D4_RECIPE["lr"], total_steps=steps, pct_start=0.05,
                                                    cycle_momentum=False)
        pairs = crossmodal_pairs("images", "thermal_like", 256, size=size, rng=seed)
        synth = DCFlow(max_translation=D4_RECIPE["max_translation"])
        g = np.random.default_rng(seed)
        for _ in range(steps):
            idx = g.integers(0, len(pairs), D4_RECIPE["batch"])
            imgs = np.repeat(pairs.image_b[idx][..., None], 3, -1)
            new, f, mk = synth._synth_batch(imgs, None, g)
            corrupt = mk & (g.random(mk.shape) < p)
            f = f + corrupt[..., None] * g.uniform(-20, 20, f.shape)
            I = torch.as_tensor(imgs.transpose(0, 3, 1, 2).astype(np.float32))
            In = torch.as_tensor(new.transpose(0, 3, 1, 2).astype(np.float32))
            loss = trimmed_l1(net(In, I), torch.as_tensor(f.transpose(0, 3, 1, 2).astype(np.float32)),
                              torch.as_tensor(mk), trim)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        return net, {}

    net, _ = cached_model("dcflow-d4-pwc", settings, seed, build, lambda: FlowNet("pwc_tiny"))
    return net


def _d4_clean_epe(net, seed, n=48):
    import torch

    from iclr26sci.opticalflow import DCFlow, crossmodal_pairs

    pairs = crossmodal_pairs("images", "thermal_like", n, size=D4_RECIPE["size"], rng=10_000 + seed)
    g = np.random.default_rng(20_000 + seed)
    imgs = np.repeat(pairs.image_b[..., None], 3, -1)
    new, f, mk = DCFlow(max_translation=D4_RECIPE["max_translation"])._synth_batch(imgs, None, g)
    with torch.no_grad():
        out = net(torch.as_tensor(new.transpose(0, 3, 1, 2).astype(np.float32)),
                  torch.as_tensor(imgs.transpose(0, 3, 1, 2).astype(np.float32))).numpy().transpose(0, 2, 3, 1)
    e = np.linalg.norm(out - f, axis=-1)
    return float(e[mk].mean()), e, mk


#: training seeds of D4: each seed is an independent replicate (training data, initialisation, label noise and
#: clean test set all drawn from it); the test is paired across seeds (both arms of a seed share all of them)
D4_SEEDS = (0, 1, 2)


def _lower_bound(d, level=0.95):
    """One-sided ``level`` lower confidence bound of the mean of ``d`` (Student t over the replicates)."""
    from scipy import stats

    d = np.asarray(d, float)
    if d.size < 2:
        return float("-inf")
    se = float(d.std(ddof=1) / np.sqrt(d.size))
    return float(d.mean() - stats.t.ppf(level, d.size - 1) * se)


@check(method="opticalflow", paper=PAPER, budget=240, slow=True,
       guarantee="Under label corruption on a fraction p of the pixels (uniform +-20 px), a flow net trained "
                 "with the trimmed L1 (tau = p) has lower clean-test EPE than one trained with the plain L1 "
                 "(tau = 0), for p in {5, 10, 20}%, and the plain L1's EPE grows with p")
def d4_trimmed_loss(profile, rng, variant=None, train_seeds=D4_SEEDS):
    steps = D4_RECIPE["steps"]
    ps = (0.05, 0.10, 0.20)
    rows, crit = [], []
    plain = np.zeros((len(ps), len(train_seeds)))
    for a, p in enumerate(ps):
        trim = 0.0 if variant == "no_trim" else p
        diffs = []
        for b, s in enumerate(train_seeds):
            e_t = _d4_clean_epe(_d4_train(p, trim, s, steps), s)[0]
            e_p = _d4_clean_epe(_d4_train(p, 0.0, s, steps), s)[0]
            plain[a, b] = e_p
            diffs.append(e_p - e_t)
            rows.append({"p": p, "train_seed": s, "epe_trimmed": e_t, "epe_plain": e_p, "plain_minus_trimmed": e_p - e_t})
        lo = _lower_bound(diffs)
        crit.append(Criterion(f"p={p:.0%}: EPE(plain) - EPE(trimmed), 95% lower bound over {len(train_seeds)} "
                              "training seeds (px)", lo, 0.0, ">"))
    steps_up = plain[1:] - plain[:-1]                   # (len(ps) - 1, seeds): paired by training seed
    mono = min(_lower_bound(row) for row in steps_up)
    crit.append(Criterion("min over successive p of the 95% lower bound of the plain-L1 EPE increase (px)", mono, 0.0, ">"))
    return CheckResult(criteria=crit, table=rows,
                       details=f"Tiny PWC trained {steps} steps (batch 8, 48 px, one-cycle lr 2e-3) on synthetic "
                               "thermal-like triplets with corrupted labels; EPE on 48 clean held-out triplets. "
                               f"Training seeds {list(train_seeds)} are independent replicates; each criterion is a "
                               "one-sided paired t lower bound over them (all the Monte-Carlo noise: training, "
                               "label noise and test set; the master seed plays no part), so a gap of the size of "
                               "training noise does not pass. Trained nets are cached. Broken variant caught: no "
                               "trimming (tau = 0 in both arms: gap 0 at every seed).")


# ---------------------------------------------------------------------------------------------- D5
@check(method="opticalflow", paper=PAPER, budget=30, slow=True,
       guarantee="On the real Middlebury motorcycle pair with a synthetic thermal-like shift, DCFlow-mini has "
                 "lower EPE than the appearance-only baseline (NeMAR-mini) and than Farneback and DIS on the raw "
                 "cross-modal pair, and each added component (decoupling, trimmed loss, consistency) lowers EPE")
def d5_decoupled_beats_appearance(profile, rng, variant=None, pwc_steps=None):
    """``pwc_steps``: train steps of the four models (default ``RECIPE["steps"]``; ``LONG_STEPS`` is the longer
    recipe measured in docs/opticalflow.md, run by name, not by the registry)."""
    from iclr26sci.opticalflow import classical_flow

    res = {}
    steps = pwc_steps                # None: the cached RECIPE at both profiles (CPU budget)
    for v in ("appearance", "decoupled", "robust", "full"):
        m, _ = trained_model(v, steps=steps)
        res[v] = _eval_motorcycle(m.predict)
    if variant == "appearance_as_dcflow":
        res["full"] = res["appearance"]
    for meth in ("farneback", "dis", "zero"):
        res[meth] = _eval_motorcycle(lambda a, b, meth=meth: classical_flow(a, b, meth))
    rows = [{"method": k, "EPE": v["epe"], "F1": v["f1"]} for k, v in res.items()]
    full = res["full"]["epe"]
    crit = [Criterion("EPE(appearance-only) - EPE(DCFlow) (px)", res["appearance"]["epe"] - full, 0.0, ">"),
            Criterion("EPE(Farneback) - EPE(DCFlow) (px)", res["farneback"]["epe"] - full, 0.0, ">"),
            Criterion("EPE(DIS) - EPE(DCFlow) (px)", res["dis"]["epe"] - full, 0.0, ">"),
            Criterion("EPE(appearance) - EPE(decoupled) (px)", res["appearance"]["epe"] - res["decoupled"]["epe"], 0.0, ">"),
            Criterion("EPE(decoupled) - EPE(+trimmed) (px)", res["decoupled"]["epe"] - res["robust"]["epe"], 0.0, ">"),
            Criterion("EPE(+trimmed) - EPE(+consistency) (px)", res["robust"]["epe"] - full, 0.0, ">")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"Models trained once ({steps or RECIPE['steps']} steps, {RECIPE['size']} px crops of the "
                               "scikit-image/scikit-learn textures, crude random depth; cached, seed 0) and "
                               f"evaluated on the {EVAL_WIDTH}-px motorcycle pair (8k pixels with GT disparity). "
                               "Paper ablation (MS2 RGB-T): 21.23 -> 5.80 -> 4.81 -> 3.46. Broken variant caught: "
                               "the appearance-only model reported as DCFlow.")


# ---------------------------------------------------------------------------------------------- D6
@check(method="opticalflow", paper=PAPER, budget=20, slow=True,
       guarantee="Depth robustness: DCFlow-mini trained with synthesis from oracle depth (1/disparity) and from "
                 "a crude random smooth depth reach Middlebury EPEs within 15% of each other")
def d6_depth_robustness(profile, rng, variant=None):
    steps = None                     # the cached RECIPE at both profiles (CPU budget)
    mo, _ = trained_model("full_oracle_depth", steps=steps)
    mr, _ = trained_model("full_random_depth", steps=steps)
    eo, er = _eval_motorcycle(mo.predict)["epe"], _eval_motorcycle(mr.predict)["epe"]
    if variant == "appearance_for_crude":
        er = _eval_motorcycle(trained_model("appearance", steps=steps)[0].predict)["epe"]
    rel = abs(er - eo) / eo
    return CheckResult(criteria=[Criterion("|EPE(crude) - EPE(oracle)| / EPE(oracle)", rel, 0.15, "<")],
                       table=[{"depth": "oracle (1/disparity)", "EPE": eo}, {"depth": "random smooth field", "EPE": er}],
                       details="Both trained on crops of the Middlebury left view (transductive, unsupervised: the "
                               "flow labels come from synthesis only), same recipe and seed, cached. 15% is the "
                               "spec's tolerance. Broken variant caught: a model trained without geometric "
                               "supervision (appearance-only) in place of the crude-depth one.")


# ---------------------------------------------------------------------------------------------- D7
@check(method="opticalflow", paper=PAPER, budget=30, slow=True,
       guarantee="Network agnosticism: with the tiny PWC and with RAFT-small, DCFlow-mini improves the Middlebury "
                 "EPE over the appearance-only baseline using the same network")
def d7_network_agnostic(profile, rng, variant=None):
    rows, crit = [], []
    for arch in ("pwc_tiny", "raft_small"):
        steps = None                 # the cached RECIPE (RAFT-small: half the steps) at both profiles
        ea = _eval_motorcycle(trained_model("appearance", arch, steps=steps)[0].predict)["epe"]
        m, _ = trained_model("full", arch, steps=steps)
        ed = _eval_motorcycle(m.predict)["epe"] if variant != "no_training" else ea
        rows.append({"net": m.net_.arch, "EPE appearance-only": ea, "EPE DCFlow": ed})
        crit.append(Criterion(f"{arch}: EPE(appearance-only) - EPE(DCFlow) (px)", ea - ed, 0.0, ">"))
    return CheckResult(criteria=crit, table=rows,
                       details=f"Same recipe, data and seed for both arms of each network (RAFT-small: half the steps, "
                               f"{RECIPE['steps'] // 2}, for CPU cost; cached). RAFT-small is this package's "
                               "re-implementation when torchvision is absent. Broken variant caught: DCFlow's "
                               "model replaced by the baseline (difference 0).")


# ---------------------------------------------------------------------------------------------- claim (issue 43/45)
#: recipe of the claim's two cached arms (tiny PWC, 48-px crops, batch 8, one-cycle lr 2e-3, 600 steps, training
#: seed 0); the arms differ only in the objective. One training seed: the two builds cost about 4.6 CPU minutes
#: (appearance-only ~76 s, DCFlow ~199 s at one thread), so three seeds do not fit the family's budget.
CLAIM_RECIPE = dict(n_train=512, size=48, steps=600, lr=2e-3, batch_size=8, max_translation=0.1, texture=0.12,
                    translator_warmup=0.3, train_seed=0)


def planted_crossmodal_pairs(n, size, rng, *, invert=True, texture=0.12):
    r"""Cross-modal pairs on which appearance matching fails by construction (the claim's regime).

    From :func:`~iclr26sci.opticalflow.crossmodal_pairs` at severity 0 (B = the warped patch's luminance ``L``),
    B is contrast-inverted, :math:`B = 0.9 - 0.8 L + a \sin(2\pi x / 5 + \phi_B)` (``invert``), and each modality
    carries its own sensor-fixed texture: vertical stripes on B's grid, diagonal stripes
    :math:`a \sin(2\pi (x + y) / 4 + \phi_A)` on A's grid (``a = texture``); values clipped to [0, 1]. The flow
    and mask are those of the warp, exact.
    """
    from iclr26sci.opticalflow import crossmodal_pairs

    g = np.random.default_rng(rng)
    p = crossmodal_pairs("images", "thermal_like", n, size=size, severity=0.0, rng=g)
    jj, ii = np.meshgrid(np.arange(size), np.arange(size))
    ph_b = g.uniform(0, 2 * np.pi, (n, 1, 1))
    ph_a = g.uniform(0, 2 * np.pi, (n, 1, 1))
    b = (1.0 - p.image_b) if invert else p.image_b
    b = 0.8 * b + 0.1 + texture * np.sin(2 * np.pi * jj / 5 + ph_b)
    a = 0.8 * p.image_a + 0.1 + texture * np.sin(2 * np.pi * (ii + jj) / 4 + ph_a)[..., None]
    p.image_a = np.clip(a, 0, 1).astype(np.float32)
    p.image_b = np.clip(b, 0, 1).astype(np.float32)
    return p


def claim_model(arm, *, steps=None, cache_seed=None):
    """The claim's cached DCFlow-mini arm: ``"dcflow"`` (decoupled, trimmed, consistency) or ``"appearance"``.

    Trained once on 512 planted pairs (:func:`planted_crossmodal_pairs`, seed 0) with a progress bar, then read
    from the user cache (``iclr26sci.nn.cached_model``). ``steps`` overrides the recipe's 600 (the tests' cheap size).
    """
    from iclr26sci.nn import cached_model
    from iclr26sci.opticalflow import DCFlow

    R = CLAIM_RECIPE
    steps = R["steps"] if steps is None else int(steps)
    seed = R["train_seed"] if cache_seed is None else int(cache_seed)
    kw = {"appearance": dict(objective="appearance", consistency=False, translator_warmup=0.0),
          "dcflow": dict(trim=0.1, consistency=True, translator_warmup=R["translator_warmup"])}[arm]

    def make():
        return DCFlow(net="pwc_tiny", rng=seed, lr=R["lr"], lr_schedule="onecycle", batch_size=R["batch_size"],
                      max_translation=R["max_translation"], **kw)

    def build():
        import torch

        pairs = planted_crossmodal_pairs(R["n_train"], R["size"], seed, texture=R["texture"])
        torch.set_num_threads(1)
        m = make().fit(pairs, steps=steps)
        b = torch.nn.ModuleDict({"net": m.net_, "tr": m.translator_})
        return b, {k: float(np.mean(v[-50:])) for k, v in m.history_.items() if v}

    settings = {**R, "steps": steps, "arm": arm, "v": 1}
    bundle, _ = cached_model(f"dcflow-claim-{arm}", settings, seed, build, lambda: _bundle("pwc_tiny"))
    m = make()
    m.net_, m.translator_ = bundle["net"], bundle["tr"]
    return m


def _pair_epe(predict, pairs):
    out = np.stack([predict(a, b) for a, b in zip(pairs.image_a, pairs.image_b)])
    e = np.linalg.norm(out - pairs.flow, axis=-1)
    return np.array([ee[mk].mean() for ee, mk in zip(e, pairs.mask)])


def _flow_figure(app, dcf, pairs, epe):
    """One held-out claim pair (A, B), its true flow and the two arms' flows (|F| in colour on one scale, arrows for
    the direction), and the EPE of each arm over the pairs (mean, 95% CI)."""
    a, b, gt, mk = pairs.image_a[0], pairs.image_b[0], pairs.flow[0], pairs.mask[0]
    flows = [("true flow", gt), ("appearance-only", app.predict(a, b)), ("DCFlow", dcf.predict(a, b))]
    vmax = float(max(np.linalg.norm(f, axis=-1).max() for _, f in flows))
    fig = subplots(figsize=(13, 3.4))[0]
    fig.clear()
    gs = fig.add_gridspec(1, 8, width_ratios=[1, 1, 1, 1, 1, 0.07, 0.45, 1.3], wspace=0.2)
    for j, (img, lab) in enumerate(((a, "frame A\n(RGB)"), (b, "frame B\n(other modality)"))):
        ax = fig.add_subplot(gs[0, j])
        ax.imshow(np.clip(img, 0, 1) if img.ndim == 3 else np.stack([np.clip(img, 0, 1)] * 3, -1))
        ax.set_title(lab)
        ax.axis("off")
    H, W = gt.shape[:2]
    step = max(1, H // 10)
    yy, xx = np.mgrid[step // 2:H:step, step // 2:W:step]
    im = None
    for j, (lab, f) in enumerate(flows):
        ax = fig.add_subplot(gs[0, 2 + j])
        im = ax.imshow(np.where(mk, np.linalg.norm(f, axis=-1), np.nan), cmap="viridis", vmin=0, vmax=vmax)
        ax.quiver(xx, yy, f[yy, xx, 0], f[yy, xx, 1], color="w", angles="xy", scale_units="xy", scale=1, width=0.012)
        ax.set_title(lab + ("\n(arrows: direction)" if j == 0 else
                            f"\nEPE {np.linalg.norm(f - gt, axis=-1)[mk].mean():.2f} px"))
        ax.axis("off")
    cb = fig.colorbar(im, cax=fig.add_subplot(gs[0, 5]))
    cb.set_label("|flow| (px)")
    bx = fig.add_subplot(gs[0, 7])
    for j, (lab, e) in enumerate(epe):
        bx.bar(j, e.mean(), color=("grey", "C0", "C3")[j], alpha=0.75)
        bx.errorbar(j, e.mean(), yerr=1.96 * e.std(ddof=1) / np.sqrt(len(e)), fmt="none", ecolor="k", capsize=5)
    bx.set_xticks(range(len(epe)), [lab for lab, _ in epe])
    bx.set_ylabel("EPE, px (mean, 95% CI)")
    bx.set_title(f"{len(epe[0][1])} held-out pairs")
    readable(fig, layout=False)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.12, top=0.80)
    return fig


def _claim_dcflow(profile, rng, variant=None, *, n_test=None, steps=None, cache_seed=None):
    """Inner function of :func:`c_dcflow_beats_appearance`.

    ``variant``: ``None`` (the claim), ``"no_decoupling"`` (DCFlow's arm replaced by the appearance-only model:
    the decoupled, geometry-supervised flow training is off) or ``"no_translator"`` (DCFlow's flow net fed the raw
    RGB frame: the cross-modal translator is off at test time).
    """
    from validation.claims import ClaimResult, paired_effect

    n_test = profile.pick(64, 256) if n_test is None else int(n_test)
    size = CLAIM_RECIPE["size"]
    app = claim_model("appearance", steps=steps, cache_seed=cache_seed)
    dcf = app if variant == "no_decoupling" else claim_model("dcflow", steps=steps, cache_seed=cache_seed)
    if variant == "no_translator":
        import torch

        dcf.translator_ = torch.nn.Identity()
    seed = int(rng.integers(2 ** 31))
    sets = {"claim": planted_crossmodal_pairs(n_test, size, seed + 1, texture=CLAIM_RECIPE["texture"]),
            "control": planted_crossmodal_pairs(n_test, size, seed + 2, texture=0.0)}
    rows, eff, fig = [], {}, None
    for key, pairs in sets.items():
        zero = np.array([np.linalg.norm(f, axis=-1)[mk].mean() for f, mk in zip(pairs.flow, pairs.mask)])
        e_app, e_dcf = _pair_epe(app.predict, pairs), _pair_epe(dcf.predict, pairs)
        if key == "claim":
            fig = _flow_figure(app, dcf, pairs, [("zero", zero), ("appear.", e_app), ("DCFlow", e_dcf)])
        # paper: full DCFlow removes 84% of the appearance-only EPE (21.23 -> 3.46, MS2 RGB-T ablation); an
        # appearance-only arm that fails by construction sits at the zero-flow EPE, so half the paper's gain is
        # 0.42 x mean |F_gt| of these pairs (a property of the data, fixed before any model is evaluated)
        m_eff = 0.5 * (1 - 3.46 / 21.23) * float(zero.mean())
        what = ("EPE(appearance-only) - EPE(DCFlow), px, paired over " + str(n_test) + " held-out pairs: "
                + ("contrast inversion + modality-specific textures" if key == "claim" else
                   "planted contrast inversion, no texture"))
        eff[key] = paired_effect(e_app, e_dcf, min_effect=m_eff, what=what)
        rows.append({"pair set": key, "pairs": n_test, "EPE zero flow": float(zero.mean()),
                     "EPE appearance-only": float(e_app.mean()), "EPE DCFlow": float(e_dcf.mean()),
                     "difference": float((e_app - e_dcf).mean()),
                     "SE": float((e_app - e_dcf).std(ddof=1) / np.sqrt(n_test)), "min effect": m_eff})
    return ClaimResult(effect=eff["claim"], control=eff["control"], table=rows, figure=fig,
                       details=f"Two arms of one cached recipe (tiny PWC, {CLAIM_RECIPE['steps'] if steps is None else steps} "
                               "steps, batch 8, 48 px, one-cycle lr 2e-3, training seed 0; DCFlow: trimmed L1 "
                               "tau 0.1, consistency from 1/3 of the steps, translator warm-up 0.3) trained on 512 "
                               "planted pairs; test pairs drawn from the master seed. One training seed (the two "
                               "builds take ~4.6 CPU min), so the SE is over test pairs and does not include "
                               "training-seed variance. Paper (MS2 RGB-T ablation): 21.23 -> 3.46 EPE. Broken "
                               "variants: no_decoupling (difference 0), no_translator.")


from validation.claims import claim as _claim  # noqa: E402


@_claim(method="opticalflow", paper=PAPER, budget=60,
        claim="DCFlow (decoupled translator and flow training on geometry-synthesised labels, trimmed loss, "
              "cross-modal consistency) estimates cross-modal flow with lower EPE than appearance-only unsupervised "
              "training of the same networks",
        paper_setting="MS2 RGB-thermal, RAFT, ablation table: appearance-only vs full DCFlow",
        paper_number="EPE 21.23 (appearance-only) -> 3.46 (full DCFlow): 84% of the appearance-only EPE removed",
        regime="B is a contrast-inverted rendering of the scene with a sensor-fixed texture of its own and A carries "
               "a different one, so a structural appearance loss between translated A and B rewards no single "
               "warp (appearance-only training does not beat zero flow), while DCFlow's flow net learns from "
               "intra-modal synthetic pairs whose labels are exact whatever the appearance.",
        control="The same two trained arms on held-out pairs with planted contrast inversion only (no texture), "
                "where the appearance-only arm is known to fail and DCFlow's gain is large",
        test="one-sided paired t over held-out test pairs, alpha 0.05; power for half the paper's relative gain "
             "(0.42 x mean |F_gt|)")
def c_dcflow_beats_appearance(profile, rng, variant=None):
    return _claim_dcflow(profile, rng, variant)
