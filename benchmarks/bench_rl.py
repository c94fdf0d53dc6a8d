"""Benchmark of iclr26sci.rl (RS-GRPO, arXiv:2509.24261).

Parts (``--parts``, default all):

- ``speed``: ``rs_advantage`` on 10^6 groups of 16, CPU time, best of 5: the 2-D fast path against the previous
  kernel, ``scipy.special.softmax`` and ``torch.softmax`` on the same matrix; the 1-D path with shuffled integer
  labels against the 2-D path (median of alternating runs, once with the numpy kernel and once with the optional
  numba kernel when numba is installed, compiled before timing); a torch float32 tensor (issue 44 goals:
  < 0.1 s, 1-D <= 2x 2-D). Run with ``OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1``.
- ``toy``: the spec's §B5 side-by-side on the linear-softmax pass@k toy: GRPO, Dr.GRPO, RS-GRPO at beta in
  {1, 2, 4, 8}, PKPO and Pass@k Training at k in {4, 8}, entropy-bonus GRPO, with identical G, learning rate,
  steps and seeds; pass@{1,4,16,64,256}, final entropy, mean |A|, time; then the lr-matched variant where
  each method's learning rate is rescaled so its mean |A| equals GRPO's.
- ``bandit``: the same on the 100-armed bandit (graded rewards, so the pass@k methods do not apply): final
  E[r], entropy, mean |A|, time.
- ``lm``: SmolLM2-135M-Instruct + LoRA on generated arithmetic (``ArithmeticTask``): TRL's stock
  ``GRPOTrainer`` (std-normalised GRPO) against ``RSGRPOTrainer`` (beta = 2) with the same data, seeds and
  budget; pass@1..32 on held-out problems for the base and both trained models, and wall time per step.
  Laptop-sized by default; the ``--lm-*`` options scale it up (e.g. ``--lm-steps 500 --lm-prompts 16
  --lm-group 16 --lm-max-tokens 64 --lm-n 256`` on a GPU).

Run: ``python benchmarks/bench_rl.py [--parts speed,toy,bandit,lm] [--quick] [--json out.json]``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from _common import print_table  # noqa: E402
from iclr26sci.rl import (bandit_experiment, linear_softmax_toy, pass_at_k, rs_advantage)  # noqa: E402

TOY_METHODS = {
    "GRPO": ("grpo", {}), "Dr.GRPO": ("dr_grpo", {}),
    "RS-GRPO b=1": ("rs", {"beta": 1.0}), "RS-GRPO b=2": ("rs", {"beta": 2.0}),
    "RS-GRPO b=4": ("rs", {"beta": 4.0}), "RS-GRPO b=8": ("rs", {"beta": 8.0}),
    "PKPO k=4": ("pkpo", {"k": 4}), "PKPO k=8": ("pkpo", {"k": 8}),
    "Pass@k-Tr k=4": ("passk_training", {"k": 4}), "Pass@k-Tr k=8": ("passk_training", {"k": 8}),
    "GRPO+entropy 0.01": ("grpo_entropy", {"entropy_coef": 0.01}),
}


def _env():
    """Load average (1 min) and the BLAS/OpenMP/torch thread counts."""
    import torch

    try:
        from threadpoolctl import threadpool_info

        blas = max((i.get("num_threads", 1) for i in threadpool_info()), default=1)
    except ImportError:  # pragma: no cover
        blas = -1
    return {"load1": round(os.getloadavg()[0], 2), "threads (blas/torch)": f"{blas}/{torch.get_num_threads()}"}


def _cpu_best(fn, *a, repeat=5, **k):
    """Best CPU time (time.process_time) of ``repeat`` calls, and the last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        c = time.process_time()
        out = fn(*a, **k)
        best = min(best, time.process_time() - c)
    return best, out


def _cpu_alternating(fns, rounds=7):
    """Median CPU time (time.process_time) of each function over ``rounds`` alternating calls (the machine's load
    drifts: alternating exposes the functions to the same drift), and each one's last result."""
    times = {k: [] for k in fns}
    out = {}
    for _ in range(rounds):
        for k, f in fns.items():
            c = time.process_time()
            out[k] = f()
            times[k].append(time.process_time() - c)
    return {k: float(np.median(v)) for k, v in times.items()}, out


def _numba_version():
    import numba

    return numba.__version__


def _reference_rs(R, beta):
    """The pre-issue-44 kernel (rs_grpo._rs_kernel on a full matrix): the baseline of the speed-up."""
    z = beta * R
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z, out=z)
    s = e.sum(1, keepdims=True)
    s /= R.shape[1]
    e /= s
    e -= 1.0
    e /= beta
    return e


