r"""GaussianFusion's networks (toy scale, pure torch): image/LSS and pillar encoders, the cross-modal Gaussian
encoder, GMM fusion with MeanVFE, the occupancy and detection heads, and the BEV-fusion baseline.

Every design detail the paper note leaves open is a constructor option of the public estimators, labelled
[recon] in :mod:`iclr26sci.scene3d.gaussian_fusion`.
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ._gf_ops import Grid, gaussian_precision, lift_pixels, mean_vfe, quat_to_rotmat_t, splat_gaussians

#: standard-normal sigma points (0, +/- sqrt(3) e_i) used as Gaussian-prior sampling offsets [recon]
SIGMA_POINTS = torch.cat([torch.zeros(1, 3), math.sqrt(3.0) * torch.eye(3), -math.sqrt(3.0) * torch.eye(3)])


def _conv(i, o, s=1):
    return nn.Sequential(nn.Conv2d(i, o, 3, s, 1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class SceneTensors:
    """A :class:`FusionScene` as ego-frame tensors on one device."""

    def __init__(self, scene, device, dtype=torch.float32):
        self.images = torch.as_tensor(scene.images, dtype=dtype, device=device).permute(0, 3, 1, 2)
        self.depths = torch.as_tensor(scene.depths, dtype=dtype, device=device)
        self.K = torch.as_tensor(scene.intrinsics, dtype=dtype, device=device)
        self.T = torch.as_tensor(scene.cam_to_ego, dtype=dtype, device=device)
        L2E = torch.as_tensor(scene.lidar_to_ego, dtype=dtype, device=device)
        p = torch.as_tensor(scene.lidar_points, dtype=dtype, device=device).reshape(-1, 3)
        self.points = p @ L2E[:3, :3].T + L2E[:3, 3]


class ImageEncoder(nn.Module):
    """4 conv layers (stride 4 overall) -> per feature pixel a depth distribution (D bins) and context (C)."""

    def __init__(self, depth_bins, channels):
        super().__init__()
        self.D, self.C = depth_bins, channels
        self.net = nn.Sequential(_conv(3, 16, 2), _conv(16, 32, 2), _conv(32, 32), nn.Conv2d(32, depth_bins + channels, 1))

    def forward(self, images):
        out = self.net(images)
        return out[:, :self.D], out[:, self.D:]            # depth logits, context


def feature_pixels(n_cam, h, w, stride, device, dtype):
    j, i = torch.meshgrid(torch.arange(h, device=device), torch.arange(w, device=device), indexing="ij")
    uv = torch.stack([(i.reshape(-1) + 0.5) * stride, (j.reshape(-1) + 0.5) * stride], 1).to(dtype)
    return uv


def lift_camera(st, depth_logits, context, depth_values):
    """LSS lift: points (n_cam, P, D, 3), depth probabilities (n_cam, P, D), context (n_cam, P, C)."""
    n, D, h, w = depth_logits.shape
    stride = st.images.shape[-1] / w
    uv = feature_pixels(n, h, w, stride, depth_logits.device, depth_logits.dtype)
    pts = torch.stack([lift_pixels(st.K[c], st.T[c], uv, depth_values) for c in range(n)])
    prob = depth_logits.softmax(1).flatten(2).transpose(1, 2)
    ctx = context.flatten(2).transpose(1, 2)
    return pts, prob, ctx


def bev_scatter(points, feats, grid: Grid, reduce="sum"):
    """Sum (or mean) of ``feats`` (n, C) of the points (n, 3) falling in each BEV cell -> (C, nx, ny)."""
    nx, ny = grid.shape[:2]
    lo = torch.as_tensor(grid.lo, dtype=points.dtype, device=points.device)
    hi = torch.as_tensor(grid.hi, dtype=points.dtype, device=points.device)
    cell = torch.as_tensor(grid.cell, dtype=points.dtype, device=points.device)
    idx = torch.floor((points - lo) / cell).long()
    ok = ((points >= lo) & (points < hi)).all(1)
    flat = idx[ok, 0] * ny + idx[ok, 1]
    out = torch.zeros((nx * ny, feats.shape[1]), dtype=feats.dtype, device=feats.device).index_add(0, flat, feats[ok])
    if reduce == "mean":
        cnt = torch.zeros(nx * ny, dtype=feats.dtype, device=feats.device).index_add(
            0, flat, torch.ones_like(flat, dtype=feats.dtype))
        out = out / cnt.clamp_min(1)[:, None]
    return out.T.reshape(-1, nx, ny)


class PillarEncoder(nn.Module):
    """PointPillars-lite: per-point MLP, mean-scatter into BEV pillars, then 3 convs -> (C, nx, ny)."""

    def __init__(self, channels):
        super().__init__()
        self.point = nn.Sequential(nn.Linear(6, channels), nn.ReLU())
        self.convs = nn.Sequential(_conv(channels + 1, channels), _conv(channels, channels), _conv(channels, channels))

    def forward(self, points, grid: Grid):
        nx, ny = grid.shape[:2]
        C = self.point[0].out_features
        if len(points) == 0:
            x = torch.zeros((1, C + 1, nx, ny), dtype=self.point[0].weight.dtype, device=self.point[0].weight.device)
            return self.convs(x)[0], torch.zeros((0, 3), dtype=x.dtype, device=x.device)
        cell = torch.as_tensor(grid.cell, dtype=points.dtype, device=points.device)
        lo = torch.as_tensor(grid.lo, dtype=points.dtype, device=points.device)
        cen = lo + (torch.floor((points - lo) / cell) + 0.5) * cell
        f = self.point(torch.cat([points - cen, points[:, 2:3], torch.norm(points[:, :2], dim=1, keepdim=True) / 16,
                                  torch.ones_like(points[:, :1])], 1))
        bev = bev_scatter(points, f, grid, "mean")
        cnt = bev_scatter(points, torch.ones_like(points[:, :1]), grid, "sum")
        zmean = bev_scatter(points, points[:, 2:3], grid, "mean")
        x = torch.cat([bev, torch.log1p(cnt)], 0)[None]
        return self.convs(x)[0], torch.stack([cnt[0], zmean[0]], 0)


def bev_sample(bev, xy, grid: Grid):
    """Bilinear samples of a BEV map (C, nx, ny) at world points xy (..., 2) -> (..., C); zero outside."""
    lo = torch.as_tensor(grid.lo[:2], dtype=xy.dtype, device=xy.device)
    hi = torch.as_tensor(grid.hi[:2], dtype=xy.dtype, device=xy.device)
    g = 2 * (xy - lo) / (hi - lo) - 1                       # x -> map dim 1 (H index), y -> map dim 2 (W index)
    shp = g.shape[:-1]
    g = g.reshape(1, -1, 1, 2).flip(-1)                      # grid_sample wants (W coordinate, H coordinate)
    out = F.grid_sample(bev[None], g, mode="bilinear", padding_mode="zeros", align_corners=False)
    return out[0, :, :, 0].T.reshape(*shp, bev.shape[0])


class PointEncoder(nn.Module):
    """Per-point LiDAR features: an MLP of each return's position, then one neighbourhood layer (max over the
    ``k`` nearest returns of an MLP of the neighbour's feature and its offset), so a point knows its local shape."""

    def __init__(self, channels, k=8):
        super().__init__()
        self.k = k
        self.point = nn.Sequential(nn.Linear(5, channels), nn.ReLU(), nn.Linear(channels, channels))
        self.edge = nn.Sequential(nn.Linear(channels + 3, channels), nn.ReLU(), nn.Linear(channels, channels))

    def forward(self, points, volume: Grid):
        lo = torch.as_tensor(volume.lo, dtype=points.dtype, device=points.device)
        hi = torch.as_tensor(volume.hi, dtype=points.dtype, device=points.device)
        x = torch.cat([2 * (points - lo) / (hi - lo) - 1, torch.norm(points[:, :2], dim=1, keepdim=True) / 16,
                       torch.ones_like(points[:, :1])], 1)
        f = self.point(x)
        idx, _ = knn(points, points, self.k)
        rel = points[idx] - points[:, None]
        return f + self.edge(torch.cat([f[idx], rel], -1)).amax(1)


