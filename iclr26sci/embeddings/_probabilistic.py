"""Probabilistic (diagonal Gaussian) text embeddings from a frozen encoder via a
post-hoc Laplace approximation on one linear layer."""
from __future__ import annotations

import numpy as np
import torch

from iclr26sci.core import InputError, as_generator, check_in_range, check_option, check_positive_int

from ._encoders import TextEncoder, TransformerEncoder, check_texts
from ._laplace import DiagLaplaceLinear
from ._uec import GaussianEmbeddings, normalize_gaussian

__all__ = ["ProbabilisticEncoder", "check_pairs", "alignment_matrix"]


def check_pairs(pairs, name: str = "pairs") -> list[tuple[str, str]]:
    """Validate a non-empty list of (query, positive) string pairs."""
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__len__"):
        raise InputError(name, f"got {type(pairs).__name__}", "a list of (query, positive) string pairs")
    pairs = list(pairs)
    if len(pairs) < 2:
        raise InputError(name, f"has {len(pairs)} pair(s)", "at least 2 pairs (in-batch negatives)")
    for i, p in enumerate(pairs):
        if not (isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(s, str) for s in p)):
            raise InputError(name, f"item {i} is {p!r:.60}", "a (str, str) pair")
    return [(str(a), str(b)) for a, b in pairs]


def alignment_matrix(d_in: int, d_out: int, rng=0) -> np.ndarray:
    """Initial adapter ``W0`` (d_out, d_in) that aligns dimensions.

    Identity when equal; orthonormal columns (an isometry: inner products are
    kept exactly) when ``d_out > d_in``; orthonormal rows (a random
    orthogonal projection) when ``d_out < d_in``.
    """
    if d_in == d_out:
        return np.eye(d_in)
    g = as_generator(rng)
    A = g.standard_normal((max(d_in, d_out), min(d_in, d_out)))
    Q, R = np.linalg.qr(A)
    Q = Q * np.sign(np.diag(R))
    return Q if d_out > d_in else Q.T


