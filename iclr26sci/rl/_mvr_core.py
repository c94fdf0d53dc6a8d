r"""MVR core: the shaping term, the Bradley-Terry state-relevance network and the reference set.

Read from the official code (mvr-rl/mvr, ``reward_models/per_step_ranking_base_model2.py`` and
``src/algorithms/vlm/vlm_tqc.py``, commit 02ed76d) and the paper (arXiv:2603.01694); no code copied.
Heavy imports (torch) happen inside functions.
"""
from __future__ import annotations

import math

import numpy as np

from iclr26sci.core import (InputError, as_generator, check_array, check_bool, check_in_range, check_is_fitted,
                            check_option, check_positive_int)

SHAPINGS = ("mvr", "pbrs")


def _logsigmoid(x):
    x = np.asarray(x, dtype=float)
    return np.where(x >= 0, -np.log1p(np.exp(-np.abs(x))), x - np.log1p(np.exp(-np.abs(x))))


def _check_shaping_params(w_s, tau, clip):
    w_s = check_in_range(w_s, "w_s", 0.0, None, low_open=True)
    tau = check_in_range(tau, "tau", 0.0, None, low_open=True)
    clip = check_in_range(clip, "clip", 0.0, None, low_open=True)
    return w_s, tau, clip


def mvr_shaping(delta, w_s=0.1, tau=0.1, clip=5.0):
    r"""The code-faithful MVR shaping term as a function of the relevance gap.

    .. math::

        F(\Delta) = \operatorname{clip}\big(w_s \log\sigma(\Delta/\tau),\; -c,\; c\big),
        \qquad \Delta = f_\psi(s) - f_\psi(s'),\ s' \sim \mathrm{Uniform}(R),

    an additive, state-only, non-positive bonus: :math:`F \in [-c, 0)`, increasing in :math:`\Delta`, with
    :math:`|F| \le w_s e^{-\Delta/\tau}` for :math:`\Delta > 0` (it fades once the state is more relevant
    than the reference) and :math:`F \approx w_s \Delta/\tau` far below the reference. It is **not**
    potential-based (Ng et al., 1999): see :func:`pbrs_shaping` for the policy-invariant option.

    Parameters
    ----------
    delta : array-like
        Relevance gaps :math:`f_\psi(s) - f_\psi(s')` between a state and a reference state (finite).
    w_s : float, default 0.1
        Shaping weight (the code's ``vlm_reward_scale``), > 0.
    tau : float, default 0.1
        Temperature of the log-sigmoid (the code's ``temperature``), > 0.
    clip : float, default 5.0
        The term is clipped to ``[-clip, clip]`` (the code's ``reward_range``), > 0.

    Returns
    -------
    ndarray
        :math:`F(\Delta)`, same shape as ``delta``.

    References
    ----------
    Luo et al., "MVR: Multi-view Video Reward Shaping for Reinforcement Learning", ICLR 2026, arXiv:2603.01694.

    Examples
    --------
    >>> from iclr26sci.rl.mvr import mvr_shaping
    >>> mvr_shaping([-1.0, 0.0, 1.0]).round(4)
    array([-1.    , -0.0693, -0.    ])
    """
    w_s, tau, clip = _check_shaping_params(w_s, tau, clip)
    d = check_array(delta, "delta", ndim=None)
    if d.size == 0:
        raise InputError("delta", "is empty", "at least one relevance difference")
    return np.clip(w_s * _logsigmoid(d / tau), -clip, clip)


