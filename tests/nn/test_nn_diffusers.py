"""The diffusers bridge: Flow-GRPO's SDE step on a FlowMatchEulerDiscreteScheduler, on a tiny random UNet."""
import math

import pytest
import torch

from iclr26sci.core import InputError

diffusers = pytest.importorskip("diffusers")
from diffusers import FlowMatchEulerDiscreteScheduler, UNet2DModel  # noqa: E402

from iclr26sci.nn import DiffusersFlowSDE, flow_sde  # noqa: E402


@pytest.fixture(scope="module")
def unet():
    torch.manual_seed(0)
    return UNet2DModel(sample_size=8, in_channels=1, out_channels=1, block_out_channels=(8, 16), layers_per_block=1,
                       down_block_types=("DownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "UpBlock2D"),
                       norm_num_groups=4).eval()


class _AsVelocity(torch.nn.Module):
    """The nn protocol view of a diffusers model: v(x, t) = -model(x, timestep = 1000 (1 - t))."""

    event_shape, n_classes, cond_dim = (1, 8, 8), None, None

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, t, cond=None):
        return -self.model(x, (1 - t) * 1000).sample


def _sched(steps=4, shift=3.0):
    s = FlowMatchEulerDiscreteScheduler(shift=shift)
    s.set_timesteps(steps)
    return s


def test_bridge_matches_flow_sde_and_scheduler_on_a_tiny_unet(unet):
    sch = _sched(4)
    bridge, ode = DiffusersFlowSDE(sch, 0.7), DiffusersFlowSDE(sch, 0.0)
    sde = flow_sde(_AsVelocity(unet), noise_level=0.7)
    sig = sch.sigmas
    x = torch.randn(2, 1, 8, 8, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        for i, ts in enumerate(sch.timesteps):
            out = unet(x, ts).sample
            a = bridge.step(out, ts, x, generator=i)
            b = sde.step(x, float(1 - sig[i]), float(sig[i] - sig[i + 1]), rng=i)
            torch.testing.assert_close(a.mean, b.mean, atol=1e-6, rtol=1e-6)
            torch.testing.assert_close(a.std.reshape(-1), b.std.reshape(-1), atol=1e-7, rtol=1e-6)
            torch.testing.assert_close(a.sample, b.sample, atol=1e-6, rtol=1e-6)
            torch.testing.assert_close(a.log_prob(a.sample), b.log_prob(a.sample), atol=1e-5, rtol=1e-5)
            # noise_level 0 is the scheduler's own Euler step
            torch.testing.assert_close(ode.step(out, ts, x, generator=0).mean, sch.step(out, ts, x).prev_sample,
                                       atol=1e-6, rtol=1e-6)
            # Flow-GRPO's std in sigma time, with sigma = 1 replaced by sigmas[1] in the denominator
            s_i = float(sig[i])
            den = 1 - (float(sig[1]) if s_i == 1.0 else s_i)
            expect = 0.7 * math.sqrt(s_i / den) * math.sqrt(s_i - float(sig[i + 1]))
            assert abs(float(a.std.reshape(-1)[0]) - expect) < 1e-6
            x = a.sample


def test_bridge_per_row_timesteps_and_stored_sample(unet):
    sch = _sched(6, shift=1.0)
    bridge = DiffusersFlowSDE(sch, 0.9)
    x = torch.randn(3, 1, 8, 8)
    ts = sch.timesteps[torch.tensor([0, 2, 4])]
    with torch.no_grad():
        out = unet(x, ts).sample
    s1 = bridge.step(out, ts, x, generator=0)
    s2 = bridge.step(out, ts, x, prev_sample=s1.sample)
    torch.testing.assert_close(s1.log_prob(s1.sample), s2.log_prob(s2.sample))
    assert torch.allclose(s1.t.double(), 1 - sch.sigmas[torch.tensor([0, 2, 4])].double(), atol=1e-6)
    assert "DiffusersFlowSDE" in repr(bridge)


@pytest.mark.bad_input("nn.DiffusersFlowSDE")
def test_bridge_bad_input():
    sch = _sched(4)
    with pytest.raises(InputError, match="scheduler"):
        DiffusersFlowSDE("scheduler")
    with pytest.raises(InputError, match="noise_level"):
        DiffusersFlowSDE(sch, noise_level=-1.0)
    br = DiffusersFlowSDE(sch)
    x = torch.zeros(2, 1, 4, 4)
    with pytest.raises(InputError, match="timestep"):
        br.step(torch.zeros_like(x), 123.456, x)
    with pytest.raises(InputError, match="model_output"):
        br.step(torch.zeros(2, 1, 4, 3), sch.timesteps[0], x)
    with pytest.raises(InputError, match="sample"):
        br.step(torch.zeros_like(x), sch.timesteps[0], torch.full_like(x, float("nan")))
    with pytest.raises(InputError, match="sample"):
        br.step(torch.zeros(2, 16, dtype=torch.long), sch.timesteps[0], torch.zeros(2, 16, dtype=torch.long))
    with pytest.raises(InputError, match="prev_sample"):
        br.step(torch.zeros_like(x), sch.timesteps[0], x, prev_sample=torch.zeros(1, 1, 4, 4))
    with pytest.raises(InputError, match="timestep"):
        br.step(torch.zeros_like(x), torch.stack([sch.timesteps[0]] * 3), x)
