"""Tiled compositing with a hand-written backward pass (the default path of ``rasterize_gaussians``).

Same pixels, same rules and the same (Gaussian, tile) pairs as the autograd path
(:func:`iclr26sci.geom._rasterize._render_tiled`); only the bookkeeping differs.

Forward, per chunk of tiles and per depth block of Gaussians (``L`` tiles x ``P`` pixels x ``kb``
Gaussians, all vectorised)::

    l_k     = log o_k - 1/2 d^T Q_k d                     (one matmul of pixel features)
    alpha_k = [|d| <= r_k] [alpha >= 1/255] min(0.99, e^{l_k})
    s_k     = log T_0 + sum_{j<=k} log(1 - alpha_j)        (log of the inclusive transmittance)
    T_k     = exp(s_k - log(1 - alpha_k)) [s_k >= log 1e-4]  (exclusive transmittance, early termination)
    out    += sum_k alpha_k T_k f_k                         (f = colour, depth, 1)

``alpha`` and ``T`` of every block are saved. The backward pass walks the blocks back to front
(the 3DGS kernel walks each pixel's list back to front); with ``g_k = <dL/dout, f_k>`` and the
suffix sum ``S_k = sum_{j>k} alpha_j T_j g_j`` (an exclusive reverse cumulative sum inside the
block plus a running total of the later blocks),

    dL/df_k     = sum_pixels alpha_k T_k dL/dout
    dL/dalpha_k = T_k g_k - S_k / (1 - alpha_k)
    dL/dl_k     = dL/dalpha_k * alpha_k * [alpha_k < 0.99]

and the gradients of ``log o``, the conic ``(a, b, c)`` and the 2-D mean follow from six pixel moments
``sum_p dL/dl (1, x, y, x^2, xy, y^2)`` per (tile, Gaussian), one more matmul with the same pixel
features, expanded around the tile-local mean.
"""
from __future__ import annotations

import math
import threading

import torch

ALPHA_MIN = 1.0 / 255.0
ALPHA_MAX = 0.99
T_MIN = 1e-4
_K = 2.0 ** 60      # exact power-of-two scale that turns the radius test into a min() with the exponent
_WORK = 2 ** 19     # (tiles x pixels x Gaussians) elements per block (fastest of 2^17..2^21 at 256^2)
_BLOCK = 64


def _below(x, dt):
    """Largest float of dtype ``dt`` below ``x``: ``y > _below(x) <=> y >= x`` for ``threshold``."""
    t = torch.tensor(x, dtype=dt)
    return float(torch.nextafter(t, torch.tensor(-math.inf, dtype=dt)))


