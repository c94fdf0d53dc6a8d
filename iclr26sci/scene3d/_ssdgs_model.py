"""The SSD-GS estimator (private module; public as :class:`iclr26sci.scene3d.ssdgs.SSDGS`)."""
from __future__ import annotations

import math
import time

import numpy as np
import torch
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, as_generator, check_is_fitted, progress, resolve_rng

from . import _ssdgs_shading as sh
from ._ssdgs_shadow import light_camera, splat_visibility

# milestones of the official real-scene schedule (100k iterations), as fractions of the run [code]
_FRAC = {"shadow_on": 5000 / 1e5, "sss_on": 9000 / 1e5, "sss_freeze": (13000 / 1e5, 20000 / 1e5),
         "spec_on": 16000 / 1e5, "asg_shape": 22000 / 1e5}

_GROUP_LR = {  # (initial, final, decay horizon as a fraction of the run) [code]; None = constant
    "means": (1.6e-4, 1.6e-6, 0.7), "asg": (1e-2, 1e-4, 0.5), "asg_shape": (1e-2, 1e-4, 0.5),
    "local": (1e-2, 1e-4, 0.5), "latent_shadow": (1e-3, 1e-5, 0.5), "sss_mlp": (1e-3, 1e-5, 0.5),
    "colors": (0.01, None, None), "opacity": (0.05, None, None), "scales": (5e-3, None, None),
    "quats": (1e-3, None, None), "sh": (2.5e-3, None, None), "light_mlp": (1e-3, 1e-5, 0.5)}


def _expon_lr(lr0, lr1, t):
    if lr1 is None:
        return lr0
    t = min(max(t, 0.0), 1.0)
    return math.exp((1 - t) * math.log(lr0) + t * math.log(lr1))


def _quat_from_z(normals):
    """Unit quaternions (w, x, y, z) rotating e_z onto each normal."""
    z = torch.tensor([0.0, 0.0, 1.0], dtype=normals.dtype)
    n = normals / normals.norm(dim=1, keepdim=True)
    c = (n * z).sum(1)
    axis = torch.linalg.cross(z.expand_as(n), n)
    q = torch.cat([(1 + c)[:, None], axis], 1)
    bad = c < -1 + 1e-9                                     # antiparallel: rotate by pi about x
    q[bad] = torch.tensor([0.0, 1.0, 0.0, 0.0], dtype=normals.dtype)
    return q / q.norm(dim=1, keepdim=True)


