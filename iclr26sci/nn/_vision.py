"""Small image classifiers that train in minutes on a CPU: a BatchNorm ResNet and a LayerNorm ViT.

Both are ``torch.nn.Module`` s with a scikit-learn style interface (``fit`` returns ``self``; ``predict``,
``predict_proba``, ``score``, ``features``) and expose their residual / transformer blocks as
``model.blocks`` (a ``ModuleList``, names in ``model.block_names``) so that per-block methods such as PEA
test-time adaptation can attach forward hooks to them.
"""
from __future__ import annotations

import math

import numpy as np

from iclr26sci.core import (
    InputError, as_generator, check_bool, check_in_range, check_option, check_positive_int,
)

try:  # torch is a core dependency of the nn layer; this keeps the import error readable otherwise
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F
except ImportError as exc:  # pragma: no cover
    raise ImportError("iclr26sci.nn needs torch: pip install \"iclr26sci[nn]\"") from exc

from ._train import fit as _fit


# --------------------------------------------------------------------------------------- input handling
def _images(X, name="X"):
    """ImageSet / ndarray / tensor of shape (n, C, H, W), floats in [0, 1] -> float32 CPU tensor."""
    from ._data import ImageSet

    if isinstance(X, ImageSet):
        X = X.images
    if isinstance(X, torch.Tensor):
        t = X.detach()
    elif isinstance(X, np.ndarray):
        if X.dtype.kind not in "biuf":
            raise InputError(name, f"has dtype {X.dtype}", "floating pixel intensities in [0, 1]")
        t = torch.from_numpy(np.ascontiguousarray(X))
    else:
        raise InputError(name, f"got {type(X).__name__}", "an ImageSet, or an array / tensor of shape (n, C, H, W)")
    if t.ndim != 4:
        raise InputError(name, f"has shape {tuple(t.shape)}", "a 4-D batch (n, channels, height, width)")
    if t.shape[0] == 0:
        raise InputError(name, "is empty", "at least one image")
    if not t.is_floating_point():
        raise InputError(name, f"has dtype {t.dtype}", "floating pixel intensities in [0, 1] (divide uint8 by 255)")
    if not bool(torch.isfinite(t).all()):
        raise InputError(name, "contains NaN or infinite values", "finite pixel intensities in [0, 1]")
    return t.float().cpu()


def _labels(y, n, n_classes, name="y"):
    if isinstance(y, torch.Tensor):
        y = y.detach().cpu().numpy()
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise InputError(name, f"has shape {y.shape} for {n} images", f"shape ({n},), one class index per image")
    if y.dtype.kind not in "iu":
        if y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
            y = y.astype(np.int64)
        else:
            raise InputError(name, f"has dtype {y.dtype}", "integer class indices")
    if y.min() < 0 or y.max() >= n_classes:
        raise InputError(name, f"ranges over [{y.min()}, {y.max()}]", f"class indices in [0, {n_classes - 1}]")
    return torch.from_numpy(y.astype(np.int64))


def _xy(X, y, n_classes):
    from ._data import ImageSet

    if isinstance(X, ImageSet):
        if y is not None:
            raise InputError("y", "was given together with an ImageSet", "y=None (the ImageSet holds the labels)")
        return _images(X), _labels(X.labels, len(X), n_classes)
    if isinstance(X, tuple):
        if y is not None or len(X) != 2:
            raise InputError("X", "is a tuple that is not (images, labels)", "an ImageSet, (X, y), or X with y=...")
        X, y = X
    if y is None:
        raise InputError("y", "is missing", "class labels, or an ImageSet / (X, y) tuple as the first argument")
    x = _images(X)
    return x, _labels(y, x.shape[0], n_classes)


