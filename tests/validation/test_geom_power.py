"""The geom checks have power: each broken variant below makes its check FAIL.

Each check takes its component as an optional keyword (the registry calls it without), so the exact check
code runs with one deliberate defect substituted. The correct variants pass in the validation report itself
(``iclr26sci validate --only geom``).
"""
import math

import numpy as np
import torch

from iclr26sci.geom import project_gaussians, rasterize_gaussians
from validation import geom as V
from validation.registry import Profile

QUICK = Profile("quick")


def _conj(q):
    return q * torch.tensor([1.0, -1.0, -1.0, -1.0], dtype=q.dtype)


def _transposed_rotation_rasterizer(means, quats, *a, **k):
    """Broken: uses R(q)^T (the conjugate quaternion) for the Gaussian's orientation."""
    return rasterize_gaussians(means, _conj(quats), *a, **k)


def _transposed_rotation_projector(means, quats, *a, **k):
    return project_gaussians(means, _conj(quats), *a, **k)


def test_single_gaussian_fails_for_a_transposed_rotation():
    res = V.single_gaussian_analytic(QUICK, np.random.default_rng(0), rasterizer=_transposed_rotation_rasterizer,
                                     projector=_transposed_rotation_projector)
    crit = {c.name: c for c in res.criteria}
    assert not res.passed
    assert not crit["max |alpha - analytic alpha| (FD Jacobian)"].passed
    assert not crit["max z-score of the EWA covariance vs MC perspective image"].passed
    print("transposed rotation:", [(c.name, c.statistic) for c in res.criteria])


def test_single_gaussian_fails_without_eps2d():
    def no_dilation(*a, **k):
        k["eps2d"] = 0.0
        return rasterize_gaussians(*a, **k)

    res = V.single_gaussian_analytic(QUICK, np.random.default_rng(0), rasterizer=no_dilation)
    assert not res.passed and res.criteria[0].statistic > 1e-3
    print("no eps2d:", res.criteria[0].statistic)


def test_alpha_mass_fails_for_a_missing_half_in_the_exponent():
    def no_half(means, quats, log_scales, *a, **k):
        # exp(-d^T Q d) instead of exp(-d^T Q d / 2): the same as shrinking the scales by sqrt(2)
        return rasterize_gaussians(means, quats, log_scales - 0.5 * math.log(2.0), *a, **k)

    res = V.alpha_mass_closed_form(QUICK, np.random.default_rng(0), rasterizer=no_half)
    assert not res.passed and not res.criteria[0].passed
    print("missing 1/2:", [(c.name, c.statistic) for c in res.criteria])


def test_alpha_mass_fails_when_antialiasing_drops_its_compensation():
    def no_compensation(*a, **k):
        k["antialiased"] = False
        return rasterize_gaussians(*a, **k)

    res = V.alpha_mass_closed_form(QUICK, np.random.default_rng(0), rasterizer=no_compensation)
    crit = {c.name: c for c in res.criteria}
    assert crit["max |mass - closed form| / discretisation bound"].passed
    assert not crit["same, anti-aliased (mass of the undilated footprint)"].passed
    print("no AA compensation:", [(c.name, c.statistic) for c in res.criteria])


def test_gradcheck_fails_for_a_wrong_backward():
    def half_grad(means, *a, **k):
        means = means.detach() + 0.5 * (means - means.detach()) + 0.5 * (means - means.detach()).detach()
        return rasterize_gaussians(means, *a, **k)

    res = V.gradients_pass_gradcheck(QUICK, np.random.default_rng(0), rasterizer=half_grad)
    assert not res.passed
    print("half gradient of means:", [(c.name, c.statistic) for c in res.criteria])


def test_tiled_vs_reference_fails_when_tiles_miss_footprint_edges():
    def short_tiles(*a, **k):
        return rasterize_gaussians(*a, **k, _tile_pad=-3.0)

    res = V.tiled_equals_reference(QUICK, np.random.default_rng(0), rasterizer=short_tiles)
    assert not res.passed and res.criteria[0].statistic > 1e-3
    print("tile ranges 3 px short:", [(c.name, c.statistic) for c in res.criteria])


def test_transforms_fail_for_trace_only_quaternion_extraction():
    def trace_only(R):
        w = 0.5 * torch.sqrt(torch.clamp(1 + R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2], min=0))
        x = (R[..., 2, 1] - R[..., 1, 2]) / (4 * w)
        y = (R[..., 0, 2] - R[..., 2, 0]) / (4 * w)
        z = (R[..., 1, 0] - R[..., 0, 1]) / (4 * w)
        return torch.stack([w, x, y, z], -1)

    res = V.transforms_round_trip(QUICK, np.random.default_rng(0), rotmat_to_quat_fn=trace_only)
    assert not res.passed and not res.criteria[0].passed
    print("trace-only quaternion:", res.criteria[0].statistic)
