"""Validation checks of SSD-GS (iclr26sci.scene3d.ssdgs): the spec's C1-C9 (ssd-gs-relighting.md section 2.3).

Each check takes the component it tests as an optional keyword (the registry calls it without), so
tests/scene3d/test_ssdgs_power.py can run the exact check with one deliberate defect substituted and show that
it fails. The broken variant each check catches is named in its ``details``.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ._figstyle import readable, subplots
from .registry import CheckResult, Criterion, check

PAPER = "Zheng et al., SSD-GS, ICLR 2026 (arXiv:2604.13333); official code irisfreesiri/SSD-GS"
D64 = torch.float64


def _seed(rng) -> int:
    return int(rng.integers(2 ** 62))


# ------------------------------------------------------------------------------------------------------------ C1
@check(method="ssdgs", paper=PAPER + "; Kerbl et al. 2023 (3DGS)", budget=2,
       guarantee="C1: the 13-channel composite [C, D, Spec, SSS, S] that SSD-GS rasterizes is exact: one isotropic "
                 "Gaussian (sigma = 2 px, o = 0.5) gives alpha = o exp(-1/2 d^T (Sigma' + 0.3 I)^-1 d) and two "
                 "overlapping Gaussians give c1 a1 + c2 a2 (1 - a1) in every channel (float64)")
def composite_exact(profile, rng, rasterizer=None):
    from iclr26sci.geom import Camera, rasterize_gaussians

    rasterizer = rasterizer or rasterize_gaussians
    W = H = 32
    f = 40.0
    cam = Camera.look_at(torch.tensor([0.0, 0.0, -4.0], dtype=D64), [0.0, 0.0, 0.0], up=[0.0, -1.0, 0.0], fx=f, fy=f,
                         width=W, height=H, dtype=D64)
    n_cases = profile.pick(3, 10)
    errs1, errs2, rows = [], [], []
    jj, ii = np.meshgrid(np.arange(H) + 0.5, np.arange(W) + 0.5, indexing="ij")

    def analytic_alpha(z, sig_px, o):
        s2 = sig_px ** 2 + 0.3
        d2 = (ii - W / 2) ** 2 + (jj - H / 2) ** 2
        a = np.minimum(0.99, o * np.exp(-0.5 * d2 / s2))
        # footprint radius as 3DGS/gsplat: 3 sqrt(lambda_max) with lambda_max = mid + sqrt(max(mid^2 - det, 0.1)),
        # i.e. s2 + sqrt(0.1) for an isotropic footprint
        r = math.ceil(3 * math.sqrt(s2 + math.sqrt(0.1)))
        a[(a < 1 / 255) | (d2 > r * r)] = 0.0
        return a

    for case in range(n_cases):
        # case 0: the spec's sigma = 2 px, o = 0.5; later cases random sizes/opacities
        sig1 = 2.0 if case == 0 else rng.uniform(1.5, 4.0)
        o1 = 0.5 if case == 0 else rng.uniform(0.2, 0.8)
        z1, z2 = 4.0, 4.0 + rng.uniform(0.5, 2.0)
        sig2, o2 = rng.uniform(1.5, 4.0), rng.uniform(0.2, 0.8)
        c = torch.tensor(rng.uniform(0, 1, (2, 13)), dtype=D64)
        means = torch.tensor([[0.0, 0.0, z1 - 4.0], [0.0, 0.0, z2 - 4.0]], dtype=D64)
        ls = torch.tensor([[math.log(sig1 * z1 / f)] * 3, [math.log(sig2 * z2 / f)] * 3], dtype=D64)
        logit = torch.tensor([math.log(o1 / (1 - o1)), math.log(o2 / (1 - o2))], dtype=D64)
        q = torch.tensor([[1.0, 0, 0, 0]] * 2, dtype=D64)
        one = rasterizer(means[:1], q[:1], ls[:1], logit[:1], c[:1], cam)
        a1 = analytic_alpha(z1, sig1, o1)
        e1 = float(np.abs(one.alpha.numpy() - a1).max())
        e1 = max(e1, float(np.abs(one.image.numpy() - a1[..., None] * c[0].numpy()).max()))
        two = rasterizer(means, q, ls, logit, c, cam)
        a2 = analytic_alpha(z2, sig2, o2)
        ref = a1[..., None] * c[0].numpy() + (a2 * (1 - a1))[..., None] * c[1].numpy()
        e2 = float(np.abs(two.image.numpy() - ref).max())
        errs1.append(e1)
        errs2.append(e2)
        rows.append({"case": case, "sigma1 px": sig1, "o1": o1, "single: max err": e1, "two-layer: max err": e2})
    crit = [Criterion("single Gaussian: max |alpha - analytic| (13 channels)", max(errs1), 1e-6, "<="),
            Criterion("two layers: max |image - (c1 a1 + c2 a2 (1 - a1))|", max(errs2), 1e-6, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"{n_cases} cases, 32x32, float64, Gaussians on the optical axis (the EWA Jacobian is "
                               "exact there: Sigma' = (f sigma / z)^2 I + 0.3 I). Tolerance 1e-6 (spec; float64 "
                               "rounding is ~1e-15). Catches: a missing eps2d dilation (error ~1e-2), a composite "
                               "without the (1 - a1) transmittance, channels beyond 3 dropped or misaligned. The "
                               "rasterizer's own analytic/gradient/reference checks are the geom section's.")


# ------------------------------------------------------------------------------------------------------------ C2
def _tiny_model(rng, dipole="jensen", n=3):
    from iclr26sci.scene3d.ssdgs import SSDGS

    g = torch.Generator().manual_seed(_seed(rng))
    N = int(n)
    m = SSDGS(n_gaussians=N, appearance="ssdgs", ablation="D", dipole=dipole)
    m.appearance = "ssdgs"
    from iclr26sci.scene3d import _ssdgs_shading as sh

    p = {"means": torch.randn(N, 3, generator=g, dtype=D64) * 0.3,
         "quats": torch.randn(N, 4, generator=g, dtype=D64),
         "log_scales": torch.randn(N, 3, generator=g, dtype=D64) * 0.2 - 1.2,
         "opacity": torch.randn(N, generator=g, dtype=D64),
         "kd": torch.randn(N, 3, generator=g, dtype=D64), "ks": torch.randn(N, 3, generator=g, dtype=D64),
         "ksss": torch.randn(N, 3, generator=g, dtype=D64), "asg_w": torch.randn(N, 8, generator=g, dtype=D64),
         "local_quat": torch.randn(N, 4, generator=g, dtype=D64),
         "latent": torch.randn(N, 6, generator=g, dtype=D64),
         "asg_lm": torch.randn(8, 2, generator=g, dtype=D64), "asg_sigma": torch.randn(8, generator=g, dtype=D64),
         "asg_quat": torch.randn(8, 4, generator=g, dtype=D64)}
    torch.manual_seed(_seed(rng))
    m.modules_ = {"sss_mlp": sh.ScatterMLP(dtype=D64), "shadow_mlp": sh.ShadowMLP(dtype=D64)}
    m.params_ = p
    m.shadow_offset = 0.015
    return m, p


@check(method="ssdgs", paper=PAPER, budget=6,
       guarantee="C2: the gradients of the whole SSD-GS render (shading of all four components, shadow MLP, "
                 "13-channel rasterization) with respect to the Gaussians' geometry and shading parameters agree "
                 "with finite differences (torch.autograd.gradcheck, float64)")
def render_gradcheck(profile, rng, shade_fn=None):
    from iclr26sci.geom import Camera

    n_scenes = profile.pick(1, 4)
    fails, worst, rows = 0, 0.0, []
    for s in range(n_scenes):
        m, p = _tiny_model(rng)
        cam = Camera.look_at(torch.tensor([0.3, -0.2, -3.0], dtype=D64), [0.0, 0.0, 0.0], up=[0.0, -1.0, 0.0],
                             fx=9.0, fy=8.5, width=8, height=8, dtype=D64)
        light = np.array([1.5, -2.0, -2.5]) + rng.normal(size=3) * 0.2
        keys = ["means", "quats", "log_scales", "opacity", "kd", "ks", "ksss", "asg_w", "local_quat", "latent"]
        on = {"diffuse", "specular", "sss", "shadow"}
        if shade_fn is not None:
            m._shade = shade_fn.__get__(m)
        vis = m._visibility(light, cam)

        def f(*xs):
            m.params_ = {**p, **dict(zip(keys, xs))}
            from iclr26sci.geom import rasterize_gaussians

            out = m._shade(light, cam.centre, 1.0, on, vis)
            feats = torch.cat([out["C"], out["D"], out["Spec"], out["SSS"], out["S"][:, None]], 1)
            q = m.params_
            return rasterize_gaussians(q["means"], q["quats"], q["log_scales"], q["opacity"], feats, cam).image.flatten()

        args = tuple(p[k].clone().requires_grad_() for k in keys)
        ok = torch.autograd.gradcheck(f, args, eps=1e-6, atol=1e-6, rtol=1e-4, raise_exception=False, fast_mode=True)
        fails += int(not ok)
        g = torch.Generator().manual_seed(_seed(rng))
        w = torch.randn(f(*args).shape, generator=g, dtype=D64)
        grads = torch.autograd.grad((f(*args) * w).sum(), args, allow_unused=True)
        grads = [torch.zeros_like(a) if gi is None else gi for a, gi in zip(args, grads)]
        for _ in range(3):
            v = [torch.randn(a.shape, generator=g, dtype=D64) for a in args]
            h = 1e-6
            with torch.no_grad():
                fp = (f(*[a + h * vi for a, vi in zip(args, v)]) * w).sum()
                fm = (f(*[a - h * vi for a, vi in zip(args, v)]) * w).sum()
            num = float((fp - fm) / (2 * h))
            ana = float(sum((gi * vi).sum() for gi, vi in zip(grads, v)))
            worst = max(worst, abs(num - ana) / max(1.0, abs(ana)))
        rows.append({"scene": s, "gradcheck": bool(ok), "max rel. directional error": worst})
    crit = [Criterion("scenes failing gradcheck", fails, 0, "<="),
            Criterion("max relative directional-derivative error", worst, 1e-5, "<=")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"{n_scenes} scene(s): 3 Gaussians, 8x8 px, float64, all components on, 10 parameter "
                               "tensors (geometry, k_d/k_s/k_sss, ASG weights, shading frames, latents). Central "
                               "differences with h = 1e-6 (gradcheck fast mode: random projections of the Jacobian, plus 3 random "
                               "directional derivatives): truncation ~1e-10, rounding ~1e-10, so 1e-5 has a wide "
                               "margin. Catches: a term computed on detached tensors (e.g. k_d detached) or a wrong "
                               "custom gradient. The light-space visibility is gradient-free by design (the code's).")


# ------------------------------------------------------------------------------------------------------------ C3
@check(method="ssdgs", paper=PAPER, budget=2,
       guarantee="C3: without shadows each Gaussian's radiance obeys the inverse-square law (light at distance d "
                 "and 2d on the same ray: ratio 4) and the image is linear in the light intensity (doubling it "
                 "doubles the image exactly, no clipping)")
def inverse_square_linearity(profile, rng, shade_fn=None):
    from iclr26sci.geom import Camera

    m, p = _tiny_model(rng)
    if shade_fn is not None:
        m._shade = shade_fn.__get__(m)
    N = p["means"].shape[0]
    cam_c = torch.tensor([0.3, -0.2, -3.0], dtype=D64)
    on = {"diffuse", "specular", "sss"}
    ratios = []
    n_dirs = profile.pick(8, 32)
    for _ in range(n_dirs):
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        dist = rng.uniform(1.0, 3.0)
        for k in range(N):
            mu = p["means"][k].numpy()
            c1 = m._shade(mu + dist * u, cam_c, 1.0, on)["C"][k]
            c2 = m._shade(mu + 2 * dist * u, cam_c, 1.0, on)["C"][k]
            ratios.append((c1 / c2).detach().numpy())
    ratios = np.concatenate(ratios)
    err_ratio = float(np.abs(ratios - 4.0).max())
    cam = Camera.look_at(cam_c, [0.0, 0.0, 0.0], up=[0.0, -1.0, 0.0], fx=9.0, fy=8.5, width=8, height=8, dtype=D64)
    light = np.array([1.5, -2.0, -2.5])
    i1 = m._render(cam, light, 1.0, on | {"shadow"}).image
    i2 = m._render(cam, light, 2.0, on | {"shadow"}).image
    # the 12 radiance channels scale with the intensity; the shadow channel (12) must not change
    with torch.no_grad():
        err_lin = float((i2[..., :12] - 2 * i1[..., :12]).abs().max() / i1[..., :12].abs().max().clamp(min=1e-300))
        err_lin = max(err_lin, float((i2[..., 12] - i1[..., 12]).abs().max()))
    crit = [Criterion("max |radiance ratio (d vs 2d) - 4|", err_ratio, 1e-6, "<="),
            Criterion("max |I(2 s) - 2 I(s)| / max I (shadows on)", err_lin, 1e-12, "<=")]
    return CheckResult(criteria=crit,
                       table=[{"directions": n_dirs, "Gaussians": N, "max ratio error": err_ratio,
                               "linearity error": err_lin}],
                       details="Random Gaussians with all components (diffuse, ASG specular, dipole SSS) in float64; "
                               "the light moves along a fixed ray from each Gaussian, so every direction-dependent term "
                               "is unchanged and only g = 1/r^2 changes. Tolerances: 1e-6 (spec; float64 error ~1e-15) "
                               "and 1e-12 for the intensity scaling (an exact multiplication). Catches: 1/r instead of "
                               "1/r^2 (ratio 2), an intensity applied before a non-linearity, a clipped render.")


# ------------------------------------------------------------------------------------------------------------ C4
@check(method="ssdgs", paper=PAPER + "; Schlick 1994", budget=1,
       guarantee="C4: Schlick's Fresnel of the specular term is F0 = 0.04 at normal incidence, 1 at grazing incidence "
                 "and non-increasing in cos(theta) on [0, 1]")
def fresnel_limits(profile, rng, fresnel=None):
    from iclr26sci.scene3d.ssdgs import schlick_fresnel

    fresnel = fresnel or schlick_fresnel
    n = profile.pick(10_001, 1_000_001)
    c = torch.tensor(np.sort(np.concatenate([np.linspace(0, 1, n), rng.uniform(0, 1, n)])), dtype=D64,
                     requires_grad=True)
    F = fresnel(c)
    dF = torch.autograd.grad(F.sum(), c)[0]
    e1 = float(abs(fresnel(torch.tensor([1.0], dtype=D64))[0] - 0.04))
    e0 = float(abs(fresnel(torch.tensor([0.0], dtype=D64))[0] - 1.0))
    inc = float(max(0.0, float(torch.diff(F.detach()).max())))
    dmax = float(dF.max())
    crit = [Criterion("|F(1) - 0.04|", e1, 1e-12, "<="), Criterion("|F(0) - 1|", e0, 1e-12, "<="),
            Criterion("largest increase of F between sorted cosines", inc, 0.0, "<="),
            Criterion("max dF/dcos (autograd)", dmax, 0.0, "<=")]
    return CheckResult(criteria=crit, table=[{"points": 2 * n, "F(1) error": e1, "F(0) error": e0,
                                              "max increase": inc, "max dF/dcos": dmax}],
                       details="Exact limits (float64 rounding ~1e-16, tolerance 1e-12) and monotonicity on a grid plus "
                               "uniform random cosines. Catches: F0 and 1 swapped, the exponent applied to cos "
                               "instead of (1 - cos) (F increasing), a missing clamp.")


# ------------------------------------------------------------------------------------------------------------ C5
class _DipoleProbe(torch.nn.Module):
    """Stands in for a model's SSS MLP: returns chosen (r, sigma_s', sigma_a) per Gaussian, so that the model's own
    shading path (``SSDGS._shade``: dipole variant, k_sss, inverse-square factor) is evaluated at any point."""

    def __init__(self, ss, sa):
        super().__init__()
        self.ss, self.sa, self.r = ss, sa, None

    def forward(self, w_i, w_o, means, normals, latent):
        return self.r.expand_as(self.ss), self.ss, self.sa


def _model_profile(m, light, cam_c, ss, sa, shade_fn=None):
    """R_d(r) as the model computes it: its SSS radiance with the MLP replaced by a probe, divided by k_sss g."""
    probe = _DipoleProbe(ss, sa)
    mlp = m.modules_["sss_mlp"]
    m.modules_["sss_mlp"] = probe
    shade = (lambda *a: shade_fn(m, *a)) if shade_fn is not None else m._shade
    mu = m.params_["means"].detach()
    L = torch.as_tensor(light, dtype=D64)
    g = 1.0 / ((L[None] - mu) ** 2).sum(1)
    kss = torch.nn.functional.softplus(m.params_["ksss"].detach())[:, 0]

    def f(r):
        probe.r = torch.as_tensor(r, dtype=D64)
        with torch.no_grad():
            out = shade(light, cam_c, 1.0, {"sss"})
        return (out["SSS"][:, 0] / (kss * g)).numpy()

    return f, lambda: m.modules_.__setitem__("sss_mlp", mlp)


@check(method="ssdgs", paper=PAPER + "; Jensen et al. 2001 (SIGGRAPH) eq. 4-6", budget=10,
       guarantee="C5: the subsurface term the SSD-GS model computes is k_sss R_d(r; sigma_s', sigma_a) / d^2 with the "
                 "dipole at its MLP's own outputs, and the profile its shading evaluates integrates to Jensen's "
                 "closed-form total diffuse reflectance, 2 pi int_0^inf R(r) r dr = (a'/2)(1 + exp(-4/3 A "
                 "sqrt(3(1-a')))) exp(-sqrt(3(1-a'))), over the MLP's whole output range sigma_s', sigma_a in "
                 "[0.05, 2.05]; it decreases in r and increases in the albedo a'. A model with the official code's "
                 "variant (z_r z_v) does not satisfy the identity (about -14 % at sigma_s' = 2, sigma_a = 0.05)")
def dipole_closed_form(profile, rng, dipole="jensen", shade_fn=None):
    from scipy.integrate import quad_vec

    from iclr26sci.geom import quat_to_rotmat
    from iclr26sci.scene3d.ssdgs import dipole_profile, dipole_total_reflectance

    k = profile.pick(5, 11)
    grid = np.linspace(0.05, 2.05, k)
    SS, SA = (a.ravel() for a in np.meshgrid(grid, grid, indexing="ij"))
    SS, SA = np.r_[SS, 2.0], np.r_[SA, 0.05]
    n = len(SS)
    cam_c = torch.tensor([0.3, -0.2, -3.0], dtype=D64)
    light = np.array([1.5, -2.0, -2.5])

    # (1) the per-Gaussian SSS radiance of a model with its own (random) MLP and parameters = k_sss R_d(MLP) / d^2
    m, p = _tiny_model(rng, dipole=dipole, n=n)
    worst_fwd = 0.0
    for _ in range(profile.pick(4, 16)):
        Lr = light + rng.normal(size=3) * 0.3
        with torch.no_grad():
            shade = (lambda *a: shade_fn(m, *a)) if shade_fn is not None else m._shade
            out = shade(Lr, cam_c, 1.0, {"sss"})["SSS"]
            mu = p["means"]
            dl = torch.as_tensor(Lr, dtype=D64)[None] - mu
            d2 = (dl * dl).sum(1)
            wi = dl / d2.sqrt()[:, None]
            wo = (cam_c[None] - mu) / (cam_c[None] - mu).norm(dim=1, keepdim=True)
            nrm = quat_to_rotmat(p["local_quat"])[:, :, 2]
            r, ss, sa = m.modules_["sss_mlp"](wi, wo, mu, nrm, p["latent"])
            ref = torch.nn.functional.softplus(p["ksss"]) * (dipole_profile(r, ss, sa) / d2)[:, None]
        worst_fwd = max(worst_fwd, float(((out - ref).abs() / ref.abs()).max()))

    # (2) the profile the model's shading evaluates, at the MLP's whole output range, integrated over r
    def integrals(model_dipole):
        mm, _ = _tiny_model(np.random.default_rng(0), dipole=model_dipole, n=n)
        f, restore = _model_profile(mm, light, cam_c, torch.tensor(SS, dtype=D64), torch.tensor(SA, dtype=D64),
                                    shade_fn if model_dipole == dipole else None)
        try:
            val, err = quad_vec(lambda r: f(r) * r * 2 * math.pi, 0.0, np.inf, epsabs=1e-14, epsrel=1e-11,
                                points=[0.05, 0.5, 2.0, 10.0, 50.0], limit=20000)
            rr = np.linspace(0.0, 10.0, 1001)
            prof = np.stack([f(x) for x in rr])                       # (len(rr), n)
        finally:
            restore()
        return val, err, prof, f

    closed = dipole_total_reflectance(torch.tensor(SS, dtype=D64), torch.tensor(SA, dtype=D64)).numpy()
    ij, errj, prof, f_model = integrals(dipole)
    ic, _, _, _ = integrals("code") if dipole != "code" else (ij, errj, prof, f_model)
    ej = np.abs(ij - closed) / closed
    worst_j = float(ej[:-1].max())
    dev0 = float((ic[-1] - closed[-1]) / closed[-1])
    inc_r = float(np.diff(prof, axis=0).max())
    # albedo: at fixed sigma_t' = 1.1, R(r) of the model must grow with alpha' = sigma_s' / sigma_t'
    st, alphas = 1.1, np.linspace(0.05, 0.95, 19)
    mm, _ = _tiny_model(np.random.default_rng(1), dipole=dipole, n=len(alphas))
    fa, restore = _model_profile(mm, light, cam_c, torch.tensor(alphas * st, dtype=D64),
                                 torch.tensor((1 - alphas) * st, dtype=D64), shade_fn)
    try:
        dec_a = max(float(-np.diff(fa(rv)).min()) for rv in (0.0, 0.5, 2.0, 6.0))
    finally:
        restore()
    rows = [{"sigma_s'": float(SS[i]), "sigma_a": float(SA[i]), "closed form": float(closed[i]),
             "model integral": float(ij[i]), "code-variant model": float(ic[i]), "rel. err": float(ej[i])}
            for i in range(n)]
    crit = [Criterion("model SSS radiance vs k_sss R_d(MLP outputs) / d^2: max relative error", worst_fwd, 1e-10, "<="),
            Criterion("model's profile: max relative error of 2 pi int R r dr vs Jensen's closed form", worst_j, 1e-4,
                      "<="),
            Criterion("model's R(r) increase between neighbouring r (should be <= 0)", inc_r, 0.0, "<="),
            Criterion("model's R decrease as alpha' grows at fixed sigma_t' (should be <= 0)", dec_a, 0.0, "<="),
            Criterion("code-variant model: relative deviation at (2.0, 0.05) is large (|dev| >= 0.10)", abs(dev0), 0.10,
                      ">=")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"Everything goes through the model's own shading (SSDGS._shade, float64, model built "
                               f"with dipole={dipole!r}): (1) {n} Gaussians with a random SSS MLP, latents and "
                               "shading frames, several lights: the SSS radiance must equal k_sss R_d(r, sigma_s', "
                               "sigma_a) / d^2 at the MLP's own outputs (Jensen's dipole, 1e-10); (2) the MLP replaced "
                               f"by a probe that sets (r, sigma_s', sigma_a) on a {k}x{k} grid of the MLP's output range "
                               "plus (2.0, 0.05); the profile the shading returns, divided by k_sss / d^2, is "
                               "integrated with scipy quad_vec (relative tolerance 1e-11, estimated error "
                               f"{float(errj):.1e}), so 1e-4 is far above quadrature error. A model with the code's "
                               f"variant deviates by {100 * dev0:.1f} % at (2.0, 0.05). Catches: a model whose shading "
                               "uses the code's z_r z_v dipole, sigma_t in place of sigma_tr, a wrong A or F_dr, a "
                               "missing k_sss or inverse-square factor on the SSS term.")


# ------------------------------------------------------------------------------------------------------------ C6
@check(method="ssdgs", paper=PAPER + "; Xu et al. 2013 (ASG)", budget=1,
       guarantee="C6: the anisotropic spherical Gaussian lobe is invariant to rotations of h about its axis z_j when "
                 "lambda = mu, swapping lambda and mu equals rotating its frame by 90 degrees about z_j, and it is "
                 "maximal at h = z_j")
def asg_invariances(profile, rng, asg_fn=None):
    from scipy.spatial.transform import Rotation

    from iclr26sci.scene3d.ssdgs import asg_lobe

    asg_fn = asg_fn or asg_lobe
    J = profile.pick(16, 128)
    n_h = profile.pick(256, 4096)
    R = torch.tensor(Rotation.random(J, random_state=_seed(rng) % 2 ** 32).as_matrix(), dtype=D64)
    lam = torch.tensor(rng.uniform(0.3, 5.0, J), dtype=D64)
    mu = torch.tensor(rng.uniform(0.3, 5.0, J), dtype=D64)
    sig = torch.tensor(rng.uniform(0.1, 0.8, J), dtype=D64)
    h = torch.tensor(rng.normal(size=(n_h, 3)), dtype=D64)
    h = h / h.norm(dim=1, keepdim=True)
    e_rot, e_swap, e_max = 0.0, 0.0, 0.0
    for j in range(J):
        z = R[j, :, 2]
        ang = rng.uniform(0, 2 * np.pi)
        Rz = torch.tensor(Rotation.from_rotvec(ang * z.numpy()).as_matrix(), dtype=D64)
        g1 = asg_fn(h, R[j], lam[j], lam[j], sig[j])[:, 0]
        g2 = asg_fn(h @ Rz.T, R[j], lam[j], lam[j], sig[j])[:, 0]
        scale = float(asg_fn(z[None], R[j], lam[j], lam[j], sig[j])[0, 0])
        e_rot = max(e_rot, float((g1 - g2).abs().max()) / scale)
        R90 = torch.tensor(Rotation.from_rotvec(0.5 * np.pi * z.numpy()).as_matrix(), dtype=D64) @ R[j]
        ga = asg_fn(h, R[j], mu[j], lam[j], sig[j])[:, 0]
        gb = asg_fn(h, R90, lam[j], mu[j], sig[j])[:, 0]
        e_swap = max(e_swap, float((ga - gb).abs().max()) / scale)
        gmax = float(asg_fn(z[None], R[j], lam[j], mu[j], sig[j])[0, 0])
        near = z[None] + 0.05 * torch.tensor(rng.normal(size=(64, 3)), dtype=D64)
        near = near / near.norm(dim=1, keepdim=True)
        others = torch.cat([asg_fn(h, R[j], lam[j], mu[j], sig[j])[:, 0], asg_fn(near, R[j], lam[j], mu[j], sig[j])[:, 0]])
        e_max = max(e_max, max(0.0, float(others.max()) - gmax) / gmax)
    crit = [Criterion("lambda = mu: max |G(h) - G(R_z h)| / G(z)", e_rot, 1e-6, "<="),
            Criterion("max |G(lambda <-> mu) - G(frame rotated 90 deg)| / G(z)", e_swap, 1e-6, "<="),
            Criterion("max (G(h) - G(z_j)) / G(z_j) over random and nearby h (<= 0: maximum at z_j)", e_max, 1e-12, "<=")]
    return CheckResult(criteria=crit, table=[{"lobes": J, "directions": n_h, "rotation": e_rot, "swap": e_swap,
                                              "max excess": e_max}],
                       details="Random lobe frames (scipy), widths and directions in float64; tolerance 1e-6 (spec). "
                               "Catches: the frame's rows used as axes (transposed rotation), theta measured from the "
                               "wrong axis, lambda and mu applied to the same axis.")


# ------------------------------------------------------------------------------------------------------------ C7
def _shadow_scene(occluder_opacity, n_recv=24, n_occ=10):
    xs = np.linspace(-1.2, 1.2, n_recv)
    X, Y = np.meshgrid(xs, xs)
    recv = np.stack([X.ravel(), Y.ravel(), np.zeros(X.size)], 1)
    xo = np.linspace(-0.3, 0.3, n_occ)
    Xo, Yo = np.meshgrid(xo, xo)
    occ = np.stack([Xo.ravel(), Yo.ravel(), np.full(Xo.size, 1.0)], 1)
    means = torch.tensor(np.concatenate([recv, occ]), dtype=D64)
    n = len(means)
    step_r, step_o = xs[1] - xs[0], xo[1] - xo[0]
    ls = np.zeros((n, 3))
    ls[: len(recv), :2], ls[: len(recv), 2] = math.log(0.6 * step_r), math.log(0.02)
    ls[len(recv):, :2], ls[len(recv):, 2] = math.log(0.8 * step_o), math.log(0.02)
    op = np.full(n, 3.0)
    o = min(max(occluder_opacity, 1e-6), 1 - 1e-6)
    op[len(recv):] = math.log(o / (1 - o))
    q = torch.tensor([[1.0, 0, 0, 0]] * n, dtype=D64)
    return means, q, torch.tensor(ls, dtype=D64), torch.tensor(op, dtype=D64), recv, len(recv)


@check(method="ssdgs", paper=PAPER, budget=2,
       guarantee="C7: the light-space splatting visibility is near 0 in the umbra of an opaque occluder, near 1 in "
                 "the lit region and on the occluder itself, and the shadow deepens monotonically with the occluder's "
                 "opacity")
def shadow_visibility(profile, rng, visibility_fn=None):
    from iclr26sci.scene3d.ssdgs import light_space_visibility

    visibility_fn = visibility_fn or light_space_visibility
    light = np.array([0.0, 0.0, 4.0]) + np.r_[rng.uniform(-0.05, 0.05, 2), 0.0]
    size = profile.pick(64, 128)
    # the light camera looks at the centroid; the receiver plane (2.4 wide at distance ~4) fills ~2/3 of the image
    focal = 0.45 * size * 4.0 / 1.2
    means, q, ls, op, recv, nr = _shadow_scene(0.999)
    v = visibility_fn(means, q, ls, op, light, width=size, height=size, focal=focal)
    # umbra: the occluder square [-0.3, 0.3]^2 at height 1 projects from height 4 to [-0.4, 0.4]^2 at 0; keep a margin
    # for the footprints and the light's offset; lit: receivers whose light ray passes > 0.3 from the square
    scale = 4.0 / 3.0
    inner = np.all(np.abs(recv[:, :2]) < 0.25, axis=1)
    outer = np.any(np.abs(recv[:, :2]) > 0.3 * scale + 0.3, axis=1)
    umbra = float(v[:nr][torch.tensor(inner)].max())
    lit = float(v[:nr][torch.tensor(outer)].min())
    occ_lit = float(v[nr:].min())
    opac = np.array([0.1, 0.3, 0.5, 0.7, 0.9, 0.99])
    dark = []
    for o in opac:
        m, qq, s, oo, _, _ = _shadow_scene(o)
        vv = visibility_fn(m, qq, s, oo, light, width=size, height=size, focal=focal)
        dark.append(float(1 - vv[:nr][torch.tensor(inner)].mean()))
    from scipy.stats import spearmanr

    rho = float(spearmanr(opac, dark).statistic)
    crit = [Criterion("max visibility in the umbra", umbra, 0.05, "<"),
            Criterion("min visibility in the lit region", lit, 0.95, ">"),
            Criterion("min visibility of the occluder itself", occ_lit, 0.95, ">"),
            Criterion("Spearman(occluder opacity, umbra darkness)", rho, 1.0, ">=")]
    rows = [{"occluder opacity": float(o), "mean umbra darkness 1 - v": d} for o, d in zip(opac, dark)]
    return CheckResult(criteria=crit, table=rows,
                       details=f"Receiver plane of {nr} flat Gaussians at z = 0, an occluder square of 100 flat "
                               f"Gaussians at z = 1, light at height 4, light image {size}x{size}. Thresholds from the "
                               "spec (umbra < 0.05, lit > 0.95, rank correlation exactly 1). Catches: a missing or "
                               "reversed depth test (the occluder shadowed by the receivers behind it), a missing "
                               "offset (self-shadowing), transmittance without the occluders' opacity.")


# ------------------------------------------------------------------------------------------------------------ C8, C9
def _olat_sizes(profile):
    # quick (when named explicitly): 32 px, 6 cameras x 8 lights, 4 unseen lights, 400 Gaussians, 300 steps;
    # full: the spec's 64 px, 24 cameras x 16 lights, 8 unseen lights, 3000 Gaussians, 1500 steps
    return profile.pick(dict(size=32, cameras=6, train_lights=8, test_lights=4, n=400, steps=300, mesh="sphere"),
                        dict(size=64, cameras=24, train_lights=16, test_lights=8, n=3000, steps=1500, mesh="bunny"))


def _fit_eval(data, sz, seed, **kw):
    from iclr26sci.scene3d.ssdgs import SSDGS

    # lr_scale 10: the official rates are tuned for 100k iterations; at a few hundred steps they barely move the
    # colours (measured: test PSNR 11.8 dB at lr_scale 1 vs 17.6 dB at 10 for D, 300 steps, 32 px) [recon]
    m = SSDGS(n_gaussians=sz["n"], n_steps=sz["steps"], lr_scale=10.0, rng=seed, **kw).fit(data.train)
    return m, m.evaluate(data.test)


def _paired(a, b):
    d = np.asarray(a.per_image_psnr) - np.asarray(b.per_image_psnr)
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d)))


# C8 as a claim check. The paper's ablation on Pixiu: A diffuse only 20.19, B + specular 20.57, C + scattering 24.81,
# D full (+ shadow) 31.12 dB. Our scene has no cast shadows, so the comparable step is A -> C: 4.62 dB.
PAPER_C_MINUS_A = 24.81 - 20.19
C8_MARGIN = PAPER_C_MINUS_A / 2          # the claim: the decomposition gains at least half the paper's A -> C step


def _c8_sizes(profile):
    return profile.pick(dict(size=32, cameras=4, train_lights=24, test_lights=24, n=400, steps=600),
                        dict(size=32, cameras=6, train_lights=32, test_lights=12, n=800, steps=1500))


def _c8_psnr(m, data):
    """Per-image PSNR of a fitted model on ``data`` (the same render as SSDGS.decompose, without its light check:
    at a few hundred steps some faint Gaussians grow wide enough to enclose a test light)."""
    out = []
    with torch.no_grad():
        for i in range(len(data)):
            s_I = float(data.intensity[i]) / m.reference_intensity_
            im = m._render(m._cam(data.cameras[i]), data.lights[i], s_I, m._components()).image[..., :3]
            mse = float(((im.double().numpy() - data.images[i]) ** 2).mean())
            out.append(10 * math.log10(1.0 / max(mse, 1e-20)))
    return np.array(out)


def _c8_render(m, data, i):
    with torch.no_grad():
        s_I = float(data.intensity[i]) / m.reference_intensity_
        im = m._render(m._cam(data.cameras[i]), data.lights[i], s_I, m._components()).image[..., :3]
    return np.clip(im.double().numpy(), 0.0, 1.0)


def _c8_figure(mA, mC, test, clean_test, pA, pC, p_or, k=3):
    """Renders at unseen lights beside the ground truth (rows: test images; columns: noisy ground truth, clean
    ground truth, diffuse-only, decomposed) and the per-model unseen-light PSNR (mean, 95% CI)."""
    import matplotlib.gridspec as gridspec

    idx = np.linspace(0, len(test) - 1, k).round().astype(int)
    fig, _ = subplots(figsize=(12, 1.0 + 2.3 * k))
    fig.clear()
    gs = gridspec.GridSpec(k, 6, figure=fig, width_ratios=[1, 1, 1, 1, 0.15, 2.2])
    cols = [("ground truth (noisy)", lambda i: np.clip(test.images[i], 0, 1)),
            ("ground truth (clean)", lambda i: np.clip(clean_test[i], 0, 1)),
            ("A: diffuse only", lambda i: _c8_render(mA, test, i)),
            ("decomposed (ours)", lambda i: _c8_render(mC, test, i))]
    for r, i in enumerate(idx):
        for c, (name, get) in enumerate(cols):
            a = fig.add_subplot(gs[r, c])
            a.imshow(get(i))
            a.set_xticks([])
            a.set_yticks([])
            if r == 0:
                a.set_title(name, fontsize=11)
            if c == 0:
                a.set_ylabel(f"test image {i}")
            if c == 2:
                a.set_xlabel(f"{pA[i]:.1f} dB")
            if c == 3:
                a.set_xlabel(f"{pC[i]:.1f} dB")
    b = fig.add_subplot(gs[:, 5])
    vals = [("A diffuse", pA), ("decomposed", pC), ("oracle", p_or)]
    for j, (name, v) in enumerate(vals):
        se = v.std(ddof=1) / math.sqrt(len(v))
        b.bar(j, v.mean(), color=("C0", "C3", "grey")[j], alpha=0.7)
        b.errorbar(j, v.mean(), yerr=1.96 * se, fmt="none", ecolor="k", capsize=5)
    b.set_xticks(range(len(vals)), [n for n, _ in vals])
    b.set_ylabel(f"unseen-light PSNR, dB (mean, 95% CI, {len(pA)} images)")
    b.set_title("relighting at unseen lights")
    lo = min(v.mean() for _, v in vals)
    b.set_ylim(max(0.0, lo - 6), None)
    readable(fig, layout=False)
    fig.subplots_adjust(left=0.05, right=0.98, top=0.9, bottom=0.08, wspace=0.15, hspace=0.35)
    return fig


def _claim_decomposition(profile, rng, variant="full", sizes=None):
    """Fit diffuse-only (A) and the decomposed model on one glossy translucent sphere, compare on unseen lights.

    ``variant``: "full" = diffuse + specular + scattering (the paper's C; no cast shadows in the scene, so the shadow
    branch has nothing to do); broken variants "no_sss" / "no_specular" disable that branch of the full model."""
    from iclr26sci.scene3d import _ssdgs_data as dat
    from iclr26sci.scene3d._ssdgs_model import SSDGS

    from .claims import ClaimResult, mean_effect

    sz = sizes or _c8_sizes(profile)
    train, test, _, clean_test = dat.sphere_olat(cameras=sz["cameras"], train_lights=sz["train_lights"],
                                                 test_lights=sz["test_lights"], size=sz["size"], rng=_seed(rng))
    seed = _seed(rng)
    drop = {"full": set(), "no_sss": {"sss"}, "no_specular": {"specular"}}[variant]

    class Variant(SSDGS):
        def _components(self):
            return super()._components() - drop

    # joint schedule: the paper's H (31.09 dB) and I (31.12 dB) agree; at 600 steps the progressive milestones would
    # leave the specular term under 500 steps. lr_scale 4: the official rates are set for 100k iterations [recon]
    kw = dict(n_gaussians=sz["n"], n_steps=sz["steps"], lr_scale=4.0, schedule="joint", rng=seed, progress=False)
    mA = SSDGS(ablation="A", **kw).fit(train)
    mC = Variant(ablation="C", **kw).fit(train)
    pA, pC = _c8_psnr(mA, test), _c8_psnr(mC, test)
    p_or = np.array([10 * math.log10(1.0 / float(((c - y) ** 2).mean())) for c, y in zip(clean_test, test.images)])
    eff = mean_effect(pC - pA - C8_MARGIN, min_effect=C8_MARGIN,
                      what=f"PSNR(decomposed) - PSNR(diffuse-only) - {C8_MARGIN:.2f} dB margin, paired over unseen "
                           "(camera, light) images, dB")
    ctrl = mean_effect(p_or - pA - C8_MARGIN, min_effect=C8_MARGIN,
                       what="PSNR(ground-truth decomposition) - PSNR(diffuse-only) - margin, same images, dB")
    noise_floor = -20 * math.log10(0.01)
    rows = [{"model": "A diffuse only", "unseen-light PSNR": float(pA.mean()), "paper (Pixiu)": 20.19,
             "Gaussians (initial -> after ADC)": f"{mA.n_gaussians_init_} -> {mA.n_gaussians_}"},
            {"model": "decomposed" + ("" if variant == "full" else f" ({variant}, broken)"),
             "unseen-light PSNR": float(pC.mean()), "paper (Pixiu)": 24.81,
             "Gaussians (initial -> after ADC)": f"{mC.n_gaussians_init_} -> {mC.n_gaussians_}"},
            {"model": "ground-truth decomposition (oracle)", "unseen-light PSNR": float(p_or.mean()),
             "paper (Pixiu)": float("nan"), "Gaussians (initial -> after ADC)": ""}]
    adc = (f"adaptive density control (3DGS schedule scaled to {sz['steps']} steps: "
           f"{mC.densify_schedule_}; cap {4 * sz['n']}): A {mA.n_gaussians_init_} -> {mA.n_gaussians_}, decomposed "
           f"{mC.n_gaussians_init_} -> {mC.n_gaussians_} Gaussians" if mC.densify_schedule_ else "no densification")
    return ClaimResult(effect=eff, control=ctrl, table=rows, figure=_c8_figure(mA, mC, test, clean_test, pA, pC, p_or),
                       details=f"Glossy translucent sphere (specular k_s 1.5, ASG 8; subsurface with wrap 1: it glows "
                               f"on the side away from the light; albedo 0.05), {sz['size']} px, {sz['cameras']} cameras "
                               f"x {sz['train_lights']} training lights, {sz['test_lights']} unseen lights, sensor noise "
                               f"0.01 (floor {noise_floor:.0f} dB); {sz['n']} initial Gaussians, {sz['steps']} steps per "
                               f"model, same seed; {adc}. Mean PSNR: A {pA.mean():.2f}, decomposed {pC.mean():.2f}, oracle "
                               f"{p_or.mean():.2f} dB; gain {float((pC - pA).mean()):.2f} dB (paper C - A "
                               f"{PAPER_C_MINUS_A:.2f}); the test asks for a gain above half of it "
                               f"({C8_MARGIN:.2f} dB).")


from .claims import claim as _claim  # noqa: E402


@_claim(method="ssdgs", name="relighting_generalisation", paper=PAPER + " (Table: ablation A-D on Pixiu)",
        budget=180,
        claim="Decomposing appearance into diffuse, specular and subsurface scattering terms relights unseen lights "
              "far better than a diffuse-only model",
        paper_setting="NRHints Pixiu, unseen lights, 100k iterations: A diffuse only 20.19, B + specular 20.57, "
                      "C + scattering 24.81, D full 31.12 dB",
        paper_number="C - A = +4.62 dB (scattering and specular, no shadow term); D - A = +10.9 dB",
        regime="The sphere is glossy (moving highlights) and translucent (it glows on the side facing away from "
               "the light), with nothing to cast shadows: under an unseen light most of its appearance is transport "
               "a clamped-cosine Lambert term cannot produce, and the decomposed model has the terms for it.",
        control="Oracle: the noise-free ground-truth decomposition (diffuse + specular + subsurface) rendered at the "
                "unseen lights in the decomposed model's place, on the same images",
        test="one-sided paired t over unseen (camera, light) images of PSNR(decomposed) - PSNR(diffuse-only) - 2.31 dB "
             "(half the paper's 4.62 dB), alpha 0.05; power for 2.31 dB beyond the margin")
def relighting_generalisation(profile, rng, variant="full"):
    return _claim_decomposition(profile, rng, variant)


@check(method="ssdgs", paper=PAPER + " (Table: schedules H-K)", budget=400, slow=True,
       guarantee="C9: the progressive schedule (I) is not worse than joint training (H) on unseen lights "
                 "(PSNR_I >= PSNR_H - 0.1 dB within 3 paired SE) and leaks less specular energy into Lambert-only objects")
def progressive_vs_joint(profile, rng):
    from iclr26sci.scene3d.ssdgs import olat_scene

    sz = _olat_sizes(profile)
    data = olat_scene(mesh=sz["mesh"], materials="mixed", cameras=sz["cameras"], train_lights=sz["train_lights"],
                      test_lights=sz["test_lights"], size=sz["size"], rng=_seed(rng), light_samples=4)
    seed = _seed(rng)
    mI, sI = _fit_eval(data, sz, seed, schedule="progressive")
    mH, sH = _fit_eval(data, sz, seed, schedule="joint")
    d, se = _paired(sI, sH)
    rows = [{"schedule": k, "test PSNR": s.psnr, "test SSIM": s.ssim, "specular leak": s.specular_leak,
             "train s": m.train_seconds_} for k, (m, s) in {"I progressive": (mI, sI), "H joint": (mH, sH)}.items()]
    crit = [Criterion("PSNR(I) - PSNR(H) + 3 SE, dB (non-inferiority, margin 0.1 dB)", d + 3 * se, -0.1, ">="),
            Criterion("specular leak: I minus H (< 0: progressive leaks less)", sI.specular_leak - sH.specular_leak,
                      0.0, "<")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"Same data and seed for both schedules ({sz['size']} px, {sz['n']} Gaussians, "
                               f"{sz['steps']} steps). Leak = specular image energy on the ground and cylinder "
                               f"(Lambert-only) / rendered energy there. PSNR difference {d:.2f} dB (paired SE {se:.2f}). "
                               "Catches: a schedule that switches the specular term on early enough to absorb "
                               "diffuse shading (the joint schedule is the broken variant of the leak criterion).")
