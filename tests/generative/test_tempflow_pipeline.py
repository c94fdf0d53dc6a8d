"""TempFlow-GRPO on a real diffusers SD3 pipeline (tiny, random, built from configs): CFG, LoRA, EMA, VAE and text
encoders end to end, and bad input of the pipeline path."""
from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("diffusers")
pytest.importorskip("peft")
pytest.importorskip("transformers")

from iclr26sci.core import InputError  # noqa: E402
from iclr26sci.generative import (DiffusersPipelineModel, FlowGRPOTrainer, grpo_loss,  # noqa: E402
                                  tiny_sd3_pipeline)

PROMPTS = ["a red square", "a blue circle"]


def brightness(images, prompts):
    """Mean brightness of the decoded images (no gradient needed)."""
    assert images.ndim == 4 and images.shape[1] == 3 and len(prompts) == images.shape[0]
    assert all(isinstance(p, str) for p in prompts)
    return images.mean(dim=(1, 2, 3))


def _base_name(n):
    return n.replace(".base_layer", "")


def _surrogate(tr, batch):
    """Flow-GRPO's clipped surrogate mean(w min(rho A, clip(rho) A)) of stored transitions at the current params."""
    X, Y, LP, K, C, A, W = batch
    with torch.no_grad():
        st = tr.policy_.step(X, K, C, x_next=Y)
        loss, s = grpo_loss(st, None, Y, LP, A, W, clip=tr.clip, kl_beta=0.0)
    return float(-loss.mean()), s["ratio"]