def part_speed(quick):
    """Issue 44: rs_advantage on 10^6 groups of 16 (CPU time, best of 5) against scipy and torch softmax."""
    import scipy.special
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1") or 1))
    rng = np.random.default_rng(0)
    k, G = (10 ** 5 if quick else 10 ** 6), 16
    R = rng.random((k, G))
    ids = rng.permutation(np.repeat(np.arange(k), G))       # shuffled labels, 1-D path
    flat = R.ravel().copy()
    T = torch.from_numpy(R)
    t_ours, a_ours = _cpu_best(rs_advantage, R, beta=2.0)
    t_old, a_old = _cpu_best(_reference_rs, R, 2.0)
    t_sp, _ = _cpu_best(scipy.special.softmax, 2.0 * R, axis=1)
    t_th, _ = _cpu_best(torch.softmax, 2.0 * T, 1)
    # the 1-D goal is a ratio: medians of alternating runs of the 2-D path and the 1-D path with each kernel
    # (numba's when numba imports; it is compiled or loaded from numba's user cache first, outside the timing)
    from iclr26sci.rl import _rs_fast

    has_nb = _rs_fast.numba_available()
    compile_s = np.nan
    if has_nb:
        from iclr26sci.rl import _rs_numba

        compile_s = _rs_numba.warm_up()

    def one_d(kernel):
        def f():
            old = _rs_fast.USE_NUMBA
            _rs_fast.USE_NUMBA = kernel
            try:
                return rs_advantage(flat, ids, beta=2.0)
            finally:
                _rs_fast.USE_NUMBA = old
        return f

    fns = {"2d": lambda: rs_advantage(R, beta=2.0), "1d numpy": one_d(False)}
    if has_nb:
        fns["1d numba"] = one_d(True)
    alt, res = _cpu_alternating(fns, rounds=3 if quick else 9)
    t_2d_alt = alt["2d"]
    t_f32, _ = _cpu_best(rs_advantage, T.float(), beta=2.0)
    rows = []
    base = {"input": f"({k}, {G}) float64"}
    rows.append({**base, "ours": "rs_advantage 2-D", "ours CPU s": t_ours, "peer": "previous kernel", "peer CPU s": t_old,
                 "ratio peer/ours": t_old / t_ours, "max |diff|": float(np.abs(a_ours - a_old).max()), "goal": "< 0.1 s",
                 **_env()})
    rows.append({**base, "ours": "rs_advantage 2-D", "ours CPU s": t_ours, "peer": "scipy.special.softmax",
                 "peer CPU s": t_sp, "ratio peer/ours": t_sp / t_ours, "max |diff|": np.nan, "goal": "", **_env()})
    rows.append({**base, "ours": "rs_advantage 2-D", "ours CPU s": t_ours, "peer": "torch.softmax (float64)",
                 "peer CPU s": t_th, "ratio peer/ours": t_th / t_ours, "max |diff|": np.nan, "goal": "", **_env()})
    # the 1-D path's answer in the 2-D layout: entry i of flat belongs to group ids[i]
    order = np.argsort(ids, kind="stable")
    ref_1d = _reference_rs(flat[order].reshape(k, G), 2.0).ravel()
    for name in [n for n in ("1d numba", "1d numpy") if n in alt]:
        rows.append({"input": f"{k * G} flat, shuffled int labels", "ours": f"rs_advantage {name} kernel",
                     "ours CPU s": alt[name], "peer": "rs_advantage 2-D (same rewards; median of alternating runs)",
                     "peer CPU s": t_2d_alt, "ratio peer/ours": t_2d_alt / alt[name],
                     "max |diff|": float(np.abs(res[name][order] - ref_1d).max()), "goal": "1-D <= 2x 2-D",
                     **_env()})
    print(f"1-D / 2-D CPU-time ratio (goal <= 2): "
          + ", ".join(f"{n}: {alt[n] / t_2d_alt:.2f}x ({alt[n]:.3f} s)" for n in alt if n != "2d")
          + f"; 2-D {t_2d_alt:.3f} s; load1 {os.getloadavg()[0]:.2f}; numba "
          + (f"{_numba_version()} (kernels compiled or loaded from cache in {compile_s:.2f} s, "
             f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'unset')}, no parallel kernels)"
             if has_nb else "not installed: numpy kernel only"))
    rows.append({"input": f"({k}, {G}) torch float32", "ours": "rs_advantage 2-D", "ours CPU s": t_f32, "peer": "",
                 "peer CPU s": np.nan, "ratio peer/ours": np.nan, "max |diff|": np.nan, "goal": "", **_env()})
    c = rng.integers(0, 65, size=10 ** 5)
    t_pk, _ = _cpu_best(pass_at_k, c, 64, k=[1, 4, 16, 64], repeat=1)
    rows.append({"input": "pass_at_k 1e5 problems x 4 k", "ours": "pass_at_k", "ours CPU s": t_pk, "peer": "",
                 "peer CPU s": np.nan, "ratio peer/ours": np.nan, "max |diff|": np.nan, "goal": "", **_env()})
    print_table("rs_advantage speed (CPU s, best of 5; 1-D vs 2-D: median of 9 alternating runs; issue 44)", rows)
    return rows


