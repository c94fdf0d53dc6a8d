r"""LIGHT's x0-predicting transformer denoiser over interleaved modality tokens, with per-token noise-level AdaLN.

Per frame one token per modality (body, hands, object, or merged groups), interleaved
``(m_1^1, ..., m_M^1, m_1^2, ...)``: ``T M`` tokens. Each token gets a modality-specific input MLP, a learnable
modality embedding and frame embedding, rotary position embedding (RoPE, Su et al. 2021) on its frame index in
self-attention over all tokens, cross-attention to the text tokens, and adaptive layer norm (AdaLN, DiT-style
shift/scale/gate) conditioned on **its own modality's noise level** plus the object's shape code. The output is
the prediction of the clean tokens :math:`\hat x_0` (``predict_x0=1`` in the released code).
"""
from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

__all__ = ["LightDenoiser"]


def _level_embedding(levels, dim, K):
    """Sinusoidal embedding of integer levels (-1 = clean maps to -1), (..., dim)."""
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=levels.device, dtype=torch.float32) / half)
    a = (levels.float() + 1.0)[..., None] * freqs * (1000.0 / K)
    return torch.cat([torch.sin(a), torch.cos(a)], -1)


def _rope(x, pos):
    """Rotate (B, H, L, dh) query/key pairs by angles pos * theta_i (RoPE)."""
    dh = x.shape[-1]
    half = dh // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=x.device, dtype=x.dtype) / half)
    ang = pos.to(x.dtype)[:, None] * freqs[None, :]
    cos, sin = torch.cos(ang), torch.sin(ang)
    x1, x2 = x[..., :half], x[..., half:2 * half]
    out = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)
    return torch.cat([out, x[..., 2 * half:]], -1) if dh % 2 else out


