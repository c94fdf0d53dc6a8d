r"""DDPO-lite: reinforcement-learning fine-tuning of the small flow generator by the brain's rewards.

The official MindPilot benchmark compares against DDPO (Black et al. 2024) applied to SDXL with LoRA
(``DDPOWrapper`` in ``experiments/benchmark_framework_total.py``: batch 2, AdamW lr 3e-5, weight decay 0.01,
PPO clip range 1e-4, advantages clipped at 5, 8 inference steps, advantages standardised within each batch,
one optimiser step per batch, gradient norm clipped at 1). Here the generator is a
:class:`~iclr26sci.closedloop.FlowGenerator`; its ODE is turned into the Flow-GRPO SDE
(:func:`~iclr26sci.nn.flow_sde`, same marginals, noise level :math:`a`), whose Euler-Maruyama steps are Gaussian
policies :math:`\pi_\theta(x_{k+1} \mid x_k, c) = N(\mu_\theta, s^2 I)`. Each batch:

1. draw conditions :math:`c_i` = embeddings of random pool images (the "prompts"), sample trajectories
   :math:`x_0 \to x_K` and store the per-step log-likelihoods :math:`\ell^{old}_{ik}` (mean over pixels, as DDPO);
2. show the images, get rewards :math:`r_i`, advantages :math:`A_i = \mathrm{clip}((r_i - \bar r)/(\mathrm{sd}(r) + 10^{-8}), \pm A_{max})`;
3. one AdamW step on the PPO loss over the trained steps

   .. math:: L = \sum_k \frac1m \sum_i \max\big(-A_i \rho_{ik},\ -A_i\,\mathrm{clip}(\rho_{ik}, 1 \pm \epsilon)\big),
             \qquad \rho_{ik} = \exp(\ell_{ik}(\theta) - \ell^{old}_{ik}).

Deviations: the official wrapper samples with DDIM :math:`\eta = 0` (a deterministic sampler, for which the
per-step policy ratio is degenerate); here the sampler is stochastic, as DDPO requires. The official run trains
on the first 25% of the timesteps (``timestep_fraction=0.25``); the default here is all of them (the DDPO
paper's setting). The default learning rate 1e-3 (for a full small network) replaces 3e-5 (for LoRA on SDXL);
``lr=3e-5, batch_size=2, weight_decay=0.01, timestep_fraction=0.25`` reproduce the official configuration.

References
----------
Black, Janner, Du, Kostrikov, Levine (2024), Training diffusion models with reinforcement learning, ICLR,
arXiv:2305.13301. Liu et al. (2025), Flow-GRPO, arXiv:2505.05470.
"""
from __future__ import annotations

import copy
import math

import numpy as np

from iclr26sci.core import InputError, as_generator, check_in_range, check_positive_int, resolve_rng

from ._base import BlackBoxStimulusOptimizer, _check_callable, _check_pool, _embed

__all__ = ["DDPOLite"]


