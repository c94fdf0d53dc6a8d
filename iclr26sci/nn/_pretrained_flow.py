"""Train-once class-conditional flow models of Fashion-MNIST (a U-Net) and of sklearn's digits (an MLP).

Both are :class:`~iclr26sci.nn.FlowMatching` models on the linear path (t = 0 noise, t = 1 data) with
classifier-free guidance, cached under :func:`~iclr26sci.nn.cache_dir` by
:func:`~iclr26sci.nn.cached_model`, and stored with their measured sample quality: the accuracy of a
classifier on class-conditional samples (with its binomial standard error) and the Frechet distance of
the samples to held-out real images, next to the same numbers for the real images themselves.
"""
from __future__ import annotations

import hashlib
import math
from numbers import Integral

import numpy as np

from iclr26sci.core import InputError, check_bool, check_positive_int

__all__ = ["fashion_flow", "digits_flow"]

#: how the Fashion-MNIST flow model is trained by default (a change retrains: it is part of the cache key)
FASHION_DEFAULTS = {
    "n_train": 60000, "epochs": 1, "batch_size": 128, "lr": 2e-3, "schedule": "onecycle",
    "arch": {"base": 32, "channel_mult": [1, 2], "n_res": 1, "patch": 2},
    "p_uncond": 0.1, "path": "linear", "data_range": [0.0, 1.0],
}
#: how the digits flow model is trained by default
DIGITS_DEFAULTS = {
    "epochs": 300, "batch_size": 128, "lr": 2e-3, "schedule": "onecycle",
    "arch": {"hidden": [256, 256, 256], "emb_dim": 32, "n_freq": 4},
    "p_uncond": 0.1, "path": "linear", "test_fraction": 0.2, "split_seed": 0,
}
#: how the stored sample quality is measured (class-balanced samples, ODE solver, guidance weight)
FASHION_EVAL = {"n": 500, "steps": 20, "solver": "heun", "guidance": 2.0, "seed": 12345}
DIGITS_EVAL = {"n": 500, "steps": 20, "solver": "heun", "guidance": 1.0, "seed": 12345}

FASHION_CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
                   "Ankle boot")


# ------------------------------------------------------------------------------------------------ helpers
def _check_seed(rng) -> int:
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (Integral, np.integer)) or int(rng) < 0:
        raise InputError("rng", f"got {rng!r}", "a non-negative integer training seed (the cache is keyed by it)")
    return int(rng)


def _eval_kwargs(ev: dict) -> dict:
    """The evaluation settings (stored in the cache key under ``seed``) as keyword arguments (``rng``)."""
    out = dict(ev)
    out["rng"] = out.pop("seed")
    return out


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.shape).encode() + str(a.dtype).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _fashion_arrays(split: str):
    """Fashion-MNIST ``split`` ("train" / "test") as float32 images (n, 1, 28, 28) in [0, 1] and int64 labels."""
    from ._pretrained_cls import _fashion

    return _fashion(split).arrays()


def _check_imageset(value, name: str, shape, n_classes: int):
    from ._data import ImageSet

    if not isinstance(value, ImageSet):
        raise InputError(name, f"got {type(value).__name__}", f"an ImageSet of {shape} images (or None)")
    if tuple(value.shape) != tuple(shape):
        raise InputError(name, f"holds images of shape {value.shape}", f"images of shape {tuple(shape)}")
    if value.n_classes != n_classes:
        raise InputError(name, f"has {value.n_classes} classes", f"{n_classes} classes")
    return value


def _balanced_labels(n: int, n_classes: int) -> np.ndarray:
    return np.arange(n) % n_classes


def _binomial(k: int, n: int) -> tuple[float, float]:
    p = k / n
    return p, math.sqrt(max(p * (1 - p), 0.0) / n)


def _sample(fm, labels, *, steps, solver, guidance, rng, batch=500):
    """Class-conditional samples ``x ~ p(x | label)`` for every entry of ``labels``, in batches."""
    from ._flow import ode_sample
    from iclr26sci.core import spawn

    out = []
    seeds = spawn(rng, math.ceil(len(labels) / batch))
    for i, s in enumerate(seeds):
        lab = labels[i * batch:(i + 1) * batch]
        res = ode_sample(fm, n=len(lab), cond=lab, steps=steps, solver=solver, guidance=guidance, rng=s)
        out.append(res.numpy().astype(np.float32))
    return np.concatenate(out)


