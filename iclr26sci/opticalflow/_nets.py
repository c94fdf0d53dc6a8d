r"""Flow networks (a tiny PWC-style net, RAFT-small, any user net) and the small U-Net modality translator.

Protocol: ``net(img1, img2) -> flow (B, 2, H, W)`` on ``img2``'s grid pointing into ``img1``
(``img2(x) ~ img1(x + flow(x))``), images ``(B, 3, H, W)`` in [0, 1]. :class:`FlowNet` pads inputs to a
multiple of 16, checks the output shape and crops it back.
"""
from __future__ import annotations

import torch
from torch import nn
import torch.nn.functional as F

from iclr26sci.core import InputError

from ._validate import check_int, check_same_device, check_tensor, init_weights, torch_seed

__all__ = ["FlowNet", "TinyPWC", "RAFTSmall", "TinyUNet", "FLOW_ARCHS"]

#: built-in architectures of :class:`FlowNet`
FLOW_ARCHS = ("pwc_tiny", "raft_small")


def _warp(x, flow):
    """Bilinear backward warp of features (zeros outside), flow in pixels on x's grid."""
    B, _, H, W = x.shape
    ys, xs = torch.meshgrid(torch.arange(H, dtype=x.dtype, device=x.device),
                            torch.arange(W, dtype=x.dtype, device=x.device), indexing="ij")
    gx = (2 * (xs[None] + flow[:, 0]) + 1) / W - 1
    gy = (2 * (ys[None] + flow[:, 1]) + 1) / H - 1
    return F.grid_sample(x, torch.stack([gx, gy], -1), mode="bilinear", padding_mode="zeros", align_corners=False)


def _local_corr(f2, f1w, radius):
    """Cost volume: cosine similarity of f2(x) and f1w(x + d) for all integer d in [-r, r]^2."""
    f2 = F.normalize(f2, dim=1)
    f1w = F.normalize(f1w, dim=1)
    B, C, H, W = f2.shape
    p = F.pad(f1w, (radius, radius, radius, radius))
    out = []
    for dy in range(2 * radius + 1):
        for dx in range(2 * radius + 1):
            out.append((f2 * p[:, :, dy:dy + H, dx:dx + W]).sum(1, keepdim=True))
    return torch.cat(out, 1)


def _check_pair(img1, img2, *, channels=3, multiple=1):
    """Two (B, C, H, W) image tensors of the same shape, ``channels`` channels, sides a multiple of ``multiple``."""
    check_tensor(img1, "img1", ndim=4, channels=channels)
    check_tensor(img2, "img2", ndim=4, channels=channels)
    if img1.shape != img2.shape:
        raise InputError("img2", f"has shape {tuple(img2.shape)} but img1 has {tuple(img1.shape)}",
                         "two (B, C, H, W) images of the same size")
    H, W = img1.shape[-2:]
    if H % multiple or W % multiple:
        raise InputError("img1", f"is {H}x{W} pixels", f"sides that are multiples of {multiple} (FlowNet pads them)")


def _conv(i, o, s=1):
    return nn.Sequential(nn.Conv2d(i, o, 3, s, 1), nn.LeakyReLU(0.1))


