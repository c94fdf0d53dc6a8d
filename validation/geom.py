"""Validation checks of the shared 3-D layer (iclr26sci.geom): transforms, cameras, the Gaussian rasterizer.

Each check takes its component as an optional keyword (the registry calls it without), so
tests/validation/test_geom_power.py can run the exact check with one deliberate defect substituted and
show that the check fails. The broken variant each check catches is named in its ``details``.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from iclr26sci.geom import (Camera, project_gaussians, rasterize_gaussians, rasterize_gaussians_reference,
                            rot6d_to_rotmat, rotmat_to_quat, rotmat_to_rot6d, se3_exp, se3_log, quat_to_rotmat,
                            so3_exp, so3_log)

from ._figstyle import readable, subplots
from .registry import CheckResult, Criterion, check

PAPER = "Kerbl et al. 2023 (3DGS, SIGGRAPH); Zwicker et al. 2002 (EWA splatting); gsplat (Ye et al. 2025)"
D = torch.float64


def _torch_seed(rng) -> int:
    return int(rng.integers(2 ** 62))


def _rotation_np(q):
    """Rotation matrix of a wxyz quaternion via scipy (independent of iclr26sci.geom)."""
    from scipy.spatial.transform import Rotation

    q = np.asarray(q, float)
    return Rotation.from_quat([q[1], q[2], q[3], q[0]]).as_matrix()


def _random_single_gaussian(rng, *, size_px, opacity, W=96, H=80, f=110.0):
    """One anisotropic, rotated Gaussian inside the field of view (clamp inactive), with its camera."""
    eye = np.array([0.0, 0.0, -6.0]) + rng.normal(size=3) * 0.2
    cam = Camera.look_at(torch.tensor(eye, dtype=D), [0.0, 0.0, 0.0], up=[0.0, -1.0, 0.0], fx=f, fy=0.93 * f,
                         width=W, height=H, cx=W / 2 + rng.uniform(-3, 3), cy=H / 2 + rng.uniform(-3, 3))
    z = float(np.linalg.norm(eye))
    # off-axis position (about 0.15-0.25 of the half field of view away from the centre) so the
    # -x/z^2 column of J matters
    off = rng.uniform(0.12, 0.22, size=2) * rng.choice([-1, 1], size=2) * z
    mean = cam.camera_to_world(torch.tensor([off[0], off[1], z], dtype=D))
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    s_px = size_px * rng.uniform(0.7, 1.3, size=3)
    log_scales = np.log(s_px * z / f)
    logit = math.log(opacity / (1 - opacity))
    return cam, mean[None], torch.tensor(q, dtype=D)[None], torch.tensor(log_scales, dtype=D)[None], \
        torch.tensor([logit], dtype=D)


def _fd_jacobian(cam, mean, h):
    """Central finite-difference Jacobian of the pinhole projection at ``mean`` w.r.t. camera coordinates."""
    Xc = cam.world_to_camera(mean)[0]
    J = np.zeros((2, 3))
    for k in range(3):
        e = torch.zeros(3, dtype=D)
        e[k] = h

        def proj(p):
            return np.array([cam.fx * float(p[0]) / float(p[2]) + cam.cx, cam.fy * float(p[1]) / float(p[2]) + cam.cy])

        J[:, k] = (proj(Xc + e) - proj(Xc - e)) / (2 * h)
    return J


def _single_gaussian_figure(ours, ref, uv, r, samples, Ce, C_hat):
    """The last case: rendered alpha, the analytic alpha and their difference (cropped around the Gaussian), and
    Monte-Carlo perspective samples of the shrunken copy with the EWA and sample 2-sigma ellipses."""
    fig, axes = subplots(1, 4, figsize=(13, 3.4), gridspec_kw={"width_ratios": [1, 1, 1, 1.1]})
    c, rr = np.round(uv).astype(int), int(r) + 2
    sl = (slice(max(c[1] - rr, 0), c[1] + rr), slice(max(c[0] - rr, 0), c[0] + rr))
    ext = (sl[1].start, sl[1].stop, sl[0].stop, sl[0].start)
    for a, img, lab in ((axes[0], ours[sl], "rasterizer alpha"), (axes[1], ref[sl], "analytic alpha")):
        im = a.imshow(img, cmap="magma", vmin=0, vmax=1, extent=ext)
        a.set_title(lab)
        a.set_xlabel("u (px)")
    for a in axes[:3]:
        a.set_ylabel("v (px)")
    fig.colorbar(im, ax=axes[1], fraction=0.046, label="alpha")
    diff = ours[sl] - ref[sl]
    lim = max(float(np.abs(diff).max()), 1e-300)
    im2 = axes[2].imshow(diff, cmap="RdBu_r", vmin=-lim, vmax=lim, extent=ext)
    axes[2].set_title("difference")
    axes[2].set_xlabel("u (px)")
    fig.colorbar(im2, ax=axes[2], fraction=0.046, format="%.0e")
    b = axes[3]
    m = samples.mean(0)
    b.plot(samples[:, 0] - m[0], samples[:, 1] - m[1], ".", ms=1.5, color="grey", alpha=0.4,
           label="MC perspective samples")
    t = np.linspace(0, 2 * np.pi, 200)
    for C, lab, ls in ((Ce, "EWA covariance (2 sigma)", "-"), (C_hat, "sample covariance (2 sigma)", "--")):
        L = np.linalg.cholesky(C)
        e = 2 * (L @ np.stack([np.cos(t), np.sin(t)]))
        b.plot(e[0], e[1], ls, lw=2, label=lab)
    b.set_aspect("equal", "datalim")
    b.set_xlabel("du (px)")
    b.set_ylabel("dv (px)")
    b.set_title("2-D covariance, small copy")
    b.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, markerscale=6)
    return readable(fig)


@check(method="geom", paper=PAPER, budget=4,
       guarantee="The rendered alpha of one 3-D Gaussian equals the analytic projected Gaussian "
                 "o*exp(-1/2 d^T (J W Sigma W^T J^T + eps I)^-1 d) with J the projection's derivative, and the "
                 "EWA 2-D covariance equals the covariance of the perspective image of the 3-D Gaussian in the "
                 "small-Gaussian (affine) limit")
def single_gaussian_analytic(profile, rng, rasterizer=None, projector=None):
    rasterizer = rasterizer or rasterize_gaussians
    projector = projector or project_gaussians
    n_cases = profile.pick(3, 10)
    n_mc = profile.pick(200_000, 2_000_000)
    eps2d = 0.3
    max_err, max_z = 0.0, 0.0
    rows = []
    for case in range(n_cases):
        cam, mean, q, ls, logit = _random_single_gaussian(rng, size_px=rng.uniform(2.0, 4.0),
                                                          opacity=rng.uniform(0.3, 0.9))
        out = rasterizer(mean, q, ls, logit, torch.ones(1, 1, dtype=D), cam, eps2d=eps2d)
        # independent analytic image: scipy rotation, finite-difference Jacobian, numpy algebra
        z = float(cam.world_to_camera(mean)[0, 2])
        J = _fd_jacobian(cam, mean, h=1e-4 * z)
        Rw = cam.R.numpy()
        Rq = _rotation_np(q[0].numpy())
        S3 = Rq @ np.diag(np.exp(2 * ls[0].numpy())) @ Rq.T
        S2_ewa = J @ Rw @ S3 @ Rw.T @ J.T
        S2 = S2_ewa + eps2d * np.eye(2)
        Q = np.linalg.inv(S2)
        uv = np.array([float(v) for v in cam.project(mean)[0][0]])
        jj, ii = np.meshgrid(np.arange(cam.height) + 0.5, np.arange(cam.width) + 0.5, indexing="ij")
        d = np.stack([ii - uv[0], jj - uv[1]], -1)
        maha = np.einsum("hwi,ij,hwj->hw", d, Q, d)
        o = 1 / (1 + math.exp(-float(logit[0])))
        alpha = np.minimum(0.99, o * np.exp(-0.5 * maha))
        r = math.ceil(3 * math.sqrt(np.linalg.eigvalsh(S2)[-1]))
        alpha[(alpha < 1 / 255) | ((d ** 2).sum(-1) > r * r)] = 0.0
        err = float(np.abs(out.alpha.detach().numpy() - alpha).max())
        # Monte-Carlo: perspective image of samples of a 30x smaller copy (sigma/z ~ 1e-3, perspective bias
        # O((sigma/z)^2) ~ 1e-6 relative) vs the projector's EWA covariance without the dilation
        shrink = math.log(30.0)
        S3s = S3 / 900.0
        Ce = projector(mean, q, ls - shrink, logit, cam, eps2d=0.0).cov2d[0].detach().numpy()
        g = torch.Generator().manual_seed(_torch_seed(rng))
        L = np.linalg.cholesky(S3s)
        X = mean.numpy()[0] + (torch.randn(n_mc, 3, generator=g, dtype=D).numpy() @ L.T)
        uv_s, _ = cam.project(torch.from_numpy(X))
        C_hat = np.cov(uv_s.numpy().T)
        se = np.sqrt((np.outer(np.diag(Ce), np.diag(Ce)) + Ce ** 2) / n_mc)
        S2_ewa = Ce
        zs = float(max(abs(C_hat[i, j] - S2_ewa[i, j]) / se[i, j] for i, j in ((0, 0), (0, 1), (1, 1))))
        max_err, max_z = max(max_err, err), max(max_z, zs)
        last = (out.alpha.detach().numpy(), alpha, uv, r, uv_s.numpy()[:3000], Ce, C_hat)
        rows.append({"case": case, "max |alpha - analytic|": err, "cov z-score (max of 3)": zs,
                     "sigma_px": float(np.sqrt(np.linalg.eigvalsh(S2 - eps2d * np.eye(2))).max())})
    # thresholds: FD truncation O(h^2) ~ 1e-8 relative with h = 1e-4 z, times the largest Mahalanobis
    # exponent kept (2 ln 255 / 2 ~ 5.5) -> < 1e-7; MC: Bonferroni over 3 entries x n_cases at 1e-4 overall
    # (two-sided normal quantile), the perspective bias being O((sigma/z)^2) ~ 1e-5 relative, << 1 SE
    z_thr = float(__import__("scipy.stats", fromlist=["norm"]).norm.isf(1e-4 / (2 * 3 * n_cases)))
    crit = [Criterion("max |alpha - analytic alpha| (FD Jacobian)", max_err, 1e-7, "<="),
            Criterion("max z-score of the EWA covariance vs MC perspective image", max_z, z_thr, "<=")]
    return CheckResult(criteria=crit, table=rows, figure=_single_gaussian_figure(*last),
                       details=f"{n_cases} random single Gaussians (2-4 px, off-axis, rotated, anisotropic) in "
                               f"float64; analytic image built with scipy rotations and a central-difference "
                               f"Jacobian; {n_mc} Monte-Carlo samples per case projected with the exact "
                               f"perspective map. Catches: a Jacobian without the -f x/z^2 column, a transposed "
                               f"rotation, a missing eps2d, a wrong factor in the exponent.")


@check(method="geom", paper=PAPER + "; Yu et al. 2024 (Mip-Splatting)", budget=3,
       guarantee="The total alpha mass of one low-opacity Gaussian equals its closed-form integral "
                 "2 pi sqrt(det Sigma2d) (o - 1/255) (the Gaussian integral truncated where alpha < 1/255), and "
                 "with anti-aliasing the mass is that of the undilated footprint: "
                 "2 pi (o sqrt(det Sigma2d_no-eps) - sqrt(det Sigma2d)/255)")
def alpha_mass_closed_form(profile, rng, rasterizer=None):
    rasterizer = rasterizer or rasterize_gaussians
    n_cases = profile.pick(4, 12)
    worst = {False: 0.0, True: 0.0}
    rows = []
    for case in range(n_cases):
        o = rng.uniform(0.2, 0.35)                     # rho = sqrt(2 ln(255 o)) <= 3: the radius cut is inactive
        cam, mean, q, ls, logit = _random_single_gaussian(rng, size_px=rng.uniform(1.0, 1.6), opacity=o,
                                                          W=64, H=64, f=70.0)
        p = project_gaussians(mean, q, ls, logit, cam)
        S2 = p.cov2d[0].numpy()
        S2n = S2 - 0.3 * np.eye(2)
        rho = math.sqrt(2 * math.log(255 * o))
        lam = np.linalg.eigvalsh(S2)
        # bound on the pixel-sum error: alpha 1[alpha >= c] = (alpha - c)_+ + c 1[alpha >= c]; the indicator
        # errs by at most c per cell the cut ellipse crosses (<= 2 (width + height) + 4 for a convex curve),
        # the kinked (alpha - c)_+ by at most |grad alpha| / 2 <= c rho / (2 sigma_min) per such cell
        # (counted twice for margin); the smooth interior midpoint error is ~ exp(-2 pi^2 sigma^2)
        width_b, height_b = 2 * rho * math.sqrt(S2[0, 0]), 2 * rho * math.sqrt(S2[1, 1])
        smin = math.sqrt(lam[0])
        bound = (2 * (width_b + height_b) + 4) / 255 * (1 + rho / smin)
        for aa in (False, True):
            out = rasterizer(mean, q, ls, logit, torch.ones(1, 1, dtype=D), cam, antialiased=aa)
            mass = float(out.alpha.sum())
            if aa:
                comp = math.sqrt(np.linalg.det(S2n) / np.linalg.det(S2))
                o_eff = o * comp
                rho_a = math.sqrt(2 * math.log(255 * o_eff))
                b = (2 * 2 * rho_a * (math.sqrt(S2[0, 0]) + math.sqrt(S2[1, 1])) + 4) / 255 * (1 + rho_a / smin)
                closed = 2 * math.pi * (o * math.sqrt(np.linalg.det(S2n)) - math.sqrt(np.linalg.det(S2)) / 255)
            else:
                b = bound
                closed = 2 * math.pi * math.sqrt(np.linalg.det(S2)) * (o - 1 / 255)
            ratio = abs(mass - closed) / b
            worst[aa] = max(worst[aa], ratio)
            rows.append({"case": case, "antialiased": aa, "opacity": o, "mass": mass, "closed form": closed,
                         "|diff|": abs(mass - closed), "bound": b, "sigma_min_px": float(np.sqrt(lam[0]))})
    crit = [Criterion("max |mass - closed form| / discretisation bound", worst[False], 1.0, "<="),
            Criterion("same, anti-aliased (mass of the undilated footprint)", worst[True], 1.0, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details="Single Gaussians (opacity 0.2-0.35, 1-1.6 px) in float64. The bound is the 1/255 jump "
                               "times the number of pixels the truncation ellipse can cross. Catches: a missing 1/2 "
                               "in the exponent, the covariance used instead of the conic, anti-aliasing with "
                               "det instead of sqrt(det) or without the compensation (mass of the dilated footprint).")


def _tiny_scene(rng, n=4, W=8, H=7):
    g = torch.Generator().manual_seed(_torch_seed(rng))
    means = torch.randn(n, 3, generator=g, dtype=D) * 0.5
    quats = torch.randn(n, 4, generator=g, dtype=D)
    ls = torch.randn(n, 3, generator=g, dtype=D) * 0.2 - 1.3
    logits = torch.randn(n, generator=g, dtype=D)
    colors = torch.rand(n, 3, generator=g, dtype=D)
    bg = torch.rand(3, generator=g, dtype=D)
    cam = Camera.look_at(torch.tensor([0.2, -0.1, -4.0], dtype=D), [0.0, 0, 0], up=[0.0, -1, 0], fx=9.0, fy=8.0,
                         width=W, height=H, cx=W / 2 + 0.3, cy=H / 2 - 0.2)
    return [means, quats, ls, logits, colors, bg], cam


@check(method="geom", paper=PAPER, budget=6,
       guarantee="Autograd gradients of the rendered image, alpha and depth with respect to means, quaternions, "
                 "log-scales, opacity logits, colours and background agree with central finite differences "
                 "(torch.autograd.gradcheck in float64)")
def gradients_pass_gradcheck(profile, rng, rasterizer=None):
    rasterizer = rasterizer or rasterize_gaussians
    n_scenes = profile.pick(2, 6)
    passed, worst = 0, 0.0
    rows = []
    for s in range(n_scenes):
        args, cam = _tiny_scene(rng)
        args = [a.clone().requires_grad_() for a in args]

        def f(*xs):
            out = rasterizer(*xs[:5], cam, xs[5])
            return torch.cat([out.image.flatten(), out.alpha.flatten(), out.depth.flatten()])

        ok = torch.autograd.gradcheck(f, tuple(args), eps=1e-6, atol=1e-6, rtol=1e-5, raise_exception=False)
        passed += int(ok)
        # directional derivatives: the analytic gradient along random directions vs central differences
        g = torch.Generator().manual_seed(_torch_seed(rng))
        w = torch.randn(f(*args).shape, generator=g, dtype=D)
        grads = torch.autograd.grad((f(*args) * w).sum(), args)
        for _ in range(3):
            v = [torch.randn(a.shape, generator=g, dtype=D) for a in args]
            h = 1e-6
            with torch.no_grad():
                fp = (f(*[a + h * vi for a, vi in zip(args, v)]) * w).sum()
                fm = (f(*[a - h * vi for a, vi in zip(args, v)]) * w).sum()
            num = float((fp - fm) / (2 * h))
            ana = float(sum((gi * vi).sum() for gi, vi in zip(grads, v)))
            rel = abs(num - ana) / max(1.0, abs(ana))
            worst = max(worst, rel)
        rows.append({"scene": s, "gradcheck": bool(ok), "max rel. directional error": worst})
    crit = [Criterion("scenes failing gradcheck", n_scenes - passed, 0, "<="),
            Criterion("max relative directional-derivative error", worst, 1e-6, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"{n_scenes} tiny scenes (4 Gaussians, 8x7 px, float64). Central differences with "
                               "h = 1e-6 have truncation O(h^2) and rounding O(eps/h) ~ 1e-10 relative, so 1e-6 "
                               "leaves four orders of margin. Catches: a detached tensor or a wrong backward "
                               "(e.g. the means' gradient scaled).")


@check(method="geom", paper=PAPER + "; gsplat tests (CUDA kernels vs _torch_impl)", budget=8,
       guarantee="The tiled, vectorised rasterizer equals the per-pixel reference loop of the 3DGS kernel "
                 "(image, alpha, depth and all input gradients) to 1e-6 in float64, with and without "
                 "early termination and anti-aliasing, for any tile size")
def tiled_equals_reference(profile, rng, rasterizer=None):
    rasterizer = rasterizer or rasterize_gaussians
    n_scenes = profile.pick(3, 8)
    worst_img, worst_grad = 0.0, 0.0
    rows = []
    for s in range(n_scenes):
        g = torch.Generator().manual_seed(_torch_seed(rng))
        n = 24
        opac_shift = [0.0, 3.0, 5.0][s % 3]                  # the opaque scenes hit the T < 1e-4 rule
        args = [torch.randn(n, 3, generator=g, dtype=D) * 0.6, torch.randn(n, 4, generator=g, dtype=D),
                torch.randn(n, 3, generator=g, dtype=D) * 0.3 - 1.6,
                torch.randn(n, generator=g, dtype=D) + opac_shift, torch.rand(n, 3, generator=g, dtype=D)]
        args = [a.requires_grad_() for a in args]
        bg = torch.rand(3, generator=g, dtype=D)
        W, H = 14, 11
        cam = Camera.look_at(torch.tensor([0.3, -0.2, -4.0], dtype=D), [0.0, 0, 0], up=[0.0, -1, 0], fx=14.0,
                             fy=13.0, width=W, height=H, cx=W / 2 + 0.4, cy=H / 2 - 0.3)
        aa = bool(s % 2)
        ts = [4, 8, 16][s % 3]
        a = rasterizer(*args, cam, bg, antialiased=aa, tile_size=ts)
        b = rasterize_gaussians_reference(*args, cam, bg, antialiased=aa)
        d_img = max(float((getattr(a, k) - getattr(b, k)).detach().abs().max()) for k in ("image", "alpha", "depth"))
        la = (a.image ** 2).sum() + a.depth.sum() + a.alpha.sum()
        lb = (b.image ** 2).sum() + b.depth.sum() + b.alpha.sum()
        ga, gb = torch.autograd.grad(la, args), torch.autograd.grad(lb, args)
        d_grad = max(float((x - y).abs().max()) for x, y in zip(ga, gb))
        terminated = float((1 - b.alpha).min()) < 1.5e-4
        worst_img, worst_grad = max(worst_img, d_img), max(worst_grad, d_grad)
        rows.append({"scene": s, "tile": ts, "antialiased": aa, "early termination hit": terminated,
                     "max |render diff|": d_img, "max |grad diff|": d_grad})
    crit = [Criterion("max |tiled - reference| (image, alpha, depth)", worst_img, 1e-6, "<="),
            Criterion("max |tiled - reference| (gradients)", worst_grad, 1e-6, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details="24 Gaussians, 14x11 px, float64; 1e-6 is the spec's agreement target (rounding alone "
                               "gives ~1e-14). Catches: tile ranges that miss pixels at the edge of a footprint's "
                               "bounding square, a wrong depth order, early termination applied after the sample.")


@check(method="geom", paper="Shepperd 1978; Barfoot 2017 (State Estimation for Robotics) section 7.1", budget=3,
       guarantee="Rotation and rigid-motion conversions round-trip to float64 accuracy over the whole group, "
                 "including angles near 0 and near pi: quaternion <-> matrix, so3 exp/log, se3 exp/log, 6-D, and "
                 "camera project/unproject")
def transforms_round_trip(profile, rng, rotmat_to_quat_fn=None):
    to_quat = rotmat_to_quat_fn or rotmat_to_quat
    n = profile.pick(3000, 30000)
    g = torch.Generator().manual_seed(_torch_seed(rng))
    axis = torch.randn(n, 3, generator=g, dtype=D)
    axis = axis / axis.norm(dim=-1, keepdim=True)
    # angles: uniform, tiny (1e-12..1e-3) and near pi (pi - 1e-6 .. pi - 1e-3)
    u = torch.rand(n, generator=g, dtype=D)
    k = n // 3
    ang = u * (math.pi - 1e-6)
    ang[:k] = 10 ** (-12 + 9 * u[:k])
    ang[k:2 * k] = math.pi - 10 ** (-6 + 3 * u[k:2 * k])
    w = axis * ang[:, None]
    R = so3_exp(w)
    q = to_quat(R)
    e_q = float((quat_to_rotmat(q) - R).abs().max())
    e_log = float(((so3_log(R) - w).norm(dim=-1) / torch.clamp(ang, min=1.0)).max())
    rho = torch.randn(n, 3, generator=g, dtype=D) * 3
    xi = torch.cat([rho, w], -1)
    e_se3 = float(((se3_log(se3_exp(xi)) - xi).norm(dim=-1) / (1 + xi.norm(dim=-1))).max())
    e_6d = float((rot6d_to_rotmat(rotmat_to_rot6d(R)) - R).abs().max())
    cam = Camera.look_at(torch.tensor([0.5, -6.0, 1.0], dtype=D), [0.0, 0, 0], fx=200, fy=180, width=160,
                         height=120)
    X = torch.randn(n, 3, generator=g, dtype=D)
    uv, z = cam.project(X)
    e_cam = float((cam.unproject(uv, z) - X).abs().max())
    # thresholds: float64 eps = 2.2e-16 times the conditioning: the quaternion pivot is >= 1/4 (Shepperd), so
    # <= 1e-13; log near pi has condition ~ 1/(pi - theta) <= 1e6, so ~ 1e-9 (margin x10 -> 1e-8); projection
    # with depths >= 3 and f <= 200: ~1e-13
    crit = [Criterion("max |R(q(R)) - R|", e_q, 1e-12, "<="),
            Criterion("max relative |so3_log(so3_exp(w)) - w|", e_log, 1e-8, "<="),
            Criterion("max relative |se3_log(se3_exp(xi)) - xi|", e_se3, 1e-8, "<="),
            Criterion("max |6-D round trip|", e_6d, 1e-12, "<="),
            Criterion("max |unproject(project(X)) - X|", e_cam, 1e-10, "<=")]
    return CheckResult(criteria=crit, table=[{"n": n, "quat": e_q, "so3": e_log, "se3": e_se3, "6d": e_6d,
                                              "camera": e_cam}],
                       details=f"{n} rotations (a third with angle < 1e-3, a third within 1e-3 of pi). Catches: "
                               "quaternion extraction from the trace alone (loses accuracy near pi), so3_log via "
                               "arccos((tr R - 1)/2) (inaccurate at small angles and near pi), no Taylor branch.")
