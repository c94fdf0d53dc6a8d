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

from iclr26sci.core import InputError, as_generator, check_in_range, check_option, check_positive_int, progress

__all__ = ["DiagLaplaceLinear", "contrastive_row_losses", "per_row_gradients"]


def contrastive_row_losses(zq: torch.Tensor, zp: torch.Tensor, targets=None) -> torch.Tensor:
    """Per-row in-batch contrastive losses ``-log softmax(zq @ zp.T)[b, y_b]`` (``y_b = b`` by default)."""
    logits = zq @ zp.T
    if targets is None:
        picked = torch.diagonal(logits)
    else:
        picked = logits.gather(1, torch.as_tensor(targets).reshape(-1, 1)).squeeze(1)
    return torch.logsumexp(logits, dim=1) - picked


def per_row_gradients(embed_fn: Callable, weight: torch.Tensor, q_inputs, p_inputs,
                      chunk_size: int | None = None, targets=None) -> torch.Tensor:
    """Gradients of each row loss with respect to ``weight``: shape ``(B, *weight.shape)``.

    ``embed_fn(weight, inputs) -> (B, D)`` maps the layer weight and the cached
    layer inputs of a batch to the embeddings. ``targets`` replaces the true
    labels (the diagonal), e.g. by labels sampled from the model (MC Fisher).
    """
    from torch.func import jacrev

    def losses(W):
        return contrastive_row_losses(embed_fn(W, q_inputs), embed_fn(W, p_inputs), targets)

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
        :math:`\tau_0` (1e-5 in the official code).
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
    """

    def __init__(self, prior_precision: float = 1e-5, prune: bool = False, curvature: str = "ef",
                 n_samples: int = 1, rng=0):
        self.prior_precision = prior_precision
        self.prune = prune
        self.curvature = curvature
        self.n_samples = n_samples
        self.rng = rng

    def fit(self, embed_fn: Callable, weight, batches: Iterable, *, n_batches: int | None = None,
            show_progress: bool = False) -> "DiagLaplaceLinear":
        """Accumulate the empirical Fisher over ``batches`` of ``(q_inputs, p_inputs)``."""
        tau = check_in_range(self.prior_precision, "prior_precision", 0.0, None, low_open=True)
        curvature = check_option(self.curvature, "curvature", ("ef", "mc_fisher"))
        n_samples = check_positive_int(self.n_samples, "n_samples")
        gen = as_generator(self.rng)
        W = torch.as_tensor(weight).detach()
        F = torch.zeros_like(W, dtype=torch.float64)
        n = 0
        it = progress(batches, desc="Laplace (Fisher)", total=n_batches) if show_progress else batches
        for q_in, p_in in it:
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
        r"""First-order output variance :math:`\sigma^2_d = s\, g_d^2 \sum_i V_{d,i} a_i^2`.

        Parameters
        ----------
        features : array (n, D_in)
            The (pooled) layer inputs :math:`a(x)`.
        out_scale : array (D_out,), optional
            Per-output gain :math:`g_d` of what follows the layer (1 if None).
        scale : float
            Per-model factor :math:`s_k`.
        """
        if not hasattr(self, "var_"):
            raise InputError("self", "the Laplace approximation is not fitted", "call fit first")
        a2 = np.asarray(features, dtype=float) ** 2
        var = scale * (a2 @ self.var_.T)
        if out_scale is not None:
            var = var * np.asarray(out_scale, dtype=float) ** 2
        return np.maximum(var, 1e-16)
