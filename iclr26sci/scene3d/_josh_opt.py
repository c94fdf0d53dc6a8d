r"""JOSH's joint optimisation (private; documented in :mod:`iclr26sci.scene3d.josh`).

A CPU re-implementation of ``sparse_scene_optimizer`` in genforce/JOSH ``josh/utils/josh_utils.py`` (a fork of
MASt3R's sparse global alignment): cameras as a kinematic chain on the MST of pairwise match scores, one log-scale
per frame, one shared focal, human pose and shape in each camera's frame, and the losses L_3D / L_2D (scene),
L_c1 (contact scale), L_c2 (contact stillness), L_smooth and L_prior, with the robust ``gamma_loss`` and the two
Adam / cosine phases.
"""
from __future__ import annotations

import math
import time

import numpy as np
import torch

LOSS_TERMS = ("scene", "c1", "c2", "smooth", "prior", "keypoints")


def gamma_loss_t(r, gamma):
    r"""rho_gamma(|r|) = (|r| + c)^gamma - c^gamma, c = (1/gamma)^(1/(gamma-1)) (|r| for gamma = 1)."""
    if abs(gamma - 1.0) < 1e-12:
        return r
    c = (1.0 / gamma) ** (1.0 / (gamma - 1.0))
    return (r + c) ** gamma - c ** gamma


def _norm(x, eps=0.0):
    # |x| with a gradient that is finite at 0 (subgradient 0)
    n2 = (x * x).sum(-1)
    return torch.where(n2 > 0, n2.clamp_min(1e-300).sqrt(), torch.zeros_like(n2))


def _quat_to_R(q):
    q = q / q.norm(dim=-1, keepdim=True)
    w, x, y, z = q.unbind(-1)
    return torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1).reshape(*q.shape[:-1], 3, 3)


def _R_to_quat(R):
    from iclr26sci.geom import rotmat_to_quat

    return rotmat_to_quat(R)


def chain_poses(rel_R, rel_t, parent, order):
    """Absolute cam2w from relative poses along a rooted tree: ``T_j = T_parent(j) @ [R_j | t_j]``."""
    n = len(parent)
    Rs, ts = [None] * n, [None] * n
    for j in order:
        p = int(parent[j])
        if p < 0:
            Rs[j], ts[j] = rel_R[j], rel_t[j]
        else:
            Rs[j] = Rs[p] @ rel_R[j]
            ts[j] = Rs[p] @ rel_t[j] + ts[p]
    return torch.stack(Rs), torch.stack(ts)


def relative_from_absolute(R, t, parent):
    """Inverse of :func:`chain_poses`: relative poses of every node to its parent (root keeps its absolute pose)."""
    rel_R, rel_t = R.clone(), t.clone()
    for j in range(len(parent)):
        p = int(parent[j])
        if p >= 0:
            rel_R[j] = R[p].T @ R[j]
            rel_t[j] = R[p].T @ (t[j] - t[p])
    return rel_R, rel_t