def mvr_potential(relevance, reference, w_s=0.1, tau=0.1, clip=5.0):
    r"""The potential :math:`\Phi(s) = \operatorname{clip}(w_s \log\sigma((f(s) - \bar f_R)/\tau), -c, c)`.

    The same function of the relevance gap as :func:`mvr_shaping`, against the *mean* reference relevance
    :math:`\bar f_R` (a fixed number, so that :math:`\Phi` is a function of the state only). [recon: the
    library's choice; the official code has no potential.]

    Parameters
    ----------
    relevance : array-like
        :math:`f_\psi(s)` of the states.
    reference : float
        The mean relevance :math:`\bar f_R` of the reference set.
    w_s, tau, clip : float
        As in :func:`mvr_shaping`.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> from iclr26sci.rl.mvr import mvr_potential
    >>> float(mvr_potential([0.5], 0.5)[0].round(4))
    -0.0693
    """
    ref = check_in_range(reference, "reference")
    return mvr_shaping(check_array(relevance, "relevance", ndim=None) - ref, w_s, tau, clip)


def pbrs_shaping(phi, phi_next, gamma=0.99, terminated=None):
    r"""Potential-based shaping (Ng, Harada and Russell, 1999): :math:`F = \gamma\,\Phi(s')(1 - d) - \Phi(s)`.

    With :math:`\Phi(\text{terminal}) = 0` (the factor :math:`1 - d`), adding :math:`F` to every reward leaves
    the optimal policy of every MDP unchanged: the shaped return is the task return minus :math:`\Phi(s_0)`.

    Parameters
    ----------
    phi : array-like
        :math:`\Phi(s)` of the states the transitions start from.
    phi_next : array-like
        :math:`\Phi(s')` of the states they end in (same shape).
    gamma : float, default 0.99
        The agent's discount factor, in (0, 1].
    terminated : array-like of bool or {0, 1}, optional
        Whether :math:`s'` is terminal (true termination, not a time-limit truncation); its potential is 0.

    Returns
    -------
    ndarray

    References
    ----------
    Ng, Harada and Russell, "Policy invariance under reward transformations", ICML 1999.

    Examples
    --------
    >>> from iclr26sci.rl.mvr import pbrs_shaping
    >>> pbrs_shaping([-0.5, -0.5], [-0.1, -0.1], gamma=0.9, terminated=[0, 1]).round(3)
    array([0.41, 0.5 ])
    """
    p = check_array(phi, "phi", ndim=None)
    pn = check_array(phi_next, "phi_next", ndim=None)
    if p.shape != pn.shape:
        raise InputError("phi_next", f"has shape {pn.shape}, phi has {p.shape}", "the same shape as phi")
    gamma = check_in_range(gamma, "gamma", 0.0, 1.0, low_open=True)
    if terminated is None:
        d = np.zeros_like(p)
    else:
        d = check_array(terminated, "terminated", ndim=None)
        if d.shape != p.shape or not np.isin(d, (0.0, 1.0)).all():
            raise InputError("terminated", f"has shape {d.shape} or values outside {{0, 1}}",
                             f"booleans of shape {p.shape}")
    return gamma * pn * (1.0 - d) - p


def soft_preference_labels(s1, s2, sharpness=100.0):
    r"""The sharpened soft Bradley-Terry labels :math:`y = \sigma(k\,(S(c_1) - S(c_2)))`, :math:`k = 100`.

    Only the ordering of the VLM scores is learned, not their values (paper and code).

    Parameters
    ----------
    s1, s2 : array-like
        View-averaged clip scores of the first and second clip of each pair.
    sharpness : float, default 100
        The factor :math:`k` (> 0); the labels tend to hard 0/1 orderings as it grows.

    Returns
    -------
    ndarray
        Probabilities that clip 1 is preferred.

    Examples
    --------
    >>> from iclr26sci.rl.mvr import soft_preference_labels
    >>> soft_preference_labels([0.30, 0.30], [0.29, 0.30]).round(3)
    array([0.731, 0.5  ])
    """
    a = check_array(s1, "s1", ndim=None)
    b = check_array(s2, "s2", ndim=None)
    if a.shape != b.shape:
        raise InputError("s2", f"has shape {b.shape}, s1 has {a.shape}", "the same shape as s1")
    k = check_in_range(sharpness, "sharpness", 0.0, None, low_open=True)
    return 1.0 / (1.0 + np.exp(-k * (a - b)))


