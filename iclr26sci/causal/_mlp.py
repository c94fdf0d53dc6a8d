"""The paper's 64-32 torch MLP: nuisance models and a softmax policy, with early stopping.

Architecture Linear(in,64)-ReLU-Linear(64,32)-ReLU-Linear(32,out); Adam, lr 1e-3,
at most ``max_epochs`` epochs, early stopping with patience 10 on a 20% validation split
(the official code's settings; batch size defaults to 64 as there).
"""
from __future__ import annotations

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from iclr26sci.core import as_generator, torch_generator

from ._policy import _PolicyBase

__all__ = ["MLPClassifier64", "MLPRegressor64", "MLPPolicy"]


def _net(d_in, d_out, hidden=(64, 32)):
    layers, prev = [], d_in
    for h in hidden:
        layers += [torch.nn.Linear(prev, h), torch.nn.ReLU()]
        prev = h
    layers.append(torch.nn.Linear(prev, d_out))
    return torch.nn.Sequential(*layers)


def _train(net, loss_fn, tensors, *, lr, batch_size, max_epochs, patience, val_fraction, seed):
    gen = as_generator(seed)
    n = tensors[0].shape[0]
    perm = gen.permutation(n)
    n_val = max(1, int(round(val_fraction * n))) if n >= 10 else 0
    va, tr = perm[:n_val], perm[n_val:]
    tg = torch_generator(int(gen.integers(2**31 - 1)))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    best, best_state, bad = np.inf, None, 0
    tr_t = torch.as_tensor(tr)
    for _ in range(max_epochs):
        net.train()
        order = tr_t[torch.randperm(tr_t.shape[0], generator=tg)]
        for s in range(0, order.shape[0], batch_size):
            b = order[s:s + batch_size]
            opt.zero_grad()
            loss = loss_fn(net, *(t[b] for t in tensors))
            loss.backward()
            opt.step()
        if n_val == 0:
            continue
        net.eval()
        with torch.no_grad():
            v = float(loss_fn(net, *(t[va] for t in tensors)))
        if v < best - 1e-6:
            best, bad = v, 0
            best_state = {k: x.clone() for k, x in net.state_dict().items()}
        else:
            bad += 1
            if bad >= patience:
                break
    if best_state is not None:
        net.load_state_dict(best_state)
    net.eval()
    return net


class _Scaler:
    def fit(self, X):
        self.m = X.mean(0)
        s = X.std(0)
        self.s = np.where(s > 0, s, 1.0)
        return self

    def __call__(self, X):
        return torch.as_tensor((np.asarray(X, float).reshape(len(X), -1) - self.m) / self.s, dtype=torch.float32)


class MLPClassifier64(ClassifierMixin, BaseEstimator):
    """Softmax classifier (propensity) with the paper's 64-32 network."""

    def __init__(self, lr=1e-3, batch_size=64, max_epochs=300, patience=10, val_fraction=0.2, random_state=0):
        self.lr = lr
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience
        self.val_fraction = val_fraction
        self.random_state = random_state

    def fit(self, X, y):
        X = np.asarray(X, float).reshape(len(X), -1)
        self.classes_, yi = np.unique(np.asarray(y), return_inverse=True)
        self.sc_ = _Scaler().fit(X)
        torch.manual_seed(int(self.random_state))
        self.net_ = _net(X.shape[1], len(self.classes_))
        ce = torch.nn.CrossEntropyLoss()
        self.net_ = _train(self.net_, lambda net, x, t: ce(net(x), t), (self.sc_(X), torch.as_tensor(yi)),
                           lr=self.lr, batch_size=self.batch_size, max_epochs=self.max_epochs,
                           patience=self.patience, val_fraction=self.val_fraction, seed=self.random_state)
        return self

    def predict_proba(self, X):
        with torch.no_grad():
            return torch.softmax(self.net_(self.sc_(X)), dim=1).double().numpy()

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class MLPRegressor64(RegressorMixin, BaseEstimator):
    """Regressor with the paper's 64-32 network; ``loss="mse"`` or ``"pinball"`` at level ``quantile``."""

    def __init__(self, loss="mse", quantile=0.5, lr=1e-3, batch_size=64, max_epochs=300, patience=10,
                 val_fraction=0.2, random_state=0):
        self.loss = loss
        self.quantile = quantile
        self.lr = lr
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience
        self.val_fraction = val_fraction
        self.random_state = random_state

    def fit(self, X, y):
        X = np.asarray(X, float).reshape(len(X), -1)
        y = np.asarray(y, float)
        self.sc_ = _Scaler().fit(X)
        self.ym_, self.ys_ = float(y.mean()), float(y.std()) or 1.0
        yt = torch.as_tensor((y - self.ym_) / self.ys_, dtype=torch.float32)
        tau = float(self.quantile)
        if self.loss == "pinball":
            def lf(net, x, t):
                r = t - net(x)[:, 0]
                return torch.mean(torch.maximum((tau - 1) * r, tau * r))
        else:
            def lf(net, x, t):
                return torch.mean((t - net(x)[:, 0]) ** 2)
        torch.manual_seed(int(self.random_state))
        self.net_ = _train(_net(X.shape[1], 1), lf, (self.sc_(X), yt), lr=self.lr, batch_size=self.batch_size,
                           max_epochs=self.max_epochs, patience=self.patience, val_fraction=self.val_fraction,
                           seed=self.random_state)
        return self

    def predict(self, X):
        with torch.no_grad():
            return self.net_(self.sc_(X))[:, 0].double().numpy() * self.ys_ + self.ym_


class MLPPolicy(_PolicyBase):
    """Softmax policy :math:`\\pi_\\theta = \\mathrm{softmax}(\\mathrm{MLP}_\\theta(x))` minimising the score objective.

    Adam with early stopping on the validation objective (Algorithm 1 of the paper).
    """

    def __init__(self, deterministic=False, lr=1e-3, batch_size=64, max_epochs=300, patience=10,
                 val_fraction=0.2, hidden=(64, 32), rng=None):
        self.deterministic = deterministic
        self.lr = lr
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience
        self.val_fraction = val_fraction
        self.hidden = hidden
        self.rng = rng

    def fit(self, X, G):
        X = np.asarray(X, float).reshape(len(X), -1)
        G = np.asarray(G, float)
        self.n_arms_ = G.shape[1]
        self.sc_ = _Scaler().fit(X)
        Gs = G - G.mean(axis=1, keepdims=True)
        Gs = Gs / (float(np.std(Gs)) or 1.0)
        seed = int(as_generator(self.rng).integers(2**31 - 1))
        torch.manual_seed(seed)

        def lf(net, x, g):
            return torch.mean(torch.sum(torch.softmax(net(x), dim=1) * g, dim=1))

        self.net_ = _train(_net(X.shape[1], G.shape[1], tuple(self.hidden)), lf,
                           (self.sc_(X), torch.as_tensor(Gs, dtype=torch.float32)), lr=self.lr,
                           batch_size=self.batch_size, max_epochs=self.max_epochs, patience=self.patience,
                           val_fraction=self.val_fraction, seed=seed)
        return self

    def _proba(self, X):
        with torch.no_grad():
            return torch.softmax(self.net_(self.sc_(X)), dim=1).double().numpy()