class Problem:
    """Tensors of one set of inputs, prepared once."""

    def __init__(self, inputs, dtype, device):
        from scipy import ndimage

        self.dtype, self.device = dtype, device
        T = lambda x: torch.as_tensor(np.asarray(x), dtype=dtype, device=device)  # noqa: E731
        self.K = inputs.n_frames
        self.W, self.H = inputs.image_size
        self.cx, self.cy = inputs.principal_point
        self.depth = T(inputs.depth)
        self.conf = T(inputs.confidence)
        self.mask = inputs.human_mask
        self.frame_index = T(inputs.frame_index)
        # matches, concatenated
        ia, ib, pa, pb, da, db, cf = [], [], [], [], [], [], []
        score = np.zeros((self.K, self.K))
        for m in inputs.matches:
            n = len(m.conf)
            ia.append(np.full(n, m.i)), ib.append(np.full(n, m.j))
            pa.append(m.pix_i), pb.append(m.pix_j), da.append(m.depth_i), db.append(m.depth_j), cf.append(m.conf)
            score[m.i, m.j] += float(np.sum(m.conf))
            score[m.j, m.i] = score[m.i, m.j]
        self.m_i = torch.as_tensor(np.concatenate(ia), device=device, dtype=torch.long)
        self.m_j = torch.as_tensor(np.concatenate(ib), device=device, dtype=torch.long)
        self.m_pi, self.m_pj = T(np.concatenate(pa)), T(np.concatenate(pb))
        self.m_di, self.m_dj = T(np.concatenate(da)), T(np.concatenate(db))
        self.m_w = T(np.concatenate(cf))
        self.score = score
        # nearest valid background pixel of every pixel (for L_c1's correspondences)
        valid = (inputs.confidence > 0.1) & ~inputs.human_mask
        near = np.zeros((self.K, self.H, self.W), dtype=np.int64)
        for k in range(self.K):
            if valid[k].any():
                _, (iy, ix) = ndimage.distance_transform_edt(~valid[k], return_indices=True)
                near[k] = iy * self.W + ix
            else:
                near[k] = -1
        self.near = torch.as_tensor(near.reshape(self.K, -1), device=device)
        self.valid_any = torch.as_tensor(valid.reshape(self.K, -1).any(1), device=device)
        self.depth_flat = self.depth.reshape(self.K, -1)
        self.conf_flat = self.conf.reshape(self.K, -1)
        self.contact = torch.as_tensor(inputs.contact, device=device)
        self.kp = T(inputs.keypoints) if inputs.keypoints is not None else None
        self.kp_conf = T(inputs.keypoint_conf) if inputs.keypoints is not None else None
        self.body_pose0 = T(inputs.body_pose)
        self.body_shape0 = T(inputs.body_shape)
        self.body_trans0 = T(inputs.body_translation)
        self.body_focal = float(inputs.body_focal)


def _unproject(f, cx, cy, pix, z):
    return torch.stack([(pix[:, 0] - cx) / f * z, (pix[:, 1] - cy) / f * z, z], -1)


def procrustes_init(prob, parent, order, f0):
    """Initial cameras and log-scales along the chain: similarity Procrustes of each tree edge's matched points.

    For edge (parent p, child c) the child's matched points ``y_c`` (at scale 1, focal ``f0``) are aligned to
    the parent's, ``y_p ~ s R y_c + t`` (Umeyama, one re-fit on the 80% best residuals against outliers); then
    ``sigma_c = s sigma_p`` and the relative pose is ``[R | sigma_p t]``.
    """
    from iclr26sci.geom import umeyama

    K = prob.K
    rel_R = torch.eye(3, dtype=prob.dtype).repeat(K, 1, 1)
    rel_t = torch.zeros(K, 3, dtype=prob.dtype)
    log_s = torch.zeros(K, dtype=prob.dtype)
    for c in order:
        p = int(parent[c])
        if p < 0:
            continue
        a, b = min(p, c), max(p, c)
        sel = (prob.m_i == a) & (prob.m_j == b)
        if int(sel.sum()) < 4:
            continue
        ya = _unproject(f0, prob.cx, prob.cy, prob.m_pi[sel], prob.m_di[sel])
        yb = _unproject(f0, prob.cx, prob.cy, prob.m_pj[sel], prob.m_dj[sel])
        yp, yc = (ya, yb) if p == a else (yb, ya)
        T = umeyama(yc, yp)
        res = (T.apply(yc) - yp).norm(dim=-1)
        keep = res <= torch.quantile(res, 0.8)
        if int(keep.sum()) >= 4:
            T = umeyama(yc[keep], yp[keep])
        rel_R[c] = T.R
        rel_t[c] = torch.exp(log_s[p]) * T.t
        log_s[c] = log_s[p] + torch.log(T.scale)
    return rel_R, rel_t, log_s