def knn(queries, points, k, chunk=2048):
    """Indices (n, k) and squared distances (n, k) of the ``k`` nearest ``points`` of each query (exact, chunked
    ``cdist`` + ``topk``; fewer points than ``k`` repeat the farthest). Indices carry no gradient."""
    k_eff = min(k, len(points))
    idx, d2 = [], []
    with torch.no_grad():
        for a in range(0, len(queries), chunk):
            d = torch.cdist(queries[a:a + chunk], points)
            v, i = torch.topk(d, k_eff, dim=1, largest=False)
            idx.append(i)
    idx = torch.cat(idx) if idx else torch.zeros((0, k_eff), dtype=torch.long, device=queries.device)
    if k_eff < k:
        idx = torch.cat([idx, idx[:, -1:].expand(-1, k - k_eff)], 1)
    diff = points[idx] - queries[:, None]
    return idx, (diff ** 2).sum(-1)


def project_to_cameras(pts, st, feat_hw):
    """Normalised feature-map coordinates (n_cam, m, 2) of ego points ``pts`` (m, 3) in every camera and a
    validity mask (n_cam, m): in front of the camera (z > 0.1 m) and inside the image."""
    E = torch.linalg.inv(st.T)                                              # ego -> camera
    pc = torch.einsum("cij,mj->cmi", E[:, :3, :3], pts) + E[:, None, :3, 3]
    z = pc[..., 2]
    zc = z.clamp_min(1e-3)
    u = st.K[:, None, 0, 0] * pc[..., 0] / zc + st.K[:, None, 0, 2]
    v = st.K[:, None, 1, 1] * pc[..., 1] / zc + st.K[:, None, 1, 2]
    H, W = st.images.shape[-2:]
    g = torch.stack([2 * u / W - 1, 2 * v / H - 1], -1)                     # align_corners=False: -1 = image edge
    ok = (z > 0.1) & (g.abs() <= 1).all(-1)
    return g, ok


