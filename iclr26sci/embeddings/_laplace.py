"""Post-hoc diagonal Laplace approximation over one linear layer under the
in-batch contrastive likelihood (the probabilistic-embedding step of UEC).

The layer's weight ``W`` (shape ``(D_out, D_in)``) is the only random
quantity. For ``B`` positive pairs ``(q_b, p_b)`` the log-likelihood is the
in-batch classification of the positive among the batch's passages,

.. math::

    \\ell_b(W) = -\\log \\frac{\\exp\\langle e_W(q_b), e_W(p_b)\\rangle}
                          {\\sum_c \\exp\\langle e_W(q_b), e_W(p_c)\\rangle},

the curvature is the diagonal empirical Fisher
:math:`F = \\sum_b (\\partial \\ell_b / \\partial W)^{\\odot 2}` and the
posterior variance is :math:`v = 1/(F + \\tau_0)`.
"""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np
import torch

from iclr26sci.core import (
    InputError,
    as_generator,
    check_array,
    check_in_range,
    check_option,
    check_positive_int,
    progress as _bar,
)

__all__ = ["DiagLaplaceLinear", "contrastive_row_losses", "per_row_gradients"]


def _as_tensor(x, name, ndim=2):
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(check_array(x, name, ndim=ndim))
    if x.ndim != ndim:
        raise InputError(name, f"has shape {tuple(x.shape)}", f"{ndim} dimension(s)")
    if x.is_floating_point() and not bool(torch.isfinite(x).all()):
        raise InputError(name, "contains NaN or infinite values", "finite numbers")
    return x


def contrastive_row_losses(zq: torch.Tensor, zp: torch.Tensor, targets=None) -> torch.Tensor:
    r"""Per-row in-batch contrastive losses :math:`\ell_b = -\log\operatorname{softmax}_c(\langle z_{q,b}, z_{p,c}\rangle)[y_b]`.

    Parameters
    ----------
    zq : Tensor, shape (B, D)
        Embeddings of the ``B`` queries of a batch (numpy arrays are converted).
    zp : Tensor, shape (B, D)
        Embeddings of their positives; every other positive of the batch is a negative.
    targets : sequence of int, optional
        Index of the positive of each row (default ``y_b = b``, the diagonal).

    Returns
    -------
    Tensor, shape (B,)

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.embeddings import contrastive_row_losses
    >>> contrastive_row_losses(torch.eye(2) * 10, torch.eye(2) * 10).round(decimals=6).tolist()
    [0.0, 0.0]
    """
    zq, zp = _as_tensor(zq, "zq"), _as_tensor(zp, "zp")
    if zq.shape != zp.shape:
        raise InputError("zp", f"has shape {tuple(zp.shape)} but zq has {tuple(zq.shape)}",
                         "one positive per query, of the same dimension")
    if zp.dtype != zq.dtype:
        zp = zp.to(zq.dtype)
    if targets is not None:
        t = check_array(targets.detach().cpu().numpy() if isinstance(targets, torch.Tensor) else targets,
                        "targets", ndim=1, dtype=int)
        if t.shape[0] != zq.shape[0] or np.any(t < 0) or np.any(t >= zp.shape[0]):
            raise InputError("targets", f"got {t.tolist()[:8]} for a batch of {zq.shape[0]}",
                             f"one index in [0, {zp.shape[0] - 1}] per row")
        targets = torch.as_tensor(t)
    return _row_losses(zq, zp, targets)


def _row_losses(zq, zp, targets=None):
    logits = zq @ zp.T
    if targets is None:
        picked = torch.diagonal(logits)
    else:
        picked = logits.gather(1, torch.as_tensor(targets).reshape(-1, 1)).squeeze(1)
    return torch.logsumexp(logits, dim=1) - picked


