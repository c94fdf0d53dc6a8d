r"""Students and the distillation losses: TinyLLM's naive multi-teacher loss and the purified loss.

Naive multi-teacher (TinyLLM, Tian et al., WSDM 2025; its ``MultiTeacherTrainer``): one student, 1+K
text-to-text tasks told apart by an input prefix,

.. math:: L(\theta) = \gamma\,\mathrm{CE}(y_i \mid \texttt{"predict: "} x_i) + \sum_{k=1}^K \alpha_k\,\mathrm{CE}(r_{i,k} \mid \texttt{prefix}_k\, x_i);

purified (the single-rationale specialisation, "distilling step by step"),

.. math:: L(\theta) = \gamma\,\mathrm{CE}(y_i \mid \texttt{"predict: "} x_i) + \alpha\,\mathrm{CE}(r^*_i \mid \texttt{"explain: "} x_i),

with CE the token-level teacher-forced cross-entropy (mean over the target's tokens). Two passes per
example instead of 1+K.
"""
from __future__ import annotations

import copy
import math
import re
import time
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator

from iclr26sci.core import (InputError, as_generator, check_in_range, check_is_fitted, check_option,
                            check_positive_int, progress as _bar, resolve_progress, resolve_rng,
                            torch_generator)

from ._checks import check_device, check_device_name, check_rng, check_texts
from ._data import MultiTeacherData, PurifiedData

__all__ = ["Seq2SeqStudent", "distill", "evaluate_student", "DistilledStudent", "StudentEvaluation", "LOSSES"]

#: the two distillation losses :func:`distill` knows
LOSSES = ("purified", "naive_multi_teacher")
_TOK = re.compile(r"\w+|[^\w\s]")
_SPECIAL = ["<pad>", "<bos>", "<eos>", "<unk>"]


def _norm_answer(s: str) -> str:
    return " ".join(_TOK.findall(s.lower())).strip(" .")