def part_toy(quick):
    steps, seeds = (400, 2) if quick else (1000, 3)
    res = linear_softmax_toy(TOY_METHODS, steps=steps, seeds=seeds, rng=0)
    rows = _toy_rows(res)
    print_table(f"linear-softmax toy, {steps} steps, {seeds} seeds (seed mean)", rows)
    ref = res.mean_abs_advantage["GRPO"]
    matched = {lab: (m, {**p, "lr_scale": ref / max(res.mean_abs_advantage[lab], 1e-12)})
               for lab, (m, p) in TOY_METHODS.items()}
    res2 = linear_softmax_toy(matched, steps=steps, seeds=seeds, rng=0)
    rows2 = _toy_rows(res2)
    for r, lab in zip(rows2[1:], matched):
        r["lr_scale"] = matched[lab][1]["lr_scale"]
    print_table("same, lr-matched (each method's lr x GRPO mean|A| / its mean|A|, measured in the run above)", rows2)
    return {"plain": res.to_dict(), "lr_matched": res2.to_dict()}


def _toy_rows(res):
    rows = []
    for lab in res.pass_at:
        d = {"method": lab}
        d.update({f"pass@{k}": v for k, v in zip(res.ks, res.mean(lab))})
        d["entropy"] = float(res.entropy[lab].mean())
        d["mean|A|"] = res.mean_abs_advantage.get(lab, float("nan"))
        d["time (s)"] = res.wall_s.get(lab, float("nan"))
        rows.append(d)
    return rows


def part_bandit(quick):
    steps, seeds = (5000, 2) if quick else (25_000, 3)
    rows, out = [], {}
    runs = [("GRPO", "grpo", None), ("Dr.GRPO (= RS b=0)", "dr_grpo", None),
            ("GRPO+entropy 0.01", "grpo_entropy", None)] + [(f"RS-GRPO b={b}", "rs", b) for b in (1, 2, 4, 8)]
    for lab, m, b in runs:
        kw = {"beta": [b]} if m == "rs" else {}
        if m == "grpo_entropy":
            kw["entropy_coef"] = 0.01
        res = bandit_experiment(steps=steps, seeds=seeds, rng=0, method=m, **kw)
        rows.append({"method": lab, "final E[r]": float(res.final_reward.mean()),
                     "min over seeds": float(res.final_reward.min()), "entropy": float(res.final_entropy.mean()),
                     "mean|A|": float(res.mean_abs_advantage.mean()), "time (s)": res.wall_s})
        out[lab] = res.to_dict()
    print_table(f"100-armed bandit, {steps} updates, {seeds} seeds (PKPO / Pass@k Training: binary rewards only, "
                "not applicable)", rows)
    return out


# ------------------------------------------------------------------------------------------- the LM run
def _eval_passk(lm, task, n, max_tokens, ks, seed, batch_size):
    from iclr26sci.rl import grade_answer

    prompts, answers = task.prompts("test"), task.answers("test")
    t0 = time.perf_counter()
    gen = lm.generate(prompts, n=n, max_new_tokens=max_tokens, temperature=1.0, chat=task.chat, rng=seed,
                      batch_size=batch_size)
    r = np.array([grade_answer(t, answers[p]) for t, p in zip(gen.texts, gen.prompt_index)])
    c = np.bincount(np.asarray(gen.prompt_index), weights=r, minlength=len(prompts)).astype(int)
    return pass_at_k(c, n, k=ks), c, time.perf_counter() - t0