def view_averaged_score(view_scores):
    r"""The multi-view clip score :math:`S(c) = \frac1V \sum_v \langle e_v(c), g\rangle`.

    Parameters
    ----------
    view_scores : array-like, shape (V,) or (N, V)
        Per-view cosine scores of one clip or of N clips, each in [-1, 1].

    Returns
    -------
    float or ndarray of shape (N,)

    Examples
    --------
    >>> from iclr26sci.rl.mvr import view_averaged_score
    >>> view_averaged_score([0.2, 0.4, 0.3])
    0.3
    """
    s = check_array(view_scores, "view_scores", ndim=(1, 2))
    if s.shape[-1] < 1:
        raise InputError("view_scores", "has no views", "at least one view score per clip")
    if s.size == 0:
        raise InputError("view_scores", "has no clips", "at least one clip's view scores")
    if np.any(np.abs(s) > 1 + 1e-6):
        raise InputError("view_scores", f"has values up to {np.abs(s).max():.3g}",
                         "cosine scores in [-1, 1]")
    out = s.mean(-1)
    return round(float(out), 12) if s.ndim == 1 else out


def _check_clip_data(states, scores, view_embeddings):
    X = check_array(states, "states", ndim=3, dtype=np.float32 if False else float)
    if X.shape[0] < 2 or X.shape[1] < 1 or X.shape[2] < 1:
        raise InputError("states", f"has shape {X.shape}", "(n_clips >= 2, clip_length >= 1, state_dim >= 1)")
    S = check_array(scores, "scores", ndim=1)
    if S.shape[0] != X.shape[0]:
        raise InputError("scores", f"has {S.shape[0]} entries for {X.shape[0]} clips", "one score per clip")
    E = None
    if view_embeddings is not None:
        E = check_array(view_embeddings, "view_embeddings", ndim=3)
        if E.shape[0] != X.shape[0]:
            raise InputError("view_embeddings", f"has {E.shape[0]} clips, states has {X.shape[0]}",
                             "an array of shape (n_clips, n_views, embed_dim)")
    if np.ptp(S) == 0:
        raise InputError("scores", f"are all equal ({S[0]:g}): no clip is preferred to another",
                         "clips with different scores (the Bradley-Terry loss learns their ordering)")
    return X, S, E