def sample_cameras(feats, pts, st):
    """Camera features at ego points: bilinear samples of each camera's feature map (n_cam, C, h, w) at the
    point's projection, averaged over the cameras that see it -> (m, C), and the number of those cameras (m,)."""
    g, ok = project_to_cameras(pts, st, feats.shape[-2:])
    s = F.grid_sample(feats, g[:, :, None, :].clamp(-1.5, 1.5), mode="bilinear", padding_mode="zeros",
                      align_corners=False)[..., 0]                          # (n_cam, C, m)
    w = ok.to(feats.dtype)
    n = w.sum(0)
    return (s * w[:, None]).sum(0).T / n.clamp_min(1)[:, None], n


class GaussianLayer(nn.Module):
    """One encoder layer: positional embedding; each Gaussian gathers camera features at the projections of its
    sigma points (its footprint) and LiDAR features from its k nearest returns, weighted by its own density;
    FFN; attribute update. No BEV map is involved."""

    def __init__(self, C, use_cam, use_lidar, *, positional_embedding=True, offsets="gaussian",
                 refine="incremental", box_size=1.0, volume=None, scale_range=(0.05, 2.0), max_step=1.0, k=8):
        super().__init__()
        self.pe = nn.Sequential(nn.Linear(10, C), nn.ReLU(), nn.Linear(C, C)) if positional_embedding else None
        K = len(SIGMA_POINTS)
        self.K, self.offsets, self.refine, self.box_size, self.k = K, offsets, refine, box_size, k
        self.use_cam, self.use_lidar = use_cam, use_lidar
        self.delta = nn.Linear(C, 3 * K)
        nn.init.zeros_(self.delta.weight)
        nn.init.zeros_(self.delta.bias)
        self.attn = nn.Linear(C, K)
        if use_cam:
            self.v_cam = nn.Linear(C + 1, C)
        if use_lidar:
            self.v_lid = nn.Linear(C + 3, C)
            self.a_lid = nn.Linear(C + 3, 1)
        self.out = nn.Linear(C, C)
        self.n1, self.n2 = nn.LayerNorm(C), nn.LayerNorm(C)
        self.ffn = nn.Sequential(nn.Linear(C, 2 * C), nn.ReLU(), nn.Linear(2 * C, C))
        self.upd = nn.Sequential(nn.Linear(C, C), nn.ReLU(), nn.Linear(C, 10))
        nn.init.zeros_(self.upd[2].weight)
        nn.init.zeros_(self.upd[2].bias)
        self.register_buffer("u", SIGMA_POINTS.clone())
        self.volume = volume
        self.scale_range, self.max_step = scale_range, max_step

    def sample_offsets(self, q, scales, rots):
        n = len(q)
        res = 0.25 * torch.tanh(self.delta(q)).reshape(n, self.K, 3)
        if self.offsets == "gaussian":        # R S u_k: the Gaussian's own covariance shapes the sampling
            R = quat_to_rotmat_t(rots)
            base = torch.einsum("nij,nj,kj->nki", R, scales, self.u.to(q.dtype))
        else:                                 # "box": a fixed axis-aligned box, blind to the Gaussian's shape
            base = (self.box_size / math.sqrt(3.0)) * self.u.to(q.dtype)[None].expand(n, -1, -1)
        return base + res

    def forward(self, q, means, scales, rots, sensors):
        lo = torch.as_tensor(self.volume.lo, dtype=q.dtype, device=q.device)
        hi = torch.as_tensor(self.volume.hi, dtype=q.dtype, device=q.device)
        n = len(q)
        if self.pe is not None:
            q = q + self.pe(torch.cat([2 * (means - lo) / (hi - lo) - 1, torch.log(scales), rots], 1))
        agg = torch.zeros_like(q)
        if self.use_cam and sensors.get("cam") is not None:
            pts = means[:, None] + self.sample_offsets(q, scales, rots)        # (n, K, 3): the footprint
            f, seen = sample_cameras(sensors["cam"], pts.reshape(-1, 3), sensors["st"])
            v = self.v_cam(torch.cat([f, (seen > 0).to(q.dtype)[:, None]], 1)).reshape(n, self.K, -1)
            A = self.attn(q).softmax(-1)
            agg = agg + (A[..., None] * v).sum(1)
        if self.use_lidar and sensors.get("lidar_feats") is not None and len(sensors["points"]):
            P, fp = sensors["points"], sensors["lidar_feats"]
            idx, _ = knn(means.detach(), P.detach(), self.k)
            rel = P[idx] - means[:, None]                                      # (n, k, 3)
            prec = gaussian_precision(scales, rots)
            logd = -0.5 * torch.einsum("nki,nij,nkj->nk", rel, prec, rel).clamp_max(50.0)
            x = torch.cat([fp[idx], rel], -1)
            a = (self.a_lid(x)[..., 0] + logd).softmax(-1)                     # the Gaussian's density weighs points
            agg = agg + (a[..., None] * self.v_lid(x)).sum(1)
        q = self.n1(q + self.out(agg))
        q = self.n2(q + self.ffn(q))
        d = self.upd(q)
        smin, smax = self.scale_range
        if self.refine == "incremental":
            means = means + self.max_step * torch.tanh(d[:, :3])
            scales = torch.exp(torch.log(scales) + d[:, 3:6]).clamp(smin, smax)
            rots = rots + d[:, 6:]
        else:   # "direct": re-predict absolute attributes each layer (GaussianFormer-style)
            means = lo + (hi - lo) * torch.sigmoid(d[:, :3])
            scales = smin + (smax - smin) * torch.sigmoid(d[:, 3:6])
            rots = d[:, 6:] + torch.tensor([1.0, 0, 0, 0], dtype=q.dtype, device=q.device)
        rots = rots / rots.norm(dim=1, keepdim=True).clamp_min(1e-8)
        return q, means, scales, rots


