"""Value Matching side by side with its peers (spec §B5): one harness, one base flow, one reward-call budget.

Part 1 (quality). Base: a flow-matching MLP (3x64) trained on N(m, s^2 I) in 2-D, frozen; reward r(x) = a.x,
lam = 2, so the exact tilt is N(m + lam s^2 a, s^2 I) (up to the base model's own fit error, shown in the "base"
row). Every method gets the same budget of reward calls (B = 20 x 256 = 5120; gradient guidance needs one
reward-and-gradient call per sample per step and is reported at its own count). Columns: expected reward of
4000 samples with its SE, W2 between the Gaussian fitted to the samples and the exact tilt of N(m, s^2 I) and
the tilt of the learned base (importance resampling with 64 candidates per sample), reward calls, wall
time (this process, a loaded shared machine: inflated), training memory (tensors saved for backward plus 4x the
trainable parameters).

Part 2 (the memory goal). A frozen base velocity MLP of width w in {256, 1024, 4096} (x2 hidden layers; 8192 with
--full); VM and Adjoint Matching each train on it with the same reward calls; reported: training memory of each,
the ratio VM/AM (goal <= 5% at the largest width), and their final expected rewards with SEs (goal: within Monte-
Carlo error of each other).

Run: python benchmarks/bench_value_matching.py [--quick]
"""
from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _common import print_table  # noqa: E402

M = np.array([0.5, -0.3])
S2 = 0.64
A = np.array([1.0, 0.5])
LAM = 2.0


def _w2(x, m, v):
    from validation.nn_flow import w2_gaussian

    return w2_gaussian(x.mean(0), np.cov(x.T), m, v * np.eye(len(m)))


def _row(name, x, reward, calls, seconds, mem, tilt, ref=None):
    r = np.asarray(reward, float)
    row = {"method": name, "E r": r.mean(), "SE": r.std(ddof=1) / math.sqrt(r.size),
           "W2 to exact tilt": _w2(x, *tilt)}
    if ref is not None:
        from validation.nn_flow import w2_gaussian

        row["W2 to learned-base tilt"] = w2_gaussian(x.mean(0), np.cov(x.T), *ref)
    row.update({"reward calls": calls, "seconds": seconds,
                "train memory MB": mem / 2 ** 20 if mem else float("nan")})
    return row