class TinyPWC(nn.Module):
    r"""A tiny PWC-Net: feature pyramid (1/2, 1/4, 1/8), warping, local cost volume, coarse-to-fine decoder.

    At each level the features of ``img1`` are warped by the upsampled flow, correlated with those of
    ``img2`` (radius ``radius``), and a small decoder predicts the residual flow; the 1/2-scale flow is
    upsampled bilinearly to full resolution. Inputs must be a multiple of 8 (use :class:`FlowNet`).

    Parameters
    ----------
    width : int
        Channels of the finest pyramid level (then 1.5x and 2x).
    radius : int
        Search radius of the cost volume in pixels of each level.
    finest : {0, 1}
        The finest level with a flow decoder: 0 (1/2 resolution) or 1 (1/4, the default, cheaper);
        the flow there is upsampled bilinearly to full resolution.
    rng : None, int, SeedSequence or Generator
        Seed of the initial weights (SPEC 7); ``None`` draws them from torch's global random state.

    References
    ----------
    Sun et al., "PWC-Net: CNNs for Optical Flow Using Pyramid, Warping, and Cost Volume", CVPR 2018.

    Examples
    --------
    >>> net = TinyPWC()
    >>> net(torch.rand(1, 3, 32, 32), torch.rand(1, 3, 32, 32)).shape
    torch.Size([1, 2, 32, 32])
    """

    def __init__(self, width: int = 16, radius: int = 3, finest: int = 1, *, rng=None):
        super().__init__()
        if rng is not None:
            torch_seed(rng)
        width = check_int(width, "width")
        radius = check_int(radius, "radius", lo=0)
        if isinstance(finest, bool) or finest not in (0, 1):
            raise InputError("finest", f"got {finest!r}", "0 (1/2 resolution) or 1 (1/4)")
        c = [width, int(1.5 * width), 2 * width]
        self.radius, self.finest = radius, finest
        self.enc = nn.ModuleList([nn.Sequential(_conv(3, c[0], 2), _conv(c[0], c[0])),
                                  nn.Sequential(_conv(c[0], c[1], 2), _conv(c[1], c[1])),
                                  nn.Sequential(_conv(c[1], c[2], 2), _conv(c[2], c[2]))])
        nd = (2 * radius + 1) ** 2
        self.dec = nn.ModuleList([nn.Sequential(_conv(nd + c[k] + 2, 48), _conv(48, 32), _conv(32, 24),
                                                nn.Conv2d(24, 2, 3, 1, 1)) for k in range(finest, 3)])
        init_weights(self, rng)

    def _pyr(self, x):
        out = []
        for e in self.enc:
            x = e(x)
            out.append(x)
        return out

    def forward(self, img1, img2):
        _check_pair(img1, img2, multiple=8)
        p1, p2 = self._pyr(img1 * 2 - 1), self._pyr(img2 * 2 - 1)
        flow = None
        for k in range(2, self.finest - 1, -1):
            f1, f2 = p1[k], p2[k]
            if flow is None:
                flow = torch.zeros(f2.shape[0], 2, *f2.shape[2:], dtype=f2.dtype, device=f2.device)
            else:
                flow = 2.0 * F.interpolate(flow, size=f2.shape[2:], mode="bilinear", align_corners=False)
            cv = _local_corr(f2, _warp(f1, flow), self.radius)
            flow = flow + self.dec[k - self.finest](torch.cat([cv, f2, flow], 1))
        up = 2 ** (self.finest + 1)
        return up * F.interpolate(flow, scale_factor=up, mode="bilinear", align_corners=False)


class _Res(nn.Module):
    def __init__(self, i, o, s):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(i, o, 3, s, 1), nn.Conv2d(o, o, 3, 1, 1)
        self.n1, self.n2 = nn.InstanceNorm2d(o), nn.InstanceNorm2d(o)
        self.skip = None if (s == 1 and i == o) else nn.Conv2d(i, o, 1, s)

    def forward(self, x):
        y = F.relu(self.n1(self.c1(x)))
        y = self.n2(self.c2(y))
        return F.relu(y + (x if self.skip is None else self.skip(x)))