class Heads(nn.Module):
    """Occupancy (channel-to-height, BEVDet/FlashOcc style) and CenterPoint-style detection heads on a BEV map."""

    def __init__(self, C, n_height, n_classes, n_det):
        super().__init__()
        self.nz, self.K = n_height, n_classes
        self.occ = nn.Sequential(_conv(C, C), nn.Conv2d(C, n_height * (n_classes + 1), 1))
        self.heat = nn.Sequential(_conv(C, C), nn.Conv2d(C, n_det, 1))
        self.reg = nn.Sequential(_conv(C, C), nn.Conv2d(C, 8, 1))
        nn.init.constant_(self.heat[1].bias, -2.19)

    def forward(self, bev):
        x = bev[None]
        nx, ny = bev.shape[1:]
        occ = self.occ(x)[0].reshape(self.K + 1, self.nz, nx, ny).permute(0, 2, 3, 1)   # (K+1, nx, ny, nz)
        return occ, self.heat(x)[0], self.reg(x)[0]


class GaussianFusionNet(nn.Module):
    """The whole GaussianFusion model (one scene per forward): continuous 3-D Gaussians from both sensors,
    refined against the raw sensor features, quantised only by the final splat onto the output grid."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        C = cfg["embed"]
        self.volume = Grid(cfg["lo"], cfg["hi"], (cfg["bev"], cfg["bev"], cfg["n_height"]))
        self.register_buffer("depth_values", torch.as_tensor(cfg["depth_values"], dtype=torch.float32))
        mods = cfg["modalities"]
        self.use_cam, self.use_lidar = "camera" in mods, "lidar" in mods
        if self.use_cam:
            self.image = ImageEncoder(len(cfg["depth_values"]), C)
        if self.use_lidar:
            self.points = PointEncoder(C, k=cfg["knn"])
            self.lidar_q = nn.Sequential(nn.Linear(C, C), nn.ReLU(), nn.Linear(C, C))
        kw = dict(positional_embedding=cfg["positional_embedding"], offsets=cfg["offsets"], refine=cfg["refine"],
                  volume=self.volume, k=cfg["knn"])
        n_sets = 1 if (cfg["shared_encoder"] or not (self.use_cam and self.use_lidar)) else 2
        self.layers = nn.ModuleList(
            nn.ModuleList(GaussianLayer(C, self.use_cam, self.use_lidar, **kw) for _ in range(cfg["encoder_layers"]))
            for _ in range(n_sets))
        Cs = cfg["splat_channels"]
        self.to_splat = nn.Linear(C, Cs)
        self.fuse = nn.Sequential(_conv(Cs * cfg["n_height"] + 1, C), _conv(C, C))
        self.heads = Heads(C, cfg["n_height"], cfg["n_classes"], cfg["n_det"])

    # -------------------------------------------------------------- Gaussians from each sensor
    def camera_gaussians(self, st, dl, ctx):
        """LSS forward projection: the ``n_gaussians`` (pixel, depth-bin) points of largest D_i(d) inside the
        volume, at their continuous 3-D positions, with query D_i(d) c_i."""
        cfg = self.cfg
        pts, prob, c = lift_camera(st, dl, ctx, self.depth_values)
        lo = torch.as_tensor(cfg["lo"], dtype=pts.dtype, device=pts.device)
        hi = torch.as_tensor(cfg["hi"], dtype=pts.dtype, device=pts.device)
        inside = ((pts >= lo) & (pts < hi)).all(-1).reshape(-1)
        score = torch.where(inside, prob.reshape(-1), torch.full_like(prob.reshape(-1), -1.0))
        k = min(cfg["n_gaussians"], int(inside.sum()))
        top = torch.topk(score, k).indices if k > 0 else torch.zeros(0, dtype=torch.long, device=pts.device)
        P, D = pts.shape[1], pts.shape[2]
        cam, rest = top // (P * D), top % (P * D)
        pix = rest // D
        means = pts.reshape(-1, 3)[top]
        q = prob.reshape(-1)[top, None] * c[cam, pix]                 # LSS outer product D_i(d) c_i
        return means, q

    def lidar_points(self, st):
        """The LiDAR returns inside the volume and their per-point features."""
        lo = torch.as_tensor(self.cfg["lo"], dtype=st.points.dtype, device=st.points.device)
        hi = torch.as_tensor(self.cfg["hi"], dtype=st.points.dtype, device=st.points.device)
        p = st.points[((st.points >= lo) & (st.points < hi)).all(1)]
        if len(p) == 0:
            C = self.cfg["embed"]
            return p, p.new_zeros((0, C))
        return p, self.points(p, self.volume)

    def lidar_gaussians(self, p, fp):
        """LiDAR Gaussians at the returns themselves (every ``ceil(n / n_lidar_gaussians)``-th return when there
        are more), query MLP(point feature)."""
        n_max = self.cfg["n_lidar_gaussians"]
        step = max(1, math.ceil(len(p) / n_max))
        sel = torch.arange(0, len(p), step, device=p.device)
        return p[sel], self.lidar_q(fp[sel]) if len(sel) else fp[sel]

    def init_attributes(self, n, dtype, device):
        s = torch.full((n, 3), float(self.cfg["init_scale"]), dtype=dtype, device=device)
        r = torch.zeros((n, 4), dtype=dtype, device=device)
        r[:, 0] = 1
        return s, r

    def initial_gaussians(self, st):
        """Initial Gaussian sets [(modality, means, queries)], the sensor features and the depth logits."""
        sets, sensors, dl = [], {"st": st, "cam": None, "points": None, "lidar_feats": None}, None
        if self.use_cam:
            dl, ctx = self.image(st.images)
            m, q = self.camera_gaussians(st, dl, ctx)
            sets.append(("camera", m, q))
            sensors["cam"] = ctx
        if self.use_lidar:
            p, fp = self.lidar_points(st)
            m, q = self.lidar_gaussians(p, fp)
            sets.append(("lidar", m, q))
            sensors["points"], sensors["lidar_feats"] = p, fp
        return sets, sensors, dl

    def encode(self, st):
        """Refined Gaussians (means, scales, rots, queries) of both modalities and the depth logits."""
        sets, sensors, dl = self.initial_gaussians(st)
        out = []
        if len(self.layers) == 1:     # concatenate along the Gaussian (batch) axis and run the same weights
            groups = [(torch.cat([s[1] for s in sets]), torch.cat([s[2] for s in sets]), self.layers[0])]
        else:
            groups = [(m, q, layers) for (_, m, q), layers in zip(sets, self.layers)]
        for m, q, layers in groups:
            sc, r = self.init_attributes(len(m), m.dtype, m.device)
            for layer in layers:
                q, m, sc, r = layer(q, m, sc, r, sensors)
            out.append((m, sc, r, q))
        m, sc, r, q = (torch.cat(x) for x in zip(*out))
        return m, sc, r, q, dl

    def fuse_bev(self, m, sc, r, q):
        """GMM fusion: MeanVFE per voxel of the output grid, Gaussian-to-voxel splat, light CNN -> (C, R, R)."""
        grid = self.volume
        f = self.to_splat(q)
        dims = 3 if self.cfg["vfe"] == "voxel" else 2
        pm, ps, pr, pf, cells, counts = mean_vfe(m, sc, r, f, grid, dims=dims)
        vol = splat_gaussians(pm, ps, pr, pf, grid, truncate=3.0, max_radius=self.cfg["max_splat_radius"])
        nx, ny, nz, Cs = vol.shape
        dens = torch.zeros(nx * ny, dtype=vol.dtype, device=vol.device)
        if len(cells):
            bev_cell = cells // nz if dims == 3 else cells
            dens = dens.index_add(0, bev_cell, counts.to(vol.dtype))
        x = torch.cat([vol.permute(3, 2, 0, 1).reshape(Cs * nz, nx, ny), torch.log1p(dens).reshape(1, nx, ny)], 0)
        return self.fuse(x[None])[0]

    def forward(self, st):
        m, sc, r, q, dl = self.encode(st)
        bev = self.fuse_bev(m, sc, r, q)
        occ, heat, reg = self.heads(bev)
        return dict(occ=occ, heat=heat, reg=reg, depth_logits=dl, means=m, scales=sc, rots=r)


class BEVFusionNet(nn.Module):
    """BEVFusion-mini: camera LSS -> BEV and LiDAR pillars -> BEV at the output resolution, concat, conv fuser."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        C = cfg["embed"]
        self.volume = Grid(cfg["lo"], cfg["hi"], (cfg["bev"], cfg["bev"], cfg["n_height"]))
        self.register_buffer("depth_values", torch.as_tensor(cfg["depth_values"], dtype=torch.float32))
        mods = cfg["modalities"]
        self.use_cam, self.use_lidar = "camera" in mods, "lidar" in mods
        if self.use_cam:
            self.image = ImageEncoder(len(cfg["depth_values"]), C)
        if self.use_lidar:
            self.pillars = PillarEncoder(C)
        n_in = C * (int(self.use_cam) + int(self.use_lidar))
        self.fuser = nn.Sequential(_conv(n_in, C), _conv(C, C))
        self.heads = Heads(C, cfg["n_height"], cfg["n_classes"], cfg["n_det"])

    def forward(self, st):
        maps, dl = [], None
        if self.use_cam:
            dl, ctx = self.image(st.images)
            pts, prob, c = lift_camera(st, dl, ctx, self.depth_values)
            maps.append(bev_scatter(pts.reshape(-1, 3), (prob[..., None] * c[:, :, None, :]).reshape(-1, c.shape[-1]),
                                    self.volume))
        if self.use_lidar:
            maps.append(self.pillars(st.points, self.volume)[0])
        bev = self.fuser(torch.cat(maps, 0)[None])[0]
        occ, heat, reg = self.heads(bev)
        return dict(occ=occ, heat=heat, reg=reg, depth_logits=dl)


