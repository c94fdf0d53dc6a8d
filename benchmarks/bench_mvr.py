"""MVR on real gymnasium MuJoCo tasks: task reward only vs MVR vs PBRS vs image-level shaping (spec C4b).

For each task (Walker2d-v5, HalfCheetah-v5) and seed, one agent per variant:

- ``task only``: the backbone on the task reward (no recording);
- ``MVR``: the code-faithful additive shaping from the demo-prototype video scorer (3 views: side, front, back);
- ``PBRS``: the same relevance, potential-based;
- ``image``: the MVR pipeline with an image-level scorer (per-frame random features, no temporal part), the
  paper's single-image ablation in place of CLIP (VLM-RM-style) scores.

The demonstration the scorer compares with is an open-loop sinusoidal gait played back in the same simulator
(the offline stand-in for the prompt; spec C5a). Reported: final evaluation return (5 deterministic episodes
per seed) as mean and standard error over seeds, the training-return curve in 4 chunks (mean over seeds with
the SE band), wall time per run, and the overhead of rendering + scoring + retraining + relabelling + shaping
as a fraction of the run's wall time.

Run: python benchmarks/bench_mvr.py [--quick | --full]. The quick size (SAC with 2 x 64 nets, 2000 steps)
fits a loaded 2-core machine in about 25 minutes and gives no meaningful returns, only the plumbing and the
overhead; --full is TQC with its defaults at 200k steps (hours per run on CPU).
"""
from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("MUJOCO_GL", "osmesa")
from _common import print_table  # noqa: E402

TASKS = ("Walker2d-v5", "HalfCheetah-v5")
VARIANTS = ("task only", "MVR", "PBRS", "image")


def _gait(env):
    n = env.action_space.shape[0]
    k = {"t": 0}

    def pi(obs):
        k["t"] += 1
        ph = 2 * np.pi * k["t"] / 40.0
        return (0.8 * np.sin(ph + np.arange(n) * np.pi / 2)).astype(np.float32)

    return pi


def run(task, variant, seed, steps, full):
    from iclr26sci.rl.mvr import MVR, DemoPrototypeScorer, StateRelevance, make_multiview_env

    env = make_multiview_env(task, cameras=["side", "front", "back"], clip_len=8, every=16, size=(64, 64),
                             record_every=3 if full else 2)
    bk = {} if full else dict(learning_starts=500, train_freq=2, gradient_steps=1, batch_size=128,
                              policy_kwargs=dict(net_arch=[64, 64]), buffer_size=steps)
    backbone = "tqc" if full else "sac"
    t0 = time.perf_counter()
    if variant == "task only":
        from sb3_contrib import TQC
        from stable_baselines3 import SAC

        cls = TQC if full else SAC
        model = cls("MlpPolicy", env.env, seed=seed, verbose=0, **bk)
        model.learn(total_timesteps=steps)
        rets = [e["r"] for e in model.ep_info_buffer] if model.ep_info_buffer else []
        agent = MVR(env, DemoPrototypeScorer(), backbone=backbone)
        agent.model_ = model
        hist = {"episode_task_return": rets, "overhead_fraction": 0.0}
    else:
        ref = env.rollout_clips(_gait(env), 400, seed=10_000 + seed)
        sc = DemoPrototypeScorer.from_reference(env, ref, temporal=variant != "image", size=32, n_features=256)
        rel = StateRelevance(hidden=256 if full else 64, min_updates=1000 if full else 0, max_epochs=100 if full else 8,
                             states_per_clip=None if full else 32, rng=seed)
        agent = MVR(env, sc, prompt="a robot running forward", backbone=backbone,
                    shaping="pbrs" if variant == "PBRS" else "mvr",
                    relevance_retrain_every=50_000 if full else steps // 3, collect_every=10_000 if full else 500,
                    relevance=rel, backbone_kwargs=bk, rng=seed)
        agent.learn(total_timesteps=steps)
        hist = agent.history_
    wall = time.perf_counter() - t0
    ev = agent.evaluate(n_episodes=5, seed=seed)
    env.close()
    return {"final": ev["mean"], "train_returns": list(hist["episode_task_return"]), "wall": wall,
            "overhead": hist["overhead_fraction"]}


def _chunks(rets, k=4):
    if len(rets) < k:
        return [float(np.mean(rets)) if rets else float("nan")] * k
    return [float(np.mean(c)) for c in np.array_split(np.asarray(rets, float), k)]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    full = "--full" in argv
    steps = 200_000 if full else 2000
    seeds = (0, 1, 2)
    rows, curves = [], []
    for task in TASKS:
        for variant in VARIANTS:
            res = [run(task, variant, s, steps, full) for s in seeds]
            fin = np.array([r["final"] for r in res])
            rows.append({"task": task, "variant": variant, "steps": steps, "final return": fin.mean(),
                         "SE (3 seeds)": fin.std(ddof=1) / math.sqrt(len(fin)),
                         "wall s / run": np.mean([r["wall"] for r in res]),
                         "overhead fraction": np.mean([r["overhead"] for r in res])})
            ch = np.array([_chunks(r["train_returns"]) for r in res])
            curves.append({"task": task, "variant": variant,
                           **{f"train return, quarter {i + 1}": f"{np.nanmean(ch[:, i]):.1f} +- "
                              f"{np.nanstd(ch[:, i], ddof=1) / math.sqrt(len(ch)):.1f}" for i in range(ch.shape[1])}})
            print(rows[-1], flush=True)
    print_table(f"MVR benchmark ({'full' if full else 'quick'}): final evaluation return, 5 episodes x 3 seeds", rows)
    print_table("Training-return curve (mean +- SE over seeds, by quarter of training)", curves)


if __name__ == "__main__":
    main()