# -------------------------------------------------------------------------------------------- student
class Seq2SeqStudent(BaseEstimator):
    r"""A small word-level Transformer encoder-decoder, trained from scratch (the synthetic checks' student).

    Words and punctuation are tokens; the vocabulary is built from the texts of the first
    :func:`distill` call (unseen words map to ``<unk>``). Encoder and decoder have ``n_layers`` layers of
    width ``d_model`` with ``n_heads`` heads, learned positions and a tied output projection.

    Parameters
    ----------
    d_model : int, default 64
    n_heads : int, default 4
    n_layers : int, default 2
    ff : int, default 128
        Feed-forward width.
    dropout : float, default 0.1
    max_len : int, default 96
        Longest source or target (tokens); longer ones are cut.
    device : str, default "cpu"
    rng : int, default 0
        Seed of the initialisation.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Examples
    --------
    >>> s = Seq2SeqStudent(d_model=16, n_heads=2, n_layers=1, ff=32)
    >>> s.build_vocab(["predict: a b", "c"]).vocab_size_
    9
    """

    def __init__(self, d_model=64, n_heads=4, n_layers=2, ff=128, dropout=0.1, max_len=96, device="cpu", rng=0,
                 random_state=None):
        self.d_model = d_model
        self.n_heads = n_heads
        self.n_layers = n_layers
        self.ff = ff
        self.dropout = dropout
        self.max_len = max_len
        self.device = device
        self.rng = rng
        self.random_state = random_state
        self._check_params()

    def _check_params(self):
        d = check_positive_int(self.d_model, "d_model")
        h = check_positive_int(self.n_heads, "n_heads")
        if d % h:
            raise InputError("n_heads", f"got {h}, which does not divide d_model={d}", "a divisor of d_model")
        check_positive_int(self.n_layers, "n_layers")
        check_positive_int(self.ff, "ff")
        check_in_range(self.dropout, "dropout", 0.0, 1.0, high_open=True)
        check_positive_int(self.max_len, "max_len", minimum=4)
        check_device_name(self.device, "device", allow_none=False)
        resolve_rng(self.rng, self.random_state, default=0)

    # ------------------------------------------------------------------ build
    def build_vocab(self, texts) -> "Seq2SeqStudent":
        """Build the vocabulary and the network (called by :func:`distill` on first use).

        Examples
        --------
        >>> Seq2SeqStudent(d_model=16, n_heads=2).build_vocab(["x y"]).vocab_size_
        6
        """
        self._check_params()
        texts = check_texts(texts, "texts")
        import torch

        check_device(self.device)
        d = check_positive_int(self.d_model, "d_model")
        h = check_positive_int(self.n_heads, "n_heads")
        nl = check_positive_int(self.n_layers, "n_layers")
        ff = check_positive_int(self.ff, "ff")
        dr = check_in_range(self.dropout, "dropout", 0.0, 1.0, high_open=True)
        ml = check_positive_int(self.max_len, "max_len", minimum=4)
        words = sorted({w for t in texts for w in _TOK.findall(t)})
        self.itos_ = _SPECIAL + [w for w in words if w not in _SPECIAL]
        self.stoi_ = {w: i for i, w in enumerate(self.itos_)}
        self.vocab_size_ = len(self.itos_)
        torch.manual_seed(int(as_generator(resolve_rng(self.rng, self.random_state, default=0)).integers(0, 2**31 - 1)))
        self.net_ = _Net(self.vocab_size_, d, h, nl, ff, dr, ml + 2).to(self.device)
        return self

    def _ids(self, text, bos=False):
        ids = [self.stoi_.get(w, 3) for w in _TOK.findall(text)][: int(self.max_len)]
        return ([1] if bos else []) + ids + [2]

    def _batch(self, srcs, tgts=None):
        import torch

        S = [self._ids(s) for s in srcs]
        Ls = max(map(len, S))
        src = torch.tensor([x + [0] * (Ls - len(x)) for x in S], device=self.device)
        if tgts is None:
            return src, None
        T = [self._ids(t, bos=True) for t in tgts]
        Lt = max(map(len, T))
        tgt = torch.tensor([x + [0] * (Lt - len(x)) for x in T], device=self.device)
        return src, tgt

    def token_nll(self, sources, targets, *, grad=False):
        """Mean per-token negative log-likelihood of each target given its source, a tensor (n,).

        Examples
        --------
        >>> s = Seq2SeqStudent(d_model=16, n_heads=2, n_layers=1, ff=32).build_vocab(["a b c"])
        >>> s.token_nll(["a"], ["b c"]).shape
        torch.Size([1])
        """
        import torch

        check_is_fitted(self, "net_", method="token_nll")
        sources = check_texts(sources, "sources")
        targets = check_texts(targets, "targets")
        if len(targets) != len(sources):
            raise InputError("targets", f"has {len(targets)} texts for {len(sources)} sources", "one target per source")
        if not isinstance(grad, (bool, np.bool_)):
            raise InputError("grad", f"got {grad!r}", "True or False")
        src, tgt = self._batch(sources, targets)
        ctx = torch.enable_grad() if grad else torch.no_grad()
        with ctx:
            logits = self.net_(src, tgt[:, :-1])
            y = tgt[:, 1:]
            lp = torch.log_softmax(logits, dim=-1).gather(-1, y.unsqueeze(-1)).squeeze(-1)
            m = (y != 0).float()
            return -(lp * m).sum(1) / m.sum(1).clamp(min=1)

    def generate(self, sources, max_new_tokens=48):
        """Greedy decoding; returns the decoded strings (tokens joined by spaces).

        Examples
        --------
        >>> s = Seq2SeqStudent(d_model=16, n_heads=2, n_layers=1, ff=32).build_vocab(["a b"])
        >>> len(s.generate(["a"], max_new_tokens=3))
        1
        """
        import torch

        check_is_fitted(self, "net_", method="generate")
        sources = check_texts(sources, "sources")
        mnt = check_positive_int(max_new_tokens, "max_new_tokens")
        self.net_.eval()
        out = []
        with torch.no_grad():
            for start in range(0, len(sources), 256):
                src, _ = self._batch(sources[start:start + 256])
                mem, pad = self.net_.encode(src)
                ys = torch.ones((src.shape[0], 1), dtype=torch.long, device=src.device)
                done = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
                for _ in range(mnt):
                    nxt = self.net_.decode(ys, mem, pad)[:, -1].argmax(-1)
                    nxt = torch.where(done, torch.zeros_like(nxt), nxt)
                    ys = torch.cat([ys, nxt[:, None]], 1)
                    done |= nxt == 2
                    if bool(done.all()):
                        break
                for row in ys[:, 1:].tolist():
                    words = []
                    for t in row:
                        if t in (0, 2):
                            break
                        words.append(self.itos_[t])
                    out.append(" ".join(words))
        return out


