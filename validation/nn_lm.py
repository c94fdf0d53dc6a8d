"""Validation of the language-model layer (iclr26sci.nn: load_lm, tiny_lm, LanguageModel), method key "nn".

Four checks: the sampler's recorded log-probabilities equal teacher forcing (SmolLM2-135M and the tiny model),
sampling frequencies match exact sequence probabilities (G-test with a simulated false-alarm rate, and the
broken samplers it must reject), LoRA with zero-initialised B is the identity, and one LoRA gradient step
lowers the loss by its first-order prediction. Each check's ``details`` names the defect it catches; the
broken variants are run inside the checks, so every run shows their statistics.
"""
from __future__ import annotations

import functools
from unittest import mock

import numpy as np
from scipy import stats

from .registry import CheckResult, Criterion, check

LM_PAPER = ("Holtzman et al. (2020) 'The Curious Case of Neural Text Degeneration' (nucleus sampling), ICLR; "
            "Hu et al. (2022) 'LoRA: Low-Rank Adaptation of Large Language Models', ICLR")
PROMPTS = ["Question: what is 12 + 7?\nAnswer:", "The capital of France is", "def add(a, b):\n",
           "Once upon a time"]


@functools.lru_cache(maxsize=1)
def _smollm2():
    from iclr26sci.nn import load_lm

    return load_lm("smollm2-135m")


def _seed(rng) -> int:
    return int(rng.integers(0, 2**31 - 1))


def _maskless_scores(lm, gen):
    """A broken scorer: left-pads prompt + completion but passes no attention mask (padding is attended)."""
    import torch

    p_ids, c_ids = gen.sample_prompt_ids, gen.token_ids
    seqs = [p + c for p, c in zip(p_ids, c_ids)]
    L = max(map(len, seqs))
    pad = lm.tokenizer.pad_token_id
    ids = torch.tensor([[pad] * (L - len(s)) + s for s in seqs])
    with torch.no_grad():
        z = lm.model(input_ids=ids).logits.double()
    lp = torch.log_softmax(z, -1)
    err = 0.0
    for i, c in enumerate(c_ids):
        k = len(c)
        got = lp[i, L - k - 1:L - 1].gather(1, torch.tensor(c)[:, None]).squeeze(1)
        err = max(err, float((got - gen.model_logprobs[i, :k].double()).abs().max()))
    return err


@check(method="nn", budget=75, paper=LM_PAPER,
       guarantee="The log-probabilities the KV-cache sampler records for the tokens it drew equal those of a "
                 "separate teacher-forced forward pass (SmolLM2-135M-Instruct in float32 and the tiny Llama in "
                 "float64), and its sampling log-probabilities equal the temperature/top-p rule applied to the "
                 "teacher-forced logits")