# ------------------------------------------------------------------ targets, losses, decoding
def detection_targets(boxes, grid: Grid, det_labels, sigma_cells=1.0):
    """CenterPoint targets: Gaussian heatmaps (n_det, nx, ny), and per-box cell index and regression target."""
    nx, ny = grid.shape[:2]
    cell = grid.cell
    heat = np.zeros((len(det_labels), nx, ny), np.float32)
    rows = []
    ix = np.arange(nx)[:, None]
    iy = np.arange(ny)[None, :]
    for b in boxes:
        lab = int(b[0])
        if lab not in det_labels:
            continue
        k = det_labels.index(lab)
        fx, fy = (b[1] - grid.lo[0]) / cell[0], (b[2] - grid.lo[1]) / cell[1]
        i, j = int(np.floor(fx)), int(np.floor(fy))
        if not (0 <= i < nx and 0 <= j < ny):
            continue
        g = np.exp(-((ix - i) ** 2 + (iy - j) ** 2) / (2 * sigma_cells ** 2))
        heat[k] = np.maximum(heat[k], g)
        rows.append((k, i, j, fx - i, fy - j, b[3], np.log(b[4]), np.log(b[5]), np.log(b[6]), np.sin(b[7]),
                     np.cos(b[7])))
    return heat, np.array(rows, np.float32).reshape(-1, 11)


