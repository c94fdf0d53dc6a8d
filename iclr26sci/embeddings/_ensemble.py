"""The UEC ensemble: per-text uncertainty-driven coefficients, Gaussian
convolution of the members and uncertainty-aware similarity."""
from __future__ import annotations

import numpy as np

from iclr26sci.core import InputError, check_in_range, check_option

from ._encoders import check_texts
from ._probabilistic import ProbabilisticEncoder
from ._uec import (
    CITATION,
    GaussianEmbeddings,
    _check_temperature,
    _similarity,
    _unpack,
    gaussian_convolution,
    normalize_gaussian,
    uec_coefficients,
)

__all__ = ["UEC", "uec_combine"]


def uec_combine(member_means, member_vars, temperature: float = 2.0, *, eps: float = 1e-30,
                reduce: str = "sum") -> GaussianEmbeddings:
    """Coefficients then Gaussian convolution on already normalised member embeddings ``(K, n, D)``."""
    pi = uec_coefficients(member_vars, temperature, eps=eps, reduce=reduce)
    M = np.asarray(member_means, dtype=float)
    V = np.asarray(member_vars, dtype=float)
    if M.shape != V.shape:
        return gaussian_convolution(member_means, member_vars, pi)  # raises the InputError
    # coefficients are valid by construction: skip the second validation pass
    mean = pi[:, 0, None] * M[0]
    var = (pi[:, 0, None] ** 2) * V[0]
    for k in range(1, M.shape[0]):  # loop over the K members, vectorised over texts
        mean += pi[:, k, None] * M[k]
        var += (pi[:, k, None] ** 2) * V[k]
    return GaussianEmbeddings(mean=mean, var=var, coefficients=pi)