def per_row_gradients(embed_fn: Callable, weight: torch.Tensor, q_inputs, p_inputs,
                      chunk_size: int | None = None, targets=None) -> torch.Tensor:
    r"""Gradients of each row loss with respect to ``weight``: shape ``(B, *weight.shape)``.

    Parameters
    ----------
    embed_fn : callable
        ``embed_fn(weight, inputs) -> (B, D)`` maps the layer weight and the cached
        layer inputs of a batch to the embeddings.
    weight : Tensor
        The layer weight :math:`W` at which the gradients are taken.
    q_inputs, p_inputs
        Layer inputs of the batch's queries and positives (whatever ``embed_fn`` takes).
    chunk_size : int, optional
        Rows differentiated at once by ``torch.func.jacrev`` (memory vs speed).
    targets : sequence of int, optional
        Replaces the true labels (the diagonal), e.g. by labels sampled from the model (MC Fisher).

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.embeddings import per_row_gradients
    >>> G = per_row_gradients(lambda W, X: X @ W.T, torch.eye(2), torch.eye(2), torch.eye(2))
    >>> tuple(G.shape)
    (2, 2, 2)
    """
    from torch.func import jacrev

    if not callable(embed_fn):
        raise InputError("embed_fn", f"got {type(embed_fn).__name__}", "a function embed_fn(weight, inputs) -> (B, D)")
    if not isinstance(weight, torch.Tensor):
        raise InputError("weight", f"got {type(weight).__name__}", "a torch tensor")
    if chunk_size is not None:
        chunk_size = check_positive_int(chunk_size, "chunk_size")

    def losses(W):
        return _row_losses(embed_fn(W, q_inputs), embed_fn(W, p_inputs), targets)

    return jacrev(losses, chunk_size=chunk_size)(weight)