class SSDGS(BaseEstimator):
    r"""SSD-GS relightable Gaussian splatting: fit OLAT images, relight with new point lights, decompose.

    Each Gaussian carries geometry (mean, rotation, log-scales, opacity) and a physically based shading model:
    Lambert diffuse :math:`D_k`, Schlick-Fresnel x mixture-of-8-ASG specular :math:`\mathrm{Spec}_k` in its own
    shading frame, a learnable dipole subsurface term :math:`\mathrm{SSS}_k` (an MLP predicts the dipole's
    distance, :math:`\sigma'_s` and :math:`\sigma_a`) and a shadow :math:`S_k` (light-space splatting
    visibility refined by a small MLP):

    .. math:: C_k = s_I\,[(D_k + \mathrm{Spec}_k) S_k + \mathrm{SSS}_k]

    The 13-channel vector :math:`[C, D, \mathrm{Spec}, \mathrm{SSS}, S]` is rasterized with
    :func:`iclr26sci.geom.rasterize_gaussians`; the loss is :math:`0.8 L_1 + 0.2 (1 - \mathrm{SSIM})`, Adam
    (eps 1e-15) with the official learning rates, and the components are switched on by the schedule.

    Parameters
    ----------
    n_gaussians : int
        Number of Gaussians, initialised on the data's surface point cloud (3DGS kNN scale rule).
    n_steps : int
        Training iterations (one (camera, light) image per step). The paper's schedule milestones
        (5k, 9k, 13k-20k, 16k, 22k of 100k) are applied as the same fractions of ``n_steps``.
    schedule : {"progressive", "joint", "swapped", "merged"}
        I: the paper's progressive order (diffuse, then shadow at 5 %, subsurface at 9 %, specular at 16 %,
        with the code's freezes); H "joint": every component from step 0; J "swapped": diffuse, specular,
        subsurface, shadow (the reverse order of the physical terms); K "merged": diffuse warm-up, then all
        at 5 %.
    ablation : {"A", "B", "C", "D", "E", "F"}
        Which components exist: A diffuse only, B + specular, C + subsurface, D full (+ shadow),
        E full without specular, F full without subsurface.
    appearance : {"ssdgs", "gs3", "light_mlp", "sh"}
        The shading model: SSD-GS; GS3-lite (Lambert + ASG specular + splatted shadow, no subsurface, no
        refinement MLP); a light-conditioned MLP colour with a per-Gaussian latent code (RNG-like); or
        light-agnostic degree-1 spherical harmonics (the paper's 3DGS column). Baselines ignore ``ablation``.
    dipole : {"jensen", "code"}
        The subsurface profile: Jensen et al.'s standard dipole (physically correct; default) or the
        official code's variant with :math:`z_r z_v` in the virtual-source term.
    normal_init : {"data", "identity"}
        Initial shading frames: aligned with the point cloud's normals, or the code's identity (normal = +z).
    lr_scale : float
        Multiplies every learning rate (> 0); 1 = the official rates.
    shadow_offset : float
        Light-space depth offset (scene units) of the visibility splat (the code's 0.015).
    densify : bool
        Adaptive density control as in 3DGS and the official code (:class:`iclr26sci.geom.DefaultStrategy`):
        Gaussians whose mean screen-space gradient exceeds ``densify_grad`` are cloned (largest scale at most
        ``percent_dense`` x the camera extent) or split in two (scales / 1.6), Gaussians with opacity below
        ``prune_opacity`` are pruned, and opacities are reset to at most ``2 * prune_opacity`` on schedule. Every
        per-Gaussian attribute (geometry, k_d, k_s, k_sss, ASG weights, shading frame, latent; SH or MLP latents
        for the baselines) and its Adam moments are edited together.
    densify_grad, percent_dense, prune_opacity : float
        Thresholds (3DGS / official defaults 2e-4 in NDC units, 0.01, 0.005).
    densify_from, densify_until, densify_every, opacity_reset_every : int or None
        Schedule in steps; None = the 3DGS defaults (500, 15000, 100, 3000 of 30k iterations) scaled to
        ``n_steps``: the same fractions of the run, the interval floored at 10 steps and the reset interval at
        ``3000 / lr_scale`` (the opacities' recovery time after a reset does not shrink with the run; see
        ``_ssdgs_adc``).
    max_gaussians : int or None
        Cap on the count (growth is budgeted to the largest gradients, as the code's ``maximum_gs``);
        None = 4 x ``n_gaussians``.
    device : str
        Torch device ("cpu", "cuda", ...).
    rng : int, Generator or None
        Seed for initialisation and image sampling.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.
    progress : bool or None
        Show a progress bar (None = only at a terminal).

    Attributes
    ----------
    n_gaussians_ : int
        Number of Gaussians after training (``n_gaussians_init_`` before).
    densify_history_ : list of dict
        One entry per refinement: step, cloned, split, pruned and the count after it.
    history_ : list of float
        Training loss per step.
    train_seconds_ : float
    reference_intensity_ : float
        Mean training light intensity; ``s_I = intensity / reference_intensity_``.

    References
    ----------
    I. Zheng, G. Tang, A. Doronin, P. Teal, F.-L. Zhang, "SSD-GS: Scattering and Shadow Decomposition for
    Relightable 3D Gaussian Splatting", ICLR 2026, arXiv:2604.13333. Jensen et al., SIGGRAPH 2001.
    Kerbl et al., 3D Gaussian Splatting, SIGGRAPH 2023.

    Examples
    --------
    >>> from iclr26sci.scene3d import SSDGS, olat_scene
    >>> data = olat_scene(mesh="sphere", cameras=1, train_lights=2, test_lights=1, size=8, rng=0, light_samples=1,
    ...                   backend="numpy")
    >>> model = SSDGS(n_gaussians=50, n_steps=3, rng=0).fit(data.train)
    >>> model.relight(data.test.cameras[0], data.test.lights[0]).shape
    (8, 8, 3)
    """

    def __init__(self, n_gaussians=3000, n_steps=2000, schedule="progressive", ablation="D", appearance="ssdgs",
                 dipole="jensen", normal_init="data", lr_scale=1.0, shadow_offset=0.015, densify=True,
                 densify_grad=2e-4, percent_dense=0.01, prune_opacity=0.005, densify_from=None, densify_until=None,
                 densify_every=None, opacity_reset_every=None, max_gaussians=None, device="cpu", rng=None,
                 progress=None, random_state=None):
        self.n_gaussians = n_gaussians
        self.n_steps = n_steps
        self.schedule = schedule
        self.ablation = ablation
        self.appearance = appearance
        self.dipole = dipole
        self.normal_init = normal_init
        self.lr_scale = lr_scale
        self.shadow_offset = shadow_offset
        self.densify = densify
        self.densify_grad = densify_grad
        self.percent_dense = percent_dense
        self.prune_opacity = prune_opacity
        self.densify_from = densify_from
        self.densify_until = densify_until
        self.densify_every = densify_every
        self.opacity_reset_every = opacity_reset_every
        self.max_gaussians = max_gaussians
        self.device = device
        self.rng = rng
        self.random_state = random_state
        self.progress = progress

    # ------------------------------------------------------------------ validation
    def _validate(self):
        from .ssdgs import ABLATIONS, APPEARANCES, SCHEDULES, _int, _option, _real

        _int(self.n_gaussians, "n_gaussians", 1)
        _int(self.n_steps, "n_steps", 0)
        _option(self.schedule, "schedule", SCHEDULES)
        _option(self.ablation, "ablation", tuple(ABLATIONS))
        _option(self.appearance, "appearance", APPEARANCES)
        _option(self.dipole, "dipole", ("jensen", "code"))
        _option(self.normal_init, "normal_init", ("data", "identity"))
        _real(self.lr_scale, "lr_scale", 0.0, lo_open=True, expected="a learning-rate multiplier > 0")
        _real(self.shadow_offset, "shadow_offset", 0.0, expected="a depth offset >= 0 (scene units)")
        from ._ssdgs_adc import check_adc_args

        check_adc_args(self)
        if self.progress is not None and not isinstance(self.progress, bool):
            raise InputError("progress", f"got {self.progress!r}", "True, False or None")
        from ._checks import check_device

        resolve_rng(self.rng, self.random_state)
        return check_device(self.device)

    # ------------------------------------------------------------------ components and schedule
    def _components(self):
        from .ssdgs import ABLATIONS

        if self.appearance == "ssdgs":
            return set(ABLATIONS[self.ablation])
        if self.appearance == "gs3":
            return {"diffuse", "specular", "shadow"}
        return {"colour"}

    def _stage(self, step, n_steps):
        """(components on at this step, parameter groups frozen at this step)."""
        f = step / max(n_steps, 1)
        comps = self._components()
        if comps == {"colour"}:
            return comps, set()
        sched = self.schedule
        frozen = set()
        if sched == "joint":
            on = set(comps)
        elif sched == "merged":
            on = set(comps) if f >= _FRAC["shadow_on"] else {"diffuse"}
        elif sched == "swapped":
            on = {"diffuse"}
            if f >= _FRAC["shadow_on"]:
                on.add("specular")
            if f >= _FRAC["sss_on"]:
                on.add("sss")
            if f >= _FRAC["spec_on"]:
                on.add("shadow")
        else:  # progressive (the code's order and freezes)
            on = {"diffuse"}
            if f > _FRAC["shadow_on"]:
                on.add("shadow")
            if f >= _FRAC["sss_on"]:
                on.add("sss")
                if f < _FRAC["spec_on"]:
                    frozen.add("latent_shadow")
            lo, hi = _FRAC["sss_freeze"]
            if lo <= f < hi:
                frozen.add("sss_mlp")
            if f >= _FRAC["spec_on"]:
                on.add("specular")
            if f <= _FRAC["asg_shape"]:
                frozen.add("asg_shape")
        if "shadow" not in on:
            frozen.add("latent_shadow")
        return on & comps, frozen

    # ------------------------------------------------------------------ parameters
    def _init_params(self, data, dev, gen):
        dt = torch.float32
        P = data.points
        N = int(self.n_gaussians)
        idx = gen.choice(len(P), size=N, replace=N > len(P))
        pts = torch.tensor(P[idx], dtype=dt)
        from iclr26sci.geom import init_log_scales

        if N > 3:
            ls = init_log_scales(pts.to(torch.float64)).to(dt)
        else:
            ls = torch.full((N, 3), math.log(0.05), dtype=dt)
        if self.normal_init == "data" and data.normals is not None:
            lq = _quat_from_z(torch.tensor(data.normals[idx], dtype=torch.float64)).to(dt)
        else:
            lq = torch.tensor([[1.0, 0.0, 0.0, 0.0]], dtype=dt).repeat(N, 1)
        p = {"means": pts, "quats": torch.tensor([[1.0, 0, 0, 0]], dtype=dt).repeat(N, 1), "log_scales": ls,
             "opacity": torch.full((N,), math.log(0.1 / 0.9), dtype=dt)}
        if self.appearance in ("ssdgs", "gs3"):
            p.update({"kd": torch.full((N, 3), 0.5, dtype=dt), "ks": torch.full((N, 3), 0.5, dtype=dt),
                      "ksss": torch.full((N, 3), 0.5, dtype=dt), "asg_w": torch.zeros(N, sh.N_LOBES, dtype=dt),
                      "local_quat": lq, "latent": torch.ones(N, sh.LATENT_DIM, dtype=dt),
                      "asg_lm": torch.tensor([[-2.1972 / 2, -2.1972]], dtype=dt).repeat(sh.N_LOBES, 1),
                      "asg_sigma": torch.zeros(sh.N_LOBES, dtype=dt),
                      "asg_quat": torch.tensor([[1.0, 0, 0, 0]], dtype=dt).repeat(sh.N_LOBES, 1)})
        elif self.appearance == "sh":
            shc = torch.zeros(N, 4, 3, dtype=dt)
            shc[:, 0] = (0.3 - 0.5) / 0.28209479177387814
            p["sh"] = shc
        else:
            p["latent"] = torch.zeros(N, 16, dtype=dt)
        self.params_ = {k: torch.nn.Parameter(v.to(dev)) for k, v in p.items()}
        mods = {}
        if self.appearance == "ssdgs":
            mods["sss_mlp"] = sh.ScatterMLP(device=dev)
            mods["shadow_mlp"] = sh.ShadowMLP(device=dev)
        if self.appearance == "light_mlp":
            layers = [torch.nn.Linear(27 * 2 + 1 + 16 + 24, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64),
                      torch.nn.ReLU(), torch.nn.Linear(64, 3)]
            mods["light_mlp"] = torch.nn.Sequential(*layers).to(dev)
        self.modules_ = mods

    def _groups(self):
        p = self.params_
        g = {"means": [p["means"]], "quats": [p["quats"]], "scales": [p["log_scales"]], "opacity": [p["opacity"]]}
        if "kd" in p:
            g.update({"colors": [p["kd"], p["ks"], p["ksss"]], "asg": [p["asg_w"], p["asg_sigma"]],
                      "asg_shape": [p["asg_lm"], p["asg_quat"]], "local": [p["local_quat"]],
                      "latent_shadow": [p["latent"]] + (list(self.modules_["shadow_mlp"].parameters())
                                                        if "shadow_mlp" in self.modules_ else [])})
            if "sss_mlp" in self.modules_:
                g["sss_mlp"] = list(self.modules_["sss_mlp"].parameters())
        if "sh" in p:
            g["sh"] = [p["sh"]]
        if "light_mlp" in self.modules_:
            g["light_mlp"] = [p["latent"]] + list(self.modules_["light_mlp"].parameters())
        return g

    def _make_optimizer(self, groups=None):
        """One Adam (eps 1e-15, as the code) with a named parameter group per learning-rate group."""
        groups = self._groups() if groups is None else groups
        return torch.optim.Adam([{"params": v, "name": k} for k, v in groups.items()], eps=1e-15, foreach=True)

    # ------------------------------------------------------------------ shading
    def _shade(self, light, cam_centre, s_I, on, vis=None):
        """Per-Gaussian radiance and components: dict of C (N, 3), D, Spec, SSS (N, 3), S (N,)."""
        from iclr26sci.geom import quat_to_rotmat

        p = self.params_
        mu = p["means"]
        N = mu.shape[0]
        dt, dev = mu.dtype, mu.device
        L = torch.as_tensor(light, dtype=dt, device=dev)
        o = torch.as_tensor(cam_centre, dtype=dt, device=dev)
        dl = L[None] - mu
        r2 = (dl * dl).sum(1).clamp(min=1e-12)
        wi = dl / r2.sqrt()[:, None]
        do = o[None] - mu
        wo = do / do.norm(dim=1, keepdim=True).clamp(min=1e-12)
        g = 1.0 / r2
        zero3 = torch.zeros(N, 3, dtype=dt, device=dev)
        one = torch.ones(N, dtype=dt, device=dev)
        out = {"D": zero3, "Spec": zero3, "SSS": zero3, "S": one}
        if self.appearance == "sh":
            c = p["sh"]
            d = -wo      # direction from camera to Gaussian, as 3DGS
            basis = torch.stack([torch.full_like(d[:, 0], 0.28209479177387814), -0.4886025119029199 * d[:, 1],
                                 0.4886025119029199 * d[:, 2], -0.4886025119029199 * d[:, 0]], 1)
            col = torch.clamp((basis[:, :, None] * c).sum(1) + 0.5, min=0.0)
            out["C"] = col * s_I
            return out
        if self.appearance == "light_mlp":
            z = torch.cat([sh.positional_encoding(wi), sh.positional_encoding(wo), torch.log(g)[:, None], p["latent"],
                           sh.frequency_encoding(mu)], 1)
            out["C"] = torch.nn.functional.softplus(self.modules_["light_mlp"](z)) * s_I
            return out
        sp = torch.nn.functional.softplus
        R = quat_to_rotmat(p["local_quat"])                      # (N, 3, 3), columns = local axes
        n = R[:, :, 2]
        cos = (n * wi).sum(1)
        if "diffuse" in on:
            out["D"] = sp(p["kd"]) / math.pi * (sh.smooth_cosine(cos) * g)[:, None]
        if "specular" in on:
            wi_l = torch.einsum("nji,nj->ni", R, wi)
            wo_l = torch.einsum("nji,nj->ni", R, wo)
            h = wi_l + wo_l
            h = h / h.norm(dim=1, keepdim=True).clamp(min=1e-12)
            F = sh.schlick((wi_l * h).sum(1))
            lm = 10.0 * torch.sigmoid(p["asg_lm"])
            sig = torch.sigmoid(p["asg_sigma"]) * sp(torch.linspace(-2.0, 0.0, sh.N_LOBES, dtype=dt, device=dev))
            frames = quat_to_rotmat(p["asg_quat"])
            G = sh.asg_eval(h, frames, lm[:, 0], lm[:, 1], sig)                 # (N, J)
            out["Spec"] = sp(p["ks"]) * (F * (sp(p["asg_w"]) * G).sum(1) * g)[:, None]
        if "sss" in on and "sss_mlp" in self.modules_:
            r, ss, sa = self.modules_["sss_mlp"](wi, wo, mu, n, p["latent"])
            Rd = sh.dipole(r, ss, sa, variant=self.dipole)
            out["SSS"] = sp(p["ksss"]) * (Rd * g)[:, None]
        if "shadow" in on and vis is not None:
            if "shadow_mlp" in self.modules_:
                out["S"] = self.modules_["shadow_mlp"](wi, mu, p["latent"], vis.to(dt))
            else:
                out["S"] = vis.to(dt)
        out["C"] = s_I * ((out["D"] + out["Spec"]) * out["S"][:, None] + out["SSS"])
        out["D"], out["Spec"], out["SSS"] = s_I * out["D"], s_I * out["Spec"], s_I * out["SSS"]
        return out

    def _visibility(self, light, cam):
        p = self.params_
        L = np.asarray(light, np.float64)
        o = cam.centre.detach().cpu().numpy().astype(np.float64)
        f = float(cam.fx) * float(np.linalg.norm(L)) / max(float(np.linalg.norm(o)), 1e-9)
        lc = light_camera(L, p["means"], cam.width, cam.height, f, dtype=torch.float64)
        return splat_visibility(p["means"].detach().double(), p["quats"].detach().double(),
                                p["log_scales"].detach().double(), p["opacity"].detach().double(), lc,
                                offset=float(self.shadow_offset))

    def _render(self, cam, light, s_I, on):
        from iclr26sci.geom import rasterize_gaussians

        p = self.params_
        vis = self._visibility(light, cam) if "shadow" in on else None
        out = self._shade(light, cam.centre, s_I, on, vis)
        feats = torch.cat([out["C"], out["D"], out["Spec"], out["SSS"], out["S"][:, None]], 1)
        return rasterize_gaussians(p["means"], p["quats"], p["log_scales"], p["opacity"], feats, cam)

    def _cam(self, cam):
        key = id(cam)
        c = self._cams.get(key)
        if c is None:
            c = cam.to(device=self.params_["means"].device, dtype=torch.float32)
            self._cams[key] = c
        return c

    # ------------------------------------------------------------------ public API
    def fit(self, data):
        """Fit the Gaussians and the shading model to OLAT images.

        Parameters
        ----------
        data : OLATSet or OLATData
            Training images with cameras, light positions, intensities and an initial point cloud
            (``OLATData`` uses its ``train`` set).

        Returns
        -------
        self
        """
        from iclr26sci.geom._metrics import _ssim

        from .ssdgs import OLATData, OLATSet

        dev = self._validate()
        if isinstance(data, OLATData):
            data = data.train
        if not isinstance(data, OLATSet):
            raise InputError("data", f"got {type(data).__name__}", "an OLATSet or OLATData (see olat_scene)")
        if data.points is None or len(data.points) < 1:
            raise InputError("data", "has no point cloud (points) to initialise the Gaussians from",
                             "an OLATSet with points (P, 3)")
        gen = as_generator(resolve_rng(self.rng, self.random_state))
        torch.manual_seed(int(gen.integers(2 ** 62)))
        self._init_params(data, dev, gen)
        self._cams = {}
        self.reference_intensity_ = float(np.mean(data.intensity))
        groups = self._groups()
        extent = float(np.linalg.norm(data.points.max(0) - data.points.min(0))) / 2
        lrs = {k: tuple(v) for k, v in _GROUP_LR.items()}
        lrs["means"] = (1.6e-4 * extent, 1.6e-6 * extent, 0.7)
        opt = self._make_optimizer(groups)
        imgs = torch.tensor(data.images, dtype=torch.float32, device=dev)
        n_steps = int(self.n_steps)
        hist = []
        t0 = time.perf_counter()
        order = gen.integers(0, len(data), size=n_steps)
        from ._ssdgs_adc import make_densifier

        dens = make_densifier(self, opt, data, n_steps, int(gen.integers(2 ** 62)))
        n0 = int(self.params_["means"].shape[0])
        for step in progress(range(n_steps), desc="SSD-GS fit", enabled=self.progress):
            on, frozen = self._stage(step, n_steps)
            i = int(order[step])
            cam = self._cam(data.cameras[i])
            s_I = float(data.intensity[i]) / self.reference_intensity_
            out = self._render(cam, data.lights[i], s_I, on)
            pred = out.image[..., :3]
            gt = imgs[i]
            # the loss's SSIM takes the raw render: a render may overshoot [0, 1] transiently during training
            loss = 0.8 * (pred - gt).abs().mean() + 0.2 * (1 - _ssim(pred.permute(2, 0, 1)[None],
                                                                      gt.permute(2, 0, 1)[None]))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            for grp in opt.param_groups:
                lr0, lr1, hor = lrs[grp["name"]]
                grp["lr"] = self.lr_scale * _expon_lr(lr0, lr1, step / max(1, (hor or 1) * n_steps))
                if grp["name"] in frozen:
                    for q in grp["params"]:
                        q.grad = None
            opt.step()
            if dens is not None:
                dens.after_step(step + 1, out, cam.width, cam.height)
            hist.append(float(loss.detach()))
        self.train_seconds_ = time.perf_counter() - t0
        self.history_ = hist
        self.n_gaussians_ = int(self.params_["means"].shape[0])
        self.n_gaussians_init_ = n0
        self.densify_history_ = list(dens.history) if dens is not None else []
        self.densify_schedule_ = dict(dens.schedule) if dens is not None else None
        self.components_ = sorted(self._components())
        self.scene_extent_ = extent
        return self

    def _check_render_args(self, camera, light, intensity, method):
        from iclr26sci.geom import Camera

        from .ssdgs import _check_light_outside, _vec3

        check_is_fitted(self, "params_", method=method)
        if not isinstance(camera, Camera):
            raise InputError("camera", f"got {type(camera).__name__}", "an iclr26sci.geom.Camera")
        L = _vec3(light, "light")
        o = camera.centre.detach().cpu().numpy().astype(np.float64)
        if np.linalg.norm(L - o) < 1e-3 * max(self.scene_extent_, 1e-9):
            raise InputError("light", f"{L.tolist()} is at the camera centre", "a light position away from the camera "
                             "(a co-located flash must be offset from the centre of projection)")
        _check_light_outside(L, self.params_["means"], self.params_["log_scales"], self.params_["quats"])
        if intensity is None:
            s = 1.0
        else:
            a = np.asarray(intensity, dtype=np.float64) if not isinstance(intensity, bool) else np.array(np.nan)
            if a.shape not in ((), (3,)) or not np.all(np.isfinite(a)) or np.any(a <= 0):
                raise InputError("intensity", f"got {intensity!r}", "a light intensity > 0 (scalar or RGB 3-vector)")
            s = a / self.reference_intensity_
        dev = self.params_["means"].device
        s_I = torch.as_tensor(s, dtype=torch.float32, device=dev)
        return L, s_I

    @torch.no_grad()
    def decompose(self, camera, light, intensity=None):
        """Render the relit image and its diffuse, specular, subsurface and shadow images.

        Parameters
        ----------
        camera : iclr26sci.geom.Camera
            The viewpoint (any camera, not only training ones).
        light : array-like (3,)
            Point-light position, outside the object and away from the camera centre.
        intensity : float or array-like (3,), optional
            Light intensity (scalar or RGB colour x intensity, > 0); default: the training intensity.

        Returns
        -------
        Decomposition
        """
        from .ssdgs import Decomposition

        L, s_I = self._check_render_args(camera, light, intensity, "decompose")
        on = self._components()
        if not hasattr(self, "_cams"):
            self._cams = {}
        out = self._render(self._cam(camera), L, s_I, on)
        im = out.image.cpu().numpy().astype(np.float64)
        return Decomposition(image=im[..., 0:3], diffuse=im[..., 3:6], specular=im[..., 6:9], subsurface=im[..., 9:12],
                             shadow=im[..., 12] + (1.0 - out.alpha.cpu().numpy()),
                             alpha=out.alpha.cpu().numpy().astype(np.float64))

    def relight(self, camera, light, intensity=None):
        """The image of the fitted scene under a point light (linear radiance, unclipped).

        Parameters
        ----------
        camera : iclr26sci.geom.Camera
        light : array-like (3,)
            Point-light position (outside the object, away from the camera centre).
        intensity : float or array-like (3,), optional
            Light intensity or RGB colour (> 0); default: the training intensity.

        Returns
        -------
        ndarray (H, W, 3)
        """
        check_is_fitted(self, "params_", method="relight")
        return self.decompose(camera, light, intensity).image

    def evaluate(self, data):
        """PSNR / SSIM of relit images against ground truth, per-component errors and the specular leak.

        PSNR uses the render as it is; SSIM, whose constants assume images in [0, 1], uses the render clipped to
        [0, 1] (as 3DGS's evaluation clamps its renders), so a model that overshoots at an unseen light (a
        specular lobe grown too bright) is scored, not refused.

        Parameters
        ----------
        data : OLATSet or OLATData
            Test images (``OLATData`` uses its ``test`` set: the unseen lights).

        Returns
        -------
        RelightingScores
        """
        from iclr26sci.geom import ssim

        from .ssdgs import OLATData, OLATSet, RelightingScores

        check_is_fitted(self, "params_", method="evaluate")
        if isinstance(data, OLATData):
            data = data.test
        if not isinstance(data, OLATSet):
            raise InputError("data", f"got {type(data).__name__}", "an OLATSet or OLATData")
        ps, ss, leak_num, leak_den, t_render = [], [], 0.0, 0.0, 0.0
        comp = {"diffuse": [], "specular": [], "subsurface": [], "shadow": []}
        for i in range(len(data)):
            t0 = time.perf_counter()
            dec = self.decompose(data.cameras[i], data.lights[i], data.intensity[i])
            t_render += time.perf_counter() - t0
            gt = data.images[i]
            mse = float(np.mean((dec.image - gt) ** 2))
            ps.append(10 * math.log10(1.0 / max(mse, 1e-20)))
            a = torch.tensor(np.clip(dec.image, 0.0, 1.0), dtype=torch.float64).permute(2, 0, 1)[None]
            b = torch.tensor(gt, dtype=torch.float64).permute(2, 0, 1)[None]
            ss.append(float(ssim(a, b)))
            for k in ("diffuse", "specular", "subsurface"):
                ref = getattr(data, k)
                if ref is not None:
                    comp[k].append(float(np.mean((getattr(dec, k) - ref[i]) ** 2)))
            if data.shadow is not None and data.object_ids is not None:
                hit = data.object_ids[i] >= 0
                comp["shadow"].append(float(np.mean((dec.shadow[hit] - data.shadow[i][hit]) ** 2)) if hit.any() else 0.0)
            if data.lambert_mask is not None:
                m = data.lambert_mask[i]
                leak_num += float(np.clip(dec.specular[m], 0, None).sum())
                leak_den += float(np.clip(dec.image[m], 0, None).sum())
        return RelightingScores(psnr=float(np.mean(ps)), ssim=float(np.mean(ss)),
                                component_mse={k: float(np.mean(v)) for k, v in comp.items() if v},
                                specular_leak=leak_num / leak_den if leak_den > 0 else float("nan"),
                                n_images=len(data), per_image_psnr=np.array(ps), render_seconds=t_render / len(data))

    def __sklearn_is_fitted__(self):
        return hasattr(self, "params_")