def _restore(net, meta, n_train, **params):
    """Wrap a cached velocity network into a fitted FlowMatching (without retraining)."""
    from ._flow import FlowMatching

    fm = FlowMatching(net, **params)
    fm.event_shape_ = tuple(net.event_shape)
    fm.n_classes_ = net.n_classes
    fm.cond_dim_ = net.cond_dim
    fm.n_train_ = int(n_train)
    fm.cache_meta_ = meta
    fm.sample_quality_ = dict(meta["metrics"])
    return fm


# ------------------------------------------------------------------------------------------------ quality
def fashion_sample_quality(fm, classifier, real, *, n=500, steps=20, solver="heun", guidance=2.0, rng=12345,
                           reference=None):
    """Measured quality of class-conditional samples of ``fm``, judged by ``classifier``.

    Draws ``n`` samples, ``n / 10`` per class (labels ``0..9`` cycled), clips them to ``[0, 1]`` and returns
    the classifier's accuracy on them (how often the predicted class is the conditioning class), its
    binomial standard error, and the Frechet distance between the classifier's features of the samples and
    of ``n`` real images of ``real``; the same two numbers for ``n`` real images of ``reference`` (another
    real set, e.g. held-out training images) give the floor that a perfect generator would reach at this
    sample size.
    """
    from ._fid import frechet_distance

    labels = _balanced_labels(n, 10)
    x = np.clip(_sample(fm, labels, steps=steps, solver=solver, guidance=guidance, rng=rng), 0.0, 1.0)
    xr, yr = real
    rs = np.random.default_rng(rng)
    ir = rs.choice(len(xr), size=min(n, len(xr)), replace=False)
    feats_real = _features(classifier, xr[ir])
    acc, se = _binomial(int(np.sum(_predict(classifier, x) == labels)), n)
    out = {"sample_accuracy": acc, "sample_accuracy_se": se,
           "frechet_distance": frechet_distance(_features(classifier, x), feats_real),
           "real_accuracy": None, "real_accuracy_se": None, "frechet_floor": None,
           "n_eval": int(n), "eval_steps": int(steps), "eval_solver": solver, "eval_guidance": float(guidance)}
    if reference is not None:
        xf, yf = reference
        jf = rs.choice(len(xf), size=min(n, len(xf)), replace=False)
        racc, rse = _binomial(int(np.sum(_predict(classifier, xf[jf]) == yf[jf])), len(jf))
        out.update(real_accuracy=racc, real_accuracy_se=rse,
                   frechet_floor=frechet_distance(_features(classifier, xf[jf]), feats_real))
    return out


def _predict(classifier, x):
    return np.asarray(classifier.predict(np.ascontiguousarray(x, dtype=np.float32)))


def _features(classifier, x):
    f = classifier.features(np.ascontiguousarray(x, dtype=np.float32))
    if hasattr(f, "detach"):
        f = f.detach().cpu().numpy()
    return np.asarray(f, dtype=np.float64)


