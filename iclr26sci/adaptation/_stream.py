"""Test streams over corruptions x severities: continual (domain after domain) or shuffled (domains mixed)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from iclr26sci.core import InputError, check_bool, check_option, check_positive_int, check_rng, seed_sequence

#: the corruptions of the CIFAR-10-C engine that apply to grey images (``corruptions="all"`` on 1 channel)
GREY_CORRUPTIONS = ("gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise", "gaussian_blur", "defocus_blur",
                    "glass_blur", "zoom_blur", "fog", "brightness", "contrast", "jpeg_compression", "pixelate",
                    "elastic_transform")
#: the same for RGB images (adds ``saturate``)
RGB_CORRUPTIONS = GREY_CORRUPTIONS[:11] + ("saturate",) + GREY_CORRUPTIONS[11:]


def _builtin(shape, corruptions, backend):
    """The built-in engine as ``corrupt(images, c, s, rng)``, after checking the names for these images."""
    import functools

    from . import _corrupt

    if shape[1] not in (1, 3):
        raise InputError("data", f"has {shape[1]} channels", "1 (grey) or 3 (RGB) channels for the built-in corruptions")
    h, w = shape[2:]
    if backend == "auto":
        backend = "cifar-c" if min(h, w) < 32 else "imagenet-c"
    if backend == "imagenet-c":
        if min(h, w) < 32:
            raise InputError("backend", f"is 'imagenet-c' for {h}x{w} images",
                             "images of at least 32x32 px for imagecorruptions, or backend='cifar-c'")
        try:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from imagecorruptions import get_corruption_names
        except ImportError as exc:
            raise ImportError("CorruptedStream(backend='imagenet-c') needs the package 'imagecorruptions' (extra "
                              "'vision': pip install \"iclr26sci[vision]\"); or pass backend='cifar-c' or a "
                              "corrupt= callable") from exc
        known = tuple(get_corruption_names("all"))
    else:
        known = tuple(_corrupt.CIFAR_C)
    for c in corruptions:
        if c not in known:
            raise InputError("corruptions", f"holds {c!r}, which the {backend!r} engine does not implement",
                             "names from " + ", ".join(known) + " (or a corrupt= callable)")
        if c == "saturate" and shape[1] != 3:
            raise InputError("corruptions", "holds 'saturate' but the images are grey", "RGB images for 'saturate'")
    return functools.partial(_corrupt.corrupt, backend=backend)


class StreamBatch(NamedTuple):
    """One test batch: ``images`` (float32 tensor), ``labels`` (int64 tensor), and per-image ``corruption`` / ``severity``.

    Examples
    --------
    >>> import torch
    >>> b = StreamBatch(torch.zeros(2, 1, 4, 4), torch.zeros(2, dtype=torch.long), ("clean", "clean"), (0, 0))
    >>> b.images.shape, b.domain
    (torch.Size([2, 1, 4, 4]), 'clean-0')
    """

    images: object
    labels: object
    corruption: tuple
    severity: tuple

    @property
    def domain(self) -> str:
        """``"<corruption>-<severity>"`` of the first image (a continual batch holds one domain)."""
        return f"{self.corruption[0]}-{self.severity[0]}"


class CorruptedStream:
    r"""A test stream of corrupted images, in batches, over corruptions x severities.

    Each domain ``(c, s)`` is the whole image set (or ``n_per_domain`` images drawn from it) corrupted by
    the built-in engine (the common corruptions of Hendrycks and Dietterich 2019, the same images as
    ``data_adapters.corruptions.corrupt_images(x, c, s, rng, backend=backend)``) or by a user's
    ``corrupt(images, c, s, rng)``; every domain has its own seed (spawned from ``rng``) so the stream is
    the same each time it is iterated. ``order="continual"`` yields domain after domain (severity-major
    within each corruption: c1 s1..., the PEA/Tent protocol), each domain's images in a seeded random
    order; ``"shuffled"`` pools all (domain, image) pairs and shuffles them, so each batch mixes domains.
    The severity ``0`` means "clean" (the images unchanged).

    Parameters
    ----------
    data : ImageSet or tuple (images, labels)
        Clean images ``(n, C, H, W)`` in [0, 1] with integer labels.
    corruptions : "all", str or sequence of str, default "all"
        Corruption names understood by ``corrupt``; ``"all"``: the 14 (grey) or 15 (RGB) corruptions of the
        CIFAR-10-C engine of ``data_adapters.corruptions``.
    severity : int or sequence of int in 0..5, default 5
        Severities (0 = clean).
    order : {"continual", "shuffled"}, default "continual"
    batch_size : int, default 64
    rng : seed, default 0
    corrupt : callable, optional
        ``corrupt(images, corruption, severity, rng) -> images`` (numpy in and out) replacing the built-in
        engine, e.g. another corruption library.
    backend : {"auto", "cifar-c", "imagenet-c"}, default "auto"
        Constants and engine of the built-in corruptions (ignored with ``corrupt``): ``"cifar-c"``, the
        CIFAR-10-C constants on a numpy / scipy engine for any image size (the 14 grey or 15 RGB corruptions
        of ``corruptions="all"``); ``"imagenet-c"``, the ImageNet-C constants through the ``imagecorruptions``
        package (extra ``vision``; images of at least 32 px); ``"auto"``: ``"cifar-c"`` below 32 px, else
        ``"imagenet-c"`` (as ``data_adapters.corruptions``).
    n_per_domain : int, optional
        Images per domain (drawn without replacement, seeded); default: all.
    cache : bool, default True
        Keep corrupted domains in memory (they are regenerated identically otherwise).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).random((10, 1, 8, 8), dtype=np.float32); y = np.arange(10) % 2
    >>> noise = lambda x, c, s, rng: np.clip(x + 0.1 * s * np.random.default_rng(rng).standard_normal(x.shape), 0, 1)
    >>> st = CorruptedStream((X, y), corruptions=["noise"], severity=[1, 5], batch_size=4, corrupt=noise)
    >>> len(st), [b.domain for b in st]
    (6, ['noise-1', 'noise-1', 'noise-1', 'noise-5', 'noise-5', 'noise-5'])
    >>> st = CorruptedStream((X, y), corruptions="all", severity=5, batch_size=5)   # built-in CIFAR-10-C engine
    >>> len(st.domains), st.domains[0], next(iter(st)).images.shape
    (14, ('gaussian_noise', 5), torch.Size([5, 1, 8, 8]))
    """

    def __init__(self, data, corruptions="all", severity=5, order="continual", batch_size=64, rng=0, *,
                 corrupt=None, backend="auto", n_per_domain=None, cache=True):
        if hasattr(data, "images") and hasattr(data, "labels"):
            X, y = data.images, data.labels
        elif isinstance(data, tuple) and len(data) == 2:
            X, y = data
        else:
            raise InputError("data", f"got {type(data).__name__}", "an ImageSet or an (images, labels) tuple")
        try:
            import torch

            if isinstance(X, torch.Tensor):
                X = X.detach().cpu().numpy()
            if isinstance(y, torch.Tensor):
                y = y.detach().cpu().numpy()
        except ImportError:  # pragma: no cover
            pass
        X, y = np.asarray(X), np.asarray(y)
        if X.ndim != 4:
            raise InputError("data", f"has images of shape {X.shape}", "a 4-D image array (n, C, H, W)")
        if X.shape[0] == 0:
            raise InputError("data", "holds 0 images (a stream of size 0)", "at least one image")
        if X.dtype.kind != "f" or not np.all(np.isfinite(X)):
            raise InputError("data", "has non-float or non-finite images", "finite float intensities in [0, 1]")
        if y.shape != (X.shape[0],) or y.dtype.kind not in "iu":
            raise InputError("data", f"has labels of shape {y.shape} and dtype {y.dtype}", f"({X.shape[0]},) integer labels")
        if y.size and y.min() < 0:
            raise InputError("data", f"has a negative label ({int(y.min())})", "class labels 0..n_classes-1")
        cache = check_bool(cache, "cache")
        check_rng(rng)
        if isinstance(corruptions, str):
            corruptions = (GREY_CORRUPTIONS if X.shape[1] == 1 else RGB_CORRUPTIONS) if corruptions == "all" else (corruptions,)
        try:
            corruptions = tuple(corruptions)
        except TypeError:
            raise InputError("corruptions", f"got {corruptions!r}", "'all', a name, or a sequence of names") from None
        if not corruptions or not all(isinstance(c, str) and c for c in corruptions):
            raise InputError("corruptions", f"got {corruptions!r}", "a non-empty sequence of corruption names")
        sev = (severity,) if isinstance(severity, (int, np.integer)) and not isinstance(severity, bool) else severity
        try:
            sev = tuple(sev)
        except TypeError:
            raise InputError("severity", f"got {severity!r}", "an integer in 0..5 or a sequence of them") from None
        if not sev or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 0 <= s <= 5 for s in sev):
            raise InputError("severity", f"got {severity!r}", "integers in 0..5 (0 = clean)")
        self.order = check_option(order, "order", ("continual", "shuffled"))
        self.batch_size = check_positive_int(batch_size, "batch_size")
        if corrupt is not None and not callable(corrupt):
            raise InputError("corrupt", f"got {type(corrupt).__name__}", "a callable corrupt(images, corruption, severity, rng)")
        self.backend = check_option(backend, "backend", ("auto", "cifar-c", "imagenet-c"))
        if corrupt is None and any(s > 0 for s in sev):
            if X.min() < 0 or X.max() > 1:
                raise InputError("data", f"has intensities in [{X.min():.3g}, {X.max():.3g}]",
                                 "images in [0, 1] for the built-in corruptions (or a corrupt= callable)")
            corrupt = _builtin(X.shape, corruptions, self.backend)
        n = X.shape[0] if n_per_domain is None else check_positive_int(n_per_domain, "n_per_domain")
        if n > X.shape[0]:
            raise InputError("n_per_domain", f"is {n} but data holds {X.shape[0]} images", f"at most {X.shape[0]}")
        self.images, self.labels = X.astype(np.float32, copy=False), y.astype(np.int64)
        self.corruptions, self.severities, self.corrupt = corruptions, tuple(int(s) for s in sev), corrupt
        self.n_per_domain, self.cache = n, bool(cache)
        self.domains = [("clean", 0) if s == 0 else (c, s) for c in corruptions for s in self.severities]
        # clean appears once per severity-0 entry; drop duplicates while keeping order
        seen, doms = set(), []
        for d in self.domains:
            if d not in seen:
                seen.add(d)
                doms.append(d)
        self.domains = doms
        ss = seed_sequence(rng)
        kids = ss.spawn(len(self.domains) + 1)
        self._seeds = kids[:-1]
        self._order_seed = kids[-1]
        self._cache = {}

    def _domain(self, j):
        if j in self._cache:
            return self._cache[j]
        c, s = self.domains[j]
        g = np.random.default_rng(self._seeds[j])
        idx = np.sort(g.choice(self.images.shape[0], self.n_per_domain, replace=False)) \
            if self.n_per_domain < self.images.shape[0] else np.arange(self.images.shape[0])
        x = self.images[idx]
        if s > 0:
            x = np.asarray(self.corrupt(x, c, s, g), dtype=np.float32)
            if x.shape != (len(idx),) + self.images.shape[1:]:
                raise InputError("corrupt", f"returned shape {x.shape}", f"the input shape {(len(idx),) + self.images.shape[1:]}")
        perm = g.permutation(len(idx))
        out = (x[perm], self.labels[idx][perm])
        if self.cache:
            self._cache[j] = out
        return out

    def __len__(self):
        n = self.n_per_domain
        b = self.batch_size
        if self.order == "continual":
            return len(self.domains) * (-(-n // b))
        return -(-(n * len(self.domains)) // b)

    def __iter__(self):
        import torch

        b = self.batch_size
        if self.order == "continual":
            for j, (c, s) in enumerate(self.domains):
                x, y = self._domain(j)
                for i in range(0, x.shape[0], b):
                    k = min(b, x.shape[0] - i)
                    yield StreamBatch(torch.from_numpy(x[i:i + b]), torch.from_numpy(y[i:i + b]), (c,) * k, (s,) * k)
            return
        xs, ys, cs, ss = [], [], [], []
        for j, (c, s) in enumerate(self.domains):
            x, y = self._domain(j)
            xs.append(x)
            ys.append(y)
            cs += [c] * len(y)
            ss += [s] * len(y)
        X, Y = np.concatenate(xs), np.concatenate(ys)
        perm = np.random.default_rng(self._order_seed).permutation(len(Y))
        cs, ss = np.asarray(cs, dtype=object)[perm], np.asarray(ss)[perm]
        X, Y = X[perm], Y[perm]
        for i in range(0, len(Y), b):
            yield StreamBatch(torch.from_numpy(X[i:i + b]), torch.from_numpy(Y[i:i + b]), tuple(cs[i:i + b]),
                              tuple(int(v) for v in ss[i:i + b]))

    def __repr__(self):
        return (f"CorruptedStream({len(self.domains)} domains, {self.n_per_domain} images each, order={self.order!r}, "
                f"batch_size={self.batch_size}, {len(self)} batches)")


__all__ = ["CorruptedStream", "StreamBatch"]