def lm_sampler_logprobs_equal_teacher_forcing(profile, rng):
    import torch

    from iclr26sci.nn import tiny_lm
    from iclr26sci.nn._lm_sample import sampling_logprobs

    seed = _seed(rng)
    n, T = profile.pick((4, 24), (8, 64))
    lm = _smollm2()
    gen = lm.generate(PROMPTS, n=n, max_new_tokens=T, temperature=0.8, top_p=0.95, stop=["\n\n"], rng=seed)
    tf = lm.sequence_logprob(gen)
    err_big = float((tf.token_logprobs - gen.model_logprobs).abs().max())
    # tiny model in float64: both log-probabilities against a plain full forward, row by row (no padding)
    tiny = tiny_lm(rng=seed, dtype="float64", init_std=0.3)
    configs = [(1.0, 1.0), (0.7, 0.9), (1.5, 0.6)]
    err_tiny_model, err_tiny_samp, rows = 0.0, 0.0, []
    for temperature, top_p in configs:
        g = tiny.generate(["ab", "hello there", "x"], n=profile.pick(6, 20), max_new_tokens=profile.pick(12, 40),
                          temperature=temperature, top_p=top_p, stop=["."], rng=seed)
        e_m = float((tiny.sequence_logprob(g).token_logprobs - g.model_logprobs).abs().max())
        e_s = 0.0
        for i in range(len(g)):
            ids = list(g.sample_prompt_ids[i]) + g.token_ids[i]
            P, k = len(g.sample_prompt_ids[i]), len(g.token_ids[i])
            with torch.no_grad():
                z = tiny.model(input_ids=torch.tensor([ids])).logits[0, P - 1:-1]
            ref = sampling_logprobs(z, temperature, top_p).gather(1, torch.tensor(g.token_ids[i])[:, None]).squeeze(1)
            e_s = max(e_s, float((ref - g.sampling_logprobs[i, :k]).abs().max()))
        err_tiny_model, err_tiny_samp = max(err_tiny_model, e_m), max(err_tiny_samp, e_s)
        rows.append({"model": "tiny (float64)", "T": temperature, "top_p": top_p, "rows": len(g),
                     "max |TF - model lp|": e_m, "max |rule(TF) - sampling lp|": e_s})
    rows.insert(0, {"model": "SmolLM2-135M (float32)", "T": 0.8, "top_p": 0.95, "rows": len(gen),
                    "max |TF - model lp|": err_big, "max |rule(TF) - sampling lp|": float("nan")})
    broken = _maskless_scores(tiny, g)
    rows.append({"model": "BROKEN scorer: left padding without attention mask", "T": configs[-1][0],
                 "top_p": configs[-1][1], "rows": len(g), "max |TF - model lp|": broken,
                 "max |rule(TF) - sampling lp|": float("nan")})
    thr32, thr64 = 1e-3, 1e-9
    crit = [Criterion("SmolLM2 float32: max |teacher-forced - sampler| (nats)", err_big, thr32, "<="),
            Criterion("tiny float64: max |teacher-forced - sampler model lp|", err_tiny_model, thr64, "<="),
            Criterion("tiny float64: max |top-p/T rule on TF logits - sampler lp|", err_tiny_samp, thr64, "<="),
            Criterion("broken scorer (padding attended) is detected: its error", broken, thr32, ">")]
    return CheckResult(criteria=crit, table=rows,
                       details=f"SmolLM2: {len(PROMPTS)} prompts x {n} samples, <= {T} tokens, T=0.8, top-p 0.95, "
                               "stop '\\n\\n'; tiny Llama (float64): 3 prompts at three (T, top-p) settings. The "
                               "sampler (left-padded prefill, shared-prompt cache, one token per step) and the "
                               "scorer (one left-padded forward) compute the same quantities in a different order, "
                               "so only rounding separates them: measured ~1e-5 nats in float32 (30 layers), "
                               "~1e-14 in float64; the thresholds 1e-3 / 1e-9 leave 100x room and stay far below "
                               "the errors of real defects (>0.05 nats). Catches: padding that is attended (no attention "
                               "mask; run here as the broken scorer), an off-by-one logit/target alignment, "
                               "log-probs recorded after temperature/top-p as if they were the model's, a stale "
                               "KV cache after rows are dropped, stop-string truncation that desynchronises tokens "
                               "and log-probs.")


# --------------------------------------------------------------------------------------------- frequencies
def _np_rule(logits, temperature, top_p):
    """Independent numpy implementation of the sampling rule (softmax(z/T), nucleus incl. the crossing token)."""
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")
    before = np.cumsum(p[order]) - p[order]
    keep = np.zeros(p.size, bool)
    keep[order[before < top_p]] = True
    keep[order[0]] = True
    q = np.where(keep, p, 0.0)
    return q / q.sum()


def _exact_sequence_law(lm, prompt_ids, L, temperature, top_p, eos):
    """Exact probability of every completion of <= L tokens (ending at EOS or at length L), by enumeration."""
    import torch

    V = len(lm.tokenizer)
    law, frontier = {}, [((), 1.0)]
    for step in range(L):
        if not frontier:
            break
        batch = [list(prompt_ids) + list(s) for s, _ in frontier]
        with torch.no_grad():
            z = lm.model(input_ids=torch.tensor(batch)).logits[:, -1].double().numpy()
        nxt = []
        for (s, ps), zi in zip(frontier, z):
            q = _np_rule(zi, temperature, top_p)
            for v in range(V):
                if q[v] == 0.0:
                    continue
                seq = s + (v,)
                if v in eos or step == L - 1:
                    law[seq] = ps * q[v]
                else:
                    nxt.append((seq, ps * q[v]))
        frontier = nxt
    return law


