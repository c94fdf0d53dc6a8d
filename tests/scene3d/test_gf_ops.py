"""GaussianFusion's geometric operators: splatting, MeanVFE, LSS forward projection."""
from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from iclr26sci.scene3d import Grid, forward_project, mean_vfe, splat_gaussians

GRID = Grid((-2.0, -2.0, -2.0), (2.0, 2.0, 2.0), (12, 12, 12))


def _random(seed, n, C=3):
    rng = np.random.default_rng(seed)
    mu = rng.uniform(-1.5, 1.5, (n, 3))
    s = rng.uniform(0.2, 0.9, (n, 3))
    r = rng.normal(size=(n, 4))
    q = rng.normal(size=(n, C))
    return [torch.as_tensor(a) for a in (mu, s, r, q)]


def _numpy_mixture(mu, s, r, q, pts):
    out = np.zeros((len(pts), q.shape[1]))
    for i in range(len(mu)):
        rr = r[i].numpy() / np.linalg.norm(r[i].numpy())
        R = Rotation.from_quat(rr[[1, 2, 3, 0]]).as_matrix()
        P = np.linalg.inv(R @ np.diag(s[i].numpy() ** 2) @ R.T)
        d = pts - mu[i].numpy()
        out += np.exp(-0.5 * np.einsum("pi,ij,pj->p", d, P, d))[:, None] * q[i].numpy()
    return out


def test_splat_matches_numpy_mixture():
    mu, s, r, q = _random(0, 3)
    f = splat_gaussians(mu, s, r, q, GRID, truncate=None).reshape(-1, 3).numpy()
    ref = _numpy_mixture(mu, s, r, q, GRID.centres(torch.float64).reshape(-1, 3).numpy())
    assert np.abs(f - ref).max() < 1e-10


def test_truncated_splat_is_close_and_never_larger_in_weight():
    mu, s, r, q = _random(1, 2, 1)
    q = q.abs()
    full = splat_gaussians(mu, s, r, q, GRID, truncate=None)
    tr = splat_gaussians(mu, s, r, q, GRID, truncate=3.0)
    assert torch.all(tr <= full + 1e-12)
    # beyond 3 sigma a unit-feature Gaussian weighs at most exp(-4.5) each
    assert float((full - tr).max()) <= 2 * np.exp(-4.5) * float(q.max()) + 1e-12


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 5))
def test_splat_linear_and_permutation_invariant(seed, n):
    mu, s, r, q = _random(seed, n)
    a = splat_gaussians(mu, s, r, q, GRID)
    perm = torch.as_tensor(np.random.default_rng(seed).permutation(n))
    b = splat_gaussians(mu[perm], s[perm], r[perm], q[perm], GRID)
    assert torch.allclose(a, b, atol=1e-12)
    c = splat_gaussians(mu, s, r, 2 * q, GRID)
    assert torch.allclose(c, 2 * a, atol=1e-12)


def test_splat_is_differentiable():
    mu, s, r, q = _random(2, 2)
    mu.requires_grad_(True)
    q.requires_grad_(True)
    splat_gaussians(mu, s, r, q, GRID).sum().backward()
    assert torch.isfinite(mu.grad).all() and mu.grad.abs().sum() > 0 and q.grad.abs().sum() > 0


def test_mean_vfe_one_gaussian_per_cell_with_means():
    rng = np.random.default_rng(3)
    n = 300
    mu = rng.uniform(-2, 2, (n, 3))
    s = rng.uniform(0.1, 1.0, (n, 3))
    r = np.tile([1.0, 0, 0, 0], (n, 1))
    q = rng.normal(size=(n, 2))
    pm, ps, pr, pq, cells, counts = mean_vfe(mu, s, r, q, GRID)
    assert len(torch.unique(cells)) == len(cells) and int(counts.sum()) == n
    idx = np.floor((mu + 2) / (4 / 12)).astype(int)
    flat = (idx[:, 0] * 12 + idx[:, 1]) * 12 + idx[:, 2]
    for k, c in enumerate(cells.tolist()):
        sel = flat == c
        assert np.allclose(pm[k].numpy(), mu[sel].mean(0)) and np.allclose(pq[k].numpy(), q[sel].mean(0))
        assert np.allclose(ps[k].numpy(), s[sel].mean(0))
    assert torch.allclose(pr, torch.tensor([1.0, 0, 0, 0], dtype=pr.dtype).expand_as(pr))


def test_mean_vfe_pillars_and_dropped_outside():
    mu = [[0.1, 0.1, -1.9], [0.1, 0.1, 1.9], [5.0, 0, 0]]
    out = mean_vfe(mu, [[1.0] * 3] * 3, [[1.0, 0, 0, 0]] * 3, [[1.0], [3.0], [9.0]], GRID, dims=2)
    assert out[5].tolist() == [2] and out[3].ravel().tolist() == [2.0]


def test_mean_vfe_quaternion_sign_does_not_cancel():
    g = Grid((0.0, 0.0, 0.0), (1.0, 1.0, 1.0), (1, 1, 1))
    q0 = np.array([0.6, 0.8, 0.0, 0.0])
    out = mean_vfe([[0.5] * 3] * 2, [[1.0] * 3] * 2, [q0, -q0], [[0.0]] * 2, g)
    assert np.allclose(out[2].numpy(), q0[None])


def test_forward_project_inverts_projection():
    rng = np.random.default_rng(4)
    K = np.array([[30.0, 0, 32], [0, 30, 24], [0, 0, 1]])
    R = Rotation.from_rotvec(rng.normal(size=3)).as_matrix()
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, rng.normal(size=3)
    uv = rng.uniform(0, 60, (20, 2))
    X = forward_project(K, T, uv, [2.0, 7.5])
    Xc = (X.reshape(-1, 3) - T[:3, 3]) @ R          # back to the camera frame
    z = Xc[:, 2]
    proj = (Xc @ K.T)[:, :2] / z[:, None]
    assert np.allclose(z.reshape(20, 2), [[2.0, 7.5]] * 20)
    assert np.allclose(proj.reshape(20, 2, 2), uv[:, None], atol=1e-9)


def test_grid_centres_and_cells():
    g = Grid((0.0, 0.0, 0.0), (4.0, 2.0, 1.0), (4, 2, 1))
    c = g.centres(torch.float64)
    assert c.shape == (4, 2, 1, 3) and c[0, 0, 0].tolist() == [0.5, 0.5, 0.5] and c[3, 1, 0].tolist() == [3.5, 1.5, 0.5]
