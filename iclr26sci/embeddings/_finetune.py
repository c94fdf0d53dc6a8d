"""Small, cached contrastive fine-tuning of a transformer's last block (offline members of comparable strength).

UEC's premise is an ensemble of *comparably strong* encoders. Offline, the only
strong encoder is the packaged all-MiniLM-L6-v2; fine-tuning its last block
contrastively on disjoint sets of positive pairs, with different seeds, gives
members that are as strong as each other but not identical. Only the last block
is trained, so the inputs of that block are computed once (one frozen forward
pass) and each optimisation step costs one block: seconds on a CPU. The trained
block is cached on disk, keyed by a hash of the pairs and every setting.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from iclr26sci.core import InputError, as_generator, check_in_range, check_positive_int, progress as _bar

__all__ = ["contrastive_finetune_last_block"]


def _cache_dir() -> Path:
    root = os.environ.get("ICLR26SCI_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "iclr26sci")
    return Path(root) / "finetuned"


def contrastive_finetune_last_block(encoder, pairs, *, epochs: int = 4, lr: float = 1e-4, batch_size: int = 16,
                                    logit_scale: float = 20.0, rng=0, cache: bool = True,
                                    progress: bool | None = None):
    r"""Fine-tune the last block of a :class:`TransformerEncoder` in place (in-batch contrastive loss).

    Loss per batch of ``B`` pairs (MultipleNegativesRanking / InfoNCE),

    .. math::

        \mathcal L = -\frac1B\sum_b \log
        \frac{\exp(s\cos(e(q_b), e(p_b)))}{\sum_c \exp(s\cos(e(q_b), e(p_c)))},

    with :math:`e` the mean-pooled output and :math:`s` = ``logit_scale``.
    The encoder's caches are cleared afterwards.

    Returns the encoder and a dict (``loss_first_epoch``, ``loss_last_epoch``, ``cached``, ``key``).
    """
    import torch

    from ._probabilistic import check_pairs

    pairs = check_pairs(pairs)
    epochs = check_positive_int(epochs, "epochs")
    lr = check_in_range(lr, "lr", 0.0, 1.0, low_open=True)
    batch_size = check_positive_int(batch_size, "batch_size", minimum=2)
    logit_scale = check_in_range(logit_scale, "logit_scale", 0.0, None, low_open=True)
    blk = encoder._last_block()
    if blk is None:
        raise InputError("encoder", f"{encoder.name} has no BERT-style last block", "a BERT-family TransformerEncoder")
    seed = int(as_generator(rng).integers(2**31 - 1))
    spec = {"model": encoder.path, "pairs": pairs, "epochs": epochs, "lr": lr, "batch_size": batch_size,
            "logit_scale": logit_scale, "seed": seed, "max_seq_length": encoder.max_seq_length, "v": 1}
    key = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:20]
    path = _cache_dir() / f"{key}.pt"
    info = {"key": key, "cached": False}
    if cache and path.exists():
        saved = torch.load(path, weights_only=True)
        blk.load_state_dict(saved["state"])
        info.update(cached=True, **saved["info"])
        encoder.clear_cache()
        return encoder, info

    texts = list(dict.fromkeys(t for pr in pairs for t in pr))
    index = {t: i for i, t in enumerate(texts)}
    tok = encoder.tokenizer(texts, padding="max_length", truncation=True, max_length=encoder.max_seq_length,
                            return_tensors="pt")
    captured = {}

    def pre_hook(module, args, kwargs):
        captured["mask"] = args[1] if len(args) > 1 else kwargs.get("attention_mask")

    xs, masks = [], []
    h = blk.register_forward_pre_hook(pre_hook, with_kwargs=True)
    try:
        with torch.no_grad():
            for i in range(0, len(texts), 64):
                sl = {k: v[i:i + 64] for k, v in tok.items()}
                out = encoder.model(**sl, output_hidden_states=True)
                xs.append(out.hidden_states[-2])
                masks.append(captured["mask"])
    finally:
        h.remove()
    X, M = torch.cat(xs), torch.cat(masks)
    pool = tok["attention_mask"].to(X.dtype)
    q_idx = np.array([index[a] for a, _ in pairs])
    p_idx = np.array([index[b] for _, b in pairs])

    torch.manual_seed(seed)
    g = as_generator(seed)
    blk.requires_grad_(True)
    opt = torch.optim.AdamW(blk.parameters(), lr=lr, weight_decay=0.0)
    blk.train()
    losses = []
    it = range(epochs)
    if progress:
        it = _bar(it, desc=f"fine-tune[{encoder.name}]", total=epochs)

    def embed(ix):
        ix = torch.as_tensor(ix)
        o = blk(X[ix], M[ix])
        o = o[0] if isinstance(o, tuple) else o
        m = pool[ix]
        e = (o * m[..., None]).sum(1) / m.sum(1, keepdim=True).clamp_min(1.0)
        return torch.nn.functional.normalize(e, dim=-1)

    try:
        for _ in it:
            order = g.permutation(len(pairs))
            ep = []
            for s in range(0, len(order), batch_size):
                b = order[s:s + batch_size]
                if len(b) < 2:
                    continue
                logits = logit_scale * embed(q_idx[b]) @ embed(p_idx[b]).T
                loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(b)))
                opt.zero_grad()
                loss.backward()
                opt.step()
                ep.append(float(loss.detach()))
            losses.append(float(np.mean(ep)))
    finally:
        blk.eval()
        blk.requires_grad_(False)
    info.update(loss_first_epoch=losses[0], loss_last_epoch=losses[-1])
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save({"state": blk.state_dict(), "info": {k: info[k] for k in ("loss_first_epoch", "loss_last_epoch")}},
                   tmp)
        os.replace(tmp, path)
    encoder.clear_cache()
    return encoder, info
