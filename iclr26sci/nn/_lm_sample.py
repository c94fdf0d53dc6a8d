"""The sampling distribution of :meth:`LanguageModel.generate` (temperature and nucleus/top-p).

Kept apart so that the validation can swap in deliberately broken variants (temperature applied
twice, top-p off by one) and show that its frequency test rejects them.
"""
from __future__ import annotations

__all__ = ["sampling_logprobs", "inverse_cdf"]


def sampling_logprobs(logits, temperature: float, top_p: float):
    """Log-probabilities of the next-token distribution that is actually sampled.

    With logits ``z`` over the vocabulary, temperature ``T > 0`` and nucleus mass ``p``:

    .. math::
        q_T(v) = \\mathrm{softmax}(z / T)_v, \\qquad
        S_p = \\{v : \\textstyle\\sum_{u:\\, q_T(u) > q_T(v)} q_T(u) < p\\}, \\qquad
        \\pi(v) = q_T(v)\\, 1[v \\in S_p] / \\textstyle\\sum_{u \\in S_p} q_T(u),

    i.e. the smallest set of most likely tokens whose mass reaches ``p`` (Holtzman et al. 2020), the
    token that crosses ``p`` included. This is the rule of ``transformers``' ``TopPLogitsWarper``
    (which removes the tokens whose ascending cumulative mass is ``<= 1 - p``); ties at the boundary
    are broken by sort order. ``T == 0`` is greedy decoding: all mass on the arg-max.

    Parameters
    ----------
    logits : torch.Tensor, shape (B, V)
        Next-token logits (float32 or float64).
    temperature : float
        ``T >= 0``; the logits are divided by it (``T < 1`` sharpens, ``T > 1`` flattens).
    top_p : float
        Nucleus mass ``p`` in (0, 1]; 1 keeps every token.

    Returns
    -------
    torch.Tensor, shape (B, V)
        ``log pi``, with ``-inf`` outside the nucleus.

    Examples
    --------
    >>> import torch
    >>> z = torch.log(torch.tensor([[0.5, 0.3, 0.2]]))
    >>> sampling_logprobs(z, 1.0, 0.7).exp()     # 0.5 < 0.7, 0.5 + 0.3 crosses it: {0, 1} kept
    tensor([[0.6250, 0.3750, 0.0000]])
    """
    import torch

    if temperature == 0:
        out = torch.full_like(logits, float("-inf"))
        out.scatter_(-1, logits.argmax(-1, keepdim=True), 0.0)
        return out
    z = logits / temperature
    logp = torch.log_softmax(z, dim=-1)
    if top_p >= 1.0:
        return logp
    sorted_logp, order = torch.sort(logp, dim=-1, descending=True)
    probs = sorted_logp.exp()
    mass_before = torch.cumsum(probs, dim=-1) - probs
    keep_sorted = mass_before < top_p
    keep_sorted[..., 0] = True
    keep = torch.zeros_like(keep_sorted).scatter_(-1, order, keep_sorted)
    return torch.log_softmax(z.masked_fill(~keep, float("-inf")), dim=-1)


def inverse_cdf(logp, u):
    """Draw one token per row by inverting the cumulative distribution at ``u`` (uniform in [0, 1)).

    ``token = min{v : F(v) > u F(V)}`` with ``F`` the float64 cumulative sum of ``exp(logp)``; a token of
    probability 0 (a flat step of ``F``) is never returned, and scaling by ``F(V)`` absorbs rounding of the
    total mass.

    Examples
    --------
    >>> import torch
    >>> lp = torch.log(torch.tensor([[0.25, 0.0, 0.75]]))
    >>> inverse_cdf(lp.repeat(3, 1), torch.tensor([0.1, 0.3, 0.9], dtype=torch.float64)).tolist()
    [0, 2, 2]
    """
    import torch

    cdf = torch.cumsum(logp.to(torch.float64).exp(), dim=-1)
    x = (u.to(cdf.device) * cdf[:, -1]).unsqueeze(1)
    idx = torch.searchsorted(cdf, x, right=True).squeeze(1)
    return idx.clamp(max=logp.shape[-1] - 1)
