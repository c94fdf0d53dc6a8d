"""Feature extractors g_phi for the deep kernel."""
from __future__ import annotations

import math

import torch
from torch import nn

from iclr26sci.core import InputError

__all__ = ["ConvFeatures", "MLPFeatures", "build_extractor"]


class ConvFeatures(nn.Module):
    """Conv(1->c, k) - softplus - ... - flatten - Linear(-> m): the convolutional feature map."""

    def __init__(self, patch_size: int, feature_dim: int, channels: int = 16, kernel_size: int = 5, n_layers: int = 2):
        super().__init__()
        side = patch_size - n_layers * (kernel_size - 1)
        if side < 1:
            raise InputError("kernel_size", f"{n_layers} valid convolutions of size {kernel_size} do not fit a "
                             f"{patch_size}x{patch_size} patch", "a smaller kernel_size or fewer layers")
        self.patch_size = patch_size
        layers, c_in = [], 1
        for _ in range(n_layers):
            layers += [nn.Conv2d(c_in, channels, kernel_size), nn.Softplus()]
            c_in = channels
        self.conv = nn.Sequential(*layers)
        self.head = nn.Linear(channels * side * side, feature_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = self.patch_size
        h = self.conv(x.reshape(-1, 1, p, p))
        return self.head(h.flatten(1))


class MLPFeatures(nn.Module):
    """Fully-connected feature map for stimuli that are not square patches."""

    def __init__(self, in_dim: int, feature_dim: int, hidden=(64,)):
        super().__init__()
        dims = [in_dim, *hidden]
        layers = []
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [nn.Linear(a, b), nn.Softplus()]
        layers.append(nn.Linear(dims[-1], feature_dim))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def build_extractor(architecture: str, in_dim: int, feature_dim: int, channels: int, kernel_size: int,
                    n_layers: int, hidden) -> nn.Module:
    if architecture == "conv":
        p = int(round(math.sqrt(in_dim)))
        if p * p != in_dim:
            raise InputError("stimuli", f"have {in_dim} values, not a square patch",
                             "flattened p x p patches for architecture='conv' (or use architecture='mlp')")
        return ConvFeatures(p, feature_dim, channels, kernel_size, n_layers)
    return MLPFeatures(in_dim, feature_dim, hidden)