class _ImageClassifier(tnn.Module):
    """The shared scikit-learn style interface; subclasses define ``forward_features`` and ``head``."""

    _feature_dim: int

    def _init_common(self, n_classes, in_channels):
        self.n_classes = check_positive_int(n_classes, "n_classes", minimum=2)
        self.in_channels = check_positive_int(in_channels, "in_channels")
        # fitted state lives in buffers so that it travels with state_dict (cached models are "fitted")
        self.register_buffer("input_shape", torch.zeros(3, dtype=torch.int64))
        self.register_buffer("input_mean", torch.zeros(self.in_channels))
        self.register_buffer("input_std", torch.ones(self.in_channels))

    # ----- fitted-state helpers -----
    @property
    def input_shape_(self):
        """``(C, H, W)`` of the images the model was fitted on, or None before fitting."""
        s = tuple(int(v) for v in self.input_shape)
        return None if s == (0, 0, 0) else s

    @property
    def classes_(self) -> np.ndarray:
        """The class labels ``0 .. n_classes - 1``."""
        return np.arange(self.n_classes)

    @property
    def feature_dim(self) -> int:
        """Length of the penultimate-layer feature vector returned by :meth:`features`."""
        return self._feature_dim

    def _check_fitted(self, method):
        if self.input_shape_ is None:
            from iclr26sci.core import NotFittedError

            raise NotFittedError(type(self).__name__, "is not fitted yet", f"call fit(...) before {method}(...)")

    def _check_shape(self, x, name="X"):
        want = self.input_shape_
        if tuple(x.shape[1:]) != want:
            raise InputError(name, f"has images of shape {tuple(x.shape[1:])}", f"the fitted shape {want}")

    def _check_x(self, x, name="x"):
        """A batch ``(B, in_channels, H, W)`` tensor of the model's image size, checked before torch sees it."""
        if not torch.is_tensor(x):
            raise InputError(name, f"got {type(x).__name__}", "a torch tensor batch (B, C, H, W)")
        if x.ndim != 4:
            raise InputError(name, f"has shape {tuple(x.shape)}", f"a 4-D batch (B, {self.in_channels}, H, W)")
        if x.shape[1] != self.in_channels:
            raise InputError(name, f"has {x.shape[1]} channels", f"{self.in_channels} (the model's in_channels)")
        self._check_input_size(x, name)

    def _check_input_size(self, x, name="X"):
        pass

    def _normalise(self, x):
        return (x - self.input_mean.view(1, -1, 1, 1)) / self.input_std.view(1, -1, 1, 1)

    def forward(self, x):
        """Class logits ``(B, n_classes)`` of a batch ``x`` ``(B, C, H, W)`` of intensities in [0, 1]."""
        return self.head(self.forward_features(x))

    def _reset_parameters(self):
        for m in self.modules():
            if m is not self and hasattr(m, "reset_parameters"):
                m.reset_parameters()
        self._extra_init()

    def _extra_init(self):
        pass

    def _device(self):
        return next(self.parameters()).device

    # ----- scikit-learn style API -----
    def fit(self, X, y=None, *, epochs=5, batch_size=128, lr=3e-3, weight_decay=5e-4, optimizer="adamw",
            schedule="onecycle", val_fraction=None, patience=None, augment=False, label_smoothing=0.0,
            warm_start=False, rng=0, device=None, progress=True):
        """Train on labelled images (cross-entropy) with :func:`iclr26sci.nn.fit`; returns ``self``.

        Parameters
        ----------
        X : ImageSet, tuple (images, labels), or array / tensor (n, C, H, W) in [0, 1]
            Training images (and labels when an ImageSet or a tuple).
        y : array of int, optional
            Labels in ``0 .. n_classes - 1`` when ``X`` is an array.
        epochs, batch_size, lr, weight_decay, optimizer, schedule, val_fraction, patience
            Passed to :func:`iclr26sci.nn.fit` (defaults: 5 epochs, 128, 3e-3, 5e-4, AdamW, one-cycle).
        augment : bool, default False
            Random horizontal flips of half of every batch (seeded with ``rng``).
        label_smoothing : float in [0, 1), default 0
            Label smoothing of the cross-entropy.
        warm_start : bool, default False
            Continue from the current weights; by default the weights are re-initialised from ``rng``
            so that ``fit`` is a pure function of (data, settings, rng).
        rng : int, SeedSequence or Generator, default 0
            Seed of the initial weights, the shuffles and the augmentation.
        device : None, str or torch.device
            Where to train (None: where the model is).
        progress : bool, default True
            Progress bar over epochs (silent off a terminal and in CI).

        Sets ``fit_result_`` (:class:`~iclr26sci.nn.FitResult`), the buffers ``input_shape``,
        ``input_mean`` and ``input_std`` (per-channel standardisation from the training images).
        """
        x, t = _xy(X, y, self.n_classes)
        if x.shape[1] != self.in_channels:
            raise InputError("X", f"has {x.shape[1]} channels", f"{self.in_channels} (the model's in_channels)")
        self._check_input_size(x)
        augment = check_bool(augment, "augment")
        warm_start = check_bool(warm_start, "warm_start")
        label_smoothing = check_in_range(label_smoothing, "label_smoothing", 0.0, 1.0, high_open=True)
        gen = as_generator(rng)
        snapshot = {k: v.detach().clone() for k, v in self.state_dict().items()}
        try:
            return self._fit_checked(x, t, gen, epochs, batch_size, lr, weight_decay, optimizer, schedule,
                                     val_fraction, patience, augment, label_smoothing, warm_start, device, progress)
        except InputError:  # refused by nn.fit before training: leave the model as it was
            self.load_state_dict(snapshot)
            raise

    def _fit_checked(self, x, t, gen, epochs, batch_size, lr, weight_decay, optimizer, schedule, val_fraction,
                     patience, augment, label_smoothing, warm_start, device, progress):
        if not warm_start:
            init_seed = int(gen.integers(0, 2**63 - 1))
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(init_seed)
                self._reset_parameters()
            with torch.no_grad():
                self.input_mean.copy_(x.mean(dim=(0, 2, 3)))
                self.input_std.copy_(x.std(dim=(0, 2, 3)).clamp_min(1e-3))
        with torch.no_grad():
            self.input_shape.copy_(torch.tensor(x.shape[1:], dtype=torch.int64))

        def loss(model, xb, yb):
            if augment and model.training:
                flip = torch.rand(xb.shape[0], device=xb.device) < 0.5
                xb = torch.where(flip.view(-1, 1, 1, 1), xb.flip(-1), xb)
            return F.cross_entropy(model(xb), yb, label_smoothing=label_smoothing)

        self.fit_result_ = _fit(self, loss, (x, t), epochs=epochs, batch_size=batch_size, lr=lr,
                                optimizer=optimizer, weight_decay=weight_decay, schedule=schedule,
                                val_fraction=val_fraction, patience=patience, rng=gen, device=device,
                                progress=progress)
        return self

    def _batched(self, X, fn, batch_size, method):
        self._check_fitted(method)
        batch_size = check_positive_int(batch_size, "batch_size")
        x = _images(X)
        self._check_shape(x)
        dev = self._device()
        was = self.training
        self.eval()
        outs = []
        try:
            with torch.no_grad():
                for start in range(0, x.shape[0], batch_size):
                    outs.append(fn(x[start:start + batch_size].to(dev)).cpu())
        finally:
            self.train(was)
        return torch.cat(outs)

    def predict_proba(self, X, batch_size=512) -> np.ndarray:
        """Class probabilities ``softmax(logits)``, shape ``(n, n_classes)``; ``X`` as in :meth:`fit`."""
        return self._batched(X, lambda b: torch.softmax(self(b), dim=1), batch_size, "predict_proba").numpy()

    def predict(self, X, batch_size=512) -> np.ndarray:
        """Most probable class of each image, shape ``(n,)``."""
        return self._batched(X, self, batch_size, "predict").argmax(1).numpy()

    def score(self, X, y=None, batch_size=512) -> float:
        """Accuracy: the fraction of images whose predicted class equals the label."""
        self._check_fitted("score")
        x, t = _xy(X, y, self.n_classes)
        return float((self.predict(x, batch_size) == t.numpy()).mean())

    def features(self, X, batch_size=512) -> np.ndarray:
        """Penultimate-layer features, shape ``(n, feature_dim)`` (the head's input; eval mode)."""
        return self._batched(X, self.forward_features, batch_size, "features").numpy()

    def __repr__(self):  # short, not the module tree
        state = "fitted" if self.input_shape_ is not None else "unfitted"
        return f"{type(self).__name__}({self._describe()}, {state})"


