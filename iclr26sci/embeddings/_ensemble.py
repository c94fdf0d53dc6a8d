"""The UEC ensemble: per-text uncertainty-driven coefficients, Gaussian
convolution of the members and uncertainty-aware similarity."""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import InputError, check_array, check_in_range, check_option

from ._encoders import check_texts
from ._probabilistic import ProbabilisticEncoder, check_pairs
from ._uec import (
    CITATION,
    GaussianEmbeddings,
    _check_temperature,
    _similarity,
    _stack_members,
    _unpack,
    uec_coefficients,
)

__all__ = ["UEC", "uec_combine", "MismatchedMembersWarning"]


class MismatchedMembersWarning(UserWarning):
    """The ensemble weights concentrate on a member whose held-out quality is far below the others'.

    UEC's softmax of total precision compares the members' Laplace variances
    directly, which presumes members of comparable strength whose variances are
    on one scale. When a much weaker member gets the smallest variances (for
    example an encoder that is confused on the contrastive fitting pairs, so its
    Fisher is large), UEC puts most of the weight on it. See :meth:`UEC.member_quality`.

    Examples
    --------
    >>> import warnings
    >>> from iclr26sci.embeddings import MismatchedMembersWarning
    >>> warnings.simplefilter("error", MismatchedMembersWarning)  # make the guard fatal in a pipeline
    >>> warnings.resetwarnings()
    """


def uec_combine(member_means, member_vars, temperature: float = 2.0, *, eps: float = 1e-30,
                reduce: str = "sum") -> GaussianEmbeddings:
    r"""UEC on already normalised member embeddings: coefficients, then the Gaussian convolution.

    .. math::

        \pi(x) = \operatorname{softmax}(\lambda(x)/T), \quad
        \bar\mu = \sum_k \pi_k \hat\mu_k, \quad \bar\sigma^2 = \sum_k \pi_k^2 \hat\sigma^2_k .

    Parameters
    ----------
    member_means : array_like, shape (K, n, D)
        Normalised mean embedding of each member for each text.
    member_vars : array_like, shape (K, n, D)
        Their normalised per-dimension variances.
    temperature : float > 0 or ``np.inf``
        :math:`T` of :func:`uec_coefficients` (``np.inf``: uniform weights).
    eps : float > 0
        Variance floor of the total precision.
    reduce : {"sum", "mean"}
        Total precision summed or averaged over the ``D`` dimensions.

    Returns
    -------
    GaussianEmbeddings
        With ``coefficients`` of shape (n, K).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.embeddings import uec_combine
    >>> M = np.array([[[1.0, 0.0]], [[0.0, 1.0]]]); V = np.array([[[0.5, 0.5]], [[1.0, 1.0]]])
    >>> g = uec_combine(M, V, temperature=2.0)
    >>> g.coefficients.round(3).tolist(), g.mean.round(3).tolist()
    ([[0.731, 0.269]], [[0.731, 0.269]])
    """
    M = _stack_members(member_means, "member_means")
    V = _stack_members(member_vars, "member_vars", nonnegative=True)
    if M.shape != V.shape:
        raise InputError("member_vars", f"has shape {V.shape} but member_means has {M.shape}", "equal shapes")
    pi = uec_coefficients(V, temperature, eps=eps, reduce=reduce)
    # coefficients are valid by construction: skip the second validation pass
    mean = pi[:, 0, None] * M[0]
    var = (pi[:, 0, None] ** 2) * V[0]
    for k in range(1, M.shape[0]):  # loop over the K members, vectorised over texts
        mean += pi[:, k, None] * M[k]
        var += (pi[:, k, None] ** 2) * V[k]
    return GaussianEmbeddings(mean=mean, var=var, coefficients=pi)


