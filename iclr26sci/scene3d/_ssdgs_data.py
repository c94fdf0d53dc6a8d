"""The synthetic OLAT generator behind :func:`iclr26sci.scene3d.ssdgs.olat_scene` (private).

Ground truth is rendered by ray casting (:class:`iclr26sci.geom.RaycastScene`, open3d when it imports):
primary rays give the hit point, normal and object id; soft shadows average shadow rays to jittered
points on a small spherical light. Shading is analytic, per object:

- diffuse: ``albedo / pi * max(0, n.w_i) * I / r^2 * V``;
- specular: ``k_s * F_schlick(w_i.h) * ASG(h)`` in the surface's tangent frame (an anisotropic
  spherical Gaussian of Xu et al. 2013, ``max(h.n, 0) exp(-lam (h.t)^2 - mu (h.b)^2)``), ``* I / r^2 * V``;
- subsurface: ``k_sss * R_d(sigma_s', sigma_a) / pi * wrap(n.w_i) * I / r^2`` with Jensen's total diffuse
  reflectance ``R_d`` and wrap lighting ``max(0, (n.w_i + 0.3) / 1.3)`` (light that enters anywhere on the
  lit side of a translucent object; it is not shadowed by other objects, mirroring SSD-GS's
  ``C = (D + Spec) S + SSS``);
- shadow: the visible fraction ``V`` of the light.

The image is the sum of the three radiance components (linear, unclipped: an "HDR" capture).
"""
from __future__ import annotations

import functools
import os
import re
import tarfile

import numpy as np

CGAL_TAR = "/usr/share/doc/libcgal-dev/data.tar.gz"
CGAL_ALIASES = {"bunny": "bunny00.off", "armadillo": "armadillo.off", "elephant": "elephant.off",
                "mannequin": "mannequin-devil.off", "fandisk": "fandisk.off"}


@functools.lru_cache(maxsize=1)
def _cgal_index():
    if not os.path.exists(CGAL_TAR):
        return {}
    with tarfile.open(CGAL_TAR, "r:gz") as tf:
        return {os.path.basename(m.name): m.name for m in tf.getmembers() if m.isfile() and m.name.endswith(".off")}


def _parse_off(data: bytes):
    toks = re.sub(rb"#[^\n]*", b"", data).split()
    if not toks or toks[0] != b"OFF":
        raise ValueError("only plain OFF files are read")
    nv, nf = int(toks[1]), int(toks[2])
    vals = toks[4:]
    V = np.array(vals[:3 * nv], dtype=np.float64).reshape(nv, 3)
    pos, faces = 3 * nv, []
    for _ in range(nf):
        k = int(vals[pos])
        idx = [int(x) for x in vals[pos + 1:pos + 1 + k]]
        faces += [[idx[0], idx[j], idx[j + 1]] for j in range(1, k - 1)]
        pos += 1 + k
        while pos < len(vals) and k and b"." in vals[pos]:
            pos += 1
    return V, np.array(faces, dtype=np.int64).reshape(-1, 3)


@functools.lru_cache(maxsize=4)
def read_cgal_mesh(name):
    """A libcgal-demo mesh (``bunny``, ``armadillo``, or a ``.off`` member name) as (V, F); None if absent."""
    idx = _cgal_index()
    key = CGAL_ALIASES.get(name, name if name.endswith(".off") else name + ".off")
    if key not in idx:
        return None
    with tarfile.open(CGAL_TAR, "r:gz") as tf:
        data = tf.extractfile(idx[key]).read()
    return _parse_off(data)


def cgal_available_names():
    return sorted(set(CGAL_ALIASES) | {k[:-4] for k in _cgal_index()})


def cylinder_mesh(radius, height, centre_xy, n=24):
    """A closed cylinder standing on z = 0 (outward winding)."""
    cx, cy = centre_xy
    ang = 2 * np.pi * np.arange(n) / n
    ring = np.stack([cx + radius * np.cos(ang), cy + radius * np.sin(ang)], 1)
    V = np.concatenate([np.c_[ring, np.zeros(n)], np.c_[ring, np.full(n, height)], [[cx, cy, 0.0], [cx, cy, height]]])
    F = []
    for i in range(n):
        j = (i + 1) % n
        F += [[i, j, n + j], [i, n + j, n + i], [2 * n, j, i], [2 * n + 1, n + i, n + j]]
    return V, np.array(F, dtype=np.int64)


