"""Benchmark of PEA test-time adaptation against six baselines on Fashion-MNIST-C (and the ported CIFAR-10 CNN).

Tables:

1. Fashion-MNIST-C, severity 5, all 14 grey corruptions of the CIFAR-10-C engine, continual order, batch 64,
   for the BatchNorm ResNet and the LayerNorm ViT: mean accuracy and ECE over corruptions, wall / CPU time per
   batch, peak RSS increase, forward / backward passes per batch, time and memory ratios to NoAdapt and Tent;
   then per-corruption accuracy and ECE tables.
2. Cost: a 64-image PEA batch against 2(K+1) = 6 plain forwards, side by side.
3. The ported CIFAR-10 CNN (``cifar-10-model``, trained by someone else) on corrupted 32-px patches of the
   scikit-image sample photographs: agreement of the adapted predictions on corrupted patches with the
   unadapted predictions on the clean patches (its clean accuracy on these patches is undefined).

Run: ``python benchmarks/bench_adaptation.py [--quick] [--models resnet,vit] [--no-cifar]``.
``--quick``: 128 test images per corruption (full: 1000). Times are CPU-load dependent; ratios measured
in one process are the comparable numbers.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

METHODS = ["none", "bn", "tent", "t3a", "lame", "foa", "neo", "pea", "pea-mv", "pea-switch", "pea-1pass"]


def vit_model():
    """A SmallViT (dim 64, depth 4, patch 4) trained on 15k clean Fashion-MNIST images for 4 epochs, cached."""
    import torch

    from data_adapters.vision import load_fashion_mnist
    from iclr26sci.nn import SmallViT, cached_model

    settings = {"dim": 64, "depth": 4, "heads": 4, "patch": 4, "n_train": 15000, "epochs": 4, "lr": 2e-3}

    def factory():
        return SmallViT(n_classes=10, image_size=28, patch_size=4, dim=64, depth=4, heads=4)

    def build():
        tr = load_fashion_mnist("train", n=15000, rng=0)
        te = load_fashion_mnist("test", n=2000, rng=0)
        m = factory().fit(tr, epochs=4, batch_size=128, lr=2e-3, rng=0, progress=False)
        return m, {"clean_accuracy_2k": m.score(te)}

    with torch.random.fork_rng(devices=[]):
        model, meta = cached_model("adaptation-fashion-vit", settings, 0, build, factory)
    return model.eval(), f"SmallViT d64x4 (clean acc {meta['metrics']['clean_accuracy_2k']:.3f} on 2k)"


def fashion_part(kind, n_per, seed=0):
    import torch

    from data_adapters.corruptions import corrupt_images
    from data_adapters.vision import load_fashion_mnist
    from iclr26sci.adaptation import CorruptedStream, SourceStats, baselines
    from validation.adaptation import fashion_model

    model, name = fashion_model() if kind == "resnet" else vit_model()
    src = load_fashion_mnist("train", n=2000, rng=123)
    stats = SourceStats.fit(model, src.images, group_size="auto")
    te = load_fashion_mnist("test", n=max(n_per, 64) * 2, rng=seed + 1)
    stream = CorruptedStream(te, corruptions="all", severity=5, order="continual", batch_size=64, rng=seed,
                             corrupt=functools.partial(corrupt_images, backend="cifar-c"), n_per_domain=n_per)
    t0 = time.perf_counter()
    res = baselines.compare(model, stats, stream, methods=METHODS, progress=False, rng=seed)
    print(f"\n## Fashion-MNIST-C severity 5, continual, batch 64 -- {kind}: {name}; {n_per} images x "
          f"{len(stream.domains)} corruptions ({res.n_batches} batches), {time.perf_counter() - t0:.0f} s, "
          f"torch threads {torch.get_num_threads()}")
    print(res.summary())
    print("CPU ms per batch (process time; the wall times above include waiting for a loaded machine): " +
          ", ".join(f"{k} {1000 * v['cpu_sec_per_batch']:.1f}" for k, v in res.methods.items()
                    if v.get("accuracy") is not None))
    if os.environ.get("BENCH_JSON"):
        import json

        with open(f"{os.environ['BENCH_JSON']}-{kind}.json", "w") as f:
            json.dump(res.to_dict(), f, default=float)
    print("\naccuracy % per corruption")
    print(res.domain_table("accuracy"))
    print("\nECE % per corruption")
    print(res.domain_table("ece"))
    m = res.methods
    bpf = [k for k in ("t3a", "lame", "neo", "foa") if m.get(k, {}).get("accuracy") is not None]
    best = max(bpf, key=lambda k: m[k]["accuracy"])
    print(f"\ngoal: PEA {100 * m['pea']['accuracy']:.2f} vs best backprop-free ({best}) {100 * m[best]['accuracy']:.2f}; "
          f"vs Tent {100 * m['tent']['accuracy']:.2f} (PEA - Tent = {100 * (m['pea']['accuracy'] - m['tent']['accuracy']):+.2f} pp); "
          f"peak MiB PEA {m['pea']['peak_mb']:.1f} vs Tent {m['tent']['peak_mb']:.1f}; PEA backward/batch "
          f"{m['pea']['backward_per_batch']:.0f}")
    ones = baselines.compare(model, stats, stream, methods=["pea"], pea_kwargs={"layer_weights": "ones"},
                             progress=False)
    print(f"ablation: PEA with every block fully aligned (layer_weights='ones'): accuracy "
          f"{100 * ones.methods['pea']['accuracy']:.2f}, ECE {100 * ones.methods['pea']['ece']:.2f} "
          f"(min-max weights: {100 * m['pea']['accuracy']:.2f}, {100 * m['pea']['ece']:.2f})")
    by = {(r["method"], r["domain"]): r["accuracy"] for r in res.rows}
    loses = [d for d in res.domains if by[("pea", d)] < by[("none", d)]]
    print(f"PEA below NoAdapt on: {', '.join(loses) if loses else 'none'}; below Tent on: "
          f"{', '.join(d for d in res.domains if by[('pea', d)] < by[('tent', d)]) or 'none'}")
    mv_table(model, stats, stream, res)
    return model, stats, te, res


def mv_table(model, stats, stream, res):
    """What the reachable MV branch changes: CORAL vs MV vs the official switching rule, per corruption.

    ``alignment="switch"`` is the official rule made reachable (MV for blocks with 1e-3 <= w < 0.5, CORAL
    above); the table gives the accuracy / ECE differences to CORAL and, from a separate switch run on the same
    stream, the share of aligned block evaluations that took the MV branch.
    """
    from iclr26sci.adaptation import PEAAdapter

    ad = PEAAdapter(model, stats, alignment="switch")
    for b in stream:
        ad.predict(b.images)
    kinds = [k for h in ad.history_ for k in h["alignment"]]
    n_mv, n_coral, n_skip = kinds.count("mv"), kinds.count("coral"), kinds.count("skip")
    rows = {(r["method"], r["domain"]): r for r in res.rows}
    print(f"\nMV vs CORAL (accuracy / ECE in %; differences to CORAL in pp). Switch run: of "
          f"{len(kinds)} (block, batch) pairs {n_mv} took MV, {n_coral} CORAL, {n_skip} skipped")
    print(f"{'domain':<22s} {'coral acc':>9s} {'mv-coral':>9s} {'sw-coral':>9s} {'coral ECE':>9s} {'mv-coral':>9s} "
          f"{'sw-coral':>9s}")
    for d in res.domains + ["mean"]:
        if d == "mean":
            get = lambda m, k: res.methods[m][k]  # noqa: E731
        else:
            get = lambda m, k: rows[(m, d)][k]  # noqa: E731
        c = [100 * get("pea", k) for k in ("accuracy", "ece")]
        mv = [100 * get("pea-mv", k) for k in ("accuracy", "ece")]
        sw = [100 * get("pea-switch", k) for k in ("accuracy", "ece")]
        print(f"{d:<22s} {c[0]:9.2f} {mv[0] - c[0]:+9.2f} {sw[0] - c[0]:+9.2f} {c[1]:9.2f} {mv[1] - c[1]:+9.2f} "
              f"{sw[1] - c[1]:+9.2f}")


def cost_part(model, stats, te, reps=21, name=""):
    """One 64-image PEA batch against 2(K+1) = 6 plain forwards of the same batch, side by side.

    Plain and PEA runs alternate (``reps`` pairs, single-thread CPU time), so a load change hits both; the
    per-pair ratios give the median and the interquartile range, and the ratio of the two minima (the least
    disturbed runs) is printed too. The PEA batch is a corrupted one (gaussian_noise 5), so blocks are aligned.
    """
    import torch

    from data_adapters.corruptions import corrupt_images
    from iclr26sci.adaptation import PEAAdapter

    x = torch.from_numpy(corrupt_images(te.images[:64], "gaussian_noise", 5, rng=0, backend="cifar-c"))
    pea = PEAAdapter(model, stats)
    k = 2 * len(pea._views)
    for _ in range(3):
        pea.predict(x)
    plain, ad = [], []
    for _ in range(reps):
        c0 = time.process_time()
        with torch.no_grad():
            for _ in range(k):
                model(x)
        plain.append(time.process_time() - c0)
        c0 = time.process_time()
        pea.predict(x)
        ad.append(time.process_time() - c0)
    plain, ad = np.asarray(plain), np.asarray(ad)
    r = ad / plain
    q1, med, q3 = np.percentile(r, [25, 50, 75])
    print(f"\n## cost {name}: one 64-image PEA batch vs {k} plain forwards, {reps} alternating pairs, CPU s at "
          f"{torch.get_num_threads()} thread(s): PEA {np.median(ad):.4f}, plain {np.median(plain):.4f}; ratio median "
          f"{med:.3f} (IQR {q1:.3f}-{q3:.3f}), ratio of minima {ad.min() / plain.min():.3f} (goal <= 1.20); "
          f"layer weights {np.round(pea.history_[-1]['weights'], 3)}")
    return float(med)


def _patches(size=32, stride=16):
    from skimage import data
    from skimage.transform import resize

    names = ["astronaut", "coffee", "chelsea", "rocket", "immunohistochemistry", "hubble_deep_field", "retina",
             "colorwheel", "cat", "coins", "camera", "grass", "gravel", "brick"]
    left, right = [], []
    for n in names:
        try:
            im = getattr(data, n)()
        except Exception:  # noqa: BLE001 -- an image missing from this scikit-image
            continue
        im = im.astype(np.float64) / (255.0 if im.dtype == np.uint8 else max(1.0, float(im.max())))
        if im.ndim == 2:
            im = np.stack([im] * 3, -1)
        im = im[..., :3]
        h, w = im.shape[:2]
        sc = 256 / max(h, w)
        im = resize(im, (int(h * sc), int(w * sc)), anti_aliasing=True)
        h, w = im.shape[:2]
        for i in range(0, h - size + 1, stride):
            for j in range(0, w - size + 1, stride):
                p = im[i:i + size, j:j + size].transpose(2, 0, 1)
                (left if j + size <= w // 2 else right if j >= w // 2 else []).append(p)
    return np.asarray(left, np.float32), np.asarray(right, np.float32)


def cifar_part(seed=0):
    import torch
    import torch.nn as tnn

    from data_adapters.corruptions import corrupt_images
    from data_adapters.vision import load_cifar10_cnn
    from iclr26sci.adaptation import PEAAdapter, SourceStats

    net = load_cifar10_cnn()

    class Scaled(tnn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            return self.net(x * 255.0)

    model = Scaled(net).eval()
    src, test = _patches()
    stats = SourceStats.fit(model, src, modules=list(net.blocks), group_size=32)
    with torch.no_grad():
        ref = torch.cat([model(torch.from_numpy(test[i:i + 256])) for i in range(0, len(test), 256)]).argmax(1).numpy()
    rows = []
    for corr in ("gaussian_noise", "defocus_blur", "contrast", "jpeg_compression"):
        x = corrupt_images(test, corr, 5, rng=seed, backend="cifar-c")
        pea = PEAAdapter(model, stats)
        a0, a1 = [], []
        for i in range(0, len(x), 64):
            xb = torch.from_numpy(x[i:i + 64])
            with torch.no_grad():
                a0.append(model(xb).argmax(1).numpy())
            a1.append(pea.predict(xb).argmax(1).numpy())
        a0, a1 = np.concatenate(a0), np.concatenate(a1)
        rows.append((corr, float((a0 == ref).mean()), float((a1 == ref).mean())))
    print(f"\n## ported CIFAR-10 CNN on {len(src)} source / {len(test)} test 32-px patches (right halves), severity 5: "
          "agreement with the clean-patch predictions")
    print(f"{'corruption':<18s} {'NoAdapt':>8s} {'PEA':>8s}")
    for c, a, b in rows:
        print(f"{c:<18s} {100 * a:8.2f} {100 * b:8.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="128 images per corruption instead of 1000")
    ap.add_argument("--models", default="resnet,vit")
    ap.add_argument("--no-cifar", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-per", type=int, default=None, help="images per corruption (overrides --quick)")
    args = ap.parse_args(argv)
    n_per = args.n_per or (128 if args.quick else 1000)
    for kind in args.models.split(","):
        model, stats, te, _ = fashion_part(kind, n_per, args.seed)
        cost_part(model, stats, te, name=kind)
    if not args.no_cifar:
        cifar_part(args.seed)


if __name__ == "__main__":
    main()