class DiagLaplaceLinear:
    r"""Diagonal empirical-Fisher Laplace approximation on one linear layer.

    .. math::

        F_{j} = \sum_{b} \Bigl(\frac{\partial \ell_b}{\partial W_j}\Bigr)^2, \qquad
        v_j = \frac{1}{F_j + \tau_0}, \qquad
        v_j \leftarrow 0 \text{ if } |W_j| < \sqrt{v_j} \;(\text{prune, as the official code}).

    Parameters
    ----------
    prior_precision : float > 0
        :math:`\tau_0`, the precision of the isotropic Gaussian prior on the weights
        (1e-5 in the official code: the data dominate).
    curvature : {"ef", "mc_fisher"}
        ``"ef"``: empirical Fisher with the true (diagonal) labels, as the
        official code (laplace-torch AsdlEF). ``"mc_fisher"``: the Fisher with
        labels sampled from the model's own in-batch softmax (an unbiased
        estimate of the GGN diagonal); unlike the EF it does not concentrate
        curvature on the pairs the model gets wrong (Kunstner et al., 2019).
    n_samples : int
        Label samples per row for ``"mc_fisher"``.
    rng : seed for the label samples.
    prune : bool
        Zero the variance of weights whose magnitude is below their posterior
        standard deviation (official post-processing; it removes the
        prior-dominated variances). ``posterior_var_`` keeps the raw values.

    Attributes
    ----------
    fisher_ : ndarray (D_out, D_in)
    posterior_var_ : ndarray (D_out, D_in)
        :math:`1/(F+\tau_0)` before pruning.
    var_ : ndarray (D_out, D_in)
        The variance used for propagation (after pruning when ``prune``).
    n_data_ : int
        Number of contrastive rows (pairs) seen.

    References
    ----------
    Lim et al., Uncertainty-driven Embedding Convolution, ICLR 2026 (arXiv:2507.20718);
    Daxberger et al., Laplace Redux, NeurIPS 2021.

    Examples
    --------
    >>> import torch
    >>> from iclr26sci.embeddings import DiagLaplaceLinear
    >>> X = torch.eye(3, dtype=torch.float64)
    >>> la = DiagLaplaceLinear().fit(lambda W, Z: Z @ W.T, torch.eye(3, dtype=torch.float64), [(X, X)])
    >>> la.var_.shape, la.n_data_
    ((3, 3), 3)
    >>> la.propagate(X.numpy()).shape
    (3, 3)
    """

    def __init__(self, prior_precision: float = 1e-5, prune: bool = False, curvature: str = "ef",
                 n_samples: int = 1, rng=0):
        self.prior_precision = prior_precision
        self.prune = prune
        self.curvature = curvature
        self.n_samples = n_samples
        self.rng = rng

    def fit(self, embed_fn: Callable, weight, batches: Iterable, *, n_batches: int | None = None,
            progress: bool = False) -> "DiagLaplaceLinear":
        """Accumulate the empirical Fisher over ``batches`` of ``(q_inputs, p_inputs)``.

        ``embed_fn(W, inputs) -> (B, D)`` gives the embeddings of a batch as a function of the
        weight ``W`` (numpy arrays are converted to the inputs' dtype); ``batches`` yields
        ``(q_inputs, p_inputs)`` pairs (tensors, or tuples of tensors); ``n_batches`` sizes the
        progress bar. Returns ``self``.
        """
        from iclr26sci.core import check_bool

        tau = check_in_range(self.prior_precision, "prior_precision", 0.0, None, low_open=True)
        curvature = check_option(self.curvature, "curvature", ("ef", "mc_fisher"))
        n_samples = check_positive_int(self.n_samples, "n_samples")
        check_bool(self.prune, "prune")
        progress = check_bool(progress, "progress") if progress is not None else None
        if not callable(embed_fn):
            raise InputError("embed_fn", f"got {type(embed_fn).__name__}",
                             "a function embed_fn(weight, inputs) -> (B, D) embeddings")
        if n_batches is not None:
            n_batches = check_positive_int(n_batches, "n_batches")
        if isinstance(weight, torch.Tensor):
            W = weight.detach()
        else:
            W = torch.as_tensor(check_array(weight, "weight", ndim=2))
        if W.ndim != 2 or not bool(torch.isfinite(W).all()):
            raise InputError("weight", f"has shape {tuple(W.shape)} or non-finite entries", "a finite 2-D weight")
        gen = as_generator(self.rng)
        F = torch.zeros_like(W, dtype=torch.float64)
        n = 0
        it = _bar(batches, desc="Laplace (Fisher)", total=n_batches) if progress else batches
        for i, item in enumerate(it):
            if not (isinstance(item, (tuple, list)) and len(item) == 2):
                raise InputError("batches", f"item {i} is a {type(item).__name__}",
                                 "(q_inputs, p_inputs) pairs of layer inputs")
            q_in, p_in = item
            for nm, x in (("q_inputs", q_in), ("p_inputs", p_in)):
                for t in (x if isinstance(x, (tuple, list)) else (x,)):
                    if isinstance(t, torch.Tensor) and t.is_floating_point():
                        if not bool(torch.isfinite(t).all()):
                            raise InputError("batches", f"batch {i} has NaN or infinite {nm}", "finite layer inputs")
                        if W.dtype != t.dtype and not isinstance(weight, torch.Tensor):
                            W = W.to(t.dtype)  # a numpy weight follows the inputs' precision
            if curvature == "ef":
                G = per_row_gradients(embed_fn, W, q_in, p_in)
                F += (G.double() ** 2).sum(dim=0)
            else:
                with torch.no_grad():
                    P = torch.softmax(embed_fn(W, q_in) @ embed_fn(W, p_in).T, dim=1).double().numpy()
                for _ in range(n_samples):
                    u = gen.random((P.shape[0], 1))
                    y = np.minimum((P.cumsum(1) < u).sum(1), P.shape[1] - 1)
                    G = per_row_gradients(embed_fn, W, q_in, p_in, targets=torch.as_tensor(y))
                    F += (G.double() ** 2).sum(dim=0) / n_samples
            n += int(G.shape[0])
        if n == 0:
            raise InputError("batches", "yielded no pairs", "at least one batch of positive pairs")
        self.weight_ = W.double().numpy().copy()
        self.fisher_ = F.numpy()
        self.posterior_var_ = 1.0 / (self.fisher_ + tau)
        self.var_ = self.posterior_var_.copy()
        if self.prune:
            self.var_[np.abs(self.weight_) < np.sqrt(self.posterior_var_)] = 0.0
        self.n_data_ = n
        return self

    def propagate(self, features, out_scale=None, scale: float = 1.0) -> np.ndarray:
        r"""First-order output variance :math:`\sigma^2_d = s\, g_d^2 \sum_i V_{d,i} a_i^2` (floored at 1e-16).

        Parameters
        ----------
        features : array (n, D_in)
            The (pooled) layer inputs :math:`a(x)`.
        out_scale : array (D_out,), optional
            Per-output gain :math:`g_d` of what follows the layer (1 if None).
        scale : float
            Per-model factor :math:`s_k`.
        """
        from iclr26sci.core import check_is_fitted

        check_is_fitted(self, "var_", method="propagate")
        d_out, d_in = self.var_.shape
        features = check_array(features, "features", ndim=2)
        if features.shape[1] != d_in:
            raise InputError("features", f"has {features.shape[1]} columns", f"{d_in} (the layer's input width)")
        scale = check_in_range(scale, "scale", 0.0, None, low_open=True)
        var = scale * ((features**2) @ self.var_.T)
        if out_scale is not None:
            g = check_array(out_scale, "out_scale", ndim=1)
            if g.shape[0] != d_out:
                raise InputError("out_scale", f"has length {g.shape[0]}", f"{d_out} (one gain per output)")
            var = var * g**2
        return np.maximum(var, 1e-16)