class ProbabilisticEncoder:
    r"""A frozen encoder turned into a diagonal Gaussian embedding by a post-hoc Laplace approximation.

    Two variants (``method``):

    * ``"ffn"`` (UEC proper): the weight :math:`W\in\mathbb R^{H\times I}` of the
      last transformer block's FFN output projection is random, with a diagonal
      Laplace posterior fitted under the in-batch contrastive likelihood on
      the mean-pooled (unnormalised) output. The variance is propagated in the
      same forward pass that gives the mean:

      .. math::

          \sigma^2_d(x) = s\,\gamma_d^2 \sum_{i=1}^{I} V_{d,i}\,
          \Bigl(\tfrac{1}{T}\textstyle\sum_t a_{t,i}(x)/s_t(x)\Bigr)^2
          \quad(\text{propagation="linearized"}),

      the first-order variance through the output LayerNorm (its diagonal
      Jacobian :math:`\gamma_d/s_t`) and mean pooling; ``propagation="code"``
      uses the official code's :math:`\sum_i V_{d,i}\,\bar a_i^2` with
      :math:`\bar a` the mean-pool of a parameter-free LayerNorm of the
      activations.
    * ``"adapter"`` (any black-box encoder): a linear adapter
      :math:`z = W e(x)` on the frozen, L2-normalised output (scaled by
      ``input_scale``), initialised at :func:`alignment_matrix`, which also
      aligns the output dimension to ``dim``; :math:`\sigma^2_d(x) = \sum_i
      V_{d,i} e_i(x)^2`.

    Parameters
    ----------
    encoder : TextEncoder
        E.g. ``encoders.minilm()``.
    method : {"auto", "ffn", "adapter"}
        ``"auto"``: ``"ffn"`` for BERT-family transformers whose output dimension
        already equals ``dim``, else ``"adapter"``.
    dim : int, optional
        Output dimension (the adapter aligns to it); default the encoder's.
    prior_precision : float > 0
        :math:`\tau_0` of the Laplace approximation (official: 1e-5).
    prune : bool
        Official post-processing: zero the variance where :math:`|\hat W| < \sqrt v`.
    propagation : {"linearized", "code"}
        FFN variant only, see above.
    curvature : {"ef", "mc_fisher"}
        Empirical Fisher (official) or label-sampled Fisher (see :class:`DiagLaplaceLinear`).
    impute_dead_dims : bool
        FFN variant: output dimensions whose LayerNorm gain is numerically zero
        (gain below 1e-3 of the median gain; all-MiniLM-L6-v2 has three, at 5e-33, 6e-33 and
        1.5e-9) are constants with zero first-order
        variance; they would dominate the total precision
        :math:`\sum_d 1/\sigma_d^2`. When True they get the text's median
        variance instead (neutral for the coefficients).
    scale : float > 0
        Per-model variance factor :math:`s_k`.
    input_scale : float > 0
        Adapter variant: norm given to the input embedding (logits are
        ``input_scale**2`` times cosines at initialisation).
    rng : seed for the alignment matrix and batch shuffling.

    Attributes
    ----------
    laplace_ : DiagLaplaceLinear
        The fitted posterior (after :meth:`fit_laplace`).
    method_ : str
    W0_ : ndarray (dim, d_in), adapter variant only.

    References
    ----------
    Lim et al., Uncertainty-driven Embedding Convolution, ICLR 2026 (arXiv:2507.20718), Sec. 3.1.
    """

    def __init__(self, encoder, method: str = "auto", dim: int | None = None, prior_precision: float = 1e-5,
                 prune: bool = False, propagation: str = "linearized", scale: float = 1.0,
                 input_scale: float = float(np.sqrt(20.0)), curvature: str = "ef",
                 impute_dead_dims: bool = True, rng=0,
                 name: str | None = None):
        if not isinstance(encoder, TextEncoder):
            raise InputError("encoder", f"got {type(encoder).__name__}", "a TextEncoder (see iclr26sci.embeddings.encoders)")
        self.encoder = encoder
        self.method = check_option(method, "method", ("auto", "ffn", "adapter"))
        self.dim = encoder.dim if dim is None else check_positive_int(dim, "dim")
        self.prior_precision = check_in_range(prior_precision, "prior_precision", 0.0, None, low_open=True)
        self.prune = bool(prune)
        self.propagation = check_option(propagation, "propagation", ("linearized", "code"))
        self.scale = check_in_range(scale, "scale", 0.0, None, low_open=True)
        self.input_scale = check_in_range(input_scale, "input_scale", 0.0, None, low_open=True)
        self.curvature = check_option(curvature, "curvature", ("ef", "mc_fisher"))
        self.impute_dead_dims = bool(impute_dead_dims)
        self.rng = rng
        self.name = name or encoder.name
        ffn_ok = isinstance(encoder, TransformerEncoder) and encoder.supports_ffn_laplace
        if self.method == "ffn":
            if not ffn_ok:
                raise InputError("method", f"'ffn' needs a BERT-family TransformerEncoder, got {encoder!r}",
                                 "'adapter' for this encoder")
            if self.dim != encoder.dim:
                raise InputError("dim", f"got {self.dim} but the FFN variant keeps the model's {encoder.dim}",
                                 f"dim={encoder.dim}, or method='adapter' to align dimensions")
        self.method_ = ("ffn" if ffn_ok and self.dim == encoder.dim else "adapter") if self.method == "auto" else self.method
        if self.method_ == "adapter":
            self.W0_ = alignment_matrix(encoder.dim, self.dim, rng=self._child_seed(0))

    def _child_seed(self, i):
        return np.random.SeedSequence([int(as_generator(self.rng).integers(2**31 - 1)) if not isinstance(self.rng, int) else self.rng, i])

    @property
    def is_fitted(self) -> bool:
        return hasattr(self, "laplace_")

    def __repr__(self):
        return (f"ProbabilisticEncoder({self.name!r}, method={self.method_!r}, dim={self.dim}, "
                f"fitted={self.is_fitted})")

    # ------------------------------------------------------------------ fit
    def _batches(self, pairs, batch_size, rng, shuffle=True):
        order = as_generator(rng).permutation(len(pairs)) if shuffle else np.arange(len(pairs))
        idx = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
        if len(idx) > 1 and len(idx[-1]) < 2:  # a batch of one carries no contrastive signal
            idx[-2] = np.concatenate([idx[-2], idx[-1]])
            idx.pop()
        return idx

    def fit_laplace(self, pairs, *, batch_size: int = 32, rng=None, shuffle: bool = True,
                    show_progress: bool | None = None, calibration_pairs=None):
        """Fit the diagonal Laplace posterior on positive ``pairs`` [(query, positive), ...].

        Batches are shuffled with ``rng`` (default: the encoder's ``rng``) unless
        ``shuffle=False``; every other pair in a batch is a negative. With
        ``calibration_pairs`` (held-out positive pairs, disjoint from ``pairs``)
        :meth:`calibrate` is called afterwards; by default the variance is left
        uncalibrated, as in the paper. Refitting drops an earlier calibration. Returns ``self``.
        """
        pairs = check_pairs(pairs)
        if calibration_pairs is not None:
            calibration_pairs = check_pairs(calibration_pairs, "calibration_pairs")
        batch_size = check_positive_int(batch_size, "batch_size", minimum=2)
        rng = self._child_seed(1) if rng is None else rng
        idx = self._batches(pairs, batch_size, rng, shuffle)
        la = DiagLaplaceLinear(prior_precision=self.prior_precision, prune=self.prune, curvature=self.curvature,
                               n_samples=4 if self.curvature == "mc_fisher" else 1, rng=self._child_seed(2))
        if self.method_ == "ffn":
            enc = self.encoder
            W = enc.ffn_output.dense.weight.detach()

            def gen():
                for b in idx:
                    q = enc.ffn_inputs([pairs[i][0] for i in b])
                    p = enc.ffn_inputs([pairs[i][1] for i in b])
                    yield q, p

            la.fit(enc.embed_from_ffn, W, gen(), n_batches=len(idx), show_progress=bool(show_progress))
        else:
            texts = [t for pr in pairs for t in pr]
            E = self._adapter_inputs(texts)
            Eq, Ep = E[0::2], E[1::2]
            W = torch.as_tensor(self.W0_, dtype=torch.float64)

            def embed(Wt, X):
                return X @ Wt.T

            batches = ((torch.as_tensor(Eq[b]), torch.as_tensor(Ep[b])) for b in idx)
            la.fit(embed, W, batches, n_batches=len(idx), show_progress=bool(show_progress))
        self.laplace_ = la
        self.n_pairs_ = len(pairs)
        for attr in ("variance_scale_", "calibration_"):
            if hasattr(self, attr):
                delattr(self, attr)
        if calibration_pairs is not None:
            self.calibrate(calibration_pairs, show_progress=show_progress)
        return self

    @property
    def is_calibrated(self) -> bool:
        return hasattr(self, "variance_scale_")

    def calibrate(self, pairs, *, show_progress: bool | None = None):
        r"""Fit one variance scale :math:`c` for this member on held-out positive pairs.

        The Laplace variances of different encoders are not on a common scale
        (each depends on its layer's width, its prior precision, its logit scale and,
        through the empirical Fisher, on how *wrong* the model is on the fitting pairs),
        while UEC's softmax of total precision compares them directly. This
        option puts every member on one observable scale: the two (normalised)
        embeddings of a held-out positive pair are treated as noisy views of one
        latent embedding,

        .. math::

            \hat\mu(q_n) - \hat\mu(p_n) \sim \mathcal Nigl(0,\;
            c\,[\hat\sigma^2(q_n) + \hat\sigma^2(p_n)]igr)
            \quad	ext{(independent dimensions)},

        whose maximum-likelihood scale is

        .. math::

            \hat c = rac{1}{ND}\sum_{n=1}^{N}\sum_{d=1}^{D}
            rac{(\hat\mu_d(q_n) - \hat\mu_d(p_n))^2}{\hat\sigma_d^2(q_n) + \hat\sigma_d^2(p_n)} ,

        with the delta-normalised (uncalibrated) variances. Afterwards the raw
        variance is multiplied by :math:`\hat c` (a fitted version of the
        per-model factor :math:`s_k` of the official code), so the
        standardised squared disagreement of positive pairs is 1 on average.
        It rescales a member's variances; it cannot change their ordering across texts.

        Use pairs disjoint from those of :meth:`fit_laplace`. Sets
        ``variance_scale_`` and ``calibration_`` (a dict with the number of pairs and
        the median standardised squared residual). Returns ``self``.
        """
        if not self.is_fitted:
            raise InputError("self", f"{self.name} is not fitted for uncertainty",
                             "call .fit_laplace(pairs) before .calibrate(pairs)")
        pairs = check_pairs(pairs)
        texts = [t for pr in pairs for t in pr]
        mean, var = self._raw_uncalibrated(texts, True, show_progress)
        mean, var = normalize_gaussian(mean, var, "delta")
        r2 = (mean[0::2] - mean[1::2]) ** 2
        z2 = r2 / np.maximum(var[0::2] + var[1::2], 1e-300)
        c = float(np.mean(z2))
        if not np.isfinite(c) or c <= 0:
            raise InputError("pairs", f"give a degenerate variance scale ({c})",
                             "held-out pairs whose two texts have different embeddings")
        self.variance_scale_ = c
        self.calibration_ = {"n_pairs": len(pairs), "variance_scale": c,
                             "median_standardised_sq_residual": float(np.median(z2) / c)}
        return self

    def _adapter_inputs(self, texts, show_progress=None):
        E = self.encoder.encode(texts, show_progress=show_progress)
        n = np.linalg.norm(E, axis=1, keepdims=True)
        return self.input_scale * E / np.where(n > 0, n, 1.0)

    # ------------------------------------------------------------------ encode
    def _raw(self, texts, need_var, show_progress=None):
        mean, var = self._raw_uncalibrated(texts, need_var, show_progress)
        if var is not None and self.is_calibrated:
            var = var * self.variance_scale_
        return mean, var

    def _raw_uncalibrated(self, texts, need_var, show_progress=None):
        if self.method_ == "ffn":
            mean, lin, code = self.encoder.encode_with_features(texts, show_progress=show_progress)
            if not need_var:
                return mean, None
            if self.propagation == "linearized":
                gamma = self.encoder.ffn_output.LayerNorm.weight.detach().double().numpy()
                var = self.laplace_.propagate(lin, out_scale=gamma, scale=self.scale)
                dead = np.abs(gamma) <= 1e-3 * np.median(np.abs(gamma))
                if self.impute_dead_dims and dead.any() and not dead.all():
                    # outputs with zero LayerNorm gain are constants (the bias): zero variance that
                    # carries no information; give them the text's median variance so they do not
                    # dominate the total precision
                    var[:, dead] = np.median(var[:, ~dead], axis=1, keepdims=True)
            else:
                var = self.laplace_.propagate(code, scale=self.scale)
            return mean, var
        E = self._adapter_inputs(texts, show_progress=show_progress)
        mean = E @ self.W0_.T
        var = None
        if need_var:
            var = self.laplace_.propagate(E, scale=self.scale)
            # an all-zero base embedding (e.g. LSA on out-of-vocabulary text) carries no information;
            # the linearisation would call it certain (variance 0), so give it the prior predictive
            # variance of an input of norm input_scale instead
            empty = ~np.any(E != 0, axis=1)
            if empty.any():
                var[empty] = self.scale * self.input_scale**2 / self.prior_precision
        return mean, var

    def encode(self, texts, *, normalize: bool = True, variance_norm: str = "delta",
               show_progress: bool | None = None) -> GaussianEmbeddings:
        r"""Diagonal Gaussian embedding :math:`(\mu(x), \sigma^2(x))` of each text.

        With ``normalize`` the result is :func:`normalize_gaussian` ``(variance_norm)``
        (``"delta"``: :math:`\sigma^2/\lVert\mu\rVert^2`; ``"code"``: the official
        :math:`\sigma^2/\lVert\sigma^2\rVert^2`).
        """
        texts = check_texts(texts)
        variance_norm = check_option(variance_norm, "variance_norm", ("delta", "code", "none"))
        if not self.is_fitted:
            raise InputError("encoder", f"{self.name} is not fitted for uncertainty",
                             "call .fit_laplace(pairs) first (or use encode_mean for the mean only)")
        mean, var = self._raw(texts, True, show_progress)
        if normalize:
            mean, var = normalize_gaussian(mean, var, variance_norm)
        return GaussianEmbeddings(mean=mean, var=var)

    def encode_mean(self, texts, *, normalize: bool = True, show_progress: bool | None = None) -> np.ndarray:
        """The mean embedding only (no Laplace fit needed)."""
        texts = check_texts(texts)
        mean, _ = self._raw(texts, False, show_progress)
        if normalize:
            n = np.linalg.norm(mean, axis=1, keepdims=True)
            mean = mean / np.where(n > 0, n, 1.0)
        return mean
