"""MVR on real gymnasium MuJoCo tasks: task reward only vs MVR vs PBRS vs image-level shaping (spec C4b).

For each task (Walker2d-v5, HalfCheetah-v5) and seed, one agent per variant:

- ``task only``: the backbone on the task reward (no recording);
- ``MVR``: the code-faithful additive shaping from the demo-prototype video scorer (3 views: side, front, back);
- ``PBRS``: the same relevance, potential-based;
- ``image``: the MVR pipeline with an image-level scorer (the mean of per-frame random features, no temporal
  part): the paper's single-image ablation, with per-frame features in place of CLIP (VLM-RM-style) scores.

The demonstration the scorer compares with is an open-loop sinusoidal gait played back in the same simulator
(the offline stand-in for the prompt; spec C5a). Reported: final evaluation return (5 deterministic episodes
per seed) as mean and standard error over seeds, the training-return curve in 4 chunks (mean over seeds with
the SE band), wall time per run and its ratio to task only, environment steps per second, and the overhead of
rendering + scoring + retraining + relabelling + shaping as a fraction of the run's wall time.

Run::

    python benchmarks/bench_mvr.py                       # quick size: SAC 2 x 64, 2000 steps, seeds 0-2
    python benchmarks/bench_mvr.py --steps 5000 --seeds 0 --tasks Walker2d-v5,HalfCheetah-v5
    python benchmarks/bench_mvr.py --full                # TQC with its defaults, 200k steps (hours per run)
    python benchmarks/bench_mvr.py --throughput 1500     # steps/s of each arm at the --full configuration,
                                                         # and the CPU-hours the issue's budget needs

The quick size gives no meaningful returns, only the plumbing and the overhead.
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


def run(task, variant, seed, steps, full, **over):
    from iclr26sci.rl.mvr import MVR, DemoPrototypeScorer, StateRelevance, make_multiview_env

    env = make_multiview_env(task, cameras=["side", "front", "back"], clip_len=8, every=16, size=(64, 64),
                             record_every=3 if full else 2)
    bk = {} if full else dict(learning_starts=500, train_freq=2, gradient_steps=1, batch_size=128,
                              policy_kwargs=dict(net_arch=[64, 64]), buffer_size=steps)
    backbone = "tqc" if full else "sac"
    bk.update(over.pop("backbone_kwargs", {}))
    t0 = time.perf_counter()
    c0 = time.process_time()
    if variant == "task only":
        from sb3_contrib import TQC
        from stable_baselines3 import SAC
        from stable_baselines3.common.callbacks import BaseCallback

        rets = []

        class _Returns(BaseCallback):
            def _on_step(self):
                rets.extend(i["episode"]["r"] for i in self.locals["infos"] if "episode" in i)
                return True

        cls = TQC if full else SAC
        model = cls("MlpPolicy", env.env, seed=seed, verbose=0, **bk)
        model.learn(total_timesteps=steps, callback=_Returns())
        agent = MVR(env, DemoPrototypeScorer(), backbone=backbone)
        agent.model_ = model
        hist = {"episode_task_return": rets, "overhead_fraction": 0.0}
    else:
        ref = env.rollout_clips(_gait(env), 400, seed=10_000 + seed)
        sc = DemoPrototypeScorer.from_reference(env, ref, temporal=variant != "image", size=32, n_features=256)
        rel = StateRelevance(hidden=256 if full else 64, min_updates=1000 if full else 0, max_epochs=100 if full else 8,
                             states_per_clip=None if full else 32, rng=seed)
        if over.get("small_relevance"):  # throughput runs: full width (the per-step cost), one epoch a retrain
            rel = StateRelevance(hidden=256, min_updates=0, max_epochs=1, states_per_clip=32, rng=seed)
        agent = MVR(env, sc, prompt="a robot running forward", backbone=backbone,
                    shaping="pbrs" if variant == "PBRS" else "mvr",
                    relevance_retrain_every=over.get("retrain", 50_000 if full else steps // 3),
                    collect_every=over.get("collect", 10_000 if full else 500),
                    relevance=rel, backbone_kwargs=bk, rng=seed)
        agent.learn(total_timesteps=steps)
        hist = agent.history_
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    ev = agent.evaluate(n_episodes=over.get("n_eval", 5), seed=seed)
    env.close()
    return {"final": ev["mean"], "train_returns": list(hist["episode_task_return"]), "wall": wall, "cpu": cpu,
            "overhead": hist["overhead_fraction"], "history": hist}


def _chunks(rets, k=4):
    if len(rets) < k:
        return [float(np.mean(rets)) if rets else float("nan")] * k
    return [float(np.mean(c)) for c in np.array_split(np.asarray(rets, float), k)]


def _arg(argv, name, default):
    if name in argv:
        i = argv.index(name)
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            return argv[i + 1]
    return default


def throughput(n_steps, tasks):
    """Environment steps per second of each arm at the --full configuration, and the CPU-hours of the grid.

    Each arm runs ``n_steps`` TQC steps (sb3-contrib defaults: 2 x 256 nets, 25 quantiles, one gradient step
    per environment step after 100 random steps) with the recording of the full run (3 views, 64 x 64, every
    16 steps, one episode in 3); the MVR arms score their clips every ``n_steps // 3`` steps and retrain a
    small relevance at ``n_steps // 2`` so that the per-step shaping is on in the second half. The full-size
    retrain (hidden 256, 256 pairs of 128-state clips a batch, at least 1,000 updates the first time, as
    configured for --full) and the relabelling of a 200k buffer are timed separately and added per retrain.
    """
    import torch

    from iclr26sci.rl.mvr import StateRelevance

    budget, n_retrains, grid_seeds = 200_000, 4, 3
    rows, per_run = [], {}
    for task in tasks:
        for variant in VARIANTS:
            res = run(task, variant, 0, n_steps, True, retrain=n_steps // 2, collect=max(1, n_steps // 3), n_eval=1,
                      small_relevance=True)
            h = res["history"]
            sps = n_steps / res["wall"]
            shaping_per_step = h.get("seconds_shaping", 0.0) / max(1, n_steps // 2)
            render_per_step = h.get("seconds_render", 0.0) / n_steps
            score_per_step = h.get("seconds_score", 0.0) / n_steps
            rows.append({"task": task, "variant": variant, "steps": n_steps, "wall s": res["wall"],
                         "CPU s": res["cpu"], "env steps / s (wall)": sps, "env steps / CPU s": n_steps / res["cpu"],
                         "render ms / step": 1e3 * render_per_step, "score ms / step": 1e3 * score_per_step,
                         "shaping ms / step (when on)": 1e3 * shaping_per_step})
            per_run[(task, variant)] = res["cpu"] / n_steps  # CPU time: the machine may be shared
            print(rows[-1], flush=True)
    # full-size retrain: seconds per relevance update on a 1000-clip buffer of 128 x 17 states
    g = np.random.default_rng(0)
    X = g.normal(size=(1000, 128, 17)).astype(np.float32)
    S = np.tanh(X[..., 0].mean(1))
    E = np.abs(g.normal(size=(1000, 3, 256)))
    E /= np.linalg.norm(E, axis=-1, keepdims=True)
    rel = StateRelevance(hidden=256, min_updates=0, max_epochs=1, updates_per_epoch=20, rng=0)
    t = time.process_time()
    rel.fit(X, S, E)
    s_update = (time.process_time() - t) / max(1, rel.n_updates_)
    t = time.process_time()
    rel.predict(g.normal(size=(50_000, 17)))
    s_relabel = (time.process_time() - t) * budget / 50_000  # one relabel of a 200k-transition buffer (mvr)
    lo_updates, hi_updates = 1000 + 300 * (n_retrains - 1), 5000 * n_retrains  # early stopping vs max_epochs
    est = []
    for (task, variant), sec_step in per_run.items():
        base = sec_step * budget
        extra_lo = 0.0 if variant == "task only" else lo_updates * s_update + n_retrains * s_relabel
        extra_hi = 0.0 if variant == "task only" else hi_updates * s_update + n_retrains * s_relabel
        est.append({"task": task, "variant": variant, "h / run, steps": base / 3600,
                    "h / run, + retrains (low)": (base + extra_lo) / 3600,
                    "h / run, + retrains (high)": (base + extra_hi) / 3600})
    tot_lo = grid_seeds * sum(r["h / run, + retrains (low)"] for r in est)
    tot_hi = grid_seeds * sum(r["h / run, + retrains (high)"] for r in est)
    print_table(f"Throughput at the --full configuration ({n_steps} steps a run, 1 thread, seed 0)", rows)
    print(f"\nrelevance update (hidden 256, 256 pairs x 128 states, incl. validation): {s_update:.3f} CPU s; "
          f"relabel of {budget} transitions: {s_relabel:.1f} CPU s; torch threads {torch.get_num_threads()}")
    print_table(f"Estimated single-core CPU hours for {budget} steps a run (retrains: {lo_updates} to {hi_updates} "
                f"relevance updates over {n_retrains} retrains)", est)
    print(f"\nGrid {len(tasks)} tasks x {len(VARIANTS)} variants x {grid_seeds} seeds x {budget} steps: "
          f"{tot_lo:.0f} to {tot_hi:.0f} single-core hours")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    full = "--full" in argv
    tasks = tuple(_arg(argv, "--tasks", ",".join(TASKS)).split(","))
    if "--throughput" in argv:
        throughput(int(_arg(argv, "--throughput", "1500")), tasks)
        return
    steps = int(_arg(argv, "--steps", 200_000 if full else 2000))
    seeds = tuple(int(x) for x in _arg(argv, "--seeds", "0,1,2").split(","))
    variants = tuple(_arg(argv, "--variants", ",".join(VARIANTS)).split(","))
    rows, curves = [], []
    for task in tasks:
        base_wall = None
        for variant in variants:
            res = [run(task, variant, s, steps, full) for s in seeds]
            fin = np.array([r["final"] for r in res])
            wall = float(np.mean([r["wall"] for r in res]))
            if variant == "task only":
                base_wall = wall
            se = fin.std(ddof=1) / math.sqrt(len(fin)) if len(fin) > 1 else float("nan")
            rows.append({"task": task, "variant": variant, "steps": steps, "seeds": len(seeds),
                         "final return": fin.mean(), f"SE ({len(seeds)} seeds)": se,
                         "wall s / run": wall, "CPU s / run": float(np.mean([r["cpu"] for r in res])),
                         "wall / task only": wall / base_wall if base_wall else float("nan"),
                         "env steps / s": steps / wall,
                         "overhead fraction": np.mean([r["overhead"] for r in res])})
            ch = np.array([_chunks(r["train_returns"]) for r in res])
            band = (np.nanstd(ch, axis=0, ddof=1) / math.sqrt(len(ch)) if len(ch) > 1
                    else np.full(ch.shape[1], np.nan))
            curves.append({"task": task, "variant": variant, "episodes": int(np.mean([len(r["train_returns"])
                                                                                       for r in res])),
                           **{f"train return, quarter {i + 1}": f"{np.nanmean(ch[:, i]):.1f} +- {band[i]:.1f}"
                              for i in range(ch.shape[1])}})
            print(rows[-1], flush=True)
    print_table(f"MVR benchmark ({'full' if full else 'quick'}): final evaluation return, 5 episodes x "
                f"{len(seeds)} seed(s) {seeds}", rows)
    print_table("Training-return curve (mean +- SE over seeds, by quarter of training; nan: one seed)", curves)


if __name__ == "__main__":
    main()