def _chunks(plan, work, block):
    """Chunks of similar-count tiles (as the autograd path orders them), ``work`` elements per block."""
    T, P = plan["T"], plan["P"]
    per_tile_l = plan["per_tile"].tolist()
    order = plan["order"]
    order_l = order.tolist()
    pos = 0
    out = []
    while pos < T and per_tile_l[order_l[pos]] > 0:
        kmax = per_tile_l[order_l[pos]]
        nt = max(1, min(T - pos, work // (P * min(kmax, block))))
        n_active = sum(1 for i in order_l[pos:pos + nt] if per_tile_l[i] > 0)
        out.append((order[pos:pos + n_active], kmax))
        pos += nt
    return out


class _Buffers:
    """Reused scratch tensors: fresh multi-megabyte allocations cost page faults on every block."""

    def __init__(self, dt, dev):
        self.dt, self.dev, self.flat = dt, dev, {}
        self.one = torch.ones((), dtype=dt, device=dev)

    def __call__(self, name, *shape):
        n = math.prod(shape)
        f = self.flat.get(name)
        if f is None or f.numel() < n:
            f = self.flat[name] = torch.empty(n, dtype=self.dt, device=self.dev)
        return f[:n].view(shape)


_TLS = threading.local()  # per thread: [(flat tensor, its storage use count when free)], arenas for saved tensors
_POOL_MAX_BYTES = 2 ** 28


def _use_count(t):
    return torch._C._storage_Use_Count(t.untyped_storage()._cdata)


def _arena(n, dt, dev):
    """A flat tensor of at least ``n`` elements for one forward's saved alpha and T.

    Fresh memory costs a page fault per 4 KiB on first touch (about a fifth of the 256^2 / 10k
    forward + backward), so arenas are reused -- only once no tensor views them any more (the graph
    that saved them was freed), checked through the storage's reference count.
    """
    pool = _TLS.__dict__.setdefault("pool", [])  # per thread, so two threads never share an arena
    if hasattr(torch._C, "_storage_Use_Count"):
        for t, free in pool:
            if t.dtype == dt and t.device == dev and t.numel() >= n and _use_count(t) == free:
                return t[:n]
    t = torch.empty(n, dtype=dt, device=dev)
    if hasattr(torch._C, "_storage_Use_Count") and n * t.element_size() <= _POOL_MAX_BYTES:
        pool.append((t, _use_count(t)))
        if len(pool) > 2:
            pool.pop(0)
    return t


def _alpha_T(pix, pix_r, coef, coef_r, T0, th_min, th_t, buf, arena):
    """alpha and the exclusive transmittance of one block ``(L, P, kb)`` (written into ``arena(size)``,
    kept for the backward pass: cheaper than recomputing them there), and the transmittance after it."""
    L, _, kb = coef.shape
    P = pix.shape[0]
    la = torch.bmm(pix.expand(L, P, 6), coef, out=arena(L * P * kb).view(L, P, kb))     # log alpha
    # -K (|d|^2 - r^2) >= 0 exactly inside the disc |d| <= r: the minimum applies the radius test
    torch.minimum(la, torch.bmm(pix_r.expand(L, P, 4), coef_r, out=buf("r", L, P, kb)), out=la)
    # exp(-10) < 1/255: clamping first keeps exp off its slow (huge negative / subnormal) inputs
    alpha = la.clamp_(min=-10.0).exp_().clamp_(max=ALPHA_MAX)
    torch.nn.functional.threshold(alpha, th_min, 0.0, inplace=True)
    om = torch.sub(buf.one, alpha, out=buf("om", L, P, kb))        # 1 - alpha >= 0.01
    Tin = torch.cumprod(om, -1, out=arena(L * P * kb).view(L, P, kb)).mul_(T0[..., None])
    torch.nn.functional.threshold(Tin, th_t, 0.0, inplace=True)    # early termination
    # carried as 0 once terminated: later blocks then multiply zeros, never float32 subnormals
    T_after = Tin[..., -1].clone()
    return alpha, Tin.div_(om), T_after                         # exclusive transmittance, 0 once done


def _pair_geometry(plan, means2d, conics, dt):
    """Per (Gaussian, tile) pair: the tile-local mean and the Gaussian's conic; a zero sentinel row last."""
    g, TX, ts = plan["g"], plan["TX"], plan["ts"]
    tile = torch.repeat_interleave(torch.arange(plan["T"], device=g.device), plan["per_tile"])
    mx = means2d[g, 0] - ((tile % TX) * ts).to(dt)
    my = means2d[g, 1] - ((tile // TX) * ts).to(dt)
    z = means2d.new_zeros(1)
    a, b, c = conics[g].unbind(-1)
    return [torch.cat([t, z]) for t in (mx, my, a, b, c)]


class _Composite(torch.autograd.Function):
    """``(means2d, conics, opacities, feats) -> (T, F, P)`` tile buffer of composited features."""

    @staticmethod
    def forward(ctx, means2d, conics, opacities, feats, plan, work, block):
        dt, dev = feats.dtype, feats.device
        M, F = feats.shape
        T, P = plan["T"], plan["P"]
        g, per_tile, tile_start, pix, pix_r = plan["g"], plan["per_tile"], plan["tile_start"], plan["pix"], plan["pix_r"]
        n_pairs = g.numel()
        # coefficients of every pair in the pixel features, computed once (row n_pairs: padding sentinel)
        mx, my, a, b, c = _pair_geometry(plan, means2d, conics, dt)
        logo = torch.cat([torch.log(opacities)[g], opacities.new_zeros(1)])
        rr2 = torch.cat([plan["radii"].to(dt)[g] ** 2, torch.full((1,), -1.0, dtype=dt, device=dev)])
        coef_p = torch.stack([-0.5 * a, -b, -0.5 * c, a * mx + b * my, c * my + b * mx,
                              logo - (0.5 * a * mx * mx + b * mx * my + 0.5 * c * my * my)], 1)      # (n+1, 6)
        # -K (|d|^2 - r^2): >= 0 exactly when |d| <= r (K a power of two keeps the sign exact); sentinel: < 0
        coef_rp = torch.stack([torch.full_like(mx, -_K), 2 * _K * mx, 2 * _K * my,
                               -_K * (mx * mx + my * my - rr2)], 1)                                  # (n+1, 4)
        fT_p = torch.cat([feats[g], feats.new_zeros(1, F)])                                          # (n+1, F)
        th_min, th_t = _below(ALPHA_MIN, dt), _below(T_MIN, dt)
        full = torch.zeros(T, F, P, dtype=dt, device=dev)
        buf = _Buffers(dt, dev)
        saved, meta = [], []
        chunks = _chunks(plan, work, block)
        per_tile_l = per_tile.tolist()
        need = 0                                   # alpha and T of every block, before early termination
        for tiles, kmax in chunks:
            cnt = [per_tile_l[i] for i in tiles.tolist()]
            need += sum(2 * P * min(block, kmax - k0) * sum(1 for c in cnt if c > k0) for k0 in range(0, kmax, block))
        flat, used = _arena(need, dt, dev), [0]

        def arena(m):
            used[0] += m
            return flat[used[0] - m:used[0]]

        for tiles, kmax in chunks:
            n = tiles.numel()
            cntc, start = per_tile[tiles], tile_start[tiles]
            acc = torch.zeros(n, F, P, dtype=dt, device=dev)
            Trun = torch.ones(n, P, dtype=dt, device=dev)          # transmittance after the last block
            live = torch.arange(n, device=dev)
            nb = 0
            for k0 in range(0, kmax, block):
                live = live[(cntc[live] > k0) & (Trun[live] > th_t).any(1)]
                if live.numel() == 0:
                    break
                kb = min(block, kmax - k0)
                k = torch.arange(k0, k0 + kb, device=dev)
                idx = torch.where(k < cntc[live][:, None], start[live][:, None] + k, n_pairs)    # (L, kb) pairs
                L = live.numel()
                T0 = Trun[live]
                alpha, Tx, Trun[live] = _alpha_T(pix, pix_r, coef_p[idx].transpose(1, 2),
                                                 coef_rp[idx].transpose(1, 2), T0, th_min, th_t, buf, arena)
                w = torch.mul(alpha, Tx, out=buf("w", L, P, kb))
                acc.index_add_(0, live, torch.bmm(fT_p[idx].transpose(1, 2), w.transpose(1, 2),
                                                  out=buf("c", L, F, P)))
                saved.extend((live, idx, alpha, Tx))
                nb += 1
            full[tiles] = acc
            meta.append((tiles, nb))
        ctx.meta, ctx.plan, ctx.M = meta, plan, M
        ctx.save_for_backward(means2d, conics, opacities, feats, *saved)
        return full

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_full):
        means2d, conics, opacities, feats, *saved = ctx.saved_tensors
        plan, M = ctx.plan, ctx.M
        dt, dev = feats.dtype, feats.device
        F = feats.shape[1]
        g, pix = plan["g"], plan["pix"]
        n_pairs = g.numel()
        pixT = pix.T.contiguous()
        fT_p = torch.cat([feats[g], feats.new_zeros(1, F)])
        gfeat_p = torch.zeros(n_pairs + 1, F, dtype=dt, device=dev)
        mom_p = torch.zeros(n_pairs + 1, 6, dtype=dt, device=dev)   # sum_p dL/dl (xx, xy, yy, x, y, 1) per pair
        buf = _Buffers(dt, dev)
        ns = 4
        pos = 0
        for tiles, nb in ctx.meta:
            blocks = [saved[pos + ns * i: pos + ns * (i + 1)] for i in range(nb)]
            pos += ns * nb
            Gc = grad_full[tiles]                                       # (n, F, P)
            S_after = torch.zeros(tiles.numel(), grad_full.shape[2], dtype=dt, device=dev)
            for blk in reversed(blocks):
                live, idx, alpha, Tx = blk
                Gl = Gc[live]                                           # (L, F, P)
                L, P, kb = alpha.shape
                gw = torch.bmm(Gl.transpose(1, 2), fT_p[idx].transpose(1, 2), out=buf("g", L, P, kb))  # <dL/dout, f>
                w = torch.mul(alpha, Tx, out=buf("w", L, P, kb))
                gfeat_p.index_add_(0, idx.reshape(-1),
                                   torch.bmm(Gl, w, out=buf("f", L, F, kb)).transpose(1, 2).reshape(-1, F))
                wg = w.mul_(gw)
                cs = torch.cumsum(wg, -1, out=buf("s", L, P, kb))
                tot = S_after[live] + cs[..., -1]
                S_after[live] = tot
                nS = cs.sub_(tot[..., None])                            # -(sum over later Gaussians of w g)
                nS.div_(torch.sub(buf.one, alpha, out=buf("om", L, P, kb)))
                dl = gw.mul_(Tx).add_(nS)                               # dL/dalpha
                # times -alpha [alpha < 0.99] (threshold, not a boolean mask: faster), sign undone below
                na = torch.neg(alpha, out=buf("om", L, P, kb))
                dl.mul_(torch.nn.functional.threshold(na, -ALPHA_MAX, 0.0, inplace=True))
                mom = torch.bmm(pixT.expand(L, 6, P), dl, out=buf("m", L, 6, kb))
                mom_p.index_add_(0, idx.reshape(-1), mom.transpose(1, 2).reshape(-1, 6), alpha=-1.0)
        # moments -> gradients of the tile-local mean, the conic and log o, per pair, then per Gaussian
        mx, my, a, b, c = _pair_geometry(plan, means2d, conics, dt)
        Sxx, Sxy, Syy, Sx, Sy, S0 = mom_p.unbind(1)
        Qx, Qy = Sx - mx * S0, Sy - my * S0                             # sum dl (x - mx), sum dl (y - my)
        Qxx = Sxx - 2 * mx * Sx + mx * mx * S0
        Qxy = Sxy - mx * Sy - my * Sx + mx * my * S0
        Qyy = Syy - 2 * my * Sy + my * my * S0
        gp = torch.stack([a * Qx + b * Qy, b * Qx + c * Qy, -0.5 * Qxx, -Qxy, -0.5 * Qyy, S0], -1)[:n_pairs]
        gpar = torch.zeros(M, 6, dtype=dt, device=dev).index_add_(0, g, gp)     # d mx, d my, d a, d b, d c, d log o
        g_means = gpar[:, :2] if ctx.needs_input_grad[0] else None
        g_conics = gpar[:, 2:5] if ctx.needs_input_grad[1] else None
        g_opac = gpar[:, 5] / opacities if ctx.needs_input_grad[2] else None
        g_feats = (torch.zeros(M, F, dtype=dt, device=dev).index_add_(0, g, gfeat_p[:n_pairs])
                   if ctx.needs_input_grad[3] else None)
        return g_means, g_conics, g_opac, g_feats, None, None, None


def composite(proj, feats, plan, work=_WORK, block=_BLOCK):
    """Composited ``(T, P, F)`` tile buffer of ``feats`` (M, F) with the hand-written backward."""
    plan = dict(plan, radii=proj.radii)
    return _Composite.apply(proj.means2d, proj.conics, proj.opacities, feats, plan, work, block)