class Params:
    """The optimisation variables (leaf tensors)."""

    def __init__(self, prob, parent, order, f0, init_cameras, rel_R=None, rel_t=None, log_s=None):
        dt = prob.dtype
        self.parent, self.order = parent, order
        if rel_R is None:
            if init_cameras == "procrustes":
                rel_R, rel_t, log_s = procrustes_init(prob, parent, order, f0)
            else:  # "identity": the released code's start
                rel_R = torch.eye(3, dtype=dt).repeat(prob.K, 1, 1)
                rel_t = torch.zeros(prob.K, 3, dtype=dt)
                log_s = torch.zeros(prob.K, dtype=dt)
        self.quat = _R_to_quat(rel_R).clone().detach().requires_grad_(True)
        self.trans = rel_t.clone().detach().requires_grad_(True)
        self.log_size = log_s.clone().detach().requires_grad_(True)
        self.log_f = torch.tensor([math.log(f0)], dtype=dt, requires_grad=True)
        self.f0 = float(f0)
        K = prob.K
        pose0 = prob.body_pose0.reshape(K, -1, 3)
        self.root = pose0[:, 0].clone().requires_grad_(True)
        self.body = pose0[:, 1:].clone().requires_grad_(True)
        self.shape = prob.body_shape0.mean(0).clone().requires_grad_(True)
        tr = prob.body_trans0.clone()
        tr[:, 2] = tr[:, 2] * (f0 / prob.body_focal)        # HMR depth rescaled to the initial focal
        self.tau = tr.requires_grad_(True)
        self.init = {k: getattr(self, k).detach().clone() for k in ("root", "body", "shape", "tau")}
        self.global_log_scale = torch.zeros(1, dtype=dt, requires_grad=True)   # the sequential baseline's stage 2

    def camera_leaves(self):
        return [self.quat, self.trans]

    def human_leaves(self):
        return [self.root, self.body, self.shape, self.tau]


class FastBody:
    """Joints and contact vertices of the stand-in body, batched over frames with one shared shape.

    The same forward kinematics as :class:`iclr26sci.geom.BodyModel` (rigid one-hot skinning), evaluated by
    tree level (9 batched steps instead of 23) and only for the vertices the losses use.
    """

    def __init__(self, body, vertex_ids=None):
        self.body = body
        self.parents = body.parents
        depth = [0] * len(self.parents)
        for j in range(1, len(self.parents)):
            depth[j] = depth[self.parents[j]] + 1
        self.levels = [[j for j in range(len(depth)) if depth[j] == d] for d in range(1, max(depth) + 1)]
        vid = body.contact_vertices if vertex_ids is None else vertex_ids
        self.vid = torch.as_tensor(np.asarray(vid), dtype=torch.long)
        self.sj = torch.as_tensor(np.asarray(body.skin_joint)[np.asarray(vid)], dtype=torch.long)

    def __call__(self, pose, shape, trans):
        from iclr26sci.geom import so3_exp

        K = pose.shape[0]
        Rl = so3_exp(pose.reshape(K, -1, 3))                           # (K, 24, 3, 3)
        sh = shape.reshape(1, -1)
        off = self.body.bone_offsets(sh)[0]                             # (24, 3)
        Jr = self.body.rest_joints(sh)[0]
        Vr = self.body._rest_vertices(sh)[0, self.vid]                  # (n, 3)
        Rg = [None] * len(self.parents)
        tg = [None] * len(self.parents)
        Rg[0], tg[0] = Rl[:, 0], off[0].expand(K, 3)
        for lev in self.levels:
            p = [self.parents[j] for j in lev]
            Rp = torch.stack([Rg[i] for i in p], 1)                      # (K, L, 3, 3)
            tp = torch.stack([tg[i] for i in p], 1)
            R = Rp @ Rl[:, lev]
            t = tp + (Rp @ off[lev][None, :, :, None])[..., 0]
            for n, j in enumerate(lev):
                Rg[j], tg[j] = R[:, n], t[:, n]
        Rg, tg = torch.stack(Rg, 1), torch.stack(tg, 1)
        joints = tg + trans[:, None]
        V = torch.einsum("knab,nb->kna", Rg[:, self.sj], Vr - Jr[self.sj]) + tg[:, self.sj] + trans[:, None]
        return joints, V, Rl