class UEC(BaseEstimator):
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

    The premise is an ensemble of *comparably strong* members whose variances are on one
    scale; :meth:`member_quality` (or ``fit(heldout_pairs=...)``) measures the members on
    held-out pairs and warns (:class:`MismatchedMembersWarning`) when the weights
    concentrate on a much weaker one.

    Parameters
    ----------
    members : list of ProbabilisticEncoder
        The encoders to ensemble, of one common output dimension; fitted with
        ``fit_laplace`` (or by :meth:`fit`).
    temperature : float > 0 or ``np.inf``
        :math:`T`: how sharply the weights follow the members' precision differences
        (small: the most certain member takes all; ``np.inf``: the uniform ensemble).
    beta : float >= 0
        How much the variance of the inner product discounts a similarity (``0``: the plain dot
        product / cosine of the convolved means).
    form : {"probit", "mteb"}
        Similarity denominator (formulas above).
    variance_norm : {"delta", "code"}
        How the member variances follow the L2 normalisation of the means (see
        :func:`normalize_gaussian`); ``"code"`` is the official implementation's.
    eps : float > 0
        Variance floor of the total precision.
    reduce : {"sum", "mean"}
        Total precision summed over dimensions (paper) or averaged (``T`` then is per dimension).

    Attributes
    ----------
    n_members_, dim_ : int
        Set by :meth:`fit`.
    member_quality_ : list of dict
        Held-out member table, when ``fit`` got ``heldout_pairs``.

    References
    ----------
    Lim et al., Uncertainty-driven Embedding Convolution, ICLR 2026 (arXiv:2507.20718).

    Examples
    --------
    >>> from iclr26sci.embeddings import UEC, ProbabilisticEncoder, encoders
    >>> pairs = encoders.lee_pairs(8, rng=0)
    >>> a = ProbabilisticEncoder(encoders.lsa_lee(n_components=16, rng=0), dim=16, rng=1)
    >>> b = ProbabilisticEncoder(encoders.lsa_lee(n_components=16, rng=1), dim=16, rng=2)
    >>> ens = UEC([a, b], temperature=float("inf")).fit(pairs)
    >>> ens.coefficients(["Fire crews fought the blaze."]).tolist()
    [[0.5, 0.5]]
    >>> ens.similarity(["bushfire"], ["Fire crews fought the blaze.", "Shares fell."]).shape
    (1, 2)
    """

    citation = CITATION

    def __init__(self, members, temperature: float = 2.0, beta: float = 0.1, form: str = "probit",
                 variance_norm: str = "delta", eps: float = 1e-30, reduce: str = "sum"):
        self.members = members
        self.temperature = temperature
        self.beta = beta
        self.form = form
        self.variance_norm = variance_norm
        self.eps = eps
        self.reduce = reduce
        self._validate_params()  # fail early; the parameters are stored unmodified (scikit-learn convention)

    def _validate_params(self) -> dict:
        members = self.members
        if isinstance(members, ProbabilisticEncoder) or not isinstance(members, (list, tuple)) or not members:
            raise InputError("members", f"got {type(members).__name__}", "a non-empty list of ProbabilisticEncoder")
        for i, m in enumerate(members):
            if not isinstance(m, ProbabilisticEncoder):
                raise InputError("members", f"item {i} is a {type(m).__name__}",
                                 "ProbabilisticEncoder(encoder).fit_laplace(pairs) for each member")
        dims = [m.output_dim for m in members]
        if len(set(dims)) > 1:
            raise InputError("members", f"output dimensions differ {dims}",
                             f"one common dimension: ProbabilisticEncoder(enc, method='adapter', dim={max(dims)})")
        return {"temperature": _check_temperature(self.temperature),
                "beta": check_in_range(self.beta, "beta", 0.0, None),
                "form": check_option(self.form, "form", ("probit", "mteb")),
                "variance_norm": check_option(self.variance_norm, "variance_norm", ("delta", "code")),
                "eps": check_in_range(self.eps, "eps", 0.0, None, low_open=True),
                "reduce": check_option(self.reduce, "reduce", ("sum", "mean")),
                "dim": dims[0], "K": len(members)}

    @property
    def dim(self) -> int:
        """Common output dimension of the members."""
        return self._validate_params()["dim"]

    @property
    def is_fitted(self) -> bool:
        """Whether every member's Laplace posterior is fitted (the ensemble can then be used without fit)."""
        self._validate_params()
        return all(m.is_fitted for m in self.members)

    def _check_fitted(self, method="encode") -> dict:
        from iclr26sci.core import NotFittedError

        p = self._validate_params()
        for i, m in enumerate(self.members):
            if not m.is_fitted:
                raise NotFittedError("members", f"member {i} ({m.label}) is not fitted for uncertainty (UEC.{method})",
                                     "UEC(...).fit(pairs), or .fit_laplace(pairs) on every member")
        return p

    def fit(self, X=None, y=None, *, heldout_pairs=None, progress: bool | None = None) -> "UEC":
        """Fit the Laplace posterior of every member not fitted yet on the positive pairs ``X``.

        With ``heldout_pairs`` (positive pairs disjoint from ``X``) the members' held-out quality is
        measured and a :class:`MismatchedMembersWarning` is issued when the weights concentrate on
        a member far worse than the others (:meth:`member_quality`); the table is kept in
        ``member_quality_``. Sets ``n_members_`` and ``dim_``. Returns ``self``.
        """
        p = self._validate_params()
        if y is not None:
            raise InputError("y", "is not used (the pairs carry their own labels)", "None")
        todo = [m for m in self.members if not m.is_fitted]
        if todo:
            if X is None:
                raise InputError("X", f"is None but {len(todo)} member(s) are not fitted",
                                 "a list of (query, positive) pairs for their Laplace fit")
            X = check_pairs(X, "X")
            for m in todo:
                m.fit_laplace(X, progress=progress)
        elif X is not None:
            check_pairs(X, "X")
        if heldout_pairs is not None:
            heldout_pairs = check_pairs(heldout_pairs, "heldout_pairs")
            self.member_quality_ = self.member_quality(heldout_pairs)
        self.n_members_ = p["K"]
        self.dim_ = p["dim"]
        return self

    def calibrate(self, pairs, *, progress: bool | None = None) -> "UEC":
        """Calibrate every member's variance scale on held-out positive ``pairs``
        (:meth:`ProbabilisticEncoder.calibrate`; optional, the paper's variance is the default). Returns ``self``."""
        pairs = check_pairs(pairs)
        self._check_fitted("calibrate")
        for m in self.members:
            m.calibrate(pairs, progress=progress)
        return self

    def member_embeddings(self, texts, *, progress: bool | None = None):
        """Normalised member Gaussians of ``texts``: ``means, vars`` of shape ``(K, n, D)``."""
        texts = check_texts(texts)
        p = self._check_fitted("member_embeddings")
        outs = [m.encode(texts, variance_norm=p["variance_norm"], progress=progress) for m in self.members]
        return np.stack([o.mean for o in outs]), np.stack([o.var for o in outs])

    def combine(self, member_means, member_vars) -> GaussianEmbeddings:
        """UEC on precomputed normalised member embeddings ``(K, n, D)`` (K = the number of members)."""
        p = self._validate_params()
        M = _stack_members(member_means, "member_means")
        if M.shape[0] != p["K"]:
            raise InputError("member_means", f"has {M.shape[0]} members but this UEC has {p['K']}",
                             f"shape ({p['K']}, n, D), one slice per member in order")
        if M.shape[2] != p["dim"]:
            raise InputError("member_means", f"has dimension {M.shape[2]}", f"the members' dimension {p['dim']}")
        return uec_combine(M, member_vars, p["temperature"], eps=p["eps"], reduce=p["reduce"])

    def coefficients(self, texts) -> np.ndarray:
        """Per-text ensemble weights ``(n, K)`` (rows on the simplex)."""
        _, V = self.member_embeddings(check_texts(texts))
        p = self._validate_params()
        return uec_coefficients(V, p["temperature"], eps=p["eps"], reduce=p["reduce"])

    def encode(self, texts, *, progress: bool | None = None) -> GaussianEmbeddings:
        """The convolved Gaussian embedding of each text, with its coefficients."""
        M, V = self.member_embeddings(texts, progress=progress)
        return self.combine(M, V)

    def score(self, query: GaussianEmbeddings, docs: GaussianEmbeddings) -> np.ndarray:
        """Uncertainty-aware similarity ``(n_q, n_c)`` between already encoded Gaussians."""
        p = self._validate_params()
        mq, vq = _unpack(query, "query")
        mc, vc = _unpack(docs, "docs")
        if mq.shape[1] != mc.shape[1]:
            raise InputError("docs", f"has dimension {mc.shape[1]} but query has {mq.shape[1]}", "equal dimensions")
        return _similarity(mq, vq, mc, vc, p["beta"], p["form"])

    def similarity(self, queries, docs) -> np.ndarray:
        """Similarity matrix ``(n_queries, n_docs)``; lists of texts or encoded Gaussians."""
        q = queries if isinstance(queries, GaussianEmbeddings) else self.encode(check_texts(queries, "queries"))
        d = docs if isinstance(docs, GaussianEmbeddings) else self.encode(check_texts(docs, "docs"))
        return self.score(q, d)

    def member_quality(self, pairs, *, warn: bool = True, min_gap: float = 0.1, z: float = 3.0) -> list[dict]:
        r"""Held-out quality of each member and its mean weight; warns when UEC trusts a much weaker member.

        For the ``N`` held-out positive pairs :math:`(q_n, p_n)`, each member retrieves
        :math:`p_n` among all ``N`` positives by the cosine of its mean embeddings; its
        quality is the top-1 accuracy :math:`a_k` (and the MRR). Its weight is its mean
        UEC coefficient :math:`\bar\pi_k` over the ``2N`` held-out texts. Member ``k`` is
        *far worse* than the best member ``b`` when

        .. math::

            a_b - a_k > \max\Bigl(\text{min\_gap},\; z\sqrt{\tfrac{a_b(1-a_b) + a_k(1-a_k)}{N}}\Bigr),

        a gap both practically large and ``z`` binomial standard errors wide. The weights
        *concentrate* on it when :math:`\bar\pi_k > \min(0.9, 1.5/K)`. Then a
        :class:`MismatchedMembersWarning` says which member, and what to do.

        Parameters
        ----------
        pairs : list of (str, str)
            Held-out positive pairs, disjoint from the Laplace fitting pairs (at least 2; 30 or
            more make the accuracy meaningful).
        warn : bool
            Issue the warning (otherwise only return the table).
        min_gap : float in (0, 1)
            Smallest accuracy gap that counts as far worse.
        z : float > 0
            Width of the statistical margin, in standard errors.

        Returns
        -------
        list of dict
            One row per member: ``member``, ``top1_accuracy``, ``mrr``, ``mean_weight``, ``far_worse``.
        """
        from iclr26sci.core import check_bool

        pairs = check_pairs(pairs)
        warn = check_bool(warn, "warn")
        min_gap = check_in_range(min_gap, "min_gap", 0.0, 1.0, low_open=True, high_open=True)
        z = check_in_range(z, "z", 0.0, None, low_open=True)
        p = self._check_fitted("member_quality")
        q = [a for a, _ in pairs]
        d = [b for _, b in pairs]
        Mq, Vq = self.member_embeddings(q)
        Md, Vd = self.member_embeddings(d)
        pi = np.concatenate([uec_coefficients(Vq, p["temperature"], eps=p["eps"], reduce=p["reduce"]),
                             uec_coefficients(Vd, p["temperature"], eps=p["eps"], reduce=p["reduce"])]).mean(0)
        N, K = len(pairs), p["K"]
        rows = []
        for k, m in enumerate(self.members):
            S = Mq[k] @ Md[k].T
            rank = (S > np.diag(S)[:, None]).sum(1) + 1
            rows.append({"member": m.label, "top1_accuracy": float(np.mean(rank == 1)),
                         "mrr": float(np.mean(1.0 / rank)), "mean_weight": float(pi[k])})
        acc = np.array([r["top1_accuracy"] for r in rows])
        b = int(np.argmax(acc))
        for k, r in enumerate(rows):
            se = np.sqrt((acc[b] * (1 - acc[b]) + acc[k] * (1 - acc[k])) / N)
            r["far_worse"] = bool(acc[b] - acc[k] > max(min_gap, z * se))
        limit = min(0.9, 1.5 / K)
        bad = [k for k, r in enumerate(rows) if r["far_worse"] and r["mean_weight"] > limit]
        if warn and bad:
            k = bad[0]
            warnings.warn(
                f"UEC puts a mean weight of {rows[k]['mean_weight']:.2f} (uniform: {1 / K:.2f}) on member "
                f"{rows[k]['member']!r}, whose held-out top-1 accuracy {acc[k]:.2f} is far below the best member's "
                f"{acc[b]:.2f} ({rows[b]['member']!r}) on {N} held-out pairs: its Laplace variances are smaller "
                "although its embeddings are worse, so they are not comparable with the others'. Use members of "
                "comparable strength (e.g. encoders.minilm_finetuned on different data), drop that member, or "
                "put the variances on one scale with UEC.calibrate(heldout_pairs) and check again.",
                MismatchedMembersWarning, stacklevel=2)
        return rows
