"""Image warps: backward warping with bilinear ``grid_sample`` and forward z-buffer splatting."""
from __future__ import annotations

import torch

from iclr26sci.core import InputError

__all__ = ["backward_warp", "forward_splat"]


def _img_flow(image, flow, image_name="image"):
    for name, x in ((image_name, image), ("flow", flow)):
        if not isinstance(x, torch.Tensor) or not x.is_floating_point():
            raise InputError(name, f"got {type(x).__name__}", "a float tensor")
        if not bool(torch.isfinite(x).all()):
            raise InputError(name, "contains NaN or infinite values", "finite values")
    if image.ndim != 4:
        raise InputError(image_name, f"has shape {tuple(image.shape)}", "(B, C, H, W)")
    B, _, H, W = image.shape
    if image.numel() == 0:
        raise InputError(image_name, f"is empty (shape {tuple(image.shape)})", "a non-empty (B, C, H, W) tensor")
    if flow.shape != (B, 2, H, W):
        raise InputError("flow", f"has shape {tuple(flow.shape)}", f"({B}, 2, {H}, {W}): (dx, dy) in pixels")
    if flow.dtype != image.dtype:
        raise InputError("flow", f"has dtype {flow.dtype} but {image_name} has {image.dtype}", "the same dtype")
    if flow.device != image.device:
        raise InputError("flow", f"is on {flow.device} but {image_name} is on {image.device}", "the same device")
    return B, H, W


def backward_warp(image, flow, *, padding_mode: str = "zeros"):
    r"""Sample ``image`` at ``p + flow(p)``: :math:`I_w(p) = I(p + f(p))`, bilinear, flow in pixels.

    Pixel ``(i, j)`` has centre ``(i + 0.5, j + 0.5)``; ``grid_sample`` is called with
    ``align_corners=False``, which uses that same convention.

    Parameters
    ----------
    image : tensor (B, C, H, W)
        Source image.
    flow : tensor (B, 2, H, W)
        Displacement ``(dx, dy)`` in pixels from each target pixel to where it is read in ``image``.
    padding_mode : {"zeros", "border", "reflection"}

    Returns
    -------
    warped : tensor (B, C, H, W)
    valid : bool tensor (B, 1, H, W)
        Whether the sample point lies inside the source image.

    Examples
    --------
    >>> import torch
    >>> img = torch.arange(16.0).reshape(1, 1, 4, 4)
    >>> flow = torch.zeros(1, 2, 4, 4); flow[:, 0] = 1.0          # read one pixel to the right
    >>> backward_warp(img, flow)[0][0, 0, 0]
    tensor([1., 2., 3., 0.])
    """
    B, H, W = _img_flow(image, flow)
    if padding_mode not in ("zeros", "border", "reflection"):
        raise InputError("padding_mode", f"got {padding_mode!r}", "'zeros', 'border' or 'reflection'")
    ys, xs = torch.meshgrid(torch.arange(H, dtype=image.dtype, device=image.device),
                            torch.arange(W, dtype=image.dtype, device=image.device), indexing="ij")
    x = xs[None] + flow[:, 0]
    y = ys[None] + flow[:, 1]
    grid = torch.stack([(2 * x + 1) / W - 1, (2 * y + 1) / H - 1], -1)
    out = torch.nn.functional.grid_sample(image, grid, mode="bilinear", padding_mode=padding_mode,
                                          align_corners=False)
    valid = ((x >= -0.5) & (x <= W - 0.5) & (y >= -0.5) & (y <= H - 0.5))[:, None]
    return out, valid


def forward_splat(values, flow, depth):
    """Forward-warp ``values`` by ``flow`` with a z-buffer: each target pixel keeps the nearest source.

    Each source pixel ``p`` lands on the target pixel nearest to ``p + flow(p)``; where several land on
    the same pixel, the one with the smallest ``depth`` wins (ties: the lowest source index). Pixels
    nobody lands on are 0 with ``mask`` False. Differentiable with respect to ``values`` (a gather).

    Parameters
    ----------
    values : tensor (B, C, H, W)
        What is moved (colour, features).
    flow : tensor (B, 2, H, W)
        Displacement in pixels.
    depth : tensor (B, 1, H, W)
        Depth of every source pixel (smaller is nearer).

    Returns
    -------
    splatted : tensor (B, C, H, W)
    mask : bool tensor (B, 1, H, W)
    target_depth : tensor (B, 1, H, W)
        The winning depth (inf where empty).

    Examples
    --------
    >>> import torch
    >>> v = torch.tensor([[[[1.0, 2.0]]]]); d = torch.tensor([[[[2.0, 1.0]]]])
    >>> flow = torch.zeros(1, 2, 1, 2); flow[0, 0, 0, 0] = 1.0      # pixel 0 moves onto pixel 1
    >>> out, mask, _ = forward_splat(v, flow, d)
    >>> out.flatten().tolist(), mask.flatten().tolist()      # pixel 1 is nearer (depth 1), so it wins
    ([0.0, 2.0], [False, True])
    """
    B, H, W = _img_flow(values, flow, "values")
    if not isinstance(depth, torch.Tensor) or depth.shape != (B, 1, H, W) or not bool(torch.isfinite(depth).all()):
        raise InputError("depth", f"got {getattr(depth, 'shape', type(depth).__name__)}",
                         f"a finite tensor of shape ({B}, 1, {H}, {W})")
    C = values.shape[1]
    ys, xs = torch.meshgrid(torch.arange(H, device=values.device), torch.arange(W, device=values.device),
                            indexing="ij")
    with torch.no_grad():
        tx = torch.floor(xs[None].to(flow.dtype) + flow[:, 0] + 0.5).long()
        ty = torch.floor(ys[None].to(flow.dtype) + flow[:, 1] + 0.5).long()
        inside = (tx >= 0) & (tx < W) & (ty >= 0) & (ty < H)
        tgt = (ty * W + tx).reshape(B, -1)
        inside = inside.reshape(B, -1)
        dep = depth.detach().reshape(B, -1).to(torch.float64)
        src = torch.arange(H * W, device=values.device).expand(B, -1)
        # lexicographic z-buffer: smallest depth, then smallest source index
        key = torch.where(inside, dep, torch.full_like(dep, float("inf")))
        zbuf = torch.full((B, H * W), float("inf"), dtype=torch.float64, device=values.device)
        tgt_c = torch.where(inside, tgt, torch.zeros_like(tgt))
        zbuf = zbuf.scatter_reduce(1, tgt_c, key, reduce="amin", include_self=True)
        win = inside & (key == zbuf.gather(1, tgt_c))
        big = H * W
        cand = torch.where(win, src, torch.full_like(src, big))
        owner = torch.full((B, H * W), big, dtype=torch.long, device=values.device)
        owner = owner.scatter_reduce(1, tgt_c, cand, reduce="amin", include_self=True)
        mask = owner < big
    own = torch.where(mask, owner, torch.zeros_like(owner))
    flat = values.reshape(B, C, -1)
    out = torch.gather(flat, 2, own[:, None, :].expand(B, C, -1)) * mask[:, None, :].to(values.dtype)
    tdep = torch.where(mask, zbuf, torch.full_like(zbuf, float("inf"))).to(depth.dtype)
    return out.reshape(B, C, H, W), mask.reshape(B, 1, H, W), tdep.reshape(B, 1, H, W)