class RAFTSmall(nn.Module):
    r"""RAFT-small, re-implemented in plain torch (used when torchvision is not installed).

    The RAFT-small design of Teed & Deng: residual feature and context encoders to 1/8 resolution, an
    all-pairs correlation volume with a 4-level pyramid looked up in radius 3 around the current
    estimate, a convolutional GRU update operator iterated ``iters`` times, and bilinear upsampling of
    the 1/8-resolution flow. Widths are reduced for CPU training (``dim``); ``dim=96`` with
    ``hidden=96`` is the published RAFT-small width. Returns the final flow and keeps every iterate in
    ``self.predictions`` (for RAFT's sequence loss).

    Parameters
    ----------
    dim : int
        Feature channels.
    hidden : int
        GRU hidden and context channels.
    iters : int
        Refinement iterations.
    levels, radius : int
        Correlation pyramid depth and lookup radius.
    rng : None, int, SeedSequence or Generator
        Seed of the initial weights (SPEC 7); ``None`` draws them from torch's global random state.

    References
    ----------
    Teed & Deng, "RAFT: Recurrent All-Pairs Field Transforms for Optical Flow", ECCV 2020.

    Examples
    --------
    >>> net = RAFTSmall(iters=2)
    >>> net(torch.rand(1, 3, 32, 32), torch.rand(1, 3, 32, 32)).shape
    torch.Size([1, 2, 32, 32])
    """

    def __init__(self, dim: int = 64, hidden: int = 64, iters: int = 6, levels: int = 4, radius: int = 3, *,
                 rng=None):
        super().__init__()
        if rng is not None:
            torch_seed(rng)
        dim, hidden = check_int(dim, "dim"), check_int(hidden, "hidden")
        iters, levels, radius = check_int(iters, "iters"), check_int(levels, "levels"), check_int(radius, "radius", lo=0)
        self.iters, self.levels, self.radius, self.hidden = iters, levels, radius, hidden

        def enc(o):
            return nn.Sequential(nn.Conv2d(3, 32, 7, 2, 3), nn.ReLU(), _Res(32, 32, 1), _Res(32, 48, 2),
                                 _Res(48, 64, 2), nn.Conv2d(64, o, 1))
        self.fnet = enc(dim)
        self.cnet = enc(2 * hidden)
        cor = levels * (2 * radius + 1) ** 2
        self.menc_c = nn.Sequential(nn.Conv2d(cor, 64, 1), nn.ReLU())
        self.menc_f = nn.Sequential(nn.Conv2d(2, 32, 7, 1, 3), nn.ReLU(), nn.Conv2d(32, 16, 3, 1, 1), nn.ReLU())
        self.menc = nn.Sequential(nn.Conv2d(80, 62, 3, 1, 1), nn.ReLU())
        inp = 64 + hidden
        self.convz = nn.Conv2d(hidden + inp, hidden, 3, 1, 1)
        self.convr = nn.Conv2d(hidden + inp, hidden, 3, 1, 1)
        self.convq = nn.Conv2d(hidden + inp, hidden, 3, 1, 1)
        self.head = nn.Sequential(nn.Conv2d(hidden, 64, 3, 1, 1), nn.ReLU(), nn.Conv2d(64, 2, 3, 1, 1))
        self.predictions: list = []
        init_weights(self, rng)

    def _lookup(self, pyr, coords):
        B, _, h, w = coords.shape
        r = self.radius
        d = torch.arange(-r, r + 1, dtype=coords.dtype, device=coords.device)
        dy, dx = torch.meshgrid(d, d, indexing="ij")
        delta = torch.stack([dx, dy], -1).reshape(1, 1, -1, 2)        # (1, 1, K, 2)
        c = coords.permute(0, 2, 3, 1).reshape(B * h * w, 1, 1, 2)
        out = []
        for i, corr in enumerate(pyr):                               # corr: (B*h*w, 1, h_i, w_i)
            hi, wi = corr.shape[-2:]
            p = c / 2 ** i + delta                                   # pixel-index coordinates at level i
            grid = torch.stack([(2 * p[..., 0] + 1) / wi - 1, (2 * p[..., 1] + 1) / hi - 1], -1)
            s = F.grid_sample(corr, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
            out.append(s.reshape(B, h, w, -1))
        return torch.cat(out, -1).permute(0, 3, 1, 2)

    def forward(self, img1, img2):
        _check_pair(img1, img2, multiple=8)
        # RAFT's convention is flow on image1's grid into image2: call it with (img2, img1)
        a, b = img2 * 2 - 1, img1 * 2 - 1
        f1, f2 = self.fnet(a), self.fnet(b)
        B, C, h, w = f1.shape
        corr = torch.einsum("bchw,bcxy->bhwxy", f1, f2).reshape(B * h * w, 1, h, w) / C ** 0.5
        pyr = [corr]
        for _ in range(self.levels - 1):
            pyr.append(F.avg_pool2d(pyr[-1], 2, 2, ceil_mode=True))
        net, inp = torch.split(self.cnet(a), [self.hidden, self.hidden], 1)
        net, inp = torch.tanh(net), F.relu(inp)
        ys, xs = torch.meshgrid(torch.arange(h, dtype=f1.dtype, device=f1.device),
                                torch.arange(w, dtype=f1.dtype, device=f1.device), indexing="ij")
        coords0 = torch.stack([xs, ys])[None].expand(B, -1, -1, -1)
        flow = torch.zeros_like(coords0)
        self.predictions = []
        for _ in range(self.iters):
            flow = flow.detach()
            cf = self._lookup(pyr, coords0 + flow)
            m = self.menc(torch.cat([self.menc_c(cf), self.menc_f(flow)], 1))
            x = torch.cat([inp, m, flow], 1)
            hx = torch.cat([net, x], 1)
            z, r = torch.sigmoid(self.convz(hx)), torch.sigmoid(self.convr(hx))
            q = torch.tanh(self.convq(torch.cat([r * net, x], 1)))
            net = (1 - z) * net + z * q
            flow = flow + self.head(net)
            self.predictions.append(8.0 * F.interpolate(flow, scale_factor=8, mode="bilinear", align_corners=False))
        return self.predictions[-1]


class _TorchvisionRAFT(nn.Module):
    """torchvision's ``raft_small(weights=None)`` under this module's protocol."""

    def __init__(self, iters=6, *, rng=None):
        super().__init__()
        if rng is not None:
            torch_seed(rng)
        iters = check_int(iters, "iters")
        from torchvision.models.optical_flow import raft_small

        self.core = raft_small(weights=None, progress=False)
        self.iters = iters
        self.predictions: list = []
        init_weights(self, rng)

    def forward(self, img1, img2):
        self.predictions = self.core(img2 * 2 - 1, img1 * 2 - 1, num_flow_updates=self.iters)
        return self.predictions[-1]


class TinyUNet(nn.Module):
    """A small U-Net modality translator ``T_phi`` (3 -> 3 channels, [0, 1] output, two down-samplings).

    Parameters
    ----------
    width : int
        Channels of the first level (doubled at each of the two lower levels).
    rng : None, int, SeedSequence or Generator
        Seed of the initial weights (SPEC 7); ``None`` draws them from torch's global random state.

    Examples
    --------
    >>> TinyUNet()(torch.rand(2, 3, 32, 32)).shape
    torch.Size([2, 3, 32, 32])
    """

    def __init__(self, width: int = 16, *, rng=None):
        super().__init__()
        if rng is not None:
            torch_seed(rng)
        w = check_int(width, "width")
        self.e1 = nn.Sequential(_conv(3, w), _conv(w, w))
        self.e2 = nn.Sequential(_conv(w, 2 * w, 2), _conv(2 * w, 2 * w))
        self.e3 = nn.Sequential(_conv(2 * w, 4 * w, 2), _conv(4 * w, 4 * w))
        self.d2 = nn.Sequential(_conv(6 * w, 2 * w), _conv(2 * w, 2 * w))
        self.d1 = nn.Sequential(_conv(3 * w, w), nn.Conv2d(w, 3, 3, 1, 1))
        init_weights(self, rng)

    def forward(self, x):
        check_tensor(x, "x", ndim=4, channels=3)
        a = self.e1(x)
        b = self.e2(a)
        c = self.e3(b)
        u = F.interpolate(c, size=b.shape[2:], mode="bilinear", align_corners=False)
        u = self.d2(torch.cat([u, b], 1))
        u = F.interpolate(u, size=a.shape[2:], mode="bilinear", align_corners=False)
        return torch.sigmoid(self.d1(torch.cat([u, a], 1)))


class FlowNet(nn.Module):
    r"""A flow network under the DCFlow protocol: a built-in architecture by name, or any user module.

    ``FlowNet("pwc_tiny")`` is :class:`TinyPWC`; ``FlowNet("raft_small")`` is torchvision's
    ``raft_small(weights=None)`` (trained from scratch: no pretrained weights offline) when torchvision
    is installed, else this package's :class:`RAFTSmall` (same design, reduced width); any
    ``torch.nn.Module`` taking ``(img1, img2)`` and returning ``(B, 2, H, W)`` also works. Inputs are
    replicate-padded to a multiple of 16 and the output cropped back; a wrong output shape raises
    :class:`~iclr26sci.core.InputError` naming ``net``.

    Parameters
    ----------
    net : {"pwc_tiny", "raft_small"} or torch.nn.Module
        The architecture, or the user's network.
    rng : None, int, SeedSequence or Generator
        Seed of a built-in architecture's initial weights (SPEC 7); ``None`` draws them from torch's global
        random state.
    **kwargs :
        Passed to the built-in architecture (e.g. ``width``, ``iters``).

    Attributes
    ----------
    arch : str
        ``"pwc_tiny"``, ``"raft_small"`` / ``"raft_small(torchvision)"`` or ``"custom:<class name>"``.

    Examples
    --------
    >>> net = FlowNet("pwc_tiny")
    >>> net(torch.rand(1, 3, 30, 40), torch.rand(1, 3, 30, 40)).shape
    torch.Size([1, 2, 30, 40])
    """

    def __init__(self, net="pwc_tiny", *, rng=None, **kwargs):
        super().__init__()
        if rng is not None:
            torch_seed(rng)
        if rng is not None and not isinstance(net, str):
            raise InputError("rng", "was given with a user module", "rng only for a built-in architecture (seed your "
                             "module yourself, or let DCFlow(reinit=True) draw its weights from DCFlow's rng)")
        if isinstance(net, FlowNet):
            net = net.core
        if isinstance(net, str):
            if net not in FLOW_ARCHS:
                raise InputError("net", f"got {net!r}", f"one of {FLOW_ARCHS} or a torch.nn.Module")
            import inspect

            cls = TinyPWC if net == "pwc_tiny" else RAFTSmall
            known = set(inspect.signature(cls.__init__).parameters) - {"self", "rng"}
            if net == "raft_small":
                try:
                    import torchvision  # noqa: F401

                    known = {"iters"}
                except ImportError:
                    pass
            unknown = sorted(set(kwargs) - known)
            if unknown:
                raise InputError(unknown[0], f"is not a parameter of {net!r}", "one of " + ", ".join(sorted(known)))
            if net == "pwc_tiny":
                self.core, self.arch = TinyPWC(rng=rng, **kwargs), "pwc_tiny"
            else:
                try:
                    import torchvision  # noqa: F401

                    self.core, self.arch = _TorchvisionRAFT(rng=rng, **kwargs), "raft_small(torchvision)"
                except ImportError:
                    self.core, self.arch = RAFTSmall(rng=rng, **kwargs), "raft_small"
        elif isinstance(net, nn.Module):
            if kwargs:
                raise InputError("kwargs", f"got {sorted(kwargs)} with a user module", "no keyword arguments")
            self.core, self.arch = net, f"custom:{type(net).__name__}"
        else:
            raise InputError("net", f"got {type(net).__name__}", f"one of {FLOW_ARCHS} or a torch.nn.Module")

    @property
    def predictions(self):
        """The iterates of the last call (a one-element list for non-iterative nets)."""
        p = getattr(self.core, "predictions", None)
        return list(p) if p else []

    def forward(self, img1, img2):
        builtin = not self.arch.startswith("custom:")
        for name, x in (("img1", img1), ("img2", img2)):
            check_tensor(x, name, ndim=4, channels=3 if builtin else None, unit_range=True)
        if img1.shape != img2.shape:
            raise InputError("img2", f"has shape {tuple(img2.shape)} but img1 has {tuple(img1.shape)}",
                             "two (B, C, H, W) images of the same size")
        check_same_device(img2, "img2", img1.device, "img1")
        p = next(self.core.parameters(), None)
        if p is not None:
            check_same_device(img1, "img1", p.device, "the network")
        B, _, H, W = img1.shape
        ph, pw = (-H) % 16, (-W) % 16
        if ph or pw:
            img1 = F.pad(img1, (0, pw, 0, ph), mode="replicate")
            img2 = F.pad(img2, (0, pw, 0, ph), mode="replicate")
        out = self.core(img1, img2)
        if isinstance(out, (list, tuple)):
            out = out[-1]
        if not isinstance(out, torch.Tensor) or tuple(out.shape) != (B, 2, H + ph, W + pw):
            raise InputError("net", f"returned {tuple(getattr(out, 'shape', ())) or type(out).__name__}",
                             f"a flow tensor (B, 2, H, W) = ({B}, 2, {H + ph}, {W + pw})")
        return out[:, :, :H, :W]

    def crop_predictions(self, H, W):
        """The iterates of the last call cropped to ``(H, W)``.

        Examples
        --------
        >>> net = FlowNet("pwc_tiny"); _ = net(torch.rand(1, 3, 16, 16), torch.rand(1, 3, 16, 16))
        >>> len(net.crop_predictions(16, 16))
        0
        """
        H, W = check_int(H, "H"), check_int(W, "W")
        return [p[:, :, :H, :W] for p in self.predictions]