def test_tempflow_drives_tiny_sd3_pipeline_with_cfg_lora_ema():
    pipe = tiny_sd3_pipeline(rng=0)
    base = {n: p.detach().clone() for n, p in pipe.transformer.named_parameters()}
    vae0 = [p.detach().clone() for p in pipe.vae.parameters()]
    tr = FlowGRPOTrainer.from_pipeline(pipe, brightness, lora_rank=4, guidance_scale=4.5, ema=0.9, ema_every=1,
                                       max_sequence_length=8, steps=4, branches=3, seeds_per_prompt=2, lr=1e-3,
                                       clip=0.2, kl_beta=0.004, eval_n=2, rng=0, progress=False)
    captured = []
    orig = tr._update

    def spy(ro, A_t, mask, opt, params):       # keep the first update's transitions to re-score them after it
        if not captured:
            nS, N = A_t.shape
            flat = lambda a: a.reshape((nS * N,) + tuple(a.shape[2:]))
            keep = np.nonzero(np.ascontiguousarray(mask).reshape(-1))[0]
            X, Y, LP, K = flat(ro["x"]), flat(ro["y"]), flat(ro["lp"]), flat(ro["k"])
            C = ro["cond"].repeat(nS)
            A = torch.as_tensor(np.ascontiguousarray(A_t).reshape(-1), dtype=LP.dtype)
            W = torch.as_tensor(tr.weights_, dtype=LP.dtype)[K]
            captured.append(tuple(v[keep] for v in (X, Y, LP, K, C, A, W)))
        return orig(ro, A_t, mask, opt, params)

    tr._update = spy
    tr.fit(PROMPTS, n_updates=2)
    h = tr.history_
    # rewards are finite, calls = prompts x trunks x branches x (T - 1) branching steps per update
    assert np.all(np.isfinite(h["reward"])) and np.all(np.isfinite(h["eval_reward"]))
    assert h["reward_calls"].tolist() == [2 * 2 * 3 * 3, 2 * 2 * 3 * 3 * 2]
    # on-policy at the first optimiser step of each update: the stored log-probs of the sampling pass (CFG 4.5)
    # equal the training pass's, so the ratio is 1
    assert np.all(h["ratio_dev_first"] < 1e-5), h["ratio_dev_first"]
    # only LoRA parameters changed; the base weights and the VAE are untouched; no copy of the transformer
    now = dict(pipe.transformer.named_parameters())
    lora = {n: p for n, p in now.items() if ".lora_" in n}
    assert lora and all(p.requires_grad for p in lora.values())
    assert all(not p.requires_grad for n, p in now.items() if ".lora_" not in n)
    for n, p in now.items():
        if ".lora_" not in n:
            assert torch.equal(base[_base_name(n)], p), n
    assert any(float(p.detach().abs().max()) > 0 for n, p in lora.items() if "lora_B" in n)     # B started at 0
    assert all(torch.equal(a, b) for a, b in zip(vae0, pipe.vae.parameters()))
    assert tr.policy_.model is pipe.transformer
    # EMA of the LoRA parameters: differs from the online values, is swapped in and restored
    online = [p.detach().clone() for p in tr.ema_.params]
    assert len(tr.ema_.params) == len(lora)
    assert any(not torch.equal(s, p) for s, p in zip(tr.ema_.shadow, online))
    with tr.ema_weights():
        assert all(torch.equal(s, p) for s, p in zip(tr.ema_.shadow, tr.ema_.params))
    assert all(torch.equal(a, b) for a, b in zip(online, tr.ema_.params))
    # the reference (adapters disabled) is the base transformer: its policy mean differs from the tuned one
    x = torch.randn(2, 4, 8, 8, generator=torch.Generator().manual_seed(1))
    k = torch.zeros(2, dtype=torch.long)
    c = tr.policy_.check_cond(np.array(PROMPTS), 2)
    with torch.no_grad():
        a, r = tr.policy_.step(x, k, c), tr.policy_.step(x, k, c, ref=True)
    assert not torch.allclose(a.mean, r.mean)
    # the first update increased its own clipped surrogate on the transitions it was computed from
    batch = captured[0]
    j0 = float((batch[6] * batch[5]).mean())          # ratio 1 before the step
    # re-run the first update alone (from_pipeline on the same pipeline re-initialises the adapter, seeded) and
    # score the first update's transitions with its parameters
    tr2 = FlowGRPOTrainer.from_pipeline(pipe, brightness, lora_rank=4, guidance_scale=4.5, ema=None,
                                        max_sequence_length=8, steps=4, branches=3, seeds_per_prompt=2, lr=1e-3,
                                        clip=0.2, kl_beta=0.004, rng=0, progress=False)
    tr2.fit(PROMPTS, n_updates=1)
    assert tr2.history_["reward"][0] == tr.history_["reward"][0]         # the same first update (deterministic)
    j1, ratio = _surrogate(tr2, batch)
    assert j1 > j0, (j0, j1)
    assert float((ratio - 1).abs().max()) > 0
    # decoded samples of the tuned policy
    s = tr2.sample(PROMPTS, n=1)
    img = tr2.policy_.fmodel.decode(s.x)
    assert img.shape == (2, 3, 16, 16) and float(img.min()) >= 0 and float(img.max()) <= 1


