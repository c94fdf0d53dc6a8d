"""Each SSD-GS validation check fails when the component it guards is broken (so none of them cannot fail)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import validation.ssdgs as V
from iclr26sci.geom import rasterize_gaussians
from iclr26sci.scene3d._ssdgs_model import SSDGS
from iclr26sci.scene3d._ssdgs_shadow import light_camera, splat_visibility
from iclr26sci.scene3d.ssdgs import asg_lobe
from validation.registry import Profile

pytestmark = pytest.mark.slow     # each runs a check twice (about 2 min in all on the loaded 2-core box)

Q = Profile("quick")


def rng():
    return np.random.default_rng(0)


def test_c1_catches_missing_dilation():
    assert V.composite_exact(Q, rng()).passed
    bad = V.composite_exact(Q, rng(), rasterizer=lambda *a, **k: rasterize_gaussians(*a, eps2d=0.0, **k))
    assert not bad.passed and bad.criteria[0].statistic > 1e-3


def test_c2_catches_detached_radiance():
    def detached(self, *a, **k):
        out = SSDGS._shade(self, *a, **k)
        return {**out, "C": out["C"].detach()}

    assert V.render_gradcheck(Q, rng()).passed
    assert not V.render_gradcheck(Q, rng(), shade_fn=detached).passed


def test_c3_catches_inverse_distance_law():
    def one_over_r(self, light, cam_c, s_I, on, vis=None):
        out = SSDGS._shade(self, light, cam_c, s_I, on, vis)
        r = (torch.as_tensor(light, dtype=torch.float64)[None] - self.params_["means"]).norm(dim=1)
        return {**out, "C": out["C"] * r[:, None]}

    assert V.inverse_square_linearity(Q, rng()).passed
    bad = V.inverse_square_linearity(Q, rng(), shade_fn=one_over_r)
    assert not bad.passed and abs(bad.criteria[0].statistic - 2.0) < 1e-6


def test_c4_catches_swapped_fresnel():
    bad = V.fresnel_limits(Q, rng(), fresnel=lambda c: 0.04 + 0.96 * torch.clamp(c, 0, 1) ** 5)
    assert not bad.passed


def test_c5_catches_the_codes_dipole():
    bad = V.dipole_closed_form(Q, rng(), dipole="code")
    assert not bad.passed and bad.criteria[1].statistic > 0.1


def test_c6_catches_transposed_frame():
    bad = V.asg_invariances(Q, rng(), asg_fn=lambda h, fr, l, m, s: asg_lobe(h, fr.transpose(-1, -2), l, m, s))
    assert not bad.passed


def test_c7_catches_missing_depth_test():
    def no_depth(means, quats, log_scales, logits, light, *, width, height, focal):
        cam = light_camera(np.asarray(light), means, width, height, focal)
        return splat_visibility(means, quats, log_scales, logits, cam, offset=-1e3)   # everything counts as in front

    assert V.shadow_visibility(Q, rng()).passed
    bad = V.shadow_visibility(Q, rng(), visibility_fn=no_depth)
    assert not bad.passed and bad.criteria[2].statistic < 0.95