# --------------------------------------------------------------------------------------------- ResNet
class BasicBlock(tnn.Module):
    """``relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x))``; the shortcut is 1x1 conv + BN when the shape changes."""

    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.conv1 = tnn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(c_out)
        self.conv2 = tnn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = tnn.BatchNorm2d(c_out)
        self.shortcut = (tnn.Identity() if stride == 1 and c_in == c_out else
                         tnn.Sequential(tnn.Conv2d(c_in, c_out, 1, stride, bias=False), tnn.BatchNorm2d(c_out)))

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(h)) + self.shortcut(x))


class SmallResNet(_ImageClassifier):
    r"""A small BatchNorm residual network for small images (Fashion-MNIST, digits, CIFAR-sized).

    Architecture: a 3x3 convolution stem (``stem_width`` channels, BatchNorm, ReLU), then one stage per
    entry of ``widths``, each ``blocks_per_stage`` :class:`BasicBlock` s (He et al. 2016) of which the
    first has stride ``strides[i]``, then global average pooling (the features) and a linear head:

    .. math::

        h_{\ell+1} = \operatorname{relu}\bigl(\mathrm{BN}(W_2 * \operatorname{relu}(\mathrm{BN}(W_1 * h_\ell)))
        + S h_\ell\bigr), \qquad \text{logits} = A \,\operatorname{avgpool}(h_L) + b .

    Inputs are intensities in [0, 1], standardised inside the model with per-channel training means
    and standard deviations (buffers set by :meth:`fit`), so callers never normalise.

    **Blocks (for hooks).** ``model.blocks`` is a ``ModuleList`` of all residual blocks, in forward
    order; ``model.block_names`` gives their ``named_modules`` names (``"blocks.0"``, ...). The output of
    block ``i`` is a ``(B, C_i, H_i, W_i)`` tensor; a forward hook on it may return a replacement. With the
    defaults on 28x28 input: ``blocks.0`` -> (B, 16, 14, 14), ``blocks.1`` -> (B, 32, 7, 7), ``blocks.2`` ->
    (B, 64, 4, 4). The stem
    (``model.stem``) is not a block. ``model.pool`` and ``model.head`` follow.

    Parameters
    ----------
    n_classes : int >= 2, default 10
        Number of classes (the width of the head).
    in_channels : int, default 1
        Image channels (1 for grey, 3 for RGB).
    widths : sequence of int, default (16, 32, 64)
        Channels of each stage.
    strides : sequence of int, optional
        Stride of the first block of each stage (default 2 for every stage).
    stem_width : int, default 16
        Channels of the stem convolution.
    blocks_per_stage : int, default 1
        Residual blocks per stage.

    Attributes
    ----------
    fit_result_ : FitResult
        The training history of the last :meth:`fit` (absent on a model loaded from a cache).
    input_shape_ : tuple
        ``(C, H, W)`` of the training images.

    References
    ----------
    He, Zhang, Ren and Sun, "Deep residual learning for image recognition", CVPR 2016.
    Ioffe and Szegedy, "Batch normalization", ICML 2015.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> X = g.random((64, 1, 12, 12), dtype=np.float32); y = (X[:, 0, :, :6].mean((1, 2)) > X[:, 0, :, 6:].mean((1, 2))).astype(int)
    >>> clf = SmallResNet(n_classes=2, widths=(8,), stem_width=4).fit(X, y, epochs=2, rng=0, progress=False)
    >>> clf.predict(X[:5]).shape, clf.features(X[:5]).shape, clf.block_names
    ((5,), (5, 8), ('blocks.0',))
    """

    def __init__(self, n_classes=10, in_channels=1, widths=(16, 32, 64), strides=None, stem_width=16,
                 blocks_per_stage=1):
        super().__init__()
        self._init_common(n_classes, in_channels)
        if isinstance(widths, (str, bytes)) or not hasattr(widths, "__iter__") or len(widths) == 0:
            raise InputError("widths", f"got {widths!r}", "a non-empty sequence of stage widths such as (16, 32, 64)")
        self.widths = tuple(check_positive_int(w, "widths") for w in widths)
        if strides is None:
            strides = (2,) * len(self.widths)
        if isinstance(strides, (str, bytes)) or not hasattr(strides, "__iter__") or len(strides) != len(self.widths):
            raise InputError("strides", f"got {strides!r}", f"{len(self.widths)} strides (one per stage) in {{1, 2}}")
        self.strides = tuple(check_positive_int(s, "strides") for s in strides)
        if any(s > 2 for s in self.strides):
            raise InputError("strides", f"got {self.strides}", "strides of 1 or 2")
        self.stem_width = check_positive_int(stem_width, "stem_width")
        self.blocks_per_stage = check_positive_int(blocks_per_stage, "blocks_per_stage")
        self.stem = tnn.Sequential(tnn.Conv2d(self.in_channels, self.stem_width, 3, 1, 1, bias=False),
                                   tnn.BatchNorm2d(self.stem_width), tnn.ReLU())
        blocks, c = [], self.stem_width
        for w, s in zip(self.widths, self.strides):
            for j in range(self.blocks_per_stage):
                blocks.append(BasicBlock(c, w, s if j == 0 else 1))
                c = w
        self.blocks = tnn.ModuleList(blocks)
        self.pool = tnn.AdaptiveAvgPool2d(1)
        self.head = tnn.Linear(c, self.n_classes)
        self._feature_dim = c
        self._extra_init()

    @property
    def block_names(self) -> tuple:
        """Names (as in ``named_modules``) of the residual blocks, in forward order."""
        return tuple(f"blocks.{i}" for i in range(len(self.blocks)))

    def _extra_init(self):
        for m in self.modules():
            if isinstance(m, tnn.Conv2d):
                tnn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        for b in self.blocks:  # zero-init the last BN of each residual branch (Goyal et al. 2017)
            tnn.init.zeros_(b.bn2.weight)

    def _check_input_size(self, x, name="X"):
        if min(x.shape[2:]) < 4:
            raise InputError(name, f"has images of size {tuple(x.shape[2:])}", "images of at least 4x4 pixels")

    def forward_features(self, x):
        """Penultimate features ``(B, widths[-1])`` of a batch of intensities in [0, 1]."""
        self._check_x(x)
        h = self.stem(self._normalise(x))
        for b in self.blocks:
            h = b(h)
        return self.pool(h).flatten(1)

    def _describe(self):
        return (f"n_classes={self.n_classes}, in_channels={self.in_channels}, widths={self.widths}, "
                f"blocks={len(self.blocks)}")


