"""Benchmark of the language-model layer (iclr26sci.nn.load_lm / LanguageModel) on SmolLM2-135M-Instruct.

1. Load time: the first load (GGUF dequantisation + safetensors conversion, into a fresh temporary cache)
   and the cached load.
2. Sampling throughput (new tokens per second) of ``LanguageModel.generate`` against ``transformers``'
   own ``model.generate(do_sample=True, num_return_sequences=n)`` on the same model, prompts, n,
   temperature and max_new_tokens (both stop rows at EOS; tokens counted up to and including EOS).
3. Teacher-forced log-prob throughput (scored tokens per second) of ``LanguageModel.sequence_logprob``
   against a plain forward (right-padded batch, full-vocabulary log-softmax, gather).

Ratios are ours / reference (> 1: ours faster). All timings are best of ``--repeat`` runs in one process.

Run: ``python benchmarks/bench_nn_lm.py [--quick] [--threads 2] [--skip-first-load]``.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from _common import print_table, timed  # noqa: E402
from iclr26sci.nn import load_lm  # noqa: E402

PROMPTS = ["Question: what is 12 + 7?\nAnswer:", "The capital of France is", "def add(a, b):\n",
           "Once upon a time", "List three colours:", "Translate 'cat' to French:", "2, 4, 6, 8,",
           "The weather today"]


def interleaved(fa, fb, repeat):
    """Best wall time of ``fa()`` and of ``fb()``, run alternately (so a change in machine load hits both)."""
    ta = tb = float("inf")
    ra = rb = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        ra = fa()
        ta = min(ta, time.perf_counter() - t0)
        t0 = time.perf_counter()
        rb = fb()
        tb = min(tb, time.perf_counter() - t0)
    return ta, ra, tb, rb


def hf_generate(lm, prompts, n, max_new_tokens, temperature):
    """transformers' generate on the same left-padded batch; returns the number of new tokens."""
    tok = lm.tokenizer
    ids = [lm.encode(p) for p in prompts]
    L = max(map(len, ids))
    pad = tok.pad_token_id
    x = torch.tensor([[pad] * (L - len(s)) + s for s in ids])
    m = torch.tensor([[0] * (L - len(s)) + [1] * len(s) for s in ids])
    with torch.no_grad():
        if temperature > 0:
            kw = dict(do_sample=True, temperature=temperature, top_p=1.0, top_k=0, num_return_sequences=n)
        else:  # greedy generate refuses num_return_sequences: expand the rows as it would do internally
            x, m = x.repeat_interleave(n, 0), m.repeat_interleave(n, 0)
            kw = dict(do_sample=False)
        out = lm.model.generate(input_ids=x, attention_mask=m, max_new_tokens=max_new_tokens, pad_token_id=pad,
                                eos_token_id=list(lm.eos_token_ids), **kw)
    new = out[:, L:]
    eos = torch.tensor(lm.eos_token_ids)
    # tokens up to and including the first EOS
    is_eos = torch.isin(new, eos)
    after = (is_eos.cumsum(1) - is_eos.long()) > 0
    return int((~after).sum())


def plain_logprob(lm, prompts, completions):
    """Reference scorer: right-padded prompt+completion, full forward, log-softmax over all positions."""
    p_ids = [lm.encode(p) for p in prompts]
    c_ids = [lm.encode(c, prompt=False) for c in completions]
    seqs = [p + c for p, c in zip(p_ids, c_ids)]
    L = max(map(len, seqs))
    pad = lm.tokenizer.pad_token_id
    x = torch.tensor([s + [pad] * (L - len(s)) for s in seqs])
    m = torch.tensor([[1] * len(s) + [0] * (L - len(s)) for s in seqs])
    with torch.no_grad():
        lp = torch.log_softmax(lm.model(input_ids=x, attention_mask=m).logits.float(), -1)
    tot = []
    for i, (p, c) in enumerate(zip(p_ids, c_ids)):
        pos = torch.arange(len(p) - 1, len(p) + len(c) - 1)
        tot.append(lp[i, pos, torch.tensor(c, dtype=torch.long)].sum())
    return torch.stack(tot)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller batches (a smoke run)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (on a shared, loaded machine 1 avoids OpenMP oversubscription)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-first-load", action="store_true", help="do not time the GGUF conversion")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    rows = []
    if not args.skip_first_load:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            load_lm("smollm2-135m", cache_dir=tmp)
            first = time.perf_counter() - t0
        rows.append({"what": "load_lm first (GGUF -> safetensors, fresh cache)", "seconds": first})
    load_lm("smollm2-135m")  # make sure the user cache holds it
    t_cached, lm = timed(load_lm, "smollm2-135m", repeat=3)
    rows.append({"what": "load_lm cached (safetensors)", "seconds": t_cached})
    print_table("SmolLM2-135M load time", rows)

    n_prompts, n, T = (4, 4, 16) if args.quick else (8, 8, 32)
    prompts = PROMPTS[:n_prompts]
    gen_rows = []
    for temperature in (0.0, 1.0):   # greedy: identical tokens in both, so equal work; sampling: T = 1
        t_ours, g, t_hf, tok_hf = interleaved(
            lambda: lm.generate(prompts, n=n, max_new_tokens=T, temperature=temperature, rng=0, progress=False),
            lambda: hf_generate(lm, prompts, n, T, temperature), args.repeat)
        tok_ours = int(g.mask.sum())
        gen_rows.append({"batch": f"{n_prompts} prompts x {n}", "max_new_tokens": T, "T": temperature,
                         "ours tok": tok_ours, "ours s": t_ours, "ours tok/s": tok_ours / t_ours,
                         "HF generate tok": tok_hf, "HF s": t_hf, "HF tok/s": tok_hf / t_hf,
                         "ratio (ours/HF tok/s)": (tok_ours / t_ours) / (tok_hf / t_hf)})
    print_table("Sampling throughput (new tokens / s)", gen_rows)

    # teacher forcing: score sampled completions
    comps = list(g.texts)
    sprompts = [prompts[i] for i in g.prompt_index]
    t_ours, lp, t_ref, ref = interleaved(lambda: lm.sequence_logprob(sprompts, comps),
                                         lambda: plain_logprob(lm, sprompts, comps), args.repeat)
    ntok = int(lp.n_tokens.sum())
    agree = float((lp.total - ref).abs().max())
    print_table("Teacher-forced log-prob throughput (scored tokens / s)", [{
        "rows": len(comps), "scored tokens": ntok, "ours s": t_ours, "ours tok/s": ntok / t_ours,
        "plain forward s": t_ref, "plain tok/s": ntok / t_ref, "ratio (ours/plain)": t_ref / t_ours,
        "max |total diff|": agree}])
    print(f"\nthreads={args.threads}; load average {os.getloadavg()[0]:.1f} (times on a loaded machine are inflated; "
          "the ratios are measured in one process)")


if __name__ == "__main__":
    main()
