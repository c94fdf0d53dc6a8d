r"""SSD-GS per-Gaussian shading terms (private; the public wrappers are in :mod:`iclr26sci.scene3d.ssdgs`).

Every formula here follows the official code (irisfreesiri/SSD-GS, ``scene/mixture_ASG.py``,
``scene/scatter_mlp.py``, ``gaussian_renderer/__init__.py``) as read for the spec
(``ssd-gs-relighting.md`` section 2.2), with one deliberate difference: the default dipole is
Jensen et al.'s (2001) standard dipole; the code's variant (``z_r * z_v`` in the virtual-source term)
is kept as ``variant="code"``.
"""
from __future__ import annotations

import math

import torch

F0_DEFAULT = 0.04          # Schlick F0 of the code's mixture_ASG (dielectric)
ETA_DEFAULT = 1.3          # relative index of refraction of the dipole
ELU_A = 0.01               # slope of the negative-tolerant cosine
N_LOBES = 8                # ASG lobes shared by all Gaussians
LATENT_DIM = 6             # per-Gaussian material latent


def smooth_cosine(cos):
    r""":math:`\tilde c = (\mathrm{ELU}_a(c) + a(1-e^{-1})) / (1 + a(1-e^{-1}))`, a = 0.01: 0 at c = -1, 1 at c = 1."""
    a = ELU_A
    off = a * (1.0 - math.exp(-1.0))
    return (torch.nn.functional.elu(cos, alpha=a) + off) / (1.0 + off)


def schlick(cos, f0=F0_DEFAULT):
    r"""Schlick's Fresnel :math:`F = F_0 + (1-F_0)(1-\mathrm{clamp}(\cos,0,1))^5`."""
    c = torch.clamp(cos, 0.0, 1.0)
    return f0 + (1.0 - f0) * (1.0 - c) ** 5


def asg_eval(h, frames, lam, mu, sigma):
    r"""The code's anisotropic spherical Gaussian of unit direction(s) ``h`` (..., 3) for J lobes.

    ``frames`` (J, 3, 3) has the lobe axes (x_j, y_j, z_j) as columns; ``lam``, ``mu``, ``sigma`` (J,).
    :math:`\theta_j = \arccos(h\cdot z_j)`, :math:`s_j = \mathrm{normalize}(h - (h\cdot z_j) z_j)`,
    :math:`a_j = \sqrt{(s_j\cdot x_j/\lambda_j)^2 + (s_j\cdot y_j/\mu_j)^2}`,
    :math:`G_j = \exp(-\tfrac12(\theta_j a_j/\sigma_j)^2) / (\sqrt2\,\pi^{2/3}\sigma_j)`. Returns (..., J).
    """
    x, y, z = frames[..., 0], frames[..., 1], frames[..., 2]          # (J, 3) each
    hz = h @ z.T                                                        # (..., J)
    theta = torch.acos(torch.clamp(hz, -1 + 1e-6, 1 - 1e-6))
    s = h[..., None, :] - hz[..., None] * z                             # (..., J, 3)
    s = s / torch.clamp(s.norm(dim=-1, keepdim=True), min=1e-12)
    sx, sy = (s * x).sum(-1), (s * y).sum(-1)
    a = torch.sqrt((sx / lam) ** 2 + (sy / mu) ** 2 + 1e-20)
    return torch.exp(-0.5 * (theta * a / sigma) ** 2) / (math.sqrt(2.0) * math.pi ** (2.0 / 3.0) * sigma)


def dipole_constants(sigma_s_prime, sigma_a, eta=ETA_DEFAULT):
    """(sigma_tr, alpha', z_r, z_v, A) of the classical dipole (Jensen et al. 2001)."""
    st = sigma_s_prime + sigma_a
    sigma_tr = torch.sqrt(3.0 * sigma_a * st)
    alpha = sigma_s_prime / st
    D = 1.0 / (3.0 * st)
    fdr = -1.440 / eta ** 2 + 0.710 / eta + 0.668 + 0.0636 * eta
    A = (1.0 + fdr) / (1.0 - fdr)
    zr = 1.0 / st
    zv = zr + 4.0 * A * D
    return sigma_tr, alpha, zr, zv, A


