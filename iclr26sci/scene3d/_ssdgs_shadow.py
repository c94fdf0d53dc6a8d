"""Stage 1 of the SSD-GS shadow: per-Gaussian visibility by splatting the Gaussians from the light (private).

Re-implements, in vectorised torch, what the official CUDA kernel (``diff-gaussian-rasterization_light``,
``forward.cu``) computes without gradient: a pinhole camera at the light looks at the centroid of the
means; every Gaussian k reads, at the light-image pixels p within 2 px of its projected centre, the
transmittance of the Gaussians in front of it, ``T_p(z_k - eps) = prod_{j: z_j < z_k - eps} (1 - alpha_j(p))``,
and averages it with its own footprint weights ``w_kp = exp(-1/2 d^T Sigma'^-1 d)``.
"""
from __future__ import annotations

import math

import torch

from iclr26sci.geom import Camera, project_gaussians

ALPHA_MIN, ALPHA_MAX = 1.0 / 255.0, 0.99


def light_camera(light, means, width, height, focal, dtype=torch.float64):
    """The pinhole at ``light`` looking at the centroid of ``means`` (up = +z, or +y if the view is vertical)."""
    target = means.detach().mean(0).to(dtype)
    eye = torch.as_tensor(light, dtype=dtype)
    d = target - eye
    up = torch.tensor([0.0, 0.0, 1.0], dtype=dtype)
    if torch.linalg.cross(d / d.norm(), up).norm() < 1e-3:
        up = torch.tensor([0.0, 1.0, 0.0], dtype=dtype)
    return Camera.look_at(eye, target, up=up, fx=float(focal), fy=float(focal), width=int(width), height=int(height),
                          dtype=dtype)


def _pixel_offsets(radius, dtype, device):
    r = int(math.ceil(radius))
    ar = torch.arange(-r, r + 1, device=device)
    oy, ox = torch.meshgrid(ar, ar, indexing="ij")
    return ox.flatten(), oy.flatten()


@torch.no_grad()
def splat_visibility(means, quats, log_scales, opacity_logits, cam, *, offset=0.015, thres=4.0, eps2d=0.3):
    """Coarse visibility ``v_k`` in [0, 1] of every Gaussian from the light camera ``cam`` (see module doc).

    Gaussians outside the light's image (or culled) get ``v = 1`` (nothing in front of them is seen).
    """
    dt = means.dtype
    n = means.shape[0]
    dev = means.device
    vis = torch.ones(n, dtype=dt, device=dev)
    p = project_gaussians(means.detach(), quats.detach(), log_scales.detach(), opacity_logits.detach(), cam,
                          eps2d=eps2d)
    m = p.ids.numel()
    if m == 0:
        return vis
    W, H = cam.width, cam.height
    mu2, con, op, z, rad = p.means2d.to(dt), p.conics.to(dt), p.opacities.to(dt), p.depths.to(dt), p.radii
    # ---- the occluders: (Gaussian j, pixel q) pairs inside each footprint's 3-sigma radius
    counts = (2 * rad + 1) ** 2
    gj = torch.repeat_interleave(torch.arange(m, device=dev), counts)
    start = torch.cumsum(counts, 0) - counts
    local = torch.arange(int(counts.sum()), device=dev) - start[gj]
    side = (2 * rad + 1)[gj]
    cx = torch.floor(mu2[gj, 0]).long() + local % side - rad[gj]
    cy = torch.floor(mu2[gj, 1]).long() + local // side - rad[gj]
    inside = (cx >= 0) & (cx < W) & (cy >= 0) & (cy < H)
    gj, cx, cy = gj[inside], cx[inside], cy[inside]
    dx, dy = cx.to(dt) + 0.5 - mu2[gj, 0], cy.to(dt) + 0.5 - mu2[gj, 1]
    a, b, c = con[gj, 0], con[gj, 1], con[gj, 2]
    power = -0.5 * (a * dx * dx + 2 * b * dx * dy + c * dy * dy)
    alpha = torch.clamp(op[gj] * torch.exp(power), max=ALPHA_MAX)
    keep = (alpha >= ALPHA_MIN) & (power <= 0) & (dx * dx + dy * dy <= (rad[gj].to(dt)) ** 2)
    gj, cx, cy, alpha = gj[keep], cx[keep], cy[keep], alpha[keep]
    pix = cy * W + cx
    # ---- sort by (pixel, depth) and take per-pixel exclusive cumulative log-transmittance
    zmin, zmax = float(z.min()), float(z.max())
    span = max(zmax - zmin, 1e-12)

    def key(px, zz):
        return px.to(torch.float64) + 0.999 * torch.clamp((zz.to(torch.float64) - zmin) / span, 0.0, 1.0)

    keys = key(pix, z[gj])
    order = torch.argsort(keys, stable=True)
    keys, la = keys[order], torch.log1p(-alpha[order]).to(torch.float64)
    cum = torch.cat([torch.zeros(1, dtype=torch.float64, device=dev), torch.cumsum(la, 0)])
    # ---- the receivers: pixels within sqrt(thres) px of each projected centre
    ox, oy = _pixel_offsets(math.sqrt(thres), dt, dev)
    qx = torch.floor(mu2[:, 0]).long()[:, None] + ox[None]
    qy = torch.floor(mu2[:, 1]).long()[:, None] + oy[None]
    ddx, ddy = qx.to(dt) + 0.5 - mu2[:, 0:1], qy.to(dt) + 0.5 - mu2[:, 1:2]
    ok = (ddx * ddx + ddy * ddy < thres) & (qx >= 0) & (qx < W) & (qy >= 0) & (qy < H)
    w = torch.exp(-0.5 * (con[:, 0:1] * ddx * ddx + 2 * con[:, 1:2] * ddx * ddy + con[:, 2:3] * ddy * ddy))
    w = torch.where(ok, w, torch.zeros_like(w))
    qpix = (qy.clamp(0, H - 1) * W + qx.clamp(0, W - 1))
    lo = torch.searchsorted(keys, qpix.to(torch.float64).flatten())
    hi = torch.searchsorted(keys, key(qpix.flatten(), (z[:, None] - offset).expand_as(qpix).flatten()))
    # a query depth below zmin maps to the pixel's first entry: nothing in front
    below = ((z[:, None] - offset).expand_as(qpix).flatten() < zmin)
    hi = torch.where(below, lo, hi)
    logT = (cum[hi] - cum[lo]).reshape(qpix.shape).to(dt)
    T = torch.exp(logT)
    sw = w.sum(1)
    v = (w * T).sum(1) / torch.clamp(sw, min=1e-6)
    v = torch.where(sw > 0, v, torch.ones_like(v))
    vis[p.ids] = v
    return vis