class StateRelevance:
    r"""MVR's state-relevance function, trained on clip pairs with the Bradley-Terry loss and alignment.

    .. math::

        f_\psi(s) = \langle \hat h_\psi(s), w\rangle,\quad \hat h = h/\lVert h\rVert,\quad
        h_\psi = \mathrm{Linear}(d_s, H)\to\mathrm{ReLU}\to\mathrm{Linear}(H, H),

        F_\psi(c) = \tfrac1L \textstyle\sum_{s\in c} f_\psi(s),\qquad
        L_{BT} = \mathrm{BCE}\big((F_\psi(c_1) - F_\psi(c_2))/\tau,\ \sigma(k (S(c_1) - S(c_2)))\big),

        L_{align} = \big|\langle \bar h(c_1), \bar h(c_2)\rangle - \tfrac1V \textstyle\sum_v
        \langle e_v(c_1), e_v(c_2)\rangle\big|,\qquad L = L_{BT} + \alpha L_{align},

    with :math:`\bar h(c)` the clip mean of :math:`\hat h_\psi`; :math:`w` is learnable and unnormalised (as in
    the code, which computes a normalised copy and does not use it). All pairs i < j of the clips are split
    into training and validation pairs (5%, or 50 clips' worth once there are >= 1000 clips [code]); each epoch
    draws ``updates_per_epoch`` batches of ``batch_size`` training pairs; AdamW; early stopping on the
    validation loss with ``patience``, active only after ``min_updates`` updates.

    Parameters
    ----------
    hidden : int, default 512
        Width H of the state embedding (the code's 512).
    tau : float, default 0.1
        BT temperature.
    alpha : float, default 1.0
        Weight of the alignment regulariser (0 switches it off).
    sharpness : float, default 100
        Label sharpness k.
    lr, weight_decay : float, default 5e-4, 1e-3
        AdamW settings (the code's).
    batch_size : int, default 256
        Pairs per update.
    updates_per_epoch : int, default 50
    patience : int, default 5
    min_updates : int, default 1000
        Early stopping is active only after this many updates in total (the code uses 10,000; 1,000 keeps a
        CPU retrain to seconds) [deviation, documented].
    max_epochs : int, default 100
        Upper bound on epochs per :meth:`fit` call (the code's 10,000 is an effective no-limit).
    states_per_clip : int, optional
        Use a fresh random subset of this many states of each clip in each update (an unbiased estimate of
        the clip mean; a CPU economy, None = all states as in the code).
    device : str, default "cpu"
        Torch device.
    rng : int or Generator, optional
        Seed of the initialisation and the pair sampling.

    Attributes
    ----------
    n_updates_ : int
        Gradient updates so far (cumulative over warm-started fits, as in the code).
    history_ : dict
        Per-epoch ``train_loss``, ``val_loss``, ``val_accuracy`` (pairwise ordering accuracy on validation).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.rl.mvr import StateRelevance
    >>> g = np.random.default_rng(0)
    >>> X = g.normal(size=(40, 8, 3)); S = np.tanh(X[..., 0].mean(1))
    >>> rel = StateRelevance(hidden=32, min_updates=0, max_epochs=5, rng=0).fit(X, S)
    >>> rel.predict(X[0]).shape
    (8,)
    """

    def __init__(self, hidden=512, tau=0.1, alpha=1.0, sharpness=100.0, lr=5e-4, weight_decay=1e-3,
                 batch_size=256, updates_per_epoch=50, patience=5, min_updates=1000, max_epochs=100,
                 states_per_clip=None, device="cpu", rng=None):
        self.hidden = hidden
        self.tau = tau
        self.alpha = alpha
        self.sharpness = sharpness
        self.lr = lr
        self.weight_decay = weight_decay
        self.batch_size = batch_size
        self.updates_per_epoch = updates_per_epoch
        self.patience = patience
        self.min_updates = min_updates
        self.max_epochs = max_epochs
        self.states_per_clip = states_per_clip
        self.device = device
        self.rng = rng

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in ("hidden", "tau", "alpha", "sharpness", "lr", "weight_decay",
                                              "batch_size", "updates_per_epoch", "patience", "min_updates",
                                              "max_epochs", "states_per_clip", "device", "rng")}

    def __repr__(self):
        state = f"fitted, {self.n_updates_} updates" if hasattr(self, "net_") else "not fitted"
        return f"StateRelevance(hidden={self.hidden}, tau={self.tau}, alpha={self.alpha}; {state})"

    def _validate(self):
        check_positive_int(self.hidden, "hidden")
        check_in_range(self.tau, "tau", 0.0, None, low_open=True)
        check_in_range(self.alpha, "alpha", 0.0, None)
        check_in_range(self.sharpness, "sharpness", 0.0, None, low_open=True)
        check_in_range(self.lr, "lr", 0.0, None, low_open=True)
        check_in_range(self.weight_decay, "weight_decay", 0.0, None)
        check_positive_int(self.batch_size, "batch_size")
        check_positive_int(self.updates_per_epoch, "updates_per_epoch")
        check_positive_int(self.patience, "patience", minimum=0)
        check_positive_int(self.min_updates, "min_updates", minimum=0)
        check_positive_int(self.max_epochs, "max_epochs")
        if self.states_per_clip is not None:
            check_positive_int(self.states_per_clip, "states_per_clip")
        if not isinstance(self.device, str):
            raise InputError("device", f"got {type(self.device).__name__}", "a torch device name such as 'cpu'")
        from ._checks import check_device, check_rng

        check_device(self.device)
        check_rng(self.rng)

    def _build(self, d):
        import torch

        seed = int(self._np_rng.integers(2 ** 62))
        # the initialisation draws from torch's global generator: seed it inside fork_rng, so that building the net
        # neither depends on nor changes the caller's torch random state (an RL backbone sampling from it)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            return self._make_net(d)

    def _make_net(self, d):
        import torch

        class _Net(torch.nn.Module):
            def __init__(self, d, h):
                super().__init__()
                self.body = torch.nn.Sequential(torch.nn.Linear(d, h), torch.nn.ReLU(), torch.nn.Linear(h, h))
                self.w = torch.nn.Parameter(torch.empty(1, h))
                torch.nn.init.kaiming_uniform_(self.w)

            def forward(self, x):
                e = self.body(x)
                e = e / e.norm(dim=-1, keepdim=True).clamp_min(1e-12)
                return (e * self.w).sum(-1), e

        return _Net(d, self.hidden).to(self.device)

    def _loss(self, X, S, E, i, j, sub=False):
        import torch

        X1, X2 = X[i], X[j]
        m = self.states_per_clip
        if sub and m is not None and m < X.shape[1]:
            k1 = torch.as_tensor(self._np_rng.random((len(i), X.shape[1])).argsort(1)[:, :m], device=X.device)
            k2 = torch.as_tensor(self._np_rng.random((len(i), X.shape[1])).argsort(1)[:, :m], device=X.device)
            X1 = torch.gather(X1, 1, k1[..., None].expand(-1, -1, X.shape[2]))
            X2 = torch.gather(X2, 1, k2[..., None].expand(-1, -1, X.shape[2]))
        f1, e1 = self.net_(X1)
        f2, e2 = self.net_(X2)
        logits = (f1.mean(1) - f2.mean(1)) / self.tau
        y = torch.sigmoid(self.sharpness * (S[i] - S[j]))
        bt = torch.nn.functional.binary_cross_entropy_with_logits(logits, y)
        if self.alpha > 0 and E is not None:
            sim_h = (e1.mean(1) * e2.mean(1)).sum(-1)
            sim_v = (E[i] * E[j]).sum(-1).mean(-1)
            al = (sim_h - sim_v).abs().mean()
        else:
            al = torch.zeros((), device=bt.device)
        acc = ((logits > 0) == (S[i] > S[j])).float()[S[i] != S[j]].mean()
        return bt + self.alpha * al, bt, al, acc

    def fit(self, states, scores, view_embeddings=None, *, warm_start=False):
        """Train on clips: ``states`` (N, L, d), view-averaged ``scores`` (N,), ``view_embeddings`` (N, V, D).

        ``warm_start=True`` continues from the current weights and optimiser (as the code does after
        every collection); the update counter is cumulative.
        """
        import torch

        self._validate()
        X, S, E = _check_clip_data(states, scores, view_embeddings)
        check_bool(warm_start, "warm_start")
        if not warm_start or not hasattr(self, "net_"):
            self._np_rng = as_generator(self.rng)
            self.net_ = self._build(X.shape[2])
            self.opt_ = torch.optim.AdamW(self.net_.parameters(), lr=self.lr, weight_decay=self.weight_decay)
            self.n_updates_ = 0
            self.history_ = {"train_loss": [], "val_loss": [], "val_accuracy": []}
            self.state_dim_ = X.shape[2]
        elif X.shape[2] != self.state_dim_:
            raise InputError("states", f"has state dimension {X.shape[2]}, the fitted net {self.state_dim_}",
                             "the same state dimension as the first fit")
        g = self._np_rng
        n = X.shape[0]
        n_val = 50 if n >= 1000 else max(2, int(round(0.05 * n))) if n >= 8 else 0
        perm = g.permutation(n)
        val, tr = perm[:n_val], perm[n_val:]
        dev = self.device
        Xt = torch.as_tensor(X, dtype=torch.float32, device=dev)
        St = torch.as_tensor(S, dtype=torch.float32, device=dev)
        Et = None if E is None else torch.as_tensor(E, dtype=torch.float32, device=dev)
        ti, tj = np.triu_indices(len(tr), 1)
        ti, tj = tr[ti], tr[tj]
        vi, vj = np.triu_indices(len(val), 1)
        vi, vj = val[vi], val[vj]
        best, bad = math.inf, 0
        self.net_.train()
        for _ in range(self.max_epochs):
            if len(vi):
                with torch.no_grad():
                    vl, _, _, va = self._loss(Xt, St, Et, vi, vj)
                vl, va = float(vl), float(va)
                if vl < best:
                    best, bad = vl, 0
                elif self.n_updates_ > self.min_updates:
                    bad += 1
                    if bad > self.patience:
                        break
                self.history_["val_loss"].append(vl)
                self.history_["val_accuracy"].append(va)
            order = g.permutation(len(ti))[: self.updates_per_epoch * self.batch_size]
            losses = []
            for b in range(0, len(order), self.batch_size):
                k = order[b: b + self.batch_size]
                loss, _, _, _ = self._loss(Xt, St, Et, ti[k], tj[k], sub=True)
                self.opt_.zero_grad()
                loss.backward()
                self.opt_.step()
                self.n_updates_ += 1
                losses.append(loss.item())
            self.history_["train_loss"].append(float(np.mean(losses)) if losses else float("nan"))
        self.net_.eval()
        return self

    def predict(self, states):
        """Relevance :math:`f_\\psi(s)` of states of shape (..., d)."""
        import torch

        check_is_fitted(self, "net_", method="predict")
        X = check_array(states, "states", ndim=None)
        if X.ndim < 1 or X.shape[-1] != self.state_dim_:
            raise InputError("states", f"has shape {X.shape}", f"(..., {self.state_dim_})")
        with torch.no_grad():
            f, _ = self.net_(torch.as_tensor(X, dtype=torch.float32, device=self.device))
        return f.cpu().numpy().astype(float)

    def clip_relevance(self, states):
        """Clip-level relevance :math:`F_\\psi(c)`, the mean of f over each clip's states (N, L, d) -> (N,)."""
        X = check_array(states, "states", ndim=3)
        return self.predict(X).mean(1)