def _Net(V, d, h, nl, ff, dr, L):
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, d, padding_idx=0)
            self.pos = nn.Embedding(L, d)
            self.tf = nn.Transformer(d, h, nl, nl, ff, dr, batch_first=True)
            self.scale = math.sqrt(d)

        def embed(self, x):
            return self.emb(x) * self.scale + self.pos(torch.arange(x.shape[1], device=x.device))[None]

        def encode(self, src):
            import warnings

            pad = src == 0
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")
                return self.tf.encoder(self.embed(src), src_key_padding_mask=pad), pad

        def decode(self, tgt, mem, pad):
            T = tgt.shape[1]
            causal = torch.triu(torch.ones((T, T), dtype=torch.bool, device=tgt.device), 1)
            h_ = self.tf.decoder(self.embed(tgt), mem, tgt_mask=causal, tgt_key_padding_mask=tgt == 0,
                                 memory_key_padding_mask=pad)
            return h_ @ self.emb.weight.T

        def forward(self, src, tgt):
            mem, pad = self.encode(src)
            return self.decode(tgt, mem, pad)

    return Net()


# ------------------------------------------------------------------------------------------- results
@dataclass(frozen=True, repr=False, eq=False)
class DistilledStudent:
    """A student after :func:`distill`: the trained model and how it was trained.

    Attributes
    ----------
    model : Seq2SeqStudent or iclr26sci.nn.LanguageModel
    loss : str
        ``"purified"`` or ``"naive_multi_teacher"``.
    prefixes : list of str
        The rationale-task prefixes it was trained with.
    history : list of float
        Mean training loss per epoch.
    seconds : float
        Training wall-clock time.
    n_streams : int
        Target sequences per question (2 purified, 1+K naive).

    Examples
    --------
    >>> DistilledStudent(None, "purified", ["explain: "], [1.0], 0.1, 2)
    DistilledStudent(loss='purified', epochs=1, final loss 1.0000)
    """

    model: object
    loss: str
    prefixes: list
    history: list
    seconds: float
    n_streams: int

    def __post_init__(self):
        check_option(self.loss, "loss", LOSSES)
        object.__setattr__(self, "prefixes", check_texts(self.prefixes, "prefixes"))
        h = np.asarray(self.history, dtype=float) if not isinstance(self.history, str) else np.array(["x"])
        if h.ndim != 1 or h.dtype.kind != "f" or not np.all(np.isfinite(h)):
            raise InputError("history", f"got {self.history!r}", "a list of finite per-epoch losses")
        object.__setattr__(self, "history", [float(x) for x in h])
        object.__setattr__(self, "seconds", check_in_range(self.seconds, "seconds", 0.0, None))
        object.__setattr__(self, "n_streams", check_positive_int(self.n_streams, "n_streams", minimum=2))

    def __repr__(self):
        last = self.history[-1] if self.history else float("nan")
        return f"DistilledStudent(loss={self.loss!r}, epochs={len(self.history)}, final loss {last:.4f})"

    def summary(self) -> str:
        return repr(self) + f"; {self.n_streams} streams per question, {self.seconds:.1f} s"

    def to_dict(self) -> dict:
        return {"loss": self.loss, "prefixes": list(self.prefixes), "history": list(self.history),
                "seconds": self.seconds, "n_streams": self.n_streams}