class _Block(nn.Module):
    def __init__(self, d, heads, ffn, dropout):
        super().__init__()
        self.h = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.q_x = nn.Linear(d, d)
        self.kv_x = nn.Linear(d, 2 * d)
        self.proj_x = nn.Linear(d, d)
        self.ff = nn.Sequential(nn.Linear(d, ffn), nn.GELU(), nn.Dropout(dropout), nn.Linear(ffn, d))
        self.n1, self.n2, self.n3 = (nn.LayerNorm(d, elementwise_affine=False) for _ in range(3))
        self.mod = nn.Linear(d, 9 * d)
        nn.init.zeros_(self.mod.weight)
        nn.init.zeros_(self.mod.bias)
        self.drop = nn.Dropout(dropout)

    def _heads(self, t):
        B, L, D = t.shape
        return t.reshape(B, L, self.h, D // self.h).transpose(1, 2)

    def forward(self, x, c, pos, text, TM):
        """``x`` (B, T*M, d) tokens; ``c`` (B, 1 or T, M, d) conditions (per modality, or per token)."""
        B, L, D = x.shape
        T, M = TM
        s1, b1, g1, s2, b2, g2, s3, b3, g3 = self.mod(F.silu(c)).chunk(9, -1)

        def ada(h, s, b):
            return (h.view(B, T, M, D) * (1 + s) + b).view(B, L, D)

        def gate(h, g_):
            return (h.view(B, T, M, D) * g_).view(B, L, D)

        h = ada(self.n1(x), s1, b1)
        q, k, v = (self._heads(t) for t in self.qkv(h).chunk(3, -1))
        q, k = _rope(q, pos), _rope(k, pos)
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(B, L, D)
        x = x + gate(self.drop(self.proj(a)), g1)
        h = ada(self.n2(x), s2, b2)
        q = self._heads(self.q_x(h))
        k, v = (self._heads(t) for t in self.kv_x(text).chunk(2, -1))
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(B, L, D)
        x = x + gate(self.drop(self.proj_x(a)), g2)
        h = ada(self.n3(x), s3, b3)
        return x + gate(self.ff(h), g3)


class LightDenoiser(nn.Module):
    r"""The x0-predicting denoiser :math:`G_\theta(x(\lambda), \lambda, d, P)` over interleaved modality tokens.

    Parameters
    ----------
    token_dims : tuple of int
        Feature size of each token type (modality or merged group), in token order within a frame.
    T : int
        Frames per sequence (the frame embedding's length).
    K : int
        Number of noise levels (for the level embedding's scale).
    text_dim : int
        Size of a text embedding (384 for MiniLM).
    shape_dim : int
        Size of the object shape code.
    d_model, n_layers, n_heads : int
        Width, depth and attention heads.
    ffn : int, optional
        Feed-forward width (default ``2 d_model``, the paper's 1024 for 512).
    dropout : float
        Dropout in attention outputs and the feed-forward layers.
    n_text_tokens : int
        The text embedding is projected to this many cross-attention tokens.

    Examples
    --------
    >>> import torch
    >>> net = LightDenoiser((39, 6, 9), T=8, K=100, text_dim=16, shape_dim=33, d_model=32, n_layers=1, n_heads=2)
    >>> xs = [torch.zeros(2, 8, d) for d in (39, 6, 9)]
    >>> out = net(xs, torch.tensor([[5, 50, 99], [0, 0, 0]]), torch.zeros(2, 16), torch.zeros(2, 33))
    >>> [tuple(o.shape) for o in out]
    [(2, 8, 39), (2, 8, 6), (2, 8, 9)]
    """

    def __init__(self, token_dims, T, K, text_dim, shape_dim, d_model=128, n_layers=4, n_heads=4, ffn=None,
                 dropout=0.1, n_text_tokens=4):
        super().__init__()
        from iclr26sci.core import InputError, check_positive_int

        if isinstance(token_dims, (str, int)) or not token_dims or not all(
                isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in token_dims):
            raise InputError("token_dims", f"got {token_dims!r}", "a non-empty tuple of positive feature sizes")
        for v, name in ((T, "T"), (K, "K"), (text_dim, "text_dim"), (shape_dim, "shape_dim"), (d_model, "d_model"),
                        (n_layers, "n_layers"), (n_heads, "n_heads"), (n_text_tokens, "n_text_tokens")):
            check_positive_int(v, name)
        if d_model % n_heads or (d_model // n_heads) % 2:
            raise InputError("n_heads", f"got {n_heads} for d_model={d_model}", "a divisor of d_model with an even head size")
        if ffn is not None:
            check_positive_int(ffn, "ffn")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise InputError("dropout", f"got {dropout!r}", "a probability in [0, 1)")
        d = int(d_model)
        self.token_dims, self.T, self.K, self.d = tuple(int(x) for x in token_dims), int(T), int(K), d
        self.n_text_tokens = int(n_text_tokens)
        M = len(self.token_dims)
        self.inp = nn.ModuleList(nn.Sequential(nn.Linear(D, d), nn.SiLU(), nn.Linear(d, d)) for D in self.token_dims)
        self.out = nn.ModuleList(nn.Linear(d, D) for D in self.token_dims)
        self.mod_emb = nn.Parameter(torch.randn(M, d) * 0.02)
        self.frame_emb = nn.Parameter(torch.randn(self.T, d) * 0.02)
        self.level_mlp = nn.Sequential(nn.Linear(d, d), nn.SiLU(), nn.Linear(d, d))
        self.shape_mlp = nn.Sequential(nn.Linear(shape_dim, d), nn.SiLU(), nn.Linear(d, d))
        self.text_proj = nn.Linear(text_dim, self.n_text_tokens * d)
        self.null_text = nn.Parameter(torch.zeros(text_dim))
        self.blocks = nn.ModuleList(_Block(d, n_heads, ffn or 2 * d, dropout) for _ in range(n_layers))
        self.final_norm = nn.LayerNorm(d, elementwise_affine=False)
        self.final_mod = nn.Linear(d, 2 * d)
        nn.init.zeros_(self.final_mod.weight)
        nn.init.zeros_(self.final_mod.bias)

    def _check_forward(self, xs, levels, text, shape, text_null):
        """Sizes against the dimensions the denoiser was built for, before any layer sees them."""
        from iclr26sci.core import InputError

        M = len(self.token_dims)
        if not isinstance(xs, (list, tuple)) or len(xs) != M or not all(torch.is_tensor(x) for x in xs):
            raise InputError("xs", f"got {len(xs) if isinstance(xs, (list, tuple)) else type(xs).__name__} token tensors",
                             f"a list of {M} (B, T, D_m) tensors with D_m = {self.token_dims}")
        B, T = xs[0].shape[:2] if xs[0].ndim == 3 else (None, None)
        for m, (x, D) in enumerate(zip(xs, self.token_dims)):
            if x.ndim != 3 or x.shape[0] != B or x.shape[1] != T or x.shape[2] != D:
                raise InputError("xs", f"entry {m} has shape {tuple(x.shape)}", f"({B}, {T}, {D}) for every token type")
        if not 1 <= T <= self.T:
            raise InputError("xs", f"has {T} frames", f"between 1 and the T = {self.T} frames the denoiser was built for")
        if not all(bool(torch.isfinite(x).all()) for x in xs):
            raise InputError("xs", "contains NaN or infinite values", "finite tokens")
        if not torch.is_tensor(levels) or levels.is_floating_point() or levels.dtype == torch.bool \
                or tuple(levels.shape) not in ((B, M), (B, T, M)):
            raise InputError("levels", f"got {getattr(levels, 'shape', type(levels).__name__)}",
                             f"an integer tensor of shape ({B}, {M}) or ({B}, {T}, {M})")
        if bool((levels < -1).any()) or bool((levels >= self.K).any()):
            raise InputError("levels", f"has levels in [{int(levels.min())}, {int(levels.max())}]",
                             f"noise levels in [-1, {self.K - 1}] (-1: clean)")
        for nm, v, D in (("text", text, self.null_text.shape[0]), ("shape", shape, self.shape_mlp[0].in_features)):
            if not torch.is_tensor(v) or tuple(v.shape) != (B, D):
                raise InputError(nm, f"got {getattr(v, 'shape', type(v).__name__)}", f"a ({B}, {D}) tensor")
            if not bool(torch.isfinite(v).all()):
                raise InputError(nm, "contains NaN or infinite values", "finite values")
        if text_null is not None and (not torch.is_tensor(text_null) or tuple(text_null.shape) != (B,)
                                      or text_null.dtype != torch.bool):
            raise InputError("text_null", f"got {getattr(text_null, 'shape', type(text_null).__name__)}",
                             f"a ({B},) bool tensor")

    def forward(self, xs, levels, text, shape, text_null=None):
        """Predict the clean tokens.

        ``xs``: list of (B, T, D_m) noisy tokens; ``levels``: (B, M) or (B, T, M) integer levels (-1 clean);
        ``text``: (B, text_dim) embeddings; ``shape``: (B, shape_dim); ``text_null``: optional (B,) bool,
        True where the text is replaced by the learned null embedding (classifier-free guidance).
        Returns the list of (B, T, D_m) predictions.
        """
        self._check_forward(xs, levels, text, shape, text_null)
        B, T = xs[0].shape[:2]
        M = len(xs)
        tok = torch.stack([self.inp[m](xs[m]) for m in range(M)], 2)           # (B, T, M, d)
        tok = tok + self.mod_emb[None, None] + self.frame_emb[None, :T, None]
        if levels.dim() == 2:
            levels = levels[:, None, :]                                       # (B, 1, M): per-modality levels
        c = self.level_mlp(_level_embedding(levels, self.d, self.K)) + self.shape_mlp(shape)[:, None, None]
        x = tok.reshape(B, T * M, self.d)
        pos = torch.arange(T, device=x.device).repeat_interleave(M)
        if text_null is not None:
            text = torch.where(text_null[:, None], self.null_text[None].expand_as(text), text)
        tt = self.text_proj(text).reshape(B, self.n_text_tokens, self.d)
        for blk in self.blocks:
            x = blk(x, c, pos, tt, (T, M))
        s, b = self.final_mod(F.silu(c)).chunk(2, -1)
        x = self.final_norm(x).view(B, T, M, self.d) * (1 + s) + b
        return [self.out[m](x[:, :, m]) for m in range(M)]