class GenericBody:
    """Joints and contact vertices of any :class:`ParametricBody` (e.g. an SMPL file through smplx), batched over frames.

    ``pose`` (K, 3 J) is the axis-angle of the root (first 3) and the other joints; one shape for all frames.
    """

    def __init__(self, body):
        self.body = body
        self.vid = torch.as_tensor(np.asarray(body.contact_vertices), dtype=torch.long)

    def __call__(self, pose, shape, trans):
        from iclr26sci.geom import so3_exp

        K = pose.shape[0]
        V, J = self.body(betas=shape.reshape(1, -1).expand(K, -1), body_pose=pose[:, 3:], global_orient=pose[:, :3],
                         transl=trans)
        return J, V[:, self.vid], so3_exp(pose.reshape(K, -1, 3))


def body_evaluator(body, dtype=None):
    """The fast stand-in path for the stand-in body (bare, or behind the interface in the problem's dtype), the
    generic one otherwise."""
    from iclr26sci.geom import BodyModel

    from ._josh_body import StandinBody

    if isinstance(body, StandinBody) and (dtype is None or body.dtype == dtype):
        return FastBody(body.model)
    if isinstance(body, BodyModel) and body.kind == "standin":
        return FastBody(body)
    return GenericBody(body)


class Model:
    """Forward pass: cameras, scene points, human in camera and world frames; every loss term."""

    def __init__(self, prob, body, cfg):
        self.prob, self.body, self.cfg = prob, body, cfg
        diag = math.hypot(prob.W, prob.H)
        self.fmin, self.fmax = 0.25 * diag, 10 * diag
        self.contact_idx = torch.as_tensor(np.asarray(body.contact_vertices), device=prob.device)
        self.fast = body_evaluator(body, prob.dtype)

    def state(self, P, enforce_scale, with_human=True):
        prob = self.prob
        f = torch.exp(P.log_f).clamp(self.fmin, self.fmax)[0]
        q = P.quat
        R_rel = _quat_to_R(q)
        R, t = chain_poses(R_rel, P.trans, P.parent, P.order)
        sizes = torch.exp(P.log_size)
        g = (1.0 / sizes.min()) if enforce_scale else torch.ones((), dtype=prob.dtype)
        g = g * torch.exp(P.global_log_scale[0])
        t = g * t
        a = g * sizes * f / P.f0                          # observed depth -> metric-world depth, per frame
        if not with_human:                                # the scene terms alone (focal profile search)
            return dict(f=f, R=R, t=t, a=a, g=g, sizes=sizes)
        # human in each camera frame (the HMR depth follows the focal: t_z' = (f / f_init) t_z)
        K = prob.K
        # the focal is calibrated by the scene reprojection alone: the human and contact terms see it as a
        # constant (otherwise every metric term pulls it down, shrinking the human depth t_z' = (f / f_0) t_z and
        # the scene depth together -- a design choice, see the module notes)
        fh = f.detach()
        a_h = g * sizes * fh / P.f0
        pose = torch.cat([P.root[:, None], P.body], 1).reshape(K, -1)
        tau = torch.cat([P.tau[:, :2], (P.tau[:, 2] * fh / P.f0)[:, None]], 1)
        Jc, Vc, Rl = self.fast(pose, P.shape, tau)
        Jw = torch.einsum("kab,knb->kna", R, Jc) + t[:, None]
        Vw = torch.einsum("kab,knb->kna", R, Vc) + t[:, None]
        return dict(f=f, R=R, t=t, a=a, a_h=a_h, Jc=Jc, Vc=Vc, Jw=Jw, Vw=Vw, pose=pose, g=g, sizes=sizes, Rl=Rl)

    def world_points(self, S, pix, z, k):
        y = _unproject(S["f"], self.prob.cx, self.prob.cy, pix, S["a"][k] * z)
        return torch.einsum("nab,nb->na", S["R"][k], y) + S["t"][k]

    def project(self, S, X, k):
        y = torch.einsum("nba,nb->na", S["R"][k], X - S["t"][k])
        z = y[:, 2].clamp_min(1e-6)
        return torch.stack([S["f"] * y[:, 0] / z + self.prob.cx, S["f"] * y[:, 1] / z + self.prob.cy], -1)

    # ---------------------------------------------------------------- loss terms
    def loss_3d(self, S):
        p = self.prob
        Xi = self.world_points(S, p.m_pi, p.m_di, p.m_i)
        Xj = self.world_points(S, p.m_pj, p.m_dj, p.m_j)
        w = p.m_w if getattr(self, "match_mask", None) is None else p.m_w * self.match_mask
        return (w * gamma_loss_t(_norm(Xi - Xj), self.cfg["gamma_coarse"])).sum() / w.sum()

    def residuals_2d(self, S):
        """Per-match reprojection error (pixels), the larger of the two directions."""
        p = self.prob
        Xi = self.world_points(S, p.m_pi, p.m_di, p.m_i)
        Xj = self.world_points(S, p.m_pj, p.m_dj, p.m_j)
        return torch.maximum(_norm(self.project(S, Xj, p.m_i) - p.m_pi), _norm(self.project(S, Xi, p.m_j) - p.m_pj))

    def loss_2d(self, S):
        p = self.prob
        Xi = self.world_points(S, p.m_pi, p.m_di, p.m_i)
        Xj = self.world_points(S, p.m_pj, p.m_dj, p.m_j)
        ri = _norm(self.project(S, Xj, p.m_i) - p.m_pi)
        rj = _norm(self.project(S, Xi, p.m_j) - p.m_pj)
        g = self.cfg["gamma_fine"]
        return (p.m_w * (gamma_loss_t(ri, g) + gamma_loss_t(rj, g))).sum() / (2 * p.m_w.sum())

    def loss_2d_capped(self, S, cap):
        """L_2D with each residual capped at ``cap`` pixels (an MSAC-style score: outliers count as a constant)."""
        p = self.prob
        Xi = self.world_points(S, p.m_pi, p.m_di, p.m_i)
        Xj = self.world_points(S, p.m_pj, p.m_dj, p.m_j)
        ri = _norm(self.project(S, Xj, p.m_i) - p.m_pi).clamp_max(cap)
        rj = _norm(self.project(S, Xi, p.m_j) - p.m_pj).clamp_max(cap)
        g = self.cfg["gamma_fine"]
        return (p.m_w * (gamma_loss_t(ri, g) + gamma_loss_t(rj, g))).sum() / (2 * p.m_w.sum())

    def c1_pairs(self, S):
        """(frame, contact-vertex, background pixel, weight) of L_c1, recomputed from the current state (no grad)."""
        p = self.prob
        with torch.no_grad():
            Vc = S["Vc"]
            z = Vc[..., 2]
            u = S["f"] * Vc[..., 0] / z.clamp_min(1e-6) + p.cx
            v = S["f"] * Vc[..., 1] / z.clamp_min(1e-6) + p.cy
            inside = (z > 1e-3) & (u >= 0) & (u < p.W) & (v >= 0) & (v < p.H) & p.contact & p.valid_any[:, None]
            pix = (v.clamp(0, p.H - 1).long() * p.W + u.clamp(0, p.W - 1).long())
            bg = torch.gather(p.near, 1, pix)
            d_h = torch.gather(p.depth_flat, 1, pix)
            d_b = torch.gather(p.depth_flat, 1, bg.clamp_min(0))
            r = self.cfg["depth_filter_ratio"]
            ratio = torch.maximum(d_h / d_b.clamp_min(1e-12), d_b / d_h.clamp_min(1e-12))
            ok = inside & (bg >= 0) & (d_b > 0) & (d_h > 0) & (ratio <= r)
            w = torch.gather(p.conf_flat, 1, bg.clamp_min(0)) * ok
        return bg.clamp_min(0), w

    def loss_c1(self, S, pairs=None):
        p = self.prob
        bg, w = self.c1_pairs(S) if pairs is None else pairs
        if float(w.sum()) <= 0:
            return torch.zeros((), dtype=p.dtype), 0
        z_scene = S["a_h"][:, None] * torch.gather(p.depth_flat, 1, bg)
        z_human = S["Vc"][..., 2]
        loss = (w * gamma_loss_t((z_scene - z_human).abs(), self.cfg["gamma_contact"])).sum() / w.sum()
        return loss, int((w > 0).sum())

    def loss_c2(self, S):
        p = self.prob
        both = p.contact[1:] & p.contact[:-1]
        if not bool(both.any()):
            return torch.zeros((), dtype=p.dtype)
        d = _norm(S["Vw"][1:] - S["Vw"][:-1])
        return gamma_loss_t(d[both], self.cfg["gamma_contact"]).mean()

    def loss_smooth(self, S):
        p = self.prob
        if p.K < 3:
            return torch.zeros((), dtype=p.dtype)
        J = S["Jw"]
        dt = (p.frame_index[1:] - p.frame_index[:-1])[:, None, None]
        vel = (J[1:] - J[:-1]) / dt
        return gamma_loss_t(_norm(vel[1:] - vel[:-1]), self.cfg["gamma_contact"]).mean()

    def loss_prior(self, P, S):
        from iclr26sci.geom import so3_exp

        g = self.cfg["gamma_contact"]
        K = self.prob.K
        if not hasattr(P, "_R0"):
            P._R0 = (so3_exp(P.init["root"]).reshape(K, 9), so3_exp(P.init["body"]).reshape(K, -1))
        r0, b0 = P._R0
        r = S["Rl"][:, 0].reshape(K, 9)
        b = S["Rl"][:, 1:].reshape(K, -1)
        return (gamma_loss_t(_norm(r - r0), g).mean() + gamma_loss_t(_norm(P.tau - P.init["tau"]), g).mean()
                + gamma_loss_t(_norm(b - b0), g).mean() + gamma_loss_t(_norm(P.shape - P.init["shape"]), g))

    def loss_keypoints(self, S):
        p = self.prob
        if p.kp is None:
            return torch.zeros((), dtype=p.dtype)
        Jc = S["Jc"]
        z = Jc[..., 2].clamp_min(1e-6)
        uv = torch.stack([S["f"] * Jc[..., 0] / z + p.cx, S["f"] * Jc[..., 1] / z + p.cy], -1)
        r = _norm(uv - p.kp)
        return (p.kp_conf * gamma_loss_t(r, self.cfg["gamma_fine"])).sum() / p.kp_conf.sum().clamp_min(1e-12)

    def total(self, P, phase, enforce_scale, use_scene=True):
        cfg = self.cfg
        human = any(cfg[k] > 0 for k in ("w_c1", "w_c2", "w_smooth", "w_prior", "w_keypoints"))
        S = self.state(P, enforce_scale, with_human=human)
        terms = {}
        if use_scene and cfg["w_scene"] > 0:
            terms["scene"] = cfg["w_scene"] * (self.loss_3d(S) if phase == "coarse" else self.loss_2d(S))
        if cfg["w_c1"] > 0:
            l, n = self.loss_c1(S)
            terms["c1"] = cfg["w_c1"] * l
        if cfg["w_c2"] > 0:
            terms["c2"] = cfg["w_c2"] * self.loss_c2(S)
        if cfg["w_smooth"] > 0:
            terms["smooth"] = cfg["w_smooth"] * self.loss_smooth(S)
        if cfg["w_prior"] > 0:
            terms["prior"] = cfg["w_prior"] * self.loss_prior(P, S)
        if cfg["w_keypoints"] > 0:
            terms["keypoints"] = cfg["w_keypoints"] * self.loss_keypoints(S)
        total = sum(terms.values()) if terms else torch.zeros((), dtype=self.prob.dtype)
        return total, terms, S