def test_policy_ode_reproduces_the_pipelines_own_cfg_sampler():
    """With the adapter at its init (B = 0) the policy's deterministic steps, from the same initial latents, give
    the pipeline's own output latents (its encode_prompt, CFG 4.5, scheduler Euler steps), and the SDE mean is the
    bridge step of the CFG-combined prediction."""
    pipe = tiny_sd3_pipeline(rng=1)
    tr = FlowGRPOTrainer.from_pipeline(pipe, brightness, lora_rank=2, guidance_scale=4.5, max_sequence_length=8,
                                       steps=4, branches=2, seeds_per_prompt=1, rng=0, progress=False)
    R = tr.process_rewards([PROMPTS[0]], branches=2, steps_to_branch=[1], rng=0)
    assert R.shape == (1, 1, 1, 2) and np.all(np.isfinite(R))
    pol = tr.policy_
    x0 = torch.randn(1, 4, 8, 8, generator=torch.Generator().manual_seed(3))
    ref = pipe(PROMPTS[0], num_inference_steps=4, guidance_scale=4.5, latents=x0.clone(), max_sequence_length=8,
               output_type="latent").images
    c = pol.check_cond(np.array(PROMPTS[:1]), 1)
    x = x0.clone()
    for k in range(4):
        x = pol.ode(x, torch.full((1,), k), c)
    torch.testing.assert_close(x, ref, atol=1e-5, rtol=1e-4)
    # the SDE step's mean uses the guided prediction, computed here from the pipeline's own embeddings
    pe, npe, pp, npp = pipe.encode_prompt(PROMPTS[0], None, None, do_classifier_free_guidance=True,
                                          negative_prompt="", max_sequence_length=8)
    ts = pol.scheduler.timesteps[:1]
    with torch.no_grad():
        un = pipe.transformer(hidden_states=x0, timestep=ts, encoder_hidden_states=npe, pooled_projections=npp,
                              return_dict=False)[0]
        co = pipe.transformer(hidden_states=x0, timestep=ts, encoder_hidden_states=pe, pooled_projections=pp,
                              return_dict=False)[0]
        st = pol.step(x0, torch.zeros(1, dtype=torch.long), c)
    want = pol.bridge.step(un + 4.5 * (co - un), ts, x0, prev_sample=st.sample)
    torch.testing.assert_close(st.mean, want.mean, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(st.log_prob(st.sample), want.log_prob(st.sample), atol=1e-5, rtol=1e-5)


@pytest.mark.bad_input("generative.DiffusersPipelineModel", "generative.tiny_sd3_pipeline",
                       "generative.FlowGRPOTrainer")
def test_pipeline_path_bad_input_before_any_work():
    pipe = tiny_sd3_pipeline(rng=0)
    ok = dict(max_sequence_length=8, steps=3, branches=2, seeds_per_prompt=1, progress=False)
    with pytest.raises(InputError, match="pipeline"):
        DiffusersPipelineModel(pipe.transformer)
    with pytest.raises(InputError, match="pipeline"):
        FlowGRPOTrainer.from_pipeline("sd3", brightness, **ok)
    with pytest.raises(InputError, match="guidance_scale"):
        FlowGRPOTrainer.from_pipeline(pipe, brightness, guidance_scale=0.5, **ok)
    for r in (0, -2, 1.5, True):
        with pytest.raises(InputError, match="lora_rank"):
            FlowGRPOTrainer.from_pipeline(pipe, brightness, lora_rank=r, **ok)
    with pytest.raises(InputError, match="lora_alpha"):
        DiffusersPipelineModel(pipe, lora_alpha=-1.0)
    with pytest.raises(InputError, match="lora_targets"):
        DiffusersPipelineModel(pipe, lora_targets=["no_such_layer"])
    with pytest.raises(InputError, match="max_sequence_length"):
        DiffusersPipelineModel(pipe, max_sequence_length=0)
    with pytest.raises(InputError, match="ema"):
        FlowGRPOTrainer.from_pipeline(pipe, brightness, ema=1.5, **ok).fit(PROMPTS, n_updates=1)
    with pytest.raises(InputError, match="guidance"):
        FlowGRPOTrainer.from_pipeline(pipe, brightness, guidance=2.0, **ok)
    with pytest.raises(InputError, match="rng"):
        tiny_sd3_pipeline(rng=-1)
    with pytest.raises(InputError, match="text_len"):
        tiny_sd3_pipeline(text_len=2)
    # a guidance below 1 given to the trainer directly, prompts that are not strings, a reward of the wrong
    # shape: all refused before the adapter is added to the user's transformer
    m = DiffusersPipelineModel(pipe, lora_rank=2, max_sequence_length=8)
    with pytest.raises(InputError, match="guidance"):
        FlowGRPOTrainer(m, brightness, guidance=0.5, **{k: v for k, v in ok.items() if k != "max_sequence_length"}
                        ).fit(PROMPTS, n_updates=1)
    tr = FlowGRPOTrainer.from_pipeline(pipe, brightness, **ok)
    with pytest.raises(InputError, match="prompts"):
        tr.fit([0, 1], n_updates=1)
    with pytest.raises(InputError, match="prompts"):
        tr.fit(None, n_updates=1)
    bad = FlowGRPOTrainer.from_pipeline(pipe, lambda im, p: im.mean(dim=(2, 3)), **ok)
    with pytest.raises(InputError, match="reward_fn"):
        bad.fit(PROMPTS, n_updates=1)
    assert "tempflow" not in (getattr(pipe.transformer, "peft_config", None) or {})
    assert all(p.requires_grad for p in pipe.transformer.parameters())
