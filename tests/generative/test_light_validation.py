"""The light section's exact checks pass, and fail on the broken variants their docstrings name."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import iclr26sci.generative._light_sample as ls
import iclr26sci.nn._diffusion as nd
from validation import light as V
from validation.registry import Profile

QUICK = Profile("quick")


def test_l3_l4_pass():
    for fn in (V.l3_guidance_limits, V.l4_ddim_mechanics):
        res = fn(QUICK, np.random.default_rng(0))
        assert res.passed, (fn.__name__, [(c.name, c.statistic) for c in res.criteria])


@pytest.mark.slow
def test_l3_catches_pass_s_from_fresh_noise(monkeypatch):
    orig = ls.ddim_sample

    def broken(denoise, x_init, levels, schedule, **kw):
        if kw.get("guidance") is not None:                  # pass S restarted from other noise
            x_init = [x + 1e-3 for x in x_init]
        return orig(denoise, x_init, levels, schedule, **kw)

    monkeypatch.setattr("iclr26sci.generative.light.ddim_sample", broken)
    res = V.l3_guidance_limits(QUICK, np.random.default_rng(0))
    assert not res.passed and res.criteria[0].statistic > 0


def test_l3_catches_off_by_one_pace_window(monkeypatch):
    """Leaders read at U[m + delta + 1] instead of U[m + delta]."""
    import dataclasses

    orig = ls.ddim_sample

    def broken(denoise, x_init, levels, schedule, guidance=None, **kw):
        if guidance is not None:
            guidance = dataclasses.replace(guidance, delta=guidance.delta + 1)
        return orig(denoise, x_init, levels, schedule, guidance=guidance, **kw)

    monkeypatch.setattr("iclr26sci.generative.light.ddim_sample", broken)
    res = V.l3_guidance_limits(QUICK, np.random.default_rng(0))
    assert not res.passed and res.criteria[0].statistic > 0


def test_l4_catches_unmasked_ddim_step(monkeypatch):
    orig = nd.ddim_step

    def unmasked(schedule, x, x0_hat, level, next_level, **kw):
        lv = torch.as_tensor(np.asarray(level))
        nx = torch.as_tensor(np.asarray(next_level))
        nx = torch.where(nx >= lv, (lv - 1).clamp(min=-1), nx)           # frozen tokens are stepped anyway
        return orig(schedule, x, x0_hat, level, nx, **kw)

    monkeypatch.setattr("iclr26sci.nn.ddim_step", unmasked)
    res = V.l4_ddim_mechanics(QUICK, np.random.default_rng(0))
    assert not res.passed and res.criteria[0].statistic > 0


@pytest.mark.slow
def test_l1_catches_synchronous_training():
    orc, pred = V.oracle_mlp(0, mode="synchronous")
    rel, _ = V._l1_stat(orc, pred, np.random.default_rng(0))
    assert rel > 0.05