def normalise_mesh(V, F, height=0.9, centre_xy=(0.0, 0.0)):
    """Scale a mesh to ``height`` (largest extent) and stand it on z = 0 at ``centre_xy``."""
    V = np.asarray(V, np.float64)
    lo, hi = V.min(0), V.max(0)
    s = height / max(float((hi - lo).max()), 1e-12)
    W = (V - 0.5 * (lo + hi)) * s
    W[:, 2] -= W[:, 2].min()
    W[:, 0] += centre_xy[0]
    W[:, 1] += centre_xy[1]
    return W, np.asarray(F, np.int64)


def sample_surface(V, F, n, rng):
    """Area-weighted uniform samples on a triangle mesh and their face normals."""
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    cr = np.cross(b - a, c - a)
    area = 0.5 * np.linalg.norm(cr, axis=1)
    keep = area > 0
    F, a, b, c, cr, area = F[keep], a[keep], b[keep], c[keep], cr[keep], area[keep]
    k = rng.choice(len(F), size=n, p=area / area.sum())
    u, v = rng.random(n), rng.random(n)
    flip = u + v > 1
    u[flip], v[flip] = 1 - u[flip], 1 - v[flip]
    pts = a[k] + u[:, None] * (b[k] - a[k]) + v[:, None] * (c[k] - a[k])
    nrm = cr[k] / np.linalg.norm(cr[k], axis=1, keepdims=True)
    return pts, nrm


def jensen_rd(sigma_s, sigma_a, eta=1.3):
    """Jensen's closed-form total diffuse reflectance of the dipole (numpy)."""
    st = sigma_s + sigma_a
    alpha = sigma_s / st
    fdr = -1.440 / eta ** 2 + 0.710 / eta + 0.668 + 0.0636 * eta
    A = (1 + fdr) / (1 - fdr)
    s = np.sqrt(3 * (1 - alpha))
    return 0.5 * alpha * (1 + np.exp(-4.0 / 3.0 * A * s)) * np.exp(-s)


def schlick_np(c, f0=0.04):
    return f0 + (1 - f0) * (1 - np.clip(c, 0, 1)) ** 5


def tangent_frame(n):
    """A tangent t and bitangent b for unit normals n (t in the plane of n and world z, or of n and x)."""
    ref = np.where(np.abs(n[:, 2:3]) < 0.9, np.array([[0.0, 0.0, 1.0]]), np.array([[1.0, 0.0, 0.0]]))
    t = np.cross(ref, n)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    return t, np.cross(n, t)


def shade(points, normals, view_dirs, light, intensity, mats, obj, vis):
    """The analytic components (diffuse, specular, subsurface) (P, 3) each, for shading points of objects ``obj``."""
    d = light[None] - points
    r2 = np.maximum((d * d).sum(1), 1e-12)
    wi = d / np.sqrt(r2)[:, None]
    cos = (normals * wi).sum(1)
    g = intensity / r2
    alb, ks, ksss = mats["albedo"][obj], mats["specular"][obj], mats["subsurface"][obj]
    diff = alb / np.pi * np.clip(cos, 0, None)[:, None] * (g * vis)[:, None]
    h = wi + view_dirs
    h /= np.maximum(np.linalg.norm(h, axis=1, keepdims=True), 1e-12)
    t, b = tangent_frame(normals)
    lam, mu = mats["asg_lambda"][obj], mats["asg_mu"][obj]
    G = np.clip((h * normals).sum(1), 0, None) * np.exp(-lam * (h * t).sum(1) ** 2 - mu * (h * b).sum(1) ** 2)
    F = schlick_np((wi * h).sum(1))
    spec = ks * (F * G * (cos > 0) * g * vis)[:, None]
    rd = jensen_rd(mats["sigma_s"][obj], mats["sigma_a"][obj])
    wrap = np.clip((cos + 0.3) / 1.3, 0, None)
    sss = ksss * (rd / np.pi * wrap * g)[:, None]
    return diff, spec, sss