class DDPOLite(BlackBoxStimulusOptimizer):
    r"""DDPO-style policy-gradient fine-tuning of a :class:`FlowGenerator` from black-box rewards.

    Parameters
    ----------
    embedder : callable
        ``embedder(images) -> (n, d)``: the conditions ("prompts") are embeddings of random pool images.
    generator : FlowGenerator
        A fitted flow generator; it is copied, never modified.
    pool : array (N, *image_shape)
        Images whose embeddings are the conditions.
    batch_size : int >= 1, default 4
        Images per batch (one optimiser step each; the official run used 2).
    lr : float > 0, default 1e-3
        AdamW learning rate.
    steps : int >= 1, default 8
        SDE steps per image (the official 8 inference steps).
    noise_level : float > 0, default 0.7
        :math:`a` of the Flow-GRPO SDE.
    clip_range : float > 0, default 1e-4
        PPO ratio clip :math:`\epsilon` (DDPO's and the official value).
    adv_clip_max : float > 0, default 5
        Advantage clip.
    timestep_fraction : float in (0, 1], default 1.0
        Fraction of the (earliest, noisiest) steps trained on.
    weight_decay : float >= 0, default 0.0
    grad_clip : float > 0, default 1.0
        Gradient-norm clip.
    rng : int or Generator, optional
    random_state : None, int, SeedSequence, Generator or RandomState, default None
        scikit-learn's name for ``rng``; pass one of the two (both only with the same seed), see
        :func:`iclr26sci.core.resolve_rng`.

    Attributes
    ----------
    n_updates_ : int
        Optimiser steps taken.
    mean_reward_ : list of float
        Mean reward of each batch (the learning curve).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26sci.closedloop import DDPOLite, FlowGenerator, PCAEmbedder, run_loop
    >>> pool = np.random.default_rng(0).random((64, 3, 3)); emb = PCAEmbedder(2).fit(pool)
    >>> gen = FlowGenerator(emb, hidden=(16,), epochs=2, cache=False).fit(pool)
    >>> res = run_loop(DDPOLite(emb, gen, pool, rng=0), lambda x: x.mean(axis=(1, 2)), query_budget=8)
    >>> res.queries
    8
    """

    def __init__(self, embedder, generator, pool, *, batch_size=4, lr=1e-3, steps=8, noise_level=0.7,
                 clip_range=1e-4, adv_clip_max=5.0, timestep_fraction=1.0, weight_decay=0.0, grad_clip=1.0,
                 rng=None, random_state=None):
        self.embedder = embedder
        self.generator = generator
        self.pool = pool
        self.batch_size = batch_size
        self.lr = lr
        self.steps = steps
        self.noise_level = noise_level
        self.clip_range = clip_range
        self.adv_clip_max = adv_clip_max
        self.timestep_fraction = timestep_fraction
        self.weight_decay = weight_decay
        self.grad_clip = grad_clip
        self.rng = rng
        self.random_state = random_state
        self._check_params()

    def _check_params(self):
        from ._flowgen import FlowGenerator

        _check_callable(self.embedder, "embedder", "a callable images -> (n, d) embeddings")
        if not isinstance(self.generator, FlowGenerator) or not hasattr(self.generator, "fm_"):
            raise InputError("generator", f"is a {type(self.generator).__name__}", "a fitted FlowGenerator")
        self.pool_ = _check_pool(self.pool)
        if tuple(self.pool_.shape[1:]) != tuple(self.generator.image_shape_):
            raise InputError("pool", f"holds images of shape {self.pool_.shape[1:]}",
                             f"images of the generator's shape {self.generator.image_shape_}")
        self._bs = check_positive_int(self.batch_size, "batch_size")
        self._S = check_positive_int(self.steps, "steps")
        vals = {}
        for name, lo, lo_open, hi in (("lr", 0, True, None), ("noise_level", 0, True, None),
                                      ("clip_range", 0, True, None), ("adv_clip_max", 0, True, None),
                                      ("timestep_fraction", 0, True, 1.0), ("weight_decay", 0, False, None),
                                      ("grad_clip", 0, True, None)):
            v = check_in_range(getattr(self, name), name, lo, hi, low_open=lo_open)
            if not math.isfinite(v):
                raise InputError(name, "is infinite", "a finite number")
            vals[name] = v
        self._v = vals
        self._rng = as_generator(resolve_rng(self.rng, self.random_state))

    def _start(self):
        import torch

        from iclr26sci.nn import flow_sde

        self._check_params()
        vals = self._v
        self.pool_z_ = _embed(self.embedder, self.pool_)
        if self.pool_z_.shape[1] != self.generator.cond_dim_:
            raise InputError("embedder", f"gives {self.pool_z_.shape[1]}-d embeddings",
                             f"the generator's condition dimension {self.generator.cond_dim_}")
        self.fm_ = copy.deepcopy(self.generator.fm_)
        for p in self.fm_.velocity_net.parameters():
            p.requires_grad_(True)
        self.sde_ = flow_sde(self.fm_, noise_level=vals["noise_level"])
        self._opt = torch.optim.AdamW(self.fm_.velocity_net.parameters(), lr=vals["lr"],
                                      weight_decay=vals["weight_decay"])
        self._grid = np.linspace(0.0, 1.0, self._S + 1)
        self._n_train = max(1, int(math.floor(vals["timestep_fraction"] * self._S + 1e-9)))
        self.n_updates_ = 0
        self.mean_reward_ = []

    def _to_images(self, x):
        lo, hi = self.generator.pixel_range_
        x = x.detach().cpu().numpy().astype(float).reshape((len(x), *self.generator.image_shape_))
        return np.clip(lo + (x + 1.0) * 0.5 * (hi - lo), lo, hi)

    def _propose(self, k):
        import torch

        m = min(self._bs, k)
        cidx = self._rng.integers(0, len(self.pool_z_), size=m)
        cond = torch.as_tensor(self.pool_z_[cidx], dtype=torch.float32)
        g = torch.Generator().manual_seed(int(self._rng.integers(2 ** 62)))
        x = torch.randn((m, *self.fm_.event_shape_), generator=g, dtype=torch.float32)
        traj, lps = [x], []
        with torch.no_grad():
            for j in range(self._S):
                t0, h = float(self._grid[j]), float(self._grid[j + 1] - self._grid[j])
                st = self.sde_.step(x, t0, h, cond=cond, rng=g)
                lps.append(st.log_prob(st.sample))
                x = st.sample
                traj.append(x)
        return self._to_images(x), {"traj": torch.stack(traj), "logp": torch.stack(lps), "cond": cond}

    def _observe(self, images, rewards, meta):
        import torch

        n = len(rewards)
        self.mean_reward_.append(float(np.mean(rewards)))
        if meta is None or n < 2:       # images this policy did not sample, or no contrast within the batch
            return
        r = np.asarray(rewards, float)
        A = np.clip((r - r.mean()) / (r.std() + 1e-8), -self._v["adv_clip_max"], self._v["adv_clip_max"])
        if not np.any(A != 0):
            return
        A = torch.as_tensor(A, dtype=torch.float32)
        traj, old, cond = meta["traj"][:, :n], meta["logp"][:, :n], meta["cond"][:n]
        eps = self._v["clip_range"]
        self._opt.zero_grad(set_to_none=True)
        for j in range(self._n_train):
            t0, h = float(self._grid[j]), float(self._grid[j + 1] - self._grid[j])
            st = self.sde_.step(traj[j], t0, h, cond=cond, x_next=traj[j + 1])
            ratio = torch.exp(st.log_prob(traj[j + 1]) - old[j])
            loss = torch.mean(torch.maximum(-A * ratio, -A * torch.clamp(ratio, 1.0 - eps, 1.0 + eps)))
            loss.backward()
        torch.nn.utils.clip_grad_norm_(self.fm_.velocity_net.parameters(), self._v["grad_clip"])
        self._opt.step()
        self.n_updates_ += 1