def quality(quick):
    import torch

    from iclr26sci.generative import (ValueMatching, adjoint_matching, best_of_n, classifier_guidance, ddpo,
                                      gradient_guidance)
    from iclr26sci.nn import FlowMatching, VelocityMLP

    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    X = M + math.sqrt(S2) * rng.normal(size=(8192, 2))
    net = VelocityMLP(2, hidden=(64, 64, 64))
    fm = FlowMatching(net).fit(X, epochs=40 if quick else 120, batch_size=256, lr=2e-3, rng=0, progress=False)
    net = fm.velocity_net
    net.event_shape = (2,)
    a = torch.as_tensor(A, dtype=torch.float32)

    def reward(x):
        return x.to(torch.float32) @ a

    tilt = (M + LAM * S2 * A, S2)
    steps, n, iters, ro = 25, 4000, 20, 256
    budget = iters * ro
    rows = []
    # the tilt of the *learned* base model, by importance resampling with many candidates (consistent)
    big = best_of_n(fm, reward, n=n, n_candidates=64, lam=LAM, steps=steps, rng=9).x.numpy()
    ref = (big.mean(0), np.cov(big.T))
    t0 = time.perf_counter()
    base = best_of_n(fm, reward, n=n, n_candidates=1, steps=steps, rng=1)
    rows.append(_row("base (no guidance)", base.x.numpy(), base.reward, 0, time.perf_counter() - t0, 0, tilt, ref))
    rows.append({"method": "reference: IR with 64 candidates", "E r": float(reward(torch.as_tensor(big)).mean()),
                 "reward calls": 64 * n})
    for name, on in (("VM (value matching)", True), ("CG (offline)", False)):
        t0 = time.perf_counter()
        if on:
            est = ValueMatching(fm, reward, lam=LAM, steps=steps, hidden=(64, 64, 64), rollouts=ro, lr=2e-3,
                                rng=0).fit(n_iter=iters, progress=False)
        else:
            est = classifier_guidance(fm, reward, lam=LAM, n_iter=iters, steps=steps, hidden=(64, 64, 64),
                                      rollouts=ro, lr=2e-3, rng=0)
        x = est.sample(n=n, rng=1).x
        r = reward(x).double().numpy()
        rows.append(_row(name, x.numpy(), r, est.n_reward_calls_, time.perf_counter() - t0,
                         est.history_["train_memory_bytes"].max(), tilt, ref))
    nc = 8
    t0 = time.perf_counter()
    bon = best_of_n(fm, reward, n=budget // nc, n_candidates=nc, steps=steps, rng=2)
    rows.append(_row(f"best-of-{nc} ({budget // nc} samples)", bon.x.numpy(), bon.reward, bon.reward_calls,
                     time.perf_counter() - t0, 0, tilt, ref))
    t0 = time.perf_counter()
    ir = best_of_n(fm, reward, n=budget // nc, n_candidates=nc, lam=LAM, steps=steps, rng=3)
    rows.append(_row(f"importance resampling N={nc} ({budget // nc} samples)", ir.x.numpy(), ir.reward,
                     ir.reward_calls, time.perf_counter() - t0, 0, tilt, ref))
    t0 = time.perf_counter()
    gg = gradient_guidance(fm, reward, n=n, lam=LAM, steps=steps, rng=4)
    rows.append(_row("gradient guidance (DPS)", gg.x.numpy(), gg.reward, gg.reward_calls, time.perf_counter() - t0,
                     0, tilt, ref))
    for name, fn, kw in (("Adjoint Matching", adjoint_matching, {"lr": 1e-3}), ("DDPO/DPOK", ddpo, {"lr": 1e-3})):
        t0 = time.perf_counter()
        ft = fn(net, reward, lam=LAM, n_iter=budget // 64, rollouts=64, steps=steps, rng=0, **kw)
        s = ft.sample(n=n, rng=5)
        rows.append(_row(name, s.x.numpy(), s.reward, ft.history_["reward_calls"][-1], time.perf_counter() - t0,
                         ft.history_["train_memory_bytes"].max(), tilt, ref))
    print_table(f"Same base flow (MLP trained on N(m, 0.64 I)), linear reward, lam={LAM}; exact tilt mean "
                f"{np.round(tilt[0], 3)}", rows)
    return rows


def memory(quick):
    import torch

    from iclr26sci.generative import ValueMatching, adjoint_matching
    from validation.value_matching import _wide_velocity

    widths = [256, 1024, 4096] if quick else [256, 1024, 4096, 8192]
    steps, ro, iters = 10, 64, 10 if quick else 30
    rows = []

    def reward(x):
        return x[:, 0].to(torch.float32)

    for w in widths:
        torch.manual_seed(0)
        net = _wide_velocity(2, w)
        t0 = time.perf_counter()
        vm = ValueMatching(net, reward, lam=LAM, steps=steps, hidden=(256, 256, 256), rollouts=ro, rng=0)
        vm.fit(n_iter=iters, progress=False)
        tv = time.perf_counter() - t0
        rv = vm.sample(n=2000, rng=1).x[:, 0].double().numpy()
        t0 = time.perf_counter()
        am = adjoint_matching(net, reward, lam=LAM, n_iter=iters, rollouts=ro, steps=steps, lr=1e-4, rng=0)
        ta = time.perf_counter() - t0
        ra = am.sample(n=2000, rng=1).reward
        mv, ma = vm.history_["train_memory_bytes"].max(), am.history_["train_memory_bytes"].max()
        base_b = sum(p.numel() * p.element_size() for p in net.parameters())
        rows.append({"width": w, "VM MB": mv / 2 ** 20, "AM MB": ma / 2 ** 20, "VM/AM": mv / ma,
                     "VM/AM incl. frozen base": (mv + base_b) / (ma + base_b),
                     "VM E r": rv.mean(), "VM SE": rv.std(ddof=1) / math.sqrt(rv.size),
                     "AM E r": ra.mean(), "AM SE": ra.std(ddof=1) / math.sqrt(ra.size),
                     "reward calls (each)": iters * ro, "VM s": tv, "AM s": ta})
    print_table("Training memory vs frozen base width (goal: VM/AM <= 5% at the largest width)", rows)
    last = rows[-1]
    z = (last["VM E r"] - last["AM E r"]) / math.hypot(last["VM SE"], last["AM SE"])
    print(f"\nlargest width {last['width']}: VM/AM memory {last['VM/AM']:.4f} (goal <= 0.05: "
          f"{'met' if last['VM/AM'] <= 0.05 else 'NOT met'}); reward difference z = {z:.2f} "
          f"({'within' if abs(z) <= 2 else 'outside'} 2 SE)")
    return rows


if __name__ == "__main__":
    quick = "--full" not in sys.argv
    quality(quick)
    memory(quick)