class UEC:
    r"""Uncertainty-driven Embedding Convolution over probabilistic encoders.

    For each text :math:`x` and member :math:`k` with normalised Gaussian
    embedding :math:`(\hat\mu_k(x), \hat\sigma^2_k(x))`:

    .. math::

        \pi(x) = \operatorname{softmax}\Bigl(\tfrac{1}{T}\bigl[\textstyle\sum_d
                 (\hat\sigma^2_{k,d}(x)+\varepsilon)^{-1}\bigr]_{k}\Bigr), \quad
        \bar\mu = \sum_k \pi_k \hat\mu_k, \quad
        \bar\sigma^2 = \sum_k \pi_k^2 \hat\sigma^2_k,

    and similarities :math:`s_A = \langle\bar\mu_q,\bar\mu_c\rangle/\sqrt{1+\frac\pi8\beta V}`
    (``form="probit"``) or :math:`s_B = \cos(\bar\mu_q,\bar\mu_c)/(1+\frac\beta\pi|V|)`
    (``form="mteb"``), :math:`V = \operatorname{Var}\langle z_q, z_c\rangle`.

    Parameters
    ----------
    members : list of ProbabilisticEncoder
        Fitted (``fit_laplace``) and of one common output dimension.
    temperature : float > 0 or ``np.inf``
        ``np.inf`` gives the uniform ensemble.
    beta : float >= 0
        ``0`` gives the plain dot product / cosine.
    form : {"probit", "mteb"}
    variance_norm : {"delta", "code"}
        Variance normalisation (see :func:`normalize_gaussian`); ``"code"`` is
        the official implementation's.
    eps : float > 0
    reduce : {"sum", "mean"}
        Total precision summed over dimensions (paper) or averaged.

    References
    ----------
    Lim et al., Uncertainty-driven Embedding Convolution, ICLR 2026 (arXiv:2507.20718).
    """

    citation = CITATION

    def __init__(self, members, temperature: float = 2.0, beta: float = 0.1, form: str = "probit",
                 variance_norm: str = "delta", eps: float = 1e-30, reduce: str = "sum"):
        if isinstance(members, ProbabilisticEncoder) or not isinstance(members, (list, tuple)) or not members:
            raise InputError("members", f"got {type(members).__name__}", "a non-empty list of ProbabilisticEncoder")
        for i, m in enumerate(members):
            if not isinstance(m, ProbabilisticEncoder):
                raise InputError("members", f"item {i} is a {type(m).__name__}",
                                 "ProbabilisticEncoder(encoder).fit_laplace(pairs) for each member")
        dims = [m.dim for m in members]
        if len(set(dims)) > 1:
            raise InputError("members", f"output dimensions differ {dims}",
                             f"one common dimension: ProbabilisticEncoder(enc, method='adapter', dim={max(dims)})")
        self.members = list(members)
        self.temperature = _check_temperature(temperature)
        self.beta = check_in_range(beta, "beta", 0.0, None)
        self.form = check_option(form, "form", ("probit", "mteb"))
        self.variance_norm = check_option(variance_norm, "variance_norm", ("delta", "code"))
        self.eps = check_in_range(eps, "eps", 0.0, None, low_open=True)
        self.reduce = check_option(reduce, "reduce", ("sum", "mean"))

    @property
    def dim(self) -> int:
        return self.members[0].dim

    def __repr__(self):
        names = [m.name for m in self.members]
        return (f"UEC({names}, temperature={self.temperature}, beta={self.beta}, form={self.form!r}, "
                f"variance_norm={self.variance_norm!r})")

    def _check_fitted(self):
        for i, m in enumerate(self.members):
            if not m.is_fitted:
                raise InputError("members", f"member {i} ({m.name}) is not fitted for uncertainty",
                                 "call .fit_laplace(pairs) on every member")

    def calibrate(self, pairs, *, show_progress: bool | None = None) -> "UEC":
        """Calibrate every member's variance scale on held-out positive ``pairs``
        (:meth:`ProbabilisticEncoder.calibrate`; optional, the paper's variance is the default). Returns ``self``."""
        from ._probabilistic import check_pairs

        pairs = check_pairs(pairs)
        self._check_fitted()
        for m in self.members:
            m.calibrate(pairs, show_progress=show_progress)
        return self

    def member_embeddings(self, texts, *, show_progress: bool | None = None):
        """Normalised member Gaussians: ``means, vars`` of shape ``(K, n, D)``."""
        texts = check_texts(texts)
        self._check_fitted()
        outs = [m.encode(texts, variance_norm=self.variance_norm, show_progress=show_progress) for m in self.members]
        return np.stack([o.mean for o in outs]), np.stack([o.var for o in outs])

    def combine(self, member_means, member_vars) -> GaussianEmbeddings:
        """UEC on precomputed normalised member embeddings ``(K, n, D)``."""
        return uec_combine(member_means, member_vars, self.temperature, eps=self.eps, reduce=self.reduce)

    def coefficients(self, texts) -> np.ndarray:
        """Per-text ensemble weights ``(n, K)`` (rows on the simplex)."""
        _, V = self.member_embeddings(texts)
        return uec_coefficients(V, self.temperature, eps=self.eps, reduce=self.reduce)

    def encode(self, texts, *, show_progress: bool | None = None) -> GaussianEmbeddings:
        """The convolved Gaussian embedding of each text, with its coefficients."""
        M, V = self.member_embeddings(texts, show_progress=show_progress)
        return self.combine(M, V)

    def score(self, query: GaussianEmbeddings, docs: GaussianEmbeddings) -> np.ndarray:
        """Uncertainty-aware similarity between already encoded Gaussians."""
        mq, vq = _unpack(query, "query")
        mc, vc = _unpack(docs, "docs")
        if mq.shape[1] != mc.shape[1]:
            raise InputError("docs", f"has dimension {mc.shape[1]} but query has {mq.shape[1]}", "equal dimensions")
        return _similarity(mq, vq, mc, vc, self.beta, self.form)

    def similarity(self, queries, docs) -> np.ndarray:
        """Similarity matrix ``(n_queries, n_docs)``; lists of texts or encoded Gaussians."""
        q = queries if isinstance(queries, GaussianEmbeddings) else self.encode(queries)
        d = docs if isinstance(docs, GaussianEmbeddings) else self.encode(docs)
        return self.score(q, d)