def dipole(r, sigma_s_prime, sigma_a, eta=ETA_DEFAULT, variant="jensen"):
    r"""Radial diffuse reflectance profile :math:`R_d(r)` of the dipole.

    Jensen: :math:`\frac{\alpha'}{4\pi}[z_r(\sigma_{tr}d_r+1)e^{-\sigma_{tr}d_r}/d_r^3
    + z_v(\sigma_{tr}d_v+1)e^{-\sigma_{tr}d_v}/d_v^3]`; ``variant="code"`` multiplies the second
    term by :math:`z_r` as well (the official code).
    """
    sigma_tr, alpha, zr, zv, _ = dipole_constants(sigma_s_prime, sigma_a, eta)
    dr = torch.sqrt(r * r + zr * zr)
    dv = torch.sqrt(r * r + zv * zv)
    term_r = zr * (sigma_tr * dr + 1.0) * torch.exp(-sigma_tr * dr) / dr ** 3
    zv_eff = zr * zv if variant == "code" else zv
    term_v = zv_eff * (sigma_tr * dv + 1.0) * torch.exp(-sigma_tr * dv) / dv ** 3
    return alpha * (term_r + term_v) / (4.0 * math.pi)


def dipole_total(sigma_s_prime, sigma_a, eta=ETA_DEFAULT):
    r"""Jensen's closed form :math:`R_d = \frac{\alpha'}2(1+e^{-\frac43A\sqrt{3(1-\alpha')}})e^{-\sqrt{3(1-\alpha')}}`."""
    _, alpha, _, _, A = dipole_constants(sigma_s_prime, sigma_a, eta)
    s = torch.sqrt(3.0 * (1.0 - alpha))
    return 0.5 * alpha * (1.0 + torch.exp(-4.0 / 3.0 * A * s)) * torch.exp(-s)


def positional_encoding(v, n_freq=4):
    """``[v, sin(2^0 v) .. sin(2^{L-1} v), cos(2^0 v) .. cos(2^{L-1} v)]`` (27 dims for a 3-vector, L = 4; no pi)."""
    f = 2.0 ** torch.arange(n_freq, dtype=v.dtype, device=v.device)
    vf = (v[..., None, :] * f[:, None]).flatten(-2)
    return torch.cat([v, torch.sin(vf), torch.cos(vf)], -1)


def frequency_encoding(v, n_freq=4):
    """tiny-cuda-nn's "Frequency" encoding: ``sin(2^f pi v), cos(2^f pi v)``, f < n_freq (24 dims for a 3-vector)."""
    f = math.pi * 2.0 ** torch.arange(n_freq, dtype=v.dtype, device=v.device)
    vf = v[..., :, None] * f                                            # (..., 3, F)
    return torch.stack([torch.sin(vf), torch.cos(vf)], -1).flatten(-3)


class ScatterMLP(torch.nn.Module):
    """90 -> 256 -> 256 -> 256 -> 128 -> 3 ReLU MLP giving (r, sigma_s', sigma_a) of the dipole (code's ScatterMLP)."""

    def __init__(self, latent_dim=LATENT_DIM, dtype=torch.float32, device="cpu"):
        super().__init__()
        d_in = 3 * 27 + 3 + latent_dim
        sizes = [d_in, 256, 256, 256, 128, 3]
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(torch.nn.Linear(sizes[i], sizes[i + 1], dtype=dtype, device=device))
            if i < len(sizes) - 2:
                layers.append(torch.nn.ReLU())
        self.net = torch.nn.Sequential(*layers)

    def forward(self, w_i, w_o, means, normals, latent):
        z = torch.cat([positional_encoding(w_i), positional_encoding(w_o), positional_encoding(means), normals, latent], -1)
        u = self.net(z)
        r = 3.0 * torch.sigmoid(u[:, 0]) + 0.1
        sigma_s = 2.0 * torch.sigmoid(u[:, 1]) + 0.05
        sigma_a = 2.0 * torch.sigmoid(u[:, 2]) + 0.05
        return r, sigma_s, sigma_a


class ShadowMLP(torch.nn.Module):
    """55 -> 32 -> 32 -> 32 -> 1 LeakyReLU MLP with a sigmoid output (the code's tiny-cuda-nn shadow refinement)."""

    def __init__(self, latent_dim=LATENT_DIM, hidden=32, layers=3, dtype=torch.float32, device="cpu"):
        super().__init__()
        d_in = 24 + 24 + latent_dim + 1
        mods, d = [], d_in
        for _ in range(layers):
            mods += [torch.nn.Linear(d, hidden, dtype=dtype, device=device), torch.nn.LeakyReLU()]
            d = hidden
        mods.append(torch.nn.Linear(d, 1, dtype=dtype, device=device))
        self.net = torch.nn.Sequential(*mods)

    def forward(self, w_i, means, latent, vis):
        z = torch.cat([frequency_encoding(w_i), frequency_encoding(means), latent, vis[:, None]], -1)
        return torch.clamp(torch.sigmoid(self.net(z))[:, 0] - 1e-5, min=0.0)
