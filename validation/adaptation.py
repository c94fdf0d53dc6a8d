"""Validation of PEA test-time adaptation (report section "adaptation"): checks P1-P10 of the spec.

P1-P4 are exact algebra on Gaussian features pushed through the adapter's hooks (float64); P5-P6 are the
backprop-free and cost claims measured on a small CNN; P7-P9 use a BatchNorm ResNet trained on clean
Fashion-MNIST (the library's cached ``fashion_classifier``) on Fashion-MNIST-C streams; P10 runs the EMA/spike logic on a synthetic stream
with an abrupt domain switch. Every check accepts ``variant=`` naming a broken implementation it must catch;
tests/adaptation/test_adaptation_validation.py runs them and shows the checks fail.
"""
from __future__ import annotations

import contextlib
import functools
import glob
import json
import math
import os
import time
from unittest import mock

import numpy as np

from ._figstyle import readable, subplots
from .registry import CheckResult, Criterion, check

PAPER = "Xiao, Kwon, Zhou and Ma (2026) Architecture-Agnostic TTA via Backprop-Free Embedding Alignment, ICLR (7kLNGaAHaw)"


# ---------------------------------------------------------------------------------------------- models
def fashion_model():
    """(model, name): the library's cached ``nn.fashion_classifier`` (trained once on the 60k Fashion-MNIST images).

    Always this model, so a check's verdict does not depend on what the cache happens to hold.
    """
    from iclr26sci.nn import fashion_classifier

    return fashion_classifier(rng=0, progress=False).eval(), "fashion_classifier"


@functools.lru_cache(maxsize=1)
def _setup():
    import torch

    from data_adapters.vision import load_fashion_mnist
    from iclr26sci.adaptation import SourceStats

    model, name = fashion_model()
    src = load_fashion_mnist("train", n=2000, rng=123)
    with torch.random.fork_rng(devices=[]):
        stats = SourceStats.fit(model, src.images, group_size="auto")
    return model, name, stats


def _test_images(n, seed):
    from data_adapters.vision import load_fashion_mnist

    return load_fashion_mnist("test", n=n, rng=int(seed))


def _run(adapter_or_model, batches):
    """Predictions of a PEAAdapter (or a plain model) over a list of (x, y) batches -> (pred, y) arrays."""
    import torch

    preds, ys = [], []
    for x, y in batches:
        if hasattr(adapter_or_model, "predict") and not isinstance(adapter_or_model, torch.nn.Module):
            out = adapter_or_model.predict(x)
        else:
            with torch.no_grad():
                out = adapter_or_model(x)
        preds.append(out.argmax(1).numpy())
        ys.append(np.asarray(y))
    return np.concatenate(preds), np.concatenate(ys)


def _batches(images, labels, bs):
    import torch

    return [(torch.from_numpy(images[i:i + bs]), labels[i:i + bs]) for i in range(0, len(labels), bs)]


# ------------------------------------------------------------------------------------ a feature model
def _feature_model(d, n_classes=3):
    """``Sequential(block, head)`` in float64: the block is the identity map; PEA hooks it."""
    import torch
    import torch.nn as tnn

    block = tnn.Identity()
    head = tnn.Linear(d, n_classes).double()
    with torch.no_grad():
        head.weight.copy_(torch.linspace(-1, 1, d * n_classes, dtype=torch.float64).reshape(n_classes, d))
        head.bias.zero_()
    return tnn.Sequential(block, head).eval()


def _aligned_features(model, stats, X, **kw):
    """Run one PEA batch and return what the head received (the aligned block output)."""
    from iclr26sci.adaptation import PEAAdapter

    seen = {}
    h = model[1].register_forward_pre_hook(lambda _m, inp: seen.__setitem__("z", inp[0].detach().clone()))
    try:
        pea = PEAAdapter(model, stats, views=("orig",), layer_weights="ones", momentum=1.0, reg=0.0, eps=0.0, **kw)
        pea.predict(X)
    finally:
        h.remove()
    return seen["z"]


def _rand_cov(g, d, cond=10.0):
    A = g.normal(size=(d, d))
    Q, _ = np.linalg.qr(A)
    lam = np.exp(np.linspace(0, math.log(cond), d))
    return (Q * lam) @ Q.T


def _broken_coral_inverse(target_cov, source_cov_sqrt_blocks, g, eps):
    """Broken: whitening by Sigma_t^{-1} (not ^{-1/2})."""
    from iclr26sci.adaptation._linalg import block_diag, diag_blocks, sym_sqrt

    inv = sym_sqrt(diag_blocks(target_cov, g), eps=eps, inverse=True)
    return block_diag(inv @ inv @ source_cov_sqrt_blocks)


@contextlib.contextmanager
def _patched(variant, table):
    if variant is None:
        yield
        return
    if variant not in table:
        raise ValueError(f"unknown variant {variant!r}; known: {sorted(table)}")
    target, repl = table[variant]
    with mock.patch(target, repl):
        yield


# ------------------------------------------------------------------------------------------------ P1
@check(method="adaptation", paper=PAPER, budget=2,
       guarantee="P1: with weight 1, momentum 1 and one full group, the aligned block output has exactly the source "
                 "mean and covariance (the first two moments are matched, float64)")
def p1_exact_moment_matching(profile, rng, variant=None):
    import torch

    from iclr26sci.adaptation import SourceStats

    d, T = 16, profile.pick(5000, 20000)
    C_s, C_t = _rand_cov(rng, d), _rand_cov(rng, d, cond=30)
    mu_s, mu_t = rng.normal(size=d), 3 * rng.normal(size=d)
    Xs = rng.multivariate_normal(mu_s, C_s, size=T)
    Xt = rng.multivariate_normal(mu_t, C_t, size=T)
    model = _feature_model(d)
    st = SourceStats(modules=[model[0]], group_size=None, reg=0.0, batch_size=T).fit(model, torch.from_numpy(Xs))
    with _patched(variant, {"inverse": ("iclr26sci.adaptation._pea.coral_map", _broken_coral_inverse)}):
        Y = _aligned_features(model, st, torch.from_numpy(Xt)).numpy()
    Sm, Sc = Xs.mean(0), np.cov(Xs.T)
    e_mu = float(np.linalg.norm(Y.mean(0) - Sm))
    e_cov = float(np.linalg.norm(np.cov(Y.T) - Sc) / np.linalg.norm(Sc))
    crit = [Criterion("||mean(Y) - mu_s||", e_mu, 1e-8, "<"), Criterion("||cov(Y) - Sigma_s||_F / ||Sigma_s||_F", e_cov, 1e-8, "<")]
    return CheckResult(criteria=crit, table=[{"D": d, "T": T, "mean error": e_mu, "relative cov error": e_cov}],
                       details="X_t ~ N(mu_t, Sigma_t) (condition 30) through PEAAdapter's hook on an identity block "
                               "(layer_weights='ones', m = 1, reg = eps = 0); source moments are those of a N(mu_s, "
                               "Sigma_s) sample. Both errors are 0 in exact arithmetic; 1e-8 leaves room for float64 "
                               "rounding of eigh. Catches: whitening by Sigma_t^-1 instead of Sigma_t^-1/2 (variant "
                               "'inverse'), a stale EMA, a missing mean term.")


