"""TempFlow-GRPO side-by-side benchmark (spec tempflow-grpo.md A5) on the cached digits flow.

One table, mean (SE) over seeds: final evaluation reward, KL to the reference, diversity, wall time, reward
calls, for Flow-GRPO, DanceGRPO, MixGRPO, TempFlow-GRPO and its three ablations (-weighting, -seed group,
-branching), and three non-RL peers: reward-weighted flow matching (RWR), best-of-N at inference and direct
reward backprop through the last ODE step (DRaFT-1; the classifier probability is differentiable). Then the
learning-efficiency goal: the update at which TempFlow first reaches Flow-GRPO's final reward, per seed, and
reward against reward calls.

Same model (digits_flow), reward (the digits logistic regression's p(class | x)), prompts (8 digit classes),
optimiser (AdamW, lr 3e-4), T = 10 steps, beta = 0.004, clip = 0.2.

    python benchmarks/bench_tempflow.py [--seeds 5] [--updates 30] [--quick]
    python benchmarks/bench_tempflow.py --pipeline [--updates 5]

``--pipeline`` times the diffusers text-to-image path instead: TempFlow-GRPO and Flow-GRPO on the tiny random SD3
pipeline (``tiny_sd3_pipeline``; CFG 4.5, LoRA rank 4, EMA), seconds, transformer calls (NFE) and reward calls per
update. Cost only; the random pipeline has nothing to learn.
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def setup():
    from validation.tempflow import _digits

    fm, judge, class_reward = _digits()
    return fm, class_reward(judge, kind="prob")


def eval_model(model, ref, reward, prompts, n=16, steps=10, seed=999):
    """ODE samples on fixed noise: mean reward, diversity (mean pairwise distance within a prompt), and the
    mean per-step KL(pi_model || pi_ref) of the SDE policy along the model's SDE trajectories."""
    import torch

    from iclr26sci.generative import sd3_time_grid
    from iclr26sci.nn import flow_sde, ode_sample

    times = sd3_time_grid(steps, 3.0)
    c = np.repeat(prompts, n)
    x = ode_sample(model, n=len(c), cond=c, times=times, rng=seed).x
    r = reward(x, c).numpy()
    xs = x.reshape(len(prompts), n, -1)
    div = float(torch.cdist(xs, xs).sum() / (len(prompts) * n * (n - 1)))
    sp, sr = flow_sde(model, 0.7), flow_sde(ref, 0.7)
    g = torch.Generator().manual_seed(seed)
    xt = torch.randn(len(c), 64, generator=g)
    kls = []
    with torch.no_grad():
        for k in range(steps - 1):
            t, h = float(times[k]), float(times[k + 1] - times[k])
            a = sp.step(xt, t, h, cond=c, rng=g)
            b = sr.step(xt, t, h, cond=c, x_next=a.sample)
            kls.append(float(a.kl(b).mean()))
            xt = a.sample
    return float(r.mean()), float(np.mean(kls)), div


def run_grpo(fm, reward, prompts, seed, updates, **kw):
    from iclr26sci.generative import FlowGRPOTrainer

    base = dict(steps=10, lr=3e-4, clip=0.2, kl_beta=0.004, eval_n=8, progress=False, rng=seed)
    base.update(kw)
    t0 = time.perf_counter()
    tr = FlowGRPOTrainer(fm, reward, **base).fit(prompts, n_updates=updates)
    return tr.policy_.model, tr.history_, time.perf_counter() - t0