@dataclass(frozen=True, repr=False)
class StudentEvaluation:
    """Held-out metrics of a distilled student (:func:`evaluate_student`).

    Attributes
    ----------
    accuracy : float
        Share of questions whose ``predict:`` output equals the gold answer (normalised exact match, or
        the given grader).
    rationale_nll : float
        Mean per-token negative log-likelihood of the held-out correct teacher rationales (lower is better).
    n : int
    n_rationales : int
    by_domain : dict
        Accuracy per domain (when the data have domains).

    Examples
    --------
    >>> StudentEvaluation(0.5, 1.2, 10, 7, {})
    StudentEvaluation(accuracy=0.500, rationale_nll=1.200, n=10)
    """

    accuracy: float
    rationale_nll: float
    n: int
    n_rationales: int
    by_domain: dict = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "accuracy", check_in_range(self.accuracy, "accuracy", 0.0, 1.0))
        object.__setattr__(self, "n", check_positive_int(self.n, "n"))
        object.__setattr__(self, "n_rationales", check_positive_int(self.n_rationales, "n_rationales", minimum=0))
        nll = self.rationale_nll
        if self.n_rationales == 0:
            if not (isinstance(nll, float) and np.isnan(nll)):
                raise InputError("rationale_nll", f"got {nll!r} with no rationale scored", "NaN (undefined)")
        else:
            object.__setattr__(self, "rationale_nll", check_in_range(nll, "rationale_nll", 0.0, None))
        if not isinstance(self.by_domain, dict):
            raise InputError("by_domain", f"got {type(self.by_domain).__name__}", "a dict domain -> accuracy")
        for k, v in self.by_domain.items():
            check_in_range(v, "by_domain", 0.0, 1.0)

    def __repr__(self):
        return f"StudentEvaluation(accuracy={self.accuracy:.3f}, rationale_nll={self.rationale_nll:.3f}, n={self.n})"

    def summary(self) -> str:
        dom = "; ".join(f"{k} {v:.3f}" for k, v in sorted(self.by_domain.items()))
        return repr(self) + (f"; by domain: {dom}" if dom else "")

    def to_dict(self) -> dict:
        return {"accuracy": self.accuracy, "rationale_nll": self.rationale_nll, "n": self.n,
                "n_rationales": self.n_rationales, "by_domain": dict(self.by_domain)}


# ------------------------------------------------------------------------------------------- distill
def _is_lm(student):
    return type(student).__name__ == "LanguageModel" or (hasattr(student, "sequence_logprob")
                                                        and hasattr(student, "model"))


def _check_student(student):
    if isinstance(student, DistilledStudent):
        student = student.model
    if isinstance(student, Seq2SeqStudent):
        return student
    if getattr(student, "tokenizer", None) is None:
        raise InputError("student", f"{type(student).__name__} has no tokenizer",
                         "a Seq2SeqStudent or a causal LM with a tokenizer (iclr26sci.nn.load_lm / tiny_lm)")
    if not _is_lm(student):
        raise InputError("student", f"got {type(student).__name__}",
                         "a Seq2SeqStudent or an iclr26sci.nn.LanguageModel (load_lm, tiny_lm)")
    return student


def _examples(data, loss, gamma, alpha, answers="gold"):
    """(source, target, weight) triples and the rationale prefixes."""
    if answers == "gold":
        ex = [("predict: " + q, a, gamma) for q, a in zip(data.questions, data.answers)]
    elif loss == "purified" and isinstance(data, PurifiedData):
        ex = [("predict: " + q, a, gamma) for q, a in zip(data.questions, data.implied_answers)]
    elif isinstance(data, MultiTeacherData):
        ex = [("predict: " + q, a, gamma / data.K) for q, row in zip(data.questions, data.teacher_answers)
              for a in row]
    else:
        ex = []
    if loss == "purified":
        if isinstance(data, PurifiedData):
            rats = data.rationales
        else:
            raise InputError("data", "is a MultiTeacherData, but loss='purified' needs one rationale per question",
                             "a PurifiedData (purifier.purify(data)), or loss='naive_multi_teacher'")
        a = float(alpha if np.isscalar(alpha) else np.asarray(alpha).ravel()[0])
        ex += [("explain: " + q, r, a) for q, r in zip(data.questions, rats)]
        return ex, ["explain: "]
    if not isinstance(data, MultiTeacherData):
        raise InputError("data", f"is a {type(data).__name__}, but the naive multi-teacher loss needs all K rationales",
                         "a MultiTeacherData, or loss='purified'")
    K = data.K
    al = np.full(K, float(alpha)) if np.isscalar(alpha) else np.asarray(alpha, dtype=float)
    if al.shape != (K,) or not np.all(np.isfinite(al)) or np.any(al < 0):
        raise InputError("alpha", f"has shape {al.shape} or negative values", f"a scalar or {K} non-negative weights")
    prefixes = [f"explain {k}: " for k in range(K)]
    for k in range(K):
        ex += [(prefixes[k] + q, row[k], float(al[k])) for q, row in zip(data.questions, data.rationales)]
    return ex, prefixes