# ------------------------------------------------------------------------------------------------ Fashion
def fashion_flow(rng=0, *, train=None, test=None, n_train=None, epochs=None, classifier=None, evaluate=True,
                 rebuild=False, progress=True, device=None):
    r"""A class-conditional flow model of Fashion-MNIST, trained once and cached.

    The model is :class:`~iclr26sci.nn.FlowMatching` on the linear path with a
    :class:`~iclr26sci.nn.UNetVelocity` (``base=32``, two levels 14x14 and 7x7 after a 2x2 space-to-depth
    fold, 0.6 M parameters), trained on the images in ``[0, 1]`` with their labels, dropping a label with
    probability 0.1 so that classifier-free guidance works:

    .. math:: \min_\theta\ E_{t, x_0, (x_1, c)} \lVert v_\theta((1-t)x_0 + t x_1, t, c) - (x_1 - x_0)\rVert^2,
              \quad x_0 \sim N(0, I),\ t \sim U[0, 1].

    Samples come from :func:`~iclr26sci.nn.ode_sample` (``t = 0`` noise to ``t = 1`` images; clip to ``[0, 1]``
    before showing them to a classifier). When first built, the sample quality is measured and stored in
    the cache metadata: the accuracy of ``classifier`` (default :func:`~iclr26sci.nn.fashion_classifier`) on
    class-conditional samples with its binomial standard error, and the Frechet distance in the classifier's
    feature space to real test images, with the same two numbers for real (training) images as the floor.

    Parameters
    ----------
    rng : int >= 0, default 0
        Training seed (initial weights, shuffles, noise); part of the cache key.
    train, test : ImageSet, optional
        The Fashion-MNIST train / test images (e.g. ``data_adapters.vision.load_fashion_mnist``); by default
        they are read from the Debian package ``dataset-fashion-mnist``. Their content hash is part of the key.
    n_train : int, optional
        Train on the first ``n_train`` training images (default all 60 000).
    epochs : int, optional
        Passes over the training images (default 1: 469 steps of 128 images, about 3 minutes on 2 cores).
    classifier : SmallResNet-like, optional
        The judge of the stored sample quality (``predict`` and ``features`` on ``(n, 1, 28, 28)`` arrays);
        default the cached :func:`~iclr26sci.nn.fashion_classifier`.
    evaluate : bool, default True
        Measure and store the sample quality when building (False: store only the training losses).
    rebuild : bool, default False
        Retrain even when a cached model exists.
    progress : bool, default True
        Progress bar while training (on a terminal only).
    device : str, optional
        Device to train on (default cpu); the cached model is returned on the cpu.

    Returns
    -------
    FlowMatching
        Fitted, with ``velocity_net`` a :class:`UNetVelocity` in eval mode, ``sample_quality_`` (the stored
        metrics: ``sample_accuracy``, ``sample_accuracy_se``, ``frechet_distance``, ``real_accuracy``,
        ``frechet_floor``, the evaluation settings, ``train_loss``) and ``cache_meta_`` (the whole entry).

    See Also
    --------
    digits_flow : the same for sklearn's 8x8 digits.

    Examples
    --------
    >>> from iclr26sci.nn import fashion_flow, ode_sample
    >>> fm = fashion_flow(rng=0)                                   # doctest: +SKIP
    >>> x = ode_sample(fm, n=10, cond=list(range(10)), steps=20, solver="heun", guidance=2.0).x   # doctest: +SKIP
    >>> fashion_flow(rng=0, epochs=0)
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `epochs`: got 0; expected an integer >= 1
    """
    from ._cache import cached_model
    from ._flow import FlowMatching
    from ._unet import UNetVelocity

    seed = _check_seed(rng)
    settings = {k: (dict(v) if isinstance(v, dict) else v) for k, v in FASHION_DEFAULTS.items()}
    if n_train is not None:
        settings["n_train"] = check_positive_int(n_train, "n_train", minimum=10)
    if epochs is not None:
        settings["epochs"] = check_positive_int(epochs, "epochs")
    evaluate = check_bool(evaluate, "evaluate")
    check_bool(rebuild, "rebuild")
    check_bool(progress, "progress")
    if device is not None:                   # checked before the cache is read: a cache hit must not hide it
        from ._train import _check_device

        _check_device(device)
    if train is not None:
        train = _check_imageset(train, "train", (1, 28, 28), 10)
    if test is not None:
        test = _check_imageset(test, "test", (1, 28, 28), 10)
    if classifier is not None and not (callable(getattr(classifier, "predict", None))
                                       and callable(getattr(classifier, "features", None))):
        raise InputError("classifier", f"got {type(classifier).__name__}",
                         "a classifier with predict(X) and features(X) (e.g. a fitted SmallResNet), or None")
    if train is None:
        xtr, ytr = _fashion_arrays("train")
        settings["data"] = "fashion-mnist/train (Debian)"
    else:
        xtr, ytr = train.arrays()
        settings["data"] = f"ImageSet:{_digest(xtr, ytr)}"
    if settings["n_train"] > len(xtr):
        raise InputError("n_train", f"is {settings['n_train']} but the training set holds {len(xtr)} images",
                         f"at most {len(xtr)}")
    if evaluate:
        settings["eval"] = dict(FASHION_EVAL)
        settings["judge"] = "fashion_classifier(rng=0)" if classifier is None else "custom"
    arch = dict(n_classes=10, in_channels=1, image_size=28, base=settings["arch"]["base"],
                channel_mult=tuple(settings["arch"]["channel_mult"]), n_res=settings["arch"]["n_res"],
                patch=settings["arch"]["patch"])
    n = settings["n_train"]
    fm_params = dict(path=settings["path"], p_uncond=settings["p_uncond"])
    built = {}

    def factory():
        return UNetVelocity(**arch)

    def build():
        import torch

        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            net = factory()
        fm = FlowMatching(net, **fm_params).fit(
            xtr[:n], ytr[:n], epochs=settings["epochs"], batch_size=settings["batch_size"], lr=settings["lr"],
            schedule=settings["schedule"], rng=seed, progress=progress, device=device)
        net.cpu()
        metrics = {"train_loss": [float(v) for v in fm.fit_result_.train_loss],
                   "train_seconds": float(fm.fit_result_.seconds),
                   "train_cpu_seconds": float(fm.fit_result_.cpu_seconds)}
        if evaluate:
            judge = classifier
            if judge is None:
                from ._pretrained_cls import fashion_classifier

                judge = fashion_classifier(rng=0)
            xte, yte = test.arrays() if test is not None else _fashion_arrays("test")
            ev = dict(FASHION_EVAL)
            rest = np.arange(n, len(xtr)) if n + ev["n"] <= len(xtr) else np.arange(len(xtr))
            metrics.update(fashion_sample_quality(fm, judge, (xte, yte), reference=(xtr[rest], ytr[rest]),
                                                  **_eval_kwargs(ev)))
        built["fm"] = fm
        return net, metrics

    net, meta = cached_model("fashion-flow", settings, seed, build, factory, rebuild=rebuild)
    fm = _restore(net, meta, n, **fm_params)
    if "fm" in built:
        fm.fit_result_ = built["fm"].fit_result_
    return fm