def part_lm(a):
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from iclr26sci.nn import load_lm
    from iclr26sci.rl import ArithmeticTask, RSGRPOTrainer

    warnings.filterwarnings("ignore")
    torch.set_num_threads(a.threads)
    ks = [k for k in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024) if k <= a.lm_n]
    task = ArithmeticTask(n_train=a.lm_train, n_test=a.lm_test, ops="+-", max_operand=20, rng=0)
    base = load_lm("smollm2-135m")
    out = {"settings": {k: v for k, v in vars(a).items() if k.startswith("lm_")}, "ks": ks, "models": {}}
    pk, c, dt = _eval_passk(base, task, a.lm_n, a.lm_max_tokens, ks, 1234, a.lm_eval_batch)
    out["models"]["base"] = {"pass_at_k": pk.tolist(), "n_correct": c.tolist(), "eval_s": dt}
    print(f"base: pass@k {np.round(pk, 3).tolist()} (eval {dt:.0f} s)", flush=True)

    def reward(prompts, completions, answer, **kw):
        return task.reward(completions, answer)

    for label in a.lm_methods.split(","):
        lm = base.with_lora(r=8, alpha=16, rng=0)
        args = GRPOConfig(output_dir=f"/tmp/bench_rl_{label}", num_generations=a.lm_group,
                          per_device_train_batch_size=a.lm_group * a.lm_prompts, max_completion_length=a.lm_max_tokens,
                          max_steps=a.lm_steps, learning_rate=a.lm_lr, lr_scheduler_type="constant",
                          logging_steps=1, report_to="none", save_strategy="no", use_cpu=not torch.cuda.is_available(),
                          seed=0, temperature=1.0, disable_tqdm=True, scale_rewards="group")
        if label == "grpo":
            tr = GRPOTrainer(model=lm.model, reward_funcs=reward, args=args, train_dataset=task.dataset("train"),
                             processing_class=lm.tokenizer)
        else:
            tr = RSGRPOTrainer(model=lm, reward_fn=reward, beta=a.lm_beta, args=args,
                               train_dataset=task.dataset("train"))
        t0 = time.perf_counter()
        tr.train()
        wall = time.perf_counter() - t0
        hist = [h for h in tr.state.log_history if "reward" in h]
        step_t = [float(h["step_time"]) for h in hist if "step_time" in h]
        rew = [float(h["reward"]) for h in hist]
        lengths = [float(h.get("completions/mean_length", float("nan"))) for h in hist]
        lm.model.eval()
        pk, c, dt = _eval_passk(lm, task, a.lm_n, a.lm_max_tokens, ks, 1234, a.lm_eval_batch)
        name = {"grpo": "GRPO (trl GRPOTrainer, stock)", "rs": f"RS-GRPO b={a.lm_beta} (RSGRPOTrainer)"}[label]
        out["models"][name] = {"pass_at_k": pk.tolist(), "n_correct": c.tolist(), "eval_s": dt, "train_wall_s": wall,
                               "step_time_s": step_t, "train_reward": rew, "mean_length": lengths}
        print(f"{name}: train {wall:.0f} s, mean step {np.mean(step_t) if step_t else float('nan'):.2f} s, "
              f"train reward first/last 5 steps {np.mean(rew[:5]):.3f}/{np.mean(rew[-5:]):.3f}; "
              f"pass@k {np.round(pk, 3).tolist()} (eval {dt:.0f} s)", flush=True)
        del tr
    rows = [{"model": m, **{f"pass@{k}": v for k, v in zip(ks, d["pass_at_k"])},
             "s/step": float(np.mean(d["step_time_s"])) if d.get("step_time_s") else float("nan"),
             "s/token (mean)": (float(np.mean(d["step_time_s"])) / (a.lm_group * a.lm_prompts * np.nanmean(d["mean_length"])))
             if d.get("step_time_s") else float("nan")}
            for m, d in out["models"].items()]
    print_table(f"SmolLM2-135M-Instruct + LoRA(r=8, q,v), arithmetic +- <= 20: {a.lm_steps} steps x {a.lm_prompts} prompts "
                f"x G={a.lm_group}; held-out {a.lm_test} problems x n={a.lm_n}", rows)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--parts", default="speed,toy,bandit,lm")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", default=None)
    p.add_argument("--lm-steps", type=int, default=24)
    p.add_argument("--lm-prompts", type=int, default=2)
    p.add_argument("--lm-group", type=int, default=8)
    p.add_argument("--lm-max-tokens", type=int, default=8)
    p.add_argument("--lm-lr", type=float, default=3e-4)
    p.add_argument("--lm-beta", type=float, default=2.0)
    p.add_argument("--lm-train", type=int, default=200)
    p.add_argument("--lm-test", type=int, default=24)
    p.add_argument("--lm-n", type=int, default=32)
    p.add_argument("--lm-eval-batch", type=int, default=256)
    p.add_argument("--lm-methods", default="grpo,rs")
    a = p.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", str(a.threads))
    out = {}
    parts = a.parts.split(",")
    for name, fn in [("speed", part_speed), ("toy", part_toy), ("bandit", part_bandit)]:
        if name in parts:
            out[name] = fn(a.quick)
    if "lm" in parts:
        out["lm"] = part_lm(a)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1, default=float)


if __name__ == "__main__":
    main()