def _g_statistic(counts, probs, N, min_expected=5.0):
    """G = 2 sum O log(O/E) over cells, cells with E < min_expected pooled into one; returns (G, df)."""
    E = probs * N
    small = E < min_expected
    O = np.concatenate([counts[~small], [counts[small].sum()]]) if small.any() else counts
    Ex = np.concatenate([E[~small], [E[small].sum()]]) if small.any() else E
    if small.any() and Ex[-1] < min_expected:  # the pool itself is small: merge it into the smallest big cell
        j = int(np.argmin(Ex[:-1]))
        O[j] += O[-1]
        Ex[j] += Ex[-1]
        O, Ex = O[:-1], Ex[:-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(O > 0, O * np.log(O / Ex), 0.0)
    return float(2 * terms.sum()), int(O.size - 1)


def _broken_twice(true_rule):
    """Temperature applied twice: the logits are divided by T before the (correct) rule divides again."""
    return lambda logits, temperature, top_p: true_rule(logits / temperature, temperature, top_p)


def _broken_top_p_exclusive(logits, temperature, top_p):
    """Off by one: keeps tokens while the cumulative mass INCLUDING them is <= p (drops the crossing token)."""
    import torch

    z = logits / temperature
    logp = torch.log_softmax(z, -1)
    s, order = torch.sort(logp, -1, descending=True)
    keep_sorted = torch.cumsum(s.exp(), -1) <= top_p
    keep_sorted[..., 0] = True
    keep = torch.zeros_like(keep_sorted).scatter_(-1, order, keep_sorted)
    return torch.log_softmax(z.masked_fill(~keep, float("-inf")), -1)


def _broken_top_p_extra(logits, temperature, top_p):
    """Off by one the other way: keeps one token more than the nucleus."""
    import torch

    z = logits / temperature
    logp = torch.log_softmax(z, -1)
    s, order = torch.sort(logp, -1, descending=True)
    before = torch.cumsum(s.exp(), -1) - s.exp()
    keep_sorted = before < top_p
    n_keep = keep_sorted.sum(-1, keepdim=True).clamp(max=s.shape[-1] - 1)
    keep_sorted.scatter_(-1, n_keep, True)
    keep = torch.zeros_like(keep_sorted).scatter_(-1, order, keep_sorted)
    return torch.log_softmax(z.masked_fill(~keep, float("-inf")), -1)


@check(method="nn", budget=40, paper=LM_PAPER,
       guarantee="On a tiny Llama with a 6-token vocabulary, the frequencies of the sampler's completions of up "
                 "to 3 tokens match their exact probabilities under softmax(z/T) with the nucleus (top-p) cut, "
                 "at three (T, top-p) settings (G-test, alpha = 0.001 each, false-alarm rate verified by "
                 "simulation), while samplers with the temperature applied twice or top-p off by one are rejected")
def lm_sampling_frequencies_match_exact(profile, rng):
    from iclr26sci.nn import _lm_sample, tiny_lm

    seed = _seed(rng)
    alpha = 1e-3
    N = profile.pick(20000, 100000)
    L = 3
    lm = tiny_lm(chars="ab", rng=seed, dtype="float64", init_std=0.1, hidden_size=32, n_layers=2)
    prompt = "ab"
    p_ids = lm.encode(prompt)
    eos = set(lm.eos_token_ids)
    configs = [(1.0, 1.0), (0.7, 0.9), (1.4, 0.75)]
    crit, rows = [], []
    sim_rate = None

    def g_test(law, gen):
        keys = list(law)
        index = {k: i for i, k in enumerate(keys)}
        probs = np.array([law[k] for k in keys])
        counts = np.zeros(len(keys))
        outside = 0
        for ids in gen.token_ids:
            j = index.get(tuple(ids))
            if j is None:
                outside += 1
            else:
                counts[j] += 1
        if outside:  # a completion of probability 0 under the exact law: certain rejection
            return float("inf"), len(keys) - 1, probs, counts
        G, df = _g_statistic(counts, probs, N)
        return G, df, probs, counts

    for ci, (temperature, top_p) in enumerate(configs):
        law = _exact_sequence_law(lm, p_ids, L, temperature, top_p, eos)
        gen = lm.generate(prompt, n=N, max_new_tokens=L, temperature=temperature, top_p=top_p, rng=seed + ci,
                          progress=False)
        G, df, probs, _ = g_test(law, gen)
        thr = float(stats.chi2.ppf(1 - alpha, df))
        crit.append(Criterion(f"G-test (T={temperature}, top-p={top_p}) vs chi2 0.999 quantile", G, thr, "<="))
        rows.append({"sampler": "ours", "T": temperature, "top_p": top_p, "cells": len(law), "df": df, "G": G,
                     "chi2_0.999": thr, "p-value": float(stats.chi2.sf(G, df))})
        if ci == 1:
            # calibration: G of exact multinomial draws from the same law, same pooling
            R = profile.pick(4000, 20000)
            sims = np.random.default_rng(seed).multinomial(N, probs / probs.sum(), size=R)
            Gs = np.array([_g_statistic(s.astype(float), probs, N)[0] for s in sims])
            sim_rate = float(np.mean(Gs > thr))
            se = float(np.sqrt(alpha * (1 - alpha) / R))
            crit.append(Criterion(f"simulated false-alarm rate of the G-test ({R} null draws)", sim_rate,
                                  alpha + 3 * se, "<="))
            for label, fn in (("temperature applied twice", _broken_twice(_lm_sample.sampling_logprobs)),
                              ("top-p drops the crossing token", _broken_top_p_exclusive),
                              ("top-p keeps one token too many", _broken_top_p_extra)):
                with mock.patch.object(_lm_sample, "sampling_logprobs", fn):
                    bad = lm.generate(prompt, n=N, max_new_tokens=L, temperature=temperature, top_p=top_p,
                                      rng=seed + 10 + len(rows), progress=False)
                Gb, dfb, _, _ = g_test(law, bad)
                pb = float(stats.chi2.sf(Gb, dfb)) if np.isfinite(Gb) else 0.0
                strength = min(300.0, -np.log10(pb)) if pb > 0 else 300.0
                crit.append(Criterion(f"broken sampler rejected: {label} (-log10 p; 300 = p 0 or "
                                      f"a probability-0 sequence drawn)", strength, -np.log10(alpha), ">="))
                rows.append({"sampler": f"BROKEN: {label}", "T": temperature, "top_p": top_p, "cells": len(law),
                             "df": dfb, "G": Gb, "chi2_0.999": thr, "p-value": pb})
    return CheckResult(criteria=crit, table=rows,
                       details=f"Tiny Llama (2 layers, width 32, init std 0.1 so next-token laws are far from "
                               f"uniform; float64), vocabulary of 6 tokens, prompt 'ab'; {N} samples of <= {L} "
                               "tokens per setting. Exact law: every prefix enumerated, its next-token law from a "
                               "full (uncached) forward and an independent numpy implementation of softmax(z/T) and "
                               "the nucleus. G-test (cells with expected count < 5 pooled), threshold the chi-square "
                               f"(1 - {alpha}) quantile; its false-alarm rate is re-measured by simulating exact "
                               "multinomial counts (bound alpha + 3 binomial SE). Broken samplers are run through the "
                               "same generate() with the sampling rule swapped: temperature applied twice, top-p "
                               "dropping the crossing token, top-p keeping one token too many. Also catches a "
                               "biased inverse-CDF draw, a stale KV cache and wrong EOS handling (sequence law "
                               "changes).")


# --------------------------------------------------------------------------------------------- LoRA
def _lora_inputs(lm):
    import torch

    ids = [lm.encode(p) for p in PROMPTS]
    L = max(map(len, ids))
    pad = lm.tokenizer.pad_token_id
    x = torch.tensor([[pad] * (L - len(s)) + s for s in ids])
    m = torch.tensor([[0] * (L - len(s)) + [1] * len(s) for s in ids])
    return x, m


@check(method="nn", budget=20, paper=LM_PAPER,
       guarantee="with_lora on SmolLM2-135M with zero-initialised B leaves every logit unchanged, trains exactly "
                 "the 2 r (d_in + d_out) adapter weights of each targeted projection, and leaves the base model "
                 "untouched; a randomly initialised B (the broken variant) changes the logits")
def lm_lora_zero_b_is_identity(profile, rng):
    import torch

    lm = _smollm2()
    seed = _seed(rng)
    r = 8
    lora = lm.with_lora(r=r, alpha=16, target=("q_proj", "v_proj"), rng=seed)
    broken = lm.with_lora(r=r, alpha=16, target=("q_proj", "v_proj"), rng=seed, init_b_zero=False)
    x, m = _lora_inputs(lm)
    with torch.no_grad():
        z0 = lm.model(input_ids=x, attention_mask=m).logits
        diff = float((lora.model(input_ids=x, attention_mask=m).logits - z0).abs().max())
        diff_broken = float((broken.model(input_ids=x, attention_mask=m).logits - z0).abs().max())
    expected = sum(r * (mod.in_features + mod.out_features) for name, mod in lm.model.named_modules()
                   if isinstance(mod, torch.nn.Linear) and name.rsplit(".", 1)[-1] in ("q_proj", "v_proj"))
    trainable_ok = all("lora_" in n for n, p in lora.model.named_parameters() if p.requires_grad)
    base_lora = sum("lora" in n for n, _ in lm.model.named_parameters())
    del broken
    crit = [Criterion("max |logit(LoRA, B=0) - logit(base)|", diff, 1e-6, "<="),
            Criterion("trainable parameters - 2r(d_in+d_out) summed", abs(lora.n_trainable - expected), 0, "<="),
            Criterion("non-LoRA trainable tensors + LoRA tensors in base", (not trainable_ok) + base_lora, 0, "<="),
            Criterion("broken (random B): max logit change", diff_broken, 1e-6, ">")]
    return CheckResult(criteria=crit,
                       table=[{"variant": "B = 0 (peft default)", "max |dlogit|": diff, "trainable": lora.n_trainable,
                               "expected trainable": expected},
                              {"variant": "BROKEN: B random", "max |dlogit|": diff_broken, "trainable": lora.n_trainable,
                               "expected trainable": expected}],
                       details="LoRA adds (alpha/r) B A x to each targeted projection; with B = 0 that is an exact "
                               "zero, so the logits must agree to float rounding (1e-6 allows a kernel that reorders "
                               "the sum; measured exactly 0). Catches: a non-zero B initialisation, LoRA scaling "
                               "applied to the base weight, dropout active at evaluation, the base model modified in "
                               "place by peft (the wrapper deep-copies), base weights left trainable.")


@check(method="nn", budget=25, paper=LM_PAPER,
       guarantee="One SGD step on the LoRA parameters of SmolLM2-135M lowers the teacher-forced loss of its batch, "
                 "by its first-order prediction lr * |grad|^2 within a factor 2, and changes no base weight")
def lm_lora_step_lowers_loss(profile, rng):
    import torch

    lm = _smollm2()
    seed = _seed(rng)
    lora = lm.with_lora(r=8, alpha=16, rng=seed)
    gen = lm.generate(PROMPTS, n=2, max_new_tokens=16, temperature=1.0, rng=seed, progress=False)
    prompts, comps = gen.sample_prompt_ids, gen.token_ids
    params = lora.trainable_parameters()
    base = {n: p.detach().clone() for n, p in lora.model.named_parameters() if not p.requires_grad
            and ("q_proj" in n or "v_proj" in n)}

    def loss_of(grad):
        return -lora.sequence_logprob(prompts, comps, grad=grad, reduce="mean").value.mean()

    loss0 = loss_of(True)
    for p in params:
        p.grad = None
    loss0.backward()
    g2 = float(sum((p.grad.double() ** 2).sum() for p in params if p.grad is not None))
    lr = 0.01 * float(loss0.detach()) / max(g2, 1e-30)  # predicted decrease: 1% of the loss
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
        loss1 = float(loss_of(False))
        # broken variant: the same step with the sign flipped (gradient ascent) must raise the loss
        for p in params:
            if p.grad is not None:
                p += 2 * lr * p.grad
        loss_up = float(loss_of(False))
    drop = float(loss0.detach()) - loss1
    pred = lr * g2
    ratio = drop / pred if pred > 0 else float("nan")
    moved = max(float((p - base[n]).abs().max()) for n, p in lora.model.named_parameters() if n in base)
    crit = [Criterion("loss decrease after one step (nats/token)", drop, 0.0, ">"),
            Criterion("decrease / first-order prediction lr|g|^2", ratio, (0.5, 2.0), "in"),
            Criterion("max change of a base weight", moved, 0.0, "<="),
            Criterion("broken (ascent step): loss increase", loss_up - float(loss0.detach()), 0.0, ">")]
    return CheckResult(criteria=crit,
                       table=[{"loss before": float(loss0.detach()), "loss after": loss1, "lr": lr, "|g|^2": g2,
                               "predicted drop": pred, "actual drop": drop, "ratio": ratio,
                               "loss after ascent step": loss_up}],
                       details=f"Batch: {len(comps)} completions sampled from SmolLM2 itself for {len(PROMPTS)} "
                               "prompts; loss = mean over rows of the per-token negative log-likelihood (teacher "
                               "forced, grad=True). The step size is set so the first-order decrease lr|g|^2 is 1% of "
                               "the loss, where the Taylor remainder O(lr^2) is small: the measured decrease must be "
                               "positive and within a factor 2 of it. With B = 0 only B receives gradient (dL/dA = 0). "
                               "Catches: a scorer that detaches or does not reach the adapters (|g| = 0, no decrease), "
                               "a gradient of a different loss than the one scored (ratio far from 1), base weights "
                               "that train, a sign error (the ascent step is run as the broken variant).")