# ------------------------------------------------------------------------------------------------ digits
def _digits_split(test_fraction: float, split_seed: int):
    """sklearn's digits as (n, 64) float32 in [0, 1] (pixels / 16) with a fixed seeded train/test split."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int64)
    perm = np.random.default_rng(split_seed).permutation(len(x))
    n_test = int(round(test_fraction * len(x)))
    te, tr = np.sort(perm[:n_test]), np.sort(perm[n_test:])
    return (x[tr], y[tr]), (x[te], y[te])


def digits_judge(train):
    """The digits classifier: multinomial logistic regression (lbfgs, C = 1) on the pixels / 16."""
    from sklearn.linear_model import LogisticRegression

    x, y = train
    return LogisticRegression(C=1.0, max_iter=2000).fit(x.astype(np.float64), y)


def digits_sample_quality(fm, judge, test, *, n=500, steps=20, solver="heun", guidance=2.0, rng=12345,
                          reference=None):
    """Sample quality of a digits flow model: judge accuracy on class-conditional samples (binomial SE) and
    the Frechet distance in pixel space (64-d) to the test digits; the floor from ``reference`` digits."""
    from ._fid import frechet_distance

    labels = _balanced_labels(n, 10)
    x = np.clip(_sample(fm, labels, steps=steps, solver=solver, guidance=guidance, rng=rng), 0.0, 1.0)
    xt, yt = test
    acc, se = _binomial(int(np.sum(judge.predict(x.astype(np.float64)) == labels)), n)
    out = {"sample_accuracy": acc, "sample_accuracy_se": se, "frechet_distance": frechet_distance(x, xt),
           "real_accuracy": None, "real_accuracy_se": None, "frechet_floor": None,
           "n_eval": int(n), "eval_steps": int(steps), "eval_solver": solver, "eval_guidance": float(guidance)}
    if reference is not None:
        xr, yr = reference
        racc, rse = _binomial(int(np.sum(judge.predict(xt.astype(np.float64)) == yt)), len(yt))
        xr = xr[np.random.default_rng(rng).choice(len(xr), size=min(n, len(xr)), replace=False)]
        out.update(real_accuracy=racc, real_accuracy_se=rse, frechet_floor=frechet_distance(xr, xt))
    return out


def digits_flow(rng=0, *, epochs=None, evaluate=True, rebuild=False, progress=True, device=None):
    r"""A class-conditional flow model of sklearn's 8x8 digits (64-d vectors), trained once and cached.

    :class:`~iclr26sci.nn.FlowMatching` on the linear path with a :class:`~iclr26sci.nn.VelocityMLP`
    (three hidden layers of 256, a 32-d label embedding, label dropout 0.1 for classifier-free guidance),
    trained on the pixels divided by 16 (values in ``[0, 1]``) of a fixed 80 % split of the 1 797 digits
    (``split_seed = 0``); the other 20 % are held out. The stored sample quality: the accuracy, on
    class-conditional samples, of a logistic regression trained on the same training split (see
    ``digits_judge``), with its binomial standard error and its accuracy on the held-out digits; and the
    Frechet distance in pixel space to the held-out digits, with the training digits' distance as the floor.

    Parameters
    ----------
    rng : int >= 0, default 0
        Training seed; part of the cache key.
    epochs : int, optional
        Passes over the 1 438 training digits (default 300, about 3 400 steps of 128: seconds on 2 cores).
    evaluate, rebuild, progress, device
        As in :func:`fashion_flow`.

    Returns
    -------
    FlowMatching
        Fitted, event shape ``(64,)``, with ``sample_quality_`` and ``cache_meta_``.

    Examples
    --------
    >>> from iclr26sci.nn import digits_flow, ode_sample
    >>> fm = digits_flow(rng=0)                                        # doctest: +SKIP
    >>> ode_sample(fm, n=10, cond=list(range(10)), steps=20, solver="heun").x.shape   # doctest: +SKIP
    torch.Size([10, 64])
    >>> digits_flow(rng=-1)
    Traceback (most recent call last):
    ...
    iclr26sci.core._errors.InputError: invalid argument `rng`: got -1; expected a non-negative integer training seed (the cache is keyed by it)
    """
    from ._cache import cached_model
    from ._flow import FlowMatching, VelocityMLP

    seed = _check_seed(rng)
    settings = {k: (dict(v) if isinstance(v, dict) else v) for k, v in DIGITS_DEFAULTS.items()}
    if epochs is not None:
        settings["epochs"] = check_positive_int(epochs, "epochs")
    evaluate = check_bool(evaluate, "evaluate")
    check_bool(rebuild, "rebuild")
    check_bool(progress, "progress")
    if device is not None:                   # checked before the cache is read: a cache hit must not hide it
        from ._train import _check_device

        _check_device(device)
    settings["data"] = "sklearn.datasets.load_digits / 16"
    if evaluate:
        settings["eval"] = dict(DIGITS_EVAL)
        settings["judge"] = "LogisticRegression(C=1) on the training split"
    (xtr, ytr), (xte, yte) = _digits_split(settings["test_fraction"], settings["split_seed"])
    a = settings["arch"]
    fm_params = dict(path=settings["path"], p_uncond=settings["p_uncond"])
    built = {}

    def factory():
        return VelocityMLP(64, hidden=tuple(a["hidden"]), n_classes=10, n_freq=a["n_freq"], emb_dim=a["emb_dim"])

    def build():
        import torch

        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            net = factory()
        fm = FlowMatching(net, **fm_params).fit(
            xtr, ytr, epochs=settings["epochs"], batch_size=settings["batch_size"], lr=settings["lr"],
            schedule=settings["schedule"], rng=seed, progress=progress, device=device)
        net.cpu()
        metrics = {"train_loss_last": float(fm.fit_result_.train_loss[-1]),
                   "train_seconds": float(fm.fit_result_.seconds),
                   "train_cpu_seconds": float(fm.fit_result_.cpu_seconds)}
        if evaluate:
            judge = digits_judge((xtr, ytr))
            metrics.update(digits_sample_quality(fm, judge, (xte, yte), reference=(xtr, ytr),
                                                 **_eval_kwargs(DIGITS_EVAL)))
        built["fm"] = fm
        return net, metrics

    net, meta = cached_model("digits-flow", settings, seed, build, factory, rebuild=rebuild)
    fm = _restore(net, meta, len(xtr), **fm_params)
    if "fm" in built:
        fm.fit_result_ = built["fm"].fit_result_
    return fm