def focal_heatmap_loss(logits, target, alpha=2.0, beta=4.0):
    """CenterNet's penalty-reduced focal loss, normalised by the number of centres."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target >= 1 - 1e-6
    lp = -((1 - p) ** alpha * torch.log(p))[pos].sum()
    ln = -((1 - target) ** beta * p ** alpha * torch.log(1 - p))[~pos].sum()
    return (lp + ln) / pos.sum().clamp_min(1)


def decode_detections(heat, reg, grid: Grid, det_labels, *, top=50, threshold=0.1):
    """Peaks of the heatmap (3x3 max-pool NMS) -> boxes (n, 9): label, x, y, z, l, w, h, yaw, score."""
    p = torch.sigmoid(heat)
    keep = (F.max_pool2d(p[None], 3, 1, 1)[0] == p) & (p >= threshold)
    k, i, j = torch.nonzero(keep, as_tuple=True)
    s = p[k, i, j]
    order = torch.argsort(s, descending=True)[:top]
    k, i, j, s = k[order], i[order], j[order], s[order]
    r = reg[:, i, j].T
    cell = grid.cell
    x = grid.lo[0] + (i.to(r.dtype) + r[:, 0]) * cell[0]
    y = grid.lo[1] + (j.to(r.dtype) + r[:, 1]) * cell[1]
    lab = torch.as_tensor(det_labels, device=heat.device)[k].to(r.dtype)
    yaw = torch.atan2(r[:, 6], r[:, 7])
    out = torch.stack([lab, x, y, r[:, 2], r[:, 3].exp(), r[:, 4].exp(), r[:, 5].exp(), yaw, s], 1)
    return out.detach().cpu().numpy()
