"""Validation of the cached class-conditional flow models (report section "nn").

Each check draws class-conditional samples from a cached flow model (:func:`iclr26sci.nn.fashion_flow`,
:func:`iclr26sci.nn.digits_flow`) and judges them with a classifier trained on real images:

- the accuracy of the classifier on the samples (is a sample of class c recognised as c?), with its binomial
  standard error, against the same classifier's accuracy on as many held-out real test images (the reference a
  perfect generator reaches at guidance 1);
- the Frechet distance of the samples to held-out real images (in the classifier's feature space for
  Fashion-MNIST, in pixel space for the 8x8 digits), against the Frechet distance of a class-conditional
  Gaussian with the training images' per-class means and covariances (the best "model" that knows only first
  and second moments), and the real-vs-real floor at the same sample size.

The references are computed in the same run. Two broken generators are run through the same criteria and
must fail them: the flow model sampled with shuffled labels (each class's samples labelled with another
class, a derangement) and the moment-matched Gaussian.
"""
from __future__ import annotations

import math

import numpy as np

from ._figstyle import readable
from .registry import CheckResult, Criterion, check

PAPER = ("Lipman et al. (2023) Flow Matching, ICLR; Ho & Salimans (2022) Classifier-free diffusion guidance; "
         "Heusel et al. (2017) GANs trained by a two time-scale update rule (FID), NeurIPS")

#: z-score of the one-sided tests (false-alarm rate about 0.13 % per criterion under the normal approximation)
Z = 3.0
#: bootstrap replicates for the standard error of a difference of Frechet distances
N_BOOT = 200


def _binomial(k, n):
    p = k / n
    return p, math.sqrt(max(p * (1.0 - p), 0.25 / n) / n)   # floor the variance at 1/(4n^2): p = 0 or 1 stays honest


def _derangement(rng, k=10):
    while True:
        p = rng.permutation(k)
        if np.all(p != np.arange(k)):
            return p


def _class_gaussian(x, y, labels, rng):
    """Draws from N(mean_c, cov_c) of the rows of x with label c (flattened), for each entry of labels."""
    shape = x.shape[1:]
    flat = x.reshape(len(x), -1).astype(np.float64)
    out = np.empty((len(labels), flat.shape[1]))
    for c in np.unique(labels):
        rows = flat[y == c]
        mu = rows.mean(0)
        w, v = np.linalg.eigh(np.cov(rows, rowvar=False))
        root = v * np.sqrt(np.clip(w, 0.0, None))
        m = labels == c
        out[m] = mu + rng.standard_normal((int(m.sum()), flat.shape[1])) @ root.T
    return np.clip(out, 0.0, 1.0).reshape(len(labels), *shape).astype(np.float32)


def _fd_with_se(fa, fb, fref, rng, n_boot=N_BOOT):
    """FD(fa, fref) - FD(fb, fref) and its bootstrap SE (resampling the rows of all three sets)."""
    from iclr26sci.nn import frechet_distance

    d = frechet_distance(fb, fref) - frechet_distance(fa, fref)
    reps = np.empty(n_boot)
    for i in range(n_boot):
        ia = rng.integers(0, len(fa), len(fa))
        ib = rng.integers(0, len(fb), len(fb))
        ir = rng.integers(0, len(fref), len(fref))
        reps[i] = frechet_distance(fb[ib], fref[ir]) - frechet_distance(fa[ia], fref[ir])
    return d, float(reps.std(ddof=1))