def run_rwr(fm, reward, prompts, seed, updates, G=24, tau=0.05, lr=3e-4):
    """Reward-weighted flow matching: each round, ODE samples of the current model, weights
    softmax(R / tau) within each prompt's group, one weighted flow-matching step."""
    import torch

    from iclr26sci.generative import sd3_time_grid
    from iclr26sci.nn import ode_sample

    model = copy.deepcopy(fm)
    opt = torch.optim.AdamW(model.velocity_net.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    times = sd3_time_grid(10, 3.0)
    calls = 0
    t0 = time.perf_counter()
    c = np.repeat(prompts, G)
    ct = torch.as_tensor(c)
    for u in range(updates):
        x1 = ode_sample(model, n=len(c), cond=c, times=times, rng=int(torch.randint(0, 2**31 - 1, (1,), generator=g))).x
        R = reward(x1, c).numpy().reshape(len(prompts), G)
        calls += R.size
        w = np.exp((R - R.max(1, keepdims=True)) / tau)
        w = torch.as_tensor((w / w.sum(1, keepdims=True)).reshape(-1) * len(prompts), dtype=torch.float32)
        x0 = torch.randn(x1.shape, generator=g)
        t = torch.rand(len(c), generator=g)
        xt = (1 - t[:, None]) * x0 + t[:, None] * x1
        v = model.velocity_net(xt, t, ct)
        loss = (w * ((v - (x1 - x0)) ** 2).mean(1)).sum() / len(prompts) / G
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model, calls, time.perf_counter() - t0


def run_draft(fm, reward, prompts, seed, updates, G=24, lr=3e-4, K=1):
    """DRaFT-K: backpropagate the differentiable reward through the last K ODE steps."""
    import torch

    from iclr26sci.generative import sd3_time_grid

    model = copy.deepcopy(fm)
    opt = torch.optim.AdamW(model.velocity_net.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    times = sd3_time_grid(10, 3.0)
    c = np.repeat(prompts, G)
    ct = torch.as_tensor(c)
    t0 = time.perf_counter()
    for u in range(updates):
        x = torch.randn(len(c), 64, generator=g)
        with torch.no_grad():
            for k in range(10 - K):
                x = x + float(times[k + 1] - times[k]) * model.velocity(x, float(times[k]), ct)
        for k in range(10 - K, 10):
            x = x + float(times[k + 1] - times[k]) * model.velocity(x, float(times[k]), ct)
        loss = -reward(x, c).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.velocity_net.parameters(), 1.0)
        opt.step()
    return model, updates * len(c), time.perf_counter() - t0


def best_of_n(fm, reward, prompts, N=8, n=16, seed=999):
    import torch

    from iclr26sci.generative import sd3_time_grid
    from iclr26sci.nn import ode_sample

    times = sd3_time_grid(10, 3.0)
    c = np.repeat(prompts, n * N)
    t0 = time.perf_counter()
    x = ode_sample(fm, n=len(c), cond=c, times=times, rng=seed + 1).x
    r = reward(x, c).numpy().reshape(len(prompts), n, N)
    best = r.max(2)
    xs = x.reshape(len(prompts), n, N, -1)[np.arange(len(prompts))[:, None], np.arange(n)[None], r.argmax(2)]
    div = float(torch.cdist(xs, xs).sum() / (len(prompts) * n * (n - 1)))
    return float(best.mean()), 0.0, div, time.perf_counter() - t0, len(c)


CONFIGS = [
    ("Flow-GRPO", dict(mode="flow_grpo")),
    ("DanceGRPO", dict(mode="dance_grpo")),
    ("MixGRPO", dict(mode="mix_grpo", window=3)),
    ("TempFlow-GRPO", dict(mode="tempflow")),
    ("TempFlow -weighting", dict(mode="tempflow", weighting="none")),
    ("TempFlow -seed group", dict(mode="tempflow", group_by="prompt")),
    ("TempFlow -branching (Flow-GRPO + omega)", dict(mode="flow_grpo", weighting="computed")),
]


def bench_pipeline(updates=5, seed=0):
    """Wall time per update of the pipeline path (tiny random SD3 pipeline, CFG 4.5, LoRA, EMA)."""
    from iclr26sci.generative import FlowGRPOTrainer, tiny_sd3_pipeline

    def brightness(images, prompts):
        return images.mean(dim=(1, 2, 3))

    print("| mode | s / update | NFE / update | reward calls / update |")
    print("|---|---|---|---|")
    for mode, kw in (("tempflow", dict(branches=3, seeds_per_prompt=2)), ("flow_grpo", dict(group_size=6))):
        tr = FlowGRPOTrainer.from_pipeline(tiny_sd3_pipeline(rng=seed), brightness, lora_rank=4, guidance_scale=4.5,
                                           ema=0.9, max_sequence_length=8, mode=mode, steps=4, lr=1e-3, rng=seed,
                                           progress=False, **kw)
        tr.fit(["a red square", "a blue circle"], n_updates=updates)
        h = tr.history_
        print(f"| {mode} | {h['seconds'][-1] / updates:.3f} | {h['nfe'][-1] / updates:.0f} | "
              f"{h['reward_calls'][-1] / updates:.0f} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--pipeline", action="store_true", help="time the diffusers pipeline path (tiny SD3)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--updates", type=int, default=30)
    ap.add_argument("--quick", action="store_true", help="2 seeds x 10 updates (smoke run)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    if a.pipeline:
        return bench_pipeline(updates=min(a.updates, 10))
    if a.quick:
        a.seeds, a.updates = 2, 10
    fm, reward = setup()
    prompts = np.arange(8)
    rows: dict[str, list] = {}
    curves: dict[str, list] = {}
    base = eval_model(fm, fm, reward, prompts)
    print(f"base model: eval reward {base[0]:.4f}, diversity {base[2]:.3f}", flush=True)
    for seed in range(a.seeds):
        for name, kw in CONFIGS:
            model, hist, sec = run_grpo(fm, reward, prompts, seed, a.updates, **kw)
            r, kl, div = eval_model(model, fm, reward, prompts)
            rows.setdefault(name, []).append((r, kl, div, sec, hist["reward_calls"][-1]))
            curves.setdefault(name, []).append({"eval": hist["eval_reward"].tolist(),
                                                "calls": hist["reward_calls"].tolist()})
            print(f"seed {seed} {name:42s} reward {r:.4f} KL {kl:.4f} div {div:.3f} {sec:6.1f} s", flush=True)
        model, calls, sec = run_rwr(fm, reward, prompts, seed, a.updates)
        r, kl, div = eval_model(model, fm, reward, prompts)
        rows.setdefault("RWR (reward-weighted FM)", []).append((r, kl, div, sec, calls))
        model, calls, sec = run_draft(fm, reward, prompts, seed, a.updates)
        r, kl, div = eval_model(model, fm, reward, prompts)
        rows.setdefault("DRaFT-1 (direct backprop)", []).append((r, kl, div, sec, calls))
        rows.setdefault("best-of-8 (inference)", []).append(best_of_n(fm, reward, prompts, seed=999 + seed))
        print(f"seed {seed} peers done", flush=True)

    def ms(v):
        v = np.asarray(v, dtype=float)
        return f"{v.mean():.4f} ({v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0:.4f})"

    print(f"\n## A5 table: {a.seeds} seeds, {a.updates} updates, 8 digit prompts (mean (SE))\n")
    print("| method | final reward | KL to ref | diversity | time [s] | reward calls |")
    print("|---|---|---|---|---|---|")
    for name, v in rows.items():
        v = np.asarray(v, dtype=float)
        print(f"| {name} | {ms(v[:, 0])} | {ms(v[:, 1])} | {ms(v[:, 2])} | {v[:, 3].mean():.1f} | {v[:, 4].mean():.0f} |")
    print(f"| base model | {base[0]:.4f} | 0 | {base[2]:.3f} | - | - |")
    # learning efficiency: first update where TempFlow's eval reward reaches Flow-GRPO's final (mean of last 3)
    print("\n## Learning efficiency (eval reward, mean of the last 3 updates as Flow-GRPO's target)\n")
    print("| seed | Flow-GRPO final | TempFlow first update reaching it | fraction of updates | TempFlow calls then | Flow-GRPO calls |")
    print("|---|---|---|---|---|---|")
    fr = []
    for s in range(a.seeds):
        f, t = curves["Flow-GRPO"][s], curves["TempFlow-GRPO"][s]
        target = float(np.mean(f["eval"][-3:]))
        ev = np.convolve(t["eval"], np.ones(3) / 3, mode="valid")
        hit = np.nonzero(ev >= target)[0]
        u = int(hit[0]) + 3 if hit.size else None
        fr.append(u / a.updates if u else np.nan)
        calls = t["calls"][u - 1] if u else float("nan")
        print(f"| {s} | {target:.4f} | {u} | {fr[-1]:.2f} | {calls:.0f} | {f['calls'][-1]:.0f} |")
    print(f"\nGoal (TempFlow reaches Flow-GRPO's {a.updates}-update reward in <= half the updates): "
          f"{np.sum(np.asarray(fr) <= 0.5)}/{a.seeds} seeds")
    if a.json:
        Path(a.json).write_text(json.dumps({"rows": {k: np.asarray(v).tolist() for k, v in rows.items()},
                                            "curves": curves}))


if __name__ == "__main__":
    main()
