"""Probabilistic (diagonal Gaussian) text embeddings from a frozen encoder via a
post-hoc Laplace approximation on one linear layer."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import (
    InputError,
    as_generator,
    resolve_rng,
    check_bool,
    check_in_range,
    check_option,
    check_positive_int,
)

from ._encoders import TextEncoder, TransformerEncoder, check_texts
from ._uec import GaussianEmbeddings, normalize_gaussian

__all__ = ["ProbabilisticEncoder", "check_pairs", "alignment_matrix"]


def check_pairs(pairs, name: str = "pairs") -> list[tuple[str, str]]:
    """Validate a list of at least two (query, positive) string pairs; returns it as a list of tuples.

    Parameters
    ----------
    pairs : sequence of (str, str)
        Positive pairs: the second text is a paraphrase / relevant passage of the first.
    name : str
        The argument name used in the error message.

    Examples
    --------
    >>> from iclr26sci.embeddings import check_pairs
    >>> check_pairs([["a", "b"], ("c", "d")])
    [('a', 'b'), ('c', 'd')]
    """
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

    Parameters
    ----------
    d_in : int
        Dimension of the member's own embedding.
    d_out : int
        Common dimension of the ensemble.
    rng : int or Generator
        Seed of the random orthonormal basis.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.embeddings import alignment_matrix
    >>> W = alignment_matrix(2, 4)
    >>> W.shape, np.allclose(W.T @ W, np.eye(2))
    ((4, 2), True)
    """
    d_in = check_positive_int(d_in, "d_in")
    d_out = check_positive_int(d_out, "d_out")
    if d_in == d_out:
        return np.eye(d_in)
    g = as_generator(rng)
    A = g.standard_normal((max(d_in, d_out), min(d_in, d_out)))
    Q, R = np.linalg.qr(A)
    Q = Q * np.sign(np.diag(R))
    return Q if d_out > d_in else Q.T