def cosine_lr(alpha, lr_base, lr_end=0.0):
    return lr_end + (lr_base - lr_end) * (1 + math.cos(alpha * math.pi)) / 2


def run_phase(model, P, phase, n_iter, lr, *, train_cameras, train_scale, train_focal, train_human, train_global,
              enforce_scale, use_scene, history, progress_desc=None):
    """One Adam(betas 0.9, 0.9) phase with a cosine learning rate to 0; quaternions re-normalised after each step."""
    from iclr26sci.core import progress

    leaves = []
    if train_cameras:
        leaves += P.camera_leaves()
    if train_scale:
        leaves.append(P.log_size)
    if train_focal:
        leaves.append(P.log_f)
    if train_human:
        leaves += P.human_leaves()
    if train_global:
        leaves.append(P.global_log_scale)
    if not leaves or n_iter == 0:
        return
    opt = torch.optim.Adam(leaves, lr=lr, betas=(0.9, 0.9), weight_decay=0.0)
    it_range = range(n_iter)
    if progress_desc:
        it_range = progress(it_range, desc=progress_desc, total=n_iter)
    for it in it_range:
        for gr in opt.param_groups:
            gr["lr"] = cosine_lr(it / n_iter, lr)
        opt.zero_grad(set_to_none=True)
        loss, terms, _ = model.total(P, phase, enforce_scale, use_scene)
        if not loss.requires_grad:
            break
        loss.backward()
        with torch.no_grad():
            # the chain root stays the world frame (gauge)
            root = [j for j in range(len(P.parent)) if P.parent[j] < 0]
            for gparam in (P.quat, P.trans):
                if gparam.grad is not None:
                    gparam.grad[root] = 0
        opt.step()
        with torch.no_grad():
            P.quat /= P.quat.norm(dim=-1, keepdim=True)
        lv = float(loss.detach())
        history.append((phase, lv, {k: float(v.detach()) for k, v in terms.items()}))
        if lv != lv:
            break