# ------------------------------------------------------------------------------------------------ P2
@check(method="adaptation", paper=PAPER, budget=2,
       guarantee="P2: grouped CORAL (groups of 4 in D = 16) matches the source covariance's diagonal blocks exactly "
                 "and leaves the cross-group blocks unmatched")
def p2_grouped_blocks(profile, rng, variant=None):
    import torch

    from iclr26sci.adaptation import SourceStats

    d, g, T = 16, 4, profile.pick(5000, 20000)
    C_s, C_t = _rand_cov(rng, d), _rand_cov(rng, d, cond=30)
    Xs = rng.multivariate_normal(np.zeros(d), C_s, size=T)
    Xt = rng.multivariate_normal(np.ones(d), C_t, size=T)
    model = _feature_model(d)
    if variant not in (None, "full"):
        raise ValueError(variant)
    # variant 'full': an implementation that ignores group_size (one full group)
    st = SourceStats(modules=[model[0]], group_size=None if variant == "full" else g, reg=0.0,
                     batch_size=T).fit(model, torch.from_numpy(Xs))
    Y = _aligned_features(model, st, torch.from_numpy(Xt)).numpy()
    C, S = np.cov(Y.T), np.cov(Xs.T)
    mask = np.kron(np.eye(d // g), np.ones((g, g))).astype(bool)
    within = float(np.abs(C - S)[mask].max() / np.abs(S).max())
    cross = float(np.linalg.norm((C - S)[~mask]) / np.linalg.norm(S[~mask]))
    crit = [Criterion("max within-group |cov(Y) - Sigma_s| / max|Sigma_s|", within, 1e-8, "<"),
            Criterion("cross-group relative error", cross, 0.05, ">")]
    return CheckResult(criteria=crit, table=[{"within": within, "cross": cross}],
                       details="Random dense Sigma_s, Sigma_t; the within-group error is 0 in exact arithmetic. The "
                               "cross-group blocks of cov(Y) are Sigma_s,gg^1/2 Sigma_t,gg^-1/2 Sigma_t,gh Sigma_t,hh^-1/2 "
                               "Sigma_s,hh^1/2, generically O(1) away from Sigma_s,gh; 0.05 is far below that. "
                               "Catches: group_size ignored (one full group, variant 'full': the cross-group "
                               "blocks are matched too, error ~ 0), a wrong block layout.")


# ------------------------------------------------------------------------------------------------ P3
def _mv_biased(self, i, w, kind):
    import torch

    src, tgt = self._src[i], self._targets[i]
    d = src["mu"].shape[0]
    n = self._n_last if hasattr(self, "_n_last") else 1000
    var_t = tgt.cov.diagonal() * (n - 1) / n  # broken: biased target variance
    scale = ((src["var"] + self._eps) / (var_t + self._eps)).sqrt()
    A = torch.diag(scale)
    b = src["mu"] - tgt.mu @ A
    return (1 - w) * torch.eye(d, dtype=torch.float64) + w * A, w * b


@check(method="adaptation", paper=PAPER, budget=2,
       guarantee="P3: mean-variance alignment inverts a per-dimension positive affine shift X_t = X_s diag(a) + b "
                 "exactly (the same samples come back)")
def p3_mv_inverts_affine(profile, rng, variant=None):
    import torch

    from iclr26sci.adaptation import SourceStats

    d, T = 16, profile.pick(2000, 20000)
    Xs = rng.multivariate_normal(np.zeros(d), _rand_cov(rng, d), size=T)
    a, b = np.exp(rng.normal(size=d)), 5 * rng.normal(size=d)
    Xt = Xs * a + b
    model = _feature_model(d)
    st = SourceStats(modules=[model[0]], group_size=None, reg=0.0, batch_size=T).fit(model, torch.from_numpy(Xs))
    with _patched(variant, {"biased-variance": ("iclr26sci.adaptation._pea.PEAAdapter._affine", _mv_biased)}):
        Y = _aligned_features(model, st, torch.from_numpy(Xt), alignment="mv").numpy()
    err = float(np.abs(Y - Xs).max() / np.abs(Xs).max())
    return CheckResult(statistic=err, threshold=1e-8, comparison="<", table=[{"max |Y - X_s| / max|X_s|": err}],
                       details="a = exp(N(0,1)), b ~ N(0, 25) per dimension; the source and target moments are the "
                               "samples' own (unbiased variances on both sides), so Y = X_s exactly. Catches: a "
                               "biased target variance against an unbiased source one (variant 'biased-variance', "
                               "error ~ 1/(2T)), an inverted scale, a missing shift.")


# ------------------------------------------------------------------------------------------------ P4
@check(method="adaptation", paper=PAPER, budget=2,
       guarantee="P4 (documented limitation): CORAL cannot undo a rotation of isotropic features -- with "
                 "Sigma_s = Sigma_t = I the aligned features equal the rotated ones")
def p4_rotation_limitation(profile, rng, variant=None):
    import torch

    from iclr26sci.adaptation import coral_align

    d, T = 16, profile.pick(2000, 20000)
    Xs = rng.normal(size=(T, d))
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    Xt = Xs @ Q
    eye, zero = np.eye(d), np.zeros(d)
    if variant == "procrustes":  # an oracle that knows the pairing (not CORAL): undoes the rotation
        U, _, Vt = np.linalg.svd(Xt.T @ Xs)
        Y = Xt @ (U @ Vt)
    elif variant is None:
        Y = coral_align(torch.from_numpy(Xt), zero, eye, zero, eye, eps=0.0).numpy()
    else:
        raise ValueError(variant)
    unchanged = float(np.abs(Y - Xt).max())
    undone = float(np.linalg.norm(Y - Xs) / np.linalg.norm(Xs))
    crit = [Criterion("max |Y - X_s Q|", unchanged, 1e-10, "<"),
            Criterion("||Y - X_s|| / ||X_s|| (rotation not undone)", undone, 0.5, ">")]
    return CheckResult(criteria=crit, table=[{"unchanged": unchanged, "distance to X_s": undone}],
                       details="Population moments mu = 0, Sigma = I on both sides: the CORAL map is the identity, so "
                               "Y = X_s Q exactly, and ||X_s Q - X_s|| / ||X_s|| = ||Q - I||_F / sqrt(d) ~ sqrt(2) for "
                               "a random rotation (> 0.5). Catches an implementation that claims to undo rotations "
                               "(variant 'procrustes', paired-sample alignment): both criteria fail.")


# ------------------------------------------------------------------------------------------------ P5
@check(method="adaptation", paper=PAPER, budget=8,
       guarantee="P5: PEA is backprop-free -- after a stream the model's state_dict is bit-identical, no parameter has "
                 "a gradient, no output requires grad, and gradient recording is off inside the hooks")
def p5_backprop_free(profile, rng, variant=None):
    import torch

    from iclr26sci.adaptation import PEAAdapter

    model, name, stats = _setup()
    te = _test_images(profile.pick(256, 1024), rng.integers(1 << 30))
    from data_adapters.corruptions import corrupt_images

    x = corrupt_images(te.images, "gaussian_noise", 5, rng=int(rng.integers(1 << 30)), backend="cifar-c")
    before = {k: v.detach().clone() for k, v in model.state_dict().items()}
    # gradients the model already holds (a model trained in this process can keep its last .grad): only the
    # .grad that the stream creates or changes counts against PEA
    grads0 = [None if p.grad is None else p.grad.detach().clone() for p in model.parameters()]
    pea = PEAAdapter(model, stats)
    req = 0
    ctx = contextlib.nullcontext()
    if variant == "train-mode":  # broken: adapter that leaves BatchNorm in train mode (running stats move)
        ctx = mock.patch("iclr26sci.adaptation._pea.ensure_eval", lambda m, who: None)
    elif variant is not None:
        raise ValueError(variant)
    try:
        with ctx:
            if variant == "train-mode":
                model.train()
                pea = PEAAdapter(model, stats)
            for xb, _ in _batches(x, te.labels, 64):
                out = pea.predict(xb)
                req += int(out.requires_grad)
    finally:
        model.eval()
    after = model.state_dict()
    changed = sum(int(not torch.equal(before[k], after[k])) for k in before)
    grads = sum(int(p.grad is not None and (g0 is None or not torch.equal(p.grad, g0)))
                for p, g0 in zip(model.parameters(), grads0))
    grad_on = sum(int(h["grad_enabled"]) for h in pea.history_)
    if changed:  # restore the shared model for the other checks
        model.load_state_dict(before)
    crit = [Criterion("state_dict entries changed", changed, 0, "<="), Criterion("parameters whose .grad the stream created or changed", grads, 0, "<="),
            Criterion("outputs requiring grad", req, 0, "<="), Criterion("hook calls with grad enabled", grad_on, 0, "<="),
            Criterion("backward passes", pea.n_backward_, 0, "<=")]
    return CheckResult(criteria=crit, table=[{"model": name, "batches": pea.n_batches_, "forwards": pea.n_forward_,
                                              "changed": changed}],
                       details="A Fashion-MNIST gaussian_noise-5 stream of 64-image batches; exact counts, threshold 0. "
                               "Catches: an adapter that runs the model in train mode (variant 'train-mode': BatchNorm "
                               "running statistics and num_batches_tracked change), any optimiser step, hooks "
                               "that modify parameters or record autograd graphs.")


# ------------------------------------------------------------------------------------------------ P6
def _leaky_affine(orig):
    store = []

    def f(self, i, w, kind):
        store.append(torch_zeros(4 << 20))  # broken: keeps 32 MiB per hook call alive (a growing cache)
        return orig(self, i, w, kind)
    return f


def torch_zeros(n):
    import torch

    return torch.ones(n, dtype=torch.float64)


def _p6_ctx(variant):
    """The patch of a P6 broken variant (a null context for the real implementation)."""
    import torch

    ctx = contextlib.nullcontext()
    if variant == "leak":
        from iclr26sci.adaptation._pea import PEAAdapter as P

        ctx = mock.patch("iclr26sci.adaptation._pea.PEAAdapter._affine", _leaky_affine(P._affine))
    elif variant == "sample-loop":  # broken: the target statistics accumulated one token at a time in Python
        from iclr26sci.adaptation._pea import PEAAdapter as P

        orig_update = P._update_target

        def slow_update(self, i, X):
            rows = X.permute(0, 2, 3, 1).reshape(-1, X.shape[1]) if X.ndim == 4 else X
            acc = torch.zeros(rows.shape[1], dtype=rows.dtype)
            for r in rows:
                acc += r
            return orig_update(self, i, X)
        ctx = mock.patch("iclr26sci.adaptation._pea.PEAAdapter._update_target", slow_update)
    elif variant is not None:
        raise ValueError(variant)
    return ctx


def _p6_timing_child(variant, n_images, image_seed, reps):
    """Single-thread CPU times of plain inference and of PEA in a fresh process (see :func:`p6_cost`)."""
    import torch

    torch.set_num_threads(1)
    model, _, stats = _setup()
    te = _test_images(n_images, image_seed)
    batches = _batches(te.images, te.labels, 64)
    plain_t, pea_t = [], []
    _p6_measure(_p6_ctx(variant), model, stats, batches, reps, plain_t, pea_t)
    return plain_t, pea_t


def _p6_measure(ctx, model, stats, batches, reps, plain_t, pea_t):
    import torch

    from iclr26sci.adaptation import PEAAdapter

    with ctx:
        pea = PEAAdapter(model, stats)
        pea.predict(batches[0][0])  # warm-up of both paths
        with torch.no_grad():
            model(batches[0][0])
        for _ in range(reps):  # interleaved, CPU time of this process
            c0 = time.process_time()
            with torch.no_grad():
                for xb, _ in batches:
                    model(xb)
            plain_t.append(time.process_time() - c0)
            c0 = time.process_time()
            for xb, _ in batches:
                pea.predict(xb)
            pea_t.append(time.process_time() - c0)


@check(method="adaptation", paper=PAPER, budget=12,
       guarantee="P6: a PEA batch costs exactly 2(K+1) network evaluations (K = 2 views) and no backward pass, its "
                 "single-thread CPU time is 2(K+1) +- 30% times plain inference's, and the peak resident memory grows "
                 "by less than 10% over plain inference")
def p6_cost(profile, rng, variant=None):
    import torch

    from iclr26sci.adaptation import PEAAdapter
    from iclr26sci.adaptation.baselines import _reset_peak, _rss_mb

    model, name, stats = _setup()
    image_seed = rng.integers(1 << 30)
    te = _test_images(64 * profile.pick(6, 20), image_seed)
    batches = _batches(te.images, te.labels, 64)
    reps = profile.pick(11, 15)
    K1 = 3
    ctx = _p6_ctx(variant)
    # The timing runs in a fresh process that imports only this module's needs. In the validation process the same
    # code measured more the more the process had loaded (2026-12-06, idle, quick size: 7.42-7.50 with the adaptation
    # checks alone, 7.59-7.73 with every method's checks imported, 7.65-7.99 in `validate` runs): state that other
    # libraries and checks leave behind slows PEA's many module calls more than one plain forward, and it is not
    # PEA's cost. One thread (OpenMP spin-waits make multi-thread CPU time meaningless).
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(1) as pool:
        plain_t, pea_t = pool.apply(_p6_timing_child, (variant, len(te.images), int(image_seed), reps))
    with ctx:
        _reset_peak()
        r0 = _rss_mb("VmRSS")
        with torch.no_grad():
            for xb, _ in batches:
                model(xb)
        plain_peak = _rss_mb("VmHWM")
        _reset_peak()
        pea2 = PEAAdapter(model, stats)
        for xb, _ in batches * 2:
            pea2.predict(xb)
        pea_peak = _rss_mb("VmHWM")
    # paired per-repetition ratios (each PEA timing follows its own plain timing); their median, and the
    # Monte-Carlo SE of a median, sqrt(pi/2) sd / sqrt(n). The band is the spec's; the timing noise of one
    # process (ratios 6.57-7.86 at seeds 0-4 of 5 repetitions on one idle machine) is the tolerance.
    per_rep = np.asarray(pea_t) / np.asarray(plain_t)
    ratio = float(np.median(per_rep))
    se = float(np.sqrt(np.pi / 2) * per_rep.std(ddof=1) / np.sqrt(len(per_rep)))
    mem = float((pea_peak - plain_peak) / plain_peak)
    fwd = pea2.n_forward_ / pea2.n_batches_
    target = 2 * K1
    # The spec's cost criterion is time(PEA) / time(plain inference) within 2(K+1) +- 30%: measured here as
    # single-thread CPU time of this process (process_time), medians of interleaved repetitions, which the
    # machine's load affects far less than wall time.
    crit = [Criterion("network evaluations per batch", fwd, (target, target), "in"),
            Criterion("CPU time ratio PEA / plain minus 2 SE (one thread)", ratio - 2 * se, 1.3 * target, "<="),
            Criterion("CPU time ratio PEA / plain plus 2 SE (one thread)", ratio + 2 * se, 0.7 * target, ">="),
            Criterion("peak RSS increase (fraction of plain peak)", mem, 0.10, "<")]
    return CheckResult(criteria=crit, table=[{"model": name, "plain s": float(np.median(plain_t)),
                                              "PEA s": float(np.median(pea_t)), "ratio": ratio, "SE": se,
                                              "band": f"[{0.7 * target:.1f}, {1.3 * target:.1f}]", "RSS before MiB": r0,
                                              "plain peak MiB": plain_peak, "PEA peak MiB": pea_peak}],
                       details=f"{len(batches)} batches of 64 Fashion-MNIST images; the median of {reps} paired, interleaved "
                               "ratios of single-thread CPU time; the check fails when the ratio is more than 2 Monte-Carlo SE "
                               "outside the band (SE of a median, sqrt(pi/2) sd / sqrt(n)) (process_time; torch is set to 1 thread for the "
                               "timing because at 2 threads OpenMP spin-waits on the loaded machine gave 2.97 and 8.2 "
                               "for the same code). The spec's band is "
                               "2(K+1) +- 30%; peak RSS is the kernel's high-water mark reset via /proc/self/clear_refs "
                               "after malloc_trim. Catches: a cache that keeps per-call tensors alive (variant 'leak'), an "
                               "extra forward per view, a per-token Python loop in the hook (variant 'sample-loop': "
                               "the CPU time ratio leaves the band).")


# ------------------------------------------------------------------------------------------------ P7-P9
def _corrupted(te, corruption, severity, seed):
    from data_adapters.corruptions import corrupt_images

    if severity == 0:
        return te.images
    return corrupt_images(te.images, corruption, severity, rng=int(seed), backend="cifar-c")


@check(method="adaptation", paper=PAPER, budget=6,
       guarantee="P7: no-shift safety -- on a clean Fashion-MNIST test stream PEA loses at most 1 percentage point "
                 "of accuracy against the unadapted model")
def p7_no_shift_safety(profile, rng, variant=None):
    from iclr26sci.adaptation import PEAAdapter

    model, name, stats = _setup()
    n = profile.pick(1536, 10000)
    te = _test_images(n, rng.integers(1 << 30))
    if variant == "wrong-source":  # broken: source statistics gathered on shifted (contrast-5) images
        import torch

        from iclr26sci.adaptation import SourceStats

        src = _corrupted(_test_images(1000, 7), "contrast", 5, 7)
        with torch.random.fork_rng(devices=[]):
            stats = SourceStats.fit(model, src, group_size="auto")
    elif variant is not None:
        raise ValueError(variant)
    batches = _batches(te.images, te.labels, 64)
    p0, y = _run(model, batches)
    p1, _ = _run(PEAAdapter(model, stats), batches)
    c0, c1 = p0 == y, p1 == y
    diff = float(c1.mean() - c0.mean())
    se = float(np.sqrt(max(np.mean(c0 != c1) - diff ** 2, 1e-12) / n))
    lower = diff + 2 * se
    return CheckResult(statistic=lower, threshold=-0.01, comparison=">=",
                       table=[{"model": name, "n": n, "acc NoAdapt": float(c0.mean()), "acc PEA": float(c1.mean()),
                               "diff": diff, "paired SE": se}],
                       details="Claim: the population accuracy difference is >= -1 pp. Statistic: the paired "
                               "difference plus 2 paired standard errors (sqrt((discordance - diff^2)/n)); the claim "
                               "is rejected when even this upper 97.7% bound is below -1 pp. Catches: source "
                               "statistics of the wrong domain (variant 'wrong-source': gathered on contrast-5 "
                               "images), a wrong CORAL map.")


def _severity_figure(rows, n):
    """Accuracy of the unadapted model and of PEA by severity, one panel per corruption (95% binomial CIs)."""
    corrs = list(dict.fromkeys(r["corruption"] for r in rows))
    fig, axes = subplots(1, len(corrs), figsize=(12, 4.0), sharey=True)
    for a, corr in zip(np.atleast_1d(axes), corrs):
        rr = [r for r in rows if r["corruption"] == corr and r["severity"] != "trend"]
        sev = np.array([r["severity"] for r in rr], float)
        for key, lab, fmt, dx in (("acc NoAdapt", "no adaptation", "s--", -0.06), ("acc PEA", "PEA", "o-", 0.06)):
            acc = np.array([r[key] for r in rr])
            a.errorbar(sev + dx, acc, yerr=1.96 * np.sqrt(acc * (1 - acc) / n), fmt=fmt, capsize=3, label=lab)
        trend = next(r for r in rows if r["corruption"] == corr and r["severity"] == "trend")
        a.set_title(f"{corr} (gain trend z = {trend['z']:.1f})")
        a.set_xticks(range(1, 6))
        a.set_xlabel("corruption severity")
    np.atleast_1d(axes)[0].set_ylabel(f"test accuracy ({n} images, 95% CI)")
    np.atleast_1d(axes)[0].legend(loc="lower left")
    return readable(fig)


@check(method="adaptation", paper=PAPER, budget=30,
       guarantee="P8: PEA's gain over the unadapted model grows with corruption severity -- for gaussian_noise, "
                 "defocus_blur and contrast the least-squares trend of gain on severity (1..5) is significantly "
                 "positive (one-sided z >= 2.326, false alarm 1% per family when the gain does not grow)")
def p8_gain_grows_with_severity(profile, rng, variant=None):
    from scipy.stats import spearmanr

    from iclr26sci.adaptation import PEAAdapter

    model, name, stats = _setup()
    kw = {}
    if variant == "no-alignment":  # broken: every block skipped and one view: PEA is a no-op
        kw = {"skip_threshold": float("inf"), "views": ("orig",)}
    elif variant is not None:
        raise ValueError(variant)
    n = profile.pick(1024, 4000)
    te = _test_images(n, rng.integers(1 << 30))
    w = (np.arange(1, 6) - 3.0) / 10.0  # OLS slope weights over severities 1..5
    rows, crit = [], []
    for corr in ("gaussian_noise", "defocus_blur", "contrast"):
        diffs = []
        for sev in range(1, 6):
            x = _corrupted(te, corr, sev, rng.integers(1 << 30))
            batches = _batches(x, te.labels, 64)
            p0, y = _run(model, batches)
            p1, _ = _run(PEAAdapter(model, stats, **kw), batches)  # a fresh adapter per domain (each-shift reset)
            d = (p1 == y).astype(float) - (p0 == y)
            diffs.append(d)
            rows.append({"corruption": corr, "severity": sev, "acc NoAdapt": float((p0 == y).mean()),
                         "acc PEA": float((p1 == y).mean()), "gain": float(d.mean())})
        D = np.stack(diffs)                      # (5, n): the same test images at every severity
        per_image = w @ D                        # each image's contribution to the slope: paired across severities
        slope = float(per_image.mean())
        se = float(per_image.std(ddof=1) / np.sqrt(n))
        z = slope / se if se > 0 else 0.0        # a gain that never changes has no trend
        rho = spearmanr(np.arange(1, 6), D.mean(1)).statistic
        rows.append({"corruption": corr, "severity": "trend", "slope per level": slope, "SE": se, "z": z,
                     "Spearman": float(np.nan_to_num(rho, nan=0.0))})
        crit.append(Criterion(f"trend z {corr}", float(z), 2.326, ">="))
    return CheckResult(criteria=crit, table=rows, figure=_severity_figure(rows, n),
                       details=f"{n} Fashion-MNIST test images per domain (CIFAR-10-C constants), 64-image batches, a "
                               "fresh adapter per domain, model: " + name + ". The statistic is the OLS slope of the "
                               "per-severity accuracy gain, with its standard error from the per-image paired "
                               "differences (the same images at every severity, so the correlation between severities "
                               "is accounted for); the spec's Spearman correlation of five noisy points is reported "
                               "in the table but has no Monte-Carlo tolerance. Catches: an adapter that changes nothing "
                               "(variant 'no-alignment': z = 0), alignment that hurts more as the shift grows.")


@check(method="adaptation", paper=PAPER, budget=10,
       guarantee="P9: small-batch robustness -- with batches of 4, 16 and 64 PEA's outputs are finite and its accuracy "
                 "is not significantly below the unadapted model's (the spec's 'monotone in batch size' is reported in "
                 "the table, not required: over a fixed stream smaller batches make more EMA updates)")
def p9_small_batches(profile, rng, variant=None):
    import torch

    from iclr26sci.adaptation import PEAAdapter

    model, name, stats = _setup()
    kw, ctx = {}, contextlib.nullcontext()
    if variant == "no-regularisation":
        kw = {"eps": 0.0, "reg": 0.0}
    elif variant == "image-level-stats":  # broken: batch-only target statistics over per-image means, not positions
        from iclr26sci.adaptation._pea import PEAAdapter as P

        kw = {"momentum": 1.0, "eps": 0.0, "reg": 0.0}
        orig = P._update_target
        ctx = mock.patch("iclr26sci.adaptation._pea.PEAAdapter._update_target",
                         lambda self, i, X: orig(self, i, X.mean((2, 3)) if X.ndim == 4 else X))
    elif variant is not None:
        raise ValueError(variant)
    n = profile.pick(512, 2048)
    te = _test_images(n, rng.integers(1 << 30))
    x = _corrupted(te, "gaussian_noise", 5, rng.integers(1 << 30))
    p0, _ = _run(model, _batches(x, te.labels, 64))
    c_none = p0 == te.labels
    accs, nan = {}, 0
    corr = {}
    with ctx:
        for bs in (4, 16, 64):
            pea = PEAAdapter(model, stats, **kw)
            preds = []
            for xb, _ in _batches(x, te.labels, bs):
                out = pea.predict(xb)
                nan += int((~torch.isfinite(out)).any())
                preds.append(out.argmax(1).numpy())
            corr[bs] = np.concatenate(preds) == te.labels
            accs[bs] = float(corr[bs].mean())
    corr["none"] = c_none
    accs["NoAdapt"] = float(c_none.mean())

    def lower_gap(a, b):  # acc(a) - acc(b) + 2 paired SE
        d = corr[a].mean() - corr[b].mean()
        se = np.sqrt(max(np.mean(corr[a] != corr[b]) - d ** 2, 1e-12) / n)
        return float(d + 2 * se)
    crit = [Criterion("batches with non-finite logits", nan, 0, "<=")] + \
        [Criterion(f"acc(batch {b}) - acc(NoAdapt) + 2 SE", lower_gap(b, "none"), 0.0, ">=") for b in (4, 16, 64)]
    table = [{"batch": b, "accuracy": a} for b, a in accs.items()]
    table.append({"batch": "monotone gaps (+2 SE): 16 vs 4, 64 vs 16",
                  "accuracy": f"{lower_gap(16, 4):.4f}, {lower_gap(64, 16):.4f}"})
    return CheckResult(criteria=crit, table=table,
                       details=f"{n} gaussian_noise-5 Fashion-MNIST images, a fresh adapter per batch size "
                               "(a fixed number of images, so smaller batches make more EMA updates). Each batch "
                               "size's paired accuracy difference to NoAdapt plus 2 paired SE must be >= 0; the "
                               "monotone gaps are reported (seed 4 of the first sweep had batch 4 significantly "
                               "better than 16). The official ResNet example adapts with batch 1, which works because the "
                               "statistics pool over H x W positions. Catches: batch-only (m = 1) target statistics "
                               "over per-image means instead of positions without eps / ridge (variant "
                               "'image-level-stats': singular covariances at batch 4). Not caught: eps = reg = 0 (variant 'no-regularisation'), since 4 x 14 x 14 "
                               "positions already give full-rank covariances.")


# ------------------------------------------------------------------------------------------------ P10
def _no_smoothing_update(self, i, X):
    """Broken: the spike test compares the drift with itself (no smoothing)."""
    import torch

    mu_b = X.mean(0)
    Xc = X - mu_b
    cov_b = Xc.T @ Xc / max(X.shape[0] - 1, 1) + self._reg * torch.eye(X.shape[1], dtype=X.dtype)
    tgt = self._targets[i]
    from iclr26sci.adaptation._pea import _Target

    if tgt is None:
        self._targets[i] = _Target(mu_b, cov_b)
        return False
    drift = float((mu_b - tgt.mu).abs().mean())
    tgt.drift = drift
    spike = tgt.drift > self._floor and drift > self._gamma * tgt.drift
    tgt.mu = self._m * mu_b + (1 - self._m) * tgt.mu
    tgt.cov = self._m * cov_b + (1 - self._m) * tgt.cov
    return spike


@check(method="adaptation", paper=PAPER, budget=2,
       guarantee="P10: the EMA / spike logic -- on a stream with an abrupt domain switch a spike fires within one "
                 "batch of the switch and resets the target mean to the new domain, and no spike fires inside a "
                 "stationary segment once the smoothed drift has settled")
def p10_switch_and_reset(profile, rng, variant=None):
    import torch

    from iclr26sci.adaptation import PEAAdapter, SourceStats

    d, B, n_seg = 64, 64, profile.pick(20, 60)
    alpha, gamma = 0.2, 2.5
    # burn-in: s_k ~ (1 - (1 - alpha)^(k-1)) E[delta]; a spike needs delta > gamma s_k. Require gamma s_k >= 1.4 E[delta]
    # (delta is a mean of 64 folded normals, CV ~ 0.09, so 1.4 E[delta] is > 4 SDs): k >= 5 for gamma = 2.5.
    burn = next(k for k in range(2, 50) if gamma * (1 - (1 - alpha) ** (k - 1)) >= 1.4)
    model = _feature_model(d)
    st = SourceStats(modules=[model[0]], group_size=None).fit(model, torch.from_numpy(rng.normal(size=(2000, d))))
    shift = np.zeros(d)
    shift[: d // 2] = 2.0
    segA = [rng.normal(size=(B, d)) for _ in range(n_seg)]
    segB = [rng.normal(size=(B, d)) * 1.5 + shift for _ in range(n_seg)]
    ctx = mock.patch("iclr26sci.adaptation._pea.PEAAdapter._update_target", _no_smoothing_update) \
        if variant == "no-smoothing" else contextlib.nullcontext()
    if variant not in (None, "no-smoothing"):
        raise ValueError(variant)
    with ctx:
        pea = PEAAdapter(model, st, views=("orig",), layer_weights="ones", gamma=gamma, alpha=alpha,
                         entropy_threshold=float("inf"))
        track = []
        for xb in segA + segB:
            pea.predict(torch.from_numpy(xb))
            track.append(pea._targets[0].mu.numpy().copy())
    spikes = [k for k, h in enumerate(pea.history_, start=1) if h["spikes"][0]]
    switch = n_seg + 1  # first batch of domain B (1-based)
    fired = any(switch <= k <= switch + 1 for k in spikes)
    false_A = [k for k in spikes if burn <= k < switch]
    false_B = [k for k in spikes if k > switch + 1 + burn]
    mu_err = float(np.abs(track[switch] - shift).mean())  # the target mean one batch after the switch
    crit = [Criterion("spike within 1 batch of the switch", float(fired), 1.0, ">="),
            Criterion(f"spikes in segment A after burn-in ({burn})", len(false_A), 0, "<="),
            Criterion("spikes in segment B after burn-in", len(false_B), 0, "<="),
            Criterion("mean |mu_t - mu_B| one batch after the switch", mu_err, 0.25, "<")]
    return CheckResult(criteria=crit, table=[{"spikes at batches": str(spikes), "switch": switch, "burn-in": burn,
                                              "mu error": mu_err}],
                       details=f"D = {d} vector features through an identity block, {n_seg} batches of {B} from N(0, I) "
                               "then N(shift, 2.25 I), shift = 2 on half the dimensions; gamma = 2.5, alpha = 0.2, "
                               "m = 0.02. The burn-in is derived from the smoothing recursion (comment in the code; "
                               "the spec's 'after batch 3' ignores that s starts at 0). With no reset the EMA mean "
                               "(m = 0.02) would sit ~0.96 away from mu_B after one batch; a reset puts it at the "
                               "batch mean, error ~ 1.5 E|N(0,1)|/sqrt(B) ~ 0.15 < 0.25. Catches: no drift smoothing "
                               "(variant 'no-smoothing': delta > gamma delta never holds, no reset).")


# ------------------------------------------------------------------------------------------ claims tier
#: the backprop-free peers of the spec's harness that run on a CNN (FOA-lite needs token blocks)
PEERS = ("bn", "t3a", "lame", "neo")
#: the smallest effect of interest, accuracy points: half the smallest backprop-free gain over NoAdapt in the
#: spec's context table (NEO, ViT-B ImageNet-C severity 5: 55.6 -> 59.2, +3.6 pp), rounded up to 2 pp
MIN_GAIN = 0.02


#: images per corruption in a claim stream: 12 batches of 64, so that each corruption lasts long enough for the
#: progressive target statistics (EMA momentum 0.02 with spike resets) to settle on it. With 192 (3 batches) the
#: corruption changed before they did: PEA - NoAdapt was +1.05 pp (SE 0.37 over 4 streams) against +2.53 pp (SE 0.08)
#: with 768 on the same machine (docs/adaptation.md "Claims").
CLAIM_IMAGES_PER_CORRUPTION = 768


def _claim_stream(n_per, seed, corruptions=None):
    """A continual Fashion-MNIST-C stream at severity 5: ``n_per`` fresh test images per corruption, in order."""
    from data_adapters.corruptions import CIFAR_C_CORRUPTIONS

    g = np.random.default_rng(seed)
    corr = corruptions or tuple(c for c in CIFAR_C_CORRUPTIONS if c != "saturate")  # 14 grey corruptions
    xs, ys = [], []
    for c in corr:
        te = _test_images(n_per, g.integers(1 << 30))
        xs.append(_corrupted(te, c, 5, g.integers(1 << 30)))
        ys.append(te.labels)
    return np.concatenate(xs), np.concatenate(ys)


def _peer(name, model, stats):
    from iclr26sci.adaptation import baselines as B

    return {"bn": B.BNAdapt, "t3a": B.T3A, "lame": B.LAME, "neo": B.NEO}[name](model, stats)


def _correct(method, X, Y, bs=64):
    """Per-sample correctness (bool array) of a method (a model, a peer or a PEAAdapter) over one stream."""
    import torch

    preds = []
    for xb, _ in _batches(X, Y, bs):
        with torch.no_grad():
            out = method(xb) if isinstance(method, torch.nn.Module) else method.predict(xb)
        preds.append(out.argmax(1).numpy())
    return np.concatenate(preds) == Y


@contextlib.contextmanager
def _planted_shift(model, stats, rng=None, size=0.3, log_scale=0.15):
    """A per-channel covariate shift of known size planted at the output of the first hooked block.

    Each channel ``c`` becomes ``mu_c + a_c (x - mu_c) + size sigma_c s_c`` with the source mean ``mu_c`` and
    SD ``sigma_c``, ``s_c = +1`` and scales ``a_c = exp(+-log_scale)`` (alternating over channels): a mean shift
    of ``size`` source SDs and a variance change of ``e^{+-2 log_scale}`` in every channel. The hook is registered before PEA's
    (hooks run in registration order), so PEA sees the shifted features, as it would see a shifted input.
    """
    import torch

    from iclr26sci.adaptation._stats import resolve_modules

    name, mod = resolve_modules(model, [stats.module_names_[0]])[0]
    mu = stats.mean_[0].float()
    sd = stats.var_[0].float().sqrt()
    d = mu.shape[0]
    # a fixed pattern (not drawn): every channel's mean moves up by `size` SDs, the variances alternate
    # e^{+-2 log_scale}; a drawn sign pattern made the damage, and so the control, vary with the seed
    sign = torch.ones(d)
    scale = torch.from_numpy(np.exp(log_scale * (-1.0) ** np.arange(d))).float()

    def hook(_m, _inp, out):
        shp = (1, d) + (1,) * (out.ndim - 2)
        return mu.view(shp) + scale.view(shp) * (out - mu.view(shp)) + (size * sd * sign).view(shp)
    h = mod.register_forward_hook(hook)
    try:
        yield name
    finally:
        h.remove()


def _no_update(self, i, X):
    """Broken: the target statistics never leave the source's (the statistics update is disabled)."""
    from iclr26sci.adaptation._pea import _Target

    if self._targets[i] is None:
        src = self.stats
        self._targets[i] = _Target(src.mean_[i].double().clone(), src.cov_[i].double().clone())
    return False


def _pea_vs(profile, rng, variant=None, n_per=None, against="none", streams=None):
    """The PEA claims: PEA (the library's per-view recipe) against NoAdapt or the best backprop-free peer.

    The unit of replication is the stream: ``streams`` independent continual streams (fresh images and corruption
    draws, a fresh adapter each), since the adaptation trajectory varies from stream to stream far more than a
    per-image standard error within one stream shows. The official ResNet recipe (``microbatch_variants=True``)
    runs on the first stream and is reported beside it.
    """
    from iclr26sci.adaptation import PEAAdapter
    from validation.claims import ClaimResult, paired_effect

    model, name, stats = _setup()
    n_per = n_per or profile.pick(CLAIM_IMAGES_PER_CORRUPTION, 2 * CLAIM_IMAGES_PER_CORRUPTION)
    R = streams or profile.pick(5, 8)
    seed = int(rng.integers(1 << 30))
    ctx = contextlib.nullcontext()
    if variant == "no-update":
        ctx = mock.patch("iclr26sci.adaptation._pea.PEAAdapter._update_target", _no_update)
    elif variant is not None:
        raise ValueError(f"unknown variant {variant!r}; known: ['no-update']")
    ref_name = "NoAdapt"
    rows = []
    if against != "none":  # the best peer, chosen on a disjoint selection stream (other images, other draws)
        Xs, Ys = _claim_stream(max(64, n_per // 2), seed + 1)
        sel = {p: float(_correct(_peer(p, model, stats), Xs, Ys).mean()) for p in PEERS}
        ref_name = max(sel, key=sel.get)
        rows += [{"method": f"{p} (selection stream)", "accuracy": sel[p]} for p in PEERS]
    acc = {"NoAdapt": [], "PEA": [], ref_name: []}
    micro = None
    for r in range(R):
        X, Y = _claim_stream(n_per, seed + 10 + r)
        with ctx:
            acc["PEA"].append(float(_correct(PEAAdapter(model, stats), X, Y).mean()))
            if r == 0:
                micro = float(_correct(PEAAdapter(model, stats, microbatch_variants=True), X, Y).mean())
        acc["NoAdapt"].append(float(_correct(model, X, Y).mean()))
        if against != "none":
            acc[ref_name].append(float(_correct(_peer(ref_name, model, stats), X, Y).mean()))
    for k, v in acc.items():
        rows.append({"method": k + (" (per-view recipe, library default)" if k == "PEA" else ""),
                     "accuracy": float(np.mean(v)), "SD over streams": float(np.std(v, ddof=1))})
    rows.append({"method": "PEA, official ResNet recipe (microbatch_variants=True), first stream", "accuracy": micro,
                 "same stream: NoAdapt / per-view PEA": f"{acc['NoAdapt'][0]:.4f} / {acc['PEA'][0]:.4f}"})
    eff = paired_effect(acc["PEA"], acc[ref_name], min_effect=MIN_GAIN,
                        what=f"accuracy(PEA) - accuracy({ref_name}), paired over {R} independent severity-5 streams")
    # positive control: clean images with a planted per-channel feature shift; NoAdapt vs PEA on the same stream
    te = _test_images(profile.pick(4096, 8192), seed + 2)
    with ctx, _planted_shift(model, stats, np.random.default_rng(seed + 3)):
        k_pea = _correct(PEAAdapter(model, stats), te.images, te.labels)
        k_none = _correct(model, te.images, te.labels)
    ctrl = paired_effect(k_pea.astype(float), k_none.astype(float), min_effect=MIN_GAIN,
                         what="accuracy(PEA) - accuracy(NoAdapt) on clean images with a planted feature shift "
                              "(+0.3 source SDs and a variance factor e^+-0.3, alternating, per channel at the first hooked block)")
    rows.append({"method": "planted shift: NoAdapt", "accuracy": float(k_none.mean())})
    rows.append({"method": "planted shift: PEA", "accuracy": float(k_pea.mean())})
    return ClaimResult(effect=eff, control=ctrl, table=rows,
                       details=f"model {name}; {R} independent continual streams of the 14 grey corruptions at "
                               f"severity 5, {n_per} images each, batches of 64, one adapter per stream (the paper's "
                               "continual protocol). Min effect 2 pp: half the smallest backprop-free gain over NoAdapt in the "
                               "spec's context table (NEO +3.6 pp).")


from validation.claims import claim as _claim  # noqa: E402

_REGIME = ("Severity-5 corruptions move the cached ResNet's block statistics away from the source's (NoAdapt "
           "falls from 91 % clean to about 65 %), and re-normalising them recovers much of the loss (BN-adapt "
           "reaches about 80 %), so the shift that PEA's moment alignment corrects is present and correctable; each "
           "corruption lasts 12 batches, long enough for the progressive target statistics to settle on it.")
_CONTROL = ("Clean test images with a per-channel covariate shift of known size planted in feature space at the "
            "first hooked block (every channel's mean moved up by 0.3 source SDs, variances scaled by e^+-0.3 alternately): PEA must undo it "
            "(accuracy gain over NoAdapt on the same images)")
_TEST = ("one-sided paired t over independent streams (stream accuracy), alpha 0.05; power for 2 pp; the control "
         "is paired over its test images")


@_claim(method="adaptation", paper=PAPER, budget=120, name="c_pea_beats_noadapt",
        claim="PEA, backprop-free, improves a source model's accuracy on corrupted data at severity 5",
        paper_setting="ImageNet-C / CIFAR-100-C, ResNet-50 and ViT-B/16, severity 5, 15 corruptions, continual, "
                      "batch 64",
        paper_number="qualitative: state-of-the-art accuracy among backprop-free methods (PEA's own table is not in "
                     "the offline corpus; context: NEO +3.6 pp over NoAdapt on ViT-B ImageNet-C)",
        regime=_REGIME, control=_CONTROL, test=_TEST)
def c_pea_beats_noadapt(profile, rng, variant=None, n_per=None, streams=None):
    return _pea_vs(profile, rng, variant, n_per, against="none", streams=streams)


@_claim(method="adaptation", paper=PAPER, budget=150, name="c_pea_beats_best_peer",
        claim="PEA is more accurate than the best backprop-free peer (BN-adapt, T3A, LAME, NEO) at severity 5",
        paper_setting="ImageNet-C / CIFAR-100-C, ResNet-50 and ViT-B/16, severity 5, 15 corruptions, continual, "
                      "batch 64",
        paper_number="qualitative: state-of-the-art accuracy among backprop-free methods (PEA's own table is not in "
                     "the offline corpus)",
        regime=_REGIME, control=_CONTROL,
        test=_TEST + "; the peer is the most accurate of the four on a disjoint selection stream")
def c_pea_beats_best_peer(profile, rng, variant=None, n_per=None, streams=None):
    return _pea_vs(profile, rng, variant, n_per, against="peer", streams=streams)
