"""Rewards for the GRPO trainer: a classifier's probability / top-1 indicator of the prompt's class, and the
distance to a per-prompt 2-D target."""
from __future__ import annotations

import numpy as np
import torch

from iclr26sci.core import InputError, check_option

from ._checks import call_model, check_labels, check_samples


class ClassifierReward:
    """See :func:`iclr26sci.generative.tempflow.classifier_reward`."""

    def __init__(self, classifier, kind="prob", target=None, clamp=(0.0, 1.0), shape=None):
        self.kind = check_option(kind, "kind", ["prob", "logprob", "top1"])
        if isinstance(classifier, torch.nn.Module):
            self._logits = classifier
            self.n_classes = getattr(classifier, "n_classes", None)
            if self.n_classes is None:   # a bare head: its last linear layer says how many classes
                lins = [m for m in classifier.modules() if isinstance(m, torch.nn.Linear)]
                self.n_classes = lins[-1].out_features if lins else None
            self.n_features = None
        elif hasattr(classifier, "coef_") and hasattr(classifier, "intercept_"):
            W = torch.as_tensor(np.asarray(classifier.coef_, dtype=np.float32))
            b = torch.as_tensor(np.asarray(classifier.intercept_, dtype=np.float32))
            if W.shape[0] == 1:   # binary sklearn model: logits (0, w x + b)
                W, b = torch.cat([torch.zeros_like(W), W]), torch.cat([torch.zeros_like(b), b])
            self._logits = lambda x: x.reshape(x.shape[0], -1) @ W.T + b
            self.n_classes = W.shape[0]
            self.n_features = W.shape[1]
        else:
            raise InputError("classifier", f"got {type(classifier).__name__}",
                             "a torch module returning logits or a fitted sklearn linear classifier (coef_)")
        if target is not None and (isinstance(target, bool) or not isinstance(target, (int, np.integer))
                                   or target < 0 or (self.n_classes is not None and target >= self.n_classes)):
            raise InputError("target", f"got {target!r}", "None (the prompt's class) or a class index")
        if clamp is not None:
            if len(clamp) != 2 or not clamp[0] < clamp[1]:
                raise InputError("clamp", f"got {clamp!r}", "None or a (low, high) pair with low < high")
        self.target, self.clamp, self.shape = target, clamp, shape
        self.classifier = classifier

    def __repr__(self):
        return f"ClassifierReward({type(self.classifier).__name__}, kind={self.kind!r}, target={self.target})"

    def __call__(self, x, prompts=None):
        x = check_samples(x, "x", dim=self.n_features)
        if self.shape is not None:
            if int(np.prod(x.shape[1:])) != int(np.prod(self.shape)):
                raise InputError("x", f"has per-sample shape {tuple(x.shape[1:])}", f"{tuple(self.shape)} (shape=)")
            x = x.reshape((x.shape[0],) + tuple(self.shape))
        if self.clamp is not None:
            x = x.clamp(*self.clamp)
        if self.target is None:
            if prompts is None:
                raise InputError("prompts", "is None", "class labels (the target of each sample)")
            y = torch.as_tensor(check_labels(prompts, "prompts", n=x.shape[0], n_classes=self.n_classes))
        else:
            y = torch.full((x.shape[0],), int(self.target), dtype=torch.long)
        ctx = torch.enable_grad() if (self.kind != "top1" and x.requires_grad) else torch.no_grad()
        with ctx:
            logits = call_model(self._logits, x.float(), "x", "the classifier")
            if logits.ndim != 2 or (self.target is not None and logits.shape[1] <= self.target) \
                    or (self.target is None and int(y.max()) >= logits.shape[1]):
                raise InputError("prompts" if self.target is None else "target",
                                 f"asks for class {int(y.max())} but the classifier returns logits of shape "
                                 f"{tuple(logits.shape)}", "class indices below the number of logits")
            lp = torch.log_softmax(logits, dim=1).gather(1, y.reshape(-1, 1)).reshape(-1)
            if self.kind == "prob":
                return lp.exp()
            if self.kind == "logprob":
                return lp
            return (logits.argmax(1) == y).to(torch.float32)


class TargetReward:
    """See :func:`iclr26sci.generative.tempflow.target_reward`."""

    def __init__(self, targets):
        T = np.asarray(targets, dtype=float)
        if T.ndim == 1:
            T = T[None]
        if T.ndim != 2 or not np.all(np.isfinite(T)) or T.shape[0] < 1 or T.shape[1] < 1:
            raise InputError("targets", f"has shape {T.shape}", "a finite (n_prompts, d) array of target points")
        self.targets = torch.as_tensor(T)

    def __repr__(self):
        return f"TargetReward(n_prompts={self.targets.shape[0]}, dim={self.targets.shape[1]})"

    def __call__(self, x, prompts=None):
        x = check_samples(x, "x", dim=self.targets.shape[1])
        if self.targets.shape[0] == 1:
            idx = torch.zeros(x.shape[0], dtype=torch.long)
        else:
            if prompts is None:
                raise InputError("prompts", "is None", "prompt indices into targets")
            idx = torch.as_tensor(check_labels(prompts, "prompts", n=x.shape[0], n_classes=self.targets.shape[0]))
        tgt = self.targets[idx].to(x.dtype)
        return -torch.linalg.vector_norm(x.reshape(x.shape[0], -1) - tgt, dim=1)