def lbfgs_scene(model, P, phase, max_iter):
    """Cameras and per-frame log-scales minimising the scene loss of ``phase`` at a fixed focal (L-BFGS).

    The scale gauge is fixed by ``1/min sigma`` (the scene loss alone has no metric scale).
    """
    leaves = [P.quat, P.trans, P.log_size]
    root = [j for j in range(len(P.parent)) if P.parent[j] < 0]
    opt = torch.optim.LBFGS(leaves, lr=1.0, max_iter=max_iter, history_size=20, line_search_fn="strong_wolfe",
                            tolerance_grad=1e-12, tolerance_change=1e-14)

    def closure():
        opt.zero_grad(set_to_none=True)
        loss = model.total(P, phase, True)[0]
        loss.backward()
        P.quat.grad[root] = 0
        P.trans.grad[root] = 0
        return loss

    opt.step(closure)
    with torch.no_grad():
        P.quat /= P.quat.norm(dim=-1, keepdim=True)


def focal_profile_search(prob, body, cfg, parent, order, f_centre, *, span=0.35, n_grid=9, max_iter=40,
                         cap_frac=0.025):
    r"""The shared focal by a profile search over :math:`\log f` of the scene reprojection loss.

    For each focal :math:`f_k` on a grid of ``n_grid`` values :math:`f_c e^{u}`, :math:`u \in [-span, span]`, the
    cameras and scales are re-fitted from the Procrustes start with L-BFGS on the 3-D matching loss (rho_1.1,
    smooth and nearly convex), and the profile value is the fine-phase reprojection loss
    :math:`\min_{P, \sigma} L_{2D}(f_k)` evaluated there (pixels: independent of the scale gauge). The focal is the
    vertex of the parabola (in :math:`\log f`) through the lowest grid value and its two neighbours (the grid edge
    when the minimum is there).

    Why: the focal is coupled to the camera rotations and the depth stretch (a pan by :math:`\theta` shifts pixels
    by :math:`\theta f`; only the second-order term :math:`\theta (u-c)^2 / f` identifies :math:`f`), a long curved
    valley in which Adam's per-coordinate normalised steps on :math:`\log f` random-walk (on the quick miniature
    the released schedule took the focal from the truth to 0.86 f while raising the loss). Re-fitting the cameras
    at each candidate follows the valley exactly. Returns ``(focal, rows)`` with the profile table.
    """
    scene_cfg = dict(cfg, w_scene=1.0, w_c1=0.0, w_c2=0.0, w_smooth=0.0, w_prior=0.0, w_keypoints=0.0)
    model = Model(prob, body, scene_cfg)
    cap = cap_frac * math.hypot(prob.W, prob.H)
    us = np.linspace(-span, span, n_grid)
    vals = np.full(n_grid, np.nan)
    c = n_grid // 2
    # continuation along the valley: the centre from the Procrustes start, then outwards, each grid focal starting
    # from its inner neighbour's cameras and scales; then back inwards from both ends (each grid focal keeps the
    # better of its two fits: the L-BFGS fits can stop in different local minima)
    state = {}

    def solve(i, start):
        if start is None:
            P = Params(prob, parent, order, f_centre * math.exp(us[i]), "procrustes")
        else:
            P = Params(prob, parent, order, f_centre * math.exp(us[i]), "identity", rel_R=_quat_to_R(start[0]),
                       rel_t=start[1], log_s=start[2])
        model.match_mask = None
        lbfgs_scene(model, P, "coarse", max_iter)
        with torch.no_grad():                    # re-fit on the matches that reproject within the cap (robust)
            inl = (model.residuals_2d(model.state(P, True, with_human=False)) < cap).to(prob.dtype)
        if float(inl.sum()) >= 8:
            model.match_mask = inl
            lbfgs_scene(model, P, "coarse", max_iter // 2)
            model.match_mask = None
        with torch.no_grad():
            val = float(model.loss_2d_capped(model.state(P, True, with_human=False), cap))
        if not (val >= vals[i]):                 # NaN-safe: keep the better fit
            vals[i] = val
            state[i] = (P.quat.detach().clone(), P.trans.detach().clone(), P.log_size.detach().clone())

    solve(c, None)
    for i in range(c + 1, n_grid):
        solve(i, state[i - 1])
    for i in range(c - 1, -1, -1):
        solve(i, state[i + 1])
    for i in range(n_grid - 2, c - 1, -1):
        solve(i, state[i + 1])
    for i in range(1, c + 1):
        solve(i, state[i - 1])
    vals = np.asarray(vals)
    i = int(np.nanargmin(vals))
    u_hat = us[i]
    if 0 < i < n_grid - 1:
        y0, y1, y2 = vals[i - 1], vals[i], vals[i + 1]
        den = y0 - 2 * y1 + y2
        if den > 0:
            h = us[1] - us[0]
            u_hat = us[i] + 0.5 * h * (y0 - y2) / den
    rows = [{"focal": f_centre * math.exp(u), "profile loss": v} for u, v in zip(us, vals)]
    return f_centre * math.exp(u_hat), rows


def now():
    return time.perf_counter()
