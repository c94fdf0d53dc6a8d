"""The paper's 64-32 torch MLP: nuisance models and a softmax policy, with early stopping.

Architecture Linear(in,64)-ReLU-Linear(64,32)-ReLU-Linear(32,out); Adam, lr 1e-3,
at most ``max_epochs`` epochs, early stopping with patience 10 on a 20% validation split
(the official code's settings; batch size defaults to 64 as there).
"""
from __future__ import annotations

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from iclr26sci.core import InputError, as_generator, progress, resolve_rng, torch_generator

from ._policy import _PolicyBase
from ._validate import (check_bool, check_fitted, check_in_range, check_n_features, check_option,
                        check_positive_int, check_X, check_Y)


def _check_train_params(est):
    """Shared training hyper-parameters of the 64-32 networks (validated in fit, before any work)."""
    check_in_range(est.lr, "lr", 0.0, None, low_open=True)
    check_positive_int(est.batch_size, "batch_size")
    check_positive_int(est.max_epochs, "max_epochs")
    check_positive_int(est.patience, "patience")
    check_in_range(est.val_fraction, "val_fraction", 0.0, 1.0, high_open=True)




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
    for _ in progress(range(max_epochs), desc="training the 64-32 network", total=max_epochs):
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
    """Softmax classifier (the propensity model) with the paper's 64-32 network.

    Linear(d,64)-ReLU-Linear(64,32)-ReLU-Linear(32,K) trained with cross-entropy by Adam, with early stopping.

    Parameters
    ----------
    lr : float > 0
        Adam learning rate.
    batch_size : int >= 1
        Minibatch size.
    max_epochs : int >= 1
        Largest number of passes over the training part.
    patience : int >= 1
        Early stopping: stop after this many epochs without a better validation loss (best weights kept).
    val_fraction : float in [0, 1)
        Share of the rows held out for early stopping (none below 10 rows).
    random_state : int
        Seed of the initialisation, the split and the minibatches.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import MLPClassifier64
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = (X[:, 0] > 0).astype(int)
    >>> clf = MLPClassifier64(max_epochs=20).fit(X, y)
    >>> clf.predict_proba(X[:3]).shape, float(np.mean(clf.predict(X) == y)) > 0.9
    ((3, 2), True)
    """

    def __init__(self, lr=1e-3, batch_size=64, max_epochs=300, patience=10, val_fraction=0.2, random_state=0):
        self.lr = lr
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience
        self.val_fraction = val_fraction
        self.random_state = random_state

    def fit(self, X, y):
        """Fit on covariates ``X`` (n, d) and class labels ``y`` (n,) (integers or strings, not continuous)."""
        _check_train_params(self)
        check_positive_int(self.random_state, "random_state", minimum=0)
        X = check_X(X, "X")
        if y is None:
            raise InputError("y", "is None: this estimator requires y to be passed, but the target y is None",
                             "class labels (n,)")
        y_arr = np.asarray(y)
        if y_arr.ndim != 1 or y_arr.shape[0] != X.shape[0]:
            raise InputError("y", f"has shape {y_arr.shape}", f"({X.shape[0]},): one label per row of X")
        if y_arr.dtype.kind == "f" and (not np.all(np.isfinite(y_arr)) or np.any(y_arr != np.round(y_arr))):
            raise InputError("y", "has continuous (non-integer) values", "class labels (integers or strings)")
        self.classes_, yi = np.unique(y_arr, return_inverse=True)
        self.n_features_in_ = X.shape[1]
        self.sc_ = _Scaler().fit(X)
        torch.manual_seed(int(self.random_state))
        self.net_ = _net(X.shape[1], len(self.classes_))
        ce = torch.nn.CrossEntropyLoss()
        self.net_ = _train(self.net_, lambda net, x, t: ce(net(x), t), (self.sc_(X), torch.as_tensor(yi)),
                           lr=self.lr, batch_size=self.batch_size, max_epochs=self.max_epochs,
                           patience=self.patience, val_fraction=self.val_fraction, seed=self.random_state)
        return self

    def predict_proba(self, X):
        """(n, n_classes) class probabilities at the rows of ``X`` (n, d)."""
        check_fitted(self, "net_", "predict_proba")
        X = check_n_features(self, X, "predict_proba")
        with torch.no_grad():
            return torch.softmax(self.net_(self.sc_(X)), dim=1).double().numpy()

    def predict(self, X):
        """Most probable class at each row of ``X``."""
        check_fitted(self, "net_", "predict")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class MLPRegressor64(RegressorMixin, BaseEstimator):
    """Regressor with the paper's 64-32 network: least squares (masked means) or pinball loss (quantile).

    Parameters
    ----------
    loss : {"mse", "pinball", "quantile"}
        ``"mse"`` estimates the conditional mean, ``"pinball"`` (alias ``"quantile"``) the conditional
        quantile at level ``quantile``.
    quantile : float in (0, 1)
        Level of the conditional quantile (used with ``loss="pinball"``).
    lr : float > 0
        Adam learning rate.
    batch_size : int >= 1
        Minibatch size.
    max_epochs : int >= 1
        Largest number of passes over the training part.
    patience : int >= 1
        Early stopping: stop after this many epochs without a better validation loss (best weights kept).
    val_fraction : float in [0, 1)
        Share of the rows held out for early stopping (none below 10 rows).
    random_state : int
        Seed.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import MLPRegressor64
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 1)); y = X[:, 0] + 0.1 * rng.normal(size=200)
    >>> reg = MLPRegressor64(max_epochs=30).fit(X, y)
    >>> reg.predict(X[:4]).shape, float(np.mean((reg.predict(X) - y) ** 2)) < 0.3
    ((4,), True)
    """

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
        """Fit on covariates ``X`` (n, d) and targets ``y`` (n,)."""
        check_option(self.loss, "loss", ("mse", "pinball", "quantile"))
        check_in_range(self.quantile, "quantile", 0.0, 1.0, low_open=True, high_open=True)
        _check_train_params(self)
        check_positive_int(self.random_state, "random_state", minimum=0)
        X = check_X(X, "X")
        y = check_Y(y, "y", X.shape[0])
        self.n_features_in_ = X.shape[1]
        self.sc_ = _Scaler().fit(X)
        self.ym_, self.ys_ = float(y.mean()), float(y.std()) or 1.0
        yt = torch.as_tensor((y - self.ym_) / self.ys_, dtype=torch.float32)
        tau = float(self.quantile)
        if self.loss in ("pinball", "quantile"):
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
        """Predicted conditional mean (or quantile) at the rows of ``X`` (n, d)."""
        check_fitted(self, "net_", "predict")
        X = check_n_features(self, X, "predict")
        with torch.no_grad():
            return self.net_(self.sc_(X))[:, 0].double().numpy() * self.ys_ + self.ym_


