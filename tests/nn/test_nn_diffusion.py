"""Tests of iclr26sci.nn._diffusion: schedules, per-token q_sample, the masked DDIM step, noise-level samplers."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from iclr26sci.core import InputError
from iclr26sci.nn import DiffusionSchedule, ddim_levels, ddim_step, q_sample, sample_noise_levels


def test_cosine_schedule_matches_closed_form():
    K, s = 50, 0.008
    sch = DiffusionSchedule(K)
    f = lambda t: np.cos((t / K + s) / (1 + s) * np.pi / 2) ** 2  # noqa: E731
    # alpha_bar(lam) = f(lam + 1) / f(0) (index 0 is one step of noise), up to the 0.999 beta clip (inactive here)
    np.testing.assert_allclose(sch.alphas_cumprod[:-1], f(np.arange(1, K)) / f(0), rtol=1e-10)
    assert np.all(np.diff(sch.alphas_cumprod) < 0)
    assert sch.alpha_bar(-1) == 1.0


def test_q_sample_per_token_levels_are_independent():
    sch = DiffusionSchedule(100)
    g = torch.Generator().manual_seed(0)
    x0 = torch.full((20000, 3, 1), 2.0, dtype=torch.float64)
    lv = torch.tensor([5, 50, 95]).expand(20000, 3)
    x = q_sample(sch, x0, lv, generator=g)
    ab = sch.alpha_bar(np.array([5, 50, 95]))
    # mean sqrt(ab) * 2 and variance 1 - ab, within 5 standard errors
    from scipy.stats import norm

    from iclr26sci.testing import assert_unbiased

    v = x[:, :, 0].var(0).numpy()
    for j in range(3):  # the k.SE rule with k = 5 (alpha = 2 * norm.sf(5)), as before
        assert_unbiased(x[:, j, 0].numpy(), 2 * np.sqrt(ab[j]), method="kse", alpha=2 * norm.sf(5), seed=0)
    assert np.all(np.abs(v - (1 - ab)) < 5 * (1 - ab) * np.sqrt(2 / 20000))


def test_ddim_step_inverts_q_sample_with_true_x0():
    """With the exact x0 and eta = 0 the DDIM step maps x(lam) to x(lam') along the same noise, exactly."""
    sch = DiffusionSchedule(100)
    g = torch.Generator().manual_seed(1)
    x0 = torch.randn(4, 6, 3, generator=g, dtype=torch.float64)
    eps = torch.randn(4, 6, 3, generator=g, dtype=torch.float64)
    lv = torch.randint(1, 100, (4, 6), generator=g)
    nxt = lv - torch.randint(1, 2, (4, 6), generator=g) * (lv % 7 + 1).clamp(max=lv)
    x = q_sample(sch, x0, lv, eps)
    y = ddim_step(sch, x, x0, lv, nxt - 1)
    torch.testing.assert_close(y, q_sample(sch, x0, nxt - 1, eps))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 31 - 1))
def test_ddim_step_copies_tokens_whose_level_stays(seed):
    sch = DiffusionSchedule(20)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(3, 5, 2, generator=g)
    x0 = torch.randn(3, 5, 2, generator=g)
    lv = torch.randint(-1, 20, (3, 5), generator=g)
    nxt = torch.minimum(torch.randint(-1, 20, (3, 5), generator=g), lv)  # never towards more noise (refused)
    y = ddim_step(sch, x, x0, lv, nxt)
    keep = (nxt == lv) | (lv == -1)
    assert torch.equal(y[keep], x[keep])
    assert torch.all(torch.isfinite(y))


def test_ddim_step_eta_zero_is_deterministic_and_eta_one_is_not():
    sch = DiffusionSchedule(50)
    x, x0 = torch.randn(2, 4, 3), torch.randn(2, 4, 3)
    lv, nxt = torch.full((2, 4), 30), torch.full((2, 4), 20)
    a = ddim_step(sch, x, x0, lv, nxt, generator=torch.Generator().manual_seed(0))
    b = ddim_step(sch, x, x0, lv, nxt, generator=torch.Generator().manual_seed(1))
    assert torch.equal(a, b)
    c = ddim_step(sch, x, x0, lv, nxt, eta=1.0, generator=torch.Generator().manual_seed(0))
    d = ddim_step(sch, x, x0, lv, nxt, eta=1.0, generator=torch.Generator().manual_seed(1))
    assert not torch.equal(c, d)


