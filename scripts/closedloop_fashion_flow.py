"""Does the Fashion-MNIST flow generator follow its condition? Re-embedding cosine and class agreement.

The stimulus pool is 2 000 Fashion-MNIST test images (as benchmarks/bench_closedloop.py --fashion), embedded by
the cached classifier's 64-d penultimate layer whitened to 16 dimensions on the pool. A generator is trained
(cached) and judged on 300 pool images x: the cosine between z(G(z(x))) and z(x), and the fraction of G(z(x))
that the classifier puts in the class it gives x. Calibration: the same cosine for a different pool image of
the same (predicted) class and of another class.

Usage: OMP_NUM_THREADS=1 python scripts/closedloop_fashion_flow.py unet N_TRAIN EPOCHS   (or: mlp N_TRAIN EPOCHS)
N_TRAIN = 0 trains on the pool itself (the earlier setting).
"""
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
from data_adapters.vision import load_fashion_mnist  # noqa: E402
from iclr26sci.closedloop import FeatureEmbedder, FlowGenerator  # noqa: E402
from iclr26sci.nn import fashion_classifier  # noqa: E402

arch, n_train, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
X = load_fashion_mnist("test", n=2000, rng=0).images[:, 0].astype(float)
clf = fashion_classifier(rng=0)
emb = FeatureEmbedder(clf.features, 16, input_shape=(1, 28, 28)).fit(X)
Xtr = X if n_train == 0 else load_fashion_mnist("train", n=n_train, rng=0).images[:, 0].astype(float)


def cos(a, b):
    return np.sum(a * b, 1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def label(imgs):
    with torch.no_grad():
        out = clf.predict(np.asarray(imgs, dtype=np.float32).reshape(len(imgs), 1, 28, 28))
    return np.asarray(out.detach().cpu().numpy() if hasattr(out, "detach") else out)


idx = np.random.default_rng(1).choice(len(X), 300, replace=False)
Z, y = emb(X[idx]), label(X[idx])
Zall, yall = emb(X), label(X)
r = np.random.default_rng(2)
same = np.array([r.choice(np.flatnonzero((yall == c) & (np.arange(len(X)) != i))) for c, i in zip(y, idx)])
other = np.array([r.choice(np.flatnonzero(yall != c)) for c in y])
print(f"calibration: cosine z(x) vs z(x') same class {cos(Z, Zall[same]).mean():.3f}, other class "
      f"{cos(Z, Zall[other]).mean():.3f}", flush=True)
kw = {"arch": arch, "epochs": epochs, "rng": 0}
if arch == "mlp":
    kw["hidden"] = (512, 512, 512)
t0 = time.perf_counter()
gen = FlowGenerator(emb, **kw).fit(Xtr)
t1 = time.perf_counter()
G = gen(Z, rng=0)
c = cos(emb(G), Z)
agree = float(np.mean(label(G) == y))
print(f"{arch} on {len(Xtr)} images x {epochs} epochs: loss {gen.train_loss_:.1f} ({gen.train_loss_ / 784:.3f} per "
      f"pixel), fit {t1 - t0:.0f} s incl. cache; recon_cosine_ {gen.recon_cosine_:.3f}; on 300 pool embeddings: "
      f"cosine {c.mean():.3f} (SE {c.std(ddof=1) / np.sqrt(len(c)):.3f}), class agreement {agree:.3f} "
      f"(chance ~0.1); generate {time.perf_counter() - t1:.1f} s", flush=True)