class ProbabilisticEncoder(BaseEstimator):
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
        The frozen encoder whose embedding gets a variance, e.g. ``encoders.minilm()``.
    method : {"auto", "ffn", "adapter"}
        Where the random layer sits. ``"auto"``: ``"ffn"`` for BERT-family transformers whose output
        dimension already equals ``dim``, else ``"adapter"``.
    dim : int, optional
        Output dimension shared by the ensemble (the adapter aligns to it); default the encoder's.
    prior_precision : float > 0
        :math:`\tau_0`, precision of the Gaussian prior on the random layer's weights (official: 1e-5,
        so the contrastive data dominate the posterior).
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
    rng : int or Generator
        Seed of the alignment matrix and of the batch shuffling.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.
    name : str, optional
        Label in reports (default: the encoder's name).

    Attributes
    ----------
    laplace_ : DiagLaplaceLinear
        The fitted posterior (after :meth:`fit_laplace`).
    method_ : str
        The variant in use (``"ffn"`` or ``"adapter"``).
    dim_ : int
        Output dimension.
    W0_ : ndarray (dim, d_in), adapter variant only.
    n_pairs_ : int
        Pairs seen by the Laplace fit.

    References
    ----------
    Lim et al., Uncertainty-driven Embedding Convolution, ICLR 2026 (arXiv:2507.20718), Sec. 3.1.

    Examples
    --------
    >>> from iclr26sci.embeddings import ProbabilisticEncoder, encoders
    >>> lsa = encoders.lsa_lee(n_components=16)
    >>> pe = ProbabilisticEncoder(lsa, dim=16).fit_laplace(encoders.lee_pairs(8, rng=0), batch_size=4)
    >>> g = pe.encode(["A bushfire forced residents to leave."])
    >>> g.mean.shape, bool((g.var > 0).all())
    ((1, 16), True)
    """

    def __init__(self, encoder, method: str = "auto", dim: int | None = None, prior_precision: float = 1e-5,
                 prune: bool = False, propagation: str = "linearized", scale: float = 1.0,
                 input_scale: float = float(np.sqrt(20.0)), curvature: str = "ef",
                 impute_dead_dims: bool = True, rng=0, random_state=None,
                 name: str | None = None):
        self.encoder = encoder
        self.method = method
        self.dim = dim
        self.prior_precision = prior_precision
        self.prune = prune
        self.propagation = propagation
        self.scale = scale
        self.input_scale = input_scale
        self.curvature = curvature
        self.impute_dead_dims = impute_dead_dims
        self.rng = rng
        self.random_state = random_state
        self.name = name
        self._validate_params()  # fail early; the parameters are stored unmodified (scikit-learn convention)

    def _validate_params(self) -> dict:
        """Checked parameters (raises InputError); called by __init__, fit and every use."""
        encoder = self.encoder
        if not isinstance(encoder, TextEncoder):
            raise InputError("encoder", f"got {type(encoder).__name__}", "a TextEncoder (see iclr26sci.embeddings.encoders)")
        p = {"method": check_option(self.method, "method", ("auto", "ffn", "adapter")),
             "dim": encoder.dim if self.dim is None else check_positive_int(self.dim, "dim"),
             "prior_precision": check_in_range(self.prior_precision, "prior_precision", 0.0, None, low_open=True),
             "prune": check_bool(self.prune, "prune"),
             "propagation": check_option(self.propagation, "propagation", ("linearized", "code")),
             "scale": check_in_range(self.scale, "scale", 0.0, None, low_open=True),
             "input_scale": check_in_range(self.input_scale, "input_scale", 0.0, None, low_open=True),
             "curvature": check_option(self.curvature, "curvature", ("ef", "mc_fisher")),
             "impute_dead_dims": check_bool(self.impute_dead_dims, "impute_dead_dims")}
        resolve_rng(self.rng, self.random_state, default=0)
        if self.name is not None and (not isinstance(self.name, str) or not self.name):
            raise InputError("name", f"got {self.name!r}", "a non-empty string label, or None")
        ffn_ok = isinstance(encoder, TransformerEncoder) and encoder.supports_ffn_laplace
        if p["method"] == "ffn":
            if not ffn_ok:
                raise InputError("method", f"'ffn' needs a BERT-family TransformerEncoder, got {encoder!r}",
                                 "'adapter' for this encoder")
            if p["dim"] != encoder.dim:
                raise InputError("dim", f"got {p['dim']} but the FFN variant keeps the model's {encoder.dim}",
                                 f"dim={encoder.dim}, or method='adapter' to align dimensions")
        p["method_"] = ("ffn" if ffn_ok and p["dim"] == encoder.dim else "adapter") if p["method"] == "auto" \
            else p["method"]
        return p

    def _resolve(self) -> dict:
        """Validated parameters, with the structural attributes (method_, dim_, W0_) set."""
        p = self._validate_params()
        self.method_ = p["method_"]
        self.dim_ = p["dim"]
        if self.method_ == "adapter":
            if getattr(self, "W0_", None) is None or self.W0_.shape != (p["dim"], self.encoder.dim):
                self.W0_ = alignment_matrix(self.encoder.dim, p["dim"], rng=self._child_seed(0))
        elif hasattr(self, "W0_"):
            del self.W0_
        return p

    @property
    def output_dim(self) -> int:
        """Dimension of the Gaussian embedding (``dim``, or the encoder's)."""
        return self._validate_params()["dim"]

    @property
    def label(self) -> str:
        """Name shown in reports (``name``, or the encoder's)."""
        return self.name or getattr(self.encoder, "name", type(self.encoder).__name__)

    def _child_seed(self, i):
        rng = resolve_rng(self.rng, self.random_state, default=0)
        return np.random.SeedSequence([int(as_generator(rng).integers(2**31 - 1)) if not isinstance(rng, int) else rng, i])

    @property
    def is_fitted(self) -> bool:
        """Whether :meth:`fit_laplace` has run (the variance is available)."""
        return hasattr(self, "laplace_")

    def _require_fitted(self, method):
        from iclr26sci.core import NotFittedError

        if not self.is_fitted:
            raise NotFittedError(f"ProbabilisticEncoder.{method}", f"({self.label}) is not fitted for uncertainty",
                                 "call .fit_laplace(pairs) first (or .encode_mean(texts) for the mean only)")

    # ------------------------------------------------------------------ fit
    def _batches(self, pairs, batch_size, rng, shuffle=True):
        order = as_generator(rng).permutation(len(pairs)) if shuffle else np.arange(len(pairs))
        idx = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
        if len(idx) > 1 and len(idx[-1]) < 2:  # a batch of one carries no contrastive signal
            idx[-2] = np.concatenate([idx[-2], idx[-1]])
            idx.pop()
        return idx

    def fit_laplace(self, pairs, *, batch_size: int = 32, rng=None, shuffle: bool = True,
                    progress: bool | None = None, calibration_pairs=None):
        """Fit the diagonal Laplace posterior on positive ``pairs`` [(query, positive), ...].

        Batches are shuffled with ``rng`` (default: the encoder's ``rng``) unless
        ``shuffle=False``; every other pair in a batch is a negative. With
        ``calibration_pairs`` (held-out positive pairs, disjoint from ``pairs``)
        :meth:`calibrate` is called afterwards; by default the variance is left
        uncalibrated, as in the paper. Refitting drops an earlier calibration. Returns ``self``.
        """
        import torch

        from ._laplace import DiagLaplaceLinear

        prm = self._resolve()
        pairs = check_pairs(pairs)
        if calibration_pairs is not None:
            calibration_pairs = check_pairs(calibration_pairs, "calibration_pairs")
        batch_size = check_positive_int(batch_size, "batch_size", minimum=2)
        shuffle = check_bool(shuffle, "shuffle")
        if progress is not None:
            progress = check_bool(progress, "progress")
        else:
            from iclr26sci.core import progress_enabled

            progress = progress_enabled() and self.method_ == "ffn"  # the FFN fit takes seconds to minutes
        rng = self._child_seed(1) if rng is None else rng
        idx = self._batches(pairs, batch_size, rng, shuffle)
        la = DiagLaplaceLinear(prior_precision=prm["prior_precision"], prune=prm["prune"],
                               curvature=prm["curvature"], n_samples=4 if prm["curvature"] == "mc_fisher" else 1,
                               rng=self._child_seed(2))
        if self.method_ == "ffn":
            enc = self.encoder
            W = enc.ffn_output.dense.weight.detach()

            def gen():
                for b in idx:
                    q = enc.ffn_inputs([pairs[i][0] for i in b])
                    p = enc.ffn_inputs([pairs[i][1] for i in b])
                    yield q, p

            la.fit(enc.embed_from_ffn, W, gen(), n_batches=len(idx), progress=bool(progress))
        else:
            texts = [t for pr in pairs for t in pr]
            E = self._adapter_inputs(texts)
            Eq, Ep = E[0::2], E[1::2]
            W = torch.as_tensor(self.W0_, dtype=torch.float64)

            def embed(Wt, X):
                return X @ Wt.T

            batches = ((torch.as_tensor(Eq[b]), torch.as_tensor(Ep[b])) for b in idx)
            la.fit(embed, W, batches, n_batches=len(idx), progress=bool(progress))
        self.laplace_ = la
        self.n_pairs_ = len(pairs)
        for attr in ("variance_scale_", "calibration_"):
            if hasattr(self, attr):
                delattr(self, attr)
        if calibration_pairs is not None:
            self.calibrate(calibration_pairs, progress=progress)
        return self

    def fit(self, X, y=None, **kwargs):
        """scikit-learn spelling of :meth:`fit_laplace`: ``X`` is the list of positive pairs, ``y`` is unused."""
        if y is not None:
            raise InputError("y", "is not used (the pairs carry their own labels: the diagonal)", "None")
        return self.fit_laplace(X, **kwargs)

    @property
    def is_calibrated(self) -> bool:
        """Whether :meth:`calibrate` has set a variance scale."""
        return hasattr(self, "variance_scale_")

    def calibrate(self, pairs, *, progress: bool | None = None):
        r"""Fit one variance scale :math:`c` for this member on held-out positive pairs.

        The Laplace variances of different encoders are not on a common scale
        (each depends on its layer's width, its prior precision, its logit scale and,
        through the empirical Fisher, on how *wrong* the model is on the fitting pairs),
        while UEC's softmax of total precision compares them directly. This
        option puts every member on one observable scale: the two (normalised)
        embeddings of a held-out positive pair are treated as noisy views of one
        latent embedding,

        .. math::

            \hat\mu(q_n) - \hat\mu(p_n) \sim \mathcal N\bigl(0,\;
            c\,[\hat\sigma^2(q_n) + \hat\sigma^2(p_n)]\bigr)
            \quad\text{(independent dimensions)},

        whose maximum-likelihood scale is

        .. math::

            \hat c = \frac{1}{ND}\sum_{n=1}^{N}\sum_{d=1}^{D}
            \frac{(\hat\mu_d(q_n) - \hat\mu_d(p_n))^2}{\hat\sigma_d^2(q_n) + \hat\sigma_d^2(p_n)} ,

        with the delta-normalised (uncalibrated) variances. Afterwards the raw
        variance is multiplied by :math:`\hat c` (a fitted version of the
        per-model factor :math:`s_k` of the official code), so the
        standardised squared disagreement of positive pairs is 1 on average.
        It rescales a member's variances; it cannot change their ordering across texts.

        Use pairs disjoint from those of :meth:`fit_laplace`. Sets
        ``variance_scale_`` and ``calibration_`` (a dict with the number of pairs and
        the median standardised squared residual). Returns ``self``.
        """
        self._require_fitted("calibrate")
        self._resolve()
        pairs = check_pairs(pairs)
        texts = [t for pr in pairs for t in pr]
        mean, var = self._raw_uncalibrated(texts, True, progress)
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

    def _adapter_inputs(self, texts, progress=None):
        E = self.encoder.encode(texts, progress=progress)
        n = np.linalg.norm(E, axis=1, keepdims=True)
        return float(self.input_scale) * E / np.where(n > 0, n, 1.0)

    # ------------------------------------------------------------------ encode
    def _raw(self, texts, need_var, progress=None):
        mean, var = self._raw_uncalibrated(texts, need_var, progress)
        if var is not None and self.is_calibrated:
            var = var * self.variance_scale_
        return mean, var

    def _raw_uncalibrated(self, texts, need_var, progress=None):
        prm = self._resolve()
        if self.method_ == "ffn":
            mean, lin, code = self.encoder.encode_with_features(texts, progress=progress)
            if not need_var:
                return mean, None
            if self.propagation == "linearized":
                gamma = self.encoder.ffn_output.LayerNorm.weight.detach().double().numpy()
                var = self.laplace_.propagate(lin, out_scale=gamma, scale=prm["scale"])
                dead = np.abs(gamma) <= 1e-3 * np.median(np.abs(gamma))
                if prm["impute_dead_dims"] and dead.any() and not dead.all():
                    # outputs with zero LayerNorm gain are constants (the bias): zero variance that
                    # carries no information; give them the text's median variance so they do not
                    # dominate the total precision
                    var[:, dead] = np.median(var[:, ~dead], axis=1, keepdims=True)
            else:
                var = self.laplace_.propagate(code, scale=prm["scale"])
            return mean, var
        E = self._adapter_inputs(texts, progress=progress)
        mean = E @ self.W0_.T
        var = None
        if need_var:
            var = self.laplace_.propagate(E, scale=prm["scale"])
            # an all-zero base embedding (e.g. LSA on out-of-vocabulary text) carries no information;
            # the linearisation would call it certain (variance 0), so give it the prior predictive
            # variance of an input of norm input_scale instead
            empty = ~np.any(E != 0, axis=1)
            if empty.any():
                var[empty] = prm["scale"] * prm["input_scale"] ** 2 / prm["prior_precision"]
        return mean, var

    def encode(self, texts, *, normalize: bool = True, variance_norm: str = "delta",
               progress: bool | None = None) -> GaussianEmbeddings:
        r"""Diagonal Gaussian embedding :math:`(\mu(x), \sigma^2(x))` of each text.

        With ``normalize`` the result is :func:`normalize_gaussian` ``(variance_norm)``
        (``"delta"``: :math:`\sigma^2/\lVert\mu\rVert^2`; ``"code"``: the official
        :math:`\sigma^2/\lVert\sigma^2\rVert^2`).
        """
        texts = check_texts(texts)
        normalize = check_bool(normalize, "normalize")
        variance_norm = check_option(variance_norm, "variance_norm", ("delta", "code", "none"))
        self._require_fitted("encode")
        mean, var = self._raw(texts, True, progress)
        if normalize:
            mean, var = normalize_gaussian(mean, var, variance_norm)
        return GaussianEmbeddings(mean=mean, var=var)

    def encode_mean(self, texts, *, normalize: bool = True, progress: bool | None = None) -> np.ndarray:
        """The mean embedding only (no Laplace fit needed); L2-normalised when ``normalize``."""
        texts = check_texts(texts)
        normalize = check_bool(normalize, "normalize")
        mean, _ = self._raw(texts, False, progress)
        if normalize:
            n = np.linalg.norm(mean, axis=1, keepdims=True)
            mean = mean / np.where(n > 0, n, 1.0)
        return mean