# ------------------------------------------------------------------------------------------------ ViT
class TransformerBlock(tnn.Module):
    """Pre-LayerNorm transformer block: ``x + MHA(LN(x))`` then ``x + MLP(LN(x))`` (GELU MLP)."""

    def __init__(self, dim, heads, mlp_dim, dropout):
        super().__init__()
        self.heads = heads
        self.norm1 = tnn.LayerNorm(dim)
        self.qkv = tnn.Linear(dim, 3 * dim)
        self.proj = tnn.Linear(dim, dim)
        self.norm2 = tnn.LayerNorm(dim)
        self.mlp = tnn.Sequential(tnn.Linear(dim, mlp_dim), tnn.GELU(), tnn.Dropout(dropout), tnn.Linear(mlp_dim, dim))
        self.drop = tnn.Dropout(dropout)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v)  # (b, heads, n, d_head)
        x = x + self.drop(self.proj(a.transpose(1, 2).reshape(b, n, d)))
        return x + self.drop(self.mlp(self.norm2(x)))


class SmallViT(_ImageClassifier):
    r"""A small LayerNorm vision transformer (ViT) for small images.

    The image is cut into non-overlapping ``patch_size`` x ``patch_size`` patches, each linearly embedded
    into ``dim`` features (a strided convolution); a learned class token is prepended and learned
    position embeddings added; ``depth`` pre-LN transformer blocks follow, then a final LayerNorm. The
    class token's normalised features feed a linear head:

    .. math::

        z_0 = [c; E x_1; \dots; E x_N] + P, \quad
        z'_\ell = z_{\ell-1} + \mathrm{MHA}(\mathrm{LN}(z_{\ell-1})), \quad
        z_\ell = z'_\ell + \mathrm{MLP}(\mathrm{LN}(z'_\ell)), \quad
        \text{logits} = A\, \mathrm{LN}(z_L)_0 + b.

    **Blocks (for hooks).** ``model.blocks`` is a ``ModuleList`` of the ``depth`` transformer blocks
    (names ``"blocks.0"``, ... in ``model.block_names``); block ``i`` outputs the token tensor
    ``(B, 1 + N, dim)``, the class token first, ``N = (H / patch_size) (W / patch_size)`` patch tokens after
    (49 on 28x28 images with the default patch 4). A forward hook may return a replacement.
    ``model.norm`` (final LayerNorm) and ``model.head`` follow.

    Parameters
    ----------
    n_classes : int >= 2, default 10
        Number of classes.
    in_channels : int, default 1
        Image channels.
    image_size : int, default 28
        Height and width of the (square) images; a multiple of ``patch_size``.
    patch_size : int, default 4
        Side of each patch.
    dim : int, default 64
        Token width; a multiple of ``heads``.
    depth : int, default 4
        Number of transformer blocks.
    heads : int, default 4
        Attention heads per block.
    mlp_ratio : float, default 2.0
        Hidden width of each block's MLP, as a multiple of ``dim``.
    dropout : float in [0, 1), default 0.0
        Dropout on the attention output and in the MLP.

    References
    ----------
    Dosovitskiy et al., "An image is worth 16x16 words: transformers for image recognition at scale",
    ICLR 2021. Ba, Kiros and Hinton, "Layer normalization", 2016.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).random((32, 1, 8, 8), dtype=np.float32); y = np.arange(32) % 2
    >>> vit = SmallViT(n_classes=2, image_size=8, patch_size=4, dim=16, depth=2, heads=2)
    >>> vit.fit(X, y, epochs=1, rng=0, progress=False).predict_proba(X[:3]).shape
    (3, 2)
    >>> vit.block_names
    ('blocks.0', 'blocks.1')
    """

    def __init__(self, n_classes=10, in_channels=1, image_size=28, patch_size=4, dim=64, depth=4, heads=4,
                 mlp_ratio=2.0, dropout=0.0):
        super().__init__()
        self._init_common(n_classes, in_channels)
        self.image_size = check_positive_int(image_size, "image_size")
        self.patch_size = check_positive_int(patch_size, "patch_size")
        if self.image_size % self.patch_size:
            raise InputError("patch_size", f"{self.patch_size} does not divide image_size {self.image_size}",
                             "a divisor of image_size")
        self.dim = check_positive_int(dim, "dim")
        self.depth = check_positive_int(depth, "depth")
        self.heads = check_positive_int(heads, "heads")
        if self.dim % self.heads:
            raise InputError("heads", f"{self.heads} does not divide dim {self.dim}", "a divisor of dim")
        self.mlp_ratio = check_in_range(mlp_ratio, "mlp_ratio", 0.0, None, low_open=True)
        self.dropout = check_in_range(dropout, "dropout", 0.0, 1.0, high_open=True)
        self.n_patches = (self.image_size // self.patch_size) ** 2
        self.patch_embed = tnn.Conv2d(self.in_channels, self.dim, self.patch_size, self.patch_size)
        self.cls_token = tnn.Parameter(torch.zeros(1, 1, self.dim))
        self.pos_embed = tnn.Parameter(torch.zeros(1, 1 + self.n_patches, self.dim))
        mlp_dim = max(1, int(round(self.mlp_ratio * self.dim)))
        self.blocks = tnn.ModuleList([TransformerBlock(self.dim, self.heads, mlp_dim, self.dropout)
                                      for _ in range(self.depth)])
        self.norm = tnn.LayerNorm(self.dim)
        self.head = tnn.Linear(self.dim, self.n_classes)
        self._feature_dim = self.dim
        self._extra_init()

    @property
    def block_names(self) -> tuple:
        """Names (as in ``named_modules``) of the transformer blocks, in forward order."""
        return tuple(f"blocks.{i}" for i in range(len(self.blocks)))

    def _extra_init(self):
        tnn.init.trunc_normal_(self.pos_embed, std=0.02)
        tnn.init.trunc_normal_(self.cls_token, std=0.02)
        for m in self.modules():
            if isinstance(m, tnn.Linear):
                tnn.init.trunc_normal_(m.weight, std=0.02)
                tnn.init.zeros_(m.bias)

    def _check_input_size(self, x, name="X"):
        if tuple(x.shape[2:]) != (self.image_size, self.image_size):
            raise InputError(name, f"has images of size {tuple(x.shape[2:])}",
                             f"{self.image_size}x{self.image_size} images (the model's image_size)")

    def tokens(self, x):
        """The input tokens ``z_0`` ``(B, 1 + N, dim)`` (class token first) of a batch in [0, 1]."""
        self._check_x(x)
        p = self.patch_embed(self._normalise(x)).flatten(2).transpose(1, 2)
        return torch.cat([self.cls_token.expand(x.shape[0], -1, -1), p], dim=1) + self.pos_embed

    def forward_features(self, x):
        """Penultimate features: the final-LayerNorm class token, ``(B, dim)``."""
        z = self.tokens(x)
        for b in self.blocks:
            z = b(z)
        return self.norm(z)[:, 0]

    def _describe(self):
        return (f"n_classes={self.n_classes}, image_size={self.image_size}, patch_size={self.patch_size}, "
                f"dim={self.dim}, depth={self.depth}")


__all__ = ["SmallResNet", "SmallViT"]
_ = (math, check_option)  # kept for subclasses' option checks