class MVRShaper:
    r"""The relevance buffer, the reference set and the shaping term of MVR, independent of the RL backbone.

    Clips enter with :meth:`add_clips` (states, view-averaged score, per-view embeddings); :meth:`retrain`
    fits the :class:`StateRelevance` on all pairs (warm-started) and refreshes the reference set R: the states
    of the ``n_top`` best-scored clips seen so far, with their relevance recomputed by the new network.
    :meth:`shaping` gives the reward term of a batch of transitions:

    - ``"mvr"`` (code-faithful): :math:`F(s) = \operatorname{clip}(w_s\log\sigma((f(s) - f(s'))/\tau), \pm c)`,
      :math:`s' \sim \mathrm{Uniform}(R)` drawn afresh per state;
    - ``"pbrs"``: :math:`F = \gamma\Phi(s_{t+1})(1-d) - \Phi(s_t)`, :math:`\Phi` = :func:`mvr_potential`
      against the mean reference relevance (policy-invariant).

    Before the first retrain the term is 0.

    Parameters
    ----------
    shaping : {"mvr", "pbrs"}, default "mvr"
    w_s, tau, clip : float
        As in :func:`mvr_shaping` (0.1, 0.1, 5).
    n_top : int, default 10
        Clips in the reference set.
    gamma : float, default 0.99
        Discount used by ``"pbrs"``.
    capacity : int, default 20000
        Relevance-buffer capacity in clips (oldest dropped first).
    faithful_quirks : bool, default False
        Reproduce two defects of the official code: the reference relevance is not recomputed after
        the network changes (a typo assigns it to an unused attribute), and the reference set keeps the
        *last inserted* ``n_top`` clips (the code re-inserts the whole relevance buffer at every refresh and
        truncates the states and values by insertion order while sorting only the scores); also, as in the
        code, the first retrain only builds the reference set (no training). ``False`` (default) is the
        described algorithm.
    relevance : StateRelevance, optional
        The network and its training settings (default ``StateRelevance(hidden=512)``).
    rng : int or Generator, optional
        Seed of the reference sampling.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.rl.mvr import MVRShaper, StateRelevance
    >>> g = np.random.default_rng(0)
    >>> X = g.normal(size=(30, 8, 2)); S = np.tanh(X[..., 0].mean(1))
    >>> sh = MVRShaper(relevance=StateRelevance(hidden=16, min_updates=0, max_epochs=3, rng=0), rng=0)
    >>> sh.add_clips(X, S)
    >>> sh.retrain().trained_
    True
    >>> bool((sh.shaping(X[0]) < 0).all())
    True
    """

    def __init__(self, shaping="mvr", w_s=0.1, tau=0.1, clip=5.0, n_top=10, gamma=0.99, capacity=20000,
                 faithful_quirks=False, relevance=None, rng=None):
        self.shaping_kind = check_option(shaping, "shaping", SHAPINGS)
        self.w_s, self.tau, self.clip = _check_shaping_params(w_s, tau, clip)
        self.n_top = check_positive_int(n_top, "n_top")
        self.gamma = check_in_range(gamma, "gamma", 0.0, 1.0, low_open=True)
        self.capacity = check_positive_int(capacity, "capacity", minimum=2)
        self.faithful_quirks = check_bool(faithful_quirks, "faithful_quirks")
        if relevance is not None and not isinstance(relevance, StateRelevance):
            raise InputError("relevance", f"got {type(relevance).__name__}", "a StateRelevance or None")
        self.relevance = relevance if relevance is not None else StateRelevance(rng=rng)
        self._rng = as_generator(rng)
        self._states, self._scores, self._embs = [], [], []
        self.trained_ = False
        self.n_retrains_ = 0
        self._ref_states = None
        self._ref_values = None
        self._ref_scores = None

    def __repr__(self):
        return (f"MVRShaper(shaping={self.shaping_kind!r}, w_s={self.w_s}, tau={self.tau}, n_top={self.n_top}; "
                f"{len(self._scores)} clips, {self.n_retrains_} retrains)")

    @property
    def n_clips(self):
        """Clips in the relevance buffer."""
        return len(self._scores)

    def add_clips(self, states, scores, view_embeddings=None):
        """Add clips: ``states`` (N, L, d), view-averaged ``scores`` (N,), ``view_embeddings`` (N, V, D)."""
        X = check_array(states, "states", ndim=3)
        S = check_array(scores, "scores", ndim=1)
        if S.shape[0] != X.shape[0]:
            raise InputError("scores", f"has {S.shape[0]} entries for {X.shape[0]} clips", "one score per clip")
        if self._states and X.shape[1:] != self._states[0].shape:
            raise InputError("states", f"has clips of shape {X.shape[1:]}, the buffer {self._states[0].shape}",
                             "clips of one length and state dimension")
        if view_embeddings is not None:
            E = check_array(view_embeddings, "view_embeddings", ndim=3)
            if E.shape[0] != X.shape[0]:
                raise InputError("view_embeddings", f"has {E.shape[0]} clips for {X.shape[0]}", "one per clip")
        elif self._embs and self._embs[0] is not None:
            raise InputError("view_embeddings", "is None but earlier clips had embeddings", "embeddings")
        for i in range(X.shape[0]):
            self._states.append(X[i].astype(np.float32))
            self._scores.append(float(S[i]))
            self._embs.append(None if view_embeddings is None else E[i].astype(np.float32))
        over = len(self._scores) - self.capacity
        if over > 0:
            del self._states[:over], self._scores[:over], self._embs[:over]

    def buffer(self):
        """The relevance buffer as arrays ``(states (N, L, d), scores (N,), view_embeddings or None)``."""
        X = np.stack(self._states)
        E = None if self._embs[0] is None else np.stack(self._embs)
        return X, np.asarray(self._scores), E

    def retrain(self):
        """Fit the relevance network on all pairs of the buffer and refresh the reference set."""
        if self.n_clips < 2:
            raise InputError("clips", f"the relevance buffer holds {self.n_clips} clip(s)",
                             "at least 2 clips (call add_clips first)")
        X, S, E = self.buffer()
        if np.ptp(S) == 0:
            import warnings

            warnings.warn(f"MVRShaper.retrain: all {len(S)} clips in the buffer have the same score {S[0]:g}; "
                          "there is no ordering to learn, the relevance network is left as it was", RuntimeWarning,
                          stacklevel=2)
            return self
        first = self._ref_states is None
        if not (self.faithful_quirks and first):
            self.relevance.fit(X, S, E, warm_start=hasattr(self.relevance, "net_"))
            self.trained_ = True
        elif not hasattr(self.relevance, "net_"):  # the code builds R with the untrained network first
            self.relevance.fit(X, S, E)
            self.relevance.n_updates_ = 0
        if self.faithful_quirks:
            vals = self.relevance.predict(X)  # (N, L)
            if first:
                rs, rv, rsc = X, vals, S
            else:
                rs = np.concatenate([self._ref_states, X])
                rv = np.concatenate([self._ref_values, vals])  # stale values kept (the code's typo)
                rsc = np.concatenate([self._ref_scores, S])
            if len(rsc) > self.n_top:
                rsc = np.sort(rsc)[-self.n_top:]
                rs, rv = rs[-self.n_top:], rv[-self.n_top:]  # insertion order, not the sort
            self._ref_states, self._ref_values, self._ref_scores = rs, rv, rsc
        else:
            top = np.argsort(S, kind="stable")[-self.n_top:]
            self._ref_states, self._ref_scores = X[top], S[top]
            self._ref_values = self.relevance.predict(self._ref_states)
        self.n_retrains_ += 1
        return self

    @property
    def reference_values(self):
        """Relevance values of the reference states, flattened (empty before the first retrain)."""
        return np.zeros(0) if self._ref_values is None else np.asarray(self._ref_values).ravel()

    @property
    def reference_scores(self):
        """VLM scores of the reference clips."""
        return np.zeros(0) if self._ref_scores is None else np.asarray(self._ref_scores)

    def potential(self, states):
        r""":math:`\Phi(s)` against the mean reference relevance (0 before the first retrain)."""
        X = check_array(states, "states", ndim=None)
        if not self.trained_:
            return np.zeros(X.shape[:-1])
        return mvr_potential(self.relevance.predict(X), float(self.reference_values.mean()),
                             self.w_s, self.tau, self.clip)

    def shaping(self, states, next_states=None, terminated=None):
        """The shaping term of transitions starting in ``states`` (n, d); ``"pbrs"`` also needs ``next_states``."""
        X = check_array(states, "states", ndim=(1, 2))
        X2 = X[None] if X.ndim == 1 else X
        if self.shaping_kind == "pbrs":
            if next_states is None:
                raise InputError("next_states", "is None", "the next states: shaping='pbrs' needs them")
            Y = check_array(next_states, "next_states", ndim=(1, 2))
            Y2 = Y[None] if Y.ndim == 1 else Y
            if Y2.shape != X2.shape:
                raise InputError("next_states", f"has shape {Y.shape}, states {X.shape}", "the same shape")
            if not self.trained_:
                out = np.zeros(len(X2))
            else:
                d = np.zeros(len(X2)) if terminated is None else np.asarray(terminated, float).reshape(-1)
                out = pbrs_shaping(self.potential(X2), self.potential(Y2), self.gamma, d)
        else:
            if not self.trained_:
                out = np.zeros(len(X2))
            else:
                ref = self.reference_values
                f = self.relevance.predict(X2)
                out = mvr_shaping(f - ref[self._rng.integers(len(ref), size=len(f))], self.w_s, self.tau,
                                  self.clip)
        return out[0] if X.ndim == 1 else out