def sphere_olat(cameras=4, train_lights=24, test_lights=8, size=32, rng=None, *, noise=0.01, intensity=12.0,
                albedo=0.05, specular=1.5, asg=8.0, subsurface=(0.8, 0.48, 0.36), sigma_s=1.5, sigma_a=0.08,
                wrap=1.0, supersample=2, n_points=4000):
    """A glossy, translucent sphere (radius 0.6 at the origin, nothing else in the scene: no cast shadows) under
    point lights drawn uniformly on a sphere of radius 2.5, seen by ``cameras`` on a ring (radius 2.6).

    Per pixel (``supersample``^2 rays, analytic ray-sphere hits and normals): diffuse ``albedo/pi (n.w_i)+ I/r^2``;
    specular ``k_s F ASG(h) I/r^2`` (isotropic Xu ASG of sharpness ``asg``); subsurface
    ``k_sss R_d/pi ((n.w_i + wrap)/(1 + wrap))+ I/r^2`` with Jensen's total reflectance: with ``wrap = 1`` the
    sphere glows on the side away from the light (translucency), which a Lambertian term cannot produce. Images
    carry Gaussian sensor noise of standard deviation ``noise`` (clipped at 0); ``clean`` images are returned too.

    Returns ``(train, test, clean_train, clean_test)``: two :class:`OLATSet` (same cameras; test = unseen lights)
    and their noise-free images.
    """
    import torch

    from iclr26sci.core import as_generator
    from iclr26sci.geom import Camera

    from .ssdgs import OLATSet

    gen = as_generator(rng)
    R = 0.6
    ksss = np.asarray(subsurface, dtype=np.float64)
    rd = float(jensen_rd(sigma_s, sigma_a))
    cams = []
    az0 = gen.uniform(0, 2 * np.pi)
    for k in range(cameras):
        az = az0 + 2 * np.pi * k / cameras + gen.uniform(-0.2, 0.2)
        el = np.deg2rad(gen.uniform(-20, 40))
        eye = 2.6 * np.array([np.cos(az) * np.cos(el), np.sin(az) * np.cos(el), np.sin(el)])
        cams.append(Camera.look_at(eye.tolist(), [0.0, 0.0, 0.0], up=[0.0, 0.0, 1.0], fx=1.6 * size, fy=1.6 * size,
                                   width=size, height=size, dtype=torch.float64))

    def draw(k):
        v = gen.normal(size=(k, 3))
        return 2.5 * v / np.linalg.norm(v, axis=1, keepdims=True)

    Ltr, Lte = draw(train_lights), draw(test_lights)
    geo = []
    for cam in cams:
        d = cam.scaled(size * supersample, size * supersample).pixel_rays().numpy().reshape(-1, 3)
        o = cam.centre.numpy()
        b = d @ o
        disc = b * b - (o @ o - R * R)
        hit = disc > 0
        t = -b - np.sqrt(np.maximum(disc, 0.0))
        P = (o + t[:, None] * d)[hit]
        geo.append((hit, P, P / R, -d[hit]))

    def make(lights):
        comps = {k: [] for k in ("diffuse", "specular", "subsurface")}
        cl, ll = [], []
        for cam, (hit, P, N, V) in zip(cams, geo):
            for L in lights:
                dl = L[None] - P
                r2 = (dl * dl).sum(1)
                wi = dl / np.sqrt(r2)[:, None]
                cos = (N * wi).sum(1)
                g = intensity / r2
                h = wi + V
                h /= np.maximum(np.linalg.norm(h, axis=1, keepdims=True), 1e-12)
                hn = (h * N).sum(1)
                G = np.clip(hn, 0, None) * np.exp(-asg * (1.0 - hn * hn))
                vals = {"diffuse": np.full(3, albedo / np.pi)[None] * (np.clip(cos, 0, None) * g)[:, None],
                        "specular": specular * (schlick_np((wi * h).sum(1)) * G * (cos > 0) * g)[:, None].repeat(3, 1),
                        "subsurface": ksss[None] * (rd / np.pi * np.clip((cos + wrap) / (1 + wrap), 0, None) * g)[:, None]}
                for key, v in vals.items():
                    full = np.zeros((len(hit), 3))
                    full[hit] = v
                    comps[key].append(full.reshape(size, supersample, size, supersample, 3).mean((1, 3)))
                cl.append(cam)
                ll.append(L)
        D, S, SS = (np.array(comps[k]) for k in ("diffuse", "specular", "subsurface"))
        clean = D + S + SS
        return clean, np.clip(clean + noise * gen.normal(size=clean.shape), 0, None), D, S, SS, cl, np.array(ll)

    u = gen.normal(size=(n_points, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    out, cleans = [], []
    for lights in (Ltr, Lte):
        clean, noisy, D, S, SS, cl, ll = make(lights)
        out.append(OLATSet(images=noisy, cameras=cl, lights=ll, intensity=np.full(len(cl), intensity), diffuse=D,
                           specular=S, subsurface=SS, points=R * u, normals=u))
        cleans.append(clean)
    return out[0], out[1], cleans[0], cleans[1]