class MLPPolicy(_PolicyBase):
    """Softmax policy :math:`\\pi_\\theta = \\mathrm{softmax}(\\mathrm{MLP}_\\theta(x))` minimising the score objective.

    Adam with early stopping on the validation objective (Algorithm 1 of the paper).

    Parameters
    ----------
    deterministic : bool
        If True, ``predict_proba`` returns the one-hot argmax.
    lr : float > 0
        Adam learning rate.
    batch_size : int >= 1
        Minibatch size.
    max_epochs : int >= 1
        Largest number of passes over the training part.
    patience : int >= 1
        Early stopping patience on the validation objective (best weights kept).
    val_fraction : float in [0, 1)
        Share of the rows held out for early stopping.
    hidden : tuple of int >= 1
        Hidden layer widths (the paper: (64, 32)).
    rng : None, int or numpy Generator
        Seed.
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.causal import MLPPolicy
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 1)); G = np.column_stack([X[:, 0], -X[:, 0]])
    >>> pol = MLPPolicy(max_epochs=40, lr=1e-2, rng=0).fit(X, G)
    >>> pol.predict(np.array([[-0.9], [0.9]]))
    array([0, 1])
    """

    _fitted_attr = "net_"

    def __init__(self, deterministic=False, lr=1e-3, batch_size=64, max_epochs=300, patience=10,
                 val_fraction=0.2, hidden=(64, 32), rng=None, random_state=None):
        self.deterministic = deterministic
        self.lr = lr
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience
        self.val_fraction = val_fraction
        self.hidden = hidden
        self.rng = rng
        self.random_state = random_state

    def _validate_params(self):
        check_bool(self.deterministic, "deterministic")
        _check_train_params(self)
        h = self.hidden
        if isinstance(h, (str, bytes)) or not hasattr(h, "__len__") or len(h) == 0 or any(
                isinstance(w, bool) or not isinstance(w, (int, np.integer)) or w < 1 for w in h):
            raise InputError("hidden", f"got {h!r}", "a non-empty tuple of positive layer widths, e.g. (64, 32)")

    def fit(self, X, G):
        """Minimise the score objective on covariates ``X`` (n, d) and scores ``G`` (n, K), lower is better."""
        X, G = self._check_fit_args(X, G)
        self.n_arms_ = G.shape[1]
        self.sc_ = _Scaler().fit(X)
        Gs = G - G.mean(axis=1, keepdims=True)
        Gs = Gs / (float(np.std(Gs)) or 1.0)
        seed = int(as_generator(resolve_rng(self.rng, self.random_state)).integers(2**31 - 1))
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