def _judge_samples(name, samples, labels, predict, features, real_x, real_y, floor_x, ref_x, gauss_x, rng,
                   fd_criterion=True):
    """Accuracies, Frechet distances and criteria for a flow model's samples and the references.

    ``real_x, real_y``: held-out real images for the accuracy reference; ``ref_x``: the real images the Frechet
    distances are measured to; ``floor_x``: other real images, whose distance to ``ref_x`` is the floor.
    """
    from iclr26sci.nn import frechet_distance

    n = len(labels)
    pred = predict(samples)
    acc, se = _binomial(int(np.sum(pred == labels)), n)
    acc_r, se_r = _binomial(int(np.sum(predict(real_x) == real_y)), len(real_y))
    perm = _derangement(rng)
    acc_s, se_s = _binomial(int(np.sum(pred == perm[labels])), n)
    acc_g, se_g = _binomial(int(np.sum(predict(gauss_x) == labels)), n)
    f_s, f_r, f_g, ref_feats = features(samples), features(floor_x), features(gauss_x), features(ref_x)
    fd = frechet_distance(f_s, ref_feats)
    fd_floor = frechet_distance(f_r, ref_feats)
    fd_gauss = frechet_distance(f_g, ref_feats)
    gap, gap_se = _fd_with_se(f_s, f_g, ref_feats, rng) if fd_criterion else (fd_gauss - fd, float("nan"))
    z_acc = (acc - acc_r) / math.hypot(se, se_r)
    z_shuf = (acc_s - acc_r) / math.hypot(se_s, se_r)
    z_fd = gap / gap_se if fd_criterion else float("nan")
    crit = [Criterion(f"{name}: sample accuracy minus real-image accuracy, in SE (>= -{Z:g})", z_acc, -Z, ">=")]
    if fd_criterion:
        crit.append(Criterion(f"{name}: FD(Gaussian) - FD(flow), in bootstrap SE (>= {Z:g})", z_fd, Z, ">="))
    crit.append(Criterion(f"{name}: power, shuffled-label samples fail the accuracy test (z < -{Z:g})", z_shuf, -Z,
                          "<"))
    table = [
        {"model": f"{name}: flow samples", "n": n, "accuracy": acc, "SE": se, "frechet": fd},
        {"model": f"{name}: real images (reference, floor)", "n": len(real_y), "accuracy": acc_r, "SE": se_r,
         "frechet": fd_floor},
        {"model": f"{name}: per-class Gaussian (moment-matched reference)", "n": n, "accuracy": acc_g, "SE": se_g, "frechet": fd_gauss},
        {"model": f"{name}: shuffled labels (broken)", "n": n, "accuracy": acc_s, "SE": se_s, "frechet": fd},
    ]
    extra = {"accuracy": acc, "accuracy_se": se, "real_accuracy": acc_r, "real_accuracy_se": se_r,
             "frechet": fd, "frechet_floor": fd_floor, "frechet_gaussian": fd_gauss, "fd_gap_se": gap_se,
             "fd_gap_z": z_fd, "shuffled_accuracy": acc_s, "gaussian_accuracy": acc_g}
    return crit, table, extra


def _figure(samples, labels, shape, title):
    """One mosaic: a row of k samples per class (class index on the y axis), one shared grey scale."""
    import matplotlib.pyplot as plt

    k, (h, w) = 8, shape
    mosaic = np.full((10 * (h + 1) - 1, k * (w + 1) - 1), np.nan)
    for c in range(10):
        rows = samples[labels == c][:k]
        for j in range(min(k, len(rows))):
            mosaic[c * (h + 1):c * (h + 1) + h, j * (w + 1):j * (w + 1) + w] = rows[j].reshape(shape)
    fig, ax = plt.subplots(figsize=(6.2, 7.2))
    im = ax.imshow(mosaic, cmap="gray", vmin=0, vmax=1)
    ax.set_yticks([c * (h + 1) + (h - 1) / 2 for c in range(10)], [str(c) for c in range(10)])
    ax.set_xticks([])
    ax.set_ylabel("conditioning class")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, fraction=0.046, label="pixel intensity")
    readable(fig)
    return fig


def _draw(fm, labels, rng, steps, solver, guidance):
    from iclr26sci.nn._pretrained_flow import _sample

    seed = int(rng.integers(0, 2 ** 31 - 1))
    return np.clip(_sample(fm, labels, steps=steps, solver=solver, guidance=guidance, rng=seed), 0.0, 1.0)


@check(method="nn", paper=PAPER, budget=240,
       guarantee="Class-conditional samples of the cached Fashion-MNIST flow model (U-Net, guidance 2, Heun 20 "
                 "steps) are recognised by the cached Fashion-MNIST classifier as their conditioning class not "
                 "significantly less often than held-out real test images are (z >= -3), and their Frechet "
                 "distance to real test images in the classifier's feature space is significantly below that of "
                 "a class-conditional Gaussian with the training images' per-class means and covariances "
                 "(>= 3 bootstrap SE); the same accuracy test rejects the flow sampled with shuffled labels")