def test_sample_noise_levels_modes_and_range():
    g = torch.Generator().manual_seed(0)
    ind = sample_noise_levels((5000, 3), 10, generator=g)
    assert ind.min() == 0 and ind.max() == 9
    # independent groups: the correlation of two groups' levels is ~0 (5 SE = 5/sqrt(5000))
    assert abs(np.corrcoef(ind[:, 0].numpy(), ind[:, 1].numpy())[0, 1]) < 5 / np.sqrt(5000)
    syn = sample_noise_levels((100, 3), 10, mode="synchronous", low=2, high=4, generator=g)
    assert torch.equal(syn, syn[:, :1].expand(100, 3)) and syn.min() >= 2 and syn.max() <= 4


def test_ddim_levels():
    assert ddim_levels(500).tolist()[:3] == [499, 498, 497] and ddim_levels(500)[-1] == -1
    assert len(ddim_levels(500)) == 500
    lv = ddim_levels(100, 20)
    assert len(lv) == 21 and np.all(np.diff(lv) < 0)


@pytest.mark.bad_input("nn.DiffusionSchedule")
def test_bad_schedule():
    with pytest.raises(InputError, match="K"):
        DiffusionSchedule(1)
    with pytest.raises(InputError, match="kind"):
        DiffusionSchedule(10, kind="sigmoid")
    with pytest.raises(InputError, match="levels"):
        DiffusionSchedule(10).alpha_bar([10])
    with pytest.raises(InputError, match="levels"):
        DiffusionSchedule(10).alpha_bar([0.5])


@pytest.mark.bad_input("nn.q_sample")
def test_bad_q_sample():
    sch = DiffusionSchedule(10)
    with pytest.raises(InputError, match="schedule"):
        q_sample(10, torch.zeros(2, 3), torch.zeros(2, dtype=torch.long))
    with pytest.raises(InputError, match="x0"):
        q_sample(sch, np.zeros((2, 3)), torch.zeros(2, dtype=torch.long))
    with pytest.raises(InputError, match="levels"):
        q_sample(sch, torch.zeros(2, 3), torch.zeros(3, dtype=torch.long))
    with pytest.raises(InputError, match="levels"):
        q_sample(sch, torch.zeros(2, 3), torch.full((2,), 10))
    with pytest.raises(InputError, match="noise"):
        q_sample(sch, torch.zeros(2, 3), torch.zeros(2, dtype=torch.long), torch.zeros(2, 4))


@pytest.mark.bad_input("nn.ddim_step")
def test_bad_ddim_step():
    sch = DiffusionSchedule(10)
    x = torch.zeros(2, 3)
    lv = torch.ones(2, dtype=torch.long)
    with pytest.raises(InputError, match="x0_hat"):
        ddim_step(sch, x, torch.zeros(2, 4), lv, lv - 1)
    with pytest.raises(InputError, match="eta"):
        ddim_step(sch, x, x, lv, lv - 1, eta=-1.0)
    with pytest.raises(InputError, match="level"):
        ddim_step(sch, x, x, torch.full((2,), 12), lv)
    with pytest.raises(InputError, match="next_level"):  # a step towards more noise
        ddim_step(sch, x, x, lv, lv + 1)
    with pytest.raises(InputError, match="x0_hat"):
        ddim_step(sch, x, torch.full((2, 3), float("nan")), lv, lv - 1)


@pytest.mark.bad_input("nn.sample_noise_levels")
def test_bad_sample_noise_levels():
    with pytest.raises(InputError, match="shape"):
        sample_noise_levels((3,), 10)
    with pytest.raises(InputError, match="mode"):
        sample_noise_levels((3, 2), 10, mode="random")
    with pytest.raises(InputError, match="high"):
        sample_noise_levels((3, 2), 10, low=5, high=12)


@pytest.mark.bad_input("nn.ddim_levels")
def test_bad_ddim_levels():
    with pytest.raises(InputError, match="steps"):
        ddim_levels(10, 11)
    with pytest.raises(InputError, match="K"):
        ddim_levels(1)