def distill(student, data, *, loss="purified", epochs=3, lr=None, batch_size=32, gamma=1.0, alpha=1.0,
            answers="gold", max_steps=None, lora=True, lora_r=8, rng=0, device=None,
            progress=None, progress_bar=None) -> DistilledStudent:
    r"""Distil a student on purified rationales (``loss="purified"``) or on all K (``"naive_multi_teacher"``).

    Minimises the loss of the module docstring with AdamW over ``epochs`` passes of shuffled
    (source, target) examples, each weighted by :math:`\gamma` (answer task) or :math:`\alpha_k` (rationale
    task): the batch loss is :math:`\frac{1}{|b|}\sum_{e \in b} w_e\,\mathrm{CE}_e`.

    Parameters
    ----------
    student : Seq2SeqStudent or iclr26sci.nn.LanguageModel
        The student. A :class:`Seq2SeqStudent` is copied, its vocabulary built from ``data``, and trained
        from scratch. A language model (SmolLM2-135M from ``load_lm``, ``tiny_lm`` in tests, or any local
        causal LM) is trained through LoRA adapters: with ``lora=True`` and no adapters yet,
        ``student.with_lora(r=lora_r)`` (a copy) is trained; prompts are ``"<prefix><question>\n"``.
    data : PurifiedData or MultiTeacherData
        ``PurifiedData`` for the purified loss (from any purifier's ``purify``), ``MultiTeacherData`` for the
        naive multi-teacher loss.
    loss : {"purified", "naive_multi_teacher"}, default "purified"
    epochs : int, default 3
    lr : float, optional
        AdamW step size (default 1e-3 for the seq2seq student, 2e-4 for LoRA).
    batch_size : int, default 32
    gamma : float >= 0, default 1
        Weight of the answer task.
    alpha : float >= 0 or array (K,), default 1
        Weight of the rationale task(s).
    answers : {"gold", "teachers"}, default "gold"
        Target of the answer task. ``"gold"`` (TinyLLM, and the paper's setting): the gold answer
        :math:`y_i`. ``"teachers"`` (distillation without gold labels, used by check 1): each teacher's own
        stated answer, i.e. :math:`\frac{\gamma}{K}\sum_k \mathrm{CE}(a_{i,k} \mid \texttt{"predict: "} x_i)` for the
        naive loss and :math:`\gamma\,\mathrm{CE}(a^*_i \mid \texttt{"predict: "} x_i)` (the purified rationale's
        implied answer) for the purified loss.
    max_steps : int, optional
        Stop after this many optimiser steps (the data are reshuffled and passed over as often as needed;
        ``epochs`` is then ignored). For step-matched comparisons of the two losses, whose numbers of
        examples per question differ (2 against 1 + K).
    lora : bool, default True
    lora_r : int, default 8
    rng : int, default 0
        Seed of initialisation and shuffling.
    device : str, optional
        Torch device (default cpu; the code is device-agnostic).
    progress : bool, optional
        Show a progress bar (default None: only at a terminal or in a notebook, outside CI).
    progress_bar : bool, optional
        Deprecated spelling of ``progress``.

    Returns
    -------
    DistilledStudent

    References
    ----------
    Tian et al. (2025), "Beyond Answers: Transferring Reasoning Capabilities to Smaller LLMs Using
    Multi-Teacher Knowledge Distillation", WSDM (TinyLLM). Hsieh et al. (2023), "Distilling Step-by-Step!".
    Jin et al. (2026), arXiv:2602.01064.

    Examples
    --------
    >>> from iclr26sci.distill import SyntheticRationaleQA, OraclePurifier
    >>> d = SyntheticRationaleQA(rng=0).generate(40)
    >>> st = distill(Seq2SeqStudent(d_model=16, n_heads=2, n_layers=1, ff=32), OraclePurifier().purify(d), epochs=1)
    >>> st.loss, st.n_streams
    ('purified', 2)
    """
    import torch

    student = _check_student(student)
    loss = check_option(loss, "loss", LOSSES)
    epochs = check_positive_int(epochs, "epochs")
    batch_size = check_positive_int(batch_size, "batch_size")
    gamma = check_in_range(gamma, "gamma", 0.0, None)
    if np.isscalar(alpha) and not isinstance(alpha, str):
        check_in_range(alpha, "alpha", 0.0, None)
        alpha_vec = np.array([float(alpha)])
    elif loss == "purified":
        raise InputError("alpha", f"got {alpha!r}", "one non-negative number (the purified loss has one rationale "
                         "task; per-teacher weights belong to loss='naive_multi_teacher')")
    else:
        from iclr26sci.core import check_array

        alpha_vec = check_array(alpha, "alpha", ndim=1, nonnegative=True)
    if gamma == 0 and not np.any(alpha_vec > 0):
        raise InputError("gamma", "and alpha are all 0, so the loss is identically zero and nothing is learnt",
                         "gamma > 0 or alpha > 0")
    progress = resolve_progress(progress, progress_bar=progress_bar)
    check_rng(rng)
    if device is not None:
        check_device(device)
    if lr is not None:
        lr = check_in_range(lr, "lr", 0.0, None, low_open=True)
    lora_r = check_positive_int(lora_r, "lora_r")
    if not isinstance(lora, bool):
        raise InputError("lora", f"got {lora!r}", "True or False")
    if not isinstance(data, (PurifiedData, MultiTeacherData)):
        raise InputError("data", f"got {type(data).__name__}", "a PurifiedData or a MultiTeacherData")
    answers = check_option(answers, "answers", ("gold", "teachers"))
    if max_steps is not None:
        max_steps = check_positive_int(max_steps, "max_steps")
    ex, prefixes = _examples(data, loss, gamma, alpha, answers)
    gen = as_generator(rng)
    t0 = time.perf_counter()
    history = []
    if isinstance(student, Seq2SeqStudent):
        st = copy.deepcopy(student)
        if device is not None:
            st.device = device
        if not hasattr(st, "net_"):
            st.build_vocab([s for s, _, _ in ex] + [t for _, t, _ in ex])
        params = st.net_.parameters()
        opt = torch.optim.AdamW(params, lr=lr or 1e-3, weight_decay=0.01)

        def batch_loss(b):
            nll = st.token_nll([e[0] for e in b], [e[1] for e in b], grad=True)
            w = torch.tensor([e[2] for e in b], dtype=nll.dtype, device=nll.device)
            return (w * nll).mean()

        train_mode = st.net_.train
        model_out = st
    else:
        lm = student
        if lora and lm.n_trainable == lm.n_parameters:
            lm = lm.with_lora(r=lora_r, rng=int(gen.integers(0, 2**31 - 1)))
        if device is not None:
            lm = lm.to(device)
        opt = torch.optim.AdamW(lm.trainable_parameters(), lr=lr or 2e-4, weight_decay=0.0)

        def batch_loss(b):
            lp = lm.sequence_logprob([e[0] + "\n" for e in b], [" " + e[1] for e in b], reduce="mean", grad=True)
            w = torch.tensor([e[2] for e in b], dtype=lp.mean.dtype, device=lp.mean.device)
            return -(w * lp.mean).mean()

        train_mode = lm.model.train
        model_out = lm
    torch.manual_seed(int(gen.integers(0, 2**31 - 1)))
    n_ep = epochs if max_steps is None else -(-max_steps // -(-len(ex) // batch_size))
    steps = 0
    for ep in _bar(range(n_ep), desc=f"distill ({loss})", enabled=progress):
        train_mode()
        order = gen.permutation(len(ex))
        tot, nb = 0.0, 0
        for s in range(0, len(ex), batch_size):
            if max_steps is not None and steps >= max_steps:
                break
            steps += 1
            b = [ex[j] for j in order[s:s + batch_size]]
            opt.zero_grad()
            L = batch_loss(b)
            if not bool(torch.isfinite(L)):
                raise InputError("lr", f"gave a non-finite training loss ({float(L)}) at step {steps}",
                                 "a smaller learning rate (the training diverged)")
            L.backward()
            opt.step()
            tot += float(L.detach())
            nb += 1
        history.append(tot / max(nb, 1))
    if isinstance(model_out, Seq2SeqStudent):
        model_out.net_.eval()
    else:
        model_out.model.eval()
    return DistilledStudent(model_out, loss, prefixes, history, time.perf_counter() - t0,
                            1 + len(prefixes))


def evaluate_student(student, data, *, grader=None, max_new_tokens=16, max_rationales=None, batch_size=32,
                     prefix=None, rng=0) -> StudentEvaluation:
    r"""Held-out answer accuracy and rationale likelihood of a distilled student.

    - accuracy: the greedy ``"predict: "`` output vs the gold answer (``grader(output, gold) -> bool``;
      default: exact match after lower-casing and tokenising, as TinyLLM's exact string match);
    - rationale NLL: the mean per-token negative log-likelihood of the test data's correct teacher
      rationales (:math:`c_{i,k} = 1`) under the student's rationale prefix (for a naive multi-teacher
      student, the best of its K prefixes per rationale).

    Parameters
    ----------
    student : DistilledStudent, Seq2SeqStudent or LanguageModel
    data : MultiTeacherData
        Held-out questions with their teachers' rationales and gold answers.
    grader : callable, optional
    max_new_tokens : int, default 16
    max_rationales : int, optional
        Score at most this many rationales (a random subset), to bound time.
    batch_size : int, default 32
    prefix : str, optional
        Score every rationale under this one prefix (e.g. ``"explain 2: "``, one fixed stream of a naive
        student), so that students are compared under the same protocol; default: the student's own prefix
        (the best of its K for a naive multi-teacher student).
    rng : int, default 0

    Examples
    --------
    >>> from iclr26sci.distill import SyntheticRationaleQA, OraclePurifier
    >>> d = SyntheticRationaleQA(rng=0).generate(30)
    >>> st = distill(Seq2SeqStudent(d_model=16, n_heads=2, n_layers=1, ff=32), OraclePurifier().purify(d), epochs=1)
    >>> ev = evaluate_student(st, d, max_new_tokens=4)
    >>> 0.0 <= ev.accuracy <= 1.0, ev.n
    (True, 30)
    """
    import torch

    prefixes = student.prefixes if isinstance(student, DistilledStudent) else ["explain: "]
    if prefix is not None:
        if not isinstance(prefix, str):
            raise InputError("prefix", f"got {type(prefix).__name__}", "None or a string such as 'explain 2: '")
        prefixes = [prefix]
    model = _check_student(student)
    if isinstance(model, Seq2SeqStudent) and not hasattr(model, "net_"):
        raise InputError("student", "is an untrained Seq2SeqStudent", "a student returned by distill(...)")
    if not isinstance(data, MultiTeacherData):
        raise InputError("data", f"got {type(data).__name__}", "a MultiTeacherData with gold answers (e.g. data.test)")
    check_rng(rng)
    if grader is not None and not callable(grader):
        raise InputError("grader", f"got {type(grader).__name__}", "None or a callable (output, gold) -> bool")
    mnt = check_positive_int(max_new_tokens, "max_new_tokens")
    bs = check_positive_int(batch_size, "batch_size")
    if max_rationales is not None:
        max_rationales = check_positive_int(max_rationales, "max_rationales")
    grade = grader or (lambda out, gold: _norm_answer(out) == _norm_answer(gold))
    srcs = ["predict: " + q for q in data.questions]
    if isinstance(model, Seq2SeqStudent):
        outs = model.generate(srcs, max_new_tokens=mnt)
    else:
        outs = []
        for s in range(0, len(srcs), bs):
            g = model.generate([x + "\n" for x in srcs[s:s + bs]], n=1, max_new_tokens=mnt, temperature=0.0,
                               stop=["\n"], rng=rng)
            outs += list(g.texts)
    hit = []
    for o, a in zip(outs, data.answers):
        g = grade(o, a)
        if not isinstance(g, (bool, np.bool_)) and not (isinstance(g, (int, np.integer)) and g in (0, 1)):
            raise InputError("grader", f"returned {g!r} of type {type(g).__name__}", "True or False")
        hit.append(bool(g))
    hit = np.array(hit, dtype=bool)
    pairs = [(i, k) for i in range(data.n) for k in range(data.K) if data.correct[i, k]]
    if max_rationales is not None and len(pairs) > max_rationales:
        sel = as_generator(rng).choice(len(pairs), max_rationales, replace=False)
        pairs = [pairs[j] for j in sorted(sel)]
    nll = []
    for s in range(0, len(pairs), bs):
        chunk = pairs[s:s + bs]
        best = None
        for pre in prefixes:
            src = [pre + data.questions[i] for i, _ in chunk]
            tgt = [data.rationales[i][k] for i, k in chunk]
            if isinstance(model, Seq2SeqStudent):
                v = model.token_nll(src, tgt).cpu().numpy()
            else:
                with torch.no_grad():
                    v = -model.sequence_logprob([x + "\n" for x in src], [" " + t for t in tgt],
                                                reduce="mean").mean.float().cpu().numpy()
            best = v if best is None else np.minimum(best, v)
        nll.extend(best.tolist())
    by = {}
    if data.domains is not None:
        for dname in sorted(set(data.domains)):
            m = np.array([x == dname for x in data.domains])
            by[dname] = float(hit[m].mean())
    return StudentEvaluation(float(hit.mean()), float(np.mean(nll)) if nll else float("nan"), data.n, len(pairs), by)