def fashion_flow_samples_recognised(profile, rng):
    from data_adapters.vision import load_fashion_mnist

    from iclr26sci.nn import fashion_classifier, fashion_flow
    from iclr26sci.nn._pretrained_flow import FASHION_EVAL

    n = profile.pick(1000, 5000)
    fm = fashion_flow(rng=0, progress=False)
    clf = fashion_classifier(rng=0, progress=False)
    train, test = load_fashion_mnist("train"), load_fashion_mnist("test")
    labels = np.arange(n) % 10
    ev = FASHION_EVAL
    samples = _draw(fm, labels, rng, ev["steps"], ev["solver"], ev["guidance"])
    perm = rng.permutation(len(test))
    real, ref = test.subset(np.sort(perm[:n])), test.subset(np.sort(perm[n:2 * n]))
    gauss = _class_gaussian(train.images, train.labels, labels, rng)
    crit, table, extra = _judge_samples("fashion", samples, labels, clf.predict, clf.features, real.images,
                                        real.labels, real.images, ref.images, gauss, rng)
    q = fm.sample_quality_
    extra.update(cached_quality=q, train_seconds=q.get("train_seconds"), train_cpu_seconds=q.get("train_cpu_seconds"))
    details = (f"{n} flow samples (100 per class at quick) vs {n} held-out test images; the Frechet distances are "
               f"to another {n} test images, in the 64-d penultimate features of the classifier "
               f"(clean accuracy {clf.clean_accuracy_:.4f}). SE of accuracies: binomial; SE of the Frechet gap: "
               f"{N_BOOT} bootstrap replicates. Catches: an untrained or mis-conditioned model, labels ignored or "
               "permuted (shuffled-label row), a generator no better than per-class Gaussians (Gaussian row).")
    return CheckResult(criteria=crit, table=table, details=details, extra=extra,
                       figure=_figure(samples, labels, (28, 28), "fashion_flow samples, one class per row"))


@check(method="nn", paper=PAPER, budget=45,
       guarantee="Class-conditional samples of the cached digits flow model (MLP, no guidance, Heun 20 steps) are "
                 "recognised by a logistic regression trained on the digits training split not significantly "
                 "less often than the held-out test digits are (z >= -3); the same test rejects the flow sampled "
                 "with shuffled labels; the Frechet distance in pixel space is reported with its real-data floor")
def digits_flow_samples_recognised(profile, rng):
    from iclr26sci.nn import digits_flow
    from iclr26sci.nn._pretrained_flow import DIGITS_DEFAULTS, DIGITS_EVAL, _digits_split, digits_judge

    n = profile.pick(1000, 5000)
    fm = digits_flow(rng=0, progress=False)
    (xtr, ytr), (xte, yte) = _digits_split(DIGITS_DEFAULTS["test_fraction"], DIGITS_DEFAULTS["split_seed"])
    judge = digits_judge((xtr, ytr))
    labels = np.arange(n) % 10
    ev = DIGITS_EVAL
    samples = _draw(fm, labels, rng, ev["steps"], ev["solver"], ev["guidance"])
    gauss = _class_gaussian(xtr, ytr, labels, rng)
    # only 359 test digits: they are the accuracy reference and the Frechet reference; the floor is the
    # distance of as many training digits as samples to them
    floor = xtr[rng.choice(len(xtr), size=min(n, len(xtr)), replace=False)]
    crit, table, extra = _judge_samples("digits", samples, labels, lambda x: judge.predict(np.asarray(x, np.float64)),
                                        lambda x: np.asarray(x, np.float64).reshape(len(x), -1), xte, yte, floor,
                                        xte, gauss, rng, fd_criterion=False)
    table[1]["model"] = "digits: real test digits (accuracy); training digits (Frechet floor)"
    q = fm.sample_quality_
    extra.update(cached_quality=q, train_seconds=q.get("train_seconds"), train_cpu_seconds=q.get("train_cpu_seconds"))
    details = (f"{n} flow samples vs the {len(yte)} held-out test digits (a fixed 20 % split); judge: sklearn "
               "LogisticRegression (C = 1, lbfgs) on the 1 438 training digits (pixels / 16), the reward of the "
               "TempFlow-GRPO digits analogue. The Frechet distance is in the 64-d pixel space, reported with "
               "its floor (training vs test digits) and the per-class Gaussian's, but not thresholded: in pixel "
               "space a per-class moment-matched Gaussian reproduces exactly the two moments the Frechet distance "
               "compares, so it is no broken reference there. Catches: an untrained or mis-conditioned model, "
               "labels ignored or permuted (shuffled-label row).")
    return CheckResult(criteria=crit, table=table, details=details, extra=extra,
                       figure=_figure(samples, labels, (8, 8), "digits_flow samples, one class per row"))
