"""Benchmark of the image flow models: U-Net throughput, the library's training loop against a plain torch loop,
and the training time and sample quality of the cached Fashion-MNIST and digits flow models.

Run: ``.venv/bin/python benchmarks/bench_nn_generative.py [--threads N] [--no-cached]``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks._common import print_table  # noqa: E402


def unet_throughput(threads: int, batch: int = 128, repeat: int = 5):
    """Images per second of UNetVelocity forward and forward+backward (Adam step) at several widths."""
    import torch

    from iclr26sci.nn import UNetVelocity

    torch.set_num_threads(threads)
    rows = []
    for base in (16, 32, 48):
        torch.manual_seed(0)
        net = UNetVelocity(n_classes=10, base=base)
        opt = torch.optim.Adam(net.parameters(), 1e-3)
        x, t, c = torch.randn(batch, 1, 28, 28), torch.rand(batch), torch.randint(0, 11, (batch,))
        with torch.no_grad():
            net(x, t, c)
            t0 = time.perf_counter()
            for _ in range(repeat):
                net(x, t, c)
            fwd = (time.perf_counter() - t0) / repeat
        for i in range(repeat + 1):
            if i == 1:
                t0 = time.perf_counter()
            loss = (net(x, t, c) - x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        step = (time.perf_counter() - t0) / repeat
        rows.append({"base": base, "params": sum(p.numel() for p in net.parameters()), "batch": batch,
                     "forward img/s": batch / fwd, "train img/s": batch / step, "s/step": step})
    return rows


def fit_vs_plain_loop(threads: int, steps: int = 30, batch: int = 128):
    """FlowMatching.fit (the shared nn.fit loop) against a hand-written torch loop: same net, same steps."""
    import torch

    from iclr26sci.nn import FlowMatching, UNetVelocity

    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    X = rng.random((steps * batch, 1, 28, 28), dtype=np.float32)
    y = rng.integers(0, 10, steps * batch)
    torch.manual_seed(0)
    net = UNetVelocity(n_classes=10, base=32)
    t0 = time.perf_counter()
    FlowMatching(net).fit(X, y, epochs=1, batch_size=batch, lr=1e-3, rng=0, progress=False)
    ours = time.perf_counter() - t0

    torch.manual_seed(0)
    net = UNetVelocity(n_classes=10, base=32)
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    g = torch.Generator().manual_seed(0)
    t0 = time.perf_counter()
    perm = torch.randperm(len(Xt), generator=g)
    for k in range(steps):
        idx = perm[k * batch:(k + 1) * batch]
        x1, c = Xt[idx], yt[idx].clone()
        c[torch.rand(batch, generator=g) < 0.1] = 10
        x0, t = torch.randn(x1.shape, generator=g), torch.rand(batch, generator=g)
        tb = t[:, None, None, None]
        loss = ((net((1 - tb) * x0 + tb * x1, t, c) - (x1 - x0)) ** 2).reshape(batch, -1).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    plain = time.perf_counter() - t0
    return [{"loop": "FlowMatching.fit (nn.fit)", "steps": steps, "seconds": ours, "s/step": ours / steps},
            {"loop": "plain torch loop", "steps": steps, "seconds": plain, "s/step": plain / steps},
            {"loop": "ratio ours / plain", "steps": steps, "seconds": ours / plain, "s/step": ours / plain}]


def cached_models():
    """Training time (from the cache metadata) and stored sample quality of the two cached flow models."""
    from iclr26sci.nn import digits_flow, fashion_flow

    rows = []
    for name, fn in (("fashion_flow", fashion_flow), ("digits_flow", digits_flow)):
        t0 = time.perf_counter()
        fm = fn(rng=0, progress=False)
        load = time.perf_counter() - t0
        q, meta = fm.sample_quality_, fm.cache_meta_
        rows.append({"model": name, "cached": meta["cached"], "call s": load, "train s": q.get("train_seconds"),
                     "train cpu s": q.get("train_cpu_seconds"), "acc(samples)": q.get("sample_accuracy"),
                     "SE": q.get("sample_accuracy_se"), "acc(real)": q.get("real_accuracy"),
                     "FD": q.get("frechet_distance"), "FD floor": q.get("frechet_floor"),
                     "guidance": q.get("eval_guidance")})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-cached", action="store_true", help="skip the cached models (no cold training)")
    args = ap.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average (1 min) at start: {load:.2f} on {os.cpu_count()} CPUs; threads {args.threads}")
    print_table("UNetVelocity throughput (28x28, 10 classes)", unet_throughput(args.threads))
    print_table("Training loop: FlowMatching.fit vs a plain torch loop (UNet base 32)", fit_vs_plain_loop(args.threads))
    if not args.no_cached:
        print_table("Cached flow models: training time and stored sample quality", cached_models())


if __name__ == "__main__":
    main()
